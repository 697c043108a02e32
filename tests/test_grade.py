"""The grader (rnn_core.course.grade, ``python -m rnn_core grade``) on mock submissions made from the real notebooks.

Each mock submission is the student edition of the series with its tagged exercise cells filled in:
right answers from tests/plain_my_rnn.py (written independently of rnn_core), wrong ones, one that
imports rnn_core, ones that hang or end the process, one half done. So the tests follow the
notebooks: a notebook whose exercise cells change is graded as it now is. Each exercise's cell runs
alone in a child process, so every notebook, 07 included, takes a few seconds an exercise.
tests/test_grade_hostile.py holds the submissions written to fool the grader.
"""

import csv
import inspect
import io
import json
import math
import re
import threading
import time
import types
from pathlib import Path

import nbformat
import plain_my_rnn  # tests/plain_my_rnn.py
import pytest

from quick_parameters import QUICK, apply_quick_parameters  # tests/browser/quick_parameters.py
from rnn_core import practice
from rnn_core.cli import main
from rnn_core.course import grade
from rnn_core.course.edition import write_student_edition

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = "30"  # seconds for an exercise here: the right answers take up to about 2.5 s on a quiet machine
# (the hidden cases reach V = 80,000 and T = 1,300), several times that while the suite loads both cores

# Gradescope's documented fields of results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/)
GRADESCOPE_TOP = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}


def assert_gradescope(results):
    """results.json as Gradescope documents it: known fields of the right types, scores adding up."""
    json.dumps(results, allow_nan=False)  # plain JSON: no NaN or infinity
    assert set(results) <= GRADESCOPE_TOP, set(results) - GRADESCOPE_TOP
    number = (int, float)
    assert isinstance(results["score"], number) and not isinstance(results["score"], bool)
    assert isinstance(results["execution_time"], number) and isinstance(results["output"], str)
    assert isinstance(results["tests"], list) and results["tests"]
    for test in results["tests"]:
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert {"name", "score", "max_score", "output"} <= set(test)
        assert isinstance(test["name"], str) and isinstance(test["output"], str) and test["output"]
        assert isinstance(test["score"], number) and isinstance(test["max_score"], number)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["number"], str) and re.fullmatch(r"\d+\.\d+", test["number"])
        assert all(isinstance(tag, str) for tag in test["tags"]) and isinstance(test["extra_data"], dict)
    assert math.isclose(results["score"], sum(t["score"] for t in results["tests"]))


# -- mock submissions --------------------------------------------------------------------------------------

PLAIN = {name: inspect.getsource(fn) for name, fn in vars(plain_my_rnn).items() if inspect.isfunction(fn)}


def right(name):
    """A right answer for exercise ``name``: the plain function and the plain functions it calls."""
    order = []

    def add(function):
        for other in PLAIN:
            if other != function and other not in order and re.search(rf"\b{other}\(", PLAIN[function]):
                add(other)
        if function not in order:
            order.append(function)

    add(name.replace(".", "_"))
    return "\n\n".join(PLAIN[f] for f in order)


def fill(edition, notebook, answers, insert_before=None):
    """The edition's notebook (nbformat's) with the cells tagged exercise:<name> replaced by ``answers[name]``.

    insert_before: {name: source}: a code cell of the student's own, put before that exercise's cell."""
    nb = nbformat.read(edition / notebook, as_version=4)
    if notebook in QUICK:
        apply_quick_parameters(nb, QUICK[notebook])
    cells = []
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        name = next((t[len("exercise:") :] for t in tags if t.startswith("exercise:")), None)
        if name in (insert_before or {}):
            cells.append(nbformat.v4.new_code_cell(insert_before[name], id=f"mine-{len(cells)}"))
        if name in answers:
            cell = nbformat.v4.new_code_cell(answers[name], id=cell.id, metadata=cell.metadata)
        cells.append(cell)
    nb["cells"] = cells
    for cell in cells:
        if cell.get("id", "").startswith("mine-"):
            cell["metadata"] = {"tags": ["helper"]}
    return nb


