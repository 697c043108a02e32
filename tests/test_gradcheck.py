"""The gradient checker (rnn_core.gradcheck). Every cell's gradients against finite differences:
tests/test_every_cell.py."""

import numpy as np
import pytest

import rnn_core
from rnn_core import GRADCHECK_TOL, check_gradients, gru, init_params, lstm, rnn


def test_gradients_of_a_larger_batch():
    """A batch of 16 rows: the gradient is still exact."""
    rng = np.random.default_rng(0)
    params = init_params(4, 3, seed=1)
    inputs, targets = rng.integers(0, 4, (16, 3)), rng.integers(0, 4, (16, 3))
    assert max(check_gradients(params, inputs, targets).values()) < 1e-7


def test_finite_differences_use_the_forward_pass_alone(monkeypatch):
    """The checker differentiates sequence_loss (forward only) and compares with loss_and_grads."""
    calls = []
    real = rnn.sequence_loss

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rnn, "sequence_loss", counting)
    params = init_params(3, 2, seed=0)
    errors = check_gradients(params, np.array([0, 1]), np.array([1, 2]))
    n_numbers = sum(p.size for p in params.values()) + 2  # every parameter entry, and h0 (H = 2)
    assert len(calls) == 2 * n_numbers  # f(x + eps) and f(x - eps) for each
    assert max(errors.values()) < GRADCHECK_TOL


def test_gradient_checker_refuses_float32_and_reports_every_parameter():
    p32 = init_params(3, 2, dtype=np.float32)
    with pytest.raises(TypeError, match="float64"):
        rnn_core.check_gradients(p32, np.array([0]), np.array([1]))
    with pytest.raises(TypeError, match="float64"):
        rnn_core.numerical_gradient(lambda: 0.0, np.zeros(2, np.float32))
    assert rnn_core.rel_error(np.zeros(3), np.zeros(3)) == 0.0
    with pytest.raises(ValueError, match="shapes"):
        rnn_core.rel_error(np.zeros(3), np.zeros(2))


def test_dropout_and_masks_together_are_refused():
    params = init_params(3, 2, seed=0, num_layers=2)
    inputs = np.array([0, 1, 2])
    masks = rnn_core.dropout_masks(params, inputs, 0.5, seed=1)
    with pytest.raises(TypeError, match=r"^give dropout \(with seed\) or masks, not both$"):
        check_gradients(params, inputs, inputs, dropout=0.5, seed=1, masks=masks)
    with pytest.raises(TypeError, match=r"^give dropout \(with seed\) or masks, not both$"):
        rnn.loss_and_grads(params, inputs, inputs, dropout=0.5, seed=1, masks=masks)  # the same words
    assert max(check_gradients(params, inputs, inputs, masks=masks).values()) < GRADCHECK_TOL


@pytest.mark.parametrize("cell", [lstm, gru])
@pytest.mark.parametrize("batch", [None, 2])
def test_any_cells_parameters_and_its_whole_starting_state(cell, batch):
    """The same checker for the gated cells: every parameter, and every part of the state (h0, and the LSTM's c0)."""
    rng = np.random.default_rng(3)
    params = cell.init_params(5, 3, seed=2)
    params["b"] = rng.standard_normal(params["b"].shape) * 0.3
    shape = (4,) if batch is None else (batch, 4)
    inputs, targets = rng.integers(0, 5, shape), rng.integers(0, 5, shape)
    state0 = [rng.uniform(-0.9, 0.9, shape[:-1] + (3,)) for _ in cell.STATE_NAMES]
    state0 = state0[0] if len(state0) == 1 else tuple(state0)
    name = "lstm" if cell is lstm else "gru"
    errors = check_gradients(params, inputs, targets, state0, cell=name)
    assert set(errors) == {*cell.PARAM_NAMES, *(f"{name}0" for name in cell.STATE_NAMES)}
    assert max(errors.values()) < GRADCHECK_TOL, errors
    assert set(check_gradients(params, inputs, targets, cell=name)) == set(errors)  # zeros when no state is given


def test_a_wrong_gradient_is_caught(monkeypatch):
    """The checker compares with loss_and_grads as it is: a gradient off by a little is reported."""
    real = gru.loss_and_grads

    def off(*args, **kwargs):
        loss, grads, *rest = real(*args, **kwargs)
        grads["W_h"] = grads["W_h"] * 1.001
        return (loss, grads, *rest)

    monkeypatch.setattr(gru, "loss_and_grads", off)
    errors = check_gradients(gru.init_params(4, 3, seed=1), np.array([0, 1, 2]), np.array([1, 2, 3]), cell="gru")
    assert errors["W_h"] > 1e-4 and max(v for k, v in errors.items() if k != "W_h") < GRADCHECK_TOL
