"""The notebooks' widgets (rnn_core.widgets): what each shows, and when, driven as a reader would drive it.

There is no browser here: moving a slider is setting its value, a click is ``button.click()``, and
what the widget displays is collected by replacing ``rnn_core.widgets.display``, or, where what
matters is what a notebook receives (figures as PNGs, the before-run outputs, a progress bar's
last text), by an IPython shell of the test's own (the ``ipython`` fixture). The browser test
(tests/browser) checks the same widgets in JupyterLab.
"""

import matplotlib

matplotlib.use("Agg")  # no display: draw into memory

import base64  # noqa: E402
import html  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import string  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import ipywidgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from IPython.display import HTML  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import imread  # noqa: E402

import rnn_core  # noqa: E402
from rnn_core import History, widgets  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def ipython(tmp_path, monkeypatch):
    """An IPython shell for the test (no history file), whose figures display as PNGs, as in a notebook."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path))
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    select_figure_formats(shell, {"png"})
    yield shell
    InteractiveShell.clear_instance()


def _closed_figure():
    """A small figure, closed in pyplot as rnn_core.plots leaves its figures (shown once, where displayed)."""
    fig = plt.subplots(figsize=(2, 1))[0]
    plt.close(fig)
    return fig


def pane_text(box, pane=0):
    """The text a widget's pane shows (its stream outputs, joined)."""
    return "".join(o["text"] for o in box._panes[pane].outputs if o["output_type"] == "stream")


@pytest.fixture
def shown(monkeypatch):
    """What the widgets display (figures, widgets), in order; a display handle records its updates."""
    seen = []

    def display(obj, display_id=None):
        seen.append(obj)
        return SimpleNamespace(update=seen.append) if display_id else None

    monkeypatch.setattr(widgets, "display", display)
    return seen


def figures(seen):
    return [obj for obj in seen if isinstance(obj, Figure)]


# -- the pane: new content whole, or not at all ---------------------------------------------------


def test_pane_swaps_in_the_new_output_only_when_it_is_complete(ipython):
    pane = widgets._Pane()
    pane.show(print, "old")
    old = pane.output.outputs
    seen_during = []

    def draw(x):
        print("new text")
        seen_during.append(pane.output.outputs)
        display(_closed_figure())
        seen_during.append(pane.output.outputs)
        return x * 2

    from IPython.display import display

    assert pane.show(draw, 21) == 42
    assert seen_during == [old, old]  # while fn ran, the old content was still the one on screen
    text, figure = pane.output.outputs  # then all of the new content at once, in the order shown
    assert text == {"output_type": "stream", "name": "stdout", "text": "new text\n"}
    assert figure["data"]["image/png"] and figure["data"]["text/plain"].startswith("<Figure size 200x100")
    # its size in pixels comes with it: JupyterLab holds its place while the browser decodes it
    height, width = imread(io.BytesIO(base64.b64decode(figure["data"]["image/png"]))).shape[:2]
    assert figure["metadata"] == {"image/png": {"width": width, "height": height}} and width > 150
    assert pane.outputs == list(pane.output.outputs) and pane.error is None


def test_pane_shows_an_error_under_what_came_before_it_and_raises_it_outside_ipython(ipython):
    pane = widgets._Pane()

    def fails():
        print("half-way")
        return 1 / 0

    assert pane.show(fails) is None  # in IPython the error is shown in the pane, not raised
    text, error = pane.output.outputs
    assert text["text"] == "half-way\n" and error["output_type"] == "error" and error["ename"] == "ZeroDivisionError"
    assert isinstance(pane.error, ZeroDivisionError) and "fails" in "".join(error["traceback"])


def test_pane_shows_a_figure_drawn_with_plain_pyplot_calls(ipython):
    pane = widgets._Pane()
    pane.show(lambda: plt.plot([0, 1], [1, 0]))  # no display(): as at the end of a cell, it is shown
    (figure,) = pane.outputs
    assert "image/png" in figure["data"] and not plt.get_fignums()  # shown once, then closed


def test_pane_raises_the_error_outside_ipython():
    pane = widgets._Pane()
    with pytest.raises(ZeroDivisionError):
        pane.show(lambda: 1 / 0)
    assert isinstance(pane.error, ZeroDivisionError)


