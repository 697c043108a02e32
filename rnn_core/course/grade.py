"""The grader: score submitted notebooks' exercises on hidden cases, for Gradescope, a spreadsheet or an LMS.

    python -m rnn_core grade SUBMISSION ... --json results.json --csv grades.csv --seed 2024

A SUBMISSION is a notebook, or a folder holding one student's notebooks (searched in subfolders
too, skipping hidden ones such as ``.ipynb_checkpoints``), and perhaps the student's ``my_rnn.py``.
For each exercise of ``practice.EXERCISES`` the grader

1. finds the exercise's cell: the code cell tagged ``exercise:<name>`` (the stub the student filled
   in; the last one if the tag was copied onto several cells), or, where the tags were lost, the
   code cell before the one that starts ``practice.check("<name>", ...)``. The function checked is
   the one that call names (``loss_and_grads_char_rnn`` in 11), else the stub's (``softmax``,
   ``lstm_step_forward`` for "lstm.step_forward");
2. runs that cell alone in a fresh child process (``rnn_core/course/grade_child.py``, a script run by
   ``python -I -S``): numpy and the standard library, nothing of rnn_core, torch or the other
   cells, except the cells before it that the student tagged ``helper`` (or ``helper:<name>``)
   and the notebook's earlier exercise cells, run first; and, as the notebooks import them,
   plain-numpy ``PARAM_NAMES``, ``softmax``, ``sigmoid``, ``one_hot``, ``step_forward`` and ``forward`` (``GIVENS``:
   each withheld from the exercise that asks for it, and ``forward`` from step_forward);
3. checks the function in this process with ``practice.check(name, proxy, seed=s)``, where
   ``proxy`` sends each call's arguments to the child over a pipe (framed; arrays as numpy.save
   bytes, never pickle), and returns the child's raw outputs, writing back the arguments as the
   child left them. ``s`` comes from the instructor's ``--seed`` (or one drawn and recorded) and the
   exercise's name, never from the submission. The cases, the expected outputs and the verdict stay
   here, where nothing the submission runs can reach them. Besides the seed's cases, check adds the
   grader's own (``course.check.grading``: ``GRADE_CASES``, sizes far beyond the published ones);
4. reviews the function's source, and that of what it reaches by name, by these rules (``_reviewed``): a
   comparison of a size of its inputs with a number (``size_branches``: ``if V > 128:``); a number of 64
   or more however written, or a size in bytes (``large_numbers``: ``big = o.size > 5000``, ``8 * 10**6``,
   ``int("5000")``, ``o.nbytes``); a size against a constant however the constant is written
   (``size_comparisons``: ``o.size < np.finfo(o.dtype).maxexp``, ``n * 1e-3 < 1.5``, ``x[:np.iinfo(np.uint8).max]``);
   code that inspects or changes the process it runs in (``introspection``: ``import sys``, ``f.__code__``);
   and, where it passed, the statements no hidden case ran (``unrun_lines``, from the lines the child traced;
   tracing switched off counts too; a guard no case needs to run is not listed). Each is named in the feedback as
   "review: branches on the input's size at line N of cell C: `...`" (or "numbers of 64 or more ...",
   "code that no hidden case ran ..."). Such an exercise scores zero, with the status "review" where it
   passed: the review is a heuristic, and the instructor reads the lines and may give the points by hand.
   Before any of this, each cell is turned into the Python IPython runs (``_as_python``: help lines, magics,
   ``%%time`` cells, rnn_core's practice imports), every line keeping its number;
5. scores it: full points for "passed", zero for anything else, with the checker's message as
   feedback: "wrong", "delegated" (rnn_core's own version, a cell that imports rnn_core, or a function of
   my_rnn.py that calls one of rnn_core's names: there they stand for the givens, the others raise),
   "error" (it raised, ended its process, or a call ran past the checker's 6 s, 24 s on a case of a size
   beyond the published ones), "not attempted" (still the stub), "timed out" (the exercise's time limit),
   "review" (above), "missing".

Each child runs under limits set from outside: wall time (``--exercise-timeout``, for its cells
and every call), address space (``--memory``) and CPU time (rlimits); in a session of its own; as
the user ``nobody`` when the grader is root (and nobody can run this Python). The grader is a
subreaper: whatever a child starts, even in a new session, and whatever that starts, to any depth, comes
back to it and is killed and reaped when the exercise ends (every such process at once, in rounds until
none is left), before any result is written. What the child sends is read with caps on its size (a
header of 4 MB, 64 MB in all) and its ready message's fields checked, since the cells can write on the
pipe. A crash, a signal, a closed stdout or
a hang costs only that exercise, and its feedback says so.

Where an exercise's cell is still the stub, or missing, and the submission holds a ``my_rnn.py``
defining the function, the function is graded from ``my_rnn.py`` (run alone, as a cell would be).

Results: ``SubmissionResult`` per submission, one ``ExerciseResult`` per exercise;
``gradescope_results`` gives Gradescope's ``results.json`` (its documented fields: a top-level
``score``, ``execution_time`` and ``output``, and ``tests``, one per exercise, with ``name``,
``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags`` and ``extra_data``);
``write_csv`` one row per submission, the columns a gradebook imports.
"""

from __future__ import annotations

import ast
import builtins
import collections
import contextlib
import copy
import csv
import functools
import hashlib
import inspect
import io
import itertools
import json
import linecache
import math
import os
import re
import secrets
import select
import shutil
import signal
import stat
import string
import struct
import subprocess
import sys
import tempfile
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .. import __version__
from ..files import write_atomically
from .edition import notebook_source
from .run import TIME_LIMIT, TRACED, call_limit, traced_calls
from .settings import EXERCISE_TIMEOUT, MEMORY_MB

__all__ = [
    "EXERCISE_TIMEOUT",
    "GIVENS",
    "MEMORY_MB",
    "ExerciseResult",
    "GradeError",
    "SubmissionResult",
    "grade",
    "gradescope_results",
    "results_json",
    "run_command",
    "write_csv",
]

_MAX_FILE = 64 << 20  # bytes of any file an exercise's process writes, its printed output included
_MAX_PROCESSES = 64  # processes of the unprivileged user at once (root is not held to it)
_CALL_MARGIN = 0.5  # seconds past the checker's per-call limit before the grader stops waiting
_SHOWN_ERRORS = 5  # cells that raised, named in an exercise's feedback
SMALL_SEED = 2**40  # a --seed below it is warned about: a brute force from the feedback's hidden cases finds it
# defined in grade_child, plain numpy
GIVENS = ("PARAM_NAMES", "softmax", "sigmoid", "one_hot", "step_forward", "forward")
_WITHHELD = {"one_hot": ("one_hot",), "softmax": ("softmax",), "step_forward": ("forward", "step_forward")}
# what the givens are, in plain numpy, as the child runs them: sent with each job, only the givens of that exercise,
# so that no child holds an exercise's answer in any form (a string the child kept, a function's globals)
GIVEN_SOURCE = """
PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")


def softmax(o, axis=-1):
    z = np.exp(o - np.max(o, axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def one_hot(y, num_classes):
    y = np.asarray(y)
    out = np.zeros(y.shape + (num_classes,))
    np.put_along_axis(out, y[..., None], 1.0, axis=-1)
    return out


def step_forward(params, x_t, h_prev):
    W_xh, W_hh, b_h = params["W_xh"], params["W_hh"], params["b_h"]
    return np.tanh(W_xh[:, x_t].T + np.asarray(h_prev) @ W_hh.T + b_h)


def forward(params, inputs, h0=None):
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in PARAM_NAMES)
    h = np.zeros(W_hh.shape[0], dtype=W_hh.dtype) if h0 is None else np.asarray(h0)
    hs, logits = [], []
    for x_t in np.asarray(inputs):
        h = np.tanh(W_xh[:, x_t] + W_hh @ h + b_h)
        hs.append(h)
        logits.append(W_yh @ h + b_o)
    logits = np.array(logits)
    return {"h": np.array(hs), "logits": logits, "y_hat": softmax(logits), "h0": h0}
"""

MY_RNN = "my_rnn.py"


# what ast.parse raises on a submission's source: a syntax error, a null byte, or a source too deep or too large for
# the parser (a 3,000-term sum: hostile37c)
_UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)


_PARSING = threading.Lock()


def _parse(source):
    """ast.parse(source), one thread at a time, and kept for the next rule that reads the same source. CPython 3.11's
    ast.parse keeps its recursion depth in state the threads share, so two exercises reviewed at once (--jobs) could
    raise "SystemError: AST constructor recursion depth mismatch" in the grader itself. The trees are read, never
    changed."""
    with _PARSING:
        return _parsed(source)


@functools.lru_cache(maxsize=64)
def _parsed(source):
    return ast.parse(source)


def _trees(sources):
    """(label, tree) of each [label, source] pair whose source parses: the rules read those, and skip a source that
    does not parse (its syntax error is the cells' own, which running them reports)."""
    for label, source in sources:
        try:
            yield label, _parse(source)
        except _UNPARSABLE:
            continue


class GradeError(ValueError):
    """The grader cannot start: a submission that does not exist, an unknown exercise, a bad number of points."""


@dataclass
class ExerciseResult:
    """One exercise of one submission: its score and why."""

    name: str  # "softmax", "lstm.step_forward"
    status: str  # "passed", "wrong", "error", "delegated", "not attempted", "timed out", "review", "missing"
    score: float
    max_score: float
    message: str  # the checker's message, or the grader's when there was nothing to check
    notebook: str = ""  # the submitted notebook it was graded from, as a path within the submission
    cell: int | None = None  # the index of its cell in that notebook (0-based, Markdown cells counted)
    notes: list = field(default_factory=list)  # how it was graded: the cell, earlier cells that raised
    wrong: list = field(default_factory=list)  # what differs (practice.Result.wrong)
    errata: list = field(default_factory=list)  # errata rows the answer repeats

    @property
    def output(self):
        """The feedback: the message, then how it was graded."""
        return "\n\n".join([self.message, *([" ".join(self.notes)] if self.notes else [])])


@dataclass
class SubmissionResult:
    """Every graded exercise of one submission, in reading order."""

    name: str  # the submission as given on the command line
    exercises: list
    notes: list = field(default_factory=list)  # the notebooks read, and what could not be
    seconds: float = 0.0
    student: str = ""  # the submission's file or folder name: the CSV's student column
    drawn_seed: int | None = None  # the seed drawn when none was given: the instructor's, never in the feedback

    @property
    def score(self):
        return sum(r.score for r in self.exercises)

    @property
    def max_score(self):
        return sum(r.max_score for r in self.exercises)


# -- reading submissions --------------------------------------------------------------------------------


@dataclass
class _Notebook:
    """A submitted notebook, read: which series notebook it is, and where its exercises' cells are."""

    path: Path
    label: str  # its path within the submission
    cells: list = field(default_factory=list)
    series: str | None = None  # the series' notebook it is, e.g. "01-softmax-and-its-derivative.ipynb"
    stubs: dict = field(default_factory=dict)  # exercise -> index of its cell
    problem: str = ""  # why it could not be read
    notes: list = field(default_factory=list)
    helpers: dict = field(default_factory=dict)  # index of a cell tagged helper -> the exercises it is for (None: all)


def _exercises():
    from ..practice import EXERCISES  # imported when grading, so that the command line stays light

    return EXERCISES


def _function_name(name):
    """The function a stub defines for exercise ``name``: "lstm.step_forward" -> "lstm_step_forward"."""
    return name.replace(".", "_")


def _number(name):
    """Gradescope's test number: "<notebook>.<exercise within it>", e.g. "1.2" for softmax_jacobian."""
    exercises = _exercises()
    notebook = exercises[name]
    within = [n for n, nb in exercises.items() if nb == notebook].index(name) + 1
    return f"{int(notebook[:2])}.{within}" if notebook[:2].isdigit() else str(list(exercises).index(name) + 1)


def _read_notebook(path, label):
    try:
        return _read(path, label)
    except Exception as e:  # a notebook shaped as no Jupyter writes one: graded as unreadable
        nb = _Notebook(path, label, series=_series_from_name(path.name, sorted(set(_exercises().values()))))
        nb.problem = f"{label} could not be read as a notebook ({type(e).__name__}: {e})"
        return nb


def _read(path, label):
    nb = _Notebook(path, label)
    exercises = _exercises()
    series = sorted(set(exercises.values()))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        nb.problem = f"{label} could not be read as a notebook ({type(e).__name__}: {' '.join(str(e).split())[:200]})"
        nb.series = _series_from_name(path.name, series)
        return nb
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        nb.problem = f"{label} is not a notebook in nbformat 4 (it has no list of cells; save it from Jupyter again)"
        nb.series = _series_from_name(path.name, series)
        return nb
    nb.cells = [c for c in data["cells"] if isinstance(c, dict)]
    meta = data.get("metadata", {}).get("rnn_core") if isinstance(data.get("metadata"), dict) else None
    from_meta = meta.get("notebook") if isinstance(meta, dict) else None
    nb.series = (
        from_meta
        if from_meta in series
        else _series_from_name(path.name, series) or _series_from_title(nb.cells, series)
    )
    tagged = {}
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", []) if isinstance(cell.get("metadata"), dict) else []
        for tag in tags if isinstance(tags, list) else []:
            if tag == "helper" or (isinstance(tag, str) and tag.startswith("helper:")):
                nb.helpers.setdefault(index, set()).add(tag.partition(":")[2] or None)
            if isinstance(tag, str) and tag.startswith("exercise:"):
                name = tag[len("exercise:") :]
                if name in exercises:
                    tagged.setdefault(name, []).append(index)
                else:
                    nb.notes.append(f"{label}: cell {index + 1} has the tag {tag!r}, which names no exercise: ignored.")
    for name, indices in tagged.items():
        nb.stubs[name] = indices[-1]
        if len(indices) > 1:
            where = ", ".join(str(i + 1) for i in indices)
            nb.notes.append(f"{label}: cells {where} are all tagged exercise:{name}; the last one was graded.")
    for name in [n for n, book in exercises.items() if book == nb.series or _checked_in(nb.cells, n)]:
        if name not in nb.stubs:
            found = _stub_before_check(nb.cells, name)
            if found is not None:
                nb.stubs[name] = found
    return nb


def _series_from_name(filename, series):
    stem = Path(filename).stem
    for name in series:
        if Path(name).stem in stem:
            return name
    m = re.match(r"(\d\d)(?:\D|$)", stem)
    return next((name for name in series if m and name.startswith(m.group(1) + "-")), None)


def _series_from_title(cells, series):
    for cell in cells[:3]:
        m = re.match(r"\s*#\s+(\d\d)\s*·", notebook_source(cell))
        if cell.get("cell_type") == "markdown" and m:
            return next((name for name in series if name.startswith(m.group(1) + "-")), None)
    return None


def _check_call(name):
    return re.compile(r"\s*practice\.check\(\s*[\"']" + re.escape(name) + r"[\"']")


def _checked_function(cells, name):
    """The function a ``practice.check("name", fn)`` cell names (``loss_and_grads_char_rnn`` in 11), or None."""
    pattern = re.compile(r"\s*practice\.check\(\s*[\"']" + re.escape(name) + r"[\"']\s*,\s*([A-Za-z_]\w*)\s*[,)]")
    for cell in cells:
        m = pattern.match(notebook_source(cell)) if cell.get("cell_type") == "code" else None
        if m:
            return m.group(1)
    return None


def _checked_in(cells, name):
    pattern = _check_call(name)
    return any(c.get("cell_type") == "code" and pattern.match(notebook_source(c)) for c in cells)


def _stub_before_check(cells, name):
    """The code cell before the cell ``practice.check("name", ...)``: the stub, when its tag was lost."""
    pattern = _check_call(name)
    for index, cell in enumerate(cells):
        if cell.get("cell_type") == "code" and pattern.match(notebook_source(cell)):
            before = [i for i in range(index) if cells[i].get("cell_type") == "code"]
            return before[-1] if before else None
    return None


def _is_check_cell(source):
    """A cell that only runs practice.check(...): the grader checks the function itself."""
    return bool(re.fullmatch(r"\s*practice\.check\([^\n]*\)\s*", source))


def _submission_notebooks(path):
    if path.is_file():
        return [(path, path.name)]
    found = []
    for p in sorted(path.rglob("*.ipynb")):
        relative = p.relative_to(path)
        if not any(part.startswith(".") for part in relative.parts) and p.is_file():
            found.append((p, relative.as_posix()))
    return found


def _how_it_ended(code):
    if code is None:
        return "it did not end"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


# -- the child process: one exercise's cells, alone, serving calls ------------------------------------


class _Ended(Exception):
    """The child process ended, or went silent past its time limit, in the middle of a call."""


_Ended.__name__ = _Ended.__qualname__ = "EndedItsProcess"  # as the checker's feedback names it
_Ended.__module__ = "builtins"


class _CallTimedOut(BaseException):
    """A call ran past the checker's time limit: raised after it, so that the checker counts it as timed out."""


def _exception_type(name):
    """The class to raise for an exception the student's code raised in the child: builtins' own, or a look-alike."""
    if isinstance(name, str) and name.isidentifier():
        kind = getattr(builtins, name, None)
        if isinstance(kind, type) and issubclass(kind, (Exception, SystemExit, KeyboardInterrupt)):
            return kind
    text = name if isinstance(name, str) and name else "Exception"
    module, _, short = text.rpartition(".")
    return type(short[:80] or "Exception", (Exception,), {"__module__": module[:80] or "builtins"})


def _odd_type(name):
    """An object whose type has the name the child reported: the checker names it, as it would the original."""
    text = name if isinstance(name, str) and name else "object"
    module, _, short = text.rpartition(".")
    return type(short[:80] or "object", (), {"__module__": module[:80] or "builtins"})()


class _Wire:
    """Framed messages over two pipes (see grade_child); reading is bounded in time and size."""

    MAX_BYTES = 1 << 26  # what one reply may hold in all: a right answer's outputs are kilobytes to a few MB
    MAX_HEADER = 1 << 22  # its JSON header (the arrays travel as frames of their own): json.loads takes ~15 times it

    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd

    def send(self, header, blobs=(), deadline=None):
        """Write one message; a child that stops reading its pipe cannot make the grader wait past ``deadline``."""
        header = dict(header, blobs=len(blobs))
        frames = [json.dumps(header).encode(), *blobs]
        data = memoryview(b"".join(struct.pack(">I", len(f)) + f for f in frames))
        os.set_blocking(self.wfd, False)
        while data:
            left = (deadline - time.monotonic()) if deadline is not None else None
            if left is not None and (left <= 0 or not select.select([], [self.wfd], [], left)[1]):
                raise TimeoutError
            try:
                data = data[os.write(self.wfd, data) :]
            except BlockingIOError:
                if deadline is None:
                    select.select([], [self.wfd], [])

    def _exact(self, n, deadline):
        chunks = []
        while n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.rfd, min(n, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def receive(self, deadline):
        """One message. A frame longer than the grader reads raises _Oversized before any of it is read, so that
        no reply (a header of 250 MB whose JSON would take gigabytes) costs the grader's own memory."""
        budget = self.MAX_BYTES

        def frame(limit):
            nonlocal budget
            (n,) = struct.unpack(">I", self._exact(4, deadline))
            if n > min(limit, budget):
                raise _Oversized(f"a message of {n:,} bytes, more than the grader reads ({min(limit, budget):,})")
            budget -= n
            return self._exact(n, deadline)

        header = json.loads(frame(self.MAX_HEADER))
        if not isinstance(header, dict):
            raise ValueError("a reply that is not a message")
        count = header.pop("blobs", 0)
        if not isinstance(count, int) or not 0 <= count <= 100_000:
            raise ValueError("a reply with a bad number of arrays")
        return header, [frame(self.MAX_BYTES) for _ in range(count)]


class _Oversized(ValueError):
    """The child sent a frame larger than the grader reads: the submission's doing (the grader's replies are
    kilobytes), so it costs that exercise only."""


def _encode(value, blobs, paths, path=()):
    """The checker's arguments as a message (arrays as numpy.save bytes); an object met twice, by reference."""
    seen = paths.get(id(value))
    if seen is not None and seen[1] is value:
        return {"t": "arg", "path": list(seen[0])}
    if isinstance(value, (np.ndarray, dict, list)):
        paths[id(value)] = (path, value)
    if value is None or type(value) in (bool, int, str):
        return {"t": "plain", "v": value}
    if isinstance(value, (float, np.floating)) and np.ndim(value) == 0 and not isinstance(value, np.ndarray):
        if type(value) is float:
            return {"t": "float", "v": repr(value)}
    if isinstance(value, (np.generic, np.ndarray)):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        blobs.append(buffer.getvalue())
        return {"t": "nd", "i": len(blobs) - 1, **({"scalar": True} if isinstance(value, np.generic) else {})}
    if isinstance(value, dict):
        keys = list(value)
        return {
            "t": "dict",
            "k": [_encode(k, blobs, {}) for k in keys],
            "v": [_encode(value[k], blobs, paths, (*path, k)) for k in keys],
        }
    if isinstance(value, (tuple, list)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        return {"t": kind, "v": [_encode(v, blobs, paths, (*path, i)) for i, v in enumerate(value)]}
    raise TypeError(f"the grader cannot send a {type(value).__name__} to the child")


class _Decoder:
    """The child's raw values as objects, the identities kept: arguments, and what earlier calls returned."""

    def __init__(self, blobs, paths, kept):
        self.blobs, self.paths, self.kept = blobs, paths, kept  # paths: (path) -> the checker's argument object

    def array(self, index):
        if not isinstance(index, int) or not 0 <= index < len(self.blobs):
            raise ValueError("a reply naming an array it does not hold")
        return np.load(io.BytesIO(self.blobs[index]), allow_pickle=False)

    def value(self, enc, depth=0):
        if not isinstance(enc, dict) or depth > 12:
            raise ValueError("a reply that is not a value")
        t = enc.get("t")
        if t == "plain" and (enc.get("v") is None or type(enc.get("v")) in (bool, int, str)):
            return enc["v"]
        if t == "float" and isinstance(enc.get("v"), str) and len(enc["v"]) < 40:
            return float(enc["v"])
        if t == "complex" and isinstance(enc.get("v"), list) and len(enc["v"]) == 2:
            return complex(*(float(str(x)[:40]) for x in enc["v"]))
        if t == "nd":
            array = self.array(enc.get("i"))
            shared = self._shared(enc, array)
            if shared is not None:
                return shared
            return self._same(enc, array[()] if enc.get("scalar") and array.ndim == 0 else array)
        if t == "arg":
            return self._argument(enc)
        if t in ("dict", "list", "tuple"):
            return self._container(t, enc, depth)
        if t == "odd":
            return _odd_type(enc.get("type"))
        raise ValueError("a reply holding an unknown kind of value")

    def _shared(self, enc, array):
        """The array returned earlier that this one shares memory with in the child (the child said so), where it
        holds the same numbers: returned as that very object, so that the checker sees the sharing as it would
        in the reader's kernel (a buffer kept and returned again). None otherwise."""
        earlier = self.kept.get(enc.get("shares")) if isinstance(enc.get("shares"), int) else None
        if not isinstance(earlier, np.ndarray) or earlier.shape != array.shape or earlier.dtype != array.dtype:
            return None
        if not np.array_equal(earlier, array, equal_nan=array.dtype.kind in "fc"):
            return None
        if isinstance(enc.get("kid"), int):
            self.kept[enc["kid"]] = earlier
        return earlier

    def _argument(self, enc):
        path = tuple(tuple(p) if isinstance(p, list) else p for p in enc.get("path") or [])
        if path not in self.paths:
            raise ValueError("a reply naming an argument that was not sent")
        obj = self.paths[path]
        if isinstance(obj, np.ndarray) and "i" in enc:
            _write_into(obj, self.array(enc["i"]))
        return obj

    def _container(self, t, enc, depth):
        values = enc.get("v")
        if not isinstance(values, list):
            raise ValueError("a reply holding a broken container")
        items = [self.value(v, depth + 1) for v in values]
        if t == "tuple":
            return tuple(items)
        if t == "list":
            return self._same(enc, items)
        keys = enc.get("k")
        if not isinstance(keys, list) or len(keys) != len(items):
            raise ValueError("a reply holding a broken dict")
        out = {}
        for k, v in zip(keys, items):
            key = self.value(k, depth + 1)
            out[key if isinstance(key, (str, int, float, bool, type(None))) else repr(key)] = v
        return self._same(enc, out)

    def _same(self, enc, value):
        """The object the child returned before under this id, updated in place; or this one, remembered."""
        kid = enc.get("kid")
        if not isinstance(kid, int) or isinstance(value, np.generic):
            return value
        earlier = self.kept.get(kid)
        if earlier is None or type(earlier) is not type(value):
            self.kept[kid] = value
            return value
        if isinstance(value, np.ndarray) and _write_into(earlier, value):
            return earlier
        if isinstance(value, dict):
            earlier.clear()
            earlier.update(value)
            return earlier
        if isinstance(value, list):
            earlier[:] = value
            return earlier
        self.kept[kid] = value
        return value

    def apply(self, obj, enc, path):
        """Write an argument as the child left it into the checker's copy of it (the same objects kept)."""
        if not isinstance(enc, dict) or enc.get("t") != "same":
            return self.value(enc)
        if isinstance(obj, np.ndarray):
            if "i" in enc:
                _write_into(obj, self.array(enc["i"]))
            return obj
        if isinstance(obj, dict):
            keys = [self.value(k) for k in enc.get("k") or []]
            values = enc.get("v") or []
            new = {k: self.apply(obj.get(k), v, (*path, k)) for k, v in zip(keys, values)}
            obj.clear()  # in the child's order too: a count kept in the order of the keys (hostile37q, C)
            obj.update(new)
            return obj
        if isinstance(obj, list):
            obj[:] = [self.apply(obj[i] if i < len(obj) else None, v, (*path, i)) for i, v in enumerate(enc["v"])]
            return obj
        return obj


def _write_into(target, source):
    """Copy ``source`` into ``target`` when they have the same shape and dtype; whether it could."""
    if target.shape == source.shape and target.dtype == source.dtype and target.flags.writeable:
        np.copyto(target, source)
        return True
    return False


class _Child:
    """One exercise's child process: started with its cells, then called through ``proxy``."""

    def __init__(self, job, limits, places):
        self.limits, self.deadline = limits, time.monotonic() + limits.exercise
        self.kept, self.ended, self.proc = {}, None, None
        self.labels = [label for label, _ in job["cells"]]
        self.limit = TIME_LIMIT * TRACED  # seconds for the call made now: the check's own limit (call_limit)
        self.ran, self.untraced = set(), None  # (label, line) the calls ran; why the tracing is not to be trusted
        self.early = set()  # (label, line) that ran while the cells ran, before any call (rule b, hostile37e 7)
        self.lines = _code_lines(job["cells"])  # label -> the lines its code objects hold: what a reply may name
        self.tampered, self.refused = None, []  # a reply naming a line no code holds; imports the child refused
        self.log = tempfile.TemporaryFile()
        self.work = tempfile.mkdtemp(prefix="rnn_core_grade_child_")
        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        self.wire = _Wire(from_child, to_child)
        user = _sandbox_user(places)
        if user is not None:
            os.chown(self.work, user, user)
        kwargs = {"user": user, "group": user, "extra_groups": []} if user is not None else {}
        with _CHILDREN_LOCK:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", places.script, places.numpy, str(from_parent), str(to_parent)],
                cwd=self.work,
                env=_child_env(self.work),
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                pass_fds=(from_parent, to_parent),
                start_new_session=True,
                **kwargs,
            )
            _CHILDREN.add(self.proc.pid)
        os.close(from_parent)
        os.close(to_parent)
        _limit(self.proc.pid, limits, user is not None)
        self.ready = self._start(job)

    def _start(self, job):
        try:
            self.wire.send({"job": job}, deadline=self.deadline)
            header, _ = self.wire.receive(self.deadline)
            ready = _checked_ready(header.get("ready"))
            if ready is not None:
                self._refusals(header["ready"].get("refused"))
                early = header["ready"].get("early")
                if isinstance(early, list) and len(early) <= 100_000:
                    self._add_lines(early, self.early)
            if ready is None:
                self.stop()
                self.ended = (
                    "it wrote a message of its own on the grader's pipe where the grader waits for its own "
                    "(the cell writes on a file descriptor it was not given)"
                )
            return ready
        except _Oversized as e:
            self.stop()
            self.ended = f"it wrote on the grader's pipe {e} (the cell writes on a file descriptor it was not given)"
        except (OSError, EOFError, TimeoutError, ValueError, RecursionError, struct.error) as e:
            self.stop(timed_out=isinstance(e, TimeoutError))
        return None

    def call(self, args):
        """The function's raw outputs on ``args`` (the checker's copies, changed in place as the child changed them).

        What the function itself raised is raised here as its own type (outside the pipe's handlers, so that a
        ValueError or TimeoutError of the student's is never taken for a broken pipe or a call that hung)."""
        if self.ended is not None:
            raise _Ended(f"not called: {self.ended}")
        blobs, paths = [], {}
        message = {"call": [_encode(a, blobs, paths, (i,)) for i, a in enumerate(args)]}
        by_path = {path: obj for path, obj in paths.values()}
        started = time.monotonic()
        try:
            self.limit = call_limit()  # the check's limit for this call (its lines traced: TRACED times as long)
            limit = min(self.deadline, started + self.limit + _CALL_MARGIN)
            self.wire.send(message, blobs, deadline=limit)
            header, reply = self.wire.receive(limit)
        except TimeoutError:
            self.stop(timed_out=True)
            if time.monotonic() >= self.deadline:
                ran_out = f"the exercise's time limit ({self.limits.exercise:g} s) ran out during this call"
                raise _Ended(ran_out) from None
            raise _CallTimedOut(f"still running after {self.limit:g} s") from None
        except _Oversized as e:
            self.stop()
            self.ended = f"it sent the grader {e}"
            raise _Ended(self.ended) from None
        except (OSError, EOFError, ValueError, RecursionError, struct.error) as e:
            self.stop()
            raise _Ended(self.ended or f"its reply could not be read ({e})") from None
        self._lines(header)
        if "raised" in header:
            return self._raise(header["raised"])
        try:
            decoder = _Decoder(reply, by_path, self.kept)
            for i, enc in enumerate(header.get("args") or []):
                if i < len(args):
                    decoder.apply(args[i], enc, (i,))
            for kid, index in header.get("updates") or []:
                if kid in self.kept and isinstance(self.kept[kid], np.ndarray):
                    _write_into(self.kept[kid], decoder.array(index))
            return decoder.value(header.get("returned"))
        except (OSError, EOFError, ValueError, TypeError, KeyError, RecursionError, struct.error) as e:
            self.stop()
            self.ended = f"its reply could not be read ({type(e).__name__}: {str(e)[:200]})"
            raise _Ended(self.ended) from None

    def _lines(self, header):
        """Record the lines of the cells that this call ran, as the child traced them (its fields checked), and the
        imports it refused. A line that no code object of its cell holds was never traced: the reply is forged."""
        self._refusals(header.get("refused"))
        lines = header.get("lines")
        if header.get("traced") is not True:
            self.untraced = self.untraced or "its code switched off the grader's tracing of the lines it runs"
        if header.get("partly") is not None:
            self.untraced = self.untraced or "a call ran more lines of Python than the grader follows (a million)"
        if not isinstance(lines, list) or len(lines) > 100_000:
            self.untraced = self.untraced or "the lines it ran were not reported"
            return
        self._add_lines(lines, self.ran)

    def _add_lines(self, lines, into):
        """Add the [index, line] pairs the child named to ``into``: a line no code object of its cell holds, or a
        pair of another shape, is a forged report (``tampered``)."""
        for pair in lines if len(into) < 1_000_000 else ():
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(type(x) is int for x in pair)
                and 0 <= pair[0] < len(self.labels)
                and 0 < pair[1] < 10**6
            ):
                label = self.labels[pair[0]]
                if pair[1] not in self.lines.get(label, ()):
                    self.tampered = self.tampered or f"line {pair[1]} of {label}, which holds no such line of code"
                    continue
                into.add((label, pair[1]))
            else:
                self.tampered = self.tampered or f"a line given as {str(pair)[:60]}"

    def _refusals(self, refused):
        """The imports the child refused (see grade_child.ALLOWED_IMPORTS), as [label, module] pairs."""
        for pair in refused[:20] if isinstance(refused, list) else ():
            if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
                entry = [pair[0][:300], pair[1][:100]]
                if entry not in self.refused:
                    self.refused.append(entry)

    def _raise(self, raised):
        raised = raised if isinstance(raised, dict) else {}
        kind = _exception_type(raised.get("type"))
        message = str(raised.get("message") or "")[:400]
        text = message.partition(": ")[2] if ": " in message else ""
        try:
            exc = kind(text) if text else kind()
        except Exception:
            exc = Exception(message)
        at = raised.get("at")
        if isinstance(at, list) and len(at) == 3 and self.raise_from is not None:
            self.raise_from(exc, *at)
        raise exc

    raise_from = None  # set by the proxy: raises an exception from a frame named as the child's was

    def stop(self, timed_out=False, done=False):
        """Kill the child and every process it started; say how it ended (unless the grader is ``done`` with it:
        the exercise graded, it is killed at once, where waiting for it to end on its own cost a second)."""
        if self.proc is None:
            return
        code = self.proc.poll()
        if code is None and not (timed_out or done):  # its pipe closed: it is ending, or it closed it and goes on
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=1)
        _kill_tree(self.proc)
        if self.ended is None and not done:
            late = time.monotonic() >= self.deadline
            limit = f"{self.limits.exercise:g} s" if late else f"{self.limit:g} s a call"
            self.ended = (
                f"it ran past its time limit ({limit})"
                if timed_out
                else "it closed the grader's pipe"
                if code is None
                else f"it ended its process ({_how_it_ended(code)})"
            )

    def close(self):
        self.stop(done=True)
        for fd in (self.wire.rfd, self.wire.wfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - 2000))
        tail = self.log.read().decode("utf-8", "replace")
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)
        return tail


