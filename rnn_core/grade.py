"""The grader: score submitted notebooks' exercises on hidden cases, for Gradescope, a spreadsheet or an LMS.

    python -m rnn_core grade SUBMISSION ... --json results.json --csv grades.csv --seed 2024

A SUBMISSION is a notebook, or a folder holding one student's notebooks (searched in subfolders
too, skipping hidden ones such as ``.ipynb_checkpoints``). For each exercise of
``practice.EXERCISES`` that a submitted notebook holds, the grader

1. finds the exercise's cell: the code cell tagged ``exercise:<name>`` (the stub the student filled
   in; the last one if the tag was copied onto several cells), or, where the tags were lost, the
   code cell before the one that starts ``practice.check("<name>", ...)``;
2. runs the notebook's code cells before it, in order, in one namespace, as *Run All* would (going
   on past a cell that raises, and leaving out the ``practice.check(...)`` cells), then that cell.
   So the function sees exactly the imports, helpers and constants it would see in the student's
   own kernel, its helpers in earlier cells included, and nothing that comes later: a later
   ``from rnn_core import softmax`` cannot replace it;
3. checks the function it defines (``softmax`` for "softmax", ``lstm_step_forward`` for
   "lstm.step_forward": the name in the stub) with ``practice.check(name, fn, seed=s)`` right there,
   on cases drawn from ``s``, a seed made from the instructor's ``--seed``, the exercise's name and
   the submission's code (every cell's source): hidden cases, the same each time the same code is
   graded, fresh for any other code, never the public ones;
4. scores it: full points for "passed", zero for anything else, with the checker's message as
   feedback: "wrong" (what is wrong, the mistake it repeats), "delegated" (it is, or calls,
   rnn_core's own version of the exercise), "error" (it raised, or a call ran past the checker's
   3 s), "not attempted" (still the stub), and the grader's own: "timed out", "missing".

Each notebook runs in a child process (``rnn_core._grade_child``) in a fresh temporary working
folder, with one BLAS thread, ``practice.solution`` withheld, and matplotlib drawing nowhere, under
three time limits: each exercise (its cell and its check, ``--exercise-timeout``), each other cell
(``--cell-timeout``), and the whole notebook (``--notebook-timeout``). A cell or a check that hangs or
kills the process is recorded, and the notebook runs again without it, so that the other exercises
are still graded; whatever happens, the grader writes a score for every exercise and says why.

Results: ``SubmissionResult`` per submission, one ``ExerciseResult`` per exercise;
``gradescope_results`` gives Gradescope's ``results.json`` (its documented fields: a top-level
``score``, ``execution_time`` and ``output``, and ``tests``, one per exercise, with ``name``,
``number``, ``score``, ``max_score``, ``status``, ``output``, ``tags`` and ``extra_data``);
``write_csv`` one row per submission, the columns a gradebook imports.

This is not a sandbox: a notebook's code runs with the grader's permissions, as under nbgrader or
otter. Grade untrusted submissions in a container or a throw-away account (Gradescope does).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .edition import notebook_source
from .files import write_atomically

__all__ = [
    "CELL_TIMEOUT",
    "EXERCISE_TIMEOUT",
    "NOTEBOOK_TIMEOUT",
    "ExerciseResult",
    "GradeError",
    "SubmissionResult",
    "grade",
    "gradescope_results",
    "results_json",
    "write_csv",
]

EXERCISE_TIMEOUT = 60.0  # seconds for an exercise: its cell and its check (the right answers take well under 1 s)
CELL_TIMEOUT = 300.0  # seconds for any other cell (07's longest, a training run, takes about 20 s on 2 cores)
NOTEBOOK_TIMEOUT = 1200.0  # seconds for one notebook, every cell, check and rerun included
_POLL = 0.05  # seconds between looks at a running notebook
_SHOWN_ERRORS = 5  # earlier cells that raised, named in an exercise's feedback


class GradeError(ValueError):
    """The grader cannot start: a submission that does not exist, an unknown exercise, a bad number of points."""


@dataclass
class ExerciseResult:
    """One exercise of one submission: its score and why."""

    name: str  # "softmax", "lstm.step_forward"
    status: str  # "passed", "wrong", "error", "delegated", "not attempted", "timed out", "missing"
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
    digest: str = ""


def _exercises():
    from .practice import EXERCISES  # imported when grading, so that the command line stays light

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
    nb.digest = hashlib.sha256(json.dumps([notebook_source(c) for c in nb.cells]).encode()).hexdigest()
    tagged = {}
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", []) if isinstance(cell.get("metadata"), dict) else []
        for tag in tags if isinstance(tags, list) else []:
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


# -- running a notebook -------------------------------------------------------------------------------


@dataclass
class _Limits:
    exercise: float = EXERCISE_TIMEOUT
    cell: float = CELL_TIMEOUT
    notebook: float = NOTEBOOK_TIMEOUT


def _seed(seed, name, digest):
    """The seed of an exercise's hidden cases: from the instructor's seed, the exercise and the submission's code."""
    return int(hashlib.sha256(f"{seed}\0{name}\0{digest}".encode()).hexdigest()[:16], 16) >> 1


