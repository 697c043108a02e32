"""The LSTM (rnn_core.lstm): exact gradients, structural facts, agreement with a plain reference, bad input."""

import threading

import numpy as np
import pytest

import rnn_core
from rnn_core import GRADCHECK_TOL, lstm, numerical_gradient, rel_error

SIZES = [(2, 1, 1), (5, 3, 4), (7, 6, 9), (4, 8, 3), (3, 5, 1)]  # (V, H, T): H < V, H > V, T = 1


def _random_case(V, H, T, batch, seed, dtype=np.float64):
    """Parameters with every term switched on (nonzero biases), inputs, targets and a nonzero state."""
    rng = np.random.default_rng(seed)
    params = lstm.init_params(V, H, seed=seed, dtype=dtype)
    params["b"] = (params["b"] + rng.standard_normal(4 * H) * 0.3).astype(dtype)
    params["b_o"] = (rng.standard_normal(V) * 0.2).astype(dtype)
    shape = (T,) if batch is None else (batch, T)
    inputs, targets = rng.integers(0, V, shape), rng.integers(0, V, shape)
    h0 = rng.uniform(-0.9, 0.9, shape[:-1] + (H,)).astype(dtype)
    c0 = rng.uniform(-2.0, 2.0, shape[:-1] + (H,)).astype(dtype)
    return params, inputs, targets, (h0, c0)


def _gradient_errors(params, inputs, targets, state0):
    """Relative error of every analytic gradient (and of dL/dh0, dL/dc0) against central differences."""
    p = {k: v.copy() for k, v in params.items()}
    h0, c0 = (s.copy() for s in state0)
    _, grads, _, (dh0, dc0) = lstm.loss_and_grads(p, inputs, targets, (h0, c0), return_dstate0=True)

    def f():
        return lstm.sequence_loss(p, inputs, targets, (h0, c0))[0]

    errors = {k: rel_error(grads[k], numerical_gradient(f, p[k])) for k in lstm.PARAM_NAMES}
    errors["h0"] = rel_error(dh0, numerical_gradient(f, h0))
    errors["c0"] = rel_error(dc0, numerical_gradient(f, c0))
    return errors


@pytest.mark.parametrize("V, H, T", SIZES)
@pytest.mark.parametrize("batch", [None, 3])
def test_gradients_match_finite_differences(V, H, T, batch):
    errors = _gradient_errors(*_random_case(V, H, T, batch, seed=V * 100 + H * 10 + T))
    assert set(errors) == {"W_x", "W_h", "b", "W_yh", "b_o", "h0", "c0"}
    assert max(errors.values()) < GRADCHECK_TOL, errors


# -- an independent reference: one sequence, one step at a time, column vectors --------------------


def _reference(params, inputs, targets, h0, c0):
    """The LSTM written out plainly (exp-based sigmoid, one-hot columns), forward and backward.

    Returns (loss, grads, h_T, c_T, dh0, dc0) for one sequence.
    """
    W_x, W_h, b, W_yh, b_o = (params[k] for k in ("W_x", "W_h", "b", "W_yh", "b_o"))
    H, V = W_h.shape[1], W_x.shape[1]

    def sig(z):
        return 1.0 / (1.0 + np.exp(-z))

    steps = []
    h, c, loss = h0[:, None], c0[:, None], 0.0
    for x_t, y_t in zip(inputs, targets):
        x = np.zeros((V, 1))
        x[x_t] = 1.0
        a = W_x @ x + W_h @ h + b[:, None]
        i, f, g, o = sig(a[:H]), sig(a[H : 2 * H]), np.tanh(a[2 * H : 3 * H]), sig(a[3 * H :])
        c_new = f * c + i * g
        h_new = o * np.tanh(c_new)
        z = W_yh @ h_new + b_o[:, None]
        p = np.exp(z - z.max())
        p /= p.sum()
        loss -= np.log(p[y_t, 0])
        steps.append(dict(x=x, y=y_t, h_prev=h, c_prev=c, i=i, f=f, g=g, o=o, c=c_new, h=h_new, p=p))
        h, c = h_new, c_new
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    dh_next, dc_next = np.zeros((H, 1)), np.zeros((H, 1))
    for s in reversed(steps):
        dz = s["p"].copy()
        dz[s["y"]] -= 1.0
        grads["W_yh"] += dz @ s["h"].T
        grads["b_o"] += dz[:, 0]
        dh = W_yh.T @ dz + dh_next
        tc = np.tanh(s["c"])
        dc = dc_next + dh * s["o"] * (1.0 - tc**2)
        da = np.vstack(
            [
                dc * s["g"] * s["i"] * (1.0 - s["i"]),
                dc * s["c_prev"] * s["f"] * (1.0 - s["f"]),
                dc * s["i"] * (1.0 - s["g"] ** 2),
                dh * tc * s["o"] * (1.0 - s["o"]),
            ]
        )
        grads["W_x"] += da @ s["x"].T
        grads["W_h"] += da @ s["h_prev"].T
        grads["b"] += da[:, 0]
        dh_next, dc_next = W_h.T @ da, dc * s["f"]
    return loss, grads, h[:, 0], c[:, 0], dh_next[:, 0], dc_next[:, 0]


