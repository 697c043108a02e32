"""The mistakes of each exercise are named: by their errata rows, the slips notebook 05 writes, published code.

For every exercise, wrong variants of a plain implementation (tests/practice_answers.py), written
as a reader would write them, are "wrong" in exactly the outputs they spoil and named by the
mistake they repeat. The mistakes of notebook 05's errata, which the notebook writes as one-line
slips of a backward pass, are taken from the notebook itself (the cells tagged ``errata-slips``) and
must each be recognised by their row; so must the char-RNN README's backward pass that notebook 10
asks the reader to repair, at each stage of the repair. The learner's five slips of issue 27 are
here too, and the mistakes the notebooks' prose promises (``<!-- practice:mistake ... -->``).
"""

import ast
import builtins
import contextlib
import io
import linecache
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from practice_answers import (
    EXERCISE,
    assert_wrong,
    check,
    model_answer,
    plain_adam_update,
    plain_clip_global_norm,
    plain_global_norm,
    plain_gru_step_backward,
    plain_gru_step_forward,
    plain_loss_and_grads,
    plain_lstm_step_backward,
    plain_lstm_step_forward,
    plain_one_hot,
    plain_softmax,
    plain_softmax_jacobian,
    plain_step_backward,
    plain_step_forward,
)

import rnn_core
from rnn_core import practice
from rnn_core.course import solutions as practice_solutions

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def test_the_second_adam_step_uses_a_different_gradient():
    # with the same gradient at every step, m-hat = g and v-hat = g^2 exactly: Adam without momentum
    # would pass a check that fed it one gradient twice
    def no_momentum(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        new, state = plain_adam_update(params, grads, state, lr, beta1, beta2, eps)
        t = state["t"]
        new = {k: params[k] - lr * grads[k] / (np.sqrt(state["v"][k] / (1 - beta2**t)) + eps) for k in params}
        return new, state

    result = assert_wrong("adam_update", no_momentum, list(rnn_core.PARAM_NAMES), mistake="the gradient in place of m̂")
    assert "the second step, with another gradient" in result.message

    first = {}

    def remembers_the_first_gradient(params, grads, state, lr):
        first.setdefault("grads", grads)  # reads a gradient from outside its arguments
        return plain_adam_update(params, first["grads"], state, lr)

    result = assert_wrong(
        "adam_update",
        remembers_the_first_gradient,
        list(rnn_core.PARAM_NAMES) + ["m", "v"],
        mistake="the first gradient used again",
    )


def test_clipping_is_checked_below_and_above_the_threshold():
    def always(grads, max_norm):  # right whenever the norm is too large, and only then
        norm = plain_global_norm(grads)
        return {k: g * (max_norm / norm) for k, g in grads.items()}, norm

    result = assert_wrong("clip_global_norm", always, list(rnn_core.PARAM_NAMES), mistake="rescaled when already short")
    assert "below max_norm" in result.message


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
    assert_wrong("softmax", lambda o: -plain_softmax(o), ["y_hat"], rows=(11,), mistake="−softmax")
    assert_wrong("softmax", lambda o: np.exp(o - o.max()), ["y_hat"], mistake="exp without the sum")
    result = assert_wrong(
        "softmax", lambda o: np.exp(o) / np.exp(o).sum(), ["y_hat"], mistake="no shift by the largest score"
    )
    assert "on large scores" in result.message and "nan where the answer is a number" in result.message
    assert_wrong("softmax", lambda o: np.log(plain_softmax(o)), ["y_hat"], mistake="log-probabilities")
    assert "RuntimeWarning" not in result.message


def test_softmax_jacobian_mistakes():
    assert_wrong(
        "softmax_jacobian", lambda p: -np.outer(p, p), ["J"], rows=(3,), mistake="−ŷŷᵀ as the softmax Jacobian"
    )
    assert_wrong("softmax_jacobian", lambda p: np.diag(p) + np.outer(p, p), ["J"], mistake="diag(ŷ) + ŷŷᵀ")
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

    result, _ = check("step_forward", row_of_W_xh)  # (H,) + (V,): numpy refuses, at the reader's line
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
        ("W_xh", ["dh_prev"], (17,)),  # (V,) where (H,) belongs: the mistake gives that very shape
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
        assert re.search(r"shape \((\d, )?\d,?\), expected \((\d, )?\d,?\)", result.message), result.message


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
    assert re.search(r"shape \(\d, \d\), expected \(\d,\)", result.message)

    def minus_loss(params, inputs, targets, h0):
        loss, grads, h_last = plain_loss_and_grads(params, inputs, targets, h0)
        return -loss, grads, h_last

    result = assert_wrong("loss_and_grads", minus_loss, ["loss"], rows=(10,), mistake="the loss without its minus")
    assert "gradient" not in result.message.split('"the loss without its minus": ')[1]  # its gradients are right

    def walk_back_from_0_indexed_range(params, inputs, targets, h0):  # range(T - 1, 0, -1): never index 0
        T = len(inputs)
        hs, ps, loss = [h0], [], 0.0
        for t in range(T):
            hs.append(plain_step_forward(params, inputs[t], hs[-1]))
            ps.append(plain_softmax(params["W_yh"] @ hs[-1] + params["b_o"]))
            loss -= np.log(ps[t][targets[t]])
        grads = {name: np.zeros_like(params[name]) for name in rnn_core.PARAM_NAMES}
        dh_next = np.zeros_like(h0)
        for t in range(T - 1, 0, -1):
            do = ps[t] - np.eye(len(ps[t]))[targets[t]]
            grads["W_yh"] += np.outer(do, hs[t + 1])
            grads["b_o"] += do
            dh_next, step = plain_step_backward(params, params["W_yh"].T @ do + dh_next, hs[t + 1], hs[t], inputs[t])
            for name, g in step.items():
                grads[name] += g
        return loss, grads, hs[-1]

    assert_wrong(
        "loss_and_grads",
        walk_back_from_0_indexed_range,
        ["W_xh", "W_hh", "W_yh", "b_h", "b_o"],
        mistake="the walk back stops before step 1",
    )

    def two_mistakes(params, inputs, targets, h0):  # b_o of one step, and truncation at k = 0
        loss, grads, h_last = truncated_bptt(params, inputs, targets, h0, 0)
        y_hat = rnn_core.forward(params, inputs, h0)["y_hat"]
        return loss, {**grads, "b_o": y_hat[-1] - np.eye(len(grads["b_o"]))[targets[-1]]}, h_last

    result = assert_wrong("loss_and_grads", two_mistakes, ["W_xh", "W_hh", "b_h", "b_o"], rows=(5, 24))
    assert "W_xh, W_hh and b_h: errata row 5" in result.message and "b_o: errata row 24" in result.message


def truncated_bptt(params, inputs, targets, h0, k):
    """Truncated BPTT, plainly: the loss at step t sends gradient back through steps t, t-1, ..., t-k only."""
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in rnn_core.PARAM_NAMES)
    V, T = W_yh.shape[0], len(inputs)
    hs = [h0]
    for x_t in inputs:
        hs.append(np.tanh(W_hh @ hs[-1] + W_xh[:, x_t] + b_h))
    y_hat = [plain_softmax(W_yh @ h + b_o) for h in hs[1:]]
    loss = -sum(np.log(y_hat[t][targets[t]]) for t in range(T))
    grads = {name: np.zeros_like(params[name]) for name in rnn_core.PARAM_NAMES}
    for t in range(1, T + 1):
        do = y_hat[t - 1] - np.eye(V)[targets[t - 1]]
        grads["W_yh"] += np.outer(do, hs[t])
        grads["b_o"] += do
        dh = W_yh.T @ do
        for s in range(t, max(t - k, 1) - 1, -1):  # from the loss at t back to step t - k
            da = (1 - hs[s] ** 2) * dh
            grads["W_hh"] += np.outer(da, hs[s - 1])
            grads["W_xh"][:, inputs[s - 1]] += da
            grads["b_h"] += da
            dh = W_hh.T @ da
    return loss, grads, hs[T]


