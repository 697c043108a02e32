"""The notebooks' sliders, buttons and live displays (ipywidgets), out of the reading path.

Each widget calls a function the notebook wrote, which computes what the widget shows, and draws
with ``rnn_core.plots``. What a reader sees, in every widget of the series:

- **No vanishing figure, no page jump.** A widget redraws into an output area whose old content
  stays on screen until the new content is complete, then is swapped for it in one go.
- **No silent wait.** Whatever trains shows a progress bar and a line of text
  ("training… step 400 of 1,000"), moved by ``rnn_core.train``'s callback, and at the end what
  happened ("finished 1000 steps (9.8 s)"); a run that is stopped (■) or ends early is drawn as
  it ended.
- Slow work runs when the reader asks for it (a Train button), not on every move of a slider.

The helpers ``show_*`` and ``print_sample`` print and display one state of a widget, so that a
notebook cell can show exactly what the widget shows. Importing this module needs ipywidgets
(``rnn_core`` itself does not import it).
"""

from __future__ import annotations

import html
import textwrap
import time

try:
    import ipywidgets as widgets
    import matplotlib  # noqa: F401  (the widgets draw with rnn_core.plots)
    from IPython import get_ipython
    from IPython.display import HTML, display
except ModuleNotFoundError as e:  # a kernel without the notebooks' extra: say what to install
    raise ModuleNotFoundError(
        f"rnn_core.widgets needs {e.name}, which is not installed: in the series' folder, "
        'pip install ".[notebooks]" (the notebooks\' extra: ipywidgets, matplotlib, IPython)',
        name=e.name,
    ) from e

from . import plots

__all__ = [
    "LivePlot",
    "SAMPLE_WIDTH",
    "TrainingProgress",
    "live_training_widget",
    "print_sample",
    "sampling_widget",
    "show_sample_view",
    "show_softmax",
    "show_target_score",
    "softmax_sliders",
    "target_score_slider",
    "unit_widget",
]

SAMPLE_WIDTH = 76  # characters per printed line of a sample (the novel's lines are at most 73)
_STYLE = {"description_width": "initial"}  # a control's label is never cut off


class _Pane:
    """An output area that shows new content only once it is complete.

    ``show(fn, ...)`` runs fn with its printed text and figures captured in a hidden ``Output``,
    then swaps that in for the one on screen: the old content stays visible while fn works.
    An exception raised by fn is shown in the pane (in a notebook) and kept in ``self.error``.
    """

    def __init__(self, **layout):
        self._outputs = (widgets.Output(), widgets.Output())
        self._front = 0
        self.box = widgets.Box([self._outputs[0]], layout=widgets.Layout(**layout))
        self.error = None

    def show(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) drawn into the pane; returns its result (None if it raised)."""
        back = self._outputs[1 - self._front]
        if get_ipython() is not None:  # (outside IPython there is nothing to clear)
            back.clear_output()
        result, self.error = None, None
        with back:
            try:
                result = fn(*args, **kwargs)
            except Exception as e:  # shown in the pane by Output (in a notebook), then swallowed there
                self.error = e
                raise
        self.box.children = (back,)
        self._front = 1 - self._front
        return result


def _redraw_on_change(controls, redraw):
    """Call redraw() whenever one of the controls changes value, and once now; an error in that
    first call is raised (so that a notebook cell building the widget fails visibly)."""
    for control in controls:
        control.observe(lambda _change: redraw(), names="value")
    error = redraw()
    if error is not None:
        raise error


# -- progress ------------------------------------------------------------------------------------


class TrainingProgress:
    """A progress bar and a line of text that follow ``rnn_core.train`` through its callback.

    Pass it as train's ``callback`` (with a ``callback_every`` of a few steps): each call with a
    snapshot (a ``TrainResult``) moves the bar to snapshot.step of snapshot.config.steps and writes
    "training… step k of n", with the latest training and validation bpc. It returns None, so
    training goes on. ``finish(result)`` shows how the run ended. Display ``widget``.
    """

    def __init__(self, text=""):
        self.bar = widgets.IntProgress(value=0, min=0, max=1, layout=widgets.Layout(width="260px"))
        self.label = widgets.Label(text)
        self.widget = widgets.HBox([self.bar, self.label], layout=widgets.Layout(align_items="center"))
        self._started = None

    def start(self, total=1, text="training…"):
        """An empty bar of ``total`` steps and ``text``; the clock for ``finish`` starts."""
        self.bar.bar_style = ""
        self.bar.max = max(1, int(total))
        self.bar.value = 0
        self.label.value = text
        self._started = time.perf_counter()

    def __call__(self, snapshot):
        if self._started is None:
            self._started = time.perf_counter()
        total = snapshot.config.steps
        self.bar.max = max(1, total)
        self.bar.value = min(snapshot.step, total)
        self.label.value = f"training… step {snapshot.step:,} of {total:,}" + _bpc_text(snapshot)
        return None

    def finish(self, result):
        """The bar at the run's last step, green if it ran all its steps (orange if stopped early, red if
        it diverged), and the trainer's message with the time taken and the final bpc."""
        total = result.config.steps
        self.bar.max = max(1, total)
        self.bar.value = min(result.step, total)
        self.bar.bar_style = {"steps": "success", "non-finite": "danger"}.get(result.stopped, "warning")
        took = "" if self._started is None else f" ({time.perf_counter() - self._started:.1f} s)"
        self.label.value = result.message.split(":")[0] + took + _bpc_text(result)  # the message's first clause
        self._started = None


