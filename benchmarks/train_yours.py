"""How long rnn_core.practice.train_yours takes: the reader's plain-loop pieces against rnn_core's.

    python benchmarks/train_yours.py                          # 300 steps, H = 32, T = 25, B = 8 and 16
    python benchmarks/train_yours.py --steps 1000 --hidden-size 64 --batch-sizes 16 --rounds 1

train_yours calls the reader's loss_and_grads on one sequence at a time, B times a step, then
their clip_global_norm and adam_update, and samples with their step_forward and softmax. A
reader's pieces are per-step loops over one sequence, so a step costs B calls of a Python loop
over T time steps. Two sets of pieces are timed, in alternating rounds, on the novel
($RNN_CORE_TEXT, or the cached download):
  - "yours": tests/plain_my_rnn.py, a complete my_rnn.py written with plain loops as a reader
    would (step_forward, softmax, cross_entropy_grad and step_backward called at every step);
  - "rnn_core": the template, every piece a stub, so every piece falls back to rnn_core's
    (what the notebooks run in CI): rnn_core.loss_and_grads on one sequence at a time.
Each row gives the median wall time of a whole call (the pieces' checks, the training, a
200-character sample) over the rounds. The last lines are a Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import statistics
import tempfile
import time
from pathlib import Path

import rnn_core
from rnn_core import practice

ROOT = Path(__file__).resolve().parent.parent


def plain_my_rnn():
    """tests/plain_my_rnn.py, the reader's complete answers in plain loops, as a module."""
    spec = importlib.util.spec_from_file_location("plain_my_rnn", ROOT / "tests" / "plain_my_rnn.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def template(folder):
    """The template my_rnn.py, made in folder and loaded: every piece a stub."""
    with contextlib.redirect_stdout(io.StringIO()):
        return practice.my_rnn(Path(folder) / "my_rnn.py")


def timed(functions, text, **kwargs):
    """(seconds, the run) of one train_yours call, its printing swallowed."""
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        run = practice.train_yours(functions, text, **kwargs)
    return time.perf_counter() - start, run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--hidden-size", type=int, default=32)
    parser.add_argument("--seq-length", type=int, default=25)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 16])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chars", type=int, default=None, help="train on the novel's first CHARS characters")
    args = parser.parse_args(argv)
    text = rnn_core.load_text()
    text = text[: args.chars] if args.chars else text
    V = len(set(text))
    print(
        f"train_yours: {args.steps} steps, H = {args.hidden_size}, T = {args.seq_length}, V = {V}, "
        f"{len(text):,} characters, median of {args.rounds} rounds"
    )
    with tempfile.TemporaryDirectory() as folder:
        sets = {"yours (tests/plain_my_rnn.py)": plain_my_rnn(), "rnn_core (the template)": template(folder)}
        rows = []
        for B in args.batch_sizes:
            kwargs = dict(hidden_size=args.hidden_size, steps=args.steps, seed=0, batch_size=B)
            kwargs["seq_length"] = args.seq_length
            seconds = {name: [] for name in sets}
            for _ in range(args.rounds):  # alternating, so that a change of load falls on both
                for name, functions in sets.items():
                    seconds[name].append(timed(functions, text, **kwargs)[0])
            for name in sets:
                median = statistics.median(seconds[name])
                rows.append((B, name, median, args.steps / median))
                print(f"  B = {B:3d}  {name:30s} {median:6.2f} s  {args.steps / median:6.1f} steps/s")
    print("\n| B | pieces | seconds | steps per second |\n|---:|---|---:|---:|")
    for B, name, median, rate in rows:
        print(f"| {B} | {name} | {median:.2f} | {rate:.0f} |")


if __name__ == "__main__":
    main()
