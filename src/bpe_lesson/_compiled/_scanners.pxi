# The scanners: the regex of each named pattern (gpt2, gpt4, o200k), by hand.
# Included once, by _native.pyx; the encoder (_encoder.pxi) and the trainer's
# chunk counter (_chunk_counter.pxi) both use it.
#
# Each scanner is its regex transcribed alternative by alternative (the comments
# quote the piece of regex each branch implements), over a table of character
# classes taken from tiktoken's own regex engine. That table is built in ONE
# place, ``_internal/char_classes.py`` (``class_tables``); here it is only read, through
# the pointers below, which ``_build_tables`` fills once per extension (the bytes
# themselves are built once per process and shared). tests/test_scanner.py checks
# the chunks against ``regex.findall`` on random and real text.
#
# What this file does not do: count or encode chunks (the including module does),
# or handle any other regex (the ``regex`` module splits those).

from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport memcpy
from cpython.bytes cimport PyBytes_AS_STRING

import threading


# how the text is cut into chunks
cdef enum:
    KIND_NONE = 0     # pattern=None: the whole text is one chunk
    KIND_REGEX = 1    # any other regex: the ``regex`` module splits
    KIND_GPT2 = 2
    KIND_GPT4 = 3
    KIND_O200K = 4


# ---- what the Python core hands in ----------------------------------------------------
#
# The extension imports no module of the package: ``_compiled/backend.py``, which loads
# it, hands it once (``configure``) the few values of the Python core it uses, so the
# imports run one way (the core -> the extension, never back).
_NAMED = {}                 # the named patterns: "gpt2", "gpt4", "o200k" -> the regex
_KINDS = {}                 # the named patterns' regexes -> their scanner (KIND_*)
_core = {}                  # "compile_pattern", "class_tables", "class_bits", "vocab_from_merges", "format_merge"


def configure(*, patterns, compile_pattern, class_tables, class_bits, vocab_from_merges, format_merge):
    """Hand the extension what it takes from the Python core: the named patterns
    (``patterns.PATTERNS``), the splitter of any other regex (``patterns.compile_pattern``),
    the scanners' class table (``char_classes.class_tables``, built on first use) and its
    bits by name, the trainer's base vocabulary (``ranks.vocab_from_merges``) and its
    verbose line (``textbook.format_merge``)."""
    _NAMED.clear()
    _NAMED.update(patterns)
    _KINDS.clear()
    _KINDS.update({patterns["gpt2"]: KIND_GPT2, patterns["gpt4"]: KIND_GPT4, patterns["o200k"]: KIND_O200K})
    _core.update(compile_pattern=compile_pattern, class_tables=class_tables, class_bits=dict(class_bits),
                 vocab_from_merges=vocab_from_merges, format_merge=format_merge)


cdef _from_core(str name):
    try:
        return _core[name]
    except KeyError:
        raise RuntimeError("the compiled extension was loaded without bpe_lesson._compiled.backend, "
                           "which hands it the core's patterns and tables (configure)") from None


cdef _named(pattern):
    """A pattern as the caller gave it, resolved already (the regex, or None), or a pattern's name."""
    return _NAMED.get(pattern, pattern) if isinstance(pattern, str) else pattern


cdef int _kind(pattern):
    """The scanner for a (resolved) pattern."""
    if pattern is None:
        return KIND_NONE
    return _KINDS.get(pattern, KIND_REGEX)


# ---- the character-class table (built in _internal/char_classes.py) ---------------------

# the class bits, as _char_classes defines them (``_fill_tables`` checks they match)
cdef enum:
    F_L = 1     # \p{L}
    F_N = 2     # \p{N}
    F_S = 4     # \s
    F_U = 8     # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]   (o200k: "upper-case-like")
    F_W = 16    # [\p{Ll}\p{Lm}\p{Lo}\p{M}]         (o200k: "lower-case-like")
    F_P = 32    # [^\s\p{L}\p{N}]                   (punctuation, symbols, marks, ...)

