"""Submissions written to fool the grader (issue 37): each wrong one scores zero, each right one full marks.

One repro per class of the hostile pass: a forged results file (and a process left behind to forge
it again after the grader has written it), delegation (sys.setprofile switched off and on, a thread
started in an earlier cell, a forked child), tampering (``__code__`` swapped in an earlier cell), a
crash (a closed stdout, SIGINT and SIGKILL to itself), hangs (a bare-except retry loop, a disarmed
alarm, a loop inside one C call), the review's rules (thresholds however written, a forged
coverage, introspection), and right variants (float32-safe, guards no case runs, kept in my_rnn.py,
11's repair graded without 04). Every submission is notebook 01 or 13 of the student
edition with its exercise cells filled in, graded in one run.
"""

import contextlib
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import numpy as np
import practice_answers as PA  # plain answers, written without rnn_core (tests/practice_answers.py)
import pytest
from test_grade import fill, right, write

from rnn_core.cli import main
from rnn_core.course import grade
from rnn_core.course.edition import write_student_edition

ROOT = Path(__file__).resolve().parent.parent
N01, N13 = "01-softmax-and-its-derivative.ipynb", "13-appendix-errata.ipynb"
WRONG = "def softmax(o):\n    e = np.exp(o)  # no shift: overflows near 1000\n    return e / e.sum()\n"
FALLBACK = "    e = np.exp(o)  # what it computes when the trick fails: no shift\n    return e / e.sum()\n"


def code(text):
    return textwrap.dedent(text).lstrip("\n")


def softmax_trying(body):
    """A softmax whose body tries ``body`` (a trick that returns the answer) and, when it fails, computes the
    unshifted softmax (FALLBACK)."""
    return "def softmax(o):\n    " + code(body).replace("\n", "\n    ") + "\n" + FALLBACK


# hostile37d, findings 1 and 4: code that no review rule reads (a pickle, a setup string) rewrites the child's coverage
# report, so that the branch of WRONG_PAST that no case ran reads as run
FORGE = """
import sys
M = sys.modules["__main__"]
def _fake(labels, _orig=M.lines_traced):
    start, stop, report = _orig(labels)
    def rep(ours):
        r = report(ours); r["lines"] = [[i, n] for i in range(len(labels)) for n in range(1, 60)]; r["traced"] = True
        return r
    return start, stop, rep
M.lines_traced = _fake
"""


class _Exec:
    def __reduce__(self):
        return (exec, (FORGE,))


BLOB = pickle.dumps(_Exec(), protocol=0)
WRONG_PAST = code("""
    def softmax(o):
        n = np.count_nonzero(o == o)  # a size counted: past 2**30 entries, no shift
        if n > np.finfo(float).maxexp ** 3:
            e = np.exp(o)
            return e / e.sum()
        e = np.exp(o - o.max())
        return e / e.sum()
    """)
MEMMAP_LOAD = code(f"""
    VOCAB = {BLOB!r}
    _m = np.memmap("vocab.pkl", np.uint8, "w+", shape=(len(VOCAB),))
    _m[:] = np.frombuffer(VOCAB, np.uint8)
    _m.flush()
    _vocab = np.load("vocab.pkl", allow_pickle=True)
    """)


_REAL = 'np._pytesttester.sys.modules["builtins"].__import__'
_ALLOWED = ("numpy", "math", "warnings", "functools", "itertools", "collections", "heapq", "operator", "rnn_core")


def past_the_allow_list(cell):
    """``cell`` with each ``import os, sys`` that the child's allow-list refuses turned into Python's own import,
    reached through numpy's attributes (``np._pytesttester.sys``), as a student would once `import os` is refused:
    so that each repro still tries the sandbox, the reaper and the crash handling behind the allow-list (rule d lists
    that reach, so none of them can pass). Every line keeps its number."""
    if cell is None:
        return None
    lines, first = cell.split("\n"), True
    for i, line in enumerate(lines):
        m = re.fullmatch(r"(\s*)import ([\w.]+(?:, [\w.]+)*)(\s*#.*)?", line)
        if not m or all(n.split(".")[0] in _ALLOWED for n in m.group(2).split(", ")):
            continue
        names = m.group(2).split(", ")
        bound = ", ".join(n.split(".")[0] for n in names)
        value = ", ".join(f'{_REAL}("{n}")' for n in names)
        prefix = f'open = {_REAL}("builtins").open; ' if first and not m.group(1) and "open(" in cell else ""
        first = first and bool(m.group(1))
        lines[i] = f"{m.group(1)}{prefix}{bound} = {value}"
    return "\n".join(lines)


def hostile(tmp):
    """{submission name: (softmax cell, helper cell before it or None)}: every one of them wrong."""
    forged = {"score": 2, "tests": [{"name": "softmax", "score": 1, "max_score": 1, "status": "passed"}]}
    return {
        # writes a perfect score where the results go, starts a process to write it again later, and exits
        "forged-results": (
            WRONG
            + code(f"""
            import json, os, time
            FORGED = {json.dumps(forged)!r}
            def put(path, text):  # the sandbox refuses it outside the child's folder: it goes on regardless
                try:
                    with open(path, "w") as f:
                        f.write(text)
                except OSError:
                    pass
            for path in ({str(tmp / "results.json")!r}, "results.json"):
                put(path, FORGED)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    for _ in range(600):
                        time.sleep(0.05)
                        put({str(tmp / "results.json")!r}, FORGED)
                os._exit(0)
            os._exit(0)
            """),
            None,
        ),
        # D1: the profiler switched off around a call of rnn_core's own softmax
        "d1-setprofile": (
            softmax_trying("""
                import sys
                saved = sys.getprofile()
                sys.setprofile(None)
                try:
                    from rnn_core.functions import softmax as theirs
                    return theirs(o)
                except Exception:
                    pass
                finally:
                    sys.setprofile(saved)
            """),
            None,
        ),
        # D1: a thread started in an earlier cell answers for the function
        "d1-thread": (
            "def softmax(o):\n    questions.put(o)\n    got = answers.get(timeout=1)\n"
            "    if got is not None:\n        return got\n" + FALLBACK,
            code("""
            import queue, threading
            questions, answers = queue.Queue(), queue.Queue()

            def serve():
                try:
                    import rnn_core
                    theirs = rnn_core.softmax
                except Exception:
                    theirs = None
                while True:
                    o = questions.get()
                    answers.put(theirs(o) if theirs else None)

            threading.Thread(target=serve, daemon=True).start()
            """),
        ),
        # D1: a forked child answers for the function, and lingers in a session of its own
        "d1-fork": (
            code("""
            import os
            def softmax(o):
                r, w = os.pipe()
                if os.fork() == 0:
                    os.setsid()
                    try:
                        import rnn_core
                        os.write(w, rnn_core.softmax(o).tobytes())
                    except Exception:
                        pass
                    os.close(w)
                    import time
                    time.sleep(120)
                    os._exit(0)
                os.close(w)
                data = os.read(r, 1 << 16)
                if data:
                    return np.frombuffer(data)
            """)
            + FALLBACK,
            None,
        ),
        # D2: an earlier cell swaps __code__ on every function named like the checker's, and on numpy's comparisons
        "d2-code-swap": (
            WRONG,
            code("""
            import gc
            def yes(*args, **kwargs):
                return True
            for obj in gc.get_objects():
                if callable(obj) and getattr(obj, "__name__", "") in ("check", "_check", "_differences", "allclose"):
                    try:
                        obj.__code__ = yes.__code__
                    except Exception:
                        pass
            for name in ("allclose", "array_equal"):
                try:
                    getattr(np, name).__code__ = yes.__code__
                except Exception:
                    pass
            """),
        ),
        # D4: SIGINT to itself, SIGKILL to itself
        "d4-sigint": (
            right("softmax").replace(
                "def softmax(o):\n", "def softmax(o):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGINT)\n"
            ),
            None,
        ),  # fmt: skip
        "d4-sigkill": (
            right("softmax").replace(
                "def softmax(o):\n",
                "def softmax(o):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n",
            ),
            None,
        ),  # fmt: skip
        # D5: hangs the checker's alarm cannot stop from inside
        "d5-bare-except": (
            "def softmax(o):\n    import time\n    while True:\n        try:\n            time.sleep(10)\n"
            "        except:  # noqa: E722\n            pass\n",
            None,
        ),
        "d5-disarmed-alarm": (
            "def softmax(o):\n    import signal\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "    signal.setitimer(signal.ITIMER_REAL, 0)\n    while True:\n        pass\n",
            None,
        ),
        "d5-one-c-call": (
            "def softmax(o):\n    import re\n    re.match(r'(a+)+$', 'a' * 64 + 'b')  # backtracks for ages, in C\n"
            + FALLBACK,
            None,
        ),
        # D1, fresh pass: the import blocker taken off sys.meta_path, site-packages put back, rnn_core's folder added
        "d1-site-main": (
            softmax_trying(f"""
                import site, sys
                try:
                    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_NoRnnCore"]
                    site.main()
                    sys.path.append({str(ROOT)!r})
                    import rnn_core
                    return rnn_core.softmax(o)
                except Exception:
                    pass
            """),
            None,
        ),
        # D1, fresh pass: rnn_core's source read as a file and run, no import at all
        "d1-source-read": (
            softmax_trying(f"""
                try:
                    with open({str(ROOT / "rnn_core" / "functions.py")!r}) as f:
                        lines = [line for line in f.read().splitlines() if not line.startswith("from .")]
                    mine = {{"np": np, "__name__": "mine"}}
                    exec("\\n".join(lines), mine)
                    return mine["softmax"](o)
                except Exception:
                    pass
            """),
            None,
        ),
        # D9, fresh pass: a memo that returns a view of the array it keeps (a caller who changes the result changes
        # the memo); the child copies every array it sends, so only its "shares" mark shows the sharing
        "d9-memo-view": (
            code("""
            _memo = {}
            def softmax(o):
                key = np.asarray(o).tobytes()
                if key not in _memo:
                    e = np.exp(o - np.max(o))
                    _memo[key] = e / e.sum()
                return _memo[key][:]
            """),
            None,
        ),
        # delegation by import, at the top of the cell
        "imports-rnn-core": ("from rnn_core import softmax\n", None),
        # the last pass: a shortcut beyond every published size (the grader's own large cases catch it), and one
        # beyond every size at all (only the source review sees it: right on every case, it scores zero)
        "size-threshold-200": (
            "def softmax(o):\n    if len(o) > 200:\n        return np.exp(o) / np.exp(o).sum()\n"
            "    e = np.exp(o - np.max(o))\n    return e / e.sum()\n",
            None,
        ),
        "size-threshold-beyond-every-case": (
            "LIMIT = 10**8\n\n\ndef softmax(o):\n    V = len(o)\n    if V > LIMIT:\n"
            "        return np.exp(o) / np.exp(o).sum()\n    e = np.exp(o - np.max(o))\n    return e / e.sum()\n",
            None,
        ),
        # hostile37b, finding 1 (w01_sm_boolname): the threshold's comparison kept in a name, the `if` testing the name;
        # the source review of comparisons missed it, the large number (rule a) names it (5000 once: not past every
        # case now)
        "h37b-threshold-in-a-name": (
            "def softmax(o):\n    big = o.size > 5000000\n    if big:\n        return np.exp(o) / np.exp(o).sum()\n"
            "    e = np.exp(o - np.max(o))\n    return e / e.sum()\n",
            None,
        ),
        # ... a threshold written with no large number at all (66 ** 4; 66 ** 2 once, before the grader's cases
        # reached V = 70,000): the lines no hidden case ran (rule b) name it
        "h37b-threshold-unwritten": (
            "def softmax(o):\n    if o.size > sum(range(12)) ** 4:\n        return np.exp(o) / np.exp(o).sum()\n"
            "    e = np.exp(o - np.max(o))\n    return e / e.sum()\n",
            None,
        ),
        # ... and the tracing of the lines switched off by the function itself: review too
        "h37b-tracing-off": (
            "import sys\n\n\ndef softmax(o):\n    sys.settrace(None)\n    e = np.exp(o - np.max(o))\n"
            "    return e / e.sum()\n",
            None,
        ),
        # hostile37c: the child held every given's source (a string of its module), the answers to three exercises
        "h37c-givens-source": (
            "import sys\n\n_ns = {'np': np}\nexec(sys.modules['__main__'].GIVENS, _ns)\n\n\n"
            "def softmax(o):\n    return _ns['softmax'](o)\n",
            None,
        ),
        # ... and a cell too deep for the parser (3,000 terms) ended the whole run: no results for anyone
        "h37c-too-deep-to-parse": ("X = " + "+".join(["1"] * 3000) + "\n\n\n" + WRONG, None),
        # hostile37, finding 1: a line of processes, each the child of the one before, deeper than the old reaper's
        # 100 rounds of one generation each (as nobody, the 64-process cap stops it sooner: the test still holds)
        "h37-line-of-processes": (
            WRONG,
            code("""
            import os, select, time
            _r, _w = os.pipe()
            if os.fork() == 0:
                os.setsid()
                _end = time.time() + 60
                for _ in range(150):
                    try:
                        if os.fork():
                            while time.time() < _end:
                                time.sleep(0.5)
                            os._exit(0)
                    except OSError:  # the process cap: the line ends here
                        break
                os.write(_w, b"deep")  # the bottom of the line: the cell goes on once the line is this deep
                while time.time() < _end:
                    time.sleep(0.5)
                os._exit(0)
            select.select([_r], [], [], 15)
            """),
        ),
        # hostile37, finding 2 (v/f06_bigready.py, 16 MB here): a message of its own on the grader's pipe, a header of
        # JSON that the grader's json.loads would have taken gigabytes for at 250 MB
        "h37-big-message": (
            code("""
            import os, struct, sys
            _W = int(sys.argv[3])
            _item = b'{"t":"plain","v":0},'
            _header = b'{"x":[' + _item * ((16 << 20) // len(_item)) + b'{"t":"plain","v":0}]}'
            _data = memoryview(struct.pack(">I", len(_header)) + _header)
            while _data:
                _data = _data[os.write(_W, _data):]
            """)
            + right("softmax"),
            None,
        ),
        # hostile37, finding 8 (v/f07_fake_ready.py): a forged ready message, with a first line no code has
        "h37-fake-ready": (
            code("""
            import json, os, struct, sys
            _fake = json.dumps({"ready": {"errors": [], "defined": True, "callable": True, "kind": "function",
                                          "first": 10 ** 30, "sandbox": 5}, "blobs": 0}).encode()
            os.write(int(sys.argv[3]), struct.pack(">I", len(_fake)) + _fake)
            """)
            + WRONG,
            None,
        ),
        # hostile37l, F06 and F07: np.array_equal replaced, so that the child would take an argument changed in place
        # for one left alone. Through an alias, which rule d does not follow: the child's own copy of numpy's functions
        # sees the change; and as written, which rule d lists
        "h37l-array-equal-through-an-alias": (
            code("""
            _m = np
            _m.array_equal = lambda a, b, equal_nan=False: True
            def softmax(o):
                o -= np.max(o)  # right numbers, but the caller's scores are changed
                e = np.exp(o)
                return e / e.sum()
            """),
            None,
        ),
        "h37l-array-equal-patched": (
            code("""
            np.array_equal = lambda a, b, equal_nan=False: True
            def softmax(o):
                o -= np.max(o)
                e = np.exp(o)
                return e / e.sum()
            """),
            None,
        ),
        # hostile37c, finding 3: thresholds no earlier rule saw, each past every size the hidden cases hold; rule c
        # (a size against a constant, however written) or rule a (any float of 64 or more; chains folded at any depth)
        "h37c-threshold-half-integer": (
            "def softmax(o):\n    e = np.exp(o - np.max(o) * (o.size < 49999999.5))\n    return e / e.sum()\n",
            None,
        ),
        "h37c-threshold-finfo": (
            "def softmax(o):\n    shift = np.max(o) if o.size < np.finfo(np.float64).maxexp ** 3 else 0.0\n"
            "    e = np.exp(o - shift)\n    return e / e.sum()\n",
            None,
        ),
        "h37c-threshold-scaled": (
            "def softmax(o):\n    full = o.size * 1e-9 < 0.5\n    e = np.exp(o - full * np.max(o))\n"
            "    return e / e.sum()\n",
            None,
        ),
        "h37c-threshold-bit-length": (
            "def softmax(o):\n    full = o.size.bit_length() < 31\n    e = np.exp(o - full * np.max(o))\n"
            "    return e / e.sum()\n",
            None,
        ),
        "h37c-threshold-slice-bound": (
            "def softmax(o):\n    e = np.exp(o - np.max(o[: np.iinfo(np.int32).max >> 4]))\n    return e / e.sum()\n",
            None,
        ),
        "h37c-threshold-deep-chain": (
            "LIMIT = " + "+".join(["1"] * 70) + "\n\n\ndef softmax(o):\n"
            "    e = np.exp(o - np.max(o) * (o.size < LIMIT ** 5))\n    return e / e.sum()\n",
            None,
        ),
        # hostile37c, finding 2 (f07_forge_coverage): the function marks its own unrun lines as run through the
        # tracer's __self__; the tracer is a closure now, and the introspection itself is listed (rule d)
        "h37c-forged-coverage": (
            code("""
            import sys
            def softmax(o):
                tr = getattr(sys.gettrace(), "__self__", None)
                if tr is not None:
                    for cell in tr.labels.values():
                        for line in range(1, 40):
                            if (cell, line) not in tr.seen:
                                tr.seen.add((cell, line)); tr.new.append([cell, line])
                if o.size > sum(range(12)) ** 4:
                    return np.exp(o) / np.exp(o).sum()
                e = np.exp(o - o.max())
                return e / e.sum()
            """),
            None,
        ),
        # hostile37d, findings 1 and 4 (f01, f03, f09): the import of pickle or timeit in a helper cell is refused at
        # run time (the allow-list holds for every cell run); np.load's pickle, and open(), are out of the cells' reach
        "h37d-pickle-in-a-helper": (WRONG_PAST, f"import pickle\n_cache = pickle.loads({BLOB!r})\n"),
        "h37d-timeit-in-a-helper": (
            WRONG_PAST,
            f"import timeit\ntimeit.timeit(stmt='pass', setup={FORGE!r}, number=1)\n",
        ),
        "h37d-np-load-tofile": (
            f"VOCAB = {BLOB!r}\nnp.frombuffer(VOCAB, np.uint8).tofile('vocab.pkl')\n"
            "_vocab = np.load('vocab.pkl', allow_pickle=True)\n\n" + WRONG_PAST,
            None,
        ),
        "h37d-np-load-memmap": (WRONG_PAST + "\n" + MEMMAP_LOAD, None),
        # hostile37e, finding 3 (f01_closure_forge): getattr copied into another name reaches sys through numpy, the
        # tracer through sys.gettrace(), and appends the unrun branch's lines to the tracer's own list. Rule d lists
        # every use of getattr but a call with a literal name; the child's sys.gettrace() no longer hands the tracer
        "h37e-closure-forge": (
            code("""
            def softmax(o):
                g = (getattr,)[0]
                s = g(g(np, "_pyte" + "sttester"), "s" + "ys")
                for c in g(g(s, "get" + "trace")(), "_" + "_closure__") or ():
                    f = c.cell_contents
                    for d in (g(f, "_" + "_closure__") or ()) if callable(f) else ():
                        v = d.cell_contents
                        if isinstance(v, list) and v and isinstance(v[0], list):
                            v += [[v[0][0], n] for n in (13, 14)]
                if not (o.size >> 21):
                    e = np.exp(o - np.max(o))
                else:
                    e = np.exp(o)
                    e = e + 0.0
                return e / e.sum()
            """),
            None,
        ),
        # hostile37f, finding 2 (g03_code_in_time_string): the wrong code in a string built at run time, run by the
        # child's stand-in for %time, which no review rule read. A %time line is now its statement before the review
        # reads the cell, and the stand-in runs no string: the answer is what its own code computes (a KeyError)
        "h37f-code-in-a-time-string": (
            'def softmax(o):\n    _box["o"] = o\n    get_ipython().run_line_magic("time", '
            + repr(
                "_o = _box['o']\n_e = np.exp(_o - np.max(_o) * (not (_o.size >> 21)))\n_box['r'] = _e / _e.sum()\n"[
                    ::-1
                ]
            )
            + '[::-1])\n    return _box["r"]\n',
            "_box = {}\n",
        ),
        # hostile37g, finding 2 (h01_dataclasses_exec): dataclasses._create_fn holds an exec, which ran wrong code
        # written as reversed strings (and, in h03, code that wrote the tracer's report). dataclasses is no longer an
        # allowed import, and the child's audit hook refuses to compile or run, while a cell's code runs, any code it
        # did not compile first (test_the_child_runs_no_code_made_while_a_cell_runs)
        "h37g-dataclasses-exec": (
            "import dataclasses\n_impl = dataclasses._create_fn('softmax', ['o'], [s[::-1] for s in "
            + repr([")))12 >> ezis.o( ton( * )o(xam.pn - o(pxe.pn = e", ")(mus.e / e nruter"])
            + "], globals={'np': np})\n\ndef softmax(o):\n    return _impl(o)\n",
            None,
        ),
        # hostile37h, finding 1: np.load's arrays do not own their data, a learner's do; the child now hands the
        # graded code copies, which do, so this shortcut (no shift) runs on every hidden case
        "h37h-owndata-gate": (
            "def softmax(o):\n    e = np.exp(o - np.max(o) * (1 - int(o.flags.owndata)))\n    return e / e.sum()\n",
            None,
        ),
        # hostile37, finding 3 (v/e02_timeouterror.py): the function's own TimeoutError, and its own ValueError
        "h37-own-timeouterror": ('def softmax(o):\n    raise TimeoutError("my own")\n', None),
        "h37-own-valueerror": ("def softmax(o):\n    return np.exp(o) @ np.ones((1, len(o)))  # a shape slip\n", None),
    }


