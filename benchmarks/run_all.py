"""How long each notebook's Run All takes: the figure behind each notebook's "Run All: about ..."
(its metadata ``nbnav.run_seconds``, which tools/nbnav.py writes into its header and 00's map).

    .venv/bin/python benchmarks/run_all.py                 # every notebook
    .venv/bin/python benchmarks/run_all.py 06 07           # some, by number or name
    .venv/bin/python benchmarks/run_all.py --slowest 5     # and each one's five slowest cells

Each notebook runs top to bottom in a fresh kernel with notebooks/ as its working folder, as
tools/execute_notebooks.py runs it, kernel start included, and nothing is written back. The
kernel gets one BLAS thread (``OPENBLAS_NUM_THREADS=1``, as on a 2-core machine where a reader's
other programs take the second core), unless ``--threads`` says otherwise. The reader's file of
answers is a fresh template, as a reader first has it. Measure on a quiet machine: the times
are wall-clock seconds, and a busy machine inflates them. A benchmark, not a test: it asserts
nothing, and a notebook that fails is reported and skipped.

Columns: the wall-clock seconds; the kernel's CPU seconds (its own work, which a busy machine
inflates far less: a guide to relative costs when the machine is not quiet; kernel start and
notebook-server overhead are not in it); what the notebook's metadata states now; what it should
state, the wall-clock measurement rounded up to the next 5 s (``stated``); and whether the Run All
fits in a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ROUND_TO = 5  # seconds: a stated Run All is the measurement rounded up to this
LIMIT = 60  # seconds: every notebook's Run All should fit in this on a 2-core machine


def stated(seconds):
    """What a notebook states for a Run All measured at ``seconds``: rounded up to ROUND_TO."""
    return ROUND_TO * math.ceil(seconds / ROUND_TO)


def notebooks(names):
    """The notebook files named (by number "06", name, or path), or all of them."""
    every = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    if not names:
        return every
    found = []
    for name in names:
        match = [p for p in every if p.name == Path(name).name or p.name.split("-")[0] == name]
        if not match:
            raise SystemExit(f"error: {name}: no such notebook (give its number, e.g. 06, or its file name)")
        found += match
    return found


CPU_PROBE = "import time as _t\nprint(_t.process_time())"  # run after the notebook: the kernel's CPU seconds


def run(path, timeout):
    """(seconds for the whole run, kernel start included; the kernel's CPU seconds; [(seconds, cell
    index)] of its code cells)."""
    from notebook_files import client  # tools/, put on sys.path by main

    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(CPU_PROBE))
    runner = client(nb, path.parent, timeout, record_timing=True)  # as tools/execute_notebooks.py runs it
    t0 = time.monotonic()
    runner.execute()
    total = time.monotonic() - t0
    cpu = float("".join(o.get("text", "") for o in nb.cells[-1].outputs) or "nan")
    cells = []
    for i, cell in enumerate(nb.cells):
        timing = cell.get("metadata", {}).get("execution", {})
        start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        if cell.cell_type == "code" and start and end:
            seconds = (
                datetime.fromisoformat(end.rstrip("Z")) - datetime.fromisoformat(start.rstrip("Z"))
            ).total_seconds()
            cells.append((seconds, i))
    return total, cpu, sorted(cells[:-1] if cells and cells[-1][1] == len(nb.cells) - 1 else cells, reverse=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="numbers (06) or names; default: every notebook")
    parser.add_argument("--threads", default="1", help="BLAS threads for the kernel (default: %(default)s)")
    parser.add_argument("--slowest", type=int, default=0, help="also list each notebook's N slowest cells")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds one cell may take")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "tools")]  # rnn_core, and tools/notebook_files.py (run's client)
    from rnn_core import practice

    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = args.threads  # the kernels inherit them
    if not os.environ.get("RNN_CORE_TEXT"):
        print("note: RNN_CORE_TEXT is not set: the novel comes from the cache or a download", file=sys.stderr)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Run All of each notebook, {args.threads} BLAS thread(s), {os.cpu_count()} CPUs, load {load:.1f} at start")
    print(f"{'notebook':48s} {'seconds':>8s} {'CPU s':>7s} {'states':>7s} {'stated':>7s}  within {LIMIT} s")
    with tempfile.TemporaryDirectory(prefix="rnn_core_my_rnn_") as folder:
        my_rnn = Path(folder) / "my_rnn.py"
        with contextlib.redirect_stdout(io.StringIO()):
            practice.my_rnn(my_rnn)  # the template, as a reader's first call makes it
        os.environ[practice.MY_RNN_ENV] = str(my_rnn)
        for path in notebooks(args.notebooks):
            try:
                seconds, cpu, cells = run(path, args.timeout)
            except CellExecutionError as e:
                print(f"{path.name:48s} FAILED: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
                continue
            meta = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("nbnav", {})
            says = meta.get("run_seconds")
            print(
                f"{path.name:48s} {seconds:8.1f} {cpu:7.1f} {says if says is not None else '—':>7} {stated(seconds):7d}"
                f"  {'yes' if seconds <= LIMIT else 'NO'}"
            )
            for cell_seconds, index in cells[: args.slowest]:
                print(f"    cell [{index}] {cell_seconds:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