def _bpc_text(snapshot):
    parts = []
    if snapshot.train_bpc is not None:
        parts.append(f"training bpc {snapshot.train_bpc:.2f}")
    if snapshot.val_bpc is not None:
        at = snapshot.history.val_step[-1] if snapshot.history.val_step else snapshot.step
        parts.append(f"validation bpc {snapshot.val_bpc:.2f}" + ("" if at == snapshot.step else f" (step {at:,})"))
    return "".join(f" · {p}" for p in parts)


class LivePlot:
    """A progress bar and the training curves, updated in place while ``rnn_core.train`` runs (notebook 06).

    Pass it (or a function that calls it) as train's ``callback``: each call with a snapshot of the
    run (a ``TrainResult``) moves the bar and its line of text, and every ``plot_every`` steps
    redraws ``plots.plot_training_curves``, titled with the step it shows. It returns None, so
    training goes on. When train returns, however it ended (■ included), call ``finish(result)``:
    the bar, its text and the figure then show the run's final state.
    """

    def __init__(self, baselines, max_step, plot_every=250, smooth=50):
        import matplotlib.pyplot as plt

        self.baselines, self.max_step, self.plot_every, self.smooth = baselines, max_step, plot_every, smooth
        self.progress = TrainingProgress()
        self.progress.start(max_step, "starting…")
        self.fig, self.ax = plt.subplots(figsize=(9, 4), layout="constrained")
        plt.close(self.fig)  # shown through a display handle, not by the inline backend at the end of the cell
        self.handle = None

    def __call__(self, snapshot):
        self.progress(snapshot)
        if self.handle is None or snapshot.step % self.plot_every == 0 or snapshot.step >= self.max_step:
            self._draw(
                snapshot,
                f"the run up to step {snapshot.step:,} of {self.max_step:,} "
                f"(curves redrawn every {self.plot_every:,} steps)",
            )
        return None

    def finish(self, result):
        """Show the run as it ended: the bar at its last step and the curves up to it."""
        self.progress.finish(result)
        ended = "" if result.stopped == "steps" else f" ({result.stopped})"
        self._draw(result, f"the whole run: {result.step:,} of {self.max_step:,} steps{ended}")

    def _draw(self, snapshot, title):
        self.ax.clear()
        plots.plot_training_curves(snapshot.history, self.baselines, self.max_step, smooth=self.smooth, ax=self.ax)
        self.ax.set_title(title, fontsize=11)
        if self.handle is None:  # the first draw: show the bar and the figure, updated in place from now on
            display(self.progress.widget)
            self.handle = display(self.fig, display_id=True)
        else:
            self.handle.update(self.fig)


