"""The incremental trainer's steps, one by one, on cases worked out by hand.

``incremental.py`` and ``_compiled/_incremental.pxi`` name the same steps (``load``,
``count_all``, ``pop_best``, ``merge_word``, ``apply_merge``); the first test
checks that both files have each name, reading the .pxi as text so it runs
without a build. The compiled steps are ``cdef`` (not callable from Python);
their merges are compared with the textbook trainer and rustbpe in
test_trainers.py.
"""

import heapq
import os
import re
from collections import Counter

import bpe_lesson
from bpe_lesson import incremental

STEPS = ["load", "count_all", "pop_best", "merge_word", "apply_merge"]
BYTES = {i: bytes([i]) for i in range(256)}


def pyx_source(name="_incremental"):
    with open(os.path.join(os.path.dirname(bpe_lesson.__file__), "_compiled", f"{name}.pxi"), encoding="utf-8") as f:
        return f.read()


def test_both_trainers_name_the_same_steps():
    src = pyx_source()
    for name in STEPS + ["train_merges"]:
        assert callable(getattr(incremental, name, None)), name
    # the compiled steps are methods of _Trainer (merge_word an inline one) and the loop is run
    for name in STEPS + ["run"]:
        assert re.search(rf"^    cdef (inline )?[\w\[\], ]*?\b{name}\(self\b", src, re.M), name
    assert re.search(r"^def train_merges\(chunk_counts, n_merges, base_merges=\(\), verbose=False, progress=None, \*,"
                     r"\n\s+tie_break=\"smallest-ids\", min_frequency=2, max_token_length=None, memory=None\):", src, re.M)
    # and the loop calls them by those names
    run = src[src.index("cdef int run(self"):]
    assert "self.pop_best()" in run and "self.apply_merge(" in run
    assert "self.merge_word(" in src[src.index("cdef void apply_merge(self"):]


def test_the_compiled_steps_call_their_state_directly():
    # _Trainer inherits its data and the small operations on it (the pair table, the heap)
    # from _TrainerState; only a final method is called directly and can be inlined into the
    # steps' loops, any other through the class's table of virtual methods
    src = pyx_source("_trainer_state")
    methods = re.findall(r"^(    @cython\.final\n)?    cdef (?:inline )?[\w\[\], ]*?\b(\w+)\(self\b", src, re.M)
    assert {name for _, name in methods} >= {"bucket", "slot_of", "find", "grow", "hpush", "hpop", "hempty"}
    assert [name for final, name in methods if not final] == []
    assert re.search(r"^@cython\.final\ncdef class _Trainer\(_TrainerState\):", pyx_source(), re.M)


# ---- load --------------------------------------------------------------------

def test_load_replays_the_base_merges_on_each_chunk():
    # "aaab": (a, a) -> 256 twice left to right gives [256, 256, 98], then (256, 256) -> 257
    words, counts = incremental.load({b"aaaab": 2, b"b": 7}, [((97, 97), 256), ((256, 256), 257)])
    assert words == [[257, 98], [98]]
    assert counts == [2, 7]


def test_load_without_merges_gives_the_bytes():
    assert incremental.load({"é".encode(): 1}) == ([[0xC3, 0xA9]], [1])


# ---- count_all -----------------------------------------------------------------

def test_count_all_counts_each_pair_times_the_word_count():
    # "abab" x3: (a,b) 2 per word -> 6, (b,a) 1 -> 3; "ab" x1: (a,b) +1 -> 7
    pair_counts, where, heap = incremental.count_all([[97, 98, 97, 98], [97, 98]], [3, 1])
    assert dict(pair_counts) == {(97, 98): 7, (98, 97): 3}
    assert dict(where) == {(97, 98): {0, 1}, (98, 97): {0}}
    assert sorted(heap) == [(-7, 97, 98), (-3, 98, 97)]
    assert heap[0] == (-7, 97, 98)  # a heap: the best pair on top


def test_count_all_ties_put_the_smaller_pair_on_top():
    _, _, heap = incremental.count_all([[99, 100], [97, 98]], [2, 2])
    assert heap[0] == (-2, 97, 98)


# ---- pop_best ------------------------------------------------------------------

def test_pop_best_pushes_a_stale_count_back_and_pops_again():
    heap = [(-9, 97, 98), (-5, 99, 100)]  # (a, b) was pushed with 9, its count fell to 4
    best = incremental.pop_best(heap, {(97, 98): 4, (99, 100): 5}, BYTES, set(BYTES.values()))
    assert best == ((99, 100), 5)
    assert heap == [(-4, 97, 98)]  # the true count is back on the heap


def test_pop_best_drops_a_pair_that_is_gone():
    heap = [(-3, 97, 98)]
    assert incremental.pop_best(heap, {(97, 98): 0}, BYTES, set()) is None
    assert heap == []


