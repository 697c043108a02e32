"""What the gated cells' fast paths share (private: ``_fast_lstm`` and ``_fast_gru`` run their loops on it).

Each gated cell's module of loops (``_fast_lstm``, ``_fast_gru``) holds its recurrence, forwards
and backwards over one layer's window; this module holds the rest, written once:

- the layout: inside the loops a state is a matrix with one column per sequence, h_t (H, B), and
  a layer's states h_0..h_T are (T+1, H, B); ``_cell.rows`` turns them back into rows, (T * B, H),
  in the order of X.reshape(-1), for the products over every step at once;
- the gates' scales: a sigmoid gate's rows of W_x, W_h and b are halved, so that one tanh over
  the pre-activations gives tanh(a/2) for the sigmoids (sigmoid(a) = (1 + tanh(a/2)) / 2) and
  tanh(a) for the tanh rows; the derivatives' constants are those scales squared (``gate_scales``);
- the input of each step: a column of a table for the one-hot characters of layer 0, one product
  over all steps for a layer above (``input_terms``);
- the arrays reused from call to call (``Workspace``);
- the per-layer engine (``GatedEngine``) that ``_cell``'s stack runs: a layer's loop forwards, and
  its loop backwards followed by the weights' gradients and what reaches the layer below
  (``_weight_grads``). The stack itself (the layers, dropout, the output layer, the walk down) is
  ``_cell``'s, as for every engine.

tests/test_fast_paths.py ties the result to the reference, the loops over each cell's step
functions (``_cell.ReferenceEngine``). What each choice buys: benchmarks/README.md.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from ._cell import input_weight_grad, rows

__all__ = ["Workspace", "gate_scales", "input_terms", "Record", "GatedEngine"]


class Workspace(threading.local):
    """Arrays a fast path reuses from one call to the next: one set per thread, for the last key only.

    Training calls loss_and_grads with the same shapes thousands of times. Fresh arrays each
    time (megabytes at H=256, B=T=32) can come back from the allocator as untouched pages, and
    first touches are slow. ``get(key, layer, make)`` returns the arrays ``make()`` built for the
    same ``key`` (the shapes and dtype) and ``layer`` the last time, or builds them anew. Threads never share them;
    a caller must rewrite them in full and never hand out views of them.
    """

    def get(self, key, layer, make):
        if getattr(self, "key", None) != key:
            self.key, self.arrays = key, {}
        if layer not in self.arrays:
            self.arrays[layer] = make()
        return self.arrays[layer]


def gate_scales(block_scales, H, dtype):
    """(len(block_scales) * H,): each gate's scale on its H rows, 1/2 for a sigmoid gate, 1 for tanh."""
    return np.repeat(np.asarray(block_scales, dtype=dtype), H)


def input_terms(W_x, b, scale, x, run):
    """W_x x_t + b, each row times its gate's ``scale`` (gH, 1), for every step: a function of t
    returning a (gH, B) array, valid until the next call.

    x: layer 0's character indices (T, B), one-hot, so that the term is column x_t of the table
    (W_x + b) * scale, taken into run["a_x"]; or a layer above's input (T, H, B), the layer
    below's states: then one product for every step at once, into run["a_in"] (T, gH, B).
    """
    if x.ndim == 2:
        table, a_x = (W_x + b[:, None]) * scale, run["a_x"]

        def at(t):
            # (mode="clip": the indices are checked already, and the default mode copies through a buffer)
            np.take(table, x[t], axis=1, out=a_x, mode="clip")
            return a_x

        return at
    a_in = np.matmul(W_x * scale, x, out=run["a_in"])  # (gH, H) @ (H, B) for each t -> (T, gH, B)
    a_in += b[:, None] * scale
    return a_in.__getitem__


class Record(NamedTuple):
    """A gated layer's record of a window: its arrays, its input, its loops' arrays (``run``)."""

    state_names: tuple  # the cell's: ("h",) or ("h", "c")
    params: dict  # the layer's arrays under layer 0's names
    x: np.ndarray  # (T, B) character indices, or (T, H, B) the layer below's states
    run: dict  # the loops' arrays: see the cell's forward_loop

    @property
    def h(self):
        """h_1 .. h_T, (T, H, B): what the layer hands up."""
        return self.run["h"][1:]

    @property
    def last(self):
        """The state after the last step, one (B, H) array per state name (views)."""
        return tuple(self.run[name][-1].T for name in self.state_names)


