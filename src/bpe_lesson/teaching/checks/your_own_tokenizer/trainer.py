"""Checks of "Your own tokenizer"'s incremental trainer: the pair index (``ex-own-index``),
one merge's update (``ex-own-update``) and the whole trainer (``ex-own-train``), graded for
merges, then for time and peak memory.

The references: ``incremental.count_all``, ``incremental.apply_merge`` and
``bpe_lesson.train`` for the merges, and ``bpe_lesson.train(..., backend="python")`` for
time and peak memory (at most ``TIME_BOUND`` and ``MEMORY_BOUND`` times the package's), on
the megabyte and, for time, on ``flat_text()``, where a trainer without a heap (a linear scan for
the best pair) is about 18x slower than the package's.

No check looks for the skip rule (a pair whose bytes already are a token): training from
scratch never meets such a pair (the theorem of *Overlaps, ties and order*, lem-same-bytes), so a
trainer without it gives the same merges on every text.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools
import random
import time
import tracemalloc

from .... import incremental, textbook
from ....patterns import GPT4_PATTERN, split_chunks
from ....trainer import train as package_train
from ... import samples
from .. import _gen, alarm, call, check, compare
from .._calls import _name, _shown

__all__ = ["check_index", "check_update", "speed_text", "timed", "peak_memory",
           "flat_text", "FLAT_VOCAB", "check_train"]


# ---- ex-own-index: count every pair, index the words that hold it, heap the counts ----------------

def _words(rng):
    n = rng.randint(0, 6)
    return [_gen.ids(rng, 8, alphabet=rng.choice([2, 3, 4])) for _ in range(n)], \
        [rng.choice([1, 1, 2, 3, 5, 100]) for _ in range(n)]


def _index_cases():
    yield from [([[97, 97, 97], [97, 98]], [1, 2]), ([], []), ([[5]], [3]), ([[1, 2, 1, 2]], [1]),
                ([[97, 97, 97, 97], [97, 97]], [1, 1])]


def _is_heap(h) -> bool:
    """True when ``h`` is a min-heap (each parent at most its children).

    >>> _is_heap([(1, 2), (3, 0), (2, 5)]), _is_heap([3, 1])
    (True, False)
    """
    return all(h[k] <= h[c] for k in range(len(h)) for c in (2 * k + 1, 2 * k + 2) if c < len(h))


def _index_equal(want, got):
    pc, where, heap = want
    try:
        g_pc, g_where, g_heap = got
        return (dict((p, c) for p, c in dict(g_pc).items() if c) == dict(pc)
                and all(isinstance(v, (set, frozenset)) for v in dict(g_where).values())  # one entry per word
                and {p: set(v) for p, v in dict(g_where).items() if v} == {p: set(v) for p, v in where.items()}
                and isinstance(g_heap, list) and sorted(g_heap) == sorted(heap) and _is_heap(g_heap))
    except (TypeError, ValueError):
        return False


def _index_hint(args, want, got):
    try:
        g_pc, g_where, g_heap = got
    except (TypeError, ValueError):
        return "return three things: (pair_counts, where, heap)"
    if dict(g_pc) != dict(want[0]):
        return "a pair's count is the sum of the counts of the words, once per place it occurs (overlaps too)"
    bad = next((v for v in dict(g_where).values() if not isinstance(v, (set, frozenset))), None)
    if bad is not None:
        return (f"where[pair] is a set of word indices, each word once however often it holds the pair "
                f"(got a {type(bad).__name__})")
    if isinstance(g_heap, list) and sorted(g_heap) != sorted(want[2]):
        return "the heap holds one (-count, left, right) per pair"
    return "heapq.heapify the list, so heap[0] is the highest count" if isinstance(g_heap, list) else None


def _index_show(args):
    return f"{_shown(args[0], 40)}, counts {_shown(args[1], 20)}"


def _merge_cases():
    yield from [([1, 2, 3, 1, 2], (1, 2), 4), ([97, 97, 97], (97, 97), 256), ([97, 97, 97, 97], (97, 97), 256),
                ([], (1, 2), 256), ([1], (1, 2), 256), ([5, 6], (6, 5), 7), ([256, 97, 97], (256, 97), 257)]
    yield from _gen.DIGIT_MERGES


def _merge_case(rng):
    ids = _gen.ids(rng) if rng.random() < 0.7 else _gen.digit_ids(rng)
    pairs = list(zip(ids, ids[1:])) or [(97, 98)]
    return ids, rng.choice(pairs) if rng.random() < 0.9 else (97, 97), rng.choice([256, 300, 65_536])


def _count_all(words, counts):
    """``incremental.count_all`` with plain dicts, so a failure prints short."""
    pair_counts, where, heap = incremental.count_all(words, counts)
    return dict(pair_counts), dict(where), heap


@check("ex-own-index")
def check_index(index_pairs, merge=None):
    compare(index_pairs, _count_all, _index_cases(), generate=_words, kind=tuple, equal=_index_equal,
            hint=_index_hint, show=_index_show)
    if merge is not None:  # the merge of one pair in one word, left to right
        compare(merge, textbook.merge, _merge_cases(), generate=_merge_case, seed=("ex-own-index", 2), kind=list,
                hint=_gen.merge_hint)


# ---- ex-own-update: one merge, only where the index says, counts by difference ---------------------

def _train_with(merge_update, chunk_counts, n_merges):
    """The package's loop (load, count_all, pop_best) with the reader's ``merge_update`` in it:
    (merges, words, the pair counts that are not zero)."""
    vocab = {i: bytes([i]) for i in range(256)}
    known = set(vocab.values())
    words, counts = incremental.load(chunk_counts)
    pair_counts, where, heap = incremental.count_all(words, counts)
    merges = []
    while len(merges) < n_merges:
        best = incremental.pop_best(heap, pair_counts, vocab, known)
        if best is None:
            break
        pair, new_id = best[0], 256 + len(merges)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        merges.append((pair, new_id))
        merge_update(words, counts, pair_counts, where, heap, pair, new_id)
    return merges, words, {p: c for p, c in pair_counts.items() if c}


def _package_update(words, counts, pair_counts, where, heap, pair, new_id):
    incremental.apply_merge(pair, new_id, incremental.TrainerState(words, counts, pair_counts, where, heap))


def _chunk_counts(rng) -> dict[bytes, int]:
    words = ["abc", "ab", "bc", "abcabc", "aaaa", "abab", "a", "cab", "ba", "aaab"]
    if rng.random() < 0.3:  # bytes whose digits run into each other: 1, 12 and 11, 12 and 112
        digits = bytes(i for i in _gen.DIGIT_IDS if i < 256)
        return {bytes(rng.choice(digits) for _ in range(rng.randint(1, 7))): rng.choice([1, 2, 3, 10])
                for _ in range(rng.randint(1, 6))}
    out = {}
    for _ in range(rng.randint(1, 6)):
        w = rng.choice(words) if rng.random() < 0.7 else "".join(rng.choice("abc") for _ in range(rng.randint(1, 7)))
        out[w.encode()] = out.get(w.encode(), 0) + rng.choice([1, 1, 2, 3, 4, 10])
    return out


def _update_cases():
    yield from [({b"aaabdaaabac": 1}, 3), ({b"aaaa": 1}, 2), ({b"hug": 10, b"pug": 5, b"pun": 12, b"bun": 4}, 6),
                ({b"abcabc": 2, b"bc": 3}, 5), ({b"ab": 1}, 2),
                ({bytes([1, 12, 1, 12]): 3, bytes([11, 12, 11]): 2}, 3),  # "1,12" inside "11,12"
                ({bytes([2, 1, 2, 1]): 3, bytes([21, 2, 1]): 1}, 3)]


def _update_case(rng):
    return _chunk_counts(rng), rng.randint(1, 8)


@check("ex-own-update")
def check_update(merge_update):
    def yours(chunk_counts, n_merges):
        return _train_with(merge_update, chunk_counts, n_merges)

    yours.__name__ = _name(merge_update)
    compare(yours, lambda cc, n: _train_with(_package_update, cc, n), _update_cases(), generate=_update_case,
            kind=tuple, show=lambda args: f"training on {_shown(args[0], 40)}, {args[1]} merges",
            hint=lambda args, want, got: "(merges, words, counts) after training with your update; index the "
            "words under each new pair and push the new pairs on the heap")


# ---- ex-own-train: the reader's whole trainer: the same merges, then time and memory -------------

TIME_BOUND, MEMORY_BOUND = 10.0, 4.0  # at most 10x the package's pure-Python time, 4x its peak memory


def _train_text(rng) -> str:
    """Small text where the rules matter: ties, runs, and pairs whose bytes are already a token."""
    words = ["abc", "ab", "bc", "a", "c", "abcabc", "aaaa", "the", " the", "low", "lower", "x1", "12", "中"]
    r = rng.random()
    if r < 0.5:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 14)))
    return _gen.text(rng, 50)


def _train_cases():
    toy = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)
    yield from [(toy, 261), (toy, 300), ("", 300), ("aaabdaaabac", 259), ("abc abc bc bc ab ab", 270),
                ("a", 256)]


def _train_case(rng):
    return _train_text(rng), rng.choice([256, 257, 258, 260, 264, 270, 300])


def _merges_equal(want, got):
    try:
        return [(tuple(p), int(i)) for p, i in got] == want
    except (TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=4)
def speed_text(size: int = 1_000_000) -> str:
    """About ``size`` bytes of English help topics and standard-library code, one string."""
    docs = list(samples.prose_topics().values()) + list(samples.code_files(max(0, size - 440_000)).values())
    text = "\n".join(docs)
    return text.encode()[:size].decode("utf-8", errors="ignore")


def timed(fn, text, vocab_size):
    """(result, seconds) of one run."""
    t0 = time.perf_counter()
    result = fn(text, vocab_size)
    return result, time.perf_counter() - t0


def peak_memory(fn, text, vocab_size) -> int:
    """The most bytes Python held at once during one run (tracemalloc, which slows the run)."""
    tracemalloc.start()
    try:
        fn(text, vocab_size)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _package_python(text, vocab_size):
    return package_train(text, vocab_size, backend="python").merges


@functools.lru_cache(maxsize=1)
def flat_text(n_words: int = 10_000, length: int = 8) -> str:
    """``n_words`` distinct random words of ``length`` letters, each twice (about 180 KB): flat
    counts, so training makes thousands of merges and holds thousands of pairs. A trainer that
    scans every pair for the best one pays (pairs x merges); the heap pays a log per merge, so
    the scan's ratio grows with the text. Measured (2 cores, vocab_size ``FLAT_VOCAB``): a
    linear scan 26x the package's pure-Python trainer, the chapter's trainer 0.8x, a
    Counter-difference one 1.6-1.8x. Half the words gave the scan 13x here and under 10x on
    another machine: too close to the bound.

    >>> len(set(flat_text(50).split())), flat_text(50).count(flat_text(50).split()[0])
    (50, 2)
    """
    rng = random.Random(49)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < n_words:
        words.add("".join(rng.choice(letters) for _ in range(length)))
    return " ".join(sorted(words) * 2)


FLAT_VOCAB = 11_000


class _OverBound(BaseException):
    """Raised in the reader's trainer once it has used more CPU time than the bound allows."""


