"""The trainer (rnn_core.train): learning, history, determinism, bit-identical resume, clean stops."""

import math

import numpy as np
import pytest

import rnn_core
from rnn_core import (
    BPC_WINDOW,
    PARAM_NAMES,
    History,
    TrainConfig,
    TrainResult,
    Vocabulary,
    learning_rate_at,
    load_checkpoint,
    rnn,
    train,
)
from rnn_core.progress import BAR_SMOOTHING

TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be. "
) * 12
SMALL = dict(hidden_size=12, batch_size=4, seq_length=8, steps=40, eval_every=10, learning_rate=1e-2, progress=False)


def run(**kw):
    return train(TEXT, **{**SMALL, **kw})


def same_params(a, b):
    return all(np.array_equal(a[k], b[k]) for k in PARAM_NAMES)


def test_it_learns():
    r = run(steps=150)
    V = Vocabulary.from_text(TEXT).size
    assert r.stopped == "steps" and r.step == 150
    assert r.val_bpc < math.log2(V) - 1.0  # far below guessing uniformly
    assert np.mean(r.history.train_bpc[-20:]) < np.mean(r.history.train_bpc[:20]) - 1.0
    assert all(p.dtype == np.float32 for p in r.params.values())
    assert "val_bpc " in r.summary() and f"{r.val_bpc:.4f}" in r.summary()
    assert repr(r).startswith("TrainResult(step 150 ") and "array" not in repr(r.state)


def test_history_fields():
    r = run()
    h = r.history
    assert h.step == list(range(1, 41))
    assert len(h.train_bpc) == len(h.grad_norm) == len(h.lr) == len(h.elapsed) == 40
    assert h.val_step == [10, 20, 30, 40]  # every eval_every steps, and at the end
    assert len(h.val_bpc) == len(h.val_elapsed) == 4
    assert all(b >= a for a, b in zip(h.elapsed, h.elapsed[1:]))
    arrays = h.arrays()
    assert arrays["step"].dtype == np.int64 and arrays["val_bpc"].dtype == np.float64
    assert r.val_bpc == h.val_bpc[-1]


def test_val_bpc_definition():
    """val_bpc is bits_per_char on the last 10% of the text, in val_streams pieces, read BPC_WINDOW at a time."""
    r = run(val_streams=2)
    vocab = Vocabulary.from_text(TEXT)
    ids = vocab.encode(TEXT)
    val = ids[int(len(ids) * 0.9) :]
    assert r.val_bpc == rnn_core.bits_per_char(r.params, val, n_streams=2, window=BPC_WINDOW)


def test_deterministic():
    a, b = run(), run()
    assert same_params(a.params, b.params)
    assert a.history.train_bpc == b.history.train_bpc
    c = run(seed=1)
    assert not same_params(a.params, c.params)


def test_a_step_leaves_the_state_it_started_from_alone():
    """Resuming twice from the same result takes the same steps, and the result is left as it was."""
    first = run(steps=5, lr_schedule="constant")
    kept = {k: v.copy() for k, v in first.params.items()}
    h_kept = first.state.h.copy()
    a, b = run(steps=6, lr_schedule="constant", resume=first), run(steps=6, lr_schedule="constant", resume=first)
    assert same_params(a.params, b.params) and a.history.train_bpc == b.history.train_bpc
    assert same_params(first.params, kept) and np.array_equal(first.state.h, h_kept) and first.step == 5
    assert a.step == 6 and a.state.next_window == 6 and not same_params(a.params, kept)


