"""The LSTM's forward and backward loops, fused for speed (private: called by ``lstm.loss_and_grads``
and ``lstm.sequence_loss``).

These are ``lstm.step_forward`` and ``lstm.step_backward`` run over a whole window: the same
equations, written with in-place operations on preallocated arrays and with two tricks, both
exact, that save passes over the data (tests/test_fast_paths.py ties them to the reference loop
over the step functions, ``lstm.loss_and_grads(..., fast=False)``):

1. One tanh for all four gates. sigmoid(a) = (1 + tanh(a/2)) / 2, so with the sigmoid gates'
   pre-activations halved (their rows of W_x, W_h and b times 1/2: exact in floating point),
   one tanh over the whole (4H, B) block gives tanh(a/2) for i, f, o and g = tanh(a_g) at once.
2. One derivative formula for all four gates. With u = tanh(a/2) (or g), a sigmoid's
   derivative is s (1 - s) = (1 - u^2) / 4 and tanh's is 1 - g^2: both (1 - u^2) times a
   constant, 1/4 or 1. The loop backwards works without the constants (da' = da / scale) and
   multiplies them in after it: dh_{t-1} = W_h^T da = (scale W_h)^T da', and the weight
   gradients' rows once at the end.

The layout is the maths' own: inside the loops a state is a matrix with one column per
sequence, h_t (H, B), and the gates' pre-activations are a_t = W_h h_{t-1} + ..., (4H, B), each
gate a block of H whole rows: the products are (4H, H) @ (H, B), and the elementwise work never
walks strided slices. The callers see rows, as everywhere else in rnn_core: the transposes
happen once per call, outside the loops. The training loops' arrays are allocated once per
thread and reused (``_workspace``). What each of these choices buys: benchmarks/README.md.
"""

from __future__ import annotations

import numpy as np

from ._cell import Workspace, output_logits
from .functions import cross_entropy_and_grad

__all__ = ["loss_and_grads", "loss"]


def loss_and_grads(params, X, Y, h0, c0):
    """Loss, gradients and the states for X, Y (T, B) from h0, c0 (B, H).

    Returns (loss, grads, h_last, c_last, dh0, dc0), the states and their gradients (B, H).
    """
    run = _forward_pass(params, X, h0, c0, for_backward=True)
    loss, grads, dh0, dc0 = _backward_pass(params, X, Y, run)
    return loss, grads, run["h"][-1].T.copy(), run["c"][-1].T.copy(), dh0, dc0


def loss(params, X, Y, h0, c0):
    """The forward pass alone: (loss, h_last, c_last), the states (B, H)."""
    run = _forward_pass(params, X, h0, c0, for_backward=False)
    total, _ = cross_entropy_and_grad(output_logits(params, _rows(run["h"][1:])), Y.reshape(-1), grad=False)
    return total, run["h"][-1].T.copy(), run["c"][-1].T.copy()


def _gate_scales(H, dtype):
    """(4H,) per row: 1/2 for the sigmoid gates i, f, o (a/2 goes into tanh), 1 for g."""
    s = np.full(4 * H, 0.5, dtype=dtype)
    s[2 * H : 3 * H] = 1.0
    return s


_WORKSPACE = Workspace()


def _workspace(T, B, H, dtype):
    """The training loops' arrays for windows of T steps, B sequences and H units, reused
    (see ``Workspace``). No array a caller receives is a view of them."""
    return _WORKSPACE.get((T, B, H, np.dtype(dtype)), lambda: _loop_arrays(T, B, H, dtype, for_backward=True))


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
    loss, dlogits = cross_entropy_and_grad(output_logits(params, h_rows), Y.reshape(-1))
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
