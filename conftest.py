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

import json
import os
import signal

import pytest

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
    # the site test's build, in a folder of its own, which xdist's workers are told (pytest_configure_node);
    # started once a worker has collected a site test, or once nbval is done with the notebooks whose sliders'
    # positions it writes (tests/site/site_build.py)
    import site_build
    from site_build import SiteBuild

    build = SiteBuild(Path(tempfile.mkdtemp(prefix="rnn_site_build_")))
    config.stash[SITE_BUILD] = build
    config.stash[site_build.FOLDER] = build.folder
    _CONFIG[:] = [config]  # for pytest_runtest_logreport, which is not given it
    config.add_cleanup(lambda: shutil.rmtree(build.folder, ignore_errors=True))
    config.add_cleanup(build.stop)


SITE_BUILD = pytest.StashKey[object]()
_CONFIG = []  # the run's config, in xdist's controller or the one process of -n 0


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist's controller, for each worker: where the site test's build goes."""
    from site_build import WORKER_KEY

    node.workerinput[WORKER_KEY] = str(node.config.stash[SITE_BUILD].folder)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """xdist's controller, once a worker has collected: the site test's build starts in the background if a site
    test is among the tests and can run here (tests/site/site_build.py), at once, or, where nbval's kernels
    write the sliders' positions of some notebooks (site_build.slider_dumps), once nbval is done with them."""
    from site_build import DEFERRED, FED, what_is_missing

    build = node.config.stash[SITE_BUILD]
    if build.started() or build.deferred() or not any(i.startswith("tests/site/") for i in ids):
        return
    if what_is_missing() is not None:
        return
    fed = json.loads((build.folder / FED).read_text()) if (build.folder / FED).exists() else []
    waiting = {i for i in ids if i.split("::")[0] in {f"notebooks/{name}" for name in fed}}
    if waiting:
        node.config.stash[SITE_WAITING] = waiting
        (build.folder / DEFERRED).touch()
    else:
        build.start(low_priority=True)


SITE_WAITING = pytest.StashKey[set]()


def pytest_runtest_logreport(report):
    """xdist's controller: the site test's build starts once the notebooks it waits for are done (each item's
    teardown, or the report xdist makes for an item whose worker crashed, whose phase is "???")."""
    config = _CONFIG[0] if _CONFIG else None
    if config is None or SITE_WAITING not in config.stash or report.when not in ("teardown", "???"):
        return
    waiting = config.stash[SITE_WAITING]
    if report.nodeid in waiting:
        waiting.discard(report.nodeid)
        if not waiting and not config.stash[SITE_BUILD].started():
            config.stash[SITE_BUILD].start(low_priority=True)


# The order in which the files run. The default command runs two processes (-n 2, pyproject.toml), each
# taking the next whole file when it is free (--dist loadfile, in this order: --no-loadscope-reorder, without
# which xdist orders files by their number of tests). FIRST: the files that take longest, longest first
# (their times summed by --durations from a full run of the default command on the 2-core machine,
# 2026-11-30), so that they run beside the many short ones instead of leaving one process working alone
# at the end; then the other notebooks with sliders, so that the site test's build, which waits for nbval to
# have written their sliders' positions (tests/site/site_build.py), runs in the background long before the
# end. LAST: the site tests, which find it done by then; one file each for the two processes. Every other
# file keeps its place between them.
FIRST = (
    "tests/browser/test_sliders.py",  # the notebooks' Run All in JupyterLab
    "notebooks/10-deeper-networks-and-overfitting.ipynb",
    "tests/test_grade.py",
    "tests/test_grade_hostile.py",
    "tests/test_practice_hostile.py",
    "notebooks/07-what-the-network-learned.ipynb",
    "notebooks/08-gated-cells-lstm.ipynb",
    "tests/test_edition.py",
    "notebooks/12-attention.ipynb",
    "notebooks/06-training-on-pride-and-prejudice.ipynb",
    "tests/test_practice_mutations.py",
    "notebooks/05-bptt-in-practice.ipynb",
    "notebooks/03-the-forward-pass.ipynb",
    "notebooks/01-softmax-and-its-derivative.ipynb",
    "notebooks/04-backpropagation-through-time.ipynb",
    "notebooks/02-cross-entropy.ipynb",
)
LAST = (
    "tests/site/test_site_pages.py",  # every page on every screen
    "tests/site/test_site.py",  # the sliders moved, search, the archive, the metadata...
)


# -- nbval's kernels under another CPU's OpenBLAS kernels ------------------------------------------------
# OpenBLAS picks its compute kernels by the CPU it finds, and other CPUs' kernels add the same numbers
# in other orders: the last digits of a matrix product change, and a long float32 training run carries
# the change on. The notebooks' stored outputs were made with this machine's kernels (the maintainers'
# machine: Haswell); nbval runs every notebook's kernel with another CPU's (OPENBLAS_CORETYPE, read
# when numpy loads), so that the one strict pass checks both that the stored outputs are current and
# that none of them, and no assertion, holds only on the machine that made it. Sandybridge's kernels
# (AVX, no FMA: the most different from today's machines that every x86-64 CPU of the last decade can
# run), or Nehalem's (SSE) where the machine itself is a Sandybridge. Only the notebooks' kernels get
# it: the tests' own processes, and what they start, keep this machine's. A value already set in
# OPENBLAS_CORETYPE is kept (`OPENBLAS_CORETYPE=Haswell .venv/bin/python -m pytest notebooks` checks
# the notebooks under the Haswell kernels).
OTHER_CORE, FALLBACK_CORE = "Sandybridge", "Nehalem"


