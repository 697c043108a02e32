"""The notebooks' sliders on the static site, working without a kernel.

A slider cell of the series (``rnn_core.widgets.interactive`` and the other widgets of
``rnn_core.widgets``) redraws its figure from the notebook's state whenever a slider moves. A
static page has no kernel, so the site's build computes what the cell shows at a handful of
positions of its sliders, and a small script (site/_static/sliders.js) switches between them.
Three sides, one module:

- **The build** (``precompute``, called by tools/build_site.py): runs the notebook in a kernel
  (nbclient, as tools/execute_notebooks.py does, with a fresh my_rnn.py), cell by cell up to its
  last slider cell, and after each slider cell asks the kernel for the positions (``dump``). What
  it gets is cached in build/.site-sliders/, under a digest of the notebook's code, rnn_core's
  modules and FORMAT, so a rebuild with nothing changed runs no kernel.
- **The kernel** (``dump``): moves the widget's sliders to each position, as a reader would, and
  keeps what the widget shows there (its text and figures, as notebook outputs). Each slider gets
  ``POSITIONS`` positions spread over its range (every one where it has few, every option of a
  slider of options) and its starting one. With two sliders or more, every combination when there
  are at most ``GRID_LIMIT``; else one slider at a time, the others where they start.
- **The page** (``slider_html``): the cell's output becomes range inputs with their readouts, the
  figure at the starting position, and the other positions in ``<template>`` elements, which
  the browser does not load until the script shows one.

A widget that cannot be computed ahead (07's Train button: it trains a network) is not moved:
its page says in a sentence what the cell does in JupyterLab and where the page shows such runs.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = 5  # positions spread over each slider's range, besides where it starts
ALL_BELOW = 12  # a slider with at most this many stops gets every one
GRID_LIMIT = 36  # at most this many states: every combination of the sliders' positions
FORMAT = 1  # the cached data's layout and how dump computes it: bump it when either changes

# the line a stored notebook shows where a widget was (rnn_core.widgets.SLIDERS_NOTE and the Train
# widget's note): which cells are widget cells
WIDGET_NOTE = re.compile(r"^The sliders\b.* appears? when this cell runs")


# -- the kernel's side ------------------------------------------------------------------------


def _positions(control, n=POSITIONS):
    """The indices (on the slider's own grid of stops) to compute, and the start's index. A slider
    with at most ALL_BELOW stops gets every one, when n is POSITIONS; fewer positions (a test's
    build) mean n of them spread over the range, ends included, wherever the slider has more."""
    import ipywidgets as widgets

    if isinstance(control, widgets.SelectionSlider):
        count, start = len(control.options), control.index
    elif isinstance(control, widgets.FloatLogSlider):
        count = round((control.max - control.min) / control.step) + 1
        start = round((math.log(control.value, control.base) - control.min) / control.step)
    else:
        count = round((control.max - control.min) / control.step) + 1
        start = round((control.value - control.min) / control.step)
    if count <= (ALL_BELOW if n >= POSITIONS else n):
        return list(range(count)), start
    spread = {round(k * (count - 1) / (n - 1)) for k in range(n)}
    return sorted(spread | {start}), start


def _move(control, index):
    """Put the slider at stop `index` of its grid; returns its readout there."""
    import ipywidgets as widgets

    if isinstance(control, widgets.SelectionSlider):
        control.index = index
        return str(control.label)
    if isinstance(control, widgets.FloatLogSlider):
        control.value = control.base ** (control.min + index * control.step)
        return format(control.value, control.readout_format)
    value = control.min + index * control.step
    if isinstance(control, widgets.IntSlider):
        control.value = int(value)
        return str(control.value)
    control.value = round(value, 12)
    return format(control.value, control.readout_format)


def dump(live, path, n=POSITIONS):
    """Write to `path` (JSON) what the widget `live` shows at each position of its sliders.

    live: the value of a slider cell (a widget box of rnn_core.widgets). The JSON holds the sliders
    ({"description", "labels", "start"}), the widget's fixed inputs ({"description", "value"}: a
    text box, which stays as it is), the states ({"key": one stop index per slider, "outputs":
    notebook outputs}) and "mode" ("grid", "one at a time", or "none": nothing to compute, the
    widget has no figure of its own).
    """
    import itertools

    import ipywidgets as widgets

    if not (hasattr(live, "sliders") and hasattr(live, "shown")):
        raise TypeError(f"the slider cell's value is a {type(live).__name__}, not a widget of rnn_core.widgets")
    controls = live.sliders()
    fixed = [{"description": c.description, "value": c.value} for c in live.children if isinstance(c, widgets.Text)]
    found = [_positions(c, n) for c in controls]
    starts = [start for _, start in found]
    labels = [{} for _ in controls]  # per slider, its readout at each of its stops, as the slider shows it there
    data = {"format": FORMAT, "sliders": [], "fixed": fixed, "states": [], "mode": "none"}
    if controls and live.shown():
        combos = math.prod(len(indices) for indices, _ in found)
        if combos <= GRID_LIMIT:
            data["mode"], keys = "grid", list(itertools.product(*(indices for indices, _ in found)))
        else:
            data["mode"], keys = "one at a time", [tuple(starts)]
            for k, (indices, _) in enumerate(found):
                keys += [tuple(starts[:k]) + (i,) + tuple(starts[k + 1 :]) for i in indices if i != starts[k]]
        for key in keys:  # every stop of every slider is in one (each move redraws: the readouts come with them)
            for k, (control, index) in enumerate(zip(controls, key)):
                labels[k][index] = _move(control, index)
            outputs = live.shown()
            errors = [o for o in outputs if o.get("output_type") == "error"]
            if errors:
                raise RuntimeError(f"at {key}: {errors[0]['ename']}: {errors[0]['evalue']}")
            data["states"].append({"key": list(key), "outputs": outputs})
    else:  # nothing drawn: each slider through its stops for its readouts
        for k, (control, (indices, _)) in enumerate(zip(controls, found)):
            labels[k] = {index: _move(control, index) for index in indices}
    for control, start in zip(controls, starts):
        _move(control, start)
    for control, (indices, start), readouts in zip(controls, found, labels):
        stops = {index: readouts[index] for index in indices}
        data["sliders"].append({"description": control.description, "stops": indices, "labels": stops, "start": start})
    Path(path).write_text(json.dumps(data), encoding="utf-8")


# -- the build's side ---------------------------------------------------------------------------


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def widget_cells(nb: dict) -> list[int]:
    """The indices of the notebook's widget cells: those whose stored outputs hold the widgets' note."""
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if WIDGET_NOTE.match(_text(output.get("data", {}).get("text/plain", ""))):
                found.append(index)
                break
    return found


def _digest(nb: dict, last: int, n: int = POSITIONS) -> str:
    """What the positions depend on: the notebook's code up to its last widget cell, rnn_core's
    modules, and FORMAT and the numbers of positions (not this file, whose page side may change
    without them)."""
    digest = hashlib.sha256(f"format {FORMAT} positions {n} {ALL_BELOW} {GRID_LIMIT}".encode())
    for cell in nb["cells"][: last + 1]:
        if cell.get("cell_type") == "code":
            digest.update(b"\0cell\0" + _text(cell.get("source", "")).encode())
    for path in sorted((ROOT / "rnn_core").glob("*.py")):
        digest.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def folder_for(path: Path, cache: Path, n: int = POSITIONS) -> tuple[Path, list[int]] | None:
    """Where the positions of the notebook at `path` are kept in `cache` (a folder named by the notebook
    and the digest of what they depend on), and its widget cells; None for a notebook without widgets."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    cells = widget_cells(nb)
    if not cells:
        return None
    return Path(cache).resolve() / f"{Path(path).stem}-{_digest(nb, max(cells), n)}", cells


