"""The static site: built by tools/build_site.py as the README says, then read in Chromium.

The sliders' positions are computed from copies of the notebooks with the browser test's short runs
(``--slider-notebooks``, tests/browser/quick_parameters.py), which changes the figures at the
positions, not the pages or what the test checks of them.

The site is built into a temporary folder (tests/site/site_build.py: in the default command, in the
background from the start of the run) and served from 127.0.0.1; headless Chromium (Debian's
build, driven by Playwright) opens every page with every request that leaves this machine
blocked, so anything a page would fetch from the web counts as a failure. Every page is read on
a laptop (1300 px) and a phone (375 px, touch and no hover); the home page and 01's also on a tablet
(900 px), which differs from the phone by the theme's layout alone (TABLET_PAGES).

On every screen a page is read on: the sidebar opens from the button a reader sees (and the
"Contents" one, where it is shown; at 1300 px, where the button folds the sidebar away, on the home
page), the page does not scroll sideways as a whole, every display
equation fits its column or scrolls with a shadow at the edge that is cut off (so does code), every
code cell has a copy button (always shown where nothing can hover), every slider cell shows its
sliders (or, for one that trains, a sentence saying what it does) and no page says that sliders
appear when a cell runs, and no script fails. "Sideways" is measured against the page's
``clientWidth``: a phone's emulation stretches ``innerWidth`` to the content. At 1300 px also: the
maths is typeset (no raw ``$$``, ``$...$``, ``\\(`` or ``\\[`` left), no image is broken and every
one has alt text that says something, every link inside the site resolves (to a file, and to an
element when it names an #anchor), and a code cell whose lines fit 88 characters does not scroll.
On a page with sliders, at 1300 and at 375 px, each slider moved then changes its readout and its figure or
text, whose images load. That is done on the page already read: loading the page again for its sliders, 20
loads, cost the site test alone about 120 CPU-seconds of Chromium (226 and 246 against 359 when measured, the
test 213 and 237 s against 325 s). Then: every notebook has its page; the series' archive is
there, holds what a reader needs and nothing else, and every page links it; the metadata (one
viewport tag, a description, Open Graph tags, a favicon, the home page's title once); the 404
page; search finds pages and its excerpts hold no TeX or theme menus, over http and from file://;
the copy button copies on a phone; printing shows every line of code; cells tagged
``remove-cell`` are absent; the home page and one notebook page also work from file://.

Needs Chromium, Playwright, the site tools (requirements-site.txt) and npm; without them the test
is skipped with a message (it fails instead when the CI environment variable is set).
Deselect with ``-m "not site"``.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from site_build import chromium as _chromium

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
PAGES = ["README.html"] + [f"notebooks/{p.stem}.html" for p in NOTEBOOKS]
LOCAL_SCHEMES = ("data:", "blob:", "about:", "file:")
ARCHIVE = "rnn-from-scratch.zip"
# the screens: a laptop, a tablet (below 992 px the sidebars are dialogs), a phone (touch, no hover)
SCREENS = {
    1300: {"viewport": {"width": 1300, "height": 900}},
    900: {"viewport": {"width": 900, "height": 1000}},
    375: {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True},
}
CODE_COLUMN = 88  # characters of code the column holds at 1300 px (the notebooks' line length)
# The tablet differs from the phone by the theme's layout alone (below 992 px both have the sidebars as
# dialogs, and a page's own content, narrower on the phone, is checked there): it is read on these pages
TABLET_PAGES = ("README.html", "notebooks/01-softmax-and-its-derivative.html")


def _missing(what: str, how: str):
    message = f"{what}; {how}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _widget_cells(path: Path) -> tuple[int, int]:
    """(slider cells the site moves, widget cells it cannot: one that trains) of a stored notebook:
    the cells whose stored outputs hold the widgets' note that running the cell brings them."""
    nb = nbformat.read(path, as_version=4)
    moved = fixed = 0
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/plain", "")
            if re.match(r"The sliders\b.* appears? when this cell runs", text):
                fixed, moved = (fixed + 1, moved) if "Train" in text else (fixed, moved + 1)
                break
    return moved, fixed


def _sliders_on(rel: str) -> tuple[int, int]:
    return _widget_cells(ROOT / "notebooks" / f"{Path(rel).stem}.ipynb") if rel.startswith("notebooks") else (0, 0)