def _blas_name() -> str:
    import numpy as np

    try:
        return str(np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]).lower()
    except (AttributeError, KeyError, TypeError):
        return ""


def _default_core() -> str:
    """The kernels OpenBLAS chooses on this machine ('Haswell', 'SkylakeX', ...), or '' if it does not say."""
    import re
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["OPENBLAS_VERBOSE"] = "2"
    run = subprocess.run([sys.executable, "-c", "import numpy"], env=env, capture_output=True, text=True, timeout=60)
    m = re.search(r"Core:\s*(\w+)", run.stdout + run.stderr)
    return m.group(1) if m else ""


_KERNEL_CORE = []  # computed once per process: [the core nbval's kernels get, or "" for the machine's own]


def kernel_core() -> str:
    """The OPENBLAS_CORETYPE that nbval's kernels run with: the one already set, else another CPU's
    kernels than this machine's; "" where it cannot mean anything (not an x86-64 machine, or numpy
    not built on OpenBLAS)."""
    import platform

    if not _KERNEL_CORE:
        if os.environ.get("OPENBLAS_CORETYPE"):
            core = os.environ["OPENBLAS_CORETYPE"]
        elif platform.machine().lower() not in ("x86_64", "amd64") or "openblas" not in _blas_name():
            core = ""
        else:
            core = FALLBACK_CORE if _default_core().lower() == OTHER_CORE.lower() else OTHER_CORE
        _KERNEL_CORE.append(core)
    return _KERNEL_CORE[0]


def pytest_report_header(config):
    if config.getoption("nbval", default=False):
        core = kernel_core()
        where = f"OpenBLAS's {core} kernels" if core else "this machine's BLAS kernels (no other to choose here)"
        return f"nbval's notebook kernels run with {where}"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """nbval starts a notebook's kernel while setting up its first cell: with OPENBLAS_CORETYPE set
    to kernel_core() for that moment only."""
    core = kernel_core() if type(item).__name__ == "IPyNbCell" else ""
    if not core or os.environ.get("OPENBLAS_CORETYPE"):
        return (yield)
    os.environ["OPENBLAS_CORETYPE"] = core
    try:
        return (yield)
    finally:
        os.environ.pop("OPENBLAS_CORETYPE", None)


def pytest_addoption(parser):
    parser.addoption(
        "--long-runs",
        action="store_true",
        help="also run the long runs' own pass (tests/test_long_runs.py, marked long_runs): every notebook with "
        "its long runs trained afresh, about 7 minutes on 2 cores; without it those tests are deselected",
    )


def pytest_collection_modifyitems(config, items):
    """Without --long-runs, the tests marked long_runs are left out. nbval's notebook cells get, right
    after the cells they follow, the checks of what the notebooks' trained networks achieve
    (tests/notebook_checks.py), run in the notebook's own kernel. Then the files of FIRST go
    first and those of LAST last, each file's items in their order."""
    if not config.getoption("--long-runs"):
        left_out = [item for item in items if item.get_closest_marker("long_runs")]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if not item.get_closest_marker("long_runs")]
    if any(type(item).__name__ == "IPyNbCell" for item in items):
        import notebook_checks  # tests/notebook_checks.py (tests/ is on the tests' path: pyproject.toml)
        import site_build  # tests/site/

        if any(item.get_closest_marker("site") for item in items) and site_build.what_is_missing() is None:
            site_build.slider_dumps(items, site_build.build_folder(config))  # first: right after their slider cells
        notebook_checks.insert_checks(items)
        core = kernel_core()
        if core:  # each notebook's kernel says it ran with the kernels named in the run's header
            ran = f"import os\nfound = os.environ.get('OPENBLAS_CORETYPE')\nassert found == {core!r}, found"
            claim = f"the notebook ran with OpenBLAS's {core} kernels"
            names = {item.path.name for item in items if type(item).__name__ == "IPyNbCell"}
            notebook_checks.insert_checks(items, {name: [notebook_checks.Check(claim, ran)] for name in names})
    rank = {name: k for k, name in enumerate(FIRST)}
    rank.update({name: len(FIRST) + 1 + k for k, name in enumerate(LAST)})

    def place(item):
        try:
            name = item.path.relative_to(config.rootpath).as_posix()
        except ValueError:  # a file outside the repository (pytester's)
            return len(FIRST)
        return rank.get(name, len(FIRST))

    items.sort(key=place)  # stable: the order within a file, and among the others, is kept
