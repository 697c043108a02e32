"""Clipping and the four optimizers: exact update rules, purity, bad input."""

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
    momentum_init,
    momentum_update,
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


def test_global_norm_sums_float32_squares_in_float64():
    big = {"a": np.full(4, 1e19, np.float32), "b": np.full((2, 2), 1e19, np.float32)}  # squares beyond float32
    norm = global_norm(big)
    assert type(norm) is float and math.isclose(norm, math.sqrt(8) * float(np.float32(1e19)), rel_tol=1e-12)
    clipped, before = clip_global_norm(big, 5.0)
    assert before == norm and all(g.dtype == np.float32 for g in clipped.values())
    assert math.isclose(global_norm(clipped), 5.0, rel_tol=1e-6)
    rng = np.random.default_rng(0)
    many = {"w": rng.standard_normal(10**6).astype(np.float32)}  # a long sum, to float64's precision
    exact = math.sqrt(math.fsum(many["w"].astype(np.float64) ** 2))
    assert math.isclose(global_norm(many), exact, rel_tol=1e-13)


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


def test_momentum_is_a_running_mean_of_the_gradients():
    rng = np.random.default_rng(0)
    p = {"w": rng.standard_normal(5), "b": rng.standard_normal((2, 3))}
    state = momentum_init(p)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    ref = {k: v.copy() for k, v in p.items()}
    b = {k: np.zeros_like(v) for k, v in p.items()}  # PyTorch's form: b <- beta b + g
    torch_form = {k: v.copy() for k, v in p.items()}
    for _ in range(6):
        g = {k: rng.standard_normal(v.shape) for k, v in p.items()}  # a different gradient every step
        p, state = momentum_update(p, g, state, lr=0.1)
        for k in p:
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            ref[k] = ref[k] - 0.1 * m[k]
            b[k] = 0.9 * b[k] + g[k]
            torch_form[k] = torch_form[k] - 0.1 * (1 - 0.9) * b[k]  # the same steps at (1 - beta) times the rate
    assert all(np.allclose(p[k], ref[k], rtol=1e-12, atol=1e-14) for k in p)
    assert all(np.allclose(state["m"][k], m[k], rtol=1e-12, atol=1e-14) for k in p)
    assert all(np.allclose(p[k], torch_form[k], rtol=1e-12, atol=1e-14) for k in p)


def test_momentum_is_pure_and_beta_zero_is_sgd():
    p = {"w": np.array([1.0, 2.0])}
    g = {"w": np.array([0.5, -1.0])}
    state = momentum_init(p)
    new, _ = momentum_update(p, g, state, lr=0.1, beta=0.0)
    assert np.array_equal(new["w"], sgd_update(p, g, sgd_init(p), lr=0.1)[0]["w"])
    assert np.array_equal(p["w"], [1.0, 2.0]) and np.array_equal(state["m"]["w"], [0.0, 0.0])  # inputs untouched
    new, _ = momentum_update(p, g, state, lr=0.1)  # beta = 0.9: the first step is (1 - beta) of SGD's
    assert np.allclose(new["w"], p["w"] - 0.1 * 0.1 * g["w"])
    with pytest.raises(ValueError, match="beta"):
        momentum_update(p, g, state, lr=0.1, beta=1.0)


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


@pytest.mark.parametrize(
    "lr, error", [(0, ValueError), (-0.1, ValueError), (float("nan"), ValueError), ("0.1", TypeError)]
)
def test_bad_learning_rate(lr, error):
    p = {"w": np.ones(2)}
    with pytest.raises(error, match="learning rate"):
        adam_update(p, p, adam_init(p), lr=lr)
