"""What the gated cells' fast paths share (private: ``_fast_lstm`` and ``_fast_gru`` run their loops on it).

Each gated cell's module of loops (``_fast_lstm``, ``_fast_gru``) holds its recurrence, forwards
and backwards over one layer's window; this module holds the rest, written once:

- the layout: inside the loops a state is a matrix with one column per sequence, h_t (H, B), and
  a layer's states h_0..h_T are (T+1, H, B); ``rows`` turns them back into rows, (T * B, H), in the
  order of X.reshape(-1), for the products over every step at once;
- the gates' scales: a sigmoid gate's rows of W_x, W_h and b are halved, so that one tanh over
  the pre-activations gives tanh(a/2) for the sigmoids (sigmoid(a) = (1 + tanh(a/2)) / 2) and
  tanh(a) for the tanh rows; the derivatives' constants are those scales squared (``gate_scales``);
- the input of each step: a column of a table for the one-hot characters of layer 0, one product
  over all steps for a layer above (``input_terms``);
- the arrays reused from call to call (``Workspace``);
- the stack (``loss_and_grads``, ``loss``): the layers bottom to top with dropout between them and
  before the output layer, the output layer (``_cell.output_loss``, ``_cell.output_backward``),
  then each layer's loop backwards from the top down, and after each loop the weights' gradients
  and what reaches the layer below (``_weight_grads``).

tests/test_fast_paths.py ties the result to the reference, the loops over each cell's step
functions (``_cell.stack_loss_and_grads``). What each choice buys: benchmarks/README.md.
"""

from __future__ import annotations

import threading

import numpy as np

from ._cell import input_weight_grad, layer_name, layer_params, output_backward, output_loss

__all__ = ["Workspace", "rows", "gate_scales", "input_terms", "loss_and_grads", "loss"]

GATED_LAYER_NAMES = ("W_x", "W_h", "b")  # a gated layer's arrays, layer 0's names


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


def rows(states):
    """(T, H, B) states, one column per sequence, as (T * B, H) rows in the order of X.reshape(-1)."""
    T, H, B = states.shape
    return states.transpose(0, 2, 1).reshape(T * B, H)  # a copy


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


def _workspace(cell, T, B, H, dtype, L):
    """The training loops' arrays, one dict per layer, reused (see ``Workspace``)."""

    def make():
        return [cell.loop_arrays(T, B, H, dtype, for_backward=True, dense=k > 0) for k in range(L)]

    return cell.WORKSPACE.get((T, B, H, np.dtype(dtype), L), make)


def _forward_stack(cell, params, window, for_backward):
    """Every layer's recurrence, bottom to top. Returns (runs, inputs, top): each layer's record
    (see the cell's ``forward_loop``), each layer's input (T, B) or (T, H, B), and the top layer's
    h_1..h_T (T, H, B) as the output layer reads them (after dropout)."""
    (T, B), L = window.X.shape, window.states0[0].shape[0]
    H, dtype = params["W_yh"].shape[1], params["W_yh"].dtype
    scale = gate_scales(cell.BLOCK_SCALES, H, dtype)[:, None]
    if for_backward:
        runs = _workspace(cell, T, B, H, dtype, L)
    else:
        runs = [cell.loop_arrays(T, B, H, dtype, for_backward=False, dense=k > 0) for k in range(L)]
    inputs, x = [], window.X
    for k, run in enumerate(runs):
        lp = layer_params(params, GATED_LAYER_NAMES, k)
        for name, s in zip(cell.STATE_NAMES, window.states0):
            run[name][0] = s[k].T
        cell.forward_loop(run, lp["W_h"] * scale, input_terms(lp["W_x"], lp["b"], scale, x, run), for_backward)
        inputs.append(x)
        x = run["h"][1:]
        if window.masks is not None:  # dropout, going up: (T, H, B) times the masks (T, B, H) as columns
            x = x * window.masks[k].transpose(0, 2, 1)
    return runs, inputs, x


def _last_states(cell, runs):
    """The state after the last step, one (L, B, H) array per state name (new arrays)."""
    return [np.stack([run[name][-1].T for run in runs]) for name in cell.STATE_NAMES]


