"""Softmax, its Jacobian, cross-entropy and the sigmoid: properties and finite-difference checks."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rnn_core
from rnn_core import cross_entropy, cross_entropy_grad, numerical_gradient, rel_error, softmax, softmax_jacobian

logit_vectors = arrays(np.float64, st.integers(1, 12), elements=st.floats(-50, 50))


@given(logit_vectors)
def test_softmax_is_a_distribution(o):
    p = softmax(o)
    assert np.all(p >= 0)
    assert np.isclose(p.sum(), 1.0)


@given(logit_vectors, st.floats(-100, 100))
def test_softmax_is_shift_invariant(o, c):
    assert np.allclose(softmax(o), softmax(o + c), atol=1e-12)


@given(logit_vectors)
def test_softmax_jacobian_rows_sum_to_zero_and_it_is_symmetric(o):
    J = softmax_jacobian(softmax(o))
    assert np.allclose(J.sum(axis=1), 0.0, atol=1e-12)
    assert np.array_equal(J, J.T)


def test_softmax_extreme_logits_are_finite_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = softmax(np.array([1000.0, -1000.0, 999.0]))
        assert np.all(np.isfinite(p))
        assert np.isclose(p.sum(), 1.0)
        ce = cross_entropy(np.array([1000.0, -1000.0, 0.0]), 1)
        assert np.isclose(ce, 2000.0)


def test_softmax_over_any_axis():
    o = np.random.default_rng(0).standard_normal((3, 4, 5))
    for axis in range(3):
        p = softmax(o, axis=axis)
        assert np.allclose(p.sum(axis=axis), 1.0)
        assert np.allclose(p, np.moveaxis(softmax(np.moveaxis(o, axis, -1)), -1, axis))


def test_softmax_temperature():
    o = np.array([1.0, 2.0, 3.0])
    assert np.allclose(softmax(o, temperature=2.0), softmax(o / 2.0))
    assert softmax(o, temperature=0.01)[2] > 0.999
    with pytest.raises(ValueError, match="temperature"):
        softmax(o, temperature=0)


def test_softmax_jacobian_matches_finite_differences(rng):
    o = rng.standard_normal(6)
    J = softmax_jacobian(softmax(o))
    for k in range(6):
        col = numerical_gradient(lambda k=k: softmax(o)[k], o)  # row k: d p_k / d o
        assert rel_error(J[k], col) < 1e-8


def test_cross_entropy_matches_definition_and_gradient(rng):
    o = rng.standard_normal((4, 7))
    y = rng.integers(0, 7, 4)
    p = softmax(o)
    assert np.isclose(cross_entropy(o, y), -np.log(p[np.arange(4), y]).sum())
    g = cross_entropy_grad(o, y)
    assert np.allclose(g, p - rnn_core.one_hot(y, 7))
    assert rel_error(g, numerical_gradient(lambda: cross_entropy(o, y), o)) < 1e-8
    # a single vector and an int target
    assert np.isclose(cross_entropy(o[0], int(y[0])), -np.log(p[0, y[0]]))
    assert cross_entropy_grad(o[0], int(y[0])).shape == (7,)


@settings(max_examples=30)
@given(arrays(np.float64, st.integers(2, 8), elements=st.floats(-20, 20)), st.data())
def test_cross_entropy_gradient_property(o, data):
    y = data.draw(st.integers(0, len(o) - 1))
    g = cross_entropy_grad(o, y)
    assert np.isclose(g.sum(), 0.0, atol=1e-12)  # probabilities minus a distribution
    assert g[y] <= 0 and np.all(np.delete(g, y) >= 0)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: cross_entropy(np.zeros(3), 3), ValueError, "outside"),
        (lambda: cross_entropy(np.zeros(3), -1), ValueError, "outside"),
        (lambda: cross_entropy(np.zeros((2, 3)), np.array([0])), ValueError, "targets of shape"),
        (lambda: cross_entropy(np.zeros(3), 1.0), TypeError, "integer"),
        (lambda: softmax(np.array([])), ValueError, "empty"),
        (lambda: softmax(np.array(["a"])), TypeError, "real numbers"),
        (lambda: softmax_jacobian(np.ones((2, 2))), ValueError, "one probability vector"),
    ],
)
def test_bad_input_gets_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_cross_entropy_and_grad_is_the_two_functions_fused():
    rng = np.random.default_rng(7)
    o, y = rng.standard_normal((6, 5)) * 3, rng.integers(0, 5, 6)
    loss, do = rnn_core.functions.cross_entropy_and_grad(o.copy(), y)
    assert np.isclose(loss, rnn_core.cross_entropy(o, y)) and np.allclose(do, rnn_core.cross_entropy_grad(o, y))
    assert rnn_core.functions.cross_entropy_and_grad(o.copy(), y, grad=False) == (loss, None)


def test_sigmoid():
    a = np.linspace(-30, 30, 121)
    assert np.allclose(rnn_core.sigmoid(a), 1 / (1 + np.exp(-a)), rtol=1e-12, atol=1e-15)
    with np.errstate(all="raise"):  # no overflow at extreme pre-activations, even in float32
        s = rnn_core.sigmoid(np.array([-1000.0, 1000.0], np.float32))
    assert s.tolist() == [0.0, 1.0]
    assert rnn_core.lstm.sigmoid is rnn_core.gru.sigmoid is rnn_core.functions.sigmoid  # one function, the gates'


def test_inverted_dropout_keeps_the_expected_value_and_its_backward_pass_is_the_same_mask():
    rng = np.random.default_rng(0)
    h = rng.standard_normal((3, 5, 4))
    keep = rng.random(h.shape) >= 0.3
    out = rnn_core.dropout(h, keep, 0.3)
    assert np.allclose(out, np.where(keep, h / 0.7, 0.0))
    assert np.array_equal(rnn_core.dropout(h, np.ones_like(keep), 0.0), h)  # no dropout: h itself
    many = rng.random(200_000) >= 0.3
    assert abs(rnn_core.dropout(np.ones(many.shape), many, 0.3).mean() - 1) < 0.01  # E[mask] = 1
    # the backward pass against finite differences of L = Σ g ⊙ dropout(h), mask held fixed
    g = rng.standard_normal(h.shape)
    h_var = h.copy()
    numeric = numerical_gradient(lambda: np.sum(g * rnn_core.dropout(h_var, keep, 0.3)), h_var)
    assert rel_error(rnn_core.dropout_backward(g, keep, 0.3), numeric) < 1e-9
    # the engine's masks are the same thing: dropout_masks' entries are 0 and 1 / (1 - rate)
    params = rnn_core.init_params(5, 4, seed=1, num_layers=2)
    masks = rnn_core.dropout_masks(params, np.arange(5), 0.3, seed=2)
    assert np.array_equal(rnn_core.dropout_backward(np.ones(masks.shape), masks > 0, 0.3), masks)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: rnn_core.dropout(np.ones(3), np.ones(3), 0.5), TypeError, "keep must be an array of booleans"),
        (lambda: rnn_core.dropout(np.ones(3), np.ones(2, bool), 0.5), ValueError, r"keep must have the shape of h"),
        (lambda: rnn_core.dropout_backward(np.ones(3), np.ones(3, bool), 1.0), ValueError, "rate must be"),
        (lambda: rnn_core.dropout_backward(np.ones(3), np.ones(3, bool), -0.1), ValueError, "rate must be"),
    ],
)
def test_dropout_names_a_bad_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "temperature, error, words",
    [
        ("1", TypeError, "temperature must be a number, got '1'"),
        (0.0, ValueError, "temperature must be > 0, got 0.0"),
        (float("nan"), ValueError, "temperature must be > 0, got nan"),
        (1e-320, ValueError, r"temperature 1e-320 is too small for these logits \(o / temperature overflows\)"),
    ],
)
def test_a_bad_temperature_is_a_clear_error(temperature, error, words):
    """A temperature that is no number, not above 0, or so small that o / temperature overflows (which gave nan, and
    a sample of the last index) is refused, naming it."""
    with pytest.raises(error, match=words):
        softmax(np.array([1.0, 2.0, -3.0]), temperature=temperature)


@pytest.mark.parametrize(
    "update, kwargs, words",
    [
        ("momentum", {"beta": 1.0}, r"momentum beta must be >= 0 and < 1, got 1.0"),
        ("momentum", {"beta": "0.9"}, "momentum beta must be a number"),
        ("adam", {"beta1": 1.0}, r"beta1 must be >= 0 and < 1, got 1.0"),
        ("adam", {"beta2": -0.1}, r"beta2 must be >= 0 and < 1, got -0.1"),
        ("adam", {"eps": -1e-8}, r"eps must be >= 0, got -1e-08"),
    ],
)
def test_an_optimizer_s_bad_rate_is_a_clear_error(update, kwargs, words):
    from rnn_core.optim import adam_init, adam_update, momentum_init, momentum_update

    params = {"w": np.ones(3)}
    init, step = (momentum_init, momentum_update) if update == "momentum" else (adam_init, adam_update)
    with pytest.raises((TypeError, ValueError), match=words):
        step(params, params, init(params), 0.1, **kwargs)