@pytest.mark.parametrize("batch", [None, 4])
def test_agrees_with_a_plain_per_step_reference(batch):
    params, inputs, targets, (h0, c0) = _random_case(6, 5, 7, batch, seed=11)
    loss, grads, (h_T, c_T), (dh0, dc0) = lstm.loss_and_grads(params, inputs, targets, (h0, c0), return_dstate0=True)
    rows = [(inputs, targets, h0, c0)] if batch is None else list(zip(inputs, targets, h0, c0))
    refs = [_reference(params, *row) for row in rows]
    assert abs(loss - sum(r[0] for r in refs)) < 1e-12 * loss
    for k in grads:
        assert rel_error(grads[k], sum(r[1][k] for r in refs)) < 1e-12, k
    squeeze = (lambda a: a[0]) if batch is None else (lambda a: a)
    for got, j in ((h_T, 2), (c_T, 3), (dh0, 4), (dc0, 5)):
        assert rel_error(got, squeeze(np.stack([r[j] for r in refs]))) < 1e-12


def test_step_functions_agree_with_the_sequence_functions():
    params, inputs, targets, (h0, c0) = _random_case(6, 4, 5, None, seed=5)
    out = lstm.forward(params, inputs, (h0, c0))
    h, c, caches = h0, c0, []
    for x_t in inputs:
        h, c, cache = lstm.step_forward(params, int(x_t), h, c)
        caches.append(cache)
    assert np.allclose(np.array([k["c"] for k in caches]), out["c"])
    for gate in lstm.GATES:
        assert np.allclose(np.array([k[gate] for k in caches]), out[gate])
    # backward one step at a time: the output layer's share first, then step_backward from t = T down to 1
    loss, grads, _, (dh0, dc0) = lstm.loss_and_grads(params, inputs, targets, (h0, c0), return_dstate0=True)
    dlogits = out["p"] - rnn_core.one_hot(targets, 6)
    total = {k: np.zeros_like(v) for k, v in params.items()}
    total["W_yh"], total["b_o"] = dlogits.T @ out["h"], dlogits.sum(axis=0)
    dh_next, dc_next = np.zeros(4), np.zeros(4)
    for t in reversed(range(5)):
        dh = params["W_yh"].T @ dlogits[t] + dh_next
        dh_next, dc_next, g = lstm.step_backward(params, dh, dc_next, caches[t])
        for k in g:
            total[k] += g[k]
    for k in grads:
        assert np.allclose(total[k], grads[k]), k
    assert np.allclose(dh_next, dh0) and np.allclose(dc_next, dc0)


def test_step_functions_take_a_batch():
    params, inputs, _, (h0, c0) = _random_case(5, 3, 1, 4, seed=6)
    h, c, _ = lstm.step_forward(params, inputs[:, 0], h0, c0)
    out = lstm.forward(params, inputs, (h0, c0))
    assert h.shape == c.shape == (4, 3)
    assert np.allclose(h, out["h"][:, 0]) and np.allclose(c, out["c"][:, 0])


# -- the three entry points, shapes, dtypes, carried state ----------------------------------------


