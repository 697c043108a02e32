"""Using a trained network: sampling text, and measuring it in bits per character."""

from __future__ import annotations

import math

import numpy as np

from .rnn import _hidden_states, _loss_only_tb, _prepare_inputs, _softmax_last, check_params

__all__ = ["next_char_probs", "sample", "bits_per_char", "perplexity"]


def _read_prime(params, vocab, prime):
    if not isinstance(prime, str) or not prime:
        raise ValueError("prime must be a non-empty string: the network needs at least one character to start from")
    if vocab.size != params["W_xh"].shape[1]:
        raise ValueError(f"vocabulary has {vocab.size} characters but the parameters expect V={params['W_xh'].shape[1]}")
    ids = vocab.encode(prime)
    X, h0, _ = _prepare_inputs(params, ids[:-1] if len(ids) > 1 else ids[:1], None, None)
    h = _hidden_states(params, X, h0)[-1] if len(ids) > 1 else h0
    return int(ids[-1]), h  # the last prime character is fed by the caller


def _logits(params, x, h):
    h = np.tanh(h @ params["W_hh"].T + params["W_xh"][:, x] + params["b_h"])  # (1, H)
    o = h @ params["W_yh"].T + params["b_o"]  # (1, V)
    return o[0].astype(np.float64), h


def _probs(o, temperature, top_k):
    if temperature == 0:  # greedy: all mass on the most likely character
        p = np.zeros_like(o)
        p[np.argmax(o)] = 1.0
        return p
    p = _softmax_last(o / temperature)
    if top_k is not None and top_k < len(p):
        cut = np.partition(p, -top_k)[-top_k]
        keep = np.zeros(len(p), bool)
        keep[np.argsort(-p, kind="stable")[:top_k]] = True  # exactly k, ties broken by index
        p = np.where(keep & (p >= cut), p, 0.0)
        p /= p.sum()
    return p


def _check_sampling_args(temperature, top_k):
    if not (isinstance(temperature, (int, float, np.floating)) and math.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"temperature must be a number >= 0 (0 means always the most likely character), got {temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1):
        raise ValueError(f"top_k must be None or an integer >= 1, got {top_k!r}")


def next_char_probs(params, vocab, prime, temperature=1.0, top_k=None):
    """Probabilities of the character after ``prime``: an array of shape (V,).

    Index i is the probability of vocab.chars[i], after dividing the logits by
    ``temperature`` (and keeping only the ``top_k`` most likely, if given).
    """
    params = check_params(params)
    _check_sampling_args(temperature, top_k)
    x, h = _read_prime(params, vocab, prime)
    o, _ = _logits(params, x, h)
    return _probs(o, temperature, top_k)


def sample(params, vocab, prime, length, temperature=1.0, top_k=None, seed=0):
    """Generate ``length`` characters that follow ``prime`` (the prime is not repeated).

    The network first reads the prime, carrying its hidden state, then draws
    each next character from softmax(o / temperature) and feeds it back in.
    temperature: > 0; below 1 sharpens the distribution (safer, more
    repetitive), above 1 flattens it (more surprising, more mistakes); 0 takes
    the most likely character every time. top_k: if given, draw only among
    the k most likely characters. seed: for np.random.default_rng, so the same
    call gives the same text.
    """
    params = check_params(params)
    _check_sampling_args(temperature, top_k)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
        raise ValueError(f"length must be an integer >= 0, got {length!r}")
    rng = np.random.default_rng(seed)
    x, h = _read_prime(params, vocab, prime)
    out = []
    for _ in range(length):
        o, h = _logits(params, x, h)
        p = _probs(o, temperature, top_k)
        # inverse-CDF draw: the first index whose cumulative probability exceeds u
        x = int(min(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"), len(p) - 1))
        out.append(x)
    return vocab.decode(np.array(out, dtype=np.int64))


def bits_per_char(params, ids, n_streams=1, window=256):
    """Mean bits per character of predicting ids[1:] from ids[:-1], state carried.

    ids: int array (N,) of character indices, N >= 2. The stream is cut into
    ``n_streams`` contiguous pieces run side by side as a batch (faster; each
    piece starts from a zero state, and up to n_streams - 1 trailing characters
    are left out so the pieces have equal length); within a piece the hidden
    state is carried from each ``window`` of steps to the next, so every
    prediction sees the whole text before it. Returns a float: the average
    cross-entropy in bits (nats / ln 2).
    """
    params = check_params(params)
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size < 2:
        raise ValueError(f"ids must be a 1-D array of at least 2 character indices, got shape {ids.shape}")
    if isinstance(n_streams, bool) or not isinstance(n_streams, (int, np.integer)) or n_streams < 1:
        raise ValueError(f"n_streams must be a positive integer, got {n_streams!r}")
    L = (ids.size - 1) // n_streams
    if L < 1:
        raise ValueError(f"{ids.size} characters are too few for {n_streams} streams")
    X = ids[: n_streams * L].reshape(n_streams, L)
    Y = ids[1 : n_streams * L + 1].reshape(n_streams, L)
    _, _, h, _ = _prepare_inputs(params, X[:, :1], Y[:, :1], None)
    total = 0.0
    for s in range(0, L, window):
        XT, YT, _, _ = _prepare_inputs(params, X[:, s : s + window], Y[:, s : s + window], None)
        loss, h = _loss_only_tb(params, XT, YT, h)
        total += loss
    return total / (n_streams * L) / math.log(2)


def perplexity(bpc):
    """Per-character perplexity 2**bpc: the size of a uniform choice with the same surprise."""
    return 2.0 ** bpc
