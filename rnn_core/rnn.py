"""The vanilla RNN: initialisation, forward pass, and backpropagation through time.

The convention, declared once for the whole series (column vectors, as the
notebooks write the maths; the code stores one row per sequence):

    h_t   = tanh(W_hh h_{t-1} + W_xh x_t + b_h)      hidden state, (H,)
    o_t   = W_yh h_t + b_o                           logits, (V,)
    yhat_t = softmax(o_t)                            next-character probabilities, (V,)
    L     = sum_t -log yhat_t[y_t]                   cross-entropy in nats

    W_xh (H, V)   W_hh (H, H)   W_yh (V, H)   b_h (H,)   b_o (V,)

V is the vocabulary size, H the hidden size, T the number of time steps, B the
number of sequences in a batch. Inputs are character indices: x_t is one-hot,
so W_xh x_t is simply column x_t of W_xh. With B sequences at once the column
equations become row equations, h_t = tanh(h_{t-1} W_hh^T + x_t W_xh^T + b_h)
with h_t of shape (B, H): the same numbers, one row per sequence.

Forward pass: notebooks/03-the-forward-pass.ipynb. Backward pass (BPTT) and
its truncated variant: notebooks/04-backpropagation-through-time.ipynb.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = [
    "PARAM_NAMES",
    "init_params",
    "param_shapes",
    "count_params",
    "check_params",
    "step_forward",
    "step_backward",
    "forward",
    "loss_and_grads",
    "sequence_loss",
]

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
      shrinks gradients a little; notebook 04 measures it).
    - W_yh (V, H): N(0, 1/H), so each logit starts with variance about the mean
      squared hidden activation (below 1): predictions start close to uniform.
    - b_h, b_o: zeros.

    The numbers are drawn in float64 and then cast, so the same seed gives the
    same network in float32 and float64.
    """
    V = _positive_int(vocab_size, "vocab_size")
    H = _positive_int(hidden_size, "hidden_size")
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
    params = {
        "W_xh": W_xh,
        "W_hh": W_hh,
        "W_yh": W_yh,
        "b_h": np.zeros(H),
        "b_o": np.zeros(V),
    }
    return {k: np.ascontiguousarray(v, dtype=dtype) for k, v in params.items()}


# -- one time step: the equations as written ------------------------------------


def step_forward(params, x_t, h_prev):
    """One step h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h).

    x_t: a character index (int) or B indices, shape (B,).
    h_prev: h_{t-1}, shape (H,) or (B, H).
    Returns h_t, shaped like h_prev.
    """
    W_xh, W_hh, b_h = params["W_xh"], params["W_hh"], params["b_h"]
    # W_xh x_t with one-hot x_t is column x_t of W_xh; rows of W_xh.T when batched
    return np.tanh(h_prev @ W_hh.T + W_xh.T[x_t] + b_h)


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


