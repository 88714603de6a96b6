"""Checks of the exercises in *From tokens to training windows*: the ids a uint16 cast
changes, the ids no window predicts, and the windows that mix documents.

Each check is differential (``compare``): the reader's function against a reference,
on hand-picked cases and then on generated ones aimed at the edges where a wrong
answer differs: ids at 65,535 / 65,536 / 65,537 and at every multiple of 65,536 an
id of GPT-4o reaches; stream lengths at and around T, T + 1 and T + 1 plus a
multiple of S; strides below, at and above T; an EOS at the first and the last
place of a window's input, and as its last target only.

The references: NumPy's own cast to ``uint16``; a sweep over the windows that
``lm.windows.window_count`` says fit; the windows of ``lm.windows.SlidingWindowDataset``.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools

import numpy as np

from ...lm.windows import SlidingWindowDataset, window_count
from .. import samples
from . import _gen, _reference, call, check, compare

__all__ = ["INTS", "EDGES", "gpt4_ids", "uint16_view", "OVERFLOW_CASES",
           "check_overflow", "never_reference", "LARGE", "check_never",
           "mixed_reference", "MIXED_CASES", "check_mixed"]

INTS = (int, np.integer)  # a count may come back as a NumPy integer


# ---- ex-windows-overflow ---------------------------------------------------------

# ids where a uint16 reader's view changes: the top of uint16 and each wrap of it
EDGES = [0, 1, 255, 256, 65_534, 65_535, 65_536, 65_537, 100_276, 131_071, 131_072,
         131_073, 196_607, 196_608, 196_609, 200_018, 262_144]


@functools.lru_cache(maxsize=1)
def gpt4_ids() -> tuple:
    """GPT-4's ids (cl100k_base, offline) for the first ten help topics."""
    enc = _reference.encoding("cl100k_base")
    return tuple(i for t in list(samples.prose_topics().values())[:10] for i in enc.encode_ordinary(t))


def uint16_view(ids):
    """What NumPy's cast changes: ``(position, id, what a uint16 reader sees)``.

    >>> uint16_view([7, 65_535, 65_536, 100_276])
    [(2, 65536, 0), (3, 100276, 34740)]
    """
    cast = np.asarray(ids, dtype=np.int64).astype(np.uint16)
    return [(k, int(i), int(c)) for k, (i, c) in enumerate(zip(ids, cast)) if i != c]


def _wide_ids(rng):
    """A few ids, most at or next to an edge of uint16, the rest small or anywhere up to 262,144."""
    out = []
    for _ in range(rng.randint(0, 10)):
        r = rng.random()
        if r < 0.45:
            out.append(rng.choice(EDGES))
        elif r < 0.7:
            out.append(max(0, _gen.near(rng, rng.choice(EDGES[4:]), 2)))
        elif r < 0.85:
            out.append(rng.randrange(0, 1000))
        else:
            out.append(rng.randrange(0, 262_145))
    return out


OVERFLOW_CASES = [([],), ([1, 2, 65_535],), ([65_536],), ([65_535, 65_536, 65_537],),
                  ([7, 100_276],), ([131_071, 131_072, 131_073],), ([196_608, 200_018],)]


@check("ex-windows-overflow")
def check_overflow(wrapped, ids=None):
    ids = gpt4_ids() if ids is None else [int(i) for i in ids]
    compare(wrapped, uint16_view, OVERFLOW_CASES, generate=lambda rng: (_wide_ids(rng),),
            then=[(list(ids),)], kind=list,  # real ids last: a failure here shrinks from 8,000 ids
            equal=lambda want, got: [tuple(x) for x in got] == want,
            hint=lambda args, want, got: "uint16 keeps id % 65,536: 65,535 stays, 65,536 "
                                         "and 131,072 read 0" if isinstance(got, list) else None)


# ---- ex-windows-never ------------------------------------------------------------


def never_reference(n, t, s):
    """Ids of a stream of ``n`` that no window (context ``t``, stride ``s``) predicts.

    Window i predicts ids iS+1 .. iS+T; we sweep the windows that fit, adding the
    ids each one predicts for the first time.

    >>> never_reference(9, 4, 4), never_reference(9, 4, 2), never_reference(10, 2, 4)
    (1, 1, 6)
    """
    covered, end = 0, 0  # end: the last id some window so far predicts
    for i in range(window_count(n, t, s)):
        lo, hi = i * s + 1, i * s + t
        covered += hi - max(lo, end + 1) + 1  # hi > end: each window ends further right
        end = hi
    return n - covered


def _window_shape(rng):
    """(T, S): S below, at and above T, and 1."""
    t = rng.choice([1, 2, 3, 4, 5, 8, 16])
    s = rng.choice([1, t - 1, t, t, t + 1, 2 * t, 2 * t + 1, rng.randint(1, 2 * t + 2)])
    return t, max(1, s)


def _stream_length(rng, t, s):
    """A length at or around T, T + 1, T + 1 + kS (where one more window fits) and kS."""
    r = rng.random()
    if r < 0.5:
        return max(0, t + 1 + rng.randint(0, 6) * s + rng.choice([-2, -1, 0, 0, 1, 2]))
    if r < 0.65:
        return max(0, rng.randint(1, 6) * s + rng.choice([-1, 0, 1]))
    if r < 0.8:
        return rng.choice([0, 1, 2, t - 1, t, t + 1, t + 2, s, s + 1]) if t > 1 else rng.randint(0, 3)
    return rng.randint(0, 12 * (t + s))


