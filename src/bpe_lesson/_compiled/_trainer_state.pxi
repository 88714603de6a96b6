# The compiled trainer's data (part of the one extension, ``_native.pyx``): the
# words, the pair table and the heap, as the fields of ``_TrainerState``.
#
# ``_Trainer`` (``_incremental.pxi``) inherits them and adds the steps, named as in
# ``incremental.py``. This file holds what the steps read and write, and the small
# operations on it: the pair table (``bucket``, ``slot_of``, ``find``, ``grow``)
# and the heap (``hpush``, ``hpop``, ``hempty``). Why they are built this way (one
# flat table of pair keys; a heap of (count, ~key)) is written down with the rest
# of the trainer's measurements, at the top of ``_incremental.pxi``.
#
# subtle: each method here is ``@cython.final``, so ``_Trainer`` calls it directly,
# not through the class's table of virtual methods, and a C++ compiler can inline
# the small ones into the steps' loops, as it did when they were one class.
#
# What this file does not do: any step of training (``_incremental.pxi``).

cimport cython
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp cimport bool
from libcpp.pair cimport pair as cpair
from libcpp.queue cimport priority_queue
from libcpp.string cimport string
from libcpp.unordered_set cimport unordered_set
from libcpp.vector cimport vector


cdef uint64_t EMPTY = 0xFFFFFFFFFFFFFFFFULL  # no pair has this key: ids are below 2**31


