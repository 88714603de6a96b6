# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The encoder, compiled: same names and the same ids as the readable Python path.

Read ``bpe_encode_chunk`` and ``Tokenizer.encode_ordinary`` in ``tokenizer.py`` and
``split_chunks`` in ``patterns.py`` first. This file does the same three steps (cut
the text into chunks, look each chunk up, rank-merge the ones that are not a token)
with C data and without the interpreter:

* ``Encoder(ranks, pattern)`` with ``.encode_ordinary(text)`` and
  ``.encode_chunk(chunk)``: what ``Tokenizer`` calls when its backend is "cython".
* ``bpe_encode_chunk(chunk, ranks)`` and ``split_chunks(text, pattern)``: the same
  functions as the Python ones, for tests and for readers who want to compare.

For the three named patterns (gpt2, gpt4, o200k) a hand-written scanner replaces
the regex. Each scanner is that regex transcribed alternative by alternative
(the comments quote the piece of regex each branch implements), over a table of
character classes that is *computed from the ``regex`` module itself*, so the two
agree on every code point by construction; tests/test_scanner.py checks the chunks
against ``regex.findall`` on random and real text. Any other pattern is split by
the ``regex`` module, as in Python.

What this module does not do: special tokens (``Tokenizer.encode`` cuts them out
before it calls ``encode_ordinary``), decoding (a dict lookup, already fast), or
encoding text with lone surrogates (like the Python path it raises
``UnicodeEncodeError``; ``split_chunks`` lets them through, as the regex does).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from libcpp.string cimport string
from libcpp.unordered_map cimport unordered_map

import threading

from .patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, compile_pattern, resolve_pattern

cdef extern from *:
    """
    #define BPE_NO_RANK 0xFFFFFFFFu
    """
    uint32_t NO_RANK "BPE_NO_RANK"   # "no such token"; every real rank is below it

cdef enum:
    SMALL = 128               # chunks up to this many bytes use the simple merge loop
SMALL_CHUNK = SMALL           # (for tests: longer chunks take the heap path)

cdef size_t cache_entries = 1 << 18   # the chunk cache starts over when it holds this many chunks
cdef size_t cache_bytes = 1 << 26     # ... or this many bytes of chunk text


def _set_cache_limits(entries=1 << 18, nbytes=1 << 26):
    """Change when chunk caches start over (tests use tiny limits); returns the old ones."""
    global cache_entries, cache_bytes
    old = (cache_entries, cache_bytes)
    cache_entries, cache_bytes = entries, nbytes
    return old

# how the text is cut into chunks
cdef enum:
    KIND_NONE = 0     # pattern=None: the whole text is one chunk
    KIND_REGEX = 1    # any other regex: the ``regex`` module splits
    KIND_GPT2 = 2
    KIND_GPT4 = 3
    KIND_O200K = 4

# character classes, one bit each, in the table CLS[code point]
cdef enum:
    F_L = 1     # \p{L}
    F_N = 2     # \p{N}
    F_S = 4     # \s
    F_U = 8     # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]   (o200k: "upper-case-like")
    F_W = 16    # [\p{Ll}\p{Lm}\p{Lo}\p{M}]         (o200k: "lower-case-like")
    F_P = 32    # [^\s\p{L}\p{N}]                   (punctuation, symbols, marks, ...)