def test_learning_rate_schedule():
    cfg = TrainConfig(learning_rate=1.0, steps=100, decay_fraction=0.5, final_lr_fraction=0.1, warmup_steps=10)
    assert learning_rate_at(cfg, 0) == pytest.approx(0.1)  # warm-up: 1/10 of the peak on the first step
    assert learning_rate_at(cfg, 9) == 1.0
    assert learning_rate_at(cfg, 50) == 1.0  # held until half the budget
    assert learning_rate_at(cfg, 75) == pytest.approx(0.55)  # halfway down
    assert learning_rate_at(cfg, 100) == pytest.approx(0.1)
    timed = TrainConfig(learning_rate=1.0, steps=10**6, max_seconds=10.0, decay_fraction=0.5, final_lr_fraction=0.0)
    assert learning_rate_at(timed, 10, seconds=7.5) == pytest.approx(0.5)  # progress by time
    assert learning_rate_at(TrainConfig(lr_schedule="constant", learning_rate=0.3), 10**5) == 0.3
    r = run(steps=20, decay_fraction=1.0, final_lr_fraction=0.0)
    assert r.history.lr[0] == pytest.approx(1e-2) and r.history.lr[-1] == pytest.approx(1e-2 / 20)


def test_hidden_state_carried_and_reset_at_the_end_of_a_pass():
    ids = Vocabulary.from_text(TEXT).encode(TEXT)
    per_pass = ((int(len(ids) * 0.9) - 1) // 4) // 8
    r = run(steps=per_pass - 1)
    assert r.state.next_window == per_pass - 1 and np.abs(r.state.h).sum() > 0  # carried
    r = run(steps=per_pass)
    assert r.state.epoch == 1 and r.state.next_window == 0 and not r.state.h.any()  # reset


def test_resume_from_checkpoint_is_bit_identical(tmp_path):
    straight = run(steps=40)
    path = tmp_path / "ck.npz"
    first = run(steps=40, checkpoint=path, callback=lambda res: res.step >= 20, callback_every=20)
    assert first.stopped == "callback" and first.step == 20
    assert load_checkpoint(path).step == 20
    resumed = run(steps=40, checkpoint=path, resume=True)
    assert resumed.step == 40
    assert same_params(straight.params, resumed.params)
    for k in PARAM_NAMES:
        assert np.array_equal(straight.state.opt_state["m"][k], resumed.state.opt_state["m"][k])
    assert np.array_equal(straight.state.h, resumed.state.h)
    assert straight.history.train_bpc == resumed.history.train_bpc  # history continues too
    assert straight.history.step == resumed.history.step
    assert same_params(load_checkpoint(path).params, straight.params)


def test_resume_with_a_larger_step_budget_constant_schedule(tmp_path):
    """As the command line does it: --steps 20, then --resume --steps 40."""
    kw = dict(lr_schedule="constant", optimizer="adagrad")
    straight = run(steps=40, **kw)
    path = tmp_path / "ck.npz"
    run(steps=20, checkpoint=path, **kw)
    resumed = run(steps=40, checkpoint=path, resume=True, **kw)
    assert same_params(straight.params, resumed.params)


def test_resume_with_momentum_is_bit_identical(tmp_path):
    kw = dict(optimizer="momentum", learning_rate=0.5)
    straight = run(steps=40, **kw)
    path = tmp_path / "ck.npz"
    run(steps=40, checkpoint=path, callback=lambda res: res.step >= 20, callback_every=20, **kw)
    resumed = run(steps=40, checkpoint=path, resume=True, **kw)
    assert same_params(straight.params, resumed.params)
    assert all(np.array_equal(straight.state.opt_state["m"][k], resumed.state.opt_state["m"][k]) for k in PARAM_NAMES)
    assert straight.history.train_bpc[-1] < straight.history.train_bpc[0]


def test_resume_in_memory():
    straight = run(steps=40)
    half = run(steps=40, callback=lambda res: res.step >= 20, callback_every=20)
    resumed = run(steps=40, resume=half)
    assert same_params(straight.params, resumed.params)
    assert len(half.history) == 20  # the earlier result is left alone


def test_resume_mismatches(tmp_path):
    path = tmp_path / "ck.npz"
    run(steps=10, checkpoint=path)
    with pytest.raises(ValueError, match="hidden_size=12"):
        run(steps=20, checkpoint=path, resume=True, hidden_size=16)
    with pytest.raises(ValueError, match="batch_size"):
        run(steps=20, checkpoint=path, resume=True, batch_size=2)
    with pytest.raises(ValueError, match="trained with dropout=0.0, this run asks for dropout=0.2; use the same"):
        run(steps=20, checkpoint=path, resume=True, dropout=0.2)
    with pytest.raises(ValueError, match="trained with seed=0, this run asks for seed=1; use the same"):
        run(steps=20, checkpoint=path, resume=True, seed=1)
    with pytest.raises(ValueError, match="different text"):
        train(TEXT.replace("wife", "life"), **{**SMALL, "steps": 20}, checkpoint=path, resume=True)
    with pytest.raises(ValueError, match="vocabulary"):
        train(TEXT + "Z", **{**SMALL, "steps": 20}, checkpoint=path, resume=True)
    with pytest.raises(FileNotFoundError):
        run(steps=20, checkpoint=tmp_path / "none.npz", resume=True)
    with pytest.raises(ValueError, match="needs checkpoint"):
        run(resume=True)


def test_interrupt_returns_the_model_so_far(tmp_path):
    def ctrl_c(res):
        if res.step >= 15:
            raise KeyboardInterrupt

    path = tmp_path / "ck.npz"
    r = run(callback=ctrl_c, callback_every=5, checkpoint=path, lr_schedule="constant")
    assert r.stopped == "interrupted" and r.step == 15 and len(r.history) == 15
    assert "interrupted" in r.message and r.val_bpc is not None
    assert load_checkpoint(path).step == 15
    assert same_params(r.params, run(steps=15, lr_schedule="constant").params)


@pytest.mark.parametrize("what", ["loss", "gradient"])
def test_non_finite_loss_keeps_the_last_finite_weights(tmp_path, monkeypatch, what):
    real = rnn.loss_and_grads  # what the trainer calls for the vanilla cell
    calls = []

    def poisoned(params, X, Y, h0):
        calls.append(1)
        loss, grads, h = real(params, X, Y, h0)
        if len(calls) == 8:
            if what == "loss":
                loss = float("nan")
            else:
                grads["W_hh"][0, 0] = np.inf
        return loss, grads, h

    monkeypatch.setattr(rnn, "loss_and_grads", poisoned)
    path = tmp_path / "ck.npz"
    r = run(checkpoint=path, lr_schedule="constant")
    monkeypatch.setattr(rnn, "loss_and_grads", real)
    assert r.stopped == "non-finite" and r.step == 7
    assert "step 8" in r.message and "last finite" in r.message and what in r.message
    reference = run(steps=7, lr_schedule="constant")
    assert same_params(r.params, reference.params)
    assert same_params(load_checkpoint(path).params, reference.params)


def test_diverging_sgd_stops_cleanly():
    r = run(optimizer="sgd", learning_rate=1e38, clip_norm=None, steps=30)
    assert r.stopped == "non-finite"
    assert all(np.isfinite(p).all() for p in r.params.values())


def test_time_budget():
    r = run(steps=10**6, max_seconds=0.3, eval_every=0)
    assert r.stopped == "time" and "time budget of 0.3 s" in r.message
    assert r.step >= 1 and r.history.step == list(range(1, r.step + 1))
    assert r.history.val_step == [r.step]  # validated once, at the end
    # the rate decays with the time used: below what the step count alone would give, at every step
    by_steps = [learning_rate_at(r.config, step) for step in range(r.step)]
    assert all(lr < full for lr, full in zip(r.history.lr, by_steps))
    assert all(b < a for a, b in zip(r.history.lr, r.history.lr[1:]))


def test_callback_sees_live_history():
    seen = []
    run(callback=lambda res: seen.append((res.step, len(res.history.val_bpc))), callback_every=5)
    # every 5 steps; validations at 10, 20, 30 happen before the callback sees the step
    assert seen == [(5, 0), (10, 1), (15, 1), (20, 2), (25, 2), (30, 3), (35, 3), (40, 3)]


def test_progress_bar_runs(capsys):
    r = run(steps=12, progress=True)
    assert r.step == 12
    err = capsys.readouterr().err
    assert "12/12" in err
    ema = r.history.train_bpc[0]  # the bar shows the training loss smoothed, and the last validation
    for bpc in r.history.train_bpc[1:]:
        ema = BAR_SMOOTHING * ema + (1 - BAR_SMOOTHING) * bpc
    assert err.rstrip().endswith(f"training bpc {ema:.3f} · validation bpc {r.val_bpc:.3f} · finished]")


def test_ids_with_vocab():
    vocab = Vocabulary.from_text(TEXT)
    a = train(vocab.encode(TEXT), vocab=vocab, **{**SMALL, "steps": 10})
    b = run(steps=10)
    assert same_params(a.params, b.params)
    with pytest.raises(TypeError, match="vocab"):
        train(vocab.encode(TEXT), **SMALL)


def test_bad_inputs():
    with pytest.raises(ValueError, match="empty"):
        train("", **SMALL)
    with pytest.raises(ValueError, match="too short"):
        train("abcdefgh" * 3, **SMALL)
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        run(hidden_size=0)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        run(learning_rate=-1e-3)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        run(optimizer="rmsprop")
    with pytest.raises(TypeError, match="batch_size must be an integer"):
        run(batch_size=2.5)
    with pytest.raises(FileNotFoundError, match="folder"):
        run(checkpoint="/nonexistent-folder-rnn-core/ck.npz")


def test_config_round_trips_through_a_dict():
    cfg = TrainConfig(hidden_size=7, max_seconds=3.0, clip_norm=None)
    assert TrainConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="not TrainConfig settings: rng_state"):
        TrainConfig.from_dict({**cfg.to_dict(), "rng_state": 1})
    assert isinstance(run(steps=2), TrainResult)


