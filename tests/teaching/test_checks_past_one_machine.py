"""The checks of *Past one machine* pass right solutions and reject plausible wrong ones."""

import functools
import re
from collections import Counter

from _wrong import graded


# ---------------------------------------------------------------- ex-dask-cut-ranges

SAFE = re.compile(rb"\n(?=[ \t]*[!-~])")  # a newline before a line with a visible character


def cut_ranges(data, task_bytes):  # the notebook's
    ranges, start = [], 0
    while start < len(data):
        m = SAFE.search(data, start + task_bytes)  # the first safe newline at or past the aim
        stop = m.end() if m else len(data)
        ranges.append((start, stop))
        start = stop
    return ranges


def cut_ranges_from_all_cuts(data, task_bytes):  # every safe cut first, then take those far enough on
    out, start = [], 0
    for cut in (m.end() for m in SAFE.finditer(data)):
        if cut > start + task_bytes:  # its newline, at cut - 1, is at or past the aim
            out.append((start, cut))
            start = cut
    if start < len(data):
        out.append((start, len(data)))
    return out


def _safe_at(data, i):  # data[i] is a newline; the next line shows [!-~] after spaces and tabs
    j = i + 1
    while j < len(data) and data[j] in b" \t":
        j += 1
    return j < len(data) and 33 <= data[j] <= 126


def cut_ranges_by_hand(data, task_bytes):  # no regex: walk the bytes
    out, start, i = [], 0, task_bytes
    while start < len(data):
        while i < len(data) and not (data[i] == 10 and _safe_at(data, i)):
            i += 1
        stop = min(i + 1, len(data))
        out.append([start, stop])
        start, i = stop, stop + task_bytes
    return out


def _greedy(data, task_bytes, cut, begin=0):
    ranges, start = [], 0
    while start < len(data):
        m = cut.search(data, start + task_bytes + begin)
        stop = m.end() if m else len(data)
        ranges.append((start, stop))
        start = stop
    return ranges


def cut_at_offsets(data, task_bytes):  # equal byte ranges: cuts run through lines and chunks
    return [(i, min(i + task_bytes, len(data))) for i in range(0, len(data), task_bytes)]


def cut_after_any_newline(data, task_bytes):  # a newline before a blank or indented-blank line is not safe
    return _greedy(data, task_bytes, re.compile(rb"\n"))


def cut_spans_blank_lines(data, task_bytes):  # \s also matches "\n": cuts inside "\n\n  x"
    return _greedy(data, task_bytes, re.compile(rb"\n(?=\s*[!-~])"))


def cut_before_any_non_space(data, task_bytes):  # counts "é" or a form feed as visible; the rule says [!-~]
    return _greedy(data, task_bytes, re.compile(rb"\n(?=[ \t]*[^ \t\n])"))


def cut_strips_all_whitespace(data, task_bytes):  # line by line; lstrip() also drops \x0c, \r, \x0b
    ranges, start, pos = [], 0, 0
    lines = data.splitlines(keepends=True)
    for k, line in enumerate(lines):
        pos += len(line)
        nxt = lines[k + 1].lstrip() if k + 1 < len(lines) else b""
        if pos - start >= task_bytes and line.endswith(b"\n") and nxt[:1] and 33 <= nxt[0] <= 126:
            ranges.append((start, pos))
            start = pos
    if start < len(data):
        ranges.append((start, len(data)))
    return ranges


def cut_one_byte_early(data, task_bytes):  # a newline on the aim's last byte is taken: one byte short
    return _greedy(data, task_bytes, SAFE, begin=-1)


def cut_in_characters(data, task_bytes):  # offsets in characters, not bytes
    text = data.decode("utf-8")
    return _greedy(text, task_bytes, re.compile(r"\n(?=[ \t]*[!-~])"))


def cut_every_safe_newline(data, task_bytes):  # ignores task_bytes: one range per line group
    return _greedy(data, 1, SAFE)


def cut_carriage_return_as_indent(data, task_bytes):  # "\r" is not a space or a tab: "\n\rb" is one chunk
    return _greedy(data, task_bytes, re.compile(rb"\n(?=[ \t\r]*[!-~])"))


def cut_unindented_only(data, task_bytes):  # too strict: a line that starts with spaces is safe too
    return _greedy(data, task_bytes, re.compile(rb"\n(?=[!-~])"))


def cut_on_a_fixed_grid(data, task_bytes):  # aims at multiples of task_bytes, not task_bytes past the last cut
    ranges, start, k = [], 0, 1
    while start < len(data):
        while k * task_bytes <= start:
            k += 1
        m = SAFE.search(data, k * task_bytes)
        stop = m.end() if m else len(data)
        ranges.append((start, stop))
        start = stop
    return ranges


def cut_drops_the_tail(data, task_bytes):  # forgets the last range when no safe cut ends it
    return [r for r in cut_ranges(data, task_bytes) if r[1] < len(data) or data.endswith(b"\n")]


