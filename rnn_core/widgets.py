"""The notebooks' sliders, buttons and live displays (ipywidgets), out of the reading path.

Each widget calls a function the notebook wrote, which computes what the widget shows, and draws
with ``rnn_core.plots``. What a reader sees, in every widget of the series:

- **Before the cell runs, the figure, not a repr.** A notebook stored by
  ``tools/execute_notebooks.py`` holds, where a widget was, a line saying that running the cell
  brings the sliders, then what the widget showed at its starting position (its printed text and
  its figure) as ordinary outputs, which JupyterLab, VS Code, GitHub and the static site all draw.
  A widget carries them in its display data (``BEFORE_RUN_MIME``); ``before_run_outputs`` makes
  the swap. Its plain-text form is that line too, never ``VBox(children=...``.
- **No vanishing figure, no page jump.** A widget redraws into an output area whose old content
  stays on screen until the new content is complete, then is swapped for it in one go; a figure
  comes with its size in pixels, so the page keeps its place while the browser decodes it.
- **One layout for every control** (``slider``): the same label width, the same track (about 320
  pixels) and room for the readout, so that no track is shorter than another and a longer
  readout does not move it.
- **No silent wait.** Whatever trains shows a progress bar and a line of text
  ("training… step 400 of 1,000"), moved by ``rnn_core.train``'s callback, and at the end what
  happened ("finished 1000 steps (9.8 s)"); a run that is stopped (■) or ends early is drawn as
  it ended, and a stored notebook keeps that last line.
- Slow work runs when the reader asks for it (a Train button), not on every move of a slider.

A notebook's own slider cell uses ``interactive(show, name=slider(...), ...)``: show(**values)
prints and draws one state, and the widget redraws it on every move, as above. The helpers
``show_*`` and ``print_sample`` print and display one state of a widget, so that a notebook cell
can show exactly what the widget shows. Importing this module needs ipywidgets (``rnn_core``
itself does not import it).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import html
import math
import re
import string
import sys
import textwrap
import time
import traceback

try:
    import ipywidgets as widgets
    import matplotlib  # noqa: F401  (the widgets draw with rnn_core.plots)
    from IPython import get_ipython
    from IPython.core.displaypub import DisplayPublisher
    from IPython.display import HTML, display
except ModuleNotFoundError as e:  # a kernel without the notebooks' extra: say what to install
    raise ModuleNotFoundError(
        f"rnn_core.widgets needs {e.name}, which is not installed: in the series' folder, "
        'pip install ".[notebooks]" (the notebooks\' extra: ipywidgets, matplotlib, IPython)',
        name=e.name,
    ) from e

from . import plots

__all__ = [
    "BEFORE_RUN_MIME",
    "LivePlot",
    "SAMPLE_WIDTH",
    "TrainingProgress",
    "before_run_outputs",
    "interactive",
    "live_training_widget",
    "print_sample",
    "sampling_widget",
    "show_sample_view",
    "show_softmax",
    "show_target_score",
    "slider",
    "softmax_sliders",
    "target_score_slider",
    "unit_widget",
    "wrapped",
]

SAMPLE_WIDTH = 76  # characters per printed line of a sample (the novel's lines are at most 73)

# -- one layout for every control --------------------------------------------------------------

LABEL_WIDTH = "150px"  # every control's label: the longest ("recurrent_scale (ρ)") fits, none is cut
CONTROL_WIDTH = "570px"  # label, track and readout: the track is then 320 px in JupyterLab
_STYLE = {"description_width": LABEL_WIDTH}


def _layout(**extra):
    return widgets.Layout(width=CONTROL_WIDTH, max_width="100%", **extra)


def slider(description, value, min=None, max=None, step=None, *, log=False, options=None, readout_format=None):
    """A slider in the series' one layout, read when it is let go (not while it is dragged).

    description: its label; value: where it starts. Then one of:
    - min, max (and step): an IntSlider when all of them are integers (step 1 by default), else a
      FloatSlider (step (max - min) / 100 by default, readout "0.00");
    - log=True: a FloatLogSlider from min to max, both > 0, step in powers of ten (default 0.05,
      readout in 3 significant digits): for a learning rate, a scale;
    - options: a sequence of values, one stop each (a SelectionSlider), e.g. the lags trained at.
    readout_format: how the value is written beside the track (a format spec, e.g. ".1e").
    """
    common = dict(description=description, continuous_update=False, style=_STYLE, layout=_layout())
    if options is not None:
        options = list(options)
        if value not in options:
            raise ValueError(f"slider {description!r}: value {value!r} is not one of the options {options}")
        return widgets.SelectionSlider(options=options, value=value, **common)
    if min is None or max is None or not min < max:
        raise ValueError(f"slider {description!r}: give min < max (got min={min!r}, max={max!r}), or options")
    if not min <= value <= max:
        raise ValueError(f"slider {description!r}: value {value!r} is outside [{min!r}, {max!r}]")
    if log:
        if min <= 0:
            raise ValueError(f"slider {description!r}: a log slider needs min > 0, got {min!r}")
        return widgets.FloatLogSlider(
            value=value,
            base=10,
            min=math.log10(min),
            max=math.log10(max),
            step=0.05 if step is None else step,
            readout_format=readout_format or ".3g",
            **common,
        )
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (value, min, max, step or 1)):
        return widgets.IntSlider(value=value, min=min, max=max, step=step or 1, **common)
    return widgets.FloatSlider(
        value=value,
        min=min,
        max=max,
        step=(max - min) / 100 if step is None else step,
        readout_format=readout_format or ".2f",
        **common,
    )


# -- capturing what a function shows -----------------------------------------------------------


class _Publisher(DisplayPublisher):
    """Keeps what is displayed, as notebook outputs, instead of sending it to the front end (an update
    of something displayed with a display_id replaces it, as in a notebook)."""

    def __init__(self, outputs):
        super().__init__()
        self.outputs = outputs
        self._by_id = {}  # display_id -> its output

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        output = {"output_type": "display_data", "data": dict(data), "metadata": dict(metadata or {})}
        display_id = (transient or {}).get("display_id")
        if update:
            if display_id in self._by_id:
                self._by_id[display_id].update(output)
            return
        self.outputs.append(output)
        if display_id is not None:
            self._by_id[display_id] = output

    def clear_output(self, wait=False):
        self.outputs.clear()


class _Stream:
    """A file whose writes become stream outputs (consecutive writes join one output)."""

    def __init__(self, outputs, name):
        self.outputs, self.name = outputs, name

    def write(self, text):
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last["output_type"] == "stream" and last["name"] == self.name:
            last["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": self.name, "text": text})
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


@contextlib.contextmanager
def _captured():
    """Inside: printing and displaying are kept, in order, as notebook outputs (the yielded list)."""
    outputs = []
    shell = get_ipython()
    saved = sys.stdout, sys.stderr, getattr(shell, "display_pub", None)
    sys.stdout, sys.stderr = _Stream(outputs, "stdout"), _Stream(outputs, "stderr")
    if shell is not None:
        shell.display_pub = _Publisher(outputs)
    try:
        yield outputs
    finally:
        sys.stdout, sys.stderr = saved[:2]
        if shell is not None:
            shell.display_pub = saved[2]


def _png_size(data):
    """(width, height) in pixels of a base64 PNG, read from its header; None if it is not one."""
    try:
        head = base64.b64decode(data[:44])
    except (ValueError, TypeError):
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n" or len(head) < 24:
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _sized(output):
    """output with each PNG's size in its metadata: JupyterLab then reserves the image's place before
    the browser has decoded it, and nothing below it moves."""
    data = output.get("data", {})
    size = _png_size(data["image/png"]) if isinstance(data.get("image/png"), str) else None
    if size is not None and "image/png" not in output["metadata"]:
        output["metadata"]["image/png"] = {"width": size[0], "height": size[1]}
    return output


def _error_output(error):
    """An exception as a notebook's error output (coloured as a cell's traceback, in IPython)."""
    shell = get_ipython()
    if shell is not None:
        lines = shell.InteractiveTB.structured_traceback(type(error), error, error.__traceback__)
    else:
        lines = traceback.format_exception(error)
    return {"output_type": "error", "ename": type(error).__name__, "evalue": str(error), "traceback": list(lines)}


class _Pane:
    """An output area that shows new content only once it is complete.

    ``show(fn, ...)`` runs fn with what it prints and displays kept aside, then puts all of it in
    the area at once: the old content stays on screen while fn works, and is replaced in one
    step. ``outputs`` is what the area shows, as notebook outputs. An exception raised by fn is
    shown in the pane, under what fn showed before it, and kept in ``self.error``; outside IPython
    it is raised.
    """

    def __init__(self, **layout):
        self.output = widgets.Output()
        self.box = widgets.Box([self.output], layout=widgets.Layout(**layout))
        self.outputs = []
        self.error = None

    def show(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) drawn into the pane; returns its result (None if it raised)."""
        result, error = None, None
        before = _open_figures()
        with _captured() as outputs:
            try:
                result = fn(*args, **kwargs)
                _show_new_figures(before)
            except Exception as e:
                error = e
        if error is not None:
            outputs.append(_error_output(error))
        self.outputs = [_sized(o) for o in outputs]
        self.output.outputs = tuple(self.outputs)
        self.error = error
        if error is not None and get_ipython() is None:
            raise error
        return result


