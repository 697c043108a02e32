"""Running the reader's function for ``rnn_core.practice``, contained (private).

``run(fn, args, watch)`` calls ``fn`` on deep copies of ``args`` and returns a ``Call``: what it
returned (read into plain numbers, arrays, dicts and sequences while still contained), or what it
raised, and what it did besides. Nothing the reader's code does escapes it:

- a time limit per call (``TIME_LIMIT`` seconds, where the platform has ``signal.setitimer`` and
  ``check`` runs in the main thread, as it does in a notebook), reported as such;
- ``SystemExit``, ``KeyboardInterrupt`` and any other exception the reader's code raises are
  reported, never propagated. A real interrupt (the notebook's stop button, Ctrl-C: SIGINT) still
  stops the check: the handler installed for the call tells the two apart;
- numpy's warnings are silenced (an overflow is reported from the numbers, not as a warning);
- odd return values (a torch tensor, a generator, an object whose ``__array__`` raises) are read
  inside the same guard, so whatever they raise is the reader's;
- calls of rnn_core's own version of the exercise (``watch``: a set of (module, qualified name)
  pairs, see ``course.reference.origin``), by any alias or import route, are seen with
  ``sys.setprofile`` and reported;
- the checker's own code (its cases, models and references) is watched the same way: a function
  that reaches it, through the frames of the check, say, is reported like one that calls rnn_core's;
- the module attributes of rnn_core, numpy, builtins, sys and the standard modules the checker uses
  are compared before and after the call: a function that replaces ``rnn_core.softmax`` or
  ``builtins.max`` while it runs is reported, and the original is put back.
"""

from __future__ import annotations

import contextlib
import copy
import io
import math
import operator
import os
import signal
import sys
import threading
import time
import types
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .reference import origin, restore_checker

__all__ = ["LARGE", "TIME_LIMIT", "Call", "call_limit", "Odd", "Seq", "run", "read", "safe_str", "type_name"]

TIME_LIMIT = 3.0  # seconds per call of the reader's function; the right answers take milliseconds
TRACED = 2.0  # how many times TIME_LIMIT a call gets where the grader traces its lines (a pure-Python loop runs slower)
LARGE = 4.0  # how many times TIME_LIMIT a call gets on a case of a size beyond every published one (Case.large)
_SCALE = [1.0]  # the factor on every call's time limit now: TRACED within traced_calls(), else 1
_NOW = [TIME_LIMIT]  # the time limit of the call running now (or of the last one), in seconds: call_limit()
# the checker's own modules: reaching them from the reader's code is reading the answer off the checker
CHECKER = frozenset(
    {
        "practice",
        "course.check",
        "course.exercises",
        "course.model",
        "course.solutions",
        "course.reference",
    }
)
# modules whose attributes a call may not rebind, besides rnn_core's: what the checker itself relies on
GUARDED = (
    "builtins",
    "sys",
    "copy",
    "math",
    "warnings",
    "contextlib",
    "io",
    "itertools",
    "signal",
    "threading",
    "time",
    "traceback",
    "types",
    "numpy",
    "numpy.linalg",
)
_REFIRE = 0.25  # the alarm fires again this often, for code that swallows the first one
# what the guards call, taken now: a reader's function that rebinds sys.setprofile or signal.signal while it
# runs must not change how the guards undo themselves (the rebinding is reported and undone after the call)
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_set_thread_profile, _get_thread_profile = threading.setprofile, threading.getprofile
_signal, _getsignal = signal.signal, signal.getsignal
_setitimer = getattr(signal, "setitimer", None)
_perf_counter, _monotonic = time.perf_counter, time.monotonic
_vars, _sorted, _set, _isinstance, _setattr, _delattr, _list = vars, sorted, set, isinstance, setattr, delattr, list
_all, _map, _is = all, map, operator.is_
_MAX_ITEMS = 10**6  # a returned list longer than this is not read into numbers
# the calls by which a process signals itself: a SIGINT that follows one is the reader's, not the stop button
_SELF_SIGNALS = frozenset(
    f
    for f in (
        getattr(os, "kill", None),
        getattr(os, "killpg", None),
        getattr(signal, "raise_signal", None),
        getattr(signal, "pthread_kill", None),
    )
    if f is not None
)


