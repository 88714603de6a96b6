"""Checks of the exercises in *Training a real tokenizer*: digits in thousands, a
bottom-k reservoir, the special-token cutter.

Each check is differential (``compare``): the reader's code against the package's
on hand-picked cases, then on generated ones aimed at that exercise's edges.

* ``ex-real-digits``: ``regex.findall`` with the reader's pattern against GPT-4's
  split (``patterns.split_chunks``) with every run of digits regrouped in threes
  from the right (``thousands``), on texts with digit runs of every length around
  the multiples of 3, non-ASCII numerics (²½①٣５Ⅻ) and the neighbours that change a
  chunk (a space, a letter, a comma, a newline, a contraction).
* ``ex-real-reservoir``: the reader's ``sample`` against ``bottom_k``, which is
  the package's ``scale.reservoir.Reservoir`` with the same seed: every stream the
  Reservoir is run on here (lengths 0, 1, k - 1, k, k + 1 and far longer, in
  batches of any size) checks that ``bottom_k`` holds what the Reservoir holds.
  One long stream is read under ``tracemalloc``: a sampler must not hold the stream.
* ``ex-real-specials``: the reader's cutter against ``patterns.split_specials``, with
  specials at the start, at the end, side by side, one the prefix of another
  (``<|end`` and ``<|endoftext|>``), overlapping ones, a partial one, and none.

What this module does not do: train (the chapter does).
"""

from __future__ import annotations

import heapq
import random
import tracemalloc

import regex

from ...patterns import GPT4_PATTERN, split_chunks, split_specials
from ...scale.reservoir import UNIT_OVERHEAD, Reservoir
from . import _gen, call, check, compare, shorter

__all__ = ["RUN", "NUMERIC", "BESIDE", "thousands", "thousands_split", "check_digits",
           "Stream", "bottom_k", "reservoir_sample", "RESERVOIR_CASES",
           "check_reservoir", "SPECIALS", "OVERLAPPING", "PARTIAL", "check_specials"]

# ---------------------------------------------------------------- ex-real-digits

RUN = regex.compile(r"\p{N}+")
NUMERIC = "²½①٣５Ⅻ߀"  # \p{N} beyond ASCII: No, No, No, Nd, Nd, Nl, Nd
BESIDE = ["", " ", "  ", ",", ".", "x", "ab", "\n", "'s", "-", "é", " +", "$", "\t"]


def thousands(chunks):
    """GPT-4's chunks with every run of digit chunks regrouped in threes from the right.

    >>> thousands(["in", " ", "123", "456", "7", " ms"])
    ['in', ' ', '1', '234', '567', ' ms']
    """
    out, run = [], ""
    for c in chunks + [""]:
        if c and RUN.fullmatch(c):
            run += c
            continue
        if run:
            head = len(run) % 3
            out += ([run[:head]] if head else []) + [run[k : k + 3] for k in range(head, len(run), 3)]
            run = ""
        if c:
            out.append(c)
    return out


def thousands_split(text):
    """The reference: GPT-4's split, digits grouped as thousands are written.

    >>> thousands_split("x = 1234567, 12")
    ['x', ' =', ' ', '1', '234', '567', ',', ' ', '12']
    """
    return thousands(split_chunks(text, GPT4_PATTERN))


def _digit_run(rng):
    """Digits, as many as sit at and around a multiple of 3 (sometimes far more)."""
    n = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]) if rng.random() > 0.08 else rng.randint(14, 31)
    pool = "0123456789" if rng.random() < 0.7 else "0123456789" + NUMERIC
    return "".join(rng.choice(pool) for _ in range(n))


def _digit_text(rng):
    parts = []
    for _ in range(rng.randint(1, 4)):
        parts.append(rng.choice(BESIDE) if rng.random() < 0.8 else _gen.text(rng, 8, long=0))
        parts.append(_digit_run(rng))
    if rng.random() < 0.6:
        parts.append(rng.choice(BESIDE))
    return "".join(parts)


def _digit_cases():
    yield from [("1234567",), ("in 12345 ms",), ("999",), ("1000",), ("x1000000y",), ("3.14159",),
                ("",), ("no digits here",), ("1,234,567.89",), ("①②③④",), ("٣٤٥٦",), ("x² + 1²³4",),
                ("½ cup",), ("Ⅻ12",), ("１２３４",), ("42's", ), ("a\n12345\n", ), ("1" * 40,)]


def _digit_case(rng):
    return (_digit_text(rng),)


