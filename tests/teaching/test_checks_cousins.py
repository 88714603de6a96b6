"""The checks of *Normalization and BPE's cousins* pass right solutions written two ways and
reject plausible wrong ones, each failing in a few lines that name the exercise."""

import functools
import unicodedata
from collections import Counter
from fractions import Fraction

import pytest

from _wrong import With, right_cases, run_right, run_wrong, wrong_cases

# ---------------------------------------------------------------- ex-cousins-nfkc

def compatibility_only(text):  # the notebook's
    out = []
    for c in text:
        k = unicodedata.normalize("NFKC", c)
        if unicodedata.normalize("NFC", c) == c and k != c:
            out.append((c, k))
    return out


def compatibility_by_decomposition(text):  # right: NFKC changes c, NFC does not <=> NFKD != NFD (for one char)
    return [(c, unicodedata.normalize("NFKC", c)) for c in text
            if unicodedata.normalize("NFC", c) == c
            and unicodedata.normalize("NFKD", c) != unicodedata.normalize("NFD", c)]


def compatibility_without_nfc(text):  # forgets that NFC must leave it alone: keeps the Ångström sign
    return [(c, unicodedata.normalize("NFKC", c)) for c in text if unicodedata.normalize("NFKC", c) != c]


def compatibility_nfkd(text):  # NFKD for NFKC: composed é decomposes, and counts
    return [(c, unicodedata.normalize("NFKD", c)) for c in text
            if unicodedata.normalize("NFC", c) == c != unicodedata.normalize("NFKD", c)]


def compatibility_whole_text(text):  # normalizes the whole text, then pairs characters up by position
    k = unicodedata.normalize("NFKC", text)
    return [(a, b) for a, b in zip(text, k) if a != b and unicodedata.normalize("NFC", a) == a]


def compatibility_ascii_only(text):  # only what NFKC turns into ASCII (ｶ -> カ and µ -> μ are left out)
    return [(c, k) for c, k in compatibility_only(text) if k.isascii()]


def compatibility_distinct(text):  # each character once, sorted
    return sorted(set(compatibility_only(text)))


def compatibility_characters_only(text):  # the characters alone, without their NFKC form
    return [c for c, _ in compatibility_only(text)]


# ---------------------------------------------------------------- ex-cousins-score

def pair_scores(word_counts):  # the notebook's
    units, pairs = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = [c if i == 0 else "##" + c for i, c in enumerate(word)]
        for p in pieces:
            units[p] += n
        for pair in zip(pieces, pieces[1:]):
            pairs[pair] += n
    return {(a, b): Fraction(c, units[a] * units[b]) for (a, b), c in pairs.items()}


def pair_scores_by_letter_counts(word_counts):  # right: c(##x) from letters after the first, no Counter
    units, pairs = {}, {}
    for word, n in word_counts.items():
        for i, ch in enumerate(word):
            piece = ("##" if i else "") + ch
            units[piece] = units.get(piece, 0) + n
            if i:
                pair = (("##" if i > 1 else "") + word[i - 1], piece)
                pairs[pair] = pairs.get(pair, 0) + n
    return {p: Fraction(c) / (units[p[0]] * units[p[1]]) for p, c in pairs.items()}


def pair_scores_unweighted(word_counts):  # each word once, whatever its count
    return pair_scores({w: 1 for w in word_counts})


def pair_scores_merged_counts(word_counts):  # c(a) and c(##a) counted together, as one letter's count
    letters = Counter()
    for word, n in word_counts.items():
        for c in word:
            letters[c] += n
    return {(a, b): Fraction(c, letters[a[-1]] * letters[b[-1]]) for (a, b), c in _pairs(word_counts).items()}


def _pairs(word_counts):
    pairs = Counter()
    for word, n in word_counts.items():
        pieces = [c if i == 0 else "##" + c for i, c in enumerate(word)]
        for pair in zip(pieces, pieces[1:]):
            pairs[pair] += n
    return pairs


def pair_scores_float(word_counts):  # the right numbers, as floats
    return {p: float(v) for p, v in pair_scores(word_counts).items()}


