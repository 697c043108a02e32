"""How the browser test shortens the notebooks' long runs, without a cell of the notebooks' own for it.

A notebook keeps its hyperparameters in visible cells tagged ``parameters``, one plain assignment
per line (``MAIN_STEPS = 6000  # the long run (section 4)``). The browser test serves copies of the
notebooks in which the assignments named in ``QUICK`` get the quick values below instead, so that
Run All finishes in seconds; nothing in a notebook reads an environment variable for it, and
nothing it asserts depends on it (the claims about trained networks are checked by nbval's full
runs, tests/notebook_checks.py). A name listed here must be assigned in a ``parameters`` cell of
its notebook, once: a renamed or moved hyperparameter fails the test instead of silently running
the long version. A parameter that only a long run shown from stored results reads (rnn_core/stored.py:
06's race of update rules, 10's race of depths and its ending) is left as it is: shortened, it would
change the run's settings, and the run would train here instead of showing the stored results.
"""

from __future__ import annotations

import ast

import nbformat

TAG = "parameters"

QUICK: dict[str, dict[str, object]] = {
    "06-training-on-pride-and-prejudice.ipynb": {
        "MAIN_STEPS": 200,  # the long run with rnn_core.train (section 4)
        "HAND_STEPS": 20,  # the hand-written loop against rnn_core.train (section 3)
        "SAMPLE_AT": (50, 100),  # steps of the long run at which it writes
        "YOURS_STEPS": 50,  # the reader's own small network (section 3)
    },
    "07-what-the-network-learned.ipynb": {
        "MAIN_STEPS": 30,  # the network that sections 2 and 3 look inside
        "SWEEP_STEPS": 20,  # each run of the hidden-size sweep, and of the slider
        "CLIP_STEPS": 20,  # each run of the comparison of spectral radii and clipping
        "PROBE_LENGTH": 2_000,  # characters the probes are fitted on, and tested on
    },
    "08-gated-cells-lstm.ipynb": {
        "LAGS": (5, 40),  # the recall task's lags
        "SEEDS": (0,),  # one run per cell, lag and size instead of three
        "CONTROL_LAGS": (40,),  # the parameter-matched controls, at a lag the quick run trains
        "MAX_UPDATES": 30,  # updates per run of the recall task
        "PP_VANILLA_UPDATES": 20,  # the race on the novel: the vanilla RNN's updates
        "PP_CHECKPOINTS": 2,  # validation points along each run of the race
    },
    "09-gated-cells-gru.ipynb": {
        "LAGS": (5, 40),
        "SEEDS": (0,),
        "MAX_UPDATES": 30,
        "WATCH_AT": (0, 10, 20),  # the snapshots of the first updates (section 4)
        "PP_VANILLA_UPDATES": 20,
        "PP_CHECKPOINTS": 2,
    },
    "10-deeper-networks-and-overfitting.ipynb": {
        "SMALL_STEPS": 40,  # each run on the piece (sections 2 to 4)
        "SLIDER_RATES": (0.0, 0.3, 0.5),  # the dropout-rate slider's runs
    },
    "12-attention.ipynb": {
        "STEPS": 20,  # each training run on dates (sections 4 and 5)
        "HELD_OUT": 60,  # held-out dates decoded
    },
}


class ParameterError(ValueError):
    """A quick value that has no assignment to replace in the notebook's parameters cells."""


def _assignments(source: str) -> dict[str, list[ast.expr]]:
    """name -> the value expressions assigned to it at the top level of a cell (``NAME = value``)."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value)
    return found


def _replace(source: str, values: dict[str, object]) -> tuple[str, set[str]]:
    """source with the value of each ``NAME = ...`` whose NAME is in values replaced by its repr;
    also the names replaced. Comments and everything else are kept."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def position(lineno, col):  # ast's (line, UTF-8 byte column) -> index in source
        line = lines[lineno - 1]
        return offsets[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))

    spans = []
    for name, exprs in _assignments(source).items():
        if name in values:
            for expr in exprs:
                spans.append(
                    (position(expr.lineno, expr.col_offset), position(expr.end_lineno, expr.end_col_offset), name)
                )
    for start, end, name in sorted(spans, reverse=True):
        source = source[:start] + repr(values[name]) + source[end:]
    return source, {name for _, _, name in spans}


def apply_quick_parameters(nb, values: dict[str, object]):
    """The notebook (changed in place, and returned) with the quick values in its parameters cells.

    Raises ParameterError when a name of values is assigned in no ``parameters`` cell.
    """
    replaced: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and TAG in cell.get("metadata", {}).get("tags", []):
            cell.source, names = _replace(cell.source, values)
            replaced |= names
    missing = set(values) - replaced
    if missing:
        raise ParameterError(
            f"tests/browser/quick_parameters.py shortens {sorted(missing)}, but no cell tagged "
            f"{TAG!r} assigns them (NAME = value, one per line): rename them there too"
        )
    return nb


def quick_copy(src, dst, values: dict[str, object] | None = None) -> None:
    """Write the notebook src to dst with its quick values (``QUICK[src.name]`` unless given)."""
    nb = nbformat.read(src, as_version=4)
    apply_quick_parameters(nb, QUICK.get(src.name, {}) if values is None else values)
    nbformat.write(nb, dst)