# ---------------------------------------------------------------- ex-dask-merge-counts

def merge_counts(parts):  # the notebook's
    total = {}
    for part in parts:
        for chunk, c in part.items():
            total[chunk] = total.get(chunk, 0) + c
    return total


def merge_counts_counter(parts):  # a Counter is a dict
    return sum(map(Counter, parts), Counter())


def merge_counts_by_keys(parts):
    keys = {k for p in parts for k in p}
    return {k: sum(p.get(k, 0) for p in parts) for k in keys}


def merge_into_first(parts):  # adds into its input: a retried task would count twice
    total = parts[0]
    for part in parts[1:]:
        for chunk, c in part.items():
            total[chunk] = total.get(chunk, 0) + c
    return total


def merge_from_the_first(parts):  # issue 49: starts from a copy of parts[0]: no parts raise IndexError
    total = dict(parts[0])
    for part in parts[1:]:
        for chunk, c in part.items():
            total[chunk] = total.get(chunk, 0) + c
    return total


def merge_by_reduce(parts):  # issue 49: functools.reduce with no start value: no parts raise TypeError
    return dict(functools.reduce(lambda a, b: a + b, map(Counter, parts)))


def merge_none_for_nothing(parts):  # issue 49: no parts give None, not an empty dict
    return merge_counts(parts) if parts else None


def merge_by_update(parts):  # dict.update overwrites: the last count wins
    total = {}
    for part in parts:
        total.update(part)
    return total


def merge_returns_the_only_part(parts):  # one part: hands back the input itself, not a new dict
    return parts[0] if len(parts) == 1 else merge_counts(parts)


def merge_counts_parts(parts):  # adds 1 per part holding the chunk, not its count
    return merge_counts([{k: 1 for k in p} for p in parts])


def merge_skips_the_first(parts):  # starts from the second part
    return merge_counts(parts[1:])


def merge_decodes_keys(parts):  # chunks are bytes; str keys are another dict
    return {k.decode("utf-8"): c for k, c in merge_counts(parts).items()}


# ---------------------------------------------------------------- ex-dask-shard-plan

def shard_plan(lengths, shard_tokens):  # the notebook's
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


def shard_plan_lookahead(lengths, shard_tokens):  # grow each shard while the next document fits
    docs = [i for i, n in enumerate(lengths) if n]
    plan, k = [], 0
    while k < len(docs):
        j, used = k, lengths[docs[k]]
        while j + 1 < len(docs) and used + lengths[docs[j + 1]] <= shard_tokens:
            j += 1
            used += lengths[docs[j]]
        plan.append([docs[k], docs[j]])
        k = j + 1
    return plan


def plan_closes_when_full(lengths, shard_tokens):  # >= for >: a shard that would be exactly full closes early
    plan, first, last, used = [], None, None, 0
    for i, n in enumerate(lengths):
        if n == 0:
            continue
        if first is not None and used + n >= shard_tokens:
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


def plan_counting_empty(lengths, shard_tokens):  # an empty document takes an id too
    return shard_plan([max(n, 1) for n in lengths], shard_tokens)


def plan_last_includes_empty(lengths, shard_tokens):  # an empty document after the last one joins the shard
    plan = shard_plan(lengths, shard_tokens)
    if plan and lengths and lengths[-1] == 0:
        plan[-1] = (plan[-1][0], len(lengths) - 1)
    return plan


def plan_forgets_last_shard(lengths, shard_tokens):  # the shard still open after the loop is never closed
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
    return plan


def plan_counts_among_nonempty(lengths, shard_tokens):  # indices into the non-empty documents only
    return shard_plan([n for n in lengths if n], shard_tokens)


RIGHT = {
    "ex-dask-cut-ranges": [cut_ranges, cut_ranges_from_all_cuts, cut_ranges_by_hand],
    "ex-dask-merge-counts": [merge_counts, merge_counts_counter, merge_counts_by_keys],
    "ex-dask-shard-plan": [shard_plan, shard_plan_lookahead],
}
WRONG = {
    "ex-dask-cut-ranges": [cut_at_offsets, cut_after_any_newline, cut_spans_blank_lines,
                           cut_before_any_non_space, cut_strips_all_whitespace, cut_one_byte_early,
                           cut_in_characters, cut_every_safe_newline, cut_drops_the_tail,
                           cut_unindented_only, cut_on_a_fixed_grid, cut_carriage_return_as_indent],
    "ex-dask-merge-counts": [merge_into_first, merge_by_update, merge_returns_the_only_part,
                             merge_counts_parts, merge_skips_the_first, merge_decodes_keys,
                             merge_from_the_first, merge_by_reduce, merge_none_for_nothing],
    "ex-dask-shard-plan": [plan_closes_when_full, plan_overflowing, plan_counting_empty,
                           plan_last_includes_empty, plan_forgets_last_shard, plan_counts_among_nonempty],
}


test_right_solution_passes, test_wrong_solution_fails = graded(RIGHT, WRONG)
