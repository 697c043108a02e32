"""Every Python file of the project passes ruff's linter and is laid out as ruff formats it.

The rules are in pyproject.toml ([tool.ruff]); the notebooks' code has a narrower line
(notebooks/.ruff.toml). To fix a failure:
`.venv/bin/python -m ruff format .` and `.venv/bin/python -m ruff check --fix .` from the
repository's root, then fix by hand what is left. Without ruff installed these tests are skipped
(they fail instead when the CI environment variable is set).
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args):
    """Run ruff on the repository (settings in pyproject.toml); fail, showing ruff's report, unless it exits 0."""
    if importlib.util.find_spec("ruff") is None:
        message = "ruff is not installed; install the test tools: `.venv/bin/pip install -r requirements-dev.txt`"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    # --no-cache: a test run leaves no .ruff_cache folder behind
    command = [sys.executable, "-m", "ruff", *args, "--no-cache", "."]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        shown = " ".join(["ruff", *args, "."])
        pytest.fail(f"`{shown}` exited with {result.returncode}:\n{result.stdout}{result.stderr}", pytrace=False)


def test_ruff_check():
    ruff("check")


def test_ruff_format():
    ruff("format", "--check")


def test_no_statement_is_split_around_its_comment():
    """ruff format wraps a short statement over three lines when its trailing comment makes the line
    too long (``x = f(\\n    a\\n)  # why``); a reader sees code broken for no reason. The comment
    goes on its own line above the statement instead."""
    split = re.compile(r"\(\n[^\n]*\n[ \t]*\)[^\n#]*#")
    found = [
        f"{path.name} [{k}]: {m.group(0).splitlines()[0].strip()}"
        for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
        for k, cell in enumerate(nbformat.read(path, as_version=4).cells)
        if cell.cell_type == "code"
        for m in split.finditer(cell.source)
    ]
    assert not found, "statements split around a trailing comment (move the comment above):\n" + "\n".join(found)
