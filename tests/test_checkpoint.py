"""Checkpoint files (rnn_core.checkpoint): contents, atomic writes, clear errors on bad files."""

import json
import re

import numpy as np
import pytest

from rnn_core import PARAM_NAMES, Vocabulary, adam_init, init_params, momentum_init, momentum_update
from rnn_core.checkpoint import CheckpointError, load_checkpoint, save_checkpoint

TEXT = "the cat sat on the mat\n"


@pytest.fixture
def model():
    vocab = Vocabulary.from_text(TEXT)
    params = init_params(vocab.size, 8, seed=3, dtype=np.float32)
    opt = adam_init(params)
    opt["t"] = 7
    opt["m"]["W_hh"] += 0.25
    return {
        "params": params,
        "vocab": vocab,
        "optimizer": "adam",
        "opt_state": opt,
        "step": 7,
        "h": np.full((2, 8), 0.5, dtype=np.float32),
        "history": {"step": np.arange(1, 8), "train_bpc": np.linspace(4, 3, 7)},
        "meta": {"epoch": 1, "window": 2, "config": {"hidden_size": 8}},
    }


def save(path, m):
    return save_checkpoint(
        path, m["params"], m["vocab"], **{k: v for k, v in m.items() if k not in ("params", "vocab")}
    )


def test_round_trip(tmp_path, model):
    path = save(tmp_path / "ck.npz", model)
    ck = load_checkpoint(path)
    for k in PARAM_NAMES:
        assert np.array_equal(ck.params[k], model["params"][k]) and ck.params[k].dtype == np.float32
    assert ck.vocab == model["vocab"]
    assert ck.optimizer == "adam" and ck.step == 7
    assert ck.opt_state["t"] == 7 and isinstance(ck.opt_state["t"], int)
    for k in PARAM_NAMES:
        assert np.array_equal(ck.opt_state["m"][k], model["opt_state"]["m"][k])
        assert np.array_equal(ck.opt_state["v"][k], model["opt_state"]["v"][k])
    assert np.array_equal(ck.h, model["h"])
    assert ck.cell == "rnn" and ck.meta["cell"] == "rnn" and ck.meta["version"] == 2
    assert np.array_equal(ck.history["train_bpc"], model["history"]["train_bpc"])
    assert ck.meta["epoch"] == 1 and ck.config == {"hidden_size": 8}


def test_plain_npz_with_named_arrays(tmp_path, model):
    path = save(tmp_path / "ck.npz", model)
    with np.load(path, allow_pickle=False) as z:
        names = set(z.files)
        assert set(PARAM_NAMES) <= names
        assert z["vocab"].dtype == np.uint32
        assert "".join(map(chr, z["vocab"])) == model["vocab"].chars
        assert "rng_state" not in names
        assert json.loads(z["meta"].tobytes())["step"] == 7
        assert {"opt.t", "opt.m.W_hh", "opt.v.b_o", "h"} <= names


def test_params_and_vocab_alone(tmp_path, model):
    path = save_checkpoint(tmp_path / "m.npz", model["params"], model["vocab"])
    ck = load_checkpoint(path)
    assert ck.opt_state is None and ck.h is None and ck.step == 0


def test_sgd_state_round_trips(tmp_path, model):
    path = save_checkpoint(tmp_path / "s.npz", model["params"], model["vocab"], optimizer="sgd", opt_state={})
    assert load_checkpoint(path).opt_state == {}


def test_momentum_state_round_trips(tmp_path, model):
    state = momentum_init(model["params"])
    state = momentum_update(model["params"], model["params"], state, 0.1)[1]  # some non-zero m
    path = save_checkpoint(tmp_path / "m.npz", model["params"], model["vocab"], optimizer="momentum", opt_state=state)
    ck = load_checkpoint(path)
    assert ck.optimizer == "momentum"
    assert all(np.array_equal(ck.opt_state["m"][k], state["m"][k]) for k in state["m"])


@pytest.mark.parametrize(
    "change, error, words",
    [
        ({"step": -1}, ValueError, "step must be >= 0"),
        ({"step": "7"}, TypeError, "step must be an integer"),
        ({"h": np.zeros((2, 5), np.float32)}, ValueError, "hidden state 'h' has shape (2, 5)"),
        ({"h": np.zeros((2, 8))}, ValueError, "dtype float64"),
        ({"h": np.full((2, 8), np.nan, np.float32)}, ValueError, "finite"),
        ({"c": np.zeros((2, 8), np.float32)}, ValueError, "carries only 'h'"),
    ],
)
def test_what_loading_would_refuse_is_refused_when_saving(tmp_path, model, change, error, words):
    """A file save_checkpoint writes, load_checkpoint reads: a bad step or state is an error before
    anything is written, not a file that fails later."""
    with pytest.raises(error, match=re.escape(words)):
        save(tmp_path / "ck.npz", {**model, **change})
    assert not any(tmp_path.iterdir())


