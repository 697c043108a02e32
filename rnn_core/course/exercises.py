"""The exercises that ``rnn_core.practice`` checks: their cases, models and mistakes (private).

One ``Exercise`` per exercise, in reading order, in ``EXERCISE_LIST`` at the end. Each is compared
with the checker's private copy of its rnn_core function (``course.reference``), on cases drawn
from a ``numpy.random.Generator``: ``check`` draws them from a fixed public seed, so its messages are
the same every time; a grader may draw fresh ones (``practice.check(name, fn, seed=...)``). Every
seed gives cases with the properties the exercise needs to expose mistakes: sizes that differ where a
mix-up of sizes could hide (H != V, num_classes unrelated to len(y)), non-zero biases and starting
states, every scalar argument with at least two values (x_t, lr, max_norm), scores of both signs
near ±1000 at once (the largest at every index in turn), clipping thresholds below, between 1 and 2
times, far above and just around (0.99 and 1.01 times, and within 1e-3, 1e-4 and 1e-5 of) the norm, a
sequence whose gradient has entries above 5 and a long one (T = 50) whose gradient reaches back to its
first step; and, appended after the cases above (so that their messages stay as they were), the special
cases a shortcut hides in (T = 1, B = 1, beam_size 1, the index 0, ties, -inf, pads anywhere) and sizes
as the notebooks use them; then those a plausible wrong answer slips through (hostile37b): scores that look
alike to a memo, targets far below their position's best score, totals within 1e-9, a rate near 1, pads
far above any finite mask. ``CHAINED`` names steps given the function's own returned state (Adam's).
``Exercise.varied`` names the arguments whose entries a repeated call may change in place (any entries of
their shape suit).

Each exercise also has a *model*: a plain implementation in named steps, and its mistakes, small
functions that replace a step (see ``course.model``). The reference solution that
``practice.solution`` prints is in ``course/solutions.py``.
"""

from __future__ import annotations

import copy
import itertools
from types import SimpleNamespace

import numpy as np

from . import reference
from .model import ANSWER, Case, Exercise, Mistakes

__all__ = ["EXERCISE_LIST", "ALIASING_ROWS", "CHAINED", "EXPONENTS", "public_seed_rng"]

# the checker's own copies of the modules it compares with (never the ones a reader can rebind)
F, RNN, OPTIM, LSTM, GRU, S2S = (reference.load(m) for m in ("functions", "rnn", "optim", "lstm", "gru", "seq2seq"))

PUBLIC_SEED = 2024  # check's own cases; a grader's seed draws others with the same properties
ALIASING_ROWS = (7,)  # "delta_o = o": an array changed through a second name, the caller's changed with it
PARAM_NAMES = ("W_xh", "W_hh", "W_yh", "b_h", "b_o")
HUGE = 1e8  # BPTT's deltas in the cases whose deltas must pass a clip at any size up to millions


def public_seed_rng(seed, index):
    """The generator of exercise number ``index`` for ``seed`` (None: the public seed)."""
    return np.random.default_rng([PUBLIC_SEED if seed is None else int(seed), index])


# -- small helpers ---------------------------------------------------------------------------------


def _vector(a, digits=3):
    """A short vector as the messages show it: [1.5, -0.3, 1000]."""
    return "[" + ", ".join(f"{float(v):.{digits}g}" for v in np.ravel(a)) + "]"


def _two_sizes(rng, low=3, high=7):
    """(H, V): two different sizes in [low, high]."""
    H, V = (int(n) for n in rng.choice(np.arange(low, high + 1), size=2, replace=False))
    return H, V


def _first_step_sizes(rng):
    """(H, V) of a first-step case: H in 8..11, unlike the other cases' H; V above H, with indices to spare."""
    H = int(rng.integers(8, 12))
    return H, H + int(rng.integers(1, 4))


def _zero_first(rng, V, used):
    """The index 0 (falsy: an answer that tests ``if x_t:`` fails on it), or a fresh one if a case has it already."""
    return _fresh_index(rng, V, used) if 0 in used else _take(used, 0)


def _take(used, x_t):
    used.add(x_t)
    return x_t


def _fresh_index(rng, V, used):
    """An index in 0..V-1 not in ``used`` (where one is left), added to it: x_t differs from case to case."""
    x_t = int(rng.choice([k for k in range(V) if k not in used] or range(V)))
    used.add(x_t)
    return x_t


def _networks(rng, n, low=3, high=7):
    """n pairs (H, V), H != V in each, no two with the same H: a hard-coded size fails on one of them."""
    hidden = rng.choice(np.arange(low, high + 1), size=n, replace=False)
    return [(int(H), int(rng.choice([v for v in range(low, high + 1) if v != H]))) for H in hidden]


def _watch(*names):
    """The (module, qualified name) pairs of rnn_core functions: "functions.softmax" -> ("functions", "softmax")."""
    return frozenset(tuple(name.split(".", 1)) for name in names)


# -- one_hot ---------------------------------------------------------------------------------------


def _one_hot_cases(rng):
    cases = []
    # num_classes larger than max(y) + 1, and neither len(y) nor len(y) + 1
    T, top = int(rng.integers(4, 7)), int(rng.integers(2, 5))
    y = rng.integers(0, top + 1, T)
    y[rng.integers(T)] = top
    V = top + 1 + int(rng.integers(2, 5))
    while V in (T, T + 1):
        V += 1
    cases.append((y, V, "num_classes larger than max(y) + 1"))
    # num_classes = max(y) + 1, with more indices than classes, and more than an answer that handles only
    # the first few indices gets right: the last ones differ from the first
    V2 = int(rng.integers(3, 5))
    y2 = rng.integers(0, V2, int(rng.integers(10, 15)))
    y2[-1] = (y2[0] + 1) % V2
    y2[rng.integers(len(y2) - 1)] = V2 - 1
    cases.append((y2, V2, "more indices than classes"))
    # a few indices among many classes
    V3 = int(rng.integers(8, 11))
    y3 = rng.choice(V3, size=3, replace=False)
    cases.append((y3, V3, "three indices among many classes"))
    out = [Case(f"{about} (y = {list(map(int, y))}, num_classes = {V})", (y, V)) for y, V, about in cases]
    # one index, as the series calls it from notebook 02 on (one_hot(targets[t], V)): a Python int and
    # numpy's integer, which indexing an array of indices gives; the answer is one vector, (V,)
    V4 = int(rng.integers(5, 9))
    y4, y5 = int(rng.integers(1, V4)), np.int64(rng.integers(0, V4 - 1))
    out.append(Case(f"one index, an int (y = {y4}, num_classes = {V4}): one vector, shape (V,)", (y4, V4)))
    out.append(Case(f"one index, a numpy integer (y = np.int64({int(y5)}), num_classes = {V4})", (y5, V4)))
    # many indices among many classes, as a book's text gives them: an answer right only for the first few
    # indices, or for small num_classes, fails here
    V6 = int(rng.integers(40, 70))
    y6 = rng.integers(0, V6, int(rng.integers(40, 60)))
    y6[-2:] = V6 - 1, V6 - 2
    out.append(Case(f"many indices among many classes (len(y) = {len(y6)}, num_classes = {V6})", (y6, V6)))
    # an array of one index (rows (1, V), not one vector), the index 0 given as an int (falsy), and a book-sized
    # alphabet with a long text: answers that special-case length 1 or 0, or hold only for small sizes, fail
    V7 = int(rng.integers(5, 9))
    y7 = np.array([int(rng.integers(0, V7))])
    out.append(Case(f"an array of one index (y = {list(map(int, y7))}, num_classes = {V7}): one row", (y7, V7)))
    out.append(Case(f"the index 0 as an int (num_classes = {V7})", (0, V7)))
    V8 = int(rng.integers(90, 130))
    y8 = rng.integers(0, V8, int(rng.integers(150, 250)))
    y8[-3:] = V8 - 1, 0, V8 - 2
    out.append(Case(f"a long text among many classes (len(y) = {len(y8)}, num_classes = {V8})", (y8, V8)))
    return out


ONE_HOT_MISTAKES = Mistakes()


@ONE_HOT_MISTAKES(
    ANSWER,
    "one column per index",
    "the result is transposed: one_hot gives one row per index, with num_classes columns.",
)
def one_column_per_index(y, num_classes):
    return np.eye(num_classes)[y].T


@ONE_HOT_MISTAKES(
    ANSWER,
    "one column per index",
    "the result is transposed: one_hot gives one row per index, with num_classes columns (here a column "
    "for every index, also for one index given alone).",
)
def one_column_per_index_even_for_one(y, num_classes):
    y = np.atleast_1d(np.asarray(y))  # np.zeros((num_classes, y.size)) with a 1 in each column
    return np.eye(num_classes)[y].T


@ONE_HOT_MISTAKES(
    ANSWER,
    "one vector for all the indices",
    "a single vector with a 1 at every index: one_hot gives a row per index, each with exactly one 1.",
)
def one_vector_for_all_the_indices(y, num_classes):
    return np.isin(np.arange(num_classes), y).astype(float)


@ONE_HOT_MISTAKES(
    ANSWER,
    "rows[:, y] = 1",
    "`rows[:, y] = 1` sets, in every row, every column that y names; row t needs its 1 in column y[t] "
    "only: `rows[np.arange(len(y)), y] = 1` pairs row t with y[t].",
)
def every_row_gets_every_index(y, num_classes):
    y = np.asarray(y)
    rows = np.zeros((y.size, num_classes))
    rows[:, y.ravel()] = 1.0
    return rows.reshape(y.shape + (num_classes,))


@ONE_HOT_MISTAKES(
    ANSWER,
    "a row for one index",
    "for one index (an int) your one_hot returns one row, shape (1, V); one_hot(y, V) of an int is the "
    "vector itself, shape (V,), as the series uses it in one_hot(targets[t], V).",
)
def a_row_for_one_index(y, num_classes):
    return np.eye(num_classes)[np.atleast_1d(y)]


@ONE_HOT_MISTAKES(
    ANSWER,
    "num_classes taken from the data",
    "your rows have max(y) + 1 columns, read off the indices; one_hot has num_classes columns, "
    "whichever indices this y happens to hold.",
)
def width_from_the_data(y, num_classes):
    return np.eye(int(np.max(y)) + 1)[y]


def _one_hot_rows(case, got, want):
    rows = _floats(got.get("one_hot"))
    if rows is None or np.ndim(case.args[0]) == 0:
        return None
    if rows.ndim != 2 or rows.shape[0] != len(case.args[0]):
        return None
    V = case.args[1]
    if rows.shape[1] != V:
        return f"Your array has {rows.shape[1]} columns; num_classes = {V} asks for {V}, one per class."
    sums = rows.sum(axis=1)
    bad = np.flatnonzero(~np.isclose(sums, 1.0))
    if bad.size:
        return f"Row {bad[0]} of yours sums to {sums[bad[0]]:.4g}, not 1: each row holds exactly one 1."
    return None


# -- softmax and its Jacobian ------------------------------------------------------------------------


def _softmax_cases(rng):
    V = [int(v) for v in rng.choice(np.arange(4, 8), size=4)]
    moderate = rng.normal(0.0, 1.5, V[0])
    large = 1000.0 + rng.normal(0.0, 2.0, V[1])
    negative = -1000.0 + rng.normal(0.0, 2.0, V[2])
    # both signs at once, the largest not first: a shift by the mean, the smallest or the first score overflows
    wide = rng.normal(0.0, 2.0, V[3])
    top, bottom = rng.choice(np.arange(1, V[3]), size=2, replace=False)
    wide[top], wide[bottom] = 1000.0 + rng.uniform(0, 1), -1000.0 - rng.uniform(0, 1)
    # the largest at every index in turn, every other score at least 1000 below it: a shift by any one score,
    # or by the largest of some of them, overflows on one of these
    V4 = int(rng.integers(4, 6))
    everywhere = []
    for k in range(V4):
        scores = rng.normal(0.0, 2.0, V4)
        scores[k] = 1000.0 + rng.uniform(0, 1)
        scores[(k + int(rng.integers(1, V4))) % V4] = -1000.0 - rng.uniform(0, 1)
        everywhere.append(
            Case(
                f"scores from -1000 to 1000, the largest at index {k}, V = {V4}",
                (scores,),
                group=f"scores from -1000 to 1000 with the largest at each index in turn, V = {V4} ({V4} cases)",
            )
        )
    # many scores, every one negative, from -1000 to -1, the largest near the end: a shift by the smallest score
    # when none is positive overflows, and an answer right only for small V (sums of the first few, say) fails
    V5 = int(rng.integers(30, 60))
    many = -rng.uniform(1.0, 1000.0, V5)
    many[0], many[-3], many[-5] = -1000.0, -1.0 - rng.uniform(0, 0.5), -1.5 - rng.uniform(0, 0.5)
    return [
        Case(f"scores of moderate size, V = {V[0]}", (moderate,)),
        Case(f"large scores (around 1000), V = {V[1]}", (large,)),
        Case(f"very negative scores (around -1000), V = {V[2]}", (negative,)),
        Case(f"scores from -1000 to 1000 at once, V = {V[3]}", (wide,)),
        *everywhere,
        Case(f"many negative scores, from -1000 to -1, V = {V5}", (many,)),
        *_softmax_more_cases(rng),
    ]


