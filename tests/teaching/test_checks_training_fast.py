"""The checks of *Training fast* reject plausible wrong solutions and pass the right ones."""

import heapq
from collections import Counter

import pytest

from bpe_lesson import textbook
from bpe_lesson.teaching.checks import CHECKS


# ---- ex-fast-pop-best
def pop_best(heap, counts):
    while heap:
        neg, a, b = heapq.heappop(heap)
        count = counts.get((a, b), 0)
        if count == -neg:
            return (a, b), count
        if count > 0:
            heapq.heappush(heap, (-count, a, b))
    return None


def pop_best_trusts_the_heap(heap, counts):
    if not heap:
        return None
    neg, a, b = heapq.heappop(heap)
    return (a, b), -neg


def pop_best_drops_stale(heap, counts):
    while heap:
        neg, a, b = heapq.heappop(heap)
        if counts.get((a, b), 0) == -neg:
            return (a, b), -neg
    return None


def pop_best_from_the_counts(heap, counts):
    live = {q: c for q, c in counts.items() if c > 0}
    if not live:
        return None
    best = max(live, key=live.get)  # subtle: the first of equal counts, not the smallest pair
    return best, live[best]


# ---- ex-fast-delta
def pair_delta(word, pair, new_id):
    new = textbook.merge(word, pair, new_id)
    delta = Counter(zip(new, new[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return Counter({q: d for q, d in delta.items() if d})


def merge_right_to_left(word, pair, new_id):
    return textbook.merge(word[::-1], pair[::-1], new_id)[::-1]


def pair_delta_right_to_left(word, pair, new_id):
    new = merge_right_to_left(word, pair, new_id)
    delta = Counter(zip(new, new[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return Counter({q: d for q, d in delta.items() if d})


def pair_delta_only_new_pairs(word, pair, new_id):
    new = textbook.merge(word, pair, new_id)
    delta = Counter(q for q in zip(new, new[1:]) if new_id in q)
    delta[pair] -= sum(1 for q in zip(word, word[1:]) if q == pair)
    return Counter({q: d for q, d in delta.items() if d})


def pair_delta_keeps_zeros(word, pair, new_id):
    new = textbook.merge(word, pair, new_id)
    delta = Counter(zip(new, new[1:]))
    delta.subtract(Counter(zip(word, word[1:])))
    return delta


# ---- ex-fast-update
def update_counts(words, counts, pair_counts, where, pair, new_id):
    for i in where.pop(pair, ()):
        w, new = words[i], textbook.merge(words[i], pair, new_id)
        if len(new) == len(w):
            continue  # a stale index entry
        for q in zip(w, w[1:]):
            pair_counts[q] -= counts[i]
        for q in zip(new, new[1:]):
            pair_counts[q] += counts[i]
            if new_id in q:
                where[q].add(i)
        words[i] = new


def update_ignores_word_counts(words, counts, pair_counts, where, pair, new_id):
    update_counts(words, [1] * len(counts), pair_counts, where, pair, new_id)


def update_forgets_the_index(words, counts, pair_counts, where, pair, new_id):
    for i in where.pop(pair, ()):
        w, new = words[i], textbook.merge(words[i], pair, new_id)
        for q in zip(w, w[1:]):
            pair_counts[q] -= counts[i]
        for q in zip(new, new[1:]):
            pair_counts[q] += counts[i]
        words[i] = new


def update_right_to_left(words, counts, pair_counts, where, pair, new_id):
    for i in where.pop(pair, ()):
        w, new = words[i], merge_right_to_left(words[i], pair, new_id)
        for q in zip(w, w[1:]):
            pair_counts[q] -= counts[i]
        for q in zip(new, new[1:]):
            pair_counts[q] += counts[i]
            if new_id in q:
                where[q].add(i)
        words[i] = new


def update_only_the_merged_pair(words, counts, pair_counts, where, pair, new_id):
    for i in where.pop(pair, ()):
        w, new = words[i], textbook.merge(words[i], pair, new_id)
        pair_counts[pair] -= counts[i] * (len(w) - len(new))
        for q in zip(new, new[1:]):
            if new_id in q:
                pair_counts[q] += counts[i]
                where[q].add(i)
        words[i] = new


WRONG = {
    "ex-fast-pop-best": [pop_best_trusts_the_heap, pop_best_drops_stale, pop_best_from_the_counts],
    "ex-fast-delta": [pair_delta_right_to_left, pair_delta_only_new_pairs, pair_delta_keeps_zeros],
    "ex-fast-update": [update_ignores_word_counts, update_forgets_the_index, update_right_to_left,
                       update_only_the_merged_pair],
}
RIGHT = {"ex-fast-pop-best": pop_best, "ex-fast-delta": pair_delta, "ex-fast-update": update_counts}


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[w.__name__ for ws in WRONG.values() for w in ws])
def test_wrong_solution_fails(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution)


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])
