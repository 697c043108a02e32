"""The figures in img/ and in the notebooks' attachments are exactly what tools/make_figures.py draws.

Fails when someone edits a figure by hand, or changes the script (or the numbers
it takes from rnn_core) without running ``python tools/make_figures.py``.
"""

import base64
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import make_figures  # tools/make_figures.py (tools/ is on the tests' path: pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent
NAMES = [
    "rnn-4-black-boxes",
    "rnn-4-black-boxes-connected",
    "rnn-multi-sequences",
    "rnn-unrolled",
    "char-level-language-model",
    "lstm-cell",
    "gru-cell",
    "bptt-two-routes",
    "lstm-gradient-paths",
    "gru-gradient-paths",
]


@pytest.fixture(scope="module")
def regenerated_all(tmp_path_factory):
    """(img folder, notebooks folder) as the script leaves them, run on a copy of notebooks/."""
    out = tmp_path_factory.mktemp("img")
    notebooks = tmp_path_factory.mktemp("notebooks")
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy2(path, notebooks / path.name)
    # a fresh interpreter, as on a reader's machine: nothing cached from this test session
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_figures.py"), "--out", str(out), "--notebooks", str(notebooks)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return out, notebooks


@pytest.fixture(scope="module")
def regenerated(regenerated_all):
    return regenerated_all[0]


def test_script_draws_exactly_the_series_figures(regenerated):
    assert sorted(p.stem for p in regenerated.iterdir()) == sorted(NAMES)


def test_regenerating_leaves_every_notebook_byte_identical(regenerated_all):
    _, notebooks = regenerated_all
    for committed in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (notebooks / committed.name).read_bytes() == committed.read_bytes(), (
            f"notebooks/{committed.name}: its figures differ from what tools/make_figures.py draws: "
            "run `python tools/make_figures.py`"
        )


def test_figures_are_figure_cells_with_pngs_of_the_figures_of_img_and_no_attachments():
    """Every image stored in a notebook is a figure cell holding the PNG of one of img/'s figures
    (drawn by the same code; the bytes are checked by the test above), and no cell has attachments
    (whose attachment: addresses JupyterLab's browser tries to load, logging an error)."""
    seen = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            text = cell.source
            assert "attachments" not in cell and "attachment:" not in text, f"{path.name}, cell {index}"
            if "data:image/" not in text:
                continue
            figure = make_figures.FIGURE_CELL_RE.match(text)
            assert cell["cell_type"] == "markdown" and figure, (
                f"{path.name}, cell {index}: an image outside a figure cell"
            )
            assert (ROOT / "img" / f"{figure['name'][:-4]}.svg").exists() and figure["alt"], (
                f"{path.name}, cell {index}"
            )
            data = text.split("base64,", 1)[1].rstrip(")\n")
            assert base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")
            seen.add(figure["name"])
    assert seen, "no notebook holds a figure: expected at least notebook 01's"


def test_an_unknown_figure_name_is_named():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "![x](attachment:nope.svg)"}]}
    with pytest.raises(ValueError, match=r"07-x.ipynb, cell 0: figure nope.svg names no figure"):
        make_figures.embedded_notebook(nb, {"a.png": b"\x89PNG"}, "07-x.ipynb")


def test_an_attachment_line_splits_its_cell_around_a_figure_cell_and_attachments_go():
    cell = {
        "cell_type": "markdown",
        "id": "s1",
        "metadata": {"tags": ["t"]},
        "source": "## Heading\n\nBefore.\n\n![The boxes](attachment:a.png)\n\nAfter.",
        "attachments": {"a.png": {"image/png": "iVBORw=="}},
    }
    nb = {"cells": [cell]}
    assert make_figures.embedded_notebook(nb, {"a.png": b"\x89PNG"}) == ["a.png"]
    before, figure, after = nb["cells"]
    assert before == {
        "cell_type": "markdown",
        "id": "s1",
        "metadata": {"tags": ["t"]},
        "source": "## Heading\n\nBefore.",
    }
    assert figure["id"] == "s1-figure" and figure["source"] == make_figures.figure_cell_source(
        "a.png", "The boxes", b"\x89PNG"
    )
    assert after == {"cell_type": "markdown", "id": "s1-after", "metadata": {}, "source": "After."}
    assert make_figures.embedded_notebook(nb, {"a.png": b"\x89PNG\x00"}) == ["a.png"]  # brought up to date
    assert nb["cells"][1]["source"].endswith(base64.b64encode(b"\x89PNG\x00").decode() + ")") and len(nb["cells"]) == 3


def test_an_attachment_inside_a_line_of_prose_is_refused():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "see ![x](attachment:a.png) here"}]}
    with pytest.raises(ValueError, match="on a line of its own"):
        make_figures.embedded_notebook(nb, {"a.png": b"\x89PNG"}, "07-x.ipynb")


@pytest.mark.parametrize("name", NAMES)
def test_regenerated_figure_is_byte_identical(regenerated, name):
    committed = ROOT / "img" / f"{name}.svg"
    assert committed.exists(), f"{committed.name} missing: run `python tools/make_figures.py`"
    assert (regenerated / f"{name}.svg").read_bytes() == committed.read_bytes(), (
        f"img/{name}.svg differs from what tools/make_figures.py draws: run `python tools/make_figures.py`"
    )


@pytest.mark.parametrize("name", NAMES)
def test_no_timestamp_or_machine_path(name):
    text = (ROOT / "img" / f"{name}.svg").read_text(encoding="utf-8")
    assert "<dc:date>" not in text
    for path in ("/work/", "/tmp/", "/root/", "/home/"):
        assert path not in text