def _never_cases():
    yield from [(9, 4, 4), (9, 4, 2), (10, 2, 4), (0, 4, 4), (1, 1, 1), (2, 1, 1), (4, 4, 4),
                (5, 4, 4), (6, 4, 4), (13, 4, 4), (14, 4, 6), (15, 4, 6), (8, 8, 1), (9, 8, 1)]


def _never_case(rng):
    t, s = _window_shape(rng)
    return max(0, _stream_length(rng, t, s)), t, s


# runs too long to sweep, each worked out by hand from thm-windows-count
LARGE = [(8 * 10**9, 4096, 4096, 4096),             # 1,953,124 windows cover ids 1 .. N - 4096
         (10**12, 4096, 1024, 1024),                # they overlap; the last target is N - 1025
         (10**12, 1000, 1024, 23_437_500_000),      # 976,562,500 windows, 24 ids skipped after each
         (2**60 + 3, 3, 3, 1)]                      # beyond a float's 53 bits: only id 0 is missed


@check("ex-windows-never")
def check_never(never_targets):
    compare(never_targets, never_reference, _never_cases(), generate=_never_case, kind=INTS,
            show=lambda a: f"N={a[0]}, T={a[1]}, S={a[2]}",
            hint=lambda a, want, got: None if not isinstance(got, INTS) else
            "S < T: windows overlap; an id predicted twice counts once" if a[2] < a[1] else
            "S > T: the ids between two windows' targets are missed" if a[2] > a[1] else
            "S = T: every id after the first is predicted once")
    for n, t, s, want in LARGE:  # no sweep: these are checked against worked-out answers
        got = call(never_targets, n, t, s)
        assert got == want, "\n".join([
            f"{getattr(never_targets, '__name__', 'never_targets')}({n}, {t}, {s}) is wrong",
            f"  expected: {want}", f"  got:      {got}",
            "  hint: " + ("integer arithmetic (//): a float keeps 53 bits" if n > 2**53
                          else "count the windows with thm-windows-count, do not walk them")])


# ---- ex-windows-mixed ------------------------------------------------------------


def mixed_reference(stream, eos, t, s):
    """Windows of ``SlidingWindowDataset`` whose input x holds ``eos``.

    >>> mixed_reference([5, 6, 0, 7, 0, 8, 9, 10, 0], 0, 2, 2)  # x: [5 6] [0 7] [0 8] [9 10]
    2
    """
    ds = SlidingWindowDataset(np.asarray(stream, dtype=np.int64), t, s)
    return sum(bool((ds[i][0] == eos).any()) for i in range(len(ds)))


def _eos_stream(rng, t, s, eos):
    """A stream whose EOS ids sit at the first or last place of some window's x, or only in its y."""
    n = _stream_length(rng, t, s)
    out = [rng.choice([e for e in (3, 4, 5, 6, eos + 1) if e != eos]) for _ in range(n)]
    for _ in range(rng.choice([0, 1, 1, 2, 3, n])):
        if not n:
            break
        i = rng.randint(0, max(0, n // s))
        at = rng.choice([i * s, i * s + t - 1, i * s + t, i * s + t + 1, rng.randrange(n)])
        if 0 <= at < n:
            out[at] = eos
    return out


MIXED_CASES = [([5, 6, 0, 7, 0, 8, 9, 10, 0], 0, 2, 2), ([5, 6, 7, 0], 0, 3, 3),
               ([0, 5, 6, 7], 0, 3, 3), ([5, 6, 0, 7], 0, 3, 3), ([], 0, 2, 2), ([0], 0, 1, 1),
               ([0, 0, 0, 0, 0], 0, 2, 1), ([1, 2, 0, 3, 4, 5, 6], 0, 2, 4)]


def _mixed_case(rng):
    t, s = _window_shape(rng)
    eos = rng.choice([0, 0, 2047, 65_535])
    return _eos_stream(rng, t, s, eos), eos, t, s


def _chapter_stream(stream, eos):
    """The chapter's own stream, cut in windows three ways: a failure there shrinks from 20,000 ids."""
    if stream is None:
        return []
    part = [int(i) for i in stream[:20_000]]
    return [(part, int(eos), t, s) for t, s in [(256, 256), (64, 100), (300, 128)]]


@check("ex-windows-mixed")
def check_mixed(mixed_windows, stream=None, eos=None):
    compare(mixed_windows, mixed_reference, MIXED_CASES, generate=_mixed_case, then=_chapter_stream(stream, eos),
            kind=INTS,
            show=lambda a: f"{_short_list(a[0])}, eos={a[1]}, T={a[2]}, S={a[3]}",
            hint=lambda a, want, got: "window i reads x = ids iS .. iS+T-1; an EOS at iS+T "
                                      "is only a target" if isinstance(got, INTS) else None)


def _short_list(xs, width=26):
    r = repr(list(xs))
    return r if len(r) <= width else r[:width - 4].rstrip() + " ..."
