"""rnn_core.practice: right answers pass, wrong ones never do, and what it says about them is true.

Organised by the classes of defect of issue 27 ("A checker you can trust"): references that cannot
be swapped, cases that expose every mistake, an honest comparison, right statuses, containment,
messages to debug from; then the grader's hooks (seeded cases, delegation) and the display in
Jupyter. The mistakes of each exercise are in tests/test_practice_mistakes.py, the property-based
tests in tests/test_practice_mutations.py, the answers' one source in tests/test_answers.py.
"""

from __future__ import annotations

import ast
import functools
import importlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from practice_answers import (
    EXERCISE,
    PACKAGE,
    PLAIN,
    assert_wrong,
    cases,
    check,
    plain_adam_update,
    plain_clip_global_norm,
    plain_cross_entropy_grad,
    plain_global_norm,
    plain_gru_step_forward,
    plain_loss_and_grads,
    plain_lstm_step_backward,
    plain_lstm_step_forward,
    plain_softmax,
    plain_step_backward,
    plain_step_forward,
    solution_function,
)

import rnn_core
from rnn_core import gru, practice
from rnn_core.course.exercises import OPTIM, RNN
from rnn_core.course.solutions import SOLUTIONS, plain_text

ROOT = Path(__file__).resolve().parent.parent
NAMES = list(practice.EXERCISES)


# -- the list of exercises and the public API --------------------------------------------------------------


def test_exercises_are_listed_in_reading_order_with_their_notebooks():
    assert NAMES == list(PACKAGE)
    for name, notebook in practice.EXERCISES.items():
        assert (ROOT / "notebooks" / notebook).exists(), (name, notebook)
    numbers = [int(nb[:2]) for nb in practice.EXERCISES.values()]
    assert numbers == sorted(numbers)
    assert set(SOLUTIONS) == set(practice.EXERCISES)
    assert rnn_core.practice is practice
    assert {"check", "hint", "solution", "EXERCISES", "ERRATA_ROWS", "Result"} <= set(practice.__all__)


def test_import_rnn_core_does_not_load_the_checker():
    code = (
        "import sys, rnn_core\n"
        "assert 'rnn_core.practice' not in sys.modules and 'rnn_core.course.exercises' not in sys.modules\n"
        "from rnn_core import practice\n"
        "assert rnn_core.practice is practice and 'rnn_core.practice' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    code = "import rnn_core\nrnn_core.practice.check\n"  # attribute access alone loads it
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_bad_calls_raise_clear_errors():
    with pytest.raises(ValueError, match="no exercise named 'sofmax'. Did you mean 'softmax'?"):
        practice.check("sofmax", plain_softmax)
    with pytest.raises(TypeError, match=r"fn must be your function itself \(e.g. softmax, not softmax\(...\)\)"):
        practice.check("softmax", plain_softmax(np.zeros(3)))
    with pytest.raises(TypeError, match="seed must be an int"):
        practice.check("softmax", plain_softmax, seed="1")
    with pytest.raises(ValueError, match="no exercise named"):
        practice.hint("nope")
    with pytest.raises(ValueError, match="no exercise named"):
        practice.solution("nope")


@pytest.mark.parametrize("name", NAMES)
def test_hints_are_words_not_code_in_the_notebooks_symbols(name, capsys):
    assert practice.hint(name) is None
    printed = capsys.readouterr().out
    assert printed.startswith(f"{name}: ") and len(printed) > 80
    assert not re.search(r"np\.|def |return |\w\[|\*\*|@|==", printed.split(": ", 1)[1]), printed
    assert not re.search(r"\bp\b|\bp_i\b", printed), printed  # the notebooks write ŷ for softmax's output


def test_the_result_shows_nothing_in_jupyter_and_a_short_repr_elsewhere():
    result, printed = check("softmax", plain_softmax)
    assert result._ipython_display_() is None  # IPython then displays nothing for it
    assert repr(result) == "Result(status='passed', wrong=[], errata=())"
    assert printed.count("softmax: passed") == 1


# -- right answers pass -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_an_independent_plain_implementation_passes(name):
    result, printed = check(name, PLAIN[name])
    assert result.status == "passed", result.message
    assert result.wrong == [] and result.errata == ()
    assert printed == practice.wrap(result.message) + "\n" and result.message.startswith(f"{name}: passed.")


@pytest.mark.parametrize("name", NAMES)
def test_the_reference_solution_passes_and_is_what_solution_prints(name, capsys):
    result, _ = check(name, solution_function(name))
    assert result.status == "passed", result.message
    assert practice.solution(name) is None
    printed = capsys.readouterr().out
    assert printed == plain_text(SOLUTIONS[name]) + "\n"
    assert printed.startswith("def ") and "<!--" not in printed


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_right_answers_pass_on_cases_drawn_from_other_seeds(name, seed):
    assert check(name, PLAIN[name], seed=seed)[0].status == "passed"
    assert check(name, solution_function(name), seed=seed)[0].status == "passed"


def test_loss_and_grads_may_also_return_dh0_which_is_then_checked():
    with_dh0 = solution_function("loss_and_grads")  # it returns ∇h_0 L as a fourth value

    assert check("loss_and_grads", with_dh0)[0].status == "passed"

    def wrong_dh0(params, inputs, targets, h0):
        *out, dh0 = with_dh0(params, inputs, targets, h0)
        return (*out, 2 * dh0)

    assert_wrong("loss_and_grads", wrong_dh0, ["dh0"])


# -- 1. references that cannot be swapped ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, places, wrong_answer",
    [
        ("gru.step_forward", [(gru, "step_forward")], lambda p, x, h: (0.5 * plain_gru_step_forward(p, x, h)[0], {})),
        ("step_forward", [(rnn_core, "step_forward"), (rnn_core.rnn, "step_forward")], lambda p, x, h: 0.5 * h),
        ("softmax", [(rnn_core, "softmax"), (rnn_core.functions, "softmax")], lambda o: 0 * o + 1 / len(o)),
    ],
)
def test_rebinding_rnn_cores_function_to_the_answer_changes_nothing_the_check_compares_with(
    name, places, wrong_answer, monkeypatch
):
    for module, attribute in places:  # 09's exercise 1 invites `gru.step_forward = mine`
        monkeypatch.setattr(module, attribute, wrong_answer)
    result, _ = check(name, wrong_answer)
    assert result.status == "wrong", result.message
    for module, attribute in places:
        assert f"Note: {module.__name__}.{attribute} is not rnn_core's own {attribute} any more" in result.message
    assert "the verdict above does not depend on it" in result.message


