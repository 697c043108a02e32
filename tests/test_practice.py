"""rnn_core.practice: every exercise accepts right answers and names what is wrong in wrong ones.

For every exercise: the package's own function passes, an independent plain implementation (written
here) passes, the reference solution passes, a stub is "not attempted", a raising function is
"error" with the reader's line, and wrong variants are "wrong" with the right names. The mistakes of
notebook 05's errata, which the notebook writes as one-line slips of a backward pass, are taken from
the notebook itself (the cell tagged ``errata-slips``) and must each be recognised by their row.
"""

import ast
import builtins
import contextlib
import io
import json
import linecache
import re
from pathlib import Path

import numpy as np
import pytest

import rnn_core
from rnn_core import gru, lstm, practice
from rnn_core._practice_solutions import SOLUTIONS

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def check(name, fn):
    """practice.check with its printed message captured: (result, printed text)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = practice.check(name, fn)
    return result, printed.getvalue()


def assert_wrong(name, fn, wrong, rows=(), mistake=None):
    result, printed = check(name, fn)
    assert result.status == "wrong", result.message
    assert sorted(result.wrong) == sorted(wrong), result.message
    assert result.errata == tuple(rows), result.message
    for row in rows:
        assert re.search(rf"\brows? (\d+, )*(\d+ and )?{row}\b", result.message), result.message
    if rows:
        assert practice.ERRATA_TABLE in result.message
    if mistake:
        assert f'"{mistake}"' in result.message, result.message
    assert printed == result.message + "\n"
    return result


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


# -- independent plain implementations, written for these tests -------------------------------------------


def plain_one_hot(y, num_classes):
    return np.array([[1.0 if k == i else 0.0 for k in range(num_classes)] for i in y])


def plain_softmax(o):
    log_z = np.max(o) + np.log(np.sum(np.exp(o - np.max(o))))  # log-sum-exp
    return np.exp(o - log_z)


def plain_softmax_jacobian(p):
    V = len(p)
    return np.array([[p[i] * ((i == k) - p[k]) for k in range(V)] for i in range(V)])


def plain_cross_entropy_grad(o, y):
    return plain_softmax(o) - np.eye(len(o))[y]


def plain_step_forward(params, x_t, h_prev):
    x = np.zeros(params["W_xh"].shape[1])
    x[x_t] = 1.0
    return np.tanh(params["W_xh"] @ x + params["W_hh"] @ h_prev + params["b_h"])


def plain_step_backward(params, dh_t, h_t, h_prev, x_t):
    x = np.eye(params["W_xh"].shape[1])[x_t]
    delta = (1 - h_t * h_t) * dh_t
    return params["W_hh"].T @ delta, {"W_xh": np.outer(delta, x), "W_hh": np.outer(delta, h_prev), "b_h": delta}


def plain_loss_and_grads(params, inputs, targets, h0):
    names = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")
    hs, ps, loss = {0: h0}, {}, 0.0
    for t, x_t in enumerate(inputs, start=1):
        hs[t] = plain_step_forward(params, x_t, hs[t - 1])
        ps[t] = plain_softmax(params["W_yh"] @ hs[t] + params["b_o"])
        loss += -np.log(ps[t][targets[t - 1]])
    grads = {name: np.zeros_like(params[name]) for name in names}
    dh_from_next = np.zeros_like(h0)
    for t in reversed(range(1, len(inputs) + 1)):
        do = ps[t] - np.eye(len(ps[t]))[targets[t - 1]]
        grads["W_yh"] += np.outer(do, hs[t])
        grads["b_o"] += do
        dh_from_next, step = plain_step_backward(
            params, params["W_yh"].T @ do + dh_from_next, hs[t], hs[t - 1], inputs[t - 1]
        )
        for name, g in step.items():
            grads[name] += g
    return loss, grads, hs[len(inputs)]


def plain_global_norm(grads):
    return float(np.linalg.norm(np.concatenate([g.ravel() for g in grads.values()])))


def plain_clip_global_norm(grads, max_norm):
    norm = plain_global_norm(grads)
    return {k: (g * (max_norm / norm) if norm > max_norm else g.copy()) for k, g in grads.items()}, norm


def plain_adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1
    m, v, new = {}, {}, {}
    for k in params:
        m[k] = beta1 * state["m"][k] + (1 - beta1) * grads[k]
        v[k] = beta2 * state["v"][k] + (1 - beta2) * grads[k] * grads[k]
        new[k] = params[k] - lr * (m[k] / (1 - beta1**t)) / (np.sqrt(v[k] / (1 - beta2**t)) + eps)
    return new, {"t": t, "m": m, "v": v}


def plain_lstm_step_forward(params, x_t, h_prev, c_prev):
    H = len(h_prev)
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    gate = {}
    for k, name in enumerate("ifgo"):
        rows = slice(k * H, (k + 1) * H)
        a = W_x[rows, x_t] + W_h[rows] @ h_prev + b[rows]
        gate[name] = np.tanh(a) if name == "g" else sigmoid(a)
    c = gate["f"] * c_prev + gate["i"] * gate["g"]
    h = gate["o"] * np.tanh(c)
    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, **gate, "c": c}


def plain_lstm_step_backward(params, dh_t, dc_t, cache, into_cell=True):
    i, f, g, o, c = cache["i"], cache["f"], cache["g"], cache["o"], cache["c"]
    dc = dc_t + (dh_t * o * (1 - np.tanh(c) ** 2) if into_cell else 0)
    da = np.concatenate(
        [
            dc * g * i * (1 - i),
            dc * cache["c_prev"] * f * (1 - f),
            dc * i * (1 - g * g),
            dh_t * np.tanh(c) * o * (1 - o),
        ]
    )
    x = np.eye(params["W_x"].shape[1])[cache["x"]]
    return params["W_h"].T @ da, dc * f, {"W_x": np.outer(da, x), "W_h": np.outer(da, cache["h_prev"]), "b": da}


def plain_gru_step_forward(params, x_t, h_prev):
    H = len(h_prev)
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    pre = {
        name: (W_x[k * H : (k + 1) * H, x_t], W_h[k * H : (k + 1) * H] @ h_prev, b[k * H : (k + 1) * H])
        for k, name in enumerate("rzn")
    }
    r, z = (sigmoid(sum(pre[name])) for name in "rz")
    x_part, m, b_n = pre["n"]
    n = np.tanh(x_part + r * m + b_n)
    return (1 - z) * n + z * h_prev, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "m": m}


def plain_gru_step_backward(params, dh_t, cache, direct=True, swapped=False):
    r, z, n, m, h_prev = cache["r"], cache["z"], cache["n"], cache["m"], cache["h_prev"]
    keep = 1 - z if swapped else z  # swapped: the derivative of h_t = (1 - z) h_{t-1} + z n, the other convention
    da_n = dh_t * (1 - keep) * (1 - n * n)
    da_r = da_n * m * r * (1 - r)
    da_z = dh_t * (h_prev - n) * (-1 if swapped else 1) * z * (1 - z)
    x = np.eye(params["W_x"].shape[1])[cache["x"]]
    da_x, da_h = np.concatenate([da_r, da_z, da_n]), np.concatenate([da_r, da_z, da_n * r])
    dh_prev = params["W_h"].T @ da_h + (dh_t * keep if direct else 0)
    return dh_prev, {"W_x": np.outer(da_x, x), "W_h": np.outer(da_h, h_prev), "b": da_x}


PACKAGE = {
    "one_hot": rnn_core.one_hot,
    "softmax": rnn_core.softmax,
    "softmax_jacobian": rnn_core.softmax_jacobian,
    "cross_entropy_grad": rnn_core.cross_entropy_grad,
    "step_forward": rnn_core.step_forward,
    "step_backward": rnn_core.step_backward,
    "loss_and_grads": rnn_core.loss_and_grads,
    "clip_global_norm": rnn_core.clip_global_norm,
    "adam_update": rnn_core.adam_update,
    "global_norm": rnn_core.global_norm,
    "lstm.step_forward": lstm.step_forward,
    "lstm.step_backward": lstm.step_backward,
    "gru.step_forward": gru.step_forward,
    "gru.step_backward": gru.step_backward,
}
PLAIN = {
    "one_hot": plain_one_hot,
    "softmax": plain_softmax,
    "softmax_jacobian": plain_softmax_jacobian,
    "cross_entropy_grad": plain_cross_entropy_grad,
    "step_forward": plain_step_forward,
    "step_backward": plain_step_backward,
    "loss_and_grads": plain_loss_and_grads,
    "clip_global_norm": plain_clip_global_norm,
    "adam_update": plain_adam_update,
    "global_norm": plain_global_norm,
    "lstm.step_forward": plain_lstm_step_forward,
    "lstm.step_backward": plain_lstm_step_backward,
    "gru.step_forward": plain_gru_step_forward,
    "gru.step_backward": plain_gru_step_backward,
}


def solution_function(name):
    namespace = {"np": np}
    exec(compile(SOLUTIONS[name], f"<solution {name}>", "exec"), namespace)
    (fn,) = [v for k, v in namespace.items() if k not in ("np", "__builtins__")]
    return fn


# -- the list of exercises -----------------------------------------------------------------------------------


def test_exercises_are_listed_in_reading_order_with_their_notebooks():
    assert list(practice.EXERCISES) == list(PACKAGE)
    for name, notebook in practice.EXERCISES.items():
        assert re.fullmatch(r"\d\d-[a-z0-9-]+\.ipynb", notebook), (name, notebook)
    numbers = [int(nb[:2]) for nb in practice.EXERCISES.values()]
    assert numbers == sorted(numbers)
    assert practice.EXERCISES["loss_and_grads"] == "04-backpropagation-through-time.ipynb"
    assert practice.EXERCISES["lstm.step_backward"] == "08-gated-cells-lstm.ipynb"
    assert practice.EXERCISES["gru.step_backward"] == "09-gated-cells-gru.ipynb"
    assert set(SOLUTIONS) == set(practice.EXERCISES)
    assert rnn_core.practice is practice


# -- right answers pass ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PACKAGE))
def test_the_package_function_passes(name):
    result, printed = check(name, PACKAGE[name])
    assert result.status == "passed", result.message
    assert result.wrong == [] and result.errata == ()
    assert printed == result.message + "\n"
    assert result.message.startswith(f"{name}: passed.")


@pytest.mark.parametrize("name", list(PLAIN))
def test_an_independent_plain_implementation_passes(name):
    result, _ = check(name, PLAIN[name])
    assert result.status == "passed", result.message


@pytest.mark.parametrize("name", list(SOLUTIONS))
def test_the_reference_solution_passes_and_is_printed(name, capsys):
    result, _ = check(name, solution_function(name))
    assert result.status == "passed", result.message
    assert practice.solution(name) is None
    printed = capsys.readouterr().out
    assert printed.startswith("def ") and printed == SOLUTIONS[name].strip("\n") + "\n"


def test_loss_and_grads_may_also_return_dh0_which_is_then_checked():
    def with_dh0(params, inputs, targets, h0):
        return rnn_core.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)

    assert check("loss_and_grads", with_dh0)[0].status == "passed"

    def wrong_dh0(params, inputs, targets, h0):
        loss, grads, h_last, dh0 = with_dh0(params, inputs, targets, h0)
        return loss, grads, h_last, 2 * dh0

    assert_wrong("loss_and_grads", wrong_dh0, ["dh0"])


# -- stubs, errors, and answers the checker cannot read ----------------------------------------------------


@pytest.mark.parametrize("name", list(PACKAGE))
def test_a_stub_is_not_attempted(name):
    def stub(*args):
        raise NotImplementedError

    def empty(*args):
        pass

    for fn in (stub, empty):
        result, printed = check(name, fn)
        assert result.status == "not attempted" and result.wrong == [] and result.errata == ()
        assert result.message.startswith(f"{name}: not attempted yet.") and f'practice.hint("{name}")' in result.message
    # the stored output of a notebook's stub cell: the same text every time, naming the reader's function
    assert check(name, stub)[1] == (
        f"{name}: not attempted yet. Your stub still raises NotImplementedError: write its body, then run this "
        f'cell again. practice.hint("{name}") gives a nudge.\n'
    )
    assert "Your empty returns None" in printed
    assert not re.search(r"0x[0-9a-f]+|\d\.\d", printed)


@pytest.mark.parametrize("name", list(PACKAGE))
def test_a_raising_function_is_an_error_shown_at_the_readers_line(name):
    def mine(*args):
        scale = len(args) - len(args)
        return args[0] / scale if scale else {}["no such key"]

    result, _ = check(name, mine)
    assert result.status == "error" and result.wrong == []
    assert "KeyError: 'no such key'" in result.message
    assert re.search(
        r'in mine, line \d+: return args\[0\] / scale if scale else \{\}\["no such key"\]\n', result.message
    )
    assert "practice.py" not in result.message and "Traceback" not in result.message


def test_the_readers_line_is_found_below_numpy_and_rnn_core():
    def uses_the_package(o):
        return rnn_core.softmax(o, temperature=-1.0)  # rnn_core raises, deep inside

    result, _ = check("softmax", uses_the_package)
    assert result.status == "error"
    assert "ValueError: temperature must be > 0" in result.message
    assert re.search(r"in uses_the_package, line \d+: return rnn_core.softmax\(o, temperature=-1.0\)", result.message)

    def shapes(params, x_t, h_prev):
        return np.tanh(np.dot(params["W_xh"], h_prev))  # (4, 5) @ (4,): numpy refuses

    result, _ = check("step_forward", shapes)
    assert result.status == "error" and re.search(r"in shapes, line \d+: return np.tanh", result.message)


@pytest.mark.parametrize(
    "returned",
    [
        "a string",
        [1, 2, 3],
        (1, 2, 3, 4, 5, 6),
        {"p": 1},
        object(),
        (np.zeros(5),),
        np.zeros((2, 2, 2)),
        np.nan,
    ],
)
def test_answers_of_any_kind_are_wrong_never_a_crash(returned):
    for name in PACKAGE:
        result, _ = check(name, lambda *args: returned)
        assert result.status == "wrong", (name, result.message)
        assert result.wrong and "checker failed" not in result.message


def test_grads_with_other_keys_are_named_key_by_key():
    def d_names(params, inputs, targets, h0):
        loss, grads, h_last = rnn_core.loss_and_grads(params, inputs, targets, h0)
        return loss, {"d" + k: g for k, g in grads.items()}, h_last

    result = assert_wrong("loss_and_grads", d_names, list(rnn_core.PARAM_NAMES))
    assert "grads has no key 'W_hh' (it has 'dW_xh'" in result.message


def test_bad_calls_raise_clear_errors():
    with pytest.raises(ValueError, match="no exercise named 'sofmax'. Did you mean 'softmax'?"):
        practice.check("sofmax", plain_softmax)
    with pytest.raises(TypeError, match=r"fn must be your function itself \(e.g. softmax, not softmax\(...\)\)"):
        practice.check("softmax", plain_softmax(np.zeros(3)))
    with pytest.raises(ValueError, match="no exercise named"):
        practice.hint("nope")
    with pytest.raises(ValueError, match="no exercise named"):
        practice.solution("nope")


@pytest.mark.parametrize("name", list(PACKAGE))
def test_hints_are_words_not_code(name, capsys):
    assert practice.hint(name) is None
    printed = capsys.readouterr().out
    assert printed.startswith(f"{name}: ") and len(printed) > 80
    assert not re.search(r"np\.|def |return |\w\[|\*\*|@|==", printed.split(": ", 1)[1]), printed


# -- the checker's own safety -----------------------------------------------------------------------------


def test_the_reader_gets_copies_and_cannot_spoil_later_checks():
    seen = []

    def vandal(params, dh_t, h_t, h_prev, x_t):
        seen.append((params["W_hh"], dh_t))
        out = rnn_core.step_backward(params, dh_t, h_t, h_prev, x_t)
        params["W_hh"][:] = 0.0  # changes the arrays it was given ...
        dh_t *= 2.0
        return out

    result = assert_wrong("step_backward", vandal, ["params['W_hh']", "dh_t"], rows=(7,), mistake="delta_o = o")
    assert "changed params['W_hh'] and dh_t in place" in result.message
    (W1, d1), (W2, d2) = seen  # two calls, each on arrays of its own
    assert W1 is not W2 and d1 is not d2
    assert check("step_backward", rnn_core.step_backward)[0].status == "passed"  # ... which were copies


def test_a_function_that_keeps_something_between_calls_is_wrong():
    calls = []

    def counting(o):
        calls.append(1)
        return plain_softmax(o) * (1.0 if len(calls) % 2 else 1.5)  # right on every other call

    result = assert_wrong("softmax", counting, ["p"], rows=(7,))
    assert "called a second time on the same arguments" in result.message


def test_the_second_adam_step_uses_a_different_gradient():
    # with the same gradient at every step, m-hat = g and v-hat = g^2 exactly: Adam without momentum
    # would pass a check that fed it one gradient twice
    def no_momentum(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        new, state = plain_adam_update(params, grads, state, lr, beta1, beta2, eps)
        t = state["t"]
        new = {k: params[k] - lr * grads[k] / (np.sqrt(state["v"][k] / (1 - beta2**t)) + eps) for k in params}
        return new, state

    result = assert_wrong("adam_update", no_momentum, list(rnn_core.PARAM_NAMES), mistake="the gradient in place of m̂")
    assert "the second step, with a different gradient" in result.message

    first = {}

    def remembers_the_first_gradient(params, grads, state, lr):
        first.setdefault("grads", grads)  # reads a gradient from outside its arguments
        return rnn_core.adam_update(params, first["grads"], state, lr)

    result = assert_wrong(
        "adam_update",
        remembers_the_first_gradient,
        list(rnn_core.PARAM_NAMES) + ["m", "v"],
        mistake="the second step reused the first gradient",
    )


def test_clipping_is_checked_below_and_above_the_threshold():
    def always(grads, max_norm):  # right whenever the norm is too large, and only then
        norm = plain_global_norm(grads)
        return {k: g * (max_norm / norm) for k, g in grads.items()}, norm

    result = assert_wrong("clip_global_norm", always, list(rnn_core.PARAM_NAMES), mistake="rescaled when already short")
    assert "below max_norm" in result.message


def test_the_result_shows_nothing_in_jupyter_and_a_short_repr_elsewhere():
    result, printed = check("softmax", plain_softmax)
    assert result._ipython_display_() is None  # IPython then displays nothing for it
    assert repr(result) == "Result(status='passed', wrong=[], errata=())"
    assert printed.count("softmax: passed") == 1


# -- the mistakes each exercise invites ---------------------------------------------------------------------


def test_one_hot_mistakes():
    assert_wrong("one_hot", lambda y, n: plain_one_hot(y, n).T, ["one_hot"], mistake="one column per index")
    assert_wrong(
        "one_hot",
        lambda y, n: np.isin(np.arange(n), y).astype(float),
        ["one_hot"],
        mistake="one vector for all the indices",
    )


def test_softmax_mistakes():
    assert_wrong("softmax", lambda o: -plain_softmax(o), ["p"], rows=(11,), mistake="−softmax")
    assert_wrong("softmax", lambda o: np.exp(o - o.max()), ["p"], mistake="exp without the sum")
    result = assert_wrong(
        "softmax", lambda o: np.exp(o) / np.exp(o).sum(), ["p"], mistake="no shift by the largest score"
    )
    assert "on large scores" in result.message and "nan where the answer is a number" in result.message
    assert "RuntimeWarning" not in result.message


def test_softmax_jacobian_mistakes():
    assert_wrong(
        "softmax_jacobian", lambda p: -np.outer(p, p), ["J"], rows=(3,), mistake="−ŷŷᵀ as the softmax Jacobian"
    )
    assert_wrong("softmax_jacobian", lambda p: np.diag(p) + np.outer(p, p), ["J"], mistake="diag(p) + p pᵀ")
    assert_wrong("softmax_jacobian", lambda p: p * (1 - p), ["J"], mistake="the diagonal as a vector")
    assert_wrong(
        "softmax_jacobian", lambda p: plain_softmax_jacobian(plain_softmax(p)), ["J"], mistake="softmax taken again"
    )
    assert_wrong("softmax_jacobian", lambda p: np.diag(p * (1 - p)), ["J"], mistake="only the diagonal")


def test_cross_entropy_grad_mistakes():
    target = lambda o, y: np.eye(len(o))[y]  # noqa: E731
    assert_wrong(
        "cross_entropy_grad", lambda o, y: plain_softmax(o), ["do"], rows=(3,), mistake="softmax(o) as the gradient"
    )
    assert_wrong("cross_entropy_grad", lambda o, y: target(o, y) - plain_softmax(o), ["do"], rows=(10,))
    assert_wrong("cross_entropy_grad", lambda o, y: len(o) * plain_softmax(o) - 1, ["do"], rows=(13,))
    assert_wrong("cross_entropy_grad", lambda o, y: -plain_softmax(o) - target(o, y), ["do"], rows=(11,))
    assert_wrong(
        "cross_entropy_grad",
        lambda o, y: -target(o, y) / plain_softmax(o),
        ["do"],
        mistake="the gradient with respect to ŷ",
    )
    assert_wrong(
        "cross_entropy_grad", lambda o, y: plain_softmax(o) - y, ["do"], mistake="the index subtracted from every score"
    )
    assert_wrong(
        "cross_entropy_grad",
        lambda o, y: np.exp(o) / np.exp(o).sum() - target(o, y),
        ["do"],
        mistake="no shift by the largest score",
    )


def test_step_forward_mistakes():
    def transposed(params, x_t, h_prev):
        return np.tanh(h_prev @ params["W_hh"] + params["W_xh"][:, x_t] + params["b_h"])

    assert_wrong("step_forward", transposed, ["h"], mistake="W_hh transposed")
    assert_wrong(
        "step_forward",
        lambda p, x, h: plain_step_forward(p, x, h) * 0 + np.tanh(p["W_hh"] @ h + p["W_xh"][:, x]),
        ["h"],
        mistake="no bias",
    )

    def row_of_W_xh(params, x_t, h_prev):
        return np.tanh(params["W_hh"] @ h_prev + params["W_xh"][x_t] + params["b_h"])

    result, _ = check("step_forward", row_of_W_xh)  # (4,) + (5,): numpy refuses, at the reader's line
    assert result.status == "error" and "broadcast" in result.message
    assert '"row x_t of W_xh"' in result.message and "square network" in result.message


def step_backward_with(slip):
    def backward(params, dh_t, h_t, h_prev, x_t):
        W_xh, W_hh = params["W_xh"], params["W_hh"]
        x = np.eye(W_xh.shape[1])[x_t]
        slope = 1 - h_prev**2 if slip == "wrong step" else h_t * (1 - h_t) if slip == "sigmoid" else 1 - h_t**2
        da = slope * dh_t
        up = 1 - h_t**2 if slip == "no upstream" else da
        dh_prev = {"not transposed": W_hh @ da, "W_xh": W_xh.T @ da, "tanh after": (1 - h_t**2) * (W_hh.T @ dh_t)}.get(
            slip, W_hh.T @ da
        )
        dW_hh = np.outer(da, x if slip == "x_t" else h_prev)
        return dh_prev, {"W_xh": np.outer(up, x), "W_hh": dW_hh, "b_h": up}

    return backward


@pytest.mark.parametrize(
    "slip, wrong, rows",
    [
        ("tanh after", ["dh_prev"], (16, 20)),
        ("W_xh", ["dh_prev"], (17,)),  # (V,) where (H,) belongs: the shapes tell, and the mistake's own shape matches
        ("sigmoid", ["dh_prev", "W_xh", "W_hh", "b_h"], (21,)),
        ("no upstream", ["W_xh", "b_h"], (22,)),
        ("x_t", ["W_hh"], (23,)),
        ("not transposed", ["dh_prev"], (27,)),
        ("wrong step", ["dh_prev", "W_xh", "W_hh", "b_h"], (28,)),
    ],
)
def test_step_backward_recognises_the_errata_slips(slip, wrong, rows):
    result = assert_wrong("step_backward", step_backward_with(slip), wrong, rows=rows)
    if slip in ("W_xh", "x_t"):
        assert "shape (5,), expected (4,)" in result.message or "shape (4, 5), expected (4, 4)" in result.message


def test_step_backward_common_mistakes():
    def no_slope(params, dh_t, h_t, h_prev, x_t):
        return plain_step_backward(params, dh_t / (1 - h_t**2), h_t, h_prev, x_t)

    assert_wrong("step_backward", no_slope, ["dh_prev", "W_xh", "W_hh", "b_h"], mistake="no tanh'")

    def transposed(params, dh_t, h_t, h_prev, x_t):
        dh_prev, grads = plain_step_backward(params, dh_t, h_t, h_prev, x_t)
        return dh_prev, {**grads, "W_hh": grads["W_hh"].T}

    assert_wrong("step_backward", transposed, ["W_hh"], mistake="dW_hh transposed")


def test_loss_and_grads_common_mistakes():
    def from_zeros(params, inputs, targets, h0):
        return plain_loss_and_grads(params, inputs, targets, np.zeros_like(h0))

    assert_wrong(
        "loss_and_grads", from_zeros, ["loss", "W_xh", "W_hh", "W_yh", "b_h", "b_o", "h_last"], mistake="h0 ignored"
    )

    def mean(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss / len(inputs), grads, h_last

    assert_wrong("loss_and_grads", mean, ["loss"], mistake="the mean loss")

    def every_state(params, inputs, targets, h0):
        loss, grads, _ = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, grads, rnn_core.forward(params, inputs, h0)["h"]

    result = assert_wrong("loss_and_grads", every_state, ["h_last"], mistake="every state")
    assert "shape (5, 4), expected (4,)" in result.message

    def minus_loss(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return -loss, grads, h_last

    assert_wrong("loss_and_grads", minus_loss, ["loss"], rows=(10,), mistake="loss without its minus")

    def b_o_summed_over_outputs(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return loss, {**grads, "b_o": np.zeros_like(grads["b_o"]) + grads["b_o"].sum()}, h_last  # Σ_i: 0

    assert_wrong("loss_and_grads", b_o_summed_over_outputs, ["b_o"], rows=(14,))

    def two_mistakes(params, inputs, targets, h0):  # b_o of one step, and truncation at k = 0
        loss, grads, h_last = rnn_core.loss_and_grads(params, inputs, targets, h0, bptt_truncate=0)
        out = rnn_core.forward(params, inputs, h0)
        return loss, {**grads, "b_o": out["p"][-1] - rnn_core.one_hot(targets[-1], len(grads["b_o"]))}, h_last

    result = assert_wrong("loss_and_grads", two_mistakes, ["W_xh", "W_hh", "b_h", "b_o"], rows=(5, 24))
    assert "W_xh, W_hh and b_h: errata row 5" in result.message and "b_o: errata row 24" in result.message


def test_truncated_bptt_at_k_0_and_1_are_rows_5_and_4():
    for k, row in ((0, 5), (1, 4)):

        def truncated(params, inputs, targets, h0, k=k):
            return rnn_core.loss_and_grads(params, inputs, targets, h0, bptt_truncate=k)

        assert_wrong("loss_and_grads", truncated, ["W_xh", "W_hh", "b_h"], rows=(row,))


def test_clip_global_norm_mistakes():
    def each_own(grads, max_norm):
        return {k: g * min(1, max_norm / np.linalg.norm(g)) for k, g in grads.items()}, plain_global_norm(grads)

    names = list(rnn_core.PARAM_NAMES)
    result = assert_wrong("clip_global_norm", each_own, names, mistake="each array clipped by its own norm")
    assert "right: norm" in result.message
    assert_wrong(
        "clip_global_norm",
        lambda g, c: ({k: np.clip(v, -c, c) for k, v in g.items()}, plain_global_norm(g)),
        names,
        mistake="elementwise clipping",
    )

    def norm_after(grads, max_norm):
        clipped, norm = plain_clip_global_norm(grads, max_norm)
        return clipped, min(norm, max_norm)

    assert_wrong("clip_global_norm", norm_after, ["norm"], mistake="the norm after clipping")

    def in_place(grads, max_norm):
        norm = plain_global_norm(grads)
        for g in grads.values():
            g *= min(1.0, max_norm / norm)
        return grads, norm

    result = assert_wrong("clip_global_norm", in_place, ["grads"], rows=(7,))
    assert "changed grads in place" in result.message


def test_global_norm_mistakes():
    assert_wrong(
        "global_norm",
        lambda g: sum(np.linalg.norm(v) for v in g.values()),
        ["norm"],
        mistake="the sum of the arrays' norms",
    )
    assert_wrong("global_norm", lambda g: sum(np.sum(v**2) for v in g.values()), ["norm"], mistake="no square root")

    def overwritten(grads):
        for g in grads.values():
            total = np.sum(g**2)  # = where += belongs
        return np.sqrt(total)

    assert_wrong("global_norm", overwritten, ["norm"], mistake="one array only")


def test_adam_update_mistakes():
    def no_bias_correction(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        new, state = plain_adam_update(params, grads, state, lr, beta1, beta2, eps)
        return {k: params[k] - lr * state["m"][k] / (np.sqrt(state["v"][k]) + eps) for k in params}, state

    assert_wrong("adam_update", no_bias_correction, list(rnn_core.PARAM_NAMES), mistake="no bias correction")

    def ascent(params, grads, state, lr):
        new, state = plain_adam_update(params, grads, state, lr)
        return {k: 2 * params[k] - new[k] for k in params}, state

    assert_wrong("adam_update", ascent, list(rnn_core.PARAM_NAMES), mistake="a step up the gradient")

    def t_stays(params, grads, state, lr):
        new, new_state = plain_adam_update(params, grads, state, lr)
        return new, {**new_state, "t": state["t"]}

    result = assert_wrong("adam_update", t_stays, ["t"])
    assert "t: 0, expected 1" in result.message


def test_lstm_step_forward_mistakes():
    def order_ifog(params, x_t, h_prev, c_prev):  # the rows read as i, f, o, g
        H = len(h_prev)
        swap = np.r_[0 : 2 * H, 3 * H : 4 * H, 2 * H : 3 * H]
        return plain_lstm_step_forward(
            {**params, "W_x": params["W_x"][swap], "W_h": params["W_h"][swap], "b": params["b"][swap]},
            x_t,
            h_prev,
            c_prev,
        )

    assert_wrong("lstm.step_forward", order_ifog, ["h", "c", "cache"], mistake="the gates read from the wrong rows")

    def no_tanh(params, x_t, h_prev, c_prev):
        h, c, cache = plain_lstm_step_forward(params, x_t, h_prev, c_prev)
        return cache["o"] * c, c, cache

    assert_wrong("lstm.step_forward", no_tanh, ["h"], mistake="h_t = o ⊙ c_t")

    def small_cache(params, x_t, h_prev, c_prev):
        h, c, cache = plain_lstm_step_forward(params, x_t, h_prev, c_prev)
        return h, c, {k: v for k, v in cache.items() if k != "c_prev"}

    result = assert_wrong("lstm.step_forward", small_cache, ["cache"])
    assert "cache: no key 'c_prev'" in result.message


def test_lstm_step_backward_mistakes():
    def no_path_into_the_cell(params, dh_t, dc_t, cache):
        return plain_lstm_step_backward(params, dh_t, dc_t, cache, into_cell=False)

    result = assert_wrong(
        "lstm.step_backward",
        no_path_into_the_cell,
        ["dh_prev", "dc_prev", "W_x", "W_h", "b"],
        mistake="no path from h_t into the cell",
    )
    assert result.errata == ()

    def gates_in_another_order(params, dh_t, dc_t, cache):
        dh_prev, dc_prev, grads = plain_lstm_step_backward(params, dh_t, dc_t, cache)
        H = len(dh_t)
        order = np.r_[H : 2 * H, 0:H, 2 * H : 4 * H]  # f, i, g, o
        da = grads["b"][order]
        x = np.eye(params["W_x"].shape[1])[cache["x"]]
        return params["W_h"].T @ da, dc_prev, {"W_x": np.outer(da, x), "W_h": np.outer(da, cache["h_prev"]), "b": da}

    assert_wrong(
        "lstm.step_backward",
        gates_in_another_order,
        ["dh_prev", "W_x", "W_h", "b"],
        mistake="the gates' gradients stacked in the wrong order",
    )


def test_gru_step_forward_mistakes():
    def other_convention(params, x_t, h_prev):  # h_t = (1 - z) h_{t-1} + z n: z and 1 - z swapped
        h, cache = plain_gru_step_forward(params, x_t, h_prev)
        z, n = cache["z"], cache["n"]
        return (1 - z) * h_prev + z * n, cache

    assert_wrong("gru.step_forward", other_convention, ["h"], mistake="z and 1 − z swapped")

    def reset_before(params, x_t, h_prev):  # W_hn (r * h_{t-1}), as Cho et al. and d2l write it
        H = len(h_prev)
        h, cache = plain_gru_step_forward(params, x_t, h_prev)
        r, z = cache["r"], cache["z"]
        m = params["W_h"][2 * H :] @ (r * h_prev)
        n = np.tanh(params["W_x"][2 * H :, x_t] + m + params["b"][2 * H :])
        return z * h_prev + (1 - z) * n, {**cache, "n": n, "m": m}

    result = assert_wrong("gru.step_forward", reset_before, ["h", "cache"], mistake="the reset gate before W_hn")
    assert "Cho et al." in result.message

    def order_zrn(params, x_t, h_prev):  # the rows read as z, r, n
        H = len(h_prev)
        swap = np.r_[H : 2 * H, 0:H, 2 * H : 3 * H]
        return plain_gru_step_forward(
            {**params, "W_x": params["W_x"][swap], "W_h": params["W_h"][swap], "b": params["b"][swap]}, x_t, h_prev
        )

    assert_wrong("gru.step_forward", order_zrn, ["h", "cache"], mistake="the gates read from the wrong rows")

    def no_m(params, x_t, h_prev):
        h, cache = plain_gru_step_forward(params, x_t, h_prev)
        return h, {k: v for k, v in cache.items() if k != "m"}

    result = assert_wrong("gru.step_forward", no_m, ["cache"])
    assert "cache: no key 'm'" in result.message


def test_gru_step_backward_mistakes():
    def no_direct_path(params, dh_t, cache):
        return plain_gru_step_backward(params, dh_t, cache, direct=False)

    result = assert_wrong("gru.step_backward", no_direct_path, ["dh_prev"], mistake="no direct path to h_{t−1}")
    assert result.errata == ()

    def other_convention(params, dh_t, cache):
        return plain_gru_step_backward(params, dh_t, cache, swapped=True)

    assert_wrong("gru.step_backward", other_convention, ["dh_prev", "W_x", "W_h", "b"], mistake="z and 1 − z swapped")

    def reset_before(params, dh_t, cache):  # the gradient of W_hn (r * h_{t-1}), Cho et al.'s candidate
        r, z, n, h_prev, H = cache["r"], cache["z"], cache["n"], cache["h_prev"], len(dh_t)
        dh_prev, grads = plain_gru_step_backward(params, dh_t, cache)
        da_n = dh_t * (1 - z) * (1 - n * n)
        d_rh = params["W_h"][2 * H :].T @ da_n  # what reaches r * h_{t-1}
        da_r = d_rh * h_prev * r * (1 - r)
        da_z = grads["b"][H : 2 * H]
        x = np.eye(params["W_x"].shape[1])[cache["x"]]
        da_x = np.concatenate([da_r, da_z, da_n])
        dW_h = np.vstack([np.outer(da_r, h_prev), np.outer(da_z, h_prev), np.outer(da_n, r * h_prev)])
        dh_prev = params["W_h"][:H].T @ da_r + params["W_h"][H : 2 * H].T @ da_z + d_rh * r + dh_t * z
        return dh_prev, {"W_x": np.outer(da_x, x), "W_h": dW_h, "b": da_x}

    result = assert_wrong(
        "gru.step_backward", reset_before, ["dh_prev", "W_x", "W_h", "b"], mistake="the reset gate before W_hn"
    )

    def sign_of_dz(params, dh_t, cache):
        H = len(dh_t)
        dh_prev, grads = plain_gru_step_backward(params, dh_t, cache)
        da_z = grads["b"][H : 2 * H]
        for name in ("W_x", "W_h", "b"):
            grads[name][H : 2 * H] *= -1
        return dh_prev - 2 * params["W_h"][H : 2 * H].T @ da_z, grads

    assert_wrong(
        "gru.step_backward",
        sign_of_dz,
        ["dh_prev", "W_x", "W_h", "b"],
        mistake="the update gate's gradient with its sign flipped",
    )


# -- the errata's slips, taken from the notebook that writes them ------------------------------------------

# what each slip of the backward pass gets wrong on a sequence (loss and h_last come from the forward pass)
SLIP_WRONG = {
    "no target term": ["W_xh", "W_hh", "W_yh", "b_h", "b_o"],
    "∇h_{t+1} L from o_{t+1} only": ["W_xh", "W_hh", "b_h"],
    "no contribution from h_{t+1}": ["W_xh", "W_hh", "b_h"],
    "delta_o = o": ["W_xh", "W_hh", "W_yh", "b_h", "b_o"],
    "s[-1] at the first step": ["W_hh"],
    "loss without its minus": ["W_xh", "W_hh", "W_yh", "b_h", "b_o"],
    "tanh' after W_hhᵀ": ["W_xh", "W_hh", "b_h"],
    "W_xh in place of W_hh": None,  # H != V: numpy refuses the shapes
    "sigmoid's derivative": ["W_xh", "W_hh", "b_h"],
    "no upstream gradient": ["W_xh", "b_h"],
    "x_t in place of h_{t-1}": None,
    "b_o without Σ_t": ["b_o"],
    "W_hh not transposed": ["W_xh", "W_hh", "b_h"],
    "tanh' at the wrong step": ["W_xh", "W_hh", "b_h"],
}


def tagged_cell(tag):
    """(notebook name, source) of the one code cell tagged ``tag`` in notebooks/NN-*.ipynb."""
    found = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if tag in cell["metadata"].get("tags", []):
                found.append((path.name, "".join(cell["source"])))
    assert len(found) == 1, f"expected one cell tagged {tag!r} in notebooks/, found {len(found)}"
    return found[0]


@pytest.fixture(scope="module")
def errata_slips():
    """SLIPS and backward from the notebook's own cell, executed with the names it needs."""
    notebook, source = tagged_cell("errata-slips")
    params = rnn_core.init_params(4, 3, seed=0)
    available = {
        "np": np,
        "PARAM_NAMES": rnn_core.PARAM_NAMES,
        "one_hot": rnn_core.one_hot,
        "forward": rnn_core.forward,
        "loss_and_grads": rnn_core.loss_and_grads,
        "softmax": rnn_core.softmax,
        "params": params,
        "h0": np.full(3, 0.1),
        "inputs": np.array([1, 0, 2, 2]),
        "targets": np.array([0, 2, 2, 3]),
    }
    tree = ast.parse(source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    defined |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
    unknown = loaded - defined - set(dir(builtins)) - set(available)
    assert not unknown, f"the errata-slips cell of {notebook} needs names this test does not give it: {unknown}"
    namespace = {name: value for name, value in available.items() if name in loaded}
    filename = f"<{notebook}, errata-slips cell>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # lines for the messages
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, filename, "exec"), namespace)
    return namespace["SLIPS"], namespace["backward"]