RIGHT = {
    # hostile37h, finding 6d: numpy's lazily loaded modules (np.ma, np.random) compile code as they load, which the
    # child's audit hook refused once the cell ran; the child loads them first
    "right-lazy-numpy-modules": code("""
        def softmax(o):
            z = np.ma.getdata(o - np.max(o))
            e = np.exp(z) + 0.0 * np.random.default_rng(0).random()
            return e / e.sum()
        """),
    # hostile37e, findings 1 and 7 (r01-r04, r16, r32): a callee that is a call or a lambda crashed rule c ("the
    # grader itself failed"); a decorator's lines, run when the cell ran, were "never run" (rule b)
    "right-callee-calls": code("""
        import functools
        import math
        def quiet(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                with np.errstate(under="ignore"):
                    return fn(*args)
            return wrapper
        @quiet
        def softmax(o):
            e = np.vectorize(math.exp)(o - np.max(o)) * (lambda z: z)(1.0)
            e = getattr(np, "exp")(o - o.max()) * np.frompyfunc(math.exp, 1, 1)(0.0)
            return e / functools.partial(np.sum, axis=-1)(e)
        """),
    # hostile37d, finding 6 (r18, r23, r25, r30): the allowed imports, and a max taken in chunks of 8192
    "right-typing-chunked-max": code("""
        import copy
        from typing import Sequence

        def softmax(o: Sequence[float]) -> np.ndarray:
            o = copy.copy(np.asarray(o))
            top = -np.inf
            for i in range(0, o.size, 8192):
                top = max(top, o[i:i + 8192].max())
            e = np.exp(o - top)
            return e / e.sum()
        """),
    # float32-safe: computes in the input's own dtype, or float64 for integer scores (a hidden case holds some)
    "right-float32": code("""
        def softmax(o):
            o = np.asarray(o)
            dtype = np.result_type(o, np.float32)
            z = (o - np.max(o)).astype(dtype)
            e = np.exp(z, dtype=dtype)
            return (e / np.sum(e, dtype=dtype)).astype(dtype)
        """),
    # a right answer that checks its input's size, raising: not a branch the source review lists
    "right-validates": code("""
        def softmax(o):
            o = np.asarray(o, dtype=float)
            if o.size == 0 or o.ndim != 1:
                raise ValueError("softmax: o must be a non-empty vector")
            e = np.exp(o - np.max(o))
            return e / e.sum()
        """),
    # hostile37c, finding 7: guards careful students write, which no hidden case runs (rule b exempts them), and the
    # common overflow guard np.clip(z, -745, 0) (rule a exempts a clip's bounds where what it clips is no size)
    "right-empty-guard": code("""
        def softmax(o):
            if o.size == 0:
                return o.astype(float)
            e = np.exp(o - o.max())
            return e / e.sum()
        """),
    "right-asarray-guard": code("""
        def softmax(o):
            if not isinstance(o, np.ndarray):
                o = np.asarray(o, dtype=float)
            e = np.exp(o - o.max())
            return e / e.sum()
        """),
    "right-warns-on-nan": code("""
        import warnings
        def softmax(o):
            if np.isnan(o).any():
                warnings.warn("softmax got a nan score")
            z = np.clip(o - o.max(), -745, 0)
            e = np.exp(z)
            return e / e.sum()
        """),
    # hostile37, finding 9 (r_bang_continuation, r_percent_continuation): Black's layout puts `!=` and `%` at the start
    # of a line inside brackets, which is Python, not a shell line or a magic
    "right-black-continuations": code("""
        %load_ext autoreload
        def softmax(o):
            e = np.exp(o - np.max(o))
            if (
                e.ndim
                != 1
            ):
                raise ValueError("one vector")
            last = (len(o)
                    % 7)
            return e / e.sum() + 0 * last
        """),
    # hostile37, finding 9 (r_import_practice): practice imported at the top of the cell, to check below it
    "right-imports-practice": "from rnn_core import practice\n\n"
    + right("softmax")
    + '\n\npractice.check("softmax", softmax)\n',
    # hostile37b, finding 3 (r07): a %%time cell runs its body in the kernel, so its def is defined
    "right-cell-magic-time": "%%time\n" + right("softmax"),
    # ... (r06, r26): help lines before and after the def
    "right-help-lines": "np.exp?\n" + right("softmax") + "\nsoftmax?\n",
    # ... (r01): IPython's display, which every kernel has
    "right-display": 'display("softmax, shifted by the largest score")\n' + right("softmax"),
    # ... (r24): the other ways of importing practice (and a given beside it)
    "right-practice-imports": "from rnn_core.practice import check\nimport rnn_core.practice as practice\n"
    "from rnn_core import practice, one_hot\n\n" + right("softmax") + '\ncheck("softmax", softmax)\n',
}


# a right answer that closes stdout and stderr (D4): nothing the grader reads goes through them, so it costs no other
# exercise; `import sys` is refused now, so it reaches sys through numpy (np._pytesttester.sys), which rule d lists:
# softmax itself is review
CLOSES_STDOUT = right("softmax").replace(
    "def softmax(o):\n",
    "def softmax(o):\n    sys = np._pytesttester.sys\n    sys.stdout.close()\n    sys.stderr.close()\n",
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    source = base / "source"
    source.mkdir()
    for name in (N01, N13):
        shutil.copy(ROOT / "notebooks" / name, source / name)
    edition = base / "edition"
    write_student_edition(edition, source)
    jacobian = {"softmax_jacobian": right("softmax_jacobian")}  # right beside a crash: only softmax may fail
    subs, others = base / "subs", base / "others"
    for name, (cell, helper) in hostile(base).items():
        if not name.startswith("h37d-"):  # the allow-list is what h37d tries; the others go past it
            cell, helper = past_the_allow_list(cell), past_the_allow_list(helper)
        folder, answers = (
            (others, {"softmax": cell, **jacobian}) if name.startswith("d4") else (subs, {"softmax": cell})
        )
        write(folder / name, N01, fill(edition, N01, answers, {"softmax": helper} if helper else {}))
    for name, cell in RIGHT.items():
        write(others / name, N01, fill(edition, N01, {"softmax": cell, **jacobian}))
    write(others / "closes-stdout", N01, fill(edition, N01, {"softmax": CLOSES_STDOUT, **jacobian}))
    # answers kept in my_rnn.py beside a notebook whose cells are still the stubs
    write(others / "right-in-my-rnn", N01, fill(edition, N01, {}))
    (others / "right-in-my-rnn" / "my_rnn.py").write_text(
        "import numpy as np\n\n\n" + right("softmax") + "\n\n" + right("softmax_jacobian"), encoding="utf-8"
    )
    # hostile37, finding 4 (r02_myrnn_saved): answers kept in my_rnn.py made from its template, with the imports
    # practice.save adds where an answer used rnn_core's names (an older template's `from rnn_core import PARAM_NAMES`)
    from rnn_core.course.yours import TEMPLATE

    template = TEMPLATE.replace("import numpy as np\n", "import numpy as np\nimport rnn_core\n", 1)
    template = template.replace(
        "PARAM_NAMES = (", "from rnn_core import PARAM_NAMES, log_softmax  # as practice.save writes it\n_OLD = (", 1
    )
    saved = {
        "softmax": right("softmax"),
        "softmax_jacobian": "def softmax_jacobian(y_hat):\n    return np.diag(y_hat) - np.outer(y_hat, y_hat)"
        " + 0 * rnn_core.one_hot(0, len(y_hat))[0] + 0 * len(PARAM_NAMES)\n",
    }
    for name, answer in saved.items():
        template = re.sub(
            rf"def {name}\(.*?(?=\n\n\ndef )", lambda m, a=answer: a.rstrip("\n"), template, count=1, flags=re.S
        )
    write(others / "right-in-my-rnn-saved", N01, fill(edition, N01, {}))
    (others / "right-in-my-rnn-saved" / "my_rnn.py").write_text(template, encoding="utf-8")
    # ... and one whose softmax calls rnn_core's log_softmax: delegated, named; its other function still graded
    write(others / "my-rnn-calls-log-softmax", N01, fill(edition, N01, {}))
    (others / "my-rnn-calls-log-softmax" / "my_rnn.py").write_text(
        "import numpy as np\nfrom rnn_core import log_softmax\n\n\ndef softmax(o):\n    return np.exp(log_softmax(o))\n"
        "\n\n" + right("softmax_jacobian"),
        encoding="utf-8",
    )
    # hostile37b, finding 3 (r04, r05, r21): my_rnn.py with a byte-order mark, `def softmax (o):`, and a name bound
    write(others / "right-my-rnn-bom-spaced-bound", N01, fill(edition, N01, {}))
    (others / "right-my-rnn-bom-spaced-bound" / "my_rnn.py").write_text(
        "\ufeffimport numpy as np\n\n\n"
        + right("softmax").replace("def softmax(", "def softmax (")
        + "\n\n"
        + right("softmax_jacobian").replace("def softmax_jacobian(", "def _jacobian(")
        + "\n\nsoftmax_jacobian = _jacobian\n",
        encoding="utf-8",
    )
    # hostile37, finding 9 (r03_backup_myrnn): a stale backup/my_rnn.py beside the right one: the shallowest is read
    write(others / "right-my-rnn-beside-a-backup", N01, fill(edition, N01, {}))
    (others / "right-my-rnn-beside-a-backup" / "my_rnn.py").write_text(
        "import numpy as np\n\n\n" + right("softmax") + "\n\n" + right("softmax_jacobian"), encoding="utf-8"
    )
    (others / "right-my-rnn-beside-a-backup" / "backup").mkdir()
    (others / "right-my-rnn-beside-a-backup" / "backup" / "my_rnn.py").write_text(
        "import numpy as np\n\n\n" + WRONG, encoding="utf-8"
    )
    # a second hostile pass (finding 7): my_rnn.py a symbolic link to the repository's plain answers scored 19/19;
    # a notebook linked to a classmate's copies their score; (finding 8) my_rnn.py linked to /dev/zero ended the run
    write(others / "linked-my-rnn", N01, fill(edition, N01, {}))
    (others / "linked-my-rnn" / "my_rnn.py").symlink_to(ROOT / "tests" / "plain_my_rnn.py")
    (others / "linked-notebook").mkdir()
    (others / "linked-notebook" / N01).symlink_to(others / "right-my-rnn-beside-a-backup" / N01)
    write(others / "my-rnn-a-device", N01, fill(edition, N01, {}))
    (others / "my-rnn-a-device" / "my_rnn.py").symlink_to("/dev/zero")
    # hostile37d, finding 1 (f04): my_rnn.py that imports pickle after its softmax: refused at run time
    write(others / "h37d-my-rnn-pickle", N01, fill(edition, N01, {}))
    (others / "h37d-my-rnn-pickle" / "my_rnn.py").write_text(
        "import numpy as np\n\n\n" + WRONG_PAST + f"\n\nimport pickle\n_cache = pickle.loads({BLOB!r})\n",
        encoding="utf-8",
    )
    # hostile37, finding 9 (r_import_matplotlib): a plotting library at the top of the cell: zero, and said plainly
    plotted = "import matplotlib.pyplot as plt\n\n" + right("softmax") + "\n\nplt.plot(softmax(np.arange(3.0)))\n"
    write(others / "imports-matplotlib", N01, fill(edition, N01, {"softmax": plotted, **jacobian}))
    # 13's repair, right, graded without 04: its function is named in its check cell
    repaired = right("loss_and_grads").replace("def loss_and_grads(", "def loss_and_grads_char_rnn(")
    nb = nbformat.read(edition / N13, as_version=4)
    stub = next(c for c in nb["cells"] if "def loss_and_grads_char_rnn(" in c["source"])
    stub["source"], stub["outputs"] = repaired, []
    write(others / "right-13-alone", N13, nb)

    results = base / "results.json"
    hostile_ones = sorted(str(p) for p in subs.iterdir())
    args = ["--seed", "5", "--jobs", "2"]
    sites, places = [], grade._places

    def recorded():  # the folder of each run's child script: every process a submission started has it in its cmdline
        found = places()
        sites.append(found.folder)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grade, "_places", recorded)
        assert main(["grade", *hostile_ones, "--exercises", "softmax", *args, "--json", str(results)]) == 0
        assert (
            main(["grade", *sorted(str(p) for p in others.iterdir()), *args, "--json", str(base / "others.json")]) == 0
        )
    (base / "sites.json").write_text(json.dumps(sites), encoding="utf-8")
    time.sleep(0.5)  # a forger left behind would have written again by now
    data = json.loads(results.read_text(encoding="utf-8"))
    data["submissions"] += json.loads((base / "others.json").read_text(encoding="utf-8"))["submissions"]
    by = {Path(s["submission"]).name: {t["name"]: t for t in s["results"]["tests"]} for s in data["submissions"]}
    return base, by, data


@pytest.mark.parametrize("name", sorted(hostile(Path("/tmp"))))
def test_each_hostile_submission_scores_zero(graded, name):
    _, by, _ = graded
    softmax = by[name]["softmax"]
    assert softmax["score"] == 0 and softmax["extra_data"]["status"] != "passed", softmax["output"]
    assert "grader itself failed" not in softmax["output"]  # the submission is blamed, never the grader
    if name.startswith("d4"):  # a crash of softmax's costs only softmax: the notebook's other exercise passes
        assert by[name]["softmax_jacobian"]["score"] == 1, by[name]["softmax_jacobian"]["output"]


@pytest.mark.parametrize(
    "name",
    [
        *sorted(RIGHT),
        "right-in-my-rnn",
        "right-in-my-rnn-saved",
        "right-my-rnn-beside-a-backup",
        "right-my-rnn-bom-spaced-bound",
    ],
)
def test_each_right_variant_scores_full_marks(graded, name):
    _, by, _ = graded
    for exercise in ("softmax", "softmax_jacobian"):
        assert by[name][exercise]["score"] == by[name][exercise]["max_score"] == 1, by[name][exercise]["output"]
    if name.startswith(("right-in-my-rnn", "right-my-rnn")):
        assert "my_rnn.py's softmax was graded instead" in by[name]["softmax"]["output"]
        assert "(my_rnn.py," in by[name]["softmax"]["output"]  # the top one, not backup/my_rnn.py
    if name == "right-in-my-rnn-saved":  # the file's rnn_core imports are named, and what the grader did with them
        assert "my_rnn.py imports rnn_core" in by[name]["softmax_jacobian"]["output"]


@pytest.mark.parametrize("name", ["linked-my-rnn", "linked-notebook", "my-rnn-a-device"])
def test_a_linked_or_special_file_is_not_read_and_the_run_goes_on(graded, name):
    _, by, _ = graded
    for exercise in ("softmax", "softmax_jacobian"):
        assert by[name][exercise]["score"] == 0, by[name][exercise]["output"]
    if name == "linked-notebook":
        assert "is a symbolic link" in by[name]["softmax"]["output"]


