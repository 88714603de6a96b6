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
import json
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
    if not os.path.isdir(folder):  # else mkstemp's error names the temporary file, not this one
        raise FileNotFoundError(f"cannot write {path}: the folder {folder} does not exist")
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


# ---- reading: regular files only, capped, folders walked once -------------------
import stat as _stat

DEFAULT_MAX_READ_BYTES = 1 << 30  # 1 GiB: more than any tokenizer or text file this package reads whole
MAX_JSON_BYTES = 256 << 20  # 256 MiB, as for .tiktoken files: GPT-4o's tokenizer.json is 7 MB


def file_kind(mode: int) -> str:
    """What a non-regular ``st_mode`` is, in words ("a FIFO (named pipe)")."""
    for test, name in ((_stat.S_ISDIR, "a folder"), (_stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (_stat.S_ISCHR, "a character device"), (_stat.S_ISBLK, "a block device"),
                       (_stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def regular_file(path, what: str = "file") -> os.stat_result:
    """``os.stat`` of ``path`` (links followed) if it is a regular file; else a clear ``ValueError``.

    Checked before any open, so a FIFO is never opened (opening one blocks) and a
    device such as ``/dev/zero`` is never read.

    >>> regular_file("/dev/null")
    Traceback (most recent call last):
    ...
    ValueError: file /dev/null: a character device, not a regular file
    """
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} {path}: no such file") from None
    except OSError as e:
        raise ValueError(f"{what} {path}: cannot read it ({e.strerror or e})") from None
    if not _stat.S_ISREG(st.st_mode):
        raise ValueError(f"{what} {path}: {file_kind(st.st_mode)}, not a regular file")
    return st


def read_bytes(path, max_bytes: int = DEFAULT_MAX_READ_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file, refused by name above ``max_bytes`` (before reading it)."""
    st = regular_file(path, what)
    if st.st_size > max_bytes:
        raise ValueError(f"{what} {os.fspath(path)}: {st.st_size:,} bytes, more than the {max_bytes:,} "
                         f"this reader reads whole")
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)  # the file may have grown since the stat
    if len(data) > max_bytes:
        raise ValueError(f"{what} {os.fspath(path)}: more than the {max_bytes:,} bytes this reader reads whole")
    return data


class LongDigits:
    """A JSON integer longer than Python converts (``sys.get_int_max_str_digits()``,
    4,300 digits by default), kept as its digits so that a reader can name the file,
    line and key instead of failing inside ``json.loads``."""

    __slots__ = ("digits",)

    def __init__(self, digits: str):
        self.digits = digits

    def __repr__(self):
        return f"<an integer of {len(self.digits):,} digits>"


def json_int(digits: str):
    """``json.loads``' ``parse_int``: an ``int``, or ``LongDigits`` past Python's limit.

    >>> json.loads('[12, ' + '9' * 5000 + ']', parse_int=json_int)
    [12, <an integer of 5,000 digits>]
    """
    try:
        return int(digits)
    except ValueError:
        return LongDigits(digits)


def _refuse_duplicate_keys(pairs):
    """``json.loads``' object hook: a dict, or ``ValueError`` when a key appears twice
    (the standard reader keeps the last silently, so a vocabulary would lose a token)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def read_json(path, what: str = "file", max_bytes: int = MAX_JSON_BYTES):
    """A regular file's JSON, read capped (``read_bytes``); every failure a ``ValueError``
    naming the file: not UTF-8, corrupt, nested too deeply, a key twice in one object.
    ``what`` names the kind of file ("tokenizer.json") in the messages.

    >>> read_json("/dev/null", "tokenizer file")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer file /dev/null: a character device, not a regular file
    """
    path = os.fspath(path)
    raw = read_bytes(path, max_bytes, what)
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=_refuse_duplicate_keys,
                          parse_int=json_int)
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a {what} (not UTF-8: {e})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a {what} (corrupt or truncated? {e})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a {what}: its JSON nests too deeply") from None
    except ValueError as e:  # a duplicate key
        raise ValueError(f"{path}: not a {what}: {e}") from None


def walk_files(folder, keep=lambda name: True) -> list[str]:
    """The regular files under ``folder`` whose name ``keep`` accepts, sorted, each real file once.

    A symlink to a folder is not followed (a link to ``.`` or ``..`` would read the
    tree again or forever); a symlink to a file is read unless its target was
    already listed; a FIFO, device or socket is refused by name.
    """
    folder = os.fspath(folder)
    st = os.stat(folder)
    if not _stat.S_ISDIR(st.st_mode):
        raise ValueError(f"folder {folder}: {file_kind(st.st_mode)}")
    out, seen = [], set()
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(root, d)))
        for name in sorted(files):
            p = os.path.join(root, name)
            if not keep(name):
                continue
            try:
                fst = os.stat(p)
            except OSError as e:
                raise ValueError(f"file {p}: cannot read it ({e.strerror or e})") from None
            if not _stat.S_ISREG(fst.st_mode):
                raise ValueError(f"file {p}: {file_kind(fst.st_mode)}, not a regular file")
            key = (fst.st_dev, fst.st_ino)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return sorted(out)


def check_output(output, where: str = "output") -> None:
    """Refuse, before any training, an output path that cannot be written: a folder, a path
    under a file, a folder this process may not write in. Creates the output's folder.
    ``where`` starts each message: the config's key, or the command line's flag.
    """
    sidecar = output + ".json"
    for p in (output, sidecar):
        if os.path.isdir(p):
            raise ValueError(f"{where}: {p} is a folder; name the .tiktoken file to write, "
                             f"e.g. {os.path.join(p, 'tokenizer.tiktoken')}")
    folder = os.path.dirname(output)
    up = folder
    while up and not os.path.exists(up):
        up = os.path.dirname(up)
    if up and not os.path.isdir(up):
        raise ValueError(f"{where}: {output} would be inside {up}, which is a file, not a folder")
    try:
        os.makedirs(folder, exist_ok=True)
        # a real write, not os.access: it also catches read-only mounts and full disks' quotas
        fd, probe = tempfile.mkstemp(prefix=".bpe-lesson-write-check.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ValueError(f"{where}: cannot write in {folder}: {e.strerror}; choose another output "
                         f"(checked before training, so nothing was lost)") from None