def _open_figures():
    """The numbers of pyplot's open figures (none if pyplot was never imported)."""
    plt = sys.modules.get("matplotlib.pyplot")
    return set(plt.get_fignums()) if plt is not None else set()


def _show_new_figures(before):
    """Display and close the pyplot figures opened since ``before``: a function that draws with plain
    pyplot calls (``plt.plot(...)``) shows its figure in the pane, as it would at the end of a cell."""
    plt = sys.modules.get("matplotlib.pyplot")
    for number in sorted(_open_figures() - before):
        fig = plt.figure(number)
        display(fig)
        plt.close(fig)


def _redraw_on_change(controls, redraw):
    """Call redraw() whenever one of the controls changes value, and once now; an error in that
    first call is raised (so that a notebook cell building the widget fails visibly)."""
    for control in controls:
        control.observe(lambda _change: redraw(), names="value")
    error = redraw()
    if error is not None:
        raise error


# -- what a stored notebook shows before its cell runs -------------------------------------------

BEFORE_RUN_MIME = "application/vnd.rnn-core.before-run+json"
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
SLIDERS_NOTE = "The sliders appear when this cell runs (Run All, or Shift+Enter here). Where they start:"


class _Live(widgets.VBox):
    """A widget box that, displayed, also carries what stands for it before its cell runs: ``note``
    (its plain-text form too) and the outputs of its panes at that moment (``BEFORE_RUN_MIME``)."""

    def __init__(self, children, panes=(), note=SLIDERS_NOTE, **kwargs):
        super().__init__(children, **kwargs)
        self._panes, self._note = tuple(panes), note
        self.add_class("rnn-core-widget")  # how the browser test knows the library laid it out

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        note = {"output_type": "display_data", "data": {"text/markdown": f"*{self._note}*", "text/plain": self._note}}
        note["metadata"] = {}
        shown = [output for pane in self._panes for output in pane.outputs]
        bundle["text/plain"] = self._note
        bundle[BEFORE_RUN_MIME] = {"outputs": [note, *shown]}
        return bundle

    def sliders(self):
        """The widget's sliders, in order (the static site's build moves them to draw each position:
        site/rnn_sliders.py)."""
        kinds = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider, widgets.SelectionSlider)
        return [child for child in self.children if isinstance(child, kinds)]

    def shown(self):
        """What the widget's panes show now, as notebook outputs (none for a widget without panes)."""
        return [dict(output) for pane in self._panes for output in pane.outputs]