def _removed_sources(path: Path) -> list[str]:
    """The longest line of each cell tagged remove-cell: text that must not reach the site."""
    nb = nbformat.read(path, as_version=4)
    lines = []
    for cell in nb["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            src = cell["source"]
            longest = max((line.strip() for line in src.splitlines()), key=len, default="")
            if len(longest) >= 12:
                lines.append(longest)
    return lines


def _page_id(rel: str) -> str:
    return Path(rel).stem[:2] if rel.startswith("notebooks") else "home"


def _build_site_module():
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- building and serving ------------------------------------------------------------------


class Reader:
    """One headless Chromium, a browser context per screen, whose pages may fetch only from this machine."""

    def __init__(self):
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
        self.blocked: list[str] = []
        self._contexts = {}

    def context(self, width: int):
        if width not in self._contexts:
            context = self.browser.new_context(**SCREENS[width])
            context.route("**/*", self._only_local)
            self._contexts[width] = context
        return self._contexts[width]

    def _only_local(self, route):
        url = route.request.url
        host = urlsplit(url).hostname or ""
        if url.startswith(LOCAL_SCHEMES) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("blockedbyclient")

    def start(self, url: str, width: int = 1300):
        """A new page on the screen `width` px wide, on its way to `url` (pages started one after
        another load side by side); returns (page, script errors)."""
        page = self.context(width).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url, wait_until="commit", timeout=60_000)
        return page, errors

    @staticmethod
    def settle(page):
        """Wait until the page has loaded and MathJax has typeset it (its startup promise settles
        when the page is done)."""
        page.wait_for_load_state("load", timeout=60_000)
        page.evaluate("""async () => {
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
        }""")

    def open(self, url: str, width: int = 1300):
        """A new page at `url` on the screen `width` px wide, loaded, its maths typeset; returns
        (page, script errors)."""
        page, errors = self.start(url, width)
        self.settle(page)
        return page, errors

    def close(self):
        try:
            self.browser.close()
        finally:
            self._pw.stop()


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
    # $$, \( or \[, or $...$ around something that is not a space (a price would be "$5", alone),
    # or a TeX subscript in braces written as text (h_{t+1})
    raw = r"\$\$|\\\(|\\\[|\$[^\s$][^$\n]{0,200}?\$|[A-Za-z]_\{"
    return [text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ") for m in re.finditer(raw, text)][:5]


def broken_images(page) -> list[str]:
    """Images that did not load (naturalWidth 0), after making lazy ones load."""
    return page.evaluate("""async () => {
        const imgs = Array.from(document.images);
        imgs.forEach(i => { i.loading = 'eager'; });
        await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
            i.addEventListener('load', r); i.addEventListener('error', r); setTimeout(r, 10000); })));
        return imgs.filter(i => i.naturalWidth === 0).map(i => (i.getAttribute('src') || '').slice(0, 80));
    }""")


def images_without_alt(page) -> list[str]:
    """Images in the article whose alt text is missing or is a file name (``../_images/008b91….png``)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.bd-article img'))
        .filter(i => { const alt = (i.getAttribute('alt') || '').trim();
                       return alt.length < 8 || /\\.(png|svg|jpe?g|gif)$/i.test(alt) || /[0-9a-f]{32}/.test(alt); })
        .map(i => `${(i.getAttribute('src') || '').slice(0, 60)} (alt: ${JSON.stringify(i.getAttribute('alt'))})`)""")


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


# What a reader sees cut off or missing on a screen of any width (run in the page).
LAYOUT_JS = r"""(touch) => {
    const problems = [];
    const signed = e => { const c = getComputedStyle(e);
        return ['auto', 'scroll'].includes(c.overflowX) && c.backgroundImage.includes('gradient'); };
    const first = e => (e.textContent || '').trim().split('\n')[0].slice(0, 60);
    const width = document.documentElement.scrollWidth;
    const screen = document.documentElement.clientWidth;  // innerWidth grows with the content on a phone
    if (width > screen + 1) {
        const wide = Array.from(document.querySelectorAll('.bd-page-width *'))
            .filter(e => e.getBoundingClientRect().right > screen + 1).slice(-3)
            .map(e => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]}`);
        problems.push(`the page scrolls sideways: ${width} px wide on a ${screen} px screen (${wide.join(', ')})`);
    }
    if (/appears? when this cell runs/.test(document.body.innerText))
        problems.push('the page says sliders appear when a cell runs, which a static page cannot do');
    document.querySelectorAll('mjx-container[display="true"]').forEach(m => {
        if (m.scrollWidth > m.clientWidth + 1 && !signed(m))
            problems.push(`an equation is cut off with no sign that it scrolls: ${first(m)}`);
    });
    document.querySelectorAll('.bd-article div.highlight pre').forEach(pre => {
        if (pre.scrollWidth > pre.clientWidth + 1 && !signed(pre))
            problems.push(`code is cut off with no sign that it scrolls: ${first(pre)}`);
    });
    document.querySelectorAll('.cell_input div.highlight').forEach(cell => {
        const button = cell.querySelector('button.copybtn');
        if (!button) problems.push(`a code cell without a copy button: ${first(cell)}`);
        else if (touch && getComputedStyle(button).opacity !== '1')
            problems.push(`a code cell's copy button is hidden on a touch screen: ${first(cell)}`);
    });
    return problems;
}"""