def test_truncated_bptt_at_k_0_and_1_are_rows_5_and_4():
    for k, row in ((0, 5), (1, 4)):

        def truncated(params, inputs, targets, h0, k=k):
            return truncated_bptt(params, inputs, targets, h0, k)

        assert_wrong("loss_and_grads", truncated, ["W_xh", "W_hh", "b_h"], rows=(row,))
    assert check("loss_and_grads", lambda *args: truncated_bptt(*args, 250))[0].status == "passed"  # beyond every case


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

    result = assert_wrong("adam_update", t_stays, ["t"], mistake="the step count not advanced")
    assert "t: 0, expected 1" in result.message


def test_lstm_step_forward_mistakes():
    def order_ifqg(params, x_t, h_prev, c_prev):  # the rows read as i, f, q, g
        H = len(h_prev)
        swap = np.r_[0 : 2 * H, 3 * H : 4 * H, 2 * H : 3 * H]
        return plain_lstm_step_forward(
            {**params, "W_x": params["W_x"][swap], "W_h": params["W_h"][swap], "b": params["b"][swap]},
            x_t,
            h_prev,
            c_prev,
        )

    assert_wrong("lstm.step_forward", order_ifqg, ["h", "c", "cache"], mistake="the gates read from the wrong rows")

    def no_tanh(params, x_t, h_prev, c_prev):
        h, c, cache = plain_lstm_step_forward(params, x_t, h_prev, c_prev)
        return cache["q"] * c, c, cache

    assert_wrong("lstm.step_forward", no_tanh, ["h"], mistake="h_t = q ⊙ c_t")

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

    def dc_prev_without_f(params, dh_t, dc_t, cache):
        dh_prev, dc_prev, grads = plain_lstm_step_backward(params, dh_t, dc_t, cache)
        return dh_prev, dc_prev / cache["f"], grads

    assert_wrong("lstm.step_backward", dc_prev_without_f, ["dc_prev"], mistake="dc_prev without the forget gate")

    def gates_in_another_order(params, dh_t, dc_t, cache):
        dh_prev, dc_prev, grads = plain_lstm_step_backward(params, dh_t, dc_t, cache)
        H = len(dh_t)
        order = np.r_[H : 2 * H, 0:H, 2 * H : 4 * H]  # f, i, g, q
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
        h_bar = params["W_h"][2 * H :] @ (r * h_prev)
        n = np.tanh(params["W_x"][2 * H :, x_t] + h_bar + params["b"][2 * H :])
        return z * h_prev + (1 - z) * n, {**cache, "n": n, "h_bar": h_bar}

    result = assert_wrong("gru.step_forward", reset_before, ["h", "cache"], mistake="the reset gate before W_hn")
    assert "Cho et al." in result.message

    def order_zrn(params, x_t, h_prev):  # the rows read as z, r, n
        H = len(h_prev)
        swap = np.r_[H : 2 * H, 0:H, 2 * H : 3 * H]
        return plain_gru_step_forward(
            {**params, "W_x": params["W_x"][swap], "W_h": params["W_h"][swap], "b": params["b"][swap]}, x_t, h_prev
        )

    assert_wrong("gru.step_forward", order_zrn, ["h", "cache"], mistake="the gates read from the wrong rows")

    def no_h_bar(params, x_t, h_prev):
        h, cache = plain_gru_step_forward(params, x_t, h_prev)
        return h, {k: v for k, v in cache.items() if k != "h_bar"}

    result = assert_wrong("gru.step_forward", no_h_bar, ["cache"])
    assert "cache: no key 'h_bar'" in result.message


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
        da_z = grads["b"][H : 2 * H].copy()
        for name in ("W_x", "W_h", "b"):
            grads[name][H : 2 * H] *= -1
        return dh_prev - 2 * params["W_h"][H : 2 * H].T @ da_z, grads

    assert_wrong(
        "gru.step_backward",
        sign_of_dz,
        ["dh_prev", "W_x", "W_h", "b"],
        mistake="the update gate's gradient with its sign flipped",
    )


