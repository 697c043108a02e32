"""rnn_core.stored: a notebook's long runs, run or shown from their stored results."""

import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from rnn_core import stored

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"""stored\.long_run\(\s*["']([^"']+)["']""")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """stored.FOLDER moved to a temporary folder, and the two environment switches cleared."""
    monkeypatch.setattr(stored, "FOLDER", tmp_path)
    monkeypatch.delenv(stored.RUN_ALL, raising=False)
    monkeypatch.delenv(stored.STORE_INTO, raising=False)
    return tmp_path


S = {"steps": 500, "rates": (0.3, 1.0)}  # the settings the runs were made with


def results():
    return {"grid": {"sgd": [np.float32(3.5), 2.25]}, "steps": (np.int64(500), 500), "name": "Adam"}


def test_a_run_returns_its_results_as_json_gives_them_back_and_stores_only_when_asked(folder, monkeypatch):
    fresh = stored.long_run("race", results, run=True, settings=S)
    assert fresh == {"grid": {"sgd": [3.5, 2.25]}, "steps": [500, 500], "name": "Adam"}
    assert not any(folder.iterdir())  # a reader's run stores nothing
    monkeypatch.setenv(stored.STORE_INTO, str(folder))
    assert stored.long_run("race", results, run=True, settings=S) == fresh
    record = json.loads((folder / "race.json").read_text(encoding="utf-8"))
    assert record["results"] == fresh and record["seconds"] >= 0 and record["made"]
    assert record["settings"] == {"steps": 500, "rates": [0.3, 1.0]}
    assert [p.name for p in folder.iterdir()] == ["race.json"]  # no partial file left


def test_off_it_shows_the_stored_results_without_running(folder, monkeypatch, capsys):
    monkeypatch.setenv(stored.STORE_INTO, str(folder))
    kept = stored.long_run("race", results, run=True, settings=S)
    monkeypatch.delenv(stored.STORE_INTO)

    def must_not_run():
        raise AssertionError("ran")

    assert stored.long_run("race", must_not_run, run=False, settings=S, about="the race") == kept
    said = capsys.readouterr().out
    assert "stored results: the race" in said and "LONG_RUNS = True" in said
    assert max(len(line) for line in said.splitlines()) <= 100


def test_other_settings_than_the_stored_ones_run_here(folder, monkeypatch, capsys):
    monkeypatch.setenv(stored.STORE_INTO, str(folder))
    stored.long_run("race", results, run=True, settings=S)
    monkeypatch.delenv(stored.STORE_INTO)
    quick = stored.long_run("race", lambda: {"quick": 1}, run=False, settings=S | {"steps": 20})
    assert quick == {"quick": 1}
    assert "steps not as in the stored results: running them here" in capsys.readouterr().out


def test_the_tests_switch_runs_every_long_run(folder, monkeypatch):
    monkeypatch.setenv(stored.RUN_ALL, "1")
    assert stored.long_run("never-stored", lambda: {"a": 1}, run=False, settings={}) == {"a": 1}


def test_differences_number_by_number_and_errors_for_anything_else(folder, monkeypatch):
    monkeypatch.setenv(stored.STORE_INTO, str(folder))
    stored.long_run("race", results, run=True, settings=S)
    moved = results() | {"grid": {"sgd": [3.6, 2.25]}}
    assert max(stored.differences("race", moved)) == pytest.approx(0.1)
    assert stored.differences("race", moved, keys=["steps"]) == [0, 0]
    with pytest.raises(ValueError, match="keys"):
        stored.differences("race", moved | {"grid": {"adam": [3.6, 2.25]}})
    with pytest.raises(ValueError, match="items"):
        stored.differences("race", moved | {"steps": [500]})
    with pytest.raises(ValueError, match="'Adam'"):
        stored.differences("race", moved | {"name": "SGD"})


def test_bad_results_and_bad_switches_are_clear_errors(folder):
    with pytest.raises(TypeError, match="keys must be strings"):
        stored.long_run("race", lambda: {("sgd", 0.3): 3.4}, run=True, settings=S)
    with pytest.raises(TypeError, match="TrainResult"):
        stored.long_run("race", lambda: {"run": object()}, run=True, settings=S)
    with pytest.raises(TypeError, match="True or False"):
        stored.long_run("race", results, run="yes", settings=S)
    with pytest.raises(FileNotFoundError, match="LONG_RUNS = True"):
        stored.long_run("never-stored", results, run=False, settings=S)


def test_every_long_run_of_the_notebooks_is_stored_and_every_stored_run_is_used():
    named = set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        found = NAME.findall(code)
        named |= set(found)
        if found:
            parameters = [c.source for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
            assert any(re.search(r"^LONG_RUNS = False\b", s, re.M) for s in parameters), (
                f"{path.name} has long runs ({found}) but no 'LONG_RUNS = False' in a parameters cell"
            )
    files = {p.stem for p in stored.FOLDER.glob("*.json")}
    assert named == files, f"long runs without a stored file: {named - files}; files no notebook uses: {files - named}"


def test_every_cell_with_a_long_run_is_tagged_nbval_ignore_output():
    # it prints two lines when it shows stored results and progress bars when it runs: the long-runs
    # pass runs it, and strict nbval would find its output changed
    untagged = [
        f"{path.name}, cell {k}"
        for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
        for k, cell in enumerate(nbformat.read(path, as_version=4).cells)
        if cell.cell_type == "code"
        and "stored.long_run(" in cell.source
        and "nbval-ignore-output" not in cell.metadata.get("tags", [])
    ]
    assert not untagged, f"cells that call stored.long_run without the nbval-ignore-output tag: {untagged}"
