"""The grader's child process: one exercise's cells, run alone, serving calls of its function (private).

    python -I -S grade_child.py NUMPY_DIR READ_FD WRITE_FD

``rnn_core.course.grade`` starts one such process per exercise, as a script (never as ``-m rnn_core...``):
isolated (``-I``: no environment variables, no user site, not even the script's own folder on the
path) and without ``site`` (``-S``: no site-packages, so no editable installs, no rnn_core, no
torch). The one folder added to its path, NUMPY_DIR, holds numpy and nothing else. Once numpy is
imported, and before any cell runs, a Landlock ruleset (``sandbox``) takes the rest away at the
kernel's level, where no Python trick undoes it (``site.main()``, a path appended by hand, reading
rnn_core's source and running it, reading the grader's /proc files): the cells can read Python's
own library (not its site-packages), numpy and the shared libraries, write only in their own folder,
open no network connection, and signal or trace no process outside their own. Before any cell
runs, too, the cells' builtins lose exec, eval, compile and open, their ``__import__`` takes only the
modules of ALLOWED_IMPORTS (in every cell run: the exercise's own, its helper cells, my_rnn.py), and
pickle's loaders, typing's string annotations and numpy.testing's string runners raise (``_disarm``);
the tracer and the channel are bound in ``main`` first, where a cell cannot replace them. This file
imports only the standard library and numpy, and nothing in it decides a score: it runs the cells
it is sent, then calls the student's function on the arguments it is sent and sends back what the
function returned, as raw values. The grader (the parent) holds the cases, the expected outputs and
the checker, and writes every result after this process and everything it started are dead.

The channel is a pair of pipe file descriptors of its own (READ_FD, WRITE_FD); stdout and stderr
go to a file the parent keeps only for a tail of the last words. Messages are framed: a 4-byte
big-endian length, then a JSON header; arrays follow it as frames of their own, each the bytes of
``numpy.save`` (never pickle: objects are sent as their type name). A message the student's code
prints can therefore never be taken for one of these.

Messages, parent to child: ``{"job": {"cells": [[label, source], ...], "function": name, "givens":
[names]}}`` once, then ``{"call": [args]}`` per call. Child to parent: ``{"ready": ...}`` once the
cells have run (what each raised, and what the function's name holds), then per call ``{"returned":
value, "args": args as the function left them, "updates": [...]}`` or ``{"raised": ...}``, each with
``"lines"`` (``[[cell index, line], ...]``: the lines of the cells' code that ran for the first time during
this call, traced with sys.settrace) and ``"traced"`` (whether the tracing was still the grader's when the
call returned). The grader lists the lines of the graded function that no case ran (see ``lines_traced``).

Identity is kept as the checker needs it to see aliasing and state kept between calls: an argument
the function changed in place is sent back marked "same" (the parent writes the new values into its
own copy); a returned object that is one of the arguments is sent as a reference to it; an array,
dict or list that the function returned before is sent as a reference to that earlier one, and an
array returned earlier that has changed since is sent as an update; an array that shares memory with
one returned on an earlier call (a view of a buffer kept between calls) is marked "shares". Every
argument ever decoded
stays alive, so that no two calls' arguments share an ``id``.
"""

import io
import json
import os
import re
import signal
import struct
import sys
import traceback

_MAX_FRAME = 1 << 28  # bytes in one frame from the parent (a case's arguments are kilobytes)
_MAX_ITEMS = 100_000  # items of one returned list, tuple or dict that are read
_MAX_DEPTH = 8
np = None  # numpy, imported in main once the path holds it


class _N:
    """numpy's functions and ndarray's own methods that this file uses, bound by ``main`` before any cell runs: a
    cell that replaces ``np.array_equal``, ``np.save`` or ``np.lib.format``'s writer changes nothing here
    (hostile37l, F06 and F07: `np.array_equal = lambda a, b, equal_nan=False: True` hid an argument changed in
    place). Reading and writing arrays goes through the ndarray type's C methods, which no code can replace."""

    array = asarray = load = errstate = may_share_memory = shares_memory = ndarray = generic = None

    @classmethod
    def bind(cls, numpy):
        for name in ("array", "asarray", "load", "errstate", "may_share_memory", "shares_memory", "ndarray", "generic"):
            setattr(cls, name, staticmethod(getattr(numpy, name)) if name not in ("ndarray", "generic")
                    else getattr(numpy, name))  # fmt: skip


# -- framing ------------------------------------------------------------------------------------------


def _read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd):
    (n,) = struct.unpack(">I", _read_exact(fd, 4))
    if n > _MAX_FRAME:
        raise ValueError("frame too long")
    return _read_exact(fd, n)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def receive(fd):
    header = json.loads(_read_frame(fd))
    blobs = [_read_frame(fd) for _ in range(header.pop("blobs", 0))]
    return header, blobs


