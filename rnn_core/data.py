"""The training text: finding it, cleaning it, splitting it, and cutting it into batches.

Where the text comes from (``load_text``), first match wins:

1. an explicit ``path``;
2. the file named by the environment variable ``RNN_CORE_TEXT``;
3. a cached copy, ``pg1342.txt`` in the cache directory;
4. a download of Project Gutenberg ebook #1342 (*Pride and Prejudice*) from
   ``GUTENBERG_URL`` into the cache directory (with a timeout and a size cap,
   written atomically so an interrupted download never leaves half a file).

The cache directory is ``$RNN_CORE_CACHE`` if set; else ``data/`` at the top of
the repository when rnn_core is used from a source checkout (git ignores
``data/``); else ``~/.cache/rnn_core``.

Whatever the source, the text is decoded as UTF-8 (a byte-order mark is
dropped), line endings become ``\\n``, and a Project Gutenberg header and
footer (everything outside the ``*** START OF`` / ``*** END OF`` lines) are
removed when present (``strip_gutenberg``). The rest is kept exactly.

The edition: Project Gutenberg revises its files now and then, and a revised
file changes the vocabulary, the baselines and every number the notebooks
store. ``EXPECTED_TEXT`` records the SHA-256, the length and the vocabulary
size of the cleaned text the notebooks were executed with. When the novel
comes from ``$RNN_CORE_TEXT``, the cache or a download and differs from it,
``load_text`` says so once, with a ``TextMismatchWarning`` (not an error: any
text can be trained on). An explicit ``path`` is taken as the caller's choice
of text and not compared.

How the text becomes training batches (``StreamBatcher``): the training ids
are cut into B contiguous *streams*, one per row of the batch, and each
stream is read T characters at a time. Window k of a pass holds, for every
stream b, the inputs ``stream_b[kT : kT+T]`` and the targets one character
later. Because row b of window k+1 continues exactly where row b of window k
stopped, the hidden state at the end of one window is the right starting
state for the next (stateful truncated BPTT). When a pass over the data ends,
the state is reset to zeros and the next pass starts again at the beginning.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._validation import check_indices, check_int, check_number
from .files import write_atomically

__all__ = [
    "GUTENBERG_URL",
    "TEXT_ENV",
    "CACHE_ENV",
    "CACHE_FILENAME",
    "TextUnavailableError",
    "TextMismatchWarning",
    "TextIdentity",
    "EXPECTED_TEXT",
    "text_identity",
    "default_cache_dir",
    "load_text",
    "download_text",
    "normalize_newlines",
    "strip_gutenberg",
    "split_train_val",
    "StreamBatcher",
]

GUTENBERG_URL = "https://www.gutenberg.org/cache/epub/1342/pg1342.txt"
TEXT_ENV = "RNN_CORE_TEXT"
CACHE_ENV = "RNN_CORE_CACHE"
CACHE_FILENAME = "pg1342.txt"
MAX_DOWNLOAD_BYTES = 5_000_000  # the novel is about 0.75 MB; anything past 5 MB is not it
DOWNLOAD_TIMEOUT = 30.0  # seconds without an answer before giving up

_START_MARKER = "*** START OF"
_END_MARKER = "*** END OF"


class TextUnavailableError(FileNotFoundError):
    """The text could not be found locally nor downloaded."""


class TextMismatchWarning(UserWarning):
    """The novel found is not the edition the notebooks were executed with."""


@dataclass(frozen=True)
class TextIdentity:
    """What identifies a cleaned text: the SHA-256 of its UTF-8 bytes, its length, its vocabulary size."""

    sha256: str
    n_chars: int
    vocab_size: int

    def __str__(self):
        return f"SHA-256 {self.sha256[:16]}…, {self.n_chars:,} characters, {self.vocab_size} distinct"


# The cleaned text of Project Gutenberg #1342 that the notebooks' stored outputs were computed from.
EXPECTED_TEXT = TextIdentity(
    sha256="86dab871eec9c0cef97f4cb6313f86c6cc48f6f7809534e65cd3f1c1d486d247",
    n_chars=728_744,
    vocab_size=91,
)


def text_identity(text):
    """The ``TextIdentity`` of a (cleaned) text."""
    return TextIdentity(hashlib.sha256(text.encode("utf-8")).hexdigest(), len(text), len(set(text)))


def _check_edition(text, where):
    found = text_identity(text)
    if found != EXPECTED_TEXT:
        # issued from this line (stacklevel=1, not the caller's) with a message that depends
        # only on the text: Python's default warning filter then shows it once per session,
        # however often the text is loaded
        warnings.warn(
            f"{where} is not the edition of Pride and Prejudice the notebooks were executed with "
            f"(expected {EXPECTED_TEXT}; found {found}). Training works on any text, but the numbers "
            f"the notebooks show (vocabulary, baselines, losses, samples) will differ from the stored ones",
            TextMismatchWarning,
            stacklevel=1,
        )
    return text


# -- cleaning -----------------------------------------------------------------------


def normalize_newlines(text):
    """Windows (\\r\\n) and old Mac (\\r) line endings become \\n."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip_gutenberg(text):
    """The body of a Project Gutenberg file: what lies between its markers.

    If ``text`` holds a line starting with ``*** START OF``, everything up to
    the end of that line goes; if it holds a line starting with ``*** END OF``,
    that line and everything after it go. Blank lines left at either end of
    the body are trimmed and the body ends with one newline. A text with no
    markers is returned unchanged.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    start = _find_line(text, _START_MARKER)
    end = _find_line(text, _END_MARKER, after=0 if start < 0 else start)
    if start < 0 and end < 0:
        return text
    lo = 0
    if start >= 0:
        newline = text.find("\n", start)
        lo = len(text) if newline < 0 else newline + 1
    hi = len(text) if end < 0 else end
    body = text[lo:hi].strip("\n")
    return body + "\n" if body else ""


def _find_line(text, marker, after=0):
    """Index of the first line (at or after ``after``) that starts with ``marker``, or -1."""
    i = after
    while True:
        i = text.find(marker, i)
        if i < 0 or i == 0 or text[i - 1] == "\n":
            return i
        i += 1


# -- finding the text -----------------------------------------------------------------


def default_cache_dir():
    """Where a downloaded text is kept (see the module docstring); a Path, maybe not yet existing."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parent.parent
    if (repo / "pyproject.toml").is_file() and (repo / "rnn_core").is_dir():
        return repo / "data"  # a source checkout: data/ is git-ignored
    return Path.home() / ".cache" / "rnn_core"


