"""Reading and writing the series' notebooks as files, shared by the scripts in tools/.

The notebooks are ``notebooks/NN-slug.ipynb`` (two digits, a dash, a slug), in reading order. They
are read and written through nbformat, never as hand-laid JSON: a script that rewrites a notebook
writes it exactly as Jupyter saves it (nbformat's layout and a final newline), so that opening and
saving it in Jupyter afterwards changes no byte, and a script that changes nothing leaves the file as
it was.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"


def notebook_paths(notebooks_dir):
    """Every notebooks_dir/NN-*.ipynb, in reading order."""
    return sorted(Path(notebooks_dir).glob(NOTEBOOK_GLOB))


def reads(text):
    """The notebook in ``text`` (nbformat 4), each cell's source one string."""
    return nbformat.reads(text, as_version=4)


def source(cell):
    """A cell's source as one string (a cell built by hand may hold a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def dumps(nb):
    """The notebook ``nb`` (a NotebookNode or a plain dict) as Jupyter saves it."""
    return nbformat.writes(nbformat.from_dict(nb)) + "\n"


def write(nb, path):
    """Write the notebook ``nb`` to ``path`` as Jupyter saves it, validated first, whole or not at all
    (a temporary file beside it, then renamed over it)."""
    path = Path(path)
    nbformat.validate(nbformat.from_dict(nb))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(dumps(nb), encoding="utf-8")
    os.replace(tmp, path)
