"""Encoding a stream of text pieces (lines of a file, say) lazily, with the ids of the whole.

``encode_iterable(tok, pieces)`` yields the ids of ``tok.encode("".join(pieces))``
without ever joining the whole: it gathers pieces until they hold ``HOLD``
characters, cuts them at the last *safe cut* (``patterns.safe_cut``: a newline the
split pattern never chunks across), encodes what lies before the cut and lets it
go. Memory stays bounded by about twice ``HOLD`` or twice the longest stretch of
text between two safe cuts, not by the text.

Pieces are ``str``, or UTF-8 ``bytes`` (``bytearray`` and ``memoryview`` too): an open
text file is read a block at a time; a file opened in binary mode (``open(path, "rb")``)
or an iterable of bytes is UTF-8 taken as it is (no newline translation, as
``open(path, newline="")`` reads it), cut at the same safe cuts on bytes and handed to
the compiled encoder with no str made (``Encoder.encode_utf8``); bytes that are not
UTF-8 raise ``UnicodeDecodeError`` naming the byte of the stream. A file is read, not
mapped (``_blocks``): one that shrinks while it is encoded raises ``OSError`` naming it.

What this module does not do: bound a stream that has no safe cut at all (text with no newline before an ASCII
character is held until its end, since cutting it elsewhere could change its ids; so is
all the text of a tokenizer with no split pattern, whose one chunk is the whole text).
A custom pattern's cuts are checked on the text held (``_CheckedCut``), not proven.
A special token that is not allowed raises when its stretch is encoded, so ids of
the text before it may already have been yielded.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
from itertools import chain

import numpy as np

from .._internal.arguments import array_dtype, as_dtype
from ..patterns import PATTERNS, compile_pattern, safe_cut
from ..patterns import GPT4_PATTERN  # noqa: F401 (the doctests)
from .special_tokens import DisallowedSpecial

__all__ = ["HOLD", "encode_iterable", "encode_iterable_to_numpy", "stretches",
           "last_cut", "TRIES"]


# How many characters of pieces are gathered before a cut is looked for. A stream of
# short lines then costs one encode call per 64 K characters, not one per line (a call
# costs ~0.5 us, a line of code ~1 us to encode), and a short document passed as one
# piece is encoded whole, with no search. Memory: the text held, at most about twice
# HOLD or twice the longest stretch between safe cuts.
HOLD = 1 << 16


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
    dtype = np.dtype(np.uint32) if dtype is None else array_dtype(dtype)  # "uint16", np.uint16, a dtype

    def encode(text, allowed_special, disallowed_special):
        return tok.encode_to_numpy(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
    # every stretch as a uint32 array (compiled or not), then the one conversion that
    # checks each id fits (``as_dtype``: uint16 holds ids up to 65,535)
    arrays = stretches(tok, pieces, allowed_special, disallowed_special, encode=encode, array=True)
    return (as_dtype(_as_array(ids), dtype) for ids in arrays)


def _as_array(ids) -> np.ndarray:
    """A stretch's ids as a uint32 array (a stretch the compiled encoder did not take is a list)."""
    return ids if isinstance(ids, np.ndarray) else np.array(ids, dtype=np.uint32)


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
        pieces = _blocks(pieces, b"", hold)   # a binary file: blocks of bytes
    elif isinstance(pieces, io.TextIOBase):
        # an open text file: the same text read HOLD characters at a time, not line by
        # line (50 MB of code as arrays: 0.35 s by lines, 0.16 s by blocks; the loop
        # below costs ~0.1 us a piece, and code has a line every ~40 characters)
        pieces = _blocks(pieces, "", hold)
    pieces = iter(pieces)
    first = next(pieces, _NONE)
    binary = isinstance(first, (bytes, bytearray, memoryview))
    if binary:
        kinds, empty, newline = (bytes, bytearray, memoryview), b"", b"\n"
        encode = _utf8(tok, encode, array)
    else:
        kinds, empty, newline = str, "", "\n"
    pieces = chain((first,), pieces) if first is not _NONE else pieces  # (a first piece None: refused below)
    done = 0  # characters (bytes, of a binary stream) in the stretches already encoded

    def encode_stretch(stretch):
        nonlocal done
        try:
            ids = encode(stretch, allowed_special=allowed_special, disallowed_special=disallowed_special)
        except DisallowedSpecial as e:
            # the stretch's position is not the stream's: say where in the stream it is
            # (the first occurrence of the token is the one found: an earlier one would be)
            at = bytes(stretch).find(e.token.encode("utf-8")) if binary else e.at
            where = "the binary stream holds" if binary else "the stream holds"
            raise DisallowedSpecial(done + at, e.token, where) from None
        done += len(stretch)
        return ids

    cut = _cut_for(tok, binary)
    if cut is None:  # a special token holds a newline: a cut could fall inside it
        yield encode_stretch(empty.join(_checked(pieces, kinds)))
        return
    parts, size = [], 0  # the pieces since the last cut, and their length
    limit = hold         # search for a cut when they hold this much
    start = 0            # newlines before this are known not to be cuts
    kind = bytes if binary else str
    for k, piece in enumerate(pieces):
        if type(piece) is not kind:
            _check_piece(k, piece, kinds)
            if binary:
                piece = bytes(piece)  # a memoryview or bytearray: bytes, which rfind and join take
        parts.append(piece)
        size += len(piece)
        if size < limit:
            continue
        held = parts[0] if len(parts) == 1 else empty.join(parts)
        end = last_cut(cut, held, start)
        if end:
            # (bytes: a view of the stretch, not a copy of it)
            yield encode_stretch(memoryview(held)[:end] if binary else held[:end])
            held, limit = held[end:], hold
        else:
            limit = 2 * len(held)  # no cut yet: look again once this much has come
        # subtle: the last newline held may become a cut once its next line arrives
        start = max(held.rfind(newline), 0)
        parts, size = [held], len(held)
    held = empty.join(parts)
    if held:
        yield encode_stretch(held)