WIDGET_NOTE = "The widget appears when this cell runs (Run All, or Shift+Enter here)."
_REPR = re.compile(r"^\w+\((children|value|layout|description|options|outputs)=")  # "VBox(children=(..."


def _tqdm_text(model_id, state):
    """The final text of a tqdm notebook bar (an HBox of an HTML, a progress bar and an HTML) from the
    widgets' state as nbclient records it, e.g. "lags: 100%|██████████| 4/4 [00:12<00:00, 3.1s/it]";
    None if the model is not such a bar."""
    box = state.get(model_id, {})
    children = box.get("state", {}).get("children", [])
    if box.get("model_name") != "HBoxModel" or len(children) != 3:
        return None
    left, bar, right = (state.get(str(c).removeprefix("IPY_MODEL_"), {}) for c in children)
    names = [m.get("model_name") for m in (left, bar, right)]
    if names[0] != "HTMLModel" or names[2] != "HTMLModel" or names[1] not in ("FloatProgressModel", "IntProgressModel"):
        return None
    bar_state = bar.get("state", {})
    span = (bar_state.get("max", 1) or 1) - bar_state.get("min", 0)
    filled = round(10 * (bar_state.get("value", 0) - bar_state.get("min", 0)) / span) if span else 10
    blocks = "█" * max(0, min(10, filled)) + " " * (10 - max(0, min(10, filled)))
    left_text, right_text = (html.unescape(m["state"].get("value", "")).replace("\u2007", " ") for m in (left, right))
    return f"{left_text}|{blocks}|{right_text}"


