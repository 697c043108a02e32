"""Finite-difference gradient checks: the referee for every derivation in the series.

Central differences, (f(x + eps) - f(x - eps)) / (2 eps), have an error of order
eps^2 from the Taylor remainder plus roundoff of order machine-eps * |f| / eps.
In float64 with eps = 1e-5 both are tiny, so an analytic gradient that agrees to
a relative error below 1e-7 is right; a wrong formula is off by far more. In
float32 the roundoff term alone is about 1e-2: never check gradients in float32.
"""

from __future__ import annotations

import numpy as np

from .rnn import PARAM_NAMES, check_params, loss_and_grads, sequence_loss

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


def check_gradients(params, inputs, targets, h0=None, eps=1e-5, bptt_truncate=None):
    """Relative error of every analytic gradient from ``loss_and_grads`` against finite differences.

    params must be float64. Returns a dict {name: relative error} for W_xh, W_hh,
    W_yh, b_h, b_o and h0 (h0 is zeros when None is given).
    With ``bptt_truncate`` set, only the full-gradient check makes sense for the
    truncated result at k >= T - 1; for smaller k the truncated gradient is an
    approximation and will not match (notebook 05 measures by how much).
    """
    params = check_params(params)
    if params["W_hh"].dtype != np.float64:
        raise TypeError("check gradients in float64: float32 roundoff makes finite differences meaningless")
    p = {k: params[k].copy() for k in PARAM_NAMES}
    inputs = np.asarray(inputs)
    H = p["W_hh"].shape[0]
    if h0 is None:
        h0 = np.zeros((H,) if inputs.ndim == 1 else (inputs.shape[0], H))
    h0 = np.array(h0, dtype=np.float64)
    _, grads, _, dh0 = loss_and_grads(p, inputs, targets, h0, bptt_truncate=bptt_truncate, return_dh0=True)

    def f():  # the loss alone: the forward pass, no gradients
        return sequence_loss(p, inputs, targets, h0)[0]

    errors = {k: rel_error(grads[k], numerical_gradient(f, p[k], eps)) for k in PARAM_NAMES}
    errors["h0"] = rel_error(dh0, numerical_gradient(f, h0, eps))
    return errors
