# The trainer's front end, compiled: count the chunks of texts, cut as the
# encoder cuts them (``cut_block``: the window scanner, then the hand-written
# scanners). Included by _incremental.pyx after _window_cut.pxi
# (``include "_chunk_counter.pxi"``); ``chunks.compiled_counter`` hands it out.
#
# What this file does not do: cut out special tokens (the caller passes the
# pieces between them), or count with a custom regex (``chunks.count_chunks``).

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.stdint cimport uint8_t
from libcpp.string cimport string
from libcpp.unordered_map cimport unordered_map

from .patterns import resolve_pattern


cdef class ChunkCounter:
    """Count the chunks of texts for training: UTF-8 chunk -> count, kept in C++.

    ``chunks.count_chunk_bytes`` and ``scale.counting`` use it for the three named patterns and for
    ``pattern=None``. Counting with ``regex.findall`` + ``Counter`` makes one Python
    string per chunk (2.3 million for 10 MB of code) and holds the GIL throughout;
    here the scanner and the hash map run with the GIL released, so threads, one
    counter each, use every core without forking, and only the unique chunks
    (~50,000) ever become Python objects, in ``to_dict``.

    >>> c = ChunkCounter("gpt4"); c.add("the cat and the hat"); sorted(c.to_dict().items())
    [(b' and', 1), (b' cat', 1), (b' hat', 1), (b' the', 1), (b'the', 1)]
    """
    cdef unordered_map[string, long long] counts
    cdef int kind

    def __init__(self, pattern):
        pattern = resolve_pattern(pattern)
        self.kind = _kind(pattern)
        if self.kind == KIND_REGEX:
            raise ValueError("ChunkCounter scans only the named patterns (gpt2, gpt4, o200k) or None")
        if self.kind >= KIND_GPT2:
            _build_tables()

    def add(self, str text):
        """Count the chunks of one piece of text (special tokens already cut out)."""
        data = text.encode("utf-8")  # lone surrogates raise here, as in the regex path
        cdef const uint8_t* s = <const uint8_t*>PyBytes_AS_STRING(data)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        with nogil:
            self._count(s, n)

    cdef void _count(self, const uint8_t* s, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i = 0, start = 0
        cdef Py_ssize_t ends[64 + CUT_SLACK]
        cdef int nb, j
        if n == 0:
            return
        if self.kind == KIND_NONE:
            self.counts[string(<const char*>s, n)] += 1
            return
        while i < n:
            nb = cut_block(self.kind, s, n, &i, ends, 64)
            for j in range(nb):
                self.counts[string(<const char*>s + start, ends[j] - start)] += 1
                start = ends[j]

    def update(self, ChunkCounter other):
        """Add another counter's counts to this one (the reduce step)."""
        for kv in other.counts:
            self.counts[kv.first] += kv.second

    def __len__(self):
        return self.counts.size()

    def to_dict(self):
        """The counts as a dict: chunk bytes -> count."""
        return {kv.first: kv.second for kv in self.counts}
