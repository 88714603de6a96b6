"""Checks for the exercises of *Past one machine* (``book/past_one_machine.ipynb``).

  ex-dask-merge-counts   merge_counts(parts): add counters into a new one, inputs untouched
  ex-dask-cut-ranges     cut_ranges(data, n): byte ranges that end where no chunk crosses
  ex-dask-shard-plan     shard_plan(lengths, shard_tokens): the local pack's shard boundaries

Each compares the reader's function with the package (``scale.dask_count``,
``lm.dask_pack``) or with ``regex`` on real text (the standard library's own
sources), and with a case small enough to check by hand.

What this module does not do: hold the solutions (the chapter does, folded away).
"""

from __future__ import annotations

import copy
import os
import random
from collections import Counter

import numpy as np
import regex

from ...lm.dask_pack import shard_plan as reference_plan
from ...patterns import GPT4_PATTERN
from . import check


def _stdlib_text(limit: int = 300_000) -> bytes:
    """Real code: the standard library's first modules by name, up to ``limit`` bytes."""
    lib = os.path.dirname(os.__file__)
    data = b""
    for name in sorted(os.listdir(lib)):
        if name.endswith(".py") and len(data) < limit:
            with open(os.path.join(lib, name), "rb") as f:
                data += f.read()
    return data[:limit]


def _chunks(data: bytes) -> Counter:
    return Counter(regex.findall(GPT4_PATTERN, data.decode("utf-8", errors="replace")))


@check("ex-dask-merge-counts")
def check_merge_counts(merge_counts):
    """``merge_counts(parts)``: the sum of a list of {chunk: count} dicts, as a new dict.

    >>> check_merge_counts(lambda parts: dict(sum((Counter(p) for p in parts), Counter())))
    """
    parts = [{b"a": 1, b"b": 2}, {b"a": 3}, {b"c": 1, b"b": 1}]
    before = copy.deepcopy(parts)
    total = merge_counts(parts)
    assert parts == before, ("merge_counts changed one of its inputs; a retried task would then add "
                             "those counts twice: build a new dict")
    assert dict(total) == {b"a": 4, b"b": 3, b"c": 1}, f"{dict(total)} should be {{a: 4, b: 3, c: 1}}"
    assert total is not parts[0], "return a new dict, not the first input"
    rng = random.Random(0)
    parts = [{bytes([rng.randrange(97, 107)]): rng.randrange(1, 5) for _ in range(6)} for _ in range(20)]
    expected = sum((Counter(p) for p in parts), Counter())
    assert dict(merge_counts(parts)) == dict(expected), "wrong totals on 20 random counters"
    assert dict(merge_counts(parts[:1])) == parts[0], "one counter should come back as itself"


@check("ex-dask-cut-ranges")
def check_cut_ranges(cut_ranges):
    """``cut_ranges(data, n)``: about ``n`` contiguous ``(start, stop)`` ranges over ``data``,
    each cut after a newline no GPT-4 chunk crosses; counting each range alone gives the
    whole text's counts.
    """
    data = _stdlib_text()
    for n in (1, 4, 13):
        ranges = [tuple(r) for r in cut_ranges(data, n)]
        assert ranges and ranges[0][0] == 0 and ranges[-1][1] == len(data), \
            f"n={n}: the ranges should start at 0 and end at len(data) = {len(data)}"
        gaps = [(a, b) for a, b in zip(ranges, ranges[1:]) if a[1] != b[0]]
        assert not gaps, f"n={n}: ranges {gaps[0]} leave a gap or overlap"
        assert n // 2 <= len(ranges) <= 2 * n, f"n={n}: {len(ranges)} ranges; expected about {n}"
        bad = [stop for _, stop in ranges[:-1] if data[stop - 1:stop] != b"\n"]
        assert not bad, f"n={n}: a range ends at byte {bad[0]}, which is not right after a newline"
        parts = sum((_chunks(data[a:b]) for a, b in ranges), Counter())
        whole = _chunks(data)
        if parts != whole:
            diff = sorted((parts - whole) + (whole - parts), key=repr)[:3]
            raise AssertionError(f"n={n}: counting the ranges apart changes the counts of {diff}: a cut "
                                 "runs through a chunk (a newline followed by spaces is not safe)")


@check("ex-dask-shard-plan")
def check_shard_plan(shard_plan):
    """``shard_plan(lengths, shard_tokens)``: (first, last) document of each shard, as ``pack`` cuts them."""
    lengths = [3, 0, 4, 2, 5]
    got = [tuple(s) for s in shard_plan(lengths, 7)]
    assert got == [(0, 2), (3, 4)], (f"{got}: documents 0 and 2 (3 + 4 = 7 ids) fill the first shard, "
                                     "3 and 4 the second; document 1 is empty, in no shard")
    rng = np.random.default_rng(0)
    for trial in range(200):
        lengths = rng.integers(0, 9, size=int(rng.integers(0, 40)))
        lengths[lengths == 1] = 2  # a document is at least one id and its EOS
        budget = int(rng.integers(8, 30))
        got = [tuple(int(x) for x in s) for s in shard_plan(list(map(int, lengths)), budget)]
        want = reference_plan(lengths, 0, budget)
        assert got == want, f"lengths {lengths.tolist()}, shard_tokens {budget}: {got} should be {want}"