def _code_lines(cells):
    """{label: the line numbers of every code object compiled from the cell, as the child compiles it}: the only
    lines the child's tracer can report (hostile37d, finding 1: a forged reply claimed lines 1-59 of every cell)."""
    from . import grade_child

    found = {}
    for label, source in cells:
        numbers = found.setdefault(label, set())
        try:
            todo = [compile(grade_child._python_source(source), label, "exec", dont_inherit=True)]
        except (*_UNPARSABLE, TypeError, OverflowError):
            continue
        while todo:
            code = todo.pop()
            numbers.update(n for _, _, n in code.co_lines() if n is not None)
            todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


def _checked_ready(ready):
    """The child's ready message, its fields checked (the cells run in the child and can write on its pipe, so
    this message may be the submission's own): a dict of plain values, or None for anything else."""
    if not isinstance(ready, dict):
        return None
    errors = ready.get("errors", [])
    if not isinstance(errors, list) or len(errors) > 10_000:
        return None
    for error in errors:
        if not (
            isinstance(error, list)
            and len(error) == 3
            and isinstance(error[0], str)
            and isinstance(error[1], str)
            and isinstance(error[2], bool)
        ):
            return None
    first = ready.get("first", 1)
    sandbox = ready.get("sandbox")
    if (
        not all(isinstance(ready.get(k, False), bool) for k in ("defined", "callable"))
        or not isinstance(ready.get("kind", "object"), str)
        or isinstance(first, bool)
        or not isinstance(first, int)
        or not 1 <= first <= 10**6
        or isinstance(sandbox, bool)
        or not (isinstance(sandbox, str) or (isinstance(sandbox, int) and 1 <= sandbox <= 64))
    ):
        return None
    return {
        "errors": [[label[:300], text[:400], syntax] for label, text, syntax in errors],
        "defined": ready.get("defined", False),
        "callable": ready.get("callable", False),
        "kind": ready.get("kind", "object")[:80],
        "first": first,
        "sandbox": sandbox if isinstance(sandbox, int) else sandbox[:200],
    }


def _child_env(work):
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": work,
        "LANG": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _limit(pid, limits, own_user):
    """Memory (address space) and CPU time of the child, set from outside before it runs any cell."""
    with contextlib.suppress(ImportError, OSError, ValueError, AttributeError):
        import resource

        memory = int(limits.memory_mb) << 20
        resource.prlimit(pid, resource.RLIMIT_AS, (memory, memory))
        cpu = math.ceil(limits.exercise) + 2
        resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu))
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (_MAX_FILE, _MAX_FILE))  # what it prints, and any file it writes
        if own_user:  # counted over the user's processes: only where the child has a user of its own
            resource.prlimit(pid, resource.RLIMIT_NPROC, (_MAX_PROCESSES, _MAX_PROCESSES))


_CHILDREN = set()  # pids of the children being graded now (threads grade at once): never swept as strays
_CHILDREN_LOCK = threading.Lock()
_CHECKING = threading.Lock()


def _kill_tree(proc):
    """Kill the child, its process group, and every stray process that came to the grader (a subreaper)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    with _CHILDREN_LOCK:
        _CHILDREN.discard(proc.pid)
    _reap_strays()


def _become_subreaper():
    """Orphans of the submissions' processes (even in new sessions) become the grader's, to be reaped."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


_SPARED = set()  # children the grader's process had before grading (not the submissions')
_REAP_SECONDS = 30.0  # the most one reap spends killing a line of processes that keeps forking


def _parents():
    """{pid: its parent's pid} of every process in /proc."""
    found = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            with contextlib.suppress(ValueError, IndexError):
                found[int(entry)] = int(fields[1])
    return found


def _strays():
    """The grader's own children that are neither being graded nor spared: what came to it as a subreaper."""
    me = os.getpid()
    with _CHILDREN_LOCK:
        return [pid for pid, parent in _parents().items() if parent == me and pid not in _CHILDREN | _SPARED]


def _stray_lines():
    """(the strays, every process descended from one of them): each stray with its whole line of descendants,
    however deep, found in one walk of /proc (a process being graded, and what it started, is not among them)."""
    me, parents = os.getpid(), _parents()
    with _CHILDREN_LOCK:
        kept = _CHILDREN | _SPARED
    tops = [pid for pid, parent in parents.items() if parent == me and pid not in kept]
    below = {}
    for pid, parent in parents.items():
        below.setdefault(parent, []).append(pid)
    found, todo = set(), list(tops)
    while todo:
        pid = todo.pop()
        if pid in found or pid == me:
            continue
        found.add(pid)
        todo += below.get(pid, [])
    return tops, found


def _reap_strays():
    """Kill and reap every process that came to the grader and is not a child being graded, with every process
    each of them started, at any depth: each round kills every such process at once (a line of processes, each
    the child of the one before, dies in one round, not one generation a round), until none is left or
    _REAP_SECONDS have passed."""
    end = time.monotonic() + _REAP_SECONDS
    while True:
        tops, every = _stray_lines()
        if not every:
            return
        for pid in every:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in tops:  # the grader's own children: reaped (the others come to it as they die, next round)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
        if time.monotonic() >= end:
            return
        time.sleep(0.01)


@dataclass
class _Places:
    """Where the child's script and a folder holding only numpy are (readable by the child's user)."""

    script: str
    numpy: str
    folder: str
    user: object = "unknown"  # the unprivileged uid, None when there is none to use (not root), or "unknown"
    note: str = ""  # why the child could not run as an unprivileged user, where the grader is root


def _places():
    folder = tempfile.mkdtemp(prefix="rnn_core_grade_site_")
    os.chmod(folder, 0o755)
    real = Path(np.__file__).resolve().parent
    for name in (real.name, real.name + ".libs"):
        if (real.parent / name).exists():
            os.symlink(real.parent / name, Path(folder) / name)
    script = Path(folder) / "grade_child.py"
    shutil.copyfile(Path(__file__).with_name("grade_child.py"), script)
    os.chmod(script, 0o644)
    return _Places(str(script), folder, folder)


def _sandbox_user(places):
    """The uid the child runs as: ``nobody`` when the grader is root and nobody can run Python with numpy."""
    if places.user != "unknown":
        return places.user
    places.user = None
    if os.name != "posix" or os.geteuid() != 0:
        return None
    try:
        import pwd

        uid = pwd.getpwnam("nobody").pw_uid
        probe = subprocess.run(
            [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.append({places.numpy!r}); import numpy"],
            user=uid,
            group=uid,
            extra_groups=[],
            cwd="/",
            env=_child_env("/"),
            capture_output=True,
            timeout=60,
        )
        places.user = uid if probe.returncode == 0 else None
    except (KeyError, OSError, subprocess.SubprocessError, ImportError):
        places.user = None
    if places.user is None:
        places.note = (
            f"The grader runs as root, but the user nobody cannot run {sys.executable} with numpy, so each "
            "exercise's process ran as root (install Python where every user can read it, e.g. /usr or /opt)."
        )
    return places.user


def _proxy(child, function, label):
    """A function named as the student's that forwards each call to the child and returns its raw outputs.

    Its code is given the cell's name for a file, so that the checker's questions about where an
    exception came from ("its own NotImplementedError?") are answered as for the student's function."""
    template = compile("def f(*args):\n    return _call(args)\n", label, "exec")
    code = next(c for c in template.co_consts if isinstance(c, types.CodeType))
    first = child.ready.get("first") if isinstance(child.ready.get("first"), int) else 1
    proxy = types.FunctionType(
        code.replace(co_name=function, co_qualname=function, co_firstlineno=max(first - 1, 1)), {"_call": child.call}
    )
    proxy.__name__ = proxy.__qualname__ = function

    def raise_from(exc, filename, name, lineno):
        raiser = compile("def f(e):\n    raise e\n", str(filename)[:200], "exec")
        inner = next(c for c in raiser.co_consts if isinstance(c, types.CodeType))
        line = lineno if isinstance(lineno, int) and 1 < lineno < 10**6 else 2
        named = str(name)[:100] or "f"
        types.FunctionType(inner.replace(co_name=named, co_qualname=named, co_firstlineno=line - 1), {})(exc)

    child.raise_from = raise_from
    return proxy


# -- grading one exercise -------------------------------------------------------------------------------


@dataclass
class _Limits:
    exercise: float = EXERCISE_TIMEOUT  # seconds: its cells and every call of the check
    memory_mb: int = MEMORY_MB  # the child's address space


@dataclass
class _Exercise:
    """One exercise of one submission, as it is graded: the cells sent to its child, and its function's name."""

    name: str
    function: str
    where: str  # the notebook (or my_rnn.py) as a path within the submission
    cell: int | None  # the index of its cell in that notebook; None for my_rnn.py
    sources: list  # [[label, source], ...]: helper cells and earlier exercise cells, then its own
    labels: dict  # label -> "cell 12" / "my_rnn.py", for the feedback


_LABELS = itertools.count(1)


def _label(what):
    """A file name for a cell's code, unique in this process (the checker reads lines back through linecache)."""
    return f"<{what} #{next(_LABELS)}>"


def _seed(seed, name):
    """The seed of an exercise's hidden cases: from the instructor's seed and the exercise, never the submission."""
    return int(hashlib.sha256(f"{seed}\0{name}".encode()).hexdigest()[:16], 16) >> 1


def _grade_exercise(ex, seed, limits, places):
    """Check one exercise's function, run alone in a child process: a result dict (status, message, ...)."""
    for label, source in ex.sources:
        lines = source.splitlines(keepends=True)
        linecache.cache[label] = (len(source), None, lines, label)
    givens = _givens(ex.name)
    job = {
        "cells": ex.sources,
        "function": ex.function,
        "givens": givens,
        "given_source": _given_source(givens),
        "my_rnn": ex.cell is None,
    }
    child = _Child(job, limits, places)
    try:
        outcome = _outcome_of_cells(ex, child)
        if outcome is None:
            outcome = _check_through(ex, child, seed)
    finally:
        tail = child.close()
        for label, _ in ex.sources:
            linecache.cache.pop(label, None)
    if outcome.pop("tail", False) and tail.strip():
        outcome["message"] += f" Its last words: {' '.join(tail.strip().splitlines()[-1:])[:300]}"
    return outcome


def _given_source(names):
    """The source of the givens ``names`` (GIVEN_SOURCE's top-level statements that bind one of them), for the job."""
    keep = []
    for node in _parse(GIVEN_SOURCE).body:
        bound = {node.name} if isinstance(node, ast.FunctionDef) else {t.id for t in node.targets}
        if bound & set(names):
            keep.append(ast.get_source_segment(GIVEN_SOURCE, node))
    return "\n\n\n".join(keep)


def _givens(name):
    """The names the notebooks hand this exercise's function besides numpy (plain numpy, defined in the child)."""
    return [g for g in GIVENS if g not in _WITHHELD.get(name, ())]


def _outcome_of_cells(ex, child):
    """The result when the cells did not leave a function to check (they hung, ended, or defined none); else None."""
    ready, here = child.ready, ex.labels[ex.sources[-1][0]]
    if ready is None:
        how = child.ended or "it ended before saying it was ready"
        question = "" if "pipe" in how else " Does the cell call something that never returns, or end the process?"
        return {
            "status": "timed out" if "time limit" in how else "error",  # its cells ran past the exercise's limit
            "message": f"{ex.name}: running its cell ({here}), {how}, so its function could not "
            f"be checked and it scores zero.{question}",
            "stopped": True,
            "tail": True,
        }
    errors = [(ex.labels.get(label, label), text, syntax) for label, text, syntax in ready.get("errors") or []]
    notes = [f"Cells that raised when they ran: {'; '.join(f'{w}: {t}' for w, t, _ in errors[:_SHOWN_ERRORS])}."]
    notes = notes if errors else []
    if not isinstance(ready.get("sandbox"), int):  # an old kernel, or a container that blocks Landlock
        notes.append(
            f"Its process ran without a sandbox ({str(ready.get('sandbox'))[:120]}): its code could read files "
            "the grader can, rnn_core's included, so a score here does not prove the work its own."
        )
    if any("without rnn_core" in text for _, text, _ in errors) and not ready.get("callable"):
        message = (
            f"{ex.name}: not your own. Its cell imports rnn_core, which the grader does not give your code (numpy "
            "and Python's standard library only): write the computation yourself."
        )
        return {"status": "delegated", "message": message, "notes": notes}
    own = [e for e in errors if e[0] == here]
    if own and own[0][2]:
        message = (
            f"{ex.name}: your cell ({here}) has a syntax error, so {ex.function} could not be defined and it "
            f"scores zero: {own[0][1]}."
        )
        return {"status": "error", "message": message, "notes": notes}
    if not ready.get("defined"):
        message = f"{ex.name}: no function named {ex.function} is defined when its cell has run, so it scores zero."
        if own:  # the cell raised before its def: say so in the message itself, not only in the notes
            message += f" Its cell ({here}) raised before defining it: {own[0][1]}."
        return {"status": "missing", "message": message, "notes": notes}
    if not ready.get("callable"):
        kind = ready.get("kind") if isinstance(ready.get("kind"), str) else "object"
        message = f"{ex.name}: {ex.function} is not a function when its cell has run: it is a {kind[:80]}."
        return {"status": "error", "message": message, "notes": notes}
    child.notes = notes
    return None


def _check_through(ex, child, seed):
    """The checker's verdict on the proxy of the child's function, on the hidden cases of ``seed``."""
    proxy = _proxy(child, ex.function, ex.sources[-1][0])
    waiting = time.monotonic()
    with _CHECKING:  # one check at a time: it watches process-wide state
        # the child sat idle while another exercise's check held the lock: that wait is not this exercise's time
        # (counted, a right answer beside a slow one ran out of its 20 s before its first call)
        child.deadline += time.monotonic() - waiting
        with _practice_check().grading(), traced_calls():
            result = _practice().check(ex.name, proxy, seed=_seed(seed, ex.name))  # and its large cases too
    status, message = result.status, result.message
    if status == "error" and child.ended and f"({child.limits.exercise:g} s)" in child.ended:
        status = "timed out"  # the exercise's own limit, not the checker's per call
    if status == "error" and _USES_RNN_CORE.search(message):  # my_rnn.py's function called rnn_core's own
        status = "delegated"
        message = (
            f"{ex.name}: not your own. {ex.function} calls {_USES_RNN_CORE.search(message).group(1)}, "
            "which the grader does not give your code (numpy, Python's standard library and the notebooks' plain "
            f"givens only): write that computation yourself.\n\n{message}"
        )
    return {
        "status": status,
        "message": message,
        "wrong": [str(w) for w in result.wrong],
        "errata": [int(r) for r in result.errata],
        "notes": getattr(child, "notes", []),
        "tail": status == "error" and child.ended is not None,
        "ran": child.ran,  # for the review (rule b): the lines of the cells the calls ran
        "early": child.early,  # and those that ran while the cells ran (a decorator, a helper run at the top level)
        "untraced": child.untraced,
        "tampered": child.tampered,
        "refused": child.refused,
    }


_USES_RNN_CORE = re.compile(r"ImportError: (rnn_core[\w.]*) is rnn_core's: the grader runs")


def _practice():
    from .. import practice  # imported when grading, so that the command line stays light

    return practice


def _practice_check():
    from . import check  # as practice: imported when grading

    return check


# -- what is graded, from where ---------------------------------------------------------------------------


@dataclass
class _Submission:
    name: str  # as given on the command line
    student: str  # its file or folder name, for the CSV's student column
    notebooks: list
    my_rnn: Path | None = None


def _not_its_own(p, root):
    """Why the submission's file ``p`` is not read (None: it is read): a symbolic link, in itself or in a
    folder on its way from ``root``, would let a submission hand in someone else's file (the repository's
    answers, a classmate's notebook), and a file that is not a regular one (a device, a pipe) could stop
    the whole run."""
    steps = (
        [p]
        if root is None
        else [root / Path(*p.relative_to(root).parts[: k + 1]) for k in range(len(p.parts) - len(root.parts))]
    )
    for q in steps:
        if q.is_symlink():
            return f"{p.name} is not read: {q.name} is a symbolic link, and a submission's files must be its own"
    try:
        mode = os.lstat(p).st_mode
    except OSError as e:
        return f"{p.name} is not read ({type(e).__name__}: {e})"
    if not stat.S_ISREG(mode):
        return f"{p.name} is not read: it is not a regular file"
    return None


def _read_submission(path):
    root = path if path.is_dir() else None
    notebooks = []
    for p, label in _submission_notebooks(path):
        problem = _not_its_own(p, root)
        if problem is None:
            notebooks.append(_read_notebook(p, label))
        else:  # graded as a notebook that cannot be read: every exercise in it scores zero, with this reason
            nb = _Notebook(p, label, series=_series_from_name(p.name, sorted(set(_exercises().values()))))
            nb.problem = problem
            notebooks.append(nb)
    mine = None
    if path.is_dir():
        found = [p for p in path.rglob(MY_RNN) if not any(x.startswith(".") for x in p.relative_to(path).parts)]
        found = [p for p in found if _not_its_own(p, path) is None]  # never a link or a device
        found.sort(key=lambda p: (len(p.relative_to(path).parts), p.as_posix()))  # the shallowest: not backup/
        mine = found[0] if found else None
    elif path.name == MY_RNN and _not_its_own(path, None) is None:
        mine = path
    student = path.stem if path.is_file() else path.resolve().name
    return _Submission(os.path.normpath(str(path)), student, notebooks, mine)


def _as_python(source):
    """A notebook cell as the Python IPython runs, every line keeping its number: a cell magic that runs its body
    (``%%time``, ``%%capture``) its body; help lines (``np.exp?``), line magics and shell lines IPython's calls
    (``get_ipython().run_line_magic('pinfo', 'np.exp')``), which the child's stand-in answers by doing nothing, but
    a line ``%time STATEMENT`` its statement, so that the review reads what runs (``unwrap_time_lines``),
    as IPython's own TransformerManager writes them (where IPython is importable; else, and for a cell it cannot
    turn into as many lines, they become ``pass``); and rnn_core's practice imports bound to a practice that does
    nothing (``_neutralised``). The review reads this, and the child runs it."""
    from . import grade_child

    body = grade_child.unwrap_cell_magic(source)
    if body is None:
        return "pass  # a cell magic: not run by the grader"
    body = grade_child.unwrap_time_lines(body)
    lines = body.split("\n")
    blank = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    head, rest = lines[:blank], "\n".join(lines[blank:])
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        python = TransformerManager().transform_cell(rest)
        if len(python.splitlines()) == len(rest.splitlines()):
            rest = python.rstrip("\n") + ("\n" if rest.endswith("\n") else "")
    except Exception:  # no IPython, or a cell it cannot read: the child's own stripping below
        pass
    return _neutralised(grade_child._python_source("\n".join([*head, rest])))


def _rnn_core_names():
    import rnn_core

    return {n for n in dir(rnn_core) if not n.startswith("_")}


def _neutralised(source):
    """``source`` with each import of rnn_core's practice (``from rnn_core.practice import check``, ``import
    rnn_core.practice as practice``, ``from rnn_core import practice, softmax``) turned into assignments from the
    child's stand-ins, on the same lines: practice's functions do nothing (the grader does the checking), rnn_core's
    other public names are the plain givens, or raise "rnn_core's" when called (a function that calls one is
    delegated). Other imports of rnn_core are left to fail, as the grader's rule is."""
    try:
        tree = _parse(source)
    except _UNPARSABLE:
        return source
    lines = source.split("\n")
    for node in ast.walk(tree):
        names = _stand_ins(node)
        if not names or node.end_lineno is None:
            continue
        first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
        if first[: node.col_offset].strip() or last[node.end_col_offset :].strip().split("#")[0].strip():
            continue  # shares its line with another statement: left as it is
        indent = first[: node.col_offset]
        lines[node.lineno - 1] = indent + "; ".join(f"{n} = {v}" for n, v in names) + "  # checks nothing here"
        for k in range(node.lineno, node.end_lineno):
            lines[k] = ""
    return "\n".join(lines)


def _stand_ins(node):
    """[(name bound, the stand-in it is bound to)] for an import of rnn_core's practice, else []."""
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "rnn_core.practice":
        if any(a.name == "*" for a in node.names):
            return []
        return [(a.asname or a.name, f"__grader_practice__.{a.name}") for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "rnn_core":
        names = [a.name for a in node.names]
        if "practice" not in names or not set(names) - {"practice"} <= _rnn_core_names():
            return []
        return [
            (a.asname or a.name, "__grader_practice__" if a.name == "practice" else f"__grader_rnn_core__.{a.name}")
            for a in node.names
        ]
    if isinstance(node, ast.Import) and all(a.name == "rnn_core.practice" and a.asname for a in node.names):
        return [(a.asname, "__grader_practice__") for a in node.names]
    return []


def _from_notebook(nb, name):
    """The exercise as its notebook holds it: its cell, after its helper cells and the earlier exercise cells."""
    cell = nb.stubs[name]
    function = _checked_function(nb.cells[cell + 1 :], name) or _function_name(name)
    exercise_cells = set(nb.stubs.values())
    earlier = [
        i
        for i in range(cell)
        if nb.cells[i].get("cell_type") == "code"
        and (i in exercise_cells or (i in nb.helpers and ({None, name} & nb.helpers[i])))
    ]
    sources, labels = [], {}
    for i in [*earlier, cell]:
        source = notebook_source(nb.cells[i])
        if i == cell or not _is_check_cell(source):
            label = _label(f"cell {i + 1} of {nb.label}")
            sources.append([label, _as_python(source)])
            labels[label] = f"cell {i + 1}"
    return _Exercise(name, function, nb.label, cell, sources, labels)


def _from_my_rnn(sub, name):
    """The exercise as the submission's my_rnn.py defines it, or None."""
    if sub.my_rnn is None:
        return None
    try:
        source = sub.my_rnn.read_text(encoding="utf-8-sig")  # an editor's byte-order mark dropped, as Python does
    except (OSError, UnicodeDecodeError):
        return None
    function = _function_name(name)
    if not _defines(source, function):
        return None
    label = _label(MY_RNN)
    where = sub.my_rnn.name if Path(sub.name).is_file() else sub.my_rnn.relative_to(sub.name).as_posix()
    return _Exercise(name, function, where, None, [[label, source]], {label: MY_RNN})


def _defines(source, function):
    """Whether a my_rnn.py defines ``function`` at its top level: a ``def`` (however spaced), or a name bound to it
    (``softmax = stable_softmax``). A file that does not parse defines it where a line starts so, so that its
    syntax error is reported."""
    try:
        tree = _parse(source)
    except _UNPARSABLE:
        return bool(re.search(rf"^(?:def\s+{re.escape(function)}\s*\(|{re.escape(function)}\s*=)", source, re.M))
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return True
        targets, _ = _binding(node)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == function for t in targets
        ):
            return True
    return False


def _plan(sub, graded, known):
    """[(name, the exercise from its notebook or None, from my_rnn.py or None)], and notes on the choice."""
    owner, notes = _owners(sub.notebooks, graded, known)
    return [
        (name, _from_notebook(owner[name], name) if name in owner else None, _from_my_rnn(sub, name)) for name in graded
    ], notes


_RNN_CORE_IMPORT = re.compile(r"^\s*(?:import\s+rnn_core\b|from\s+rnn_core(?:\.\w+)*\s+import\b)", re.M)
_MY_RNN_IMPORTS = (
    f"{MY_RNN} imports rnn_core (practice.save adds such an import where a passing answer used rnn_core's names). "
    "The grader runs the file without rnn_core: under rnn_core's names it gives only the notebooks' plain givens "
    f"({', '.join(GIVENS)}; the one an exercise asks for withheld) and a practice that does nothing; any other "
    "name of rnn_core's raises when called, and a function that calls one scores zero as delegated."
)


def _grade_item(item, seed, limits, places):
    """(the exercise graded, its outcome): from its notebook; from my_rnn.py where the cell is still the stub."""
    name, in_notebook, in_my_rnn = item
    if in_notebook is not None:
        began = time.monotonic()
        outcome = _grade_exercise(in_notebook, seed, limits, places)
        if outcome["status"] not in ("not attempted", "missing") or in_my_rnn is None:
            return in_notebook, _reviewed(in_notebook, outcome, _review_budget(limits, began))
    if in_my_rnn is not None:
        began = time.monotonic()
        outcome = _grade_exercise(in_my_rnn, seed, limits, places)
        notes = outcome.setdefault("notes", [])
        notes.insert(
            0,
            f"Its notebook's cell is {'still the stub' if in_notebook else 'not in this submission'}: {MY_RNN}'s "
            f"{in_my_rnn.function} was graded instead.",
        )
        if _RNN_CORE_IMPORT.search(in_my_rnn.sources[-1][1]):
            notes.insert(1, _MY_RNN_IMPORTS)
        return in_my_rnn, _reviewed(in_my_rnn, outcome, _review_budget(limits, began))
    return None, None


def _review_budget(limits, began):
    """The seconds the source review of an exercise may take: what its time limit leaves after its run, and never
    less than half that limit or _REVIEW_FLOOR (a loaded machine must not send a right answer to review)."""
    return max(limits.exercise - (time.monotonic() - began), limits.exercise / 2, _REVIEW_FLOOR)


_REVIEW_FLOOR = 5.0


# -- the source review: branches on the size of the inputs -----------------------------------------------
#
# Hidden cases reach sizes far beyond the published ones, but a branch such as `if V > 1000:` can still switch
# to a shortcut beyond them. So the grader reads the function's source (ast) and lists every comparison of a
# size of its inputs with a number: `.shape`, `.size`, `.ndim`, `len()`, np.shape/np.size/np.ndim, Adam's step
# count (`state["t"]`), one_hot's num_classes and beam_step's beam_size, and any name computed from these
# (`B, T, V = o.shape`, `for t in range(T)`), compared (in an if, elif, while, conditional expression or
# comprehension) with a number written in the code (or a name bound to one at the top of a cell, or an
# argument's numeric default), or capped by min() or max() with one. Not listed: comparisons with 0 or 1 (an
# empty input, one item, a scalar: sizes the cases hold), a number of axes compared with 2 or 3 (`if o.ndim == 2:`:
# the cases hold every number of axes an exercise takes), and a branch that only raises (a check of its input:
# `if T == 0: raise ValueError(...)`). The functions it calls that the submission defines are read too.
# Policy: an exercise with such a branch scores zero, its status "review" and its feedback naming each line,
# as "review: branches on the input's size at line 3 of cell 12: `if V > 128:`", whatever the cases found: no
# case set can show that a size threshold is harmless beyond every size it holds. The instructor reads the
# lines and may give the points by hand (a branch that only chooses a faster way to the same numbers, say).

_SIZE_ATTRIBUTES = frozenset({"shape", "size", "ndim"})
_SIZE_FUNCTIONS = frozenset({"len", "shape", "size", "ndim"})
_SIZE_ARGUMENTS = {"one_hot": 1, "seq2seq.beam_step": 2}  # the argument that is a size: num_classes, beam_size
_MASK_ARGUMENTS = {"dropout_backward": (1,)}  # the arguments that are 0/1 masks: keep (rule a's narrow types)
_SIZE_KEYS = frozenset({"t"})  # state["t"]: Adam's step count
_HARMLESS = (0, 1)  # comparisons with these are not listed: an empty input, one item, a scalar
_RANKS = 3  # nor a number of axes compared with one up to this: the cases hold every rank an exercise takes
_SHOWN_BRANCHES = 5
_ARITHMETIC = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Pow: lambda a, b: a**b,
}