def load_text(path=None, *, url=GUTENBERG_URL, cache_dir=None, timeout=DOWNLOAD_TIMEOUT, max_bytes=MAX_DOWNLOAD_BYTES):
    """The training text as one str, cleaned (see the module docstring for where it comes from).

    path: a text file to read; None to look at $RNN_CORE_TEXT, then the cache,
    then download. url, cache_dir, timeout (seconds), max_bytes: for the
    download step; cache_dir None means ``default_cache_dir()``.
    Raises FileNotFoundError for a path that does not exist,
    TextUnavailableError (a FileNotFoundError) when nothing is found and the
    download fails, ValueError for a file that is not UTF-8 text or is empty.
    """
    if path is not None:
        return _read_text_file(Path(path), "the text file")
    env = os.environ.get(TEXT_ENV)
    if env:
        text = _read_text_file(Path(env).expanduser(), f"the file named by ${TEXT_ENV}")
        return _check_edition(text, f"the text in ${TEXT_ENV} ({env})")
    cache_dir = default_cache_dir() if cache_dir is None else Path(cache_dir)
    cached = cache_dir / CACHE_FILENAME
    if not cached.is_file():
        download_text(cached, url=url, timeout=timeout, max_bytes=max_bytes)
    return _check_edition(_read_text_file(cached, "the cached text"), f"the text in {cached}")