def as_loss_and_grads(backward, slip):
    """The notebook's backward pass as a loss_and_grads: run twice on one stored forward pass, as the notebook does."""

    def loss_and_grads(params, inputs, targets, h0):
        out = rnn_core.forward(params, inputs, h0)
        loss = -np.sum(np.log(out["p"][np.arange(len(targets)), targets]))
        backward(params, inputs, targets, h0, out, slip)  # a first pass on this forward pass ...
        grads, _ = backward(params, inputs, targets, h0, out, slip)  # ... and a second one, which is returned
        return loss, grads, out["h"][-1]

    return loss_and_grads


def test_the_notebook_backward_pass_without_a_slip_passes(errata_slips):
    _, backward = errata_slips
    result, _ = check("loss_and_grads", as_loss_and_grads(backward, None))
    assert result.status == "passed", result.message


def test_every_errata_slip_of_the_notebook_is_recognised_by_its_row(errata_slips):
    slips, backward = errata_slips
    assert set(slips) == set(SLIP_WRONG), "a slip was added to or removed from the notebook: update SLIP_WRONG"
    for slip, rows in slips.items():
        if SLIP_WRONG[slip] is None:  # runs only where H = V: an error at the reader's line, then the square case
            result, _ = check("loss_and_grads", as_loss_and_grads(backward, slip))
            assert result.status == "error", (slip, result.message)
            assert "could not be broadcast" in result.message and "square network (H = V = 5)" in result.message
            assert re.search(r'in backward, line \d+: (dh = W_yh.T|grads\["W_hh"\] \+=)', result.message), (
                result.message
            )
            assert result.errata == rows, (slip, result.message)
            assert f'errata row {rows[0]}, "{slip}"' in result.message and practice.ERRATA_TABLE in result.message
        else:
            result = assert_wrong("loss_and_grads", as_loss_and_grads(backward, slip), SLIP_WRONG[slip], rows=rows)
            assert f'"{slip}"' in result.message, result.message


