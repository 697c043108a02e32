"""The GRU (rnn_core.gru): exact gradients, structural facts, agreement with a plain reference and with
PyTorch's nn.GRU, bad input."""

import threading

import numpy as np
import pytest

import rnn_core
from rnn_core import GRADCHECK_TOL, check_gradients, gru, rel_error

SIZES = [(2, 1, 1), (5, 3, 4), (7, 6, 9), (4, 8, 3), (3, 5, 1)]  # (V, H, T): H < V, H > V, T = 1


def _random_case(V, H, T, batch, seed, dtype=np.float64):
    """Parameters with every term switched on (nonzero biases), inputs, targets and a nonzero state."""
    rng = np.random.default_rng(seed)
    params = gru.init_params(V, H, seed=seed, dtype=dtype)
    params["b"] = (rng.standard_normal(3 * H) * 0.5).astype(dtype)
    params["b_o"] = (rng.standard_normal(V) * 0.2).astype(dtype)
    shape = (T,) if batch is None else (batch, T)
    inputs, targets = rng.integers(0, V, shape), rng.integers(0, V, shape)
    h0 = rng.uniform(-0.9, 0.9, shape[:-1] + (H,)).astype(dtype)
    return params, inputs, targets, h0


@pytest.mark.parametrize("V, H, T", SIZES)
@pytest.mark.parametrize("batch", [None, 3])
def test_gradients_match_finite_differences(V, H, T, batch):
    errors = check_gradients(*_random_case(V, H, T, batch, seed=V * 100 + H * 10 + T))
    assert set(errors) == {"W_x", "W_h", "b", "W_yh", "b_o", "h0"}
    assert max(errors.values()) < GRADCHECK_TOL, errors


# -- an independent reference: one sequence, one step at a time, column vectors --------------------


def _reference(params, inputs, targets, h0):
    """The GRU written out plainly (exp-based sigmoid, one-hot columns, each gate's blocks by name),
    forward and backward. Returns (loss, grads, h_T, dh0) for one sequence."""
    H, V = params["W_h"].shape[1], params["W_x"].shape[1]
    blocks = {}
    for k, gate in enumerate("rzn"):
        rows = slice(k * H, (k + 1) * H)
        blocks[f"W_x{gate}"], blocks[f"W_h{gate}"] = params["W_x"][rows], params["W_h"][rows]
        blocks[f"b_{gate}"] = params["b"][rows, None]
    W_yh, b_o = params["W_yh"], params["b_o"][:, None]

    def sig(a):
        return 1.0 / (1.0 + np.exp(-a))

    steps, h, loss = [], h0[:, None], 0.0
    for x_t, y_t in zip(inputs, targets):
        x = np.zeros((V, 1))
        x[x_t] = 1.0
        r = sig(blocks["W_xr"] @ x + blocks["W_hr"] @ h + blocks["b_r"])
        z = sig(blocks["W_xz"] @ x + blocks["W_hz"] @ h + blocks["b_z"])
        m = blocks["W_hn"] @ h
        n = np.tanh(blocks["W_xn"] @ x + r * m + blocks["b_n"])
        h_new = z * h + (1 - z) * n
        logits = W_yh @ h_new + b_o
        p = np.exp(logits - logits.max())
        p /= p.sum()
        loss -= np.log(p[y_t, 0])
        steps.append(dict(x=x, y=y_t, h_prev=h, r=r, z=z, m=m, n=n, h=h_new, p=p))
        h = h_new
    g = {k: np.zeros_like(v) for k, v in blocks.items()}
    dW_yh, db_o, dh_next = np.zeros_like(W_yh), np.zeros(len(b_o)), np.zeros((H, 1))
    for s in reversed(steps):
        dlogits = s["p"].copy()
        dlogits[s["y"]] -= 1.0
        dW_yh += dlogits @ s["h"].T
        db_o += dlogits[:, 0]
        dh = W_yh.T @ dlogits + dh_next
        dn, dz = dh * (1 - s["z"]), dh * (s["h_prev"] - s["n"])
        da_n = dn * (1 - s["n"] ** 2)
        da_r = da_n * s["m"] * s["r"] * (1 - s["r"])
        da_z = dz * s["z"] * (1 - s["z"])
        for gate, da in (("r", da_r), ("z", da_z), ("n", da_n)):
            g[f"W_x{gate}"] += da @ s["x"].T
            g[f"b_{gate}"] += da
        g["W_hr"] += da_r @ s["h_prev"].T
        g["W_hz"] += da_z @ s["h_prev"].T
        g["W_hn"] += (da_n * s["r"]) @ s["h_prev"].T
        dh_next = dh * s["z"] + blocks["W_hr"].T @ da_r + blocks["W_hz"].T @ da_z + blocks["W_hn"].T @ (da_n * s["r"])
    grads = {
        "W_x": np.vstack([g["W_xr"], g["W_xz"], g["W_xn"]]),
        "W_h": np.vstack([g["W_hr"], g["W_hz"], g["W_hn"]]),
        "b": np.vstack([g["b_r"], g["b_z"], g["b_n"]])[:, 0],
        "W_yh": dW_yh,
        "b_o": db_o,
    }
    return loss, grads, h[:, 0], dh_next[:, 0]


