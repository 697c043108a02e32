"""The series' archive, which tools/build_site.py makes for the site: the repository as a clone has it.

In a git checkout it holds what git tracks; outside one (a folder unpacked from the archive itself,
say) every file that .gitignore does not leave out. Both must give the same files, and never the
novel, a virtual environment, caches, checkpoints or build output. The site test checks the
archive the build puts on the site and the links to it.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# what a reader's folder holds besides the repository's files, all left out by .gitignore
JUNK = [
    "data/pride_and_prejudice.txt",
    ".venv/bin/python",
    "rnn_core/__pycache__/rnn.cpython-311.pyc",
    "rnn_core.egg-info/PKG-INFO",
    "build/site/index.html",
    "site/node_modules/mathjax/tex-mml-chtml.js",
    "checkpoints/step-1000.npz",
    "weights.npz",
    "notebooks/.ipynb_checkpoints/01-softmax-and-its-derivative-checkpoint.ipynb",
    ".pytest_cache/README.md",
    ".ruff_cache/CACHEDIR.TAG",
    ".hypothesis/examples/x",
]


@pytest.fixture(scope="module")
def build_site():
    import build_site  # tools/ is on pytest's pythonpath (pyproject.toml)

    return build_site


@pytest.fixture(scope="module")
def unpacked(build_site, tmp_path_factory):
    """A copy of the repository's files without .git, with the junk a reader's folder gathers."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to compare the fallback with")
    pytest.importorskip("pathspec", reason="the site tools are not installed (requirements-site.txt)")
    folder = tmp_path_factory.mktemp("unpacked") / "rnn-from-scratch"
    for name in build_site.archive_files(ROOT):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, folder / name)
    for name in JUNK:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("not the series'\n", encoding="utf-8")
    return folder


def test_git_checkout_gives_the_tracked_files(build_site):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = build_site.archive_files(ROOT)
    for needed in ("README.md", "LICENSE", "LICENSE-CC-BY-4.0.txt", "pyproject.toml", "requirements.txt"):
        assert needed in names
    assert "notebooks/00-start-here.ipynb" in names and "rnn_core/__init__.py" in names
    assert not [n for n in names if n.split("/")[0] in ("data", "build", ".venv", "checkpoints")]


def test_outside_git_the_same_files(build_site, unpacked):
    """Without .git, .gitignore decides, and gives exactly what git tracks (tests/data's .npz kept)."""
    assert build_site.archive_files(unpacked) == build_site.archive_files(ROOT)
    assert any(n.startswith("tests/data/") and n.endswith(".npz") for n in build_site.archive_files(unpacked))


def test_the_archive(build_site, unpacked, tmp_path):
    """One folder, rnn-from-scratch/, the files' bytes and permissions, and the same archive twice."""
    first = build_site.make_archive(tmp_path / "one" / build_site.ARCHIVE_NAME, unpacked)
    second = build_site.make_archive(tmp_path / "two" / build_site.ARCHIVE_NAME, unpacked)
    assert first.read_bytes() == second.read_bytes(), "the same files gave two different archives"
    with zipfile.ZipFile(first) as z:
        names = z.namelist()
        assert names == [f"rnn-from-scratch/{n}" for n in build_site.archive_files(unpacked)]
        assert z.read("rnn-from-scratch/README.md") == (unpacked / "README.md").read_bytes()
        assert (z.getinfo("rnn-from-scratch/.ci/run").external_attr >> 16) & 0o111, ".ci/run is not executable"
    assert not list(tmp_path.rglob("*.partial")), "a partial archive was left behind"
