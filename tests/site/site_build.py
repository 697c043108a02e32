"""The site test's build of the static site, started as early as the run allows (tests/site/).

The build (tools/build_site.py, the README's command with two options of the test's) takes minutes, most of them
the slider notebooks running to compute their sliders' positions. With pytest-xdist (the default command's -n 2)
the controller starts it in the background as soon as a worker has collected a site test, at a low priority
(nice 10): it then uses the CPU time that the two test processes leave idle while they wait on JupyterLab,
Chromium or a kernel, instead of holding one of them for its minutes, and the site tests, which run last
(conftest.py's ORDER), find it done. The ``site`` fixture (tests/site/conftest.py) waits for it, or, in one
process (-n 0), builds it itself, the same way.

The sliders' positions are computed from copies of the notebooks with the browser test's short runs
(``--slider-notebooks``, tests/browser/quick_parameters.py), which changes the figures at the positions, not the
pages or what the test checks of them; each slider at its two ends and its start (``--slider-positions 2``), all
the test moves a slider to.
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

from labdriver import CHROMIUM_MISSING
from labdriver import find_chromium as chromium  # tests/browser/ (pyproject.toml's pythonpath)

ROOT = Path(__file__).resolve().parents[2]
WORKER_KEY = "rnn_site_build"  # the build's folder, in xdist's workerinput
TIMEOUT = 3600  # seconds for the build


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

    def start(self, low_priority: bool = True) -> None:
        from quick_parameters import quick_copy  # tests/browser/ (pyproject.toml's pythonpath)

        quick = self.folder / "slider-notebooks"
        quick.mkdir(parents=True, exist_ok=True)
        for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
            quick_copy(path, quick / path.name)
        command = [
            sys.executable,
            str(ROOT / "tools" / "build_site.py"),
            "--out",
            str(self.html),
            "--slider-notebooks",
            str(quick),
            "--slider-positions",
            "2",
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
