"""What the three cells (rnn, lstm, gru) share: written once, used by each cell's module.

- the parameters: the dtype check, random orthogonal blocks, counting, and ``check_params``;
- a window of inputs and its starting state, checked and turned time-major (``check_window``);
- the output layer every cell ends in, logits = W_yh h + b_o, with its loss and backward pass;
- for the fast paths (``_fast_lstm``, ``_fast_gru``): arrays reused from one call to the next.

Private: the cells' modules import it; everyone else uses the cells' public functions.
"""

from __future__ import annotations

import threading

import numpy as np

from ._validation import check_param_arrays, check_shapes, check_state, prepare_sequences
from .functions import cross_entropy_and_grad

__all__ = [
    "INPUT_SCALE",
    "check_dtype",
    "random_orthogonal",
    "count",
    "check_cell_params",
    "check_window",
    "as_state",
    "output_logits",
    "output_loss",
    "output_backward",
    "Workspace",
]


# -- parameters -----------------------------------------------------------------------------------

# Every cell draws its input weights from N(0, INPUT_SCALE^2): a one-hot input then moves each
# pre-activation by about 0.3, inside the squashing functions' linear part.
INPUT_SCALE = 0.3


def check_dtype(dtype):
    """``dtype`` as a numpy dtype, float32 or float64 (the two the cells compute in)."""
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be np.float32 or np.float64, got {dtype}")
    return dtype


def random_orthogonal(rng, n):
    """A uniformly random n x n orthogonal matrix, drawn with ``rng``.

    QR of a Gaussian matrix gives a uniformly random orthogonal Q once the signs of R's
    diagonal are folded into Q's columns (Mezzadri 2007).
    """
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def count(shapes):
    """The number of trainable numbers in parameters of these shapes ({name: shape})."""
    return sum(int(np.prod(s)) for s in shapes.values())


def check_cell_params(params, names, param_shapes, made_by, gates=None):
    """Check a cell's parameter dict: keys ``names``, one float dtype, finite values, shapes that agree.

    The first name is the input weights, (k H, V) for a cell with k gates (``gates``, their
    names in order; None for one block, H rows): they give H and V, and ``param_shapes(V, H)``
    every other shape. made_by names the function that builds such a dict (for the messages).
    Returns the dict unchanged; raises TypeError or ValueError naming the problem.
    """
    check_param_arrays(params, names, made_by)
    W = params[names[0]]
    k = 1 if gates is None else len(gates)
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[0] % k != 0:
        rows = "H" if k == 1 else f"{k}H"
        stacked = "" if k == 1 else f", the rows of the gates {', '.join(gates)} stacked"
        raise ValueError(f"{names[0]} must have shape ({rows}, V){stacked}, got {W.shape}")
    H, V = W.shape[0] // k, W.shape[1]
    check_shapes(params, param_shapes(V, H), f"{names[0]} {W.shape} implies H={H}, V={V}")
    return params


# -- a window of inputs and its starting state ---------------------------------------------------


def check_window(params, inputs, targets, state0, state_names):
    """Check a window and its starting state against checked ``params``; turn them time-major.

    inputs, targets: (T,) or (B, T) character indices (targets may be None); state0: None
    (zeros) or the cell's state, one array per name of ``state_names`` ("h", or "h" and "c"),
    each (H,) for one sequence or (B, H) for a batch.
    Returns (X, Y, states, single): X, Y (T, B); states, a list of (B, H) arrays in the
    parameters' dtype (new arrays); single, True when inputs was (T,).
    """
    V, H = params["W_yh"].shape
    X, Y, single = prepare_sequences(inputs, targets, V)
    if len(state_names) == 1:
        parts = (state0,)
    elif state0 is None:
        parts = (None,) * len(state_names)
    elif isinstance(state0, (tuple, list)) and len(state0) == len(state_names):
        parts = tuple(state0)
    else:
        shape = f" of shape {state0.shape}" if isinstance(state0, np.ndarray) else ""
        pair = ", ".join(f"{name}0" for name in state_names)
        raise TypeError(f"state0 must be None or a pair ({pair}) of arrays, got {type(state0).__name__}{shape}")
    dtype, B = params["W_yh"].dtype, X.shape[1]
    states = [check_state(s, f"{name}0", H, B, single, dtype) for s, name in zip(parts, state_names)]
    return X, Y, states, single


def as_state(arrays, single):
    """The cell's state from its arrays, each (B, H): one array, or a tuple of them; (H,) each
    for one sequence."""
    arrays = [a[0] if single else a for a in arrays]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


# -- the output layer: logits = W_yh h + b_o, the same in every cell ------------------------------


def output_logits(params, h):
    """The logits o = W_yh h + b_o for states h of shape (..., H): returns (..., V)."""
    return h @ params["W_yh"].T + params["b_o"]


def output_loss(params, h_flat, y_flat, grad=True):
    """Loss and dL/do for the logits o = W_yh h + b_o of rows h_flat (N, H) with targets y_flat (N,).

    ``cross_entropy(o, y)`` and ``cross_entropy_grad(o, y)`` of functions.py, fused: one exp
    instead of two, in place. Returns (loss, do) with do (N, V) = yhat - onehot(y), or (loss, None).
    """
    return cross_entropy_and_grad(output_logits(params, h_flat), y_flat, grad)  # o: (N, H) @ (H, V) -> (N, V)


def output_backward(params, h_flat, do):
    """Back through the output layer for all N = T * B steps at once.

    h_flat (N, H): the hidden states; do (N, V): dL/do. Returns (dW_yh, db_o, dh) where
    dW_yh = sum_t do_t h_t^T (V, H), db_o = sum_t do_t (V,), and dh = W_yh^T do_t as rows (N, H),
    what reaches each h_t from its logits.
    """
    dW_yh = do.T @ h_flat  # (V, N) @ (N, H) -> (V, H)
    return dW_yh, do.sum(axis=0), do @ params["W_yh"]  # (N, V) @ (V, H) -> (N, H)


# -- the fast paths' reused arrays -----------------------------------------------------------------


class Workspace(threading.local):
    """Arrays a fast path reuses from one call to the next: one set per thread, for the last key only.

    Training calls loss_and_grads with the same shapes thousands of times. Fresh arrays each
    time (megabytes at H=256, B=T=32) can come back from the allocator as untouched pages, and
    first touches are slow. ``get(key, make)`` returns the arrays ``make()`` built for the same
    ``key`` (the shapes and dtype) the last time, or builds them anew. Threads never share them;
    a caller must rewrite them in full and never hand out views of them.
    """

    def get(self, key, make):
        if getattr(self, "key", None) != key:
            self.key, self.arrays = key, make()
        return self.arrays
