# The o200k (GPT-4o) scanner: its contraction, lower- and upper-case-like runs, and
# next_o200k, the pattern transcribed alternative by alternative like the other two.
# Included once, by _native.pyx, right after _scanners.pxi, whose class table and
# helpers (cls_at, ci_at, ascii_run, ws_run, ...) it reads; next_o200k is declared
# in _native.pxd.
#
# What this file does not do: GPT-2's or GPT-4's pattern (_scanners.pxi), or cut
# 64 bytes at a time (_window_cut.pxi).

cdef inline Py_ssize_t o200k_contraction(const uint8_t* s, Py_ssize_t p, Py_ssize_t n) noexcept nogil:
    """(?i:'s|'t|'re|'ve|'m|'ll|'d)? at byte p: where it ends (p when absent)."""
    cdef int ln, ln2, ln3
    cdef uint8_t c2, c3
    if p >= n or s[p] != 39:    # only U+0027 itself is "'" under (?i)
        return p
    if ci_at(s, p, n, &ln) != 39:
        return p
    c2 = ci_at(s, p + ln, n, &ln2)
    if c2 == 115 or c2 == 116 or c2 == 109 or c2 == 100:
        return p + ln + ln2
    if c2 == 114 or c2 == 118 or c2 == 108:
        c3 = ci_at(s, p + ln + ln2, n, &ln3)
        if (c2 == 108 and c3 == 108) or (c2 != 108 and c3 == 101):
            return p + ln + ln2 + ln3
    return p


cdef inline Py_ssize_t o200k_lower(const uint8_t* s, Py_ssize_t b, Py_ssize_t n) noexcept nogil:
    """[U]*[W]+(contraction)? at byte b: its end, or -1.

    Greedy [U]* runs to the first non-U at u. If that character is W, [W]+ takes
    the W-run from there. If not, [U]* gives back characters until [W]+ can start:
    at the last W inside the U-run, and [W]+ is that one character.
    """
    cdef int ln
    cdef uint8_t f
    # an ASCII upper-case letter is U and not W: skip those eight at a time
    cdef Py_ssize_t u = ascii_run(s, b, n, F_U), w_end = -1
    while u < n:
        f = cls_at(s, u, n, &ln)
        if not (f & F_U):
            break
        u += ln
        if f & F_W:
            w_end = u
    if cls_at(s, u, n, &ln) & F_W:
        return o200k_contraction(s, run(s, u, n, F_W), n)
    if w_end < 0:
        return -1
    return o200k_contraction(s, w_end, n)


cdef inline Py_ssize_t o200k_upper(const uint8_t* s, Py_ssize_t b, Py_ssize_t n) noexcept nogil:
    """[U]+[W]*(contraction)? at byte b: its end, or -1."""
    cdef Py_ssize_t u = run(s, b, n, F_U)
    if u == b:
        return -1
    return o200k_contraction(s, run(s, u, n, F_W), n)


cdef inline int o200k_ascii_letters(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, Py_ssize_t* end) noexcept nogil:
    """The two letter alternatives at byte i when ASCII settles them: 1 (they match, up
    to ``end``), 0 (neither matches), or -1 (a longer code point is involved: ask
    ``o200k_lower``/``o200k_upper``).

    In ASCII, U is A-Z and W is a-z, so [U]* never holds a W to give back: the
    match is the upper-case run, then the lower-case run (if any), then a contraction.
    The optional first character is ASCII that is not a letter, digit, \r or \n.
    """
    cdef uint8_t c = s[i]
    cdef Py_ssize_t b, u, w
    if c >= 0x80:
        return -1
    if CLS[c] & F_L:
        b = i
    elif i + 1 < n and s[i + 1] >= 0x80:
        return -1
    elif i + 1 < n and (CLS[s[i + 1]] & F_L) and not (CLS[c] & F_N) and c != 13 and c != 10:
        b = i + 1
    else:
        return 0    # no letter next to an ASCII non-letter: neither alternative can start
    u = ascii_span(s, b, n, F_U)
    if u < n and s[u] >= 0x80:
        return -1
    w = ascii_span(s, u, n, F_W)
    if w > u and w < n and s[w] >= 0x80:
        return -1
    end[0] = o200k_contraction(s, w, n)
    return 1


cdef Py_ssize_t next_o200k(const uint8_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # [^\r\n\p{L}\p{N}]?[U]*[W]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    # |[^\r\n\p{L}\p{N}]?[U]+[W]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    # |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
    # with U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]
    cdef int ln, ln2
    cdef uint32_t c = dec(s, i, &ln)
    cdef uint8_t f = CLS[c]
    cdef Py_ssize_t j = i + ln, e, k, nl_end, last
    # may c be the optional [^\r\n\p{L}\p{N}]? It is greedy: first with it, then without
    cdef bint prefix = not (f & (F_L | F_N)) and c != 13 and c != 10 and j < n
    cdef int settled = o200k_ascii_letters(s, i, n, &e)   # most text: settled in ASCII
    if settled == 1:
        return e
    if settled < 0 and prefix:
        e = o200k_lower(s, j, n)
        if e >= 0:
            return e
    if settled < 0:
        e = o200k_lower(s, i, n)
        if e >= 0:
            return e
    if settled < 0 and prefix:
        e = o200k_upper(s, j, n)
        if e >= 0:
            return e
    if settled < 0:
        e = o200k_upper(s, i, n)
        if e >= 0:
            return e
    # \p{N}{1,3}
    if f & F_N:
        return run_n3(s, i, n)
    # ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
    if c == 32 and (cls_at(s, j, n, &ln2) & F_P):
        return run_bytes(s, run(s, j + ln2, n, F_P), n, True)
    if f & F_P:
        return run_bytes(s, run(s, j, n, F_P), n, True)
    # whitespace
    k = ws_run(s, i, n, &nl_end, &last)
    if nl_end >= 0:     # \s*[\r\n]+: up to the run's last \r or \n
        return nl_end
    if k == n:          # \s+(?!\S) at the end of the text
        return n
    if last > i:        # \s+(?!\S)
        return last
    return k            # \s+ (one character here)
