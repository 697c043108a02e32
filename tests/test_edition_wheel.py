"""The student edition's wheel: rnn_core built without its answers, which practice.solution then withholds.

Building needs pip to fetch setuptools (the build backend) once; without a network the test is skipped.
"""

import subprocess
import sys
import sysconfig
import zipfile

import pytest

from rnn_core.course.edition import EditionError, build_wheel


def test_the_wheel_leaves_the_answers_out_and_solution_withholds(tmp_path):
    try:
        wheel = build_wheel(tmp_path / "dist")
    except EditionError as e:
        if "pip could not build" in str(e):
            pytest.skip(f"no build backend to be had: {e}")
        raise
    names = zipfile.ZipFile(wheel).namelist()
    assert "rnn_core/practice.py" in names and "rnn_core/course/grade_child.py" in names
    assert not [n for n in names if n.endswith("/solutions.py")]
    assert "rnn_core/stored_runs/06-race.json" in names  # the long runs' stored results (rnn_core.stored)
    target = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)]
    subprocess.run(install, check=True)
    # a fresh Python that sees only the wheel's rnn_core and numpy (no site: no editable install of the repository)
    probe = (
        f"import sys; sys.path[:0] = [{str(target)!r}, {sysconfig.get_paths()['purelib']!r}]\n"
        "import numpy as np\nfrom rnn_core import practice\npractice.solution('softmax')\n"
        "practice.check('softmax', lambda o: np.exp(o - o.max()) / np.exp(o - o.max()).sum())\n"
    )
    run = subprocess.run([sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "built without the answers" in run.stdout and "softmax: passed" in run.stdout
    assert "np.max(o)" not in run.stdout  # the answer's code is nowhere
