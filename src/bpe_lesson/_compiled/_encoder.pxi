# The encoder, compiled (part of the one extension, ``_native.pyx``): same names and the same ids as the readable Python path.
#
# Read ``byte_pair_merge`` in ``ranks.py``, ``Tokenizer.encode_ordinary`` in ``tokenizer.py`` and
# ``split_chunks`` in ``patterns.py`` first. This file does the same three steps (cut
# the text into chunks, look each chunk up, rank-merge the ones that are not a token)
# with C data and without the interpreter:
#
# * ``Encoder(ranks, pattern)`` with ``.encode_ordinary(text)``, ``.encode_to_numpy(text)``,
#   ``.encode_batch(texts)`` and ``.encode_chunk(chunk)``: what ``Tokenizer`` calls
#   when its backend is "cython"; ``.find_special(_batch)``, ``.helper(k)`` and
#   ``track_lists`` serve ``Tokenizer.encode`` and ``encode_batch``.
# * ``bpe_encode_chunk(chunk, ranks)`` and ``split_chunks(text, pattern)``: the same
#   functions as the Python ones, for tests and for readers who want to compare.
#
# For the three named patterns (gpt2, gpt4, o200k) a hand-written scanner replaces
# the regex. Each scanner is that regex transcribed alternative by alternative,
# over a table of character classes taken from tiktoken's own regex engine
# (``_internal/char_classes.py``), so the two agree on every code point; tests/test_scanner.py
# checks the chunks against ``regex.findall`` and Hugging Face's regex engine on random and
# real text. Any other pattern is split by the ``regex`` module, as in Python.
#
# What this file does not do: count chunks for training (``ChunkCounter`` lives
# with the trainer, in ``_chunk_counter.pxi``), special tokens (``Tokenizer.encode``
# cuts them out before it calls ``encode_ordinary``; ``Encoder.find_special`` only
# finds the first one, for its error), decoding (a dict lookup, already fast), or
# encoding text with lone surrogates (like the Python path it raises
# ``UnicodeEncodeError``; ``split_chunks`` lets them through, as the regex does).
#

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp, memcpy, memset

cdef extern from *:
    """
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #include "_simd.h"
    /* The first of the places i + k (bit k of mask) where p[0:m] occurs in s[0:n],
       or NULL: the vector loops below find where its first two bytes match. */
    static inline const char* bpe_find_in(const char* s, size_t n, const char* p, size_t m, size_t i,
                                          unsigned mask) {
        size_t k;
        for (; mask; mask &= mask - 1) {
            k = i + (size_t)__builtin_ctz(mask);
            if (k + m <= n && memcmp(s + k, p, m) == 0) return s + k;
        }
        return NULL;
    }
    /* Where p[0:m] (m >= 2) first occurs in s[0:n] from byte i on, or NULL: 16
       places a step where both p[0] and p[1] match (two compares and one
       movemask), then memcmp. glibc's memmem took 12% of encoding 10 MB of code
       for "<|" (1.2 GB/s). */
    static const char* bpe_find_from(const char* s, size_t n, const char* p, size_t m, size_t i) {
        const char* hit;
    #if defined(__SSE2__)
        const __m128i a = _mm_set1_epi8(p[0]), b = _mm_set1_epi8(p[1]);
        for (; i + 17 <= n; i += 16) {
            unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(
                _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(s + i)), a),
                _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(s + i + 1)), b)));
            if (mask && (hit = bpe_find_in(s, n, p, m, i, mask)) != NULL) return hit;
        }
    #endif
        for (; i + m <= n; i++)
            if (s[i] == p[0] && memcmp(s + i, p, m) == 0) return s + i;
        return NULL;
    }
    #if BPE_HAVE_AVX2
    /* The same, 32 places a step (_simd.h): a text with no special token is read
       at twice the bytes per step (every encode() looks for them first). */
    BPE_T256 static const char* bpe_find_avx2(const char* s, size_t n, const char* p, size_t m) {
        size_t i = 0;
        const char* hit;
        const __m256i a = _mm256_set1_epi8(p[0]), b = _mm256_set1_epi8(p[1]);
        for (; i + 33 <= n; i += 32) {
            unsigned mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(s + i)), a),
                _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(s + i + 1)), b)));
            if (mask && (hit = bpe_find_in(s, n, p, m, i, mask)) != NULL) return hit;
        }
        return bpe_find_from(s, n, p, m, i);
    }
    #endif
    static const char* bpe_find(const char* s, size_t n, const char* p, size_t m) {
        if (n < m) return NULL;
    #if BPE_HAVE_AVX2
        if (bpe_simd_get() > 0) return bpe_find_avx2(s, n, p, m);
    #endif
        return bpe_find_from(s, n, p, m, 0);
    }
    """
    const char* find_bytes "bpe_find"(const char* s, size_t n, const char* p, size_t m) noexcept nogil

