"""Exercises the reader writes, checked at once: what is wrong, and which published mistake it repeats.

Each notebook asks the reader to write a key piece (softmax, one step of the network, its backward
pass, BPTT, clipping, Adam, the LSTM's step...) as a function with the same arguments and return
values as the ``rnn_core`` function of that name. ``check`` runs it on cases chosen to expose
mistakes (T >= 3 steps, H != V, h0 != 0, non-zero biases, large scores, two different Adam
gradients...), compares every output with ``rnn_core``'s, prints one message and returns a
``Result``:

    >>> import numpy as np
    >>> from rnn_core import practice
    >>> def softmax(o):
    ...     e = np.exp(o)                      # overflows for scores near 1000
    ...     return e / e.sum()
    >>> result = practice.check("softmax", softmax)
    softmax: wrong, on large scores (around 1000). ...
    >>> result.status, result.wrong
    ('wrong', ['p'])

In a notebook the exercise is two cells: a stub the reader fills in (its body
``raise NotImplementedError``), then ``practice.check("softmax", softmax)``. The stub's check prints
a fixed "not attempted" message, so stored outputs are deterministic. A cell that ends with
``check(...)`` shows the message once: the returned ``Result`` displays nothing in Jupyter.

- ``check(name, fn)`` -> ``Result(status, wrong, message, errata)``. ``status`` is "passed",
  "not attempted" (the stub still raises NotImplementedError, or returns None), "wrong", or
  "error" (the reader's code raised: the message shows the exception and the reader's own line).
  ``wrong`` names what differs (empty unless "wrong"): the keys of a dict of gradients or
  parameters ("W_hh", "b_h"), otherwise the names of ``rnn_core``'s docstrings ("p", "J", "do",
  "h", "loss", "h_last", "dh_prev", "dc_prev", "c", "cache", "norm", "t", "m", "v"); when every
  output is right but the function changed an argument in place, the argument ("dh_t",
  "params['W_hh']"). ``errata`` holds the rows of the errata table that the answer behaves like.
  In Jupyter a message that names errata rows links to the table (``ERRATA_TABLE``).
- ``hint(name)`` prints a nudge in words; ``solution(name)`` prints a reference solution.
- ``EXERCISES`` maps each name, in reading order, to the notebook that asks for it.
- ``ERRATA_ROWS``: the rows of the errata table that ``check`` recognises by name.

The exercises, and what the reader's function takes and returns (as the ``rnn_core`` function of
that name does; one sequence, vectors 1-D):

    one_hot(y, num_classes) -> rows (len(y), num_classes)                       00
    softmax(o) -> p, o (V,)                                                     01
    softmax_jacobian(p) -> J (V, V), from the probabilities p                   01
    cross_entropy_grad(o, y) -> do (V,), y an int                               02
    step_forward(params, x_t, h_prev) -> h_t (H,)                               03
    step_backward(params, dh_t, h_t, h_prev, x_t) -> (dh_prev, grads)           04  grads: W_xh, W_hh, b_h
    loss_and_grads(params, inputs, targets, h0) -> (loss, grads, h_last)        04  + dh0, if returned
    clip_global_norm(grads, max_norm) -> (grads, norm before clipping)          05
    adam_update(params, grads, state, lr) -> (params, state)                    06  state: t, m, v
    global_norm(grads) -> norm                                                  07
    lstm.step_forward(params, x_t, h_prev, c_prev) -> (h, c, cache)             08  cache: as rnn_core's
    lstm.step_backward(params, dh_t, dc_t, cache) -> (dh_prev, dc_prev, grads)  08  cache: rnn_core's
    gru.step_forward(params, x_t, h_prev) -> (h, cache)                         09  cache: as rnn_core's
    gru.step_backward(params, dh_t, cache) -> (dh_prev, grads)                  09  cache: rnn_core's

The checker never raises because of the reader's code and never changes the reader's arrays (every
call gets fresh copies). A right answer is asked a second time, on fresh copies, so that a function
that changes its arguments, or keeps something between calls, is caught. Besides the rows of the
errata table (3, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 20, 21, 22, 23, 24, 27 and 28), it names the
common slips each exercise invites: a softmax that overflows, Adam without bias correction,
clipping each array by its own norm, the LSTM's missing path from h_t into the cell, the GRU's z
and 1 − z swapped... A case on a square network (H = V) runs only to explain an answer that fails on
shapes where H != V, as two of the errata's mistakes do.

Adding an exercise is one ``Exercise`` entry in ``rnn_core/_practice_exercises.py`` (the reference
function, argument and output names, a function that builds the cases, the mistakes to recognise
and a hint) and one solution in ``rnn_core/_practice_solutions.py``; tests/test_practice.py then
wants a plain implementation and a few wrong variants of it.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import html
import io
import sys
import sysconfig
import traceback
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._practice_exercises import ALIASING, EXERCISE_LIST
from ._practice_solutions import SOLUTIONS
from .gradcheck import rel_error

__all__ = ["ERRATA_ROWS", "ERRATA_TABLE", "EXERCISES", "Result", "check", "hint", "solution"]

ERRATA_TABLE = "10-appendix-errata.ipynb#The-errata-table"  # where the errata table is, from a notebook
TOL = 1e-6  # largest relative error of an output that still counts as the same number (float64 answers agree to ~1e-14)


@dataclass(frozen=True)
class Result:
    """What ``check`` found: status, the names of what is wrong, the message it printed, errata rows."""

    status: str  # "passed", "not attempted", "wrong" or "error"
    wrong: list = field(default_factory=list)  # names of the outputs (or arguments) that differ; empty unless "wrong"
    message: str = ""  # the text that check printed
    errata: tuple = ()  # rows of the errata table the answer behaves like

    def _ipython_display_(self):
        """Nothing: check has printed the message already (a cell ending with check shows it once)."""

    def __repr__(self):
        return f"Result(status={self.status!r}, wrong={self.wrong!r}, errata={self.errata!r})"


def check(name, fn):
    """Check the reader's function ``fn`` against the ``rnn_core`` function ``name``; print and return a Result.

    name: one of ``EXERCISES`` (e.g. "softmax", "loss_and_grads", "lstm.step_backward").
    fn: the reader's function, taking the same arguments and returning the same values as the
      ``rnn_core`` function of that name.
    Prints one message and returns ``Result(status, wrong, message, errata)``. Raises only for a
    name that is not an exercise or an ``fn`` that is not a function, never because of what ``fn``
    does.
    """
    exercise = _exercise(name)
    if not callable(fn):
        raise TypeError(
            f"check({name!r}, fn): fn must be your function itself (e.g. {_short(name)}, "
            f"not {_short(name)}(...)), got {type(fn).__name__}"
        )
    try:
        result = _check(exercise, fn)
    except Exception as exc:  # a bug of the checker itself must not look like the reader's
        result = Result(
            "error",
            [],
            f"{name}: the checker failed ({type(exc).__name__}: {exc}). "
            "This is a bug of rnn_core.practice, not of your function.",
        )
    _show(result.message)
    return result


def hint(name):
    """Print a nudge, in words, for the exercise ``name``."""
    print(f"{name}: {_exercise(name).hint}")


def solution(name):
    """Print the reference solution of the exercise ``name``: a plain implementation that passes ``check``."""
    _exercise(name)
    print(SOLUTIONS[name].strip("\n"))


# -- the machinery ---------------------------------------------------------------------------------------


class _Missing:
    """Stands for an output the reader's answer does not have (a missing key, a dict that is not one)."""

    def __init__(self, why):
        self.why = why


