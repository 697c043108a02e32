"""Every notebook stands alone: opened by itself (a copy in an empty folder, GitHub, nbviewer, Colab),
it shows every figure, keeps its links inside notebooks/, and says what to install if rnn_core is missing.

These tests read the committed files; they hold for every ``notebooks/NN-slug.ipynb``, including
notebooks added later. The browser test checks the same in JupyterLab (images load, links resolve).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from packaging.specifiers import SpecifierSet

import notebook_files

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# Every notebook's first code cell, alone: the import of the series' package, whose comment says
# where it comes from and how to install it, for a notebook opened alone (JupyterLab, VS Code,
# Colab, GitHub): the series' archive, rnn-from-scratch.zip, which every page of its site offers
# (tools/build_site.py), or its repository; in either, `pip install ".[notebooks]"` installs the
# package and what the notebooks import. Where rnn_core is missing, the traceback shows this line,
# comment included; a missing numpy (or any other module) is named by its own error, not blamed on
# rnn_core. One line of at most 88 characters, the notebooks' line length.
FIRST_CELL = 'import rnn_core  # in rnn-from-scratch.zip or its repo: pip install ".[notebooks]" there'
ARCHIVE_NAME = "rnn-from-scratch.zip"

# Markdown links and images, and src/href attributes of HTML, in prose or in rich outputs.
LINK_RE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|\b(?:src|href)\s*=\s*[\"']([^\"']+)[\"']")
# URLs that need no file beside the notebook
SELF_CONTAINED = ("http://", "https://", "mailto:", "data:", "attachment:")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _load(path: Path) -> dict:
    return notebook_files.reads(path.read_text(encoding="utf-8"))


def _texts(nb: dict):
    """(where, text) of every Markdown cell and every HTML or Markdown output."""
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            yield f"cell {index}", _source(cell)
        for output in cell.get("outputs", []):
            for mime in ("text/html", "text/markdown"):
                data = output.get("data", {}).get(mime)
                if data:
                    yield f"cell {index} ({mime} output)", "".join(data) if isinstance(data, list) else data


def _heading_ids(nb: dict) -> set[str]:
    """The ids JupyterLab gives the notebook's headings: the heading's text with spaces as '-'."""
    ids = set()
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for line in _source(cell).splitlines():
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                text = re.sub(r"[*_`]", "", m.group(1))
                ids.add(text.replace(" ", "-"))
    return ids


def test_there_are_notebooks():
    assert len(PATHS) >= 2, "expected the series' notebooks in notebooks/"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name[:2])
def test_links_and_images_stay_inside_notebooks(path):
    """No figure or link points outside notebooks/, and every relative link names a file there
    (and, with #anchor, a heading of that notebook)."""
    nb = _load(path)
    problems = []
    for where, text in _texts(nb):
        for m in LINK_RE.finditer(text):
            url = m.group(1) or m.group(2)
            if url.startswith(SELF_CONTAINED):
                continue
            parts = urlsplit(url)
            if parts.scheme or parts.netloc:
                problems.append(f"{where}: {url} (a scheme this test does not know: add it to SELF_CONTAINED?)")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if NOTEBOOKS.resolve() not in (target, *target.parents):
                problems.append(
                    f"{where}: {url} points outside notebooks/, which a notebook opened on its own "
                    "does not have (embed a figure as an attachment: tools/make_figures.py)"
                )
            elif not target.exists():
                problems.append(f"{where}: {url}: no such file in notebooks/")
            elif (
                parts.fragment
                and target.suffix == ".ipynb"
                and unquote(parts.fragment) not in _heading_ids(_load(target))
            ):
                problems.append(f"{where}: {url}: no heading with that anchor in {target.name}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name[:2])
def test_every_image_is_embedded_or_online(path):
    """A figure in prose is a cell attachment the cell holds (or a data: or web URL), so it shows
    wherever the notebook is opened alone."""
    nb = _load(path)
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = _source(cell)
        images = re.findall(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)", text) + re.findall(
            r"<img\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)", text
        )
        for url in images:
            if url.startswith("attachment:"):
                assert url[len("attachment:") :] in cell.get("attachments", {}), (
                    f"{path.name}, cell {index}: {url} is not in the cell's attachments: "
                    "run `python tools/make_figures.py`"
                )
            else:
                assert url.startswith(("data:", "https://", "http://")), (
                    f"{path.name}, cell {index}: the image {url} is a file beside the notebook; embed it as an "
                    "attachment written by tools/make_figures.py"
                )


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name[:2])
def test_widget_state_is_stored_with_its_state_key(path):
    """GitHub refuses to render a notebook whose widget metadata lacks "state"; the site shows the
    widgets from it. Every widget a cell shows has its model in the stored state."""
    nb = _load(path)
    views = [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in nb["cells"]
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    ]
    widgets = nb["metadata"].get("widgets")
    if widgets is None:
        assert not views, f"{path.name}: cells show widgets but the notebook stores no widget state"
        return
    stored = widgets.get(WIDGET_STATE, {})
    assert isinstance(stored.get("state"), dict), (
        f"{path.name}: metadata.widgets[{WIDGET_STATE!r}] has no 'state' (keys: {sorted(stored)}); "
        "execute it with tools/execute_notebooks.py, which stores it"
    )
    missing = sorted(set(views) - set(stored["state"]))
    assert not missing, f"{path.name}: widgets shown but not in the stored state: {missing}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name[:2])