class _Echo:
    """The reader's stdout during a call: what it prints goes to the real stdout, but closing it (or
    detaching it) closes nothing, so that check and the cells after it can still print."""

    def __init__(self, target):
        self._target = target

    def write(self, text):
        try:
            return self._target.write(text)
        except Exception:  # the real stdout broken by the reader's code: its prints are lost, not the check
            return 0

    def flush(self):
        try:
            self._target.flush()
        except Exception:
            pass

    def close(self):
        """Nothing: the stdout is check's, not the reader's."""

    def detach(self):
        """Nothing, for the same reason."""

    @property
    def closed(self):
        return False

    def writable(self):
        return True

    def __getattr__(self, name):  # encoding, isatty, fileno...: the real stdout's
        return getattr(self._target, name)


class _TimeUp(BaseException):
    """Raised by the alarm inside the reader's code; a BaseException, so that `except Exception` lets it go."""


@dataclass
class Call:
    """What one call of the reader's function did."""

    value: object = None  # what it returned, read into plain values (see read)
    raw: object = None  # what it returned, as it is (to see later whether it changed)
    error: BaseException | None = None  # what it raised
    reading: bool = False  # the error was raised while reading its return value, not by the call
    timed_out: bool = False
    delegated: list = field(default_factory=list)  # rnn_core functions of the exercise it called
    patched: list = field(default_factory=list)  # "rnn_core.softmax": module attributes it changed
    args_after: tuple = ()  # the copies of the arguments it was given, after the call
    entries: dict = field(default_factory=dict)  # (argument index, key, ...) -> the object a dict held before
    seconds: float = 0.0
    limit: float = 0.0  # the seconds it was given (0: no limit)


@dataclass(frozen=True)
class Odd:
    """A returned object that is not a number, an array, a dict or a sequence: named by its type."""

    kind: str  # "a torch.Tensor", "a str", "a generator"


@dataclass(frozen=True)
class Seq:
    """A returned tuple or list, its items read."""

    kind: str  # "tuple" or "list"
    items: tuple


def call_limit():
    """The time limit, in seconds, of the call ``run`` is making now: a function that hands the call to another
    process (the grader's child) waits this long for it."""
    return _NOW[0]


@contextlib.contextmanager
def traced_calls():
    """Within it, each call's time limit is TRACED times as long: the grader's child traces the lines the calls run
    (its source review), which slows a pure-Python loop several times over. One check at a time (the grader's)."""
    _SCALE[0] = TRACED
    try:
        yield
    finally:
        _SCALE[0] = 1.0


