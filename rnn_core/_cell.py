"""What the three cells (rnn, lstm, gru) share: written once, used by each cell's module.

- the parameters: the dtype check, random orthogonal blocks, counting, the names, shapes and
  draw of a stack of layers (``Names``: layer 0's arrays keep their names; layer k >= 1 has the
  same names with the suffix ``_k``), and ``check_param_dict``, each cell's check_params;
- a window of inputs, its starting state and its dropout masks, checked and turned time-major
  (``check_window``), and the results turned back (``as_state``, ``forward_output``, ``results``);
- the input of a layer: character indices (one-hot, layer 0) or the layer below's h_t
  (``input_term``; ``input_weight_grad``, the one place dW_x = sum_t delta_t x_t^T is written);
- the output layer every cell ends in, logits = W_yh h + b_o, with its loss and backward pass;
- the stack, its one owner: the layers bottom to top, dropout on the connections that do not
  recur, the output layer and the walk back down (``stack_forward``, ``stack_loss_and_grads``,
  ``stack_loss``), over a per-layer engine (rnn_core.cells states the contract); the reference
  engine, a loop over a cell's own step functions (``ReferenceEngine``), and the sampler's step
  (``advance``);
- each cell's sequence-level functions over the stack (``Sequences``).

Shapes inside (time-major, as the loops read them): X, Y (T, B); a state (L, B, H) per name of
the cell's STATE_NAMES ("h", or "h" and "c"); dropout masks (L, T, B, H), mask k multiplying
layer k's h_t where it leaves the layer (into layer k+1, or into the output layer for the top).

Private: the cells' modules (rnn, lstm, gru, through cells) build on it, and so do the fast engines (_fast,
_fast_rnn), checkpoint, generate, seq2seq and course.yours; the notebooks use the cells' public functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._validation import (
    check_bool,
    check_indices,
    check_int,
    check_number,
    check_param_arrays,
    check_shapes,
    check_state,
    prepare_sequences,
)
from .functions import cross_entropy_and_grad, softmax

__all__ = [
    "INTERFACE",
    "INPUT_SCALE",
    "check_dtype",
    "random_orthogonal",
    "count",
    "layer_name",
    "count_layers",
    "stack_names",
    "stack_shapes",
    "Names",
    "layer_params",
    "draw_layer",
    "add_layers",
    "check_param_dict",
    "Window",
    "check_window",
    "mask_shape",
    "draw_masks",
    "as_state",
    "results",
    "input_term",
    "input_weight_grad",
    "output_logits",
    "output_loss",
    "output_backward",
    "Sequences",
    "Layer",
    "ReferenceEngine",
    "rows",
    "stack_forward",
    "stack_loss_and_grads",
    "stack_loss",
    "forward_output",
    "advance",
]


# What every cell's module defines (rnn_core.cells describes it), the start of each one's __all__.
INTERFACE = (
    "PARAM_NAMES",
    "LAYER_NAMES",
    "STATE_NAMES",
    "param_names",
    "param_shapes",
    "count_params",
    "init_params",
    "check_params",
    "step_forward",
    "step_backward",
    "advance",
    "forward",
    "loss_and_grads",
    "sequence_loss",
    "BLOCKS",
    "REFERENCE",
    "FAST",
)


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


def layer_name(name, layer):
    """The name of one layer's array: layer 0 keeps ``name``; layer k >= 1 is ``name_k`` (W_x_1, ...)."""
    return name if layer == 0 else f"{name}_{layer}"


def count_layers(params, layer_names):
    """L, the number of layers of ``params``: 1, and one more for each k = 1, 2, ... while params
    holds any of layer k's names (a layer with some of its arrays missing is for the check to name)."""
    L = 1
    if isinstance(params, Mapping):
        while any(layer_name(name, L) in params for name in layer_names):
            L += 1
    return L


def stack_names(names, layer_names, num_layers):
    """Every array's name in a stack of ``num_layers`` layers: ``names`` (layer 0's and the output
    layer's, in their order), then each further layer's ``layer_names`` with its suffix."""
    return tuple(names) + tuple(layer_name(n, k) for k in range(1, num_layers) for n in layer_names)