def _reviewed(ex, outcome, budget=EXERCISE_TIMEOUT):
    """The outcome, with what the source review found named and (if it passed) its points withheld: branches on the
    inputs' size, large numbers (rule a), and, where it passed, lines that no hidden case ran (rule b). The rules
    run in a thread of their own, bounded by ``budget`` seconds: past it the exercise is "review: too long to
    review" (hostile37e, finding 6); a rule that raises sends it to "review: the grader could not read this code",
    never "the grader itself failed" (finding 1)."""
    outcome = dict(outcome)
    ran, untraced = outcome.pop("ran", None), outcome.pop("untraced", None)
    early = outcome.pop("early", None) or set()
    tampered, refused = outcome.pop("tampered", None), outcome.pop("refused", None) or []
    findings = []
    if tampered:
        findings.append(
            f"the child's report was tampered with: it named {tampered} (the grader's tracer reports only lines "
            "of the cells' code, so code of the submission wrote that report)"
        )
    if refused:
        modules = ", ".join(f"`{m}` ({ex.labels.get(label, label)})" for label, m in refused[:_SHOWN_BRANCHES])
        findings.append(
            f"imports the grader refuses: {modules}. The graded cells (the exercise's own, its helper cells and "
            f"{MY_RNN}) may import only {', '.join(_D_ALLOWED_SHOWN)}: code that reaches another module can run "
            "code no review reads"
        )
    failed, done = [], {}

    def review():
        _REVIEW.deadline = time.monotonic() + budget
        try:
            done["findings"] = _rule_findings(ex, outcome, ran, untraced, failed, early)
        except _TooLong:
            pass
        except Exception as exc:  # noqa: BLE001 -- whatever the rules hit, the exercise goes to review
            failed.append(("the review", exc))
            done["findings"] = []

    worker = threading.Thread(target=review, name=f"review {ex.name}", daemon=True)
    worker.start()
    worker.join(budget + 1.0)
    if "findings" not in done:  # still running, or stopped by its deadline: the review ran out of time
        findings.append(
            f"too long to review: the grader's reading of this code took more than {budget:.0f} s (what its "
            "exercise's time limit leaves), so none of its rules could vouch for it"
        )
    else:
        findings += done["findings"]
    if failed:
        which = ", ".join(sorted({f"rule {rule} ({type(exc).__name__})" for rule, exc in failed}))
        findings.append(
            f"the grader could not read this code: {which} raised on it, so the review cannot vouch for it "
            "(this is no verdict on the code: your instructor reads it)"
        )
    if not findings:
        return outcome
    review = (
        f"review: {'; '.join(findings)}. The hidden cases cannot show what such code does beyond every case they "
        "hold, so the exercise scores zero until your instructor has read it: compute the same way at every size, "
        "with no code the cases never reach."
    )
    if outcome.get("status") == "passed":
        outcome["status"] = "review"
        outcome["message"] = f"{ex.name}: {review} (On the hidden cases it agrees with rnn_core.)"
    else:
        outcome["notes"] = [*(outcome.get("notes") or []), review]
    return outcome


def _rule_findings(ex, outcome, ran, untraced, failed, early=frozenset()):
    """The findings of rules a-d and f (and b where it passed); a rule that raises is named in ``failed``."""
    findings = []

    def note(found, says):
        if found:
            findings.append(says.format(where=_where(ex, found)))

    branches = _safely(failed, "a", size_branches, ex.sources, ex.function, _SIZE_ARGUMENTS.get(ex.name))
    note(branches, "branches on the input's size {where}")
    numbers = _safely(failed, "a", large_numbers, ex.sources, ex.function, _MASK_ARGUMENTS.get(ex.name, ()))
    note(
        numbers,
        f"numbers of {_LARGE} or more, or a size in bytes, {{where}} (a threshold on the size shows as one, however "
        "it is written)",
    )
    shown = {(label, line) for label, line, _ in [*branches, *numbers]}
    compared = _safely(failed, "c", size_comparisons, ex.sources, ex.function, _C_SIZE_ARGUMENTS.get(ex.name, ()))
    note(
        [f for f in compared if f[:2] not in shown],
        "a size of the inputs used for more than a count, a mean or a scaling {where} (compared with or capped at a "
        "constant however it is written, or rounded, shifted, cast or put through a float constant, abs, exp or a "
        "lambda: n * 1e-3 < 1.5, n.bit_length() < 11, round(n * 2.5e-7))",
    )
    note(
        _safely(failed, "f", kept_state, ex.sources, ex.function),
        "keeps state between calls {where}: it writes to an object it neither created in the call nor received as a "
        "parameter (a counter, a cache, a global), so what it computes can change with the number of calls before "
        "it, which the hidden cases (a few calls each) cannot show",
    )
    note(
        _safely(failed, "d", introspection, ex.sources, ex.function),
        "code that inspects or changes the process it runs in {where}: an exercise needs none of this (imports "
        "beyond numpy, math, warnings, functools, itertools, collections, heapq, operator, typing and copy; sys, gc, "
        "inspect, eval, exec, open, globals; dunder attributes; getattr with a computed name), and the grader cannot "
        "vouch for code that inspects or changes the process it runs in",
    )
    if outcome.get("status") == "passed" and ran is not None:
        if not _safely(failed, "b", defined_where, ex.sources, ex.function, default=True):
            findings.append(
                f"{ex.function} is not a def (or a lambda, or a name bound to one) at the top level of its cell, so "
                "its source could not be read"
            )
        elif untraced:
            findings.append(f"the lines it runs could not be followed: {untraced}")
        else:
            note(
                _safely(failed, "b", unrun_lines, ex.sources, ex.function, ran, early),
                "code that no hidden case ran {where}",
            )
    return findings


_REVIEW = threading.local()  # the deadline of the review running in this thread


class _TooLong(Exception):
    """The review ran past its deadline (raised by _tick, in the rules' loops)."""


def _tick():
    """Raise _TooLong once the review in this thread is past its deadline: called in the rules' loops."""
    deadline = getattr(_REVIEW, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise _TooLong


def _safely(failed, rule, fn, *args, default=()):
    """fn(*args), or ``default`` with (rule, the exception) in ``failed`` if it raised (RecursionError on a sum of
    1,000 terms, an AST the rule did not foresee). _TooLong goes through: the whole review stops."""
    try:
        return fn(*args)
    except _TooLong:
        raise
    except Exception as exc:  # noqa: BLE001
        failed.append((rule, exc))
        return default if isinstance(default, bool) else list(default)


def _where(ex, found):
    """Where each of [(label, line, text)] is (the first _SHOWN_BRANCHES): at line 3 of cell 12: `if V > 128:`."""
    lines = "; ".join(
        f"at line {n} of {ex.labels.get(label, label)}: `{text}`" for label, n, text in found[:_SHOWN_BRANCHES]
    )
    return lines + (f" (and {len(found) - _SHOWN_BRANCHES} more)" if len(found) > _SHOWN_BRANCHES else "")


# -- rule a: large numbers. A threshold on the size needs a number beyond the sizes the cases hold, however the
# comparison is written (`big = o.size > 5000`, `operator.gt(len(o), 5000)`, `range(4096)[n]`, `x[:500]`,
# `np.minimum(T, 512)`, `int("5000")`, `8 * 10**6`, `o.nbytes > 40000`). So any integer of magnitude _LARGE or
# more in the graded function, the functions it reaches by name, or the top-level names they use (after folding
# constant arithmetic of any depth, and reading digit strings), any float of magnitude in [_LARGE, _LARGEST_FLOAT],
# integral or not (`5e3`, `4999.5`; not a fill value such as -1e9 or -1e30, which is no size), any use of a size in
# bytes (`.nbytes`, `.itemsize`, `.strides`) and any integer type too narrow for every size (`np.int16`) is listed.
# Not listed: numbers inside `raise` and `assert` statements (messages, checks of the input that stop rather than
# branch), the bounds of a clip of values that are not a size (`np.clip(a, -500, 500)`), and the fill of
# np.where(cond, a, FILL), np.full(shape, FILL) and np.full_like(a, FILL) (`-10**9`).

_LARGE = 64
_LARGEST_FLOAT = 1e8
_BYTE_SIZES = frozenset({"nbytes", "itemsize", "strides"})
_NARROW = frozenset({"int8", "int16", "uint8", "uint16"})  # integer types too narrow for every size (32767)
_FOLDED = {
    **_ARITHMETIC,
    ast.Mod: lambda a, b: a % b,
    ast.LShift: lambda a, b: a << b if 0 <= b <= 64 else None,
    ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitXor: lambda a, b: a ^ b,
}
_NUMBER_CALLS = frozenset({"int", "float", "round", "abs", "int64", "int32", "float64", "float32", "intp", "uint64"})


def large_numbers(sources, function, masks=()):
    """[(label, line, text)]: the lines of ``function`` and of the code it reaches (see ``_reach``) that hold a
    number of magnitude _LARGE or more, or a size in bytes (the comment above says exactly what counts). ``masks``:
    the positions of the function's arguments that are 0/1 masks (dropout's keep), whose cast to a narrow type is
    no threshold."""
    functions, bound = _reach(sources, function)
    found = {}
    for label, node in [*functions, *bound]:
        names = _mask_names(node, masks) if getattr(node, "name", None) == function else set()
        for line in _large_in(node, _exempt(node, names)):
            found.setdefault((label, line), None)
    return [(label, line, _line_text(sources, label, line)) for label, line in sorted(found, key=_order(sources))]


def _order(sources):
    rank = {label: i for i, (label, _) in enumerate(sources)}
    return lambda key: (rank.get(key[0], 0), key[1])


def _line_text(sources, label, line):
    lines = _source_lines(sources, label)
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _mask_names(fn, masks):
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set()
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return {positional[i].arg for i in masks if i < len(positional)}


def _exempt(fn, masks):
    """The ids of the nodes under ``fn`` that rule a does not read (hostile37d, finding 6):
    - the step of a loop in chunks that visits every element, `for i in range(0, n, K)` whose slices are
      `[i:i + K]` or `slice(i, i + K)`, and those `i + K`;
    - a narrow integer type that a 0/1 mask is cast to (`keep.astype(np.uint8)`, `(x > 0).astype(np.int8)`): no
      size, unlike an index cast to int16 (hostile6 w09)."""
    skip, iterated = set(), _only_iterated(fn)
    for n in ast.walk(fn):
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name) and _called(n.iter) == "range":
            args = n.iter.args
            if len(args) != 3 or _folded(args[0]) != 0 or not _is_large(_folded(args[2])):
                continue
            step, index = _folded(args[2]), n.target.id
            ends = [e for b in n.body for e in ast.walk(b) if _chunk_end(e, index, step)]
            if ends:
                skip |= {id(args[2]), *(id(e) for e in ends)}
        if _called(n) == "array_split" and len(n.args) >= 2 and id(n) in iterated:
            for m in ast.walk(n.args[1]):  # np.array_split(x, n // K) only looped over: blocks of K, every one
                if isinstance(m, ast.BinOp) and isinstance(m.op, ast.FloorDiv) and _is_large(_folded(m.right)):
                    skip.add(id(m.right))  # visited (hostile37e, finding 5), as a chunk loop's step
        if _called(n) == "astype" and isinstance(n.func, ast.Attribute) and n.args:
            value = n.func.value
            if isinstance(value, (ast.Compare, ast.BoolOp)) or (isinstance(value, ast.Name) and value.id in masks):
                skip.add(id(n.args[0]))
    return skip


