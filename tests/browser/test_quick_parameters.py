"""quick_parameters.py: the browser test's short runs, written into the notebooks' parameters cells."""

from __future__ import annotations

import nbformat
import pytest

from labdriver import NOTEBOOKS
from quick_parameters import QUICK, ParameterError, apply_quick_parameters

PARAMETERS = """# How long the runs are
MAIN_STEPS = 6000  # the long run with rnn_core.train (section 4)
SAMPLE_AT = (100, 500, 2000, 6000)  # steps at which it writes
LABEL = "ŷ, naïve"  # a non-ASCII value before the next one
HAND_STEPS = 650
"""


def _notebook(source, tags=("parameters",)):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = list(tags)
    nb.cells = [nbformat.v4.new_markdown_cell("# 06"), cell, nbformat.v4.new_code_cell("MAIN_STEPS = 1")]
    return nb


def test_quick_values_replace_the_plain_assignments_of_parameters_cells_only():
    nb = apply_quick_parameters(_notebook(PARAMETERS), {"MAIN_STEPS": 200, "SAMPLE_AT": (50, 100), "HAND_STEPS": 20})
    assert nb.cells[1].source == (
        "# How long the runs are\n"
        "MAIN_STEPS = 200  # the long run with rnn_core.train (section 4)\n"
        "SAMPLE_AT = (50, 100)  # steps at which it writes\n"
        'LABEL = "ŷ, naïve"  # a non-ASCII value before the next one\n'
        "HAND_STEPS = 20\n"
    )
    assert nb.cells[2].source == "MAIN_STEPS = 1"  # not a parameters cell: left alone


def test_a_quick_value_with_nothing_to_replace_fails():
    with pytest.raises(ParameterError, match="MISSING"):
        apply_quick_parameters(_notebook(PARAMETERS), {"MISSING": 1})
    with pytest.raises(ParameterError, match="MAIN_STEPS"):
        apply_quick_parameters(_notebook(PARAMETERS, tags=()), {"MAIN_STEPS": 1})


@pytest.mark.parametrize("notebook", sorted(QUICK))
def test_every_notebook_s_quick_values_apply(notebook):
    nb = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    apply_quick_parameters(nb, QUICK[notebook])  # raises if a name has nothing to replace
    for cell in nb.cells:
        if cell.cell_type == "code":
            compile(cell.source, notebook, "exec")  # still Python
