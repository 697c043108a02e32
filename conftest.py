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
import signal

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

# Ctrl+C as a terminal gives it. A run started in the background by a non-interactive shell
# (`cmd &` in a script) inherits SIGINT ignored, and Python leaves it ignored; the tests of the
# stop button and of Ctrl+C (test_practice*, test_cli) then fail, and the processes they start
# inherit it too. Set here, in every process of the run (xdist's workers load this file too).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


# The files that take longest, longest first (their times summed by --durations from a full run of
# the default command on the 2-core machine, 2026-11-30: the site 1,106 s, the browser 878 s, the
# other-CPU pass 307 s, then nbval's longest notebooks and the grader's tests). The default command
# runs two processes (-n 2, pyproject.toml), each taking the next whole file when it is free (--dist
# loadfile, in this order: --no-loadscope-reorder, without which xdist orders files by their number
# of tests); started first, the long files run beside the many short ones instead of leaving one
# process working alone at the end. Every other file keeps its place after these.
LONGEST_FIRST = (
    "tests/site/test_site.py",  # the site's build runs the slider notebooks, then Chromium reads every page
    "tests/browser/test_sliders.py",  # the notebooks' Run All in JupyterLab
    "tests/test_other_cpu.py",  # every notebook again, itself in two processes
    # xdist hands a process holding one test a second file at once (xdist's LoadScopeScheduling): a
    # short one here, so that no long file waits behind the pass above
    "tests/test_citation.py",
    "notebooks/10-deeper-networks-and-overfitting.ipynb",
    "tests/test_grade.py",
    "tests/test_grade_hostile.py",
    "notebooks/07-what-the-network-learned.ipynb",
    "notebooks/08-gated-cells-lstm.ipynb",
    "tests/test_edition.py",
    "notebooks/12-attention.ipynb",
    "notebooks/06-training-on-pride-and-prejudice.ipynb",
    "tests/test_practice_mutations.py",
)


def pytest_addoption(parser):
    parser.addoption(
        "--long-runs",
        action="store_true",
        help="also run the long runs' own pass (tests/test_other_cpu.py, marked long_runs): every notebook with "
        "its long runs trained afresh, about 7 minutes on 2 cores; without it those tests are deselected",
    )


def pytest_collection_modifyitems(config, items):
    """Without --long-runs, the tests marked long_runs are left out. nbval's notebook cells get, right
    after the cells they follow, the checks of what the notebooks' trained networks achieve
    (tests/notebook_checks.py), run in the notebook's own kernel. Then the files of LONGEST_FIRST go
    first, each file's items in their order."""
    if not config.getoption("--long-runs"):
        left_out = [item for item in items if item.get_closest_marker("long_runs")]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if not item.get_closest_marker("long_runs")]
    if any(type(item).__name__ == "IPyNbCell" for item in items):
        import notebook_checks  # tests/notebook_checks.py (tests/ is on the tests' path: pyproject.toml)

        notebook_checks.insert_checks(items)
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}

    def place(item):
        try:
            name = item.path.relative_to(config.rootpath).as_posix()
        except ValueError:  # a file outside the repository (pytester's)
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=place)  # stable: the order within a file, and among the others, is kept
