# The vocabulary as the encoder holds it (``_Ranks``: token bytes -> rank, in the
# shared hash table), the functions with the Python reference's names that use it
# directly (``bpe_encode_chunk``, ``split_chunks``), and the ids handed out as Python
# lists (one shared int object per id) or NumPy arrays. Included once, by
# _native.pyx, before the Encoder (_encoder.pxi), which makes its output with them.
#
# What this file does not do: encode a text (_encoder.pxi, _encode_text.pxi).

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp, memcpy, memset

import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef object u32_array(const uint32_t* ids, Py_ssize_t n):
    """A new NumPy uint32 array of ids[0:n], made through NumPy's C API.

    Why not ``np.empty`` and the buffer protocol: on a 10-character document those
    cost ~390 ns of a ~670 ns call (a Python-level call, its keyword and dtype
    handling, then a buffer view), where ``PyArray_SimpleNew`` and a ``memcpy``
    cost well under 100 ns; gigatoken's whole call took ~720 ns
    (``benchmarks/per_call.py``).
    """
    cdef cnp.npy_intp dim = n
    arr = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_UINT32)
    if n:
        memcpy(cnp.PyArray_DATA(<cnp.ndarray>arr), ids, n * sizeof(uint32_t))
    return arr



cdef extern from "Python.h":
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    object PyList_New(Py_ssize_t n)
    void incref "Py_INCREF"(PyObject* o)
    void PyList_SET_ITEM(object lst, Py_ssize_t k, PyObject* item)  # steals the reference to item
    void PyObject_GC_Track(PyObject* o)
    void PyObject_GC_UnTrack(PyObject* o)
    int PyObject_GC_IsTracked(PyObject* o)

cdef extern from *:
    """
    /* The item array of a list. */
    static inline PyObject** bpe_list_items(PyObject* l) { return ((PyListObject*)l)->ob_item; }
    /* A list of n items whose item array is allocated but not zeroed (PyList_New
       zeroes it, under the GIL): every item must be written before anyone but the
       maker sees the list, and until then its size stays 0 (bpe_list_filled). */
    static PyObject* bpe_list_unfilled(Py_ssize_t n) {
        PyObject* l = PyList_New(0);
        if (l == NULL || n == 0) return l;
        PyObject** items = (PyObject**)PyMem_Malloc((size_t)n * sizeof(PyObject*));
        if (items == NULL) { Py_DECREF(l); return PyErr_NoMemory(); }
        ((PyListObject*)l)->ob_item = items;
        ((PyListObject*)l)->allocated = n;
        return l;
    }
    /* Once its items are written: the list's size becomes its allocated n. */
    static inline void bpe_list_filled(PyObject* l) { Py_SET_SIZE(l, ((PyListObject*)l)->allocated); }
    /* c more references to o in one step: what c Py_INCREFs do (on an immortal
       object, 3.12+, nothing; a free-threaded build has no single count to add to). */
    static inline void bpe_add_refs(PyObject* o, Py_ssize_t c) {
    #ifdef Py_GIL_DISABLED
        while (c-- > 0) Py_INCREF(o);
    #else
        Py_SET_REFCNT(o, Py_REFCNT(o) + c);
    #endif
    }
    """
    PyObject** list_items "bpe_list_items"(PyObject* l) noexcept nogil
    object list_unfilled "bpe_list_unfilled"(Py_ssize_t n)
    void list_filled "bpe_list_filled"(PyObject* l) noexcept
    void add_refs "bpe_add_refs"(PyObject* o, Py_ssize_t c) noexcept

cdef size_t few_ids = 1024              # lists of fewer ids in all are made the plain way (as_list)


# ---- public API: the same names as the Python reference --------------------------

def bpe_encode_chunk(chunk, ranks):
    """Encode one chunk by rank; the same result as ``ranks.bpe_encode_chunk``.

    Builds a C table from ``ranks`` on every call, so it is for tests and
    comparisons; ``Encoder`` builds its table once.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> bpe_encode_chunk(b"abcd", ranks)
    [258, 100]
    """
    cdef _Ranks r = _Ranks(ranks)
    cdef const uint8_t[:] view = chunk
    cdef Py_ssize_t n = view.shape[0]
    if n == 0:
        return []
    cdef uint32_t whole = rank_of(&r.t, &view[0], n)
    if whole != NO_RANK:
        return [whole]
    cdef uint32_t* out = <uint32_t*>malloc(n * sizeof(uint32_t))
    if out == NULL:
        raise MemoryError()
    cdef Py_ssize_t m
    try:
        m = bpe_merge(&r.t, &view[0], n, out)
        if m < 0:
            raise MemoryError()
        _check_parts(out, m, chunk)
        return [out[k] for k in range(m)]
    finally:
        free(out)