def write(folder, notebook, nb):
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.from_dict(nb), folder / notebook)


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    base = tmp_path_factory.mktemp("grading")
    edition = base / "edition"
    write_student_edition(edition, ROOT / "notebooks")
    by_notebook = {}
    for name, notebook in practice.EXERCISES.items():
        by_notebook.setdefault(notebook, []).append(name)

    # every right answer; the LSTM's steps call a helper the student wrote in a cell of their own, tagged helper
    good = base / "right"
    for notebook, names in by_notebook.items():
        answers = {name: right(name) for name in names}
        helper = {}
        if notebook.startswith("08"):
            answers = {name: re.sub(r"\bsigmoid\(", "squash(", PLAIN[name.replace(".", "_")]) for name in names}
            helper = {"lstm.step_forward": "def squash(a):\n    return 1.0 / (1.0 + np.exp(-a))\n"}
        write(good, notebook, fill(edition, notebook, answers, helper))

    # wrong, delegating, hanging, crashing, unparsable
    bad = base / "wrong"
    write(bad, "00-start-here.ipynb", fill(edition, "00-start-here.ipynb", {
        "one_hot": "def one_hot(y, num_classes):\n    while True:  # hangs\n        pass\n"}))  # fmt: skip
    write(bad, "01-softmax-and-its-derivative.ipynb", fill(edition, "01-softmax-and-its-derivative.ipynb", {
        "softmax": "def softmax(o):\n    e = np.exp(o)  # no shift\n    return e / e.sum()\n",
        "softmax_jacobian": "import rnn_core.functions as f\n\n\ndef softmax_jacobian(y_hat):\n"
        "    return f.softmax_jacobian(y_hat)\n"}))  # fmt: skip
    write(bad, "02-cross-entropy.ipynb", fill(edition, "02-cross-entropy.ipynb", {
        "cross_entropy_grad": right("cross_entropy_grad") + "\n\nwhile True:  # never ends\n    pass\n"}))  # fmt: skip
    write(bad, "03-the-forward-pass.ipynb", fill(edition, "03-the-forward-pass.ipynb", {
        "step_forward": right("step_forward") + "\n\nos = np._pytesttester.os  # import os: refused\n\nos._exit(3)\n",
    }))  # fmt: skip
    (bad / "04-backpropagation-through-time.ipynb").write_text('{"cells": [ not json', encoding="utf-8")
    write(bad, "05-bptt-in-practice.ipynb", fill(edition, "05-bptt-in-practice.ipynb", {
        "clip_global_norm": "def clip_global_norm(grads, max_norm)\n    return grads, 0.0\n"}))  # fmt: skip

    # half done: step_backward written, loss_and_grads still the stub
    half = base / "half"
    backprop = "04-backpropagation-through-time.ipynb"
    write(half, backprop, fill(edition, backprop, {"step_backward": right("step_backward")}))
    return base, good, bad, half


