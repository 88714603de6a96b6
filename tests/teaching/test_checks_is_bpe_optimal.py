"""The checks of "Is BPE optimal?" pass right solutions and reject plausible wrong ones."""

import functools
import itertools
from collections import Counter


from _wrong import With, graded, run_wrong
from bpe_lesson.ranks import byte_pair_merge
from bpe_lesson.teaching import optimal


# ---- ex-opt-shortest ----------------------------------------------------------------

def shortest(piece, ranks):  # the notebook's
    n, longest = len(piece), max(map(len, ranks))
    fewest = [0] + [n + 1] * n  # fewest[i]: tokens for piece[:i]
    back = [0] * (n + 1)  # back[i]: where its last token starts
    for i in range(1, n + 1):
        for j in range(max(0, i - longest), i):
            if piece[j:i] in ranks and fewest[j] + 1 < fewest[i]:
                fewest[i], back[i] = fewest[j] + 1, j
    parts, i = [], n
    while i > 0:
        parts.append(piece[back[i]:i])
        i = back[i]
    return parts[::-1]


def shortest_memoized_recursion(piece, ranks):  # right: top-down, with a memo, ties the other way
    longest = max(map(len, ranks))

    @functools.lru_cache(maxsize=None)
    def best(i):  # the fewest tokens for piece[i:]
        if i == len(piece):
            return ()
        options = [(piece[i:j],) + best(j) for j in range(i + 1, min(len(piece), i + longest) + 1)
                   if piece[i:j] in ranks]
        return min(options, key=len)

    return list(best(0))


def shortest_rank_encoding(piece, ranks):  # what the tokenizer does, not the fewest
    return byte_pair_merge(piece, ranks) if piece else []


def shortest_longest_match(piece, ranks):  # greedy longest match from the left (MaxMatch)
    out, i = [], 0
    while i < len(piece):
        j = max(j for j in range(i + 1, len(piece) + 1) if piece[i:j] in ranks)
        out.append(piece[i:j])
        i = j
    return out


def shortest_look_back_4(piece, ranks):  # a DP that looks back a fixed 4 bytes
    return optimal.shortest_encoding(piece, {t: r for t, r in ranks.items() if len(t) <= 4}, max_len=4)


def shortest_look_back_one_short(piece, ranks):  # off by one: never tries a token of the longest length
    longest = max(map(len, ranks))
    fewest, back = [0] + [len(piece) + 1] * len(piece), [0] * (len(piece) + 1)
    for i in range(1, len(piece) + 1):
        for j in range(max(0, i - longest + 1), i):
            if piece[j:i] in ranks and fewest[j] + 1 < fewest[i]:
                fewest[i], back[i] = fewest[j] + 1, j
    parts, i = [], len(piece)
    while i > 0:
        parts.append(piece[back[i]:i])
        i = back[i]
    return parts[::-1]


def shortest_without_memo(piece, ranks):  # the recursion of the theorem, with no memo: exponential
    longest = max(map(len, ranks))

    def best(i):  # the fewest tokens for piece[:i]
        if i == 0:
            return []
        return min((best(j) + [piece[j:i]] for j in range(max(0, i - longest), i) if piece[j:i] in ranks), key=len)

    return best(len(piece))


def shortest_ranks(piece, ranks):  # the ranks of the tokens, not their bytes
    return [ranks[t] for t in optimal.shortest_encoding(piece, ranks)]


def shortest_as_tuple(piece, ranks):  # a tuple, not a list
    return tuple(optimal.shortest_encoding(piece, ranks))


def shortest_adds_to_ranks(piece, ranks):  # writes into the grader's vocabulary
    ranks[b""] = -1
    return optimal.shortest_encoding(piece, ranks)


# ---- ex-opt-brute -------------------------------------------------------------------

def fewest_after_merges(text, k):  # the notebook's: no memo, the problem is small
    def fewest(symbols, left):
        if left == 0 or len(symbols) < 2:
            return len(symbols)
        return min(fewest(optimal.apply_merge(symbols, pair), left - 1)
                   for pair in set(zip(symbols, symbols[1:])))

    return fewest(tuple(bytes([b]) for b in text), k)


