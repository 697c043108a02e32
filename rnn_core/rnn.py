"""The vanilla RNN: initialisation, forward pass, and backpropagation through time.

The convention, declared once for the whole series (column vectors, as the
notebooks write the maths; the code stores one row per sequence):

    h_t     = tanh(W_hh h_{t-1} + W_xh x_t + b_h)     hidden state, (H,)
    o_t     = W_yh h_t + b_o                          logits, (V,)
    y_hat_t = softmax(o_t)                            next-character probabilities, (V,)
    L       = sum_t -log y_hat_t[y_t]                 cross-entropy in nats

    W_xh (H, V)   W_hh (H, H)   W_yh (V, H)   b_h (H,)   b_o (V,)

V is the vocabulary size, H the hidden size, T the number of time steps, B the
number of sequences in a batch. Inputs are character indices: x_t is one-hot,
so W_xh x_t is simply column x_t of W_xh. With B sequences at once the column
equations become row equations, h_t = tanh(h_{t-1} W_hh^T + x_t W_xh^T + b_h)
with h_t of shape (B, H): the same numbers, one row per sequence.

Forward pass: notebooks/03-the-forward-pass.ipynb. Backward pass (BPTT):
notebooks/04-backpropagation-through-time.ipynb, section 2; its truncated
variant and vanishing gradients: notebooks/05-bptt-in-practice.ipynb.

A stack of L layers (``num_layers=L``, every cell alike): layer 0 reads the characters, layer
k >= 1 reads layer k-1's h_t where layer 0 reads x_t, with arrays of its own, named as layer
0's with the suffix ``_k`` (here W_xh_k (H, H), W_hh_k (H, H), b_h_k (H,)); the output layer
reads the top layer's h_t. Its gradient flows down the same way: what reaches layer k-1's h_t
from above is W_xh_k^T delta_t, beside what reaches it from step t+1. A state then has a layer
axis in front, (L, H) or (L, B, H), as PyTorch's does. Dropout (Zaremba, Sutskever & Vinyals
2014) multiplies each layer's h_t by a mask where it goes up, into the next layer or the
output layer, never along the recurrence: ``dropout`` and ``seed``, or ``masks``.

Every cell of rnn_core (this one, ``rnn_core.lstm``, ``rnn_core.gru``) has the same
sequence-level functions: ``init_params``, ``forward``, ``loss_and_grads``,
``sequence_loss``, ``check_params``; its state is what its recurrence carries, here h.
``step_forward`` and ``step_backward`` are the equations of one step, as notebook 04
derives them; ``forward`` and the reference path of ``loss_and_grads`` (``fast=False``)
loop over them, layer by layer. ``loss_and_grads`` by default runs the same backward pass
reorganised for speed (``rnn_core._fast_rnn``): everything that does not depend on the
recurrence runs once for all T * B characters as a few large matrix products.
tests/test_fast_paths.py shows the two agree to 1e-12 in float64.
"""

from __future__ import annotations

import numpy as np

from . import _cell
from ._cell import output_logits  # the output layer every cell ends in: o = W_yh h + b_o
from ._fast_rnn import VanillaEngine
from ._validation import check_bool, check_int

__all__ = [*_cell.INTERFACE, "output_logits"]

PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")  # one layer's network
LAYER_NAMES = ("W_xh", "W_hh", "b_h")  # the arrays of one layer: layer k >= 1 adds W_xh_k, W_hh_k, b_h_k
STATE_NAMES = ("h",)  # the state the recurrence carries from one step to the next


# param_names(num_layers=1): PARAM_NAMES, then each further layer's names; param_shapes(vocab_size,
# hidden_size, num_layers=1): {name: shape} for every one of them
# count_params(vocab_size, hidden_size, num_layers=1): the number of trainable numbers,
# H*V + H*H + V*H + H + V, and (2H*H + H) for each further layer;
# check_params(params): the dict checked at the door (keys, every layer's; one float dtype; finite
# values; shapes that agree), so that a bad one is a clear error, never an IndexError deep inside
_NAMES = _cell.Names(PARAM_NAMES, LAYER_NAMES, None, "rnn_core.init_params")
param_names, param_shapes = _NAMES.param_names, _NAMES.param_shapes
count_params, check_params = _NAMES.count_params, _NAMES.check_params
BLOCKS = _NAMES.blocks  # the number of H-row blocks in a layer's weights: one, as the cell has no gates