@check("ex-real-digits")
def check_digits(pattern):
    assert isinstance(pattern, str), f"give the pattern as a str, not a {type(pattern).__name__}"
    try:
        rx = regex.compile(pattern)
    except regex.error as e:
        raise AssertionError(f"the pattern does not compile: {e}") from None

    def findall(text):
        return rx.findall(text)

    findall.__name__ = "findall"  # how the failure names the reader's side
    compare(findall, thousands_split, _digit_cases(), generate=_digit_case, kind=list,
            hint=_digits_hint)


def _digits_hint(args, want, got):
    if any(not c.isascii() and RUN.fullmatch(c) for c in args[0]):
        return "\\p{N} is every numeric character (² ① ٣ Ⅻ), not only 0-9"
    if "".join(got) != args[0]:
        return "every character must be in some chunk"
    return "count the digits left to the end of the run: a multiple of 3 after each group"


# ---------------------------------------------------------------- ex-real-reservoir

class Stream:
    """An iterable that can be read once, like a file or a generator; printed as its items.

    >>> s = Stream([1, 2]); list(s), list(s), s
    ([1, 2], [], stream([1, 2]))
    """

    def __init__(self, items):
        self.items = list(items)
        self._used = False

    def __iter__(self):
        if self._used:
            return iter(())
        self._used = True
        return iter(self.items)

    def __eq__(self, other):
        return isinstance(other, Stream) and other.items == self.items

    def __deepcopy__(self, memo):
        return Stream(self.items)

    def __repr__(self):
        return f"stream({self.items!r})"


def bottom_k(stream, k, seed):
    """The ``k`` items with the smallest keys, in stream order; the ``n``-th item's key is the
    ``n``-th ``random.Random(seed).random()``. What ``Reservoir`` holds (it draws one key per
    unit, in stream order); this reference sorts all the keys, the reader must not.

    >>> bottom_k(range(10), 3, 0)   # keys 0.84 0.76 0.42 0.26 0.51 0.40 0.78 0.30 0.48 0.58
    [3, 5, 7]
    >>> bottom_k(range(2), 5, 0)
    [0, 1]
    """
    rng = random.Random(seed)
    items = list(stream)
    keys = [rng.random() for _ in items]
    smallest = sorted(range(len(items)), key=keys.__getitem__)[:k]
    return [items[i] for i in sorted(smallest)]


def reservoir_sample(items, capacity, seed, batches):
    """What the package's ``Reservoir`` holds of ``items`` (bytes of one length) under a budget of
    ``capacity`` units, offered in batches of the given sizes (cycled)."""
    size = len(items[0]) if items else 1
    r = Reservoir(capacity * (size + UNIT_OVERHEAD), seed=seed)
    at, b = 0, 0
    while at < len(items):
        n = batches[b % len(batches)]
        r.offer(items[at : at + n], bytearray(len(items[at : at + n])))
        at, b = at + n, b + 1
    return r.units


def _reservoir_stream(rng):
    """(items, k, seed) from a run of the package's Reservoir: k is what it ended up holding."""
    capacity = rng.randint(1, 7)
    n = rng.choice([0, 1, capacity - 1, capacity, capacity + 1, capacity + 2, 2 * capacity,
                    rng.randint(10, 40), rng.randint(100, 300)])
    items = [b"%03d" % i for i in range(max(n, 0))]
    seed = rng.randrange(1000)
    held = reservoir_sample(items, capacity, seed, [rng.choice([1, 1, 2, 3, 50])])
    k = len(held)
    assert bottom_k(items, k, seed) == held, "the grader's reference disagrees with the package's Reservoir"
    return items, k, seed


RESERVOIR_CASES = [(Stream([]), 0, 0), (Stream([]), 3, 0), (Stream(["a"]), 1, 0), (Stream(["a"]), 0, 0),
                   (Stream(range(5)), 10, 0), (Stream(range(5)), 5, 1), (Stream(range(5)), 4, 1),
                   (Stream(range(6)), 5, 2), (Stream(range(20)), 3, 7), (Stream("aabba"), 2, 3)]


def _reservoir_case(rng):
    if rng.random() < 0.5:
        items, k, seed = _reservoir_stream(rng)
        return Stream(items), k, seed
    k = rng.randint(0, 6)  # any k, around the stream's length or far below it
    n = rng.choice([0, 1, max(k - 1, 0), k, k + 1, k + 2, rng.randint(20, 200)])
    r = rng.random()
    pool = list(range(n))
    if r < 0.25:  # repeated items
        pool = [rng.randrange(5) for _ in range(n)]
    elif r < 0.55:  # distinct items, not in sorted order
        rng.shuffle(pool)
    return Stream(pool), k, rng.randrange(1000)


