"""Checks of the exercises in *Normalization and BPE's cousins*: the characters only
NFKC changes, WordPiece's pair scores, and the number of segmentations.

Each check is differential (``compare``): the reader's function against a reference
on hand-picked cases, then on generated ones aimed at that exercise's edges.

* ``ex-cousins-nfkc``: against ``compatibility_only`` (``normalize_text`` one character
  at a time), on strings mixing ASCII, composed and decomposed letters, the
  singletons NFC itself changes (Ångström and Ohm signs, CJK compatibility
  ideographs), and compatibility characters whose NFKC form is ASCII, longer, or
  not ASCII at all (``ｶ`` -> ``カ``, ``µ`` -> ``μ``).
* ``ex-cousins-score``: against the package's WordPiece counting
  (``cousins.wordpiece.initial_pieces`` and ``count_pieces``), on small corpora
  with counts 1 to 4, runs (``aaa``: the pair ``##a ##a`` twice in one word),
  one-letter words, a letter both starting and continuing words.
* ``ex-cousins-count``: against ``count_ways`` (the sum-product form of Viterbi's
  recursion), which the hand-picked cases tie to brute-force enumeration
  (``segmentations``); generated words up to 60 letters, pieces up to 7 long, words
  with no segmentation, and the empty word (one segmentation: no pieces).

What this module does not do: train WordPiece, Unigram or SentencePiece models.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from ...cousins import wordpiece
from ...patterns import normalize_text
from . import check, compare, shorter

__all__ = ["compatibility_only", "PLAIN", "NFC_CHANGES", "COMPAT", "NFKC_CASES",
           "check_nfkc", "wordpiece_scores", "SCORE_CASES", "check_score",
           "segmentations", "count_ways", "check_count"]


# ---------------------------------------------------------------- ex-cousins-nfkc

def compatibility_only(text):
    """(character, its NFKC form) for each character of ``text`` that NFC leaves alone and NFKC
    changes, in order; each character normalized on its own.

    >>> compatibility_only("ﬁne x² \\u212b café")   # the Ångström sign: NFC changes it too
    [('ﬁ', 'fi'), ('²', '2')]
    """
    return [(c, normalize_text(c, "NFKC")) for c in text if normalize_text(c, "NFC") == c != normalize_text(c, "NFKC")]


PLAIN = list("abcxyz AZ09.,") + ["é", "e\u0301", "ß", "中", "한", "\u1100\u1161"]
NFC_CHANGES = ["\u212b", "\u2126", "\uf900", "\u0340", "\u0344", "\u1fee"]  # singletons: NFC changes them too
COMPAT = ["ﬁ", "ﬀ", "Ｈ", "ｅ", "１", "²", "³", "½", "①", "Ⅻ", "ℌ", "𝐀", "㎏", "ǅ", "\u00a0", "ｶ", "ﾟ",
          "ſ", "µ", "…", "™", "\u1e9b", "\u2002", "ﬆ"]


def _nfkc_text(rng):
    n = rng.randint(0, 8)
    pools = [PLAIN, NFC_CHANGES, COMPAT]
    return "".join(rng.choice(rng.choices(pools, weights=[4, 2, 4])[0]) for _ in range(n))


NFKC_CASES = [("ﬁne",), ("Ｈｅｌｌｏ",), ("x²",), ("café",), ("cafe\u0301",), ("\u212b",), ("½",), ("",),
              ("①②",), ("ﬁﬁ",), ("µ",), ("ｶﾞ",), ("…",), ("abc",)]


def _nfkc_hint(args, want, got):
    pairs = [tuple(p) for p in got]
    if any(len(p) != 2 for p in pairs):
        return "give (character, its NFKC form) pairs"
    if any(normalize_text(c, "NFC") != c for c, _ in pairs):
        return "NFC must leave the character alone (the Ångström sign is a singleton)"
    if any(k != normalize_text(c, "NFKC") for c, k in pairs):
        return "the second item is NFKC of that one character, on its own"
    if set(pairs) == set(want):
        return "one pair per occurrence, in the order of the text"
    if set(pairs) < set(want):
        return "any change NFKC makes counts, whether it gives ASCII or not"
    return None


@check("ex-cousins-nfkc")
def check_nfkc(compatibility):
    compare(compatibility, compatibility_only, NFKC_CASES, generate=lambda rng: (_nfkc_text(rng),), kind=list,
            equal=lambda want, got: [tuple(p) for p in got] == want, hint=_nfkc_hint)


# ---------------------------------------------------------------- ex-cousins-score

def wordpiece_scores(word_counts):
    """{(left piece, right piece): Fraction(c(a, b), c(a) * c(b))} for every pair that occurs,
    counted with the package's pieces (``initial_pieces``) and counts (``count_pieces``).

    >>> wordpiece_scores({"low": 5, "lower": 2, "newest": 6, "widest": 3})[("##e", "##s")]
    Fraction(1, 17)
    """
    vocab = wordpiece.initial_vocab(word_counts)
    ids = {p: i for i, p in enumerate(vocab)}
    words = [[ids[p] for p in wordpiece.initial_pieces(w)] for w in word_counts]
    units, pairs = wordpiece.count_pieces(words, list(word_counts.values()))
    return {(vocab[a], vocab[b]): Fraction(c, units[a] * units[b]) for (a, b), c in pairs.items()}


def _corpus(rng):
    letters = rng.choice(["ab", "abc", "aé", "ab中"])
    words = {}
    for _ in range(rng.randint(0, 5)):
        r = rng.random()
        if r < 0.2:
            w = rng.choice(letters) * rng.randint(1, 4)  # a run: a, aa, aaa, aaaa
        else:
            w = "".join(rng.choice(letters) for _ in range(rng.randint(1, 5)))
        words[w] = rng.choice([1, 1, 2, 3, 4])
    return words


SCORE_CASES = [({"low": 5, "lower": 2, "newest": 6, "widest": 3},), ({"hug": 10, "pug": 5, "pun": 12, "bun": 4,
               "hugs": 5},), ({},), ({"a": 3},), ({"aaa": 2},), ({"ab": 1, "ba": 1},), ({"abab": 2, "b": 5},)]


def _score_hint(args, want, got):
    if any(not isinstance(v, Fraction) for v in got.values()):
        return "give each score as a Fraction, exact"
    if set(got) != set(want):
        return "a piece that continues a word carries ##; every adjacent pair in a word counts"
    return "count each piece and pair as often as its word occurs, every time it occurs"


@check("ex-cousins-score")
def check_score(pair_scores):
    compare(pair_scores, wordpiece_scores, SCORE_CASES, generate=lambda rng: (_corpus(rng),), kind=dict,
            equal=lambda want, got: dict(got) == want and all(isinstance(v, Fraction) for v in got.values()),
            hint=_score_hint)


# ---------------------------------------------------------------- ex-cousins-count

def segmentations(word):
    """Every way to cut ``word`` into non-empty pieces (2 ** (len - 1) of them; the empty word: one, no pieces).

    >>> list(segmentations("abc"))
    [['abc'], ['ab', 'c'], ['a', 'bc'], ['a', 'b', 'c']]
    >>> list(segmentations(""))
    [[]]
    """
    if not word:
        yield []
        return
    for cuts in itertools.product([False, True], repeat=len(word) - 1):
        pieces, start = [], 0
        for k, cut in enumerate(cuts, start=1):
            if cut:
                pieces.append(word[start:k])
                start = k
        yield pieces + [word[start:]]


def count_ways(word, pieces):
    """How many segmentations of ``word`` use only ``pieces``: Viterbi's recursion with a sum.

    >>> count_ways("abab", {"a", "b", "ab"}), count_ways("abc", {"a", "b"}), count_ways("", {"a"})
    (4, 0, 1)
    >>> sum(all(p in {"a", "b", "ab"} for p in s) for s in segmentations("abab"))  # brute force agrees
    4
    """
    ways = [1] + [0] * len(word)  # ways[j]: segmentations of word[:j]
    for j in range(1, len(word) + 1):
        ways[j] = sum(ways[i] for i in range(j) if word[i:j] in pieces)
    return ways[len(word)]


def _brute(word, pieces):
    return sum(all(p in pieces for p in seg) for seg in segmentations(word))


def _word_and_pieces(rng):
    letters = rng.choice(["ab", "ab", "abc", "aé"])
    n = rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 12]) if rng.random() > 0.15 else rng.randint(20, 60)
    word = (rng.choice(letters) * n if rng.random() < 0.15
            else "".join(rng.choice(letters) for _ in range(n)))
    pieces = set()
    if rng.random() < 0.85:
        pieces |= set(letters) if rng.random() < 0.7 else set(letters[:1])
    for _ in range(rng.randint(0, 6)):  # substrings of the word, up to 7 long, and strings that are not
        if word and rng.random() < 0.8:
            i = rng.randrange(len(word))
            pieces.add(word[i:i + rng.randint(1, 7)])
        else:
            pieces.add("".join(rng.choice(letters) for _ in range(rng.randint(2, 4))))
    return word, pieces


def _count_cases():
    every = {"abcdefghijklmnopqrstuvwxyz"[i:j] for i in range(26) for j in range(i + 1, 27)}
    some = {"a", "b", "ab", "ba", "aba"}
    hand = [("", some), ("c", some), ("abab", some), ("ababa", some), ("abba", some), ("bab", some),
            ("aab", some), ("abc", {"abc"}), ("aaaaaaa", {"aaaaaaa", "a"}), ("abcdefghij", every)]
    for word, pieces in hand:
        assert count_ways(word, pieces) == _brute(word, pieces), f"the grader's count of {word!r} is wrong"
        yield word, pieces
    yield "ab" * 40, {"a", "b", "ab"}  # 2 ** 40 ways: no enumeration finishes


def _shrink_count(args):
    """Shorter words (halves, one letter less), then fewer pieces."""
    word, pieces = args
    for w in shorter(word):
        yield w, pieces
    ordered = sorted(pieces)
    if len(ordered) >= 2:
        yield word, set(ordered[len(ordered) // 2:])
        yield word, set(ordered[:len(ordered) // 2])
    for p in ordered:
        yield word, pieces - {p}


def _show_count(args):
    word, pieces = args
    shown = sorted(pieces, key=lambda p: (len(p), p))
    text = repr(shown) if len(repr(shown)) <= 40 else repr(shown)[:36] + " ..."
    shown = f"{{{text[1:-1]}}}" if pieces else "set()"
    return f"{word!r}, {shown}" if len(word) <= 30 else f"{word[:27]!r}..., {shown}"


@check("ex-cousins-count")
def check_count(count_segmentations):
    compare(count_segmentations, count_ways, _count_cases(), generate=_word_and_pieces, kind=int,
            valid=lambda args: all(args[1]), show=_show_count, shrink=_shrink_count,
            hint=lambda args, want, got: (
                "the empty word has one segmentation (no pieces): start the count at 1" if not args[0] else
                "ways(word[:j]) adds ways(word[:i]) for every piece word[i:j], 0 <= i < j"))