cdef class _TrainerState:
    """The data of one training run: the words, the pair statistics, the heap, the vocabulary.

    ``incremental.TrainerState`` holds the same for the readable trainer (words,
    counts, pair counts, index, heap) in Python containers; here they are C++
    containers, and ``_Trainer``, the steps, is a subclass.
    """
    # the words: unique chunks as ids, one flat buffer
    cdef vector[int32_t] ids          # all chunks, back to back
    cdef vector[int64_t] start        # word i is ids[start[i] : start[i] + length[i]]
    cdef vector[int32_t] length
    cdef vector[int64_t] wcount       # how often word i occurs
    cdef vector[int64_t] stamp        # last merge that rewrote word i (dedupes the index)
    # the statistics: an open-addressing table key -> slot, and per slot its data
    cdef vector[uint64_t] table_key   # EMPTY or a pair key
    cdef vector[int32_t] table_slot   # the slot of that key
    cdef uint64_t mask                # table size - 1 (a power of two)
    cdef vector[int64_t] count        # slot -> pair count
    cdef vector[uint64_t] slot_key    # slot -> pair key
    cdef vector[vector[int32_t]] where  # slot -> words holding the pair (may be stale or repeated)
    cdef priority_queue[cpair[int64_t, uint64_t]] heap     # (count, ~key): max count, then min pair
    # tie_break="greatest-bytes": a binary heap of (count, key) kept by hand, ordered by
    # count, then by the greatest (left bytes, right bytes) (gheap_*, below)
    cdef vector[cpair[int64_t, uint64_t]] gheap
    cdef bool greatest
    cdef int64_t min_count            # stop below this count (at least 2)
    cdef size_t max_len               # 0, or the most bytes a new token may have
    # the vocabulary, for the "bytes already a token" rule
    cdef vector[string] tok
    cdef unordered_set[string] known
    cdef int32_t next_id
    cdef bool finished
    # the merges made: parallel arrays
    cdef vector[int32_t] out_left, out_right, out_new
    cdef vector[int64_t] out_count
    cdef vector[char] mark            # scratch: merge sites in one word

    def __cinit__(self):
        self.greatest = False
        self.min_count = 2
        self.max_len = 0
        self.finished = False
        self.mask = (1 << 16) - 1
        self.table_key.assign(self.mask + 1, EMPTY)
        self.table_slot.assign(self.mask + 1, -1)

    def footprint(self):
        """Bytes held by each structure, from the vectors' capacities (what is allocated, not
        only what is used). Token strings count their heap bytes past the 15 stored inline;
        the set of known tokens counts a node (next pointer, hash, string) and a bucket each."""
        cdef size_t i, index = self.where.capacity() * sizeof(vector[int32_t])
        for i in range(self.where.size()):
            index += self.where[i].capacity() * 4
        cdef size_t strings = self.tok.capacity() * sizeof(string)
        for i in range(self.tok.size()):
            if self.tok[i].capacity() > 15:
                strings += self.tok[i].capacity() + 1
        return {
            "words": self.ids.capacity() * 4 + self.start.capacity() * 8 + self.length.capacity() * 4
                     + self.wcount.capacity() * 8 + self.stamp.capacity() * 8,
            "pair table": self.table_key.capacity() * 8 + self.table_slot.capacity() * 4,
            "pair counts": self.count.capacity() * 8 + self.slot_key.capacity() * 8,
            "pair index": index,
            "heap": (self.heap.size() + self.gheap.capacity()) * sizeof(cpair[int64_t, uint64_t]),
            "tokens": strings + self.known.size() * (sizeof(string) + 16) + self.known.bucket_count() * 8,
        }

    # ---- the pair table: key -> slot -------------------------------------------

    @cython.final
    cdef inline uint64_t bucket(self, uint64_t key) noexcept nogil:
        """The bucket that holds ``key``, or the empty one where it would go (linear probing)."""
        cdef uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> 20  # Fibonacci hashing
        cdef uint64_t k
        while True:
            h &= self.mask
            k = self.table_key[h]
            if k == key or k == EMPTY:
                return h
            h += 1

    @cython.final
    cdef int32_t slot_of(self, uint64_t key) noexcept nogil:
        """The slot of a pair, created (count 0) if it is new."""
        cdef uint64_t h = self.bucket(key)
        if self.table_key[h] == key:
            return self.table_slot[h]
        cdef int32_t slot = self.count.size()
        self.table_key[h] = key
        self.table_slot[h] = slot
        self.count.push_back(0)
        self.slot_key.push_back(key)
        self.where.emplace_back()
        if 2 * self.count.size() > self.mask:
            self.grow()
        return slot

    @cython.final
    cdef int32_t find(self, uint64_t key) noexcept nogil:
        """The slot of a pair, or -1."""
        cdef uint64_t h = self.bucket(key)
        return self.table_slot[h] if self.table_key[h] == key else -1

    @cython.final
    cdef void grow(self) noexcept nogil:
        """Double the table (kept at most half full) and re-insert every slot."""
        cdef size_t slot
        cdef uint64_t h
        self.mask = 2 * self.mask + 1
        self.table_key.assign(self.mask + 1, EMPTY)
        self.table_slot.assign(self.mask + 1, -1)
        for slot in range(self.slot_key.size()):
            h = self.bucket(self.slot_key[slot])
            self.table_key[h] = self.slot_key[slot]
            self.table_slot[h] = slot

    # ---- the heap: std::priority_queue for the default rule, gheap for greatest-bytes

    @cython.final
    cdef inline bool first_of(self, cpair[int64_t, uint64_t]& x, cpair[int64_t, uint64_t]& y) noexcept nogil:
        """x pops before y: a higher count, then the greater (left bytes, right bytes)."""
        cdef int c
        if x.first != y.first:
            return x.first > y.first
        c = self.tok[<int32_t>(x.second >> 32)].compare(self.tok[<int32_t>(y.second >> 32)])
        if c == 0:
            c = self.tok[<int32_t>(<uint32_t>x.second)].compare(self.tok[<int32_t>(<uint32_t>y.second)])
        return c > 0

    @cython.final
    cdef inline void hpush(self, int64_t c, uint64_t key) noexcept nogil:
        cdef size_t k, parent
        if not self.greatest:
            self.heap.push(cpair[int64_t, uint64_t](c, ~key))
            return
        self.gheap.push_back(cpair[int64_t, uint64_t](c, key))
        k = self.gheap.size() - 1
        while k > 0:  # sift up
            parent = (k - 1) // 2
            if not self.first_of(self.gheap[k], self.gheap[parent]):
                break
            self.gheap[k], self.gheap[parent] = self.gheap[parent], self.gheap[k]
            k = parent

    @cython.final
    cdef inline bool hempty(self) noexcept nogil:
        return self.gheap.empty() if self.greatest else self.heap.empty()

    @cython.final
    cdef inline cpair[int64_t, uint64_t] hpop(self) noexcept nogil:
        """Remove and return the first entry as (count, key)."""
        cdef cpair[int64_t, uint64_t] top
        cdef size_t k = 0, child, n
        if not self.greatest:
            top = self.heap.top()
            self.heap.pop()
            return cpair[int64_t, uint64_t](top.first, ~top.second)
        top = self.gheap[0]
        self.gheap[0] = self.gheap.back()
        self.gheap.pop_back()
        n = self.gheap.size()
        while True:  # sift down
            child = 2 * k + 1
            if child >= n:
                break
            if child + 1 < n and self.first_of(self.gheap[child + 1], self.gheap[child]):
                child += 1
            if not self.first_of(self.gheap[child], self.gheap[k]):
                break
            self.gheap[k], self.gheap[child] = self.gheap[child], self.gheap[k]
            k = child
        return top
