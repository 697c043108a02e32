"""Each cell's fast path equals its reference: the loop over step_forward and step_backward.

``loss_and_grads(..., fast=False)`` runs the equations as each notebook derives them, one step at a
time; the default runs the private fast path (``rnn_core._fast_rnn``, ``_fast_lstm``, ``_fast_gru``).
On random configurations, in float64, the two agree to 1e-12: the loss, every gradient, the last
state and the gradient of the starting state, for one sequence and for a batch. ``sequence_loss``
(the fast forward pass alone) agrees with ``forward`` (the reference loop) the same way.
"""

import numpy as np
import pytest

from rnn_core import CELLS, rel_error
from rnn_core.cells import state_arrays, state_from_arrays

TOL = 1e-12


def _configurations(n, seed):
    """n random (V, H, T, B) with B None for one sequence, and a seed each."""
    rng = np.random.default_rng(seed)
    for k in range(n):
        V, H, T = int(rng.integers(2, 40)), int(rng.integers(1, 48)), int(rng.integers(1, 24))
        B = None if k % 3 == 0 else int(rng.integers(1, 10))
        yield V, H, T, B, int(rng.integers(2**31))


def _random_case(cell, V, H, T, B, seed):
    """Parameters with every term switched on, at a random recurrent scale; inputs, targets, a random state."""
    rng = np.random.default_rng(seed)
    module = CELLS[cell]
    params = module.init_params(V, H, seed=seed, recurrent_scale=float(rng.uniform(0.5, 1.5)))
    for k, v in params.items():
        if v.ndim == 1:  # the biases: nonzero, some gates pushed towards saturation
            params[k] = rng.standard_normal(v.shape) * rng.uniform(0.1, 2.0)
    shape = (T,) if B is None else (B, T)
    inputs, targets = rng.integers(0, V, shape), rng.integers(0, V, shape)
    scale = {"h": 0.9, "c": 2.0}  # h within tanh's range; the LSTM's c beyond it
    arrays = {name: rng.uniform(-1.0, 1.0, shape[:-1] + (H,)) * scale[name] for name in module.STATE_NAMES}
    return params, inputs, targets, state_from_arrays(cell, arrays)


CASES = [(cell, *config) for cell in CELLS for config in _configurations(10, seed=len(cell))]


@pytest.mark.parametrize("cell, V, H, T, B, seed", CASES)
def test_the_fast_path_equals_the_loop_over_the_step_functions(cell, V, H, T, B, seed):
    module = CELLS[cell]
    params, inputs, targets, state0 = _random_case(cell, V, H, T, B, seed)
    fast = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True)
    ref = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, fast=False)
    assert abs(fast[0] - ref[0]) <= TOL * abs(ref[0])
    assert set(fast[1]) == set(ref[1]) == set(module.PARAM_NAMES)
    for k in module.PARAM_NAMES:
        assert rel_error(fast[1][k], ref[1][k]) < TOL, k
    for name, a in state_arrays(cell, fast[2]).items():  # the last state
        assert a.shape == ((H,) if B is None else (B, H))
        assert rel_error(a, state_arrays(cell, ref[2])[name]) < TOL, name
    for name, a in state_arrays(cell, fast[3]).items():  # the starting state's gradient
        assert rel_error(a, state_arrays(cell, ref[3])[name]) < TOL, f"d{name}0"


@pytest.mark.parametrize("cell, V, H, T, B, seed", CASES[::3])
def test_the_fast_forward_pass_equals_the_reference_forward(cell, V, H, T, B, seed):
    module = CELLS[cell]
    params, inputs, targets, state0 = _random_case(cell, V, H, T, B, seed)
    loss, last = module.sequence_loss(params, inputs, targets, state0)
    out = module.forward(params, inputs, state0)
    p_target = np.take_along_axis(out["p"], targets[..., None], axis=-1)
    assert abs(loss + np.log(p_target).sum()) <= TOL * loss
    for name, a in state_arrays(cell, last).items():
        assert rel_error(a, out[name][..., -1, :]) < TOL, name


@pytest.mark.parametrize("cell", CELLS)
def test_in_float32_the_two_agree_to_float32_rounding(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = _random_case(cell, 20, 16, 12, 5, seed=3)
    p32 = {k: v.astype(np.float32) for k, v in params.items()}
    s32 = state_from_arrays(cell, {k: v.astype(np.float32) for k, v in state_arrays(cell, state0).items()})
    fast = module.loss_and_grads(p32, inputs, targets, s32)
    ref = module.loss_and_grads(p32, inputs, targets, s32, fast=False)
    assert all(g.dtype == np.float32 for g in (*fast[1].values(), *ref[1].values()))
    assert abs(fast[0] - ref[0]) <= 1e-5 * ref[0]
    assert all(rel_error(fast[1][k], ref[1][k]) < 1e-4 for k in module.PARAM_NAMES)