def char_rnn_readme_backward(fixed=()):
    """The char-RNN README's backward pass as published (rows 22, 23, 24), with the repairs named in ``fixed``.

    Repairs: "upstream" (W_xh and b_h get δ_t, row 22), "W_hh with h_{t-1}" and "W_hh with δ_t" (the
    two halves of row 23), "b_o summed" (row 24). Notebook 10 asks the reader to make all four.
    """

    def loss_and_grads(params, inputs, targets, h0):
        W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in rnn_core.PARAM_NAMES)
        V, T = W_yh.shape[0], len(inputs)
        hs, y_hat = [h0], []
        for x_t in inputs:
            hs.append(np.tanh(W_xh[:, x_t] + W_hh @ hs[-1] + b_h))
            y_hat.append(plain_softmax(W_yh @ hs[-1] + b_o))
        loss = -sum(np.log(y_hat[t][targets[t]]) for t in range(T))
        grads = dict.fromkeys(rnn_core.PARAM_NAMES, 0.0)
        dh_next = np.zeros_like(h0)
        for t in range(T - 1, -1, -1):
            x, h, h_prev = np.eye(V)[inputs[t]], hs[t + 1], hs[t]
            do = y_hat[t] - np.eye(V)[targets[t]]
            delta = (1 - h**2) * (W_yh.T @ do + dh_next)
            up = delta if "upstream" in fixed else 1 - h**2
            grads["W_xh"] = grads["W_xh"] + np.outer(up, x)
            grads["b_h"] = grads["b_h"] + up
            grads["W_hh"] = grads["W_hh"] + np.outer(
                delta if "W_hh with δ_t" in fixed else 1 - h**2, h_prev if "W_hh with h_{t-1}" in fixed else x
            )
            grads["W_yh"] = grads["W_yh"] + np.outer(do, h)
            grads["b_o"] = grads["b_o"] + do if "b_o summed" in fixed else do
            dh_next = W_hh.T @ delta
        return loss, grads, hs[-1]

    return loss_and_grads


