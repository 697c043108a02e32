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

Speed: the loop over time is the only Python loop. Everything that does not
depend on the recurrence (the logits, softmax and loss, the weight gradients)
runs once for all T * B characters as a few large matrix products.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_param_arrays, check_shapes, check_state, prepare_sequences
from .functions import cross_entropy_and_grad, one_hot, softmax

__all__ = ["PARAM_NAMES", "init_params", "param_shapes", "count_params", "check_params", "step_forward",
           "output_logits", "step_backward", "forward", "loss_and_grads", "sequence_loss"]

PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")


def param_shapes(vocab_size, hidden_size):
    """The shape of every parameter for V = vocab_size, H = hidden_size."""
    V, H = vocab_size, hidden_size
    return {"W_xh": (H, V), "W_hh": (H, H), "W_yh": (V, H), "b_h": (H,), "b_o": (V,)}


def count_params(vocab_size, hidden_size):
    """Number of trainable numbers: H*V + H*H + V*H + H + V."""
    return sum(int(np.prod(s)) for s in param_shapes(vocab_size, hidden_size).values())


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
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be np.float32 or np.float64, got {dtype}")
    rng = np.random.default_rng(seed)
    W_xh = rng.standard_normal((H, V)) * 0.3
    # QR of a Gaussian matrix gives a uniformly random orthogonal Q once the
    # signs of R's diagonal are folded into Q's columns.
    q, r = np.linalg.qr(rng.standard_normal((H, H)))
    W_hh = q * np.sign(np.diag(r)) * recurrent_scale
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


def output_logits(params, h):
    """The logits o = W_yh h + b_o for states h of shape (..., H): returns (..., V)."""
    return h @ params["W_yh"].T + params["b_o"]


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


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, h0=None):
    """Run the network over a sequence (or a batch) and keep every intermediate.

    inputs: int array (T,) or (B, T) of character indices.
    h0: None (zeros), (H,) for one sequence, or (B, H) for a batch.
    Returns a dict:
      h: hidden states h_1..h_T, (T, H) or (B, T, H)
      o: logits o_1..o_T, (T, V) or (B, T, V)
      p: probabilities yhat_1..yhat_T, same shape as o
      h0: the initial state used, (H,) or (B, H)
    """
    params, X, _, h0, single = _check_window(params, inputs, None, h0)
    hs = _hidden_states(params, X, h0)[1:]  # (T, B, H)
    T, B, H = hs.shape
    o = output_logits(params, hs.reshape(T * B, H)).reshape(T, B, -1)
    # time-major (T, B, .) inside; batch-first (B, T, .) outside, like inputs
    out = {"h": hs.transpose(1, 0, 2), "o": o.transpose(1, 0, 2), "p": softmax(o).transpose(1, 0, 2), "h0": h0}
    return {k: v[0] for k, v in out.items()} if single else out


