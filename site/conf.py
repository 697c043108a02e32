"""Sphinx configuration of the series' static site (built by tools/build_site.py, which says how).

The sources are the repository itself: README.md is the home page, every notebooks/NN-*.ipynb a
page, in the order of their numbers. Notebooks are rendered from their committed outputs (MyST-NB,
no execution). Everything a page loads is served from the site: MathJax is copied from
site/node_modules by the build script (the folder named by $RNN_SITE_STATIC), so the site works
offline, from file:// or from any static server.

What the site adds to Sphinx and the Jupyter Book theme (site/rnn_site.py, site/rnn_sliders.py,
site/_static/site.css and sliders.js, site/_templates):
- sliders that work without a kernel: the positions the build computed ($RNN_SITE_SLIDERS, a JSON
  file; their figures in the static folder's sliders/), switched between by sliders.js;
- the series as a download: the archive the build script makes ($RNN_SITE_ARCHIVE), linked from
  the home page, the sidebar, every page's download menu and every notebook's glance line;
- pages that work on a phone: long equations are broken into lines, inline code breaks rather than
  widen the page, code scrolls with a shadow at the edge that is cut off, and the column holds 88
  characters of code at 1300 px; no header bar (the theme's empty one, with a second search field
  at 992 px and wider: sphinx-book-theme#986);
- a copy button on code, a 404 page, search excerpts without TeX or the theme's menus (also from
  file://), a description and Open Graph tags on every page, a favicon, alt text on every figure.
$RNN_SITE_URL, when set, is the address the site will be published at (og:url, and the 404
page's links); without it the 404 page assumes the site is served at the root of its host.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(Path(__file__).resolve().parent), str(ROOT / "tools")]
import nbnav  # noqa: E402, I001  (the notebooks' descriptions, as the README's contents give them)
import rnn_site  # noqa: E402

STATIC = Path(os.environ.get("RNN_SITE_STATIC", ROOT / "build" / ".site-work" / "static"))
ARCHIVE = Path(os.environ["RNN_SITE_ARCHIVE"]) if os.environ.get("RNN_SITE_ARCHIVE") else None
SLIDERS = Path(os.environ["RNN_SITE_SLIDERS"]) if os.environ.get("RNN_SITE_SLIDERS") else None
SLIDER_POSITIONS = json.loads(SLIDERS.read_text(encoding="utf-8")) if SLIDERS and SLIDERS.is_file() else None
SITE_URL = os.environ.get("RNN_SITE_URL", "")
if SITE_URL and not SITE_URL.endswith("/"):
    SITE_URL += "/"

project = "rnn-from-scratch"
author = "the rnn-from-scratch authors"
copyright = "rnn-from-scratch; code MIT, prose and figures CC BY 4.0"

extensions = ["myst_nb", "sphinx_copybutton", "notfound.extension", "sphinxext.opengraph"]
root_doc = "README"
include_patterns = ["README.md", "notebooks/[0-9][0-9]-*.ipynb"]
exclude_patterns = ["build", "site", ".venv", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

# notebooks: the committed outputs, never executed; remove-cell and friends honoured
nb_execution_mode = "off"
nb_output_stderr = "show"
nb_merge_streams = True

# Markdown as the notebooks write it: $...$ and $$...$$ maths, aligned environments, and web
# addresses written out (09's references) as links; only those with http(s):// or www.,
# never a file name such as plots.py (.py is a country's domain)
myst_enable_extensions = ["dollarmath", "amsmath", "linkify"]
myst_linkify_fuzzy_links = False
myst_dmath_double_inline = True
myst_heading_anchors = 4  # links to headings (README.md#browser-test, 05-...ipynb#the-errata-table)

# served from the site itself: the npm packages (copied by tools/build_site.py) and site/_static
html_static_path = [str(STATIC), "_static"]
html_css_files = ["site.css"]
html_js_files = ["sliders.js", "figures.js"]
html_favicon = "_static/favicon.svg"
html_extra_path = [str(ARCHIVE.parent)] if ARCHIVE and ARCHIVE.is_file() else []
mathjax_path = "mathjax/tex-mml-chtml.js"
mathjax_config_path = "mathjax-config.js"  # MathJax's configuration (it holds functions, so a script)
myst_update_mathjax = False  # which elements MathJax reads is set in that script
nb_ipywidgets_js = {}  # no widget manager: no notebook stores a widget (sliders.js draws the sliders)

html_theme = "sphinx_book_theme"
html_title = "rnn-from-scratch"
html_theme_options = {
    "home_page_in_toc": True,
    "use_download_button": True,  # the page's source: the notebook itself, to run locally
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    # no header bar: at 992 px and wider the theme draws an empty one with a second search field
    # (sphinx-book-theme#986); the sidebar keeps its own search and buttons
    "navbar_persistent": [],
}
# the book theme's sidebar, with the series' download above the table of contents
html_sidebars = {
    "**": [
        "navbar-logo.html",
        "icon-links.html",
        "search-button-field.html",
        "download-series.html",
        "sbt-sidebar-nav.html",
    ]
}
html_context = {"default_mode": "light"}  # the figures and widgets are drawn on white
html_last_updated_fmt = None
html_show_sphinx = False

# code cells and code blocks (the README's commands) get a copy button; outputs do not
copybutton_selector = 'div[class*="highlight-"]:not(.output) > div.highlight > pre'
copybutton_exclude = ".linenos, .gp, .go"

# the 404 page: its links and assets are absolute, from the root of the site's host (or the path
# of $RNN_SITE_URL)
notfound_urls_prefix = (urlsplit(SITE_URL).path or "/") if SITE_URL else "/"
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1>\n<p>There is no page at this address. The series starts at "
        f'<a href="{notfound_urls_prefix}README.html">its home page</a>; the sidebar lists every notebook.</p>'
    ),
}

# Open Graph: title, description and type; og:url only when the site's address is known
ogp_site_url = SITE_URL
ogp_social_cards = {"enable": False}  # they need the address too, and draw with matplotlib
ogp_enable_meta_description = True

suppress_warnings = ["myst.header"]  # notebooks start at '#', then jump to '##' sections: fine

# What the pages are made from besides their sources: the site's own files and the archive. A
# change to either rebuilds every page (Sphinx tracks only the sources and this file).
rnn_site_inputs = rnn_site.inputs_digest(Path(__file__).resolve().parent, ARCHIVE, SLIDERS)


# -- what the pages need on the way in and out ------------------------------------------------


def _archive(depth: int) -> dict | None:
    """The series' archive as a page `depth` folders below the root links it, or None without one."""
    if ARCHIVE is None or not ARCHIVE.is_file():
        return None
    size = ARCHIVE.stat().st_size / 1e6
    return {"href": "../" * depth + ARCHIVE.name, "name": ARCHIVE.name, "label": f"{ARCHIVE.name}, {size:.1f} MB"}


