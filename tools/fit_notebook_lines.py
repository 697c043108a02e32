"""Fit the notebooks' code to 88 characters a line, moving comments rather than wrapping code.

    .venv/bin/python tools/fit_notebook_lines.py            # rewrite notebooks/NN-*.ipynb, then ruff format
    .venv/bin/python tools/fit_notebook_lines.py --check    # list the lines over 88; exit 1 if any

The notebooks' code column is 88 characters (notebooks/.ruff.toml): JupyterLab at 1300 px and the
site's code column show that much without scrolling. A line over 88 is most often code with a
comment after it, and ruff's formatter would wrap the code around the comment (``np.diff(`` on one
line, the list on the next, ``)  # what it is`` on a third). This script moves such comments instead:

- a comment after code, on a line over 88 characters, goes on its own line(s) above that line;
- a comment after a closing bracket that starts its line (what the formatter left of a one-liner it
  wrapped around its comment) goes above the statement, and the statement is joined again when it
  fits (by ruff format, which runs last);
- a comment alone on a line over 88 characters is wrapped at 88 (its indentation kept);
- a string alone on its line inside brackets (a ``print`` argument, say), or after ``return`` or
  ``name =`` (then put in brackets), over 88 characters, is cut after a space into literals that
  Python joins (never inside an f-string's ``{...}``).

``# noqa``, ``# type:`` and ``# fmt:`` comments stay where they are. A line that is still over 88
afterwards (a string with no space to cut at, say) is listed for a person to shorten. With nothing left over, the script
sets notebooks/.ruff.toml's limit for lines the formatter cannot break to 88 as well, so that ruff
(tests/test_lint.py) holds every notebook to it. Only code cells' sources change: the stored
outputs stay as they are.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import nbformat

from notebook_files import write  # tools/, this script's folder

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
RUFF_SETTINGS = NOTEBOOKS / ".ruff.toml"
WIDTH = 88
KEEP = re.compile(r"#\s*(noqa|type:|fmt:)")


def _comment_lines(text: str, indent: str) -> list[str]:
    """The comment `text` (without its #) as comment lines of at most WIDTH characters at `indent`."""
    body = textwrap.wrap(text, WIDTH - len(indent) - 2, break_long_words=False, break_on_hyphens=False)
    return [f"{indent}# {line}" for line in body or [""]]


def _split_points(body: str, formatted: bool) -> list[int]:
    """Where a string literal's body may be cut into two: after a space, outside an f-string's {...}."""
    points, depth, i = [], 0, 0
    while i < len(body):
        pair = body[i : i + 2]
        if formatted and pair in ("{{", "}}") and depth == 0:
            i += 2
            continue
        if body[i] == "\\":
            i += 2
            continue
        if formatted and body[i] == "{":
            depth += 1
        elif formatted and body[i] == "}":
            depth = max(0, depth - 1)
        elif body[i] == " " and depth == 0 and i + 1 < len(body):
            points.append(i + 1)
        i += 1
    return points


def split_string_line(line: str) -> list[str] | None:
    """A line holding only a one-line string literal (and a comma) inside brackets, over WIDTH,
    as two or more literals on lines of at most WIDTH characters (Python joins adjacent literals);
    None when it cannot be cut so."""
    m = re.fullmatch(r"(\s*)([rRbBuUfF]{0,2})(\"|')(.*)\3(,?)\s*", line)
    if m is None or m.group(4).startswith(m.group(3) * 2):
        return None
    indent, prefix, quote, body, comma = m.groups()
    formatted = "f" in prefix.lower()

    def literal(part, last):
        keep = prefix if not formatted or re.search(r"[{}]", part) else re.sub("[fF]", "", prefix)
        return f"{indent}{keep}{quote}{part}{quote}{comma if last else ''}"

    out = []
    while len(literal(body, True)) > WIDTH:
        fits = [i for i in _split_points(body, formatted) if len(literal(body[:i], False)) <= WIDTH]
        if not fits:
            return None
        out.append(literal(body[: fits[-1]], False))
        body = body[fits[-1] :]
    return [*out, literal(body, True)] if out else None


def fit_source(source: str) -> str:
    """A code cell's source with its comments moved or wrapped as the module's docstring says;
    unchanged when it does not parse as Python (IPython magics, a stub with blanks)."""
    lines = source.split("\n")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source
    above: dict[int, list[str]] = {}  # line index -> comment lines to put above it
    cut: dict[int, int] = {}  # line index -> column where its trailing comment starts
    split: dict[int, list[str]] = {}  # line index -> the lines a long string literal becomes
    statement_start, depth = 0, 0
    for token in tokens:
        row, col = token.start[0] - 1, token.start[1]
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.STRING and token.start[0] == token.end[0] and len(lines[row]) > WIDTH:
            head = re.match(r"(\s*)(return|[\w.]+ =) (?=[rRbBuUfF]{0,2}[\"'])", lines[row])
            if depth > 0:
                pieces = split_string_line(lines[row])
            elif head:  # return "..." / name = "...": the literal in brackets, then cut
                inner = split_string_line(" " * 4 + head.group(1) + lines[row][head.end() :])
                pieces = [f"{head.group(0)}(", *inner, f"{head.group(1)})"] if inner else None
            else:
                pieces = None
            if pieces:
                split[row] = pieces
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) or (
            token.type == tokenize.NL and not lines[row][: token.start[1]].strip()
        ):
            # the next statement starts on the next line, or on this one after an indent or dedent
            statement_start = row if token.type in (tokenize.INDENT, tokenize.DEDENT) else token.end[0]
            continue
        if token.type != tokenize.COMMENT or KEEP.match(token.string):
            continue
        line = lines[row]
        before = line[:col]
        text = token.string[1:].strip()
        if not before.strip():  # a comment alone on its line
            if len(line) > WIDTH:
                above.setdefault(row, []).extend(_comment_lines(text, before))
                cut[row] = 0
            continue
        closing = re.match(r"\s*[)\]}]+[,:]?\s*$", before) is not None
        if closing:  # ")  # comment": above the whole statement
            target = min(statement_start, row)
        elif len(line) > WIDTH:
            target = row
        else:
            continue
        indent = re.match(r"\s*", lines[target]).group(0)
        above.setdefault(target, []).extend(_comment_lines(text, indent))
        cut[row] = col
    if not above and not split:
        return source
    out = []
    for index, line in enumerate(lines):
        out += above.get(index, [])
        if index in split and index not in cut:
            out += split[index]
        elif index in cut:
            rest = line[: cut[index]].rstrip()
            if rest:
                out.append(rest)
        else:
            out.append(line)
    return "\n".join(out)