def test_forward_sequence_loss_and_loss_and_grads_agree():
    params, inputs, targets, state0 = _random_case(7, 5, 6, 3, seed=7)
    out = lstm.forward(params, inputs, state0)
    rows = np.arange(3)[:, None], np.arange(6)[None, :]
    from_forward = -np.log(out["p"][rows[0], rows[1], targets]).sum()
    loss_a, (h_a, c_a) = lstm.sequence_loss(params, inputs, targets, state0)
    loss_b, _, (h_b, c_b) = lstm.loss_and_grads(params, inputs, targets, state0)
    assert np.isclose(loss_a, from_forward) and np.isclose(loss_b, from_forward)
    # the fused loss of the engine is rnn_core's cross-entropy of the logits
    assert np.isclose(loss_b, rnn_core.cross_entropy(out["logits"].reshape(-1, 7), targets.reshape(-1)))
    # forward loops over step_forward; the other two run the fused loops: the same numbers up to rounding
    for h_last, c_last in ((h_a, c_a), (h_b, c_b)):
        assert rel_error(h_last, out["h"][:, -1]) < 1e-12 and rel_error(c_last, out["c"][:, -1]) < 1e-12


def test_shapes_and_types():
    params = lstm.init_params(5, 4)
    loss, grads, (h_last, c_last) = lstm.loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]))
    assert isinstance(loss, float)
    assert h_last.shape == c_last.shape == (4,)
    assert {k: g.shape for k, g in grads.items()} == {k: p.shape for k, p in params.items()}
    out = lstm.forward(params, np.zeros((2, 3), int))
    assert {k: v.shape for k, v in out.items()} == {
        **{k: (2, 3, 4) for k in ("i", "f", "g", "o", "c", "h")},
        "logits": (2, 3, 5),
        "p": (2, 3, 5),
        "h0": (2, 4),
        "c0": (2, 4),
    }
    *_, (dh0, dc0) = lstm.loss_and_grads(params, np.zeros((2, 3), int), np.zeros((2, 3), int), return_dstate0=True)
    assert dh0.shape == dc0.shape == (2, 4)


def test_one_sequence_equals_a_batch_of_one():
    params, inputs, targets, (h0, c0) = _random_case(6, 5, 4, None, seed=8)
    loss1, g1, (h1, c1), (dh1, dc1) = lstm.loss_and_grads(params, inputs, targets, (h0, c0), return_dstate0=True)
    loss2, g2, (h2, c2), (dh2, dc2) = lstm.loss_and_grads(
        params, inputs[None], targets[None], (h0[None], c0[None]), return_dstate0=True
    )
    assert loss1 == loss2
    assert all(np.array_equal(g1[k], g2[k]) for k in g1)
    for one, batch in ((h1, h2), (c1, c2), (dh1, dh2), (dc1, dc2)):
        assert np.array_equal(one, batch[0])
    f1, f2 = lstm.forward(params, inputs, (h0, c0)), lstm.forward(params, inputs[None], (h0[None], c0[None]))
    assert all(np.array_equal(f1[k], f2[k][0]) for k in f1)


def test_batch_equals_separate_runs():
    params, inputs, targets, (h0, c0) = _random_case(6, 5, 7, 20, seed=9)
    loss, grads, (h_last, c_last) = lstm.loss_and_grads(params, inputs, targets, (h0, c0))
    parts = [lstm.loss_and_grads(params, inputs[b], targets[b], (h0[b], c0[b])) for b in range(20)]
    assert np.isclose(loss, sum(p[0] for p in parts))
    for k in grads:
        assert np.allclose(grads[k], sum(p[1][k] for p in parts))
    assert np.allclose(h_last, np.stack([p[2][0] for p in parts]))
    assert np.allclose(c_last, np.stack([p[2][1] for p in parts]))


def test_float32_works_and_agrees_with_float64():
    p64, inputs, targets, (h0, c0) = _random_case(9, 8, 6, 4, seed=10)
    p32 = {k: v.astype(np.float32) for k, v in p64.items()}
    assert all(
        np.array_equal(
            lstm.init_params(9, 8, seed=3)[k].astype(np.float32), lstm.init_params(9, 8, seed=3, dtype=np.float32)[k]
        )
        for k in p64
    )
    l64, g64, (h64, c64) = lstm.loss_and_grads(p64, inputs, targets, (h0, c0))
    l32, g32, (h32, c32) = lstm.loss_and_grads(p32, inputs, targets, (h0.astype(np.float32), c0.astype(np.float32)))
    assert isinstance(l32, float)
    assert h32.dtype == c32.dtype == np.float32 and all(g.dtype == np.float32 for g in g32.values())
    assert np.isclose(l32, l64, rtol=1e-5)
    assert all(rel_error(g32[k], g64[k]) < 1e-5 for k in g64)
    assert rel_error(h32, h64) < 1e-6 and rel_error(c32, c64) < 1e-6