# -- 01 · softmax, 02 · cross-entropy ----------------------------------------------------------


def show_softmax(y_hat, J, temperature=1.0):
    """Print y_hat, then show ``plots.plot_softmax`` (notebook 01, sections 8 and 10)."""
    print(f"temperature {temperature:.2f}   y_hat = " + "  ".join(f"{p:.4f}" for p in y_hat))
    display(plots.plot_softmax(y_hat, J, temperature))


def softmax_sliders(compute, scores=(2.0, 1.0, 0.1, -1.0), temperature=1.0):
    """Sliders for four scores and the temperature, showing ``show_softmax`` (notebook 01, section 10).

    compute(o, temperature) -> (y_hat, J) is the notebook's function. Returns a VBox: the five
    sliders, then the output (display it).
    """
    if len(scores) != 4:
        raise ValueError(f"softmax_sliders draws four score sliders; got {len(scores)} scores")
    sliders = [
        widgets.FloatSlider(
            value=v, min=-5.0, max=5.0, step=0.1, description=f"o_{k + 1}", continuous_update=False, style=_STYLE
        )
        for k, v in enumerate(scores)
    ]
    sliders.append(
        widgets.FloatLogSlider(
            value=temperature,
            base=10,
            min=-1,
            max=1,
            step=0.05,
            description="temperature",
            continuous_update=False,
            style=_STYLE,
        )
    )
    pane = _Pane()

    def redraw():
        o, tau = [s.value for s in sliders[:4]], sliders[4].value
        pane.show(lambda: show_softmax(*compute(o, tau), tau))
        return pane.error

    _redraw_on_change(sliders, redraw)
    return widgets.VBox([*sliders, pane.box])


def show_target_score(o_y, y_hat, loss, grad, o_grid, curves, y=0):
    """Print one prediction's loss and gradient, then show ``plots.plot_target_score`` (notebook 02, section 4)."""
    print(
        f"target score o_y: {o_y:.2f}   y_hat_y: {y_hat[y]:.4f}   loss -log y_hat_y: {loss:.4f}   "
        f"gradient y_hat_y - 1: {grad[y]:.4f}"
    )
    display(plots.plot_target_score(o_y, y_hat, grad, o_grid, curves, y=y))


def target_score_slider(compute, o_grid, curves, value=0.0, y=0):
    """A slider for the target's score, showing ``show_target_score`` (notebook 02, section 4).

    compute(o_y) -> (y_hat, loss, grad) is the notebook's function; o_grid and curves as for
    ``plots.plot_target_score``. Returns a VBox: the slider, then the output (display it).
    """
    slider = widgets.FloatSlider(
        value=value,
        min=float(min(o_grid)),
        max=float(max(o_grid)),
        step=0.1,
        description="target score o_y",
        continuous_update=False,
        style=_STYLE,
    )
    pane = _Pane()

    def redraw():
        o_y = slider.value
        pane.show(lambda: show_target_score(o_y, *compute(o_y), o_grid, curves, y=y))
        return pane.error

    _redraw_on_change([slider], redraw)
    return widgets.VBox([slider, pane.box])


# -- 06 · sampling ----------------------------------------------------------------------------


def _wrapped(text, width=SAMPLE_WIDTH):
    """text with each line longer than ``width`` broken at spaces (never inside a word); the text's own
    line breaks kept."""
    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) if len(line) > width else line
        for line in text.split("\n")
    )