def fewest_by_merge_lists(text, k):  # right: every list of k pairs of tokens the text could make
    best = len(text)
    frontier = {tuple(bytes([b]) for b in text)}
    for _ in range(k):
        frontier = {optimal.apply_merge(s, p) for s in frontier for p in set(zip(s, s[1:]))} or frontier
        best = min([best] + [len(s) for s in frontier])
    return best


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


def brute_first_occurrence_only(text, k):  # a merge joins only the first occurrence of its pair
    def merge_once(symbols, pair):
        for i in range(len(symbols) - 1):
            if (symbols[i], symbols[i + 1]) == pair:
                return symbols[:i] + (symbols[i] + symbols[i + 1],) + symbols[i + 2:]
        return symbols

    def fewest(symbols, left):
        if left == 0 or len(symbols) < 2:
            return len(symbols)
        return min(fewest(merge_once(symbols, p), left - 1) for p in set(zip(symbols, symbols[1:])))

    return fewest(tuple(bytes([b]) for b in text), k)


def brute_right_to_left(text, k):  # joins the occurrences from the right: "aaa" -> a aa
    def merge(symbols, pair):
        out, i = [], len(symbols) - 1
        while i >= 0:
            if i >= 1 and (symbols[i - 1], symbols[i]) == pair:
                out.append(symbols[i - 1] + symbols[i])
                i -= 2
            else:
                out.append(symbols[i])
                i -= 1
        return tuple(out[::-1])

    def fewest(symbols, left):
        if left == 0 or len(symbols) < 2:
            return len(symbols)
        return min(fewest(merge(symbols, p), left - 1) for p in set(zip(symbols, symbols[1:])))

    return fewest(tuple(bytes([b]) for b in text), k)


def brute_top_pairs_only(text, k):  # prunes: tries only the 3 most frequent pairs at each step
    def fewest(symbols, left):
        if left == 0 or len(symbols) < 2:
            return len(symbols)
        top = [pair for pair, _ in Counter(zip(symbols, symbols[1:])).most_common(3)]
        return min(fewest(optimal.apply_merge(symbols, pair), left - 1) for pair in top)

    return fewest(tuple(bytes([b]) for b in text), k)


def brute_one_merge_short(text, k):  # off by one: k - 1 merges
    return fewest_after_merges(text, max(0, k - 1))


def brute_no_stop(text, k):  # no base case for one symbol left: min() of nothing
    def fewest(symbols, left):
        if left == 0:
            return len(symbols)
        return min(fewest(optimal.apply_merge(symbols, p), left - 1) for p in set(zip(symbols, symbols[1:])))

    return fewest(tuple(bytes([b]) for b in text), k)


# ---- ex-opt-dropout -----------------------------------------------------------------

def dropout_distribution(piece, ranks, p):  # the notebook's
    out = Counter()

    def walk(parts, prob):
        pairs = sorted((ranks[a + b], k)  # (rank, position): joinable pairs
                       for k, (a, b) in enumerate(zip(parts, parts[1:]))
                       if a + b in ranks)
        for i, (_, k) in enumerate(pairs):  # i-th joined, better dropped
            joined = parts[:k] + (parts[k] + parts[k + 1],) + parts[k + 2:]
            walk(joined, prob * (1 - p) * p**i)
        out[parts] += prob * p ** len(pairs)  # all dropped: stop here

    walk(tuple(bytes([b]) for b in piece), 1.0)
    return out


def dropout_by_drawing_every_subset(piece, ranks, p):  # right: sum over every set of surviving pairs
    out = Counter()

    def walk(parts, prob):
        cands = sorted((ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1)
                       if parts[k] + parts[k + 1] in ranks)
        for kept in itertools.product((False, True), repeat=len(cands)):
            q = prob
            for keep in kept:
                q *= (1 - p) if keep else p
            if q == 0:
                continue
            if not any(kept):
                out[parts] += q
                continue
            _, k = min(c for c, keep in zip(cands, kept) if keep)
            walk(parts[:k] + (parts[k] + parts[k + 1],) + parts[k + 2:], q)

    walk(tuple(bytes([b]) for b in piece), 1.0)
    return dict(out)