def pair_scores_once_per_word(word_counts):  # a pair that occurs twice in one word ("aaa") counted once
    units, pairs = Counter(), Counter()
    for word, n in word_counts.items():
        pieces = [c if i == 0 else "##" + c for i, c in enumerate(word)]
        for p in pieces:
            units[p] += n
        for pair in set(zip(pieces, pieces[1:])):
            pairs[pair] += n
    return {(a, b): Fraction(c, units[a] * units[b]) for (a, b), c in pairs.items()}


def pair_scores_units_from_pairs(word_counts):  # c(a) over left places of pairs, c(b) over right places
    left, right = Counter(), Counter()
    pairs = _pairs(word_counts)
    for (a, b), c in pairs.items():
        left[a] += c
        right[b] += c
    return {(a, b): Fraction(c, left[a] * right[b]) for (a, b), c in pairs.items()}


# ---------------------------------------------------------------- ex-cousins-count

def count_segmentations(word, pieces):  # the notebook's
    ways = [1] + [0] * len(word)  # ways[j]: segmentations of word[:j]
    for j in range(1, len(word) + 1):
        for i in range(j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_memo(word, pieces):  # right: recursion from the front, with a memo
    @functools.lru_cache(maxsize=None)
    def ways(i):
        if i == len(word):
            return 1
        return sum(ways(j) for j in range(i + 1, len(word) + 1) if word[i:j] in pieces)
    return ways(0)


def count_without_base_case(word, pieces):  # ways[0] = 0: nothing is ever counted
    ways = [0] * (len(word) + 1)
    for j in range(1, len(word) + 1):
        for i in range(j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_pieces_that_fit(word, pieces):  # counts the substrings that are pieces, not the segmentations
    return sum(word[i:j] in pieces for i in range(len(word)) for j in range(i + 1, len(word) + 1))


def count_greedy(word, pieces):  # a segmentation exists or not: 1 or 0
    return 1 if word in pieces or any(word[:k] in pieces and count_greedy(word[k:], pieces)
                                      for k in range(len(word) - 1, 0, -1)) else 0


def count_short_pieces(word, pieces):  # a fixed look-back: pieces of at most 3 letters
    ways = [1] + [0] * len(word)
    for j in range(1, len(word) + 1):
        for i in range(max(0, j - 3), j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_not_from_the_start(word, pieces):  # off by one: range(1, j) never uses a piece that starts the word
    ways = [1] + [0] * len(word)
    for j in range(1, len(word) + 1):
        for i in range(1 if j > 1 else 0, j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_no_memo(word, pieces):  # right, but exponential: 'ab' * 40 takes 2 ** 40 steps
    if not word:
        return 1
    return sum(count_no_memo(word[k:], pieces) for k in range(1, len(word) + 1) if word[:k] in pieces)


def count_empty_is_zero(word, pieces):  # the empty word: no segmentation, 0
    return count_segmentations(word, pieces) if word else 0


RIGHT = {
    "ex-cousins-nfkc": [compatibility_only, compatibility_by_decomposition],
    "ex-cousins-score": [pair_scores, pair_scores_by_letter_counts],
    "ex-cousins-count": [count_segmentations, count_memo],
}
WRONG = {
    "ex-cousins-nfkc": [compatibility_without_nfc, compatibility_nfkd, compatibility_whole_text,
                        compatibility_ascii_only, compatibility_distinct, compatibility_characters_only],
    "ex-cousins-score": [pair_scores_unweighted, pair_scores_merged_counts, pair_scores_float,
                         pair_scores_once_per_word, pair_scores_units_from_pairs],
    "ex-cousins-count": [count_without_base_case, count_pieces_that_fit, count_greedy, count_short_pieces,
                         count_not_from_the_start, With(count_no_memo, time_limit=3), count_empty_is_zero],
}


@pytest.mark.parametrize("label, solution", right_cases(RIGHT))
def test_right_solution_passes(label, solution):
    run_right(label, solution)


@pytest.mark.parametrize("label, solution", wrong_cases(WRONG))
def test_wrong_solution_fails(label, solution):
    message = run_wrong(label, solution)
    if getattr(solution, "__name__", "") == "count_no_memo":
        assert "too slow" in message, message