# -- one layout for every control ---------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, kind, value",
    [
        (("hidden size", 16, 1, 128), {}, "IntSlider", 16),
        (("weight scale", 1.0, 0.1, 10.0), {"log": True}, "FloatLogSlider", 1.0),
        (("recurrent_scale (ρ)", 1.0, 0.1, 3.0, 0.05), {}, "FloatSlider", 1.0),
        (("lag", 40), {"options": (5, 10, 20, 40)}, "SelectionSlider", 40),
    ],
)
def test_slider_makes_every_kind_in_one_layout(args, kwargs, kind, value):
    s = widgets.slider(*args, **kwargs)
    assert type(s).__name__ == kind and s.value == value and s.description == args[0]
    assert s.style.description_width == widgets.LABEL_WIDTH and s.layout.width == widgets.CONTROL_WIDTH
    assert not s.continuous_update  # read when let go
    if kind == "FloatLogSlider":
        assert (s.min, s.max, s.base) == (-1, 1, 10)


def test_slider_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError, match="min < max"):
        widgets.slider("x", 1, 2, 1)
    with pytest.raises(ValueError, match="outside"):
        widgets.slider("x", 5, 0, 3)
    with pytest.raises(ValueError, match="min > 0"):
        widgets.slider("x", 1.0, 0.0, 2.0, log=True)
    with pytest.raises(ValueError, match="not one of the options"):
        widgets.slider("x", 3, options=(1, 2))


def _all_sliders(box):
    """Every slider in a widget box, however deep."""
    found = []
    for child in box.children:
        if type(child).__name__.endswith("Slider"):
            found.append(child)
        elif isinstance(child, ipywidgets.Box):
            found += _all_sliders(child)
    return found


def test_every_widget_of_the_series_uses_the_one_slider_layout(shown):
    boxes = [
        widgets.softmax_sliders(_softmax_and_jacobian),
        widgets.target_score_slider(_one_prediction, np.linspace(-6, 6, 25), {"loss": np.zeros(25)}),
        widgets.sampling_widget(lambda t, p, n: _view(prime=p, temperature=t), prime="ab"),
        widgets.live_training_widget(lambda **kw: None),
        widgets.unit_widget(lambda u: None, n_units=8),
        widgets.interactive(
            lambda n, s: None, n=widgets.slider("n", 1, 0, 3), s=widgets.slider("s", 1.0, 0.1, 10, log=True)
        ),
    ]
    sliders = [s for box in boxes for s in _all_sliders(box)]
    assert len(sliders) == 5 + 1 + 2 + 3 + 1 + 2
    assert {(s.layout.width, s.style.description_width) for s in sliders} == {
        (widgets.CONTROL_WIDTH, widgets.LABEL_WIDTH)
    }


# -- interactive: the notebooks' own slider cells ----------------------------------------------------


def test_interactive_calls_show_with_each_control_s_value_and_redraws_on_each_move(shown):
    calls = []
    box = widgets.interactive(
        lambda hidden_size, weight_scale: calls.append((hidden_size, weight_scale)),
        hidden_size=widgets.slider("hidden size", 16, 1, 128),
        weight_scale=widgets.slider("weight scale", 1.0, 0.1, 10.0, log=True),
    )
    size, scale, pane_box = box.children
    assert calls == [(16, 1.0)]  # drawn once on creation
    size.value = 33
    scale.value = 2.0
    assert calls[1:] == [(33, 1.0), (33, 2.0)] and pane_box is box._panes[0].box
    with pytest.raises(ValueError, match="at least one control"):
        widgets.interactive(print)
    with pytest.raises(ZeroDivisionError):  # a cell whose first drawing fails, fails
        widgets.interactive(lambda n: 1 / 0, n=widgets.slider("n", 1, 0, 3))


# -- before the cell runs: the figure, and a line, never a repr ---------------------------------------


def test_a_widget_s_display_data_carries_its_line_and_what_it_showed(ipython):
    def show(n):
        print(f"n: {n}")
        display(_closed_figure())

    from IPython.display import display

    box = widgets.interactive(show, n=widgets.slider("n", 3, 0, 9))
    bundle = box._repr_mimebundle_()
    assert bundle["text/plain"] == widgets.SLIDERS_NOTE and "VBox" not in bundle["text/plain"]
    assert bundle[widgets.WIDGET_VIEW_MIME]["model_id"] == box.model_id
    line, text, figure = bundle[widgets.BEFORE_RUN_MIME]["outputs"]
    assert line["data"]["text/plain"] == widgets.SLIDERS_NOTE and line["data"]["text/markdown"].startswith("*")
    assert text["text"] == "n: 3\n" and "image/png" in figure["data"]
    box.children[0].value = 5  # what a stored notebook shows is where the sliders start, when the cell ran
    assert pane_text(box) == "n: 5\n"


