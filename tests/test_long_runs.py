"""Every notebook once more, with OpenBLAS rounding the way another CPU does (issue 20).

nbval compares each cell's stored output with what it prints now, and the stored outputs must hold
on any reader's machine, not only on the one that made them. OpenBLAS picks its compute kernels by
the CPU it finds, and kernels for other CPUs add the same numbers in other orders: the last digits
of a matrix product change, and a long float32 training run carries the change on. Setting
``OPENBLAS_CORETYPE`` makes OpenBLAS use another CPU's kernels, so this test runs the notebooks,
strict nbval as in the main run, under the Sandybridge kernels (AVX, no FMA: the most different from
today's machines that every x86-64 CPU of the last decade can run), or under Nehalem's (SSE) where
the machine itself is a Sandybridge. A notebook whose assertion or printed number depends on the
CPU fails here, not on a reader's laptop.

The long runs (rnn_core/stored.py: the comparisons a notebook's ``LONG_RUNS = False`` shows from stored
results) have a pass of their own, outside the default command: ``python -m pytest --long-runs
tests/test_other_cpu.py`` runs every notebook once more under the same other kernels with every long
run trained afresh (``RNN_CORE_LONG_RUNS=1``), so that the claims tests/notebook_checks.py makes of
them are checked on new runs, and each is compared with its stored results. It took 7.0 minutes on a
quiet 2-core machine, against 3.0 without the long runs (11's runs alone take about 6 minutes of one
core); run it after changing what a long run computes, before storing the runs again
(``tools/execute_notebooks.py --store-runs``).

Skipped where it cannot mean anything: not an x86-64 machine, or a numpy not built on OpenBLAS.
Deselect it with ``-m "not other_cpu"``. Run it alone with ``python -m pytest tests/test_other_cpu.py``.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
OTHER_CORE, FALLBACK_CORE = "Sandybridge", "Nehalem"
TIMEOUT = 1500  # seconds for the whole pass; the notebooks take a few minutes

pytestmark = pytest.mark.other_cpu


def _blas_name():
    try:
        return str(np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]).lower()
    except (AttributeError, KeyError, TypeError):
        return ""


def _default_core():
    """The kernels OpenBLAS chooses on this machine ('Haswell', 'SkylakeX', ...), or '' if it does not say."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["OPENBLAS_VERBOSE"] = "2"
    run = subprocess.run([sys.executable, "-c", "import numpy"], env=env, capture_output=True, text=True, timeout=60)
    m = re.search(r"Core:\s*(\w+)", run.stdout + run.stderr)
    return m.group(1) if m else ""


def _nbval_with_another_cpus_kernels(long_runs: bool):
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"OPENBLAS_CORETYPE chooses among x86-64 kernels; this machine is {platform.machine()}")
    if "openblas" not in _blas_name():
        pytest.skip(f"numpy here is built on {_blas_name() or 'an unknown BLAS'}, not OpenBLAS")
    core = FALLBACK_CORE if _default_core().lower() == OTHER_CORE.lower() else OTHER_CORE
    env = {k: v for k, v in os.environ.items() if k != "RNN_CORE_LONG_RUNS"}
    env.update(OPENBLAS_CORETYPE=core, **({"RNN_CORE_LONG_RUNS": "1"} if long_runs else {}))
    # both cores, a notebook per worker (--dist loadfile, pyproject.toml), one BLAS thread each (conftest.py)
    command = [sys.executable, "-m", "pytest", "notebooks", "-q", "-n", "2"]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    report = run.stdout[-6000:] + run.stderr[-2000:]
    runs = " with every long run afresh" if long_runs else ""
    assert run.returncode == 0, f"with OPENBLAS_CORETYPE={core}{runs}, nbval failed:\n{report}"


def test_the_notebooks_pass_with_another_cpus_kernels():
    _nbval_with_another_cpus_kernels(long_runs=False)


@pytest.mark.long_runs
def test_the_long_runs_hold_afresh_with_another_cpus_kernels():
    _nbval_with_another_cpus_kernels(long_runs=True)
