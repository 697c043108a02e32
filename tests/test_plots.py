"""The notebooks' figures (rnn_core.plots): each draws the data it is given, labelled and within its axes."""

import inspect

import matplotlib

matplotlib.use("Agg")  # no display: draw into memory

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from rnn_core import History, plots  # noqa: E402

PLOT_FUNCTIONS = [getattr(plots, name) for name in plots.__all__ if name.startswith("plot_")]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def legend_texts(legend):
    return [t.get_text() for t in legend.get_texts()]


def tick_texts(labels):
    return [t.get_text() for t in labels]


# -- the naming scheme and the contract ------------------------------------------------------------


def test_every_drawing_function_is_plot_thing_with_ax_or_axes_last():
    public = [name for name in plots.__all__ if callable(getattr(plots, name))]
    assert set(public) - {f.__name__ for f in PLOT_FUNCTIONS} == {"moving_average", "visible_char"}
    for fn in PLOT_FUNCTIONS:
        last = list(inspect.signature(fn).parameters.values())[-1]
        assert last.name in ("ax", "axes") and last.default is None, fn.__name__


def test_a_new_figure_is_returned_unshown_and_given_axes_are_drawn_into():
    fig = plots.plot_tanh(np.linspace(-1, 1, 5), np.tanh(np.linspace(-1, 1, 5)), np.ones(5))
    assert isinstance(fig, Figure) and not plt.get_fignums()  # closed in pyplot: the caller shows it, once
    own, ax = plt.subplots()
    assert plots.plot_tanh(np.zeros(3), np.zeros(3), np.ones(3), ax=ax) is own and len(ax.get_lines()) == 4
    own, axes = plt.subplots(1, 3)
    with pytest.raises(ValueError, match="pass 2 Axes, got 3"):
        plots.plot_softmax(np.ones(2) / 2, np.zeros((2, 2)), axes=axes)


# -- 01, 02 ----------------------------------------------------------------------------------------


def _softmax_and_jacobian(o, temperature=1.0):
    y_hat = np.exp(o / temperature - np.max(o / temperature))
    y_hat /= y_hat.sum()
    return y_hat, (np.diag(y_hat) - np.outer(y_hat, y_hat)) / temperature


def test_plot_temperature_bars_draws_each_temperature_s_probabilities():
    o = np.array([2.0, 1.0, 0.1, -1.0])
    rows = {tau: _softmax_and_jacobian(o, tau)[0] for tau in (0.5, 1.0, 2.0)}
    ax = plots.plot_temperature_bars(o, rows).axes[0]
    heights = np.array([p.get_height() for p in ax.patches]).reshape(3, 4)
    assert np.allclose(heights, np.stack(list(rows.values())))  # one group of four bars per temperature
    assert legend_texts(ax.get_legend()) == ["τ = 0.5", "τ = 1", "τ = 2"]
    assert list(ax.get_lines()[0].get_ydata()) == [0.25, 0.25]  # the uniform line at 1/V
    assert tick_texts(ax.get_xticklabels())[0] == "$o_1$ = 2"


def test_plot_step_size_errors_draws_measured_guides_and_the_two_lines():
    steps = 10.0 ** -np.arange(1, 6)
    errors = steps**2
    ax = plots.plot_step_size_errors(
        steps, errors, {"Taylor": steps**2 / 6, "roundoff": 1e-16 / steps}, chosen=1e-3, tol=1e-7
    ).axes[0]
    measured, taylor, roundoff, chosen, tol = ax.get_lines()
    assert np.array_equal(measured.get_ydata(), errors) and np.array_equal(taylor.get_ydata(), steps**2 / 6)
    assert list(chosen.get_xdata()) == [1e-3, 1e-3] and list(tol.get_ydata()) == [1e-7, 1e-7]
    assert ax.get_xscale() == ax.get_yscale() == "log" and ax.xaxis_inverted()  # smaller steps to the right
    assert ax.get_ylim()[0] < errors.min() and ax.get_ylim()[1] == 1
    assert legend_texts(ax.get_legend())[:3] == ["measured relative error", "Taylor", "roundoff"]


def test_plot_softmax_writes_each_entry_readably_on_its_cell():
    y_hat, J = _softmax_and_jacobian(np.array([3.0, 3.0, -2.0, -2.0]), 0.5)  # J[0, 0] near its largest, 0.5
    fig = plots.plot_softmax(y_hat, J, temperature=0.5)
    bars, heat = fig.axes[:2]
    assert [p.get_height() for p in bars.patches] == pytest.approx(y_hat) and bars.get_ylim() == (0, 1)
    image = heat.get_images()[0]
    assert np.array_equal(image.get_array(), J) and image.get_cmap().name == plots.HEATMAP_CMAP
    assert image.get_clim() == pytest.approx((-0.5, 0.5))  # +-1/(4 tau), centred on zero
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in heat.texts}
    assert len(texts) == 16 and texts[2, 3].get_text() == f"{J[2, 3]:.2f}".replace("-0.00", "0.00")
    assert to_rgba(texts[0, 0].get_color()) == to_rgba("white")  # the dark red diagonal: white numbers
    assert to_rgba(texts[2, 3].get_color()) == to_rgba("black")  # a pale cell: black numbers
    assert len(fig.axes) == 3  # and a colour bar


def _one_prediction(o_y):
    o = np.array([o_y, 1.0, 0.5, -0.5])
    y_hat = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
    return y_hat, -np.log(y_hat[0]), y_hat - np.eye(4)[0]


