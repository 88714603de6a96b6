"""Checks for the exercises of *Past one machine* (``book/past_one_machine.ipynb``).

  ex-dask-cut-ranges     cut_ranges(data, task_bytes): the byte ranges ``plan_tasks`` cuts a file into
  ex-dask-merge-counts   merge_counts(parts): add counters into a new one, inputs untouched ({} for none)
  ex-dask-shard-plan     shard_plan(lengths, shard_tokens): the local pack's shard boundaries

Each is differential (``compare``): the reader's function against the package's own
step (``scale.dask_count.plan_tasks`` on the same bytes written to a file,
``scale.dask_count.merge_counts``, ``lm.dask_pack.shard_plan``), on hand-picked
cases and then on generated ones aimed at where a wrong answer differs: blank
lines, lines of spaces and tabs only, lines that start with a form feed, a
vertical tab, a carriage return (alone or after spaces) or a multi-byte
character, no final newline, a range size smaller than one line; counters that
share keys, and no counters at all (a step with no tasks before it); documents that fill a shard exactly, one id short or over, and empty
documents at either end and side by side.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import functools
import itertools
import os
import pathlib
import tempfile

import numpy as np

from ...lm.dask_pack import shard_plan as package_shard_plan
from ...patterns import GPT4_PATTERN
from ...scale.dask_count import merge_counts as package_merge_counts
from ...scale.dask_count import plan_tasks
from . import _gen, call, check, compare

__all__ = ["stdlib_text", "planned_ranges", "LINES", "CUT_CASES", "check_cut_ranges",
           "KEYS", "summed", "check_merge_counts", "planned_shards", "check_shard_plan"]


# ---- ex-dask-cut-ranges -----------------------------------------------------------

@functools.lru_cache(maxsize=1)
def stdlib_text(limit: int = 300_000) -> bytes:
    """Real code: the standard library's first modules by name, up to ``limit`` bytes."""
    lib = os.path.dirname(os.__file__)
    data = b""
    for name in sorted(os.listdir(lib)):
        if name.endswith(".py") and len(data) < limit:
            with open(os.path.join(lib, name), "rb") as f:
                data += f.read()
    return data[:limit]


def planned_ranges(folder: pathlib.Path):
    """The reference: ``plan_tasks`` on ``data`` written to a file in ``folder``.

    >>> import tempfile; cut = planned_ranges(pathlib.Path(tempfile.mkdtemp()))
    >>> cut(b"x = 1\\n  y\\n\\nz\\n", 3)      # "  y" may start a range; the blank line may not
    [(0, 6), (6, 11), (11, 13)]
    """
    names = itertools.count()

    def cut_ranges(data: bytes, task_bytes: int):
        path = folder / f"data_{next(names)}.txt"  # subtle: a new file each time (truncating one is slow)
        path.write_bytes(data)
        return [(start, stop) for _, start, stop, _ in plan_tasks([(str(path), None)], GPT4_PATTERN, task_bytes)]
    return cut_ranges


# lines where a cut rule can go wrong: blank, whitespace only, other whitespace first,
# a multi-byte character first (with and without indentation), and ordinary code
LINES = ["", "", " ", "  ", "\t", " \t ", "\x0c", "\x0cclass A:", "\r", "x = 1\r", "\rb", " \r\tc",
         "\x0b", "\x0bx", "\x1cx",
         "é = 1", "  中文", "😀", "\u00a0b", "\u3000x", "  é", "#", "//c", "}", "x = 1",
         "    return x", "\tpass", "def f():", "a", "ab"]


def _code(rng) -> bytes:
    """A few short lines from LINES and ``_gen.lines``, with or without a final newline."""
    if rng.random() < 0.2:
        return _gen.lines(rng, 6).encode("utf-8")
    text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 10)))
    r = rng.random()
    if r < 0.4:
        text += "\n"
    elif r < 0.55:
        text += "\n" + rng.choice([" ", "\t", "  ", "\n"])  # ends in whitespace only
    return text.encode("utf-8")