def test_a_patched_softmax_does_not_change_what_cross_entropy_grad_is_compared_with(monkeypatch):
    uniform = lambda o, *args, **kwargs: np.full(np.shape(o), 1 / np.shape(o)[-1])  # noqa: E731
    monkeypatch.setattr(rnn_core.functions, "softmax", uniform)
    monkeypatch.setattr(rnn_core, "softmax", uniform)
    assert_wrong("cross_entropy_grad", lambda o, y: uniform(o) - np.eye(len(o))[y], ["do"])
    assert check("cross_entropy_grad", plain_cross_entropy_grad)[0].status == "passed"


def test_a_function_that_patches_rnn_core_while_it_runs_is_wrong_and_rnn_core_is_put_back():
    original = rnn_core.functions.softmax

    def patcher(o):
        rnn_core.functions.softmax = lambda o, *a, **k: o
        np.exp = np.sin  # numpy too
        return plain_softmax(o)

    exp = np.exp
    try:
        result = assert_wrong("softmax", patcher, ["numpy.exp", "rnn_core.functions.softmax"])
    finally:
        np.exp = exp
    assert "check put them back" in result.message
    assert rnn_core.functions.softmax is original and np.exp is exp


def test_the_references_are_the_checkers_own_copies():
    for name in NAMES:
        module = EXERCISE[name].reference.__code__.co_names
        assert any(n in ("F", "RNN", "OPTIM", "LSTM", "GRU", "S2S", "ATT") for n in module), name
    assert RNN.__name__.startswith("rnn_core._practice_copy.") and RNN is not rnn_core.rnn
    assert OPTIM.adam_update is not rnn_core.adam_update


# -- 2. cases that expose every class -------------------------------------------------------------------


def main_cases(name, seed):
    return [c for c in cases(name, seed) if not c.square]


@pytest.mark.parametrize("seed", [None, *range(12)])
def test_every_seed_draws_cases_with_the_properties_that_expose_the_mistakes(seed):
    one_hot = [c.args for c in main_cases("one_hot", seed)]
    assert any(V > max(y) + 1 and V not in (len(y), len(y) + 1) for y, V in one_hot)  # num_classes unrelated
    assert any(V == max(y) + 1 and len(y) > V for y, V in one_hot)
    wide = [c.args[0] for c in main_cases("softmax", seed)] + [
        c.args[0] for c in main_cases("cross_entropy_grad", seed)
    ]
    assert sum(o.max() >= 1000 and o.min() <= -1000 and np.argmax(o) != 0 for o in wide) >= 2  # both signs at once
    assert len({c.args[1] for c in main_cases("cross_entropy_grad", seed)}) >= 2  # the target y varies
    x_index = {"step_forward": 1, "step_backward": 4, "lstm.step_forward": 1, "gru.step_forward": 1}
    for name, at in x_index.items():
        runs = main_cases(name, seed)
        assert len({c.args[at] for c in runs}) == len(runs), name  # x_t differs from case to case
        hidden = [c.args[0]["W_h" if "." in name else "W_hh"].shape[1] for c in runs]
        vocab = [c.args[0]["W_x" if "." in name else "W_xh"].shape[1] for c in runs]
        assert len(set(hidden)) == len(runs) and all(H != V for H, V in zip(hidden, vocab)), name
    sequences = main_cases("loss_and_grads", seed)
    lengths = {len(c.args[1]) for c in sequences}
    assert len(lengths) >= 4 and {1, 2} <= lengths  # one step and two: an answer that special-cases T = 1 fails
    for c in sequences:
        params, h0 = c.args[0], c.args[3]
        assert np.all(params["b_h"] != 0) and np.all(params["b_o"] != 0) and np.all(h0 != 0)
    largest = max(np.abs(g).max() for c in sequences for g in RNN.loss_and_grads(*c.args)[1].values())
    assert largest > 5.5  # min-char-rnn's np.clip(d, -5, 5) inside loss_and_grads cannot pass
    assert all(any(np.argmax(o) == k and o.max() >= 1000 for o in wide) for k in range(4))  # the largest anywhere
    assert any(len(c.args[1]) >= 30 for c in sequences)  # long enough that truncated BPTT fails
    clip = main_cases("clip_global_norm", seed)
    ratios = [OPTIM.global_norm(c.args[0]) / c.args[1] for c in clip]
    assert ratios[0] < 1 < ratios[1] < 2 < 10 < ratios[2]  # below, between c and 2c, far above
    assert np.allclose(ratios[3:5], [0.99, 1.01])  # just below and just above c
    near = [1 - 1e-3, 1 + 1e-3, 1 - 1e-4, 1 + 1e-4, 1 - 1e-5, 1 + 1e-5]
    assert np.allclose(ratios[5:11], near, rtol=1e-12, atol=0) and ratios[11] > 1  # nearer; then many arrays
    assert len(clip[11].args[0]) >= 40
    for c in clip[3:11]:  # where neither an entry nor an array alone exceeds c
        assert all(np.linalg.norm(g) < c.args[1] for g in c.args[0].values())
    assert len({c.args[1] for c in clip[:3]}) == 3  # max_norm varies
    between = next(c for c in clip if 1 < OPTIM.global_norm(c.args[0]) / c.args[1] < 2)
    assert max(np.abs(g).max() for g in between.args[0].values()) > between.args[1]
    adam = main_cases("adam_update", seed)
    assert len({c.args[3] for c in adam}) >= 2 and len({c.args[2]["t"] for c in adam}) == len(adam)
    dropout = main_cases("dropout_backward", seed)
    rates = [c.args[2] for c in dropout]
    assert 0.0 in rates and 0.5 in rates and len(set(rates)) == len(rates)  # no dropout; 1 / rate = 1 / (1 - rate)
    for d_out, keep, rate in (c.args for c in dropout):
        assert keep.dtype == bool and keep.shape == d_out.shape and np.all(d_out != 0)
        assert keep.all() if rate == 0 else 2 <= keep.sum() <= keep.size - 2  # units dropped and kept
    assert len({c.args[0].ndim for c in dropout}) >= 2  # one vector, and arrays of several axes


