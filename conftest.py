"""Test-run settings shared by the unit tests, nbval's notebook kernels and the browser test, and the
notebooks' checks (tests/notebook_checks.py), which nbval runs among the notebooks' cells.

One BLAS thread per process. The suite runs several processes at once (the browser test runs every
notebook side by side, each in its own kernel), and the series' matrix products are small: with
OpenBLAS's default of one thread per core, the threads of different kernels wait on each other
and a notebook can run ten times slower (measured on the 2-core CI machine: notebook 08 under
strict nbval took 11 minutes at load 9-10 with the default, under a minute with one thread;
stored outputs are the same either way). Kernels inherit this process's environment, so setting
it here, before numpy is imported, covers them all. A value already set is kept.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def pytest_configure(config):
    """Every notebook of the run reads the same fresh template as the reader's my_rnn.py.

    $RNN_CORE_MY_RNN (rnn_core.practice.my_rnn) names a template made here in a temporary folder, so
    that the notebooks' my_rnn cells print what their stored outputs hold (every piece falling back
    to rnn_core's), whatever a developer keeps in notebooks/my_rnn.py. It is set before any kernel
    starts, and xdist's workers and nbval's kernels inherit it. A value already set is replaced: it
    may name someone's answers.
    """
    if hasattr(config, "workerinput"):
        return  # an xdist worker: its controller has set it
    import contextlib
    import io
    import shutil
    import tempfile
    from pathlib import Path

    from rnn_core import practice

    folder = Path(tempfile.mkdtemp(prefix="rnn_core_my_rnn_"))
    mine = folder / "notebooks" / "my_rnn.py"  # printed as a reader's is: notebooks/my_rnn.py
    mine.parent.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        practice.my_rnn(mine)  # made as a reader's first call makes it
    os.environ[practice.MY_RNN_ENV] = str(mine)
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config, items):
    """nbval's notebook cells get, right after the cells they follow, the checks of what the notebooks'
    trained networks achieve (tests/notebook_checks.py), run in the notebook's own kernel."""
    if not any(type(item).__name__ == "IPyNbCell" for item in items):
        return
    import importlib.util
    import sys
    from pathlib import Path

    checks = sys.modules.get("notebook_checks")
    if checks is None:  # registered before it runs: its dataclass looks itself up there
        path = Path(__file__).parent / "tests" / "notebook_checks.py"
        spec = importlib.util.spec_from_file_location("notebook_checks", path)
        checks = sys.modules["notebook_checks"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(checks)
    checks.insert_checks(items)
