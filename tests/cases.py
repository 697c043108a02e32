"""Random cases for the cells' tests, built in one place for every cell, one layer or a stack."""

import numpy as np

from rnn_core import CELLS
from rnn_core.cells import state_from_arrays


def random_case(cell, V, H, T, B=None, seed=0, *, num_layers=1, dtype=np.float64, bias_scale=0.5, recurrent_scale=1.0):
    """(params, inputs, targets, state0) for ``cell``: every term switched on.

    params: ``init_params(V, H, seed=seed, num_layers=num_layers)`` with every bias random,
    N(0, bias_scale^2) (larger scales push gates towards saturation); inputs, targets: (T,) for
    B=None, else (B, T); state0: random, h within tanh's range and the LSTM's c beyond it, each
    (H,) or (B, H), with a layer axis in front for a stack.
    """
    rng = np.random.default_rng(seed)
    module = CELLS[cell]
    params = module.init_params(V, H, seed=seed, recurrent_scale=recurrent_scale, num_layers=num_layers)
    for k, v in params.items():
        if v.ndim == 1:
            params[k] = rng.standard_normal(v.shape) * bias_scale
    params = {k: v.astype(dtype) for k, v in params.items()}
    shape = (T,) if B is None else (B, T)
    inputs, targets = rng.integers(0, V, shape), rng.integers(0, V, shape)
    lead = () if num_layers == 1 else (num_layers,)
    scale = {"h": 0.9, "c": 2.0}
    arrays = {
        name: (rng.uniform(-1.0, 1.0, lead + shape[:-1] + (H,)) * scale[name]).astype(dtype)
        for name in module.STATE_NAMES
    }
    return params, inputs, targets, state_from_arrays(cell, arrays)