def loss_and_grads(cell, params, window):
    """Loss, gradients, the last state and the starting state's gradient for a checked ``window``.

    cell: the module of the cell's loops (``_fast_lstm`` or ``_fast_gru``). Returns (loss, grads,
    last, dstate0), last and dstate0 one (L, B, H) array per state name.
    """
    runs, inputs, top = _forward_stack(cell, params, window, for_backward=True)
    T, H, B = top.shape
    h_rows = rows(top)  # (N, H): the top layer's h_1..h_T
    # the output layer, for every step at once: dL/dlogits_t = yhat_t - onehot(y_t)
    loss, dlogits = output_loss(params, h_rows, window.Y.reshape(-1))
    dW_yh, db_o, dh = output_backward(params, h_rows, dlogits, steps=T)  # dh: (T, H, B)
    const = gate_scales(cell.BLOCK_SCALES, H, params["W_yh"].dtype) ** 2  # the derivatives' constants
    grads, dstate0 = {"W_yh": dW_yh, "b_o": db_o}, []
    for k in range(len(runs) - 1, -1, -1):
        if window.masks is not None:
            dh *= window.masks[k].transpose(0, 2, 1)  # back through the dropout mask
        lp = layer_params(params, GATED_LAYER_NAMES, k)
        da, da_x_last, dstate = cell.backward_loop(runs[k], lp["W_h"] * const[:, None], dh)
        layer_grads, dh = _weight_grads(da, da_x_last, runs[k]["h"], inputs[k], lp["W_x"], const)
        grads.update((layer_name(name, k), g) for name, g in layer_grads.items())
        dstate0.append([d.T.copy() for d in dstate])
    last = _last_states(cell, runs)
    return loss, grads, last, [np.stack([d[i] for d in dstate0[::-1]]) for i in range(len(last))]


def loss(cell, params, window):
    """The forward pass alone: (loss, last), last one (L, B, H) array per state name."""
    runs, _, top = _forward_stack(cell, params, window, for_backward=False)
    total, _ = output_loss(params, rows(top), window.Y.reshape(-1), grad=False)
    return total, _last_states(cell, runs)


def _weight_grads(da, da_x_last, h, x, W_x, const):
    """A layer's weight gradients after its loop backwards, and what reaches the layer below.

    da (T, gH, B): each step's deltas without the derivatives' constants ``const`` (gH,), as the loop
    leaves them, in the rows W_h h_{t-1} reads; da_x_last: None, or the last H rows' deltas where
    W_x x_t reads other ones (the GRU's candidate: da_n, where W_hn h_{t-1} reads dm); h (T+1, H, B)
    the layer's states; x its input, (T, B) indices or (T, H, B) states. Sums over every step:
    dW_h = da_t h_{t-1}^T, dW_x = da_t x_t^T, db = da_t. Returns ({W_x, W_h, b}, dx), dx (T, H, B)
    = W_x^T da_t for a layer above the first (what reaches the layer below's h_t), else None.
    """
    T, G, B = da.shape
    da_flat = da.transpose(1, 0, 2).reshape(G, T * B)  # (gH, N), a copy: columns in the order of X.reshape(-1)
    dW_h = da_flat @ rows(h[:-1])  # (gH, N) @ (N, H) -> (gH, H)
    if da_x_last is not None:
        H = da_x_last.shape[1]
        da_flat[G - H :] = da_x_last.transpose(1, 0, 2).reshape(H, T * B)
    if x.ndim == 2:  # one-hot characters: every da_t lands in exactly one column of dW_x
        dW_x = input_weight_grad(da_flat, x, W_x.shape[1])  # (gH, N) @ (N, V) -> (gH, V)
        db = dW_x.sum(axis=1)
        dx = None
    else:
        dW_x = input_weight_grad(da_flat, rows(x), W_x.shape[1])  # the layer below's h_t: (gH, N) @ (N, H)
        db = da_flat.sum(axis=1)
        dx = (W_x * const[:, None]).T @ da_flat  # W_x^T da_t with the constants: (H, gH) @ (gH, N) -> (H, N)
        dx = np.ascontiguousarray(dx.reshape(-1, T, B).transpose(1, 0, 2))  # (T, H, B)
    dW_h *= const[:, None]
    dW_x *= const[:, None]
    db *= const
    return {"W_x": dW_x, "W_h": dW_h, "b": db}, dx
