"""The static site: built by tools/build_site.py exactly as the README says, then read in Chromium.

The site is built into a temporary folder and served from 127.0.0.1; headless Chromium (Debian's
build, driven by Playwright) opens every page with every request that leaves this machine
blocked, so anything a page would fetch from the web counts as a failure. Checked on every page:
the maths is typeset (no raw ``$$``, ``\\(`` or ``\\[`` left in the text), no image is broken, every
link inside the site resolves (to a file, and to an element when it names an #anchor), no script
fails; on pages whose notebook stores a slider, the slider is shown. Then: every notebook has its
page, the search finds a word, cells tagged ``remove-cell`` are absent, and the home page and one
notebook page also work from file://.

Needs Chromium, Playwright, the site tools (requirements-site.txt) and npm; without them the test
is skipped with a message (it fails instead when the CI environment variable is set).
Deselect with ``-m "not site"``.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
SLIDER_MODELS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "SelectionSliderModel")
LOCAL_SCHEMES = ("data:", "blob:", "about:", "file:")


def _missing(what: str, how: str):
    message = f"{what}; {how}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _chromium() -> str | None:
    candidate = os.environ.get("CHROMIUM")
    if candidate:
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _stored_sliders(path: Path) -> int:
    nb = json.loads(path.read_text(encoding="utf-8"))
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    return sum(1 for model in state.values() if model.get("model_name") in SLIDER_MODELS)


def _removed_sources(path: Path) -> list[str]:
    """The longest line of each cell tagged remove-cell: text that must not reach the site."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    lines = []
    for cell in nb["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            longest = max((line.strip() for line in src.splitlines()), key=len, default="")
            if len(longest) >= 12:
                lines.append(longest)
    return lines


# -- building and serving ------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site's folder (the README's command, with --out a temporary folder)."""
    if _chromium() is None:
        _missing(
            "Chromium is not installed (looked for `chromium` on PATH and $CHROMIUM)",
            "install it with `sudo apt-get install chromium` (Debian/Ubuntu)",
        )
    try:
        import myst_nb  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError as e:
        _missing(
            f"the Python package {e.name} is missing",
            "install the test tools: `.venv/bin/pip install -r requirements-dev.txt`",
        )
    if shutil.which("npm") is None:
        _missing(
            "npm is not installed (the site's MathJax and widget manager come from the npm registry)",
            "install it with `sudo apt-get install npm` (Debian/Ubuntu)",
        )
    out = tmp_path_factory.mktemp("site") / "html"
    t0 = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_site.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"the site build failed:\n{result.stdout}{result.stderr}"
    print(f"site built in {time.monotonic() - t0:.1f} s")
    return out


@pytest.fixture(scope="module")
def server(site):
    """A static file server for the site on a free port of 127.0.0.1; yields its base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class Reader:
    """One headless Chromium whose pages may fetch only from this machine."""

    def __init__(self, state_dir: Path):
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        try:
            self.browser = self._pw.chromium.launch(
                executable_path=_chromium(),
                headless=True,
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--no-first-run",
                ],
            )
        except BaseException:
            self._pw.stop()
            raise
        self.context = self.browser.new_context(viewport={"width": 1300, "height": 900})
        self.blocked: list[str] = []
        self.context.route("**/*", self._only_local)

    def _only_local(self, route):
        url = route.request.url
        host = urlsplit(url).hostname or ""
        if url.startswith(LOCAL_SCHEMES) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")

    def open(self, url: str):
        """A new page at `url`, loaded, its maths typeset; returns (page, script errors)."""
        page = self.context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url, wait_until="load", timeout=60_000)
        # MathJax typesets after load; its startup promise settles when the page is done
        page.evaluate("""async () => {
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
        }""")
        return page, errors

    def close(self):
        try:
            self.browser.close()
        finally:
            self._pw.stop()


@pytest.fixture(scope="module")
def reader(tmp_path_factory, site):
    r = Reader(tmp_path_factory.mktemp("chromium"))
    try:
        yield r
    finally:
        r.close()


# -- what a page must show ---------------------------------------------------------------


def raw_maths(page) -> list[str]:
    """Bits of unrendered TeX in the page's text (code blocks and outputs left out)."""
    text = page.evaluate("""() => {
        const body = document.querySelector('main') || document.body;
        const copy = body.cloneNode(true);
        copy.querySelectorAll('pre, code, script, style, mjx-container, .output, .cell_output')
            .forEach(e => e.remove());
        return copy.innerText;
    }""")
    return [
        text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ") for m in re.finditer(r"\$\$|\\\(|\\\[", text)
    ][:5]


def broken_images(page) -> list[str]:
    """Images that did not load (naturalWidth 0), after making lazy ones load."""
    return page.evaluate("""async () => {
        const imgs = Array.from(document.images);
        imgs.forEach(i => { i.loading = 'eager'; });
        await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
            i.addEventListener('load', r); i.addEventListener('error', r); setTimeout(r, 10000); })));
        return imgs.filter(i => i.naturalWidth === 0).map(i => (i.getAttribute('src') || '').slice(0, 80));
    }""")


@functools.cache
def _ids(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r"""\bid=["']([^"']+)["']""", path.read_text(encoding="utf-8", errors="replace")))


def broken_links(page, site: Path, base: str) -> list[str]:
    """Links inside the site that name no file, or an #anchor that is not on the target page."""
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    problems = []
    for href in sorted(set(hrefs)):
        if not href.startswith(base):
            continue  # the web, mailto:...: not the site's business
        parts = urlsplit(href)
        rel = (
            unquote(parts.path[len(urlsplit(base).path) :].lstrip("/"))
            if base.startswith("file:")
            else unquote(parts.path).lstrip("/")
        )
        target = site / rel
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"{href}: no such file in the site")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target):
            problems.append(f"{href}: no element with id {parts.fragment!r} on {target.relative_to(site)}")
    return problems


