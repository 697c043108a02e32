"""The GRU's forward and backward loops, fused for speed (private: called by ``gru.loss_and_grads``
and ``gru.sequence_loss``).

These are ``gru.step_forward`` and ``gru.step_backward`` run over a whole window, with the
LSTM's machinery (``rnn_core._fast_lstm`` explains it): one column per sequence inside the
loops, so that a state is h_t (H, B) and W_h h_{t-1} one (3H, H) @ (H, B) product; the
sigmoid gates' rows of W_x, b and W_h halved, so that one tanh gives tanh(a/2) for r and z at
once; their derivatives' constant 1/4 folded into W_h for the loop backwards and into the
weight gradients' rows after it; arrays reused from call to call. tests/test_fast_paths.py
ties it to the reference loop over the step functions, ``gru.loss_and_grads(..., fast=False)``.

What the backward loop needs is prepared by the forward loop, so that a step backwards is a
handful of products: with u = tanh(a/2) for r and z,

    P_r = m_t (1 - u_r^2)             so that  da_r = da_n * P_r / 4
    P_z = (h_{t-1} - n_t) (1 - u_z^2)          da_z = dh_t * P_z / 4
    P_n = (1 - z_t) (1 - n_t^2)                da_n = dh_t * P_n
"""

from __future__ import annotations

import numpy as np

from ._cell import Workspace, output_logits
from .functions import cross_entropy_and_grad

__all__ = ["loss_and_grads", "loss"]


def loss_and_grads(params, X, Y, h0):
    """Loss, gradients, h_last and dL/dh0 (each (B, H)) for X, Y (T, B) from h0 (B, H)."""
    run = _forward_pass(params, X, h0, for_backward=True)
    loss, grads, dh0 = _backward_pass(params, X, Y, run)
    return loss, grads, run["h"][-1].T.copy(), dh0


def loss(params, X, Y, h0):
    """The forward pass alone: (loss, h_last), h_last (B, H)."""
    run = _forward_pass(params, X, h0, for_backward=False)
    total, _ = cross_entropy_and_grad(output_logits(params, _rows(run["h"][1:])), Y.reshape(-1), grad=False)
    return total, run["h"][-1].T.copy()


def _gate_scales(H, dtype):
    """(3H,) per row: 1/2 for the sigmoid gates r, z (a/2 goes into tanh), 1 for the candidate's W_hn."""
    s = np.full(3 * H, 0.5, dtype=dtype)
    s[2 * H :] = 1.0
    return s


_WORKSPACE = Workspace()


def _workspace(T, B, H, dtype):
    """The training loops' arrays, reused (see ``Workspace``). No array a caller receives is a view of them."""
    return _WORKSPACE.get((T, B, H, np.dtype(dtype)), lambda: _loop_arrays(T, B, H, dtype, for_backward=True))


def _loop_arrays(T, B, H, dtype, for_backward):
    """Empty arrays for the loops: see _forward_pass for what each one holds."""
    shapes = {"h": (T + 1, H, B), "gates": (T, 3 * H, B), "n": (T, H, B), "a_x": (3 * H, B), "tmp": (H, B)}
    if for_backward:
        shapes.update(dgates=(T, 3 * H, B), dn=(T, H, B))
    return {name: np.empty(shape, dtype) for name, shape in shapes.items()}


def _forward_pass(params, X, h0, for_backward):
    """The recurrence over X (T, B) from h0 (B, H).

    Returns a dict of arrays with one column per sequence: h (T+1, H, B) with h_0..h_T;
    gates (T, 3H, B): r and z after their sigmoids, then m = W_hn h_{t-1}; n (T, H, B), the
    candidates. With for_backward, also dgates (T, 3H, B) = P_r, P_z, and nothing in its last
    H rows yet (the backward loop writes dm there), and dn (T, H, B) = P_n; these arrays are
    then the reused workspace, valid until the next call.
    """
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    (T, B), H, dtype = X.shape, W_h.shape[1], W_h.dtype
    scale = _gate_scales(H, dtype)[:, None]
    run = _workspace(T, B, H, dtype) if for_backward else _loop_arrays(T, B, H, dtype, for_backward)
    h, gates, n, a_x, tmp = run["h"], run["gates"], run["n"], run["a_x"], run["tmp"]
    h[0] = h0.T
    # W_x x_t + b, the sigmoid rows halved, is column x_t of this (3H, V) table (x_t is one-hot)
    W_xb = (W_x + b[:, None]) * scale
    W_hs = W_h * scale  # (3H, H)
    for t in range(T):  # the recurrence: the only loop over time
        u = gates[t]
        np.matmul(W_hs, h[t], out=u)  # W_h h_{t-1}, r and z rows halved: (3H, H) @ (H, B) -> (3H, B)
        np.take(W_xb, X[t], axis=1, out=a_x, mode="clip")  # (indices checked already; "clip" copies nothing)
        rz, m, n_t = u[: 2 * H], u[2 * H :], n[t]
        rz += a_x[: 2 * H]
        np.tanh(rz, out=rz)  # u = tanh(a/2) for r and z
        if for_backward:
            P = run["dgates"][t]
            np.multiply(rz, rz, out=P[: 2 * H])
            np.subtract(1.0, P[: 2 * H], out=P[: 2 * H])  # 1 - u^2: the sigmoids' derivatives without 1/4
        rz *= 0.5  # sigmoid = (1 + tanh(a/2)) / 2
        rz += 0.5
        r, z = rz[:H], rz[H:]
        np.multiply(r, m, out=n_t)  # n_t = tanh(W_xn x_t + r_t * m_t + b_n)
        n_t += a_x[2 * H :]
        np.tanh(n_t, out=n_t)
        np.subtract(h[t], n_t, out=tmp)  # h_t = n_t + z_t (h_{t-1} - n_t)
        np.multiply(z, tmp, out=h[t + 1])
        h[t + 1] += n_t
        if for_backward:
            P[:H] *= m  # P_r = m (1 - u_r^2)
            P[H : 2 * H] *= tmp  # P_z = (h_{t-1} - n) (1 - u_z^2)
            Pn = run["dn"][t]
            np.multiply(n_t, n_t, out=Pn)  # P_n = (1 - z) (1 - n^2) = (1 - n^2) - z (1 - n^2)
            np.subtract(1.0, Pn, out=Pn)
            np.multiply(z, Pn, out=tmp)
            Pn -= tmp
    return run