def _child_env(work):
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    env.update(
        MPLBACKEND="Agg",
        TQDM_DISABLE="1",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        RNN_CORE_SOLUTIONS="withheld",
        RNN_CORE_MY_RNN=str(work / "my_rnn.py"),
    )
    return env


def _kill(proc):
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def _how_it_ended(code):
    if code is None:
        return "it did not end"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _attempt(tmp, n, cells, exercises, skip_cells, skip_checks, limits, deadline):
    """Run the notebook once in a child process: (events, phase when it stopped, why it stopped, exit code)."""
    work = tmp / f"run-{n}"
    work.mkdir()
    events_path = tmp / f"events-{n}.jsonl"
    events_path.touch()
    job = {
        "cells": cells,
        "exercises": {str(k): v for k, v in exercises.items()},
        "skip_cells": sorted(skip_cells),
        "skip_checks": sorted(skip_checks),
        "events": str(events_path),
    }
    job_path = tmp / f"job-{n}.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    stubs = set(exercises)
    events, buffer, phase, stopped = [], "", ("start", None, time.monotonic()), ""
    with open(tmp / f"stderr-{n}.txt", "wb") as errors, open(events_path, encoding="utf-8") as reader:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rnn_core._grade_child", str(job_path)],
            cwd=work,
            env=_child_env(work),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=os.name == "posix",
        )
        while True:
            try:
                proc.wait(timeout=_POLL)
                finished = True
            except subprocess.TimeoutExpired:
                finished = False
            buffer += reader.read()
            *lines, buffer = buffer.split("\n")
            for line in lines:
                event = _parse_event(line)
                if event is None:
                    continue
                events.append(event)
                if event["event"] == "cell":
                    phase = ("cell", event.get("cell"), time.monotonic())
                elif event["event"] == "check":
                    phase = ("check", event.get("name"), time.monotonic())
                elif event["event"] == "result":
                    phase = ("between", None, time.monotonic())
            if finished:
                break
            now = time.monotonic()
            kind, what, since = phase
            limit = limits.exercise if kind == "check" or (kind == "cell" and what in stubs) else limits.cell
            if now > deadline:
                stopped = "notebook"
            elif now - since > limit:
                stopped = "timeout"
            if stopped:
                _kill(proc)
                break
        buffer += reader.read()
        events.extend(e for e in map(_parse_event, buffer.split("\n")) if e is not None)
        if proc.returncode is not None:  # what the notebook may have started in the process group goes too
            _kill(proc)
    tail = (tmp / f"stderr-{n}.txt").read_bytes()[-2000:].decode("utf-8", "replace")
    return events, phase, stopped, proc.returncode, tail


