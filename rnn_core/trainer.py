"""The training loop behind notebook 06 and ``python -m rnn_core train``: see ``train``.

``train`` is a short loop over small functions: ``_setup`` (config, data, a fresh or
resumed state), ``_train_step`` (one pure optimizer step), ``_measure_val_bpc`` and ``_save``.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from ._validation import check_checkpoint_path, check_int, check_number
from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from .data import StreamBatcher, split_train_val
from .generate import bits_per_char
from .cells import CELLS, cell_module
from .optim import OPTIMIZERS, clip_global_norm, global_norm
from .vocab import Vocabulary

__all__ = ["TrainConfig", "TrainState", "History", "TrainResult", "train", "learning_rate_at", "text_fingerprint"]

LN2 = math.log(2.0)
STOP_REASONS = ("steps", "time", "interrupted", "callback", "non-finite")
VAL_WINDOW = 256  # validation reads the held-out text this many characters at a time, state carried
RECENT_STEPS = 100  # TrainResult.train_bpc: the mean over this many last steps
BAR_SMOOTHING = 0.98  # the progress bar's train_bpc: an exponential average with this weight on the past
BAR_TEXT_EVERY = 10  # steps between updates of the progress bar's text
BAR_REDRAW_SECONDS = 0.5  # the bar redraws at most this often: faster redraws flood a notebook's output channel
# Fields that must agree between a checkpoint and the run that resumes it.
_RESUME_FIXED = ("cell", "hidden_size", "batch_size", "seq_length", "optimizer", "val_fraction")


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines a training run; the defaults train well on the novel.

    Model and data:
      cell: "rnn", the vanilla RNN (rnn_core.rnn), or "lstm" (rnn_core.lstm).
      hidden_size: H, the number of hidden units.
      batch_size: B, the number of parallel streams in a batch.
      seq_length: T, the characters per window (the truncation length of BPTT).
      val_fraction: the share of the text (its end) held out for validation.
    Optimisation:
      optimizer: "adam", "adagrad" or "sgd".
      learning_rate: the peak step size.
      lr_schedule: "linear" (hold, then decay over the last ``decay_fraction``
        of the budget to ``final_lr_fraction`` times the peak) or "constant".
      warmup_steps: steps of linear warm-up from 0 to the peak rate.
      clip_norm: global-norm clipping threshold, or None for no clipping.
      init_scale: the spectral radius of the initial W_hh (``init_params``'
        recurrent_scale; for the LSTM, of each gate's block of W_h).
    Budget and bookkeeping:
      steps: total optimizer steps (counting steps done before a resume).
      max_seconds: wall-clock budget of one call in seconds, or None (the
        schedule, and so the result, then depends on the machine's speed).
      eval_every: steps between validations (0: only at the end).
      val_streams: pieces the validation text is cut into, read side by side,
        each from a zero hidden state carried across the whole piece.
      checkpoint_every: steps between checkpoint saves (0: only at the end).
      seed: seeds the initial weights, the only random draw of training.
    """

    cell: str = "rnn"
    hidden_size: int = 256
    batch_size: int = 32
    seq_length: int = 32
    learning_rate: float = 5e-3
    optimizer: str = "adam"
    lr_schedule: str = "linear"
    warmup_steps: int = 0
    decay_fraction: float = 1.0
    final_lr_fraction: float = 0.02
    clip_norm: float | None = 5.0
    init_scale: float = 1.0
    steps: int = 20_000
    max_seconds: float | None = None
    val_fraction: float = 0.1
    eval_every: int = 500
    val_streams: int = 4
    checkpoint_every: int = 1000
    seed: int = 0

    def __post_init__(self):
        self.validate()

    def validate(self):
        """Raise ValueError/TypeError naming the first field with a bad value; returns the config."""
        for name in ("hidden_size", "batch_size", "seq_length", "steps", "val_streams"):
            check_int(getattr(self, name), name, 1)
        for name in ("warmup_steps", "eval_every", "checkpoint_every", "seed"):
            check_int(getattr(self, name), name, 0)
        check_number(self.learning_rate, "learning_rate", 0)
        check_number(self.clip_norm, "clip_norm", 0, allow_none=True)
        check_number(self.max_seconds, "max_seconds", 0, allow_none=True)
        check_number(self.init_scale, "init_scale", 0)
        check_number(self.decay_fraction, "decay_fraction", 0, 1, include_low=True)
        check_number(self.final_lr_fraction, "final_lr_fraction", 0, 1, include_low=True)
        check_number(self.val_fraction, "val_fraction", 0, 1, include_low=True, include_high=False)
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {', '.join(CELLS)}, got {self.cell!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {', '.join(sorted(OPTIMIZERS))}, got {self.optimizer!r}")
        if self.lr_schedule not in ("linear", "constant"):
            raise ValueError(f"lr_schedule must be 'linear' or 'constant', got {self.lr_schedule!r}")
        return self

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        """A config from a dict such as ``to_dict()`` gives; unknown keys are ignored."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})  # a config saved before there was a cell: "rnn"


def learning_rate_at(config, step, seconds=None):
    """The learning rate for the update that follows ``step`` completed steps.

    ``config.learning_rate`` (after ``warmup_steps`` of linear warm-up), held
    until ``1 - decay_fraction`` of the budget is used, then lowered linearly to
    ``final_lr_fraction * learning_rate`` at its end. The budget is ``steps``,
    or ``max_seconds`` when that runs out first: progress is max(step / steps,
    seconds / max_seconds). ``lr_schedule="constant"`` keeps the rate fixed
    after warm-up. The default, decay_fraction=1, lowers the rate from the
    first step on: at H=256 a rate held at 5e-3 for about 10,000 steps makes
    training unstable (the validation loss jumps from about 2.05 to 2.8 bits),
    and decaying from the start avoids that whatever the budget, at no cost in
    the final figure.

    seconds: time spent so far in this run (only used with config.max_seconds).
    """
    lr = config.learning_rate
    if config.warmup_steps and step < config.warmup_steps:
        lr = lr * (step + 1) / config.warmup_steps
    if config.lr_schedule == "constant":
        return lr
    progress = step / config.steps
    if config.max_seconds and seconds is not None:
        progress = max(progress, seconds / config.max_seconds)
    start = 1.0 - config.decay_fraction
    if progress <= start or config.decay_fraction == 0:
        return lr
    frac = min(1.0, (progress - start) / config.decay_fraction)
    return lr * (1.0 - frac * (1.0 - config.final_lr_fraction))


@dataclass
class History:
    """Per-step and per-validation records of a run, as lists (``arrays()`` gives numpy arrays).

    Every step: ``step`` (1, 2, ...), ``train_bpc`` (the batch's loss before the
    update, in bits per character), ``grad_norm`` (the global norm of the
    mean-loss gradient, before clipping), ``lr`` and ``elapsed`` (seconds since
    training first started, across resumes). Every ``eval_every`` steps and at
    the end: ``val_step``, ``val_bpc`` and ``val_elapsed``.
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

    def __len__(self):
        return len(self.step)


@dataclass
class TrainState:
    """The complete state of training after ``step`` steps: resuming from it is bit-identical.

    params, opt_state: the model and the optimizer's state; step: optimizer steps
    done; epoch: passes over the training text completed; next_window: the index
    of the window the next step reads (``StreamBatcher.window``); h: the hidden
    state (B, H) carried into that window; c: the LSTM's cell state (B, H)
    carried with it (None for the vanilla RNN); elapsed: seconds of training so far.
    """

    params: dict
    opt_state: dict
    step: int
    epoch: int
    next_window: int
    h: np.ndarray
    elapsed: float = 0.0
    c: np.ndarray | None = None

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
    training ended, one of ``STOP_REASONS`` ("steps", "time", "interrupted",
    "callback", "non-finite"), and message, a sentence saying so; val_bpc: the
    last validation figure; train_bpc: the mean over the last ``RECENT_STEPS``
    steps; steps_per_second: of this call; fingerprint: the text's identity
    (``text_fingerprint``). ``summary()`` gives one line.
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

    @property
    def step(self):
        return self.state.step

    def __repr__(self):
        return f"TrainResult({self.summary()})"

    def summary(self):
        """One line: step, final train and validation bits per character, speed, why it stopped."""
        tr = "nan" if self.train_bpc is None else f"{self.train_bpc:.4f}"
        va = "nan" if self.val_bpc is None else f"{self.val_bpc:.4f}"
        return (
            f"step {self.step}  train_bpc {tr}  val_bpc {va}  "
            f"{self.steps_per_second:.1f} steps/s  {self.state.elapsed:.1f} s  stopped: {self.stopped}"
        )


def text_fingerprint(ids):
    """A short identity for a sequence of character indices: its length and CRC-32."""
    a = np.ascontiguousarray(ids, dtype=np.int64)
    return {"n_chars": int(a.size), "crc32": int(zlib.crc32(a.tobytes()))}


# -- the loop ------------------------------------------------------------------------------------


def train(data, config=None, *, vocab=None, checkpoint=None, resume=False, callback=None, callback_every=100,
          progress=True, started=None, **overrides):
    """Train a character-level RNN (vanilla, or an LSTM with ``cell="lstm"``) on ``data``; returns a ``TrainResult``.

    Use from a notebook::

        text = rnn_core.load_text()                      # Pride and Prejudice, header stripped
        result = rnn_core.train(text, max_seconds=60)    # TrainConfig defaults, any field overridable
        lstm = rnn_core.train(text, cell="lstm", max_seconds=60)   # the same for an LSTM
        print(result.summary())                          # "... val_bpc 2.0123 ..."
        result.history.val_bpc                           # validation bits per character over time
        rnn_core.sample(result.params, result.vocab, "Elizabeth", 300, temperature=0.7)

    - data: the text (a str; the vocabulary is ``sorted(set(text))``), or a 1-D
      int array of character indices together with ``vocab=``.
    - config: a ``TrainConfig`` (its fields are described there); ``**overrides``
      replace single fields, e.g. ``train(text, steps=500)``.
    - checkpoint: a path (its folder must exist) where the training state is saved
      every ``checkpoint_every`` steps and at the end, however training ends.
    - resume: True to continue from the file at ``checkpoint``, or a ``TrainResult``
      to continue in memory; model shape, batch size, sequence length, optimizer
      and text must match, and ``config.steps`` counts the steps already done.
    - callback(result): called every ``callback_every`` steps and after each
      validation with a ``TrainResult`` snapshot; returning True stops training.
    - progress: show a tqdm.auto progress bar with the live loss.
    - started: the ``time.perf_counter()`` reading ``max_seconds`` counts from.

    Each step minimises the window's mean cross-entropy per character (the
    gradient of ``loss_and_grads``' total is divided by B x T before clipping).
    Training ends after ``config.steps`` steps or ``config.max_seconds``
    seconds, on Ctrl-C / the notebook's stop button, when the callback asks, or
    when the loss or gradient stops being finite. The same config, text and step
    budget give bit-identical parameters, also when stopped and resumed.
    """
    run, state, history = _setup(data, config, overrides, vocab, checkpoint, resume, started)
    config, stopped, message, bar = run.config, "steps", "", None
    try:
        bar = _ProgressBar.open(progress, config.steps, state.step)  # inside: Ctrl-C may come while it opens
        while state.step < config.steps:
            seconds = time.perf_counter() - run.budget_t0
            if run.out_of_time(seconds):
                stopped, message = "time", f"stopped after {seconds:.1f} s: the time budget of {config.max_seconds:g} s is used up"
                break
            lr = learning_rate_at(config, state.step, seconds)
            try:
                state, bpc, norm = _train_step(run, state, lr)
            except _NonFinite as e:
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
    except KeyboardInterrupt:
        stopped, message = "interrupted", f"interrupted at step {state.step}: returning the model trained so far"
        _trim(history, state.step)  # the interrupt may fall between recording a step and taking it
    return _finish(run, state, history, stopped, message, bar)


class _NonFinite(ArithmeticError):
    """Raised by ``_train_step`` when the loss, the gradient or an updated parameter is not finite."""


def _train_step(run, state, lr):
    """One optimizer step from ``state``: loss -> mean -> clip -> update -> finite check.

    Pure (``state`` is left as it is): returns (the next TrainState, the window's bits
    per character, the gradient's global norm before clipping), or raises _NonFinite.
    """
    config = run.config
    X, Y = run.batcher.window(state.next_window)
    chars = X.size  # B x T predictions
    # overflow is checked for below and reported in plain words, so numpy need not warn
    with np.errstate(over="ignore", invalid="ignore"):
        loss, grads, h_last, c_last = run.loss_and_grads(state.params, X, Y, state.h, state.c)  # the model's one entry point
        for g in grads.values():  # the gradient of the mean loss per character
            g *= np.float32(1.0 / chars)
        if config.clip_norm is None:
            norm = global_norm(grads)
        else:
            grads, norm = clip_global_norm(grads, config.clip_norm)
        if not math.isfinite(loss):
            raise _NonFinite(f"the loss is {loss}")
        if not math.isfinite(norm):
            raise _NonFinite(f"the gradient norm is {norm}")
        params, opt_state = OPTIMIZERS[config.optimizer][1](state.params, grads, state.opt_state, lr)
    if not all(np.isfinite(p).all() for p in params.values()):
        raise _NonFinite("the update made a parameter non-finite")
    epoch, next_window, h, c = state.epoch, state.next_window + 1, h_last, c_last
    if next_window == run.batcher.windows_per_pass:  # end of a pass: start again, from a zero state
        epoch, next_window, h, c = epoch + 1, 0, np.zeros_like(h_last), (None if c is None else np.zeros_like(c))
    after = replace(
        state, params=params, opt_state=opt_state, step=state.step + 1, epoch=epoch, next_window=next_window, h=h, c=c
    )
    return after, loss / chars / LN2, norm


def _every(interval, step):
    """Whether something done every ``interval`` steps (0: never) is due after ``step``."""
    return bool(interval) and step % interval == 0


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


def _trim(history, step):
    """Drop records of steps after ``step``."""
    n = sum(1 for s in history.step if s <= step)
    for name in ("step", "train_bpc", "grad_norm", "lr", "elapsed"):
        del getattr(history, name)[n:]
    m = sum(1 for s in history.val_step if s <= step)
    for name in ("val_step", "val_bpc", "val_elapsed"):
        del getattr(history, name)[m:]


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
        params=state.params,
        vocab=run.vocab,
        history=history,
        config=run.config,
        state=state,
        stopped=stopped,
        message=message,
        val_bpc=history.val_bpc[-1] if history.val_bpc else None,
        train_bpc=float(np.mean(recent)) if recent else None,
        steps_per_second=(state.step - run.start_step) / max(time.perf_counter() - run.t0, 1e-9),
        fingerprint=run.fingerprint,
    )