def send(fd, header, blobs=()):
    header = dict(header, blobs=len(blobs))
    frames = [json.dumps(header).encode()] + list(blobs)
    _write_all(fd, b"".join(struct.pack(">I", len(f)) + f for f in frames))


# -- values -------------------------------------------------------------------------------------------


def _type_name(value):
    try:
        kind = type(value)
        module, name = kind.__module__, kind.__qualname__
        if not isinstance(module, str) or not isinstance(name, str):
            return "object"
        return name if module == "builtins" else f"{module.split('.')[0]}.{name}"
    except BaseException:
        return "object"


def _array_bytes(array):
    """The bytes of ``numpy.save`` for a plain array (version 1.0 of the .npy format: a header of at most 64 axes
    stays far below its 65,535 bytes), written here from the array's C methods, so that no patched numpy writer
    can change them."""
    plain = _N.array(array, copy=True, subok=False, order="C")
    header = f"{{'descr': {plain.dtype.str!r}, 'fortran_order': False, 'shape': {tuple(plain.shape)!r}, }}"
    pad = -(6 + 2 + 2 + len(header) + 1) % 64  # magic, version, length, header and newline: a multiple of 64
    text = (header + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + plain.tobytes()


def _unchanged(value, snapshot):
    """Whether the array ``value`` still holds ``snapshot``'s values (a plain copy taken earlier): its shape, its
    dtype and every value, nan for nan and -0.0 for 0.0, compared through the ndarray type's own operators. The
    array is read where it is, as a plain ndarray (no subclass's operators), not copied: after each call every array
    returned before is compared again, and copies of large ones made that the grader's largest cost."""
    plain = _N.asarray(value)
    if plain.shape != snapshot.shape or plain.dtype != snapshot.dtype:
        return False
    if plain.dtype.kind not in "biufc":
        return plain.tobytes() == snapshot.tobytes()
    same = plain == snapshot
    if plain.dtype.kind in "fc" and not same.all():
        same |= (plain != plain) & (snapshot != snapshot)
    return bool(same.all())


class Decoder:
    """The parent's values as objects, remembering where each argument came from."""

    def __init__(self, blobs):
        self.blobs = blobs
        self.originals = {}  # id -> (path, object, snapshot of an array)

    def value(self, enc, path=()):
        t = enc["t"]
        if t == "plain":
            return enc["v"]
        if t == "float":
            return float(enc["v"])
        if t == "nd":
            # a copy owns its data, as an array a learner makes does (np.load's does not): nothing about an argument
            # tells the graded code it is being graded (hostile37h, finding 1: `o.flags.owndata` as a gate)
            array = _N.load(io.BytesIO(self.blobs[enc["i"]]), allow_pickle=False).copy(order="K")
            if enc.get("scalar"):
                return array[()]
            self.originals[id(array)] = (path, array, array.copy())
            return array
        if t in ("tuple", "list"):
            items = [self.value(v, path + (i,)) for i, v in enumerate(enc["v"])]
            if t == "tuple":
                return tuple(items)
            self.originals[id(items)] = (path, items, None)
            return items
        if t == "dict":
            d = {self.value(k): self.value(v, path + (self.value(k),)) for k, v in zip(enc["k"], enc["v"])}
            self.originals[id(d)] = (path, d, None)
            return d
        raise ValueError(f"unknown value {t!r}")


class Encoder:
    """Returned values and arguments as messages: plain values, arrays as frames, the rest by type name."""

    def __init__(self, originals, kept):
        self.blobs = []
        self.originals = originals
        self.kept = kept  # id -> [kid, object, snapshot]
        self.seen = set()

    def _blob(self, array):
        self.blobs.append(_array_bytes(array))
        return len(self.blobs) - 1

    def value(self, value, depth=0, keep=True):
        if value is None or type(value) in (bool, int, str):
            return {"t": "plain", "v": value}
        if type(value) is float:
            return {"t": "float", "v": repr(value)}
        if _N.generic is not None and isinstance(value, _N.generic) and type(value).__module__ == "numpy":
            if value.dtype.kind == "O":
                return {"t": "odd", "type": _type_name(value)}
            return {"t": "nd", "i": self._blob(_N.asarray(value)), "scalar": True}
        if depth > _MAX_DEPTH:
            return {"t": "odd", "type": "structure nested too deep"}
        ref = self.originals.get(id(value))
        if ref is not None and ref[1] is value:
            enc = {"t": "arg", "path": list(ref[0])}
            if isinstance(value, _N.ndarray):
                enc["i"] = self._blob(value)
            return enc
        if isinstance(value, _N.ndarray):
            if value.dtype.hasobject or value.dtype.fields is not None:
                return {"t": "odd", "type": "numpy.ndarray of Python objects or of records"}
            plain = _N.array(value, copy=True, subok=False)
            shares = self._sharing(value) if keep else None
            enc = {"t": "nd", "i": self._blob(plain), **self._kid(value, plain, keep)}
            return {**enc, "shares": shares} if shares is not None else enc
        if type(value) is dict:
            if len(value) > _MAX_ITEMS:
                return {"t": "odd", "type": f"dict of {len(value)} items"}
            items = list(value.items())
            return {
                "t": "dict",
                "k": [self.value(k, depth + 1, False) for k, _ in items],
                "v": [self.value(v, depth + 1, keep) for _, v in items],
                **self._kid(value, None, keep),
            }
        if type(value) in (tuple, list):
            if len(value) > _MAX_ITEMS:
                return {"t": "odd", "type": f"{type(value).__name__} of {len(value)} items"}
            enc = {"t": type(value).__name__, "v": [self.value(v, depth + 1, keep) for v in value]}
            return {**enc, **(self._kid(value, None, keep) if type(value) is list else {})}
        if type(value) is complex:
            return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
        return {"t": "odd", "type": _type_name(value)}

    def _sharing(self, value):
        """The kid of an array returned on an earlier call that this other array shares memory with (a view of a
        buffer kept between calls, say), else None."""
        for key, (kid, obj, _) in list(self.kept.items()):
            if key in self.seen or obj is value or not isinstance(obj, _N.ndarray):
                continue
            if _N.may_share_memory(obj, value):
                try:
                    if not _N.shares_memory(obj, value, max_work=10**6):
                        continue
                except Exception:  # too much work to be sure: bounds that overlap count as shared
                    pass
                return kid
        return None

    def _kid(self, value, plain, keep):
        """The id of a returned object, the same each time the same object is returned."""
        if not keep:
            return {}
        entry = self.kept.get(id(value))
        if entry is not None and entry[1] is value:
            entry[2] = plain
            self.seen.add(id(value))
            return {"kid": entry[0]}
        kid = len(self.kept) + 1
        self.kept[id(value)] = [kid, value, plain]
        self.seen.add(id(value))
        return {"kid": kid}

    def after(self, value, path):
        """An argument after the call: marked "same" where it is still the original object at this path."""
        ref = self.originals.get(id(value))
        if ref is None or ref[1] is not value or tuple(ref[0]) != tuple(path):
            return self.value(value, keep=False)
        if isinstance(value, _N.ndarray):
            changed = not _unchanged(value, ref[2])
            return {"t": "same", **({"i": self._blob(value)} if changed else {})}
        if type(value) is dict:
            items = list(value.items())
            return {
                "t": "same",
                "k": [self.value(k, keep=False) for k, _ in items],
                "v": [self.after(v, (*path, k)) for k, v in items],
            }
        if type(value) is list:
            return {"t": "same", "v": [self.after(v, (*path, i)) for i, v in enumerate(value)]}
        return self.value(value, keep=False)

    def updates(self):
        """[[kid, blob index]]: arrays returned on earlier calls that have changed since."""
        found = []
        for key, entry in list(self.kept.items()):
            kid, obj, snapshot = entry
            if key in self.seen or not isinstance(obj, _N.ndarray) or snapshot is None:
                continue
            if not _unchanged(obj, snapshot):
                plain = _N.array(obj, copy=True, subok=False)
                entry[2] = plain
                found.append([kid, self._blob(plain)])
        return found


_WITHOUT = "the grader runs each exercise's cell without {} (numpy and Python's standard library only)"
_STAND_IN = {"on": False, "givens": {}}  # my_rnn.py's jobs: rnn_core answers with the plain givens (StandIn)


# What the cells' code may import, whichever cell it is in (the exercise's own, a helper cell, my_rnn.py): the
# list of the grader's rule d. Python's other modules are there (the child runs on Python's own library), but an
# import of one by the cells' code is refused here, at run time, and the grader sends the exercise to review: code
# that reaches pickle, timeit, sys or os can run code no review rule reads (issue 37, hostile37d findings 1 and 4).
# rnn_core and torch are let through to _NoRnnCore, whose messages the grader reads
ALLOWED_IMPORTS = frozenset(
    {"numpy", "math", "warnings", "functools", "itertools", "collections", "heapq", "operator", "typing", "copy",
     "numbers", "contextlib", "bisect", "__future__", "rnn_core", "torch"}
)  # fmt: skip
_TAKEN = ("exec", "eval", "compile", "breakpoint", "open", "input", "help")  # builtins the cells do not get
_REFUSED = []  # [cell label, module]: imports refused, for the ready message and every reply
_WHERE = ["a call"]  # the label of the cell running now


def _refusing(what):
    def refused(*args, **kwargs):
        raise PermissionError(f"{what} is not available to the graded code (numpy and Python's arithmetic only)")

    return refused


def _guarded_import(real):
    """The cells' ``__import__``: the modules of ALLOWED_IMPORTS only, even one already imported (a finder on
    sys.meta_path never sees those). A module that is neither Python's nor numpy's goes on to the finders, which
    say it is not there (an earlier cell's plot: not the grader's concern)."""
    refused = _REFUSED

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.split(".")[0] if isinstance(name, str) else ""
        if level == 0 and top in ALLOWED_IMPORTS:
            return real(name, globals, locals, fromlist, level)
        if level != 0 or top in sys.stdlib_module_names or top in sys.modules or not top:
            shown = name if isinstance(name, str) else type(name).__name__
            refused.append([_WHERE[0], ("." * level + shown)[:100]])
            allowed = ", ".join(sorted(ALLOWED_IMPORTS - {"rnn_core", "torch", "__future__"}))
            raise ImportError(f"the grader refuses `import {shown}`: the graded cells may import only {allowed}")
        return real(name, globals, locals, fromlist, level)

    return guarded


def _cell_builtins():
    """The builtins the cells' namespace gets: Python's, without exec, eval, compile, open, breakpoint (the child
    keeps its own), and with an ``__import__`` that refuses what ALLOWED_IMPORTS does not hold."""
    import builtins

    names = dict(vars(builtins))
    for name in _TAKEN:
        if name in names:
            names[name] = _refusing(f"{name}()")
    names["__import__"] = _guarded_import(builtins.__import__)
    return names


def _disarm():
    """Out of every cell's reach, before any runs: the loaders that run code hidden in bytes or strings, which no
    review rule reads (pickle's, so np.load(allow_pickle=True) fails too; typing's string
    annotations, evaluated by get_type_hints; numpy.testing's runstring and measure, patched when it is imported)."""
    import _pickle
    import pickle
    import typing

    # (not marshal's: the import system loads every .pyc with marshal.loads; the cells cannot import marshal, and
    # the attributes that hand it out, importlib._bootstrap_external.marshal, are listed by rule d)
    for module, names in (
        (pickle, ("load", "loads", "Unpickler", "_load", "_loads", "_Unpickler")),
        (_pickle, ("load", "loads", "Unpickler")),
    ):
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _refusing(f"{module.__name__}.{name}"))
    typing.ForwardRef._evaluate = _refusing("evaluating a string annotation")
    sys.meta_path.insert(0, _DisarmOnImport())