def before_run_outputs(outputs, widget_state=None):
    """A code cell's outputs (nbformat dicts) as a notebook stores them for a reader who has not run it.

    Live widgets do not survive the kernel. A widget of this module is replaced by its before-run
    outputs: its line, then what it showed when the cell ran (text, figure). Any other widget keeps
    its text: a progress bar's, which ``progress_bar`` and ``TrainingProgress`` leave at the final
    state (a tqdm bar shown otherwise is read from ``widget_state``, the widgets' state as nbclient
    records it, when given), or, for a widget whose text is its repr ("VBox(children=..."),
    ``WIDGET_NOTE``. Outputs without a widget are returned unchanged. Used by
    tools/execute_notebooks.py.
    """
    kept = []
    for output in outputs:
        data = output.get("data", {})
        if WIDGET_VIEW_MIME not in data:
            kept.append(output)
        elif BEFORE_RUN_MIME in data:
            kept += [dict(o) for o in data[BEFORE_RUN_MIME]["outputs"]]
        else:
            rest = {k: v for k, v in data.items() if k not in (WIDGET_VIEW_MIME, BEFORE_RUN_MIME)}
            final = _tqdm_text(data[WIDGET_VIEW_MIME].get("model_id"), widget_state or {})
            text = rest.get("text/plain", "")
            if final is not None:
                rest = {"text/plain": final}
            elif _REPR.match("".join(text) if isinstance(text, list) else text):
                rest = {"text/markdown": f"*{WIDGET_NOTE}*", "text/plain": WIDGET_NOTE}
            if rest:
                kept.append({**output, "data": rest})
    return kept


# -- progress ------------------------------------------------------------------------------------


class _ProgressRow(widgets.HBox):
    """A bar and its line of text, laid out as tqdm lays out its notebook bar; its plain-text form
    (what a stored notebook keeps of it) is the line of text."""

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.children[-1].value
        return bundle


