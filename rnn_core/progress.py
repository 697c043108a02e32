"""The trainer's progress bar: a tqdm.auto bar (a widget in JupyterLab, text on stderr in a terminal)
that shows the live loss."""

from __future__ import annotations

__all__ = ["ProgressBar", "BAR_SMOOTHING", "BAR_TEXT_EVERY", "BAR_REDRAW_SECONDS"]

BAR_SMOOTHING = 0.98  # the bar's train_bpc: an exponential average with this weight on the past
BAR_TEXT_EVERY = 10  # steps between updates of the bar's text
BAR_REDRAW_SECONDS = 0.5  # the bar redraws at most this often: faster redraws flood a notebook's output channel


class ProgressBar:
    """A bar over the training steps showing the live loss.

    Its train_bpc is an exponential average of the steps' figures (weight BAR_SMOOTHING on the
    past); its text changes every BAR_TEXT_EVERY steps and after each validation.
    """

    def __init__(self, total, initial):
        from tqdm.auto import tqdm

        self.tqdm = tqdm(
            total=total,
            initial=initial,
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
        self.tqdm.set_postfix_str(self._text(history, None) + f" stopped: {stopped}", refresh=False)
        self.tqdm.close()

    def _text(self, history, lr):
        parts = []
        if self.ema is not None:
            parts.append(f"train_bpc {self.ema:.3f}")
        if history.val_bpc:
            parts.append(f"val_bpc {history.val_bpc[-1]:.3f}")
        if lr is not None:
            parts.append(f"lr {lr:.1e}")
        return " ".join(parts)
