"""The student edition (rnn_core.course.edition, ``python -m rnn_core student-edition``) and practice.solution in it.

The edition of every notebook is checked structurally: no folded answer in any cell, the answer cells
gone, every code cell (source, outputs, tags, id) and every Markdown cell without a fold unchanged
and in order, every exercise's tagged cell there, links between notebooks resolving. Its code cells
are the series' own, byte for byte, so nbval of the edition can only differ from nbval of the series
(which the suite runs on every notebook) through what the edition adds: its Markdown note and its
marker file, which changes what practice.solution prints. nbval runs on the edition of the
notebooks that take seconds (00-05 and 13, about 20 s); 06-09 would add about 3 minutes to see
the same code run again.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from rnn_core import practice
from rnn_core.cli import main
from rnn_core.course import edition
from rnn_core.course.edition import EditionError, is_answer_summary, strip_answers, write_student_edition

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHEAP = ("00", "01", "02", "03", "04", "05", "13")  # the notebooks whose Run All takes seconds


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    out = tmp_path_factory.mktemp("edition") / "student"
    summary = write_student_edition(out, NOTEBOOKS)
    return out, summary


def cells_of(path):
    return nbformat.read(path, as_version=4).cells


def text(cell):
    return cell["source"]


FOLD = re.compile(r"<details\b[^>]*>\s*(?:>\s*)*<summary\b[^>]*>(.*?)</summary>", re.IGNORECASE | re.DOTALL)


def test_notebooks_are_written_as_nbformat_writes_them():
    # edition.dumps_notebook stands in for nbformat.writes (rnn_core does not depend on Jupyter)
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        as_nbformat = nbformat.writes(nbformat.read(path, as_version=4)) + "\n"
        assert edition.dumps_notebook(json.loads(path.read_text(encoding="utf-8"))) == as_nbformat, path.name


# -- strip_answers ---------------------------------------------------------------------------------------


def test_a_fold_of_its_own_goes_with_its_lines():
    md = "Question?\n\n<details><summary>Answer</summary>\n\nIt is 4.\n</details>\n\nNext."
    assert strip_answers(md) == ("Question?\n\nNext.", 1)


def test_a_quoted_fold_goes_and_so_does_the_quote_it_leaves_open():
    md = (
        "> **Your turn.** What is 2 + 2?\n>\n> <details><summary>Answer</summary>\n>\n> It is 4.\n>\n"
        "> </details>\n\nThe lesson goes on."
    )
    assert strip_answers(md) == ("> **Your turn.** What is 2 + 2?\n\nThe lesson goes on.", 1)


def test_a_fold_that_is_a_quote_of_its_own_leaves_nothing():
    md = "> <details><summary>Answer</summary>\n>\n> ```python\n> x = 1\n> ```\n>\n> </details>\n"
    assert strip_answers(md) == ("", 1)


def test_an_aside_that_is_not_an_answer_stays():
    md = "Text.\n\n<details><summary>Why float64?</summary>\n\nRoundoff.\n</details>"
    assert strip_answers(md) == (md, 0)


def test_answer_labels():
    for label in ("Answer", "answer", "Answers", "Answer: the eigenvalues", "<b>Answer</b>", "**Solution**"):
        assert is_answer_summary(label), label
    for label in ("Why float64?", "A longer answer to a side question", "Hint"):
        assert not is_answer_summary(label), label


def test_a_closing_tag_inside_fenced_code_is_not_the_fold_s_end():
    md = (
        "Q?\n\n<details><summary>Answer</summary>\n\n```html\n</details>\n```\n\nStill the answer.\n</details>\n\n"
        "After."
    )
    assert strip_answers(md) == ("Q?\n\nAfter.", 1)


def test_nested_folds_go_with_the_answer_around_them():
    md = "Q?\n<details><summary>Answer</summary>\n<details><summary>More</summary>x</details>\ny\n</details>\nAfter."
    assert strip_answers(md) == ("Q?\nAfter.", 1)


def test_a_fold_sharing_a_line_leaves_the_line_s_other_text():
    md = "Before <details><summary>Answer</summary>4</details> after."
    assert strip_answers(md) == ("Before after.", 1)


def test_an_answer_left_open_is_removed_to_the_end():
    md = "Q?\n\n<details><summary>Answer</summary>\n\nThe answer, and no closing tag."
    assert strip_answers(md) == ("Q?", 1)


# -- the edition of the series --------------------------------------------------------------------------


def test_every_notebook_is_written_with_the_marker(student):
    out, summary = student
    originals = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert summary.notebooks == originals
    assert sorted(p.name for p in out.glob("*.ipynb")) == originals
    assert (out / edition.MARKER).read_text(encoding="utf-8").splitlines()[0] == edition.MARKER_LINE
    assert summary.answers_removed >= 60  # the series has about 65 folded answers
    assert summary.outside_links == []


def test_no_folded_answer_is_left_anywhere(student):
    out, _ = student
    for path in sorted(out.glob("*.ipynb")):
        for n, cell in enumerate(cells_of(path)):
            tags = cell.get("metadata", {}).get("tags", [])
            assert not [t for t in tags if t.startswith("answer:")], (path.name, n)
            for label in FOLD.findall(text(cell)):
                assert not is_answer_summary(label), (path.name, n, label)


def test_the_originals_had_answers_in_the_forms_the_edition_removes():
    """The edition's test means something only if the series holds folds in each of these places."""
    answer_cells = quoted = in_question = 0
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in cells_of(path):
            if cell["cell_type"] != "markdown":
                continue
            source = text(cell)
            folds = [label for label in FOLD.findall(source) if is_answer_summary(label)]
            if not folds:
                continue
            rest, _ = strip_answers(source)
            answer_cells += not rest.strip()
            in_question += bool(rest.strip())
            quoted += bool(re.search(r"^\s*>\s*<details", source, re.MULTILINE))
    assert answer_cells >= 10 and in_question >= 10 and quoted >= 1