def print_sample(view):
    """Print a sample, its lines broken at spaces past ``SAMPLE_WIDTH`` characters (notebook 06, section 5).

    view: the notebook's ``sample_view`` result, a dict with "error" (None or a message), and else
    "temperature", "prime", "continuation". The sampling widget shows the same text.
    """
    if view["error"]:
        print(f"cannot sample: {view['error']}")
        return
    print(f"temperature: {view['temperature']:.2f}")
    print(_wrapped(view["prime"] + view["continuation"]))


def _show_sample_text(view):
    """What the sampling widget shows beside its chart: ``print_sample``'s text, the priming text in
    bold, wrapped by the browser at spaces only, however narrow the page (a notebook's output area
    otherwise breaks long lines anywhere, even inside words)."""
    if view["error"]:
        print_sample(view)
        return
    style = (
        "font-family: var(--jp-code-font-family, monospace); font-size: var(--jp-code-font-size, 13px); "
        "white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; line-height: 1.4"
    )
    display(
        HTML(
            f'<div style="{style}">temperature: {view["temperature"]:.2f}\n'
            f"<b>{html.escape(view['prime'])}</b>{html.escape(view['continuation'])}</div>"
        )
    )


def _show_chart(view):
    if not view["error"]:
        display(
            plots.plot_next_char_probs(
                view["probs"], view["chars"], view["prime"], view["temperature"], top=len(view["top"])
            )
        )


def show_sample_view(view):
    """``print_sample`` and then the next-character chart below it (notebook 06, section 5)."""
    print_sample(view)
    _show_chart(view)


def sampling_widget(view_fn, prime, temperature=0.8, length=300):
    """Sliders for the temperature and the length and a box for the priming text, showing the sample
    beside the chart of the next character's probabilities (notebook 06, section 5).

    view_fn(temperature, prime, length) -> a view dict (the notebook's ``sample_view``). The priming
    text is read when Enter is pressed (the box says so). The sample wraps at spaces only, at any
    width of the page; a view with an error shows its message, and no chart. Returns the widget box.
    """
    temperature_slider = widgets.FloatSlider(
        value=temperature, min=0.0, max=2.0, step=0.05, description="temperature", continuous_update=False, style=_STYLE
    )
    length_slider = widgets.IntSlider(
        value=length, min=20, max=1000, step=20, description="length", continuous_update=False, style=_STYLE
    )
    prime_box = widgets.Text(
        value=prime,
        description="priming text",
        continuous_update=False,
        style=_STYLE,
        layout=widgets.Layout(width="420px"),
    )
    enter = widgets.Label("press Enter to sample from it")
    text_pane = _Pane(flex="1 1 24em", min_width="16em", margin="0 16px 0 0")
    chart_pane = _Pane(flex="0 0 auto")

    def redraw():
        view = view_fn(temperature_slider.value, prime_box.value, length_slider.value)
        text_pane.show(_show_sample_text, view)
        chart_pane.show(_show_chart, view)  # an error clears the old chart
        return text_pane.error or chart_pane.error

    _redraw_on_change([temperature_slider, length_slider, prime_box], redraw)
    return widgets.VBox(
        [
            widgets.HBox([temperature_slider, length_slider]),
            widgets.HBox([prime_box, enter], layout=widgets.Layout(align_items="center")),
            widgets.HBox(
                [text_pane.box, chart_pane.box],  # side by side, or the chart below on a narrow page
                layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start"),
            ),
        ]
    )


# -- 07 · what the network learned -------------------------------------------------------------