# -- validation and saving -------------------------------------------------------------------------


def _measure_val_bpc(run, state, history):
    """Record val_bpc for ``state`` in the history (nothing without a validation text).

    val_bpc is ``bits_per_char(params, val_ids, n_streams=val_streams, window=VAL_WINDOW)``:
    the held-out text cut into ``val_streams`` equal contiguous pieces read side by side, each
    from a zero hidden state carried across the whole piece.
    """
    if run.config.val_fraction == 0:
        return
    t0 = time.perf_counter()
    n_streams = min(run.config.val_streams, max(1, len(run.val_ids) - 1))
    with np.errstate(over="ignore", invalid="ignore"):  # after a divergence the figure may be inf
        value = bits_per_char(state.params, run.val_ids, n_streams=n_streams, window=VAL_WINDOW)
    history.val_step.append(state.step)
    history.val_bpc.append(value)
    history.val_elapsed.append(run.elapsed())
    run.eval_seconds = time.perf_counter() - t0  # kept in reserve in the time budget


def _save(run, state, history):
    t0 = time.perf_counter()
    save_checkpoint(
        run.path,
        state.params,
        run.vocab,
        optimizer=run.config.optimizer,
        opt_state=state.opt_state,
        step=state.step,
        h=state.h,
        c=state.c,
        history=history.arrays(),
        meta={
            "config": run.config.to_dict(),
            "epoch": state.epoch,
            "window": state.next_window,  # the file's name for it
            "elapsed": state.elapsed,
            "fingerprint": run.fingerprint,
        },
    )
    run.save_seconds = time.perf_counter() - t0  # kept in reserve in the time budget