def as_series(cell):
    """A code cell of the edition as the series has it: the first cell names the class's package instead."""
    if cell["cell_type"] == "code" and text(cell).startswith(edition.EDITION_IMPORT):
        series = 'import rnn_core  # in rnn-from-scratch.zip or its repo: pip install ".[notebooks]" there'
        return {**cell, "source": series + text(cell)[len(edition.EDITION_IMPORT) :]}
    return cell


def test_code_cells_and_other_prose_are_the_series_own(student):
    out, _ = student
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        original = cells_of(path)
        written = cells_of(out / path.name)
        firsts = [c for c in written if c["cell_type"] == "code" and "rnn-from-scratch.zip" in text(c)]
        assert not firsts  # the edition's first cell no longer sends students to the full series
        code = [as_series(c) for c in written if c["cell_type"] == "code"]
        assert [{**c, "source": text(c)} for c in code] == [
            {**c, "source": text(c)} for c in original if c["cell_type"] == "code"
        ]
        kept = iter(c for c in written if c.get("id") != edition.NOTE_ID)
        for cell in original:
            if cell["cell_type"] == "markdown":
                rest, removed = strip_answers(text(cell))
                if removed and not rest.strip():
                    continue  # an answer cell: dropped
                mine = next(kept)
                assert mine["id"] == cell["id"] and text(mine) == (rest if removed else text(cell))
                assert mine.get("attachments") == cell.get("attachments")
            else:
                mine = as_series(next(kept))
                assert {**mine, "source": text(mine)} == {**cell, "source": text(cell)}
        assert next(kept, None) is None


