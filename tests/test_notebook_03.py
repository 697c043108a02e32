"""Notebook 03's sliders (section 6), checked over a grid of settings without a browser.

The notebook's own code runs here: the cells that define ``hidden_state_view`` (what the sliders
compute) and ``show_hidden_states`` (what they print and draw). What the notebook's prose says
about the sliders must hold at every setting of the grid, not only at the few the notebook shows.
The browser test moves the sliders themselves in JupyterLab.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import nbformat

matplotlib.use("Agg")  # before pyplot: draw without a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import rnn_core  # noqa: E402
from rnn_core.plots import plot_hidden_states  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03-the-forward-pass.ipynb"
HIDDEN_SIZES = (1, 4, 16, 64, 128)  # the slider's range is 1 to 128
WEIGHT_SCALES = (0.1, 1.0, 3.0, 10.0)  # the slider's range is 0.1 to 10


def _cell_defining(name):
    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    found = [c for c in cells if c.cell_type == "code" and f"def {name}(" in c.source]
    assert len(found) == 1, f"expected one code cell of {NOTEBOOK.name} defining {name}, found {len(found)}"
    return found[0].source


@pytest.fixture(scope="module")
def notebook():
    """The namespace of the notebook's slider cell, run with the names the notebook imports before it."""
    shown = []
    names = {
        "np": np,
        "SEED": 0,
        "Vocabulary": rnn_core.Vocabulary,
        "count_params": rnn_core.count_params,
        "forward": rnn_core.forward,
        "init_params": rnn_core.init_params,
        "sequence_loss": rnn_core.sequence_loss,
        "plot_hidden_states": plot_hidden_states,
        "display": shown.append,
    }
    for name in ("hidden_state_view", "show_hidden_states"):  # what the sliders compute, and show
        exec(compile(_cell_defining(name), f"<{NOTEBOOK.name}, section 6>", "exec"), names)
    names["shown"] = shown
    return names


@pytest.mark.parametrize("hidden_size", HIDDEN_SIZES)
def test_every_setting_is_a_network_of_that_size_and_scale(notebook, hidden_size):
    view = notebook["hidden_state_view"]
    V = rnn_core.Vocabulary.from_text(notebook["SLIDER_TEXT"]).size
    previous_saturated = -1.0
    for scale in WEIGHT_SCALES:
        r = view(hidden_size, scale)
        assert r["n_params"] == hidden_size * V + hidden_size**2 + V * hidden_size + hidden_size + V
        assert r["h"].shape == (len(notebook["SLIDER_TEXT"]) - 1, hidden_size)
        assert np.isclose(r["rho"], scale)  # the weight scale is the spectral radius of W_hh
        assert np.all(np.abs(r["h"]) <= 1)  # tanh keeps every state in [-1, 1] (±1 exactly only by rounding)
        assert np.allclose(r["y_hat"].sum(axis=1), 1)  # each ŷ_t is a distribution
        assert r["saturated"] >= previous_saturated  # larger weights, more saturation
        previous_saturated = r["saturated"]


@pytest.mark.parametrize("hidden_size", HIDDEN_SIZES)
def test_small_weights_predict_uniformly_and_large_ones_are_confidently_wrong(notebook, hidden_size):
    view = notebook["hidden_state_view"]
    log_V = np.log(rnn_core.Vocabulary.from_text(notebook["SLIDER_TEXT"]).size)
    assert abs(view(hidden_size, 0.1)["loss_per_char"] - log_V) < 0.01  # scale 0.1: all but uniform
    assert view(hidden_size, 10.0)["loss_per_char"] > 2 * log_V  # scale 10: far worse than a uniform guess


def test_the_prose_numbers_of_the_hidden_size_slider(notebook):
    # "this text has V = 19 characters: from H = 39 on, W_hh holds more weights than W_xh and W_yh together"
    V = rnn_core.Vocabulary.from_text(notebook["SLIDER_TEXT"]).size
    assert V == 19
    crossover = next(H for H in range(1, 200) if H * H > 2 * H * V)
    assert crossover == 39


def test_show_hidden_states_prints_the_numbers_the_browser_test_reads_and_draws_once(notebook, capsys):
    notebook["shown"].clear()
    notebook["show_hidden_states"](8, 2.0)
    text = capsys.readouterr().out
    V = rnn_core.Vocabulary.from_text(notebook["SLIDER_TEXT"]).size
    assert f"parameters: {rnn_core.count_params(V, 8):,}" in text  # tests/browser reads "parameters: N"
    assert "spectral radius of W_hh: ρ = 2.00" in text
    assert "loss per character:" in text and "saturated hidden values" in text
    assert len(notebook["shown"]) == 1 and isinstance(notebook["shown"][0], Figure)
    plt.close("all")
