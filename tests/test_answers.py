"""The folded Answer under each exercise and ``practice.solution(name)`` are one text, from one source.

tools/answers.py writes every checked exercise's answer cell from rnn_core/course/solutions.py,
the module ``practice.solution`` prints from, and tags the stub and the answer for the instructor's
edition (issue 32). This fails when an answer cell was edited by hand, or a solution changed without
running ``python tools/answers.py``.
"""

import re
from pathlib import Path

import nbformat
import pytest

import answers  # tools/answers.py (tools/ is on the tests' path: pyproject.toml)
from rnn_core import practice
from rnn_core.course.solutions import MARKER, SOLUTIONS, plain_text

ROOT = Path(__file__).resolve().parent.parent


def cells_of(notebook):
    return nbformat.read(ROOT / "notebooks" / notebook, as_version=4).cells


def source(cell):
    return cell.source


def test_the_answers_tags_and_ids_are_up_to_date():
    assert answers.plan() == {}, "run: python tools/answers.py"


@pytest.mark.parametrize("name, notebook", list(practice.EXERCISES.items()))
def test_the_answer_and_practice_solution_are_one_text(name, notebook, capsys):
    cells = cells_of(notebook)
    (answer,) = [c for c in cells if f"answer:{name}" in c["metadata"].get("tags", [])]
    (stub,) = [c for c in cells if f"exercise:{name}" in c["metadata"].get("tags", [])]
    slug = re.sub(r"[._]", "-", name)
    assert answer["id"] == f"answer-{slug}" and stub["id"] == f"exercise-{slug}"
    assert stub["cell_type"] == "code" and "raise NotImplementedError" in source(stub)
    i = cells.index(stub)
    assert cells[i + 1]["cell_type"] == "code" and source(cells[i + 1]).startswith(f'practice.check("{name}",')
    assert cells[i + 2] is answer
    assert source(answer) == answers.quote(answers.unquote(source(answer)))  # every line in the blockquote
    text = answers.unquote(source(answer))
    assert text == answers.FOLD.format(
        body=text[len(answers.FOLD.split("{body}")[0]) : -len(answers.FOLD.split("{body}")[1])]
    )
    body = text[len(answers.FOLD.split("{body}")[0]) : -len(answers.FOLD.split("{body}")[1])]
    notes, code = re.fullmatch(r"(.*)\n\n```python\n(.*)\n```", body, re.DOTALL).groups()  # the prose, then the code
    assert code == SOLUTIONS[name].code.strip("\n") and notes.strip() == SOLUTIONS[name].notes.strip()
    practice.solution(name)
    printed = capsys.readouterr().out
    assert printed == plain_text(SOLUTIONS[name]) + "\n"
    assert printed.startswith(code + "\n\n")  # the same code, then the same notes as plain text
    shown = printed[len(code) + 2 :]
    assert "$" not in shown and "\\" not in shown and "<!--" not in shown, shown  # maths as plain text
    assert shown.count("`") == MARKER.sub("", notes).count("`")  # the prose's code as it was


def test_markers_never_start_a_line():
    """A line that starts with an HTML comment starts an HTML block, which would end the answer's paragraph."""
    for name, solution in SOLUTIONS.items():
        for line in solution.notes.splitlines():
            assert not line.lstrip().startswith("<!--"), (name, line)


def test_the_tool_moves_text_after_the_fold_to_a_cell_of_its_own_and_renames_a_taken_id(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nb = nbformat.v4.new_notebook()
    task = nbformat.v4.new_markdown_cell("Write softmax.")
    task.id = "exercise-softmax"  # the id the stub needs: taken by the task's text
    stub = nbformat.v4.new_code_cell("def softmax(o):\n    raise NotImplementedError")
    stub.id = "stub"
    check = nbformat.v4.new_code_cell('practice.check("softmax", softmax)')
    check.id = "check"
    answer = nbformat.v4.new_markdown_cell(
        "<details><summary>Answer</summary>\n\nold\n</details>\n\nThe lesson goes on."
    )
    answer.id = "answer"
    nb.cells = [task, stub, check, answer]
    path = notebooks / practice.EXERCISES["softmax"]
    nbformat.write(nb, str(path))
    written = nbformat.read(path, as_version=4)
    assert answers.rewrite(written, path.name, ["softmax"])
    cells = written["cells"]
    assert [c["id"] for c in cells] == [
        "exercise-softmax-task",
        "exercise-softmax",
        "check",
        "answer-softmax",
        "after-answer-softmax",
    ]
    assert source(cells[3]) == answers.answer_text("softmax") and source(cells[4]) == "The lesson goes on."
    # one blockquote: the summary, a blank quoted line, the notes, the code last, a blank quoted line, the end
    assert source(cells[3]).startswith("> <details><summary>Answer</summary>\n>\n> The usual slips")
    assert source(cells[3]).endswith("\n> ```\n>\n> </details>")
    # run again on the quoted answer: nothing changes (the quoted fold is recognised as the answer's)
    assert not answers.rewrite(written, path.name, ["softmax"])
    assert cells[1]["metadata"]["tags"] == ["exercise:softmax"] and cells[3]["metadata"]["tags"] == ["answer:softmax"]


def test_the_fold_is_one_constant():
    """How a fold looks is decided in one place (another engineer may restyle it)."""
    text = (ROOT / "tools" / "answers.py").read_text(encoding="utf-8")
    assert text.count("<details>") == 1 and "FOLD = " in text