@pytest.mark.parametrize("batch", [None, 4])
@pytest.mark.parametrize("fast", [True, False])
def test_agrees_with_a_plain_per_step_reference(batch, fast):
    params, inputs, targets, h0 = _random_case(6, 5, 7, batch, seed=11)
    loss, grads, h_T, dh0 = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True, fast=fast)
    rows = [(inputs, targets, h0)] if batch is None else list(zip(inputs, targets, h0))
    refs = [_reference(params, *row) for row in rows]
    assert abs(loss - sum(r[0] for r in refs)) < 1e-12 * loss
    for k in grads:
        assert rel_error(grads[k], sum(r[1][k] for r in refs)) < 1e-12, k
    squeeze = (lambda a: a[0]) if batch is None else (lambda a: a)
    assert rel_error(h_T, squeeze(np.stack([r[2] for r in refs]))) < 1e-12
    assert rel_error(dh0, squeeze(np.stack([r[3] for r in refs]))) < 1e-12


def test_step_functions_agree_with_the_sequence_functions():
    params, inputs, targets, h0 = _random_case(6, 4, 5, None, seed=5)
    out = gru.forward(params, inputs, h0)
    h, caches = h0, []
    for x_t in inputs:
        h, cache = gru.step_forward(params, int(x_t), h)
        caches.append(cache)
    for gate in gru.GATES:
        assert np.array_equal(np.array([k[gate] for k in caches]), out[gate])
    assert np.array_equal(h, out["h"][-1])
    # backward one step at a time: the output layer's share first, then step_backward from t = T down to 1
    loss, grads, _, dh0 = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    dlogits = out["p"] - rnn_core.one_hot(targets, 6)
    total = {k: np.zeros_like(v) for k, v in params.items()}
    total["W_yh"], total["b_o"] = dlogits.T @ out["h"], dlogits.sum(axis=0)
    dh_next = np.zeros(4)
    for t in reversed(range(5)):
        dh_next, g = gru.step_backward(params, params["W_yh"].T @ dlogits[t] + dh_next, caches[t])
        for k in g:
            total[k] += g[k]
    for k in grads:
        assert rel_error(total[k], grads[k]) < 1e-12, k
    assert rel_error(dh_next, dh0) < 1e-12


def test_step_functions_take_a_batch():
    params, inputs, _, h0 = _random_case(5, 3, 1, 4, seed=6)
    h, cache = gru.step_forward(params, inputs[:, 0], h0)
    out = gru.forward(params, inputs, h0)
    assert h.shape == cache["r"].shape == (4, 3)
    assert np.array_equal(h, out["h"][:, 0])
    dh_prev, grads = gru.step_backward(params, np.ones((4, 3)), cache)
    assert dh_prev.shape == (4, 3) and {k: v.shape for k, v in grads.items()} == {
        "W_x": (9, 5),
        "W_h": (9, 3),
        "b": (9,),
    }


