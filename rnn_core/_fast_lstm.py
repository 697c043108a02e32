"""The LSTM's loops over time, fused for speed (private: ``lstm.loss_and_grads``, ``lstm.sequence_loss`` and
``seq2seq`` run them as ``rnn_core._fast.GatedEngine``, a per-layer engine of ``rnn_core._cell``'s stack).

These are ``lstm.step_forward`` and ``lstm.step_backward`` run over one layer's window: the same
equations, written with in-place operations on preallocated arrays and with two tricks, both
exact, that save passes over the data (tests/test_fast_paths.py ties them to the reference loop
over the step functions, ``lstm.loss_and_grads(..., fast=False)``):

1. One tanh for all four gates. sigmoid(a) = (1 + tanh(a/2)) / 2, so with the sigmoid gates'
   pre-activations halved (their rows of W_x, W_h and b times 1/2: exact in floating point),
   one tanh over the whole (4H, B) block gives tanh(a/2) for i, f, q and g = tanh(a_g) at once.
2. One derivative formula for all four gates. With u = tanh(a/2) (or g), a sigmoid's
   derivative is s (1 - s) = (1 - u^2) / 4 and tanh's is 1 - g^2: both (1 - u^2) times a
   constant, 1/4 or 1. The loop backwards works without the constants (delta' = delta / scale) and
   multiplies them in after it: dh_{t-1} = W_h^T delta = (scale W_h)^T delta', and the weight
   gradients' rows once at the end.

The layout is the maths' own: inside the loops a state is a matrix with one column per
sequence, h_t (H, B), and the gates' pre-activations are a_t = W_h h_{t-1} + ..., (4H, B), each
gate a block of H whole rows: the products are (4H, H) @ (H, B), and the elementwise work never
walks strided slices. The callers see rows, as everywhere else in rnn_core: the transposes
happen once per call, outside the loops.
"""

from __future__ import annotations

import numpy as np

from ._fast import Workspace

__all__ = ["BLOCK_SCALES", "WORKSPACE", "loop_arrays", "forward_loop", "backward_loop"]

BLOCK_SCALES = (0.5, 0.5, 1.0, 0.5)  # i, f, g, q: a/2 into the tanh for the sigmoid gates, a for g
WORKSPACE = Workspace()


def loop_arrays(T, B, H, dtype, for_backward, dense):
    """Empty arrays for one layer's loops: see forward_loop for what each one holds; a_x (4H, B) is a
    step's input term for layer 0, a_in (T, 4H, B) every step's for a layer above (``dense``)."""
    shapes = {"h": (T + 1, H, B), "c": (T + 1, H, B), "gates": (T, 4 * H, B), "tanh_c": (H, B)}
    shapes.update({"a_in": (T, 4 * H, B)} if dense else {"a_x": (4 * H, B)})
    if for_backward:
        shapes.update(dgates=(T, 4 * H, B), dcell=(T, H, B))
    return {name: np.empty(shape, dtype) for name, shape in shapes.items()}


def forward_loop(run, W_hs, input_at, for_backward):
    """The recurrence of one layer from h_0, c_0 (run["h"][0], run["c"][0], (H, B)), in place in ``run``.

    W_hs: W_h with its sigmoid rows halved, (4H, H); input_at(t): W_x x_t + b, halved alike, (4H, B).
    Fills h, c (T+1, H, B) with h_1..h_T and c_1..c_T; gates (T, 4H, B), the rows of i, f, g, q
    after their squashing functions. With for_backward, also what the backward loop reads:
    dgates (T, 4H, B), the gates' local derivatives (1 - u^2) times what each gate multiplies in
    the equations (g for i, c_{t-1} for f, i for g, tanh(c_t) for q), and dcell (T, H, B) =
    q_t (1 - tanh(c_t)^2).
    """
    h, c, gates, tanh_c = run["h"], run["c"], run["gates"], run["tanh_c"]
    H = h.shape[1]
    sigmoid_rows = (slice(0, 2 * H), slice(3 * H, 4 * H))  # i, f and q; g is rows 2H:3H
    for t in range(len(gates)):  # the recurrence: this layer's loop over time
        u = gates[t]
        np.matmul(W_hs, h[t], out=u)  # W_h h_{t-1}, scaled: (4H, H) @ (H, B) -> (4H, B)
        u += input_at(t)
        np.tanh(u, out=u)  # tanh(a/2) for i, f, q; g itself for the candidate
        if for_backward:
            D = run["dgates"][t]
            np.multiply(u, u, out=D)
            np.subtract(1.0, D, out=D)  # 1 - u^2: each gate's derivative without its constant
        for rows in sigmoid_rows:  # sigmoid = (1 + tanh(a/2)) / 2
            u[rows] *= 0.5
            u[rows] += 0.5
        i, f, g, q = u[0:H], u[H : 2 * H], u[2 * H : 3 * H], u[3 * H :]
        np.multiply(f, c[t], out=c[t + 1])  # c_t = f * c_{t-1} + i * g
        c[t + 1] += i * g
        np.tanh(c[t + 1], out=tanh_c)
        np.multiply(q, tanh_c, out=h[t + 1])  # h_t = q * tanh(c_t)
        if for_backward:
            D[0:H] *= g  # dc -> delta_i: g
            D[H : 2 * H] *= c[t]  # dc -> delta_f: c_{t-1}
            D[2 * H : 3 * H] *= i  # dc -> delta_g: i
            D[3 * H :] *= tanh_c  # dh -> delta_q: tanh(c_t)
            dcell = run["dcell"][t]
            np.multiply(h[t + 1], tanh_c, out=dcell)  # q (1 - tanh^2 c) = q - h tanh(c)
            np.subtract(q, dcell, out=dcell)


def backward_loop(run, W_h_const, dh):
    """One layer's loop backwards in time, from the forward loop's record ``run``.

    W_h_const: W_h with the derivatives' constants folded in, (4H, H); dh (T, H, B): what reaches
    each h_t from above (the output layer, or the layer above), overwritten. Returns (delta, None,
    (dh0, dc0)): delta (T, 4H, B), each step's deltas without their constants (written over
    dgates), for W_h h_{t-1} and W_x x_t alike; dL/dh0 and dL/dc0, (H, B).
    """
    gates, D, dcell = run["gates"], run["dgates"], run["dcell"]
    H, B = dh.shape[1:]
    dh_next = np.zeros((H, B), dh.dtype)  # dL/dh_t from step t+1
    dc = np.zeros((H, B), dh.dtype)  # dL/dc_t from step t+1
    for t in range(len(dh) - 1, -1, -1):
        dh_t = dh[t]
        dh_t += dh_next  # everything reaching h_t
        dc += dh_t * dcell[t]  # dc_t += dh_t * q_t (1 - tanh(c_t)^2)
        delta = D[t]  # (4H, B): delta_t (without the gates' constants) overwrites the local derivatives
        delta[0 : 3 * H].reshape(3, H, B)[...] *= dc  # delta_i, delta_f, delta_g: from dc_t
        delta[3 * H :] *= dh_t  # delta_q: from dh_t
        dc *= gates[t, H : 2 * H]  # dc_{t-1} = dc_t * f_t
        np.matmul(W_h_const.T, delta, out=dh_next)  # W_h^T delta_t: (H, 4H) @ (4H, B) -> (H, B)
    return D, None, (dh_next, dc)