_tables_lock = threading.Lock()
cdef const uint8_t* CLS = NULL    # code point -> F_* bits, for all 0x110000 code points
cdef object _cls_bytes = None     # the bytes CLS points into (kept alive here)
cdef uint8_t CI_ASCII[128]        # ASCII code point -> the contraction letter it equals under (?i), or 0
cdef uint32_t CI_EXTRA_CP[16]     # non-ASCII code points that equal one of them under (?i) (e.g. U+017F)
cdef uint8_t CI_EXTRA_CH[16]
cdef int N_CI_EXTRA = 0


def _build_tables():
    """Point ``CLS`` and the (?i) letter tables at ``char_classes.class_tables()`` (``configure``)."""
    if CLS != NULL:
        return
    with _tables_lock:
        # subtle: two threads may start at once (chunks.count_chunk_bytes starts one
        # counter per core); without the lock the second rewrites CI_ASCII while the
        # first is already scanning with it
        if CLS == NULL:
            _fill_tables()


cdef _fill_tables():
    global CLS, _cls_bytes, N_CI_EXTRA
    bits = {F_L: "F_L", F_N: "F_N", F_S: "F_S", F_U: "F_U", F_W: "F_W", F_P: "F_P"}
    given = _from_core("class_bits")
    for value, name in bits.items():
        if given.get(name) != value:
            raise RuntimeError(f"char_classes.{name} is {given.get(name)}, "
                               f"_scanners.pxi reads it as {value}: make them equal and rebuild")
    classes, ci_ascii, ci_extra = _from_core("class_tables")()
    if len(classes) != 0x110000 or len(ci_ascii) != 128 or len(ci_extra) > 16:
        raise RuntimeError("_char_classes.class_tables() returned tables of the wrong size")
    memcpy(CI_ASCII, PyBytes_AS_STRING(ci_ascii), 128)
    for k, (c, letter) in enumerate(ci_extra):
        CI_EXTRA_CP[k] = c
        CI_EXTRA_CH[k] = letter
    N_CI_EXTRA = len(ci_extra)
    _cls_bytes = classes
    _check_window(<const uint8_t*>PyBytes_AS_STRING(classes))   # in _window_cut.pxi
    CLS = <const uint8_t*>PyBytes_AS_STRING(classes)  # last: a thread that sees CLS set finds every table complete


def _class_of(str ch):
    """The F_* bits of one character, as the scanners read them (for tests)."""
    _build_tables()
    return CLS[ord(ch)]


# ---- the scanners ----------------------------------------------------------------
#
# ``next_end(kind, s, i, n)`` is where the chunk that starts at byte i ends: what
# the regex's next match would be. ``s`` is UTF-8; a code point below 0x80 is its
# own byte (the fast path), any other is decoded and looked up in CLS.
#
# How the regex engine reads an alternation, which every branch below follows:
# it tries the alternatives in order at position i and takes the first that
# matches; inside one, a greedy quantifier first takes all it can and gives back
# one character at a time until the rest matches; a possessive one (``++``,
# ``?+``) never gives back. Every character is L, N, whitespace or P, and each
# pattern's last alternatives match any whitespace, so some alternative always
# matches and the chunks cover the text.

cdef extern from "_utf8.h":   # the decoder the window scanner (_window.h) uses too
    int utf8_wide_len "bpe_utf8_wide_len"(unsigned b) noexcept nogil
    uint32_t utf8_wide_cp "bpe_utf8_wide_cp"(const uint8_t* p, int length) noexcept nogil
    size_t utf8_invalid_at "bpe_utf8_invalid_at"(const uint8_t* s, size_t n) noexcept nogil


cdef inline uint32_t dec(const uint8_t* s, Py_ssize_t i, int* ln) noexcept nogil:
    """The code point at byte i and its length in bytes (the UTF-8 is valid)."""
    cdef uint32_t b = s[i]
    if b < 0x80:
        ln[0] = 1
        return b
    ln[0] = utf8_wide_len(b)
    return utf8_wide_cp(s + i, ln[0])


cdef inline uint8_t cls_at(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, int* ln) noexcept nogil:
    """The class bits of the code point at byte i (0 past the end)."""
    if i >= n:
        ln[0] = 0
        return 0
    if s[i] < 0x80:
        ln[0] = 1
        return CLS[s[i]]
    return CLS[dec(s, i, ln)]


