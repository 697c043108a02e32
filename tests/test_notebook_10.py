"""Notebook 10's dropout-rate slider (section 4), checked at several positions without a browser.

The slider calls the notebook's own ``show_rate(rate)``, which reads the runs of ``by_rate``, trained
by the notebook's ``train_on_piece`` before the slider appears. These tests run the notebook's code
cells up to ``train_on_piece`` (tests/notebook_code.py), train short runs at three rates with it, and
call ``show_rate`` at each: it prints the line the browser test reads and the run's numbers, and shows
one figure, a different one for each rate. The browser test moves the slider itself in JupyterLab;
nbval checks the cells the prose quotes (tests/notebook_checks.py).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from notebook_code import capture_display, define_functions, run_up_to  # tests/notebook_code.py

NOTEBOOK = "10-deeper-networks-and-overfitting.ipynb"
RATES = (0.0, 0.3, 0.6)  # the slider's start (the notebook's DROPOUT), and one rate either side
STEPS = 40  # short runs: what is checked is the slider's function, not the training


@pytest.fixture(scope="module")
def notebook():
    namespace = run_up_to(NOTEBOOK, "train_on_piece")
    namespace["SMALL_STEPS"] = STEPS  # read by train_on_piece when it runs
    seed = namespace["SEEDS"][0]
    namespace["by_rate"] = {rate: namespace["train_on_piece"](rate, seed) for rate in RATES}
    define_functions(namespace, NOTEBOOK, "show_rate")
    # the slider's one y-axis, as the cell above show_rate sets it
    every = [b for _, c in namespace["by_rate"].values() for b in (*c["train"], *c["val"])]
    namespace["RATE_YLIM"] = (min(every) - 0.1, max(every) + 0.1)
    return capture_display(namespace)


@pytest.mark.parametrize("rate", RATES)
def test_the_slider_prints_its_rate_and_the_run_and_draws_one_figure(notebook, capsys, rate):
    notebook["shown"].clear()
    notebook["show_rate"](rate)
    printed = capsys.readouterr().out.splitlines()
    result, curve = notebook["by_rate"][rate]
    assert printed[0] == f"dropout rate κ: {rate:.2f}"
    assert printed[1] == f"lowest validation bpc {result.best_val_bpc:.3f} at step {result.best_step};"
    assert printed[2] == f"at the end: validation {result.val_bpc:.3f}, training {curve['train'][-1]:.3f}"
    assert len(notebook["shown"]) == 1 and isinstance(notebook["shown"][0], Figure)
    plt.close("all")


def test_each_rate_draws_its_own_curves(notebook):
    """Moving the slider changes what is drawn: each rate's run has its own validation curve."""
    curves = [tuple(notebook["by_rate"][rate][1]["val"]) for rate in RATES]
    assert len(set(curves)) == len(RATES)
    assert all(curve["step"][-1] == STEPS for _, curve in notebook["by_rate"].values())