def test_dropout_backward_mistakes():
    def plain(d_out, keep, rate):
        return np.where(keep, d_out / (1.0 - rate), 0.0)

    assert_wrong("dropout_backward", lambda d, keep, rate: d * keep, ["dh"], mistake="no rescaling")
    assert_wrong("dropout_backward", lambda d, keep, rate: d * keep * (1 - rate), ["dh"], mistake="times 1 − rate")
    assert_wrong("dropout_backward", lambda d, keep, rate: d * keep / rate, ["dh"], mistake="divided by the rate")
    assert_wrong(
        "dropout_backward", lambda d, keep, rate: plain(d, ~keep, rate), ["dh"], mistake="the mask turned around"
    )
    assert_wrong("dropout_backward", lambda d, keep, rate: d / (1 - rate), ["dh"], mistake="no mask")
    result = assert_wrong("dropout_backward", lambda d, keep, rate: d.copy(), ["dh"])  # neither mask nor scale
    assert '"no rescaling"' in result.message and '"no mask"' in result.message


def test_attention_forward_mistakes_the_masks_of_tensorflow_and_tensorflow_addons():
    def weights(h, u, mask):  # the scores, masked or not, through a shifted softmax
        scores = np.einsum("bh,bsh->bs", h, u)
        return np.where(mask, scores, -np.inf)

    def softmax_rows(z):
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def read(alpha, u):
        return alpha, np.einsum("bs,bsh->bh", alpha, u)

    def no_mask(h, u, mask):  # tensorflow/tensorflow issue 512
        return read(softmax_rows(weights(h, u, np.ones_like(mask))), u)

    def addons(h, u, mask):  # tensorflow/addons pull request 133
        u = u * mask[..., None]
        return read(softmax_rows(weights(h, u, np.ones_like(mask))), u)

    def zero_score(h, u, mask):
        return read(softmax_rows(np.einsum("bh,bsh->bs", h, u) * mask), u)

    def after(h, u, mask):
        return read(softmax_rows(weights(h, u, np.ones_like(mask))) * mask, u)

    both = ["alpha", "context"]
    assert_wrong("attention_forward", no_mask, both, rows=(32,), mistake="softmax over the padded positions too")
    assert_wrong(
        "attention_forward", addons, both, rows=(33,), mistake="the memory zeroed at the pads, the scores left unmasked"
    )
    assert_wrong("attention_forward", zero_score, both, mistake="the pads given a score of 0")
    assert_wrong("attention_forward", after, both, mistake="the mask applied after the softmax")

    def no_shift(h, u, mask):
        e = np.exp(weights(h, u, mask))
        return read(e / e.sum(axis=1, keepdims=True), u)

    with np.errstate(all="ignore"):
        assert_wrong("attention_forward", no_shift, both)


