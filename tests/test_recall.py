"""rnn_core.recall is notebook 08's recall task and training loop, number for number.

Notebook 08 writes the task and ``train_recall`` in its cells and checks one run against this module;
notebook 09 imports them from here. This test runs 08's own cells (read from the notebook) beside the
module on short runs of every cell, with and without ``per_char``, and compares every output.
"""

from __future__ import annotations

import numpy as np
import pytest
from notebook_code import run_up_to

import rnn_core
import rnn_core.gru as gru
import rnn_core.lstm as lstm
from rnn_core import recall


def notebook_08(max_updates):
    """The namespace of 08's code up to its train_recall, with MAX_UPDATES set to ``max_updates``."""
    namespace = run_up_to("08-gated-cells-lstm.ipynb", "train_recall")
    namespace["MAX_UPDATES"] = max_updates  # the loop reads it when it runs
    return namespace


def test_the_batches_are_notebook_08s():
    nb = notebook_08(5)
    for lag in (2, 5, 17):
        ours = recall.recall_batch(lag, 7, np.random.default_rng(lag))
        theirs = nb["recall_batch"](lag, 7, np.random.default_rng(lag))
        assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))
    assert recall.task_vocab.chars == nb["task_vocab"].chars and recall.CHANCE == nb["CHANCE"]
    assert (recall.QUESTION, recall.BLANK) == (nb["QUESTION"], nb["BLANK"])


@pytest.mark.parametrize("cell", [rnn_core, lstm, gru], ids=["rnn", "lstm", "gru"])
@pytest.mark.parametrize("per_char", [False, True])
def test_a_run_is_notebook_08s_number_for_number(cell, per_char):
    nb = notebook_08(60)
    theirs = nb["train_recall"](cell, 5, 1, 8, per_char=per_char)
    ours = recall.train_recall(
        cell, 5, 1, 8, per_char, max_updates=60, eval_every=nb["EVAL_EVERY"], test_seqs=nb["TEST_SEQS"]
    )
    assert ours.accuracy == theirs[1] and ours.updates == theirs[2]
    assert np.array_equal(ours.norms, theirs[3])
    assert all(np.array_equal(ours.params[k], theirs[0][k]) for k in theirs[0])
    assert tuple(ours)[:4][1:3] == theirs[1:3]  # 08 reads a run as run[1], run[2], run[3]


def test_snapshots_are_the_parameters_after_those_updates():
    run = recall.train_recall(gru, 5, 0, 8, max_updates=12, eval_every=100, watch_at=(0, 3, 12))
    assert sorted(run.snapshots) == [0, 3, 12] and run.updates == 12
    assert all(np.array_equal(run.snapshots[12][k], run.params[k]) for k in run.params)
    assert not np.array_equal(run.snapshots[0]["W_h"], run.snapshots[3]["W_h"])