def test_truncate_history_to_the_state():
    h = History(
        step=[1, 2, 3],
        train_bpc=[3.0, 2.0, 1.0],
        grad_norm=[1, 1, 1],
        lr=[1, 1, 1],
        elapsed=[0, 1, 2],
        val_step=[2, 3],
        val_bpc=[2.5, 1.5],
        val_elapsed=[1, 2],
    )
    h.truncate(2)
    assert h.step == [1, 2] and h.train_bpc == [3.0, 2.0] and h.val_step == [2] and h.val_bpc == [2.5]


# -- a stack of layers, dropout, the best checkpoint and early stopping --------------------------------

STACK = dict(num_layers=2, dropout=0.3, lr_schedule="constant")


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_a_stack_with_dropout_trains_deterministically_and_resumes_bit_identically(cell, tmp_path):
    straight = run(cell=cell, **STACK)
    V = Vocabulary.from_text(TEXT).size
    assert rnn_core.num_layers(straight.params, cell) == 2
    assert set(straight.params) == set(rnn_core.CELLS[cell].param_names(2))
    assert all(s.shape == (2, 4, 12) for s in straight.state.carried.values())  # (L, B, H)
    assert straight.val_bpc < math.log2(V)
    again = run(cell=cell, **STACK)
    assert again.params.keys() == straight.params.keys()
    assert all(np.array_equal(again.params[k], straight.params[k]) for k in straight.params)  # the masks are seeded
    path = tmp_path / "ck.npz"
    first = run(cell=cell, checkpoint=path, callback=lambda res: res.step >= 20, callback_every=20, **STACK)
    assert first.step == 20 and load_checkpoint(path).num_layers == 2
    for resumed in (run(cell=cell, checkpoint=path, resume=True, **STACK), run(cell=cell, resume=first, **STACK)):
        assert all(np.array_equal(resumed.params[k], straight.params[k]) for k in straight.params)
        assert resumed.history.train_bpc == straight.history.train_bpc
        assert all(np.array_equal(resumed.state.carried[k], straight.state.carried[k]) for k in straight.state.carried)


