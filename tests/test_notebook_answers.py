"""The collapsed answers of the notebooks pass the checks their exercises run.

An exercise in a notebook is a stub the reader fills in, a cell ``practice.check(name, fn)``, and
a collapsed answer (``<details><summary>Answer</summary>`` with the code in a fenced block, in a blockquote), which
tools/answers.py writes from the solution ``practice.solution`` prints. Here each answer's code is
taken from the notebook as a reader would copy it and checked by ``rnn_core.practice``: a stale or
mistyped answer fails here, not in front of a reader. 04's ``loss_and_grads`` answer is its stub
with the blanks filled in, line for line; so is the answer of its exercise 4, a loop that calls
``step_backward``, checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

import rnn_core
from rnn_core import practice

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
FENCED = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _cells(notebook):
    return nbformat.read(NOTEBOOKS / notebook, as_version=4).cells


def _source(cell):
    return cell.source


def _exercise(notebook, name):
    """(stub source, answer code blocks) of the exercise whose check cell is practice.check("name", ...)."""
    cells = _cells(notebook)
    checks = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and _source(c).startswith(f'practice.check("{name}",')
    ]
    assert len(checks) == 1, f"{notebook}: expected one check cell for {name!r}, found {len(checks)}"
    i = checks[0]
    stub, answer = cells[i - 1], cells[i + 1]
    assert stub["cell_type"] == "code" and "raise NotImplementedError" in _source(stub), (
        f"{notebook}: no stub before {name}'s check"
    )
    text = _unquoted(_source(answer))
    assert answer["cell_type"] == "markdown" and text.startswith("<details><summary>Answer</summary>"), (
        f"{notebook}: the cell after {name}'s check is not its collapsed answer"
    )
    return _source(stub), FENCED.findall(text)


def _unquoted(text):
    """The text of a fold held in a blockquote (every line starting '> ', or a lone '>'), as Markdown reads it."""
    return re.sub(r"^> ?", "", text, flags=re.MULTILINE)


def _define(code, name):
    """Run `code` with the names a notebook has imported by then; return the function `name` it defines."""
    names = {
        "np": np,
        "rnn_core": rnn_core,
        "PARAM_NAMES": rnn_core.PARAM_NAMES,
        "forward": rnn_core.forward,
        "one_hot": rnn_core.one_hot,
        "softmax": rnn_core.softmax,
        "step_forward": rnn_core.step_forward,
        "global_norm": rnn_core.global_norm,  # 05: the reader's, written just before clipping
    }
    exec(compile(code, f"<answer of {name}>", "exec"), names)
    return names[name]


def _function_name(code):
    """The name of the last function a block of code defines (the exercise's; a helper may come first)."""
    return re.findall(r"^def (\w+)", code, re.MULTILINE)[-1]


def _passes(name, fn):
    result = practice.check(name, fn)
    assert result.status == "passed", result.message


@pytest.mark.parametrize("name, notebook", list(practice.EXERCISES.items()))
def test_every_answer_passes_and_every_stub_is_not_attempted(name, notebook, capsys):
    stub, blocks = _exercise(notebook, name)
    assert len(blocks) == 1
    _passes(name, _define(blocks[0], _function_name(blocks[0])))
    stub_fn = _define(stub.replace("____", "0"), _function_name(stub))
    assert practice.check(name, stub_fn).status == "not attempted"  # what the stored output shows


def test_the_loss_and_grads_answer_is_the_stub_with_its_blanks_filled_in():
    stub, blocks = _exercise("04-backpropagation-through-time.ipynb", "loss_and_grads")
    assert stub.count("____") >= 8 and "____" not in blocks[0]
    stub_lines = [line for line in stub.splitlines() if "raise NotImplementedError" not in line]
    answer_lines = blocks[0].splitlines()
    assert len(answer_lines) == len(stub_lines)
    for stub_line, answer_line in zip(stub_lines, answer_lines):
        code, _, comment = stub_line.partition("  # ")
        if "____" in code:  # the blank's line: the code around each blank as it was, the blank filled in
            pattern = ".+?".join(re.escape(part) for part in code.split("____"))
            assert re.fullmatch(pattern + "(  # .*)?", answer_line), (stub_line, answer_line)
        else:
            assert answer_line.startswith(code.rstrip()), (stub_line, answer_line)


def test_exercise_4s_loop_over_step_backward_passes(capsys):
    """04's exercise 4: a loss_and_grads whose loop calls step_backward (the first exercise's answer)."""
    cells = _cells("04-backpropagation-through-time.ipynb")
    closing = [_source(c) for c in cells if c["cell_type"] == "markdown" and _source(c).startswith("## Exercises")]
    assert len(closing) == 1
    answer = FENCED.findall(_unquoted(closing[0].split("4. Rewrite your `loss_and_grads`")[1]))[0]
    _, step_answer = _exercise("04-backpropagation-through-time.ipynb", "step_backward")
    _passes("loss_and_grads", _define(step_answer[0] + "\n" + answer, "loss_and_grads"))
