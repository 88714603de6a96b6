# The hash table of the compiled encoder: bytes -> (v0, v1), open addressing,
# keys copied into an arena. Included once, by _native.pyx; the encoder's vocabulary
# and chunk cache and the trainer's chunk counter (_chunk_counter.pxi) use it.
#
# The vocabulary (token bytes -> rank) and the chunk cache (chunk bytes -> ids)
# are two tables of this kind; one hash per chunk serves both lookups.
# What this file does not do: delete keys (a table only grows, or is cleared).

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

cdef extern from *:
    """
    #define BPE_NO_RANK 0xFFFFFFFFu
    """
    uint32_t NO_RANK "BPE_NO_RANK"   # "no such token"; every real rank is below it

# Large arrays (the slots of the rank table: 8 MB for GPT-4's vocabulary, 16 MB
# for GPT-4o's; the front cache, 4 MB) are mapped in 2 MB pages where the kernel
# gives them: Linux's transparent huge pages, asked for with madvise (a hint:
# without them, 4 KB pages). A probe lands anywhere in such an array, and in 4 KB
# pages nearly every probe also missed the TLB (64 first-level entries here) and
# walked the page table. The mapping comes zeroed, page by page as it is touched.
cdef extern from *:
    """
    #include <stdlib.h>
    #if defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    #endif
    static void* bpe_big_alloc(size_t n) {    /* zeroed; NULL when out of memory */
    #if defined(MAP_ANONYMOUS)
        void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
    #if defined(MADV_HUGEPAGE)
        madvise(p, n, MADV_HUGEPAGE);   /* a hint: without it, 4 KB pages */
    #endif
        return p;
    #else
        return calloc(1, n);
    #endif
    }
    /* Touch every 4 KB of p[0:n] (from bpe_big_alloc) once, so that the kernel maps
       and zeroes its pages now rather than at their first use. */
    static void bpe_big_touch(void* p, size_t n) {
        volatile char* c = (volatile char*)p;
        size_t k;
        for (k = 0; k < n; k += 4096)
            c[k] = 0;
    }
    static void bpe_big_free(void* p, size_t n) {
        if (p == NULL)
            return;
    #if defined(MAP_ANONYMOUS)
        munmap(p, n);
    #else
        (void)n;
        free(p);
    #endif
    }
    """
    void* big_alloc "bpe_big_alloc"(size_t n) noexcept nogil
    void big_free "bpe_big_free"(void* p, size_t n) noexcept nogil
    void big_touch "bpe_big_touch"(void* p, size_t n) noexcept nogil


cdef enum:
    BIG_BYTES = 1 << 21   # slot arrays from this size on come from big_alloc


# Slot, Table and Key, and the functions below that are not inline, are declared
# in _native.pxd (the shared pieces of the extension, declared once).


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


cdef inline uint64_t hash_bytes(const uint8_t* p, size_t n, uint64_t head, uint64_t mid) noexcept nogil:
    """A fast multiply-xorshift hash, 8 bytes a round (most keys are one round);
    ``head`` and ``mid`` are the first two rounds' words (load_head of p and p + 8)."""
    cdef uint64_t h = (n * <uint64_t>0x9E3779B97F4A7C15ULL ^ head) * <uint64_t>0xFF51AFD7ED558CCDULL
    cdef size_t i = 16
    if n > 8:
        h ^= h >> 32
        h = (h ^ mid) * <uint64_t>0xFF51AFD7ED558CCDULL
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
    k.mid = load_head(p + 8, n - 8) if n > 8 else 0
    k.h = hash_bytes(p, n, k.head, k.mid)
    return k


cdef inline Key make_key_padded(const uint8_t* p, size_t n) noexcept nogil:
    """make_key(p, n), where 8 bytes may be read from p whatever n is (a zero-padded
    copy, as bpe_lanes keeps): a key of up to 8 bytes is one load and a mask, with
    no loop over its bytes.

    p=b"abc" + 5 padding bytes, n=3 -> the same Key as make_key(b"abc", 3)
    """
    cdef Key k
    cdef uint64_t w
    if n > 8 or n == 0:
        return make_key(p, n)
    memcpy(&w, p, 8)
    k.p = p
    k.n = n
    k.head = w & (~(<uint64_t>0) >> (64 - 8 * n))
    k.mid = 0
    k.h = hash_bytes(p, n, k.head, 0)
    return k