def run(fn, args, watch=frozenset(), echo=True, time_limit=TIME_LIMIT, fresh=True):
    """fn(*deep copies of args), contained: a Call. Propagates only a real interrupt (SIGINT).

    fresh: False passes ``args`` themselves, for a call on the same objects as an earlier one."""
    time_limit = time_limit * _SCALE[0] if time_limit else time_limit
    _NOW[0] = time_limit
    copies = copy.deepcopy(args) if fresh else tuple(args)
    call = Call(entries=_entries(copies), limit=time_limit)
    # done: the reader's code has finished, and the alarm must not raise any more (in check's own code)
    state = types.SimpleNamespace(interrupted=False, delegated=[], done=False, profile=None, self_signal=False)
    before = _snapshot()
    out = contextlib.redirect_stdout(_Echo(sys.stdout) if echo else io.StringIO())
    start = _perf_counter()
    try:
        with _interrupts(state), _watching(watch, state), _alarm(time_limit, state):
            try:
                with out, contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
                    with np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        raw = fn(*copies)
                        call.reading = True
                        value = read(raw)
                state.done = True
                call.raw, call.value = raw, value
            except _TimeUp:
                state.done = True
                call.timed_out = True
            except KeyboardInterrupt as exc:
                state.done = True
                if state.interrupted:  # SIGINT: the reader pressed stop
                    raise
                call.error = exc
            except BaseException as exc:  # everything the reader's code raises is reported
                state.done = True
                call.error = exc
            if state.profile is not None and _getprofile() is not state.profile:
                call.patched.append("sys.setprofile")  # the watch for rnn_core's code was switched off
    except _TimeUp:  # the alarm fired while an exception of the reader's was being taken in
        state.done = True
        call.timed_out = True
    finally:  # first, and after a real interrupt too: the code below may use what the reader's code rebound
        # the reader's time ends here: the checker's own restoring below is not counted against it
        call.seconds = _perf_counter() - start
        patched = _restore(before)
        patched += [f"{name}.__code__" for name in restore_checker()]
    if time_limit and call.seconds > time_limit:  # it swallowed the alarm, and went on past the limit
        call.timed_out = True
    call.delegated = list(dict.fromkeys(state.delegated))  # in the order they were first called
    call.patched += patched
    call.args_after = copies
    return call


def _entries(args):
    """(argument index, key, ...) -> value, for every entry of the dicts among ``args`` (two levels deep)."""
    found = {}

    def walk(value, path):
        if isinstance(value, dict) and len(path) < 3:
            for key, item in value.items():
                found[path + (key,)] = item
                walk(item, path + (key,))

    for i, arg in enumerate(args):
        walk(arg, (i,))
    return found


# -- reading what the reader returned --------------------------------------------------------------


def read(value, depth=0):
    """A returned value as plain values: numbers, numpy arrays (copies), dicts, Seq, Odd, None.

    Runs inside the guard: whatever a strange object raises is the reader's.
    """
    if value is None or isinstance(value, (bool, np.bool_)):
        return bool(value) if isinstance(value, np.bool_) else value
    if isinstance(value, np.generic) and isinstance(value, np.number):  # a numpy scalar: a float32 one keeps its type
        plain = np.asarray(value)
        return np.array(plain, copy=True) if plain.dtype == np.float32 else plain.item()
    if isinstance(value, (int, float, complex)):  # the number itself: a subclass's own ==, repr... do not count
        kind = int if isinstance(value, int) else float if isinstance(value, float) else complex
        return value if type(value) is kind else kind.__dict__[f"__{kind.__name__}__"](value)
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True, subok=False)
    if depth > 6:
        return Odd("a structure nested too deep")
    if isinstance(value, Mapping):
        items = dict.items(value) if isinstance(value, dict) else value.items()
        return {key: read(item, depth + 1) for key, item in items}
    if isinstance(value, (tuple, list)):
        if len(value) > _MAX_ITEMS:
            return Odd(f"a {type(value).__name__} of {len(value)} items")
        return Seq("tuple" if isinstance(value, tuple) else "list", tuple(read(v, depth + 1) for v in value))
    return Odd(_article(type_name(value)))


def type_name(value):
    """'torch.Tensor', 'str', 'MyThing': the type of a value, with its module unless builtins."""
    kind = type(value)
    try:
        module, name = kind.__module__, kind.__qualname__
    except Exception:
        return "object"
    module = str(module).split(".")[0] if isinstance(module, str) else ""
    return str(name) if module in ("builtins", "") else f"{module}.{name}"


def _article(name):
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def safe_str(exc):
    """'TypeError: message' for an exception, even one whose str() or type name raises."""
    name = type_name(exc)
    try:
        text = str(exc)
    except BaseException as inner:
        text = f"(its message could not be shown: str() raised {type_name(inner)})"
    if not isinstance(text, str):
        text = "(its message is not text)"
    text = f"{name}: {text}".strip().rstrip(":")
    return text if len(text) <= 300 else text[:297] + "..."


# -- the guards ------------------------------------------------------------------------------------