def test_plot_target_score_draws_the_curves_the_point_and_the_bars():
    grid = np.linspace(-3, 3, 13)
    curves = {
        "loss": np.array([_one_prediction(s)[1] for s in grid]),
        "gradient": np.array([_one_prediction(s)[2][0] for s in grid]),
    }
    y_hat, loss, grad = _one_prediction(0.5)
    loss_ax, grad_ax, bar_ax = plots.plot_target_score(0.5, y_hat, grad, grid, curves).axes
    assert legend_texts(loss_ax.get_legend()) == ["loss"] and legend_texts(grad_ax.get_legend()) == ["gradient"]
    curve, point = loss_ax.get_lines()[:2]
    assert np.array_equal(curve.get_ydata(), curves["loss"])
    assert point.get_xdata()[0] == 0.5 and point.get_ydata()[0] == pytest.approx(np.interp(0.5, grid, curves["loss"]))
    assert [p.get_height() for p in bar_ax.patches] == pytest.approx(np.concatenate([y_hat, grad]))
    assert tick_texts(bar_ax.get_xticklabels()) == ["target", "class 1", "class 2", "class 3"]
    assert grad_ax.get_ylim() == (-1.05, 0.65) and bar_ax.get_ylim() == (-1, 1)


# -- 03 --------------------------------------------------------------------------------------------


def test_plot_tanh_draws_both_curves_and_the_levels():
    z = np.linspace(-4, 4, 41)
    h = np.tanh(z)
    ax = plots.plot_tanh(z, h, 1 - h**2).axes[0]
    tanh, slope, low, high = ax.get_lines()
    assert np.array_equal(tanh.get_ydata(), h) and np.array_equal(slope.get_ydata(), 1 - h**2)
    assert list(low.get_ydata()) == [-1, -1] and list(high.get_ydata()) == [1, 1]
    assert legend_texts(ax.get_legend()) == [r"$\tanh z$", r"$\tanh' z = 1 - \tanh^2 z$"]


def test_plot_hidden_states_shows_the_arrays_with_the_series_colours():
    rng = np.random.default_rng(0)
    T, H, chars = 6, 5, "ab c"
    h = np.tanh(rng.standard_normal((T, H)))
    y_hat = rng.dirichlet(np.ones(len(chars)), size=T)
    inputs, targets = rng.integers(0, len(chars), T), rng.integers(0, len(chars), T)
    ax_h, ax_p = plots.plot_hidden_states(h, y_hat, inputs, targets, chars).axes[:2]
    assert np.array_equal(ax_h.images[0].get_array(), h.T) and np.array_equal(ax_p.images[0].get_array(), y_hat.T)
    assert all(ax.images[0].get_cmap().name == plots.HEATMAP_CMAP for ax in (ax_h, ax_p))
    assert ax_h.images[0].get_clim() == (-1, 1)  # centred on zero
    assert tick_texts(ax_p.get_yticklabels()) == ["a", "b", "␣", "c"]  # the space is visible
    assert tick_texts(ax_h.get_xticklabels()) == [plots.visible_char(chars[i]) for i in inputs]
    assert np.array_equal(ax_p.get_lines()[0].get_ydata(), targets)  # a dot on each true next character


# -- 04, 05 ----------------------------------------------------------------------------------------


def test_plot_hidden_states_numbers_the_units_with_integers():
    h = np.zeros((5, 16))
    fig = plots.plot_hidden_states(h, np.full((5, 3), 1 / 3), [0, 1, 2, 0, 1], [1, 2, 0, 1, 2], "abc")
    fig.canvas.draw()
    assert all(float(t).is_integer() for t in fig.axes[0].get_yticks())


@pytest.mark.parametrize("H", [1, 2, 5])
def test_plot_hidden_states_labels_each_of_a_few_units(H):
    fig = plots.plot_hidden_states(np.zeros((5, H)), np.full((5, 3), 1 / 3), [0, 1, 2, 0, 1], [1, 2, 0, 1, 2], "abc")
    fig.draw_without_rendering()
    ax = fig.axes[0]
    low, high = sorted(ax.get_ylim())
    assert [t for t in ax.get_yticks() if low <= t <= high] == list(range(H))  # at H = 1: just 0, no -0.5 .. 0.5


def test_plot_training_loss_has_plain_ticks_and_its_legend_off_the_curve():
    losses = np.array([5.9, 4.6, 3.0, 1.0, 0.1, 0.03])
    fig = plots.plot_training_loss(losses, first_right=3, baseline=5.5)
    ax = fig.axes[0]
    curve, baseline, marker = ax.get_lines()
    assert np.array_equal(curve.get_ydata(), losses) and ax.get_yscale() == "log"
    assert list(baseline.get_ydata()) == [5.5, 5.5] and list(marker.get_xdata()) == [3, 3]
    fig.canvas.draw()
    labels = [t for t in tick_texts(ax.get_yticklabels()) if t]
    assert labels and all(float(t) > 0 for t in labels)  # plain numbers such as 0.1 and 5, never "6×10⁰"
    legend, frame = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.y0 >= frame.y1 - 1  # above the axes: over no curve
    assert legend_texts(ax.get_legend())[2] == "greedy decoding first right (update 3)"


def test_plot_training_loss_labels_a_narrow_range_with_several_plain_ticks():
    fig = plots.plot_training_loss([5.5, 4.0, 6.0, 2.5, 3.0])
    fig.canvas.draw()
    labels = [float(t) for t in tick_texts(fig.axes[0].get_yticklabels()) if t]
    assert len([v for v in labels if 2.5 <= v <= 6]) >= 3  # not one lonely tick in a range under a decade
    assert len(fig.axes[0].get_lines()) == 1  # no baseline, no marker