# Code whose lines all fit CODE_COLUMN characters but scrolls anyway (run in the page): the code
# cells, and the code of the answers, whose dropdowns it opens first.
CUT_CODE_JS = r"""(column) => {
    document.querySelectorAll('.bd-article details').forEach(d => { d.open = true; });
    return Array.from(document.querySelectorAll('.cell_input div.highlight pre, details div.highlight pre'))
        .filter(pre => Math.max(...pre.textContent.split('\n').map(l => l.length)) <= column)
        .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
        .map(pre => `${pre.textContent.trim().split('\n')[0].slice(0, 50)} `
            + `(${pre.scrollWidth} px in ${pre.clientWidth})`);
}"""


def sidebar_problems(page, width: int) -> list[str]:
    """The sidebar, and the page's contents where a button stands for them, open from the buttons a
    reader sees (below 992 px as dialogs; on a wide screen the button folds the sidebar away)."""
    problems = []
    primary = page.locator(".primary-toggle:visible")
    if primary.count() != 1:
        return [f"{primary.count()} visible buttons for the sidebar (one expected)"]
    if width >= 992:
        sidebar = "document.getElementById('pst-primary-sidebar').getBoundingClientRect()"
        primary.click()
        try:
            page.wait_for_function(f"() => {sidebar}.right <= 0", timeout=5000)
        except Exception:
            problems.append("the sidebar button did not fold the sidebar away")
        primary.click()
        try:
            page.wait_for_function(f"() => {sidebar}.left >= 0", timeout=5000)
        except Exception:
            problems.append("the sidebar button did not bring the sidebar back")
        return problems
    for button, dialog, what in (
        (primary, "pst-primary-sidebar-modal", "a link to the home page"),
        (page.locator(".secondary-toggle:visible"), "pst-secondary-sidebar-modal", "the page's contents"),
    ):
        if button.count() == 0 and dialog == "pst-secondary-sidebar-modal":
            continue  # a page without sections has no contents button
        button.first.click()
        try:
            page.wait_for_function(
                f"""() => {{ const d = document.getElementById('{dialog}');
                    return d && d.open
                        && Array.from(d.querySelectorAll('a')).some(a => a.getBoundingClientRect().width > 0); }}""",
                timeout=5000,
            )
        except Exception:
            problems.append(f"its button did not open a dialog showing {what} (#{dialog})")
        page.keyboard.press("Escape")
        page.wait_for_function(f"() => !document.getElementById('{dialog}').open", timeout=5000)
    return problems


# Punctuation right after inline maths (span.math, then a text node) that the browser put on the
# next line (site/mathjax-config.js glues them; maths broken over lines by MathJax is left out)
ORPHANS_JS = r"""() => {
  const found = [];
  document.querySelectorAll('.bd-article span.math').forEach(math => {
    const next = math.nextSibling;
    if (!next || next.nodeType !== 3 || !/^[.,;:!?]/.test(next.data) || math.getClientRects().length !== 1) return;
    const range = document.createRange();
    range.setStart(next, 0);
    range.setEnd(next, 1);
    const mark = range.getBoundingClientRect(), box = math.getBoundingClientRect();
    if (mark.height && mark.top > box.top + box.height / 2) found.push(next.data.slice(0, 30).replace(/\s+/g, ' '));
  });
  return found.slice(0, 5);
}"""


def _seen(page, box: int, slider: int) -> dict:
    return page.evaluate(
        """([box, slider]) => {
            const cell = document.querySelectorAll('.rnn-sliders')[box];
            const input = cell.querySelectorAll('input[type=range]')[slider];
            const view = cell.querySelector('.rnn-sliders-view');
            return {view: view.innerHTML, value: input.value, max: input.max,
                    readout: cell.querySelector(`output[for="${input.id}"]`).textContent};
        }""",
        [box, slider],
    )