def test_different_seeds_draw_different_cases_and_one_seed_always_the_same():
    a, b, again = main_cases("softmax", 1), main_cases("softmax", 2), main_cases("softmax", 1)
    assert not np.array_equal(a[0].args[0], b[0].args[0])
    assert all(np.array_equal(x.args[0], y.args[0]) for x, y in zip(a, again))
    wrong = lambda o: plain_softmax(o) + 0.01  # noqa: E731
    assert check("softmax", wrong, seed=7)[0].message == check("softmax", wrong, seed=7)[0].message


@pytest.mark.parametrize(
    "how",
    [
        lambda o: o - np.mean(o),  # a shift by another statistic than the largest score
        lambda o: o - np.min(o),
        lambda o: o - o[0],
        lambda o: o - np.median(o),
    ],
)
def test_a_softmax_shifted_by_anything_but_the_largest_score_is_wrong(how):
    def softmax(o):
        e = np.exp(how(o))
        return e / e.sum()

    result, _ = check("softmax", softmax)
    assert result.status == "wrong" and "nan where the answer is a number" in result.message, result.message


@pytest.mark.parametrize(
    "width",
    [lambda y, n: int(np.max(y)) + 1, lambda y, n: len(y), lambda y, n: len(y) + 1, lambda y, n: 6, lambda y, n: 9],
)
def test_a_one_hot_whose_width_does_not_come_from_num_classes_is_wrong(width):
    result, _ = check("one_hot", lambda y, n: np.eye(max(width(y, n), int(np.max(y)) + 1))[y])
    assert result.status == "wrong", result.message


def test_hard_coded_scalar_arguments_are_wrong():
    first = main_cases("adam_update", None)[0].args[3]
    assert check("adam_update", lambda p, g, s, lr: plain_adam_update(p, g, s, first))[0].status == "wrong"
    first_c = main_cases("clip_global_norm", None)[0].args[1]
    assert check("clip_global_norm", lambda g, c: plain_clip_global_norm(g, first_c))[0].status == "wrong"
    x0 = main_cases("step_forward", None)[0].args[1]
    assert check("step_forward", lambda p, x, h: plain_step_forward(p, x0, h))[0].status == "wrong"
    H0 = main_cases("step_backward", None)[0].args[0]["W_hh"].shape[0]  # a global H from the notebook

    def fixed_size(params, dh_t, h_t, h_prev, x_t):
        dh_prev, grads = plain_step_backward(params, dh_t, h_t, h_prev, x_t)
        out = np.zeros(H0)
        out[: len(dh_prev)] = dh_prev
        return out, grads

    assert check("step_backward", fixed_size)[0].status in ("wrong", "error")


def test_clipping_only_above_twice_the_threshold_is_wrong():
    def lenient(grads, max_norm):
        norm = plain_global_norm(grads)
        return {k: g * (max_norm / norm if norm > 2 * max_norm else 1.0) for k, g in grads.items()}, norm

    result = assert_wrong("clip_global_norm", lenient, list(rnn_core.PARAM_NAMES))
    assert "between max_norm" in result.message and "should have" in result.message