cdef int table_small_ranks(Table* t) noexcept nogil:
    """Fill ``t.small_ranks`` from the table's keys of one and two bytes; 0, or -1 when out of memory."""
    cdef size_t i
    cdef const uint8_t* key
    t.small_ranks = <uint32_t*>malloc((256 + 65536) * sizeof(uint32_t))
    if t.small_ranks == NULL:
        return -1
    memset(t.small_ranks, 0xFF, (256 + 65536) * sizeof(uint32_t))   # NO_RANK everywhere
    for i in range(t.mask + 1):
        key = t.arena + t.slots[i].koff
        if t.slots[i].klen == 1:
            t.small_ranks[key[0]] = t.slots[i].v0
        elif t.slots[i].klen == 2:
            t.small_ranks[256 + ((<size_t>key[0]) << 8) + key[1]] = t.slots[i].v0
    return 0


# Why a filter: when an encoder meets text it has not seen (cold), most of its time
# goes into the rank merge, and most of that into waiting for the rank table's slots
# (8 MB for GPT-4's vocabulary, 16 MB for GPT-4o's: a slot not in any cache costs a
# trip to main memory). Most of those probes find nothing: a merge asks for every
# pair of neighbouring parts, and on text in many scripts 65% of the probes of 3
# bytes or more (cl100k_base; o200k_base 55%, code 37-40%, prose 27-29%) are of
# byte strings that are no token. A Bloom filter answers those from 16 bits per
# token: a key's hash picks one 64-bit word (four tokens' worth) and two bits in it,
# and every token's bits are set, so "not there" is always right and the probe is
# skipped; "may be there" (every token, and 1.1% of the rest) goes on to the table.
# With 64 bits per token (1 MB for cl100k_base) the filter's own words were the next
# wait; at 16 (256 KB, 512 KB for o200k_base) most of it stays in the L2 cache.
# Cold (a fresh encoder after 64 MB of other reads), medians of 11: text in many
# scripts 19.3-19.8 -> 24.0-27.5 MB/s with cl100k_base, 16.8-18.9 -> 20.9-21.7 with
# o200k_base; o200k_base code 82-101 -> 100-116.
cdef inline uint64_t filter_bits(uint64_t h) noexcept nogil:
    """The two bits of a key with hash h in its filter word (the word: bits 20 on of h)."""
    return ((<uint64_t>1) << ((h >> 52) & 63)) | ((<uint64_t>1) << (h >> 58))


cdef inline bint filter_may_have(const Table* t, uint64_t h) noexcept nogil:
    """Whether the key with hash h may be in the table (False: it is not)."""
    cdef uint64_t want = filter_bits(h)
    return (t.filter[(h >> 20) & t.filter_mask] & want) == want


cdef int table_filter(Table* t) noexcept nogil:
    """Fill ``t.filter`` from the table's keys (a 64-bit word per 4 keys, rounded up
    to a power of two); 0, or -1 when out of memory."""
    cdef size_t i, words = 1
    cdef Key k
    while 4 * words < t.used:
        words *= 2
    t.filter = <uint64_t*>calloc(words, sizeof(uint64_t))
    if t.filter == NULL:
        return -1
    t.filter_mask = words - 1
    for i in range(t.mask + 1):
        if t.slots[i].klen:
            k = make_key(t.arena + t.slots[i].koff, t.slots[i].klen)    # the hash a lookup makes
            t.filter[(k.h >> 20) & t.filter_mask] |= filter_bits(k.h)
    return 0


cdef Slot* slots_new(size_t cap) noexcept nogil:
    """``cap`` empty slots (zeroed): from big_alloc when they are BIG_BYTES or more."""
    if cap * sizeof(Slot) >= BIG_BYTES:
        return <Slot*>big_alloc(cap * sizeof(Slot))
    return <Slot*>calloc(cap, sizeof(Slot))


cdef void slots_free(Slot* slots, size_t cap) noexcept nogil:
    if cap * sizeof(Slot) >= BIG_BYTES:
        big_free(slots, cap * sizeof(Slot))
    else:
        free(slots)


cdef int table_init(Table* t, size_t cap) noexcept nogil:
    t.slots = slots_new(cap)
    t.mask = cap - 1
    t.used = 0
    t.arena_n = t.ids_n = 0
    t.small_ranks = NULL
    t.space_runs = NULL
    t.filter = NULL
    return -1 if t.slots == NULL else 0


