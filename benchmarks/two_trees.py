"""The engines of two checkouts of rnn_core side by side: each cell's loss_and_grads, fast and reference.

    git worktree add ../before COMMIT         # the other tree, beside the repository
    python benchmarks/two_trees.py ../before . --control --rounds 16 --calls 3

The work is ``throughput.py``'s (H = 256, V = 91, float32; B = T = 32 and 64; the vanilla cell on
windows of ``throughput.random_text``, the gated cells on random ids): every cell's
``loss_and_grads``, its fast path and its reference loop (``fast=False``), twelve configurations.
They are timed one at a time, each in a fresh worker process per tree (its rnn_core first on
sys.path) that runs that configuration alone, as a training run does. (Twelve configurations in
one long-lived process made the numbers depend on the order of the process's allocations:
glibc's malloc moves its mmap threshold as large blocks are freed, and whether a loop's (B, 3H)
arrays at B = 64 come from fresh pages, a page fault each, or from reused memory then depended on
what had run before, not on the engine; benchmarks/README.md has the figures.)

Each worker runs with one BLAS thread (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and MKL_NUM_THREADS
set to 1), so all of a call's work is done in the calling thread, and records for every call its
CPU time (``time.process_time``), its wall time (``time.perf_counter``) and its minor page faults.
The CPU time counts only the time the process itself ran, so other jobs on a shared machine,
which stretch the wall time by taking the core away, disturb it much less: it is the measure to
judge by there. The page faults do not depend on the load at all.

The controller times the trees in alternating blocks (``--calls`` calls in one tree, then in the
other, the order rotated every round), so a change in the machine's load falls on all alike.
``--control`` adds a third worker running the first tree again, in the same rotation: its ratios
against the first show how far apart two identical trees come out in this very run, the noise any
real difference has to stand out from. It reports per configuration the median CPU time per call
and the fastest wall time of each tree, the speed ratios first / second (above 1: the second tree
is faster) by both measures with the control's beside them, the median page faults per call, and
how busy the machine was while the workers were timed (from /proc/stat), theirs and other jobs'.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = ((32, 32), (64, 64))  # (B, T), as throughput.py's
H, V = 256, 91
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


KEYS = tuple(
    f"{cell}-{B}-{engine}" for B, _ in CONFIGS for cell in ("rnn", "lstm", "gru") for engine in ("fast", "reference")
)


def worker(root, key):
    """Serve one tree and one configuration: read 'WARM CALLS' lines, answer each with the timed
    calls' [CPU s, wall s, minor page faults] as JSON."""
    sys.path.insert(0, str(Path(root).resolve()))
    import numpy as np

    import rnn_core
    import throughput  # benchmarks/throughput.py: the same text as its table

    ids = throughput.random_text(V)
    cell, B, engine = key.split("-")
    B, fast = int(B), engine == "fast"
    T = dict(CONFIGS)[B]
    if cell == "rnn":
        params = rnn_core.init_params(V, H, seed=0, dtype=np.float32)
        x, y = (np.ascontiguousarray(a) for a in rnn_core.StreamBatcher(ids, B, T).window(0))
        h0 = np.zeros((B, H), np.float32)

        def fn():
            return rnn_core.loss_and_grads(params, x, y, h0, fast=fast)
    else:
        module, rng = rnn_core.CELLS[cell], np.random.default_rng(0)
        params = module.init_params(V, H, seed=0, dtype=np.float32)
        x, y = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))

        def fn():
            return module.loss_and_grads(params, x, y, fast=fast)

    fn()  # warm-up
    fn()
    print(json.dumps(rnn_core.__file__), flush=True)
    for line in sys.stdin:
        warm, calls = (int(n) for n in line.split())
        for _ in range(warm):
            fn()
        times = []
        for _ in range(calls):
            f0, c0, t0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.process_time(), time.perf_counter()
            fn()
            t1, c1, f1 = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            times.append([c1 - c0, t1 - t0, f1 - f0])
        print(json.dumps(times), flush=True)