def _softmax_more_cases(rng):
    """Many scores from -1000 to 1000, the first half of them below -900 and the largest far from the front; the
    two largest scores exactly equal, and two within 1e-9 of each other: an answer that shifts by the largest of
    the first few scores, holds only for small V, or treats (near-)ties at the top apart, fails here."""
    V = int(rng.integers(80, 130))
    wide = np.concatenate([rng.uniform(-1000.0, -900.0, V // 2), rng.uniform(-1000.0, 1000.0, V - V // 2)])
    wide[int(rng.integers(V // 2, V))] = 1000.0 + rng.uniform(0, 1)
    tie = rng.normal(0.0, 2.0, int(rng.integers(5, 9)))
    i, j = rng.choice(len(tie), size=2, replace=False)
    tie[i] = tie[j] = tie.max() + rng.uniform(0.5, 1.0)
    near = rng.normal(0.0, 2.0, int(rng.integers(5, 9)))
    i, j = rng.choice(len(near), size=2, replace=False)
    near[i] = near.max() + rng.uniform(0.5, 1.0)
    near[j] = near[i] - 1e-9
    return [
        Case(f"many scores from -1000 to 1000, the largest far from the front, V = {V}", (wide,)),
        Case(f"the two largest scores equal, V = {len(tie)}", (tie,)),
        Case(f"the two largest scores 1e-9 apart, V = {len(near)}", (near,)),
        *_softmax_lookalike_cases(rng),
    ]


def _softmax_lookalike_cases(rng):
    """Three calls on scores that look alike: whole quarters, then the same scores with the middle ones reordered
    (the shape, the ends, the sum, the mean, the norm, the largest and the smallest all the same, exactly: sums of
    quarters are exact in any order), then the first scores again with only the last but one and two changed (the
    first V - 3, more than 16, the same). A result looked up by any of these (a memo keyed by the ends and the sum,
    by the sum, the norm and the largest, or by the first 16 scores' bytes) comes out stale on one of them
    (hostile37, 5e; hostile37b, 2e)."""
    V = int(rng.integers(24, 33))
    first = rng.integers(-20, 21, V) / 4.0
    middle = first[1:-1]
    order = rng.permutation(V - 2)
    while np.array_equal(middle[order], middle):
        order = rng.permutation(V - 2)
    reordered = first.copy()
    reordered[1:-1] = middle[order]
    tail = first.copy()
    tail[-3] += 1.25
    tail[-2] -= 0.75
    return [
        Case(f"scores in whole quarters, V = {V}", (first,)),
        Case(
            f"the scores of the case before, the middle ones reordered (the ends, sum, norm, largest and smallest the "
            f"same), V = {V}",
            (reordered,),
        ),
        Case(f"the scores of the case two before, the last but one and two changed, V = {V}", (tail,)),
    ]


_OVERFLOW = (
    "exp overflows to inf for scores near 1000 (and every exp underflows to 0 near -1000): subtract the "
    "largest score from every score first, which leaves softmax unchanged (notebook 01)."
)

SOFTMAX_MISTAKES = Mistakes()


@SOFTMAX_MISTAKES(
    ANSWER, "−softmax", "a minus sign in front: negative numbers that sum to −1, not probabilities.", (11,)
)
def minus_softmax(o):
    return -F.softmax(o)


@SOFTMAX_MISTAKES(
    ANSWER, "exp without the sum", "the exponentials are not divided by their sum, so they do not add up to 1."
)
def exp_without_the_sum(o):
    return np.exp(o - np.max(o))


@SOFTMAX_MISTAKES(ANSWER, "no shift by the largest score", _OVERFLOW)
def no_shift(o):
    return np.exp(o) / np.exp(o).sum()


@SOFTMAX_MISTAKES(
    ANSWER,
    "a shift by the mean",
    "the scores shifted by their mean, not their largest: with scores near 1000 and near −1000 together, exp "
    "still overflows and the result is nan. Subtract the largest score: every exponent is then at most 0.",
)
def shift_by_the_mean(o):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(o - np.mean(o))
        return e / e.sum()


@SOFTMAX_MISTAKES(ANSWER, "log-probabilities", "these are log ŷ, the logs of the probabilities: softmax is ŷ itself.")
def log_softmax(o):
    return np.log(F.softmax(o))


def _probabilities(case, got, want):
    y_hat = _floats(got.get("y_hat"))
    if y_hat is None or y_hat.shape != np.shape(want["y_hat"]):
        return None
    if not np.all(np.isfinite(y_hat)):
        return f"Your ŷ holds {_nonfinite(y_hat)}: {_OVERFLOW}"
    if np.any(y_hat < 0):
        return f"Your ŷ has negative entries (the smallest {y_hat.min():.4g}): probabilities are at least 0."
    if not np.isclose(y_hat.sum(), 1.0):
        return f"Your ŷ sums to {y_hat.sum():.4g}, not 1: probabilities add up to 1."
    return None


def _jacobian_cases(rng):
    out = []
    for V in (int(rng.integers(4, 6)), int(rng.integers(6, 8))):
        o = np.round(rng.normal(0.0, 1.2, V), 2)
        out.append(Case(f"ŷ = softmax(o) for o = {_vector(o)}, V = {V}", (F.softmax(o),)))
    # many classes, some probabilities far below 1e-3 and one near 1: an answer right only for small V, or one
    # that clips the tiny entries, fails here
    V = int(rng.integers(30, 50))
    o = rng.normal(0.0, 3.0, V)
    o[int(rng.integers(V // 2, V))] = 12.0
    out.append(Case(f"ŷ = softmax(o) for o of V = {V} scores, one far above the rest", (F.softmax(o),)))
    # a book-sized alphabet, two probabilities exactly equal: an answer right only for V up to some size fails
    V = int(rng.integers(80, 130))
    o = rng.normal(0.0, 1.0, V)
    o[int(rng.integers(V // 2, V))] = o[int(rng.integers(0, V // 2))]
    out.append(Case(f"ŷ = softmax(o) for o of V = {V} scores", (F.softmax(o),)))
    return out


JACOBIAN_MISTAKES = Mistakes()


@JACOBIAN_MISTAKES(
    ANSWER,
    "−ŷŷᵀ as the softmax Jacobian",
    "−ŷŷᵀ is only the part for i ≠ k; J = diag(ŷ) − ŷŷᵀ, so the diagonal, ŷ_i (1 − ŷ_i), is missing its ŷ_i.",
    (3,),
)
def minus_outer_product_alone(y_hat):
    return -np.outer(y_hat, y_hat)


@JACOBIAN_MISTAKES(ANSWER, "diag(ŷ) + ŷŷᵀ", "the sign of the outer product flipped: ∂ŷ_i/∂o_k = ŷ_i ([i = k] − ŷ_k).")
def plus_outer_product(y_hat):
    return np.diag(y_hat) + np.outer(y_hat, y_hat)


@JACOBIAN_MISTAKES(ANSWER, "−J", "every sign flipped: ŷŷᵀ − diag(ŷ) is −J; J = diag(ŷ) − ŷŷᵀ.")
def minus_jacobian(y_hat):
    return np.outer(y_hat, y_hat) - np.diag(y_hat)


@JACOBIAN_MISTAKES(
    ANSWER, "only the diagonal", "only the case i = k, ŷ_i (1 − ŷ_i): every off-diagonal entry −ŷ_i ŷ_k is missing."
)
def only_the_diagonal(y_hat):
    return np.diag(y_hat * (1 - y_hat))


@JACOBIAN_MISTAKES(
    ANSWER,
    "the diagonal as a vector",
    "the V numbers ŷ_i (1 − ŷ_i) alone; the Jacobian is the V × V matrix diag(ŷ) − ŷŷᵀ.",
)
def the_diagonal_as_a_vector(y_hat):
    return y_hat * (1 - y_hat)


@JACOBIAN_MISTAKES(
    ANSWER,
    "y_hat @ y_hat.T on a 1-D array",
    "for a 1-D array .T changes nothing, and y_hat @ y_hat.T is the number Σ_k ŷ_k², not the outer product "
    "ŷŷᵀ: every entry of J lost that number. np.outer(y_hat, y_hat) is the V × V matrix.",
)
def inner_product_for_the_outer(y_hat):
    return np.diag(y_hat) - y_hat @ y_hat.T


@JACOBIAN_MISTAKES(
    ANSWER,
    "y_hat * y_hat for the outer product",
    "y_hat * y_hat is the vector of the ŷ_k², which numpy repeats down the rows; ŷŷᵀ is the V × V matrix "
    "of the products ŷ_i ŷ_k, np.outer(y_hat, y_hat).",
)
def squares_for_the_outer(y_hat):
    return np.diag(y_hat) - y_hat * y_hat


@JACOBIAN_MISTAKES(
    ANSWER,
    "softmax taken again",
    "the argument is already the probabilities ŷ = softmax(o); your function applies softmax to it once more.",
)
def softmax_taken_again(y_hat):
    again = F.softmax(y_hat)
    return np.diag(again) - np.outer(again, again)


def _jacobian_rows(case, got, want):
    J = _floats(got.get("J"))
    if J is None or J.shape != np.shape(want["J"]):
        return None
    sums = J.sum(axis=1)
    if not np.allclose(sums, 0.0, atol=1e-9):
        return f"The rows of your J sum to {_vector(sums, 2)}; each row of J sums to 0 (ŷ always sums to 1)."
    if not np.allclose(J, J.T, atol=1e-12):
        return "Your J is not symmetric; J = diag(ŷ) − ŷŷᵀ is."
    return None


# -- cross_entropy_grad ------------------------------------------------------------------------------


def _cross_entropy_cases(rng):
    V = [int(v) for v in rng.choice(np.arange(4, 8), size=3)]
    moderate = rng.normal(0.0, 1.5, V[0])
    large = 1000.0 + rng.normal(0.0, 2.0, V[1])
    wide = rng.normal(0.0, 2.0, V[2])
    top, bottom = rng.choice(np.arange(1, V[2]), size=2, replace=False)  # the largest not first
    wide[top], wide[bottom] = 1000.0 + rng.uniform(0, 1), -1000.0 - rng.uniform(0, 1)
    y0 = int(rng.integers(V[0]))
    y1 = int(rng.choice([k for k in range(V[1]) if k != np.argmax(large)]))  # not the largest score
    V3 = int(rng.integers(30, 60))  # many classes: an answer right only for small V fails here
    y3 = int(rng.integers(V3 // 2, V3))
    return [
        Case(f"scores of moderate size, V = {V[0]}, target y = {y0}", (moderate, y0)),
        Case(f"large scores (around 1000), V = {V[1]}, target y = {y1}", (large, y1)),
        Case(
            f"scores from -1000 to 1000 at once, V = {V[2]}, target y = {int(bottom)}, the smallest score",
            (wide, int(bottom)),
        ),
        Case(f"many classes, V = {V3}, target y = {y3}", (rng.normal(0.0, 2.0, V3), y3)),
        *_cross_entropy_more_cases(rng),
    ]


def _cross_entropy_more_cases(rng):
    """The targets 0 and V − 1 (an index that is falsy, and the last one), the two largest scores equal or 1e-9
    apart with the target among them or not, and a book-sized alphabet: answers that special-case a target,
    a (near-)tie at the top, or hold only for small V, fail here."""
    cases = []
    V = int(rng.integers(5, 9))
    cases.append(Case(f"target y = 0, V = {V}", (rng.normal(0.0, 2.0, V), 0)))
    cases.append(Case(f"target y = {V - 1}, the last class, V = {V}", (rng.normal(0.0, 2.0, V), V - 1)))
    for gap, about in ((0.0, "equal"), (1e-9, "1e-9 apart")):
        o = rng.normal(0.0, 2.0, V)
        i, j = (int(k) for k in rng.choice(V, size=2, replace=False))
        o[i] = o.max() + rng.uniform(0.5, 1.0)
        o[j] = o[i] - gap
        other = int(rng.choice([k for k in range(V) if k not in (i, j)]))
        for y in (i, other):  # the target one of the two, or neither
            cases.append(Case(f"the two largest scores {about} (at {i} and {j}), target y = {y}, V = {V}", (o, y)))
    V = int(rng.integers(80, 130))
    y = int(rng.integers(V // 2, V))
    cases.append(Case(f"a book-sized alphabet, V = {V}, target y = {y}", (rng.uniform(-1000.0, 1000.0, V), y)))
    return cases


CROSS_ENTROPY_MISTAKES = Mistakes()


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "softmax(o) as the gradient",
    "the target term is missing: the gradient is ŷ − 𝐲, the probabilities minus the one-hot target.",
    (3,),
)
def softmax_as_the_gradient(o, y):
    return F.softmax(o)


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "loss without its minus",
    "𝐲 − ŷ is the gradient of +log ŷ_y: the sign is flipped, and gradient descent on it would make the "
    "prediction worse.",
    (10,),
)
def target_minus_probabilities(o, y):
    return np.eye(len(o))[y] - F.softmax(o)


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "the target dropped from the loss",
    "V ŷ − 1 is the gradient of −Σ_i log ŷ_i, the loss with the target distribution left out.",
    (13,),
)
def target_dropped(o, y):
    return len(o) * F.softmax(o) - 1


@CROSS_ENTROPY_MISTAKES(ANSWER, "−softmax", "softmax with a stray minus sign: −ŷ − 𝐲.", (11,))
def minus_softmax_minus_target(o, y):
    return -F.softmax(o) - np.eye(len(o))[y]


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "the gradient with respect to ŷ",
    "−𝐲 / ŷ is the gradient with respect to the probabilities; the exercise asks for the scores o: go on "
    "through softmax's Jacobian (notebook 02, section 4).",
)
def gradient_with_respect_to_the_probabilities(o, y):
    return -np.eye(len(o))[y] / F.softmax(o)


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "the index subtracted from every score",
    "ŷ − y with y the index, a number: the target must be one-hot, 𝐲 = one_hot(y, V).",
)
def index_subtracted(o, y):
    return F.softmax(o) - y


@CROSS_ENTROPY_MISTAKES(
    ANSWER,
    "A where Aᵀ belongs",
    "through log-softmax, ∇o L = Aᵀ ∇log ŷ L with A = I − 1ŷᵀ, which is not symmetric; A (−𝐲) = ŷ_y 1 − 𝐲 "
    "leaves out the probabilities of the other characters (notebook 02, section 7).",
)
def log_softmax_jacobian_untransposed(o, y):
    return F.softmax(o)[y] * np.ones(len(o)) - np.eye(len(o))[y]


@CROSS_ENTROPY_MISTAKES(ANSWER, "no shift by the largest score", _OVERFLOW)
def no_shift_in_the_gradient(o, y):
    return np.exp(o) / np.exp(o).sum() - np.eye(len(o))[y]


def _gradient_sums_to_zero(case, got, want):
    do = _floats(got.get("do"))
    if do is None or do.shape != np.shape(want["do"]):
        return None
    if not np.all(np.isfinite(do)):
        return f"Your do holds {_nonfinite(do)}: {_OVERFLOW}"
    if not np.isclose(do.sum(), 0.0, atol=1e-9):
        return f"Your do sums to {do.sum():.4g}, not 0: ŷ − 𝐲 always sums to 0 (ŷ and 𝐲 both sum to 1)."
    return None


# -- the vanilla RNN: one step forward and back, and BPTT over a sequence ------------------------------


def _rnn_params(rng, V, H):
    """Parameters of a V, H network with non-zero biases (every term of every gradient switched on) and h0 != 0."""
    params = RNN.init_params(V, H, seed=int(rng.integers(2**31)))
    params["W_xh"] = params["W_xh"] + 0.3 * rng.standard_normal((H, V))  # inputs that matter
    params["b_h"] = 0.3 * rng.standard_normal(H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    return params, 0.5 * rng.standard_normal(H)


def _sizes(H, V):
    return f"H = {H}, V = {V}"


def _step_forward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 3):
        params, h_prev = _rnn_params(rng, V, H)
        x_t = _fresh_index(rng, V, used)
        about = f"one step with {_sizes(H, V)}, x_t = {x_t}, h_prev ≠ 0, non-zero biases"
        cases.append(Case(about, (params, x_t, h_prev)))
    H = int(rng.integers(4, 6))
    params, h_prev = _rnn_params(rng, H, H)
    cases.append(Case(f"a square network (H = V = {H})", (params, int(rng.integers(H)), h_prev), square=True))
    # a wide network whose weights are large: pre-activations far beyond ±5 (tanh within 1e-4 of ±1), so that an
    # answer right only for a few units, or one that clips the pre-activation, fails here
    H, V = int(rng.integers(12, 20)), int(rng.integers(30, 50))
    params, h_prev = _rnn_params(rng, V, H)
    params = {k: 6.0 * a for k, a in params.items()}
    about = f"a wide network ({_sizes(H, V)}) with large weights: pre-activations far beyond ±5"
    cases.append(Case(about, (params, _fresh_index(rng, V, used), h_prev)))
    # the first step (h_prev = 0, as from h0 = zeros) and the input 0, then a book-sized network: an answer that
    # special-cases a zero state or the index 0, or holds only for small sizes, fails here
    (H, V), H2, V2 = (
        _first_step_sizes(rng),
        int(rng.integers(40, 70)),
        int(rng.integers(80, 130)),
    )
    params, _ = _rnn_params(rng, V, H)
    x_t = _zero_first(rng, V, used)
    cases.append(Case(f"the first step: h_prev = 0, x_t = {x_t} ({_sizes(H, V)})", (params, x_t, np.zeros(H))))
    params, h_prev = _rnn_params(rng, V2, H2)
    used.add(V2 - 1)
    cases.append(Case(f"a book-sized network ({_sizes(H2, V2)}), x_t = {V2 - 1}", (params, V2 - 1, h_prev)))
    return cases


def _step_forward_model(args, s, case):
    params, x_t, h_prev = args
    return s.squash(s.recurrent(params["W_hh"], h_prev) + s.input(params["W_xh"], x_t) + s.bias(params["b_h"]))


STEP_FORWARD_STEPS = {
    "recurrent": lambda W_hh, h_prev: W_hh @ h_prev,
    "input": lambda W_xh, x_t: W_xh[:, x_t],
    "bias": lambda b_h: b_h,
    "squash": np.tanh,
}

STEP_FORWARD_MISTAKES = Mistakes()


@STEP_FORWARD_MISTAKES(
    "recurrent",
    "W_hh transposed",
    "W_hhᵀ h_{t−1} where W_hh h_{t−1} belongs (in the row convention, h_prev @ W_hh needs W_hh.T).",
)
def W_hh_transposed(W_hh, h_prev):
    return W_hh.T @ h_prev


@STEP_FORWARD_MISTAKES("recurrent", "no recurrent term", "W_hh h_{t−1} is missing: the step forgets the state.")
def no_recurrent_term(W_hh, h_prev):
    return 0.0


@STEP_FORWARD_MISTAKES(
    "input",
    "row x_t of W_xh",
    "with a one-hot x_t, W_xh x_t is column x_t of W_xh (W_xh[:, x_t]), not row x_t "
    "(W_xh is (H, V): one column per character).",
)
def row_of_W_xh(W_xh, x_t):
    return W_xh[x_t]


@STEP_FORWARD_MISTAKES("bias", "no bias", "b_h is missing inside the tanh.")
def no_bias(b_h):
    return 0.0


@STEP_FORWARD_MISTAKES("squash", "no tanh", "the pre-activation itself: h_t = tanh(...) squashes it.")
def no_tanh(a):
    return a


@STEP_FORWARD_MISTAKES("squash", "sigmoid in place of tanh", "the vanilla RNN squashes with tanh, into (−1, 1).")
def sigmoid_for_tanh(a):
    return F.sigmoid(a)


def _write_into(old, new):
    """Each entry of ``new`` written into ``old``'s array of that key, in place (the same objects stay)."""
    for key, value in new.items():
        if isinstance(old.get(key), np.ndarray) and np.shape(old[key]) == np.shape(value):
            old[key][...] = value
        else:
            old[key] = value


def _step_again(args):
    """h_t made again from the params, h_prev and x_t the repeated calls changed (hostile37n, R12: an answer that
    works h_t out from the params is right, and a stale h_t would refuse it)."""
    params, _, h_t, h_prev, x_t = args
    h_t[...] = RNN.step_forward(params, x_t, h_prev)


def _lstm_step_again(args):
    params, _, _, cache = args
    _write_into(cache, LSTM.step_forward(params, cache["x"], cache["h_prev"], cache["c_prev"])[2])


def _gru_step_again(args):
    params, _, cache = args
    _write_into(cache, GRU.step_forward(params, cache["x"], cache["h_prev"])[1])


def _step_backward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 3):
        params, h_prev = _rnn_params(rng, V, H)
        x_t = _fresh_index(rng, V, used)
        h_t = RNN.step_forward(params, x_t, h_prev)
        dh_t = rng.standard_normal(H)
        cases.append(Case(f"one step with {_sizes(H, V)}, x_t = {x_t}, h_prev ≠ 0", (params, dh_t, h_t, h_prev, x_t)))
    H = int(rng.integers(4, 6))
    params, h_prev = _rnn_params(rng, H, H)
    x_t = int(rng.integers(H))
    case = (params, rng.standard_normal(H), RNN.step_forward(params, x_t, h_prev), h_prev, x_t)
    cases.append(Case(f"a square network (H = V = {H})", case, square=True))
    # a wide network and an upstream gradient with entries far above any clip (about 100): an answer right only for
    # a few units, or one that clips δ, fails here
    H, V = int(rng.integers(12, 20)), int(rng.integers(30, 50))
    params, h_prev = _rnn_params(rng, V, H)
    x_t = _fresh_index(rng, V, used)
    case = (params, 100.0 * rng.standard_normal(H), RNN.step_forward(params, x_t, h_prev), h_prev, x_t)
    cases.append(Case(f"a wide network ({_sizes(H, V)}), upstream gradient entries around 100", case))
    # the input 0 at the first step (h_prev = 0), and upstream gradients around 1e4 in a book-sized network: an
    # answer that special-cases the index 0 or a zero state, or clips δ at any size up to thousands, fails here
    (H, V), H2, V2 = (
        _first_step_sizes(rng),
        int(rng.integers(40, 70)),
        int(rng.integers(80, 130)),
    )
    params, _ = _rnn_params(rng, V, H)
    h_prev, x_t = np.zeros(H), _zero_first(rng, V, used)
    case = (params, rng.standard_normal(H), RNN.step_forward(params, x_t, h_prev), h_prev, x_t)
    cases.append(Case(f"the first step: h_prev = 0, x_t = {x_t} ({_sizes(H, V)})", case))
    params, h_prev = _rnn_params(rng, V2, H2)
    used.add(V2 - 1)
    case = (params, 1e4 * rng.standard_normal(H2), RNN.step_forward(params, V2 - 1, h_prev), h_prev, V2 - 1)
    cases.append(Case(f"a book-sized network ({_sizes(H2, V2)}), upstream gradient entries around 10000", case))
    # upstream gradients near 1e8: a δ clipped at ±1e5 (or at any size up to millions) fails here
    H, V = int(rng.integers(20, 30)), int(rng.integers(30, 40))  # an H no other case has
    params, h_prev = _rnn_params(rng, V, H)
    x_t = _fresh_index(rng, V, used)
    case = (params, HUGE * rng.standard_normal(H), RNN.step_forward(params, x_t, h_prev), h_prev, x_t)
    cases.append(Case(f"one step ({_sizes(H, V)}), upstream gradient entries near 1e8", case))
    return cases


def _step_backward_model(args, s, case):
    params, dh_t, h_t, h_prev, x_t = args
    W_xh, W_hh = params["W_xh"], params["W_hh"]
    x = np.eye(W_xh.shape[1])[x_t]
    slope = s.slope(h_t, h_prev)
    delta = slope * dh_t
    up = s.upstream(delta, slope)
    grads = {"W_xh": np.outer(up, x), "W_hh": s.W_hh_grad(delta, h_prev, h_t, x), "b_h": up}
    return s.back(W_hh, W_xh, delta, dh_t, h_t), grads


BACKWARD_STEPS = {
    "slope": lambda h, h_prev: 1 - h**2,  # tanh' of this step: 1 − h_t²
    "upstream": lambda delta, slope: delta,  # what W_xh and b_h receive
    "W_hh_grad": lambda delta, h_prev, h, x: np.outer(delta, h_prev),  # δ_t h_{t−1}ᵀ
    "back": lambda W_hh, W_xh, delta, dh, h: W_hh.T @ delta,  # what reaches h_{t−1}
}

STEP_BACKWARD_MISTAKES = Mistakes()
LOSS_AND_GRADS_MISTAKES = Mistakes()


def _both(step, name, why, rows=()):
    """Register a mistake of the backward step with step_backward and loss_and_grads alike."""

    def register(fn):
        STEP_BACKWARD_MISTAKES(step, name, why, rows)(fn)
        return LOSS_AND_GRADS_MISTAKES(step, name, why, rows)(fn)

    return register


@_both(
    "slope",
    "tanh' at the wrong step",
    "δ_t = (1 − h_t²) ⊙ ∇h_t L uses the slope of this step's h_t, not h_{t−1}'s.",
    (28,),
)
def tanh_slope_at_the_wrong_step(h, h_prev):
    return 1 - h_prev**2


@_both("slope", "sigmoid's derivative", "h(1 − h) is the logistic sigmoid's slope; tanh's is 1 − h².", (21,))
def sigmoid_slope(h, h_prev):
    return h * (1 - h)


@_both("slope", "no tanh'", "going back through h_t = tanh(a_t) multiplies by its slope: δ_t = (1 − h_t²) ⊙ ∇h_t L.")
def no_slope(h, h_prev):
    return np.ones_like(h)


@_both(
    "upstream",
    "no upstream gradient",
    "W_xh and b_h received the slope 1 − h_t² alone, without ∇h_t L: their gradients do not even depend on "
    "the targets.",
    (22,),
)
def no_upstream_gradient(delta, slope):
    return slope


@_both("W_hh_grad", "x_t in place of h_{t-1}", "∇W_hh L = Σ_t δ_t h_{t−1}ᵀ: W_hh multiplies h_{t−1}, not x_t.", (23,))
def x_t_for_h_prev(delta, h_prev, h, x):
    return np.outer(delta, x)


@_both(
    "W_hh_grad",
    "h_t in place of h_{t-1}",
    "∇W_hh L = Σ_t δ_t h_{t−1}ᵀ: W_hh multiplies the state *before* step t, h_{t−1}, not h_t.",
)
def h_t_for_h_prev(delta, h_prev, h, x):
    return np.outer(delta, h)


@_both("W_hh_grad", "dW_hh transposed", "∇W_hh L is δ_t h_{t−1}ᵀ: row i belongs to unit i of h_t.")
def W_hh_gradient_transposed(delta, h_prev, h, x):
    return np.outer(h_prev, delta)


@_both("back", "W_hh not transposed", "going back from δ_t to h_{t−1} multiplies by W_hhᵀ, not W_hh.", (27,))
def W_hh_not_transposed(W_hh, W_xh, delta, dh, h):
    return W_hh @ delta


@_both("back", "W_xh in place of W_hh", "what reaches h_{t−1} went back through W_xhᵀ instead of W_hhᵀ.", (17,))
def W_xh_for_W_hh(W_hh, W_xh, delta, dh, h):
    return W_xh.T @ delta


@_both(
    "back",
    "tanh' after W_hhᵀ",
    "the slope 1 − h_t² of h_t's units applied after going back through W_hhᵀ, to h_{t−1}'s units: "
    "δ_t = (1 − h_t²) ⊙ ∇h_t L comes first.",
    (16, 20),
)
def tanh_slope_after_W_hh(W_hh, W_xh, delta, dh, h):
    return (1 - h**2) * (W_hh.T @ dh)


# loss_and_grads: the same steps, and those of the output layer and of the sums over time


def _sequence(rng, V, H, T, about, square=False):
    params, h0 = _rnn_params(rng, V, H)
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V, T)
    return Case(about, (params, inputs, targets, h0), square=square)


def _large_gradient_case(rng, V, H, T):
    """A long sequence that keeps asking for one character the network finds unlikely: entries of the
    gradient far above 5 (the sum over T steps of ŷ − 𝐲 at that character is below -T/2)."""
    params, h0 = _rnn_params(rng, V, H)
    wanted = int(rng.integers(V))
    params["b_o"][wanted] = -4.0  # ŷ_t of the wanted character stays below 1/2 at every step
    inputs = rng.integers(0, V, T)
    targets = np.where(rng.random(T) < 0.85, wanted, rng.integers(0, V, T))
    return Case(
        f"a sequence of T = {T} steps whose gradient has entries above 5 ({_sizes(H, V)}, h0 ≠ 0)",
        (params, inputs, targets, h0),
    )


LONG_T = 50  # the long case's length: far longer than a truncation that still looks right on short cases
LONGEST_T = 200  # the longest such case's length is drawn above three quarters of this, up to it (the grader's
# large case is longer still: _large_loss_and_grads)


def _long_memory_case(rng, V, H, T=LONG_T, scale=0.95):
    """A long sequence whose gradient reaches back to its first step and has entries above 40: W_hh = 0.95 times
    a rotation and small inputs keep tanh near its linear part, so what reaches h0 from the last step still
    weighs about scale^T (far above the check's 1e-6: BPTT truncated well below T fails); and the
    sequence keeps asking for a character the network finds unlikely (∇b_o L there is about 45 - T)."""
    params, h0 = _rnn_params(rng, V, H)
    rotation, _ = np.linalg.qr(rng.standard_normal((H, H)))
    params["W_hh"] = scale * rotation
    params["W_xh"] = 0.1 * rng.standard_normal((H, V))
    params["b_h"] = 0.05 * rng.standard_normal(H)
    wanted = int(rng.integers(V))
    params["b_o"][wanted] = -8.0  # ŷ_t of the wanted character stays near 0 at every step
    inputs = rng.integers(0, V, T)
    targets = np.full(T, wanted)
    others = rng.choice(T, size=5, replace=False)
    targets[others] = (wanted + rng.integers(1, V, size=5)) % V
    return Case(
        f"a sequence of T = {T} steps whose gradient reaches back to its first step and has entries above 40 "
        f"({_sizes(H, V)}, h0 ≠ 0)",
        (params, inputs, targets, 0.1 * h0),
        long=True,
    )


def _loss_and_grads_cases(rng):
    (H1, V1), (H2, V2), (H3, V3) = _networks(rng, 3)
    T1 = int(rng.integers(5, 7))
    H = int(rng.integers(4, 6))
    cases = [
        _sequence(rng, V1, H1, T1, f"a sequence of T = {T1} steps ({_sizes(H1, V1)}, h0 ≠ 0, non-zero biases)"),
        _sequence(rng, V2, H2, 3, f"a sequence of T = 3 steps ({_sizes(H2, V2)}, h0 ≠ 0, non-zero biases)"),
        _large_gradient_case(rng, V3, H3, 12),
        _sequence(rng, H, H, 5, f"a square network (H = V = {H})", square=True),
    ]
    (H4, V4), (H5, V5) = _networks(rng, 2)
    cases = cases[:3] + [_long_memory_case(rng, V4, H4), _large_output_weights_case(rng, V5, H5)] + cases[3:]
    # one step and two steps (an answer that special-cases a short sequence fails), and a long text read through a
    # book-sized network (one right only up to some length or size fails)
    (H6, V6), (H7, V7) = _networks(rng, 2)
    cases.append(_sequence(rng, V6, H6, 1, f"a sequence of one step, T = 1 ({_sizes(H6, V6)}, h0 ≠ 0)"))
    cases.append(_sequence(rng, V7, H7, 2, f"a sequence of two steps, T = 2 ({_sizes(H7, V7)}, h0 ≠ 0)"))
    H8, V8 = int(rng.integers(20, 40)), int(rng.integers(60, 90))
    T8 = int(rng.integers(90, 130))
    cases.append(_sequence(rng, V8, H8, T8, f"a long text, T = {T8}, through a book-sized network ({_sizes(H8, V8)})"))
    cases.append(_huge_deltas_case(rng, *_two_sizes(rng)))
    # longer than the truncation lengths a write-up might use (100 steps, say), the gradient still reaching
    # back to the first step: a BPTT truncated at any length below this case's fails here
    (H9, V9), T9 = _networks(rng, 1)[0], int(rng.integers(LONGEST_T * 3 // 4 + 1, LONGEST_T + 1))
    cases.append(_long_memory_case(rng, V9, H9, T9, scale=0.98))
    return cases


def _huge_deltas_case(rng, H, V, T=6):
    """Output weights 1e8 times the usual and states 1e-8 times (tanh in its linear part, scores moderate): the
    deltas, ∇W_xh L and ∇b_h L reach about 1e8, a thousand times beyond a clip at ±1e5 that no other case
    reaches. (The loss, ∇b_o L and ∇W_hh L stay moderate; float64 keeps every number to ~1e-15 of its size.)"""
    params, h0 = _rnn_params(rng, V, H)
    for name in ("W_xh", "b_h"):
        params[name] = params[name] / HUGE
    params["W_yh"] = HUGE * params["W_yh"]
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V, T)
    about = f"a sequence of T = {T} steps, output weights 1e8 times the usual ({_sizes(H, V)}): deltas near 1e8"
    return Case(about, (params, inputs, targets, h0 / HUGE))


def _large_output_weights_case(rng, V, H, T=8):
    """Output weights 3000 times the usual: ∂L/∂h and the gradients reach thousands, far above any clip a
    shortcut might hide inside loss_and_grads (±100, or ±1000 at the end)."""
    params, h0 = _rnn_params(rng, V, H)
    for name in ("W_xh", "W_hh", "b_h"):  # tiny states (tanh in its linear part), so that the scores stay moderate
        params[name] = 1e-3 * params[name]
    params["W_yh"] = 3000.0 * params["W_yh"]
    h0 = 1e-3 * h0
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V, T)
    about = (
        f"a sequence of T = {T} steps, output weights 3000 times the usual ({_sizes(H, V)}): gradients in the thousands"
    )
    return Case(about, (params, inputs, targets, h0))


def _bptt_model(args, s, case):
    """BPTT for one sequence, written plainly in the model's steps: (loss, grads, h_last, dh0)."""
    params, inputs, targets, h0 = args
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in PARAM_NAMES)
    V, T = W_yh.shape[0], len(inputs)
    hs = [s.start(h0)]
    for x_t in inputs:
        hs.append(np.tanh(W_hh @ hs[-1] + W_xh[:, x_t] + b_h))
    y_hat = [F.softmax(W_yh @ h + b_o) for h in hs[1:]]
    loss = s.loss(-sum(np.log(y_hat[t][targets[t]]) for t in range(T)), T)
    do = [s.do(y_hat[t], np.eye(V)[targets[t]], T) for t in range(T)]
    grads = dict.fromkeys(PARAM_NAMES, 0.0)  # sums over time, of whatever shape a (wrong) term has
    dh_next = np.zeros_like(h0)  # W_hhᵀ δ_{t+1}: what comes back from step t + 1, nothing after the last
    for t in s.back_through(T):
        at = SimpleNamespace(t=t, T=T, hs=hs, do=do, W_hh=W_hh, W_yh=W_yh)
        h, x = hs[t], np.eye(V)[inputs[t - 1]]
        dh = s.dh(W_yh, do[t - 1], dh_next, at)
        slope = s.slope(h, hs[t - 1])
        delta = slope * dh
        up = s.upstream(delta, slope)
        terms = {
            "W_xh": np.outer(up, x),
            "W_hh": s.W_hh_grad(delta, s.h_prev_for_W_hh(hs, t), h, x),
            "W_yh": s.W_yh_grad(do[t - 1], h, hs[t - 1]),
            "b_h": up,
            "b_o": do[t - 1],
        }
        for name in PARAM_NAMES:
            grads[name] = getattr(s, f"sum_{name}")(grads[name], terms[name], t, T)
        dh_next = s.back(W_hh, W_xh, delta, dh, h)
    # a sum no step added to (a walk back that visits no step) is its parameter's shape of zeros
    grads = {name: g if isinstance(g, np.ndarray) else g + np.zeros_like(params[name]) for name, g in grads.items()}
    return loss, grads, s.h_last(hs), dh_next


def _plus(total, term, t, T):
    return total + term


LOSS_AND_GRADS_STEPS = {
    **BACKWARD_STEPS,
    "start": lambda h0: h0,
    "loss": lambda total, T: total,
    "do": lambda y_hat, y, T: y_hat - y,  # ∇o_t L = ŷ_t − 𝐲_t
    "dh": lambda W_yh, do, dh_next, at: W_yh.T @ do + dh_next,  # from o_t, and from h_{t+1}
    "h_prev_for_W_hh": lambda hs, t: hs[t - 1],
    "W_yh_grad": lambda do, h, h_prev: np.outer(do, h),
    "h_last": lambda hs: hs[-1],
    "back_through": lambda T: range(T, 0, -1),  # the steps the walk back visits: T, T − 1, ..., 1
    **{f"sum_{name}": _plus for name in PARAM_NAMES},
}


@LOSS_AND_GRADS_MISTAKES("start", "h0 ignored", "the forward pass starts from zeros instead of the h0 it is given.")
def h0_ignored(h0):
    return np.zeros_like(h0)


@LOSS_AND_GRADS_MISTAKES(
    "loss",
    "the loss without its minus",
    "your loss is +Σ_t log ŷ_t[y_t]; the cross-entropy L = −Σ_t log ŷ_t[y_t] has a minus sign, and is positive.",
    (10,),
)
def loss_value_without_minus(total, T):
    return -total


@LOSS_AND_GRADS_MISTAKES(
    "loss", "the mean loss", "your loss is the mean over the T steps; rnn_core's loss is their sum."
)
def mean_loss(total, T):
    return total / T


@LOSS_AND_GRADS_MISTAKES(
    "do", "no target term", "∇o_t L = ŷ_t where ŷ_t − 𝐲_t belongs: the target term is missing.", (3,)
)
def no_target_term(y_hat, y, T):
    return y_hat


@LOSS_AND_GRADS_MISTAKES(
    "do",
    "loss without its minus",
    "∇o_t L = 𝐲_t − ŷ_t is the gradient of +Σ_t log ŷ_t[y_t], the loss without its minus sign: every "
    "gradient points the opposite way.",
    (10,),
)
def gradient_without_minus(y_hat, y, T):
    return y - y_hat


@LOSS_AND_GRADS_MISTAKES(
    "do",
    "delta_o = o",
    "∇o_t L = ŷ_t − 2𝐲_t: what a second backward pass gives once `delta_o = o` has subtracted the target from "
    "the stored probabilities themselves (a second name, not a copy).",
    (7,),
)
def target_subtracted_twice(y_hat, y, T):
    return y_hat - 2 * y


@LOSS_AND_GRADS_MISTAKES(
    "do",
    "the gradient of the mean loss",
    "every gradient is 1/T of rnn_core's: the gradient of the mean loss over the T steps, not of their sum.",
)
def gradient_of_the_mean(y_hat, y, T):
    return (y_hat - y) / T


@LOSS_AND_GRADS_MISTAKES(
    "dh",
    "no contribution from h_{t+1}",
    "∇h_t L keeps only the path from o_t and drops W_hhᵀ δ_{t+1} from step t + 1: the same as truncated BPTT "
    "with k = 0, not the gradient.",
    (5,),
)
def no_contribution_from_h_next(W_yh, do, dh_next, at):
    return W_yh.T @ do


@LOSS_AND_GRADS_MISTAKES(
    "dh",
    "∇h_{t+1} L from o_{t+1} only",
    "what comes back from h_{t+1} keeps only the output term of step t + 1 and nothing from further on: the "
    "same as truncated BPTT with k = 1, not the gradient.",
    (4,),
)
def from_o_next_only(W_yh, do, dh_next, at):
    if at.t == at.T:
        return W_yh.T @ do
    return W_yh.T @ do + at.W_hh.T @ ((1 - at.hs[at.t + 1] ** 2) * (W_yh.T @ at.do[at.t]))


@LOSS_AND_GRADS_MISTAKES(
    "dh",
    "no contribution from o_t",
    "∇h_t L gets W_yhᵀ ∇o_t L from this step's output, besides what comes back from step t + 1.",
)
def no_contribution_from_o(W_yh, do, dh_next, at):
    return dh_next


@LOSS_AND_GRADS_MISTAKES("dh", "W_yh not transposed", "going back from ∇o_t L to h_t multiplies by W_yhᵀ, not W_yh.")
def W_yh_not_transposed(W_yh, do, dh_next, at):
    return W_yh @ do + dh_next


@LOSS_AND_GRADS_MISTAKES(
    "h_prev_for_W_hh",
    "s[-1] at the first step",
    "at the first step h_{t−1} was read as s[-1], which numpy takes as the last state h_T, not h_0.",
    (8,),
)
def last_state_for_h0(hs, t):
    return hs[-1] if t == 1 else hs[t - 1]


@LOSS_AND_GRADS_MISTAKES(
    "W_hh_grad",
    "W_hh's gradient as W_xh's",
    "∇W_hh L written with ∇W_xh L's formula, Σ_t (1 − h_t²) x_tᵀ: W_hh multiplies h_{t−1}, not x_t, and ∇h_t L "
    "is missing; the gradient is Σ_t δ_t h_{t−1}ᵀ with δ_t = (1 − h_t²) ⊙ ∇h_t L.",
    (23,),
)
def W_hh_gradient_as_W_xh_gradient(delta, h_prev, h, x):
    return np.outer(1 - h**2, x)


@LOSS_AND_GRADS_MISTAKES(
    "W_hh_grad",
    "no upstream gradient in W_hh",
    "∇W_hh L = Σ_t (1 − h_t²) h_{t−1}ᵀ has the slope alone, without ∇h_t L; the gradient is Σ_t δ_t h_{t−1}ᵀ "
    "with δ_t = (1 − h_t²) ⊙ ∇h_t L.",
    (23,),
)
def no_upstream_gradient_in_W_hh(delta, h_prev, h, x):
    return np.outer(1 - h**2, h_prev)


@LOSS_AND_GRADS_MISTAKES(
    "W_yh_grad",
    "h_{t-1} in place of h_t in ∇W_yh",
    "∇W_yh L = Σ_t ∇o_t L h_tᵀ: o_t = W_yh h_t + b_o reads this step's state, hs[t], not hs[t − 1].",
)
def h_prev_for_h_in_W_yh(do, h, h_prev):
    return np.outer(do, h_prev)


@LOSS_AND_GRADS_MISTAKES(
    "back_through",
    "the walk back stops before step 1",
    "the loop back visits steps T, ..., 2 and never step 1: in code counting from 0, range(T - 1, 0, -1) stops "
    "before index 0; range(T - 1, -1, -1), or reversed(range(T)), reaches it.",
)
def walk_back_stops_before_step_1(T):
    return range(T, 1, -1)


@LOSS_AND_GRADS_MISTAKES("h_last", "every state", "h_last is the last state h_T alone, not every state h_1..h_T.")
def every_state(hs):
    return np.array(hs[1:])


# `=` for `+=` in a sum over time: each gradient's name in the messages, and its errata rows
_WITHOUT_SUM = {name: (f"∇{name} L without Σ_t", ()) for name in PARAM_NAMES} | {"b_o": ("b_o without Σ_t", (24,))}


def _one_step_only(name, step):
    """The `=` for `+=` of one gradient's sum over time, keeping the term of ``step``: 1, what a loop from T
    down to 1 leaves, or "T", what a loop from 1 up to T leaves."""

    def keep(total, term, t, T):
        return term if t == {1: t, "T": T}[step] else total

    keep.__name__ = f"{name}_of_step_{step}_only"
    label, rows = _WITHOUT_SUM[name]
    why = f"∇{name} L keeps one step's term (step {step}), not the sum over all steps: an `=` where `+=` belongs."
    LOSS_AND_GRADS_MISTAKES(f"sum_{name}", label, why, rows)(keep)


for _name in PARAM_NAMES:
    for _step in (1, "T"):
        _one_step_only(_name, _step)


def _b_o_is_zero(case, got, want):
    b_o = _floats(got.get("b_o"))
    if b_o is not None and b_o.shape == np.shape(want["b_o"]) and np.allclose(b_o, 0.0, atol=1e-12):
        return (
            "Your ∇b_o L is zero everywhere, which no loss that depends on b_o has: ∇b_o L = Σ_t (ŷ_t − 𝐲_t), a "
            "vector with one entry per character. (A sum over the output index i, as errata row 14 has it, gives "
            "0 at every step; so does a gradient never added to.)"
        )
    return None


def _large_entries(case, got, want):
    """Gradients clipped entry by entry at some ±c where rnn_core's go beyond (min-char-rnn's np.clip(d, -5, 5)
    inside the function): said only when each such gradient is exactly rnn_core's clipped at ±c, never for
    gradients that are merely smaller (truncated BPTT's, say)."""
    cut, limits = [], set()
    for name, w in want.items():
        g = _floats(got.get(name))
        if name not in PARAM_NAMES or g is None or g.shape != np.shape(w) or not np.all(np.isfinite(g)):
            continue
        limit = float(np.max(np.abs(g)))
        if 0 < limit < 0.99 * np.abs(w).max() and np.allclose(g, np.clip(w, -limit, limit), rtol=1e-9, atol=1e-9):
            cut.append(name)
            limits.add(round(limit, 6))
    if cut and len(limits) == 1:
        c = f"{limits.pop():g}"
        return (
            f"Your {_join(cut)} are rnn_core's clipped at ±{c}: clipping (min-char-rnn's np.clip(d, -5, 5)) "
            "belongs in the training loop, after the gradient; loss_and_grads returns the gradient itself."
        )
    return None


# -- clipping and the global norm ------------------------------------------------------------------------


def _gradients(rng, V, H, norm, big=None):
    """Gradients shaped like a V, H network's, of global norm ``norm``; ``big``: one entry of that size."""
    grads = {name: rng.standard_normal(shape) for name, shape in RNN.param_shapes(V, H).items()}
    if big is not None:
        rest = np.sqrt(sum(float(np.sum(g**2)) for g in grads.values()) - grads["b_h"][0] ** 2)
        for g in grads.values():
            g *= np.sqrt(norm**2 - big**2) / rest
        grads["b_h"][0] = big
    else:
        total = np.sqrt(sum(float(np.sum(g**2)) for g in grads.values()))
        for g in grads.values():
            g *= norm / total
    return grads


def _clip_cases(rng):
    (H1, V1), (H2, V2), (H3, V3) = _networks(rng, 3)
    c1, c2, c3 = float(rng.choice([4.0, 5.0, 6.0])), float(rng.choice([1.5, 2.0, 2.5])), float(rng.choice([0.5, 1.0]))
    n1 = c1 * rng.uniform(0.5, 0.9)
    n2 = c2 * rng.uniform(1.3, 1.8)
    n3 = c3 * rng.uniform(12.0, 20.0)
    return [
        Case(
            f"gradients of global norm {n1:.3g}, below max_norm = {c1:g} ({_sizes(H1, V1)})",
            (_gradients(rng, V1, H1, n1), c1),
        ),
        Case(
            f"gradients of global norm {n2:.3g}, between max_norm = {c2:g} and twice it, one entry above "
            f"max_norm ({_sizes(H2, V2)})",
            (_gradients(rng, V2, H2, n2, big=1.1 * c2), c2),
        ),
        Case(
            f"gradients of global norm {n3:.3g}, far above max_norm = {c3:g} ({_sizes(H3, V3)})",
            (_gradients(rng, V3, H3, n3), c3),
        ),
        *_near_the_threshold(rng),
        *_nearer_the_threshold(rng),
        *_a_hair_from_the_threshold(rng),
    ]


HAIR = 1e-7  # the last clipping cases' norms are 1 ± HAIR times max_norm
HAIR_TOL = 1e-10  # and are compared to this, relative: a right answer's rounding is ~1e-15, a wrong one's miss ~HAIR


def _gradients_of_norm(rng, factor):
    """(H, V, c, grads): a network's gradients scaled to a global norm of factor times a max_norm c."""
    H, V = _two_sizes(rng)
    c = float(rng.choice([0.5, 1.0, 2.0, 5.0]))
    grads = {name: rng.standard_normal(shape) for name, shape in RNN.param_shapes(V, H).items()}
    total = _global_norm(grads)
    for g in grads.values():
        g *= factor * c / total
    return H, V, c, grads


def _a_hair_from_the_threshold(rng):
    """Global norms 1 - 1e-7 and 1 + 1e-7 times max_norm, compared to 1e-10 of the largest entry (a float32 answer:
    to TOL32): the rescaling then shows, so that a threshold off by a factor as near 1 as 1.000002 (inside the
    check's usual 1e-6) fails. Any right form (g * c / norm, min(1, c / norm), np.linalg.norm) rounds to ~1e-15."""
    cases = []
    for factor in (1 - HAIR, 1 + HAIR):
        H, V, c, grads = _gradients_of_norm(rng, factor)
        where = "below" if factor < 1 else "above"
        cases.append(
            Case(
                f"gradients of global norm 1 {'-' if factor < 1 else '+'} 1e-07 times max_norm = {c:g}, just {where} "
                f"it, compared to 1e-10 ({_sizes(H, V)})",
                (grads, c),
                extra={"tol": HAIR_TOL},
                group="global norms within 1e-7 of max_norm, below and above, compared to 1e-10 (2 cases)",
            )
        )
    return cases


def _near_the_threshold(rng):
    """Global norms 0.99 and 1.01 times max_norm, each array of norm 1/√5 of it (every entry and every array
    below max_norm): a threshold other than max_norm, or one set by an entry or an array, fails on one."""
    (H1, V1), (H2, V2) = _networks(rng, 2)
    c = float(rng.choice([1.0, 2.0, 3.0]))
    cases = []
    for (H, V), factor, where in (((H1, V1), 0.99, "just below"), ((H2, V2), 1.01, "just above")):
        grads = {name: rng.standard_normal(shape) for name, shape in RNN.param_shapes(V, H).items()}
        for g in grads.values():
            g *= factor * c / np.sqrt(len(grads)) / np.sqrt(np.sum(g**2))
        cases.append(
            Case(
                f"gradients of global norm {factor:g} max_norm, {where} max_norm = {c:g}, every array and entry "
                f"below it ({_sizes(H, V)})",
                (grads, c),
            )
        )
    return cases


def _nearer_the_threshold(rng):
    """Global norms 1 ± 1e-3, 1 ± 1e-4 and 1 ± 1e-5 times max_norm (every array and entry below it), where the
    rescaling still shows in float64 at the check's 1e-6, and a norm above max_norm made of 20 to 40 small arrays:
    a threshold off by a factor that far from 1 (0.995, 1.001, ...), or a norm of some of the arrays, fails."""
    cases = []
    for factor in (1 - 1e-3, 1 + 1e-3, 1 - 1e-4, 1 + 1e-4, 1 - 1e-5, 1 + 1e-5):
        H, V, c, grads = _gradients_of_norm(rng, factor)
        where = "below" if factor < 1 else "above"
        cases.append(
            Case(
                f"gradients of global norm 1 {'-' if factor < 1 else '+'} {abs(factor - 1):.0e} times max_norm = "
                f"{c:g}, just {where} it ({_sizes(H, V)})",
                (grads, c),
                group="global norms within 1e-3, 1e-4 and 1e-5 of max_norm, below and above (6 cases)",
            )
        )
    grads = _many_arrays(rng)
    c = float(rng.uniform(0.6, 0.9)) * _global_norm(grads)
    for g in list(grads.values())[:8]:
        g *= 0.01  # the first eight arrays alone are far below max_norm
    c = min(c, 0.9 * _global_norm(grads))
    cases.append(Case(f"{len(grads)} arrays of any names, global norm above max_norm = {c:.3g}", (grads, c)))
    return cases


def _global_norm(grads):
    return float(np.sqrt(sum(float(np.sum(g**2)) for g in grads.values())))


def _clip_model(args, s, case):
    grads, max_norm = args
    norm = s.norm(grads)
    clipped = s.clip(grads, s.scale(norm, max_norm), max_norm)
    return clipped, s.report(norm, max_norm)


CLIP_STEPS = {
    "norm": _global_norm,
    "scale": lambda norm, c: c / norm if norm > c else 1.0,
    "clip": lambda grads, scale, c: {k: g * scale for k, g in grads.items()},
    "report": lambda norm, c: norm,
}

CLIP_MISTAKES = Mistakes()


@CLIP_MISTAKES(
    "scale",
    "a small constant added to the norm",
    "the factor max_norm / (norm + 1e-6), as PyTorch's clip_grad_norm_ computes it to avoid a division by 0: "
    "close, but not the exercise's formula, max_norm / norm when the norm exceeds max_norm (the norm cannot "
    "be 0 there). Just past max_norm the difference shows.",
)
def constant_added_to_the_norm(norm, c):
    return min(1.0, c / (norm + 1e-6))


@CLIP_MISTAKES(
    "clip",
    "each array clipped by its own norm",
    "every array rescaled by its own norm turns the gradient; global-norm clipping scales all of them by one "
    "factor, max_norm / (the norm of all together).",
)
def each_array_by_its_own_norm(grads, scale, c):
    return {k: g * min(1.0, c / np.linalg.norm(g)) for k, g in grads.items()}


@CLIP_MISTAKES(
    "clip",
    "elementwise clipping",
    "every entry clamped to [−max_norm, max_norm]: that is clip_elementwise, which turns the gradient.",
)
def elementwise_clipping(grads, scale, c):
    return {k: np.clip(g, -c, c) for k, g in grads.items()}


@CLIP_MISTAKES(
    "scale",
    "no clipping at all",
    "gradients whose global norm is above max_norm come back as they were; they are scaled by max_norm / norm.",
)
def no_clipping(norm, c):
    return 1.0


@CLIP_MISTAKES("scale", "rescaled when already short", "gradients whose norm is at most max_norm are left as they are.")
def rescaled_when_short(norm, c):
    return c / norm


@CLIP_MISTAKES(
    "scale",
    "the factor upside down",
    "gradients above max_norm were multiplied by norm / max_norm, which lengthens them; the factor is max_norm / norm.",
)
def scale_upside_down(norm, c):
    return norm / c if norm > c else 1.0


@CLIP_MISTAKES("report", "the norm after clipping", "the second value is the global norm *before* clipping.")
def norm_after_clipping(norm, c):
    return min(norm, c)


@CLIP_MISTAKES(
    "norm",
    "the sum of the arrays' norms",
    "the global norm is the square root of the sum of the squares of all entries, not the sum of the arrays' norms.",
)
def sum_of_norms(grads):
    return sum(float(np.linalg.norm(g)) for g in grads.values())


@CLIP_MISTAKES("norm", "no square root", "the sum of squares is the squared norm: take its square root.")
def no_square_root(grads):
    return sum(float(np.sum(g**2)) for g in grads.values())


def _clipped_norm(case, got, want):
    grads, c = case.args
    arrays = [_floats(got.get(k)) for k in grads]
    if any(a is None or a.shape != np.shape(grads[k]) for a, k in zip(arrays, grads)):
        return None
    norm, wanted = float(np.sqrt(sum(np.sum(a**2) for a in arrays))), _global_norm(grads)
    should = min(wanted, c)
    if not np.isclose(norm, should, rtol=1e-6):
        digits = next((d for d in range(4, 17) if f"{norm:.{d}g}" != f"{should:.{d}g}"), 17)
        return (
            f"Your clipped gradients have global norm {norm:.{digits}g}; with max_norm = {c:g} they should have "
            f"{should:.{digits}g}."
        )
    return None


def _global_norm_cases(rng):
    cells = [("W_xh", "W_hh", "W_yh", "b_h", "b_o"), ("W_x", "W_h", "b", "W_yh", "b_o"), ("W", "b")]
    # a two-layer network's eight arrays, the largest last: a norm of the first five arrays only fails here
    cells.append(("b_o", "b_h", "b_h_1", "W_yh", "W_xh", "W_hh", "W_xh_1", "W_hh_1"))
    cases = []
    for keys in cells:
        H, V = _two_sizes(rng)
        shapes = {"W_x": (4 * H, V), "W_h": (4 * H, H), "b": (4 * H,), "W": (V, H), **RNN.param_shapes(V, H, 2)}
        grads = {k: rng.normal(0.0, rng.uniform(0.5, 3.0), shapes[k]) for k in keys}
        cases.append(Case(f"gradients {', '.join(keys)} ({_sizes(H, V)})", (grads,)))
    grads = _many_arrays(rng)
    cases.append(Case(f"{len(grads)} arrays of any names and sizes, the largest last", (grads,)))
    return cases


def _many_arrays(rng):
    """Gradients of a deep network: 40 to 80 arrays named anyhow (an encoder's and a decoder's layers, an
    embedding), one of over 5,000 entries, and the largest entries in the last array: a norm of the first
    few arrays, of some names only, or of the first entries of each array, fails here."""
    n = int(rng.integers(40, 81))
    names = [
        f"{part}.{kind}_{k}"
        for k, (part, kind) in enumerate(zip(rng.choice(["enc", "dec"], n), rng.choice(["W", "b", "u"], n)))
    ]
    names[int(rng.integers(n - 1))] = "embedding"
    grads = {
        name: rng.normal(0.0, rng.uniform(0.5, 2.0), tuple(int(d) for d in rng.integers(1, 9, rng.integers(1, 3))))
        for name in names
    }
    grads["embedding"] = rng.normal(0.0, 0.5, (int(rng.integers(60, 90)), int(rng.integers(70, 100))))
    grads[names[-1]] = 20.0 * grads[names[-1]]
    return grads


GLOBAL_NORM_MISTAKES = Mistakes()


@GLOBAL_NORM_MISTAKES(
    ANSWER,
    "the sum of the arrays' norms",
    "the square root comes once, at the end, over the squares of every entry of every array.",
)
def sum_of_the_arrays_norms(grads):
    return sum(float(np.linalg.norm(g)) for g in grads.values())


@GLOBAL_NORM_MISTAKES(ANSWER, "no square root", "the sum of squares is the squared norm: take its square root.")
def sum_of_squares(grads):
    return sum(float(np.sum(g**2)) for g in grads.values())


@GLOBAL_NORM_MISTAKES(
    ANSWER,
    "one array only",
    "the norm of the last array alone, not of all of them together: the total is overwritten in the loop "
    "(an `=` where `+=` belongs).",
)
def last_array_only(grads):
    return float(np.linalg.norm(list(grads.values())[-1]))


@GLOBAL_NORM_MISTAKES(
    ANSWER, "the largest entry", "the largest |entry| is the max-norm; the global norm is the 2-norm of all entries."
)
def largest_entry(grads):
    return max(float(np.abs(g).max()) for g in grads.values())


# -- Adam --------------------------------------------------------------------------------------------------


def _adam_cases(rng):
    H, V = _two_sizes(rng)
    # small weights (about lr): an error in the step shows in the new weights at its own size
    params = {k: 0.01 * rng.standard_normal(shape) for k, shape in RNN.param_shapes(V, H).items()}
    g1 = {k: rng.standard_normal(p.shape) for k, p in params.items()}
    # a character absent from the window: a column of exact zeros, m = v = 0 there (0 / (0 + ε) = 0);
    # and entries far below ε's scale, where ε decides half of the step
    g1["W_xh"][:, int(rng.integers(V))] = 0.0
    g1["b_o"][int(rng.integers(V))] = float(rng.choice([-1.0, 1.0])) * 1e-8
    g2 = {k: rng.standard_normal(p.shape) * rng.uniform(0.1, 3.0, p.shape) for k, p in params.items()}
    lr1, lr2 = float(rng.choice([0.01, 0.02])), float(rng.choice([0.003, 0.005]))
    params1, state1 = OPTIM.adam_update(params, g1, OPTIM.adam_init(params), lr1)
    # a later step, from a state with running averages of their own
    t = int(rng.integers(5, 20))
    state = {
        "t": t,
        "m": {k: 0.3 * rng.standard_normal(p.shape) for k, p in params.items()},
        "v": {k: rng.uniform(0.05, 2.0, p.shape) for k, p in params.items()},
    }
    g3 = {k: rng.standard_normal(p.shape) for k, p in params.items()}
    lr3 = float(rng.choice([0.05, 0.1]))
    first = {"first_grads": g1}
    return [
        Case(
            f"the first step (lr = {lr1:g}, from adam_init's state; {_sizes(H, V)})",
            (params, g1, OPTIM.adam_init(params), lr1),
        ),
        Case(f"the second step, with another gradient and lr = {lr2:g}", (params1, g2, state1, lr2), extra=first),
        Case(
            f"step {t + 1}, from running averages m ≠ 0 and v ≠ 0, with lr = {lr3:g}",
            (params, g3, state, lr3),
            extra=first,
        ),
        _adam_own_settings_case(rng),
        _adam_late_step_case(rng),
    ]


def _adam_late_step_case(rng):
    """A late step (t in the hundreds or thousands, where 1 − β₂^t is still far from 1) of a network whose arrays
    have names of any kind, with a large lr: an answer that drops the bias correction after some step, updates
    only names it knows, or caps lr, fails here."""
    names = ["embedding", f"enc.W_{int(rng.integers(10))}", "dec.b", "u"]
    shapes = [tuple(int(d) for d in rng.integers(2, 6, int(rng.integers(1, 3)))) for _ in names]
    params = {k: 0.1 * rng.standard_normal(shape) for k, shape in zip(names, shapes)}
    grads = {k: rng.standard_normal(p.shape) for k, p in params.items()}
    t = int(rng.integers(150, 3000))
    state = {
        "t": t,
        "m": {k: 0.3 * rng.standard_normal(p.shape) for k, p in params.items()},
        "v": {k: rng.uniform(0.05, 2.0, p.shape) for k, p in params.items()},
    }
    lr = float(rng.choice([0.2, 0.5]))
    return Case(f"step {t + 1} of arrays named {', '.join(names)}, with lr = {lr:g}", (params, grads, state, lr))


def _adam_own_settings_case(rng):
    """An LSTM's arrays (W_x, W_h, b: names other than the vanilla RNN's), with β₁, β₂ and ε of its own and
    gradients about 1e-3 (where ε = 1e-4 shows): an answer that uses the defaults instead of the arguments,
    or updates only the vanilla RNN's PARAM_NAMES, fails here."""
    H, V = _two_sizes(rng)
    shapes = {"W_x": (4 * H, V), "W_h": (4 * H, H), "b": (4 * H,)}
    params = {k: 0.01 * rng.standard_normal(shape) for k, shape in shapes.items()}
    grads = {k: 1e-3 * rng.standard_normal(shape) for k, shape in shapes.items()}
    state = {
        "t": 2,
        "m": {k: 1e-3 * rng.standard_normal(shape) for k, shape in shapes.items()},
        "v": {k: 1e-6 * rng.uniform(0.1, 2.0, shape) for k, shape in shapes.items()},
    }
    beta1, beta2, eps = float(rng.choice([0.8, 0.85])), float(rng.choice([0.99, 0.98])), 1e-4
    about = f"step 3 of an LSTM's W_x, W_h, b, with β₁ = {beta1:g}, β₂ = {beta2:g}, ε = {eps:g} (not the defaults)"
    return Case(about, (params, grads, state, 0.01, beta1, beta2, eps))


def _adam_later_steps(case):
    """[(about, args_of)]: two steps after ``case``'s, each given the params and the state that the step before
    returned, as a training loop gives them (``args_of(args before, what was returned)``): gradients a hundredth of
    the case's, so that v falls (where a running maximum of v, AMSGrad's, keeps the old one), then as large as the
    case's again and of the other sign. An answer that keeps anything in the state besides t, m and v, and uses it,
    comes out wrong here (hostile37b, 2c)."""
    grads = case.args[1]
    later = [
        (
            "the step after it, on the params and state your function returned, gradients a hundredth as large",
            {k: 0.01 * np.roll(g, 1) for k, g in grads.items()},
        ),
        (
            "the step after that, on what it returned then, gradients as large as the first's, of the other sign",
            {k: -g for k, g in grads.items()},
        ),
    ]
    return [(about, lambda args, returned, g=g: (returned[0], g, returned[1], *args[3:])) for about, g in later]


CHAINED = {"adam_update": _adam_later_steps}  # exercise -> (its first case -> the steps chained after it)

_BETA1, _BETA2, _EPS = 0.9, 0.999, 1e-8


def _adam_model(args, s, case):
    """The model, with the case's own β₁, β₂ and ε where it gives them (the steps and mistakes read the
    module's _BETA1, _BETA2 and _EPS: set for the call, then put back)."""
    global _BETA1, _BETA2, _EPS
    if len(args) > 4:
        saved = _BETA1, _BETA2, _EPS
        _BETA1, _BETA2, _EPS = (*args[4:], *saved[len(args) - 4 :])
        try:
            return _adam_model(args[:4], s, case)
        finally:
            _BETA1, _BETA2, _EPS = saved
    params, grads, state, lr = args
    grads = s.gradient(grads, case)
    t = state["t"] + 1
    m = {k: _BETA1 * state["m"][k] + (1 - _BETA1) * grads[k] for k in params}
    v = {k: s.second_moment(state["v"][k], grads[k]) for k in params}
    new, hats = {}, {}
    for k in params:
        hats[k] = s.correct(m[k], v[k], s.count_for_correction(t))
        new[k] = s.update(params[k], *hats[k], grads[k], lr)
    m_kept, v_kept = s.kept(m, v, hats)
    return new, {"t": s.t_kept(state["t"], t), "m": m_kept, "v": v_kept}


ADAM_STEPS = {
    "gradient": lambda grads, case: grads,
    "second_moment": lambda v, g: _BETA2 * v + (1 - _BETA2) * g**2,
    "count_for_correction": lambda t: t,
    "correct": lambda m, v, t: (m / (1 - _BETA1**t), v / (1 - _BETA2**t)),
    "update": lambda p, m_hat, v_hat, g, lr: p - lr * m_hat / (np.sqrt(v_hat) + _EPS),
    "kept": lambda m, v, hats: (m, v),
    "t_kept": lambda t_before, t: t,  # the step count the state keeps: this step's
}

ADAM_MISTAKES = Mistakes()


@ADAM_MISTAKES(
    "correct",
    "no bias correction",
    "m and v start at 0, so early on they are too small by the factors 1 − β₁ᵗ and 1 − β₂ᵗ: divide by them "
    "(m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ)).",
)
def no_bias_correction(m, v, t):
    return m, v


@ADAM_MISTAKES(
    "count_for_correction",
    "bias correction with the old t",
    "increase t first: update number t uses 1 − β₁ᵗ and 1 − β₂ᵗ with the new t (at the first step, t = 1).",
)
def bias_correction_with_the_old_t(t):
    return t - 1


@ADAM_MISTAKES("update", "a step up the gradient", "the update moves against the gradient: θ − lr · m̂ / (√v̂ + ε).")
def step_up_the_gradient(p, m_hat, v_hat, g, lr):
    return p + lr * m_hat / (np.sqrt(v_hat) + _EPS)


@ADAM_MISTAKES(
    "update",
    "no ε in the denominator",
    "the denominator is √v̂ + ε: without ε an entry whose gradient has been 0 so far divides 0 by 0 (nan), and an "
    "entry far smaller than ε moves by a whole lr.",
)
def no_epsilon(p, m_hat, v_hat, g, lr):
    return p - lr * m_hat / np.sqrt(v_hat)


@ADAM_MISTAKES("update", "no square root of v̂", "the denominator is √v̂ + ε.")
def no_square_root_of_v(p, m_hat, v_hat, g, lr):
    return p - lr * m_hat / (v_hat + _EPS)


@ADAM_MISTAKES("update", "the gradient in place of m̂", "the step uses the running average m̂, not this step's gradient.")
def gradient_for_m_hat(p, m_hat, v_hat, g, lr):
    return p - lr * g / (np.sqrt(v_hat) + _EPS)


@ADAM_MISTAKES("second_moment", "g where v needs g²", "v is the running average of the squares g², not of g.")
def g_for_g_squared(v, g):
    return _BETA2 * v + (1 - _BETA2) * g


@ADAM_MISTAKES(
    "kept",
    "m̂ and v̂ kept in the state",
    "the state keeps m and v, the running averages themselves; m̂ and v̂ are corrected afresh from them at "
    "every step (kept instead, the next step corrects them a second time).",
)
def corrected_averages_kept(m, v, hats):
    return {k: hat[0] for k, hat in hats.items()}, {k: hat[1] for k, hat in hats.items()}


@ADAM_MISTAKES(
    "t_kept",
    "the step count not advanced",
    "the state returned keeps the t it was given: this step is step t + 1, and the state must say so, or the "
    "next step corrects m and v as if it were this one again.",
)
def step_count_not_advanced(t_before, t):
    return t_before


@ADAM_MISTAKES(
    ANSWER,
    "Keras's ε̂ form of the update",
    "the paper's faster ordering as Keras writes it: lr_t = lr · √(1 − β₂ᵗ) / (1 − β₁ᵗ), then θ − lr_t · m / (√v + "
    "ε). It is Adam only with ε·√(1 − β₂ᵗ) in place of ε; with ε itself, ε weighs 1/√(1 − β₂ᵗ) times more "
    "(about 32 times at the first step), which shows where a gradient is near ε in size. This exercise is "
    "rnn_core's (notebook 06): θ − lr · m̂ / (√v̂ + ε).",
)
def keras_epsilon_hat(params, grads, state, lr, beta1=_BETA1, beta2=_BETA2, eps=_EPS):
    t = state["t"] + 1
    m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
    v = {k: beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2 for k in params}
    lr_t = lr * np.sqrt(1 - beta2**t) / (1 - beta1**t)
    return {k: params[k] - lr_t * m[k] / (np.sqrt(v[k]) + eps) for k in params}, {"t": t, "m": m, "v": v}


@ADAM_MISTAKES(
    "gradient",
    "the first gradient used again",
    "this step used the first step's gradient, not the one it was given: does your function read a gradient "
    "from outside its arguments (a global)?",
)
def first_gradient_reused(grads, case):
    return case.extra.get("first_grads", grads)


# -- the LSTM ---------------------------------------------------------------------------------------------

_GATES = "ifgq"  # the package's order of the LSTM's four blocks
_GATE_ORDER = (
    "the rows of W_x, W_h and b are stacked i, f, g, q (input gate, forget gate, candidate, output gate; PyTorch "
    "calls the output gate o)."
)


def _lstm_parts(rng, H, V, used):
    params = LSTM.init_params(V, H, seed=int(rng.integers(2**31)))
    params["b"] = params["b"] + 0.3 * rng.standard_normal(4 * H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    return params, _fresh_index(rng, V, used), 0.5 * rng.standard_normal(H), rng.standard_normal(H), H, V


def _lstm_forward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 2, 3, 6):
        params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, H, V, used)
        about = f"one step with {_sizes(H, V)}, x_t = {x_t}, h_prev ≠ 0, c_prev ≠ 0, non-zero biases"
        cases.append(Case(about, (params, x_t, h_prev, c_prev)))
    # a wide network with large weights and a cell state around 10: an answer right only for a few units, or one
    # that clips the cell or a pre-activation, fails here
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, int(rng.integers(12, 17)), int(rng.integers(20, 30)), used)
    params = {k: 4.0 * a for k, a in params.items()}
    about = f"a wide network ({_sizes(H, V)}), large weights, c_prev around 10"
    cases.append(Case(about, (params, x_t, h_prev, 10.0 * c_prev)))
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, *_book_sized(rng, used))
    cases.append(Case(f"a book-sized network ({_sizes(H, V)}), x_t = {x_t}", (params, x_t, h_prev, c_prev)))
    return cases


def _book_sized(rng, used):
    """(H, V, used) of a book-sized network whose input is x_t = 0 where no case has it yet (``used`` then
    extended by every other index, for _fresh_index): an answer right only up to some size, or one that
    special-cases the index 0 (falsy), fails on it."""
    H, V = int(rng.integers(24, 41)), int(rng.integers(60, 91))
    return H, V, used if 0 in used else used | set(range(1, V))


def _lstm_forward_model(args, s, case):
    params, x_t, h_prev, c_prev = args
    H = h_prev.shape[0]
    a = params["W_x"][:, x_t] + params["W_h"] @ h_prev + params["b"]
    stacking = s.stacking()
    block = {gate: a[k * H : (k + 1) * H] for k, gate in enumerate(stacking)}
    i, f, g, q = F.sigmoid(block["i"]), F.sigmoid(block["f"]), s.candidate(block["g"]), F.sigmoid(block["q"])
    c = s.cell(f, c_prev, i, g)
    h = s.show(q, c)
    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "q": q, "c": c}


LSTM_FORWARD_STEPS = {
    "stacking": lambda: _GATES,
    "candidate": np.tanh,
    "cell": lambda f, c_prev, i, g: f * c_prev + i * g,
    "show": lambda q, c: q * np.tanh(c),
}

LSTM_FORWARD_MISTAKES = Mistakes()
LSTM_BACKWARD_MISTAKES = Mistakes()


def _stackings(gates, registries, name, why):
    """One mistake per wrong order of the blocks: the reader's code assumes the rows stacked as ``order``."""
    for order in itertools.permutations(gates):
        order = "".join(order)
        if order != gates:

            def stacking(order=order):
                return order

            stacking.__name__ = f"blocks_stacked_{order}"
            for registry in registries:
                registry("stacking", name, why)(stacking)


_stackings(_GATES, [LSTM_FORWARD_MISTAKES], "the gates read from the wrong rows", _GATE_ORDER)


@LSTM_FORWARD_MISTAKES("show", "h_t = q ⊙ c_t", "the output gate shows tanh(c_t), not c_t: h_t = q ⊙ tanh(c_t).")
def no_tanh_of_the_cell(q, c):
    return q * c


@LSTM_FORWARD_MISTAKES(
    "candidate",
    "a sigmoid for the candidate",
    "g_t = tanh(...), so that it can write negative values too; i, f and q use the sigmoid.",
)
def sigmoid_candidate(a):
    return F.sigmoid(a)


@LSTM_FORWARD_MISTAKES(
    "cell", "no input gate", "c_t = f ⊙ c_{t−1} + i ⊙ g: the candidate passes through the input gate."
)
def no_input_gate(f, c_prev, i, g):
    return f * c_prev + g


@LSTM_FORWARD_MISTAKES(
    "cell", "no forget gate", "c_t = f ⊙ c_{t−1} + i ⊙ g: the old cell passes through the forget gate."
)
def no_forget_gate(f, c_prev, i, g):
    return c_prev + i * g


def _lstm_backward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 2, 3, 6):
        params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, H, V, used)
        _, _, cache = LSTM.step_forward(params, x_t, h_prev, c_prev)
        dh_t, dc_t = rng.standard_normal(H), rng.standard_normal(H)
        cases.append(
            Case(f"one step with {_sizes(H, V)}, x_t = {x_t}, dh_t ≠ 0, dc_t ≠ 0", (params, dh_t, dc_t, cache))
        )
    # a wide network and upstream gradients around 100: an answer right only for a few units, or one that clips,
    # fails here
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, int(rng.integers(12, 17)), int(rng.integers(20, 30)), used)
    _, _, cache = LSTM.step_forward(params, x_t, h_prev, c_prev)
    dh_t, dc_t = 100.0 * rng.standard_normal(H), 100.0 * rng.standard_normal(H)
    cases.append(Case(f"a wide network ({_sizes(H, V)}), dh_t and dc_t around 100", (params, dh_t, dc_t, cache)))
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, *_book_sized(rng, used))
    _, _, cache = LSTM.step_forward(params, x_t, h_prev, c_prev)
    dh_t, dc_t = rng.standard_normal(H), rng.standard_normal(H)
    cases.append(Case(f"a book-sized network ({_sizes(H, V)}), x_t = {x_t}", (params, dh_t, dc_t, cache)))
    # upstream gradients near 1e8: an answer that clips dh_t, dc_t or a gate's delta at any size up to
    # millions fails here (drawn last, so the cases above keep their numbers)
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, int(rng.integers(7, 11)), int(rng.integers(10, 20)), used)
    _, _, cache = LSTM.step_forward(params, x_t, h_prev, c_prev)
    dh_t, dc_t = HUGE * rng.standard_normal(H), HUGE * rng.standard_normal(H)
    cases.append(Case(f"one step ({_sizes(H, V)}), dh_t and dc_t near 1e8", (params, dh_t, dc_t, cache)))
    return cases


