"""What defines a training run: ``TrainConfig``, and its learning-rate schedule ``learning_rate_at``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from ._validation import check_choice, check_int, check_number
from .cells import CELLS
from .optim import OPTIMIZERS

__all__ = ["TrainConfig", "learning_rate_at", "LR_SCHEDULES"]

LR_SCHEDULES = ("linear", "constant")


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines a training run; the defaults train well on the novel.

    Model and data:
      cell: "rnn", the vanilla RNN (rnn_core.rnn), "lstm" (rnn_core.lstm) or "gru" (rnn_core.gru).
      hidden_size: H, the number of hidden units (in each layer).
      num_layers: L, the number of stacked layers (each reads the h_t of the one below).
      batch_size: B, the number of parallel streams in a batch.
      seq_length: T, the characters per window (the truncation length of BPTT).
      val_fraction: the share of the text (its end) held out for validation.
    Optimisation:
      optimizer: "adam", "adagrad", "momentum" (SGD with momentum) or "sgd".
      learning_rate: the peak step size.
      lr_schedule: "linear" (hold, then decay over the last ``decay_fraction``
        of the budget to ``final_lr_fraction`` times the peak) or "constant".
      warmup_steps: steps of linear warm-up from 0 to the peak rate.
      clip_norm: global-norm clipping threshold, or None for no clipping.
      recurrent_scale: ρ, the spectral radius of the initial W_hh (``init_params``'
        argument of the same name; for the gated cells, of each gate's block of W_h).
      dropout: a rate in [0, 1), the probability of dropping each unit of h_t where it leaves its
        layer (into the next layer, or the output layer; never along the recurrence), during
        training only, with masks seeded by ``seed`` and the step (Zaremba et al. 2014). 0: none.
    Budget and bookkeeping:
      steps: total optimizer steps (counting steps done before a resume).
      max_seconds: wall-clock budget of one call in seconds, or None (the
        schedule, and so the result, then depends on the machine's speed).
      eval_every: steps between validations (0: only at the end).
      val_streams: pieces the validation text is cut into, read side by side,
        each from a zero hidden state carried across the whole piece.
      checkpoint_every: steps between checkpoint saves (0: only at the end).
      patience: stop after this many validations in a row without a new best val_bpc
        (early stopping; 0: never). The best parameters are kept either way (TrainResult.best_params,
        and a checkpoint of their own beside the last one).
      seed: seeds the initial weights and the dropout masks, the only random draws of training.
    """

    cell: str = "rnn"
    hidden_size: int = 256
    num_layers: int = 1
    batch_size: int = 32
    seq_length: int = 32
    learning_rate: float = 5e-3
    optimizer: str = "adam"
    lr_schedule: str = "linear"
    warmup_steps: int = 0
    decay_fraction: float = 1.0
    final_lr_fraction: float = 0.02
    clip_norm: float | None = 5.0
    recurrent_scale: float = 1.0
    dropout: float = 0.0
    steps: int = 20_000
    max_seconds: float | None = None
    val_fraction: float = 0.1
    eval_every: int = 500
    val_streams: int = 4
    checkpoint_every: int = 1000
    patience: int = 0
    seed: int = 0

    def __post_init__(self):
        self.validate()

    def validate(self):
        """Raise ValueError/TypeError naming the first field with a bad value; returns the config."""
        for name in ("hidden_size", "num_layers", "batch_size", "seq_length", "steps", "val_streams"):
            check_int(getattr(self, name), name, 1)
        for name in ("warmup_steps", "eval_every", "checkpoint_every", "patience", "seed"):
            check_int(getattr(self, name), name, 0)
        check_number(self.learning_rate, "learning_rate", 0)
        check_number(self.clip_norm, "clip_norm", 0, allow_none=True)
        check_number(self.max_seconds, "max_seconds", 0, allow_none=True)
        check_number(self.recurrent_scale, "recurrent_scale", 0)
        check_number(self.dropout, "dropout", 0, 1, include_low=True, include_high=False)
        check_number(self.decay_fraction, "decay_fraction", 0, 1, include_low=True)
        check_number(self.final_lr_fraction, "final_lr_fraction", 0, 1, include_low=True)
        check_number(self.val_fraction, "val_fraction", 0, 1, include_low=True, include_high=False)
        check_choice(self.cell, "cell", tuple(CELLS))
        check_choice(self.optimizer, "optimizer", tuple(sorted(OPTIMIZERS)))
        check_choice(self.lr_schedule, "lr_schedule", tuple(LR_SCHEDULES))
        return self

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        """A config from a dict such as ``to_dict()`` gives; a key that is not a field is a ValueError
        (a checkpoint's configuration has exactly these fields: its file format is checked on loading)."""
        unknown = sorted(set(d) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"not TrainConfig settings: {', '.join(map(str, unknown))}")
        return cls(**d)


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
