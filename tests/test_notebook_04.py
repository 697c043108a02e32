"""Notebook 04's hand training (section 4) and its learning-rate slider, checked without a browser.

The notebook's code cells run here (tests/notebook_code.py) up to what a test needs. The learning-rate
slider calls ``show_training``: at the ends of its range and at its start it prints the line the browser
test reads and shows one figure. The hand training takes the reader's ``loss_and_grads`` when it passes
its check (``practice.use_yours``): with a right one, written in plain loops (tests/plain_my_rnn.py), it
trains exactly as rnn_core's does, to rounding, as the notebook's prose says.
"""

from __future__ import annotations

import contextlib
import io

import matplotlib.pyplot as plt
import numpy as np
import plain_my_rnn  # tests/plain_my_rnn.py: a reader's answers, in plain loops
import pytest
from matplotlib.figure import Figure
from notebook_code import capture_display, run_up_to  # tests/notebook_code.py; it draws with matplotlib's Agg backend

from rnn_core import practice

NOTEBOOK = "04-backpropagation-through-time.ipynb"


@pytest.fixture(scope="module")
def notebook():
    return capture_display(run_up_to(NOTEBOOK, "show_training"))


@pytest.mark.parametrize("learning_rate", [0.01, 0.3, 10.0])  # the slider's ends and its start
def test_the_slider_prints_the_rate_and_the_outcome_and_draws_one_figure(notebook, capsys, learning_rate):
    notebook["shown"].clear()
    notebook["show_training"](learning_rate)
    printed = capsys.readouterr().out
    assert printed.startswith(f"learning rate: {learning_rate:.3g}\n")
    assert "greedy decoding" in printed and "loss after" in printed
    assert len(notebook["shown"]) == 1 and isinstance(notebook["shown"][0], Figure)
    plt.close("all")


def test_the_stored_notebook_trains_with_rnn_cores_loss_and_grads_and_says_so(notebook):
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        chosen = practice.use_yours("loss_and_grads", notebook["loss_and_grads"])  # the exercise's stub
    assert "still a stub" in printed.getvalue() and "using rnn_core's loss_and_grads" in printed.getvalue()
    assert chosen.__module__.startswith("rnn_core")


def test_a_readers_right_loss_and_grads_trains_the_same_network(notebook):
    """With the reader's own (passing) loss_and_grads, every number of the hand training is the stored one."""
    train_by_hand, untrained, LR = notebook["train_by_hand"], notebook["untrained"], notebook["LR"]
    ours, before = train_by_hand(untrained, LR), notebook["hand_loss_and_grads"]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        notebook["hand_loss_and_grads"] = practice.use_yours("loss_and_grads", plain_my_rnn.loss_and_grads)
    try:
        assert printed.getvalue().startswith("Using your loss_and_grads: it passes its check.")
        yours = train_by_hand(untrained, LR)
    finally:
        notebook["hand_loss_and_grads"] = before
    assert yours[2] == ours[2] and yours[3] == ours[3]  # what greedy decoding said, and when it first said "ello"
    assert np.allclose(yours[1], ours[1], rtol=1e-12, atol=0)  # the losses, to rounding
    for name in notebook["PARAM_NAMES"]:
        assert np.allclose(yours[0][name], ours[0][name], rtol=1e-10, atol=1e-13)
