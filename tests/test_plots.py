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



# -- 07 --------------------------------------------------------------------------------------------

def test_plot_hidden_size_sweep_draws_the_runs_and_the_highlighted_one():
    curves = {16: (np.arange(1, 4), np.array([4.0, 3.5, 3.2])), 64: (np.arange(1, 4), np.array([3.9, 3.0, 2.6]))}
    val, n_params = {16: 3.3, 64: 2.7}, {16: 3275, 64: 15899}
    highlight = {"label": "your run", "H": 32, "val_bpc": 3.0, "n_params": 6971,
                 "curve": (np.arange(1, 4), np.array([4.0, 3.2, 2.9]))}
    plots.plot_hidden_size_sweep(curves, val, n_params, {"unigram": 4.5, "bigram": 3.5}, highlight=highlight)
    ax_curves, ax_size, ax_params = plt.gcf().axes
    assert [l.get_label() for l in ax_curves.get_lines()[:2]] == ["H = 16", "H = 64"]
    assert np.array_equal(ax_size.get_lines()[0].get_ydata(), [3.3, 2.7])  # validation bpc against H
    assert np.array_equal(ax_params.get_lines()[0].get_xdata(), [3275, 15899])
    assert list(ax_size.get_lines()[-1].get_xdata()) == [32] and ax_size.get_title() == "your run"


def test_plot_hidden_size_sweep_without_highlight():
    plots.plot_hidden_size_sweep({8: ([1, 2], [5.0, 4.0])}, {8: 4.0}, {8: 1000}, {"bigram": 3.5})
    assert len(plt.gcf().axes) == 3


def test_live_training_widget_calls_the_function_with_the_slider_values():
    calls = []
    box = plots.live_training_widget(lambda hidden_size, learning_rate, seq_length: calls.append(
        (hidden_size, learning_rate, seq_length)), hidden_size=32, learning_rate=5e-3, seq_length=16)
    size, lr, seq = box.children[0].children
    assert [s.description for s in (size, lr, seq)] == ["hidden size", "learning rate", "sequence length"]
    assert all(s.style.description_width == "initial" for s in (size, lr, seq))
    assert calls[-1] == (32, 5e-3, 16)
    size.value = 64
    assert calls[-1][0] == 64


def test_unit_html_colours_escapes_and_marks_line_breaks():
    html = plots.unit_html(np.array([-1.0, 0.0, 0.5, 1.0]), "a<\nb")
    assert html.count("<span") == 4 and "&lt;" in html and "↵" in html
    assert 'background-color:#f7f6f6">&lt;' in html  # 0 is (nearly) white in HEATMAP_CMAP


def test_unit_widget_shows_the_chosen_unit():
    shown = []
    box = plots.unit_widget(lambda unit: shown.append(unit), unit=3, n_units=8)
    slider = box.children[0]
    assert slider.description == "hidden unit" and slider.max == 7 and shown[-1] == 3
    slider.value = 5
    assert shown[-1] == 5


def test_show_unit_prints_the_caption(capsys):
    plots.show_unit(np.zeros(2), "ab", "unit 0")
    assert "unit 0" in capsys.readouterr().out


def test_plot_probe_accuracies_draws_one_group_per_question():
    acc = {"word": {"majority": 0.3, "probe": 0.9}, "quote": {"majority": 0.6, "probe": 0.6}}
    plots.plot_probe_accuracies(acc)
    ax = plt.gcf().axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["word", "quote"]
    heights = [p.get_height() for p in ax.patches]
    assert heights == [0.3, 0.6, 0.9, 0.6]


def test_plot_grad_norms_draws_the_norms_the_mean_and_the_threshold():
    step = np.arange(1, 101)
    norms = np.linspace(2.0, 1.0, 100)
    plots.plot_grad_norms(step, norms, np.full(100, 1e-3), clip_norm=5.0, smooth=10)
    ax_g, ax_lr = plt.gcf().axes
    each, mean, threshold = ax_g.get_lines()
    assert np.array_equal(each.get_ydata(), norms) and len(mean.get_ydata()) == 91
    assert list(threshold.get_ydata()) == [5.0, 5.0] and ax_g.get_ylim()[1] >= 5.0


# -- 08 --------------------------------------------------------------------------------------------