def _parse_event(line):
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def _run_notebook(nb, names, seed, limits):
    """Grade exercises ``names`` of the notebook ``nb``: ({name: partial result dict}, cell errors, notes)."""
    stubs = {nb.stubs[name]: name for name in names}
    last = max(stubs)
    cells = [
        [i, notebook_source(c)]
        for i, c in enumerate(nb.cells[: last + 1])
        if c.get("cell_type") == "code" and not _is_check_cell(notebook_source(c))
    ]
    exercises = {i: [name, _function_name(name), _seed(seed, name, nb.digest)] for i, name in stubs.items()}
    results, cell_errors, notes = {}, {}, []
    skip_cells, skip_checks = set(), set()
    deadline = time.monotonic() + limits.notebook
    with tempfile.TemporaryDirectory(prefix="rnn_core_grade_") as tmp:
        for n in range(len(cells) + len(names) + 1):  # each rerun leaves out one more cell or check
            events, (kind, what, _), stopped, code, tail = _attempt(
                Path(tmp), n, cells, exercises, skip_cells, skip_checks | set(results), limits, deadline
            )
            done = False
            for event in events:
                if event["event"] == "cell error":
                    cell_errors[event.get("cell")] = (event.get("error", ""), bool(event.get("syntax")))
                elif event["event"] == "result" and event.get("name") in names:
                    results[event["name"]] = event
                elif event["event"] == "done":
                    done = True
                elif event["event"] == "fatal":
                    return _grader_failed(names, results, event.get("error", "")), cell_errors, notes
            if done:
                break
            if stopped == "notebook":
                notes.append(
                    f"{nb.label} ran past the time limit for a notebook ({limits.notebook:g} s)"
                    + (f", in cell {what + 1}" if kind == "cell" else f", checking {what}" if kind == "check" else "")
                    + "."
                )
                for name in names:
                    results.setdefault(name, _timed_out_notebook(name, limits))
                break
            how = (
                f"ran past the time limit of {limits.exercise if kind == 'check' or what in stubs else limits.cell:g} s"
                if stopped
                else f"ended the grader's process ({_how_it_ended(code)})"
            )
            if kind == "check":
                results[what] = _stopped_check(what, how, stopped, tail)
            elif kind == "cell" and what in stubs:
                results[stubs[what]] = _stopped_stub(stubs[what], what, how, stopped)
                skip_cells.add(what)
            elif kind == "cell":
                cell_errors[what] = (f"it {how}; the grader went on without it", False)
                skip_cells.add(what)
            else:  # the child ended before running any cell: the grader's environment, not the notebook
                return _grader_failed(names, results, tail or how), cell_errors, notes
    for name in names:
        results.setdefault(name, _timed_out_notebook(name, limits))
    return results, cell_errors, notes


def _grader_failed(names, results, error):
    last = " ".join(error.strip().splitlines()[-1:]) if error.strip() else "no message"
    for name in names:
        results.setdefault(
            name,
            {
                "status": "error",
                "message": f"{name}: not graded: the grader itself failed ({last}). This is a problem of the grading "
                "machine or of rnn_core's grader, not of the notebook: tell your instructor.",
                "stopped": True,
            },
        )
    return results


def _stopped_check(name, how, stopped, tail):
    if stopped:
        message = (
            f"{name}: checking your function {how} for one exercise, so it scores zero. The check calls it on a "
            "few dozen cases and the right answers take milliseconds: does it loop forever, or wait for something?"
        )
    else:
        last = " ".join(tail.strip().splitlines()[-1:]) if tail.strip() else ""
        message = f"{name}: checking your function {how}, so it scores zero"
        message += f" (its last words: {last})" if last else ""
        message += ". Does it call os._exit, crash Python or use up the memory?"
    return {"status": "timed out" if stopped else "error", "message": message, "stopped": True}


def _stopped_stub(name, cell, how, stopped):
    message = (
        f"{name}: running its cell (cell {cell + 1}) {how}, so its function could not be checked and it scores zero. "
        "Does the cell call something that never returns, or end the process?"
    )
    return {"status": "timed out" if stopped else "error", "message": message, "stopped": True}


def _timed_out_notebook(name, limits):
    return {
        "status": "timed out",
        "message": f"{name}: not graded: the notebook ran past the grader's time limit for a notebook "
        f"({limits.notebook:g} s) before this exercise's turn, so it scores zero.",
        "stopped": True,
    }


# -- grading ----------------------------------------------------------------------------------------------


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