def stack_shapes(names, layer_names, blocks, vocab_size, hidden_size, num_layers):
    """{name: shape} for every array of a stack of ``num_layers`` layers, in ``stack_names``' order.

    names: layer 0's and the output layer's; layer_names: one layer's (input weights, recurrent
    weights, bias), each with ``blocks`` * H rows (one block per gate; 1 for the vanilla cell).
    Layer 0's input weights read a one-hot V-vector, a layer k >= 1's the layer below's h_t:
    (blocks * H, V) and (blocks * H, H); the output layer is W_yh (V, H), b_o (V,).
    """
    V, H, G = vocab_size, hidden_size, blocks * hidden_size
    W_x, W_h, b = layer_names
    shapes = {W_x: (G, V), W_h: (G, H), b: (G,), "W_yh": (V, H), "b_o": (V,)}
    for k in range(1, num_layers):
        shapes.update({layer_name(W_x, k): (G, H), layer_name(W_h, k): (G, H), layer_name(b, k): (G,)})
    return {name: shapes[name] for name in stack_names(names, layer_names, num_layers)}


class Names:
    """A cell's parameters, for a stack of layers: its module's ``param_names``, ``param_shapes``,
    ``count_params`` and ``check_params`` are these methods, and its ``init_params`` calls ``draw``.
    names: layer 0's and the output layer's; layer_names: one layer's (input weights, recurrent
    weights, bias); gates: the names of their blocks of H rows, in order (None: one block, the
    vanilla cell); made_by: the cell's init_params, as the messages name it."""

    def __init__(self, names, layer_names, gates, made_by):
        self.names, self.layer_names, self.gates, self.made_by = tuple(names), tuple(layer_names), gates, made_by
        self.blocks = 1 if gates is None else len(gates)

    def param_names(self, num_layers=1):
        """Every parameter's name for a stack of ``num_layers`` layers: layer 0's and the output
        layer's (PARAM_NAMES), then each further layer's, W_x_1, W_h_1, b_1, ... (or W_xh_1, ...)."""
        return stack_names(self.names, self.layer_names, num_layers)

    def param_shapes(self, vocab_size, hidden_size, num_layers=1):
        """The shape of every parameter for V = vocab_size, H = hidden_size and L = num_layers."""
        return stack_shapes(self.names, self.layer_names, self.blocks, vocab_size, hidden_size, num_layers)

    def count_params(self, vocab_size, hidden_size, num_layers=1):
        """Number of trainable numbers for V = vocab_size, H = hidden_size and L = num_layers."""
        return count(self.param_shapes(vocab_size, hidden_size, num_layers))

    def check_params(self, params):
        """Check a parameter dict: keys (every layer's), one float dtype, finite values, and shapes that agree.

        Returns the dict (unchanged). Raises TypeError or ValueError naming the problem.
        """
        return check_param_dict(params, self.names, self.layer_names, self.param_shapes, self.made_by, self.gates)

    def draw(self, seed, vocab_size, hidden_size, num_layers, recurrent_scale, dtype, gate_bias=0.0, bias_name=None):
        """A stack's random parameters, in ``dtype``, drawn in float64 with np.random.default_rng(seed).

        First every argument is checked, named as the cell's init_params names it (``bias_name``:
        the name of its gate bias, if it has one). Then layer 0 (``draw_layer``, input weights from
        N(0, INPUT_SCALE^2)) and its bias, zeros but the second gate's block, ``gate_bias`` (the
        LSTM's forget gate, the GRU's update gate); then W_yh (V, H) from N(0, 1/H) and b_o zeros;
        then the further layers (``add_layers``, each with layer 0's bias), so that layer 0 and
        W_yh are the same numbers whatever L.
        """
        V, H = check_int(vocab_size, "vocab_size"), check_int(hidden_size, "hidden_size")
        L = check_int(num_layers, "num_layers")
        dtype = check_dtype(dtype)
        check_number(recurrent_scale, "recurrent_scale", 0)
        if bias_name is not None:
            check_number(gate_bias, bias_name)
        bias = np.zeros(self.blocks * H)
        if self.blocks > 1:
            bias[H : 2 * H] = gate_bias
        rng = np.random.default_rng(seed)
        W_in, W_rec = draw_layer(rng, self.blocks, V, H, INPUT_SCALE, recurrent_scale)
        W_yh = rng.standard_normal((V, H)) / np.sqrt(H)
        params = dict(zip(self.layer_names, (W_in, W_rec, bias)), W_yh=W_yh, b_o=np.zeros(V))
        add_layers(params, rng, self.layer_names, self.blocks, H, L, recurrent_scale, bias)
        return {k: np.ascontiguousarray(params[k], dtype=dtype) for k in self.param_names(L)}


