# The rank merge of the compiled encoder: tiktoken's rule, as
# ``ranks.byte_pair_merge``. Included by _encoder.pyx after _hashtable.pxi
# (``rank_of`` looks the parts up in a ``Table``).
#
# The parts of a chunk are kept as start offsets with the rank of each adjacent
# pair beside them (tiktoken's layout): after a merge only the two neighbouring
# pair ranks are looked up again. Chunks longer than SMALL bytes (runs of spaces
# or "=", pattern=None) use a heap of (rank, start) and a linked list instead:
# O(n log n) rather than O(n^2), the same rule (lowest rank, then leftmost).
#
# What this file does not do: split text or cache chunks (_encoder.pyx).

from libc.stdint cimport uint32_t, uint64_t, uint8_t
from libc.stdlib cimport free, malloc

cdef enum:
    SMALL = 128               # chunks up to this many bytes use the simple merge loop
SMALL_CHUNK = SMALL           # (for tests: longer chunks take the heap path)


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