class _DisarmOnImport:
    """numpy.testing's helpers that exec a string (runstring, measure), replaced once numpy imports them."""

    TARGETS = {"numpy.testing._private.utils": ("runstring", "measure")}

    def find_spec(self, name, path=None, target=None):
        if name not in self.TARGETS:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Disarming(spec.loader, self.TARGETS[name])
        return spec


class _Disarming:
    def __init__(self, loader, names):
        self.loader, self.names = loader, names

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        for name in self.names:
            setattr(module, name, _refusing(f"numpy.testing.{name}"))
        parent = sys.modules.get("numpy.testing")
        for name in self.names if parent is not None else ():
            setattr(parent, name, getattr(module, name))


class _NoRnnCore:
    """A finder that answers ``import rnn_core`` with what the grader's rule is; for my_rnn.py, with StandIn."""

    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top == "rnn_core" and _STAND_IN["on"]:
            import importlib.machinery

            return importlib.machinery.ModuleSpec(name, _StandInLoader(), is_package=True)
        if top in ("rnn_core", "torch"):
            raise ImportError(f"{_WITHOUT.format(top)}: write the computation in your own code")
        return None


class _NoOtherModules:
    """The last finder: a module neither Python's library nor numpy holds (matplotlib, scipy) is not there."""

    def find_spec(self, name, path=None, target=None):
        raise ModuleNotFoundError(
            f"No module named {name!r}: {_WITHOUT.format('it')}; import other libraries in a cell of their own",
            name=name,
        )