def _shrink_stream(args):
    stream, k, seed = args
    for smaller in shorter(stream.items):
        yield Stream(smaller), k, seed
    if k > 0:
        yield stream, k - 1, seed


def _held_while_reading(sample, n, k, seed):
    """The peak memory (bytes) ``sample`` allocates while it reads a stream of ``n`` fresh objects."""
    tracemalloc.start()
    try:
        got = call(sample, (("item", i) for i in range(n)), k, seed)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return got, peak


@check("ex-real-reservoir")
def check_reservoir(sample):
    compare(sample, bottom_k, RESERVOIR_CASES, generate=_reservoir_case, kind=list, shrink=_shrink_stream,
            hint=lambda args, want, got: (
                f"keep {len(want)} of the {len(args[0].items)} items (all if fewer than k; "
                f"the stream reads once)" if len(got) != len(want) else
                "return the kept items in the order the stream gave them"
                if sorted(map(repr, got)) == sorted(map(repr, want)) else
                "one key per item, rng.random() in stream order; keep the smallest keys"))
    n, k = 60_000, 8
    got, peak = _held_while_reading(sample, n, k, 11)
    want = bottom_k((("item", i) for i in range(n)), k, 11)
    assert got == want, f"sample(a stream of {n:,} items, {k}, 11) gave {got[:3]}..., expected {want[:3]}..."
    assert peak < 100_000, (f"{getattr(sample, '__name__', 'sample')} held {peak / 1e6:.1f} MB for a "
                            f"sample of {k}\n  from a stream of {n:,} items: keep only the {k} smallest "
                            f"keys (a heap)")


# ---------------------------------------------------------------- ex-real-specials

SPECIALS = ["<|endoftext|>", "<|end", "<|end|>", "<|im_start|>", "<|im_end|>", "<s>", "</s>"]
OVERLAPPING = ["ab", "abc", "bca", "ca", "b"]  # dense overlaps: which one wins is the whole question
PARTIAL = ["<|", "|>", "<|endoftext", "endoftext|>", "<|im_", "<", "s>"]


def _special_text(rng, specials):
    pool = specials + PARTIAL + (OVERLAPPING if rng.random() < 0.3 else [])
    parts = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.45 and pool:
            parts.append(rng.choice(pool))
        elif r < 0.7:
            parts.append(rng.choice(["a", "b", "c", " ", "x y", "\n", "12", "é"]))
        else:
            parts.append(_gen.text(rng, 8, long=0))
    return "".join(parts)


def _special_cases():
    yield from [("a<|end|>b <|endoftext|> 12345<|im_start|>user", SPECIALS),
                ("x<|endoftext|>y<|end", ["<|end", "<|endoftext|>"]),
                ("<|endoftext|><|endoftext|>", ["<|endoftext|>"]), ("<|end<|endoftext|>", ["<|endoftext|>", "<|end"]),
                ("<|endoftext|>start", ["<|endoftext|>"]), ("end<|endoftext|>", ["<|endoftext|>"]),
                ("plain text, no special", SPECIALS), ("hi<|end|>", []), ("", ["<|endoftext|>"]),
                ("abca", ["ab", "bca"]), ("abca", ["bca", "ab"]), ("<|endoftext", ["<|endoftext|>"])]


def _special_case(rng):
    r = rng.random()
    if r < 0.15:
        specials = []
    elif r < 0.4:
        specials = rng.sample(OVERLAPPING, rng.randint(1, 3))
    else:
        specials = rng.sample(SPECIALS, rng.randint(1, 4))
    return _special_text(rng, specials), specials


def _as_pairs(value):
    return [tuple(p) for p in value] if isinstance(value, (list, tuple)) else value


@check("ex-real-specials")
def check_specials(cut_specials):
    compare(cut_specials, split_specials, _special_cases(), generate=_special_case, kind=list,
            equal=lambda want, got: _as_pairs(got) == want,
            valid=lambda args: all(args[1]),
            hint=_specials_hint)


def _specials_hint(args, want, got):
    text = args[0]
    if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in got):
        return "return a list of (piece, is_special) pairs"
    if any(p[0] == "" for p in got):
        return "no empty pieces (two specials side by side, or one at either end)"
    if "".join(p[0] for p in got) != text:
        return "the pieces, specials included, must join back into the text"
    if [p[0] for p in got] == [p[0] for p in want]:
        return "mark each special True and each piece between them False"
    return "the leftmost special wins; at one place, the longest"
