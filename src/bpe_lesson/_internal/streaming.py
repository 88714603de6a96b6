"""Encoding a stream of text pieces (lines of a file, say) lazily, with the ids of the whole.

``encode_iterable(tok, pieces)`` yields the ids of ``tok.encode("".join(pieces))``
without ever joining the whole: it gathers pieces until they hold ``HOLD``
characters, cuts them at the last *safe cut* (``patterns.safe_cut``: a newline the
split pattern never chunks across), encodes what lies before the cut and lets it
go. Memory stays bounded by about twice ``HOLD`` or twice the longest stretch of
text between two safe cuts, not by the text.

Pieces are ``str``, or UTF-8 ``bytes``: an open text file is read a block at a
time (one opened as UTF-8 and not yet read from is mapped like a binary file, up to
its first "\r", which it translates as it was opened to); a file opened in binary mode (``open(path, "rb")``) or an iterable of bytes is
UTF-8 taken as it is (no newline translation, as ``open(path, newline="")`` reads
it), cut at the same safe cuts on bytes and handed to the compiled encoder with no
str made (``Encoder.encode_utf8``); bytes that are not UTF-8 raise
``UnicodeDecodeError`` naming the byte of the stream.

What this module does not do: bound a stream that has no safe cut at all (text with no newline before an ASCII
character is held until its end, since cutting it elsewhere could change its ids).
A special token that is not allowed raises when its stretch is encoded, so ids of
the text before it may already have been yielded.
"""

from __future__ import annotations

import codecs
import io
import mmap
import os
import stat
from functools import partial
from itertools import chain

import numpy as np

from ..patterns import GPT4_PATTERN, safe_cut  # noqa: F401 (GPT4_PATTERN: the doctest)


# How many characters of pieces are gathered before a cut is looked for. A stream of
# short lines then costs one encode call per 64 K characters, not one per line (a call
# costs ~0.5 us, a line of code ~1 us to encode), and a short document passed as one
# piece is encoded whole, with no search. Memory: the text held, at most about twice
# HOLD or twice the longest stretch between safe cuts.
HOLD = 1 << 16
# A mapped file's pages are given back a megabyte at a time (one call per stretch had
# cost 1 ms of 39 on 20 MB of prose): the memory the stream holds stays about that.
GIVE_BACK = 1 << 20


def encode_iterable(tok, pieces, allowed_special=frozenset(), disallowed_special="all"):
    """A lazy iterator of the ids of ``tok.encode("".join(pieces), ...)``, a stretch at a time.

    The ids of each stretch are a list; ``chain.from_iterable`` hands them out one by
    one in C, where a generator's ``yield`` per id had cost 35 ns an id (7 us on a
    700-character document, twice the encoding).

    A list or tuple of pieces shorter than ``HOLD`` in all is one stretch: it is
    encoded at once (a bad piece or a disallowed special token raises here, not at the
    first ``next``), which costs one generator less; on a 10-character document the
    generator and the chain had cost 1.1 us, twice the encoding
    (``benchmarks/per_call.py``).

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> list(encode_iterable(tok, ["ab\\n", "ab", "\\nab"]))
    [256, 10, 256, 10, 256]
    """
    if type(pieces) is tuple or type(pieces) is list:
        try:
            text = "".join(pieces)
        except TypeError:
            text = None  # a piece that is not a str: the stream below names it
        if text is not None and len(text) < HOLD:
            return iter(tok.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special))
    return chain.from_iterable(stretches(tok, pieces, allowed_special, disallowed_special))


def encode_iterable_to_numpy(tok, pieces, allowed_special=frozenset(), disallowed_special="all", dtype=None):
    """``encode_iterable`` one NumPy array per stretch: no Python int is made.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> [a.tolist() for a in encode_iterable_to_numpy(tok, iter(["ab\\n", "ab", "\\nab"]))]
    [[256, 10, 256, 10, 256]]
    """
    def encode(text, allowed_special, disallowed_special):
        return tok.encode_to_numpy(text, allowed_special=allowed_special, disallowed_special=disallowed_special,
                                   **({} if dtype is None else {"dtype": dtype}))
    arrays = dtype is None or dtype is np.uint32  # (another dtype: decoded, then encode_to_numpy's conversion)
    return stretches(tok, pieces, allowed_special, disallowed_special, encode=encode, array=arrays)


