"""Training text from disk: folders, text files and parquet, streamed in safe pieces.

A phase's sources are read a block at a time (1 MiB) and cut at line breaks into
*units*; the memory budget (``reservoir.py``) keeps or samples the units, and
``counting.py`` splits and counts the units it kept, in worker processes.

Where we may cut. Training must see the chunks it would see if every file were
split whole, so a cut goes only where the split pattern could not make a chunk
across it and treats the text on each side as it would in the whole file:
  gpt4    after "\\n" when the next line has a visible ASCII character after its
          spaces and tabs (a blank next line would extend the run "\\n\\n");
  o200k   the same, unless the next line starts with "/" (o200k lets a punctuation
          chunk run on into "\\n//");
  gpt2 and any other regex: after "\\n" with a visible ASCII character on both
          sides (GPT-2 chunks "\\n  x" as "\\n ", " x", but a file ending "\\n" as "\\n").
The rules are conservative: a line that starts with, say, a CJK character is
not cut off, it just makes its unit longer. ``tests/scale/test_sources.py`` checks on
real text that counting units gives exactly the counts of splitting whole files.
(For a regex of your own the strict rule is a good guess, not a proof.)

subtle: the start and the end of a document (a file or a parquet cell) are not
safe cuts ("end of text" changes how trailing whitespace is chunked), so a unit
that touches either is marked *alone* and is split on its own; every other unit
may be glued to any other, which lets a worker count each distinct unit once.

Invalid UTF-8 is refused, naming the file and the byte offset, as ``bpe-lesson
pack`` refuses it (``lm/pack.py``): one policy for both commands. With the config's
``errors: skip`` a file that fails is left out instead, as ``read_documents(...,
errors="skip")`` leaves it out (``files_units``): a text file whole (it is checked
before it is streamed), a ``.jsonl`` or parquet file from where it failed. Decoding with
replacement would teach the tokenizer a U+FFFD token for bytes that are not text,
and a file with one bad byte is usually a file in another encoding.

What this module does not do: choose what to keep (``reservoir.py``), count
chunks (``counting.py``), or read the YAML (``config.py``). Which files a folder
holds and how a ``.jsonl`` line or a parquet row becomes a document is
``documents.py``'s, the one reader ``pack`` and ``train`` use too.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re

from .._internal.files import regular_file
from ..formats.documents import STDIN, SUFFIXES, expand_sources, jsonl_texts, parquet_texts, stdin_buffer
from ..formats.documents import check_errors
from ..patterns import GPT2_PATTERN, GPT4_PATTERN, safe_cut

__all__ = ["BLOCK_BYTES", "MAX_UNIT_BYTES", "cut_regex", "cut_units", "list_files",
           "text_units", "parquet_units", "jsonl_units", "stream_units", "check_utf8",
           "files_units"]

BLOCK_BYTES = 1 << 20  # read files this much at a time
MAX_UNIT_BYTES = 1 << 20  # no safe cut for this long: cut at a line break anyway (units stay below MAX + BLOCK)

# the newline of each cut point, on UTF-8 bytes (see the module docstring; the rules
# live in patterns.safe_cut); the cut goes right after it. subtle: each regex starts
# with the literal "\n" so that ``re`` can jump from newline to newline (a lookbehind
# first made reading 2x slower).
_CUT_GPT4 = safe_cut(GPT4_PATTERN, binary=True)


def cut_regex(pattern: str) -> re.Pattern:
    """The safe cut points for a (resolved) split pattern: use it with ``cut_units``."""
    return safe_cut(pattern, binary=True)


def cut_units(data: bytes, cut: re.Pattern) -> list[bytes]:
    """Cut ``data`` into units after every safe newline; the units join back to ``data``.

    >>> cut_units(b"def f():\\n    return 1\\n\\nx = f()\\n", cut_regex(GPT4_PATTERN))
    [b'def f():\\n', b'    return 1\\n\\n', b'x = f()\\n']
    >>> cut_units(b"def f():\\n    return 1\\n\\nx = f()\\ny = 2\\n", cut_regex(GPT2_PATTERN))
    [b'def f():\\n    return 1\\n\\nx = f()\\n', b'y = 2\\n']
    """
    parts = cut.split(data)  # the cut newlines are consumed: put them back
    last = parts.pop()
    parts = [p + b"\n" for p in parts]
    parts.append(last)
    return parts


def list_files(folder, glob: str | None = None) -> list[str]:
    """Every .txt, .jsonl and .parquet file under ``folder`` (or those matching ``glob``),
    recursively, sorted (so runs repeat): ``documents.expand_sources``, the reader of
    ``pack`` and ``train`` too.

    Each real file once; symlinks to folders are not followed; a FIFO or device is
    refused by name (``_files.walk_files``).
    """
    return expand_sources(folder, glob)


# ---- streaming --------------------------------------------------------------
# Each generator yields batches (units, alone): a list of bytes and a bytearray
# of 0/1 flags, 1 = the unit touches its document's start or end.


def _force_cut(data: bytes) -> int:
    """Where to cut a unit that found no safe cut: after its last newline, else at a
    UTF-8 character boundary (never inside a character)."""
    at = data.rfind(b"\n", 0, MAX_UNIT_BYTES) + 1
    if at <= 0:
        at = MAX_UNIT_BYTES
        while at > 0 and (data[at] & 0xC0) == 0x80:  # a continuation byte: step back
            at -= 1
    return at


def text_units(path, cut: re.Pattern):
    """Stream a UTF-8 text file (``"-"``: standard input) as units, never holding more
    than a block and a unit.

    >>> import pathlib, tempfile; p = pathlib.Path(tempfile.mkdtemp(), "a.txt")
    >>> _ = p.write_bytes(b"a\\nb\\nc")
    >>> list(text_units(p, _CUT_GPT4))
    [([b'a\\n', b'b\\n'], bytearray(b'\\x01\\x00')), ([b'c'], bytearray(b'\\x01'))]
    """
    carry, carry_alone = b"", 1  # the carry starts at the file's start
    check = codecs.getincrementaldecoder("utf-8")()  # the UTF-8 check, across block edges
    offset = 0  # of this block in the file
    stdin = str(path) == STDIN
    if stdin:
        path = "<stdin>"  # the name in messages
    with (contextlib.nullcontext(stdin_buffer()) if stdin else open(path, "rb")) as f:
        while True:
            block = f.read(BLOCK_BYTES)
            pending = len(check.getstate()[0])  # bytes of a character cut by the last block's end
            try:
                check.decode(block, final=not block)
            except UnicodeDecodeError as e:
                at = offset - pending + e.start
                raise ValueError(f"{path}: not UTF-8 text (byte {at:,}: {e.reason}); "
                                 f"convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)") from None
            offset += len(block)
            if not block:
                break
            parts = cut_units(carry + block, cut)
            carry = parts.pop()  # may continue in the next block
            if parts:
                flags = bytearray(len(parts))
                flags[0] = carry_alone
                yield parts, flags
                carry_alone = 0  # the new carry starts at a safe cut
            while len(carry) > MAX_UNIT_BYTES:  # no safe cut for too long
                at = _force_cut(carry)
                yield [carry[:at]], bytearray(b"\x01")
                carry, carry_alone = carry[at:], 1
    if carry:
        yield [carry], bytearray(b"\x01")  # it touches the end of the file


def _document_units(texts, cut: re.Pattern, batch_docs: int = 1024):
    """Units of whole documents (``texts``), in batches; each document's first and last unit
    touch its edges."""
    units, flags = [], bytearray()
    try:
        for text in texts:
            if not text:
                continue
            parts = cut_units(text.encode("utf-8"), cut)
            units.extend(parts)
            cell = bytearray(len(parts))
            cell[0] = cell[-1] = 1  # a document's first and last unit touch its edges
            flags.extend(cell)
            if len(flags) >= batch_docs:
                yield units, flags
                units, flags = [], bytearray()
    except (OSError, ValueError):
        # subtle: the documents before a bad one are given first, so that a skipped file keeps
        # them, as read_documents(errors="skip") keeps them
        if units:
            yield units, flags
        raise
    if units:
        yield units, flags


def parquet_units(path, cut: re.Pattern, columns=None, batch_rows: int = 1024):
    """Stream the text columns of a parquet file (every string column unless ``columns``
    names some), ``batch_rows`` rows at a time; each non-empty cell is a document.
    A column that is not text (binary, numbers) is refused naming the file and the column."""
    yield from _document_units((text for _, text in parquet_texts(path, columns, batch_rows)), cut,
                               batch_docs=batch_rows)


def jsonl_units(path, cut: re.Pattern, text_field: str = "text"):
    """Stream a ``.jsonl`` file's documents (the string field ``text_field`` of each line) as
    units: never its raw text, whose keys and escapes are not prose."""
    return _document_units((text for _, text in jsonl_texts(path, text_field)), cut)


def stream_units(path, cut: re.Pattern, columns=None, text_field=None):
    """Units of one file, by its suffix: ``.parquet`` (the columns ``columns``, or
    ``[text_field]``, or every string column), ``.jsonl`` (the field ``text_field``,
    default "text"), anything else UTF-8 text."""
    path = str(path)
    if columns is None and text_field is not None:
        columns = [text_field]
    if path.endswith(".parquet"):
        return parquet_units(path, cut, columns)
    if path.endswith(".jsonl"):
        return jsonl_units(path, cut, text_field or (columns[0] if columns else "text"))
    if path != STDIN:
        regular_file(path, "source")
    return text_units(path, cut)


def check_utf8(path) -> None:
    """Read a text file through once, a block at a time, and refuse it as ``text_units`` would
    if it is not UTF-8 (what ``errors: skip`` does before streaming a text file).

    >>> import pathlib, tempfile; p = pathlib.Path(tempfile.mkdtemp(), "a.txt")
    >>> _ = p.write_bytes(b"caf\\xe9")
    >>> check_utf8(p)
    Traceback (most recent call last):
    ...
    ValueError: ...a.txt: not UTF-8 text (byte 3: unexpected end of data); convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)
    """
    for _ in text_units(path, re.compile(b"(?!)")):  # a cut that never matches: no work but the check
        pass


def files_units(files, cut: re.Pattern, errors: str = "strict", skipped=None):
    """Units of every ``(path, columns)`` of ``files``, in order (``stream_units`` each).

    ``errors="skip"``: a file that cannot be read or decoded is left out and
    ``(path, why)`` appended to ``skipped``: a text file whole (``check_utf8`` first),
    a ``.jsonl`` or parquet file from where it failed (its documents before stay).
    """
    check_errors(errors)
    for path, columns in files:
        try:
            if errors == "skip" and path != STDIN and not path.endswith((".jsonl", ".parquet")):
                check_utf8(path)
            yield from stream_units(path, cut, columns)
        except (OSError, ValueError) as e:
            if errors == "strict":
                raise
            skipped.append((path, str(e).removeprefix(f"{path}: ").removeprefix(f"{path}, ")))
