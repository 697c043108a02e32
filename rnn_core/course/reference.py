"""The checker's own copies of rnn_core's modules, and how to recognise rnn_core's code (private).

``rnn_core.practice`` compares the reader's function with rnn_core's function of that name. It
must not compare with whatever the name ``rnn_core.gru.step_forward`` holds when ``check`` runs:
notebook 09 invites ``gru.step_forward = mine``, a patched ``rnn_core.softmax`` would change
``cross_entropy_grad`` too (it calls softmax by name), and a reader's function could patch rnn_core
while it runs. So the checker loads its own copies of the modules it needs from their source files,
once, when ``rnn_core.practice`` is imported, under the private package name ``PACKAGE``: their
functions look each other up in their own namespaces, which nothing outside the checker touches,
and the copies are loaded from the files, not taken from the (possibly patched) modules in memory.

The same module says what is rnn_core's own code: a function whose code was compiled from one of
rnn_core's files under rnn_core's name for it (``origin``). That is how ``check`` notices a reader's
function that *is* rnn_core's, one that calls it while it runs (by any alias or import route), and
an rnn_core whose functions have been replaced.
"""

from __future__ import annotations

import importlib
import operator
import os
import sys
import types
from pathlib import Path

__all__ = ["PACKAGE", "HOME", "load", "origin", "code_of", "pristine", "remember_checker", "restore_checker"]

HOME = Path(__file__).resolve().parent.parent  # rnn_core's folder (this file is in its course/)
PACKAGE = "rnn_core._practice_copy"  # the private package the copies live in


def load(module):
    """The checker's copy of ``rnn_core.<module>`` (e.g. "functions", "rnn", "lstm"), loaded from its file once."""
    if PACKAGE not in sys.modules:
        package = types.ModuleType(PACKAGE, "The checker's private copies of rnn_core's modules.")
        package.__path__ = [str(HOME)]  # its submodules are rnn_core's files, loaded afresh
        package.__package__ = PACKAGE
        sys.modules[PACKAGE] = package
    return importlib.import_module(f"{PACKAGE}.{module}")


_REAL = {}  # a code object's file name -> that file's real path, or None for a file outside rnn_core


def _module_name(path):
    """The module name of a file of rnn_core, relative to the package ("rnn", "course.check"), else None."""
    if path is None or path.suffix != ".py":
        return None
    if path.parent == HOME:
        return path.stem
    if path.parent == HOME / "course":
        return f"course.{path.stem}"
    return None


def origin(code):
    """(module, qualified name) of a code object compiled from one of rnn_core's files, else None.

    ``module`` is the file's name without ``.py`` ("functions", "_fast_rnn"; "course.check" for the
    course tooling's files), whichever package it
    was imported under (rnn_core's, the checker's copies, or a copy of the reader's own).
    """
    filename = getattr(code, "co_filename", None)
    if not isinstance(filename, str):
        return None
    if filename not in _REAL:
        try:
            path = Path(os.path.realpath(filename))
        except (OSError, ValueError):
            path = None
        _REAL[filename] = _module_name(path)
    module = _REAL[filename]
    return None if module is None else (module, code.co_qualname)


def code_of(fn):
    """The code object a callable runs, looking through bound methods and ``functools.partial``; else None."""
    for _ in range(10):  # a partial of a partial of ...: a few levels are plenty
        if isinstance(fn, types.MethodType):
            fn = fn.__func__
        elif hasattr(fn, "func") and callable(getattr(fn, "func", None)) and type(fn).__name__ == "partial":
            fn = fn.func
        else:
            break
    code = getattr(fn, "__code__", None) if isinstance(fn, types.FunctionType) else None
    return code if isinstance(code, types.CodeType) else None


def pristine(obj, where):
    """True if ``obj`` is rnn_core's own function ``where`` = (module, qualified name)."""
    code = code_of(obj)
    return code is not None and origin(code) == where and not isinstance(obj, types.MethodType)


# -- the checker's own functions as they were --------------------------------------------------------------

_ORIGINAL = {}  # function -> (its code, defaults and keyword defaults) when the checker was imported
_FunctionType, _id = types.FunctionType, id


def remember_checker(*modules):
    """Note the code of every function of ``modules``, of the checker's copies and of numpy's namespaces.

    Functions are found among module attributes, in classes, in tuples, lists, dicts and dataclasses
    (an ``Exercise``'s reference, cases, model, steps and mistakes) and in closures, a few levels deep.
    ``restore_checker`` then puts back any whose ``__code__`` (or defaults) was swapped since.
    """
    seen = set()

    def walk(value, depth):
        if _id(value) in seen or depth > 5:
            return
        seen.add(_id(value))
        if isinstance(value, types.FunctionType):
            _ORIGINAL.setdefault(value, (value.__code__, value.__defaults__, value.__kwdefaults__))
            for cell in value.__closure__ or ():
                try:
                    walk(cell.cell_contents, depth + 1)
                except ValueError:  # an empty cell
                    pass
        elif isinstance(value, (staticmethod, classmethod)):
            walk(value.__func__, depth + 1)
        elif isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                walk(part, depth + 1)
        elif isinstance(value, type) and depth == 0:
            for item in list(vars(value).values()):
                walk(item, depth + 1)
        elif isinstance(value, (tuple, list, frozenset, set)):
            for item in list(value):
                walk(item, depth + 1)
        elif isinstance(value, dict):
            for item in list(value.values()):
                walk(item, depth + 1)
        elif hasattr(type(value), "__dataclass_fields__"):
            for name in type(value).__dataclass_fields__:
                walk(getattr(value, name, None), depth + 1)

    copies = [m for name, m in sys.modules.items() if name.startswith(PACKAGE + ".")]
    for module in (*modules, *copies):
        for value in list(vars(module).values()):
            if getattr(value, "__module__", module.__name__) == module.__name__ or isinstance(value, (tuple, dict)):
                walk(value, 0)
    for name in ("numpy", "numpy.linalg"):
        for value in list(vars(sys.modules[name]).values()):
            if isinstance(value, types.FunctionType):
                walk(value, 0)


_PARTS = tuple(map(operator.attrgetter, ("__code__", "__defaults__", "__kwdefaults__")))
# taken at import: an earlier cell, or the reader's function, may rebind the builtins
_all, _map, _zip, _len, _tuple, _is = all, map, zip, len, tuple, operator.is_
_KEPT = [0, (), ()]  # len(_ORIGINAL) when last read, its functions, and per part their values then


def restore_checker():
    """Names of the remembered functions whose code was swapped; each is put back as it was."""
    if _KEPT[0] != _len(_ORIGINAL):
        _KEPT[:] = [_len(_ORIGINAL), _tuple(_ORIGINAL), [_tuple(o[i] for o in _ORIGINAL.values()) for i in (0, 1, 2)]]
    functions, originals = _KEPT[1], _KEPT[2]
    if _all(  # compared in C: this runs after every call of the reader's, over thousands of functions
        _all(_map(_is, _map(part, functions), kept)) for part, kept in _zip(_PARTS, originals)
    ):
        return []
    changed = []
    for fn, (code, defaults, kwdefaults) in _ORIGINAL.items():
        if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
            fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults
            changed.append(f"{fn.__module__}.{fn.__qualname__}")
    return changed