def stretches(tok, pieces, allowed_special=frozenset(), disallowed_special="all", hold=None, encode=None,
              array=False):
    """Yield the ids of ``encode_iterable``'s text one stretch (a list) at a time
    (``encode``: how a stretch is encoded, ``tok.encode`` unless given; ``array``: a
    stretch of bytes the compiled encoder takes comes back as a uint32 array).

    Pieces are gathered until they hold ``HOLD`` characters (or bytes), then cut at
    the last safe cut among them; what follows the cut waits for the next pieces. A
    stretch with no safe cut is held on: the next search waits until the text held
    has doubled, so the searches and joins cost time in proportion to the text.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> list(stretches(tok, ["ab\\n", "ab", "\\nab"], hold=1))  # no cut in "ab\\n": wait for 6
    [[256, 10, 256, 10], [256]]
    >>> list(stretches(tok, [b"ab\\n", b"ab", b"\\nab"], hold=1))  # UTF-8 bytes: the same cuts
    [[256, 10, 256, 10], [256]]
    """
    hold = HOLD if hold is None else hold
    encode = tok.encode if encode is None else encode
    if isinstance(pieces, (io.BufferedIOBase, io.RawIOBase)):
        mapped = _mapped(pieces, hold)
        if mapped is not None:
            cut = _cut_for(tok, True)
            if cut is not None:
                yield from _mapped_stretches(mapped, pieces, cut, hold, _utf8(tok, encode, array),
                                             allowed_special, disallowed_special)
                return
            mapped.close()
        pieces = iter(partial(pieces.read, hold), b"")   # a binary file: blocks of bytes
    elif isinstance(pieces, io.TextIOBase):
        mapped = _mapped(pieces, hold) if _utf8_text_file(pieces) else None
        if mapped is not None:
            cut = _cut_for(tok, True)
            if cut is None:
                mapped.close()
            else:
                # its bytes, mapped, up to the first "\r" (which the file translates as it
                # was opened to); from there, if anywhere, the rest is read as text below
                done = yield from _mapped_stretches(mapped, pieces, cut, hold, _utf8(tok, encode, array),
                                                    allowed_special, disallowed_special, stop_at_cr=True)
                if done:
                    return
        # an open text file: the same text read HOLD characters at a time, not line by
        # line (50 MB of code as arrays: 0.35 s by lines, 0.16 s by blocks; the loop
        # below costs ~0.1 us a piece, and code has a line every ~40 characters)
        pieces = iter(partial(pieces.read, hold), "")
    pieces = iter(pieces)
    first = next(pieces, None)
    binary = isinstance(first, (bytes, bytearray, memoryview))
    if binary:
        kinds, empty, newline = (bytes, bytearray, memoryview), b"", b"\n"
        encode = _utf8(tok, encode, array)
    else:
        kinds, empty, newline = str, "", "\n"
    pieces = chain((first,), pieces) if first is not None else pieces
    cut = _cut_for(tok, binary)
    if cut is None:  # a special token holds a newline: a cut could fall inside it
        yield encode(empty.join(_checked(pieces, kinds)), allowed_special=allowed_special,
                     disallowed_special=disallowed_special)
        return
    parts, size = [], 0  # the pieces since the last cut, and their length
    limit = hold         # search for a cut when they hold this much
    start = 0            # newlines before this are known not to be cuts
    kind = bytes if binary else str
    for k, piece in enumerate(pieces):
        if type(piece) is not kind:
            _check_piece(k, piece, kinds)
        parts.append(piece)
        size += len(piece)
        if size < limit:
            continue
        held = parts[0] if len(parts) == 1 else empty.join(parts)
        end = last_cut(cut, held, start)
        if end:
            # (bytes: a view of the stretch, not a copy of it)
            yield encode(memoryview(held)[:end] if binary else held[:end], allowed_special=allowed_special,
                         disallowed_special=disallowed_special)
            held, limit = held[end:], hold
        else:
            limit = 2 * len(held)  # no cut yet: look again once this much has come
        # subtle: the last newline held may become a cut once its next line arrives
        start = max(held.rfind(newline), 0)
        parts, size = [held], len(held)
    held = empty.join(parts)
    if held:
        yield encode(held, allowed_special=allowed_special, disallowed_special=disallowed_special)


def _mapped(f, hold):
    """The rest of binary file ``f`` mapped into memory (read-only), or None: a stream that
    is not a regular file, or less than ``hold`` bytes of it left (read as blocks).
    subtle: as with any mapping, a file cut shorter by another process while it is
    being encoded ends this one (SIGBUS); a file that may change underneath should be
    read into memory first, or passed as an iterator of its lines."""
    stream = f.buffer if isinstance(f, io.TextIOBase) else f
    # subtle: only a file's own bytes: a gzip or bz2 file has a fileno() too, of its
    # compressed bytes, so it must be a FileIO, or a buffered reader straight over one
    if not isinstance(getattr(stream, "raw", stream), io.FileIO):
        return None
    try:
        fd, at = f.fileno(), f.tell()
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_size - at < hold:
            return None
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, io.UnsupportedOperation):
        return None


def _utf8_text_file(f) -> bool:
    """Whether text file ``f`` reads as its bytes decoded as UTF-8, strictly, from where
    its byte stream stands: nothing read ahead or held in its decoder (its position is
    its bytes' position), so its bytes can be encoded in its place."""
    encoding = getattr(f, "encoding", None)  # (None on a StringIO, which has no bytes)
    try:
        return (isinstance(encoding, str) and codecs.lookup(encoding).name == "utf-8" and f.errors == "strict"
                and f.tell() == f.buffer.tell())
    except (AttributeError, LookupError, OSError, ValueError):
        return False