def test_write_is_atomic(tmp_path, model, monkeypatch):
    path = save(tmp_path / "ck.npz", model)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        save(path, model)
    assert path.read_bytes() == before  # the old checkpoint survives
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.npz"]  # no temporary left


def test_missing_folder_on_save(tmp_path, model):
    with pytest.raises(FileNotFoundError, match="folder .* does not exist"):
        save(tmp_path / "nope" / "ck.npz", model)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_checkpoint(tmp_path / "none.npz")


@pytest.mark.parametrize("content", [b"", b"not a zip file at all", b"PK\x03\x04garbage"])
def test_garbage_is_a_clear_error(tmp_path, content):
    p = tmp_path / "bad.npz"
    p.write_bytes(content)
    with pytest.raises(CheckpointError, match="corrupt|holds no arrays"):
        load_checkpoint(p)


def test_truncated_file(tmp_path, model):
    path = save(tmp_path / "ck.npz", model)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(path)


def test_pickled_object_is_refused(tmp_path):
    p = tmp_path / "obj.npz"
    np.savez(p, W_xh=np.array([{"a": 1}], dtype=object))
    with pytest.raises(CheckpointError):
        load_checkpoint(p)


def test_not_an_rnn_checkpoint(tmp_path):
    p = tmp_path / "other.npz"
    np.savez(p, weights=np.zeros(3))
    with pytest.raises(CheckpointError, match="no 'meta' describing an rnn_core-checkpoint file"):
        load_checkpoint(p)
    meta = json.dumps({"format": "rnn_core-checkpoint", "version": 2, "cell": "rnn"}).encode()
    np.savez(p, weights=np.zeros(3), meta=np.frombuffer(meta, dtype=np.uint8))
    with pytest.raises(CheckpointError, match="missing W_xh"):
        load_checkpoint(p)


def _hand_made_checkpoint(tmp_path, model, chars=None, **changes):
    """A minimal .npz written without save_checkpoint: the weights, a vocabulary, the least 'meta', and ``changes``."""
    arrays = {k: model["params"][k].copy() for k in PARAM_NAMES}
    chars = model["vocab"].chars if chars is None else chars
    arrays["vocab"] = np.array([ord(c) for c in chars], dtype=np.uint32)
    meta = json.dumps({"format": "rnn_core-checkpoint", "version": 2, "cell": "rnn"}).encode()
    arrays["meta"] = np.frombuffer(meta, dtype=np.uint8)
    arrays.update(changes)
    p = tmp_path / "m.npz"
    np.savez(p, **arrays)
    return p


def test_mismatched_shapes(tmp_path, model):
    p = _hand_made_checkpoint(tmp_path, model, W_hh=np.zeros((5, 5), dtype=np.float32))
    with pytest.raises(CheckpointError, match="W_hh"):
        load_checkpoint(p)


def test_vocab_size_mismatch(tmp_path, model):
    p = _hand_made_checkpoint(tmp_path, model, chars="abc")
    with pytest.raises(CheckpointError, match="vocabulary has 3 characters"):
        load_checkpoint(p)


def test_non_finite_weights(tmp_path, model):
    b_o = model["params"]["b_o"].copy()
    b_o[0] = np.nan
    p = _hand_made_checkpoint(tmp_path, model, b_o=b_o)
    with pytest.raises(CheckpointError, match="NaN"):
        load_checkpoint(p)


def test_bad_meta_json(tmp_path, model):
    p = _hand_made_checkpoint(tmp_path, model, meta=np.frombuffer(b"{not json", dtype=np.uint8))
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint(p)


def test_optimizer_state_mismatch(tmp_path, model):
    path = save(tmp_path / "ck.npz", model)
    with np.load(path) as z:
        arrays = dict(z)
    arrays["opt.m.W_hh"] = np.zeros((3, 3), dtype=np.float32)
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="opt.m.W_hh"):
        load_checkpoint(path)


# -- checkpoints written by earlier versions -------------------------------------------------------

OLD_TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be. "
) * 12


