"""The appendix's errata table counts what it says it counts, checked outside the notebook.

Notebook 13 prints the table's counts (rows per source, per place in the series, and which rows
the checker names); these tests hold the table to them, so that the appendix itself shows the
table and its counts, and no test code.
"""

from __future__ import annotations

import pytest
from notebook_code import run_up_to  # tests/notebook_code.py (matplotlib's Agg backend)

import rnn_core

NOTEBOOK = "13-appendix-errata.ipynb"


@pytest.fixture(scope="module")
def table():
    return run_up_to(NOTEBOOK, "named", "runnable")


def test_the_table_numbers_its_rows_1_to_28(table):
    assert sorted(table["ROWS"]) == list(range(1, 34))


def test_rows_per_source_and_per_place(table):
    rows_where = table["rows_where"]
    assert [len(rows_where(0, s)) for s in table["SOURCES"]] == [4, 4, 10, 3, 5, 2, 5]
    assert [len(rows_where(1, w)) for w in table["WHERE"]] == [15, 6, 1, 3, 2, 6]


def test_the_checker_names_only_rows_that_run(table):
    named, runnable = rnn_core.practice.ERRATA_ROWS, table["runnable"]
    assert set(named) <= set(runnable)
    assert sorted(set(runnable) - set(named)) == [1, 6, 12, 14, 26]