class GatedEngine:
    """The per-layer engine of a gated cell's fused loops (``_fast_lstm`` or ``_fast_gru``), for
    ``_cell``'s stack: one column per sequence inside (``columns``)."""

    columns = True

    def __init__(self, cell, state_names):
        self.cell, self.state_names = cell, tuple(state_names)

    def forward(self, params, x, state0, *, layer=0, for_backward=True):
        """One layer's recurrence from state0 (a tuple of (B, H) arrays): its ``Record``. With
        for_backward, into the arrays reused from call to call (``Workspace``), one set per layer."""
        cell, (B, H) = self.cell, state0[0].shape
        T, dtype, dense = len(x), params["W_h"].dtype, x.ndim == 3
        scale = gate_scales(cell.BLOCK_SCALES, H, dtype)[:, None]

        def make():
            return cell.loop_arrays(T, B, H, dtype, for_backward=for_backward, dense=dense)

        run = cell.WORKSPACE.get((T, B, H, np.dtype(dtype)), layer, make) if for_backward else make()
        for name, s in zip(self.state_names, state0):
            run[name][0] = s.T
        input_at = input_terms(params["W_x"], params["b"], scale, x, run)
        cell.forward_loop(run, params["W_h"] * scale, input_at, for_backward)
        return Record(self.state_names, params, x, run)

    def backward(self, record, dh):
        """The loop backwards in time, then the weights' gradients: (grads, dx, dstate0).

        dh (T, H, B): what reaches each h_t from above, overwritten. dx (T, H, B): what reaches
        the layer below's h_t (None for layer 0); dstate0, a tuple of (B, H) arrays.
        """
        params, run = record.params, record.run
        const = gate_scales(self.cell.BLOCK_SCALES, dh.shape[1], dh.dtype) ** 2  # the derivatives' constants
        delta, delta_n, dstate = self.cell.backward_loop(run, params["W_h"] * const[:, None], dh)
        grads, dx = _weight_grads(delta, delta_n, run["h"], record.x, params["W_x"], const)
        return grads, dx, tuple(d.T.copy() for d in dstate)


def _weight_grads(delta, delta_n, h, x, W_x, const):
    """A layer's weight gradients after its loop backwards, and what reaches the layer below.

    delta (T, gH, B): each step's deltas without the derivatives' constants ``const`` (gH,), as the
    loop leaves them, in the rows W_h h_{t-1} reads; delta_n: None, or the last H rows' deltas
    where W_x x_t reads other ones (the GRU's candidate: delta_n, where W_hn h_{t-1} reads the
    gradient of h_bar); h (T+1, H, B) the layer's states; x its input, (T, B) indices or (T, H, B)
    states. Sums over every step: dW_h = delta_t h_{t-1}^T, dW_x = delta_t x_t^T, db = delta_t.
    Returns ({W_x, W_h, b}, dx), dx (T, H, B) = W_x^T delta_t for a layer above the first (what
    reaches the layer below's h_t), else None.
    """
    T, G, B = delta.shape
    delta_flat = delta.transpose(1, 0, 2).reshape(G, T * B)  # (gH, N), a copy: columns in the order of X.reshape(-1)
    dW_h = delta_flat @ rows(h[:-1])  # (gH, N) @ (N, H) -> (gH, H)
    if delta_n is not None:
        H = delta_n.shape[1]
        delta_flat[G - H :] = delta_n.transpose(1, 0, 2).reshape(H, T * B)
    if x.ndim == 2:  # one-hot characters: every delta_t lands in exactly one column of dW_x
        dW_x = input_weight_grad(delta_flat, x, W_x.shape[1])  # (gH, N) @ (N, V) -> (gH, V)
        db = dW_x.sum(axis=1)
        dx = None
    else:
        dW_x = input_weight_grad(delta_flat, rows(x), W_x.shape[1])  # the layer below's h_t: (gH, N) @ (N, H)
        db = delta_flat.sum(axis=1)
        dx = (W_x * const[:, None]).T @ delta_flat  # W_x^T delta_t with the constants: (H, gH) @ (gH, N) -> (H, N)
        dx = np.ascontiguousarray(dx.reshape(-1, T, B).transpose(1, 0, 2))  # (T, H, B)
    dW_h *= const[:, None]
    dW_x *= const[:, None]
    db *= const
    return {"W_x": dW_x, "W_h": dW_h, "b": db}, dx
