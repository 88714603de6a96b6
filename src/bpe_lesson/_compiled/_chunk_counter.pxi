# The trainer's front end, compiled: count the chunks of texts, cut as the
# encoder cuts them (``cut_block``: the window scanner, then the hand-written
# scanners). Included by _native.pyx after _window_cut.pxi
# (``include "_chunk_counter.pxi"``); ``chunks.compiled_counter`` hands it out.
#
# The counts live in the encoder's hash table (_hashtable.pxi: open addressing,
# the keys in one arena, the first 8 bytes of a key in its slot), with the count
# in the slot's two 32-bit values. It replaced a C++ unordered_map<string, long
# long>, which made a string per chunk to look it up: on one core, counting 10 MB
# of code with GPT-4's pattern went from 50 to 110 MB/s (prose, the Bible and
# text in many scripts: 2.1-3.6x; both counters cutting with the window scanner).
#
# What this file does not do: cut out special tokens (the caller passes the
# pieces between them), or count with a custom regex (``chunks.count_chunks``).

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport uint8_t, uint64_t



cdef class ChunkCounter:
    """Count the chunks of texts for training: UTF-8 chunk -> count, kept in C.

    ``chunks.count_chunk_bytes`` and ``scale.counting`` use it for the three named patterns and for
    ``pattern=None``. Counting with ``regex.findall`` + ``Counter`` makes one Python
    string per chunk (2.3 million for 10 MB of code) and holds the GIL throughout;
    here the scanner and the hash table run with the GIL released, so threads, one
    counter each, use every core without forking, and only the unique chunks
    (~50,000) ever become Python objects, in ``to_dict``.

    >>> c = ChunkCounter("gpt4"); c.add("the cat and the hat"); sorted(c.to_dict().items())
    [(b' and', 1), (b' cat', 1), (b' hat', 1), (b' the', 1), (b'the', 1)]
    """
    cdef Table counts   # chunk bytes -> count (slot.v0: the low 32 bits, slot.v1: the high)
    cdef int kind

    def __cinit__(self):
        memset(&self.counts, 0, sizeof(Table))
        if table_init(&self.counts, 1024) < 0:
            raise MemoryError()

    def __dealloc__(self):
        table_free(&self.counts)

    def __init__(self, pattern):
        self.kind = _kind(_named(pattern))
        if self.kind == KIND_REGEX:
            raise ValueError("ChunkCounter scans only the named patterns (gpt2, gpt4, o200k) or None")
        if self.kind >= KIND_GPT2:
            _build_tables()

    def add(self, str text):
        """Count the chunks of one piece of text (special tokens already cut out)."""
        data = text.encode("utf-8")  # lone surrogates raise here, as in the regex path
        cdef const uint8_t* s = <const uint8_t*>PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        cdef int status
        with nogil:
            status = self._count(s, n)
        self._check(status)

    cdef _check(self, int status):
        if status == -2:
            raise MemoryError("a ChunkCounter holds at most 4 GiB of distinct chunk bytes; "
                              "count the text in parts and merge the dicts")
        if status < 0:
            raise MemoryError()

    cdef int _count(self, const uint8_t* s, Py_ssize_t n) noexcept nogil:
        """Count the chunks of s[0:n]; 0, or -1 (out of memory) or -2 (arena full)."""
        cdef Py_ssize_t i = 0, start = 0
        cdef Py_ssize_t ends[64 + CUT_SLACK]
        cdef int nb, j, status
        if n == 0:
            return 0
        if self.kind == KIND_NONE:
            return count_add(&self.counts, s, n, 1)
        while i < n:
            nb = cut_block(self.kind, s, n, &i, ends, 64)
            for j in range(nb):
                status = count_add(&self.counts, s + start, ends[j] - start, 1)
                if status < 0:
                    return status
                start = ends[j]
        return 0

    def update(self, ChunkCounter other):
        """Add another counter's counts to this one (the reduce step)."""
        cdef size_t i
        cdef const Slot* sl
        for i in range(other.counts.mask + 1):
            sl = &other.counts.slots[i]
            if sl.klen:
                self._check(count_add(&self.counts, other.counts.arena + sl.koff, sl.klen, slot_count(sl)))

    def __len__(self):
        return self.counts.used

    def to_dict(self):
        """The counts as a dict: chunk bytes -> count."""
        cdef size_t i
        cdef const Slot* sl
        out = {}
        for i in range(self.counts.mask + 1):
            sl = &self.counts.slots[i]
            if sl.klen:
                out[PyBytes_FromStringAndSize(<const char*>self.counts.arena + sl.koff, sl.klen)] = slot_count(sl)
        return out


cdef inline uint64_t slot_count(const Slot* sl) noexcept nogil:
    return (<uint64_t>sl.v1 << 32) | sl.v0


cdef int count_add(Table* t, const uint8_t* p, size_t n, uint64_t c) noexcept nogil:
    """Add c to the count of chunk p[0:n]; 0, or -1 (out of memory) or -2 (the
    arena's 32-bit offsets are used up)."""
    cdef Key k = make_key(p, n)
    cdef Slot* sl = table_find(t, &k)
    if sl != NULL:
        c += slot_count(sl)
        sl.v0 = <uint32_t>c
        sl.v1 = <uint32_t>(c >> 32)
        return 0
    if t.arena_n + n > 0xFFFFFFFFULL:
        return -2
    return table_insert(t, &k, <uint32_t>c, <uint32_t>(c >> 32))
