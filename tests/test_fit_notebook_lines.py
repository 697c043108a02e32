"""tools/fit_notebook_lines.py: a long line's comment moves above its code, a one-liner that the
formatter wrapped around its comment gets the comment above it, and a long comment is wrapped."""

from __future__ import annotations

import ast
from pathlib import Path

import fit_notebook_lines as fit  # tools/ is on pytest's pythonpath (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent


def test_a_comment_after_a_closing_bracket_goes_above_the_statement():
    wrapped = ["for H in sizes:", "    added = np.diff(", "        [n[H] for H in sizes]", "    )  # what it added"]
    moved = ["for H in sizes:", "    # what it added", "    added = np.diff(", "        [n[H] for H in sizes]", "    )"]
    assert fit.fit_source("\n".join([*wrapped, "x = 1"])) == "\n".join([*moved, "x = 1"])


def test_a_long_line_loses_its_comment_to_the_line_above():
    comment = "a comment long enough to take this line past eighty-eight characters in all"
    source = f'd = {{\n    "a": 1,  # {comment}\n}}'
    fitted = fit.fit_source(source).split("\n")
    assert fitted[-2:] == ['    "a": 1,', "}"]
    assert all(line.startswith("    # ") and len(line) <= fit.WIDTH for line in fitted[1:-2])
    assert " ".join(line[6:] for line in fitted[1:-2]) == comment


def test_short_lines_noqa_and_magics_are_left_alone():
    for source in (
        "x = 1  # short\ny = [\n    1,  # one\n]",
        "y = f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)  # noqa: F821",
        "%timeit f(x)",
        "x = (  # an open bracket and no end",
    ):
        assert fit.fit_source(source) == source


def test_a_long_comment_alone_is_wrapped():
    source = "def f():\n    # " + "word " * 30 + "\n    return 1"
    fitted = fit.fit_source(source).split("\n")
    assert fitted[0] == "def f():" and fitted[-1] == "    return 1"
    assert all(line.startswith("    # ") and len(line) <= fit.WIDTH for line in fitted[1:-1])
    assert len(fitted) == 4


def test_a_long_string_is_cut_into_literals_python_joins():
    line = '    f"after {step:3d} updates: loss {losses[step]:.4f}, greedy {decode(x, {1: 2})!r}, and a tail",'
    source = f"print(\n{line}\n)\nvalue = 'x'"
    fitted = fit.fit_source(source)
    assert all(len(row) <= fit.WIDTH for row in fitted.split("\n"))
    assert ast.dump(ast.parse(fitted)) == ast.dump(ast.parse(source))
    returned = (
        "def f(a):\n    return f\"{a:+.3f} bpc, and words enough to take this line past its limit, {a:.1f} {'x'}\""
    )
    fitted = fit.fit_source(returned)
    assert fitted.split("\n")[1] == "    return (" and all(len(row) <= fit.WIDTH for row in fitted.split("\n"))
    assert ast.dump(ast.parse(fitted)) == ast.dump(ast.parse(returned))
