"""Finding, cleaning, splitting and batching the text (rnn_core.data). No real network access."""

import http.server
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from rnn_core import Vocabulary, data
from rnn_core.data import (
    CACHE_FILENAME,
    EXPECTED_TEXT,
    StreamBatcher,
    TextMismatchWarning,
    TextUnavailableError,
    default_cache_dir,
    load_text,
    normalize_newlines,
    split_train_val,
    strip_gutenberg,
    text_identity,
)

BODY = "It is a truth universally acknowledged,\nthat a single man...\n\nChapter 2\n"
FAKE_GUTENBERG = (
    "\ufeffThe Project Gutenberg eBook of Pride and Prejudice\r\n"
    "Title: Pride and Prejudice\r\n\r\n"
    "*** START OF THE PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\r\n\r\n\r\n"
    + BODY.replace("\n", "\r\n")
    + "\r\n\r\n*** END OF THE PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\r\n"
    "Section 5. General Information About Project Gutenberg\r\n"
)


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    """No RNN_CORE_TEXT, and a private cache folder."""
    monkeypatch.delenv("RNN_CORE_TEXT", raising=False)
    monkeypatch.setenv("RNN_CORE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def server():
    """A local HTTP server on 127.0.0.1 serving the fake Gutenberg file at /pg1342.txt."""
    payload = FAKE_GUTENBERG.encode("utf-8")
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            if self.path == "/truncated.txt":  # announces the whole file, sends half, hangs up
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload[: len(payload) // 2])
                self.wfile.flush()
                self.close_connection = True
            elif self.path == "/no-end.txt":  # complete as announced, but cut before the END line
                body = payload[: payload.index(b"*** END OF")]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path in ("/pg1342.txt", "/captcha.html"):
                body = payload if self.path == "/pg1342.txt" else b"<html>Are you a robot?</html>"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)

        def log_message(self, *args):  # keep the test output quiet
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def body_is_the_edition(monkeypatch):
    """Pretend the fake novel's body is the edition the notebooks were executed with."""
    monkeypatch.setattr(data, "EXPECTED_TEXT", text_identity(BODY))


# -- cleaning ---------------------------------------------------------------------------


def test_normalize_newlines():
    assert normalize_newlines("a\r\nb\rc\nd") == "a\nb\nc\nd"


def test_strip_gutenberg_keeps_only_the_body():
    assert strip_gutenberg(normalize_newlines(FAKE_GUTENBERG.lstrip("\ufeff"))) == BODY


def test_strip_gutenberg_leaves_text_without_markers_unchanged():
    text = "  [Illustration]\n\nChapter 1\n\n\n"
    assert strip_gutenberg(text) == text


def test_strip_gutenberg_markers_only_at_line_starts():
    text = "she said *** START OF nothing\nand went on.\n"
    assert strip_gutenberg(text) == text


def test_strip_gutenberg_start_marker_only():
    assert strip_gutenberg("header\n*** START OF X ***\nbody\n") == "body\n"


# -- finding the text ----------------------------------------------------------------------


def test_explicit_path_wins_over_env(no_env, tmp_path, monkeypatch):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("from the path\n", encoding="utf-8")
    b.write_text("from the env\n", encoding="utf-8")
    monkeypatch.setenv("RNN_CORE_TEXT", str(b))
    assert load_text(a) == "from the path\n"
    with pytest.warns(TextMismatchWarning):  # not the novel: said, and loaded all the same
        assert load_text() == "from the env\n"


def test_env_file_is_cleaned(no_env, tmp_path, monkeypatch):
    f = tmp_path / "pg.txt"
    f.write_bytes(FAKE_GUTENBERG.encode("utf-8"))
    monkeypatch.setenv("RNN_CORE_TEXT", str(f))
    with pytest.warns(TextMismatchWarning):
        assert load_text() == BODY


def test_missing_env_file_names_the_variable(no_env, tmp_path, monkeypatch):
    monkeypatch.setenv("RNN_CORE_TEXT", str(tmp_path / "nope.txt"))
    with pytest.raises(FileNotFoundError, match="RNN_CORE_TEXT"):
        load_text()


def test_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_text(tmp_path / "missing.txt")


def test_empty_file(tmp_path):
    f = tmp_path / "empty.txt"
    f.write_text("")
    with pytest.raises(ValueError, match="empty"):
        load_text(f)


def test_not_utf8(tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        load_text(f)


def test_cached_copy_is_used_without_network(no_env, body_is_the_edition):
    no_env.mkdir(parents=True)
    (no_env / CACHE_FILENAME).write_bytes(FAKE_GUTENBERG.encode("utf-8"))
    assert load_text(url="http://127.0.0.1:9/never-asked") == BODY


def test_download_fills_the_cache_then_reuses_it(no_env, server, body_is_the_edition):
    base, hits = server
    assert load_text(url=base + "/pg1342.txt") == BODY
    assert (no_env / CACHE_FILENAME).read_bytes() == FAKE_GUTENBERG.encode("utf-8")  # raw copy kept
    assert list(no_env.iterdir()) == [no_env / CACHE_FILENAME]  # no temporary file left behind
    assert load_text(url=base + "/pg1342.txt") == BODY
    assert hits == ["/pg1342.txt"]  # the second call read the cache


# -- the edition: a revised text is reported once, a truncated download never cached --------


def test_matching_text_loads_without_a_warning(no_env, server, body_is_the_edition):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        assert load_text(url=server[0] + "/pg1342.txt") == BODY


def test_revised_text_warns_once_with_both_identities(no_env, server):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # Python's own default: once per message and place
        assert load_text(url=server[0] + "/pg1342.txt") == BODY  # a warning, not an error
        assert load_text(url=server[0] + "/pg1342.txt") == BODY
    assert len(caught) == 1 and caught[0].category is TextMismatchWarning
    msg = str(caught[0].message)
    found = text_identity(BODY)
    assert EXPECTED_TEXT.sha256[:16] in msg and f"{EXPECTED_TEXT.n_chars:,} characters" in msg
    assert found.sha256[:16] in msg and f"{found.n_chars:,} characters, {found.vocab_size} distinct" in msg
    assert "will differ" in msg and str(no_env / CACHE_FILENAME) in msg
    assert (no_env / CACHE_FILENAME).is_file()  # the text is kept: any text can be trained on


def test_revised_text_from_the_environment_warns(no_env, tmp_path, monkeypatch):
    f = tmp_path / "other.txt"
    f.write_text("a revised edition\n", encoding="utf-8")
    monkeypatch.setenv("RNN_CORE_TEXT", str(f))
    with pytest.warns(TextMismatchWarning, match=r"the text in \$RNN_CORE_TEXT"):
        load_text()


def test_an_explicit_path_is_the_callers_choice(no_env, tmp_path):
    f = tmp_path / "shakespeare.txt"
    f.write_text("To be, or not to be\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_text(f) == "To be, or not to be\n"


@pytest.mark.skipif(not os.environ.get("RNN_CORE_TEXT"), reason="needs the novel ($RNN_CORE_TEXT)")
def test_the_recorded_edition_is_the_copy_the_tests_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error", TextMismatchWarning)
        text = load_text()
    assert text_identity(text) == EXPECTED_TEXT


def test_truncated_download_is_not_cached(no_env, server):
    with pytest.raises(TextUnavailableError, match="incomplete"):
        load_text(url=server[0] + "/truncated.txt")
    assert not no_env.exists() or list(no_env.iterdir()) == []  # no partial file left behind


def test_download_cut_before_the_end_marker_is_not_cached(no_env, server):
    with pytest.raises(TextUnavailableError, match=r"no '\*\*\* END OF' line: the download is incomplete"):
        load_text(url=server[0] + "/no-end.txt")
    assert not no_env.exists() or list(no_env.iterdir()) == []


def test_download_size_cap(no_env, server):
    base, _ = server
    with pytest.raises(TextUnavailableError, match="larger than 100 bytes"):
        load_text(url=base + "/pg1342.txt", max_bytes=100)
    assert not (no_env / CACHE_FILENAME).exists()


def test_download_that_is_not_a_gutenberg_text_is_not_cached(no_env, server):
    base, _ = server
    with pytest.raises(TextUnavailableError, match="not a Project Gutenberg text"):
        load_text(url=base + "/captcha.html")
    assert not (no_env / CACHE_FILENAME).exists()


def test_download_http_error(no_env, server):
    base, _ = server
    with pytest.raises(TextUnavailableError, match="HTTP 404"):
        load_text(url=base + "/missing.txt")


def test_offline_message_says_where_to_put_the_file(no_env):
    # port 9 (discard) on the loopback: nothing listens, the connection is refused at once
    with pytest.raises(TextUnavailableError) as info:
        load_text(url="http://127.0.0.1:9/pg1342.txt", timeout=2)
    msg = str(info.value)
    assert str(no_env / CACHE_FILENAME) in msg and "RNN_CORE_TEXT" in msg
    assert isinstance(info.value, FileNotFoundError)


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("RNN_CORE_CACHE", str(tmp_path))
    assert default_cache_dir() == tmp_path
    monkeypatch.delenv("RNN_CORE_CACHE")
    repo = Path(__file__).resolve().parent.parent
    assert default_cache_dir() == repo / "data"  # a source checkout


# -- splitting and batching ------------------------------------------------------------------


def test_split_is_90_10_and_in_order():
    ids = np.arange(1000)
    tr, va = split_train_val(ids)
    assert len(tr) == 900 and len(va) == 100
    assert np.array_equal(np.concatenate([tr, va]), ids)
    with pytest.raises(ValueError, match="val_fraction"):
        split_train_val(ids, 1.0)


def test_batcher_streams_are_contiguous_and_targets_shift_by_one():
    ids = np.arange(103)
    b = StreamBatcher(ids, batch_size=4, seq_length=5)
    L = (103 - 1) // 4
    assert b.stream_length == L == 25 and b.windows_per_pass == 5
    rows = [np.concatenate([b.window(k)[0][r] for k in range(b.windows_per_pass)]) for r in range(4)]
    for r in range(4):
        assert np.array_equal(rows[r], np.arange(r * L, r * L + 25))  # stream r, without gaps
    for k in range(b.windows_per_pass):
        X, Y = b.window(k)
        assert X.shape == Y.shape == (4, 5)
        assert np.array_equal(Y, X + 1)  # the target is the next character


def test_batcher_on_text():
    text = "abcdefghijklmnopqrstuvwxyz"
    v = Vocabulary.from_text(text)
    b = StreamBatcher(v.encode(text), batch_size=2, seq_length=3)
    X, Y = b.window(0)
    assert [v.decode(r) for r in X] == ["abc", "mno"]
    assert [v.decode(r) for r in Y] == ["bcd", "nop"]


def test_batcher_too_short():
    with pytest.raises(ValueError, match="too short"):
        StreamBatcher(np.arange(10), batch_size=4, seq_length=3)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        StreamBatcher(np.arange(10), batch_size=0, seq_length=3)
    with pytest.raises(IndexError):
        StreamBatcher(np.arange(13), batch_size=4, seq_length=3).window(1)
