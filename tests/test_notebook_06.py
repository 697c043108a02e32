"""Notebook 06's small run with the reader's own pieces (section 3, "Your own network, first").

The stored notebook runs that cell with the template as my_rnn.py, so every piece is rnn_core's. Its
prose promises that a reader whose five pieces are all right sees the same losses, to the digits
shown, and the same text. This test runs the cell as the notebook has it, with a my_rnn.py holding
tests/plain_my_rnn.py's answers (plain loops, written independently of rnn_core), and compares what
it prints with the stored output: the same lines, but for the five "not written yet" lines, which go,
and the pieces line, which names every piece as the reader's.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import nbformat
from notebook_code import NOTEBOOKS, run_up_to  # tests/notebook_code.py

from rnn_core import practice, widgets

NOTEBOOK = "06-training-on-pride-and-prejudice.ipynb"
RUN_CELL = "yours-run"  # the cell id of the small run
PIECES = ("loss_and_grads", "clip_global_norm", "adam_update", "step_forward", "softmax")


def stored_cell(cell_id):
    """(source, stored stream text) of the notebook's cell with this id."""
    cells = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4).cells
    (cell,) = (c for c in cells if c.get("id") == cell_id)
    text = "".join(o.text for o in cell.outputs if o.output_type == "stream")
    return cell.source, text


def test_right_pieces_of_the_reader_print_what_the_stored_run_prints(tmp_path, monkeypatch):
    source, stored = stored_cell(RUN_CELL)
    mine = tmp_path / "notebooks" / "my_rnn.py"  # printed as notebooks/my_rnn.py, as in the stored run
    mine.parent.mkdir()
    shutil.copy(Path(__file__).resolve().parent / "plain_my_rnn.py", mine)
    monkeypatch.setenv(practice.MY_RNN_ENV, str(mine))
    namespace = run_up_to(NOTEBOOK, "YOURS_STEPS")  # the cells before the run, the parameters included
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, f"<{NOTEBOOK}, {RUN_CELL}>", "exec"), namespace)

    assert namespace["yours"].used == dict.fromkeys(PIECES, "yours")
    fallback = {f"Your {p} is still a stub: training uses rnn_core's {p}." for p in PIECES}
    assert fallback <= set(stored.splitlines()), "the stored run no longer shows the template's fallbacks"
    expected = [line for line in stored.splitlines() if line not in fallback]
    # the last lines name whose pieces trained it, wrapped: the reader's, every one
    last = next(k for k, line in enumerate(expected) if line.startswith("your pieces: "))
    expected = expected[:last] + widgets.wrapped("your pieces: " + ", ".join(PIECES)).splitlines()
    expected += ["rnn_core's pieces: none"]
    assert printed.getvalue().splitlines() == expected