# -- setting up: the config, the data, a fresh or a resumed state ---------------------------------


@dataclass
class _Run:
    """What one call of ``train`` works with besides the state and the history."""

    config: TrainConfig
    vocab: Vocabulary
    loss_and_grads: Callable  # the model's (params, X, Y, h0, c0) -> (loss, grads, h_last, c_last)
    batcher: StreamBatcher
    val_ids: np.ndarray
    path: Path | None
    fingerprint: dict
    start_step: int
    start_elapsed: float
    budget_t0: float  # the perf_counter reading max_seconds counts from
    t0: float = field(default_factory=time.perf_counter)
    eval_seconds: float = 0.0  # the last validation's and save's durations
    save_seconds: float = 0.0

    def elapsed(self):
        """Seconds of training so far, counting those before a resume."""
        return self.start_elapsed + time.perf_counter() - self.t0

    def out_of_time(self, seconds):
        """Whether, ``seconds`` into the budget, what is left no longer holds a final validation and save
        (as long as the last ones took): then training stops so that the whole call fits in max_seconds."""
        limit = self.config.max_seconds
        return limit is not None and seconds + self.eval_seconds + self.save_seconds >= limit


def _model(config):
    """(init_params, loss_and_grads) of the network ``config`` describes: the one place a cell is chosen.

    loss_and_grads(params, X, Y, h0, c0) -> (loss, grads, h_last, c_last): the cell's own, with the
    state as two arrays for both cells (c0 and c_last are None for the vanilla RNN, which has no c).
    """
    module = cell_module(config.cell)
    if config.cell == "lstm":

        def loss_and_grads(params, X, Y, h0, c0):
            loss, grads, (h_last, c_last) = module.loss_and_grads(params, X, Y, (h0, c0))
            return loss, grads, h_last, c_last

    else:

        def loss_and_grads(params, X, Y, h0, c0):
            return (*module.loss_and_grads(params, X, Y, h0), None)

    return module.init_params, loss_and_grads


