"""Execute notebooks the one canonical way, and write them back with their outputs.

    .venv/bin/python tools/execute_notebooks.py 03-the-forward-pass.ipynb [more.ipynb ...]
    .venv/bin/python tools/execute_notebooks.py notebooks/0[1-3]-*.ipynb

A name without a folder is looked up in notebooks/. Each notebook runs top to bottom in a fresh
kernel (the python3 kernel of the environment running this script, i.e. .venv's) with notebooks/
as its working folder, exactly as Run All does there. On success the notebook is written back:
outputs, execution counts 1..n in order, cell ids and every other key kept, no timing metadata
added, in the JSON layout nbformat writes. A cell that raises stops the run and the file is left
untouched (the error, its cell and its traceback are printed; exit code 1).

``--store-runs`` first runs the notebook with every long run on (``rnn_core.stored``: the cells
that a notebook's ``LONG_RUNS = False`` shows from stored results), writing their results into
rnn_core/stored_runs/, and then runs it as a reader's Run All does, which shows them.

No live widget is stored: a widget does not outlive its kernel, and a stored one shows as a repr
(``VBox(children=...``) in JupyterLab before the cell runs, as nothing on GitHub and as a dead
slider on the site. Each widget output is replaced by what it stands for
(``rnn_core.widgets.before_run_outputs``): for the series' sliders, a line saying that running
the cell brings them, then their printed text and figure at the starting position; for a
progress bar, its final text. The notebook's metadata holds no widget state (GitHub renders a
notebook without the "widgets" key; with it, it needs a "state").

The environment it expects (the stored outputs are compared by nbval, so they must be an
ordinary run's):
- ``RNN_CORE_TEXT`` pointing at the novel, or an internet connection to download it once;
- BLAS threads as a reader has them: leave ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` unset
  (the test suite sets them to 1 for its own processes; this script warns when they are set), and
  run on a quiet machine, since a few cells print wall times;
- the reader's file of answers, my_rnn.py, as a reader first has it: the script points
  ``RNN_CORE_MY_RNN`` at a fresh template in a temporary folder (as conftest.py does for the tests),
  so that the cells using it store every piece falling back to rnn_core's, whatever
  notebooks/my_rnn.py holds;
- any CPU: every output nbval compares is the same on every CPU and BLAS (the tests' nbval runs the
  notebooks' kernels under another CPU's OpenBLAS kernels than this machine's: conftest.py); the few
  cells whose printed numbers depend on the last bits of float32 rounding or on wall time are tagged
  ``nbval-ignore-output`` (the README lists them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import nbformat
from nbclient.exceptions import CellExecutionError

from notebook_files import client, write  # tools/, this script's folder
from rnn_core import practice

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT = 1800  # seconds one cell may take before the run counts as failed
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def resolve(name):
    """The notebook file for a command-line argument: a path, or a name inside notebooks/."""
    path = Path(name)
    if not path.exists() and path.parent == Path("."):
        path = NOTEBOOKS / path.name
    if not path.is_file() or path.suffix != ".ipynb":
        raise SystemExit(f"error: {name}: no such notebook (give a path, or a name in notebooks/)")
    return path.resolve()


def execute(path, timeout=CELL_TIMEOUT):
    """Run the notebook at `path` in a fresh kernel with notebooks/ as cwd; returns the executed
    notebook (a NotebookNode). Raises CellExecutionError if a cell fails."""
    nb = nbformat.read(path, as_version=4)
    client(nb, path.parent, timeout).execute()
    return for_reading(nb)


def for_reading(nb):
    """The executed notebook as it is stored: every widget output swapped for what it stands for
    before its cell runs, no widget state (returns nb, changed in place)."""
    from rnn_core.widgets import before_run_outputs

    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = merged_streams([nbformat.from_dict(o) for o in before_run_outputs(cell.outputs, state)])
    nb.metadata.pop("widgets", None)
    return nb


def merged_streams(outputs):
    """Consecutive printed outputs of one stream (stdout, stderr) as one output, as JupyterLab shows
    them: the kernel sends a cell's prints in pieces cut wherever its buffer was flushed, which
    depends on the machine's load, so the stored notebook would change from run to run."""
    merged = []
    for out in outputs:
        last = merged[-1] if merged else None
        if out.output_type == "stream" and last and last.output_type == "stream" and last.name == out.name:
            last.text += out.text
        else:
            merged.append(out)
    return merged


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", help="NN-slug.ipynb names (in notebooks/) or paths")
    parser.add_argument("--timeout", type=int, default=CELL_TIMEOUT, help="seconds per cell (default: %(default)s)")
    parser.add_argument(
        "--store-runs", action="store_true", help="first run every long run and store its results (rnn_core.stored)"
    )
    args = parser.parse_args(argv)
    paths = [resolve(name) for name in args.notebooks]
    set_threads = {v: os.environ[v] for v in THREAD_VARS if v in os.environ}
    if set_threads:
        print(
            f"warning: {set_threads}: the stored outputs should come from a run with BLAS's default threads",
            file=sys.stderr,
        )
    if not os.environ.get("RNN_CORE_TEXT"):
        print("note: RNN_CORE_TEXT is not set: the novel comes from the cache or a download", file=sys.stderr)
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    with tempfile.TemporaryDirectory(prefix="rnn_core_my_rnn_") as folder:
        (Path(folder) / "notebooks").mkdir()  # the file prints as a reader's does: notebooks/my_rnn.py
        return run_all(paths, args.timeout, Path(folder) / "notebooks" / "my_rnn.py", args.store_runs)


def store_runs(path, timeout):
    """Run the notebook with its long runs on, storing their results (rnn_core.stored); nothing is written
    back to the notebook. Raises CellExecutionError if a cell fails."""
    from rnn_core import stored

    # the kernel inherits the environment: every long run on, stored into the package's folder
    with mock.patch.dict(os.environ, {stored.RUN_ALL: "1", stored.STORE_INTO: str(stored.FOLDER)}):
        execute(path, timeout)


def run_all(paths, timeout, my_rnn, long_runs=False):
    """Execute and write back every notebook, with $RNN_CORE_MY_RNN a fresh template at my_rnn."""
    with contextlib.redirect_stdout(io.StringIO()):
        practice.my_rnn(my_rnn)  # the template, made as a reader's first call makes it
    os.environ[practice.MY_RNN_ENV] = str(my_rnn)  # the kernels inherit it
    failed = 0
    for path in paths:
        t0 = time.monotonic()
        try:
            if long_runs:
                store_runs(path, timeout)
                print(f"stored the long runs of {path.name} in {time.monotonic() - t0:.0f} s")
            nb = execute(path, timeout)
        except CellExecutionError as e:
            failed += 1
            print(f"FAILED {path.name} (left unchanged):\n{e}", file=sys.stderr)
            continue
        write(nb, path)
        print(f"executed {path.name} in {time.monotonic() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
