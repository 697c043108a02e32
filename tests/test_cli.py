"""The command line (python -m rnn_core): training, sampling, resuming, and one clear line per bad input."""

import re
import subprocess
import sys

import numpy as np
import pytest

from rnn_core import TrainConfig, Vocabulary, load_checkpoint
from rnn_core.cli import build_parser, main
from rnn_core.trainer import text_fingerprint

TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife.\n"
) * 20
FAST = ["--hidden-size", "8", "--batch-size", "2", "--seq-length", "8", "--steps", "20", "--no-progress"]


@pytest.fixture
def text_file(tmp_path):
    p = tmp_path / "novel.txt"
    p.write_text(TEXT, encoding="utf-8")
    return p


@pytest.fixture
def trained(tmp_path, text_file, capsys):
    ck = tmp_path / "model.npz"
    assert main(["train", "--text", str(text_file), "--checkpoint", str(ck), *FAST]) == 0
    capsys.readouterr()  # the tests look only at their own output
    return ck


def call(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, pattern, status=None):
    assert code != 0 if status is None else code == status
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert re.search(pattern, lines[0]), lines[0]


# -- what works ---------------------------------------------------------------------------------------


def test_train_prints_one_summary_line(capsys, tmp_path, text_file):
    ck = tmp_path / "m.npz"
    code, out, err = call(capsys, "train", "--text", text_file, "--checkpoint", ck, *FAST)
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 1
    m = re.search(r"val_bpc (\d+\.\d+)", lines[0])
    assert m and 0 < float(m.group(1)) < np.log2(len(set(TEXT)))
    assert "step 20" in lines[0]
    assert load_checkpoint(ck).step == 20
    assert "(H=8 B=2 T=8 adam lr 0.005)" in lines[0] and f"checkpoint: {ck} (last, step 20)" in lines[0]
    best = load_checkpoint(tmp_path / "m.best.npz")  # beside the last, the best validation's
    assert f"{tmp_path / 'm.best.npz'} (best, step {best.step})" in lines[0] and best.meta["checkpoint"] == "best"


def test_progress_bar_goes_to_stderr(capsys, tmp_path, text_file):
    code, out, err = call(capsys, "train", "--text", text_file, "--checkpoint", tmp_path / "m.npz", *FAST[:-1])
    assert code == 0 and "20/20" in err and "20/20" not in out
    assert len(out.strip().splitlines()) == 1  # stdout: the summary line alone
    val_bpc = load_checkpoint(tmp_path / "m.npz").history["val_bpc"][-1]
    assert err.rstrip().endswith(f"validation bpc {val_bpc:.3f} · finished]")  # the bar's last state