def test_before_run_outputs_swaps_each_widget_for_its_line_and_figure_and_keeps_a_bar_s_text(ipython):
    box = widgets.interactive(lambda n: print(n), n=widgets.slider("n", 3, 0, 9))
    widget_output = {"output_type": "display_data", "data": box._repr_mimebundle_(), "metadata": {}}
    bar_data = {widgets.WIDGET_VIEW_MIME: {"model_id": "x"}, "text/plain": "lags: 100%|██████████| 4/4"}
    bar_output = {"output_type": "display_data", "data": bar_data, "metadata": {}}
    plain = {"output_type": "stream", "name": "stdout", "text": "hello\n"}
    line, text, bar, kept = widgets.before_run_outputs([widget_output, bar_output, plain])
    assert line["data"]["text/plain"] == widgets.SLIDERS_NOTE and text["text"] == "3\n"
    assert bar["data"] == {"text/plain": "lags: 100%|██████████| 4/4"} and kept == plain
    assert widgets.before_run_outputs([plain]) == [plain]
    # a widget built with ipywidgets directly: its repr is never stored, a line stands for it
    slider = ipywidgets.IntSlider(description="n")
    (foreign,) = widgets.before_run_outputs([{"output_type": "display_data", "data": slider._repr_mimebundle_()}])
    assert foreign["data"]["text/plain"] == widgets.WIDGET_NOTE and "IntSlider" not in str(foreign)


def test_a_progress_bar_in_a_notebook_keeps_its_final_text(ipython):
    from rnn_core import progress

    with widgets._captured() as outputs:
        for _ in progress._notebook_bar_class()(range(4), desc="one run per lag"):
            pass
    (bar,) = outputs  # shown once, then updated in place when it closed
    assert bar["data"]["text/plain"].startswith("one run per lag: 100%") and "4/4" in bar["data"]["text/plain"]
    assert widgets.WIDGET_VIEW_MIME in bar["data"]  # still the live widget while the kernel runs


# -- 01, 02 ----------------------------------------------------------------------------------------


def _softmax_and_jacobian(o, temperature):
    o = np.asarray(o, dtype=float) / temperature
    y_hat = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
    return y_hat, (np.diag(y_hat) - np.outer(y_hat, y_hat)) / temperature


def test_softmax_sliders_show_the_notebook_s_numbers_and_redraw_on_each_move(shown):
    calls = []

    def compute(o, temperature):
        calls.append((list(o), temperature))
        return _softmax_and_jacobian(o, temperature)

    box = widgets.softmax_sliders(compute, scores=(2.0, 1.0, 0.1, -1.0), temperature=1.0)
    sliders = box.children[:-1]
    assert [s.description for s in sliders] == ["o_1", "o_2", "o_3", "o_4", "temperature"]
    assert all(s.style.description_width == widgets.LABEL_WIDTH and not s.continuous_update for s in sliders)
    assert calls == [([2.0, 1.0, 0.1, -1.0], 1.0)] and len(figures(shown)) == 1  # drawn once on creation
    sliders[4].value = 2.0
    sliders[0].value = 0.5
    assert calls[1:] == [([2.0, 1.0, 0.1, -1.0], 2.0), ([0.5, 1.0, 0.1, -1.0], 2.0)]
    y_hat, J = _softmax_and_jacobian([0.5, 1.0, 0.1, -1.0], 2.0)
    printed = pane_text(box).splitlines()[-1]
    assert printed == "temperature 2.00   y_hat = " + "  ".join(f"{p:.4f}" for p in y_hat)
    last = figures(shown)[-1]
    assert np.array_equal(last.axes[1].get_images()[0].get_array(), J)
    with pytest.raises(ValueError, match="four score sliders"):
        widgets.softmax_sliders(compute, scores=(1.0, 2.0))


def test_a_widget_whose_first_drawing_fails_raises_so_that_its_cell_fails():
    with pytest.raises(ZeroDivisionError):
        widgets.softmax_sliders(lambda o, t: 1 / 0)


