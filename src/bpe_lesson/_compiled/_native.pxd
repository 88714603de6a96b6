# The shared pieces of the one compiled extension (_native.pyx), declared once.
#
# Both halves of the extension use these: the encoder (_encoder.pxi, its
# vocabulary table and chunk cache, the scanners for split_chunks and
# encode_text) and the trainer (_chunk_counter.pxi counts chunks in the same
# table, cut by the same scanners). Each is defined once, in the .pxi named
# beside it, and compiled once; another extension could ``cimport`` them from here.
#
# What this file does not declare: the inline helpers (a .pxd would need their
# bodies), the encoder's and the trainer's own classes, or C written in
# ``cdef extern from *`` blocks.

from libc.stdint cimport uint8_t, uint32_t, uint64_t

# ---- the hash table (_hashtable.pxi): bytes -> (v0, v1), open addressing

cdef struct Slot:
    uint64_t head    # the key's bytes 0-7 and 8-15 (zero-padded): a key of up to 16
    uint64_t mid     # bytes compares without the arena (mid is 0 for one of up to 8)
    uint32_t klen    # key length in bytes; 0 marks an empty slot
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
    uint32_t* small_ranks  # rank table only: the rank of every 1- and 2-byte string, or NO_RANK
                       # (small_ranks[b], small_ranks[256 + 256 * b0 + b1]); NULL in the chunk cache
    uint32_t* space_runs   # rank table only: the ids of a run of L spaces (space_runs_fill in
                       # _encode_text.pxi); NULL in the chunk cache
    uint64_t* filter       # rank table only: which keys may be in it
    size_t filter_mask     # (table_filter); NULL in the chunk cache

cdef struct Key:
    const uint8_t* p
    size_t n
    uint64_t h       # hash_bytes(p, n)
    uint64_t head    # load_head(p, n)
    uint64_t mid     # load_head(p + 8, n - 8), or 0 when n <= 8

cdef int table_init(Table* t, size_t cap) noexcept nogil
cdef void table_free(Table* t) noexcept nogil
cdef void table_clear(Table* t) noexcept nogil
cdef int table_reserve(Table* t, size_t entries) noexcept nogil
cdef int table_rehash(Table* t, size_t cap) noexcept nogil
cdef int table_insert(Table* t, const Key* k, uint32_t v0, uint32_t v1) noexcept nogil
cdef int table_small_ranks(Table* t) noexcept nogil
cdef int table_filter(Table* t) noexcept nogil
cdef Slot* slots_new(size_t cap) noexcept nogil
cdef void slots_free(Slot* slots, size_t cap) noexcept nogil
cdef int grow(void** buf, size_t* cap, size_t need, size_t item) noexcept nogil

# ---- the scanners (_scanners.pxi): where the chunk that starts at s[i] ends

cdef int _kind(pattern)
cdef Py_ssize_t next_gpt2(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil
cdef Py_ssize_t next_gpt4(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil
cdef Py_ssize_t next_o200k(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil
