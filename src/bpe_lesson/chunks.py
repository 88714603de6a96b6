"""From documents to chunk counts: the front end of every trainer.

Training never looks at the text again after this step: it only needs each
unique chunk (as UTF-8 bytes) and how often it occurs. Special tokens are cut
out first (``patterns.ordinary_pieces``) and never counted, so no merge can ever
reach into one.

On a large corpus this step, not the merge loop, is most of the time (Python's
``regex`` splits at roughly 10 MB/s on one core), so ``count_chunks`` spreads
the documents over worker processes (map) and adds their counters (reduce).
``count_chunk_bytes``, what ``train`` calls, goes faster still when the compiled
backend is active and the pattern is a named one (or None): the hand-written
scanners count into a C++ map with the GIL released, one thread per core, and
only the unique chunks become Python objects.

``doc_batches`` and ``add_counts`` are how a stream of documents is counted in bounded
memory: whole documents grouped into batches of a few megabytes, each batch counted,
its counts added to the total (``train`` on an iterable; ``scale/counting.py`` adds its
tasks' counts with the same ``add_counts``).

What this module does not do: merge anything (the trainers do), or read files
(``scale/``, the YAML trainer).
"""

from __future__ import annotations

import multiprocessing as mp
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from ._compiled import backend as _backend
from ._compiled.backend import resolve_workers
from ._internal.arguments import renamed
from .patterns import PATTERNS, compile_pattern, ordinary_pieces, resolve_pattern, special_regex

__all__ = ["count_chunks_in", "doc_batches", "add_counts", "count_chunks",
           "to_byte_counts", "count_chunk_bytes", "ChunkTally", "compiled_counter"]

_BATCH_CHARS = 1_000_000


def count_chunks_in(docs, pattern: str | None, special_tokens=()) -> Counter:
    """Count the chunks of a list of documents in this process: str -> count.

    >>> count_chunks_in(["the cat and the hat"], r" ?\\w+") == {"the": 1, " cat": 1, " and": 1, " the": 1, " hat": 1}
    True
    """
    return _count_in(docs, resolve_pattern(pattern), special_tokens)


def _count_in(docs, pattern: str | None, special_tokens) -> Counter:
    """``count_chunks_in`` with its pattern resolved (the regex, or None)."""
    counts = Counter()  # str -> int
    specials = special_regex(special_tokens)
    findall = compile_pattern(pattern).findall if pattern is not None else None
    for doc in docs:
        for piece in ordinary_pieces(doc, specials):
            if findall is None:
                counts[piece] += 1
            else:
                counts.update(findall(piece))
    return counts


def _count_batch(args):
    docs, pattern, special_tokens = args
    return _count_in(docs, pattern, special_tokens)


def doc_batches(docs, chars: int = _BATCH_CHARS):
    """Whole documents from the iterable ``docs`` in lists of about ``chars`` characters,
    pulled lazily: a batch is yielded before the next document is read.

    subtle: we never cut a document, because no cut point is safe for every
    regex (GPT-2's pattern chunks a newline run differently at the end of text),
    so one huge document is one batch.

    >>> list(doc_batches(iter(["ab", "cd", "e", "fgh"]), chars=3))
    [['ab', 'cd'], ['e', 'fgh']]
    """
    batch, size = [], 0
    for doc in docs:
        batch.append(doc)
        size += len(doc)
        if size >= chars:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def add_counts(total: dict, part: dict) -> None:
    """total += part, key by key (the reduce step of every batched count).

    >>> total = {b"a": 1}; add_counts(total, {b"a": 2, b"b": 1}); total
    {b'a': 3, b'b': 1}
    """
    if not total:
        total.update(part)
        return
    get = total.get
    for chunk, c in part.items():
        total[chunk] = get(chunk, 0) + c


def _batches(docs, pattern, special_tokens):
    """``doc_batches`` as arguments for ``_count_batch``."""
    for batch in doc_batches(docs):
        yield (batch, pattern, special_tokens)


def count_chunks(texts, pattern: str | None, special_tokens=(), workers: int | None = None, *,
                 processes: int | None = None) -> Counter:
    """Count the chunks of ``texts`` (a str or an iterable of str): str -> count.

    ``workers``: how many worker processes count (-1: every core); None picks every
    core when the text is large, one otherwise. ``processes`` is its older name
    (deprecated). With ``pattern=None`` every document (between special tokens) is
    one chunk.

    >>> sorted(count_chunks("low low lower", "gpt4").items())
    [(' low', 1), (' lower', 1), ('low', 1)]
    """
    workers = renamed("processes", processes, "workers", workers)
    return _count_chunks(texts, resolve_pattern(pattern), special_tokens, workers)


def _count_chunks(texts, pattern: str | None, special_tokens, workers) -> Counter:
    """``count_chunks`` with its pattern resolved (the regex, or None)."""
    docs = [texts] if isinstance(texts, str) else list(texts)
    for d in docs:
        if not isinstance(d, str):
            raise TypeError(f"documents must be str, got {type(d).__name__}")
    # the compiled counter takes exact str: numpy.str_ and other subclasses as plain str
    docs = [d if type(d) is str else str.__str__(d) for d in docs]
    workers = resolve_workers(workers, sum(len(d) for d in docs))
    if workers <= 1 or pattern is None:
        return _count_in(docs, pattern, special_tokens)
    counts = Counter()
    # fork: the workers inherit the compiled regex and start in milliseconds
    with mp.get_context("fork").Pool(workers) as pool:
        for part in pool.imap_unordered(_count_batch, _batches(docs, pattern, special_tokens)):
            counts.update(part)
    return counts


