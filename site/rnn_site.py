"""What the site does beyond Sphinx's and the theme's settings (site/conf.py connects it).

Each function below serves one thing a reader sees:

- ``notebook_for_site``: a notebook as the site reads it. Figures stored as Markdown cell
  attachments become HTML images (MyST's Markdown refuses data: URLs for SVG); heading links as
  JupyterLab writes them (``#The-errata-table``) become the site's anchors (``#the-errata-table``);
  links to notebooks inside stored HTML outputs point at their pages; every figure a cell draws
  gets alt text (``figure_alt``); the glance line under the title links the series' archive; and
  a widget cell's output becomes its sliders at the positions the build computed, or a sentence
  saying what the cell does in JupyterLab (site/rnn_sliders.py).
- ``readme_for_site``: the README's links to a notebook's heading, likewise.
- ``figure_alt``: what a figure shows, in words, from the project's own descriptions: the
  docstring of the ``rnn_core.plots`` function that draws it, found through the names the cell
  uses (a function of the notebook or of ``rnn_core.widgets`` is followed to the plots it draws).
  A cell may say it itself, in its metadata ``{"mystnb": {"image": {"alt": "..."}}}``.
- ``plain_maths``: TeX as text a search excerpt can show (``\\hat y_t`` as ``ŷ_t``).
- ``search_text``: a page's text for search excerpts, with its sections' ids, maths as text and
  none of the theme's buttons or menus.
"""

from __future__ import annotations

import ast
import hashlib
import html
import json
import re
from functools import cache
from pathlib import Path

import rnn_sliders
from myst_parser.slugs import github_slugify

ROOT = Path(__file__).resolve().parent.parent
PLOTS = ROOT / "rnn_core" / "plots.py"
WIDGETS = ROOT / "rnn_core" / "widgets.py"
GLANCE_TAG = "glance"

ATTACHMENT = re.compile(r"!\[([^\]]*)\]\(attachment:([^)\s]+)\)")
HEADING_LINK = re.compile(r"\]\(((?:[0-9][0-9]-[^)#\s]*\.ipynb)?)#([^)\s]+)\)")
README_HEADING_LINK = re.compile(r"\]\((notebooks/[0-9][0-9]-[^)#\s]*\.ipynb)#([^)\s]+)\)")
OUTPUT_LINK = re.compile(r'href="([0-9][0-9]-[^"#\s]*)\.ipynb(?:#([^"\s]+))?"')  # in an output's HTML
# the checker's markers in the answers (``<!-- practice:mistake name -->``, read by the tests), with
# the line break and blockquote marks before one that starts a line: to MyST such a line opens an
# HTML block, which leaves the rest of the line (maths included) raw and splits the paragraph
MARKER_COMMENT = re.compile(r"[ \t]*(?:\n[ \t]*(?:>[ \t]?)*)?<!--[\s>]*practice:mistake\b.*?-->", re.S)


def _text(value) -> str:
    """A cell's source or an output's data as one string (nbformat allows a list of lines)."""
    return "".join(value) if isinstance(value, list) else value


