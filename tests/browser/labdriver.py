"""Drive JupyterLab in headless Chromium, the way a reader uses the series.

`LabServer` starts JupyterLab from the project's own environment on a free loopback port with a
random token, the way the README's Quick Start does: ``jupyter lab notebooks/00-start-here.ipynb``
run from the top of the repository, so the server's root is the folder of that notebook and
nothing outside notebooks/ can be reached; every folder Jupyter, IPython, matplotlib or Chromium
would write to is a temporary folder. `Browser` is one headless Chromium (Debian's build, driven by
Playwright) with a fresh profile. `NotebookTab` is one notebook opened in its own JupyterLab
page: it waits for the kernel, runs all cells from the Run menu, finds a slider by its label, moves
it with the keyboard or by typing into its readout, and reads back what the cell shows.

The notebooks are served from a temporary copy, so JupyterLab never writes to the repository (no
autosave, no checkpoints). The copy keeps the stored outputs, which a reader sees before running
anything (the test looks at them first), but no execution counts: a cell that did not run in the
test shows "[ ]:" and fails it. Its long runs are shortened in its parameters cells
(quick_parameters.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SELFTEST = "browser-selftest.ipynb"  # a tiny notebook written next to the copies, to test the harness
# opened only, never run: notebooks the browser test executes first, as tools/execute_notebooks.py stores them
REEXECUTED = "reexecuted-02-cross-entropy.ipynb"  # a copy of 02
FRESH_SELFTEST = "browser-fresh-selftest.ipynb"  # the series' slider widget and progress bar
OPEN_ONLY = (REEXECUTED, FRESH_SELFTEST)
# What the README's Quick Start opens: `jupyter lab notebooks/00-start-here.ipynb ...`, from the repository's top.
QUICK_START_FILE = "notebooks/00-start-here.ipynb"


def quick_start_arguments(readme: Path = REPO / "README.md") -> list[str]:
    """The arguments the README's Quick Start command gives `jupyter lab` (its first line that
    creates .venv and starts JupyterLab)."""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("python3 -m venv") and "/jupyter lab " in line:
            return shlex.split(line.split("/jupyter lab ", 1)[1])
    raise LabError(f"{readme} has no Quick Start command (python3 -m venv ... .venv/bin/jupyter lab ...)")


CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# JupyterLab settings for the test profile: nothing saved behind our back, no news pop-up covering
# the page, and every cell kept in the page so that off-screen outputs can be read.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # JupyterLab >= 4.4 sends widget messages to a kernel subshell by default; with ipykernel 7 a
    # slider's matplotlib callback then races the kernel's main shell: the first move after Run All
    # often fails with "ValueError: ... ParseException" from matplotlib's mathtext, or its figure
    # is lost (jupyterlab/jupyterlab#19719, matplotlib/ipympl#610). Turned off here; readers need
    # the same setting (Settings → Kernels → Kernel Comms over subshells → Disabled).
    "@jupyterlab/apputils-extension/kernels-settings.jupyterlab-settings": {
        "commsOverSubshells": "disabled",
    },
}

# An error output (a traceback, or IPython's short form for a SyntaxError) as it appears on screen.
ERROR_PATTERN = re.compile(
    r"Traceback \(most recent call last\)|^\s*\w*(Error|Exception|Interrupt|Exit)(:|\s*$)",
    re.MULTILINE,
)
WIDGET_PROBLEMS = ("Loading widget", "Error displaying widget")
# What a reader must not find in a notebook before running it: a widget's repr
# ("VBox(children=(FloatSlider(...", "interactive(children=..."), a progress bar frozen at 0%
# ("  0%|          | 0/1000 [00:00<?, ?step/s]"), or a widget that cannot be drawn.
STORED_REPR = re.compile(r"^\s*\w+\((children|value|layout|description)=", re.MULTILINE)
FROZEN_BAR = re.compile(r"(^|\s|: )0%\|")
# the class rnn_core.widgets gives its widget boxes: a slider inside one is laid out by the library
LIBRARY_WIDGET = "rnn-core-widget"


class LabError(AssertionError):
    """Something a reader would see as broken (or the harness could not reach the page)."""


# Chromium's old headless shell first (Debian's chromium-headless-shell, the build Playwright itself runs headless):
# the same Blink, without the full browser's window machinery, so it renders the pages with less CPU (the browser
# test 297 s and 224 CPU-seconds against 359 s and 282 with the full chromium, measured one after the other alone)
CHROMIUM_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser")
CHROMIUM_MISSING = (  # (what is missing, how to install it): the browser and site tests' message
    "Chromium is not installed (looked for $CHROMIUM, then chromium-headless-shell and chromium on PATH)",
    "install it with `sudo apt-get install chromium-headless-shell` (Debian/Ubuntu), or point $CHROMIUM at a "
    "Chromium/Chrome binary",
)


def find_chromium() -> str | None:
    """Path of $CHROMIUM, else of Debian's headless shell or Chromium (CHROMIUM_NAMES), or None when none is
    installed."""
    candidate = os.environ.get("CHROMIUM")
    if candidate:
        return candidate if os.access(candidate, os.X_OK) else None
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def private_dirs(root: Path) -> dict[str, str]:
    """Environment variables that send every per-user folder of Jupyter & co. under `root`."""
    names = {
        "JUPYTER_CONFIG_DIR": "jupyter-config",
        "JUPYTER_DATA_DIR": "jupyter-data",
        "JUPYTER_RUNTIME_DIR": "jupyter-runtime",
        "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
        "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
        "IPYTHONDIR": "ipython",
        "MPLCONFIGDIR": "matplotlib",
        "XDG_CONFIG_HOME": "xdg-config",
        "XDG_CACHE_HOME": "xdg-cache",
        "XDG_DATA_HOME": "xdg-data",
        "XDG_STATE_HOME": "xdg-state",
    }
    env = {}
    for var, sub in names.items():
        path = root / sub
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    return env


def copy_cleared(src: Path, dst: Path) -> None:
    """Copy a notebook with its outputs and execution counts removed."""
    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, dst)


def copy_for_test(src: Path, dst: Path, quick: dict | None = None) -> None:
    """Copy a notebook as the test serves it: its stored outputs kept (what a reader sees before
    running it), its execution counts removed, its quick parameters in place (quick_parameters.py)."""
    from quick_parameters import apply_quick_parameters

    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.execution_count = None
    apply_quick_parameters(nb, quick or {})
    nbformat.write(nb, dst)


def stored_before_the_library(path: Path) -> bool:
    """Whether a notebook's stored outputs predate rnn_core's before-run outputs: it still stores a
    live widget (a widget view or widget state), which tools/execute_notebooks.py no longer writes."""
    nb = nbformat.read(path, as_version=4)
    return "widgets" in nb.metadata or any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )


def write_selftest_notebook(path: Path) -> None:
    """A small notebook with an IntSlider whose callback prints a value computed from it."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Browser test: a slider that drives a print"),
        nbformat.v4.new_code_cell("import ipywidgets as widgets"),
        nbformat.v4.new_code_cell(
            "def show_square(n):\n"
            '    print(f"square: {n * n}")\n'
            "\n"
            "widgets.interact(show_square, n=widgets.IntSlider(value=3, min=0, max=20, "
            'description="side n", continuous_update=False));'
        ),
    ]
    nbformat.write(nb, path)


