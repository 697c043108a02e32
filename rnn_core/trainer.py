"""The training loop behind notebook 06 and ``python -m rnn_core train``: see ``train``.

``train`` is a short loop over small functions: ``_setup`` (config, data, a fresh or
resumed state), ``_train_step`` (one pure optimizer step, ``optimizer_step``, which
``practice.train_yours`` takes too), ``_measure_val_bpc`` (the validation
figure, and the best parameters so far) and ``_save``.
The run's definition and learning-rate schedule are in ``rnn_core.config``, the checks that a
resumed run continues the same one in ``rnn_core.resume``, the progress bar in
``rnn_core.progress``. Any cell of ``rnn_core.cells`` trains the same way.
"""

from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import ModuleType

import numpy as np

from ._validation import check_checkpoint_path, check_indices
from .cells import cell_module, state_arrays, state_from_arrays, zero_state
from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from .config import TrainConfig, learning_rate_at
from .data import StreamBatcher, split_train_val
from .generate import bits_per_char
from .optim import OPTIMIZERS, clip_global_norm, global_norm
from .progress import ProgressBar
from .resume import check_resume_config, checkpoint_to_resume
from .vocab import Vocabulary

__all__ = [
    "TrainConfig",
    "TrainState",
    "History",
    "TrainResult",
    "train",
    "learning_rate_at",
    "text_fingerprint",
    "best_checkpoint_path",
]

LN2 = math.log(2.0)
RECENT_STEPS = 100  # TrainResult.train_bpc: the mean over this many last steps


@dataclass
class History:
    """Per-step and per-validation records of a run, as lists (``arrays()`` gives numpy arrays).

    Every step: ``step`` (1, 2, ...), ``train_bpc`` (the batch's loss before the
    update, in bits per character; with dropout, the dropped network's: to compare with
    val_bpc, measure the training text with ``bits_per_char``, which never drops),
    ``grad_norm`` (the global norm of the mean-loss gradient, before clipping), ``lr``
    and ``elapsed`` (seconds since training first started, across resumes). Every
    ``eval_every`` steps and at the end: ``val_step``, ``val_bpc`` and ``val_elapsed``.
    """

    step: list = field(default_factory=list)
    train_bpc: list = field(default_factory=list)
    grad_norm: list = field(default_factory=list)
    lr: list = field(default_factory=list)
    elapsed: list = field(default_factory=list)
    val_step: list = field(default_factory=list)
    val_bpc: list = field(default_factory=list)
    val_elapsed: list = field(default_factory=list)

    _INT = ("step", "val_step")
    _PER_STEP = ("step", "train_bpc", "grad_norm", "lr", "elapsed")
    _PER_VALIDATION = ("val_step", "val_bpc", "val_elapsed")

    def arrays(self):
        """The history as a dict of numpy arrays (int64 steps, float64 values)."""
        return {
            f.name: np.asarray(getattr(self, f.name), dtype=np.int64 if f.name in self._INT else np.float64)
            for f in fields(self)
        }

    @classmethod
    def from_arrays(cls, arrays):
        return cls(**{f.name: np.asarray(arrays.get(f.name, [])).tolist() for f in fields(cls)})

    def copy(self):
        return History(**{f.name: list(getattr(self, f.name)) for f in fields(self)})

    def truncate(self, step):
        """Drop the records of steps after ``step`` (in place)."""
        n = sum(1 for s in self.step if s <= step)
        for name in self._PER_STEP:
            del getattr(self, name)[n:]
        m = sum(1 for s in self.val_step if s <= step)
        for name in self._PER_VALIDATION:
            del getattr(self, name)[m:]

    def __len__(self):
        return len(self.step)