# -- whole sequences, vectorised over the batch ------------------------------------


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
    params = check_params(params)
    X, h0b, single = _prepare_inputs(params, inputs, None, h0)
    hs = _hidden_states(params, X, h0b)
    T, B, H = hs.shape[0] - 1, hs.shape[1], hs.shape[2]
    o = (hs[1:].reshape(T * B, H) @ params["W_yh"].T + params["b_o"]).reshape(T, B, -1)
    p = _softmax_last(o)
    # time-major (T, B, .) inside; batch-first (B, T, .) outside, like inputs
    out = {"h": hs[1:].transpose(1, 0, 2), "o": o.transpose(1, 0, 2), "p": p.transpose(1, 0, 2), "h0": h0b}
    if single:
        out = {k: v[0] for k, v in out.items()}
    return out


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
      the gradient of L, only an approximation of it (notebook 04 measures how
      far off it is).
    return_dh0: also return dL/dh0 (shaped like h0), e.g. to check it.

    Returns (loss, grads, h_last) or, with return_dh0, (loss, grads, h_last, dh0):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_xh etc.)
      h_last: h_T, the state after the last step, shaped like h0 ((H,) or (B, H))
    """
    params = check_params(params)
    X, Y, h0b, single = _prepare_inputs(params, inputs, targets, h0)
    if bptt_truncate is not None:
        if isinstance(bptt_truncate, bool) or not isinstance(bptt_truncate, (int, np.integer)) or bptt_truncate < 0:
            raise ValueError(f"bptt_truncate must be None or an integer >= 0, got {bptt_truncate!r}")
    loss, grads, h_last, dh0 = _loss_and_grads_tb(params, X, Y, h0b, bptt_truncate)
    if single:
        h_last, dh0 = h_last[0], dh0[0]
    if return_dh0:
        return loss, grads, h_last, dh0
    return loss, grads, h_last


def sequence_loss(params, inputs, targets, h0=None):
    """Forward only: (total cross-entropy in nats, h_last). No gradients, no caches.

    Same arguments and shapes as ``loss_and_grads``; cheaper, for evaluation.
    """
    params = check_params(params)
    X, Y, h0b, single = _prepare_inputs(params, inputs, targets, h0)
    loss, h_last = _loss_only_tb(params, X, Y, h0b)
    return loss, (h_last[0] if single else h_last)


# -- the fast internals (time-major: X, Y are (T, B); states are (T+1, B, H)) --------
#
# Speed: the loop over time is the only Python loop; inside it each step is one
# (B, H) @ (H, H) product and two elementwise passes. Everything that does not
# depend on the recurrence (input lookups, logits, softmax, the weight gradients)
# runs once for all T * B characters as a few large matrix products. A batch is
# also cut into two halves that run in two threads (numpy releases the GIL inside
# its loops and BLAS calls), each half with a single-threaded BLAS: the two
# recurrences then use both cores, which BLAS threading cannot do with products
# as small as one time step's. The cut depends only on B, never on the machine,
# so results are the same everywhere; the halves' gradients are added in a fixed
# order.


_workspace = threading.local()


def _scratch(name, shape, dtype):
    """A buffer reused from call to call (one set per thread), for intermediates only.

    Fresh large arrays on every call cost page faults that take longer than the
    arithmetic done in them; nothing returned to the caller lives in these.
    """
    bufs = _workspace.__dict__.setdefault("bufs", {})
    n = int(np.prod(shape))
    buf = bufs.get((name, dtype))
    if buf is None or buf.size < n:
        buf = bufs[(name, dtype)] = np.empty(n, dtype)
    return buf[:n].reshape(shape)


def _hidden_states(params, X, h0, scratch=False):
    """h_0..h_T for X of shape (T, B): returns (T+1, B, H).

    scratch=True puts the states in a reused buffer (valid until the next call).
    """
    T, B = X.shape
    H = params["W_hh"].shape[0]
    dtype = params["W_hh"].dtype
    hs = _scratch("hs", (T + 1, B, H), dtype) if scratch else np.empty((T + 1, B, H), dtype)
    hs[0] = h0
    # W_xh x_t + b_h for every step at once: a row lookup in the (V, H) table
    a = np.take(params["W_xh"].T + params["b_h"], X, axis=0, out=_scratch("a", (T, B, H), dtype))
    W_hh_T = np.ascontiguousarray(params["W_hh"].T)  # BLAS is faster on a contiguous copy
    tmp = np.empty((B, H), dtype=hs.dtype)
    for t in range(T):  # the recurrence: the only loop over time
        np.matmul(hs[t], W_hh_T, out=tmp)  # W_hh h_{t-1} as rows: (B, H) @ (H, H) -> (B, H)
        tmp += a[t]
        np.tanh(tmp, out=hs[t + 1])
    return hs


def _softmax_last(o):
    e = np.exp(o - o.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _logits_loss(params, h_flat, y_flat, out=None):
    """exp of the shifted logits for rows h_flat (N, H), their row sums, and the loss.

    Returns (e, s, loss) with e = exp(o - max(o)) (N, V), s = e.sum(axis=1) (N,),
    and loss = sum over rows of logsumexp(o) - o[y], in nats (summed in float64).
    """
    z = np.matmul(h_flat, params["W_yh"].T, out=out)  # (N, H) @ (H, V) -> (N, V)
    z += params["b_o"]
    z -= z.max(axis=1, keepdims=True)  # largest exponent 0: no overflow
    z_y = z[np.arange(len(y_flat)), y_flat]
    np.exp(z, out=z)
    s = z.sum(axis=1)
    loss = float(np.sum(np.log(s), dtype=np.float64) - np.sum(z_y, dtype=np.float64))
    return z, s, loss


def _shard_loss_only(params, X, Y, h0):
    hs = _hidden_states(params, X, h0, scratch=True)
    T, B, H = hs.shape[0] - 1, hs.shape[1], hs.shape[2]
    z = _scratch("z", (T * B, params["W_yh"].shape[0]), hs.dtype)
    _, _, loss = _logits_loss(params, hs[1:].reshape(T * B, H), Y.reshape(-1), out=z)
    return loss, hs[T].copy()


def _shard_loss_and_grads(params, X, Y, h0, bptt_truncate=None):
    """Forward pass and BPTT for one (T, B) block. Returns (loss, grads, h_T, dh0)."""
    W_hh, W_yh = params["W_hh"], params["W_yh"]
    V, H = W_yh.shape
    T, B = X.shape
    dtype = W_hh.dtype
    hs = _hidden_states(params, X, h0, scratch=True)  # (T+1, B, H)
    h_flat = hs[1:].reshape(T * B, H)
    y_flat = Y.reshape(-1)

    # output layer for all steps at once
    do, s, loss = _logits_loss(params, h_flat, y_flat, out=_scratch("z", (T * B, V), dtype))
    do /= s[:, None]  # yhat_t
    do[np.arange(T * B), y_flat] -= 1.0  # dL/do_t = yhat_t - onehot(y_t)
    dW_yh = do.T @ h_flat  # sum_t do_t h_t^T: (V, N) @ (N, H) -> (V, H)
    db_o = do.sum(axis=0)
    dh = np.matmul(do, W_yh, out=_scratch("dh", (T * B, H), dtype)).reshape(T, B, H)  # W_yh^T do_t: reaches h_t from o_t
    dtanh = np.square(hs[1:], out=_scratch("dtanh", (T, B, H), dtype))
    np.subtract(1.0, dtanh, out=dtanh)  # tanh'(a_t) = 1 - h_t^2

    if bptt_truncate is None:
        # da_t = (W_yh^T do_t + W_hh^T da_{t+1}) * (1 - h_t^2), from t = T down to 1
        da = dh  # overwritten in place, step by step
        carry = np.zeros((B, H), dtype=hs.dtype)
        for t in range(T - 1, -1, -1):
            da_t = da[t]
            da_t += carry  # the gradient arriving from h_{t+1}
            da_t *= dtanh[t]  # back through tanh
            np.matmul(da_t, W_hh, out=carry)  # W_hh^T da_t as rows: (B, H) @ (H, H) -> (B, H)
        dh0 = carry
    else:
        dh *= dtanh
        da = _truncated_deltas(dh, dtanh, W_hh, bptt_truncate)
        dh0 = da[0] @ W_hh

    da_flat = da.reshape(T * B, H)
    dW_hh = da_flat.T @ hs[:-1].reshape(T * B, H)  # sum_t da_t h_{t-1}^T: (H, N) @ (N, H)
    # sum_t da_t x_t^T with one-hot x_t: a product with the one-hot rows (N, V)
    x_onehot = np.take(np.eye(V, dtype=dtype), X.reshape(-1), axis=0, out=_scratch("x", (T * B, V), dtype))
    dW_xh = da_flat.T @ x_onehot  # (H, N) @ (N, V) -> (H, V)
    db_h = dW_xh.sum(axis=1)  # every da_t lands in exactly one column of dW_xh
    grads = {"W_xh": dW_xh, "W_hh": dW_hh, "W_yh": dW_yh, "b_h": db_h, "b_o": db_o}
    return loss, grads, hs[T].copy(), dh0


def _truncated_deltas(d0, dtanh, W_hh, k):
    """Sum over losses L_t of the gradient at each step s, for s in [t-k, t].

    d0[t]: dL_t/da_t for every t, (T, B, H). Going one step further back for
    every loss at once: d_j[s] = (d_{j-1}[s+1] W_hh) * (1 - h_s^2), j = 1..k.
    Returns A (T, B, H) with A[s] = sum over t in [s, s+k] of dL_t/da_s.
    """
    T = d0.shape[0]
    acc = d0.copy()
    d = d0
    for j in range(1, min(k, T - 1) + 1):
        d = (d[1:] @ W_hh) * dtanh[: T - j]  # (T-j, B, H)
        acc[: T - j] += d
    return acc


_MIN_SHARD_ROWS = 8  # below this many sequences per half, one thread is faster


def _in_two_halves(fn, X, Y, h0, *args):
    """Run fn on the two halves of the batch, in parallel; returns both results in order."""
    B = X.shape[1]
    if B < 2 * _MIN_SHARD_ROWS:
        return [fn(X, Y, h0, *args)]
    m = B // 2
    parts = [(X[:, :m], Y[:, :m], h0[:m]), (X[:, m:], Y[:, m:], h0[m:])]
    return _parallel.map(lambda part: fn(*part, *args), parts)


def _loss_only_tb(params, X, Y, h0):
    results = _in_two_halves(lambda x, y, h: _shard_loss_only(params, x, y, h), X, Y, h0)
    return sum(r[0] for r in results), np.concatenate([r[1] for r in results])


def _loss_and_grads_tb(params, X, Y, h0, bptt_truncate=None):
    results = _in_two_halves(lambda x, y, h, k: _shard_loss_and_grads(params, x, y, h, k), X, Y, h0, bptt_truncate)
    if len(results) == 1:
        return results[0]
    (l1, g1, h1, d1), (l2, g2, h2, d2) = results
    grads = {k: g1[k] + g2[k] for k in g1}
    return l1 + l2, grads, np.concatenate([h1, h2]), np.concatenate([d1, d2])


class _TwoThreads:
    """Two worker threads with BLAS limited to one thread while they run.

    Created on first use. On a machine with one core the halves run one
    after the other in the calling thread, with the same results.
    """

    def __init__(self):
        self._pool = None
        self._blas = None
        self._lock = threading.Lock()

    def map(self, fn, items):
        if (os.cpu_count() or 1) < 2 or threading.current_thread() is not threading.main_thread():
            return [fn(item) for item in items]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=len(items), thread_name_prefix="rnn_core")
                self._blas = _blas_controller()
            previous = self._blas.set(1) if self._blas else None
            try:
                return list(self._pool.map(fn, items))
            finally:
                if self._blas:
                    self._blas.set(previous)


class _BlasThreads:
    """Set and restore the number of BLAS threads (through threadpoolctl)."""

    def __init__(self, libs):
        self._libs = libs

    def set(self, n):
        previous = [lib.get_num_threads() for lib in self._libs]
        for lib, k in zip(self._libs, n if isinstance(n, list) else [n] * len(self._libs)):
            lib.set_num_threads(k)
        return previous


def _blas_controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # without it, BLAS may oversubscribe the cores: slower, same results
        return None
    libs = ThreadpoolController().select(user_api="blas").lib_controllers
    return _BlasThreads(libs) if libs else None


_parallel = _TwoThreads()
# a forked child has no worker threads: let it build its own pool
os.register_at_fork(after_in_child=lambda: _parallel.__init__())


# -- input checks: clear errors at the door, never an IndexError deep inside --------


def check_params(params):
    """Check a parameter dict: keys, shapes that agree, one float dtype, finite values.

    Returns the dict (unchanged). Raises TypeError or ValueError naming the problem.
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict with keys {', '.join(PARAM_NAMES)}; got {type(params).__name__}")
    missing = [k for k in PARAM_NAMES if k not in params]
    if missing:
        raise ValueError(
            f"params is missing {', '.join(missing)}; it needs {', '.join(PARAM_NAMES)} (see rnn_core.init_params)"
        )
    for k in PARAM_NAMES:
        if not isinstance(params[k], np.ndarray):
            raise TypeError(f"params[{k!r}] must be a numpy array, got {type(params[k]).__name__}")
    W_xh = params["W_xh"]
    if W_xh.ndim != 2:
        raise ValueError(f"W_xh must have shape (H, V), got {W_xh.shape}")
    H, V = W_xh.shape
    expected = param_shapes(V, H)
    for k in PARAM_NAMES:
        if params[k].shape != expected[k]:
            raise ValueError(
                f"{k} has shape {params[k].shape} but W_xh {W_xh.shape} implies H={H}, V={V}, "
                f"so {k} must be {expected[k]}"
            )
    dtypes = {params[k].dtype for k in PARAM_NAMES}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (np.float32, np.float64):
        found = ", ".join(f"{k}: {params[k].dtype}" for k in PARAM_NAMES)
        raise TypeError(f"parameters must all be float32 or all float64 ({found}); convert with .astype")
    for k in PARAM_NAMES:
        if not np.isfinite(params[k]).all():
            raise ValueError(f"{k} contains NaN or infinity: training diverged or the array is corrupt; re-initialise")
    return params