def test_plot_truncation_error_holds_every_value():
    ks = np.arange(5)
    errors = {0.5: np.array([0.2, 1e-5, 1e-12, 1e-16, 1e-16]), 2.5: np.ones(5) * 0.99}
    ax = plots.plot_truncation_error(ks, errors, "demo").axes[0]
    low, high = ax.get_ylim()
    assert low < 1e-16 and high > 0.99 and ax.get_title() == "demo"
    assert [np.array_equal(line.get_ydata(), e) for line, e in zip(ax.get_lines(), errors.values())] == [True, True]
    assert legend_texts(ax.get_legend()) == ["recurrent_scale ρ = 0.5", "recurrent_scale ρ = 2.5"]


def test_plot_gradient_flow_bound_holds_every_value_and_names_the_gradient_with_nabla():
    lags = np.arange(61)
    flows = np.stack([0.1**lags * (1 + 0.1 * s) for s in range(3)])  # down to 1e-60: nothing may be cut
    bound = 0.1**lags * 1.2
    ax = plots.plot_gradient_flow_bound(lags, flows, bound, 0.1, 8).axes[0]
    low, high = ax.get_ylim()
    assert low <= min(flows.min(), bound.min()) and high >= max(flows.max(), bound.max())
    lines = ax.get_lines()
    assert len(lines) == 4 and np.array_equal(lines[3].get_ydata(), bound)  # three seeds and the bound
    assert r"\nabla_{h_t}" in ax.get_ylabel() and ax.get_title() == "recurrent_scale ρ = 0.10, H = 8"
    assert legend_texts(ax.get_legend())[0] == "measured, 3 seeds"


def test_plot_gradient_flow_bound_refuses_values_a_log_axis_cannot_show():
    with pytest.raises(ValueError, match="log axis"):
        plots.plot_gradient_flow_bound(np.arange(3), np.array([[1.0, 0.0, 1.0]]), np.ones(3), 1.0, 4)


def test_plot_clipping_shows_the_three_arrows_the_box_and_the_circle():
    g = np.array([6.0, 1.5])
    by_entry, by_norm = np.clip(g, -2, 2), g * 2 / np.linalg.norm(g)
    ax = plots.plot_clipping(g, by_entry, by_norm, 2.0).axes[0]
    assert [tuple(a.xy) for a in ax.texts] == [tuple(g), tuple(by_entry), tuple(by_norm)]  # arrow heads
    box, circle = ax.patches
    assert (box.get_width(), box.get_height()) == (4.0, 4.0) and circle.get_radius() == 2.0
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0 < 6 < x1 and y0 < 0 < 2 < y1  # the three arrows and the top of the box inside
    assert legend_texts(ax.get_legend()) == ["gradient", "elementwise clip", "global-norm clip"]


# -- 06 --------------------------------------------------------------------------------------------


