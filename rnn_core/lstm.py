"""The LSTM: initialisation, forward pass, and backpropagation through time.

The same convention as the vanilla RNN (rnn_core.rnn): column vectors in the
maths, one row per sequence in the code. One step, for the input character x_t
(one-hot, (V,)) and the previous state (h_{t-1}, c_{t-1}), each (H,):

    a_t = W_x x_t + W_h h_{t-1} + b      pre-activations of the four gates, (4H,)
    i_t = sigmoid(a_t[0:H])              input gate: how much of the candidate to write
    f_t = sigmoid(a_t[H:2H])             forget gate: how much of the old cell to keep
    g_t = tanh(a_t[2H:3H])               candidate: what to write
    o_t = sigmoid(a_t[3H:4H])            output gate: how much of the cell to show
    c_t = f_t * c_{t-1} + i_t * g_t      cell state, (H,)  (* is the elementwise product)
    h_t = o_t * tanh(c_t)                hidden state, (H,)
    logits_t = W_yh h_t + b_o            (V,); yhat_t = softmax(logits_t)
    L   = sum_t -log yhat_t[y_t]         cross-entropy in nats

    W_x (4H, V)   W_h (4H, H)   b (4H,)   W_yh (V, H)   b_o (V,)

The four gates' weights are stacked in the order i, f, g, o: rows 0:H of W_x,
W_h and b belong to the input gate, H:2H to the forget gate, 2H:3H to the
candidate, 3H:4H to the output gate. Here o is the output gate, as in the
LSTM literature; the output layer's logits (the vanilla RNN's o_t) are called
``logits``. With B sequences at once every vector becomes a row: a_t is
(B, 4H) and h_t, c_t are (B, H).

The backward pass, derived in notebooks/08-gated-cells-lstm.ipynb: with dh_t,
everything reaching h_t (from logits_t and from step t+1), and dc_t, what
reaches c_t from step t+1,

    dc_t  += dh_t * o_t * (1 - tanh(c_t)^2)     the cell also reaches the loss through h_t
    da_o   = dh_t * tanh(c_t) * o_t (1 - o_t)   back through h_t = o_t tanh(c_t), then the sigmoid
    da_i   = dc_t * g_t * i_t (1 - i_t)         back through c_t = ... + i_t g_t
    da_g   = dc_t * i_t * (1 - g_t^2)
    da_f   = dc_t * c_{t-1} * f_t (1 - f_t)     back through c_t = f_t c_{t-1} + ...
    dc_{t-1} = dc_t * f_t                       the cell path: one elementwise product per step
    dh_{t-1} = W_h^T da_t                       the hidden path: through all four gates
    dW_x += da_t x_t^T,  dW_h += da_t h_{t-1}^T,  db += da_t

The cell path dc_{t-1} = f_t * dc_t has no weight matrix and no squashing
derivative in it: while the forget gate stays near 1, the gradient reaches far
back in time unchanged. That is what the vanilla RNN lacks.

Speed: as in the vanilla engine, the loop over time is the only Python loop,
each step one (4H, H) @ (H, B) product forward and one (H, 4H) @ (4H, B)
product backward, and everything else (input lookups, logits, loss, weight
gradients) runs once for all T * B characters as a few large products.
"""

from __future__ import annotations

import threading

import numpy as np

from ._validation import check_int, check_number, check_param_arrays, check_shapes, check_state, prepare_sequences
from .functions import cross_entropy_and_grad
from .rnn import output_logits  # the same output layer as the vanilla RNN: logits = W_yh h + b_o

__all__ = [
    "PARAM_NAMES",
    "GATES",
    "param_shapes",
    "count_params",
    "init_params",
    "check_params",
    "sigmoid",
    "step_forward",
    "step_backward",
    "forward",
    "loss_and_grads",
    "sequence_loss",
]

