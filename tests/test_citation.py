"""CITATION.cff says how to cite the series, with the package's version; CHANGES.md dates its corrections."""

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

import rnn_core

ROOT = Path(__file__).resolve().parent.parent
yaml = pytest.importorskip("yaml")  # PyYAML comes with JupyterLab (jupyter_events)


def citation():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_citation_has_the_package_s_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert citation()["version"] == version == rnn_core.__version__


def test_the_citation_has_what_cff_1_2_0_requires():
    """The schema's required keys and their types (the whole file was checked with cffconvert --validate)."""
    cff = citation()
    assert cff["cff-version"] == "1.2.0"
    assert isinstance(cff["message"], str) and isinstance(cff["title"], str)
    assert cff["authors"] and all(isinstance(a, dict) and a for a in cff["authors"])
    assert isinstance(cff["version"], str)  # a string: YAML would read 0.10 as the number 0.1


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def test_every_correction_names_a_commit_of_this_repository():
    changes = (ROOT / "CHANGES.md").read_text(encoding="utf-8")
    commits = re.findall(r"`([0-9a-f]{7,40})`", changes)
    assert commits
    try:
        if git("rev-parse", "--is-shallow-repository") == "true":
            pytest.skip("a shallow clone (GitHub Actions' default) holds only the last commit")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for commit in commits:
        try:
            assert git("cat-file", "-t", commit) == "commit", commit
        except subprocess.CalledProcessError:
            pytest.fail(f"CHANGES.md names {commit}, which is not a commit of this repository")