def _only_iterated(fn):
    """The ids of the calls under ``fn`` whose result is only looped over: the iterable of a for or a comprehension,
    or assigned to a name whose every other use is that (`parts = np.array_split(...)`; `for p in parts`). Its
    length, which would show the size past a threshold, is never read."""
    loops = [n.iter for n in ast.walk(fn) if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension))]
    direct = {id(x) for x in loops}
    names = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            names.setdefault(n.id, []).append(n)
    found = {id(x) for x in loops if isinstance(x, ast.Call)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            uses = [u for u in names.get(n.targets[0].id, []) if u is not n.targets[0]]
            if uses and all(isinstance(u.ctx, ast.Load) and id(u) in direct for u in uses):
                found.add(id(n.value))
    return found


def _chunk_end(node, index, step):
    """Whether ``node`` is `index + step` (or `step + index`)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return False
    pair = (node.left, node.right)
    return any(isinstance(a, ast.Name) and a.id == index and _folded(b) == step for a, b in (pair, pair[::-1]))


def _large_in(node, skip=frozenset()):
    """The lines under ``node`` (its raise and assert statements aside) that hold a large number, a size in bytes or
    an integer type too narrow for every size; the bounds of a clip of values that are not a size, the fill of
    np.where/np.full/np.full_like (-1e9, -10**9: no size), and the nodes in ``skip`` (see _exempt) aside."""
    if isinstance(node, (ast.Raise, ast.Assert)) or id(node) in skip:
        return set()
    value = _folded(node)
    if value is not None:
        large = _is_large(value) or any(_is_large(_folded(leaf)) for leaf in ast.walk(node))
        return {node.lineno} if large else set()
    found = set()
    if isinstance(node, ast.Attribute) and (node.attr in _BYTE_SIZES or node.attr in _NARROW):
        found.add(node.lineno)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() in _BYTE_SIZES | _NARROW:
        found.add(node.lineno)  # getattr(o, "nbytes"), astype("int16")
    fills = _fills(node)
    for child in ast.iter_child_nodes(node):
        if all(child is not f for f in fills):
            found |= _large_in(child, skip)
    return found


def _fills(node):
    """The arguments of a call that are fill values or clip bounds, never a size: np.clip(x, lo, hi) and x.clip(lo, hi)
    where x is no size, np.where(cond, a, FILL), np.full(shape, FILL), np.full_like(a, FILL)."""
    called = _called(node)
    if called not in ("clip", "where", "full", "full_like"):
        return []
    args, keywords = node.args, {k.arg: k.value for k in node.keywords}
    if called == "clip":
        method = isinstance(node.func, ast.Attribute) and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy")
        )
        values = node.func.value if method else (args[0] if args else keywords.get("a"))
        if values is None or _is_size(values, set()):
            return []
        bounds = args if method else args[1:]
        return [*bounds, *(keywords[k] for k in ("a_min", "a_max", "min", "max") if k in keywords)]
    if called == "where":
        return args[2:3]
    return [*args[1:2], *([keywords["fill_value"]] if "fill_value" in keywords else [])]


def _is_large(value):
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) >= _LARGE
    if isinstance(value, float):
        return math.isfinite(value) and _LARGE <= abs(value) <= _LARGEST_FLOAT  # 4999.5 as much as 5000.0
    return False


def _folded(node):
    """The value of a constant expression (5000, 8 * 10**6, 1 << 12, int("5000"), "5e3"), else None. Iterative, so
    that a chain of any depth (1+1+...+1, 70 terms) folds."""
    values, todo = {}, [(node, False)]
    while todo:
        n, ready = todo.pop()
        kids = _fold_operands(n)
        if not ready and kids:
            todo.append((n, True))
            todo += [(k, False) for k in kids if id(k) not in values]
            continue
        values[id(n)] = _fold_one(n, [values.get(id(k)) for k in kids])
    return values[id(node)]


def _fold_operands(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        return [node.operand]
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDED:
        return [node.left, node.right]
    if isinstance(node, ast.Call) and _called(node) in _NUMBER_CALLS and len(node.args) == 1 and not node.keywords:
        return [node.args[0]]
    return []


def _fold_one(node, operands):
    """The value of ``node`` given its operands' values (None: not a constant)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and 0 < len(value) < 60:
            return _number_text(value)
        return None
    if isinstance(node, ast.UnaryOp) and operands:
        inner = operands[0]
        if not isinstance(inner, (int, float)) or (isinstance(node.op, ast.Invert) and not isinstance(inner, int)):
            return None
        return -inner if isinstance(node.op, ast.USub) else ~inner if isinstance(node.op, ast.Invert) else inner
    if isinstance(node, ast.BinOp) and len(operands) == 2:
        left, right = operands
        if left is None or right is None or (isinstance(node.op, ast.Pow) and abs(right) > 64):
            return None
        if isinstance(left, (int, float)) and isinstance(right, (int, float)) and max(abs(left), abs(right)) > 1e300:
            return None
        try:
            value = _FOLDED[type(node.op)](left, right)
        except (ArithmeticError, ValueError, TypeError):
            return None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(node, ast.Call) and _called(node) == "len" and len(node.args) == 1:
        inner = node.args[0]  # len("abcdefghijkl"), len((0,) * 5000)
        if isinstance(inner, ast.Constant) and isinstance(inner.value, (str, bytes)):
            return len(inner.value)
        return None
    if isinstance(node, ast.Call) and operands:
        return operands[0] if isinstance(operands[0], (int, float)) else None
    return None


def _number_text(text):
    """The number a string spells ("5000", " 5e3 "), else None."""
    text = text.strip().replace("_", "")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if text.lower().lstrip("+-") not in ("inf", "infinity", "nan") else None


# -- what the graded function can reach, by name, in the submission's sources ------------------------------------


def _reach(sources, *functions):
    """([(label, node)] of each of ``functions`` and every function, lambda or class of the sources it reaches by name,
    however deep; [(label, statement)] of the top-level statements that bind a name those use, such as ``LIMIT =
    5000``). Linear in the sources: each top-level statement's bound names are read once (hostile37e, finding 6: a
    cell of 1,500 assignments took a minute when they were read again for every name)."""
    defs, binders = {}, {}
    for label, tree in _trees(sources):
        for node in _top_level(tree.body):
            _tick()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defs[node.name] = (label, node)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
                defs |= {t.id: (label, node.value) for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in defs:
                defs |= {t.id: defs[node.value.id] for t in node.targets if isinstance(t, ast.Name)}  # f = g
            elif not isinstance(node, (ast.Import, ast.ImportFrom, ast.Expr)):
                for name in _names_bound(node):
                    binders.setdefault(name, []).append((label, node))
    reached, bound, seen, held, todo = [], [], set(), set(), collections.deque(functions)
    while todo:
        _tick()
        name = todo.popleft()
        if name in seen:
            continue
        seen.add(name)
        if name in defs:
            label, node = defs[name]
            if id(node) not in held:
                held.add(id(node))
                reached.append((label, node))
                todo += sorted(_names_used(node))
        for label, node in binders.get(name, ()):
            if id(node) not in held:
                held.add(id(node))
                bound.append((label, node))
                todo += sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
    return reached, bound


def _top_level(body):
    """The statements of a module's body, and those inside its top-level if, try, with, for and while blocks (a def
    under `if True:` is a top-level def all the same); not those inside functions or classes."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            for block in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def defined_where(sources, function):
    """Whether the review can read ``function``'s definition: a def, a lambda or a name bound to one, at the top level
    of the sources."""
    reached, _ = _reach(sources, function)
    return bool(reached)


def _names_used(node):
    """The names a function (or lambda, or class) reads that are not its own arguments or locals."""
    own = set()
    for fn in ast.walk(node):  # its own arguments, and those of the functions and lambdas within it
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = fn.args
            own |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
    stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    loaded = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - own - (stored if not isinstance(node, ast.ClassDef) else set())


def _names_bound(node):
    """The names a top-level statement binds or changes (``X = ...``, ``X[k] = ...``, ``for X in ...``)."""
    _tick()
    targets, _ = _binding(node)
    names = set()
    for target in targets:
        while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
            target = target.value
        names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.With, ast.AsyncWith, ast.Try, ast.If, ast.For, ast.While)):
        names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


# -- rule b: lines that never ran. The child traces the lines of the submission's code that the hidden cases run
# (sys.settrace); every statement of the graded function and of the functions it reaches by name that no case ran
# is listed, where it passed (a branch the cases never take is a branch they cannot judge). Not listed: `raise`
# and `assert` statements (so a block that only raises), docstrings, `pass`, an argument's default
# (`if h0 is None: h0 = ...`, one assignment to that name and nothing else: the cases give every argument), and a
# guard (`_guard`): `if TEST:` with no else, whose test is only a type test (isinstance, a number of axes), an
# emptiness or zero test (`x.size == 0`, `not x`, `len(x) == 0`, `norm == 0`, `lr == 0`) or a nan/inf test
# (`np.isnan(o).any()`), and whose block only returns, assigns, warns (`warnings.warn`), continues or passes.


def unrun_lines(sources, function, ran, early=frozenset()):
    """[(label, line, text)]: the statements of ``function`` and the code it reaches that no call ran; ``ran`` is
    the set of (label, line) the child traced during the calls, ``early`` those it traced while the cells ran. A
    decorator (a def the sources use as one), or a factory (a def whose call at the top level makes the graded
    function: hostile37r), none of whose lines a call ran is judged by the lines that ran while the cells ran: its own
    lines run once, at the top level (hostile37e, finding 7). Every other function is judged by
    the calls alone, so running a branch, or a whole helper, at the top level does not count (hostile37o: a wrong
    helper run once at the top level, then called only where the cases never go)."""
    functions, _ = _reach(sources, function)
    decorators = {
        (d.func if isinstance(d, ast.Call) else d).id
        for _, tree in _trees(sources)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for d in n.decorator_list
        if isinstance(d.func if isinstance(d, ast.Call) else d, ast.Name)
    } | {  # a factory: a def whose call, at the top level, makes the graded function (`step = _make(np.tanh)`)
        n.value.func.id
        for _, tree in _trees(sources)
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
        if any(isinstance(t, ast.Name) and t.id == function for t in n.targets)
    }
    found = []
    for label, node in functions:
        groups, decorating = {}, {}
        owners = [f for f in ast.walk(node) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.body]
        tainted = _set_by_constants(node)
        for first, last in _statements(node, tainted):
            _tick()
            inner = [f for f in owners if f.body[0].lineno <= first <= (f.end_lineno or first)]
            owner = max(inner, key=lambda f: f.body[0].lineno, default=node)
            groups.setdefault(id(owner), []).append((first, last))
            decorating[id(owner)] = getattr(owner, "name", None) in decorators
        for key, spans in groups.items():
            called = any((label, n) in ran for first, last in spans for n in range(first, last + 1))
            once = decorating[key] and not called  # a decorator's lines, run where it decorates
            seen = ran | {(lab, n) for lab, n in early if lab == label} if once else ran
            for first, last in spans:
                if not any((label, n) in seen for n in range(first, last + 1)):
                    found.append((label, first, _line_text(sources, label, first)))
    return sorted(set(found), key=_order(sources))


def _statements(node, tainted=frozenset()):
    """[(first line, last line)] of every statement a call of ``node`` should run (for a compound statement, its
    header: `if test:`, `for ... in ...:`), its nested functions' included."""
    if isinstance(node, ast.Lambda):
        return [(node.body.lineno, node.body.end_lineno or node.body.lineno)]
    if isinstance(node, ast.ClassDef):
        return [s for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for s in
                _statements(item, tainted)]  # fmt: skip
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # the docstring
    return _block(body, tainted)


def _block(body, tainted=frozenset()):
    found = []
    for stmt in body:
        if isinstance(stmt, (ast.Pass, ast.Raise, ast.Assert, ast.Global, ast.Nonlocal)):  # the last two: no code
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue
        if _defaulting(stmt) or _guard(stmt, tainted):
            continue
        if isinstance(stmt, (ast.If, ast.While)):
            found.append((stmt.lineno, stmt.test.end_lineno or stmt.lineno))
            found += _block(stmt.body, tainted) + _block(stmt.orelse, tainted)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            found.append((stmt.lineno, stmt.iter.end_lineno or stmt.lineno))
            found += _block(stmt.body, tainted) + _block(stmt.orelse, tainted)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            found.append((stmt.lineno, stmt.body[0].lineno - 1 if stmt.body[0].lineno > stmt.lineno else stmt.lineno))
            found += _block(stmt.body, tainted)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            found += _block(stmt.body, tainted) + [s for h in stmt.handlers for s in _block(h.body, tainted)]
            found += _block(stmt.orelse, tainted) + _block(stmt.finalbody, tainted)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([d.lineno for d in stmt.decorator_list] + [stmt.lineno])
            found.append((first, max(first, stmt.body[0].lineno - 1)))
            found += _statements(stmt, tainted)
        elif isinstance(stmt, ast.Match):
            found.append((stmt.lineno, stmt.subject.end_lineno or stmt.lineno))
            found += [s for case in stmt.cases for s in _block(case.body, tainted)]
        else:
            found.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
    return found


def _defaulting(stmt):
    """Whether ``stmt`` is ``if name is None: name = ...`` and nothing else: an argument given a default (``if h0 is
    None:``), which the cases, giving every argument, never run, and which cannot change an answer for them."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1):
        return False
    test, body = stmt.test, stmt.body[0]
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(body, ast.Assign)
        and [t.id for t in body.targets if isinstance(t, ast.Name)] == [test.left.id]
        and len(body.targets) == 1
    )


def _guard(stmt, tainted=frozenset()):
    """Whether ``stmt`` is a guard the cases need not run: ``if TEST:`` (no else) whose test is only a type test
    (isinstance, a number of axes), an emptiness or zero test (``x.size == 0``, ``not x``, ``norm == 0``), or a nan or
    inf test (``np.isnan(o).any()``), and whose block only returns, assigns, warns, continues or passes."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and _guard_test(stmt.test, tainted)):
        return False
    return all(_guard_statement(s) for s in stmt.body)


_NAN_TESTS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf"})
_GUARD_CALLS = _NAN_TESTS | {"any", "all"}


def _guard_test(test, tainted=frozenset()):
    """Whether ``test`` is a guard's (``_guard``). A name tested for emptiness or zero (`not x`, `x == 0`) is one only
    if no value the function gives it comes from arithmetic or a comparison with a number written in the code
    (``tainted``): `hit = y - 3; if hit == 0:` is `if y == 3:` (hostile37o: such tests hid wrong branches)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, (ast.Not, ast.Invert)):
        if isinstance(test.operand, ast.Name):
            return test.operand.id not in tainted  # not grads, not x
        return _guard_test(test.operand, tainted)
    if isinstance(test, ast.BoolOp):
        return all(_guard_test(v, tainted) for v in test.values)
    if _called(test) == "isinstance" and len(test.args) == 2 and not test.keywords:
        return _plain(test.args[0]) and all(_plain(n) for n in ast.walk(test.args[1]) if isinstance(n, ast.expr)
                                            and not isinstance(n, (ast.Tuple, ast.Load)))  # fmt: skip
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        left, right = test.left, test.comparators[0]
        if _is_rank(left, set()) and isinstance(right, ast.Constant) and right.value in (0, 1, 2, 3):
            return True  # np.ndim(o) == 1, o.ndim != 2
        if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and right.value == 0:
            if isinstance(left, ast.Name) and left.id in tainted:
                return False
            return _plain(left) or (_called(left) in ("len", "size") and len(left.args) == 1 and _plain(left.args[0]))
        return False
    calls = [n for n in ast.walk(test) if isinstance(n, ast.Call)]
    return (
        bool(calls)
        and all(_called(c) in _GUARD_CALLS for c in calls)
        and any(_called(c) in _NAN_TESTS for c in calls)
        and not any(isinstance(n, (ast.Compare, ast.BinOp, ast.Subscript)) for n in ast.walk(test))
    )  # np.isnan(o).any(), np.any(~np.isfinite(o)), math.isinf(x)


def _set_by_constants(fn):
    """The names ``fn`` (and the functions nested in it) gives a value made by arithmetic or a comparison with a
    number written in the code (`y - 3`, `rate - 0.25`, `r > 1e-4`), or from another such name; a number in a
    keyword argument or an index (`o.max(axis=-1)`, `x[0]`) does not count."""

    def numbers_in(expr):
        todo = [expr]
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.BinOp, ast.Compare, ast.AugAssign)):
                if isinstance(n, ast.AugAssign):
                    sides = [n.value]  # hit -= 3
                else:
                    sides = [n.left, n.right] if isinstance(n, ast.BinOp) else [n.left, *n.comparators]
                if any(isinstance(x, ast.Constant) and isinstance(x.value, (int, float)) for x in sides) or any(
                    isinstance(x, ast.UnaryOp) and isinstance(x.operand, ast.Constant) for x in sides
                ):
                    return True
            if isinstance(n, ast.Call):
                todo += n.args + ([n.func] if not isinstance(n.func, ast.Name) else [])
            elif isinstance(n, ast.Subscript):
                todo.append(n.value)
            else:
                todo += list(ast.iter_child_nodes(n))
        return False

    assigns = []
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            names = {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
            value = n if isinstance(n, ast.AugAssign) else n.value
            assigns.append((names, value, {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)}))
    tainted = set()
    for _ in range(len(assigns) + 1):
        before = len(tainted)
        for names, value, read in assigns:
            if numbers_in(value) or read & tainted:
                tainted |= names
        if len(tainted) == before:
            break
    return frozenset(tainted)


def _plain(node):
    """A name or a chain of attributes (o, o.size, np.ndarray): nothing computed."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _guard_statement(stmt):
    if isinstance(stmt, (ast.Return, ast.Continue, ast.Pass, ast.Assign, ast.AnnAssign)):
        return True
    return isinstance(stmt, ast.Expr) and _called(stmt.value) == "warn"  # warnings.warn("...")


def size_branches(sources, function, size_argument=None):
    """[(label, line, text)]: the comparisons of a size of the inputs with a number in ``function`` and the functions
    it calls, defined in ``sources`` ([[label, source], ...], later definitions winning), in the order found.
    ``size_argument``: the position of ``function``'s argument that is itself a size (one_hot's num_classes).

    See the comment above for what counts; a source that does not parse gives nothing (the check reports it)."""
    defs, constants = {}, set()
    for label, tree in _trees(sources):
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = (label, node)
            elif isinstance(node, ast.Assign) and _literal(node.value) is not None:
                constants |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    found, seen, todo = [], set(), [function]
    while todo:
        name = todo.pop(0)
        if name in seen or name not in defs:
            continue
        seen.add(name)
        label, node = defs[name]
        at = size_argument if name == function else None
        found += [(label, n, text) for n, text in _branches_in(node, constants, _source_lines(sources, label), at)]
        todo += [c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
    return found


def _source_lines(sources, label):
    return next((source for lab, source in sources if lab == label), "").splitlines()


def _literal(node):
    """The value of a number written in the code (1000, -1e5, 10**6, 2 * 512, int(1e6)), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _literal(node.operand)
        return None if inner is None else -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float"):
        inner = _literal(node.args[0]) if len(node.args) == 1 and not node.keywords else None
        return None if inner is None else int(inner) if node.func.id == "int" else float(inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Pow) and abs(right) > 64):
            return None
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except (ArithmeticError, ValueError):
            return None
    return None


def _branches_in(fn, constants, lines, size_argument=None):
    """[(line, text)] of fn's comparisons of a size with a number (its nested functions' included); its argument at
    ``size_argument`` is a size."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    numbers = constants | {name for name, d in defaults.items() if _literal(d) is not None}
    sizes = {positional[size_argument].arg} if size_argument is not None and size_argument < len(positional) else set()
    ranks = set()  # names bound to a number of axes alone (r = o.ndim)
    for _ in range(3):  # names computed from sizes, from names computed from sizes, ...
        for node in ast.walk(fn):
            targets, value = _binding(node)
            if value is not None and _is_size(value, sizes):
                names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} - numbers
                sizes |= names
                ranks |= names if _is_rank(value, ranks) else set()
    found = {}
    for node in ast.walk(fn):
        for test, where in _tests(node):
            if _compares_a_size(test, sizes, numbers, ranks):
                found.setdefault(where, lines[where - 1].strip() if 0 < where <= len(lines) else ast.unparse(test))
    return sorted(found.items())


def _binding(node):
    """(targets, value) of an assignment or a for loop, else ((), None)."""
    if isinstance(node, ast.Assign):
        return node.targets, node.value
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [node.target], node.value
    if isinstance(node, (ast.For, ast.comprehension)):
        return [node.target], node.iter
    return (), None


def _is_size(node, sizes):
    """Whether an expression holds a size of the inputs."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in _SIZE_ATTRIBUTES:
            return True
        if isinstance(n, ast.Call):
            f = n.func
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if called in _SIZE_FUNCTIONS:
                return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value in _SIZE_KEYS:
            return True
        if isinstance(n, ast.Name) and n.id in sizes:
            return True
    return False


def _tests(node):
    """[(test, line)] of the branches a node makes: if, elif, while, a conditional expression, a comprehension's
    if (an if whose body only raises is a check of the input, not a branch); min() and max() calls too."""
    if isinstance(node, ast.If):
        raises = all(isinstance(s, ast.Raise) for s in node.body) and not node.orelse
        return [] if raises else [(node.test, node.lineno)]
    if isinstance(node, (ast.While, ast.IfExp)):
        return [(node.test, node.lineno)]
    if isinstance(node, ast.comprehension):
        return [(test, test.lineno) for test in node.ifs]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        return [(ast.Compare(node.args[0], [ast.Lt()], node.args[1:]), node.lineno)] if len(node.args) > 1 else []
    return []


def _compares_a_size(test, sizes, numbers, ranks=frozenset()):
    """Whether a test compares a size of the inputs with a number other than 0 and 1 (a number of axes with one
    above _RANKS: the cases hold every number of axes an exercise takes, up to 3)."""
    for n in ast.walk(test):
        if not isinstance(n, ast.Compare):
            continue
        sides = [n.left, *n.comparators]
        if not any(_is_size(side, sizes) for side in sides):
            continue
        limit = _RANKS if all(_is_rank(side, ranks) for side in sides if _is_size(side, sizes)) else _HARMLESS[-1]
        for side in sides:
            value = _literal(side)
            if (value is not None and value not in _HARMLESS and not 0 <= value <= limit) or (
                isinstance(side, ast.Name) and side.id in numbers
            ):
                return True
    return False


def _is_rank(node, ranks):
    """Whether an expression is a number of axes: x.ndim, np.ndim(x), len(x.shape), len(np.shape(x)), or a name
    bound to one."""
    if isinstance(node, ast.Name):
        return node.id in ranks
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim"
    called = _called(node)
    if called == "ndim":
        return True
    if called == "len" and len(node.args) == 1:
        arg = node.args[0]
        return (isinstance(arg, ast.Attribute) and arg.attr == "shape") or _called(arg) == "shape"
    return False


def _called(node):
    """The name of the function a call calls (np.ndim -> "ndim"), else None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


# -- rule c: a size against a constant, however the constant is written. Rule a sees a threshold written as a
# number; one written as `np.finfo(float).maxexp`, `np.iinfo(np.uint8).max`, `n * 1e-3 < 1.5` or
# `n.bit_length() < 11` has none. So in the graded function and every function it reaches, any comparison
# (anywhere: `x * (n < k)`, `float(a < b)`), any min/max/np.minimum/np.maximum/np.clip call and any slice bound
# is listed where one side is derived from a SIZE and another is CONSTANT-ONLY:
# - a SIZE is `len(...)`, `.size`, `.shape` (and its items), `.ndim`, np.size/np.shape/np.ndim, an argument that is
#   a size (one_hot's num_classes, beam_step's beam_size, the masked loss's lengths), Adam's `state["t"]`, a name
#   every assignment of which is one (`B, T = x.shape`), and anything computed from sizes and constants alone
#   (arithmetic, `.bit_length()`, math.log2, str, int, round, np.arange(n), ...);
# - a CONSTANT-ONLY expression holds no variable: literals, names bound only to constants (at the top of a cell or in
#   the function, or an argument's constant default), np.finfo(...)/np.iinfo(...) and their attributes whatever
#   their argument, math.*/np.* constants, and arithmetic of these.
# Not listed: a size compared with 0, 1 or 2 and a number of axes with one up to 3 (`len(x) == 0`, `x.ndim == 3`,
# `T > 1`, `max(T - 1, 0)`: every constant involved an integer from -2 to 2), a slice bound written as an integer
# from -2 to 2, and anything where the other side is a variable: a loop index or an argument (`t < T - 1`,
# `max(0, t - bptt_truncate)`, `range(T)`).

_C_SIZE_ARGUMENTS = {"one_hot": (1,), "seq2seq.beam_step": (2,), "seq2seq.masked_loss_and_grad": (2,)}
_C_MODULES = frozenset({"np", "numpy", "math"})
_C_BUILTINS = frozenset({"int", "float", "round", "abs", "str", "bool", "min", "max", "pow", "divmod", "sum", "len"})
_C_SIZE_CALLS = frozenset({"len", "size", "shape", "ndim"})
_C_CAPS = frozenset({"min", "max", "minimum", "maximum", "fmin", "fmax", "clip"})
_C_TRIVIAL = range(-2, 3)  # constants a size may meet unlisted: an empty input, one item, a pair
_C_VALUES = "\0values"  # the key of the top-level names' values in a kinds dict (no name can be it)
_C_NOT_A_NUMBER = "not a number"  # _c_value of a string or a type


def size_comparisons(sources, function, size_arguments=()):
    """[(label, line, text)]: the comparisons, caps and slice bounds of ``function`` and the code it reaches where a
    size meets a constant (rule c; the comment above says exactly what counts)."""
    functions, _ = _reach(sources, function)
    constants, modules = _c_constants(sources)
    found, read = {}, {}
    for label, node in functions:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        seeds = size_arguments if getattr(node, "name", None) == function else ()
        kinds = read[id(node)] = _c_locals(node, constants, modules, seeds)
        tests = _c_tests(node)
        counts = _c_split_counts(node)
        for n in ast.walk(node):
            if id(n) not in counts and (_c_listed(n, kinds, modules) or _c_against(n, kinds, modules, tests)):
                found.setdefault((label, n.lineno), None)
    for label, line in _Taint(functions, (constants, modules), read, function, size_arguments).run():
        found.setdefault((label, line), None)
    return [(label, line, _line_text(sources, label, line)) for label, line in sorted(found, key=_order(sources))]


def _c_split_counts(fn):
    """The ids of `max(1, n // 4096)` written as np.split/np.array_split's number of parts: a floor on a count of
    blocks, which changes no sum (hostile37e r21), not a cap."""
    found = set()
    for n in ast.walk(fn):
        if _called(n) in ("split", "array_split") and len(n.args) > 1:
            count = n.args[1]
            if _called(count) in ("max", "maximum") and any(isinstance(a, ast.Constant) for a in count.args):
                found.add(id(count))
    return found


def _state_size(node):
    """Whether a subscript reads a size kept in the optimizer's state: ``state["t"]``."""
    return (
        isinstance(node.slice, ast.Constant)
        and node.slice.value in _SIZE_KEYS
        and isinstance(node.value, ast.Name)
        and node.value.id == "state"
    )


def _c_constants(sources):
    """({name: "const"} of the names bound only to constant-only expressions at the top of the sources, the names
    of numpy and math as imported)."""
    modules, assigned, other = set(_C_MODULES), {}, set()
    for _, tree in _trees(sources):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {a.asname or a.name for a in node.names if a.name in ("numpy", "math")}
            elif isinstance(node, ast.ImportFrom) and node.module in ("numpy", "math"):
                modules |= {a.asname or a.name for a in node.names}  # from math import log2, inf
        for node in _top_level(tree.body):
            targets, value = _binding(node)
            if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in targets):
                for t in targets:
                    assigned.setdefault(t.id, []).append(value)
            else:
                other |= _names_bound(node)
    # Every name bound at a cell's top level is constant-only, whatever its assignments (a loop that doubles CAP 20
    # times, hostile37d 2g-2i): it cannot depend on the inputs of a call. Its value is known where each of its
    # assignments folds to the same number (_c_value), else unknown, which rule c treats as large.
    kinds = {name: "const" for name in {*assigned, *other}}
    values = {}
    for _ in range(4):
        for name, found in assigned.items():
            folded = {_c_value(v, values, modules) for v in found} if name not in other else {None}
            if len(folded) == 1:
                values[name] = folded.pop()
    kinds[_C_VALUES] = values
    return kinds, modules


