"""Counting the chunks of streamed units: the map (on worker processes) and the reduce.

Input: units from ``sources.py`` with their *alone* flags (a unit that touches the
start or end of its document must be split on its own; any other may be glued to
any other). Output: chunk counts, UTF-8 bytes -> count, what every trainer takes.
``chunks.count_chunks`` does the same for whole documents held in memory.

What this module does not do: read files (``sources.py``), decide what to keep
(``reservoir.py``), or merge anything (the trainers).
"""

from __future__ import annotations

import multiprocessing as mp
import re
from bisect import bisect_left
from collections import Counter
from functools import lru_cache
from itertools import accumulate

import regex

from .._internal.arguments import renamed
from ..chunks import add_counts as _add
from ..chunks import compiled_counter
from ..patterns import GPT4_PATTERN, compile_pattern, ordinary_pieces, special_regex

__all__ = ["TASK_BYTES", "ascii_twin", "count_batch", "count_units", "CountingPool"]

TASK_BYTES = 1 << 20  # text per counting task sent to a worker

# Why counting is fast (measured on a 2-core x86-64 machine, 3.8 MB of stdlib
# code, GPT-4 pattern): the regex split is most of the trainer's time, so
#   * with the compiled backend and a named pattern, the hand-written scanner of
#     ``_compiled/_chunk_counter.pxi`` counts each glued group in C++ (``ChunkCounter``); what
#     follows is the pure-Python path, used otherwise:
#   * each distinct unit is split once per task (1 MiB of text): code repeats
#     lines, and 20-25% of the text is skipped;
#   * pure-ASCII units (nearly all code, most English) are split by the standard
#     library's ``re`` with an *ASCII twin* of the pattern (``ascii_twin``): same
#     chunks on ASCII text, 0.15 s where ``regex`` takes 0.39 s; the rest go to
#     ``regex``, which knows \p{L};
#   * units are glued into one string per group, so the split runs in C over
#     megabytes instead of being called once per line;
#   * the workers start counting while the parent is still reading the files
#     (``CountingPool``), so reading (about 0.5 s per 20 MB) hides behind them.
# Tried and dropped: ``re`` with \p{L} spelled out as 700 code-point ranges (3x
# slower than ``regex``), and one global dedup over all tasks (4% more text
# skipped for a dictionary as large as the text's units).

_TWIN_CHECK = ("".join(map(chr, range(128))) * 2 + " a  b\n\n c's 1234567 x\r\n \t\n"
               "It's THE'RE can't  ->  x==y // z /* w */ \x0b\x0c\x1c\x1f end  ")


def _ascii_members(escape: str) -> str:
    r"""The ASCII characters ``regex`` puts in a class escape, written for a [...] class.

    >>> _ascii_members(r"\p{N}")
    '0123456789'
    """
    rx = regex.compile(f"[{escape}]")
    return "".join(re.escape(chr(c)) for c in range(128) if rx.match(chr(c)))


@lru_cache(maxsize=16)
def ascii_twin(pattern: str) -> re.Pattern | None:
    r"""The pattern for the standard library's ``re``, exact on ASCII-only text; None if
    it cannot be made (an escape we do not translate) or does not agree on a check string.

    \p{..} and \s become the ASCII characters ``regex`` puts in them; \S becomes
    their complement. (``re`` has no \p{L}, and its own \s also matches \x1c-\x1f.)

    >>> ascii_twin(r" ?\p{L}+|\s+").pattern
    ' ?[ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz]+|[\\\t\\\n\\\x0b\\\x0c\\\r\\ ]+'
    """
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            m = re.match(r"\\p\{\w+\}|\\[sS]|\\.", pattern[i:], re.DOTALL)
            esc = m.group()
            if esc.startswith("\\p") or esc == "\\s":
                members = _ascii_members(esc)
                out.append(members if in_class else (f"[{members}]" if members else "(?!)"))
            elif esc == "\\S":
                if in_class:
                    return None
                out.append(f"[^{_ascii_members(chr(92) + 's')}]")
            elif not esc[1].isalnum() or esc[1] in "rntfv":
                out.append(esc)  # a literal character: the same in both engines
            else:
                return None  # \w, \d, \b, \P{..}, ...: not translated
            i += len(esc)
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    try:
        twin = re.compile("".join(out))
    except re.error:
        return None
    if twin.findall(_TWIN_CHECK) != compile_pattern(pattern).findall(_TWIN_CHECK):
        return None
    return twin


def _split(data: bytes, pattern: str, specials) -> list[str]:
    """The chunks of some units' bytes: the ASCII twin when it can, ``regex`` otherwise."""
    twin = ascii_twin(pattern) if data.isascii() else None
    findall = twin.findall if twin is not None else compile_pattern(pattern).findall
    text = data.decode("utf-8", errors="replace")
    if specials is None:
        return findall(text)
    chunks = []
    for piece in ordinary_pieces(text, specials):  # special tokens are cut out first, never counted
        chunks += findall(piece)
    return chunks


