"""Run a notebook's own code outside Jupyter, for tests that check what its cells compute.

The tests of notebooks' sliders and answers (tests/test_notebook_*.py) run the notebook's code
cells in order, in one namespace, up to the cell that defines what they need, with the cells'
printing swallowed and their figures closed: what the notebook prints is nbval's to compare.
"""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import matplotlib
import nbformat

matplotlib.use("Agg")  # the notebook cells draw figures: no window
import matplotlib.pyplot as plt  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def code_cells(notebook):
    """(index in the notebook's cells, source) of each code cell, in order."""
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    return [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "code"]


def defined_names(source):
    """The names a cell's code binds at its top level."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def run_code(namespace, source, where):
    """Run ``source`` in ``namespace`` (``where`` names it in tracebacks), silently, closing its figures."""
    with contextlib.redirect_stdout(io.StringIO()):  # the cells' printing and figures are not checked here
        exec(compile(source, where, "exec"), namespace)
    plt.close("all")


def run_up_to(notebook, *names):
    """The namespace of the notebook's code cells run in order, until every one of `names` is defined."""
    namespace, missing = {"__name__": "__main__"}, set(names)
    for index, source in code_cells(notebook):
        run_code(namespace, source, f"<{notebook}, cell {index}>")
        missing -= defined_names(source)
        if not missing:
            return namespace
    raise AssertionError(f"{notebook} does not define {sorted(missing)}")


def define_functions(namespace, notebook, *names):
    """Add to `namespace` the notebook's top-level functions `names`, without running the rest of their cells."""
    found = set()
    for index, source in code_cells(notebook):
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                run_code(namespace, ast.unparse(node), f"<{notebook}, cell {index}, {node.name}>")
                found.add(node.name)
    assert found == set(names), f"{notebook} does not define {sorted(set(names) - found)}"
    return namespace


def capture_display(namespace):
    """Make the notebook's ``display`` collect what a slider's cell would show, in ``namespace["shown"]``."""
    namespace["shown"] = shown = []
    namespace["display"] = shown.append
    return namespace
