"""Checking arguments in one place, so every function words a bad value the same way.

In the spirit of scikit-learn's ``check_scalar``: each check returns the value it accepted and
raises TypeError for a value of the wrong kind or ValueError for one out of range, with a
message that starts with the argument's name and says what is expected (two arguments that cannot
go together, as ``dropout`` and ``masks`` cannot, are a TypeError, as Python's own are), e.g.
``hidden_size must be a positive integer, got 0``. What a check asks for ("a positive integer",
">= 0 and < 1") is worded by ``int_requirement`` and ``number_requirement``, which the command
line's flag types use too, so a bad flag reads the same way.

The sequence checks (``prepare_sequences``, ``check_state``) are shared by every cell type: a
window of character indices is (T,) for one sequence or (B, T) for a batch, and a recurrent
state is (H,) or (B, H) to match, with a layer axis in front for a stack of layers.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = [
    "check_int",
    "check_number",
    "check_bool",
    "check_choice",
    "int_requirement",
    "number_requirement",
    "check_checkpoint_path",
    "check_param_arrays",
    "check_shapes",
    "check_indices",
    "prepare_sequences",
    "check_state",
]


def check_int(value, name, minimum=1, *, allow_none=False):
    """``value`` as an int >= minimum (or None, if allow_none); bools are not integers."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {'None or ' if allow_none else ''}an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {int_requirement(minimum)}, got {value!r}")
    return int(value)


def int_requirement(minimum=1):
    """What ``check_int(..., minimum)`` asks for, as its message words it: "a positive integer", ">= 0"."""
    return "a positive integer" if minimum == 1 else f">= {minimum}"


def check_number(value, name, low=None, high=None, *, include_low=False, include_high=True, allow_none=False):
    """``value`` unchanged if it is a finite real number between low and high (None: no bound).

    include_low / include_high: whether the bound itself is allowed (by default "> low" and
    "<= high"). With allow_none, None passes too.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {'None or ' if allow_none else ''}a number, got {value!r}")
    above = low is None or (value >= low if include_low else value > low)
    below = high is None or (value <= high if include_high else value < high)
    if not (math.isfinite(value) and above and below):
        wanted = number_requirement(low, high, include_low=include_low, include_high=include_high)
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return value


def check_bool(value, name):
    """``value`` as a bool, True or False (numpy's included); anything else, even 0 or 1, is a TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(value, name, choices):
    """``value`` unchanged if it is one of ``choices`` (strings): a TypeError for a value that is not a
    string, a ValueError for one that is not among them; both messages list the choices."""
    listed = ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {listed}, got {value!r}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def number_requirement(low=None, high=None, *, include_low=False, include_high=True):
    """What ``check_number`` with these bounds asks for, as its message words it: "> 0",
    ">= 0 and < 1", or "finite" without bounds."""
    bounds = []
    if low is not None:
        bounds.append(f"{'>=' if include_low else '>'} {low}")
    if high is not None:
        bounds.append(f"{'<=' if include_high else '<'} {high}")
    return " and ".join(bounds) or "finite"


def check_checkpoint_path(path, name="checkpoint"):
    """``path`` as a Path a checkpoint can be written to: a file name in a writable folder that exists."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{name} {path} is a folder; give a file name such as {path / 'rnn.npz'}")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"{name} folder {path.parent} does not exist; create it first or choose another path")
    if not os.access(path.parent, os.W_OK):
        raise PermissionError(f"{name} folder {path.parent} is not writable; choose another path")
    return path


def check_param_arrays(params, names, made_by):
    """``params`` as a dict holding numpy arrays under every key of ``names``: all float32 or all
    float64, and finite. made_by names the function that builds such a dict (for the messages).
    The shapes are for the caller to check."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict with keys {', '.join(names)}; got {type(params).__name__}")
    missing = [k for k in names if k not in params]
    if missing:
        raise ValueError(f"params is missing {', '.join(missing)}; it needs {', '.join(names)} (see {made_by})")
    for k in names:
        if not isinstance(params[k], np.ndarray):
            raise TypeError(f"params[{k!r}] must be a numpy array, got {type(params[k]).__name__}")
    if len({params[k].dtype for k in names}) != 1 or params[names[0]].dtype not in (np.float32, np.float64):
        found = ", ".join(f"{k}: {params[k].dtype}" for k in names)
        raise TypeError(f"parameters must all be float32 or all float64 ({found}); convert with .astype")
    for k in names:
        if not np.isfinite(params[k]).all():
            raise ValueError(f"{k} contains NaN or infinity: training diverged or the array is corrupt; re-initialise")
    return params


