"""Checks of the exercises in *Training fast*.

Each check compares the reader's step with the textbook trainer (``textbook.py``),
which recounts everything, on hand-made cases and on the book's prose.

What this module does not do: time anything.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter, defaultdict

from ... import incremental, textbook
from ...chunks import count_chunks, to_byte_counts
from ...ranks import vocab_from_merges
from .. import samples
from . import check

TOY = {b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4, b"hugs": 5}


def prose_counts(n_topics=20):
    """Chunk counts (bytes -> count) of the first help topics, GPT-4 split."""
    topics = list(samples.prose_topics().values())[:n_topics]
    return to_byte_counts(count_chunks(topics, "gpt4"))


@check("ex-fast-pop-best")
def check_pop_best(pop_best):
    # the tiny corpus after its first merge, (u, g) -> 256: three entries are stale
    h, u, g, p, n, b, s = b"hugpnbs"
    heap = [(-17, p, u), (-16, u, n), (-15, h, u), (-5, g, s), (-4, b, u), (-15, h, 256), (-5, p, 256),
            (-5, 256, s)]
    heapq.heapify(heap)
    now = {(p, u): 12, (u, n): 16, (b, u): 4, (h, 256): 15, (p, 256): 5, (256, s): 5}
    assert pop_best(heap, now) == ((u, n), 16), "(u, n) is the best pair: its entry is up to date at 16"
    assert (-12, p, u) in heap, "the stale (p, u) entry must go back with its true count, 12"
    assert len(heap) == 7, f"the heap should hold 7 entries after the pop, it holds {len(heap)}"
    assert pop_best([(-3, 1, 2)], {(1, 2): 0}) is None, "a heap of stale entries at count 0 gives None"
    rng = random.Random(0)  # random heaps with stale entries, against brute force
    for _ in range(300):
        now = {(rng.randrange(6), rng.randrange(6)): rng.randrange(6) for _ in range(12)}
        stored = {q: c + rng.randrange(3) * (rng.random() < 0.5) for q, c in now.items()}
        heap = [(-c, a, b) for (a, b), c in stored.items() if c > 0]
        heapq.heapify(heap)
        live = [(-c, q) for q, c in now.items() if c > 0]
        want = (min(live)[1], -min(live)[0]) if live else None
        got = pop_best(heap, now)
        assert got == want, f"counts {now}, stored {stored}: expected {want}, got {got} (tie: smallest pair)"
        assert all(-e[0] >= now[e[1:]] for e in heap), "an entry left in the heap is below its pair's count"


@check("ex-fast-delta")
def check_pair_delta(pair_delta):
    got = pair_delta([97, 97, 97, 98], (97, 97), 256)
    assert got == Counter({(256, 97): 1, (97, 97): -2}), (
        f"[97, 97, 97, 98], merging (97, 97): expected (256, 97): +1, (97, 97): -2, got {dict(got)} "
        "(merge left to right; leave out the pairs that do not change)")
    assert 0 not in got.values(), f"leave out the pairs whose count does not change: {dict(got)}"
    assert pair_delta([1, 2, 3], (4, 5), 6) == Counter(), "a word without the pair changes nothing"
    assert pair_delta([5, 5, 5, 5], (5, 5), 9) == Counter({(5, 5): -3, (9, 9): 1})
    # the theorem on real text: old counts plus the deltas equal a recount, merge after merge
    chunk_counts = prose_counts()
    words = {tuple(w): c for w, c in chunk_counts.items()}
    counts = textbook.count_pairs(words)
    for pair, new_id in textbook.train_merges(chunk_counts, 10):
        for w, c in words.items():
            for q, d in pair_delta(list(w), pair, new_id).items():
                counts[q] += d * c
        words = {tuple(textbook.merge(list(w), pair, new_id)): c for w, c in words.items()}
        assert +counts == textbook.count_pairs(words), f"after merging {pair}, the counts differ from a recount"


def _index(words, counts):
    """Pair counts and the words that hold each pair, counted from scratch.

    >>> counts, where = _index([[97, 97, 97], [97, 98]], [1, 2])
    >>> dict(counts), dict(where)
    ({(97, 97): 2, (97, 98): 2}, {(97, 97): {0}, (97, 98): {1}})
    """
    pair_counts, where = Counter(), defaultdict(set)  # (int, int) -> count, -> word indices
    for i, w in enumerate(words):
        for q in zip(w, w[1:]):
            pair_counts[q] += counts[i]
            where[q].add(i)
    return pair_counts, where


def _drive(update, chunk_counts, n_merges, recount_every):
    """Train with the reader's update; compare each merge with the textbook's."""
    words, counts = incremental.load(chunk_counts)
    pair_counts, where = _index(words, counts)
    want = textbook.train_merges(chunk_counts, n_merges)
    vocab = vocab_from_merges(want)
    known = {vocab[i] for i in range(256)}
    for k, (pair, new_id) in enumerate(want):
        live = {p: c for p, c in pair_counts.items() if c > 0 and vocab[p[0]] + vocab[p[1]] not in known}
        best = min(live, key=lambda p: (-live[p], p)) if live else None
        assert best == pair, (
            f"merge {k + 1}: your counts pick {best} (count {live.get(best)}), the textbook merges "
            f"{pair} (count {live.get(pair)})")
        update(words, counts, pair_counts, where, pair, new_id)
        known.add(vocab[new_id])
        if (k + 1) % recount_every == 0 or k + 1 == len(want):
            recount, holders = _index(words, counts)
            assert {p: c for p, c in pair_counts.items() if c} == recount, f"after merge {k + 1} your counts differ from a recount"
            for q, held in holders.items():
                assert held <= set(where.get(q, ())), (
                    f"after merge {k + 1}, words {sorted(held - set(where.get(q, ())))[:5]} hold {q} "
                    "but the index does not list them")
    return len(want)


@check("ex-fast-update")
def check_update(update_counts):
    _drive(update_counts, TOY, 10, 1)
    _drive(update_counts, {b"aaaaa": 3, b"aaab": 2, b"abab": 1}, 4, 1)  # overlapping pairs
    _drive(update_counts, prose_counts(), 60, 20)