def test_default_checkpoint_folder_is_created(capsys, tmp_path, text_file, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = call(capsys, "train", "--text", text_file, *FAST)
    assert code == 0 and (tmp_path / "checkpoints" / "rnn.npz").is_file()
    code, out, _ = call(capsys, "sample", "--length", "30")
    assert code == 0 and len(out) == 31  # the default prime (a newline) is not printed


def test_resume_without_checkpoint_or_cell_continues_the_run_train_saved_last(capsys, tmp_path, text_file, monkeypatch):
    """After train --cell gru, train --resume continues gru.npz (it looked for rnn.npz: a code review)."""
    monkeypatch.chdir(tmp_path)
    code, _, _ = call(capsys, "train", "--text", text_file, "--cell", "gru", *FAST)
    assert code == 0 and (tmp_path / "checkpoints" / "gru.npz").is_file()
    code, _, err = call(capsys, "train", "--text", text_file, "--resume", "--steps", "25", "--no-progress")
    assert code == 0, err
    ck = load_checkpoint(tmp_path / "checkpoints" / "gru.npz")
    assert ck.cell == "gru" and ck.step == 25 and not (tmp_path / "checkpoints" / "rnn.npz").exists()


def test_text_from_environment(capsys, tmp_path, text_file, monkeypatch):
    monkeypatch.setenv("RNN_CORE_TEXT", str(text_file))
    code, out, err = call(capsys, "train", "--checkpoint", tmp_path / "m.npz", *FAST)
    assert code == 0 and "val_bpc" in out
    ck = load_checkpoint(tmp_path / "m.npz")
    assert ck.vocab == Vocabulary.from_text(TEXT)  # trained on the file the variable names
    assert ck.meta["fingerprint"] == text_fingerprint(ck.vocab.encode(TEXT))
    # not the novel's edition: said once, in one plain line, and training goes on
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "$RNN_CORE_TEXT" in warning[0] and "will differ" in warning[0]


def test_sample(capsys, trained):
    code, out, err = call(
        capsys, "sample", "--checkpoint", trained, "--prime", "It is", "--length", "50", "--seed", "3"
    )
    assert code == 0 and err == ""
    assert out.startswith("It is") and len(out) == len("It is") + 50 + 1
    again = call(capsys, "sample", "--checkpoint", trained, "--prime", "It is", "--length", "50", "--seed", "3")[1]
    assert again == out  # seeded
    code, greedy, _ = call(
        capsys, "sample", "--checkpoint", trained, "--prime", "a", "--length", "10", "--temperature", "0"
    )
    assert code == 0 and len(greedy) == 12


def test_resume_continues_to_the_total_step_count(capsys, tmp_path, text_file):
    ck = tmp_path / "m.npz"
    common = [
        "--text",
        text_file,
        "--checkpoint",
        ck,
        "--hidden-size",
        "8",
        "--batch-size",
        "2",
        "--seq-length",
        "8",
        "--no-progress",
    ]
    assert call(capsys, "train", *common, "--steps", "10")[0] == 0
    code, out, err = call(
        capsys, "train", "--checkpoint", ck, "--text", text_file, "--resume", "--steps", "25", "--no-progress"
    )
    assert code == 0 and "step 25 " in out and "H=8 B=2 T=8" in out  # settings from the checkpoint
    ckpt = load_checkpoint(ck)
    assert ckpt.step == 25 and ckpt.history["step"].tolist() == list(range(1, 26))


def test_resume_is_bit_identical_with_a_constant_schedule(tmp_path, text_file):
    """--steps is the total: 10 then --resume to 20 equals 20 straight (same data, same state)."""
    from rnn_core import train

    a = train(TEXT, hidden_size=8, batch_size=2, seq_length=8, steps=20, lr_schedule="constant", progress=False)
    ck = tmp_path / "m.npz"
    train(
        TEXT, hidden_size=8, batch_size=2, seq_length=8, steps=10, lr_schedule="constant", progress=False, checkpoint=ck
    )
    # the command line resumes with the checkpoint's stored settings (here: the constant schedule)
    assert (
        main(["train", "--text", str(text_file), "--checkpoint", str(ck), "--resume", "--steps", "20", "--no-progress"])
        == 0
    )
    b = load_checkpoint(ck)
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)


def test_help_documents_every_flag(capsys):
    code, out, _ = call(capsys, "train", "--help")
    assert code == 0
    for flag in (
        "--text",
        "--hidden-size",
        "--batch-size",
        "--seq-length",
        "--learning-rate",
        "--steps",
        "--max-seconds",
        "--seed",
        "--checkpoint",
        "--resume",
        "--num-layers",
        "--dropout",
        "--patience",
    ):
        assert flag in out
    code, out, _ = call(capsys, "sample", "--help")
    for flag in ("--checkpoint", "--prime", "--length", "--temperature", "--seed"):
        assert flag in out
    # every option of both subcommands has a help text, and each train flag sets the TrainConfig field of its name
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for command in commands.values():
        assert all(action.help for action in command._actions)
    config_fields = set(TrainConfig.__dataclass_fields__)
    train_dests = {a.dest for a in commands["train"]._actions if a.option_strings}
    assert train_dests - {"help", "text", "checkpoint", "resume", "no_progress"} <= config_fields


def test_max_seconds_bounds_the_run(capsys, tmp_path, text_file):
    import time

    t0 = time.perf_counter()
    code, out, _ = call(
        capsys,
        "train",
        "--text",
        text_file,
        "--checkpoint",
        tmp_path / "m.npz",
        *FAST[:-3],
        "--steps",
        "1000000",
        "--max-seconds",
        "1",
        "--no-progress",
    )
    wall = time.perf_counter() - t0
    assert code == 0 and "stopped: time" in out
    assert 0.9 < wall < 1.5  # the budget includes reading the text, the last validation and the save


# -- bad input: one line on stderr, non-zero exit, no traceback ---------------------------------------------


