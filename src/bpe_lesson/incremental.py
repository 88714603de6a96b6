"""The fast BPE trainer, written to be read: same merges as ``textbook.py``.

Three ideas make it fast:
  1. Unique chunks with counts: "the" may occur 50,000 times but is stored once,
     with the number 50,000 beside it.
  2. A pair index: for each pair, the chunks that contain it. A merge then touches
     only those chunks, and pair counts are updated by the difference between a
     chunk's pairs before and after the merge, never recounted from scratch.
  3. A max-heap of (count, pair) with lazy re-checks. Counts only ever fall,
     except for pairs that contain the newest token (which are pushed fresh), so
     a popped entry is an upper bound: if its count is stale we push the true
     count back and pop again.

``_incremental.pyx`` is the same algorithm, the same function names, compiled.

What this module does not do: read or split text (``chunks.py``), encode
(``ranks.py``), or explain the rule again (``textbook.py`` does).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict

from .ranks import vocab_from_merges
from .textbook import apply_merges, format_merge, merge


def train_merges(chunk_counts, n_merges, base_merges=(), verbose=False, progress=None):
    """Learn up to ``n_merges`` merges from ``chunk_counts`` (bytes -> count).

    Same contract and same result as ``textbook.train_merges``.

    >>> train_merges({b"aaabdaaabac": 1}, 3)
    [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
    """
    vocab = vocab_from_merges(base_merges)  # int -> bytes
    known = set(vocab.values())  # bytes of every token
    ranks = {pair: new_id for pair, new_id in base_merges}
    words = []  # list[list[int]]: each unique chunk as ids
    counts = []  # list[int]: how often each chunk occurs
    for chunk, count in chunk_counts.items():
        words.append(apply_merges(list(chunk), ranks))
        counts.append(count)

    # 1. count every pair once, and remember which words hold it
    pair_counts = defaultdict(int)  # (int, int) -> int
    where = defaultdict(set)  # (int, int) -> set of word indices
    for i, w in enumerate(words):
        for pair in zip(w, w[1:]):
            pair_counts[pair] += counts[i]
            where[pair].add(i)

    # 2. a heap of (-count, left, right): the smallest tuple is the highest count,
    #    and among equal counts the smallest (left, right), which is the tie rule
    heap = [(-c, a, b) for (a, b), c in pair_counts.items()]
    heapq.heapify(heap)

    next_id = 256 + len(base_merges)
    merges = []
    while len(merges) < n_merges and heap:
        neg, a, b = heapq.heappop(heap)
        pair = (a, b)
        count = pair_counts.get(pair, 0)
        if count != -neg:
            # stale entry: the count fell since it was pushed; push the true one back
            if count > 0:
                heapq.heappush(heap, (-count, a, b))
            continue
        if count < 2:
            break
        if vocab[a] + vocab[b] in known:
            # subtle: these bytes already are a token (made from another split); skip
            # the pair for good: its count can only fall, so it never needs a re-check
            continue

        new_id = next_id
        next_id += 1
        vocab[new_id] = vocab[a] + vocab[b]
        known.add(vocab[new_id])
        merges.append((pair, new_id))
        if verbose:
            print(format_merge(len(merges), pair, new_id, vocab, count))
        if progress is not None:
            progress(1)

        # 3. rewrite only the words that hold the pair; update counts by the difference
        fresh = set()  # pairs that contain new_id: pushed once, after all words are done
        for i in where.pop(pair):
            w = words[i]
            new_w = merge(w, pair, new_id)
            if len(new_w) == len(w):
                continue  # subtle: the index may be stale (an earlier merge took the pair away)
            c = counts[i]
            for p, n in Counter(zip(w, w[1:])).items():
                pair_counts[p] -= n * c
            for p, n in Counter(zip(new_w, new_w[1:])).items():
                pair_counts[p] += n * c
                if new_id in p:
                    where[p].add(i)
                    fresh.add(p)
            words[i] = new_w
        pair_counts.pop(pair, None)
        for p in fresh:
            heapq.heappush(heap, (-pair_counts[p], p[0], p[1]))
    return merges