def test_loaded_into_pytorch_it_is_nn_gru():
    """Our weights in torch.nn.GRU (bias_ih = b, bias_hh = 0): the same loss, states and gradients."""
    torch = pytest.importorskip("torch")
    V, H = 7, 5
    params, inputs, targets, h0 = _random_case(V, H, 6, 3, seed=30)
    loss, grads, h_T, dh0 = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    net, head = torch.nn.GRU(V, H, batch_first=True).double(), torch.nn.Linear(H, V).double()
    with torch.no_grad():
        for theirs, ours in (
            (net.weight_ih_l0, "W_x"),
            (net.weight_hh_l0, "W_h"),
            (net.bias_ih_l0, "b"),
            (head.weight, "W_yh"),
            (head.bias, "b_o"),
        ):
            theirs.copy_(torch.from_numpy(params[ours]))
        net.bias_hh_l0.zero_()
    h0_t = torch.from_numpy(h0)[None].clone().requires_grad_(True)
    out, h_last = net(torch.nn.functional.one_hot(torch.from_numpy(inputs), V).double(), h0_t)
    total = torch.nn.functional.cross_entropy(
        head(out).reshape(-1, V), torch.from_numpy(targets).reshape(-1), reduction="sum"
    )
    total.backward()
    assert abs(total.item() - loss) < 1e-12 * loss
    assert rel_error(out.detach().numpy(), gru.forward(params, inputs, h0)["h"]) < 1e-12
    assert rel_error(h_last[0].detach().numpy(), h_T) < 1e-12 and rel_error(h0_t.grad[0].numpy(), dh0) < 1e-12
    for theirs, ours in (
        (net.weight_ih_l0, "W_x"),
        (net.weight_hh_l0, "W_h"),
        (net.bias_ih_l0, "b"),
        (head.weight, "W_yh"),
        (head.bias, "b_o"),
    ):
        assert rel_error(theirs.grad.numpy(), grads[ours]) < 1e-12, ours


# -- the three entry points, shapes, dtypes, carried state ----------------------------------------


def test_forward_sequence_loss_and_loss_and_grads_agree():
    params, inputs, targets, h0 = _random_case(7, 5, 6, 3, seed=7)
    out = gru.forward(params, inputs, h0)
    rows = np.arange(3)[:, None], np.arange(6)[None, :]
    from_forward = -np.log(out["p"][rows[0], rows[1], targets]).sum()
    loss_a, h_a = gru.sequence_loss(params, inputs, targets, h0)
    loss_b, _, h_b = gru.loss_and_grads(params, inputs, targets, h0)
    assert np.isclose(loss_a, from_forward) and np.isclose(loss_b, from_forward)
    assert np.isclose(loss_b, rnn_core.cross_entropy(out["logits"].reshape(-1, 7), targets.reshape(-1)))
    # forward loops over step_forward; the other two run the fused loops: the same numbers up to rounding
    assert rel_error(h_a, out["h"][:, -1]) < 1e-12 and rel_error(h_b, out["h"][:, -1]) < 1e-12


def test_shapes_and_types():
    params = gru.init_params(5, 4)
    loss, grads, h_last = gru.loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]))
    assert isinstance(loss, float) and h_last.shape == (4,)
    assert {k: g.shape for k, g in grads.items()} == {k: p.shape for k, p in params.items()}
    out = gru.forward(params, np.zeros((2, 3), int))
    assert {k: v.shape for k, v in out.items()} == {
        **{k: (2, 3, 4) for k in ("r", "z", "n", "h")},
        "logits": (2, 3, 5),
        "p": (2, 3, 5),
        "h0": (2, 4),
    }
    *_, dh0 = gru.loss_and_grads(params, np.zeros((2, 3), int), np.zeros((2, 3), int), return_dstate0=True)
    assert dh0.shape == (2, 4)


def test_one_sequence_equals_a_batch_of_one():
    params, inputs, targets, h0 = _random_case(6, 5, 4, None, seed=8)
    loss1, g1, h1, dh1 = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    loss2, g2, h2, dh2 = gru.loss_and_grads(params, inputs[None], targets[None], h0[None], return_dstate0=True)
    assert loss1 == loss2 and all(np.array_equal(g1[k], g2[k]) for k in g1)
    assert np.array_equal(h1, h2[0]) and np.array_equal(dh1, dh2[0])
    f1, f2 = gru.forward(params, inputs, h0), gru.forward(params, inputs[None], h0[None])
    assert all(np.array_equal(f1[k], f2[k][0]) for k in f1)


