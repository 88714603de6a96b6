# Cutting a text into chunks a block at a time: 64-byte windows through the
# window scanner (_window.h), what it leaves through the scalar scanners.
# Included once, by _native.pyx, after _scanners.pxi; the encoder (encode_text,
# split_chunks) and the trainer's chunk counter both use it.
#
# Why: the scalar scanner spends a dozen branches on every chunk (which
# alternative? how long a run?), and which way each goes is hard to predict, so
# a third of encoding went into it. The window scanner finds every chunk start of
# 64 bytes with the same few dozen bit operations whatever the text is, and the
# chunks then come out of the bits one ``ctz`` at a time. Where its rules are
# not the whole truth (a number or white space outside ASCII, a possible
# contraction, white space before a newline; _window.h lists them) it says from
# which byte on, and the scalar scanner takes over until past that byte. Both
# give the regex's chunks, so the result never depends on which one cut a chunk.
#
# What this file does not do: look at GPT-2's pattern (its scalar scanner serves
# it), or decide anything about classes: the window scanner reads the scanners'
# class table for characters outside ASCII, and runs only when that table agrees
# with its ASCII classes and its class bits (``_check_window``).

from libc.stdint cimport uint64_t

cdef extern from "_window.h":
    uint64_t window_starts "bpe_window_starts"(const uint8_t* p, int o200k, const uint8_t* cls, int* limit,
                                                int* flag) noexcept nogil
    enum:
        BPE_F_L, BPE_F_N, BPE_F_S, BPE_F_U, BPE_F_W
    int ctz64 "bpe_ctz"(uint64_t x) noexcept nogil

cdef extern from "_simd.h":
    int simd_get "bpe_simd_get"() noexcept nogil
    int simd_set "bpe_simd_set"(int on) noexcept nogil

cdef enum:
    WINDOW = 64         # bytes per window
    CUT_SLACK = 128     # chunks one step of cut_block may add past ``want``

cdef bint WINDOW_OK = False   # the class table agrees with _window.h (set by _check_window)


cdef _check_window(const uint8_t* classes):
    """Use the window scanner only if the class table gives ASCII the classes
    _window.h assumes (``_fill_tables`` calls this before it publishes CLS)."""
    global WINDOW_OK
    cdef int c
    cdef uint8_t want
    if (BPE_F_L, BPE_F_N, BPE_F_S, BPE_F_U, BPE_F_W) != (F_L, F_N, F_S, F_U, F_W):
        raise RuntimeError("_window.h's class bits differ from _scanners.pxi's: make them equal and rebuild")
    for c in range(128):
        if 65 <= c <= 90:
            want = F_L | F_U
        elif 97 <= c <= 122:
            want = F_L | F_W
        elif 48 <= c <= 57:
            want = F_N
        elif 9 <= c <= 13 or c == 32:
            want = F_S
        else:
            want = F_P
        if classes[c] != want:
            WINDOW_OK = False
            return
    simd_get()      # settles AVX2 or SSE2 (_simd.h) before any thread cuts a window
    WINDOW_OK = True


cdef inline int cut_block(int kind, const uint8_t* s, Py_ssize_t n, Py_ssize_t* at,
                          Py_ssize_t* ends, int want) noexcept nogil:
    """Cut chunks from byte at[0] on: ``want`` of them (fewer at the text's end,
    at most want + CUT_SLACK), their end bytes into ``ends``; at[0] moves to the
    last end. Returns how many.

    >>> split_chunks("for x in range(10):", "gpt4")    # cut_block's chunks
    ['for', ' x', ' in', ' range', '(', '10', '):']
    """
    cdef Py_ssize_t i = at[0], base, past
    cdef int nb = 0, limit, flag
    cdef int o200k = kind == KIND_O200K
    cdef bint window = WINDOW_OK and (kind == KIND_GPT4 or kind == KIND_O200K)
    cdef uint64_t starts
    while nb < want and i < n:
        if not window or i + WINDOW > n:
            i = next_end(kind, s, i, n)     # the text's last bytes, or no window scanner
            ends[nb] = i
            nb += 1
            continue
        # a window: every trusted start after byte 0 ends a chunk (at most 63)
        base = i
        starts = window_starts(s + base, o200k, CLS, &limit, &flag)
        starts &= starts - 1
        while starts:
            i = base + ctz64(starts)
            ends[nb] = i
            nb += 1
            starts &= starts - 1
        # i is now the window's last trusted start: its chunk's end is not known
        if limit < WINDOW:
            past = base + flag              # the scalar scanner takes it past the flagged byte
            while i <= past:
                i = next_end(kind, s, i, n)
                ends[nb] = i
                nb += 1
        elif i == base:                     # one chunk longer than the window
            i = next_end(kind, s, i, n)
            ends[nb] = i
            nb += 1
    at[0] = i
    return nb


def _window_in_use():
    """Whether cut_block uses the window scanner here (for tests)."""
    _build_tables()
    return WINDOW_OK   # a bint: True or False


def _simd(mode=None):
    """Which copies the scanners use (_simd.h): 1 the AVX2 ones (only where the
    processor has AVX2; the default there), 0 the SSE2 ones. ``mode`` sets it
    first, for tests and benchmarks: both give the same results. Returns the mode
    in use."""
    if mode is not None:
        simd_set(<int>mode)
    return simd_get()