def _c_locals(fn, constants, modules, seeds):
    """{name: "size" or "const"} for ``fn``'s names: its arguments at ``seeds`` and those with a constant default, and
    the locals every assignment of which is a size or a constant (loop targets and other arguments are variables)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    kinds = dict(constants)
    variables = {a.arg for a in [*positional, *args.kwonlyargs, args.vararg, args.kwarg] if a is not None}
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    for name, default in defaults.items():
        if _c_kind(default, constants, modules) == "const":
            kinds[name] = "const"
            variables.discard(name)
    for i in seeds:
        if i < len(positional):
            kinds[positional[i].arg] = "size"
            variables.discard(positional[i].arg)
    assigned = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            variables |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}  # a loop index
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.ExceptHandler)):
            variables |= _names_stored(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    items = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else None
                    for k, t in enumerate(target.elts):
                        if isinstance(t, ast.Name):
                            value = items[k] if items is not None and len(items) == len(target.elts) else node.value
                            assigned.setdefault(t.id, []).append(value)
                        else:
                            variables |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            variables |= set(node.names)
    for name in variables:
        kinds.pop(name, None)
    for _ in range(4):  # names computed from sizes, from names computed from sizes, ...
        for name, values in assigned.items():
            if name in variables:
                continue
            found = [_c_kind(v, kinds, modules) for v in values]
            kind = _c_combined(found)
            if kind is None:
                kinds.pop(name, None)
            else:
                kinds[name] = kind
    known = dict(kinds.get(_C_VALUES, {}))  # the values of the constant-only locals (eps = 1e-12), for _c_large
    for name in variables:
        known.pop(name, None)
    for name, default in defaults.items():
        if kinds.get(name) == "const":
            known[name] = _c_value(default, known, modules)
    for _ in range(2):
        for name, values in assigned.items():
            if kinds.get(name) == "const":
                folded = {_c_value(v, known, modules) for v in values}
                known[name] = folded.pop() if len(folded) == 1 else None
    kinds[_C_VALUES] = known
    return kinds


def _names_stored(node):
    targets = []
    if isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    elif isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _c_combined(kinds):
    if any(k is None for k in kinds):
        return None
    return "size" if "size" in kinds else "const"


def _c_kind(node, kinds, modules):
    """The kind of an expression: "size" (derived from a size of the inputs), "const" (constant-only), or None (it
    holds a variable)."""
    _tick()
    if node is None:
        return "const"
    if isinstance(node, ast.Constant):
        return "const"
    if isinstance(node, ast.Name):
        return "const" if node.id in modules else kinds.get(node.id)
    if isinstance(node, ast.Attribute):
        if node.attr in _SIZE_ATTRIBUTES:
            return "size"
        if _called(node.value) in ("finfo", "iinfo"):
            return "const"  # np.finfo(o.dtype).maxexp: whatever its argument
        return _c_kind(node.value, kinds, modules)
    if isinstance(node, ast.Subscript):
        if _state_size(node):
            return "size"  # state["t"]
        return _c_combined([_c_kind(node.value, kinds, modules), _c_kind(node.slice, kinds, modules)])
    if isinstance(node, ast.Slice):
        return _c_combined([_c_kind(x, kinds, modules) for x in (node.lower, node.upper, node.step)])
    if isinstance(node, ast.Call):
        called = _called(node)
        if called in ("finfo", "iinfo"):
            return "const"
        if _c_counts(node, kinds, modules):
            return "size"
        if called in _C_SIZE_CALLS and (
            isinstance(node.func, ast.Name) or _c_kind(node.func.value, kinds, modules) == "const"
        ):
            return "size"
        f = node.func
        if isinstance(f, ast.Name):
            if f.id not in _C_BUILTINS and f.id not in modules:
                return None
            parts = []
        else:
            # np.arange(n), n.bit_length(), math.log2(n); a callee that is itself a call, a lambda, a subscript
            # (np.vectorize(math.exp)(x), (lambda z: z)(o): hostile37e, finding 1) is read as a whole
            parts = [_c_kind(f.value if isinstance(f, ast.Attribute) else f, kinds, modules)]
        parts += [_c_kind(a.value if isinstance(a, ast.Starred) else a, kinds, modules) for a in node.args]
        parts += [_c_kind(k.value, kinds, modules) for k in node.keywords]
        return _c_combined(parts)
    if isinstance(node, ast.BinOp):
        return _c_combined([_c_kind(node.left, kinds, modules), _c_kind(node.right, kinds, modules)])
    if isinstance(node, ast.UnaryOp):
        return _c_kind(node.operand, kinds, modules)
    if isinstance(node, ast.BoolOp):
        return _c_combined([_c_kind(v, kinds, modules) for v in node.values])
    if isinstance(node, ast.IfExp):
        return _c_combined([_c_kind(x, kinds, modules) for x in (node.test, node.body, node.orelse)])
    if isinstance(node, ast.Compare):
        return _c_combined([_c_kind(x, kinds, modules) for x in (node.left, *node.comparators)])
    if isinstance(node, (ast.Tuple, ast.List)):
        return _c_combined([_c_kind(x, kinds, modules) for x in node.elts])
    return None


def _c_counts(node, kinds, modules):
    """Whether a call counts items, a size however obtained (hostile37d, 2a-2f): np.count_nonzero(x == x),
    sum(1 for _ in xs), np.ones_like(x).sum(), np.ones(n).sum(), len(list(xs)) (len is a size already)."""
    called = _called(node)
    if called == "count_nonzero":
        return True
    if called == "sum" and isinstance(node.func, ast.Name) and node.args:
        first = node.args[0]
        return isinstance(first, (ast.GeneratorExp, ast.ListComp)) and _c_kind(first.elt, kinds, modules) == "const"
    if called in ("flatnonzero", "nonzero", "argwhere"):
        return True  # np.flatnonzero(u == u)[-1] + 1 (hostile37e, 2o)
    if called not in ("sum", "cumsum") or not isinstance(node.func, ast.Attribute):
        return False
    counted = node.func.value  # x.sum(), x.cumsum(); np.sum(x): x
    if isinstance(counted, ast.Name) and counted.id in modules:
        counted = node.args[0] if node.args else None
    if _called(counted) in ("ones_like", "ones", "full_like", "full"):
        return True  # np.ones_like(x).cumsum()[-1]
    # (o == o).sum(), np.sum(o == o): a comparison of a thing with itself counts its items (hostile37e, 2b)
    return (
        isinstance(counted, ast.Compare)
        and len(counted.comparators) == 1
        and ast.dump(counted.left) == ast.dump(counted.comparators[0])
    )


# Rule c, by what a size may do (issue 37, hostile37f finding 3; flipped to value-sinks by fix37l, hostile37g finding
# 3): a taint analysis over the graded function and the functions of the sources it calls, through their parameters
# (a helper is read again for each combination of tainted arguments). SOURCES: a size ("S") is len, .shape, .size,
# .ndim, counts, np.flatnonzero, state["t"], a size argument, a loop index of range/enumerate, a counter assigned an
# integer inside a loop over a size or a `while t:`. "S" stays "S" only while it is a PLAIN COUNT: sizes and integer
# constants through + - *, and len/sum/prod/int/float/np.array of them, min/max against -2..2. Anything else computed
# from a size is no plain count ("D"): a float constant (`o.size * 2.5e-07`), a division but by a size, a power, abs,
# exp, any module function but those, round/floor/int/`//`/`%`/shifts/bit ops/bit_length/str/bool/not/isfinite/sign,
# a narrow cast (np.float32(n), .astype, np.array(n, dtype=np.float32)), a comparison with a constant other than -2..2
# or of two sizes where either is no plain count, a cap at such a constant, and ANY CALL of a callee that is not a
# module function (np., math.), a known builtin or one of the sources' defs (a lambda, a name bound to one or to
# anything else, a function handed to map/filter/reduce/vectorize/frompyfunc/apply_along_axis/partial, a class with
# methods). A SCALE ("K") is 1 / n, np.sqrt(n), n ** -0.5, 1.0 / np.sqrt(n), or Adam's bias correction `1 - beta ** t`
# (`1 - np.power(beta, t)`, `-np.expm1(t * np.log(beta))`) with beta a parameter never rebound whose default, if any,
# is in (0, 1) and t a plain count. A VALUE of the inputs meets a size unlisted only as a MEAN or a SCALING: divided
# by a plain count or a scale, or multiplied by one; the result ("W", a value scaled by a size) goes on as a value,
# but a non-smooth step of it (round, int, a comparison with a constant, a cap at one, nan_to_num) makes it "D". A size
# that meets the inputs' values in any other way is MIXED ("M"): `o + n`, `x ** n`, a call of a value and a size.
# `0 * x` keeps x's taint. Every variable assigned inside a while whose test is size-like (but a plain `while t:`),
# or inside a loop over a stepped iterable, is "D" (control dependence). A VALUE STATISTIC of the inputs (max, min,
# ptp, norm) is "V"; it is stepped ("VD") only by the steps against constants, never by a clip. LISTED: a "D", "VD"
# or "M" value that reaches anything but an allowed sink, i.e. meets the inputs' values (arithmetic, a call with them,
# the graded function's return, a division by it, a store into an array, a stride, a lookup in a table written out),
# and a size-like or stepped value used as the test of an if (whose branches differ and do not only raise), a
# while, a conditional expression or np.where. ALLOWED SINKS: shape and count arguments of array constructors and
# reshapes (zeros, ones, empty, eye, identity, full's shape, arange, linspace's num, reshape, broadcast_to, tile,
# repeat, split, one_hot's size), axis-like keywords, range/enumerate bounds, subscripts and slice bounds (`a[:H]`,
# `x[t - 1]`, a flat index `np.arange(n) * V + y`), a comparison with another plain size or a variable, an assert, a
# raise, and a helper's parameter (read inside the helper). `flat // V`, `best % V`, np.divmod(best, V) are indices.

_T_STEPS = frozenset(
    {"round", "around", "floor", "ceil", "trunc", "rint", "fix", "int", "isqrt", "bit_length", "bit_count", "frexp",
     "modf", "divmod", "fmod", "remainder", "mod", "floor_divide", "floordiv", "right_shift", "left_shift", "rshift",
     "lshift", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "and_", "or_", "xor", "not_",
     "truth", "bool", "isfinite", "isnan", "isinf", "isposinf",
     "isneginf", "sign", "signbit", "copysign", "heaviside", "logical_not", "logical_and", "logical_or", "logical_xor",
     "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "gt", "ge", "lt", "le", "eq", "ne",
     "digitize", "searchsorted", "float16", "half", "float32", "single", "int8", "int16", "int32", "uint8", "uint16",
     "uint32", "uint64", "intc", "short", "byte", "ubyte", "ushort", "uintc", "nextafter", "spacing", "ldexp"}
)  # fmt: skip
_T_COMPARES = frozenset(  # comparison ufuncs and operator's functions: read as the comparison they make
    {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "eq", "ne", "gt", "ge", "lt", "le"}
)
_T_CHECKS = frozenset({"isfinite", "isnan", "isinf", "isposinf", "isneginf"})  # a step for a size, not a value
_T_TEXT = frozenset({"str", "repr", "format", "bin", "hex", "oct", "ascii"})  # stepped by len() or a comparison
_T_ROUNDS = frozenset({"round", "around", "floor", "ceil", "trunc", "rint", "fix", "int"})  # identity on a count
_T_NARROW = frozenset(
    {"float16", "half", "float32", "single", "int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "intc",
     "short", "byte", "ubyte", "ushort", "uintc", "f2", "f4", "i1", "i2", "i4", "u1", "u2", "u4", "u8", "e", "f"}
)  # fmt: skip
_T_STATISTICS = frozenset({"max", "amax", "nanmax", "min", "amin", "nanmin", "ptp", "norm"})
_T_POSITIONS = frozenset(
    {"argmax", "argmin", "argsort", "argpartition", "nanargmax", "nanargmin", "lexsort", "nlargest", "nsmallest"}
)
_T_BLANK = frozenset(
    {"zeros", "ones", "empty", "eye", "identity", "zeros_like", "ones_like", "empty_like", "tri", "rand", "randn",
     "random", "random_sample", "standard_normal", "normal", "uniform", "integers", "binomial", "default_rng"}
)  # fmt: skip
_T_SHAPED = frozenset({"reshape", "broadcast_to", "tile", "repeat", "resize", "split", "array_split", "hsplit",
                       "vsplit", "dsplit", "one_hot", "take"})  # fmt: skip
_T_SINKS = {  # call: (the positions, the keywords) where a size (even a stepped one) is a shape, a count or a bound
    "zeros": ((0,), ("shape",)), "ones": ((0,), ("shape",)), "empty": ((0,), ("shape",)), "full": ((0,), ("shape",)),
    "eye": ((0, 1, 2), ("N", "M", "k")), "identity": ((0,), ("n",)), "tri": ((0, 1, 2), ("N", "M", "k")),
    "arange": ((0, 1, 2), ("start", "stop", "step")), "linspace": ((2,), ("num",)), "range": ((0, 1, 2), ()),
    "enumerate": ((1,), ("start",)), "reshape": (None, ("shape", "newshape")), "broadcast_to": ((1,), ("shape",)),
    "tile": ((1,), ("reps",)), "repeat": ((1,), ("repeats",)), "resize": (None, ("new_shape",)),
    "split": ((1,), ("indices_or_sections",)), "array_split": ((1,), ("indices_or_sections",)),
    "one_hot": ((1,), ("num_classes",)), "zeros_like": ((), ("shape",)), "ones_like": ((), ("shape",)),
    "empty_like": ((), ("shape",)), "full_like": ((), ("shape",)), "take": ((1,), ("indices",)),
    "randn": (None, ()), "rand": (None, ()), "standard_normal": ((0,), ("size",)), "normal": ((2,), ("size",)),
    "uniform": ((2,), ("size",)), "random": ((0,), ("size",)), "integers": ((2,), ("size",)),
    "unravel_index": ((1,), ("shape",)), "ravel_multi_index": ((1,), ("dims",)),
    "bincount": ((2,), ("minlength",)),  # np.bincount([y], minlength=len(o)): a one-hot (hostile37q, G)
}  # fmt: skip
_T_SIZED = frozenset({"S", "M", "D", "K", "W"})
_T_STEPPED = frozenset({"D", "VD"})
_T_LISTED = frozenset({"D", "VD", "M"})  # listed where they meet the inputs' values or are returned
_T_SCALES = frozenset({"S", "K"})  # a plain count, a scale (1 / n, np.sqrt(d), 1 - beta ** t): a mean or a scaling
_T_KEEPS = frozenset(  # calls that keep a plain count a plain count (float(n) is exact, np.array(n) is n)
    {"len", "sum", "prod", "size", "shape", "ndim", "count_nonzero", "int", "float", "int64", "intp", "int_",
     "float64", "float_", "double", "array", "asarray", "asanyarray", "list", "tuple", "sorted", "reversed", "zip",
     "range", "enumerate", "item", "tolist", "copy", "ravel", "flatten", "cumsum", "next", "iter", "index", "encode"}
)  # fmt: skip
_T_ROOTS = frozenset({"sqrt"})  # np.sqrt(d), math.sqrt(d): a scale
_T_HANDED = frozenset(  # a function handed on as a value: what it does to a size is not read
    {"map", "filter", "reduce", "starmap", "accumulate", "vectorize", "frompyfunc", "apply_along_axis",
     "apply_over_axes", "partial", "piecewise", "call", "methodcaller", "attrgetter", "itemgetter", "getattr"}
)  # fmt: skip
_T_BUILTINS = frozenset(
    {"int", "float", "round", "abs", "str", "bool", "min", "max", "pow", "divmod", "sum", "len", "range",
     "enumerate", "zip", "list", "tuple", "sorted", "reversed", "next", "iter", "isinstance", "print", "dict", "set",
     "any", "all", "repr", "format", "bin", "hex", "oct", "ascii", "complex", "slice", "type", "hash", "id"}
)  # fmt: skip
_T_AXES = frozenset({"axis", "axes", "keepdims", "dtype", "out", "ord", "shape", "size", "num", "newshape", "n"})


def _t_join(*taints):
    found = {t for t in taints if t}
    for t in ("D", "VD", "M"):
        if t in found:
            return t
    if "K" in found:
        return "M" if "V" in found or "W" in found else "K"
    if "S" in found:
        return "M" if "V" in found or "W" in found else "S"
    if "W" in found:
        return "W"
    return "V" if "V" in found else None


def _t_step(taint):
    return "D" if taint in _T_SIZED else "VD" if taint in ("V", "VD") else None


def _t_trivial(value):
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and float(value).is_integer() and -2 <= value <= 2


def _t_text(node):
    """Whether ``node`` is text: an f-string, str(...), repr(...), str(...).encode()."""
    while _called(node) in ("encode", "decode", "upper", "lower", "strip") and isinstance(node.func, ast.Attribute):
        node = node.func.value
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _T_TEXT
    return isinstance(node, ast.JoinedStr) or called


def _t_plain_count(node):
    """Whether an expression is a plain count: no float constant, no division, power or call but len, sum, size."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, float) and not n.value.is_integer():
            return False
        if isinstance(n, ast.BinOp) and not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
            return False
        if isinstance(n, ast.Call) and _called(n) not in ("len", "sum", "size", "count_nonzero", "int", "prod"):
            return False
    return True


class _Taint:
    """The taint analysis of rule c (the comment above): ``listed`` collects (label, node) of the listed uses."""

    def __init__(self, functions, constants, kinds, function, size_arguments):
        self.constants, self.modules = constants
        self.kinds = kinds  # {id(function): its _c_locals}, as size_comparisons read them
        self.defs, self.classes = {}, {}
        for label, node in functions:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs[node.name] = (label, node)
            elif isinstance(node, ast.ClassDef):  # {name: whether it has methods}
                self.classes[node.name] = any(isinstance(n, (ast.FunctionDef, ast.Lambda)) for n in ast.walk(node))
        self.function, self.size_arguments = function, tuple(size_arguments)
        self.memo, self.listed = {}, {}

    def run(self):
        for name, (_, fn) in self.defs.items():
            positional = [*fn.args.posonlyargs, *fn.args.args]
            seeds = [None] * len(positional)
            if name == self.function:
                for i in self.size_arguments:
                    if i < len(seeds):
                        seeds[i] = "S"
            self.analyze(name, tuple(seeds))
        return self.listed

    def analyze(self, name, seeds):
        key = (name, seeds)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a recursion reads None
        label, fn = self.defs[name]
        reader = _TaintReader(self, label, fn, seeds, name == self.function)
        result = reader.read()
        self.memo[key] = result
        return result


