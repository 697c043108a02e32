"""The student edition: the series' notebooks without their answers, for a class.

    python -m rnn_core student-edition OUTDIR                     # from the repository's notebooks/
    python -m rnn_core student-edition OUTDIR --from NOTEBOOKS    # from another copy of the notebooks

``write_student_edition(outdir, source)`` writes every notebook of ``source`` into ``outdir`` with

- every folded answer left out: a ``<details>`` block whose ``<summary>`` is an answer ("Answer",
  "Answer: the eigenvalues", "Solution"), wherever it sits in a Markdown cell (a cell of its own,
  the question's own cell, inside a blockquote); the rest of the cell's text is kept, and a cell
  left empty is dropped. Folds whose summary is not an answer (an optional aside) stay;
- everything else as it was: code cells byte for byte with their outputs (so the edition passes
  nbval as the series does, stubs falling back to rnn_core as they do), figures (stored in the
  notebooks), links between notebooks (all of them are written, under the same names), ids and
  tags (the grader finds each exercise by its tag ``exercise:<name>``);
- a short note under each notebook's title saying that this is the student edition, and the
  notebook metadata ``"rnn_core": {"edition": "student", "notebook": <its name>}`` (the grader
  reads it to know which notebook a renamed submission is);
- beside the notebooks, the files their Markdown links to inside the source folder (today none:
  the figures are stored in the notebooks), and the marker file ``STUDENT-EDITION.md``.

How ``practice.solution`` knows it is withheld: it looks for ``STUDENT-EDITION.md`` (recognised by
its first line, ``MARKER_LINE``) in the working folder and the folders above it. In JupyterLab,
Notebook and VS Code a kernel's working folder is its notebook's folder, so the edition carries
the withholding with it wherever it is copied, as long as the marker file travels with the
notebooks (a zip of the folder, nbgrader's release, a JupyterHub home folder); nothing needs
configuring. Where notebooks travel alone (uploaded one by one to Colab, say), an instructor who
controls the environment can set ``RNN_CORE_SOLUTIONS=withheld`` instead (on a JupyterHub, for
every user). This keeps the answers out of sight; it is not a lock while the full package is
installed. ``--wheel`` (``build_wheel``) builds rnn_core without the answers' module
(``course/solutions.py``) for the students to install instead; there ``practice.solution`` withholds
wherever it runs. rnn_core's own functions are still in it, and the grader (``rnn_core.course.grade``),
which runs each exercise without rnn_core, is what tells a student's work from rnn_core's.

The edition's first code cell, which in the series says where rnn_core comes from (the series'
zip or repository), names the class's package instead (``EDITION_IMPORT``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from .. import __version__
from .settings import _SOLUTIONS_MODULE, MARKER, MARKER_LINE, WITHHELD_ENV, solutions_withheld

__all__ = [
    "MARKER",
    "MARKER_LINE",
    "WITHHELD_ENV",
    "EditionError",
    "EditionSummary",
    "default_notebooks_dir",
    "dumps_notebook",
    "is_answer_summary",
    "notebook_source",
    "run_command",
    "solutions_withheld",
    "strip_answers",
    "write_student_edition",
]


# the notebooks' first code cell says where rnn_core comes from: the full series; the edition's says the class's
_FULL_SERIES = re.compile(r"^import rnn_core  # in rnn-from-scratch\.zip[^\n]*", re.M)
EDITION_IMPORT = "import rnn_core  # your class's package: pip install the rnn_core wheel your instructor gives you"

NOTE_ID = "student-edition"
NOTE = (
    "> **Student edition.** Your instructor has left the answers out of this copy of the series: the folded\n"
    "> *Answer*s under the exercises are not here, and `practice.solution` says it is withheld.\n"
    '> `practice.check("name", your_function)` and `practice.hint("name")` work as in the full series.'
)

_MARKER_TEXT = f"""{MARKER_LINE}
# Student edition

The notebooks in this folder are the student edition of rnn-from-scratch, written by
`python -m rnn_core student-edition` (rnn_core {{version}}): the folded answers under the exercises are
left out, and `practice.solution("name")` says the solution is withheld instead of printing it when it
runs in this folder or a folder below it. `practice.check("name", your_function)` and
`practice.hint("name")` work as in the full series.