# the screens on which a page's sliders are moved: a laptop and a phone
SLIDER_SCREENS = (1300, 375)


def move_sliders(page, width: int) -> list[str]:
    """Every slider of the page, moved to its other end, changes its readout and what the cell
    shows (a figure or text), and the figures shown load; on a phone too, where the page still
    does not scroll sideways. Returns the problems found."""
    problems = []
    boxes = page.locator(".rnn-sliders")
    for box in range(boxes.count()):
        inputs = boxes.nth(box).locator("input[type=range]")
        for slider in range(inputs.count()):
            before = _seen(page, box, slider)
            inputs.nth(slider).scroll_into_view_if_needed()
            inputs.nth(slider).focus()
            page.keyboard.press("Home" if before["value"] == before["max"] else "End")
            after = _seen(page, box, slider)
            where = f"slider cell {box + 1}, slider {slider + 1}"
            if after["value"] == before["value"]:
                problems.append(f"{where}: the key did not move the slider")
            elif after["readout"] == before["readout"]:
                problems.append(f"{where}: the readout stayed {before['readout']!r}")
            elif after["view"] == before["view"]:
                problems.append(f"{where}: moved to {after['readout']}, the cell shows the same as before")
    problems += [f"a slider's figure did not load: {src}" for src in broken_images(page)]
    problems += [p for p in page.evaluate(LAYOUT_JS, width < 992) if "sideways" in p]
    return problems


def check_page(
    reader: Reader, site: Path, base: str, rel: str, sliders=(0, 0), width: int = 1300, started=None
) -> list[str]:
    """Every problem a reader would see on the page site/rel, opened from `base` on a screen `width`
    px wide (or already on its way there: `started`, from reader.start); on a page with sliders, on
    the SLIDER_SCREENS, then every slider moved (move_sliders), on the page already loaded."""
    page, errors = started or reader.start(f"{base}/{rel}", width)
    try:
        reader.settle(page)
        problems = []
        moved, fixed = sliders
        shown = page.locator(".rnn-sliders:has(input[type=range])").count()
        if shown != moved:
            problems.append(f"the notebook has {moved} slider cell(s) but the page shows {shown} with sliders")
        if page.locator(".rnn-sliders-static").count() != fixed:
            problems.append(f"{fixed} widget cell(s) that train, but not as many sentences saying what they do")
        if width == 1300:
            problems += [f"raw maths: ...{m}..." for m in raw_maths(page)]
            untypeset = page.evaluate("""() => Array.from(document.querySelectorAll('.math'))
                .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60))""")
            problems += [f"maths not typeset by MathJax: {tex!r}" for tex in untypeset[:5]]
            problems += [f"broken image: {src}" for src in broken_images(page)]
            problems += [f"an image without alt text that says what it shows: {i}" for i in images_without_alt(page)]
            problems += broken_links(page, site, base)
            cut = page.evaluate(CUT_CODE_JS, CODE_COLUMN)
            problems += [f"code that fits {CODE_COLUMN} characters scrolls: {c}" for c in cut]
        problems += page.evaluate(LAYOUT_JS, bool(SCREENS[width].get("has_touch")))
        if width < 576:  # a phone: no line begins with the punctuation that follows inline maths
            problems += [f"a line begins with the punctuation after maths: {t!r}" for t in page.evaluate(ORPHANS_JS)]
        # below 992 px on every page; on a wide screen, where it is the theme's own, on the home page
        if not base.startswith("file:") and (width < 992 or rel == "README.html"):
            problems += sidebar_problems(page, width)
        if moved and width in SLIDER_SCREENS:
            problems += move_sliders(page, width)
        problems += [f"script error: {e}" for e in errors]
        return problems
    finally:
        page.close()


# -- the tests ------------------------------------------------------------------------------


def test_every_notebook_has_a_page(site):
    for path in NOTEBOOKS:
        page = site / "notebooks" / f"{path.stem}.html"
        assert page.is_file(), f"no page for {path.name} in the site"
        title = nbformat.read(path, as_version=4)["cells"][0]["source"]
        title = title.splitlines()[0].lstrip("# ").strip()
        title = title.split(" · ", 1)[-1].replace("'", "’")  # Sphinx's smart quotes curl a typed apostrophe
        assert title in html.unescape(page.read_text(encoding="utf-8")), f"{page.name} lacks its title"
    assert (site / "index.html").is_file() and (site / "README.html").is_file()


