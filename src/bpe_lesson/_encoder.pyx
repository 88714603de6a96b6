# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The encoder, compiled: same names and the same ids as the readable Python path.

Read ``byte_pair_merge`` in ``ranks.py``, ``Tokenizer.encode_ordinary`` in ``tokenizer.py`` and
``split_chunks`` in ``patterns.py`` first. This file does the same three steps (cut
the text into chunks, look each chunk up, rank-merge the ones that are not a token)
with C data and without the interpreter:

* ``Encoder(ranks, pattern)`` with ``.encode_ordinary(text)`` and
  ``.encode_chunk(chunk)``: what ``Tokenizer`` calls when its backend is "cython".
* ``bpe_encode_chunk(chunk, ranks)`` and ``split_chunks(text, pattern)``: the same
  functions as the Python ones, for tests and for readers who want to compare.

For the three named patterns (gpt2, gpt4, o200k) a hand-written scanner replaces
the regex. Each scanner is that regex transcribed alternative by alternative,
over a table of character classes *computed from the ``regex`` module itself*
(``_char_classes.py``), so the two agree on every code point by construction;
tests/test_scanner.py checks the chunks against ``regex.findall`` on random and
real text. Any other pattern is split by the ``regex`` module, as in Python.

The file is split by concern (msgpack's way: ``include`` of ``.pxi`` files):
  _hashtable.pxi   bytes -> value, the vocabulary table and the chunk cache
  _scanners.pxi    the hand-written scanners (also compiled into _incremental)
  _rank_merge.pxi  the rank merge of one chunk (``ranks.byte_pair_merge``)
  this file        the public API (``Encoder``, ``bpe_encode_chunk``,
                   ``split_chunks``) and the loop that encodes a text

What this module does not do: count chunks for training (``ChunkCounter`` lives
with the trainer, in ``_incremental.pyx``), special tokens (``Tokenizer.encode``
cuts them out before it calls ``encode_ordinary``), decoding (a dict lookup, already fast), or
encoding text with lone surrogates (like the Python path it raises
``UnicodeEncodeError``; ``split_chunks`` lets them through, as the regex does).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from .patterns import compile_pattern, resolve_pattern

include "_hashtable.pxi"
include "_scanners.pxi"
include "_rank_merge.pxi"


cdef size_t cache_entries = 1 << 18   # the chunk cache starts over when it holds this many chunks
cdef size_t cache_bytes = 1 << 26     # ... or this many bytes of chunk text


def _set_cache_limits(entries=1 << 18, nbytes=1 << 26):
    """Change when chunk caches start over (tests use tiny limits); returns the old ones."""
    global cache_entries, cache_bytes
    old = (cache_entries, cache_bytes)
    cache_entries, cache_bytes = entries, nbytes
    return old


cdef struct IdBuf:      # a growing buffer of ids (the output of an encode)
    uint32_t* p
    size_t n, cap


# ---- public API: the same names as the Python reference --------------------------

def bpe_encode_chunk(chunk, ranks):
    """Encode one chunk by rank; the same result as ``ranks.bpe_encode_chunk``.

    Builds a C table from ``ranks`` on every call, so it is for tests and
    comparisons; ``Encoder`` builds its table once.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> bpe_encode_chunk(b"abcd", ranks)
    [258, 100]
    """
    cdef _Ranks r = _Ranks(ranks)
    cdef const uint8_t[:] view = chunk
    cdef Py_ssize_t n = view.shape[0]
    if n == 0:
        return []
    cdef uint32_t whole = rank_of(&r.t, &view[0], n)
    if whole != NO_RANK:
        return [whole]
    cdef uint32_t* out = <uint32_t*>malloc(n * sizeof(uint32_t))
    if out == NULL:
        raise MemoryError()
    cdef Py_ssize_t m
    try:
        m = bpe_merge(&r.t, &view[0], n, out)
        if m < 0:
            raise MemoryError()
        _check_parts(out, m, chunk)
        return [out[k] for k in range(m)]
    finally:
        free(out)


def split_chunks(text, pattern):
    """Cut ``text`` into chunks; the same list as ``patterns.split_chunks``.

    The named patterns use the scanners (``_scanners.pxi``); any other regex uses ``regex``.

    >>> split_chunks("Hello world!!", "gpt4")
    ['Hello', ' world', '!!']
    """
    pattern = resolve_pattern(pattern)
    cdef int kind = _kind(pattern)
    if kind == KIND_NONE:
        return [text] if text else []
    if kind == KIND_REGEX:
        return compile_pattern(pattern).findall(text)
    _build_tables()
    # subtle: "surrogatepass" lets lone surrogates through as 3-byte sequences, which
    # the scanner decodes like any code point (the regex splits such text too)
    data = text.encode("utf-8", "surrogatepass")
    cdef const uint8_t* s = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, e
    out = []
    while i < n:
        e = next_end(kind, s, i, n)
        out.append(data[i:e].decode("utf-8", "surrogatepass"))
        i = e
    return out


cdef class _Ranks:
    """The vocabulary as a C hash table: token bytes -> rank. Never changes once built."""
    cdef Table t
    cdef readonly object ranks   # the dict it was built from (for pickling)

    def __cinit__(self):
        memset(&self.t, 0, sizeof(Table))

    def __init__(self, ranks):
        cdef Key k
        self.ranks = ranks
        cap = 16
        while cap < 2 * len(ranks):
            cap *= 2
        if table_init(&self.t, cap) < 0:
            raise MemoryError()
        for token, rank in ranks.items():
            if type(token) is not bytes or not token:
                raise ValueError(f"vocabulary key {token!r} is not a non-empty bytes object")
            if not (0 <= rank < NO_RANK):
                raise ValueError(f"rank {rank} of {token!r} is out of range (0 to {NO_RANK - 1})")
            k = make_key(<const uint8_t*>PyBytes_AS_STRING(token), PyBytes_GET_SIZE(token))
            if table_find(&self.t, &k) == NULL:
                if table_insert(&self.t, &k, rank, 0) < 0:
                    raise MemoryError()

    def __dealloc__(self):
        table_free(&self.t)

    def has_all_bytes(self):
        """True when every single byte is a token (the merge loop starts from them)."""
        cdef uint8_t b
        for k in range(256):
            b = k
            if rank_of(&self.t, &b, 1) == NO_RANK:
                return False
        return True


cdef class Encoder:
    """Text -> ids for one vocabulary and one split pattern; the compiled twin of
    ``Tokenizer.encode_ordinary`` / ``Tokenizer.encode_chunk``.

    ``ranks``: ``{token bytes: rank}``, with every single byte present.
    ``pattern``: a pattern name, a regex, or ``None`` (the whole text is one chunk).

    Holds a cache of chunk -> ids. Safe to share between threads: while one
    thread is inside ``encode_ordinary`` (without the GIL), another gets a spare
    encoder with its own cache over the same vocabulary table.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> Encoder(ranks, None).encode_ordinary("abcab")
    [257, 256]
    """
    cdef _Ranks R
    cdef Table cache
    cdef readonly object pattern
    cdef int kind
    cdef object findall
    cdef bint busy
    cdef list spare

    def __cinit__(self):
        memset(&self.cache, 0, sizeof(Table))
        self.busy = False
        self.spare = []

    def __init__(self, ranks, pattern=None):
        self.R = ranks if isinstance(ranks, _Ranks) else _Ranks(ranks)
        if not self.R.has_all_bytes():
            raise ValueError("the vocabulary lacks some single-byte tokens; the compiled encoder needs all 256")
        self._set_pattern(pattern)
        if table_init(&self.cache, 1024) < 0:
            raise MemoryError()

    cdef _set_pattern(self, pattern):
        self.pattern = resolve_pattern(pattern)
        self.kind = _kind(self.pattern)
        self.findall = compile_pattern(self.pattern).findall if self.kind == KIND_REGEX else None
        if self.kind >= KIND_GPT2:
            _build_tables()

    def __dealloc__(self):
        table_free(&self.cache)

    def __reduce__(self):
        return (Encoder, (self.R.ranks, self.pattern))

    def copy(self):
        """A new encoder on the same vocabulary table, with an empty cache."""
        cdef Encoder e = Encoder.__new__(Encoder)
        e.R = self.R
        e._set_pattern(self.pattern)
        if table_init(&e.cache, 1024) < 0:
            raise MemoryError()
        return e

    def encode_chunk(self, str chunk):
        """Ids of one pre-tokenized chunk (cached), as ``Tokenizer.encode_chunk``."""
        cdef Encoder e = self._claim()
        try:
            return e._encode_chunk(chunk)
        finally:
            self._release(e)

    def encode_ordinary(self, str text):
        """Encode text with no special-token handling, as ``Tokenizer.encode_ordinary``."""
        cdef Encoder e = self._claim()
        try:
            return e._encode_ordinary(text)
        finally:
            self._release(e)

    cdef Encoder _claim(self):
        """This encoder, or a spare when another thread is using it (decided under the GIL)."""
        if not self.busy:
            self.busy = True
            return self
        return self.spare.pop() if self.spare else self.copy()

    cdef _release(self, Encoder e):
        if e is self:
            self.busy = False
        else:
            self.spare.append(e)

    cdef list _encode_chunk(self, str chunk):
        cdef Py_ssize_t n
        cdef const uint8_t* p = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
        cdef IdBuf out
        memset(&out, 0, sizeof(IdBuf))
        try:
            if n and encode_piece(&self.R.t, &self.cache, p, n, &out) < 0:
                raise MemoryError()
            return [out.p[k] for k in range(out.n)]
        finally:
            free(out.p)

    cdef list _encode_ordinary(self, str text):
        cdef IdBuf out
        cdef const uint8_t* s
        cdef Py_ssize_t n
        cdef int kind = self.kind, status = 0
        memset(&out, 0, sizeof(IdBuf))
        try:
            if kind == KIND_REGEX:
                for chunk in self.findall(text):
                    # subtle: raises UnicodeEncodeError on a lone surrogate, as chunk.encode() does
                    s = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
                    if n and encode_piece(&self.R.t, &self.cache, s, n, &out) < 0:
                        raise MemoryError()
            else:
                if text.isascii():  # the str's own bytes already are its UTF-8
                    data = text
                    s = <const uint8_t*>PyUnicode_AsUTF8AndSize(text, &n)
                else:
                    data = text.encode("utf-8")
                    s = <const uint8_t*>PyBytes_AS_STRING(data)
                    n = PyBytes_GET_SIZE(data)
                with nogil:
                    status = encode_text(&self.R.t, &self.cache, kind, s, n, &out)
                if status < 0:
                    raise MemoryError()
            return [out.p[k] for k in range(out.n)]
        finally:
            free(out.p)


cdef _check_parts(uint32_t* out, Py_ssize_t m, chunk):
    for k in range(m):
        if out[k] == NO_RANK:
            raise KeyError(f"a byte of {chunk!r} is not in the vocabulary")


# ---- encoding a text ---------------------------------------------------------------
#
# Why it is fast (measured on a 2-core x86-64 machine, busy with other jobs,
# 10 MB of CPython stdlib sources, cl100k_base; benchmarks/encode_speed.py):
#   * The split comes first. The ``regex`` module finds GPT-4's chunks at 4-12 MB/s,
#     about tiktoken's speed for the whole encode, so merging fast behind it could not
#     beat tiktoken. The scanners (_scanners.pxi) cut the same chunks for a few percent of the
#     time (perf: scanner ~7% of samples, table lookups ~21%, building the list of
#     Python ints ~12%, fresh memory pages ~14%).
#   * 93% of the 2.3 million chunks of that text are one token, so the first and
#     usually only step is one probe of the rank table. The table uses open
#     addressing, and each slot keeps a 32-bit tag and the key's first 8 bytes, so
#     most probes never read the key bytes stored elsewhere.
#   * 79% of the remaining chunks repeat an earlier one: a cache (chunk bytes -> ids)
#     probed with the same hash returns them without merging.
#   * The merge loop keeps the parts as start offsets in a stack array, with the rank
#     of each adjacent pair beside them (tiktoken's layout): after a merge only the
#     two neighbouring pair ranks are looked up again.
#   * Chunks longer than SMALL bytes (runs of spaces or "=", pattern=None) use a heap
#     of (rank, start) and a linked list: O(n log n) instead of O(n^2). It pops the
#     lowest rank, then the leftmost: the same rule.
#   * Scanning and merging run without the GIL, so encode_batch's threads run in parallel.
#   Tried and dropped: comparing keys with memcmp against the stored bytes on every
#   probe that matched the tag (memcmp took 6% of the samples; keeping the first 8
#   bytes in the slot removed most of those calls).

cdef int encode_piece(const Table* R, Table* C, const uint8_t* p, Py_ssize_t n, IdBuf* out) noexcept nogil:
    """Append the ids of chunk p[0:n] to ``out``: whole-chunk token, cached, or merged."""
    cdef Key k = make_key(p, n)   # one hash for both tables
    cdef Slot* sl = table_find(R, &k)
    cdef Py_ssize_t m
    if grow(<void**>&out.p, &out.cap, out.n + n, sizeof(uint32_t)) < 0:
        return -1
    if sl != NULL:  # tiktoken's shortcut: the whole chunk is one token
        out.p[out.n] = sl.v0
        out.n += 1
        return 0
    sl = table_find(C, &k)
    if sl != NULL:
        memcpy(out.p + out.n, C.ids + sl.v0, sl.v1 * sizeof(uint32_t))
        out.n += sl.v1
        return 0
    m = bpe_merge(R, p, n, out.p + out.n)
    if m < 0:
        return -1
    # remember it; start the cache over when it is full (the ids never depend on it)
    if <size_t>n > cache_bytes:
        out.n += m
        return 0
    if C.used >= cache_entries or C.arena_n + n > cache_bytes:
        table_clear(C)
    if grow(<void**>&C.ids, &C.ids_cap, C.ids_n + m, sizeof(uint32_t)) < 0:
        return -1
    memcpy(C.ids + C.ids_n, out.p + out.n, m * sizeof(uint32_t))
    if table_insert(C, &k, C.ids_n, m) < 0:
        return -1
    C.ids_n += m
    out.n += m
    return 0


cdef int encode_text(const Table* R, Table* C, int kind, const uint8_t* s, Py_ssize_t n, IdBuf* out) noexcept nogil:
    """Scan the text chunk by chunk and encode each; 0, or -1 when out of memory."""
    cdef Py_ssize_t i = 0, e
    if kind == KIND_NONE:
        return encode_piece(R, C, s, n, out) if n else 0
    while i < n:
        e = next_end(kind, s, i, n)
        if encode_piece(R, C, s + i, e - i, out) < 0:
            return -1
        i = e
    return 0
