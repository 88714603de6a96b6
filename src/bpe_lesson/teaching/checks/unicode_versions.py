"""Checks of the exercises in *Unicode versions*: the first character a pattern leaves out,
the members of a class as tiktoken's engine has them, and where two class tables differ.

Each check compares the reader's function with the package on hand-picked and at least
200 generated cases: ``first_uncovered`` with ``patterns.uncovered``; ``tiktoken_members``
with the classes stored in ``unicode_classes`` (which a test checks against tiktoken
itself), on characters the two engines agree on and on characters they do not
(``DISPUTED``); ``where_differ`` with ``unicode_classes.to_ranges`` of the code points in
exactly one of two range lists, on small lists one endpoint apart and on the stored
table of letters against the ``regex`` module's.

What this module does not do: encode (the reader's code asks tiktoken).

>>> where_differ([(65, 70)], [(65, 68), (71, 71)])   # 69-70 only in the first, 71 only in the second
[(69, 71)]
"""

from __future__ import annotations

import functools

import numpy as np

from ...patterns import uncovered
from ..._internal.unicode_classes import CLASS_NAMES, members, ranges, regex_table, to_ranges
from . import TooSlow, _gen, check, compare
from ._calls import _shrink_args

__all__ = ["DISPUTED", "NEWER", "PLAIN", "PATTERNS", "check_first_uncovered", "CLASSES",
           "tiktoken_class", "check_tiktoken_members", "where_differ",
           "check_where_differ"]

# code points the regex module's tables (2026.11.19) classify otherwise than tiktoken's,
# one from each of their ranges (from unicode_classes.disputed_table(); a test checks
# that each still is): U+0558 and U+05C8 are the chapter's
DISPUTED = [int(h, 16) for h in (
    "295 558 58b 5c8 88f b53 c5c cdc 1acf 208f 209d a7ce a7d2 a7d4 a7dd a7e2 a7f1 ab6c 107bb 10940 "
    "10ec5 10ecb 10ed9 10ef0 11b0a 11b60 11db0 11de0 11df0 1246f 12475 12550 16ea0 16ebb 16ff2 187f8 "
    "18cd6 18d09 18d80 18e00 191b9 1b125 1b168 1d127 1d251 1d25b 1d25f 1d280 1d6a6 1df21 1df56 1df93 "
    "1dfe6 1e6cf 1e6ea 1e6fe 2b73c 2b81e 2cea7 32c14 3e61f").split()]
# letters of Unicode 15 and 16 that tiktoken knows and Python 3.11's unicodedata (14.0) does not
NEWER = [int(h, 16) for h in "1c89 a7cb 105c0 10d4a 11380 13460 16100 16d40 1e030 1e4d0 2ebf0 31350".split()]
# one of each kind the patterns tell apart: letters of each case, digits and other numbers,
# combining marks, white space of several kinds, punctuation, symbols, emoji
PLAIN = list("Aaz Z09é\u0301\u0300ßǅʰ中語ﾊ\u00b2\u0663\u2167\u00a0\u2028\u3000\t\n\x85,.!-'\"$+€😀🦜\U0001F3FB")


# ---------------------------------------------------------------- ex-unicode-uncovered

# patterns that leave gaps at the start, between matches, at the end, or nowhere;
# some match the empty string, some need \p{..} (which Python's re does not know)
PATTERNS = [r"[a-z]+", r"\w+", r"\w+|\s+", r"\S+", r"[^\n]+", r"\p{L}+|\s", r"aa", r"a*", r"a|b",
            r"\p{L}+", r"[a-z]+|[^a-z\s]", r".", r"\w+|[^\w\s]+|\s+(?!\S)", r"(?=a)a+|b"]
_EXTRA = ["Hello", "!", "World", "  ", "\n", "\n\n", " \t", "12", "x\ny", "É", "ab", "a b"]


def _uncovered_cases():
    yield from [("Hello, World", r"[a-z]+"), ("hello world", r"[a-z]+"), ("abc", r"\w+"), ("", r"\w+"),
                ("abc!", r"[a-z]+"), ("ab cd", r"\w+"), ("a1b2", r"[a-z]"), ("a b c", r"\w+| "),
                ("x\ny", r"\S+|\n"), ("é!", r"\p{L}"), ("中文 x", r"\p{L}+"), ("aaa", r"aa"), ("ba", r"a*")]


