"""Answers for the tests of rnn_core.practice: plain implementations, wrong ones made from mistake models.

Shared by tests/test_practice*.py. The plain implementations are written here, independently of
rnn_core and of its reference solutions, and call none of rnn_core's functions (the checker would
call that delegation).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import io
import re

import numpy as np

import rnn_core
from rnn_core import practice
from rnn_core.course import check as _practice_check
from rnn_core.course.exercises import public_seed_rng
from rnn_core.course.solutions import SOLUTIONS

EXERCISE = _practice_check._BY_NAME  # name -> Exercise


def quietly(fn, *args, **kwargs):
    """fn(*args, **kwargs) with its printing captured: (its value, the printed text)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = fn(*args, **kwargs)
    return value, printed.getvalue()


def check(name, fn, **kwargs):
    """practice.check with its printed message captured: (result, printed text)."""
    return quietly(practice.check, name, fn, **kwargs)


def use_my_rnn_file(path, monkeypatch):
    """$RNN_CORE_MY_RNN set to ``path``, the reader's file that practice reads and writes (its folder
    made, the file not); returns path."""
    path.parent.mkdir()
    monkeypatch.setenv(practice.MY_RNN_ENV, str(path))
    return path


def assert_wrong(name, fn, wrong, rows=(), mistake=None):
    """Check that ``fn`` is wrong in exactly the outputs ``wrong``, repeats errata ``rows`` and, if given, is
    named ``mistake``."""
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
    assert printed == practice.wrap(result.message) + "\n"
    return result


def solution_function(name):
    """The function the reference solution of ``name`` defines (its last def), with the names it uses."""
    namespace = {"np": np, **{n: getattr(rnn_core, n) for n in SOLUTIONS[name].uses}}
    exec(compile(SOLUTIONS[name].code, f"<solution {name}>", "exec"), namespace)
    return namespace[re.findall(r"^def (\w+)", SOLUTIONS[name].code, re.MULTILINE)[-1]]


def fingerprint(value):
    """A hash of a case's arguments, to find the case a call was made on."""
    h = hashlib.sha1()

    def walk(v):
        if isinstance(v, np.ndarray):
            h.update(v.tobytes() + str(v.shape).encode())
        elif isinstance(v, dict):
            for k in sorted(v, key=str):
                h.update(str(k).encode())
                walk(v[k])
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        else:
            h.update(repr(v).encode())

    walk(value)
    return h.hexdigest()


def cases(name, seed=None):
    """The cases check draws for exercise ``name`` (square ones included)."""
    return EXERCISE[name].cases(public_seed_rng(seed, list(practice.EXERCISES).index(name)))


def model_answer(name, *mistakes, seed=None):
    """An answer that gives exactly what the exercise's model gives with ``mistakes`` swapped in.

    The outputs are computed beforehand (the checker's own code, run from inside the answer, would be
    cheating), and each call returns a copy of those of its case, or raises where the model cannot run.
    """
    ex = EXERCISE[name]
    replaced = {m.step: m.fn for m in mistakes}
    table = {}
    drawn = cases(name, seed)
    if ex.varied:  # the first case with its entries changed, as check calls it a second time on the same arrays
        first = next(c for c in drawn if not c.square)
        args = copy.deepcopy(first.args)
        _practice_check._vary(ex, args)
        drawn = [*drawn, dataclasses.replace(first, args=tuple(args))]
    for case in drawn:
        try:
            with np.errstate(all="ignore"):
                table[fingerprint(case.args)] = ex.outputs_of(case, replaced)
        except Exception as exc:  # the mistake cannot run on this case (shapes): nor can the answer
            table[fingerprint(case.args)] = exc

    def answer(*args):
        out = table[fingerprint(args)]
        if isinstance(out, Exception):
            raise type(out)(*out.args)
        return copy.deepcopy(out)

    return answer


def mistake(name, id):
    """The mistake ``id`` of exercise ``name``."""
    (found,) = [m for m in EXERCISE[name].mistakes if m.id == id]
    return found


# -- independent plain implementations, written for these tests -------------------------------------------


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


# -- independent plain implementations, written for these tests -------------------------------------------


def plain_one_hot(y, num_classes):
    if np.ndim(y) == 0:  # one index: one vector
        return np.array([1.0 if k == y else 0.0 for k in range(num_classes)])
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
    for k, name in enumerate("ifgq"):
        rows = slice(k * H, (k + 1) * H)
        a = W_x[rows, x_t] + W_h[rows] @ h_prev + b[rows]
        gate[name] = np.tanh(a) if name == "g" else sigmoid(a)
    c = gate["f"] * c_prev + gate["i"] * gate["g"]
    h = gate["q"] * np.tanh(c)
    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, **gate, "c": c}