def test_min_char_rnns_entrywise_clip_inside_loss_and_grads_is_wrong():
    def clipped(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, {k: np.clip(g, -5, 5) for k, g in grads.items()}, h_last

    result, _ = check("loss_and_grads", clipped)
    assert result.status == "wrong" and "entries above 5" in result.message, result.message
    assert "are rnn_core's clipped at ±5:" in result.message


# -- 3. an honest comparison --------------------------------------------------------------------------------


def test_overflowing_outputs_are_wrong_and_said_to_be():
    result = assert_wrong("softmax", lambda o: np.full_like(o, 1e300), ["y_hat"])
    assert "numbers as large as 1e+300 (an overflow?)" in result.message
    result = assert_wrong("global_norm", lambda g: 1.7e308, ["norm"])
    assert "numbers as large as 2e+308" in result.message
    assert_wrong("softmax", lambda o: np.full_like(o, np.inf), ["y_hat"])
    assert "nan where the answer is a number" in assert_wrong("softmax", lambda o: o * np.nan, ["y_hat"]).message


def test_complex_outputs_are_wrong_even_with_no_imaginary_part():
    result = assert_wrong("softmax", lambda o: plain_softmax(o).astype(complex), ["y_hat"])
    assert "complex numbers, where the answer is real" in result.message
    assert_wrong("global_norm", lambda g: np.sqrt(complex(plain_global_norm(g) ** 2)), ["norm"])


def test_tuples_and_lists_are_alike():
    for convert in (tuple, list):
        assert check("softmax", lambda o, convert=convert: convert(plain_softmax(o)))[0].status == "passed"
        assert (
            check("step_backward", lambda *a, convert=convert: convert(plain_step_backward(*a)))[0].status == "passed"
        )
        nested = lambda y, n, convert=convert: (  # noqa: E731
            convert(np.eye(n)[y]) if np.ndim(y) == 0 else convert(convert(row) for row in np.eye(n)[y])
        )
        assert check("one_hot", nested)[0].status == "passed"


# -- 4. right statuses --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_stub_is_not_attempted_with_the_message_the_notebooks_store(name):
    def stub(*args):
        raise NotImplementedError

    def empty(*args):
        pass

    for fn in (stub, empty):
        result, printed = check(name, fn)
        assert result.status == "not attempted" and result.wrong == [] and result.errata == ()
        assert result.message.startswith(f"{name}: not attempted yet.") and f'practice.hint("{name}")' in result.message
    assert (
        check(name, stub)[1]
        == practice.wrap(
            f"{name}: not attempted yet. Your stub still raises NotImplementedError: write its body, then run this "
            f'cell again.\npractice.hint("{name}") gives a nudge.'
        )
        + "\n"
    )
    assert "Your empty returns None" in printed
    assert not re.search(r"0x[0-9a-f]+|\d\.\d", printed)


def test_none_on_one_case_is_wrong_and_names_that_case():
    large = main_cases("softmax", None)[1]

    def missing_else(o):
        if o.max() < 500:
            return plain_softmax(o)

    result = assert_wrong("softmax", missing_else, ["y_hat"])
    assert f"returns None on {large.about}" in result.message


def test_notimplementederror_from_a_helper_is_blamed_on_the_helper():
    def sigmoid(a):
        raise NotImplementedError  # the reader's helper, not written yet

    def lstm_step_forward(params, x_t, h_prev, c_prev):
        sigmoid(h_prev)
        return plain_lstm_step_forward(params, x_t, h_prev, c_prev)

    result = assert_wrong("lstm.step_forward", lstm_step_forward, ["h", "c", "cache"])
    assert "calls sigmoid, which still raises NotImplementedError" in result.message

    def partly(o):  # its own NotImplementedError on one case only
        if o.min() < -500:
            raise NotImplementedError
        return plain_softmax(o)

    result, _ = check("softmax", partly)
    assert result.status == "wrong" and "raises NotImplementedError on" in result.message


def test_no_clipping_at_all_is_not_called_elementwise_clipping():
    def none(grads, max_norm):
        return {k: g.copy() for k, g in grads.items()}, plain_global_norm(grads)

    result = assert_wrong("clip_global_norm", none, list(rnn_core.PARAM_NAMES), mistake="no clipping at all")
    assert "elementwise" not in result.message


def test_a_zero_b_o_gradient_is_not_called_errata_row_14():
    def zero_b_o(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, {**grads, "b_o": np.zeros_like(grads["b_o"])}, h_last

    result = assert_wrong("loss_and_grads", zero_b_o, ["b_o"])
    assert "∇b_o L is zero everywhere" in result.message and result.errata == ()


def test_a_function_that_keeps_state_between_calls_is_wrong_but_not_errata_row_7():
    calls = []

    def counting(o):
        calls.append(1)
        return plain_softmax(o) * (1.0 if len(calls) % 2 else 1.5)  # right on every other call

    result = assert_wrong("softmax", counting, ["y_hat"])
    assert "keeps something from one call to the next" in result.message and result.errata == ()

    drift = []

    def later(o):  # right on the first cases, wrong from the fourth call on
        drift.append(1)
        return plain_softmax(o) * (1.0 if len(drift) < 4 else 2.0)

    result = assert_wrong("softmax", later, ["y_hat"])
    assert "keeps something from one call to the next" in result.message


def test_the_lstms_dc_prev_without_the_path_through_h_is_named():
    def cell_path_only(params, dh_t, dc_t, cache):
        dh_prev, dc_prev, grads = plain_lstm_step_backward(params, dh_t, dc_t, cache)
        return dh_prev, dc_t * cache["f"], grads

    assert_wrong("lstm.step_backward", cell_path_only, ["dc_prev"], mistake="dc_prev without the path through h_t")


@pytest.mark.parametrize("name", NAMES)
def test_what_a_message_explains_never_contradicts_its_right_line(name):
    """For every mistake, an answer that is exactly it: named, with its rows, explaining exactly the outputs
    listed as wrong, none of those on the "right:" line."""
    from practice_answers import model_answer

    for m in EXERCISE[name].mistakes:
        result, _ = check(name, model_answer(name, m))
        assert result.status in ("wrong", "error"), (m.id, result.message)
        assert f'"{m.name}"' in result.message and result.errata == m.rows, (m.id, result.message)
        line = next(x for x in result.message.splitlines() if f'"{m.name}"' in x)
        explained = set(re.split(r", | and ", line.split(":")[0].strip()))
        right = re.search(r"^  right: (.*)$", result.message, re.MULTILINE)
        right = set(right.group(1).split(", ")) if right else set()
        assert not explained & right, (m.id, result.message)
        if result.status == "wrong":
            assert explained == set(result.wrong), (m.id, result.message)


# -- 5. contained ---------------------------------------------------------------------------------------------


def test_an_endless_loop_is_stopped_and_reported():
    def endless(o):
        while True:
            pass

    start = time.monotonic()
    result, _ = check("softmax", endless)
    assert result.status == "error" and f"still running after {practice.TIME_LIMIT:g} s" in result.message
    assert time.monotonic() - start < practice.TIME_LIMIT + 2

    def stubborn(o):  # swallows the first alarm
        for _ in range(3):
            try:
                while True:
                    pass
            except BaseException:
                pass
        return plain_softmax(o)

    assert check("softmax", stubborn)[0].status == "error"


def test_the_time_limit_gives_back_an_earlier_alarm_handler_and_timer():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        check("softmax", plain_softmax)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < left <= 30 and signal.getsignal(signal.SIGALRM) is not None and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_systemexit_and_keyboardinterrupt_from_the_readers_code_are_reported():
    result, _ = check("softmax", lambda o: sys.exit(1))
    assert result.status == "error" and "SystemExit: sys.exit() and exit() stop Python itself" in result.message

    def interrupts(o):
        raise KeyboardInterrupt

    result, _ = check("softmax", interrupts)
    assert result.status == "error" and "KeyboardInterrupt, from its own code (not the stop button)" in result.message


def test_a_real_interrupt_still_stops_the_check():
    def slow(o):
        time.sleep(2)
        return plain_softmax(o)

    stop = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))  # the stop button: SIGINT to the kernel
    stop.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            practice.check("softmax", slow)
    finally:
        stop.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class Tensor:
    """Stands for a torch tensor that requires grad: numpy cannot read it."""

    __module__ = "torch"

    def __array__(self, *args, **kwargs):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad.")


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no message")