def to_byte_counts(chunk_counts) -> dict[bytes, int]:
    """Chunks as UTF-8 bytes, the alphabet the trainers work in.

    >>> to_byte_counts({"é": 2})
    {b'\\xc3\\xa9': 2}
    """
    return {chunk.encode("utf-8"): count for chunk, count in chunk_counts.items()}


def count_chunk_bytes(texts, pattern: str | None, special_tokens=(), workers: int | None = None, *,
                      backend: str | None = None, processes: int | None = None) -> dict[bytes, int]:
    """Chunk counts as UTF-8 bytes (what the trainers take): bytes -> count.

    Equal to ``to_byte_counts(count_chunks(...))``; on the "cython" ``backend`` (None:
    ``BACKEND``), for a pattern the compiled scanner has, its ``workers`` are threads
    of this process (the compiled counter lets go of the GIL) instead of
    ``count_chunks``' worker processes; "python" always runs the readable split.
    ``workers`` is a number as in ``count_chunks``; ``processes`` is its older name
    (deprecated). ``ChunkTally`` does the same batch by batch.

    >>> sorted(count_chunk_bytes(["low low", "lower"], "gpt4").items())
    [(b' low', 1), (b'low', 1), (b'lower', 1)]
    """
    workers = renamed("processes", processes, "workers", workers)
    tally = ChunkTally(resolve_pattern(pattern), special_tokens, workers, backend=_backend.resolve_backend(backend))
    tally.add(tally.count(texts))
    return tally.result()


class ChunkTally:
    """Chunk counts added up over batches of documents: ``count`` a batch (a str or a list
    of str; nothing is kept), ``add`` its counts to the total, ``result`` the total as
    bytes -> count. Memory grows with the distinct chunks, never with the batches seen.

    On the compiled counter (the "cython" ``backend``, a named pattern or None) a batch's
    counts are a ``ChunkCounter`` and adding them is a merge of two C++ tables: no Python
    object is made per chunk until ``result``. Otherwise they are a dict.

    ``pattern`` and ``backend`` come resolved (``patterns.resolve_pattern``: the regex or
    None; ``"python"`` or ``"cython"``), decided once by the caller (``train``).

    >>> tally = ChunkTally(PATTERNS["gpt4"], backend="python")
    >>> for batch in (["low low"], ["lower"]):
    ...     tally.add(tally.count(batch))
    >>> sorted(tally.result().items())
    [(b' low', 1), (b'low', 1), (b'lower', 1)]
    """

    def __init__(self, pattern: str | None, special_tokens=(), workers: int | None = None, *, backend: str):
        self.pattern = pattern
        self.special_tokens, self.workers = list(special_tokens), workers
        self.counter = _counter_class(pattern, backend)  # None: the readable split
        self.total = None  # a ChunkCounter or a dict (bytes -> count); None before the first add
        self.chars = 0  # characters counted so far: workers=None picks every core once it is large

    def count(self, texts):
        """The chunk counts of ``texts`` alone (a ``ChunkCounter``, or a dict bytes -> count).

        ``workers=None`` decides by the text counted so far, this batch included: a
        stream of small batches goes on every core once it has passed ``PARALLEL_MIN_BYTES``.
        """
        docs = [texts] if isinstance(texts, str) else list(texts)
        for d in docs:
            if not isinstance(d, str):
                raise TypeError(f"documents must be str, got {type(d).__name__}")
        self.chars += sum(len(d) for d in docs)
        workers = self.workers if self.workers is not None else resolve_workers(None, self.chars)
        if self.counter is None:
            return to_byte_counts(_count_chunks(docs, self.pattern, self.special_tokens, workers))
        # the compiled counter takes exact str: numpy.str_ and other subclasses as plain str
        docs = [d if type(d) is str else str.__str__(d) for d in docs]
        workers = resolve_workers(workers, self.chars)
        specials = special_regex(self.special_tokens)
        pattern, counter = self.pattern, self.counter

        def count_share(share):
            c = counter(pattern)
            for doc in share:
                for piece in ordinary_pieces(doc, specials):
                    c.add(piece)
            return c

        if workers <= 1 or len(docs) < 2:
            return count_share(docs)
        shares = [docs[k::workers] for k in range(workers)]  # interleaved: similar sizes
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(count_share, shares))
        for part in parts[1:]:
            parts[0].update(part)
        return parts[0]

    def add(self, part) -> None:
        """Add one batch's counts (from ``count``) to the total."""
        if self.total is None:
            self.total = part
        elif self.counter is None:
            add_counts(self.total, part)
        else:
            self.total.update(part)

    def result(self) -> dict[bytes, int]:
        """The total: bytes -> count. The tally lets go of it (subtle: the C++ table would
        otherwise stay alive through the merge loop, beside the dict made from it)."""
        total, self.total = self.total, None
        if total is None:
            return {}
        return total if self.counter is None else total.to_dict()


def compiled_counter(pattern, backend: str | None = None):
    """The compiled ``ChunkCounter`` class if it can count with ``pattern`` on ``backend``
    (None: ``BACKEND``), else None (a custom regex, or the Python backend).

    >>> compiled_counter("gpt4", "python") is None
    True
    """
    return _counter_class(pattern, _backend.resolve_backend(backend))


def _counter_class(pattern, backend: str):
    """``compiled_counter`` for a backend already resolved."""
    native = _backend.extension(backend)
    if native is None or (pattern is not None and pattern not in PATTERNS.values()):
        return None
    return native.ChunkCounter
