"""Checkpoints: a trained network, and everything needed to resume its training, in one .npz file.

The file is a plain numpy ``.npz`` archive that ``np.load(path,
allow_pickle=False)`` opens; every entry is an array:

=====================  ==========================================================
``W_xh, W_hh, W_yh,``  the parameters, under the names of the equations: the vanilla
``b_h, b_o``           RNN's, or the LSTM's or the GRU's ``W_x, W_h, b, W_yh, b_o``
                       (``meta``'s ``cell`` says which);
                       a stack of layers adds each further layer's (``W_xh_1``, ... or ``W_x_1``, ...)
``vocab``              the vocabulary's characters as Unicode code points (uint32, V)
``h``                  the hidden state carried into the next window, (B, H), or (L, B, H)
                       for a stack of L layers
``c``                  the LSTM only: its cell state carried with h, shaped like h
``opt.<name>[.<key>]`` the optimizer state, e.g. ``opt.t``, ``opt.m.W_hh``, ``opt.v.W_hh``
                       (Adam), ``opt.G.W_hh`` (Adagrad), nothing for SGD
``history.<field>``    the training history (step, train_bpc, ..., val_bpc)
``meta``               JSON as uint8 bytes: format and version, step, position in the
                       data (``epoch``: passes done; ``window``: the next window),
                       the cell ("rnn", "lstm" or "gru"; required), optimizer name, the training
                       configuration, a fingerprint of the training text, elapsed time
=====================  ==========================================================

Only the parameters and the vocabulary are needed to sample text; the rest
makes resuming bit-identical (``rnn_core.train`` with ``resume=True``).

Writing is atomic: the archive goes to a temporary file in the same folder,
which then replaces the target in one rename, so a crash mid-write leaves the
previous checkpoint intact. Reading checks everything it uses and raises
``CheckpointError`` (a ValueError) naming what is wrong with a corrupt or
mismatched file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._cell import count_layers
from ._validation import check_checkpoint_path, check_int
from .cells import cell_module, check_cell_params, num_layers
from .files import write_atomically
from .optim import OPTIMIZERS
from .vocab import Vocabulary

__all__ = ["CheckpointError", "Checkpoint", "save_checkpoint", "load_checkpoint", "FORMAT", "VERSION"]

FORMAT = "rnn_core-checkpoint"
VERSION = 2  # 2: the cell always recorded, no rng_state, config fields under today's names (CHANGES.md)


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: corrupt, incomplete or mismatched."""


@dataclass
class Checkpoint:
    """What a checkpoint file holds, as Python objects.

    params: dict W_xh, W_hh, W_yh, b_h, b_o (the LSTM's and the GRU's: W_x, W_h, b, W_yh, b_o),
    and a stack's further layers' arrays;
    cell: "rnn", "lstm" or "gru", the cell the parameters belong to; vocab: a Vocabulary;
    optimizer: "adam", "adagrad", "momentum", "sgd" or None; opt_state: the state dict that
    optimizer's update function takes (or None); step: optimizer steps done;
    h: the carried hidden state (B, H) (a stack: (L, B, H)) or None; c: the LSTM's carried cell
    state, shaped like h, or None; history: dict of arrays (may be empty); meta: the rest of the
    JSON metadata (config, data position, text fingerprint, elapsed seconds).
    """

    params: dict
    vocab: Vocabulary
    cell: str
    optimizer: str | None = None
    opt_state: dict | None = None
    step: int = 0
    h: np.ndarray | None = None
    history: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    c: np.ndarray | None = None

    @property
    def config(self):
        """The training configuration stored with the checkpoint, a dict (empty if none)."""
        return dict(self.meta.get("config", {}))

    @property
    def carried(self):
        """The carried state as {name: (B, H) array}, one per name of the cell's STATE_NAMES
        ({"h": h}, or the LSTM's {"h": h, "c": c}); None if the file lacks any of them."""
        arrays = {"h": self.h, "c": self.c}
        names = cell_module(self.cell).STATE_NAMES
        return None if any(arrays[name] is None for name in names) else {name: arrays[name] for name in names}

    @property
    def hidden_size(self):
        return self.params["W_yh"].shape[1]

    @property
    def num_layers(self):
        return num_layers(self.params, self.cell)

    def __repr__(self):
        layers = "" if self.num_layers == 1 else f"L={self.num_layers}, "
        return (
            f"Checkpoint(cell={self.cell}, step={self.step}, H={self.hidden_size}, {layers}V={self.vocab.size}, "
            f"optimizer={self.optimizer})"
        )


def _json_bytes(obj):
    return np.frombuffer(json.dumps(obj, sort_keys=True).encode("utf-8"), dtype=np.uint8)


def _flatten_opt_state(opt_state):
    arrays = {}
    for name, value in opt_state.items():
        if isinstance(value, dict):
            for k, arr in value.items():
                arrays[f"opt.{name}.{k}"] = np.asarray(arr)
        else:
            arrays[f"opt.{name}"] = np.asarray(value)
    return arrays


