"""Checks of the exercises in "What a tokenizer does": UTF-8 by hand, decode, the fewest tokens.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import itertools
import random

from ...tokenizer import Tokenizer
from .. import samples
from . import check
from ._calls import call

# the first and last code point of each UTF-8 length, and the surrogate gap's edges
EDGES = [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]


@check("ex-tokenizer-utf8")
def _utf8(utf8):
    rng = random.Random(0)
    points = EDGES + [ord(ch) for t in samples.MULTILINGUAL.values() for ch in t]
    points += [rng.choice([rng.randint(0, 0xD7FF), rng.randint(0xE000, 0x10FFFF)]) for _ in range(3000)]
    for cp in points:
        got, want = call(utf8, cp), chr(cp).encode("utf-8")
        assert isinstance(got, (bytes, bytearray)), f"utf8({cp:#x}) returned a {type(got).__name__}, not bytes"
        assert len(got) == len(want), (f"utf8({cp:#x}) has {len(got)} bytes; U+{cp:04X} takes {len(want)} "
                                        f"(check the boundaries of the table)")
        assert bytes(got) == want, (f"utf8({cp:#x}) = {bytes(got).hex(' ')}, should be {want.hex(' ')} "
                                    f"(lead byte first, then 10xxxxxx continuation bytes)")


@check("ex-tokenizer-decode")
def _decode(decode):
    plain = Tokenizer([], pattern=None)  # the 256 byte tokens: every id is one byte
    vocab = dict(plain.vocab)
    assert call(decode, [], vocab) == "", "decode([]) should be the empty string"
    for name, text in samples.MULTILINGUAL.items():
        ids = list(text.encode("utf-8"))
        got = call(decode, ids, vocab)
        assert got == text, (f"{name}: decode gave {got[:20]!r}...; a character's bytes can sit in "
                             f"several tokens: join all the bytes first, then read them as UTF-8")
    toy = Tokenizer([((195, 169), 256), ((240, 159), 257)], pattern=None)  # "é" whole, half an emoji
    ids = toy.encode("café 👋")
    assert call(decode, ids, dict(toy.vocab)) == "café 👋"
    for broken in ([99, 195], [240, 159, 145], [0xFF, 97]):  # bytes that are not UTF-8
        got = call(decode, broken, vocab)
        assert got == plain.decode(broken), (f"decode({broken}) = {got!r}; bytes that are not UTF-8 "
                                             f"should become U+FFFD, as Tokenizer.decode does")


def fewest_by_search(data: bytes, tokens) -> int:
    """The fewest tokens that spell ``data``, by trying every way to cut it (short inputs only).

    >>> fewest_by_search(b"abcdef", {bytes([i]) for i in range(256)} | {b"abc", b"ab", b"cdef"})
    2
    """
    n = len(data)
    for k in range(1, n + 1):
        for cuts in itertools.combinations(range(1, n), k - 1):
            bounds = (0, *cuts, n)
            if all(data[a:b] in tokens for a, b in zip(bounds, bounds[1:])):
                return k
    return 0


@check("ex-tokenizer-fewest")
def _fewest(fewest_tokens):
    single = {bytes([i]) for i in range(256)}
    tokens = single | {b"abc", b"ab", b"cdef"}
    got = call(fewest_tokens, b"abcdef", tokens)
    assert got == 2, (f"fewest_tokens(b'abcdef') = {got}, but ab + cdef is 2 tokens: taking the "
                      f"longest token first (abc) is not always best")
    assert call(fewest_tokens, b"", tokens) == 0, "the empty string needs 0 tokens"
    assert call(fewest_tokens, b"xyz", single) == 3, "with only single bytes, every byte is a token"
    rng = random.Random(1)
    for _ in range(300):
        data = bytes(rng.choice(b"abc") for _ in range(rng.randint(1, 9)))
        extra = {bytes(rng.choice(b"abc") for _ in range(rng.randint(2, 4))) for _ in range(6)}
        want = fewest_by_search(data, single | extra)
        got = call(fewest_tokens, data, single | extra)
        assert got == want, f"fewest_tokens({data!r}, ...{sorted(extra)}) = {got}, should be {want}"