def split_chunks(text, pattern):
    """Cut ``text`` into chunks; the same list as ``patterns.split_chunks``.

    The named patterns use the scanners (``_scanners.pxi``); any other regex uses ``regex``.

    >>> split_chunks("Hello world!!", "gpt4")
    ['Hello', ' world', '!!']
    """
    pattern = _named(pattern)
    cdef int kind = _kind(pattern)
    if kind == KIND_NONE:
        return [text] if text else []
    if kind == KIND_REGEX:
        return _from_core("compile_pattern")(pattern).findall(text)
    _build_tables()
    # subtle: "surrogatepass" lets lone surrogates through as 3-byte sequences, which
    # the scanner decodes like any code point (the regex splits such text too)
    data = text.encode("utf-8", "surrogatepass")
    cdef const uint8_t* s = <const uint8_t*>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, start = 0
    cdef Py_ssize_t ends[BLOCK + CUT_SLACK]
    cdef int nb, j
    out = []
    while i < n:
        nb = cut_block(kind, s, n, &i, ends, BLOCK)
        for j in range(nb):
            out.append(data[start:ends[j]].decode("utf-8", "surrogatepass"))
            start = ends[j]
    return out


cdef class _Ranks:
    """The vocabulary as a C hash table: token bytes -> rank. Never changes once built."""
    cdef Table t
    cdef readonly object ranks   # the dict it was built from (for pickling)
    cdef list ints               # ints[i] is the Python int i, for every rank i: lists are built from these
    cdef PyObject** int_items    # ... and their addresses, for the loop that builds a list
    cdef int front_ids           # the most ids a front-cache entry holds: packed ones need ids < 2^18

    def __dealloc__(self):
        table_free(&self.t)
        free(self.int_items)

    def __cinit__(self):
        memset(&self.t, 0, sizeof(Table))

    def __init__(self, ranks):
        cdef Key k
        self.ranks = ranks
        cap = 16
        while cap < 2 * len(ranks):
            cap *= 2
        if table_init(&self.t, cap) < 0:
            raise MemoryError()
        for token, rank in ranks.items():
            if type(token) is not bytes or not token:
                raise ValueError(f"vocabulary key {token!r} is not a non-empty bytes object")
            if not (0 <= rank < NO_RANK):
                raise ValueError(f"rank {rank} of {token!r} is out of range (0 to {NO_RANK - 1})")
            k = make_key(<const uint8_t*>PyBytes_AS_STRING(token), PyBytes_GET_SIZE(token))
            if table_find(&self.t, &k) == NULL:
                if table_insert(&self.t, &k, rank, 0) < 0:
                    raise MemoryError()
        if table_small_ranks(&self.t) < 0 or table_filter(&self.t) < 0:
            raise MemoryError()
        if self.has_all_bytes() and space_runs_fill(&self.t) < 0:
            raise MemoryError()
        # one int object per rank, made once: a list of ids then holds references to
        # these instead of a new object per id (which cost ~17% of encode_ordinary);
        # not for a sparse table (ranks far above its size), whose lists make their ints
        top = max(ranks.values(), default=-1) + 1
        self.front_ids = FRONT_PACKED_IDS if CAN_PACK and top <= (1 << 18) else FRONT_IDS
        if top <= 4 * len(ranks) + 1024:
            self.ints = list(range(top))
            self.int_items = <PyObject**>malloc(max(top, 1) * sizeof(PyObject*))
            if self.int_items == NULL:
                raise MemoryError()
            for i, obj in enumerate(self.ints):
                self.int_items[i] = <PyObject*>obj

    cdef list as_list(self, const uint32_t* ids, Py_ssize_t m):
        """A Python list of the ids ``ids[0:m]`` (every one a rank of this table)."""
        cdef Py_ssize_t k
        cdef PyObject* o
        if self.int_items == NULL:
            return [ids[k] for k in range(m)]
        lst = PyList_New(m)
        for k in range(m):
            o = self.int_items[ids[k]]
            incref(o)
            PyList_SET_ITEM(lst, k, o)
        return lst

    def has_all_bytes(self):
        """True when every single byte is a token (the merge loop starts from them)."""
        cdef uint8_t b
        for k in range(256):
            b = k
            if rank_of(&self.t, &b, 1) == NO_RANK:
                return False
        return True


cdef object ids_array(const uint32_t* ids, size_t n):
    """ids[0:n] as a new NumPy uint32 array: ``u32_array`` under 64 Ki ids, else a
    copy that lets go of the GIL (``ids_as_arrays``)."""
    if n < 65536:
        return u32_array(ids, n)
    return ids_as_arrays(ids, &n, 1)[0]


