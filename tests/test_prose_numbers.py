"""Every number the prose quotes is printed by a cell: the markdown agrees with the stored outputs.

For each notebook, every number in a markdown cell must appear in a stored output of the same
notebook (any cell's printed text, ``text/plain``, ``text/markdown`` or ``text/html``), written
the same way up to thousands separators: "13.04" is found in "val bpc 13.04", "2,000" in
"2000 characters". (The README's quoted results are not bound yet: its benchmark figures are
rounded from the tables in benchmarks/README.md, which no test reads.)

What counts as a number, and what is left out by rule (the reason beside each):

- a value with two or more significant digits ("0.94", "26.0", "300", "10,374"), or any
  percentage ("3%", "0.13%"): the values, ratios, shares and counts the prose reports. A lone
  digit ("3 steps", "η = 1", "0.5") is left out: small counts and settings, too common to
  bind, and a drifted value seldom has one significant digit;
- nothing inside inline code, maths (``$…$``, ``$$…$$``), HTML tags or a link's target: code
  and notation, not reported values;
- the cells tagged ``navigation``, ``glance`` or ``map``: tools/nbnav.py generates them from
  the notebooks' metadata, and ``tools/nbnav.py --check`` (tests/test_navigation.py) binds them;
- a year (four digits from 1900 to 2099, no thousands separator): citations;
- a reference: "notebook 05", "notebooks 08 and 09", "row 13", "rows 13, 3 and 10", "section
  10.2.2", "§3", "cell 62", and a citation's "issue 2076" or "pull request 133";
- a number that appears in the notebook's own code (a constant the notebook sets, such as
  ``CLIP_STEPS = 300``): the prose quotes a setting, and the code beside it is its source.

Everything else that no output prints is listed, with its reason, in ONE reviewed file,
tests/prose_numbers_exempt.toml; an exemption that no longer matches anything fails too, so
the list cannot go stale.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
EXEMPT_FILE = ROOT / "tests" / "prose_numbers_exempt.toml"
GENERATED_TAGS = {"navigation", "glance", "map"}

# a number: digits with optional thousands separators and decimals, and an optional percent
# sign; not part of a word, an identifier, a version or a dotted section ("v1", "x_2", "1.2.3")
NUMBER = re.compile(r"(?<![\w.,/#\-−^_{\\])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?(?![\w^_]|\.\d)")
YEAR = re.compile(r"(19|20)\d\d")
# references to notebooks, rows, sections and cells, with their lists ("rows 13, 3 and 10")
REFERENCE = re.compile(
    r"(?:\bnotebooks?|\brows?|\bsections?|§|\bcells?|\bexercises?|\bappendix|\bissues?|\bpull requests?)"
    r"\s*\d+(?:\.\d+)*(?:(?:,\s*|\s+and\s+|\s+or\s+|\s*[-–]\s*)\d+(?:\.\d+)*)*",
    re.IGNORECASE,
)
STRIP = [
    re.compile(r"^>[ \t]?", re.MULTILINE),  # blockquote markers, so "row\n> 28" reads as one
    re.compile(r"```.*?```", re.DOTALL),  # fenced code
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\$\$.*?\$\$", re.DOTALL),  # display maths
    re.compile(r"\$[^$]*\$"),  # inline maths
    re.compile(r"\]\([^)]*\)"),  # a link's target (its text stays)
    re.compile(r"<[^>]+>"),  # HTML tags and comments
    re.compile(r"https?://\S+"),  # bare addresses
    REFERENCE,
]


def prose(markdown):
    """The markdown with code, maths, links' targets, tags and references blanked out."""
    for pattern in STRIP:
        markdown = pattern.sub(" ", markdown)
    return markdown


def quoted_numbers(text):
    """(number, context) for every number the text quotes that the rules above bind.

    number: as written, thousands separators removed ("2,000" -> "2000", "47 %" -> "47%").
    """
    found = []
    for m in NUMBER.finditer(text):
        whole, decimals, percent = m.group(1), m.group(2) or "", m.group(3) or ""
        number = whole.replace(",", "") + decimals + percent.strip()
        significant = (whole + decimals).replace(",", "").replace(".", "").lstrip("0")
        if not percent and len(significant) < 2:
            continue
        if not percent and not decimals and "," not in whole and YEAR.fullmatch(whole):
            continue
        context = " ".join(text[max(0, m.start() - 50) : m.end() + 30].split())
        found.append((number, context))
    return found


def printed(text, number):
    """Whether ``number`` appears in ``text`` as a whole number, separators ignored."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", text.replace(",", "")) is not None


def stored_outputs(nb):
    """Every stored output of the notebook as one text."""
    texts = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if "text" in output:
                texts.append("".join(output["text"]))
            for kind, data in output.get("data", {}).items():
                if kind.startswith("text/"):
                    texts.append(data if isinstance(data, str) else "".join(data))
    return "\n".join(texts)


def code_sources(nb):
    """Every code cell's source as one text, digit separators dropped ("20_000" -> "20000")."""
    code = "\n".join(c["source"] for c in nb["cells"] if c["cell_type"] == "code")
    return re.sub(r"(?<=\d)_(?=\d)", "", code)


def exemptions():
    """{section: {number: reason}} from the reviewed list (a section: "07", or "README")."""
    with open(EXEMPT_FILE, "rb") as f:
        table = tomllib.load(f)
    for section, entries in table.items():
        for number, reason in entries.items():
            assert isinstance(reason, str) and len(reason.split()) >= 3, (
                f"{EXEMPT_FILE.name}: [{section}] {number!r} needs a reason of a few words"
            )
    return table


def unprinted(nb):
    """[(cell number, cell id, number, context)] for the quoted numbers no output prints."""
    outputs, code = stored_outputs(nb), code_sources(nb)
    missing = []
    for index, cell in enumerate(nb["cells"], start=1):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] != "markdown" or tags & GENERATED_TAGS:
            continue
        for number, context in quoted_numbers(prose(cell["source"])):
            if not (printed(outputs, number) or printed(code, number)):
                missing.append((index, cell.get("id"), number, context))
    return missing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_prose_numbers_are_printed(path):
    nb = nbformat.read(path, as_version=4)
    exempt = exemptions().get(path.name[:2], {})
    missing = unprinted(nb)
    wrong = [m for m in missing if m[2] not in exempt]
    stale = sorted(set(exempt) - {m[2] for m in missing})
    lines = [
        f"  cell [{index}] (id {cell_id}): {number!r} in “…{context}…”" for index, cell_id, number, context in wrong
    ]
    assert not wrong, (
        f"{path.name}: the prose quotes numbers that no stored output prints. Fix the prose (or "
        f"the cell that should print it), or add each to [{path.name[:2]!r}] in "
        f"tests/{EXEMPT_FILE.name} with its reason:\n" + "\n".join(lines)
    )
    assert not stale, (
        f"{path.name}: exemptions in tests/{EXEMPT_FILE.name} that the prose no longer needs (remove them): {stale}"
    )


def test_rules():
    """The rules on a few made-up sentences: what is bound, what is left out."""
    text = (
        "After 300 steps the bpc is 2.45 (notebook 05, rows 13, 3 and 10), 47% saturated; "
        "`W_hh = 0.99` and $\\eta = 0.5$; 3 seeds; Pascanu et al. 2013; 10,374 at step 1; "
        "section 10.2.2; x_12"
    )
    assert [n for n, _ in quoted_numbers(prose(text))] == ["300", "2.45", "47%", "10374"]
    assert printed("norm 10,374 at", "10374") and printed("a 2.45 b", "2.45")
    assert not printed("12.45", "2.45") and not printed("2.456", "2.45")