def test_removed_cells_are_not_on_the_site(site):
    for path in NOTEBOOKS:
        html = (site / "notebooks" / f"{path.stem}.html").read_text(encoding="utf-8")
        for line in _removed_sources(path):
            assert line not in html, f"{path.name}: a cell tagged remove-cell reached the site: {line!r}"


def test_the_series_is_a_download_from_every_page(site):
    """rnn-from-scratch.zip holds the repository as a clone has it, in a folder rnn-from-scratch/,
    and the home page and every notebook page link it."""
    archive = site / ARCHIVE
    assert archive.is_file(), f"the site has no {ARCHIVE}"
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        run = z.getinfo("rnn-from-scratch/.ci/run")
    assert all(n.startswith("rnn-from-scratch/") for n in names), "everything sits in the folder rnn-from-scratch/"
    files = {n.removeprefix("rnn-from-scratch/") for n in names}
    assert files == set(_build_site_module().archive_files(ROOT)), "the archive is not what git tracks"
    for needed in ("README.md", "LICENSE", "LICENSE-CC-BY-4.0.txt", "pyproject.toml", "requirements.txt"):
        assert needed in files, f"{ARCHIVE} lacks {needed}"
    assert {f"notebooks/{p.name}" for p in NOTEBOOKS} <= files and "rnn_core/__init__.py" in files
    unwanted = re.compile(r"^(data|build|checkpoints|\.venv)/|(^|/)(node_modules|__pycache__|\.ipynb_checkpoints)/")
    assert not [f for f in files if unwanted.search(f)], "caches, the novel or build output in the archive"
    assert (run.external_attr >> 16) & 0o111, ".ci/run lost its executable bit"
    for rel in PAGES:
        page = (site / rel).read_text(encoding="utf-8")
        links = {urlsplit(h).path for h in re.findall(r'href="([^"]*rnn-from-scratch\.zip)"', page)}
        assert links, f"{rel} does not link {ARCHIVE}"
        for link in links:
            assert ((site / rel).parent / link).resolve() == archive.resolve(), f"{rel}: {link} is not the archive"


def test_metadata(site):
    """One viewport tag, a description and Open Graph tags, a favicon, and the home page's title once."""
    for rel in PAGES + ["404.html"]:
        page = (site / rel).read_text(encoding="utf-8")
        assert len(re.findall(r'<meta name="viewport"', page)) == 1, f"{rel}: not one viewport tag"
        icon = re.search(r'<link rel="icon" href="([^"]+)"', page)
        assert icon and ((site / rel).parent / icon.group(1)).is_file() or rel == "404.html", f"{rel}: no favicon"
        if rel == "404.html":
            continue
        description = re.search(r'<meta name="description" content="([^"]{40,})"', page)
        assert description, f"{rel}: no description"
        for tag in ("og:title", "og:description", "og:type", "og:site_name"):
            assert f'property="{tag}"' in page, f"{rel}: no {tag}"
        url = re.search(r'property="og:url" content="([^"]*)"', page)
        assert url is None or url.group(1).startswith("http"), f"{rel}: og:url is not an address"
    home = (site / "README.html").read_text(encoding="utf-8")
    assert re.search(r"<title>\s*rnn-from-scratch\s*</title>", home), "the home page's title is not the name once"


def test_404_page(reader, server):
    """A missing page shows the site's 404 page, styled, with a way home that works."""
    failed = []
    page = reader.context(1300).new_page()
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("pageerror", lambda e: failed.append(str(e)))
    missing = f"{server}/notebooks/no-such-page.html"
    try:
        assert page.goto(missing, wait_until="load").status == 404
        assert failed == [f"404 {missing}"], f"besides the page itself, these failed: {failed[1:]}"
        assert "Page not found" in page.inner_text("main")
        styled = page.evaluate("""() => Array.from(document.styleSheets)
            .some(s => (s.href || '').includes('pydata-sphinx-theme'))""")
        assert styled, "the 404 page's stylesheets did not load"
        home = page.locator("main a", has_text="home page")
        home.click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/README.html") and page.title() == "rnn-from-scratch"
        assert not reader.blocked, f"the 404 page asked the web for: {sorted(set(reader.blocked))[:10]}"
    finally:
        page.close()