def _one_prediction(o_y):
    o = np.array([o_y, 1.0, 0.5, -0.5])
    y_hat = np.exp(o - o.max()) / np.exp(o - o.max()).sum()
    return y_hat, -np.log(y_hat[0]), y_hat - np.eye(4)[0]


def test_target_score_slider_prints_and_draws_the_new_score(shown):
    grid = np.linspace(-6, 6, 25)
    box = widgets.target_score_slider(_one_prediction, grid, {"loss": [_one_prediction(s)[1] for s in grid]})
    slider = box.children[0]
    assert slider.description == "target score o_y" and slider.style.description_width == widgets.LABEL_WIDTH
    assert (slider.min, slider.max, slider.value) == (-6.0, 6.0, 0.0)
    slider.value = 3.0
    y_hat, loss, grad = _one_prediction(3.0)
    assert pane_text(box).splitlines()[-2:] == [
        f"target score o_y: 3.00   y_hat_y: {y_hat[0]:.4f}",
        f"loss -log y_hat_y: {loss:.4f}   gradient y_hat_y - 1: {grad[0]:.4f}",
    ]
    bars = figures(shown)[-1].axes[2]
    assert [p.get_height() for p in bars.patches] == pytest.approx(np.concatenate([y_hat, grad]))


# -- training progress -----------------------------------------------------------------------------


def _history(n, val_every=1000):
    steps = np.arange(1, n + 1)
    m = n // val_every
    return History(
        step=steps.tolist(),
        train_bpc=(6.5 - 3 * steps / max(n, 1)).tolist(),
        grad_norm=[1.0] * n,
        lr=[1e-3] * n,
        elapsed=(0.01 * steps).tolist(),
        val_step=[val_every * (i + 1) for i in range(m)],
        val_bpc=[5.0 - i for i in range(m)],
        val_elapsed=[0.0] * m,
    )


def _snapshot(step, steps=300, stopped="steps", message="", val_every=1000):
    # what rnn_core.train passes to its callback and returns, as far as the widgets read it
    h = _history(step, val_every)
    return SimpleNamespace(
        step=step,
        history=h,
        config=SimpleNamespace(steps=steps),
        stopped=stopped,
        message=message,
        train_bpc=h.train_bpc[-1] if step else None,
        val_bpc=h.val_bpc[-1] if h.val_bpc else None,
    )


def test_training_progress_moves_its_bar_and_says_what_it_does():
    progress = widgets.TrainingProgress("press Train")
    assert progress.label.value == "press Train"
    progress.start(text="training…")
    assert progress(_snapshot(150, val_every=100)) is None  # never asks training to stop
    assert (progress.bar.value, progress.bar.max) == (150, 300)
    assert progress.label.value == "training… step 150 of 300 · training bpc 3.50 · validation bpc 5.00 (step 100)"
    progress.finish(_snapshot(300, stopped="steps", message="finished 300 steps"))
    assert progress.bar.value == 300 and progress.bar.bar_style == "success"
    assert re.fullmatch(r"finished 300 steps \(\d+\.\d s\) · training bpc 3\.50", progress.label.value)


@pytest.mark.parametrize("stopped, style", [("interrupted", "warning"), ("time", "warning"), ("non-finite", "danger")])
def test_training_progress_shows_a_run_that_ended_early_where_it_ended(stopped, style):
    progress = widgets.TrainingProgress()
    progress(_snapshot(100))
    progress.finish(_snapshot(146, stopped=stopped, message=f"{stopped} at step 146: returning the model"))
    assert (progress.bar.value, progress.bar.bar_style) == (146, style)
    assert re.fullmatch(rf"{stopped} at step 146 \(\d+\.\d s\) · training bpc 3\.50", progress.label.value)


def test_live_plot_redraws_every_plot_every_steps_and_its_title_says_which_step(shown):
    live = widgets.LivePlot({"uniform": 6.5, "bigram": 3.5}, max_step=300, plot_every=100, smooth=10)
    assert live(_snapshot(50)) is None  # never asks training to stop
    assert shown == [live.progress.widget, live.fig]  # the bar and the figure, shown once
    assert live.progress.bar.value == 50 and "step 50 of 300" in live.progress.label.value
    assert live.progress.label.value.startswith("training… step 50")  # "starting…" only before step 1
    assert live.ax.get_title().startswith("the run up to step 50 of 300")
    live(_snapshot(150))  # not a multiple of plot_every: the bar moves, the figure stays
    assert live.progress.bar.value == 150 and len(live.ax.get_lines()[0].get_xdata()) == 50
    live(_snapshot(200))
    assert len(live.ax.get_lines()[0].get_xdata()) == 200 and live.ax.get_title().startswith("the run up to step 200")
    assert shown[2:] == [live.fig]  # updated in place


