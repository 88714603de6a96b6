"""Encoding a stream of text pieces (lines of a file, say) lazily, with the ids of the whole.

``encode_iterable(tok, pieces)`` yields the ids of ``tok.encode("".join(pieces))``
without ever joining the pieces: it holds text until a *safe cut*
(``patterns.safe_cut``: a newline the split pattern never chunks across), encodes
what lies before the cut and lets it go. Memory stays bounded by the longest
stretch of text between two safe cuts, not by the text.

What this module does not do: read files (pass an open file: it iterates by line),
or bound a stream that has no safe cut at all (text with no newline before an ASCII
character is held until its end, since cutting it elsewhere could change its ids).
A special token that is not allowed raises when its stretch is encoded, so ids of
the text before it may already have been yielded.
"""

from __future__ import annotations

from .patterns import safe_cut


def encode_iterable(tok, pieces, allowed_special=frozenset(), disallowed_special="all"):
    """Yield the ids of ``tok.encode("".join(pieces), ...)``, a stretch at a time.

    >>> from bpe_lesson import Tokenizer
    >>> tok = Tokenizer([((97, 98), 256)], pattern="gpt4")
    >>> list(encode_iterable(tok, ["ab\\n", "ab", "\\nab"]))
    [256, 10, 256, 10, 256]
    """
    if any("\n" in s for s in tok.special_tokens):  # a cut could fall inside such a token
        yield from tok.encode("".join(pieces), allowed_special=allowed_special,
                              disallowed_special=disallowed_special)
        return
    cut = safe_cut(tok.pattern)
    held = ""  # text after the last safe cut so far
    for piece in pieces:
        if not isinstance(piece, str):
            raise TypeError(f"encode_iterable takes pieces of text (str), not {type(piece).__name__}")
        start = max(held.rfind("\n"), 0)  # subtle: a held "\n" may become a cut once its next line arrives
        held += piece
        last = None
        for last in cut.finditer(held, start):
            pass
        if last is None:
            continue
        ready, held = held[:last.end()], held[last.end():]
        yield from tok.encode(ready, allowed_special=allowed_special, disallowed_special=disallowed_special)
    if held:
        yield from tok.encode(held, allowed_special=allowed_special, disallowed_special=disallowed_special)