def test_first_code_cell_says_what_to_install(path):
    code = [c for c in _load(path)["cells"] if c["cell_type"] == "code" and _source(c).strip()]
    if not code:
        return  # nothing to run, nothing to import
    assert _source(code[0]).strip() == FIRST_CELL, (
        f"{path.name}: the first code cell must be the import of rnn_core alone:\n{FIRST_CELL}"
    )


def test_first_cell_without_rnn_core_shows_how_to_install(tmp_path):
    """Run the first cell where rnn_core cannot be imported: the error's traceback shows the install line."""
    (tmp_path / "cell.py").write_text(FIRST_CELL + "\n", encoding="utf-8")
    blocker = "import sys; sys.modules['rnn_core'] = None; exec(compile(open('cell.py').read(), 'cell.py', 'exec'))"
    result = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("ModuleNotFoundError")
    assert 'pip install ".[notebooks]"' in result.stderr  # the line itself, comment included
    assert ARCHIVE_NAME in result.stderr and len(FIRST_CELL) <= 88


def test_first_cell_names_the_archive_the_site_offers():
    """The archive the first cell names is the one the site's build makes and every page links."""
    build_site = (ROOT / "tools" / "build_site.py").read_text(encoding="utf-8")
    assert f'ARCHIVE_NAME = "{ARCHIVE_NAME}"' in build_site


def _declared_distributions() -> set[str]:
    """The package's dependencies and its extra "notebooks", as normalised distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["notebooks"]
    return {re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", r).group(0)).lower() for r in requirements}


def _imported_modules(code: str) -> set[str]:
    """The top-level modules a piece of Python imports (IPython's %magics and !commands left out)."""
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_everything_the_notebooks_import_is_declared():
    """`pip install ".[notebooks]"` brings every module the notebooks (and the rnn_core modules they
    use) import: each third-party module is provided by a distribution that pyproject.toml names in
    the package's dependencies or its extra "notebooks"."""
    modules = set()
    for path in PATHS:
        for cell in _load(path)["cells"]:
            if cell["cell_type"] == "code":
                modules |= _imported_modules(_source(cell))
    for path in (ROOT / "rnn_core").glob("*.py"):
        modules |= _imported_modules(path.read_text(encoding="utf-8"))
    third_party = sorted(m for m in modules if m not in sys.stdlib_module_names and m not in ("rnn_core", "__future__"))
    assert {"numpy", "matplotlib", "ipywidgets"} <= set(third_party), third_party  # the test reads what it should
    providers = importlib.metadata.packages_distributions()
    declared = _declared_distributions()
    undeclared = {
        module: providers.get(module, ["(not installed here)"])
        for module in third_party
        if not {re.sub(r"[-_.]+", "-", d).lower() for d in providers.get(module, [])} & declared
    }
    assert not undeclared, (
        f"imported by the notebooks or rnn_core but not declared in pyproject.toml (dependencies or the "
        f'extra "notebooks"): {undeclared}'
    )


@pytest.mark.parametrize(
    ("module", "missing", "use"),
    [
        ("rnn_core.widgets", "ipywidgets", ""),
        ("rnn_core.plots", "matplotlib", "plots.plot_tanh([0.0], [0.0], [1.0])"),
    ],
)
def test_widgets_and_plots_name_the_extra_when_a_package_is_missing(module, missing, use):
    """Without ipywidgets or matplotlib, rnn_core.widgets and rnn_core.plots say what to install."""
    script = (
        "import sys\n"
        f"for name in [m for m in sys.modules if m.split('.')[0] == {missing!r}]: del sys.modules[name]\n"
        f"sys.modules[{missing!r}] = None\n"
        f"import {module} as plots\n{use}\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 1, result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError") and missing in last and 'pip install ".[notebooks]"' in last, last


def test_runtime_txt_agrees_with_requires_python():
    """Binder-style builders read runtime.txt; it must name a Python that pyproject.toml accepts,
    the oldest one, which CI tests."""
    runtime = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip()
    m = re.fullmatch(r"python-(\d+)\.(\d+)", runtime)
    assert m, f"runtime.txt holds {runtime!r}; Binder expects 'python-X.Y'"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    version = f"{m.group(1)}.{m.group(2)}"
    spec = SpecifierSet(requires)
    assert version in spec, f"runtime.txt asks for Python {version}, but requires-python is {requires!r}"
    older = f"{m.group(1)}.{int(m.group(2)) - 1}"
    assert older not in spec, f"runtime.txt: {version} is not the oldest Python that {requires!r} allows"