def _on_source_read(app, docname, source):
    if docname.startswith("notebooks/"):
        stem = docname.split("/")[-1]
        sliders = None if SLIDER_POSITIONS is None else SLIDER_POSITIONS.get(stem, {})
        figures = "../" * docname.count("/") + f"_static/sliders/{stem}"
        source[0] = rnn_site.notebook_for_site(source[0], _archive(docname.count("/")), sliders, figures)
    elif docname == root_doc:
        source[0] = rnn_site.readme_for_site(source[0])
        archive = _archive(0)
        if archive:  # run it yourself: before the contents
            box = (
                "```{admonition} Run it yourself\n:class: tip run-it-yourself\n"
                f'<a href="{archive["href"]}" download>Download the series</a> ({archive["label"]}: the '
                "notebooks, the `rnn_core` package, the figures, the tests and the requirements), unzip "
                "it, and follow the [Quick start](#quick-start) in its folder: one command installs "
                "everything and opens the series in JupyterLab. In a Jupyter you already have (VS Code, "
                'Colab...), `pip install ".[notebooks]"` in its folder is enough.\n```\n\n'
            )
            source[0] = source[0].replace("\n## Contents\n", f"\n{box}## Contents\n", 1)
        # the sidebar: every notebook in reading order (the README itself lists them for GitHub)
        notebooks = sorted(Path(app.srcdir, "notebooks").glob("[0-9][0-9]-*.ipynb"))
        entries = "\n".join(f"notebooks/{path.stem}" for path in notebooks)
        source[0] += f"\n\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```\n"


def _description(app, docname) -> str | None:
    """The page's one-line description: the notebook's, as the README's contents give it, or the
    README's first sentence."""
    path = Path(app.srcdir, docname + (".ipynb" if docname.startswith("notebooks/") else ".md"))
    if not path.is_file():
        return None
    if path.suffix == ".ipynb":
        try:
            return nbnav.read_notebook(path).description
        except nbnav.NavError:
            return None
    paragraphs = re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
    first = next((p for p in paragraphs if p.strip() and not p.lstrip().startswith(("#", "<", "!"))), "")
    text = re.sub(r"[*_`]", "", " ".join(first.split()))  # Markdown's emphasis and code marks dropped
    end = re.search(r"[.!?](?=\s+[A-Z])", text)  # the first sentence
    return (text[: end.end()] if end else text) or None


def _page_head(app, pagename, templatename, context, doctree):
    """Before Open Graph's tags: the page's description (so that sphinxext-opengraph uses it rather
    than the page's first words, which are a notebook's navigation line), one viewport tag, and
    the archive for the sidebar's template (the themes drop a template that renders empty)."""
    context["metatags"] = re.sub(r'<meta name="viewport"[^>]*>\n?', "", context.get("metatags", ""))
    context["series_archive"] = _archive(0)
    if doctree is None:
        return
    description = _description(app, pagename)
    if description:
        if context.get("meta") is None:
            context["meta"] = {}
        context["meta"]["og:description"] = description
        context["metatags"] += f'<meta name="description" content="{html.escape(description)}" />\n'


def _page_after(app, pagename, templatename, context, doctree):
    """After the theme's and Open Graph's handlers: no og:url that is not an address, the series in
    the download menu, and the page's text for search excerpts."""
    if not SITE_URL:
        context["metatags"] = re.sub(r'<meta property="og:url"[^>]*>\n?', "", context.get("metatags", ""))
    archive = _archive(0)
    if archive:
        for button in context.get("header_buttons", []):
            if button.get("label") == "download-buttons":
                button["buttons"].insert(
                    0,
                    {
                        "type": "link",
                        "url": context["pathto"](archive["name"], 1),
                        "text": "series (.zip)",
                        "tooltip": f"Download the whole series to run it ({archive['label']})",
                        "icon": "fas fa-file-zipper",
                        "label": "download-series-button",
                    },
                )
    if pagename == "search":
        app.add_js_file("search-excerpts.js")
    if doctree is not None and "body" in context:
        target = Path(app.outdir, "_search", pagename + ".js")
        target.parent.mkdir(parents=True, exist_ok=True)
        text = rnn_site.search_text(context["body"])
        target.write_text(f"rnnSearchText({json.dumps(pagename)}, {json.dumps(text)});\n", encoding="utf-8")


def setup(app):
    app.add_config_value("rnn_site_inputs", "", "env")
    app.connect("source-read", _on_source_read)
    app.connect("html-page-context", _page_head, priority=450)
    app.connect("html-page-context", _page_after, priority=600)