def _unflatten_opt_state(arrays):
    state = {}
    for key, arr in arrays.items():
        parts = key.split(".")
        if len(parts) == 2:
            state[parts[1]] = int(arr) if arr.dtype.kind in "iu" else arr.item() if arr.ndim == 0 else arr
        elif len(parts) == 3:
            state.setdefault(parts[1], {})[parts[2]] = arr
        else:
            raise CheckpointError(f"unexpected optimizer entry {key!r}")
    return state


def save_checkpoint(
    path,
    params,
    vocab,
    *,
    cell="rnn",
    optimizer=None,
    opt_state=None,
    step=0,
    h=None,
    c=None,
    history=None,
    meta=None,
):
    """Write a checkpoint to ``path`` atomically; returns the Path.

    params: dict W_xh, W_hh, W_yh, b_h, b_o, or an LSTM's or a GRU's W_x, W_h, b, W_yh, b_o, and a
    stack's further layers' arrays, checked as the parameters of the cell named ``cell`` ("rnn",
    "lstm" or "gru"), which the file records; vocab: Vocabulary of size V; h: the carried hidden
    state; c: the LSTM's cell state, carried like h. The keyword arguments are optional training
    state (see ``Checkpoint``); meta: extra JSON-serialisable metadata. The folder of
    ``path`` must exist. What load_checkpoint would refuse is refused here, before anything is
    written: a step that is not an integer >= 0, a state of the wrong shape, dtype or values.
    """
    path = Path(path)
    cell = check_cell_params(params, cell)
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a rnn_core.Vocabulary, got {type(vocab).__name__}")
    if vocab.size != params["W_yh"].shape[0]:
        raise ValueError(
            f"vocabulary has {vocab.size} characters but the parameters expect V={params['W_yh'].shape[0]}"
        )
    step = check_int(step, "step", 0)  # as load_checkpoint reads it: a file this writes, it reads
    check_checkpoint_path(path)
    arrays = {k: params[k] for k in cell_module(cell).param_names(num_layers(params, cell))}
    arrays["vocab"] = np.array([ord(c) for c in vocab.chars], dtype=np.uint32)
    for name, state in (("h", h), ("c", c)):
        if state is None:
            continue
        if name not in cell_module(cell).STATE_NAMES:
            raise ValueError(f"'c' is the LSTM's cell state, and the {cell} cell carries only 'h': leave c out")
        arrays[name] = np.asarray(state)
        problem = _state_problem(arrays[name], name, params, cell)
        if problem:
            raise ValueError(problem)
    if opt_state is not None:
        arrays.update(_flatten_opt_state(opt_state))
    for name, values in (history or {}).items():
        arrays[f"history.{name}"] = np.asarray(values)
    info = dict(meta or {})
    info.update({"format": FORMAT, "version": VERSION, "cell": cell, "step": step, "optimizer": optimizer})
    problem = _config_disagrees(info)
    if problem:
        raise ValueError(f"{problem}: pass the training config's own cell and optimizer")
    arrays["meta"] = _json_bytes(info)

    # a file object: numpy adds no ".npz" to the name
    return write_atomically(path, lambda f: np.savez(f, **arrays))


def load_checkpoint(path):
    """Read a checkpoint written by ``save_checkpoint``; returns a ``Checkpoint``.

    Raises FileNotFoundError if there is no such file, and CheckpointError (a
    ValueError) if it is not a readable rnn_core checkpoint or its parts do
    not fit together.
    """
    path = Path(path)
    arrays = _read_archive(path)

    def bad(msg):
        return CheckpointError(f"checkpoint {path} is unusable: {msg}")

    meta = _read_json(arrays, "meta", bad)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise bad(f"it has no 'meta' describing an {FORMAT} file")
    version = meta.get("version")
    if version != VERSION:
        newer = isinstance(version, int) and version > VERSION
        raise bad(
            f"written by a {'newer' if newer else 'earlier'} rnn_core (file format {version}, this one reads "
            f"{VERSION}): {'upgrade rnn_core' if newer else 'train it again with this rnn_core (CHANGES.md)'}"
        )
    cell = meta.get("cell")
    try:
        cell_module(cell)
    except (TypeError, ValueError) as e:
        raise bad(f"'meta': {e}") from None
    problem = _config_disagrees(meta)
    if problem:
        raise bad(problem)
    params, vocab = _read_model(arrays, cell, bad)
    try:
        step = check_int(meta.get("step", 0), "step", 0)
    except (TypeError, ValueError) as e:
        raise bad(str(e)) from None
    return Checkpoint(
        params=params,
        vocab=vocab,
        optimizer=meta.get("optimizer"),
        opt_state=_read_opt_state(arrays, params, meta, bad),
        step=step,
        **{name: _read_state(arrays, name, params, cell, bad) for name in cell_module(cell).STATE_NAMES},
        cell=cell,
        history={k[len("history.") :]: v for k, v in arrays.items() if k.startswith("history.")},
        meta=meta,
    )


