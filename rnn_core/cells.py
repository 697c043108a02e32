"""The recurrent cells rnn_core trains and samples from, by name: the registry ``CELLS``.

- "rnn": the vanilla RNN of ``rnn_core.rnn``; its state is h, (H,) or (B, H).
- "lstm": the LSTM of ``rnn_core.lstm``; its state is the pair (h, c), each (H,) or (B, H).
- "gru": the GRU of ``rnn_core.gru``; its state is h.

Any cell stacks in L layers (``init_params(V, H, num_layers=L)``; ``rnn_core.rnn`` says how):
each array of its state then has a layer axis in front, (L, H) or (L, B, H).

Every cell's module has the same interface, so code that trains or uses a network (the
trainer, sampling, bits per character, checkpoints, the command line, the gradient checker)
looks the cell up here and never asks which one it is:

- ``PARAM_NAMES`` (one layer's network), ``LAYER_NAMES`` (the arrays of one layer: layer k >= 1
  has them with the suffix ``_k``), ``param_names(L)``; ``param_shapes(V, H, L=1)``,
  ``count_params(V, H, L=1)``; ``init_params(V, H, seed=0, dtype=np.float64,
  recurrent_scale=1.0, num_layers=1)``; ``check_params(params)``;
- ``STATE_NAMES``: the arrays of its state, ("h",) or ("h", "c");
- ``forward(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None)``: a dict with
  at least "h", "logits" and "y_hat";
- ``loss_and_grads(params, inputs, targets, state0=None, return_dstate0=False, *, fast=True,
  dropout=0.0, seed=None, masks=None)`` -> (loss, grads, state), or (loss, grads, state, dstate0)
  (the vanilla cell takes ``bptt_truncate`` before ``return_dstate0``: pass that by name);
- ``sequence_loss(params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None)``
  -> (loss, state);
- ``advance(params, x_t, state)`` -> (the state after the character x_t, the top layer's h_t):
  one step, for sampling.

All three end in the same output layer (``W_yh``, ``b_o``), so h_t gives the logits whatever
the cell. Their step functions keep the form their notebook derives, and so differ from cell
to cell in what they take and return (tests/test_cells.py checks each signature):

- rnn: ``step_forward(params, x_t, h_prev) -> h_t``, the vanilla cell's explicit equation (the
  exception: no cache, since h_t and h_{t-1} are all its backward step needs), and
  ``step_backward(params, dh_t, h_t, h_prev, x_t) -> (dh_prev, grads)``;
- lstm: ``step_forward(params, x_t, h_prev, c_prev) -> (h_t, c_t, cache)`` and
  ``step_backward(params, dh_t, dc_t, cache) -> (dh_prev, dc_prev, grads)``;
- gru: ``step_forward(params, x_t, h_prev) -> (h_t, cache)`` and
  ``step_backward(params, dh_t, cache) -> (dh_prev, grads)``.

In a stack, x_t of a layer above the first is the layer below's h_t, and each step_backward
takes ``return_dx=True`` to also return dx_t, what reaches that input.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import gru, lstm, rnn
from ._cell import count_layers, draw_masks, mask_shape
from ._validation import check_number, prepare_sequences

__all__ = [
    "CELLS",
    "cell_module",
    "cell_of",
    "check_cell_params",
    "num_layers",
    "zero_state",
    "state_arrays",
    "state_from_arrays",
    "dropout_masks",
]

CELLS = {"rnn": rnn, "lstm": lstm, "gru": gru}  # name -> the cell's module


def cell_module(cell):
    """The module of the cell named ``cell`` (a key of ``CELLS``)."""
    if cell not in CELLS:
        raise ValueError(f"cell must be one of {', '.join(repr(c) for c in CELLS)}, got {cell!r}")
    return CELLS[cell]


def cell_of(params):
    """Which cell ``params`` belong to, told from their names and shapes (the LSTM and the GRU share
    their names; W_x has 4H rows in one, 3H in the other). Not a check: ``check_cell_params`` is.

    For a dict that fits no cell exactly, the cell it comes closest to (most names present, then
    most shapes right, then the first in ``CELLS``), so that its check names what is wrong.
    """
    if not isinstance(params, Mapping):
        return next(iter(CELLS))

    def fit(name):
        module = CELLS[name]
        present = [k for k in module.PARAM_NAMES if k in params]
        W_yh = params.get("W_yh")
        shapes = module.param_shapes(*W_yh.shape) if isinstance(W_yh, np.ndarray) and W_yh.ndim == 2 else {}
        right = sum(1 for k in present if k in shapes and np.shape(params[k]) == shapes[k])
        return len(present), right

    return max(CELLS, key=fit)  # max keeps the first of equals


def check_cell_params(params, cell=None):
    """Check ``params`` as the cell ``cell`` (default: the one ``cell_of`` tells); returns the cell's name."""
    cell = cell_of(params) if cell is None else cell
    cell_module(cell).check_params(params)
    return cell


