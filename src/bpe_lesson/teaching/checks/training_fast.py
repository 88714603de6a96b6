"""Checks of the exercises in *Training fast*: pop the best pair from a lazy heap, and the
change one merge makes to one word's pair counts; and the trainer's state they share with
``training_fast_update``, which checks the third exercise (the update after a merge).

Each check compares the reader's step with the step of the same name in the
package's incremental trainer (``incremental.pop_best``, ``merge_word``), on the
trainer's own state: generated chunk sets (``aaaa``, ``abab``, ``aaabaaa``, ``abcabc``,
... with counts 1 to 4 and 7) trained with the package's steps for a few merges, so the
heap holds stale entries, the index lists words that lost their pairs, and ids above 255
sit beside bytes. Then comes the step under test, on the merge the trainer makes next or
on another pair the words hold. The heap check adds small heaps made by hand: counts at
0, 1, 2 and 3, ties, and pairs whose bytes already are a token.

What this module does not do: time anything.
"""

from __future__ import annotations

from collections import Counter
import functools
import heapq
import re

from ... import incremental, textbook
from ...ranks import vocab_from_merges
from .. import samples
from . import _gen, check, compare

__all__ = ["TOY", "PIECES", "prose_counts", "State", "package_update", "chunk_set",
           "n_merges", "VOCAB", "check_pop_best", "check_pair_delta"]


TOY = {b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4, b"hugs": 5}
PIECES = ["aaaa", "abab", "aaabaaa", "aaa", "aa", "ab", "ba", "abc", "bca", "abcabc", "aabb", "cd", "dc",
          "aaaaaaa", "ababab", "abba", "bab"]


@functools.lru_cache(maxsize=None)
def prose_counts(n_topics=20):
    """Chunk counts (bytes -> count) of the first help topics (made once; the checks copy it).

    Split with a plain pattern (a word and the space before it, or a run of spaces), not
    GPT-4's: compiling that one takes seconds of a check's time limit the first time.
    """
    topics = list(samples.prose_topics().values())[:n_topics]
    return Counter(m.encode() for t in topics for m in re.findall(r" ?[^\s]+|\s+", t))


# ---------------------------------------------------------------- the trainer's state

class State:
    """The incremental trainer's state after ``before`` merges of ``chunks``, made by the package's steps.

    >>> s = State({b"aaab": 2}, 1)
    >>> s.words, dict(s.pair_counts), s.next_id
    ([[256, 97, 98]], {(97, 98): 2, (256, 97): 2}, 257)
    """

    def __init__(self, chunks, before):
        self.vocab = vocab_from_merges(())  # int -> bytes
        self.known = set(self.vocab.values())  # bytes of every token
        self.words, self.counts = incremental.load(chunks)
        self.pair_counts, self.where, self.heap = incremental.count_all(self.words, self.counts)
        self.next_id = 256
        for _ in range(before):
            best = self.pop()
            if best is None:
                raise ValueError(f"{chunks} allows fewer than {before} merges")
            self.apply(package_update, best[0])

    def pop(self):
        return incremental.pop_best(self.heap, self.pair_counts, self.vocab, self.known)

    def apply(self, step, pair):
        """Merge ``pair`` into the next id with ``step`` (``package_update`` or the reader's)."""
        new_id = self.next_id
        self.vocab[new_id] = self.vocab[pair[0]] + self.vocab[pair[1]]
        self.known.add(self.vocab[new_id])
        self.next_id += 1
        step(pair, new_id, self.words, self.counts, self.pair_counts, self.where, self.heap)
        return new_id


def package_update(pair, new_id, words, counts, pair_counts, where, heap):
    """``incremental.apply_merge``, given its state as the five arguments the exercise's update takes."""
    incremental.apply_merge(pair, new_id, incremental.TrainerState(words, counts, pair_counts, where, heap))


def chunk_set(rng, max_chunks=5):
    """A few distinct chunks with small counts: runs and repeats where merge order matters."""
    chunks = {}
    for _ in range(rng.randint(1, max_chunks)):
        if rng.random() < 0.6:
            w = rng.choice(PIECES)
        else:
            w = "".join(rng.choice(rng.choice(["ab", "abc", "aab"])) for _ in range(rng.randint(1, 9)))
        chunks[w.encode()] = chunks.get(w.encode(), 0) + rng.choice([1, 1, 2, 2, 3, 3, 4, 7])
    return chunks


def n_merges(chunks):
    """How many merges the trainer makes on ``chunks`` before no pair occurs twice."""
    return len(incremental.train_merges(chunks, 10_000))


def _shrink_chunks(args):
    """Smaller (chunks, before, ...): fewer merges first, then a chunk less, a byte less, a lower count."""
    chunks, before, rest = args[0], args[1], args[2:]
    if before > 0:
        yield (chunks, before - 1, *rest)
    for k in chunks:
        yield ({j: c for j, c in chunks.items() if j != k}, before, *rest)
    for k, c in chunks.items():
        for i in range(len(k)):
            smaller = {j: n for j, n in chunks.items() if j != k}
            if len(k) > 1:
                smaller[k[:i] + k[i + 1:]] = smaller.get(k[:i] + k[i + 1:], 0) + c
            yield (smaller, before, *rest)
    for k, c in chunks.items():
        for lower in sorted({1, c - 1} - {c, 0}):
            yield ({**chunks, k: lower}, before, *rest)


