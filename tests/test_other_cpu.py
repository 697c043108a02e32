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

This pass also runs every long run (``RNN_CORE_LONG_RUNS=1``, rnn_core/stored.py): the comparisons that
a notebook's ``LONG_RUNS = False`` shows from stored results train afresh here, once in the suite, so
that the claims tests/notebook_checks.py makes of them are checked on new runs under other kernels,
and each is compared with its stored results.

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


def test_the_notebooks_pass_with_another_cpus_kernels():
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"OPENBLAS_CORETYPE chooses among x86-64 kernels; this machine is {platform.machine()}")
    if "openblas" not in _blas_name():
        pytest.skip(f"numpy here is built on {_blas_name() or 'an unknown BLAS'}, not OpenBLAS")
    core = FALLBACK_CORE if _default_core().lower() == OTHER_CORE.lower() else OTHER_CORE
    env = {**os.environ, "OPENBLAS_CORETYPE": core, "RNN_CORE_LONG_RUNS": "1"}
    # both cores, a notebook per worker (--dist loadfile, pyproject.toml), one BLAS thread each (conftest.py)
    command = [sys.executable, "-m", "pytest", "notebooks", "-q", "-n", "2"]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, f"with OPENBLAS_CORETYPE={core}, nbval failed:\n{report}"
