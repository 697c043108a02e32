"""Exercises the reader writes, checked at once: what is wrong, and which published mistake it repeats.

Each notebook asks the reader to write a key piece (softmax, one step of the network, its backward
pass, BPTT, clipping, Adam, the LSTM's step...) as a function with the same arguments and return
values as the ``rnn_core`` function of that name. ``check`` runs it on cases chosen to expose
mistakes, compares every output with ``rnn_core``'s, prints one message and returns a ``Result``:

    >>> import numpy as np
    >>> from rnn_core import practice
    >>> def softmax(o):
    ...     e = np.exp(o)                      # overflows for scores near 1000
    ...     return e / e.sum()
    >>> result = practice.check("softmax", softmax)
    softmax: wrong, on large scores (around 1000), V = 6. ...
    >>> result.status, result.wrong
    ('wrong', ['y_hat'])

In a notebook the exercise is two cells: a stub the reader fills in (its body
``raise NotImplementedError``), then ``practice.check("softmax", softmax)``. The stub's check prints
a fixed "not attempted" message, so stored outputs are deterministic. A cell that ends with
``check(...)`` shows the message once: the returned ``Result`` displays nothing in Jupyter.

- ``check(name, fn, seed=None, explain=True)`` -> ``Result(status, wrong, message, errata)``. ``status`` is
  "passed"; "not attempted" (the function's own body still raises NotImplementedError, or it
  returns None, on every case); "wrong" (an output differs, it returns None on some case, a helper
  of the reader's still raises NotImplementedError, it changes its arguments or rnn_core, or it
  keeps something between calls); "error" (the reader's code raised, or ran past the time limit:
  the message shows the exception and the reader's own line); or "delegated" (it is rnn_core's own
  function, or calls it: the check cannot tell the reader's code from rnn_core's). ``wrong``
  names what differs (empty unless "wrong"): the keys of a dict of gradients or parameters ("W_hh",
  "b_h"), otherwise the names the notebooks use ("y_hat", "J", "do", "h", "loss", "h_last",
  "dh_prev", "dc_prev", "dh0", "c", "cache", "norm", "t", "m", "v"); when every output is right but
  the function changed an argument in place, the argument ("dh_t", "params['W_hh']").
  ``errata`` holds the rows of the errata table of the mistakes the answer repeats. In Jupyter a
  message that names errata rows links to the table (``ERRATA_TABLE``). ``check(name, fn,
  explain=False)`` names each recognised mistake by its row and title only, for an exercise whose
  task is to find what is wrong (the appendix's repair): the table says the rest.
- ``hint(name)`` prints a nudge in words; ``solution(name)`` prints the reference solution, the
  code of the folded *Answer* under the exercise in its notebook (both generated from
  ``rnn_core/course/solutions.py`` by ``tools/answers.py``). In a student edition
  (``rnn_core.course.edition``) ``solution`` says the instructor has withheld it.
- ``EXERCISES`` maps each name, in reading order, to the notebook that asks for it.
- ``ERRATA_ROWS``: the rows of the errata table that ``check`` recognises by name.

The exercises, and what the reader's function takes and returns (as the ``rnn_core`` function of
that name does; one sequence, vectors 1-D):

    one_hot(y, num_classes) -> rows (len(y), num_classes)                       00
    softmax(o) -> y_hat, o (V,)                                                 01
    softmax_jacobian(y_hat) -> J (V, V), from the probabilities ŷ               01
    cross_entropy_grad(o, y) -> do (V,), y an int                               02
    step_forward(params, x_t, h_prev) -> h_t (H,)                               03
    step_backward(params, dh_t, h_t, h_prev, x_t) -> (dh_prev, grads)           04  grads: W_xh, W_hh, b_h
    loss_and_grads(params, inputs, targets, h0) -> (loss, grads, h_last)        04  + dh0, if returned
    global_norm(grads) -> norm                                                  05
    clip_global_norm(grads, max_norm) -> (grads, norm before clipping)          05
    adam_update(params, grads, state, lr) -> (params, state)                    06  state: t, m, v
    lstm.step_forward(params, x_t, h_prev, c_prev) -> (h, c, cache)             08  cache: as rnn_core's
    lstm.step_backward(params, dh_t, dc_t, cache) -> (dh_prev, dc_prev, grads)  08  cache: rnn_core's
    gru.step_forward(params, x_t, h_prev) -> (h, cache)                         09  cache: as rnn_core's
    gru.step_backward(params, dh_t, cache) -> (dh_prev, grads)                  09  cache: rnn_core's
    dropout_backward(d_out, keep, rate) -> dh, keep booleans of d_out's shape  10
    seq2seq.masked_loss_and_grad(o, y, lengths) -> (loss, do), o (B, T, V)     11
    seq2seq.beam_step(log_p, log_probs, beam_size) -> (rows, tokens, scores)  11
    attention_forward(h, u, mask) -> (alpha, context), h (B, H), u (B, S, H)   12
    attention_backward(dcontext, h, u, alpha) -> (dh, du)                      12

What the check can be trusted for:

- It compares with its own copies of rnn_core's functions, loaded from rnn_core's files when this
  module is imported (``rnn_core.course.reference``): rebinding ``rnn_core.gru.step_forward``,
  or a reader's function that patches rnn_core while it runs, changes nothing it compares with. A
  message says so when rnn_core's function of the exercise has been replaced, and a function that
  changes rnn_core or numpy while it runs is wrong (check puts the originals back).
- The cases are drawn from a seeded generator and have what each exercise needs to expose its
  mistakes: H != V, num_classes unrelated to len(y), non-zero biases and states, several values of
  every scalar argument (x_t, lr, max_norm, the target y), scores near +1000 and -1000 together with
  the largest at every index in turn (a shift by any score but the largest overflows), global norms
  below, between 1 and 2 times, far above, 0.99 and 1.01 times, and within 1e-3, 1e-4 and 1e-5 of
  the clipping threshold (every entry and every array below it), a sequence whose gradient has
  entries above 5, one of 50 steps and one of over 150 whose gradient reaches back to its first step
  with entries above 40 (BPTT truncated short of the longest, or clipped inside, fails), sequences
  of one and two steps, a global norm of 40 to 80 arrays named anyhow, several Adam steps with
  different gradients (a late one, t in the thousands, of arrays with names of any kind), the index
  0 and a zero state, the two largest scores equal or 1e-9 apart, book-sized networks, and for
  notebooks 11 and 12 one row, one step, rows that all fill T, batches as training draws them,
  beam_size 1, one prefix, many exact ties, -inf scores in the answer, and masks with pads anywhere.
  Indices (beam_step's rows and tokens) must be integers, and -inf where the answer has it must be
  -inf. nan, inf, overflowing and complex outputs are wrong, with a message that says which;
  tuples and lists are alike; where the answer is one number, a list or an array holding it is
  wrong, and a number is read as the plain int or float it holds (a subclass's own ``==`` does not
  count). An output the reader's code gives in float32 is held to what float32's rounding can miss
  on its case (about 1e-6 to 1e-5 on most, more for scores near 1000), not ``TOL`` (1e-6), and so is
  a single number beside float32 arrays (a loss returned as a Python float beside a float32
  gradient): a right answer that computes in float32 passes, one off by more than its rounding
  does not. One that computes in float32
  but returns float64 arrays is held to 1e-6 and may fail.
- The reader's function gets fresh deep copies of every argument, at most ``TIME_LIMIT`` seconds per
  call (where the platform has ``signal.setitimer`` and the check runs in the main thread, as in a
  notebook), and whatever it raises (``SystemExit`` and ``KeyboardInterrupt`` included) is reported,
  never propagated; a real interrupt (the notebook's stop button) still stops the check. Returned
  objects of any type are read inside the same guard and blamed on the reader's code, named by type.
  A right answer is also run again on the first case, then on fresh copies of the last three
  cases in reverse order and of the first case six times in a row, then twice on the same arrays
  with their entries changed in between (as a training loop changes its arrays in place): a
  function that keeps something between calls (a cache keyed by id(), a ring of buffers, a count
  of calls), changes its arguments (keys added included), or returns an array it keeps and
  overwrites is wrong.
- A mistake is named only when the answer gives exactly what that mistake (or a combination of
  mistakes in different steps) gives, on every output of every case it ran. Besides the rows of
  the errata table (3, 4, 5, 7, 8, 10, 11, 13, 16, 17, 20, 21, 22, 23, 24, 27, 28, 29, 30, 31, 32 and 33), it names the
  common slips each exercise invites: a softmax that overflows, Adam without bias correction,
  clipping each array by its own norm, the LSTM's missing path from h_t into the cell, the GRU's z
  and 1 − z swapped, h_t for h_{t−1} in ∇W_hh, `=` for `+=` in a sum over time... An answer no mistake
  explains gets what each wrong output is, the case's inputs, its first entries that differ,
  expected against got, and plain remarks ("your ŷ sums to 0.31, not 1"). A case on a square network
  (H = V) runs only to explain an answer that fails on shapes where H != V, as two of the errata's
  mistakes do.

For a grader (issue 32's instructor edition): ``check(name, fn, seed=s)`` draws the cases from the
seed ``s`` instead of the public one, with the same properties, so that each submission can be
checked on fresh hidden cases; its messages are deterministic for a given seed. A submission that
is, or calls, rnn_core's own function of the exercise (by any alias or import route, its fast paths
included; calling rnn_core's other functions is allowed) gets the status "delegated", never
"passed".

Adding an exercise is one ``Exercise`` entry in ``rnn_core/course/exercises.py`` (the reference
function, argument and output names, a function that draws the cases from a generator, a model in
named steps and the mistakes that replace them, a hint) and one solution in
``rnn_core/course/solutions.py``, then ``python tools/answers.py`` to write its folded answer;
tests/test_practice.py then wants a plain implementation and a few wrong variants of it.
"""

from __future__ import annotations

import sys

from .course import reference
from .course.check import (
    ERRATA_ROWS,
    ERRATA_TABLE,
    EXERCISES,
    TIME_LIMIT,
    WIDTH,
    Result,
    check,
    hint,
    solution,
    wrap,
)
from .course.yours import MY_RNN_ENV, check_all, my_rnn, save, train_yours, use_yours, your_cell

__all__ = [
    "ERRATA_ROWS",
    "ERRATA_TABLE",
    "EXERCISES",
    "TIME_LIMIT",
    "Result",
    "check",
    "hint",
    "solution",
    "MY_RNN_ENV",
    "check_all",
    "my_rnn",
    "save",
    "train_yours",
    "use_yours",
    "your_cell",
    "WIDTH",
    "wrap",
]

# every function of the checker as it is now: check puts back any whose __code__ is swapped later
reference.remember_checker(
    sys.modules[__name__],
    sys.modules[__package__ + ".course.check"],
    sys.modules[__package__ + ".course.exercises"],
    sys.modules[__package__ + ".course.model"],
    sys.modules[__package__ + ".course.run"],
    reference,
    sys.modules[__package__ + ".course.yours"],
)