def layer_params(params, layer_names, layer):
    """Layer ``layer``'s arrays under layer 0's names, as the step functions read them."""
    if layer == 0:
        return params
    return {name: params[layer_name(name, layer)] for name in layer_names}


def draw_layer(rng, blocks, n_in, hidden_size, input_scale, recurrent_scale):
    """A layer's random weights, drawn with ``rng``: the input weights (blocks * H, n_in), from
    N(0, input_scale^2), then the recurrent weights (blocks * H, H), one random orthogonal H x H
    block per gate (``blocks`` of them) times ``recurrent_scale``."""
    H = hidden_size
    W_in = rng.standard_normal((blocks * H, n_in)) * input_scale
    W_rec = np.concatenate([random_orthogonal(rng, H) for _ in range(blocks)]) * recurrent_scale
    return W_in, W_rec


def add_layers(params, rng, layer_names, blocks, hidden_size, num_layers, recurrent_scale, bias):
    """Add layers 1 .. num_layers - 1 to ``params`` (layer 0 and the output layer drawn already, so
    that one layer draws the same numbers whatever the depth); returns params.

    Each layer: input weights from N(0, 1/H), so that each pre-activation starts with about the
    mean square of the layer below's h_t (below 1); recurrent weights as layer 0's; ``bias``,
    layer 0's initial bias.
    """
    H = hidden_size
    for k in range(1, num_layers):
        W_in, W_rec = draw_layer(rng, blocks, H, H, 1.0 / np.sqrt(H), recurrent_scale)
        params.update(zip((layer_name(n, k) for n in layer_names), (W_in, W_rec, bias.copy())))
    return params


def check_param_dict(params, names, layer_names, param_shapes, made_by, gates=None):
    """Check a cell's parameter dict: every layer's names, one float dtype, finite values, shapes that agree.

    ``names``: layer 0's and the output layer's names, the first the input weights, (k H, V) for a
    cell with k gates (``gates``, their names in order; None for one block, H rows): they give H
    and V, and ``param_shapes(V, H, num_layers)`` every other shape; the number of layers comes
    from the names present (``count_layers``). made_by names the function that builds such a dict
    (for the messages). Returns the dict unchanged; raises TypeError or ValueError naming the problem.
    """
    L = count_layers(params, layer_names)
    check_param_arrays(params, stack_names(names, layer_names, L), made_by)
    W = params[names[0]]
    k = 1 if gates is None else len(gates)
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[0] % k != 0:
        rows = "H" if k == 1 else f"{k}H"
        stacked = "" if k == 1 else f", the rows of the gates {', '.join(gates)} stacked"
        raise ValueError(f"{names[0]} must have shape ({rows}, V){stacked}, got {W.shape}")
    H, V = W.shape[0] // k, W.shape[1]
    layers = "" if L == 1 else f", {L} layers"
    check_shapes(params, param_shapes(V, H, num_layers=L), f"{names[0]} {W.shape} implies H={H}, V={V}{layers}")
    return params


# -- a window of inputs, its starting state and its dropout masks ----------------------------------


class Window(NamedTuple):
    """A checked window, time-major: what the loops over time read."""

    X: np.ndarray  # (T, B) character indices
    Y: np.ndarray | None  # (T, B) targets, or None
    states0: list  # the starting state: one (L, B, H) array per name of the cell's STATE_NAMES
    masks: np.ndarray | None  # dropout masks (L, T, B, H), or None: no dropout
    single: bool  # True when the inputs were one sequence, (T,)


