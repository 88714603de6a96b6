"""Checks for the chapter "Is BPE optimal?" (``book/is_bpe_optimal.ipynb``).

Each compares the reader's function with ``teaching.optimal`` on cases a hand
count settles and on GPT-4's vocabulary (cl100k_base, loaded offline).

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools
import itertools

from ...tokenizer import Tokenizer
from .. import optimal
from . import check

BYTES = {bytes([i]): i for i in range(256)}  # the 256 single bytes, ranked by value


@functools.lru_cache(maxsize=1)
def _gpt4_ranks() -> dict[bytes, int]:
    return {b: i for i, b in Tokenizer.from_tiktoken("cl100k_base").vocab.items()}


@check("ex-opt-shortest")
def check_shortest(shortest):
    """``shortest(piece, ranks)`` -> the fewest tokens that spell ``piece``, as a list of bytes.

    >>> check_shortest(optimal.shortest_encoding)   # the package's own passes
    >>> check_shortest(lambda piece, ranks: [piece[i:i + 1] for i in range(len(piece))])
    Traceback (most recent call last):
    AssertionError: b'abcd' takes 2 tokens at the fewest, your answer has 4: [b'a', b'b', b'c', b'd']
    """
    cases = [
        (b"abcd", BYTES | {b"bc": 256, b"ab": 257, b"cd": 258}, 2),  # rank encoding: a bc d
        (b"abcd", BYTES | {b"ab": 256, b"bcd": 257}, 2),  # longest match first: ab c d
        (b"xyz", BYTES, 3),
        (b"", BYTES, 0),
    ]
    for piece, ranks, fewest in cases:
        got = list(shortest(piece, ranks))
        assert b"".join(got) == piece, f"the parts of {piece!r} should join back to it, got {got!r}"
        assert all(t in ranks for t in got), f"every part must be a token; {got!r} has one that is not"
        assert len(got) == fewest, f"{piece!r} takes {fewest} tokens at the fewest, your answer has {len(got)}: {got!r}"
    ranks = _gpt4_ranks()
    long = next(t for t in sorted(ranks, key=len, reverse=True) if t.isascii() and t.strip())  # a token of many bytes
    for text in [" imagnumber", "floordiv", " Straßenbahnhaltestelle", "(metaclass", " прыгает", long.decode() + "x"]:
        piece = text.encode("utf-8")
        got = list(shortest(piece, ranks))
        fewest = len(optimal.shortest_encoding(piece, ranks))
        assert b"".join(got) == piece and all(t in ranks for t in got), f"{got!r} does not spell {piece!r} in tokens"
        assert len(got) == fewest, f"GPT-4's vocabulary spells {text!r} in {fewest} tokens, your answer has {len(got)}"


@check("ex-opt-brute")
def check_brute(fewest_after_merges):
    """``fewest_after_merges(text, k)`` -> the fewest symbols any k merges leave ``text`` in."""
    cases = [(b"abcabdbca", 2, 5), (b"aaabaab", 2, 3), (b"abcabc", 2, 2), (b"aaaa", 1, 2), (b"aaaa", 2, 1),
             (b"xyz", 0, 3), (b"ab", 3, 1)]
    for text, k, fewest in cases:
        got = fewest_after_merges(text, k)
        assert got == fewest, f"{k} merges leave {text!r} in {fewest} symbols at the fewest, not {got}"
    for text in (bytes(t) for n in (6, 7) for t in itertools.product(b"abc", repeat=n) if t[0] == 97):
        for k in (1, 2, 3):
            fewest = optimal.optimal_merges(text, k)[0]
            got = fewest_after_merges(text, k)
            assert got == fewest, f"{k} merges leave {text!r} in {fewest} symbols at the fewest, not {got}"


@check("ex-opt-dropout")
def check_dropout(dropout_distribution):
    """``dropout_distribution(piece, ranks, p)`` -> {segmentation (tuple of bytes): probability}."""

    def same(piece, ranks, p):
        got = {tuple(k): v for k, v in dropout_distribution(piece, ranks, p).items() if v > 1e-12}
        want = optimal.segmentation_probabilities(piece, ranks, p)
        assert set(got) == set(want), (f"{piece!r} at p={p}: the segmentations that can occur are "
                                       f"{sorted(want)}, you have {sorted(got)}")
        for parts, q in want.items():
            assert abs(got[parts] - q) < 1e-9, f"{piece!r} at p={p}: P{parts} is {q:.6f}, you have {got[parts]:.6f}"

    same(b"abc", BYTES | {b"bc": 256, b"ab": 257}, 0.5)  # rank decides, not position
    same(b"abab", BYTES | {b"ab": 256}, 0.3)  # a merge dropped at one step can return at the next
    same(b"abc", BYTES | {b"ab": 256, b"bc": 257, b"abc": 258}, 0.0)
    same(b"abc", BYTES | {b"ab": 256, b"bc": 257, b"abc": 258}, 1.0)
    ranks = _gpt4_ranks()
    same(b" unbel", ranks, 0.1)