def live_training_widget(run_fn, hidden_size=32, learning_rate=5e-3, seq_length=32):
    """Sliders for the hidden size, the learning rate and the sequence length, and a Train button
    (notebook 07, section 1: "Train one yourself").

    run_fn(hidden_size=..., learning_rate=..., seq_length=..., callback=...) is the notebook's
    function: it trains (passing ``callback`` on to ``rnn_core.train``), prints, draws, and returns
    the ``TrainResult``. Moving a slider trains nothing; a click on Train does, with a progress bar,
    while the previous run's figure stays on screen until the new one is drawn. Returns the widget box.
    """
    size_slider = widgets.IntSlider(
        value=hidden_size, min=8, max=256, step=8, description="hidden size", continuous_update=False, style=_STYLE
    )
    lr_slider = widgets.FloatLogSlider(
        value=learning_rate,
        base=10,
        min=-4,
        max=-1,
        step=0.1,
        description="learning rate",
        readout_format=".1e",
        continuous_update=False,
        style=_STYLE,
    )
    seq_slider = widgets.IntSlider(
        value=seq_length, min=4, max=128, step=4, description="sequence length", continuous_update=False, style=_STYLE
    )
    # no icon: its glyph comes from a web font that the static site would have to serve as well
    button = widgets.Button(description="Train", button_style="primary", tooltip="train a network with these settings")
    progress = TrainingProgress("press Train to train a network with these settings")
    pane = _Pane()

    def settings_changed(_change):
        if not button.disabled:
            progress.bar.bar_style = ""
            progress.label.value = "settings changed: press Train to train with them"

    def train(_button=None):
        button.disabled = True
        progress.start(text="training…")
        result = None
        try:
            result = pane.show(
                run_fn,
                hidden_size=size_slider.value,
                learning_rate=lr_slider.value,
                seq_length=seq_slider.value,
                callback=progress,
            )
        finally:
            button.disabled = False
            if result is None:  # run_fn raised: its traceback is in the pane
                progress.bar.bar_style = "danger"
                progress.label.value = "the run failed: see the message below"
            else:
                progress.finish(result)

    for slider in (size_slider, lr_slider, seq_slider):
        slider.observe(settings_changed, names="value")
    button.on_click(train)
    return widgets.VBox(
        [
            widgets.HBox([size_slider, lr_slider, seq_slider]),
            widgets.HBox([button, progress.widget], layout=widgets.Layout(align_items="center")),
            pane.box,
        ]
    )


def unit_widget(show_fn, n_units, unit=None, shortlist=None):
    """A "hidden unit" slider (0 .. n_units - 1) showing show_fn(unit), with buttons for the units worth
    a look (notebook 07, section 2).

    show_fn(unit) is the notebook's function that prints a caption and shows the passage coloured
    by the unit. shortlist: {what the unit follows: unit}, e.g. the unit that best follows each
    property the notebook asks about; a button per unit jumps to it. unit: where the slider starts
    (default: the first unit of the shortlist, else 0). Returns the widget box.
    """
    shortlist = dict(shortlist or {})
    for what, u in shortlist.items():
        if not 0 <= u < n_units:
            raise ValueError(f"shortlist unit {u} ({what}) is not a unit of 0 .. {n_units - 1}")
    by_unit = {}
    for what, u in shortlist.items():  # a unit that follows two things gets one button
        by_unit.setdefault(int(u), []).append(what)
    if unit is None:
        unit = next(iter(by_unit), 0)
    slider = widgets.IntSlider(
        value=unit, min=0, max=n_units - 1, step=1, description="hidden unit", continuous_update=False, style=_STYLE
    )
    picks = widgets.ToggleButtons(
        options=[(f"{u} · {', '.join(whats)}", u) for u, whats in by_unit.items()],
        value=unit if unit in by_unit else None,
        description="worth a look:",
        style={"description_width": "initial", "button_width": "auto"},
    )
    hint = widgets.HTML(
        "each button: the unit that best follows that property (correlation in the caption); "
        "red where the unit is positive, blue where it is negative"
    )
    pane = _Pane()

    def redraw():
        pane.show(show_fn, slider.value)
        picks.value = slider.value if slider.value in by_unit else None
        return pane.error

    def jump(change):
        if change["new"] is not None:
            slider.value = change["new"]

    picks.observe(jump, names="value")
    _redraw_on_change([slider], redraw)
    rows = [slider, picks, hint] if by_unit else [slider]
    return widgets.VBox([*rows, pane.box])
