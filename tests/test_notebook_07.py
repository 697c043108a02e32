"""Notebook 07's slider functions, at positions the stored notebook does not show.

The unit slider (section 2) calls ``show_hidden_unit(unit)`` and the Train button (section 1)
``show_live_training(...)``; the stored notebook shows each at its starting position only. These
tests run the notebook's code cells in order, with the browser test's short runs
(tests/browser/quick_parameters.py: a few training steps instead of thousands, which changes
nothing these functions do), up to the cells that define the two functions, and call them
elsewhere: what they print names what they draw, and what they draw is what they return.
"""

from __future__ import annotations

import nbformat
import numpy as np
import pytest
from notebook_code import NOTEBOOKS, defined_names, run_code  # tests/notebook_code.py

import rnn_core
from quick_parameters import QUICK, apply_quick_parameters  # tests/browser/quick_parameters.py

NOTEBOOK = "07-what-the-network-learned.ipynb"


@pytest.fixture(scope="module")
def nb07():
    """The notebook's namespace, its code run with the quick parameters until both functions exist;
    ``display`` replaced by a list of what the cells display."""
    nb = apply_quick_parameters(nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4), QUICK[NOTEBOOK])
    namespace, missing = {"__name__": "__main__"}, {"show_hidden_unit", "show_live_training"}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        run_code(namespace, cell.source, f"<{NOTEBOOK}, cell {index}>")
        missing -= defined_names(cell.source)
        if not missing:
            break
    assert not missing, f"{NOTEBOOK} does not define {sorted(missing)}"
    namespace["shown"] = []
    namespace["display"] = namespace["shown"].append  # the functions' figures, kept to look at
    return namespace


def test_the_unit_slider_shows_the_unit_it_names(nb07, capsys):
    H = nb07["config"].hidden_size
    for unit in (0, H - 1, nb07["best_unit"]["where in the line"]):
        nb07["shown"].clear()
        values = nb07["show_hidden_unit"](unit)
        printed = capsys.readouterr().out
        assert printed.startswith(f"hidden unit {unit}: correlation where in the word ")
        (figure,) = nb07["shown"]  # one figure: the passage coloured by this unit
        assert figure.axes[0].get_title(loc="left") == f"hidden unit {unit}"
        assert np.array_equal(values, nb07["passage_h"][:, unit])


def test_the_train_button_trains_what_its_sliders_say_and_draws_it_over_the_sweep(nb07, capsys):
    nb07["shown"].clear()
    run = nb07["show_live_training"](24, learning_rate=1e-2, seq_length=16, steps=10)
    printed = capsys.readouterr().out
    V = nb07["V"]
    assert f"hidden size 24, learning rate 0.01, sequence length 16; parameters: {rnn_core.count_params(V, 24):,}" in (
        printed
    )
    assert f"validation bpc after 10 steps: {run.val_bpc:.2f}" in printed
    assert run.step == 10 and run.params["W_hh"].shape == (24, 24) and np.isfinite(run.val_bpc)
    (figure,) = nb07["shown"]
    ax_curves, ax_size, _ = figure.axes
    assert ax_curves.get_lines()[-1].get_label() == "your run: H = 24, lr 0.01, T = 16"
    assert list(ax_size.get_lines()[-1].get_xdata()) == [24]  # the run's star, at its hidden size
