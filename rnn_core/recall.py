"""The recall task of notebooks 08 and 09, and the loop that trains a cell on it.

Notebook 08 writes both in its cells (section 1) and checks that this module gives the same batches
and the same runs, number for number; notebook 09 imports them from here. A sequence at lag N:

    inputs   a  w x z ... y  ?      a signal (a, b, c or d), N - 1 distractors (w, x, y or z), a '?'
    targets  _  _ _ _ ... _  a      a blank at every step, the signal at the '?': N steps after it

so inputs and targets are (N + 1,) each, and only the last target carries information. A network
that keeps nothing guesses the signal one time in four (``CHANCE``).

``train_recall`` trains a fresh network of one cell (the module ``rnn_core``, ``rnn_core.lstm`` or
``rnn_core.gru``, or anything with their ``init_params``, ``loss_and_grads`` and ``forward``) at
one lag: Adam at a constant rate, B fresh sequences per update, the summed gradient (or, with
``per_char``, its mean over the B (N + 1) characters) clipped to a global norm, float64; it stops
when a validation batch of 256 sequences is recalled to ``solved`` (checked every ``eval_every``
updates) or after ``max_updates``, and reports the accuracy on ``test_seqs`` fresh sequences. Each
seed s draws the training batches from default_rng(s), the validation batch from default_rng(s + 1)
and the test batch from default_rng(s + 2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .optim import adam_init, adam_update, clip_global_norm
from .vocab import Vocabulary

__all__ = [
    "BLANK",
    "CHANCE",
    "DISTRACTORS",
    "QUESTION",
    "RecallRun",
    "SIGNALS",
    "recall_accuracy",
    "recall_batch",
    "task_vocab",
    "train_recall",
]

task_vocab = Vocabulary.from_text("abcdwxyz?_")  # signals, distractors, question, blank
SIGNALS, DISTRACTORS = task_vocab.encode("abcd"), task_vocab.encode("wxyz")
QUESTION, BLANK = int(task_vocab.encode("?")[0]), int(task_vocab.encode("_")[0])
CHANCE = 1 / len(SIGNALS)  # the accuracy of a guess


def recall_batch(lag, batch_size, rng):
    """B sequences of the task at lag N: (inputs, targets), each (B, N + 1), drawn with ``rng``."""
    signal = SIGNALS[rng.integers(0, len(SIGNALS), batch_size)]
    distractors = DISTRACTORS[rng.integers(0, len(DISTRACTORS), (batch_size, lag - 1))]
    question = np.full((batch_size, 1), QUESTION)
    inputs = np.concatenate([signal[:, None], distractors, question], axis=1)
    targets = np.full_like(inputs, BLANK)
    targets[:, -1] = signal  # the only informative target: the signal, N steps after it was seen
    return inputs, targets


def recall_accuracy(cell, params, inputs, targets):
    """The share of the B sequences (inputs, targets: (B, N + 1)) whose signal is the arg max at the '?'."""
    y_hat = cell.forward(params, inputs)["y_hat"][:, -1]
    return float(np.mean(y_hat.argmax(axis=1) == targets[:, -1]))


class RecallRun(NamedTuple):
    """What ``train_recall`` returns (a tuple: notebook 08 reads it as run[0] .. run[3])."""

    params: dict  # the trained parameters
    accuracy: float  # on the test sequences
    updates: int  # Adam updates made
    norms: np.ndarray  # (updates,): the gradient's global norm before clipping, at every update
    snapshots: dict  # {update: the parameters after it}, for the updates in watch_at (0: the start)


def train_recall(
    cell,
    lag,
    seed,
    hidden_size=32,
    per_char=False,
    *,
    batch_size=32,
    learning_rate=1e-2,
    clip=5.0,
    max_updates=600,
    eval_every=50,
    solved=0.99,
    test_seqs=1000,
    watch_at=(),
):
    """A fresh network of type ``cell`` trained at one lag; a ``RecallRun``.

    The defaults are notebook 08's settings (H = 32, B = 32, Adam at 1e-2, the summed gradient
    clipped at 5, at most 600 updates, a validation check every 50, solved at 0.99, 1000 test
    sequences).
    """
    rng = np.random.default_rng(seed)
    params = cell.init_params(task_vocab.size, hidden_size, seed=seed)
    opt, norms = adam_init(params), []
    snapshots = {0: params} if 0 in watch_at else {}
    val_inputs, val_targets = recall_batch(lag, 256, np.random.default_rng(seed + 1))
    for update in range(1, max_updates + 1):
        inputs, targets = recall_batch(lag, batch_size, rng)
        _, grads, _ = cell.loss_and_grads(params, inputs, targets)
        if per_char:  # the mean over the B (N + 1) characters, as rnn_core.train clips it
            grads = {name: g / inputs.size for name, g in grads.items()}
        grads, norm = clip_global_norm(grads, clip)
        norms.append(norm)
        params, opt = adam_update(params, grads, opt, learning_rate)  # new arrays: snapshots stay as they are
        if update in watch_at:
            snapshots[update] = params
        if update % eval_every == 0 and recall_accuracy(cell, params, val_inputs, val_targets) >= solved:
            break
    test = recall_batch(lag, test_seqs, np.random.default_rng(seed + 2))
    return RecallRun(params, recall_accuracy(cell, params, *test), update, np.array(norms), snapshots)