def test_a_my_rnn_function_that_calls_rnn_core_is_delegated_and_named_the_others_graded(graded):
    _, by, _ = graded
    softmax = by["my-rnn-calls-log-softmax"]["softmax"]
    assert softmax["extra_data"]["status"] == "delegated" and softmax["score"] == 0, softmax["output"]
    assert "softmax calls rnn_core.log_softmax" in softmax["output"]
    jacobian = by["my-rnn-calls-log-softmax"]["softmax_jacobian"]
    assert jacobian["score"] == 1, jacobian["output"]


def test_a_plotting_import_in_the_cell_scores_zero_and_says_why(graded):
    _, by, _ = graded
    softmax = by["imports-matplotlib"]["softmax"]
    assert softmax["score"] == 0 and softmax["extra_data"]["status"] == "missing", softmax["output"]
    message = softmax["output"].split("\n\n")[0]
    assert "No module named 'matplotlib'" in message and "a cell of their own" in message
    assert by["imports-matplotlib"]["softmax_jacobian"]["score"] == 1


def test_11_s_repair_graded_without_04_scores_full_marks(graded):
    _, by, _ = graded
    test = by["right-13-alone"]["loss_and_grads"]
    assert test["score"] == 1, test["output"]
    assert "Graded: loss_and_grads_char_rnn" in test["output"]


def test_the_reasons_blame_the_submission(graded):
    _, by, _ = graded
    reason = {name: by[name]["softmax"]["output"] for name in by}
    assert "ended its process (exit code 0)" in reason["forged-results"]
    assert "KeyboardInterrupt" in reason["d4-sigint"]
    assert "killed by SIGKILL" in reason["d4-sigkill"]
    for name in ("d5-bare-except", "d5-disarmed-alarm", "d5-one-c-call"):
        assert "still running after 6 s" in reason[name], reason[name]
    assert by["imports-rnn-core"]["softmax"]["extra_data"]["status"] == "delegated"
    # hostile37, finding 3: the function's own exceptions, as it raised them (not a broken pipe, not a hang)
    assert "raised TimeoutError: my own" in reason["h37-own-timeouterror"], reason["h37-own-timeouterror"]
    assert "raised ValueError: matmul" in reason["h37-own-valueerror"], reason["h37-own-valueerror"]
    for name in ("h37-own-timeouterror", "h37-own-valueerror"):
        assert "EndedItsProcess" not in reason[name] and "still running" not in reason[name]
    # findings 2 and 8: a message of the cell's own on the grader's pipe is blamed on it (never on the grader)
    assert "more than the grader reads" in reason["h37-big-message"], reason["h37-big-message"]
    assert "a message of its own on the grader's pipe" in reason["h37-fake-ready"], reason["h37-fake-ready"]


def test_no_forged_score_and_no_process_left_behind(graded):
    base, by, _ = graded
    results = json.loads((base / "results.json").read_text(encoding="utf-8"))
    assert results["grader"].startswith("rnn_core")  # the grader's own file, written after the forger died
    assert by["forged-results"]["softmax"]["score"] == 0
    sites = json.loads((base / "sites.json").read_text(encoding="utf-8"))
    assert sites
    left = []  # the forger and the forked child (in sessions of their own) were killed and reaped: not even zombies
    for entry in (p for p in Path("/proc").iterdir() if p.name.isdigit()):
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if any(site in cmdline for site in sites):
            left.append((entry.name, cmdline))
    assert not left, left


def test_the_child_has_numpy_and_the_standard_library_only(tmp_path):
    """The child process's sys.path: Python's own folders and one holding numpy, no site-packages, no rnn_core."""
    places = grade._places()
    try:
        cell = code("""
            sys = np._pytesttester.sys  # `import sys` is refused (the allow-list): numpy's attribute is not

            def importable(name):
                for finder in sys.meta_path:
                    try:
                        if finder.find_spec(name, None) is not None:
                            return True
                    except ImportError:
                        return False
                return False

            def f():
                return [list(sys.path), [n for n in ("rnn_core", "torch", "pytest") if importable(n)]]

            def g():
                import os  # loaded in the child, and refused all the same

                return os.getpid()
            """)
        job = {"cells": [["<probe>", cell]], "function": "f", "givens": []}
        child = grade._Child(job, grade._Limits(), places)
        path, found = child.call(())
        child.close()
        job["function"] = "g"
        child = grade._Child(job, grade._Limits(), places)
        with pytest.raises(ImportError, match="the grader refuses `import os`"):
            child.call(())
        refused = child.refused
        child.close()
    finally:
        shutil.rmtree(places.folder, ignore_errors=True)
    assert found == [] and not any("site-packages" in p for p in path), path
    assert refused == [["a call", "os"]]


def test_as_root_the_child_runs_as_nobody_or_the_results_say_why_not():
    places = grade._places()
    try:
        user = grade._sandbox_user(places)
        probe = "os = np._pytesttester.os  # past the allow-list\n\ndef f():\n    return os.getuid()\n"
        job = {"cells": [["<probe>", probe]], "function": "f", "givens": []}
        child = grade._Child(job, grade._Limits(), places)
        uid = child.call(())
        child.close()
    finally:
        shutil.rmtree(places.folder, ignore_errors=True)
    if os.geteuid() != 0:
        assert user is None and uid == os.getuid()
    elif user is not None:
        assert uid == user != 0
    else:  # root, and nobody cannot run this Python (here: a Python under /root): said in every result
        assert uid == 0 and "cannot run" in places.note


def test_a_size_threshold_fails_on_the_large_cases_or_is_withheld_for_review(graded):
    _, by, _ = graded
    beyond = by["size-threshold-200"]["softmax"]
    assert beyond["extra_data"]["status"] == "wrong", beyond["output"]
    assert "a size beyond the published cases" in beyond["output"]
    assert "review: branches on the input's size at line 2 of cell" in beyond["output"]
    hidden = by["size-threshold-beyond-every-case"]["softmax"]
    assert hidden["extra_data"]["status"] == "review" and hidden["score"] == 0, hidden["output"]
    assert "review: branches on the input's size at line 6 of cell" in hidden["output"]
    assert "`if V > LIMIT:`" in hidden["output"]
    assert "review" not in by["right-validates"]["softmax"]["output"]


def test_the_series_answers_have_no_size_branch():
    import re

    from rnn_core.course.solutions import SOLUTIONS

    for name, solution in SOLUTIONS.items():
        function = re.findall(r"^def (\w+)", solution.code, re.M)[-1]
        assert grade.size_branches([["answer", solution.code]], function, grade._SIZE_ARGUMENTS.get(name)) == [], name


@pytest.mark.parametrize(
    "source, function, found",
    [
        ("def one_hot(y, V):\n    if V > 128:\n        return 0\n    return 1\n", "one_hot", [2]),
        ("def f(o):\n    for t in range(len(o)):\n        if t > 100:\n            break\n", "f", [3]),
        ("def f(p, g, state, lr):\n    t = state['t'] + 1\n    return 1 if t > 1000 else 2\n", "f", [3]),
        ("S_MAX = 32\ndef f(h, u, m):\n    B, S, H = u.shape\n    if S > S_MAX:\n        return h\n", "f", [4]),
        ("def g(x):\n    return 1 if x.shape[0] > 99 else 0\ndef f(x):\n    return g(x)\n", "f", [2]),
        ("def f(x):\n    return x[: min(len(x), 100)]\n", "f", [2]),
        ("def f(x, cap=64):\n    n = x.size\n    while n > cap:\n        n //= 2\n    return n\n", "f", [3]),
        ("def f(x):\n    if len(x) == 0:\n        raise ValueError('empty')\n    return x\n", "f", []),
        ("def f(x):\n    if x.ndim == 1:\n        x = x[None]\n    return x if len(x) > 1 else x[0]\n", "f", []),
        ("def f(x, t):\n    return x if t > 5 else -x\n", "f", []),  # t is an argument, not a size
        ("def f(o):\n    r = np.ndim(o)\n    return o if r == 2 or len(o.shape) == 3 else o[None]\n", "f", []),
        ("def f(o):\n    return o if o.ndim == 2 and o.shape[0] > 64 else o[None]\n", "f", [2]),
    ],
    ids=["num_classes", "loop-index", "adam-t", "named-constant", "in-a-helper", "min-cap", "default", "raises",
         "0-and-1", "not-a-size", "ranks", "rank-and-size"],
)  # fmt: skip
def test_the_source_review_lists_comparisons_of_sizes_with_numbers(source, function, found):
    size_argument = 1 if function == "one_hot" else None
    assert [line for _, line, _ in grade.size_branches([["c", source]], function, size_argument)] == found


def test_the_notebooks_answer_cells_have_no_size_branch():
    import re

    found = 0
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4)["cells"]:
            names = [t.split(":", 1)[1] for t in cell.get("metadata", {}).get("tags", []) if t.startswith("answer:")]
            if not names:
                continue
            text = "\n".join(re.sub(r"^> ?", "", line) for line in cell["source"].split("\n"))
            code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
            function = re.findall(r"^def (\w+)", code, re.M)[-1]
            size_argument = grade._SIZE_ARGUMENTS.get(names[0])
            assert grade.size_branches([["answer", code]], function, size_argument) == [], (path.name, names[0])
            found += 1
    assert found >= len(grade._exercises())  # every exercise's answer cell was read


def test_a_threshold_however_written_is_withheld_for_review(graded):
    """hostile37b, finding 1: a large number names the threshold (rule a), the lines no case ran name one written
    without any (rule b), and tracing switched off is review itself."""
    _, by, _ = graded
    expected = {
        "h37b-threshold-in-a-name": "numbers of 64 or more, or a size in bytes, at line 2 of cell",
        "h37b-threshold-unwritten": "code that no hidden case ran at line 3 of cell",
        "h37b-tracing-off": "the lines it runs could not be followed",
    }
    for name, words in expected.items():
        softmax = by[name]["softmax"]
        assert softmax["extra_data"]["status"] == "review" and softmax["score"] == 0, softmax["output"]
        assert words in softmax["output"], softmax["output"]
    for name in RIGHT:  # the right variants ran every line, and hold no large number
        assert "review" not in by[name]["softmax"]["output"], by[name]["softmax"]["output"]


@pytest.mark.parametrize(
    "source, found",
    [
        ("def f(o):\n    big = o.size > 5000\n    return o if big else -o\n", [2]),
        ("def f(o):\n    return (g, h)[o.size < 5000](o)\ndef g(o):\n    return o\ndef h(o):\n    return -o\n", [2]),
        ("def f(o):\n    if o.nbytes > 40000:\n        return o\n    return -o\n", [2]),
        ("def f(o):\n    if o.size - 5000 > 0:\n        return o\n    return -o\n", [2]),
        ("_huge = lambda n: n > 5000\ndef f(o):\n    return o if _huge(len(o)) else -o\n", [1]),
        ('LIMIT = int("5000")\ndef f(o):\n    return o if len(o) > LIMIT else -o\n', [1]),
        ("def f(W):\n    return W if W.nbytes > 8 * 10**6 else -W\n", [2]),
        ("def f(o):\n    return o[: 1 << 12]\n", [2]),
        ("def f(o):\n    return o if len(o) > 5e3 else -o\n", [2]),
        ("def f(o):\n    return o if len(o) > 2 ** len('abcdefghijkl') else -o\n", [2]),
        ("def f(g):\n    return g.ravel()[:10**7]\n", [2]),
        ("def f(h, u, m):\n    return np.where(m, h @ u.T, -1e9) + np.where(m, 0, -1e30)\n", []),  # fill values
        ("def f(p, lr=1e-3, eps=1e-8):\n    return p - lr * p / (1e-12 + eps)\n", []),
        ("def f(o):\n    if len(o) > 100000:\n        raise ValueError('at most 100000 scores')\n    return o\n", [2]),
        ("def f(o):\n    assert len(o) < 10**9, 'too long'\n    return o\n", []),
    ],
    ids=["in-a-name", "index", "nbytes", "minus", "lambda", "digit-string", "folded", "shift", "float", "len", "slice",
         "fill-values", "small-floats", "raise-test", "assert"],
)  # fmt: skip
def test_rule_a_lists_large_numbers_however_the_threshold_is_written(source, found):
    assert [line for _, line, _ in grade.large_numbers([["c", source]], "f")] == found


def test_the_series_answers_hold_no_large_number():
    import re

    from rnn_core.course.solutions import SOLUTIONS

    for name, solution in SOLUTIONS.items():
        function = re.findall(r"^def (\w+)", solution.code, re.M)[-1]
        assert grade.large_numbers([["answer", solution.code]], function) == [], name
    plain = (ROOT / "tests" / "plain_my_rnn.py").read_text(encoding="utf-8")
    for name in grade._exercises():
        assert grade.large_numbers([["plain", plain]], name.replace(".", "_")) == [], name


def test_rule_b_does_not_list_a_global_statement():
    """hostile37f, q24: a right softmax that counts its calls in a global went to review: `global` holds no code that
    a tracer could see run."""
    source = "calls = 0\n\ndef softmax(o):\n    global calls\n    calls += 1\n    e = np.exp(o - o.max())\n"
    source += "    return e / e.sum()\n"
    assert grade.unrun_lines([["c", source]], "softmax", {("c", n) for n in (5, 6, 7)}) == []


def test_rule_b_lists_the_statements_no_call_ran():
    source = code("""
        def f(o, mask=None):
            \"\"\"A docstring.\"\"\"
            if mask is None:
                mask = np.ones_like(o)
            if o.ndim != 1:
                raise ValueError("one vector")
            try:
                out = g(o) * mask
            except FloatingPointError:
                raise
            return out

        def g(o):
            return o
        """)
    ran = {("c", n) for n in (3, 5, 8, 11, 14)}  # mask given on every call; g ran
    # an argument's default, one assignment to it under `is None`, is not listed: the cases give every argument
    assert grade.unrun_lines([["c", source]], "f", ran) == []
    early = {("c", 3), ("c", 4), ("c", 5)}  # it stopped before the try
    assert [line for _, line, _ in grade.unrun_lines([["c", source]], "f", early)] == [8, 11, 14]
    # anything more under `is None` is a branch like any other
    other = source.replace("mask = np.ones_like(o)", "return o")
    assert [(line, text) for _, line, text in grade.unrun_lines([["c", other]], "f", ran)] == [(4, "return o")]


@pytest.mark.parametrize(
    "cell, python",
    [
        ("%%time\ndef f():\n    pass", "# %%time: its body runs\ndef f():\n    pass"),
        ("%%capture\n%%time\nx = 1", "# %%capture: its body runs\n# %%time: its body runs\nx = 1"),
        ("%%timeit\ndef f():\n    pass", "pass  # a cell magic: not run by the grader"),  # IPython keeps no def of it
        # hostile37f, finding 2: a %time line is its statement, which the review reads (not a string the child runs)
        ("def f(o):\n    %time y = o.size >> 21\n    return y", "def f(o):\n    y = o.size >> 21\n    return y"),
        ("from rnn_core.practice import check", "check = __grader_practice__.check  # checks nothing here"),
        ("import rnn_core.practice as p", "p = __grader_practice__  # checks nothing here"),
        (
            "from rnn_core import practice, one_hot",
            "practice = __grader_practice__; one_hot = __grader_rnn_core__.one_hot  # checks nothing here",
        ),
        ("from rnn_core import practice, hint", "from rnn_core import practice, hint"),  # fails, as in a kernel
    ],
    ids=["time", "capture-time", "timeit", "time-line", "from-practice", "import-as", "with-a-given", "not-public"],
)
def test_cells_become_the_python_ipython_runs(cell, python):
    assert grade._as_python(cell) == python


def test_help_lines_do_nothing_and_keep_every_line_s_number():
    python = grade._as_python("np.exp?\ndef f(o):\n    return o\n??f\nf?")
    assert python.split("\n")[1:3] == ["def f(o):", "    return o"] and len(python.split("\n")) == 5
    assert "?" not in python.replace("'", "").replace("pinfo", "")
    compile(python, "cell", "exec")


@pytest.mark.parametrize(
    "source, defined",
    [
        ("def softmax (o):\n    return o\n", True),
        ("def stable(o):\n    return o\n\nsoftmax = stable\n", True),
        ("def softmax_jacobian(y):\n    return y\n", False),
        ("def softmax(o)\n    return o\n", True),  # a syntax error: graded, so that the error is reported
        ("class A:\n    def softmax(self, o):\n        return o\n", False),
    ],
    ids=["spaced", "bound", "other-name", "syntax-error", "a-method"],
)
def test_my_rnn_s_function_is_found_by_ast(source, defined):
    assert grade._defines(source, "softmax") is defined


def test_hostile37c_thresholds_a_forged_coverage_and_the_right_guards(graded):
    """hostile37c, findings 3, 2 and 7: thresholds written with no number the old rules saw are review (rule c, or
    rule a for a non-integral float and a chain past the old folding depth); a function that reaches the tracer is
    review (rule d); guards no case runs, and a clip's bounds, are not."""
    _, by, _ = graded
    constant = "a size of the inputs used for more than a count, a mean or a scaling at line"
    expected = {
        "h37c-threshold-half-integer": "numbers of 64 or more, or a size in bytes, at line 2 of cell",
        "h37c-threshold-finfo": constant,
        "h37c-threshold-scaled": constant,
        "h37c-threshold-bit-length": constant,
        "h37c-threshold-slice-bound": constant,
        "h37c-threshold-deep-chain": "numbers of 64 or more, or a size in bytes, at line 1 of cell",
        "h37c-forged-coverage": "code that inspects or changes the process it runs in at line 1 of cell",
    }
    for name, words in expected.items():
        softmax = by[name]["softmax"]
        assert softmax["extra_data"]["status"] == "review" and softmax["score"] == 0, (name, softmax["output"])
        assert words in softmax["output"], (name, softmax["output"])
    assert '`tr = getattr(sys.gettrace(), "__self__", None)`' in by["h37c-forged-coverage"]["softmax"]["output"]
    assert "code that no hidden case ran" in by["h37c-forged-coverage"]["softmax"]["output"]  # the forgery failed
    for name in ("right-empty-guard", "right-asarray-guard", "right-warns-on-nan"):
        assert by[name]["softmax"]["extra_data"]["status"] == "passed", by[name]["softmax"]["output"]


