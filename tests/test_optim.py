"""Clipping and the three optimizers: exact update rules, purity, bad input."""

import math

import numpy as np
import pytest

from rnn_core import (
    OPTIMIZERS,
    adagrad_init,
    adagrad_update,
    adam_init,
    adam_update,
    clip_elementwise,
    clip_global_norm,
    global_norm,
    init_params,
    sgd_init,
    sgd_update,
)


def _grads():
    return {"a": np.array([3.0, -4.0]), "b": np.array([[12.0]])}


def test_global_norm_and_clipping():
    g = _grads()
    assert global_norm(g) == 13.0
    clipped, norm = clip_global_norm(g, 6.5)
    assert norm == 13.0 and math.isclose(global_norm(clipped), 6.5)
    assert np.allclose(clipped["a"], g["a"] / 2)  # direction kept
    same, _ = clip_global_norm(g, 100.0)
    assert all(np.array_equal(same[k], g[k]) for k in g)
    e = clip_elementwise(g, 3.5)
    assert np.array_equal(e["a"], [3.0, -3.5]) and e["b"][0, 0] == 3.5
    assert g["b"][0, 0] == 12.0  # inputs untouched
    with pytest.raises(ValueError, match="max_norm"):
        clip_global_norm(g, 0)
    with pytest.raises(ValueError, match="clip limit"):
        clip_elementwise(g, -1)


def test_sgd_and_adagrad_rules():
    p = {"w": np.array([1.0, 2.0])}
    g = {"w": np.array([0.5, -1.0])}
    new, state = sgd_update(p, g, sgd_init(p), lr=0.1)
    assert np.allclose(new["w"], [0.95, 2.1]) and state == {}
    new, state = adagrad_update(p, g, adagrad_init(p), lr=0.1)
    assert np.allclose(new["w"], p["w"] - 0.1 * np.sign(g["w"]), atol=1e-6)  # first step: lr * sign
    new2, state2 = adagrad_update(new, g, state, lr=0.1)
    assert np.allclose(state2["G"]["w"], 2 * g["w"] ** 2)
    assert np.array_equal(p["w"], [1.0, 2.0])  # pure


def test_adam_matches_the_textbook_rule():
    rng = np.random.default_rng(0)
    p = {"w": rng.standard_normal(5)}
    state = adam_init(p)
    m = v = np.zeros(5)
    ref = p["w"].copy()
    for t in range(1, 6):
        g = {"w": rng.standard_normal(5)}
        p, state = adam_update(p, g, state, lr=0.01)
        m = 0.9 * m + 0.1 * g["w"]
        v = 0.999 * v + 0.001 * g["w"] ** 2
        ref = ref - 0.01 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    assert state["t"] == 5
    assert np.allclose(p["w"], ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_keeps_float32_and_reduces_a_quadratic(name):
    init, update = OPTIMIZERS[name]
    params = {k: v.astype(np.float32) for k, v in init_params(3, 2, seed=0).items()}
    state = init(params)
    start = sum(float((v**2).sum()) for v in params.values())
    for _ in range(50):
        params, state = update(params, {k: 2 * v for k, v in params.items()}, state, lr=0.01)  # grad of sum v^2
    assert all(v.dtype == np.float32 for v in params.values())
    assert sum(float((v**2).sum()) for v in params.values()) < start


@pytest.mark.parametrize("lr", [0, -0.1, float("nan"), "0.1"])
def test_bad_learning_rate(lr):
    p = {"w": np.ones(2)}
    with pytest.raises(ValueError, match="learning rate"):
        adam_update(p, p, adam_init(p), lr=lr)