def _mapped_stretches(mm, f, cut, hold, encode, allowed_special, disallowed_special, stop_at_cr=False):
    """``stretches`` of a mapped file: each stretch a view of the mapping (no read, no join,
    no copy: 20 MB of prose had spent 3 ms of 39 on them), from the file's position to
    its end, where the file is left. The pages of each stretch are given back once it
    is encoded, so the memory the process holds stays one stretch, not the file.
    ``stop_at_cr``: stop before the stretch that holds the first "\r", leave the file
    there and return False (True: the whole file was encoded)."""
    view = memoryview(mm)
    pos = f.tell()
    end = len(mm)
    given = pos - pos % GIVE_BACK  # pages before this are given back (or were never read)
    first_cr = mm.find(b"\r", pos) if stop_at_cr else -1
    try:
        while pos < end:
            stop = min(pos + hold, end)
            cut_at = end if stop == end else last_cut(cut, mm, pos, stop)
            while not cut_at:  # no cut in the stretch: look in twice as much
                stop = min(pos + 2 * (stop - pos), end)
                cut_at = end if stop == end else last_cut(cut, mm, pos, stop)
            if 0 <= first_cr < cut_at:
                return False
            part = view[pos:cut_at]
            try:
                ids = encode(part, allowed_special=allowed_special, disallowed_special=disallowed_special)
            finally:
                part.release()  # subtle: else an error's traceback holds it, and the mapping cannot close
            yield ids
            pos = cut_at
            done = pos - pos % GIVE_BACK  # whole megabytes encoded: their pages go back
            if done > given and hasattr(mm, "madvise"):
                mm.madvise(mmap.MADV_DONTNEED, given, done - given)
                given = done
    finally:
        view.release()
        mm.close()
        f.seek(pos)
    return True


def _checked(pieces, kinds):
    """The pieces, each checked to be of ``kinds`` (str, or bytes-like: the first piece's)."""
    for k, piece in enumerate(pieces):
        _check_piece(k, piece, kinds)
        yield piece


def _check_piece(k: int, piece, kinds) -> None:
    """Refuse piece ``k`` unless it is of ``kinds`` (a str subclass among str is fine)."""
    among = "str" if kinds is str else "bytes"
    if isinstance(piece, kinds) and not (kinds is not str and isinstance(piece, str)):
        return
    raise TypeError(f"encode_iterable takes pieces of text (str) or of UTF-8 bytes, one or the other; "
                    f"piece {k} is a {type(piece).__name__} among {among}")


def _utf8(tok, encode, array: bool):
    """How a stretch of UTF-8 bytes is encoded: by the compiled encoder as bytes when it
    takes them (``_whole_call_utf8``), else decoded and passed to ``encode``; a byte
    that is not UTF-8 raises ``UnicodeDecodeError`` with a note of where in the stream."""
    whole_call = getattr(tok, "_whole_call_utf8", None)
    offset = 0  # bytes of the stream before this stretch

    def run(data, allowed_special, disallowed_special):
        nonlocal offset
        ids = None if whole_call is None else whole_call(data, allowed_special, disallowed_special, array)
        if ids is None:
            try:
                text = bytes(data).decode("utf-8")
            except UnicodeDecodeError as e:
                e.add_note(f"encode_iterable: byte {offset + e.start:,} of the stream is not UTF-8")
                raise
            ids = encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        offset += len(data)
        return ids
    return run


def last_cut(cut, text, start: int = 0, stop: int | None = None) -> int:
    """Where the last safe cut of ``text`` (str, or bytes with a binary ``cut``) at or
    after ``start`` ends (0: none), found from the end: one ``rfind`` and one anchored
    match per newline tried, so a stretch with its last line cut-able costs two
    calls, not a scan of all of it.

    >>> last_cut(safe_cut(GPT4_PATTERN), "a\\nb\\nc\\n"), last_cut(safe_cut(GPT4_PATTERN, binary=True), b"a\\nb\\n")
    (4, 2)
    """
    newline = "\n" if isinstance(text, str) else b"\n"
    pos = len(text) if stop is None else stop
    while True:
        pos = text.rfind(newline, start, pos)
        if pos < 0:
            return 0
        m = cut.match(text, pos)
        if m is not None:
            return m.end()


def _cut_for(tok, binary: bool = False):
    """The safe cuts of ``tok``'s pattern (on str, or on bytes when ``binary``), or None
    when one of its special tokens holds a newline; worked out once per tokenizer and
    kept with it (a short document's call had spent more on this than on encoding)."""
    kept = getattr(tok, "_stream_cut", None)  # (pattern, special_tokens, how many, cuts on str, on bytes)
    if kept is not None and kept[0] is tok.pattern and kept[1] is tok.special_tokens \
            and kept[2] == len(tok.special_tokens):
        return kept[4 if binary else 3]
    split = any("\n" in s for s in tok.special_tokens)
    cut = None if split else safe_cut(tok.pattern)
    cut_bytes = None if split else safe_cut(tok.pattern, binary=True)
    try:
        tok._stream_cut = (tok.pattern, tok.special_tokens, len(tok.special_tokens), cut, cut_bytes)
    except AttributeError:  # (an object that takes no new attribute: no cache)
        pass
    return cut_bytes if binary else cut