def test_each_notebook_says_it_is_the_student_edition(student):
    out, _ = student
    for path in sorted(out.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert nb["metadata"]["rnn_core"]["edition"] == "student"
        assert nb["metadata"]["rnn_core"]["notebook"] == path.name
        notes = [n for n, c in enumerate(nb["cells"]) if c.get("id") == edition.NOTE_ID]
        assert len(notes) == 1 and 1 <= notes[0] <= 3  # under the title, its navigation and glance lines
        assert "practice.solution" in text(nb["cells"][notes[0]])


def test_every_exercise_keeps_its_tagged_cell(student):
    out, _ = student
    for name, notebook in practice.EXERCISES.items():
        tagged = [c for c in cells_of(out / notebook) if f"exercise:{name}" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1 and "raise NotImplementedError" in text(tagged[0]), name


def test_links_between_notebooks_still_resolve(student):
    out, _ = student
    for path in sorted(out.glob("*.ipynb")):
        for cell in cells_of(path):
            if cell["cell_type"] == "markdown":
                for target in re.findall(r"\]\(([^)\s#]+\.ipynb)", text(cell)):
                    assert (out / target).is_file(), (path.name, target)


def test_the_edition_passes_nbval_where_it_is_cheap(student):
    out, _ = student
    paths = [str(p) for p in sorted(out.glob("*.ipynb")) if p.name[:2] in CHEAP]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    # -c and --rootdir: the repository's nbval settings; -p conftest: its root conftest (the reader's fresh
    # my_rnn.py, the notebooks' checks), which pytest loads only for files under the repository otherwise
    command = [sys.executable, "-m", "pytest", *paths, "-c", "pyproject.toml", "--rootdir", ".", "-p", "conftest"]
    run = subprocess.run(
        [*command, "-n", "0", "-p", "no:randomly", "-q"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


# -- practice.solution ---------------------------------------------------------------------------------


def test_solution_is_withheld_in_the_edition_and_below_it(student, monkeypatch, capsys):
    out, _ = student
    monkeypatch.delenv(edition.WITHHELD_ENV, raising=False)
    for folder in (out, out / "week1"):
        folder.mkdir(exist_ok=True)
        monkeypatch.chdir(folder)
        assert practice.solution("softmax") is None
        printed = capsys.readouterr().out
        assert "withheld" in printed and str(out / edition.MARKER) in printed and "def softmax" not in printed
        assert 'practice.hint("softmax")' in printed


def test_solution_is_printed_elsewhere(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(edition.WITHHELD_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / edition.MARKER).write_text("# some other file of that name\n", encoding="utf-8")
    practice.solution("softmax")
    assert "def softmax" in capsys.readouterr().out  # a file of that name without the marker line is not it


def test_solution_is_withheld_by_the_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(edition.WITHHELD_ENV, "withheld")
    practice.solution("one_hot")
    printed = capsys.readouterr().out
    assert "withheld" in printed and "def one_hot" not in printed


# -- the command line and its errors ---------------------------------------------------------------


def test_the_command_writes_the_edition(tmp_path, capsys):
    assert main(["student-edition", str(tmp_path / "class"), "--from", str(NOTEBOOKS)]) == 0
    out = capsys.readouterr().out
    assert "folded answers left out" in out and "STUDENT-EDITION.md" in out
    assert (tmp_path / "class" / "01-softmax-and-its-derivative.ipynb").is_file()
    # again: the folder holds an edition, which only --force replaces
    assert main(["student-edition", str(tmp_path / "class")]) == 1
    assert "--force" in capsys.readouterr().err
    assert main(["student-edition", str(tmp_path / "class"), "--force"]) == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # nothing half-written left beside it


def test_a_folder_in_use_is_never_replaced(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(EditionError, match="not empty"):
        write_student_edition(tmp_path / "mine", NOTEBOOKS, force=True)
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"
    with pytest.raises(EditionError, match="source folder"):
        write_student_edition(NOTEBOOKS, NOTEBOOKS)


def test_without_the_repository_the_command_asks_for_the_notebooks(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(edition, "default_notebooks_dir", lambda: None)
    assert main(["student-edition", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and "--from" in err
    assert main(["student-edition", str(tmp_path / "out"), "--from", str(tmp_path / "nowhere")]) == 1
    assert "not a folder" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_unreadable_notebook_leaves_nothing_behind(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), source / "00-a.ipynb")
    (source / "01-b.ipynb").write_text("{ not json", encoding="utf-8")
    with pytest.raises(EditionError, match="01-b.ipynb"):
        write_student_edition(tmp_path / "out", source)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_files_the_notebooks_link_to_are_copied(tmp_path):
    source = tmp_path / "src"
    (source / "figs").mkdir(parents=True)
    (source / "figs" / "a.png").write_bytes(b"\x89PNG")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("![a](figs/a.png) [up](../README.md)", id="x")])
    nbformat.write(nb, source / "00-a.ipynb")
    summary = write_student_edition(tmp_path / "out", source)
    assert (tmp_path / "out" / "figs" / "a.png").read_bytes() == b"\x89PNG"
    assert summary.files_copied == ["figs/a.png"] and summary.outside_links == [("00-a.ipynb", "../README.md")]
