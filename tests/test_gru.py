"""What only the GRU (rnn_core.gru) does: its gates at work, its initial update bias, its parameters' checks.
What every cell does is tests/test_every_cell.py; stacks and dropout, tests/test_stacked.py; the agreement
with PyTorch's nn.GRU, tests/test_torch_oracle.py."""

import numpy as np
import pytest
from cases import random_case

import rnn_core
from rnn_core import gru

# -- structural facts: what the gates do ----------------------------------------------------------


def _gate_rows(H, gate):
    k = gru.GATES.index(gate)
    return slice(k * H, (k + 1) * H)


def test_a_shut_update_gate_writes_nothing_and_the_gradient_reaches_h0_whole():
    """z = 1 (its bias +50): h_t = h_{t-1} at every step, and dL_T/dh_0 = dL_T/dh_T exactly: the direct path."""
    V, H, T = 6, 5, 200
    params, inputs, targets, h0 = random_case("gru", V, H, T, None, seed=15)
    params["b"][_gate_rows(H, "z")] = 50.0  # z = sigmoid(50 + ...) = 1 in float64
    out = gru.forward(params, inputs, h0)
    assert np.array_equal(out["z"], np.ones_like(out["z"]))
    assert np.array_equal(out["h"], np.broadcast_to(h0, out["h"].shape))  # h_t = h_0 at every step
    _, _, _, dh0_all = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    _, _, _, dh0_but_last = gru.loss_and_grads(params, inputs[:-1], targets[:-1], h0, return_dstate0=True)
    dh_T = params["W_yh"].T @ (out["y_hat"][-1] - rnn_core.one_hot(targets[-1], V))
    assert np.allclose(dh0_all - dh0_but_last, dh_T, atol=1e-12)  # undiminished after 200 steps
    assert np.abs(dh_T).max() > 1e-3


def test_an_open_update_gate_and_a_shut_reset_gate_leave_no_memory():
    """z = 0 and r = 0: h_t = n_t = tanh(W_xn x_t + b_n), a function of the input alone."""
    V, H, T = 5, 3, 6
    params, _, _, _ = random_case("gru", V, H, T, None, seed=18)
    params["b"][_gate_rows(H, "z")] = -50.0
    params["b"][_gate_rows(H, "r")] = -50.0
    inputs = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 0]])  # the two rows agree at steps 2 and 5
    out = gru.forward(params, inputs, np.full((2, H), 0.7))
    expected = np.tanh(params["W_x"][_gate_rows(H, "n")].T[inputs] + params["b"][_gate_rows(H, "n")])
    assert np.allclose(out["h"], expected, atol=1e-15)
    assert np.array_equal(out["h"][0, 2], out["h"][1, 2]) and np.array_equal(out["h"][0, 5], out["h"][1, 5])


def test_without_recurrent_weights_the_gates_see_only_the_input_and_h_mixes_old_and_new():
    V, H, T = 5, 3, 6
    params, _, _, _ = random_case("gru", V, H, T, None, seed=19)
    params["W_h"][:] = 0.0
    inputs = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 0]])
    out = gru.forward(params, inputs)
    for t in range(T):
        alone = gru.forward(params, inputs[:, t : t + 1])  # the same character from a zero state
        for gate in gru.GATES:
            assert np.allclose(out[gate][:, t], alone[gate][:, 0]), (gate, t)
    h = np.zeros((2, H))
    for t in range(T):  # h_t = z_t h_{t-1} + (1 - z_t) n_t: a running mix
        h = out["z"][:, t] * h + (1 - out["z"][:, t]) * out["n"][:, t]
        assert np.allclose(out["h"][:, t], h)
    assert not np.allclose(out["h"][0, 2], out["h"][1, 2])  # same input, different history


def test_init_params_update_bias():
    V, H = 7, 6
    a = gru.init_params(V, H, seed=1)
    assert not a["b"].any()
    with_bias = gru.init_params(V, H, update_bias=1.0)["b"]
    assert np.array_equal(with_bias[_gate_rows(H, "z")], np.ones(H))
    assert not np.delete(with_bias, _gate_rows(H, "z")).any()
    assert np.array_equal(gru.init_params(V, H, update_bias=1.0, num_layers=3)["b_2"], with_bias)
    with pytest.raises(TypeError, match="update_bias"):
        gru.init_params(5, 3, update_bias="1")
    with pytest.raises(ValueError, match="recurrent_scale"):
        gru.init_params(5, 3, recurrent_scale=0)


# -- bad input: what the GRU's checks say about its own parameters ------------------------------------


def _p():
    return gru.init_params(5, 4)


@pytest.mark.parametrize(
    "params, match",
    [
        (rnn_core.init_params(5, 4), "missing W_x, W_h, b"),
        ({**_p(), "W_h": np.zeros((12, 3))}, r"W_h has shape \(12, 3\).*must be \(12, 4\)"),
        ({**_p(), "b": np.zeros(4)}, r"b has shape \(4,\).*must be \(12,\)"),
        ({**_p(), "W_x": np.zeros((13, 5))}, r"W_x must have shape \(3H, V\)"),
    ],
)
def test_bad_parameters_get_a_clear_error(params, match):
    for call in (gru.loss_and_grads, gru.sequence_loss):
        with pytest.raises(ValueError, match=match):
            call(params, np.array([0]), np.array([1]))


def test_a_pair_is_not_a_gru_state():
    with pytest.raises(ValueError, match=r"h0\)? must have shape \(4,\)"):
        gru.loss_and_grads(_p(), np.array([0, 1]), np.array([1, 2]), (np.zeros(4), np.zeros(4)))
