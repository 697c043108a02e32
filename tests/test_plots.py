"""The notebooks' figure and widget helpers (rnn_core.plots) draw without a display and without errors."""

import matplotlib

matplotlib.use("Agg")  # no display: draw into memory

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rnn_core import plots  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- 01, 02 ----------------------------------------------------------------------------------------



# -- 03 --------------------------------------------------------------------------------------------



# -- 04, 05 ----------------------------------------------------------------------------------------



# notebook 05
def test_truncation_error_figure_holds_every_value():
    ks = np.arange(5)
    errors = {0.5: np.array([0.2, 1e-5, 1e-12, 1e-16, 1e-16]), 2.5: np.ones(5) * 0.99}
    ax = plots.truncation_error_figure(ks, errors, "demo")
    low, high = ax.get_ylim()
    assert low < 1e-16 and high > 0.99
    assert len(ax.get_lines()) == 2


def test_gradient_flow_figure_holds_every_value():
    lags = np.arange(61)
    flows = np.stack([0.1 ** lags * (1 + 0.1 * s) for s in range(3)])  # down to 1e-60: nothing may be cut
    bound = 0.1 ** lags * 1.2
    ax = plots.gradient_flow_figure(lags, flows, bound, 0.1, 8)
    low, high = ax.get_ylim()
    assert low <= min(flows.min(), bound.min()) and high >= max(flows.max(), bound.max())
    assert len(ax.get_lines()) == 4  # three seeds and the bound
    assert "0.10" in ax.get_title()


def test_gradient_flow_figure_refuses_values_a_log_axis_cannot_show():
    with pytest.raises(ValueError, match="log axis"):
        plots.gradient_flow_figure(np.arange(3), np.array([[1.0, 0.0, 1.0]]), np.ones(3), 1.0, 4)


def test_clipping_figure_shows_all_three_arrows():
    g = np.array([6.0, 1.5])
    ax = plots.clipping_figure(g, np.clip(g, -2, 2), g * 2 / np.linalg.norm(g), 2.0)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0 < 6 < x1 and y0 < 0 < 2 < y1
    assert len(ax.texts) == 3  # the arrows are annotations


# -- 06, 07 ----------------------------------------------------------------------------------------



# -- 08 --------------------------------------------------------------------------------------------
