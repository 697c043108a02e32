"""The grader's child process: run one submitted notebook's cells and check its exercises (private).

    python -m rnn_core._grade_child JOB.json

``rnn_core.grade`` starts one such process per submitted notebook, in a fresh temporary working
folder, and kills it (its whole process group) when it runs past a time limit. The job (JSON) holds
the notebook's code cells up to its last graded exercise, ``[[index, source], ...]``; the exercises,
``{cell index: [name, function name, seed]}``; the cells and checks to skip (after an earlier run hung
or crashed on them); and the events file. The process runs the cells in order in one namespace, as
Run All would (in IPython's shell, as a kernel does, when IPython is installed: magics, ``display``
and ``capture_output`` work; otherwise as plain Python), going on past a cell that raises; right
after an exercise's cell it checks the function of that name with ``practice.check(name, fn,
seed=seed)``, before any later cell can replace it. It appends one JSON object a line to the events
file, which the grader reads as it goes:

    {"event": "cell", "cell": 12}                   a cell starts
    {"event": "cell error", "cell": 12, "error": "NameError: name 'x' is not defined"}
    {"event": "check", "cell": 14, "name": "softmax"}
    {"event": "result", "name": "softmax", "status": ..., "message": ..., "wrong": [...], "errata": [...]}
    {"event": "done"}
    {"event": "fatal", "error": traceback}          the grader's own code failed

Before each check, the attributes of rnn_core's, numpy's and the standard modules the checker relies
on are put back as they were before the notebook ran, so that a cell that patched the checker (or
``np.allclose``) changes nothing it decides. This is a guard against accidents and casual tricks, not
a sandbox: the notebook's code runs with the grader's permissions (see the README's instructor
section for running untrusted submissions).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import sys
import traceback

_dumps = json.dumps  # taken before any cell runs: a cell that patches json changes no event


def _emit(events, **event):
    events.write(_dumps(event) + "\n")
    events.flush()


def _one_line(exc):
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _limit_memory():
    """A notebook that allocates more than the machine's memory gets a MemoryError, not the OOM killer."""
    try:
        import resource

        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        resource.setrlimit(resource.RLIMIT_AS, (total, total))
    except (ImportError, ValueError, OSError, AttributeError):
        pass


def _python_source(source):
    """The cell as Python: IPython's line magics and shell escapes become ``pass`` (nothing here runs them)."""
    if source.lstrip().startswith("%%"):
        return "pass  # a cell magic: not run by the grader"
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            line = line[: len(line) - len(stripped)] + "pass  # a magic: not run by the grader"
        lines.append(line)
    return "\n".join(lines)


def _snapshot(prefixes, names):
    """{module name: (module, copy of its attributes)} for the modules to guard."""
    return {
        name: (module, dict(vars(module)))
        for name, module in list(sys.modules.items())
        if module is not None and (name in names or name.split(".")[0] in prefixes)
    }


def _restore(snapshot):
    """Put the guarded modules' attributes back; rnn_core's modules also lose attributes added since."""
    missing = object()
    for name, (module, saved) in snapshot.items():
        sys.modules[name] = module
        current = vars(module)
        for key, value in saved.items():
            if current.get(key, missing) is not value:
                try:
                    setattr(module, key, value)
                except (AttributeError, TypeError):
                    pass
        if name.split(".")[0] == "rnn_core":
            for key in set(current) - set(saved):
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(module, key)


def main(job_path):
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    events = open(job["events"], "a", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
    try:
        _limit_memory()
        import numpy  # noqa: F401  (the guarded modules, imported before any cell)

        from rnn_core import practice
        from rnn_core._practice_run import GUARDED

        namespace = {"__name__": "__main__", "__builtins__": builtins}
        shell = _shell(namespace)
        check = practice.check
        guard = _snapshot({"rnn_core", "numpy"}, set(GUARDED) | {"builtins", "sys", "os", "json"})
        exercises = {int(k): v for k, v in job["exercises"].items()}
        skip_cells, skip_checks = set(job["skip_cells"]), set(job["skip_checks"])
    except BaseException:
        _emit(events, event="fatal", error=traceback.format_exc())
        return 1

    sink = io.StringIO()
    for index, source in job["cells"]:
        if index not in skip_cells:
            _emit(events, event="cell", cell=index)
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                error = _run_cell(shell, namespace, index, source)
            if error is not None:
                _emit(events, event="cell error", cell=index, error=_describe(error), syntax=_is_syntax(error))
            sink.seek(0)
            sink.truncate()
            if "matplotlib.pyplot" in sys.modules:
                with contextlib.suppress(BaseException):
                    sys.modules["matplotlib.pyplot"].close("all")
        if index in exercises and exercises[index][0] not in skip_checks:
            name, function, seed = exercises[index]
            _emit(events, event="check", cell=index, name=name)
            try:
                _restore(guard)
                result = _check(check, name, namespace, function, seed, sink)
            except BaseException:
                _emit(events, event="fatal", error=traceback.format_exc())
                return 1
            _emit(events, event="result", name=name, **result)
    _emit(events, event="done")
    return 0


def _shell(namespace):
    """IPython's shell running in ``namespace``, as a kernel runs cells (magics, display, capture_output), or
    None where IPython is not installed: then the cells run as plain Python."""
    try:
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config
    except ImportError:
        return None
    config = Config()
    config.HistoryManager.enabled = False  # no history database written anywhere
    return InteractiveShell.instance(config=config, user_ns=namespace)


def _run_cell(shell, namespace, index, source):
    """Run one cell; the exception it raised (SystemExit and KeyboardInterrupt included), or None."""
    if shell is not None:
        result = shell.run_cell(source, store_history=False)
        return result.error_before_exec or result.error_in_exec
    try:
        code = compile(_python_source(source), f"<cell {index}>", "exec", dont_inherit=True)
        exec(code, namespace)
    except BaseException as e:  # the cell's own error
        return e
    return None


def _is_syntax(error):
    return isinstance(error, SyntaxError)


def _describe(error):
    if isinstance(error, SyntaxError):
        return f"SyntaxError: {error.msg} (line {error.lineno})"
    return _one_line(error)


def _check(check, name, namespace, function, seed, sink):
    """The check of one exercise's function, as a dict for the event."""
    missing = object()
    fn = namespace.get(function, missing)
    if fn is missing:
        message = f"{name}: no function named {function} is defined when its cell has run, so it scores zero."
        return {"status": "missing", "message": message, "wrong": []}
    if not callable(fn):
        return {
            "status": "error",
            "message": f"{name}: {function} is not a function when its cell has run: it is a {type(fn).__name__}.",
            "wrong": [],
        }
    with contextlib.redirect_stdout(sink):
        result = check(name, fn, seed=seed)
    sink.seek(0)
    sink.truncate()
    return {
        "status": result.status,
        "message": result.message,
        "wrong": [str(w) for w in result.wrong],
        "errata": [int(r) for r in result.errata],
    }


if __name__ == "__main__":
    status = main(sys.argv[1])
    # ended here and now, without waiting for threads a notebook may have started (the events are written)
    os._exit(status)