@pytest.mark.parametrize(
    "fixed, wrong, rows",
    [
        ((), ["W_xh", "W_hh", "b_h", "b_o"], (22, 23, 24)),
        (("upstream",), ["W_hh", "b_o"], (23, 24)),
        (("upstream", "b_o summed"), ["W_hh"], (23,)),
        (("upstream", "b_o summed", "W_hh with h_{t-1}"), ["W_hh"], (23,)),
        (("upstream", "b_o summed", "W_hh with δ_t"), ["W_hh"], (23,)),
        (("W_hh with h_{t-1}", "W_hh with δ_t", "b_o summed"), ["W_xh", "b_h"], (22,)),
        (("upstream", "W_hh with h_{t-1}", "W_hh with δ_t"), ["b_o"], (24,)),
    ],
)
def test_a_published_backward_pass_is_told_each_row_it_has_not_fixed(fixed, wrong, rows):
    result = assert_wrong("loss_and_grads", char_rnn_readme_backward(fixed), wrong, rows=rows)
    assert "like none of the mistakes" not in result.message, result.message


def test_the_published_backward_pass_repaired_passes():
    repairs = ("upstream", "W_hh with h_{t-1}", "W_hh with δ_t", "b_o summed")
    result, _ = check("loss_and_grads", char_rnn_readme_backward(repairs))
    assert result.status == "passed", result.message


