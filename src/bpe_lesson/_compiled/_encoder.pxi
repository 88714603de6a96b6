# The encoder, compiled (part of the one extension, ``_native.pyx``): same names and the same ids as the readable Python path.
#
# Read ``byte_pair_merge`` in ``ranks.py``, ``Tokenizer.encode_ordinary`` in ``tokenizer/core.py`` and
# ``split_chunks`` in ``patterns.py`` first. This file does the same three steps (cut
# the text into chunks, look each chunk up, rank-merge the ones that are not a token)
# with C data and without the interpreter:
#
# * ``Encoder(ranks, pattern)`` with ``.encode_ordinary(text)``, ``.encode_to_numpy(text)``,
#   ``.encode_batch(texts)`` and ``.encode_chunk(chunk)``: what ``Tokenizer`` calls
#   when its backend is "cython"; ``.encode_utf8(data)`` takes UTF-8 bytes (a binary
#   stream's); ``.helper(k)`` serves ``encode_batch``'s threads.
# * Beside it: the vocabulary table and the lists and arrays of ids
#   (``_vocab_table.pxi``, with ``bpe_encode_chunk`` and ``split_chunks``, the same
#   functions as the Python ones), and the special-token search
#   (``_special_search.pxi``: ``find_special_batch``, ``track_lists``).
#
# For the three named patterns (gpt2, gpt4, o200k) a hand-written scanner replaces
# the regex. Each scanner is that regex transcribed alternative by alternative,
# over a table of character classes taken from tiktoken's own regex engine
# (``_internal/char_classes.py``), so the two agree on every code point; tests/test_scanner.py
# checks the chunks against ``regex.findall`` and Hugging Face's regex engine on random and
# real text. Any other pattern is split by the ``regex`` module, as in Python.
#
# What this file does not do: count chunks for training (``ChunkCounter`` lives
# with the trainer, in ``_chunk_counter.pxi``), special tokens (``Tokenizer.encode``
# cuts them out before it calls ``encode_ordinary``; ``find_special_batch`` only
# finds the first one, for its error), decoding (a dict lookup, already fast), or
# encoding text with lone surrogates (like the Python path it raises
# ``UnicodeEncodeError``; ``split_chunks`` lets them through, as the regex does).
#

cdef size_t cache_entries = 1 << 18   # the chunk cache starts over when it holds this many chunks
cdef size_t cache_bytes = 1 << 26     # ... or this many bytes of chunk text


def _set_cache_limits(entries=1 << 18, nbytes=1 << 26):
    """Change when chunk caches start over (tests use tiny limits); returns the old ones."""
    global cache_entries, cache_bytes
    old = (cache_entries, cache_bytes)
    cache_entries, cache_bytes = entries, nbytes
    return old


cdef size_t keep_ids = 1 << 24          # an encoder keeps its output buffer between calls up to this many ids


cdef struct IdBuf:      # a growing buffer of ids (the output of an encode)
    uint32_t* p
    size_t n, cap


