"""Memory kept from one call to the next for the large intermediates of the time loops.

A training step at the trainer's default size (H=256, B=32, T=32) fills a few megabytes of
intermediates: the hidden states, the logits, the gradients reaching each state. Allocated
afresh on every call, those arrays cost more than the arithmetic done in them: the C library
hands large freed blocks back to the operating system, so every call starts on new pages
that must be mapped and zeroed first. ``reusable`` keeps one buffer per name and reuses it.
Its ablation (the same engine with fresh arrays) is a column of benchmarks/throughput.py.

Only intermediates live in these buffers, never an array returned to a caller. Each thread
has its own set, so two threads may run the network at the same time.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

__all__ = ["reusable", "fresh_arrays"]

_local = threading.local()


def reusable(name, shape, dtype):
    """Like np.empty(shape, dtype), but the memory is this thread's buffer ``name``, reused by later calls.

    The contents are undefined, and overwritten by the next call with the same name.
    """
    n = int(np.prod(shape))
    if getattr(_local, "fresh", False):
        return np.empty(shape, dtype)
    buffers = _local.__dict__.setdefault("buffers", {})
    buf = buffers.get((name, np.dtype(dtype)))
    if buf is None or buf.size < n:
        buf = buffers[(name, np.dtype(dtype))] = np.empty(n, dtype)
    return buf[:n].reshape(shape)


@contextmanager
def fresh_arrays():
    """Within the block, in this thread, ``reusable`` returns new arrays: the benchmark's ablation."""
    previous = getattr(_local, "fresh", False)
    _local.fresh = True
    try:
        yield
    finally:
        _local.fresh = previous