Keep this file beside the notebooks: it is what tells `practice.solution` to withhold.
"""


class EditionError(ValueError):
    """The edition cannot be written: a missing source, an output folder that is in use, an unreadable notebook."""


@dataclass
class EditionSummary:
    """What ``write_student_edition`` wrote."""

    outdir: Path
    notebooks: list = field(default_factory=list)  # file names, in order
    answers_removed: int = 0  # folded answers left out
    cells_dropped: int = 0  # Markdown cells left empty by that, and dropped
    files_copied: list = field(default_factory=list)  # other files the notebooks link to, relative paths
    outside_links: list = field(default_factory=list)  # (notebook, target): links that leave the source folder
    wheel: str = ""  # the file name of rnn_core's wheel without the answers, when one was built beside them


# -- notebooks as files ---------------------------------------------------------------------------


def notebook_source(cell):
    """A cell's source as one string (nbformat allows a list of lines or a string)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def dumps_notebook(nb):
    """The notebook ``nb`` (a dict) as nbformat writes it: 1-space indent, sorted keys, non-ASCII kept.

    Not ``nbformat.writes``: rnn_core depends on numpy and tqdm only, and an instructor who writes an
    edition from an installed wheel need not have Jupyter. tests/test_edition.py checks that this
    writes every notebook of the series byte for byte as nbformat does."""
    return json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"


def default_notebooks_dir():
    """The repository's notebooks/ beside the installed package (an editable install or a checkout), or None."""
    folder = Path(__file__).resolve().parents[2] / "notebooks"  # rnn_core/course/ -> the repository
    return folder if folder.is_dir() and any(folder.glob("*.ipynb")) else None


# -- folds ---------------------------------------------------------------------------------------------

_QUOTE = re.compile(r"^[ \t]{0,3}(?:>[ \t]?)*")  # a line's blockquote markers
_DETAILS = re.compile(r"<(/?)details\b[^>]*>", re.IGNORECASE)
_SUMMARY = re.compile(r"<summary\b[^>]*>(.*?)</summary\s*>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_ANSWER_LABEL = re.compile(r"^(answers?|solutions?)\b", re.IGNORECASE)
_QUOTE_ONLY = re.compile(r"^[ \t]{0,3}>[ \t>]*$")


def is_answer_summary(label):
    """True if a fold's summary text names an answer: "Answer", "Answer: the eigenvalues", "Solution"."""
    text = re.sub(r"<[^>]+>", "", label)  # HTML inside the summary
    text = re.sub(r"[*_`]", "", text).strip()  # Markdown emphasis, should a front end render it
    return bool(_ANSWER_LABEL.match(text))


def _folds(lines):
    """Every top-level <details> block: (first line, column, last line, column after </details>, text).

    Tags inside fenced code are not tags. A block left open runs to the end of the text (so that an
    answer whose closing tag is missing is still left out whole)."""
    folds, depth, start, fence = [], 0, None, None
    for n, line in enumerate(lines):
        prefix = _QUOTE.match(line).group(0)
        content = line[len(prefix) :]
        opening = _FENCE.match(content)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        for m in _DETAILS.finditer(content):
            if not m.group(1):
                if depth == 0:
                    start = (n, len(prefix) + m.start())
                depth += 1
            elif depth > 0:
                depth -= 1
                if depth == 0:
                    folds.append((*start, n, len(prefix) + m.end()))
    if depth > 0:
        folds.append((*start, len(lines) - 1, len(lines[-1])))
    return [(a, b, c, d, _block_text(lines, a, b, c, d)) for a, b, c, d in folds]


def _block_text(lines, first, col, last, end):
    parts = [lines[n][len(_QUOTE.match(lines[n]).group(0)) :] for n in range(first, last + 1)]
    parts[-1] = lines[last][:end][len(_QUOTE.match(lines[last]).group(0)) :]
    parts[0] = lines[first][col:] if first != last else lines[first][col:end]
    return "\n".join(parts)


def strip_answers(markdown):
    """``(text, removed)``: the Markdown with every folded answer left out, and how many were.

    A fold on lines of its own goes with its lines; one that shares a line with other text leaves that
    text. Where something was removed, quoted blank lines left at the edge of a blockquote go too, and
    runs of blank lines become one.
    """
    lines = markdown.split("\n")
    removed = 0
    for first, col, last, end, text in reversed(_folds(lines)):
        summary = _SUMMARY.search(text)
        if summary is None or not is_answer_summary(summary.group(1)):
            continue
        removed += 1
        before, after = lines[first][:col], lines[last][end:]
        if _QUOTE.match(before).group(0) == before and not after.strip():
            lines[first : last + 1] = []
        else:
            lines[first : last + 1] = [before + after.lstrip() if before.strip(" \t>") else before + after]
    if not removed:
        return markdown, 0
    return _tidy(lines), removed


def _tidy(lines):
    """Drop quoted blank lines at the start or end of a blockquote, then blank runs and edges."""
    changed = True
    while changed:
        changed = False
        for n, line in enumerate(lines):
            if not _QUOTE_ONLY.match(line):
                continue
            prev = lines[n - 1] if n > 0 else ""
            nxt = lines[n + 1] if n + 1 < len(lines) else ""
            if not prev.lstrip().startswith(">") or not nxt.lstrip().startswith(">"):
                del lines[n]
                changed = True
                break
    tidy = []
    for line in lines:
        if not line.strip() and (not tidy or not tidy[-1].strip()):
            continue
        tidy.append(line)
    while tidy and not tidy[-1].strip():
        tidy.pop()
    return "\n".join(tidy)


# -- the edition ----------------------------------------------------------------------------------------

_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|\b(?:src|href)\s*=\s*\"([^\"]+)\"")