def _task_bytes(rng, data: bytes) -> int:
    """A range size: one byte, less than a line, about a line, or the whole text and more."""
    n = len(data)
    return max(1, rng.choice([1, 1, 2, 3, rng.randint(1, 8), rng.randint(1, 16),
                              n // 3, n // 2, n - 1, n, n + 1]))


CUT_CASES = [(b"x = 1\n  y\n\nz\n", 3), (b"a\nb\nc", 1), (b"", 5), (b"a\n", 1), (b"a\n  \nb\n", 1),
             (b"a\n\n\nb", 2), (b"a\n\xc3\xa9\nb\n", 1), (b"a\n\x0cb\nc", 1), (b"a\r\nb\r\nc", 1),
             (b"a\nb", 2), (b"ab\ncd\nef\n", 3), (b"ab\ncd\nef\n", 4)]


def _cut_case(rng):
    data = _code(rng)
    return data, _task_bytes(rng, data)


def _real_code():
    code = stdlib_text()  # real code last: a failure there shrinks from 300 kB
    return [(code[:6000], 1), (code[:40_000], 700), (code, 25_000)]


def _utf8(args) -> bool:
    """A legal input: UTF-8 text (as the corpus files are) and a positive range size."""
    try:
        args[0].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return args[1] >= 1


@check("ex-dask-cut-ranges")
def check_cut_ranges(cut_ranges):
    """``cut_ranges(data, task_bytes)``: the ranges ``plan_tasks`` cuts ``data`` into."""
    with tempfile.TemporaryDirectory() as folder:
        compare(cut_ranges, planned_ranges(pathlib.Path(folder)), CUT_CASES, generate=_cut_case,
                then=_real_code(), kind=list, valid=_utf8, equal=lambda want, got: [tuple(r) for r in got] == want,
                hint=lambda a, want, got: "cut after a newline whose next line has [!-~] after "
                                          "spaces/tabs" if isinstance(got, list) else None)


# ---- ex-dask-merge-counts ---------------------------------------------------------

KEYS = [b"a", b"b", b" the", b"\n", b"    ", "é".encode(), "中文".encode(), b"x1"]


def summed(parts):
    """The package's reduce step, on counters alone: ``merge_counts((counts, bytes, units), ...)``.

    >>> summed([{b"a": 1, b"b": 2}, {b"a": 3}])
    {b'a': 4, b'b': 2}
    """
    return package_merge_counts(*[(p, 0, 0) for p in parts])[0] if parts else {}  # no parts: nothing counted


def _counters(rng):
    """1 to 6 counters over a few shared keys; now and then an empty one or a huge count."""
    parts = []
    for _ in range(rng.randint(1, 6)):
        keys = rng.sample(KEYS, rng.randint(0, 4))
        parts.append({k: rng.choice([1, 1, 2, 3, 7, 2**40]) for k in keys})
    return parts


@check("ex-dask-merge-counts")
def check_merge_counts(merge_counts):
    """``merge_counts(parts)``: the sum of a list of {chunk: count} dicts, as a new dict (``{}`` for no parts)."""
    hand = [([],), ([{b"a": 1, b"b": 2}, {b"a": 3}, {b"c": 1, b"b": 1}],), ([{b"a": 1}],), ([{}],),
            ([{}, {b"x": 2}],), ([{b"a": 1}, {b"a": 1}, {b"a": 1}],), ([{b"a": 5}, {}],)]
    compare(merge_counts, summed, hand, generate=lambda rng: (_counters(rng),), kind=dict,
            equal=lambda want, got: dict(got) == want,
            hint=lambda a, want, got: "no parts: nothing was counted, an empty dict" if not a[0] else
            "a chunk in several parts gets the sum of its counts" if isinstance(got, dict) else None)
    for parts in ([{b"a": 1}], [{b"a": 1}, {}], [{}, {b"a": 1}]):  # a new dict, even when one part holds it all
        total = call(merge_counts, parts)
        assert all(total is not p for p in parts), (
            f"{getattr(merge_counts, '__name__', 'merge_counts')}({parts}) returned its input, "
            "not a new dict\n  (adding into it later would change another task's result)")


# ---- ex-dask-shard-plan -----------------------------------------------------------

def planned_shards(lengths, shard_tokens):
    """The package's plan: ``lm.dask_pack.shard_plan`` from document 0."""
    return package_shard_plan(np.asarray(lengths, dtype=np.int64), 0, shard_tokens)


def _documents(rng):
    """Document lengths (0: empty, else 2 .. the budget) and a budget: shards filled exactly,
    one id short of full and one over, empty documents at either end and in runs."""
    budget = rng.randint(2, 12)
    lengths = []
    for _ in range(rng.randint(0, 10)):
        r = rng.random()
        if r < 0.2:
            lengths += [0] * rng.randint(1, 3)  # empty documents, side by side
        elif r < 0.4 and budget >= 4:
            a = rng.randint(2, budget - 2)  # two documents that fill a shard, or overflow it by one
            lengths += [a, max(2, min(budget, budget - a + rng.choice([-1, 0, 0, 1])))]
        elif r < 0.5:
            lengths.append(budget)  # a document as large as a shard
        else:
            lengths.append(rng.randint(2, budget))
    return lengths, budget


def _fits(args) -> bool:
    """A legal input: no document longer than a shard (``pack`` refuses those)."""
    lengths, budget = args
    return budget >= 1 and all(n == 0 or 1 <= n <= budget for n in lengths)


@check("ex-dask-shard-plan")
def check_shard_plan(shard_plan):
    """``shard_plan(lengths, shard_tokens)``: (first, last) document of each shard, as ``pack`` cuts them."""
    hand = [([3, 0, 4, 2, 5], 7), ([], 5), ([0, 0], 5), ([5], 5), ([2, 3], 5), ([2, 4], 5),
            ([0, 3, 0], 3), ([2, 2, 2], 4), ([3, 3, 0, 0, 4], 6), ([4, 0, 0], 4)]
    compare(shard_plan, planned_shards, hand, generate=_documents, kind=list, valid=_fits,
            equal=lambda want, got: [tuple(int(x) for x in s) for s in got] == want,
            hint=lambda a, want, got: "close a shard when the next document would not fit; "
                                      "full is fine" if isinstance(got, list) else None)