def _uncovered_case(rng):
    parts = [_gen.text(rng, 14, long=0.03)]
    for _ in range(rng.randint(0, 3)):
        parts.insert(rng.randint(0, len(parts)), rng.choice(_EXTRA))
    return "".join(parts), rng.choice(PATTERNS)


def _uncovered_hint(args, want, got):
    text, _ = args
    if want is None:
        return "the matches cover all of the text: return None"
    if got is None:
        return f"character {want} ({text[want]!r}) is in no match (mind the text after the last match)"
    if isinstance(got, int) and got == len(text[:want].encode("utf-8")):
        return "a position in characters of the str, not in its UTF-8 bytes"
    return None


def _text_only(args):
    """Smaller inputs: the text shrinks, the pattern (or class) stays as it was."""
    text, *rest = args
    for t in _shrink_args((text,)):
        yield (*t, *rest)


def _chars_only(args):
    cls, chars = args
    for (c,) in _shrink_args((chars,)):
        yield cls, c


@check("ex-unicode-uncovered")
def check_first_uncovered(first_uncovered):
    compare(first_uncovered, uncovered, _uncovered_cases(), generate=_uncovered_case, kind=(int, type(None)),
            equal=lambda want, got: not isinstance(got, bool) and got == want, hint=_uncovered_hint,
            shrink=_text_only)


# ---------------------------------------------------------------- ex-unicode-tiktoken-class

CLASSES = {rf"\p{{{name}}}": name for name in CLASS_NAMES if name != "s"} | {r"\s": "s"}


@functools.lru_cache(maxsize=None)
def _members(name: str) -> frozenset:
    return frozenset(members(name))


def tiktoken_class(cls: str, chars: str) -> str:
    r"""The characters of ``chars`` in class ``cls`` (say ``r"\p{L}"``) for tiktoken, in order.

    >>> tiktoken_class(r"\p{M}", "e\u0301\u05c8")   # U+05C8 is no mark for tiktoken
    '\u0301'
    """
    return "".join(c for c in chars if ord(c) in _members(CLASSES[cls]))


def _class_cases():
    sample = "Aa1 ,é\u0301中\u0558\u05c8\u0b53\u1acf\u00b2\u0663\u2028!\U0001F99C"  # the old check's characters
    yield from [(cls, sample) for cls in CLASSES] + [(r"\p{L}", ""), (r"\p{M}", "\u05c8\u05c8"),
                                                     (r"\p{L}", chr(0x1c89) + "a")]


def _class_case(rng):
    pool = [chr(c) for c in DISPUTED + NEWER] + PLAIN
    classes = list(CLASSES)
    n = rng.randint(1, 10) if rng.random() > 0.05 else rng.randint(40, 80)
    chars = "".join(rng.choice(pool) for _ in range(n))
    return rng.choice(classes[:3] * 3 + classes), chars  # L, N, M most often


def _class_hint(args, want, got):
    if not isinstance(got, str):
        return None
    wrong = sorted(set(want) ^ set(got))
    if not wrong:
        return "the same characters, in the order of chars"
    c = wrong[0]
    return (f"for tiktoken U+{ord(c):04X} is {'in' if c in want else 'not in'} {args[0]} "
            f"(ask tiktoken, not regex or unicodedata)")


