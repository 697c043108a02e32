"""Gradient clipping and optimizers with explicit state.

Every function here is pure: it returns new parameter and state dicts and
leaves its arguments alone, so a training loop reads
``params, state = adam_update(params, grads, state, lr)`` and a checkpoint is
just the arrays in ``state``. Parameters, gradients and state share the keys of
the parameter dict, whatever the cell, so each rule is one loop over the keys.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_number

__all__ = [
    "global_norm",
    "clip_elementwise",
    "clip_global_norm",
    "sgd_init",
    "sgd_update",
    "momentum_init",
    "momentum_update",
    "adagrad_init",
    "adagrad_update",
    "adam_init",
    "adam_update",
    "OPTIMIZERS",
]


def global_norm(grads):
    """sqrt of the sum of squares of every entry of every gradient (a float).

    The squares are summed in float64 whatever the gradients' dtype: in float32 a sum above
    about 3.4e38 (a norm above about 1.8e19) would be inf, and a long one loses digits.
    """
    total = 0.0
    for g in grads.values():
        g = np.asarray(g, dtype=np.float64)  # no copy for float64
        total += float(np.vdot(g, g))
    return math.sqrt(total)


def clip_elementwise(grads, limit):
    """Clamp every entry to [-limit, limit] (min-char-rnn's clipping). Returns new dict."""
    check_number(limit, "clip limit", low=0)
    return {k: np.clip(g, -limit, limit) for k, g in grads.items()}


def clip_global_norm(grads, max_norm):
    """Rescale all gradients together so their global norm is at most max_norm.

    Unlike elementwise clipping this keeps the direction of the update.
    Returns (clipped grads, the global norm before clipping).
    """
    check_number(max_norm, "max_norm", low=0)
    norm = global_norm(grads)
    if norm <= max_norm or not math.isfinite(norm):
        return dict(grads), norm
    scale = max_norm / norm
    return {k: g * np.asarray(scale, dtype=g.dtype) for k, g in grads.items()}, norm


def _check_lr(lr):
    check_number(lr, "learning rate", low=0)


def sgd_init(params):
    """Plain SGD keeps no state."""
    return {}


def sgd_update(params, grads, state, lr):
    """theta <- theta - lr * g."""
    _check_lr(lr)
    return {k: params[k] - np.asarray(lr, params[k].dtype) * grads[k] for k in params}, state


def momentum_init(params):
    """SGD with momentum's state: the running mean of the gradients, m (zeros)."""
    return {"m": {k: np.zeros_like(v) for k, v in params.items()}}


def momentum_update(params, grads, state, lr, beta=0.9):
    """m <- beta m + (1 - beta) g;  theta <- theta - lr * m.

    The running mean m is Adam's first moment (same beta, no bias correction), so this is Adam
    without its division by sqrt(v): a control for what Adam's per-weight scaling buys. With m an
    average rather than a sum, a steady gradient g moves a weight by lr * g per step, as plain SGD
    does. The other common form, b <- beta b + g; theta <- theta - lr' * b (PyTorch's SGD with
    momentum), takes the same steps at lr' = (1 - beta) * lr.
    """
    _check_lr(lr)
    check_number(beta, "momentum beta", 0, 1, include_low=True, include_high=False)
    m, new = {}, {}
    for k, p in params.items():
        dt = p.dtype.type
        m[k] = dt(beta) * state["m"][k] + dt(1 - beta) * grads[k]
        new[k] = p - dt(lr) * m[k]
    return new, {"m": m}


def adagrad_init(params):
    """Adagrad's state: the running sum of squared gradients, G (zeros)."""
    return {"G": {k: np.zeros_like(v) for k, v in params.items()}}


def adagrad_update(params, grads, state, lr, eps=1e-8):
    """G <- G + g^2;  theta <- theta - lr * g / (sqrt(G) + eps)."""
    _check_lr(lr)
    G = {k: state["G"][k] + grads[k] * grads[k] for k in params}
    new = {k: params[k] - np.asarray(lr, params[k].dtype) * grads[k] / (np.sqrt(G[k]) + eps) for k in params}
    return new, {"G": G}


def adam_init(params):
    """Adam's state: step count t = 0, first and second moments m, v (zeros)."""
    return {
        "t": 0,
        "m": {k: np.zeros_like(v) for k, v in params.items()},
        "v": {k: np.zeros_like(v) for k, v in params.items()},
    }


def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam (Kingma & Ba, 2015) with bias correction.

    m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;
    theta <- theta - lr * mhat / (sqrt(vhat) + eps), mhat = m / (1 - b1^t), vhat = v / (1 - b2^t).
    """
    _check_lr(lr)
    check_number(beta1, "beta1", 0, 1, include_low=True, include_high=False)
    check_number(beta2, "beta2", 0, 1, include_low=True, include_high=False)
    check_number(eps, "eps", low=0, include_low=True)
    t = state["t"] + 1
    step = lr * math.sqrt(1 - beta2**t) / (1 - beta1**t)  # folds both bias corrections
    eps_hat = eps * math.sqrt(1 - beta2**t)
    m, v, new = {}, {}, {}
    for k, p in params.items():
        g = grads[k]
        dt = p.dtype.type
        m[k] = dt(beta1) * state["m"][k] + dt(1 - beta1) * g
        v[k] = dt(beta2) * state["v"][k] + dt(1 - beta2) * (g * g)
        new[k] = p - dt(step) * m[k] / (np.sqrt(v[k]) + dt(eps_hat))
    return new, {"t": t, "m": m, "v": v}


OPTIMIZERS = {
    "sgd": (sgd_init, sgd_update),
    "momentum": (momentum_init, momentum_update),
    "adagrad": (adagrad_init, adagrad_update),
    "adam": (adam_init, adam_update),
}
