"""The folded Answer under each checked exercise, written from the one source ``practice.solution`` prints.

Every exercise of ``rnn_core.practice`` (``practice.EXERCISES``: name -> the notebook that asks for
it) is three cells in its notebook: the stub the reader fills in, the cell
``practice.check("name", ...)``, and the folded answer. This script finds the check cell, then

1. writes the answer, the Markdown cell right after the check, from ``rnn_core/course/solutions.py``:
   the solution's notes, then its code in a fenced block (the usual slips, each with a marker
   ``<!-- practice:mistake NAME/ID -->`` that tests/test_practice_mistakes.py follows), inside
   ``FOLD``, the one place the fold's HTML is written, every line of it quoted (``quote``: the
   blockquote form of issue 30's folds, whose bar shows where the answer ends).
   ``practice.solution(name)`` prints the same code and notes, so the two cannot drift;
2. tags that cell ``answer:<name>`` and gives it the id ``answer-<slug>``, and tags the stub, the code
   cell right before the check, ``exercise:<name>`` with the id ``exercise-<slug>`` (the slug: the
   name with ``.`` and ``_`` replaced by ``-``, e.g. ``exercise-lstm-step-backward``). An
   instructor's edition (issue 32) finds exercises and answers by these tags.

Text after the fold in an answer cell (the lesson going on) is moved to a Markdown cell of its own
right after the answer, with the id ``after-answer-<slug>``; a cell of another kind that already has
an id the script needs is an error, a Markdown cell has ``-task`` added to its id. Only the sources,
tags and ids of these cells change: outputs stay byte for byte, written in nbformat's JSON layout.

Usage (from the repository root, in the environment rnn_core is installed in):

    python tools/answers.py           # rewrite the answers, tags and ids that drifted
    python tools/answers.py --check   # change nothing; exit 1 listing what drifted
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from notebook_files import dumps, reads, source  # tools/, this script's folder
from rnn_core import practice
from rnn_core.course.solutions import SOLUTIONS

ROOT = Path(__file__).resolve().parent.parent

# The folded answer, as a reader sees it: one constant, so that its look is a one-line change. The
# cell holds it quoted (``quote``): one blockquote around the whole fold, so that the quote's bar
# frames the fold, closed or open, and the lesson visibly resumes under it (notebook conventions, 1).
# The blank lines after <summary> and before </details> let GitHub, VS Code and MyST parse the
# Markdown inside.
FOLD = "<details><summary>Answer</summary>\n\n{body}\n\n</details>"


def quote(text):
    """``text`` as a Markdown blockquote: every line starts with '> ', an empty line is a lone '>'."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def unquote(text):
    """The text inside a blockquote written by ``quote`` (text that is not quoted comes back as it was)."""
    return "\n".join(
        line[2:] if line.startswith("> ") else line[1:] if line.startswith(">") else line for line in text.split("\n")
    )


class AnswerError(ValueError):
    """A notebook is not in the form the script needs."""


def slug(name):
    """'lstm.step_backward' -> 'lstm-step-backward'."""
    return re.sub(r"[._]", "-", name)


def answer_text(name):
    """The Markdown of the folded answer of exercise ``name``."""
    solution = SOLUTIONS[name]
    # the prose first, the code last: inside a fold a paragraph under a code block is glued to it
    body = f"{solution.notes.strip()}\n\n```python\n{solution.code.strip(chr(10))}\n```"
    return quote(FOLD.format(body=body))


def _check_cell(cells, name, notebook):
    found = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and source(c).lstrip().startswith(f'practice.check("{name}",')
    ]
    if len(found) != 1:
        raise AnswerError(
            f"{notebook}: expected one code cell starting practice.check({name!r}, ...), found {len(found)}"
        )
    i = found[0]
    if i == 0 or cells[i - 1]["cell_type"] != "code" or "raise NotImplementedError" not in source(cells[i - 1]):
        raise AnswerError(f"{notebook}: the cell before {name}'s check is not its stub (raise NotImplementedError)")
    if i + 1 >= len(cells) or cells[i + 1]["cell_type"] != "markdown":
        raise AnswerError(f"{notebook}: the cell after {name}'s check is not a Markdown cell for its answer")
    return i


def _set_tag(cell, tag):
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)
        return True
    return False


def _set_id(cells, cell, wanted, notebook):
    """Give ``cell`` the id ``wanted``; another Markdown cell holding it gets ``-task`` added."""
    if cell.get("id") == wanted:
        return False
    for other in cells:
        if other is not cell and other.get("id") == wanted:
            if other["cell_type"] != "markdown":
                raise AnswerError(f"{notebook}: the id {wanted!r} is taken by a {other['cell_type']} cell")
            other["id"] = wanted + "-task"
    cell["id"] = wanted
    return True


def rewrite(nb, notebook, names):
    """Write the answers, tags and ids of exercises ``names`` into the notebook ``nb`` (a dict); True if it changed."""
    changed = False
    for name in names:
        cells = nb["cells"]
        i = _check_cell(cells, name, notebook)
        stub, answer = cells[i - 1], cells[i + 1]
        changed |= _set_tag(stub, f"exercise:{name}") | _set_id(cells, stub, f"exercise-{slug(name)}", notebook)
        text = source(answer)
        head, end = (part.strip("\n") for part in FOLD.split("{body}"))
        if not (text.startswith(head) or text.startswith(quote(head))):  # quoted, or as it was before
            raise AnswerError(f"{notebook}: the cell after {name}'s check does not start with the answer's fold")
        closed = text.find(end)  # the fold's last line, quoted or not
        line_end = text.find("\n", closed) if closed >= 0 else -1
        rest = text[line_end:].strip("\n") if line_end >= 0 else ""
        if rest:  # the lesson goes on after the fold: a cell of its own
            after = nbformat.v4.new_markdown_cell(rest, id=f"after-answer-{slug(name)}")
            cells.insert(i + 2, after)
            changed = True
        wanted = answer_text(name)
        if text != wanted:
            answer["source"] = wanted
            changed = True
        changed |= _set_tag(answer, f"answer:{name}") | _set_id(cells, answer, f"answer-{slug(name)}", notebook)
    return changed


def plan(root=ROOT):
    """{path: new text} for every notebook whose answers, tags or ids drifted."""
    by_notebook = {}
    for name, notebook in practice.EXERCISES.items():
        by_notebook.setdefault(notebook, []).append(name)
    changes = {}
    for notebook, names in by_notebook.items():
        path = Path(root) / "notebooks" / notebook
        nb = reads(path.read_text(encoding="utf-8"))
        if rewrite(nb, notebook, names):
            changes[path] = dumps(nb)
    return changes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything drifted")
    parser.add_argument("--root", default=str(ROOT), help="repository root (default: this script's repository)")
    args = parser.parse_args(argv)
    try:
        changes = plan(args.root)
    except AnswerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    names = sorted(str(p.relative_to(Path(args.root))) for p in changes)
    if args.check:
        if names:
            print("answers out of date in:", *names, sep="\n  ")
            print("run: python tools/answers.py")
            return 1
        print("answers, tags and ids are up to date")
        return 0
    for path, text in changes.items():
        path.write_text(text, encoding="utf-8")
    print("rewrote:", *names, sep="\n  ") if names else print("nothing to change")
    return 0


if __name__ == "__main__":
    sys.exit(main())
