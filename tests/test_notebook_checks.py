"""tests/notebook_checks.py: checks that run in nbval's kernel, each right after the cell it names."""

from pathlib import Path

import nbformat
from notebook_checks import CHECKS, NOTEBOOKS_DIR_NAME

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent


def test_every_check_names_a_notebook_and_a_cell_that_exist():
    for notebook, checks in CHECKS.items():
        path = HERE.parent / NOTEBOOKS_DIR_NAME / notebook
        assert path.exists(), f"tests/notebook_checks.py names {notebook}, which does not exist"
        nb = nbformat.read(path, as_version=4)
        sources = [c.source.lstrip() for c in nb.cells if c.cell_type == "code"]
        for check in checks:
            starts = [s for s in sources if s.startswith(check.after)] if check.after else sources[-1:]
            assert len(starts) == 1, f"{notebook}: {check.claim}: {len(starts)} cells start with {check.after!r}"
            compile(check.code, check.claim, "exec")


def test_checks_run_in_the_notebook_s_kernel_right_after_their_cell(pytester):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(s) for s in ("x = 1", "x = 2", "y = 3")]
    nbformat.write(nb, pytester.path / "demo.ipynb")
    pytester.makeconftest(
        """
from notebook_checks import Check, insert_checks

def pytest_collection_modifyitems(config, items):
    insert_checks(items, {"demo.ipynb": [
        Check("x is 1 after the first cell", "assert x == 1", after="x = 1"),
        Check("x is still 1 there", "assert x != 2", after="x = 1"),
        Check("y is 3 at the end", "assert y == 3 and x == 2"),
        Check("a wrong claim", "assert x == 5"),
        Check("a lost cell", "assert True", after="z = 0"),
    ]})
"""
    )
    result = pytester.inline_run("--nbval-lax", "demo.ipynb", "-v", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assertoutcome(passed=6, failed=2)
    ran = [r.nodeid.split("::")[1] for r in result.getreports("pytest_runtest_logreport") if r.when == "call"]
    assert ran == [
        "Cell 0",
        "Check: x is 1 after the first cell",
        "Check: x is still 1 there",
        "Cell 1",
        "Cell 2",
        "Check: y is 3 at the end",
        "Check: a wrong claim",
        "Check: a lost cell",
    ]
    (lost,) = [r for r in result.getfailures() if r.nodeid.endswith("a lost cell")]
    assert "0 code cells of demo.ipynb start with 'z = 0'" in str(lost.longrepr)
