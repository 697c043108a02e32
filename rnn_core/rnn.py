"""The vanilla RNN: initialisation, forward pass, and backpropagation through time.

The convention, declared once for the whole series (column vectors, as the
notebooks write the maths; the code stores one row per sequence):

    h_t    = tanh(W_hh h_{t-1} + W_xh x_t + b_h)     hidden state, (H,)
    o_t    = W_yh h_t + b_o                          logits, (V,)
    yhat_t = softmax(o_t)                            next-character probabilities, (V,)
    L      = sum_t -log yhat_t[y_t]                  cross-entropy in nats

    W_xh (H, V)   W_hh (H, H)   W_yh (V, H)   b_h (H,)   b_o (V,)

V is the vocabulary size, H the hidden size, T the number of time steps, B the
number of sequences in a batch. Inputs are character indices: x_t is one-hot,
so W_xh x_t is simply column x_t of W_xh. With B sequences at once the column
equations become row equations, h_t = tanh(h_{t-1} W_hh^T + x_t W_xh^T + b_h)
with h_t of shape (B, H): the same numbers, one row per sequence.

Forward pass: notebooks/03-the-forward-pass.ipynb. Backward pass (BPTT):
notebooks/04-backpropagation-through-time.ipynb, section 2; its truncated
variant and vanishing gradients: notebooks/05-bptt-in-practice.ipynb.

Every cell of rnn_core (this one, ``rnn_core.lstm``, ``rnn_core.gru``) has the same
sequence-level functions: ``init_params``, ``forward``, ``loss_and_grads``,
``sequence_loss``, ``check_params``; its state is what its recurrence carries, here h.
``step_forward`` and ``step_backward`` are the equations of one step, as notebook 04
derives them; ``forward`` and the reference path of ``loss_and_grads`` (``fast=False``)
loop over them. ``loss_and_grads`` by default runs the same maths reorganised for speed
(``rnn_core._fast_rnn``): everything that does not depend on the recurrence runs once
for all T * B characters as a few large matrix products. tests/test_fast_paths.py shows
the two agree to 1e-12 in float64.
"""

from __future__ import annotations

import numpy as np

from . import _fast_rnn
from ._cell import (
    INPUT_SCALE,
    as_state,
    check_cell_params,
    check_dtype,
    check_window,
    count,
    output_backward,
    output_logits,
    output_loss,
    random_orthogonal,
)
from ._validation import check_int
from .functions import softmax

__all__ = [
    "PARAM_NAMES",
    "STATE_NAMES",
    "init_params",
    "param_shapes",
    "count_params",
    "check_params",
    "step_forward",
    "output_logits",
    "step_backward",
    "forward",
    "loss_and_grads",
    "sequence_loss",
    "advance",
]

PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")
STATE_NAMES = ("h",)  # the state the recurrence carries from one step to the next


def param_shapes(vocab_size, hidden_size):
    """The shape of every parameter for V = vocab_size, H = hidden_size."""
    V, H = vocab_size, hidden_size
    return {"W_xh": (H, V), "W_hh": (H, H), "W_yh": (V, H), "b_h": (H,), "b_o": (V,)}


def count_params(vocab_size, hidden_size):
    """Number of trainable numbers: H*V + H*H + V*H + H + V."""
    return count(param_shapes(vocab_size, hidden_size))


def init_params(vocab_size, hidden_size, seed=0, dtype=np.float64, recurrent_scale=1.0):
    """Random initial parameters, a dict with keys W_xh, W_hh, W_yh, b_h, b_o.

    vocab_size V >= 1, hidden_size H >= 1; seed: for np.random.default_rng;
    dtype: np.float64 (default, for gradient checks) or np.float32 (training).
    recurrent_scale: the spectral radius given to W_hh.

    - W_xh (H, V): N(0, 0.3^2), so a one-hot input moves each unit's
      pre-activation by about 0.3: small enough to stay in tanh's linear part.
    - W_hh (H, H): a random orthogonal matrix times ``recurrent_scale``. All its
      eigenvalues then have modulus ``recurrent_scale``: at 1 the recurrence sits
      on the edge between vanishing and exploding (tanh' = 1 - h^2 < 1 still
      shrinks gradients a little; notebook 05 measures it).
    - W_yh (V, H): N(0, 1/H), so each logit starts with variance about the mean
      squared hidden activation (below 1): predictions start close to uniform.
    - b_h, b_o: zeros.

    The numbers are drawn in float64 and then cast, so the same seed gives the
    same network in float32 and float64.
    """
    V, H = check_int(vocab_size, "vocab_size"), check_int(hidden_size, "hidden_size")
    dtype = check_dtype(dtype)
    rng = np.random.default_rng(seed)
    W_xh = rng.standard_normal((H, V)) * INPUT_SCALE
    W_hh = random_orthogonal(rng, H) * recurrent_scale
    W_yh = rng.standard_normal((V, H)) / np.sqrt(H)
    params = {"W_xh": W_xh, "W_hh": W_hh, "W_yh": W_yh, "b_h": np.zeros(H), "b_o": np.zeros(V)}
    return {k: np.ascontiguousarray(v, dtype=dtype) for k, v in params.items()}