def _count(data: bytes, pattern: str, specials, backend=None) -> dict[bytes, int]:
    """Chunk counts of some units' bytes: the compiled scanner (``chunks.count_chunk_bytes``'s
    ``ChunkCounter``) when ``backend`` and the pattern allow it, else ``_split``.
    """
    counter = compiled_counter(pattern, backend)
    if counter is None:
        return {chunk.encode("utf-8"): c for chunk, c in Counter(_split(data, pattern, specials)).items()}
    c = counter(pattern)
    text = data.decode("utf-8", errors="replace")
    for piece in ordinary_pieces(text, specials):
        c.add(piece)  # special tokens are cut out first, never counted
    return c.to_dict()


def count_batch(units, alone, pattern, special_tokens=(), backend=None) -> dict[bytes, int]:
    """Chunk counts (UTF-8 bytes -> count) of a list of units: the *map* step.

    Units marked alone are split one by one. The others are counted once per
    distinct unit: grouped by (occurrences, pure ASCII), each group glued into
    one string and split in one call, its counts multiplied by the occurrences.

    >>> sorted(count_batch([b"x = 1\\n", b"x = 1\\n", b"y\\n"], bytearray(3), GPT4_PATTERN).items())
    [(b'\\n', 3), (b' ', 2), (b' =', 2), (b'1', 2), (b'x', 2), (b'y', 1)]
    """
    specials = special_regex(special_tokens)
    counts: dict[bytes, int] = {}
    repeats = Counter(units)  # unit (bytes) -> occurrences
    i = alone.find(1)
    while i >= 0:  # few: about two per document
        unit = units[i]
        repeats[unit] -= 1
        if not repeats[unit]:
            del repeats[unit]
        _add(counts, _count(unit, pattern, specials, backend))
        i = alone.find(1, i + 1)
    groups = {}  # (occurrences, is ASCII) -> units
    for unit, n in repeats.items():
        groups.setdefault((n, unit.isascii()), []).append(unit)
    for (n, _), group in sorted(groups.items()):
        part = _count(b"".join(group), pattern, specials, backend)
        _add(counts, part if n == 1 else {chunk: c * n for chunk, c in part.items()})
    return counts


def _count_task(args):
    return count_batch(*args)


def _tasks(units, alone, pattern, special_tokens, backend=None):
    """Slices of about TASK_BYTES of text each, as arguments for count_batch."""
    ends = list(accumulate(map(len, units)))  # ends[i]: text bytes in units[: i + 1]
    start = 0
    while start < len(units):
        # the first unit at which the slice reaches TASK_BYTES
        stop = bisect_left(ends, (ends[start - 1] if start else 0) + TASK_BYTES, lo=start) + 1
        yield units[start:stop], alone[start:stop], pattern, special_tokens, backend
        start = stop


def count_units(units, alone, pattern, special_tokens=(), workers: int | None = None, *, backend=None,
                processes: int | None = None) -> dict[bytes, int]:
    """Chunk counts of all the units: slices counted on ``workers`` worker processes (map), added
    here (reduce); ``workers`` None or 1: all counted in this process. ``processes`` is its
    older name (deprecated).

    >>> sorted(count_units([b"a b\\n", b"a b\\n"], bytearray(2), GPT4_PATTERN).items())
    [(b'\\n', 2), (b' b', 2), (b'a', 2)]
    """
    workers = renamed("processes", processes, "workers", workers)
    if workers is None or workers <= 1:
        total: dict[bytes, int] = {}
        for args in _tasks(units, alone, pattern, list(special_tokens), backend):
            _add(total, _count_task(args))
        return total
    with CountingPool(workers, pattern, special_tokens, backend=backend) as pool:
        pool.submit(units, alone)
        return pool.result()


class CountingPool:
    """``workers`` worker processes that count units while the parent is still reading (map),
    and the running total of what they sent back (reduce).

    ``submit`` queues slices of units; it waits for the oldest task when more than two
    per worker are in flight, so the text in transit stays a few MiB whatever the
    corpus. ``result`` waits for the rest and returns the counts. Workers are forked,
    so they start in milliseconds and inherit the compiled regexes.
    """

    def __init__(self, workers: int, pattern: str, special_tokens=(), *, backend=None):
        self._pool = mp.get_context("fork").Pool(workers)
        self._pattern, self._specials, self._backend = pattern, list(special_tokens), backend
        self._in_flight = []  # AsyncResult of each task not yet added
        self._limit = 2 * workers
        self.total: dict[bytes, int] = {}

    def submit(self, units, alone) -> None:
        for args in _tasks(units, alone, self._pattern, self._specials, self._backend):
            while len(self._in_flight) >= self._limit:
                _add(self.total, self._in_flight.pop(0).get())  # backpressure: wait for the oldest
            self._in_flight.append(self._pool.apply_async(_count_task, (args,)))
            done = [r for r in self._in_flight if r.ready()]
            for r in done:
                self._in_flight.remove(r)
                _add(self.total, r.get())

    def result(self) -> dict[bytes, int]:
        while self._in_flight:
            _add(self.total, self._in_flight.pop(0).get())
        return self.total

    def close(self) -> None:
        self._pool.terminate()  # idle by now, or its work is no longer wanted
        self._pool.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

