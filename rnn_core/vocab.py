"""The character vocabulary: text <-> integer indices.

The vocabulary is ``sorted(set(text))``: sorting makes index i mean the same
character on every run and every machine (a plain ``set`` has no fixed order).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_indices

__all__ = ["Vocabulary"]


class Vocabulary:
    """A fixed, sorted list of characters; index i stands for ``chars[i]``.

    >>> v = Vocabulary.from_text("hello")
    >>> v.chars
    'ehlo'
    >>> v.encode("hell").tolist()
    [1, 0, 2, 2]
    >>> v.decode([1, 0, 2, 2, 3])
    'hello'
    """

    def __init__(self, chars):
        chars = "".join(chars) if not isinstance(chars, str) else chars
        if not chars:
            raise ValueError("a vocabulary needs at least one character; got an empty text")
        if list(chars) != sorted(set(chars)):
            raise ValueError(
                "vocabulary characters must be sorted and unique: build it with Vocabulary.from_text(text)"
            )
        self.chars = chars
        self._codes = np.array([ord(c) for c in chars], dtype=np.uint32)  # sorted, for searchsorted

    @classmethod
    def from_text(cls, text):
        """The sorted distinct characters of ``text``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return cls("".join(sorted(set(text))))

    @property
    def size(self):
        """V, the number of characters."""
        return len(self.chars)

    def __len__(self):
        return len(self.chars)

    def __repr__(self):
        return f"Vocabulary(size={self.size}, chars={self.chars[:20]!r}{'...' if self.size > 20 else ''})"

    def __eq__(self, other):
        return isinstance(other, Vocabulary) and other.chars == self.chars

    def encode(self, text):
        """Indices of the characters of ``text``: an int64 array of shape (len(text),).

        Raises ValueError listing the characters that are not in the vocabulary.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        idx = np.searchsorted(self._codes, codes)
        idx_c = np.minimum(idx, self.size - 1)
        known = self._codes[idx_c] == codes
        if not known.all():
            unknown = sorted(set(text[i] for i in np.flatnonzero(~known)[:1000]))
            shown = ", ".join(repr(c) for c in unknown[:10])
            raise ValueError(
                f"text contains {len(unknown)}{'+' if (~known).sum() > 1000 else ''} character(s) not in the "
                f"vocabulary: {shown}. Use only characters the model was trained on (see vocab.chars)"
            )
        return idx_c.astype(np.int64)

    def decode(self, indices):
        """The text for a sequence of indices."""
        idx = np.asarray(indices)
        if idx.size == 0:
            return ""
        idx = check_indices(idx, "indices", self.size, ndim=None)
        return "".join(self.chars[i] for i in idx.ravel().tolist())