def _merges(n):
    return f"{n} merge" + ("" if n == 1 else "s")


# ---------------------------------------------------------------- ex-fast-pop-best

VOCAB = vocab_from_merges(())  # the byte tokens; a hand-made heap adds its own tokens above 255


def _vocab(tokens):
    vocab = dict(VOCAB)
    vocab.update(tokens)
    return vocab


def _split_heap(heap, vocab, known):
    """The heap's entries in two sorted lists: pairs still to merge, and pairs whose bytes are a token."""
    known_pair = [vocab[a] + vocab[b] in known for _, a, b in heap]
    return (sorted(e for e, k in zip(heap, known_pair) if not k),
            sorted(e for e, k in zip(heap, known_pair) if k))


def _pop_by_hand(step):
    """Run ``step(heap, pair_counts, vocab, known)`` on a hand-made heap; return what it returns and the heap."""
    def run(entries, pair_counts, tokens):
        heap = list(entries)
        heapq.heapify(heap)
        vocab = _vocab(tokens)
        got = step(heap, pair_counts, vocab, set(vocab.values()))
        return got, *_split_heap(heap, vocab, set(vocab.values()))
    run.__name__ = getattr(step, "__name__", "pop_best")
    return run


def _pop_in_training(step):
    """Run ``step`` on the trainer's heap after ``before`` merges of ``chunks``."""
    def run(chunks, before):
        s = State(chunks, before)
        got = step(s.heap, s.pair_counts, s.vocab, s.known)
        return got, *_split_heap(s.heap, s.vocab, s.known)
    run.__name__ = getattr(step, "__name__", "pop_best")
    return run


def _heap_by_hand(rng):
    """(entries, pair_counts, tokens): every pair with a count has an entry at or above it; some stale."""
    ids = [97, 98, 99, 256, 257]
    tokens = {256: b"ab", 257: b"bc"}
    if rng.random() < 0.5:
        tokens[258] = b"abc"  # then (97, 257) and (256, 99) are "abc": already a token
        ids.append(258)
    pair_counts, entries = {}, []
    for _ in range(rng.randint(1, 7)):
        q = (rng.choice(ids), rng.choice(ids))
        c = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4, 5])
        pair_counts[q] = c
    for q, c in pair_counts.items():
        if c > 0 or rng.random() < 0.5:  # a count that fell to 0 may still have its old entry
            entries.append((-(c + rng.choice([0, 0, 0, 1, 2])) or -1, *q))
        if rng.random() < 0.3:  # an older entry of the same pair, higher still
            entries.append((-(c + rng.randint(1, 3)), *q))
    rng.shuffle(entries)
    return entries, pair_counts, tokens


def _pop_cases():
    h, u, g, p, n, b, s = b"hugpnbs"
    # the tiny corpus after its first merge, (u, g) -> 256: three entries are stale
    yield ([(-17, p, u), (-16, u, n), (-15, h, u), (-5, g, s), (-4, b, u), (-15, h, 256), (-5, p, 256),
            (-5, 256, s)], {(p, u): 12, (u, n): 16, (b, u): 4, (h, 256): 15, (p, 256): 5, (256, s): 5},
           {256: b"ug"})
    yield ([(-3, 97, 98)], {(97, 98): 0}, {})               # stale at 0: dropped, the heap runs empty
    yield ([(-1, 97, 98), (-1, 98, 99)], {(97, 98): 1, (98, 99): 1}, {})  # no pair occurs twice
    yield ([(-2, 98, 99), (-2, 97, 98)], {(97, 98): 2, (98, 99): 2}, {})  # a tie: the smaller pair
    yield ([(-3, 97, 257), (-2, 98, 99)], {(97, 257): 3, (98, 99): 2}, {257: b"bc", 258: b"abc"})


def _pop_training_cases():
    yield ({b"aaabdaaabac": 1}, 0)
    yield ({b"aaabdaaabac": 1}, 3)  # after minbpe's three merges no pair occurs twice


def _pop_training_case(rng):
    chunks = chunk_set(rng)
    return chunks, rng.randint(0, n_merges(chunks))


def _hand_made_is_valid(args):
    """The trainer's invariant: every id has bytes, every entry a count above 0, every counted pair an entry."""
    entries, pair_counts, tokens = args
    vocab = _vocab(tokens)
    stored = {}
    for n, a, b in entries:
        stored[a, b] = max(stored.get((a, b), 0), -n)
    return (all(-n > 0 and a in vocab and b in vocab for n, a, b in entries)
            and all(c <= 0 or stored.get(q, 0) >= c for q, c in pair_counts.items()))


def _same_pop(want, got):
    """The same answer, and the same heap after it, unless training is over (then the heap is left to rot).

    Entries of pairs whose bytes are a token may be missing (a pop_best that asks that first drops
    a stale one the package pushes back, to drop it later), never extra.
    """
    return (len(got) == 3 and got[0] == want[0]
            and (want[0] is None or got[1] == want[1] and not Counter(got[2]) - Counter(want[2])))


