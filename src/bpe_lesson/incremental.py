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

The steps have names, and ``_compiled/_incremental.pxi`` has the same ones, compiled:
``load``, ``count_all``, ``pop_best``, ``merge_word`` (the step inside one word)
and ``apply_merge`` (one merge over every word that holds the pair). What ``load``
and ``count_all`` make, ``apply_merge`` keeps up to date, held together in a
``TrainerState`` (the compiled trainer keeps the same in the fields of ``_TrainerState``).

Options (the same in every trainer): ``tie_break="greatest-bytes"`` breaks a tie by
the greatest ``(left bytes, right bytes)`` (Stanford CS336's rule) instead of the
smallest ``(left id, right id)``; ``min_frequency`` stops when the best pair occurs
fewer times than that (never below 2); ``max_token_length`` never makes a token of
more bytes than that (such pairs are skipped for good, like a pair whose bytes
already are a token).

What this module does not do: read or split text (``chunks.py``), encode
(``ranks.py``), or explain the rule again (``textbook.py`` does).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from dataclasses import dataclass

from .ranks import vocab_from_merges
from .textbook import apply_merges, format_merge, merge

__all__ = ["load", "TIE_BREAKS", "options_problem", "entry", "count_all", "pop_best",
           "merge_word", "TrainerState", "apply_merge", "train_merges", "merge_loop"]


def load(chunk_counts, base_merges=()):
    """Each unique chunk as a list of ids (after the merges we continue from), and its count.

    >>> load({b"aab": 3}, [((97, 97), 256)])
    ([[256, 98]], [3])
    """
    ranks = {pair: new_id for pair, new_id in base_merges}  # (int, int) -> int
    words = []  # list[list[int]]: each unique chunk as ids
    counts = []  # list[int]: how often each chunk occurs
    for chunk, count in chunk_counts.items():
        words.append(apply_merges(list(chunk), ranks))
        counts.append(count)
    return words, counts


TIE_BREAKS = ("smallest-ids", "greatest-bytes")


def options_problem(tie_break, min_frequency, max_token_length, show=repr, none: str = "None"):
    """The first of the merge loop's options that is out of range, as ``(name, "VALUE should
    be ...")``, or None: the one check of them, for ``train`` and the YAML config, which
    word the error each its own way (``show`` writes a value, ``none`` names None).

    >>> options_problem("smallest-ids", 2, None) is None
    True
    >>> options_problem("smallest-ids", 2, 1, none="null")
    ('max_token_length', '1 should be a whole number >= 2, or null')
    """
    if tie_break not in TIE_BREAKS:
        return "tie_break", f"{show(tie_break)} should be one of {', '.join(TIE_BREAKS)}"
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 1:
        return "min_frequency", f"{show(min_frequency)} should be a whole number >= 1"
    if max_token_length is not None and (isinstance(max_token_length, bool) or not isinstance(max_token_length, int)
                                         or max_token_length < 2):
        return "max_token_length", f"{show(max_token_length)} should be a whole number >= 2, or {none}"
    return None


class _Greater:
    """A heap key that puts the greatest (left bytes, right bytes) first (heapq pops the smallest).

    >>> _Greater(b"b", b"a") < _Greater(b"a", b"z")
    True
    """
    __slots__ = ("pair",)

    def __init__(self, left: bytes, right: bytes):
        self.pair = (left, right)

    def __lt__(self, other):
        return self.pair > other.pair

    def __eq__(self, other):
        return self.pair == other.pair


def entry(count, a, b, vocab=None, tie_break="smallest-ids"):
    """The heap entry of pair (a, b) with ``count``: its smallest entry is the pair to merge.

    >>> entry(5, 97, 98)
    (-5, 97, 98)
    """
    if tie_break == "smallest-ids":
        return (-count, a, b)
    return (-count, _Greater(vocab[a], vocab[b]), a, b)


def count_all(words, counts, vocab=None, tie_break="smallest-ids"):
    """Count every pair once, remember which words hold it, and heap the counts.

    The heap holds (-count, left, right): its smallest entry is the highest count
    and, among equal counts, the smallest (left, right), which is the tie rule.

    >>> pair_counts, where, heap = count_all([[97, 97, 97], [97, 98]], [1, 2])
    >>> dict(pair_counts), dict(where), heap[0]
    ({(97, 97): 2, (97, 98): 2}, {(97, 97): {0}, (97, 98): {1}}, (-2, 97, 97))
    """
    pair_counts = defaultdict(int)  # (int, int) -> int
    where = defaultdict(set)  # (int, int) -> set of word indices
    for i, w in enumerate(words):
        for pair in zip(w, w[1:]):
            pair_counts[pair] += counts[i]
            where[pair].add(i)
    heap = [entry(c, a, b, vocab, tie_break) for (a, b), c in pair_counts.items()]
    heapq.heapify(heap)
    return pair_counts, where, heap


def pop_best(heap, pair_counts, vocab, known, min_count=2, max_len=None, tie_break="smallest-ids"):
    """Pop the pair to merge next and its count, or None when no pair occurs twice.

    Counts only fall (pairs with the newest token are pushed fresh), so a popped
    entry is an upper bound: when its count is stale we push the true count back
    and pop again.

    >>> heap = [(-5, 97, 98), (-4, 98, 99)]
    >>> pop_best(heap, {(97, 98): 3, (98, 99): 4}, {97: b"a", 98: b"b", 99: b"c"}, set())
    ((98, 99), 4)
    """
    while heap:
        top = heapq.heappop(heap)
        neg, a, b = top[0], top[-2], top[-1]
        count = pair_counts.get((a, b), 0)
        if count != -neg:
            # stale entry: the count fell since it was pushed; push the true one back
            if count > 0:
                heapq.heappush(heap, entry(count, a, b, vocab, tie_break))
            continue
        if count < max(2, min_count):
            return None
        if vocab[a] + vocab[b] in known:
            # subtle: these bytes already are a token (made from another split); skip
            # the pair for good: its count can only fall, so it never needs a re-check
            continue
        if max_len is not None and len(vocab[a]) + len(vocab[b]) > max_len:
            continue  # too long a token: skipped for good too (lengths never change)
        return (a, b), count
    return None


def merge_word(word, pair, new_id):
    """Merge ``pair`` in one word, left to right; return the new word and how its pair counts changed.

    The step inside the loop (rustbpe's ``Word::merge_pair``): the pair counts of
    the whole corpus change by this difference times the word's count.

    >>> new, delta = merge_word([97, 97, 97, 98], (97, 97), 256)
    >>> new, sorted(delta.items())
    ([256, 97, 98], [((97, 97), -2), ((97, 98), 0), ((256, 97), 1)])
    """
    new = merge(word, pair, new_id)
    delta = Counter(zip(new, new[1:]))  # (int, int) -> change in count
    delta.subtract(Counter(zip(word, word[1:])))
    return new, delta


@dataclass
class TrainerState:
    """What ``load`` and ``count_all`` made, together: the five things ``apply_merge`` updates.

    Not copies: the state holds the very lists and dicts that ``load`` and
    ``count_all`` returned, so what ``apply_merge`` changes in it changes under
    their names too. The compiled trainer keeps the same in fields (``_TrainerState``).

    >>> words, counts = load({b"aab": 3})
    >>> pair_counts, where, heap = count_all(words, counts)
    >>> state = TrainerState(words, counts, pair_counts, where, heap)
    >>> state.words, state.heap[0]
    ([[97, 97, 98]], (-3, 97, 97))
    """
    words: list[list[int]]  # each unique chunk as ids (from load)
    counts: list[int]  # how often each chunk occurs (from load)
    # subtle: the next two are count_all's defaultdicts; apply_merge adds new pairs to them
    pair_counts: dict[tuple[int, int], int]  # each pair's count
    where: dict[tuple[int, int], set[int]]  # each pair -> the words that may hold it
    heap: list[tuple]  # entry() of each pair, (-count, left, right), stale ones too


def apply_merge(pair, new_id, state, vocab=None, tie_break="smallest-ids"):
    """Rewrite only the words that hold ``pair``; update the counts by the difference.

    Changes ``state`` (a ``TrainerState``) in place. Pairs that contain ``new_id``
    are new: they are indexed and pushed once, after all words are done, with
    their final counts.

    >>> state = TrainerState([[97, 97, 98]], [2], *count_all([[97, 97, 98]], [2]))
    >>> apply_merge((97, 97), 256, state)
    >>> state.words, dict(state.pair_counts)
    ([[256, 98]], {(97, 98): 0, (256, 98): 2})
    >>> sorted(state.heap)  # the old entries stay, stale: pop_best finds them out
    [(-2, 97, 97), (-2, 97, 98), (-2, 256, 98)]
    """
    fresh = set()  # pairs that contain new_id
    for i in state.where.pop(pair):
        new_w, delta = merge_word(state.words[i], pair, new_id)
        if len(new_w) == len(state.words[i]):
            continue  # subtle: the index may be stale (an earlier merge took the pair away)
        for p, n in delta.items():
            state.pair_counts[p] += n * state.counts[i]
            if new_id in p:
                state.where[p].add(i)
                fresh.add(p)
        state.words[i] = new_w
    state.pair_counts.pop(pair, None)
    for p in fresh:
        heapq.heappush(state.heap, entry(state.pair_counts[p], p[0], p[1], vocab, tie_break))


def train_merges(chunk_counts, n_merges, base_merges=(), verbose=False, progress=None, *,
                 tie_break="smallest-ids", min_frequency=2, max_token_length=None):
    """Learn up to ``n_merges`` merges from ``chunk_counts`` (bytes -> count).

    Same contract and same result as ``textbook.train_merges``: the steps above,
    in a loop (``merge_loop``).

    >>> train_merges({b"aaabdaaabac": 1}, 3)
    [((97, 97), 256), ((97, 98), 257), ((256, 257), 258)]
    """
    vocab = vocab_from_merges(base_merges)  # int -> bytes
    words, counts = load(chunk_counts, base_merges)
    options = {"tie_break": tie_break, "min_frequency": min_frequency, "max_token_length": max_token_length}
    return merge_loop(words, counts, vocab, 256 + len(base_merges), n_merges, verbose=verbose, progress=progress,
                      options=options)


def merge_loop(words, counts, vocab, next_id, n_merges, *, verbose=False, progress=None, options=None):
    """The merge loop on words already made of ids: ``count_all``, then ``pop_best`` and
    ``apply_merge`` until ``n_merges`` merges or no pair occurs twice.

    ``vocab`` (id -> bytes) holds every id the words use and every token whose bytes
    no merge may make again; ``next_id`` is the id the first merge makes. ``train_merges``
    calls it on chunks of bytes; ``trainer.train(start_from=...)`` on chunks a
    pretrained tokenizer has encoded, whose ids need not be 256, 257, ...
    ``options``: ``tie_break``, ``min_frequency``, ``max_token_length`` as in ``train_merges``.

    >>> merge_loop([[7, 9, 7, 9]], [2], {7: b"a", 9: b"b"}, 300, 2)
    [((7, 9), 300), ((300, 300), 301)]
    """
    opts = {"tie_break": "smallest-ids", "min_frequency": 2, "max_token_length": None} | (options or {})
    tie_break, min_frequency, max_token_length = opts["tie_break"], opts["min_frequency"], opts["max_token_length"]
    vocab = dict(vocab)  # int -> bytes; the caller's stays as it was
    known = set(vocab.values())  # bytes of every token
    pair_counts, where, heap = count_all(words, counts, vocab, tie_break)
    state = TrainerState(words, counts, pair_counts, where, heap)  # what apply_merge updates
    merges = []
    while len(merges) < n_merges:
        best = pop_best(state.heap, state.pair_counts, vocab, known, min_frequency, max_token_length, tie_break)
        if best is None:
            break
        pair, count = best
        new_id = next_id
        next_id += 1
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        merges.append((pair, new_id))
        if verbose:
            print(format_merge(len(merges), pair, new_id, vocab, count))
        if progress is not None:
            progress(1)
        apply_merge(pair, new_id, state, vocab, tie_break)
    return merges