class TrainingProgress:
    """A progress bar and a line of text that follow ``rnn_core.train`` through its callback.

    Pass it as train's ``callback`` (with a ``callback_every`` of a few steps): each call with a
    snapshot (a ``TrainResult``) moves the bar to snapshot.step of snapshot.config.steps and writes
    "training… step k of n", with the latest training and validation bpc. It returns None, so
    training goes on. ``finish(result)`` shows how the run ended. The bar looks like the series'
    other progress bars (tqdm's); show it with ``show()``, or put ``widget`` in a widget box. Shown
    with ``show()``, a stored notebook keeps its last line.
    """

    def __init__(self, text=""):
        self.bar = widgets.IntProgress(value=0, min=0, max=1, layout=widgets.Layout(flex="2", min_width="8em"))
        # an HTML line, not a Label: a Label cuts a long line at the output's edge, this one wraps
        self.label = widgets.HTML(text, layout=widgets.Layout(flex="3 1 16em", margin="0 0 0 8px"))
        # tqdm's layout for a notebook bar: the whole width, the bar growing, the text wrapping under it if narrow
        self.widget = _ProgressRow(
            [self.bar, self.label], layout=widgets.Layout(width="100%", display="inline-flex", flex_flow="row wrap")
        )
        self._started = None
        self._doing = "training…"
        self._handle = None

    def show(self):
        """Display the bar; ``finish`` then updates what a stored notebook keeps of it."""
        self._handle = display(self.widget, display_id=True)

    def start(self, total=1, text="training…", doing=None):
        """An empty bar of ``total`` steps and ``text``; the clock for ``finish`` starts. ``doing``: what
        each step's line then starts with (by default ``text``, if it ends in "…", else "training…")."""
        self.bar.bar_style = ""
        self.bar.max = max(1, int(total))
        self.bar.value = 0
        self.label.value = text
        self._doing = doing or (text if text.endswith("…") else "training…")
        self._started = time.perf_counter()

    def __call__(self, snapshot):
        if self._started is None:
            self._started = time.perf_counter()
        total = snapshot.config.steps
        self.bar.max = max(1, total)
        self.bar.value = min(snapshot.step, total)
        self.label.value = f"{self._doing} step {snapshot.step:,} of {total:,}" + _bpc_text(snapshot)
        return None

    def finish(self, result, then="", bpc=True):
        """The bar at the run's last step, green if it ran all its steps (orange if stopped early, red if
        it diverged), and the trainer's message with the time taken and (``bpc``) the final bpc, then
        ``then``."""
        total = result.config.steps
        self.bar.max = max(1, total)
        self.bar.value = min(result.step, total)
        self.bar.bar_style = {"steps": "success", "non-finite": "danger"}.get(result.stopped, "warning")
        took = "" if self._started is None else f" ({time.perf_counter() - self._started:.1f} s)"
        scores = _bpc_text(result) if bpc else ""
        self.label.value = result.message.split(":")[0] + took + scores + then  # the message's first clause
        self._started = None
        if self._handle is not None:
            self._handle.update(self.widget)  # the stored notebook's copy: this last line


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
    the bar, its text and the figure then show the run's final state (also in the stored notebook).
    """

    def __init__(self, baselines, max_step, plot_every=250, smooth=50):
        import matplotlib.pyplot as plt

        self.baselines, self.max_step, self.plot_every, self.smooth = baselines, max_step, plot_every, smooth
        self.progress = TrainingProgress()
        self.progress.start(max_step, "starting…", doing="training…")
        self.fig, self.ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
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
            self.progress.show()
            self.handle = display(self.fig, display_id=True)
        else:
            self.handle.update(self.fig)


# -- 01 · softmax, 02 · cross-entropy ----------------------------------------------------------


def show_softmax(y_hat, J, temperature=1.0):
    """Print y_hat, then show ``plots.plot_softmax`` (notebook 01, sections 8 and 10)."""
    print(f"temperature {temperature:.2f}   y_hat = " + "  ".join(f"{y:.4f}" for y in y_hat))
    display(plots.plot_softmax(y_hat, J, temperature))


def interactive(show, **controls):
    """show(**values) redrawn whenever a control moves: the notebook's own slider cell.

    controls: name=control, e.g. ``hidden_size=slider("hidden size", 16, 1, 128)``; show is called
    with each control's value under its name, prints and displays what the sliders show (a line of
    numbers, a figure). The old output stays on screen until the new one is complete. Returns the
    widget box, the controls above the output: make it the cell's last expression. Before the cell
    runs, a stored notebook shows what show drew at the controls' starting values.
    """
    if not controls:
        raise ValueError("interactive needs at least one control: interactive(show, name=slider(...))")
    pane = _Pane()

    def redraw():
        pane.show(show, **{name: control.value for name, control in controls.items()})
        return pane.error

    _redraw_on_change(list(controls.values()), redraw)
    return _Live([*controls.values(), pane.box], [pane])


def softmax_sliders(compute, scores=(2.0, 1.0, 0.1, -1.0), temperature=1.0):
    """Sliders for four scores and the temperature, showing ``show_softmax`` (notebook 01, section 10).

    compute(o, temperature) -> (y_hat, J) is the notebook's function. Returns a VBox: the five
    sliders, then the output (display it).
    """
    if len(scores) != 4:
        raise ValueError(f"softmax_sliders draws four score sliders; got {len(scores)} scores")
    sliders = [slider(f"o_{k + 1}", float(v), -5.0, 5.0, 0.1) for k, v in enumerate(scores)]
    sliders.append(slider("temperature", temperature, 0.1, 10.0, log=True))
    pane = _Pane()

    def redraw():
        o, tau = [s.value for s in sliders[:4]], sliders[4].value
        pane.show(lambda: show_softmax(*compute(o, tau), tau))
        return pane.error

    _redraw_on_change(sliders, redraw)
    return _Live([*sliders, pane.box], [pane])


def show_target_score(o_y, y_hat, loss, grad, o_grid, curves, y=0):
    """Print one prediction's loss and gradient, then show ``plots.plot_target_score`` (notebook 02, section 4)."""
    # two short lines: a narrow output area (a phone, a side panel) breaks a long one inside a word
    print(f"target score o_y: {o_y:.2f}   y_hat_y: {y_hat[y]:.4f}")
    print(f"loss -log y_hat_y: {loss:.4f}   gradient y_hat_y - 1: {grad[y]:.4f}")
    display(plots.plot_target_score(o_y, y_hat, grad, o_grid, curves, y=y))