def test_attention_backward_mistakes():
    def back(dscores_of, du_of):
        def answer(dcontext, h, u, alpha):
            dalpha = np.einsum("bsh,bh->bs", u, dcontext)
            dscores = dscores_of(alpha, dalpha)
            return np.einsum("bs,bsh->bh", dscores, u), du_of(alpha, dcontext, dscores, h)

        return answer

    def right(alpha, dalpha):
        return alpha * (dalpha - (alpha * dalpha).sum(axis=1, keepdims=True))

    def context(alpha, dc, dscores, h):
        return alpha[..., None] * dc[:, None, :]

    def scores(alpha, dc, dscores, h):
        return dscores[..., None] * h[:, None, :]

    def both(alpha, dc, dscores, h):
        return context(alpha, dc, dscores, h) + scores(alpha, dc, dscores, h)

    assert_wrong(
        "attention_backward",
        back(lambda a, d: a * d, both),
        ["dh", "du"],
        mistake=("the softmax's Jacobian without its outer product"),
    )
    assert_wrong(
        "attention_backward", back(lambda a, d: d, both), ["dh", "du"], mistake=("no step back through the softmax")
    )
    assert_wrong(
        "attention_backward", back(right, context), ["du"], mistake=("the memory's gradient through the context only")
    )
    assert_wrong(
        "attention_backward", back(right, scores), ["du"], mistake=("the memory's gradient through the scores only")
    )


