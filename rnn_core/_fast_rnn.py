"""The vanilla RNN's backward pass, reorganised for speed (private: called by ``rnn.loss_and_grads``).

The maths of ``rnn.step_backward``, run for all T * B characters at once wherever the
recurrence allows: the output layer, and the weight gradients, as a few large matrix
products; only the recursion backwards in time (step 3 of notebook 04, section 2) is a loop,
one per layer. ``rnn.loss_and_grads(..., fast=False)`` runs the plain loop over ``step_backward``
instead, and tests/test_fast_paths.py shows the two agree. What it buys: ``benchmarks/throughput.py``.

Also the truncated variant (``bptt_truncate=k``), which has no step-by-step form here.
"""

from __future__ import annotations

import numpy as np

from ._cell import input_weight_grad, layer_name, layer_params, output_backward, output_loss

__all__ = ["backward"]

LAYER_NAMES = ("W_xh", "W_hh", "b_h")


def backward(params, window, layers, truncate=None):
    """Loss, gradients and dL/dh0 from the forward pass's ``layers`` (``_cell.stack_forward``'s records).

    window: the checked window (X, Y (T, B), the dropout masks); truncate: k, to truncate BPTT at
    k steps back (None: full BPTT).
    The four steps of notebook 04, section 2, for all T * B characters at once, except the
    recursion backwards in time (step 3). Returns (loss, grads, dh0), dh0 (L, B, H).
    """
    T, B = window.X.shape
    H, masks = layers[0].hs.shape[-1], window.masks
    top = layers[-1].hs[1:] if masks is None else layers[-1].hs[1:] * masks[-1]  # what the output layer reads
    h_flat = top.reshape(T * B, H)
    # step 1, the output: dL/do_t = yhat_t - onehot(y_t), for every step at once
    loss, do = output_loss(params, h_flat, window.Y.reshape(-1))
    # step 2, the output weights: sums over every step of do_t h_t^T and do_t;
    # step 3 begins: W_yh^T do_t reaches h_t from o_t ...
    dW_yh, db_o, dh = output_backward(params, h_flat, do)
    dh = dh.reshape(T, B, H)
    lps = [layer_params(params, LAYER_NAMES, k) for k in range(len(layers))]
    if truncate is None:
        das, dh0s = [None] * len(layers), [None] * len(layers)
        for k in range(len(layers) - 1, -1, -1):
            if masks is not None:
                dh = dh * masks[k]  # back through the dropout mask
            das[k], dh0s[k] = _deltas(dh, layers[k].hs, lps[k]["W_hh"])
            if k > 0:  # what reaches the layer below's h_t: W_xh^T da_t
                dh = das[k] @ lps[k]["W_xh"]  # (T, B, H) @ (H, H) -> (T, B, H)
    else:
        das = _truncated_deltas(dh, [layer.hs for layer in layers], lps, masks, truncate)
        dh0s = [da[0] @ lp["W_hh"] for da, lp in zip(das, lps)]
    grads = {"W_yh": dW_yh, "b_o": db_o}
    for k, (layer, da, lp) in enumerate(zip(layers, das, lps)):
        grads.update((layer_name(name, k), g) for name, g in _weight_grads(da, layer, lp).items())
    return loss, grads, np.stack(dh0s)


def _deltas(dh, hs, W_hh):
    """One layer's recursion backwards in time: da_t = (dh_t + W_hh^T da_{t+1}) * (1 - h_t^2), from
    t = T down to 1, as in step_backward. dh (T, B, H): what reaches each h_t from above (its
    logits, or the layer above); overwritten by da. Returns (da, dL/dh0)."""
    da, dh_next = dh, np.zeros_like(hs[0])
    for t in range(len(dh) - 1, -1, -1):
        da[t] = (dh[t] + dh_next) * (1.0 - hs[t + 1] ** 2)
        dh_next = (W_hh.T @ da[t].T).T  # W_hh^T da_t, one column per sequence: (H, H) @ (H, B)
    return da, dh_next.copy()


def _weight_grads(da, layer, lp):
    """Step 4, a layer's weights: sums over every step of da_t h_{t-1}^T, da_t x_t^T and da_t."""
    T, B, H = da.shape
    da_flat = da.reshape(T * B, H)
    dW_hh = da_flat.T @ layer.hs[:-1].reshape(T * B, H)  # (H, N) @ (N, H) -> (H, H)
    if layer.x.ndim == 2:  # one-hot characters: every da_t lands in exactly one column of dW_xh
        dW_xh = input_weight_grad(da_flat.T, layer.x, lp["W_xh"].shape[1])  # (H, N) @ (N, V) -> (H, V)
        return {"W_xh": dW_xh, "W_hh": dW_hh, "b_h": dW_xh.sum(axis=1)}
    dW_xh = input_weight_grad(da_flat.T, layer.x, H)  # the layer below's h_t as rows: (H, N) @ (N, H)
    return {"W_xh": dW_xh, "W_hh": dW_hh, "b_h": da_flat.sum(axis=0)}


def _truncated_deltas(dh, hs, lps, masks, truncate):
    """Truncated BPTT through the stack: each layer's sum over losses L_t of dL_t/da_s, for s in [t-k, t],
    k = truncate.

    A path from the loss at step t back to any layer's step s is cut when s < t - k, as if every
    layer's state before step t - k were a constant. So the deltas are kept by age j = t - s:
    d_j[s] = (what reaches h_s at age j from above + d_{j-1}[s+1] W_hh) * (1 - h_s^2), where from
    above is the output layer's dh at age 0 for the top layer, and the layer above's d_j W_xh (times
    the dropout mask) for the others. Returns each layer's A (T, B, H), A[s] = sum_j d_j[s].
    """
    L, T = len(hs), len(dh)
    dtanh = [1.0 - h[1:] ** 2 for h in hs]
    acc, d = [None] * L, [None] * L
    for j in range(min(truncate, T - 1) + 1):
        up = dh if j == 0 else None  # the top layer's h_s hears from its logits at age 0 only
        for k in range(L - 1, -1, -1):
            if masks is not None and up is not None:
                up = up * masks[k][: T - j]
            if j == 0:
                d[k] = up * dtanh[k]
                acc[k] = d[k].copy()
            else:
                back = d[k][1:] @ lps[k]["W_hh"]  # one step further back: (T-j, B, H)
                d[k] = (back if up is None else back + up) * dtanh[k][: T - j]
                acc[k][: T - j] += d[k]
            up = d[k] @ lps[k]["W_xh"] if k > 0 else None  # to the layer below's h_s, at the same age
    return acc
