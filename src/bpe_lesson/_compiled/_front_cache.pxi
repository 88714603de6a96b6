# The front cache of the compiled encoder: the ids of short chunks, in a small
# table of entries with no pointer in them. Included by _native.pyx after
# _hashtable.pxi.
#
# Why it exists: the rank table of GPT-4's vocabulary is 8 MB (GPT-4o's 16 MB),
# with one 32-byte slot per token spread over it, so nearly every probe of it
# waits on main memory; perf found half of encode_piece's samples on the load of
# the first slot. Real text repeats a few thousand chunks most of the time
# ("self", " the", four spaces); their ids sit here, in 131,072 entries of 32
# bytes (4 MB, for a long text or once grown; a new encoder starts at 2 MB, see
# front_grow: in the L3 cache; _encode_text.pxi prefetches each entry while it cuts
# the next chunks, so the wait overlaps other work). 16,384 entries (512 KB, the
# L2 cache of a core here) hit less often and were no faster once prefetched.
# 65,536 entries (2 MB) were the size until the 4 MB table, in the L3 cache all
# the same, was measured faster on every text (warm, one process, the two
# alternated 31 times, twice: 0-21% faster, most on code and text in many
# scripts; cold the same within the noise). 262,144 entries (8 MB) were no
# faster than 4 MB. Warm misses, the same hash replayed over the benchmark's
# chunks with cl100k_base, 65,536 -> 131,072 entries: 10 MB of code 2.18% ->
# 1.39% of the chunks (0.90% are longer than 16 bytes and always miss), English
# prose 0.84% -> 0.75%, the Bible 0.08% -> 0.03%, text in many scripts 6.76% ->
# 5.31%. A table grows once, to 524,288 entries (16 MB), when its sets keep
# pushing entries out (front_grow, below): 10 MB of code then ran 10-12% faster.
#
# Two entries per set, the two halves of one 64-byte cache line (2-way set
# associative): a chunk of at most FRONT_KEY bytes is its own key, zero-padded
# into two 64-bit words, so a lookup is one line, two masks and at most two
# compares, with no pointer to follow and no key bytes elsewhere. Up to FRONT_IDS
# ids are kept inline. A miss falls through to the rank table, the chunk cache
# and the merge (encode_piece); the result goes into the set's first entry and
# the entry that was there moves to the second, so the older of the two leaves.
# A hit in the second entry swaps the two (encode_text), so the first holds the
# one used last: most hits are then in the first entry, and the processor
# guesses the compare right. valgrind, a warm pass over 10 MB of code with
# cl100k_base: encode_text's mispredicted branches 818 K -> 410 K, English prose
# 26 K -> 16 K, text in many scripts 95 K -> 68 K; in one process, code 8-10%
# faster warm and 6-11% for a fresh encoder, the other texts 0-7% warm.
# With one entry per slot (direct-mapped), two hot chunks with the same slot
# pushed each other out. Warm, on the benchmark's texts with cl100k_base (the
# same hash, replayed over the chunks): 10 MB of code 2.98% of the chunks missed
# direct-mapped and 2.40% with two ways; English prose 1.70% and 0.90%; the Bible
# 0.67% and 0.34%. Chunks longer than 16 bytes, or of more ids than an entry
# holds, always miss: with 3 ids at most, 1.2% of the code's chunks and 13% of
# the multilingual text's; with 6 (below), 0.9% and 5.7%.
#
# Exactness: an entry matches only when the length and all 16 padded bytes are
# equal, so a hit returns the ids of exactly that chunk. The slot number is a
# hash, and a collision only costs a miss.
#
# What this file does not do: hold chunks longer than FRONT_KEY bytes or with
# more ids than an entry holds (the chunk cache in _encoder.pxi holds those).

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset

cdef enum:
    FRONT_BITS = 16     # a new table: 2^16 = 65,536 entries x 32 bytes = 2 MB, in sets of two
    FRONT_MID_BITS = 17 # ... grown to 2^17 = 131,072 entries (4 MB), see front_grow
    FRONT_MAX_BITS = 19 # ... and then to 2^19 = 524,288 entries (16 MB)
    FRONT_KEY = 16      # the longest chunk it holds, in bytes
    FRONT_IDS = 3       # the most ids an entry holds as they are (32 bits each)
    FRONT_PACKED_IDS = 6  # ... and packed, 18 bits each, when every id is below 2^18

cdef struct FrontTable:  # the front cache of one encoder
    Front* e            # its entries (2^bits of them), two to a 64-byte line
    int bits
    size_t evictions    # entries pushed out of a full set since the table was made
    bint used           # encode_text has run on it (else it is empty, and front_grow moves nothing)