PARAM_NAMES = ("W_x", "W_h", "b", "W_yh", "b_o")
GATES = ("i", "f", "g", "o")  # the order of the four H-row blocks of W_x, W_h and b


def param_shapes(vocab_size, hidden_size):
    """The shape of every parameter for V = vocab_size, H = hidden_size."""
    V, H = vocab_size, hidden_size
    return {"W_x": (4 * H, V), "W_h": (4 * H, H), "b": (4 * H,), "W_yh": (V, H), "b_o": (V,)}


def count_params(vocab_size, hidden_size):
    """Number of trainable numbers: 4H*V + 4H*H + 4H + V*H + V, about four vanilla RNNs' worth."""
    return sum(int(np.prod(s)) for s in param_shapes(vocab_size, hidden_size).values())


def init_params(vocab_size, hidden_size, seed=0, dtype=np.float64, forget_bias=1.0, recurrent_scale=1.0):
    """Random initial parameters, a dict with keys W_x, W_h, b, W_yh, b_o.

    vocab_size V >= 1, hidden_size H >= 1; seed: for np.random.default_rng;
    dtype: np.float64 (default, for gradient checks) or np.float32 (training);
    forget_bias: the initial bias of the forget gate; recurrent_scale: the
    spectral radius of each gate's block of W_h (1: orthogonal; as in
    rnn_core.init_params, and TrainConfig.init_scale sets it).

    - W_x (4H, V): N(0, 0.3^2), as the vanilla RNN's W_xh: a one-hot input moves
      each gate's pre-activation by about 0.3, inside the squashing functions'
      linear part.
    - W_h (4H, H): each gate's H x H block an independent random orthogonal
      matrix (times ``recurrent_scale``). An orthogonal map keeps the length of h_{t-1}, so no gate starts
      out dominated by the recurrence or deaf to it (Saxe, McClelland & Ganguli
      2014; the common LSTM default).
    - b (4H,): zeros, except the forget gate's block, ``forget_bias`` (1.0):
      f_t = sigmoid(1) = 0.73 from the start, so the cell keeps most of its
      content and the gradient along the cell path, a product of forget gates,
      shrinks slowly (0.73 per step rather than 0.5 with a zero bias). A network
      that starts out forgetting must first learn to remember before it can
      learn anything long-range (Gers, Schmidhuber & Cummins 2000; Jozefowicz,
      Zaremba & Sutskever 2015 found this one change closes most of the gap
      between the LSTM and the best architectures they searched).
    - W_yh (V, H): N(0, 1/H), as in the vanilla RNN: predictions start close to
      uniform.
    - b_o (V,): zeros.

    The numbers are drawn in float64 and then cast, so the same seed gives the
    same network in float32 and float64.
    """
    V = check_int(vocab_size, "vocab_size")
    H = check_int(hidden_size, "hidden_size")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be np.float32 or np.float64, got {dtype}")
    check_number(forget_bias, "forget_bias")
    check_number(recurrent_scale, "recurrent_scale", 0)
    rng = np.random.default_rng(seed)
    W_x = rng.standard_normal((4 * H, V)) * 0.3
    W_h = np.concatenate([_random_orthogonal(rng, H) for _ in GATES]) * recurrent_scale  # (4H, H), one block per gate
    b = np.zeros(4 * H)
    b[H : 2 * H] = forget_bias
    W_yh = rng.standard_normal((V, H)) / np.sqrt(H)
    params = {"W_x": W_x, "W_h": W_h, "b": b, "W_yh": W_yh, "b_o": np.zeros(V)}
    return {k: np.ascontiguousarray(v, dtype=dtype) for k, v in params.items()}


def _random_orthogonal(rng, n):
    # QR of a Gaussian matrix gives a uniformly random orthogonal Q once the
    # signs of R's diagonal are folded into Q's columns.
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


# -- one time step: the equations as written --------------------------------------------------------


