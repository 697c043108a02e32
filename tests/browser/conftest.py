"""Fixtures for the browser test: one JupyterLab server and one headless Chromium for all notebooks.

The `lab` fixture lays out a copy of the repository's notebooks (stored outputs kept, execution
counts removed, long runs shortened in their parameters cells: quick_parameters.py), figures and
README, starts JupyterLab there exactly as the README's Quick Start does (on
notebooks/00-start-here.ipynb, so that the server's root is notebooks/), then opens every notebook
the selected tests need, each in its own page, notes what its stored outputs look like before
anything runs, and clicks Run All straight away in each one that a selected test needs run, so the
notebooks run side by side while the tests look at them one after the other (a notebook only the
tests marked ``stored_only`` look at, as stored, is opened and not run: nbval runs it). Two more
notebooks are executed first, the way tools/execute_notebooks.py stores them, and only opened: a
copy of 02 (REEXECUTED) and a small one with the series' slider widget and progress bar
(FRESH_SELFTEST), whose stored outputs show what every notebook will show once re-executed with the
current rnn_core. Everything is shut down at the end, also on failure. On a failed test, a
screenshot, the browser console and the cells' outputs are saved under the test run's temporary
folder (pytest's tmp_path) and the report says where.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import labdriver
from labdriver import (
    FRESH_SELFTEST,
    NOTEBOOKS,
    OPEN_ONLY,
    QUICK_START_FILE,
    REEXECUTED,
    REPO,
    SELFTEST,
    write_selftest_notebook,
)
from quick_parameters import QUICK
from rnn_core.practice import MY_RNN_ENV  # where the notebooks' kernels find the reader's my_rnn.py

# seconds for a page to load and its kernel to be idle: a kernel starts slowly at a load of 10 or
# more, as when other notebooks run beside this test (120 s ran out once for the last notebook)
OPEN_TIMEOUT = 300.0
# seconds for Run All to finish in one notebook: they run side by side, and under the full suite's load
# 240 s ran out three times (06, 08 and 10, in different runs) on notebooks that take about 60 s alone
RUN_TIMEOUT = 480.0

TABS = pytest.StashKey[list]()  # (notebook, tab, session) used by a test
TIMINGS = pytest.StashKey[dict]()  # what took how long, for the terminal summary


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: end-to-end test in JupyterLab with headless Chromium (deselect with -m 'not browser')"
    )
    config.addinivalue_line(
        "markers", "stored_only: a browser test that looks at its notebook as stored, so it needs no Run All"
    )


def _missing(what: str, how: str):
    """Fail on CI, skip elsewhere, when the browser test cannot run here."""
    message = f"{what}; {how}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class LabSession:
    """The server, the browser, and one tab per notebook, opened and started on demand."""

    def __init__(self, root: Path):
        self.root = root
        self.site = root / "site"  # a copy of the repository's layout; JupyterLab serves site/notebooks
        self.evidence = root / "failures"
        self.server: labdriver.LabServer | None = None
        self.browser: labdriver.Browser | None = None
        self.tabs: dict[str, labdriver.NotebookTab] = {}
        self.timings: dict[str, float] = {}
        self.my_rnn: Path | None = None  # the server's own my_rnn.py (the reader's file of answers)
        self.run: set[str] = set()  # the notebooks some selected test needs run (Run All); the others are only opened

    def path_of(self, notebook: str) -> str:
        """The notebook's path on the server, whose root is notebooks/ (as in the Quick Start)."""
        return notebook

    def has_code(self, notebook: str) -> bool:
        nb = nbformat.read(self.server.root_dir / notebook, as_version=4)
        return any(c.cell_type == "code" and c.source.strip() for c in nb.cells)

    def start_run(self, notebook: str) -> None:
        """Open the notebook in a new page, note what its stored outputs show, and click Run All
        (only for the notebooks in self.run); a failure is kept for its test."""
        tab = labdriver.NotebookTab(
            self.server, self.browser, self.path_of(notebook), workspace="ws-" + re.sub(r"[^A-Za-z0-9-]", "-", notebook)
        )
        self.tabs[notebook] = tab
        try:
            t0 = time.monotonic()
            tab.open(timeout=OPEN_TIMEOUT, wait_for_kernel=notebook in self.run)
            tab.wait_outputs_drawn()
            tab.stored_problems = tab.stored_output_problems()
            tab.load_failures = [m for m in tab.console if "Failed to load resource" in m]
            tab.stored_text = tab.page.locator(".jp-NotebookPanel .jp-Notebook").inner_text()
            self.timings[f"{notebook}: open until kernel idle and outputs drawn"] = time.monotonic() - t0
            if self.has_code(notebook) and notebook in self.run:
                tab.run_all()
            else:
                tab.run_seconds = 0.0  # prose only, or only looked at: nothing to run
        except Exception as e:  # reported by the notebook's own test
            tab.open_error = e

    def opened(self, notebook: str) -> labdriver.NotebookTab:
        """The notebook's tab once it is open (Run All may still be running)."""
        if notebook not in self.tabs:
            self.start_run(notebook)
        tab = self.tabs[notebook]
        if tab.open_error is not None:
            raise tab.open_error
        return tab

    def tab(self, notebook: str) -> labdriver.NotebookTab:
        """The notebook's tab once Run All has finished (raises what went wrong)."""
        if notebook not in self.tabs:
            self.start_run(notebook)
        tab = self.tabs[notebook]
        if tab.open_error is not None:
            raise tab.open_error
        if tab.run_seconds is None:
            tab.wait_run_finished(RUN_TIMEOUT)
            self.timings[f"{notebook}: Run All (from the click until its test saw it end)"] = tab.run_seconds
        return tab

    def close(self) -> None:
        try:
            for tab in self.tabs.values():
                tab.close()
            if self.browser is not None:
                self.browser.close()
        finally:
            if self.server is not None:
                self.server.stop()