class _TaintReader:
    def __init__(self, owner, label, fn, seeds, graded):
        self.owner, self.label, self.fn, self.graded = owner, label, fn, graded
        self.modules = owner.modules
        self.kinds = owner.kinds.get(id(fn)) or _c_locals(fn, owner.constants, owner.modules, ())
        positional = [*fn.args.posonlyargs, *fn.args.args]
        self.env = {}
        for a, t in zip(positional, seeds):
            if t:
                self.env[a.arg] = t
        self.parents, self.cache, self._counting, self._counters = {}, None, set(), {}
        for n in ast.walk(fn):
            for child in ast.iter_child_nodes(n):
                self.parents[id(child)] = n

    def const(self, node):
        key = ("const", id(node))
        if self.cache is not None and key in self.cache:
            return self.cache[key]
        found = _c_kind(node, self.kinds, self.modules) == "const" and self.taint(node) is None
        if self.cache is not None:
            self.cache[key] = found
        return found

    def value(self, node):
        return _c_value(node, self.kinds.get(_C_VALUES, {}), self.modules)

    # -- the names' taints (flow-insensitive, to a fixed point)
    def read(self):
        for _ in range(5):
            before = dict(self.env)
            self.assign_all()
            if self.env == before:
                break
        self.cache = {}
        self.check()
        found = [self.taint(n.value) for n in ast.walk(self.fn) if isinstance(n, ast.Return) and n.value is not None]
        return _t_join(*found)

    def put(self, name, taint):
        if taint:
            self.env[name] = _t_join(self.env.get(name), taint)

    def bind(self, target, taint, value=None):
        if isinstance(target, ast.Name):
            self.put(target.id, taint)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            for k, t in enumerate(target.elts):
                if items is not None and len(items) == len(target.elts):
                    self.bind(t, self.taint(items[k]), items[k])
                else:
                    self.bind(t.value if isinstance(t, ast.Starred) else t, taint)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, taint)

    def loop_target(self, target, iterable):
        """A for or comprehension target: the index of range/enumerate is size-like; the rest has the iterable's
        taint."""
        called = _called(iterable)
        if called == "reversed" and iterable.args:
            iterable, called = iterable.args[0], _called(iterable.args[0])
        it = self.taint(iterable)
        if called == "range":
            self.bind(target, _t_join("S", it))
        elif called == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.bind(target.elts[0], _t_join("S", it if it in _T_STEPPED else None))
            self.bind(target.elts[1], self.taint(iterable.args[0]) if iterable.args else None)
        else:
            self.bind(target, it)

    def control(self, node):
        """The taint that control dependence gives what ``node`` assigns: stepped inside a while whose test is
        size-like or a for over a stepped iterable; size-like for a constant inside a for over a size."""
        found, child, p = None, node, self.parents.get(id(node))
        while p is not None and p is not self.fn:
            if isinstance(p, ast.While) and child is not p.test:  # an if's test is listed itself
                t = self.taint(p.test)
                if t == "S" and not isinstance(p.test, (ast.Compare, ast.BoolOp)):
                    found = "S"  # `while t: ... t -= 1`: a plain count of steps, as a for over range(T)
                elif t in (*_T_SIZED, "VD"):
                    return "D"
            elif isinstance(p, ast.For) and child is not p.iter and child is not p.target:
                t = self.taint(p.iter)
                if t in _T_STEPPED:
                    return "D"
                if t in _T_SIZED or _called(p.iter) in ("range", "enumerate", "reversed"):
                    found = "S"
            child, p = p, self.parents.get(id(p))
        return found

    def assign_all(self):
        for n in ast.walk(self.fn):
            _tick()
            if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                self.cache = {}
                self.loop_target(n.target, n.iter)
                self.cache = None
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
                self.cache = {}  # the names do not change while one value is read
                t = self.taint(n.value)
                if isinstance(n, ast.AugAssign) and isinstance(
                    n.op, (ast.FloorDiv, ast.Mod, ast.RShift, ast.LShift, ast.BitAnd, ast.BitOr, ast.BitXor)
                ):
                    t = _t_step(_t_join(t, self.taint(n.target))) if isinstance(n.target, ast.Name) else t
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    whole = ast.BinOp(left=ast.Name(id=n.target.id, ctx=ast.Load()), op=n.op, right=n.value)
                    t = self.taint(ast.copy_location(whole, n))  # `loss /= T`: a mean, as `loss = loss / T`
                c = self.control(n)
                if c == "S" and self.const(n.value) and not self.plain_const(n.value):
                    c = "D"  # a counter that adds 0.001 per step is no plain count
                if c == "D" or (c == "S" and self.const(n.value)):
                    t = _t_join(t, c)
                self.cache = None
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for target in targets:
                    self.bind(target, t, n.value)

    # -- the taint of an expression
    def taint(self, node):
        _tick()
        if self.cache is not None and id(node) in self.cache:
            return self.cache[id(node)]
        found = self._taint(node)
        if self.cache is not None:
            self.cache[id(node)] = found
        return found

    def _taint(self, node):
        if node is None or isinstance(node, (ast.Constant, ast.Lambda)):
            return None
        if isinstance(node, ast.Name):
            return None if node.id in self.modules and node.id not in self.env else self.env.get(node.id)
        if isinstance(node, ast.Attribute):
            on_module = isinstance(node.value, ast.Name) and node.value.id in self.modules
            if node.attr in _SIZE_ATTRIBUTES and not on_module:
                return "S"
            if node.attr == "dtype" or _called(node.value) in ("finfo", "iinfo"):
                return None
            return self.taint(node.value)
        if isinstance(node, ast.Subscript):
            if _state_size(node):
                return "S"
            index = self.taint(node.slice)
            if index in _T_STEPPED and self.const(node.value):
                return index  # a table of constants looked up by a stepped size
            return self.taint(node.value)
        if isinstance(node, ast.Slice):
            return _t_join(*(self.taint(x) for x in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Starred):
            return self.taint(node.value)
        if isinstance(node, ast.NamedExpr):
            return self.taint(node.value)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return self.side_by_side(node.values if isinstance(node, ast.Dict) else node.elts)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.taint(node.elt)
        if isinstance(node, ast.DictComp):
            return self.taint(node.value)
        if isinstance(node, ast.JoinedStr):
            return _t_join(*(self.taint(v) for v in node.values))
        if isinstance(node, ast.FormattedValue):
            return self.taint(node.value)
        if self.bias(node):
            return "K"  # Adam's bias correction 1 - beta1 ** t: a scale
        if isinstance(node, ast.UnaryOp):
            t = self.taint(node.operand)
            return _t_step(t) if isinstance(node.op, (ast.Not, ast.Invert)) else t
        if isinstance(node, ast.BoolOp):
            return _t_join(*(self.taint(v) for v in node.values))
        if isinstance(node, ast.IfExp):
            return _t_join(self.taint(node.body), self.taint(node.orelse))  # its test is listed as a condition
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Await):
            return self.taint(node.value)
        return None

    def side_by_side(self, items):
        """The taint of a tuple, list, set or dict of ``items``: held side by side, not mixed (`(new, {"t": t})`)."""
        taints = [self.taint(x) for x in items]
        t = _t_join(*taints)
        return "W" if t == "M" and "M" not in taints else t

    def mix(self, parts):
        """The taint of a value computed from ``parts``: a size with the inputs' values is "M"."""
        taints = [self.taint(p) for p in parts]
        data = any(t is None and not self.const(p) for p, t in zip(parts, taints))
        t = _t_join(*taints)
        if t in _T_STEPPED and (data or any(k in ("V", "M", "W") for k in taints)):
            return None  # a stepped size met the inputs' values: listed there (use), not again downstream
        if "M" in taints and (data or "V" in taints or "W" in taints):
            return None  # a mixed value met the inputs' values again: listed there
        if t == "M" or (t in _T_SCALES and data):
            return "M"  # a size met the inputs' values by something that is not a mean or a scaling
        if t == "W":
            return "W"
        if t in _T_SCALES and not all(k or self.plain_const(p) for p, k in zip(parts, taints)):
            return "D"  # a size with a float constant (o.size * 2.5e-07): no longer a plain count
        return t

    def bias(self, node):
        """Whether ``node`` is Adam's bias correction: `1 - beta ** t`, `1 - np.power(beta, t)` or
        `-np.expm1(t * np.log(beta))`, beta a parameter (its default, if any, in (0, 1)) and t a plain count."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and self.value(node.left) == 1:
            power = node.right
            if isinstance(power, ast.BinOp) and isinstance(power.op, ast.Pow):
                base, exponent = power.left, power.right
            elif _called(power) in ("power", "pow", "float_power") and len(power.args) == 2:
                base, exponent = power.args
            else:
                return False
            return self.taint(exponent) == "S" and self.beta(base)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _called(node.operand) == "expm1":
            inner = node.operand.args[0] if node.operand.args else None
            if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult):
                for count, log in ((inner.left, inner.right), (inner.right, inner.left)):
                    if self.taint(count) == "S" and _called(log) == "log" and log.args and self.beta(log.args[0]):
                        return True
        return False

    def beta(self, node, depth=0):
        """Whether ``node`` names a parameter with no default or a default in (0, 1): never rebound, or bound once to
        itself or to such a parameter, as it is or through float() (`b1, b2 = beta1, beta2`,
        `beta1 = float(beta1)`: hostile37h, finding 6b)."""
        if not isinstance(node, ast.Name) or depth > 3:
            return False
        if node.id not in self.stored():
            return self.parameter_beta(node.id)
        source = self.bound_once(node.id)
        while _called(source) in ("float", "float64", "double") and len(source.args) == 1 and not source.keywords:
            source = source.args[0]
        if not isinstance(source, ast.Name):
            return False
        return self.parameter_beta(node.id) if source.id == node.id else self.beta(source, depth + 1)

    def parameter_beta(self, name):
        """Whether ``name`` is a decay rate of the graded function: a parameter with a default in (0, 1), or named
        beta, beta1 or beta2 (Adam's), not a helper's parameter, which a call could give any value."""
        if not self.graded:
            return False
        args = self.fn.args
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
        defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
        if name not in {a.arg for a in [*positional, *args.kwonlyargs]}:
            return False
        if name not in defaults:
            return name in ("beta", "beta1", "beta2")
        value = self.value(defaults[name])
        return isinstance(value, float) and 0 < value < 1

    def bound_once(self, name):
        """The expression a name is bound to, where the function binds it exactly once, by a plain assignment (a name,
        or one place of a tuple assigned a tuple as long); else None."""
        stores = [
            n for n in ast.walk(self.fn) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        ]
        if len(stores) != 1:
            return None
        for n in ast.walk(self.fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target = n.targets[0]
                if target is stores[0]:
                    return n.value
                if isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple):
                    if len(target.elts) == len(n.value.elts) and stores[0] in target.elts:
                        return n.value.elts[target.elts.index(stores[0])]
        return None

    def integer(self, node, depth=0):
        """Whether ``node`` is always an integer (never inf or nan): integer constants, sizes, len/int/round, and
        + - * // % and bit operations of them, through names every assignment of which is one."""
        if depth > 8:
            return False
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int)
        if isinstance(node, ast.Attribute):
            return node.attr in ("size", "ndim")
        if isinstance(node, ast.Subscript):
            return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
        if isinstance(node, ast.Call):
            single = len(node.args) == 1 and not node.keywords
            return isinstance(node.func, ast.Name) and node.func.id in ("len", "int", "round") and single
        if isinstance(node, ast.UnaryOp):
            return self.integer(node.operand, depth + 1)
        if isinstance(node, ast.BinOp):
            ops = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr)
            both = self.integer(node.left, depth + 1) and self.integer(node.right, depth + 1)
            return isinstance(node.op, ops) and both
        if isinstance(node, ast.Name):
            values = [
                n.value
                for n in ast.walk(self.fn)
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
            ]
            stored = [n for n in ast.walk(self.fn) if isinstance(n, ast.Name) and n.id == node.id]
            counted = [  # a loop index of range(...)
                n for n in ast.walk(self.fn)
                if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name)
                and n.target.id == node.id and _called(n.iter) == "range"
            ]  # fmt: skip
            values += [ast.Constant(0) for _ in counted]
            others = sum(isinstance(n.ctx, ast.Store) for n in stored) != len(values)  # a loop target, an AugAssign
            return bool(values) and not others and all(self.integer(v, depth + 1) for v in values)
        return False

    def plain_const(self, node):
        """Whether ``node`` is a constant a plain count may meet: an integer (1, 4, 2.0), not 2.5e-07."""
        if not self.const(node):
            return False
        v = self.value(node)
        return isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()

    def counter(self, node):
        """Whether ``node`` names a counter that holds no value of the inputs: bound only to integer constants
        (`N = 0`) and to itself plus, minus or times plain counts or integer constants (`N += L`, `N = N + L`),
        nowhere else (a loop target, a with). A masked loss's token count summed over `lengths` in a loop is one
        (hostile37i, R1); one that adds a value of the inputs is not."""
        if not isinstance(node, ast.Name) or self.env.get(node.id) or node.id in self._counting:
            return False
        if node.id not in self._counters:
            self._counters[node.id] = self._counter_additions(node.id)
        added = self._counters[node.id]
        if added is None:
            return False
        self._counting.add(node.id)  # `A += B` and `B += A`: each read once
        try:
            taints = [(v, self.taint(v)) for v in added]
            return all(t in _T_SCALES or (t is None and self.plain_const(v)) for v, t in taints)
        finally:
            self._counting.discard(node.id)

    def _counter_additions(self, name):
        """What ``counter`` adds to ``name``, a list of expressions, if it is bound only as a counter is; else None."""
        stores = sum(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(self.fn)
        )
        added, starts = [], 0
        for n in ast.walk(self.fn):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
                if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
                    return None
                added.append(n.value)
            elif isinstance(n, ast.Assign):
                for target in n.targets:
                    pairs = [(target, n.value)]
                    if isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple):
                        if len(target.elts) == len(n.value.elts):
                            pairs = list(zip(target.elts, n.value.elts))
                    for t, v in pairs:
                        if not (isinstance(t, ast.Name) and t.id == name):
                            continue
                        if self.plain_const(v) and isinstance(self.value(v), int):
                            starts += 1
                        elif (
                            isinstance(v, ast.BinOp)
                            and isinstance(v.op, (ast.Add, ast.Sub, ast.Mult))
                            and isinstance(v.left, ast.Name)
                            and v.left.id == name
                        ):
                            added.append(v.right)
                        else:
                            return None
        return added if starts and starts + len(added) == stores else None  # else bound somewhere else too

    def stored(self):
        if not hasattr(self, "_stored"):
            self._stored = {n.id for n in ast.walk(self.fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return self._stored

    def binop(self, node):
        left, right = self.taint(node.left), self.taint(node.right)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right in ("S", "M") and not self.const(node.left):
            return left  # `flat // V`, `best % V`: an index of a flattened array, not a threshold
        if isinstance(node.op, (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)):
            if isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) or left or self.const(node.left):
                return _t_step(_t_join(left, right))
            return right if right in _T_STEPPED else None
        if isinstance(node.op, ast.Add) and any(_t_text(x) for x in (node.left, node.right)):
            return None  # bytes + str(shape).encode(): text joined, not a number (len() of text is a step)
        sides = ((node.left, left), (node.right, right))
        counted = [t is None and self.counter(x) for x, t in sides]  # a counter's taint is None (hostile37i, R1)
        data = [t in (None, "V", "W") and not self.const(x) and not c for (x, t), c in zip(sides, counted)]
        scale = [t in _T_SCALES or (t is None and (self.plain_const(x) or c)) for (x, t), c in zip(sides, counted)]
        pairs = ((node.left, node.right), (node.right, node.left))
        if isinstance(node.op, ast.Mult) and any(
            self.const(x) and self.value(x) == 0 and self.integer(y) for x, y in pairs
        ):
            return None  # `0 * (len(o) % 7)`: an integer is never inf or nan, so nothing of it is left
        if isinstance(node.op, ast.Div) and right in _T_SCALES and data[0]:
            return "W"  # a mean, a scaling by a size: `total / T`, `x / np.sqrt(d)`
        if isinstance(node.op, ast.Mult) and data[0] != data[1] and (scale[0] or scale[1]) and (left or right):
            return "W"  # `scores * (1.0 / np.sqrt(d))`, `np.mean(g * g) * g.size`
        if isinstance(node.op, ast.Pow) and left in _T_SCALES and right is None:
            if self.const(node.right) and self.value(node.right) in (0.5, -0.5, -1):
                return "K"  # d ** -0.5
        if all(scale) and (left or right):  # sizes and integer constants only
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                return "K" if "K" in (left, right) else "S"
            if isinstance(node.op, ast.Div) and right in _T_SCALES:
                return "K"  # 1 / n, 1.0 / np.sqrt(d)
            return "D"
        return self.mix([node.left, node.right])

    def constants_of(self, sides):
        """The values of the constants a comparison or cap holds: its constant sides and the numbers written in its
        other sides (not a subscript's index)."""
        values = []
        for side in sides:
            if self.const(side):
                values.append(self.value(side))
                continue
            todo = [side]
            while todo:
                n = todo.pop()
                if isinstance(n, ast.Constant):
                    values.append(n.value if isinstance(n.value, (int, float)) else 0)
                elif isinstance(n, ast.Subscript):
                    todo.append(n.value)
                elif isinstance(n, ast.Call):
                    todo += n.args
                elif isinstance(n, ast.Attribute):
                    todo.append(n.value)
                elif isinstance(n, ast.expr):
                    todo += [c for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr)]
        return values

    def compare(self, node):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return None
        sides = [node.left, *node.comparators]
        taints = [self.taint(s) for s in sides]
        if not any(taints):
            return None
        if any(k in ("D", "K") for k in taints):
            return "D"  # a size that is no plain count, compared with anything (a float32 copy of n with n)
        constant = [s for s, t in zip(sides, taints) if not t and self.const(s)]
        if not constant:
            return None  # a plain size with another size or a variable
        t = _t_join(*taints)
        if t in _T_STEPPED:
            return t
        values = self.constants_of([s for s, k in zip(sides, taints) if k] + constant)
        ranks = all(_is_rank(s, set()) for s, k in zip(sides, taints) if k)  # x.ndim == 3: the cases hold 1 to 3
        if all(_t_trivial(v) or (ranks and v == 3) for v in values):
            return None
        return _t_step(t)

    def call(self, node):
        called, f = _called(node), node.func
        module = isinstance(f, ast.Attribute) and (
            (isinstance(f.value, ast.Name) and f.value.id in self.modules and f.value.id not in self.env)
            or (isinstance(f.value, ast.Attribute) and f.value.attr in ("random", "linalg", "lib"))
        )
        receiver = f.value if isinstance(f, ast.Attribute) and not module else None
        args = [a for a in node.args]
        keywords = {k.arg: k.value for k in node.keywords}
        if isinstance(f, ast.Name) and f.id in self.owner.defs and f.id not in self.env:
            _, fn = self.owner.defs[f.id]
            positional = [*fn.args.posonlyargs, *fn.args.args]
            seeds = [None] * len(positional)
            for i, a in enumerate(args):
                if i < len(seeds) and not isinstance(a, ast.Starred):
                    seeds[i] = self.taint(a)
            for i, p in enumerate(positional):
                if p.arg in keywords:
                    seeds[i] = self.taint(keywords[p.arg])
            return self.owner.analyze(f.id, tuple(seeds))
        if called in ("finfo", "iinfo", "dtype", "result_type") or called in _T_POSITIONS:
            return None
        compared = called if called in _T_COMPARES else None
        if called == "outer" and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute):
            compared = f.value.attr if f.value.attr in _T_COMPARES else None  # np.equal.outer(y, np.arange(n))
        if compared and len(args) == 2 and not any(isinstance(a, ast.Starred) for a in args):
            # np.equal(a, b), operator.eq(a, b): read as a == b is (hostile37j: a one_hot by np.equal.outer)
            whole = ast.Compare(left=args[0], ops=[ast.Eq()], comparators=[args[1]])
            return self.compare(ast.copy_location(whole, node))
        builtin = (
            isinstance(f, ast.Name)
            and f.id in _T_BUILTINS
            and f.id not in self.env
            and f.id not in self.stored()
            and f.id not in self.owner.constants
        )
        if builtin and f.id == "dict" and not args and None not in keywords:
            # dict(t=t, m=m, v=v): read as the literal {"t": t, ...} is, items side by side (hostile37k: Adams)
            return self.side_by_side(keywords.values())
        sized = [a for a in [*args, *node.keywords] if self.taint(getattr(a, "value", a)) in _T_SIZED]
        sized = [a for a in sized if not self.sink(node, a)]
        if isinstance(f, ast.Name) and f.id in self.owner.classes and f.id not in self.env:
            if sized and self.owner.classes[f.id]:
                return "D"  # a class whose methods would get the size: not read
            return _t_join(*(self.taint(a) for a in [*args, *keywords.values()]))  # a dataclass holds them
        if sized and (called in _T_HANDED or not (module or builtin or receiver is not None)):
            return "D"  # a lambda, a name bound to anything, a function handed to map: not read
        dtype = keywords.get("dtype")
        if called in ("array", "asarray", "asanyarray", "full", "full_like", "ascontiguousarray") and dtype is not None:
            name = (dtype.attr if isinstance(dtype, ast.Attribute) else dtype.id if isinstance(dtype, ast.Name)
                    else dtype.value if isinstance(dtype, ast.Constant) else None)  # fmt: skip
            if name in _T_NARROW:
                return _t_step(_t_join(*(self.taint(a) for a in [*args[:2], keywords.get("fill_value")])))
        if called in _T_ROOTS and (module or isinstance(f, ast.Name)) and args:
            t = self.taint(args[0])
            return "K" if t in _T_SCALES else t  # np.sqrt(d): a scale; np.sqrt of a value is that value
        if _c_counts(node, self.kinds, self.modules):
            return "S"
        inner = [self.taint(a) for a in [*args, *keywords.values()]]
        if called == "len" and isinstance(f, ast.Name):
            t = _t_join(*inner)
            text = args and any(isinstance(n, ast.JoinedStr) or _called(n) in _T_TEXT for n in ast.walk(args[0]))
            return t if t in _T_STEPPED else _t_step(t) if text else "S"  # len(str(n)): its number of digits
        if called in _T_TEXT:
            return _t_join(*(self.taint(a) for a in [*([receiver] if receiver is not None else []), *args]))
        if called in ("size", "shape", "ndim") and (module or isinstance(f, ast.Name)):
            return "S"
        every = [*([receiver] if receiver is not None else []), *args, *keywords.values()]
        whole = _t_join(*(self.taint(a) for a in every))
        if called == "astype":
            dtype = args[0] if args else keywords.get("dtype")
            name = (dtype.attr if isinstance(dtype, ast.Attribute) else dtype.id if isinstance(dtype, ast.Name)
                    else dtype.value if isinstance(dtype, ast.Constant) else None)  # fmt: skip
            return _t_step(whole) if name in _T_NARROW else whole
        if called in _T_ROUNDS:
            first = args[0] if args else None
            if whole == "S" and first is not None and len(args) == 1 and _t_plain_count(first):
                return "S"  # int(lengths.sum()): a count stays a count
            return _t_step(whole)
        if called in ("divmod", "floor_divide", "mod", "remainder", "fmod") and len(args) == 2:
            left, right = self.taint(args[0]), self.taint(args[1])
            if right in ("S", "M") and not self.const(args[0]):
                return left  # np.divmod(best, V): an index of a flattened array
        if called in _T_CHECKS and whole in ("V", "M", "W"):
            return whole  # np.isfinite(scores.max()): a value checked, not a size
        if called == "nan_to_num" and whole == "W":
            return "D"  # np.nan_to_num(0 * np.exp(n * c)): an overflow of a value scaled by a size, caught
        if called in _T_STEPS:
            return _t_step(whole)
        if called in _C_CAPS and (len(args) > 1 or called == "clip" or any(k in keywords for k in ("a_min", "a_max"))):
            return self.cap(every, whole)
        if called in _T_STATISTICS:
            return _t_join(whole, "V") if whole not in _T_SIZED else whole
        if called in _T_BLANK:
            return None
        if called in ("full", "full_like"):
            fill = args[1] if len(args) > 1 else keywords.get("fill_value")
            return self.taint(fill)
        if called == "arange":
            return "S" if whole in _T_STEPPED else whole
        if called == "linspace":
            return _t_join(*(self.taint(a) for a in args[:2]))
        if called in _T_SHAPED:
            if receiver is not None:
                return self.taint(receiver)
            return self.taint(args[0]) if args else None
        if called == "where" and len(args) == 3:
            return _t_join(*(self.taint(a) for a in args))
        parts = [*([receiver] if receiver is not None else []), *[a for a in args if not self.sink(node, a)]]
        parts += [k.value for k in node.keywords if k.arg not in _T_AXES and not self.sink(node, k)]
        if _t_join(*(self.taint(a) for a in parts)) in _T_SCALES and called not in _T_KEEPS:
            return "D"  # np.exp(n), abs(n), math.log2(n): a size no longer a plain count
        return self.mix(parts)  # a shape or a count handed on (one_hot(y, n)) is left out

    def cap(self, sides, whole):
        """min/max/clip: a size capped at a constant other than -2..2 is stepped; a value or a mixed one is not."""
        taints = [self.taint(s) for s in sides]
        constant = [s for s, t in zip(sides, taints) if not t and self.const(s)]
        if whole in _T_STEPPED or not constant or whole not in ("S", "W"):
            return whole
        values = self.constants_of([s for s, t in zip(sides, taints) if t] + constant)
        return whole if all(_t_trivial(v) for v in values) else "D"

    # -- the listed uses
    def check(self):
        for n in ast.walk(self.fn):
            _tick()
            if isinstance(n, (ast.If, ast.While, ast.IfExp)):
                self.condition(n, n.test)
            elif isinstance(n, ast.comprehension):
                for test in n.ifs:
                    self.condition(n, test)
            elif isinstance(n, ast.Call) and _called(n) == "where" and n.args:
                self.condition(n, n.args[0])
            if isinstance(getattr(n, "ctx", None), (ast.Store, ast.Del)):
                continue
            if isinstance(n, ast.expr) and self.taint(n) in _T_LISTED:
                self.use(n)

    def condition(self, node, test):
        t = self.taint(test)
        if t not in (*_T_SIZED, "VD"):
            return
        if t == "S" and not isinstance(test, (ast.Compare, ast.BoolOp)):
            return  # a size's own truth, `if o.size`, `h if t else h0`: `!= 0`, which switches at no threshold
        if t == "W" and _called(test) in _T_CHECKS:
            return  # np.where(np.isfinite(m), m, 0.0) of scaled scores: a value checked
        if isinstance(node, ast.If):
            if (all(isinstance(s, ast.Raise) for s in node.body) and not node.orelse) or (
                [ast.dump(s) for s in node.body] == [ast.dump(s) for s in node.orelse]
            ):
                return
        elif isinstance(node, ast.IfExp) and ast.dump(node.body) == ast.dump(node.orelse):
            return
        self.owner.listed.setdefault((self.label, test.lineno), None)

    def use(self, node):
        """List a stepped value where it meets anything but an allowed sink or a size."""
        up = self.parents.get(id(node))
        while up is not None and not isinstance(up, ast.stmt):
            up = self.parents.get(id(up))
        if isinstance(up, ast.Assert):
            return  # an assert can only stop the call, never change what it returns (hostile37h, finding 6c)
        child, p = node, self.parents.get(id(node))
        if isinstance(p, ast.Slice) and node is p.step and self.taint(node) in _T_STEPPED:
            self.owner.listed.setdefault((self.label, node.lineno), None)  # a stride switched by a size
            return
        while isinstance(p, (ast.Tuple, ast.List, ast.Starred, ast.Slice, ast.keyword)):
            child, p = p, self.parents.get(id(p))
        if p is None:
            return
        if isinstance(p, ast.Subscript):
            table = p.value.args[0] if _called(p.value) in ("array", "asarray") and p.value.args else p.value
            if child is p.slice and isinstance(table, (ast.List, ast.Tuple, ast.Dict)) and self.taint(node) != "S":
                pass  # a table written out, looked up by a stepped size: listed
            else:
                return  # an index, a slice bound (a table of constants: p is stepped and read on)
        if isinstance(p, ast.Call):
            if self.sink(p, child):
                return
            if isinstance(p.func, ast.Name) and p.func.id in self.owner.defs and p.func.id not in self.env:
                return  # a helper's parameter: read inside the helper
            if self.plain(p, [*([p.func.value] if isinstance(p.func, ast.Attribute) else []), *p.args,
                              *(k.value for k in p.keywords if k.arg not in _T_AXES)]):  # fmt: skip
                return
        elif isinstance(p, ast.Compare):
            if self.compare(p) is None:
                return  # against another size or a variable
            return
        elif isinstance(p, ast.BinOp):
            if isinstance(p.op, ast.Div) and child is p.right:
                pass
            elif self.plain(p, [p.left, p.right]):
                return
        elif isinstance(p, (ast.UnaryOp, ast.BoolOp, ast.FormattedValue, ast.JoinedStr, ast.NamedExpr)):
            return
        elif isinstance(p, ast.IfExp):
            if child is p.test:
                return  # listed as a condition
            if self.plain(p, [p.body, p.orelse]):
                return
        elif isinstance(p, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and child is p.value:
            targets = p.targets if isinstance(p, ast.Assign) else [p.target]
            if all(isinstance(t, (ast.Name, ast.Tuple, ast.List, ast.Starred)) for t in targets):
                return  # a name: its uses are read
        elif isinstance(p, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Assert, ast.Raise, ast.For,
                            ast.If, ast.While, ast.comprehension, ast.Tuple, ast.List)):  # fmt: skip
            return  # a name (its uses are read), a test (a condition), an iterable (control dependence)
        elif isinstance(p, ast.Return):
            if not self.graded:
                return  # a helper's value: read where it is used
        elif isinstance(p, ast.Attribute):
            return  # h.shape, x.sum(): what the attribute gives is read itself
        elif not isinstance(p, ast.expr):
            return
        self.owner.listed.setdefault((self.label, node.lineno), None)

    def plain(self, parent, parts):
        """Whether a stepped value goes on only with constants and sizes (no value of the inputs)."""
        for part in parts:
            t = self.taint(part)
            if t in _T_LISTED or t in _T_SCALES or self.const(part):
                continue
            return False
        return True

    def sink(self, call, child):
        called = _called(call)
        if called not in _T_SINKS:
            return False
        positions, names = _T_SINKS[called]
        for k in call.keywords:
            if k.value is child or k is child:
                return k.arg in names
        if child not in call.args:
            return False
        i = call.args.index(child)
        method = isinstance(call.func, ast.Attribute) and not (
            isinstance(call.func.value, ast.Name) and call.func.value.id in self.modules
        )
        if positions is None:
            return method or i >= 1 or called in ("randn", "rand")
        if method and called in ("repeat", "take", "reshape", "resize"):
            return True
        return i in positions


def _c_value(node, values, modules):
    """The value of a constant-only expression: a number; _C_NOT_A_NUMBER (a string, a type: np.float64); or None
    where it cannot be known here (a name a loop built, a call), which rule c treats as large. np.finfo/np.iinfo
    attributes are read for float64/int64 where their argument is no type written out (np.finfo(o.dtype))."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else _C_NOT_A_NUMBER
    if isinstance(node, ast.Name):
        return _C_NOT_A_NUMBER if node.id in modules else values.get(node.id)
    if isinstance(node, ast.Attribute):
        if _called(node.value) in ("finfo", "iinfo"):
            return _c_info(node.value, node.attr)
        if isinstance(node.value, ast.Name) and node.value.id in modules:
            found = getattr(np, node.attr, getattr(math, node.attr, None))
            return float(found) if isinstance(found, (int, float)) and not isinstance(found, bool) else _C_NOT_A_NUMBER
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _c_value(node.operand, values, modules)
        return -value if isinstance(node.op, ast.USub) and isinstance(value, (int, float)) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDED:
        left, right = _c_value(node.left, values, modules), _c_value(node.right, values, modules)
        if not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
            return None if left is None or right is None else _C_NOT_A_NUMBER
        try:
            value = _FOLDED[type(node.op)](left, right)
        except (ArithmeticError, ValueError, TypeError):
            return None
        return value if isinstance(value, (int, float)) and abs(value) < 1e300 else None
    if isinstance(node, ast.Call) and _called(node) in ("int", "float", "abs", "round") and len(node.args) == 1:
        value = _c_value(node.args[0], values, modules)
        return abs(value) if isinstance(value, (int, float)) and _called(node) == "abs" else value
    return None


def _c_info(call, attr):
    """np.finfo(T).attr or np.iinfo(T).attr as a number: T read where written as a type (np.float32, float,
    "int16"), float64/int64 otherwise."""
    kind = np.finfo if _called(call) == "finfo" else np.iinfo
    default = np.float64 if kind is np.finfo else np.int64
    arg = call.args[0] if call.args else None
    name = arg.attr if isinstance(arg, ast.Attribute) else arg.id if isinstance(arg, ast.Name) else None
    name = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else name
    try:
        info = kind({"float": np.float64, "int": np.int64}.get(name) or np.dtype(name or default))
    except (TypeError, ValueError):
        info = kind(default)
    value = getattr(info, attr, None)
    try:
        return float(value) if value is not None and not isinstance(value, type) else _C_NOT_A_NUMBER
    except (TypeError, ValueError):
        return _C_NOT_A_NUMBER


def _c_large(node, kinds, modules, unknown=True):
    """Whether a constant-only expression may be a threshold: its value unknown (if ``unknown``), or finite and of
    magnitude _LARGE or more (not inf, not a string or a type)."""
    value = _c_value(node, kinds.get(_C_VALUES, {}), modules)
    if value is None:
        return unknown
    return isinstance(value, (int, float)) and math.isfinite(value) and abs(value) >= _LARGE


def _c_against(node, kinds, modules, tests):
    """Rule c beyond sizes: a comparison, or a builtin min/max, that holds a constant-only expression of magnitude
    _LARGE or more (or of a value not known here) against anything else (a value statistic, np.ptp(o) <
    np.finfo(float).maxexp * 4; a count; a loop index), and a dtype compared and used as a number
    (o.max() * (o.dtype == np.float64)), where no test of an if, while or conditional expression holds it."""
    if isinstance(node, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return False
        sides = [node.left, *node.comparators]
        if id(node) not in tests and any(_c_dtype(side) for side in sides):
            return True
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        if len(node.args) < 2:
            return False
        sides = [a for a in node.args if not isinstance(a, ast.Starred)]
    else:
        return False
    found = [_c_kind(side, kinds, modules) for side in sides]
    if all(k == "const" for k in found):
        return False
    if any(_c_large(side, kinds, modules) for side, k in zip(sides, found) if k == "const"):
        return True
    inner = [c for side, k in zip(sides, found) if k != "const" for c in _c_numbers(side, kinds, modules)]
    return any(_c_large(c, kinds, modules, unknown=False) for c in inner)  # `n - window`: a value written out


def _c_dtype(node):
    return (isinstance(node, ast.Attribute) and node.attr == "dtype") or _called(node) in ("result_type", "dtype")


def _c_tests(fn):
    """The ids of the expressions that are tests (of an if, while, conditional expression, assert or comprehension
    filter), with the operands of their not/and/or."""
    found, todo = set(), []
    for n in ast.walk(fn):
        if isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            todo.append(n.test)
        elif isinstance(n, ast.comprehension):
            todo += n.ifs
    while todo:
        n = todo.pop()
        found.add(id(n))
        if isinstance(n, ast.BoolOp):
            todo += n.values
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            todo.append(n.operand)
    return found


def _c_listed(node, kinds, modules):
    """Whether ``node`` is a comparison, a cap or a slice where a size meets a constant (not a trivial one)."""
    if isinstance(node, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return False
        sides = [node.left, *node.comparators]
    elif (
        isinstance(node, ast.Call)
        and _called(node) in _C_CAPS
        and (isinstance(node.func, ast.Name) and node.func.id in ("min", "max") or isinstance(node.func, ast.Attribute))
    ):
        f = node.func
        method = isinstance(f, ast.Attribute) and _c_kind(f.value, kinds, modules) != "const"
        if isinstance(f, ast.Attribute) and not method and _called(node) in ("min", "max"):
            return False  # np.min(x): a reduction, not a cap
        if method and _called(node) != "clip":
            return False  # x.max(): a reduction
        sides = [*([f.value] if method else []), *[a for a in node.args if not isinstance(a, ast.Starred)]]
        sides += [k.value for k in node.keywords if k.arg in ("a_min", "a_max", "min", "max", "initial")]
    elif isinstance(node, ast.Slice):
        for bound in (node.lower, node.upper):
            if bound is not None and _c_kind(bound, kinds, modules) == "const":
                value = _folded(bound)
                if not (isinstance(value, int) and value in _C_TRIVIAL):
                    return True
        return False
    else:
        return False
    found = [_c_kind(side, kinds, modules) for side in sides]
    sizes = [s for s, k in zip(sides, found) if k == "size"]
    constants = [s for s, k in zip(sides, found) if k == "const"]
    if not sizes or not constants:
        return False
    limit = 3 if all(_c_rank(s, kinds) for s in sizes) else 2
    involved = [*constants, *(c for s in sizes for c in _c_numbers(s, kinds, modules))]
    involved = [e for c in involved for e in (c.elts if isinstance(c, (ast.Tuple, ast.List)) else [c])]
    values = [_folded(c) for c in involved]
    return not all(isinstance(v, (int, float)) and float(v).is_integer() and -2 <= v <= limit for v in values)


def _c_numbers(node, kinds, modules):
    """The constants inside a size expression that take part in its value (``T - window``'s window; not
    `.shape[1]`'s index, an axis, or the name of a module)."""
    if _c_kind(node, kinds, modules) == "const":
        return [] if isinstance(node, ast.Name) and node.id in modules else [node]
    if isinstance(node, ast.Subscript):
        return _c_numbers(node.value, kinds, modules)
    if isinstance(node, ast.Call):
        return [c for a in node.args for c in _c_numbers(a, kinds, modules)]
    if isinstance(node, ast.Attribute):
        return _c_numbers(node.value, kinds, modules)
    return [c for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
            for c in _c_numbers(child, kinds, modules)]  # fmt: skip


def _c_rank(node, kinds):
    return _is_rank(node, set()) or (isinstance(node, ast.Attribute) and node.attr == "ndim")


# -- rule d: introspection. The grader cannot vouch for code that inspects or changes the process it runs in (its
# tracer, its frames, its modules): an exercise needs none of it. So the graded function and the code it reaches by
# name, the top level of its cells, and the functions that top level reaches by name (it may call them) are listed
# where they import anything but numpy, math, warnings, functools, itertools, collections, heapq, operator, typing
# and copy (in the exercise's own cell; not dataclasses, whose decorator runs code it writes as text; rnn_core's
# imports are the grader's own matter: see _neutralised;
# in every cell the exercise runs, the child refuses such an import at run time, and the exercise is review), or
# use the names sys, gc, inspect, ctypes, builtins, importlib, eval, exec, compile, __import__, globals, locals,
# vars, breakpoint or open, a dunder attribute (`f.__code__`), getattr/setattr/delattr with a name that is not a
# string literal (or one that names what is listed here), or the attributes of frames, tracers and modules
# (gettrace, settrace, setprofile, _getframe, f_globals, f_locals, f_back, modules, ...), attributes that name a
# module numpy or the allowed modules hand out (np._pytesttester.sys, .os, .pickle, ...), np.load and np.lib.format,
# getattr handed on as a value, bytes written in the code, and a string that parses as code rule d lists; where an
# input's memory lives or how it is laid out (.flags, .base, .strides, np.shares_memory...), the date, whether two
# values are one object (`a is b`, neither side a constant such as None), a mark an input could carry from the
# student's own functions (a subclass of numpy's types, dtype metadata, a memory order other than C's, a dict key no
# exercise's dicts hold), and a change to an imported module (`np.array_equal = f`, setattr(np, ...)).

_D_IMPORTS = frozenset(
    {"numpy", "math", "warnings", "functools", "itertools", "collections", "heapq", "operator", "typing", "copy",
     "numbers", "contextlib", "bisect", "__future__", "rnn_core"}
)  # fmt: skip
_D_NAMES = frozenset(
    {"sys", "gc", "inspect", "ctypes", "builtins", "importlib", "eval", "exec", "compile", "__import__", "globals",
     "locals", "vars", "dir", "breakpoint", "open", "__builtins__", "attrgetter", "methodcaller",
     # an object's address and its raw buffer (hostile37m: `id(np.ascontiguousarray(o)) == id(o)`,
     # `memoryview(o).readonly`)
     "id", "memoryview",
     # the grader's child as against a learner's kernel (hostile37p): its shell, a memory limit hit on purpose, a
     # string's hash (random per process)
     "get_ipython", "MemoryError", "hash"}
)  # fmt: skip
_D_ATTRIBUTES = frozenset(
    {"gettrace", "settrace", "setprofile", "getprofile", "_getframe", "f_globals", "f_locals", "f_back", "modules",
     "f_builtins", "f_trace", "f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame", "ctypeslib",
     # modules that numpy's and the allowed modules' attributes hand out (np.lib.format.sys, np.testing...os):
     "sys", "_sys", "os", "_os", "pickle", "_pickle", "subprocess", "builtins", "importlib", "marshal", "timeit",
     "runpy", "code", "codeop", "pdb", "ctypes", "gc", "inspect", "io", "_io", "types", "threading", "_thread",
     "shutil", "platform", "sysconfig", "pathlib", "unittest", "weakref", "concurrent", "contextlib", "json", "ast",
     # numpy's readers of files and bytes (np.load falls back to pickle), and the helpers that exec a string
     "load", "fromfile", "tofile", "memmap", "runstring", "measure", "get_type_hints", "ForwardRef",
     # numpy's private modules that hold sys and os (np._pytesttester.sys), and its compilers
     "_pytesttester", "_typing", "f2py", "distutils",
     # what an input's memory looks like, and the date: switches on neither change the numbers (hostile37i, H)
     "flags", "datetime64", "timedelta64", "datetime_as_string", "datetime_data", "busday_count", "busday_offset",
     "is_busday",
     # ... and where it lives: an array's base, strides, buffer address or overlap (hostile37l, D: `o.base is None`)
     "base", "strides", "shares_memory", "may_share_memory", "byte_bounds", "isfortran", "is_", "is_not",
     # ... read through its buffer or its dtype's byte order (hostile37m: `o.data.c_contiguous`, `o.dtype.isnative`)
     "c_contiguous", "f_contiguous", "contiguous", "readonly", "isnative", "byteorder",
     # state of numpy's or a cache's that a call could count on (hostile37m, S10, S14, S25)
     "set_printoptions", "get_printoptions", "printoptions", "setbufsize", "getbufsize", "cache_info",
     # numpy's error settings and the warnings' filters, which tell a check from training and can count calls
     # (hostile37o: `np.geterr()["over"] == "ignore"`, an attribute on np.geterrcall()'s object, filters.append)
     "geterr", "seterr", "geterrcall", "seterrcall", "filters", "catch_warnings",
     # numpy's readers and writers of files: a file is state kept between calls, and sessions (hostile37p: a count
     # kept by np.savetxt and read back by np.loadtxt; a write the sandbox refuses)
     "savetxt", "loadtxt", "genfromtxt", "fromregex", "savez", "savez_compressed", "DataSource", "npyio",
     "open_memmap",
     # a mark that an array carries from the student's own function that made it to the one graded, which the
     # grader's inputs never carry (hostile37q, A and B): its dtype's metadata, its memory order (read by nditer's
     # order, or frombuffer failing on it), numpy's own subclasses (a matrix; whether an array is a masked one, where
     # np.ma's functions themselves are a right answer's: hostile37q's masked attention)
     "metadata", "asfortranarray", "nditer", "frombuffer", "matrix", "asmatrix", "recarray", "chararray",
     "MaskedArray", "isMaskedArray", "isMA", "is_masked", "NDArrayOperatorsMixin"}
)  # fmt: skip
# numpy's array and scalar types: a class of the cells' that derives from one makes arrays that carry a mark (an
# attribute, the class itself) from the student's function that made them to the one graded (hostile37q, A and B)
_D_NUMPY_TYPES = frozenset(
    {"ndarray", "generic", "number", "inexact", "floating", "integer", "signedinteger", "float64", "float32",
     "float_", "double", "int64", "int_", "bool_", "dtype"}
)  # fmt: skip
_D_ORDERS = frozenset({"K", "A", "F"})  # a memory order other than C's, as a string argument: np.ravel(p, "K")
_D_ALLOWED_SHOWN = ("numpy", "math", "warnings", "functools", "itertools", "collections", "heapq", "operator",
                    "typing", "copy", "numbers", "contextlib", "bisect")  # fmt: skip
_D_BY_NAME = frozenset({"getattr", "setattr", "delattr", "hasattr"})  # allowed only called with a literal name
_D_CALLEE = "_d_literal_callee"  # set on the Name of such a call (its parent is read first, in every walk)
_DUNDER = re.compile(r"^__\w+__$")

# -- rule f: state kept between calls (issue 37, hostile37g finding 3, gate G). A function that writes to an object it
# neither created in the call nor received as a parameter can compute differently on its 1,250th call than on its
# first, and the hidden cases make only a few calls: a counter in a module-level dict, a closure counter, a mutable
# default, a global. Listed, in the graded function and every function it reaches (and the functions nested in
# them): a store or del through `global`/`nonlocal`; a subscript or attribute store, an augmented store or a del on
# a module-level or closure name (or a local alias of one, `c = _count`); a mutating method call on one (append,
# update, setdefault, pop, clear, add, fill, put, sort, send, __setitem__ ...) or an np function that writes its first
# argument (np.put, np.copyto, np.add.at ...); next() of one (a module-level iterator or generator); the same on a
# parameter whose default is mutable (`def f(x, _seen=[])`); an attribute set on a function; a store on `self` in a
# method of a class the sources instantiate at the top level (`_c = Counter()`); a call of a function of the sources
# that writes its own parameter, handed a kept object (`_bump(_L)`); a read of a module-level defaultdict; a writer
# handed over as a value (`map(list.append, [_L], [1])`, `put = _L.append`); what a cached function returns
# (`@functools.cache def _box(): return []`, `_box().append(1)`). A nested function's
# writes to its enclosing function's names are state only when it leaves that function (returned): a helper defined
# and called inside the graded call writes to objects of that call. Writes into the function's own parameters
# (Adam's `state`, `params[k] -= ...`, an rng) are not listed.

_F_MUTATORS = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add", "discard", "remove",
     "fill", "put", "itemset", "resize", "sort", "send", "throw", "__setitem__", "__delitem__", "__iadd__",
     "appendleft", "extendleft", "popleft", "rotate", "reverse", "partition", "setflags", "__next__", "write",
     "subtract", "setfield", "byteswap",
     "__setattr__", "__init__"}
)  # fmt: skip
_F_WRITERS = frozenset(
    {"put", "copyto", "place", "putmask", "fill_diagonal", "put_along_axis", "at", "setattr", "next", "delattr",
     "heappush", "heappop", "heapify", "heapreplace", "heappushpop",
     # operator's writers (hostile37l, F: `operator.setitem(_C, 0, _C[0] + 1)`)
     "setitem", "delitem", "iadd", "isub", "imul", "imatmul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior",
     "ixor", "ilshift", "irshift", "iconcat",
     # a writable iterator or a view over a kept buffer (hostile37m, S19 and S21)
     "nditer", "frombuffer"}
)  # fmt: skip
# types whose methods, called unbound, write their first argument (hostile37n, S10, S11, T03, T07)
_F_TYPES = frozenset({"list", "dict", "set", "bytearray", "deque", "defaultdict", "Counter", "OrderedDict"})
# calls that hand back the object they were given, or a view or item of it: a name bound to one of them over a kept
# object is that object (hostile37m, S01, S13, S23: `c = np.asarray(_C); c += 1`, `c = next(iter(_L))`)
_F_ALIASING = frozenset(
    {"asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "view", "ravel", "reshape", "squeeze",
     "transpose", "swapaxes", "moveaxis", "atleast_1d", "atleast_2d", "frombuffer", "next", "iter", "get",
     "setdefault", "values", "items", "getitem", "itemgetter",
     # views (hostile37o: np.real(_C), np.flip, np.expand_dims, np.split(_C, 1)[0], as_strided, each changed in place)
     "real", "imag", "flip", "fliplr", "flipud", "expand_dims", "split", "array_split", "hsplit", "vsplit", "dsplit",
     "as_strided", "rot90", "require", "asmatrix", "diagonal", "atleast_3d", "broadcast_to", "broadcast_arrays",
     "sliding_window_view", "matrix_transpose", "permute_dims", "unstack",
     # a mapping over a kept dict, an array over a kept buffer (hostile37p: ChainMap(_D)["n"] *= 2,
     # np.ndarray((1,), float, _BUF))
     "ChainMap", "ndarray"}
)  # fmt: skip
# ... those of them that hand back an item, not the object: `next(iter(_NAMES))` reads a kept tuple, writes nothing
_F_ITEMS = frozenset({"next", "iter", "get", "setdefault", "values", "items", "getitem", "itemgetter"})
# what a module-level name bound to one of these holds is an iterator: any use of it in a call moves it on
# (hostile37l, F: `for n in _IT: break` on a module-level itertools.count)
_F_ITERATORS = frozenset(
    {"count", "cycle", "repeat", "iter", "map", "filter", "zip", "enumerate", "reversed", "islice", "chain",
     "accumulate", "starmap", "takewhile", "dropwhile", "tee", "zip_longest", "product", "permutations",
     "combinations", "combinations_with_replacement", "groupby", "compress", "filterfalse", "pairwise", "batched"}
)  # fmt: skip


