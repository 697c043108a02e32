"""No exercise's stub is replaced later in its notebook by a function of the same name (issue 32).

A reader's answer lives in the stub's cell under the exercise's name (``softmax``, ``lstm_step_forward``).
A later ``from rnn_core import softmax`` (or a ``def``, or an assignment to that name) would replace it
in the notebook's namespace: the notebook would carry on with the package's function under the reader's
name, and a grader that reads the notebook's final namespace (as otter's autograder does) would grade
the package instead of the reader. The notebooks carry on with the package's function by its full
name (``rnn_core.softmax``) instead. Here every code cell after each stub is read for a top-level
statement that binds the stub's name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from rnn_core import practice

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _bound_names(tree):
    """(name, line) of every name a module's top-level statements bind, imports included."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node.lineno
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield (alias.asname or alias.name).split(".")[0], node.lineno
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        yield n.id, node.lineno


def _code(cell):
    source = cell.source
    # IPython's magics and shell escapes are not Python: leave those lines out
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


@pytest.mark.parametrize("name, notebook", list(practice.EXERCISES.items()))
def test_no_later_cell_replaces_the_exercise_stub(name, notebook):
    path = NOTEBOOKS / notebook
    if not path.exists():
        pytest.skip(f"notebooks/{notebook} does not exist")
    cells = nbformat.read(path, as_version=4).cells
    stubs = [i for i, c in enumerate(cells) if f"exercise:{name}" in c.get("metadata", {}).get("tags", [])]
    assert len(stubs) == 1, f"{notebook}: expected one cell tagged exercise:{name}, found {len(stubs)}"
    function = name.replace(".", "_")
    rebinding = [
        f"cell {i} ({cells[i].get('id')}), line {line}"
        for i in range(stubs[0] + 1, len(cells))
        if cells[i]["cell_type"] == "code"
        for bound, line in _bound_names(ast.parse(_code(cells[i])))
        if bound == function
    ]
    assert not rebinding, (
        f"{notebook}: {function}, the stub of exercise {name!r}, is bound again after it, in {rebinding}: "
        f"go on with rnn_core's function by its full name (rnn_core.{name}) or under another name"
    )
