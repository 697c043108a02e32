"""The figures in img/ and in the notebooks' attachments are exactly what tools/make_figures.py draws.

Fails when someone edits a figure by hand, or changes the script (or the numbers
it takes from rnn_core) without running ``python tools/make_figures.py``.
"""

import base64
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # make_figures imports its neighbour notebook_files
_spec = importlib.util.spec_from_file_location("make_figures", ROOT / "tools" / "make_figures.py")
make_figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_figures)
NAMES = [
    "rnn-4-black-boxes",
    "rnn-4-black-boxes-connected",
    "rnn-multi-sequences",
    "rnn-unrolled",
    "char-level-language-model",
    "lstm-cell",
    "gru-cell",
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


def test_attachments_are_pngs_of_the_figures_of_img():
    """Every attachment in a notebook is a PNG of one of img/'s figures (drawn by the same code; the
    bytes are checked by the test above), and every reference has one."""
    seen = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            refs = make_figures.ATTACHMENT_RE.findall("".join(cell.get("source", "")))
            attached = cell.get("attachments", {})
            assert sorted(attached) == sorted(set(refs)), f"{path.name}, cell {index}: attachments {sorted(attached)}"
            for name, bundle in attached.items():
                assert name.endswith(".png") and (ROOT / "img" / f"{name[:-4]}.svg").exists(), (
                    f"{path.name}, cell {index}: {name} is not the PNG of a figure in img/"
                )
                assert list(bundle) == ["image/png"], f"{path.name}, cell {index}: {name} holds {list(bundle)}"
                assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
                seen.add(name)
    assert seen, "no notebook holds a figure: expected at least notebook 01's"


def test_an_unknown_figure_name_is_named():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "![x](attachment:nope.svg)"}]}
    with pytest.raises(ValueError, match=r"07-x.ipynb, cell 0: attachment:nope.svg names no figure"):
        make_figures.embedded_notebook(nb, {"a.png": b"\x89PNG"}, "07-x.ipynb")


def test_stale_attachments_are_dropped():
    cell = {
        "cell_type": "markdown",
        "metadata": {},
        "source": "no figure now",
        "attachments": {"a.png": {"image/png": "iVBORw=="}},
    }
    make_figures.embedded_notebook({"cells": [cell]}, {"a.png": b"\x89PNG"})
    assert "attachments" not in cell


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