def test_dropout_changes_training_and_never_validation():
    plain, dropped = run(num_layers=2, steps=10), run(num_layers=2, steps=10, dropout=0.5)
    assert plain.history.train_bpc[0] != dropped.history.train_bpc[0]  # the first step already drops
    zero = run(num_layers=2, steps=10, dropout=0.0)
    assert all(np.array_equal(plain.params[k], zero.params[k]) for k in plain.params)
    val = Vocabulary.from_text(TEXT).encode(TEXT)[int(len(TEXT) * 0.9) :]
    assert dropped.val_bpc == rnn_core.bits_per_char(dropped.params, val, n_streams=4)
    with pytest.raises(ValueError, match="dropout must be >= 0 and < 1"):
        TrainConfig(dropout=1.0)
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        TrainConfig(num_layers=0)


def test_a_stack_resumes_only_as_the_same_stack(tmp_path):
    path = tmp_path / "ck.npz"
    run(steps=10, checkpoint=path, num_layers=2)
    with pytest.raises(ValueError, match="trained with num_layers=2, this run asks for num_layers=1"):
        run(steps=20, checkpoint=path, resume=True)


def test_the_best_checkpoint_is_kept_beside_the_last(tmp_path):
    path = tmp_path / "ck.npz"
    r = run(steps=60, checkpoint=path, learning_rate=0.05)
    best = int(np.argmin(r.history.val_bpc))
    assert r.best_step == r.history.val_step[best] and r.best_val_bpc == r.history.val_bpc[best]
    assert f"best val_bpc {r.best_val_bpc:.4f} at step {r.best_step}" in r.summary()
    last, kept = load_checkpoint(path), load_checkpoint(rnn_core.best_checkpoint_path(path))
    assert rnn_core.best_checkpoint_path(path) == tmp_path / "ck.best.npz"
    assert last.meta["checkpoint"] == "last" and kept.meta["checkpoint"] == "best"
    assert last.step == 60 and kept.step == r.best_step == last.meta["best_step"] == kept.meta["best_step"]
    assert kept.meta["best_val_bpc"] == r.best_val_bpc and same_params(kept.params, r.best_params)
    val = Vocabulary.from_text(TEXT).encode(TEXT)[int(len(TEXT) * 0.9) :]
    assert rnn_core.bits_per_char(kept.params, val, n_streams=4) == r.best_val_bpc  # the parameters it measured
    # resuming keeps track of the best, from the file beside the last
    resumed = run(steps=70, checkpoint=path, learning_rate=0.05, resume=True)
    assert resumed.best_step in (r.best_step, 70)
    if resumed.best_step == r.best_step:
        assert same_params(resumed.best_params, r.best_params)


