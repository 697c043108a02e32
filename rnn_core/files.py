"""Writing a file so that nothing half-written is ever left behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path, write, suffix=".tmp"):
    """Call write(f) on a temporary binary file beside ``path``, then rename it to ``path``.

    The rename is atomic: readers see the old file or the complete new one, never a
    partial one; if ``write`` fails (or the process is interrupted), the temporary
    file is removed and ``path`` is untouched. Returns ``path`` as a Path.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
