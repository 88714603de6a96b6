"""Encoding a stream of text pieces (lines of a file, say) lazily, with the ids of the whole.

``encode_iterable(tok, pieces)`` yields the ids of ``tok.encode("".join(pieces))``
without ever joining the whole: it gathers pieces until they hold ``HOLD``
characters, cuts them at the last *safe cut* (``patterns.safe_cut``: a newline the
split pattern never chunks across), encodes what lies before the cut and lets it
go. Memory stays bounded by about twice ``HOLD`` or twice the longest stretch of
text between two safe cuts, not by the text.

What this module does not do: read files (pass an open file: it iterates by line),
or bound a stream that has no safe cut at all (text with no newline before an ASCII
character is held until its end, since cutting it elsewhere could change its ids).
A special token that is not allowed raises when its stretch is encoded, so ids of
the text before it may already have been yielded.
"""

from __future__ import annotations

import io
from functools import partial
from itertools import chain

from ..patterns import GPT4_PATTERN, safe_cut  # noqa: F401 (GPT4_PATTERN: the doctest)


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
    def encode(text, allowed_special, disallowed_special):
        return tok.encode_to_numpy(text, allowed_special=allowed_special, disallowed_special=disallowed_special,
                                   **({} if dtype is None else {"dtype": dtype}))
    return stretches(tok, pieces, allowed_special, disallowed_special, encode=encode)


def stretches(tok, pieces, allowed_special=frozenset(), disallowed_special="all", hold=None, encode=None):
    """Yield the ids of ``encode_iterable``'s text one stretch (a list) at a time
    (``encode``: how a stretch is encoded, ``tok.encode`` unless given).

    Pieces are gathered until they hold ``HOLD`` characters, then cut at the last
    safe cut among them; what follows the cut waits for the next pieces. A stretch
    with no safe cut is held on: the next search waits until the text held has
    doubled, so the searches and joins cost time in proportion to the text.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> list(stretches(tok, ["ab\\n", "ab", "\\nab"], hold=1))  # no cut in "ab\\n": wait for 6
    [[256, 10, 256, 10], [256]]
    """
    cut = _cut_for(tok)
    encode = tok.encode if encode is None else encode
    if isinstance(pieces, io.TextIOBase):
        # an open text file: the same text read HOLD characters at a time, not line by
        # line (50 MB of code as arrays: 0.35 s by lines, 0.16 s by blocks; the loop
        # below costs ~0.1 us a piece, and code has a line every ~40 characters)
        pieces = iter(partial(pieces.read, hold or HOLD), "")
    if cut is None:  # a special token holds a newline: a cut could fall inside it
        yield encode("".join(pieces), allowed_special=allowed_special, disallowed_special=disallowed_special)
        return
    hold = HOLD if hold is None else hold
    parts, size = [], 0  # the pieces since the last cut, and their length
    limit = hold         # search for a cut when they hold this much
    start = 0            # newlines before this are known not to be cuts
    for piece in pieces:
        if type(piece) is not str and not isinstance(piece, str):
            raise TypeError(f"encode_iterable takes pieces of text (str), not {type(piece).__name__}")
        parts.append(piece)
        size += len(piece)
        if size < limit:
            continue
        held = "".join(parts)
        end = last_cut(cut, held, start)
        if end:
            yield encode(held[:end], allowed_special=allowed_special, disallowed_special=disallowed_special)
            held, limit = held[end:], hold
        else:
            limit = 2 * len(held)  # no cut yet: look again once this much has come
        # subtle: the last newline held may become a cut once its next line arrives
        start = max(held.rfind("\n"), 0)
        parts, size = [held], len(held)
    held = "".join(parts)
    if held:
        yield encode(held, allowed_special=allowed_special, disallowed_special=disallowed_special)


def last_cut(cut, text: str, start: int = 0) -> int:
    """Where the last safe cut of ``text`` at or after ``start`` ends (0: none), found
    from the end: one ``rfind`` and one anchored match per newline tried, so a
    stretch with its last line cut-able costs two calls, not a scan of all of it.

    >>> last_cut(safe_cut(GPT4_PATTERN), "a\\nb\\nc\\n")
    4
    """
    pos = len(text)
    while True:
        pos = text.rfind("\n", start, pos)
        if pos < 0:
            return 0
        m = cut.match(text, pos)
        if m is not None:
            return m.end()


def _cut_for(tok):
    """The safe cuts of ``tok``'s pattern, or None when one of its special tokens holds a
    newline; worked out once per tokenizer and kept with it (a short document's call
    had spent more on this than on encoding)."""
    kept = getattr(tok, "_stream_cut", None)  # (pattern, special_tokens, how many, cuts)
    if kept is not None and kept[0] is tok.pattern and kept[1] is tok.special_tokens \
            and kept[2] == len(tok.special_tokens):
        return kept[3]
    cut = None if any("\n" in s for s in tok.special_tokens) else safe_cut(tok.pattern)
    try:
        tok._stream_cut = (tok.pattern, tok.special_tokens, len(tok.special_tokens), cut)
    except AttributeError:  # (an object that takes no new attribute: no cache)
        pass
    return cut