def test_batch_equals_separate_runs():
    params, inputs, targets, h0 = _random_case(6, 5, 7, 20, seed=9)
    loss, grads, h_last = gru.loss_and_grads(params, inputs, targets, h0)
    parts = [gru.loss_and_grads(params, inputs[b], targets[b], h0[b]) for b in range(20)]
    assert np.isclose(loss, sum(p[0] for p in parts))
    for k in grads:
        assert np.allclose(grads[k], sum(p[1][k] for p in parts))
    assert np.allclose(h_last, np.stack([p[2] for p in parts]))


def test_float32_works_and_agrees_with_float64():
    p64, inputs, targets, h0 = _random_case(9, 8, 6, 4, seed=10)
    p32 = {k: v.astype(np.float32) for k, v in p64.items()}
    same_draws = gru.init_params(9, 8, seed=3, dtype=np.float32)
    assert all(np.array_equal(gru.init_params(9, 8, seed=3)[k].astype(np.float32), same_draws[k]) for k in p64)
    l64, g64, h64 = gru.loss_and_grads(p64, inputs, targets, h0)
    l32, g32, h32 = gru.loss_and_grads(p32, inputs, targets, h0.astype(np.float32))
    assert isinstance(l32, float) and h32.dtype == np.float32 and all(g.dtype == np.float32 for g in g32.values())
    assert np.isclose(l32, l64, rtol=1e-5)
    assert all(rel_error(g32[k], g64[k]) < 1e-5 for k in g64) and rel_error(h32, h64) < 1e-6


def test_state_carried_across_two_windows_equals_one_long_window():
    params, inputs, targets, h0 = _random_case(5, 4, 10, 3, seed=12)
    loss, h = gru.sequence_loss(params, inputs, targets, h0)
    loss1, mid = gru.sequence_loss(params, inputs[:, :6], targets[:, :6], h0)
    loss2, h2 = gru.sequence_loss(params, inputs[:, 6:], targets[:, 6:], mid)
    assert np.isclose(loss, loss1 + loss2) and np.allclose(h, h2)
    l1, _, mid_g = gru.loss_and_grads(params, inputs[:, :6], targets[:, :6], h0)
    l2, _, h3 = gru.loss_and_grads(params, inputs[:, 6:], targets[:, 6:], mid_g)
    assert np.isclose(loss, l1 + l2) and np.allclose(h, h3)


def test_results_are_new_arrays_not_reused_buffers():
    params, inputs, targets, h0 = _random_case(5, 4, 6, 2, seed=13)
    _, grads, h_last, dh0 = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    kept = ({k: v.copy() for k, v in grads.items()}, h_last.copy(), dh0.copy())
    other = _random_case(5, 4, 6, 2, seed=14)
    gru.loss_and_grads(*other)  # same shapes: the same workspace
    assert all(np.array_equal(grads[k], kept[0][k]) for k in grads)
    assert np.array_equal(h_last, kept[1]) and np.array_equal(dh0, kept[2])


def test_the_reused_workspace_changes_no_result():
    """loss_and_grads keeps its loop arrays between calls: a repeat, a call between of another
    shape, and two threads at once all give the first call's numbers exactly."""
    cases = [
        _random_case(20, 64, 40, 8, seed=20),
        _random_case(20, 64, 40, 8, seed=21),
        _random_case(6, 5, 4, 2, seed=22),
    ]

    def run(case):
        loss, grads, h_last, dh0 = gru.loss_and_grads(*case, return_dstate0=True)
        return loss, grads, [h_last, dh0]

    def same(a, b):
        return (
            a[0] == b[0]
            and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])
            and all(np.array_equal(x, y) for x, y in zip(a[2], b[2]))
        )

    first = [run(case) for case in cases]
    assert same(run(cases[0]), first[0]) and same(run(cases[1]), first[1])
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
    k = gru.GATES.index(gate)
    return slice(k * H, (k + 1) * H)


