"""The checks of *Normalization and BPE's cousins* reject plausible wrong solutions and pass the right ones."""

from fractions import Fraction

import pytest

from bpe_lesson.teaching.checks import CHECKS

EXAMPLES = {"ligature": "ﬁne", "full width": "Ｈｅｌｌｏ", "superscript": "x²", "fraction": "½"}


def count_segmentations(word, pieces):
    ways = [1] + [0] * len(word)  # ways[j]: segmentations of word[:j]
    for j in range(1, len(word) + 1):
        for i in range(j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_without_base_case(word, pieces):
    ways = [0] * (len(word) + 1)
    for j in range(1, len(word) + 1):
        for i in range(j):
            if word[i:j] in pieces:
                ways[j] += ways[i]
    return ways[len(word)]


def count_pieces_that_fit(word, pieces):
    return sum(word[i:j] in pieces for i in range(len(word)) for j in range(i + 1, len(word) + 1))


def count_greedy(word, pieces):
    # longest piece first, one way only: a segmentation, not a count
    return 1 if word in pieces or any(word[:k] in pieces and count_greedy(word[k:], pieces)
                                      for k in range(len(word) - 1, 0, -1)) else 0


WRONG = {
    "ex-cousins-nfkc": ["½", "ﬁ", "\u212b", "é", "ab"],
    "ex-cousins-score": [Fraction(9, 15 * 9), 9 / 153, Fraction(9, 17)],
    "ex-cousins-count": [count_without_base_case, count_pieces_that_fit, count_greedy],
}
RIGHT = {"ex-cousins-nfkc": "①", "ex-cousins-score": Fraction(9, 17 * 9), "ex-cousins-count": count_segmentations}
KWARGS = {"ex-cousins-nfkc": {"examples": EXAMPLES}}


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[f"{k}-{getattr(w, '__name__', repr(w))}" for k, ws in WRONG.items() for w in ws])
def test_wrong_solution_fails(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution, **KWARGS.get(label, {}))


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label], **KWARGS.get(label, {}))