# the methods of a random generator (numpy's Generator and RandomState, Python's Random) that move it on: a draw from
# one kept between calls, or from numpy's global generator, is a counter (hostile37o: `np.random.seed(12)` at the
# top, then `np.random.random() < 1e-4` switches at call 3298; a module-level default_rng, or one as a default)
_F_RANDOM = frozenset(
    {"random", "integers", "normal", "standard_normal", "uniform", "choice", "shuffle", "permutation", "permuted",
     "binomial", "poisson", "exponential", "standard_exponential", "gamma", "beta", "rand", "randn", "randint",
     "random_sample", "random_integers", "sample", "ranf", "bytes", "getrandbits", "randrange", "randbytes", "gauss",
     "normalvariate", "seed", "set_state", "get_state", "advance", "jumped", "spawn", "triangular", "lognormal",
     "laplace", "logistic", "geometric", "multinomial", "dirichlet", "hypergeometric", "chisquare", "vonmises",
     "wald", "weibull", "zipf", "pareto", "power", "rayleigh", "standard_cauchy", "standard_gamma", "standard_t",
     "noncentral_chisquare", "noncentral_f", "negative_binomial", "logseries", "multivariate_normal",
     "multivariate_hypergeometric", "choices", "state", "bit_generator", "random_raw"}
)  # fmt: skip
# ... and the makers of a fresh generator, which touch no kept state (a generator seeded afresh in each call)
_F_RANDOM_MAKERS = frozenset({"default_rng", "Generator", "RandomState", "SeedSequence", "PCG64", "PCG64DXSM",
                              "MT19937", "Philox", "SFC64", "BitGenerator"})  # fmt: skip


def _f_random_names(sources):
    """(the names the sources give numpy's random module besides np.random: `import numpy.random as npr`, `from numpy
    import random`; the names they give numpy itself: `import numpy as xp`; the names they import from numpy.random:
    `from numpy.random import random as rr`), from one walk of their imports."""
    modules, numpy_names, from_random = set(), set(), set()
    for _, tree in _trees(sources):
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                modules |= {a.asname for a in n.names if a.name == "numpy.random" and a.asname}
                numpy_names |= {a.asname or a.name for a in n.names if a.name == "numpy"}
            elif isinstance(n, ast.ImportFrom) and n.module == "numpy":
                modules |= {a.asname or a.name for a in n.names if a.name == "random"}
            elif isinstance(n, ast.ImportFrom) and n.module == "numpy.random":
                from_random |= {a.asname or a.name for a in n.names if a.name != "*"}
    return frozenset(modules), frozenset(numpy_names), frozenset(from_random)


def _f_global_draw(call, top):
    """Whether ``call`` draws from numpy's global generator: np.random.random(), npr.seed(12), or a function
    imported from numpy.random (other than a maker of a fresh generator)."""
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr not in _F_RANDOM_MAKERS:
        module = f.value
        if isinstance(module, ast.Attribute) and module.attr == "random" and isinstance(module.value, ast.Name):
            return module.value.id in ("np", "numpy") or module.value.id in top.numpy_names
        return isinstance(module, ast.Name) and module.id in top.random_modules
    return isinstance(f, ast.Name) and f.id in top.from_random and f.id not in _F_RANDOM_MAKERS


_BUILTIN_NAMES = frozenset(dir(builtins))


def _f_top_names(sources):
    """Every name the sources' top level binds: assigned, defined, imported, a loop's or a with's target."""
    found = set()
    for _, tree in _trees(sources):
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(stmt.name)
                continue
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                    found.add(n.id)
                elif isinstance(n, (ast.Import, ast.ImportFrom)):
                    found |= {(a.asname or a.name).split(".")[0] for a in n.names}
                elif isinstance(n, (ast.Global, ast.Nonlocal)):
                    found |= set(n.names)
    return found


def _f_top_bindings(sources):
    """(targets, value) of each assignment at the sources' top level."""
    for _, tree in _trees(sources):
        for stmt in tree.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                yield (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]), stmt.value


def _f_iterators(sources):
    """The names the sources' top level binds to an iterator, or to a container holding one: a generator expression,
    or a call of _F_ITERATORS (`_IT = itertools.count()`, `_IT = [itertools.count(1)]`), of a name bound to one of
    them (`_cnt = itertools.count`) or of a function of theirs that yields."""
    makers = set(_F_ITERATORS) | {
        n.name
        for _, tree in _trees(sources)
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(isinstance(x, (ast.Yield, ast.YieldFrom)) for x in ast.walk(n))
    }
    for targets, value in _f_top_bindings(sources):  # `_cnt = itertools.count`
        if isinstance(value, (ast.Name, ast.Attribute)) and _called(ast.Call(func=value, args=[])) in makers:
            makers |= {t.id for t in targets if isinstance(t, ast.Name)}
    found = set()
    for targets, value in _f_top_bindings(sources):
        if any(isinstance(x, ast.GeneratorExp) or _called(x) in makers for x in ast.walk(value)):
            found |= {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
    return found


def _f_renamed(sources):
    """{name: the writer it names}: `from operator import setitem as _put`, `_w = operator.setitem` (hostile37m,
    S15 and S24), for the writers of _F_WRITERS."""
    found = {}
    for _, tree in _trees(sources):
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom):
                found |= {a.asname: a.name for a in n.names if a.asname and a.name in _F_WRITERS}
    for targets, value in _f_top_bindings(sources):
        name = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else None
        if name in _F_WRITERS:
            found |= {t.id: name for t in targets if isinstance(t, ast.Name)}
    return found


def _f_shared(sources):
    """The names the sources' top level binds to a mutable object (a list, dict or set, written out or built by a
    comprehension or a call): a default argument naming one is kept between calls (hostile37m, S05: `_c=_COUNT`)."""
    mutable = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call)
    return {
        x.id
        for targets, value in _f_top_bindings(sources)
        if isinstance(value, mutable)
        for t in targets
        for x in ast.walk(t)
        if isinstance(x, ast.Name)
    }


def _f_defaultdicts(sources):
    """The names the sources' top level binds to a defaultdict: reading a missing key of one adds it, so a read is a
    write (hostile37n: `_SEEN[key]` read, then `len(_SEEN)` switches)."""
    return {
        t.id
        for targets, value in _f_top_bindings(sources)
        if _called(value) == "defaultdict"
        for t in targets
        if isinstance(t, ast.Name)
    }


def _f_cached(sources):
    """The names of the sources' functions whose results are kept between calls (`@functools.cache`,
    `@lru_cache(...)`): what one returns is one object for every call (hostile37n: `box().append(1)`)."""
    keep = {"cache", "lru_cache", "cached_property"}
    return {
        n.name
        for _, tree in _trees(sources)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(
            (d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else _called(d)) in keep
            for d in n.decorator_list
        )
    }


def _f_helpers(sources, imported, read, top):
    """{name: the parameters (positions and names) it writes to} for the sources' top-level functions: a call that
    hands one of them a kept object writes that object (hostile37n: `def _bump(c): c.append(1)` called on `_L`)."""
    functions = [n for _, tree in _trees(sources) for n in tree.body if isinstance(n, (ast.FunctionDef,))]
    for _ in range(3):  # a helper that hands its parameter on to another
        found = {}
        for fn in functions:
            _tick()
            names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
            every = [*names, *(a.arg for a in fn.args.kwonlyargs)]
            seen = read | set(every)  # `c.append(1)` alone, which _f_logs takes for a log, writes what it is handed
            alone = set(_f_writes(fn, frozenset(), imported, seen, frozenset(), top))
            written = {
                (i, name)
                for i, name in enumerate(every)
                if set(_f_writes(fn, frozenset(), imported, seen, frozenset({name}), top)) - alone
            }
            if written:
                found[fn.name] = frozenset(i for i, _ in written if i < len(names)) | {name for _, name in written}
        if found == top.helpers:
            break
        top = replace(top, helpers=found)
    return top.helpers


@dataclass(frozen=True)
class _FTop:
    """What rule f reads off the sources' top level, for every function it looks at."""

    iterators: frozenset = frozenset()  # names of module-level iterators: every use moves them on
    renamed: dict = field(default_factory=dict)  # other names of writers: {"_put": "setitem"}
    shared: frozenset = frozenset()  # module-level names of mutable objects
    defaultdicts: frozenset = frozenset()  # module-level defaultdicts: a read adds a key
    cached: frozenset = frozenset()  # functions whose result is kept (functools.cache)
    helpers: dict = field(default_factory=dict)  # {function: parameters it writes}
    random_modules: frozenset = frozenset()  # names of numpy.random: npr in `import numpy.random as npr`
    numpy_names: frozenset = frozenset()  # names of numpy itself (`import numpy as xp`)
    from_random: frozenset = frozenset()  # names imported from numpy.random (`from numpy.random import random`)
    bound: frozenset = frozenset()  # every name the sources' top level binds (a builtin's name among them is theirs)


def kept_state(sources, function):
    """[(label, line, text)]: where ``function`` or a function it reaches writes to state kept between calls (rule f;
    the comment above says exactly what counts)."""
    functions, bound = _reach(sources, function)
    _, modules = _c_constants(sources)
    imported = set(modules)
    made = {
        c.func.id for _, b in bound for c in ast.walk(b) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
    }
    for _, tree in _trees(sources):
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                imported |= {(a.asname or a.name).split(".")[0] for a in n.names}
    found, read = {}, set()
    for _, top in functions:
        read |= {n.id for n in ast.walk(top) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    read -= _f_logs(sources, functions)
    todo = []
    for label, top in functions:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.append((label, top, frozenset(), frozenset()))
        elif isinstance(top, ast.ClassDef):  # its methods; `self` is kept between calls if made at the top level
            for method in top.body:
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = [a.arg for a in [*method.args.posonlyargs, *method.args.args][:1]]
                    # `cls` of a classmethod is the class itself, kept between calls (hostile37m, S04: `cls.n += 1`)
                    of_class = any(_called(d) == "classmethod" or (isinstance(d, ast.Name) and d.id == "classmethod")
                                   for d in method.decorator_list)  # fmt: skip
                    todo.append((label, method, frozenset(), frozenset(first if top.name in made or of_class else ())))
    random_modules, numpy_names, from_random = _f_random_names(sources)
    top = _FTop(
        frozenset(_f_iterators(sources)),
        _f_renamed(sources),
        frozenset(_f_shared(sources)),
        frozenset(_f_defaultdicts(sources)),
        frozenset(_f_cached(sources)),
        random_modules=random_modules,
        numpy_names=numpy_names,
        from_random=from_random,
        bound=frozenset(_f_top_names(sources)),
    )
    top = replace(top, helpers=_f_helpers(sources, imported, read, top))
    while todo:
        _tick()
        label, fn, enclosing, kept = todo.pop()
        for line in _f_writes(fn, enclosing, imported, read, kept, top):
            found.setdefault((label, line), None)
        mine = _f_locals(fn)
        for n in _f_body_nodes(fn):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                todo.append((label, n, frozenset() if _f_escapes(fn, n) else enclosing | mine, frozenset()))
    return [(label, line, _line_text(sources, label, line)) for label, line in sorted(found, key=_order(sources))]


_F_LOGGING = frozenset({"append", "extend", "appendleft", "extendleft", "add", "insert", "update"})


def _f_logs(sources, functions):
    """Names the functions only write to, as a log: each of their uses is `LOSSES.append(loss)` as a statement of its
    own, or the container of a store (`LOG[step] = loss`, `STATS["calls"] += 1`), and no top-level statement of the
    sources but the one that binds them names them (no alias to read them through). What such a name holds never
    reaches what the functions compute, so rule f leaves it alone (hostile37h, finding 6: a right answer that logs
    its losses)."""
    uses, writes = {}, {}
    for _, top in functions:
        parents = {id(c): p for p in ast.walk(top) for c in ast.iter_child_nodes(p)}
        for n in ast.walk(top):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
                continue
            uses[n.id] = uses.get(n.id, 0) + 1
            x, p = n, parents.get(id(n))  # up through HISTORY["loss"], STATS.calls
            while isinstance(p, (ast.Subscript, ast.Attribute)) and p.value is x and isinstance(p.ctx, ast.Load):
                if isinstance(p, ast.Attribute) and p.attr in _F_LOGGING:
                    break
                x, p = p, parents.get(id(p))
            call = parents.get(id(p))
            logged = isinstance(p, ast.Attribute) and p.attr in _F_LOGGING and isinstance(call, ast.Call)
            logged = logged and call.func is p and isinstance(parents.get(id(call)), ast.Expr)
            stored = isinstance(p, (ast.Subscript, ast.Attribute)) and p.value is x and isinstance(p.ctx, ast.Store)
            stored = stored and isinstance(parents.get(id(p)), (ast.Assign, ast.AugAssign))
            if logged or stored:
                writes[n.id] = writes.get(n.id, 0) + 1
    only = {name for name, count in uses.items() if writes.get(name) == count}
    for _, top in functions:  # `c = _c`: a name bound to another is read through it
        for n in ast.walk(top):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(x, ast.Name) for x in ast.walk(n.value)) and all(
                    isinstance(t, ast.Name) for t in targets
                ):  # `m = _L`, `m = (_L, 0)`: both names are one object
                    only -= {x.id for t in [*targets, n.value] for x in ast.walk(t) if isinstance(x, ast.Name)}
    for _, tree in _trees(sources):
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            binds = isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)
            binds = binds and len(stmt.targets) == 1  # `_LOG = _SEEN = []`: one list by two names (hostile37n, T02)
            named = {n.id for n in ast.walk(stmt.value if binds else stmt) if isinstance(n, ast.Name)}
            only -= named
    return only


def _f_body_nodes(fn):
    """The nodes of ``fn``'s own body (and its defaults), not those inside the functions nested in it."""
    todo = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo += list(ast.iter_child_nodes(n))


def _f_locals(fn):
    """The names ``fn`` binds in its call: its parameters and the names it assigns (not those it declares global or
    nonlocal)."""
    args = fn.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    declared = set()
    for n in _f_body_nodes(fn):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared |= set(n.names)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return frozenset(names - declared)


def _f_escapes(fn, nested):
    """Whether a function nested in ``fn`` leaves it: returned, yielded or stored somewhere other than a plain name."""
    name = getattr(nested, "name", None)
    for n in _f_body_nodes(fn):
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) and n.value is not None:
            if any(x is nested or (isinstance(x, ast.Name) and x.id == name) for x in ast.walk(n.value)):
                return True
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if not all(isinstance(t, ast.Name) for t in targets) and any(
                x is nested or (isinstance(x, ast.Name) and x.id == name) for x in ast.walk(n.value)
            ):
                return True
    return False


def _f_root(node):
    while True:
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            node = node.value
        if not (_called(node) == "type" and len(node.args) == 1 and isinstance(node.func, ast.Name)):
            return node.id if isinstance(node, ast.Name) else None
        node = node.args[0]  # type(self).n += 1: the class of a kept object (hostile37o)


