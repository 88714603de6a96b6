"""Documents from disk: one reader for ``train``, the YAML trainer and ``pack``.

The kinds, told apart by the name:
  ``.txt`` (and any file named on its own)  one document, UTF-8 text;
  ``.jsonl``    one document per non-blank line: the string field ``text_field``;
  ``.parquet``  one document per row: the string column ``text_field``;
  a folder      its ``.txt``, ``.jsonl`` and ``.parquet`` files, recursively, sorted,
                or the files matching ``glob`` (``"**/*.py"``) relative to it;
  ``-``         standard input, one UTF-8 document.
A ``.jsonl`` file is never read as raw text: its keys and escapes are not prose.
The option names are the same everywhere: ``text_field`` and ``glob`` in Python
and in a YAML source, ``--text-field`` and ``--glob`` on the command line.
(Older names still accepted: ``columns:`` of a YAML source, a list of parquet
columns; deprecated in favour of ``text_field``.)

Every file is opened through ``_files`` (regular files only: a FIFO, a device
or a symlinked folder is refused by name). Invalid UTF-8 is refused, naming the
file and the byte offset; a JSON line that is bad, not an object, or lacks the
field is refused naming the file and the line.

What this module does not do: cut text for the YAML trainer's memory budget
(``scale/sources.py`` streams the same kinds in safe pieces), tokenize, or guess
a file's kind from its content.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import stat
import sys

from .._internal.files import read_bytes, regular_file, walk_files

SUFFIXES = (".txt", ".jsonl", ".parquet")
STDIN = "-"


def expand_sources(sources, glob: str | None = None) -> list[str]:
    """Files in order: each source as given; a folder becomes its files, sorted, recursively.

    In a folder, the files of the known kinds (``SUFFIXES``), or those whose path
    relative to the folder matches ``glob`` (``fnmatch``: ``*`` crosses ``/``, so
    ``"*.py"`` finds them at any depth). ``"-"`` stays ``"-"`` (standard input).

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> for name in ("a.txt", "b.jsonl", "c.py"): _ = open(os.path.join(d, name), "w").write("x")
    >>> [os.path.basename(p) for p in expand_sources(d)], [os.path.basename(p) for p in expand_sources(d, "*.py")]
    (['a.txt', 'b.jsonl'], ['c.py'])
    """
    out = []
    for s in [sources] if isinstance(sources, (str, os.PathLike)) else sources:
        s = os.fspath(s)
        if s == STDIN:
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
                found = [p for p in walk_files(s) if fnmatch.fnmatch(os.path.relpath(p, s), glob)]
            if not found:
                what = f"file matching {glob!r}" if glob else "file of the kinds " + ", ".join(SUFFIXES)
                raise ValueError(f"the folder {s} holds no {what}")
            out += found
        else:
            regular_file(s, "source")  # a FIFO or device is refused by name, never opened
            out.append(s)
    for p in out:  # before anything is written: an unreadable source fails now
        if p == STDIN:
            continue
        try:
            with open(p, "rb") as f:
                f.read(1)
        except OSError as e:
            raise ValueError(f"source {p}: cannot read it ({e.strerror or e})") from None
    return out


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
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {lineno}: not valid JSON ({e})") from None
            except RecursionError:
                raise ValueError(f"{path}, line {lineno}: its JSON nests too deeply") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}, line {lineno}: a JSON {type(obj).__name__}, not an object; "
                                 f"each line should be an object such as {{{json.dumps(text_field)}: \"...\"}}")
            text = obj.get(text_field)
            if not isinstance(text, str):
                found = "missing" if text_field not in obj else f"a {type(text).__name__}"
                raise ValueError(f"{path}, line {lineno}: the field {text_field!r} is {found}, not a string "
                                 f"(its fields: {sorted(obj)}); name the text field with text_field "
                                 f"(--text-field on the command line)")
            yield lineno, text


def parquet_text_columns(path, names=None) -> list[str]:
    """The columns of a parquet file to read as text: ``names`` (checked), or every string column.

    A column of another type is refused naming the file and the column (a binary
    column holds bytes whose encoding the file does not say).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    regular_file(path, "source")
    with _parquet_errors(path):
        schema = pq.read_schema(path)
    texty = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
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


@contextlib.contextmanager
def _parquet_errors(path):
    """pyarrow's errors on a damaged file (a bad footer, a truncated page) name no file:
    name it, and say what it is not."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowException, OSError) as e:
        raise ValueError(f"{path}: not a readable parquet file ({e})") from None


def parquet_texts(path, columns, batch_rows: int = 4096):
    """Yield ``(row, text)`` for each cell of the text ``columns`` of a parquet file
    (every string column when ``columns`` is None), row by row, ``batch_rows`` at a
    time; a null cell is ``""``. A damaged file is refused naming it."""
    import pyarrow.parquet as pq

    columns = parquet_text_columns(path, columns)
    row = 0
    with _parquet_errors(path):
        for batch in pq.ParquetFile(path).iter_batches(columns=list(columns), batch_size=batch_rows):
            cells = [c.to_pylist() for c in batch.columns]
            for k in range(batch.num_rows):
                for col in cells:
                    yield row, col[k] or ""
                row += 1


def iter_documents(paths, text_field: str = "text"):
    """Yield ``(label, text)`` for every document of the files, in order (see the module docstring).

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> _ = open(path, "w").write('{"text": "hi"}\\n\\n{"text": ""}\\n')
    >>> [(os.path.basename(label), text) for label, text in iter_documents([path])]
    [('a.jsonl:1', 'hi'), ('a.jsonl:3', '')]
    """
    for path in paths:
        if path == STDIN:
            yield "<stdin>", _utf8(sys.stdin.buffer.read(), "<stdin>")
        elif path.endswith(".jsonl"):
            for lineno, text in jsonl_texts(path, text_field):
                yield f"{path}:{lineno}", text
        elif path.endswith(".parquet"):
            for row, text in parquet_texts(path, [text_field]):
                yield f"{path}[row {row}]", text
        else:
            yield path, _utf8(read_bytes(path, what="source"), path)


def read_documents(sources, text_field: str = "text", glob: str | None = None):
    """The texts of ``sources`` (files, folders, ``"-"``), in order: what ``train`` takes.

    >>> import tempfile; path = os.path.join(tempfile.mkdtemp(), "a.jsonl")
    >>> _ = open(path, "w").write('{"body": "low lower"}\\n{"body": "lowest"}\\n')
    >>> from bpe_lesson import train
    >>> train(read_documents(path, text_field="body"), 258, pattern=None).decode_single_token_bytes(256)
    b'lo'
    """
    for _, text in iter_documents(expand_sources(sources, glob), text_field):
        yield text