cdef struct Front:
    uint64_t k0, k1     # the chunk's bytes 0-7 and 8-15, zero-padded
    uint8_t klen        # the chunk's length; 0 marks an empty entry (no chunk is empty)
    uint8_t nids        # how many ids the chunk has: up to FRONT_IDS in ids[], or
    uint16_t unused     # up to FRONT_PACKED_IDS packed into these last 14 bytes
    uint32_t ids[3]     # FRONT_IDS

# Chunks of 4 to 6 ids (a word in Cyrillic or Greek, 8.5% of the chunks of the
# benchmark's text in many scripts with cl100k_base) fit an entry when their ids
# are packed 18 bits each into its last 14 bytes; with 3 ids at most they missed
# and went through the chunk cache (that text: 99 -> 114 MB/s warm with cl100k_base,
# +3% with o200k_base; the others unchanged). Read as one 128-bit number, bytes 16-31 are
# klen, nids, then id j at bits 16 + 18j. GCC's and Clang's unsigned __int128 does
# the shifts; without it entries hold 3 ids.
cdef extern from *:
    """
    #include <string.h>
    #if defined(__SIZEOF_INT128__)
    #define BPE_CAN_PACK 1
    static inline void bpe_front_pack(void* entry, const unsigned* ids, int m) {
        unsigned __int128 x;
        int j;
        memcpy(&x, (char*)entry + 16, 16);
        x &= 0xFFFF;                                    /* keep klen and nids */
        for (j = 0; j < m; j++)
            x |= (unsigned __int128)ids[j] << (16 + 18 * j);
        memcpy((char*)entry + 16, &x, 16);
    }
    static inline void bpe_front_unpack(const void* entry, unsigned* out, int m) {
        unsigned __int128 x;
        int j;
        memcpy(&x, (const char*)entry + 16, 16);
        for (j = 0; j < m; j++)
            out[j] = (unsigned)(x >> (16 + 18 * j)) & 0x3FFFF;
    }
    #else
    #define BPE_CAN_PACK 0
    static inline void bpe_front_pack(void* entry, const unsigned* ids, int m) { (void)entry; (void)ids; (void)m; }
    static inline void bpe_front_unpack(const void* entry, unsigned* out, int m) { (void)entry; (void)out; (void)m; }
    #endif
    """
    bint CAN_PACK "BPE_CAN_PACK"
    void front_pack "bpe_front_pack"(void* entry, const uint32_t* ids, int m) noexcept nogil
    void front_unpack "bpe_front_unpack"(const void* entry, uint32_t* out, int m) noexcept nogil

# MASK0[L], MASK1[L]: the words that keep bytes 0..L-1 of a 16-byte key and zero
# the rest; built from byte patterns, so they are right on either byte order
cdef uint64_t MASK0[17]
cdef uint64_t MASK1[17]


cdef _fill_masks():
    cdef uint8_t pattern[16]
    cdef int L
    for L in range(17):
        memset(pattern, 0, 16)
        memset(pattern, 0xFF, L)
        memcpy(&MASK0[L], pattern, 8)
        memcpy(&MASK1[L], pattern + 8, 8)


_fill_masks()


cdef inline void front_key(const uint8_t* p, Py_ssize_t L, const uint8_t* end,
                           uint64_t* k0, uint64_t* k1) noexcept nogil:
    """The 16-byte key of chunk p[0:L] (L <= FRONT_KEY); never reads past ``end``.

    subtle: most chunks are read as two full words, bytes past the chunk
    included, and the masks zero those; only within 16 bytes of the text's end
    is the chunk copied into a zeroed buffer first.
    """
    cdef uint64_t w[2]
    cdef uint64_t a, b
    if end - p >= 16:
        # two 8-byte loads into registers (one 16-byte copy went through the stack:
        # an SSE load, a store, and loads of it back, on the way to the hash)
        memcpy(&a, p, 8)
        memcpy(&b, p + 8, 8)
    else:
        w[0] = 0
        w[1] = 0
        memcpy(w, p, L)
        a = w[0]
        b = w[1]
    k0[0] = a & MASK0[L]
    k1[0] = b & MASK1[L]


cdef inline Front* front_slot(Front* e, int shift, uint64_t k0, uint64_t k1, Py_ssize_t L) noexcept nogil:
    """The set (two entries) a key may sit in, in the entries e of a table of 2^bits:
    the top bits - 1 bits (shift = 65 - bits) of a multiplicative hash."""
    cdef uint64_t x = (k0 ^ (k1 * <uint64_t>0xC2B2AE3D27D4EB4FULL) ^ <uint64_t>L) * <uint64_t>0x9E3779B97F4A7C15ULL
    return &e[2 * (x >> shift)]