def test_the_best_is_kept_in_memory_without_a_checkpoint():
    r = run(steps=40)
    assert r.best_params is not None and r.best_step in r.history.val_step
    assert min(r.history.val_bpc) == r.best_val_bpc
    assert run(steps=40, val_fraction=0.0).best_step is None


def test_an_equal_validation_figure_is_no_new_best(monkeypatch):
    """A figure equal to the best so far keeps the first as the best (its step, its checkpoint) and counts
    against patience, as _best's docstring says: only a lower figure is progress."""
    figures = iter([2.0, 1.5, 1.5, 1.5, 1.0])
    monkeypatch.setattr(rnn_core.trainer, "bits_per_char", lambda *args, **kwargs: next(figures))
    r = run(steps=50, patience=2)
    assert r.stopped == "patience" and r.history.val_bpc == [2.0, 1.5, 1.5, 1.5]
    assert r.best_step == 20 and r.best_val_bpc == 1.5


def test_patience_stops_after_validations_without_a_new_best(monkeypatch):
    figures = iter([3.0, 2.0, 2.5, 2.6, 2.7, 1.0])
    monkeypatch.setattr(rnn_core.trainer, "bits_per_char", lambda *args, **kwargs: next(figures))
    r = run(steps=60, patience=2)
    assert r.stopped == "patience" and r.step == 40 and r.history.val_bpc == [3.0, 2.0, 2.5, 2.6]
    assert r.best_step == 20 and r.best_val_bpc == 2.0
    assert "no new best val_bpc in 2 validations (best 2.0000, step 20)" in r.message
