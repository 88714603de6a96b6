"""The checks of *Training a real tokenizer* pass right solutions written two ways and reject
plausible wrong ones, each failing in a few lines that name the exercise."""

import bisect
import heapq
import random

import pytest
import regex

from _wrong import right_cases, run_right, run_wrong, wrong_cases
from bpe_lesson.patterns import GPT4_PATTERN

# ---------------------------------------------------------------- ex-real-digits (a pattern)

GROUP = r"\p{N}{1,3}+"
assert GROUP in GPT4_PATTERN
THOUSANDS = GPT4_PATTERN.replace(GROUP, r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))")  # the notebook's
THOUSANDS_END = GPT4_PATTERN.replace(GROUP, r"\p{N}{1,3}(?=(?:\p{N}{3})*(?:\P{N}|\Z))")  # the same, spelt out

# GPT-4's own pattern: groups of three from the left
FROM_THE_LEFT = GPT4_PATTERN
# the lookahead does not say the run ends there, so it is always true: groups from the left again
NO_END = GPT4_PATTERN.replace(GROUP, r"\p{N}{1,3}(?=(?:\p{N}{3})*)")
# ASCII digits only: ² ① ٣ Ⅻ are \p{N} too, and fall to another alternative or to no chunk
ASCII_ONLY = GPT4_PATTERN.replace(GROUP, r"[0-9]{1,3}(?=(?:[0-9]{3})*(?![0-9]))")
# \d is the decimal digits (Nd): ٣ and ５ are in, ² ½ ① Ⅻ are not
DECIMAL_ONLY = GPT4_PATTERN.replace(GROUP, r"\d{1,3}(?=(?:\d{3})*(?!\d))")
# the end of the run seen through ASCII only: a run ending in ² is cut as if it went on
MIXED_END = GPT4_PATTERN.replace(GROUP, r"\p{N}{1,3}(?=(?:\p{N}{3})*(?![0-9]))")
# the number alternative dropped: digits are in no chunk at all
NO_NUMBERS = GPT4_PATTERN.replace(GROUP + "|", "")
# a compiled regex, where the chapter trains with the pattern string
COMPILED = regex.compile(THOUSANDS)


# ---------------------------------------------------------------- ex-real-reservoir

def sample(stream, k, seed):  # the notebook's
    rng = random.Random(seed)
    heap = []  # (-key, place, item): the largest kept key on top
    for n, item in enumerate(stream):
        key = rng.random()
        if len(heap) < k:
            heapq.heappush(heap, (-key, n, item))
        elif heap and key < -heap[0][0]:
            heapq.heapreplace(heap, (-key, n, item))
    return [item for _, n, item in sorted(heap, key=lambda e: e[1])]


def sample_sorted_list(stream, k, seed):  # right: a sorted list of k (key, place, item), cut as it grows
    rng = random.Random(seed)
    kept = []
    for n, item in enumerate(stream):
        bisect.insort(kept, (rng.random(), n, item))
        del kept[k:]
    return [item for _, _, item in sorted(kept, key=lambda e: e[1])]


def sample_algorithm_r(stream, k, seed):  # Algorithm R: uniform too, but not the random keys asked for
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


def sample_k_plus_one(stream, k, seed):  # off by one: <= k lets the heap hold k + 1
    rng = random.Random(seed)
    heap = []
    for n, item in enumerate(stream):
        key = rng.random()
        if len(heap) <= k:
            heapq.heappush(heap, (-key, n, item))
        elif key < -heap[0][0]:
            heapq.heapreplace(heap, (-key, n, item))
    return [item for _, n, item in sorted(heap, key=lambda e: e[1])]


def sample_key_order(stream, k, seed):  # the right items, in key order instead of stream order
    rng = random.Random(seed)
    return [item for key, item in heapq.nsmallest(k, ((rng.random(), item) for item in stream),
                                                  key=lambda e: e[0])]


def sample_whole_stream(stream, k, seed):  # the right sample, but it holds the whole stream
    rng = random.Random(seed)
    keyed = [(rng.random(), n, item) for n, item in enumerate(stream)]
    return [item for _, n, item in sorted(sorted(keyed)[:k], key=lambda e: e[1])]


def sample_largest_keys(stream, k, seed):  # uniform as well, but the k largest keys
    rng = random.Random(seed)
    best = heapq.nlargest(k, ((rng.random(), n, item) for n, item in enumerate(stream)))
    return [item for _, n, item in sorted(best, key=lambda e: e[1])]


def sample_empty_heap(stream, k, seed):  # looks at heap[0] before it holds anything: k = 0 raises
    rng = random.Random(seed)
    heap = []
    for n, item in enumerate(stream):
        key = rng.random()
        if len(heap) < k:
            heapq.heappush(heap, (-key, n, item))
        elif key < -heap[0][0]:
            heapq.heapreplace(heap, (-key, n, item))
    return [item for _, n, item in sorted(heap, key=lambda e: e[1])]


def sample_keys_after_k(stream, k, seed):  # draws keys only once the first k are kept
    rng = random.Random(seed)
    heap = []
    for n, item in enumerate(stream):
        if len(heap) < k:
            heapq.heappush(heap, (-1.0 + n * 1e-9, n, item))  # "kept for now"
            continue
        key = rng.random()
        if heap and key < -heap[0][0]:
            heapq.heapreplace(heap, (-key, n, item))
    return [item for _, n, item in sorted(heap, key=lambda e: e[1])]