@pytest.mark.parametrize("redraw", [lambda d, rate: np.random.default_rng(7).random(d.shape) >= rate, np.roll])
def test_a_gradient_masked_with_another_mask_is_wrong_and_told_which_units_it_reaches(redraw):
    def other_mask(d_out, keep, rate):  # a mask drawn again, or another unit's (the forward pass's, shifted)
        mask = redraw(d_out, rate) if redraw is not np.roll else np.roll(keep, 1)
        return np.where(mask, d_out / (1.0 - rate), 0.0)

    result = assert_wrong("dropout_backward", other_mask, ["dh"])
    assert "units the forward pass dropped" in result.message and "a mask other than the forward pass's own" in (
        result.message
    ), result.message
    assert result.errata == ()


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
    """(notebook name, source) of the code cells tagged ``tag`` in notebooks/NN-*.ipynb, all in one
    notebook: their sources in order, joined (05 writes its slips and backward pass in a few short cells)."""
    found = {}
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if tag in cell.metadata.get("tags", []):
                found.setdefault(path.name, []).append(cell.source)
    assert len(found) == 1, f"expected the cells tagged {tag!r} in one notebook of notebooks/, found {sorted(found)}"
    ((notebook, sources),) = found.items()
    return notebook, "\n\n\n".join(sources)


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
        loss = -np.sum(np.log(out["y_hat"][np.arange(len(targets)), targets]))
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
            assert "could not be broadcast" in result.message
            assert re.search(r"square network \(H = V = \d\)", result.message), result.message
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
            "W_xh": np.outer(dh_t, np.eye(params["W_xh"].shape[1])[x_t]),
            "W_hh": np.outer(dh_t, h_prev),
            "b_h": dh_t,
        }

    result = assert_wrong("step_backward", both, ["dh_prev"], rows=(27, 7))
    assert "and your function changed dh_t in place" in result.message


def tagged_slips_rows():
    _, source = tagged_cell("errata-slips")
    (value,) = [
        node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["SLIPS"]
    ]
    return ast.literal_eval(value).values()


def test_every_row_the_notebooks_slips_name_is_recognised():
    slips = {row for rows in tagged_slips_rows() for row in rows}
    assert slips <= set(practice.ERRATA_ROWS)


# -- the learner's five slips (issue 27) ------------------------------------------------------------------


def test_h_t_for_h_prev_in_the_gradient_of_W_hh_is_named():
    def step_backward(params, dh_t, h_t, h_prev, x_t):
        da = (1 - h_t**2) * dh_t
        dW_xh = np.zeros_like(params["W_xh"])
        dW_xh[:, x_t] = da
        return params["W_hh"].T @ da, {"W_xh": dW_xh, "W_hh": np.outer(da, h_t), "b_h": da}  # h_t, not h_{t-1}

    assert_wrong("step_backward", step_backward, ["W_hh"], mistake="h_t in place of h_{t-1}")

    def loss_and_grads(params, inputs, targets, h0):
        return bptt(params, inputs, targets, h0, W_hh_reads=lambda hs, t: hs[t])

    assert_wrong("loss_and_grads", loss_and_grads, ["W_hh"], mistake="h_t in place of h_{t-1}")


@pytest.mark.parametrize("name", list(rnn_core.PARAM_NAMES))
def test_equals_for_plus_equals_in_any_accumulated_gradient_is_named(name):
    def loss_and_grads(params, inputs, targets, h0):
        return bptt(params, inputs, targets, h0, assigned=name)

    label = "b_o without Σ_t" if name == "b_o" else f"∇{name} L without Σ_t"
    assert_wrong("loss_and_grads", loss_and_grads, [name], rows=(24,) if name == "b_o" else (), mistake=label)


def test_y_at_y_transposed_on_a_1d_array_is_named():
    def softmax_jacobian(y_hat):
        return np.diag(y_hat) - y_hat @ y_hat.T  # .T of a 1-D array changes nothing: a number

    assert_wrong("softmax_jacobian", softmax_jacobian, ["J"], mistake="y_hat @ y_hat.T on a 1-D array")


