"""The long runs' own pass: every notebook with each long run trained afresh (``--long-runs`` only).

The comparisons that notebooks 06 to 11 show from stored results while their ``LONG_RUNS`` parameter
is False (rnn_core/stored.py) are not trained by the default command: nbval checks the claims the
prose makes of them (tests/notebook_checks.py) on the stored results. This pass runs the notebooks
once more, strict nbval as in the main run and with its kernels under another CPU's OpenBLAS
kernels as there (conftest.py, ``kernel_core``), with every long run trained afresh
(``RNN_CORE_LONG_RUNS=1``), so that the same checks run on new runs, and each is compared with its
stored results. It took 7.0 minutes on a quiet 2-core machine (11's runs alone take about 6 minutes
of one core); run it after changing what a long run computes, before storing the runs again
(``tools/execute_notebooks.py --store-runs``):

    .venv/bin/python -m pytest --long-runs tests/test_long_runs.py

Without ``--long-runs`` it is deselected (conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 1500  # seconds for the whole pass


@pytest.mark.long_runs
def test_the_long_runs_hold_afresh():
    env = {**os.environ, "RNN_CORE_LONG_RUNS": "1"}
    # both cores, a notebook per worker (--dist loadfile, pyproject.toml), one BLAS thread each (conftest.py)
    command = [sys.executable, "-m", "pytest", "notebooks", "-q", "-n", "2"]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, f"with every long run afresh, nbval failed:\n{report}"
