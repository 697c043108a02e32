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

def test_plot_tanh_draws_both_curves():
    z = np.linspace(-4, 4, 41)
    h = np.tanh(z)
    plots.plot_tanh(z, h, 1 - h**2)
    lines = plt.gcf().axes[0].get_lines()
    assert len(lines) == 4  # tanh, its slope, and the two dashed levels ±1
    assert np.allclose(lines[0].get_ydata(), h) and np.allclose(lines[1].get_ydata(), 1 - h**2)


def test_hidden_state_heatmaps_show_the_arrays_with_the_series_colours():
    rng = np.random.default_rng(0)
    T, H, chars = 6, 5, "ab c"
    h = np.tanh(rng.standard_normal((T, H)))
    y_hat = rng.dirichlet(np.ones(len(chars)), size=T)
    inputs, targets = rng.integers(0, len(chars), T), rng.integers(0, len(chars), T)
    plots.hidden_state_heatmaps(h, y_hat, inputs, targets, chars)
    ax_h, ax_p = plt.gcf().axes[:2]
    assert np.array_equal(ax_h.images[0].get_array(), h.T)
    assert np.array_equal(ax_p.images[0].get_array(), y_hat.T)
    assert all(ax.images[0].get_cmap().name == plots.HEATMAP_CMAP for ax in (ax_h, ax_p))
    assert ax_h.images[0].get_clim() == (-1, 1)  # centred on zero
    assert [t.get_text() for t in ax_p.get_yticklabels()] == ["a", "b", "␣", "c"]  # the space is visible
    assert np.array_equal(ax_p.get_lines()[0].get_ydata(), targets)  # a dot on each true next character


# -- 04, 05 ----------------------------------------------------------------------------------------

def test_plot_training_loss_marks_the_first_right_update_and_the_baseline():
    losses = np.array([5.9, 4.6, 3.0, 1.0, 0.1, 0.01])
    plots.plot_training_loss(losses, first_right=3, baseline=5.5)
    ax = plt.gcf().axes[0]
    curve, baseline, marker = ax.get_lines()
    assert np.array_equal(curve.get_ydata(), losses) and ax.get_yscale() == "log"
    assert list(baseline.get_ydata()) == [5.5, 5.5] and list(marker.get_xdata()) == [3, 3]


def test_plot_training_loss_without_markers():
    plots.plot_training_loss([3.0, 2.0, 2.5])
    assert len(plt.gcf().axes[0].get_lines()) == 1


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