def _check_heap(train):
    """The time bound again, where a linear scan for the best pair is far slower than a heap."""
    text = flat_text()
    want, t_ref = timed(_package_python, text, FLAT_VOCAB)
    t0, stopped = time.perf_counter(), False
    try:
        with alarm(1.2 * TIME_BOUND * t_ref, _OverBound, cpu=True):  # past the bound (CPU time), the answer is known
            got = call(train, text, FLAT_VOCAB)
    except _OverBound:
        got, stopped = want, True
    t_you = time.perf_counter() - t0
    assert _merges_equal(want, got), (f"on {len(text):,} bytes of {len(set(text.split())):,} distinct words, each "
                                      f"twice, train(text, {FLAT_VOCAB}) gives other merges than the package")
    ratio = t_you / t_ref
    assert ratio <= TIME_BOUND and not stopped, (
        f"on {len(text) // 1000} KB of {len(set(text.split())):,} distinct words, each twice, train(text, "
        f"{FLAT_VOCAB}) took {'over ' if stopped else ''}{t_you:.1f} s, {ratio:.0f}x the package's pure-Python trainer ({t_ref:.1f} s); "
        f"at most {TIME_BOUND:g}x\n  hint: flat counts mean thousands of pairs and merges: a scan of every "
        "pair per merge is too slow; pop a heap")


