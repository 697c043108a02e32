"""The collapsed answers of notebooks 00 to 04 pass the checks their exercises run.

An exercise in a notebook is a stub the reader fills in, a cell ``practice.check(name, fn)``, and
a collapsed answer (``<details><summary>Answer</summary>`` with the code in a fenced block). Here
each answer's code is taken from the notebook as a reader would copy it and checked by
``rnn_core.practice``: a stale or mistyped answer fails here, not in front of a reader. For 04's
``loss_and_grads`` the answer fills in the stub's blanks, so the stub with its loop replaced by the
answer's is what is checked; so is the answer of its exercise 4, a loop that calls ``step_backward``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import rnn_core
from rnn_core import practice

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
FENCED = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _cells(notebook):
    return json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"])


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
    assert answer["cell_type"] == "markdown" and _source(answer).startswith("<details><summary>Answer</summary>"), (
        f"{notebook}: the cell after {name}'s check is not its collapsed answer"
    )
    return _source(stub), FENCED.findall(_source(answer))


def _define(code, name):
    """Run `code` with the names a notebook has imported by then; return the function `name` it defines."""
    names = {
        "np": np,
        "rnn_core": rnn_core,
        "PARAM_NAMES": rnn_core.PARAM_NAMES,
        "forward": rnn_core.forward,
        "one_hot": rnn_core.one_hot,
    }
    exec(compile(code, f"<answer of {name}>", "exec"), names)
    return names[name]


def _passes(name, fn):
    result = practice.check(name, fn)
    assert result.status == "passed", result.message


@pytest.mark.parametrize(
    "notebook, name",
    [
        ("00-start-here.ipynb", "one_hot"),
        ("01-softmax-and-its-derivative.ipynb", "softmax"),
        ("01-softmax-and-its-derivative.ipynb", "softmax_jacobian"),
        ("02-cross-entropy.ipynb", "cross_entropy_grad"),
        ("03-the-forward-pass.ipynb", "step_forward"),
        ("04-backpropagation-through-time.ipynb", "step_backward"),
    ],
)
def test_a_whole_function_answer_passes(notebook, name, capsys):
    stub, blocks = _exercise(notebook, name)
    assert len(blocks) == 1
    _passes(name, _define(blocks[0], name))
    stub_fn = _define(stub, name)
    assert practice.check(name, stub_fn).status == "not attempted"  # what the stored output shows


def _stub_with_loop(stub, loop):
    """04's stub with its `raise` line gone and everything from its loop on replaced by `loop`."""
    lines = stub.splitlines(keepends=True)
    lines = [line for line in lines if "raise NotImplementedError" not in line]
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("for t in range("))
    return "".join(lines[:start]) + loop


def test_the_loss_and_grads_answer_fills_the_stubs_blanks_and_passes(capsys):
    stub, blocks = _exercise("04-backpropagation-through-time.ipynb", "loss_and_grads")
    assert stub.count("____") >= 8 and len(blocks) == 1
    assert practice.check("loss_and_grads", _define(stub, "loss_and_grads")).status == "not attempted"
    answer = blocks[0]
    assert "____" not in answer
    _passes("loss_and_grads", _define(_stub_with_loop(stub, answer), "loss_and_grads"))


def test_exercise_4s_loop_over_step_backward_passes(capsys):
    """04's exercise 4: a loss_and_grads whose loop calls step_backward (the first exercise's answer)."""
    cells = _cells("04-backpropagation-through-time.ipynb")
    closing = [_source(c) for c in cells if c["cell_type"] == "markdown" and _source(c).startswith("## Summary")]
    assert len(closing) == 1
    answer = FENCED.findall(closing[0].split("4. Rewrite your `loss_and_grads`")[1])[0]
    _, step_answer = _exercise("04-backpropagation-through-time.ipynb", "step_backward")
    _passes("loss_and_grads", _define(step_answer[0] + "\n" + answer, "loss_and_grads"))
