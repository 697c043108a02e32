"""Finite-difference gradient checks: the referee for every derivation in the series.

Central differences, (f(x + eps) - f(x - eps)) / (2 eps), have an error of order
eps^2 from the Taylor remainder plus roundoff of order machine-eps * |f| / eps.
In float64 with eps = 1e-5 both are tiny, so an analytic gradient that agrees to
a relative error below 1e-7 is right; a wrong formula is off by far more. In
float32 the roundoff term alone is about 1e-2: never check gradients in float32.
"""

from __future__ import annotations

import numpy as np

from .cells import (
    cell_module,
    check_cell_params,
    dropout_masks,
    num_layers,
    state_arrays,
    state_from_arrays,
    zero_state,
)

__all__ = ["GRADCHECK_TOL", "rel_error", "numerical_gradient", "check_gradients"]

# The series' one tolerance: a float64 analytic gradient whose relative error against central
# differences (eps = 1e-5) is below this is right; a wrong formula is off by far more (notebook 01).
GRADCHECK_TOL = 1e-7


def rel_error(a, b):
    """Relative error ||a - b|| / (||a|| + ||b||), 0.0 when both are zero.

    One number per array: insensitive to individual entries that are tiny in
    both (where finite differences are pure roundoff).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"cannot compare arrays of shapes {a.shape} and {b.shape}")
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


def numerical_gradient(f, x, eps=1e-5):
    """Central-difference gradient of the scalar function f() with respect to array x.

    f takes no arguments and reads x, which is changed in place entry by entry
    and restored afterwards. x must be a float64 array. Returns an array shaped
    like x.
    """
    if not isinstance(x, np.ndarray) or x.dtype != np.float64:
        raise TypeError("numerical_gradient needs a float64 numpy array (float32 roundoff swamps the check)")
    grad = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"], op_flags=[["readwrite"]])
    for _ in it:
        i = it.multi_index
        old = x[i]
        x[i] = old + eps
        f_plus = f()
        x[i] = old - eps
        f_minus = f()
        x[i] = old
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def check_gradients(
    params,
    inputs,
    targets,
    state0=None,
    eps=1e-5,
    *,
    bptt_truncate=None,
    dropout=0.0,
    seed=None,
    masks=None,
    cell="rnn",
):
    """Relative error of every analytic gradient from ``loss_and_grads`` against finite differences.

    params: any cell's parameters (the vanilla RNN's, the LSTM's, the GRU's, one layer or a
    stack), float64; cell: the name of their cell ("rnn", "lstm" or "gru"). state0: the starting
    state, None for zeros.
    Returns a dict {name: relative error} for every parameter (every layer's) and every part
    of the starting state: W_xh, W_hh, W_yh, b_h, b_o and h0 for the vanilla RNN; W_x, W_h, b,
    W_yh, b_o, h0 and c0 for the LSTM (h0 alone for the GRU); a stack's layer k adds its arrays
    with the suffix _k, and h0 (c0) has a layer axis.
    Dropout: masks (or a dropout rate and a seed, which draw them once; not both) are held fixed
    for every evaluation, so the loss is a smooth function of the parameters and the check applies.
    With ``bptt_truncate`` (the vanilla cell only), only the full-gradient check makes sense for the
    truncated result at k >= T - 1; for smaller k the truncated gradient is an
    approximation and will not match (notebook 05 measures by how much).
    """
    cell = check_cell_params(params, cell)
    module = cell_module(cell)
    if params["W_yh"].dtype != np.float64:
        raise TypeError("check gradients in float64: float32 roundoff makes finite differences meaningless")
    names = module.param_names(num_layers(params, cell))
    nudged = {k: params[k].copy() for k in names}  # copies: the finite differences nudge them in place
    inputs = np.asarray(inputs)
    if dropout:  # the masks, drawn once
        if masks is not None:
            raise TypeError("give dropout (with seed) or masks, not both")
        masks = dropout_masks(params, inputs, dropout, seed, cell=cell)
    if state0 is None:  # zeros, one per sequence (and layer)
        state0 = zero_state(params, cell, inputs.shape[:-1])
    # copies, in float64: the finite differences nudge them in place
    arrays = {name: np.array(a, dtype=np.float64) for name, a in state_arrays(cell, state0).items()}
    state0 = state_from_arrays(cell, arrays)  # the same arrays the nudges change
    extra = {} if bptt_truncate is None else {"bptt_truncate": bptt_truncate}
    out = module.loss_and_grads(nudged, inputs, targets, state0, return_dstate0=True, masks=masks, **extra)
    _, grads, _, dstate0 = out

    def f():  # the loss alone: the forward pass, no gradients
        return module.sequence_loss(nudged, inputs, targets, state0, masks=masks)[0]

    errors = {k: rel_error(grads[k], numerical_gradient(f, nudged[k], eps)) for k in names}
    for name, d in state_arrays(cell, dstate0).items():
        errors[f"{name}0"] = rel_error(d, numerical_gradient(f, arrays[name], eps))
    return errors