def test_live_plot_finish_draws_the_final_state_of_a_stopped_run(shown):
    live = widgets.LivePlot({"bigram": 3.5}, max_step=6000, plot_every=250)
    for step in range(50, 750, 50):
        live(_snapshot(step, steps=6000))
    assert live.ax.get_title().startswith("the run up to step 500 of 6,000")
    live.finish(_snapshot(746, steps=6000, stopped="interrupted", message="interrupted at step 746"))
    assert live.ax.get_title() == "the whole run: 746 of 6,000 steps (interrupted)"  # no stale "step 500"
    assert len(live.ax.get_lines()[0].get_xdata()) == 746 and live.progress.bar.value == 746
    assert live.progress.label.value.startswith("interrupted at step 746") and shown[-1] is live.fig


def test_live_plot_follows_rnn_core_train_also_when_it_is_stopped(shown):
    # the real trainer: its callback snapshots, and a stop (■) arriving at step 17 of 40
    text = "It is a truth universally acknowledged, that a single man in want of a wife. " * 40
    live = widgets.LivePlot({"bigram": 3.5}, max_step=40, plot_every=10)

    def stop_at_17(snapshot):
        live(snapshot)
        if snapshot.step == 15:
            raise KeyboardInterrupt  # what the notebook's stop button does

    result = rnn_core.train(
        text,
        hidden_size=8,
        batch_size=2,
        seq_length=8,
        steps=40,
        eval_every=10,
        callback=stop_at_17,
        callback_every=5,
        progress=False,
    )
    assert result.stopped == "interrupted" and result.step == 15
    live.finish(result)
    assert live.ax.get_title() == "the whole run: 15 of 40 steps (interrupted)"
    assert np.array_equal(live.ax.get_lines()[0].get_xdata(), np.arange(1, 16))
    assert live.progress.bar.value == 15 and live.progress.bar.bar_style == "warning"


# -- 06 · sampling -------------------------------------------------------------------------------


def _view(prime="ab", continuation="c a", temperature=0.8, error=None):
    chars = "ab c"
    probs = np.array([0.1, 0.6, 0.2, 0.1])
    if error:
        return {"error": error}
    return {
        "error": None,
        "temperature": temperature,
        "prime": prime,
        "continuation": continuation,
        "probs": probs,
        "top": np.argsort(-probs, kind="stable")[:3],
        "chars": chars,
    }


def test_print_sample_prints_the_text_or_the_error(capsys):
    widgets.print_sample(_view())
    assert capsys.readouterr().out == "temperature: 0.80\nabc a\n"
    widgets.print_sample(_view(error="prime must be a non-empty string"))
    assert capsys.readouterr().out == "cannot sample: prime must be a non-empty string\n"


def test_print_sample_wraps_long_lines_at_spaces_and_keeps_the_text_s_line_breaks(capsys):
    words = [f"word{i}" for i in range(60)]
    continuation = " ".join(words[:30]) + "\nshort line\n" + " ".join(words[30:])
    widgets.print_sample(_view(prime="Elizabeth ", continuation=continuation))
    lines = capsys.readouterr().out.splitlines()[1:]
    assert all(len(line) <= widgets.SAMPLE_WIDTH for line in lines)
    assert "short line" in lines  # the sample's own line break is kept
    assert " ".join(lines).split() == ["Elizabeth", *words[:30], "short", "line", *words[30:]]  # no word cut


def test_show_sample_view_prints_then_charts_the_top_characters(shown, capsys):
    widgets.show_sample_view(_view())
    assert capsys.readouterr().out == "temperature: 0.80\nabc a\n"
    (chart,) = figures(shown)
    assert [bar.get_width() for bar in chart.axes[0].patches] == pytest.approx([0.6, 0.2, 0.1])  # the top 3
    widgets.show_sample_view(_view(error="no"))
    assert len(figures(shown)) == 1  # no chart for an error