def check_window(
    params, inputs, targets, state0, state_names, layer_names, dropout=0.0, seed=None, masks=None, *, need_targets=True
):
    """Check a window, its starting state and its dropout against checked ``params``; returns a ``Window``.

    inputs, targets: (T,) or (B, T) character indices (targets None only where need_targets is
    False: ``forward``, which computes no loss); state0: None (zeros)
    or the cell's state, one array per name of ``state_names`` ("h", or "h" and "c"), each (H,)
    for one sequence or (B, H) for a batch, with a layer axis in front for L > 1 layers. Dropout:
    ``dropout`` rate with ``seed``, or given ``masks`` (see ``draw_masks``); neither: none.
    """
    V, H = params["W_yh"].shape
    L = count_layers(params, layer_names)
    X, Y, single = prepare_sequences(inputs, targets, V)
    if Y is None and need_targets:
        raise TypeError("targets must be an int array (T,) or (B, T), got None")
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
    dtype, (T, B) = params["W_yh"].dtype, X.shape
    # named as the caller passed it: state0, and which part of it (h0, or the pair's h0 and c0)
    said = [f"state0 ({name}0)" if len(state_names) == 1 else f"state0's {name}0" for name in state_names]
    states0 = [check_state(s, what, H, B, single, dtype, L) for s, what in zip(parts, said)]
    rate = check_number(dropout, "dropout", 0, 1, include_low=True, include_high=False)
    shape = mask_shape(L, H, T, B, single)
    if masks is not None:  # as the loops read them: (L, T, B, H), a view
        if rate != 0:
            raise TypeError("give dropout (with seed) or masks, not both")
        masks = _check_masks(masks, shape, L).astype(dtype, copy=False).reshape(L, B, T, H).transpose(0, 2, 1, 3)
    elif rate > 0:
        masks = draw_masks(rate, (L, T, B, H), seed, dtype)
    return Window(X, Y, states0, masks, single)


def mask_shape(num_layers, hidden_size, T, B, single):
    """The shape of a window's dropout masks, as callers see them: forward's h, (T, H) for one
    sequence or (B, T, H) for a batch, with a layer axis in front for L > 1 layers."""
    shape = (T, hidden_size) if single else (B, T, hidden_size)
    return shape if num_layers == 1 else (num_layers, *shape)


def draw_masks(rate, shape, seed, dtype=np.float64):
    """Inverted dropout masks of ``shape``, time-major (L, T, B, H): each entry 0 with probability
    rate, else 1 / (1 - rate).

    Multiplying by them drops each unit with probability rate and scales up the rest, so that the
    expected value of what passes is unchanged: at test time nothing is dropped and nothing
    rescaled. seed: an int, a sequence of ints (as ``train`` passes [seed, step]), or a
    np.random.Generator (which moves on): anything np.random.default_rng takes but None; needed,
    so that the masks are drawn again the same way.
    """
    if seed is None:
        raise TypeError(
            f"dropout={rate} needs seed=, an int, a sequence of ints or a np.random.Generator, to draw its "
            "masks (in a training loop, a different one each step: [seed, step], or a Generator, does that)"
        )
    keep = np.random.default_rng(seed).random(shape, dtype=np.float32) >= rate  # float32 draws: half the work
    return keep.astype(dtype) * (1.0 / (1.0 - rate))


def _check_masks(masks, shape, num_layers):
    masks = np.asarray(masks)
    if masks.shape != shape:
        layers = "" if num_layers == 1 else f" ({num_layers} layers first)"
        raise ValueError(f"masks must have the shape of forward's h, {shape}{layers}, got {masks.shape}")
    if masks.dtype.kind not in "fiub":
        raise TypeError(
            f"masks must hold numbers, e.g. 0 and 1 / (1 - rate) as dropout_masks draws them, got {masks.dtype}"
        )
    if not np.isfinite(masks).all():
        raise ValueError("masks must hold finite numbers, e.g. 0 and 1 / (1 - rate) as dropout_masks draws them")
    return masks


def as_state(arrays, single):
    """The cell's state from its arrays, each (L, B, H): one array, or a tuple of them; each
    without the layer axis for one layer, and without the batch axis for one sequence."""
    out = []
    for a in arrays:
        a = a[0] if a.shape[0] == 1 else a
        out.append(a[..., 0, :] if single else a)
    return out[0] if len(out) == 1 else tuple(out)


def results(window, out, param_names, return_dstate0):
    """``loss_and_grads``' return value from ``out`` = (loss, grads, last, dstate0) (last and dstate0,
    one (L, B, H) array per state name): (loss, grads, state) or, with return_dstate0, (loss, grads,
    state, dstate0); grads in the order of ``param_names(L)``."""
    loss, grads, last, dstate0 = out
    grads = {k: grads[k] for k in param_names(len(last[0]))}
    state = as_state(last, window.single)
    return (loss, grads, state, as_state(dstate0, window.single)) if return_dstate0 else (loss, grads, state)


# -- the input of a layer: one-hot characters (layer 0), or the layer below's h_t ------------------


def _is_index(x):
    """Whether the input x_t is character indices (an int, or ints) rather than a vector of numbers."""
    return (x if isinstance(x, np.ndarray) else np.asarray(x)).dtype.kind in "iu"