def _rows(states):
    """(T, H, B) states, one column per sequence, as (T * B, H) rows in the order of X.reshape(-1)."""
    T, H, B = states.shape
    return states.transpose(0, 2, 1).reshape(T * B, H)  # a copy


def _backward_pass(params, X, Y, run):
    """Loss, gradients and dL/dh0 (B, H) from the forward pass's record ``run``."""
    W_h, W_yh = params["W_h"], params["W_yh"]
    V, H = W_yh.shape
    (T, B), N = X.shape, X.size
    h, gates, G, DN, tmp = run["h"], run["gates"], run["dgates"], run["dn"], run["tmp"]
    k = _gate_scales(H, W_h.dtype) ** 2  # the derivatives' constants: 1/4 for r and z, 1 for n
    h_rows = _rows(h[1:])  # (N, H): h_1..h_T
    # the output layer, for every step at once: dL/dlogits_t = yhat_t - onehot(y_t)
    loss, dlogits = cross_entropy_and_grad(output_logits(params, h_rows), Y.reshape(-1))
    dW_yh = dlogits.T @ h_rows  # (V, N) @ (N, H) -> (V, H)
    db_o = dlogits.sum(axis=0)
    # W_yh^T dlogits_t reaches h_t from the logits: (H, V) @ (V, B) for each t -> (T, H, B)
    dh = np.matmul(W_yh.T, dlogits.reshape(T, B, V).transpose(0, 2, 1))
    W_h_k = W_h * k[:, None]  # (3H, H): the derivatives' constants folded into W_h
    dh_next = np.zeros((H, B), W_h.dtype)  # dL/dh_t from step t+1
    for t in range(T - 1, -1, -1):
        dh_t = dh[t]
        dh_t += dh_next  # everything reaching h_t
        da_n = DN[t]
        da_n *= dh_t  # da_n = dh_t (1 - z) (1 - n^2), over P_n
        g = G[t]  # (3H, B): [da_r, da_z] (without 1/4) over P_r, P_z, then dm
        g[:H] *= da_n  # da_r = da_n m r (1 - r)
        g[H : 2 * H] *= dh_t  # da_z = dh_t (h_{t-1} - n) z (1 - z)
        np.multiply(da_n, gates[t, :H], out=g[2 * H :])  # dm = da_n r
        np.matmul(W_h_k.T, g, out=dh_next)  # W_h^T [da_r; da_z; dm]: (H, 3H) @ (3H, B) -> (H, B)
        np.multiply(dh_t, gates[t, H : 2 * H], out=tmp)  # the direct path: dh_t z_t
        dh_next += tmp
    # the gates' weights: sums over every step of [da_r; da_z; dm] h_{t-1}^T, and of
    # [da_r; da_z; da_n] x_t^T for W_x and b; columns in the order of X.reshape(-1)
    g_flat = G.transpose(1, 0, 2).reshape(3 * H, N)  # (3H, N), a copy
    dW_h = g_flat @ _rows(h[:-1])  # (3H, N) @ (N, H) -> (3H, H)
    g_flat[2 * H :] = DN.transpose(1, 0, 2).reshape(H, N)  # da_n in place of dm
    x_rows = np.take(np.eye(V, dtype=W_h.dtype), X.reshape(-1), axis=0, mode="clip")
    dW_x = g_flat @ x_rows  # (3H, N) @ (N, V) -> (3H, V)
    db = dW_x.sum(axis=1)  # every da_t lands in exactly one column of dW_x
    dW_h *= k[:, None]
    dW_x *= k[:, None]
    db *= k
    grads = {"W_x": dW_x, "W_h": dW_h, "b": db, "W_yh": dW_yh, "b_o": db_o}
    return loss, grads, dh_next.T.copy()