def test_hostile37d_code_no_rule_reads_never_runs_and_scores_zero(graded):
    """hostile37d, findings 1 and 4: a pickle or a setup string that would rewrite the child's report never runs. The
    import of pickle or timeit, in a helper cell or my_rnn.py, is refused at run time and named (review); np.load's
    pickle and open() are not the cells' to call; the threshold itself is listed too (rule c: a counted size)."""
    _, by, _ = graded
    expected = {
        "h37d-pickle-in-a-helper": ("review", "imports the grader refuses: `pickle`"),
        "h37d-timeit-in-a-helper": ("review", "imports the grader refuses: `timeit`"),
        "h37d-np-load-tofile": ("missing", "open() is not available to the graded code"),
        "h37d-np-load-memmap": ("review", "Failed to interpret file 'vocab.pkl' as a pickle"),  # pickle.load refused
        "h37d-my-rnn-pickle": ("review", "imports the grader refuses: `pickle`"),
    }
    for name, (status, words) in expected.items():
        softmax = by[name]["softmax"]
        assert softmax["extra_data"]["status"] == status and softmax["score"] == 0, (name, softmax["output"])
        assert words in softmax["output"], (name, softmax["output"])
    for name in ("h37d-pickle-in-a-helper", "h37d-timeit-in-a-helper", "h37d-np-load-memmap"):
        assert "code that no hidden case ran" in by[name]["softmax"]["output"]  # the coverage was not forged
        assert "used for more than a count, a mean or a scaling" in by[name]["softmax"]["output"]


def test_a_reply_naming_lines_no_code_holds_is_tampered():
    """hostile37d, finding 1: the parent accepts only lines of the cells' code objects (it compiles the same
    sources); a reply that names others was written by the submission's code, and the exercise is review."""
    source = "def softmax(o):\n    if o.size > 10**9:\n        return o\n    return o - o\n"
    child = object.__new__(grade._Child)
    child.labels, child.lines = ["cell"], grade._code_lines([["cell", source]])
    child.ran, child.untraced, child.tampered, child.refused = set(), None, None, []
    child._lines({"lines": [[0, 1], [0, 2], [0, 4]], "traced": True, "refused": [["cell", "pickle"]]})
    assert child.tampered is None and child.ran == {("cell", 1), ("cell", 2), ("cell", 4)}
    assert child.refused == [["cell", "pickle"]]
    child._lines({"lines": [[0, n] for n in range(1, 60)], "traced": True})
    assert "line 5 of cell" in child.tampered
    ex = grade._Exercise("softmax", "softmax", "01.ipynb", 3, [["cell", source]], {"cell": "cell 3"})
    outcome = grade._reviewed(ex, {"status": "passed", "message": "", "ran": child.ran, "tampered": child.tampered})
    assert outcome["status"] == "review" and "the child's report was tampered with" in outcome["message"]


@pytest.mark.parametrize(
    "rule, source, found",
    [
        # rule c (findings 2 and 3): counted sizes, constants a loop built at the top level, a statistic, a dtype
        ("c", "def f(o):\n    return o * (np.count_nonzero(o == o) < np.finfo(float).maxexp ** 2)\n", [2]),
        ("c", "def f(xs):\n    n = sum(1 for _ in xs)\n    return xs[max(0, n - np.finfo(float).maxexp * 2):]\n", [3]),
        ("c", "def f(o):\n    return o * (np.ones_like(o).sum() < 1 << 20)\n", [2]),
        ("c", "CAP = 1\nfor _ in range(20):\n    CAP *= 2\ndef f(o):\n    return o * (o.size < CAP)\n", [5]),
        ("c", "def f(o):\n    return o - o.max() * (np.ptp(o) < np.finfo(float).maxexp * 4)\n", [2]),
        ("c", "def f(o):\n    return o - o.max() * (o.dtype == np.float64)\n", [2]),
        ("c", "EPS = 1e-12\ndef f(g, c=5.0):\n    n = np.sqrt(g @ g)\n    return g * min(1, c / max(n, EPS))\n", []),
        ("c", "def f(o):\n    if o.dtype != np.float64:\n        o = o.astype(np.float64)\n    return o\n", []),
        ("c", "def f(o):\n    return np.where(o == -np.inf, 0.0, o) + (o > -745)\n", [2]),
        # rule a (finding 6): a loop in chunks that visits every element; a 0/1 mask cast to a narrow type
        ("a", "def f(o):\n    t = -np.inf\n    for i in range(0, o.size, 8192):\n"
         "        t = max(t, o[i:i + 8192].max())\n    return t\n", []),
        ("a", "def f(y):\n    for s in range(0, len(y), 256):\n        r = slice(s, s + 256)\n        y[r] = 0\n", []),
        ("a", "def f(o):\n    for i in range(0, o.size, 8192):\n        o[i:i + 4096] = 0\n", [2, 3]),
        ("a", "def f(d, keep, rate):\n    return d * keep.astype(np.uint8) / (1 - rate)\n", []),
        ("a", "def f(d, y, rate):\n    return d * y.astype(np.uint8)\n", [2]),  # not a mask argument: listed
        # rule d (findings 1 and 4): bytes, code in a string, np.load, numpy's attributes that are modules
        ("d", "B = b'c__builtin__\\nexec'\ndef f(o):\n    return o\n", [1]),
        ("d", "S = 'import sys\\nM = sys.modules'\ndef f(o):\n    return o\n", [1]),
        ("d", "def f(o):\n    return np.load('v.npy', allow_pickle=True) + o\n", [2]),
        ("d", "def f(o):\n    return np.lib.format.sys and o\n", [2]),
        ("d", "def f(o):\n    return np.lib.format.read_array and o\n", [2]),
        ("d", "import functools\ndef f(o):\n    return functools.reduce(getattr, [chr(115)], np) and o\n", [3]),
        ("d", "def f(o):\n    \"The softmax of o (shifted by o.max()).\"\n    return o\n", []),
    ],
)  # fmt: skip
def test_the_rules_after_hostile37d(rule, source, found):
    masks = (1,) if "keep" in source else ()
    run = {
        "a": lambda s: grade.large_numbers(s, "f", masks),
        "c": lambda s: grade.size_comparisons(s, "f"),
        "d": lambda s: grade.introspection(s, "f"),
    }[rule]
    assert [line for _, line, _ in run([["c", source]])] == found


def test_closing_stdout_costs_only_its_own_exercise_and_its_sys_is_review(graded):
    _, by, _ = graded
    softmax = by["closes-stdout"]["softmax"]
    assert softmax["extra_data"]["status"] == "review" and softmax["score"] == 0, softmax["output"]
    assert (
        "inspects or changes the process" in softmax["output"] and "`sys = np._pytesttester.sys`" in softmax["output"]
    )
    assert "grader itself failed" not in softmax["output"]
    assert by["closes-stdout"]["softmax_jacobian"]["score"] == 1, by["closes-stdout"]["softmax_jacobian"]["output"]


@pytest.mark.parametrize(
    "source, size_argument, found",
    [
        ("def f(o):\n    return o * (o.size < np.finfo(o.dtype).maxexp)\n", (), [2]),
        ("def f(g):\n    cap = np.iinfo(np.uint16).max\n    return g.ravel()[:cap]\n", (), [3]),
        ("def f(y):\n    full = y.size * 1e-3 < 1.5\n    return y * full\n", (), [2, 3]),
        ("def f(y):\n    return y * (y.size.bit_length() < 11)\n", (), [2]),
        ("import math\ndef f(o):\n    return o * float(math.log2(len(o)) < 12.5)\n", (), [3]),
        ("def f(a):\n    S = a.shape[1]\n    return a * (np.arange(S) < np.finfo(float).maxexp // 4)\n", (), [3]),
        ("def f(x):\n    T = len(x)\n    w = np.finfo(float).maxexp\n    return x[max(0, T - w):]\n", (), [4]),
        ("def f(o, y, lengths):\n    return np.minimum(lengths, np.finfo(float).maxexp // 2)\n", (2,), [2]),
        ("K = 1 + 1\ndef f(o):\n    B, T = o.shape\n    return o if T < K ** 9 else -o\n", (), [4]),
        ("def f(x):\n    T = len(x)\n    return [x[t] for t in range(T) if t < T - 1]\n", (), []),  # a loop index
        ("def f(x, k):\n    T = len(x)\n    return [x[max(0, t - k)] for t in range(T)]\n", (), []),
        ("def f(x):\n    if len(x) == 0 or x.ndim == 3 or x.shape[0] > 1:\n        return x\n    return x[1:-2]\n",
         (), []),  # fmt: skip
        ("def f(x):\n    T = len(x)\n    return x[max(T - 1, 0)] + np.clip(x, -500, 500).sum()\n", (), []),
    ],
    ids=["finfo", "iinfo-slice", "scaled", "bit-length", "log2", "arange", "window", "lengths", "deep-name",
         "loop-index", "argument", "trivial", "clip-values"],
)  # fmt: skip
def test_rule_c_lists_a_size_against_a_constant_however_written(source, size_argument, found):
    assert [line for _, line, _ in grade.size_comparisons([["c", source]], "f", size_argument)] == found


@pytest.mark.parametrize(
    "source, found",
    [
        ("def f(o):\n    return np.exp(o - np.max(o) * (not (o.size >> 21)))\n", [2]),
        ("def f(o):\n    return o * (1 - o.size.bit_length() // 22)\n", [2]),
        ("def f(o):\n    n = (o == o).sum()\n    return o * (np.log2(n) < 21)\n", [3]),
        ("def f(u):\n    few = np.log2(np.flatnonzero(u == u)[-1] + 1) < 16\n    return u * few\n", [2, 3]),
        ("def f(d):\n    n = np.ones_like(d).cumsum()[-1]\n    return d ** float(np.log2(n) < 20)\n", [3]),
        ("def f(gs):\n    for k, _ in enumerate(gs, 1):\n        pass\n    return float(np.log2(k) >= 9)\n", [4]),
        ("def bits(n):\n    return int(n).bit_length()\ndef f(o):\n    return o * (bits(o.size) < 22)\n", [4]),
        ("def f(o):\n    return np.exp(o - np.max(o) * (np.log10(np.ptp(o)) < 5.5))\n", [2]),
        ("def f(x):\n    N = len(x)\n    return x.sum() / N + x[max(1, N) - 1]\n", []),  # a mean, a cap at 1
        ("def f(x):\n    T = len(x)\n    return [x[T - 1 - t] * 2 for t in range(T)]\n", []),  # an index
    ],
    ids=["not-shift", "bit-length-floordiv", "self-compare-sum", "flatnonzero", "cumsum", "enumerate-after",
         "helper", "log-ptp", "mean", "reversed-index"],
)  # fmt: skip
def test_rule_c_lists_a_derived_size_used_as_a_threshold_without_a_large_constant(source, found):
    """hostile37e, findings 2 and 4: a size or a spread through a shift, a bit length, a log or a helper is listed
    when compared with any constant or used as a number; a size used as a number plainly is not."""
    assert [line for _, line, _ in grade.size_comparisons([["c", source]], "f")] == found


@pytest.mark.parametrize(
    "source, found",
    [
        ("def f(o):\n    return o if o.size < 4999.5 else -o\n", [2]),  # a float need not be integral
        ("L = " + "+".join(["1"] * 70) + "\ndef f(o):\n    return o if o.size < L else -o\n", [1]),  # past depth 50
        ("def f(o):\n    return np.exp(np.clip(o - o.max(), -745, 0))\n", []),  # a clip's bounds
        ("def f(s, m):\n    return np.where(m, s, -10**9) + np.full(s.shape, -1000.0)\n", []),  # fills
        ("def f(o):\n    return o[: np.clip(o.size, 0, 5000)]\n", [2]),  # a clip of a size is no fill
        ("def f(y):\n    return np.asarray(y).astype(np.int16)\n", [2]),  # an index type too narrow for every size
    ],
    ids=["half-integer", "deep-chain", "clip-bounds", "fills", "clip-of-a-size", "int16"],
)  # fmt: skip
def test_rule_a_after_hostile37c(source, found):
    assert [line for _, line, _ in grade.large_numbers([["c", source]], "f")] == found


@pytest.mark.parametrize(
    "source, found",
    [
        ("import sys\ndef f(o):\n    return o\n", [1]),
        ("def f(o):\n    return getattr(g, name)(o)\n", [2]),
        ("def f(o):\n    return f.__code__ and o\n", [2]),
        ("def f(o):\n    return getattr(f, '__globals__') and o\n", [2]),
        ("def f(o):\n    return g(o)\ndef g(o):\n    return eval('o')\n", [4]),
        ("def h():\n    return open('x')\nh()\ndef f(o):\n    return o\n", [2]),  # called at the top level
        (
            "import numpy.linalg as la, math, heapq\nfrom collections import deque\nimport warnings\n"
            "def f(o):\n    return getattr(o, 'T') if __name__ == '__main__' else o\n",
            [],
        ),  # fmt: skip
    ],
    ids=["import-sys", "computed-getattr", "dunder", "dunder-string", "reached-eval", "top-level-call", "allowed"],
)
def test_rule_d_lists_code_that_inspects_the_process(source, found):
    assert [line for _, line, _ in grade.introspection([["c", source]], "f")] == found


def test_rule_b_exempts_guards_no_case_runs_and_lists_any_other_unrun_branch():
    source = code("""
        def f(o, lr, grads):
            if not isinstance(o, np.ndarray):
                o = np.asarray(o, dtype=float)
            if o.size == 0 or np.isnan(o).any():
                return o.copy()
            if lr == 0:
                warnings.warn("nothing to do")
            if not grads:
                return o
            if o.size > 9:
                return -o
            return o
        """)
    ran = {("c", n) for n in (2, 4, 6, 8, 10, 12)}  # every test ran; no guard's block did, nor line 11
    assert [line for _, line, _ in grade.unrun_lines([["c", source]], "f", ran)] == [11]
    hidden = source.replace("return o.copy()", "o = o[:1]\n        print(o)")  # a print: no longer a guard
    ran = {("c", n) for n in (2, 4, 7, 9, 11, 13)}
    assert [line for _, line, _ in grade.unrun_lines([["c", hidden]], "f", ran)] == [5, 6, 12]


@pytest.mark.parametrize(
    "line",
    [
        "g = (getattr,)[0]",
        "g = next(iter([getattr]))",
        "g = {0: getattr}[0]",
        "(g := getattr)",
        "g = functools.reduce(getattr, ['a'], np)",
        "g = operator.attrgetter('exp')",
        "g = operator.methodcaller('sum')",
        "g = vars(np)",
        "g = dir(np)",
        "g = type('T', (), {})",
        "g = setattr",
    ],
)
def test_rule_d_lists_getattr_and_its_kin_anywhere_but_a_call_with_a_literal_name(line):
    """hostile37e, finding 3: getattr copied into another name (any load of it that is not `getattr(x, "name")`)."""
    source = f"def f(o, h=hasattr):\n    {line}\n    return getattr(o, 'T')\n"
    assert [n for _, n, _ in grade.introspection([["c", source]], "f")] == [1, 2]
    plain = "def f(o):\n    return getattr(np, 'exp')(o) if hasattr(o, 'T') else o\n"
    assert grade.introspection([["c", plain]], "f") == []
    loop = "def f(o):\n    for g in (getattr,):\n        pass\n    return o\n"
    assert [n for _, n, _ in grade.introspection([["c", loop]], "f")] == [2]


def _exercise(sources):
    labels = {label: f"cell {i + 1}" for i, (label, _) in enumerate(sources)}
    return grade._Exercise("softmax", "softmax", "n.ipynb", 1, [list(s) for s in sources], labels)


def test_the_review_is_linear_bounded_in_time_and_never_fails_the_grader():
    """hostile37e, finding 6: rule d was quadratic in a cell's top-level statements (1,500 took 77 s); the 1,000-term
    sum's RecursionError failed the grader. Now: seconds; past its budget "too long to review"; a rule that raises,
    review ("the grader could not read this code"), never "the grader itself failed"."""
    body = "def softmax(o):\n    e = np.exp(o - o.max())\n    return e / e.sum()\n"
    passed = {"status": "passed", "message": "softmax: passed.", "ran": {("c", 2), ("c", 3)}, "untraced": None}
    many = "".join(f"a{i} = {i}\n" for i in range(1500)) + body.replace("o.max()", "o.max() + a7 * 0")
    began = time.monotonic()
    out = grade._reviewed(_exercise([("h", many), ("c", body)]), dict(passed), 60.0)
    assert time.monotonic() - began < 15 and out["status"] == "passed", out
    out = grade._reviewed(_exercise([("c", body)]), dict(passed), 0.0)
    assert out["status"] == "review" and "too long to review" in out["message"], out
    long_sum = "Z = " + " + ".join(["0"] * 1000) + "\n"
    out = grade._reviewed(_exercise([("h", long_sum), ("c", body.replace("o.max()", "o.max() + Z"))]), dict(passed))
    assert out["status"] == "review" and "could not read this code" in out["message"], out


def test_rule_b_counts_the_lines_run_while_the_cells_ran_only_for_functions_no_call_entered():
    """hostile37e, finding 7: a decorator's lines and a helper run at the top level ran before the calls."""
    source = code("""
        def quiet(fn):
            def wrapper(*args):
                return fn(*args)
            return wrapper
        @quiet
        def f(o):
            if o.size > 9:
                return -o
            return o
        """)
    ran = {("c", n) for n in (3, 7, 9)}  # the calls: wrapper's body and f's, not line 8
    early = {("c", n) for n in (2, 4, 7, 8)}  # the cell's run: quiet's body, and f run at the top level
    assert [n for _, n, _ in grade.unrun_lines([["c", source]], "f", ran, early)] == [8]
    assert [n for _, n, _ in grade.unrun_lines([["c", source]], "f", ran)] == [2, 4, 8]


# the end of two right masked losses below (after the mask m and its count N)
_MASKED_LOSS_TAIL = (
    "    s = o - o.max(axis=-1, keepdims=True)\n"
    "    logp = s - np.log(np.exp(s).sum(axis=-1, keepdims=True))\n"
    "    lp = np.take_along_axis(logp, y[..., None], axis=-1)[..., 0]\n"
    "    p = np.exp(logp)\n"
    "    np.put_along_axis(p, y[..., None], np.take_along_axis(p, y[..., None], axis=-1) - 1.0, axis=-1)\n"
    "    return float(-(lp * m).sum() / N), p * m[..., None] / N\n"
)


