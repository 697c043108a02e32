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


# -- 06, 07 ----------------------------------------------------------------------------------------



# -- 08 --------------------------------------------------------------------------------------------