def _positive_int(n, name):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n}")
    return int(n)


def _as_index_array(a, name, V):
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "U" or a.dtype.kind == "S":
            hint = "; encode text first with a Vocabulary"
        else:
            hint = ""
        raise TypeError(f"{name} must be an integer array of character indices, got dtype {a.dtype}{hint}")
    if a.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (T,) or (B, T), got {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty (shape {a.shape}): give at least one time step")
    lo, hi = a.min(), a.max()
    if lo < 0 or hi >= V:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{name} holds index {bad}, outside the vocabulary of size V={V} (valid: 0..{V - 1})")
    return a


def _prepare_inputs(params, inputs, targets, h0):
    """Validate and convert to time-major (T, B) index arrays and a (B, H) state."""
    H, V = params["W_xh"].shape
    dtype = params["W_xh"].dtype
    X = _as_index_array(inputs, "inputs", V)
    if targets is not None:
        Y = _as_index_array(targets, "targets", V)
        if Y.shape != X.shape:
            raise ValueError(f"inputs and targets must have the same shape, got {X.shape} and {Y.shape}")
    single = X.ndim == 1
    X2 = X[None, :] if single else X
    B = X2.shape[0]
    if h0 is None:
        h0b = np.zeros((B, H), dtype=dtype)
    else:
        h0 = np.asarray(h0)
        want = (H,) if single else (B, H)
        if h0.shape != want:
            kind = "one sequence" if single else f"a batch of B={B} sequences"
            raise ValueError(f"h0 must have shape {want} for {kind} with H={H}, got {h0.shape}")
        if h0.dtype.kind != "f":
            raise TypeError(f"h0 must be a float array, got dtype {h0.dtype}")
        if not np.isfinite(h0).all():
            raise ValueError("h0 contains NaN or infinity")
        h0b = np.array(h0, dtype=dtype).reshape(B, H)
    XT = np.ascontiguousarray(X2.T)
    if targets is None:
        return XT, h0b, single
    Y2 = Y[None, :] if single else Y
    return XT, np.ascontiguousarray(Y2.T), h0b, single