def test_a_shut_update_gate_writes_nothing_and_the_gradient_reaches_h0_whole():
    """z = 1 (its bias +50): h_t = h_{t-1} at every step, and dL_T/dh_0 = dL_T/dh_T exactly: the direct path."""
    V, H, T = 6, 5, 200
    params, inputs, targets, h0 = _random_case(V, H, T, None, seed=15)
    params["b"][_gate_rows(H, "z")] = 50.0  # z = sigmoid(50 + ...) = 1 in float64
    out = gru.forward(params, inputs, h0)
    assert np.array_equal(out["z"], np.ones_like(out["z"]))
    assert np.array_equal(out["h"], np.broadcast_to(h0, out["h"].shape))  # h_t = h_0 at every step
    _, _, _, dh0_all = gru.loss_and_grads(params, inputs, targets, h0, return_dstate0=True)
    _, _, _, dh0_but_last = gru.loss_and_grads(params, inputs[:-1], targets[:-1], h0, return_dstate0=True)
    dh_T = params["W_yh"].T @ (out["p"][-1] - rnn_core.one_hot(targets[-1], V))
    assert np.allclose(dh0_all - dh0_but_last, dh_T, atol=1e-12)  # undiminished after 200 steps
    assert np.abs(dh_T).max() > 1e-3


def test_an_open_update_gate_and_a_shut_reset_gate_leave_no_memory():
    """z = 0 and r = 0: h_t = n_t = tanh(W_xn x_t + b_n), a function of the input alone."""
    V, H, T = 5, 3, 6
    params, _, _, _ = _random_case(V, H, T, None, seed=18)
    params["b"][_gate_rows(H, "z")] = -50.0
    params["b"][_gate_rows(H, "r")] = -50.0
    inputs = np.array([[0, 1, 2, 3, 4, 0], [4, 3, 2, 1, 0, 0]])  # the two rows agree at steps 2 and 5
    out = gru.forward(params, inputs, np.full((2, H), 0.7))
    expected = np.tanh(params["W_x"][_gate_rows(H, "n")].T[inputs] + params["b"][_gate_rows(H, "n")])
    assert np.allclose(out["h"], expected, atol=1e-15)
    assert np.array_equal(out["h"][0, 2], out["h"][1, 2]) and np.array_equal(out["h"][0, 5], out["h"][1, 5])


def test_without_recurrent_weights_the_gates_see_only_the_input_and_h_mixes_old_and_new():
    V, H, T = 5, 3, 6
    params, _, _, _ = _random_case(V, H, T, None, seed=19)
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


# -- initialisation ------------------------------------------------------------------------------


def test_init_params_is_seeded_sized_and_as_documented():
    V, H = 7, 6
    a, b = gru.init_params(V, H, seed=1), gru.init_params(V, H, seed=1)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["W_h"], gru.init_params(V, H, seed=2)["W_h"])
    assert {k: v.shape for k, v in a.items()} == gru.param_shapes(V, H)
    assert gru.count_params(V, H) == sum(v.size for v in a.values()) == 3 * H * (V + H + 1) + V * H + V
    for k in range(3):  # each gate's recurrent block is orthogonal
        block = a["W_h"][k * H : (k + 1) * H]
        assert np.allclose(block @ block.T, np.eye(H))
    assert not a["b"].any() and not a["b_o"].any()
    with_bias = gru.init_params(V, H, update_bias=1.0)["b"]
    assert (
        np.array_equal(with_bias[_gate_rows(H, "z")], np.ones(H)) and not np.delete(with_bias, _gate_rows(H, "z")).any()
    )
    scaled = gru.init_params(V, H, seed=1, recurrent_scale=0.5)
    assert np.allclose(scaled["W_h"], 0.5 * a["W_h"]) and all(
        np.array_equal(a[k], scaled[k]) for k in ("W_x", "b", "W_yh")
    )


