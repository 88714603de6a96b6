"""Checks of the exercises in *Normalization and BPE's cousins*.

The references are ``unicodedata`` (through ``normalize``), the package's WordPiece
counts and brute-force enumeration of segmentations.

What this module does not do: train WordPiece, Unigram or SentencePiece models.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from ...cousins import wordpiece
from ...normalize import normalize
from . import check


@check("ex-cousins-nfkc")
def check_nfkc(c, examples=()):
    assert isinstance(c, str) and len(c) == 1, f"c must be a single character, got {c!r}"
    used = "".join(examples.values() if isinstance(examples, dict) else examples)
    assert c not in used, f"{c!r} is among the examples; pick another"
    assert normalize(c, "NFC") == c, f"NFC changes {c!r} to {normalize(c, 'NFC')!r}; we want one only NFKC changes"
    k = normalize(c, "NFKC")
    assert k != c and k.isascii() and k.isalnum(), f"NFKC gives {k!r}, not plain ASCII letters or digits"


TOY = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@check("ex-cousins-score")
def check_score(score_es):
    v = wordpiece.initial_vocab(TOY)
    i = {p: k for k, p in enumerate(v)}
    units, pairs = wordpiece.count_pieces([[i[p] for p in wordpiece.initial_pieces(w)] for w in TOY],
                                          list(TOY.values()))
    truth = Fraction(pairs[(i["##e"], i["##s"])], units[i["##e"]] * units[i["##s"]])
    assert isinstance(score_es, Fraction), f"give the score as a Fraction, not {type(score_es).__name__}"
    assert score_es == truth, f"{score_es} is not the score; recount ##e (it occurs twice in 'newest')"


def segmentations(word):
    """Every way to cut ``word`` into non-empty pieces (2 ** (len - 1) of them).

    >>> list(segmentations("abc"))
    [['abc'], ['ab', 'c'], ['a', 'bc'], ['a', 'b', 'c']]
    """
    for cuts in itertools.product([False, True], repeat=max(len(word) - 1, 0)):
        pieces, start = [], 0
        for k, cut in enumerate(cuts, start=1):
            if cut:
                pieces.append(word[start:k])
                start = k
        yield pieces + [word[start:]]


@check("ex-cousins-count")
def check_count(count_segmentations):
    every = {"abcdefghijklmnopqrstuvwxyz"[i:j] for i in range(26) for j in range(i + 1, 27)}
    got = count_segmentations("abcdefghij", every)
    assert got == 2 ** 9, f"with every substring a piece, 10 letters give 2**9 = 512 ways, not {got}"
    some = {"a", "b", "ab", "ba", "aba"}
    for w in ["abab", "ababa", "abba", "bab", "c", "aab"]:
        brute = sum(all(p in some for p in seg) for seg in segmentations(w))
        got = count_segmentations(w, some)
        assert got == brute, f"{w!r} with pieces {sorted(some)}: {brute} ways, you counted {got}"
    got = count_segmentations("ab" * 40, {"a", "b", "ab"})
    assert got == 2 ** 40, f"'ab' * 40 with a, b, ab: 2**40 ways, not {got}"
