# Finding disallowed special tokens in many texts at once (SpecialSearch, first_special,
# special_in), copying ids into NumPy arrays (copy_parts), and letting the cycle
# collector see a batch's lists once they are whole (track_lists). Included once,
# by _native.pyx, after the Encoder class (_encoder.pxi), whose methods use them.
#
# What this file does not do: encode (_encoder.pxi, _encode_text.pxi).

cdef void copy_parts(void** dest, const uint32_t* ids, const size_t* ends, Py_ssize_t m) noexcept nogil:
    """ids[ends[k-1]:ends[k]] into dest[k], for k < m (from 0)."""
    cdef Py_ssize_t k
    cdef size_t start
    for k in range(m):
        start = ends[k - 1] if k else 0
        memcpy(dest[k], ids + start, (ends[k] - start) * sizeof(uint32_t))


cdef Py_ssize_t first_special(const char** ptrs, const Py_ssize_t* lens, Py_ssize_t m, Py_ssize_t nt,
                              const char* p, Py_ssize_t pm, const char** at, Py_ssize_t* which) noexcept nogil:
    """The first of texts ptrs[0:m] that holds one of the tokens ptrs[m:m+nt] (longest
    first; all begin with p[0:pm]): its index, with where (``at``) and which token;
    or -1."""
    cdef Py_ssize_t k
    for k in range(m):
        if special_in(ptrs[k], lens[k], ptrs + m, lens + m, nt, p, pm, at, which):
            return k
    return -1


cdef bint special_in(const char* s, Py_ssize_t n, const char** tokens, const Py_ssize_t* lens, Py_ssize_t nt,
                     const char* p, Py_ssize_t pm, const char** at, Py_ssize_t* which) noexcept nogil:
    """Whether s[0:n] holds one of the nt tokens (longest first; all begin with p[0:pm]);
    if so, where the first is (``at``) and which token it is."""
    cdef Py_ssize_t j
    cdef const char* hit = s
    while True:
        hit = find_bytes(hit, n - (hit - s), p, pm)   # the next place the prefix occurs
        if hit == NULL:
            return False
        for j in range(nt):                           # the tokens that begin there
            if n - (hit - s) >= lens[j] and memcmp(hit, tokens[j], lens[j]) == 0:
                at[0], which[0] = hit, j
                return True
        hit += 1


cdef class SpecialSearch:
    """The special tokens that ``encode`` refuses, in UTF-8 once, for
    ``Encoder.encode_unless_special``: ``longest_first`` (longest first, as
    ``special_longest_first`` orders them), all beginning with ``prefix`` of 2 bytes
    or more. ``Tokenizer`` makes one per distinct ``disallowed_special`` and keeps it,
    so that a call does not convert the tokens again (see ``Tokenizer._plan``).

    >>> s = SpecialSearch(("<|endoftext|>",), "<|")
    >>> s.search("a <|endoftext|>"), s.search("a <| b")
    ((2, '<|endoftext|>'), None)
    """
    cdef readonly tuple longest_first
    cdef readonly str prefix
    cdef bytes prefix8
    cdef list raws              # the tokens' UTF-8, kept alive for ptrs
    cdef const char** ptrs
    cdef Py_ssize_t* lens
    cdef Py_ssize_t nt

    def __cinit__(self):
        self.ptrs = NULL
        self.lens = NULL
        self.nt = 0

    def __init__(self, tuple longest_first, str prefix):
        cdef Py_ssize_t k
        self.prefix8 = prefix.encode("utf-8")
        if len(self.prefix8) < 2:
            raise ValueError(f"SpecialSearch needs a prefix of 2 bytes or more, got {prefix!r}")
        self.longest_first, self.prefix = longest_first, prefix
        self.raws = [token.encode("utf-8") for token in longest_first]
        for raw in self.raws:
            if not raw.startswith(self.prefix8):
                raise ValueError(f"special token {raw.decode()!r} does not begin with {prefix!r}")
        self.nt = len(self.raws)
        self.ptrs = <const char**>malloc((self.nt or 1) * sizeof(char*))
        self.lens = <Py_ssize_t*>malloc((self.nt or 1) * sizeof(Py_ssize_t))
        if self.ptrs == NULL or self.lens == NULL:
            raise MemoryError()
        for k in range(self.nt):
            self.ptrs[k] = PyBytes_AS_STRING(self.raws[k])
            self.lens[k] = PyBytes_GET_SIZE(self.raws[k])

    def __dealloc__(self):
        free(self.ptrs)
        free(self.lens)

    def __reduce__(self):
        return (SpecialSearch, (self.longest_first, self.prefix))

    cdef bint _found(self, const char* s, Py_ssize_t n, const char** at, Py_ssize_t* which) noexcept:
        if n < (1 << 16):
            return special_in(s, n, self.ptrs, self.lens, self.nt, PyBytes_AS_STRING(self.prefix8),
                              PyBytes_GET_SIZE(self.prefix8), at, which)
        cdef bint found
        cdef const char* p = PyBytes_AS_STRING(self.prefix8)
        cdef Py_ssize_t pm = PyBytes_GET_SIZE(self.prefix8)
        with nogil:   # a long text: other threads run while it is searched
            found = special_in(s, n, self.ptrs, self.lens, self.nt, p, pm, at, which)
        return found

    def search(self, str text):
        """(character offset, token) of the first of the tokens in ``text``, or None."""
        cdef Py_ssize_t n, which = -1
        cdef const char* at = NULL
        cdef const char* s = PyUnicode_AsUTF8AndSize(text, &n)
        if not self._found(s, n, &at, &which):
            return None
        return len(PyUnicode_DecodeUTF8(s, at - s, NULL)), self.longest_first[which]


def track_lists(list lists):
    """Let the cycle collector track every list in ``lists`` that it does not yet
    (the lists of ``Encoder.encode_batch(texts, track=False)``); returns ``lists``."""
    for lst in lists:
        if type(lst) is list and not PyObject_GC_IsTracked(<PyObject*>lst):
            PyObject_GC_Track(<PyObject*>lst)
    return lists


cdef _check_parts(uint32_t* out, Py_ssize_t m, chunk):
    for k in range(m):
        if out[k] == NO_RANK:
            raise KeyError(f"a byte of {chunk!r} is not in the vocabulary")
