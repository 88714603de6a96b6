"""The checks of "Overlaps, ties and order" pass right solutions and catch plausible wrong ones."""

from collections import Counter

import pytest

from _solutions import merge
from _wrong import graded
from bpe_lesson import textbook
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.ranks import vocab_from_merges
from bpe_lesson.teaching.checks import overlaps_ties_order as checks


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """The package's one-time costs (the split pattern's tables, the prose and its merges) come
    before the timed checks, as in the chapter, whose earlier cells pay them."""
    split_chunks("warm é 中", GPT4_PATTERN)
    checks._prose_chunks(), checks._prose_merges()


# ---------------------------------------------------------------- ex-overlaps-gain

def f_and_g(words, pair):  # written differently from the notebook's: count, then merge and measure
    f = sum(c * sum(p == pair for p in zip(w, w[1:])) for w, c in words.items())
    g = sum(c * (len(w) - len(textbook.merge(list(w), pair, 256))) for w, c in words.items())
    return f, g


def f_and_g_from_runs(words, pair):  # as the notebook's: the proposition, runs of a decide, no merge
    if pair[0] != pair[1]:
        f = sum(c * sum(p == pair for p in zip(w, w[1:])) for w, c in words.items())
        return f, f
    f = g = 0
    for w, c in words.items():
        run = 0
        for x in list(w) + [None]:
            if x == pair[0]:
                run += 1
                continue
            if run >= 2:
                f, g = f + c * (run - 1), g + c * (run // 2)
            run = 0
    return f, g


def f_and_g_no_overlap(words, pair):  # counts like str.count: "aaa" holds (a, a) once
    f = sum(c * bytes(w).count(bytes(pair)) for w, c in words.items())
    return f, f_and_g(words, pair)[1]


def f_and_g_gain_is_count(words, pair):  # forgets that (a, a) overlaps itself
    f = f_and_g(words, pair)[0]
    return f, f


def f_and_g_half(words, pair):  # takes the lower bound for every pair (a, a)
    f = f_and_g(words, pair)[0]
    return f, (f + 1) // 2 if pair[0] == pair[1] else f


def f_and_g_unweighted(words, pair):  # counts each distinct word once
    return f_and_g({w: 1 for w in words}, pair)


def f_and_g_list(words, pair):  # a list, not a tuple
    return list(f_and_g(words, pair))


# ---------------------------------------------------------------- ex-overlaps-rule

def _pick(counts, vocab, skip=True, tie=min, stop=2):
    known = set(vocab.values())
    eligible = {p: c for p, c in counts.items() if not skip or vocab[p[0]] + vocab[p[1]] not in known}
    if not eligible or max(eligible.values()) < stop:
        return None
    top = max(eligible.values())
    return tie(p for p, c in eligible.items() if c == top)


def pick(counts, vocab):  # the notebook's
    return _pick(counts, vocab)


def pick_sorted(counts, vocab):  # written differently: sort by (-count, pair), take the first eligible
    known = set(vocab.values())
    for pair, c in sorted(counts.items(), key=lambda pc: (-pc[1], pc[0])):
        if c < 2:
            return None
        if vocab[pair[0]] + vocab[pair[1]] not in known:
            return pair
    return None


def pick_no_skip(counts, vocab):  # merges a pair whose bytes already are a token
    return _pick(counts, vocab, skip=False)


def pick_max_of_dict(counts, vocab):  # max(..., key=counts.get): the first of a tie in dict order
    return _pick(counts, vocab, tie=lambda ps: next(iter(ps)))


def pick_largest(counts, vocab):  # a tie goes to the largest pair
    return _pick(counts, vocab, tie=max)


def pick_by_bytes(counts, vocab):  # a tie goes to the smallest bytes, not the smallest ids
    return _pick(counts, vocab, tie=lambda ps: min(ps, key=lambda p: vocab[p[0]] + vocab[p[1]]))


def pick_stop_at_one(counts, vocab):  # merges pairs that occur once
    return _pick(counts, vocab, stop=1)


def pick_stop_at_three(counts, vocab):  # "more than 2": a pair that occurs twice is not merged
    return _pick(counts, vocab, stop=3)


def pick_skip_after_stop(counts, vocab):  # checks the stop before dropping pairs that are tokens
    if not counts or max(counts.values()) < 2:
        return None
    return _pick(counts, vocab, stop=0)


def pick_pops(counts, vocab):  # right pair, but it deletes the pairs it skips from the caller's dict
    for p in [p for p in counts if vocab[p[0]] + vocab[p[1]] in vocab.values()]:
        del counts[p]
    return _pick(counts, vocab)


def pick_list(counts, vocab):  # returns the pair as a list
    p = pick(counts, vocab)
    return None if p is None else list(p)


# ---------------------------------------------------------------- ex-overlaps-train

def _train(text, vocab_size, base_merges=(), skip=True, apply_base=True, stop=2, first=None, tie=min,
           split=True, base_order=None):
    vocab = vocab_from_merges(base_merges)
    words = Counter()
    base = base_order(base_merges) if base_order else base_merges
    for c in (split_chunks(text, GPT4_PATTERN) if split else [text] if text else []):
        w = list(c.encode())
        for pair, new_id in (base if apply_base else ()):
            w = merge(w, pair, new_id)
        words[tuple(w)] += 1
    merges = []
    start = 256 + len(base_merges) if first is None else first
    for new_id in range(start, vocab_size):
        counts = {}
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + c
        best = _pick(counts, vocab, skip=skip, stop=stop, tie=tie)
        if best is None:
            break
        words = Counter({tuple(merge(list(w), best, new_id)): c for w, c in words.items()})
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((best, new_id))
    return merges


def train(text, vocab_size, base_merges=()):  # the notebook's
    return _train(text, vocab_size, base_merges)


def train_with_package_steps(text, vocab_size, base_merges=()):  # the package's pieces, the rule by hand
    words = Counter(tuple(textbook.apply_merges(list(c.encode()), dict(base_merges)))
                    for c in split_chunks(text, GPT4_PATTERN))
    vocab, merges = vocab_from_merges(base_merges), []
    while 256 + len(base_merges) + len(merges) < vocab_size:
        best = pick_sorted(textbook.count_pairs(words), vocab)
        if best is None:
            break
        new_id = 256 + len(base_merges) + len(merges)
        words = Counter({tuple(textbook.merge(list(w), best, new_id)): c for w, c in words.items()})
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append([list(best), new_id])  # lists, not tuples: the check accepts either
    return merges


def train_no_skip(text, vocab_size, base_merges=()):  # gives a second id to bytes already a token
    return _train(text, vocab_size, base_merges, skip=False)


def train_ignores_base(text, vocab_size, base_merges=()):  # counts pairs of bytes, as if from scratch
    return _train(text, vocab_size, base_merges, apply_base=False)


def train_ids_from_256(text, vocab_size, base_merges=()):  # new ids start at 256, clashing with the base
    return _train(text, vocab_size, base_merges, first=256)


def train_base_by_pair(text, vocab_size, base_merges=()):  # applies the base merges sorted by pair
    return _train(text, vocab_size, base_merges, base_order=sorted)


def train_one_too_many(text, vocab_size, base_merges=()):  # off by one: vocab_size + 1 ids
    return _train(text, vocab_size + 1, base_merges)


def train_stop_at_one(text, vocab_size, base_merges=()):  # keeps merging pairs that occur once
    return _train(text, vocab_size, base_merges, stop=1)


def train_first_seen(text, vocab_size, base_merges=()):  # ties to the pair seen first
    return _train(text, vocab_size, base_merges, tie=lambda ps: next(iter(ps)))


def train_no_split(text, vocab_size, base_merges=()):  # merges across chunk boundaries
    return _train(text, vocab_size, base_merges, split=False)


def train_returns_all(text, vocab_size, base_merges=()):  # returns the base merges too
    return list(base_merges) + _train(text, vocab_size, base_merges)


# ---------------------------------------------------------------- ex-overlaps-realised

def is_realised(merges, chunks):  # the notebook's
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        merged = [textbook.merge(w, pair, new_id) for w in words]
        if all(len(m) == len(w) for m, w in zip(merged, words)):
            return False
        words = merged
    return True


def is_realised_any(merges, chunks):  # written differently: a flag per merge, any() over chunks
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        replaced = False
        for k, w in enumerate(words):
            m = merge(w, pair, new_id)
            replaced = replaced or len(m) < len(w)
            words[k] = m
        if not replaced:
            return False
    return True


def realised_by_bytes(merges, chunks):  # only asks whether each token's bytes occur in the text
    vocab = vocab_from_merges(merges)
    return all(any(vocab[i] in c for c in chunks) for _, i in merges)


def realised_by_final_ids(merges, chunks):  # looks for each id in the fully merged chunks
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        words = [merge(w, pair, new_id) for w in words]
    present = {t for w in words for t in w}
    return all(i in present for _, i in merges)


def realised_by_pair_anywhere(merges, chunks):  # asks whether the pair occurs before any merge at all
    vocab = vocab_from_merges(merges)
    return all(any(vocab[a] + vocab[b] in c for c in chunks) for (a, b), _ in merges)


def realised_but_last(merges, chunks):  # off by one: never checks the last merge
    return is_realised(merges[:-1], chunks)


def realised_in_every_chunk(merges, chunks):  # asks each merge to replace in every chunk
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        merged = [merge(w, pair, new_id) for w in words]
        if any(len(m) == len(w) for m, w in zip(merged, words)):
            return False
        words = merged
    return True


def realised_count_two(merges, chunks):  # confuses it with training's stop: wants two replacements
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        merged = [merge(w, pair, new_id) for w in words]
        if sum(len(w) - len(m) for m, w in zip(merged, words)) < 2:
            return False
        words = merged
    return True


def realised_in_place(merges, chunks):  # right answer, but it overwrites the caller's chunks
    for pair, new_id in merges:
        merged = [merge(list(w), pair, new_id) for w in chunks]
        if all(len(m) == len(w) for m, w in zip(merged, chunks)):
            return False
        chunks[:] = merged
    return True


def realised_as_int(merges, chunks):  # returns 1 or 0, not True or False
    return int(is_realised(merges, chunks))


RIGHT = {
    "ex-overlaps-gain": [f_and_g_from_runs, f_and_g],
    "ex-overlaps-rule": [pick, pick_sorted],
    "ex-overlaps-train": [train, train_with_package_steps],
    "ex-overlaps-realised": [is_realised, is_realised_any],
}
WRONG = {
    "ex-overlaps-gain": [f_and_g_no_overlap, f_and_g_gain_is_count, f_and_g_half, f_and_g_unweighted,
                         f_and_g_list],
    "ex-overlaps-rule": [pick_no_skip, pick_max_of_dict, pick_largest, pick_by_bytes, pick_stop_at_one,
                         pick_stop_at_three, pick_skip_after_stop, pick_pops, pick_list],
    "ex-overlaps-train": [train_no_skip, train_ignores_base, train_ids_from_256, train_base_by_pair,
                          train_one_too_many, train_stop_at_one, train_first_seen, train_no_split,
                          train_returns_all],
    "ex-overlaps-realised": [realised_by_bytes, realised_by_final_ids, realised_by_pair_anywhere,
                             realised_but_last, realised_in_every_chunk, realised_count_two, realised_in_place,
                             realised_as_int],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)
