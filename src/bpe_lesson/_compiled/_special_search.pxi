# Finding disallowed special tokens in many texts at once (find_special_batch,
# SpecialSearch, first_special, special_in: a vector search for their common
# beginning, bpe_find), and letting the cycle collector see a batch's lists once
# they are whole (track_lists). Included once, by _native.pyx, after the Encoder
# class (_encoder.pxi), whose methods use them.
#
# What this file does not do: encode (_encoder.pxi, _encode_text.pxi).

cdef extern from *:
    """
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #include "_simd.h"
    /* The first of the places i + k (bit k of mask) where p[0:m] occurs in s[0:n],
       or NULL: the vector loops below find where its first two bytes match. */
    static inline const char* bpe_find_in(const char* s, size_t n, const char* p, size_t m, size_t i,
                                          unsigned mask) {
        size_t k;
        for (; mask; mask &= mask - 1) {
            k = i + (size_t)__builtin_ctz(mask);
            if (k + m <= n && memcmp(s + k, p, m) == 0) return s + k;
        }
        return NULL;
    }
    /* Where p[0:m] (m >= 2) first occurs in s[0:n] from byte i on, or NULL: 16
       places a step where both p[0] and p[1] match (two compares and one
       movemask), then memcmp. glibc's memmem took 12% of encoding 10 MB of code
       for "<|" (1.2 GB/s). */
    static const char* bpe_find_from(const char* s, size_t n, const char* p, size_t m, size_t i) {
        const char* hit;
    #if defined(__SSE2__)
        const __m128i a = _mm_set1_epi8(p[0]), b = _mm_set1_epi8(p[1]);
        for (; i + 17 <= n; i += 16) {
            unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(
                _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(s + i)), a),
                _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(s + i + 1)), b)));
            if (mask && (hit = bpe_find_in(s, n, p, m, i, mask)) != NULL) return hit;
        }
    #endif
        for (; i + m <= n; i++)
            if (s[i] == p[0] && memcmp(s + i, p, m) == 0) return s + i;
        return NULL;
    }
    #if BPE_HAVE_AVX2
    /* The same, 32 places a step (_simd.h): a text with no special token is read
       at twice the bytes per step (every encode() looks for them first). */
    BPE_T256 static const char* bpe_find_avx2(const char* s, size_t n, const char* p, size_t m) {
        size_t i = 0;
        const char* hit;
        const __m256i a = _mm256_set1_epi8(p[0]), b = _mm256_set1_epi8(p[1]);
        for (; i + 33 <= n; i += 32) {
            unsigned mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(s + i)), a),
                _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(s + i + 1)), b)));
            if (mask && (hit = bpe_find_in(s, n, p, m, i, mask)) != NULL) return hit;
        }
        return bpe_find_from(s, n, p, m, i);
    }
    #endif
    static const char* bpe_find(const char* s, size_t n, const char* p, size_t m) {
        if (n < m) return NULL;
    #if BPE_HAVE_AVX2
        if (bpe_simd_get() > 0) return bpe_find_avx2(s, n, p, m);
    #endif
        return bpe_find_from(s, n, p, m, 0);
    }
    """
    const char* find_bytes "bpe_find"(const char* s, size_t n, const char* p, size_t m) noexcept nogil


def find_special(str text, tuple longest_first, str prefix):
    """Where the first of the special tokens ``longest_first`` (longest first, all
    beginning with ``prefix``, of 2 bytes or more) is in ``text``: (character
    offset, token), or None. The same answer as ``special_regex(...).search``.

    It searches the text's UTF-8 for the prefix (``bpe_find``, 16 bytes a step,
    or 32 with AVX2; the text's UTF-8 is the one encoding reads next) and tries
    the tokens where it occurs. subtle: raises UnicodeEncodeError on a lone surrogate.

    >>> find_special("a<|b<|end|>", ("<|end|>",), "<|")
    (4, '<|end|>')
    """
    found = find_special_batch([text], longest_first, prefix)
    return None if found is None else found[1:]

def find_special_batch(list texts, tuple longest_first, str prefix):
    """``find_special`` on each text in turn, up to the first that has one: (index
    of that text, character offset, token), or None. The searches of all the
    texts are one stretch without the GIL (from 64 KB in all): the threads of
    ``Tokenizer.encode_batch`` search at once, and do not hand the GIL back and
    forth once per text (which had cost more than the searches).

    >>> find_special_batch(["<|", "a<|end|>"], ("<|end|>",), "<|")
    (1, 1, '<|end|>')
    """
    cdef Py_ssize_t m = len(texts), nt = len(longest_first), k, j = -1, n, pm, total = 0
    cdef const char* p = PyUnicode_AsUTF8AndSize(prefix, &pm)
    cdef const char* hit = NULL
    if pm < 2:
        raise ValueError(f"find_special needs a prefix of 2 bytes or more, got {prefix!r}")
    raws = [token.encode() for token in longest_first]
    cdef const char** ptrs = <const char**>malloc((m + nt) * sizeof(char*))
    cdef Py_ssize_t* lens = <Py_ssize_t*>malloc((m + nt) * sizeof(Py_ssize_t))
    try:
        if ptrs == NULL or lens == NULL:
            raise MemoryError()
        for k in range(m):  # the texts' UTF-8 (kept by the strs), then the tokens'
            text = texts[k]
            if type(text) is not str:
                raise TypeError(f"find_special_batch takes a list of str; item {k} is a {type(text).__name__}")
            ptrs[k] = PyUnicode_AsUTF8AndSize(text, &lens[k])
            total += lens[k]
        for k in range(nt):
            ptrs[m + k] = PyBytes_AS_STRING(raws[k])
            lens[m + k] = PyBytes_GET_SIZE(raws[k])
        if total < (1 << 16):
            k = first_special(ptrs, lens, m, nt, p, pm, &hit, &j)
        else:
            with nogil:
                k = first_special(ptrs, lens, m, nt, p, pm, &hit, &j)
        if k < 0:
            return None
        return k, len(PyUnicode_DecodeUTF8(ptrs[k], hit - ptrs[k], NULL)), longest_first[j]
    finally:
        free(ptrs)
        free(lens)


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