def shown_text(seen):
    return [obj.data for obj in seen if isinstance(obj, HTML)]


def _sample_view_fn(calls):
    def view_fn(temperature, prime, length):
        calls.append((temperature, prime, length))
        if not prime:
            return _view(error="prime must be a non-empty string")
        if set(prime) - set("ab c"):
            return _view(error="text contains characters not in the vocabulary (see vocab.chars)")
        return _view(prime=prime, temperature=temperature)

    return view_fn


def test_sampling_widget_reads_its_controls_and_redraws_sample_and_chart(shown):
    calls = []
    box = widgets.sampling_widget(_sample_view_fn(calls), prime="ab", temperature=0.5, length=40)
    temperature, length, prime, status, panes = box.children
    text_box, chart_box = panes.children
    assert calls == [(0.5, "ab", 40)] and len(figures(shown)) == 1
    assert all(w.style.description_width == widgets.LABEL_WIDTH for w in (temperature, length, prime))
    assert not prime.continuous_update and "Enter" in status.value  # the line under the box says how it is read
    temperature.value = 1.2
    length.value = 100
    assert calls[-1] == (1.2, "ab", 100) and len(figures(shown)) == 3
    text = shown_text(shown)[-1]
    assert text.startswith('<div style="') and text.endswith("temperature: 1.20\n<b>ab</b>c a</div>")
    assert panes.layout.flex_flow == "row wrap"  # the chart beside the text, or below it on a narrow page
    assert text_box.layout.min_width  # the text never squeezed to nothing


@pytest.mark.parametrize(
    "bad, says",
    [
        ("", "the priming text is empty: type at least one character"),
        ("ab€", "'€' is not among the characters the network was trained on. Use only: space and a b c"),
        ("zaz€", "'z', '€' are not among the characters"),
    ],
)
def test_a_bad_priming_text_keeps_sample_and_chart_and_says_what_is_allowed(ipython, bad, says):
    calls = []
    box = widgets.sampling_widget(_sample_view_fn(calls), prime="ab", temperature=0.5, length=40)
    _t, _n, prime, status, _panes = box.children
    text_pane, chart_pane = box._panes
    before = (text_pane.output.outputs, chart_pane.output.outputs)
    prime.value = bad
    assert calls[-1] == (0.5, bad, 40)
    assert (text_pane.output.outputs, chart_pane.output.outputs) == before  # nothing vanishes, the page stays
    assert "cannot sample: " in status.value and html.escape(says) in status.value and status.layout.min_height
    prime.value = "ba"  # a good one again: the message goes, a new sample comes
    assert "Enter" in status.value and text_pane.output.outputs != before[0]


def test_describe_chars_names_ranges_and_lists_the_rest():
    novel = string.ascii_letters.replace("X", "") + string.digits + " \n!,.;?“”"
    assert widgets.describe_chars(novel) == (
        "letters a–z and A–Z except X, digits 0–9, space, line break and ! , . ; ? “ ”"
    )
    assert widgets.describe_chars("ab c") == "space and a b c"
    assert widgets.describe_chars(string.digits + "x") == "digits 0–9 and x"


def test_the_sampling_widget_s_text_wraps_at_spaces_only_and_escapes_html(shown):
    widgets._show_sample_text(_view(prime="<Mr. ", continuation="Darcy & co"))
    (text,) = shown_text(shown)
    assert "word-break: normal" in text and "white-space: pre-wrap" in text  # not JupyterLab's break-all
    assert text.endswith("temperature: 0.80\n<b>&lt;Mr. </b>Darcy &amp; co</div>")


# -- 07 --------------------------------------------------------------------------------------------


