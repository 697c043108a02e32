"""The one check of character (and class) indices, and the functions that call it: a wrong type is a
TypeError, a wrong value a ValueError, each naming the argument."""

import datetime

import numpy as np
import pytest

import rnn_core
from rnn_core import (
    StreamBatcher,
    Vocabulary,
    bits_per_char,
    cross_entropy,
    dates,
    one_hot,
    optim,
    practice,
    seq2seq,
    train,
)
from rnn_core._validation import check_indices


def test_check_indices_says_what_is_wrong():
    assert check_indices([[0, 4]], "inputs", 5).shape == (1, 2)
    with pytest.raises(TypeError, match=r"^inputs must be an integer array of character indices, got dtype float64$"):
        check_indices([0.0, 1.0], "inputs", 5)
    with pytest.raises(TypeError, match="; encode text first with a Vocabulary$"):
        check_indices(np.array(["hell"]), "inputs", 5)
    with pytest.raises(ValueError, match=r"^inputs must have shape \(T,\) or \(B, T\), got \(1, 1, 2\)$"):
        check_indices([[[0, 1]]], "inputs", 5)
    with pytest.raises(ValueError, match=r"^inputs is empty \(shape \(0,\)\): give at least one time step$"):
        check_indices(np.zeros(0, int), "inputs", 5)
    with pytest.raises(ValueError, match=r"^ids holds 1 \(shape \(1,\)\): give at least 2 character indices$"):
        check_indices([3], "ids", 5, ndim=(1,), min_size=2)
    with pytest.raises(
        ValueError, match=r"^inputs holds index 5, outside the vocabulary of size V=5 \(valid: 0\.\.4\)$"
    ):
        check_indices([0, 5], "inputs", 5)
    with pytest.raises(ValueError, match=r"^y holds index -1, outside the 3 classes \(valid: 0\.\.2\)$"):
        check_indices(-1, "y", 3, ndim=None, what="class indices", among="the 3 classes")
    assert check_indices(np.zeros((2, 0), int), "ids", None, ndim=None, min_size=0).shape == (2, 0)


FLOATS = np.array([0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: one_hot(FLOATS, 3), "y"),
        (lambda: cross_entropy(np.zeros((3, 3)), FLOATS), "y"),
        (lambda: Vocabulary("abc").decode(FLOATS), "indices"),
        (lambda: StreamBatcher(FLOATS, 1, 1), "ids"),
        (lambda: train(FLOATS, vocab=Vocabulary("abc"), steps=1, progress=False), "data"),
        (lambda: bits_per_char(rnn_core.init_params(3, 4), FLOATS), "ids"),
        (lambda: rnn_core.forward(rnn_core.init_params(3, 4), FLOATS), "inputs"),
    ],
)
def test_indices_of_the_wrong_type_are_a_type_error_everywhere(call, name):
    with pytest.raises(TypeError, match=f"^{name} must be .*an integer array of (character|class) indices"):
        call()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: one_hot([0, 3], 3), "y"),
        (lambda: Vocabulary("abc").decode([0, 3]), "indices"),
        (lambda: train(np.array([0, 1, 3] * 50), vocab=Vocabulary("abc"), steps=1, progress=False), "data"),
        (lambda: bits_per_char(rnn_core.init_params(3, 4), np.array([0, 1, 3])), "ids"),
        (lambda: rnn_core.forward(rnn_core.init_params(3, 4), [0, 3]), "inputs"),
    ],
)
def test_indices_out_of_range_are_a_value_error_everywhere(call, name):
    with pytest.raises(ValueError, match=f"^{name} holds index 3, outside "):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: optim.clip_global_norm({"a": np.ones(2)}, "1"), "max_norm must be a number"),
        (lambda: optim.clip_global_norm({"a": np.ones(2)}, None), "max_norm must be a number"),
        (lambda: optim.clip_elementwise({"a": np.ones(2)}, "5"), "clip limit must be a number"),
        (lambda: optim.sgd_update({"a": np.ones(2)}, {"a": np.ones(2)}, {}, "0.1"), "learning rate"),
        (lambda: dates.written(datetime.date(1812, 3, 3), 3), "form must be one of"),
        (lambda: seq2seq.init_params(5, 5, 4, attention=3), "attention must be None"),
        (lambda: practice.your_cell(3, {}), "name must be one of 'lstm', 'gru'"),
    ],
)
def test_other_arguments_of_the_wrong_type_are_a_type_error(call, message):
    """Arguments the functions check by hand are a TypeError for a wrong type too, naming the argument."""
    with pytest.raises(TypeError, match=message):
        call()


def test_a_prime_that_is_not_a_string_is_a_type_error():
    params = rnn_core.init_params(3, 4, seed=0)
    with pytest.raises(TypeError, match="prime must be a non-empty string, got 5"):
        rnn_core.sample(params, Vocabulary("abc"), 5, 3)
