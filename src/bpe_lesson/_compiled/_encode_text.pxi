# The loop that encodes a text: cut chunks, look them up in blocks, merge the rest.
# Included once, by _native.pyx, after the Encoder class (_encoder.pxi);
# it reads the vocabulary table and the chunk cache (_hashtable.pxi), the front
# cache (_front_cache.pxi), the scanners (_scanners.pxi) and the rank merge
# (_rank_merge.pxi).
#
# What this file does not do: hold any state (the Encoder owns the tables and the
# output buffer), or touch Python objects (everything here runs without the GIL).

# Why it is fast, in short: most chunks are answered by the front cache (ids
# inline, _front_cache.pxi) looked up in blocks of 64 chunks whose entries are
# prefetched while the scanner cuts the next ones; a miss asks the chunk cache, then
# merges from the byte pairs' flat rank array (_rank_merge.pxi); the output goes into
# a buffer the Encoder keeps, with no Python object per id; the window scanner cuts
# 64 ASCII bytes at once. Each step's measurements, and what was tried and dropped,
# are recorded in benchmarks/README.md ("The encode loop, step by step").

cdef extern from *:
    """
    #define BPE_PREFETCH(p) __builtin_prefetch((const void*)(p))
    """
    void prefetch "BPE_PREFETCH"(const void* p) noexcept nogil

cdef enum:
    BLOCK = 64      # chunks cut, then looked up, at a time
    CACHE_RESERVE_SHIFT = 8     # encode_text makes room in the chunk cache for one
                                # chunk per 2**8 bytes of text
    FRONT_MID_TEXT = 1 << 22    # ... and a text of 4 MB or more starts with a 4 MB front cache

cdef inline size_t cache_need(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    """About how many chunks a first pass over s[0:n] leaves in the chunk cache:
    one per 2**CACHE_RESERVE_SHIFT bytes, and one per 16 bytes outside ASCII
    (counted at every 64th byte). Words of other scripts are rarely one token:
    the benchmark's text in many scripts (43% of its bytes outside ASCII) left
    22,035 chunks there with cl100k_base, one per 37 bytes; code, prose and the
    Bible one per 264-375 bytes."""
    cdef size_t wide = 0
    cdef Py_ssize_t i
    for i in range(0, n, 64):
        wide += s[i] >> 7
    return (<size_t>n >> CACHE_RESERVE_SHIFT) + ((wide * 64) >> 4)


cdef struct Pending:    # a chunk of the current block
    Py_ssize_t start, n
    uint64_t k0         # its front-cache key (chunks of at most FRONT_KEY bytes) ...
    Front* f            # ... its set, or NULL for a longer chunk
    uint64_t k1         # (k0 and k1 apart: side by side, the compiler joined their
                        # masking into SSE, moved through the stack)


cdef int encode_text(const Table* R, Table* C, FrontTable* F, int most_ids, int kind, const uint8_t* s,
                     Py_ssize_t n, IdBuf* out) noexcept nogil:
    """Scan the text chunk by chunk and encode each; 0, or -1 when out of memory.
    ``most_ids``: how many ids a front-cache entry may hold for this vocabulary.

    A block of up to BLOCK chunks at a time: cut them and ask the memory for their
    front-cache entries (prefetch), then look them up in order. The scanner's work
    on the next chunks hides the wait for the entries of the first.

    ``out`` has room for n + FRONT_IDS ids: a chunk of L bytes gives at most L ids,
    and a front-cache hit copies all FRONT_IDS inline ids before it counts the
    chunk's own (one branch less).
    """
    cdef Pending P[BLOCK + CUT_SLACK]
    cdef Py_ssize_t ends[BLOCK + CUT_SLACK]
    cdef Pending* c
    cdef Py_ssize_t i = 0, start
    cdef int nb, j
    cdef size_t before
    cdef Front* f
    cdef Front tmp
    cdef Front* entries
    cdef int shift
    cdef const uint32_t* row
    cdef uint32_t* op
    cdef const uint8_t* end = s + n
    if kind == KIND_NONE:
        return encode_piece(R, C, s, n, out) if n else 0
    # a long text: make the chunk cache's room at once (cache_need), not by
    # doubling as it fills (table_reserve); and a front cache of 4 MB from the
    # start (front_grow)
    if 2 * (n >> CACHE_RESERVE_SHIFT) > C.mask + 1 and table_reserve(C, min(cache_need(s, n), cache_entries)) < 0:
        return -1
    if n >= FRONT_MID_TEXT and F.bits < FRONT_MID_BITS:
        front_grow(F)
    F.used = True
    while i < n:
        if F.evictions > (<size_t>1 << (F.bits - 4)) and F.bits < FRONT_MAX_BITS:
            front_grow(F)           # between blocks: no entry is pending
        entries = F.e
        shift = 65 - F.bits
        # 1. cut a block of chunks (_window_cut.pxi); find and prefetch each one's entry
        start = i
        nb = cut_block(kind, s, n, &i, ends, BLOCK)
        for j in range(nb):
            c = &P[j]
            c.start = start
            c.n = ends[j] - start
            start = ends[j]
            if c.n <= FRONT_KEY:
                front_key(s + c.start, c.n, end, &c.k0, &c.k1)
                c.f = front_slot(entries, shift, c.k0, c.k1, c.n)
                prefetch(c.f)
            else:
                c.f = NULL
        # 2. look them up, in order. The output's end is a local (op) here, written
        # back to out.n around encode_piece: the loop also writes 64-bit words
        # through pointers (the swap) and calls encode_piece, which writes *out,
        # so the compiler had kept out.n in memory, a load and a store per chunk,
        # each chunk's place waiting on the store before it (figures above)
        op = out.p + out.n
        for j in range(nb):
            c = &P[j]
            f = front_find(c.f, c.k0, c.k1, c.n) if c.f != NULL else NULL
            if f != NULL and f != c.f:   # a hit in the second way: move it first (_front_cache.pxi)
                tmp = c.f[0]
                c.f[0] = f[0]
                f[0] = tmp
                f = c.f
            if f != NULL:  # hit: the ids are inline
                if f.nids <= FRONT_IDS:
                    op[0] = f.ids[0]
                    op[1] = f.ids[1]
                    op[2] = f.ids[2]
                else:
                    front_unpack(f, op, f.nids)
                op += f.nids
                continue
            if (c.f == NULL and c.n <= SPACE_RUN_MAX and R.space_runs != NULL
                    and all_spaces(s + c.start, c.n)):
                # a run of spaces too long for the front cache (space_runs_fill)
                row = R.space_runs + c.n * (SPACE_RUN_IDS + 1)
                if row[0]:
                    op[0] = row[1]
                    op[1] = row[2]
                    op[2] = row[3]
                    op[3] = row[4]
                    op += row[0]
                    continue
            out.n = op - out.p
            before = out.n
            if encode_piece(R, C, s + c.start, c.n, out) < 0:
                return -1
            if c.f != NULL and out.n - before <= <size_t>most_ids:
                F.evictions += front_fill(c.f, c.k0, c.k1, c.n, out.p + before, out.n - before)
            op = out.p + out.n
        out.n = op - out.p
    return 0
