"""The forward pass and BPTT: exact gradients, batching, the truncated variant, bad input."""

import numpy as np
import pytest

import rnn_core
from rnn_core import forward, init_params, loss_and_grads, rel_error


def test_two_halves_equal_one_pass_and_are_deterministic():
    rng = np.random.default_rng(1)
    params = init_params(13, 16, seed=2, dtype=np.float32)
    inputs, targets = rng.integers(0, 13, (32, 10)), rng.integers(0, 13, (32, 10))
    h0 = rng.uniform(-0.5, 0.5, (32, 16)).astype(np.float32)
    l2, g2, h2 = loss_and_grads(params, inputs, targets, h0)
    again = loss_and_grads(params, inputs, targets, h0)
    assert again[0] == l2 and all(np.array_equal(again[1][k], g2[k]) for k in g2)
    halves = [loss_and_grads(params, inputs[rows], targets[rows], h0[rows]) for rows in (slice(0, 16), slice(16, 32))]
    l1, h1 = sum(r[0] for r in halves), np.concatenate([r[2] for r in halves])
    g1 = {k: halves[0][1][k] + halves[1][1][k] for k in g2}
    assert np.isclose(l1, l2, rtol=1e-6)
    # equal to rounding, not bit for bit: a BLAS kernel may sum a 16-row product in another order than
    # a 32-row one (OpenBLAS's Haswell kernels do), and the recurrence carries that difference on
    assert np.allclose(h1, h2, rtol=1e-5, atol=1e-6)
    for k in g1:
        assert np.allclose(g1[k], g2[k], rtol=1e-4, atol=1e-5)


def test_batch_equals_separate_runs():
    rng = np.random.default_rng(2)
    params = init_params(6, 5, seed=0)
    inputs, targets = rng.integers(0, 6, (20, 7)), rng.integers(0, 6, (20, 7))
    h0 = rng.uniform(-0.5, 0.5, (20, 5))
    loss, grads, h_last = loss_and_grads(params, inputs, targets, h0)
    parts = [loss_and_grads(params, inputs[b], targets[b], h0[b]) for b in range(20)]
    assert np.isclose(loss, sum(p[0] for p in parts))
    for k in grads:
        assert np.allclose(grads[k], sum(p[1][k] for p in parts))
    assert np.allclose(h_last, np.stack([p[2] for p in parts]))


def test_shapes_and_types():
    params = init_params(5, 4)
    loss, grads, h_last = loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]))
    assert isinstance(loss, float)
    assert h_last.shape == (4,)
    assert {k: g.shape for k, g in grads.items()} == {k: p.shape for k, p in params.items()}
    _, _, h_last = loss_and_grads(params, np.zeros((2, 3), int), np.zeros((2, 3), int))
    assert h_last.shape == (2, 4)
    _, _, h_last, dh0 = loss_and_grads(params, np.zeros((2, 3), int), np.zeros((2, 3), int), return_dh0=True)
    assert dh0.shape == (2, 4)


def test_float32_works_and_agrees_with_float64():
    rng = np.random.default_rng(3)
    p64 = init_params(9, 8, seed=4)
    p32 = init_params(9, 8, seed=4, dtype=np.float32)
    assert all(np.array_equal(p64[k].astype(np.float32), p32[k]) for k in p64)  # same draws
    inputs, targets = rng.integers(0, 9, (4, 6)), rng.integers(0, 9, (4, 6))
    l64, g64, _ = loss_and_grads(p64, inputs, targets)
    l32, g32, h32 = loss_and_grads(p32, inputs, targets)
    assert h32.dtype == np.float32 and all(g.dtype == np.float32 for g in g32.values())
    assert np.isclose(l32, l64, rtol=1e-5)
    assert all(rel_error(g32[k], g64[k]) < 1e-5 for k in g64)


