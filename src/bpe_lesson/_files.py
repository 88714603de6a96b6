"""Writing files so that a crash never leaves half of one behind.

Every file the package writes goes to a temporary name in the same folder and is
then renamed over the target; a rename within one file system is atomic, so a
reader sees the old file or the new one, never a torn one.

What this module does not do: locking (two writers of one path race; the last
rename wins).
"""

from __future__ import annotations

import os
import tempfile


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    >>> import tempfile, os; d = tempfile.mkdtemp(); p = os.path.join(d, "x.txt")
    >>> atomic_write(p, b"hi"); open(p, "rb").read()
    b'hi'
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
