"""The sequence-to-sequence task: dates as people write them, turned into ISO form.

"the 3rd of March, 1812" -> "1812-03-03". Generated offline and seeded (``make_pairs``), with the
years around the novel's (1811-1812): 1700 to 1899. Why this task: the input and the output have
different lengths (8 to 36 characters in, always 10 out), the output reorders the input (the year
comes first in ISO form and last in every written form; the month is spelled out in five of the six
forms and must become a number), and every answer is checkable exactly against ``datetime``.

The written forms (``FORMS``), for 3 March 1812, a Tuesday:

    the 3rd of March, 1812       3 March 1812       March 3rd, 1812
    Tuesday the 3rd of March 1812       Mar 3, 1812       3/3/1812 (day first, as in Britain)

Character-level vocabularies, each a tuple of symbols whose index is the id: ``SRC_VOCAB`` (the
characters the forms can write) and ``TGT_VOCAB`` (the ten digits and "-"), both starting with
the three special symbols of ``rnn_core.seq2seq``: PAD = 0, BOS = 1, EOS = 2.
``encode_batch`` turns strings into a padded (B, S) id array and the lengths; ``decode`` turns
ids back into a string.
"""

from __future__ import annotations

import datetime

import numpy as np

from ._validation import check_choice, check_int
from .seq2seq import BOS, EOS, PAD

__all__ = [
    "FIRST_YEAR",
    "LAST_YEAR",
    "FORMS",
    "SPECIALS",
    "SRC_VOCAB",
    "TGT_VOCAB",
    "written",
    "iso",
    "make_pairs",
    "encode_batch",
    "decode",
]

FIRST_YEAR, LAST_YEAR = 1700, 1899  # the dates drawn: every day of these years, uniformly

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October")
MONTHS += ("November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # date.weekday()'s order
FORMS = ("the_of", "day_month", "month_day", "weekday", "abbreviated", "numeric")
SPECIALS = ("<pad>", "<s>", "</s>")  # the symbols of ids PAD, BOS, EOS
assert SPECIALS.index("<pad>") == PAD and SPECIALS.index("<s>") == BOS and SPECIALS.index("</s>") == EOS


def _ordinal(day):
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 4 -> "4th", 11 -> "11th", 22 -> "22nd"."""
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def written(date, form):
    """The date (a datetime.date) written in ``form`` (one of FORMS), e.g. "the 3rd of March, 1812"."""
    check_choice(form, "form", FORMS)
    d, month, y = date.day, MONTHS[date.month - 1], date.year
    if form == "the_of":
        return f"the {_ordinal(d)} of {month}, {y}"
    if form == "day_month":
        return f"{d} {month} {y}"
    if form == "month_day":
        return f"{month} {_ordinal(d)}, {y}"
    if form == "weekday":
        return f"{WEEKDAYS[date.weekday()]} the {_ordinal(d)} of {month} {y}"
    if form == "abbreviated":
        return f"{month[:3]} {d}, {y}"
    return f"{d}/{date.month}/{y}"  # "numeric", the last of FORMS


def iso(date):
    """The date in ISO 8601 form, "1812-03-03"."""
    return date.isoformat()


def _symbols():
    """The source characters: every character any form writes, sorted (as the house's vocabularies)."""
    text = "".join(MONTHS) + "".join(WEEKDAYS) + "0123456789 ,/" + "the of stndrdth"
    return tuple(sorted(set(text)))


SRC_VOCAB = SPECIALS + _symbols()  # id -> symbol
TGT_VOCAB = SPECIALS + tuple("-0123456789")


def make_pairs(n, seed=0):
    """n (written date, ISO date) pairs, deterministic from ``seed``: a list of (str, str).

    Each date is drawn uniformly from the days of FIRST_YEAR..LAST_YEAR and each form uniformly
    from FORMS, with np.random.default_rng(seed): all n dates first, then all n forms. So for k < n,
    make_pairs(k, seed) has the dates of make_pairs(n, seed)[:k], but in general not their forms.
    """
    n = check_int(n, "n")
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    first = datetime.date(FIRST_YEAR, 1, 1).toordinal()
    last = datetime.date(LAST_YEAR, 12, 31).toordinal()
    days = rng.integers(first, last + 1, size=n)
    forms = rng.integers(0, len(FORMS), size=n)
    pairs = []
    for day, form in zip(days.tolist(), forms.tolist()):
        date = datetime.date.fromordinal(day)
        pairs.append((written(date, FORMS[form]), iso(date)))
    return pairs


def encode_batch(strings, vocab, *, add_eos=False):
    """Strings as a padded batch of ids: (ids (B, S) int64, lengths (B,) int64).

    vocab: SRC_VOCAB or TGT_VOCAB (a tuple of symbols, index = id). add_eos: end each row with
    EOS (the targets of ``rnn_core.seq2seq.loss_and_grads`` do), counted in its length. Rows
    shorter than the longest are filled with PAD after their length.
    """
    if isinstance(strings, str):
        raise TypeError("strings must be a list of strings, got one str; wrap it in a list")
    strings = list(strings)
    if not strings:
        raise ValueError("strings is empty: give at least one string")
    index = {symbol: i for i, symbol in enumerate(vocab)}
    rows = []
    for s in strings:
        if not isinstance(s, str):
            raise TypeError(f"strings must hold str, got {type(s).__name__}")
        unknown = sorted(set(s) - set(index))
        if unknown:
            raise ValueError(f"{s!r} has characters outside the vocabulary: {''.join(unknown)!r}")
        rows.append([index[c] for c in s] + ([EOS] if add_eos else []))
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    if lengths.min() < 1:
        raise ValueError("strings holds an empty string: every sequence needs at least one symbol")
    ids = np.full((len(rows), lengths.max()), PAD, dtype=np.int64)
    for b, r in enumerate(rows):
        ids[b, : len(r)] = r
    return ids, lengths


def decode(ids, vocab):
    """The string of a sequence of ids (a list or a 1-D array): the symbols up to the first EOS, or
    all of them without one. Trailing PAD is allowed (a row of encode_batch); PAD or BOS between
    symbols, or an id outside the vocabulary, is a ValueError (an output holding one is not read
    as if it did not)."""
    ids = np.asarray(ids).reshape(-1).tolist()
    while ids and ids[-1] == PAD:  # a padded row's tail
        ids.pop()
    out = []
    for position, i in enumerate(ids):
        if i == EOS:
            break
        if i in (PAD, BOS) or not 0 <= i < len(vocab):
            raise ValueError(
                f"ids holds {i} at position {position}, before any EOS: not a symbol of the vocabulary "
                f"(valid: {EOS + 1}..{len(vocab) - 1}, then EOS = {EOS})"
            )
        out.append(vocab[i])
    return "".join(out)