def sigmoid(a):
    """The logistic function 1 / (1 + exp(-a)), computed as (1 + tanh(a/2)) / 2.

    The two are equal; the tanh form never overflows (exp(-a) does for a < -88
    in float32) and costs one call to tanh.
    """
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def step_forward(params, x_t, h_prev, c_prev):
    """One step of the LSTM: the gates, then c_t = f*c_{t-1} + i*g and h_t = o*tanh(c_t).

    x_t: a character index (int) or B indices, shape (B,).
    h_prev, c_prev: h_{t-1} and c_{t-1}, each (H,) or (B, H).
    Returns (h_t, c_t, cache): h_t and c_t shaped like h_prev; cache, a dict of
    what step_backward needs: x, h_prev, c_prev, the gates i, f, g, o, and c.
    """
    H = params["W_h"].shape[1]
    # a_t = W_x x_t + W_h h_{t-1} + b; with one-hot x_t, W_x x_t is column x_t of W_x
    a = params["W_x"].T[x_t] + h_prev @ params["W_h"].T + params["b"]  # (B, H) @ (H, 4H) -> (B, 4H)
    i = sigmoid(a[..., 0:H])
    f = sigmoid(a[..., H : 2 * H])
    g = np.tanh(a[..., 2 * H : 3 * H])
    o = sigmoid(a[..., 3 * H : 4 * H])
    c = f * c_prev + i * g
    h = o * np.tanh(c)
    cache = {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "o": o, "c": c}
    return h, c, cache


def step_backward(params, dh_t, dc_t, cache):
    """Back through one step: from dL/dh_t and dL/dc_t to the previous state and the step's gradients.

    dh_t: everything reaching h_t (from the logits and from step t+1), (H,) or (B, H).
    dc_t: what reaches c_t from step t+1 (dc_{t+1} * f_{t+1}; zeros at the last
      step), same shape. The path from c_t through h_t is added here.
    cache: from step_forward.
    Returns (dh_prev, dc_prev, grads): dL/dh_{t-1} and dL/dc_{t-1} through this
    step, and this step's share of dW_x (4H, V), dW_h (4H, H) and db (4H,).
    """
    i, f, g, o, c = (cache[k] for k in ("i", "f", "g", "o", "c"))
    tanh_c = np.tanh(c)
    # back through h_t = o_t * tanh(c_t): to the output gate, and on into the cell
    do = dh_t * tanh_c
    dc = dc_t + dh_t * o * (1.0 - tanh_c**2)
    # back through c_t = f_t * c_{t-1} + i_t * g_t
    di, df, dg = dc * g, dc * cache["c_prev"], dc * i
    dc_prev = dc * f
    # back through the squashing functions: sigmoid' = s (1 - s), tanh' = 1 - tanh^2
    da = np.concatenate([di * i * (1 - i), df * f * (1 - f), dg * (1 - g**2), do * o * (1 - o)], axis=-1)  # (B, 4H)
    da2, hp2 = np.atleast_2d(da), np.atleast_2d(cache["h_prev"])
    dW_x = np.zeros_like(params["W_x"])
    np.add.at(dW_x.T, np.atleast_1d(cache["x"]), da2)  # column x_t of W_x received da_t
    grads = {"W_x": dW_x, "W_h": da2.T @ hp2, "b": da2.sum(axis=0)}  # da_t h_{t-1}^T: (4H, B) @ (B, H)
    dh_prev = da @ params["W_h"]  # W_h^T da_t as rows: (B, 4H) @ (4H, H) -> (B, H)
    return dh_prev, dc_prev, grads


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, state0=None):
    """Run the LSTM over a sequence (or a batch) and keep every intermediate.

    inputs: int array (T,) or (B, T) of character indices.
    state0: None (zeros) or a pair (h0, c0), each (H,) for one sequence or
      (B, H) for a batch.
    Returns a dict of arrays, each (T, .) for one sequence or (B, T, .) for a batch:
      i, f, g, o: the gates at every step, (.., H)
      c, h: the cell and hidden states c_1..c_T, h_1..h_T, (.., H)
      logits: W_yh h_t + b_o, (.., V);  p: softmax of the logits, (.., V)
      h0, c0: the initial state used, (H,) or (B, H)
    """
    params, X, _, h0, c0, single = _check_window(params, inputs, None, state0)
    run = _forward_pass(params, X, h0, c0, for_backward=False)
    T, B, H = X.shape[0], X.shape[1], h0.shape[1]
    logits = output_logits(params, _rows(run["h"][1:])).reshape(T, B, -1)
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    gates = run["gates"].reshape(T, 4, H, B)
    out = {name: gates[:, k].transpose(0, 2, 1) for k, name in enumerate(GATES)}
    out.update(c=run["c"][1:].transpose(0, 2, 1), h=run["h"][1:].transpose(0, 2, 1), logits=logits, p=p)
    # time-major (T, B, .) inside; batch-first (B, T, .) outside, like inputs; copies, never views of the work arrays
    out = {k: np.array(v.transpose(1, 0, 2), order="C") for k, v in out.items()}
    out.update(h0=h0, c0=c0)
    if single:
        out = {k: v[0] for k, v in out.items()}
    return out


