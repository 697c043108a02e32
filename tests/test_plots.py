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


def _jacobian(o, temperature=1.0):
    y_hat = np.exp(o / temperature - np.max(o / temperature))
    y_hat /= y_hat.sum()
    return y_hat, (np.diag(y_hat) - np.outer(y_hat, y_hat)) / temperature


def _quiet_show(monkeypatch):
    # plt.show() on the Agg backend warns that it cannot show anything; the figures stay open to inspect
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)


def test_temperature_bars_draws_one_bar_per_score_and_temperature(monkeypatch):
    _quiet_show(monkeypatch)
    o = np.array([2.0, 1.0, 0.1, -1.0])
    rows = {tau: _jacobian(o, tau)[0] for tau in (0.5, 1.0, 2.0)}
    plots.temperature_bars(o, rows)
    ax = plt.gcf().axes[0]
    assert len(ax.patches) == 4 * 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["τ = 0.5", "τ = 1", "τ = 2"]


def test_step_size_errors_draws_measured_guides_and_lines(monkeypatch):
    _quiet_show(monkeypatch)
    steps = 10.0 ** -np.arange(1, 6)
    plots.step_size_errors(steps, steps**2, {"Taylor": steps**2 / 6, "roundoff": 1e-16 / steps}, chosen=1e-3, tol=1e-7)
    ax = plt.gcf().axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:3] == ["measured relative error", "Taylor", "roundoff"] and len(labels) == 5
    assert ax.xaxis_inverted()  # smaller steps to the right


def test_show_softmax_prints_y_hat_and_uses_the_series_colours(monkeypatch, capsys):
    _quiet_show(monkeypatch)
    y_hat, J = _jacobian(np.array([1.5, 0.5, 0.0, -0.5]), 0.5)
    plots.show_softmax(y_hat, J, temperature=0.5)
    assert capsys.readouterr().out.startswith("temperature 0.50   y_hat = " + "  ".join(f"{p:.4f}" for p in y_hat))
    bars, heat = plt.gcf().axes[:2]
    assert [p.get_height() for p in bars.patches] == pytest.approx(y_hat)
    image = heat.get_images()[0]
    assert image.get_cmap().name == plots.HEATMAP_CMAP
    assert image.get_clim() == pytest.approx((-0.5, 0.5))  # +-1/(4 tau), centred on zero
    assert len(heat.texts) == 16  # every entry written in its cell


def test_softmax_sliders_wire_the_notebook_function(monkeypatch, capsys):
    _quiet_show(monkeypatch)
    calls = []

    def compute(o, temperature):
        calls.append((list(o), temperature))
        return _jacobian(np.array(o), temperature)

    box = plots.softmax_sliders(compute, scores=(2.0, 1.0, 0.1, -1.0), temperature=1.0)
    sliders = box.children[:-1]
    assert [s.description for s in sliders] == ["o_1", "o_2", "o_3", "o_4", "temperature"]
    assert all(s.style.description_width == "initial" for s in sliders)  # labels never cut off
    sliders[4].value = 2.0
    assert calls[-1] == ([2.0, 1.0, 0.1, -1.0], 2.0)
    assert "temperature 2.00" in capsys.readouterr().out
    with pytest.raises(ValueError, match="four score sliders"):
        plots.softmax_sliders(compute, scores=(1.0, 2.0))


def _one_prediction(o_y):
    o = np.array([o_y, 1.0, 0.5, -0.5])
    y_hat = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
    return y_hat, -np.log(y_hat[0]), y_hat - np.eye(4)[0]


def test_show_target_score_prints_and_draws_the_curves(monkeypatch, capsys):
    _quiet_show(monkeypatch)
    grid = np.linspace(-3, 3, 13)
    curves = {"loss": [_one_prediction(s)[1] for s in grid], "gradient": [_one_prediction(s)[2][0] for s in grid]}
    y_hat, loss, grad = _one_prediction(0.5)
    plots.show_target_score(0.5, y_hat, loss, grad, grid, curves)
    out = capsys.readouterr().out
    assert out.startswith(f"target score o_y: 0.50   y_hat_y: {y_hat[0]:.4f}   loss -log y_hat_y: {loss:.4f}")
    loss_ax, grad_ax, bar_ax = plt.gcf().axes
    assert [t.get_text() for t in loss_ax.get_legend().get_texts()] == ["loss"]  # the first curve, alone
    assert [t.get_text() for t in grad_ax.get_legend().get_texts()] == ["gradient"]
    assert [p.get_height() for p in bar_ax.patches] == pytest.approx(np.concatenate([y_hat, grad]))
    assert bar_ax.get_xticklabels()[0].get_text() == "target"