def test_rows_colon_y_in_one_hot_is_named():
    def one_hot(y, num_classes):
        rows = np.zeros((len(y), num_classes))
        rows[:, y] = 1
        return rows

    assert_wrong("one_hot", one_hot, ["one_hot"], mistake="rows[:, y] = 1")


def test_the_grus_delta_n_where_the_gradient_of_h_bar_belongs_is_named():
    def gru_step_backward(params, dh_t, cache):
        r, z, n, h_bar, h_prev = (cache[k] for k in ("r", "z", "n", "h_bar", "h_prev"))
        delta_n = dh_t * (1 - z) * (1 - n**2)
        delta_r = delta_n * h_bar * r * (1 - r)
        delta_z = dh_t * (h_prev - n) * z * (1 - z)
        delta = np.concatenate([delta_r, delta_z, delta_n])
        dW_x = np.zeros_like(params["W_x"])
        dW_x[:, cache["x"]] = delta
        grads = {"W_x": dW_x, "W_h": np.outer(delta, h_prev), "b": delta}  # δ⁽ⁿ⁾ where ∇m = δ⁽ⁿ⁾ r belongs
        return z * dh_t + params["W_h"].T @ delta, grads

    assert_wrong("gru.step_backward", gru_step_backward, ["dh_prev", "W_h"], mistake="δ⁽ⁿ⁾ where ∇h̄ belongs")


def bptt(params, inputs, targets, h0, W_hh_reads=lambda hs, t: hs[t - 1], assigned=None):
    """Notebook 04's loop, with h_{t-1} in ∇W_hh read by ``W_hh_reads`` and an `=` where `+=` belongs in the
    gradient ``assigned``."""
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in rnn_core.PARAM_NAMES)
    V, T = W_yh.shape[0], len(inputs)
    out = rnn_core.forward(params, inputs, h0)
    y_hat, hs = out["y_hat"], np.vstack([h0, out["h"]])
    loss = -np.log(y_hat[np.arange(T), targets]).sum()
    grads = {name: np.zeros_like(params[name]) for name in rnn_core.PARAM_NAMES}
    da_next = np.zeros_like(h0)
    for t in range(T, 0, -1):
        do = y_hat[t - 1] - np.eye(V)[targets[t - 1]]
        da = (1 - hs[t] ** 2) * (W_yh.T @ do + W_hh.T @ da_next)
        dW_xh = np.zeros_like(W_xh)
        dW_xh[:, inputs[t - 1]] = da
        terms = {
            "W_xh": dW_xh,
            "W_hh": np.outer(da, W_hh_reads(hs, t)),
            "W_yh": np.outer(do, hs[t]),
            "b_h": da,
            "b_o": do,
        }
        for name, term in terms.items():
            grads[name] = term.copy() if name == assigned else grads[name] + term
        da_next = da
    return loss, grads, hs[T]


# -- every mistake the notebooks promise is named --------------------------------------------------------

# A sentence of a notebook's prose that says the check names, recognises or knows a mistake.
PROMISE = re.compile(
    r"(`practice\.check`|\bthe checker?)[^.]{0,60}?\b(recogni[sz]es|names?|knows)\b|each named by the check"
    r"|the slips the check knows",
    re.IGNORECASE,
)
MARKER = practice_solutions.MARKER  # <!-- practice:mistake NAME/ID -->, which may run over two lines
# Cells whose promise is about the check in general, not a mistake of its own, and why.
GENERAL = {
    ("00-start-here.ipynb", "nb00-use"): "how the exercises work: names outputs, and errata rows in general",
    ("04-backpropagation-through-time.ipynb", "a69851d3"): "the summary: names the published mistake it repeats",
    ("04-backpropagation-through-time.ipynb", "exercise-step-backward-task"): "the task: its answer lists them",
    ("04-backpropagation-through-time.ipynb", "exercise-loss-and-grads-task"): "the task: its answer lists them",
    ("06-training-on-pride-and-prejudice.ipynb", "adam-exercise"): "the task: its answer lists them",
    ("09-gated-cells-gru.ipynb", "nb09-ex-fwd"): "the task: its answer lists them",
    ("13-appendix-errata.ipynb", "nb10-opening"): "what the appendix teaches; the repair's answer lists the rows",
    ("13-appendix-errata.ipynb", "nb10-named"): "every recognised row: practice.ERRATA_ROWS, asserted by nb10-count",
    ("13-appendix-errata.ipynb", "nb10-summary"): "the same, in the summary",
}