def test_state_carried_across_two_windows_equals_one_long_window():
    params, inputs, targets, state0 = _random_case(5, 4, 10, 3, seed=12)
    loss, (h, c) = lstm.sequence_loss(params, inputs, targets, state0)
    loss1, mid = lstm.sequence_loss(params, inputs[:, :6], targets[:, :6], state0)
    loss2, (h2, c2) = lstm.sequence_loss(params, inputs[:, 6:], targets[:, 6:], mid)
    assert np.isclose(loss, loss1 + loss2)
    assert np.allclose(h, h2) and np.allclose(c, c2)
    # and the gradient's loss and final state agree with the same split
    l1, _, mid_g = lstm.loss_and_grads(params, inputs[:, :6], targets[:, :6], state0)
    l2, _, (h3, c3) = lstm.loss_and_grads(params, inputs[:, 6:], targets[:, 6:], mid_g)
    assert np.isclose(loss, l1 + l2) and np.allclose(h, h3) and np.allclose(c, c3)


def test_results_are_new_arrays_not_reused_buffers():
    params, inputs, targets, state0 = _random_case(5, 4, 6, 2, seed=13)
    out = lstm.forward(params, inputs, state0)
    _, grads, last = lstm.loss_and_grads(params, inputs, targets, state0)
    kept = ({k: v.copy() for k, v in out.items()}, {k: v.copy() for k, v in grads.items()}, [a.copy() for a in last])
    other = _random_case(5, 4, 6, 2, seed=14)
    lstm.forward(other[0], other[1], other[3])
    lstm.loss_and_grads(*other)
    assert all(np.array_equal(out[k], kept[0][k]) for k in out)
    assert all(np.array_equal(grads[k], kept[1][k]) for k in grads)
    assert all(np.array_equal(a, b) for a, b in zip(last, kept[2]))
    one = lstm.forward(params, inputs[0], (state0[0][0], state0[1][0]))  # one sequence: (T, 1, .) buffers
    h_kept = one["h"].copy()
    lstm.forward(other[0], other[1][0])
    assert np.array_equal(one["h"], h_kept)


def test_the_reused_workspace_changes_no_result():
    """loss_and_grads keeps its loop arrays between calls: a repeat, a call between of another
    shape, and two threads at once all give the first call's numbers exactly."""
    # two of one shape, big enough that numpy lets other threads run during its loops; one of another
    cases = [
        _random_case(20, 64, 40, 8, seed=20),
        _random_case(20, 64, 40, 8, seed=21),
        _random_case(6, 5, 4, 2, seed=22),
    ]

    def run(case):
        loss, grads, last, dstate0 = lstm.loss_and_grads(*case, return_dstate0=True)
        return loss, grads, [*last, *dstate0]

    def same(a, b):
        return (
            a[0] == b[0]
            and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])
            and all(np.array_equal(x, y) for x, y in zip(a[2], b[2]))
        )

    first = [run(case) for case in cases]
    assert same(run(cases[0]), first[0])  # the workspace holds the other shape's arrays now
    assert same(run(cases[1]), first[1])  # the same shape again: the arrays are reused
    results = [None] * 4

    def worker(k):
        results[k] = [run(cases[k % 2]) for _ in range(10)]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(same(r, first[k % 2]) for k, rs in enumerate(results) for r in rs)


# -- structural facts: what the gates do ----------------------------------------------------------


def _gate_rows(H, gate):
    k = lstm.GATES.index(gate)
    return slice(k * H, (k + 1) * H)