def test_bad_init_arguments():
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        gru.init_params(5, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        gru.init_params(5.0, 3)
    with pytest.raises(TypeError, match="dtype"):
        gru.init_params(5, 3, dtype=np.int32)
    with pytest.raises(TypeError, match="update_bias"):
        gru.init_params(5, 3, update_bias="1")
    with pytest.raises(ValueError, match="recurrent_scale"):
        gru.init_params(5, 3, recurrent_scale=0)


# -- bad input ------------------------------------------------------------------------------------


def _p():
    return gru.init_params(5, 4)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: ({k: v for k, v in _p().items() if k != "W_h"}, [0], [1], None), ValueError, "missing W_h"),
        (lambda: ([1, 2], [0], [1], None), TypeError, "must be a dict"),
        (lambda: (rnn_core.init_params(5, 4), [0], [1], None), ValueError, "missing W_x, W_h, b"),
        (
            lambda: ({**_p(), "W_h": np.zeros((12, 3))}, [0], [1], None),
            ValueError,
            r"W_h has shape \(12, 3\).*must be \(12, 4\)",
        ),
        (lambda: ({**_p(), "b": np.zeros(4)}, [0], [1], None), ValueError, r"b has shape \(4,\).*must be \(12,\)"),
        (lambda: ({**_p(), "W_x": np.zeros((13, 5))}, [0], [1], None), ValueError, r"W_x must have shape \(3H, V\)"),
        (lambda: ({**_p(), "W_yh": np.zeros((4, 5))}, [0], [1], None), ValueError, r"W_yh .* must be \(5, 4\)"),
        (
            lambda: ({**_p(), "b": np.zeros(12, np.float32)}, [0], [1], None),
            TypeError,
            "must all be float32 or all float64",
        ),
        (lambda: ({**_p(), "W_h": np.full((12, 4), np.nan)}, [0], [1], None), ValueError, "W_h contains NaN"),
        (lambda: (_p(), [0, 5], [1, 1], None), ValueError, "outside the vocabulary"),
        (lambda: (_p(), [0, 1, 2], [1, 2], None), ValueError, "same shape"),
        (lambda: (_p(), np.zeros(0, int), np.zeros(0, int), None), ValueError, "empty"),
        (lambda: (_p(), [0.0, 1.0], [1, 2], None), TypeError, "integer array"),
        (lambda: (_p(), [0, 1], [1, 2], np.zeros(3)), ValueError, r"h0 must have shape \(4,\)"),
        (lambda: (_p(), [0, 1], [1, 2], (np.zeros(4), np.zeros(4))), ValueError, r"h0 must have shape \(4,\)"),
        (lambda: (_p(), [[0, 1]] * 2, [[1, 2]] * 2, np.zeros(4)), ValueError, r"h0 must have shape \(2, 4\)"),
        (lambda: (_p(), [0, 1], [1, 2], np.array([0, 0, np.inf, 0])), ValueError, "h0 contains"),
        (lambda: (_p(), [0, 1], [1, 2], np.zeros(4, int)), TypeError, "h0 must be a float"),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, match):
    params, inputs, targets, state0 = make()
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    for call in (gru.loss_and_grads, gru.sequence_loss):
        with pytest.raises(error, match=match):
            call(params, inputs, targets, state0)


def test_forward_checks_its_input_too():
    with pytest.raises(ValueError, match="outside the vocabulary"):
        gru.forward(_p(), np.array([7]))
    with pytest.raises(ValueError, match=r"h0 must have shape \(4,\)"):
        gru.forward(_p(), np.array([0]), np.zeros(5))


# -- using a trained GRU: sampling and bits per character ------------------------------------------


def _gru_and_vocab(seed=4):
    vocab = rnn_core.Vocabulary("abcde")
    params, _, _, _ = _random_case(vocab.size, 6, 1, None, seed=seed)
    params["W_yh"] *= 4.0  # sharper predictions, so greedy sampling is far from ties
    return params, vocab


def test_sampling_a_gru_feeds_each_character_back_with_h_carried():
    params, vocab = _gru_and_vocab()
    prime = "abcae"
    out = gru.forward(params, vocab.encode(prime))
    assert np.allclose(rnn_core.next_char_probs(params, vocab, prime), rnn_core.softmax(out["logits"][-1]))
    text = rnn_core.sample(params, vocab, "ab", 12, temperature=0)  # greedy: the most likely each time
    ids = list(vocab.encode("ab"))
    for _ in range(12):  # greedy by hand, rerunning the whole sequence each time
        ids.append(int(np.argmax(gru.forward(params, np.array(ids))["logits"][-1])))
    assert text == vocab.decode(np.array(ids[2:]))
    assert rnn_core.sample(params, vocab, "ab", 40, seed=1) != rnn_core.sample(params, vocab, "ab", 40, seed=2)


def test_bits_per_char_of_a_gru_carries_h_across_windows():
    params, vocab = _gru_and_vocab()
    ids = np.random.default_rng(5).integers(0, vocab.size, 301)
    whole = gru.sequence_loss(params, ids[:-1], ids[1:])[0] / 300 / np.log(2)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=300), whole)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=7), whole)
