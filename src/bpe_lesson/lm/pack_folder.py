"""The folder a pack writes into: one pack at a time, its state file, its tokenizer file.

``folder_lock`` keeps a second pack out while one runs; ``_start_or_resume`` reads a
killed run's ``pack_state.json`` (same settings: resume) or starts a fresh one;
``_clean_partial`` removes what a killed run left half-written; ``pack_tokenizer``
checks what ``--tokenizer`` names before the folder is made, and ``tokenizer_file``
puts a tokenizer given by object or by name into the folder as a file, so the folder
carries the tokenizer its ids need; ``locked_folder`` makes and locks the folder, and
takes back what a pack refused before its plan had written.

What this module does not do: encode or write shards (``pack.py``), or check a
finished folder (``shards.py``).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import re

from .._internal.files import atomic_write
from ..formats.pretrained import NAMES as PRETRAINED_NAMES
from ..formats.pretrained import from_pretrained, pretrained_name
from ..tokenizer import Tokenizer
from .shards import MANIFEST, STATE

__all__ = ["folder_lock", "pack_tokenizer", "tokenizer_file", "TOKENIZER_FILES",
           "locked_folder"]


class folder_lock:
    """``with folder_lock(out_dir):`` an exclusive lock on ``out_dir/.pack.lock``, or a
    ``ValueError`` at once when another process holds it. The lock file is removed when
    the pack ends, so a finished folder holds only its shards and manifest.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> with folder_lock(d):
    ...     os.listdir(d)
    ['.pack.lock']
    >>> os.listdir(d)
    []
    """

    def __init__(self, out_dir):
        self.path = os.path.join(out_dir, ".pack.lock")

    def __enter__(self):
        try:
            self._f = open(self.path, "a+")
        except OSError as e:
            raise ValueError(f"{os.path.dirname(self.path)}: cannot write in the folder ({e.strerror or e})") from None
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._f.seek(0)
            who = self._f.read().strip() or "?"
            self._f.close()
            raise ValueError(f"{os.path.dirname(self.path)}: another pack (process {who}) is writing into this "
                             f"folder; wait for it, or pack into another folder") from None
        # subtle: the pack before us may have removed the file after we opened it; a lock on
        # that removed file locks nothing, so take the lock again on the file now at the path
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            current = None
        if current is None or not os.path.samestat(current, os.fstat(self._f.fileno())):
            self._f.close()
            return self.__enter__()
        self._f.seek(0)
        self._f.truncate()
        self._f.write(str(os.getpid()))
        self._f.flush()
        return self

    def __exit__(self, *exc):
        try:
            os.unlink(self.path)  # removed while still locked: a pack that opens it now retries
        except FileNotFoundError:
            pass
        self._f.close()  # closing releases the lock


def pack_tokenizer(tokenizer):
    """What ``tokenizer`` names, checked before a pack makes its folder: a ``Tokenizer``
    (given, or loaded by a model vocabulary's name) or the path of a file that exists.

    >>> pack_tokenizer("nonexistent_model")
    Traceback (most recent call last):
    ...
    ValueError: --tokenizer nonexistent_model: no such file, and not a vocabulary the package knows (its names: ...)
    """
    if isinstance(tokenizer, Tokenizer):
        return tokenizer
    path = os.fspath(tokenizer)
    if os.path.exists(path):
        return path
    if pretrained_name(path) is not None:  # a name, an alias or an OpenAI model's name
        return from_pretrained(path)
    if os.sep in path or path.endswith((".json", ".tiktoken")):
        raise ValueError(f"--tokenizer {path}: no such file")
    names = ", ".join(sorted(PRETRAINED_NAMES))
    raise ValueError(f"--tokenizer {path}: no such file, and not a vocabulary the package knows "
                     f"(its names: {names})")


def tokenizer_file(tokenizer, out_dir) -> str:
    """The tokenizer file a pack reads: a path as given; a ``Tokenizer`` is written into
    ``out_dir`` as ``tokenizer.tiktoken`` (``tokenizer`` as ``pack_tokenizer`` returns it)."""
    if not isinstance(tokenizer, Tokenizer):
        return tokenizer
    path = os.path.join(out_dir, TOKENIZER_FILES[0])
    tokenizer.save_tiktoken(path)  # the same tokenizer gives the same bytes: a resumed pack matches
    return path


TOKENIZER_FILES = ("tokenizer.tiktoken", "tokenizer.tiktoken.json")  # what tokenizer_file writes


@contextlib.contextmanager
def locked_folder(out_dir):
    """``with locked_folder(out_dir) as planned:`` ``out_dir`` made if missing and locked
    (``folder_lock``); the pack calls ``planned()`` once it knows what to write. Refused
    before that, it leaves nothing it made: not its tokenizer files, not the folder."""
    made = not os.path.isdir(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {out_dir}: cannot create the folder ({e.strerror or e})") from None
    done = []
    try:
        with folder_lock(out_dir):
            new = [p for p in (os.path.join(out_dir, n) for n in TOKENIZER_FILES) if not os.path.exists(p)]
            try:
                yield lambda: done.append(True)
            except BaseException:
                for path in new if not done else ():
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                raise
    except BaseException:
        if made and not done and not os.listdir(out_dir):
            os.rmdir(out_dir)
        raise


def _write_json(path, obj) -> None:
    atomic_write(path, (json.dumps(obj, indent=1) + "\n").encode("utf-8"))


def _clean_partial(out_dir, keep: int) -> None:
    """Remove temporary files and any shard numbered ``keep`` or above (a killed run's leftovers)."""
    for pattern in (".shard_*.tmp", "." + STATE + ".*.tmp", "." + MANIFEST + ".*.tmp"):
        for p in glob.glob(os.path.join(out_dir, pattern)):
            os.unlink(p)
    for p in glob.glob(os.path.join(out_dir, "shard_*.bin")):
        m = re.fullmatch(r"shard_(\d+)\.bin", os.path.basename(p))
        if m and int(m.group(1)) >= keep:
            os.unlink(p)


def _start_or_resume(out_dir, settings: dict, overwrite: bool) -> dict:
    """The state to continue from: a killed run's (same settings), or a fresh one written now."""
    state_path, manifest_path = os.path.join(out_dir, STATE), os.path.join(out_dir, MANIFEST)
    if os.path.exists(state_path):
        try:
            with open(state_path, encoding="utf-8") as f:
                state = json.load(f)
            if not isinstance(state, dict) or not isinstance(state.get("settings"), dict):
                raise ValueError("not a pack state")
        except (ValueError, RecursionError) as e:
            raise ValueError(f"{state_path} is not a pack state file ({str(e)[:80]}); delete it, or pass "
                             f"--overwrite to start over") from None
        changed = [k for k in settings if state["settings"].get(k) != settings[k]]
        if not changed:
            return state  # resume
        if not overwrite:
            raise ValueError(f"{out_dir} holds an unfinished pack with other settings ({', '.join(changed)} "
                             f"differ); pack into another folder, or pass --overwrite to start over")
    old = glob.glob(os.path.join(out_dir, "shard_*.bin"))
    if (old or os.path.exists(manifest_path)) and not overwrite:
        raise ValueError(f"{out_dir} already holds shards; pack into an empty folder or pass --overwrite")
    for p in old + [manifest_path, state_path]:
        if os.path.exists(p):
            os.unlink(p)
    state = {"settings": settings, "next_document": 0, "documents": 0, "empty_documents": 0, "shards": []}
    _write_json(state_path, state)  # from here on, shard files in this folder are ours
    return state