cdef class Encoder:
    """Text -> ids for one vocabulary and one split pattern; the compiled twin of
    ``Tokenizer.encode_ordinary`` / ``Tokenizer.encode_chunk``.

    ``ranks``: ``{token bytes: rank}``, with every single byte present.
    ``pattern``: a pattern name, a regex, or ``None`` (the whole text is one chunk).

    Holds a cache of chunk -> ids and an output buffer. Safe to share between
    threads: while one thread is inside ``encode_ordinary`` (without the GIL),
    another gets a spare encoder with its own caches over the same vocabulary table.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> Encoder(ranks, None).encode_ordinary("abcab")
    [257, 256]
    >>> Encoder(ranks, None).encode_to_numpy("abcab")
    array([257, 256], dtype=uint32)
    """
    cdef _Ranks R
    cdef Table cache
    cdef FrontTable front
    cdef IdBuf buf
    cdef readonly object pattern
    cdef int kind
    cdef object findall
    cdef bint busy
    cdef list spare
    cdef list helpers            # helper(k) for k >= 1: copies kept for the threads of a batch
    cdef uint32_t* uses          # uses[i]: how many times id i is in the lists being made (see ids_as_lists)
    cdef uint32_t* touched       # the ids whose uses are not 0, in the order first seen

    def __cinit__(self):
        memset(&self.cache, 0, sizeof(Table))
        memset(&self.buf, 0, sizeof(IdBuf))
        self.uses = NULL
        self.touched = NULL
        if front_new(&self.front, FRONT_BITS) < 0:
            raise MemoryError()
        # its pages mapped now, as the encoder is built, not in its first call: that
        # first touch (the kernel zeroing 2 MB) took ~120 us, as long as encoding 20
        # documents of prose the first time (benchmarks/per_document.py, cold)
        big_touch(self.front.e, (<size_t>1 << FRONT_BITS) * sizeof(Front))
        self.busy = False
        self.spare = []
        self.helpers = []

    def __init__(self, ranks, pattern=None):
        self.R = ranks if isinstance(ranks, _Ranks) else _Ranks(ranks)
        if not self.R.has_all_bytes():
            raise ValueError("the vocabulary lacks some single-byte tokens; the compiled encoder needs all 256")
        self._set_pattern(pattern)
        if table_init(&self.cache, 1024) < 0:
            raise MemoryError()

    cdef _set_pattern(self, pattern):
        self.pattern = _named(pattern)  # resolved by the caller (a name is looked up)
        self.kind = _kind(self.pattern)
        self.findall = _from_core("compile_pattern")(self.pattern).findall if self.kind == KIND_REGEX else None
        if self.kind >= KIND_GPT2:
            _build_tables()

    def __dealloc__(self):
        table_free(&self.cache)
        front_free(&self.front)
        free(self.buf.p)
        free(self.uses)
        free(self.touched)

    def __reduce__(self):
        return (Encoder, (self.R.ranks, self.pattern))

    def copy(self):
        """A new encoder on the same vocabulary table, with empty caches."""
        cdef Encoder e = Encoder.__new__(Encoder)
        e.R = self.R
        e._set_pattern(self.pattern)
        if table_init(&e.cache, 1024) < 0:
            raise MemoryError()
        return e

    def helper(self, Py_ssize_t k):
        """Encoder k of a batch's threads: this one for k = 0; for k >= 1, a copy made
        the first time and kept with this one, so that the thread that encodes its
        shares with it finds the caches it warmed in the last batch (a spare from
        ``_claim`` goes to whichever thread asks, and a share then runs on a core
        whose L2 holds the other encoder's entries)."""
        if k < 0:
            raise ValueError(f"helper number must be 0 or more, got {k}")
        if k == 0:
            return self
        while len(self.helpers) < k:
            self.helpers.append(self.copy())
        return self.helpers[k - 1]

    def _front_size(self):
        """(entries of the front cache, entries it has pushed out since it was made): for tests."""
        return 1 << self.front.bits, self.front.evictions

    def _front_held(self):
        """How many front-cache entries hold a chunk: for tests."""
        cdef size_t k, held = 0
        for k in range(<size_t>1 << self.front.bits):
            held += self.front.e[k].klen != 0
        return held

    def _cache_size(self):
        """(slots of the chunk cache, chunks it holds): for tests."""
        return self.cache.mask + 1, self.cache.used

    def encode_chunk(self, str chunk):
        """Ids of one pre-tokenized chunk (cached), as ``Tokenizer.encode_chunk``."""
        cdef Encoder e = self._claim()
        try:
            e._encode_chunk(chunk)
            return e._list()
        finally:
            self._release(e)

    def encode_ordinary(self, str text):
        """Encode text with no special-token handling, as ``Tokenizer.encode_ordinary``."""
        cdef Encoder e = self._claim()
        try:
            e._encode_ordinary(text)
            return e._list()
        finally:
            self._release(e)

    def encode_to_numpy(self, str text):
        """``encode_ordinary`` as a NumPy uint32 array, with no Python int made on the way.

        A text of 64 KB or more that the kept buffer has no room for (a new encoder's
        first call, or a longer text than before) is encoded straight into the array,
        made one id per byte long and then cut to length; otherwise the ids are
        copied out of the kept buffer. Why: each 4 KB page of new memory costs a
        fault at its first write, and going through a new buffer paid that twice
        (benchmarks/README.md, step 5). The buffer then grows, unwritten, so that
        the next calls copy from it: an array made anew per call would fault again.
        """
        cdef Encoder e = self._claim()
        cdef IdBuf kept
        cdef Py_buffer view
        cdef Py_ssize_t n = 0
        cdef size_t got
        try:
            if e.kind != KIND_REGEX:   # (a regex encoder converts chunk by chunk, not the whole text)
                # subtle: raises UnicodeEncodeError on a lone surrogate before any buffer is touched
                PyUnicode_AsUTF8AndSize(text, &n)
            if e.kind == KIND_REGEX or n < 65536 or e.buf.cap >= <size_t>(n + FRONT_IDS):
                e._encode_ordinary(text)
                return ids_array(e.buf.p, e.buf.n)
            arr = np.empty(n + FRONT_IDS, dtype=np.uint32)    # room for encode_text, see _encode_ordinary
            PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE)
            kept = e.buf
            e.buf.p = <uint32_t*>view.buf
            e.buf.cap = n + FRONT_IDS
            try:
                e._encode_ordinary(text)
                got = e.buf.n
            finally:
                e.buf = kept
                PyBuffer_Release(&view)
            arr.resize(got, refcheck=False)     # realloc: the pages past the ids go back unwritten
            # the next call on a text this long goes through the kept buffer: its pages,
            # written from then on, stay with the encoder (up to keep_ids ids), where an
            # array as long as the text, made anew per call, would be faulted in again
            if <size_t>(n + FRONT_IDS) <= keep_ids:   # (_release gives a larger buffer back)
                e._room(n + FRONT_IDS)          # (not written here: no page faults yet)
            return arr
        finally:
            self._release(e)

    def encode_unless_special(self, str text, SpecialSearch refuse, bint array=False):
        """``encode_ordinary(text)`` (``array``: ``encode_to_numpy(text)``), or None when
        ``text`` holds one of ``refuse``'s special tokens (None: refuse nothing); the
        caller then raises, naming the token. One call where ``Tokenizer.encode`` had
        made four (the argument sets, the search, the encoding, the array): on a
        70-character document those had cost 3-4 us, three times the encoding.
        subtle: raises UnicodeEncodeError on a lone surrogate, before encoding.

        >>> e = Encoder({bytes([i]): i for i in range(256)})
        >>> s = SpecialSearch(("<|end|>",), "<|")
        >>> e.encode_unless_special("ab", s), e.encode_unless_special("a<|end|>", s)
        ([97, 98], None)
        """
        cdef Py_ssize_t n, which
        cdef const char* at
        cdef const char* s
        cdef Encoder e
        if refuse is not None and refuse.nt:
            s = PyUnicode_AsUTF8AndSize(text, &n)
            if refuse._found(s, n, &at, &which):
                return None
        if array:
            if len(text) >= 16384:
                return self.encode_to_numpy(text)   # its path for long texts (no copy)
            e = self._claim()
            try:
                e._encode_ordinary(text)
                return u32_array(e.buf.p, e.buf.n)
            finally:
                self._release(e)
        e = self._claim()
        try:
            e._encode_ordinary(text)
            return e._list()
        finally:
            self._release(e)

    def encode_utf8(self, data, SpecialSearch refuse, bint array=True):
        """``encode_unless_special(data.decode("utf-8"), refuse, array)`` for UTF-8 bytes
        (any buffer), with no str made: the file's bytes go straight to the scanner.
        None when the compiled encoder does not take them: not valid UTF-8, one of
        ``refuse``'s special tokens in them, or a pattern with no compiled scanner;
        the caller then decodes them and takes the str path, which raises naming the
        byte or the token. Why: a stream read as text was decoded to a str, then each
        stretch turned back into UTF-8 for the scanner; on 64K stretches of prose
        that second conversion had cost a third of the time (387 against 585 MB/s).

        >>> e = Encoder({bytes([i]): i for i in range(256)}, "gpt4")
        >>> e.encode_utf8(b"ab", None, False), e.encode_utf8(b"\\xff", None)
        ([97, 98], None)
        """
        cdef const uint8_t[::1] view = data
        cdef Py_ssize_t n = view.shape[0], which
        cdef const uint8_t* s = &view[0] if n else <const uint8_t*>b""
        cdef const char* at
        cdef Encoder e
        cdef int status = 0
        cdef size_t bad
        if self.kind == KIND_REGEX:
            return None
        with nogil:
            bad = utf8_invalid_at(s, n)
        if bad != <size_t>n:
            return None
        if refuse is not None and refuse.nt and refuse._found(<const char*>s, n, &at, &which):
            return None
        e = self._claim()
        try:
            e.buf.n = 0
            e._room(n + FRONT_IDS)
            with nogil:
                status = encode_text(&e.R.t, &e.cache, &e.front, e.R.front_ids, e.kind, s, n, &e.buf)
            if status < 0:
                raise MemoryError()
            return ids_array(e.buf.p, e.buf.n) if array else e._list()
        finally:
            self._release(e)

    def encode_batch(self, list texts, bint track=True, bint array=False):
        """``[encode_ordinary(t) for t in texts]``, with all the scanning and merging in
        one stretch without the GIL (so threads that each take a share run in parallel).

        ``track=False``: the lists are left untracked by the cycle collector, for a
        caller that makes a batch in shares and then passes the whole of it to
        ``track_lists``. A collection that starts while the shares are being made
        (another thread's lists count towards starting one) then does not walk
        millions of ids under the GIL: that walk had taken 16-21 ms of a 70 ms
        batch of 10 MB of code on 2 threads, and had kept them from scaling.

        ``array=True``: NumPy uint32 arrays in place of lists (``encode_to_numpy``
        of each text): no int is referenced, so nothing is counted under the GIL,
        and freeing them is one free per text, not one decrement per id.

        >>> Encoder({bytes([i]): i for i in range(256)}).encode_batch(["ab", ""], array=True)
        [array([97, 98], dtype=uint32), array([], dtype=uint32)]
        """
        cdef Encoder e = self._claim()
        try:
            return e._encode_batch(texts, track, array)
        finally:
            self._release(e)

    cdef Encoder _claim(self):
        """This encoder, or a spare when another thread is using it (decided under the GIL)."""
        if not self.busy:
            self.busy = True
            return self
        return self.spare.pop() if self.spare else self.copy()

    cdef _release(self, Encoder e):
        # a buffer of more than keep_ids ids is given back rather than kept for the next call
        if e.buf.cap > keep_ids:
            free(e.buf.p)
            memset(&e.buf, 0, sizeof(IdBuf))
        e.buf.n = 0
        if e is self:
            self.busy = False
        else:
            self.spare.append(e)

    cdef _room(self, size_t n):
        """Make ``buf`` hold at least n ids."""
        if grow(<void**>&self.buf.p, &self.buf.cap, n, sizeof(uint32_t)) < 0:
            raise MemoryError()

    cdef list _list(self):
        """The ids in ``buf`` as a list."""
        cdef size_t end = self.buf.n
        if end < few_ids:  # (what ids_as_lists would do, without its list of one list)
            return self.R.as_list(self.buf.p, end)
        return ids_as_lists(self.R, self.buf.p, &end, 1, True, &self.uses, &self.touched)[0]

    cdef _encode_chunk(self, str chunk):
        """The ids of one chunk into ``buf``."""
        cdef Py_ssize_t n
        cdef const uint8_t* p = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
        self.buf.n = 0
        self._room(n + FRONT_IDS)
        if n and encode_piece(&self.R.t, &self.cache, p, n, &self.buf) < 0:
            raise MemoryError()

    cdef list _encode_batch(self, list texts, bint track, bint array):
        cdef Py_ssize_t m = len(texts), k, n, total = 0
        cdef int status = 0
        if self.kind == KIND_REGEX or self.kind == KIND_NONE or m == 0:
            out = []
            for text in texts:
                self._encode_ordinary(text)
                out.append(ids_array(self.buf.p, self.buf.n) if array else self.R.as_list(self.buf.p, self.buf.n))
            return out
        # under the GIL: each text's UTF-8 (an ASCII str is its own), kept alive in `data`
        cdef const uint8_t** ptrs = <const uint8_t**>malloc(m * sizeof(uint8_t*))
        cdef Py_ssize_t* lens = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        cdef size_t* ends = <size_t*>malloc(m * sizeof(size_t))
        data = []
        try:
            if ptrs == NULL or lens == NULL or ends == NULL:
                raise MemoryError()
            for k in range(m):
                text = texts[k]
                if type(text) is not str:
                    raise TypeError(f"encode_batch takes a list of str; item {k} is a {type(text).__name__}")
                # the str's UTF-8, kept by the str (see _encode_ordinary)
                ptrs[k] = <const uint8_t*>PyUnicode_AsUTF8AndSize(text, &n)
                lens[k] = n
                data.append(text)
                total += lens[k]
            self.buf.n = 0
            self._room(total + FRONT_IDS)
            with nogil:
                for k in range(m):
                    status = encode_text(&self.R.t, &self.cache, &self.front, self.R.front_ids, self.kind,
                                         ptrs[k], lens[k], &self.buf)
                    if status < 0:
                        break
                    ends[k] = self.buf.n
            if status < 0:
                raise MemoryError()
            return (ids_as_arrays(self.buf.p, ends, m) if array
                    else ids_as_lists(self.R, self.buf.p, ends, m, track, &self.uses, &self.touched))
        finally:
            free(ptrs)
            free(lens)
            free(ends)

    cdef _encode_ordinary(self, str text):
        """The ids of a text into ``buf``."""
        cdef const uint8_t* s
        cdef Py_ssize_t n
        cdef int kind = self.kind, status = 0
        self.buf.n = 0
        if kind == KIND_REGEX:
            for chunk in self.findall(text):
                # subtle: raises UnicodeEncodeError on a lone surrogate, as chunk.encode() does
                s = <const uint8_t*>PyUnicode_AsUTF8AndSize(chunk, &n)
                self._room(self.buf.n + n + FRONT_IDS)
                if n and encode_piece(&self.R.t, &self.cache, s, n, &self.buf) < 0:
                    raise MemoryError()
            return
        # The text's UTF-8: an ASCII str's own bytes; for any other str, a copy that
        # Python makes once and keeps with the str until the str goes, so encoding
        # the same str again skips the conversion (the first time costs what
        # text.encode() costs).
        # subtle: raises UnicodeEncodeError on a lone surrogate, as text.encode() does
        s = <const uint8_t*>PyUnicode_AsUTF8AndSize(text, &n)
        # every chunk gives at most one id per byte: n ids (and FRONT_IDS of slack, see
        # encode_text) is room enough, so the loop never checks
        self._room(n + FRONT_IDS)
        with nogil:
            status = encode_text(&self.R.t, &self.cache, &self.front, self.R.front_ids, kind, s, n, &self.buf)
        if status < 0:
            raise MemoryError()
