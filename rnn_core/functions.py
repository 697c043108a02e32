"""Softmax and cross-entropy, the two functions at the output of the network, the sigmoid of the gates,
and inverted dropout with its backward pass.

Derived in notebooks/01-softmax-and-its-derivative.ipynb (softmax, its Jacobian)
and notebooks/02-cross-entropy.ipynb (cross-entropy from logits, its gradient);
the sigmoid in notebooks/08-gated-cells-lstm.ipynb; dropout in
notebooks/10-deeper-networks-and-overfitting.ipynb, section 3.

Shapes: V is the vocabulary size (number of classes). A vector of logits o has
shape (V,); a stack of them has shape (..., V) with the classes on the last
axis, unless an ``axis`` argument says otherwise.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_indices, check_number

__all__ = [
    "softmax",
    "softmax_jacobian",
    "log_softmax",
    "logsumexp",
    "cross_entropy",
    "cross_entropy_grad",
    "cross_entropy_and_grad",
    "one_hot",
    "sigmoid",
    "dropout",
    "dropout_backward",
]


def softmax(o, axis=-1, temperature=1.0):
    """Probabilities y_hat = exp(o / tau) / sum(exp(o / tau)) along ``axis``.

    Subtracting the largest logit first changes nothing mathematically (the
    factor exp(-max) cancels) but keeps every exponent <= 0, so logits like
    +-1000 give finite results and no overflow warnings.

    o: array of logits, any shape; axis: the class axis; temperature tau > 0.
    Returns an array of the same shape whose entries along ``axis`` sum to 1.
    """
    o = _as_float_array(o, "o")
    check_number(temperature, "temperature", low=0)
    if temperature >= 1.0:
        z = o / temperature if temperature != 1.0 else o
    else:  # o / tau grows: past float's range it would give nan, not the limit
        with np.errstate(over="ignore"):
            z = o / temperature
        if not np.isfinite(z).all() and np.isfinite(o).all():
            raise ValueError(
                f"temperature {temperature!r} is too small for these logits (o / temperature overflows): "
                "use a larger temperature"
            )
    z = z - np.max(z, axis=axis, keepdims=True)  # largest exponent is now 0
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_jacobian(y_hat):
    """The Jacobian of softmax, J[i, k] = d y_hat_i / d o_k = y_hat_i (delta_ik - y_hat_k).

    y_hat: probabilities, shape (V,) (the *output* of softmax, not the logits).
    Returns J = diag(y_hat) - y_hat y_hat^T, shape (V, V): symmetric, each row sums to 0.
    """
    y_hat = _as_float_array(y_hat, "y_hat")
    if y_hat.ndim != 1:
        raise ValueError(f"softmax_jacobian expects one probability vector of shape (V,), got shape {y_hat.shape}")
    return np.diag(y_hat) - np.outer(y_hat, y_hat)


def logsumexp(o, axis=-1, keepdims=False):
    """log(sum(exp(o))) along ``axis``, computed without overflow."""
    o = _as_float_array(o, "o")
    m = np.max(o, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(o - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def log_softmax(o, axis=-1):
    """log y_hat = o - logsumexp(o): finite even where y_hat underflows to 0."""
    o = _as_float_array(o, "o")
    return o - logsumexp(o, axis=axis, keepdims=True)


def cross_entropy(o, y):
    """Cross-entropy -log softmax(o)[y] in nats, from logits, summed over rows.

    o: logits, shape (V,) or (N, V); y: the target class index, an int or an
    int array of shape (N,). With a one-hot target distribution, the
    cross-entropy H(target, y_hat) = -sum_i target_i log y_hat_i keeps one term:
    -log y_hat_y = logsumexp(o) - o_y. Returns a Python float (the sum is taken
    in float64, also for float32 logits).
    """
    o2, y1 = _rows_and_targets(o, y)
    rows = np.arange(len(y1))
    return float(np.sum(logsumexp(o2, axis=1) - o2[rows, y1], dtype=np.float64))


def cross_entropy_grad(o, y):
    """Gradient of ``cross_entropy(o, y)`` with respect to the logits o.

    dL/do = y_hat - onehot(y), where y_hat = softmax(o): the probabilities minus the
    target distribution. Same shape as ``o``.
    """
    o2, y1 = _rows_and_targets(o, y)
    g = softmax(o2, axis=1)
    g[np.arange(len(y1)), y1] -= 1.0
    return g.reshape(np.shape(o))


def cross_entropy_and_grad(o, y, grad=True):
    """``cross_entropy(o, y)`` and ``cross_entropy_grad(o, y)`` at once: the engines' output layer.

    o: logits (N, V), float32 or float64; y: targets (N,), checked by the caller. Fused for
    speed (benchmarks/README.md): one exp instead of two, computed in place, so
    ``o`` is overwritten and becomes dL/do. Returns (loss, do), or (loss, None) with grad=False;
    the loss is summed in float64.
    """
    rows = np.arange(len(y))
    o -= o.max(axis=1, keepdims=True)  # largest exponent 0: no overflow
    loss = -float(np.sum(o[rows, y], dtype=np.float64))  # -log yhat_y = log sum_j exp(o_j) - o_y
    np.exp(o, out=o)
    sums = o.sum(axis=1)
    loss += float(np.sum(np.log(sums), dtype=np.float64))
    if not grad:
        return loss, None
    o /= sums[:, None]  # yhat = softmax(o)
    o[rows, y] -= 1.0  # dL/do = yhat - onehot(y)
    return loss, o


def one_hot(y, num_classes, dtype=np.float64):
    """One-hot rows: shape (*y.shape, num_classes), a 1 at each index of y; for one index (an int), (num_classes,)."""
    y = _check_classes(y, num_classes)
    return np.eye(num_classes, dtype=dtype)[y]


def sigmoid(a):
    """The logistic function 1 / (1 + exp(-a)), computed as (1 + tanh(a/2)) / 2.

    The two are equal; the tanh form never overflows (exp(-a) does for a < -88
    in float32) and costs one call to tanh. The gates of the LSTM and the GRU use it.
    """
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def dropout(h, keep, rate):
    """Inverted dropout: h * keep / (1 - rate), what goes on from h during training.

    h: any shape; keep: booleans of h's shape, True where a unit is kept (each with probability
    1 - rate); rate: the probability of dropping a unit, in [0, 1) (kappa in notebook 10). A
    kept unit is scaled up by 1 / (1 - rate), so the expected value of what passes is h itself
    and nothing needs rescaling when nothing is dropped (validation, sampling). The cells drop
    this way between layers and before the output layer (``dropout=`` of their
    ``loss_and_grads``, masks drawn by ``rnn_core.dropout_masks``).
    """
    h, keep, scale = _dropout_args(h, keep, rate, "h")
    return h * keep * scale


def dropout_backward(d_out, keep, rate):
    """Back through ``dropout``: dL/dh = dL/d(out) * keep / (1 - rate).

    d_out: the gradient at dropout's output, any shape; keep, rate: the forward pass's own (the
    same mask, never a new one). Multiplying by a constant mask is multiplying by a diagonal
    matrix, its own transpose: a dropped unit gets no gradient, a kept one its gradient scaled
    by 1 / (1 - rate). Returns an array of d_out's shape.
    """
    d_out, keep, scale = _dropout_args(d_out, keep, rate, "d_out")
    return d_out * keep * scale


# -- input checks -------------------------------------------------------------


def _dropout_args(a, keep, rate, name):
    """(a as floats, keep as booleans, 1 / (1 - rate)), after checking that they fit together."""
    a = _as_float_array(a, name)
    keep = np.asarray(keep)
    if keep.dtype != bool:
        raise TypeError(f"keep must be an array of booleans (True: the unit is kept), got dtype {keep.dtype}")
    if keep.shape != a.shape:
        raise ValueError(f"keep must have the shape of {name}, {a.shape}, got {keep.shape}")
    check_number(rate, "rate", 0, 1, include_low=True, include_high=False)
    return a, keep, 1.0 / (1.0 - rate)


def _as_float_array(a, name):
    a = np.asarray(a)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {a.dtype}")
    if a.dtype.kind != "f":
        a = a.astype(np.float64)
    if a.size == 0:
        raise ValueError(f"{name} is empty: give at least one value")
    return a


def _check_classes(y, num_classes):
    """y as integer class indices in 0..num_classes-1, any shape, perhaps none."""
    return check_indices(
        y, "y", num_classes, ndim=None, min_size=0, what="class indices", among=f"the {num_classes} classes"
    )


def _rows_and_targets(o, y):
    o = _as_float_array(o, "o")
    y = np.asarray(y)
    if o.ndim == 1:
        o2 = o[None, :]
        if y.ndim != 0:
            raise ValueError(f"for one logit vector of shape {o.shape}, y must be one integer, got shape {y.shape}")
    elif o.ndim == 2:
        o2 = o
        if y.shape != (o.shape[0],):
            raise ValueError(f"logits of shape {o.shape} need targets of shape ({o.shape[0]},), got {y.shape}")
    else:
        raise ValueError(f"logits must have shape (V,) or (N, V), got {o.shape}")
    y1 = _check_classes(y.reshape(-1), o2.shape[1])
    return o2, y1