def input_term(W_x, x_t):
    """W_x x_t as rows, (B, rows of W_x) or (rows,).

    x_t: a character index (an int, or B of them), one-hot, so that W_x x_t is column x_t of
    W_x; or, in a layer above the first, the layer below's h_t, (H,) or (B, H).
    """
    return W_x.T[x_t] if _is_index(x_t) else x_t @ W_x.T


def input_weight_grad(delta, x, n_in):
    """dW_x = sum_n delta_n x_n^T, (G, n_in): the input weights' gradient from the deltas delta (G, N),
    one column per character, and their inputs x.

    x: N character indices, (N,), one-hot: column x_n of dW_x receives delta_n; or N vectors
    (N, n_in), the layer below's h. One product with the one-hot rows: measured faster than
    np.add.at (benchmarks/README.md).
    """
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        x = np.take(np.eye(n_in, dtype=delta.dtype), x.reshape(-1), axis=0)  # one-hot rows, (N, V)
    return delta @ x.reshape(-1, n_in)  # (G, N) @ (N, n_in) -> (G, n_in)


# -- the output layer: logits = W_yh h + b_o, the same in every cell ------------------------------


def output_logits(params, h):
    """The logits o = W_yh h + b_o for states h of shape (..., H): returns (..., V)."""
    return h @ params["W_yh"].T + params["b_o"]


def output_loss(params, h_flat, y_flat, grad=True):
    """Loss and dL/do for the logits o = W_yh h + b_o of rows h_flat (N, H) with targets y_flat (N,).

    ``cross_entropy(o, y)`` and ``cross_entropy_grad(o, y)`` of functions.py, fused: one exp
    instead of two, in place. Returns (loss, do) with do (N, V) = y_hat - onehot(y), or (loss, None).
    """
    return cross_entropy_and_grad(output_logits(params, h_flat), y_flat, grad)  # o: (N, H) @ (H, V) -> (N, V)


def output_backward(params, h_flat, do, steps=None):
    """Back through the output layer for all N = T * B steps at once.

    h_flat (N, H): the hidden states; do (N, V): dL/do. Returns (dW_yh, db_o, dh) where
    dW_yh = sum_t do_t h_t^T (V, H), db_o = sum_t do_t (V,), and dh = W_yh^T do_t, what reaches
    each h_t from its logits: rows (N, H), or with ``steps`` = T, one column per sequence,
    (T, H, B), as the gated cells' fast paths hold their states.
    """
    dW_yh = do.T @ h_flat  # (V, N) @ (N, H) -> (V, H)
    db_o = do.sum(axis=0)
    if steps is None:
        return dW_yh, db_o, do @ params["W_yh"]  # (N, V) @ (V, H) -> (N, H)
    V, B = do.shape[1], do.shape[0] // steps
    return dW_yh, db_o, np.matmul(params["W_yh"].T, do.reshape(steps, B, V).transpose(0, 2, 1))  # (H, V) @ (V, B)


# -- the stack: the layers, their dropout, the output layer and the walk down, over a layer engine ---


class Layer(NamedTuple):
    """The reference engine's record of one layer's window: its arrays, its input, its states, each
    step's cache and its last state."""

    params: dict  # the layer's arrays under layer 0's names
    x: np.ndarray  # (T, B) character indices (layer 0) or (T, B, H) vectors (the layer below's h_t)
    hs: np.ndarray  # h_0 .. h_T, (T+1, B, H)
    caches: list | None  # each step's cache (None: not kept, or a cell whose steps keep none)
    last: tuple  # the state after the last step, one (B, H) array per state name

    @property
    def h(self):
        """h_1 .. h_T, (T, B, H): what the layer hands up."""
        return self.hs[1:]