import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef object u32_array(const uint32_t* ids, Py_ssize_t n):
    """A new NumPy uint32 array of ids[0:n], made through NumPy's C API.

    Why not ``np.empty`` and the buffer protocol: on a 10-character document those
    cost ~390 ns of a ~670 ns call (a Python-level call, its keyword and dtype
    handling, then a buffer view), where ``PyArray_SimpleNew`` and a ``memcpy``
    cost well under 100 ns; gigatoken's whole call took ~720 ns
    (``benchmarks/per_call.py``).
    """
    cdef cnp.npy_intp dim = n
    arr = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_UINT32)
    if n:
        memcpy(cnp.PyArray_DATA(<cnp.ndarray>arr), ids, n * sizeof(uint32_t))
    return arr

from ..patterns import compile_pattern, resolve_pattern

cdef extern from "Python.h":
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    object PyList_New(Py_ssize_t n)
    void incref "Py_INCREF"(PyObject* o)
    void PyList_SET_ITEM(object lst, Py_ssize_t k, PyObject* item)  # steals the reference to item
    void PyObject_GC_Track(PyObject* o)
    void PyObject_GC_UnTrack(PyObject* o)
    int PyObject_GC_IsTracked(PyObject* o)

cdef extern from *:
    """
    /* The item array of a list. */
    static inline PyObject** bpe_list_items(PyObject* l) { return ((PyListObject*)l)->ob_item; }
    /* A list of n items whose item array is allocated but not zeroed (PyList_New
       zeroes it, under the GIL): every item must be written before anyone but the
       maker sees the list, and until then its size stays 0 (bpe_list_filled). */
    static PyObject* bpe_list_unfilled(Py_ssize_t n) {
        PyObject* l = PyList_New(0);
        if (l == NULL || n == 0) return l;
        PyObject** items = (PyObject**)PyMem_Malloc((size_t)n * sizeof(PyObject*));
        if (items == NULL) { Py_DECREF(l); return PyErr_NoMemory(); }
        ((PyListObject*)l)->ob_item = items;
        ((PyListObject*)l)->allocated = n;
        return l;
    }
    /* Once its items are written: the list's size becomes its allocated n. */
    static inline void bpe_list_filled(PyObject* l) { Py_SET_SIZE(l, ((PyListObject*)l)->allocated); }
    /* c more references to o in one step: what c Py_INCREFs do (on an immortal
       object, 3.12+, nothing; a free-threaded build has no single count to add to). */
    static inline void bpe_add_refs(PyObject* o, Py_ssize_t c) {
    #ifdef Py_GIL_DISABLED
        while (c-- > 0) Py_INCREF(o);
    #else
        Py_SET_REFCNT(o, Py_REFCNT(o) + c);
    #endif
    }
    """
    PyObject** list_items "bpe_list_items"(PyObject* l) noexcept nogil
    object list_unfilled "bpe_list_unfilled"(Py_ssize_t n)
    void list_filled "bpe_list_filled"(PyObject* l) noexcept
    void add_refs "bpe_add_refs"(PyObject* o, Py_ssize_t c) noexcept



cdef size_t cache_entries = 1 << 18   # the chunk cache starts over when it holds this many chunks
cdef size_t cache_bytes = 1 << 26     # ... or this many bytes of chunk text


def _set_cache_limits(entries=1 << 18, nbytes=1 << 26):
    """Change when chunk caches start over (tests use tiny limits); returns the old ones."""
    global cache_entries, cache_bytes
    old = (cache_entries, cache_bytes)
    cache_entries, cache_bytes = entries, nbytes
    return old