class _StandInLoader:
    def create_module(self, spec):
        return StandIn(spec.name)

    def exec_module(self, module):
        return None


class _NotGiven:
    """What a name of rnn_core's that is not a given stands for in my_rnn.py: raises when called."""

    def __init__(self, name):
        self.__name__ = self.__qualname__ = name.rpartition(".")[2]
        self.name = name

    def __call__(self, *args, **kwargs):
        raise ImportError(f"{self.name} is rnn_core's: {_WITHOUT.format('rnn_core')}; write it yourself")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NotGiven(f"{self.name}.{name}")


class _NoPractice:
    """rnn_core.practice in the child: every function of it does nothing (the grader does the checking)."""

    __name__ = "practice"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


_PRACTICE = _NoPractice()


class _NoIPython:
    """``get_ipython()`` in the child, for the lines the grader turned into IPython's calls (``np.exp?``, ``!ls``):
    help, magics and shell lines do nothing, as the grader runs none. (A line ``%time STATEMENT`` is its statement
    before the review reads the cell: ``unwrap_time_lines``. Nothing here runs a string: a call built at run time
    would run code no review has read.)"""

    def __init__(self, namespace):
        self.user_ns = namespace  # a dict, as IPython's (hostile37p: a stand-in's callable user_ns told it apart)

    def run_line_magic(self, *args, **kwargs):
        return None

    def run_cell_magic(self, *args, **kwargs):
        return None

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def _display(*args, **kwargs):
    """IPython's ``display`` in the child: shows nothing."""
    return None


