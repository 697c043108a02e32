"""The vocabulary, sampling, and bits per character."""

import math

import numpy as np
import pytest

import rnn_core
from rnn_core import Vocabulary, bits_per_char, init_params, next_char_probs, perplexity, sample


def test_vocabulary_is_sorted_and_round_trips():
    v = Vocabulary.from_text("hello, world’s")
    assert v.chars == "".join(sorted(set("hello, world’s")))
    assert v.decode(v.encode("world’s hello")) == "world’s hello"
    assert v.encode("hello").dtype == np.int64
    assert len(v) == v.size == len(set("hello, world’s"))
    assert Vocabulary.from_text("abc") == Vocabulary("abc")


def test_vocabulary_errors():
    v = Vocabulary.from_text("abc")
    with pytest.raises(ValueError, match=r"not in the vocabulary: 'x', 'z'"):
        v.encode("abzx")
    with pytest.raises(ValueError, match="empty"):
        Vocabulary.from_text("")
    with pytest.raises(ValueError, match="sorted and unique"):
        Vocabulary("cba")
    with pytest.raises(TypeError, match="str"):
        v.encode(["a"])
    with pytest.raises(
        ValueError, match=r"indices holds index 3, outside the vocabulary of size V=3 \(valid: 0\.\.2\)"
    ):
        v.decode([0, 3])
    with pytest.raises(TypeError, match="indices must be an integer or an integer array of character indices"):
        v.decode([0.0, 1.0])


@pytest.fixture(scope="module")
def trained_on_abc():
    """A tiny network fitted to 'abcabc...' so its predictions are sharp: (params, vocab, ids)."""
    text = "abc" * 50
    vocab = Vocabulary.from_text(text)
    ids = vocab.encode(text)
    params = init_params(3, 8, seed=0)
    state = rnn_core.adam_init(params)
    for _ in range(150):
        _, grads, _ = rnn_core.loss_and_grads(params, ids[:-1], ids[1:])
        params, state = rnn_core.adam_update(params, grads, state, lr=0.05)
    return params, vocab, ids


def test_sampling_is_seeded_and_learns_the_pattern(trained_on_abc):
    params, vocab, ids = trained_on_abc
    a = sample(params, vocab, "ab", 30, temperature=1.0, seed=1)
    assert a == sample(params, vocab, "ab", 30, temperature=1.0, seed=1)
    assert len(a) == 30 and set(a) <= set("abc")
    assert sample(params, vocab, "ab", 6, temperature=0) == "cabcab"  # greedy
    p = next_char_probs(params, vocab, "ab")
    assert p.shape == (3,) and np.isclose(p.sum(), 1) and p[2] > 0.9
    top1 = next_char_probs(params, vocab, "ab", top_k=1)
    assert np.array_equal(top1, [0.0, 0.0, 1.0])
    assert bits_per_char(params, ids) < 0.1


def test_bits_per_char_of_an_untrained_network_is_near_uniform_and_streams_agree():
    rng = np.random.default_rng(0)
    params = init_params(20, 16, seed=0)
    params["W_yh"] *= 0  # uniform predictions
    ids = rng.integers(0, 20, 1001)
    assert math.isclose(bits_per_char(params, ids), math.log2(20))
    assert math.isclose(bits_per_char(params, ids, n_streams=8, window=7), math.log2(20))
    assert perplexity(math.log2(20)) == pytest.approx(20)
    # windows carry the state: same answer for any window length
    params = init_params(20, 16, seed=1)
    assert bits_per_char(params, ids, window=13) == pytest.approx(bits_per_char(params, ids, window=1000))


def test_sampling_errors(trained_on_abc):
    params, vocab, ids = trained_on_abc
    with pytest.raises(ValueError, match="not in the vocabulary"):
        sample(params, vocab, "abd", 5)
    with pytest.raises(ValueError, match="prime must be a non-empty"):
        sample(params, vocab, "", 5)
    with pytest.raises(ValueError, match="temperature"):
        sample(params, vocab, "a", 5, temperature=-1)
    with pytest.raises(ValueError, match="length"):
        sample(params, vocab, "a", -5)
    with pytest.raises(ValueError, match="top_k"):
        sample(params, vocab, "a", 5, top_k=0)
    with pytest.raises(ValueError, match="vocabulary has 4 characters"):
        sample(params, Vocabulary("abcd"), "a", 5)
    with pytest.raises(ValueError, match="at least 2"):
        bits_per_char(params, ids[:1])
