# Encoding one chunk: its whole-chunk token, the chunk cache, or the rank merge
# (encode_piece); and the ids of runs of spaces, filled in once per vocabulary
# (space_runs_fill). Included once, by _native.pyx, before _encode_text.pxi, whose
# loop calls them.
#
# What this file does not do: cut a text into chunks (_encode_text.pxi), or merge
# (_rank_merge.pxi).

cdef int encode_piece(const Table* R, Table* C, const uint8_t* p, Py_ssize_t n, IdBuf* out) noexcept nogil:
    """Append the ids of chunk p[0:n] to ``out`` (which has room for n more):
    whole-chunk token, cached, or merged; 0, or -1 when out of memory."""
    cdef Key k = make_key(p, n)   # one hash for both tables
    # the chunk cache first: what reaches here is mostly chunks of many ids (the
    # front cache holds the rest), which the cache has and the rank table has not
    cdef Slot* sl = table_find(C, &k)
    cdef Py_ssize_t m
    if sl != NULL:
        memcpy(out.p + out.n, C.ids + sl.v0, sl.v1 * sizeof(uint32_t))
        out.n += sl.v1
        return 0
    sl = rank_find(R, &k)
    if sl != NULL:  # tiktoken's shortcut: the whole chunk is one token
        out.p[out.n] = sl.v0
        out.n += 1
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


cdef enum:
    SPACE_RUN_MAX = 128     # the longest run of spaces whose ids the rank table keeps
    SPACE_RUN_IDS = 4       # ... when it has at most this many ids


cdef int space_runs_fill(Table* R) noexcept nogil:
    """Fill ``R.space_runs``: for a run of L spaces (1 <= L <= SPACE_RUN_MAX), row L
    (SPACE_RUN_IDS + 1 numbers) is its number of ids, then its ids, the ids
    encode_piece gives (the whole run if it is a token, else the merge); a row of 0
    ids is a run of more ids than a row holds. 0, or -1 when out of memory.

    Why: the indentation of code makes runs of spaces longer than the front cache's
    16-byte keys (0.65% of the chunks of the benchmark's 10 MB of code, 15,236 a
    pass). Each went to the chunk cache, three waits on memory (its slot, its key
    bytes, its ids); here a run is its length, and its ids sit in a 2.6 KB table.
    """
    cdef uint8_t spaces[SPACE_RUN_MAX]
    cdef uint32_t ids[SPACE_RUN_MAX]
    cdef uint32_t* row
    cdef Py_ssize_t L, m
    cdef uint32_t r
    R.space_runs = <uint32_t*>calloc((SPACE_RUN_MAX + 1) * (SPACE_RUN_IDS + 1), sizeof(uint32_t))
    if R.space_runs == NULL:
        return -1
    memset(spaces, 32, SPACE_RUN_MAX)
    for L in range(1, SPACE_RUN_MAX + 1):
        r = rank_of(R, spaces, L)
        if r != NO_RANK:
            ids[0] = r
            m = 1
        else:
            m = bpe_merge(R, spaces, L, ids)
            if m < 0:
                return -1
        if m <= SPACE_RUN_IDS:
            row = R.space_runs + L * (SPACE_RUN_IDS + 1)
            row[0] = <uint32_t>m
            memcpy(row + 1, ids, m * sizeof(uint32_t))
    return 0


cdef inline bint all_spaces(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """Whether p[0:n] are all spaces (eight bytes a step)."""
    cdef uint64_t w
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        memcpy(&w, p + i, 8)
        if w != <uint64_t>0x2020202020202020ULL:
            return False
        i += 8
    while i < n:
        if p[i] != 32:
            return False
        i += 1
    return True
