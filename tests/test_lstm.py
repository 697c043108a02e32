"""What only the LSTM (rnn_core.lstm) does: its gates at work, its initial forget bias, its parameters' and
state's checks. What every cell does is tests/test_every_cell.py; stacks and dropout, tests/test_stacked.py."""

import numpy as np
import pytest
from cases import random_case

import rnn_core
from rnn_core import lstm

# -- structural facts: what the gates do ----------------------------------------------------------


def _gate_rows(H, gate):
    k = lstm.GATES.index(gate)
    return slice(k * H, (k + 1) * H)


def test_open_forget_gate_and_shut_input_gate_carry_the_cell_unchanged():
    V, H, T = 6, 5, 200
    params, inputs, targets, (h0, c0) = random_case("lstm", V, H, T, 3, seed=15)
    params["b"][_gate_rows(H, "f")] = 50.0  # f = sigmoid(50 + ...) = 1 in float64
    params["b"][_gate_rows(H, "i")] = -50.0  # i = 0
    out = lstm.forward(params, inputs, (h0, c0))
    assert np.array_equal(out["f"], np.ones_like(out["f"])) and np.array_equal(out["i"], np.zeros_like(out["i"]))
    assert np.array_equal(out["c"], np.broadcast_to(c0[:, None, :], out["c"].shape))  # c_t = c_0 at every step
    _, (h_last, c_last) = lstm.sequence_loss(params, inputs, targets, (h0, c0))
    assert np.array_equal(c_last, c0)
    assert np.allclose(h_last, out["q"][:, -1] * np.tanh(c0))  # what the cell holds still shows in h


def test_cell_gradient_survives_many_steps_when_the_forget_gate_is_open():
    """dL_T/dc_0 for a loss at the last step only: f = 1, i = 0 keep it at full size after 200 steps."""
    V, H, T = 6, 5, 200
    params, inputs, targets, (h0, c0) = random_case("lstm", V, H, T, None, seed=16)
    params["W_h"][:] = 0.0  # h_{t-1} does not reach the gates: the cell path is the only way back
    params["b"][_gate_rows(H, "f")] = 50.0
    params["b"][_gate_rows(H, "i")] = -50.0

    _, _, _, (_, dc0_all) = lstm.loss_and_grads(params, inputs, targets, (h0, c0), return_dstate0=True)
    _, _, _, (_, dc0_but_last) = lstm.loss_and_grads(params, inputs[:-1], targets[:-1], (h0, c0), return_dstate0=True)
    dc0 = dc0_all - dc0_but_last  # dL_T / dc_0
    # the same as dL_T/dc_T: h_T = q_T tanh(c_T) with c_T = c_0
    out = lstm.forward(params, inputs, (h0, c0))
    dh_T = params["W_yh"].T @ (out["y_hat"][-1] - rnn_core.one_hot(targets[-1], V))
    dc_T = dh_T * out["q"][-1] * (1 - np.tanh(out["c"][-1]) ** 2)
    assert np.allclose(dc0, dc_T, atol=1e-12)
    assert np.abs(dc0).max() > 1e-3


def test_shut_output_gate_hides_the_cell():
    V, H = 7, 4
    params, inputs, targets, state0 = random_case("lstm", V, H, 8, 2, seed=17)
    params["b"][_gate_rows(H, "q")] = -50.0  # q = 0: h_t = 0, whatever the cell holds
    out = lstm.forward(params, inputs, state0)
    assert np.array_equal(out["h"], np.zeros_like(out["h"]))
    assert np.abs(out["c"]).max() > 0.1
    assert np.allclose(out["logits"], np.broadcast_to(params["b_o"], out["logits"].shape))
    assert np.allclose(out["y_hat"], rnn_core.softmax(params["b_o"]))


def test_without_recurrent_weights_each_step_sees_only_its_input_and_the_cell_adds_up():
    V, H, T = 5, 3, 6
    params, _, _, _ = random_case("lstm", V, H, T, None, seed=18)
    params["W_h"][:] = 0.0
    inputs = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 0]])  # the two rows agree at steps 2 and 5
    out = lstm.forward(params, inputs)
    for t in range(T):
        alone = lstm.forward(params, inputs[:, t : t + 1])  # the same character from a zero state
        for gate in lstm.GATES:
            assert np.allclose(out[gate][:, t], alone[gate][:, 0]), (gate, t)
    # c accumulates: c_t = f_t c_{t-1} + i_t g_t, so c_t = sum over s <= t of (f_{s+1} ... f_t) i_s g_s
    c = np.zeros((2, H))
    for t in range(T):
        c = out["f"][:, t] * c + out["i"][:, t] * out["g"][:, t]
        assert np.allclose(out["c"][:, t], c)
    assert not np.allclose(out["c"][0, 2], out["c"][1, 2])  # same input, different history in the cell