def num_layers(params, cell=None):
    """L, the number of layers of ``params`` (of the cell ``cell``; default: the one ``cell_of`` tells)."""
    cell = cell_of(params) if cell is None else cell
    return count_layers(params, cell_module(cell).LAYER_NAMES)


def zero_state(params, cell, batch_shape=()):
    """The zero starting state of ``cell`` for ``params``: h, or the pair (h, c), each batch_shape + (H,),
    with a layer axis in front for a stack of layers."""
    H, dtype, L = params["W_yh"].shape[1], params["W_yh"].dtype, num_layers(params, cell)
    shape = (() if L == 1 else (L,)) + tuple(batch_shape) + (H,)
    return state_from_arrays(cell, {name: np.zeros(shape, dtype) for name in cell_module(cell).STATE_NAMES})


def state_arrays(cell, state):
    """A state of ``cell`` as a dict of its named arrays: {"h": h} or {"h": h, "c": c}."""
    names = cell_module(cell).STATE_NAMES
    return dict(zip(names, (state,) if len(names) == 1 else state))


def state_from_arrays(cell, arrays):
    """The state of ``cell`` from a dict of its named arrays (``state_arrays``' inverse)."""
    parts = tuple(arrays[name] for name in cell_module(cell).STATE_NAMES)
    return parts[0] if len(parts) == 1 else parts


def dropout_masks(params, inputs, rate, seed):
    """Dropout masks for a window of ``inputs`` ((T,) or (B, T) character indices), as ``loss_and_grads``,
    ``sequence_loss`` and ``forward`` take them (``masks=``): drawn as they draw their own with
    ``dropout=rate, seed=seed``, so the same seed gives the same masks.

    Shaped like ``forward``'s h: (T, H) or (B, T, H), with a layer axis in front for a stack; in
    the parameters' dtype. Each entry is 0 with probability rate (the unit is dropped), else
    1 / (1 - rate) (inverted dropout: what passes is scaled up so that its expected value is
    unchanged, and nothing needs rescaling when nothing is dropped). Mask k multiplies layer k's
    h_t where it leaves the layer: into layer k+1, or into the output layer for the top one.
    seed: an int, a sequence of ints (as ``train`` passes [seed, step]), or a np.random.Generator.
    """
    cell = check_cell_params(params)
    (V, H), L = params["W_yh"].shape, num_layers(params, cell)
    X, _, single = prepare_sequences(inputs, None, V)
    (T, B), rate = X.shape, check_number(rate, "rate", 0, 1, include_low=True, include_high=False)
    masks = draw_masks(rate, (L, T, B, H), seed, params["W_yh"].dtype)  # time-major, as the loops draw them
    return np.ascontiguousarray(masks.transpose(0, 2, 1, 3)).reshape(mask_shape(L, H, T, B, single))