def _history(n=120, val_every=50):
    # a made-up rnn_core.History: bpc falling linearly, a validation every val_every steps
    steps = np.arange(1, n + 1)
    return History(
        step=steps.tolist(),
        train_bpc=(6.5 - 3 * steps / n).tolist(),
        grad_norm=[1.0] * n,
        lr=[1e-3] * n,
        elapsed=(0.01 * steps).tolist(),
        val_step=list(range(val_every, n + 1, val_every)),
        val_bpc=[6.0 - i for i in range(n // val_every)],
        val_elapsed=[0.0] * (n // val_every),
    )


BASELINES = {"uniform": 6.5, "unigram": 4.5, "bigram": 3.5}


def test_visible_char_shows_space_and_line_break():
    assert [plots.visible_char(c) for c in " \na“"] == ["␣", "↵", "a", "“"]


def test_moving_average_means_each_run_of_k_values():
    assert np.allclose(plots.moving_average([1, 2, 3, 4, 5], 2), [1.5, 2.5, 3.5, 4.5])
    assert np.allclose(plots.moving_average([1, 2, 3], 3), [2.0])


def test_plot_char_frequencies_draws_shares_most_frequent_first_in_two_rows():
    counts = np.array([5, 20, 1, 10, 2])
    top, rest = plots.plot_char_frequencies(counts, "ab cd").axes
    assert np.allclose([bar.get_height() for bar in top.patches], [20 / 38, 10 / 38, 5 / 38])
    assert np.allclose([bar.get_height() for bar in rest.patches], [2 / 38, 1 / 38])
    assert tick_texts(top.get_xticklabels()) == ["b", "c", "a"] and tick_texts(rest.get_xticklabels()) == ["d", "␣"]
    assert top.get_yscale() == rest.get_yscale() == "log" and top.get_ylim() == rest.get_ylim()  # one scale


def test_plot_training_curves_draws_steps_average_validation_and_labelled_baselines():
    fig, ax = plt.subplots()
    history = _history()
    assert plots.plot_training_curves(history, BASELINES, max_step=200, smooth=10, ax=ax) is fig
    raw, mean, val, *base = ax.get_lines()
    assert np.array_equal(raw.get_ydata(), history.train_bpc)  # every step
    assert np.allclose(mean.get_ydata(), plots.moving_average(history.train_bpc, 10))
    assert np.array_equal(val.get_xdata(), history.val_step) and np.array_equal(val.get_ydata(), history.val_bpc)
    assert [line.get_ydata()[0] for line in base] == list(BASELINES.values())
    assert tick_texts(ax.texts) == [f" {k} {v:.2f}" for k, v in BASELINES.items()]  # each baseline named
    assert ax.get_xlim() == (0, 200) and ax.get_ylim() == (1.0, 7.0)
    assert legend_texts(ax.get_legend()) == ["training (mean of 10 steps)", "validation"]


def test_plot_training_curves_of_an_empty_history_draws_only_the_baselines():
    ax = plots.plot_training_curves(_history(n=0), BASELINES, max_step=10).axes[0]
    assert len(ax.get_lines()) == 1 + len(BASELINES) and not len(ax.get_lines()[0].get_xdata())
    assert ax.get_legend() is None


def test_plot_first_steps_shows_the_first_n_steps_unsmoothed():
    history = _history()
    ax = plots.plot_first_steps(history, BASELINES, 30).axes[0]
    line = ax.get_lines()[0]
    assert np.array_equal(line.get_ydata(), history.train_bpc[:30]) and ax.get_xlim() == (0, 30)
    assert ax.get_title() == "the first 30 steps: the training bpc of each step's window"
    assert ax.get_legend() is None  # one curve, named in the title: no box on the uniform line


def test_plot_training_runs_draws_one_smoothed_curve_per_run_a_colour_family_per_rule():
    runs = {"SGD, α = 1": _history(60), "SGD with momentum, α = 3": _history(60), "Adam, α = 0.02": _history(60)}
    ax = plots.plot_training_runs(runs, BASELINES, smooth=10).axes[0]
    sgd, momentum, adam = (to_rgba(line.get_color()) for line in ax.get_lines()[:3])
    assert legend_texts(ax.get_legend()) == list(runs)
    assert np.allclose(ax.get_lines()[0].get_ydata(), plots.moving_average(runs["SGD, α = 1"].train_bpc, 10))
    assert sgd[2] > sgd[0] and momentum[1] > max(momentum[0], momentum[2]) and adam[0] > adam[2]  # blue, green, red
    assert ax.get_xlim() == (0, 60)


def test_plot_next_char_probs_at_zero_temperature_one_bar_on_an_axis_to_1():
    probs = np.zeros(20)
    probs[3] = 1.0
    ax = plots.plot_next_char_probs(probs, "abcdefghijklmnopqrst", temperature=0.0).axes[0]
    assert [bar.get_width() for bar in ax.patches] == [1.0]  # no bars of probability 0
    assert ax.get_xlim() == pytest.approx((0, 1.0)) and tick_texts(ax.texts) == ["1.00"]
    assert tick_texts(ax.get_yticklabels()) == ["d"]


def test_plot_next_char_probs_labels_characters_as_they_look_on_an_axis_that_fits():
    chars = "ab \n“"
    probs = np.array([0.05, 0.1, 0.5, 0.3, 0.05])
    fig = plots.plot_next_char_probs(probs, chars, prime="“Mr. Darcy", temperature=0.5, top=4)
    ax = fig.axes[0]
    assert [bar.get_width() for bar in ax.patches] == pytest.approx([0.5, 0.3, 0.1, 0.05])  # most likely first...
    tops = [bar.get_y() for bar in ax.patches]
    assert tops == sorted(tops, reverse=True)  # ...on top
    assert tick_texts(ax.get_yticklabels()) == ["␣", "↵", "b", "a"]  # as they look, not Python reprs
    assert ax.get_xlim() == pytest.approx((0, 0.6))  # just past the largest bar, not a fixed 0-1
    assert tick_texts(ax.texts) == ["0.50", "0.30", "0.10", "0.05"]  # each bar's value written at its end
    assert "“Mr. Darcy" in ax.get_title() and "τ = 0.50" in ax.get_title()
    title = plots.plot_next_char_probs(probs, chars, prime="It is a truth universally “Mr. ").axes[0].get_title()
    assert title == "the next character after: …th universally “Mr.␣"  # its last 20 characters, the space visible


# -- 07 --------------------------------------------------------------------------------------------


def test_plot_hidden_size_sweep_draws_the_runs_their_gain_per_parameter_and_one_legend():
    curves = {16: (np.arange(1, 4), np.array([4.0, 3.5, 3.2])), 64: (np.arange(1, 4), np.array([3.9, 3.0, 2.6]))}
    val, n_params = {16: 3.3, 64: 2.7}, {16: 3275, 64: 15899}
    highlight = {
        "label": "your run",
        "H": 32,
        "val_bpc": 3.0,
        "n_params": 6971,
        "curve": (np.arange(1, 4), np.array([4.0, 3.2, 2.9])),
    }
    fig = plots.plot_hidden_size_sweep(curves, val, n_params, {"unigram": 4.5, "bigram": 3.5}, highlight=highlight)
    ax_curves, ax_size, ax_gain = fig.axes
    assert np.array_equal(ax_curves.get_lines()[1].get_ydata(), [3.9, 3.0, 2.6])
    assert np.array_equal(ax_size.get_lines()[0].get_ydata(), [3.3, 2.7])  # validation bpc against H
    # the gain of the doubling 16 -> 64 per 1,000 parameters it added, one point labelled with the sizes
    assert np.allclose(ax_gain.get_lines()[0].get_ydata(), [1000 * 0.6 / (15899 - 3275)])
    assert [t.get_text() for t in ax_gain.get_xticklabels()] == ["16→64"]
    for ax in (ax_curves, ax_size):  # both baselines on the panels of bits per character
        assert {4.5, 3.5} <= {line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() in (":", "--")}
    assert list(ax_size.get_lines()[-1].get_xdata()) == [32]  # the highlighted run, on the size panel
    (legend,) = fig.legends  # one legend for the whole figure, at a readable size
    assert legend_texts(legend) == ["H = 16", "H = 64", "unigram baseline 4.50", "bigram baseline 3.50", "your run"]
    assert all(t.get_fontsize() >= 10 for t in legend.get_texts())


def test_plot_hidden_size_sweep_without_highlight():
    fig = plots.plot_hidden_size_sweep({8: ([1, 2], [5.0, 4.0])}, {8: 4.0}, {8: 1000}, {"bigram": 3.5})
    assert legend_texts(fig.legends[0]) == ["H = 8", "bigram baseline 3.50"]


def test_plot_text_heatmap_places_each_character_on_its_cell_and_wraps_at_spaces():
    text = "ab cd\n“e”"
    values = np.linspace(-1, 1, len(text))
    fig = plots.plot_text_heatmap(text, values, title="unit 3", label="h", width=4)
    ax, bar = fig.axes
    grid = ax.images[0].get_array()
    # rows: "ab " (broken after the space: no word is cut), "cd" + its line break, "“e”"
    assert grid.shape == (3, 3)
    assert [t.get_text() for t in ax.texts] == ["a", "b", " ", "c", "d", "↵", "“", "e", "”"]
    positions = [(round(t.get_position()[1]), round(t.get_position()[0])) for t in ax.texts]
    assert positions == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert [grid[r, c] for r, c in positions] == pytest.approx(values)  # each value under its character
    assert ax.images[0].get_clim() == (-1, 1) and bar.get_ylabel() == "h" and ax.get_title(loc="left") == "unit 3"
    assert all(to_rgba(t.get_color()) == to_rgba("black") for t in ax.texts if t.get_text() != "↵")
    colours = ax.images[0].get_cmap()(np.linspace(0, 1, 5))
    assert colours[:, :3].min() > 0.15  # pale colours only: black characters stay readable


def test_plot_text_heatmap_scale_and_bad_input():
    ax = plots.plot_text_heatmap("abc", [0.1, -0.2, 0.05], vmax=1).axes[0]
    assert ax.images[0].get_clim() == (-1, 1)
    assert plots.plot_text_heatmap("abc", [0.1, -0.2, 0.05]).axes[0].images[0].get_clim() == pytest.approx((-0.2, 0.2))
    with pytest.raises(ValueError, match="one value per character"):
        plots.plot_text_heatmap("abc", [0.0], "x")


def test_plot_probe_accuracies_draws_one_group_per_question_legend_under_the_bars():
    acc = {"word": {"majority": 0.3, "probe": 0.9}, "quote": {"majority": 0.6, "probe": 0.6}}
    fig = plots.plot_probe_accuracies(acc)
    ax = fig.axes[0]
    assert tick_texts(ax.get_xticklabels()) == ["word", "quote"]
    assert [p.get_height() for p in ax.patches] == [0.3, 0.6, 0.9, 0.6] and ax.get_ylim() == (0, 1)
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().y1 <= ax.get_window_extent().y0  # under the bars, off them


def test_plot_grad_norms_draws_the_norms_the_mean_the_threshold_and_the_rate():
    step = np.arange(1, 101)
    norms = np.linspace(2.0, 1.0, 100)
    ax_g, ax_lr = plots.plot_grad_norms(step, norms, np.full(100, 1e-3), clip_norm=5.0, smooth=10).axes
    each, mean, threshold = ax_g.get_lines()
    assert np.array_equal(each.get_ydata(), norms) and np.allclose(mean.get_ydata(), plots.moving_average(norms, 10))
    assert list(threshold.get_ydata()) == [5.0, 5.0] and ax_g.get_ylim() == pytest.approx((0, 5.5))
    assert r"\nabla L" in ax_g.get_ylabel() and np.array_equal(ax_lr.get_lines()[0].get_ydata(), np.full(100, 1e-3))


# -- 08 --------------------------------------------------------------------------------------------


def test_plot_lag_accuracy_one_line_per_cell_and_the_chance_line():
    lags = [5, 10, 20]
    ax = plots.plot_lag_accuracy(lags, {"vanilla": [1.0, 0.9, 0.25], "LSTM": [1.0, 1.0, 1.0]}, chance=0.25).axes[0]
    vanilla, lstm, chance = ax.get_lines()
    assert list(vanilla.get_xdata()) == lags and list(lstm.get_ydata()) == [1.0, 1.0, 1.0]
    assert list(chance.get_ydata()) == [0.25, 0.25] and ax.get_xscale() == "log"
    assert tick_texts(ax.get_xticklabels()) == ["5", "10", "20"]
    assert legend_texts(ax.get_legend()) == ["vanilla", "LSTM", "chance (0.25)"]


def test_plot_race_draws_each_cell_against_updates_multiply_adds_and_seconds():
    curves = {
        "vanilla RNN": ([10, 20], [1e9, 2e9], [0.5, 1.0], [3.0, 2.5]),
        "LSTM": ([4, 8], [1e9, 2e9], [0.6, 1.1], [3.2, 2.6]),
    }
    fig = plots.plot_race(curves)
    by_updates, by_arithmetic, by_time, legend_panel = fig.axes
    assert [list(ln.get_xdata()) for ln in by_updates.get_lines()] == [[10, 20], [4, 8]]
    assert [list(ln.get_xdata()) for ln in by_arithmetic.get_lines()] == [[1.0, 2.0], [1.0, 2.0]]
    assert [list(ln.get_xdata()) for ln in by_time.get_lines()] == [[0.5, 1.0], [0.6, 1.1]]
    assert list(by_time.get_lines()[1].get_ydata()) == [3.2, 2.6] and "seconds" in by_time.get_xlabel()
    assert legend_texts(legend_panel.get_legend()) == ["vanilla RNN", "LSTM"] and not legend_panel.axison
    assert "multiply-adds" in by_arithmetic.get_xlabel()
    _, axes = plt.subplots(1, 3)
    assert legend_texts(plots.plot_race(curves, axes=axes).axes[0].get_legend()) == ["vanilla RNN", "LSTM"]


def test_plot_lag_accuracy_keeps_its_legend_off_the_data():
    lags = [5, 10, 20, 40]
    seeds = [[1.0, 0.75, 0.25, 0.25], [1.0, 1.0, 0.5, 0.25], [1.0, 1.0, 0.25, 0.3]]
    fig = plots.plot_lag_accuracy(lags, {"vanilla RNN": seeds, "LSTM": [[1.0] * 4] * 3, "GRU": [[1.0] * 4] * 3}, 0.25)
    fig.draw_without_rendering()  # lays the figure out
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # beside the axes, over no line or dot
    assert legend.x1 <= fig.bbox.x1 + 1  # and inside the figure


def test_plot_lag_accuracy_with_seeds_draws_their_mean_and_each_seed():
    lags = [5, 10, 20]
    seeds = [[1.0, 1.0, 0.25], [1.0, 0.5, 0.25], [1.0, 1.0, 0.25]]
    ax = plots.plot_lag_accuracy(lags, {"vanilla": seeds}, chance=0.25).axes[0]
    mean, *dots, chance = ax.get_lines()
    assert np.allclose(mean.get_ydata(), [1.0, 2.5 / 3, 0.25]) and len(dots) == 3
    assert [list(d.get_ydata()) for d in dots] == seeds and "3 seeds" in ax.get_legend().get_title().get_text()


def test_plot_race_with_seeds_draws_their_mean_and_a_band():
    curves = {"LSTM": ([4, 8], [1e9, 2e9], [[0.6, 1.1], [0.8, 1.3]], [[3.2, 2.6], [3.0, 2.4]])}
    fig = plots.plot_race(curves)
    by_updates, _, by_time, legend_panel = fig.axes
    assert np.allclose(by_updates.get_lines()[0].get_ydata(), [3.1, 2.5])
    assert np.allclose(by_time.get_lines()[0].get_xdata(), [0.7, 1.2]) and len(by_updates.collections) == 1
    assert "2 seeds" in legend_panel.get_legend().get_title().get_text()


def test_plot_gate_products_sorts_each_network_s_units():
    ax = plots.plot_gate_products({"fresh": [1e-5, 1e-4], "trained": [0.2, 0.9]}).axes[0]
    fresh, trained, half = ax.get_lines()
    assert list(fresh.get_ydata()) == [1e-4, 1e-5] and list(trained.get_ydata()) == [0.9, 0.2]
    assert list(half.get_ydata()) == [0.5, 0.5] and ax.get_yscale() == "log"


def test_plot_loss_curves_draws_running_means_that_stay_visible_when_they_coincide():
    losses = np.linspace(4.0, 2.0, 200)
    ax = plots.plot_loss_curves({"yours": losses, "rnn_core's": losses}, smooth=50).axes[0]
    yours, ours = ax.get_lines()
    assert len(yours.get_xdata()) == 151 and yours.get_xdata()[0] == 50
    assert np.allclose(yours.get_ydata(), ours.get_ydata()) and yours.get_linewidth() > ours.get_linewidth()
    assert ours.get_linestyle() == "--"


def test_plot_signal_gradient_draws_the_median_of_the_seeds():
    ax = plots.plot_signal_gradient([0, 10], {"GRU": [[1e-6, 1e-1], [1e-5, 1e-2], [1e-7, 1.0]]}).axes[0]
    assert np.allclose(ax.get_lines()[0].get_ydata(), [1e-6, 1e-1]) and ax.get_yscale() == "log"


def test_plot_gradient_flow_colours_by_cell_and_dashes_the_initial_curves():
    curves = {
        "vanilla (init)": [1.0, 0.1, 0.01],
        "LSTM (init)": [1.0, 0.5, 0.25],
        "vanilla (trained)": [1.0, 0.2, 0.0],
        "LSTM (trained)": [1.0, 0.9, 0.8],
    }
    ax = plots.plot_gradient_flow(curves, title="t").axes[0]
    lines = ax.get_lines()
    assert [ln.get_linestyle() for ln in lines] == ["--", "--", "-", "-"]
    assert lines[0].get_color() == lines[2].get_color() != lines[1].get_color() == lines[3].get_color()
    assert lines[2].get_ydata()[-1] > 0  # a zero norm is kept drawable on the log scale
    assert r"\nabla_{h_t} L_T" in ax.get_ylabel() and ax.get_title() == "t"


# -- one look: the series' style, and text readable at the size JupyterLab shows it ---------------


def test_importing_plots_gives_plain_matplotlib_the_series_palette_and_font_sizes():
    fig, ax = plt.subplots()
    first, second = ax.plot([0, 1]), ax.plot([1, 0])  # a notebook cell's own plot, no colour given
    assert [to_rgba(line.get_color()) for line in first + second] == [to_rgba(c) for c in plots.PALETTE[:2]]
    assert plt.subplots()[1].bar([0], [1])[0].get_facecolor() == to_rgba(plots.PALETTE[0])
    assert fig.get_figwidth() <= plots.MAX_WIDTH and matplotlib.rcParams["xtick.labelsize"] >= 9
    assert len(set(plots.PALETTE)) == len(plots.PALETTE) >= 8


COLUMN = 750  # pixels: a JupyterLab output area (700 to 900 pixels wide) shrinks a wider figure to this
SMALLEST_TEXT = 9.0  # pixels on screen


def _realistic_history(n=6000, val_every=500):
    steps = np.arange(1, n + 1)
    m = n // val_every
    noise = np.random.default_rng(0).standard_normal(n)
    return History(
        step=steps.tolist(),
        train_bpc=(2 + 4 * np.exp(-steps / 500) + 0.1 * noise).tolist(),
        grad_norm=(1.5 + 0.3 * noise).tolist(),
        lr=np.linspace(5e-3, 1e-4, n).tolist(),
        elapsed=(0.01 * steps).tolist(),
        val_step=[val_every * (i + 1) for i in range(m)],
        val_bpc=[2.5 - 0.02 * i for i in range(m)],
        val_elapsed=[0.0] * m,
    )


def _as_the_notebooks_call_them():
    """Every plot_ function, called with data of the size the notebooks give it (the novel's 83
    characters, 03's 37-character slider text, 128 hidden units, 6,000 steps...)."""
    rng = np.random.default_rng(1)
    novel = "".join(sorted(set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n!\"'(),-.:;?_‘’“”&*")))
    baselines = {"uniform": 6.5, "unigram": 4.4, "bigram": 3.4}
    text = "it is a truth universally acknowledged"
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    o = np.array([2.0, 1.0, 0.1, -1.0])
    y_hat = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
    grid = np.linspace(-6, 6, 121)
    softmax_alone = "softmax alone: $\\partial \\hat y_y / \\partial o_y = \\hat y_y(1 - \\hat y_y)$"
    curves = {
        "loss $-\\log \\hat y_y$": np.log1p(np.exp(-grid)),
        "$\\partial L/\\partial o_y = \\hat y_y - 1$": -1 / (1 + np.exp(grid)),
        softmax_alone: 0.25 / np.cosh(grid / 2) ** 2,
    }
    z = np.linspace(-4, 4, 101)
    sizes = (16, 32, 64, 128, 256)
    runs = {
        f"{rule}, α = {a:g}": _realistic_history(500, 100)
        for rule in ("SGD", "SGD with momentum", "Adam")
        for a in (1, 2, 3)
    }
    passage = ("Elizabeth had now but little time for conversation, as Mrs. Bennet had\n" * 10)[:700]
    race = {
        name: (
            np.arange(1, 9) * 250,
            np.arange(1, 9) * 1e9 * (k + 1),
            np.arange(1, 9)[None] * 10.0 * (k + 1) * np.ones((3, 1)),
            3 - 0.1 * np.arange(8)[None] + 0.02 * rng.random((3, 8)),
        )
        for k, name in enumerate(("vanilla RNN", "LSTM", "GRU"))
    }
    probes = ("majority class", "one-hot of the last character", "untrained network's h", "trained network's h")
    return {
        "plot_temperature_bars": lambda: plots.plot_temperature_bars(o, {t: y_hat for t in (0.5, 1, 2, 5)}),
        "plot_step_size_errors": lambda: plots.plot_step_size_errors(
            np.logspace(-1, -12, 12), np.logspace(-3, -6, 12), {"Taylor, ε²": np.logspace(-2, -20, 12)}, 1e-5, 1e-7
        ),
        "plot_softmax": lambda: plots.plot_softmax(y_hat, np.diag(y_hat) - np.outer(y_hat, y_hat)),
        "plot_target_score": lambda: plots.plot_target_score(0.0, y_hat, y_hat - np.eye(4)[0], grid, curves),
        "plot_tanh": lambda: plots.plot_tanh(z, np.tanh(z), 1 - np.tanh(z) ** 2),
        "plot_hidden_states": lambda: plots.plot_hidden_states(
            np.tanh(rng.standard_normal((len(ids) - 1, 128))),
            rng.dirichlet(np.ones(len(chars)), len(ids) - 1),
            ids[:-1],
            ids[1:],
            chars,
        ),
        "plot_training_loss": lambda: plots.plot_training_loss(np.geomspace(8, 0.05, 1000), 120, 5.5),
        "plot_truncation_error": lambda: plots.plot_truncation_error(
            np.arange(1, 41), {s: np.geomspace(1, 10.0**-s, 40) for s in (1, 3, 10)}, "truncated BPTT"
        ),
        "plot_gradient_flow_bound": lambda: plots.plot_gradient_flow_bound(
            np.arange(41),
            np.geomspace(1, 1e-5, 41)[None] * (1 + rng.random((5, 41))),
            np.geomspace(1, 1e-4, 41),
            0.8,
            32,
        ),
        "plot_clipping": lambda: plots.plot_clipping(np.array([3.0, 1.0]), np.ones(2), np.array([0.95, 0.32]), 1.0),
        "plot_char_frequencies": lambda: plots.plot_char_frequencies(rng.integers(1, 10**5, len(novel)), novel),
        "plot_training_curves": lambda: plots.plot_training_curves(_realistic_history(), baselines, 6000),
        "plot_first_steps": lambda: plots.plot_first_steps(_realistic_history(), baselines, 200),
        "plot_training_runs": lambda: plots.plot_training_runs(runs, baselines),
        "plot_next_char_probs": lambda: plots.plot_next_char_probs(
            rng.dirichlet(np.ones(len(novel))), novel, prime="It is a truth universally “Mr. ", temperature=0.8
        ),
        "plot_hidden_size_sweep": lambda: plots.plot_hidden_size_sweep(
            {H: (np.arange(50, 1001), np.linspace(4, 2.5, 951)) for H in sizes},
            {H: 2.6 - H / 500 for H in sizes},
            {H: 2 * 83 * H + H * H for H in sizes},
            {"unigram": 4.4, "bigram": 3.4},
            highlight={
                "label": "your run: H = 64, lr 0.005, T = 32",
                "H": 64,
                "val_bpc": 2.4,
                "n_params": 19_000,
                "curve": (np.arange(50, 1001), np.linspace(4, 2.4, 951)),
            },
        ),
        "plot_text_heatmap": lambda: plots.plot_text_heatmap(
            passage, np.tanh(rng.standard_normal(len(passage))), title="hidden unit 113", label="h_t[113]", vmax=1
        ),
        "plot_probe_accuracies": lambda: plots.plot_probe_accuracies(
            {
                q: dict(zip(probes, (0.3, 0.5, 0.6, 0.8)))
                for q in ("where in the word", "where in the line", "in a quote")
            }
        ),
        "plot_grad_norms": lambda: plots.plot_grad_norms(
            np.arange(1, 3001), 1 + rng.random(3000), np.linspace(5e-3, 1e-4, 3000), 5.0
        ),
        "plot_lag_accuracy": lambda: plots.plot_lag_accuracy(
            np.array([5, 10, 20, 40]),
            {"vanilla RNN": [[1, 0.9, 0.4, 0.25]] * 3, "LSTM": [[1, 1, 1, 1]] * 3, "GRU": [[1, 1, 1, 0.5]] * 3},
            0.25,
        ),
        "plot_gradient_flow": lambda: plots.plot_gradient_flow(
            {
                f"{cell} ({when})": np.geomspace(1, 1e-6, 41)
                for cell in ("vanilla", "LSTM")
                for when in ("init", "trained")
            },
            title="gradient flow",
        ),
        "plot_race": lambda: plots.plot_race(race),
        "plot_train_val": lambda: plots.plot_train_val(
            {
                title: [
                    {
                        "step": np.arange(25, 601, 25),
                        "train": np.linspace(3.5, 1.6 + 0.1 * seed, 24),
                        "val_step": np.arange(25, 601, 25),
                        "val": 2.9 + (np.linspace(-1, 1, 24) ** 2) * (0.6 + 0.1 * seed),
                    }
                    for seed in range(3)
                ]
                for title in ("two layers, H = 96, no dropout", "the same, dropout κ = 0.3")
            }
        ),
        "plot_loss_curves": lambda: plots.plot_loss_curves(
            {"your network": np.geomspace(4, 1.7, 2000), "rnn_core's, same seed": np.geomspace(4, 1.7, 2000)}
        ),
        "plot_gate_products": lambda: plots.plot_gate_products(
            {"fresh": np.geomspace(3e-4, 1e-9, 32), "trained": np.geomspace(1.0, 1e-12, 32)}
        ),
        "plot_signal_gradient": lambda: plots.plot_signal_gradient(
            [0, 10, 20, 30, 50, 100],
            {
                cell: np.geomspace(1e-6, 1e-1, 6)[None] * (1 + rng.random((3, 6)))
                for cell in ("vanilla RNN", "LSTM", "GRU")
            },
            title="the gradient at the signal, lag 40",
        ),
        "plot_alignment": lambda: plots.plot_alignment(
            rng.dirichlet(np.ones(36), 11), "Wednesday the 30th of September 1812", list("1812-09-30") + ["</s>"]
        ),
        "plot_accuracy_by_length": lambda: plots.plot_accuracy_by_length(
            ["8-12", "13-18", "19-24", "25-36"],
            {"with attention (dot)": rng.random((3, 4)), "without attention": rng.random((3, 4))},
        ),
    }


def shown_size(fig):
    """(width, height) in pixels of the PNG the inline backend makes of fig (bbox_inches="tight")."""
    import io

    from matplotlib.image import imread

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    buf.seek(0)
    height, width = imread(buf).shape[:2]
    return width, height


def test_the_catalogue_calls_every_plot_function():
    assert set(_as_the_notebooks_call_them()) == {fn.__name__ for fn in PLOT_FUNCTIONS}


@pytest.mark.parametrize("name", sorted(_as_the_notebooks_call_them()))
def test_every_text_of_every_figure_is_at_least_9_pixels_as_jupyterlab_shows_it(name):
    fig = _as_the_notebooks_call_them()[name]()
    width, _ = shown_size(fig)
    scale = min(1.0, COLUMN / width)  # a wider picture is shrunk to the column
    assert fig.get_figwidth() <= plots.MAX_WIDTH, f"{name}: {fig.get_figwidth()} inches wide"
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    small = [
        f"{t.get_text()[:30]!r} at {t.get_fontsize() * fig.dpi / 72 * scale:.1f} px"
        for t in texts
        if t.get_fontsize() * fig.dpi / 72 * scale < SMALLEST_TEXT
    ]
    assert not small, f"{name} ({width} px wide, shown at {scale:.0%}): text under {SMALLEST_TEXT} px: {small[:5]}"


# -- 10 --------------------------------------------------------------------------------------------


def test_plot_train_val_holds_a_given_y_axis():
    run = {"step": [0, 10, 20], "train": [3.0, 2.0, 1.5], "val_step": [10, 20], "val": [3.1, 3.3]}
    ax = plots.plot_train_val({"κ = 0.1": [run]}, ylim=(1.0, 4.0)).axes[0]
    assert ax.get_ylim() == (1.0, 4.0)  # the same at every position of the slider
    assert plots.plot_train_val({"κ = 0.1": [run]}).axes[0].get_ylim() != (1.0, 4.0)