def _local_targets(markdown):
    """Relative link and image targets of a Markdown text (no scheme, no data: URL, no pure #anchor)."""
    for m in _LINK.finditer(markdown):
        target = unquote((m.group(1) or m.group(2)).split("#", 1)[0].split("?", 1)[0])
        if target and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith("/"):
            yield target


def _student_notebook(nb, name):
    """The student edition of one notebook (a dict, changed in place): (answers removed, cells dropped)."""
    removed = dropped = 0
    cells = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and _FULL_SERIES.match(notebook_source(cell)):
            cell["source"] = _FULL_SERIES.sub(EDITION_IMPORT, notebook_source(cell)).splitlines(keepends=True)
        if cell.get("cell_type") == "markdown":
            text, n = strip_answers(notebook_source(cell))
            if n:
                removed += n
                if not text.strip():
                    dropped += 1
                    continue
                cell["source"] = text.splitlines(keepends=True)
        cells.append(cell)
    note = {"cell_type": "markdown", "id": NOTE_ID, "metadata": {"tags": [NOTE_ID]}, "source": NOTE.splitlines(True)}
    if not any(c.get("id") == NOTE_ID for c in cells):
        cells.insert(_note_position(cells), note)
    if nb.get("nbformat", 4) < 4 or (nb.get("nbformat") == 4 and nb.get("nbformat_minor", 0) < 5):
        note.pop("id")  # cell ids exist from nbformat 4.5 on
    nb["cells"] = cells
    nb.setdefault("metadata", {})["rnn_core"] = {"edition": "student", "notebook": name, "version": __version__}
    return removed, dropped


def _note_position(cells):
    """Where the note goes: after the title, its navigation line and its at-a-glance line, when present."""
    position = 0
    for n, cell in enumerate(cells[:4]):
        tags = cell.get("metadata", {}).get("tags", [])
        text = notebook_source(cell).lstrip()
        title = n == 0 and text.startswith("# ")
        if cell.get("cell_type") == "markdown" and (title or {"navigation", "glance"} & set(tags)):
            position = n + 1
        else:
            break
    return position


