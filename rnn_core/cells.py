"""The two recurrent cells rnn_core trains and samples from, by name: "rnn" and "lstm".

- "rnn": the vanilla RNN of ``rnn_core.rnn``; its state is h, (H,) or (B, H).
- "lstm": the LSTM of ``rnn_core.lstm``; its state is the pair (h, c), each (H,) or (B, H).

Both end in the same output layer (``W_yh``, ``b_o``), so code that uses a trained network
(sampling, bits per character, checkpoints, the trainer) needs only to know which cell made
the parameters: ``cell_of`` tells it from their names, and ``step`` runs one step of either.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import lstm, rnn

__all__ = ["CELLS", "cell_module", "cell_of", "check_cell_params", "zero_state", "step"]

CELLS = {"rnn": rnn, "lstm": lstm}  # name -> the module with its init_params, loss_and_grads, ...


def cell_module(cell):
    """The module of the cell named ``cell`` ("rnn" or "lstm")."""
    if cell not in CELLS:
        raise ValueError(f"cell must be one of {', '.join(repr(c) for c in CELLS)}, got {cell!r}")
    return CELLS[cell]


def cell_of(params):
    """Which cell ``params`` belong to, told from their names: "lstm" if they hold the LSTM's W_x
    (and no vanilla W_xh), else "rnn". Not a check: ``check_cell_params`` is."""
    is_lstm = isinstance(params, Mapping) and "W_x" in params and "W_xh" not in params
    return "lstm" if is_lstm else "rnn"


def check_cell_params(params, cell=None):
    """Check ``params`` as the cell ``cell`` (default: the one their names say); returns the cell's name."""
    cell = cell_of(params) if cell is None else cell
    cell_module(cell).check_params(params)
    return cell


def zero_state(params, cell, batch_shape=()):
    """The zero starting state of ``cell`` for ``params``: h, or the pair (h, c), each batch_shape + (H,)."""
    H, dtype = params["W_yh"].shape[1], params["W_yh"].dtype
    if cell == "lstm":
        return np.zeros(batch_shape + (H,), dtype), np.zeros(batch_shape + (H,), dtype)
    return np.zeros(batch_shape + (H,), dtype)


def step(params, cell, x_t, state):
    """One step of ``cell`` on the character(s) x_t from ``state``: returns (the new state, h_t)."""
    if cell == "lstm":
        h, c, _ = lstm.step_forward(params, x_t, *state)
        return (h, c), h
    h = rnn.step_forward(params, x_t, state)
    return h, h
