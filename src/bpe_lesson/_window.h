/* The window scanner: where the chunks of 64 bytes of ASCII start, in a few
 * dozen bit operations instead of one branchy regex step per chunk.
 * Included by _window_cut.pxi (``cdef extern from "_window.h"``).
 *
 * The idea (simdjson's, and gigatoken's for tokenizers): classify the 64 bytes
 * at once into one 64-bit mask per class (bit k = byte k), then write "a chunk
 * starts at byte p" as a formula of the classes at p-2, p-1, p and p+1, which
 * shifts of the masks give. A chunk start found this way is exact only where
 * that local formula is the whole truth, so each window also reports the first
 * byte where it is not (``*limit``): a byte >= 0x80 (the class tables of the
 * scalar scanner are needed), an apostrophe that may start a contraction, white
 * space whose chunk depends on a newline further on. Starts before the limit are
 * trusted; from there the caller (_window_cut.pxi) uses the scalar scanner.
 *
 * The rules, for GPT-4's pattern on ASCII (tests/test_scanner.py checks them
 * against the regex). Classes: L letter, D digit, S space, T tab/VT/FF, N \r \n,
 * P everything else (punctuation, symbols, control bytes; the apostrophe too).
 * The window starts at a chunk start (byte 0), and the regex matches from there
 * looking only forward, so bytes before the window never matter. A chunk starts
 * at byte p > 0 when, with b the class of byte p-1, b2 of p-2 and a of p+1:
 *   p is L: b is D or N, or b is P after a P or S (the P run, or " ?P", took b
 *           and ended; a lone P after anything else is the letters' prefix,
 *           [^\r\n\p{L}\p{N}]?+\p{L}++, and so is a space or tab)
 *   p is D: p starts a digit run or is 3, 6, ... digits into one (\p{N}{1,3}+)
 *   p is P: b is L, D, T or N (after P it is the same run; after S it is " ?P")
 *   p is S or T: b is L, D, P or N; or b is S or T and a is not white space
 *           (\s+(?!\S) leaves the run's last character to the next chunk)
 *   p is N: b is L or D (after P it is the P chunk's [\r\n]*; after N, the same
 *           \s*[\r\n] chunk)
 * GPT-4o's pattern (o200k) differs in three places: a letter also starts a chunk
 * where an upper-case letter follows a lower-case one ([U]*[W]+ ends there); a
 * contraction is a suffix of the letters before it; and a P chunk's tail is
 * [\r\n/]*, so a '/' after a newline is flagged.
 *
 * What the rules leave to the scalar scanner (the limit):
 *   - any byte >= 0x80, and a space, tab or apostrophe just before one (from
 *     the start of the white space before it: U+3000 is white space, and a
 *     newline after it makes the whole run one chunk);
 *   - an apostrophe that may begin a contraction ('s 'd 'm 't 'll 've 're, in
 *     any case), from the apostrophe on (for GPT-4o the contraction ends the
 *     letters before it, whose chunk starts before the apostrophe: the scalar
 *     scanner takes over from that start);
 *   - a space or tab followed by a newline: \s*[\r\n] then reaches back to the
 *     start of that white-space run, so the limit is the run's start; and a
 *     white-space run that reaches the window's end (its newline or its end
 *     may come after the window);
 *   - for GPT-4o, '/' right after a newline.
 */
#ifndef BPE_WINDOW_H
#define BPE_WINDOW_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One 64-bit mask per class of 64 ASCII bytes; bit k is byte k. */
typedef struct {
    uint64_t L, U, D, S, T, N, H, A, SL;   /* U: A-Z; H: byte >= 0x80; A: '\''; SL: '/' */
} BpeMasks;

#if defined(__SSE2__)
/* The bytes of v (16 of them) in [lo, hi], as 0xFF lanes: x - lo <= hi - lo, unsigned. */
static inline __m128i bpe_in_range(__m128i v, int lo, int hi) {
    __m128i x = _mm_sub_epi8(v, _mm_set1_epi8((char)lo));
    return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8((char)(hi - lo))), x);
}
static inline __m128i bpe_eq(__m128i v, int c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8((char)c)); }
static inline uint64_t bpe_bits(__m128i m) { return (uint64_t)(uint16_t)_mm_movemask_epi8(m); }
#endif

/* Classify the 64 bytes at p. */
static inline void bpe_classify(const unsigned char* p, BpeMasks* m) {
#if defined(__SSE2__)
    int k;
    memset(m, 0, sizeof *m);
    for (k = 0; k < 4; k++) {   /* 16 bytes a step, one mask bit per byte */
        __m128i v = _mm_loadu_si128((const __m128i*)(p + 16 * k));
        __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));   /* A-Z -> a-z */
        int sh = 16 * k;
        m->H |= bpe_bits(v) << sh;                          /* the top bit */
        m->L |= bpe_bits(bpe_in_range(lower, 'a', 'z')) << sh;
        m->U |= bpe_bits(bpe_in_range(v, 'A', 'Z')) << sh;
        m->D |= bpe_bits(bpe_in_range(v, '0', '9')) << sh;
        m->S |= bpe_bits(bpe_eq(v, ' ')) << sh;
        m->T |= bpe_bits(_mm_or_si128(bpe_eq(v, '\t'), bpe_in_range(v, 0x0B, 0x0C))) << sh;
        m->N |= bpe_bits(_mm_or_si128(bpe_eq(v, '\n'), bpe_eq(v, '\r'))) << sh;
        m->A |= bpe_bits(bpe_eq(v, '\'')) << sh;
        m->SL |= bpe_bits(bpe_eq(v, '/')) << sh;
    }