def _lstm_backward_model(args, s, case):
    params, dh_t, dc_t, cache = args
    i, f, g, q, c, c_prev = (cache[k] for k in ("i", "f", "g", "q", "c", "c_prev"))
    tanh_c = np.tanh(c)
    dc = dc_t + s.into_cell(dh_t, q, tanh_c)
    dq = s.to_output_gate(dh_t, c, tanh_c)
    blocks = {
        "i": dc * g * i * (1 - i),
        "f": dc * c_prev * f * (1 - f),
        "g": dc * i * s.candidate_slope(g),
        "q": dq * q * (1 - q),
    }
    da = np.concatenate([blocks[gate] for gate in s.stacking()])
    x = np.eye(params["W_x"].shape[1])[cache["x"]]
    grads = {"W_x": np.outer(da, x), "W_h": np.outer(da, cache["h_prev"]), "b": da}
    return params["W_h"].T @ da, s.to_previous_cell(dc, dc_t, f), grads


LSTM_BACKWARD_STEPS = {
    "stacking": lambda: _GATES,
    "into_cell": lambda dh, q, tanh_c: dh * q * (1 - tanh_c**2),  # from h_t = q ⊙ tanh(c_t) into c_t
    "to_output_gate": lambda dh, c, tanh_c: dh * tanh_c,
    "candidate_slope": lambda g: 1 - g**2,
    "to_previous_cell": lambda dc, dc_t, f: dc * f,
}


@LSTM_BACKWARD_MISTAKES(
    "into_cell",
    "no path from h_t into the cell",
    "h_t = q ⊙ tanh(c_t) depends on c_t too: the cell receives dh_t ⊙ q ⊙ (1 − tanh²(c_t)) besides dc_t, before "
    "anything goes back through c_t.",
)
def no_path_into_the_cell(dh, q, tanh_c):
    return 0.0


@LSTM_BACKWARD_MISTAKES(
    "into_cell",
    "that path without tanh's slope",
    "from h_t into the cell the path goes through tanh(c_t): dh_t ⊙ q ⊙ (1 − tanh²(c_t)).",
)
def path_into_the_cell_without_slope(dh, q, tanh_c):
    return dh * q


@LSTM_BACKWARD_MISTAKES(
    "to_previous_cell",
    "dc_prev without the path through h_t",
    "dc_{t−1} = f ⊙ (everything reaching c_t), which includes what came from h_t, not only dc_t.",
)
def previous_cell_from_the_cell_path_only(dc, dc_t, f):
    return dc_t * f


@LSTM_BACKWARD_MISTAKES(
    "to_previous_cell",
    "dc_prev without the forget gate",
    "c_t = f ⊙ c_{t−1} + i ⊙ g, so what goes back to c_{t−1} is f ⊙ (everything reaching c_t): the forget gate "
    "scales it, as it scales c_{t−1} on the way forward.",
)
def previous_cell_without_the_forget_gate(dc, dc_t, f):
    return dc


@LSTM_BACKWARD_MISTAKES(
    "to_output_gate",
    "c_t in place of tanh(c_t)",
    "the output gate multiplies tanh(c_t), so its gradient is dh_t ⊙ tanh(c_t).",
)
def c_for_tanh_c(dh, c, tanh_c):
    return dh * c


