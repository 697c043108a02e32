"""Using a trained network: sampling text, and measuring it in bits per character.

Every function takes the parameters of any cell, the vanilla RNN (``rnn_core.init_params``),
the LSTM (``rnn_core.lstm.init_params``) or the GRU (``rnn_core.gru.init_params``), one layer or
a stack. ``cell=`` names the cell: "rnn" unless said otherwise, "lstm" or "gru" for a gated cell's
parameters (``rnn_core.cells.check_cell_params``). None of them drops anything: dropout is for training
only.
"""

from __future__ import annotations

import math

import numpy as np

from ._cell import output_logits  # every cell's output layer: logits = W_yh h + b_o
from ._validation import check_indices, check_int, check_number
from .cells import cell_module, check_cell_params, zero_state
from .functions import softmax

__all__ = ["next_char_probs", "draw_index", "sample", "bits_per_char", "perplexity", "BPC_WINDOW"]

BPC_WINDOW = 256  # bits_per_char reads a text this many characters at a time, the state carried


def _read_prime(params, cell, vocab, prime):
    """The network after reading all of ``prime`` but its last character: (that character's index, its state).

    The state is the cell's: h (H,), or the LSTM's pair (h, c); (L, H) each for a stack.
    """
    if not isinstance(prime, str):
        raise TypeError(f"prime must be a non-empty string, got {prime!r}")
    if not prime:
        raise ValueError("prime must be a non-empty string: the network needs at least one character to start from")
    V = params["W_yh"].shape[0]
    if vocab.size != V:
        raise ValueError(f"vocabulary has {vocab.size} characters but the parameters expect V={V}")
    ids = vocab.encode(prime)
    state = zero_state(params, cell)  # h_0 (and c_0)
    for x in ids[:-1]:
        state, _ = cell_module(cell).advance(params, x, state)
    return int(ids[-1]), state  # the last prime character is fed by the caller


def _probs(o, temperature, top_k):
    """Next-character probabilities from the logits o (V,), at a temperature, over the top_k most likely."""
    if temperature == 0:  # greedy: all mass on the most likely character
        probs = np.zeros_like(o)
        probs[np.argmax(o)] = 1.0
        return probs
    probs = softmax(o, temperature=temperature)
    if top_k is not None and top_k < len(probs):
        keep = np.zeros(len(probs), bool)
        keep[np.argsort(-probs, kind="stable")[:top_k]] = True  # exactly k, ties broken by index
        probs = np.where(keep, probs, 0.0)
        probs /= probs.sum()
    return probs


def _check_sampling_args(temperature, top_k):
    check_number(temperature, "temperature", 0, include_low=True)  # 0: always the most likely character
    check_int(top_k, "top_k", 1, allow_none=True)


def next_char_probs(params, vocab, prime, temperature=1.0, top_k=None, *, cell="rnn"):
    """Probabilities of the character after ``prime``: an array of shape (V,).

    Index i is the probability of vocab.chars[i], after dividing the logits by
    ``temperature`` (and keeping only the ``top_k`` most likely, if given). cell: the name of the
    cell whose parameters these are.
    """
    cell = check_cell_params(params, cell)
    _check_sampling_args(temperature, top_k)
    x, state = _read_prime(params, cell, vocab, prime)
    o = output_logits(params, cell_module(cell).advance(params, x, state)[1])
    return _probs(o.astype(np.float64), temperature, top_k)


def draw_index(rng, probs):
    """One index drawn from the probabilities ``probs`` (V,) with ``rng`` (one ``rng.random()``): the
    inverse-CDF draw, the first index whose cumulative probability exceeds u * sum(probs).

    Written out rather than ``rng.choice(V, p=probs)`` (which draws the same way) because it is the
    draw notebook 06's sampler writes in the open, in these words; ``sample`` here and the reader's
    network in ``rnn_core.practice.train_yours`` both take it from this one place."""
    return int(min(np.searchsorted(np.cumsum(probs), rng.random() * probs.sum(), side="right"), len(probs) - 1))


def sample(params, vocab, prime, length, temperature=1.0, top_k=None, seed=0, *, cell="rnn"):
    """Generate ``length`` characters that follow ``prime`` (the prime is not repeated).

    The network first reads the prime, carrying its state, then draws
    each next character from softmax(o / temperature) and feeds it back in.
    temperature: ≥ 0; below 1 sharpens the distribution (safer, more
    repetitive), above 1 flattens it (more surprising, more mistakes); 0 takes
    the most likely character every time. top_k: if given, draw only among
    the k most likely characters. seed: for np.random.default_rng, so the same
    call gives the same text. cell: the name of the cell whose parameters these are.
    """
    cell = check_cell_params(params, cell)
    _check_sampling_args(temperature, top_k)
    length = check_int(length, "length", 0)
    rng = np.random.default_rng(seed)
    x, state = _read_prime(params, cell, vocab, prime)
    advance = cell_module(cell).advance
    out = []
    for _ in range(length):
        state, h = advance(params, x, state)
        probs = _probs(output_logits(params, h).astype(np.float64), temperature, top_k)
        x = draw_index(rng, probs)
        out.append(x)
    return vocab.decode(np.array(out, dtype=np.int64))


def bits_per_char(params, ids, n_streams=1, window=BPC_WINDOW, *, cell="rnn"):
    """Mean bits per character of predicting ids[1:] from ids[:-1], state carried.

    ids: int array (N,) of character indices, N >= 2. The stream is cut into
    ``n_streams`` contiguous pieces run side by side as a batch (faster; each
    piece starts from a zero state, and up to n_streams - 1 trailing characters
    are left out so the pieces have equal length); within a piece the hidden
    state is carried from each ``window`` of steps to the next (a length in
    characters), so every prediction sees the whole text before it. Returns a
    float: the average cross-entropy in bits (nats / ln 2). cell: the name of the cell whose
    parameters these are.
    """
    sequence_loss = cell_module(check_cell_params(params, cell)).sequence_loss
    ids = check_indices(ids, "ids", params["W_yh"].shape[0], ndim=(1,), min_size=2)
    n_streams = check_int(n_streams, "n_streams")
    window = check_int(window, "window")
    stream_length = (ids.size - 1) // n_streams
    if stream_length < 1:
        raise ValueError(f"{ids.size} characters are too few for {n_streams} streams")
    X = ids[: n_streams * stream_length].reshape(n_streams, stream_length)
    Y = ids[1 : n_streams * stream_length + 1].reshape(n_streams, stream_length)
    total, state = 0.0, None  # None: each piece starts from a zero state (h, or h and c)
    for s in range(0, stream_length, window):
        loss, state = sequence_loss(params, X[:, s : s + window], Y[:, s : s + window], state)
        total += loss
    return total / (n_streams * stream_length) / math.log(2)


def perplexity(bpc):
    """Per-character perplexity 2**bpc: the size of a uniform choice with the same surprise."""
    return 2.0**bpc