def markdown_cells():
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                yield path.name, cell.get("id"), cell.source


def test_every_mistake_the_notebooks_promise_is_named():
    promised = [(nb, cell_id, name, id) for nb, cell_id, text in markdown_cells() for name, id in MARKER.findall(text)]
    assert len(promised) > 50
    for notebook, cell_id, name, id in promised:
        assert name in practice.EXERCISES, (notebook, cell_id, name)
        found = [m for m in EXERCISE[name].mistakes if m.id == id]
        assert found, f"{notebook}, cell {cell_id}: no mistake {id!r} of {name}"
        result, _ = check(name, model_answer(name, found[0]))
        assert f'"{found[0].name}"' in result.message, (notebook, cell_id, result.message)


def test_every_promise_in_the_notebooks_prose_points_at_its_mistakes():
    """A sentence saying the check names a mistake sits in a cell with markers; general ones are listed above."""
    unmarked = []
    for notebook, cell_id, text in markdown_cells():
        if PROMISE.search(text) and not MARKER.search(text) and (notebook, cell_id) not in GENERAL:
            unmarked.append((notebook, cell_id, PROMISE.search(text).group(0)))
    assert not unmarked, f"promises without <!-- practice:mistake NAME/ID --> markers: {unmarked}"
    cells = {(nb, cell_id) for nb, cell_id, _ in markdown_cells()}
    assert set(GENERAL) <= cells, set(GENERAL) - cells
    # notebook 04 says "the check recognises each of these" about loss_and_grads' slips
    (answer,) = [t for nb, i, t in markdown_cells() if i == "answer-loss-and-grads"]
    assert "The check recognises each of these" in answer and len(MARKER.findall(answer)) >= 8


# -- an adversarial pass: wrong answers no mistake model covers are wrong, and named by no errata row -----------


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


UNRECOGNISED = {
    "softmax, clipped scores": ("softmax", lambda o: plain_softmax(np.clip(o, -500, 500))),
    "softmax, shifted by the largest |score|": ("softmax", lambda o: plain_softmax(o) * 0 + _shift_abs(o)),
    "softmax in float16": ("softmax", lambda o: plain_softmax(o).astype(np.float16)),
    "softmax at temperature 2": ("softmax", lambda o: plain_softmax(o / 2)),
    "softmax sorted": ("softmax", lambda o: np.sort(plain_softmax(o))),
    "Jacobian with diag(ŷ²)": ("softmax_jacobian", lambda p: np.outer(p, p) - np.diag(p**2)),
    "Jacobian with its columns reversed": ("softmax_jacobian", lambda p: plain_softmax_jacobian(p)[:, ::-1]),
    "gradient of the next target": (
        "cross_entropy_grad",
        lambda o, y: plain_softmax(o) - np.eye(len(o))[(y + 1) % len(o)],
    ),
    "gradient of the mean": ("cross_entropy_grad", lambda o, y: (plain_softmax(o) - np.eye(len(o))[y]) / len(o)),
    "bias outside the tanh": ("step_forward", lambda p, x, h: np.tanh(p["W_hh"] @ h + p["W_xh"][:, x]) + p["b_h"]),
    "ReLU for tanh": ("step_forward", lambda p, x, h: np.maximum(0, p["W_hh"] @ h + p["W_xh"][:, x] + p["b_h"])),
    "(1 - h)² for 1 - h²": (
        "step_backward",
        lambda p, dh, h, hp, x: plain_step_backward(p, dh * (1 - h) ** 2 / (1 - h**2), h, hp, x),
    ),
    "h_last = h0": ("loss_and_grads", lambda p, i, t, h0: (*plain_loss_and_grads(p, i, t, h0)[:2], h0)),
    "the clipping threshold as the norm": ("clip_global_norm", lambda g, c: (plain_clip_global_norm(g, c)[0], c)),
    "divided by the norm when above 1": (
        "clip_global_norm",
        lambda g, c: ({k: v / max(1, plain_global_norm(g)) for k, v in g.items()}, plain_global_norm(g)),
    ),
    "ε inside the square root": ("adam_update", lambda p, g, s, lr: _adam_eps_inside(p, g, s, lr)),
    "β₁ and β₂ swapped": ("adam_update", lambda p, g, s, lr: plain_adam_update(p, g, s, lr, 0.999, 0.9)),
    "the squares of the arrays' sums": (
        "global_norm",
        lambda g: float(np.sqrt(sum(np.sum(v) ** 2 for v in g.values()))),
    ),
    "the first array only": ("global_norm", lambda g: float(np.linalg.norm(list(g.values())[0]))),
    "dh_prev off by 1e-4": (
        "lstm.step_backward",
        lambda *a: (plain_lstm_step_backward(*a)[0] * 1.0001, *plain_lstm_step_backward(*a)[1:]),
    ),
    "the GRU without its reset gate": ("gru.step_forward", lambda p, x, h: _gru_without_reset(p, x, h)),
}


