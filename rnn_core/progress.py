"""The series' progress bars: tqdm.auto's (a widget in JupyterLab, text on stderr in a terminal), in
one style, and one that a stored notebook keeps in its final state.

``progress_bar`` is what the notebooks use for a loop of their own (``for lag in progress_bar(LAGS,
desc=...)``), and ``ProgressBar`` is the trainer's, showing the live loss. In a notebook both are
tqdm's widget bar, whose text a notebook file keeps (GitHub, VS Code and the static site show that
text, and JupyterLab shows it before the cell runs): tqdm writes it once, when the bar appears, at
0%. So the bar here is shown through a display handle, and updated when it closes: the file then
holds the last state, "training: 100%|██████████| 1000/1000 [00:09<00:00, 105.3step/s, training bpc
2.345 · finished]".
"""

from __future__ import annotations

__all__ = ["ENDINGS", "ProgressBar", "progress_bar", "BAR_SMOOTHING", "BAR_TEXT_EVERY", "BAR_REDRAW_SECONDS"]

BAR_SMOOTHING = 0.98  # the bar's train_bpc: an exponential average with this weight on the past
BAR_TEXT_EVERY = 10  # steps between updates of the bar's text
BAR_REDRAW_SECONDS = 0.5  # the bar redraws at most this often: faster redraws flood a notebook's output channel

_NOTEBOOK_BAR = None  # the class below, made on first use (it needs ipywidgets)


def _notebook_bar_class():
    """tqdm's notebook bar, shown through a display handle that ``close`` updates to the final state."""
    global _NOTEBOOK_BAR
    if _NOTEBOOK_BAR is None:
        from IPython.display import display
        from tqdm.notebook import tqdm_notebook

        class NotebookBar(tqdm_notebook):
            def __init__(self, *args, **kwargs):
                shown = kwargs.pop("display", True)
                super().__init__(*args, display=False, **kwargs)
                # a long text after the bar (the trainer's live loss) wraps to a line of its own
                # instead of squeezing the bar
                self.container.layout.flex_flow = "row wrap"
                self.container.children[1].layout.min_width = "12em"
                self._handle = None
                if shown and not self.disable and self.delay <= 0:
                    self._handle = display(self.container, display_id=True)
                    self.displayed = True

            def close(self):
                if self.disable:
                    return
                super().close()
                if self._handle is not None:  # the bar's text, as a notebook file keeps it: its final state
                    self._handle.update(self.container)

        _NOTEBOOK_BAR = NotebookBar
    return _NOTEBOOK_BAR


def progress_bar(iterable=None, **kwargs):
    """``tqdm.auto.tqdm(iterable, **kwargs)``, the series' progress bar: in a notebook, a stored copy
    of the notebook keeps the bar as it ended instead of at 0%. Use it as tqdm (``desc=``, ``total=``,
    ``unit=``...)."""
    from tqdm.auto import tqdm

    try:
        from tqdm.notebook import tqdm_notebook
    except ImportError:  # no ipywidgets: tqdm.auto is the text bar anyway
        tqdm_notebook = None
    if tqdm_notebook is not None and isinstance(tqdm, type) and issubclass(tqdm, tqdm_notebook):
        return _notebook_bar_class()(iterable, **kwargs)
    return tqdm(iterable, **kwargs)


# how a run ended (TrainResult.stopped), in words, for the end of the bar's text
ENDINGS = {
    "steps": "finished",
    "time": "stopped: its time budget is used up",
    "non-finite": "stopped: the loss is no longer a number",
    "callback": "stopped by its callback",
    "patience": "stopped early: validation no longer improving",
    "interrupted": "interrupted (■): the model trained so far is kept",
}


class ProgressBar:
    """A bar over the training steps showing the live loss (``progress_bar``'s style), labelled
    ``desc`` ("training" by default).

    Its training bpc is an exponential average of the steps' figures (weight BAR_SMOOTHING on the
    past); its text changes every BAR_TEXT_EVERY steps and after each validation, and ends with how
    the run ended, in words (``ENDINGS``).
    """

    def __init__(self, total, initial, desc="training"):
        self.tqdm = progress_bar(
            total=total,
            initial=initial,
            desc=desc,
            unit="step",
            dynamic_ncols=True,
            smoothing=0.05,
            mininterval=BAR_REDRAW_SECONDS,
        )
        self.ema = None

    @classmethod
    def open(cls, progress, total, initial):
        """A bar, or None when ``progress`` is false."""
        return cls(total, initial) if progress else None

    def step(self, bpc, history, lr, redraw_text=False):
        """One step done: ``bpc`` its loss, ``history`` the run's History, ``lr`` its learning rate."""
        self.ema = bpc if self.ema is None else BAR_SMOOTHING * self.ema + (1 - BAR_SMOOTHING) * bpc
        self.tqdm.update(1)
        if redraw_text or self.tqdm.n % BAR_TEXT_EVERY == 0:
            self.tqdm.set_postfix_str(self._text(history, lr), refresh=False)

    def close(self, history, stopped):
        ending = ENDINGS.get(stopped, f"stopped: {stopped}")
        self.tqdm.set_postfix_str(" · ".join(filter(None, [self._text(history, None), ending])), refresh=False)
        self.tqdm.close()

    def _text(self, history, lr):
        parts = []
        if self.ema is not None:
            parts.append(f"training bpc {self.ema:.3f}")
        if history.val_bpc:
            parts.append(f"validation bpc {history.val_bpc[-1]:.3f}")
        if lr is not None:
            parts.append(f"learning rate {lr:.1e}")
        return " · ".join(parts)