def test_open_forget_gate_and_shut_input_gate_carry_the_cell_unchanged():
    V, H, T = 6, 5, 200
    params, inputs, targets, (h0, c0) = _random_case(V, H, T, 3, seed=15)
    params["b"][_gate_rows(H, "f")] = 50.0  # f = sigmoid(50 + ...) = 1 in float64
    params["b"][_gate_rows(H, "i")] = -50.0  # i = 0
    out = lstm.forward(params, inputs, (h0, c0))
    assert np.array_equal(out["f"], np.ones_like(out["f"])) and np.array_equal(out["i"], np.zeros_like(out["i"]))
    assert np.array_equal(out["c"], np.broadcast_to(c0[:, None, :], out["c"].shape))  # c_t = c_0 at every step
    _, (h_last, c_last) = lstm.sequence_loss(params, inputs, targets, (h0, c0))
    assert np.array_equal(c_last, c0)
    assert np.allclose(h_last, out["o"][:, -1] * np.tanh(c0))  # what the cell holds still shows in h


def test_cell_gradient_survives_many_steps_when_the_forget_gate_is_open():
    """dL_T/dc_0 for a loss at the last step only: f = 1, i = 0 keep it at full size after 200 steps."""
    V, H, T = 6, 5, 200
    params, inputs, targets, (h0, c0) = _random_case(V, H, T, None, seed=16)
    params["W_h"][:] = 0.0  # h_{t-1} does not reach the gates: the cell path is the only way back
    params["b"][_gate_rows(H, "f")] = 50.0
    params["b"][_gate_rows(H, "i")] = -50.0

    _, _, _, (_, dc0_all) = lstm.loss_and_grads(params, inputs, targets, (h0, c0), return_dstate0=True)
    _, _, _, (_, dc0_but_last) = lstm.loss_and_grads(params, inputs[:-1], targets[:-1], (h0, c0), return_dstate0=True)
    dc0 = dc0_all - dc0_but_last  # dL_T / dc_0
    # the same as dL_T/dc_T: h_T = o_T tanh(c_T) with c_T = c_0
    out = lstm.forward(params, inputs, (h0, c0))
    dh_T = params["W_yh"].T @ (out["p"][-1] - rnn_core.one_hot(targets[-1], V))
    dc_T = dh_T * out["o"][-1] * (1 - np.tanh(out["c"][-1]) ** 2)
    assert np.allclose(dc0, dc_T, atol=1e-12)
    assert np.abs(dc0).max() > 1e-3


def test_shut_output_gate_hides_the_cell():
    V, H = 7, 4
    params, inputs, targets, state0 = _random_case(V, H, 8, 2, seed=17)
    params["b"][_gate_rows(H, "o")] = -50.0  # o = 0: h_t = 0, whatever the cell holds
    out = lstm.forward(params, inputs, state0)
    assert np.array_equal(out["h"], np.zeros_like(out["h"]))
    assert np.abs(out["c"]).max() > 0.1
    assert np.allclose(out["logits"], np.broadcast_to(params["b_o"], out["logits"].shape))
    assert np.allclose(out["p"], rnn_core.softmax(params["b_o"]))


def test_without_recurrent_weights_each_step_sees_only_its_input_and_the_cell_adds_up():
    V, H, T = 5, 3, 6
    params, _, _, _ = _random_case(V, H, T, None, seed=18)
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


def test_sigmoid():
    a = np.linspace(-30, 30, 121)
    assert np.allclose(lstm.sigmoid(a), 1 / (1 + np.exp(-a)), rtol=1e-12, atol=1e-15)
    with np.errstate(all="raise"):  # no overflow at extreme pre-activations, even in float32
        s = lstm.sigmoid(np.array([-1000.0, 1000.0], np.float32))
    assert s.tolist() == [0.0, 1.0]


# -- initialisation ------------------------------------------------------------------------------


def test_init_params_is_seeded_sized_and_as_documented():
    V, H = 7, 6
    a, b = lstm.init_params(V, H, seed=1), lstm.init_params(V, H, seed=1)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["W_h"], lstm.init_params(V, H, seed=2)["W_h"])
    assert {k: v.shape for k, v in a.items()} == lstm.param_shapes(V, H)
    assert lstm.count_params(V, H) == sum(v.size for v in a.values()) == 4 * H * (V + H + 1) + V * H + V
    for k in range(4):  # each gate's recurrent block is orthogonal
        block = a["W_h"][k * H : (k + 1) * H]
        assert np.allclose(block @ block.T, np.eye(H))
    assert np.array_equal(a["b"][_gate_rows(H, "f")], np.ones(H))  # forget bias 1
    assert not a["b"][_gate_rows(H, "i")].any() and not a["b"][2 * H :].any() and not a["b_o"].any()
    assert np.array_equal(lstm.init_params(V, H, forget_bias=2.5)["b"][_gate_rows(H, "f")], np.full(H, 2.5))