cdef inline Front* front_find(Front* f, uint64_t k0, uint64_t k1, Py_ssize_t L) noexcept nogil:
    """The entry of set f that holds this key, or NULL."""
    if f.klen == L and f.k0 == k0 and f.k1 == k1:
        return f
    f += 1
    if f.klen == L and f.k0 == k0 and f.k1 == k1:
        return f
    return NULL


cdef inline bint front_fill(Front* f, uint64_t k0, uint64_t k1, Py_ssize_t L,
                            const uint32_t* ids, Py_ssize_t m) noexcept nogil:
    """Put a chunk's ids first in its set f (m <= FRONT_IDS of them as they are;
    up to FRONT_PACKED_IDS packed, which the caller allows only for ids below
    2^18); the first entry moves to the second, over whatever was there.
    Returns whether an entry was pushed out (the set was full)."""
    cdef bint evicted = f[1].klen != 0
    f[1] = f[0]
    f.k0 = k0
    f.k1 = k1
    f.klen = <uint8_t>L
    f.nids = <uint8_t>m
    if m <= FRONT_IDS:
        memcpy(f.ids, ids, m * sizeof(uint32_t))
    else:
        front_pack(f, ids, <int>m)
    return evicted


# The entries sit in 2 MB pages where the kernel gives them (big_alloc in
# _hashtable.pxi): 4 MB of entries in 4 KB pages are 1,024 pages, a lookup lands
# on any of them, and the processor's first-level TLB holds 64 pages here, so
# most lookups also paid a page-table walk; in 2 MB pages they are two pages. The
# mapping also comes zeroed, so a table that grows writes no zeros of its own; a new
# encoder's first 2 MB are touched as it is built (Encoder.__cinit__).
cdef int front_new(FrontTable* F, int bits) noexcept nogil:
    """F: 2^bits empty entries, each set on one 64-byte cache line (free them with
    front_free); 0, or -1 when out of memory (F is then untouched)."""
    cdef Front* e = <Front*>big_alloc((<size_t>1 << bits) * sizeof(Front))
    if e == NULL:
        return -1
    F.e = e
    F.bits = bits
    F.evictions = 0
    F.used = False
    return 0


cdef void front_free(FrontTable* F) noexcept nogil:
    if F.e != NULL:
        big_free(F.e, (<size_t>1 << F.bits) * sizeof(Front))
        F.e = NULL


# Why the table grows: a fresh mapping costs its first touch of each 2 MB page (the
# kernel zeroes it; on this machine, a first write to each page of a fresh 4 MB
# mapping took 1.9-5.8 ms), and 16 MB from the start cost 15-20% cold on 0.5-1 MB
# of prose and of the Bible. The 5,700-6,500 distinct chunks of those texts fit
# in 2 MB, where a new encoder now starts (its pages touched as it is built, so
# that its first call pays for none): in fresh processes, 25 alternations,
# the first call on the Bible 121 -> 134 MB/s (median ratio 1.13) and on prose
# 75 -> 80 (1.04); in one process a fresh encoder's pass 3-8% faster there, warm
# the same. A text of 4 MB or more starts at 4 MB (encode_text). But the sets are
# picked by a hash, and some get more than two hot chunks, which then push each
# other out on every pass: the 10 MB of code has ~55,000 distinct chunks of 16
# bytes or fewer (cl100k_base) for 65,536 sets, and warm, 11,549 of its chunks a
# pass still missed (0.5%; each a trip to the chunk cache in main memory). In 4x
# the sets, far fewer sets get three. So once a set has pushed an entry out as
# many times as the table has sets / 8 (4,096 at 2 MB, 8,192 at 4 MB), the entries
# move into a larger table: 2 MB -> 4 MB, then 4 MB -> 16 MB. 1 MB of text in many
# scripts pushes out a few hundred a pass at 4 MB; a fresh encoder per short text
# never grows.
cdef void front_grow(FrontTable* F) noexcept nogil:
    """Move F's entries into a table of FRONT_MID_BITS, or of FRONT_MAX_BITS from
    there (each set's older entry first, so that the newer one stays first); on no
    memory, F stays as it is."""
    cdef FrontTable G
    cdef Front* old
    cdef Front* f
    cdef size_t k, n = <size_t>1 << F.bits
    if front_new(&G, FRONT_MID_BITS if F.bits < FRONT_MID_BITS else FRONT_MAX_BITS) < 0:
        F.evictions = 0             # try again after as many evictions
        return
    # (an empty table, a new encoder's before a long text, is not read: its pages
    # were never touched, and reading them would only fault them in)
    for k in range(n if F.used else 0):
        old = &F.e[k ^ 1]           # entries 1, 0, 3, 2, ...: in each set the older first
        if old.klen:
            f = front_slot(G.e, 65 - G.bits, old.k0, old.k1, old.klen)
            f[1] = f[0]
            f[0] = old[0]
    G.used = F.used
    front_free(F)
    F[0] = G