def _needed_notebooks(session) -> tuple[list[str], set[str]]:
    """Notebooks used by the selected browser tests that exist, in test order, and those of them that
    some test needs run (a test marked ``stored_only`` looks at its notebook as stored: its notebook
    gets no Run All unless another test needs one)."""
    needed, run = [], set()
    here = Path(__file__).parent
    for item in session.items:
        if Path(item.path).parent != here or item.get_closest_marker("browser") is None:
            continue  # not a browser test (test_quick_parameters.py's notebooks open no tab)
        params = getattr(getattr(item, "callspec", None), "params", {})
        opens = [params["notebook"]] if params.get("notebook") else []
        opens += [nb for marker in item.iter_markers("opens") for nb in marker.args]
        for notebook in opens:
            if notebook in (SELFTEST, *OPEN_ONLY) or (NOTEBOOKS / notebook).exists():
                if notebook not in needed:
                    needed.append(notebook)
                if item.get_closest_marker("stored_only") is None and notebook not in OPEN_ONLY:
                    run.add(notebook)
    return needed, run


def _start_executing_as_stored(paths: list[Path], log: Path) -> subprocess.Popen:
    """Start tools/execute_notebooks.py on these notebooks (rewritten in place, as it stores them)."""
    env = dict(os.environ)
    with open(log, "w") as out:
        return subprocess.Popen(
            [sys.executable, str(REPO / "tools" / "execute_notebooks.py"), *map(str, paths)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )


def write_fresh_selftest_notebook(path: Path) -> None:
    """A small notebook with the series' progress bar and a slider widget drawing a figure."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Browser test: what a stored notebook shows before it runs"),
        nbformat.v4.new_code_cell(
            "from IPython.display import display\n"
            "from rnn_core import plots, progress_bar, widgets\n"
            "for step in progress_bar(range(50), desc='a loop', unit='step'):\n"
            "    pass"
        ),
        nbformat.v4.new_code_cell(
            "def show(n):\n"
            "    print(f'square: {n * n}')\n"
            "    display(plots.plot_tanh([0, n], [0, n], [1, 1]))\n"
            "\n"
            "widgets.interactive(show, n=widgets.slider('side n', 3, 0, 20))"
        ),
    ]
    nbformat.write(nb, path)


def write_my_rnn_template(folder: Path) -> Path:
    """A fresh my_rnn.py in folder, made from the template as a reader's first practice.my_rnn() makes it."""
    from rnn_core import practice

    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        practice.my_rnn(folder / "my_rnn.py")
    return folder / "my_rnn.py"


@pytest.fixture(scope="module")  # all browser tests live in one module: shut down right after it
def lab(request, tmp_path_factory):
    chromium = labdriver.find_chromium()
    if chromium is None:
        _missing(*labdriver.CHROMIUM_MISSING)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing(
            "the Python package playwright is missing",
            "install the test tools: `.venv/bin/pip install -r requirements-dev.txt`",
        )

    t_start = time.monotonic()
    root = tmp_path_factory.mktemp("browser")
    session = LabSession(root)
    (session.site / "notebooks").mkdir(parents=True)
    for nb in sorted(NOTEBOOKS.glob("*.ipynb")):
        labdriver.copy_for_test(nb, session.site / "notebooks" / nb.name, QUICK.get(nb.name))
    # the rest of the layout too, so that a link or figure reaching out of notebooks/ (../img/...,
    # ../README.md) fails here for the reason it fails for a reader: the server's root, not a missing file
    if (REPO / "img").is_dir():
        shutil.copytree(REPO / "img", session.site / "img")
    shutil.copy2(REPO / "README.md", session.site / "README.md")
    write_selftest_notebook(session.site / "notebooks" / SELFTEST)
    needed, session.run = _needed_notebooks(request.session)
    # the notebooks only looked at are executed while the server and the browser start
    executed = []
    if REEXECUTED in needed:
        shutil.copy2(NOTEBOOKS / REEXECUTED.removeprefix("reexecuted-"), session.site / "notebooks" / REEXECUTED)
        executed.append(session.site / "notebooks" / REEXECUTED)
    if FRESH_SELFTEST in needed:
        write_fresh_selftest_notebook(session.site / "notebooks" / FRESH_SELFTEST)
        executed.append(session.site / "notebooks" / FRESH_SELFTEST)
    executing = _start_executing_as_stored(executed, root / "execute_notebooks.log") if executed else None
    if not (session.site / QUICK_START_FILE).exists():
        pytest.fail(f"{QUICK_START_FILE}, which the README's Quick Start opens, does not exist", pytrace=False)

    # The kernels inherit the server's environment, where $RNN_CORE_MY_RNN names the reader's file of
    # answers: a fresh template of the server's own, which a test writes into as a reader does
    # (practice.save), never the one the test session's nbval kernels read
    session.my_rnn = write_my_rnn_template(root / "my_rnn" / "notebooks")  # printed as notebooks/my_rnn.py
    session.server = labdriver.LabServer(
        session.site,
        root / "state",
        {MY_RNN_ENV: str(session.my_rnn)},
        open_file=QUICK_START_FILE,
    )
    try:
        session.server.start()
        for notebook in needed:  # the kernels start while the browser starts
            if notebook in session.run:
                session.server.start_kernel(session.path_of(notebook))
        session.browser = labdriver.Browser(chromium, root / "state", session.server.env)
        session.timings["server, kernels and browser started"] = time.monotonic() - t_start
        # all notebooks run side by side, each in its own page; the last of the series (the
        # slowest: 05 trains a network) is opened first, so that it starts first; the ones no test
        # needs run are opened too, as stored
        for notebook in reversed(needed):
            if notebook not in OPEN_ONLY:
                session.start_run(notebook)
        if executing is not None:  # then the ones only looked at, once executed
            if executing.wait(timeout=RUN_TIMEOUT) != 0:
                log = (root / "execute_notebooks.log").read_text()
                pytest.fail(f"tools/execute_notebooks.py failed on {executed}:\n{log}", pytrace=False)
            for notebook in OPEN_ONLY:
                if notebook in needed:
                    session.start_run(notebook)
        yield session
    finally:
        session.close()
        if executing is not None and executing.poll() is None:
            executing.kill()
            executing.wait()
        session.timings["whole browser session"] = time.monotonic() - t_start
        request.config.stash[TIMINGS] = session.timings


@pytest.fixture
def notebook_tab(request, lab):
    """Returns the tab of a notebook after Run All; the tab's evidence is saved if the test fails."""
    used = request.node.stash.setdefault(TABS, [])

    def get(notebook: str) -> labdriver.NotebookTab:
        try:
            return lab.tab(notebook)
        finally:
            tab = lab.tabs.get(notebook)
            if tab is not None and all(t is not tab for _, t, _ in used):
                used.append((notebook, tab, lab))

    return get


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        lines = []
        for notebook, tab, session in item.stash.get(TABS, []):
            try:
                name = item.name if notebook in item.name else f"{item.name}-{notebook}"
                files = tab.save_evidence(session.evidence, name)
            except Exception as e:
                lines.append(f"{notebook}: could not save evidence: {e}")
                continue
            lines.append(f"{notebook}: " + ", ".join(str(f) for f in files))
            lines.append(f"JupyterLab log: {session.server.log_path}")
        if lines:
            report.sections.append(("browser evidence (screenshot, console, outputs)", "\n".join(lines)))
    return report


def pytest_terminal_summary(terminalreporter, config):
    timings = config.stash.get(TIMINGS, None)
    if timings:
        terminalreporter.section("browser test timings")
        for what, seconds in timings.items():
            terminalreporter.write_line(f"{seconds:7.1f} s  {what}")