def dump_code(folder: Path, index: int, n: int = POSITIONS, cells: list[int] | None = None) -> str:
    """The code a kernel runs right after widget cell `index` to write its positions to folder/<index>.json
    (the cell's value is the widget), leaving no name behind in the notebook's namespace; with `cells`
    (after the last of them), then ``finish(folder, cells)``."""
    here, out = str(Path(__file__).resolve()), str(Path(folder) / f"{index}.json")
    then = f", m['finish']({str(folder)!r}, {list(cells)!r})" if cells else ""
    return (
        f"(lambda m: (m['dump'](get_ipython().last_execution_result.result, {out!r}, n={n}){then}))"
        f"(__import__('runpy').run_path({here!r}))\nNone"
    )


def finish(folder: Path, cells: list[int]) -> None:
    """Gather the widget cells' positions (folder/<cell>.json, as dump wrote them) into folder/sliders.json,
    each figure written to a PNG file of its own beside it. sliders.json is written last: a folder without
    it is computed again."""
    folder = Path(folder)
    data = {}
    for index in cells:
        raw = folder / f"{index}.json"
        cell = json.loads(raw.read_text(encoding="utf-8"))
        for s, state in enumerate(cell["states"]):
            for o, output in enumerate(state["outputs"]):
                png = output.get("data", {}).get("image/png")
                if png:
                    name = f"{index}-{s}-{o}.png"
                    (folder / name).write_bytes(base64.b64decode(_text(png)))
                    output["data"] = {"file": name}
                    output["metadata"] = output.get("metadata", {}).get("image/png", {})
        data[str(index)] = cell
        raw.unlink()
    partial = folder / "sliders.json.partial"
    partial.write_text(json.dumps(data), encoding="utf-8")
    partial.replace(folder / "sliders.json")


