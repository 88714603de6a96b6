# Replaying the merges a training run continues from: ``textbook.apply_merges``
# in C++, in place, on one chunk. Included by _native.pyx
# (``include "_replay.pxi"``); ``_Trainer.load`` calls it on each chunk.
#
# What this file does not do: learn merges (``_Trainer`` does).

from cython.operator cimport dereference as deref
from libc.stdint cimport int32_t, uint64_t
from libcpp cimport bool
from libcpp.unordered_map cimport unordered_map


cdef Py_ssize_t replay(int32_t* w, Py_ssize_t n, unordered_map[uint64_t, int32_t]& rank,
                       const char* first) noexcept nogil:
    """``textbook.apply_merges`` in C++, in place: join the pair with the smallest new
    id everywhere (left to right), repeat until no pair is a merge; the new length.

    A chunk with no adjacent pair of bytes that is a merge cannot change at all,
    and that is most chunks (the 1,161 hardcoded merges only start from digits,
    spaces, newlines and operator characters), so we look for one first. Replaying
    the hardcoded block on 30 MB of stdlib code took 1.3 s with ``apply_merges``
    in Python (and 8.7 s for hardcoded + 20,000 merges); in C++ it is noise.
    """
    cdef Py_ssize_t k, j
    cdef int32_t best, a = 0, b = 0
    cdef bool any_first = False
    cdef unordered_map[uint64_t, int32_t].iterator it
    for k in range(n - 1):
        if first[w[k] * 256 + w[k + 1]]:
            any_first = True
            break
    if not any_first:
        return n
    while n >= 2:
        # the earliest merge (smallest new id) among the adjacent pairs
        best = -1
        for k in range(n - 1):
            it = rank.find(pair_key(w[k], w[k + 1]))
            if it != rank.end() and (best < 0 or deref(it).second < best):
                best = deref(it).second
                a = w[k]
                b = w[k + 1]
        if best < 0:
            break
        # join every (a, b), left to right, as textbook.merge does
        j = 0
        k = 0
        while k < n:
            if k + 1 < n and w[k] == a and w[k + 1] == b:
                w[j] = best
                k += 2
            else:
                w[j] = w[k]
                k += 1
            j += 1
        n = j
    return n