# hostile37f, finding 3: wrong answers that switch on a size or a spread through steps rule c did not name (round,
# len(str(n)), sqrt, exp, tanh, isqrt, float16, a while-loop counter, a helper given the array); and finding 4: right
# answers fix37j listed (a helper building an array from a size, a shift used only to slice). Rule c alone, no grader.
_HOSTILE37F = [
    (  # n01_sm_round.py
        "softmax",
        "",
        ("def softmax(o):\n    e = np.exp(o - np.max(o) * (not round(o.size * 2.5e-7)))\n    return e / e.sum()\n"),
        True,
    ),
    (  # n02_sm_digits.py
        "softmax",
        "",
        ("def softmax(o):\n    e = np.exp(o - np.max(o) * (1 - len(str(o.size)) // 8))\n    return e / e.sum()\n"),
        True,
    ),
    (  # n03_sm_sqrt4.py
        "softmax",
        "",
        (
            "def softmax(o):\n"
            "    e = np.exp(o - np.max(o) * (1 - int(np.sqrt(np.sqrt(o.size))) // 38))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n04_sm_exp.py
        "softmax",
        "",
        ("def softmax(o):\n    e = np.exp(o - np.max(o) * round(np.exp(-o.size * 3e-7)))\n    return e / e.sum()\n"),
        True,
    ),
    (  # n05_sm_isqrt.py
        "softmax",
        "",
        (
            "import math\n"
            "def softmax(o):\n"
            "    e = np.exp(o - np.max(o) * (1 - math.isqrt(math.isqrt(o.size)) // 38))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n06_sm_while.py
        "softmax",
        "",
        (
            "def softmax(o):\n"
            "    b, m = 0, o.size\n"
            "    while m:\n"
            "        m //= 2\n"
            "        b += 1\n"
            "    e = np.exp(o - np.max(o) * (b < 22))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n07_sm_helper_arr.py
        "softmax",
        "",
        (
            "def width(a):\n"
            "    return a.size.bit_length()\n"
            "def softmax(o):\n"
            "    e = np.exp(o - np.max(o) * (width(o) < 22))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n08_sm_f16ptp.py
        "softmax",
        "",
        (
            "def softmax(o):\n"
            "    e = np.exp(o - np.max(o) * np.isfinite(np.float16(np.ptp(o) * 0.2)))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n10_sm_tanh.py
        "softmax",
        "",
        (
            "def softmax(o):\n"
            "    e = np.exp(o - np.max(o) * (1 - round(np.tanh(o.size * 2.5e-7))))\n"
            "    return e / e.sum()\n"
        ),
        True,
    ),
    (  # n11_ce_f16.py
        "cross_entropy_grad",
        "",
        (
            "def cross_entropy_grad(o, y):\n"
            "    do = softmax(o)\n"
            "    do[y] -= float(np.isfinite(np.float16(o.size * 3.0)))\n"
            "    return do\n"
        ),
        True,
    ),
    (  # n18_gn_f16.py
        "global_norm",
        "",
        (
            "def global_norm(grads):\n"
            "    total = 0.0\n"
            "    for k, g in enumerate(grads.values()):\n"
            "        total += float(np.sum(g * g)) * np.isfinite(np.float16(k * 32.0))\n"
            "    return float(np.sqrt(total))\n"
        ),
        True,
    ),
    (  # n27_ad_round.py
        "adam_update",
        "",
        (
            "def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):\n"
            '    t = state["t"] + 1\n'
            "    late = bool(round(t * 2.5e-7))\n"
            "    new_params, m, v = {}, {}, {}\n"
            "    for name in params:\n"
            "        g = grads[name]\n"
            '        m[name] = beta1 * state["m"][name] + (1.0 - beta1) * g\n'
            '        v[name] = beta2 * state["v"][name] + (1.0 - beta2) * g * g\n'
            "        m_hat = m[name] / (1.0 - beta1**t * (not late))\n"
            "        v_hat = v[name] / (1.0 - beta2**t * (not late))\n"
            "        new_params[name] = params[name] - lr * m_hat / (np.sqrt(v_hat) + eps)\n"
            '    return new_params, {"t": t, "m": m, "v": v}\n'
        ),
        True,
    ),
    (  # n33_bs_f16.py
        "seq2seq.beam_step",
        "",
        (
            "def seq2seq_beam_step(log_p, log_probs, beam_size):\n"
            "    K, V = log_probs.shape\n"
            "    total = (log_p[:, None] * np.isfinite(np.float16(V * 50.0)) + log_probs).ravel()\n"
            '    best = np.argsort(-total, kind="stable")[:beam_size]\n'
            "    return best // V, best % V, total[best]\n"
        ),
        True,
    ),
    (  # n42_oh_round.py
        "one_hot",
        "",
        (
            "def one_hot(y, num_classes):\n"
            "    y = np.asarray(y)\n"
            "    out = np.zeros(y.shape + (num_classes,))\n"
            "    np.put_along_axis(out, (y * (not round(num_classes * 2.5e-4)))[..., None], 1.0, axis=-1)\n"
            "    return out\n"
        ),
        True,
    ),
    (  # n43_oh_digits.py
        "one_hot",
        "",
        (
            "def one_hot(y, num_classes):\n"
            "    y = np.asarray(y)\n"
            "    out = np.zeros(y.shape + (num_classes,))\n"
            "    np.put_along_axis(out, (y * (1 - len(str(num_classes)) // 5))[..., None], 1.0, axis=-1)\n"
            "    return out\n"
        ),
        True,
    ),
    (  # q01_ls_shift_quarter.py
        "lstm.step_forward",
        "",
        (
            "def lstm_step_forward(params, x_t, h_prev, c_prev):\n"
            '    a = params["W_h"] @ h_prev + params["b"] + params["W_x"][:, x_t]\n'
            "    H = a.shape[0] >> 2\n"
            "    sg = lambda z: 1.0 / (1.0 + np.exp(-z))\n"
            "    i, f, q = sg(a[:H]), sg(a[H:2 * H]), sg(a[3 * H:])\n"
            "    g = np.tanh(a[2 * H:3 * H])\n"
            "    c = f * c_prev + i * g\n"
            "    h = q * np.tanh(c)\n"
            '    return h, c, {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "q": q, "c": c}\n'
            ""
        ),
        False,
    ),
    (  # q02_ml_helper_mask.py
        "seq2seq.masked_loss_and_grad",
        (
            "def token_mask(lengths, T):\n"
            '    """(B, T) 1.0 where t < lengths[b]"""\n'
            "    return (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)\n"
        ),
        (
            "def seq2seq_masked_loss_and_grad(o, y, lengths):\n"
            "    B, T, V = o.shape\n"
            "    m = token_mask(lengths, T)\n"
            "    N = m.sum()\n" + _MASKED_LOSS_TAIL
        ),
        False,
    ),
    (  # q03_lg_helper_onehot.py
        "loss_and_grads",
        ("def onehot(i, n):\n    v = np.zeros(n)\n    v[i] = 1.0\n    return v\n"),
        (
            "def loss_and_grads(params, inputs, targets, h0):\n"
            '    T, V = len(inputs), params["b_o"].shape[0]\n'
            "    hs, y_hats, loss = [h0], [], 0.0\n"
            "    for t in range(T):\n"
            '        h = np.tanh(params["W_xh"][:, inputs[t]] + params["W_hh"] @ hs[-1] + params["b_h"])\n'
            "        hs.append(h)\n"
            '        y_hat = softmax(params["W_yh"] @ h + params["b_o"])\n'
            "        y_hats.append(y_hat)\n"
            "        loss -= np.log(y_hat[targets[t]])\n"
            "    grads = {k: np.zeros_like(v) for k, v in params.items()}\n"
            "    dh_later = np.zeros_like(h0)\n"
            "    for t in reversed(range(T)):\n"
            "        do = y_hats[t] - onehot(targets[t], V)\n"
            '        grads["W_yh"] += np.outer(do, hs[t + 1]); grads["b_o"] += do\n'
            '        dh = params["W_yh"].T @ do + dh_later\n'
            "        delta = (1.0 - hs[t + 1] ** 2) * dh\n"
            '        grads["W_xh"][:, inputs[t]] += delta\n'
            '        grads["W_hh"] += np.outer(delta, hs[t]); grads["b_h"] += delta\n'
            '        dh_later = params["W_hh"].T @ delta\n'
            "    return float(loss), grads, hs[-1], dh_later\n"
        ),
        False,
    ),
    (  # q04_ce_own_onehot.py
        "cross_entropy_grad",
        ("def onehot(y, n):\n    out = np.zeros(n)\n    out[y] = 1.0\n    return out\n"),
        ("def cross_entropy_grad(o, y):\n    return softmax(o) - onehot(y, len(o))\n"),
        False,
    ),
    (  # q05_sj_helper_eye.py
        "softmax_jacobian",
        ("def identity(n):\n    return np.eye(n)\n"),
        ("def softmax_jacobian(y_hat):\n    return y_hat[:, None] * (identity(y_hat.size) - y_hat[None, :])\n"),
        False,
    ),
    (  # q08_bs_helper_unravel.py
        "seq2seq.beam_step",
        ("def split_index(flat, V):\n    return flat // V, flat % V\n"),
        (
            "def seq2seq_beam_step(log_p, log_probs, beam_size):\n"
            "    K, V = log_probs.shape\n"
            "    total = (log_p[:, None] + log_probs).ravel()\n"
            '    best = np.argsort(-total, kind="stable")[:beam_size]\n'
            "    rows, cols = split_index(best, V)\n"
            "    return rows, cols, total[best]\n"
        ),
        False,
    ),
    (  # q12_sf_helper_col.py
        "step_forward",
        ("def column(W, i, n):\n    e = np.zeros(n)\n    e[i] = 1.0\n    return W @ e\n"),
        (
            "def step_forward(params, x_t, h_prev):\n"
            '    V = params["W_xh"].shape[1]\n'
            '    return np.tanh(column(params["W_xh"], x_t, V) + params["W_hh"] @ h_prev + params["b_h"])\n'
        ),
        False,
    ),
    (  # q16_ml_count_nonzero.py
        "seq2seq.masked_loss_and_grad",
        "",
        (
            "def seq2seq_masked_loss_and_grad(o, y, lengths):\n"
            "    B, T, V = o.shape\n"
            "    m = np.arange(T)[None, :] < np.asarray(lengths)[:, None]\n"
            "    N = np.count_nonzero(m)\n" + _MASKED_LOSS_TAIL
        ),
        False,
    ),
]
_HOSTILE37F_IDS = [
    "round",
    "digits",
    "sqrt-sqrt",
    "exp",
    "isqrt",
    "while-counter",
    "helper-given-array",
    "float16-ptp",
    "tanh",
    "float16-size",
    "float16-index",
    "adam-round",
    "beam-float16",
    "one-hot-round",
    "one-hot-digits",
    "right-shift-quarter",
    "right-helper-mask",
    "right-helper-onehot",
    "right-own-onehot",
    "right-helper-eye",
    "right-helper-unravel",
    "right-helper-column",
    "right-count-nonzero",
]


@pytest.mark.parametrize("exercise, helper, cell, wrong", _HOSTILE37F, ids=_HOSTILE37F_IDS)
def test_rule_c_follows_a_size_through_any_step_and_lists_only_what_a_size_may_not_do(exercise, helper, cell, wrong):
    """fix37k: rule c is a taint analysis. A size (or a value statistic) through a non-smooth step that reaches
    anything but a shape, a count, an index or a comparison with another size is listed, however the step is
    spelled; a size used plainly, or handed to a helper that builds an array from it, is not."""
    sources = [["helper", helper], ["c", cell]] if helper else [["c", cell]]
    size_arguments = grade._C_SIZE_ARGUMENTS.get(exercise, ())
    found = grade.size_comparisons(sources, exercise.replace(".", "_"), size_arguments)
    assert bool(found) == wrong, found


@pytest.mark.parametrize(
    "source, found",
    [
        ("def f(o):\n    return o * (o.size.bit_length() < 22)\n", [2]),
        ("def f(o):\n    n = o.size\n    return o * np.array([1.0, 0.0])[round(n * 1e-7)]\n", [3]),  # a table
        ("def f(o):\n    t = np.float16(np.ptp(o) * 0.2)\n    return o - o.max() * np.isfinite(t)\n", [3]),
        ("def f(o):\n    n = o.size\n    return o / max(1, round(n * 5e-7))\n", [3]),  # a stepped divisor
        ("def f(o):\n    return o[: o.shape[0] >> 2] * 2.0\n", []),  # a slice bound
        ("def f(o):\n    H = len(o) // 4\n    return np.zeros((H, 4)) + o[H:2 * H].sum()\n", []),  # a shape
        ("def f(x):\n    n = int(len(x))\n    return x.sum() / max(n, 1) + x[n - 1]\n", []),  # a plain count
        ("def f(q, k):\n    d = q.shape[-1]\n    return q @ k.T / np.sqrt(d)\n", []),  # a scaling
        ("def f(o):\n    if o.ndim == 3:\n        return o[0]\n    return o\n", []),  # a number of axes
        ("def f(g):\n    flat = g.ravel()\n"
         "    return sum(p.sum() for p in np.array_split(flat, max(1, flat.size // 4096)))\n", []),  # r21: blocks
        ("def f(s):\n    m = (s * (1.0 / np.sqrt(s.shape[-1]))).max(-1)\n    return np.where(np.isfinite(m), m, 0.0)\n",
         []),  # a scaled value checked for -inf
        ("def f(t, V):\n    b = np.argsort(-t)[: t.shape[0]]\n    return np.divmod(b, t.shape[1])\n", []),
        ("def f(o):\n    n, b = o.size, 0\n    while n:\n        n //= 2\n        b += 1\n"
         "    return o * (b < 22)\n", [3, 6]),
    ],
    ids=["bit-length", "table", "float16-spread", "stepped-divisor", "slice", "shape", "count", "sqrt-d", "ndim",
         "split-count", "scaled-isfinite", "divmod", "while-counter"],
)  # fmt: skip
def test_rule_c_whitelist_of_what_a_size_may_do(source, found):
    assert [line for _, line, _ in grade.size_comparisons([["c", source]], "f")] == found


def test_the_child_runs_no_code_made_while_a_cell_runs():
    """hostile37g, finding 2: while a cell's code runs, the child's audit hook refuses to compile or run code that the
    grader did not compile first (exec reached through a module, dataclasses._create_fn), and adds no other hook;
    namedtuple's template and code outside the cells are not refused."""
    script = code("""
        import sys
        from collections import namedtuple
        from rnn_core.course import grade_child

        cell = compile(
            "import builtins, dataclasses\\n"
            "def made():\\n"
            "    return dataclasses._create_fn('f', [], ['return 1'], globals={})\\n"
            "def run():\\n"
            "    return builtins.eval('1 + 1')\\n"
            "def hook():\\n"
            "    sys.addaudithook(lambda *a: seen.append(a))\\n"
            "def pair():\\n"
            "    return namedtuple('Pair', 'a b')(1, 2)\\n",
            "cell 3",
            "exec",
        )
        sys.addaudithook(grade_child._no_code_at_run_time([cell], ["cell 3"], ()))
        seen = []
        namespace = {"sys": sys, "namedtuple": namedtuple, "seen": seen}
        exec(cell, namespace)
        for name in ("made", "run"):
            try:
                namespace[name]()
                print(name, "ran")
            except PermissionError:
                print(name, "refused")
        namespace["hook"]()  # not added (an audit hook that raises RuntimeError stops it, silently)
        print("pair", namespace["pair"]().b, "outside", eval("2 + 2"), "seen", len(seen))
        """)
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.stdout.splitlines() == ["made refused", "run refused", "pair 2 outside 4 seen 0"], (
        run.stdout + run.stderr
    )


@pytest.mark.parametrize(
    "function, source",
    [
        (
            "softmax",
            "def softmax(o):\n    if o.size:\n        e = np.exp(o - o.max())\n        return e / e.sum()\n"
            "    return o\n",
        ),
        (
            "f",
            "def f(hs, h0):\n    out = 0\n    for t in range(len(hs)):\n        h = hs[t - 1] if t else h0\n"
            "        out = out + h\n    return out\n",
        ),
    ],
    ids=["empty-guard", "first-step"],
)
def test_rule_c_leaves_a_size_s_own_truth_alone(function, source):
    """hostile37g, q05 and q01: `if o.size` and `hs[t - 1] if t else h0` test a size against 0, as `t > 0` does,
    which rule c leaves alone; a stepped size as a test is listed."""
    assert grade.size_comparisons([["c", source]], function) == []
    stepped = source.replace("if o.size:", "if round(o.size * 2.5e-7):").replace("if t else", "if t // 99 else")
    assert grade.size_comparisons([["c", stepped]], function) != []


_SM = "def softmax(o):\n    e = np.exp(o - np.max(o) * (1 - {gate}))\n    return e / e.sum()\n"
_COUNTER = '_count = {"n": 0}\ndef _calls():\n    _count["n"] += 1\n    return _count["n"]\n'


@pytest.mark.parametrize(
    "gate, helper",
    [
        ("(lambda x: min(1, round(x)))(o.size * 2.5e-07)", None),
        ("(abs(2 * o.size * 2.5e-07 - 1) + 2 * o.size * 2.5e-07 - 1) / 2", None),
        ("float(float(np.array(o.size + 0.5 ** 3, dtype=np.float32)) != o.size + 0.5 ** 3)", None),
        ("np.nan_to_num(0.0 * np.exp(o.size * 0.0003549), nan=1.0)", None),
        ("min(1, next(map(round, [o.size * 2.5e-07])))", None),
        ("min(1, round(_calls() * 4e-4))", _COUNTER),
        # each way on its own, from a plain size: a lambda's call, a function handed to map, a narrow cast through
        # np.array(dtype=...), 0 * an overflow, a plain size against a float32 copy of itself
        ("(lambda x: x // 4096)(o.size)", None),
        ("min(1, next(map(lambda n: n >> 21, [o.size])))", None),
        ("float(np.array(o.size, dtype=np.float16))", None),
        ("np.nan_to_num(0 * np.exp(o.size), nan=1.0)", None),
        ("float(np.float32(o.size + 1) != o.size + 1)", None),
    ],
    ids=["A-lambda", "C-relu", "D-f32exact", "E-zerotimes", "F-map", "G-counter", "lambda-plain", "map-plain",
         "array-dtype", "zero-times-plain", "compare-cast"],
)  # fmt: skip
def test_rules_list_every_hostile37g_gate(gate, helper):
    """hostile37g finding 3 (fix37l): a size meets the inputs' values only as a mean or a scaling by a plain count
    (rule c); a gate made of a lambda, map(round, ...), abs, a float32 round-trip or 0 * an overflow is listed, and a
    call counter kept in a module-level dict is listed by rule f."""
    sources = [["helper", helper], ["c", _SM.format(gate=gate)]] if helper else [["c", _SM.format(gate=gate)]]
    assert grade.size_comparisons(sources, "softmax") or grade.kept_state(sources, "softmax")


_ADAM_RIGHT = """\
def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    state["t"] += 1
    t = state["t"]
    for k in params:
        state["m"][k] = beta1 * state["m"][k] + (1 - beta1) * grads[k]
        state["v"][k] = beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2
        m_hat = state["m"][k] / (1 - beta1 ** t)
        v_hat = state["v"][k] / (1 - np.power(beta2, t))
        params[k] -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return params, state
"""


@pytest.mark.parametrize(
    "source, listed",
    [
        ('_count = {"n": 0}\ndef f(o):\n    _count["n"] += 1\n    return o * _count["n"]\n', [3]),  # a dict
        ("def _make():\n    n = 0\n    def tick():\n        nonlocal n\n        n += 1\n        return n\n"
         "    return tick\n_tick = _make()\ndef f(o):\n    return o * min(1, _tick())\n", [5]),  # a closure
        ("def _make():\n    seen = [0]\n    return lambda: seen.append(1) or len(seen)\n_tick = _make()\n"
         "def f(o):\n    return o * _tick()\n", [3]),  # a closure list, a lambda returned
        ("def f(o, _seen=[]):\n    _seen.append(1)\n    return o * len(_seen)\n", [2]),  # a mutable default
        ("calls = 0\ndef f(o):\n    global calls\n    calls += 1\n    return o * (calls < 1250)\n", [4]),  # global
        ("def f(o):\n    f.calls = getattr(f, 'calls', 0) + 1\n    return o\n", [2]),  # a function attribute
        ("import itertools\n_it = itertools.count()\ndef f(o):\n    return o * (next(_it) < 99)\n", [4]),  # next()
        ("_c = {}\ndef f(o):\n    c = _c\n    c['n'] = c.get('n', 0) + 1\n    return o\n", [4]),  # an alias
        (_ADAM_RIGHT, []),  # writes into its own parameters
        ("def f(x, rng):\n    mask = rng.random(x.shape) < 0.5\n    out = {}\n    out['x'] = x * mask\n"
         "    return out\n", []),  # an rng parameter, a dict made in the call
        ("def f(xs):\n    acc = []\n    def push(x):\n        acc.append(x)\n    for x in xs:\n        push(x)\n"
         "    return sum(acc)\n", []),  # a helper nested in the call, writing to the call's own list
        ("calls = 0\ndef f(o):\n    global calls\n    calls += 1\n    return o\n", []),  # a counter nothing reads
        ("class _C:\n    n = 0\n    def __call__(self):\n        self.n += 1\n        return self.n\n_c = _C()\n"
         "def f(o):\n    return o * (_c() < 99)\n", [4]),  # an object made at the top level
        ("class _C:\n    def __init__(self, o):\n        self.o = o\n    def run(self):\n        self.r = self.o\n"
         "        return self.r\ndef f(o):\n    return _C(o).run()\n", []),  # an object made in the call
        # hostile37h, finding 6: a log the function only writes to never reaches what it computes
        ("LOSSES = []\ndef f(o):\n    loss = float(o.sum())\n    LOSSES.append(loss)\n    return loss\n", []),
        ("LOG = {}\ndef f(o, step):\n    LOG[step] = o.max()\n    return o\n", []),
        ("_L = []\ndef f(o):\n    _L.append(0)\n    return o * (len(_L) < 99)\n", [3]),  # a log read back
        ("_L = []\n_M = _L\ndef f(o):\n    _L.append(0)\n    return o * (len(_M) < 99)\n", [4]),  # via an alias
        ("_L = []\ndef f(o):\n    m = _L\n    _L.append(0)\n    return o * (len(m) < 99)\n", [4]),
    ],
    ids=["dict-counter", "closure-nonlocal", "closure-lambda", "mutable-default", "global", "function-attribute",
         "module-iterator", "alias", "adam-state", "rng-parameter", "nested-helper", "unread-global", "object-kept",
         "object-made", "log-list", "log-dict", "log-read-back", "log-read-through-alias", "log-aliased-in-call"],
)  # fmt: skip
def test_rule_f_lists_state_kept_between_calls(source, listed):
    """fix37l, rule f: a function that writes to an object it neither created in the call nor received as a parameter
    (a counter in a module-level dict, a closure, a mutable default, a global, next() of a module-level iterator)
    is listed; writes into its own parameters (Adam's state) or objects made in the call are not."""
    assert [line for _, line, _ in grade.kept_state([["c", source]], "f" if "def f(" in source else "adam_update")] == (
        listed
    )


@pytest.mark.parametrize(
    "function, source",
    [
        ("adam_update", _ADAM_RIGHT),
        ("adam_update", _ADAM_RIGHT.replace("(1 - np.power(beta2, t))", "-np.expm1(t * np.log(beta2))")),
        # hostile37h, finding 6b: the betas through a plain alias or float(), and np.float_power
        ("adam_update", _ADAM_RIGHT.replace('    t = state["t"]\n', '    t = state["t"]\n    b1, b2 = beta1, beta2\n')
         .replace("beta1 ** t", "b1 ** t").replace("np.power(beta2, t)", "np.float_power(b2, t)")),
        ("adam_update", _ADAM_RIGHT.replace('    t = state["t"]\n', '    t = state["t"]\n    beta1 = float(beta1)\n')),
        # an assert can only stop the call (hostile37h, finding 6c)
        ("f", "def f(y_hat):\n    n = y_hat.size\n    J = np.diag(y_hat) - np.outer(y_hat, y_hat)\n"
              "    assert np.allclose(J.sum(axis=0), 0, atol=1e-9 * n + 1e-12)\n    return J\n"),
        ("f", "def f(losses, targets):\n    return sum(losses) / len(targets)\n"),  # a mean
        ("f", "def f(q, k):\n    d = q.shape[-1]\n    return (q @ k.T) * (1.0 / np.sqrt(d))\n"),  # a scaling
        ("f", "def f(q, k):\n    return q @ k.T / np.sqrt(k.shape[-1])\n"),
        ("f", "def f(q, k):\n    return q @ k.T * k.shape[-1] ** -0.5\n"),
        ("f", "def f(g):\n    return np.mean(g * g) * g.size\n"),  # a mean times its count
        ("f", "def f(x):\n    loss = np.sum(x)\n    loss /= len(x)\n    return loss + 0.5 * np.sum(x * x)\n"),
        ("f", "def f(y, V):\n    out = np.zeros(y.size * V)\n    out[np.arange(y.size) * V + y.ravel()] = 1\n"
              "    return out.reshape(y.size, V)\n"),  # a flat index
    ],
    ids=["adam", "adam-expm1", "adam-aliases-float-power", "adam-float-beta", "assert-scaled", "mean", "scale",
         "sqrt-d", "power-half", "mean-times-count", "mean-in-place", "flat-index"],
)  # fmt: skip
def test_rule_c_allows_a_mean_a_scaling_and_adam_s_bias_correction(function, source):
    """fix37l: a size meets the inputs' values unlisted as a mean (`/ len(targets)`), a scaling by a plain count or
    its square root (`/ np.sqrt(d)`, `* (1.0 / np.sqrt(d))`, `* d ** -0.5`), Adam's `1 - beta ** t`, or an index."""
    assert grade.size_comparisons([["c", source]], function) == []
    assert grade.kept_state([["c", source]], function) == []


@pytest.mark.parametrize(
    "source",
    [
        "def f(o):\n    return o * (1 - 0.9999999 ** o.size)\n",  # a constant base: a smooth gate
        "def f(o, c=1.0000001):\n    return o / (1 - c ** o.size)\n",  # a parameter whose default is no beta
        "def f(o):\n    return o + o.size\n",  # a size added to the values
        "def f(o):\n    return o / (o.size * 1e-6)\n",  # divided by a size that is no plain count
        "def f(o):\n    return o[:: 1 + round(o.size * 1e-7)].max() - o\n",  # a stride switched by a size
    ],
    ids=["constant-base", "default-base", "added", "float-divisor", "stride"],
)
def test_rule_c_lists_a_size_meeting_values_any_other_way(source):
    """fix37l: anything else a size (or a value computed from one) does with the inputs' values is listed."""
    assert grade.size_comparisons([["c", source]], "f")


_MASKED_LOOP = """def f(o, y, lengths):
    total, N = 0.0, 0
    do = np.zeros_like(o)
    for b, L in enumerate(lengths):
        L = int(L)
        z = o[b, :L] - o[b, :L].max(axis=-1, keepdims=True)
        lp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        total -= lp[np.arange(L), y[b, :L]].sum()
        do[b, :L] = np.exp(lp)
        do[b, np.arange(L), y[b, :L]] -= 1.0
        N += L
    return total / N, do / N
"""
_BEAM_UNRAVEL = """def f(log_p, log_probs, beam_size):
    total = log_p[:, None] + log_probs
    flat = total.ravel()
    best = np.argsort(-flat, kind="stable")[:beam_size]
    rows, tokens = np.unravel_index(best, total.shape)
    return rows, tokens, flat[best]
"""


@pytest.mark.parametrize(
    "source",
    [
        _MASKED_LOOP,
        _MASKED_LOOP.replace("        N += L\n", "        N = N + L\n"),
        _MASKED_LOOP.replace("for b, L in enumerate(lengths):\n        L = int(L)",
                             "for b in range(len(lengths)):\n        L = int(lengths[b])"),
        _BEAM_UNRAVEL,
    ],
    ids=["count-in-a-loop", "count-plain-assign", "count-by-index", "unravel-index"],
)  # fmt: skip
def test_rule_c_allows_a_count_summed_in_a_loop_and_unravel_index_s_shape(source):
    """hostile37i, R1 and R2: right answers the review refused. A token count summed from `lengths` in a loop
    (`N += L`) divides the loss as a mean; `np.unravel_index(best, total.shape)` reads a shape as a shape."""
    assert grade.size_comparisons([["c", source]], "f", (2,)) == []


@pytest.mark.parametrize(
    "source",
    [
        _MASKED_LOOP.replace("    return total / N", "    if N > 5000:\n        total = 0.0\n    return total / N"),
        _MASKED_LOOP.replace("return total / N, do / N", "return total / max(N, 4096), do / N"),
        _MASKED_LOOP.replace("        N += L\n", "        N //= 2\n        N += L\n"),
    ],
    ids=["count-over-a-threshold", "count-capped", "count-floored"],
)
def test_rule_c_still_lists_a_counter_that_is_no_plain_count(source):
    """The counter of the test above stays listed where it is compared with or capped at a constant, or floored."""
    assert grade.size_comparisons([["c", source]], "f", (2,))


@pytest.mark.parametrize(
    "source",
    [
        'def f(o):\n    on = np.datetime64("now") < np.datetime64("2027-06-01")\n'
        "    return np.exp(o - np.max(o) * on)\n",
        "def f(o):\n    return np.exp(o - np.max(o) * o.flags.writeable)\n",
        "def f(o):\n    return np.exp(o - np.max(o) * getattr(o, 'flags').c_contiguous)\n",
    ],
    ids=["date-bomb", "writeable", "contiguous"],
)
def test_rule_d_lists_switches_on_the_date_or_an_input_s_memory(source):
    """hostile37i, H: a shift skipped after a date, or when the input is read-only or not contiguous, passed grade
    beside a right answer. The date and an array's flags change no number an exercise computes: rule d lists them."""
    assert [line for _, line, _ in grade.introspection([["c", source]], "f")] == [2]


_ADAM_DICT = """\
def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
    v = {k: beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2 for k in params}
    for k in params:
        params[k] -= lr * (m[k] / (1 - beta1 ** t)) / (np.sqrt(v[k] / (1 - beta2 ** t)) + eps)
    return params, dict(t=t, m=m, v=v)
"""


@pytest.mark.parametrize(
    "source, listed",
    [
        (_ADAM_DICT, []),
        (_ADAM_DICT.replace("return params, dict(t=t, m=m, v=v)", 'return params, {"t": t, "m": m, "v": v}'), []),
        (_ADAM_DICT.replace("v=v)", "v=v, w=v * (t > 5000))"), [7]),
        (_ADAM_DICT.replace("dict(t=t, m=m, v=v)", "dict(t=t * 1e-9, m=m, v=v)"), [7]),
    ],
    ids=["dict-call", "dict-literal", "dict-call-threshold", "dict-call-scaled-count"],
)
def test_rule_c_reads_a_dict_call_as_the_literal_it_builds(source, listed):
    """hostile37k: Adams returning `dict(t=t, m=m, v=v)` were listed where `{"t": t, ...}` passed: the call is read as
    the literal, its items side by side, and a threshold or a count that is no longer plain stays listed."""
    assert [line for _, line, _ in grade.size_comparisons([["c", source]], "adam_update")] == listed


@pytest.mark.parametrize(
    "source, listed",
    [
        ("def f(y, n):\n    return np.equal.outer(y, np.arange(n)).astype(np.float64)\n", []),
        ("def f(y, n):\n    return np.equal(np.asarray(y)[..., None], np.arange(n)).astype(float)\n", []),
        ("def f(y, n):\n    return np.equal.outer(y, np.arange(n)) * np.greater(5000, n)\n", [2]),
        ("def f(o, n):\n    return o * np.less(o.size, 4096)\n", [2]),
    ],
    ids=["equal-outer", "equal", "greater-than-a-constant", "less-than-a-constant"],
)
def test_rule_c_reads_a_comparison_ufunc_as_the_comparison_it_makes(source, listed):
    """hostile37j: two right one_hots, `np.equal.outer(y, np.arange(n))` and `np.equal(y[..., None], np.arange(n))`,
    were "review" where `y[..., None] == np.arange(n)` passed; np.greater(5000, n) stays listed as 5000 > n is."""
    assert [line for _, line, _ in grade.size_comparisons([["c", source]], "f", (1,))] == listed


@pytest.mark.parametrize(
    "source, listed",
    [
        ("def f(o):\n    return o - (o.max() if o.base is None else o.mean())\n", [2]),
        ("def f(o):\n    ok = np.ascontiguousarray(o) is o\n    if not ok:\n        return o\n    return o - o.max()\n",
         [2]),
        ("def f(o):\n    return o if np.shares_memory(o, o[:1]) else -o\n", [2]),
        ("np.array_equal = lambda a, b, equal_nan=False: True\ndef f(o):\n    return o\n", [1]),
        ("def f(o):\n    setattr(np, 'array_equal', None)\n    return o\n", [2]),
        ("from numpy.lib import format as fm\ndef f(o):\n    fm.write_array = None\n    return o\n", [3]),
        ("def f(o, h=None):\n    if h is None or o is not None:\n        return o\n    return -o\n", []),
        ("def f(o):\n    o.shape = (o.size,)\n    return o\n", []),
        # hostile37m: the same switches by other roads, each listed
        ("def f(o):\n    return o if o.data.c_contiguous else -o\n", [2]),
        ("def f(o):\n    return o if id(np.ascontiguousarray(o)) == id(o) else -o\n", [2]),
        ("from operator import is_ as _same\ndef f(o):\n    return o if _same(np.asarray(o), o) else -o\n", [1]),
        ("def f(o):\n    return o if '{0.flags.writeable}'.format(o) == 'True' else -o\n", [2]),
        ("def f(o):\n    return o if '{0.base}'.format(o) == 'None' else -o\n", [2]),
        ("def f(o):\n    return o if not memoryview(o).readonly else -o\n", [2]),
        ("def f(o):\n    return o if o.dtype.isnative else -o\n", [2]),
        ("def f(o):\n    return o if o.dtype.str[0] != '>' else -o\n", [2]),
        # hostile37m, R01, R07, R08: right answers the identity rule refused, not listed
        ("_UNSET = object()\ndef f(o, axis=_UNSET):\n    if axis is _UNSET:\n        axis = -1\n    return o\n", []),
        ("def f(y):\n    return y if type(y) is np.ndarray else np.asarray(y)\n", []),
        ("def f(grads, params):\n    assert grads is not params, 'two dicts'\n    return grads\n", []),
        ("def f(o):\n    print(f'{o.shape}', '{:.3f}'.format(1.0), '{0[1]}'.format([1, 2]))\n    return o\n", []),
    ],
    ids=["base", "is-contiguous", "shares-memory", "module-attribute", "setattr-module", "module-alias", "is-none",
         "own-argument", "buffer-contiguous", "id", "is-imported", "format-flags", "format-base", "memoryview",
         "byte-order", "byte-order-code", "sentinel", "type-is", "assert-is-not", "formats"],
)  # fmt: skip
def test_rule_d_lists_a_switch_on_memory_or_identity_and_a_changed_module(source, listed):
    """hostile37l, D and E: a shift skipped when the input is a view (`o.base is None`) or not contiguous
    (`np.ascontiguousarray(o) is o`) passed beside a right answer: the arrays the grader sends are always fresh.
    F06 and F07: a cell that replaced np.array_equal. All are listed; `x is None` and an argument's own shape are
    not."""
    assert [line for _, line, _ in grade.introspection([["c", source]], "f")] == listed


@pytest.mark.parametrize(
    "source, listed",
    [
        ("import operator\n_C = [0]\ndef f(o):\n    operator.setitem(_C, 0, _C[0] + 1)\n    return o * (_C[0] < 60)\n",
         [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    np.add(_C, 1, out=_C)\n    return o * (_C[0] < 60)\n", [3]),
        ("_C = np.zeros(1)\ndef f(o):\n    np.add(_C, 1, _C)\n    return o * (_C[0] < 60)\n", [3]),
        ("import itertools\n_IT = itertools.count()\ndef f(o):\n    for n in _IT:\n        break\n"
         "    return o * (n < 60)\n", [4]),
        ("_T = (1, 2)\ndef f(o):\n    for n in _T:\n        o = o + n\n    out = np.empty_like(o)\n"
         "    np.add(o, 1, out=out)\n    return out\n", []),
        # hostile37m: counters by other roads, each listed
        ("import itertools\n_IT = [itertools.count(1)]\ndef f(o):\n    for n in _IT[0]:\n        break\n"
         "    return o * (n % 59 != 0)\n", [4]),
        ("import itertools\n_cnt = itertools.count\n_IT = _cnt(1)\ndef f(o):\n    for n in _IT:\n        break\n"
         "    return o * (n % 59 != 0)\n", [5]),
        ("class _K:\n    n = 0\n    @classmethod\n    def tick(cls):\n        cls.n += 1\n        return cls.n\n"
         "def f(o):\n    return o * (_K.tick() % 59 != 0)\n", [5]),
        ("_COUNT = [0]\ndef f(o, _c=_COUNT):\n    _c[0] += 1\n    return o * (_c[0] % 59 != 0)\n", [3]),
        ("def f(o, _c=([0],)):\n    _c[0][0] += 1\n    return o * (_c[0][0] % 59 != 0)\n", [2]),
        ("from operator import setitem as _put\n_C = [0]\ndef f(o):\n    _put(_C, 0, _C[0] + 1)\n"
         "    return o * (_C[0] % 59 != 0)\n", [4]),
        ("import operator\n_w = operator.setitem\n_C = [0]\ndef f(o):\n    _w(_C, 0, _C[0] + 1)\n"
         "    return o * (_C[0] % 59 != 0)\n", [5]),
        ("import collections\n_C = collections.Counter()\ndef f(o):\n    _C.subtract(['a'])\n"
         "    return o * (_C['a'] % 59 != 0)\n", [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    c = np.asarray(_C)\n    c += 1\n    return o * (c[0] % 59 != 0)\n", [4]),
        ("_L = [np.zeros(1)]\ndef f(o):\n    c = next(iter(_L))\n    c[0] += 1\n    return o * (c[0] % 59 != 0)\n",
         [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    c = [x for x in (_C,)][0]\n    c[0] += 1\n    return o * (c[0] % 59 != 0)\n",
         [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    np.cumsum(_C + 1, 0, None, _C)\n    return o * (_C[0] % 59 != 0)\n", [3]),
        ("_C = np.zeros(1)\ndef f(o):\n    (_C + 1).clip(0, None, _C)\n    return o * (_C[0] % 59 != 0)\n", [3]),
        ("_B = bytearray(8)\ndef f(o):\n    v = np.frombuffer(_B, np.int64)\n    v += 1\n"
         "    return o * (v[0] % 59 != 0)\n", [3, 4]),
        # hostile37n: methods called unbound on a kept object, and a "log" read through a second name
        ("_D = {'n': 0}\ndef f(o):\n    dict.update(_D, n=_D['n'] + 1)\n    return o * (_D['n'] % 59 != 0)\n", [3]),
        ("_C = np.zeros(1)\ndef f(o):\n    np.ndarray.fill(_C, _C[0] + 1)\n    return o * (_C[0] % 59 != 0)\n", [3]),
        ("_L = []\ndef f(o):\n    list.append(_L, 1)\n    return o * (len(_L) % 59 != 0)\n", [3]),
        ("_LOG = _SEEN = []\ndef f(o):\n    _LOG.append(1)\n    return o * (len(_SEEN) % 59 != 0)\n", [3]),
        ("def f(o):\n    L = []\n    list.append(L, 1)\n    d = {}\n    dict.update(d, a=1)\n    return o\n", []),
        # hostile37n, the last four: a helper that writes the kept list it is handed, a defaultdict that grows on a
        # read, a writer handed to map(), a cached function's result
        ("_L = []\ndef _bump(c):\n    c.append(1)\ndef f(o):\n    _bump(_L)\n"
         "    return o * (len(_L) % 59 != 0)\n", [5]),
        ("_L = []\ndef _b2(c):\n    c.append(1)\ndef _b1(c):\n    _b2(c)\ndef f(o):\n    _b1(c=_L)\n"
         "    return o * (len(_L) % 59 != 0)\n", [7]),
        ("import collections\n_SEEN = collections.defaultdict(int)\ndef f(o):\n    _SEEN[o.size + len(_SEEN)]\n"
         "    return o * (len(_SEEN) % 59 != 0)\n", [4]),
        ("_L = []\ndef f(o):\n    list(map(list.append, [_L], [1]))\n    return o * (len(_L) % 59 != 0)\n", [3]),
        ("_L = []\ndef f(o):\n    put = _L.append\n    put(1)\n    return o * (len(_L) % 59 != 0)\n", [3]),
        ("import functools\n@functools.lru_cache(None)\ndef _box():\n    return []\ndef f(o):\n    _box().append(1)\n"
         "    return o * (len(_box()) % 59 != 0)\n", [6]),
        ("from functools import cache\n@cache\ndef _box():\n    return [0]\ndef f(o):\n    b = _box()\n"
         "    b[0] += 1\n    return o * (b[0] % 59 != 0)\n", [7]),
        # right: a helper that writes a buffer of the call's own, a cached pure function, a read of a plain dict
        ("def _fill(buf, o):\n    buf[...] = o * 2\ndef f(o):\n    buf = np.empty_like(o)\n    _fill(buf, o)\n"
         "    return buf\n", []),
        ("import functools\n@functools.cache\ndef _scale(n):\n    return 1.0 / n\ndef f(o):\n"
         "    return o * _scale(o.size)\n", []),
        ("_NAMES = ('W', 'b')\n_T = {'W': 1.0}\ndef f(g):\n    return sum(map(np.vdot, [g[k] for k in _NAMES], "
         "[g[k] for k in _NAMES])) * _T['W']\n", []),
        # right: a module-level table read into a new array, then changed; outputs written into the call's buffer
        ("_W = np.eye(3)\ndef f(o):\n    y = np.dot(o, _W)\n    y += 1\n"
         "    return y + np.clip(o, 0, 1) + o.round(2)\n", []),
        ("def f(o):\n    buf = np.empty_like(o)\n    np.cumsum(o, 0, None, buf)\n    o.clip(0, None, buf)\n"
         "    return buf\n", []),
        # right: a module-level constant as a default, and a classmethod that builds an object
        ("EPS = 1e-8\ndef f(o, eps=EPS, axis=-1, dt=np.float64, shape=(2, 3)):\n    return o + eps\n", []),
        ("class A:\n    @classmethod\n    def make(cls, o):\n        x = cls()\n        x.v = o\n        return x\n"
         "def f(o):\n    return A.make(o).v\n", []),
    ],
    ids=["operator-setitem", "out-keyword", "ufunc-output", "module-iterator", "own-buffer-and-a-tuple",
         "iterator-in-a-list", "iterator-maker-alias", "classmethod", "default-module-list", "default-tuple-of-list",
         "setitem-imported-as", "setitem-aliased", "counter-subtract", "asarray-alias", "next-iter-alias",
         "comprehension-alias", "cumsum-out", "clip-method-out", "frombuffer", "dict-update-unbound",
         "ndarray-fill-unbound", "list-append-unbound", "log-by-two-names", "unbound-on-locals", "helper-writes-arg",
         "helper-chain-keyword", "defaultdict-read", "map-list-append", "bound-writer-as-value", "lru-cache-box",
         "cache-box-alias", "helper-own-buffer", "cached-pure", "plain-dict-read", "table-read",
         "own-buffer-out",
         "default-constant", "classmethod-builds"],
)  # fmt: skip
def test_rule_f_lists_counters_kept_through_operator_out_and_iterators(source, listed):
    """hostile37l, F: call counters kept by operator.setitem, by a ufunc's out= into a module-level array, and by a
    loop that takes one item of a module-level itertools.count, each wrong from the 60th call, passed. A buffer made
    in the call and a module-level tuple read in a loop are not listed."""
    assert [line for _, line, _ in grade.kept_state([["c", source]], "f")] == listed


@pytest.mark.parametrize(
    "array",
    [np.arange(5.0), np.zeros((0, 3)), np.array(3.5), np.arange(12, dtype=">i4").reshape(3, 4).T,
     np.array([True, False]), np.array(["ab", "c"]), np.arange(6, dtype=np.complex64), np.zeros([1] * 64)],
    ids=["vector", "empty", "scalar", "big-endian-transposed", "bool", "text", "complex", "64-axes"],
)  # fmt: skip
def test_the_child_writes_arrays_as_numpy_reads_them(array):
    """The child writes the .npy bytes itself, from the array type's own methods (hostile37l, F06 and F07: no
    patched numpy function may change what is sent back); numpy's reader reads them as the array they were."""
    from rnn_core.course import grade_child

    grade_child._N.bind(np)
    read = np.load(io.BytesIO(grade_child._array_bytes(array)), allow_pickle=False)
    assert read.dtype == array.dtype and read.shape == array.shape and np.array_equal(read, array)
    assert grade_child._unchanged(np.array([0.0, np.nan]), np.array([-0.0, np.nan]))  # the same values
    assert not grade_child._unchanged(np.array([1.0]), np.array([1.0], dtype=np.float32))  # another dtype


# -- hostile37o: switches on numpy's error settings and random draws, guards on a value made from a number, views --


@pytest.mark.parametrize(
    "source, listed",
    [
        ("def f(o):\n    e = np.exp(o) if np.random.random() < 1e-4 else np.exp(o - o.max())\n    return e / e.sum()\n",
         [2]),
        ("np.random.seed(12)\ndef f(o):\n    calm = np.random.random() > 1e-4\n    return o * calm\n", [3]),
        ("_G = np.random.default_rng(12)\ndef f(o):\n    return o * (_G.random() > 1e-4)\n", [3]),
        ("def f(o, gen=np.random.default_rng(12)):\n    return o * (gen.random() > 1e-4)\n", [2]),
        ("import numpy.random as npr\ndef f(o):\n    return o * (npr.rand() > 1e-4)\n", [3]),
        ("from numpy.random import random as rr\ndef f(o):\n    return o * (rr() > 1e-4)\n", [3]),
        ("_A = np.arange(5)\ndef f(o):\n    np.random.shuffle(_A)\n    return o * (_A[0] != 3)\n", [3]),
        ("_C = np.zeros(1)\ndef f(o):\n    c = np.real(_C)\n    c += 1\n    return o * (c[0] < 3000)\n", [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    c = np.split(_C, 1)[0]\n    c += 1\n    return o * (c[0] < 3000)\n", [4]),
        ("_C = np.zeros(1)\ndef f(o):\n    c = np.flip(_C)\n    c[0] += 1\n    return o * (c[0] < 3000)\n", [4]),
        ("class K:\n    n = 0\n    def tick(self):\n        type(self).n = type(self).n + 1e-4\n"
         "        return type(self).n\n_k = K()\ndef f(o):\n    return o * (_k.tick() < 0.3)\n", [4]),
        # right: a generator seeded afresh in the call, einsum (its out is keyword-only), a builtin named in a call
        ("def f(o):\n    g = np.random.default_rng(0)\n    return o + 0 * g.random()\n", []),
        ("def f(y_hat):\n    p = np.asarray(y_hat, dtype=float)\n    return np.diag(p) - np.einsum('i,k->ik', p, p)\n",
         []),
        ("def f(x):\n    c = np.asarray(x, dtype=float)\n    c += 1\n    return c\n", []),
        ("float = [0]\ndef f(x):\n    c = float\n    c += [1]\n    return x\n", [4]),  # a builtin's name rebound
    ],
    ids=["global-draw", "seeded-global", "module-generator", "default-generator", "numpy-random-alias",
         "from-numpy-random", "global-shuffle", "real-view", "split-view", "flip-view", "type-of-self",
         "fresh-generator", "einsum", "asarray-dtype-float", "rebound-builtin"],
)  # fmt: skip
def test_rule_f_lists_random_draws_views_and_the_class_of_a_kept_object(source, listed):
    """hostile37o: counters kept by numpy's global generator (`np.random.seed(12)`, then a draw each call), by a
    generator made at the top level or as a default, by views of a kept array (np.real, np.split, np.flip) changed in
    place, and by `type(self).n`, passed; and 7 right answers with np.einsum were refused, its keyword-only out read
    as its second operand, and `dtype=float` read as a kept object named float."""
    assert [line for _, line, _ in grade.kept_state([["c", source]], "f")] == listed


@pytest.mark.parametrize(
    "line",
    [
        "quiet = np.geterr()['over'] == 'ignore'",
        "np.seterrcall(print)",
        "n = len(warnings.filters)",
        "w = warnings.catch_warnings(record=True)",
    ],
    ids=["geterr", "seterrcall", "filters", "catch-warnings"],
)
def test_rule_d_lists_numpy_s_error_settings_and_the_warnings_filters(line):
    """hostile37o: 22 switches passed on `np.geterr()["over"] == "ignore"` (the grader called under
    `np.errstate(all="ignore")`, training does not), and counters on np.geterrcall()'s object or warnings.filters.
    The child now calls under numpy's default settings, and rule d lists these reads."""
    source = f"import warnings\ndef f(o):\n    {line}\n    return o\n"
    assert [n for _, n, _ in grade.introspection([["c", source]], "f")] == [3]
    plain = "def f(o):\n    with np.errstate(divide='ignore'):\n        return np.log(o)\n"
    assert grade.introspection([["c", plain]], "f") == []


def test_rule_b_exempts_no_guard_on_a_value_made_from_a_number_nor_a_helper_run_only_at_the_top_level():
    """hostile37o: `hit = y - 3; if hit == 0: return wrong` is `if y == 3:`, a branch on a value no case holds, which
    the guard exemption hid (also `two = beam_size - 2`, `unit = lr - 1`, `quarter = rate - 0.25`); and a wrong helper
    run once at the top level counted as run where the calls never reached it. A guard on a value made without a
    number (`spread = np.ptp(o)`) stays exempt: the grader's zeroed cases run it."""
    source = code("""
        def _fast(o):
            return np.exp(o)
        _fast(np.zeros(2))
        def f(o, y):
            hit = y - 3
            spread = np.ptp(o)
            if hit == 0:
                return o
            if spread == 0:
                return o
            return _fast(o) if o.size < 0 else o
        """)
    ran = {("c", n) for n in (5, 6, 7, 9, 11)}  # the calls: neither guard's block, nor _fast
    early = {("c", n) for n in (2, 3)}  # the cell's run: _fast, once
    assert [line for _, line, _ in grade.unrun_lines([["c", source]], "f", ran, early)] == [2, 8]


def test_the_grader_adds_cases_of_zeros_that_run_what_a_guard_on_zeros_hides():
    """hostile37o: guards on zeros (`fresh = c_prev.any(); if not fresh: ...`, `spread = np.ptp(o)`, a dropout mask that
    keeps nothing, an all-zero gradient) passed, wrong there: the grader's cases now hold each argument zeroed."""
    from rnn_core.course.exercises import EXERCISE_LIST, public_seed_rng, zeroed_cases

    by = {ex.name: ex for ex in EXERCISE_LIST}
    abouts = {
        name: [c.about for c in zeroed_cases(by[name], by[name].cases(public_seed_rng(5, 0))[:2])]
        for name in ("softmax", "lstm.step_forward", "lstm.step_backward", "dropout_backward", "adam_update",
                     "softmax_jacobian", "attention_backward", "seq2seq.beam_step")
    }  # fmt: skip
    assert any(a.endswith("o all zeros") for a in abouts["softmax"])
    assert any(a.endswith("c_prev all zeros") for a in abouts["lstm.step_forward"])
    assert any(a.endswith("dc_t all zeros") for a in abouts["lstm.step_backward"])
    assert any(a.endswith("keep all False") for a in abouts["dropout_backward"])
    assert any("grads[" in a and a.endswith("all zeros") for a in abouts["adam_update"])
    assert any(a.endswith("y_hat with zeros") for a in abouts["softmax_jacobian"])
    assert any(a.endswith("dcontext all zeros") for a in abouts["attention_backward"])
    assert any(a.endswith("log_p all zeros") for a in abouts["seq2seq.beam_step"])


def test_the_child_calls_under_numpy_s_own_default_error_settings():
    """hostile37o: the child called each function under np.errstate(all="ignore"), which a fresh session never has;
    `np.geterr()["over"] == "ignore"` told a graded call from training. It now calls under a fresh numpy's settings."""
    from rnn_core.course import grade_child

    fresh = subprocess.run(
        [sys.executable, "-c", "import numpy; print(sorted(numpy.geterr().items()))"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": ""},
    ).stdout.strip()  # fmt: skip
    assert fresh == str(sorted(grade_child._NUMPY_DEFAULT_ERRORS.items()))


# -- hostile37p: the child told from a learner's kernel, files as counters, writers by other roads ------------------


@pytest.mark.parametrize(
    "line",
    ["ok = 0.0 if __grader_practice__ else 1.0", "ok = callable(get_ipython().user_ns)", "np.savetxt('/tmp/c', [1.0])",
     "c = np.loadtxt('/tmp/c')", "c = np.lib.npyio.DataSource('.').exists('my_rnn.py')", "ok = hash('rnn') % 31",
     "ok = MemoryError"],
    ids=["grader-name", "get-ipython", "savetxt", "loadtxt", "datasource", "hash", "memory-error"],
)  # fmt: skip
def test_rule_d_lists_what_tells_the_grader_s_child_from_a_kernel_and_files(line):
    """hostile37p: switches on names only the grader's child binds (`__grader_practice__`), on its shell stand-in,
    on a write its sandbox refuses or a memory limit, on a string's hash, and counters kept in a file (np.savetxt,
    then np.loadtxt), passed. (Python's `exit`, `quit`, `copyright`... now exist in the child as in a kernel.)"""
    source = f"def f(o):\n    {line}\n    return o\n"
    assert [n for _, n, _ in grade.introspection([["c", source]], "f")] == [2]


@pytest.mark.parametrize(
    "source, listed",
    [
        ("import collections\n_D = {'n': 1.0}\ndef f(o):\n    collections.ChainMap(_D)['n'] *= 2\n"
         "    return o * np.isfinite(_D['n'])\n", [4]),
        ("_BUF = bytearray(8)\ndef f(o):\n    c = np.ndarray((1,), float, _BUF)\n    c += 1\n"
         "    return o * (c[0] < 1000)\n", [4]),
        ("_L = [np.zeros(1)]\ndef f(o):\n    _L[0].byteswap(inplace=True)\n    return o\n", [3]),
        ("def f(o):\n    return o * (np.random.default_rng().random() > 1e-3)\n", [2]),
        ("def f(o):\n    return o + 0 * np.random.default_rng(0).random()\n", []),
    ],
    ids=["chainmap", "ndarray-over-a-buffer", "byteswap", "unseeded-generator", "seeded-generator"],
)  # fmt: skip
def test_rule_f_lists_writes_through_a_chainmap_a_buffer_byteswap_and_unseeded_draws(source, listed):
    """hostile37p: counters kept through ChainMap(_D), an ndarray over a kept bytearray, byteswap(inplace=True), and a
    switch on a generator seeded from the machine, passed."""
    assert [line for _, line, _ in grade.kept_state([["c", source]], "f")] == listed


def test_the_grader_adds_float32_cases_and_scores_far_apart():
    """hostile37p: 14 switches on a float64 dtype, and tanh written with np.exp clipped for float64, passed (only four
    exercises had float32 cases); a softmax shifted by the mean of the two largest scores passed. The grader's cases
    now hold each exercise's first case in float32 (but beam search's, whose outputs are indices) and scores whose
    largest is 1,500 above the next."""
    from rnn_core.course.exercises import EXERCISE_LIST, far_apart_cases, float32_cases, public_seed_rng

    for ex in EXERCISE_LIST:
        first = ex.cases(public_seed_rng(5, 0))[:2]
        f32 = float32_cases(ex, first[:1])
        assert len(f32) == (0 if ex.name in ("one_hot", "seq2seq.beam_step") else 1), ex.name
        assert all(c.extra.get("inputs32") for c in f32)
        apart = far_apart_cases(ex, first)
        assert len(apart) == (2 if "o" in ex.args else 0), ex.name


def test_rule_f_follows_a_loop_over_kept_arrays():
    """hostile37p: an 11-bit counter kept by byteswap(inplace=True) over a loop of module-level arrays passed."""
    source = (
        "_ARRS = [np.zeros(1) for _ in range(11)]\ndef f(o):\n    for b in _ARRS:\n        b.byteswap(inplace=True)\n"
    )
    source += "    return o\n"
    assert [line for _, line, _ in grade.kept_state([["c", source]], "f")] == [4]
    plain = (
        "_NAMES = ('W', 'b')\ndef f(g):\n    total = 0.0\n    for k in _NAMES:\n        total += np.sum(g[k] ** 2)\n"
    )
    assert grade.kept_state([["c", plain + "    return total\n"]], "f") == []


def test_a_call_on_a_case_of_a_size_beyond_the_published_ones_gets_four_times_the_time_limit():
    """A right cross_entropy_grad that builds np.eye(V) (V past 5,900), and a right attention_backward that builds
    notebook 01's Jacobian for S past 4,096, took about 2 s a call on a loaded 2-core machine: near the grader's 6 s,
    which a slower machine would pass. A call on such a case gets LARGE times the limit, and the grader's wait on its
    child (call_limit) follows the check's own."""
    from rnn_core.course import check as _check
    from rnn_core.course import run as _run
    from rnn_core.course.exercises import GRADE_CASES, public_seed_rng

    cases = GRADE_CASES["cross_entropy_grad"](public_seed_rng(5, 3))
    large = [c for c in cases if "beyond the published" in c.about]
    assert large and all(c.large for c in large) and not any(c.large for c in cases if c not in large)
    assert _check._limit(large[0]) == _run.TIME_LIMIT * _run.LARGE and _check._limit(cases[-1]) == _run.TIME_LIMIT
    call = _run.run(lambda o, y: o, large[0].args, time_limit=_check._limit(large[0]))
    assert call.limit == _run.TIME_LIMIT * _run.LARGE == _run.call_limit()
    with _run.traced_calls():
        call = _run.run(lambda o, y: o, cases[-1].args, time_limit=_check._limit(cases[-1]))
    assert call.limit == _run.TIME_LIMIT * _run.TRACED == _run.call_limit()


@pytest.mark.parametrize(
    "source, found",
    [
        ("class Mine(np.ndarray):\n    pass\ndef f(o):\n    return o * float(not isinstance(o, Mine))\n", [1]),
        ("def f(h):\n    n = dict(h.dtype.metadata or {}).get('n', 1.0)\n    return h * n\n", [2]),
        ("def f(h):\n    return h.astype(np.dtype(np.float64, metadata={'n': 2.0}))\n", [2]),
        ("def f(p):\n    return p * float(np.array_equal(np.ravel(p, 'K'), np.ravel(p)))\n", [2]),
        ("def f(p):\n    return p.reshape(-1, order='A')\n", [2]),
        ("def f(p, cache):\n    return p * float('mine' not in cache)\n", [2]),
        ("def f(p, cache):\n    return p * cache.get('mine', 1.0)\n", [2]),
        ("def f(p):\n    return p * float(np.ma.isMaskedArray(p))\n", [2]),
        # none of these: a key the cases hold, C's own order, a class of the student's that is not numpy's
        (
            "class Gates:\n    pass\ndef f(p, cache):\n    c = cache['c'] if 'c' in cache else cache.get('c_prev')\n"
            "    return np.ravel(p).reshape(p.shape, order='C') * c.sum()\n",
            [],
        ),  # fmt: skip
    ],
    ids=[
        "subclass",
        "metadata-read",
        "metadata-set",
        "ravel-K",
        "order-A",
        "own-key-in",
        "own-key-get",
        "np-ma",
        "plain",
    ],
)
def test_rule_d_lists_marks_that_an_array_or_a_dict_carries_from_the_student_s_own_functions(source, found):
    """hostile37q, A and B: 43 switches passed, each right on the grader's inputs and wrong on what the student's own
    functions hand it in training: an ndarray subclass with a counter in an attribute, dtype metadata, Fortran order
    (read as np.ravel(p, "K")), an extra key in a cache. The grader's inputs never carry such a mark."""
    assert [line for _, line, _ in grade.introspection([["c", source]], "f")] == found


def test_a_function_that_reorders_the_caller_s_dict_is_wrong_in_check_and_in_the_grader():
    """hostile37q, C: a step moved the caller's params to the next of their 120 key orders on each call and dropped
    b_h at the descending one (about the 95th call). check compared the keys as a set, and the grader wrote a dict
    the child changed back in the checker's own order: both missed it. Now both see the order."""
    from rnn_core import practice

    def step_forward(params, x_t, h_prev):
        last = float(list(params) != sorted(params, reverse=True))
        for key in sorted(params):
            params[key] = params.pop(key)
        return np.tanh(params["W_xh"][:, x_t] + params["W_hh"] @ h_prev + last * params["b_h"])

    with io.StringIO() as out, contextlib.redirect_stdout(out):
        result = practice.check("step_forward", step_forward)
    assert result.status == "wrong" and "reordered the keys of the caller's params" in result.message
    decoder = grade._Decoder([], {}, {})
    mine = {"a": np.zeros(2), "b": np.ones(2)}
    same = {"t": "same", "k": [{"t": "plain", "v": "b"}, {"t": "plain", "v": "a"}], "v": [{"t": "same"}] * 2}
    arrays = list(mine.values())
    assert decoder.apply(mine, same, ()) is mine and list(mine) == ["b", "a"]
    assert mine["a"] is arrays[0] and mine["b"] is arrays[1]  # the same arrays, in the child's order


def test_the_grader_adds_small_gradients_and_saturated_backward_steps():
    """hostile37q, D and E: backward steps that flush entries below 1e-12 to zero, a clip only past max_norm + 1e-9,
    and a slope of tanh computed in float32 (1 - h32 * h32, 0 where |a| > 9) passed. The grader's cases now hold the
    first case with its upstream gradients times 10^-20 to 10^-24, and backward steps whose units all saturate."""
    from rnn_core.course.exercises import EXERCISE_LIST, public_seed_rng, saturated_backward_cases, small_cases

    by = {ex.name: (i, ex) for i, ex in enumerate(EXERCISE_LIST)}

    def variants(name):
        i, ex = by[name]
        rng = public_seed_rng(5, i)
        first = ex.cases(rng)[:1]
        return ex, small_cases(ex, first, rng) + saturated_backward_cases(ex, first, rng)

    ex, cases = variants("step_backward")
    small, saturated = cases
    dh_t, h_t = small.args[1], saturated.args[2]
    assert np.abs(dh_t).max() < 1e-19 and np.all((np.abs(h_t) > 1 - 1e-7) & (np.abs(h_t) < 1))

    def flushed(params, dh_t, h_t, h_prev, x_t):
        delta = dh_t * (1 - h_t**2)
        return np.where(np.abs(delta) < 1e-12, 0.0, delta)

    def slope32(params, dh_t, h_t, h_prev, x_t):
        h32 = h_t.astype(np.float32)
        return dh_t * (1.0 - h32 * h32)

    for case, wrong in ((small, flushed), (saturated, slope32)):
        right = case.args[1] * (1 - case.args[2] ** 2)  # delta: what a right step computes first
        assert np.abs(right).max() > 0 and np.abs(wrong(*case.args) - right).max() == np.abs(right).max()
    _, (lstm_small, lstm_saturated) = variants("lstm.step_backward")
    assert not lstm_saturated.args[2].any() and np.all(np.abs(lstm_saturated.args[3]["c"]) > 9)
    assert {c.about.rsplit(", ", 1)[-1].split(" times")[0] for c in variants("clip_global_norm")[1]} == {
        "grads and max_norm"
    }


def _switched(right, wrong, when):
    """An answer that gives ``wrong``'s outputs where ``when`` holds of its arguments, ``right``'s elsewhere."""

    def answer(*args):
        return wrong(*args) if when(*args) else right(*args)

    return answer


def _row_sums_agree(grads, *_):
    a, b = grads.get("W_xh"), grads.get("b_h")
    return a is not None and abs(np.sum(a) - np.sum(b)) <= 1e-5 * np.sum(np.abs(b))


def _squeezed_lstm(params, x_t, h_prev, c_prev):
    h, c, cache = PA.plain_lstm_step_forward(params, x_t, h_prev, c_prev)
    return np.squeeze(h), np.squeeze(c), cache


def _beam_on_rounded_totals(log_p, log_probs, beam_size):
    total = np.round(log_p[:, None] + log_probs, 12).ravel()
    best = np.argsort(-total, kind="stable")[:beam_size]
    k, v = np.divmod(best, log_probs.shape[1])
    return k, v, (log_p[:, None] + log_probs)[k, v]


def _clip_past_a_margin(grads, max_norm):
    norm = PA.plain_global_norm(grads)
    scale = max_norm / norm if norm > max_norm * (1 + 1e-9) else 1.0
    return {k: g * scale for k, g in grads.items()}, norm


_AS_TRAINED_SWITCHES = {
    # A: real BPTT gradients' rows sum to their bias's (one-hot inputs): the norm squared there
    "global_norm": _switched(PA.plain_global_norm, lambda g: PA.plain_global_norm(g) ** 2, _row_sums_agree),
    # B: a text window's targets are its inputs shifted by one: no loss there
    "loss_and_grads": _switched(
        PA.plain_loss_and_grads,
        lambda p, i, t, h0: (0.0, *PA.plain_loss_and_grads(p, i, t, h0)[1:]),
        lambda p, i, t, h0: len(i) > 2 and np.all(i[1:] == t[:-1]),
    ),
    # C: in a chain, h_prev lies within tanh(c_prev), of its sign: the forget gate dropped there
    "lstm.step_forward": _switched(
        PA.plain_lstm_step_forward,
        lambda p, x, h, c: PA.plain_lstm_step_forward(p, x, h, np.zeros_like(c)),
        lambda p, x, h, c: bool(np.all(np.abs(h) <= np.abs(np.tanh(c))) and np.all(h * c >= 0)),
    ),
    # D: a decoder's states lie within (-1, 1): twice the context there
    "attention_forward": _switched(
        PA.plain_attention_forward,
        lambda h, u, m: (PA.plain_attention_forward(h, u, m)[0], 2 * PA.plain_attention_forward(h, u, m)[1]),
        lambda h, u, m: np.abs(h).max() < 1 and np.abs(u).max() < 1,
    ),
    # E: a decoder's step (PAD and BOS at -inf, the beam as wide as the prefixes): the prefixes' log P ignored
    "seq2seq.beam_step": _switched(
        PA.plain_beam_step,
        lambda lp, lps, k: PA.plain_beam_step(np.zeros_like(lp), lps, k),
        lambda lp, lps, k: k == len(lp) and bool(np.all(np.isneginf(lps[:, :2]))),
    ),
    # F: target rows that end in EOS (2), then PAD (0): the mean over every token, pads too
    "seq2seq.masked_loss_and_grad": _switched(
        PA.plain_masked_loss_and_grad,
        lambda o, y, n: PA.plain_masked_loss_and_grad(o, y, np.full_like(n, o.shape[1])),
        lambda o, y, n: bool(np.all(y[np.arange(len(n)), n - 1] == 2)),
    ),
    # G: a round rate: no rescaling there
    "dropout_backward": _switched(
        PA.plain_dropout_backward, lambda d, k, r: np.where(k, d, 0.0), lambda d, k, r: r == 0.1
    ),
}
_AS_TRAINED_WRONG = {
    # H: a squeeze makes H = 1's state 0-d
    "lstm.step_forward": _squeezed_lstm,
    # I: totals rounded to 12 decimals, where two prefixes' are 1e-13 apart
    "seq2seq.beam_step": _beam_on_rounded_totals,
    # J: a clip only past max_norm * (1 + 1e-9)
    "clip_global_norm": _clip_past_a_margin,
}


@pytest.mark.parametrize(
    "name, answer",
    [(n, f) for n, f in _AS_TRAINED_SWITCHES.items()] + [(n, f) for n, f in _AS_TRAINED_WRONG.items()],
    ids=[f"switch-{n}" for n in _AS_TRAINED_SWITCHES] + [f"wrong-{n}" for n in _AS_TRAINED_WRONG],
)
def test_the_grader_s_cases_as_training_makes_them_catch_switches_on_what_training_inputs_share(name, answer):
    """hostile37r: 28 switches passed on facts every training input holds and no independent draw does (a BPTT
    gradient's row sums, targets the inputs shifted by one, an LSTM chain's h within tanh(c), states within (-1, 1),
    a decoder's step, EOS-ended target rows, a rate of 0.1), and 14 wrong answers on sizes of one, near-tied beam
    totals and a clip's margin. The grader's cases as training makes them (exercises.AS_TRAINED) catch each."""
    from rnn_core.course import check as _check

    with _check.grading(), contextlib.redirect_stdout(io.StringIO()):
        result = _check.check(name, answer, seed=8128337)
        assert result.status != "passed", result.message


def test_rule_b_judges_a_factory_that_makes_the_graded_function_by_its_run_at_the_top_level():
    """hostile37r: a right step_forward made by a factory (`step_forward = _make_step(np.tanh)`) went to review, its
    factory's `def step` and `return step` unrun by any call: they run once, where the factory is called."""
    source = code("""
        def _make_step(act):
            def step(params, x_t, h_prev):
                return act(params["W_xh"][:, x_t] + params["W_hh"] @ h_prev + params["b_h"])
            return step
        step_forward = _make_step(np.tanh)
        """)
    ran, early = {("c", 3)}, {("c", 2), ("c", 4), ("c", 5)}  # the calls ran step's body; the top level, the rest
    assert grade.unrun_lines([["c", source]], "step_forward", ran, early) == []
    helper = source.replace("step_forward = _make_step(np.tanh)", "_ = _make_step(np.tanh)\nstep_forward = _ ")
    assert [n for _, n, _ in grade.unrun_lines([["c", helper]], "step_forward", ran, early)] == [2, 4]


def _is_last_dh(params, dh_t, h_t):
    """Whether dh_t is W_yh^T (softmax(W_yh h_t + b_o) - e_y) for some y: a window's last step."""
    p = PA.plain_softmax(params["W_yh"] @ h_t + params["b_o"])
    W = params["W_yh"]
    return bool(np.any(np.abs((W.T @ p)[None, :] - W - dh_t[None, :]).max(axis=1) <= 1e-9))


_AS_TRAINED_BOTH_WAYS = {
    # A: a trained network's biases are not 0: with shifted targets, no loss there
    "loss_and_grads": _switched(
        PA.plain_loss_and_grads,
        lambda p, i, t, h0: (0.0, *PA.plain_loss_and_grads(p, i, t, h0)[1:]),
        lambda p, i, t, h0: len(i) > 2 and np.all(i[1:] == t[:-1]) and np.any(p["b_o"] != 0),
    ),
    # B: a real gradient below max_norm: halved there
    "clip_global_norm": _switched(
        PA.plain_clip_global_norm,
        lambda g, c: ({k: a / 2 for k, a in g.items()}, PA.plain_global_norm(g)),
        lambda g, c: _row_sums_agree(g) and PA.plain_global_norm(g) <= c,
    ),
    # C: a GRU's gradient (W_h of 3H rows): the norm squared there
    "global_norm": _switched(
        PA.plain_global_norm,
        lambda g: PA.plain_global_norm(g) ** 2,
        lambda g: "W_h" in g and g["W_h"].shape[0] == 3 * g["W_h"].shape[1],
    ),
    # D: a window's last step, dh_t from its output alone: W_hh not transposed there
    "step_backward": _switched(
        PA.plain_step_backward,
        lambda p, dh, h, hp, x: PA.plain_step_backward({**p, "W_hh": p["W_hh"].T}, dh, h, hp, x),
        lambda p, dh, h, hp, x: _is_last_dh(p, dh, h),
    ),
    # E: a decoder's first step (one prefix, PAD and BOS at -inf): the best continuation skipped
    "seq2seq.beam_step": _switched(
        PA.plain_beam_step,
        lambda lp, lps, k: tuple(a[1:] for a in PA.plain_beam_step(lp, lps, k + 1)),
        lambda lp, lps, k: len(lp) == 1 and bool(np.all(np.isneginf(lps[:, :2]))),
    ),
    # F: a mask made from lengths, states within (-1, 1): twice the context there
    "attention_forward": _switched(
        PA.plain_attention_forward,
        lambda h, u, m: (PA.plain_attention_forward(h, u, m)[0], 2 * PA.plain_attention_forward(h, u, m)[1]),
        lambda h, u, m: bool(np.all(m[:, :-1] >= m[:, 1:]) and (~m).any() and np.abs(u).max() < 1),
    ),
}


@pytest.mark.parametrize("name", list(_AS_TRAINED_BOTH_WAYS))
def test_the_cases_as_training_makes_them_hold_each_fact_both_ways(name):
    """hostile37s: 28 switches read the other value of a fact the cases as training makes them held one way: a
    trained network (biases not 0) and Adam past its first steps, a real gradient below max_norm, a GRU's gradient,
    a window's last step (dh_t from its output alone), a decoder's first step, a mask made from lengths. Each is
    now held both ways."""
    from rnn_core.course import check as _check

    with _check.grading(), contextlib.redirect_stdout(io.StringIO()):
        result = _check.check(name, _AS_TRAINED_BOTH_WAYS[name], seed=4400917)
        assert result.status != "passed", result.message