@pytest.mark.parametrize(
    "returned, says",
    [
        (Tensor(), "a torch.Tensor, not an array of numbers"),
        ((x for x in range(3)), "a generator, not an array of numbers"),
        ("a string", "a str, not an array of numbers"),
        (object(), "an object, not an array of numbers"),
        ({"y_hat": 1}, "a dict"),
    ],
)
def test_odd_return_values_are_blamed_on_the_readers_code_with_their_type(returned, says):
    for name in NAMES:
        result, _ = check(name, lambda *args: returned)
        assert result.status == "wrong" and "checker failed" not in result.message, (name, result.message)
    assert says in check("softmax", lambda o: returned)[0].message


def test_exceptions_whose_message_cannot_be_shown_are_reported():
    def raises(o):
        raise Unprintable

    result, _ = check("softmax", raises)
    assert result.status == "error" and "Unprintable: (its message could not be shown" in result.message
    assert "checker failed" not in result.message


@pytest.mark.parametrize("returned", ["a string", [1, 2, 3], (1, 2, 3, 4, 5, 6), {"p": 1}, object(), np.nan])
def test_answers_of_any_kind_are_wrong_never_a_crash(returned):
    for name in NAMES:
        result, _ = check(name, lambda *args: returned)
        assert result.status == "wrong", (name, result.message)
        assert result.wrong and "checker failed" not in result.message


def test_the_reader_gets_copies_and_what_it_changes_is_reported():
    seen = []

    def vandal(params, dh_t, h_t, h_prev, x_t):
        seen.append((params["W_hh"], dh_t))
        out = plain_step_backward(params, dh_t, h_t, h_prev, x_t)
        params["W_hh"][:] = 0.0  # changes the arrays it was given ...
        dh_t *= 2.0
        return out

    result = assert_wrong("step_backward", vandal, ["params['W_hh']", "dh_t"], rows=(7,), mistake="delta_o = o")
    assert "changed params['W_hh'] and dh_t in place" in result.message
    (W1, d1), (W2, d2), *_ = seen  # two calls, each on arrays of its own
    assert W1 is not W2 and d1 is not d2