def loss_and_grads(params, inputs, targets, state0=None, return_dstate0=False):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_x (4H, V), W_h (4H, H), b (4H,), W_yh (V, H), b_o (V,),
      all float32 or all float64 (the computation runs in that dtype).
    inputs, targets: int arrays of shape (T,) for one sequence or (B, T) for a
      batch; targets[..., t] is the character that should follow inputs[..., t].
    state0: None (zeros) or a pair (h0, c0), each (H,) or (B, H).
    return_dstate0: also return (dL/dh0, dL/dc0), shaped like h0 and c0.

    Returns (loss, grads, (h_last, c_last)), or with return_dstate0
    (loss, grads, (h_last, c_last), (dh0, dc0)):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_x etc.)
      h_last, c_last: the state after the last step, shaped like h0 and c0
    """
    params, X, Y, h0, c0, single = _check_window(params, inputs, targets, state0)
    run = _forward_pass(params, X, h0, c0, for_backward=True)
    loss, grads, dh0, dc0 = _backward_pass(params, X, Y, run)
    last = (run["h"][-1].T.copy(), run["c"][-1].T.copy())
    if single:
        last, dh0, dc0 = (last[0][0], last[1][0]), dh0[0], dc0[0]
    if return_dstate0:
        return loss, grads, last, (dh0, dc0)
    return loss, grads, last


def sequence_loss(params, inputs, targets, state0=None):
    """Forward only: (total cross-entropy in nats, (h_last, c_last)). No gradients.

    Same arguments and shapes as ``loss_and_grads``; cheaper, for evaluation.
    """
    params, X, Y, h0, c0, single = _check_window(params, inputs, targets, state0)
    run = _forward_pass(params, X, h0, c0, for_backward=False)
    loss, _ = cross_entropy_and_grad(output_logits(params, _rows(run["h"][1:])), Y.reshape(-1), grad=False)
    last = (run["h"][-1].T.copy(), run["c"][-1].T.copy())
    return loss, ((last[0][0], last[1][0]) if single else last)


# -- the loops over time (time-major: X, Y are (T, B); one column per sequence) ---------------------
#
# These are step_forward and step_backward fused for speed: the same equations, written with
# in-place operations on preallocated arrays and with two tricks, both exact, that save passes
# over the data (tests/test_lstm.py ties them to the step functions and to a plain reference):
#
# 1. One tanh for all four gates. sigmoid(a) = (1 + tanh(a/2)) / 2, so with the sigmoid gates'
#    pre-activations halved (their rows of W_x, W_h and b times 1/2: exact in floating point),
#    one tanh over the whole (4H, B) block gives tanh(a/2) for i, f, o and g = tanh(a_g) at once.
# 2. One derivative formula for all four gates. With u = tanh(a/2) (or g), a sigmoid's
#    derivative is s (1 - s) = (1 - u^2) / 4 and tanh's is 1 - g^2: both (1 - u^2) times a
#    constant, 1/4 or 1. The loop backwards works without the constants (da' = da / scale) and
#    multiplies them in after it: dh_{t-1} = W_h^T da = (scale W_h)^T da', and the weight
#    gradients' rows once at the end.
#
# The layout is the maths' own: inside the loops a state is a matrix with one column per
# sequence, h_t (H, B), and the gates' pre-activations are a_t = W_h h_{t-1} + ..., (4H, B), each
# gate a block of H whole rows. At H=256, B=32 on a 2-core machine this beats one row per
# sequence twice over: OpenBLAS computes (4H, H) @ (H, B) faster than (B, H) @ (H, 4H) (about 67
# against 83 microseconds a product, timed alone), and every gate is a contiguous block, so the
# elementwise work never walks strided slices (the whole step 1.17 times faster than in the row
# layout at B = T = 32, the two timed side by side). The callers see rows, as everywhere else in rnn_core: the
# transposes happen once per call, outside the loops.


def _gate_scales(H, dtype):
    """(4H,) per row: 1/2 for the sigmoid gates i, f, o (a/2 goes into tanh), 1 for g."""
    s = np.full(4 * H, 0.5, dtype=dtype)
    s[2 * H : 3 * H] = 1.0
    return s


_WORKSPACE = threading.local()


def _workspace(T, B, H, dtype):
    """The training loops' arrays for windows of T steps, B sequences and H units, reused.

    Training calls loss_and_grads with the same shapes thousands of times. Fresh arrays each
    time (about 12 MB at H=256, B=T=32) can come back from the allocator as untouched pages,
    and first touches are slow: timed where the allocator handed the memory back to the system
    after every call, a call took 18.8 ms instead of 15.9. These are allocated once and
    rewritten in full by every call: one set per thread (threads never share them), for the
    last shape used only. No array a caller receives is a view of them.
    """
    key = (T, B, H, np.dtype(dtype))
    if getattr(_WORKSPACE, "key", None) != key:
        _WORKSPACE.key, _WORKSPACE.arrays = key, _loop_arrays(T, B, H, dtype, for_backward=True)
    return _WORKSPACE.arrays


def _loop_arrays(T, B, H, dtype, for_backward):
    """Empty arrays for the loops: see _forward_pass for what each one holds."""
    shapes = {"h": (T + 1, H, B), "c": (T + 1, H, B), "gates": (T, 4 * H, B), "tanh_c": (H, B), "a_x": (4 * H, B)}
    if for_backward:
        shapes.update(dgates=(T, 4 * H, B), dcell=(T, H, B))
    return {name: np.empty(shape, dtype) for name, shape in shapes.items()}


def _forward_pass(params, X, h0, c0, for_backward):
    """The recurrence over X (T, B) from (h0, c0), each (B, H).

    Returns a dict of arrays with one column per sequence: h, c (T+1, H, B) with h_0..h_T and
    c_0..c_T; gates (T, 4H, B), the rows of i, f, g, o after their squashing functions. With
    for_backward, also what the backward loop reads: dgates (T, 4H, B), the gates' local
    derivatives (1 - u^2) times what each gate multiplies in the equations (g for i, c_{t-1} for
    f, i for g, tanh(c_t) for o), and dcell (T, H, B) = o_t (1 - tanh(c_t)^2). With for_backward
    the arrays are the reused workspace: valid until the next call.
    """
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    (T, B), H, dtype = X.shape, W_h.shape[1], W_h.dtype
    scale = _gate_scales(H, dtype)[:, None]
    run = _workspace(T, B, H, dtype) if for_backward else _loop_arrays(T, B, H, dtype, for_backward)
    h, c, gates, tanh_c, a_x = run["h"], run["c"], run["gates"], run["tanh_c"], run["a_x"]
    h[0], c[0] = h0.T, c0.T
    # W_x x_t + b, the sigmoid rows halved, is column x_t of this (4H, V) table (x_t is one-hot)
    W_xb = (W_x + b[:, None]) * scale
    W_hs = W_h * scale  # (4H, H)
    sigmoid_rows = (slice(0, 2 * H), slice(3 * H, 4 * H))  # i, f and o; g is rows 2H:3H
    for t in range(T):  # the recurrence: the only loop over time
        u = gates[t]
        np.matmul(W_hs, h[t], out=u)  # W_h h_{t-1}, scaled: (4H, H) @ (H, B) -> (4H, B)
        # (mode="clip": the indices are checked already, and the default mode copies through a buffer)
        np.take(W_xb, X[t], axis=1, out=a_x, mode="clip")
        u += a_x
        np.tanh(u, out=u)  # tanh(a/2) for i, f, o; g itself for the candidate
        if for_backward:
            D = run["dgates"][t]
            np.multiply(u, u, out=D)
            np.subtract(1.0, D, out=D)  # 1 - u^2: each gate's derivative without its constant
        for rows in sigmoid_rows:  # sigmoid = (1 + tanh(a/2)) / 2
            u[rows] *= 0.5
            u[rows] += 0.5
        i, f, g, o = u[0:H], u[H : 2 * H], u[2 * H : 3 * H], u[3 * H :]
        np.multiply(f, c[t], out=c[t + 1])  # c_t = f * c_{t-1} + i * g
        c[t + 1] += i * g
        np.tanh(c[t + 1], out=tanh_c)
        np.multiply(o, tanh_c, out=h[t + 1])  # h_t = o * tanh(c_t)
        if for_backward:
            D[0:H] *= g  # dc -> da_i: g
            D[H : 2 * H] *= c[t]  # dc -> da_f: c_{t-1}
            D[2 * H : 3 * H] *= i  # dc -> da_g: i
            D[3 * H :] *= tanh_c  # dh -> da_o: tanh(c_t)
            dcell = run["dcell"][t]
            np.multiply(h[t + 1], tanh_c, out=dcell)  # o (1 - tanh^2 c) = o - h tanh(c)
            np.subtract(o, dcell, out=dcell)
    return run


def _rows(states):
    """(T, H, B) states, one column per sequence, as (T * B, H) rows in the order of X.reshape(-1)."""
    T, H, B = states.shape
    return states.transpose(0, 2, 1).reshape(T * B, H)  # a copy


def _backward_pass(params, X, Y, run):
    """Loss, gradients, dL/dh0 and dL/dc0 (each (B, H)) from the forward pass's record ``run``."""
    W_h, W_yh = params["W_h"], params["W_yh"]
    V, H = W_yh.shape
    (T, B), N = X.shape, X.size
    h, gates, D, dcell = run["h"], run["gates"], run["dgates"], run["dcell"]
    k = _gate_scales(H, W_h.dtype) ** 2  # the derivatives' constants: 1/4 for i, f, o, 1 for g
    h_rows = _rows(h[1:])  # (N, H): h_1..h_T
    # the output layer, for every step at once: dL/dlogits_t = yhat_t - onehot(y_t)
    loss, dlogits = cross_entropy_and_grad(output_logits(params, h_rows), Y.reshape(-1))  # dL/dlogits = yhat - onehot(y)
    dW_yh = dlogits.T @ h_rows  # (V, N) @ (N, H) -> (V, H)
    db_o = dlogits.sum(axis=0)
    # W_yh^T dlogits_t reaches h_t from the logits: (H, V) @ (V, B) for each t -> (T, H, B)
    dh = np.matmul(W_yh.T, dlogits.reshape(T, B, V).transpose(0, 2, 1))
    W_h_k = W_h * k[:, None]  # (4H, H): the derivatives' constants folded into W_h
    dh_next = np.zeros((H, B), W_h.dtype)  # dL/dh_t from step t+1
    dc = np.zeros((H, B), W_h.dtype)  # dL/dc_t from step t+1
    for t in range(T - 1, -1, -1):
        dh_t = dh[t]
        dh_t += dh_next  # everything reaching h_t
        dc += dh_t * dcell[t]  # dc_t += dh_t * o_t (1 - tanh(c_t)^2)
        da = D[t]  # (4H, B): da_t (without the gates' constants) overwrites the local derivatives
        da[0 : 3 * H].reshape(3, H, B)[...] *= dc  # da_i, da_f, da_g: from dc_t
        da[3 * H :] *= dh_t  # da_o: from dh_t
        dc *= gates[t, H : 2 * H]  # dc_{t-1} = dc_t * f_t
        np.matmul(W_h_k.T, da, out=dh_next)  # W_h^T da_t: (H, 4H) @ (4H, B) -> (H, B)
    da_flat = D.transpose(1, 0, 2).reshape(4 * H, N)  # (4H, N), a copy: the columns in the order of X.reshape(-1)
    # the gates' weights: sums over every step of da_t h_{t-1}^T, da_t x_t^T and da_t
    dW_h = da_flat @ _rows(h[:-1])  # (4H, N) @ (N, H) -> (4H, H)
    x_rows = np.take(np.eye(V, dtype=W_h.dtype), X.reshape(-1), axis=0, mode="clip")
    dW_x = da_flat @ x_rows  # (4H, N) @ (N, V) -> (4H, V)
    db = dW_x.sum(axis=1)  # every da_t lands in exactly one column of dW_x
    dW_h *= k[:, None]
    dW_x *= k[:, None]
    db *= k
    grads = {"W_x": dW_x, "W_h": dW_h, "b": db, "W_yh": dW_yh, "b_o": db_o}
    return loss, grads, dh_next.T.copy(), dc.T.copy()


