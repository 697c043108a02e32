"""What only the vanilla RNN (rnn_core.rnn) does: batches in float32 rounding, the fused output layer, the
truncated BPTT, its parameters' checks, the one name of its starting state. What every cell does is
tests/test_every_cell.py; stacks and dropout, tests/test_stacked.py."""

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


# -- truncated BPTT ---------------------------------------------------------------------


def _truncated_by_definition(params, inputs, targets, h0, k, masks=None):
    """Sum over t of the exact gradient of L_t alone, with the graph cut before step t-k.

    The exact gradient of L_t when h_{s-1} (s = max(0, t-k); every layer's, for a stack) is a
    constant input is the full-BPTT gradient of the window s..t starting from that state, minus
    the same for the window s..t-1 (which removes the losses of the earlier steps); the dropout
    masks, if any, cut to each window's steps.
    """
    T = len(inputs)
    out = forward(params, inputs, h0, masks=masks)["h"]
    hs = [h0] + [out[..., t, :] for t in range(T)]  # h_0..h_T: (H,), or (L, H) for a stack

    def window(a, b):
        m = None if masks is None else masks[..., a:b, :]
        return loss_and_grads(params, inputs[a:b], targets[a:b], hs[a], return_dstate0=True, masks=m)

    total = {key: np.zeros_like(v) for key, v in params.items()}
    dh0 = np.zeros_like(h0)
    for t in range(T):
        s = max(0, t - k)
        _, g_to_t, _, d_to_t = window(s, t + 1)
        if t > s:
            _, g_before, _, d_before = window(s, t)
        else:
            g_before, d_before = {key: 0 for key in total}, 0
        for key in total:
            total[key] += g_to_t[key] - g_before[key]
        if s == 0:
            dh0 += d_to_t - d_before
    return total, dh0


@pytest.mark.parametrize("k", [0, 1, 2, 4])
@pytest.mark.parametrize("L, rate", [(1, 0.0), (2, 0.0), (3, 0.0), (2, 0.4)])
def test_truncated_bptt_matches_its_definition(k, L, rate):
    """Also through a stack of layers, and with dropout: the loss at step t reaches no layer's step before t-k."""
    rng = np.random.default_rng(10 + k)
    params = init_params(5, 4, seed=k, num_layers=L)
    inputs, targets = rng.integers(0, 5, 8), rng.integers(0, 5, 8)
    h0 = rng.uniform(-0.5, 0.5, (4,) if L == 1 else (L, 4))
    masks = rnn_core.dropout_masks(params, inputs, rate, seed=k) if rate else None
    _, grads, _, dh0 = loss_and_grads(params, inputs, targets, h0, bptt_truncate=k, return_dstate0=True, masks=masks)
    expected, expected_dh0 = _truncated_by_definition(params, inputs, targets, h0, k, masks)
    for key in grads:
        assert rel_error(grads[key], expected[key]) < 1e-10, key
    assert rel_error(dh0, expected_dh0) < 1e-10


def test_truncated_bptt_with_a_long_window_is_full_bptt_and_short_windows_are_not():
    rng = np.random.default_rng(20)
    params = init_params(5, 6, seed=3, recurrent_scale=1.5)
    inputs, targets = rng.integers(0, 5, (3, 9)), rng.integers(0, 5, (3, 9))
    full = loss_and_grads(params, inputs, targets)[1]
    same = loss_and_grads(params, inputs, targets, bptt_truncate=8)[1]
    assert all(rel_error(full[k], same[k]) < 1e-12 for k in full), {k: rel_error(full[k], same[k]) for k in full}
    short = loss_and_grads(params, inputs, targets, bptt_truncate=1)[1]
    assert rel_error(full["W_hh"], short["W_hh"]) > 1e-3
    assert np.allclose(full["W_yh"], short["W_yh"])  # the output layer is never truncated


# -- bad input ----------------------------------------------------------------------------


def _p():
    return init_params(5, 4)


@pytest.mark.parametrize(
    "params, match",
    [
        ({**_p(), "W_hh": np.zeros((3, 3))}, r"W_hh has shape \(3, 3\) but W_xh \(4, 5\) implies H=4, V=5"),
        ({**_p(), "W_xh": np.zeros(4)}, r"W_xh must have shape \(H, V\)"),
        ({**_p(), "b_h": np.array([0, np.nan, 0, 0])}, "b_h contains NaN"),
    ],
)
def test_bad_parameters_get_a_clear_error(params, match):
    with pytest.raises(ValueError, match=match):
        loss_and_grads(params, np.array([0]), np.array([1]))


def test_bad_truncation():
    with pytest.raises(ValueError, match="bptt_truncate"):
        loss_and_grads(_p(), np.array([0]), np.array([1]), bptt_truncate=-1)
    with pytest.raises(TypeError, match="bptt_truncate needs the fast path"):
        loss_and_grads(_p(), np.array([0]), np.array([1]), bptt_truncate=2, fast=False)


def test_the_starting_state_has_one_name_state0():
    """Every cell calls the starting state state0 and its gradient dstate0 (notebooks 03-05 too)."""
    rng = np.random.default_rng(7)
    params = init_params(5, 4, seed=1)
    inputs, targets, h0 = rng.integers(0, 5, (2, 6)), rng.integers(0, 5, (2, 6)), rng.uniform(-0.5, 0.5, (2, 4))
    by_position = loss_and_grads(params, inputs, targets, h0, True)  # return_dstate0 fifth, as in every cell
    loss, grads, h_last, dh0 = loss_and_grads(params, inputs, targets, state0=h0, return_dstate0=True)
    assert loss == by_position[0] and np.array_equal(dh0, by_position[3]) and np.array_equal(h_last, by_position[2])
    with pytest.raises(TypeError, match="positional"):  # bptt_truncate is keyword-only
        loss_and_grads(params, inputs, targets, h0, False, 2)
    for call in (
        lambda: loss_and_grads(params, inputs, targets, h0=h0),
        lambda: loss_and_grads(params, inputs, targets, return_dh0=True),
        lambda: forward(params, inputs, h0=h0),
        lambda: rnn_core.sequence_loss(params, inputs, targets, h0=h0),
        lambda: rnn_core.check_gradients(params, inputs, targets, h0=h0),
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call()