def grade(
    submissions,
    *,
    seed=0,
    points=None,
    exercises=None,
    exercise_timeout=EXERCISE_TIMEOUT,
    cell_timeout=CELL_TIMEOUT,
    notebook_timeout=NOTEBOOK_TIMEOUT,
    jobs=1,
    log=None,
):
    """Grade ``submissions`` (paths: notebooks, or folders of one student's notebooks); a list of SubmissionResult.

    seed: the instructor's seed of the hidden cases (an int). points: {exercise: points}, default 1 each.
    exercises: the exercises to grade (names, or two-digit notebook numbers); default: every exercise that
      any submission holds or ``points`` names, so that every submission is scored on the same list.
    The limits are in seconds; jobs: notebooks graded at once; log: a stream for one line per notebook.
    Raises GradeError only for the arguments (a path that does not exist, an unknown exercise), never for
    what a submission holds.
    """
    known = _exercises()
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
    limits = _Limits(float(exercise_timeout), float(cell_timeout), float(notebook_timeout))

    read = []  # per submission: (name, [notebooks], notes)
    for path in paths:
        notebooks = [_read_notebook(p, label) for p, label in _submission_notebooks(path)]
        read.append((os.path.normpath(str(path)), notebooks))
    if exercises:
        graded = _selection(exercises, known)
    else:
        present = {n for _, nbs in read for nb in nbs for n in (*nb.stubs, *_expected(nb, known))}
        present |= set(points or {})  # an exercise given points is expected, even where no submission has it
        graded = [n for n in known if n in present]
    weights = _points(points, graded)

    plans, work = [], []  # plans: per submission {name: (notebook, ...)}; work: notebooks to run
    for sub_name, notebooks in read:
        owner, notes = _owners(notebooks, graded, known)
        plans.append((sub_name, notebooks, owner, notes))
        for nb in notebooks:
            names = [n for n in graded if owner.get(n) is nb]
            if names:
                work.append((sub_name, nb, names))

    def run(item):
        sub_name, nb, names = item
        if log is not None:
            log.write(f"grading {sub_name}: {nb.label} ({', '.join(names)})\n")  # one write: jobs run in threads
            log.flush()
        t0 = time.monotonic()
        try:
            outcome = _run_notebook(nb, names, seed, limits)
        except Exception as e:  # a bug of the grader's: every exercise of the notebook says so, the others go on
            outcome = _grader_failed(names, {}, f"{type(e).__name__}: {e}"), {}, []
        return outcome, time.monotonic() - t0

    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        outcomes = dict(zip([(s, id(nb)) for s, nb, _ in work], pool.map(run, work)))

    results = []
    for sub_name, notebooks, _, notes in plans:
        seconds, graded_results = 0.0, {}
        for nb in notebooks:
            if (sub_name, id(nb)) in outcomes:
                (partial, cell_errors, nb_notes), took = outcomes[(sub_name, id(nb))]
                seconds += took
                notes.extend(nb_notes)
                for name, event in partial.items():
                    graded_results[name] = _result(name, event, nb, cell_errors, weights[name])
        exercise_results = [
            graded_results.get(name) or _missing(name, notebooks, known, weights[name]) for name in graded
        ]
        read_notes = [f"Notebooks read: {', '.join(nb.label for nb in notebooks) or 'none'}."]
        read_notes += [nb.problem for nb in notebooks if nb.problem] + [m for nb in notebooks for m in nb.notes]
        results.append(SubmissionResult(sub_name, exercise_results, read_notes + notes, seconds))
    return results


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


