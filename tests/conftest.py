"""Shared fixtures for the rnn_core unit tests."""

import numpy as np
import pytest

import rnn_core


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def small_params():
    """A float64 network with V=5, H=4 whose weights are large enough to matter."""
    p = rnn_core.init_params(5, 4, seed=3)
    r = np.random.default_rng(7)
    p["b_h"] = r.standard_normal(4) * 0.1
    p["b_o"] = r.standard_normal(5) * 0.1
    return p