# -- one time step: the equations as written --------------------------------------------------


def step_forward(params, x_t, h_prev):
    """One step h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h): the only place this equation is written.

    x_t: a character index (int) or B indices, shape (B,).
    h_prev: h_{t-1}, shape (H,) or (B, H).
    Returns h_t, shaped like h_prev.
    """
    W_xh, W_hh, b_h = params["W_xh"], params["W_hh"], params["b_h"]
    # W_hh h_{t-1} with one column per sequence, turned back into rows: (H, H) @ (H, B) -> (H, B).
    # W_xh x_t with one-hot x_t is column x_t of W_xh; rows of W_xh.T when batched.
    return np.tanh((W_hh @ h_prev.T).T + W_xh.T[x_t] + b_h)


def step_backward(params, dh_t, h_t, h_prev, x_t):
    """Back through one step: from dL/dh_t to dL/dh_{t-1} and the step's gradients.

    dh_t: dL/dh_t, everything reaching h_t (from o_t and from h_{t+1}),
    shape (H,) or (B, H); h_t, h_prev: the step's states, same shape;
    x_t: the input index (int) or indices (B,).
    Returns (dh_prev, grads) where grads holds this step's share of
    dW_xh (H, V), dW_hh (H, H) and db_h (H,).
    """
    W_hh = params["W_hh"]
    # back through tanh: da = dh * (1 - h_t^2)
    da = dh_t * (1.0 - h_t**2)
    da2, hp2 = np.atleast_2d(da), np.atleast_2d(h_prev)
    dW_xh = np.zeros_like(params["W_xh"])
    # column x_t of W_xh received da; (B, H) rows scattered into columns
    np.add.at(dW_xh.T, np.atleast_1d(x_t), da2)
    grads = {"W_xh": dW_xh, "W_hh": da2.T @ hp2, "b_h": da2.sum(axis=0)}
    dh_prev = da @ W_hh  # W_hh^T da as a column; (B, H) @ (H, H) -> (B, H)
    return dh_prev, grads


def advance(params, x_t, state):
    """Read one character (the sampler's step): returns (the state after x_t, h_t). Here both are h_t."""
    h = step_forward(params, x_t, state)
    return h, h


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, state0=None, *, h0=None):
    """Run the network over a sequence (or a batch) and keep every intermediate.

    inputs: int array (T,) or (B, T) of character indices.
    state0 (or h0, its name in notebooks 03-05): None (zeros), (H,) for one sequence,
      or (B, H) for a batch.
    Returns a dict:
      h: hidden states h_1..h_T, (T, H) or (B, T, H)
      logits: o_1..o_T, (T, V) or (B, T, V)
      p: probabilities yhat_1..yhat_T, same shape as the logits
      h0: the initial state used, (H,) or (B, H)
    """
    params = check_params(params)
    X, _, (h0,), single = check_window(params, inputs, None, _one_state(state0, h0), STATE_NAMES)
    hs = _states(params, X, h0)[1:]  # (T, B, H)
    T, B, H = hs.shape
    o = output_logits(params, hs.reshape(T * B, H)).reshape(T, B, -1)
    # time-major (T, B, .) inside; batch-first (B, T, .) outside, like inputs
    out = {"h": hs.transpose(1, 0, 2), "logits": o.transpose(1, 0, 2), "p": softmax(o).transpose(1, 0, 2), "h0": h0}
    return {k: v[0] for k, v in out.items()} if single else out