@check("ex-own-train")
def check_train(train, size=1_000_000, vocab_size=2048):
    compare(train, lambda text, v: package_train(text, v).merges, _train_cases(), generate=_train_case, kind=list,
            equal=_merges_equal,
            hint=lambda args, want, got: "the highest count first, ties to the smallest (left, right); skip a "
            "pair whose bytes are a token already; stop when no pair occurs twice")
    text = speed_text(size)
    split_chunks("\u00e9", GPT4_PATTERN)  # the package's first split of non-ASCII text builds tables: not timed
    want, t_ref = timed(_package_python, text, vocab_size)
    got, t_you = timed(lambda t, v: call(train, t, v), text, vocab_size)
    assert _merges_equal(want, got), (f"on {len(text.encode()):,} bytes of prose and code, train(text, "
                                      f"{vocab_size}) gives other merges than the package")
    time_ratio = t_you / t_ref
    assert time_ratio <= TIME_BOUND, (f"train took {t_you:.1f} s, {time_ratio:.0f}x the package's pure-Python "
                                      f"trainer ({t_ref:.1f} s); at most {TIME_BOUND:g}x: a pair index and a heap")
    m_ref = peak_memory(_package_python, text, vocab_size)
    m_you = peak_memory(lambda t, v: call(train, t, v), text, vocab_size)
    memory_ratio = m_you / m_ref
    assert memory_ratio <= MEMORY_BOUND, (f"train's peak memory was {m_you / 1e6:.0f} MB, {memory_ratio:.1f}x the "
                                          f"package's ({m_ref / 1e6:.0f} MB); at most {MEMORY_BOUND:g}x")
    _check_heap(train)
    # what the exercise's text promises: the reader's figures against the bounds, before "ok"
    print(f"time: {t_you:.1f} s, {time_ratio:.1f}x the package's {t_ref:.1f} s (at most {TIME_BOUND:g}x)")
    print(f"peak memory: {m_you / 1e6:.0f} MB, {memory_ratio:.1f}x the package's {m_ref / 1e6:.0f} MB "
          f"(at most {MEMORY_BOUND:g}x)")
