"""Reading, writing and running the series' notebooks, shared by the scripts in tools/ (and by
benchmarks/run_all.py and site/rnn_sliders.py, which run them too).

The notebooks are ``notebooks/NN-slug.ipynb`` (two digits, a dash, a slug), in reading order. They
are read and written through nbformat, never as hand-laid JSON: a script that rewrites a notebook
writes it exactly as Jupyter saves it (nbformat's layout and a final newline), so that opening and
saving it in Jupyter afterwards changes no byte, and a script that changes nothing leaves the file as
it was.
"""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"
SHELL_WAIT = 1.0  # seconds: the longest nbclient waits on the kernel's shell socket before looking again


def notebook_paths(notebooks_dir):
    """Every notebooks_dir/NN-*.ipynb, in reading order."""
    return sorted(Path(notebooks_dir).glob(NOTEBOOK_GLOB))


def reads(text):
    """The notebook in ``text`` (nbformat 4), each cell's source one string."""
    return nbformat.reads(text, as_version=4)


def source(cell):
    """A cell's source as one string (a cell built by hand may hold a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def dumps(nb):
    """The notebook ``nb`` (a NotebookNode or a plain dict) as Jupyter saves it."""
    return nbformat.writes(nbformat.from_dict(nb)) + "\n"


def write(nb, path):
    """Write the notebook ``nb`` to ``path`` as Jupyter saves it, validated first, whole or not at all
    (a temporary file beside it, then renamed over it)."""
    path = Path(path)
    nbformat.validate(nbformat.from_dict(nb))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(dumps(nb), encoding="utf-8")
    os.replace(tmp, path)


def client(nb, folder, timeout, record_timing=False):
    """An nbclient ``NotebookClient`` that runs ``nb`` as Run All does: in a fresh python3 kernel (the
    environment's own), with ``folder`` as its working folder, stopping at the first cell that raises;
    ``timeout``: the seconds one cell may take. ``record_timing`` stores each cell's start and end in its
    metadata.

    It keeps the widgets' state while it runs (without it, a cell that prints into an ipywidgets
    Output, as ipywidgets.interactive does, fails with a KeyError), and it never hangs on a finished
    cell: see ``_ShellWaitsInSlices``."""
    return _ShellWaitsInSlices(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},  # the kernel's working folder
        allow_errors=False,
        record_timing=record_timing,
        store_widget_state=True,
    )


class _ShellWaitsInSlices(NotebookClient):
    """nbclient's client, waiting for a cell's reply in slices of SHELL_WAIT seconds (``in_slices``).

    nbclient waits for a cell's reply with one wait on the shell socket as long as the cell's timeout.
    While it waits, its stand-in for an ipywidgets Output (store_widget_state) sends the widget's new
    outputs to the kernel on that same socket. Now and then the reply arrives together with that send
    and the wait is never woken: the cell has finished, and the run sits idle until the cell's timeout
    (nbclient's issue 312 reports the same hang: https://github.com/jupyter/nbclient/issues/312).
    Measured here, on a busy 2-core machine, with a small notebook whose cell prints into an Output:
    without slices, 2 runs in about 45 hung; with them, none in 69, and in 10 of those the reply to
    that cell was read when a 1 s slice ran out (its usual wait is 0.1-0.3 s). A wait that ends looks
    at the socket itself, so the reply is read at most SHELL_WAIT late, and the cell's timeout still
    holds."""

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        kc.shell_channel.get_msg = in_slices(kc.shell_channel.get_msg)
        return kc


def in_slices(get_msg, seconds=SHELL_WAIT):
    """``get_msg(timeout=...)`` (a kernel channel's coroutine function, raising queue.Empty when nothing
    came within ``timeout`` seconds; None: no limit), waiting at most ``seconds`` at a time and again
    until its own timeout is spent."""

    async def get_msg_in_slices(timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await get_msg(timeout=seconds if left is None else min(seconds, left))
            except queue.Empty:
                if left is not None and left <= seconds:
                    raise

    return get_msg_in_slices