def _f_writes(fn, enclosing, imported, read, kept, top):
    """The lines where ``fn`` writes to state kept between calls (``enclosing``: names of the call it is nested in;
    ``read``: the names the functions read, so a global counter nothing reads, `global calls; calls += 1`, is
    not listed: it changes nothing the function computes; ``kept``: its parameters that are kept objects; ``top``:
    what the sources' top level holds, an _FTop)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [*zip(positional[len(positional) - len(args.defaults) :], args.defaults)]
    defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]

    def mutable_default(d):  # `[]`, `_COUNT` (a module-level list), `([0],)` (a tuple holding a list)
        if isinstance(d, ast.Name):
            return d.id in top.shared
        if isinstance(d, ast.Tuple):
            return any(mutable_default(x) for x in d.elts)
        return not isinstance(d, (ast.Constant, ast.Attribute, ast.UnaryOp))

    mutable = {a.arg for a, d in defaults if mutable_default(d)}
    mutable |= kept  # `self` of an object made at the top level
    mine = _f_locals(fn)
    builtin = _BUILTIN_NAMES - top.bound  # `float` in np.asarray(p, dtype=float) is no kept object, unless rebound
    declared = {name for n in _f_body_nodes(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    nonlocal_ok = {name for n in _f_body_nodes(fn) if isinstance(n, ast.Nonlocal) for name in n.names} & enclosing
    aliases = set()

    def names_outside(node):
        return any(
            isinstance(x, ast.Name) and _f_outside(x.id, mine | builtin, enclosing, imported, mutable, aliases)
            for x in ast.walk(node)
        )

    def outside(node):
        inner = node
        while isinstance(inner, (ast.Attribute, ast.Subscript, ast.Starred)):
            inner = inner.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in top.cached:
            return inner.func.id not in mine  # box().append(1): what a cached function returns is kept
        if isinstance(inner, ast.Call) and _called(inner) in _F_ALIASING - _F_ITEMS:
            return names_outside(inner)  # collections.ChainMap(_D)["n"] *= 2: written through a view of a kept one
        root = _f_root(node)
        return root is not None and _f_outside(root, mine | builtin, enclosing, imported, mutable, aliases)

    for _ in range(2):
        for n in _f_body_nodes(fn):
            if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and outside(n.iter):
                aliases |= {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}  # for b in _ARRS: b += 1
            if not isinstance(n, ast.Assign):
                continue
            value, alias = n.value, False
            if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
                alias = outside(value)
                inner = value
                while isinstance(inner, ast.Subscript):
                    inner = inner.value
                containers = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.GeneratorExp)
                alias = alias or (isinstance(inner, containers) and names_outside(inner))  # [x for x in (_C,)][0]
                alias = alias or (_called(inner) in _F_ALIASING and names_outside(inner))  # np.split(_C, 1)[0]
            elif isinstance(value, ast.Call) and outside(value):
                alias = True  # b = box(), box a cached function
            elif isinstance(value, ast.Call) and _called(value) in _F_ALIASING:
                alias = names_outside(value)  # np.asarray(_C), next(iter(_L)), dict.get({"k": _C}, "k")
            if alias:
                aliases |= {t.id for t in n.targets if isinstance(t, ast.Name)}

    lines = []
    called_directly = {id(c.func) for c in _f_body_nodes(fn) if isinstance(c, ast.Call)}
    for n in _f_body_nodes(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in top.iterators and outside(n):
            lines.append(n.lineno)  # for n in _IT: break; list(islice(_IT, 1))
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in aliases:
            lines.append(n.lineno)  # c = np.asarray(_C); c += 1: the kept array changed in place
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if n.id in declared and n.id not in nonlocal_ok and n.id in read:
                lines.append(n.lineno)  # global N; N += 1; ... N ...
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if outside(n.value) and (_f_root(n.value) in read or _f_root(n.value) is None):  # not a log (_f_logs)
                lines.append(n.lineno)  # _count["n"] += 1, softmax.calls = 0
        elif isinstance(n, ast.Call):
            called = _called(n)
            called = top.renamed.get(called, called) if isinstance(n.func, ast.Name) else called
            f = n.func
            if isinstance(f, ast.Attribute) and called in _F_MUTATORS and _f_root(f.value) not in imported:
                if outside(f.value) and (_f_root(f.value) in read or _f_root(f.value) is None):  # not a log
                    lines.append(n.lineno)  # _cache.append(x), _it.send(None)
            if isinstance(f, ast.Attribute) and called in _F_MUTATORS and n.args and outside(n.args[0]):
                if _f_root(f.value) in imported or _f_root(f.value) in _F_TYPES:
                    lines.append(n.lineno)  # list.append(_L, 1), np.ndarray.fill(_C, 0), deque.appendleft(_Q, x)
            if called in _F_WRITERS and n.args and outside(n.args[0]):
                if not isinstance(f, ast.Attribute) or _f_root(f) in imported:
                    lines.append(n.lineno)  # next(_it), np.put(_buffer, ...), setattr(_cfg, ...)
            if any(
                outside(x)
                for x in _f_outputs(n, called, method=isinstance(f, ast.Attribute) and _f_root(f) not in imported)
            ):
                lines.append(n.lineno)  # np.add(_C, 1, out=_C), np.add(_C, 1, _C)
            if isinstance(f, ast.Name) and f.id not in mine and f.id in top.helpers:
                written = top.helpers[f.id]
                handed = [x for i, x in enumerate(n.args) if i in written]
                handed += [k.value for k in n.keywords if k.arg in written]
                if any(outside(x) for x in handed):
                    lines.append(n.lineno)  # _bump(_L), where def _bump(c): c.append(1)
            if _f_global_draw(n, top):
                lines.append(n.lineno)  # np.random.random(): numpy's global generator moves on
            elif called in _F_RANDOM_MAKERS and not n.args and not n.keywords:
                lines.append(n.lineno)  # np.random.default_rng(): seeded from the machine, another draw each call
            elif isinstance(f, ast.Attribute) and called in _F_RANDOM and outside(f.value):
                lines.append(n.lineno)  # _RNG.random(), gen.integers(...) on a generator kept between calls
            if _f_writer_as_value(n, imported, top) and any(names_outside(x) for x in [*n.args, *n.keywords]):
                lines.append(n.lineno)  # map(list.append, [_L], [1]), functools.partial(operator.setitem, _C)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name):
            if n.value.id in top.defaultdicts and outside(n.value):
                lines.append(n.lineno)  # _SEEN[key], a defaultdict: the read adds the key
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr in _F_MUTATORS:
            if outside(n.value) and id(n) not in called_directly:
                lines.append(n.lineno)  # put = _L.append; put(1): a kept object's writer taken as a value
    return lines


def _f_writer_as_value(call, imported, top):
    """Whether a call is handed a writer as a value: an unbound method of a container type (`list.append`), a writer
    of an imported module (`operator.setitem`) or another name of one."""
    for x in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(x, ast.Attribute) and _f_root(x) in _F_TYPES and x.attr in _F_MUTATORS:
            return True  # list.append
        if isinstance(x, ast.Attribute) and _f_root(x) in imported and x.attr in _F_WRITERS:
            return True  # operator.setitem, np.put
        if isinstance(x, ast.Name) and (x.id in top.renamed or x.id in {"setattr", "delattr", "next"}):
            return True
    return False


def _f_outputs(call, called, method=False):
    """The arguments a call writes its result into: its out= keyword, a numpy ufunc's positional outputs (those
    past its inputs: `np.add(a, b, out)`), and the positional out of another numpy function, or of the array method
    of that name, whose receiver is its first argument (hostile37m: `np.cumsum(x, 0, None, _C)`,
    `x.clip(0, None, _C)`)."""
    found = [k.value for k in call.keywords if k.arg == "out"]
    ufunc = getattr(np, called, None) if isinstance(called, str) else None
    if isinstance(ufunc, np.ufunc) and not method and len(call.args) > ufunc.nin:
        found += call.args[ufunc.nin :]
    elif isinstance(called, str):
        at = _f_out_position(called)
        if at is not None and len(call.args) > at - method:
            found.append(call.args[at - method])
    return [x for e in found for x in (e.elts if isinstance(e, ast.Tuple) else [e])]


@functools.cache
def _f_out_position(called):
    """The position of numpy's function ``called``'s parameter out, if it has one (np.cumsum: 3), else None."""
    fn = getattr(np, called, None)
    if not callable(fn) or isinstance(fn, (np.ufunc, type)):
        return None
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    # an `out` after *operands (np.einsum) or keyword-only is never given by position (hostile37o: 7 right einsums)
    names = [p.name for p in itertools.takewhile(lambda p: p.kind in positional, parameters)]
    return names.index("out") if "out" in names else None


def _f_outside(name, mine, enclosing, imported, mutable, aliases):
    """Whether a name is an object kept between calls: a module-level or closure name, an alias of one, a parameter
    with a mutable default."""
    if name in mutable or name in aliases:
        return True
    if name in mine:
        return False
    return name not in enclosing and name not in imported and name not in _F_SAFE_NAMES


_F_SAFE_NAMES = frozenset()  # a module-level name may shadow any builtin


def introspection(sources, function):
    """[(label, line, text)]: where the exercise's cells inspect or change the process: the graded function and what
    it reaches by name, the cells' top level (a class's body whole), and the functions that top level reaches by name,
    which it may call (rule d; the comment above says exactly what counts). An import at the top of an earlier cell
    (another exercise's plot) is left to that cell's own exercise: what it could do is listed where it is used."""
    functions, _ = _reach(sources, function)
    found, used = {}, set()
    own = sources[-1][0] if sources else None  # the exercise's own cell (or my_rnn.py)
    modules = _d_modules(sources)
    for label, tree in _trees(sources):
        todo = [stmt for stmt in tree.body if not _grader_line(stmt)]
        while todo:
            n = todo.pop()
            if _d_changes_a_module(n, modules):
                found.setdefault((label, n.lineno), None)
            if _d_listed(n) and (label == own or not isinstance(n, (ast.Import, ast.ImportFrom))):
                found.setdefault((label, n.lineno), None)
            if isinstance(n, ast.Name):
                used.add(n.id)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args  # its decorators and defaults run at the top level; its body when called
                todo += [*n.decorator_list, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
            else:
                todo += list(ast.iter_child_nodes(n))
    functions += _reach(sources, *sorted(used))[0]  # once for every name (linear: hostile37e, finding 6)
    for label, node in functions:
        for n in ast.walk(node):
            if _d_listed(n) or _d_changes_a_module(n, modules):
                found.setdefault((label, n.lineno), None)
    return [(label, line, _line_text(sources, label, line)) for label, line in sorted(found, key=_order(sources))]


_MAGIC_CALLS = frozenset({"run_line_magic", "run_cell_magic", "system", "getoutput"})


def _grader_line(stmt):
    """Whether a statement at a cell's top level is one the grader wrote in place of a line of IPython's: a practice
    import bound to its stand-ins (`practice = __grader_practice__`, `one_hot = __grader_rnn_core__.one_hot`), or a
    magic, a shell line or a help line (`get_ipython().run_line_magic('pinfo', 'np.exp')`). Rule d reads the name
    `__grader...` and `get_ipython` anywhere else (hostile37p: switches on whether they exist)."""
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
    if isinstance(stmt, ast.Assign) and not all(isinstance(t, ast.Name) for t in stmt.targets):
        return False
    if isinstance(stmt, ast.Assign):
        root = value.value if isinstance(value, ast.Attribute) else value
        if isinstance(root, ast.Name) and root.id in ("__grader_practice__", "__grader_rnn_core__"):
            return True
    call = value if isinstance(value, ast.Call) else None
    return (
        call is not None
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in _MAGIC_CALLS
        and _called(call.func.value) == "get_ipython"
        and not call.func.value.args
        and all(isinstance(a, ast.Constant) for a in call.args)
        and not call.keywords
    )


def _d_modules(sources):
    """The names the cells bind to modules by import (`np`, `numpy`, `math`, `format` of `from numpy.lib import
    format`...), and numpy's usual names, which the notebooks' helper cells bind."""
    names = {"np", "numpy"}
    for _, tree in _trees(sources):
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in n.names)
    return names


def _d_changes_a_module(node, modules):
    """Whether ``node`` changes a module the cells imported: `np.array_equal = f`, `np.linalg.norm = f`, `del np.x`,
    `setattr(np, "x", f)` (hostile37l, F06 and F07: a patched np.array_equal was to hide an argument changed in
    place). Nothing an exercise computes needs it."""
    target = None
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        target = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
        target = node.args[0] if node.args else None
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id in modules


def _d_listed(node):
    _tick()
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] not in _D_IMPORTS for a in node.names)
    if isinstance(node, ast.ImportFrom):
        # `from operator import is_ as same`, `from numpy import shares_memory`: a listed attribute by another name
        listed = any(_DUNDER.match(a.name) or a.name in _D_ATTRIBUTES or a.name in _D_NAMES for a in node.names)
        return listed or node.level > 0 or (node.module or "").split(".")[0] not in _D_IMPORTS
    if isinstance(node, ast.Name):
        # getattr & co. anywhere but as the callee of a call with a literal name: `g = (getattr,)[0]`, a default
        # argument, `{0: getattr}[0]`, a walrus, a for loop, functools.reduce(getattr, ...) (hostile37e, finding 3)
        if node.id.startswith("__grader"):
            return True  # the names the grader's child binds for itself (hostile37p: `__grader_practice__` exists)
        return node.id in _D_NAMES or (node.id in _D_BY_NAME and not getattr(node, _D_CALLEE, False))
    if isinstance(node, ast.Attribute):
        if node.attr in ("attrgetter", "methodcaller"):
            return True  # operator.attrgetter(name): getattr by another name
        if node.attr == "format" and isinstance(node.value, ast.Attribute) and node.value.attr == "lib":
            return True  # np.lib.format: the .npy reader, pickle's way in
        if node.attr in ("str", "descr") and isinstance(node.value, ast.Attribute) and node.value.attr == "dtype":
            return True  # o.dtype.str[0] != ">": the byte order by its code (hostile37m, L12)
        return bool(_DUNDER.match(node.attr)) or node.attr in _D_ATTRIBUTES
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return True  # bytes written in the code: a pickle, marshalled code (hostile37d, finding 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        if (_DUNDER.match(text) and text != "__main__") or text in _D_ATTRIBUTES:  # getattr(f, "__code__")
            return True
        return _d_format_reaches(text) or _d_code_in(text)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _D_BY_NAME:
        named = node.args[1:2]
        if named and not node.keywords and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in named):
            setattr(node.func, _D_CALLEE, True)  # getattr(x, "name"): the name is read, as x.name would be
            return False
        return True  # getattr with a computed name, or with none
    if isinstance(node, ast.Call) and _called(node) == "type" and len(node.args) == 3:
        return True  # type(name, bases, namespace): a class built at run time
    if isinstance(node, ast.ClassDef):  # class Mine(np.ndarray): arrays that carry a mark (hostile37q, A and B)
        return any(_d_base_name(base) in _D_NUMPY_TYPES for base in node.bases)
    if isinstance(node, ast.Call) and _d_reads_an_order_or_a_mark(node):
        return True
    if isinstance(node, ast.Compare):
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and _d_unknown_key(node.left):
            return True  # "mine" in cache: a key the student's own function added (hostile37q, B)
        # `np.ascontiguousarray(o) is o`: whether a call hands back the very object it was given tells how that object
        # lies in memory, which changes no number an exercise computes (hostile37l, D and E). Identity with a name
        # or a constant (`x is None`, `axis is _UNSET`, `grads is not params`) and `type(y) is np.ndarray` are not
        # listed (hostile37m, R01, R07, R08)
        sides = [node.left, *node.comparators]
        return any(
            isinstance(op, (ast.Is, ast.IsNot))
            and any(isinstance(x, ast.Call) and _called(x) != "type" for x in sides[k : k + 2])
            for k, op in enumerate(node.ops)
        )
    return False


def _d_base_name(node):
    """The last name of a class's base (np.ndarray -> "ndarray"), else None."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _d_reads_an_order_or_a_mark(call):
    """Whether a call reads how an array lies in memory or a mark on a dict: a memory order other than C's
    (`np.ravel(p, "K")`, `order="A"`, an order computed), dtype metadata set (`metadata=`), or `.get`/`.pop` of a
    key no exercise's dicts hold (`cache.get("mine")`). A right answer needs none (hostile37q, A and B)."""
    for k in call.keywords:
        if k.arg == "metadata":
            return True
        if k.arg == "order" and not (isinstance(k.value, ast.Constant) and k.value.value == "C"):
            return True
    if any(isinstance(a, ast.Constant) and a.value in _D_ORDERS for a in call.args):
        return True
    if _called(call) in ("get", "pop", "setdefault") and isinstance(call.func, ast.Attribute) and call.args:
        return _d_unknown_key(call.args[0])
    return False


def _d_unknown_key(node):
    """Whether ``node`` is a string written in the code that no dict of any exercise's cases holds as a key."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value not in _d_known_keys()


@functools.cache
def _d_known_keys():
    """Every key of the dicts that the exercises' cases hand a function, or that rnn_core's own functions return on
    them (params, caches, Adam's state...)."""
    from .exercises import EXERCISE_LIST, public_seed_rng

    keys = set()

    def walk(value):
        if isinstance(value, dict):
            keys.update(k for k in value if isinstance(k, str))
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    for i, ex in enumerate(EXERCISE_LIST):
        for case in ex.cases(public_seed_rng(0, i))[:4]:
            walk(case.args)
            with contextlib.suppress(Exception):
                walk(ex.reference(*copy.deepcopy(case.args)))
    return frozenset(keys)


def _d_format_reaches(text):
    """Whether a format string's fields reach a listed attribute or a dunder: `'{0.flags.writeable}'.format(o)`,
    `'{0.base}'`, `'{0.__class__}'` (hostile37m: str.format reads any attribute, which no rule saw)."""
    if "{" not in text:
        return False
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return False
    for reach in fields:
        for name in re.split(r"[.\[\]]", reach)[1:]:
            if _DUNDER.match(name) or name in _D_ATTRIBUTES:
                return True
    return False


def _d_code_in(text, depth=0):
    """Whether a string holds Python code that rule d lists (a setup string for timeit, a string annotation that
    typing evaluates, a payload handed to anything that execs it): the string parsed and its nodes read."""
    if depth > 3 or len(text) > 100_000 or not any(c in text for c in "\n.(=;"):
        return False
    try:
        tree = _parse(text)
    except (*_UNPARSABLE, TypeError):
        return False
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            if _d_code_in(n.value, depth + 1):
                return True
        elif _d_listed(n):
            return True
    return False


def _points(points, names):
    points = dict(points or {})
    return {name: float(points.get(name, 1.0)) for name in names}


def _selection(exercises, known):
    """The exercises named, in reading order: names, or two-digit notebook numbers ("01": its exercises)."""
    chosen = set()
    for item in exercises:
        if item in known:
            chosen.add(item)
        elif re.fullmatch(r"\d\d", item) and any(book.startswith(item + "-") for book in known.values()):
            chosen |= {n for n, book in known.items() if book.startswith(item + "-")}
        else:
            raise GradeError(
                f"--exercises: {item!r} is neither an exercise nor a notebook number; the exercises: {', '.join(known)}"
            )
    return [n for n in known if n in chosen]


def _checked_arguments(submissions, points, seed, known):
    """The submissions' paths, having checked every argument (GradeError for a wrong one)."""
    paths = [Path(p) for p in submissions]
    for path in paths:
        if not path.exists():
            raise GradeError(f"{path}: no such file or folder")
    unknown = sorted(set(points or {}) - set(known))
    if unknown:
        raise GradeError(f"--points: {', '.join(unknown)} is not an exercise; the exercises: {', '.join(known)}")
    for name, value in (points or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise GradeError(f"--points {name}: must be a number >= 0, got {value!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise GradeError(f"--seed: must be an integer >= 0 or None, got {seed!r}")
    return paths


def _graded_names(read, exercises, points, known):
    """The exercises every submission is scored on: those named, else every one any submission holds."""
    if exercises:
        return _selection(exercises, known)
    present = {n for sub in read for nb in sub.notebooks for n in (*nb.stubs, *_expected(nb, known))}
    present |= set(points or {})  # an exercise given points is expected, even where no submission has it
    return [n for n in known if n in present]


def grade(
    submissions,
    *,
    seed=None,
    points=None,
    exercises=None,
    exercise_timeout=EXERCISE_TIMEOUT,
    memory_mb=MEMORY_MB,
    jobs=1,
    log=None,
):
    """Grade ``submissions`` (paths: notebooks, or folders of one student's notebooks); a list of SubmissionResult.

    seed: the instructor's secret seed of the hidden cases (an int); None draws one, written to ``log``
      and kept as each result's ``drawn_seed`` (never in the students' feedback).
    points: {exercise: points}, default 1 each.
    exercises: the exercises to grade (names, or two-digit notebook numbers); default: every exercise that
      any submission holds or ``points`` names, so that every submission is scored on the same list.
    exercise_timeout: seconds for an exercise (its cells and every call); memory_mb: its address space;
    jobs: exercises graded at once; log: a stream for one line per exercise.
    Raises GradeError only for the arguments, never for what a submission holds.

    It makes the calling process a subreaper (Linux) and, as each exercise ends, kills every process
    that has come to it since grading began, other than the exercises' own: call it from a process that
    starts no processes of its own meanwhile (the command line is one).
    """
    known = _exercises()
    paths = _checked_arguments(submissions, points, seed, known)
    limits = _Limits(float(exercise_timeout), int(memory_mb))
    drawn = 2**62 + secrets.randbelow(2**62) if seed is None else None  # the instructor's only: never in feedback
    seed = drawn if seed is None else seed
    if drawn is not None and log is not None:
        log.write(f"hidden cases drawn from seed {drawn} (drawn for this run: --seed {drawn} grades alike)\n")
    if drawn is None and seed < SMALL_SEED and log is not None:  # on the instructor's terminal, never in feedback
        log.write(
            f"warning: --seed {seed} is small enough to find by trying every seed against the hidden cases that "
            "wrong answers' feedback shows; a student who finds it can look up rnn_core's answers to every hidden "
            'case. Use a secret seed of 63 bits: python -c "import secrets; print(secrets.randbits(63))"\n'
        )
    read = [_read_submission(p) for p in paths]
    graded = _graded_names(read, exercises, points, known)
    plans = [_plan(sub, graded, known) for sub in read]
    outcomes, places = _run_all(plans, read, int(seed), limits, jobs, log)
    weights = _points(points, graded)
    notes = ["Hidden cases drawn from the instructor's seed."] + ([places.note] if places.note else [])
    results = [
        _collect(sub, items, plan_notes + notes, outcomes, known, weights)
        for sub, (items, plan_notes) in zip(read, plans)
    ]
    for result in results:
        result.drawn_seed = drawn
    return results


def _run_all(plans, read, seed, limits, jobs, log):
    """Every exercise of every submission graded (in threads, ``jobs`` at once): {(submission, name): outcome}."""
    _become_subreaper()
    _SPARED.update(_strays())
    places = _places()
    work = [(sub, item) for sub, (items, _) in zip(read, plans) for item in items]

    def run(entry):
        sub, item = entry
        if log is not None:
            log.write(f"grading {sub.name}: {item[0]}\n")  # one write: jobs run in threads
            log.flush()
        t0 = time.monotonic()
        try:
            graded = _grade_item(item, seed, limits, places)
        except Exception as e:  # a bug of the grader's: this exercise says so, the others go on
            graded = item[1] or item[2], _grader_failed(item[0], f"{type(e).__name__}: {e}")
        return graded, time.monotonic() - t0

    try:
        with contextlib.redirect_stdout(io.StringIO()), ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
            done = list(pool.map(run, work))
    finally:
        _reap_strays()
        shutil.rmtree(places.folder, ignore_errors=True)
    return {(id(sub), item[0]): result for (sub, item), result in zip(work, done)}, places


def _grader_failed(name, error):
    return {
        "status": "error",
        "message": f"{name}: not graded: the grader itself failed ({error}). This is a problem of the grading "
        "machine or of rnn_core's grader, not of the notebook: tell your instructor.",
        "stopped": True,
    }


def _collect(sub, items, notes, outcomes, known, weights):
    seconds, results = 0.0, []
    for name, *_ in items:
        (exercise, outcome), took = outcomes[(id(sub), name)]
        seconds += took
        if outcome is None:
            results.append(_missing(name, sub.notebooks, known, weights[name]))
        else:
            results.append(_result(name, outcome, exercise, weights[name]))
    read_notes = [f"Notebooks read: {', '.join(nb.label for nb in sub.notebooks) or 'none'}."]
    read_notes += [f"{MY_RNN} read: {sub.my_rnn.name}."] if sub.my_rnn else []
    read_notes += [nb.problem for nb in sub.notebooks if nb.problem] + [m for nb in sub.notebooks for m in nb.notes]
    return SubmissionResult(sub.name, results, read_notes + notes, seconds, sub.student)


def _expected(nb, known):
    return [n for n, book in known.items() if book == nb.series]


def _owners(notebooks, graded, known):
    """Which submitted notebook each exercise is graded from: one that holds its cell, the series' own first."""
    owner, notes = {}, []
    for name in graded:
        holders = [nb for nb in notebooks if name in nb.stubs]
        if not holders:
            continue
        holders.sort(key=lambda nb: (nb.series != known[name], nb.label))
        owner[name] = holders[0]
        if len(holders) > 1:
            others = ", ".join(nb.label for nb in holders[1:])
            notes.append(f"{name} is in several notebooks: graded from {holders[0].label}, not from {others}.")
    return owner, notes


def _result(name, outcome, exercise, points):
    status = outcome.get("status", "error")
    message = outcome.get("message") or f"{name}: {status}"
    where = "" if exercise.cell is None else f"cell {exercise.cell + 1} of "
    notes = [] if outcome.get("stopped") else [
        f"Graded: {exercise.function} from its cell ({where}{exercise.where}, counting every cell from 1 at the "
        "top), run alone with numpy" + (" after " + ", ".join(exercise.labels[label] for label, _ in
        exercise.sources[:-1]) if len(exercise.sources) > 1 else "") + ", on hidden cases (not the notebook's "
        "public ones)."
    ]  # fmt: skip
    notes += outcome.get("notes") or []
    if status == "not attempted":
        notes.append("A definition in a later cell is not seen: write your answer in the exercise's own cell.")
    return ExerciseResult(
        name,
        status,
        points if status == "passed" else 0.0,
        points,
        message,
        exercise.where,
        exercise.cell,
        notes,
        list(outcome.get("wrong") or []),
        list(outcome.get("errata") or []),
    )


def _missing(name, notebooks, known, points):
    book = known[name]
    same = [nb for nb in notebooks if nb.series == book]
    if same and same[0].problem:
        message = f"{name}: not graded: {same[0].problem}, so it scores zero."
        where = same[0].label
    elif same:
        where = same[0].label
        message = (
            f'{name}: {where} has no cell tagged exercise:{name} and no cell before a practice.check("{name}", ...) '
            "cell, so there is nothing to check and it scores zero. Was the exercise's cell deleted?"
        )
    else:
        where = ""
        message = f"{name}: this submission has no notebook holding this exercise (it is in {book}), so it scores zero."
    return ExerciseResult(name, "missing", 0.0, points, message, where)


# -- writing the results ---------------------------------------------------------------------------------


def _num(x):
    return int(x) if float(x).is_integer() else round(float(x), 4)


def gradescope_results(result):
    """One submission's results as Gradescope's results.json (a dict): its documented fields only."""
    exercises = _exercises()
    statuses = {}
    for r in result.exercises:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    counts = ", ".join(f"{n} {status}" for status, n in statuses.items())
    output = (
        f"rnn_core {__version__} grader: {len(result.exercises)} exercises ({counts or 'none'}), each checked on "
        f"hidden cases drawn for this submission. " + " ".join(result.notes)
    ).strip()
    return {
        "score": _num(result.score),
        "execution_time": round(result.seconds, 1),
        "output": output,
        "tests": [
            {
                "name": r.name,
                "number": _number(r.name),
                "score": _num(r.score),
                "max_score": _num(r.max_score),
                "status": "passed" if r.status == "passed" else "failed",
                "output": r.output,
                "tags": [exercises[r.name]],
                "extra_data": {
                    "status": r.status,
                    "notebook": r.notebook,
                    "cell": r.cell,
                    "wrong": r.wrong,
                    "errata": r.errata,
                },
            }
            for r in result.exercises
        ],
    }


def results_json(results):
    """What ``--json`` writes: Gradescope's results.json for one submission; for several, each under its name."""
    if len(results) == 1:
        return gradescope_results(results[0])
    drawn = {"seed": results[0].drawn_seed} if results and results[0].drawn_seed is not None else {}
    return {
        "grader": f"rnn_core {__version__}",
        **drawn,
        "submissions": [{"submission": r.name, "results": gradescope_results(r)} for r in results],
    }


def write_csv(results, f):
    """One row per submission: student (the submission's file or folder name), submission, score, max_score,
    each exercise's points, then each one's status."""
    names = [r.name for r in results[0].exercises] if results else []
    writer = csv.writer(f)
    writer.writerow(["student", "submission", "score", "max_score", *names, *(f"{n} status" for n in names)])
    for result in results:
        by_name = {r.name: r for r in result.exercises}
        writer.writerow(
            [
                result.student or Path(result.name).stem,
                result.name,
                _num(result.score),
                _num(result.max_score),
                *(_num(by_name[n].score) for n in names),
                *(by_name[n].status for n in names),
            ]
        )


def _write_text(path, text):
    path = Path(path)
    if path.parent != Path("."):
        path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda f: f.write(text.encode("utf-8")))


# -- the command line ----------------------------------------------------------------------------------


def run_command(args, out, err):
    """``python -m rnn_core grade``: ``args`` as the command line parses them (see rnn_core.cli); the exit status."""
    try:
        results = grade(
            args.submissions,
            seed=args.seed,
            points=dict(args.points),
            exercises=args.exercises,
            exercise_timeout=args.exercise_timeout,
            memory_mb=args.memory,
            jobs=args.jobs,
            log=err,
        )
    except GradeError as e:
        print(f"error: {e}", file=err)
        return 1
    if args.json:
        _write_text(args.json, json.dumps(results_json(results), indent=1, ensure_ascii=False) + "\n")
    if args.csv:
        text = io.StringIO(newline="")
        write_csv(results, text)
        _write_text(args.csv, text.getvalue())
    for result in results:
        shown = ", ".join(f"{r.name} {r.status}" for r in result.exercises) or "no exercises"
        print(f"{result.name}: {_num(result.score)}/{_num(result.max_score)}  ({shown})", file=out)
    return 0
