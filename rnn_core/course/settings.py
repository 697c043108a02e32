"""The instructors' tools' settings, apart from the tools.

The command line states them in ``--help`` without importing the grader (``rnn_core.course.grade``) or the
edition writer (``rnn_core.course.edition``), which it loads only for the subcommand that runs them.
"""

__all__ = ["EXERCISE_TIMEOUT", "MEMORY_MB", "MARKER"]

# 19 exercises x 20 s = 380 s at worst for a whole series, inside Gradescope's default 10 minutes
EXERCISE_TIMEOUT = 20.0  # seconds for an exercise: its cells and every call (right answers take about 1 s)
MEMORY_MB = 2048  # the address space of an exercise's process (numpy and a right answer need about 300 MB)
MARKER = "STUDENT-EDITION.md"  # written beside the notebooks of a student edition