def _counts_and_vocab(args):
    if len(args) == 3:
        return args[1], _vocab(args[2])
    s = State(*args)
    return s.pair_counts, s.vocab


def _pop_hint(args, want, got):
    counts, vocab = _counts_and_vocab(args)
    if got[0] != want[0]:
        if got[0] is not None and not isinstance(got[0], tuple):
            return "return a tuple ((left, right), count), or None"
        if got[0] is not None:
            q, c = got[0]
            if vocab[q[0]] + vocab[q[1]] in {vocab[i] for i in vocab}:
                return f"{q} is {vocab[q[0]] + vocab[q[1]]!r}, already a token: skip it for good"
            if counts.get(q, 0) != c:
                return f"the entry of {q} is stale: its count is {counts.get(q, 0)} now, not {c}"
            if c < 2:
                return f"{q} occurs {c} time(s): below 2 training is over, return None"
        if want[0] is not None:
            return f"{want[0][0]}, count {want[0][1]}, is the best: highest count, then smallest pair"
        return "an up-to-date entry below 2 ends training: return None"
    extra = sorted((Counter(got[1] + got[2]) - Counter(want[1] + want[2])).elements())
    if extra:
        n, a, b = extra[0]
        if vocab[a] + vocab[b] in {vocab[i] for i in vocab}:
            return f"{extra[0]} is a pair whose bytes are a token: it goes for good"
        if counts.get((a, b), 0) == 0:
            return f"{extra[0]} is stale at count 0: drop it, do not push it back"
        return f"{extra[0]} should not be on the heap"
    missing = sorted((Counter(want[1]) - Counter(got[1])).elements())
    return f"{missing[0]} is missing from the heap: push a stale entry back with its true count"


@check("ex-fast-pop-best")
def check_pop_best(pop_best):
    compare(_pop_by_hand(pop_best), _pop_by_hand(incremental.pop_best), _pop_cases(), generate=_heap_by_hand,
            show=lambda a: f"heap {sorted(a[0])}, counts {a[1]}" + (f", tokens {a[2]}" if a[2] else ""),
            kind=tuple, equal=_same_pop, valid=_hand_made_is_valid, hint=_pop_hint)
    compare(_pop_in_training(pop_best), _pop_in_training(incremental.pop_best),
            _pop_training_cases(), generate=_pop_training_case, seed=("ex-fast-pop-best", 1), shrink=_shrink_chunks, kind=tuple, equal=_same_pop,
            show=lambda a: f"the heap after {_merges(a[1])} of {a[0]}", hint=_pop_hint)


# ---------------------------------------------------------------- ex-fast-delta

def _nonzero(delta):
    return {q: d for q, d in dict(delta).items() if d}


def _same_merge(want, got):
    return (len(got) == 2 and list(got[0]) == want[0] and isinstance(got[0], list)
            and _nonzero(got[1]) == _nonzero(want[1]))


def _word(rng):
    """Ids of one word: bytes of a piece, sometimes with an earlier merge's id in it."""
    w = list((rng.choice(PIECES) if rng.random() < 0.6 else _gen.text(rng, 10, long=0.05)).encode())
    if rng.random() < 0.3:
        w = textbook.merge(w, rng.choice([(97, 97), (97, 98), (98, 97)]), 256)
    return w


def _delta_cases():
    yield from [([97, 97, 97, 98], (97, 97), 256), ([5, 5, 5, 5], (5, 5), 9), ([1, 2, 3], (4, 5), 6),
                ([], (97, 97), 256), ([97], (97, 97), 256), (list(b"aaabaaa"), (97, 97), 256),
                (list(b"abab"), (97, 98), 256), (list(b"abab"), (98, 97), 256), (list(b"aaaaa"), (97, 97), 300)]


def _delta_case(rng):
    w = _word(rng)
    pairs = list(zip(w, w[1:]))
    runs = [q for q in pairs if q[0] == q[1]]
    r = rng.random()
    pair = (rng.choice(runs) if runs and r < 0.4 else rng.choice(pairs) if pairs and r < 0.9
            else (97, 97))
    return w, pair, max(w + [255]) + rng.choice([1, 1, 2, 44])


def _delta_hint(args, want, got):
    if not isinstance(got, tuple) or len(got) != 2:
        return "return (new_word, delta)"
    if list(got[0]) != want[0]:
        return "merge left to right: a merged pair uses up both ids"
    mine, theirs = _nonzero(want[1]), _nonzero(got[1]) if hasattr(got[1], "items") else {}
    for q in sorted(mine.keys() | theirs.keys()):
        if mine.get(q, 0) != theirs.get(q, 0):
            return f"the count of {q} changes by {mine.get(q, 0)}, not {theirs.get(q, 0)}"
    return None


@check("ex-fast-delta")
def check_pair_delta(pair_delta):
    compare(pair_delta, incremental.merge_word, _delta_cases(), generate=_delta_case, kind=tuple,
            equal=_same_merge, valid=lambda a: a[2] not in a[0], hint=_delta_hint)