@dataclass
class TrainState:
    """The complete state of training after ``step`` steps: resuming from it is bit-identical.

    params, opt_state: the model and the optimizer's state; step: optimizer steps
    done; epoch: passes over the training text completed; next_window: the index
    of the window the next step reads (``StreamBatcher.window``); carried: the
    recurrent state carried into that window, {name: (B, H) array} ((L, B, H) for a
    stack of L layers) for each of the cell's STATE_NAMES ({"h": h}, or the LSTM's
    {"h": h, "c": c}); elapsed: seconds of training so far. ``h`` and ``c`` read the
    carried arrays (c is None for a cell without).
    """

    params: dict
    opt_state: dict
    step: int
    epoch: int
    next_window: int
    carried: dict
    elapsed: float = 0.0

    @property
    def h(self):
        return self.carried["h"]

    @property
    def c(self):
        return self.carried.get("c")

    def __repr__(self):
        H = self.params["W_yh"].shape[1]
        return (
            f"TrainState(step={self.step}, epoch={self.epoch}, next_window={self.next_window}, H={H}, "
            f"elapsed={self.elapsed:.1f})"
        )


@dataclass
class TrainResult:
    """What ``train`` returns, however training ended.

    params, vocab: the model (after a non-finite loss or gradient, the last
    finite parameters); history: a ``History``; config: the ``TrainConfig``
    used; state: a ``TrainState``, everything needed to resume; stopped: why
    training ended, one of "steps", "time", "patience" (early stopping),
    "interrupted", "callback" and "non-finite", and message, a sentence saying so;
    val_bpc: the last validation figure; train_bpc: the mean over the last
    ``RECENT_STEPS`` steps; steps_per_second: of this call; fingerprint: the text's
    identity (``text_fingerprint``); best_step, best_val_bpc, best_params: the
    validation that was lowest so far (the first of equals) and the parameters it
    measured (None before the first validation; best_params also None after resuming
    from a file whose best checkpoint is gone). ``summary()`` gives one line.
    """

    params: dict
    vocab: Vocabulary
    history: History
    config: TrainConfig
    state: TrainState
    stopped: str = "steps"
    message: str = ""
    val_bpc: float | None = None
    train_bpc: float | None = None
    steps_per_second: float = 0.0
    fingerprint: dict = field(default_factory=dict)
    best_step: int | None = None
    best_val_bpc: float | None = None
    best_params: dict | None = None

    @property
    def step(self):
        return self.state.step

    def __repr__(self):
        return f"TrainResult({self.summary()})"

    def summary(self):
        """One line: step, final train and validation bits per character, speed, why it stopped, the best."""
        tr = "nan" if self.train_bpc is None else f"{self.train_bpc:.4f}"
        va = "nan" if self.val_bpc is None else f"{self.val_bpc:.4f}"
        best = "" if self.best_step is None else f"  best val_bpc {self.best_val_bpc:.4f} at step {self.best_step}"
        return (
            f"step {self.step}  train_bpc {tr}  val_bpc {va}  "
            f"{self.steps_per_second:.1f} steps/s  {self.state.elapsed:.1f} s  stopped: {self.stopped}{best}"
        )


def text_fingerprint(ids):
    """A short identity for a sequence of character indices: its length and CRC-32."""
    a = np.ascontiguousarray(ids, dtype=np.int64)
    return {"n_chars": int(a.size), "crc32": int(zlib.crc32(a.tobytes()))}


# -- the loop ------------------------------------------------------------------------------------