def build_wheel(outdir, project=None):
    """Build rnn_core's wheel without its answers (``course/solutions.py``) in ``outdir``; the wheel's path.

    project: the repository (default: the one holding this package). The package is copied without the
    answers' module and built by ``pip wheel`` (which fetches the build backend, setuptools, once).
    Raises EditionError when there is no repository or the build fails."""
    project = Path(project) if project is not None else Path(__file__).resolve().parents[2]
    if not (project / "pyproject.toml").is_file() or not (project / "rnn_core").is_dir():
        raise EditionError(f"{project} is not the rnn-from-scratch repository (no pyproject.toml and rnn_core/)")
    outdir = Path(outdir)
    with tempfile.TemporaryDirectory(prefix="rnn_core_wheel_") as tmp:
        tree = Path(tmp) / "rnn_core_edition"
        tree.mkdir()
        for name in ("pyproject.toml", "LICENSE"):
            shutil.copy2(project / name, tree / name)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", f"{_SOLUTIONS_MODULE}.py")
        shutil.copytree(project / "rnn_core", tree / "rnn_core", ignore=ignore)
        built = Path(tmp) / "wheel"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(built), str(tree)],
            capture_output=True,
            text=True,
        )
        wheels = sorted(built.glob("rnn_core-*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            last = " ".join((done.stderr or done.stdout).strip().splitlines()[-2:])
            raise EditionError(f"pip could not build the edition's wheel ({last or 'no wheel written'})")
        with zipfile.ZipFile(wheels[0]) as wheel:
            if any(n.endswith(f"/{_SOLUTIONS_MODULE}.py") for n in wheel.namelist()):
                raise EditionError("the edition's wheel holds the answers: not written")
        outdir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(wheels[0], outdir / wheels[0].name))


def write_student_edition(outdir, source=None, *, force=False, wheel=False):
    """Write the student edition of the notebooks in ``source`` (default: the repository's notebooks/) to ``outdir``.

    outdir: a folder that does not exist yet or is empty; with ``force``, also a student edition
      written before (a folder holding ``STUDENT-EDITION.md``), which is replaced.
    wheel: also build rnn_core's wheel without the answers beside the notebooks (``build_wheel``), for
      students to install (offline too): ``pip install rnn_core-*.whl``.
    Returns an ``EditionSummary``. The edition is written to a temporary folder beside ``outdir`` and
    renamed into place, so a failure leaves nothing half-written. Raises ``EditionError``.
    """
    if source is None:
        source = default_notebooks_dir()
        if source is None:
            raise EditionError(
                "no notebooks to make the edition from: rnn_core is installed without the repository "
                "(there is no notebooks/ folder beside the package); pass --from with the notebooks folder "
                "of a copy of rnn-from-scratch (git clone it, or download it)"
            )
    source = Path(source).expanduser()
    outdir = Path(outdir).expanduser()
    if not source.is_dir():
        raise EditionError(f"--from {source}: not a folder (it should hold the series' .ipynb notebooks)")
    paths = sorted(p for p in source.glob("*.ipynb") if not p.name.startswith("."))
    if not paths:
        raise EditionError(f"--from {source}: holds no .ipynb notebook")
    src, out = source.resolve(), outdir.resolve()
    if out == src or out in src.parents:
        raise EditionError(f"{outdir} is the source folder or holds it: write the edition to a folder of its own")
    _check_outdir(outdir, force)
    summary = EditionSummary(outdir)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=outdir.parent, prefix=f".{outdir.name}.partial-"))
    try:
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp's folder is private; the edition is for others to read
        copies = set()
        for path in paths:
            try:
                nb = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise EditionError(f"{path}: not a readable notebook ({e})") from None
            if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
                raise EditionError(f"{path}: not a notebook in nbformat 4 (no list of cells)")
            removed, dropped = _student_notebook(nb, path.name)
            summary.answers_removed += removed
            summary.cells_dropped += dropped
            for cell in nb["cells"]:
                if cell.get("cell_type") == "markdown":
                    copies |= {(path.name, t) for t in _local_targets(notebook_source(cell))}
            (staging / path.name).write_text(dumps_notebook(nb), encoding="utf-8")
            summary.notebooks.append(path.name)
        names = {p.name for p in paths}
        for notebook, target in sorted(copies):
            if target in names:
                continue
            file = (source / target).resolve()
            if src not in file.parents:
                summary.outside_links.append((notebook, target))
            elif file.is_file():
                relative = file.relative_to(src)
                (staging / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, staging / relative)
                summary.files_copied.append(str(relative))
        (staging / MARKER).write_text(_MARKER_TEXT.format(version=__version__), encoding="utf-8")
        if wheel:
            summary.wheel = build_wheel(staging).name
        _put_in_place(staging, outdir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return summary


def _check_outdir(outdir, force):
    if not outdir.exists():
        return
    if not outdir.is_dir():
        raise EditionError(f"{outdir} is a file: name a folder for the edition")
    if not any(outdir.iterdir()):
        return
    if not (outdir / MARKER).is_file():
        raise EditionError(f"{outdir} is not empty: name a new folder (--force replaces only a student edition)")
    if not force:
        raise EditionError(f"{outdir} holds a student edition already: pass --force to replace it")


def _put_in_place(staging, outdir):
    """Rename the finished edition to ``outdir``, replacing what is there (checked before)."""
    if not outdir.exists():
        os.replace(staging, outdir)
        return
    old = Path(tempfile.mkdtemp(dir=outdir.parent, prefix=f".{outdir.name}.old-"))
    os.rmdir(old)
    os.replace(outdir, old)
    try:
        os.replace(staging, outdir)
    except BaseException:
        os.replace(old, outdir)
        raise
    shutil.rmtree(old, ignore_errors=True)


# -- the command line ------------------------------------------------------------------------------------


def run_command(args, out, err):
    """``python -m rnn_core student-edition``: ``args`` as the command line parses them (see rnn_core.cli);
    the exit status."""
    try:
        summary = write_student_edition(args.outdir, args.source, force=args.force, wheel=args.wheel)
    except EditionError as e:
        print(f"error: {e}", file=err)
        return 1
    print(
        f"wrote the student edition of {len(summary.notebooks)} notebooks to {summary.outdir}: "
        f"{summary.answers_removed} folded answers left out ({summary.cells_dropped} cells left empty and dropped); "
        f"practice.solution is withheld there ({MARKER})",
        file=out,
    )
    if summary.wheel:
        print(f"built rnn_core without the answers beside them: {summary.wheel} (pip install it)", file=out)
    if summary.files_copied:
        print(f"copied beside them, as the notebooks link to them: {', '.join(summary.files_copied)}", file=out)
    for notebook, target in summary.outside_links:
        print(f"warning: {notebook} links to {target}, outside the notebooks' folder: not copied", file=err)
    return 0