@LSTM_BACKWARD_MISTAKES(
    "candidate_slope",
    "the sigmoid's slope for the candidate",
    "g_t = tanh(...), whose slope is 1 − g²; g(1 − g) is a sigmoid's.",
)
def sigmoid_slope_for_the_candidate(g):
    return g * (1 - g)


_stackings(_GATES, [LSTM_BACKWARD_MISTAKES], "the gates' gradients stacked in the wrong order", _GATE_ORDER)


# -- the GRU ----------------------------------------------------------------------------------------------

_GRU_GATES = "rzn"
_GRU_ORDER = "the rows of W_x, W_h and b are stacked r, z, n (reset gate, update gate, candidate)."
_Z_KEEPS = (
    "in rnn_core's convention (Cho et al. 2014, PyTorch, d2l) z keeps the old state: h_t = z ⊙ h_{t−1} + "
    "(1 − z) ⊙ n_t; some papers write the same cell with z and 1 − z the other way round."
)
_RESET_AFTER = (
    "rnn_core applies the reset gate after W_hn, as PyTorch does: n_t = tanh(W_xn x_t + r_t ⊙ (W_hn h_{t−1}) + "
    "b_n); Cho et al. and d2l apply it before, W_hn (r_t ⊙ h_{t−1}), which is a different cell."
)


def _gru_parts(rng, H, V, used):
    params = GRU.init_params(V, H, seed=int(rng.integers(2**31)))
    params["b"] = params["b"] + 0.3 * rng.standard_normal(3 * H)
    params["b_o"] = 0.3 * rng.standard_normal(V)
    return params, _fresh_index(rng, V, used), 0.8 * rng.standard_normal(H), H, V


def _gru_forward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 2, 3, 6):
        params, x_t, h_prev, H, V = _gru_parts(rng, H, V, used)
        cases.append(
            Case(f"one step with {_sizes(H, V)}, x_t = {x_t}, h_prev ≠ 0, non-zero biases", (params, x_t, h_prev))
        )
    # a wide network with large weights: an answer right only for a few units, or one that clips a pre-activation,
    # fails here
    params, x_t, h_prev, H, V = _gru_parts(rng, int(rng.integers(12, 17)), int(rng.integers(20, 30)), used)
    params = {k: 5.0 * a for k, a in params.items()}
    cases.append(Case(f"a wide network ({_sizes(H, V)}), large weights", (params, x_t, h_prev)))
    params, x_t, h_prev, H, V = _gru_parts(rng, *_book_sized(rng, used))
    cases.append(Case(f"a book-sized network ({_sizes(H, V)}), x_t = {x_t}", (params, x_t, h_prev)))
    return cases


def _gru_forward_model(args, s, case):
    params, x_t, h_prev = args
    H = h_prev.shape[0]
    rows = {gate: slice(k * H, (k + 1) * H) for k, gate in enumerate(s.stacking())}
    W_x, W_h, b = params["W_x"], params["W_h"], params["b"]
    r = F.sigmoid(W_x[rows["r"], x_t] + W_h[rows["r"]] @ h_prev + b[rows["r"]])
    z = F.sigmoid(W_x[rows["z"], x_t] + W_h[rows["z"]] @ h_prev + b[rows["z"]])
    h_bar, added, _ = s.reset(W_h[rows["n"]], r, h_prev)
    n = s.candidate(W_x[rows["n"], x_t] + added + b[rows["n"]])
    keep, _ = s.keep(z)
    return keep * h_prev + (1 - keep) * n, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "h_bar": h_bar}


def _reset_after(W_hn, r, h_prev):
    h_bar = W_hn @ h_prev
    return h_bar, r * h_bar, False  # h̄, what the candidate adds, whether r acts inside W_hn's product


GRU_STEPS = {
    "stacking": lambda: _GRU_GATES,
    "reset": _reset_after,  # r ⊙ (W_hn h_{t−1}): r scales h̄ = W_hn h_{t−1} after the product
    "candidate": np.tanh,
    "keep": lambda z: (z, 1.0),  # (the gate that keeps h_{t−1}, the sign of ∂h_t/∂z_t's convention)
    "candidate_slope": lambda n: 1 - n**2,
    "direct": lambda dh, keep: dh * keep,  # ∂h_t/∂h_{t−1} directly
    "dz_sign": lambda: 1.0,
    "dh_bar": lambda da_n, r: da_n * r,  # ∇h̄ L = δ⁽ⁿ⁾ ⊙ r (h̄_t = W_hn h_{t−1}, the cache's h_bar)
}

GRU_FORWARD_MISTAKES = Mistakes()
GRU_BACKWARD_MISTAKES = Mistakes()

_stackings(_GRU_GATES, [GRU_FORWARD_MISTAKES], "the gates read from the wrong rows", _GRU_ORDER)


def _gru_both(step, name, why):
    def register(fn):
        GRU_FORWARD_MISTAKES(step, name, why)(fn)
        return GRU_BACKWARD_MISTAKES(step, name, why)(fn)

    return register


@_gru_both("keep", "z and 1 − z swapped", _Z_KEEPS)
def z_and_one_minus_z_swapped(z):
    return 1 - z, -1.0


@_gru_both("reset", "the reset gate before W_hn", _RESET_AFTER)
def reset_before_W_hn(W_hn, r, h_prev):
    h_bar = W_hn @ (r * h_prev)
    return h_bar, h_bar, True


@GRU_FORWARD_MISTAKES("reset", "the reset gate before W_hn", _RESET_AFTER)
def reset_before_W_hn_h_bar_kept(W_hn, r, h_prev):
    # the same cell with the cache's h_bar still W_hn h_{t-1}, as notebook 09 defines it
    return W_hn @ h_prev, W_hn @ (r * h_prev), True


@GRU_FORWARD_MISTAKES(
    "candidate",
    "a sigmoid for the candidate",
    "n_t = tanh(...), so that it can write negative values too; r and z use the sigmoid.",
)
def sigmoid_for_the_candidate(a):
    return F.sigmoid(a)


def _gru_backward_cases(rng):
    cases, used = [], set()
    for H, V in _networks(rng, 2, 3, 6):
        params, x_t, h_prev, H, V = _gru_parts(rng, H, V, used)
        _, cache = GRU.step_forward(params, x_t, h_prev)
        cases.append(
            Case(
                f"one step with {_sizes(H, V)}, x_t = {x_t}, h_prev ≠ 0, dh_t ≠ 0",
                (params, rng.standard_normal(H), cache),
            )
        )
    # a wide network and an upstream gradient around 100: an answer right only for a few units, or one that clips,
    # fails here
    params, x_t, h_prev, H, V = _gru_parts(rng, int(rng.integers(12, 17)), int(rng.integers(20, 30)), used)
    _, cache = GRU.step_forward(params, x_t, h_prev)
    cases.append(
        Case(f"a wide network ({_sizes(H, V)}), dh_t around 100", (params, 100.0 * rng.standard_normal(H), cache))
    )
    params, x_t, h_prev, H, V = _gru_parts(rng, *_book_sized(rng, used))
    _, cache = GRU.step_forward(params, x_t, h_prev)
    cases.append(Case(f"a book-sized network ({_sizes(H, V)}), x_t = {x_t}", (params, rng.standard_normal(H), cache)))
    # an upstream gradient near 1e8: an answer that clips dh_t or a gate's delta at any size up to millions
    # fails here (drawn last, so the cases above keep their numbers)
    params, x_t, h_prev, H, V = _gru_parts(rng, int(rng.integers(7, 11)), int(rng.integers(10, 20)), used)
    _, cache = GRU.step_forward(params, x_t, h_prev)
    cases.append(Case(f"one step ({_sizes(H, V)}), dh_t near 1e8", (params, HUGE * rng.standard_normal(H), cache)))
    return cases


def _gru_backward_model(args, s, case):
    params, dh_t, cache = args
    r, z, n, h_bar, h_prev = (cache[k] for k in ("r", "z", "n", "h_bar", "h_prev"))
    H = h_prev.shape[0]
    W_hn = params["W_h"][2 * H : 3 * H]
    keep, sign = s.keep(z)
    dn = dh_t * (1 - keep)
    dz = s.dz_sign() * sign * dh_t * (h_prev - n)
    da_n = dn * s.candidate_slope(n)
    _, _, inside = s.reset(W_hn, r, h_prev)
    if inside:  # the reset gate before W_hn: n reads W_hn (r ⊙ h_{t−1})
        d_rh = W_hn.T @ da_n
        dh_bar, dr, through_n, read = da_n, d_rh * h_prev, d_rh * r, r * h_prev
    else:
        dh_bar, dr, through_n, read = s.dh_bar(da_n, r), da_n * h_bar, 0.0, h_prev
    da_r, da_z = dr * r * (1 - r), dz * z * (1 - z)
    blocks_x = {"r": da_r, "z": da_z, "n": da_n}
    blocks_h = {"r": da_r, "z": da_z, "n": dh_bar}
    stacking = s.stacking()
    da_x = np.concatenate([blocks_x[gate] for gate in stacking])
    da_h = np.concatenate([blocks_h[gate] for gate in stacking])
    x = np.eye(params["W_x"].shape[1])[cache["x"]]
    dW_h = np.outer(da_h, h_prev)
    if inside:  # the candidate's rows read r ⊙ h_{t−1}
        k = stacking.index("n")
        dW_h[k * H : (k + 1) * H] = np.outer(da_n, read)
        rest = [j for j in range(3 * H) if not k * H <= j < (k + 1) * H]
        dh_prev = params["W_h"][rest].T @ da_h[rest] + through_n
    else:
        dh_prev = params["W_h"].T @ da_h
    return dh_prev + s.direct(dh_t, keep), {"W_x": np.outer(da_x, x), "W_h": dW_h, "b": da_x}


@GRU_BACKWARD_MISTAKES(
    "direct",
    "no direct path to h_{t−1}",
    "h_t = z ⊙ h_{t−1} + ... depends on h_{t−1} directly, not only through the gates and the candidate: "
    "dh_{t−1} gets dh_t ⊙ z_t besides what goes back through W_h.",
)
def no_direct_path(dh, keep):
    return 0.0


@GRU_BACKWARD_MISTAKES(
    "dz_sign",
    "the update gate's gradient with its sign flipped",
    "h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n_t, so ∂h_t/∂z_t = h_{t−1} − n_t, not n_t − h_{t−1}.",
)
def update_gate_sign_flipped():
    return -1.0


@GRU_BACKWARD_MISTAKES(
    "candidate_slope",
    "the sigmoid's slope for the candidate",
    "n_t = tanh(...), whose slope is 1 − n²; n(1 − n) is a sigmoid's.",
)
def sigmoid_slope_for_n(n):
    return n * (1 - n)


@GRU_BACKWARD_MISTAKES(
    "dh_bar",
    "δ⁽ⁿ⁾ where ∇h̄ belongs",
    "W_h's candidate block multiplies h_{t−1} into h̄_t, and the candidate reads r_t ⊙ h̄_t: what reaches h̄_t is "
    "∇h̄ L = δ⁽ⁿ⁾ ⊙ r_t, not δ⁽ⁿ⁾ itself (W_x's and b's candidate blocks do get δ⁽ⁿ⁾).",
)
def delta_n_for_dh_bar(da_n, r):
    return da_n


_stackings(_GRU_GATES, [GRU_BACKWARD_MISTAKES], "the gates' gradients stacked in the wrong order", _GRU_ORDER)


# -- plain remarks for answers no mistake explains ----------------------------------------------------------


# -- dropout's backward pass ---------------------------------------------------------------------------


def _dropout_case(rng, shape, rate):
    """d_out of ``shape`` and the forward pass's mask at ``rate``: with rate > 0, at least two units dropped and
    two kept, so that every mistake of the mask or the scale shows."""
    d_out = rng.normal(0.0, 1.5, shape)
    d_out[np.abs(d_out) < 0.05] = 0.5  # no gradient entry near 0: a dropped unit and a zero look different
    keep = rng.random(shape) >= rate
    while rate > 0 and (keep.sum() < 2 or (~keep).sum() < 2):
        keep = rng.random(shape) >= rate
    return d_out, keep


def _dropout_cases(rng):
    H = int(rng.integers(5, 9))
    B, H2 = int(rng.integers(2, 4)), int(rng.integers(4, 7))
    T, H3 = int(rng.integers(3, 5)), int(rng.integers(3, 6))
    H4 = int(rng.integers(4, 7))
    rate1, rate3 = float(rng.choice([0.2, 0.25, 0.3])), float(rng.choice([0.6, 0.75]))
    cases = []
    for shape, rate, about in (
        ((H,), rate1, f"one layer's h_t at one step, H = {H}"),
        ((B, H2), 0.5, f"a batch of B = {B} rows of H = {H2} units"),
        ((2, T, H3), rate3, f"two layers' h_1 .. h_T, T = {T}, H = {H3}, shape (2, T, H)"),
        ((H4,), 0.0, f"no dropout at all, H = {H4}"),
    ):
        d_out, keep = _dropout_case(rng, shape, rate)
        dropped = f"{int((~keep).sum())} of {keep.size} units dropped"
        cases.append(Case(f"{about}, rate = {rate:g} ({dropped})", (d_out, keep, rate)))
    # gradients around 100 (an answer that clips them fails here)
    d_out, keep = _dropout_case(rng, (int(rng.integers(10, 20)),), 0.4)
    cases.append(Case(f"gradients around 100, H = {d_out.shape[0]}, rate = 0.4", (100.0 * d_out, keep, 0.4)))
    # a rate drawn anywhere in (0, 1), not one of a few round values: a table of rates fails here
    rate = round(float(rng.uniform(0.05, 0.95)), 3)
    while rate in (rate1, 0.5, rate3, 0.4):
        rate = round(float(rng.uniform(0.05, 0.95)), 3)
    d_out, keep = _dropout_case(rng, (int(rng.integers(2, 5)), int(rng.integers(5, 9))), rate)
    cases.append(Case(f"a batch of shape {d_out.shape}, rate = {rate:g}", (d_out, keep, rate)))
    # nearly every unit dropped (a rate from 0.96 to 0.99: the rescale 1 / (1 - rate) from 25 to 100): an answer
    # that leaves the rescale out, or caps it, above some rate fails here (hostile37b, 2d)
    rate = round(float(rng.uniform(0.96, 0.99)), 3)
    d_out, keep = _dropout_case(rng, (int(rng.integers(4, 7)), 64), rate)
    kept = f"{int(keep.sum())} of {keep.size} units kept"
    cases.append(Case(f"nearly every unit dropped: shape {d_out.shape}, rate = {rate:g} ({kept})", (d_out, keep, rate)))
    return cases


def _dropout_model(args, s, case):
    d_out, keep, rate = args
    return d_out * s.passes(keep) * s.scale(rate)


DROPOUT_STEPS = {
    "passes": lambda keep: keep,  # the units the gradient reaches: those the forward pass kept
    "scale": lambda rate: 1.0 / (1.0 - rate),  # what the forward pass scaled them by
}

DROPOUT_MISTAKES = Mistakes()


@DROPOUT_MISTAKES(
    "scale",
    "no rescaling",
    "the 1 / (1 − rate) scaling is missing: the forward pass scaled every kept unit up by 1 / (1 − rate), so its "
    "gradient is scaled by the same factor.",
)
def no_rescaling(rate):
    return 1.0


@DROPOUT_MISTAKES(
    "scale",
    "times 1 − rate",
    "multiplied by 1 − rate where the forward pass divided by it: a kept unit's gradient is scaled by 1 / (1 − rate).",
)
def times_the_keep_probability(rate):
    return 1.0 - rate


@DROPOUT_MISTAKES(
    "scale",
    "divided by the rate",
    "1 / rate where 1 / (1 − rate) belongs: a kept unit is scaled by one over the probability of keeping it, "
    "1 − rate, not of dropping it.",
)
def divided_by_the_rate(rate):
    return np.divide(1.0, np.float64(rate))


@DROPOUT_MISTAKES(
    "passes",
    "the mask turned around",
    "the gradient reaches the units the forward pass dropped, and none of those it kept: keep is True where a "
    "unit was kept.",
)
def dropped_units_get_the_gradient(keep):
    return ~keep


@DROPOUT_MISTAKES(
    "passes",
    "no mask",
    "every unit gets the gradient: a dropped unit passed nothing forward, so nothing comes back to it. Multiply "
    "by the forward pass's mask.",
)
def no_mask(keep):
    return np.ones_like(keep)


def _dropout_units(case, got, want):
    """Which units an unrecognised answer's gradient reaches, against the forward pass's mask."""
    dh = _floats(got.get("dh"))
    d_out, keep, rate = case.args
    if dh is None or dh.shape != keep.shape or not np.all(np.isfinite(dh)):
        return None
    dropped = int(np.sum(~keep & (dh != 0)))
    missed = int(np.sum(keep & (dh == 0)))
    if not dropped and not missed:
        return None
    return (
        f"Your gradient reaches {dropped} of the {int((~keep).sum())} units the forward pass dropped and misses "
        f"{missed} of the {int(keep.sum())} it kept: a mask other than the forward pass's own (one drawn again, "
        "or another step's)? The gradient goes back through the very mask the forward pass used, keep."
    )


# -- one sequence into another: the masked loss and one step of beam search (notebook 11) --------------


def _masked_case(rng, B, T, V, lengths, junk, scale=1.5):
    o = rng.normal(0.0, scale, (B, T, V))
    y = rng.integers(3, V, (B, T))  # real targets: ids past PAD, BOS (EOS among them as 2 is allowed too)
    pads = np.arange(T) >= np.asarray(lengths)[:, None]
    y = np.where(pads, rng.integers(0, V, (B, T)) if junk else 0, y)  # the pads: PAD, or any id
    return o, y, np.asarray(lengths, dtype=np.int64)


def _masked_loss_cases(rng):
    V = [int(v) for v in rng.choice(np.arange(5, 9), size=4, replace=False)]
    T2, T3 = int(rng.integers(5, 7)), int(rng.integers(4, 6))
    short = [T2, 1, int(rng.integers(2, T2))]  # a full row, a row of one token, one between
    cases = []
    o, y, n = _masked_case(rng, 2, 3, V[0], [3, 3], False)
    cases.append(Case(f"no pads at all: B = 2 rows of T = 3, V = {V[0]}", (o, y, n)))
    o, y, n = _masked_case(rng, 3, T2, V[1], short, False)
    cases.append(Case(f"B = 3 rows of lengths {short}, T = {T2}, V = {V[1]}, PAD (0) at the pads", (o, y, n)))
    lengths = [int(rng.integers(1, T3)), T3 - 1, int(rng.integers(1, T3))]  # no row fills T: a pad column
    o, y, n = _masked_case(rng, 3, T3, V[2], lengths, True)
    cases.append(Case(f"lengths {lengths}, T = {T3}, V = {V[2]}, any ids at the pads", (o, y, n)))
    o, y, n = _masked_case(rng, 2, 4, V[3], [4, 2], True)
    o = o + 1000.0 * rng.choice([-1.0, 1.0], size=(2, 4, 1))  # scores near ±1000
    cases.append(Case(f"scores near ±1000, lengths [4, 2], T = 4, V = {V[3]}", (o, y, n)))
    return cases + _masked_loss_more_cases(rng)


def _masked_loss_more_cases(rng):
    """One row; one step (T = 1); rows that all fill T, more than two of them; and a batch as the notebook's
    training draws it (B around 32, T up to 16, a target vocabulary up to 60): each row ends with EOS (2), a
    real target. An answer that special-cases B = 1, T = 1 or no pads, holds only for small B, T or V, or
    counts only the ids past EOS, fails here."""
    cases = []
    for about, B, T, V, lengths in (
        ("one row", 1, int(rng.integers(4, 7)), int(rng.integers(5, 9)), None),
        ("one step, T = 1", int(rng.integers(2, 4)), 1, int(rng.integers(5, 9)), "full"),
        ("rows that all fill T", int(rng.integers(3, 6)), int(rng.integers(3, 6)), int(rng.integers(5, 9)), "full"),
        (
            "a batch as training draws it",
            int(rng.integers(24, 41)),
            int(rng.integers(10, 17)),
            int(rng.integers(30, 61)),
            None,
        ),
    ):
        if lengths is None:
            lengths = rng.integers(1, T + 1, B)
            lengths[int(rng.integers(B))] = int(rng.integers(1, T))  # at least one row with pads
        else:
            lengths = np.full(B, T)
        o, y, n = _masked_case(rng, B, T, V, lengths, True)
        y[np.arange(B), n - 1] = 2  # EOS ends every row
        shown = f"lengths {list(map(int, n))}" if B <= 5 else f"lengths from {n.min()} to {n.max()}"
        cases.append(Case(f"{about}: B = {B}, T = {T}, V = {V}, {shown}, EOS (2) ending each row", (o, y, n)))
    cases += [_targets_far_below_the_best(rng), _targets_past_exp_s_overflow(rng)]
    return cases + [_rows_1000_apart_no_pads(rng), _scores_738_to_745_below_zero(rng)]  # appended last


def _rows_1000_apart_no_pads(rng):
    """No pads, and rows whose scores sit about 1,000 apart: a log-sum-exp shifted by the batch's largest score
    (one shift for all rows) underflows every row but the top one to log 0, where a shift per position is right
    (hostile37n, X81: such a shift, used only when no row is padded)."""
    B, T, V = int(rng.integers(2, 4)), int(rng.integers(2, 5)), int(rng.integers(5, 9))
    o, y, n = _masked_case(rng, B, T, V, [T] * B, False)
    o = o + 1000.0 * rng.permutation(B)[:, None, None]
    return Case(f"no pads, rows 1,000 apart: B = {B}, T = {T}, V = {V}", (o, y, n))


def _scores_738_to_745_below_zero(rng):
    """Scores 738 to 745 below zero, with pads: e^o is subnormal there (below 2.2e-308) and loses digits, so a loss
    that skips the shift while Σ e^o is still finite is about 0.2% off (hostile37n, Z03)."""
    T, V = int(rng.integers(3, 6)), int(rng.integers(5, 9))
    o, y, n = _masked_case(rng, 2, T, V, [T, int(rng.integers(1, T))], True)
    o = -rng.uniform(738.0, 741.0, (2, T, 1)) - rng.uniform(0.0, 4.0, o.shape)
    return Case(f"scores 738 to 745 below zero (e^o subnormal): B = 2, T = {T}, V = {V}", (o, y, n))


def _targets_far_below_the_best(rng):
    """Two rows whose real targets score 50 to 80 below their position's best score, about every other one (a
    probability of 1e-22 to 1e-35: a normal float64, and float32, number): each such token's loss is that distance,
    where a log of the probability clipped at 1e-12 (the usual guard against log 0) stops at 27.6 (hostile37b, 2a).
    A log-softmax, or the log of the probability itself, is right here."""
    T, V = int(rng.integers(3, 6)), int(rng.integers(5, 9))
    o, y, n = _masked_case(rng, 2, T, V, [T, int(rng.integers(1, T))], True)
    for b in range(2):
        for t in range(int(n[b])):
            if t % 2 == b % 2 or t == int(n[b]) - 1:
                others = np.delete(o[b, t], y[b, t])
                o[b, t, y[b, t]] = others.max() - rng.uniform(50.0, 80.0)
    shown = list(map(int, n))
    about = f"real targets 50 to 80 below their position's best score: B = 2, T = {T}, V = {V}, lengths {shown}"
    return Case(about, (o, y, n))


def _targets_past_exp_s_overflow(rng):
    """Two rows (float64) whose real targets score 712 to 728 below their position's best score, about every other
    one: a log-sum-exp shifted by the target's own score, log Σ exp(o - o[y]), overflows there (exp of more than
    709.8 is inf in float64), where cross_entropy_grad's ±1000 case catches the same shift (hostile37c, 5b, w49).
    Such a probability, e^-712 to e^-728, is still a float64 number (subnormal, good to 1e-7 or better), so the log
    of the probability itself stays right in float64, as a log-softmax does in any precision."""
    T, V = int(rng.integers(3, 6)), int(rng.integers(5, 9))
    o, y, n = _masked_case(rng, 2, T, V, [T, int(rng.integers(1, T))], True)
    for b in range(2):
        for t in range(int(n[b])):
            if t % 2 != b % 2 or t == int(n[b]) - 1:
                others = np.delete(o[b, t], y[b, t])
                o[b, t, y[b, t]] = others.max() - rng.uniform(712.0, 728.0)
    shown = list(map(int, n))
    about = f"real targets 712 to 728 below their position's best score: B = 2, T = {T}, V = {V}, lengths {shown}"
    return Case(about, (o, y, n))


def _masked_model(args, s, case):
    o, y, lengths = args
    B, T, V = o.shape
    m = s.counted(o, lengths)  # (B, T): the positions whose loss counts
    y_safe = np.where(m, y, 0)
    log_y_hat = F.log_softmax(o)
    ell = -np.take_along_axis(log_y_hat, y_safe[..., None], axis=-1)[..., 0]
    do = m[..., None] * (np.exp(log_y_hat) - np.eye(V)[y_safe])
    divisor = s.divisor(m, o)
    return float((m * ell).sum() / divisor), do / divisor


MASKED_STEPS = {
    "counted": lambda o, lengths: np.arange(o.shape[1]) < np.asarray(lengths)[:, None],  # the real tokens
    "divisor": lambda m, o: m.sum(),  # N, the number of real tokens
}

MASKED_MISTAKES = Mistakes()


@MASKED_MISTAKES(
    "counted",
    "a loss over the pads too",
    "every position is counted, the pads with their labels as targets: the mean over all B T positions. Two "
    "published routes lead here: an ignore index that the labels' pad value does not match "
    "(huggingface/transformers issue 2759), and the mean taken over every position before the mask is "
    "applied (jingyaogong/minimind issue 51). The gradient at a pad must be exactly 0.",
    rows=(30, 31),
)
def pads_in_the_loss(o, lengths):
    return np.ones(o.shape[:2], dtype=bool)


@MASKED_MISTAKES(
    ANSWER,
    "a loss over the pads too",
    "every position is counted, the pads with the id PAD (0) as their target: the mean over all B T positions. "
    "A valid id at the pads makes their loss computable, not absent: the mask must also leave the pads out of "
    "the sum and out of the count (huggingface/transformers issue 2759, jingyaogong/minimind issue 51). The "
    "gradient at a pad must be exactly 0.",
    rows=(30, 31),
)
def pads_labelled_pad_in_the_loss(o, y, lengths):
    B, T, V = o.shape
    real = np.arange(T) < np.asarray(lengths)[:, None]
    labels = np.where(real, y, 0)  # PAD at the pads, then every position counted
    log_y_hat = F.log_softmax(o)
    ell = -np.take_along_axis(log_y_hat, labels[..., None], axis=-1)[..., 0]
    do = (np.exp(log_y_hat) - np.eye(V)[labels]) / (B * T)
    return float(ell.mean()), do


@MASKED_MISTAKES(
    "divisor",
    "averaged over the padded length, then divided by N",
    "each row's masked losses averaged over all T positions, pads included, and then divided by the number "
    "of real tokens as well (d2l-ai/d2l-en issue 2076): the loss comes out T times too small (d2l's "
    "loop then backpropagates its sum, and trains on N/T times the gradient: notebook 11, section 3). Divide "
    "the sum over the real tokens by their number, once.",
    rows=(29,),
)
def mean_over_the_padded_length_too(m, o):
    return m.sum() * o.shape[1]


@MASKED_MISTAKES(
    "divisor",
    "d2l's trained objective: the rows' masked sums over T",
    "each row's masked losses averaged over all T positions, pads included, and the rows' means summed: what "
    "d2l's loop backpropagates (d2l-ai/d2l-en issue 2076; notebook 11, section 3). Its gradient is N/T times "
    "the right one, a scale that changes with the padding. Divide the sum over the real tokens by their "
    "number N.",
    rows=(29,),
)
def sum_of_row_means_over_t(m, o):
    return o.shape[1]


@MASKED_MISTAKES(
    ANSWER,
    "d2l's reported loss with the gradient it trains on",
    "the loss d2l reports, averaged over the padded length and then divided by N, beside the gradient its "
    "loop trains on, the rows' masked sums over T (d2l-ai/d2l-en issue 2076; notebook 11, section 3): the "
    "loss is T times too small, the gradient N/T times the right one, and they are not even each other's. Divide "
    "the sum over the real tokens by their number N, once, in both.",
    rows=(29,),
)
def d2l_reported_loss_trained_gradient(o, y, lengths):
    loss, do = S2S.masked_loss_and_grad(o, y, lengths)
    T = o.shape[1]
    N = int(np.sum(np.arange(T) < np.asarray(lengths)[:, None]))
    return loss / T, do * N / T


@MASKED_MISTAKES("divisor", "a sum, not a mean", "the sum over the real tokens, not divided by their number N.")
def sum_not_mean(m, o):
    return 1


@MASKED_MISTAKES(
    "divisor",
    "divided by the number of rows",
    "divided by B, the number of rows, where the mean over the real tokens divides by N, their number.",
)
def divided_by_the_number_of_rows(m, o):
    return o.shape[0]


@MASKED_MISTAKES(
    "divisor",
    "divided by every position",
    "divided by B T, every position, pads included: the pads are left out of the sum but counted in the mean.",
)
def divided_by_every_position(m, o):
    return m.size


@MASKED_MISTAKES(
    ANSWER,
    "the mean of each row's mean",
    "each row averaged over its own length, then the rows averaged: a token of a short row then weighs more "
    "than a token of a long one. The loss asked for weighs every real token 1 / N.",
)
def mean_of_row_means(o, y, lengths):
    B, T, V = o.shape
    m = np.arange(T) < np.asarray(lengths)[:, None]
    y_safe = np.where(m, y, 0)
    log_y_hat = F.log_softmax(o)
    ell = -np.take_along_axis(log_y_hat, y_safe[..., None], axis=-1)[..., 0]
    weight = m / np.asarray(lengths)[:, None] / B  # (B, T)
    do = weight[..., None] * (np.exp(log_y_hat) - np.eye(V)[y_safe])
    return float((weight * ell).sum()), do


@MASKED_MISTAKES(
    ANSWER,
    "the gradient not divided by N",
    "the loss is the mean, but the gradient is the sum's: it must be divided by N as the loss is.",
)
def gradient_not_divided(o, y, lengths):
    loss, do = S2S.masked_loss_and_grad(o, y, lengths)
    return loss, do * int(np.sum(np.arange(o.shape[1]) < np.asarray(lengths)[:, None]))


def _pad_gradient(case, got, want):
    """Whether an unrecognised answer's gradient is zero at the pads."""
    do = _floats(got.get("do"))
    o, y, lengths = case.args
    if do is None or do.shape != o.shape or not np.all(np.isfinite(do)):
        return None
    pads = np.arange(o.shape[1]) >= np.asarray(lengths)[:, None]
    if pads.any() and np.abs(do[pads]).max() > 0:
        return (
            f"Your do is not 0 at the pads (its largest there: {np.abs(do[pads]).max():.3g}): a pad is not a "
            "target, and nothing at a pad may change the loss."
        )
    return None