class _Failed(Exception):
    """The reader's code raised: carries the exception."""

    def __init__(self, exc):
        super().__init__(exc)
        self.exc = exc


def _exercise(name):
    if name in _BY_NAME:
        return _BY_NAME[name]
    close = difflib.get_close_matches(str(name), list(_BY_NAME), n=1)
    also = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"no exercise named {name!r}.{also} The exercises: {', '.join(_BY_NAME)}")


def _short(name):
    return name.rsplit(".", 1)[-1]


def _check(ex, fn):
    """Run every case; report the first one that fails, or "passed"."""
    cases = ex.cases()
    square = next((c for c in cases if c.square), None)
    main = [c for c in cases if not c.square]
    for case in main:
        result = _check_case(ex, fn, case, square)
        if result is not None:
            return result
    about = "; ".join(c.about for c in main)
    plural = {1: "the case", 2: "both cases"}.get(len(main), f"all {len(main)} cases")
    return Result(
        "passed", [], f"{ex.name}: passed. Your function agrees with {ex.reference_name} on {plural}: {about}."
    )


def _check_case(ex, fn, case, square):
    """None if fn is right on this case; otherwise the Result to report."""
    try:
        first, args_after = _call(fn, case.args)
    except _Failed as failed:
        return _raised(ex, fn, failed.exc, case, square)
    if first is None:
        return _not_attempted(ex, fn, "returns None: write its body, ending with a return,")
    want = _reference(ex, case)
    got, want = _flatten(ex, first, want)
    wrong = _differences(got, want)
    if wrong:
        return _wrong(ex, case, got, want, wrong, square, fn, _changed(ex, case.args, args_after))
    # right once: twice on fresh copies must give the same, and the arguments must be as they were
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the reader's prints, once is enough
            second, _ = _call(fn, case.args)
    except _Failed as failed:
        return _raised(ex, fn, failed.exc, case, square, when="the second time it was called")
    got2, want = _flatten(ex, second, _reference(ex, case))
    wrong2 = _differences(got2, want)
    if wrong2:
        names = list(wrong2)
        lines = [
            f"{ex.name}: wrong. Right the first time, but called a second time on the same arguments "
            f"({case.about}), your function gives a different {_join(names)}.",
            "It keeps something from one call to the next, or changes an array it reads but does not own.",
        ]
        return _report("wrong", names, lines, [(names, ALIASING)])
    changed = _changed(ex, case.args, args_after)
    if changed:
        lines = [
            f"{ex.name}: wrong. Your outputs are right, on {case.about}, but your function changed "
            f"{_join(changed)} in place: the caller's arrays, not its own."
        ]
        return _report("wrong", changed, lines, [(changed, ALIASING)])
    return None