def cpu_ticks(pids):
    """(busy, total, ours): clock ticks since boot of all the machine's CPUs, busy and in all, and
    of the processes ``pids``, from /proc (Linux); None elsewhere."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(n) for n in f.readline().split()[1:9]]
        ours = 0
        for pid in pids:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ours += int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, ValueError, IndexError):
        return None
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks), ours  # busy: all but idle and iowait


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("first", help="the first tree (a folder holding rnn_core/), e.g. a worktree of the older commit")
    ap.add_argument("second", help="the second tree")
    ap.add_argument("--control", action="store_true", help="also run the first tree in a third process")
    ap.add_argument("--rounds", type=int, default=40, help="alternating rounds (default: 40)")
    ap.add_argument("--calls", type=int, default=2, help="timed calls per block (default: 2)")
    ap.add_argument("--warm", type=int, default=0, help="untimed calls at the start of each block (default: 0)")
    ap.add_argument(
        "--only", nargs="+", choices=KEYS, metavar="KEY", help="these configurations only (e.g. gru-64-reference)"
    )
    ap.add_argument("--save", help="also write every call's figures to this JSON file")
    ap.add_argument("--key", help=argparse.SUPPRESS)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.key)
    trees = {"first": args.first, "second": args.second}
    if args.control:
        trees["control"] = args.first
    names, keys = list(trees), [k for k in KEYS if args.only is None or k in args.only]
    times = {(key, name): [] for key in keys for name in trees}
    start, ticks = time.perf_counter(), [0, 0, 0]
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)", flush=True)
    for key in keys:  # one configuration at a time, each tree's in a process of its own
        procs = {
            name: subprocess.Popen(
                [sys.executable, __file__, "-", "-", "--worker", root, "--key", key],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=HERE,
                env={**os.environ, **ONE_THREAD},
            )
            for name, root in trees.items()
        }
        where = {name: json.loads(proc.stdout.readline()) for name, proc in procs.items()}
        if key == keys[0]:
            print("\n".join(f"{name}: {path}" for name, path in where.items()), flush=True)
        pids = [proc.pid for proc in procs.values()]
        ticks0 = cpu_ticks(pids)
        for r in range(args.rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            order = order if r // len(names) % 2 == 0 else order[::-1]
            for name in order:
                time.sleep(0.05)  # what the previous process left running settles
                procs[name].stdin.write(f"{args.warm} {args.calls}\n")
                procs[name].stdin.flush()
                times[(key, name)] += json.loads(procs[name].stdout.readline())
        ticks1 = cpu_ticks(pids)
        if ticks0 and ticks1:
            ticks = [t + b - a for t, a, b in zip(ticks, ticks0, ticks1)]
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
    print(
        f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min);"
        f" {time.perf_counter() - start:.0f} s, {args.rounds * args.calls} calls per tree and configuration"
    )
    busy, total, ours = ticks
    if total:
        print(
            f"while timed, the machine's {os.cpu_count()} CPUs were busy {busy / total:.0%} of the time:"
            f" this benchmark's workers {ours / total:.0%}, other jobs {(busy - ours) / total:.0%}"
        )
    print()
    if args.save:
        with open(args.save, "w") as f:
            json.dump({f"{key} {name}": t for (key, name), t in times.items()}, f)

    def cpu(key, name):  # median CPU time per call, s
        return statistics.median(t[0] for t in times[(key, name)])

    def wall(key, name):  # fastest wall time, s
        return min(t[1] for t in times[(key, name)])

    def faults(key, name):  # median minor page faults per call
        return statistics.median(t[2] for t in times[(key, name)])

    control = args.control
    head = "| configuration | CPU ms: first | second | first / second |" + (" control |" if control else "")
    head += " wall ms (fastest): first | second | first / second |" + (" control |" if control else "")
    head += " page faults per call: first | second |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for key in keys:
        row = f"| {key} | {cpu(key, 'first') * 1e3:.2f} | {cpu(key, 'second') * 1e3:.2f} "
        row += f"| {cpu(key, 'first') / cpu(key, 'second'):.3f} |"
        if control:
            row += f" {cpu(key, 'first') / cpu(key, 'control'):.3f} |"
        row += f" {wall(key, 'first') * 1e3:.1f} | {wall(key, 'second') * 1e3:.1f} "
        row += f"| {wall(key, 'first') / wall(key, 'second'):.3f} |"
        if control:
            row += f" {wall(key, 'first') / wall(key, 'control'):.3f} |"
        row += f" {faults(key, 'first'):.0f} | {faults(key, 'second'):.0f} |"
        print(row)


if __name__ == "__main__":
    main()
