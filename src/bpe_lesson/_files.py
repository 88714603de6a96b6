"""Writing files so that a crash never leaves half of one behind.

Every file the package writes goes to a temporary name in the same folder and is
then renamed over the target; a rename within one file system is atomic, so a
reader sees the old file or the new one, never a torn one. The file gets the
permissions any other new file would (0666 minus the umask), not the 0600 of a
temporary file. A writer killed with SIGKILL cannot remove its temporary file;
the temporary name carries the writer's process id, and the next write of the
same path removes the ones whose process is gone.

What this module does not do: locking (two writers of one path race; the last
rename wins; ``lm/pack.py`` locks its folder), or make two files one (a
``.tiktoken`` file and its sidecar are tied by a hash, ``tiktoken_io``).
"""

from __future__ import annotations

import glob
import os
import tempfile


def current_umask() -> int:
    """The process's umask, read without changing it where the OS allows (Linux).

    >>> 0 <= current_umask() <= 0o777
    True
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, hence the Linux way first)
    os.umask(old)
    return old


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def clean_stale_temporaries(path) -> list[str]:
    """Remove ``.NAME.PID.*.tmp`` files of ``path`` whose writer process is gone; return them.

    Only this machine's process ids can be checked, so a folder shared by several
    machines keeps another machine's leftovers.
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    removed = []
    for p in glob.glob(os.path.join(glob.escape(folder), "." + glob.escape(name) + ".*.tmp")):
        pid = os.path.basename(p)[len(name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            try:
                os.unlink(p)
                removed.append(p)
            except FileNotFoundError:
                pass
    return removed


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    >>> import tempfile, os; d = tempfile.mkdtemp(); p = os.path.join(d, "x.txt")
    >>> atomic_write(p, b"hi"); open(p, "rb").read(), os.listdir(d)
    (b'hi', ['x.txt'])
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    clean_stale_temporaries(path)
    prefix = f".{os.path.basename(path)}.{os.getpid()}."
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~current_umask())  # mkstemp makes 0600
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