def download_text(dest, *, url=GUTENBERG_URL, timeout=DOWNLOAD_TIMEOUT, max_bytes=MAX_DOWNLOAD_BYTES):
    """Download ``url`` to the file ``dest``, atomically; returns dest as a Path.

    At most ``max_bytes`` bytes are accepted; ``timeout`` seconds bound each
    network wait. The bytes go to a temporary file next to ``dest`` that is
    renamed into place only once complete. Any failure raises
    TextUnavailableError with a message saying where to put the file instead.
    """
    dest = Path(dest)

    def unavailable(reason):
        return TextUnavailableError(
            f"could not download the text from {url} ({reason}). Without internet, save a copy of "
            f"Pride and Prejudice (plain text, UTF-8) as {dest}, or set {TEXT_ENV}=/path/to/file.txt, "
            f"or pass the file's path explicitly"
        )

    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data = response.read(max_bytes + 1)
            announced = response.headers.get("Content-Length")
    except http.client.IncompleteRead as e:
        raise unavailable(f"the connection closed after {len(e.partial)} bytes: the download is incomplete") from None
    except urllib.error.HTTPError as e:
        raise unavailable(f"HTTP {e.code}") from None
    except urllib.error.URLError as e:
        raise unavailable(f"{e.reason}") from None
    except (OSError, ValueError) as e:  # timeouts, resets, malformed URLs
        raise unavailable(f"{type(e).__name__}: {e}") from None
    if len(data) > max_bytes:
        raise unavailable(f"the answer is larger than {max_bytes} bytes, so it is not the novel")
    if not data:
        raise unavailable("the answer is empty")
    if announced is not None and announced.isdigit() and len(data) < int(announced) <= max_bytes:
        raise unavailable(f"only {len(data)} of {int(announced)} bytes arrived: the download is incomplete")
    if _START_MARKER.encode() not in data:
        raise unavailable(f"the answer has no '{_START_MARKER}' line, so it is not a Project Gutenberg text")
    if _END_MARKER.encode() not in data:
        raise unavailable(f"the answer has no '{_END_MARKER}' line: the download is incomplete")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(dest, lambda f: f.write(data), suffix=".part")
    except OSError as e:
        raise TextUnavailableError(
            f"downloaded the text but could not save it to {dest} ({e.strerror or e}); set {CACHE_ENV} "
            f"to a writable folder or {TEXT_ENV} to a copy of the file"
        ) from None
    return dest


def _read_text_file(path, what):
    if not path.exists():
        hint = f" (check ${TEXT_ENV})" if "$" in what else ""
        raise FileNotFoundError(f"{what} {path} does not exist{hint}")
    if not path.is_file():
        raise FileNotFoundError(f"{what} {path} is not a file")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise OSError(f"could not read {what} {path}: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8-sig")  # -sig: drops the byte-order mark Gutenberg files start with
    except UnicodeDecodeError as e:
        raise ValueError(
            f"{what} {path} is not UTF-8 text (bad byte at position {e.start}); save it as UTF-8"
        ) from None
    text = strip_gutenberg(normalize_newlines(text))
    if not text:
        raise ValueError(f"{what} {path} is empty: it holds no characters to train on")
    return text


# -- splitting and batching -------------------------------------------------------------


def split_train_val(ids, val_fraction=0.1):
    """(train, val): the first (1 - val_fraction) of the sequence and the rest.

    ids: a 1-D array (or a str); the split index is int(len * (1 - val_fraction)),
    so with val_fraction=0.1 the last 10% of characters are held out.
    """
    check_number(val_fraction, "val_fraction", 0, 1, include_low=True, include_high=False)
    n = len(ids)
    cut = int(n * (1.0 - val_fraction))
    return ids[:cut], ids[cut:]


@dataclass
class StreamBatcher:
    """B parallel contiguous streams read T characters at a time (see the module docstring).

    ids: 1-D int array of character indices (the training part of the text).
    batch_size B, seq_length T: positive ints.

    Each stream holds ``stream_length`` = (len(ids) - 1) // B consecutive characters,
    and a pass over the data is ``windows_per_pass`` = stream_length // T windows (the
    last stream_length - windows_per_pass * T characters of each stream are not used
    as inputs). ``window(k)`` returns (inputs, targets), both (B, T): row b is
    ``ids[b*stream_length + k*T : b*stream_length + k*T + T]`` and the same one character later.
    """

    ids: np.ndarray
    batch_size: int
    seq_length: int

    def __post_init__(self):
        ids = check_indices(self.ids, "ids", None, ndim=(1,), min_size=0)  # too short is said below
        B, T = check_int(self.batch_size, "batch_size"), check_int(self.seq_length, "seq_length")
        stream_length = (ids.size - 1) // B if ids.size else 0
        if stream_length < T:
            need = B * T + 1
            raise ValueError(
                f"the training text is too short: {ids.size} characters cannot fill {B} streams of {T} "
                f"characters plus one target (need at least {need}); use a longer text or a smaller "
                f"batch size or sequence length"
            )
        self.ids = ids
        self.stream_length = stream_length
        self.windows_per_pass = stream_length // T
        # inputs and targets of every stream, (B, stream_length): row b is stream b
        self._X = ids[: B * stream_length].reshape(B, stream_length)
        self._Y = ids[1 : B * stream_length + 1].reshape(B, stream_length)

    def window(self, k):
        """Inputs and targets of window k (0 <= k < windows_per_pass), each (B, T)."""
        if not 0 <= k < self.windows_per_pass:
            raise IndexError(f"window {k} outside 0..{self.windows_per_pass - 1}")
        T = self.seq_length
        return self._X[:, k * T : (k + 1) * T], self._Y[:, k * T : (k + 1) * T]
