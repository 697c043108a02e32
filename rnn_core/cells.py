"""The recurrent cells rnn_core trains and samples from, by name: the registry ``CELLS``.

- "rnn": the vanilla RNN of ``rnn_core.rnn``; its state is h, (H,) or (B, H).
- "lstm": the LSTM of ``rnn_core.lstm``; its state is the pair (h, c), each (H,) or (B, H).
- "gru": the GRU of ``rnn_core.gru``; its state is h.

Every cell's module has the same interface, so code that trains or uses a network (the
trainer, sampling, bits per character, checkpoints, the command line, the gradient checker)
looks the cell up here and never asks which one it is:

- ``PARAM_NAMES``; ``param_shapes(V, H)``, ``count_params(V, H)``;
  ``init_params(V, H, seed=0, dtype=np.float64, recurrent_scale=1.0)``; ``check_params(params)``;
- ``STATE_NAMES``: the arrays of its state, ("h",) or ("h", "c");
- ``forward(params, inputs, state0=None)``: a dict with at least "h", "logits" and "p";
- ``loss_and_grads(params, inputs, targets, state0=None, return_dstate0=False)`` ->
  (loss, grads, state), or (loss, grads, state, dstate0);
- ``sequence_loss(params, inputs, targets, state0=None)`` -> (loss, state);
- ``advance(params, x_t, state)`` -> (the state after the character x_t, h_t): one step, for sampling.

All three end in the same output layer (``W_yh``, ``b_o``), so h_t gives the logits whatever
the cell. Their step functions (``step_forward``, ``step_backward``) keep the form their
notebook derives and differ from cell to cell: see each module.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import gru, lstm, rnn

__all__ = ["CELLS", "cell_module", "cell_of", "check_cell_params", "zero_state", "state_arrays", "state_from_arrays"]

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


def zero_state(params, cell, batch_shape=()):
    """The zero starting state of ``cell`` for ``params``: h, or the pair (h, c), each batch_shape + (H,)."""
    H, dtype = params["W_yh"].shape[1], params["W_yh"].dtype
    zeros = {name: np.zeros(batch_shape + (H,), dtype) for name in cell_module(cell).STATE_NAMES}
    return state_from_arrays(cell, zeros)


def state_arrays(cell, state):
    """A state of ``cell`` as a dict of its named arrays: {"h": h} or {"h": h, "c": c}."""
    names = cell_module(cell).STATE_NAMES
    return dict(zip(names, (state,) if len(names) == 1 else state))


def state_from_arrays(cell, arrays):
    """The state of ``cell`` from a dict of its named arrays (``state_arrays``' inverse)."""
    parts = tuple(arrays[name] for name in cell_module(cell).STATE_NAMES)
    return parts[0] if len(parts) == 1 else parts