def test_live_training_widget_trains_only_when_train_is_clicked(shown):
    calls = []

    def run_fn(hidden_size, learning_rate, seq_length, callback):
        calls.append((hidden_size, learning_rate, seq_length, button.disabled))
        for step in (10, 20):
            callback(_snapshot(step, steps=20))
        return _snapshot(20, steps=20, message="finished 20 steps")

    box = widgets.live_training_widget(run_fn, hidden_size=32, learning_rate=5e-3, seq_length=16)
    size, lr, seq, row, label, _pane = box.children
    button, bar = row.children
    assert [s.description for s in (size, lr, seq)] == ["hidden size", "learning rate", "sequence length"]
    assert all(s.style.description_width == widgets.LABEL_WIDTH for s in (size, lr, seq))
    assert box._repr_mimebundle_()["text/plain"].startswith("The sliders and the Train button appear")
    assert button.description == "Train" and calls == []  # nothing trains until asked
    assert bar.layout.visibility == "hidden"  # an empty bar says nothing: shown from the first click
    # the status line names the values the kernel has, as the sliders' readouts write them
    # each name with its value on one line (no-break spaces): the line wraps only between them
    pairs = ["hidden\u00a0size\u00a032", "learning\u00a0rate\u00a05.0e-3", "sequence\u00a0length\u00a016"]
    assert label.value == "press Train to train with " + " · ".join(pairs)
    size.value = 64
    lr.value = 0.015848931924611134  # 5e-3 moved by PageUp (5 steps of 0.1 decade), as the browser sends it
    assert calls == [] and label.value.replace("\u00a0", " ") == (
        "press Train to train with hidden size 64 · learning rate 1.6e-2 · sequence length 16"
    )
    button.click()
    assert calls == [(64, lr.value, 16, True)]  # the sliders' values; the button disabled while it trains
    assert (bar.value, bar.max, bar.bar_style) == (20, 20, "success") and label.value.startswith("finished 20 steps (")
    assert bar.layout.visibility == "visible"
    assert label.value.endswith(" s)")  # how it ended and how long it took; its printout gives the rest
    assert "bpc" not in label.value and "learning" not in label.value  # said once, in the run's printout
    assert not button.disabled


def test_a_slider_readout_as_the_browser_writes_it():
    lr = widgets.slider("learning rate", 5e-3, 1e-4, 1e-1, 0.1, log=True, readout_format=".1e")
    assert widgets._readout(lr) == "5.0e-3"
    lr.value = 0.1
    assert widgets._readout(lr) == "1.0e-1"
    assert widgets._readout(widgets.slider("hidden size", 32, 8, 256, 8)) == "32"
    assert widgets._readout(widgets.slider("rate", 0.25, 0.0, 1.0)) == "0.25"


def test_live_training_widget_with_the_real_trainer_and_a_failing_run(shown):
    text = "It is a truth universally acknowledged, that a single man in want of a wife. " * 40

    def run_fn(hidden_size, learning_rate, seq_length, callback):
        if hidden_size > 64:
            raise ValueError("too large for this test")
        return rnn_core.train(
            text,
            hidden_size=hidden_size,
            learning_rate=learning_rate,
            seq_length=seq_length,
            batch_size=2,
            steps=12,
            eval_every=0,
            callback=callback,
            callback_every=4,
            progress=False,
        )

    box = widgets.live_training_widget(run_fn, hidden_size=8, seq_length=8)
    size, (button, bar), label = box.children[0], box.children[3].children, box.children[4]
    button.click()
    assert (bar.value, bar.max, bar.bar_style) == (12, 12, "success") and label.value.startswith("finished 12 steps")
    size.value = 128
    button.click()  # outside a notebook the error is logged by ipywidgets; in one, it is shown under the widget
    assert bar.bar_style == "danger" and label.value == "the run failed: see the message below" and not button.disabled


def test_unit_widget_offers_the_shortlist_and_follows_the_slider(shown):
    drawn = []
    box = widgets.unit_widget(
        drawn.append, n_units=8, shortlist={"where in the word": 3, "inside a quotation": 5, "where in the line": 3}
    )
    slider, picks, hint, _pane = box.children
    assert slider.description == "hidden unit" and slider.max == 7
    assert slider.value == 3 and drawn == [3]  # starts at the first unit worth a look
    assert picks.options == (("3 · where in the word, where in the line", 3), ("5 · inside a quotation", 5))
    assert picks.value == 3 and "best follows" in hint.value
    picks.value = 5  # a click on a button moves the slider
    assert slider.value == 5 and drawn[-1] == 5
    slider.value = 6  # a unit off the list: no button is pressed
    assert drawn[-1] == 6 and picks.value is None
    with pytest.raises(ValueError, match="not a unit"):
        widgets.unit_widget(drawn.append, n_units=8, shortlist={"x": 8})


def test_unit_widget_without_a_shortlist_is_a_plain_slider():
    drawn = []
    box = widgets.unit_widget(drawn.append, n_units=4, unit=2)
    assert len(box.children) == 2 and box.children[0].value == 2 and drawn == [2]