class ReferenceEngine:
    """The reference engine of a cell: one layer's window as a loop over the cell's own step functions.

    step_forward(params, x_t, *state) returns the new state followed by a cache, (h_t, cache) or
    (h_t, c_t, cache), and step_backward(params, *dstate, cache, return_dx=...) returns
    (*dstate_prev, grads) or, with return_dx, (*dstate_prev, grads, dx_t), dstate like the state
    (dh_t, or dh_t and dc_t). ``cached=False`` is the vanilla cell's form, the notebooks' own:
    step_forward returns h_t alone, and step_backward reads (h_t, h_{t-1}, x_t) in place of a
    cache, which the loop keeps anyway (its states and its input).
    """

    columns = False  # the layout inside: rows, (T, B, H)

    def __init__(self, step_forward, step_backward, state_names, layer_names, cached=True):
        self.step_forward, self.step_backward, self.cached = step_forward, step_backward, cached
        self.state_names, self.layer_names = tuple(state_names), tuple(layer_names)

    def step(self, params, x_t, state):
        """One step: (the state after x_t, a tuple; the step's cache, None for the vanilla cell)."""
        out = self.step_forward(params, x_t, *state)
        if not self.cached:
            return (out,), None
        n = len(self.state_names)
        return tuple(out[:n]), out[n]

    def forward(self, params, x, state0, *, layer=0, for_backward=True):
        """One layer's loop over time from state0 (a tuple of (B, H) arrays): its ``Layer`` record.
        for_backward False: no caches kept (each step's arrays freed as the loop goes on)."""
        hs = np.empty((len(x) + 1,) + state0[0].shape, state0[0].dtype)  # h_0..h_T
        hs[0] = state0[0]
        caches, state = ([] if for_backward and self.cached else None), state0
        for t in range(len(x)):  # the recurrence: the layer's loop over time
            state, cache = self.step(params, x[t], state)
            hs[t + 1] = state[0]
            if caches is not None:
                caches.append(cache)
        return Layer(params, x, hs, caches, state)

    def backward(self, record, dh):
        """The loop over step_backward from t = T down to 1, each step's gradients added up.

        dh (T, B, H): what reaches each h_t from above. Returns (grads, dx, dstate0): grads under
        layer 0's names; dx (T, B, H), what reaches the layer below's h_t (None for layer 0,
        whose input is characters); dstate0, what reaches the starting state, a tuple.
        """
        params, x, hs, n = record.params, record.x, record.hs, len(self.state_names)
        need_dx = x.ndim == 3  # the layer below's h_t, not characters
        grads = {name: np.zeros_like(params[name]) for name in self.layer_names}
        dstate = tuple(np.zeros_like(dh[0]) for _ in range(n))  # what reaches h_t (and c_t) from step t+1
        dx = [None] * len(dh)
        for t in range(len(dh) - 1, -1, -1):
            cache = (record.caches[t],) if self.cached else (hs[t + 1], hs[t], x[t])
            out = self.step_backward(params, dh[t] + dstate[0], *dstate[1:], *cache, return_dx=need_dx)
            dstate = tuple(out[:n])
            for name, g in out[n].items():
                grads[name] += g
            if need_dx:
                dx[t] = out[n + 1]
        return grads, (np.stack(dx) if need_dx else None), dstate


def rows(states):
    """(T, H, B) states, one column per sequence, as (T * B, H) rows in the order of X.reshape(-1)."""
    T, H, B = states.shape
    return states.transpose(0, 2, 1).reshape(T * B, H)  # a copy


def _mask(engine, window, k):
    """Layer k's dropout mask in the engine's layout: (T, B, H), or (T, H, B) for columns (a view)."""
    return window.masks[k].transpose(0, 2, 1) if engine.columns else window.masks[k]


def _down_through_mask(dh, mask):
    """What reaches a layer's h_t from above, back through its dropout mask; in place. A list is
    the truncated vanilla engine's, one array per age j, (T - j, ...) each."""
    if isinstance(dh, list):
        return [d * mask[: len(d)] for d in dh]
    dh *= mask
    return dh


def stack_forward(engine, layer_names, params, window, for_backward=True):
    """Every layer's run over the window, bottom to top: returns (the layers' records, top), top
    being the top layer's h_1..h_T as the output layer reads them (after dropout), in the
    engine's layout. Layer k reads layer k-1's h_t times its dropout mask.

    engine: a per-layer engine, with ``forward(layer_params, x, state0, *, layer, for_backward)``
    -> a record (its ``h``, h_1..h_T, and ``last``, the state after the last step) and
    ``backward(record, dh)`` -> (grads, dx, dstate0); ``columns``, its layout (rnn_core.cells).
    """
    records, x = [], window.X
    for k in range(window.states0[0].shape[0]):
        state0 = tuple(s[k] for s in window.states0)
        record = engine.forward(layer_params(params, layer_names, k), x, state0, layer=k, for_backward=for_backward)
        records.append(record)
        x = record.h if window.masks is None else record.h * _mask(engine, window, k)  # dropout, going up
    return records, x