# -- windows of character indices, and recurrent states ----------------------------------------


def check_shapes(params, shapes, implied_by):
    """Each params[k] has shape shapes[k]; `implied_by` says where the sizes came from, e.g.
    "W_xh (8, 5) implies H=8, V=5"."""
    for k, shape in shapes.items():
        if params[k].shape != shape:
            raise ValueError(f"{k} has shape {params[k].shape} but {implied_by}, so {k} must be {shape}")


_SHAPES = {(1, 2): "(T,) or (B, T)", (1,): "(N,)", (0, 1): "() or (B,)"}  # how the messages write an ndim


def check_indices(a, name, size, *, ndim=(1, 2), min_size=1, what="character indices", among=None, shape=None):
    """``a`` as an integer array of indices in 0..size-1, the one check of character (or class, or
    token) indices.

    TypeError when ``a`` does not hold integers (an int, or an int array; an empty list or tuple,
    which has no dtype of its own, counts as integers); ValueError for a wrong value: an ndim not in
    ``ndim`` (None: any), fewer than ``min_size`` entries, an index outside 0..size-1 (size None: not
    checked). ``what`` names the indices, ``among`` their range (default: "the vocabulary of size
    V=...") and ``shape`` the shape ``ndim`` asks for (default: "(T,) or (B, T)" and the like) in the
    messages. By default a window: (T,) or (B, T), not empty.
    """
    given, a = a, np.asarray(a)
    if a.size == 0 and isinstance(given, (list, tuple)):
        a = a.astype(np.intp)  # [] is float64 to numpy: a default, not the caller's choice
    if a.dtype.kind not in "iu":
        one = "an integer or " if ndim is None or 0 in ndim else ""
        hint = "; encode text first with a Vocabulary" if a.dtype.kind in "US" else ""
        raise TypeError(f"{name} must be {one}an integer array of {what}, got dtype {a.dtype}{hint}")
    if ndim is not None and a.ndim not in ndim:
        raise ValueError(f"{name} must have shape {shape or _SHAPES[tuple(ndim)]}, got {a.shape}")
    if a.size < min_size:
        have = "is empty" if a.size == 0 else f"holds {a.size}"
        need = "one time step" if min_size == 1 else f"{min_size} {what}"
        raise ValueError(f"{name} {have} (shape {a.shape}): give at least {need}")
    if size is not None and a.size:
        lo, hi = a.min(), a.max()
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            among = f"the vocabulary of size V={size}" if among is None else among
            raise ValueError(f"{name} holds index {bad}, outside {among} (valid: 0..{size - 1})")
    return a


def prepare_sequences(inputs, targets, vocab_size):
    """Check a window of inputs (and targets) and turn it time-major, as the time loops read it.

    inputs, targets: int arrays (T,) for one sequence or (B, T) for a batch, of the same shape;
    targets may be None. Returns (X, Y, single): X and Y of shape (T, B), contiguous (Y is None
    without targets; B = 1 for one sequence), and single, True when inputs was (T,).
    """
    X = check_indices(inputs, "inputs", vocab_size)
    Y = None if targets is None else check_indices(targets, "targets", vocab_size)
    if Y is not None and Y.shape != X.shape:
        raise ValueError(f"inputs and targets must have the same shape, got {X.shape} and {Y.shape}")
    single = X.ndim == 1

    def time_major(a):
        return np.ascontiguousarray((a[None, :] if single else a).T)

    return time_major(X), (None if Y is None else time_major(Y)), single


def check_state(state, name, hidden_size, batch_size, single, dtype, num_layers=1):
    """A starting state as a new (L, B, H) array of ``dtype``: zeros for None.

    Given, it must have shape (H,) for one sequence (single) or (B, H) for a batch, with a layer
    axis in front for a stack of L = num_layers > 1 layers, (L, H) or (L, B, H); hold floats; and
    be finite. ``name`` (e.g. "h0") is what the messages call it.
    """
    H, B, L = hidden_size, batch_size, num_layers
    if state is None:
        return np.zeros((L, B, H), dtype=dtype)
    state = np.asarray(state)
    want = ((H,) if single else (B, H)) if L == 1 else ((L, H) if single else (L, B, H))
    if state.shape != want:
        kind = "one sequence" if single else f"a batch of B={B} sequences"
        layers = "" if L == 1 else f" and {L} layers"
        raise ValueError(f"{name} must have shape {want} for {kind} with H={H}{layers}, got {state.shape}")
    if state.dtype.kind != "f":
        raise TypeError(f"{name} must be a float array, got dtype {state.dtype}")
    if not np.isfinite(state).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return np.array(state, dtype=dtype).reshape(L, B, H)