def _kernel_positions(path: Path, cells: list[int], folder: Path, timeout: int, n: int = POSITIONS) -> None:
    """Run the notebook at path cell by cell up to its last widget cell; after each widget cell, the
    kernel writes its positions to folder/<cell>.json."""
    import nbformat

    from notebook_files import client  # tools/, on sys.path in tools/build_site.py and in the tests

    nb = nbformat.read(path, as_version=4)
    runner = client(nb, path.parent, timeout)  # the kernel tools/execute_notebooks.py runs a notebook in
    runner.reset_execution_trackers()
    with runner.setup_kernel():
        for index, cell in enumerate(nb.cells[: max(cells) + 1]):
            if cell.cell_type != "code":
                continue
            runner.execute_cell(cell, index)
            if index in cells:  # then the kernel writes the cell's positions
                runner.execute_cell(nbformat.v4.new_code_cell(dump_code(folder, index, n)), index)


def precompute(path: Path, cache: Path, timeout: int = 1800, n: int = POSITIONS) -> dict | None:
    """The positions of the notebook's widget cells, {cell index (str): data}, with each figure
    written to a PNG file in the cache's folder for the notebook (data["folder"]); from the cache
    when nothing they depend on changed, else from a kernel. None for a notebook without widgets.
    n: positions per slider besides its start (POSITIONS; a test's build takes 2, the two ends).

    The cache may also be filled by a kernel that runs the notebook anyway: the test suite's nbval runs
    ``dump_code`` after each widget cell, then ``finish`` (tests/site/site_build.py)."""
    found = folder_for(path, cache, n)
    if found is None:
        return None
    folder, cells = found
    done = folder / "sliders.json"
    if not done.is_file():
        for old in Path(cache).glob(f"{Path(path).stem}-*"):  # an older notebook's positions
            if old.is_dir():
                for f in old.iterdir():
                    f.unlink()
                old.rmdir()
        folder.mkdir(parents=True, exist_ok=True)
        _kernel_positions(Path(path), cells, folder, timeout, n)
        finish(folder, cells)
    data = json.loads(done.read_text(encoding="utf-8"))
    return {"folder": folder.name, "cells": data}


# -- the page's side ----------------------------------------------------------------------------


