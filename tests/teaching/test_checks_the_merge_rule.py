"""The checks of "The merge rule, derived" pass the reference solutions and catch plausible wrong ones."""

import pytest

from _wrong import cases, run_right, run_wrong
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks


# ---------------------------------------------------------------- ex-merge-pairs

def pair_counts(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def pair_counts_no_overlap(ids):  # counts like str.count: "aaa" holds (a, a) once
    counts, i = {}, 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if pair[0] == pair[1] else 1
    return counts


def pair_counts_misses_last(ids):  # off by one: stops a pair early
    return pair_counts(ids[:-1])


# ---------------------------------------------------------------- ex-merge-merge

def merge_pair(ids, pair, idx):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_right_to_left(ids, pair, idx):  # "aaa" -> [97, 256]
    return merge_pair(ids[::-1], pair[::-1], idx)[::-1]


def merge_in_place(ids, pair, idx):  # right answer, but it rewrites the caller's list
    i = 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            ids[i:i + 2] = [idx]
        i += 1
    return ids


# ---------------------------------------------------------------- ex-merge-saving

def merge_saving(ids, pair):
    saved, i = 0, 0
    while i + 1 < len(ids):
        if (ids[i], ids[i + 1]) == pair:
            saved, i = saved + 1, i + 2
        else:
            i += 1
    return saved


def saving_is_count(ids, pair):  # forgets overlaps
    return sum(1 for p in zip(ids, ids[1:]) if p == pair)


# ---------------------------------------------------------------- ex-merge-train

def _train(text, vocab_size, tie=min, stop=2, split=True):
    chunks = split_chunks(text, GPT4_PATTERN) if split else [text]
    words = {}
    for c in chunks:
        words[tuple(c.encode())] = words.get(tuple(c.encode()), 0) + 1
    merges = []
    for new_id in range(256, vocab_size):
        counts = {}
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + c
        if not counts or max(counts.values()) < stop:
            break
        top = max(counts.values())
        best = tie(p for p, c in counts.items() if c == top)
        words = {tuple(merge_pair(list(w), best, new_id)): c for w, c in words.items()}
        merges.append((best, new_id))
    return merges


def train(text, vocab_size):
    return _train(text, vocab_size)


def train_first_seen(text, vocab_size):  # ties to the pair seen first, not the smallest
    return _train(text, vocab_size, tie=lambda ps: next(iter(ps)))


def train_no_stop(text, vocab_size):  # keeps merging pairs that occur once
    return _train(text, vocab_size, stop=1)


def train_no_split(text, vocab_size):  # merges across chunk boundaries
    return _train(text, vocab_size, split=False)


def train_unweighted(text, vocab_size):  # counts each distinct chunk once
    chunks = set(split_chunks(text, GPT4_PATTERN))
    return _train("".join(sorted(chunks)), vocab_size)


# ---------------------------------------------------------------- ex-merge-smallest

RIGHT = {"ex-merge-pairs": pair_counts, "ex-merge-merge": merge_pair, "ex-merge-saving": merge_saving,
         "ex-merge-train": train, "ex-merge-smallest": "aaabab"}
WRONG = {
    "ex-merge-pairs": [pair_counts_no_overlap, pair_counts_misses_last],
    "ex-merge-merge": [merge_right_to_left, merge_in_place],
    "ex-merge-saving": [saving_is_count],
    "ex-merge-train": [train_first_seen, train_no_stop, train_no_split, train_unweighted],
    # a tie in saving is no disagreement; a longer text is not the smallest; a run alone agrees
    "ex-merge-smallest": ["abbb", "aaabcbc", "aaaaaa", b"aaabab"],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_reference_solution_passes(label):
    run_right(label, RIGHT[label])


@pytest.mark.parametrize("label, wrong", cases(WRONG))
def test_wrong_solution_fails(label, wrong):
    run_wrong(label, wrong)