def _result(name, event, nb, cell_errors, points):
    status = event.get("status", "error")
    message = event.get("message") or f"{name}: {status}"
    cell = nb.stubs[name]
    stub_error = cell_errors.get(cell)
    if stub_error and stub_error[1]:  # a syntax error: the function was never defined by its cell
        status = "error"
        message = (
            f"{name}: your cell (cell {cell + 1}) has a syntax error, so {_function_name(name)} could not be defined "
            f"and it scores zero: {stub_error[0]}."
        )
    notes = (
        []
        if event.get("stopped")
        else [
            f"Graded: {_function_name(name)} as it stands right after its cell (cell {cell + 1} of {nb.label}, "
            f"counting every cell from 1 at the top; tagged exercise:{name}), with the notebook's code cells before "
            "it run first, on hidden cases drawn for this submission (not the notebook's public ones)."
        ]
    )
    if stub_error and not stub_error[1]:
        notes.append(f"Its cell raised {stub_error[0]} when it ran; the function it had defined by then was checked.")
    earlier = [(i, e) for i, (e, _) in sorted(cell_errors.items()) if i is not None and i < cell]
    if earlier:
        shown = "; ".join(f"cell {i + 1}: {e}" for i, e in earlier[:_SHOWN_ERRORS])
        more = f"; and {len(earlier) - _SHOWN_ERRORS} more" if len(earlier) > _SHOWN_ERRORS else ""
        notes.append(f"Earlier cells that raised (the grader went on past them): {shown}{more}.")
    if status == "not attempted":
        notes.append("A definition in a later cell is not seen: write your answer in the exercise's own cell.")
    return ExerciseResult(
        name,
        status,
        points if status == "passed" else 0.0,
        points,
        message,
        nb.label,
        cell,
        notes,
        list(event.get("wrong") or []),
        list(event.get("errata") or []),
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
    return {
        "grader": f"rnn_core {__version__}",
        "submissions": [{"submission": r.name, "results": gradescope_results(r)} for r in results],
    }


def write_csv(results, f):
    """One row per submission: submission, score, max_score, each exercise's points, then each one's status."""
    names = [r.name for r in results[0].exercises] if results else []
    writer = csv.writer(f)
    writer.writerow(["submission", "score", "max_score", *names, *(f"{n} status" for n in names)])
    for result in results:
        by_name = {r.name: r for r in result.exercises}
        writer.writerow(
            [
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


def _points_item(text):
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected NAME=POINTS (e.g. softmax=2), got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points after '=', got {text!r}") from None
    return name.strip(), number


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def _jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _seed_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def add_parser(sub):
    """Register ``grade`` on the command line's subparsers."""
    p = sub.add_parser(
        "grade",
        help="score submitted notebooks' exercises on hidden cases (Gradescope's results.json, CSV)",
        description=(
            "Grade the exercises of submitted notebooks. Each exercise's function is taken from its cell (tagged "
            "exercise:<name>) after the notebook's code cells before it have run, in a separate process with time "
            "limits, and checked by rnn_core.practice on hidden cases drawn from --seed and the submission's code. "
            "A function that passes scores its points, anything else zero, with the checker's message as feedback; "
            "calling rnn_core's own version of the exercise scores zero."
        ),
    )
    p.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="a notebook, or a folder of one student's notebooks (e.g. nbgrader's submitted/STUDENT/ASSIGNMENT)",
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        help="write Gradescope's results.json here (several submissions: each one's results under its name)",
    )
    p.add_argument(
        "--csv", metavar="PATH", help="write one row per submission here: total, points and status per exercise"
    )
    p.add_argument(
        "--seed",
        type=_seed_arg,
        default=0,
        metavar="N",
        help="your seed of the hidden cases; keep it to yourself (default: 0)",
    )
    p.add_argument(
        "--points",
        type=_points_item,
        nargs="+",
        action="extend",
        default=[],
        metavar="NAME=K",
        help="points of an exercise, e.g. softmax=2 loss_and_grads=3 (default: 1 each); an exercise given points "
        "is graded in every submission, scoring zero where it is missing",
    )
    p.add_argument(
        "--exercises",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="grade only these exercises (names, or notebook numbers such as 01), scoring a submission that "
        "lacks one zero for it (default: every exercise any submission holds)",
    )
    p.add_argument(
        "--exercise-timeout",
        type=_positive,
        default=EXERCISE_TIMEOUT,
        metavar="S",
        help=f"seconds for one exercise, its cell and its check (default: {EXERCISE_TIMEOUT:g})",
    )
    p.add_argument(
        "--cell-timeout",
        type=_positive,
        default=CELL_TIMEOUT,
        metavar="S",
        help=f"seconds for any other cell (default: {CELL_TIMEOUT:g})",
    )
    p.add_argument(
        "--notebook-timeout",
        type=_positive,
        default=NOTEBOOK_TIMEOUT,
        metavar="S",
        help=f"seconds for one notebook, all its cells and checks (default: {NOTEBOOK_TIMEOUT:g})",
    )
    p.add_argument("--jobs", type=_jobs, default=1, metavar="N", help="notebooks graded at once (default: 1)")
    p.set_defaults(run=_run)
    return p


def _run(args, out, err):
    try:
        results = grade(
            args.submissions,
            seed=args.seed,
            points=dict(args.points),
            exercises=args.exercises,
            exercise_timeout=args.exercise_timeout,
            cell_timeout=args.cell_timeout,
            notebook_timeout=args.notebook_timeout,
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