def long_lines(nb) -> list[tuple[int, int, str]]:
    """(cell index, line number, line) of every code line over WIDTH characters."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for number, line in enumerate(cell.source.split("\n"), 1):
                if len(line) > WIDTH:
                    found.append((index, number, line))
    return found


def _notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def _set_ruff_limit() -> bool:
    """notebooks/.ruff.toml's limit for the lines the formatter cannot break, set to WIDTH."""
    text = RUFF_SETTINGS.read_text(encoding="utf-8")
    new = re.sub(r"(?m)^pycodestyle\.max-line-length = \d+$", f"pycodestyle.max-line-length = {WIDTH}", text)
    new = new.replace(
        "# Lines of 89 to 100 characters are allowed where the formatter cannot break them (long strings,\n"
        "# comments); no code line is longer than 100.",
        f"# No line is longer than {WIDTH} characters, comments and strings included (tools/fit_notebook_lines.py\n"
        "# moves a long comment above its code rather than let the formatter wrap the code around it).",
    )
    if new != text:
        RUFF_SETTINGS.write_text(new, encoding="utf-8")
    return new != text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing: list the lines over 88")
    args = parser.parse_args(argv)
    if not args.check:
        for path in _notebooks():
            nb = nbformat.read(path, as_version=4)
            changed = False
            for cell in nb.cells:
                if cell.cell_type == "code":
                    fitted = fit_source(cell.source)
                    changed |= fitted != cell.source
                    cell.source = fitted
            if changed:
                write(nb, path)
                print(f"fitted {path.name}")
        ruff = [sys.executable, "-m", "ruff", "format", "--no-cache", *map(str, _notebooks())]
        result = subprocess.run(ruff, cwd=NOTEBOOKS, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"ruff format failed:\n{result.stdout}{result.stderr}", file=sys.stderr)
            return 1
    left = [(path.name, *found) for path in _notebooks() for found in long_lines(nbformat.read(path, as_version=4))]
    for name, cell, number, line in left:
        print(f"{name}: cell {cell}, line {number}: {len(line)} characters: {line.strip()[:60]}...")
    if left:
        print(f"{len(left)} line(s) over {WIDTH} characters: shorten them by hand, then run this again")
        return 1
    if not args.check and _set_ruff_limit():
        print(f"notebooks/.ruff.toml: every line at most {WIDTH} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
