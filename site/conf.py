"""Sphinx configuration of the series' static site (built by tools/build_site.py, which says how).

The sources are the repository itself: README.md is the home page, every notebooks/NN-*.ipynb a
page, in the order of their numbers. Notebooks are rendered from their committed outputs (MyST-NB,
no execution). Everything a page loads is served from the site: MathJax, RequireJS and the Jupyter
widgets' HTML manager are copied from site/node_modules by the build script (the folder named by
$RNN_SITE_STATIC), so the site works offline, from file:// or from any static server.

Two things the notebooks do that MyST-NB does not, handled here when a source is read:
- figures stored as Markdown cell attachments (``![alt](attachment:NAME.svg)``) become HTML images
  with a data: URL (MyST's Markdown parser refuses data: URLs for SVG in its own image syntax);
- links to a heading as JupyterLab writes them (``#The-errata-table``: the heading's text, spaces
  as '-') become the GitHub-style anchors the site's headings have (``#the-errata-table``).
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

from myst_parser.slugs import github_slugify

ROOT = Path(__file__).resolve().parent.parent
STATIC = Path(os.environ.get("RNN_SITE_STATIC", ROOT / "build" / ".site-work" / "static"))

project = "rnn-from-scratch"
author = "the rnn-from-scratch authors"
copyright = "rnn-from-scratch; code MIT, prose and figures CC BY 4.0"

extensions = ["myst_nb"]
root_doc = "README"
include_patterns = ["README.md", "notebooks/[0-9][0-9]-*.ipynb"]
exclude_patterns = ["build", "site", ".venv", "**/.ipynb_checkpoints"]

# notebooks: the committed outputs, never executed; remove-cell and friends honoured
nb_execution_mode = "off"
nb_output_stderr = "show"
nb_merge_streams = True

# Markdown as the notebooks write it: $...$ and $$...$$ maths, aligned environments
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True
myst_heading_anchors = 4  # links to headings (README.md#browser-test, 05-...ipynb#the-errata-table)

# served from the site itself: the npm packages (copied by tools/build_site.py) and site/_static
html_static_path = [str(STATIC), "_static"]
mathjax_path = "mathjax/tex-mml-chtml.js"
mathjax_config_path = "mathjax-config.js"  # MathJax's configuration (it holds functions, so a script)
myst_update_mathjax = False  # which elements MathJax reads is set in that script
nb_ipywidgets_js = {  # in this order: RequireJS, where the manager is, the manager
    "requirejs/require.js": {},
    "widgets-paths.js": {},
    # the manager holds ipywidgets' own controls; any other widget library would be looked for
    # beside the page (never on a CDN), and missing: the series uses none
    "html-manager/embed-amd.js": {"data-jupyter-widgets-cdn": "./", "data-jupyter-widgets-cdn-only": "true"},
}

html_theme = "sphinx_book_theme"
html_title = "rnn-from-scratch"
html_theme_options = {
    "home_page_in_toc": True,
    "use_download_button": True,  # the page's source: the notebook itself, to run locally
    "use_fullscreen_button": False,
    "show_toc_level": 2,
}
html_context = {"default_mode": "light"}  # the figures and widgets are drawn on white
html_last_updated_fmt = None
html_show_sphinx = False

suppress_warnings = ["myst.header"]  # notebooks start at '#', then jump to '##' sections: fine


# -- what the notebooks need on the way in -----------------------------------------------

ATTACHMENT = re.compile(r"!\[([^\]]*)\]\(attachment:([^)\s]+)\)")
HEADING_LINK = re.compile(r"\]\(((?:[0-9][0-9]-[^)#\s]*\.ipynb)?)#([^)\s]+)\)")
OUTPUT_LINK = re.compile(r'href="([0-9][0-9]-[^"#\s]*)\.ipynb(?:#([^"\s]+))?"')  # in an output's HTML


def _output_link(m):
    """A link in a stored HTML output (e.g. practice.check's errata link) to a notebook, as a link to its page."""
    anchor = f"#{github_slugify(m.group(2))}" if m.group(2) else ""
    return f'href="{m.group(1)}.html{anchor}"'


def _notebook_for_site(text: str) -> str:
    """The notebook's JSON with attachments inlined, JupyterLab heading links made GitHub-style, and
    links to notebooks inside stored HTML outputs pointed at their pages."""
    nb = json.loads(text)
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data:
                page = "".join(data["text/html"]) if isinstance(data["text/html"], list) else data["text/html"]
                data["text/html"] = OUTPUT_LINK.sub(_output_link, page)
        if cell.get("cell_type") != "markdown":
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        attachments = cell.get("attachments", {})

        def image(m, attachments=attachments):
            bundle = attachments.get(m.group(2))
            if not bundle:
                return m.group(0)  # left for the build to report as a missing image
            mime, data = next(iter(bundle.items()))
            data = "".join(data) if isinstance(data, list) else data
            return f'<img src="data:{mime};base64,{data}" alt="{html.escape(m.group(1))}" class="attachment-figure">'

        src = ATTACHMENT.sub(image, src)
        src = HEADING_LINK.sub(lambda m: f"]({m.group(1)}#{github_slugify(m.group(2))})", src)
        cell["source"] = src
    return json.dumps(nb)


def _on_source_read(app, docname, source):
    if docname.startswith("notebooks/"):
        source[0] = _notebook_for_site(source[0])
    elif docname == root_doc:
        # the sidebar: every notebook in reading order (the README itself lists them for GitHub)
        notebooks = sorted(Path(app.srcdir, "notebooks").glob("[0-9][0-9]-*.ipynb"))
        entries = "\n".join(f"notebooks/{path.stem}" for path in notebooks)
        source[0] += f"\n\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```\n"


def setup(app):
    app.connect("source-read", _on_source_read)