def _children(pid: int) -> list[int]:
    """Direct child processes of `pid` (read from /proc, Linux only)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may contain spaces: the parent pid follows it
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            kids.append(int(entry.name))
    return kids


class LabServer:
    """A JupyterLab server started in `workdir` on the file `open_file` (relative to it), as the
    Quick Start does: jupyter_server then serves the folder of that file (its root_dir) and opens
    the file. All its state is under `state_dir`."""

    def __init__(
        self, workdir: Path, state_dir: Path, extra_env: dict[str, str] | None = None, open_file: str = QUICK_START_FILE
    ):
        self.workdir = Path(workdir)
        self.open_file = open_file
        self.root_dir = (self.workdir / open_file).parent  # what jupyter_server serves for a file argument
        self.state_dir = Path(state_dir)
        self.extra_env = dict(extra_env or {})
        self.token = secrets.token_hex(24)
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self.log_path = self.state_dir / "jupyterlab.log"
        self.env: dict[str, str] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _write_settings(self, settings_dir: Path) -> None:
        for rel, values in LAB_SETTINGS.items():
            path = settings_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values, indent=2))

    def start(self, timeout: float = 90.0) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.update(private_dirs(self.state_dir))
        env["JUPYTER_PLATFORM_DIRS"] = "1"  # the new folder layout, without a deprecation warning
        env.pop("JUPYTER_PATH", None)
        env.pop("JUPYTER_CONFIG_PATH", None)
        env.update(self.extra_env)
        self._write_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
        self.env = env
        # jupyter-lab from the interpreter running the tests: the project's own environment
        jupyter_lab = Path(sys.executable).with_name("jupyter-lab")
        if not jupyter_lab.exists():
            raise LabError(f"{jupyter_lab} not found: install the requirements into this environment")
        last_error = ""
        for _attempt in range(3):  # the free port may be taken between the check and the bind
            self.port = free_port()
            cmd = [
                str(jupyter_lab),
                # as in the Quick Start; the test's own settings follow
                *(quick_start_arguments() if self.open_file == QUICK_START_FILE else [self.open_file]),
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                "--ServerApp.terminals_enabled=False",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                cmd.append("--allow-root")
            log = open(self.log_path, "a")
            try:
                self.process = subprocess.Popen(
                    cmd,
                    env=env,
                    cwd=self.workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            finally:
                log.close()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    last_error = f"JupyterLab exited with code {self.process.returncode}"
                    break
                try:
                    self.api("GET", "/api/status", timeout=2)
                    self._check_root()
                    return
                except (OSError, urllib.error.URLError) as e:
                    last_error = str(e)
                    time.sleep(0.25)
            else:
                self.stop()
                raise LabError(
                    f"JupyterLab did not answer within {timeout:.0f} s ({last_error}); "
                    f"its log: {self.log_path}\n{self.log_tail()}"
                )
        raise LabError(f"JupyterLab did not start ({last_error}); its log: {self.log_path}\n{self.log_tail()}")

    def _check_root(self) -> None:
        """The server serves the folder of the file it was started on, as the test assumes."""
        listing = self.api("GET", "/api/contents", timeout=10)
        names = {item["name"] for item in listing["content"]}
        if Path(self.open_file).name not in names:
            self.stop()
            raise LabError(
                f"JupyterLab started on {self.open_file} does not serve its folder "
                f"(its root holds {sorted(names)[:10]}): jupyter_server's root_dir rule changed"
            )

    def api(self, method: str, path: str, body: dict | None = None, timeout: float = 10) -> object:
        """Call the server's REST API with the token; returns the decoded JSON (or None)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
        return json.loads(raw) if raw else None

    def start_kernel(self, path: str) -> None:
        """Start the kernel of notebook `path` now, so it is warm when the page connects."""
        self.api(
            "POST",
            "/api/sessions",
            {"path": path, "name": Path(path).name, "type": "notebook", "kernel": {"name": "python3"}},
            timeout=60,
        )

    def printed_urls(self) -> list[str]:
        """The addresses JupyterLab printed on starting (its log), for a reader to open."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return re.findall(r"https?://\S+", text)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Shut down the kernels and the server; kill whatever it started that is left."""
        proc = self.process
        if proc is None:
            return
        kernels = _children(proc.pid) if proc.poll() is None else []
        if proc.poll() is None:
            try:
                self.api("POST", "/api/shutdown", timeout=10)
            except (OSError, urllib.error.URLError):
                pass
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        for pid in kernels:  # the server shuts its kernels down; make sure of it
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process = None