def loss_and_grads(
    params,
    inputs,
    targets,
    state0=None,
    bptt_truncate=None,
    return_dstate0=False,
    *,
    fast=True,
    h0=None,
    return_dh0=False,
):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_xh (H, V), W_hh (H, H), W_yh (V, H), b_h (H,), b_o (V,),
      all float32 or all float64 (the computation runs in that dtype).
    inputs, targets: int arrays of shape (T,) for one sequence or (B, T) for a
      batch; targets[..., t] is the character that should follow inputs[..., t].
    state0 (or h0): None (zeros), (H,) for one sequence, or (B, H) for a batch.
    bptt_truncate: None for full backpropagation through time. An int k >= 0
      gives the truncated approximation: the loss at step t sends gradient back
      through steps t, t-1, ..., t-k only, as if h_{t-k-1} were a constant.
      With k >= T - 1 this equals the full gradient; for smaller k it is *not*
      the gradient of L, only an approximation of it (notebook 05 measures how
      far off it is).
    return_dstate0 (or return_dh0): also return dL/dh0 (shaped like h0), e.g. to check it.
    fast: True (default) for the fast path; False for the reference, a loop over
      ``step_backward`` from t = T down to 1 (full BPTT only): the same numbers, slower.

    Returns (loss, grads, h_last) or, with return_dstate0, (loss, grads, h_last, dh0):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_xh etc.)
      h_last: h_T, the state after the last step, shaped like h0 ((H,) or (B, H))
    """
    params = check_params(params)
    X, Y, (h0,), single = check_window(params, inputs, targets, _one_state(state0, h0), STATE_NAMES)
    k = check_int(bptt_truncate, "bptt_truncate", 0, allow_none=True)
    hs = _states(params, X, h0)  # (T+1, B, H)
    if fast:
        loss, grads, dh0 = _fast_rnn.backward(params, X, Y, hs, k)
    elif k is None:
        loss, grads, dh0 = _backward_by_steps(params, X, Y, hs)
    else:
        raise ValueError("bptt_truncate needs the fast path: call loss_and_grads with fast=True")
    h_last = as_state([hs[-1].copy()], single)  # its own small array, not a view keeping every state alive
    if return_dstate0 or return_dh0:
        return loss, grads, h_last, as_state([dh0], single)
    return loss, grads, h_last


def sequence_loss(params, inputs, targets, state0=None, *, h0=None):
    """Forward only: (total cross-entropy in nats, h_last). No gradients, no caches.

    Same arguments and shapes as ``loss_and_grads``; cheaper, for evaluation.
    """
    params = check_params(params)
    X, Y, (h0,), single = check_window(params, inputs, targets, _one_state(state0, h0), STATE_NAMES)
    hs = _states(params, X, h0)
    loss, _ = output_loss(params, hs[1:].reshape(X.size, -1), Y.reshape(-1), grad=False)
    return loss, as_state([hs[-1].copy()], single)


# -- the loops over time (time-major: X, Y are (T, B); states are (T+1, B, H)) -------------------


def _states(params, X, h0):
    """h_0..h_T for inputs X (T, B) from h0 (B, H): returns (T+1, B, H)."""
    hs = np.empty((X.shape[0] + 1,) + h0.shape, dtype=h0.dtype)
    hs[0] = h0
    for t in range(X.shape[0]):  # the recurrence: the only loop over time
        hs[t + 1] = step_forward(params, X[t], hs[t])
    return hs


def _backward_by_steps(params, X, Y, hs):
    """Loss, gradients and dL/dh0 as notebook 04 derives them: the output layer for every step,
    then ``step_backward`` from t = T down to 1, each step's gradients added up."""
    (T, B), H = X.shape, hs.shape[-1]
    h_flat = hs[1:].reshape(T * B, H)
    loss, do = output_loss(params, h_flat, Y.reshape(-1))  # dL/do_t = yhat_t - onehot(y_t)
    dW_yh, db_o, dh_out = output_backward(params, h_flat, do)
    dh_out = dh_out.reshape(T, B, H)  # W_yh^T do_t: what reaches h_t from its logits
    grads = {k: np.zeros_like(params[k]) for k in ("W_xh", "W_hh", "b_h")}
    dh_next = np.zeros_like(hs[0])  # what reaches h_t from step t+1 (nothing at t = T)
    for t in range(T - 1, -1, -1):
        dh_next, step = step_backward(params, dh_out[t] + dh_next, hs[t + 1], hs[t], X[t])
        for k, g in step.items():
            grads[k] += g
    return loss, {**grads, "W_yh": dW_yh, "b_o": db_o}, dh_next


# -- input checks: clear errors at the door, never an IndexError deep inside ----------------------


def check_params(params):
    """Check a parameter dict: keys, one float dtype, finite values, and shapes that agree.

    Returns the dict (unchanged). Raises TypeError or ValueError naming the problem.
    """
    return check_cell_params(params, PARAM_NAMES, param_shapes, "rnn_core.init_params")


def _one_state(state0, h0):
    """The starting state, given as state0 or (in notebooks 03-05) as h0, never both."""
    if h0 is None:
        return state0
    if state0 is not None:
        raise TypeError("give the starting state once: as state0 or as h0, not both")
    return h0
