"""The instructors' tools' settings, apart from the tools.

The command line states them in ``--help`` without importing the grader (``rnn_core.course.grade``) or the
edition writer (``rnn_core.course.edition``), which it loads only for the subcommand that runs them.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["EXERCISE_TIMEOUT", "MEMORY_MB", "MARKER", "MARKER_LINE", "WITHHELD_ENV", "solutions_withheld"]

# 19 exercises x 20 s = 380 s at worst for a whole series, inside Gradescope's default 10 minutes
EXERCISE_TIMEOUT = 20.0  # seconds for an exercise: its cells and every call (right answers take about 1 s)
MEMORY_MB = 2048  # the address space of an exercise's process (numpy and a right answer need about 300 MB)
MARKER = "STUDENT-EDITION.md"  # written beside the notebooks of a student edition
MARKER_LINE = "<!-- rnn_core student edition -->"  # its first line: what makes it the marker
WITHHELD_ENV = "RNN_CORE_SOLUTIONS"  # "withheld": practice.solution withholds wherever it runs
_SOLUTIONS_MODULE = "solutions"  # course/solutions.py, left out of the edition's wheel


def solutions_withheld(folder=None):
    """Why ``practice.solution`` withholds here, or None: the marker file found in ``folder`` (default: the
    working folder) or a folder above it, or ``$RNN_CORE_SOLUTIONS`` set to "withheld"."""
    if os.environ.get(WITHHELD_ENV, "").strip().lower() == "withheld":
        return f"${WITHHELD_ENV}=withheld"
    if not Path(__file__).with_name(f"{_SOLUTIONS_MODULE}.py").is_file():
        return "this rnn_core is the student edition's package, built without the answers"
    try:
        start = Path.cwd() if folder is None else Path(folder)
        start = start.resolve()
    except OSError:  # the working folder was deleted under us
        return None
    for place in (start, *start.parents):
        marker = place / MARKER
        try:
            with marker.open(encoding="utf-8", errors="replace") as f:
                first = f.readline().strip()
        except OSError:
            continue
        if first == MARKER_LINE:
            return f"student edition: {marker}"
    return None