def _beam_cases(rng):
    cases = []
    V1 = int(rng.integers(5, 8))
    cases.append(
        Case(
            f"the first step: one prefix (R = 1), V = {V1}, beam_size 3",
            (np.zeros(1), F.log_softmax(rng.normal(0, 1.5, (1, V1))), 3),
        )
    )
    K2, V2 = 3, int(rng.integers(5, 8))
    log_p = np.sort(rng.uniform(-6, -1, K2))[::-1] - np.array([0.0, 0.2, 3.0])  # spread-out prefixes
    log_probs = F.log_softmax(rng.normal(0, 2.0, (K2, V2)))
    log_probs[-1, 3] = -0.01  # a near-certain token after the least probable prefix
    cases.append(Case(f"R = {K2} prefixes of different log P, V = {V2}, beam_size {K2}", (log_p, log_probs, K2)))
    K3, V3 = 4, int(rng.integers(5, 8))
    log_probs = F.log_softmax(rng.normal(0, 1.0, (K3, V3)))
    log_probs[:, :2] = -np.inf  # PAD and BOS: never an output
    log_p = np.sort(rng.uniform(-4, -0.5, K3))[::-1]
    cases.append(Case(f"R = {K3}, V = {V3}, -inf for ids 0 and 1, beam_size 5", (log_p, log_probs, 5)))
    K4, V4 = 2, 3
    log_probs = F.log_softmax(rng.normal(0, 1.0, (K4, V4)))
    log_p = np.array([-0.5, -1.5]) + rng.uniform(-0.2, 0.2)
    cases.append(Case(f"beam_size 10 > R V = {K4 * V4}: every extension, best first", (log_p, log_probs, 10)))
    K5, V5 = 3, 4
    log_probs = np.log(np.full((K5, V5), 1 / V5))
    log_p = np.array([-1.0, -1.0, -2.0])
    cases.append(Case("equal scores: ties go to the earlier prefix, then the lower id", (log_p, log_probs, 5)))
    return cases + _beam_more_cases(rng)


