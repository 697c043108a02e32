"""Reading and writing the series' notebooks as files, shared by the scripts in tools/.

The notebooks are ``notebooks/NN-slug.ipynb`` (two digits, a dash, a slug), in reading order.
Scripts that rewrite a notebook write it in the JSON layout nbformat itself uses (one-space
indent, sorted keys, non-ASCII kept, a final newline), so that opening and saving it in Jupyter
afterwards changes no byte, and a script that changes nothing leaves the file as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"


def notebook_paths(notebooks_dir):
    """Every notebooks_dir/NN-*.ipynb, in reading order."""
    return sorted(Path(notebooks_dir).glob(NOTEBOOK_GLOB))


def source(cell):
    """A cell's source as one string (nbformat allows a list of lines or a string)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def dumps(nb):
    """The notebook `nb` (a dict) as nbformat writes it: each cell's source a list of lines."""
    for cell in nb.get("cells", []):
        if isinstance(cell.get("source"), str):
            cell["source"] = cell["source"].splitlines(keepends=True)
    return json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"