def test_loss_is_the_sum_of_per_step_cross_entropies():
    rng = np.random.default_rng(4)
    params = init_params(5, 3, seed=1)
    inputs, targets = rng.integers(0, 5, 6), rng.integers(0, 5, 6)
    out = forward(params, inputs)
    expected = sum(rnn_core.cross_entropy(out["logits"][t], int(targets[t])) for t in range(6))
    assert np.isclose(loss_and_grads(params, inputs, targets)[0], expected)
    assert np.isclose(rnn_core.sequence_loss(params, inputs, targets)[0], expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_output_layer_is_cross_entropy_and_its_gradient(dtype):
    """The engines' fused softmax + cross-entropy gives functions.py's numbers."""
    from rnn_core.functions import cross_entropy_and_grad

    rng = np.random.default_rng(6)
    params = init_params(7, 5, seed=3, dtype=dtype)
    params["b_o"] = rng.standard_normal(7).astype(dtype)
    h = rng.uniform(-1, 1, (12, 5)).astype(dtype)
    y = rng.integers(0, 7, 12)
    o = rnn_core.output_logits(params, h)
    loss, do = cross_entropy_and_grad(o.copy(), y)  # it overwrites the logits with dL/do
    assert np.isclose(loss, rnn_core.cross_entropy(o, y), rtol=1e-6 if dtype == np.float32 else 1e-13)
    assert np.array_equal(do, rnn_core.cross_entropy_grad(o, y))
    assert cross_entropy_and_grad(o.copy(), y, grad=False) == (loss, None)


def test_step_functions_agree_with_the_sequence_functions():
    rng = np.random.default_rng(5)
    params = init_params(6, 4, seed=2)
    inputs, targets = rng.integers(0, 6, 5), rng.integers(0, 6, 5)
    out = forward(params, inputs)
    h = [np.zeros(4)]
    for t in range(5):
        h.append(rnn_core.step_forward(params, inputs[t], h[-1]))
    assert np.allclose(np.array(h[1:]), out["h"])
    # backward, one step at a time
    loss, grads, _ = loss_and_grads(params, inputs, targets)
    do = out["p"] - rnn_core.one_hot(targets, 6)
    total = {k: np.zeros_like(v) for k, v in params.items()}
    total["W_yh"] = do.T @ out["h"]
    total["b_o"] = do.sum(axis=0)
    dh_next = np.zeros(4)
    for t in reversed(range(5)):
        dh = params["W_yh"].T @ do[t] + dh_next
        dh_next, g = rnn_core.step_backward(params, dh, h[t + 1], h[t], inputs[t])
        for k in g:
            total[k] += g[k]
    for k in grads:
        assert np.allclose(total[k], grads[k]), k


# -- truncated BPTT ---------------------------------------------------------------------


def _truncated_by_definition(params, inputs, targets, h0, k):
    """Sum over t of the exact gradient of L_t alone, with the graph cut before step t-k.

    The exact gradient of L_t when h_{s-1} (s = max(0, t-k)) is a constant input is the
    full-BPTT gradient of the window s..t starting from that state, minus the same for
    the window s..t-1 (which removes the losses of the earlier steps).
    """
    T = len(inputs)
    hs = [h0] + list(forward(params, inputs, h0)["h"])
    total = {key: np.zeros_like(v) for key, v in params.items()}
    dh0 = np.zeros_like(h0)
    for t in range(T):
        s = max(0, t - k)
        _, g_to_t, _, d_to_t = loss_and_grads(params, inputs[s : t + 1], targets[s : t + 1], hs[s], return_dh0=True)
        if t > s:
            _, g_before, _, d_before = loss_and_grads(params, inputs[s:t], targets[s:t], hs[s], return_dh0=True)
        else:
            g_before, d_before = {key: 0 for key in total}, 0
        for key in total:
            total[key] += g_to_t[key] - g_before[key]
        if s == 0:
            dh0 += d_to_t - d_before
    return total, dh0


@pytest.mark.parametrize("k", [0, 1, 2, 4])
def test_truncated_bptt_matches_its_definition(k):
    rng = np.random.default_rng(10 + k)
    params = init_params(5, 4, seed=k)
    inputs, targets = rng.integers(0, 5, 8), rng.integers(0, 5, 8)
    h0 = rng.uniform(-0.5, 0.5, 4)
    _, grads, _, dh0 = loss_and_grads(params, inputs, targets, h0, bptt_truncate=k, return_dh0=True)
    expected, expected_dh0 = _truncated_by_definition(params, inputs, targets, h0, k)
    for key in grads:
        assert rel_error(grads[key], expected[key]) < 1e-10, key
    assert rel_error(dh0, expected_dh0) < 1e-10


def test_truncated_bptt_with_a_long_window_is_full_bptt_and_short_windows_are_not():
    rng = np.random.default_rng(20)
    params = init_params(5, 6, seed=3, recurrent_scale=1.5)
    inputs, targets = rng.integers(0, 5, (3, 9)), rng.integers(0, 5, (3, 9))
    full = loss_and_grads(params, inputs, targets)[1]
    same = loss_and_grads(params, inputs, targets, bptt_truncate=8)[1]
    assert all(np.allclose(full[k], same[k]) for k in full)
    short = loss_and_grads(params, inputs, targets, bptt_truncate=1)[1]
    assert rel_error(full["W_hh"], short["W_hh"]) > 1e-3
    assert np.allclose(full["W_yh"], short["W_yh"])  # the output layer is never truncated


# -- bad input ----------------------------------------------------------------------------


def _p():
    return init_params(5, 4)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: ({k: v for k, v in _p().items() if k != "W_hh"}, [0], [1], None), ValueError, "missing W_hh"),
        (lambda: ([1, 2], [0], [1], None), TypeError, "must be a dict"),
        (lambda: ({**_p(), "W_hh": np.zeros((3, 3))}, [0], [1], None), ValueError, "W_hh has shape"),
        (lambda: ({**_p(), "b_o": np.zeros(4)}, [0], [1], None), ValueError, "b_o has shape"),
        (lambda: ({**_p(), "W_yh": [[0.0]]}, [0], [1], None), TypeError, "numpy array"),
        (
            lambda: ({**_p(), "b_h": np.zeros(4, np.float32)}, [0], [1], None),
            TypeError,
            "must all be float32 or all float64",
        ),
        (lambda: ({**_p(), "b_h": np.array([0, np.nan, 0, 0])}, [0], [1], None), ValueError, "NaN"),
        (lambda: (_p(), [0, 5], [1, 1], None), ValueError, "outside the vocabulary"),
        (lambda: (_p(), [0, 1], [1, -1], None), ValueError, "outside the vocabulary"),
        (lambda: (_p(), [0, 1, 2], [1, 2], None), ValueError, "same shape"),
        (lambda: (_p(), np.zeros(0, int), np.zeros(0, int), None), ValueError, "empty"),
        (lambda: (_p(), np.zeros((2, 0), int), np.zeros((2, 0), int), None), ValueError, "empty"),
        (lambda: (_p(), [0.0, 1.0], [1, 2], None), TypeError, "integer array"),
        (lambda: (_p(), np.array(["a"]), [1], None), TypeError, "encode text first"),
        (lambda: (_p(), np.zeros((1, 2, 3), int), np.zeros((1, 2, 3), int), None), ValueError, r"\(T,\) or \(B, T\)"),
        (lambda: (_p(), [0, 1], [1, 2], np.zeros(3)), ValueError, r"h0 must have shape \(4,\)"),
        (lambda: (_p(), [[0, 1]] * 2, [[1, 2]] * 2, np.zeros(4)), ValueError, r"h0 must have shape \(2, 4\)"),
        (lambda: (_p(), [0, 1], [1, 2], np.array([0, 0, np.inf, 0])), ValueError, "h0 contains"),
        (lambda: (_p(), [0, 1], [1, 2], np.zeros(4, int)), TypeError, "h0 must be a float"),
    ],
)
def test_bad_input_gets_a_clear_error(make, error, match):
    params, inputs, targets, h0 = make()
    with pytest.raises(error, match=match):
        loss_and_grads(params, np.asarray(inputs), np.asarray(targets), h0)