def _top_rows(engine, top):
    """The top layer's h_t as the output layer reads them, rows (T * B, H)."""
    return rows(top) if engine.columns else top.reshape(-1, top.shape[-1])


def _last(records, n):
    """The state after the last step, one (L, B, H) array per state name."""
    return [np.stack([record.last[i] for record in records]) for i in range(n)]


def stack_loss_and_grads(engine, layer_names, params, window):
    """Loss, gradients, the last state and the starting state's gradient, as the notebooks derive them.

    ``stack_forward``; the output layer for every step at once; then each layer from the top
    down, ``engine.backward``. What reaches layer k's h_t from above is the output layer's
    W_yh^T do_t for the top layer, and the layer above's dx for the others, each times the
    dropout mask it went through.

    Returns (loss, grads, last, dstate0): last and dstate0, one (L, B, H) array per state name.
    """
    records, top = stack_forward(engine, layer_names, params, window)
    h_rows = _top_rows(engine, top)
    loss, do = output_loss(params, h_rows, window.Y.reshape(-1))  # dL/do_t = y_hat_t - onehot(y_t)
    dW_yh, db_o, dh = output_backward(params, h_rows, do, steps=len(top) if engine.columns else None)
    dh = dh if engine.columns else dh.reshape(top.shape)  # W_yh^T do_t: what reaches the top layer's h_t
    grads, dstate0 = {"W_yh": dW_yh, "b_o": db_o}, []
    for k in range(len(records) - 1, -1, -1):
        if window.masks is not None:
            dh = _down_through_mask(dh, _mask(engine, window, k))  # back through the dropout mask
        layer_grads, dh, dstate = engine.backward(records[k], dh)  # dh: what reaches layer k-1's h_t
        grads.update((layer_name(name, k), g) for name, g in layer_grads.items())
        dstate0.append(dstate)
    n = len(window.states0)
    return loss, grads, _last(records, n), [np.stack([d[i] for d in dstate0[::-1]]) for i in range(n)]


def stack_loss(engine, layer_names, params, window):
    """The forward pass alone: ``sequence_loss``' (loss, the last state, in the cell's form)."""
    records, top = stack_forward(engine, layer_names, params, window, for_backward=False)
    loss, _ = output_loss(params, _top_rows(engine, top), window.Y.reshape(-1), grad=False)
    return loss, as_state(_last(records, len(window.states0)), window.single)


def forward_output(params, window, layers, top, cache_names, state_names):
    """``forward``'s dict, from ``stack_forward``'s records (the reference engine's ``Layer``s): each
    name of ``cache_names`` (the gates, and the LSTM's "c") from every step's cache, and "h", each
    (T, B, .) per layer with the layers stacked in front for L > 1; the logits of ``top`` (T, B, H), the top layer's h_t
    as the output layer reads them, and y_hat = softmax(logits); the starting state, h0 (and c0).
    Batch-first outside, (B, T, .), like the inputs; (T, .) for one sequence."""
    T, B, H = top.shape
    per_layer = {name: [np.stack([c[name] for c in layer.caches]) for layer in layers] for name in cache_names}
    per_layer["h"] = [layer.h for layer in layers]
    out = {name: arrays[0] if len(arrays) == 1 else np.stack(arrays) for name, arrays in per_layer.items()}
    out["logits"] = output_logits(params, top.reshape(T * B, H)).reshape(T, B, -1)
    out["y_hat"] = softmax(out["logits"])
    out = {k: np.ascontiguousarray(np.swapaxes(v, -3, -2)) for k, v in out.items()}  # (.., T, B, .) -> (.., B, T, .)
    if window.single:
        out = {k: v[..., 0, :, :] for k, v in out.items()}
    out.update((f"{name}0", as_state([s], window.single)) for name, s in zip(state_names, window.states0))
    return out


def advance(engine, params, x_t, state):
    """Read one character x_t (the sampler's step): (the state after it, the top layer's h_t).

    x_t: a character index in 0..V-1 (an int), or B of them, (B,); engine: the cell's
    ``ReferenceEngine`` (its step functions); state: the cell's, for one sequence (or a batch),
    h or (h, c), each with a layer axis in front for L > 1 layers.
    """
    _check_char(x_t, params["W_yh"].shape[0])
    L = count_layers(params, engine.layer_names)
    parts = _advance_state(state, engine.state_names, params["W_yh"].shape[1], L, x_t)
    if L == 1:
        new, _ = engine.step(params, x_t, parts)
    else:
        by_layer, x = [], x_t
        for k in range(L):
            layer_state, _ = engine.step(layer_params(params, engine.layer_names, k), x, tuple(p[k] for p in parts))
            by_layer.append(layer_state)
            x = layer_state[0]  # layer k's h_t is layer k+1's input
        new = tuple(np.stack([s[i] for s in by_layer]) for i in range(len(parts)))
    top = new[0] if L == 1 else new[0][-1]
    return (new if len(new) > 1 else new[0]), top