def check_page(reader: Reader, site: Path, base: str, rel: str, sliders: int = 0) -> list[str]:
    """Every problem a reader would see on the page site/rel, opened from `base`."""
    page, errors = reader.open(f"{base}/{rel}")
    try:
        problems = [f"raw maths: ...{m}..." for m in raw_maths(page)]
        untypeset = page.evaluate("""() => Array.from(document.querySelectorAll('.math'))
            .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60))""")
        problems += [f"maths not typeset by MathJax: {tex!r}" for tex in untypeset[:5]]
        problems += [f"broken image: {src}" for src in broken_images(page)]
        problems += broken_links(page, site, base)
        if sliders:
            try:
                page.locator(".widget-slider").first.wait_for(state="visible", timeout=20_000)
            except Exception:
                problems.append(f"the notebook stores {sliders} slider(s) but the page shows none")
        problems += [f"script error: {e}" for e in errors]
        return problems
    finally:
        page.close()


# -- the tests ------------------------------------------------------------------------------


def test_every_notebook_has_a_page(site):
    for path in NOTEBOOKS:
        page = site / "notebooks" / f"{path.stem}.html"
        assert page.is_file(), f"no page for {path.name} in the site"
        title = json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"]
        title = ("".join(title) if isinstance(title, list) else title).splitlines()[0].lstrip("# ").strip()
        title = title.split(" · ", 1)[-1].replace("'", "’")  # Sphinx's smart quotes curl a typed apostrophe
        assert title in html.unescape(page.read_text(encoding="utf-8")), f"{page.name} lacks its title"
    assert (site / "index.html").is_file() and (site / "README.html").is_file()


@pytest.mark.parametrize(
    "rel",
    ["README.html"] + [f"notebooks/{p.stem}.html" for p in NOTEBOOKS],
    ids=lambda rel: Path(rel).stem[:2] if rel.startswith("notebooks") else "home",
)
def test_page_shows_maths_images_links_and_sliders(reader, site, server, rel):
    sliders = _stored_sliders(ROOT / "notebooks" / f"{Path(rel).stem}.ipynb") if rel.startswith("notebooks") else 0
    problems = check_page(reader, site, server, rel, sliders)
    assert not problems, f"{rel}:\n  " + "\n  ".join(problems)
    assert not reader.blocked, f"pages asked the web for: {sorted(set(reader.blocked))[:10]}"


