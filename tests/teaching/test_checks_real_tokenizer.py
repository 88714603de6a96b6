"""The checks of *Training a real tokenizer* reject plausible wrong solutions and pass the right ones."""

import random

import pytest
import regex

from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.teaching.checks import CHECKS

# ---- ex-real-digits: a pattern (a string), not a function
THOUSANDS = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))")
LEFT_ALIGNED = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{3}|\p{N}{1,2}")
NO_END = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}(?=(?:\p{N}{3})*)")
DIGITS_ONLY = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"[0-9]{1,3}(?=(?:[0-9]{3})*(?![0-9]))")


# ---- ex-real-reservoir
def sample(stream, k, seed):
    rng = random.Random(seed)
    kept = []
    for n, item in enumerate(stream, start=1):
        if len(kept) < k:
            kept.append(item)
        else:
            j = rng.randrange(n)
            if j < k:
                kept[j] = item
    return kept


def sample_first_k(stream, k, seed):
    return list(stream)[:k] if not isinstance(stream, range) else list(stream[:k])


def sample_always_replaces(stream, k, seed):
    rng = random.Random(seed)
    kept = []
    for item in stream:
        if len(kept) < k:
            kept.append(item)
        else:
            kept[rng.randrange(k)] = item
    return kept


def sample_unseeded(stream, k, seed):
    return sample(stream, k, seed=None)


# ---- ex-real-specials
def training_chunks(text, specials, pattern):
    pieces = [text]
    if specials:
        rx = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
        pieces = rx.split(text)
    return [c for piece in pieces for c in split_chunks(piece, pattern)]


def chunks_split_first(text, specials, pattern):
    return [c for c in split_chunks(text, pattern) if c not in specials]


def chunks_in_given_order(text, specials, pattern):
    pieces = regex.split("|".join(regex.escape(s) for s in specials), text) if specials else [text]
    return [c for piece in pieces for c in split_chunks(piece, pattern)]


def chunks_keep_specials(text, specials, pattern):
    if not specials:
        return split_chunks(text, pattern)
    rx = regex.compile("(" + "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")")
    return [c for piece in rx.split(text) for c in ([piece] if piece in specials else split_chunks(piece, pattern))]


WRONG = {
    "ex-real-digits": [GPT4_PATTERN, LEFT_ALIGNED, NO_END, DIGITS_ONLY],
    "ex-real-reservoir": [sample_first_k, sample_always_replaces, sample_unseeded],
    "ex-real-specials": [chunks_split_first, chunks_in_given_order, chunks_keep_specials],
}
RIGHT = {"ex-real-digits": THOUSANDS, "ex-real-reservoir": sample, "ex-real-specials": training_chunks}


def _name(w):
    return getattr(w, "__name__", None) or {GPT4_PATTERN: "gpt4", LEFT_ALIGNED: "left_aligned",
                                             NO_END: "no_end", DIGITS_ONLY: "ascii_digits_only"}[w]


@pytest.mark.parametrize("label,solution", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=[_name(w) for ws in WRONG.values() for w in ws])
def test_wrong_solution_fails(label, solution):
    with pytest.raises(AssertionError):
        CHECKS[label](solution)


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_right_solution_passes(label):
    CHECKS[label](RIGHT[label])