def target_score_slider(compute, o_grid, curves, value=0.0, y=0):
    """A slider for the target's score, showing ``show_target_score`` (notebook 02, section 4).

    compute(o_y) -> (y_hat, loss, grad) is the notebook's function; o_grid and curves as for
    ``plots.plot_target_score``. Returns a VBox: the slider, then the output (display it).
    """
    score = slider("target score o_y", float(value), float(min(o_grid)), float(max(o_grid)), 0.1)
    pane = _Pane()

    def redraw():
        o_y = score.value
        pane.show(lambda: show_target_score(o_y, *compute(o_y), o_grid, curves, y=y))
        return pane.error

    _redraw_on_change([score], redraw)
    return _Live([score, pane.box], [pane])


# -- 06 · sampling ----------------------------------------------------------------------------


def wrapped(text, width=SAMPLE_WIDTH):
    """text with each line longer than ``width`` broken at spaces (never inside a word); the text's own
    line breaks kept. For printing a sample: a notebook's output area breaks a long line anywhere,
    even inside a word."""
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
        print(wrapped(f"cannot sample: {view['error']}"))
        return
    print(f"temperature: {view['temperature']:.2f}")
    print(wrapped(view["prime"] + view["continuation"]))


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


def _ranges(chars, alphabet, name):
    """(what to call the characters of ``alphabet`` found in chars, the rest of chars): "a–z", or
    "A–Z except X" when a few are missing, or nothing when most are."""
    found = [c for c in alphabet if c in chars]
    rest = [c for c in chars if c not in alphabet]
    if len(found) < 0.8 * len(alphabet):
        return None, chars
    missing = [c for c in alphabet if c not in chars]
    return name + (f" except {' '.join(missing)}" if missing else ""), rest


def describe_chars(chars):
    """The characters of a vocabulary in words, for a message: "letters a–z and A–Z, digits 0–9,
    space, line break and ! ' , - . ; ? “ ”" (runs of letters and digits named as ranges)."""
    chars = sorted(set(chars))
    named = []
    letters = []
    for alphabet, name in ((string.ascii_lowercase, "a–z"), (string.ascii_uppercase, "A–Z")):
        found, chars = _ranges(chars, alphabet, name)
        if found:
            letters.append(found)
    if letters:
        named.append("letters " + " and ".join(letters))
    found, chars = _ranges(chars, string.digits, "0–9")
    if found:
        named.append("digits " + found)
    for ch, word in ((" ", "space"), ("\n", "line break"), ("\t", "tab")):
        if ch in chars:
            named.append(word)
            chars = [c for c in chars if c != ch]
    if chars:
        named.append(" ".join(chars))
    return ", ".join(named[:-1]) + (" and " if len(named) > 1 else "") + named[-1] if named else "none"