def test_bad_truncation_and_init_arguments():
    with pytest.raises(ValueError, match="bptt_truncate"):
        loss_and_grads(_p(), np.array([0]), np.array([1]), bptt_truncate=-1)
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        init_params(5, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        init_params(5.0, 3)
    with pytest.raises(TypeError, match="dtype"):
        init_params(5, 3, dtype=np.int32)


def test_the_starting_state_is_state0_or_h0_and_its_gradient_dstate0_or_dh0():
    """Notebooks 03-05 name the starting state h0 and its gradient dh0; every cell calls them state0 and dstate0."""
    rng = np.random.default_rng(7)
    params = init_params(5, 4, seed=1)
    inputs, targets, h0 = rng.integers(0, 5, (2, 6)), rng.integers(0, 5, (2, 6)), rng.uniform(-0.5, 0.5, (2, 4))
    by_position = loss_and_grads(params, inputs, targets, h0, None, True)
    for kwargs in (dict(state0=h0, return_dstate0=True), dict(h0=h0, return_dh0=True)):
        loss, grads, h_last, dh0 = loss_and_grads(params, inputs, targets, **kwargs)
        assert loss == by_position[0] and np.array_equal(dh0, by_position[3]) and np.array_equal(h_last, by_position[2])
    assert np.array_equal(forward(params, inputs, h0=h0)["h"], forward(params, inputs, state0=h0)["h"])
    assert rnn_core.sequence_loss(params, inputs, targets, h0=h0)[0] == by_position[0]
    with pytest.raises(TypeError, match="as state0 or as h0, not both"):
        loss_and_grads(params, inputs, targets, h0, h0=h0)
    with pytest.raises(ValueError, match="bptt_truncate needs the fast path"):
        loss_and_grads(params, inputs, targets, bptt_truncate=2, fast=False)


def test_init_params_is_seeded_and_sized():
    a, b = init_params(7, 5, seed=1), init_params(7, 5, seed=1)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["W_hh"], init_params(7, 5, seed=2)["W_hh"])
    assert rnn_core.count_params(7, 5) == sum(v.size for v in a.values()) == 5 * 7 + 25 + 7 * 5 + 5 + 7
    # orthogonal recurrence: all singular values equal the scale
    s = np.linalg.svd(init_params(7, 6, recurrent_scale=0.9)["W_hh"], compute_uv=False)
    assert np.allclose(s, 0.9)
