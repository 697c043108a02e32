"""The site test's build of the static site, started as early as the run allows (tests/site/).

The build (tools/build_site.py, the README's command with three options of the test's) takes about a minute, and
minutes more for any notebook it must run for its sliders' positions (below). With pytest-xdist (the default
command's -n 2) the controller starts it in the background at a low priority (nice 10), as soon as a worker has
collected a site test, or, where nbval writes the sliders' positions, once nbval is done with those notebooks
(conftest.py): it then uses the CPU time that the two test processes leave idle while they wait on JupyterLab,
Chromium or a kernel, instead of holding one of them, and the site tests, which run last (conftest.py's ORDER),
find it done. The ``site`` fixture (tests/site/conftest.py) waits for it, or, in one process (-n 0), builds it
itself, the same way.

The sliders' positions (each slider at its two ends and its start, ``--slider-positions 2``: all the test moves a
slider to) come from the kernels that run the notebooks anyway. Where the run has nbval run a notebook with
sliders, an item right after each of its slider cells has nbval's kernel write that cell's positions into the
build's cache (``slider_dumps``, called by conftest.py as it orders the items), and the controller starts the
build once nbval is done with those notebooks (conftest.py): the build finds them there and runs no kernel of its
own (measured alone, the build's kernels took about 225 CPU-seconds of the 2-core machine's). A notebook whose
positions are not there (nbval did not run it, or failed before its sliders) runs in the build's kernel as a
copy with the browser test's short runs (``--slider-notebooks``, tests/browser/quick_parameters.py), which
changes the figures at the positions, not the pages or what the test checks of them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import notebook_files
from labdriver import CHROMIUM_MISSING
from labdriver import find_chromium as chromium  # tests/browser/ (pyproject.toml's pythonpath)

ROOT = Path(__file__).resolve().parents[2]
WORKER_KEY = "rnn_site_build"  # the build's folder, in xdist's workerinput
TIMEOUT = 3600  # seconds for the build
POSITIONS = 2  # per slider, besides its start: its two ends
CACHE = "slider-cache"  # in the build's folder: the sliders' positions, as nbval's kernels and the build write them
FED = "fed-by-nbval.json"  # in the build's folder: the notebooks whose positions nbval's kernels write
DEFERRED = "deferred"  # in the build's folder: the controller starts the build once nbval has run those
FOLDER = pytest.StashKey[Path]()  # the build's folder where no controller names it (-n 0): conftest.py


def build_folder(config) -> Path:
    """The site test's build folder: the one xdist's controller made, or this process's own (-n 0)."""
    folder = getattr(config, "workerinput", {}).get(WORKER_KEY)
    return Path(folder) if folder else config.stash[FOLDER]


def _rnn_sliders():
    import build_site  # tools/ (pyproject.toml's pythonpath)

    return build_site._rnn_sliders()


def slider_dumps(items: list, folder: Path) -> list[str]:
    """After each slider cell of every notebook that nbval runs in ``items`` (changed in place), an item that has
    nbval's kernel write the cell's positions into ``folder``/CACHE, the last of a notebook's then gathering
    them as the build reads them (site/rnn_sliders.py: dump_code). Returns the notebooks' names, also written to
    ``folder``/FED."""
    from nbval.plugin import IPyNbCell
    from notebook_checks import Check, insert_checks  # tests/

    rnn_sliders = _rnn_sliders()
    registry, fed = {}, []
    for path in sorted({item.path for item in items if type(item) is IPyNbCell}):
        found = rnn_sliders.folder_for(path, Path(folder) / CACHE, POSITIONS)
        if found is None:
            continue
        cache, cells = found
        cache.mkdir(parents=True, exist_ok=True)
        nb = notebook_files.reads(path.read_text(encoding="utf-8"))
        checks = []
        for index in cells:
            code = rnn_sliders.dump_code(cache, index, POSITIONS, cells if index == cells[-1] else None)
            source = "".join(nb["cells"][index]["source"]).lstrip()
            checks.append(Check(f"cell {index}'s sliders' positions, for the site test", code, after=source))
        registry[path.name] = checks
        fed.append(path.name)
    if registry:
        insert_checks(items, registry)
    Path(folder, FED).write_text(json.dumps(fed), encoding="utf-8")
    return fed


def what_is_missing() -> tuple[str, str] | None:
    """(what is missing, how to install it) for the site test, or None when it can run here."""
    if chromium() is None:
        return CHROMIUM_MISSING
    for module in ("myst_nb", "playwright"):
        if importlib.util.find_spec(module) is None:
            return (
                f"the Python package {module} is missing",
                "install the test tools: `.venv/bin/pip install -r requirements-dev.txt`",
            )
    if shutil.which("npm") is None:
        return (
            "npm is not installed (the site's MathJax comes from the npm registry)",
            "install it with `sudo apt-get install npm` (Debian/Ubuntu)",
        )
    return None


class SiteBuild:
    """One build of the site into ``folder``/html, its output in ``folder``/build.log and, once it has ended,
    its exit code and time in ``folder``/done.json."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.html = self.folder / "html"
        self.log = self.folder / "build.log"
        self.done = self.folder / "done.json"
        self.proc: subprocess.Popen | None = None

    def started(self) -> bool:
        return self.log.exists()

    def deferred(self) -> bool:
        """Whether the controller starts the build once nbval has run the notebooks with sliders."""
        return (self.folder / DEFERRED).exists()

    def start(self, low_priority: bool = True) -> None:
        from quick_parameters import quick_copy  # tests/browser/ (pyproject.toml's pythonpath)

        fed = set(json.loads((self.folder / FED).read_text())) if (self.folder / FED).exists() else set()
        quick = self.folder / "slider-notebooks"
        quick.mkdir(parents=True, exist_ok=True)
        for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
            if path.name in fed:  # the very notebook nbval ran: its positions are in the cache, by its digest
                shutil.copyfile(path, quick / path.name)
            else:
                quick_copy(path, quick / path.name)
        command = [
            sys.executable,
            str(ROOT / "tools" / "build_site.py"),
            "--out",
            str(self.html),
            "--slider-notebooks",
            str(quick),
            "--slider-positions",
            str(POSITIONS),
            "--slider-cache",
            str(self.folder / CACHE),
        ]
        started = time.monotonic()
        log = open(self.log, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its kernels too are stopped with it (stop)
            preexec_fn=(lambda: os.nice(10)) if low_priority else None,
        )

        def record():
            code = self.proc.wait()
            log.close()
            partial = self.done.with_suffix(".partial")
            partial.write_text(json.dumps({"returncode": code, "seconds": time.monotonic() - started}))
            partial.replace(self.done)

        threading.Thread(target=record, daemon=True).start()

    def result(self, timeout: float = TIMEOUT) -> tuple[bool, str]:
        """(whether the build succeeded, what to say): waits until it has ended, at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.done.exists():
            if time.monotonic() > deadline:
                return False, f"the site build did not end within {timeout:.0f} s:\n{self._tail()}"
            time.sleep(1)
        ended = json.loads(self.done.read_text())
        if ended["returncode"] != 0:
            return False, f"the site build failed (exit code {ended['returncode']}):\n{self._tail()}"
        return True, f"site built in {ended['seconds']:.1f} s"

    def _tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-6000:] if self.log.exists() else ""

    def stop(self) -> None:
        """End the build and every process it started, if it is still running."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