def _main_thread():
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _alarm(seconds, state):
    """Raise _TimeUp in the reader's code after ``seconds`` (and every _REFIRE s after), where signals allow."""
    if not (_setitimer and _main_thread()) or not seconds or not math.isfinite(seconds):
        yield
        return

    def on_alarm(signum, frame):
        if not state.done:
            raise _TimeUp

    previous = _signal(signal.SIGALRM, on_alarm)
    earlier = _setitimer(signal.ITIMER_REAL, seconds, _REFIRE)  # a timer someone else set: kept below
    start = _monotonic()
    try:
        yield
    finally:
        state.done = True
        _setitimer(signal.ITIMER_REAL, 0)
        _signal(signal.SIGALRM, previous)
        if earlier[0] > 0:  # give the earlier timer back what is left of it
            left = earlier[0] - (_monotonic() - start)
            _setitimer(signal.ITIMER_REAL, left if left > 1e-3 else 1e-3, earlier[1])


@contextlib.contextmanager
def _interrupts(state):
    """Mark a real SIGINT, so that it is told apart from a KeyboardInterrupt the reader's code raises."""
    if not _main_thread():
        yield
        return
    previous = _getsignal(signal.SIGINT)

    def on_interrupt(signum, frame):
        if state.self_signal:  # the reader's code sent it (os.kill, signal.raise_signal...): its own error
            raise KeyboardInterrupt
        state.interrupted = True
        if callable(previous):
            previous(signum, frame)
        raise KeyboardInterrupt

    _signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        _signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _watching(watch, state):
    """Record calls of the functions in ``watch`` ((module, qualified name) pairs of rnn_core's files),
    in this thread and in any thread the reader's code starts."""
    if not watch:
        yield
        return
    previous, previous_threads = _getprofile(), _get_thread_profile()
    seen = {}  # code object -> its origin, so that each is looked up once

    def profile(frame, event, arg):
        if event == "call":
            code = frame.f_code
            where = seen.get(code)
            if where is None:
                where = seen[code] = origin(code) or ()
            if where in watch or (where and where[0] in CHECKER):
                state.delegated.append(".".join(where))
        elif event == "c_call" and arg in _SELF_SIGNALS:
            state.self_signal = True

    state.profile = profile
    _set_thread_profile(profile)
    _setprofile(profile)
    try:
        yield
    finally:
        _setprofile(previous)
        _set_thread_profile(previous_threads)


# -- rnn_core and numpy as they were -----------------------------------------------------------------


_WATCHED = [(), []]  # sys.modules' names when last read, and the watched ones among them


def _watched_modules():
    names = tuple(sys.modules)  # compared with the last ones in C: this runs before every call
    if names != _WATCHED[0]:
        watched = [n for n in names if n == "rnn_core" or n.startswith("rnn_core.") or n in GUARDED]
        _WATCHED[:] = [names, watched]
    return {n: sys.modules[n] for n in _WATCHED[1] if isinstance(sys.modules.get(n), types.ModuleType)}


def _snapshot():
    return {name: (module, dict(vars(module))) for name, module in _watched_modules().items()}


def _restore(before):
    """Names of the module attributes the call added, removed or rebound; each is put back as it was.

    A submodule imported during the call (``from rnn_core import plots``) is not a change. Uses only
    builtins taken at import, as the call may have rebound them.
    """
    changed = []
    for name, (module, old) in before.items():
        new = _vars(module)
        if new.keys() == old.keys() and _all(_map(_is, old.values(), _map(new.__getitem__, old))):
            continue  # nothing changed (compared in C: this runs after every call, over thousands of names)
        for key in _sorted(_set(old) | _set(new)):
            if key.startswith("__") or (key in old and key in new and new[key] is old[key]):
                continue
            if key not in old and _isinstance(new[key], types.ModuleType):
                continue
            changed.append(f"{name}.{key}")
            if key in old:
                _setattr(module, key, old[key])
            else:
                _delattr(module, key)
    return changed