def init_params(vocab_size, hidden_size, seed=0, dtype=np.float64, *, recurrent_scale=1.0, num_layers=1):
    """Random initial parameters, a dict with keys W_xh, W_hh, W_yh, b_h, b_o (and each further layer's).

    vocab_size V >= 1, hidden_size H >= 1; seed: for np.random.default_rng;
    dtype: np.float64 (default, for gradient checks) or np.float32 (training).
    recurrent_scale: the spectral radius given to W_hh. num_layers: L >= 1.

    - W_xh (H, V): N(0, 0.3^2), so a one-hot input moves each unit's
      pre-activation by about 0.3: small enough to stay in tanh's linear part.
    - W_hh (H, H): a random orthogonal matrix times ``recurrent_scale``. All its
      eigenvalues then have modulus ``recurrent_scale``: at 1 the recurrence sits
      on the edge between vanishing and exploding (tanh' = 1 - h^2 < 1 still
      shrinks gradients a little; notebook 05 measures it).
    - W_yh (V, H): N(0, 1/H), so each logit starts with variance about the mean
      squared hidden activation (below 1): predictions start close to uniform.
    - b_h, b_o: zeros.
    - each further layer k: W_xh_k (H, H) from N(0, 1/H), for the same reason as W_yh (its
      input is the layer below's h_t); W_hh_k and b_h_k as layer 0's. They are drawn after
      the rest, so that layer 0 and W_yh are the same numbers whatever L.

    The numbers are drawn in float64 and then cast, so the same seed gives the
    same network in float32 and float64.
    """
    return _NAMES.draw(seed, vocab_size, hidden_size, num_layers, recurrent_scale, dtype)


_SEQUENCES = _cell.Sequences(check_params, STATE_NAMES, LAYER_NAMES, param_names)


# -- one time step: the equations as written --------------------------------------------------


def step_forward(params, x_t, h_prev):
    """One step h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h), the equation as notebook 03 writes it.

    x_t: a character index (int) or B indices, shape (B,); in a layer above the first, the
      layer below's h_t, (H,) or (B, H) (with that layer's arrays under these names).
    h_prev: h_{t-1}, shape (H,) or (B, H).
    Returns h_t, shaped like h_prev.
    """
    W_xh, W_hh, b_h = params["W_xh"], params["W_hh"], params["b_h"]
    # W_hh h_{t-1} with one column per sequence, turned back into rows: (H, H) @ (H, B) -> (H, B).
    # Notebook 03's column form, kept so that this line reads as its equation; the gated cells, which
    # 08 and 09 write batched from the start, write the same product as h_prev @ W_h.T.
    # W_xh x_t with one-hot x_t is column x_t of W_xh; rows of W_xh.T when batched.
    return np.tanh((W_hh @ h_prev.T).T + _cell.input_term(W_xh, x_t) + b_h)


def step_backward(params, dh_t, h_t, h_prev, x_t, *, return_dx=False):
    """Back through one step: from dL/dh_t to dL/dh_{t-1} and the step's gradients.

    dh_t: dL/dh_t, everything reaching h_t (from o_t, or the layer above, and from h_{t+1}),
    shape (H,) or (B, H); h_t, h_prev: the step's states, same shape;
    x_t: the input index (int) or indices (B,), or the layer below's h_t (as for step_forward).
    Returns (dh_prev, grads) where grads holds this step's share of
    dW_xh (H, V), dW_hh (H, H) and db_h (H,); with return_dx, (dh_prev, grads, dx_t), dx_t =
    W_xh^T delta, what reaches the input: in a stack, the layer below's h_t.
    """
    W_hh = params["W_hh"]
    # back through tanh: delta = dh * (1 - h_t^2)
    delta = dh_t * (1.0 - h_t**2)
    delta2, hp2 = np.atleast_2d(delta), np.atleast_2d(h_prev)
    # column x_t of W_xh received delta (x_t one-hot): (H, B) @ (B, V); or delta x_t^T for a vector x_t
    dW_xh = _cell.input_weight_grad(delta2.T, x_t, params["W_xh"].shape[1])
    grads = {"W_xh": dW_xh, "W_hh": delta2.T @ hp2, "b_h": delta2.sum(axis=0)}
    dh_prev = delta @ W_hh  # W_hh^T delta as a column; (B, H) @ (H, H) -> (B, H)
    if return_dx:
        return dh_prev, grads, delta @ params["W_xh"]  # W_xh^T delta: (B, H) @ (H, n_in)
    return dh_prev, grads