def test_target_score_slider_redraws_for_the_new_score(monkeypatch, capsys):
    _quiet_show(monkeypatch)
    grid = np.linspace(-6, 6, 25)
    box = plots.target_score_slider(_one_prediction, grid, {"loss": [_one_prediction(s)[1] for s in grid]})
    slider = box.children[0]
    assert slider.description == "target score o_y" and slider.style.description_width == "initial"
    assert (slider.min, slider.max) == (-6.0, 6.0)
    slider.value = 3.0
    assert f"loss -log y_hat_y: {_one_prediction(3.0)[1]:.4f}" in capsys.readouterr().out



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

def _history(n=120, val_every=50):
    # a made-up rnn_core.History: bpc falling linearly, a validation every val_every steps
    from rnn_core import History

    steps = np.arange(1, n + 1)
    return History(step=steps.tolist(), train_bpc=(6.5 - 3 * steps / n).tolist(),
                   grad_norm=[1.0] * n, lr=[1e-3] * n, elapsed=(0.01 * steps).tolist(),
                   val_step=list(range(val_every, n + 1, val_every)),
                   val_bpc=[6.0 - i for i in range(n // val_every)], val_elapsed=[0.0] * (n // val_every))


BASELINES = {"uniform": 6.5, "unigram": 4.5, "bigram": 3.5}


def _view(error=None):
    chars = "ab c"
    probs = np.array([0.1, 0.6, 0.2, 0.1])
    if error:
        return {"error": error}
    return {"error": None, "temperature": 0.8, "prime": "ab", "continuation": "c a", "probs": probs,
            "top": np.argsort(-probs, kind="stable")[:3], "chars": chars}


def test_visible_char_shows_space_and_line_break():
    assert [plots.visible_char(c) for c in " \na"] == ["␣", "↵", "a"]


def test_plot_char_frequencies_draws_shares_most_frequent_first():
    counts = np.array([5, 20, 1, 10])
    plots.plot_char_frequencies(counts, "ab c")
    ax = plt.gcf().axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert np.allclose(heights, [20 / 36, 10 / 36, 5 / 36, 1 / 36]) and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["b", "c", "a", "␣"]


def test_moving_average_means_each_run_of_k_values():
    assert np.allclose(plots.moving_average([1, 2, 3, 4, 5], 2), [1.5, 2.5, 3.5, 4.5])
    assert np.allclose(plots.moving_average([1, 2, 3], 3), [2.0])


def test_draw_training_curves_draws_steps_average_validation_and_baselines():
    fig, ax = plt.subplots()
    history = _history()
    plots.draw_training_curves(ax, history, BASELINES, max_step=200, smooth=10)
    lines = ax.get_lines()
    assert np.array_equal(lines[0].get_ydata(), history.train_bpc)  # every step
    assert len(lines[1].get_ydata()) == len(history.step) - 10 + 1  # the moving average
    assert np.array_equal(lines[2].get_xdata(), history.val_step)  # validation points
    assert [line.get_ydata()[0] for line in lines[3:]] == list(BASELINES.values())
    assert ax.get_xlim() == (0, 200)


def test_draw_training_curves_with_an_empty_history():
    fig, ax = plt.subplots()
    plots.draw_training_curves(ax, _history(n=0), BASELINES, max_step=10)
    assert len(ax.get_lines()) == 1 + len(BASELINES)  # only the (empty) raw curve and the baselines


def test_live_plot_moves_the_bar_and_redraws_only_every_plot_every_steps(monkeypatch):
    from types import SimpleNamespace

    import IPython.display

    shown, updates = [], []
    handle = SimpleNamespace(update=updates.append)  # a notebook's display handle, without a notebook
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append(obj) or handle)
    live = plots.LivePlot(BASELINES, max_step=300, plot_every=100, smooth=10)

    def snapshot(step):  # what train passes to its callback, as far as LivePlot reads it
        h = _history(n=step, val_every=1000)
        return SimpleNamespace(step=step, history=h, train_bpc=h.train_bpc[-1], val_bpc=None)

    assert live(snapshot(50)) is None  # never asks training to stop
    assert live.bar.value == 50 and "step 50 of 300" in live.status.value and "validation bpc -" in live.status.value
    first = live.ax.get_lines()[0].get_xdata().copy()
    live(snapshot(150))  # not a multiple of plot_every: the bar moves, the figure stays
    assert live.bar.value == 150 and np.array_equal(live.ax.get_lines()[0].get_xdata(), first)
    live(snapshot(200))
    assert len(live.ax.get_lines()[0].get_xdata()) == 200 and live.ax.get_title() == "step 200 of 300"
    assert shown == [live.row, live.fig] and updates == [live.fig]  # shown once, then updated in place


def test_plot_first_steps_shows_the_first_n_steps_unsmoothed():
    history = _history()
    plots.plot_first_steps(history, BASELINES, 30)
    line = plt.gcf().axes[0].get_lines()[0]
    assert np.array_equal(line.get_ydata(), history.train_bpc[:30])


def test_plot_training_runs_draws_one_smoothed_curve_per_run():
    runs = {"sgd, α = 1": _history(60), "adam, α = 0.02": _history(60)}
    plots.plot_training_runs(runs, BASELINES, smooth=10)
    ax = plt.gcf().axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == list(runs)
    assert all(len(line.get_ydata()) == 60 - 10 + 1 for line in ax.get_lines()[:2])


def test_print_sample_prints_the_text_or_the_error(capsys):
    plots.print_sample(_view())
    assert capsys.readouterr().out == "temperature: 0.80\nabc a\n"
    plots.print_sample(_view(error="prime must be a non-empty string"))
    assert capsys.readouterr().out == "cannot sample: prime must be a non-empty string\n"


def test_plot_next_char_probs_draws_the_top_characters_most_likely_on_top():
    plots.plot_next_char_probs(_view())
    ax = plt.gcf().axes[0]
    widths = [bar.get_width() for bar in ax.patches]
    assert np.allclose(widths, [0.6, 0.2, 0.1])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["'b'", "' '", "'a'"]  # most likely first...
    assert [bar.get_y() for bar in ax.patches] == sorted((bar.get_y() for bar in ax.patches), reverse=True)  # ...on top


def test_plot_next_char_probs_draws_nothing_for_an_error():
    plots.show_sample_view(_view(error="no"))
    assert not plt.get_fignums()


def test_sampling_widget_calls_the_view_function_with_the_controls_values():
    calls = []

    def view_fn(temperature, prime, length):
        calls.append((temperature, prime, length))
        return _view()

    box = plots.sampling_widget(view_fn, prime="ab", temperature=0.5, length=40)
    temperature, length, prime = box.children[0].children
    assert calls[-1] == (0.5, "ab", 40)
    assert all(w.style.description_width == "initial" for w in (temperature, length, prime))
    temperature.value = 1.2
    assert calls[-1] == (1.2, "ab", 40)
    length.value = 100
    prime.value = "c"
    assert calls[-1] == (1.2, "c", 100)



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

def test_plot_lag_accuracy_one_line_per_cell_and_the_chance_line():
    lags = [5, 10, 20]
    plots.plot_lag_accuracy(lags, {"vanilla": [1.0, 0.9, 0.25], "LSTM": [1.0, 1.0, 1.0]}, chance=0.25)
    ax = plt.gcf().axes[0]
    vanilla, lstm, chance = ax.get_lines()
    assert list(vanilla.get_xdata()) == lags and list(lstm.get_ydata()) == [1.0, 1.0, 1.0]
    assert list(chance.get_ydata()) == [0.25, 0.25] and ax.get_xscale() == "log"


def test_plot_gradient_flow_colours_by_cell_and_dashes_the_initial_curves():
    curves = {"vanilla (init)": [1.0, 0.1, 0.01], "LSTM (init)": [1.0, 0.5, 0.25],
              "vanilla (trained)": [1.0, 0.2, 0.0], "LSTM (trained)": [1.0, 0.9, 0.8]}
    plots.plot_gradient_flow(curves, title="t")
    lines = plt.gcf().axes[0].get_lines()
    assert [ln.get_linestyle() for ln in lines] == ["--", "--", "-", "-"]
    assert lines[0].get_color() == lines[2].get_color() != lines[1].get_color() == lines[3].get_color()
    assert lines[2].get_ydata()[-1] > 0  # a zero norm is kept drawable on the log scale


def test_unit_trace_places_characters_on_their_lines():
    text = "ab\n\"c\""
    plots.unit_trace(text, np.linspace(-1, 1, len(text)), "unit 3")
    ax = plt.gcf().axes[0]
    assert [t.get_text() for t in ax.texts] == ["a", "b", '"', "c", '"']
    assert ax.images[0].get_array().shape == (2, 3)
    with pytest.raises(ValueError, match="characters"):
        plots.unit_trace("abc", [0.0], "x")
