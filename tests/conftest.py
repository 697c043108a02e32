"""Shared fixtures for the rnn_core unit tests, and hypothesis's settings for the property tests."""

import numpy as np
import pytest
from hypothesis import settings

# the property tests draw the same examples on every run and machine (seeded from each test), keep no
# example database on disk, and have no deadline: a slow example on a busy machine is not a failure
settings.register_profile("series", deadline=None, derandomize=True, database=None)
settings.load_profile("series")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
