# The rank merge of the compiled encoder: tiktoken's rule, as
# ``ranks.byte_pair_merge``. Included by _native.pyx after _hashtable.pxi
# (``rank_of`` looks the parts up in a ``Table``).
#
# The parts of a chunk are kept as start offsets with the rank of each adjacent
# pair beside them (tiktoken's layout): after a merge only the two neighbouring
# pair ranks are looked up again. Chunks of up to LANES bytes (nearly all) keep
# them by byte offset instead (bpe_lanes, below). Chunks longer than LONG_PIECE bytes
# (runs of spaces or "=", pattern=None) use a heap of (rank, start) and a linked
# list: O(n log n) rather than O(n^2), the same rule (lowest rank, then leftmost).
#
# Why bpe_lanes: every distinct chunk of a text is merged once, then cached, so the
# merge is much of a new encoder's work (perf: 57% of its samples on text in many
# scripts, a quarter on code), and bpe_small spent it on branches whose way
# depends on the ranks: which pair is lowest, how far to shift the arrays after
# a join, how many bytes a key has. valgrind, a fresh process's first call on the
# 10 MB of code (cl100k_base; 33,009 merges of 8.5 bytes on average): bpe_small had
# 1,257 K mispredicted branches of the call's 3,294 K (38 a merge), for 49.6 M
# instructions; bpe_lanes has 645 K (20 a merge) for 52.9 M. A part there is a bit
# in a 64-bit mask at its first byte, so a join clears one bit (no shifting) and the
# neighbours are a ctz and a clz away; the lowest rank, leftmost of equal ones, is
# the smallest rk[i] * 256 + i (a conditional move, no branch); the pieces' keys
# come from a copy of the chunk padded with zeros (a key of up to 8 bytes is one
# load and a mask, not a loop over its bytes); and each part's id is the rank that
# made it (no lookup at the end). In one process, a fresh encoder's first pass
# against bpe_small's (31 alternations, medians): text in many scripts 18% faster
# with cl100k_base and 10% with o200k_base (its chunks are long and many bytes
# each), English prose 4%, the Bible 1-4%, the 10 MB of code the same (there the
# merges are a smaller share, and the saved mispredicts within the noise); warm
# passes the same within the noise. Also tried: the lowest rank over 16 lanes
# whatever the chunk's length (no loop exit to predict): 33% fewer mispredicts in
# bpe_lanes under valgrind, no faster on this processor.
#
# What this file does not do: split text or cache chunks (_encoder.pxi).

from libc.stdint cimport uint32_t, uint64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

cdef enum:
    LONG_PIECE = 128          # chunks up to this many bytes use the simple merge loop (ranks.LONG_PIECE)
SMALL_CHUNK = LONG_PIECE      # (for tests: longer chunks take the heap path)


cdef extern from "_window.h":
    int top64 "bpe_top"(uint64_t x) noexcept nogil      # the highest set bit of x != 0

cdef enum:
    LANES = 64                # chunks up to this many bytes use bpe_lanes (one bit a byte)
LANE_CHUNK = LANES            # (for tests: longer chunks take bpe_small)


cdef Py_ssize_t bpe_merge(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """Rank-merge s[0:n] into ``out`` (room for n ids); the number of ids, or -1."""
    if n <= LANES and R.small_ranks != NULL:
        return bpe_lanes(R, s, n, out)
    if n <= LONG_PIECE:
        return bpe_small(R, s, n, out)
    return bpe_large(R, s, n, out)


cdef inline uint32_t lane_rank(const Table* R, const uint8_t* p, size_t n) noexcept nogil:
    """rank_of(R, p, n) for n >= 3, where 8 bytes may be read from p (bpe_lanes' copy)."""
    cdef Key k = make_key_padded(p, n)
    cdef Slot* sl = rank_find(R, &k)
    return NO_RANK if sl == NULL else sl.v0


cdef Py_ssize_t bpe_lanes(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """bpe_small's rule for chunks of at most LANES bytes, kept by byte offset: a part
    starts at byte i when bit i of ``alive`` is set; rk[i] is the rank of joining it
    with the next part (NO_RANK for the last part and for offsets where no part
    starts), pid[i] its id. A join clears one bit and looks up two ranks; nothing
    is shifted, and the lowest rank (leftmost of equal ones) is the smallest of the
    numbers rk[i] * 256 + i, found with no branch that depends on the ranks (why:
    the top of this file).

    s=b"abcd", ranks ab:256 bc:257 abc:258 -> parts at 0,1,2,3; join 0+1 (256): at
    0,2,3; join 0+2 (abc, 258): at 0,3 -> [258, 100]
    """
    cdef uint32_t rk[LANES]
    cdef uint32_t pid[LANES]
    cdef uint8_t b[LANES + 8]       # the chunk, then 8 zeros: any 8 bytes from b + i may be read
    cdef const uint32_t* small = R.small_ranks
    cdef uint64_t alive, rest, below, key, best
    cdef Py_ssize_t i, j, nxt, nn, m = 0
    alive = ~(<uint64_t>0) if n == 64 else ((<uint64_t>1 << n) - 1)
    memcpy(b, s, n)
    memset(b + n, 0, 8)
    for i in range(n):
        pid[i] = small[s[i]]
    for i in range(n - 1):
        rk[i] = small[256 + ((<size_t>s[i]) << 8) + s[i + 1]]
    rk[n - 1] = NO_RANK
    while True:
        best = ~(<uint64_t>0)
        for i in range(n - 1):
            key = ((<uint64_t>rk[i]) << 8) | <uint64_t>i
            best = key if key < best else best
        if (best >> 8) == NO_RANK:
            break
        i = <Py_ssize_t>(best & 0xFF)
        # join the part at i with the next one, at j
        rest = alive & ~((<uint64_t>2 << i) - 1)
        j = ctz64(rest)
        alive ^= <uint64_t>1 << j
        rk[j] = NO_RANK
        pid[i] = <uint32_t>(best >> 8)
        rest ^= <uint64_t>1 << j
        # the joined part pairs anew with its right and its left neighbour
        nxt = ctz64(rest) if rest else n
        if nxt < n:
            rest &= rest - 1
            nn = ctz64(rest) if rest else n
            rk[i] = lane_rank(R, b + i, nn - i)
        else:
            rk[i] = NO_RANK
        below = alive & ((<uint64_t>1 << i) - 1)
        if below:
            j = top64(below)
            rk[j] = lane_rank(R, b + j, nxt - j)
    while alive:
        out[m] = pid[ctz64(alive)]
        m += 1
        alive &= alive - 1
    return m


cdef Py_ssize_t bpe_small(const Table* R, const uint8_t* s, Py_ssize_t n, uint32_t* out) noexcept nogil:
    """bpe_encode_chunk's loop: part k is s[start[k] : start[k+1]]; rk[k] is the rank of
    joining parts k and k+1. Each step joins the lowest rank, leftmost first.

    s=b"abcd", ranks ab:256 bc:257 abc:258 -> parts a|b|c|d, then ab|c|d, then abc|d -> [258, 100]
    """
    cdef uint32_t start[LONG_PIECE + 1]
    cdef uint32_t rk[LONG_PIECE]
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