def test_keys_added_to_the_callers_dict_are_reported():
    def adds(grads, max_norm):
        out = plain_clip_global_norm(grads, max_norm)
        grads["norm"] = out[1]  # a key added to the caller's dict
        return out

    result = assert_wrong("clip_global_norm", adds, ["grads['norm']"])
    assert "added the key 'norm' to the caller's grads" in result.message

    def removes(params, grads, state, lr):
        out = plain_adam_update(params, grads, state, lr)
        del state["m"]
        return out

    result = assert_wrong("adam_update", removes, ["state['m']"])
    assert "removed the key 'm' from the caller's state" in result.message


def test_a_dict_entry_replaced_is_reported_but_not_as_errata_row_7():
    """Row 7 is an array changed through a second name; a value put under the caller's key is another slip."""

    def rebinds(params, x_t, h_prev):
        h = plain_step_forward(params, x_t, h_prev)
        params["W_hh"] = params["W_hh"] * 1.0  # the caller's dict now holds another array, of the same values
        params["b_h"] = params["b_h"] + 1.0  # ... and another of other values
        return h

    result = assert_wrong("step_forward", rebinds, ["params['b_h']"])
    assert "put another value under the caller's params['b_h']" in result.message and result.errata == ()

    def counts(params, grads, state, lr):
        out = plain_adam_update(params, grads, state, lr)
        state["t"] += 1
        state["m"]["W_xh"] += 1.0  # in place, two levels down
        return out

    result = assert_wrong("adam_update", counts, ["state['m']['W_xh']", "state['t']"], rows=(7,))
    assert "put another value under the caller's state['t']" in result.message


_BUFFER = np.zeros(128)


def test_a_returned_module_level_buffer_is_noticed():
    def buffered(o):
        out = _BUFFER[: len(o)]
        out[:] = plain_softmax(o)
        return out

    result = assert_wrong("softmax", buffered, ["y_hat"])
    assert "returns an array it keeps and overwrites" in result.message

    cache = {}

    def same_array(y, num_classes):  # one array per size, kept and returned again
        y = np.atleast_1d(y)
        out = cache.setdefault(len(y), np.zeros((len(y), num_classes)))
        out[:] = 0
        out[np.arange(len(y)), y] = 1
        return out if len(y) > 1 else out[0]

    result, _ = check("one_hot", same_array)
    assert result.status == "wrong", result.message


# -- 6. messages to debug from -------------------------------------------------------------------------------


def test_an_unrecognised_mistake_gets_what_the_output_is_the_inputs_and_the_first_differences():
    def odd(o, y):
        do = plain_cross_entropy_grad(o, y)
        do[0] += 0.5
        return do

    result = assert_wrong("cross_entropy_grad", odd, ["do"])
    message = result.message
    assert "Like none of the mistakes this checker knows" in message
    assert "do = ∇o L, the gradient of the loss with respect to the scores o" in message
    assert re.search(r"do\[0\]: expected -?\d\.\d+, got -?\d\.\d+", message)
    assert re.search(r"The case: o = \[.*\]; y = \d", message)
    assert "Your do sums to 0.5, not 0" in message
    assert 'practice.hint("cross_entropy_grad") gives a nudge, and notebook 02, section 4 derives it.' in message


def test_plain_diagnostics_say_what_is_off():
    result = assert_wrong("softmax", lambda o: 0.31 * plain_softmax(o), ["y_hat"])
    assert "Your ŷ sums to 0.31, not 1" in result.message
    result = assert_wrong("softmax_jacobian", lambda y: np.diag(y) - 0.5 * np.outer(y, y), ["J"])
    assert "The rows of your J sum to" in result.message
    result = assert_wrong("one_hot", lambda y, n: np.eye(n)[y] * 2, ["one_hot"])
    assert "sums to 2, not 1" in result.message


@pytest.mark.parametrize("name", ["softmax", "softmax_jacobian", "cross_entropy_grad"])
def test_messages_use_the_notebooks_symbols(name):
    """The notebooks write ŷ for softmax's output; the messages never call it p."""
    texts = [m.name + " " + m.why for m in EXERCISE[name].mistakes]
    texts += [check(name, lambda *args: np.zeros(3))[0].message]
    texts += list(EXERCISE[name].meaning.values())
    for text in texts:
        assert not re.search(r"(?<![\w'])p(?![\w'(])|\bp_[ik]\b|\bp pᵀ", text), text
    assert EXERCISE["softmax"].outputs == ("y_hat",) and EXERCISE["softmax_jacobian"].args == ("y_hat",)


def test_the_readers_line_is_found_below_numpy_and_rnn_core():
    def uses_the_package(o):
        return plain_softmax(o) + rnn_core.one_hot(np.array([-1]), 3)  # rnn_core raises, deep inside

    result, _ = check("softmax", uses_the_package)
    assert result.status == "error" and "ValueError: y holds index -1" in result.message
    assert re.search(r"in uses_the_package, line \d+: return plain_softmax\(o\) \+ rnn_core.one_hot", result.message)

    def shapes(params, x_t, h_prev):
        return np.tanh(np.dot(params["W_xh"], h_prev))  # (H, V) @ (H,): numpy refuses

    result, _ = check("step_forward", shapes)
    assert result.status == "error" and re.search(r"in shapes, line \d+: return np.tanh", result.message)