def dropout_per_word(piece, ranks, p):  # drops each merge once for the whole word, not afresh at every step
    parts0 = tuple(bytes([b]) for b in piece)
    usable = sorted({piece[i:j] for i in range(len(piece)) for j in range(i + 2, len(piece) + 1)} & set(ranks))
    out = Counter()
    for kept in itertools.product((True, False), repeat=len(usable)):
        q = 1.0
        for keep in kept:
            q *= (1 - p) if keep else p
        allowed = {t: ranks[t] for t, keep in zip(usable, kept) if keep} | {t: r for t, r in ranks.items() if len(t) == 1}
        out[tuple(byte_pair_merge(piece, allowed))] += q
    return dict(out) if usable else {parts0: 1.0}


def dropout_never_stops(piece, ranks, p):  # re-draws when every pair is dropped, so the word never stops early
    memo = {}

    def finals(parts):
        if parts not in memo:
            cands = sorted((ranks[parts[k] + parts[k + 1]], k) for k in range(len(parts) - 1)
                           if parts[k] + parts[k + 1] in ranks)
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


def dropout_leftmost(piece, ranks, p):  # joins the leftmost surviving pair instead of the one of lowest rank
    by_position = {t: 0 for t in ranks if len(t) > 1} | {t: r for t, r in ranks.items() if len(t) == 1}
    return optimal.segmentation_probabilities(piece, by_position, p)


def dropout_keeps_with_p(piece, ranks, p):  # p is the chance a pair survives, not that it is dropped
    return dropout_distribution(piece, ranks, 1 - p)


def dropout_rightmost_tie(piece, ranks, p):  # a tie in rank goes to the rightmost pair
    out = Counter()

    def walk(parts, prob):
        pairs = sorted((ranks[parts[k] + parts[k + 1]], -k) for k in range(len(parts) - 1)
                       if parts[k] + parts[k + 1] in ranks)
        for i, (_, minus_k) in enumerate(pairs):
            k = -minus_k
            walk(parts[:k] + (parts[k] + parts[k + 1],) + parts[k + 2:], prob * (1 - p) * p**i)
        out[parts] += prob * p ** len(pairs)

    walk(tuple(bytes([b]) for b in piece), 1.0)
    return out


def dropout_as_strings(piece, ranks, p):  # segmentations as 'a|bc' strings, not tuples of bytes
    return {"|".join(t.decode("latin-1") for t in parts): q
            for parts, q in optimal.segmentation_probabilities(piece, ranks, p).items()}


RIGHT = {
    "ex-opt-shortest": [shortest, shortest_memoized_recursion],
    "ex-opt-brute": [fewest_after_merges, fewest_by_merge_lists],
    "ex-opt-dropout": [dropout_distribution, dropout_by_drawing_every_subset],
}
WRONG = {
    "ex-opt-shortest": [shortest_rank_encoding, shortest_longest_match, shortest_look_back_4,
                        shortest_look_back_one_short, With(shortest_without_memo, time_limit=2),
                        shortest_ranks, shortest_as_tuple, shortest_adds_to_ranks],
    "ex-opt-brute": [brute_greedy, brute_no_nesting, brute_overlapping_savings, brute_first_occurrence_only,
                     brute_right_to_left, brute_top_pairs_only, brute_one_merge_short, brute_no_stop],
    "ex-opt-dropout": [dropout_per_word, dropout_never_stops, dropout_leftmost, dropout_keeps_with_p,
                       dropout_rightmost_tie, dropout_as_strings],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)


def test_a_recursion_without_memo_is_too_slow_within_the_time_limit():
    message = run_wrong("ex-opt-shortest", With(shortest_without_memo, time_limit=1))
    assert "too slow" in message and "within 1 s" in message