def train(
    data,
    config=None,
    *,
    vocab=None,
    checkpoint=None,
    resume=False,
    callback=None,
    callback_every=100,
    progress=True,
    started=None,
    **overrides,
):
    """Train a character-level recurrent network on ``data``; returns a ``TrainResult``.

    Use from a notebook::

        text = rnn_core.load_text()                      # Pride and Prejudice, header stripped
        result = rnn_core.train(text, max_seconds=60)    # TrainConfig defaults, any field overridable
        lstm = rnn_core.train(text, cell="lstm", max_seconds=60)   # the same for an LSTM ("gru": a GRU)
        deep = rnn_core.train(text, cell="lstm", num_layers=2, dropout=0.2, max_seconds=60)  # stacked
        print(result.summary())                          # "... val_bpc 2.0123 ..."
        result.history.val_bpc                           # validation bits per character over time
        rnn_core.sample(result.params, result.vocab, "Elizabeth", 300, temperature=0.7)
        rnn_core.sample(lstm.params, lstm.vocab, "Elizabeth", 300, cell=lstm.config.cell)  # name a gated cell
        result.best_params, result.best_step             # the parameters of the lowest val_bpc

    - data: the text (a str; the vocabulary is ``sorted(set(text))``), or a 1-D
      int array of character indices together with ``vocab=``.
    - config: a ``TrainConfig`` (its fields are described there); ``**overrides``
      replace single fields, e.g. ``train(text, steps=500)``.
    - checkpoint: a path (its folder must exist) where the training state is saved
      every ``checkpoint_every`` steps and at the end, however training ends: the
      last checkpoint. Beside it, ``best_checkpoint_path(checkpoint)`` (rnn.npz ->
      rnn.best.npz) holds the training state of the step with the lowest val_bpc so
      far, saved at each new best; both files' metadata say which they are ("checkpoint":
      "last" or "best") and where the best is ("best_step", "best_val_bpc").
    - resume: True to continue from the file at ``checkpoint``, or a ``TrainResult``
      to continue in memory; model shape, batch size, sequence length, optimizer
      and text must match, and ``config.steps`` counts the steps already done.
    - callback(result): called every ``callback_every`` steps and after each
      validation with a ``TrainResult`` snapshot; returning True stops training.
    - progress: show a tqdm.auto progress bar with the live loss.
    - started: the ``time.perf_counter()`` reading the run's clock (and so
      ``max_seconds``) counts from; default: when ``train`` is called.

    Each step minimises the window's mean cross-entropy per character (the
    gradient of ``loss_and_grads``' total is divided by B x T before clipping),
    with dropout (``config.dropout``) on the connections that do not recur; the
    masks are drawn from ``config.seed`` and the step, so they too are the same on
    every run. Validation never drops. Training ends after ``config.steps`` steps or
    ``config.max_seconds`` seconds, after ``config.patience`` validations without a
    new best (early stopping), on Ctrl-C / the notebook's stop button, when the
    callback asks, or when the loss or gradient stops being finite. The same config,
    text and step budget give bit-identical parameters, also when stopped and resumed,
    unless ``max_seconds`` is set: its budget, and the schedule's progress in time, count
    the seconds of this call only (from ``started``), so a resumed run starts its time
    progress afresh, and a run stopped by the clock depends on the machine's speed anyway.
    """
    run, state, history = _setup(data, config, overrides, vocab, checkpoint, resume, started)
    config, stopped, message, bar = run.config, "steps", "", None
    try:
        bar = ProgressBar.open(progress, config.steps, state.step)  # inside: Ctrl-C may come while it opens
        while state.step < config.steps:
            seconds = run.seconds()
            if run.out_of_time(seconds):
                stopped, message = (
                    "time",
                    f"stopped after {seconds:.1f} s: the time budget of {config.max_seconds:g} s is used up",
                )
                break
            lr = learning_rate_at(config, state.step, seconds)
            try:
                state, bpc, norm = _train_step(run, state, lr)
            except NonFinite as e:
                stopped, message = "non-finite", _non_finite_message(state.step, e)
                break
            state = replace(state, elapsed=run.elapsed())
            _record_step(history, state, bpc, norm, lr)
            validated = _every(config.eval_every, state.step) and state.step < config.steps
            if validated:
                _measure_val_bpc(run, state, history)
            if run.path is not None and _every(config.checkpoint_every, state.step):
                _save(run, state, history)
            if bar is not None:
                bar.step(bpc, history, lr, redraw_text=validated)
            if callback is not None and (validated or state.step % callback_every == 0):
                if callback(_snapshot(run, state, history, stopped, message)):
                    stopped, message = "callback", f"stopped at step {state.step}: the callback asked to stop"
                    break
            if validated and _out_of_patience(config, history):
                stopped, message = "patience", _patience_message(run, state)
                break
    except KeyboardInterrupt:
        stopped, message = "interrupted", f"interrupted at step {state.step}: returning the model trained so far"
        history.truncate(state.step)  # the interrupt may fall between recording a step and taking it
    return _finish(run, state, history, stopped, message, bar)