# The reference engine: one layer's window as a loop over step_forward and step_backward, in the
# notebooks' form (h_t alone, and step_backward reading (h_t, h_prev, x_t) in place of a cache).
REFERENCE = _cell.ReferenceEngine(step_forward, step_backward, STATE_NAMES, LAYER_NAMES, cached=False)
# The fast engine of ``rnn_core._fast_rnn``, the default: the reference loop forwards, the backward pass
# for a whole layer at once; ``FAST.truncated(k)``, the same with BPTT truncated at k steps back.
FAST = VanillaEngine(REFERENCE)


def advance(params, x_t, state):
    """Read one character (the sampler's step): returns (the state after x_t, the top layer's h_t).
    For one layer both are h_t; for a stack the state is every layer's h_t, (L, H) or (L, B, H)."""
    return _cell.advance(REFERENCE, params, x_t, state)


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Run the network over a sequence (or a batch) and keep every intermediate.

    inputs: int array (T,) or (B, T) of character indices.
    state0: None (zeros), (H,) for one sequence, or (B, H) for a batch; a stack of L layers:
      (L, H) or (L, B, H).
    dropout, seed, masks: as for ``loss_and_grads`` (none by default).
    Returns a dict:
      h: hidden states h_1..h_T, (T, H) or (B, T, H); a stack: every layer's, (L, ...)
      logits: o_1..o_T, (T, V) or (B, T, V)
      y_hat: probabilities ŷ_1..ŷ_T (softmax of the logits), same shape as the logits
      h0: the initial state used, shaped like state0
    """
    return _SEQUENCES.forward(REFERENCE, (), params, inputs, state0, dropout, seed, masks)


def loss_and_grads(
    params,
    inputs,
    targets,
    state0=None,
    return_dstate0=False,
    *,
    bptt_truncate=None,
    fast=True,
    dropout=0.0,
    seed=None,
    masks=None,
):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_xh (H, V), W_hh (H, H), W_yh (V, H), b_h (H,), b_o (V,), and for a
      stack each further layer's W_xh_k (H, H), W_hh_k (H, H), b_h_k (H,); all float32 or all
      float64 (the computation runs in that dtype).
    inputs, targets: int arrays of shape (T,) for one sequence or (B, T) for a
      batch; targets[..., t] is the character that should follow inputs[..., t].
    state0: None (zeros), (H,) for one sequence, or (B, H) for a batch; (L, H) or (L, B, H)
      for a stack of L layers.
    bptt_truncate: None for full backpropagation through time. An int k >= 0
      gives the truncated approximation: the loss at step t sends gradient back
      through steps t, t-1, ..., t-k only, as if h_{t-k-1} (every layer's) were a constant.
      With k >= T - 1 this equals the full gradient; for smaller k it is *not*
      the gradient of L, only an approximation of it (notebook 05 measures how
      far off it is).
    return_dstate0: also return dL/dh0 (shaped like state0), e.g. to check it. With truncation, the
      truncated graph's: h_{t-k-1} is a leaf for the loss at step t, which sends it a gradient and
      none further back, so the losses at steps 1 to k + 1 reach h0 (at k = 0, the first step's
      loss alone); tests/test_rnn.py builds it so, window by window.
    fast: True (default) for the fast path; False for the reference, a loop over
      ``step_backward`` from t = T down to 1, layer by layer (full BPTT only): the same
      numbers, slower.
    dropout: a rate in [0, 1), the probability of dropping each unit of h_t where it leaves its
      layer (into the next layer, or the output layer), with inverted scaling, the masks drawn
      with ``seed`` (an int, a sequence of ints or a np.random.Generator; needed when the rate
      is > 0). Or masks: the masks themselves, shaped like forward's h, e.g.
      ``rnn_core.cells.dropout_masks``' (a gradient check keeps them fixed). dropout=0 and
      masks=None (the defaults): no dropout.

    Returns (loss, grads, h_last) or, with return_dstate0, (loss, grads, h_last, dh0):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_xh etc.)
      h_last: h_T, the state after the last step, shaped like state0
    """
    k = check_int(bptt_truncate, "bptt_truncate", 0, allow_none=True)
    if not check_bool(fast, "fast") and k is not None:
        raise TypeError("bptt_truncate needs the fast path: call loss_and_grads with fast=True")
    engine = FAST.truncated(k) if fast else REFERENCE
    return _SEQUENCES.loss_and_grads(engine, params, inputs, targets, state0, return_dstate0, dropout, seed, masks)


def sequence_loss(params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Forward only: (total cross-entropy in nats, h_last). No gradients, no caches.

    Same arguments and shapes as ``loss_and_grads``; cheaper, for evaluation.
    """
    return _SEQUENCES.sequence_loss(REFERENCE, params, inputs, targets, state0, dropout, seed, masks)
