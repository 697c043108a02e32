"""Whether a run can continue from a checkpoint or an earlier result: the trainer's resume checks.

Resuming is bit-identical only if everything that shapes a step is the same: the cell and its
size, the batch and window, the optimizer, the split, dropout and its seed, and the text itself. These checks say
which one differs, before any step is taken.
"""

from __future__ import annotations

import math

from .cells import cell_module
from .checkpoint import CheckpointError, load_checkpoint

__all__ = ["RESUME_FIXED", "check_resume_config", "checkpoint_to_resume"]

# Fields that must agree between a checkpoint and the run that resumes it (dropout and seed: the
# masks are drawn from the seed and the step, so another of either is another run).
RESUME_FIXED = (
    "cell",
    "hidden_size",
    "num_layers",
    "batch_size",
    "seq_length",
    "optimizer",
    "val_fraction",
    "dropout",
    "seed",
)


def check_resume_config(old, config, where):
    """Raise ValueError if the stored config dict ``old`` and the TrainConfig ``config`` differ in a
    field of RESUME_FIXED; ``where`` says what is resumed (e.g. "from ck.npz")."""
    for name in RESUME_FIXED:
        if old.get(name) != getattr(config, name):
            raise ValueError(
                f"cannot resume {where}: it was trained with {name}={old.get(name)!r}, this run asks for "
                f"{name}={getattr(config, name)!r}; use the same value or start afresh"
            )


def checkpoint_to_resume(path, config, vocab, fingerprint):
    """The ``Checkpoint`` at ``path``, after checking that it continues this run.

    config: the run's TrainConfig; vocab, fingerprint: its text's vocabulary and
    ``text_fingerprint``. Raises CheckpointError (or ValueError, for a config that differs)
    naming the mismatch.
    """
    ck = load_checkpoint(path)
    where = f"from {path}"
    if ck.vocab != vocab:
        raise CheckpointError(
            f"cannot resume {where}: its vocabulary ({ck.vocab.size} characters) differs from this text's "
            f"({vocab.size})"
        )
    if not ck.meta or ck.opt_state is None or ck.h is None:
        raise CheckpointError(
            f"cannot resume {where}: it holds a model but no training state (optimizer, data position)"
        )
    check_resume_config(ck.config, config, where)
    if ck.meta.get("fingerprint") != fingerprint:
        raise CheckpointError(f"cannot resume {where}: it was trained on a different text (length or contents differ)")
    if ck.optimizer != config.optimizer:
        raise CheckpointError(f"cannot resume {where}: it holds {ck.optimizer} state, this run uses {config.optimizer}")
    names = cell_module(config.cell).STATE_NAMES
    if ck.carried is None:
        missing = [name for name in names if getattr(ck, name) is None]
        raise CheckpointError(
            f"cannot resume {where}: the {config.cell} cell carries {' and '.join(names)} from window to window, "
            f"and the file holds no {' or '.join(repr(m) for m in missing)}"
        )
    shape = (config.batch_size, config.hidden_size)
    shape = shape if config.num_layers == 1 else (config.num_layers, *shape)
    for name, s in ck.carried.items():
        if s.shape != shape:
            raise CheckpointError(f"cannot resume {where}: the carried state {name!r} has shape {s.shape}")
    for key in ("epoch", "window", "elapsed"):
        if key not in ck.meta:
            raise CheckpointError(f"cannot resume {where}: 'meta' has no {key!r}")
        value, whole = ck.meta[key], key != "elapsed"
        if not (type(value) is int or (type(value) is float and not whole)) or not 0 <= value < math.inf:
            what = "a whole number" if whole else "a number of seconds"
            raise CheckpointError(f"cannot resume {where}: 'meta' {key!r} is {value!r}; expected {what} ≥ 0")
    return ck
