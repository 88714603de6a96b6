"""Counting a phase's chunks on a Dask cluster (``engine: dask``): a map over byte ranges, a tree reduce.

The front end of training is a map-reduce whose reduce is small: distinct chunks
grow far slower than bytes. So:
  1. ``plan_tasks`` cuts the phase's sources into tasks: a text file into byte
     ranges of about ``task_bytes``, each ending at a *safe cut* (``sources.py``:
     a newline no chunk crosses), found by reading a few KiB around each boundary;
     a parquet file is one task;
  2. on the workers, ``count_range`` reads its range, cuts it into units exactly as
     ``sources.text_units`` does for the whole file, and counts them with the code
     the local engine uses (``counting.count_units``: the compiled scanner where
     the backend has it);
  3. ``merge_counts`` adds the counters ``split_every`` at a time, in a tree on the
     workers, and the client gathers only the root: one dict of distinct chunks.
The merge loop then runs on this machine on those counts (``phases.py``), so the
merges are those of the local engine: same rule, same counts.

Why a killed worker changes nothing. Every task is *pure*: it reads its input
(a file range, or the counters of its children) and returns a new value, never
touching shared state, and its key is a hash of its inputs. When a worker dies,
the scheduler runs the tasks it held again elsewhere, and each task's result is
consumed exactly once, by its parent in the tree; the client combines nothing but
the root. No count is added to a running total that a retry could add again.
(subtle: that is why ``merge_counts`` builds a new dict: adding into its first
argument would change a result the scheduler may hand to a retried parent.)

The memory budget. ``working_set_mb`` bounds the text each worker holds at once:
a task's range is at most ``working_set_mb`` / threads per worker (and
``TASK_BYTES`` at most). The phase is counted whole, never sampled: it equals the
local engine whenever the local engine keeps all of it (the phase fits its budget);
past that the local engine trains on a uniform sample and the cluster on every byte.

What this module does not do: start or reach the cluster (``_internal/cluster.py``), run the
merge loop (``phases.py``), split a parquet file by row groups, or move files:
every worker must read the sources at the same paths (shared storage on a real cluster).
"""

from __future__ import annotations

import os
import re
import time

from .._internal.cluster import dask_client, wait
from ..patterns import GPT4_PATTERN
from .config import MB, Config, Phase
from .counting import count_units
from .sources import BLOCK_BYTES, MAX_UNIT_BYTES, _force_cut, cut_regex, cut_units, stream_units

__all__ = ["TASK_BYTES", "SPLIT_EVERY", "next_cut", "plan_tasks", "range_units",
           "count_range", "merge_counts", "count_on_cluster", "count_phase"]

TASK_BYTES = 16 * MB  # text per counting task on a worker (at most)
SPLIT_EVERY = 8  # counters added per reduce task


# ---- the map: byte ranges of files -----------------------------------------------


def next_cut(f, at: int, cut: re.Pattern, size: int) -> int | None:
    """The first safe cut at or after byte ``at`` of the open file ``f`` (None: none before the end).

    The cut goes right after its newline. We read from ``at - 1`` so the pattern
    can look one byte behind, and widen the window until a match or the end.

    >>> import io; f = io.BytesIO(b"a = 1\\n  b\\n\\nc\\n")     # not after "b\\n": a blank line follows
    >>> next_cut(f, 1, cut_regex(GPT4_PATTERN), 13), next_cut(f, 7, cut_regex(GPT4_PATTERN), 13)
    (6, 11)
    """
    window = 1 << 16
    while True:
        f.seek(max(at - 1, 0))
        data = f.read(window)
        m = cut.search(data, 1 if at > 0 else 0)
        # subtle: a match is real even if the window ends right after it, since every
        # lookaround that runs off the end of the window fails: truncation only hides cuts
        if m is not None:
            return max(at - 1, 0) + m.end()
        if max(at - 1, 0) + len(data) >= size:
            return None
        window *= 4


def plan_tasks(files, pattern: str, task_bytes: int = TASK_BYTES) -> list[tuple]:
    """Tasks ``(path, start, stop, columns)`` covering every file, in order.

    A text file becomes ranges of about ``task_bytes`` that end at safe cuts (the
    last at the end of the file); a parquet or ``.jsonl`` file is one task.

    >>> import pathlib, tempfile; p = pathlib.Path(tempfile.mkdtemp(), "a.txt")
    >>> _ = p.write_bytes(b"x = 1\\ny = 2\\nz = 3\\n")
    >>> [t[1:3] for t in plan_tasks([(str(p), None)], GPT4_PATTERN, task_bytes=7)]
    [(0, 12), (12, 18)]
    """
    if task_bytes < 1:
        raise ValueError(f"task_bytes must be positive, got {task_bytes}")
    cut = cut_regex(pattern)
    tasks = []
    for path, columns in files:
        size = os.path.getsize(path)
        if path.endswith((".parquet", ".jsonl")):  # documents, not raw text: one task each
            tasks.append((path, 0, size, columns))
            continue
        start = 0
        with open(path, "rb") as f:
            while start < size:
                stop = next_cut(f, start + task_bytes, cut, size) if start + task_bytes < size else None
                stop = size if stop is None or stop >= size else stop
                tasks.append((path, start, stop, None))
                start = stop
    return tasks