def _advance_state(state, state_names, H, L, x_t):
    """``advance``'s state as a tuple of arrays, after a check of its form and shapes (a few comparisons:
    the sampling loop calls it once a character): h, or the pair (h, c) as a tuple or a list, each
    (H,), or (B, H) for a batch (B the length of x_t where x_t is an array of B characters), with a
    layer axis in front for L > 1 layers. A state without the batch axis serves every row of x_t."""
    n = len(state_names)
    parts = tuple(state) if n > 1 and isinstance(state, (tuple, list)) else (state,)
    if len(parts) != n or not all(isinstance(p, np.ndarray) for p in parts):
        form = "an array h" if n == 1 else "a pair (h, c) of arrays"
        raise TypeError(f"state must be {form}, the cell's {' and '.join(state_names)}, got {type(state).__name__}")
    lead, B = int(L > 1), (len(x_t) if np.ndim(x_t) else None)
    for name, p in zip(state_names, parts):
        rows = p.ndim == lead + 2
        if (
            (p.ndim != lead + 1 and not rows)
            or p.shape[-1] != H
            or (lead and p.shape[0] != L)
            or (rows and B is not None and p.shape[-2] != B)
        ):
            one, batch = ("(L, H)", "(L, B, H)") if lead else ("(H,)", "(B, H)")
            B_is = f"B={B}" if B is not None else "any B"
            shapes = f"{one} or {batch} with H={H}, L={L}, {B_is}"
            raise ValueError(f"state's {name} must have shape {shapes}, got {p.shape}")
    return parts


def _check_char(x_t, V):
    """Raise unless x_t is a character index in 0..V-1 (an int) or a 1-D int array of them: a few
    comparisons for the common case, one good int, as the sampling loop feeds them."""
    if isinstance(x_t, (int, np.integer)) and not isinstance(x_t, bool) and 0 <= x_t < V:
        return
    check_indices(x_t, "x_t", V, ndim=(0, 1))


class Sequences:
    """A cell's sequence-level functions (``forward``, ``loss_and_grads``, ``sequence_loss``) over
    the stack, written once: each checks the parameters (``check_params``, the cell's) and the
    window, then runs the stack with the engine the cell's function names."""

    def __init__(self, check_params, state_names, layer_names, param_names):
        self.check_params, self.param_names = check_params, param_names
        self.state_names, self.layer_names = state_names, layer_names

    def window(self, params, inputs, targets, state0, dropout, seed, masks, need_targets=True):
        """The checked parameters and window."""
        params = self.check_params(params)
        names = self.state_names, self.layer_names
        return params, check_window(
            params, inputs, targets, state0, *names, dropout, seed, masks, need_targets=need_targets
        )

    def forward(self, engine, cache_names, params, inputs, state0, dropout, seed, masks):
        """``forward``'s dict (see ``forward_output``), from the reference engine's records."""
        params, window = self.window(params, inputs, None, state0, dropout, seed, masks, need_targets=False)
        layers, top = stack_forward(engine, self.layer_names, params, window, for_backward=bool(cache_names))
        return forward_output(params, window, layers, top, cache_names, self.state_names)

    def loss_and_grads(self, engine, params, inputs, targets, state0, return_dstate0, dropout, seed, masks):
        """``loss_and_grads``' (loss, grads, state) or (loss, grads, state, dstate0)."""
        return_dstate0 = check_bool(return_dstate0, "return_dstate0")
        params, window = self.window(params, inputs, targets, state0, dropout, seed, masks)
        out = stack_loss_and_grads(engine, self.layer_names, params, window)
        return results(window, out, self.param_names, return_dstate0)

    def sequence_loss(self, engine, params, inputs, targets, state0, dropout, seed, masks):
        """``sequence_loss``' (loss, state)."""
        params, window = self.window(params, inputs, targets, state0, dropout, seed, masks)
        return stack_loss(engine, self.layer_names, params, window)