class Browser:
    """One headless Chromium with a fresh profile; pages are JupyterLab tabs."""

    def __init__(self, executable: str, state_dir: Path, env: dict[str, str]):
        from playwright.sync_api import sync_playwright

        self.state_dir = Path(state_dir)
        self._pw = sync_playwright().start()
        try:
            self.context = self._pw.chromium.launch_persistent_context(
                str(self.state_dir / "chromium-profile"),
                executable_path=executable,
                headless=True,
                args=CHROMIUM_FLAGS,
                env=env,
                viewport={"width": 1400, "height": 1000},
                timeout=60_000,
            )
        except BaseException:
            self._pw.stop()
            raise

    def new_page(self):
        return self.context.new_page()

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self._pw.stop()


@dataclass
class SliderState:
    """What a reader sees around one slider: its value and the outputs of its cell."""

    value: str
    text: str  # the cell's output text, the controls' own labels and readouts left out
    images: tuple[str, ...]  # a short hash of each image shown

    def __str__(self) -> str:
        return f"value {self.value}; output {self.text!r}; {len(self.images)} image(s)"


@dataclass
class NotebookTab:
    """One notebook open in its own JupyterLab page."""

    server: LabServer
    browser: Browser
    path: str  # relative to the server root
    workspace: str
    console: list[str] = field(default_factory=list)
    run_started: float = 0.0
    run_seconds: float | None = None
    open_error: BaseException | None = None
    stored_problems: list[str] = field(default_factory=list)  # what stored_output_problems found on opening
    stored_text: str = ""  # the notebook's text as shown on opening, before anything ran
    load_failures: list[str] = field(default_factory=list)  # resources the browser failed to load on opening

    def __repr__(self) -> str:
        return f"NotebookTab({self.path!r})"

    def __post_init__(self):
        self.page = self.browser.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("console", lambda m: self.console.append(f"[{m.type}] {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"[pageerror] {e}"))
        self.page.on("crash", lambda _p: self.console.append("[crash] the page crashed"))

    # -- opening and running ------------------------------------------------------------------
    def open(self, timeout: float = 120.0, wait_for_kernel: bool = True) -> None:
        url = f"{self.server.url}/lab/workspaces/{self.workspace}/tree/{self.path}?token={self.server.token}"
        self.page.goto(url, timeout=timeout * 1000)
        self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(
            state="visible", timeout=timeout * 1000
        )
        if wait_for_kernel:
            self.wait_kernel_idle(timeout)

    def kernel_status(self) -> str:
        """The kernel item of the status bar, e.g. 'Python 3 (ipykernel) | Idle'."""
        # Read in one step in the page: a locator's count() then inner_text() is two round trips, and
        # the item re-renders in between while a busy page (notebooks running side by side) answers
        # late, which made inner_text time out. "" while the page does not answer or has no item.
        from playwright.sync_api import Error as PlaywrightError

        try:
            return self.page.evaluate(
                """() => (document.querySelector(
                    '#jp-main-statusbar .jp-StatusBar-TextItem[title^="Change kernel"]')
                    ?.textContent ?? '').trim()"""
            )
        except PlaywrightError:
            return ""

    def wait_kernel_idle(self, timeout: float) -> None:
        """Wait for the status bar to say Idle (the toolbar's circle says so too early)."""
        deadline = time.monotonic() + timeout
        status = ""
        while time.monotonic() < deadline:
            self._fail_on_dialog()
            status = self.kernel_status()
            if re.search(r"\|\s*Idle$", status):
                return
            time.sleep(0.25)
        raise LabError(
            f"{self.path}: the status bar did not show an idle kernel within {timeout:.0f} s (it shows {status!r})"
        )

    def _fail_on_dialog(self) -> None:
        dialog = self.page.locator(".jp-Dialog")
        if dialog.count():
            raise LabError(f"{self.path}: JupyterLab shows a dialog: {dialog.first.inner_text()!r}")

    def prompts(self) -> list[str]:
        """Prompt of every non-empty code cell, e.g. '[3]:', '[*]:' or '[ ]:'."""
        return self.page.evaluate("""() => Array.from(
            document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell'))
            .filter(c => (c.querySelector('.cm-content')?.textContent ?? '').trim() !== '')
            .map(c => (c.querySelector('.jp-InputArea-prompt')?.textContent ?? '').trim())""")

    def run_all(self) -> None:
        """Run → Run All Cells, from the menu bar, as a reader would."""
        self.page.locator("#jp-MainMenu .lm-MenuBar-item:has(.lm-MenuBar-itemLabel:text-is('Run'))").click()
        self.page.locator(".lm-Menu .lm-Menu-item:has(.lm-Menu-itemLabel:text-is('Run All Cells'))").click()
        self.run_started = time.monotonic()

    def wait_run_finished(self, timeout: float) -> None:
        """Wait until no cell is queued or running and the kernel has been idle for a moment."""
        deadline = self.run_started + timeout
        settled = 0
        clicked_again = False
        # looked at at least until it settles once: a notebook whose test comes late may have finished long ago
        deadline = max(deadline, time.monotonic() + 5)
        while time.monotonic() < deadline:
            self._fail_on_dialog()
            prompts = self.prompts()
            busy = any("*" in p for p in prompts)
            started = any(re.search(r"\d", p) for p in prompts)
            idle = bool(re.search(r"\|\s*Idle$", self.kernel_status()))
            if not clicked_again and not busy and not started and idle and time.monotonic() - self.run_started > 15:
                # nothing queued, nothing ran: the click was lost (a kernel not quite ready)
                self.console.append("[harness] Run All left no trace after 15 s: clicking it again")
                clicked_again = True
                self.page.keyboard.press("Escape")
                self.run_all()
                self.run_started = deadline - timeout  # the time limit still counts from the first click
            settled = settled + 1 if (started and not busy and idle) else 0
            if settled >= 3:
                self.run_seconds = time.monotonic() - self.run_started
                return
            time.sleep(0.5)
        prompts = self.prompts()
        raise LabError(
            f"{self.path}: Run All did not finish within {timeout:.0f} s; prompts: "
            f"{' '.join(prompts)}; status bar: {self.kernel_status()!r}"
        )

    # -- what the page shows ------------------------------------------------------------------
    def unexecuted_cells(self) -> list[int]:
        """Indexes (among non-empty code cells, from 1) of cells without an execution count."""
        return [i for i, p in enumerate(self.prompts(), 1) if not re.search(r"\[\d+\]", p)]

    def error_outputs(self) -> list[str]:
        """Error outputs shown anywhere in the notebook (widget outputs included)."""
        texts = self.page.evaluate("""() => Array.from(document.querySelectorAll(
            '.jp-NotebookPanel .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
            .map(e => e.textContent)""")
        return [t.strip()[:1500] for t in texts if ERROR_PATTERN.search(t)]

    def widget_problems(self, wait: float = 20.0) -> list[str]:
        """Widget placeholders still on screen after `wait` seconds ('Loading widget…' etc.)."""
        deadline = time.monotonic() + wait
        while True:
            text = self.page.locator(".jp-NotebookPanel .jp-Notebook").inner_text()
            found = [p for p in WIDGET_PROBLEMS if p in text]
            if not found or time.monotonic() > deadline:
                return [line.strip() for line in text.splitlines() if any(p in line for p in WIDGET_PROBLEMS)][:10]
            time.sleep(0.5)

    def broken_images(self, wait: float = 10.0) -> list[str]:
        """Images in the notebook (prose and outputs) that did not load: naturalWidth 0. The editors'
        own zero-size images (CodeMirror's cm-widgetBuffer, around a figure cell's long line) are no
        images a reader sees."""
        return self.page.evaluate(
            """async (wait) => {
            const imgs = Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-Notebook img'))
                .filter(i => !i.closest('.cm-editor'));
            await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
                i.addEventListener('load', r); i.addEventListener('error', r); setTimeout(r, wait * 1000); })));
            return imgs.filter(i => i.naturalWidth === 0)
                .map(i => `${i.alt || '(no alt text)'}: ${(i.getAttribute('src') || '').slice(0, 100)}`);
        }""",
            wait,
        )

    def broken_links(self) -> list[str]:
        """Links in the notebook's prose that lead nowhere: a file the server answers 404 for (as a
        click would fetch it), or an #anchor with no such heading on the page."""
        return self.page.evaluate("""async () => {
            const problems = [];
            const links = Array.from(document.querySelectorAll(
                '.jp-NotebookPanel .jp-Notebook .jp-RenderedMarkdown a[href]'));
            for (const a of links) {
                const raw = a.getAttribute('href');
                if (raw.startsWith('#')) {  // JupyterLab 4 keeps a heading's id in data-jupyter-id
                    const id = decodeURIComponent(raw.slice(1));
                    const found = Array.from(document.querySelectorAll('[id], [data-jupyter-id]'))
                        .some(e => e.id === id || e.getAttribute('data-jupyter-id') === id);
                    if (!found) problems.push(`${raw}: no heading with that id`);
                    continue;
                }
                const url = new URL(a.href, document.baseURI);
                if (url.origin !== location.origin) continue;  // the web: not this test's business
                const response = await fetch(url.href, {credentials: 'same-origin'});
                if (response.status >= 400) problems.push(`${raw} -> ${url.pathname}: HTTP ${response.status}`);
            }
            return problems;
        }""")

    def wait_outputs_drawn(self, timeout: float = 15.0) -> None:
        """Wait until the number of outputs drawn has stopped changing for a second."""
        deadline = time.monotonic() + timeout
        last, steady = -1, 0
        while time.monotonic() < deadline and steady < 3:
            n = self.page.locator(".jp-NotebookPanel .jp-OutputArea-output").count()
            steady = steady + 1 if n == last else 0
            last = n
            time.sleep(0.25)

    def shows_text(self, text: str, timeout: float) -> bool:
        """Whether the notebook's page comes to show this text within `timeout` seconds."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        found = self.page.locator(".jp-NotebookPanel .jp-Notebook").get_by_text(text).first
        try:
            found.wait_for(state="attached", timeout=timeout * 1000)
        except PlaywrightTimeoutError:
            return False
        return True

    def stored_output_problems(self) -> list[str]:
        """What is wrong with the outputs as the page shows them before anything ran: a widget's
        repr, a progress bar at 0%, a widget placeholder (first 80 characters of each)."""
        texts = self.page.evaluate("""() => Array.from(document.querySelectorAll(
            '.jp-NotebookPanel .jp-OutputArea-output')).map(e => e.innerText || '')""")
        problems = []
        for text in texts:
            if STORED_REPR.search(text):
                problems.append(f"a widget's repr: {text.strip()[:80]!r}")
            elif FROZEN_BAR.search(text):
                problems.append(f"a progress bar at 0%: {text.strip()[:80]!r}")
            elif any(p in text for p in WIDGET_PROBLEMS):
                problems.append(f"a widget that cannot be drawn: {text.strip()[:80]!r}")
        return problems

    def slider_tracks(self) -> list[dict]:
        """Each slider on the page: its label, its track's length in pixels, its readout's width,
        and whether rnn_core.widgets laid it out."""
        return self.page.evaluate(
            """(cls) => Array.from(document.querySelectorAll('.jp-NotebookPanel .widget-slider')).map(s => ({
                label: ((s.querySelector('.widget-label') || {}).textContent || '').trim(),
                track: Math.round(s.querySelector('.slider-container').getBoundingClientRect().width),
                readout: Math.round((s.querySelector('.widget-readout') || s).getBoundingClientRect().width),
                library: !!s.closest('.' + cls),
            }))""",
            LIBRARY_WIDGET,
        )

    def built_by_library(self, slider) -> bool:
        """Whether rnn_core.widgets built the widget this slider belongs to."""
        return slider.evaluate("(el, cls) => !!el.closest('.' + cls)", LIBRARY_WIDGET)

    def watch_height(self, slider, seconds: float) -> None:
        """Record, at every frame for `seconds`, the height of the output area of the slider's cell."""
        slider.evaluate(
            """(el, ms) => {
                const area = el.closest('.jp-Cell').querySelector('.jp-OutputArea');
                const seen = window.__outputHeights = [];
                const t0 = performance.now();
                const tick = () => {
                    seen.push(Math.round(area.getBoundingClientRect().height));
                    if (performance.now() - t0 < ms) requestAnimationFrame(tick);
                };
                tick();
            }""",
            seconds * 1000,
        )

    def watched_heights(self) -> list[int]:
        """The heights recorded since watch_height."""
        return self.page.evaluate("() => window.__outputHeights || []")

    def slider_labels(self) -> list[str]:
        return self.page.evaluate("""() => Array.from(document.querySelectorAll(
            '.jp-NotebookPanel .widget-slider')).map(s => {
                const l = s.querySelector('.widget-label');
                return l ? (l.textContent || l.title || '') : '';
            })""")

    # -- sliders ------------------------------------------------------------------------------
    def slider(self, label: str, occurrence: int = 0):
        """The `occurrence`-th slider whose label contains `label` (case and spaces ignored)."""

        def norm(s: str) -> str:
            return re.sub(r"\s+", " ", s).strip().lower()

        labels = self.slider_labels()
        matches = [i for i, text in enumerate(labels) if norm(label) in norm(text)]
        if len(matches) <= occurrence:
            raise LabError(
                f"{self.path}: no slider labelled {label!r} (occurrence {occurrence}); sliders on the page: {labels}"
            )
        return self.page.locator(".jp-NotebookPanel .widget-slider").nth(matches[occurrence])

    def state(self, slider) -> SliderState:
        """The slider's value and the text and images of the outputs in its cell."""
        value = slider.locator(".widget-readout").inner_text().strip()
        snap = slider.evaluate("""(el) => {
            const cell = el.closest('.jp-Cell');
            const outputs = cell.querySelector('.jp-OutputArea').cloneNode(true);
            // leave out the controls themselves: labels, readouts, buttons, text boxes
            // and the prompts ('[18]:'), which change whenever the cell runs
            outputs.querySelectorAll('.widget-inline-hbox, .widget-button, .jp-OutputArea-prompt')
                .forEach(e => e.remove());
            return {
                text: outputs.innerText ?? outputs.textContent,
                images: Array.from(outputs.querySelectorAll('img')).map(i => i.src).concat(
                    Array.from(outputs.querySelectorAll('.jp-RenderedSVG svg')).map(s => s.outerHTML)),
            };
        }""")
        images = tuple(hashlib.sha1(s.encode()).hexdigest()[:12] for s in snap["images"])
        return SliderState(value=value, text=snap["text"].strip(), images=images)

    def press_keys(self, slider, keys: list[str]) -> None:
        """Click the slider's handle and press keys on it (ArrowRight, PageUp, End, ...)."""
        handle = slider.locator(".noUi-handle").first
        handle.click()
        for key in keys:
            handle.press(key)
            time.sleep(0.05)

    def type_value(self, slider, value: str) -> None:
        """Type a value into the slider's readout and press Enter."""
        readout = slider.locator(".widget-readout")
        readout.click()
        self.page.keyboard.press("ControlOrMeta+A")
        self.page.keyboard.type(str(value), delay=30)
        self.page.keyboard.press("Enter")

    # -- running one cell, and the stop button ------------------------------------------------
    def code_cell(self, starts_with: str):
        """The code cell whose source starts with `starts_with` (exactly one must)."""
        sources = self.page.evaluate("""() => Array.from(
            document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell'))
            .map(c => (c.querySelector('.cm-content')?.innerText ?? '').trimStart())""")
        found = [i for i, s in enumerate(sources) if s.startswith(starts_with)]
        if len(found) != 1:
            raise LabError(f"{self.path}: {len(found)} code cells start with {starts_with!r}, expected one")
        return self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-CodeCell").nth(found[0])

    def next_code_cell(self, cell):
        """The code cell after `cell` (markdown cells skipped)."""
        return cell.locator("xpath=following-sibling::div[contains(@class, 'jp-CodeCell')][1]")

    def select(self, cell) -> None:
        """Select a cell in command mode, as a click on its prompt does."""
        cell.scroll_into_view_if_needed()
        cell.locator(".jp-InputArea-prompt").click()
        self.page.keyboard.press("Escape")

    def insert_above_and_run(self, cell, code: str) -> None:
        """Insert a code cell above `cell`, type `code` into it and run it (Shift+Enter); the
        selection then moves on to `cell`."""
        self.select(cell)
        self.page.keyboard.press("a")
        self.page.keyboard.press("Enter")
        self.page.keyboard.insert_text(code)  # no key events: no auto-closed brackets
        self.page.keyboard.press("Shift+Enter")

    def run_selected(self) -> None:
        self.page.keyboard.press("Shift+Enter")

    def prompt(self, cell) -> str:
        return cell.locator(".jp-InputArea-prompt").inner_text().strip()

    def output_text(self, cell) -> str:
        return cell.locator(".jp-OutputArea").inner_text().strip()

    def interrupt(self) -> None:
        """Click the notebook toolbar's stop button (■, "Interrupt the kernel")."""
        self.page.locator('.jp-NotebookPanel-toolbar [data-command="notebook:interrupt-kernel"]').click()

    # -- evidence for a failure -----------------------------------------------------------
    def outputs_text(self) -> str:
        """Every code cell's prompt, first source line and output text, for the failure report."""
        cells = self.page.evaluate("""() => Array.from(
            document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-CodeCell')).map(c => ({
                prompt: (c.querySelector('.jp-InputArea-prompt')?.textContent ?? '').trim(),
                source: (c.querySelector('.cm-content')?.innerText ?? '').split('\\n')[0],
                output: (c.querySelector('.jp-OutputArea')?.innerText ?? '').trim(),
            }))""")
        parts = []
        for cell in cells:
            parts.append(f"{cell['prompt']} {cell['source']}\n{cell['output']}\n")
        return "\n".join(parts)

    def save_evidence(self, folder: Path, name: str) -> list[Path]:
        """Screenshot, console log and cell outputs of this tab; returns the files written."""
        folder.mkdir(parents=True, exist_ok=True)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        written = []
        shot = folder / f"{stem}.png"
        try:
            self.page.screenshot(path=str(shot), timeout=15_000)
            written.append(shot)
        except Exception as e:  # a crashed page still gets its console log saved
            self.console.append(f"[harness] screenshot failed: {e}")
        log = folder / f"{stem}.console.log"
        log.write_text("\n".join(self.console) + "\n")
        written.append(log)
        try:
            out = folder / f"{stem}.outputs.txt"
            out.write_text(self.outputs_text())
            written.append(out)
        except Exception:
            pass
        return written

    def close(self) -> None:
        try:
            self.page.close()
        except Exception:
            pass