def test_a_wrong_answer_that_also_changes_its_arguments_is_told_both():
    def both(params, dh_t, h_t, h_prev, x_t):
        dh_t *= 1 - h_t**2  # delta, computed in the caller's array
        return params["W_hh"] @ dh_t, {
            "W_xh": np.outer(dh_t, np.eye(5)[x_t]),
            "W_hh": np.outer(dh_t, h_prev),
            "b_h": dh_t,
        }

    result = assert_wrong("step_backward", both, ["dh_prev"], rows=(27, 7))
    assert "and your function changed dh_t in place" in result.message


def test_the_errata_rows_recognised_are_the_ones_the_docstring_lists():
    listed = re.search(r"the rows of the errata table \(([\d, and\n]+)\)", practice.__doc__.replace("\n", " ")).group(1)
    assert tuple(int(n) for n in re.findall(r"\d+", listed)) == practice.ERRATA_ROWS
    # every row the notebook's slips name is among them
    slips = {row for rows in tagged_slips_rows() for row in rows}
    assert slips <= set(practice.ERRATA_ROWS)


def tagged_slips_rows():
    _, source = tagged_cell("errata-slips")
    (value,) = [
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["SLIPS"]
    ]
    return ast.literal_eval(value).values()


def test_a_cache_or_state_holding_odd_values_is_wrong_not_a_crash():
    def array_x(params, x_t, h_prev, c_prev):
        h, c, cache = plain_lstm_step_forward(params, x_t, h_prev, c_prev)
        return h, c, {**cache, "x": np.eye(5)[x_t]}  # the one-hot vector where rnn_core keeps the index

    result = assert_wrong("lstm.step_forward", array_x, ["cache"])
    assert "cache: an array of shape (5,), expected 2 at x" in result.message

    def t_as_string(params, grads, state, lr):
        new, state = plain_adam_update(params, grads, state, lr)
        return new, {**state, "t": "1"}

    assert_wrong("adam_update", t_as_string, ["t"])


def test_in_jupyter_a_cell_ending_with_check_shows_one_message_with_the_link_clickable(monkeypatch):
    IPython = pytest.importorskip("IPython")
    from IPython.core.formatters import DisplayFormatter

    result, printed = check("softmax", plain_softmax)
    assert DisplayFormatter().format(result) == ({}, {})  # the kernel's display hook sends nothing for it

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Kernel", (), {"kernel": object()})())
    monkeypatch.setattr(IPython.display, "display", lambda bundle, raw: shown.append(bundle))
    result, printed = check("softmax", lambda o: -plain_softmax(o))  # a message that names an errata row
    assert printed == "" and len(shown) == 1
    assert shown[0]["text/plain"] == result.message
    assert f'<a href="{practice.ERRATA_TABLE}">' in shown[0]["text/html"]
    result, printed = check("softmax", plain_softmax)  # no link: printed as it is
    assert printed == result.message + "\n" and len(shown) == 1


def test_a_function_with_other_arguments_is_told_how_it_is_called():
    result, _ = check("step_backward", lambda params, dh_t, cache: None)
    assert result.status == "error" and "TypeError" in result.message
    assert "check calls it as step_backward(params, dh_t, h_t, h_prev, x_t)" in result.message
