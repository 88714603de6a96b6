"""Documents from disk: one reader for ``train``, the YAML trainer and ``pack``.

The kinds, told apart by the name:
  ``.txt`` (and any file named on its own)  one document, UTF-8 text;
  ``.jsonl``    one document per non-blank line: the string field ``text_field``;
  ``.parquet``  one document per row: the string column ``text_field``;
  a folder      its ``.txt``, ``.jsonl`` and ``.parquet`` files, recursively, sorted,
                or the files matching ``glob`` (``"**/*.py"``) relative to it;
  ``-``         standard input, one UTF-8 document.
A ``.jsonl`` file is never read as raw text: its keys and escapes are not prose.
A source that does not exist but holds ``*``, ``?`` or ``[`` is a path glob
(``"corpus/**/*.txt"``, for a shell that did not expand it), its matches sorted;
one that matches nothing is an error naming it.
The option names are the same everywhere: ``text_field`` and ``glob`` in Python
and in a YAML source, ``--text-field`` and ``--glob`` on the command line.
(Older names still accepted: ``columns:`` of a YAML source, a list of parquet
columns; deprecated in favour of ``text_field``.)

Every file is opened through ``_files`` (regular files only: a FIFO, a device
or a symlinked folder is refused by name). Invalid UTF-8 is refused, naming the
file and the byte offset; a JSON line that is bad, not an object, or lacks the
field is refused naming the file and the line. With ``errors="skip"``
(``--errors skip``) such a file is left out instead, from where it failed (a
``.jsonl`` keeps the lines before its bad one), and one warning at the end counts
them and names the first few; the default, ``"strict"``, stops at the first.

What this module does not do: cut text for the YAML trainer's memory budget
(``scale/sources.py`` streams the same kinds in safe pieces), tokenize, or guess
a file's kind from its content.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob as path_glob
import json
import os
import re
import stat
import sys
import warnings

from .._internal.files import LongDigits, json_int, read_bytes, regular_file, walk_files
from .._internal.optional import optional_import

__all__ = ["SUFFIXES", "STDIN", "ERRORS", "SHOW_SKIPPED", "glob_matches",
           "expand_sources", "check_errors", "stdin_buffer", "jsonl_texts",
           "parquet_text_columns", "parquet_texts", "iter_documents", "skipped_message",
           "read_documents"]

SUFFIXES = (".txt", ".jsonl", ".parquet")
STDIN = "-"
ERRORS = ("strict", "skip")  # a file that cannot be read or decoded: stop, or leave it out with a warning
SHOW_SKIPPED = 3  # the skip warning names this many files


def glob_matches(relpath: str, glob: str) -> bool:
    """Whether a path relative to the searched folder matches ``glob``: ``fnmatch``, where
    ``*`` crosses ``/``, and where each ``**/`` may also match no folder at all (so
    ``"**/*.txt"`` takes ``a.txt`` beside ``sub/b.txt``, as ``pathlib.Path.glob`` does).

    >>> glob_matches("a.txt", "**/*.txt"), glob_matches("sub/b.txt", "**/*.txt"), glob_matches("a.py", "**/*.txt")
    (True, True, False)
    >>> glob_matches("src/a.py", "src/**/*.py"), glob_matches("x/src/a.py", "src/**/*.py")
    (True, False)
    """
    relpath = relpath.replace(os.sep, "/")
    parts = glob.split("**/")
    # each "**/" kept or dropped: at most a few in a real glob, so every choice is tried
    choices = [parts[0]]
    for part in parts[1:]:
        choices = [c + "**/" + part for c in choices] + [c + part for c in choices]
    return any(fnmatch.fnmatch(relpath, c) for c in choices)


def expand_sources(sources, glob: str | None = None, outputs=(), errors: str = "strict") -> list[str]:
    """Files in order: each source as given; a folder becomes its files, sorted, recursively.

    ``outputs``: the files and folders the caller writes (pack's ``--out`` folder, the
    YAML trainer's output). Never read: a folder walked leaves them out (a pack's own
    lock, tokenizer and shards, a previous run's output), and a source named
    explicitly that is one of them, or inside one, is refused.

    In a folder, the files of the known kinds (``SUFFIXES``), or those whose path
    relative to the folder matches ``glob`` (``glob_matches``: ``*`` crosses ``/``, so
    ``"*.py"`` finds them at any depth, and ``"**/"`` matches the top level too, as in
    ``pathlib``). ``"-"`` stays ``"-"`` (standard input). A source that does not exist
    but holds ``*``, ``?`` or ``[`` is a path glob (``**`` crosses folders), its matches
    sorted. ``errors="skip"``: a file that cannot be opened is kept here, to be skipped
    (and counted) by ``iter_documents``, instead of refused.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> for name in ("a.txt", "b.jsonl", "c.py"): _ = open(os.path.join(d, name), "w").write("x")
    >>> [os.path.basename(p) for p in expand_sources(d)], [os.path.basename(p) for p in expand_sources(d, "*.py")]
    (['a.txt', 'b.jsonl'], ['c.py'])
    """
    check_errors(errors)
    out = []
    for s in _path_globs([sources] if isinstance(sources, (str, os.PathLike)) else sources):
        if s == STDIN:
            stdin_buffer()  # refused now, before anything is written, if there is none
            out.append(s)
            continue
        try:
            is_dir = stat.S_ISDIR(os.stat(s).st_mode)
        except FileNotFoundError:
            raise FileNotFoundError(f"source {s!r}: no such file or folder") from None
        if is_dir:  # each real file once; a symlink to a folder (to . or ..) is not followed
            if glob is None:
                found = walk_files(s, keep=lambda name: name.endswith(SUFFIXES))
            else:
                found = [p for p in walk_files(s) if glob_matches(os.path.relpath(p, s), glob)]
            found = [p for p in found if _output_of(p, outputs) is None]
            if not found:
                what = (f"file matching {glob!r}" if glob else
                        "file of the kinds " + ", ".join(SUFFIXES) + "; pick its files with a glob (--glob)")
                raise ValueError(f"the folder {s} holds no {what}")
            out += found
        else:
            regular_file(s, "source")  # a FIFO or device is refused by name, never opened
            written = _output_of(s, outputs)
            if written is not None:
                raise ValueError(f"source {s} is {'the output' if _same(s, written) else 'inside the output'} "
                                 f"{written}, which this run writes; read from another file or write elsewhere")
            out.append(s)
    for p in out:  # before anything is written: an unreadable source fails now
        if p == STDIN:
            continue
        try:
            with open(p, "rb") as f:
                f.read(1)
        except OSError as e:
            if errors == "strict":
                raise ValueError(f"source {p}: cannot read it ({e.strerror or e})") from None
    return out


def check_errors(errors) -> None:
    """Refuse an ``errors`` policy that is not one of ``ERRORS``."""
    if errors not in ERRORS:
        raise ValueError(f"errors {errors!r} should be 'strict' (stop at a file that cannot be read or "
                         f"decoded) or 'skip' (leave it out, with a warning)")


def _path_globs(sources):
    """Each source, with a path glob that names no existing path replaced by its matches, sorted.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> for name in ("b.txt", "a.txt"): _ = open(os.path.join(d, name), "w").write("x")
    >>> [os.path.basename(p) for p in _path_globs([os.path.join(d, "*.txt")])]
    ['a.txt', 'b.txt']
    """
    for s in sources:
        s = os.fspath(s)
        if s == STDIN or os.path.lexists(s) or not re.search(r"[*?[]", s):
            yield s
            continue
        matches = sorted(path_glob.glob(s, recursive=True))
        if not matches:
            raise FileNotFoundError(f"source {s!r}: the glob matches no file or folder")
        yield from matches


def stdin_buffer():
    """Standard input's bytes (``sys.stdin.buffer``), or ``ValueError`` when there is none: a
    shell's ``<&-`` closes it (``sys.stdin`` is None), a Jupyter kernel's has no buffer."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None or buffer.closed:
        raise ValueError("source '-' is standard input, but this process has none (closed, as by <&-, or "
                         "not a byte stream); pipe the text in, or name a file")
    return buffer


def _same(a, b) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _output_of(path, outputs):
    """The output (a file, or a folder) that ``path`` is or lies inside, or None.

    >>> _output_of("/data/out/shard_0.bin", ["/data/out"]), _output_of("/data/in.txt", ["/data/out"])
    ('/data/out', None)
    """
    real = os.path.realpath(path)
    for o in outputs:
        o = os.fspath(o)
        r = os.path.realpath(o)
        if real == r or real.startswith(r.rstrip(os.sep) + os.sep):
            return o
    return None


def _utf8(raw: bytes, where: str, at: int = 0) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: not UTF-8 text (byte {at + e.start:,}: {e.reason}); "
                         f"convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)") from None


def jsonl_texts(path, text_field: str = "text"):
    """Yield ``(line number, text)`` for every non-blank line of a ``.jsonl`` file.

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> _ = open(path, "w").write('{"text": "hi"}\\n\\n{"text": "", "id": 2}\\n')
    >>> list(jsonl_texts(path))
    [(1, 'hi'), (3, '')]
    """
    regular_file(path, "source")
    with open(path, "rb") as f:
        at = 0  # byte offset of the line in the file
        for lineno, raw in enumerate(f, start=1):
            line = _utf8(raw, f"{path}, line {lineno}", at)
            at += len(raw)
            if not line.strip():
                continue
            try:
                obj = json.loads(line, parse_int=json_int)  # an id of 5,000 digits is no error
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {lineno}: not valid JSON ({e})") from None
            except RecursionError:
                raise ValueError(f"{path}, line {lineno}: its JSON nests too deeply") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}, line {lineno}: a JSON {type(obj).__name__}, not an object; "
                                 f"each line should be an object such as {{{json.dumps(text_field)}: \"...\"}}")
            text = obj.get(text_field)
            if not isinstance(text, str):
                found = ("missing" if text_field not in obj else repr(text)[1:-1]
                         if isinstance(text, LongDigits) else f"a {type(text).__name__}")
                raise ValueError(f"{path}, line {lineno}: the field {text_field!r} is {found}, not a string "
                                 f"(its fields: {sorted(obj)}); name the text field with text_field "
                                 f"(--text-field on the command line)")
            yield lineno, text