def _setup(data, config, overrides, vocab, checkpoint, resume, started):
    """(_Run, TrainState, History) for a call of train, after checking every argument."""
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
    init, loss_and_grads_fn = _model(config)
    state, history = _starting_state(config, vocab, fingerprint, path, resume, init)
    run = _Run(
        config=config, vocab=vocab, loss_and_grads=loss_and_grads_fn, batcher=batcher, val_ids=val_ids, path=path, fingerprint=fingerprint,
        start_step=state.step, start_elapsed=state.elapsed, budget_t0=time.perf_counter() if started is None else started,
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
    ids = np.asarray(data)
    if ids.ndim != 1 or ids.dtype.kind not in "iu":
        raise ValueError(f"character indices must be a 1-D integer array, got shape {ids.shape}, dtype {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab.size):
        raise ValueError(f"character indices must lie in 0..{vocab.size - 1} for this vocabulary")
    return ids.astype(np.int64), vocab


def _starting_state(config, vocab, fingerprint, path, resume, init):
    """(TrainState, History): fresh, from the checkpoint at ``path``, or from an earlier TrainResult."""
    if isinstance(resume, TrainResult):
        if resume.vocab != vocab or resume.fingerprint != fingerprint:
            raise ValueError("cannot resume: that result was trained on a different text")
        _check_resume_config(resume.config.to_dict(), config, "that result")
        return resume.state, resume.history.copy()
    if resume is not True and resume is not False:
        raise TypeError(f"resume must be True, False or a TrainResult, got {type(resume).__name__}")
    if resume and path is None:
        raise ValueError("resume=True needs checkpoint=PATH to resume from")
    if resume:
        return _state_from_checkpoint(path, config, vocab, fingerprint)
    params = init(vocab.size, config.hidden_size, seed=config.seed, dtype=np.float32, recurrent_scale=config.init_scale)
    h = np.zeros((config.batch_size, config.hidden_size), dtype=np.float32)
    c = np.zeros_like(h) if config.cell == "lstm" else None
    opt_state = OPTIMIZERS[config.optimizer][0](params)
    return TrainState(params=params, opt_state=opt_state, step=0, epoch=0, next_window=0, h=h, c=c, elapsed=0.0), History()


def _check_resume_config(old, config, where):
    old = {"cell": "rnn", **old}  # saved before there was a cell: the vanilla RNN
    for name in _RESUME_FIXED:
        if old.get(name) != getattr(config, name):
            raise ValueError(
                f"cannot resume {where}: it was trained with {name}={old.get(name)!r}, this run asks for "
                f"{name}={getattr(config, name)!r}; use the same value or start afresh"
            )


def _state_from_checkpoint(path, config, vocab, fingerprint):
    """(TrainState, History) stored at ``path``, after checking it continues this run.

    A checkpoint written before rnn_core stopped storing a random generator's state (an
    unused ``rng_state`` entry) loads the same way: that entry is ignored.
    """
    ck = load_checkpoint(path)
    where = f"from {path}"
    if ck.vocab != vocab:
        raise CheckpointError(f"cannot resume {where}: its vocabulary ({ck.vocab.size} characters) differs from this text's ({vocab.size})")
    if not ck.meta or ck.opt_state is None or ck.h is None:
        raise CheckpointError(f"cannot resume {where}: it holds a model but no training state (optimizer, data position)")
    _check_resume_config(ck.config, config, where)
    if ck.meta.get("fingerprint") != fingerprint:
        raise CheckpointError(f"cannot resume {where}: it was trained on a different text (length or contents differ)")
    if ck.optimizer != config.optimizer:
        raise CheckpointError(f"cannot resume {where}: it holds {ck.optimizer} state, this run uses {config.optimizer}")
    if ck.h.shape != (config.batch_size, config.hidden_size):
        raise CheckpointError(f"cannot resume {where}: hidden state has shape {ck.h.shape}")
    if (ck.c is None) != (config.cell != "lstm") or (ck.c is not None and ck.c.shape != ck.h.shape):
        raise CheckpointError(f"cannot resume {where}: an {config.cell} needs {'a' if config.cell == 'lstm' else 'no'} cell state 'c'")
    for key in ("epoch", "window", "elapsed"):
        if key not in ck.meta:
            raise CheckpointError(f"cannot resume {where}: 'meta' has no {key!r}")
    state = TrainState(
        params=ck.params, opt_state=ck.opt_state, step=ck.step, epoch=int(ck.meta["epoch"]),
        next_window=int(ck.meta["window"]), h=ck.h, c=ck.c, elapsed=float(ck.meta["elapsed"]),
    )
    return state, History.from_arrays(ck.history)


# -- the progress bar --------------------------------------------------------------------------------


class _ProgressBar:
    """A tqdm.auto bar (a widget in JupyterLab, text on stderr in a terminal) showing the live loss.

    Its train_bpc is an exponential average of the steps' figures (weight BAR_SMOOTHING on the
    past); its text changes every BAR_TEXT_EVERY steps and after each validation.
    """

    def __init__(self, total, initial):
        from tqdm.auto import tqdm

        self.tqdm = tqdm(
            total=total, initial=initial, unit="step", dynamic_ncols=True, smoothing=0.05, mininterval=BAR_REDRAW_SECONDS
        )
        self.ema = None

    @classmethod
    def open(cls, progress, total, initial):
        """A bar, or None when ``progress`` is false."""
        return cls(total, initial) if progress else None

    def step(self, bpc, history, lr, redraw_text=False):
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
