"""The vanilla RNN's backward pass, reorganised for speed (private: ``rnn.FAST``, which
``rnn.loss_and_grads`` and ``seq2seq`` run).

The maths of ``rnn.step_backward``, run for all T * B characters of a layer at once wherever
the recurrence allows: the weight gradients and what reaches the layer below are a few large
matrix products; only the recursion backwards in time (step 3 of notebook 04, section 2) is a
loop. ``rnn.loss_and_grads(..., fast=False)`` runs the plain loop over ``step_backward``
instead, and tests/test_fast_paths.py shows the two agree. What it buys: ``benchmarks/throughput.py``.

Also the truncated variant (``bptt_truncate=k``), which has no step-by-step form here.
Both are a per-layer engine (``VanillaEngine``) for ``_cell``'s stack, which runs the layers, the
dropout, the output layer and the walk down for every engine alike.
"""

from __future__ import annotations

import numpy as np

from ._cell import input_weight_grad

__all__ = ["VanillaEngine"]


class VanillaEngine:
    """The vanilla cell's fast engine: the reference engine's loop forwards (``reference``, a
    ``_cell.ReferenceEngine`` over rnn's step functions; no caches kept), and the backward pass
    for a whole layer at once; ``truncate``: k, to truncate BPTT at k steps back (None: full BPTT).
    ``rnn.FAST`` is the one with full BPTT, and ``rnn.FAST.truncated(k)`` the one truncated at k.

    With truncation what reaches a layer from above comes by age j = t - s (the loss at step t
    reaching h_s): ``backward`` takes and returns it as a list, one array (T - j, B, H) per age.
    """

    columns = False  # rows, (T, B, H), as the reference engine

    def __init__(self, reference, truncate=None):
        self.reference, self.truncate = reference, truncate
        self._truncated = {}  # k -> this engine truncated at k, each built once

    def truncated(self, k):
        """This engine with BPTT truncated at k steps back (None: full BPTT)."""
        if k == self.truncate:
            return self
        if k not in self._truncated:
            self._truncated[k] = VanillaEngine(self.reference, k)
        return self._truncated[k]

    def forward(self, params, x, state0, *, layer=0, for_backward=True):
        """The reference engine's loop over step_forward, without caches (h_t and x_t are all it needs)."""
        return self.reference.forward(params, x, state0, layer=layer, for_backward=False)

    def backward(self, record, dh):
        """Steps 3 and 4 of notebook 04, section 2, for one layer: (grads, dx, (dh0,)).

        dh: what reaches each h_t from above, (T, B, H), overwritten (or by age, with truncation);
        dx: what reaches the layer below's h_t, W_xh^T delta_t (None for layer 0).
        """
        params, need_dx = record.params, record.x.ndim == 3
        if self.truncate is None:
            delta, dh0 = _deltas(dh, record.hs, params["W_hh"])
            dx = delta @ params["W_xh"] if need_dx else None  # (T, B, H) @ (H, H) -> (T, B, H)
        else:
            delta, dx = _truncated_deltas(dh, record.hs, params, self.truncate, need_dx)
            dh0 = delta[0] @ params["W_hh"]
        return _vanilla_weight_grads(delta, record), dx, (dh0,)


def _deltas(dh, hs, W_hh):
    """One layer's recursion backwards in time: delta_t = (dh_t + W_hh^T delta_{t+1}) * (1 - h_t^2),
    from t = T down to 1, as in step_backward. dh (T, B, H): what reaches each h_t from above (its
    logits, or the layer above); overwritten by delta. Returns (delta, dL/dh0)."""
    delta, dh_next = dh, np.zeros_like(hs[0])
    for t in range(len(dh) - 1, -1, -1):
        delta[t] = (dh[t] + dh_next) * (1.0 - hs[t + 1] ** 2)
        dh_next = (W_hh.T @ delta[t].T).T  # W_hh^T delta_t, one column per sequence: (H, H) @ (H, B)
    return delta, dh_next.copy()


def _vanilla_weight_grads(delta, layer):
    """Step 4, a layer's weights: sums over every step of delta_t h_{t-1}^T, delta_t x_t^T and delta_t."""
    T, B, H = delta.shape
    delta_flat = delta.reshape(T * B, H)
    n_in = layer.params["W_xh"].shape[1]
    dW_hh = delta_flat.T @ layer.hs[:-1].reshape(T * B, H)  # (H, N) @ (N, H) -> (H, H)
    # one-hot characters: every delta_t lands in one column of dW_xh, (H, N) @ (N, V); or the layer
    # below's h_t as rows, (H, N) @ (N, H)
    dW_xh = input_weight_grad(delta_flat.T, layer.x, n_in)
    db_h = dW_xh.sum(axis=1) if layer.x.ndim == 2 else delta_flat.sum(axis=0)
    return {"W_xh": dW_xh, "W_hh": dW_hh, "b_h": db_h}


def _truncated_deltas(dh, hs, params, truncate, need_dx):
    """Truncated BPTT through one layer: the deltas delta_s (the gradient with respect to the
    pre-activation at step s), summed over the losses L_t with s in [t-k, t], k = truncate.

    A path from the loss at step t back to step s is cut when s < t - k, as if every layer's
    state before step t - k were a constant. So the deltas are kept by age j = t - s:
    d_j[s] = (what reaches h_s at age j from above + d_{j-1}[s+1] W_hh) * (1 - h_s^2). From
    above: dh, one array (T, B, H), the output layer's at age 0 (the top layer); or a list by
    age, the layer above's d_j W_xh (through the dropout mask). Returns (acc, below): acc (T, B, H),
    acc[s] = sum_j d_j[s]; below, what reaches the layer below by age (a list), or None.
    """
    T = len(hs) - 1
    ups = [dh] if isinstance(dh, np.ndarray) else dh
    dtanh = 1.0 - hs[1:] ** 2
    below = [] if need_dx else None
    for j in range(min(truncate, T - 1) + 1):
        up = ups[j] if j < len(ups) else None  # the top layer's h_s hears from its logits at age 0 only
        if j == 0:
            d = up * dtanh
            acc = d.copy()
        else:
            back = d[1:] @ params["W_hh"]  # one step further back: (T-j, B, H)
            d = (back if up is None else back + up) * dtanh[: T - j]
            acc[: T - j] += d
        if need_dx:
            below.append(d @ params["W_xh"])  # to the layer below's h_s, at the same age
    return acc, below