# -- input checks: clear errors at the door, never an IndexError deep inside ----------------------


def check_params(params):
    """Check an LSTM parameter dict: keys, one float dtype, finite values, and shapes that agree.

    Returns the dict (unchanged). Raises TypeError or ValueError naming the problem.
    """
    check_param_arrays(params, PARAM_NAMES, "rnn_core.lstm.init_params")
    W_x = params["W_x"]
    if W_x.ndim != 2 or W_x.shape[0] % 4 != 0 or W_x.shape[0] == 0:
        raise ValueError(f"W_x must have shape (4H, V), four gates' rows stacked, got {W_x.shape}")
    H, V = W_x.shape[0] // 4, W_x.shape[1]
    check_shapes(params, param_shapes(V, H), f"W_x {W_x.shape} implies H={H}, V={V}")
    return params


def _check_window(params, inputs, targets, state0):
    """The checked params, time-major X and Y (T, B), h0 and c0 as (B, H), and whether inputs was (T,)."""
    params = check_params(params)
    H, V = params["W_h"].shape[1], params["W_x"].shape[1]
    X, Y, single = prepare_sequences(inputs, targets, V)
    if state0 is None:
        state0 = (None, None)
    elif isinstance(state0, np.ndarray) or not isinstance(state0, (tuple, list)) or len(state0) != 2:
        raise TypeError(
            f"state0 must be None or a pair (h0, c0) of arrays, got {type(state0).__name__}"
            + (f" of shape {state0.shape}" if isinstance(state0, np.ndarray) else "")
        )
    dtype, B = params["W_h"].dtype, X.shape[1]
    h0 = check_state(state0[0], "h0", H, B, single, dtype)
    c0 = check_state(state0[1], "c0", H, B, single, dtype)
    return params, X, Y, h0, c0, single