def _no_panic(fn):
    """``fn`` with a Rust panic inside tiktoken (pyo3's PanicException, a BaseException that
    ``compare`` would let through) turned into an error the check reports."""
    def calm(*args):
        try:
            return fn(*args)
        except (Exception, TooSlow, KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # subtle: PanicException is no Exception
            raise RuntimeError(f"tiktoken panicked: {str(e)[:50]}") from None
    calm.__name__ = getattr(fn, "__name__", "the solution")
    return calm


@check("ex-unicode-tiktoken-class")
def check_tiktoken_members(tiktoken_members):
    compare(_no_panic(tiktoken_members), tiktoken_class, _class_cases(), generate=_class_case, kind=str, hint=_class_hint,
            shrink=_chars_only)


# ---------------------------------------------------------------- ex-unicode-differ

def where_differ(a, b):
    """The code points in exactly one of two lists of inclusive ranges, as such ranges
    (sorted, none touching another, as ``unicode_classes.to_ranges`` gives them)."""
    def points(rs):
        return {c for lo, hi in rs for c in range(lo, hi + 1)}
    return to_ranges(points(a) ^ points(b))


@functools.lru_cache(maxsize=1)
def _letters() -> tuple[list, list]:
    """The letters (``\\p{L}``) for tiktoken (the stored ranges) and for the regex module."""
    return ranges("L"), to_ranges(np.flatnonzero(regex_table("L")).tolist())


def _canonical(points) -> list[tuple[int, int]]:
    return to_ranges(sorted(set(points)))


def _nudged(rng, rs):
    """``rs`` with one change at an edge: an endpoint one further or one back, a range
    dropped, split, added beside another, or two joined."""
    rs = list(rs)
    r = rng.random()
    if rs and r < 0.4:
        k = rng.randrange(len(rs))
        lo, hi = rs[k]
        lo, hi = (lo + rng.choice([-1, 1]), hi) if rng.random() < 0.5 else (lo, hi + rng.choice([-1, 1]))
        pts = {c for i, (a, b) in enumerate(rs) if i != k for c in range(a, b + 1)} | set(range(max(0, lo), hi + 1))
        return _canonical(pts)
    if rs and r < 0.55:
        return rs[:rng.randrange(len(rs))] + rs[rng.randrange(len(rs)) + 1:]
    pts = {c for a, b in rs for c in range(a, b + 1)}
    if r < 0.75:
        c = rng.randint(0, 40)
        pts ^= {c} if rng.random() < 0.5 else set(range(c, c + rng.randint(1, 4)))
    elif rs:
        lo, hi = rs[rng.randrange(len(rs))]
        pts |= set(range(lo, hi + 3))  # joins it to the next range, or grows it
    return _canonical(pts)


def _random_ranges(rng, top):
    pts, c = set(), rng.randint(0, 3)
    while c < top:
        width = rng.choice([1, 1, 2, 3, 5])
        pts |= set(range(c, c + width))
        c += width + rng.choice([1, 1, 2, 4])  # a gap of one makes ranges that almost touch
    return _canonical(p for p in pts if rng.random() < 0.9 or p % 7)


def _differ_cases():
    tk, rx = _letters()
    yield from [([(65, 70)], [(65, 68), (71, 71)]), ([(1, 2)], [(3, 4)]), ([], []), ([(5, 5)], []),
                ([], [(0, 0), (2, 9)]), ([(0, 10)], [(0, 10)]), ([(0, 10)], [(3, 4)]),
                ([(1, 3), (7, 9)], [(2, 8)]), ([(0x10FFFE, 0x10FFFF)], [(0x10FFFF, 0x10FFFF)]),
                (tk[:40], rx[:40])]


def _differ_case(rng):
    a = _random_ranges(rng, rng.choice([0, 4, 12, 30]))
    b = _nudged(rng, a) if rng.random() < 0.8 else _random_ranges(rng, 30)
    return (b, a) if rng.random() < 0.5 else (a, b)


def _differ_shrink(args):
    """Long lists lose their second halves together (so the two stay comparable); short ones
    shrink as usual."""
    a, b = args
    if max(len(a), len(b)) > 12:
        cut = max(len(a), len(b)) // 2
        yield a[:cut], b[:cut]
        return
    yield from _shrink_args(args)


def _differ_hint(args, want, got):
    if not isinstance(got, list) or not all(isinstance(r, (tuple, list)) and len(r) == 2 for r in got):
        return "return a list of (lo, hi) pairs, hi included"
    pts = {c for lo, hi in got for c in range(lo, min(hi, lo + 10**6) + 1)}
    if pts == {c for lo, hi in want for c in range(lo, hi + 1)}:
        return "the right code points; join ranges that touch, as to_ranges does"
    return None


@check("ex-unicode-differ")
def check_where_differ(reader_where_differ):
    compare(reader_where_differ, where_differ, _differ_cases(), generate=_differ_case,
            then=[_letters()], kind=list,  # then the whole tables: the chapter's 17,144 letters
            equal=lambda want, got: [tuple(r) for r in got] == want, hint=_differ_hint, shrink=_differ_shrink,
            show=lambda args: ", ".join(f"[{len(a):,} ranges ...]" if len(a) > 6 else repr(a) for a in args))
