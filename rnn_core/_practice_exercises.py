"""The exercises that ``rnn_core.practice`` checks: for each, its cases and the mistakes it recognises.

One ``Exercise`` entry per exercise, in reading order, in ``EXERCISE_LIST`` at the end: the
``rnn_core`` function it is compared with, the names of its arguments and outputs, a function that
builds its cases, the mistakes to recognise and a hint. The reference solution that
``practice.solution`` prints is in ``_practice_solutions.py``.

Every case is built fresh from fixed seeds, in float64. Sizes are never equal where a mix-up of
sizes could hide (H != V; T != V), biases and starting states are non-zero, sequences are at least
three steps long. A mistake's ``gives`` computes, on the case, what an answer with that mistake
returns: the reader's answer is compared with it as with the reference, output by output.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import functions, gru, lstm, optim, rnn

__all__ = ["Case", "Mistake", "Exercise", "ALIASING", "EXERCISE_LIST"]


@dataclass(frozen=True)
class Case:
    """One set of arguments for the reader's function, and what it is, for the messages."""

    about: str  # what this case is, for the messages: "a sequence of T = 5 steps (H = 4, V = 5, ...)"
    args: tuple  # the arguments, in order
    square: bool = False  # a square network (H = V), run only to explain an answer that fails on shapes


@dataclass(frozen=True)
class Mistake:
    """A mistake check recognises: what it computes (``gives``), or a property of the answer (``test``)."""

    name: str  # short: "b_o without Σ_t"
    why: str  # one sentence: what the mistake does
    rows: tuple = ()  # its rows in the errata table; () for a common slip that is not in the table
    gives: Callable | None = None  # case -> the outputs this mistake gives, in the reference's form
    test: Callable | None = None  # (got, want, case) -> the names it explains, for a mistake that is a property


@dataclass(frozen=True)
class Exercise:
    """One exercise: the rnn_core function it is checked against, and how."""

    name: str  # "lstm.step_backward"
    notebook: str  # the notebook that asks for it
    reference: Callable  # the rnn_core function, called with the case's arguments
    args: tuple  # argument names, in order
    outputs: tuple  # names of the returned values, in order (one name: a single value)
    cases: Callable  # () -> list of Case, built fresh
    hint: str
    by_key: tuple = ()  # outputs that are dicts, compared and named key by key (gradients, parameters)
    optional: tuple = ()  # further outputs the reader may return, and which are then checked too
    mistakes: tuple = ()  # Mistake, most specific first

    @property
    def reference_name(self):
        return f"rnn_core.{self.name}"


ALIASING = Mistake(
    "delta_o = o",
    "a second name for an array is not a copy: changing it changes the caller's array too "
    "(make a copy first, or write the result into a new array).",
    rows=(7,),
)


def nan_where_finite(got, want, case):
    """The names where the reader's answer has nan or inf and rnn_core's is finite (a mistake that is a property)."""
    names = []
    for name, w in want.items():
        try:
            g = np.asarray(got[name], dtype=np.float64)
        except (TypeError, ValueError):
            continue
        if g.shape == np.shape(w) and np.any(~np.isfinite(g) & np.isfinite(w)):
            names.append(name)
    return names


# -- the cases and mistakes of each exercise -------------------------------------------------------------