def _call(fn, args):
    """fn on deep copies of args, numpy's warnings silenced: (its return value, the copies afterwards)."""
    copies = copy.deepcopy(args)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*copies), copies
    except Exception as exc:
        raise _Failed(exc) from None


def _reference(ex, case):
    with np.errstate(all="ignore"):
        return ex.reference(*copy.deepcopy(case.args))


def _not_attempted(ex, fn, what):
    short = getattr(fn, "__name__", "")
    short = short if short.isidentifier() else _short(ex.name)  # the reader's name for it; a lambda's is not one
    return Result(
        "not attempted",
        [],
        f"{ex.name}: not attempted yet. Your {short} {what} then run this cell "
        f'again. practice.hint("{ex.name}") gives a nudge.',
    )


def _raised(ex, fn, exc, case, square, when=None):
    if isinstance(exc, NotImplementedError):
        return _not_attempted(ex, fn, "still raises NotImplementedError: write its body,")
    where = _their_line(exc)
    text = f"{type(exc).__name__}: {exc}".strip()
    if len(text) > 300:
        text = text[:297] + "..."
    lines = [
        f"{ex.name}: error. Your function raised {text}",
        f"  {where}"
        if where
        else f"  check calls it as {_short(ex.name)}({', '.join(ex.args)}): does it take these arguments?",
        f"  {'Called ' + when + ', on' if when else 'On'} {case.about}.",
    ]
    if square is not None and isinstance(exc, (ValueError, IndexError)):
        return _report("error", [], lines, *_square_diagnosis(ex, fn, square))
    return _report("error", [], lines, [])


def _their_line(exc):
    """'in fn, line 3: the line' for the last frame of the reader's code (outside rnn_core and installed libraries)."""
    ours = str(Path(__file__).resolve().parent)
    libraries = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    frames = traceback.extract_tb(exc.__traceback__)[1:]  # [0] is _call
    theirs = [f for f in frames if not str(Path(f.filename).resolve()).startswith((ours, *libraries))]
    if not theirs:
        return None
    frame = theirs[-1]
    line = (frame.line or "").strip()
    return f"in {frame.name}, line {frame.lineno}: {line}" if line else f"in {frame.name}, line {frame.lineno}"


