"""Training, saving and sampling the gated cells: TrainConfig(cell="lstm" or "gru"), their checkpoints, `--cell`.

The vanilla cell's training is tests/test_train.py; here, what changes with the cell.
"""

import json
import math

import numpy as np
import pytest

import rnn_core
from rnn_core import (
    CheckpointError,
    TrainConfig,
    Vocabulary,
    gru,
    load_checkpoint,
    lstm,
    save_checkpoint,
    split_train_val,
    train,
)
from rnn_core.cli import main

TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be. "
) * 12
SMALL = dict(
    cell="lstm", hidden_size=12, batch_size=4, seq_length=8, steps=40, eval_every=10, learning_rate=1e-2, progress=False
)
GATED = {"lstm": lstm, "gru": gru}


def run(**kw):
    return train(TEXT, **{**SMALL, **kw})


def same_params(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("cell", GATED)
def test_a_gated_cell_learns(cell):
    r = run(cell=cell, steps=150)
    V = Vocabulary.from_text(TEXT).size
    gates = len(GATED[cell].GATES)
    assert set(r.params) == set(GATED[cell].PARAM_NAMES) and r.params["W_h"].shape == (gates * 12, 12)
    assert all(p.dtype == np.float32 for p in r.params.values())
    assert r.val_bpc < math.log2(V) - 1.0  # far below guessing uniformly
    assert np.mean(r.history.train_bpc[-20:]) < np.mean(r.history.train_bpc[:20]) - 1.0
    assert set(r.state.carried) == set(GATED[cell].STATE_NAMES)
    assert all(s.shape == (4, 12) and np.abs(s).max() > 0 for s in r.state.carried.values())
    # val_bpc is bits_per_char of the held-out part, exactly
    val_ids = split_train_val(Vocabulary.from_text(TEXT).encode(TEXT), r.config.val_fraction)[1]
    assert r.val_bpc == rnn_core.bits_per_char(r.params, val_ids, n_streams=r.config.val_streams, cell=cell)


@pytest.mark.parametrize("cell", GATED)
def test_the_initial_network_is_init_params_with_the_configs_seed_and_scale(cell):
    r = run(cell=cell, steps=1, learning_rate=1e-30, lr_schedule="constant", recurrent_scale=0.5, seed=3)
    V = Vocabulary.from_text(TEXT).size
    start = GATED[cell].init_params(V, 12, seed=3, dtype=np.float32, recurrent_scale=0.5)
    assert all(np.allclose(r.params[k], start[k], atol=1e-6) for k in start)


@pytest.mark.parametrize("cell", GATED)
def test_training_is_deterministic_and_resumes_bit_identically(cell, tmp_path):
    straight = run(cell=cell, lr_schedule="constant")
    assert same_params(straight.params, run(cell=cell, lr_schedule="constant").params)
    path = tmp_path / f"{cell}.npz"
    first = run(
        cell=cell, lr_schedule="constant", checkpoint=path, callback=lambda res: res.step >= 20, callback_every=20
    )
    assert first.step == 20
    ck = load_checkpoint(path)
    assert ck.cell == cell and ck.meta["cell"] == cell and ck.config["cell"] == cell
    assert all(np.array_equal(ck.carried[k], first.state.carried[k]) for k in GATED[cell].STATE_NAMES)
    resumed = run(cell=cell, lr_schedule="constant", checkpoint=path, resume=True)
    assert resumed.step == 40 and same_params(straight.params, resumed.params)
    assert all(np.array_equal(straight.state.carried[k], resumed.state.carried[k]) for k in GATED[cell].STATE_NAMES)
    resumed_in_memory = run(cell=cell, lr_schedule="constant", resume=first)
    assert same_params(straight.params, resumed_in_memory.params)


@pytest.mark.parametrize("cell", GATED)
def test_the_state_starts_again_from_zero_with_each_pass(cell):
    ids = Vocabulary.from_text(TEXT).encode(TEXT)
    passes = rnn_core.StreamBatcher(split_train_val(ids, 0.1)[0], 4, 8).windows_per_pass
    r = run(cell=cell, steps=passes, eval_every=0)  # exactly one pass over the training text
    assert r.state.epoch == 1 and r.state.next_window == 0
    assert not any(s.any() for s in r.state.carried.values())
    assert all(np.abs(s).max() > 0 for s in run(cell=cell, steps=passes - 1, eval_every=0).state.carried.values())


@pytest.mark.parametrize("cell", ["rnn", "gru"])
def test_a_cell_without_a_cell_state_carries_h_alone(cell):
    r = run(cell=cell)
    assert r.state.c is None and set(r.state.carried) == {"h"}
    assert set(r.params) == set(rnn_core.CELLS[cell].PARAM_NAMES)


@pytest.mark.parametrize("saved, resumed", [("lstm", "rnn"), ("rnn", "lstm"), ("gru", "lstm"), ("lstm", "gru")])
def test_a_checkpoint_cannot_resume_as_another_cell(tmp_path, saved, resumed):
    path = tmp_path / "ck.npz"
    run(cell=saved, steps=10, checkpoint=path)
    with pytest.raises(ValueError, match=f"trained with cell='{saved}', this run asks for cell='{resumed}'"):
        run(cell=resumed, steps=20, checkpoint=path, resume=True)


def test_bad_cell():
    with pytest.raises(ValueError, match="cell must be one of 'rnn', 'lstm', 'gru', got 'tree'"):
        TrainConfig(cell="tree")
    with pytest.raises(TypeError, match="cell must be one of 'rnn', 'lstm', 'gru', got 3"):
        TrainConfig(cell=3)
    with pytest.raises(TypeError, match=r"cell must be one of .*, got \['rnn'\]"):
        TrainConfig(cell=["rnn"])
    with pytest.raises(TypeError, match="optimizer must be one of"):
        TrainConfig(optimizer=None)


# -- checkpoints ---------------------------------------------------------------------------------------


def test_an_lstm_checkpoint_round_trips(tmp_path):
    vocab = Vocabulary("abcde")
    params = lstm.init_params(vocab.size, 3, seed=1, dtype=np.float32)
    h, c = np.ones((2, 3), np.float32), np.full((2, 3), -2.0, np.float32)
    save_checkpoint(tmp_path / "m.npz", params, vocab, cell="lstm", h=h, c=c, step=7)
    ck = load_checkpoint(tmp_path / "m.npz")
    assert ck.cell == "lstm" and same_params(ck.params, params) and ck.step == 7
    assert np.array_equal(ck.h, h) and np.array_equal(ck.c, c)
    assert repr(ck).startswith("Checkpoint(cell=lstm, step=7, H=3, V=5")


def test_a_gru_checkpoint_round_trips_and_records_its_cell(tmp_path):
    """The GRU and the LSTM share their parameters' names; the file says which."""
    vocab = Vocabulary("abcde")
    params = gru.init_params(vocab.size, 3, seed=1, dtype=np.float32)
    h = np.ones((2, 3), np.float32)
    save_checkpoint(tmp_path / "m.npz", params, vocab, cell="gru", h=h, step=7)
    ck = load_checkpoint(tmp_path / "m.npz")
    assert ck.cell == "gru" and same_params(ck.params, params) and ck.step == 7
    assert np.array_equal(ck.h, h) and ck.c is None and list(ck.carried) == ["h"]
    assert repr(ck).startswith("Checkpoint(cell=gru, step=7, H=3, V=5")


def _rewrite_meta(path, change):
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(arrays["meta"].tobytes())
    change(meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **arrays)


def test_a_checkpoint_without_a_cell_entry_is_refused_not_guessed(tmp_path):
    """The cell comes from the file's record: a file that has none is refused (file format 2, CHANGES.md)."""
    path = tmp_path / "old.npz"
    run(cell="rnn", steps=10, checkpoint=path)
    _rewrite_meta(path, lambda meta: (meta.pop("cell"), meta["config"].pop("cell")))
    with pytest.raises(CheckpointError, match="cell must be one of 'rnn', 'lstm', 'gru', got None"):
        load_checkpoint(path)


@pytest.mark.parametrize(
    "change, pattern",
    [
        (lambda meta: meta.update(cell="tree"), "cell must be one of 'rnn', 'lstm', 'gru', got 'tree'"),
        (lambda meta: meta.update(cell="rnn"), r"missing W_xh, W_hh, b_h .*checkpoint of the rnn cell"),
        # an LSTM's W_x (12, 5) read as a GRU's (3H, V) would mean H = 4: the recurrent weights say otherwise
        (lambda meta: meta.update(cell="gru"), r"W_h has shape \(12, 3\) but W_x \(12, 5\) implies H=4"),
    ],
)
def test_a_checkpoint_whose_cell_does_not_fit_is_refused(tmp_path, change, pattern):
    path = tmp_path / "m.npz"
    save_checkpoint(path, lstm.init_params(5, 3), Vocabulary("abcde"), cell="lstm")
    _rewrite_meta(path, change)
    with pytest.raises(CheckpointError, match=pattern):
        load_checkpoint(path)


def test_an_lstm_checkpoint_without_its_cell_state_cannot_resume(tmp_path):
    path = tmp_path / "lstm.npz"
    run(steps=10, checkpoint=path)
    with np.load(path) as z:
        arrays = {k: v for k, v in z.items() if k != "c"}
    np.savez(path, **arrays)
    assert load_checkpoint(path).c is None  # still a model to sample from
    with pytest.raises(
        CheckpointError, match="the lstm cell carries h and c from window to window, and the file holds no 'c'"
    ):
        run(steps=20, checkpoint=path, resume=True)


# -- the command line ----------------------------------------------------------------------------------

FAST = ["--hidden-size", "8", "--batch-size", "2", "--seq-length", "8", "--steps", "20", "--no-progress"]


@pytest.mark.parametrize("cell", GATED)
def test_train_a_gated_cell_then_sample_from_the_command_line(capsys, tmp_path, cell):
    text_file = tmp_path / "novel.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    path = tmp_path / f"{cell}.npz"
    assert main(["train", "--cell", cell, "--text", str(text_file), "--checkpoint", str(path), *FAST]) == 0
    out = capsys.readouterr().out
    assert f"({cell} H=8 B=2 T=8 adam lr 0.005)" in out
    ck = load_checkpoint(path)
    assert ck.cell == cell and ck.config["cell"] == cell and set(ck.params) == set(GATED[cell].PARAM_NAMES)
    assert main(["sample", "--checkpoint", str(path), "--prime", "It is", "--length", "40", "--seed", "3"]) == 0
    sampled = capsys.readouterr().out
    expected = rnn_core.sample(ck.params, ck.vocab, "It is", 40, temperature=0.8, seed=3, cell=cell)
    assert sampled == "It is" + expected + "\n"
    # resuming keeps the cell without --cell
    assert (
        main(
            ["train", "--text", str(text_file), "--checkpoint", str(path), "--resume", "--steps", "30", "--no-progress"]
        )
        == 0
    )
    assert "step 30 " in capsys.readouterr().out and load_checkpoint(path).cell == cell


def test_a_stacked_lstm_with_dropout_trains_resumes_and_samples_from_the_command_line(capsys, tmp_path):
    """python -m rnn_core train --cell lstm --num-layers 2 --dropout 0.2, then --resume, then sample."""
    text_file = tmp_path / "novel.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    path = tmp_path / "lstm2.npz"
    args = ["train", "--cell", "lstm", "--num-layers", "2", "--dropout", "0.2", "--text", str(text_file)]
    assert main([*args, "--checkpoint", str(path), *FAST, "--eval-every", "10"]) == 0
    out = capsys.readouterr().out
    assert "(lstm L=2 H=8 B=2 T=8 adam lr 0.005 dropout 0.2)" in out and f"checkpoint: {path} (last, step 20)" in out
    ck = load_checkpoint(path)
    assert ck.num_layers == 2 and ck.config["dropout"] == 0.2 and set(ck.params) == set(lstm.param_names(2))
    assert all(s.shape == (2, 2, 8) for s in ck.carried.values())
    best = load_checkpoint(tmp_path / "lstm2.best.npz")
    assert best.step == ck.meta["best_step"] and f"{tmp_path / 'lstm2.best.npz'} (best, step {best.step})" in out
    resume = ["train", "--text", str(text_file), "--checkpoint", str(path), "--resume", "--steps", "30"]
    assert main([*resume, "--no-progress"]) == 0  # the stack and its dropout from the checkpoint
    out = capsys.readouterr().out
    assert "step 30 " in out and "(lstm L=2 H=8 B=2 T=8 adam lr 0.005 dropout 0.2)" in out
    ck = load_checkpoint(path)
    assert ck.step == 30 and ck.history["step"].tolist() == list(range(1, 31))
    for checkpoint in (path, tmp_path / "lstm2.best.npz"):
        sample = ["sample", "--checkpoint", str(checkpoint), "--prime", "It is", "--length", "40", "--seed", "3"]
        assert main(sample) == 0
        params = load_checkpoint(checkpoint).params
        expected = rnn_core.sample(params, ck.vocab, "It is", 40, temperature=0.8, seed=3, cell="lstm")
        assert capsys.readouterr().out == "It is" + expected + "\n"


def test_bad_cell_flag(capsys, tmp_path):
    assert main(["train", "--cell", "tree", "--text", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert "--cell" in err and "invalid choice: 'tree'" in err and "Traceback" not in err