CLASSES = {F_L: r"\p{L}", F_N: r"\p{N}", F_S: r"\s", F_U: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
           F_W: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", F_P: r"[^\s\p{L}\p{N}]"}
CONTRACTION_LETTERS = "'sdmtlvre"   # what (?i:'s|'t|'re|'ve|'m|'ll|'d) and GPT-4's [sdmt]|ll|ve|re use

# the hash table (bytes -> (v0, v1); its functions are further down) and an id buffer
cdef struct Slot:
    uint32_t tag     # high 32 bits of the key's hash
    uint32_t klen    # key length in bytes; 0 marks an empty slot
    uint64_t head    # the key's first 8 bytes (zero-padded): most keys compare without the arena
    uint32_t koff    # the key is arena[koff : koff + klen]
    uint32_t v0      # rank table: the rank;  cache: offset of the ids in `ids`
    uint32_t v1      # rank table: unused;    cache: number of ids

cdef struct Table:
    Slot* slots
    size_t mask        # capacity - 1; the capacity is a power of two
    size_t used
    uint8_t* arena     # every key's bytes, back to back
    size_t arena_n, arena_cap
    uint32_t* ids      # the cache's values, back to back
    size_t ids_n, ids_cap

cdef struct Key:
    const uint8_t* p
    size_t n
    uint64_t h       # hash_bytes(p, n)
    uint64_t head    # load_head(p, n)

cdef struct IdBuf:
    uint32_t* p
    size_t n, cap


# =============================================================================
# Public API: the same names as the Python reference
# =============================================================================

def bpe_encode_chunk(chunk, ranks):
    """Encode one chunk by rank; the same result as ``tokenizer.bpe_encode_chunk``.

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

    The named patterns use the scanners below; any other regex uses ``regex``.

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


cdef class ChunkCounter:
    """Count the chunks of texts for training: UTF-8 chunk -> count, kept in C++.

    ``corpus.count_chunk_bytes`` uses it for the three named patterns and for
    ``pattern=None``. Counting with ``regex.findall`` + ``Counter`` makes one Python
    string per chunk (2.3 million for 10 MB of code) and holds the GIL throughout;
    here the scanner and the hash map run with the GIL released, so threads, one
    counter each, use every core without forking, and only the unique chunks
    (~50,000) ever become Python objects, in ``to_dict``.

    >>> c = ChunkCounter("gpt4"); c.add("the cat and the hat"); sorted(c.to_dict().items())
    [(b' and', 1), (b' cat', 1), (b' hat', 1), (b' the', 1), (b'the', 1)]
    """
    cdef unordered_map[string, long long] counts
    cdef int kind

    def __init__(self, pattern):
        pattern = resolve_pattern(pattern)
        self.kind = _kind(pattern)
        if self.kind == KIND_REGEX:
            raise ValueError("ChunkCounter scans only the named patterns (gpt2, gpt4, o200k) or None")
        if self.kind >= KIND_GPT2:
            _build_tables()

    def add(self, str text):
        """Count the chunks of one piece of text (special tokens already cut out)."""
        data = text.encode("utf-8")  # lone surrogates raise here, as in the regex path
        cdef const uint8_t* s = <const uint8_t*>PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        with nogil:
            self._count(s, n)

    cdef void _count(self, const uint8_t* s, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i = 0, e
        if n == 0:
            return
        if self.kind == KIND_NONE:
            self.counts[string(<const char*>s, n)] += 1
            return
        while i < n:
            e = next_end(self.kind, s, i, n)
            self.counts[string(<const char*>s + i, e - i)] += 1
            i = e

    def update(self, ChunkCounter other):
        """Add another counter's counts to this one (the reduce step)."""
        for kv in other.counts:
            self.counts[kv.first] += kv.second

    def __len__(self):
        return self.counts.size()

    def to_dict(self):
        """The counts as a dict: chunk bytes -> count."""
        return {kv.first: kv.second for kv in self.counts}


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


cdef int _kind(pattern):
    if pattern is None:
        return KIND_NONE
    if pattern == GPT2_PATTERN:
        return KIND_GPT2
    if pattern == GPT4_PATTERN:
        return KIND_GPT4
    if pattern == O200K_PATTERN:
        return KIND_O200K
    return KIND_REGEX


cdef _check_parts(uint32_t* out, Py_ssize_t m, chunk):
    for k in range(m):
        if out[k] == NO_RANK:
            raise KeyError(f"a byte of {chunk!r} is not in the vocabulary")


# =============================================================================
# The character-class table, computed from the ``regex`` module
# =============================================================================

_tables_lock = threading.Lock()
cdef uint8_t* CLS = NULL          # code point -> F_* bits, for all 0x110000 code points
cdef uint8_t CI_ASCII[128]        # ASCII code point -> the contraction letter it equals under (?i), or 0
cdef uint32_t CI_EXTRA_CP[16]     # non-ASCII code points that equal one of them under (?i) (e.g. U+017F)
cdef uint8_t CI_EXTRA_CH[16]
cdef int N_CI_EXTRA = 0


def _build_tables():
    """Fill ``CLS`` and the (?i) letter table by running the ``regex`` module itself
    over a string of every code point (~0.3 s, once per process).

    Asking ``regex`` rather than ``unicodedata`` matters: the two follow different
    Unicode versions, and ``regex``'s ``\\s`` is not ``str.isspace`` (U+001C-U+001F).
    """
    if CLS != NULL:
        return
    with _tables_lock:
        # subtle: two threads may start at once (corpus.count_chunk_bytes starts one
        # counter per core); without the lock the second rebuilds CI_ASCII while the
        # first is already scanning with it
        if CLS == NULL:
            _fill_tables()


cdef _fill_tables():
    global CLS, N_CI_EXTRA
    import regex

    import array

    # every code point in one string, built from a UTF-32 buffer: "".join(map(chr, ...))
    # gives the same string but holds 1.1 million str objects (~100 MB) on the way
    every = array.array("I", range(0x110000)).tobytes().decode("utf-32-le", "surrogatepass")
    cdef uint8_t* table = <uint8_t*>calloc(0x110000, 1)
    if table == NULL:
        raise MemoryError()
    cdef Py_ssize_t a, b, c
    cdef uint8_t bit
    for flag, cls in CLASSES.items():
        bit = flag
        for m in regex.finditer(cls + "+", every):
            a, b = m.span()
            for c in range(a, b):
                table[c] |= bit
    extra = []
    memset(CI_ASCII, 0, sizeof(CI_ASCII))
    for letter in CONTRACTION_LETTERS:
        for m in regex.finditer(f"(?i:{regex.escape(letter)})", every):
            c = m.start()
            if c < 128:
                CI_ASCII[c] = ord(letter)
            else:
                extra.append((c, ord(letter)))
    if len(extra) > 16:
        free(table)
        raise RuntimeError(f"regex's case folding gives {len(extra)} non-ASCII contraction letters; raise the limit")
    for k, (c, letter) in enumerate(extra):
        CI_EXTRA_CP[k] = c
        CI_EXTRA_CH[k] = letter
    N_CI_EXTRA = len(extra)
    CLS = table  # last: a thread that sees CLS set finds every table complete


def _class_of(str ch):
    """The F_* bits of one character (for tests)."""
    _build_tables()
    return CLS[ord(ch)]


# =============================================================================
# Hash table: bytes -> (v0, v1), open addressing, keys copied into an arena
# =============================================================================

cdef inline uint64_t load_head(const uint8_t* p, size_t n) noexcept nogil:
    """The first min(n, 8) bytes of p as one zero-padded word (never reads past p + n)."""
    cdef uint64_t w = 0
    cdef size_t k
    if n >= 8:
        memcpy(&w, p, 8)
        return w
    for k in range(n):
        w |= (<uint64_t>p[k]) << (8 * k)
    return w


cdef inline uint64_t hash_bytes(const uint8_t* p, size_t n, uint64_t head) noexcept nogil:
    """A fast multiply-xorshift hash, 8 bytes a round (most keys are one round)."""
    cdef uint64_t h = (n * <uint64_t>0x9E3779B97F4A7C15ULL ^ head) * <uint64_t>0xFF51AFD7ED558CCDULL
    cdef size_t i = 8
    while i < n:
        h ^= h >> 32
        h = (h ^ load_head(p + i, n - i)) * <uint64_t>0xFF51AFD7ED558CCDULL
        i += 8
    h ^= h >> 33
    h *= <uint64_t>0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    return h


cdef inline Key make_key(const uint8_t* p, size_t n) noexcept nogil:
    cdef Key k
    k.p = p
    k.n = n
    k.head = load_head(p, n)
    k.h = hash_bytes(p, n, k.head)
    return k


cdef int table_init(Table* t, size_t cap) noexcept nogil:
    t.slots = <Slot*>calloc(cap, sizeof(Slot))
    t.mask = cap - 1
    t.used = 0
    t.arena_n = t.ids_n = 0
    return -1 if t.slots == NULL else 0


cdef void table_free(Table* t) noexcept nogil:
    free(t.slots)
    free(t.arena)
    free(t.ids)
    memset(t, 0, sizeof(Table))


cdef void table_clear(Table* t) noexcept nogil:
    memset(t.slots, 0, (t.mask + 1) * sizeof(Slot))
    t.used = t.arena_n = t.ids_n = 0


cdef inline Slot* table_find(const Table* t, const Key* k) noexcept nogil:
    """The slot holding the key, or NULL. Linear probing from the hash's low bits."""
    cdef size_t i = k.h & t.mask
    cdef uint32_t tag = <uint32_t>(k.h >> 32)
    cdef Slot* s
    while True:
        s = &t.slots[i]
        if s.klen == 0:
            return NULL
        if (s.tag == tag and s.klen == k.n and s.head == k.head
                and (k.n <= 8 or memcmp(t.arena + s.koff + 8, k.p + 8, k.n - 8) == 0)):
            return s
        i = (i + 1) & t.mask


cdef inline uint32_t rank_of(const Table* t, const uint8_t* p, size_t n) noexcept nogil:
    cdef Key k = make_key(p, n)
    cdef Slot* s = table_find(t, &k)
    return NO_RANK if s == NULL else s.v0


cdef int grow(void** buf, size_t* cap, size_t need, size_t item) noexcept nogil:
    """Make room for ``need`` items in a realloc'd buffer (doubling)."""
    cdef size_t c = cap[0]
    cdef void* q
    if need <= c:
        return 0
    if c < 64:
        c = 64
    while c < need:
        c *= 2
    q = realloc(buf[0], c * item)
    if q == NULL:
        return -1
    buf[0] = q
    cap[0] = c
    return 0


cdef int table_insert(Table* t, const Key* k, uint32_t v0, uint32_t v1) noexcept nogil:
    """Add a key that is not in the table yet; doubles the slots past half full."""
    cdef size_t i, j, cap
    cdef Slot* old
    if 2 * (t.used + 1) > t.mask + 1:
        old = t.slots
        cap = 2 * (t.mask + 1)
        t.slots = <Slot*>calloc(cap, sizeof(Slot))
        if t.slots == NULL:
            t.slots = old
            return -1
        for i in range(t.mask + 1):
            if old[i].klen:
                # the slot index comes from the low bits of the hash: recompute it
                j = hash_bytes(t.arena + old[i].koff, old[i].klen, old[i].head) & (cap - 1)
                while t.slots[j].klen:
                    j = (j + 1) & (cap - 1)
                t.slots[j] = old[i]
        t.mask = cap - 1
        free(old)
    if grow(<void**>&t.arena, &t.arena_cap, t.arena_n + k.n, 1) < 0:
        return -1
    memcpy(t.arena + t.arena_n, k.p, k.n)
    cdef Slot new
    new.tag = <uint32_t>(k.h >> 32)
    new.klen = k.n
    new.head = k.head
    new.koff = t.arena_n
    new.v0 = v0
    new.v1 = v1
    t.arena_n += k.n
    t.used += 1
    i = k.h & t.mask
    while t.slots[i].klen:
        i = (i + 1) & t.mask
    t.slots[i] = new
    return 0


# =============================================================================
# The merge loop (tiktoken's rank rule, as bpe_encode_chunk)
# =============================================================================
#
# Why it is fast (measured on a 2-core x86-64 machine, busy with other jobs,
# 10 MB of CPython stdlib sources, cl100k_base; benchmarks/encode_speed.py):
#   * The split comes first. The ``regex`` module finds GPT-4's chunks at 4-12 MB/s,
#     about tiktoken's speed for the whole encode, so merging fast behind it could not
#     beat tiktoken. The scanners (below) cut the same chunks for a few percent of the
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

cdef Py_ssize_t bpe_merge(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """Rank-merge s[0:n] into ``out`` (room for n ids); the number of ids, or -1."""
    if n <= SMALL:
        return bpe_small(R, s, n, out)
    return bpe_large(R, s, n, out)


cdef Py_ssize_t bpe_small(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """bpe_encode_chunk's loop: part k is s[start[k] : start[k+1]]; rk[k] is the rank of
    joining parts k and k+1. Each step joins the lowest rank, leftmost first.

    s=b"abcd", ranks ab:256 bc:257 abc:258 -> parts a|b|c|d, then ab|c|d, then abc|d -> [258, 100]
    """
    cdef uint32_t start[SMALL + 1]
    cdef uint32_t rk[SMALL]
    cdef Py_ssize_t m = n, k, best_k
    cdef uint32_t best
    for k in range(n):
        start[k] = k
    start[n] = n
    for k in range(n - 1):
        rk[k] = rank_of(R, s + k, 2)
    while m > 1:
        # the lowest pair rank; strict "<" keeps the leftmost of equal ranks
        best = NO_RANK
        best_k = -1
        for k in range(m - 1):
            if rk[k] < best:
                best = rk[k]
                best_k = k
        if best_k < 0:
            break
        # join parts best_k and best_k + 1: drop start[best_k + 1] and its pair rank
        for k in range(best_k + 1, m):
            start[k] = start[k + 1]
        for k in range(best_k + 1, m - 2):
            rk[k] = rk[k + 1]
        m -= 1
        # the joined part pairs anew with its right and its left neighbour
        if best_k + 1 < m:
            rk[best_k] = rank_of(R, s + start[best_k], start[best_k + 2] - start[best_k])
        else:
            rk[best_k] = NO_RANK
        if best_k > 0:
            rk[best_k - 1] = rank_of(R, s + start[best_k - 1], start[best_k + 1] - start[best_k - 1])
    for k in range(m):
        out[k] = rank_of(R, s + start[k], start[k + 1] - start[k])
    return m


cdef inline void heap_push(uint64_t* heap, Py_ssize_t* size, uint64_t key) noexcept nogil:
    cdef Py_ssize_t i = size[0], parent
    size[0] += 1
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= key:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = key


cdef inline uint64_t heap_pop(uint64_t* heap, Py_ssize_t* size) noexcept nogil:
    cdef uint64_t top = heap[0], last
    cdef Py_ssize_t i = 0, child, n
    size[0] -= 1
    n = size[0]
    last = heap[n]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last
    return top


cdef Py_ssize_t bpe_large(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """The same rule for long chunks: parts form a linked list by start offset; a
    min-heap holds (rank << 32 | start), so it pops the lowest rank, then the leftmost.
    An entry is stale when the part's current pair rank differs (joined parts get NO_RANK).
    """
    cdef uint32_t* nxt = <uint32_t*>malloc((n + 1) * sizeof(uint32_t))
    cdef uint32_t* prv = <uint32_t*>malloc((n + 1) * sizeof(uint32_t))
    cdef uint32_t* rk = <uint32_t*>malloc((n + 1) * sizeof(uint32_t))
    cdef uint64_t* heap = <uint64_t*>malloc((3 * n + 1) * sizeof(uint64_t))
    cdef Py_ssize_t size = 0, p, q, nq, pp, m = 0
    cdef uint64_t key
    cdef uint32_t r
    if n >= NO_RANK or nxt == NULL or prv == NULL or rk == NULL or heap == NULL:  # offsets are 32-bit
        free(nxt); free(prv); free(rk); free(heap)
        return -1
    for p in range(n):
        nxt[p] = p + 1
        prv[p] = p - 1 if p > 0 else 0
        rk[p] = rank_of(R, s + p, 2) if p + 1 < n else NO_RANK
        if rk[p] != NO_RANK:
            heap_push(heap, &size, (<uint64_t>rk[p] << 32) | <uint64_t>p)
    while size > 0:
        key = heap_pop(heap, &size)
        r = <uint32_t>(key >> 32)
        p = <Py_ssize_t>(key & 0xFFFFFFFFu)
        if rk[p] != r:
            continue  # stale
        # join p with its right neighbour q
        q = nxt[p]
        nq = nxt[q]
        nxt[p] = nq
        if nq < n:
            prv[nq] = p
        rk[q] = NO_RANK
        rk[p] = rank_of(R, s + p, nxt[nq] - p) if nq < n else NO_RANK
        if rk[p] != NO_RANK:
            heap_push(heap, &size, (<uint64_t>rk[p] << 32) | <uint64_t>p)
        if p > 0:
            pp = prv[p]
            rk[pp] = rank_of(R, s + pp, nq - pp)
            if rk[pp] != NO_RANK:
                heap_push(heap, &size, (<uint64_t>rk[pp] << 32) | <uint64_t>pp)
    p = 0
    while p < n:
        out[m] = rank_of(R, s + p, nxt[p] - p)
        m += 1
        p = nxt[p]
    free(nxt); free(prv); free(rk); free(heap)
    return m


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


# =============================================================================
# The scanners: the regex of each named pattern, by hand
# =============================================================================
#
# ``next_end(kind, s, i, n)`` is where the chunk that starts at byte i ends: what
# the regex's next match would be. ``s`` is UTF-8; a code point below 0x80 is its
# own byte (the fast path), any other is decoded and looked up in CLS.
#
# How the regex engine reads an alternation, which every branch below follows:
# it tries the alternatives in order at position i and takes the first that
# matches; inside one, a greedy quantifier first takes all it can and gives back
# one character at a time until the rest matches; a possessive one (``++``,
# ``?+``) never gives back. Every character is L, N, whitespace or P, and each
# pattern's last alternatives match any whitespace, so some alternative always
# matches and the chunks cover the text.

cdef inline uint32_t dec(const uint8_t* s, Py_ssize_t i, int* ln) noexcept nogil:
    """The code point at byte i and its length in bytes (the UTF-8 is valid)."""
    cdef uint32_t b = s[i]
    if b < 0x80:
        ln[0] = 1
        return b
    if b < 0xE0:
        ln[0] = 2
        return ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
    if b < 0xF0:
        ln[0] = 3
        return ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
    ln[0] = 4
    return ((b & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)


cdef inline uint8_t cls_at(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, int* ln) noexcept nogil:
    """The class bits of the code point at byte i (0 past the end)."""
    if i >= n:
        ln[0] = 0
        return 0
    if s[i] < 0x80:
        ln[0] = 1
        return CLS[s[i]]
    return CLS[dec(s, i, ln)]


cdef inline uint8_t ci(uint32_t c) noexcept nogil:
    """The contraction letter ("'", 's', 'd', ...) that c equals under (?i), or 0."""
    cdef int k
    if c < 128:
        return CI_ASCII[c]
    for k in range(N_CI_EXTRA):
        if CI_EXTRA_CP[k] == c:
            return CI_EXTRA_CH[k]
    return 0


cdef inline uint8_t ci_at(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, int* ln) noexcept nogil:
    if i >= n:
        ln[0] = 0
        return 0
    return ci(dec(s, i, ln))


cdef inline Py_ssize_t run(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t bit) noexcept nogil:
    """The end of the run of code points with class ``bit`` starting at byte i (greedy)."""
    cdef int ln
    while i < n:
        if s[i] < 0x80:
            if not (CLS[s[i]] & bit):
                return i
            i += 1
        else:
            if not (CLS[dec(s, i, &ln)] & bit):
                return i
            i += ln
    return i


cdef inline Py_ssize_t run_n3(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """\\p{N}{1,3}: s[i] is a digit; take up to two more."""
    cdef int ln, k
    dec(s, i, &ln)
    i += ln
    for k in range(2):
        if not (cls_at(s, i, n, &ln) & F_N):
            break
        i += ln
    return i


cdef inline Py_ssize_t run_bytes(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, bint slash) noexcept nogil:
    """[\\r\\n]* (slash=False) or [\\r\\n/]* (slash=True), greedy."""
    while i < n and (s[i] == 13 or s[i] == 10 or (slash and s[i] == 47)):
        i += 1
    return i


cdef inline Py_ssize_t ws_run(const uint8_t* s, Py_ssize_t i, Py_ssize_t n,
                              Py_ssize_t* nl_end, Py_ssize_t* last) noexcept nogil:
    """The end of the whitespace run at byte i; also where its last \\r or \\n ends
    (-1 if none) and where its last character starts."""
    cdef int ln
    nl_end[0] = -1
    last[0] = i
    while i < n:
        if s[i] < 0x80:
            if not (CLS[s[i]] & F_S):
                break
            if s[i] == 13 or s[i] == 10:
                nl_end[0] = i + 1
            last[0] = i
            i += 1
        else:
            if not (CLS[dec(s, i, &ln)] & F_S):
                break
            last[0] = i
            i += ln
    return i


cdef Py_ssize_t next_gpt2(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
    cdef int ln, ln2
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c], f2
    cdef Py_ssize_t j = i + ln, k, nl_end, last
    # '(?:[sdmt]|ll|ve|re)          (case-sensitive, ASCII)
    if c == 39 and j < n:
        if s[j] == 115 or s[j] == 100 or s[j] == 109 or s[j] == 116:
            return j + 1
        if j + 1 < n and ((s[j] == 108 and s[j + 1] == 108) or (s[j] == 118 and s[j + 1] == 101)
                          or (s[j] == 114 and s[j + 1] == 101)):
            return j + 2
    # ' ?\p{L}++', ' ?\p{N}++', ' ?[^\s\p{L}\p{N}]++' with the space
    if c == 32 and j < n:
        f2 = cls_at(s, j, n, &ln2)
        if f2 & F_L:
            return run(s, j + ln2, n, F_L)
        if f2 & F_N:
            return run(s, j + ln2, n, F_N)
        if f2 & F_P:
            return run(s, j + ln2, n, F_P)
    # ... and without it
    if f & F_L:
        return run(s, j, n, F_L)
    if f & F_N:
        return run(s, j, n, F_N)
    if f & F_P:
        return run(s, j, n, F_P)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if k == n:          # \s++$
        return n
    if last > i:        # \s+(?!\S): all but the last space, which goes with the next word
        return last
    return j            # \s


cdef Py_ssize_t next_gpt4(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
    # |\s++$|\s*[\r\n]|\s+(?!\S)|\s
    cdef int ln, ln2, ln3
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c], c2, c3
    cdef Py_ssize_t j = i + ln, k, nl_end, last
    # '(?i:[sdmt]|ll|ve|re)
    if c == 39 and j < n:
        c2 = ci_at(s, j, n, &ln2)
        if c2 == 115 or c2 == 100 or c2 == 109 or c2 == 116:
            return j + ln2
        if c2 == 108 or c2 == 118 or c2 == 114:
            c3 = ci_at(s, j + ln2, n, &ln3)
            if (c2 == 108 and c3 == 108) or (c2 != 108 and c3 == 101):
                return j + ln2 + ln3
    # [^\r\n\p{L}\p{N}]?+\p{L}++    (the optional character is not \r, \n, L or N)
    if f & F_L:
        return run(s, j, n, F_L)
    if not (f & F_N) and c != 13 and c != 10 and (cls_at(s, j, n, &ln2) & F_L):
        return run(s, j + ln2, n, F_L)
    # \p{N}{1,3}+
    if f & F_N:
        return run_n3(s, i, n)
    # ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
    if c == 32 and (cls_at(s, j, n, &ln2) & F_P):
        return run_bytes(s, run(s, j + ln2, n, F_P), n, False)
    if f & F_P:
        return run_bytes(s, run(s, j, n, F_P), n, False)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if k == n:          # \s++$
        return n
    if nl_end >= 0:     # \s*[\r\n]: greedy \s* gives back until a \r or \n can follow
        return nl_end
    if last > i:        # \s+(?!\S)
        return last
    return j            # \s


cdef inline Py_ssize_t o200k_contraction(const uint8_t* s, Py_ssize_t p, Py_ssize_t n) noexcept nogil:
    """(?i:'s|'t|'re|'ve|'m|'ll|'d)? at byte p: where it ends (p when absent)."""
    cdef int ln, ln2, ln3
    cdef uint8_t c2, c3
    if ci_at(s, p, n, &ln) != 39:
        return p
    c2 = ci_at(s, p + ln, n, &ln2)
    if c2 == 115 or c2 == 116 or c2 == 109 or c2 == 100:
        return p + ln + ln2
    if c2 == 114 or c2 == 118 or c2 == 108:
        c3 = ci_at(s, p + ln + ln2, n, &ln3)
        if (c2 == 108 and c3 == 108) or (c2 != 108 and c3 == 101):
            return p + ln + ln2 + ln3
    return p


cdef inline Py_ssize_t o200k_lower(const uint8_t* s, Py_ssize_t b, Py_ssize_t n) noexcept nogil:
    """[U]*[W]+(contraction)? at byte b: its end, or -1.

    Greedy [U]* runs to the first non-U at u. If that character is W, [W]+ takes
    the W-run from there. If not, [U]* gives back characters until [W]+ can start:
    at the last W inside the U-run, and [W]+ is that one character.
    """
    cdef int ln
    cdef uint8_t f
    cdef Py_ssize_t u = b, w_end = -1
    while u < n:
        f = cls_at(s, u, n, &ln)
        if not (f & F_U):
            break
        u += ln
        if f & F_W:
            w_end = u
    if cls_at(s, u, n, &ln) & F_W:
        return o200k_contraction(s, run(s, u, n, F_W), n)
    if w_end < 0:
        return -1
    return o200k_contraction(s, w_end, n)


cdef inline Py_ssize_t o200k_upper(const uint8_t* s, Py_ssize_t b, Py_ssize_t n) noexcept nogil:
    """[U]+[W]*(contraction)? at byte b: its end, or -1."""
    cdef Py_ssize_t u = run(s, b, n, F_U)
    if u == b:
        return -1
    return o200k_contraction(s, run(s, u, n, F_W), n)


cdef Py_ssize_t next_o200k(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # [^\r\n\p{L}\p{N}]?[U]*[W]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    # |[^\r\n\p{L}\p{N}]?[U]+[W]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    # |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
    # with U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]
    cdef int ln, ln2
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c]
    cdef Py_ssize_t j = i + ln, e, k, nl_end, last
    # may c be the optional [^\r\n\p{L}\p{N}]? It is greedy: first with it, then without
    cdef bint prefix = not (f & (F_L | F_N)) and c != 13 and c != 10 and j < n
    if prefix:
        e = o200k_lower(s, j, n)
        if e >= 0:
            return e
    e = o200k_lower(s, i, n)
    if e >= 0:
        return e
    if prefix:
        e = o200k_upper(s, j, n)
        if e >= 0:
            return e
    e = o200k_upper(s, i, n)
    if e >= 0:
        return e
    # \p{N}{1,3}
    if f & F_N:
        return run_n3(s, i, n)
    # ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
    if c == 32 and (cls_at(s, j, n, &ln2) & F_P):
        return run_bytes(s, run(s, j + ln2, n, F_P), n, True)
    if f & F_P:
        return run_bytes(s, run(s, j, n, F_P), n, True)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if nl_end >= 0:     # \s*[\r\n]+: up to the run's last \r or \n
        return nl_end
    if k == n:          # \s+(?!\S) at the end of the text
        return n
    if last > i:        # \s+(?!\S)
        return last
    return k            # \s+ (one character here)


cdef inline Py_ssize_t next_end(int kind, const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    if kind == KIND_GPT4:
        return next_gpt4(s, i, n)
    if kind == KIND_O200K:
        return next_o200k(s, i, n)
    return next_gpt2(s, i, n)