@pytest.mark.parametrize(
    "flag, value, pattern",
    [
        ("--hidden-size", "0", "--hidden-size: must be a positive integer"),
        ("--batch-size", "-2", "--batch-size: must be a positive integer"),
        ("--seq-length", "0", "--seq-length: must be a positive integer"),
        ("--steps", "0", "--steps: must be a positive integer"),
        ("--hidden-size", "abc", "--hidden-size: expected an integer"),
        ("--learning-rate", "-0.01", "--learning-rate: must be a number > 0"),
        ("--learning-rate", "0", "--learning-rate: must be a number > 0"),
        ("--learning-rate", "nan", "--learning-rate: must be a number > 0"),
        ("--max-seconds", "-5", "--max-seconds: must be a number > 0"),
        ("--seed", "-1", "--seed: must be >= 0"),
        ("--num-layers", "0", "--num-layers: must be a positive integer"),
        ("--dropout", "1", "--dropout: must be a number >= 0 and < 1"),
        ("--dropout", "-0.5", "--dropout: must be a number >= 0 and < 1"),
        ("--patience", "-1", "--patience: must be >= 0"),
    ],
)
def test_bad_train_flags(capsys, text_file, flag, value, pattern):
    code, _, err = call(capsys, "train", "--text", text_file, flag, value)
    assert_one_line_error(code, err, pattern, status=2)
    assert err.startswith(f"python -m rnn_core train: error: argument {flag}: ")  # argparse's usage error
    assert err.rstrip().endswith("(see python -m rnn_core train --help)")


def test_flag_types_refuse_what_train_config_refuses():
    """Each train flag's argparse type accepts a value exactly when TrainConfig does, so the parser is the one
    place a bad flag is caught (a usage error naming the flag) and nothing is read back from a check's message."""
    import argparse

    train_parser = next(a for a in build_parser()._actions if a.dest == "command").choices["train"]
    typed = [a for a in train_parser._actions if a.type is not None]
    assert len(typed) == 12  # the sizes, counts, rates and seconds
    defaults = TrainConfig()
    for action in typed:
        integer = isinstance(getattr(defaults, action.dest), int)
        for text in ("-1", "0", "0.5", "0.999", "1", "2", "100000", "nan", "inf"):
            if integer and not float(text).is_integer():
                continue  # not an integer: refused by the type as such ("expected an integer")
            value = int(float(text)) if integer else float(text)
            try:
                TrainConfig(**{action.dest: value})
                config_accepts = True
            except ValueError:
                config_accepts = False
            try:
                action.type(text)
                type_accepts = True
            except argparse.ArgumentTypeError:
                type_accepts = False
            assert type_accepts == config_accepts, (action.dest, text)


@pytest.mark.parametrize(
    "flag, value, pattern",
    [
        ("--temperature", "-1", "--temperature: must be a number >= 0"),
        ("--length", "-5", "--length: must be >= 0"),
        ("--top-k", "0", "--top-k: must be a positive integer"),
        ("--length", "many", "--length: expected an integer, got 'many'"),
        ("--temperature", "warm", "--temperature: expected a number, got 'warm'"),
    ],
)
def test_bad_sample_flags(capsys, trained, flag, value, pattern):
    code, _, err = call(capsys, "sample", "--checkpoint", trained, flag, value)
    assert_one_line_error(code, err, pattern, status=2)


def test_a_type_error_that_is_no_flags_fault_is_not_a_usage_error(capsys, tmp_path, text_file, monkeypatch):
    """Only argparse's types make usage lines; a TypeError after parsing is a bug and keeps its traceback."""
    import rnn_core.cli as cli

    def broken(*args, **kwargs):
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(cli, "TrainConfig", broken)
    with pytest.raises(TypeError, match="unsupported operand"):
        main(["train", "--text", str(text_file), "--checkpoint", str(tmp_path / "m.npz"), *FAST])
    monkeypatch.undo()
    monkeypatch.setattr(cli, "load_text", broken)  # after the flags are checked
    with pytest.raises(TypeError, match="unsupported operand"):
        main(["train", "--text", str(text_file), "--checkpoint", str(tmp_path / "m.npz"), *FAST])


def test_missing_text(capsys, tmp_path):
    code, _, err = call(capsys, "train", "--text", tmp_path / "nope.txt", "--checkpoint", tmp_path / "m.npz", *FAST)
    assert_one_line_error(code, err, r"error: the text file .*nope.txt does not exist", status=1)