cdef list ids_as_lists(_Ranks R, const uint32_t* ids, const size_t* ends, Py_ssize_t m, bint track,
                   uint32_t** uses_at, uint32_t** touched_at):
    """ids[0:ends[m-1]] as m lists: list k holds ids ends[k-1] to ends[k] (from 0).

    Each item is a reference to the table's int object for that id (``R.ints``),
    so making a list writes pointers and counts references, and makes no int.
    Done in three steps, so that threads that each encode a share of a batch
    (``Tokenizer.encode_batch``) do most of it at once:
    1. under the GIL, the lists are made, untracked (the cycle collector, run
       by another thread, does not look into a list being filled), with room
       for their items, not zeroed (PyList_New's zeroing had been ~2% of the
       batch, under the GIL) and a size of 0 until step 3;
    2. without it, their items are written, and ``uses[i]`` counts each id i
       (``touched`` lists the ids seen, so step 3 visits only those);
    3. under the GIL again, each id's int object gets its ``uses[i]`` new
       references in one addition, and the lists are tracked (unless ``track``
       is false: see ``encode_batch``).
    Step 3 touches each distinct id once (some thousands) where one
    ``Py_INCREF`` per id (millions) had to be under the GIL, and had taken
    ~15% of encoding code; see _encode_text.pxi. Fewer than ``few_ids`` ids
    in all (or a sparse vocabulary, without shared ints) take ``as_list``.
    """
    cdef Py_ssize_t k, j = 0, q, nt = 0
    cdef size_t e, top = len(R.ints) if R.ints is not None else 0
    cdef uint32_t i
    cdef PyObject** items
    cdef PyObject** ints = R.int_items
    cdef PyObject** lists
    cdef uint32_t* uses
    cdef uint32_t* touched
    cdef size_t total = ends[m - 1] if m else 0
    if ints == NULL or total < few_ids or total >= <size_t>0xFFFFFFFF:
        return [R.as_list(ids + (ends[k - 1] if k else 0), ends[k] - (ends[k - 1] if k else 0))
                for k in range(m)]
    if uses_at[0] == NULL:   # the caller's counts, made at its first long list and kept
        uses_at[0] = <uint32_t*>calloc(top, sizeof(uint32_t))
        touched_at[0] = <uint32_t*>malloc(top * sizeof(uint32_t))
        if uses_at[0] == NULL or touched_at[0] == NULL:
            free(uses_at[0])
            free(touched_at[0])
            uses_at[0] = touched_at[0] = NULL
            raise MemoryError()
    uses, touched = uses_at[0], touched_at[0]
    out = PyList_New(m)
    lists = list_items(<PyObject*>out)
    for k in range(m):   # 1 (their size stays 0 until their items are written)
        lst = list_unfilled(ends[k] - (ends[k - 1] if k else 0))
        PyObject_GC_UnTrack(<PyObject*>lst)
        incref(<PyObject*>lst)
        PyList_SET_ITEM(out, k, <PyObject*>lst)
    with nogil:          # 2
        for k in range(m):
            items = list_items(lists[k])
            e = ends[k]
            q = 0
            while <size_t>j < e:
                i = ids[j]
                items[q] = ints[i]
                if uses[i] == 0:
                    touched[nt] = i
                    nt += 1
                uses[i] += 1
                j += 1
                q += 1
    for q in range(nt):  # 3
        i = touched[q]
        add_refs(ints[i], uses[i])
        uses[i] = 0
    for k in range(m):
        list_filled(lists[k])
    if track:
        for k in range(m):
            PyObject_GC_Track(lists[k])
    return out


cdef list ids_as_arrays(const uint32_t* ids, const size_t* ends, Py_ssize_t m):
    """ids[0:ends[m-1]] as m NumPy uint32 arrays, array k holding ids ends[k-1]
    to ends[k] (from 0): made under the GIL (NumPy's C API, see ``u32_array``),
    filled without it (from 64 Ki ids in all; a shorter copy is quicker than
    letting go of the GIL and taking it back)."""
    cdef void** dest = <void**>malloc((m if m else 1) * sizeof(void*))
    cdef Py_ssize_t k
    cdef cnp.npy_intp dim
    if dest == NULL:
        raise MemoryError()
    out = []
    try:
        for k in range(m):
            dim = ends[k] - (ends[k - 1] if k else 0)
            arr = cnp.PyArray_SimpleNew(1, &dim, cnp.NPY_UINT32)
            dest[k] = cnp.PyArray_DATA(<cnp.ndarray>arr)
            out.append(arr)
        if m and ends[m - 1] >= 65536:
            with nogil:
                copy_parts(dest, ids, ends, m)
        else:
            copy_parts(dest, ids, ends, m)
    finally:
        free(dest)
    return out


cdef void copy_parts(void** dest, const uint32_t* ids, const size_t* ends, Py_ssize_t m) noexcept nogil:
    """ids[ends[k-1]:ends[k]] into dest[k], for k < m (from 0)."""
    cdef Py_ssize_t k
    cdef size_t start
    for k in range(m):
        start = ends[k - 1] if k else 0
        memcpy(dest[k], ids + start, (ends[k] - start) * sizeof(uint32_t))