def _sampling_problem(view, prime, chars):
    """What is wrong with the priming text, in words a reader can act on: what is not allowed, and
    what is (when the vocabulary is known from an earlier sample)."""
    if not prime:
        return "the priming text is empty: type at least one character, then press Enter"
    unknown = sorted(set(prime) - set(chars)) if chars else []
    if unknown:
        shown = ", ".join(repr(plots.visible_char(c)) for c in unknown)
        return (
            f"{shown} {'is' if len(unknown) == 1 else 'are'} not among the characters the network was trained on. "
            f"Use only: {describe_chars(chars)}"
        )
    return view["error"]


def sampling_widget(view_fn, prime, temperature=0.8, length=300):
    """Sliders for the temperature and the length and a box for the priming text, showing the sample
    beside the chart of the next character's probabilities (notebook 06, section 5).

    view_fn(temperature, prime, length) -> a view dict (the notebook's ``sample_view``). The priming
    text is read when Enter is pressed (the line under the box says so). The sample wraps at spaces
    only, at any width of the page. A priming text it cannot sample from leaves the last sample and
    chart on screen and says, in that line, which characters are not allowed and which are: the page
    does not move. Returns the widget box.
    """
    temperature_slider = slider("temperature", temperature, 0.0, 2.0, 0.05)
    length_slider = slider("length", length, 20, 1000, 20)
    prime_box = widgets.Text(
        value=prime, description="priming text", continuous_update=False, style=_STYLE, layout=_layout()
    )
    line = '<div style="line-height: 1.4; color: {colour}">{text}</div>'
    enter = line.format(colour="inherit", text="press Enter in the box to sample from the text you typed")
    # three lines of text are kept for it, so that a message does not push the sample down
    status = widgets.HTML(enter, layout=widgets.Layout(min_height="4.4em", margin=f"0 0 4px {LABEL_WIDTH}"))
    text_pane = _Pane(flex="1 1 24em", min_width="16em", margin="0 16px 0 0")
    chart_pane = _Pane(flex="0 0 auto")
    known = {"chars": ""}  # the vocabulary, from the last view that had one

    def redraw():
        view = view_fn(temperature_slider.value, prime_box.value, length_slider.value)
        if view["error"]:
            problem = html.escape(_sampling_problem(view, prime_box.value, known["chars"]))
            status.value = line.format(colour="var(--jp-error-color1, #b91c1c)", text=f"cannot sample: {problem}")
            if not text_pane.outputs:  # nothing to keep yet: say it in the pane too
                text_pane.show(_show_sample_text, view)
            return None
        known["chars"] = view["chars"]
        status.value = enter
        text_pane.show(_show_sample_text, view)
        chart_pane.show(_show_chart, view)
        return text_pane.error or chart_pane.error

    _redraw_on_change([temperature_slider, length_slider, prime_box], redraw)
    return _Live(
        [
            temperature_slider,
            length_slider,
            prime_box,
            status,
            widgets.HBox(
                [text_pane.box, chart_pane.box],  # side by side, or the chart below on a narrow page
                layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start"),
            ),
        ],
        [text_pane, chart_pane],
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
    size_slider = slider("hidden size", hidden_size, 8, 256, 8)
    lr_slider = slider("learning rate", learning_rate, 1e-4, 1e-1, 0.1, log=True, readout_format=".1e")
    seq_slider = slider("sequence length", seq_length, 4, 128, 4)
    # no icon: its glyph comes from a web font that the static site would have to serve as well
    button = widgets.Button(description="Train", button_style="primary", tooltip="train a network with these settings")
    progress = TrainingProgress()
    pane = _Pane()
    controls = {"hidden size": size_slider, "learning rate": lr_slider, "sequence length": seq_slider}

    def settings():
        # the values as the kernel has them, written as the sliders write them: the status line
        # says what a click on Train trains with (each name with its value kept on one line)
        return " · ".join(f"{name} {_readout(control)}".replace(" ", "\u00a0") for name, control in controls.items())

    def settings_changed(_change=None):
        if not button.disabled:  # (a change that arrives during a run is shown when it ends)
            progress.bar.bar_style = ""
            progress.label.value = f"press Train to train with {settings()}"

    def train_soon(_button=None):
        # In the browser, a slider moved twice in quick succession sends its first value at once
        # and holds the newest while that one is in flight; the click goes out at once. So the
        # slider's newest value can reach the kernel a round trip after the click. The run starts
        # SETTLE_SECONDS later, the kernel free meanwhile to take that value in: enough on a quiet
        # machine, not always under heavy load (a partial fix: issue 38, item 12).
        if button.disabled:
            return
        button.disabled = True
        progress.bar.layout.visibility = "visible"
        progress.start(text="starting…")
        loop = _running_loop()
        if loop is None:  # outside a kernel (a test calling button.click()): nothing is in flight
            train()
        else:
            loop.call_later(SETTLE_SECONDS, train_unless_stopped)

    def train_unless_stopped():
        try:
            train()
        except KeyboardInterrupt:  # ■ pressed outside rnn_core.train's loop: the kernel's event loop,
            progress.label.value = "stopped"  # which called this, must not receive it

    def train():  # the button is disabled already (train_soon)
        progress.start(text=f"training with {settings()}…")
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
                # the run's settings and bpc are in its printout below: the status line says how it ended
                progress.finish(result, bpc=False)

    for control in controls.values():
        control.observe(settings_changed, names="value")
    settings_changed()
    button.on_click(train_soon)
    # the bar beside the button, shown from the first click (empty, it says nothing); the status line
    # on a row of its own below them, the output's whole width, so that it wraps only where it must
    progress.bar.layout = widgets.Layout(flex="1 1 0%", min_width="8em", margin="0 0 0 8px", visibility="hidden")
    progress.label.layout = widgets.Layout(width="100%", margin="2px 0 0 0")
    return _Live(
        [
            size_slider,
            lr_slider,
            seq_slider,
            widgets.HBox([button, progress.bar], layout=_layout(align_items="center")),
            progress.label,
            pane.box,
        ],
        note="The sliders and the Train button appear when this cell runs (Run All, or Shift+Enter here).",
    )


SETTLE_SECONDS = 0.5  # after a click on Train, time for a slider value in flight to arrive (a round trip)


def _running_loop():
    """The kernel's event loop when called from a widget's message handler, else None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _readout(control):
    """A slider's value as its readout shows it in the browser (d3's format: "1.6e-2", not "1.6e-02")."""
    fmt = getattr(control, "readout_format", None)
    if not fmt or isinstance(control, widgets.SelectionSlider):
        return str(control.value)
    text = format(control.value, fmt.lstrip("~"))
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", text)


def unit_widget(show_fn, n_units, unit=None, shortlist=None):
    """A "hidden unit" slider (0 .. n_units - 1) showing show_fn(unit), with buttons for the units worth
    a look (notebook 07, section 2).

    show_fn(unit) is the notebook's function that prints a caption and shows the passage coloured
    by the unit. shortlist: {what the unit follows: unit}, e.g. the unit that best follows each
    property the notebook asks about (leave out a property whose best unit does no better than
    chance, or than the untrained network's best); a button per unit jumps to it. unit: where the
    slider starts (default: the first unit of the shortlist, else 0). Returns the widget box.
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
    unit_slider = slider("hidden unit", int(unit), 0, n_units - 1)
    picks = widgets.ToggleButtons(
        options=[(f"{u} · {', '.join(whats)}", u) for u, whats in by_unit.items()],
        value=unit if unit in by_unit else None,
        description="worth a look:",
        style={"description_width": LABEL_WIDTH, "button_width": "auto"},
    )
    which = "each button" if len(by_unit) > 1 else "the button"
    # a block with the text's own line height: a widget's line height left a lone last word far below
    hint = widgets.HTML(
        f'<div style="line-height: 1.4">{which}: the unit that best follows its property (the correlation is '
        "in the caption); red where the unit is positive, blue where it is negative</div>"
    )
    pane = _Pane()

    def redraw():
        pane.show(show_fn, unit_slider.value)
        picks.value = unit_slider.value if unit_slider.value in by_unit else None
        return pane.error

    def jump(change):
        if change["new"] is not None:
            unit_slider.value = change["new"]

    picks.observe(jump, names="value")
    _redraw_on_change([unit_slider], redraw)
    rows = [unit_slider, picks, hint] if by_unit else [unit_slider]
    return _Live([*rows, pane.box], [pane])
