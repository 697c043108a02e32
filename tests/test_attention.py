"""rnn_core.attention: one step of dot-product attention, against finite differences and seq2seq."""

from __future__ import annotations

import numpy as np
import pytest

import rnn_core
from rnn_core import attention_backward, attention_forward, numerical_gradient, rel_error
from rnn_core import seq2seq as s2s


def _batch(seed=0, B=3, S=6, H=4):
    rng = np.random.default_rng(seed)
    h, u = rng.normal(size=(B, H)), rng.normal(size=(B, S, H))
    mask = np.arange(S) < np.array([S, 3, 1])[:, None]
    return h, u, mask, rng.normal(size=(B, H))


def test_weights_sum_to_one_and_are_zero_at_the_pads_whatever_the_pads_hold():
    h, u, mask, _ = _batch()
    alpha, context = attention_forward(h, u, mask)
    assert np.allclose(alpha.sum(axis=1), 1.0) and np.all(alpha[~mask] == 0.0)
    u2 = u.copy()
    u2[~mask] = 1e3
    alpha2, context2 = attention_forward(h, u2, mask)
    assert np.array_equal(alpha, alpha2) and np.array_equal(context, context2)


def test_backward_against_finite_differences():
    h, u, mask, w = _batch(1)

    def loss():
        return float((attention_forward(h, u, mask)[1] * w).sum())

    alpha, _ = attention_forward(h, u, mask)
    dh, du = attention_backward(w, h, u, alpha)
    assert rel_error(dh, numerical_gradient(loss, h)) < 1e-8
    assert rel_error(du, numerical_gradient(loss, u)) < 1e-8
    assert np.all(du[~mask] == 0.0)


def test_the_same_weights_and_context_as_seq2seq_at_every_step():
    V = 9
    params = s2s.init_params(V, V, 5, attention="dot", seed=3)
    rng = np.random.default_rng(2)
    src, src_lengths = rng.integers(3, V, (3, 6)), np.array([6, 4, 2])
    tgt = rng.integers(3, V, (3, 4))
    out = s2s.forward(params, src, src_lengths, tgt)
    mask = np.arange(6) < src_lengths[:, None]
    for t in range(4):
        alpha, context = attention_forward(out["h"][:, t], out["memory"], mask)
        assert np.allclose(alpha, out["alpha"][:, t], atol=1e-13)
        assert np.allclose(context, out["context"][:, t], atol=1e-13)


def test_bad_shapes_and_an_empty_row_are_named():
    h, u, mask, _ = _batch()
    with pytest.raises(ValueError, match="h must be"):
        attention_forward(h[:, :2], u, mask)
    with pytest.raises(ValueError, match="at least one True"):
        attention_forward(h, u, np.zeros_like(mask))
    assert rnn_core.attention.attention_forward is attention_forward