@pytest.mark.parametrize("cell", ["rnn", "lstm"])
def test_a_checkpoint_of_the_first_file_format_is_refused_with_what_to_do(cell, tmp_path):
    """tests/data/{cell}-cecd393.npz: written by rnn_core at commit cecd393 (tests/data/README.md), format 1,
    with an ``rng_state`` entry and a config holding ``init_scale``: format 2 reads neither (CHANGES.md)."""
    import shutil
    from pathlib import Path

    path = tmp_path / "old.npz"
    shutil.copy(Path(__file__).parent / "data" / f"{cell}-cecd393.npz", path)
    with pytest.raises(CheckpointError, match=r"earlier rnn_core \(file format 1, this one reads 2\): train it again"):
        load_checkpoint(path)


def test_a_checkpoint_without_its_cell_is_refused(tmp_path, model):
    path = save(tmp_path / "ck.npz", model)
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(arrays["meta"].tobytes())
    del meta["cell"]
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="cell must be one of 'rnn', 'lstm', 'gru', got None"):
        load_checkpoint(path)
    del arrays["meta"]
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="no 'meta'"):
        load_checkpoint(path)


def test_a_cell_or_optimizer_that_disagrees_with_the_training_config_is_refused(tmp_path, model):
    """A training run's checkpoint records the cell and the optimizer twice: the file's own and its config's. Saving
    refuses two that differ, before anything is written, and loading refuses a file whose two differ."""
    model["meta"]["config"].update(cell="rnn", optimizer="sgd")
    with pytest.raises(ValueError, match="its optimizer is 'adam' but its training config says 'sgd'"):
        save(tmp_path / "ck.npz", model)
    assert not (tmp_path / "ck.npz").exists()
    model["meta"]["config"]["optimizer"] = "adam"
    path = save(tmp_path / "ck.npz", model)
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(arrays["meta"].tobytes())
    meta["config"]["cell"] = "gru"
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="its cell is 'rnn' but its training config says 'gru'"):
        load_checkpoint(path)


def _rewritten(path, **changes):
    """The archive at ``path`` written again with ``changes`` (None removes an entry); meta given as a dict."""
    with np.load(path) as z:
        arrays = dict(z)
    for key, value in changes.items():
        if value is None:
            arrays.pop(key)
        elif key == "meta":
            arrays["meta"] = np.frombuffer(json.dumps(value).encode(), dtype=np.uint8)
        else:
            arrays[key] = value
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"opt.m.W_hh": None}, "opt.m has nothing for W_hh"),
        ({"opt.v.W_xh": None, "opt.v.W_hh": None, "opt.v.W_yh": None, "opt.v.b_h": None, "opt.v.b_o": None},
         "adam keeps"),
        ({"opt.t": np.array(1.5)}, "opt.t is 1.5"),
        ({"opt.t": np.array(-2)}, "opt.t is -2"),
        ({"meta": ["rnn_core-checkpoint", 2]}, "no 'meta' describing"),
    ],
    ids=["adam-moment-missing", "adam-v-missing", "step-count-float", "step-count-negative", "meta-a-list"],
)  # fmt: skip
def test_a_damaged_optimizer_state_or_meta_is_refused_on_reading(tmp_path, model, changes, words):
    """A fresh review: a file whose Adam state misses a moment, whose step count is 1.5, or whose meta is a JSON
    list, was read, and the trainer then raised KeyError or AttributeError; each is now a CheckpointError."""
    path = _rewritten(save(tmp_path / "ck.npz", model), **changes)
    with pytest.raises(CheckpointError, match=re.escape(words)):
        load_checkpoint(path)


@pytest.mark.parametrize(
    "key, value, words",
    [("window", None, "'window' is None"), ("window", 10**6, "its next window is 1000000"),
     ("epoch", -1, "'epoch' is -1"), ("elapsed", "soon", "'elapsed' is 'soon'")],
    ids=["window-none", "window-past-the-pass", "epoch-negative", "elapsed-text"],
)  # fmt: skip
def test_resuming_from_a_damaged_position_is_refused_by_name(tmp_path, key, value, words):
    """The position in the data (meta's epoch, window, elapsed) is checked before a step: a window of None or past
    the pass raised TypeError or IndexError mid-training; now a CheckpointError naming the entry."""
    from rnn_core import train

    text = "It is a truth universally acknowledged, that a single man in possession of a good fortune. " * 8
    small = dict(hidden_size=8, batch_size=2, seq_length=8, eval_every=5, progress=False, checkpoint=tmp_path / "c.npz")
    train(text, steps=5, **small)
    path = tmp_path / "c.npz"
    meta = load_checkpoint(path).meta
    _rewritten(path, meta={**meta, key: value})
    with pytest.raises(CheckpointError, match=re.escape(words)):
        train(text, steps=10, resume=True, **small)
