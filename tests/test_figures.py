"""The figures in img/ are exactly what tools/make_figures.py draws.

Fails when someone edits a figure by hand, or changes the script (or the numbers
it takes from rnn_core) without running ``python tools/make_figures.py``.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = [
    "rnn-4-black-boxes",
    "rnn-4-black-boxes-connected",
    "rnn-multi-sequences",
    "rnn-unrolled",
    "char-level-language-model",
    "lstm-cell",
]


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("img")
    # a fresh interpreter, as on a reader's machine: nothing cached from this test session
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_figures.py"), "--out", str(out)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return out


def test_script_draws_exactly_the_series_figures(regenerated):
    assert sorted(p.stem for p in regenerated.iterdir()) == sorted(NAMES)


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