class NonFinite(ArithmeticError):
    """Raised by ``optimizer_step`` when the loss, the gradient or an updated parameter is not finite."""


def optimizer_step(batcher, window, state0, params, opt_state, loss_and_grads, update, clip, clip_norm, lr):
    """One optimizer step on window ``window`` of ``batcher``: loss -> mean -> clip -> update -> finite check.

    The step every training loop of the package takes (``train``'s, and ``practice.train_yours``'s
    over the reader's own pieces). loss_and_grads(params, X, Y, state0) -> (the window's total loss,
    its gradient, the state after the window); the gradient is divided by B x T in place, the
    gradient of the mean loss per character; clip(grads, clip_norm) -> (grads, the norm before
    clipping), not called for clip_norm None; update(params, grads, opt_state, lr) -> (params,
    opt_state), the optimizer's rule.

    Pure (its arguments are left as they are): returns (params, opt_state, the next window's index
    (0 after the last window of a pass), the state it starts from (zeros for a new pass: it starts
    again from a zero state), the mean loss per character in nats, the gradient's global norm before
    clipping), or raises NonFinite.
    """
    X, Y = batcher.window(window)
    chars = X.size  # B x T predictions
    loss, grads, last = loss_and_grads(params, X, Y, state0)
    for g in grads.values():  # the gradient of the mean loss per character
        g *= g.dtype.type(1.0 / chars)
    if clip_norm is None:
        norm = global_norm(grads)
    else:
        grads, norm = clip(grads, clip_norm)
    if not math.isfinite(loss):
        raise NonFinite(f"the loss is {loss}")
    if not math.isfinite(norm):
        raise NonFinite(f"the gradient norm is {norm}")
    params, opt_state = update(params, grads, opt_state, lr)
    if not all(np.isfinite(p).all() for p in params.values()):
        raise NonFinite("the update made a parameter non-finite")
    window += 1
    if window == batcher.windows_per_pass:  # end of a pass: the next starts again from a zero state
        window, last = 0, _zeros_like_state(last)
    return params, opt_state, window, last, loss / chars, norm


def _zeros_like_state(state):
    """A state of zeros shaped as ``state``: an array, or a tuple or list of them (each recursively)."""
    if isinstance(state, np.ndarray):
        return np.zeros_like(state)
    return type(state)(_zeros_like_state(s) for s in state)


def _train_step(run, state, lr):
    """One optimizer step from ``state`` (``optimizer_step`` with the run's cell, optimizer and clipping).

    Pure (``state`` is left as it is): returns (the next TrainState, the window's bits
    per character, the gradient's global norm before clipping), or raises NonFinite.
    """
    config, cell = run.config, run.config.cell
    # dropout's masks for this step: drawn from the run's seed and the step, the same on every run
    dropout = {"dropout": config.dropout, "seed": [config.seed, state.step]} if config.dropout else {}

    def loss_and_grads(params, X, Y, state0):
        return run.module.loss_and_grads(params, X, Y, state0, **dropout)  # the model's entry point

    update = OPTIMIZERS[config.optimizer][1]
    state0 = state_from_arrays(cell, state.carried)
    # overflow is checked for (NonFinite) and reported in plain words, so numpy need not warn
    with np.errstate(over="ignore", invalid="ignore"):
        params, opt_state, next_window, last, loss, norm = optimizer_step(
            run.batcher,
            state.next_window,
            state0,
            state.params,
            state.opt_state,
            loss_and_grads,
            update,
            clip_global_norm,
            config.clip_norm,
            lr,
        )
    after = replace(
        state,
        params=params,
        opt_state=opt_state,
        step=state.step + 1,
        epoch=state.epoch + (next_window == 0),  # a pass over the text ended
        next_window=next_window,
        carried=state_arrays(cell, last),
    )
    return after, loss / LN2, norm


