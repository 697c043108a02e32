"""The recurrent cells rnn_core trains and samples from, by name: the registry ``CELLS``.

- "rnn": the vanilla RNN of ``rnn_core.rnn``; its state is h, (H,) or (B, H).
- "lstm": the LSTM of ``rnn_core.lstm``; its state is the pair (h, c), each (H,) or (B, H).
- "gru": the GRU of ``rnn_core.gru``; its state is h.

Any cell stacks in L layers (``init_params(V, H, num_layers=L)``; ``rnn_core.rnn`` says how):
each array of its state then has a layer axis in front, (L, H) or (L, B, H).

Every cell's module has the same interface (its names: ``INTERFACE``), so code that trains or
uses a network (the trainer, sampling, bits per character, checkpoints, the command line, the
gradient checker) looks the cell up here and never asks which one it is:

- ``PARAM_NAMES`` (one layer's network), ``LAYER_NAMES`` (the arrays of one layer: layer k >= 1
  has them with the suffix ``_k``), ``param_names(num_layers=1)``;
  ``param_shapes(V, H, num_layers=1)``, ``count_params(V, H, num_layers=1)``;
  ``init_params(V, H, seed=0, dtype=np.float64, *, recurrent_scale=1.0, num_layers=1)`` (the gated
  cells also take their gate's bias by keyword: ``forget_bias``, ``update_bias``);
  ``check_params(params)``;
- ``STATE_NAMES``: the arrays of its state, ("h",) or ("h", "c"); ``BLOCKS``: the number of H-row
  blocks in a layer's weights (1 for the vanilla cell, 4 for the LSTM, 3 for the GRU);
- ``forward(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None)``: a dict with
  at least "h", "logits" and "y_hat";
- ``loss_and_grads(params, inputs, targets, state0=None, return_dstate0=False, *, fast=True,
  dropout=0.0, seed=None, masks=None)`` -> (loss, grads, state), or (loss, grads, state, dstate0)
  (the vanilla cell also takes ``bptt_truncate=k``, keyword-only);
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

The contract, decided once: the vanilla cell keeps the step form notebooks 03 and 04 derive (and
the reader writes), with no cache; the gated cells return one. No adapter sits between a cell's
steps and the loops: ``rnn_core._cell.ReferenceEngine`` calls each cell's steps as they are, told
only whether they keep a cache (the vanilla cell's step_backward reads (h_t, h_{t-1}, x_t), which
the loop holds anyway). The one wrapper left is the reader's: their steps take one sequence, and
``YourCell`` calls them row by row to make a batch's step.

Engines. One owner runs the stack for every cell and every path (``_cell.stack_forward``,
``stack_loss_and_grads``, ``stack_loss``): the layers bottom to top, the dropout masks, the output
layer and the walk back down. It runs them over a per-layer engine with two functions:

- ``forward(layer_params, x, state0, *, layer=0, for_backward=True) -> record``: one layer over
  the window; x is (T, B) character indices (layer 0) or the layer below's h_t; state0 a tuple
  of (B, H) arrays; the record holds ``h`` (h_1..h_T, what goes up) and ``last`` (the state
  after the last step, a tuple of (B, H) arrays);
- ``backward(record, dh) -> (grads, dx, dstate0)``: dh what reaches each h_t from above (the layer above,
  or the output layer); grads under layer 0's names, dx what
  reaches the layer below's h_t (None for layer 0), dstate0 a tuple like state0;

and ``columns``, its layout: False for (T, B, H), True for one column per sequence, (T, H, B).
Three engines plug in: each cell's reference loop over its steps (``_cell.ReferenceEngine``, ``REFERENCE`` in
its module); the fused LSTM and GRU loops (``_fast.GatedEngine``, their ``FAST``); the vanilla cell's
vectorised backward pass (``_fast_rnn.VanillaEngine``, rnn's ``FAST``, and ``FAST.truncated(k)`` with
truncation). The reader's own steps run as a reference engine over them (``practice.your_cell``'s
``YourCell``). The cell of a set of parameters is named by the caller
(``cell=``, "rnn" unless said otherwise) or read from a checkpoint's record, never worked out from
its arrays (``check_cell_params``). An encoder-decoder's dict (``rnn_core.seq2seq``) is the one
exception, by design: each of its functions reads the model's whole kind (cell, attention, direction)
from the dict, whose names and encoder rows (4H: LSTM, 3H: GRU) fit exactly one kind or none, which is
refused (``seq2seq.check_params``); nothing there is a closest fit.
"""

from __future__ import annotations

import numpy as np

from . import gru, lstm, rnn
from ._cell import INTERFACE, count_layers, draw_masks, mask_shape
from ._validation import check_choice, check_number, prepare_sequences

__all__ = [
    "CELLS",
    "INTERFACE",
    "cell_module",
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
    return CELLS[check_choice(cell, "cell", tuple(CELLS))]


def check_cell_params(params, cell):
    """Check ``params`` as the parameters of the cell named ``cell``; returns the cell's name.

    The cell is named by the caller (the functions that take ``cell=`` default to "rnn", the series'
    first cell) or read from a checkpoint's record (``Checkpoint.cell``); it is never worked out from
    the arrays. When ``params`` fail the named cell's check but pass another's (an LSTM's parameters
    given with the default "rnn"), the message says which cell to name.
    """
    module = cell_module(cell)
    try:
        module.check_params(params)
    except (TypeError, ValueError) as e:
        others = [name for name, m in CELLS.items() if name != cell and _passes(m, params)]
        if not others:
            raise
        raise type(e)(f"{e}; these are the {others[0]}'s parameters: name the cell, cell={others[0]!r}") from None
    return cell


def _passes(module, params):
    """Whether ``params`` pass ``module``'s check (for check_cell_params' message alone)."""
    try:
        module.check_params(params)
    except (TypeError, ValueError):
        return False
    return True


def num_layers(params, cell="rnn"):
    """L, the number of layers of ``params``, the parameters of the cell named ``cell``."""
    cell = check_cell_params(params, cell)
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


def dropout_masks(params, inputs, rate, seed, *, cell="rnn"):
    """Dropout masks for a window of ``inputs`` ((T,) or (B, T) character indices), as ``loss_and_grads``,
    ``sequence_loss`` and ``forward`` take them (``masks=``): drawn as they draw their own with
    ``dropout=rate, seed=seed``, so the same seed gives the same masks.

    Shaped like ``forward``'s h: (T, H) or (B, T, H), with a layer axis in front for a stack; in
    the parameters' dtype. Each entry is 0 with probability rate (the unit is dropped), else
    1 / (1 - rate) (inverted dropout: what passes is scaled up so that its expected value is
    unchanged, and nothing needs rescaling when nothing is dropped). Mask k multiplies layer k's
    h_t where it leaves the layer: into layer k+1, or into the output layer for the top one.
    seed: an int, a sequence of ints (as ``train`` passes [seed, step]), or a np.random.Generator.
    cell: the name of the cell whose parameters these are.
    """
    cell = check_cell_params(params, cell)
    (V, H), L = params["W_yh"].shape, num_layers(params, cell)
    X, _, single = prepare_sequences(inputs, None, V)
    (T, B), rate = X.shape, check_number(rate, "rate", 0, 1, include_low=True, include_high=False)
    masks = draw_masks(rate, (L, T, B, H), seed, params["W_yh"].dtype)  # time-major, as the loops draw them
    return np.ascontiguousarray(masks.transpose(0, 2, 1, 3)).reshape(mask_shape(L, H, T, B, single))