def _beam_more_cases(rng):
    """beam_size 1; one prefix whose log P is not 0 (a later step, the others finished); prefixes in no order of
    log P with a larger V; many exact ties across prefixes, the beam cut inside them, among more candidates than
    numpy sorts by insertion (an unstable sort or a partition breaks their order); and more extensions kept than
    there are finite ones (-inf scores in the answer). An answer that special-cases beam_size 1 or R = 1,
    assumes the prefixes sorted, sorts unstably, or changes -inf, fails here."""
    cases = []
    K, V = int(rng.integers(3, 5)), int(rng.integers(5, 9))
    log_p = rng.permutation(np.sort(rng.uniform(-5, -0.5, K)) - np.arange(K))  # spread out, in no order
    log_probs = F.log_softmax(rng.normal(0, 2.0, (K, V)))
    log_probs[int(np.argmin(log_p)), int(rng.integers(V))] = -1e-3  # the best token after the worst prefix
    cases.append(Case(f"beam_size 1: R = {K} prefixes in no order of log P, V = {V}", (log_p, log_probs, 1)))
    V = int(rng.integers(5, 9))
    log_p = np.array([-float(rng.uniform(1.0, 6.0))])
    cases.append(
        Case(
            f"one prefix of log P {log_p[0]:.3g}, V = {V}, beam_size 3",
            (log_p, F.log_softmax(rng.normal(0, 1.5, (1, V))), 3),
        )
    )
    K, V = int(rng.integers(4, 6)), int(rng.integers(20, 40))
    log_p = rng.permutation(-rng.uniform(0.5, 6.0, K))
    log_probs = F.log_softmax(rng.normal(0, 2.0, (K, V)))
    cases.append(Case(f"R = {K} prefixes in no order of log P, V = {V}, beam_size {K}", (log_p, log_probs, K)))
    K, V = 4, int(rng.integers(12, 17))
    row = F.log_softmax(rng.integers(0, 3, (1, V)).astype(float))[0]  # three values, each many times
    log_probs = np.array([row, row, rng.permutation(row), row])
    log_p = np.array([-1.0, -1.0, -1.0, -1.5])  # sums that tie exactly
    beam = int(rng.integers(K * V // 4, K * V // 2))
    cases.append(Case(f"many exact ties among R V = {K * V} extensions, beam_size {beam}", (log_p, log_probs, beam)))
    K, V = 2, int(rng.integers(5, 8))
    log_probs = F.log_softmax(rng.normal(0, 1.0, (K, V)))
    for k in range(K):
        log_probs[k, rng.choice(V, size=V - 2, replace=False)] = -np.inf  # two possible tokens a prefix
    beam = int(rng.integers(5, 2 * V))
    log_p = np.array([-0.5, -1.5])
    cases.append(
        Case(f"beam_size {beam} above the 4 finite extensions: -inf scores kept, V = {V}", (log_p, log_probs, beam))
    )
    return cases + [_prefixes_far_below_any_mask(rng), _totals_within_1e9(rng)]


def _minus_inf_kept(case, got, want):
    """A remark for a beam that keeps extensions of log P −∞ while finite ones are left out (a finite stand-in for −∞
    in the ordering), else the remark on nan and inf."""
    scores, right = _floats(got.get("scores")), np.asarray(want["scores"], dtype=float)
    if scores is not None and scores.shape == right.shape and np.all(np.isfinite(right)) and np.isneginf(scores).any():
        return (
            "Your beam keeps extensions of log P −∞ (tokens that are never output) while extensions of finite log P "
            "are left out: does a finite stand-in for −∞ (−1e4, say) order the candidates? It ranks above every real "
            "score below it. Order by the scores themselves: −∞ sorts last."
        )
    return _nonfinite_remark(case, got, want)


def _prefixes_far_below_any_mask(rng):
    """R = 3 prefixes of log P near -1e5, ids 0 and 1 at -inf, beam_size 3 (fewer than the finite extensions): an
    answer that orders the candidates with a finite stand-in for -inf (-1e4, -1e9 would do) keeps -inf ones here.
    The finite scores lie at least 0.1 apart, so that float32's rounding of numbers near 1e5 (0.008) keeps them
    in order."""
    K, V = 3, int(rng.integers(5, 9))
    log_p = FAR_BELOW - 0.2 * np.arange(K)
    steps = 0.5 * rng.permutation(K * (V - 2)).reshape(K, V - 2)  # distinct halves: totals 0.1 apart at least
    log_probs = np.full((K, V), -np.inf)
    log_probs[:, 2:] = -0.1 - steps
    about = f"R = {K} prefixes of log P near -1e5, V = {V}, -inf for ids 0 and 1, beam_size {K}"
    return Case(about, (rng.permutation(log_p), log_probs, K))


def _totals_within_1e9(rng):
    """R = 3 prefixes, V of 5 to 7, and 6 to 8 extensions whose totals lie 1e-10 apart, all within 1e-9 of each
    other, the better ones at the later flat indices, beam_size cutting among them (the other extensions far
    below): totals ranked in float32 (or rounded) tie there, and a stable sort keeps them in (k, j) order, the
    reverse of theirs (hostile37b, 2b). float64's own rounding of numbers near 3 (4e-16) keeps them apart."""
    K, V = 3, int(rng.integers(5, 8))
    log_p = -rng.uniform(0.2, 1.5, K)
    log_probs = F.log_softmax(rng.normal(0, 1.0, (K, V))) - 10.0
    m = int(rng.integers(6, 9))
    near = np.sort(rng.choice(K * V, size=m, replace=False))  # flat indices k V + j, in (k, j) order
    top = -3.0 - rng.uniform(0.0, 0.5)
    for rank, flat in enumerate(near[::-1]):  # the last flat index the best
        k, j = divmod(int(flat), V)
        log_probs[k, j] = (top - 1e-10 * rank) - log_p[k]
    beam = int(rng.integers(2, m - 1))
    about = f"R = {K} prefixes, V = {V}, {m} totals within 1e-9 of each other (1e-10 apart), beam_size {beam}"
    return Case(about, (log_p, log_probs, beam))


def _beam_model(args, s, case):
    log_p, log_probs, beam_size = args
    cand = s.total(np.asarray(log_p), np.asarray(log_probs)).ravel()
    best = s.order(cand)[:beam_size]
    rows, tokens = s.split(best, np.shape(log_probs))
    return rows, tokens, cand[best]


BEAM_STEPS = {
    "total": lambda log_p, log_probs: log_p[:, None] + log_probs,  # log P of every extension, (R, V)
    "order": lambda cand: np.argsort(-cand, kind="stable"),  # best first, ties in (k, j) order
    "split": lambda best, shape: np.divmod(best, shape[1]),  # flat index -> (prefix, token)
}

BEAM_MISTAKES = Mistakes()


@BEAM_MISTAKES(
    "total",
    "ranked by the new token alone",
    "the extensions are ranked by log ŷ of the new token only, without the log P of the prefix it extends: "
    "log P(y_<t, j | x) = log P(y_<t | x) + log ŷ_t[j].",
)
def the_new_token_alone(log_p, log_probs):
    return log_probs + 0 * log_p[:, None]


@BEAM_MISTAKES(
    "total",
    "log-probabilities multiplied",
    "the prefix's log P times the token's log ŷ: probabilities multiply, so their logarithms add.",
)
def log_probabilities_multiplied(log_p, log_probs):
    return log_p[:, None] * log_probs


@BEAM_MISTAKES(
    "order",
    "the least probable kept",
    "sorted from the lowest log P up: the beam keeps the worst extensions. Sort by −log P (or reverse).",
)
def ascending(cand):
    return np.argsort(cand, kind="stable")


@BEAM_MISTAKES(
    "split",
    "the flat index split by R",
    "the index into the R × V candidates is k V + j: divide by V, the number of tokens, not by R, the number "
    "of prefixes.",
)
def split_by_the_number_of_prefixes(best, shape):
    return np.divmod(best, shape[0])


@BEAM_MISTAKES(
    ANSWER,
    "one extension per prefix",
    "each prefix extended by its own best token only, then the best of those kept: two good extensions of one "
    "prefix can both belong in the beam. Rank all R V extensions together.",
)
def one_extension_per_prefix(log_p, log_probs, beam_size):
    log_p, log_probs = np.asarray(log_p), np.asarray(log_probs)
    tokens = log_probs.argmax(axis=1)
    scores = log_p + log_probs[np.arange(len(log_p)), tokens]
    rows = np.argsort(-scores, kind="stable")[:beam_size]
    return rows, tokens[rows], scores[rows]


@BEAM_MISTAKES(
    ANSWER,
    "the token's log ŷ as the score",
    "the right extensions, but the score returned is the new token's log ŷ alone: the beam's score is the "
    "whole prefix's log P, the old one plus the new token's.",
)
def score_of_the_token_alone(log_p, log_probs, beam_size):
    rows, tokens, _ = S2S.beam_step(log_p, log_probs, beam_size)
    return rows, tokens, np.asarray(log_probs)[rows, tokens]


def _floats(value):
    """A value read by the checker as a float array, or None when it is not one."""
    try:
        if value is None or isinstance(value, (dict, str)):
            return None
        a = np.asarray(value)
        return a.astype(np.float64) if a.dtype.kind in "biuf" else None
    except Exception:
        return None


def _nonfinite(a):
    kinds = [k for k, bad in (("nan", np.isnan(a).any()), ("inf", np.isinf(a).any())) if bad]
    return " and ".join(kinds)


def _join(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _nonfinite_remark(case, got, want):
    bad = [
        n
        for n, w in want.items()
        if (g := _floats(got.get(n))) is not None and g.shape == np.shape(w) and not np.all(np.isfinite(g))
    ]
    if bad:
        return (
            f"Your {_join(bad)} hold nan or inf where rnn_core's are numbers: an exp that overflowed, a division by "
            "0, or a value read before it was written?"
        )
    return None


# -- attention_forward, attention_backward (notebook 12) ------------------------------------------------------

ATT = reference.load("attention")


def _attention_memory(rng, B, S, H, lengths):
    """h (B, H), u (B, S, H) and the mask of ``lengths``: the pads hold large entries of both signs, so that an
    answer reading them (in its weights or its context) is far off."""
    h = rng.normal(0.0, 1.0, (B, H))
    u = rng.normal(0.0, 1.0, (B, S, H))
    mask = np.arange(S) < np.asarray(lengths)[:, None]
    u[~mask] = rng.choice([-1.0, 1.0], size=u[~mask].shape) * rng.uniform(2.0, 4.0, u[~mask].shape)
    return h, u, mask


def _attention_forward_cases(rng):
    cases = []
    S, H = (int(n) for n in rng.choice(np.arange(4, 8), size=2, replace=False))
    lengths = [S, int(rng.integers(2, S)), 1]
    h, u, mask = _attention_memory(rng, 3, S, H, lengths)
    cases.append(
        Case(f"B = 3 rows of lengths {lengths}, S = {S}, H = {H}: pads after the real positions", (h, u, mask))
    )
    S2, H2 = int(rng.integers(3, 6)), int(rng.integers(2, 5))
    h2, u2, mask2 = _attention_memory(rng, 2, S2, H2, [S2, S2])
    cases.append(Case(f"B = 2 rows with no pads, S = {S2}, H = {H2}", (h2, u2, mask2)))
    S3, H3 = int(rng.integers(5, 8)), int(rng.integers(3, 5))
    L3 = int(rng.integers(2, S3 - 1))
    h3, u3, mask3 = _attention_memory(rng, 1, S3, H3, [L3])
    scores = u3[0, :L3] @ h3[0]
    extreme = scores[np.abs(scores).argmax()]
    # the largest score +1000 (and the others up to ±1000): exp overflows unless the softmax is shifted
    h3 *= 1000.0 / extreme
    cases.append(Case(f"one row of length {L3} in S = {S3}, H = {H3}, scores up to ±1000", (h3, u3, mask3)))
    cases = cases + _attention_forward_more_cases(rng) + [_scores_far_below_any_mask(rng)]
    # appended last: the cases before them draw as they did
    return cases + [_pads_far_above_the_real_scores(rng), _pads_far_above_any_finite_mask(rng), _rows_far_apart(rng)]


def _rows_far_apart(rng):
    """Two rows without pads, the first's scores near 0 and the second's near -800: a softmax shifted by the largest
    score of the whole batch instead of each row's own underflows every weight of the second row to 0 and divides 0
    by 0 (hostile37c, w43), where the right answer's weights of each row are those of its own scores alone."""
    S, H = int(rng.integers(4, 7)), int(rng.integers(3, 6))
    h, u, mask = _attention_memory(rng, 2, S, H, [S, S])
    for b, level in enumerate((0.0, -800.0)):
        along = h[b] / (h[b] @ h[b])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
        for s_ in range(S):
            u[b, s_] += (level + rng.uniform(-3, 3) - u[b, s_] @ h[b]) * along
    about = f"B = 2 rows without pads, S = {S}, H = {H}: the first row's scores near 0, the second's near -800"
    # scores near 800 computed in float32 move the weights by ~2e-5; the mistake it is for gives nan
    return Case(about, (h, u, mask), extra={"tol": 1e-3, "tol32": 1e-3})


def _pads_far_above_the_real_scores(rng):
    """One row whose real scores are near -800 and whose pads score near 0, some 800 above them: a softmax shifted
    by the largest score of all positions, pads included, then masked after the exp, underflows every real
    position to 0 and divides 0 by 0 (hostile37, 5c), where the right answer's weights are those of the real
    scores alone."""
    S, H = int(rng.integers(5, 8)), int(rng.integers(3, 6))
    L = int(rng.integers(2, S))
    h, u, mask = _attention_memory(rng, 1, S, H, [L])
    along = h[0] / (h[0] @ h[0])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
    for s_ in range(S):
        target = (-800.0 + rng.uniform(-3, 3)) if s_ < L else rng.uniform(-3, 3)
        u[0, s_] += (target - u[0, s_] @ h[0]) * along
    about = f"one row of length {L} in S = {S}, H = {H}, every real score near -800, the pads' near 0 (800 above)"
    # scores near 800 computed in float32 move the weights by ~2e-5; the mistake it is for gives nan
    return Case(about, (h, u, mask), extra={"tol": 1e-3, "tol32": 1e-3})


def _pads_far_above_any_finite_mask(rng):
    """One row whose real scores are of moderate size and whose pads score near 2e4, far above them: a finite mask
    added to the scores (scores + (~mask) * -1e4, BERT's way) leaves the pads 1e4 above every real position, where
    they take all the weight (hostile37, 5d); -inf put in their place, or -1e9 (or -1e30) added, gives them none."""
    S, H = int(rng.integers(5, 8)), int(rng.integers(3, 6))
    L = int(rng.integers(2, S))
    h, u, mask = _attention_memory(rng, 1, S, H, [L])
    along = h[0] / (h[0] @ h[0])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
    for s_ in range(L, S):
        u[0, s_] += (2e4 + rng.uniform(-3, 3) - u[0, s_] @ h[0]) * along
    about = (
        f"one row of length {L} in S = {S}, H = {H}, scores of moderate size, the pads' near 2e4 (above a -1e4 mask)"
    )
    return Case(about, (h, u, mask))


FAR_BELOW = -1e5  # the real scores of the last attention case: far below a finite mask such as -1e4
FAR_BELOW_TOL = 0.05  # how far an answer may miss there: float32 rounding of its scores (~0.01) moves the weights


def _scores_far_below_any_mask(rng):
    """Two rows with pads (after the real positions, and in the middle) whose every score is near -1e5, spread by a
    few units: a pad given a finite score above them (-1e4, -1e3) takes all the weight, where -inf (or -1e9) gives
    it none. Compared to 0.05 of the largest entry, whatever the answer's dtype: an answer that computes in float32
    (its outputs float32 or not) moves the weights by up to ~0.4% through its rounding of scores near 1e5, where a
    finite mask misses by the whole weight."""
    S, H = int(rng.integers(5, 8)), int(rng.integers(3, 6))
    L = int(rng.integers(2, S - 1))
    mask = np.ones((2, S), dtype=bool)
    mask[0, L:] = False
    mask[1, int(rng.integers(1, S - 1))] = False
    h, u = _attention_memory_masked(rng, mask, H)
    for b in range(2):
        along = h[b] / (h[b] @ h[b])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
        for s_ in range(S):  # the pads' own scores near -1e5 too: a softmax shifted by the largest score of all
            u[b, s_] += (FAR_BELOW + rng.uniform(-3, 3) - u[b, s_] @ h[b]) * along  # positions, pads included, works
    about = f"B = 2 rows with pads, S = {S}, H = {H}, every real score near -1e5: below any finite mask"
    return Case(about, (h, u, mask), extra={"tol": FAR_BELOW_TOL, "tol32": FAR_BELOW_TOL})


def _scattered_mask(rng, B, S):
    """A (B, S) mask with pads anywhere: the first row padded at its start, the second in its middle, the rest
    at random; every row with at least one real position."""
    mask = rng.random((B, S)) < 0.6
    mask[0, : int(rng.integers(1, min(4, S // 2 + 1)))] = False
    mask[0, -1] = True
    if B > 1:
        mask[1] = True
        mask[1, int(rng.integers(1, S - 1))] = False
    for b in range(B):
        if not mask[b].any():
            mask[b, int(rng.integers(S))] = True
    return mask


def _attention_memory_masked(rng, mask, H):
    """h (B, H) and u (B, S, H) for a mask of any pattern, the pads holding large entries as _attention_memory's."""
    B, S = mask.shape
    h, u = rng.normal(0.0, 1.0, (B, H)), rng.normal(0.0, 1.0, (B, S, H))
    u[~mask] = rng.choice([-1.0, 1.0], size=u[~mask].shape) * rng.uniform(2.0, 4.0, u[~mask].shape)
    return h, u


def _attention_forward_more_cases(rng):
    """Pads anywhere in a row (the first row's at its start, the second's in its middle); one row with pads and
    scores of moderate size; one whose every real score is near -600; and a batch as notebook 12 draws it
    (B around 32, S up to 40, H up to 20). An answer that takes the mask for a length, masks with a finite score such as
    -100, special-cases B = 1, or holds only for small S or H, fails here."""
    cases = []
    B, S, H = int(rng.integers(3, 5)), int(rng.integers(6, 10)), int(rng.integers(3, 6))
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    cases.append(
        Case(f"B = {B} rows, S = {S}, H = {H}: pads anywhere, not only after the real positions", (h, u, mask))
    )
    S, H = int(rng.integers(5, 8)), int(rng.integers(3, 6))
    L = int(rng.integers(2, S))
    h, u, mask = _attention_memory(rng, 1, S, H, [L])
    cases.append(Case(f"one row of length {L} in S = {S}, H = {H}, scores of moderate size", (h, u, mask)))
    S, H = int(rng.integers(5, 8)), int(rng.integers(3, 6))
    L = int(rng.integers(2, S))
    h, u, mask = _attention_memory(rng, 1, S, H, [L])
    along = h[0] / (h[0] @ h[0])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
    for s_ in range(L):
        u[0, s_] += (-600.0 + rng.uniform(-20, 20) - u[0, s_] @ h[0]) * along
    cases.append(Case(f"one row of length {L} in S = {S}, H = {H}, every real score near -600", (h, u, mask)))
    B, S, H = int(rng.integers(24, 41)), int(rng.integers(20, 41)), int(rng.integers(10, 21))
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    cases.append(Case(f"a batch of B = {B} rows, S = {S}, H = {H}, pads anywhere", (h, u, mask)))
    return cases


def _attention_forward_model(args, s, case):
    h, u, mask = args
    scores = np.einsum("bh,bsh->bs", h, u)  # h . u_s
    alpha = F.softmax(s.masked(scores, mask), axis=-1)
    return alpha, np.einsum("bs,bsh->bh", alpha, u)  # the context, sum_s alpha_s u_s


ATTENTION_FORWARD_STEPS = {"masked": lambda scores, mask: np.where(mask, scores, -np.inf)}

ATTENTION_FORWARD_MISTAKES = Mistakes()


@ATTENTION_FORWARD_MISTAKES(
    "masked",
    "softmax over the padded positions too",
    "no mask: the softmax runs over every position, pads included, so the pads take weight and the context "
    "reads what they hold (TensorFlow's early seq2seq attention, tensorflow/tensorflow issue 512).",
    rows=(32,),
)
def softmax_over_the_pads(scores, mask):
    return scores


@ATTENTION_FORWARD_MISTAKES(
    "masked",
    "the pads given a score of 0",
    "the scores multiplied by the mask: a pad then scores 0, not −∞, and exp(0) = 1 gives it weight. Put −∞ "
    "(np.where(mask, scores, -np.inf)) at the pads before the softmax.",
)
def pads_scored_zero(scores, mask):
    return np.where(mask, scores, 0.0)


@ATTENTION_FORWARD_MISTAKES(
    ANSWER,
    "the memory zeroed at the pads, the scores left unmasked",
    "the pads of the memory were set to 0 but the scores were not masked: each pad scores h · 0 = 0 and takes "
    "weight, so the real positions share less than 1 (TensorFlow Addons' AttentionMechanism, tensorflow/addons "
    "pull request 133).",
    rows=(33,),
)
def memory_zeroed_scores_unmasked(h, u, mask):
    u = u * mask[..., None]
    alpha = F.softmax(np.einsum("bh,bsh->bs", h, u), axis=-1)
    return alpha, np.einsum("bs,bsh->bh", alpha, u)


@ATTENTION_FORWARD_MISTAKES(
    ANSWER,
    "the mask applied after the softmax",
    "the weights were zeroed at the pads after a softmax over every position: they no longer sum to 1. Mask the "
    "scores with −∞ before the softmax, which then shares 1 among the real positions.",
)
def mask_after_the_softmax(h, u, mask):
    alpha = F.softmax(np.einsum("bh,bsh->bs", h, u), axis=-1) * mask
    return alpha, np.einsum("bs,bsh->bh", alpha, u)


def _attention_pads(case, got, want):
    """What an unrecognised answer's weights do at the pads and in their sums."""
    alpha = _floats(got.get("alpha"))
    mask = case.args[2]
    if alpha is None or alpha.shape != mask.shape or not np.all(np.isfinite(alpha)):
        return None
    if np.any(alpha[~mask] != 0):
        return "Your weights are not 0 at every padded position: the mask must give each pad a score of −∞."
    if not np.allclose(alpha.sum(axis=1), 1.0):
        return "Your weights are 0 at the pads but do not sum to 1 in every row: a softmax over the real positions."
    return None


def _attention_backward_cases(rng):
    cases = []
    for about, B, S, H, first in (
        ("rows of lengths {L}, S = {S}, H = {H}", 3, 6, 4, (None, 3, 1)),
        ("B = 2 rows with no pads, S = {S}, H = {H}", 2, 4, 3, (None, None)),
        ("one row of length {L}, S = {S}, H = {H}", 1, 5, 6, (3,)),
    ):
        S, H = S + int(rng.integers(0, 2)), H + int(rng.integers(0, 2))
        lengths = [S if n is None else n for n in first]  # None: the whole row real
        h, u, mask = _attention_memory(rng, B, S, H, lengths)
        alpha, _ = ATT.attention_forward(h, u, mask)
        dcontext = rng.normal(0.0, 1.0, (B, H))
        cases.append(
            Case(
                about.format(L=lengths if B > 1 else lengths[0], S=S, H=H),
                (dcontext, h, u, alpha),
                extra={"mask": mask},
            )
        )
    return cases + _attention_backward_more_cases(rng)


def _attention_backward_more_cases(rng):
    """Pads anywhere in a batch as notebook 12 draws it (B around 32, S up to 40, H up to 20; many weights far
    below 1e-4): an answer that holds only for small S, H or B, or drops the small weights, fails here."""
    B, S, H = int(rng.integers(24, 41)), int(rng.integers(20, 41)), int(rng.integers(10, 21))
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    alpha, _ = ATT.attention_forward(h, u, mask)
    dcontext = rng.normal(0.0, 1.0, (B, H))
    about = f"a batch of B = {B} rows, S = {S}, H = {H}, pads anywhere"
    return [Case(about, (dcontext, h, u, alpha), extra={"mask": mask})]


def _attention_backward_model(args, s, case):
    dcontext, h, u, alpha = args
    dalpha = np.einsum("bsh,bh->bs", u, dcontext)  # dcontext . u_s
    dscores = s.softmax_back(alpha, dalpha)
    dh = np.einsum("bs,bsh->bh", dscores, u)
    return dh, s.du(alpha, dcontext, dscores, h)


ATTENTION_BACKWARD_STEPS = {
    "softmax_back": lambda alpha, dalpha: alpha * (dalpha - (alpha * dalpha).sum(axis=1, keepdims=True)),
    "du": lambda alpha, dc, dscores, h: alpha[..., None] * dc[:, None, :] + dscores[..., None] * h[:, None, :],
}

ATTENTION_BACKWARD_MISTAKES = Mistakes()


@ATTENTION_BACKWARD_MISTAKES(
    "softmax_back",
    "the softmax's Jacobian without its outer product",
    "dscore = alpha ⊙ dalpha keeps only the diagonal of the softmax's Jacobian, diag(alpha) − alpha alphaᵀ "
    "(notebook 01): subtract the weighted mean, alpha ⊙ (dalpha − alpha · dalpha).",
)
def jacobian_diagonal_only(alpha, dalpha):
    return alpha * dalpha


@ATTENTION_BACKWARD_MISTAKES(
    "softmax_back",
    "no step back through the softmax",
    "dalpha used as the gradient of the scores: the softmax between them has a Jacobian, and without it the "
    "padded positions get a gradient too.",
)
def no_softmax_step(alpha, dalpha):
    return dalpha


@ATTENTION_BACKWARD_MISTAKES(
    "du",
    "the memory's gradient through the context only",
    "du_s = alpha_s dcontext misses the second path: u_s is in the score h · u_s as well, which adds dscore_s h.",
)
def memory_through_the_context_only(alpha, dc, dscores, h):
    return alpha[..., None] * dc[:, None, :]


@ATTENTION_BACKWARD_MISTAKES(
    "du",
    "the memory's gradient through the scores only",
    "du_s = dscore_s h misses the first path: u_s is summed into the context with weight alpha_s, which adds "
    "alpha_s dcontext.",
)
def memory_through_the_scores_only(alpha, dc, dscores, h):
    return dscores[..., None] * h[:, None, :]


# -- the exercises, in reading order ------------------------------------------------------------------------

_GRADS_MEANING = {name: f"∇{name} L" for name in PARAM_NAMES}
_STEP_GRADS = {name: f"this step's share of ∇{name} L" for name in ("W_xh", "W_hh", "b_h")}

EXERCISE_LIST = (
    Exercise(
        "one_hot",
        "00-start-here.ipynb",
        lambda y, num_classes: F.one_hot(y, num_classes),
        args=("y", "num_classes"),
        outputs=("one_hot",),
        cases=_one_hot_cases,
        meaning={"one_hot": "the one-hot rows, one row per index and one column per class"},
        mistakes=tuple(ONE_HOT_MISTAKES),
        watch=_watch("functions.one_hot"),
        public=("rnn_core.one_hot", "rnn_core.functions.one_hot"),
        diagnostics=(_one_hot_rows,),
        where="notebook 00, section 3",
        hint="Start from zeros with one row per index and num_classes columns, then put a single 1 in each "
        "row, in the column its index names. numpy's indexing can set them all at once (rows "
        "0, 1, 2, ... paired with the columns y), or a loop over the rows does it. The number of columns is "
        "num_classes, whatever indices y happens to hold. One index given as an int gets one vector of "
        "num_classes entries, not a row: numpy reads an int as an array with no axes, so rows shaped like y "
        "with one more axis of num_classes cover both.",
    ),
    Exercise(
        "softmax",
        "01-softmax-and-its-derivative.ipynb",
        lambda o: F.softmax(o),
        args=("o",),
        varied=("o",),
        outputs=("y_hat",),
        cases=_softmax_cases,
        meaning={"y_hat": "ŷ = softmax(o), the probabilities"},
        mistakes=tuple(SOFTMAX_MISTAKES),
        watch=_watch("functions.softmax"),
        public=("rnn_core.softmax", "rnn_core.functions.softmax"),
        diagnostics=(_probabilities,),
        where="notebook 01, section 3",
        hint="Exponentiate every score, then divide by the sum of the exponentials: positive numbers that "
        "sum to 1. Scores near 1000 overflow exp; subtracting the largest score from every score "
        "first changes nothing in the result (the factor cancels) and keeps every exponent at most 0, "
        "also when scores near 1000 and near −1000 come together.",
    ),
    Exercise(
        "softmax_jacobian",
        "01-softmax-and-its-derivative.ipynb",
        lambda y_hat: F.softmax_jacobian(y_hat),
        args=("y_hat",),
        varied=("y_hat",),
        outputs=("J",),
        cases=_jacobian_cases,
        meaning={"J": "J = ∂ŷ/∂o, the V × V Jacobian of softmax"},
        mistakes=tuple(JACOBIAN_MISTAKES),
        watch=_watch("functions.softmax_jacobian"),
        public=("rnn_core.softmax_jacobian", "rnn_core.functions.softmax_jacobian"),
        diagnostics=(_jacobian_rows,),
        where="notebook 01, section 6",
        hint="Entry (i, k) is ∂ŷ_i/∂o_k. Work out the two cases, i = k and i ≠ k, and write both as one "
        "formula with [i = k] (1 if i = k, else 0): that is a diagonal matrix minus an outer product. The "
        "argument is ŷ, the probabilities, not the scores.",
    ),
    Exercise(
        "cross_entropy_grad",
        "02-cross-entropy.ipynb",
        lambda o, y: F.cross_entropy_grad(o, y),
        args=("o", "y"),
        varied=("o",),
        outputs=("do",),
        cases=_cross_entropy_cases,
        meaning={"do": "∇o L, the gradient of the loss with respect to the scores o"},
        mistakes=tuple(CROSS_ENTROPY_MISTAKES),
        watch=_watch("functions.cross_entropy_grad", "functions.cross_entropy_and_grad"),
        public=("rnn_core.cross_entropy_grad", "rnn_core.functions.cross_entropy_grad"),
        diagnostics=(_gradient_sums_to_zero,),
        where="notebook 02, section 4",
        hint="Go from the loss to the probabilities (∂L/∂ŷ_i), then through softmax's Jacobian to the "
        "scores, and simplify: the probabilities cancel, and what is left is the probabilities minus "
        "the one-hot target. Compute the probabilities stably: the scores may be large, of both signs.",
    ),
    Exercise(
        "step_forward",
        "03-the-forward-pass.ipynb",
        lambda params, x_t, h_prev: RNN.step_forward(params, x_t, h_prev),
        args=("params", "x_t", "h_prev"),
        varied=("params", "h_prev"),
        outputs=("h",),
        cases=_step_forward_cases,
        meaning={"h": "h_t = tanh(W_hh h_{t−1} + W_xh x_t + b_h), the new state"},
        model=_step_forward_model,
        steps=STEP_FORWARD_STEPS,
        mistakes=tuple(STEP_FORWARD_MISTAKES),
        watch=_watch("rnn.step_forward"),
        public=("rnn_core.step_forward", "rnn_core.rnn.step_forward"),
        diagnostics=(_nonfinite_remark,),
        where="notebook 03, section 2",
        hint="One line: add the recurrent term W_hh h_{t−1}, the input term and the bias b_h, then squash "
        "with tanh. With a one-hot x_t, W_xh x_t is simply column x_t of W_xh.",
    ),
    Exercise(
        "step_backward",
        "04-backpropagation-through-time.ipynb",
        lambda params, dh_t, h_t, h_prev, x_t: RNN.step_backward(params, dh_t, h_t, h_prev, x_t),
        args=("params", "dh_t", "h_t", "h_prev", "x_t"),
        varied=("dh_t", "params"),
        derived=_step_again,
        outputs=("dh_prev", "grads"),
        by_key=("grads",),
        cases=_step_backward_cases,
        meaning={"dh_prev": "W_hhᵀ δ_t, what goes back to h_{t−1}", **_STEP_GRADS},
        model=_step_backward_model,
        steps=BACKWARD_STEPS,
        mistakes=tuple(STEP_BACKWARD_MISTAKES),
        watch=_watch("rnn.step_backward"),
        public=("rnn_core.step_backward", "rnn_core.rnn.step_backward"),
        diagnostics=(_nonfinite_remark,),
        where="notebook 04, section 2",
        hint="Go back through the tanh first: δ = dh_t ⊙ (1 − h_t²), with the slope of this step's h_t. "
        "Each weight's gradient is then the outer product of δ with what that weight multiplied in "
        "the forward pass (h_{t−1} for W_hh, the one-hot x_t for W_xh); b_h gets δ itself; and what "
        "reaches h_{t−1} goes back through W_hh, transposed.",
    ),
    Exercise(
        "loss_and_grads",
        "04-backpropagation-through-time.ipynb",
        lambda params, inputs, targets, h0: RNN.loss_and_grads(params, inputs, targets, h0, return_dstate0=True),
        args=("params", "inputs", "targets", "h0"),
        varied=("params", "inputs", "targets", "h0"),
        outputs=("loss", "grads", "h_last"),
        by_key=("grads",),
        optional=("dh0",),
        cases=_loss_and_grads_cases,
        meaning={
            "loss": "L, the cross-entropy in nats summed over the T steps",
            **_GRADS_MEANING,
            "h_last": "h_T, the state after the last step",
            "dh0": "∇h_0 L = W_hhᵀ δ_1",
        },
        model=_bptt_model,
        steps=LOSS_AND_GRADS_STEPS,
        mistakes=tuple(LOSS_AND_GRADS_MISTAKES),
        watch=_watch("rnn.loss_and_grads", "_cell.stack_loss_and_grads", "_fast_rnn.VanillaEngine.backward"),
        public=("rnn_core.loss_and_grads", "rnn_core.rnn.loss_and_grads"),
        diagnostics=(_b_o_is_zero, _large_entries, _nonfinite_remark),
        where="notebook 04, section 2",
        hint="Run the forward pass once and keep every state, h_0 included. Then walk t from T down to 1: "
        "∇o_t L = ŷ_t − 𝐲_t; ∇h_t L gets W_yhᵀ ∇o_t L plus what comes back from step t + 1; "
        "δ_t = (1 − h_t²) ⊙ ∇h_t L; each of the five gradients adds this step's share (they are sums "
        "over time), and W_hhᵀ δ_t is what goes on to h_{t−1}. Notebook 04, section 2.",
    ),
    Exercise(
        "global_norm",
        "05-bptt-in-practice.ipynb",
        lambda grads: OPTIM.global_norm(grads),
        args=("grads",),
        varied=("grads",),
        outputs=("norm",),
        cases=_global_norm_cases,
        meaning={"norm": "the global norm, √(Σ over every entry of every array of its square)"},
        mistakes=tuple(GLOBAL_NORM_MISTAKES),
        watch=_watch("optim.global_norm"),
        public=("rnn_core.global_norm", "rnn_core.optim.global_norm"),
        where="notebook 05, section 3",
        hint="One number for all the arrays together: add up the squares of every entry of every gradient, "
        "and take one square root at the end.",
    ),
    Exercise(
        "clip_global_norm",
        "05-bptt-in-practice.ipynb",
        lambda grads, max_norm: OPTIM.clip_global_norm(grads, max_norm),
        args=("grads", "max_norm"),
        varied=("grads",),
        outputs=("grads", "norm"),
        by_key=("grads",),
        cases=_clip_cases,
        meaning={"norm": "the global norm of the gradients before clipping"}
        | {name: f"the clipped gradient of {name}" for name in PARAM_NAMES},
        model=_clip_model,
        steps=CLIP_STEPS,
        mistakes=tuple(CLIP_MISTAKES),
        watch=_watch("optim.clip_global_norm"),
        public=("rnn_core.clip_global_norm", "rnn_core.optim.clip_global_norm"),
        diagnostics=(_clipped_norm,),
        where="notebook 05, section 3",
        hint="First one norm for all the gradients together: the square root of the sum of the squares of "
        "every entry of every array. Only if it is larger than max_norm, multiply every array by the "
        "same factor, max_norm / norm. Return new arrays, not the ones you were given changed in "
        "place, and the norm from before clipping.",
    ),
    Exercise(
        "adam_update",
        "06-training-on-pride-and-prejudice.ipynb",
        lambda params, grads, state, lr, *settings: OPTIM.adam_update(params, grads, state, lr, *settings),
        args=("params", "grads", "state", "lr"),
        varied=("grads",),
        outputs=("params", "state"),
        by_key=("params", "state"),
        cases=_adam_cases,
        meaning={
            **{name: f"the updated {name}" for name in PARAM_NAMES},
            "t": "the number of updates so far",
            "m": "the running averages of the gradients",
            "v": "the running averages of their squares",
        },
        model=_adam_model,
        steps=ADAM_STEPS,
        mistakes=tuple(ADAM_MISTAKES),
        watch=_watch("optim.adam_update"),
        public=("rnn_core.adam_update", "rnn_core.optim.adam_update"),
        diagnostics=(_nonfinite_remark,),
        where="notebook 06, section 3",
        hint="Increase the step count t first. Update both running averages with this step's gradient (m "
        "with g, v with g²), correct their bias by dividing by 1 − β₁ᵗ and 1 − β₂ᵗ, and move every "
        "weight by lr · m̂ / (√v̂ + ε), against the gradient. Return new dicts, with the state in the "
        "same form as it came: t, m and v (defaults β₁ = 0.9, β₂ = 0.999, ε = 1e-8).",
    ),
    Exercise(
        "lstm.step_forward",
        "08-gated-cells-lstm.ipynb",
        lambda params, x_t, h_prev, c_prev: LSTM.step_forward(params, x_t, h_prev, c_prev),
        args=("params", "x_t", "h_prev", "c_prev"),
        varied=("params", "h_prev", "c_prev"),
        outputs=("h", "c", "cache"),
        cases=_lstm_forward_cases,
        meaning={"h": "h_t = q ⊙ tanh(c_t)", "c": "c_t = f ⊙ c_{t−1} + i ⊙ g", "cache": "what step_backward needs"},
        model=_lstm_forward_model,
        steps=LSTM_FORWARD_STEPS,
        mistakes=tuple(LSTM_FORWARD_MISTAKES),
        watch=_watch("lstm.step_forward"),
        public=("rnn_core.lstm.step_forward",),
        diagnostics=(_nonfinite_remark,),
        where="notebook 08, section 2",
        hint="All four gates' pre-activations come from one sum, a = W_x x_t + W_h h_{t−1} + b, in blocks of "
        "H rows stacked i, f, g, q (q, the output gate, is PyTorch's o). Squash i, f and q with the sigmoid "
        "and g with tanh; then c_t = f ⊙ c_{t−1} + i ⊙ g and h_t = q ⊙ tanh(c_t). The cache is a dict with "
        "the keys of rnn_core.lstm.step_forward's: x, h_prev, c_prev, i, f, g, q and c.",
    ),
    Exercise(
        "lstm.step_backward",
        "08-gated-cells-lstm.ipynb",
        lambda params, dh_t, dc_t, cache: LSTM.step_backward(params, dh_t, dc_t, cache),
        args=("params", "dh_t", "dc_t", "cache"),
        varied=("dh_t", "dc_t", "params"),
        derived=_lstm_step_again,
        outputs=("dh_prev", "dc_prev", "grads"),
        by_key=("grads",),
        cases=_lstm_backward_cases,
        meaning={
            "dh_prev": "∇h_{t−1} L through this step",
            "dc_prev": "∇c_{t−1} L, what goes back along the cell",
            "W_x": "this step's share of ∇W_x L",
            "W_h": "this step's share of ∇W_h L",
            "b": "this step's share of ∇b L",
        },
        model=_lstm_backward_model,
        steps=LSTM_BACKWARD_STEPS,
        mistakes=tuple(LSTM_BACKWARD_MISTAKES),
        watch=_watch("lstm.step_backward"),
        public=("rnn_core.lstm.step_backward",),
        diagnostics=(_nonfinite_remark,),
        where="notebook 08, section 2",
        hint="The cell receives gradient from two places: dc_t from step t + 1, and from h_t = q ⊙ tanh(c_t) "
        "through q and tanh's slope. Add both before going back through c_t = f ⊙ c_{t−1} + i ⊙ g. "
        "Then each gate's pre-activation: multiply by its squashing function's slope, and stack the "
        "four blocks in the order i, f, g, q. dh_{t−1} goes back through W_h, transposed.",
    ),
    Exercise(
        "gru.step_forward",
        "09-gated-cells-gru.ipynb",
        lambda params, x_t, h_prev: GRU.step_forward(params, x_t, h_prev),
        args=("params", "x_t", "h_prev"),
        varied=("params", "h_prev"),
        outputs=("h", "cache"),
        cases=_gru_forward_cases,
        meaning={"h": "h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n_t", "cache": "what step_backward needs"},
        model=_gru_forward_model,
        steps=GRU_STEPS,
        mistakes=tuple(GRU_FORWARD_MISTAKES),
        watch=_watch("gru.step_forward"),
        public=("rnn_core.gru.step_forward",),
        diagnostics=(_nonfinite_remark,),
        where="notebook 09, section 1",
        hint="The rows of W_x, W_h and b come in three blocks of H, stacked r, z, n. The two gates are "
        "sigmoids of their blocks of W_x x_t + W_h h_{t−1} + b. The candidate is the tanh of its block "
        "of W_x x_t + b plus r ⊙ m, where m is the candidate's block of W_h times h_{t−1}: the reset gate "
        "scales m after the product. Then h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n: z keeps the old state. The "
        "cache is a dict with the keys of rnn_core.gru.step_forward's: x, h_prev, r, z, n and h_bar.",
    ),
    Exercise(
        "gru.step_backward",
        "09-gated-cells-gru.ipynb",
        lambda params, dh_t, cache: GRU.step_backward(params, dh_t, cache),
        args=("params", "dh_t", "cache"),
        varied=("dh_t", "params"),
        derived=_gru_step_again,
        outputs=("dh_prev", "grads"),
        by_key=("grads",),
        cases=_gru_backward_cases,
        meaning={
            "dh_prev": "∇h_{t−1} L: the direct path and the path through W_h",
            "W_x": "this step's share of ∇W_x L",
            "W_h": "this step's share of ∇W_h L",
            "b": "this step's share of ∇b L",
        },
        model=_gru_backward_model,
        steps=GRU_STEPS,
        mistakes=tuple(GRU_BACKWARD_MISTAKES),
        watch=_watch("gru.step_backward"),
        public=("rnn_core.gru.step_backward",),
        diagnostics=(_nonfinite_remark,),
        where="notebook 09, section 2",
        hint="Start from h_t = z ⊙ h_{t−1} + (1 − z) ⊙ n: it sends dh_t ⊙ (1 − z) to n, dh_t ⊙ (h_{t−1} − n) "
        "to z, and dh_t ⊙ z straight to h_{t−1}. Back through the candidate's tanh; then r ⊙ h̄ (h̄ = W_hn h_{t−1}) "
        "splits into a part for h̄ (times r) and a part for r (times h̄). Multiply each gate by its sigmoid's "
        "slope. W_x and b receive the blocks r, z and the candidate's pre-activation; W_h receives r, z "
        "and h̄'s part; dh_{t−1} is the direct part plus W_h, transposed, times those three blocks.",
    ),
    Exercise(
        "dropout_backward",
        "10-deeper-networks-and-overfitting.ipynb",
        lambda d_out, keep, rate: F.dropout_backward(d_out, keep, rate),
        args=("d_out", "keep", "rate"),
        varied=("d_out",),
        outputs=("dh",),
        cases=_dropout_cases,
        meaning={"dh": "∇h L = ∇out L ⊙ keep / (1 − rate), the gradient at the units before dropout"},
        model=_dropout_model,
        steps=DROPOUT_STEPS,
        mistakes=tuple(DROPOUT_MISTAKES),
        watch=_watch("functions.dropout_backward", "functions.dropout"),
        public=("rnn_core.dropout_backward", "rnn_core.functions.dropout_backward"),
        diagnostics=(_dropout_units, _nonfinite_remark),
        where="notebook 10, section 3",
        hint="The forward pass multiplied every unit by a constant of its own: 0 for a dropped unit, 1 / (1 − rate) "
        "for a kept one. Going back through a product with a constant multiplies the gradient by that same "
        "constant (a diagonal matrix is its own transpose). So the units the forward pass kept get their "
        "gradient scaled up by the same factor, and the dropped ones get nothing. Use the mask you are given, "
        "the forward pass's own; never draw a new one.",
    ),
    Exercise(
        "seq2seq.masked_loss_and_grad",
        "11-one-sequence-into-another.ipynb",
        lambda o, y, lengths: S2S.masked_loss_and_grad(o, y, lengths),
        args=("o", "y", "lengths"),
        varied=("o",),
        outputs=("loss", "do"),
        cases=_masked_loss_cases,
        meaning={
            "loss": "L, the mean of −log ŷ_bt[y_bt] over the N real target tokens",
            "do": "∇o L = m_bt (ŷ_bt − 𝐲_bt) / N, exactly 0 at the pads",
        },
        model=_masked_model,
        steps=MASKED_STEPS,
        mistakes=tuple(MASKED_MISTAKES),
        watch=_watch("seq2seq.masked_loss_and_grad"),
        public=("rnn_core.seq2seq.masked_loss_and_grad",),
        diagnostics=(_pad_gradient, _nonfinite_remark),
        where="notebook 11, section 3",
        hint="Build the mask from the lengths: position t of row b is real when t is below that row's length. "
        "Compute each position's −log ŷ of its target (first replace the ids at the pads by any valid id, so "
        "that junk there is never read), keep the real ones, sum them and divide by N, the number of real "
        "tokens. The gradient is notebook 02's ŷ − 𝐲 at each real position, divided by the same N, and 0 at "
        "every pad.",
    ),
    Exercise(
        "seq2seq.beam_step",
        "11-one-sequence-into-another.ipynb",
        lambda log_p, log_probs, beam_size: S2S.beam_step(log_p, log_probs, beam_size),
        args=("log_p", "log_probs", "beam_size"),
        varied=("log_probs",),
        outputs=("rows", "tokens", "scores"),
        cases=_beam_cases,
        meaning={
            "rows": "the prefix each kept extension extends, best first",
            "tokens": "the token each kept extension adds",
            "scores": "log P of each kept extension: log_p[row] + log_probs[row, token]",
        },
        model=_beam_model,
        steps=BEAM_STEPS,
        mistakes=tuple(BEAM_MISTAKES),
        watch=_watch("seq2seq.beam_step", "seq2seq.beam_search"),
        public=("rnn_core.seq2seq.beam_step",),
        diagnostics=(_minus_inf_kept,),
        where="notebook 11, section 6",
        hint="Add each prefix's log P to its whole row of log_probs (an (R, 1) column broadcast against the "
        "(R, V) table), flatten the R × V table, and order it from the highest down with a stable sort, so "
        "that equal scores keep their order; keep the first beam_size. A flat index i is prefix i // V and "
        "token i % V.",
    ),
    Exercise(
        "attention_forward",
        "12-attention.ipynb",
        lambda h, u, mask: ATT.attention_forward(h, u, mask),
        args=("h", "u", "mask"),
        varied=("h", "u"),
        outputs=("alpha", "context"),
        cases=_attention_forward_cases,
        meaning={
            "alpha": "the weights, softmax of h · u_s with −∞ at the pads (B, S)",
            "context": "the context, Σ_s alpha_s u_s (B, H)",
        },
        model=_attention_forward_model,
        steps=ATTENTION_FORWARD_STEPS,
        mistakes=tuple(ATTENTION_FORWARD_MISTAKES),
        watch=_watch("attention.attention_forward"),
        public=("rnn_core.attention_forward", "rnn_core.attention.attention_forward"),
        diagnostics=(_attention_pads, _nonfinite_remark),
        where="notebook 12, section 3",
        hint="For each row of the batch, the score of a position is the dot product of that row's query with the "
        "memory's state at the position. Before the softmax, give every padded position a score of −∞, so that "
        "exp gives it exactly 0; then take the softmax over the positions, the last axis. The context is the sum "
        "of the memory's states, each times its weight.",
    ),
    Exercise(
        "attention_backward",
        "12-attention.ipynb",
        lambda dcontext, h, u, alpha: ATT.attention_backward(dcontext, h, u, alpha),
        args=("dcontext", "h", "u", "alpha"),
        varied=("dcontext",),
        outputs=("dh", "du"),
        cases=_attention_backward_cases,
        meaning={"dh": "∇h L, the query's gradient (B, H)", "du": "∇u L, the memory's gradient (B, S, H)"},
        model=_attention_backward_model,
        steps=ATTENTION_BACKWARD_STEPS,
        mistakes=tuple(ATTENTION_BACKWARD_MISTAKES),
        watch=_watch("attention.attention_backward"),
        public=("rnn_core.attention_backward", "rnn_core.attention.attention_backward"),
        diagnostics=(_nonfinite_remark,),
        where="notebook 12, sections 2 and 3",
        hint="Go back through the three steps in reverse. The context sends each weight the dot product of "
        "dcontext with that position's state, and each state its weight times dcontext. Back through the softmax "
        "(notebook 01's Jacobian): each position's gradient minus their weighted mean, times its weight. The "
        "dot score then sends the query the states, each times its score's gradient, summed over the positions, "
        "and each state the query times its score's gradient.",
    ),
)


# -- the grader's own cases: sizes far beyond every case check publishes ---------------------------------
#
# python -m rnn_core grade adds these to each exercise's hidden cases (check never draws them): an answer that
# switches to a shortcut only beyond the sizes the public cases reach (`if V > 128:`, `if T > 100:`, Adam's
# `if t > 1000:`, attention's `if S > 32:`) fails here. Each exercise's add a second or so at most.


def _big(rng, low, high):
    return int(rng.integers(low, high + 1))


def _large(about, args, **kwargs):
    return Case(f"{about} (a size beyond the published cases)", args, long=True, large=True, **kwargs)


def _large_one_hot(rng):
    V = _big(rng, 300, 400)
    y = rng.integers(0, V, _big(rng, 300, 500))
    y[-3:] = V - 1, 0, V - 2
    cases = [_large(f"len(y) = {len(y)}, num_classes = {V}", (y, V))]
    V = _big(rng, 600, 1100)  # beyond a table of a power of two (np.eye(512)[y]): hostile37, 5a
    y = rng.integers(0, V, _big(rng, 20, 40))
    y[-2:] = V - 1, 0
    return cases + [_large(f"len(y) = {len(y)}, num_classes = {V}", (y, V))]


def _large_softmax(rng):
    o = rng.normal(0.0, 3.0, _big(rng, 300, 400))
    o[: len(o) // 2] -= 1000.0
    o[_big(rng, len(o) // 2, len(o) - 1)] = 1000.0  # the largest in the second half, every score of the first far below
    cases = [_large(f"V = {len(o)} scores from -1000 to 1000", (o,))] + _past_every_natural_size_softmax(rng)
    cases += _past_2_to_the_20_softmax(rng) + [case(rng) for case in _SOFTMAX_DTYPE_SPREAD_TAIL]
    cases += [_integer_scores(rng), _scores_with_minus_inf(rng), _scores_near_minus_740(rng)]
    return cases + [Case("V = 1", (rng.normal(0.0, 3.0, 1),), long=True)]  # hostile37p: a squeeze makes it 0-d


def _scores_near_minus_740(rng):
    """Scores 738 to 745 below zero: e^o is subnormal there (below 2.2e-308), and loses digits, so a softmax that skips
    the shift while the sum of e^o is finite and positive is 0.2% off (hostile37n, Z01)."""
    o = -float(rng.uniform(738.0, 741.0)) - rng.uniform(0.0, 4.0, _big(rng, 4, 12))
    return Case(f"V = {o.size} scores from {o.min():.1f} to {o.max():.1f} (e^o subnormal)", (o,), long=True)


def _scores_with_minus_inf(rng):
    """Scores a few of which are -inf (a masked choice: probability 0), the largest finite: a guard that returns
    something else wherever a score is infinite (`if np.isinf(o).any(): return ...`) runs here, and is compared
    (hostile37l, C)."""
    o = rng.normal(0.0, 3.0, _big(rng, 20, 40))
    o[rng.choice(np.arange(1, o.size), size=3, replace=False)] = -np.inf
    return Case(f"V = {o.size} scores, three of them -inf (probability 0)", (o,), long=True)


def _integer_scores(rng):
    """Integer scores (np.int64), a few of them 1,000 and more: a softmax written into a buffer of the scores' own
    dtype (np.zeros_like(o), .astype(o.dtype)) rounds every probability to 0 or 1, and one that shifts only float
    scores overflows (hostile37l, B)."""
    o = rng.integers(-5, 6, _big(rng, 20, 40))
    o[rng.choice(o.size, size=3, replace=False)] = rng.integers(1_000, 1_010, 3)
    return Case(f"V = {o.size} integer scores (np.int64) from {o.min()} to {o.max()}", (o,), long=True)


# hostile37c, finding 3: a threshold written so that no reading of the source finds it (4999.5, np.finfo's maxexp,
# np.iinfo(np.uint16).max, a constant built past any folding, a size times 1e-3) is met by a case of a size past
# every such "natural" threshold, drawn from the seed in a range. Each is appended to its exercise's grader cases.


def _past_every_natural_size_softmax(rng):
    """V of 66,000 to 80,000 scores, the largest 900 to 1000 above the rest (past 5,000, 2^12, 1,024 = maxexp,
    65,535): an answer that shifts by the largest score only below some size overflows here (hostile37c, 3a-3c)."""
    V = _big(rng, 66_000, 80_000)
    o = rng.normal(0.0, 3.0, V)
    o[_big(rng, V // 2, V - 1)] = float(rng.uniform(900.0, 1000.0))
    return [_large(f"V = {V} scores, the largest {o.max():.0f}", (o,))]


# hostile37d, findings 2, 3 and 5: a shift skipped past a size counted rather than read (2^20 scores), for any dtype
# but float64, or where the scores spread past 4,096; and a floor on the exponents (e^-30, e^-50), which moves the
# probabilities by 1e-13 of the largest only. Each a case of the grader's, appended after the cases above.
SOFTMAX_PAST_2_TO_THE_20 = (2**20 + 1, 2**20 + 2**16)  # V of the largest softmax case: each million scores cost
# check some 0.25 s (2^21 + 1 took 0.55 s under load), so past 2^20 only; no cross_entropy_grad case so large:
# np.eye(V)[y] (tests/practice_answers.py's right answer) needs V^2 floats


def _past_2_to_the_20_softmax(rng):
    V = _big(rng, *SOFTMAX_PAST_2_TO_THE_20)
    o = rng.uniform(-6.0, 6.0, V)  # uniform: a quarter of the time of normal's, at a million scores
    o[_big(rng, V // 2, V - 1)] = float(rng.uniform(900.0, 1000.0))
    return [_large(f"V = {V} scores (past 2^20), the largest {o.max():.0f}", (o,))]


def _float32_scores_near_100(rng):
    """Float32 scores near 100, a few units apart: exp(100) overflows float32 (past e^88.7), so a shift made for
    float64 input only gives nan; every right answer, whatever dtype it computes in, within float32's tolerance."""
    o = (100.0 + rng.normal(0.0, 3.0, _big(rng, 40, 80))).astype(np.float32)
    return Case(f"V = {o.size} float32 scores near 100 (exp(100) overflows float32)", (o,), long=True, extra=_INPUTS32)


def _scores_1000_and_minus_20000(rng):
    """Scores of moderate size, three near 1000 and one from -200,000 to -20,000: a spread far past 4,096, so a shift
    skipped where the scores spread widely gives nan (exp(1000)); the float32 rounding of scores near 1000 moves the
    probabilities by ~6e-5, hence float32's tolerance of 1e-3 here."""
    o = rng.normal(0.0, 3.0, _big(rng, 40, 80))
    top = rng.choice(np.arange(1, o.size), size=4, replace=False)
    o[top[:3]] = 1000.0 + rng.normal(0.0, 1.0, 3)
    o[top[3]] = -float(rng.uniform(2e4, 2e5))
    about = f"V = {o.size} scores from {o.min():.0f} to {o.max():.0f} (spread past 4,096)"
    return Case(about, (o,), long=True, extra={"tol32": 1e-3})


def _probabilities_down_to_e_minus_600(rng):
    """Scores from the largest down to 600 below it (a few within 5, some 31 to 80 below, the rest 80 to 600 below),
    each probability compared with its own size (``relative``): a floor on the exponents (np.clip(o - o.max(), -30,
    0), or -50) moves e^-45 to e^-30, off by 3e6 times itself though by 1e-13 of the largest (hostile37d, 5)."""
    V = _big(rng, 60, 100)
    near, mid = _big(rng, 3, 6), _big(rng, 10, 20)
    below = np.concatenate(
        [[0.0], rng.uniform(0.0, 5.0, near), rng.uniform(31.0, 80.0, mid), rng.uniform(80.0, 600.0, V - 1 - near - mid)]
    )
    o = float(rng.uniform(-5.0, 5.0)) - rng.permutation(below)
    if o.argmax() == 0:
        o[[0, -1]] = o[[-1, 0]]
    about = f"V = {V} scores, some 31 to 600 below the largest: each probability to its own precision, down to e^-600"
    return Case(about, (o,), long=True, extra={"relative": ("y_hat", "do")})


# hostile37i, A and B: an exponential that overflows only past float64's reach is no answer to overflow. Scores past
# e^11356, where even x87's 80-bit long double overflows, fail a softmax computed in np.longdouble with no shift (it
# gives nan there, and is the unshifted softmax itself where long double is float64); pre-activations of 750 to 1,000
# fail a tanh written as (e^2a - 1) / (e^2a + 1) and a sigmoid written as e^a / (1 + e^a), both nan past e^709.
PAST_LONG_DOUBLE = (12_000.0, 16_000.0)  # where scores are drawn: past 11,357, and in float32's [2^13, 2^14)
PAST_EXP = (750.0, 1_000.0)  # the size of the saturated pre-activations: past 709.8, where e^a overflows float64


def _scores_past_long_double(rng):
    """Scores of 12,000 to 16,000, a few units apart: nan for a softmax in long double without the shift (above).
    Float32 keeps a score there to 2^-11, which moves a probability by 2e-3 of the largest at most: float32's
    tolerance of 5e-3 here."""
    o = float(rng.uniform(*PAST_LONG_DOUBLE)) + rng.normal(0.0, 3.0, _big(rng, 20, 60))
    about = f"V = {o.size} scores from {o.min():.0f} to {o.max():.0f} (past e^11356, where long double overflows)"
    return Case(about, (o,), long=True, extra={"tol32": 5e-3})


def _spread(rng, o, targets):
    """o with, along its last axis, one entry (never the first) moved 722 to 730 up and another (never the first, nor
    any of that row's targets: ``targets``, one collection per row) as far down: a shift by the mean, the median, the
    smallest or the first entry then leaves an exponent past e^709.8, which overflows, while every target stays
    within e^-744 of the largest, where a right answer's probability is still a (subnormal) number, not 0."""
    o = np.array(o, dtype=float)
    rows = o.reshape(-1, o.shape[-1])
    for row, avoid in zip(rows, targets):
        up = int(rng.integers(1, row.size))
        down = int(rng.choice([i for i in range(1, row.size) if i != up and i not in avoid]))
        row[up] += rng.uniform(722.0, 730.0)
        row[down] -= rng.uniform(722.0, 730.0)
    return rows.reshape(o.shape)


def _saturating(rng, b, count):
    """b with ``count`` entries moved to +750..+1,000 and as many to -1,000..-750: units saturated both ways."""
    b = b.copy()
    up, down = rng.choice(b.size, size=(2, count), replace=False)
    b[up], b[down] = rng.uniform(*PAST_EXP, count), -rng.uniform(*PAST_EXP, count)
    return b


_INPUTS32 = {"inputs32": True}  # float32 inputs: check's reference in float64, every output to float32's tolerance
_SOFTMAX_DTYPE_SPREAD_TAIL = (
    _float32_scores_near_100,
    _scores_1000_and_minus_20000,
    _scores_past_long_double,
    _probabilities_down_to_e_minus_600,
)


# hostile37c's 3d, 3e (a full Jacobian only below V = 1,500 or 2,048) get no case: a plain double loop over V x V
# entries, traced by the grader, takes 10 s and more at V = 1,500, where the exercise's whole limit is 20 s
def _large_jacobian(rng):
    y_hat = F.softmax(rng.normal(0.0, 2.0, _big(rng, 200, 300)))
    cases = [_large(f"V = {len(y_hat)} probabilities", (y_hat,)), Case("V = 1", (np.ones(1),), long=True)]
    y_hat = F.softmax(rng.normal(0.0, 2.0, _big(rng, 520, 700)))  # beyond np.eye(512)[:V, :V]: hostile37, 5a
    cases.append(_large(f"V = {len(y_hat)} probabilities", (y_hat,)))
    # float32 probabilities: an outer product (or any step) kept for float64 only fails here (hostile37d, 3b)
    y_hat = F.softmax(rng.normal(0.0, 2.0, _big(rng, 30, 60))).astype(np.float32)
    return cases + [Case(f"V = {len(y_hat)} float32 probabilities", (y_hat,), long=True, extra=_INPUTS32)]


def _large_cross_entropy(rng):
    V = _big(rng, 300, 400)
    # y as np.int64, as the series passes targets[t] (hostile37l, A: `if not isinstance(y, int): y = np.argmax(y)`)
    cases = [_large(f"V = {V} scores, y = {V - 1}", (rng.normal(0.0, 2.0, V), np.int64(V - 1)))]
    V = _big(rng, 600, 1100)  # beyond np.eye(512)[y][:V]: hostile37, 5a
    cases.append(_large(f"V = {V} scores, y = {V - 1}", (rng.normal(0.0, 2.0, V), np.int64(V - 1))))
    V = _big(rng, *CROSS_ENTROPY_PAST)  # past 2^12.5 = 5,793: hostile37c, 3g
    y = _big(rng, V // 2, V - 1)
    cases.append(_large(f"V = {V} scores, y = {y}", (rng.normal(0.0, 2.0, V), np.int64(y))))
    for draw in _SOFTMAX_DTYPE_SPREAD_TAIL:  # hostile37d, 3 and 5: the target at a probability far below the largest
        softmax_case = draw(rng)
        (o,) = softmax_case.args
        y = int(np.argsort(o)[_big(rng, 0, o.size // 3)])
        cases.append(Case(f"{softmax_case.about}, y = {y}", (o, y), long=True, extra=softmax_case.extra))
    integer = _integer_scores(rng)
    (o,) = integer.args
    y = np.int64(np.argsort(o)[0])  # the target scores lowest: a gradient in the scores' dtype is -1 there, not ~-1
    cases.append(Case(f"{integer.about}, y = {y}", (o, y), long=True))
    masked = _scores_with_minus_inf(rng)
    (o,) = masked.args
    y = np.int64(np.flatnonzero(np.isfinite(o))[-1])  # a finite target: the loss is finite, the gradient too
    return cases + [Case(f"{masked.about}, y = {y}", (o, y), long=True)]


# the grader's largest cross_entropy_grad: V drawn in this range. Not past 32,767 (3f, np.iinfo(np.int16)): the right
# answer softmax(o) - np.eye(len(o))[y] (tests/practice_answers.py's) would need V^2 floats there, 8.6 GB and more
CROSS_ENTROPY_PAST = (5_900, 6_400)


def _large_network(rng):
    H, V = _big(rng, 100, 150), _big(rng, 300, 400)
    params, h_prev = _rnn_params(rng, V, H)
    return H, V, params, h_prev


def _large_step_forward(rng):
    """Three large steps, x_t an np.int64 in each, as the series passes inputs[t] (hostile37l, A: an answer that
    reads any x_t but a Python int as a one-hot vector, `int(np.argmax(x_t))`, reads 0 there)."""
    H, V, params, h_prev = _large_network(rng)
    cases = [_large(f"one step, {_sizes(H, V)}, x_t = {V - 1}", (params, np.int64(V - 1), h_prev))]
    H, V = _big(rng, 1_100, 1_300), _big(rng, 5, 20)  # H past 1,024 (np.finfo's maxexp): hostile37c, 3h
    params, h_prev = _wide_params(rng, V, H)
    cases.append(_large(f"one step, {_sizes(H, V)}, x_t = {V - 1}", (params, np.int64(V - 1), h_prev)))
    H, V = _big(rng, 6, 12), _big(rng, 5, 10)
    params, h_prev = _rnn_params(rng, V, H)
    params["b_h"] = _saturating(rng, params["b_h"], 2)
    about = f"one step, {_sizes(H, V)}, four pre-activations of ±750 to ±1,000 (tanh saturated)"
    cases.append(Case(about, (params, np.int64(rng.integers(1, V)), h_prev), long=True))
    params, h_prev = _rnn_params(rng, _big(rng, 3, 6), 1)  # H = 1 (hostile37p: a squeeze makes the state 0-d)
    return cases + [_in_float32(cases[-1]), Case("one step, H = 1", (params, 1, h_prev), long=True)]


def _in_float32(case):
    """``case`` with every float array in float32, the reference in float64 (hostile37p: a tanh written with np.exp,
    its argument clipped at ±350 for float64, overflows float32's exp past 44: nan on saturated float32 units)."""
    args = tuple(_as_float32(a) for a in copy.deepcopy(case.args))
    return Case(f"{case.about}, in float32", args, long=True, extra=_INPUTS32)


def _wide_params(rng, V, H):
    """A V, H network's parameters drawn directly (no orthogonal W_hh: its QR costs seconds at H = 1,200), with
    non-zero biases, and h_prev != 0."""
    shapes = RNN.param_shapes(V, H)
    scale = {"W_xh": 0.5, "W_hh": 1.0 / np.sqrt(H), "W_yh": 1.0 / np.sqrt(H), "b_h": 0.3, "b_o": 0.3}
    params = {name: rng.normal(0.0, scale[name], shapes[name]) for name in PARAM_NAMES}
    return params, 0.5 * rng.standard_normal(H)


def _large_step_backward(rng):
    H, V, params, h_prev = _large_network(rng)
    x_t = np.int64(V - 1)  # as the series passes inputs[t] (hostile37l, A)
    h_t = RNN.step_forward(params, x_t, h_prev)
    args = (_reversed_names(params), rng.standard_normal(H), h_t, h_prev, x_t)
    params, h_prev = _rnn_params(rng, _big(rng, 3, 6), 1)  # H = 1 (hostile37p: a squeezed b_h is 0-d)
    one = (params, rng.standard_normal(1), RNN.step_forward(params, 1, h_prev), h_prev, 1)
    return [
        _large(f"one step, {_sizes(H, V)}, x_t = {x_t}, params named in reverse order", args),
        Case("one step, H = 1", one, long=True),
    ]


def _large_loss_and_grads(rng):
    H, V = _big(rng, 60, 100), _big(rng, 300, 400)
    T = _big(rng, 2 * LONGEST_T, 2 * LONGEST_T + 100)  # twice the longest public case
    params, *rest = _sequence(rng, V, H, T, "").args
    about = f"a sequence of T = {T} steps, {_sizes(H, V)}, params named in reverse order"
    saturated = _sequence(rng, _big(rng, 4, 8), _big(rng, 3, 6), _big(rng, 4, 8), "")
    saturated.args[0]["W_xh"] *= 100.0  # pre-activations of ±50 and more: tanh saturated
    saturated = _in_float32(Case("a short sequence whose every unit saturates (W_xh × 100)", saturated.args))
    return [_large(about, (_reversed_names(params), *rest)), saturated] + [
        _reaching_back_past_1000(rng),
        _sequence_targets_far_below_the_best(rng),
        _sequence_past_long_double(rng),
    ]


def _sequence_past_long_double(rng):
    """A short sequence whose scores are all 12,000 to 16,000 (b_o moved there), spread by ``_spread`` (W_yh scaled
    down, so that b_o decides how far apart they are), two of whose units saturate either way (b_h of 750 to
    1,000): nan for an answer whose softmax shifts nothing in long double, shifts by the mean, the median, the
    smallest or the first score (hostile37j), or whose tanh is written with e^2a (hostile37i, A and B)."""
    H, V, T = _big(rng, 4, 8), _big(rng, 6, 10), _big(rng, 6, 10)
    params, h0 = _rnn_params(rng, V, H)
    params["W_yh"] = 0.01 * params["W_yh"]  # the scores all but b_o's: every target within e^-744 of the largest
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V - 2, T)  # V - 2 and V - 1: no step's target
    b_o = rng.normal(0.0, 0.3, V)
    params["b_o"] = _spread(rng, b_o, [set(targets.tolist())]) + float(rng.uniform(*PAST_LONG_DOUBLE))
    params["b_h"] = _saturating(rng, params["b_h"], 1)
    about = f"T = {T} steps, scores past e^11356 spread over ±722, two units saturated ({_sizes(H, V)})"
    return Case(about, (params, inputs, targets, h0), long=True)


def _sequence_targets_far_below_the_best(rng):
    """A short sequence whose every other target scores 50 or more below its step's best score (b_o of the target
    set 50 to 80 below the lowest the best can be, the states bounded by tanh): a probability of 2e-22 or less, whose
    loss is at least that distance, where a log of the probability clipped at 1e-12 stops at 27.6 (hostile37h, 1:
    `np.log(max(p, 1e-12))`). The model's log of the probability itself, and a log-softmax, are right here to
    float64's precision."""
    H, V, T = _big(rng, 4, 8), _big(rng, 6, 10), _big(rng, 6, 10)
    params, h0 = _rnn_params(rng, V, H)
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V, T)
    far = int(rng.integers(V))
    targets[::2] = far  # every other step asks for the one character the network scores far down
    reach = np.abs(params["W_yh"]).sum(axis=1)  # a score moves by at most this from its bias: |h| <= 1 under tanh
    others = np.delete(np.arange(V), far)
    lowest_best = np.max(params["b_o"][others] - reach[others])  # every step's best score is at least this
    params["b_o"][far] = lowest_best - reach[far] - rng.uniform(50.0, 80.0)
    about = f"a sequence of T = {T} steps whose every other target scores 50 or more below the best ({_sizes(H, V)})"
    return Case(about, (params, inputs, targets, h0), long=True)


def _reaching_back_past_1000(rng):
    """T of 2,100 to 2,300 steps (past 999.5, 1,024 and 2,048), small H and V, whose gradient reaches back to the first
    step: W_hh = 0.999 times a rotation and inputs so small that tanh stays linear, so that what reaches a step
    1,000 steps back still weighs about 0.999^1000 = 0.37 (hostile37c, 3i, 3j: BPTT truncated to 1,000 steps;
    hostile37d, 2c, 2i: to 2,048, a count of the steps or a constant built by a loop). T was 1,100 to 1,300 before
    hostile37d: one case of twice the length, not a second one."""
    H, V, T = _big(rng, 4, 8), _big(rng, 5, 10), _big(rng, 2_100, 2_300)
    params, h0 = _rnn_params(rng, V, H)
    rotation, _ = np.linalg.qr(rng.standard_normal((H, H)))
    params["W_hh"] = 0.999 * rotation
    params["W_xh"] = 0.002 * rng.standard_normal((H, V))
    params["b_h"] = 0.001 * rng.standard_normal(H)
    inputs, targets = rng.integers(0, V, T), rng.integers(0, V, T)
    about = f"a sequence of T = {T} steps whose gradient reaches back to its first step, {_sizes(H, V)}"
    return _large(about, (params, inputs, targets, 0.01 * h0))


def _large_arrays(rng, n):
    """n arrays named anyhow, one of them of 10,000 to 40,000 entries."""
    grads = {f"layer{k}.W": rng.normal(0.0, 1.0, (_big(rng, 1, 9), _big(rng, 1, 9))) for k in range(n)}
    grads[f"layer{_big(rng, 0, n - 1)}.W"] = rng.normal(0.0, 0.1, (_big(rng, 100, 200), _big(rng, 100, 200)))
    return grads


def _large_global_norm(rng):
    grads = _large_arrays(rng, _big(rng, 150, 250))
    cases = [_large(f"{len(grads)} arrays, one of {max(g.size for g in grads.values())} entries", (grads,))]
    cases += [_past_255_arrays_and_65535_entries(rng), _past_1024_arrays_and_2_to_the_17_entries(rng)]
    return cases + [_all_zero_gradients(rng), *_gradients_of_every_kind(rng)]


def _gradients_of_every_kind(rng):
    """Gradients one entry of which is nan (a step that overflowed): the norm is nan, so that a caller sees the step
    went wrong, where np.nansum hides it (hostile37l, W23). And gradients one named with a leading underscore: a norm
    that skips some names is short (W25). And a 0-d gradient beside one of integers, which count as any other does."""
    grads = {name: rng.normal(0.0, 1.0, (_big(rng, 2, 5), _big(rng, 2, 5))) for name in ("W_xh", "W_hh", "b_h")}
    grads["W_hh"][0, 0] = np.nan
    private = {name: rng.normal(0.0, 1.0, (_big(rng, 2, 5), _big(rng, 2, 5))) for name in ("W_xh", "_b_h")}
    # any shapes, as the exercise says: a 0-d array and one of integers count as the others do (hostile37n, W06, X05)
    shapes = {"scale": np.array(float(rng.uniform(2.0, 4.0))), "steps": rng.integers(-3, 4, _big(rng, 3, 6)),
              "W": rng.normal(0.0, 1.0, (2, 3))}  # fmt: skip
    one = {"W_hh": rng.normal(0.0, 1.0, (_big(rng, 2, 5), _big(rng, 2, 5)))}  # hostile37p: an L1 norm for one array
    # integers past 46,341, whose squares overflow int32 (hostile37p: `g.astype(np.int32)`)
    big = {"W": rng.normal(0.0, 1.0, (2, 3)), "steps": rng.integers(47_000, 60_000, _big(rng, 3, 6))}
    return [
        Case(f"{len(grads)} arrays, one entry nan", (grads,), long=True),
        Case(f"{len(private)} arrays, one of them named _b_h", (private,), long=True),
        Case("3 arrays: a 0-d one, one of integers and a matrix", (shapes,), long=True),
        Case("one array", (one,), long=True),
        Case("2 arrays, one of integers past 46,341", (big,), long=True),
    ]


def _all_zero_gradients(rng):
    """Every gradient 0, as a network whose units are all saturated gives: the norm is 0, and a norm worked out by
    dividing by the largest entry, or a scale max_norm / norm with no guard, gives nan or raises (hostile37k)."""
    grads = {f"layer{k}.W": np.zeros((_big(rng, 1, 6), _big(rng, 1, 6))) for k in range(_big(rng, 3, 6))}
    return Case(f"{len(grads)} arrays, every entry 0", (grads,), long=True)


def _past_255_arrays_and_65535_entries(rng):
    """300 to 400 arrays, one of 66,000 to 80,000 entries, the largest entries in the last arrays and at the end
    of the large one: a norm of the first 255 arrays, or of the first 65,535 entries of each, is far off
    (hostile37c, 3k, 3l)."""
    n = _big(rng, 300, 400)
    grads = {
        f"block{k}.{rng.choice(['W', 'b', 'u'])}": rng.normal(0.0, 1.0, (_big(rng, 1, 9), _big(rng, 1, 9)))
        for k in range(n)
    }
    names = list(grads)
    for name in names[-_big(rng, 20, 40) :]:
        grads[name] *= 20.0
    large = names[_big(rng, 0, n - 2)]
    grads[large] = rng.normal(0.0, 1.0, _big(rng, 66_000, 80_000))
    grads[large][65_000:] *= 10.0
    return _large(f"{n} arrays, one of {grads[large].size} entries", (grads,))


def _past_1024_arrays_and_2_to_the_17_entries(rng):
    """1,100 to 1,300 arrays of 1 to 4 entries, one of 140,000 to 160,000 entries, the largest entries in the last
    arrays and past the first 131,072 of the large one: a norm of the first 1,024 arrays (counted, or a loop's
    constant), or of the first 2^17 entries of each, is far off (hostile37d, 2d's size for global_norm, and w04).
    Not 2,100 arrays (past 2,048 too): check took ~160 ms longer for them, ~45 ms for 1,100 to 1,300."""
    n = _big(rng, 1_100, 1_300)
    grads = {f"p{k}": rng.normal(0.0, 1.0, _big(rng, 1, 4)) for k in range(n)}
    names = list(grads)
    for name in names[-_big(rng, 40, 80) :]:
        grads[name] *= 20.0
    large = names[_big(rng, 0, n - 2)]
    grads[large] = rng.normal(0.0, 0.1, _big(rng, 140_000, 160_000))
    grads[large][2**17 :] *= 100.0
    return _large(f"{n} arrays, one of {grads[large].size} entries", (grads,))


# hostile37c's 3m (each array clipped by its own norm past 500 arrays) gets no case: the grader's child looks for
# sharing between every array it returns and every one returned before (grade_child.Encoder._sharing), so a call of
# 520 or more arrays took 3 to 6 s under load, where a call's limit is 6 s (rule c of the review reads it instead)
def _large_clip(rng):
    cases = []
    for factor in (1 - 1e-5, float(rng.uniform(1.5, 3.0))):
        grads = _large_arrays(rng, _big(rng, 150, 250))
        c = _global_norm(grads) / factor
        cases.append(_large(f"{len(grads)} arrays, global norm {factor:.6g} times max_norm", (grads, c)))
    (zeros,) = _all_zero_gradients(rng).args
    cases.append(Case(f"{len(zeros)} arrays, every entry 0, max_norm = 1.0", (zeros, 1.0), long=True))
    # a 0-d array among them, counted in the norm and clipped as the others (hostile37n, X79 and Y09)
    grads = {"scale": np.array(float(rng.uniform(2.0, 4.0))), "W": rng.normal(0.0, 1.0, (2, 3))}
    one = {"W_hh": rng.normal(0.0, 1.0, (_big(rng, 2, 5), _big(rng, 2, 5)))}  # hostile37p: an L1 norm for one array
    return cases + [
        Case("2 arrays, one of them 0-d, max_norm = 1.0", (grads, 1.0), long=True),
        Case("one array, max_norm = 1.0", (one, 1.0), long=True),
    ]


def _reversed_names(d):
    """``d`` with its names in the reverse order: an answer must pair arrays by name, not by position (hostile37n,
    W19, Y01, Y02, Y07: `zip(params.values(), grads.values())`, `W_xh, W_hh, ... = params.values()`)."""
    return {k: d[k] for k in reversed(list(d))}


def _large_adam(rng):
    """Late steps: t from 4,000 to 12,000 with the default β's (1 - β₂^t still differs from 1 by more than 1e-6),
    and t from 100,000 to 1,000,000 with β₁ = 0.99999 and β₂ = 0.9999999, where both corrections still show."""
    cases = []
    for t, settings in ((_big(rng, 4_000, 12_000), ()), (_big(rng, 100_000, 1_000_000), (0.99999, 0.9999999, 1e-8))):
        params = {k: 0.1 * rng.standard_normal((_big(rng, 50, 120), _big(rng, 50, 120))) for k in ("W", "U", "b")}
        state = {
            "t": t,
            "m": {k: 0.3 * rng.standard_normal(p.shape) for k, p in params.items()},
            "v": {k: rng.uniform(0.05, 2.0, p.shape) for k, p in params.items()},
        }
        grads = {k: rng.standard_normal(p.shape) for k, p in params.items()}
        betas = f", β₁ = {settings[0]}, β₂ = {settings[1]}" if settings else ""
        cases.append(_large(f"step {t + 1}{betas}", (params, grads, state, 0.01, *settings)))
    # grads and the state's m and v named in another order than params (hostile37n, W19 and Y01)
    params = {k: 0.1 * rng.standard_normal((_big(rng, 2, 5), _big(rng, 2, 5))) for k in ("W", "U", "b")}
    state = {"t": _big(rng, 5, 50), "m": {}, "v": {}}
    for k in reversed(list(params)):
        state["m"][k] = 0.3 * rng.standard_normal(params[k].shape)
        state["v"][k] = rng.uniform(0.05, 2.0, params[k].shape)
    grads = _reversed_names({k: rng.standard_normal(p.shape) for k, p in params.items()})
    cases.append(Case("grads and the state's m and v named in reverse order", (params, grads, state, 0.01), long=True))
    lr = float(rng.uniform(1e-6, 4e-5))  # below 5e-5: a learning rate rounded to 4 places is 0 (hostile37p)
    args = (copy.deepcopy(params), copy.deepcopy(grads), copy.deepcopy(state), lr)
    return cases + [Case(f"a learning rate of {lr:.3g}", args, long=True)]


def _large_lstm_step(rng):
    H, V = _big(rng, 100, 150), _big(rng, 300, 400)
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, H, V, set(range(V - 1)))
    x_t = np.int64(x_t)  # V - 1, as the series passes inputs[t] (hostile37l, A): the backward's cache holds it too
    return _large(f"one step, {_sizes(H, V)}, x_t = {x_t}", (params, x_t, h_prev, c_prev))


def _large_lstm_forward(rng):
    saturated = _gates_past_exp(rng, LSTM)
    return [_large_lstm_step(rng), saturated, _in_float32(saturated), _cell_state_of_hundreds(rng)]


def _cell_state_of_hundreds(rng):
    """A carried cell state of ±100 to ±300: the cell is unbounded (only h is squashed), so a c clipped at ±50 is
    off by hundreds (hostile37p)."""
    params, x_t, h_prev, c_prev, H, V = _lstm_parts(rng, _big(rng, 3, 6), _big(rng, 5, 9), set())
    c_prev = rng.choice([-1.0, 1.0], c_prev.shape) * rng.uniform(100.0, 300.0, c_prev.shape)
    return Case(f"one step, {_sizes(H, V)}, c_prev of ±100 to ±300", (params, x_t, h_prev, c_prev), long=True)


def _gates_past_exp(rng, cell):
    """One step of a small network, a few of whose gates' and candidate's pre-activations are 750 to 1,000 either
    way: nan for a sigmoid written as e^a / (1 + e^a), or a tanh as (e^2a - 1) / (e^2a + 1) (hostile37i, B)."""
    H, V = _big(rng, 4, 8), _big(rng, 5, 10)
    parts = _lstm_parts(rng, H, V, set()) if cell is LSTM else _gru_parts(rng, H, V, set())
    params, x_t, states = parts[0], parts[1], parts[2:-2]
    params["b"] = _saturating(rng, params["b"], H // 2)
    about = f"one step, {_sizes(H, V)}, {H} pre-activations of ±750 to ±1,000 (gates saturated), x_t = {x_t}"
    return Case(about, (params, x_t, *states), long=True)


def _large_lstm_backward(rng):
    case = _large_lstm_step(rng)
    params, x_t, h_prev, c_prev = case.args
    _, _, cache = LSTM.step_forward(params, x_t, h_prev, c_prev)
    H = h_prev.shape[0]
    args = (params, rng.standard_normal(H), rng.standard_normal(H), cache)
    return [_large(f"one step, {_sizes(H, params['W_x'].shape[1])}", args)]


def _large_gru_step(rng):
    H, V = _big(rng, 100, 150), _big(rng, 300, 400)
    params, x_t, h_prev, H, V = _gru_parts(rng, H, V, set(range(V - 1)))
    x_t = np.int64(x_t)  # V - 1, as the series passes inputs[t] (hostile37l, A): the backward's cache holds it too
    return _large(f"one step, {_sizes(H, V)}, x_t = {x_t}", (params, x_t, h_prev))


def _large_gru_forward(rng):
    saturated = _gates_past_exp(rng, GRU)
    return [_large_gru_step(rng), saturated, _in_float32(saturated)]


def _large_gru_backward(rng):
    case = _large_gru_step(rng)
    params, x_t, h_prev = case.args
    _, cache = GRU.step_forward(params, x_t, h_prev)
    H = h_prev.shape[0]
    return [_large(f"one step, {_sizes(H, params['W_x'].shape[1])}", (params, rng.standard_normal(H), cache))]


def _large_dropout(rng):
    shape = (_big(rng, 25, 40), _big(rng, 150, 250), _big(rng, 20, 30))  # 75,000 to 300,000 units
    d_out, keep = _dropout_case(rng, shape, 0.3)
    # nothing dropped though the rate is 0.5 (at H = 4 and rate 0.2, 41% of draws): the kept units are still scaled
    # by 1 / (1 - rate) (hostile37n, X66: `if keep.all(): return d_out`)
    none = _dropout_case(rng, (_big(rng, 3, 6),), 0.0)[0]
    kept = np.ones(none.shape, dtype=bool)
    rate = float(rng.uniform(0.1, 0.4))  # of every decimal: a rate rounded to 3 places is off (hostile37p)
    odd, odd_keep = _dropout_case(rng, (_big(rng, 5, 9),), rate)
    return [
        _large(f"shape {shape}, rate = 0.3", (d_out, keep, 0.3)),
        Case(f"shape {none.shape}, rate = 0.5, no unit dropped", (none, kept, 0.5), long=True),
        Case(f"shape {odd.shape}, rate = {rate!r}", (odd, odd_keep, rate), long=True),
    ]


def _large_masked(rng):
    """One size large at a time (B, then T, then V), the others small, so that each case stays small."""
    cases = []
    for B, T, V in (
        (_big(rng, 150, 250), _big(rng, 4, 8), _big(rng, 8, 16)),
        (_big(rng, 3, 5), _big(rng, 200, 300), _big(rng, 8, 16)),
        (_big(rng, 3, 5), _big(rng, 4, 8), _big(rng, 300, 400)),
    ):
        lengths = rng.integers(1, T + 1, B)
        lengths[0] = T
        lengths[-1] = max(1, T // 2)
        o, y, n = _masked_case(rng, B, T, V, lengths, True)
        cases.append(_large(f"B = {B}, T = {T}, V = {V}, lengths from {n.min()} to {n.max()}", (o, y, n)))
    B, T, V = _big(rng, 2, 3), _big(rng, 600, 700), _big(rng, 5, 10)  # past 512 tokens a row: hostile37c, 3p
    lengths = np.full(B, T)
    lengths[-1] = _big(rng, 530, T - 1)
    o, y, n = _masked_case(rng, B, T, V, lengths, True)
    cases.append(_large(f"B = {B}, T = {T}, V = {V}, lengths from {n.min()} to {n.max()}", (o, y, n)))
    B, T, V = _big(rng, 2, 4), _big(rng, 4, 8), _big(rng, 6, 12)  # hostile37i, A: no shift, in long double
    lengths = rng.integers(1, T + 1, B)
    lengths[0] = T
    o, y, n = _masked_case(rng, B, T, V, lengths, True, scale=0.5)
    o = _spread(rng, o, [{target} for target in y.reshape(-1).tolist()]) + float(rng.uniform(*PAST_LONG_DOUBLE))
    about = f"B = {B}, T = {T}, V = {V}, scores from {o.min():.0f} to {o.max():.0f} (past e^11356, spread past e^709)"
    return cases + [Case(about, (o, y, n), long=True)]


def _large_beam(rng):
    K, V = _big(rng, 10, 20), _big(rng, 300, 400)
    log_p = rng.permutation(-rng.uniform(0.5, 20.0, K))
    log_probs = F.log_softmax(rng.normal(0.0, 2.0, (K, V)))
    beam = _big(rng, K, 2 * K)
    cases = [_large(f"R = {K} prefixes, V = {V}, beam_size {beam}", (log_p, log_probs, beam))]
    # a dead prefix (log p = -inf) beside live ones: none of its continuations may be kept (hostile37l, C: a -inf
    # read as 0 made the dead prefix the best)
    K, V = _big(rng, 4, 7), _big(rng, 10, 20)
    log_p = -rng.uniform(0.5, 5.0, K)
    log_p[int(rng.integers(K))] = -np.inf
    log_probs = F.log_softmax(rng.normal(0.0, 2.0, (K, V)))
    beam = _big(rng, 2, K)
    return cases + [Case(f"R = {K} prefixes, one of them dead (log p = -inf), V = {V}, beam_size {beam}",
                         (log_p, log_probs, beam), long=True)]  # fmt: skip


def _large_attention_memories(rng):
    """(B, S, H, mask, h, u) with one size large at a time: B, then S, then H."""
    out = []
    for B, S, H in (
        (_big(rng, 150, 250), _big(rng, 5, 10), _big(rng, 3, 8)),
        (_big(rng, 2, 4), _big(rng, 150, 200), _big(rng, 3, 8)),
        (_big(rng, 2, 4), _big(rng, 5, 10), _big(rng, 150, 250)),
    ):
        mask = _scattered_mask(rng, B, S)
        h, u = _attention_memory_masked(rng, mask, H)
        out.append((B, S, H, mask, h, u))
    return out


def _large_attention_forward(rng):
    memories = _large_attention_memories(rng)
    cases = [_large(f"B = {B}, S = {S}, H = {H}, pads anywhere", (h, u, mask)) for B, S, H, mask, h, u in memories]
    B, S, H = _big(rng, 2, 3), _big(rng, 300, 400), _big(rng, 3, 8)  # S past 256: hostile37c, 3q
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    cases.append(_large(f"B = {B}, S = {S}, H = {H}, pads anywhere", (h, u, mask)))
    cases += [_attention_float32_scores_near_100(rng), _attention_scores_1000_and_minus_20000(rng)]
    return cases + [_attention_scores_near_minus_2e6(rng), _attention_one_score_far_above(rng)]


def _attention_one_score_far_above(rng):
    """Rows whose largest real score is 1,500 above the next: a softmax shifted by the mean of the two largest
    overflows (hostile37p)."""
    B, S, H = 2, _big(rng, 5, 8), _big(rng, 3, 6)
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    _real_scores(rng, h, u, mask, lambda: rng.normal(0.0, 3.0))
    for b in range(B):
        s_ = int(rng.choice(np.flatnonzero(mask[b])))
        along = h[b] / (h[b] @ h[b])
        u[b, s_] += (1500.0 + (u[b][mask[b]] @ h[b]).max() - u[b, s_] @ h[b]) * along
    return Case(f"B = {B}, S = {S}, H = {H}, one real score per row 1,500 above the next", (h, u, mask), long=True)


def _attention_scores_near_minus_2e6(rng):
    """Rows whose every real score is 2 to 5 × 10^8 below zero, a few units apart, the pads' own scores of moderate
    size: a pad masked with a finite score above the real ones (np.where(mask, s, -1e6), or -1e8) takes the weight,
    where -inf, np.finfo's min or -1e9 leave it none (hostile37l, W46; hostile37p: -1e7 and -1e8)."""
    B, S, H = 2, _big(rng, 5, 8), _big(rng, 3, 6)
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    low = -float(rng.uniform(2e8, 5e8))
    _real_scores(rng, h, u, mask, lambda: low + rng.normal(0.0, 3.0))
    return Case(f"B = {B}, S = {S}, H = {H}, every real score near {low:.3g}", (h, u, mask), long=True)


def _real_scores(rng, h, u, mask, draw):
    """u changed in place so that each real position's score h[b] . u[b, s] is ``draw()`` (its pads as they were)."""
    for b in range(len(h)):
        along = h[b] / (h[b] @ h[b])  # u_s = c_s h / |h|^2 + (a part orthogonal to h) scores exactly c_s
        for s_ in np.flatnonzero(mask[b]):
            u[b, s_] += (draw() - u[b, s_] @ h[b]) * along


def _attention_float32_scores_near_100(rng):
    """Float32 h and u whose real scores are near 100: exp(100) overflows float32, so a shift by the largest score
    made for float64 only gives nan (hostile37d, 3b); the reference in float64, every answer to float32's tolerance."""
    B, S, H = 2, _big(rng, 5, 8), _big(rng, 3, 6)
    mask = _scattered_mask(rng, B, S)
    h, u = _attention_memory_masked(rng, mask, H)
    _real_scores(rng, h, u, mask, lambda: 100.0 + rng.normal(0.0, 3.0))
    about = f"B = {B}, S = {S}, H = {H}, float32 h and u, every real score near 100 (exp(100) overflows float32)"
    return Case(about, (h.astype(np.float32), u.astype(np.float32), mask), long=True, extra=_INPUTS32)


def _attention_scores_1000_and_minus_20000(rng):
    """Rows whose real scores are of moderate size but for a few near 1000 and one from -200,000 to -20,000: a spread
    far past 4,096, so a shift skipped where the scores spread widely gives nan (hostile37d, 3a). Float32 rounding of
    scores near 1000 moves the weights by ~6e-5: 1e-3 here, whatever the outputs' dtype (as _rows_far_apart's)."""
    B, S, H = 2, _big(rng, 6, 9), _big(rng, 3, 6)
    mask = np.ones((B, S), dtype=bool)
    mask[1, _big(rng, 1, S - 2)] = False
    h, u = _attention_memory_masked(rng, mask, H)
    _real_scores(rng, h, u, mask, lambda: rng.normal(0.0, 3.0))
    for b in range(B):
        real = np.flatnonzero(mask[b])
        top = rng.choice(real[1:], size=3, replace=False)  # never the first position alone
        along = h[b] / (h[b] @ h[b])
        for s_, score in zip(top, (1000.0 + rng.normal(), 1000.0 + rng.normal(), -float(rng.uniform(2e4, 2e5)))):
            u[b, s_] += (score - u[b, s_] @ h[b]) * along
    about = f"B = {B}, S = {S}, H = {H}, real scores from -200,000 to 1000 in each row (spread past 4,096)"
    return Case(about, (h, u, mask), long=True, extra={"tol": 1e-3, "tol32": 1e-3})


def _large_attention_backward(rng):
    cases = []
    for B, S, H, mask, h, u in _large_attention_memories(rng):
        alpha, _ = ATT.attention_forward(h, u, mask)
        args = (rng.normal(0.0, 1.0, (B, H)), h, u, alpha)
        cases.append(_large(f"B = {B}, S = {S}, H = {H}, pads anywhere", args, extra={"mask": mask}))
    return cases + [_past_4096_positions(rng)]


def _past_4096_positions(rng):
    """One row of S = 4,100 to 4,400 positions (past 4,096), H small: an answer that drops a term past S = 4,096
    fails here (hostile37c, 3s). 3r, the same past 2.5 million entries of u, gets no case: the checker keeps some
    ten copies of u and of du, over 300 MB at that size."""
    S, H = _big(rng, 4_100, 4_400), _big(rng, 3, 8)
    mask = _scattered_mask(rng, 1, S)
    h, u = _attention_memory_masked(rng, mask, H)
    alpha, _ = ATT.attention_forward(h, u, mask)
    args = (rng.normal(0.0, 1.0, (1, H)), h, u, alpha)
    return _large(f"B = 1, S = {S}, H = {H}, pads anywhere", args, extra={"mask": mask})


def _largest(x):
    finite = np.abs(x[np.isfinite(x)])
    return float(finite.max()) if finite.size else 0.0


# exercise -> (its arguments -> the largest size of a number whose exp an answer takes): float32 rounds such a
# number by up to float32's epsilon times its size, which moves every probability by as much, relatively (scores near
# 1000: ~6e-5), however right the answer (check's tolerance of a float32 output grows with it)
EXPONENTS = {
    "softmax": lambda o: _largest(o),
    "cross_entropy_grad": lambda o, y: _largest(o),
    "seq2seq.masked_loss_and_grad": lambda o, y, lengths: _largest(o),
    "attention_forward": lambda h, u, mask: _largest(np.einsum("bh,bsh->bs", h, u)[np.asarray(mask, dtype=bool)]),
}

# arguments never zeroed: probabilities and log-probabilities (zeros are no distribution), the masks and lengths that
# say which positions are real, and what a backward step is handed from its forward step (zeroed alone, inconsistent)
_NEVER_ZEROED = frozenset({"log_probs", "alpha", "mask", "lengths", "cache", "h_t", "state"})
_WEIGHTS = frozenset({"params"})  # of these dicts, only the biases are zeroed (as init_params makes them)
_PROBABILITIES = frozenset({"y_hat"})  # zeroed in part: the smaller half of them 0, the rest renormalised


def zeroed_cases(ex, cases):
    """The grader's cases of zeros: each of ``cases`` again with one float or boolean argument (or one array of a
    dict of them) all zeros, or all False: a first step's h_prev and c_prev, a last step's dc_t, a gradient of 0,
    scores all equal, a dropout mask that keeps nothing; and y_hat with zeros among its probabilities. A rule that
    exempts a guard (`if not fresh: ...`, `if spread == 0: ...`) lets a branch no other case runs go unread: these
    run it (hostile37o: 21 such guards passed, each wrong on its zeros). Of the params, only the biases are zeroed:
    init_params makes them so, and no training run has a weight matrix of zeros. A zeroed case that rnn_core refuses,
    or whose outputs are not finite, is left out. The grader zeroes the first two cases of each seed's: in the first
    of some (Adam from adam_init's state, a beam's first step) a zero changes nothing that a guard would."""
    found = []
    for case in cases:
        for i, name in enumerate(ex.args):
            value = case.args[i]
            if name in _NEVER_ZEROED:
                continue
            keys = list(value) if isinstance(value, dict) and len(value) <= 8 else [None]
            for key in keys:
                array = value[key] if key is not None else value
                if not isinstance(array, np.ndarray) or array.dtype.kind not in "fb" or array.size == 0:
                    continue
                if name in _WEIGHTS and array.ndim > 1:  # a weight matrix of zeros: no training run has one
                    continue
                if name in _PROBABILITIES:
                    zeroed = np.where(array >= np.median(array), array, 0.0)
                    zeroed = zeroed / zeroed.sum()
                else:
                    zeroed = np.zeros_like(array)
                args = list(copy.deepcopy(case.args))
                if key is None:
                    args[i] = zeroed
                else:
                    args[i] = {**args[i], key: zeroed}
                if ex.derived is not None:
                    ex.derived(args)  # a backward step's h_t or cache made again from the zeroed params
                what = f"{name}[{key!r}]" if key is not None else name
                said = (
                    "with zeros" if name in _PROBABILITIES else "all False" if array.dtype.kind in "b" else "all zeros"
                )
                about = f"{case.about}, {what} {said}"
                if _reference_fine(ex, args):
                    found.append(Case(about, tuple(args), long=True))
    return found


def float32_cases(ex, cases):
    """The grader's float32 cases: each of ``cases`` again with every float array (and every float array of a dict)
    in float32, as rnn_core.train's networks are; the reference in float64, each output to float32's tolerance. A
    branch on the dtype (`b = params["b_h"] if params["b_h"].dtype == np.float64 else 0.0`), or a tanh written with
    np.exp clipped for float64 only, fails here (hostile37p: 18 such answers passed)."""
    found = []
    for case in cases if ex.name not in _NO_FLOAT32 else ():
        in32 = _in_float32(case)
        args = list(in32.args)
        if not any(_has_float32(a) for a in args):
            continue  # nothing in floats (one_hot)
        if ex.derived is not None:
            ex.derived(args)  # a backward step's cache made in float32 from the float32 params
        if _reference_fine(ex, args):
            found.append(Case(f"{case.about}, every float in float32", tuple(args), long=True, extra=_INPUTS32))
    return found


# beam search's outputs are indices: float32's rounding of the sums may order two near candidates either way
_NO_FLOAT32 = frozenset({"seq2seq.beam_step"})


def _has_float32(value):
    if isinstance(value, dict):
        return any(_has_float32(v) for v in value.values())
    return isinstance(value, np.ndarray) and value.dtype == np.float32


def _as_float32(value):
    if isinstance(value, dict):
        return {k: _as_float32(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return value.astype(np.float32)
    return value


_SCORES = frozenset({"o"})  # the arguments that are scores, one softmax along the last axis


_TARGETS = frozenset({"y"})  # the arguments that name the target of each softmax


def far_apart_cases(ex, cases):
    """The grader's cases of scores whose largest, at every position, is 1,500 above the next: a softmax shifted by
    anything but the largest (the mean of the two largest, hostile37p) overflows there. Where a target is named, the
    largest is the target's, so that the log of its probability, which a right answer may take, stays 0 (the other
    probabilities are e^-1500: 0)."""
    found = []
    for case in cases:
        args = list(copy.deepcopy(case.args))
        targets = [args[i] for i, name in enumerate(ex.args) if name in _TARGETS]
        for i, name in enumerate(ex.args):
            if name in _SCORES and isinstance(args[i], np.ndarray) and args[i].dtype.kind in "f":
                o = args[i]
                top = np.asarray(targets[0])[..., None] if targets else np.argmax(o, axis=-1)[..., None]
                others = o.copy()
                np.put_along_axis(others, top, -np.inf, axis=-1)
                second = others.max(axis=-1, keepdims=True) if o.shape[-1] > 1 else o[..., :1]
                np.put_along_axis(o, top, second + 1500.0, axis=-1)
                if _reference_fine(ex, args):
                    found.append(Case(f"{case.about}, the largest score 1,500 above the next", tuple(args), long=True))
    return found


# what each exercise's outputs are linear in: the upstream gradients (and for clipping, max_norm with them; for BPTT,
# W_yh, through which every gradient but dW_yh's and db_o's comes)
_LINEAR_IN = {
    "step_backward": ("dh_t",),
    "lstm.step_backward": ("dh_t", "dc_t"),
    "gru.step_backward": ("dh_t",),
    "dropout_backward": ("d_out",),
    "attention_backward": ("dcontext",),
    "global_norm": ("grads",),
    "clip_global_norm": ("grads", "max_norm"),
    "loss_and_grads": ("params['W_yh']",),
    "adam_update": ("grads", "state"),  # m times the scale, v times its square: its m, and v, scale so
}
_MOMENTS = frozenset({"state"})  # Adam's: its m scales with the gradients, its v with their squares


def small_cases(ex, cases, rng):
    """The grader's cases of small gradients: each of ``cases`` again with what the outputs are linear in
    (``_LINEAR_IN``) times 10^-20 to 10^-24, drawn from ``rng``. A right answer's outputs scale with it, each to its
    own size; one that flushes the entries below a threshold to zero (`np.where(abs(d) < 1e-12, 0, d)`), floors
    them, or clips only past `max_norm + 1e-9` is off by all of them there (hostile37q, D: 9 such answers passed)."""
    names = _LINEAR_IN.get(ex.name, ())
    found = []
    for case in cases if names else ():
        # Adam's v holds squares of the gradients: 10^-13 to 10^-14.5 keeps them normal in float32 too (its m, below
        # 1e-12 there, is what a flush of m zeroes)
        scale = 10.0 ** -float(rng.uniform(13.0, 14.5) if _MOMENTS.intersection(names) else rng.uniform(20.0, 24.0))
        args = list(copy.deepcopy(case.args))
        if "max_norm" in names:  # a norm above max_norm, so that the clip's own threshold is met
            args[1] = min(float(args[1]), _global_norm(args[0]) * float(rng.uniform(0.5, 0.9)))
        for name in names:
            if name in _MOMENTS:  # Adam's state: m times the scale, v times its square
                state = args[ex.args.index("state")]
                state["m"] = {k: v * scale for k, v in state["m"].items()}
                state["v"] = {k: v * scale**2 for k, v in state["v"].items()}
                continue
            if name.startswith("params["):
                i, key = ex.args.index("params"), name[len("params['") : -2]
                args[i] = {**args[i], key: args[i][key] * scale}
                continue
            i = ex.args.index(name)
            value = args[i]
            if isinstance(value, dict):
                args[i] = {k: v * scale for k, v in value.items()}
            elif isinstance(value, np.ndarray):
                args[i] = value * scale
            else:
                args[i] = float(value) * scale
        if ex.derived is not None:
            ex.derived(args)
        if _reference_fine(ex, args):
            found.append(Case(f"{case.about}, {' and '.join(names)} times {scale:.1e}", tuple(args), long=True))
    return found


def saturated_backward_cases(ex, cases, rng):
    """The grader's backward steps whose units all sit at pre-activations (the LSTM: cell states) of ±9 to ±9.5,
    where tanh is 1 - 10^-8 and its slope 10^-8 or so: float32 rounds tanh to ±1 there and the slope to 0. The
    LSTM's case has dc_t = 0, so that its dc_prev comes through that slope alone. An answer that computes the slope
    in float32 from float64 inputs is off by all of it (hostile37q, E); a right one's rounding is 10^-8 of it."""
    found = []
    for case in cases if ex.name in ("step_backward", "lstm.step_backward") else ():
        args = list(copy.deepcopy(case.args))
        params = args[0]
        if "h_t" in ex.args:  # the vanilla step: its pre-activations, through b_h
            _, _, _, h_prev, x_t = args
            H = h_prev.shape[-1]
            target = rng.choice([-1.0, 1.0], H) * rng.uniform(9.0, 9.5, H)
            a = params["W_xh"][:, x_t] + params["W_hh"] @ h_prev + params["b_h"]
            params["b_h"] = params["b_h"] + (target - a)
            about = f"{case.about}, every pre-activation ±9 to ±9.5"
        else:
            cache = args[3]
            H = cache["c"].shape[-1]
            target = rng.choice([-1.0, 1.0], H) * rng.uniform(9.0, 9.5, H)
            cache["c_prev"] = (target - cache["i"] * cache["g"]) / cache["f"]
            args[2] = np.zeros_like(args[2])
            about = f"{case.about}, every cell state ±9 to ±9.5, dc_t = 0"
        ex.derived(args)
        if _reference_fine(ex, args):
            found.append(Case(about, tuple(args), long=True))
    return found


# -- the grader's cases as training makes them (hostile37r). The other cases draw each argument on its own; a training
# run's arguments hold facts no independent draw does: a gradient's rows summed equal its bias's (one-hot inputs), a
# text window's targets are its inputs shifted by one, an LSTM's h_prev lies within tanh(c_prev), attention's states
# within (-1, 1), a decoder's log-probabilities are -inf at PAD and BOS, a target row ends in EOS then PADs; and the
# settings are round numbers (a rate of 0.1, max_norm 5, a learning rate of 1e-3). An answer that switches on such a
# fact is wrong in training and right on every independent draw: these cases hold them. So do sizes of one (H = 1,
# S = 1, V = 1, a dropout axis of 1), where a squeeze makes an array 0-d or broadcasts it the wrong way.

_ROUND_RATES = (0.1, 0.2, 0.25, 0.3, 0.5)
_ROUND_NORMS = (0.5, 1.0, 5.0, 10.0)
_ROUND_LRS = (1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 3e-2, 0.1)


def _text_window(rng, V, T):
    """A window of a text, as training cuts one: inputs and targets (T,) each, targets the inputs shifted by one."""
    text = rng.integers(0, V, T + 1)
    return text[:-1], text[1:]


def _trained(rng, cell, H, V, steps=3):
    """A cell's params after ``steps`` Adam steps on text windows (its biases no longer 0), Adam's state then, and the
    gradient of its loss on a fresh window: what global_norm, clipping and Adam get (hostile37s, A: a fresh network's
    zero biases, and Adam's first steps only, were facts a switch could read)."""
    params = cell.init_params(V, H, seed=int(rng.integers(2**31)))
    state = OPTIM.adam_init(params)
    for _ in range(steps):
        grads = cell.loss_and_grads(params, *_text_window(rng, V, _big(rng, 6, 12)))[1]
        params, state = OPTIM.adam_update(params, grads, state, 3e-2)
    inputs, targets = _text_window(rng, V, _big(rng, 6, 12))
    return params, state, cell.loss_and_grads(params, inputs, targets)[1]


def _trained_grads(rng, cell, H, V):
    """A trained cell's params and the gradient of its loss on a text window (``_trained``)."""
    params, _, grads = _trained(rng, cell, H, V)
    return params, grads


def _as_trained_norms(rng):
    cases = []
    for name, cell in (("a vanilla RNN", RNN), ("an LSTM", LSTM), ("a GRU", GRU)):
        grads = _trained_grads(rng, cell, _big(rng, 3, 6), _big(rng, 4, 8))[1]
        cases.append(Case(f"the gradient of {name}'s loss on a text window", (grads,), long=True))
    return cases


def _as_trained_clips(rng):
    cases = []
    for k, max_norm in enumerate(_ROUND_NORMS):
        cell = (RNN, LSTM, GRU)[k % 3]
        grads = _trained_grads(rng, cell, _big(rng, 3, 6), _big(rng, 4, 8))[1]
        norm = _global_norm(grads)
        for low, high, how in ((1.2, 3.0, "clipped at"), (0.3, 0.9, "below")):  # hostile37s, B: below it too
            factor = float(rng.uniform(low, high)) * max_norm / norm  # one factor: the gradient's own structure kept
            scaled = {name: g * factor for name, g in grads.items()}
            cases.append(
                Case(f"a text window's gradient, {how} max_norm = {max_norm:g}", (scaled, max_norm), long=True)
            )
    # a norm 1 + 1e-11 times max_norm, compared to 1e-13: a clip only past max_norm * (1 + 1e-9) fails (hostile37r, J)
    H, V, c, grads = _gradients_of_norm(rng, 1 + 1e-11)
    about = f"gradients of global norm 1 + 1e-11 times max_norm = {c:g}, compared to 1e-13 ({_sizes(H, V)})"
    return cases + [Case(about, (grads, c), long=True, extra={"tol": 1e-13})]


def _as_trained_adam(rng):
    cases = []
    for k, lr in enumerate(_ROUND_LRS):
        cell = (RNN, LSTM, GRU)[k % 3]
        params, state, grads = _trained(rng, cell, _big(rng, 3, 5), _big(rng, 4, 7), steps=(0, 1, 3, 7)[k % 4])
        cases.append(Case(f"a text window's gradient, Adam step {state['t'] + 1} at lr = {lr:g}",
                          (params, grads, state, lr), long=True))  # fmt: skip
    return cases


def _as_trained_bptt(rng):
    H, V, T = _big(rng, 3, 6), _big(rng, 4, 8), _big(rng, 5, 10)
    params = _trained(rng, RNN, H, V)[0]
    inputs, targets = _text_window(rng, V, T)
    h0 = np.tanh(rng.normal(0.0, 1.0, H))  # carried from the window before
    return [Case(f"a text window, T = {T}, targets the inputs shifted by one, h0 carried", (params, inputs, targets,
            h0), long=True)]  # fmt: skip


def _chained_lstm(rng, H, V):
    """A sequence's third step, after two from the zero state: (params, x_t, h_prev, c_prev, h_t, cache)."""
    params, x_0, _, _, H, V = _lstm_parts(rng, H, V, set())
    h, c, _ = LSTM.step_forward(params, x_0, np.zeros(H), np.zeros(H))
    h, c, _ = LSTM.step_forward(params, int(rng.integers(V)), h, c)
    x_t = int(rng.integers(V))
    h_t, _, cache = LSTM.step_forward(params, x_t, h, c)
    return params, x_t, h, c, h_t, cache


def _chained_gru(rng, H, V):
    """A sequence's third step, after two from the zero state: (params, x_t, h_prev, h_t, cache)."""
    params, x_0, _, H, V = _gru_parts(rng, H, V, set())
    h = GRU.step_forward(params, int(rng.integers(V)), GRU.step_forward(params, x_0, np.zeros(H))[0])[0]
    x_t = int(rng.integers(V))
    h_t, cache = GRU.step_forward(params, x_t, h)
    return params, x_t, h, h_t, cache


def _last_dh(rng, params, h_t):
    """dL/dh_t at a window's last step: W_yh^T (softmax(W_yh h_t + b_o) - e_y) for a target y (hostile37s, D)."""
    do = F.softmax(params["W_yh"] @ h_t + params["b_o"])
    do[int(rng.integers(do.size))] -= 1.0
    return params["W_yh"].T @ do


def _as_trained_step_backward(rng):
    H, V = _big(rng, 3, 6), _big(rng, 4, 8)
    params = _trained(rng, RNN, H, V)[0]
    h_prev = np.tanh(rng.normal(0.0, 1.0, H))
    x_t = int(rng.integers(V))
    h_t = RNN.step_forward(params, x_t, h_prev)
    args = (params, _last_dh(rng, params, h_t), h_t, h_prev, x_t)
    return [Case(f"a window's last step, dh_t from its output alone, H = {H}", args, long=True)]


def _as_trained_lstm_forward(rng):
    cases = []
    for H in (_big(rng, 3, 6), 1):
        params, x_t, h_prev, c_prev, _, _ = _chained_lstm(rng, H, _big(rng, 4, 8))
        cases.append(Case(f"the third step of a sequence, H = {H}", (params, x_t, h_prev, c_prev), long=True))
    return cases


def _as_trained_lstm_backward(rng):
    cases = []
    for H in (_big(rng, 3, 6), 1):
        params, *_, h_t, cache = _chained_lstm(rng, H, _big(rng, 4, 8))
        args = (params, rng.standard_normal(H), rng.standard_normal(H), cache)
        cases.append(Case(f"the third step of a sequence, H = {H}", args, long=True))
    args = (params, _last_dh(rng, params, h_t), np.zeros(H), cache)
    return cases + [Case(f"a window's last step, dh_t from its output alone, dc_t = 0, H = {H}", args, long=True)]


def _as_trained_gru_forward(rng):
    cases = []
    for H in (_big(rng, 3, 6), 1):
        params, x_t, h_prev, _, _ = _chained_gru(rng, H, _big(rng, 4, 8))
        cases.append(Case(f"the third step of a sequence, H = {H}", (params, x_t, h_prev), long=True))
    return cases


def _as_trained_gru_backward(rng):
    cases = []
    for H in (_big(rng, 3, 6), 1):
        params, *_, h_t, cache = _chained_gru(rng, H, _big(rng, 4, 8))
        cases.append(Case(f"the third step of a sequence, H = {H}", (params, rng.standard_normal(H), cache), long=True))
    args = (params, _last_dh(rng, params, h_t), cache)
    return cases + [Case(f"a window's last step, dh_t from its output alone, H = {H}", args, long=True)]


def _states_memory(rng, B, S, H, lengths=False):
    """A mask and h, u as an encoder and a decoder make them: states within (-1, 1), the pads' too; the mask from
    the sources' lengths (real positions first, hostile37s, F), or scattered."""
    if lengths and S > 1:
        mask = np.arange(S) < rng.integers(1, S + 1, B)[:, None]
        mask[0] = True
    else:
        mask = _scattered_mask(rng, B, S) if S > 1 else np.ones((B, S), dtype=bool)
    return mask, np.tanh(rng.normal(0.0, 1.0, (B, H))), np.tanh(rng.normal(0.0, 1.0, (B, S, H)))


_ATTENTION_SIZES = (
    (3, 6, 4, "a decoder's states"),
    (4, 7, 3, "a decoder's states, the mask from the sources' lengths"),
    (2, 1, 3, "S = 1"),
    (2, 5, 1, "H = 1"),
    (1, 1, 1, "B = S = H = 1"),
)


def _as_trained_attention_forward(rng):
    cases = []
    for B, S, H, what in _ATTENTION_SIZES:
        mask, h, u = _states_memory(rng, B, S, H, "lengths" in what)
        cases.append(Case(f"{what} (B = {B}, S = {S}, H = {H}), states within (-1, 1)", (h, u, mask), long=True))
    return cases


def _as_trained_attention_backward(rng):
    cases = []
    for B, S, H, what in _ATTENTION_SIZES:
        mask, h, u = _states_memory(rng, B, S, H, "lengths" in what)
        alpha, _ = ATT.attention_forward(h, u, mask)
        args = (rng.normal(0.0, 1.0, (B, H)), h, u, alpha)
        cases.append(Case(f"{what} (B = {B}, S = {S}, H = {H}), states within (-1, 1)", args, long=True,
                          extra={"mask": mask}))  # fmt: skip
    return cases


def _as_trained_beam(rng):
    """A decoder's step: log-probabilities -inf at PAD and BOS, the prefixes in descending order of log P, the beam
    as wide as the prefixes; and two prefixes' totals 1e-13 apart, which float64 keeps apart."""
    R, V = _big(rng, 3, 5), _big(rng, 8, 14)
    scores = rng.normal(0.0, 2.0, (R, V))
    scores[:, [S2S.PAD, S2S.BOS]] = -np.inf
    log_probs = F.log_softmax(scores)
    log_p = -np.sort(rng.uniform(0.5, 8.0, R))  # descending
    cases = [Case(f"a decoder's step: R = {R} prefixes, V = {V}, beam_size {R}", (log_p, log_probs, R), long=True)]
    scores = rng.normal(0.0, 2.0, (1, V))  # the first step: one prefix, log P = 0, a beam wider (hostile37s, E)
    scores[:, [S2S.PAD, S2S.BOS]] = -np.inf
    beam = _big(rng, 2, 4)
    cases.append(Case(f"a decoder's first step: one prefix, V = {V}, beam_size {beam}", (np.zeros(1), F.log_softmax(
        scores), beam), long=True))  # fmt: skip
    log_probs = F.log_softmax(rng.normal(0.0, 2.0, (2, V)))[[0, 0]]
    log_p = np.array([-1.0 - 1e-13, -1.0])  # the second prefix ahead: a ranking on rounded totals keeps the first
    return cases + [Case(f"R = 2 prefixes whose log P are 1e-13 apart, V = {V}, beam_size 3", (log_p, log_probs, 3),
                         long=True)]  # fmt: skip


def _as_trained_masked(rng):
    """Targets as a batch of target sentences makes them: each row's tokens, EOS, then PAD to the end."""
    B, T, V = _big(rng, 3, 5), _big(rng, 5, 8), _big(rng, 6, 10)
    lengths = rng.integers(2, T + 1, B)
    lengths[0] = T
    o, y, n = _masked_case(rng, B, T, V, lengths, False)
    y = np.where(np.arange(T) >= n[:, None], S2S.PAD, np.where(y == S2S.EOS, 3, y))
    y[np.arange(B), n - 1] = S2S.EOS
    return [Case(f"B = {B} target rows of lengths {n.tolist()}, each ending in EOS, then PAD", (o, y, n), long=True)]


def _as_trained_dropout(rng):
    cases = []
    for rate in _ROUND_RATES:
        d_out, keep = _dropout_case(rng, (_big(rng, 6, 10),), rate)
        cases.append(Case(f"H = {d_out.size}, rate = {rate}", (d_out, keep, rate), long=True))
    for shape in ((1, _big(rng, 5, 9)), (_big(rng, 5, 9), 1)):
        d_out, keep = _dropout_case(rng, shape, 0.4)
        cases.append(Case(f"shape {shape}, rate = 0.4", (d_out, keep, 0.4), long=True))
    return cases


def _as_trained_cross_entropy(rng):
    return [Case("V = 1, y = 0", (rng.normal(0.0, 2.0, 1), 0), long=True)]


AS_TRAINED = {  # exercise name -> rng -> the grader's cases as training makes them
    "cross_entropy_grad": _as_trained_cross_entropy,
    "step_backward": _as_trained_step_backward,
    "loss_and_grads": _as_trained_bptt,
    "global_norm": _as_trained_norms,
    "clip_global_norm": _as_trained_clips,
    "adam_update": _as_trained_adam,
    "lstm.step_forward": _as_trained_lstm_forward,
    "lstm.step_backward": _as_trained_lstm_backward,
    "gru.step_forward": _as_trained_gru_forward,
    "gru.step_backward": _as_trained_gru_backward,
    "dropout_backward": _as_trained_dropout,
    "seq2seq.masked_loss_and_grad": _as_trained_masked,
    "seq2seq.beam_step": _as_trained_beam,
    "attention_forward": _as_trained_attention_forward,
    "attention_backward": _as_trained_attention_backward,
}


def as_trained_cases(ex, rng):
    """The grader's cases as training makes them (above), those rnn_core's own function gives finite outputs on."""
    make = AS_TRAINED.get(ex.name)
    return [c for c in make(rng) if _reference_fine(ex, c.args)] if make else []


def _reference_fine(ex, args):
    try:
        out = ex.reference(*copy.deepcopy(args))
    except Exception:
        return False
    arrays = [out] if not isinstance(out, (tuple, list, dict)) else (out.values() if isinstance(out, dict) else out)
    flat = []
    for a in arrays:
        flat += list(a.values()) if isinstance(a, dict) else [a]
    return all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in flat if np.asarray(a).dtype.kind in "fiub")


GRADE_CASES = {  # exercise name -> rng -> the grader's cases beyond every published size
    "one_hot": _large_one_hot,
    "softmax": _large_softmax,
    "softmax_jacobian": _large_jacobian,
    "cross_entropy_grad": _large_cross_entropy,
    "step_forward": _large_step_forward,
    "step_backward": _large_step_backward,
    "loss_and_grads": _large_loss_and_grads,
    "global_norm": _large_global_norm,
    "clip_global_norm": _large_clip,
    "adam_update": _large_adam,
    "lstm.step_forward": _large_lstm_forward,
    "lstm.step_backward": _large_lstm_backward,
    "gru.step_forward": _large_gru_forward,
    "gru.step_backward": _large_gru_backward,
    "dropout_backward": _large_dropout,
    "seq2seq.masked_loss_and_grad": _large_masked,
    "seq2seq.beam_step": _large_beam,
    "attention_forward": _large_attention_forward,
    "attention_backward": _large_attention_backward,
}