def _every(interval, step):
    """Whether something done every ``interval`` steps (0: never) is due after ``step``."""
    return bool(interval) and step % interval == 0


def _best(history):
    """(step, val_bpc) of the lowest validation figure so far (the first of equals), or None."""
    finite = [(v, i) for i, v in enumerate(history.val_bpc) if math.isfinite(v)]
    if not finite:
        return None
    value, i = min(finite)  # on equal figures, the earliest index
    return history.val_step[i], value


def _out_of_patience(config, history):
    """Whether the last ``config.patience`` validations (0: never) have all failed to beat the best."""
    best = _best(history)
    if not config.patience or best is None:
        return False
    return len(history.val_step) - 1 - history.val_step.index(best[0]) >= config.patience


def _patience_message(run, state):
    return (
        f"stopped at step {state.step}: no new best val_bpc in {run.config.patience} validations "
        f"(best {run.best_val_bpc:.4f}, step {run.best_step})"
    )


def _non_finite_message(step, what):
    return (
        f"training stopped at step {step + 1}: {what}. The parameters are those after step "
        f"{step}, the last finite ones; lower the learning rate or clip the gradient harder"
    )


def _record_step(history, state, bpc, norm, lr):
    history.step.append(state.step)
    history.train_bpc.append(bpc)
    history.grad_norm.append(norm)
    history.lr.append(lr)
    history.elapsed.append(state.elapsed)


def _finish(run, state, history, stopped, message, bar):
    """The last validation and save, however training ended; returns the TrainResult."""
    if stopped == "steps":
        message = f"finished {state.step} steps"
    try:
        if run.config.val_fraction > 0 and (not history.val_step or history.val_step[-1] != state.step):
            _measure_val_bpc(run, state, history)
    except KeyboardInterrupt:
        pass
    if run.path is not None:
        _save(run, state, history)
    result = _snapshot(run, state, history, stopped, message)
    if bar is not None:
        bar.close(history, stopped)
    return result


def _snapshot(run, state, history, stopped, message):
    recent = history.train_bpc[-RECENT_STEPS:]
    return TrainResult(
        best_step=run.best_step,
        best_val_bpc=run.best_val_bpc,
        best_params=run.best_params,
        params=state.params,
        vocab=run.vocab,
        history=history,
        config=run.config,
        state=state,
        stopped=stopped,
        message=message,
        val_bpc=history.val_bpc[-1] if history.val_bpc else None,
        train_bpc=float(np.mean(recent)) if recent else None,
        steps_per_second=(state.step - run.start_step) / max(run.seconds(), 1e-9),
        fingerprint=run.fingerprint,
    )


# -- validation and saving -------------------------------------------------------------------------


def _measure_val_bpc(run, state, history):
    """Record val_bpc for ``state`` in the history (nothing without a validation text); keep
    the parameters if it is a new best, and save them as the best checkpoint.

    val_bpc is ``bits_per_char(params, val_ids, n_streams=val_streams)``: the held-out text
    cut into ``val_streams`` equal contiguous pieces read side by side, each from a zero
    state carried across the whole piece (no dropout).
    """
    if run.config.val_fraction == 0:
        return
    t0 = time.perf_counter()
    n_streams = min(run.config.val_streams, max(1, len(run.val_ids) - 1))
    with np.errstate(over="ignore", invalid="ignore"):  # after a divergence the figure may be inf
        value = bits_per_char(state.params, run.val_ids, n_streams=n_streams, cell=run.config.cell)
    history.val_step.append(state.step)
    history.val_bpc.append(value)
    history.val_elapsed.append(run.elapsed())
    run.eval_seconds = time.perf_counter() - t0  # kept in reserve in the time budget
    if _best(history) == (state.step, value):  # a new best: its parameters, and its own checkpoint
        run.best_step, run.best_val_bpc, run.best_params = state.step, value, state.params
        if run.path is not None:
            _save(run, state, history, best=True)