@pytest.mark.parametrize("where", ["http", "file"])
def test_search_finds_pages_and_shows_plain_excerpts(reader, site, server, where):
    """Search finds pages, and under each a few lines of it: never raw TeX or the theme's menus,
    over http and from file:// (where the browser refuses the fetch Sphinx's search makes)."""
    base = server if where == "http" else site.as_uri()
    page, errors = reader.open(f"{base}/search.html?q=gradient")
    try:
        page.wait_for_function(
            """() => /Search finished/
                .test((document.querySelector('#search-results .search-summary') || {}).innerText || '')""",
            timeout=20_000,
        )
        page.wait_for_function(
            """() => { const items = document.querySelectorAll('#search-results ul.search li');
                return items.length > 0 && Array.from(items).every(li => li.querySelector('p.context')); }""",
            timeout=20_000,
        )
        excerpts = page.locator("#search-results ul.search li p.context").all_inner_texts()
        assert len(excerpts) >= 5, f"the search for 'gradient' found {len(excerpts)} page(s) with an excerpt"
        for text in excerpts:
            assert not re.search(r"\\[A-Za-z]+|\\[()\[\]]", text), f"raw TeX in a search excerpt: {text!r}"
            menus = re.search(r"System Settings|Light\s+Dark|Toggle primary sidebar", text)
            assert not menus, f"the theme's menus in a search excerpt: {text!r}"
        assert any(re.search(r"[ŷ∇∂⊙∑]", t) for t in excerpts), "no maths (as text) in any excerpt of 'gradient'"
        assert not errors, errors
        assert not reader.blocked, f"the search asked the web for: {sorted(set(reader.blocked))[:10]}"
    finally:
        page.close()


def test_copy_button_copies_on_a_phone(reader, server):
    page, errors = reader.open(f"{server}/notebooks/01-softmax-and-its-derivative.html", 375)
    try:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        cell = page.locator(".cell_input div.highlight").nth(1)
        cell.scroll_into_view_if_needed()
        cell.locator("button.copybtn").tap()
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied.strip() == cell.locator("pre").inner_text().strip()
        assert not errors, errors
    finally:
        page.close()


def test_the_series_map_reads_as_cards_on_a_phone(reader, server):
    """00's map has six columns: on a phone each notebook is a card, its cells one under another and
    each named by its column and its text on the same line, and nothing of it scrolls sideways (as a
    table it scrolled sideways and was about 6,600 px tall at 375 px; as cards, about 5,400)."""
    page, errors = reader.open(f"{server}/notebooks/00-start-here.html", 375)
    try:
        found = page.evaluate("""() => {
            const t = document.querySelector('.bd-article table.rnn-cards');
            if (!t) return null;
            const row = t.querySelector('tbody tr'), box = t.closest('.pst-scrollable-table-container') || t;
            return {rows: t.querySelectorAll('tbody tr').length, height: t.getBoundingClientRect().height,
                    scrolls: box.scrollWidth > box.clientWidth + 1, header: getComputedStyle(t.tHead).display,
                    label: getComputedStyle(row.cells[2], '::before').content};
        }""")
        assert found is not None, "00's map is not laid out as cards (figures.js did not find it)"
        assert found["header"] == "none" and not found["scrolls"], found
        assert found["label"] == '"Reading: "', f"a card's cell is not named by its column: {found['label']}"
        assert found["height"] < 450 * found["rows"], f"{found['height']:.0f} px for {found['rows']} cards"
        assert not errors, errors
    finally:
        page.close()


def test_printing_shows_every_line_of_code(reader, server):
    """Printed (or saved as PDF), a code cell or an output wider than the page wraps rather than
    losing what is past the edge."""
    page, errors = reader.open(f"{server}/notebooks/01-softmax-and-its-derivative.html")
    try:
        page.emulate_media(media="print")
        cut = page.evaluate("""() => Array.from(document.querySelectorAll('.bd-article pre'))
            .filter(pre => pre.scrollWidth > pre.clientWidth + 1).map(pre => pre.textContent.slice(0, 60))""")
        assert not cut, f"printed, these are cut off: {cut[:5]}"
    finally:
        page.close()


@pytest.mark.parametrize("rel", ["README.html", "notebooks/01-softmax-and-its-derivative.html"])
def test_works_from_file_urls(reader, site, rel):
    """Opened straight from disk, with no server: maths, images, links and widgets still work."""
    problems = check_page(reader, site, site.as_uri(), rel, _sliders_on(rel))
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
