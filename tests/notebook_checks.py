"""What the notebooks' trained networks must achieve, checked where nbval runs them, not in the notebooks.

A notebook shows what a reader needs; a guard that protects one of its claims from regressions
("the main run ends well below the bigram baseline") is a test, and lives here. nbval runs every
notebook in full (``pytest notebooks``, also under another CPU's BLAS kernels: tests/test_other_cpu.py);
each check below runs in that same kernel, as one more test item right after the cell it names
(``after``: the first characters of that cell's source, which must start exactly one code cell;
empty: after the notebook's last cell). So it sees the notebook's variables as they are at that
point, costs no second run, and fails with its claim in the test's name:

    notebooks/07-what-the-network-learned.ipynb::Check: the main run ends well below the bigram baseline

A check's code is plain Python with asserts, as the notebook's own cells would have it. The browser
test's quick runs (tests/browser/quick_parameters.py) never run these checks.

To move an ``if CHECK_QUALITY:`` block out of a notebook: add a Check with the block's asserts
and the first characters of its cell as ``after``, delete the block from the cell, and run
``pytest notebooks/NN-....ipynb`` (the check shows as its own item).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    claim: str  # what the notebook's prose says, which the check protects
    code: str  # asserts on the notebook's variables
    after: str = ""  # the first characters of the code cell it runs after ("" = the last one)


NOTEBOOKS_DIR_NAME = "notebooks"

CHECKS: dict[str, list[Check]] = {
    "07-what-the-network-learned.ipynb": [
        Check(
            "the main run ends well below the bigram baseline",
            'assert result.val_bpc < BASELINES["bigram"] - 0.5',
            after="result = rnn_core.train(text, config)",
        ),
    ],
    "10-deeper-networks-and-overfitting.ipynb": [
        Check(
            "without dropout, validation bpc climbs from its lowest point while training bpc falls, at every seed",
            "assert min(risen) > 0.2 and min(fallen) > 0.3",
            after="def report(runs):",
        ),
        Check(
            "dropout ends lower, with a smaller gap, than no dropout, by more than the seeds' spread",
            "assert margin(end_dropped, end_plain) > largest and margin(gap_dropped, gap_plain) > largest",
            after="def spread(values):",
        ),
        Check(
            "patience stops the run without dropout early, a third of its steps or more before the end",
            'assert stopped.stopped == "patience" and stopped.step <= 2 * full.step // 3',
            after="with tempfile.TemporaryDirectory() as folder:",
        ),
        Check(
            "early stopping beats running on, and dropout with early stopping beats early stopping alone",
            "assert early_helps and both_help",
            after="endings = {",
        ),
        Check(
            "two layers win at equal steps, one layer at r = 1.7, by more than the seeds' spread",
            'assert verdicts[RATIOS[0]][0] == "two layers" and verdicts[RATIOS[-1]][0] == "one layer"',
            after="deep, *wide = race.values()",
        ),
    ],
}


def insert_checks(items: list, registry: dict[str, list[Check]] | None = None) -> None:
    """Put each notebook's checks among nbval's items (``items``, changed in place), each right after
    the item of the cell it follows, in the notebook's own kernel."""
    from nbformat.v4 import new_code_cell
    from nbval.plugin import IPyNbCell

    registry = CHECKS if registry is None else registry
    for notebook, checks in registry.items():
        cells = [it for it in items if isinstance(it, IPyNbCell) and it.path.name == notebook and not _is_check(it)]
        if not cells:
            continue  # not collected in this run
        for check in checks:
            if check.after:
                found = [it for it in cells if it.cell.source.lstrip().startswith(check.after)]
            else:
                found = cells[-1:]
            code = check.code
            if len(found) != 1:
                problem = f"tests/notebook_checks.py: {len(found)} code cells of {notebook} start with {check.after!r}"
                code = f"raise AssertionError({problem + ', expected one: the check cannot find its place'!r})"
                found = cells[-1:]
            place = found[0]
            options = defaultdict(bool, {"check": False})  # nothing to compare: it prints nothing
            name, cell = f"Check: {check.claim}", new_code_cell(code)
            item = _check_item_class().from_parent(
                place.parent, name=name, cell_num=place.cell_num, cell=cell, options=options
            )
            items.insert(items.index(place) + 1 + sum(1 for _ in _checks_after(items, place)), item)


_CHECK_ITEM = None


def _check_item_class():
    """nbval's cell item, reported under the check's name (not as the cell it follows)."""
    global _CHECK_ITEM
    if _CHECK_ITEM is None:
        from nbval.plugin import IPyNbCell

        class NotebookCheck(IPyNbCell):
            def reportinfo(self):
                return self.path, 0, f"{self.path.name}::{self.name}"

        _CHECK_ITEM = NotebookCheck
    return _CHECK_ITEM


def _is_check(item) -> bool:
    return item.name.startswith("Check: ")


def _checks_after(items, place):
    """The check items already inserted right after ``place`` (so that checks keep their order)."""
    i = items.index(place) + 1
    while i < len(items) and _is_check(items[i]) and items[i].parent is place.parent:
        yield items[i]
        i += 1