class StandIn(type(sys)):
    """rnn_core as my_rnn.py's top imports it (practice.save adds ``import rnn_core`` or ``from rnn_core import
    log_softmax`` where an answer used them): the plain givens of this exercise under their names, practice as
    a no-op, and every other name a _NotGiven, which raises "rnn_core's ... without rnn_core" when called."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "practice":
            return _PRACTICE
        if name in _STAND_IN["givens"]:
            return _STAND_IN["givens"][name]
        return _NotGiven(f"{self.__name__}.{name}")


_PRACTICE_IMPORT = re.compile(r"(\s*)from\s+rnn_core\s+import\s+practice\s*(#.*)?")
_HELP = re.compile(r"\s*(\?{1,2}[\w.*\[\]]+|[\w.*\[\]()]+\?{1,2})\s*(#.*)?")  # np.exp?  softmax??  ?np.exp
RUNS_ITS_BODY = ("time", "capture", "prun")  # cell magics that run their body in the kernel's namespace, as IPython


def unwrap_cell_magic(source):
    """A cell whose first line is a cell magic that runs its body (``%%time``, ``%%capture``, ``%%prun``) as its body
    (the magic's line a comment, so that every line keeps its number); None for another cell magic, whose body
    IPython does not run in the kernel's namespace (``%%timeit`` times it inside a function of its own, so its
    definitions are not kept; ``%%bash``, ``%%writefile`` ... are no Python); else the cell itself."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].lstrip().startswith("%%"):
        return source
    magic = lines[first].strip()[2:].split()
    if not magic or magic[0] not in RUNS_ITS_BODY:
        return None
    lines[first] = f"# %%{magic[0]}: its body runs"
    body = unwrap_cell_magic("\n".join(lines[first + 1 :]))  # %%capture, then %%time
    return None if body is None else "\n".join([*lines[: first + 1], body])


def unwrap_time_lines(source):
    """``source`` with each line ``%time STATEMENT`` that starts a statement turned into ``STATEMENT`` (its
    indentation kept): IPython runs the statement and prints how long it took; the grader runs it, and its review
    reads it, as the cell's own code."""
    lines, starts_of = [], _statement_starts(source)
    for line, starts in zip(source.split("\n"), starts_of + [False] * (source.count("\n") + 1 - len(starts_of))):
        stripped = line.lstrip()
        match = _TIME_LINE.match(stripped) if starts else None
        if match and match.group(1).strip():
            line = line[: len(line) - len(stripped)] + match.group(1)
        lines.append(line)
    return "\n".join(lines)


_TIME_LINE = re.compile(r"%time[ \t]+(.*)\Z", re.DOTALL)


def _python_source(source):
    """A cell as Python: IPython's magics, shell escapes and help lines (``np.exp?``) become ``pass`` (the grader
    runs none), a cell magic that runs its body (``%%time``) its body, and a line ``from rnn_core import practice``
    binds a practice that does nothing (the grader checks the function). (The grader turns a cell into Python with
    IPython's own transformer where it has IPython; this is what is left, or all there is where it has none.)

    Only a line that starts a statement is a magic: one inside brackets, a string or after a backslash is
    Python (Black puts ``!= 1`` or ``% n`` at the start of a continuation line)."""
    source = unwrap_cell_magic(source)
    if source is None:
        return "pass  # a cell magic: not run by the grader"
    lines = []
    for line, starts in zip(source.splitlines(), _statement_starts(source)):
        stripped = line.lstrip()
        if starts and (stripped.startswith(("%", "!")) or _HELP.fullmatch(line)):
            line = line[: len(line) - len(stripped)] + "pass  # a magic: not run by the grader"
        elif starts and _PRACTICE_IMPORT.fullmatch(line):
            line = line[: len(line) - len(stripped)] + "practice = __grader_practice__  # checks nothing here"
        lines.append(line)
    return "\n".join(lines)


def _statement_starts(source):
    """For each line of ``source``: whether it starts outside brackets, strings and backslash continuations."""
    depth, quote, continued, starts = 0, None, False, []
    for line in source.splitlines():
        starts.append(depth == 0 and quote is None and not continued)
        i, n, continued = 0, len(line), False
        while i < n:
            c = line[i]
            if quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else c
                i += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            elif c == "\\" and i == n - 1:
                continued = True
            i += 1
        if quote is not None and len(quote) == 1:  # a one-line string left open: Python's error, not ours
            quote = None
    return starts


def _describe(exc):
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    try:
        text = " ".join(str(exc).split())
    except BaseException:
        text = ""
    name = _type_name(exc)
    return (f"{name}: {text}" if text else name)[:300]