def _square_diagnosis(ex, fn, square):
    """fn on the square case: (findings, header) if it then behaves like known mistakes, else ([], None)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            value, _ = _call(fn, square.args)
    except _Failed:
        return [], None
    if value is None:
        return [], None
    try:
        got, want = _flatten(ex, value, _reference(ex, square))
        wrong = _differences(got, want)
        found = _diagnose(ex, square, got, want, wrong) if wrong else []
    except Exception:
        return [], None
    verb = "is" if len(wrong) == 1 else "are"
    return found, (
        f"On {square.about}, where those shapes agree, your function runs; there {_join(wrong)} "
        f"{verb} wrong, and it looks like:"
        if found
        else None
    )


def _wrong(ex, case, got, want, wrong, square, fn, changed):
    lines = [f"{ex.name}: wrong, on {case.about}. Compared with {ex.reference_name}:"]
    lines += [f"  {names}: {why}" for names, why in _grouped(wrong)]
    right = [name for name in want if name not in wrong]
    if right:
        lines.append(f"  right: {', '.join(right)}")
    found = _diagnose(ex, case, got, want, wrong)
    if changed:  # besides: it changed the caller's arrays
        lines.append(f"  and your function changed {_join(changed)} in place: the caller's arrays, not its own")
        found.append((changed, ALIASING))
    if found:
        return _report(
            "wrong", wrong, lines, found, unexplained=[n for n in wrong if not any(n in f[0] for f in found)]
        )
    if square is not None and any(why.startswith("shape") for why in wrong.values()):
        return _report("wrong", wrong, lines, *_square_diagnosis(ex, fn, square))
    return _report("wrong", wrong, lines, [])


def _report(status, names, lines, found, header=None, unexplained=()):
    """The Result: the lines so far, then each mistake found with the outputs it explains, and its errata rows."""
    rows = []
    if found:
        lines.append(header or "What it looks like:")
        for explained, mistake in found:
            label = (
                f"errata row{'s' if len(mistake.rows) > 1 else ''} {_join([str(r) for r in mistake.rows])}, "
                if mistake.rows
                else ""
            )
            lines.append(f'  {_join(explained)}: {label}"{mistake.name}": {mistake.why}')
            rows += [r for r in mistake.rows if r not in rows]
        if unexplained:
            lines.append(f"  {_join(unexplained)}: like none of the mistakes this checker knows.")
        if rows:
            lines.append(f"The errata table: {ERRATA_TABLE}")
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


# -- comparing outputs -----------------------------------------------------------------------------------


def _flatten(ex, value, reference):
    """The reader's return value and the reference's as two dicts {name: value} with the same names.

    Outputs in ``by_key`` (dicts of gradients, parameters, Adam's state) are named by their keys.
    A reader's answer that is missing something gets a _Missing in its place.
    """
    n = len(ex.outputs)
    ref = (reference,) if n == 1 else tuple(reference)
    if n == 1:
        parts = (value,)
        if isinstance(value, tuple):
            parts = (
                _Missing(f"a tuple of {len(value)} values; {ex.reference_name} returns one array, {ex.outputs[0]}"),
            )
    elif isinstance(value, (tuple, list)) and n <= len(value) <= n + len(ex.optional):
        parts = tuple(value)
    else:
        count = f"{len(value)} values" if isinstance(value, (tuple, list)) else _kind(value)
        parts = (
            _Missing(f"your function returns {count}; {ex.reference_name} returns {n} values: {', '.join(ex.outputs)}"),
        ) * n
    names = ex.outputs + ex.optional[: len(parts) - n]
    got, want = {}, {}
    for name, part, ref_part in zip(names, parts, ref):
        if name in ex.by_key:
            for key, ref_value in ref_part.items():
                want[key] = ref_value
                if isinstance(part, _Missing):
                    got[key] = part
                elif not isinstance(part, Mapping):
                    got[key] = _Missing(f"{name} is {_kind(part)}, not a dict with the keys {', '.join(ref_part)}")
                elif key not in part:
                    others = [k for k in part if k not in ref_part]
                    also = f" (it has {', '.join(repr(k) for k in others)}: use the keys of params)" if others else ""
                    got[key] = _Missing(f"{name} has no key {key!r}{also}")
                else:
                    got[key] = part[key]
        else:
            want[name], got[name] = ref_part, part
    return got, want


def _differences(got, want):
    """{name: what is wrong} for every name whose value differs."""
    wrong = {}
    for name, w in want.items():
        why = _differ(got[name], w)
        if why:
            wrong[name] = why
    return wrong


def _differ(got, want):
    """None if got equals want (to TOL), else a short description of the difference."""
    if isinstance(got, _Missing):
        return got.why
    if got is None:
        return "None, where a value belongs"
    if isinstance(want, Mapping):  # a dict compared whole (a cache, Adam's m and v): say which keys differ
        if not isinstance(got, Mapping):
            return f"{_kind(got)}, not a dict with the keys {', '.join(want)}"
        parts = {k: "missing" if k not in got else _differ(got[k], w) for k, w in want.items()}
        parts = {k: why for k, why in parts.items() if why}
        missing = [repr(k) for k, why in parts.items() if why == "missing"]
        other = _grouped({k: why for k, why in parts.items() if why != "missing"})
        return (
            "; ".join(([f"no key {_join(missing)}"] if missing else []) + [f"{why} at {k}" for k, why in other]) or None
        )
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):  # a step count or an index: exactly
        ok = not isinstance(got, (bool, np.bool_)) and np.ndim(got) == 0 and _is_number(got) and float(got) == want
        return None if ok else f"{_brief(got)}, expected {want!r}"
    try:
        g = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return f"{_kind(got)}, not an array of numbers"
    w = np.asarray(want, dtype=np.float64)
    if g.shape != w.shape:
        if w.ndim == 0 and g.size == 1:
            g = g.reshape(())
        else:
            return f"shape {g.shape}, expected {w.shape}"
    finite = np.isfinite(w)
    if np.any(np.isfinite(g) != finite) or not np.array_equal(g[~finite], w[~finite], equal_nan=True):
        extra = ~np.isfinite(g) & finite
        if extra.any():
            return f"{'nan' if np.isnan(g[extra]).any() else 'inf'} where the answer is a number"
        return "a number where the answer is nan or inf"
    err = rel_error(g[finite], w[finite])
    return f"relative error {err:.1g}" if err > TOL else None


def _is_number(value):
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except Exception:
        return False


def _brief(value):
    """A value as the messages show it: a number as itself, anything else by its kind."""
    return repr(value) if isinstance(value, (int, float, np.integer, np.floating)) else _kind(value)


def _kind(value):
    """'None', 'an array of shape (5,)', 'a list', 'an int': what a value is, for the messages."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _changed(ex, before, after):
    """Names of the arguments (or their dict entries) that the call changed."""
    changed = []
    for name, old, new in zip(ex.args, before, after):
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            keys = [key for key, value in old.items() if key not in new or not _same(value, new[key])]
            changed += [name] if keys and len(keys) == len(old) else [f"{name}[{key!r}]" for key in keys]
        elif not _same(old, new):
            changed.append(name)
    return changed


def _same(a, b):
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    try:
        return bool(a == b)
    except Exception:
        return False


# -- recognising mistakes --------------------------------------------------------------------------------


def _diagnose(ex, case, got, want, wrong):
    """[(names, mistake)]: the known mistakes that explain the wrong outputs, fewest mistakes first.

    A mistake explains an output when its own answer (computed on the same case) equals the
    reader's there. The mistake that explains the most wrong outputs is taken first, then the one
    that explains most of the rest, and so on.
    """
    explains = []
    for mistake in ex.mistakes:
        try:
            if mistake.gives is not None:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    model, _ = _flatten(ex, mistake.gives(case), _reference(ex, case))
                names = [n for n in wrong if n in model and _differ(got[n], model[n]) is None]
            else:
                names = [n for n in mistake.test(got, want, case) if n in wrong]
        except Exception:  # a mistake that cannot even run on this case (shapes) explains nothing here
            continue
        if names:
            explains.append((names, mistake))
    found, left = [], list(wrong)
    while left:
        best = max(explains, key=lambda e: sum(n in left for n in e[0]), default=None)
        if best is None or not any(n in left for n in best[0]):
            break
        names = [n for n in best[0] if n in left]
        found.append((names, best[1]))
        left = [n for n in left if n not in names]
    return found


# -- showing the message -------------------------------------------------------------------------------


def _show(message):
    """Print the message. In a Jupyter kernel, a message with a link to the errata table is shown as text
    with that link clickable (and as the same plain text for every other front end)."""
    shell = None
    if ERRATA_TABLE in message and "IPython" in sys.modules:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        print(message)
        return
    from IPython.display import display

    link = f'<a href="{html.escape(ERRATA_TABLE)}">{html.escape(ERRATA_TABLE)}</a>'
    body = html.escape(message).replace(html.escape(ERRATA_TABLE), link)
    # lines wrap at spaces only: JupyterLab's output style would otherwise break them inside words
    style = "white-space: pre-wrap; word-break: normal; overflow-wrap: normal"
    display({"text/plain": message, "text/html": f'<pre style="{style}">{body}</pre>'}, raw=True)


_BY_NAME = {exercise.name: exercise for exercise in EXERCISE_LIST}

EXERCISES = {exercise.name: exercise.notebook for exercise in EXERCISE_LIST}
"""Every exercise's name, in reading order, and the notebook that asks for it."""

ERRATA_ROWS = tuple(
    sorted({row for exercise in EXERCISE_LIST for m in exercise.mistakes for row in m.rows} | set(ALIASING.rows))
)
"""The rows of the errata table that check recognises by name."""

from ._practice_yours import MY_RNN_ENV, check_all, my_rnn, save, train_yours, use_yours, your_cell  # noqa: E402

__all__ = [*__all__, "MY_RNN_ENV", "check_all", "my_rnn", "save", "train_yours", "use_yours", "your_cell"]