@pytest.fixture(scope="module")
def graded(submissions):
    """The three submissions graded in one command: (JSON, CSV rows, printed lines)."""
    base, good, bad, half = submissions
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["grade", str(good), str(bad), str(half), "--json", str(base / "results.json"),
         "--csv", str(base / "grades.csv"), "--seed", "2024", "--exercise-timeout", TIMEOUT],
        out=out,
        err=err,
    )  # fmt: skip
    assert code == 0, err.getvalue()
    data = json.loads((base / "results.json").read_text(encoding="utf-8"))
    with open(base / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return data, rows, out.getvalue()


def by_name(data, submission):
    results = next(s["results"] for s in data["submissions"] if s["submission"] == str(submission))
    return results, {t["name"]: t for t in results["tests"]}


def test_right_answers_score_full_marks(submissions, graded):
    _, good, _, _ = submissions
    data, _, _ = graded
    results, tests = by_name(data, good)
    assert {n for n, t in tests.items() if t["extra_data"]["status"] == "passed"} == set(practice.EXERCISES), {
        n: t["output"] for n, t in tests.items() if t["extra_data"]["status"] != "passed"
    }
    assert results["score"] == len(practice.EXERCISES)
    # the helper in a cell of the student's own, tagged helper, before the exercise's cell, ran before it
    assert tests["lstm.step_forward"]["score"] == 1
    assert "after cell" in tests["lstm.step_forward"]["output"]
    # softmax is graded as the student wrote it, though 01 later runs `from rnn_core import softmax`
    assert "Graded: softmax from its cell" in tests["softmax"]["output"]


def test_wrong_delegating_hanging_and_broken_answers_score_zero_with_the_reason(submissions, graded):
    _, _, bad, _ = submissions
    data, _, _ = graded
    results, tests = by_name(data, bad)
    status = {n: t["extra_data"]["status"] for n, t in tests.items()}
    expected = {
        "one_hot": ("error", "still running after 6 s"),  # the grader stops each call after 6 s (3 s, traced)
        "softmax": ("wrong", '"no shift by the largest score"'),
        "softmax_jacobian": ("delegated", "Its cell imports rnn_core"),
        "cross_entropy_grad": ("timed out", f"it ran past its time limit ({TIMEOUT} s)"),
        "step_forward": ("error", "it ended its process (exit code 3)"),
        "step_backward": ("missing", "could not be read as a notebook"),
        "loss_and_grads": ("missing", "could not be read as a notebook"),
        "clip_global_norm": ("error", "syntax error"),
    }
    for name, (want, words) in expected.items():
        assert status[name] == want, (name, tests[name]["output"])
        assert words in tests[name]["output"], (name, tests[name]["output"])
        assert tests[name]["score"] == 0 and tests[name]["status"] == "failed"
    assert results["score"] == 0
    assert "could not be read" in results["output"]


def test_a_half_done_notebook_scores_per_exercise(submissions, graded):
    _, _, _, half = submissions
    data, rows, printed = graded
    _, tests = by_name(data, half)
    assert tests["step_backward"]["score"] == 1 and tests["step_backward"]["status"] == "passed"
    assert tests["loss_and_grads"]["score"] == 0 and tests["loss_and_grads"]["extra_data"]["status"] == "not attempted"
    assert "later cell is not seen" in tests["loss_and_grads"]["output"]
    row = next(r for r in rows if r["submission"] == str(half))
    assert (row["step_backward"], row["loss_and_grads"], row["loss_and_grads status"]) == ("1", "0", "not attempted")
    assert f"{half}: 1/" in printed


def test_results_follow_gradescope_s_documented_fields(graded):
    data, _, _ = graded
    assert data["grader"].startswith("rnn_core ") and len(data["submissions"]) == 3
    names = None
    for submission in data["submissions"]:
        assert_gradescope(submission["results"])
        these = [t["name"] for t in submission["results"]["tests"]]
        assert these == [n for n in practice.EXERCISES if n in these]  # reading order
        assert names is None or these == names  # every submission scored on the same exercises
        names = these


def test_the_csv_has_one_row_per_submission(submissions, graded):
    _, good, bad, half = submissions
    data, rows, _ = graded
    assert [r["submission"] for r in rows] == [str(good), str(bad), str(half)]
    assert [r["student"] for r in rows] == ["right", "wrong", "half"]  # the folders' names
    for row, submission in zip(rows, data["submissions"]):
        tests = submission["results"]["tests"]
        assert float(row["score"]) == submission["results"]["score"]
        assert float(row["max_score"]) == sum(t["max_score"] for t in tests)
        for t in tests:
            assert float(row[t["name"]]) == t["score"] and row[f"{t['name']} status"] == t["extra_data"]["status"]


def test_one_submission_writes_gradescope_s_results_json_itself(submissions, tmp_path, capsys):
    _, _, _, half = submissions
    target = tmp_path / "autograder" / "results" / "results.json"
    args = ["grade", str(half / "04-backpropagation-through-time.ipynb"), "--json", str(target)]
    assert main([*args, "--points", "step_backward=2", "loss_and_grads=3"]) == 0
    results = json.loads(target.read_text(encoding="utf-8"))
    assert_gradescope(results)
    tests = {t["name"]: t for t in results["tests"]}
    assert (tests["step_backward"]["score"], tests["step_backward"]["max_score"]) == (2, 2)
    assert (tests["loss_and_grads"]["score"], tests["loss_and_grads"]["max_score"]) == (0, 3)
    assert results["score"] == 2 and tests["step_backward"]["number"] == "4.1"
    assert "2/5" in capsys.readouterr().out


def test_hidden_cases_come_from_the_instructor_s_seed_never_the_submission(submissions):
    _, _, bad, _ = submissions
    first = grade.grade([bad / "01-softmax-and-its-derivative.ipynb"], seed=7, exercises=["softmax"])
    again = grade.grade([bad / "01-softmax-and-its-derivative.ipynb"], seed=7, exercises=["softmax"])
    assert first[0].exercises[0].message == again[0].exercises[0].message
    seeds = {grade._seed(7, "softmax"), grade._seed(8, "softmax"), grade._seed(7, "one_hot")}
    assert len(seeds) == 3 and all(0 <= s < 2**63 for s in seeds)
    assert list(inspect.signature(grade._seed).parameters) == ["seed", "name"]  # nothing of the submission
    log = io.StringIO()
    (drawn,) = grade.grade([bad / "01-softmax-and-its-derivative.ipynb"], exercises=["softmax"], log=log)
    assert isinstance(drawn.drawn_seed, int) and f"seed {drawn.drawn_seed} (drawn" in log.getvalue()
    assert drawn.drawn_seed >= grade.SMALL_SEED and "warning" not in log.getvalue()  # a drawn seed is large
    assert str(drawn.drawn_seed) not in json.dumps(grade.gradescope_results(drawn))  # the students never see it


def test_an_exercise_s_clock_stops_while_another_exercise_s_check_holds_the_checker(monkeypatch):
    """The checks run one at a time (grade._CHECKING). With --jobs 2, a right answer whose child waited for a slow
    neighbour's check once ran out of its 20 s before its first call (a CI failure): the wait is not its time.
    Measured, not raced: the time the exercise has left when its check begins, with a stand-in checker."""
    child = types.SimpleNamespace(deadline=time.monotonic() + 10, ended=None, limits=None)
    for name in ("ran", "early", "untraced", "tampered", "refused"):
        setattr(child, name, [])
    left = []

    def check(name, function, seed):
        left.append(child.deadline - time.monotonic())
        return types.SimpleNamespace(status="passed", message="", wrong=[], errata=[])

    monkeypatch.setattr(grade, "_proxy", lambda *args: None)
    monkeypatch.setattr(grade, "_practice", lambda: types.SimpleNamespace(check=check))
    held = threading.Event()

    def a_slow_neighbour():
        with grade._CHECKING:
            held.set()
            time.sleep(2)

    neighbour = threading.Thread(target=a_slow_neighbour)
    neighbour.start()
    held.wait()
    ex = types.SimpleNamespace(name="softmax", function="softmax", sources=[("cell 3", "")])
    verdict = grade._check_through(ex, child, seed=7)
    neighbour.join()
    assert verdict["status"] == "passed"
    assert left[0] > 9, f"the 2 s spent waiting for the neighbour's check were charged: {left[0]:.2f} s of 10 left"


def test_a_small_seed_is_warned_about_to_the_instructor_and_the_readme_shows_no_seed_to_copy(submissions):
    """hostile37, finding 7: seed 7 was found from one hidden case in a wrong answer's feedback, and the README's
    recipes printed --seed 9217, for which a lookup table of rnn_core's answers passed a wrong softmax."""
    _, _, bad, _ = submissions
    log = io.StringIO()
    (small,) = grade.grade([bad / "01-softmax-and-its-derivative.ipynb"], seed=7, exercises=["softmax"], log=log)
    assert "warning: --seed 7 is small" in log.getvalue() and "secrets.randbits(63)" in log.getvalue()
    assert "warning" not in json.dumps(grade.gradescope_results(small))  # the instructor's terminal only
    log = io.StringIO()
    grade.grade([bad / "01-softmax-and-its-derivative.ipynb"], seed=2**62 + 9217, exercises=["softmax"], log=log)
    assert "warning" not in log.getvalue()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"--seed\s+\d", readme) and "secrets.randbits(63)" in readme