def loss_and_grads(params, inputs, targets, h0=None, bptt_truncate=None, return_dh0=False):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_xh (H, V), W_hh (H, H), W_yh (V, H), b_h (H,), b_o (V,),
      all float32 or all float64 (the computation runs in that dtype).
    inputs, targets: int arrays of shape (T,) for one sequence or (B, T) for a
      batch; targets[..., t] is the character that should follow inputs[..., t].
    h0: None (zeros), (H,) for one sequence, or (B, H) for a batch.
    bptt_truncate: None for full backpropagation through time. An int k >= 0
      gives the truncated approximation: the loss at step t sends gradient back
      through steps t, t-1, ..., t-k only, as if h_{t-k-1} were a constant.
      With k >= T - 1 this equals the full gradient; for smaller k it is *not*
      the gradient of L, only an approximation of it (notebook 05 measures how
      far off it is).
    return_dh0: also return dL/dh0 (shaped like h0), e.g. to check it.

    Returns (loss, grads, h_last) or, with return_dh0, (loss, grads, h_last, dh0):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_xh etc.)
      h_last: h_T, the state after the last step, shaped like h0 ((H,) or (B, H))
    """
    params, X, Y, h0, single = _check_window(params, inputs, targets, h0)
    k = check_int(bptt_truncate, "bptt_truncate", 0, allow_none=True)
    hs = _hidden_states(params, X, h0)  # (T+1, B, H)
    loss, grads, dh0 = _backward(params, X, Y, hs, k)
    h_last = hs[-1].copy()  # its own small array, not a view keeping every state alive
    if single:
        h_last, dh0 = h_last[0], dh0[0]
    return (loss, grads, h_last, dh0) if return_dh0 else (loss, grads, h_last)


def sequence_loss(params, inputs, targets, h0=None):
    """Forward only: (total cross-entropy in nats, h_last). No gradients, no caches.

    Same arguments and shapes as ``loss_and_grads``; cheaper, for evaluation.
    """
    params, X, Y, h0, single = _check_window(params, inputs, targets, h0)
    hs = _hidden_states(params, X, h0)
    loss, _ = _output_loss(params, hs[1:].reshape(X.size, -1), Y.reshape(-1), grad=False)
    return loss, (hs[-1, 0] if single else hs[-1]).copy()


# -- the loops over time (time-major: X, Y are (T, B); states are (T+1, B, H)) -------------------


def _hidden_states(params, X, h0):
    """h_0..h_T for inputs X (T, B) from h0 (B, H): returns (T+1, B, H)."""
    hs = np.empty((X.shape[0] + 1,) + h0.shape, dtype=h0.dtype)
    hs[0] = h0
    for t in range(X.shape[0]):  # the recurrence: the only loop over time
        hs[t + 1] = step_forward(params, X[t], hs[t])
    return hs


def _output_loss(params, h_flat, y_flat, grad=True):
    """Loss and dL/do for the logits o = W_yh h + b_o of rows h_flat (N, H) with targets y_flat (N,).

    ``cross_entropy(o, y)`` and ``cross_entropy_grad(o, y)`` from functions.py, fused for
    speed (a training step is about 5% faster): one exp instead of two, computed in place.
    tests/test_rnn.py checks that the two give the same numbers. Returns (loss, do) with do
    (N, V), or (loss, None).
    """
    return cross_entropy_and_grad(output_logits(params, h_flat), y_flat, grad)  # o: (N, H) @ (H, V) -> (N, V)


def _backward(params, X, Y, hs, k=None):
    """Loss, gradients and dL/dh0 from the states hs (T+1, B, H); k: truncate BPTT at k steps back.

    The four steps of notebook 04, section 2, for all T * B characters at once, except the
    recursion backwards in time (step 3), which is the only loop.
    """
    W_hh, W_yh = params["W_hh"], params["W_yh"]
    V, H = W_yh.shape
    (T, B), N = X.shape, X.size
    h_flat = hs[1:].reshape(N, H)
    # step 1, the output: dL/do_t = yhat_t - onehot(y_t), for every step at once
    loss, do = _output_loss(params, h_flat, Y.reshape(-1))
    # step 2, the output weights: sums over every step of do_t h_t^T and do_t
    dW_yh = do.T @ h_flat  # (V, N) @ (N, H) -> (V, H)
    db_o = do.sum(axis=0)
    # step 3, the hidden states: W_yh^T do_t reaches h_t from o_t ...
    dh = (do @ W_yh).reshape(T, B, H)  # (N, V) @ (V, H) -> (N, H)
    if k is None:
        # ... and W_hh^T da_{t+1} from h_{t+1}: da_t = (W_yh^T do_t + W_hh^T da_{t+1}) * (1 - h_t^2),
        # from t = T down to 1, as in step_backward; da_t overwrites dh[t]
        da, dh_next = dh, np.zeros_like(hs[0])
        for t in range(T - 1, -1, -1):
            da[t] = (dh[t] + dh_next) * (1.0 - hs[t + 1] ** 2)
            dh_next = (W_hh.T @ da[t].T).T  # W_hh^T da_t, one column per sequence: (H, H) @ (H, B)
        dh0 = dh_next.copy()
    else:
        dtanh = 1.0 - hs[1:] ** 2
        da = _truncated_deltas(dh * dtanh, dtanh, W_hh, k)
        dh0 = da[0] @ W_hh
    # step 4, the recurrent weights: sums over every step of da_t h_{t-1}^T, da_t x_t^T, da_t
    da_flat = da.reshape(N, H)
    dW_hh = da_flat.T @ hs[:-1].reshape(N, H)  # (H, N) @ (N, H) -> (H, H)
    dW_xh = da_flat.T @ one_hot(X.reshape(-1), V, dtype=hs.dtype)  # one-hot x_t as rows: (H, N) @ (N, V)
    db_h = dW_xh.sum(axis=1)  # every da_t lands in exactly one column of dW_xh
    return loss, {"W_xh": dW_xh, "W_hh": dW_hh, "W_yh": dW_yh, "b_h": db_h, "b_o": db_o}, dh0


def _truncated_deltas(d0, dtanh, W_hh, k):
    """Sum over losses L_t of the gradient at each step s, for s in [t-k, t].

    d0[t]: dL_t/da_t for every t, (T, B, H). Going one step further back for
    every loss at once: d_j[s] = (d_{j-1}[s+1] W_hh) * (1 - h_s^2), j = 1..k.
    Returns A (T, B, H) with A[s] = sum over t in [s, s+k] of dL_t/da_s.
    """
    T, acc, d = d0.shape[0], d0.copy(), d0
    for j in range(1, min(k, T - 1) + 1):
        d = (d[1:] @ W_hh) * dtanh[: T - j]  # (T-j, B, H)
        acc[: T - j] += d
    return acc


# -- input checks: clear errors at the door, never an IndexError deep inside ----------------------


def check_params(params):
    """Check a parameter dict: keys, one float dtype, finite values, and shapes that agree.

    Returns the dict (unchanged). Raises TypeError or ValueError naming the problem.
    """
    check_param_arrays(params, PARAM_NAMES, "rnn_core.init_params")
    W_xh = params["W_xh"]
    if W_xh.ndim != 2:
        raise ValueError(f"W_xh must have shape (H, V), got {W_xh.shape}")
    H, V = W_xh.shape
    check_shapes(params, param_shapes(V, H), f"W_xh {W_xh.shape} implies H={H}, V={V}")
    return params


def _check_window(params, inputs, targets, h0):
    """The checked params, time-major X and Y (T, B), h0 as (B, H), and whether inputs was (T,)."""
    params = check_params(params)
    H, V = params["W_xh"].shape
    X, Y, single = prepare_sequences(inputs, targets, V)
    return params, X, Y, check_state(h0, "h0", H, X.shape[1], single, params["W_xh"].dtype), single