def plain_lstm_step_backward(params, dh_t, dc_t, cache, into_cell=True):
    i, f, g, q, c = cache["i"], cache["f"], cache["g"], cache["q"], cache["c"]
    dc = dc_t + (dh_t * q * (1 - np.tanh(c) ** 2) if into_cell else 0)
    da = np.concatenate(
        [
            dc * g * i * (1 - i),
            dc * cache["c_prev"] * f * (1 - f),
            dc * i * (1 - g * g),
            dh_t * np.tanh(c) * q * (1 - q),
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
    x_part, h_bar, b_n = pre["n"]
    n = np.tanh(x_part + r * h_bar + b_n)
    return (1 - z) * n + z * h_prev, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "h_bar": h_bar}


def plain_gru_step_backward(params, dh_t, cache, direct=True, swapped=False):
    r, z, n, h_bar, h_prev = cache["r"], cache["z"], cache["n"], cache["h_bar"], cache["h_prev"]
    keep = 1 - z if swapped else z  # swapped: the derivative of h_t = (1 - z) h_{t-1} + z n, the other convention
    da_n = dh_t * (1 - keep) * (1 - n * n)
    da_r = da_n * h_bar * r * (1 - r)
    da_z = dh_t * (h_prev - n) * (-1 if swapped else 1) * z * (1 - z)
    x = np.eye(params["W_x"].shape[1])[cache["x"]]
    da_x, da_h = np.concatenate([da_r, da_z, da_n]), np.concatenate([da_r, da_z, da_n * r])
    dh_prev = params["W_h"].T @ da_h + (dh_t * keep if direct else 0)
    return dh_prev, {"W_x": np.outer(da_x, x), "W_h": np.outer(da_h, h_prev), "b": da_x}


def plain_dropout_backward(d_out, keep, rate):
    return np.where(keep, d_out / (1.0 - rate), 0.0)


def plain_masked_loss_and_grad(o, y, lengths):
    B, T, V = o.shape
    loss, do, N = 0.0, np.zeros_like(o, dtype=float), int(np.sum(lengths))
    for b in range(B):
        for t in range(int(lengths[b])):  # the real tokens only
            y_hat = np.exp(o[b, t] - o[b, t].max())
            y_hat /= y_hat.sum()
            loss -= np.log(y_hat[y[b, t]]) / N
            do[b, t] = (y_hat - np.eye(V)[y[b, t]]) / N
    return loss, do


def plain_beam_step(log_p, log_probs, beam_size):
    K, V = log_probs.shape
    scored = sorted((-(log_p[k] + log_probs[k, v]), k, v) for k in range(K) for v in range(V))
    kept = scored[:beam_size]  # the tuples sort by score, then k, then v
    return (np.array([k for _, k, _ in kept]), np.array([v for _, _, v in kept]), np.array([-s for s, _, _ in kept]))


def plain_attention_forward(h, u, mask):
    alpha, context = np.zeros(mask.shape), np.zeros(h.shape)
    for b in range(len(h)):  # one row at a time, the real positions only
        real = np.flatnonzero(mask[b])
        scores = u[b, real] @ h[b]
        e = np.exp(scores - scores.max())
        alpha[b, real] = e / e.sum()
        context[b] = alpha[b, real] @ u[b, real]
    return alpha, context


def plain_attention_backward(dcontext, h, u, alpha):
    dh, du = np.zeros(h.shape), np.zeros(u.shape)
    for b in range(len(h)):
        J = np.diag(alpha[b]) - np.outer(alpha[b], alpha[b])  # notebook 01's Jacobian
        dscores = J @ (u[b] @ dcontext[b])
        dh[b] = dscores @ u[b]
        du[b] = np.outer(alpha[b], dcontext[b]) + np.outer(dscores, h[b])
    return dh, du


PLAIN = {
    "one_hot": plain_one_hot,
    "softmax": plain_softmax,
    "softmax_jacobian": plain_softmax_jacobian,
    "cross_entropy_grad": plain_cross_entropy_grad,
    "step_forward": plain_step_forward,
    "step_backward": plain_step_backward,
    "loss_and_grads": plain_loss_and_grads,
    "global_norm": plain_global_norm,
    "clip_global_norm": plain_clip_global_norm,
    "adam_update": plain_adam_update,
    "lstm.step_forward": plain_lstm_step_forward,
    "lstm.step_backward": plain_lstm_step_backward,
    "gru.step_forward": plain_gru_step_forward,
    "gru.step_backward": plain_gru_step_backward,
    "dropout_backward": plain_dropout_backward,
    "seq2seq.masked_loss_and_grad": plain_masked_loss_and_grad,
    "seq2seq.beam_step": plain_beam_step,
    "attention_forward": plain_attention_forward,
    "attention_backward": plain_attention_backward,
}

PACKAGE = {
    "one_hot": rnn_core.one_hot,
    "softmax": rnn_core.softmax,
    "softmax_jacobian": rnn_core.softmax_jacobian,
    "cross_entropy_grad": rnn_core.cross_entropy_grad,
    "step_forward": rnn_core.step_forward,
    "step_backward": rnn_core.step_backward,
    "loss_and_grads": rnn_core.loss_and_grads,
    "global_norm": rnn_core.global_norm,
    "clip_global_norm": rnn_core.clip_global_norm,
    "adam_update": rnn_core.adam_update,
    "lstm.step_forward": rnn_core.lstm.step_forward,
    "lstm.step_backward": rnn_core.lstm.step_backward,
    "gru.step_forward": rnn_core.gru.step_forward,
    "gru.step_backward": rnn_core.gru.step_backward,
    "dropout_backward": rnn_core.dropout_backward,
    "seq2seq.masked_loss_and_grad": rnn_core.seq2seq.masked_loss_and_grad,
    "seq2seq.beam_step": rnn_core.seq2seq.beam_step,
    "attention_forward": rnn_core.attention_forward,
    "attention_backward": rnn_core.attention_backward,
}