def test_only_the_chosen_exercises_are_graded_and_a_missing_one_scores_zero(submissions):
    _, _, _, half = submissions
    (result,) = grade.grade([half], exercises=["01", "step_backward"], points={"softmax": 2})
    assert [(r.name, r.status, r.score, r.max_score) for r in result.exercises] == [
        ("softmax", "missing", 0, 2),
        ("softmax_jacobian", "missing", 0, 1),
        ("step_backward", "passed", 1, 1),
    ]
    assert "no notebook holding this exercise" in result.exercises[0].message


def test_an_exercise_given_points_is_graded_where_it_is_missing(submissions):
    _, _, _, half = submissions
    (result,) = grade.grade([half], points={"global_norm": 2})
    names = {r.name: r for r in result.exercises}
    assert list(names) == ["step_backward", "loss_and_grads", "global_norm"]
    assert (names["global_norm"].status, names["global_norm"].max_score) == ("missing", 2)


def test_bad_arguments_are_clear_errors(submissions, tmp_path, capsys):
    _, _, _, half = submissions
    assert main(["grade", str(tmp_path / "nobody")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["grade", str(half), "--points", "sofmax=2"]) == 1
    assert "sofmax is not an exercise" in capsys.readouterr().err
    assert main(["grade", str(half), "--points", "softmax=two"]) == 2
    assert "--points" in capsys.readouterr().err
    assert main(["grade", str(half), "--exercises", "99"]) == 1
    assert "neither an exercise nor a notebook number" in capsys.readouterr().err
    assert main(["grade", str(half), "--exercise-timeout", "0"]) == 2