cdef inline uint8_t ci(uint32_t c) noexcept nogil:
    """The contraction letter ("'", 's', 'd', ...) that c equals under (?i), or 0."""
    cdef int k
    if c < 128:
        return CI_ASCII[c]
    for k in range(N_CI_EXTRA):
        if CI_EXTRA_CP[k] == c:
            return CI_EXTRA_CH[k]
    return 0


cdef inline uint8_t ci_at(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, int* ln) noexcept nogil:
    if i >= n:
        ln[0] = 0
        return 0
    return ci(dec(s, i, ln))


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* How many of the 8 bytes at p, from the first, are ASCII bytes in [lo, hi]
       (fold: after setting bit 0x20, which lower-cases ASCII letters). Eight bytes
       at once in one 64-bit word, with no branch per byte (SWAR): each byte's top
       bit is cleared first, so adding to one byte never carries into the next. */
    static inline int bpe_ascii_span8(const unsigned char* p, unsigned lo, unsigned hi, int fold) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
        uint64_t w, x, in, out;
        memcpy(&w, p, 8);
        x = (fold ? (w | 0x2020202020202020ULL) : w) & ~tops;
        in = (x + (0x80 - lo) * ones) & ~(x + (0x7F - hi) * ones) & ~w & tops;
        out = ~in & tops;                   /* the top bit of every byte outside the range */
        return out ? __builtin_ctzll(out) >> 3 : 8;
    #else
        int k = 0;
        while (k < 8 && p[k] < 0x80 && (unsigned)((fold ? (p[k] | 0x20) : p[k]) - lo) <= hi - lo) k++;
        return k;
    #endif
    }
    """
    int ascii_span8 "bpe_ascii_span8"(const uint8_t* p, unsigned lo, unsigned hi, int fold) noexcept nogil


cdef inline Py_ssize_t ascii_run(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t bit) noexcept nogil:
    """Where the ASCII part of a run of class ``bit`` (F_L, F_U, F_W or F_N) starting at
    byte i ends, eight bytes a step: an ASCII letter is L, an upper-case one U, a
    lower-case one W, a digit N, and no other ASCII byte is any of these."""
    cdef int k
    cdef unsigned lo, hi
    cdef int fold = 0
    if bit == F_L:
        lo, hi, fold = 97, 122, 1     # a-z, A-Z
    elif bit == F_W:
        lo, hi = 97, 122              # a-z
    elif bit == F_U:
        lo, hi = 65, 90               # A-Z
    elif bit == F_N:
        lo, hi = 48, 57               # 0-9
    else:
        return i
    while i + 8 <= n:
        k = ascii_span8(s + i, lo, hi, fold)
        i += k
        if k < 8:
            break
    return i


cdef inline Py_ssize_t ascii_span(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t bit) noexcept nogil:
    """Where the ASCII bytes of class ``bit`` starting at byte i end (at a byte
    outside the class, a byte of a longer code point, or the end of the text)."""
    i = ascii_run(s, i, n, bit)
    while i < n and s[i] < 0x80 and (CLS[s[i]] & bit):
        i += 1
    return i


cdef inline Py_ssize_t run(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, uint8_t bit) noexcept nogil:
    """The end of the run of code points with class ``bit`` starting at byte i (greedy)."""
    cdef int ln
    i = ascii_run(s, i, n, bit)   # most runs end here, at an ASCII byte outside the class
    while i < n:
        if s[i] < 0x80:
            if not (CLS[s[i]] & bit):
                return i
            i += 1
        else:
            if not (CLS[dec(s, i, &ln)] & bit):
                return i
            i += ln
    return i


cdef inline Py_ssize_t run_n3(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """\\p{N}{1,3}: s[i] is a digit; take up to two more."""
    cdef int ln, k
    dec(s, i, &ln)
    i += ln
    for k in range(2):
        if not (cls_at(s, i, n, &ln) & F_N):
            break
        i += ln
    return i


cdef inline Py_ssize_t run_bytes(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, bint slash) noexcept nogil:
    """[\\r\\n]* (slash=False) or [\\r\\n/]* (slash=True), greedy."""
    while i < n and (s[i] == 13 or s[i] == 10 or (slash and s[i] == 47)):
        i += 1
    return i


cdef inline Py_ssize_t ws_run(const uint8_t* s, Py_ssize_t i, Py_ssize_t n,
                              Py_ssize_t* nl_end, Py_ssize_t* last) noexcept nogil:
    """The end of the whitespace run at byte i; also where its last \\r or \\n ends
    (-1 if none) and where its last character starts."""
    cdef int ln, k
    nl_end[0] = -1
    last[0] = i
    while i < n:
        if s[i] == 32 and i + 8 <= n:   # spaces (indentation), eight at a time
            k = ascii_span8(s + i, 32, 32, 0)
            last[0] = i + k - 1
            i += k
            continue
        if s[i] < 0x80:
            if not (CLS[s[i]] & F_S):
                break
            if s[i] == 13 or s[i] == 10:
                nl_end[0] = i + 1
            last[0] = i
            i += 1
        else:
            if not (CLS[dec(s, i, &ln)] & F_S):
                break
            last[0] = i
            i += ln
    return i


cdef Py_ssize_t next_gpt2(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
    cdef int ln, ln2
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c], f2
    cdef Py_ssize_t j = i + ln, k, nl_end, last
    # '(?:[sdmt]|ll|ve|re)          (case-sensitive, ASCII)
    if c == 39 and j < n:
        if s[j] == 115 or s[j] == 100 or s[j] == 109 or s[j] == 116:
            return j + 1
        if j + 1 < n and ((s[j] == 108 and s[j + 1] == 108) or (s[j] == 118 and s[j + 1] == 101)
                          or (s[j] == 114 and s[j + 1] == 101)):
            return j + 2
    # ' ?\p{L}++', ' ?\p{N}++', ' ?[^\s\p{L}\p{N}]++' with the space
    if c == 32 and j < n:
        f2 = cls_at(s, j, n, &ln2)
        if f2 & F_L:
            return run(s, j + ln2, n, F_L)
        if f2 & F_N:
            return run(s, j + ln2, n, F_N)
        if f2 & F_P:
            return run(s, j + ln2, n, F_P)
    # ... and without it
    if f & F_L:
        return run(s, j, n, F_L)
    if f & F_N:
        return run(s, j, n, F_N)
    if f & F_P:
        return run(s, j, n, F_P)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if k == n:          # \s++$
        return n
    if last > i:        # \s+(?!\S): all but the last space, which goes with the next word
        return last
    return j            # \s


cdef Py_ssize_t next_gpt4(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
    # |\s++$|\s*[\r\n]|\s+(?!\S)|\s
    cdef int ln, ln2, ln3
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c], c2, c3
    cdef Py_ssize_t j = i + ln, k, nl_end, last
    # '(?i:[sdmt]|ll|ve|re)
    if c == 39 and j < n:
        c2 = ci_at(s, j, n, &ln2)
        if c2 == 115 or c2 == 100 or c2 == 109 or c2 == 116:
            return j + ln2
        if c2 == 108 or c2 == 118 or c2 == 114:
            c3 = ci_at(s, j + ln2, n, &ln3)
            if (c2 == 108 and c3 == 108) or (c2 != 108 and c3 == 101):
                return j + ln2 + ln3
    # [^\r\n\p{L}\p{N}]?+\p{L}++    (the optional character is not \r, \n, L or N)
    if f & F_L:
        return run(s, j, n, F_L)
    if not (f & F_N) and c != 13 and c != 10 and (cls_at(s, j, n, &ln2) & F_L):
        return run(s, j + ln2, n, F_L)
    # \p{N}{1,3}+
    if f & F_N:
        return run_n3(s, i, n)
    # ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
    if c == 32 and (cls_at(s, j, n, &ln2) & F_P):
        return run_bytes(s, run(s, j + ln2, n, F_P), n, False)
    if f & F_P:
        return run_bytes(s, run(s, j, n, F_P), n, False)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if k == n:          # \s++$
        return n
    if nl_end >= 0:     # \s*[\r\n]: greedy \s* gives back until a \r or \n can follow
        return nl_end
    if last > i:        # \s+(?!\S)
        return last
    return j            # \s


cdef inline Py_ssize_t next_end(int kind, const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    if kind == KIND_GPT4:
        return next_gpt4(s, i, n)
    if kind == KIND_O200K:
        return next_o200k(s, i, n)
    return next_gpt2(s, i, n)