def test_init_params_starts_the_forget_gate_open():
    V, H = 7, 6
    a = lstm.init_params(V, H, seed=1)
    assert np.array_equal(a["b"][_gate_rows(H, "f")], np.ones(H))  # forget bias 1
    assert not a["b"][_gate_rows(H, "i")].any() and not a["b"][2 * H :].any()
    assert np.array_equal(lstm.init_params(V, H, forget_bias=2.5)["b"][_gate_rows(H, "f")], np.full(H, 2.5))
    assert np.array_equal(lstm.init_params(V, H, num_layers=2)["b_1"], a["b"])  # every layer's, as layer 0's
    with pytest.raises(TypeError, match="forget_bias"):
        lstm.init_params(5, 3, forget_bias="1")
    with pytest.raises(ValueError, match="recurrent_scale"):
        lstm.init_params(5, 3, recurrent_scale=0)


# -- bad input: what the LSTM's checks say about its own parameters and its pair of states ------------------


def _p():
    return lstm.init_params(5, 4)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: (rnn_core.init_params(5, 4), None), ValueError, "missing W_x, W_h, b"),
        (lambda: ({**_p(), "W_h": np.zeros((16, 3))}, None), ValueError, r"W_h has shape \(16, 3\).*must be \(16, 4\)"),
        (lambda: ({**_p(), "b": np.zeros(4)}, None), ValueError, r"b has shape \(4,\).*must be \(16,\)"),
        (lambda: ({**_p(), "W_x": np.zeros((15, 5))}, None), ValueError, r"W_x must have shape \(4H, V\)"),
        (lambda: (_p(), np.zeros(4)), TypeError, r"state0 must be None or a pair \(h0, c0\)"),
        (lambda: (_p(), (np.zeros(4),)), TypeError, "state0 must be None or a pair"),
        (lambda: (_p(), (np.zeros(4), np.zeros(5))), ValueError, r"c0 must have shape \(4,\)"),
        (lambda: (_p(), (np.zeros(4), np.array([0, np.nan, 0, 0]))), ValueError, "c0 contains"),
        (lambda: (_p(), (np.zeros(4), np.zeros(4, int))), TypeError, "c0 must be a float"),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, match):
    params, state0 = make()
    inputs = np.array([0, 1])
    for call in (lstm.loss_and_grads, lstm.sequence_loss):
        with pytest.raises(error, match=match):
            call(params, inputs, inputs, state0)
    with pytest.raises(error, match=match):
        lstm.forward(params, inputs, state0)


def test_a_batch_needs_both_states_batched():
    with pytest.raises(ValueError, match=r"c0 must have shape \(2, 4\)"):
        lstm.loss_and_grads(_p(), np.zeros((2, 2), int), np.zeros((2, 2), int), (np.zeros((2, 4)), np.zeros(4)))


def test_an_lstm_is_checked_as_the_cell_it_is_named():
    from rnn_core.cells import check_cell_params

    assert check_cell_params(lstm.init_params(5, 3), "lstm") == "lstm"
    with pytest.raises(ValueError, match="missing W_h"):  # an LSTM missing a part: the LSTM's message
        rnn_core.sample(
            {k: v for k, v in lstm.init_params(5, 3).items() if k != "W_h"},
            rnn_core.Vocabulary("abcde"),
            "a",
            3,
            cell="lstm",
        )
    with pytest.raises(ValueError, match="cell must be one of 'rnn', 'lstm', 'gru', got 'tree'"):
        check_cell_params(lstm.init_params(5, 3), "tree")
    with pytest.raises(ValueError, match="vocabulary has 4 characters but the parameters expect V=5"):
        rnn_core.sample(lstm.init_params(5, 3), rnn_core.Vocabulary("abcd"), "a", 3, cell="lstm")
