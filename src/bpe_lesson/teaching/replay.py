"""Replay a merge list on a counted corpus, one merge at a time, and record each step.

Also ``train_by_saving``: the same corpus and index, training by the saving rule.

The chapters use this to look inside training: for every merge of a list (made by
one of the package's trainers) it records the pair's count ``f`` just before the
merge, the tokens the merge removed (its gain ``g``), how many pairs shared the top
count, and which pair a trainer ranking by *saving* instead of count would have
merged at that moment. It keeps each distinct chunk once with its count, and a pair
index (pair -> chunks that hold it), so a merge touches only the chunks holding
its pair, as the incremental trainer does.

Every step is checked against the package's rule: the merged pair must have the
top count and be the smallest pair among those tied, and no tied pair may spell a
token already made; a list that breaks the rule raises ``ValueError``.

What this module does not do: choose merges (the trainers do; this only replays a
list it is given), or skip pairs (a list that needs the skip is not the rule's).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from ..ranks import vocab_from_merges
from ..textbook import merge

__all__ = ["Step", "runs", "replay", "merge_pair", "train_by_saving"]


@dataclass(frozen=True)
class Step:
    """What one merge did to the corpus."""

    pair: tuple[int, int]  # the merged pair
    count: int  # f: its occurrences just before the merge, overlaps included
    gain: int  # g: the tokens the merge removed
    tied: int  # how many pairs shared the top count (1: no tie)
    saving_pair: tuple[int, int]  # the pair that would remove the most tokens (smallest on a tie)
    saving: int  # how many tokens that pair would remove
    run_count: int | None  # for a pair (a, a): f computed from the runs of a, else None
    run_gain: int | None  # for a pair (a, a): g computed from the runs of a, else None


def runs(w, t) -> list[int]:
    """Lengths of the maximal runs of token ``t`` (length >= 2) in ``w``.

    >>> runs([5, 5, 1, 5, 5, 5, 2, 5], 5)
    [2, 3]
    """
    out, n = [], 0
    for x in list(w) + [None]:
        if x == t:
            n += 1
        else:
            if n >= 2:
                out.append(n)
            n = 0
    return out


def _same_gain(words, mult, chunks, a):
    """Tokens removed by merging (a, a) in the given chunks: floor(run / 2) per run."""
    return sum(sum(n // 2 for n in runs(words[k], a)) * mult[k] for k in chunks)


def replay(chunk_counts, merges):
    """Apply ``merges`` in order to every distinct chunk; return (steps, final chunks, vocab).

    ``chunk_counts`` maps a chunk's bytes to how often it occurs; the final chunks are
    lists of ids in the same order as ``chunk_counts``.

    "aaab" twice and "ab" once: (a, b) and (a, a) both occur 3 times, the rule takes
    the smaller pair (a, a); it removes 2 tokens, (a, b) would have removed 3.

    >>> steps, words, vocab = replay({b"aaab": 2, b"ab": 1}, [((97, 97), 256)])
    >>> s = steps[0]; s.count, s.gain, s.tied, s.saving_pair, s.saving
    (4, 2, 1, (97, 98), 3)
    >>> words
    [[256, 97, 98], [97, 98]]
    """
    words, mult, count, where, with_count, add = _index(chunk_counts)
    vocab = vocab_from_merges()  # int -> bytes
    known = set(vocab.values())  # the bytes of every token so far
    steps = []
    for t, (pair, new_id) in enumerate(merges, 1):
        top = max(with_count, default=0)  # the highest count of any pair
        tied = sorted(with_count.get(top, ()))
        if count.get(pair, 0) != top or pair != tied[0]:
            raise ValueError(f"merge {t} {pair} is not the rule's pick: count {count.get(pair, 0)}, "
                             f"the top count is {top}, held by {tied[:3]}")
        if any(vocab[x] + vocab[y] in known for x, y in tied):
            raise ValueError(f"merge {t}: a pair with the top count spells a token; the rule would skip it")
        saving_pair, saving = _saving_winner(words, mult, where, with_count)
        f = top
        run_f = run_g = None
        if pair[0] == pair[1]:  # a pair (a, a): the runs predict f and g
            chunks = where[pair]
            run_f = sum(sum(n - 1 for n in runs(words[k], pair[0])) * mult[k] for k in chunks)
            run_g = _same_gain(words, mult, chunks, pair[0])
        g = merge_pair(pair, new_id, words, mult, where, add)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        steps.append(Step(pair, f, g, len(tied), saving_pair, saving, run_f, run_g))
    return steps, words, vocab


def _saving_winner(words, mult, where, with_count):
    """The pair whose merge removes the most tokens now, the smallest pair on a tie.

    A pair (a, b) with a != b removes exactly its count; only a pair (a, a) can remove
    less, so walk the counts from the top and stop once no pair left can beat the best.
    """
    best, best_pair = -1, None
    for c in sorted(with_count, reverse=True):
        if c < best:
            break  # a pair removes at most its count: nobody below can win
        for p in sorted(with_count[c]):
            g = c if p[0] != p[1] else _same_gain(words, mult, where[p], p[0])
            if g > best or (g == best and p < best_pair):
                best, best_pair = g, p
    return best_pair, best


def _index(chunk_counts):
    """The corpus as replay and train_by_saving keep it, and ``add`` to change a count.

    Returns ``(words, mult, count, where, with_count, add)``: each distinct chunk as
    a list of ids, how often it occurs, each pair's count (overlaps included), the
    chunks holding each pair, the pairs holding each count, and ``add(pair, delta)``.
    """
    words = [list(c) for c in chunk_counts]  # each distinct chunk as ids
    mult = list(chunk_counts.values())  # how often each chunk occurs
    count = Counter()  # (int, int) -> count, overlaps included
    where = defaultdict(set)  # (int, int) -> indices of the chunks that hold it
    for k, w in enumerate(words):
        for p in zip(w, w[1:]):
            count[p] += mult[k]
            where[p].add(k)
    with_count = defaultdict(set)  # count -> the pairs that have it
    for p, c in count.items():
        with_count[c].add(p)

    def add(p, delta):  # change one pair's count, keeping with_count in step
        if count[p]:
            with_count[count[p]].discard(p)
            if not with_count[count[p]]:
                del with_count[count[p]]
        count[p] += delta
        if count[p]:
            with_count[count[p]].add(p)
        else:
            del count[p]
    return words, mult, count, where, with_count, add


def merge_pair(pair, new_id, words, mult, where, add) -> int:
    """Merge ``pair`` into ``new_id`` in every chunk that holds it; return the tokens removed.

    Only the chunks the index lists are touched; their pair counts are updated by
    the difference between the chunk before and after.

    >>> words, mult, count, where, with_count, add = _index({b"abab": 1})
    >>> merge_pair((97, 98), 256, words, mult, where, add), words, dict(count)
    (2, [[256, 256]], {(256, 256): 1})
    """
    g = 0
    for k in where.pop(pair):
        w = words[k]
        merged = merge(w, pair, new_id)
        if len(merged) == len(w):
            continue  # subtle: an earlier merge took the pair out of this chunk
        g += (len(w) - len(merged)) * mult[k]
        for p, n in Counter(zip(w, w[1:])).items():
            add(p, -n * mult[k])
        for p, n in Counter(zip(merged, merged[1:])).items():
            add(p, n * mult[k])
            where[p].add(k)
        words[k] = merged
    return g


def train_by_saving(chunk_counts, n_merges):
    """Train ``n_merges`` merges by the saving rule: the pair whose merge removes the most tokens.

    The count rule's trainer with one change: the winner is ``_saving_winner``'s
    (ties to the smallest pair), not the top count's. Returns ``(merges, length)``:
    the merge list ``[((left, right), new_id), ...]`` and the corpus length, in
    tokens, after it. It stops early when no chunk holds a pair.

    What it does not do: the package's skip rule (a pair spelling a token already
    made is merged like any other), or speed: each step walks the counts from the top.

    "aaab" twice and "ab" once (10 tokens): (a, a) counts 4 but removes 2, (a, b)
    removes 3 and goes first (7 tokens); then (a, a) and (a, 256) both remove 2, and
    the tie goes to the smaller pair (5 tokens):

    >>> train_by_saving({b"aaab": 2, b"ab": 1}, 2)
    ([((97, 98), 256), ((97, 97), 257)], 5)
    """
    words, mult, count, where, with_count, add = _index(chunk_counts)
    merges = []
    for new_id in range(256, 256 + n_merges):
        if not count:
            break  # every chunk is one token
        pair, _ = _saving_winner(words, mult, where, with_count)
        merge_pair(pair, new_id, words, mult, where, add)
        merges.append((pair, new_id))
    return merges, sum(len(w) * m for w, m in zip(words, mult))