cdef void table_free(Table* t) noexcept nogil:
    slots_free(t.slots, t.mask + 1)
    free(t.arena)
    free(t.ids)
    free(t.small_ranks)
    free(t.space_runs)
    free(t.filter)
    memset(t, 0, sizeof(Table))


cdef void table_clear(Table* t) noexcept nogil:
    memset(t.slots, 0, (t.mask + 1) * sizeof(Slot))
    t.used = t.arena_n = t.ids_n = 0


cdef inline Slot* table_find(const Table* t, const Key* k) noexcept nogil:
    """The slot holding the key, or NULL. Linear probing from the hash's low bits.

    A key of up to 16 bytes is compared in the slot (head, mid); only the bytes
    past 16 of a longer one are read from the arena. Why: the arena is another
    wait on memory, and a new encoder's lookups are mostly waits (perf, the
    held-out prose of benchmarks/per_document.py with cl100k_base: memcmp had 5%
    of a new encoder's samples); the slot held a 32-bit tag of the hash before,
    and 4 bytes of padding, where the key's bytes 8-15 now sit.
    """
    cdef size_t i = k.h & t.mask
    cdef Slot* s
    while True:
        s = &t.slots[i]
        if s.klen == 0:
            return NULL
        if (s.klen == k.n and s.head == k.head and s.mid == k.mid
                and (k.n <= 16 or memcmp(t.arena + s.koff + 16, k.p + 16, k.n - 16) == 0)):
            return s
        i = (i + 1) & t.mask


cdef inline uint32_t rank_of(const Table* t, const uint8_t* p, size_t n) noexcept nogil:
    # every merge starts from byte pairs: their ranks come from a flat array (264 KB),
    # with no hash and no probe of the large table
    if n <= 2 and t.small_ranks != NULL:
        return t.small_ranks[p[0]] if n == 1 else t.small_ranks[256 + ((<size_t>p[0]) << 8) + p[1]]
    cdef Key k = make_key(p, n)
    cdef Slot* s = rank_find(t, &k)
    return NO_RANK if s == NULL else s.v0


cdef inline Slot* rank_find(const Table* t, const Key* k) noexcept nogil:
    """table_find, past the filter when the table has one (the rank table)."""
    if t.filter != NULL and not filter_may_have(t, k.h):
        return NULL
    return table_find(t, k)


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


cdef int table_rehash(Table* t, size_t cap) noexcept nogil:
    """Move the entries into ``cap`` slots (a power of two, more than they fill); 0, or -1."""
    cdef size_t i, j
    cdef Slot* old = t.slots
    t.slots = slots_new(cap)
    if t.slots == NULL:
        t.slots = old
        return -1
    for i in range(t.mask + 1):
        if old[i].klen:
            # the slot index comes from the low bits of the hash: recompute it
            j = hash_bytes(t.arena + old[i].koff, old[i].klen, old[i].head, old[i].mid) & (cap - 1)
            while t.slots[j].klen:
                j = (j + 1) & (cap - 1)
            t.slots[j] = old[i]
    slots_free(old, t.mask + 1)
    t.mask = cap - 1
    return 0


cdef int table_reserve(Table* t, size_t entries) noexcept nogil:
    """Room for ``entries`` keys without a rehash (at most half full); 0, or -1.

    Why: a table that starts small and doubles as it fills moves every entry at
    each doubling; a first pass over a long text filled the chunk cache from 1,024
    slots to 65,536 that way (figures in _encode_text.pxi, encode_text)."""
    cdef size_t cap = t.mask + 1
    while cap < 2 * entries:
        cap *= 2
    if cap == t.mask + 1:
        return 0
    return table_rehash(t, cap)


cdef int table_insert(Table* t, const Key* k, uint32_t v0, uint32_t v1) noexcept nogil:
    """Add a key that is not in the table yet; doubles the slots past half full."""
    cdef size_t i
    if 2 * (t.used + 1) > t.mask + 1 and table_rehash(t, 2 * (t.mask + 1)) < 0:
        return -1
    if grow(<void**>&t.arena, &t.arena_cap, t.arena_n + k.n, 1) < 0:
        return -1
    memcpy(t.arena + t.arena_n, k.p, k.n)
    cdef Slot new
    new.klen = k.n
    new.head = k.head
    new.mid = k.mid
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
