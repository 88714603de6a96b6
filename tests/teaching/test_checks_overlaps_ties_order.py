"""The checks of "Overlaps, ties and order" pass the reference solutions and catch plausible wrong ones."""

import pytest

from _wrong import cases, run_right, run_wrong
from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.ranks import vocab_from_merges


# ---------------------------------------------------------------- ex-overlaps-rule

def _pick(counts, vocab, skip=True, tie=min, stop=2):
    known = set(vocab.values())
    eligible = {p: c for p, c in counts.items() if not skip or vocab[p[0]] + vocab[p[1]] not in known}
    if not eligible or max(eligible.values()) < stop:
        return None
    top = max(eligible.values())
    return tie(p for p, c in eligible.items() if c == top)


def pick(counts, vocab):
    return _pick(counts, vocab)


def pick_no_skip(counts, vocab):
    return _pick(counts, vocab, skip=False)


def pick_max_of_dict(counts, vocab):  # max(..., key=counts.get): the first of a tie in dict order
    return _pick(counts, vocab, tie=lambda ps: next(iter(ps)))


def pick_stop_at_one(counts, vocab):  # merges pairs that occur once
    return _pick(counts, vocab, stop=1)


def pick_skip_after_stop(counts, vocab):  # checks the stop before dropping pairs that are tokens
    if not counts or max(counts.values()) < 2:
        return None
    return _pick(counts, vocab, stop=0)


# ---------------------------------------------------------------- ex-overlaps-train

def merge(ids, pair, idx):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _train(text, vocab_size, base_merges=(), skip=True, apply_base=True):
    vocab = vocab_from_merges(base_merges)
    words = {}
    for c in split_chunks(text, GPT4_PATTERN):
        w = list(c.encode())
        for pair, new_id in (base_merges if apply_base else ()):
            w = merge(w, pair, new_id)
        words[tuple(w)] = words.get(tuple(w), 0) + 1
    merges = []
    for new_id in range(256 + len(base_merges), vocab_size):
        counts = {}
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + c
        best = _pick(counts, vocab, skip=skip)
        if best is None:
            break
        words = {tuple(merge(list(w), best, new_id)): c for w, c in words.items()}
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((best, new_id))
    return merges


def train(text, vocab_size, base_merges=()):
    return _train(text, vocab_size, base_merges)


def train_no_skip(text, vocab_size, base_merges=()):
    return _train(text, vocab_size, base_merges, skip=False)


def train_ignores_base(text, vocab_size, base_merges=()):  # counts pairs of bytes, as if from scratch
    return _train(text, vocab_size, base_merges, apply_base=False)


# ---------------------------------------------------------------- ex-overlaps-realised

def is_realised(merges, chunks):
    words = [list(c) for c in chunks]
    for pair, new_id in merges:
        replaced = False
        for k, w in enumerate(words):
            merged = merge(w, pair, new_id)
            replaced |= len(merged) < len(w)
            words[k] = merged
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


RIGHT = {"ex-overlaps-rule": pick, "ex-overlaps-train": train, "ex-overlaps-realised": is_realised}
WRONG = {
    "ex-overlaps-rule": [pick_no_skip, pick_max_of_dict, pick_stop_at_one, pick_skip_after_stop],
    "ex-overlaps-train": [train_no_skip, train_ignores_base],
    "ex-overlaps-realised": [realised_by_bytes, realised_by_final_ids, realised_by_pair_anywhere],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_reference_solution_passes(label):
    run_right(label, RIGHT[label])


@pytest.mark.parametrize("label, wrong", cases(WRONG))
def test_wrong_solution_fails(label, wrong):
    run_wrong(label, wrong)