def best_checkpoint_path(path):
    """Where ``train`` keeps the best checkpoint beside the last one at ``path``: rnn.npz -> rnn.best.npz."""
    path = Path(path)
    return path.with_name(f"{path.stem}.best{path.suffix}")


def _save(run, state, history, best=False):
    """Save the training state: the last checkpoint, or with ``best`` the best one beside it."""
    t0 = time.perf_counter()
    save_checkpoint(
        best_checkpoint_path(run.path) if best else run.path,
        state.params,
        run.vocab,
        cell=run.config.cell,
        optimizer=run.config.optimizer,
        opt_state=state.opt_state,
        step=state.step,
        history=history.arrays(),
        meta={
            "config": run.config.to_dict(),
            "epoch": state.epoch,
            "window": state.next_window,  # the file's name for it
            "elapsed": state.elapsed,
            "fingerprint": run.fingerprint,
            "checkpoint": "best" if best else "last",  # which of the two files this is
            "best_step": run.best_step,
            "best_val_bpc": run.best_val_bpc,
        },
        **state.carried,  # h, and the LSTM's c
    )
    run.save_seconds = time.perf_counter() - t0  # kept in reserve in the time budget


# -- setting up: the config, the data, a fresh or a resumed state ---------------------------------


@dataclass
class _Run:
    """What one call of ``train`` works with besides the state and the history."""

    config: TrainConfig
    vocab: Vocabulary
    module: ModuleType  # the cell's module (config.cell names it): its init_params, loss_and_grads, ...
    batcher: StreamBatcher
    val_ids: np.ndarray
    path: Path | None
    fingerprint: dict
    start_step: int
    start_elapsed: float
    t0: float  # the run's clock: the perf_counter reading its seconds (and max_seconds) count from
    eval_seconds: float = 0.0  # the last validation's and save's durations
    save_seconds: float = 0.0
    best_step: int | None = None  # the lowest validation so far, and the parameters it measured
    best_val_bpc: float | None = None
    best_params: dict | None = None

    def seconds(self):
        """Seconds since this call started."""
        return time.perf_counter() - self.t0

    def elapsed(self):
        """Seconds of training so far, counting those before a resume."""
        return self.start_elapsed + self.seconds()

    def out_of_time(self, seconds):
        """Whether, ``seconds`` into the budget, what is left no longer holds a final validation and save
        (as long as the last ones took): then training stops so that the whole call fits in max_seconds."""
        limit = self.config.max_seconds
        saves = 2 if self.config.val_fraction > 0 else 1  # the last checkpoint, and perhaps a new best one
        return limit is not None and seconds + self.eval_seconds + saves * self.save_seconds >= limit


def _setup(data, config, overrides, vocab, checkpoint, resume, started):
    """(_Run, TrainState, History) for a call of train, after checking every argument."""
    t0 = time.perf_counter() if started is None else started
    if config is None:
        config = TrainConfig(**overrides)
    elif not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    elif overrides:
        config = replace(config, **overrides)
    ids, vocab = _encode(data, vocab)
    train_ids, val_ids = split_train_val(ids, config.val_fraction)
    if config.val_fraction > 0 and len(val_ids) < 2:
        raise ValueError(
            f"the text is too short: its last {config.val_fraction:.0%} ({len(val_ids)} characters) cannot "
            f"be a validation set; use a longer text or val_fraction=0"
        )
    batcher = StreamBatcher(train_ids, config.batch_size, config.seq_length)
    path = None if checkpoint is None else check_checkpoint_path(checkpoint)
    fingerprint = text_fingerprint(ids)
    state, history, best_params = _starting_state(config, vocab, fingerprint, path, resume)
    if not state.next_window < batcher.windows_per_pass:  # the same text and config: a damaged file
        raise CheckpointError(
            f"cannot resume from {path}: its next window is {state.next_window}, and a pass over this text has "
            f"{batcher.windows_per_pass}"
        )
    best_step, best_val_bpc = _best(history) or (None, None)
    run = _Run(
        config=config,
        vocab=vocab,
        module=cell_module(config.cell),
        batcher=batcher,
        val_ids=val_ids,
        path=path,
        fingerprint=fingerprint,
        start_step=state.step,
        start_elapsed=state.elapsed,
        t0=t0,
        best_step=best_step,
        best_val_bpc=best_val_bpc,
        best_params=best_params,
    )
    return run, state, history