# ---------------------------------------------------------------- ex-real-specials

def cut_specials(text, specials):  # the notebook's
    if not specials:
        return [(text, False)] if text else []
    rx = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
    out, start = [], 0
    for m in rx.finditer(text):
        if m.start() > start:
            out.append((text[start:m.start()], False))
        out.append((m.group(), True))
        start = m.end()
    if start < len(text):
        out.append((text[start:], False))
    return out


def cut_by_scanning(text, specials):  # right: at each place the longest special that starts there
    out, piece, i = [], "", 0
    while i < len(text):
        here = max((s for s in specials if text.startswith(s, i)), key=len, default=None)
        if here is None:
            piece, i = piece + text[i], i + 1
            continue
        if piece:
            out.append((piece, False))
        out.append((here, True))
        piece, i = "", i + len(here)
    return out + ([(piece, False)] if piece else [])


def cut_keeps_empty(text, specials):  # regex.split with a group: '' between and around side-by-side specials
    if not specials:
        return [(text, False)]
    rx = regex.compile("(" + "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")")
    return [(p, k % 2 == 1) for k, p in enumerate(rx.split(text))]


def cut_in_given_order(text, specials):  # the alternatives in the order given: "<|end" cuts "<|endoftext|>"
    if not specials:
        return [(text, False)] if text else []
    rx = regex.compile("|".join(regex.escape(s) for s in specials))
    return cut_specials_with(rx, text)


def cut_specials_with(rx, text):
    out, start = [], 0
    for m in rx.finditer(text):
        if m.start() > start:
            out.append((text[start:m.start()], False))
        out.append((m.group(), True))
        start = m.end()
    if start < len(text):
        out.append((text[start:], False))
    return out


def cut_longest_everywhere(text, specials):  # each special in turn, longest first, over the whole text
    marks = [False] * len(text)
    found = []
    for s in sorted(specials, key=len, reverse=True):
        at = text.find(s)
        while at >= 0:
            if not any(marks[at:at + len(s)]):
                marks[at:at + len(s)] = [True] * len(s)
                found.append((at, s))
            at = text.find(s, at + 1)
    out, start = [], 0
    for at, s in sorted(found):
        if at > start:
            out.append((text[start:at], False))
        out.append((s, True))
        start = at + len(s)
    return out + ([(text[start:], False)] if start < len(text) else [])


def cut_forgets_the_tail(text, specials):  # no append after the loop: the piece after the last special is lost
    out = cut_specials(text, specials)
    return out[:-1] if len(out) > 1 and not out[-1][1] else out


def cut_skips_after_a_special(text, specials):  # after a special it steps one place too far
    out, piece, i = [], "", 0
    while i < len(text):
        here = max((s for s in specials if text.startswith(s, i)), key=len, default=None)
        if here is None:
            piece, i = piece + text[i], i + 1
            continue
        if piece:
            out.append((piece, False))
        out.append((here, True))
        piece, i = text[i + len(here):i + len(here) + 1], i + len(here) + 1  # the next one is never seen
    return out + ([(piece, False)] if piece else [])


def cut_pieces_only(text, specials):  # the ordinary pieces only, as strings: not what was asked
    return [p for p, special in cut_specials(text, specials) if not special]


RIGHT = {
    "ex-real-digits": [THOUSANDS, THOUSANDS_END],
    "ex-real-reservoir": [sample, sample_sorted_list],
    "ex-real-specials": [cut_specials, cut_by_scanning],
}
WRONG = {
    "ex-real-digits": [FROM_THE_LEFT, NO_END, ASCII_ONLY, DECIMAL_ONLY, MIXED_END, NO_NUMBERS, COMPILED],
    "ex-real-reservoir": [sample_algorithm_r, sample_k_plus_one, sample_key_order, sample_whole_stream,
                          sample_largest_keys, sample_empty_heap, sample_keys_after_k],
    "ex-real-specials": [cut_keeps_empty, cut_in_given_order, cut_longest_everywhere, cut_forgets_the_tail,
                         cut_skips_after_a_special, cut_pieces_only],
}
NAMES = {THOUSANDS: "lookahead", THOUSANDS_END: "lookahead_spelt_out", FROM_THE_LEFT: "from_the_left",
         NO_END: "no_end", ASCII_ONLY: "ascii_only", DECIMAL_ONLY: "decimal_only", MIXED_END: "mixed_end",
         NO_NUMBERS: "no_numbers"}


def _ids(params):
    out = []
    for p in params:
        label, fn = p.values
        name = NAMES.get(fn) if isinstance(fn, str) else None
        out.append(pytest.param(label, fn, id=f"{label}-{name}") if name else p)
    return out


@pytest.mark.parametrize("label, solution", _ids(right_cases(RIGHT)))
def test_right_solution_passes(label, solution):
    run_right(label, solution)


@pytest.mark.parametrize("label, solution", _ids(wrong_cases(WRONG)))
def test_wrong_solution_fails(label, solution):
    message = run_wrong(label, solution)
    if solution is sample_whole_stream:
        assert "held" in message and "MB" in message, message