def range_units(path, start: int, stop: int, cut: re.Pattern):
    """The units of bytes ``start:stop`` of a text file, as ``sources.text_units`` cuts the whole file.

    ``start`` and ``stop`` are safe cuts (or the file's ends). A unit is marked
    *alone* only where it touches the start or end of the *file*, or a forced cut.

    >>> import pathlib, tempfile; p = pathlib.Path(tempfile.mkdtemp(), "a.txt")
    >>> _ = p.write_bytes(b"a\\nb\\nc")
    >>> list(range_units(p, 2, 5, cut_regex(GPT4_PATTERN)))
    [([b'b\\n'], bytearray(b'\\x00')), ([b'c'], bytearray(b'\\x01'))]
    """
    size = os.path.getsize(path)
    carry, carry_alone = b"", int(start == 0)
    with open(path, "rb") as f:
        f.seek(start)
        left = stop - start
        # subtle: blocks on the whole file's grid (multiples of BLOCK_BYTES), so that a
        # unit with no safe cut for MAX_UNIT_BYTES is force-cut where text_units cuts it
        step = BLOCK_BYTES - start % BLOCK_BYTES
        while left > 0:
            block = f.read(min(step, left))
            step = BLOCK_BYTES
            if not block:
                break
            left -= len(block)
            parts = cut_units(carry + block, cut)
            carry = parts.pop()
            if parts:
                flags = bytearray(len(parts))
                flags[0] = carry_alone
                yield parts, flags
                carry_alone = 0
            while len(carry) > MAX_UNIT_BYTES:  # no safe cut for too long: as text_units does
                at = _force_cut(carry)
                yield [carry[:at]], bytearray(b"\x01")
                carry, carry_alone = carry[at:], 1
    if carry:
        # the last unit touches the file's end only if the range does; else it ends at a safe cut
        yield [carry], bytearray([1 if (stop == size or carry_alone) else 0])


def count_range(task, pattern: str, special_tokens=(), backend=None) -> tuple[dict, int, int]:
    """One map task: ``(chunk counts, text bytes, units)`` of a ``plan_tasks`` task. Pure.

    >>> import pathlib, tempfile; p = pathlib.Path(tempfile.mkdtemp(), "a.txt")
    >>> _ = p.write_bytes(b"x = 1\\nx = 1\\n")
    >>> counts, n_bytes, n_units = count_range((str(p), 0, 12, None), GPT4_PATTERN)
    >>> sorted(counts.items()), n_bytes, n_units
    ([(b'\\n', 2), (b' ', 2), (b' =', 2), (b'1', 2), (b'x', 2)], 12, 2)
    """
    path, start, stop, columns = task
    cut = cut_regex(pattern)
    if path.endswith((".parquet", ".jsonl")):  # a whole file of documents (documents.py)
        batches = stream_units(path, cut, columns)
    else:
        batches = range_units(path, start, stop, cut)
    units, alone = [], bytearray()
    for u, a in batches:
        units += u
        alone += a
    counts = count_units(units, alone, pattern, special_tokens, backend=backend)
    return counts, sum(map(len, units)), len(units)


# ---- the reduce: a tree of pure merges ------------------------------------------


def merge_counts(*parts):
    """Add ``(counts, bytes, units)`` results into a *new* one (never into an input).

    >>> merge_counts(({b"a": 1}, 3, 1), ({b"a": 2, b"b": 1}, 4, 2))
    ({b'a': 3, b'b': 1}, 7, 3)
    """
    total: dict[bytes, int] = dict(parts[0][0])  # subtle: a copy, see the module docstring
    get = total.get
    for counts, _, _ in parts[1:]:
        for chunk, c in counts.items():
            total[chunk] = get(chunk, 0) + c
    return total, sum(p[1] for p in parts), sum(p[2] for p in parts)


def count_on_cluster(client, tasks, pattern: str, special_tokens=(), count=count_range,
                     split_every: int = SPLIT_EVERY, backend=None) -> tuple[tuple[dict, int, int], float]:
    """Map ``count`` over the tasks on the cluster, reduce in a tree; return the root and the reduce time.

    The reduce time is what was left to do once the last map task ended, in seconds.
    ``count`` is the map function (``count_range``, or a wrapper with its signature).
    """
    if not tasks:
        return ({}, 0, 0), 0.0
    extra = {} if backend is None else {"backend": backend}  # (a wrapper ``count`` may not take it)
    layer = client.map(count, tasks, pattern=pattern, special_tokens=list(special_tokens), **extra)
    mapped = list(layer)
    # the tree: each level adds up to split_every results of the level below
    while len(layer) > 1:
        layer = [client.submit(merge_counts, *layer[i:i + split_every])
                 for i in range(0, len(layer), split_every)]
    wait(mapped)
    t = time.perf_counter()
    root = layer[0].result()
    return root, time.perf_counter() - t


def count_phase(cfg: Config, phase: Phase, task_bytes: int | None = None, backend=None):
    """Count a phase on the cluster ``cfg`` names; return ``(counts, report fields, reduce seconds)``.

    With no ``scheduler`` in the config, a LocalCluster of ``cfg.workers``
    workers (one thread each) is started and closed around the count.
    """
    files = [(path, source.columns) for source in phase.sources for path in source.files]
    num_threads = 1  # per worker
    if task_bytes is None:
        task_bytes = min(TASK_BYTES, int(cfg.working_set_mb * MB) // num_threads)
    tasks = plan_tasks(files, cfg.pattern, task_bytes)
    with dask_client(cfg.scheduler, workers=cfg.workers, num_threads=num_threads) as client:
        (counts, n_bytes, n_units), reduce_s = count_on_cluster(client, tasks, cfg.pattern, cfg.special_tokens,
                                                                backend=backend)
    report = dict(bytes_read=n_bytes, units_read=n_units, bytes_held=n_bytes, units_held=n_units, sampled=False)
    return counts, report, reduce_s
