"""Each cell's fast path equals its reference: the loops over step_forward and step_backward, layer by layer.

``loss_and_grads(..., fast=False)`` runs the equations as each notebook derives them, one step at a
time and one layer at a time; the default runs the private fast path (``rnn_core._fast_rnn``, and
``_fast`` with ``_fast_lstm`` or ``_fast_gru``). On random configurations, in float64, one layer or a
stack of two or three, with and without dropout masks, the two agree to 1e-12: the loss, every
gradient, the last state and the gradient of the starting state, for one sequence and for a batch.
``sequence_loss`` (the fast forward pass alone) agrees with ``forward`` (the reference loop) the
same way.
"""

import numpy as np
import pytest
from cases import random_case

from rnn_core import CELLS, dropout_masks, rel_error
from rnn_core.cells import state_arrays, state_from_arrays

TOL = 1e-12


def _configurations(seed):
    """(V, H, T, B, L, rate, seed) at random sizes for every L in 1, 2, 3, one sequence (B None) and a
    batch, without dropout (rate = 0) and with: twelve configurations."""
    rng = np.random.default_rng(seed)
    for L in (1, 2, 3):
        for single in (True, False):
            for dropout in (False, True):
                V, H, T = int(rng.integers(2, 40)), int(rng.integers(1, 40)), int(rng.integers(1, 20))
                B = None if single else int(rng.integers(1, 10))
                rate = float(rng.uniform(0.1, 0.6)) if dropout else 0.0
                yield V, H, T, B, L, rate, int(rng.integers(2**31))


def _case(cell, V, H, T, B, L, rate, seed):
    """A random case with biases up to saturation and a random recurrent scale, and its dropout masks (or None)."""
    rng = np.random.default_rng(seed + 1)
    params, inputs, targets, state0 = random_case(
        cell,
        V,
        H,
        T,
        B,
        seed,
        num_layers=L,
        bias_scale=float(rng.uniform(0.1, 2.0)),
        recurrent_scale=float(rng.uniform(0.5, 1.5)),
    )
    masks = dropout_masks(params, inputs, rate, seed, cell=cell) if rate else None
    return params, inputs, targets, state0, masks


CASES = [(cell, *config) for cell in CELLS for config in _configurations(seed=len(cell))]


@pytest.mark.parametrize("cell, V, H, T, B, L, rate, seed", CASES)
def test_the_fast_path_equals_the_loop_over_the_step_functions(cell, V, H, T, B, L, rate, seed):
    module = CELLS[cell]
    params, inputs, targets, state0, masks = _case(cell, V, H, T, B, L, rate, seed)
    fast = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, masks=masks)
    ref = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, masks=masks, fast=False)
    assert abs(fast[0] - ref[0]) <= TOL * abs(ref[0])
    assert list(fast[1]) == list(ref[1]) == list(module.param_names(L))
    for k in module.param_names(L):
        assert rel_error(fast[1][k], ref[1][k]) < TOL, k
    shape = (() if L == 1 else (L,)) + ((H,) if B is None else (B, H))
    for name, a in state_arrays(cell, fast[2]).items():  # the last state
        assert a.shape == shape
        assert rel_error(a, state_arrays(cell, ref[2])[name]) < TOL, name
    for name, a in state_arrays(cell, fast[3]).items():  # the starting state's gradient
        assert a.shape == shape
        assert rel_error(a, state_arrays(cell, ref[3])[name]) < TOL, f"d{name}0"


@pytest.mark.parametrize("cell, V, H, T, B, L, rate, seed", CASES)
def test_the_fast_forward_pass_equals_the_reference_forward(cell, V, H, T, B, L, rate, seed):
    module = CELLS[cell]
    params, inputs, targets, state0, masks = _case(cell, V, H, T, B, L, rate, seed)
    loss, last = module.sequence_loss(params, inputs, targets, state0, masks=masks)
    out = module.forward(params, inputs, state0, masks=masks)
    y_hat_target = np.take_along_axis(out["y_hat"], targets[..., None], axis=-1)
    assert abs(loss + np.log(y_hat_target).sum()) <= TOL * loss
    for name, a in state_arrays(cell, last).items():
        assert rel_error(a, out[name][..., -1, :]) < TOL, name


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_in_float32_the_two_agree_to_float32_rounding(cell, L):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 20, 16, 12, 5, seed=3, num_layers=L)
    p32 = {k: v.astype(np.float32) for k, v in params.items()}
    s32 = state_from_arrays(cell, {k: v.astype(np.float32) for k, v in state_arrays(cell, state0).items()})
    fast = module.loss_and_grads(p32, inputs, targets, s32)
    ref = module.loss_and_grads(p32, inputs, targets, s32, fast=False)
    assert all(g.dtype == np.float32 for g in (*fast[1].values(), *ref[1].values()))
    assert abs(fast[0] - ref[0]) <= 1e-5 * ref[0]
    assert all(rel_error(fast[1][k], ref[1][k]) < 1e-4 for k in module.param_names(L))