#else
    int k;
    memset(m, 0, sizeof *m);
    for (k = 0; k < 64; k++) {  /* the same masks, a byte at a time */
        unsigned c = p[k];
        uint64_t bit = (uint64_t)1 << k;
        if (c >= 0x80) { m->H |= bit; continue; }
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') m->L |= bit;
        if (c >= 'A' && c <= 'Z') m->U |= bit;
        if (c >= '0' && c <= '9') m->D |= bit;
        if (c == ' ') m->S |= bit;
        if (c == '\t' || c == 0x0B || c == 0x0C) m->T |= bit;
        if (c == '\n' || c == '\r') m->N |= bit;
        if (c == '\'') m->A |= bit;
        if (c == '/') m->SL |= bit;
    }
#endif
}

static inline int bpe_ctz(uint64_t x) { return __builtin_ctzll(x); }
static inline int bpe_top(uint64_t x) { return 63 - __builtin_clzll(x); }   /* x != 0 */

/* 1 + the highest bit of x below bit q (the byte after the last x-byte before q), or 0. */
static inline int bpe_after_last_below(uint64_t x, int q) {
    uint64_t below = q ? (x & (~(uint64_t)0 >> (64 - q))) : 0;
    return below ? bpe_top(below) + 1 : 0;
}

/* The digit chunks: starts of digit runs, and every third digit after one. */
static inline uint64_t bpe_digit_starts(uint64_t D) {
    uint64_t g = D & ~(D << 1), more;
    while ((more = (g << 3) & D & (D << 1) & (D << 2) & ~g) != 0)
        g |= more;
    return g;
}

/* Is the ASCII letter c one a contraction may begin with ('s 'd 'm 't 'l 'v 'r), any case? */
static inline int bpe_contraction_letter(unsigned c) {
    c |= 0x20;
    return c == 's' || c == 'd' || c == 'm' || c == 't' || c == 'l' || c == 'v' || c == 'r';
}

/* The chunk starts in the 64 bytes at p (p[0] starts one), for GPT-4's pattern
 * (o200k = 0) or GPT-4o's (o200k = 1). Returns the starts as bits; ``*limit`` is
 * the first byte they are not trusted from (64: all are), and ``*flag`` the last
 * byte of the window the scalar scanner has to get past. */
static inline uint64_t bpe_window_starts(const unsigned char* p, int o200k, int* limit, int* flag) {
    BpeMasks m;
    uint64_t L, D, ws, P, st, f, a, before_hi, next_letter;
    int lim = 64, fl = -1, q, k;
    bpe_classify(p, &m);
    L = m.L;
    D = m.D;
    ws = m.S | m.T | m.N;
    P = ~(L | D | ws | m.H);
    /* before_hi: byte p+1 is >= 0x80 or past the window (unknown either way) */
    before_hi = (m.H >> 1) | ((uint64_t)1 << 63);

    /* the rules (see the top of this file); x << 1 is "byte p-1 is x" */
    st = L & (((D | m.N) << 1) | ((P << 1) & ((P | m.S) << 2)));
    if (o200k)
        st |= m.U & ((L & ~m.U) << 1);               /* lower case, then upper case */
    st |= bpe_digit_starts(D);
    st |= P & ((L | D | m.T | m.N) << 1);
    st |= (m.S | m.T) & (((L | D | P | m.N) << 1) | (((m.S | m.T) << 1) & ~(ws >> 1)));
    st |= m.N & ((L | D) << 1);
    st |= 1;

    /* where the rules stop being the whole truth */
    f = m.H | ((m.S | m.T | m.A) & before_hi);
    if (f) {
        /* back to the start of the white space before it: a character >= 0x80 may
           be white space too (U+3000), and a newline after it changes that run */
        q = bpe_after_last_below(~ws, bpe_ctz(f));
        if (q < lim) lim = q;
        fl = bpe_top(f);
    }
    /* an apostrophe before a letter a contraction may begin with */
    a = m.A & ~before_hi;
    if (!o200k)
        a &= ~((P | m.S) << 1);    /* GPT-4: only an apostrophe that starts a chunk */
    else
        a &= L << 1;               /* GPT-4o: only one right after letters */
    next_letter = L >> 1;
    a &= next_letter;
    while (a) {
        k = bpe_ctz(a);
        a &= a - 1;
        if (!bpe_contraction_letter(p[k + 1]))
            continue;
        if (k < lim) lim = k;       /* the last start before it begins the chunk it is in */
        if (k + 1 > fl) fl = k + 1;
        break;                      /* the first one sets the limit */
    }
    /* a space or tab before a newline: back to the start of its white-space run */
    f = (m.S | m.T) & (m.N >> 1);
    if (f) {
        q = bpe_after_last_below(~ws, bpe_ctz(f));
        if (q < lim) lim = q;
        if (bpe_top(f) + 1 > fl) fl = bpe_top(f) + 1;
    }
    /* white space at the window's end: its chunk may reach past it */
    if (ws >> 63) {
        q = bpe_after_last_below(~ws, 63);
        if (q < lim) lim = q;
        fl = 63;
    }
    /* GPT-4o: '/' after a newline joins a P chunk's [\r\n/]* tail */
    if (o200k) {
        f = m.SL & (m.N << 1);
        if (f) {
            q = bpe_ctz(f);
            if (q < lim) lim = q;
            if (bpe_top(f) > fl) fl = bpe_top(f);
        }
    }
    *limit = lim;
    *flag = fl;
    if (lim == 64)
        return st;
    return lim ? (st & (~(uint64_t)0 >> (64 - lim))) : 1;
}

#endif