def test_a_function_with_other_arguments_is_told_how_it_is_called():
    result, _ = check("step_backward", lambda params, dh_t, cache: None)
    assert result.status == "error" and "TypeError" in result.message
    assert "check calls it as step_backward(params, dh_t, h_t, h_prev, x_t)" in result.message


def test_grads_with_other_keys_are_named_key_by_key():
    def d_names(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, {"d" + k: g for k, g in grads.items()}, h_last

    result = assert_wrong("loss_and_grads", d_names, list(rnn_core.PARAM_NAMES))
    assert "grads has no key 'W_hh' (it has 'dW_xh'" in result.message


def test_a_cache_or_state_holding_odd_values_is_wrong_not_a_crash():
    x_t = main_cases("lstm.step_forward", None)[0].args[1]

    def array_x(params, x_t, h_prev, c_prev):
        h, c, cache = plain_lstm_step_forward(params, x_t, h_prev, c_prev)
        return h, c, {**cache, "x": np.eye(params["W_x"].shape[1])[x_t]}  # one-hot where rnn_core keeps the index

    V = main_cases("lstm.step_forward", None)[0].args[0]["W_x"].shape[1]
    result = assert_wrong("lstm.step_forward", array_x, ["cache"])
    assert f"cache: an array of shape ({V},), expected {x_t} at x" in result.message

    def t_as_string(params, grads, state, lr):
        new, state = plain_adam_update(params, grads, state, lr)
        return new, {**state, "t": "1"}

    assert_wrong("adam_update", t_as_string, ["t"])


# -- the grader's hooks: seeded cases, delegation -------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_rnn_cores_own_function_is_not_passed(name):
    result, _ = check(name, PACKAGE[name])
    assert result.status == "delegated" and result.wrong == [], result.message
    assert "not your own. This is rnn_core's own" in result.message


def _routes():
    """Ways a reader's softmax can reach rnn_core's: each must be seen."""
    from rnn_core.functions import softmax as aliased

    module = importlib.import_module("rnn_core.functions")
    copy = importlib.import_module("rnn_core._practice_copy.functions")

    def in_a_thread(o):
        out = {}
        thread = threading.Thread(target=lambda: out.setdefault("p", rnn_core.softmax(o)))
        thread.start()
        thread.join()
        return out["p"]

    return {
        "top level": lambda o: rnn_core.softmax(o),
        "alias": lambda o: aliased(o),
        "import_module": lambda o: module.softmax(o),
        "the checker's own copy": lambda o: copy.softmax(o),
        "partial": functools.partial(rnn_core.softmax, temperature=1.0),
        "a thread": in_a_thread,
        "with a wrong twist": lambda o: -rnn_core.softmax(o),
    }


@pytest.mark.parametrize("route", list(_routes()))
def test_a_function_that_calls_rnn_cores_own_version_is_delegated(route):
    result, _ = check("softmax", _routes()[route])
    assert result.status == "delegated", result.message
    assert "rnn_core.functions.softmax" in result.message and "not your own" in result.message


def test_the_fast_path_behind_an_exercise_counts_as_its_own_version():
    def fast(params, inputs, targets, h0):  # rnn_core.loss_and_grads' own steps, without calling it
        from rnn_core import _cell, rnn

        window = _cell.check_window(params, inputs, targets, h0, rnn.STATE_NAMES, rnn.LAYER_NAMES)
        engine = rnn_core._fast_rnn.VanillaEngine(rnn.REFERENCE)
        loss, grads, last, _ = _cell.stack_loss_and_grads(engine, rnn.LAYER_NAMES, params, window)
        return loss, grads, _cell.as_state(last, window.single)

    result, _ = check("loss_and_grads", fast)
    assert result.status == "delegated" and "rnn_core._cell.stack_loss_and_grads" in result.message


def test_reading_the_answer_off_the_checker_through_its_frames_is_delegation():
    def cheat(params, inputs, targets, h0):
        frame = sys._getframe(1)
        while "ex" not in frame.f_locals:  # up to the check's own frame
            frame = frame.f_back
        ex = frame.f_locals["ex"]
        case = next(c for c in frame.f_locals["cases"] if np.array_equal(c.args[1], inputs))
        return ex.outputs_of(case)[:3]  # the checker's model of the right answer

    result, _ = check("loss_and_grads", cheat)
    assert result.status == "delegated" and "the checker's own code" in result.message, result.message


def test_patching_python_itself_while_running_is_wrong_and_undone():
    import builtins

    maximum, setprofile = builtins.max, sys.setprofile

    def patches(o):
        builtins.max = lambda *args, **kwargs: 0  # the checker uses max
        sys.setprofile = lambda *args: None  # ... and would no longer see calls of rnn_core
        return plain_softmax(o)

    try:
        result = assert_wrong("softmax", patches, ["builtins.max", "sys.setprofile"])
    finally:
        builtins.max, sys.setprofile = maximum, setprofile
    assert "check put them back" in result.message
    assert check("softmax", lambda o: rnn_core.softmax(o))[0].status == "delegated"  # the watch still works


def test_calling_rnn_cores_other_functions_is_allowed():
    def uses_forward(params, inputs, targets, h0):  # as notebook 04's stub does
        out = rnn_core.forward(params, inputs, h0)
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, grads, out["h"][-1]

    assert check("loss_and_grads", uses_forward)[0].status == "passed"
    assert (
        check("cross_entropy_grad", lambda o, y: plain_softmax(o) - rnn_core.one_hot(y, len(o)))[0].status == "passed"
    )


def test_each_exercises_own_versions_exist_in_rnn_core():
    """The names the delegation watch looks for are rnn_core's functions (a renamed one would go unseen)."""
    from rnn_core.course import reference

    for name in NAMES:
        for module, qualname in EXERCISE[name].watch:
            fn = importlib.import_module(f"rnn_core.{module}")
            for part in qualname.split("."):
                fn = getattr(fn, part)
            assert reference.origin(fn.__code__) == (module, qualname), (name, module, qualname)
        for path in EXERCISE[name].public:
            module, attribute = path.rsplit(".", 1)
            assert hasattr(importlib.import_module(module), attribute), path


# -- mistakes as data -----------------------------------------------------------------------------------------


def test_mistakes_are_small_named_functions_and_no_model_branches_on_prose():
    for name in NAMES:
        ex = EXERCISE[name]
        ids = [m.id for m in ex.mistakes]
        assert len(ids) == len(set(ids)), name
        for m in ex.mistakes:
            assert m.fn.__name__.replace("_", "-") == m.id and isinstance(m.rows, tuple) and m.name and m.why
            assert m.step == "answer" or m.step in ex.steps, (name, m.id)
    tree = ast.parse((ROOT / "rnn_core" / "course" / "exercises.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            # `slip == "tanh' at the wrong step"`: prose as a switch
            strings = [
                c for c in [node.left, *node.comparators] if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
            assert not strings, ast.unparse(node)


@pytest.mark.parametrize("name", NAMES)
def test_no_two_mistakes_give_the_same_numbers_on_the_public_cases(name):
    from practice_answers import model_answer

    ex, seen = EXERCISE[name], {}
    runs = [c for c in cases(name) if not c.square]
    for m in ex.mistakes:
        try:
            with np.errstate(all="ignore"):
                outputs = [model_answer(name, m)(*c.args) for c in runs]
        except Exception:  # runs only on the square case
            continue
        # the numbers and the shapes they come in: a mistake is named only where both match
        key = repr(
            [
                (
                    [np.shape(v) for v in _leaves(o)],
                    np.round(np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in _leaves(o)]), 9),
                )
                for o in outputs
            ]
        )
        assert key not in seen, f"{name}: {m.id} gives what {seen[key]} gives"
        seen[key] = m.id


def _leaves(value):
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def test_the_errata_rows_recognised_are_the_ones_the_docstring_lists():
    listed = re.search(r"the errata table \(([\d, and\n]+)\)", practice.__doc__.replace("\n", " ")).group(1)
    assert tuple(int(n) for n in re.findall(r"\d+", listed)) == practice.ERRATA_ROWS
    assert 14 not in practice.ERRATA_ROWS  # a zero ∇b_o L cannot tell row 14 from a gradient never added to


# -- the display in Jupyter ----------------------------------------------------------------------------------


def test_in_jupyter_every_message_but_the_stubs_is_html_that_wraps_at_spaces_only(monkeypatch):
    IPython = pytest.importorskip("IPython")
    from IPython.core.formatters import DisplayFormatter

    result, printed = check("softmax", plain_softmax)
    assert DisplayFormatter().format(result) == ({}, {})  # the kernel's display hook sends nothing for it

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Kernel", (), {"kernel": object()})())
    monkeypatch.setattr(IPython.display, "display", lambda bundle, raw: shown.append(bundle))
    for answer in (lambda o: -plain_softmax(o), lambda o: plain_softmax(o) + 1e-3, plain_softmax):
        result, printed = check("softmax", answer)  # with and without a link to the errata table
        assert printed == "" and shown[-1]["text/plain"] == practice.wrap(result.message)
        page = shown[-1]["text/html"]
        assert page.startswith('<div class="jp-RenderedText"><pre style="') and "word-break: normal" in page
    assert f'<a href="{practice.ERRATA_TABLE}">' in shown[0]["text/html"]
    count = len(shown)

    def softmax(o):
        raise NotImplementedError

    result, printed = check("softmax", softmax)  # the stub's message: printed, as the notebooks store it
    assert result.status == "not attempted" and printed == practice.wrap(result.message) + "\n" and len(shown) == count


def test_explain_false_names_rows_without_saying_what_is_right(capsys):
    """check(..., explain=False): each recognised mistake by its errata row and title, not what it is
    (the appendix's repair exercise, whose task is to find that)."""

    def minus_softmax(o):
        e = np.exp(o - np.max(o))
        return -e / e.sum()

    told = practice.check("softmax", minus_softmax).message
    terse = practice.check("softmax", minus_softmax, explain=False)
    capsys.readouterr()
    assert terse.status == "wrong" and terse.errata == (11,)
    mistake_line = next(line for line in terse.message.splitlines() if "errata row 11" in line)
    assert mistake_line.rstrip().endswith('"') and mistake_line in told  # the title, nothing after it
    assert len(terse.message) < len(told) and "Its rows say what each mistake is" in terse.message
    assert practice.check("softmax", minus_softmax).message == told  # explain=False does not stick
