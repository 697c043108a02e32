"""The engines of two checkouts of rnn_core side by side: each cell's loss_and_grads, fast and reference.

    git worktree add /tmp/before COMMIT       # the other tree, outside the repository
    OPENBLAS_NUM_THREADS=1 python benchmarks/two_trees.py /tmp/before . --rounds 16 --calls 3

Two long-lived processes, one per tree (its rnn_core first on sys.path), run the same work as
``throughput.py`` (H = 256, V = 91, float32; B = T = 32 and 64; the vanilla cell on windows of
``throughput.random_text``, the gated cells on random ids): every cell's ``loss_and_grads``, its fast
path and its reference loop (``fast=False``). The controller times them in alternating blocks
(``--calls`` calls of one configuration in one tree, then in the other, the order swapped every
round), so a change in the machine's load falls on both trees alike, and reports per configuration
the fastest call (the one least disturbed by other work) and the median, and the speed ratio of the
second tree to the first. Give the same tree twice for a control: its ratios show how far apart two
identical trees come out on this machine at this load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = ((32, 32), (64, 64))  # (B, T), as throughput.py's
H, V = 256, 91


def worker(root):
    """Serve one tree: read 'KEY CALLS' lines, answer each with the calls' times as a JSON list."""
    sys.path.insert(0, str(Path(root).resolve()))
    import numpy as np

    import rnn_core
    import throughput  # benchmarks/throughput.py: the same text as its table

    fns, ids = {}, throughput.random_text(V)
    for B, T in CONFIGS:
        params = rnn_core.init_params(V, H, seed=0, dtype=np.float32)
        x, y = (np.ascontiguousarray(a) for a in rnn_core.StreamBatcher(ids, B, T).window(0))
        h0 = np.zeros((B, H), np.float32)
        for fast in (True, False):
            fns[f"rnn-{B}-{'fast' if fast else 'reference'}"] = lambda p=params, x=x, y=y, h=h0, f=fast: (
                rnn_core.loss_and_grads(p, x, y, h, fast=f)
            )
        for cell in ("lstm", "gru"):
            module, rng = rnn_core.CELLS[cell], np.random.default_rng(0)
            p = module.init_params(V, H, seed=0, dtype=np.float32)
            xi, yi = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))
            for fast in (True, False):
                fns[f"{cell}-{B}-{'fast' if fast else 'reference'}"] = lambda p=p, x=xi, y=yi, m=module, f=fast: (
                    m.loss_and_grads(p, x, y, fast=f)
                )
    for fn in fns.values():  # warm-up
        fn()
        fn()
    print(json.dumps([rnn_core.__file__, list(fns)]), flush=True)
    for line in sys.stdin:
        key, calls = line.split()
        times = []
        for _ in range(int(calls)):
            t0 = time.perf_counter()
            fns[key]()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("first", help="the first tree (a folder holding rnn_core/), e.g. a worktree of the older commit")
    ap.add_argument("second", help="the second tree")
    ap.add_argument("--rounds", type=int, default=16, help="alternating rounds (default: 16)")
    ap.add_argument("--calls", type=int, default=3, help="calls per block (default: 3)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    trees = {"first": args.first, "second": args.second}
    procs = {
        name: subprocess.Popen(
            [sys.executable, __file__, "-", "-", "--worker", root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=HERE,
        )
        for name, root in trees.items()
    }
    keys = None
    for name, proc in procs.items():
        where, keys = json.loads(proc.stdout.readline())
        print(f"{name}: {where}")
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)", flush=True)
    times = {(key, name): [] for key in keys for name in trees}
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(trees)[::-1]
        for key in keys:
            for name in order:
                time.sleep(0.2)  # what the other tree's process left running settles
                procs[name].stdin.write(f"{key} {args.calls}\n")
                procs[name].stdin.flush()
                times[(key, name)] += json.loads(procs[name].stdout.readline())
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)\n")
    print("| configuration | first: fastest ms (median) | second: fastest ms (median) | speed second / first |")
    print("|---|---:|---:|---:|")
    for key in keys:
        a, b = times[(key, "first")], times[(key, "second")]
        print(
            f"| {key} | {min(a) * 1e3:.1f} ({statistics.median(a) * 1e3:.1f}) | "
            f"{min(b) * 1e3:.1f} ({statistics.median(b) * 1e3:.1f}) | {min(a) / min(b):.2f} |"
        )


if __name__ == "__main__":
    main()