def inputs_digest(site_dir: Path, archive: Path | None, sliders: Path | None = None) -> str:
    """A digest of the site's own files (configuration, scripts, styles, templates), of the
    archive's size and of the sliders' positions: what the pages are made from besides their sources."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(site_dir).rglob("*") if p.is_file() and "node_modules" not in p.parts):
        if "__pycache__" not in path.parts:
            digest.update(path.relative_to(site_dir).as_posix().encode() + b"\0" + path.read_bytes())
    if archive is not None and archive.is_file():
        digest.update(str(archive.stat().st_size).encode())
    if sliders is not None and sliders.is_file():
        digest.update(sliders.read_bytes())
    return digest.hexdigest()


# -- a notebook as the site reads it ------------------------------------------------------


def notebook_for_site(text: str, archive: dict | None = None, sliders: dict | None = None, figures: str = "") -> str:
    """The notebook's JSON as the site renders it (see the module's docstring).

    archive: {"href": the archive's URL from the notebook's page, "label": its name and size} to
    link from the glance line, or None. sliders: the positions of the notebook's widget cells,
    {cell index (str): data} (rnn_sliders.precompute), or None when the build computed none;
    figures: the URL of the folder of their figures, from the notebook's page.
    """
    nb = json.loads(text)
    defined = _notebook_functions(nb)
    heading = ""
    widget_cells = set(rnn_sliders.widget_cells(nb))
    for index, cell in enumerate(nb.get("cells", [])):
        if index in widget_cells:
            data = (sliders or {}).get(str(index))
            _widget_for_site(cell, data, figures, figure_alt(_text(cell.get("source", "")), defined, heading), index)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data:
                data["text/html"] = OUTPUT_LINK.sub(_output_link, _text(data["text/html"]))
        if cell.get("cell_type") == "code":
            _give_figures_alt_text(cell, defined, heading)
            continue
        if cell.get("cell_type") != "markdown":
            continue
        src = _text(cell["source"])
        headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", src, flags=re.M)
        heading = headings[-1] if headings else heading
        attachments = cell.get("attachments", {})

        def image(m, attachments=attachments):
            bundle = attachments.get(m.group(2))
            if not bundle:
                return m.group(0)  # left for the build to report as a missing image
            mime, data = next(iter(bundle.items()))
            alt = html.escape(m.group(1))
            return f'<img src="data:{mime};base64,{_text(data)}" alt="{alt}" class="attachment-figure">'

        src = ATTACHMENT.sub(image, src)
        src = MARKER_COMMENT.sub("", src)
        src = HEADING_LINK.sub(lambda m: f"]({m.group(1)}#{github_slugify(m.group(2))})", src)
        if archive and GLANCE_TAG in cell.get("metadata", {}).get("tags", []):
            src += (
                f' · **Run it yourself:** <a href="{archive["href"]}" download>download the series</a> '
                f"({archive['label']}) and follow the [Quick start](../README.md#quick-start)"
            )
        cell["source"] = src
    return json.dumps(nb)


def _widget_for_site(cell, data, figures, alt, index):
    """A widget cell's outputs on the site: its sliders at the computed positions, or, where there
    are none (a widget that trains, or a build without them), the stored outputs with the note that
    running the cell brings the sliders replaced by what the cell does in JupyterLab."""
    if data and data["mode"] != "none" and data["states"]:
        page = rnn_sliders.slider_html(data, figures, alt, f"rnn-slider-{index}")
        cell["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {"text/html": page}}]
        return
    outputs = []
    for output in cell.get("outputs", []):
        note = _text(output.get("data", {}).get("text/plain", ""))
        if rnn_sliders.WIDGET_NOTE.match(note):
            sentence = html.escape(rnn_sliders.static_sentence(data, note))
            output = {
                "output_type": "display_data",
                "metadata": {},
                "data": {"text/html": f'<p class="rnn-sliders-static">{sentence}</p>'},
            }
        outputs.append(output)
    cell["outputs"] = outputs


def readme_for_site(text: str) -> str:
    """The README as the site reads it: its links to a notebook's heading as JupyterLab writes
    them (``notebooks/01-....ipynb#Notation-for-the-whole-series``) point at the page's anchor."""
    return README_HEADING_LINK.sub(lambda m: f"]({m.group(1)}#{github_slugify(m.group(2))})", text)


def _output_link(m):
    """A link in a stored HTML output (e.g. practice.check's errata link) to a notebook, as a link to its page."""
    anchor = f"#{github_slugify(m.group(2))}" if m.group(2) else ""
    return f'href="{m.group(1)}.html{anchor}"'


def _give_figures_alt_text(cell, defined, heading):
    """Alt text for the figures of a code cell, through MyST-NB's cell-level image options (the
    sliders' figures get theirs from _widget_for_site)."""
    outputs = cell.get("outputs", [])
    if not any(k.startswith("image/") for o in outputs for k in o.get("data", {})):
        return
    options = cell.setdefault("metadata", {}).setdefault("mystnb", {}).setdefault("image", {})
    options["alt"] = options.get("alt") or figure_alt(_text(cell.get("source", "")), defined, heading)


# -- alt text from the project's own descriptions -------------------------------------------


def figure_alt(source: str, defined: dict[str, ast.AST], heading: str = "") -> str:
    """A figure's alt text: what the rnn_core.plots functions the cell reaches say they draw.

    source: the cell's code; defined: the notebook's functions by name (their definitions);
    heading: the section the cell is in, named when no description is found.
    """
    found: list[str] = []
    for name in _names(_parse(source)):
        for description in _descriptions(name, defined, frozenset()):
            if description not in found:
                found.append(description)
    if found:
        return "Figure: " + "; ".join(found[:2])
    section = _plain_heading(heading)
    return "A figure drawn by the code cell above" + (f" (section {section})" if section else "")


def _descriptions(name: str, defined: dict[str, ast.AST], seen: frozenset) -> list[str]:
    """The plots descriptions reachable from `name` (a plots or widgets function, or one of the notebook)."""
    if name in seen:
        return []
    seen = seen | {name}
    short = name.rsplit(".", 1)[-1]
    plots, widgets = _module_functions(PLOTS), _module_functions(WIDGETS)
    if short in plots and short.startswith("plot_") and ("." not in name or name.split(".")[-2] == "plots"):
        return [_summary(ast.get_docstring(plots[short]) or "")]
    body = defined.get(name) or (widgets.get(short) if "." not in name or name.split(".")[-2] == "widgets" else None)
    if body is None:
        return []
    out = []
    for inner in _names(body):
        qualified = f"plots.{inner.rsplit('.', 1)[-1]}" if inner.startswith("plots.") else inner
        out += [d for d in _descriptions(qualified, defined, seen) if d not in out]
    return out


def _names(tree) -> list[str]:
    """Names and dotted names a piece of code refers to, in order (``plots.plot_x``, ``show``)."""
    names = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names.append(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            names.append(f"{node.value.attr}.{node.attr}")  # rnn_core.plots.plot_x
        elif isinstance(node, ast.Name):
            names.append(node.id)
    return list(dict.fromkeys(names))


def _parse(source: str):
    """The cell's syntax tree (IPython's %magics and !commands left out), or None."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _notebook_functions(nb) -> dict[str, ast.AST]:
    """Every function the notebook's code cells define, by name (the last definition wins)."""
    functions = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            tree = _parse(_text(cell.get("source", "")))
            for node in tree.body if tree else ():
                if isinstance(node, ast.FunctionDef):
                    functions[node.name] = node
    return functions


@cache
def _module_functions(path: Path) -> dict[str, ast.AST]:
    """The top-level functions and classes of one of rnn_core's modules, read without importing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _summary(docstring: str) -> str:
    """A docstring's first paragraph as one sentence, without its "(notebook NN, section N)" note."""
    first = " ".join(docstring.split("\n\n", 1)[0].split())
    first = re.sub(r"\s*\((?:notebooks?|see) [^()]*(?:\([^()]*\)[^()]*)*\)", "", first)
    return first.replace("``", "").rstrip(".:; ") + "."


def _plain_heading(heading: str) -> str:
    text = re.sub(r"\$([^$]*)\$", lambda m: plain_maths(m.group(1)), heading)
    return re.sub(r"[*_`]", "", text).strip()


# -- maths as text ----------------------------------------------------------------------------

_WORD_END = "\x00"  # after a function's name: a space if a letter follows, else nothing
_SYMBOLS = {"ne": "≠", "neq": "≠", "le": "≤", "ge": "≥", "approx": "≈", "to": "→", "leftarrow": "←"}
_SYMBOLS |= {"mapsto": "↦", "in": "∈", "sim": "∼", "cdot": "·", "times": "×", "pm": "±", "odot": "⊙", "otimes": "⊗"}
_FUNCTIONS = ("log", "ln", "exp", "tanh", "cosh", "sinh", "max", "min", "arg")


@cache
def _maths_converter():
    """pylatexenc's parser and TeX-to-text converter, taught the macros the series uses that it lacks."""
    from pylatexenc import latexwalker, macrospec
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    one_argument = ("texttt", "operatorname", "boxed", "underbrace", "boldsymbol")
    walker = latexwalker.get_default_latex_context_db()
    walker.add_context_category(
        "rnn-from-scratch",
        prepend=True,
        macros=[macrospec.MacroSpec(m, "{{") for m in ("tfrac", "dfrac")]
        + [macrospec.MacroSpec(m, "{") for m in one_argument],
    )
    text = get_default_latex_context_db()
    text.add_context_category(
        "rnn-from-scratch",
        prepend=True,
        macros=[MacroTextSpec(m, "%(1)s/%(2)s") for m in ("tfrac", "dfrac")]
        + [MacroTextSpec(m, "%(1)s" + (_WORD_END if m == "operatorname" else "")) for m in one_argument]
        + [MacroTextSpec(m, f" {s} ") for m, s in _SYMBOLS.items()]
        + [MacroTextSpec(m, m + _WORD_END) for m in _FUNCTIONS],
    )
    return walker, LatexNodes2Text(math_mode="text", latex_context=text)


def plain_maths(tex: str) -> str:
    """TeX maths as plain text: ``\\nabla_{W_{hh}} L = \\sum_t \\delta_t h_{t-1}^\\top`` reads
    ``∇_W_hh L = ∑_t δ_t h_t-1^⊤``."""
    from pylatexenc import latexwalker

    walker, to_text = _maths_converter()
    nodes = latexwalker.LatexWalker(tex, latex_context=walker, tolerant_parsing=True).get_latex_nodes()[0]
    text = to_text.nodelist_to_text(nodes)
    text = re.sub(f"{_WORD_END}(?=[^\\W\\d_])", " ", text).replace(_WORD_END, "")
    return re.sub(r"\s+", " ", text).strip()


# -- a page's text for search excerpts ------------------------------------------------------------

_NOT_TEXT = "script, style, template, .headerlink, button, .copybtn, .toctree-wrapper"
_BLOCKS = {"p", "div", "section", "li", "pre", "tr", "td", "th", "dt", "dd", "table", "blockquote", "br"}
_BLOCKS |= {f"h{i}" for i in range(1, 7)}


def search_text(body: str) -> str:
    """A page's body (its article's HTML) as text for search excerpts: HTML holding only its
    sections (with their ids, which search results link to) and their text, maths as text."""
    from bs4 import BeautifulSoup, NavigableString

    soup = BeautifulSoup(body, "html.parser")
    for element in soup.select(_NOT_TEXT):
        element.decompose()
    for element in soup.select(".math"):
        tex = element.get_text().strip()
        tex = re.sub(r"^\\[(\[]|\\[)\]]$", "", tex).strip()
        element.replace_with(f" {plain_maths(tex)} " if element.name == "div" else plain_maths(tex))

    def walk(node) -> str:
        parts = []
        for child in node.children:
            if isinstance(child, NavigableString):
                parts.append(html.escape(str(child), quote=False))
            elif child.name == "section" and child.get("id"):
                parts.append(f'<section id="{html.escape(child["id"])}">{walk(child)}</section>')
            elif child.name in _BLOCKS:
                parts.append(f" {walk(child)} ")
            else:
                parts.append(walk(child))
        return "".join(parts)

    return re.sub(r"\s+", " ", walk(soup)).strip()