def _no_code_at_run_time(ours, labels, roots):
    """An audit hook (sys.addaudithook: no code can remove it) that refuses, while the cells' code runs (a frame of
    theirs on the stack), to compile or run code the grader did not compile before the cells ran, unless it is a
    module's file under ``roots`` (Python's library and numpy, as an import reads them) or namedtuple's (a template
    of identifiers it has checked). The cells have no exec, eval or compile, but a module may hold one that runs a
    string (hostile37g, finding 2: ``dataclasses._create_fn`` ran wrong code, and code that wrote the tracer's
    report, that no review rule reads). ``ours``: the code objects of the givens and the cells; ``labels``: the
    cells' file names."""
    ours, labels = tuple(ours), frozenset(labels)
    from collections import namedtuple

    checked = namedtuple.__code__  # its eval runs a template of names it has checked are identifiers

    def from_a_root(filename):
        if not isinstance(filename, str):
            return False
        path = os.path.realpath(filename)
        return os.path.isfile(path) and any(path.startswith(root) for root in roots)

    def in_the_cells():
        frame = sys._getframe(2)
        if frame.f_code is checked:
            return False
        while frame is not None:
            if frame.f_code.co_filename in labels:
                return True
            frame = frame.f_back
        return False

    def hook(event, args):
        if event == "compile" and not from_a_root(args[1] if len(args) > 1 else None) and in_the_cells():
            raise PermissionError("code made at run time is not run for the graded code (numpy and Python only)")
        if event == "exec" and not any(args[0] is code for code in ours) and not from_a_root(args[0].co_filename):
            if in_the_cells():
                raise PermissionError("code made at run time is not run for the graded code (numpy and Python only)")
        if event == "sys.addaudithook":  # Python then adds no hook, and says nothing
            raise RuntimeError("the graded code adds no audit hook")

    return hook


def _roots(numpy_dir):
    """The folders whose Python files an import may compile and run: Python's library and numpy's."""
    import sysconfig

    found = {os.path.realpath(numpy_dir)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(os.path.realpath(path))
    return tuple(root.rstrip(os.sep) + os.sep for root in found)


def run_cells(job, roots=()):
    namespace = {"__name__": "__main__", "np": np, "__builtins__": _cell_builtins()}
    given = compile(job["given_source"], "<the grader's givens>", "exec") if job.get("given_source") else None
    cells = []
    for label, source in job["cells"]:  # compiled before any runs: then nothing more is
        try:
            cells.append((label, compile(_python_source(source), label, "exec", dont_inherit=True), None))
        except BaseException as exc:  # a cell that is not Python: recorded, as Run All would show it
            cells.append((label, None, exc))
    ours = [c for c in (given, *(code for _, code, _ in cells)) if c]
    sys.addaudithook(_no_code_at_run_time(ours, [label for label, _, _ in cells], roots))
    if given is not None:  # only the givens of this exercise: the child holds no others, in any form
        exec(given, namespace)
        for name in set(namespace) - set(job["givens"]) - {"np", "__name__", "__builtins__"}:
            del namespace[name]
    _STAND_IN["givens"] = {name: namespace[name] for name in job["givens"] if name in namespace}
    _STAND_IN["on"] = bool(job.get("my_rnn"))  # my_rnn.py: its rnn_core imports bind the givens (StandIn)
    namespace["__grader_practice__"] = _PRACTICE
    namespace["__grader_rnn_core__"] = StandIn("rnn_core")  # the names a practice import line also imports
    ipython = _NoIPython(namespace)
    namespace["get_ipython"] = lambda: ipython
    namespace["display"] = _display
    errors = []
    for label, code, failed in cells:
        _WHERE[0] = label
        try:
            if failed is not None:
                raise failed
            exec(code, namespace)
        except BaseException as exc:  # the cell's own error: recorded, as Run All would show it
            errors.append([label, _describe(exc), isinstance(exc, SyntaxError)])
    _WHERE[0] = "a call"
    for name in ("__grader_practice__", "__grader_rnn_core__"):  # used by the cells' import lines, and gone now:
        namespace.pop(name, None)  # a graded call finds them no more than a learner's kernel has them (hostile37p)
    return namespace, errors


def _innermost(exc, labels):
    """[file, function, line] of the innermost frame of the submission's code that the exception passed."""
    try:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in labels]
    except BaseException:
        return None
    last = frames[-1] if frames else None
    return [last.filename, last.name, last.lineno] if last else None


BUDGET = 1_000_000  # line events followed in one call: past it, the rest of the call runs untraced


