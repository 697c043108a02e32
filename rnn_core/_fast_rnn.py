"""The vanilla RNN's backward pass, reorganised for speed (private: called by ``rnn.loss_and_grads``).

The maths of ``rnn.step_backward``, run for all T * B characters at once wherever the
recurrence allows: the output layer, and the weight gradients, as a few large matrix
products; only the recursion backwards in time (step 3 of notebook 04, section 2) is a loop.
``rnn.loss_and_grads(..., fast=False)`` runs the plain loop over ``step_backward`` instead,
and tests/test_fast_paths.py shows the two agree. What it buys: ``benchmarks/throughput.py``.

Also the truncated variant (``bptt_truncate=k``), which has no step-by-step form here.
"""

from __future__ import annotations

import numpy as np

from ._cell import output_backward, output_loss
from .functions import one_hot

__all__ = ["backward"]


def backward(params, X, Y, hs, k=None):
    """Loss, gradients and dL/dh0 from the states hs (T+1, B, H); k: truncate BPTT at k steps back.

    X, Y: (T, B) inputs and targets, time-major. The four steps of notebook 04, section 2,
    for all T * B characters at once, except the recursion backwards in time (step 3).
    """
    W_hh, W_yh = params["W_hh"], params["W_yh"]
    V, H = W_yh.shape
    (T, B), N = X.shape, X.size
    h_flat = hs[1:].reshape(N, H)
    # step 1, the output: dL/do_t = yhat_t - onehot(y_t), for every step at once
    loss, do = output_loss(params, h_flat, Y.reshape(-1))
    # step 2, the output weights: sums over every step of do_t h_t^T and do_t;
    # step 3 begins: W_yh^T do_t reaches h_t from o_t ...
    dW_yh, db_o, dh = output_backward(params, h_flat, do)
    dh = dh.reshape(T, B, H)
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