def _output_html(output: dict, figures: str, alt: str) -> str:
    """One of a state's outputs as HTML (text as MyST-NB shows a cell's printed text)."""
    data = output.get("data", {})
    if output.get("output_type") == "stream":
        text = html.escape(_text(output.get("text", "")))
        wrapper = '<div class="output stream highlight-myst-ansi notranslate"><div class="highlight">'
        return f"{wrapper}<pre>{text}</pre></div></div>"
    if "file" in data:
        size = "".join(f' {k}="{int(v)}"' for k, v in output.get("metadata", {}).items() if k in ("width", "height"))
        return f'<img class="rnn-slider-figure" src="{figures}/{data["file"]}" alt="{html.escape(alt)}"{size}>'
    if "text/html" in data:
        return f'<div class="output text_html">{_text(data["text/html"])}</div>'
    for kind in ("text/markdown", "text/plain"):
        if kind in data:
            return f"<p>{html.escape(_text(data[kind]))}</p>"
    return ""


def static_sentence(cell: dict | None, note: str) -> str:
    """What a widget that the site cannot move says instead of the note that running brings it."""
    if cell and cell["sliders"]:
        ranges = ", ".join(
            f"{s['description']} ({s['labels'][str(s['stops'][0])]} to {s['labels'][str(s['stops'][-1])]}, "
            f"starting at {s['labels'][str(s['start'])]})"
            for s in cell["sliders"]
        )
        what = f"sliders for the {ranges}"
    else:
        what = "its controls"
    if "Train" in note:
        return (
            f"In JupyterLab this cell shows {what} and a Train button, which trains a network with those "
            "settings while a progress bar follows it (the toolbar's ■ stops it), then draws the run. A static page "
            "cannot train: the runs stored on this page, above and below, show what such training "
            "gives; download the series to train your own."
        )
    return f"In JupyterLab this cell shows {what}; this page shows the cell's output where they start."


def slider_html(cell: dict, figures: str, alt: str, uid: str) -> str:
    """The widget cell's output on the page: the sliders, the starting state, the others in templates.

    cell: the cell's positions (``precompute``); figures: the URL of the folder holding its PNGs
    from the page; alt: the figures' alt text (each state's adds the sliders' readouts); uid: unique on the page.
    """
    sliders = cell["sliders"]
    start = [s["start"] for s in sliders]
    rows = []
    for k, s in enumerate(sliders):
        stops = s["stops"]
        labels = [s["labels"][str(i)] for i in stops]
        at = stops.index(s["start"])
        name = html.escape(s["description"])
        rows.append(
            f'<div class="rnn-slider-row"><label for="{uid}-{k}">{name}</label>'
            f'<input type="range" id="{uid}-{k}" min="0" max="{len(stops) - 1}" step="1" value="{at}" '
            f"data-stops='{html.escape(json.dumps(stops))}' data-labels='{html.escape(json.dumps(labels))}' "
            f'data-start="{at}" aria-valuetext="{html.escape(labels[at])}">'
            f'<output for="{uid}-{k}">{html.escape(labels[at])}</output></div>'
        )
    for f in cell.get("fixed", []):
        rows.append(
            '<div class="rnn-slider-row rnn-slider-fixed">'
            f'<span class="rnn-slider-label">{html.escape(f["description"])}</span>'
            f"<code>{html.escape(repr(f['value']))}</code> <span>(in JupyterLab you can type your own)</span></div>"
        )
    count = len(cell["states"])
    how = (
        "one slider at a time: moving one puts the others back where they start"
        if cell["mode"] == "one at a time"
        else ("every combination" if len(sliders) > 1 else "")
    )
    how = f" ({how})" if how else ""
    note = f"Computed when this site was built, at {count} positions{how}; in JupyterLab the sliders move freely."
    views, first = [], ""
    for state in cell["states"]:
        readouts = ", ".join(f"{s['description']} {s['labels'][str(i)]}" for s, i in zip(sliders, state["key"]))
        body = "".join(_output_html(o, figures, f"{alt} ({readouts})") for o in state["outputs"])
        key = ",".join(str(i) for i in state["key"])
        views.append(f'<template data-key="{key}">{body}</template>')
        if state["key"] == start:
            first = body
    return (
        f'<div class="rnn-sliders" data-mode="{html.escape(cell["mode"])}">'
        + "".join(rows)
        + f'<p class="rnn-sliders-note">{html.escape(note)}</p>'
        + f'<div class="rnn-sliders-view" aria-live="polite">{first}</div>'
        + "".join(views)
        + "</div>"
    )