def lines_traced(labels):
    """Which lines of the submission's code run during the calls (sys.settrace): the grader's review lists the lines
    of the graded function that no hidden case ran. Only frames of the cells' own code are traced, a line already
    seen costs one set lookup, and a code object whose every line has run is traced no more. Tracing slows a
    pure-Python loop (one over 180,000 entries ran 7 times slower), so the grader gives a call more time; past
    BUDGET lines in one call, the call runs untraced, and the reply says so.

    Returns (start, stop, report): plain closures, so that the tracer sys.gettrace() returns is a function, not a
    bound method whose ``__self__`` hands the sets of lines seen to the code it traces (hostile37c, finding 2;
    reaching them through ``__closure__`` is a dunder attribute, which the review's rule d lists)."""
    index = {label: i for i, label in enumerate(labels)}  # cell label -> its index in the job
    gettrace, settrace = sys.gettrace, sys.settrace  # the real ones: main hides the tracer from sys.gettrace
    seen, new, done, left = set(), [], set(), {}
    count = [0, False]  # line events in this call; whether a call went past BUDGET

    def line(frame, event, arg):
        if event != "line":
            return line
        count[0] += 1
        code, lineno = frame.f_code, frame.f_lineno
        todo = left.get(code)
        if todo is not None and lineno not in todo:  # a line this code has run before: the common case
            if count[0] > BUDGET:
                count[1] = True
                frame.f_trace_lines = False
                return None
            return line
        key = (index[code.co_filename], lineno)
        if key not in seen:
            seen.add(key)
            new.append(list(key))
        if todo is not None:
            todo.discard(lineno)
            if not todo:  # every line of this code has run: no more tracing of it
                done.add(code)
                frame.f_trace_lines = False
                return None
        return line

    def trace(frame, event, arg):
        code = frame.f_code
        if code in done or code.co_filename not in index or count[0] > BUDGET:
            return None
        if code not in left:
            numbers = {n for _, _, n in code.co_lines() if n is not None}
            left[code] = numbers - {code.co_firstlineno} if len(numbers) > 1 else numbers
        return line

    def start():
        count[0] = 0
        settrace(trace)

    def stop():
        """Whether tracing was still the grader's when the call returned (the cell's code may switch it off)."""
        ours = gettrace() is trace
        settrace(None)
        return ours

    def report(ours):
        """What a reply carries: the lines first run since the last reply, and whether tracing stayed on."""
        sent = new[:100_000]
        del new[:]
        return {"lines": sent, "traced": bool(ours), **({"partly": True} if count[1] else {})}

    return start, stop, report


def _no_tracer():
    """The cells' sys.gettrace: None. The grader's tracer is not theirs to reach (hostile37e, finding 3: a cell
    reached sys through numpy and the tracer's closure through sys.gettrace(), and wrote lines it never ran into the
    report). The tracer keeps the real sys.gettrace; this function holds no reference to anything."""
    return None


# each call runs under numpy's own error settings, as in a fresh session, never the grader's choice: a function that
# read np.geterr() told a graded call from training by a quiet "ignore" (hostile37o: 22 switches); rule d lists it
_NUMPY_DEFAULT_ERRORS = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}


def serve(rfd, wfd, fn, labels, tracer, receive=receive, send=send, refused=_REFUSED):
    """Call ``fn`` on each call the parent sends, until its pipe closes. ``tracer`` (lines_traced's closures),
    the channel and the list of refused imports are bound by ``main`` before any cell runs: code of a cell that
    replaces this module's globals changes nothing here (hostile37d, finding 1)."""
    kept, alive = {}, []
    start, stop, report = tracer

    def after_call(ours):  # what every reply carries: the lines the call ran, the imports refused so far
        return {**report(ours), "refused": refused[:20]}

    while True:
        try:
            header, blobs = receive(rfd)
        except EOFError:
            return
        decoder = Decoder(blobs)
        args = [decoder.value(a, (i,)) for i, a in enumerate(header["call"])]
        alive.append(args)  # no later call's arguments can reuse these ids
        try:
            with _N.errstate(**_NUMPY_DEFAULT_ERRORS):
                start()
                try:
                    raw = fn(*args)
                finally:
                    ours = stop()
        except BaseException as exc:
            message = {"raised": {"type": _type_name(exc), "message": _describe(exc), "at": _innermost(exc, labels)}}
            send(wfd, {**message, **after_call(ours)})
            continue
        encoder = Encoder(decoder.originals, kept)
        try:
            returned = encoder.value(raw)
            after = [encoder.after(a, (i,)) for i, a in enumerate(args)]
            updates = encoder.updates()
        except BaseException as exc:  # a strange object whose reading raised
            message = {"raised": {"type": _type_name(exc), "message": _describe(exc), "reading": True}}
            send(wfd, {**message, **after_call(ours)})
            continue
        reply = {"returned": returned, "args": after, "updates": updates, **after_call(ours)}
        send(wfd, reply, encoder.blobs)


# -- the sandbox: what the cells may read, once numpy is imported ----------------------------------------

_FS_BITS = {1: 0x1FFF, 2: 0x3FFF, 3: 0x7FFF, 4: 0x7FFF, 5: 0xFFFF}  # LANDLOCK_ACCESS_FS_* handled by each ABI
_READ = 0x1 | 0x4 | 0x8  # EXECUTE, READ_FILE, READ_DIR
_FILE_ONLY = 0x1 | 0x2 | 0x4 | 0x4000 | 0x8000  # the rights a rule on a file (not a folder) may hold


