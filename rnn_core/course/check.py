"""The exercise checker behind ``rnn_core.practice`` (private): ``check``, ``hint``, ``solution``.

``rnn_core.practice`` (its docstring says what a check does) re-exports these with the reader's
file (``course.yours``), which builds on ``check``: the two import this module, and neither
imports the other's caller, so the checker has no import circle.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import difflib
import hashlib
import html
import itertools
import sys
import sysconfig
import textwrap
import traceback
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import reference
from .exercises import (
    ALIASING_ROWS,
    CHAINED,
    EXERCISE_LIST,
    EXPONENTS,
    GRADE_CASES,
    as_trained_cases,
    far_apart_cases,
    float32_cases,
    public_seed_rng,
    saturated_backward_cases,
    small_cases,
    zeroed_cases,
)
from .model import ANSWER, Case, Mistake
from .run import CHECKER, LARGE, TIME_LIMIT, Odd, Seq, read, run, safe_str, type_name
from .settings import solutions_withheld

try:
    from .solutions import SOLUTIONS, plain_text
except ModuleNotFoundError:  # the student edition's wheel is built without the answers (edition.build_wheel)
    SOLUTIONS, plain_text = {}, None

__all__ = ["ERRATA_ROWS", "ERRATA_TABLE", "EXERCISES", "TIME_LIMIT", "Result", "check", "hint", "solution"]

ERRATA_TABLE = "13-appendix-errata.ipynb#The-errata-table"  # where the errata table is, from a notebook
TOL = 1e-6  # largest error, relative to the output's largest entry, that still counts as the same numbers
# the same for an output the reader's code computed in float32 (float32 inputs, or a cast), where rnn_core's own
# function cannot be run in float32 on the case to see how far float32 goes there (_tol32): its rounding (about
# 6e-8 of each number) grows through a few operations, and scores near 1000 lose 3e-5 of their size to it
TOL32 = 1e-4
_SHOWN = 3  # entries shown where an output differs


@dataclass(frozen=True)
class Result:
    """What ``check`` found: status, the names of what is wrong, the message it printed, errata rows."""

    status: str  # "passed", "not attempted", "wrong", "error" or "delegated"
    wrong: list = field(default_factory=list)  # names of the outputs (or arguments) that differ; empty unless "wrong"
    message: str = ""  # the text that check printed, before its lines were wrapped at WIDTH (practice.wrap)
    errata: tuple = ()  # rows of the errata table the answer repeats

    def _ipython_display_(self):
        """Nothing: check has printed the message already (a cell ending with check shows it once)."""

    def __repr__(self):
        return f"Result(status={self.status!r}, wrong={self.wrong!r}, errata={self.errata!r})"


_EXPLAIN = contextvars.ContextVar("explain", default=True)  # check's explain=: say what each mistake is


def check(name, fn, *, seed=None, explain=True):
    """Check the reader's function ``fn`` against the ``rnn_core`` function ``name``; print and return a Result.

    name: one of ``EXERCISES`` (e.g. "softmax", "loss_and_grads", "lstm.step_backward").
    fn: the reader's function, taking the same arguments and returning the same values as the
      ``rnn_core`` function of that name.
    seed: None for the public cases (the same every time); an int draws other cases with the same
      properties (for a grader's hidden cases). ``python -m rnn_core grade`` adds cases of its own, of
      sizes far beyond these (``grading``); check alone never draws them.
    explain: False names each recognised mistake by its errata row and title only, leaving out what it
      is and how to mend it (for an exercise whose task is to find that: the appendix's repair).
    Prints one message, every line at most ``WIDTH`` (88) characters, broken at spaces, and returns
    ``Result(status, wrong, message, errata)``. Raises only for a name that is not an exercise, an
    ``fn`` that is not a function, or a real interrupt (the stop button), never because of what ``fn``
    does: a closed stdout, a SIGINT it sends itself or a swapped ``__code__`` on the checker's own
    functions are reported, and the next check (``check_all``'s next row) runs as usual.

    What it cannot guard against: ``fn`` runs in the learner's own Python process, beside the
    checker, so code written to fool it can. A thread started in an earlier cell, a forked or spawned
    process, the profiler switched off and on again, a signal sent from another thread or process
    (taken for the stop button), changes to the checker's data or closures rather than its code, or
    the answers read from rnn_core's files are beyond what a check inside that process can see. It is a
    helper for a learner who wants to know what is wrong; for marks, ``python -m rnn_core grade`` runs
    each exercise in a fresh process of its own and compares its outputs outside it.
    """
    exercise = _exercise(name)
    if not callable(fn):
        raise TypeError(
            f"check({name!r}, fn): fn must be your function itself (e.g. {_short(name)}, "
            f"not {_short(name)}(...)), got {type_name(fn)}"
        )
    if seed is not None and not isinstance(seed, (int, np.integer)):
        raise TypeError(f"check({name!r}, fn, seed=...): seed must be an int or None, got {type_name(seed)}")
    tampered = reference.restore_checker()  # an earlier cell's swapped __code__ on the checker's functions
    token = _EXPLAIN.set(bool(explain))
    try:
        result = _check(exercise, fn, seed)
    except Exception as exc:  # a bug of the checker itself must not look like the reader's
        result = Result(
            "error",
            [],
            f"{name}: the checker failed ({safe_str(exc)}). This is a bug of rnn_core.practice, not of your function.",
        )
    finally:
        _EXPLAIN.reset(token)
    if tampered:
        result = replace(result, message=result.message + "\n" + _tampered_note(tampered))
    _show(wrap(result.message), printed=result.status == "not attempted")
    return result


def hint(name):
    """Print a nudge, in words, for the exercise ``name``."""
    print(wrap(f"{name}: {_exercise(name).hint}"))


WIDTH = 88  # the longest line check prints: JupyterLab breaks longer ones anywhere, mid-word too,
# and 88 characters fit a site page at 1300 px as they fit a code cell (notebooks/.ruff.toml)


def wrap(message, width=WIDTH):
    """``message`` with every line longer than ``width`` broken at spaces; a continued line that was indented is
    indented two spaces further. Words are never split (a word longer than the width keeps its line)."""
    lines = []
    for line in message.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        kept = line.replace(" = ", "\ue000=\ue000")  # "H = 6" on one line: textwrap breaks at ASCII spaces only
        parts = textwrap.wrap(
            kept,
            width,
            subsequent_indent=indent + "  " if indent else "",
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines += [part.replace("\ue000", " ") for part in parts]
    return "\n".join(lines)


def solution(name):
    """Print the reference solution of the exercise ``name``: the code of its folded Answer, which passes ``check``.

    In a student edition (``python -m rnn_core student-edition``: its marker file in the working folder or
    a folder above it, or ``$RNN_CORE_SOLUTIONS=withheld``) it prints that the instructor has withheld it.
    """
    _exercise(name)
    withheld = solutions_withheld()
    if withheld:
        print(
            f"{name}: your instructor has withheld the solutions here ({withheld}). "
            f'practice.hint("{name}") gives a nudge, and practice.check says what is wrong with yours.'
        )
        return
    print(plain_text(SOLUTIONS[name]))


# -- the machinery ---------------------------------------------------------------------------------------


class _Missing:
    """Stands for an output the reader's answer does not have (a missing key, a dict that is not one)."""

    def __init__(self, why):
        self.why = why

    def __eq__(self, other):  # the same gap found again, on a call repeated, is the same answer
        return isinstance(other, _Missing) and other.why == self.why

    __hash__ = None


_ALIASING = Mistake(
    "aliasing",
    "delta_o = o",
    "a second name for an array is not a copy: changing it changes the caller's array too "
    "(make a copy first, or write the result into a new array).",
    ALIASING_ROWS,
    "",
    None,
)


def _exercise(name):
    if name in _BY_NAME:
        return _BY_NAME[name]
    close = difflib.get_close_matches(str(name), list(_BY_NAME), n=1)
    also = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"no exercise named {name!r}.{also} The exercises: {', '.join(_BY_NAME)}")


def _short(name):
    return name.rsplit(".", 1)[-1]


@dataclass
class _Run:
    """One case, what rnn_core gives on it, and what the reader's function did."""

    case: object
    want_raw: object  # the reference's return value
    call: object  # the course.run.Call
    got: dict = None  # output name -> the reader's value (when it returned one)
    want: dict = None  # output name -> the reference's value


_GRADING = contextvars.ContextVar("grading", default=False)  # grade's check: its own large cases too (GRADE_CASES)


@contextlib.contextmanager
def grading():
    """Within it, check adds the grader's own cases (``GRADE_CASES``: sizes beyond every published case) to the
    cases of a seed; ``python -m rnn_core grade`` checks each submission so, a learner's check never does."""
    token = _GRADING.set(True)
    try:
        yield
    finally:
        _GRADING.reset(token)


def _check(ex, fn, seed):
    """Run every case; report the first problem, in the order of the cases, or "passed"."""
    _MISSES32.clear()  # the float32 misses of the last check's cases
    rng = public_seed_rng(seed, list(_BY_NAME).index(ex.name))
    cases = ex.cases(rng)
    if _GRADING.get():
        large = GRADE_CASES[ex.name](rng)
        variants = zeroed_cases(ex, cases[:2]) + float32_cases(ex, cases[:2]) + far_apart_cases(ex, cases[:2])
        variants += small_cases(ex, cases[:1], rng) + saturated_backward_cases(ex, cases[:1], rng)  # drawn last
        variants += as_trained_cases(ex, rng)
        cases = cases + large + variants
    square = next((c for c in cases if c.square), None)
    main = [c for c in cases if not c.square]
    notes = _patched_notes(ex)
    own = reference.code_of(fn)
    if own is not None and reference.origin(own) in ex.watch:
        return _delegated(ex, [".".join(reference.origin(own))], notes, itself=True)
    runs = []
    for i, case in enumerate(main):
        runs.append(
            _Run(case, _reference(ex, case), run(fn, case.args, ex.watch, echo=i == 0, time_limit=_limit(case)))
        )
        stopped = _stopped(ex, runs[-1], notes)
        if stopped:
            return stopped
    stubs = [_stub_kind(fn, r.call) for r in runs]
    if all(stubs):
        return _not_attempted(ex, fn, stubs[0])
    for r in runs:
        if r.call.error is None and r.call.value is not None:
            r.got, r.want = _flatten(ex, r.call.value, r.want_raw)
    for r, stub in zip(runs, stubs):
        problem = _problem(ex, fn, r, stub, runs, square, notes)
        if problem:
            return problem
    return _right_on_every_case(ex, fn, runs, notes) or _passed(ex, main, notes)


def _right_on_every_case(ex, fn, runs, notes):
    """Right on every case: the Result if an output is the caller's own dict, or if the function goes wrong called
    again, in another order, on the same arrays changed, or step after step on its own state; else None."""
    for r in runs:
        theirs = _returned_theirs(ex, r, notes)
        if theirs:
            return theirs
    return _again(ex, fn, runs, notes) or _repeated(ex, fn, runs, notes) or _chained(ex, fn, runs, notes)


def _stopped(ex, r, notes):
    """The Result if the call ran out of time or handed the work to rnn_core's own function, else None."""
    if r.call.timed_out:
        return _timed_out(ex, r.case, notes, limit=r.call.limit)
    if r.call.delegated:
        return _delegated(ex, r.call.delegated, notes)
    return None


def _problem(ex, fn, r, stub, runs, square, notes):
    """The Result for the first problem of one case's call (raised, None, changed a module, wrong, changed
    its arguments), else None."""
    if r.call.error is not None:
        return _raised(ex, fn, r, square, notes, stub)
    if r.call.value is None:
        lines = [
            f"{ex.name}: wrong. Your function returns None on {r.case.about}, and values on other cases: does "
            "every path through it end with a return?"
        ]
        return _report("wrong", list(_output_names(ex, r.want_raw)), lines, notes)
    if r.call.patched:
        return _patching(ex, r, notes)
    wrong = _differences(r.got, r.want, r.case, ex)
    if wrong:
        return _wrong(ex, fn, r, wrong, runs, square, notes)
    return _arguments_changed(ex, r, notes)


def _arguments_changed(ex, r, notes):
    """The Result if the call changed the caller's arrays or dicts (its outputs right), else None."""
    changed, keys = _changed(ex, r.case.args, r.call.args_after, r.call.entries)
    if changed:
        lines = [
            f"{ex.name}: wrong. Your outputs are right, on {r.case.about}, but your function changed "
            f"{_join(changed)} in place: the caller's {'arrays' if len(changed) > 1 else 'array'}, not its own."
        ]
        return _report("wrong", changed + list(keys), lines + _keys_lines(keys), notes, [(changed, _ALIASING)])
    if keys:
        lines = [
            f"{ex.name}: wrong. Your outputs are right, on {r.case.about}, but your function changed the caller's dict:"
        ] + _keys_lines(keys)
        lines.append("Leave the caller's dicts as they came: build new ones for what you return.")
        return _report("wrong", list(keys), lines, notes)
    return None


_RETURNED_THEIRS = Mistake(
    "returned-theirs",
    "returns your caller's own dict",
    "a second name for the caller's dict, not a new one: a caller that changes it afterwards (zeroes its "
    "gradients for the next step, say) changes your result with it. Return a new dict ({name: ... for name, g in "
    "grads.items()}, or dict(grads)) even where nothing changes.",
    (),
    "",
    None,
)


def _returned_theirs(ex, r, notes):
    """The Result if an output is the very dict the caller passed in (where a new one is promised), else None. Looked
    at once every case is right: a dict changed in place, which it may also be, is said first."""
    raw = r.call.raw
    parts = (raw,) if len(ex.outputs) == 1 else tuple(raw) if isinstance(raw, (tuple, list)) else ()
    for out, part in zip(ex.outputs + ex.optional, parts):
        arg = next((a for a, given in zip(ex.args, r.call.args_after) if given is part), None)
        if isinstance(part, dict) and arg is not None:
            what = f"{arg} itself" if arg == out else f"{arg} itself, as its {out}"
            lines = [
                f"{ex.name}: wrong. Your outputs are right, on {r.case.about}, but your function returns the "
                f"caller's own dict, {what}: the stub asks for a new dict."
            ]
            return _report("wrong", [out], lines, notes, [([out], _RETURNED_THEIRS)])
    return None


def _passed(ex, main, notes):
    """The Result "passed", naming the cases (a group of cases that differ only in one respect once)."""
    abouts = list(dict.fromkeys(c.group or c.about for c in main))
    count = {1: "the case", 2: "both cases"}.get(len(main), f"all {len(main)} cases")
    line = f"{ex.name}: passed. Your function agrees with {ex.reference_name} on {count}."
    # the cases in a short form, shown only where they are few: a list of nine buried what comes next
    if len(abouts) <= 3:
        line = f"{line[:-1]}: {'; '.join(abouts)}."
    return _report("passed", [], [line], notes)


def _reference(ex, case):
    """rnn_core's function on the case; in float64 on a case of float32 inputs (``case.extra["inputs32"]``): their
    exact answer, to which every answer is held within float32's tolerance (``_differences``)."""
    args = _cast(case.args, np.float64) if case.extra.get("inputs32") else copy.deepcopy(case.args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return ex.reference(*args)


def _output_names(ex, reference_value):
    """The names of the outputs every answer returns (the optional ones left out), as Result.wrong gives them."""
    parts = (reference_value,) if len(ex.outputs) == 1 else tuple(reference_value)
    names = []
    for name, part in zip(ex.outputs, parts):
        names += list(part) if name in ex.by_key else [name]
    return names


def _again(ex, fn, runs, notes):
    """Right on every case: called again on the first case, and its earlier results looked at again."""
    first = runs[0]
    call = run(fn, first.case.args, ex.watch, echo=False, time_limit=_limit(first.case))
    if call.timed_out:
        return _timed_out(ex, first.case, notes, "the second time it was called", call.limit)
    if call.delegated:
        return _delegated(ex, call.delegated, notes)
    if call.error is not None:
        return _raised(
            ex, fn, _Run(first.case, first.want_raw, call), None, notes, None, "the second time it was called"
        )
    if call.patched:
        return _patching(ex, _Run(first.case, first.want_raw, call), notes)
    got, want = _flatten(ex, call.value, first.want_raw) if call.value is not None else ({}, first.want)
    wrong = _differences(got, want, first.case, ex) if call.value is not None else dict.fromkeys(want, "None")
    if wrong:
        names = list(wrong)
        lines = [
            f"{ex.name}: wrong. Right on every case, but called a second time on the arguments of the first "
            f"({first.case.about}, fresh copies), your function gives a different {_join(names)}.",
            "It keeps something from one call to the next: a global it changes, or an array it reads but does not own.",
        ]
        return _report("wrong", names, lines, notes)
    return _kept(ex, runs + [_Run(first.case, first.want_raw, call, got, want)], notes)


def _kept(ex, runs, notes):
    """The Result "wrong" if a result returned earlier changed since, or is an array another call returned too."""
    earlier = _Returned()
    for r in runs:
        try:
            now = read(r.call.raw)
            again, _ = _flatten(ex, now, r.want_raw)
        except Exception:
            again = {}
        changed = [n for n in r.got if n not in again or not _equal(again[n], r.got[n])]
        mine = _arrays(r.call.raw)
        shared = [n for n, a in mine if earlier.shares(a)]
        earlier.add(a for _, a in mine)
        if changed or shared:
            names = changed or shared
            how = "changed when it was called again" if changed else "is the very array it returned on an earlier call"
            lines = [
                f"{ex.name}: wrong. Right on every case, but the {_join(names)} your function returned on "
                f"{r.case.about} {how}: it returns an array it keeps and overwrites (a buffer at module level?). "
                "Return a new array from every call.",
            ]
            return _report("wrong", names, lines, notes)
    return None


# calls on fresh copies after the first pass: the last cases in reverse order, then the first case this many
# times in a row, more than a ring of buffers reused in turn (one ring for each shape, say) holds
_REVERSED, _IN_A_ROW = 3, 6


def _repeated(ex, fn, runs, notes):
    """Right on every case, and again on the first: called on fresh copies in another order, then twice on the
    same arrays with their entries changed in between, every result right and none changed afterwards."""
    order = runs[::-1][:_REVERSED] + [runs[0]] * _IN_A_ROW
    done = list(runs)
    for first in order:
        r = _Run(
            first.case, first.want_raw, run(fn, first.case.args, ex.watch, echo=False, time_limit=_limit(first.case))
        )
        problem = _repeat_problem(ex, r, notes, "again on fresh copies of the cases, in another order")
        if problem:
            return problem
        done.append(r)
    kept = _kept(ex, done, notes)
    if kept or not ex.varied:
        return kept
    first = runs[0]
    args = copy.deepcopy(first.case.args)  # the same objects for every call, as a training loop passes them
    # then one argument at a time changed (a result looked up by some of the arguments only, say by the inputs
    # but not the weights, comes out stale), then entries reordered with the first entry and the sum kept (a
    # result looked up by a shape, a first entry or a sum comes out stale)
    one_at_a_time = [f"after {name}'s entries alone changed" for name in ex.varied] if len(ex.varied) > 1 else []
    reordered = [
        "after their entries were reordered, the first entry and the sum kept",
        "after all but their first entries changed",
    ]
    for when in ("", "after their entries changed", *one_at_a_time, *reordered):
        if when in one_at_a_time:
            _vary(ex, args, (ex.varied[one_at_a_time.index(when)],))
        elif when in reordered:
            _reorder(ex, args, scale=reordered.index(when) == 1)
        elif when:
            _vary(ex, args)
        if ex.derived is not None:
            ex.derived(args)  # a backward step's h_t or cache made again from the changed params: a consistent step
        case = Case(f"{first.case.about}{', ' + when if when else ''}", tuple(args))
        r = _Run(
            case, _reference(ex, case), run(fn, args, ex.watch, echo=False, fresh=False, time_limit=_limit(first.case))
        )
        how = f"on the same {_join(ex.varied)} twice, changed in place in between (as a training loop does)"
        problem = _repeat_problem(ex, r, notes, how)
        if problem:
            return problem
    return None


def _chained(ex, fn, runs, notes):
    """Right on every case, and on repeated calls: the steps ``CHAINED`` names after the first case, each given what
    the reader's function returned the step before (its own params and state, extra keys and all), compared with
    rnn_core's steps given its own. None where the exercise has none, or where they agree."""
    later = CHAINED.get(ex.name)
    if later is None:
        return None
    first = runs[0]
    mine, theirs = (first.case.args, first.call.raw), (first.case.args, first.want_raw)
    for about, args_of in later(first.case):
        try:
            args = args_of(*mine)
        except Exception:  # what it returned cannot be given back (right on every case, so it should)
            return None
        case = Case(f"{about} (after {first.case.about})", args_of(*theirs))
        r = _Run(case, _reference(ex, case), run(fn, args, ex.watch, echo=False, time_limit=_limit(first.case)))
        how = "step after step, each time on the params and state it returned itself (as a training loop calls it)"
        problem = _repeat_problem(ex, r, notes, how, chained=True)
        if problem:
            return problem
        mine, theirs = (args, r.call.raw), (case.args, r.want_raw)
    return None


def _repeat_problem(ex, r, notes, how, chained=False):
    """The Result if a repeated call went wrong in any way, else None (and r.got, r.want filled in)."""
    call = r.call
    if call.timed_out or call.delegated:
        return _stopped(ex, r, notes)
    if call.patched:
        return _patching(ex, r, notes)
    if call.error is not None:
        lines = [
            f"{ex.name}: error. Right on every case, but called {how}, your function raised "
            f"{safe_str(call.error)}, on {r.case.about}."
        ]
        return _report("error", [], lines, notes)
    if call.value is None:
        r.got, r.want = {}, _flatten_reference(ex, r.want_raw)[0]
        wrong = dict.fromkeys(r.want, "None")
    else:
        r.got, r.want = _flatten(ex, call.value, r.want_raw)
        wrong = _differences(r.got, r.want, r.case, ex)
    if not wrong:
        return None
    names = list(wrong)
    lines = [
        f"{ex.name}: wrong. Right on every case, but called {how}, your function gives a wrong "
        f"{_join(names)} on {r.case.about}:",
        *[f"  {n}: {why}" for n, why in _grouped(wrong)],
        "It keeps something from one step to the next besides what the state holds (t, m and v): a value under a "
        "key of its own (a running maximum of v, say) changes later steps. Keep the state exactly as asked."
        if chained
        else "It keeps something from one call to the next: a result it looks up by id() or by call count, a "
        "buffer it reuses, a global it changes. Compute every result afresh from the arguments.",
    ]
    return _report("wrong", names, lines, notes)


def _vary(ex, args, names=None):
    """Change, in place, the entries of the arguments ``ex.varied`` names (or ``names``): each array's entries
    moved one place along (indices stay indices, probabilities stay probabilities), and floats other than
    probabilities made a quarter larger too (so that a norm changes with them)."""
    for name in ex.varied if names is None else names:
        value = args[ex.args.index(name)]
        for a in value.values() if isinstance(value, dict) else (value,):
            if not isinstance(a, np.ndarray):
                continue
            a[...] = np.roll(a.ravel(), 1).reshape(a.shape)
            if a.dtype.kind == "f" and name != "y_hat":
                a *= 1.25


def _reorder(ex, args, scale=False):
    """Reverse, in place, all but the first entry of each array of the arguments ``ex.varied`` names: the shape,
    the first entry, the sum and the norm stay, the rest moves (indices stay indices, probabilities stay
    probabilities). ``scale``: floats other than probabilities also made a quarter larger, but the first."""
    for name in ex.varied:
        value = args[ex.args.index(name)]
        for a in value.values() if isinstance(value, dict) else (value,):
            if isinstance(a, np.ndarray) and a.size > 2:
                flat = a.reshape(-1).copy()
                flat[1:] = flat[1:][::-1].copy()
                if scale and a.dtype.kind == "f" and name != "y_hat":
                    flat[1:] *= 1.25
                a[...] = flat.reshape(a.shape)


class _Returned:
    """The arrays earlier calls returned, with the bytes each spans: np.shares_memory is asked only of those whose
    span meets an array's own (a dict of 600 arrays per call made every pair's question cost seconds)."""

    def __init__(self):
        self.arrays, self.spans = [], np.zeros((0, 2), dtype=np.int64)

    def add(self, arrays):
        new = list(arrays)
        self.arrays += new
        self.spans = np.concatenate([self.spans, np.array([_span(a) for a in new], dtype=np.int64).reshape(-1, 2)])

    def shares(self, a):
        """Whether ``a`` shares memory with an array returned earlier."""
        lo, hi = _span(a)
        near = np.flatnonzero((self.spans[:, 0] < hi) & (lo < self.spans[:, 1]))
        return any(np.shares_memory(a, self.arrays[i]) for i in near)


def _span(a):
    """(first byte, one past the last byte) of an array's entries, read off a plain ndarray view of it (never the
    returned object's own attributes); an empty array spans nothing."""
    view = np.asarray(a)
    lo = hi = int(view.__array_interface__["data"][0])
    for n, stride in zip(view.shape, view.strides):
        if n == 0:
            return lo, lo
        lo, hi = (lo + (n - 1) * stride, hi) if stride < 0 else (lo, hi + (n - 1) * stride)
    return lo, hi + view.itemsize


def _arrays(value, name="", depth=0):
    """(path, array) of every numpy array in a returned value."""
    if isinstance(value, np.ndarray):
        return [(name or "output", value)]
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [x for k, v in dict.items(value) for x in _arrays(v, str(k), depth + 1)]
    if isinstance(value, (tuple, list)):
        return [x for i, v in enumerate(value) for x in _arrays(v, name or str(i), depth + 1)]
    return []


# -- the statuses that are not about the numbers ---------------------------------------------------------


def _stub_kind(fn, call):
    """The not-attempted wording if this call is the stub's (its own NotImplementedError, or None), else None."""
    if call.error is None:
        return "returns None: write its body, ending with a return," if call.value is None else None
    if isinstance(call.error, NotImplementedError) and not call.reading and _raised_by(fn, call.error) == "itself":
        return "still raises NotImplementedError: write its body,"
    return None


def _raised_by(fn, exc):
    """ "itself" if the innermost frame of the reader's code that raised ``exc`` is ``fn``'s own, else that frame."""
    frames = _their_frames(exc)
    if not frames:
        return None
    own = reference.code_of(fn) or reference.code_of(type(fn).__dict__.get("__call__"))  # a function, or an object's
    last = frames[-1]
    if own is not None and last.name == own.co_name and last.filename == own.co_filename:
        return "itself"
    return last


def _not_attempted(ex, fn, what):
    short = getattr(fn, "__name__", "")
    short = short if isinstance(short, str) and short.isidentifier() else _short(ex.name)  # a lambda's is not one
    return Result(
        "not attempted",
        [],
        f"{ex.name}: not attempted yet. Your {short} {what} then run this cell again.\n"
        f'practice.hint("{ex.name}") gives a nudge.',
    )


def _delegated(ex, functions, notes, itself=False):
    plain = [f for f in functions if "<" not in f] or functions  # comprehensions and lambdas: inside the others
    names = [f"rnn_core.{f}" for f in plain][:3]  # the first it called: the way in
    if itself:
        lines = [
            f"{ex.name}: not your own. This is rnn_core's own {_short(ex.name)} ({names[0]}), the function the "
            f"check compares with. Define your own function in a cell, then pass it: "
            f'practice.check("{ex.name}", your_function).'
        ]
    else:
        checker = [n for n in names if n.split(".")[1] in CHECKER or ".".join(n.split(".")[1:3]) in CHECKER]
        what = (
            "the checker's own code, which is what it compares with"
            if checker == names
            else "rnn_core's own version of this exercise, which is what the check compares with"
        )
        lines = [
            f"{ex.name}: not your own. Your function calls {_join(names)}{' (and more)' if len(plain) > 3 else ''}, "
            f"{what}: it cannot tell your code "
            "from rnn_core's. Write the computation yourself (calling rnn_core's other functions is fine)."
        ]
    return _report("delegated", [], lines, notes)


def _limit(case):
    """The seconds a call on ``case`` gets: TIME_LIMIT, LARGE times it on a size beyond every published case (a
    right answer that builds a V × V matrix, as np.eye(V)[y] does, takes a second or more there)."""
    return TIME_LIMIT * (LARGE if case.large else 1.0)


def _timed_out(ex, case, notes, when=None, limit=TIME_LIMIT):
    lines = [
        f"{ex.name}: error. Your function was still running after {limit:g} s "
        f"{'(called ' + when + ') ' if when else ''}on {case.about}, and was stopped: an endless loop? "
        "A right answer takes milliseconds."
    ]
    return _report("error", [], lines, notes)


def _patching(ex, r, notes):
    names = r.call.patched
    lines = [
        f"{ex.name}: wrong. While it ran, on {r.case.about}, your function changed {_join(names)}; check put "
        f"{'them' if len(names) > 1 else 'it'} back. Every later cell that uses "
        f"{'them' if len(names) > 1 else 'it'} would run something else: compute the result without changing "
        "rnn_core, numpy or Python's own modules."
    ]
    return _report("wrong", names, lines, notes)


def _raised(ex, fn, r, square, notes, stub, when=None):
    exc, case = r.call.error, r.case
    if stub:  # the function's own NotImplementedError here, but not on every case
        lines = [
            f"{ex.name}: wrong. Your function raises NotImplementedError on {case.about}, and returns values on "
            "other cases: finish every branch of its body."
        ]
        return _report("wrong", _output_names(ex, r.want_raw), lines, notes)
    by = _raised_by(fn, exc)
    if isinstance(exc, NotImplementedError) and by not in (None, "itself"):
        lines = [
            f"{ex.name}: wrong. Your function calls {by.name}, which still raises NotImplementedError "
            f"(line {by.lineno}): write its body too, then run this cell again."
        ]
        return _report("wrong", _output_names(ex, r.want_raw), lines, notes)
    where = _line(by) if by not in (None, "itself") else (_line(_their_frames(exc)[-1]) if _their_frames(exc) else None)
    what = {
        SystemExit: "SystemExit: sys.exit() and exit() stop Python itself; return the result instead",
        KeyboardInterrupt: "KeyboardInterrupt, from its own code (not the stop button)",
    }.get(type(exc), safe_str(exc))
    if r.call.reading:
        lines = [
            f"{ex.name}: error. Your function returned {_kind(r.call.raw)}, and reading it as numbers raised "
            f"{safe_str(exc)}. Return numpy arrays (np.asarray(...)), numbers, and dicts or tuples of them.",
            f"  On {case.about}.",
        ]
        return _report("error", [], lines, notes)
    lines = [
        f"{ex.name}: error. Your function raised {what}",
        f"  {where}"
        if where
        else f"  check calls it as {_short(ex.name)}({', '.join(ex.args)}): does it take these arguments?",
        f"  {'Called ' + when + ', on' if when else 'On'} {case.about}.",
    ]
    if square is not None and isinstance(exc, (ValueError, IndexError)):
        found, header = _square_diagnosis(ex, fn, square)
        return _report("error", [], lines, notes, found, header)
    return _report("error", [], lines, notes)


def _their_frames(exc):
    """The traceback frames of the reader's code (outside rnn_core and installed libraries), outermost first."""
    libraries = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    ours = str(reference.HOME)
    try:
        frames = traceback.extract_tb(exc.__traceback__)
    except Exception:
        return []
    out = []
    for f in frames:
        try:
            path = str(Path(f.filename).resolve())
        except (OSError, ValueError):
            path = f.filename
        if not path.startswith((ours, *libraries)):
            out.append(f)
    return out


def _line(frame):
    line = (frame.line or "").strip()
    return f"in {frame.name}, line {frame.lineno}: {line}" if line else f"in {frame.name}, line {frame.lineno}"


def _square_diagnosis(ex, fn, square):
    """fn on the square case: (found, header) if it then gives exactly a known mistake, else ([], None)."""
    call = run(fn, square.args, ex.watch, echo=False)
    if call.error is not None or call.timed_out or call.value is None:
        return [], None
    r = _Run(square, _reference(ex, square), call)
    r.got, r.want = _flatten(ex, call.value, r.want_raw)
    wrong = _differences(r.got, r.want, r.case, ex)
    combo = _explain(ex, [r], r, wrong) if wrong else None
    if not combo:
        return [], None
    verb = "is" if len(wrong) == 1 else "are"
    return _found(ex, combo, r, wrong), (
        f"On {square.about}, where those shapes agree, your function runs; there {_join(wrong)} {verb} wrong, "
        "exactly as this mistake makes them:"
    )


# -- wrong numbers ------------------------------------------------------------------------------------------


def _wrong(ex, fn, r, wrong, runs, square, notes):
    lines = [f"{ex.name}: wrong, on {r.case.about}. Compared with {ex.reference_name}:"]
    lines += [f"  {names}: {why}" for names, why in _grouped(wrong)]
    right = [name for name in r.want if name not in wrong]
    if right:
        lines.append(f"  right: {', '.join(right)}")
    ran = [x for x in runs if x.got is not None and not x.case.long]
    combo = None if r.case.long else _explain(ex, ran, r, wrong)
    long = [x for x in runs if x.got is not None and x.case.long]
    if combo and not all(_fits(ex, x, {m.step: m.fn for m in combo}) for x in long):
        combo = None  # it fits the short cases, not the long one: something else besides
    found = _found(ex, combo, r, wrong) if combo else []
    changed, keys = _changed(ex, r.case.args, r.call.args_after, r.call.entries)
    if changed:
        lines.append(f"  and your function changed {_join(changed)} in place: the caller's arrays, not its own")
        found.append((changed, _ALIASING))
    lines += _keys_lines(keys)
    if found:
        return _report("wrong", wrong, lines, notes, found)
    if square is not None and any(why.startswith("shape") for why in wrong.values()):
        found, header = _square_diagnosis(ex, fn, square)
        if found:
            return _report("wrong", wrong, lines, notes, found, header)
    lines += _unrecognised(ex, fn, r, wrong, runs)
    return _report("wrong", wrong, lines, notes)


def _found(ex, combo, r, wrong):
    """[(the outputs a mistake changes, the mistake)] for the mistakes of a combination, in its order."""
    out = []
    for mistake in combo:
        model = _model(ex, r.case, {mistake.step: mistake.fn}) or {}
        names = [n for n in wrong if n in model and not _same_numbers(model[n], r.want[n], r.want[n])]
        out.append((names or list(wrong), mistake))
    return out


def _unrecognised(ex, fn, r, wrong, runs):
    """What to debug from when no mistake explains the answer: what each output is, where it differs, the case."""
    numeric = [
        n for n in wrong if _numbers(r.got.get(n)) is not None and _numbers(r.got[n]).shape == np.shape(r.want[n])
    ]
    lines = (
        ["Like none of the mistakes this checker knows. What each wrong output is, and where it differs:"]
        if numeric
        else []
    )
    for name in numeric:
        meaning = ex.meaning.get(name)
        lines.append(f"  {name}{' = ' + meaning if meaning else ''}")
        lines += [f"    {d}" for d in _first_differences(name, r.got.get(name), r.want[name])]
    for remark in ex.diagnostics:
        try:
            text = remark(r.case, r.got, r.want)
        except Exception:
            text = None
        if text:
            lines.append(text)
    lines.append(f"The case: {_show_args(ex, r.case.args)}")
    again = run(fn, r.case.args, ex.watch, echo=False, time_limit=_limit(r.case))
    if again.error is None and again.value is not None and not again.timed_out:
        got2, _ = _flatten(ex, again.value, r.want_raw)
        # a third time: right on every other call is caught too
        twice = run(fn, r.case.args, ex.watch, echo=False, time_limit=_limit(r.case))
        if twice.error is None and twice.value is not None and not twice.timed_out:
            got3, _ = _flatten(ex, twice.value, r.want_raw)
            got2 = got2 if any(not _equal(got2.get(n), r.got.get(n)) for n in r.got) else got3
        if any(not _equal(got2.get(n), r.got.get(n)) for n in r.got):
            lines.append(
                "Called again on these arguments, your function gave another answer: it keeps "
                "something from one call to the next."
            )
        elif r is not runs[0] and runs[0].got is not None:  # right on the first case before: still?
            first = run(fn, runs[0].case.args, ex.watch, echo=False, time_limit=_limit(runs[0].case))
            if first.error is None and first.value is not None and not first.timed_out:
                got0, _ = _flatten(ex, first.value, runs[0].want_raw)
                if _differences(got0, runs[0].want, runs[0].case, ex) and not _differences(
                    runs[0].got, runs[0].want, runs[0].case, ex
                ):
                    lines.append(
                        f"Called again on the first case ({runs[0].case.about}), where it was right before, "
                        "your function is now wrong there too: it keeps something from one call to the next."
                    )
    where = f", and {ex.where} derives it" if ex.where else ""
    lines.append(f'practice.hint("{ex.name}") gives a nudge{where}.')
    return lines


def _first_differences(name, got, want):
    g, w = _numbers(got), _numbers(want)
    if g is None or w is None or g.shape != w.shape:
        return []
    if w.ndim == 0:
        return [f"expected {_num(w)}, got {_num(g)}"]
    with np.errstate(all="ignore"):
        off = ~np.isclose(g, w, rtol=TOL, atol=TOL * max(float(np.max(np.abs(w))), 1e-300), equal_nan=False)
    where = list(zip(*np.nonzero(off)))[:_SHOWN]
    shown = [
        f"{name}[{', '.join(str(int(i)) for i in idx)}]: expected {_num(w[idx])}, got {_num(g[idx])}" for idx in where
    ]
    total = int(off.sum())
    if total > len(where):
        shown.append(f"... {total} of its {off.size} entries differ")
    return shown


def _num(x):
    x = float(x)
    return f"{x:.6g}" if np.isfinite(x) else str(x)


def _show_args(ex, args):
    """The case's arguments, short: small arrays in full, dicts by their keys and shapes."""
    parts = []
    for name, value in zip(ex.args, args):
        parts.append(f"{name} = {_brief_value(value)}")
    return "; ".join(parts)


def _brief_value(value, depth=0):
    if isinstance(value, np.ndarray):
        if value.ndim <= 1 and value.size <= 8:
            return np.array2string(value, precision=4, separator=", ", max_line_width=10**6)
        return f"an array of shape {value.shape}"
    if isinstance(value, Mapping):
        if depth:
            return f"a dict with the keys {', '.join(map(str, value))}"
        return "{" + ", ".join(f"{k}: {_brief_value(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def _report(status, names, lines, notes, found=(), header=None):
    """The Result: the lines so far, each mistake found with the outputs it changes and its errata rows, the notes."""
    rows = []
    if found:
        lines.append(header or "What it looks like:")
        for explained, mistake in found:
            label = (
                f"errata row{'s' if len(mistake.rows) > 1 else ''} {_join([str(r) for r in mistake.rows])}, "
                if mistake.rows
                else ""
            )
            why = f": {mistake.why}" if _EXPLAIN.get() or not mistake.rows else ""
            lines.append(f'  {_join(explained)}: {label}"{mistake.name}"{why}')
            rows += [r for r in mistake.rows if r not in rows]
        if rows:
            lines.append(f"The errata table: {ERRATA_TABLE}")
            if not _EXPLAIN.get():
                lines.append("Its rows say what each mistake is and what is right.")
    lines += notes
    return Result(status, list(names) if status == "wrong" else [], "\n".join(lines), tuple(rows))


def _join(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _grouped(wrong):
    """Lines of (names, description), names sharing one description put together."""
    groups = {}
    for name, why in wrong.items():
        groups.setdefault(why, []).append(name)
    return [(", ".join(names), why) for why, names in groups.items()]


# -- recognising mistakes --------------------------------------------------------------------------------


_BUDGET = 150  # combinations of mistakes tried beyond those whose members each explain an output


def _explain(ex, runs, failing, wrong):
    """The fewest mistakes (in different steps) whose model gives every output of the answer on every run.

    Candidates change, on some run, an output the answer gets wrong there. Tried in order: each
    candidate alone; pairs and triples of candidates that each give some wrong output exactly on their
    own and change nothing the answer gets right (slips in separate lines); then up to ``_BUDGET``
    other pairs (slips that interact). None if no combination fits, or if two different ones do.
    """
    runs = [failing] + [r for r in runs if r is not failing]
    wrong_in = {id(r): set(wrong) if r is failing else set(_differences(r.got, r.want, r.case, ex)) for r in runs}
    everything = set().union(*wrong_in.values())
    candidates, explainers, reach = [], [], {}
    for mistake in ex.mistakes:
        touches, clean, exact, reach[mistake.id] = False, True, False, set()
        for r in runs:
            model = _model(ex, r.case, {mistake.step: mistake.fn})
            if model is None:
                continue
            changed = {n for n in r.want if n in model and not _same_numbers(model[n], r.want[n], r.want[n])}
            touches = touches or bool(changed & wrong_in[id(r)])
            clean = clean and changed <= wrong_in[id(r)]
            reach[mistake.id] |= changed
            if r is failing:
                exact = any(_same_numbers(r.got[n], model[n], r.want[n]) for n in changed & wrong_in[id(r)])
        if touches:
            candidates.append(mistake)
            if clean and exact:
                explainers.append(mistake)

    def fitting(combos, budget=None):
        fits = []
        for combo in combos:
            steps = [m.step for m in combo]
            if len(set(steps)) < len(combo) or (len(combo) > 1 and ANSWER in steps):
                continue
            if not everything <= set().union(*(reach[m.id] for m in combo)):
                continue  # some wrong output that none of these mistakes changes
            if budget is not None:
                budget -= 1
                if budget < 0:
                    break
            if all(_fits(ex, r, {m.step: m.fn for m in combo}) for r in runs):
                fits.append(combo)
        return fits

    tried = set()
    for combos, budget in (
        ([(m,) for m in candidates], None),
        (itertools.combinations(explainers, 2), None),
        (itertools.combinations(explainers, 3), None),
        (  # slips that interact: pairs with an explainer in them first
            sorted(
                (c for c in itertools.combinations(candidates, 2) if c not in tried),
                key=lambda c: sum(m not in explainers for m in c),
            ),
            _BUDGET,
        ),
    ):
        combos = list(combos)
        tried.update(combos)
        fits = fitting(combos, budget)
        if len(fits) == 1:
            return fits[0]
        if fits:
            return None  # two explanations fit the same numbers: naming one would be a guess
    return None


def _model(ex, case, replaced):
    """The model's outputs on ``case`` with ``replaced`` swapped in, flattened; None if it cannot run there.

    Kept by the case's contents (``_MODELS``): naming a mistake runs every mistake's model on every case, and a
    check run again on the same cases (a reader's second try, a class's submissions) finds them computed."""
    key = _model_key(ex, case, replaced)
    kept = _MODELS.get(key) if key is not None else None
    if kept is not None and kept[0] is ex and all(a is b for a, b in zip(kept[1], _swapped(replaced))):
        return kept[2]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            flat, _ = _flatten_reference(ex, ex.outputs_of(case, replaced))
    except Exception:  # a mistake that cannot run on this case (shapes) explains nothing here
        flat = None
    if key is not None:
        size = (
            sum(np.asarray(v).nbytes for v in flat.values() if isinstance(v, (np.ndarray, np.generic))) if flat else 0
        )
        if len(_MODELS) >= _MODELS_KEPT or _MODELS_BYTES[0] + size > _MODELS_BUDGET:
            _MODELS.clear()
            _MODELS_BYTES[0] = 0
        _MODELS[key] = (ex, _swapped(replaced), flat)  # the objects themselves: an id is unique only while they live
        _MODELS_BYTES[0] += size
    return flat


_MODELS = {}  # (id(ex), digest of the case, the steps swapped in) -> (ex, those steps, the model's outputs or None)
_MODELS_KEPT = 20_000
_MODELS_BUDGET = 64 << 20  # bytes of outputs kept, at most: a class's grading keeps no more than this
_MODELS_BYTES = [0]
_MODELS_LARGEST = 1 << 16  # bytes of one array of a case that is kept: the checks' cases, not the grader's largest


def _model_key(ex, case, replaced):
    """A key for ``_MODELS``: the case's arguments and extras by their contents; None for a case holding anything
    but arrays, numbers, strings and the containers of them (an rng: its state would be the case)."""
    if not all(callable(fn) for fn in replaced.values()) or ANSWER in replaced:
        return None
    digest = hashlib.blake2b(digest_size=20)
    if not _digest_into(digest, (case.args, case.extra, case.square, case.long), 0):
        return None
    return id(ex), digest.digest(), tuple(map(id, _swapped(replaced))), tuple(sorted(replaced))


def _swapped(replaced):
    """The functions swapped in, in the order of their steps' names."""
    return tuple(replaced[step] for step in sorted(replaced))


def _digest_into(digest, value, depth):
    """Feed ``value`` into ``digest``; whether every part of it could be (exact types only: no subclass's hash)."""
    kind = type(value)
    if depth > 20:
        return False
    if kind is np.ndarray:
        if value.dtype.hasobject or value.nbytes > _MODELS_LARGEST:
            return False  # a grader's large case: its outputs too would be large, and hashing it costs
        digest.update(f"a{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
        return True
    if kind in (bool, int, float, complex, str, type(None)) or isinstance(value, np.generic):
        digest.update(f"{kind.__name__}:{value!r};".encode())
        return True
    if kind in (tuple, list):
        digest.update(f"{kind.__name__}{len(value)}(".encode())
        return all(_digest_into(digest, v, depth + 1) for v in value)
    if kind is dict:
        digest.update(f"dict{len(value)}(".encode())
        return all(_digest_into(digest, k, depth + 1) and _digest_into(digest, v, depth + 1) for k, v in value.items())
    return False


def _fits(ex, r, replaced):
    model = _model(ex, r.case, replaced)
    return model is not None and all(n in model and _same_numbers(r.got[n], model[n], r.want[n]) for n in r.got)


# -- comparing outputs -----------------------------------------------------------------------------------


def _flatten(ex, value, reference_value):
    """The reader's (read) return value and the reference's as two dicts {name: value} with the same names.

    Outputs in ``by_key`` (dicts of gradients, parameters, Adam's state) are named by their keys. A
    reader's answer that is missing something gets a _Missing in its place.
    """
    n = len(ex.outputs)
    refs = (reference_value,) if n == 1 else tuple(reference_value)
    if n == 1:
        parts = (value,)
    elif isinstance(value, Seq) and n <= len(value.items) <= n + len(ex.optional):
        parts = value.items
    else:
        count = f"a {value.kind} of {len(value.items)} values" if isinstance(value, Seq) else _kind(value)
        parts = (
            _Missing(f"your function returns {count}; {ex.reference_name} returns {n} values: {', '.join(ex.outputs)}"),
        ) * n
    names = ex.outputs + ex.optional[: len(parts) - n]
    got, want = {}, {}
    for name, part, ref_part in zip(names, parts, refs):
        if name in ex.by_key:
            for key, ref_value in ref_part.items():
                want[key] = ref_value
                if isinstance(part, _Missing):
                    got[key] = part
                elif not isinstance(part, dict):
                    got[key] = _Missing(f"{name} is {_kind(part)}, not a dict with the keys {', '.join(ref_part)}")
                elif key not in part:
                    others = [k for k in part if k not in ref_part]
                    also = f" (it has {', '.join(repr(k) for k in others)}: use the keys of params)" if others else ""
                    got[key] = _Missing(f"{name} has no key {key!r}{also}")
                else:
                    got[key] = part[key]
            got.update(_extra_keys(name, part, ref_part, want))
        else:
            want[name], got[name] = ref_part, part
    return got, want


def _extra_keys(name, part, ref_part, want):
    """{label: _Missing} for each key of a dict of arrays (gradients, parameters) that the reference's lacks, where
    the reader's value there is not all zeros: a training loop that updates params by every key of the
    gradients would change a weight by it. (want gets 0.0 under the same label.)"""
    if not isinstance(part, dict) or not all(isinstance(v, np.ndarray) for v in ref_part.values()):
        return {}
    if any(k not in part for k in ref_part):  # keys named otherwise: said key by key already
        return {}
    extra = {}
    for key in [k for k in part if k not in ref_part]:
        numbers = _numbers(part[key])
        if numbers is not None and not np.any(numbers):
            continue  # zeros under a key of its own change nothing
        label = f"{name}[{key!r}]"
        want[label] = 0.0
        extra[label] = _Missing(
            f"{name} has a key {key!r} that {', '.join(map(repr, ref_part))} do not include, holding "
            f"{_kind(part[key])}: return exactly the keys asked for"
        )
    return extra


def _flatten_reference(ex, value):
    """A model's or the reference's return value as {name: value}, named as _flatten names them."""
    n = len(ex.outputs)
    parts = (value,) if n == 1 else tuple(value)
    flat = {}
    for name, part in zip(ex.outputs + ex.optional, parts):
        if name in ex.by_key:
            flat.update(part)
        else:
            flat[name] = part
    return flat, None


def _differences(got, want, case=None, ex=None):
    """{name: what is wrong} for every name whose value differs: to TOL, or for an answer in float32 to what float32
    arithmetic can miss on this case (``_tol32``), unless the case sets its own, ``case.extra["tol"]`` (float64) and
    ``case.extra["tol32"]``: tighter where a wrong answer misses by less than TOL (a threshold 1.000002 max_norm on
    a norm 1 + 1e-7 times it), looser where float32 rounding alone misses by far more (attention scores near -1e5)."""
    wrong = {}
    own = case.extra if case is not None else {}
    in32 = any(_in_float32(v) for v in got.values())
    for name, w in want.items():
        # each array by its own dtype: a float32 output is held to float32's tolerance, never the float64 arrays beside
        # it (a norm returned as np.float32 must not loosen the clipped arrays' 1e-10 near the threshold: hostile37,
        # 5b); a single number beside float32 arrays is theirs (a float32 norm returned as a Python float)
        # and every output of a case whose inputs are float32 (``case.extra["inputs32"]``): numpy computes on them in
        # float32 until something promotes (np.eye(V)[y], np.zeros(shape)), so a right float64 output holds float32's
        # rounding
        loose = own.get("inputs32", False) or _in_float32(got[name]) or (in32 and _a_number(got[name]))
        tol = (own["tol32"] if "tol32" in own else _tol32(ex, case, name)) if loose else own.get("tol")
        why = _differ(got[name], w, tol) or (name in own.get("relative", ()) and _off_relative(got[name], w, loose))
        if why:
            wrong[name] = why
    return wrong


# A case that names an output in ``case.extra["relative"]`` (softmax's probabilities far below the largest) also holds
# each of its entries to its own size: REL of it in float64, REL32 in float32, on every entry at least _TINY_TIMES
# times its dtype's smallest normal number. Its largest entry alone cannot tell a floor on the exponents (e^-30 where
# the answer is e^-45: off by 1e-13 of the largest, hostile37d's finding 5) from the right answer; each entry by its
# own size can, while a right answer's rounding (max-shift, log-sum-exp, float32) moves each by ~1e-13 (float64) or
# float32's epsilon times the size of its score (~1e-5 at -80; float32 below e^-87 not compared).
REL = 1e-6
REL32 = 1e-3
_TINY_TIMES = 2.0**10


def _off_relative(got, want, loose):
    """None if every entry of got is within REL (REL32 for a float32 output) of its own size of want's, where want's
    is far above the dtype's smallest normal number; else what is off."""
    g, w = _numbers(got), np.asarray(want, dtype=np.float64)
    if g is None or g.shape != w.shape:
        return None
    dtype = np.float32 if loose else np.float64
    compared = np.isfinite(w) & (np.abs(w) >= _TINY_TIMES * float(np.finfo(dtype).tiny))
    if not compared.any():
        return None
    with np.errstate(all="ignore"):
        off = np.abs(g[compared] - w[compared]) / np.abs(w[compared])
    worst = int(np.argmax(np.where(np.isnan(off), np.inf, off)))
    if off[worst] <= (REL32 if loose else REL):
        return None
    return (
        f"{_num(g[compared][worst])} where the answer is {_num(w[compared][worst])}, off by {off[worst]:.2g} times "
        "itself: an entry far below the largest kept only roughly (a floor on the exponents, such as "
        "np.clip(..., -30, 0)?); every entry must keep its own precision"
    )


# A float32 output is held to what float32 can miss on its case, not to a fixed 1e-4 (which let an answer off by
# 3e-5, 250 times float32's epsilon, pass: hostile37, 5b; hostile37b, w44). rnn_core's own function is run twice
# more: on the case's float arrays rounded to float32 (float32's arithmetic on its path), and in float64 on those
# arrays with every entry moved by float32's epsilon, up or down (how far one rounding of each number can move the
# result: a norm moves by ~1e-7). An answer may miss by _GROWTH32 times the larger of the two, and in any case by
# _ULPS32 of float32's epsilon for each doubling of the case's size (sums of many numbers, added in another order),
# and by _EXP32 times float32's epsilon times the largest number it takes the exp of (``EXPONENTS``: a log-sum-exp
# of scores near 1000 rounded to float32 moves every probability by ~3e-5, whatever the inputs' own rounding).
EPS32 = float(np.finfo(np.float32).eps)  # 1.19e-7
_GROWTH32 = 4
_ULPS32 = 4
_EXP32 = 2
_MISSES32 = {}  # id(case) -> (case, {output name: how far float32 moves rnn_core's result}), for the check under way


def _tol32(ex, case, name):
    """The tolerance of a float32 output ``name`` on ``case``: TOL32 where rnn_core's own function cannot be run as
    above on it, else the largest of _ULPS32 ulps per doubling of the case's size, _GROWTH32 times float32's miss
    and _EXP32 ulps of the largest number whose exp is taken."""
    if ex is None or case is None:
        return TOL32
    kept = _MISSES32.get(id(case))
    if kept is None or kept[0] is not case:
        kept = (case, _float32_misses(ex, case))
        _MISSES32[id(case)] = kept
    miss = kept[1].get(name)
    if miss is None:
        return TOL32
    size = sum(a.size for a in _float_arrays(case.args))
    try:
        exponent = float(EXPONENTS[ex.name](*case.args)) if ex.name in EXPONENTS else 0.0
    except Exception:
        exponent = 0.0
    return max(_ULPS32 * EPS32 * float(np.log2(2 + size)), _GROWTH32 * miss, _EXP32 * EPS32 * exponent)


def _float32_misses(ex, case):
    """{output name: the larger of how far rnn_core's function misses its own result when run on the case's float
    arrays rounded to float32, and when run on them with every entry moved by float32's epsilon; relative to the
    output's largest entry} (an output it cannot say: left out)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            exact, _ = _flatten_reference(ex, ex.reference(*_cast(case.args, np.float64)))
            runs = [
                _flatten_reference(ex, ex.reference(*_cast(case.args, np.float32)))[0],
                _flatten_reference(ex, ex.reference(*_nudged(case.args, np.random.default_rng(0))))[0],
            ]
    except Exception:
        return {}
    # a run that changed a whole-number output (beam_step's choice among near ties) says nothing of the rounding of
    # the others: left out
    runs = [run_ for run_ in runs if all(_same_choice(run_.get(name), w) for name, w in exact.items())]
    misses = {}
    for name, w in exact.items():
        found = [_relative_miss(run_.get(name), w) for run_ in runs]
        if all(m is not None for m in found):
            misses[name] = max(found, default=0.0)
    return misses


def _same_choice(got, want):
    """False if ``want`` is an array of whole numbers (indices) and ``got`` is not the same array."""
    if not isinstance(want, np.ndarray) or want.dtype.kind not in "iu":
        return True
    return isinstance(got, np.ndarray) and got.shape == want.shape and np.array_equal(got, want)


def _nudged(value, rng):
    """A copy of the arguments with every entry of every float array moved by float32's epsilon, up or down at
    random (relative to itself: signs, zeros and infinities kept); all else as it is."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return value.copy()
        return value * (1.0 + EPS32 * rng.choice([-1.0, 1.0], size=value.shape))
    if isinstance(value, Mapping):
        return {k: _nudged(v, rng) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_nudged(v, rng) for v in value)
    return copy.deepcopy(value)


def _relative_miss(got, want):
    """max |got - want| / max |want| over want's finite entries (a dict: the largest over its keys); None where the
    two do not compare (shapes, or a non-finite entry where want has a finite one)."""
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping) or got.keys() != want.keys():
            return None
        misses = [_relative_miss(got[k], w) for k, w in want.items()]
        return None if any(m is None for m in misses) else max(misses, default=0.0)
    try:
        g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if g.shape != w.shape:
        return None
    finite = np.isfinite(w)
    if not np.isfinite(g[finite]).all():
        return None
    if not finite.any():
        return 0.0
    scale = max(float(np.max(np.abs(w[finite]))), 1e-300)
    return float(np.max(np.abs(g[finite] - w[finite]))) / scale


def _cast(value, dtype):
    """A copy of the arguments with every float array (and numpy float) in ``dtype``; all else as it is."""
    if isinstance(value, np.ndarray):
        return value.astype(dtype) if value.dtype.kind == "f" else value.copy()
    if isinstance(value, np.floating):
        return dtype(value)
    if isinstance(value, Mapping):
        return {k: _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_cast(v, dtype) for v in value)
    return copy.deepcopy(value)


def _float_arrays(value):
    if isinstance(value, np.ndarray):
        return [value] if value.dtype.kind == "f" else []
    if isinstance(value, Mapping):
        return [a for v in value.values() for a in _float_arrays(v)]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _float_arrays(v)]
    return []


def _a_number(value):
    """Whether an output is one number (a Python or numpy float, or a 0-d array), not an array of them."""
    if isinstance(value, np.ndarray):
        return value.ndim == 0
    return isinstance(value, (float, np.floating)) and not isinstance(value, bool)


def _in_float32(value):
    """Whether an output (or a dict of them) holds a float32 array or number: the reader's code computes in float32."""
    if isinstance(value, dict):
        return any(_in_float32(v) for v in value.values())
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype == np.float32


def _differ(got, want, tol=None):
    """None if got equals want (to TOL, or to ``tol`` where given), else a short description of the difference."""
    if isinstance(got, _Missing):
        return got.why
    if got is None:
        return "None, where a value belongs"
    if isinstance(want, Mapping):  # a dict compared whole (a cache, Adam's m and v): say which keys differ
        if not isinstance(got, dict):
            return f"{_kind(got)}, not a dict with the keys {', '.join(want)}"
        parts = {k: "missing" if k not in got else _differ(got[k], w, tol) for k, w in want.items()}
        parts = {k: why for k, why in parts.items() if why}
        missing = [repr(k) for k, why in parts.items() if why == "missing"]
        other = _grouped({k: why for k, why in parts.items() if why != "missing"})
        return (
            "; ".join(([f"no key {_join(missing)}"] if missing else []) + [f"{why} at {k}" for k, why in other]) or None
        )
    if isinstance(want, (int, np.integer)) and not isinstance(want, (bool, np.bool_)):  # a count or an index: exactly
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and got == want
        if not ok and isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind in "iuf":
            ok = float(got) == want
        return None if ok else f"{_brief(got)}, expected {want!r}"
    if isinstance(got, Odd):
        return f"{got.kind}, not an array of numbers: return numpy arrays (np.asarray(...)) or numbers"
    kind = _number_kind(got)
    if kind == "complex":
        return "complex numbers, where the answer is real"
    if kind is None:
        return f"{_kind(got)}, not an array of numbers"
    g, w = _numbers(got), np.asarray(want, dtype=np.float64)
    if g.shape != w.shape:
        if w.ndim == 0:
            return f"{_kind(got)}, where the answer is a single number: return the number itself"
        return f"shape {g.shape}, expected {w.shape}"
    if np.asarray(want).dtype.kind in "iu" and w.ndim and _as_array(got).dtype.kind not in "iu":  # indices (beam_step)
        kind = _as_array(got).dtype
        return f"{_kind(got)} of {kind} numbers, where the answer is whole numbers (indices): return integers"
    bad = ~np.isfinite(g) & np.isfinite(w)
    if bad.any():
        kinds = [k for k, b in (("nan", np.isnan(g[bad]).any()), ("inf", np.isinf(g[bad]).any())) if b]
        return f"{' and '.join(kinds)} where the answer is a number"
    infinite = ~np.isfinite(w)  # -inf where the answer has it (a log-probability of 0): the same there, exactly
    if infinite.any():
        if not np.array_equal(g[infinite], w[infinite], equal_nan=True):
            return "other numbers where the answer is ±inf (keep -inf, the log of a probability 0, as it is)"
        g, w = g[~infinite], w[~infinite]
    scale = max(float(np.max(np.abs(w))), 1e-300) if w.size else 1.0
    with np.errstate(all="ignore"):
        biggest = float(np.max(np.abs(g))) if g.size else 0.0
        err = float(np.max(np.abs(g - w))) / scale if g.size else 0.0
    if biggest > 1e100 * max(scale, 1.0):
        return f"numbers as large as {biggest:.0e} (an overflow?), where the answer is at most {scale:.3g} in size"
    if not err <= (tol or _tol(got)):
        # not rel_error of notebook 01 (which lies in [0, 1]): the largest miss in units of the answer's largest entry
        if w.ndim == 0:
            return f"{_num(g)}, expected {_num(w)}"
        if not np.any(w):  # all 0: a miss in units of its largest entry would mean nothing
            return f"off by up to {float(np.max(np.abs(g - w))):.3g}, where the answer is all 0"
        return f"off by up to {err:.1g} × its largest entry"
    return None


def _tol(got):
    """TOL, or TOL32 for an output the reader's code gave in float32 (an array, or a numpy float32 number)."""
    return TOL32 if isinstance(got, (np.ndarray, np.generic)) and got.dtype == np.float32 else TOL


def _same_numbers(got, model, want):
    """True if got equals a mistake's output ``model``: to TOL of the size of ``want``, nan and inf where it has
    them."""
    if isinstance(model, Mapping):
        return isinstance(got, dict) and all(
            k in got and _same_numbers(got[k], v, want.get(k, v) if isinstance(want, Mapping) else v)
            for k, v in model.items()
        )
    if isinstance(got, (_Missing, Odd)) or got is None:
        return False
    if isinstance(model, (int, np.integer)) and not isinstance(model, (bool, np.bool_)):
        return _differ(got, model) is None
    g = _numbers(got)
    try:
        m = np.asarray(model, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    if g is None or g.shape != m.shape:
        return False
    finite = np.isfinite(m)
    if not (finite.all() and np.isfinite(g).all()):  # nan, +inf and -inf: in the same places
        if not np.array_equal(np.isnan(g), np.isnan(m)) or not np.array_equal(np.isposinf(g), np.isposinf(m)):
            return False
        if not np.array_equal(np.isneginf(g), np.isneginf(m)):
            return False
        g, m = g[finite], m[finite]
    try:
        w = np.asarray(want, dtype=np.float64)
        scale = float(np.abs(w[np.isfinite(w)]).max()) if w.size and np.isfinite(w).any() else 1.0
    except (TypeError, ValueError):
        scale = 1.0
    scale = max(scale, float(np.abs(m).max()) if m.size else 0.0, 1e-300)
    with np.errstate(all="ignore"):
        return bool((np.abs(g - m) <= _tol(got) * scale).all())


def _equal(a, b):
    """Exactly the same read value (for a result looked at again)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, Seq) or isinstance(b, Seq):
        return (
            isinstance(a, Seq)
            and isinstance(b, Seq)
            and len(a.items) == len(b.items)
            and all(map(_equal, a.items, b.items))
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind in "fc")
        except (TypeError, ValueError):
            return False
    try:
        return a is b or bool(a == b) or (a != a and b != b)
    except Exception:
        return False


def _number_kind(value):
    """ "real" for a number or a (nested) array or sequence of real numbers, "complex", or None."""
    a = _as_array(value)
    if a is None:
        return None
    return "complex" if a.dtype.kind == "c" else "real" if a.dtype.kind in "biuf" else None


def _numbers(value):
    """The value as a float64 array, or None if it is not one of real numbers."""
    a = _as_array(value)
    if a is None or a.dtype.kind not in "biuf":
        return None
    return a.astype(np.float64)


def _as_array(value):
    if isinstance(value, (Odd, _Missing, dict, str)) or value is None:
        return None
    if isinstance(value, Seq):
        items = [_as_array(v) for v in value.items]
        if any(i is None for i in items):
            return None
        try:
            return np.array(items)
        except (TypeError, ValueError):
            return None
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return None


def _brief(value):
    """A value as the messages show it: a number as itself, anything else by its kind."""
    return repr(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _kind(value)


def _kind(value):
    """'None', 'an array of shape (5,)', 'a tuple of 3 values', 'a torch.Tensor': what a value is, for the messages."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if isinstance(value, Odd):
        return value.kind
    if isinstance(value, Seq):
        return f"a {value.kind} of {len(value.items)} value{'' if len(value.items) == 1 else 's'}"
    if isinstance(value, _Missing):
        return "nothing"
    name = type_name(value)
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _changed(ex, before, after, entries):
    """What the call did to the caller's arguments: (names of those it changed in place, {name: what else it
    did}: a dict entry it replaced by another object, or a key it added or removed).

    ``before``: the arguments as they were; ``after``: the copies the function got, after the call;
    ``entries``: (argument index, key, ...) -> the object each dict entry of those copies held before.
    """
    in_place, other = [], {}

    def compare(label, path, old, new):
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            inside = []
            for key in old:
                where = f"{label}[{key!r}]"
                if key not in new:
                    other[where] = f"removed the key {key!r} from the caller's {label}"
                elif path + (key,) in entries and new[key] is not entries[path + (key,)]:
                    if not _same(old[key], new[key]):
                        other[where] = f"put another value under the caller's {where}"
                else:
                    inside += compare(where, path + (key,), old[key], new[key])
            other.update(
                {f"{label}[{k!r}]": f"added the key {k!r} to the caller's {label}" for k in new if k not in old}
            )
            if old.keys() == new.keys() and list(old) != list(new):  # a count kept in the order (hostile37q, C)
                other[label] = f"reordered the keys of the caller's {label}"
            return inside
        return [] if _same(old, new) else [label]

    for i, (name, old, new) in enumerate(zip(ex.args, before, after)):
        found = compare(name, (i,), old, new)
        whole = isinstance(old, Mapping) and len(found) == len(old) and all(f.count("[") == 1 for f in found)
        in_place += [name] if whole and len(found) > 1 else found
    return in_place, other


def _keys_lines(keys):
    return [f"  your function {what}" for what in keys.values()]


def _same(a, b):
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.shape != b.shape:
            return False
        # the same bytes of the same dtype: the same numbers (a quick test first, for thousands of small arrays: 2,100
        # of them in global_norm's largest case); else as numbers (0.0 and -0.0 the same, nan the same as nan)
        return (a.dtype == b.dtype and a.tobytes() == b.tobytes()) or np.array_equal(a, b, equal_nan=True)
    try:
        return bool(a == b)
    except Exception:
        return False


def _patched_notes(ex):
    """A note for each place where rnn_core holds something else than its own function of this exercise."""
    own = next(where for where in ex.watch if where[1] == _short(ex.name))  # (module, name) of its definition
    notes = []
    for path in ex.public:
        module_name, attribute = path.rsplit(".", 1)
        module = sys.modules.get(module_name)
        if module is None or not hasattr(module, attribute):
            continue
        value = getattr(module, attribute)
        if not reference.pristine(value, own):
            what = _kind(value) + (
                f" named {value.__name__!r}" if isinstance(getattr(value, "__name__", None), str) else ""
            )
            notes.append(
                f"Note: {path} is not rnn_core's own {attribute} any more: it holds {what}. The check compares "
                f"with its own copy of rnn_core's, so the verdict above does not depend on it; but code that "
                f"calls {path} now runs that instead."
            )
    return notes


# -- showing the message -------------------------------------------------------------------------------


# In JupyterLab a printed message wraps anywhere, inside numbers too ("-10" at the end of a line, "0"
# on the next: its output style is word-break: break-all), and an HTML output starts further right, in
# a larger font, than printed text. So in a kernel a message is HTML that wraps at spaces only, inside
# the class JupyterLab gives printed text (its indent), at the size of printed text (13 of 14 px);
# JupyterLab keeps this class and these properties in the outputs of a notebook opened afresh
# (untrusted), which it sanitises. The "not attempted" message of a stub is printed as it was: the
# notebooks store it, and it holds no numbers.
_HTML_STYLE = "white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; margin: 0; font-size: 0.9286em"
_HTML = '<div class="jp-RenderedText"><pre style="{style}">{body}</pre></div>'


def _show(message, printed=False):
    """Print the message, or, in a Jupyter kernel, display it as HTML (the errata table's name a link)
    and as the same plain text for every other front end. ``printed``: print it in any case.

    A stdout that the reader's code closed or broke does not stop check: the message goes to the
    process's own stdout, or stderr, and is in the returned Result in any case."""
    try:
        _display(message, printed)
        return
    except Exception:
        pass
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            stream.write(message + "\n")
            stream.flush()
            return
        except Exception:
            continue


def _display(message, printed):
    shell = None
    if not printed and "IPython" in sys.modules:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        print(message)
        return
    from IPython.display import display

    link = f'<a href="{html.escape(ERRATA_TABLE)}">{html.escape(ERRATA_TABLE)}</a>'
    body = html.escape(message).replace(html.escape(ERRATA_TABLE), link)
    display({"text/plain": message, "text/html": _HTML.format(style=_HTML_STYLE, body=body)}, raw=True)


def _tampered_note(names):
    return (
        f"Note: the checker's own {_join(names)} had been changed (its code swapped) before this check; check put "
        f"{'them' if len(names) > 1 else 'it'} back, so the verdict above is rnn_core's. Restart the kernel if you "
        "did not mean it."
    )


_BY_NAME = {exercise.name: exercise for exercise in EXERCISE_LIST}

EXERCISES = {exercise.name: exercise.notebook for exercise in EXERCISE_LIST}
"""Every exercise's name, in reading order, and the notebook that asks for it."""

ERRATA_ROWS = tuple(
    sorted({row for exercise in EXERCISE_LIST for m in exercise.mistakes for row in m.rows} | set(ALIASING_ROWS))
)
"""The rows of the errata table that check recognises by name."""