def _shift_abs(o):
    e = np.exp(o - np.max(np.abs(o)))  # overflows nowhere, underflows to 0/0 when every score is near -1000
    return e / e.sum()


def _adam_eps_inside(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
    v = {k: beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2 for k in params}
    new = {k: params[k] - lr * (m[k] / (1 - beta1**t)) / np.sqrt(v[k] / (1 - beta2**t) + eps) for k in params}
    return new, {"t": t, "m": m, "v": v}


def _gru_without_reset(params, x_t, h_prev):
    h, cache = plain_gru_step_forward(params, x_t, h_prev)
    H = len(h_prev)
    n = np.tanh(params["W_x"][2 * H :, x_t] + cache["h_bar"] + params["b"][2 * H :])
    return cache["z"] * h_prev + (1 - cache["z"]) * n, {**cache, "n": n}


@pytest.mark.parametrize("label", list(UNRECOGNISED))
def test_a_wrong_answer_no_mistake_covers_is_wrong_and_names_no_errata_row(label):
    name, fn = UNRECOGNISED[label]
    result, _ = check(name, fn)
    assert result.status in ("wrong", "error") and result.errata == (), (label, result.message)


def test_a_miss_against_an_answer_of_zeros_is_said_in_its_own_units():
    """The beam step's first case has one prefix, so the right rows are all 0: a miss is given as a number."""
    (split,) = [m for m in EXERCISE["seq2seq.beam_step"].mistakes if m.name == "the flat index split by R"]
    result, _ = check("seq2seq.beam_step", model_answer("seq2seq.beam_step", split))
    assert "rows: off by up to 5, where the answer is all 0" in result.message  # not "5e+300 × its largest entry"
    assert '"the flat index split by R"' in result.message


def test_the_pads_labelled_pad_are_named_as_a_loss_over_the_pads():
    """The form notebook 11 writes as route (b), PAD at the pads and every position counted, is named."""

    def pads_labelled_pad(o, y, lengths):
        B, T, V = o.shape
        labels = np.where(np.arange(T) < np.asarray(lengths)[:, None], y, 0)
        shifted = o - o.max(axis=-1, keepdims=True)
        log_y_hat = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        ell = -np.take_along_axis(log_y_hat, labels[..., None], axis=-1)[..., 0]
        return ell.mean(), (np.exp(log_y_hat) - np.eye(V)[labels]) / (B * T)

    result, _ = check("seq2seq.masked_loss_and_grad", pads_labelled_pad)
    assert result.status == "wrong" and '"a loss over the pads too"' in result.message


def test_a_one_hot_built_column_by_column_is_named():
    """np.zeros((num_classes, len(y))) with a 1 in each column: a newcomer's transposed one_hot, named."""

    def one_hot_columns(y, num_classes):
        y = np.atleast_1d(np.asarray(y))
        out = np.zeros((num_classes, y.size))
        out[y, np.arange(y.size)] = 1
        return out

    result, _ = check("one_hot", one_hot_columns)
    assert result.status == "wrong" and '"one column per index"' in result.message