def _readable():
    """The folders the cells may read: Python's own library but not its site-packages, numpy, shared libraries."""
    import sysconfig

    folders = set()
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    for base in {stdlib, os.path.dirname(stdlib), "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"}:
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            path = os.path.realpath(os.path.join(base, name))
            # packages live in site-packages and dist-packages, and in other Pythons' folders beside this one's
            if name in ("site-packages", "dist-packages") or (name.startswith("python") and path != stdlib):
                continue
            if path == stdlib:  # this Python's library: its entries, all but the packages' folders
                continue
            folders.add(path)
    for name in os.listdir(stdlib):
        if name not in ("site-packages", "dist-packages"):
            folders.add(os.path.join(stdlib, name))
    real = os.path.dirname(os.path.realpath(np.__file__))
    folders.update({real, real + ".libs", os.path.join(os.path.dirname(real), "numpy.libs")})
    return folders


def sandbox(numpy_dir, work):
    """Landlock: the cells read Python's library and numpy only, write only in their folder, use no network,
    and cannot signal or trace a process outside their own (the grader). Returns the ABI, or why there is none."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
        syscall.restype = ctypes.c_long
        numbers = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}.get(os.uname().machine)
        if numbers is None:
            return f"no Landlock numbers for {os.uname().machine}"
        create, add, restrict = numbers
        abi = syscall(create, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
        if abi < 1:
            return f"Landlock unavailable ({os.strerror(ctypes.get_errno())})"
        fs = _FS_BITS.get(abi, 0xFFFF)
        attr = struct.pack("=QQQ", fs, 0x3 if abi >= 4 else 0, 0x3 if abi >= 6 else 0)
        size = 24 if abi >= 6 else 16 if abi >= 4 else 8
        ruleset = syscall(create, ctypes.c_char_p(attr[:size]), ctypes.c_size_t(size), ctypes.c_uint32(0))
        if ruleset < 0:
            return f"Landlock refused a ruleset ({os.strerror(ctypes.get_errno())})"

        def allow(path, access):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                return
            try:
                if not os.path.isdir(path):
                    access &= _FILE_ONLY
                rule = struct.pack("=Qi", access & fs, fd)
                syscall(add, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.c_char_p(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)

        for folder in sorted(_readable()):
            allow(folder, _READ)
        allow(numpy_dir, _READ)
        allow(work, fs)
        for device in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"):
            allow(device, 0x2 | 0x4)
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            return f"no_new_privs refused ({os.strerror(ctypes.get_errno())})"
        if syscall(restrict, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return f"Landlock refused to restrict ({os.strerror(ctypes.get_errno())})"
        os.close(ruleset)
        return abi
    except Exception as exc:  # noqa: BLE001 - any failure leaves the child unsandboxed, and says so
        return f"Landlock failed ({type(exc).__name__}: {exc})"


def main(numpy_dir, rfd, wfd):
    global np
    sys.path.append(numpy_dir)
    sys.meta_path.insert(0, _NoRnnCore())
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy
    import numpy.fft
    import numpy.ma
    import numpy.polynomial
    import numpy.random  # noqa: F401  numpy's lazily loaded modules, loaded now: importing them compiles code, which
    # the audit hook refuses once the cells run (hostile37h, finding 6d: a right answer with np.ma raised)

    np = numpy
    _N.bind(numpy)
    roots = _roots(numpy_dir)  # before the sandbox and the refusals: sysconfig is the grader's to import
    import site  # -S leaves out the builtins site adds (exit, quit, copyright, credits, license, help), which a

    site.setquit()  # learner's kernel has: a cell that tried `exit` told the grader apart (hostile37p)
    site.setcopyright()
    site.sethelper()
    sys.meta_path.append(_NoOtherModules())
    sandboxed = sandbox(numpy_dir, os.getcwd())
    _disarm()
    header, _ = receive(rfd)
    job = header["job"]
    labels = [label for label, _ in job["cells"]]
    serving, tracer, sending = serve, lines_traced(labels), send  # bound before any cell runs
    sys.gettrace = _no_tracer  # the tracer, out of sys.gettrace()'s reach (the tracer holds the real one)
    early_start, early_stop, early_report = lines_traced(labels)  # the lines the cells' own run runs (rule b)
    early_start()
    try:
        namespace, errors = run_cells(job, roots)
    finally:
        early_stop()
    missing = object()
    fn = namespace.get(job["function"], missing)
    code = getattr(fn, "__code__", None)
    ready = {
        "errors": errors,
        "defined": fn is not missing,
        "callable": callable(fn) if fn is not missing else False,
        "kind": _type_name(fn),
        "first": code.co_firstlineno if isinstance(code, type(main.__code__)) else 1,
        "sandbox": sandboxed,
        "refused": _REFUSED[:20],
        "early": early_report(True)["lines"],
    }
    sending(wfd, {"ready": ready})
    if ready["callable"]:
        serving(rfd, wfd, fn, labels, tracer)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    os._exit(0)  # without waiting for threads the cells may have started
