"""The checks of "Is BPE optimal?" pass the reference solutions and fail plausible wrong ones."""

import itertools
from collections import Counter

import pytest

from bpe_lesson.ranks import byte_pair_merge
from bpe_lesson.teaching import optimal
from bpe_lesson.teaching.checks import CHECKS


# ---- ex-opt-shortest ----------------------------------------------------------------

def shortest_right(piece, ranks):
    return optimal.shortest_encoding(piece, ranks)


def shortest_rank_encoding(piece, ranks):  # what the tokenizer does, not the fewest
    return byte_pair_merge(piece, ranks) if piece else []


def shortest_longest_match(piece, ranks):  # greedy longest match from the left (MaxMatch)
    out, i = [], 0
    while i < len(piece):
        j = max(j for j in range(i + 1, len(piece) + 1) if piece[i:j] in ranks)
        out.append(piece[i:j])
        i = j
    return out


def shortest_short_tokens_only(piece, ranks):  # a DP that looks back at most 8 bytes
    small = {t: r for t, r in ranks.items() if len(t) <= 8}
    return optimal.shortest_encoding(piece, small, max_len=8)


# ---- ex-opt-brute -------------------------------------------------------------------

def brute_right(text, k):
    return optimal.optimal_merges(text, k)[0]


def brute_greedy(text, k):  # BPE's own choice
    return len(optimal.apply_merges(text, optimal.greedy_merges(text, k)))


def brute_no_nesting(text, k):  # only pairs of the original bytes, never a merged token
    pairs = sorted(set(zip(text, text[1:])))
    best = len(text)
    for chosen in itertools.permutations(pairs, min(k, len(pairs))):
        merges = [(bytes([a]), bytes([b])) for a, b in chosen]
        best = min(best, len(optimal.apply_merges(text, merges)))
    return best


def brute_overlapping_savings(text, k):  # takes a pair's overlapping count as what it saves
    def saved(symbols, left):
        if left == 0 or len(symbols) < 2:
            return 0
        counts = Counter(zip(symbols, symbols[1:]))
        return max(c + saved(optimal.apply_merge(symbols, p), left - 1) for p, c in counts.items())

    return len(text) - saved(tuple(bytes([b]) for b in text), k)


# ---- ex-opt-dropout -----------------------------------------------------------------

def dropout_right(piece, ranks, p):
    return optimal.segmentation_probabilities(piece, ranks, p)


def dropout_per_word(piece, ranks, p):
    """Drops each merge once for the whole word (not afresh at every step)."""
    parts0 = tuple(bytes([b]) for b in piece)
    # the merges the word could ever use: tokens that are substrings of it, longer than a byte
    usable = sorted({piece[i:j] for i in range(len(piece)) for j in range(i + 2, len(piece) + 1)} & set(ranks))
    out = Counter()
    for kept in itertools.product((True, False), repeat=len(usable)):
        q = 1.0
        for keep in kept:
            q *= (1 - p) if keep else p
        allowed = {t: ranks[t] for t, keep in zip(usable, kept) if keep} | {t: r for t, r in ranks.items() if len(t) == 1}
        out[tuple(byte_pair_merge(piece, allowed))] += q
    return dict(out) if usable else {parts0: 1.0}


def dropout_never_stops(piece, ranks, p):
    """Re-draws when every pair is dropped, so the word never stops early."""
    memo = {}

    def finals(parts):
        if parts not in memo:
            cands = sorted((ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1) if parts[k] + parts[k + 1] in ranks)
            if not cands:
                memo[parts] = Counter({parts: 1.0})
            else:
                total = sum((1 - p) * p**i for i in range(len(cands))) or 1.0
                out = Counter()
                for i, (_, k) in enumerate(cands):
                    w = ((1 - p) * p**i / total) if p < 1 else (1.0 if i == 0 else 0.0)
                    for end, q in finals(parts[:k] + (parts[k] + parts[k + 1],) + parts[k + 2:]).items():
                        out[end] += w * q
                memo[parts] = out
        return memo[parts]

    return dict(finals(tuple(bytes([b]) for b in piece)))


def dropout_leftmost(piece, ranks, p):
    """Joins the leftmost surviving pair instead of the one of lowest rank."""
    by_position = {t: 0 for t in ranks if len(t) > 1} | {t: r for t, r in ranks.items() if len(t) == 1}
    return optimal.segmentation_probabilities(piece, by_position, p)


RIGHT = {"ex-opt-shortest": shortest_right, "ex-opt-brute": brute_right, "ex-opt-dropout": dropout_right}
WRONG = {
    "ex-opt-shortest": [shortest_rank_encoding, shortest_longest_match, shortest_short_tokens_only],
    "ex-opt-brute": [brute_greedy, brute_no_nesting, brute_overlapping_savings],
    "ex-opt-dropout": [dropout_per_word, dropout_never_stops, dropout_leftmost],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])


@pytest.mark.parametrize("label,wrong", [(label, w) for label, ws in WRONG.items() for w in ws],
                         ids=lambda x: getattr(x, "__name__", x))
def test_wrong_solution_fails(label, wrong):
    with pytest.raises(AssertionError):
        CHECKS[label](wrong)
