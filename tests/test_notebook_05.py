"""Notebook 05's gradient-flow slider (section 3), checked at several positions without a browser.

The slider calls the notebook's own ``show_gradient_flow(recurrent_scale, hidden_size)``; these tests run
the notebook's code cells up to the one that defines it (tests/notebook_code.py) and call it at positions
across the sliders' ranges (ρ from 0.1 to 3, H from 2 to 256): it prints the line the browser test reads,
shows one figure, and that figure's y-axis holds every curve and the bound. The browser test moves the
sliders themselves in JupyterLab; nbval checks the cells the prose quotes (tests/notebook_checks.py).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from notebook_code import capture_display, run_up_to  # tests/notebook_code.py; it draws with matplotlib's Agg backend

NOTEBOOK = "05-bptt-in-practice.ipynb"


@pytest.fixture(scope="module")
def notebook():
    return capture_display(run_up_to(NOTEBOOK, "show_gradient_flow"))


@pytest.mark.parametrize(
    "recurrent_scale, hidden_size",
    [(0.1, 2), (1.5, 32), (2.45, 100), (3.0, 256)],  # the ends, the start and a point between
)
def test_the_slider_prints_its_setting_and_draws_one_figure_that_holds_every_curve(
    notebook, capsys, recurrent_scale, hidden_size
):
    notebook["shown"].clear()
    flows, ax = notebook["show_gradient_flow"](recurrent_scale, hidden_size)
    printed = capsys.readouterr().out
    assert printed.startswith(f"recurrent_scale (ρ): {recurrent_scale:.2f}, hidden size: {hidden_size}")
    assert "median over seeds" in printed and "spread over seeds" in printed
    assert len(notebook["shown"]) == 1 and isinstance(notebook["shown"][0], Figure)
    assert flows.shape == (notebook["FLOW_SEEDS"], notebook["FLOW_T"] + 1)
    low, high = ax.get_ylim()
    bound = recurrent_scale ** notebook["lags"] * flows[0, 0]
    assert low <= min(flows.min(), bound.min()) and max(flows.max(), bound.max()) <= high
    plt.close("all")


def test_the_slider_starts_where_every_seed_rises(notebook, capsys):
    """The prose under the sliders: at their start, ρ = 1.5 and H = 32, every seed rises over 60 steps."""
    flows, _ = notebook["show_gradient_flow"](1.5, 32)
    capsys.readouterr()
    plt.close("all")
    assert np.all(flows[:, -1] > flows[:, 0])