def test_removed_cells_are_not_on_the_site(site):
    for path in NOTEBOOKS:
        html = (site / "notebooks" / f"{path.stem}.html").read_text(encoding="utf-8")
        for line in _removed_sources(path):
            assert line not in html, f"{path.name}: a cell tagged remove-cell reached the site: {line!r}"


def test_search_finds_a_word(reader, server):
    page, errors = reader.open(f"{server}/search.html?q=softmax")
    try:
        page.locator("#search-results ul li").first.wait_for(state="attached", timeout=20_000)
        found = page.locator("#search-results ul li").count()
        assert found >= 2, f"the search for 'softmax' found {found} page(s)"
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("rel", ["README.html", "notebooks/01-softmax-and-its-derivative.html"])
def test_works_from_file_urls(reader, site, rel):
    """Opened straight from disk, with no server: maths, images, links and widgets still work."""
    base = site.as_uri()
    sliders = _stored_sliders(ROOT / "notebooks" / f"{Path(rel).stem}.ipynb") if rel.startswith("notebooks") else 0
    problems = check_page(reader, site, base, rel, sliders)
    assert not problems, f"{rel} from file://:\n  " + "\n  ".join(problems)
    assert not reader.blocked, f"pages asked the web for: {sorted(set(reader.blocked))[:10]}"


def test_configuration_on_a_small_series(tmp_path):
    """site/conf.py on a made-up series: a cell tagged remove-cell is left out, a figure stored as an
    attachment is shown, and a link to a heading written as JupyterLab writes it resolves."""
    try:
        import myst_nb  # noqa: F401
        import nbformat
    except ImportError as e:
        _missing(
            f"the Python package {e.name} is missing",
            "install the test tools: `.venv/bin/pip install -r requirements-dev.txt`",
        )
    src = tmp_path / "src"
    (src / "notebooks").mkdir(parents=True)
    (src / "README.md").write_text("# Demo\n\nRead [the section](notebooks/01-a.ipynb#a-section).\n", encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    figure = nbformat.v4.new_markdown_cell(
        "![A small square](attachment:square.svg)\n\nBack to [the section](#A-section)."
    )
    figure.attachments = {
        "square.svg": {
            "image/svg+xml": "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI0IiBoZWlnaHQ9IjQiLz4="
        }
    }
    hidden = nbformat.v4.new_code_cell("SCAFFOLDING_ONLY = 'for the tests'", execution_count=1)
    hidden.metadata["tags"] = ["remove-cell"]
    shown = nbformat.v4.new_code_cell("print('shown')", execution_count=2)
    shown.outputs = [nbformat.v4.new_output("stream", name="stdout", text="shown\n")]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 01 · A"),
        figure,
        hidden,
        nbformat.v4.new_markdown_cell("## A section\n\nText."),
        shown,
    ]
    nbformat.write(nb, src / "notebooks" / "01-a.ipynb")
    static = tmp_path / "static"
    static.mkdir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-c",
            str(ROOT / "site"),
            "-q",
            "-W",
            "--keep-going",
            str(src),
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, RNN_SITE_STATIC=str(static)),
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    page = (tmp_path / "out" / "notebooks" / "01-a.html").read_text(encoding="utf-8")
    assert "SCAFFOLDING_ONLY" not in page
    assert 'src="data:image/svg+xml;base64,PHN2Zy' in page and 'alt="A small square"' in page
    assert 'href="#a-section"' in page and 'id="a-section"' in page
    home = (tmp_path / "out" / "README.html").read_text(encoding="utf-8")
    assert 'href="notebooks/01-a.html#a-section"' in home
    assert 'href="notebooks/01-a.html"' in home or "notebooks/01-a.html" in home  # the sidebar