def _config_disagrees(meta):
    """What is wrong where a checkpoint's meta records the cell or the optimizer twice, as a training run's file
    does (``meta["config"]``, the run's TrainConfig, beside the file's own), and the two differ; else None."""
    config = meta.get("config")
    if not isinstance(config, dict):
        return None
    for name in ("cell", "optimizer"):
        if name in config and config[name] != meta.get(name):
            return f"its {name} is {meta.get(name)!r} but its training config says {config[name]!r}"
    return None


def _read_archive(path):
    """Every array in the .npz file at ``path``, as a dict."""
    if not path.exists():
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {path} is not a file")
    try:
        # open the file ourselves: np.load leaves its own handle open when the archive is damaged
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as e:  # a damaged archive fails in many ways (zip, header, size, CRC)
        raise CheckpointError(f"checkpoint {path} is corrupt or not a .npz file ({type(e).__name__}: {e})") from None
    if not isinstance(arrays, dict) or not arrays:
        raise CheckpointError(f"checkpoint {path} holds no arrays")
    return arrays


def _read_model(arrays, cell, bad):
    """(params, vocab) of the cell ``cell`` from the archive's arrays, checked against each other."""
    module = cell_module(cell)
    names = module.param_names(count_layers(arrays, module.LAYER_NAMES))  # the layers the names say, unchecked yet
    missing = [k for k in (*names, "vocab") if k not in arrays]
    if missing:
        raise bad(f"missing {', '.join(missing)} (is it an rnn_core checkpoint of the {cell} cell?)")
    params = {k: arrays[k] for k in names}
    try:
        check_cell_params(params, cell)
    except (TypeError, ValueError) as e:
        raise bad(str(e)) from None
    codes = arrays["vocab"]
    if codes.ndim != 1 or codes.dtype.kind not in "iu" or codes.size == 0:
        raise bad(f"'vocab' must be a 1-D array of code points, got shape {codes.shape}, dtype {codes.dtype}")
    if codes.max() > 0x10FFFF:
        raise bad("'vocab' holds a value that is not a Unicode code point")
    try:
        vocab = Vocabulary("".join(chr(int(c)) for c in codes))
    except ValueError as e:
        raise bad(f"'vocab': {e}") from None
    V = params["W_yh"].shape[0]
    if vocab.size != V:
        raise bad(f"the vocabulary has {vocab.size} characters but the parameters expect V={V}")
    return params, vocab


def _read_state(arrays, name, params, cell, bad):
    """The carried state ``name`` ("h", or the LSTM's "c"), (B, H) or a stack's (L, B, H), checked;
    None if the file has none."""
    s = arrays.get(name)
    if s is None:
        return None
    problem = _state_problem(s, name, params, cell)
    if problem:
        raise bad(problem)
    return s


def _state_problem(s, name, params, cell):
    """What is wrong with the carried state ``s`` (an array) for these parameters, or None: the rule
    save_checkpoint writes by and load_checkpoint reads by."""
    H, dtype, L = params["W_yh"].shape[1], params["W_yh"].dtype, num_layers(params, cell)
    lead = () if L == 1 else (L,)
    shape_ok = s.ndim == len(lead) + 2 and s.shape[: len(lead)] == lead and s.shape[-1] == H
    if shape_ok and s.dtype == dtype and np.isfinite(s).all():
        return None
    what = "hidden state" if name == "h" else "cell state"
    want = "(" + ", ".join(map(str, (*lead, "B", H))) + ")"
    return f"{what} {name!r} has shape {s.shape}, dtype {s.dtype}; expected {want}, {dtype}, finite"


def _read_opt_state(arrays, params, meta, bad):
    opt_arrays = {k: v for k, v in arrays.items() if k.startswith("opt.")}
    if not opt_arrays and meta.get("optimizer") != "sgd":
        return None
    opt_state = _unflatten_opt_state(opt_arrays)
    optimizer = meta.get("optimizer")
    want = OPTIMIZERS[optimizer][0](params) if optimizer in OPTIMIZERS else None  # what the optimizer keeps
    if want is not None and (
        set(opt_state) != set(want) or any(isinstance(opt_state[k], dict) != isinstance(want[k], dict) for k in want)
    ):
        raise bad(f"its {optimizer} state holds {sorted(opt_state) or 'nothing'}; {optimizer} keeps {sorted(want)}")
    for name, value in opt_state.items():
        if isinstance(value, dict):
            for k, arr in value.items():
                if k not in params or arr.shape != params[k].shape or arr.dtype != params[k].dtype:
                    raise bad(f"optimizer entry opt.{name}.{k} does not match the parameters")
            missing = [k for k in params if k not in value]
            if missing:
                raise bad(f"optimizer entry opt.{name} has nothing for {', '.join(missing)}")
        elif type(value) is not int or value < 0:
            raise bad(f"optimizer entry opt.{name} is {value!r}; expected a whole number ≥ 0 (a step count)")
    return opt_state


def _read_json(arrays, key, bad):
    if key not in arrays:
        return None
    raw = arrays[key]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise bad(f"{key!r} must be JSON stored as a 1-D uint8 array")
    try:
        return json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"{key!r} is not valid JSON ({e})") from None