_NONE = object()  # no first piece (an empty stream), told apart from a piece that is None


def _blocks(f, empty, hold):
    """File ``f`` read ``hold`` characters (or bytes) at a time, to its end.

    Read, not mapped: a mapped file that another process cuts shorter (log rotation
    with copytruncate) kills the reader with SIGBUS when it touches the lost pages,
    which no Python code can catch. Read, a shorter file just ends early; so a
    regular file found shorter at its end than when the stream began raises
    ``OSError`` naming it. (Mapping had saved 3 ms of 39 on 20 MB of prose.)
    """
    size = _size(f)
    read = f.read
    while True:
        block = read(hold)
        if not block:
            break
        yield block
    now = _size(f) if size is not None else None
    if now is not None and now < size:
        name = getattr(f, "name", None)
        raise OSError(f"{name if isinstance(name, str) else 'the file'} shrank from {size:,} to {now:,} bytes "
                      f"while it was encoded (truncated by another process?); the ids given cover only what "
                      f"was read before")


def _size(f):
    """The size of the regular file under ``f`` now, or None (a pipe, a socket, no file)."""
    try:
        st = os.fstat(f.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


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


def last_cut(cut, text, start: int = 0, stop: int | None = None, origin: int = 0) -> int:
    """Where the last safe cut of ``text`` (str, or bytes with a binary ``cut``) at or
    after ``start`` ends (0: none), found from the end: one ``rfind`` and one anchored
    match per newline tried, so a stretch with its last line cut-able costs two
    calls, not a scan of all of it. A ``_CheckedCut`` (a custom pattern's) also checks
    each candidate on the stretch ``text[origin:stop]`` and gives up after ``TRIES``.

    >>> last_cut(safe_cut(GPT4_PATTERN), "a\\nb\\nc\\n"), last_cut(safe_cut(GPT4_PATTERN, binary=True), b"a\\nb\\n")
    (4, 2)
    """
    newline = "\n" if isinstance(text, str) else b"\n"
    stop = len(text) if stop is None else stop
    pos, tries = stop, 0
    agrees = getattr(cut, "agrees", None)
    while True:
        pos = text.rfind(newline, start, pos)
        if pos < 0:
            return 0
        m = cut.match(text, pos)
        if m is not None:
            if agrees is None or agrees(text, origin, m.end(), stop):
                return m.end()
            tries += 1
            if tries == TRIES:
                return 0  # (the caller looks again once twice as much text is held)


# How many candidate cuts a custom pattern's check tries per search (each costs three
# splits of the stretch), before the stream waits for more text.
TRIES = 4


class _CheckedCut:
    """A custom pattern's safe cuts: no rule is known for what its chunks may span (one
    may cross any newline), so a candidate (the strict cut, ``patterns.safe_cut``) is
    taken only where splitting the two sides apart gives the chunks of the whole,
    checked on the text held (a pattern that looks further ahead than the text held,
    to the end of the text, say, is not checked beyond it).

    >>> import regex
    >>> cut = _CheckedCut(safe_cut("x"), regex.compile(r"(?s:.{1,3})").findall, binary=False)
    >>> cut.agrees("ab\\ncd\\nef", 0, 3, 8), cut.agrees("ab\\ncd\\nef", 0, 6, 8)   # chunks of 3
    (True, True)
    >>> cut.agrees("a\\ncd\\nef", 0, 2, 7)
    False
    """

    def __init__(self, cut, split, binary: bool):
        self.match, self._split, self._binary = cut.match, split, binary

    def agrees(self, text, origin: int, at: int, stop: int) -> bool:
        left, right = text[origin:at], text[at:stop]
        if self._binary:  # (bytes that are not UTF-8 raise, naming the byte, when encoded)
            left = codecs.utf_8_decode(bytes(left), "replace", True)[0]
            right = codecs.utf_8_decode(bytes(right), "replace", False)[0]  # a cut-off last character: left out
        split = self._split
        return split(left + right) == split(left) + split(right)


def _cut_for(tok, binary: bool = False):
    """The safe cuts of ``tok``'s pattern (on str, or on bytes when ``binary``), or None
    when one of its special tokens holds a newline; worked out once per tokenizer and
    kept with it (a short document's call had spent more on this than on encoding)."""
    kept = getattr(tok, "_stream_cut", None)  # (pattern, special_tokens, how many, cuts on str, on bytes)
    if kept is not None and kept[0] is tok.pattern and kept[1] is tok.special_tokens \
            and kept[2] == len(tok.special_tokens):
        return kept[4 if binary else 3]
    if any("\n" in s for s in tok.special_tokens) or tok.pattern is None:
        cut = cut_bytes = None  # (no pattern: the whole text is one chunk, never cut)
    elif tok.pattern in PATTERNS.values():
        cut, cut_bytes = safe_cut(tok.pattern), safe_cut(tok.pattern, binary=True)
    else:
        split = compile_pattern(tok.pattern).findall
        cut = _CheckedCut(safe_cut(tok.pattern), split, binary=False)
        cut_bytes = _CheckedCut(safe_cut(tok.pattern, binary=True), split, binary=True)
    try:
        tok._stream_cut = (tok.pattern, tok.special_tokens, len(tok.special_tokens), cut, cut_bytes)
    except AttributeError:  # (an object that takes no new attribute: no cache)
        pass
    return cut_bytes if binary else cut