# -- bad input ------------------------------------------------------------------------------------


def _p():
    return lstm.init_params(5, 4)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: ({k: v for k, v in _p().items() if k != "W_h"}, [0], [1], None), ValueError, "missing W_h"),
        (lambda: ([1, 2], [0], [1], None), TypeError, "must be a dict"),
        (lambda: (rnn_core.init_params(5, 4), [0], [1], None), ValueError, "missing W_x, W_h, b"),
        (
            lambda: ({**_p(), "W_h": np.zeros((16, 3))}, [0], [1], None),
            ValueError,
            r"W_h has shape \(16, 3\).*must be \(16, 4\)",
        ),
        (lambda: ({**_p(), "b": np.zeros(4)}, [0], [1], None), ValueError, r"b has shape \(4,\).*must be \(16,\)"),
        (lambda: ({**_p(), "b_o": np.zeros(4)}, [0], [1], None), ValueError, "b_o has shape"),
        (lambda: ({**_p(), "W_yh": np.zeros((4, 5))}, [0], [1], None), ValueError, r"W_yh .* must be \(5, 4\)"),
        (lambda: ({**_p(), "W_x": np.zeros((15, 5))}, [0], [1], None), ValueError, r"W_x must have shape \(4H, V\)"),
        (lambda: ({**_p(), "W_yh": [[0.0]]}, [0], [1], None), TypeError, "numpy array"),
        (
            lambda: ({**_p(), "b": np.zeros(16, np.float32)}, [0], [1], None),
            TypeError,
            "must all be float32 or all float64",
        ),
        (lambda: ({**_p(), "W_h": np.full((16, 4), np.nan)}, [0], [1], None), ValueError, "W_h contains NaN"),
        (lambda: (_p(), [0, 5], [1, 1], None), ValueError, "outside the vocabulary"),
        (lambda: (_p(), [0, 1], [1, -1], None), ValueError, "outside the vocabulary"),
        (lambda: (_p(), [0, 1, 2], [1, 2], None), ValueError, "same shape"),
        (lambda: (_p(), np.zeros(0, int), np.zeros(0, int), None), ValueError, "empty"),
        (lambda: (_p(), [0.0, 1.0], [1, 2], None), TypeError, "integer array"),
        (lambda: (_p(), np.array(["a"]), [1], None), TypeError, "encode text first"),
        (lambda: (_p(), np.zeros((1, 2, 3), int), np.zeros((1, 2, 3), int), None), ValueError, r"\(T,\) or \(B, T\)"),
        (lambda: (_p(), [0, 1], [1, 2], np.zeros(4)), TypeError, r"state0 must be None or a pair \(h0, c0\)"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(4),)), TypeError, "state0 must be None or a pair"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(3), np.zeros(4))), ValueError, r"h0 must have shape \(4,\)"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(4), np.zeros(5))), ValueError, r"c0 must have shape \(4,\)"),
        (
            lambda: (_p(), [[0, 1]] * 2, [[1, 2]] * 2, (np.zeros((2, 4)), np.zeros(4))),
            ValueError,
            r"c0 must have shape \(2, 4\)",
        ),
        (lambda: (_p(), [0, 1], [1, 2], (np.array([0, 0, np.inf, 0]), np.zeros(4))), ValueError, "h0 contains"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(4), np.array([0, np.nan, 0, 0]))), ValueError, "c0 contains"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(4), np.zeros(4, int))), TypeError, "c0 must be a float"),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, match):
    params, inputs, targets, state0 = make()
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    with pytest.raises(error, match=match):
        lstm.loss_and_grads(params, inputs, targets, state0)
    with pytest.raises(error, match=match):
        lstm.sequence_loss(params, inputs, targets, state0)


def test_forward_checks_its_input_too():
    with pytest.raises(ValueError, match="outside the vocabulary"):
        lstm.forward(_p(), np.array([7]))
    with pytest.raises(TypeError, match="state0"):
        lstm.forward(_p(), np.array([0]), state0=np.zeros(4))


