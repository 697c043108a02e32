"""One notation registry: tools/notation.toml generates notebook 01's table and the README's, and
every symbol a notebook introduces is in it.

A notebook introduces a symbol where its prose says what the symbol is: "$κ$ is …", "$N$ stands
for …", "where $γ$ …", "write $h̄_t$ for …", "call it $m$", or a list item "- $V$: …". Each such
symbol (a single letter or Greek letter, with its decorations; expressions such as "$H = 32$"
are not introductions) must be a form of a ``[[symbol]]`` row of the registry, or a ``[[local]]``
symbol there with its reason. A time or layer index is not part of a symbol: "h_t", "h_{t-1}"
and "h_t^{(\\ell)}" are all the form "h".
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

import notation  # tools/ is on pytest's pythonpath (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
MATH = r"\$([^$\n]{1,30})\$"
INTRODUCTIONS = [
    re.compile(MATH + r",?\s+(?:is|are|stands for|denotes|means)\b"),
    re.compile(r"\b(?:[Ww]here|[Ww]rite|[Cc]all it|[Cc]alled|denoted?|written)\s+" + MATH),
    re.compile(r"^\s*[-*]\s+" + MATH + r"\s*:", re.MULTILINE),
]
# a lone symbol: optional \hat, \bar, \mathbf{…}, then a letter or a Greek letter, then
# subscripts, superscripts and an index in brackets
SYMBOL = re.compile(
    r"(?:\\(?:hat|bar|tilde|mathbf)\{?)?(?:[A-Za-z]|\\[a-zA-Z]+)\}?"
    r"(?:_\{[^{}]*\}|_[A-Za-z0-9]|\^\{[^{}]*\}|\^\{\([^()]*\)\}|\^[A-Za-z0-9]|\[[^\]]*\])*"
)
# what is stripped from the end of a symbol before it is looked up: a time, layer or entry index
INDEX = re.compile(r"(?:_\{[tTijks0-9+\-,]*\}|_[tTijks0-9]|\^\{[^{}]*\}|\^\\top|\[[^\]]*\])$")
NOT_SYMBOLS = {"\\log", "\\ln", "\\exp", "\\max", "\\min", "\\sum", "\\mathrm", "\\tanh"}


def normal(tex):
    return re.sub(r"\s+", "", tex)


def forms(symbol):
    """The symbol and what it becomes with its trailing indices stripped one by one."""
    out = [symbol]
    while INDEX.search(out[-1]) and INDEX.sub("", out[-1]):
        out.append(INDEX.sub("", out[-1]))
    return out


def introduced(markdown):
    """The lone symbols the markdown introduces, spaces removed."""
    found = set()
    for pattern in INTRODUCTIONS:
        for match in pattern.finditer(markdown):
            tex = normal(match.group(1))
            if SYMBOL.fullmatch(tex) and tex.split("_")[0].split("^")[0] not in NOT_SYMBOLS:
                found.add(tex)
    return found


def known():
    registry = notation.load()
    rows = {normal(f) for row in registry["symbol"] for f in row["forms"]}
    local = {normal(entry["form"]) for entry in registry.get("local", [])}
    return rows, local


def test_tables_are_generated_from_the_registry():
    changed = notation.generated(ROOT)
    assert not changed, (
        f"{[str(p.relative_to(ROOT)) for p in changed]}: the notation table differs from "
        "tools/notation.toml; run: python tools/notation.py"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_introduced_symbols_are_registered(path):
    rows, local = known()
    nb = nbformat.read(path, as_version=4)
    unknown = {}
    for index, cell in enumerate(nb["cells"], start=1):
        if cell["cell_type"] != "markdown":
            continue
        for symbol in introduced(cell["source"]):
            if not any(f in rows or f in local for f in forms(symbol)):
                unknown.setdefault(symbol, index)
    assert not unknown, (
        f"{path.name} introduces symbols that tools/notation.toml lacks (symbol: first cell): "
        f"{unknown}. Add each as a [[symbol]] row (then run python tools/notation.py) or, if it "
        "means something only in that place, as a [[local]] entry with its reason."
    )


def test_the_symbols_the_readers_missed_are_registered():
    # issue 36: these were used and explained in the notebooks but missing from the table
    rows, _ = known()
    missed = "\\ell \\kappa \\mu \\gamma \\lambda \\barh \\delta^{h} N \\beta_1 \\beta_2 m v \\sigma"
    for tex in missed.split():
        assert tex in rows, f"{tex} is not a form of any row of tools/notation.toml"


def test_the_lstm_row_names_each_gate():
    row = next(r for r in notation.load()["symbol"] if "the LSTM" in r["meaning"])
    assert row["display"] == "$c_t$; $i_t, f_t, q_t$; $g_t$", "the LSTM row: g is the candidate, q the output gate"
    assert "output gates; its candidate" in row["meaning"]


def test_detection():
    text = "Write $\\kappa$ for the rate, where $N$ is the lag; $H = 32$ is a setting.\n- $h_t^{(\\ell)}$: a state"
    assert introduced(text) == {"\\kappa", "N", "h_t^{(\\ell)}"}
    assert forms("h_t^{(\\ell)}") == ["h_t^{(\\ell)}", "h_t", "h"]
    assert forms("h_{t-1}") == ["h_{t-1}", "h"] and forms("W_{hh}") == ["W_{hh}"]