def test_empty_text(capsys, tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("")
    code, _, err = call(capsys, "train", "--text", p, "--checkpoint", tmp_path / "m.npz", *FAST)
    assert_one_line_error(code, err, "empty", status=1)


def test_too_short_text(capsys, tmp_path):
    p = tmp_path / "short.txt"
    p.write_text("Mr. Darcy.\n")
    code, _, err = call(capsys, "train", "--text", p, "--checkpoint", tmp_path / "m.npz", *FAST)
    assert_one_line_error(code, err, "too short", status=1)


def test_text_not_utf8(capsys, tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes(("caf\xe9 " * 500).encode("latin-1"))
    code, _, err = call(capsys, "train", "--text", p, "--checkpoint", tmp_path / "m.npz", *FAST)
    assert_one_line_error(code, err, "not UTF-8", status=1)


def test_checkpoint_folder_missing_is_checked_before_training(capsys, tmp_path):
    # the text does not exist either: the folder is reported first, before any reading or training
    code, _, err = call(
        capsys, "train", "--text", tmp_path / "nope.txt", "--checkpoint", tmp_path / "no" / "m.npz", *FAST
    )
    assert_one_line_error(code, err, "checkpoint folder .* does not exist", status=1)


def test_checkpoint_is_a_folder(capsys, tmp_path, text_file):
    code, _, err = call(capsys, "train", "--text", text_file, "--checkpoint", tmp_path, *FAST)
    assert_one_line_error(code, err, "is a folder", status=1)


def test_resume_without_checkpoint(capsys, tmp_path, text_file):
    code, _, err = call(capsys, "train", "--text", text_file, "--checkpoint", tmp_path / "m.npz", "--resume", *FAST)
    assert_one_line_error(code, err, "nothing to resume", status=1)


def test_resume_of_a_cell_never_trained_here_says_there_is_nothing_to_resume(capsys, tmp_path, text_file, monkeypatch):
    """No --checkpoint and no checkpoints/ folder: the message is about the run to resume, not about a
    --checkpoint folder the command line never named."""
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "train", "--text", text_file, "--resume", "--cell", "lstm", *FAST)
    assert_one_line_error(code, err, r"checkpoints/lstm.npz does not exist, so there is nothing to resume", status=1)


def test_resume_with_other_hidden_size(capsys, trained, text_file):
    code, _, err = call(
        capsys,
        "train",
        "--text",
        text_file,
        "--checkpoint",
        trained,
        "--resume",
        "--hidden-size",
        "16",
        "--steps",
        "30",
    )
    assert_one_line_error(code, err, "hidden_size=8", status=1)


def test_resume_on_another_text(capsys, trained, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text(TEXT.replace("wife", "life"), encoding="utf-8")
    code, _, err = call(capsys, "train", "--text", other, "--checkpoint", trained, "--resume", "--steps", "30")
    assert_one_line_error(code, err, "different text", status=1)


@pytest.mark.parametrize("command", ["sample", "resume"])
def test_corrupt_checkpoint(capsys, trained, text_file, command):
    data = trained.read_bytes()
    trained.write_bytes(data[: len(data) // 3])
    if command == "sample":
        code, _, err = call(capsys, "sample", "--checkpoint", trained)
    else:
        code, _, err = call(capsys, "train", "--text", text_file, "--checkpoint", trained, "--resume", "--steps", "30")
    assert_one_line_error(code, err, "corrupt", status=1)


def test_sample_reads_the_checkpoint_train_saved_last(capsys, tmp_path, text_file, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = call(capsys, "sample")
    assert_one_line_error(code, err, r"no checkpoint in checkpoints/ \(train saves one there\)", status=1)
    for cell in ("rnn", "gru"):  # rnn.npz first, then gru.npz: sample reads the GRU's
        code, _, _ = call(capsys, "train", "--text", text_file, "--cell", cell, *FAST)
        assert code == 0 and (tmp_path / "checkpoints" / f"{cell}.npz").is_file()
    code, out, _ = call(capsys, "sample", "--length", "30", "--seed", "1")
    _, ours, _ = call(capsys, "sample", "--length", "30", "--seed", "1", "--checkpoint", "checkpoints/gru.npz")
    assert code == 0 and out == ours


def test_sample_missing_checkpoint(capsys, tmp_path):
    code, _, err = call(capsys, "sample", "--checkpoint", tmp_path / "none.npz")
    assert_one_line_error(code, err, "does not exist", status=1)


def test_prime_outside_vocabulary(capsys, trained):
    code, _, err = call(capsys, "sample", "--checkpoint", trained, "--prime", "Zebra#")
    assert_one_line_error(code, err, r"never saw: '#', 'Z';", status=1)


def test_empty_prime(capsys, trained):
    code, _, err = call(capsys, "sample", "--checkpoint", trained, "--prime", "")
    assert_one_line_error(code, err, "must not be empty", status=1)


def test_diverging_training_is_a_clear_error(capsys, tmp_path, text_file):
    ck = tmp_path / "m.npz"
    code, out, err = call(
        capsys, "train", "--text", text_file, "--checkpoint", ck, *FAST, "--optimizer", "sgd", "--learning-rate", "1e38"
    )
    assert code == 1 and "stopped: non-finite" in out
    assert_one_line_error(code, err, "error: training stopped at step .*last finite")
    assert all(np.isfinite(p).all() for p in load_checkpoint(ck).params.values())


def test_no_command(capsys):
    code, _, err = call(capsys)
    assert_one_line_error(code, err, "required", status=2)


def test_as_a_module_no_traceback(tmp_path):
    """The real entry point, in a subprocess: a bad input gives one line and status 1."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "rnn_core",
            "train",
            "--text",
            str(tmp_path / "nope.txt"),
            "--checkpoint",
            str(tmp_path / "m.npz"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and r.stdout == ""
    assert_one_line_error(r.returncode, r.stderr, "does not exist")


def test_the_engines_command_line_does_not_load_the_instructors_tools():
    """import rnn_core.cli leaves the grader and the edition writer unloaded: their subcommands import them."""
    tools = "('rnn_core.course.grade', 'rnn_core.course.edition')"
    code = f"import sys, rnn_core.cli; print(sorted(m for m in {tools} if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert r.stdout.strip() == "[]"


def test_instructor_flags_are_checked_by_their_types(capsys):
    """grade's flags are refused by the same argparse types as train's, before the grader is loaded."""
    code, _, err = call(capsys, "grade", "x.ipynb", "--jobs", "0")
    assert_one_line_error(code, err, "argument --jobs: must be a positive integer, got 0", status=2)
    code, _, err = call(capsys, "grade", "x.ipynb", "--exercise-timeout", "0")
    assert_one_line_error(code, err, "argument --exercise-timeout: must be a number > 0, got 0.0", status=2)
    code, _, err = call(capsys, "grade", "x.ipynb", "--seed", "-1")
    assert_one_line_error(code, err, "argument --seed: must be >= 0, got -1", status=2)


def test_ctrl_c_saves_and_summarises(tmp_path, text_file):
    """SIGINT while training: checkpoint saved, summary printed, exit status 130, no traceback."""
    import os
    import signal

    ck = tmp_path / "m.npz"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rnn_core",
            "train",
            "--text",
            str(text_file),
            "--checkpoint",
            str(ck),
            "--hidden-size",
            "8",
            "--batch-size",
            "2",
            "--seq-length",
            "8",
            "--steps",
            "100000000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    seen = b""
    # wait until the progress bar counts steps: the training loop is running
    while not re.search(rb"\|\s*[1-9][0-9]*/", seen) and proc.poll() is None:
        seen += os.read(proc.stderr.fileno(), 4096)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = (seen + err).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "stopped: interrupted" in out.decode() and "val_bpc " in out.decode(), err
    assert load_checkpoint(ck).step > 0


def test_the_stated_worst_grading_time_counts_every_exercise():
    """grade's --exercise-timeout help and the README say how long a series takes if every exercise hangs."""
    from pathlib import Path

    from rnn_core import practice
    from rnn_core.course.settings import EXERCISE_TIMEOUT

    n = len(practice.EXERCISES)
    worst = f"{n * EXERCISE_TIMEOUT:g} s"
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split())
    assert f"({n} exercises) takes at most {worst}" in readme
    grade = build_parser()._subparsers._group_actions[0].choices["grade"]
    (timeout,) = [a for a in grade._actions if "--exercise-timeout" in a.option_strings]
    assert f"{n} exercises then take at most {worst}" in timeout.help