def test_pop_best_stops_below_two():
    heap = [(-1, 97, 98)]
    assert incremental.pop_best(heap, {(97, 98): 1}, BYTES, set(BYTES.values())) is None


def test_pop_best_skips_a_pair_whose_bytes_already_are_a_token():
    vocab = dict(BYTES) | {256: b"ab"}
    known = set(vocab.values()) | {b"abc"}  # "abc" was made another way
    heap = [(-6, 256, 99), (-2, 120, 121)]
    pair_counts = {(256, 99): 6, (120, 121): 2}
    assert incremental.pop_best(heap, pair_counts, vocab, known) == ((120, 121), 2)
    assert heap == []  # skipped for good, not pushed back


# ---- merge_word ----------------------------------------------------------------

def test_merge_word_goes_left_to_right():
    # "aaaa": sites at 0-1 and 2-3, never the middle (a, a)
    new, delta = incremental.merge_word([97, 97, 97, 97], (97, 97), 256)
    assert new == [256, 256]
    assert {p: n for p, n in delta.items() if n} == {(97, 97): -3, (256, 256): 1}


def test_merge_word_changes_only_the_pairs_around_a_site():
    # x a b y a b -> x Z y Z: (x,a) (a,b)x2 (b,y) (y,a) go; (x,Z) (Z,y) (y,Z) come
    x, a, b, y, Z = 120, 97, 98, 121, 300
    new, delta = incremental.merge_word([x, a, b, y, a, b], (a, b), Z)
    assert new == [x, Z, y, Z]
    assert {p: n for p, n in delta.items() if n} == {
        (x, a): -1, (a, b): -2, (b, y): -1, (y, a): -1, (x, Z): 1, (Z, y): 1, (y, Z): 1}


def test_merge_word_without_the_pair_changes_nothing():
    new, delta = incremental.merge_word([97, 99], (97, 98), 256)
    assert new == [97, 99]
    assert not any(delta.values())


# ---- apply_merge ---------------------------------------------------------------

def test_apply_merge_rewrites_only_the_words_that_hold_the_pair():
    words = [[97, 98, 99], [97, 98], [99, 99]]
    counts = [2, 3, 4]
    pair_counts, where, heap = incremental.count_all(words, counts)
    # a stale index entry: word 2 never held (a, b); it must be left alone
    where[(97, 98)].add(2)
    incremental.apply_merge((97, 98), 256, incremental.TrainerState(words, counts, pair_counts, where, heap))
    assert words == [[256, 99], [256], [99, 99]]
    # (a,b) is gone; (b,c) lost word 0's 2; (256,c) is new with 2; (c,c) untouched
    assert {p: n for p, n in pair_counts.items() if n} == {(256, 99): 2, (99, 99): 4}
    assert (97, 98) not in where
    assert where[(256, 99)] == {0}
    # the new pair is on the heap with its final count
    assert (-2, 256, 99) in heap
    heapq.heapify(heap)
    assert incremental.pop_best(heap, pair_counts, BYTES | {256: b"ab"}, set(BYTES.values()) | {b"ab"}) == \
        ((99, 99), 4)


def test_apply_merge_pushes_a_new_pair_once_with_its_total():
    # the pair (256, 256) appears in two words: one heap entry, count 1*2 + 1*5
    words = [[97, 97, 97, 97], [97, 97, 97, 97, 98]]
    counts = [2, 5]
    pair_counts, where, heap = incremental.count_all(words, counts)
    before = Counter(heap)
    incremental.apply_merge((97, 97), 256, incremental.TrainerState(words, counts, pair_counts, where, heap))
    assert words == [[256, 256], [256, 256, 98]]
    assert pair_counts[(256, 256)] == 7
    assert sorted((Counter(heap) - before).elements()) == [(-7, 256, 256), (-5, 256, 98)]


# ---- the loop ------------------------------------------------------------------

def test_the_steps_in_a_loop_are_train_merges():
    # minbpe's hand-checkable case, by the steps, as train_merges runs them
    words, counts = incremental.load({b"aaabdaaabac": 1})
    pair_counts, where, heap = incremental.count_all(words, counts)
    state = incremental.TrainerState(words, counts, pair_counts, where, heap)
    vocab = dict(BYTES)
    known = set(vocab.values())
    merges = []
    for new_id in (256, 257, 258):
        pair, count = incremental.pop_best(heap, pair_counts, vocab, known)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        known.add(vocab[new_id])
        merges.append((pair, new_id, count))
        incremental.apply_merge(pair, new_id, state)
    assert merges == [((97, 97), 256, 4), ((97, 98), 257, 2), ((256, 257), 258, 2)]
    assert words == [[258, 100, 258, 97, 99]]
    assert [(p, n) for p, n, _ in merges] == incremental.train_merges({b"aaabdaaabac": 1}, 3)
