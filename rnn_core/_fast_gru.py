"""The GRU's loops over time, fused for speed (private: ``gru.loss_and_grads``, ``gru.sequence_loss`` and
``seq2seq`` run them as ``rnn_core._fast.GatedEngine``, a per-layer engine of ``rnn_core._cell``'s stack).

These are ``gru.step_forward`` and ``gru.step_backward`` run over one layer's window, with the
LSTM's machinery (``rnn_core._fast_lstm`` explains it): one column per sequence inside the
loops, so that a state is h_t (H, B) and W_h h_{t-1} one (3H, H) @ (H, B) product; the
sigmoid gates' rows of W_x, b and W_h halved, so that one tanh gives tanh(a/2) for r and z at
once; their derivatives' constant 1/4 folded into W_h for the loop backwards and into the
weight gradients' rows after it. tests/test_fast_paths.py ties it to the reference loop over
the step functions, ``gru.loss_and_grads(..., fast=False)``.

What the backward loop needs is prepared by the forward loop, so that a step backwards is a
handful of products: with u = tanh(a/2) for r and z,

    P_r = h_bar_t (1 - u_r^2)            so that  delta_r = delta_n * P_r / 4
    P_z = (h_{t-1} - n_t) (1 - u_z^2)          delta_z = dh_t * P_z / 4
    P_n = (1 - z_t) (1 - n_t^2)                delta_n = dh_t * P_n
"""

from __future__ import annotations

import numpy as np

from ._fast import Workspace

__all__ = ["BLOCK_SCALES", "WORKSPACE", "loop_arrays", "forward_loop", "backward_loop"]

BLOCK_SCALES = (0.5, 0.5, 1.0)  # r, z: a/2 into the tanh; the candidate's W_hn h_{t-1} unscaled
WORKSPACE = Workspace()


def loop_arrays(T, B, H, dtype, for_backward, dense):
    """Empty arrays for one layer's loops: see forward_loop for what each one holds; a_x (3H, B) is a
    step's input term for layer 0, a_in (T, 3H, B) every step's for a layer above (``dense``)."""
    shapes = {"h": (T + 1, H, B), "gates": (T, 3 * H, B), "n": (T, H, B), "tmp": (H, B)}
    shapes.update({"a_in": (T, 3 * H, B)} if dense else {"a_x": (3 * H, B)})
    if for_backward:
        shapes.update(dgates=(T, 3 * H, B), dn=(T, H, B))
    return {name: np.empty(shape, dtype) for name, shape in shapes.items()}


def forward_loop(run, W_hs, input_at, for_backward):
    """The recurrence of one layer from h_0 (run["h"][0], (H, B)), in place in ``run``.

    W_hs: W_h with its r and z rows halved, (3H, H); input_at(t): W_x x_t + b, halved alike, (3H, B).
    Fills h (T+1, H, B) with h_1..h_T; gates (T, 3H, B): r and z after their sigmoids, then
    h_bar = W_hn h_{t-1}; n (T, H, B), the candidates. With for_backward, also dgates (T, 3H, B)
    = P_r, P_z, and nothing in its last H rows yet (the backward loop writes dh_bar there), and
    dn (T, H, B) = P_n.
    """
    h, gates, n, tmp = run["h"], run["gates"], run["n"], run["tmp"]
    H = h.shape[1]
    for t in range(len(gates)):  # the recurrence: this layer's loop over time
        u = gates[t]
        np.matmul(W_hs, h[t], out=u)  # W_h h_{t-1}, r and z rows halved: (3H, H) @ (H, B) -> (3H, B)
        a_x = input_at(t)
        rz, h_bar, n_t = u[: 2 * H], u[2 * H :], n[t]
        rz += a_x[: 2 * H]
        np.tanh(rz, out=rz)  # u = tanh(a/2) for r and z
        if for_backward:
            P = run["dgates"][t]
            np.multiply(rz, rz, out=P[: 2 * H])
            np.subtract(1.0, P[: 2 * H], out=P[: 2 * H])  # 1 - u^2: the sigmoids' derivatives without 1/4
        rz *= 0.5  # sigmoid = (1 + tanh(a/2)) / 2
        rz += 0.5
        r, z = rz[:H], rz[H:]
        np.multiply(r, h_bar, out=n_t)  # n_t = tanh(W_xn x_t + r_t * h_bar_t + b_n)
        n_t += a_x[2 * H :]
        np.tanh(n_t, out=n_t)
        np.subtract(h[t], n_t, out=tmp)  # h_t = n_t + z_t (h_{t-1} - n_t)
        np.multiply(z, tmp, out=h[t + 1])
        h[t + 1] += n_t
        if for_backward:
            P[:H] *= h_bar  # P_r = h_bar (1 - u_r^2)
            P[H : 2 * H] *= tmp  # P_z = (h_{t-1} - n) (1 - u_z^2)
            Pn = run["dn"][t]
            np.multiply(n_t, n_t, out=Pn)  # P_n = (1 - z) (1 - n^2) = (1 - n^2) - z (1 - n^2)
            np.subtract(1.0, Pn, out=Pn)
            np.multiply(z, Pn, out=tmp)
            Pn -= tmp


def backward_loop(run, W_h_const, dh):
    """One layer's loop backwards in time, from the forward loop's record ``run``.

    W_h_const: W_h with the derivatives' constants folded in, (3H, H); dh (T, H, B): what reaches
    each h_t from above (the output layer, or the layer above), overwritten. Returns (delta_h,
    delta_n, (dh0,)): delta_h (T, 3H, B) = [delta_r; delta_z; dh_bar], each step's deltas without
    their constants (written over dgates) as W_h h_{t-1} reads them; delta_n (T, H, B), the
    candidate's rows as W_x x_t and b read them (written over dn); dL/dh0, (H, B).
    """
    gates, G, DN, tmp = run["gates"], run["dgates"], run["dn"], run["tmp"]
    H, B = dh.shape[1:]
    dh_next = np.zeros((H, B), dh.dtype)  # dL/dh_t from step t+1
    for t in range(len(dh) - 1, -1, -1):
        dh_t = dh[t]
        dh_t += dh_next  # everything reaching h_t
        delta_n = DN[t]
        delta_n *= dh_t  # delta_n = dh_t (1 - z) (1 - n^2), over P_n
        g = G[t]  # (3H, B): [delta_r, delta_z] (without 1/4) over P_r, P_z, then dh_bar
        g[:H] *= delta_n  # delta_r = delta_n h_bar r (1 - r)
        g[H : 2 * H] *= dh_t  # delta_z = dh_t (h_{t-1} - n) z (1 - z)
        np.multiply(delta_n, gates[t, :H], out=g[2 * H :])  # dh_bar = delta_n r
        np.matmul(W_h_const.T, g, out=dh_next)  # W_h^T [delta_r; delta_z; dh_bar]: (H, 3H) @ (3H, B) -> (H, B)
        np.multiply(dh_t, gates[t, H : 2 * H], out=tmp)  # the direct path: dh_t z_t
        dh_next += tmp
    return G, DN, (dh_next,)