def parquet_text_columns(path, names=None) -> list[str]:
    """The columns of a parquet file to read as text: ``names`` (checked), or every string column.

    A column of another type is refused naming the file and the column (a binary
    column holds bytes whose encoding the file does not say).
    """
    pa = optional_import("pyarrow", "reading Parquet files")
    pq = optional_import("pyarrow.parquet", "reading Parquet files")

    regular_file(path, "source")
    with _parquet_errors(path):
        schema = pq.read_schema(path)
    texty = [f.name for f in schema if _is_text(pa, f.type)]
    if names is None:
        if not texty:
            raise ValueError(f"{path}: no text column (its columns: {schema.names}); "
                             f"name the text column with text_field")
        return texty
    for c in names:
        if c not in schema.names:
            raise ValueError(f"{path}: no column {c!r} (its columns: {schema.names}); "
                             f"name the text column with text_field (--text-field on the command line)")
        if c not in texty:
            raise ValueError(f"{path}: column {c!r} holds {schema.field(c).type}, not text (strings); "
                             f"decode it to UTF-8 strings first, or name a string column with text_field")
    return list(names)


def _is_text(pa, kind) -> bool:
    """A string column, plain or dictionary-encoded (pandas writes categories that way)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


@contextlib.contextmanager
def _parquet_errors(path):
    """pyarrow's errors on a damaged file (a bad footer, a truncated page) name no file:
    name it, and say what it is not."""
    pa = optional_import("pyarrow", "reading Parquet files")

    try:
        yield
    except (pa.ArrowException, OSError) as e:
        raise ValueError(f"{path}: not a readable parquet file ({e})") from None


def parquet_texts(path, columns, batch_rows: int = 4096):
    """Yield ``(row, text)`` for each cell of the text ``columns`` of a parquet file
    (every string column when ``columns`` is None), row by row, ``batch_rows`` at a
    time; a null cell is ``""``. A damaged file is refused naming it."""
    pq = optional_import("pyarrow.parquet", "reading Parquet files")

    columns = parquet_text_columns(path, columns)
    row = 0
    with _parquet_errors(path):
        for batch in pq.ParquetFile(path).iter_batches(columns=list(columns), batch_size=batch_rows):
            cells = [c.to_pylist() for c in batch.columns]
            for k in range(batch.num_rows):
                for col in cells:
                    yield row, col[k] or ""
                row += 1


def iter_documents(paths, text_field: str = "text", errors: str = "strict"):
    """Yield ``(label, text)`` for every document of the files, in order (see the module docstring).

    ``errors="skip"``: a file that cannot be read or decoded is left out from where it
    failed, and one warning at the end says how many and names the first few.

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> _ = open(path, "w").write('{"text": "hi"}\\n\\n{"text": ""}\\n')
    >>> [(os.path.basename(label), text) for label, text in iter_documents([path])]
    [('a.jsonl:1', 'hi'), ('a.jsonl:3', '')]
    """
    check_errors(errors)
    skipped = []  # (path, why)
    n_files = 0
    for path in paths:
        n_files += 1
        try:
            yield from _file_documents(path, text_field)
        except (OSError, ValueError) as e:  # unreadable, not UTF-8, a bad JSON line, a damaged parquet file
            if errors == "strict":
                raise
            skipped.append((path, str(e).removeprefix(f"{path}: ").removeprefix(f"{path}, ")))
    if skipped:
        warnings.warn(skipped_message(skipped, n_files), stacklevel=2)


def skipped_message(skipped, n_files: int) -> str:
    """The one warning ``errors="skip"`` gives: how many files, and the first few with why.

    >>> skipped_message([("a.py", "not UTF-8 text (byte 3: invalid start byte)")], 10)
    'skipped 1 of 10 files that could not be read as documents: a.py (not UTF-8 text (byte 3: invalid start byte))'
    """
    shown = ", ".join(f"{path} ({why.split('; ')[0]})" for path, why in skipped[:SHOW_SKIPPED])  # not the hint
    more = f", and {len(skipped) - SHOW_SKIPPED:,} more" if len(skipped) > SHOW_SKIPPED else ""
    return f"skipped {len(skipped):,} of {n_files:,} files that could not be read as documents: {shown}{more}"


def _file_documents(path, text_field):
    """``(label, text)`` of one file (``iter_documents``' step)."""
    if path == STDIN:
        yield "<stdin>", _utf8(stdin_buffer().read(), "<stdin>")
    elif path.endswith(".jsonl"):
        for lineno, text in jsonl_texts(path, text_field):
            yield f"{path}:{lineno}", text
    elif path.endswith(".parquet"):
        for row, text in parquet_texts(path, [text_field]):
            yield f"{path}[row {row}]", text
    else:
        yield path, _utf8(read_bytes(path, what="source"), path)


def read_documents(sources, text_field: str = "text", glob: str | None = None, errors: str = "strict"):
    """The texts of ``sources`` (files, folders, path globs, ``"-"``), in order: what ``train`` takes.

    ``errors="skip"`` leaves out a file that cannot be read or decoded, with one
    warning at the end (``iter_documents``); the default stops at it, naming it.

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> _ = open(path, "w").write('{"body": "low lower"}\\n{"body": "lowest"}\\n')
    >>> from bpe_lesson import train
    >>> train(read_documents(path, text_field="body"), 258, pattern=None).decode_single_token_bytes(256)
    b'lo'
    """
    for _, text in iter_documents(expand_sources(sources, glob, errors=errors), text_field, errors):
        yield text