def _encode(data, vocab):
    if isinstance(data, str):
        if not data:
            raise ValueError("the text is empty: there is nothing to train on")
        if vocab is None:
            vocab = Vocabulary.from_text(data)
        elif not isinstance(vocab, Vocabulary):
            raise TypeError(f"vocab must be a rnn_core.Vocabulary, got {type(vocab).__name__}")
        return vocab.encode(data), vocab
    if vocab is None or not isinstance(vocab, Vocabulary):
        raise TypeError("train needs a text (str), or character indices together with vocab=Vocabulary(...)")
    ids = check_indices(data, "data", vocab.size, ndim=(1,), min_size=0)  # an empty text is said later
    return ids.astype(np.int64), vocab


def _starting_state(config, vocab, fingerprint, path, resume):
    """(TrainState, History, the best parameters so far or None): fresh, from the checkpoint at
    ``path`` (and the best one beside it), or from an earlier TrainResult."""
    if isinstance(resume, TrainResult):
        if resume.vocab != vocab or resume.fingerprint != fingerprint:
            raise ValueError("cannot resume: that result was trained on a different text")
        check_resume_config(resume.config.to_dict(), config, "that result")
        return resume.state, resume.history.copy(), resume.best_params
    if resume is not True and resume is not False:
        raise TypeError(f"resume must be True, False or a TrainResult, got {type(resume).__name__}")
    if resume and path is None:
        raise ValueError("resume=True needs checkpoint=PATH to resume from")
    if resume:
        ck = checkpoint_to_resume(path, config, vocab, fingerprint)
        state = TrainState(
            params=ck.params,
            opt_state=ck.opt_state,
            step=ck.step,
            epoch=int(ck.meta["epoch"]),
            next_window=int(ck.meta["window"]),
            carried=ck.carried,
            elapsed=float(ck.meta["elapsed"]),
        )
        history = History.from_arrays(ck.history)
        return state, history, _best_params_on_file(path, ck, _best(history), vocab)
    module = cell_module(config.cell)
    params = module.init_params(
        vocab.size,
        config.hidden_size,
        seed=config.seed,
        dtype=np.float32,
        recurrent_scale=config.recurrent_scale,
        num_layers=config.num_layers,
    )
    carried = state_arrays(config.cell, zero_state(params, config.cell, (config.batch_size,)))
    opt_state = OPTIMIZERS[config.optimizer][0](params)
    state = TrainState(params=params, opt_state=opt_state, step=0, epoch=0, next_window=0, carried=carried)
    return state, History(), None


def _best_params_on_file(path, ck, best, vocab):
    """The parameters of the best validation ``best`` (step, val_bpc) of a run resumed from ``ck``, the
    checkpoint at ``path``: its own, or the best checkpoint's beside it; None if neither holds them."""
    if best is None:
        return None
    if best[0] == ck.step:
        return ck.params
    try:
        best_ck = load_checkpoint(best_checkpoint_path(path))
    except (OSError, CheckpointError):
        return None
    return best_ck.params if best_ck.step == best[0] and best_ck.vocab == vocab else None
