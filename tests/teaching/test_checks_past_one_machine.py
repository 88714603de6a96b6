"""The checks of *Past one machine*: each passes its reference and fails plausible wrong solutions."""

import re
from collections import Counter

import pytest

from bpe_lesson.teaching.checks import CHECKS


# ---- merge_counts ------------------------------------------------------------
def merge_counts(parts):
    total = {}
    for part in parts:
        for chunk, c in part.items():
            total[chunk] = total.get(chunk, 0) + c
    return total


def merge_into_first(parts):  # adds into its input: a retried task would count twice
    total = parts[0]
    for part in parts[1:]:
        for chunk, c in part.items():
            total[chunk] = total.get(chunk, 0) + c
    return total


def merge_by_update(parts):  # dict.update overwrites: the last count wins
    total = {}
    for part in parts:
        total.update(part)
    return total


# ---- cut_ranges --------------------------------------------------------------
SAFE = re.compile(rb"\n(?=[ \t]*[!-~])")  # a newline before a line with a visible character


def cut_ranges(data, n):
    ranges, start = [], 0
    while start < len(data):
        m = SAFE.search(data, start + max(1, len(data) // n) - 1)
        stop = m.end() if m else len(data)
        ranges.append((start, stop))
        start = stop
    return ranges


def cut_at_offsets(data, n):  # equal byte ranges: cuts run through chunks
    step = -(-len(data) // n)
    return [(i, min(i + step, len(data))) for i in range(0, len(data), step)]


def cut_after_any_newline(data, n):  # a newline before an indented or blank line is not safe
    ranges, start = [], 0
    while start < len(data):
        at = data.find(b"\n", start + max(1, len(data) // n) - 1)
        stop = at + 1 if at >= 0 else len(data)
        ranges.append((start, stop))
        start = stop
    return ranges


# ---- shard_plan --------------------------------------------------------------
def shard_plan(lengths, shard_tokens):
    plan, first, last, used = [], None, None, 0
    for i, n in enumerate(lengths):
        if n == 0:
            continue
        if first is not None and used + n > shard_tokens:
            plan.append((first, last))
            first, used = None, 0
        if first is None:
            first = i
        last, used = i, used + n
    if first is not None:
        plan.append((first, last))
    return plan


def plan_overflowing(lengths, shard_tokens):  # closes a shard only after it has overflowed
    plan, first, used = [], None, 0
    for i, n in enumerate(lengths):
        if n == 0:
            continue
        if first is None:
            first = i
        used += n
        if used >= shard_tokens:
            plan.append((first, i))
            first, used = None, 0
    nonempty = [i for i, n in enumerate(lengths) if n]
    if first is not None:
        plan.append((first, nonempty[-1]))
    return plan


def plan_counting_empty(lengths, shard_tokens):  # an empty document opens a shard too
    return shard_plan([max(n, 1) for n in lengths], shard_tokens)


RIGHT = {
    "ex-dask-merge-counts": merge_counts,
    "ex-dask-cut-ranges": cut_ranges,
    "ex-dask-shard-plan": shard_plan,
}
WRONG = {
    "ex-dask-merge-counts": [merge_into_first, merge_by_update],
    "ex-dask-cut-ranges": [cut_at_offsets, cut_after_any_newline],
    "ex-dask-shard-plan": [plan_overflowing, plan_counting_empty],
}


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_the_reference_solution_passes(label):
    CHECKS[label](RIGHT[label])


@pytest.mark.parametrize("label, wrong", [(label, w) for label, ws in sorted(WRONG.items()) for w in ws],
                         ids=lambda x: getattr(x, "__name__", x))
def test_a_wrong_solution_fails(label, wrong):
    with pytest.raises(AssertionError):
        CHECKS[label](wrong)