def test_bad_init_arguments():
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        lstm.init_params(5, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        lstm.init_params(5.0, 3)
    with pytest.raises(TypeError, match="dtype"):
        lstm.init_params(5, 3, dtype=np.int32)
    with pytest.raises(TypeError, match="forget_bias"):
        lstm.init_params(5, 3, forget_bias="1")
    with pytest.raises(ValueError, match="recurrent_scale"):
        lstm.init_params(5, 3, recurrent_scale=0)


def test_recurrent_scale_scales_each_gate_block():
    a, b = lstm.init_params(6, 4, seed=3), lstm.init_params(6, 4, seed=3, recurrent_scale=0.5)
    assert np.allclose(b["W_h"], 0.5 * a["W_h"])
    assert all(np.array_equal(a[k], b[k]) for k in ("W_x", "b", "W_yh", "b_o"))


# -- using a trained LSTM: sampling and bits per character take either cell -----------------------


def _lstm_and_vocab(seed=4):
    vocab = rnn_core.Vocabulary("abcde")
    params, _, _, _ = _random_case(vocab.size, 6, 1, None, seed=seed)
    params["W_yh"] *= 4.0  # sharper predictions, so greedy sampling is far from ties
    return params, vocab


def test_next_char_probs_of_an_lstm_is_the_softmax_of_its_last_logits():
    params, vocab = _lstm_and_vocab()
    prime = "abcaed"[:5]
    out = lstm.forward(params, vocab.encode(prime))
    assert np.allclose(rnn_core.next_char_probs(params, vocab, prime), rnn_core.softmax(out["logits"][-1]))
    assert np.allclose(
        rnn_core.next_char_probs(params, vocab, prime, temperature=2.0), rnn_core.softmax(out["logits"][-1] / 2.0)
    )


def test_sampling_an_lstm_feeds_each_character_back_with_h_and_c_carried():
    params, vocab = _lstm_and_vocab()
    text = rnn_core.sample(params, vocab, "ab", 12, temperature=0)  # greedy: the most likely each time
    ids = list(vocab.encode("ab"))
    for _ in range(12):  # greedy by hand, rerunning the whole sequence each time
        ids.append(int(np.argmax(lstm.forward(params, np.array(ids))["logits"][-1])))
    assert text == vocab.decode(np.array(ids[2:]))
    assert rnn_core.sample(params, vocab, "ab", 40, seed=1) == rnn_core.sample(params, vocab, "ab", 40, seed=1)
    assert rnn_core.sample(params, vocab, "ab", 40, seed=1) != rnn_core.sample(params, vocab, "ab", 40, seed=2)


def test_bits_per_char_of_an_lstm_carries_h_and_c_across_windows():
    params, vocab = _lstm_and_vocab()
    ids = np.random.default_rng(5).integers(0, vocab.size, 301)
    whole = lstm.sequence_loss(params, ids[:-1], ids[1:])[0] / 300 / np.log(2)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=300), whole)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=7), whole)  # state carried: the same figure
    X, Y = ids[:300].reshape(3, 100), ids[1:301].reshape(3, 100)
    assert np.isclose(
        rnn_core.bits_per_char(params, ids, n_streams=3, window=9),
        lstm.sequence_loss(params, X, Y)[0] / 300 / np.log(2),
    )


def test_the_cell_is_told_from_the_parameters_names():
    from rnn_core.cells import cell_of, check_cell_params

    assert cell_of(lstm.init_params(5, 3)) == "lstm" and cell_of(rnn_core.init_params(5, 3)) == "rnn"
    with pytest.raises(ValueError, match="missing W_h"):  # an LSTM missing a part: the LSTM's message
        rnn_core.sample(
            {k: v for k, v in lstm.init_params(5, 3).items() if k != "W_h"}, rnn_core.Vocabulary("abcde"), "a", 3
        )
    with pytest.raises(ValueError, match="cell must be one of 'rnn', 'lstm', 'gru', got 'tree'"):
        check_cell_params(lstm.init_params(5, 3), "tree")
    with pytest.raises(ValueError, match="vocabulary has 4 characters but the parameters expect V=5"):
        rnn_core.sample(lstm.init_params(5, 3), rnn_core.Vocabulary("abcd"), "a", 3)