def _softmax(o):
    e = np.exp(o - np.max(o, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# one_hot ---------------------------------------------------------------------------------------------


def _one_hot_cases():
    return [Case("indices [3 0 2 2 5], num_classes = 6", (np.array([3, 0, 2, 2, 5]), 6))]


_ONE_HOT_MISTAKES = (
    Mistake(
        "one column per index",
        "the result is transposed: one_hot gives one row per index, with num_classes columns.",
        gives=lambda c: functions.one_hot(*c.args).T,
    ),
    Mistake(
        "one vector for all the indices",
        "a single vector with a 1 at every index: one_hot gives a row per index, each with exactly one 1.",
        gives=lambda c: np.isin(np.arange(c.args[1]), c.args[0]).astype(float),
    ),
)


# softmax and its Jacobian ------------------------------------------------------------------------------


def _softmax_cases():
    return [
        Case("scores of moderate size, V = 5", (np.array([1.5, -0.3, 0.8, 2.2, -1.1]),)),
        Case("large scores (around 1000)", (np.array([1000.0, 1002.5, 998.0, -1000.0, 1001.0]),)),
        Case("very negative scores (around -1000)", (np.array([-1000.0, -1002.5, -998.0, -1003.0, -1001.0]),)),
    ]


_OVERFLOW = (
    "exp overflows to inf for scores near 1000 (and every exp underflows to 0 near -1000): subtract the "
    "largest score from every score first, which leaves softmax unchanged (notebook 01)."
)

_SOFTMAX_MISTAKES = (
    Mistake(
        "−softmax",
        "a minus sign in front: negative numbers that sum to −1, not probabilities.",
        rows=(11,),
        gives=lambda c: -_softmax(c.args[0]),
    ),
    Mistake(
        "exp without the sum",
        "the exponentials are not divided by their sum, so they do not add up to 1.",
        gives=lambda c: np.exp(c.args[0] - np.max(c.args[0])),
    ),
    Mistake("no shift by the largest score", _OVERFLOW, test=nan_where_finite),
)


def _jacobian_cases():
    p = _softmax(np.array([0.5, -1.0, 2.0, 0.1, -0.4]))
    return [Case("the probabilities p = softmax([0.5, -1, 2, 0.1, -0.4])", (p,))]


_JACOBIAN_MISTAKES = (
    Mistake(
        "−ŷŷᵀ as the softmax Jacobian",
        "−p pᵀ is only the part for i ≠ k; J = diag(p) − p pᵀ, so the diagonal, p_i (1 − p_i), is missing its p_i.",
        rows=(3,),
        gives=lambda c: -np.outer(c.args[0], c.args[0]),
    ),
    Mistake(
        "diag(p) + p pᵀ",
        "the sign of the outer product flipped: ∂p_i/∂o_k = p_i ([i = k] − p_k).",
        gives=lambda c: np.diag(c.args[0]) + np.outer(c.args[0], c.args[0]),
    ),
    Mistake(
        "only the diagonal",
        "only the case i = k, p_i (1 − p_i): every off-diagonal entry −p_i p_k is missing.",
        gives=lambda c: np.diag(c.args[0] * (1 - c.args[0])),
    ),
    Mistake(
        "the diagonal as a vector",
        "the V numbers p_i (1 − p_i) alone; the Jacobian is the V × V matrix diag(p) − p pᵀ.",
        gives=lambda c: c.args[0] * (1 - c.args[0]),
    ),
    Mistake(
        "softmax taken again",
        "the argument is already the probabilities p = softmax(o); your function applies softmax to it once more.",
        gives=lambda c: np.diag(_softmax(c.args[0])) - np.outer(_softmax(c.args[0]), _softmax(c.args[0])),
    ),
)


# cross_entropy_grad ------------------------------------------------------------------------------------


def _cross_entropy_cases():
    return [
        Case("scores of moderate size, V = 5, target y = 3", (np.array([0.4, -1.2, 2.1, 0.3, -0.5]), 3)),
        Case("large scores (around 1000), target y = 1", (np.array([1000.0, 997.0, 1003.0, -1000.0, 999.5]), 1)),
    ]


def _ce_model(f):
    def gives(case):
        o, y = case.args
        return f(_softmax(o), np.eye(len(o))[y])

    return gives


_CROSS_ENTROPY_MISTAKES = (
    Mistake(
        "softmax(o) as the gradient",
        "the target term is missing: the gradient is ŷ − 𝐲, the probabilities minus the one-hot target.",
        rows=(3,),
        gives=_ce_model(lambda p, y: p),
    ),
    Mistake(
        "loss without its minus",
        "this is the gradient of +log ŷ_y: the sign is flipped, and gradient "
        "descent on it would make the prediction worse.",
        rows=(10,),
        gives=_ce_model(lambda p, y: y - p),
    ),
    Mistake(
        "the target dropped from the loss",
        "this is the gradient of −Σ_i log ŷ_i, the loss with the target distribution left out (V ŷ − 1).",
        rows=(13,),
        gives=_ce_model(lambda p, y: len(p) * p - 1),
    ),
    Mistake("−softmax", "softmax with a stray minus sign, −ŷ − 𝐲.", rows=(11,), gives=_ce_model(lambda p, y: -p - y)),
    Mistake(
        "the gradient with respect to ŷ",
        "−𝐲 / ŷ is the gradient with respect to the probabilities; "
        "the exercise asks for the scores o: go on through softmax's Jacobian (notebook 02, section 4).",
        gives=_ce_model(lambda p, y: -y / p),
    ),
    Mistake(
        "the index subtracted from every score",
        "ŷ − y with y the index, a number: the target must be one-hot, 𝐲 = one_hot(y, V).",
        gives=lambda c: _softmax(c.args[0]) - c.args[1],
    ),
    Mistake("no shift by the largest score", _OVERFLOW, test=nan_where_finite),
)


# the vanilla RNN: one step forward and back, and BPTT over a sequence ------------------------------


def _rnn_params(V, H, seed):
    """init_params(V, H) with non-zero biases, so that every term of every gradient is switched on."""
    params = rnn.init_params(V, H, seed=seed)
    rng = np.random.default_rng(seed + 100)
    params["b_h"] = 0.3 * rng.standard_normal(H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    return params, 0.5 * rng.standard_normal(H)


def _step_forward_cases():
    params, h_prev = _rnn_params(5, 4, seed=1)
    square, h_square = _rnn_params(5, 5, seed=1)
    return [
        Case("one step with H = 4, V = 5, x_t = 3, h_prev ≠ 0, non-zero biases", (params, 3, h_prev)),
        Case("a square network (H = V = 5)", (square, 3, h_square), square=True),
    ]


def _step_forward_model(transpose=False, bias=True, squash=np.tanh, row=False):
    def gives(case):
        params, x_t, h_prev = case.args
        W_hh = params["W_hh"].T if transpose else params["W_hh"]
        x_term = params["W_xh"][x_t] if row else params["W_xh"][:, x_t]
        return squash(W_hh @ h_prev + x_term + (params["b_h"] if bias else 0))

    return gives


_STEP_FORWARD_MISTAKES = (
    Mistake(
        "W_hh transposed",
        "W_hhᵀ h_{t−1} where W_hh h_{t−1} belongs (in the row convention, h_prev @ W_hh needs W_hh.T).",
        gives=_step_forward_model(transpose=True),
    ),
    Mistake("no bias", "b_h is missing inside the tanh.", gives=_step_forward_model(bias=False)),
    Mistake(
        "no tanh",
        "the pre-activation itself: h_t = tanh(...) squashes it.",
        gives=_step_forward_model(squash=lambda a: a),
    ),
    Mistake(
        "sigmoid in place of tanh",
        "the vanilla RNN squashes with tanh, into (−1, 1).",
        gives=_step_forward_model(squash=_sigmoid),
    ),
    Mistake(
        "row x_t of W_xh",
        "with a one-hot x_t, W_xh x_t is column x_t of W_xh (W_xh[:, x_t]), not row x_t "
        "(W_xh is (H, V): one column per character).",
        gives=_step_forward_model(row=True),
    ),
)


def _step_backward_case(V, H, about, square=False):
    params, h_prev = _rnn_params(V, H, seed=2)
    x_t = 2
    h_t = rnn.step_forward(params, x_t, h_prev)
    dh_t = np.random.default_rng(7).standard_normal(H)
    return Case(about, (params, dh_t, h_t, h_prev, x_t), square=square)


def _step_backward_cases():
    return [
        _step_backward_case(5, 4, "one step with H = 4, V = 5, x_t = 2, h_prev ≠ 0"),
        _step_backward_case(5, 5, "a square network (H = V = 5)", square=True),
    ]


def _step_backward_model(slip):
    def gives(case):
        params, dh_t, h_t, h_prev, x_t = case.args
        W_xh, W_hh = params["W_xh"], params["W_hh"]
        x = np.eye(W_xh.shape[1])[x_t]
        slope = {
            "tanh' at the wrong step": 1 - h_prev**2,
            "sigmoid's derivative": h_t * (1 - h_t),
            "no tanh'": np.ones_like(h_t),
        }.get(slip, 1 - h_t**2)
        da = slope * dh_t
        up = 1 - h_t**2 if slip == "no upstream gradient" else da
        dW_hh = np.outer(da, x if slip == "x_t in place of h_{t-1}" else h_prev)
        if slip == "dW_hh transposed":
            dW_hh = dW_hh.T
        dh_prev = _back_to_h_prev(slip, W_xh, W_hh, da, dh_t, h_t)
        return dh_prev, {"W_xh": np.outer(up, x), "W_hh": dW_hh, "b_h": up}

    return gives


def _back_to_h_prev(slip, W_xh, W_hh, da, dh, h):
    """What reaches h_{t-1} from delta_t = da (dh: all that reached h_t), or what a slip sends there instead."""
    if slip == "W_hh not transposed":
        return W_hh @ da
    if slip == "W_xh in place of W_hh":
        return W_xh.T @ da  # (V,): fits only where V = H
    if slip == "tanh' after W_hhᵀ":
        return (1 - h**2) * (W_hh.T @ dh)  # the slope of h_t's units applied to h_{t-1}'s
    return W_hh.T @ da


def _rnn_bptt(params, inputs, targets, h0, slip=None):
    """BPTT for one sequence, plainly, with one line swapped for a mistake: (loss, grads, h_last, dh0)."""
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in rnn.PARAM_NAMES)
    V, H, T = W_yh.shape[0], W_hh.shape[0], len(inputs)
    hs = [np.zeros(H) if slip == "h0 ignored" else h0]
    for x_t in inputs:
        hs.append(np.tanh(W_hh @ hs[-1] + W_xh[:, x_t] + b_h))
    p = _softmax(np.array([W_yh @ h + b_o for h in hs[1:]]))
    y = np.eye(V)[targets]
    loss = -np.sum(np.log(p[np.arange(T), targets]))
    do = {
        "no target term": p,
        "loss without its minus": y - p,
        "second pass after delta_o = o": p - 2 * y,
        "the mean loss": (p - y) / T,
    }.get(slip, p - y)
    loss = {"loss without its minus": -loss, "the mean loss": loss / T}.get(slip, loss)
    grads = {name: np.zeros_like(params[name]) for name in rnn.PARAM_NAMES}
    if slip in ("x_t in place of h_{t-1}", "W_hh's gradient as W_xh's"):
        grads["W_hh"] = np.zeros((H, V))
    dh_next = np.zeros(H)
    for t in range(T, 0, -1):
        h, h_prev, x = hs[t], hs[t - 1], np.eye(V)[inputs[t - 1]]
        dh = W_yh.T @ do[t - 1] + dh_next
        if slip == "no contribution from h_{t+1}":
            dh = W_yh.T @ do[t - 1]
        if slip == "∇h_{t+1} L from o_{t+1} only" and t < T:
            dh = W_yh.T @ do[t - 1] + W_hh.T @ ((1 - hs[t + 1] ** 2) * (W_yh.T @ do[t]))
        slope = {"tanh' at the wrong step": 1 - h_prev**2, "sigmoid's derivative": h * (1 - h)}.get(slip, 1 - h**2)
        da = slope * dh
        if slip == "s[-1] at the first step" and t == 1:
            h_prev = hs[T]
        dW_hh = {
            "x_t in place of h_{t-1}": np.outer(da, x),
            "W_hh's gradient as W_xh's": np.outer(1 - h**2, x),  # the char-RNN README's Σ_t x_t ⊙ (1 − h_t²)
            "no upstream gradient in W_hh": np.outer(1 - h**2, h_prev),
        }.get(slip)
        grads["W_hh"] += np.outer(da, h_prev) if dW_hh is None else dW_hh
        up = 1 - h**2 if slip == "no upstream gradient" else da
        grads["W_xh"] += np.outer(up, x)
        grads["b_h"] += up
        grads["W_yh"] += np.outer(do[t - 1], h)
        grads["b_o"] += do[t - 1]
        dh_next = _back_to_h_prev(slip, W_xh, W_hh, da, dh, h)
    if slip == "b_o of the first step":
        grads["b_o"] = do[0]
    if slip == "b_o of the last step":
        grads["b_o"] = do[-1]
    h_last = np.array(hs[1:]) if slip == "every state" else hs[-1]
    return loss, grads, h_last, dh_next


def _bptt_model(slip):
    return lambda case: _rnn_bptt(*case.args, slip=slip)


def _sequence_case(V, H, about, square=False):
    params, h0 = _rnn_params(V, H, seed=3)
    inputs, targets = np.array([1, 4, 2, 2, 0]), np.array([4, 2, 2, 0, 3])
    return Case(about, (params, inputs, targets, h0), square=square)


def _loss_and_grads_cases():
    return [
        _sequence_case(5, 4, "a sequence of T = 5 steps (H = 4, V = 5, h0 ≠ 0, non-zero biases)"),
        _sequence_case(5, 5, "a square network (H = V = 5)", square=True),
    ]


def _b_o_summed_over_outputs(got, want, case):
    b_o = got.get("b_o")
    try:
        return ["b_o"] if np.allclose(np.asarray(b_o, dtype=np.float64), 0.0, atol=1e-12) else []
    except (TypeError, ValueError):
        return []


# the mistakes of the backward pass that notebook 05 writes as one-line slips, and a few more
_BACKWARD_MISTAKES = (
    ("no target term", (3,), "∇o_t L = ŷ_t where ŷ_t − 𝐲_t belongs: the target term is missing."),
    ("loss without its minus", (10,), "the gradient of +Σ_t log ŷ_t[y_t]: every gradient points the opposite way."),
    (
        "second pass after delta_o = o",
        (7,),
        "∇o_t L = ŷ_t − 2𝐲_t: what a second backward pass gives once "
        "`delta_o = o` has subtracted the target from the stored probabilities themselves (a second name, not a copy).",
    ),
    (
        "∇h_{t+1} L from o_{t+1} only",
        (4,),
        "what comes back from h_{t+1} keeps only the output term of step "
        "t + 1 and nothing from further on: the same as truncated BPTT with k = 1, not the gradient.",
    ),
    (
        "no contribution from h_{t+1}",
        (5,),
        "∇h_t L keeps only the path from o_t and drops W_hhᵀ δ_{t+1} from "
        "step t + 1: the same as truncated BPTT with k = 0, not the gradient.",
    ),
    (
        "s[-1] at the first step",
        (8,),
        "at the first step h_{t−1} was read as s[-1], which numpy takes as the last state h_T, not h_0.",
    ),
    (
        "tanh' after W_hhᵀ",
        (16, 20),
        "the slope 1 − h² of h_t's units applied after going back through W_hhᵀ, "
        "to h_{t−1}'s units: δ_t = (1 − h_t²) ⊙ ∇h_t L comes first.",
    ),
    ("W_xh in place of W_hh", (17,), "what reaches h_{t−1} went back through W_xhᵀ instead of W_hhᵀ."),
    ("sigmoid's derivative", (21,), "h(1 − h) is the logistic sigmoid's slope; tanh's is 1 − h²."),
    (
        "no upstream gradient",
        (22,),
        "W_xh and b_h received the slope 1 − h_t² alone, without ∇h_t L: the "
        "gradient does not even depend on the targets.",
    ),
    ("x_t in place of h_{t-1}", (23,), "∇W_hh L = Σ_t δ_t h_{t−1}ᵀ: W_hh multiplies h_{t−1}, not x_t."),
    (
        "W_hh's gradient as W_xh's",
        (23,),
        "∇W_hh L written with ∇W_xh L's formula, Σ_t (1 − h_t²) x_tᵀ: W_hh multiplies h_{t−1}, not x_t, "
        "and ∇h_t L is missing; the gradient is Σ_t δ_t h_{t−1}ᵀ with δ_t = (1 − h_t²) ⊙ ∇h_t L.",
    ),
    (
        "no upstream gradient in W_hh",
        (23,),
        "∇W_hh L = Σ_t (1 − h_t²) h_{t−1}ᵀ has the slope alone, without ∇h_t L; the gradient is "
        "Σ_t δ_t h_{t−1}ᵀ with δ_t = (1 − h_t²) ⊙ ∇h_t L.",
    ),
    (
        "b_o of the first step",
        (24,),
        "∇b_o L keeps one step's term, not the sum over all steps (an = where += belongs).",
    ),
    (
        "b_o of the last step",
        (24,),
        "∇b_o L keeps one step's term, not the sum over all steps (an = where += belongs).",
    ),
    ("W_hh not transposed", (27,), "going back from δ_t to h_{t−1} multiplies by W_hhᵀ, not W_hh."),
    ("tanh' at the wrong step", (28,), "δ_t = (1 − h_t²) ⊙ ∇h_t L uses the slope of this step's h_t, not h_{t−1}'s."),
    (
        "h0 ignored",
        (),
        "the forward pass starts from zeros instead of the h0 it is given (a window that "
        "continues a text starts from the state the last one ended in).",
    ),
    (
        "the mean loss",
        (),
        "rnn_core's loss is the sum over the T steps (and its gradient the sum's); yours is the mean.",
    ),
    ("every state", (), "h_last is the last state h_T alone, not every state h_1..h_T."),
)

_RNN_SLIP_NAMES = {
    "second pass after delta_o = o": "delta_o = o",
    "b_o of the first step": "b_o without Σ_t",
    "b_o of the last step": "b_o without Σ_t",
}

_LOSS_AND_GRADS_MISTAKES = tuple(
    Mistake(_RNN_SLIP_NAMES.get(slip, slip), why, rows, gives=_bptt_model(slip))
    for slip, rows, why in _BACKWARD_MISTAKES
) + (
    Mistake(
        "b_o summed over the output index",
        "Σ_i (ŷ_t − 𝐲_t)_i is 0 at every step; ∇b_o L = Σ_t (ŷ_t − 𝐲_t) is a vector with one entry per character.",
        rows=(14,),
        test=_b_o_summed_over_outputs,
    ),
)

_STEP_BACKWARD_MISTAKES = tuple(
    Mistake(slip, why, rows, gives=_step_backward_model(slip))
    for slip, rows, why in _BACKWARD_MISTAKES
    if slip
    in (
        "tanh' after W_hhᵀ",
        "W_xh in place of W_hh",
        "sigmoid's derivative",
        "no upstream gradient",
        "x_t in place of h_{t-1}",
        "W_hh not transposed",
        "tanh' at the wrong step",
    )
) + (
    Mistake(
        "no tanh'",
        "going back through h_t = tanh(a_t) multiplies by its slope: δ = dh_t ⊙ (1 − h_t²).",
        gives=_step_backward_model("no tanh'"),
    ),
    Mistake(
        "dW_hh transposed",
        "∇W_hh L is δ_t h_{t−1}ᵀ: row i belongs to unit i of h_t.",
        gives=_step_backward_model("dW_hh transposed"),
    ),
)


# clipping and the global norm ---------------------------------------------------------------------------


def _gradient_dict(scales, seed):
    """Gradients shaped like a V = 5, H = 4 network's, each array scaled to the norm given."""
    rng = np.random.default_rng(seed)
    grads = {}
    for (name, shape), norm in zip(rnn.param_shapes(5, 4).items(), scales):
        g = rng.standard_normal(shape)
        grads[name] = g * (norm / np.linalg.norm(g))
    return grads


def _clip_cases():
    return [
        Case(
            "gradients of global norm 13 (arrays of norms 2 to 8) and max_norm = 5",
            (_gradient_dict([8.0, 2.0, 7.0, 3.0, 6.5], seed=4), 5.0),
        ),
        Case(
            "gradients of global norm 3.6, below max_norm = 5", (_gradient_dict([2.0, 1.0, 2.0, 1.5, 1.0], seed=5), 5.0)
        ),
    ]


def _clip_model(norm_of, scale_each=False, elementwise=False, report=None, always=False):
    def gives(case):
        grads, c = case.args
        if elementwise:
            return {k: np.clip(g, -c, c) for k, g in grads.items()}, optim.global_norm(grads)
        if scale_each:
            return {k: g * min(1.0, c / np.linalg.norm(g)) for k, g in grads.items()}, optim.global_norm(grads)
        norm = norm_of(grads)
        scale = c / norm if (always or norm > c) else 1.0
        return {k: g * scale for k, g in grads.items()}, (report(norm, c) if report else norm)

    return gives


def _sum_of_norms(grads):
    return sum(float(np.linalg.norm(g)) for g in grads.values())


def _sum_of_squares(grads):
    return sum(float(np.sum(g * g)) for g in grads.values())


_CLIP_MISTAKES = (
    Mistake(
        "each array clipped by its own norm",
        "every array rescaled by its own norm turns the gradient; "
        "global-norm clipping scales all of them by one factor, max_norm / (the norm of all together).",
        gives=_clip_model(None, scale_each=True),
    ),
    Mistake(
        "elementwise clipping",
        "every entry clamped to [−max_norm, max_norm]: that is clip_elementwise, which turns the gradient.",
        gives=_clip_model(None, elementwise=True),
    ),
    Mistake(
        "the norm after clipping",
        "the second value is the global norm *before* clipping.",
        gives=_clip_model(optim.global_norm, report=lambda n, c: min(n, c)),
    ),
    Mistake(
        "the sum of the arrays' norms",
        "the global norm is the square root of the sum of the squares of "
        "all entries, not the sum of the arrays' norms.",
        gives=_clip_model(_sum_of_norms),
    ),
    Mistake(
        "no square root",
        "the sum of squares is the squared norm: take its square root.",
        gives=_clip_model(_sum_of_squares),
    ),
    Mistake(
        "rescaled when already short",
        "gradients whose norm is at most max_norm are left as they are.",
        gives=_clip_model(optim.global_norm, always=True),
    ),
)


def _global_norm_cases():
    return [
        Case(
            "gradients shaped like a V = 5, H = 4 network's, of norms 8, 2, 7, 3 and 6.5",
            (_gradient_dict([8.0, 2.0, 7.0, 3.0, 6.5], seed=6),),
        )
    ]


def _one_array_only(got, want, case):
    try:
        norm = float(np.asarray(got["norm"], dtype=np.float64))
    except (TypeError, ValueError):
        return []
    own = [float(np.linalg.norm(g)) for g in case.args[0].values()]
    return ["norm"] if any(math.isclose(norm, n, rel_tol=1e-9) for n in own) else []


_GLOBAL_NORM_MISTAKES = (
    Mistake(
        "the sum of the arrays' norms",
        "the square root comes once, at the end, over the squares of every entry of every array.",
        gives=lambda c: _sum_of_norms(c.args[0]),
    ),
    Mistake(
        "no square root",
        "the sum of squares is the squared norm: take its square root.",
        gives=lambda c: _sum_of_squares(c.args[0]),
    ),
    Mistake(
        "one array only",
        "the norm of one array, not of all of them together (is the total overwritten "
        "in the loop, = where += belongs?).",
        test=_one_array_only,
    ),
    Mistake(
        "the largest entry",
        "the largest |entry| is the max-norm; the global norm is the 2-norm of all entries.",
        gives=lambda c: max(float(np.abs(g).max()) for g in c.args[0].values()),
    ),
)


# Adam --------------------------------------------------------------------------------------------------


def _adam_cases():
    # small weights (about lr): an error in the step shows in the new weights at its own size
    rng = np.random.default_rng(8)
    params = {k: 0.01 * rng.standard_normal(shape) for k, shape in rnn.param_shapes(5, 4).items()}
    g1 = {k: rng.standard_normal(p.shape) for k, p in params.items()}
    g2 = {k: rng.standard_normal(p.shape) * rng.uniform(0.1, 3.0, p.shape) for k, p in params.items()}
    params1, state1 = optim.adam_update(params, g1, optim.adam_init(params), 0.01)
    return [
        Case("the first step (lr = 0.01, from adam_init's state)", (params, g1, optim.adam_init(params), 0.01)),
        Case("the second step, with a different gradient", (params1, g2, state1, 0.01)),
    ]


def _adam_model(bias_correction=True, old_t=False, sign=1.0, sqrt=True, momentum=True, reuse_first=False):
    def gives(case):
        params, grads, state, lr = case.args
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        if reuse_first:  # the second step fed the first step's gradient again
            grads = _adam_cases()[0].args[1]
        t = state["t"] + 1
        tc = t - 1 if old_t else t
        m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
        v = {k: beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2 for k in params}
        new = {}
        for k in params:
            m_hat = m[k] / (1 - beta1**tc) if bias_correction else m[k]
            v_hat = v[k] / (1 - beta2**tc) if bias_correction else v[k]
            if not momentum:
                m_hat = grads[k]
            new[k] = params[k] - sign * lr * m_hat / ((np.sqrt(v_hat) if sqrt else v_hat) + eps)
        return new, {"t": t, "m": m, "v": v}

    return gives


_ADAM_MISTAKES = (
    Mistake(
        "no bias correction",
        "m and v start at 0, so early on they are too small by the factors "
        "1 − β₁ᵗ and 1 − β₂ᵗ: divide by them (m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ)).",
        gives=_adam_model(bias_correction=False),
    ),
    Mistake(
        "bias correction with the old t",
        "increase t first: update number t uses 1 − β₁ᵗ and 1 − β₂ᵗ with the new t (at the first step, t = 1).",
        gives=_adam_model(old_t=True),
    ),
    Mistake(
        "a step up the gradient",
        "the update moves against the gradient: θ − lr · m̂ / (√v̂ + ε).",
        gives=_adam_model(sign=-1.0),
    ),
    Mistake("no square root of v̂", "the denominator is √v̂ + ε.", gives=_adam_model(sqrt=False)),
    Mistake(
        "the gradient in place of m̂",
        "the step uses the running average m̂, not this step's gradient.",
        gives=_adam_model(momentum=False),
    ),
    Mistake(
        "the second step reused the first gradient",
        "the second step's result is what the first step's "
        "gradient gives: does your function read a gradient from outside its arguments (a global)?",
        gives=_adam_model(reuse_first=True),
    ),
)


# the LSTM ---------------------------------------------------------------------------------------------


def _lstm_case_parts():
    V, H = 5, 3
    params = lstm.init_params(V, H, seed=9)
    rng = np.random.default_rng(9)
    params["b"] = params["b"] + 0.3 * rng.standard_normal(4 * H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    h_prev, c_prev = 0.5 * rng.standard_normal(H), rng.standard_normal(H)
    return params, 2, h_prev, c_prev, rng


def _lstm_forward_cases():
    params, x_t, h_prev, c_prev, _ = _lstm_case_parts()
    return [
        Case(
            "one step with H = 3, V = 5, x_t = 2, h_prev ≠ 0, c_prev ≠ 0, non-zero biases",
            (params, x_t, h_prev, c_prev),
        )
    ]


def _lstm_step(params, x_t, h_prev, c_prev, order=(0, 1, 2, 3), squash_g=np.tanh, tanh_c=True, input_gate=True):
    """One LSTM step with the four blocks of a read in ``order`` (the package's: i, f, g, o)."""
    H = h_prev.shape[0]
    a = params["W_x"][:, x_t] + params["W_h"] @ h_prev + params["b"]
    block = [a[k * H : (k + 1) * H] for k in order]
    i, f, g, o = _sigmoid(block[0]), _sigmoid(block[1]), squash_g(block[2]), _sigmoid(block[3])
    c = f * c_prev + (i * g if input_gate else g)
    h = o * (np.tanh(c) if tanh_c else c)
    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "o": o, "c": c}


def _lstm_forward_model(**how):
    return lambda case: _lstm_step(*case.args, **how)


_GATE_ORDER = "the rows of W_x, W_h and b are stacked i, f, g, o (input gate, forget gate, candidate, output gate)."

_LSTM_FORWARD_MISTAKES = tuple(
    Mistake("the gates read from the wrong rows", _GATE_ORDER, gives=_lstm_forward_model(order=order))
    for order in itertools.permutations(range(4))
    if order != (0, 1, 2, 3)
) + (
    Mistake(
        "h_t = o ⊙ c_t",
        "the output gate shows tanh(c_t), not c_t: h_t = o ⊙ tanh(c_t).",
        gives=_lstm_forward_model(tanh_c=False),
    ),
    Mistake(
        "a sigmoid for the candidate",
        "g_t = tanh(...), so that it can write negative values too; i, f and o use the sigmoid.",
        gives=_lstm_forward_model(squash_g=_sigmoid),
    ),
    Mistake(
        "no input gate",
        "c_t = f ⊙ c_{t−1} + i ⊙ g: the candidate passes through the input gate.",
        gives=_lstm_forward_model(input_gate=False),
    ),
)


def _lstm_backward_cases():
    params, x_t, h_prev, c_prev, rng = _lstm_case_parts()
    _, _, cache = lstm.step_forward(params, x_t, h_prev, c_prev)
    H = h_prev.shape[0]
    dh_t, dc_t = rng.standard_normal(H), rng.standard_normal(H)
    return [Case("one step with H = 3, V = 5, x_t = 2, dh_t ≠ 0, dc_t ≠ 0", (params, dh_t, dc_t, cache))]


def _lstm_backward_model(order=(0, 1, 2, 3), h_path="right", do_with_c=False, g_slope="tanh", dc_prev_h_path=True):
    def gives(case):
        params, dh_t, dc_t, cache = case.args
        i, f, g, o, c, c_prev = (cache[k] for k in ("i", "f", "g", "o", "c", "c_prev"))
        tanh_c = np.tanh(c)
        into_cell = {"right": dh_t * o * (1 - tanh_c**2), "missing": 0.0, "no tanh'": dh_t * o}[h_path]
        dc = dc_t + into_cell
        do = dh_t * (c if do_with_c else tanh_c)
        da_g = dc * i * ((1 - g**2) if g_slope == "tanh" else g * (1 - g))
        blocks = [dc * g * i * (1 - i), dc * c_prev * f * (1 - f), da_g, do * o * (1 - o)]
        da = np.concatenate([blocks[order.index(k)] for k in range(4)])
        x = np.eye(params["W_x"].shape[1])[cache["x"]]
        dc_prev = (dc if dc_prev_h_path else dc_t) * f
        return params["W_h"].T @ da, dc_prev, {"W_x": np.outer(da, x), "W_h": np.outer(da, cache["h_prev"]), "b": da}

    return gives


_LSTM_BACKWARD_MISTAKES = (
    Mistake(
        "no path from h_t into the cell",
        "h_t = o ⊙ tanh(c_t) depends on c_t too: the cell receives "
        "dh_t ⊙ o ⊙ (1 − tanh²(c_t)) besides dc_t, before anything goes back through c_t.",
        gives=_lstm_backward_model(h_path="missing"),
    ),
    Mistake(
        "that path without tanh's slope",
        "from h_t into the cell the path goes through tanh(c_t): dh_t ⊙ o ⊙ (1 − tanh²(c_t)).",
        gives=_lstm_backward_model(h_path="no tanh'"),
    ),
    Mistake(
        "dc_prev without the path through h_t",
        "dc_{t−1} = f ⊙ (everything reaching c_t), including what came through h_t.",
        gives=_lstm_backward_model(dc_prev_h_path=False),
    ),
    Mistake(
        "c_t in place of tanh(c_t)",
        "the output gate multiplies tanh(c_t), so its gradient is dh_t ⊙ tanh(c_t).",
        gives=_lstm_backward_model(do_with_c=True),
    ),
    Mistake(
        "the sigmoid's slope for the candidate",
        "g_t = tanh(...), whose slope is 1 − g²; g(1 − g) is a sigmoid's.",
        gives=_lstm_backward_model(g_slope="sigmoid"),
    ),
) + tuple(
    Mistake("the gates' gradients stacked in the wrong order", _GATE_ORDER, gives=_lstm_backward_model(order=order))
    for order in itertools.permutations(range(4))
    if order != (0, 1, 2, 3)
)


# the GRU ----------------------------------------------------------------------------------------------


def _gru_case_parts():
    V, H = 5, 3
    params = gru.init_params(V, H, seed=9)
    rng = np.random.default_rng(9)
    params["b"] = params["b"] + 0.3 * rng.standard_normal(3 * H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    h_prev = 0.8 * rng.standard_normal(H)
    return params, 2, h_prev, rng


def _gru_forward_cases():
    params, x_t, h_prev, _ = _gru_case_parts()
    return [Case("one step with H = 3, V = 5, x_t = 2, h_prev ≠ 0, non-zero biases", (params, x_t, h_prev))]


def _gru_step(params, x_t, h_prev, order=(0, 1, 2), keep="z", reset="after", squash_n=np.tanh):
    """One GRU step with the three blocks read in ``order`` (the package's: r, z, n); ``keep``: the gate
    that keeps the old state ("z", the package's, or "1 - z"); ``reset``: r applied "after" W_hn (the
    package's, r ⊙ (W_hn h)) or "before" it (W_hn (r ⊙ h), Cho et al.'s and d2l's)."""
    H = h_prev.shape[0]
    rows = [slice(k * H, (k + 1) * H) for k in order]
    W_x, W_h, b = (params[name] for name in ("W_x", "W_h", "b"))
    r = _sigmoid(W_x[rows[0], x_t] + W_h[rows[0]] @ h_prev + b[rows[0]])
    z = _sigmoid(W_x[rows[1], x_t] + W_h[rows[1]] @ h_prev + b[rows[1]])
    m = W_h[rows[2]] @ (h_prev if reset == "after" else r * h_prev)
    n = squash_n(W_x[rows[2], x_t] + (r * m if reset == "after" else m) + b[rows[2]])
    h = z * h_prev + (1 - z) * n if keep == "z" else (1 - z) * h_prev + z * n
    return h, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "m": m}


def _gru_forward_model(**how):
    return lambda case: _gru_step(*case.args, **how)


_GRU_ORDER = "the rows of W_x, W_h and b are stacked r, z, n (reset gate, update gate, candidate)."
_Z_KEEPS = (
    "in rnn_core's convention (Cho et al. 2014, PyTorch, d2l) z keeps the old state: "
    "h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n_t; some papers write the same cell with z and 1 − z the other way round."
)
_RESET_AFTER = (
    "rnn_core applies the reset gate after W_hn, as PyTorch does: n_t = tanh(W_xn x_t + r_t ⊙ (W_hn h_{t−1}) + b_n); "
    "Cho et al. and d2l apply it before, W_hn (r_t ⊙ h_{t−1}), which is a different cell."
)

_GRU_FORWARD_MISTAKES = tuple(
    Mistake("the gates read from the wrong rows", _GRU_ORDER, gives=_gru_forward_model(order=order))
    for order in itertools.permutations(range(3))
    if order != (0, 1, 2)
) + (
    Mistake("z and 1 − z swapped", _Z_KEEPS, gives=_gru_forward_model(keep="1 - z")),
    Mistake("the reset gate before W_hn", _RESET_AFTER, gives=_gru_forward_model(reset="before")),
    Mistake(
        "a sigmoid for the candidate",
        "n_t = tanh(...), so that it can write negative values too; r and z use the sigmoid.",
        gives=_gru_forward_model(squash_n=_sigmoid),
    ),
)


def _gru_backward_cases():
    params, x_t, h_prev, rng = _gru_case_parts()
    _, cache = gru.step_forward(params, x_t, h_prev)
    dh_t = rng.standard_normal(h_prev.shape[0])
    return [Case("one step with H = 3, V = 5, x_t = 2, h_prev ≠ 0, dh_t ≠ 0", (params, dh_t, cache))]


def _gru_backward_model(order=(0, 1, 2), keep="z", reset="after", direct=True, n_slope="tanh", dz_sign=1.0):
    def gives(case):
        params, dh_t, cache = case.args
        r, z, n, m, h_prev = (cache[k] for k in ("r", "z", "n", "m", "h_prev"))
        H = h_prev.shape[0]
        W_hn = params["W_h"][2 * H : 3 * H]
        keep_gate = z if keep == "z" else 1 - z
        dn = dh_t * (1 - keep_gate)
        dz = dz_sign * dh_t * (h_prev - n) * (1 if keep == "z" else -1)
        da_n = dn * ((1 - n**2) if n_slope == "tanh" else n * (1 - n))
        if reset == "after":  # n = tanh(W_xn x + r * (W_hn h) + b_n)
            dm, dr, through_n, read = da_n * r, da_n * m, 0.0, h_prev
        else:  # n = tanh(W_xn x + W_hn (r * h) + b_n), the cell of Cho et al. and d2l
            d_rh = W_hn.T @ da_n
            dm, dr, through_n, read = da_n, d_rh * h_prev, d_rh * r, r * h_prev
        blocks_x = [dr * r * (1 - r), dz * z * (1 - z), da_n]
        da_x = np.concatenate([blocks_x[order.index(k)] for k in range(3)])
        da_h = np.concatenate([blocks_x[order.index(k)] if k < 2 else dm for k in range(3)])
        x = np.eye(params["W_x"].shape[1])[cache["x"]]
        dW_h = np.outer(da_h, h_prev)
        if reset == "before":  # the candidate's rows read r * h_{t-1}, and nothing goes through W_hn to h directly
            dW_h[2 * H :] = np.outer(da_n, read)
            dh_prev = params["W_h"][: 2 * H].T @ da_h[: 2 * H] + through_n
        else:
            dh_prev = params["W_h"].T @ da_h
        if direct:
            dh_prev = dh_prev + dh_t * keep_gate
        return dh_prev, {"W_x": np.outer(da_x, x), "W_h": dW_h, "b": da_x}

    return gives


_GRU_BACKWARD_MISTAKES = (
    Mistake(
        "no direct path to h_{t−1}",
        "h_t = z ⊙ h_{t−1} + ... depends on h_{t−1} directly, not only through the gates and the candidate: "
        "dh_{t−1} gets dh_t ⊙ z_t besides what goes back through W_h.",
        gives=_gru_backward_model(direct=False),
    ),
    Mistake("z and 1 − z swapped", _Z_KEEPS, gives=_gru_backward_model(keep="1 - z")),
    Mistake("the reset gate before W_hn", _RESET_AFTER, gives=_gru_backward_model(reset="before")),
    Mistake(
        "the update gate's gradient with its sign flipped",
        "h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n_t, so ∂h_t/∂z_t = h_{t−1} − n_t, not n_t − h_{t−1}.",
        gives=_gru_backward_model(dz_sign=-1.0),
    ),
    Mistake(
        "the sigmoid's slope for the candidate",
        "n_t = tanh(...), whose slope is 1 − n²; n(1 − n) is a sigmoid's.",
        gives=_gru_backward_model(n_slope="sigmoid"),
    ),
) + tuple(
    Mistake("the gates' gradients stacked in the wrong order", _GRU_ORDER, gives=_gru_backward_model(order=order))
    for order in itertools.permutations(range(3))
    if order != (0, 1, 2)
)


# -- the exercises, in reading order --------------------------------------------------------------------

EXERCISE_LIST = (
    Exercise(
        "one_hot",
        "00-start-here.ipynb",
        lambda y, num_classes: functions.one_hot(y, num_classes),
        args=("y", "num_classes"),
        outputs=("one_hot",),
        cases=_one_hot_cases,
        mistakes=_ONE_HOT_MISTAKES,
        hint="Start from zeros with one row per index and num_classes columns, then put a single 1 in each "
        "row, in the column its index names. numpy's indexing can set them all at once (rows "
        "0, 1, 2, ... and the columns y), or a loop over the rows does it.",
    ),
    Exercise(
        "softmax",
        "01-softmax-and-its-derivative.ipynb",
        lambda o: functions.softmax(o),
        args=("o",),
        outputs=("p",),
        cases=_softmax_cases,
        mistakes=_SOFTMAX_MISTAKES,
        hint="Exponentiate every score, then divide by the sum of the exponentials: positive numbers that "
        "sum to 1. Scores near 1000 overflow exp; subtracting the largest score from every score "
        "first changes nothing in the result (the factor cancels) and keeps every exponent at most 0.",
    ),
    Exercise(
        "softmax_jacobian",
        "01-softmax-and-its-derivative.ipynb",
        lambda p: functions.softmax_jacobian(p),
        args=("p",),
        outputs=("J",),
        cases=_jacobian_cases,
        mistakes=_JACOBIAN_MISTAKES,
        hint="Entry (i, k) is ∂p_i/∂o_k. Work out the two cases, i = k and i ≠ k, and write both as one "
        "formula with [i = k] (1 if i = k, else 0): that is a diagonal matrix minus an outer product. The "
        "argument is p, the probabilities, not the scores.",
    ),
    Exercise(
        "cross_entropy_grad",
        "02-cross-entropy.ipynb",
        lambda o, y: functions.cross_entropy_grad(o, y),
        args=("o", "y"),
        outputs=("do",),
        cases=_cross_entropy_cases,
        mistakes=_CROSS_ENTROPY_MISTAKES,
        hint="Go from the loss to the probabilities (∂L/∂ŷ_i), then through softmax's Jacobian to the "
        "scores, and simplify: the probabilities cancel, and what is left is the probabilities minus "
        "the one-hot target. Compute the probabilities stably: the scores may be large.",
    ),
    Exercise(
        "step_forward",
        "03-the-forward-pass.ipynb",
        lambda params, x_t, h_prev: rnn.step_forward(params, x_t, h_prev),
        args=("params", "x_t", "h_prev"),
        outputs=("h",),
        cases=_step_forward_cases,
        mistakes=_STEP_FORWARD_MISTAKES,
        hint="One line: add the recurrent term W_hh h_{t−1}, the input term and the bias b_h, then squash "
        "with tanh. With a one-hot x_t, W_xh x_t is simply column x_t of W_xh.",
    ),
    Exercise(
        "step_backward",
        "04-backpropagation-through-time.ipynb",
        lambda params, dh_t, h_t, h_prev, x_t: rnn.step_backward(params, dh_t, h_t, h_prev, x_t),
        args=("params", "dh_t", "h_t", "h_prev", "x_t"),
        outputs=("dh_prev", "grads"),
        by_key=("grads",),
        cases=_step_backward_cases,
        mistakes=_STEP_BACKWARD_MISTAKES,
        hint="Go back through the tanh first: δ = dh_t ⊙ (1 − h_t²), with the slope of this step's h_t. "
        "Each weight's gradient is then the outer product of δ with what that weight multiplied in "
        "the forward pass (h_{t−1} for W_hh, the one-hot x_t for W_xh); b_h gets δ itself; and what "
        "reaches h_{t−1} goes back through W_hh, transposed.",
    ),
    Exercise(
        "loss_and_grads",
        "04-backpropagation-through-time.ipynb",
        lambda params, inputs, targets, h0: rnn.loss_and_grads(params, inputs, targets, h0, return_dstate0=True),
        args=("params", "inputs", "targets", "h0"),
        outputs=("loss", "grads", "h_last"),
        by_key=("grads",),
        optional=("dh0",),
        cases=_loss_and_grads_cases,
        mistakes=_LOSS_AND_GRADS_MISTAKES,
        hint="Run the forward pass once and keep every state, h_0 included. Then walk t from T down to 1: "
        "∇o_t L = ŷ_t − 𝐲_t; ∇h_t L gets W_yhᵀ ∇o_t L plus what comes back from step t + 1; "
        "δ_t = (1 − h_t²) ⊙ ∇h_t L; each of the five gradients adds this step's share (they are sums "
        "over time), and W_hhᵀ δ_t is what goes on to h_{t−1}. Notebook 04, section 2.",
    ),
    Exercise(
        "clip_global_norm",
        "05-bptt-in-practice.ipynb",
        lambda grads, max_norm: optim.clip_global_norm(grads, max_norm),
        args=("grads", "max_norm"),
        outputs=("grads", "norm"),
        by_key=("grads",),
        cases=_clip_cases,
        mistakes=_CLIP_MISTAKES,
        hint="First one norm for all the gradients together: the square root of the sum of the squares of "
        "every entry of every array. Only if it is larger than max_norm, multiply every array by the "
        "same factor, max_norm / norm. Return new arrays, not the ones you were given changed in "
        "place, and the norm from before clipping.",
    ),
    Exercise(
        "adam_update",
        "06-training-on-pride-and-prejudice.ipynb",
        lambda params, grads, state, lr: optim.adam_update(params, grads, state, lr),
        args=("params", "grads", "state", "lr"),
        outputs=("params", "state"),
        by_key=("params", "state"),
        cases=_adam_cases,
        mistakes=_ADAM_MISTAKES,
        hint="Increase the step count t first. Update both running averages with this step's gradient (m "
        "with g, v with g²), correct their bias by dividing by 1 − β₁ᵗ and 1 − β₂ᵗ, and move every "
        "weight by lr · m̂ / (√v̂ + ε), against the gradient. Return new dicts, with the state in the "
        "same form as it came: t, m and v (defaults β₁ = 0.9, β₂ = 0.999, ε = 1e-8).",
    ),
    Exercise(
        "global_norm",
        "07-what-the-network-learned.ipynb",
        lambda grads: optim.global_norm(grads),
        args=("grads",),
        outputs=("norm",),
        cases=_global_norm_cases,
        mistakes=_GLOBAL_NORM_MISTAKES,
        hint="One number for all the arrays together: add up the squares of every entry of every gradient, "
        "and take one square root at the end.",
    ),
    Exercise(
        "lstm.step_forward",
        "08-gated-cells-lstm.ipynb",
        lambda params, x_t, h_prev, c_prev: lstm.step_forward(params, x_t, h_prev, c_prev),
        args=("params", "x_t", "h_prev", "c_prev"),
        outputs=("h", "c", "cache"),
        cases=_lstm_forward_cases,
        mistakes=_LSTM_FORWARD_MISTAKES,
        hint="All four gates' pre-activations come from one sum, a = W_x x_t + W_h h_{t−1} + b, in blocks of "
        "H rows stacked i, f, g, o. Squash i, f and o with the sigmoid and g with tanh; then "
        "c_t = f ⊙ c_{t−1} + i ⊙ g and h_t = o ⊙ tanh(c_t). The cache is a dict with the keys of "
        "rnn_core.lstm.step_forward's: x, h_prev, c_prev, i, f, g, o and c.",
    ),
    Exercise(
        "lstm.step_backward",
        "08-gated-cells-lstm.ipynb",
        lambda params, dh_t, dc_t, cache: lstm.step_backward(params, dh_t, dc_t, cache),
        args=("params", "dh_t", "dc_t", "cache"),
        outputs=("dh_prev", "dc_prev", "grads"),
        by_key=("grads",),
        cases=_lstm_backward_cases,
        mistakes=_LSTM_BACKWARD_MISTAKES,
        hint="The cell receives gradient from two places: dc_t from step t + 1, and from h_t = o ⊙ tanh(c_t) "
        "through o and tanh's slope. Add both before going back through c_t = f ⊙ c_{t−1} + i ⊙ g. "
        "Then each gate's pre-activation: multiply by its squashing function's slope, and stack the "
        "four blocks in the order i, f, g, o. dh_{t−1} goes back through W_h, transposed.",
    ),
    Exercise(
        "gru.step_forward",
        "09-gated-cells-gru.ipynb",
        lambda params, x_t, h_prev: gru.step_forward(params, x_t, h_prev),
        args=("params", "x_t", "h_prev"),
        outputs=("h", "cache"),
        cases=_gru_forward_cases,
        mistakes=_GRU_FORWARD_MISTAKES,
        hint="The rows of W_x, W_h and b come in three blocks of H, stacked r, z, n. The two gates are "
        "sigmoids of their blocks of W_x x_t + W_h h_{t−1} + b. The candidate is the tanh of its block "
        "of W_x x_t + b plus r ⊙ m, where m is the candidate's block of W_h times h_{t−1}: the reset gate "
        "scales m after the product. Then h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n: z keeps the old state. The "
        "cache is a dict with the keys of rnn_core.gru.step_forward's: x, h_prev, r, z, n and m.",
    ),
    Exercise(
        "gru.step_backward",
        "09-gated-cells-gru.ipynb",
        lambda params, dh_t, cache: gru.step_backward(params, dh_t, cache),
        args=("params", "dh_t", "cache"),
        outputs=("dh_prev", "grads"),
        by_key=("grads",),
        cases=_gru_backward_cases,
        mistakes=_GRU_BACKWARD_MISTAKES,
        hint="Start from h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n: it sends dh_t ⊙ (1 − z) to n, dh_t ⊙ (h_{t−1} − n) "
        "to z, and dh_t ⊙ z straight to h_{t−1}. Back through the candidate's tanh; then r ⊙ m splits "
        "into a part for m (times r) and a part for r (times m). Multiply each gate by its sigmoid's "
        "slope. W_x and b receive the blocks r, z and the candidate's pre-activation; W_h receives r, z "
        "and m's part; dh_{t−1} is the direct part plus W_h, transposed, times those three blocks.",
    ),
)