cdef size_t keep_ids = 1 << 24          # an encoder keeps its output buffer between calls up to this many ids
cdef size_t few_ids = 1024              # lists of fewer ids in all are made the plain way (as_list)


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
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, start = 0
    cdef Py_ssize_t ends[BLOCK + CUT_SLACK]
    cdef int nb, j
    out = []
    while i < n:
        nb = cut_block(kind, s, n, &i, ends, BLOCK)
        for j in range(nb):
            out.append(data[start:ends[j]].decode("utf-8", "surrogatepass"))
            start = ends[j]
    return out


cdef class _Ranks:
    """The vocabulary as a C hash table: token bytes -> rank. Never changes once built."""
    cdef Table t
    cdef readonly object ranks   # the dict it was built from (for pickling)
    cdef list ints               # ints[i] is the Python int i, for every rank i: lists are built from these
    cdef PyObject** int_items    # ... and their addresses, for the loop that builds a list
    cdef int front_ids           # the most ids a front-cache entry holds: packed ones need ids < 2^18

    def __dealloc__(self):
        table_free(&self.t)
        free(self.int_items)

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
        if table_small_ranks(&self.t) < 0 or table_filter(&self.t) < 0:
            raise MemoryError()
        if self.has_all_bytes() and space_runs_fill(&self.t) < 0:
            raise MemoryError()
        # one int object per rank, made once: a list of ids then holds references to
        # these instead of a new object per id (which cost ~17% of encode_ordinary);
        # not for a sparse table (ranks far above its size), whose lists make their ints
        top = max(ranks.values(), default=-1) + 1
        self.front_ids = FRONT_PACKED_IDS if CAN_PACK and top <= (1 << 18) else FRONT_IDS
        if top <= 4 * len(ranks) + 1024:
            self.ints = list(range(top))
            self.int_items = <PyObject**>malloc(max(top, 1) * sizeof(PyObject*))
            if self.int_items == NULL:
                raise MemoryError()
            for i, obj in enumerate(self.ints):
                self.int_items[i] = <PyObject*>obj

    cdef list as_list(self, const uint32_t* ids, Py_ssize_t m):
        """A Python list of the ids ``ids[0:m]`` (every one a rank of this table)."""
        cdef Py_ssize_t k
        cdef PyObject* o
        if self.int_items == NULL:
            return [ids[k] for k in range(m)]
        lst = PyList_New(m)
        for k in range(m):
            o = self.int_items[ids[k]]
            incref(o)
            PyList_SET_ITEM(lst, k, o)
        return lst

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

    Holds a cache of chunk -> ids and an output buffer. Safe to share between
    threads: while one thread is inside ``encode_ordinary`` (without the GIL),
    another gets a spare encoder with its own caches over the same vocabulary table.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> Encoder(ranks, None).encode_ordinary("abcab")
    [257, 256]
    >>> Encoder(ranks, None).encode_to_numpy("abcab")
    array([257, 256], dtype=uint32)
    """
    cdef _Ranks R
    cdef Table cache
    cdef FrontTable front
    cdef IdBuf buf
    cdef readonly object pattern
    cdef int kind
    cdef object findall
    cdef bint busy
    cdef list spare
    cdef list helpers            # helper(k) for k >= 1: copies kept for the threads of a batch
    cdef uint32_t* uses          # uses[i]: how many times id i is in the lists being made (see _lists)
    cdef uint32_t* touched       # the ids whose uses are not 0, in the order first seen

    def __cinit__(self):
        memset(&self.cache, 0, sizeof(Table))
        memset(&self.buf, 0, sizeof(IdBuf))
        self.uses = NULL
        self.touched = NULL
        if front_new(&self.front, FRONT_BITS) < 0:
            raise MemoryError()
        self.busy = False
        self.spare = []
        self.helpers = []

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
        front_free(&self.front)
        free(self.buf.p)
        free(self.uses)
        free(self.touched)

    def __reduce__(self):
        return (Encoder, (self.R.ranks, self.pattern))

    def copy(self):
        """A new encoder on the same vocabulary table, with empty caches."""
        cdef Encoder e = Encoder.__new__(Encoder)
        e.R = self.R
        e._set_pattern(self.pattern)
        if table_init(&e.cache, 1024) < 0:
            raise MemoryError()
        return e

    def helper(self, Py_ssize_t k):
        """Encoder k of a batch's threads: this one for k = 0; for k >= 1, a copy made
        the first time and kept with this one, so that the thread that encodes its
        shares with it finds the caches it warmed in the last batch (a spare from
        ``_claim`` goes to whichever thread asks, and a share then runs on a core
        whose L2 holds the other encoder's entries)."""
        if k < 0:
            raise ValueError(f"helper number must be 0 or more, got {k}")
        if k == 0:
            return self
        while len(self.helpers) < k:
            self.helpers.append(self.copy())
        return self.helpers[k - 1]

    def _front_size(self):
        """(entries of the front cache, entries it has pushed out since it was made): for tests."""
        return 1 << self.front.bits, self.front.evictions

    def _front_held(self):
        """How many front-cache entries hold a chunk: for tests."""
        cdef size_t k, held = 0
        for k in range(<size_t>1 << self.front.bits):
            held += self.front.e[k].klen != 0
        return held

    def _cache_size(self):
        """(slots of the chunk cache, chunks it holds): for tests."""
        return self.cache.mask + 1, self.cache.used

    def encode_chunk(self, str chunk):
        """Ids of one pre-tokenized chunk (cached), as ``Tokenizer.encode_chunk``."""
        cdef Encoder e = self._claim()
        try:
            e._encode_chunk(chunk)
            return e._list()
        finally:
            self._release(e)

    def encode_ordinary(self, str text):
        """Encode text with no special-token handling, as ``Tokenizer.encode_ordinary``."""
        cdef Encoder e = self._claim()
        try:
            e._encode_ordinary(text)
            return e._list()
        finally:
            self._release(e)

    def encode_to_numpy(self, str text):
        """``encode_ordinary`` as a NumPy uint32 array, with no Python int made on the way.

        A text of 64 KB or more that the kept buffer has no room for (a new encoder's
        first call, or a longer text than before) is encoded straight into the array,
        made one id per byte long and then cut to length; otherwise the ids are
        copied out of the kept buffer. Why: a new buffer is memory the kernel has
        never given this process, and each 4 KB page of it costs a fault and a
        zeroing at its first write; going through the buffer paid that twice (the
        buffer, then the array) and a copy. A fresh process encoding the 10 MB of
        code (cl100k_base) took 2,918 page faults in the call, and now 53 (NumPy
        asks for 2 MB pages for its large arrays); its median cold call went from
        110.7 to 104.1 ms (25 alternated pairs of fresh processes). The buffer then
        grows (unwritten), so that the next calls copy from it as before: an array
        one id per byte long, made anew per call, had cost 43 page faults a call
        on the same text, warm, where the copy costs none.
        """
        cdef Encoder e = self._claim()
        cdef IdBuf kept
        cdef Py_buffer view
        cdef Py_ssize_t n = 0
        cdef size_t got
        try:
            if e.kind != KIND_REGEX:   # (a regex encoder converts chunk by chunk, not the whole text)
                # subtle: raises UnicodeEncodeError on a lone surrogate before any buffer is touched
                PyUnicode_AsUTF8AndSize(text, &n)
            if e.kind == KIND_REGEX or n < 65536 or e.buf.cap >= <size_t>(n + FRONT_IDS):
                e._encode_ordinary(text)
                if e.buf.n < 65536:
                    return u32_array(e.buf.p, e.buf.n)
                return e._arrays(&e.buf.n, 1)[0]   # (a long copy lets go of the GIL)
            arr = np.empty(n + FRONT_IDS, dtype=np.uint32)    # room for encode_text, see _encode_ordinary
            PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE)
            kept = e.buf
            e.buf.p = <uint32_t*>view.buf
            e.buf.cap = n + FRONT_IDS
            try:
                e._encode_ordinary(text)
                got = e.buf.n
            finally:
                e.buf = kept
                PyBuffer_Release(&view)
            arr.resize(got, refcheck=False)     # realloc: the pages past the ids go back unwritten
            # the next call on a text this long goes through the kept buffer: its pages,
            # written from then on, stay with the encoder (up to keep_ids ids), where an
            # array as long as the text, made anew per call, would be faulted in again
            if <size_t>(n + FRONT_IDS) <= keep_ids:   # (_release gives a larger buffer back)
                e._room(n + FRONT_IDS)          # (not written here: no page faults yet)
            return arr
        finally:
            self._release(e)

    def encode_unless_special(self, str text, SpecialSearch refuse, bint array=False):
        """``encode_ordinary(text)`` (``array``: ``encode_to_numpy(text)``), or None when
        ``text`` holds one of ``refuse``'s special tokens (None: refuse nothing); the
        caller then raises, naming the token. One call where ``Tokenizer.encode`` had
        made four (the argument sets, the search, the encoding, the array): on a
        70-character document those had cost 3-4 us, three times the encoding.
        subtle: raises UnicodeEncodeError on a lone surrogate, before encoding.

        >>> e = Encoder({bytes([i]): i for i in range(256)})
        >>> s = SpecialSearch(("<|end|>",), "<|")
        >>> e.encode_unless_special("ab", s), e.encode_unless_special("a<|end|>", s)
        ([97, 98], None)
        """
        cdef Py_ssize_t n, which
        cdef const char* at
        cdef const char* s
        cdef Encoder e
        if refuse is not None and refuse.nt:
            s = PyUnicode_AsUTF8AndSize(text, &n)
            if refuse._found(s, n, &at, &which):
                return None
        if array:
            if len(text) >= 16384:
                return self.encode_to_numpy(text)   # its path for long texts (no copy)
            e = self._claim()
            try:
                e._encode_ordinary(text)
                return u32_array(e.buf.p, e.buf.n)
            finally:
                self._release(e)
        e = self._claim()
        try:
            e._encode_ordinary(text)
            return e._list()
        finally:
            self._release(e)

    def encode_utf8(self, data, SpecialSearch refuse, bint array=True):
        """``encode_unless_special(data.decode("utf-8"), refuse, array)`` for UTF-8 bytes
        (any buffer), with no str made: the file's bytes go straight to the scanner.
        None when the compiled encoder does not take them: not valid UTF-8, one of
        ``refuse``'s special tokens in them, or a pattern with no compiled scanner;
        the caller then decodes them and takes the str path, which raises naming the
        byte or the token. Why: a stream read as text was decoded to a str, then each
        stretch turned back into UTF-8 for the scanner; on 64K stretches of prose
        that second conversion had cost a third of the time (387 against 585 MB/s).

        >>> e = Encoder({bytes([i]): i for i in range(256)}, "gpt4")
        >>> e.encode_utf8(b"ab", None, False), e.encode_utf8(b"\\xff", None)
        ([97, 98], None)
        """
        cdef const uint8_t[::1] view = data
        cdef Py_ssize_t n = view.shape[0], which
        cdef const uint8_t* s = &view[0] if n else <const uint8_t*>b""
        cdef const char* at
        cdef Encoder e
        cdef int status = 0
        cdef size_t bad
        if self.kind == KIND_REGEX:
            return None
        with nogil:
            bad = utf8_invalid_at(s, n)
        if bad != <size_t>n:
            return None
        if refuse is not None and refuse.nt and refuse._found(<const char*>s, n, &at, &which):
            return None
        e = self._claim()
        try:
            e.buf.n = 0
            e._room(n + FRONT_IDS)
            with nogil:
                status = encode_text(&e.R.t, &e.cache, &e.front, e.R.front_ids, e.kind, s, n, &e.buf)
            if status < 0:
                raise MemoryError()
            if not array:
                return e._list()
            if e.buf.n < 65536:
                return u32_array(e.buf.p, e.buf.n)
            return e._arrays(&e.buf.n, 1)[0]
        finally:
            self._release(e)

    def encode_batch(self, list texts, bint track=True, bint array=False):
        """``[encode_ordinary(t) for t in texts]``, with all the scanning and merging in
        one stretch without the GIL (so threads that each take a share run in parallel).

        ``track=False``: the lists are left untracked by the cycle collector, for a
        caller that makes a batch in shares and then passes the whole of it to
        ``track_lists``. A collection that starts while the shares are being made
        (another thread's lists count towards starting one) then does not walk
        millions of ids under the GIL: that walk had taken 16-21 ms of a 70 ms
        batch of 10 MB of code on 2 threads, and had kept them from scaling.

        ``array=True``: NumPy uint32 arrays in place of lists (``encode_to_numpy``
        of each text): no int is referenced, so nothing is counted under the GIL,
        and freeing them is one free per text, not one decrement per id.

        >>> Encoder({bytes([i]): i for i in range(256)}).encode_batch(["ab", ""], array=True)
        [array([97, 98], dtype=uint32), array([], dtype=uint32)]
        """
        cdef Encoder e = self._claim()
        try:
            return e._encode_batch(texts, track, array)
        finally:
            self._release(e)

    def find_special(self, str text, tuple longest_first, str prefix):
        """Where the first of the special tokens ``longest_first`` (longest first, all
        beginning with ``prefix``, of 2 bytes or more) is in ``text``: (character
        offset, token), or None. The same answer as ``special_regex(...).search``.

        It searches the text's UTF-8 for the prefix (``bpe_find``, 16 bytes a step,
        or 32 with AVX2; the text's UTF-8 is the one encoding reads next) and tries
        the tokens where it occurs. subtle: raises UnicodeEncodeError on a lone surrogate.

        >>> Encoder({bytes([i]): i for i in range(256)}).find_special("a<|b<|end|>", ("<|end|>",), "<|")
        (4, '<|end|>')
        """
        found = self.find_special_batch([text], longest_first, prefix)
        return None if found is None else found[1:]

    def find_special_batch(self, list texts, tuple longest_first, str prefix):
        """``find_special`` on each text in turn, up to the first that has one: (index
        of that text, character offset, token), or None. The searches of all the
        texts are one stretch without the GIL (from 64 KB in all): the threads of
        ``Tokenizer.encode_batch`` search at once, and do not hand the GIL back and
        forth once per text (which had cost more than the searches).

        >>> Encoder({bytes([i]): i for i in range(256)}).find_special_batch(["<|", "a<|end|>"], ("<|end|>",), "<|")
        (1, 1, '<|end|>')
        """
        cdef Py_ssize_t m = len(texts), nt = len(longest_first), k, j = -1, n, pm, total = 0
        cdef const char* p = PyUnicode_AsUTF8AndSize(prefix, &pm)
        cdef const char* hit = NULL
        if pm < 2:
            raise ValueError(f"find_special needs a prefix of 2 bytes or more, got {prefix!r}")
        raws = [token.encode() for token in longest_first]
        cdef const char** ptrs = <const char**>malloc((m + nt) * sizeof(char*))
        cdef Py_ssize_t* lens = <Py_ssize_t*>malloc((m + nt) * sizeof(Py_ssize_t))
        try:
            if ptrs == NULL or lens == NULL:
                raise MemoryError()
            for k in range(m):  # the texts' UTF-8 (kept by the strs), then the tokens'
                text = texts[k]
                if type(text) is not str:
                    raise TypeError(f"find_special_batch takes a list of str; item {k} is a {type(text).__name__}")
                ptrs[k] = PyUnicode_AsUTF8AndSize(text, &lens[k])
                total += lens[k]
            for k in range(nt):
                ptrs[m + k] = PyBytes_AS_STRING(raws[k])
                lens[m + k] = PyBytes_GET_SIZE(raws[k])
            if total < (1 << 16):
                k = first_special(ptrs, lens, m, nt, p, pm, &hit, &j)
            else:
                with nogil:
                    k = first_special(ptrs, lens, m, nt, p, pm, &hit, &j)
            if k < 0:
                return None
            return k, len(PyUnicode_DecodeUTF8(ptrs[k], hit - ptrs[k], NULL)), longest_first[j]
        finally:
            free(ptrs)
            free(lens)

    cdef Encoder _claim(self):
        """This encoder, or a spare when another thread is using it (decided under the GIL)."""
        if not self.busy:
            self.busy = True
            return self
        return self.spare.pop() if self.spare else self.copy()

    cdef _release(self, Encoder e):
        # a buffer of more than keep_ids ids is given back rather than kept for the next call
        if e.buf.cap > keep_ids:
            free(e.buf.p)
            memset(&e.buf, 0, sizeof(IdBuf))
        e.buf.n = 0
        if e is self:
            self.busy = False
        else:
            self.spare.append(e)

    cdef _room(self, size_t n):
        """Make ``buf`` hold at least n ids."""
        if grow(<void**>&self.buf.p, &self.buf.cap, n, sizeof(uint32_t)) < 0:
            raise MemoryError()

    cdef list _list(self):
        """The ids in ``buf`` as a list."""
        cdef size_t end = self.buf.n
        if end < few_ids:  # (what _lists would do, without its list of one list)
            return self.R.as_list(self.buf.p, end)
        return self._lists(&end, 1, True)[0]

    cdef list _lists(self, const size_t* ends, Py_ssize_t m, bint track):
        """The ids in ``buf`` as m lists: list k holds ids ends[k-1] to ends[k] (from 0).

        Each item is a reference to the table's int object for that id (``R.ints``),
        so making a list writes pointers and counts references, and makes no int.
        Done in three steps, so that threads that each encode a share of a batch
        (``Tokenizer.encode_batch``) do most of it at once:
        1. under the GIL, the lists are made, untracked (the cycle collector, run
           by another thread, does not look into a list being filled), with room
           for their items, not zeroed (PyList_New's zeroing had been ~2% of the
           batch, under the GIL) and a size of 0 until step 3;
        2. without it, their items are written, and ``uses[i]`` counts each id i
           (``touched`` lists the ids seen, so step 3 visits only those);
        3. under the GIL again, each id's int object gets its ``uses[i]`` new
           references in one addition, and the lists are tracked (unless ``track``
           is false: see ``encode_batch``).
        Step 3 touches each distinct id once (some thousands) where one
        ``Py_INCREF`` per id (millions) had to be under the GIL, and had taken
        ~15% of encoding code; see _encode_text.pxi. Fewer than ``few_ids`` ids
        in all (or a sparse vocabulary, without shared ints) take ``as_list``.
        """
        cdef _Ranks R = self.R
        cdef Py_ssize_t k, j = 0, q, nt = 0
        cdef size_t e, top = len(R.ints) if R.ints is not None else 0
        cdef uint32_t i
        cdef PyObject** items
        cdef PyObject** ints = R.int_items
        cdef PyObject** lists
        cdef uint32_t* uses
        cdef uint32_t* touched
        cdef const uint32_t* ids = self.buf.p
        if ints == NULL or self.buf.n < few_ids or self.buf.n >= <size_t>0xFFFFFFFF:
            return [R.as_list(ids + (ends[k - 1] if k else 0), ends[k] - (ends[k - 1] if k else 0))
                    for k in range(m)]
        if self.uses == NULL:
            self.uses = <uint32_t*>calloc(top, sizeof(uint32_t))
            self.touched = <uint32_t*>malloc(top * sizeof(uint32_t))
            if self.uses == NULL or self.touched == NULL:
                free(self.uses)
                free(self.touched)
                self.uses = self.touched = NULL
                raise MemoryError()
        uses, touched = self.uses, self.touched
        out = PyList_New(m)
        lists = list_items(<PyObject*>out)
        for k in range(m):   # 1 (their size stays 0 until their items are written)
            lst = list_unfilled(ends[k] - (ends[k - 1] if k else 0))
            PyObject_GC_UnTrack(<PyObject*>lst)
            incref(<PyObject*>lst)
            PyList_SET_ITEM(out, k, <PyObject*>lst)
        with nogil:          # 2
            for k in range(m):
                items = list_items(lists[k])
                e = ends[k]
                q = 0
                while <size_t>j < e:
                    i = ids[j]
                    items[q] = ints[i]
                    if uses[i] == 0:
                        touched[nt] = i
                        nt += 1
                    uses[i] += 1
                    j += 1
                    q += 1
        for q in range(nt):  # 3
            i = touched[q]
            add_refs(ints[i], uses[i])
            uses[i] = 0
        for k in range(m):
            list_filled(lists[k])
        if track:
            for k in range(m):
                PyObject_GC_Track(lists[k])
        return out

    cdef list _arrays(self, const size_t* ends, Py_ssize_t m):
        """The ids in ``buf`` as m NumPy uint32 arrays, array k holding ids ends[k-1]
        to ends[k] (from 0): made under the GIL (NumPy's C API, see ``u32_array``),
        filled without it (from 64 Ki ids in all; a shorter copy is quicker than
        letting go of the GIL and taking it back)."""
        cdef void** dest = <void**>malloc((m if m else 1) * sizeof(void*))
        cdef Py_ssize_t k
        cdef cnp.npy_intp dim
        if dest == NULL:
            raise MemoryError()
        out = []
        try:
            for k in range(m):
                dim = ends[k] - (ends[k - 1] if k else 0)
                arr = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_UINT32)
                dest[k] = cnp.PyArray_DATA(<cnp.ndarray>arr)
                out.append(arr)
            if m and ends[m - 1] >= 65536:
                with nogil:
                    copy_parts(dest, self.buf.p, ends, m)
            else:
                copy_parts(dest, self.buf.p, ends, m)
        finally:
            free(dest)
        return out

    cdef _encode_chunk(self, str chunk):
        """The ids of one chunk into ``buf``."""
        cdef Py_ssize_t n
        cdef const uint8_t* p = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
        self.buf.n = 0
        self._room(n + FRONT_IDS)
        if n and encode_piece(&self.R.t, &self.cache, p, n, &self.buf) < 0:
            raise MemoryError()

    cdef list _encode_batch(self, list texts, bint track, bint array):
        cdef Py_ssize_t m = len(texts), k, n, total = 0
        cdef int status = 0
        if self.kind == KIND_REGEX or self.kind == KIND_NONE or m == 0:
            out = []
            for text in texts:
                self._encode_ordinary(text)
                out.append(self._arrays(&self.buf.n, 1)[0] if array else self.R.as_list(self.buf.p, self.buf.n))
            return out
        # under the GIL: each text's UTF-8 (an ASCII str is its own), kept alive in `data`
        cdef const uint8_t** ptrs = <const uint8_t**>malloc(m * sizeof(uint8_t*))
        cdef Py_ssize_t* lens = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        cdef size_t* ends = <size_t*>malloc(m * sizeof(size_t))
        data = []
        try:
            if ptrs == NULL or lens == NULL or ends == NULL:
                raise MemoryError()
            for k in range(m):
                text = texts[k]
                if type(text) is not str:
                    raise TypeError(f"encode_batch takes a list of str; item {k} is a {type(text).__name__}")
                # the str's UTF-8, kept by the str (see _encode_ordinary)
                ptrs[k] = <const uint8_t*>PyUnicode_AsUTF8AndSize(text, &n)
                lens[k] = n
                data.append(text)
                total += lens[k]
            self.buf.n = 0
            self._room(total + FRONT_IDS)
            with nogil:
                for k in range(m):
                    status = encode_text(&self.R.t, &self.cache, &self.front, self.R.front_ids, self.kind,
                                         ptrs[k], lens[k], &self.buf)
                    if status < 0:
                        break
                    ends[k] = self.buf.n
            if status < 0:
                raise MemoryError()
            return self._arrays(ends, m) if array else self._lists(ends, m, track)
        finally:
            free(ptrs)
            free(lens)
            free(ends)

    cdef _encode_ordinary(self, str text):
        """The ids of a text into ``buf``."""
        cdef const uint8_t* s
        cdef Py_ssize_t n
        cdef int kind = self.kind, status = 0
        self.buf.n = 0
        if kind == KIND_REGEX:
            for chunk in self.findall(text):
                # subtle: raises UnicodeEncodeError on a lone surrogate, as chunk.encode() does
                s = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
                self._room(self.buf.n + n + FRONT_IDS)
                if n and encode_piece(&self.R.t, &self.cache, s, n, &self.buf) < 0:
                    raise MemoryError()
            return
        # The text's UTF-8: an ASCII str's own bytes; for any other str, a copy that
        # Python makes once and keeps with the str until the str goes, so encoding
        # the same str again skips the conversion (the first time costs what
        # text.encode() costs).
        # subtle: raises UnicodeEncodeError on a lone surrogate, as text.encode() does
        s = <const uint8_t*>PyUnicode_AsUTF8AndSize(text, &n)
        # every chunk gives at most one id per byte: n ids (and FRONT_IDS of slack, see
        # encode_text) is room enough, so the loop never checks
        self._room(n + FRONT_IDS)
        with nogil:
            status = encode_text(&self.R.t, &self.cache, &self.front, self.R.front_ids, kind, s, n, &self.buf)
        if status < 0:
            raise MemoryError()
