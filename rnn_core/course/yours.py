"""Your own network: the file of your answers, your progress, and your pieces trained together.

``rnn_core.practice`` re-exports what is here; a notebook uses it as ``practice.my_rnn()``,
``practice.save(fn)``, ``practice.check_all(functions)``, ``practice.use_yours(name, fn)``,
``practice.train_yours(functions, text, ...)`` and ``practice.your_cell(name, functions)``.

- ``my_rnn(path=None)``: your file, ``my_rnn.py``, loaded fresh as a module. The first call makes
  it from a template (one stub per exercise, with its docstring) and prints where. By default it
  is ``my_rnn.py`` in the current folder, which in Jupyter is the notebook's own folder, so
  ``notebooks/my_rnn.py`` (git ignores it); the environment variable ``RNN_CORE_MY_RNN``, or the
  ``path`` argument, names another file (the tests and CI use one, so that nothing is ever
  written into notebooks/ for them).
- ``save(fn, name=None, *, force=False, path=None)``: checks ``fn`` as ``practice.check`` does
  and, if it passes, checks it again as it will run inside my_rnn.py, calling the file's other
  functions (a stub there stands for rnn_core's function), and checks every piece of the file
  that calls it; only then writes its source into my_rnn.py in place of the function of that
  name (the rest of the file is kept, the file replaced whole or not at all). A function that
  fails, here or in the file, is not saved unless ``force=True``. The functions of the notebook
  that it calls and the file lacks (a helper such as ``sigmoid``) are saved with it. It warns
  when the function uses a name my_rnn.py does not define, or calls one of your functions that
  is still a stub there.
- ``check_all(functions)``: ``functions`` is a module (``my_rnn()``) or a dict; every exercise
  found in it is checked; prints one table (piece, status, notebook), with a line under every
  "error" saying what was raised and on which of your lines, and returns ``{name: Result}``.
- ``use_yours(name, fn)``: ``fn`` if it passes its check, otherwise ``rnn_core``'s function of
  that name; prints one line saying which, and why.
- ``train_yours(functions, text, *, hidden_size, steps, seed, ...)``: a vanilla RNN trained on
  ``text`` with your ``loss_and_grads`` (one sequence at a time, looped over the batch's rows),
  your ``clip_global_norm`` and ``adam_update``, and sampled with your ``step_forward`` and
  ``softmax``; with ``dropout=``, your ``dropout_backward`` too. A piece that is missing, still a
  stub, or fails its check (on the public cases, or on hidden ones drawn afresh) is replaced by
  ``rnn_core``'s, with one printed line saying why. Returns a ``YourRun``.
- ``your_cell(name, functions)``: the LSTM or the GRU with your step functions, behind the
  interface of ``rnn_core.lstm`` / ``rnn_core.gru`` (``forward``, ``loss_and_grads``,
  ``sequence_loss``), so that code written for rnn_core's cell (08's and 09's recall task) runs
  with your steps; rnn_core's module itself when neither step is yours.

Names in my_rnn.py: an exercise's name, its dot written as an underscore ("lstm.step_forward" is
``lstm_step_forward``), as the notebooks name them. A dict given to ``check_all`` or
``train_yours`` may use either spelling as its keys. In my_rnn.py your functions call each other by
these module-level names.

The training step is the one ``rnn_core.train`` takes: the gradient of the window's mean loss per
character (the sum over the B rows of your per-sequence gradients, times 1 / (B T)) is clipped to
a global norm of ``clip_norm`` and given to Adam. Clipping the mean, not the sum, matters: the sum
over B T = 200 characters has a norm around a hundred times the mean's, so clipping it at 5 would
shrink every single update, and the threshold would depend on B and T.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib.util
import inspect
import io
import linecache
import os
import secrets
import sys
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FunctionType, ModuleType

import numpy as np

from .. import attention, gru, lstm, optim, rnn, seq2seq
from .. import functions as _functions
from .._cell import ReferenceEngine, Sequences, count_layers
from .._validation import check_choice, check_int, check_number
from ..data import StreamBatcher
from ..files import write_atomically
from ..generate import draw_index
from ..trainer import NonFinite, optimizer_step
from ..vocab import Vocabulary
from .check import EXERCISES, Result, check

__all__ = [
    "MY_RNN_ENV",
    "YourCell",
    "YourRun",
    "check_all",
    "file_name",
    "my_rnn",
    "save",
    "train_yours",
    "use_yours",
    "your_cell",
]

MY_RNN_ENV = "RNN_CORE_MY_RNN"  # the environment variable naming your file instead of ./my_rnn.py
PIECES = ("loss_and_grads", "clip_global_norm", "adam_update", "step_forward", "softmax")  # what train_yours uses

_RNN_CORE = {  # rnn_core's function of each exercise: what a piece falls back to
    "one_hot": _functions.one_hot,
    "softmax": _functions.softmax,
    "softmax_jacobian": _functions.softmax_jacobian,
    "cross_entropy_grad": _functions.cross_entropy_grad,
    "step_forward": rnn.step_forward,
    "step_backward": rnn.step_backward,
    "loss_and_grads": rnn.loss_and_grads,
    "clip_global_norm": optim.clip_global_norm,
    "adam_update": optim.adam_update,
    "global_norm": optim.global_norm,
    "lstm.step_forward": lstm.step_forward,
    "lstm.step_backward": lstm.step_backward,
    "gru.step_forward": gru.step_forward,
    "gru.step_backward": gru.step_backward,
    "dropout_backward": _functions.dropout_backward,
    "seq2seq.masked_loss_and_grad": seq2seq.masked_loss_and_grad,
    "seq2seq.beam_step": seq2seq.beam_step,
    "attention_forward": attention.attention_forward,
    "attention_backward": attention.attention_backward,
}


def file_name(name):
    """The name of the exercise ``name`` in my_rnn.py: "lstm.step_forward" -> "lstm_step_forward"."""
    return name.replace(".", "_")


# -- your file -------------------------------------------------------------------------------------------


def my_rnn(path=None):
    """Your file my_rnn.py, run fresh and returned as a module (made from the template the first time).

    path: the file; default ``$RNN_CORE_MY_RNN`` if set, else ``my_rnn.py`` in the current folder
    (a notebook's own folder). Prints where the file is, and that it was made if it was.
    Raises ImportError, naming the line, if the file does not run (a syntax error, say).
    """
    path, where = _locate(path)
    made = _make_if_missing(path, where)
    if not made:
        print(f"Your file: {where}.")
    return _load(path, where)


def save(fn, name=None, *, force=False, path=None):
    """Check your function ``fn`` and, if it passes, write its source into my_rnn.py.

    name: the exercise (e.g. "softmax", "lstm.step_forward"); by default taken from fn's own
      name (``lstm_step_forward`` is "lstm.step_forward"). If fn's name differs from the file's
      name for the exercise, the saved def is renamed.
    force: save even if the check does not pass (train_yours then still uses rnn_core's piece).
    path: the file, as for ``my_rnn``.
    The function of that name in my_rnn.py (its stub, or an earlier answer) is replaced; the rest
    of the file stays as it is; the file is replaced whole, never half-written. Before writing,
    the function is checked as it will run in the file (calling the file's functions, each stub
    there standing for rnn_core's), and so is every piece of the file that calls it and passed
    before: if one of them fails there, nothing is written (unless force=True) and its message is
    printed. Prints what was saved, and a warning for every name the function uses that my_rnn.py
    lacks or has only as a stub. Returns the check's Result (its message is printed only when it
    does not pass), or the Result of the check that failed in the file.
    """
    if not callable(fn):
        raise TypeError(f"save(fn): fn must be your function itself, got {type(fn).__name__}")
    name = _exercise_of(fn, name)
    source, node = _source_of(fn, name)
    path, where = _locate(path)
    result = _quiet_check(name, fn)
    if result.status != "passed":
        print(result.message)  # what is wrong, as practice.check says it
        if not force:
            print(
                f"Not saved: your {name} does not pass its check ({result.status}). Fix it and save again, "
                f"or save it anyway with practice.save(..., force=True)."
            )
            return result
    _make_if_missing(path, where)
    text = path.read_text(encoding="utf-8")
    tree = _parse(text, where)
    target = file_name(name)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == target]
    if len(defs) > 1:
        lines = ", ".join(str(n.lineno) for n in defs)
        raise ValueError(f"{where} defines {target} {len(defs)} times (lines {lines}): keep one, then save again")
    new = source.rstrip("\n").split("\n")
    lines = text.split("\n")
    if defs:
        start = min([defs[0].lineno] + [d.lineno for d in defs[0].decorator_list])
        replaced = "its stub" if _is_stub(defs[0]) else "your earlier one"
        lines[start - 1 : defs[0].end_lineno] = new
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", ""] + new
        replaced = None
    imports = _library_imports(fn, node, tree)
    if imports:  # the libraries' names yours uses and the file lacks, imported after the file's imports
        at = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
        lines[at:at] = imports
    helpers = _helpers(fn, node, tree, target)
    if helpers:  # the notebook's own functions that yours calls and the file lacks, written after it
        while lines and not lines[-1].strip():
            lines.pop()
        for helper in helpers.values():
            lines += ["", ""] + helper.rstrip("\n").split("\n")
    text = "\n".join(lines).rstrip("\n") + "\n"
    _parse(text, where)  # what is written runs as far as Python's parser can tell
    if result.status == "passed" and not force:
        refused = _fails_in_the_file(name, text, path, where, fn)
        if refused is not None:
            for line in _warnings(node, _parse(text, where), target, where):
                print(line)
            return refused
    _write(path, text)
    state = " (it passes its check)" if result.status == "passed" else ", though it does not pass its check"
    print(f"Saved {target} into {where}" + (f", in place of {replaced}" if replaced else ", at its end") + f"{state}.")
    if imports:
        print(f"Added {'; '.join(imports)} at the top of {where}: your {target} uses it as this notebook has it.")
    if helpers:
        names = ", ".join(helpers)
        print(f"Saved {names} too, at the end of the file: your {target} calls {'them' if len(helpers) > 1 else 'it'}.")
    for line in _warnings(node, _parse(text, where), target, where):
        print(line)
    return result


# the libraries whose names a saved function may bring into my_rnn.py with an import of its own, but
# never the course's own modules
_LIBRARIES = ("numpy", "math", "rnn_core")
_COURSE = ("rnn_core.course", "rnn_core.practice")


def _public_module(value, name):
    """Where ``value`` (a function named ``name``) is imported from: its package's top if the package
    gives it under that name (``rnn_core.softmax``), else its own module (``rnn_core.functions``)."""
    top = value.__module__.split(".")[0]
    return top if getattr(sys.modules.get(top), name, None) is value else value.__module__


def _library_imports(fn, node, tree):
    """The import lines for the names ``fn`` uses that the file lacks and that, where fn was written, are
    a library's module or function (``rnn_core``, ``np``, ``log_softmax``): in my_rnn.py they would be a
    NameError. Not the course's own modules, and not a name the file defines."""
    defined, _ = _module_names(tree)
    if defined is None:
        return []
    found = []
    for name in _free_names(node):
        value = getattr(fn, "__globals__", {}).get(name)
        if name in defined or value is None:
            continue
        if isinstance(value, ModuleType):
            module = value.__name__
        elif callable(value) and getattr(value, "__name__", None) == name:
            module = getattr(value, "__module__", None) or ""
        else:
            continue
        if module.split(".")[0] not in _LIBRARIES or module.startswith(_COURSE):
            continue
        if isinstance(value, ModuleType):
            found.append(f"import {module}" if module == name else f"import {module} as {name}")
        else:
            found.append(f"from {_public_module(value, name)} import {name}")
    return found


def _helpers(fn, node, tree, target):
    """{name: source} of the functions ``fn`` calls that the file lacks and that were defined beside fn (in its
    notebook, say ``sigmoid`` beside ``lstm_step_forward``), and of the functions those call in turn."""
    defined, _ = _module_names(tree)
    if defined is None:
        return {}
    found, todo = {}, [(fn, node)]
    while todo:
        caller, caller_node = todo.pop()
        for name in _free_names(caller_node):
            helper = getattr(caller, "__globals__", {}).get(name)
            if name in defined or name in found or name == target or not isinstance(helper, FunctionType):
                continue
            if helper.__module__ != fn.__module__ or _is_rnn_core(helper):
                continue  # a library's function: the file imports it, or the warning says to
            try:
                source = textwrap.dedent(inspect.getsource(helper))
                helper_node = ast.parse(source).body[0]
            except (OSError, TypeError, SyntaxError, IndexError):
                continue
            if not isinstance(helper_node, (ast.FunctionDef, ast.AsyncFunctionDef)) or helper_node.name != name:
                continue
            found[name] = source
            todo.append((helper, helper_node))
    return found


def _fails_in_the_file(name, text, path, where, fn=None):
    """None if the function saved as ``name`` into the file as ``text`` passes its check there, and so does
    every piece of the file that calls it; otherwise the failing check's Result, with why printed (and
    that nothing was saved).

    In my_rnn.py a function calls the file's functions, not the notebook's: a loss_and_grads that passed
    with rnn_core's one_hot may fail with the reader's. The file is run as it would be written, its
    stubs standing for rnn_core's functions (a piece not written yet is not the saved one's fault; the
    note about it follows), and ``fn``'s copy there is checked, then each piece of the file that calls it,
    directly or through others, and that passed before.
    """
    target = file_name(name)
    try:
        module = _run_text(text, path, stand_ins=True)
    except Exception as exc:
        message = f"Not saved: {where} with your {target} in it would not run ({type(exc).__name__}: {exc})."
        print(message + " Fix the file, then save again.")
        return Result("error", [], message)
    there = getattr(module, target, None)
    if callable(there) and getattr(there, "__module__", None) == module.__name__:
        inside = _quiet_check(name, there)
        if inside.status != "passed":
            print(inside.message)
            for line in _rebound(fn, there, target, where) if fn is not None else ():
                print(line)
            print(
                f"Not saved: your {name} passes its check here, but not inside {where} ({inside.status}), "
                f"where it calls that file's functions, not this notebook's: make it work with them (the "
                f"message above says what goes wrong there), or save it anyway with force=True."
            )
            return inside
    callers = _callers(_parse(text, where), target)
    if not callers:
        return None
    try:
        before = _run_text(path.read_text(encoding="utf-8"), path, stand_ins=True)
    except Exception:
        before = None  # the file as it is does not run: nothing in it passes now
    by_file_name = {file_name(n): n for n in EXERCISES}
    for caller in callers:
        other = by_file_name.get(caller)
        if other is None or before is None or not callable(getattr(before, caller, None)):
            continue
        after = _quiet_check(other, getattr(module, caller))
        if after.status != "passed" and _quiet_check(other, getattr(before, caller)).status == "passed":
            print(after.message)
            print(
                f"Not saved: your {caller} in {where} calls {target}, and with this {target} it no longer passes "
                f"its check ({after.status}; the message above says why). Make the two fit, or save it anyway "
                f"with force=True."
            )
            return after
    return None


def _rebound(fn, there, target, where):
    """Lines naming the functions ``fn`` calls that mean something else in the file than where fn was
    written: in 12, ``softmax`` is rnn_core's (rows of a batch), in my_rnn.py the reader's own (one vector)."""
    lines = []
    for name in dict.fromkeys(there.__code__.co_names):
        here, inside = getattr(fn, "__globals__", {}).get(name), there.__globals__.get(name)
        if callable(here) and callable(inside) and here is not inside and getattr(here, "__module__", "") != "__main__":
            origin = f"{_public_module(here, name)}.{name}"
            lines.append(
                f"In {where}, {target} calls the file's own {name}, not {origin} as it does here: if that one "
                f"takes other inputs (one vector, not a batch), write what you need inside {target}."
            )
    return lines


def _run_text(text, path, stand_ins=False):
    """The file's text run as a module (as my_rnn() would run the file); with stand_ins, each exercise
    still a stub there replaced by rnn_core's function."""
    module = ModuleType("my_rnn")
    module.__file__ = str(path)
    filename = f"{path} (as save would write it)"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # the reader's lines, shown
    exec(compile(text, filename, "exec"), module.__dict__)
    if stand_ins:
        _, stubs = _module_names(ast.parse(text))
        for name, function in _RNN_CORE.items():
            if file_name(name) in stubs:
                setattr(module, file_name(name), function)
    return module


def _callers(tree, target):
    """The names of the file's functions that call ``target``, directly or through other functions of the file."""
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    calls = {name: set(_free_names(node)) & set(defs) for name, node in defs.items()}
    found, todo = [], [target]
    while todo:
        callee = todo.pop()
        for name, names in calls.items():
            if callee in names and name != target and name not in found:
                found.append(name)
                todo.append(name)
    return found


def _locate(path):
    """(the file, how the messages name it)."""
    if path is not None:
        path = Path(path)
        where = str(path)
    else:
        # $RNN_CORE_MY_RNN's file is named as the default one is, by its folder and its name: what a
        # notebook prints is then the same wherever the file is (the tests' copy is notebooks/my_rnn.py
        # in a temporary folder, so stored outputs show what a reader sees at home)
        path = Path(os.environ[MY_RNN_ENV]) if os.environ.get(MY_RNN_ENV) else Path.cwd() / "my_rnn.py"
        where = f"{path.absolute().parent.name}/{path.name}"
    if path.is_dir():
        raise ValueError(f"{where} is a folder; name a file such as {path / 'my_rnn.py'}")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"the folder of {where} ({path.parent}) does not exist; create it or choose another")
    return path, where


def _make_if_missing(path, where):
    """Write the template at path if nothing is there; True if it did (and said so)."""
    if path.exists():
        return False
    _write(path, TEMPLATE)
    print(
        f"Made {where} from the template: one stub per exercise, for your answers.\n"
        "Write a function there, or save one that passes its check with practice.save(your_function)."
    )
    return True


def _write(path, text):
    """Replace the file whole (rnn_core.files.write_atomically), with the permissions a new file gets, or it had."""
    if path.exists():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    write_atomically(path, lambda f: f.write(text.encode("utf-8")))
    os.chmod(path, mode)


def _load(path, where):
    spec = importlib.util.spec_from_file_location("my_rnn", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        line = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ImportError(
            f"{where} does not run{line}: {type(exc).__name__}: {exc}. Fix it, then run this cell again."
        ) from exc
    return module


def _parse(text, where):
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise ValueError(
            f"{where} does not parse (line {exc.lineno}: {exc.msg}): fix it first; nothing was written"
        ) from None


def _exercise_of(fn, name):
    """The exercise to save fn as: ``name``, or the one whose name in my_rnn.py is fn's own."""
    if name is not None:
        if name not in EXERCISES:
            raise ValueError(f"no exercise named {name!r}; the exercises: {', '.join(EXERCISES)}")
        return name
    own = getattr(fn, "__name__", "")
    by_file_name = {file_name(n): n for n in EXERCISES}
    if own not in by_file_name:
        raise ValueError(
            f"your function is named {own!r}, which is no exercise's name in my_rnn.py: say which exercise "
            f"it answers, e.g. practice.save({own if own.isidentifier() else 'fn'}, 'loss_and_grads')"
        )
    return by_file_name[own]


def _source_of(fn, name):
    """fn's source, dedented, its def renamed to the file's name for ``name``: (source, its FunctionDef)."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise ValueError(f"cannot read the source of your {name} ({exc}): copy it into my_rnn.py by hand") from None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ValueError(f"save needs a function written with def (not a lambda) for {name}: write it as one")
    target = file_name(name)
    if node.name != target:
        lines = source.split("\n")
        i = node.lineno - 1
        lines[i] = lines[i].replace(f"def {node.name}", f"def {target}", 1)
        source = "\n".join(lines)
        node = ast.parse(source).body[0]
    return source, node


def _is_stub(node):
    """A def whose body is (a docstring and) ``raise NotImplementedError``."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _warnings(node, tree, target, where):
    """Lines about the names the saved function uses: missing from the file, or stubs there."""
    defined, stubs = _module_names(tree)
    lines = []
    for name in _free_names(node):
        if defined is not None and name not in defined:
            lines.append(
                f"Warning: {target} uses {name}, which {where} does not define: add it there (an import or "
                f"a def), or {target} fails there with a NameError."
            )
        elif name in stubs and name != target:
            lines.append(
                f"Note: {target} calls {name}, which is still a stub in {where}: write or save it too, or "
                f"{target} fails there."
            )
    return lines


def _free_names(node):
    """The names a function reads that it does not bind itself and that are not builtins, in order."""
    bound, loaded = set(), []
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                loaded.append(n.id)
            else:
                bound.add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
    return [name for name in dict.fromkeys(loaded) if name not in bound and not hasattr(builtins, name)]


def _module_names(tree):
    """(the names a module defines at its top level, or None if a star import hides them; its stubs)."""
    names, stubs = set(), set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
            if not isinstance(n, ast.ClassDef) and _is_stub(n):
                stubs.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            if any(a.name == "*" for a in n.names):
                return None, stubs
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
        else:
            names.update(m.id for m in ast.walk(n) if isinstance(m, ast.Name) and not isinstance(m.ctx, ast.Load))
    return names, stubs


# -- your progress ---------------------------------------------------------------------------------------


def check_all(functions):
    """Check every exercise found in ``functions``; print one table of your progress; return {name: Result}.

    functions: a module (``practice.my_rnn()``) or a dict of your functions, by their names in
      my_rnn.py ("lstm_step_forward") or their exercises' names ("lstm.step_forward").
    Every exercise gets a row: its status ("passed", "not attempted", "wrong", "error": then a
    second line says what was raised, and on which of your lines), "missing"
    if functions has no such function, or "rnn_core's own" if it is the package's function itself,
    not yours; and the notebook that asks for it. The returned dict holds the Results of the
    functions that were checked. ``practice.check(name, fn)`` says what is wrong with a piece.
    """
    found, results, rows = _lookup(functions), Progress(), []
    for name, notebook in EXERCISES.items():
        fn = found.get(name)
        if fn is None:
            status = "missing"
        elif _is_rnn_core(fn):
            status = "rnn_core's own"
        else:
            results[name] = _quiet_check(name, fn)
            status = results[name].status
        rows.append((name, status, notebook.removesuffix(".ipynb")))
    width = max(len(r[0]) for r in rows) + 2
    lines = [f"{'piece':<{width}}{'status':<16}notebook"]
    for name, status, notebook in rows:
        lines.append(f"{name:<{width}}{status:<16}{notebook}")
        if status == "error":  # why, in one line: the exception and the reader's line it came from
            lines.append(" " * width + _reason(results[name]))
    passed = sum(r.status == "passed" for r in results.values())
    lines.append(f"{passed} of {len(rows)} pieces pass their checks.")
    if any(r.status in ("wrong", "error") for r in results.values()):
        lines.append('practice.check("name", your_function) says what is wrong with a piece.')
    print("\n".join(lines))
    return results


REASON_WIDTH = 96  # the most characters of an error's reason check_all prints under its row


def _reason(result):
    """An "error" Result's message in one line: what was raised, and the reader's line it was raised in."""
    lines = [line.strip() for line in result.message.splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    first = lines[0].split(": error. ", 1)[-1].removeprefix("Your function ")
    where = next((line for line in lines[1:] if line.startswith("in ")), None)
    reason = f"{first.rstrip('.')}, {where}" if where else first
    return reason if len(reason) <= REASON_WIDTH else reason[: REASON_WIDTH - 1] + "…"


class Progress(dict):
    """check_all's {name: Result}: a dict that a notebook cell does not display (the table is printed)."""

    def _ipython_display_(self):
        """Nothing: check_all has printed its table already."""


def use_yours(name, fn):
    """``fn`` if it passes its check, else rnn_core's function ``name``; prints one line saying which, and why."""
    if name not in _RNN_CORE:
        raise ValueError(f"no exercise named {name!r}; the exercises: {', '.join(EXERCISES)}")
    chosen, why = _choose(name, fn, "your functions", "using")
    if why is None:
        print(f"Using your {name}: it passes its check.")
    else:
        print(why)
    return chosen


def _lookup(functions):
    """{exercise name: the function} for every exercise found in a module or a dict."""
    if isinstance(functions, Mapping):
        get = functions.get
    elif isinstance(functions, ModuleType):

        def get(key):
            return getattr(functions, key, None)

    else:
        kind = type(functions).__name__
        raise TypeError(f"functions must be a module (practice.my_rnn()) or a dict of your functions, got {kind}")
    found = {}
    for name in _RNN_CORE:
        fn = get(file_name(name))
        if fn is None:
            fn = get(name)
        if callable(fn):
            found[name] = fn
    return found


def _is_rnn_core(fn):
    return (getattr(fn, "__module__", None) or "").split(".")[0] == "rnn_core"


def _choose(name, fn, source, instead, hidden_seed=None):
    """(fn, None) if fn passes its check; else (rnn_core's function, the line saying why, then ``instead``).

    instead: what the line says happens, e.g. "training uses" (followed by "rnn_core's <name>").
    hidden_seed: if given, fn must also pass its check on the cases drawn from this seed (other cases
      with the same properties), so that an answer fitted to the public cases is not used.
    """
    ours = f"{instead} rnn_core's {name}."
    if fn is None:
        return _RNN_CORE[name], f"There is no {name} in {source}: {ours}"
    if _is_rnn_core(fn):
        return _RNN_CORE[name], f"Your {name} is rnn_core's own function, not yours: {ours}"
    result = _quiet_check(name, fn)
    short = getattr(fn, "__name__", "")
    short = short if short.isidentifier() else file_name(name)
    if result.status == "passed" and hidden_seed is not None:
        hidden = _quiet_check(name, fn, seed=hidden_seed)
        if hidden.status != "passed":
            return _RNN_CORE[name], (
                f"Your {name} passes its check, but not on other cases drawn like its own ({hidden.status}): "
                f'{ours} practice.check("{name}", {short}, seed={hidden_seed}) shows them.'
            )
    if result.status == "passed":
        return fn, None
    if result.status == "not attempted":
        return _RNN_CORE[name], f"Your {name} is still a stub: {ours}"
    return _RNN_CORE[name], (
        f'Your {name} fails its check ({result.status}): {ours} practice.check("{name}", {short}) says why.'
    )


def _quiet_check(name, fn, seed=None):
    """practice.check without its printed message (in Jupyter, without its displayed one either)."""
    if "IPython" in sys.modules:
        from IPython.utils.capture import capture_output

        quiet = capture_output()
    else:
        quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet:
        return check(name, fn, seed=seed)


# -- your gated cell --------------------------------------------------------------------------------------


def your_cell(name, functions):
    """The cell ``name`` ("lstm" or "gru") with your step functions: rnn_core's interface, your steps.

    functions: a module (``practice.my_rnn()``) or a dict, as for ``check_all``, holding your
      ``<name>_step_forward`` and ``<name>_step_backward``.
    Each of the two that passes its check is used; each that does not is replaced by rnn_core's
    (their caches are rnn_core's, so the two mix), with one printed line saying why. If neither is
    yours, returns the module ``rnn_core.lstm`` (or ``rnn_core.gru``) itself; otherwise a
    ``YourCell``, which has the module's ``forward``, ``loss_and_grads`` and ``sequence_loss``
    (one sequence (T,) or a batch (B, T), the state0 of the module's form) computed one sequence
    at a time with those step functions, and the module's ``init_params``, ``count_params``,
    ``check_params``, ``PARAM_NAMES`` and ``STATE_NAMES``. A notebook's code written for
    ``rnn_core.lstm`` runs unchanged with either.
    """
    check_choice(name, "name", ("lstm", "gru"))
    found, source = _lookup(functions), _source_name(functions)
    chosen, yours = [], []
    for piece in (f"{name}.step_forward", f"{name}.step_backward"):
        fn, why = _choose(piece, found.get(piece), source, "using")
        chosen.append(fn)
        if why is None:
            yours.append(piece)
        else:
            print(why)
    module = lstm if name == "lstm" else gru
    if not yours:
        return module
    passes = "they pass their checks" if len(yours) == 2 else "it passes its check"
    print(f"Using your {' and '.join(yours)}: {passes}.")
    return YourCell(module, *chosen)


class YourCell:
    """An rnn_core cell's sequence-level functions, run with given step functions: an adapter of the stack.

    module: rnn_core.lstm or rnn_core.gru (its parameters, its state, its output layer);
    step_forward, step_backward: with the arguments and return values of the module's, for one
    sequence (an int x_t, (H,) states). The module's own sequence-level functions
    (``rnn_core._cell.Sequences``) run them as a per-layer reference engine, through
    ``_rows_step_forward`` and ``_rows_step_backward``, which call them one sequence (row) at a
    time. One layer: the reader's steps have no ``return_dx``.
    """

    def __init__(self, module, step_forward, step_backward):
        self.module = module
        self.step_forward, self.step_backward = step_forward, step_backward
        self.name = module.__name__.rsplit(".", 1)[-1]
        self.PARAM_NAMES, self.STATE_NAMES = module.PARAM_NAMES, module.STATE_NAMES
        self.init_params, self.count_params = module.init_params, module.count_params
        self.check_params = module.check_params
        self._engine = ReferenceEngine(
            self._rows_step_forward, self._rows_step_backward, module.STATE_NAMES, module.LAYER_NAMES
        )
        self._sequences = Sequences(self._one_layer, module.STATE_NAMES, module.LAYER_NAMES, module.param_names)

    def __repr__(self):
        mine = [f.__name__ for f in (self.step_forward, self.step_backward) if not _is_rnn_core(f)]
        return f"YourCell({self.name}, yours: {', '.join(mine)})"

    def forward(self, params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None):
        """As the module's forward: h, the gates, logits and y_hat, each (T, .) or (B, T, .), and the start."""
        return self._sequences.forward(self._engine, self._cache_names(), params, inputs, state0, dropout, seed, masks)

    def loss_and_grads(
        self, params, inputs, targets, state0=None, return_dstate0=False, *, dropout=0.0, seed=None, masks=None
    ):
        """As the module's loss_and_grads: (loss summed over steps and rows, grads, the last state[, dstate0])."""
        return self._sequences.loss_and_grads(
            self._engine, params, inputs, targets, state0, return_dstate0, dropout, seed, masks
        )

    def sequence_loss(self, params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None):
        """As the module's sequence_loss: (loss summed over steps and rows, the last state)."""
        return self._sequences.sequence_loss(self._engine, params, inputs, targets, state0, dropout, seed, masks)

    def _cache_names(self):
        return (*self.module.GATES, *self.STATE_NAMES[1:])

    def _one_layer(self, params):
        """The module's check of the parameters, and one layer only."""
        params = self.module.check_params(params)
        if count_layers(params, self.module.LAYER_NAMES) > 1:
            raise ValueError("your step functions run one layer: give the parameters of one layer (num_layers=1)")
        return params

    # the steps for a batch, as the engine calls them: x_t (B,), each state (B, H); one row at a time

    def _rows_step_forward(self, params, x_t, *state):
        n = len(self.STATE_NAMES)
        outs = [self.step_forward(params, int(x), *(s[b] for s in state)) for b, x in enumerate(x_t)]
        caches = [out[n] for out in outs]
        cache = {k: np.stack([c[k] for c in caches]) for k in self._cache_names()}  # what forward reports
        cache["rows"] = caches  # what step_backward reads, one row's each
        return (*(np.stack([out[i] for out in outs]) for i in range(n)), cache)

    def _rows_step_backward(self, params, *args, return_dx=False):
        *dstate, cache = args
        outs = [self.step_backward(params, *(d[b] for d in dstate), c) for b, c in enumerate(cache["rows"])]
        n = len(dstate)
        grads = {k: np.sum([out[n][k] for out in outs], axis=0) for k in outs[0][n]}
        return (*(np.stack([out[i] for out in outs]) for i in range(n)), grads)


# -- your network, trained -------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class YourRun:
    """What ``train_yours`` returns.

    losses: (steps,) the mean cross-entropy per character of each step's window, in nats, before
      that step's update.
    sample: ``sample_length`` characters drawn after ``prime``, with step_forward and softmax.
    used: for each piece train_yours uses, "yours" or "rnn_core".
    params: the trained parameters (float64); vocab: the text's Vocabulary; seconds: the wall time.
    """

    losses: np.ndarray
    sample: str
    used: dict
    params: dict = field(default_factory=dict)
    vocab: Vocabulary | None = None
    seconds: float = 0.0

    def __repr__(self):
        yours = [k for k, v in self.used.items() if v == "yours"]
        first, last = (f"{self.losses[0]:.3f}", f"{self.losses[-1]:.3f}") if len(self.losses) else ("-", "-")
        return f"YourRun(steps={len(self.losses)}, loss {first} -> {last}, yours={yours})"


def train_yours(
    functions,
    text,
    *,
    hidden_size,
    steps,
    seed,
    batch_size=16,
    seq_length=25,
    learning_rate=1e-2,
    clip_norm=5.0,
    prime=None,
    sample_length=200,
    temperature=1.0,
    print_every=None,
    dropout=0.0,
):
    """Train a vanilla RNN on ``text`` with your pieces; returns a ``YourRun`` (losses, sample, used).

    functions: a module (``practice.my_rnn()``) or a dict, as for ``check_all``; or None for
      rnn_core's pieces, with nothing printed (the run to compare yours with). The pieces:
      loss_and_grads (called on one sequence at a time, for each of the B rows of a window),
      clip_global_norm, adam_update, and for sampling step_forward and softmax. A piece that is
      missing, still a stub, fails its check or is rnn_core's own is replaced by rnn_core's, and
      one printed line says so. A piece must pass its check twice: on the public cases, and on
      hidden ones, drawn from a seed this call draws afresh (not from your code, nor from ``seed``),
      so that a piece fitted to the public cases is not trained with. The line of a piece that
      fails there names the seed, for ``practice.check(name, fn, seed=...)``.
    text: the training text (a str; the vocabulary is sorted(set(text))).
    hidden_size H, steps (>= 0), seed: the network's initialisation (``rnn_core.init_params``, in
      float64) and the sampler's draws.
    batch_size B, seq_length T: B contiguous streams read T characters at a time, each row's last
      state carried into its next window and reset to zeros after a pass over the text
      (``rnn_core.StreamBatcher``).
    learning_rate: Adam's step size (constant). clip_norm: the largest global norm of the gradient
      of the mean loss per character (the sum of the rows' gradients times 1 / (B T)); it clips
      only the rare large gradients, not every update.
    The defaults B = 16, T = 25, learning rate 1e-2: of 5e-3, 1e-2 and 2e-2, 1e-2 gave the lowest
      loss after 2000 steps on the novel at H = 32 and H = 64, two seeds each (at H = 128, 5e-3
      did better). Two runs that differ only in rounding (right pieces of your own against
      rnn_core's) keep the same losses to about 1e-10 for 2000 steps at H = 64 and 1e-2; then
      the difference grows about a hundredfold every 500 steps, and after about 3500 steps they
      are two different runs. At 2e-2 that happens within 1000 steps.
    prime, sample_length, temperature: the sample reads ``prime`` (default: the text's first
      character) and draws ``sample_length`` characters from softmax(o / temperature), as
      ``rnn_core.sample`` does: with rnn_core's pieces the two give the same text.
    print_every: if given, print the mean loss of every that many steps as training goes.
    dropout: the rate kappa, in [0, 1): each step drops each hidden unit on its way into the output
      layer with this probability, and scales the kept ones by 1 / (1 - kappa) (inverted dropout,
      notebook 10), with one mask per row of the window, the same units dropped at every one of
      its T steps (as Gal and Ghahramani's variational dropout keeps one mask along a sequence).
      The recurrence is never dropped. The mask is applied to W_yh's columns, so that your
      loss_and_grads runs unchanged: o_t = (W_yh * keep / (1 - kappa)) h_t + b_o is
      W_yh (h_t * keep / (1 - kappa)) + b_o. W_yh's gradient then goes back through the mask with
      your ``dropout_backward`` (a sixth piece, checked like the others). Sampling drops nothing.
    The same arguments give the same run, number for number.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    H = check_int(hidden_size, "hidden_size")
    steps = check_int(steps, "steps", 0)
    B, T = check_int(batch_size, "batch_size"), check_int(seq_length, "seq_length")
    lr = check_number(learning_rate, "learning_rate", 0)
    clip_norm = check_number(clip_norm, "clip_norm", 0)
    temperature = check_number(temperature, "temperature", 0)
    sample_length = check_int(sample_length, "sample_length", 0)
    print_every = check_int(print_every, "print_every", allow_none=True)
    check_int(seed, "seed", 0)
    rate = check_number(dropout, "dropout", 0, 1, include_low=True, include_high=False)
    vocab = Vocabulary.from_text(text)
    prime = text[:1] if prime is None else prime
    prime_ids = vocab.encode(prime) if isinstance(prime, str) and prime else None
    if prime_ids is None:
        raise ValueError("prime must be a non-empty string of characters from the text")
    batcher = StreamBatcher(vocab.encode(text), B, T)

    found, source = ({}, None) if functions is None else (_lookup(functions), _source_name(functions))
    hidden_seed = secrets.randbelow(2**31)  # drawn here, from neither the code nor the arguments
    piece, used = {}, {}
    for name in PIECES + (("dropout_backward",) if rate > 0 else ()):
        piece[name], why = _choose(name, found.get(name), source, "training uses", hidden_seed)
        used[name] = "yours" if why is None else "rnn_core"
        if why is not None and functions is not None:
            print(why)

    started = time.perf_counter()
    params = rnn.init_params(vocab.size, H, seed=seed)
    masks = _Masks(piece.get("dropout_backward"), rate, H, np.random.default_rng([seed, 1]))
    losses, params = _train(piece, params, batcher, steps, lr, clip_norm, print_every, masks)
    sample = _sample(piece, params, vocab, prime_ids, sample_length, temperature, seed)
    return YourRun(losses, sample, used, params, vocab, time.perf_counter() - started)


def _source_name(functions):
    """How the messages name where the functions come from: "my_rnn.py", or "your functions"."""
    where = getattr(functions, "__file__", None) if isinstance(functions, ModuleType) else None
    return Path(where).name if where else "your functions"


class _Masks:
    """Dropout before the output layer, as train_yours applies it: W_yh's columns masked for one row."""

    def __init__(self, dropout_backward, rate, H, rng):
        self.dropout_backward, self.rate, self.H, self.rng = dropout_backward, rate, H, rng

    def loss_and_grads(self, loss_and_grads, params, x, y, h):
        """loss_and_grads of one row, its units dropped on their way into the output layer (none at rate 0)."""
        if self.rate == 0:
            return loss_and_grads(params, x, y, h)[:3]
        keep = self.rng.random(self.H) >= self.rate  # (H,): True where a unit is kept, for the whole window
        keep_W = np.broadcast_to(keep, params["W_yh"].shape)  # column j of W_yh reads unit j
        masked = dict(params, W_yh=params["W_yh"] * keep_W / (1 - self.rate))  # W_yh (h * keep / (1 - rate))
        loss, grads, h_last = loss_and_grads(masked, x, y, h)[:3]
        grads = dict(grads, W_yh=self.dropout_backward(grads["W_yh"], keep_W, self.rate))  # back through the mask
        return loss, grads, h_last


def _train(piece, params, batcher, steps, lr, clip_norm, print_every, masks):
    """The loop: (the losses (steps,), the trained parameters). Each step is the trainer's
    (``trainer.optimizer_step``: the mean over B x T, clipping, the update, the finite check and the
    zero state of a new pass), with your pieces: loss_and_grads row by row, clip_global_norm and
    adam_update."""
    loss_and_grads, clip, adam = piece["loss_and_grads"], piece["clip_global_norm"], piece["adam_update"]
    H, B = params["W_hh"].shape[0], batcher.batch_size
    state = {"t": 0, "m": _zeros_like(params), "v": _zeros_like(params)}  # Adam's, as the exercise has it

    def window_loss_and_grads(params, X, Y, h):
        """The window's total loss and gradient: your loss_and_grads reads one sequence, one row at a time."""
        total_loss, total, h = 0.0, _zeros_like(params), list(h)
        for b in range(len(X)):
            loss, grads, h[b] = masks.loss_and_grads(loss_and_grads, params, X[b], Y[b], h[b])
            total_loss += float(loss)
            total = {name: total[name] + grads[name] for name in total}
        return total_loss, total, h

    k, h = 0, [np.zeros(H) for _ in range(B)]  # every stream starts from a zero state
    losses = np.empty(steps)
    for step in range(steps):
        try:
            params, state, k, h, losses[step], _ = optimizer_step(
                batcher, k, h, params, state, window_loss_and_grads, adam, clip, clip_norm, lr
            )
        except NonFinite as e:
            raise FloatingPointError(
                f"{e} at step {step + 1}: training diverged; lower learning_rate (now {lr:g})"
            ) from None
        if print_every and (step + 1) % print_every == 0:
            first = step + 1 - print_every
            print(f"steps {first + 1}-{step + 1}: mean loss {losses[first : step + 1].mean():.3f} nats per character")
    return losses, params


def _zeros_like(params):
    return {name: np.zeros_like(p) for name, p in params.items()}


def _sample(piece, params, vocab, prime_ids, length, temperature, seed):
    """Read the prime, then draw ``length`` characters with step_forward and softmax (rnn_core.sample's draws)."""
    step_forward, softmax = piece["step_forward"], piece["softmax"]
    rng = np.random.default_rng(seed)
    h = np.zeros(params["W_hh"].shape[0])
    for x in prime_ids[:-1]:
        h = step_forward(params, int(x), h)
    x, out = int(prime_ids[-1]), []
    for _ in range(length):
        h = step_forward(params, x, h)
        o = rnn.output_logits(params, h)  # o = W_yh h + b_o
        y_hat = softmax(o / temperature if temperature != 1.0 else o)
        x = draw_index(rng, y_hat)  # the inverse-CDF draw, as rnn_core.sample draws
        out.append(x)
    return vocab.decode(np.array(out, dtype=np.int64))


# -- the template of my_rnn.py ---------------------------------------------------------------------------

TEMPLATE = '''\
"""Your own network: the functions you write in the notebooks' exercises, in one file.

rnn_core.practice made this file from its template, and it is yours: git ignores it.
Each function below is a stub (its body raises NotImplementedError) until you write it,
here or in a notebook, where practice.save(your_function) checks it and, if it passes,
writes it here in place of its stub, keeping the rest of this file as it is.

Names: each function has its exercise's name, a dot written as an underscore: the
exercise "lstm.step_forward" is lstm_step_forward here. Your functions call each other
by these names (a loss_and_grads here that calls softmax calls the softmax of this
file), and a function that uses any other name needs it here too: an import at the top,
or a def.

From a notebook:
    mine = practice.my_rnn()  # this file, run fresh
    practice.check_all(mine)  # your progress: every piece, checked
    practice.train_yours(mine, text, hidden_size=32, steps=300, seed=0)
train_yours trains a network with your loss_and_grads (which, as notebook 04's stub
writes it, loops over your step_forward and softmax), clip_global_norm and
adam_update, and samples from it with your step_forward and softmax; with dropout=,
your dropout_backward too.

Shapes, one sequence at a time, vectors 1-D: V characters, H hidden units, T steps.
"""

import numpy as np

# the names of the five parameter arrays, in order (rnn_core.PARAM_NAMES)
PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")


def one_hot(y, num_classes):
    """Rows (T, V): zeros, except a 1 in column y[t] of row t (notebook 00).

    y: indices, shape (T,), each in 0 .. num_classes - 1; num_classes: V.
    y may also be one index, an int: then one vector, shape (V,).
    """
    raise NotImplementedError  # your code here


def softmax(o):
    """The probabilities y_hat (V,) of the scores o (V,) (notebook 01).

    Positive, summing to 1, with no overflow for scores around +1000 or -1000.
    """
    raise NotImplementedError  # your code here


def softmax_jacobian(y_hat):
    """J (V, V), J[i, k] = d y_hat_i / d o_k (notebook 01).

    y_hat: the probabilities (V,), the output of softmax, not the scores.
    """
    raise NotImplementedError  # your code here


def cross_entropy_grad(o, y):
    """dL/do (V,) for the loss L = -log softmax(o)[y] (notebook 02).

    o: scores (V,); y: the index of the target, an int in 0 .. V - 1.
    """
    raise NotImplementedError  # your code here


def step_forward(params, x_t, h_prev):
    """One step of the recurrence: h_t, shape (H,) (notebook 03, section 2).

    params: W_xh (H, V), W_hh (H, H), b_h (H,), ...; x_t: the input's index, an int;
    h_prev: h_{t-1}, (H,).
    """
    raise NotImplementedError  # your code here


def step_backward(params, dh_t, h_t, h_prev, x_t):
    """One step back through h_t = tanh(W_hh h_{t-1} + W_xh x_t + b_h) (notebook 04).

    dh_t: all that reaches h_t, (H,); h_t, h_prev: (H,); x_t: an int.
    Returns (dh_prev, grads): W_hh^T delta_t, (H,), and this step's shares of the
    gradients, {"W_xh": (H, V), "W_hh": (H, H), "b_h": (H,)}.
    """
    raise NotImplementedError  # your code here


def loss_and_grads(params, inputs, targets, h0):
    """Loss, gradients and last state of one sequence, by BPTT (notebook 04).

    params: W_xh (H, V), W_hh (H, H), W_yh (V, H), b_h (H,), b_o (V,);
    inputs, targets: indices, (T,); h0: h_0, (H,).
    Returns (loss, grads, h_last): the summed cross-entropy, a dict with the keys and
    shapes of params, and h_T; and, if you like, dL/dh_0 as a fourth value.
    """
    raise NotImplementedError  # your code here


def global_norm(grads):
    """The global norm of all the arrays of grads together, a float (notebook 05).

    grads: {name: array}, any shapes, as a network's gradients are.
    """
    raise NotImplementedError  # your code here


def clip_global_norm(grads, max_norm):
    """(clipped, norm): grads clipped by their global norm (notebook 05).

    grads: {name: array}, any shapes; max_norm: the threshold c > 0.
    clipped: a new dict of arrays; norm: the global norm of grads before clipping.
    """
    raise NotImplementedError  # your code here


def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """One step of Adam: (new params, new state), new dicts (notebook 06).

    params, grads: {name: array}, the same names and shapes; lr: the learning rate;
    state: {"t": updates done so far, "m": {name: array}, "v": {name: array}}; the new
    state's t is one larger.
    """
    raise NotImplementedError  # your code here


def lstm_step_forward(params, x_t, h_prev, c_prev):
    """The exercise lstm.step_forward: one step of the LSTM (notebook 08).

    params: W_x (4H, V), W_h (4H, H), b (4H,), their rows stacked i, f, g, q
    (q: the output gate, PyTorch's o); x_t: an index; h_prev, c_prev: (H,).
    Returns (h_t, c_t, cache): (H,), (H,), and the dict
    x, h_prev, c_prev, i, f, g, q, c.
    """
    raise NotImplementedError  # your code here


def lstm_step_backward(params, dh_t, dc_t, cache):
    """The exercise lstm.step_backward: one step back through the LSTM (notebook 08).

    dh_t, dc_t: (H,); cache: the dict of lstm.step_forward.
    Returns (dh_prev, dc_prev, grads): (H,), (H,), and the gradients' dict:
    W_x (4H, V), W_h (4H, H), b (4H,).
    """
    raise NotImplementedError  # your code here


def gru_step_forward(params, x_t, h_prev):
    """The exercise gru.step_forward: one step of the GRU (notebook 09).

    params: W_x (3H, V), W_h (3H, H), b (3H,), their rows stacked r, z, n;
    x_t: an index; h_prev: (H,).
    Returns (h_t, cache): (H,), and the dict x, h_prev, r, z, n, m.
    """
    raise NotImplementedError  # your code here


def gru_step_backward(params, dh_t, cache):
    """The exercise gru.step_backward: one step back through the GRU (notebook 09).

    dh_t: (H,); cache: the dict of gru.step_forward.
    Returns (dh_prev, grads): (H,), and W_x (3H, V), W_h (3H, H), b (3H,).
    """
    raise NotImplementedError  # your code here


def dropout_backward(d_out, keep, rate):
    """Back through inverted dropout, out = h * keep / (1 - rate): dL/dh (notebook 10).

    d_out: dL/d(out), any shape; keep: booleans of the same shape, True where the
    forward pass kept a unit; rate: the probability of dropping one, in [0, 1).
    Returns an array of d_out's shape.
    """
    raise NotImplementedError  # your code here


def seq2seq_masked_loss_and_grad(o, y, lengths):
    """The exercise seq2seq.masked_loss_and_grad: a padded batch's loss (notebook 11).

    o: logits (B, T, V); y: targets (B, T), row b real up to lengths[b], any id
    after; lengths: (B,).
    Returns (L, do): the mean of -log softmax(o)[y] over the N real tokens, and its
    gradient with respect to o, (B, T, V), exactly 0 at the pads.
    """
    raise NotImplementedError  # your code here


def seq2seq_beam_step(log_p, log_probs, beam_size):
    """The exercise seq2seq.beam_step: one step of beam search (notebook 11).

    log_p: (R,) the live prefixes' log P; log_probs: (R, V) log y_hat of each
    next token.
    Returns (rows, tokens, scores): the min(beam_size, R V) extensions of highest
    log_p[k] + log_probs[k, j], best first (ties: lower k, then lower j).
    """
    raise NotImplementedError  # your code here


def attention_forward(h, u, mask):
    """One step of dot-product attention over a batch: (alpha, context) (notebook 12).

    h: (B, H), the queries; u: (B, S, H), the memory; mask: (B, S) booleans, True at
    the real positions. Returns alpha (B, S), softmax over s of h . u_s with -inf at
    the pads, and context (B, H) = sum_s alpha_s u_s.
    """
    raise NotImplementedError  # your code here


def attention_backward(dcontext, h, u, alpha):
    """Back through attention_forward: (dh, du) (notebook 12).

    dcontext: (B, H), dL/dcontext; h (B, H), u (B, S, H): the forward pass's inputs;
    alpha (B, S): its weights. Returns dh (B, H) and du (B, S, H).
    """
    raise NotImplementedError  # your code here
'''
