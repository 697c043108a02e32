"""The series' long runs, run or stored: what a notebook shows when its ``LONG_RUNS`` is False.

A few cells train a dozen networks or more to back one comparison (06's race of update rules, 07's
sweep of hidden sizes, 08's controls and its recall runs' second and third seeds, 09's race of cells
on the novel, 10's race of one layer against two, 11's long runs without attention). Together they
would put a notebook's Run All past a minute. So a notebook runs them only when
its parameter ``LONG_RUNS`` is True, or when a parameter they depend on differs from the one they
were stored with; otherwise the cell shows the results that the same code computed when it last ran
in full, stored beside this module in ``stored_runs/NAME.json``:

    results = stored.long_run("06-race", run_the_race, run=LONG_RUNS, settings={"steps": COMPARE_STEPS})

Either way ``results`` is the same kind of object: what ``compute`` returned, taken through JSON
(dicts with string keys, lists, floats, ints, strings), so that the cells below it read one form.
The tests' long-runs pass (``python -m pytest --long-runs tests/test_long_runs.py``, outside the default
command: about 7 minutes on 2 cores) runs every notebook once with every long run on, under another CPU's
kernels, where the claims the prose makes are checked on fresh runs, and compares those runs with
the stored ones (:func:`differences`). ``tools/execute_notebooks.py --store-runs`` writes the files.
"""

from __future__ import annotations

import json
import os
import time
from datetime import date
from pathlib import Path

import numpy as np

from .files import write_atomically

FOLDER = Path(__file__).resolve().parent / "stored_runs"
# tools/execute_notebooks.py --store-runs names a folder here to write the runs into
STORE_INTO = "RNN_CORE_STORE_RUNS"
# set to 1 by the tests' long-runs pass (tests/test_long_runs.py, --long-runs) and by --store-runs:
# every long_run runs, whatever its notebook's LONG_RUNS says
RUN_ALL = "RNN_CORE_LONG_RUNS"


def _plain(value):
    """``value`` as JSON can hold it: numpy numbers and arrays as Python numbers and lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(
        f"a long run's results must be dicts with string keys, lists, numbers and strings; got "
        f"{type(value).__name__}: return plain values from its function (for example a TrainResult's val_bpc)"
    )


def _through_json(results):
    """``results`` as JSON gives it back: tuples become lists; a key that is not a string is an error."""
    for key in _keys(results):
        if not isinstance(key, str):
            raise TypeError(f"a long run's dict keys must be strings, so that JSON keeps them; got {key!r}")
    return json.loads(json.dumps(results, default=_plain))


def _keys(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _keys(item)


def path(name: str) -> Path:
    """Where the run ``name`` is stored."""
    return FOLDER / f"{name}.json"


def load(name: str) -> dict:
    """The stored record of the run ``name``: {"settings", "results", "seconds", "made"}."""
    file = path(name)
    if not file.exists():
        raise FileNotFoundError(
            f"no stored run named {name!r} ({file}): set LONG_RUNS = True to run it here, "
            "or reinstall rnn_core from the series' folder"
        )
    return json.loads(file.read_text(encoding="utf-8"))


def long_run(name: str, compute, *, run: bool, settings: dict, about: str = ""):
    """What ``compute()`` returns (taken through JSON) when ``run`` is True, else what it returned when stored.

    ``settings``: the notebook's parameters that the runs depend on ({name: value}), stored with them.
    If they differ from the stored ones (a reader changed one), the runs are run here, as with
    ``run=True``: stored results are never shown for other settings. ``about`` names the runs in the
    line printed when the stored ones are shown.
    """
    if not isinstance(run, bool):
        raise TypeError(f"run (the notebook's LONG_RUNS) must be True or False, not {run!r}")
    settings = _through_json(settings)
    if not run and os.environ.get(RUN_ALL) != "1":
        record = load(name)
        if record["settings"] == settings:
            took = f", {record['seconds']:.0f} s of runs where they were made" if record["seconds"] >= 1 else ""
            print(f"stored results: {about or name}{took}")
            print("(LONG_RUNS = True, among the notebook's parameters, runs them here)\n")
            return record["results"]
        changed = sorted(
            k for k in settings.keys() | record["settings"].keys() if settings.get(k) != record["settings"].get(k)
        )
        print(f"{', '.join(changed)} not as in the stored results: running them here")
    start = time.perf_counter()
    results = _through_json(compute())
    folder = os.environ.get(STORE_INTO)
    if folder:
        record = {
            "settings": settings,
            "results": results,
            "seconds": round(time.perf_counter() - start, 1),
            "made": str(date.today()),
        }
        text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
        write_atomically(Path(folder) / f"{name}.json", lambda f: f.write(text.encode("utf-8")))
    return results


def differences(name: str, results, keys=None) -> list[float]:
    """The absolute differences, number by number, between ``results`` and the stored run ``name``
    (only under ``keys`` of both, if given).

    Raises ValueError where the two differ in anything but their numbers (keys, lengths, strings).
    """
    out: list[float] = []

    def walk(a, b, where):
        if isinstance(a, dict) and isinstance(b, dict):
            if sorted(a) != sorted(b):
                raise ValueError(f"{name}{where}: keys {sorted(a)} against the stored {sorted(b)}")
            for key in a:
                walk(a[key], b[key], f"{where}[{key!r}]")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                raise ValueError(f"{name}{where}: {len(a)} items against the stored {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{where}[{i}]")
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            out.append(abs(a - b))
        elif a != b:
            raise ValueError(f"{name}{where}: {a!r} against the stored {b!r}")

    fresh, kept = _through_json(results), load(name)["results"]
    if keys is not None:
        fresh, kept = {k: fresh[k] for k in keys}, {k: kept[k] for k in keys}
    walk(fresh, kept, "")
    return out
