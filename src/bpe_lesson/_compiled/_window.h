/* The window scanner: where the chunks of 64 bytes of text start, in a few
 * dozen bit operations instead of one branchy regex step per chunk.
 * Included by _window_cut.pxi (``cdef extern from "_window.h"``).
 *
 * The idea (simdjson's, and gigatoken's for tokenizers): classify the 64 bytes
 * at once into one 64-bit mask per class (bit k = byte k), then write "a chunk
 * starts at byte p" as a formula of the classes at p-2, p-1, p and p+1, which
 * shifts of the masks give. A chunk start found this way is exact only where
 * that local formula is the whole truth, so each window also reports the first
 * byte where it is not (``*limit``): some characters outside ASCII (listed
 * below), an apostrophe that may start a contraction, white space whose chunk
 * depends on a newline further on. Starts before the limit are
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
 * where an upper-case letter (U and not W) follows a W one ([U]*[W]+ ends there); a
 * contraction is a suffix of the letters before it; and a P chunk's tail is
 * [\r\n/]*, so a '/' after a newline is flagged.
 *
 * Characters of two to four bytes (text in other scripts) are read too: the
 * first byte of each is decoded and looked up in the scanners' class table, and
 * a letter or a P character then takes its class over all its bytes, so the
 * rules above read "the character before" where they say "byte p-1". Before,
 * every byte >= 0x80 went to the scalar scanner, whose loops end at every word:
 * 28% of the samples of a warm pass over text in many scripts (perf); now that
 * pass is 22-30% faster (figures in _encode_text.pxi).
 *
 * What the rules leave to the scalar scanner (the limit):
 *   - a character outside ASCII that is a number or white space; for GPT-4o, a
 *     combining mark (in its words, [U] and [W], but no \p{L}), and a letter
 *     that is both U and W (Lm, Lo) next to an upper-case-only one ([U]* runs
 *     through both, and what it gives back depends on what follows); a
 *     character the window's end cuts; and a space, tab or apostrophe just
 *     before any of these (from the start of the white space before it: U+3000
 *     is white space, and a newline after it makes the whole run one chunk);
 *   - an apostrophe before a character outside ASCII (U+017F is (?i) "s");
 *   - an apostrophe that may begin a contraction ('s 'd 'm 't 'll 've 're, in
 *     any case), from the apostrophe on (for GPT-4o the contraction ends the
 *     letters before it, whose chunk starts before the apostrophe: the scalar
 *     scanner takes over from that start);
 *   - a space or tab followed by a newline: \s*[\r\n] then reaches back to the
 *     start of that white-space run; and a white-space run that reaches the
 *     window's end (its newline or its end may come after the window);
 *   - for GPT-4o, '/' right after a newline.
 * Where the limit backs up to the start of a white-space run, the run's first
 * byte is still trusted (bpe_ws_limit): whether a chunk starts there depends only
 * on the character before it.
 */
#ifndef BPE_WINDOW_H
#define BPE_WINDOW_H

#include <stdint.h>
#include <string.h>
#include "_utf8.h"
#include "_simd.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One 64-bit mask per class of 64 ASCII bytes; bit k is byte k. */
typedef struct {
    uint64_t L, U, D, S, T, N, H, C, A, SL;   /* U: A-Z; H: byte >= 0x80; C: 0x80-0xBF; A: '\''; SL: '/' */
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

/* The continuation bytes (0x80-0xBF) of the 64 bytes at p: asked only of a window
   with bytes >= 0x80, so that a window of ASCII pays nothing for them. */
static inline uint64_t bpe_continuations(const unsigned char* p) {
    uint64_t C = 0;
    int k;
#if defined(__SSE2__)
    for (k = 0; k < 4; k++)
        C |= bpe_bits(bpe_in_range(_mm_loadu_si128((const __m128i*)(p + 16 * k)), 0x80, 0xBF)) << (16 * k);
#else
    for (k = 0; k < 64; k++)
        if (p[k] >= 0x80 && p[k] < 0xC0) C |= (uint64_t)1 << k;
#endif
    return C;
}

static inline int bpe_ctz(uint64_t x) { return __builtin_ctzll(x); }
static inline int bpe_top(uint64_t x) { return 63 - __builtin_clzll(x); }   /* x != 0 */

/* 1 + the highest bit of x below bit q (the byte after the last x-byte before q), or 0. */
static inline int bpe_after_last_below(uint64_t x, int q) {
    uint64_t below = q ? (x & (~(uint64_t)0 >> (64 - q))) : 0;
    return below ? bpe_top(below) + 1 : 0;
}

/* The limit for a byte x that the rules cannot settle, when a white-space run
   before it (or through it) may change with what comes after: the run's first byte
   q, plus one. Whether q starts a chunk depends only on the character before it,
   which is no white space (or q is byte 0), so that start is exact; every start
   after it is not. Without white space just before x, the limit is x itself.
   (Trusting q as well saves the scalar scanner the chunk before the run: in a
   window that ends in indentation, the word before it.) */
static inline int bpe_ws_limit(uint64_t ws, int x) {
    int q = bpe_after_last_below(~ws, x);
    return q + (int)((ws >> q) & 1);
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

/* The class bits of _internal/char_classes.py that the window reads (_check_window checks them). */
enum { BPE_F_L = 1, BPE_F_N = 2, BPE_F_S = 4, BPE_F_U = 8, BPE_F_W = 16 };

/* Each bit of x copied onto the continuation bytes C that follow it (a UTF-8
   character has at most three): every byte of a character then has the bit of
   its first byte. A character's first byte is never in C, so nothing crosses
   into the next character. */
static inline uint64_t bpe_spread(uint64_t x, uint64_t C) {
    x |= (x << 1) & C;
    x |= (x << 1) & C;
    x |= (x << 1) & C;
    return x;
}

/* The classes of the characters of two to four bytes in a window: L, P, and for
   GPT-4o U and W, at each character's first byte. ``bad``: the first bytes of
   those the rules do not cover (a number or white space outside ASCII; for
   GPT-4o a combining mark, which is in its words but is no \p{L}; a character
   that runs past the window). */
typedef struct { uint64_t L, P, U, W, bad; } BpeWide;

static inline void bpe_classify_wide(const unsigned char* p, const unsigned char* cls, uint64_t lead,
                                     int o200k, BpeWide* w) {
    uint64_t bit;
    unsigned b, cp, c;
    int k, len;
    w->L = w->P = w->U = w->W = w->bad = 0;
    while (lead) {
        k = __builtin_ctzll(lead);
        lead &= lead - 1;
        bit = (uint64_t)1 << k;
        b = p[k];
        len = bpe_utf8_wide_len(b);
        if (k + len > 64) {             /* its last bytes are in the next window */
            w->bad |= bit;
            continue;
        }
        cp = bpe_utf8_wide_cp(p + k, len);
        c = cls[cp];
        if (c & BPE_F_L) {
            w->L |= bit;
            if (c & BPE_F_U) w->U |= bit;
            if (c & BPE_F_W) w->W |= bit;
        } else if ((c & (BPE_F_N | BPE_F_S)) || (o200k && (c & (BPE_F_U | BPE_F_W)))) {
            w->bad |= bit;
        } else {
            w->P |= bit;
        }
    }
}

#if defined(__GNUC__)
#define BPE_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define BPE_ALWAYS_INLINE static inline
#endif

/* bpe_window_starts (below) once the window is classified (``wide``: it holds bytes
   >= 0x80; a constant in both calls, so a window of ASCII runs a copy of this without
   the wide part). valgrind, a pass over the 10 MB of code: the window scanner ran
   60.1 M instructions before it read wide characters, 68.2 M with one copy for both
   kinds of window, 65.1 M with the two copies; in one process the pass took as long
   as before (31 alternations, medians 0.96-1.02 of the time before on code and the
   Bible, both vocabularies). */
BPE_ALWAYS_INLINE uint64_t bpe_window_rules(const unsigned char* p, int o200k, const unsigned char* cls,
                                            int* limit, int* flag, BpeMasks m, int wide) {
    BpeWide w;
    uint64_t L, D, ws, P, st, f, a, before_unk, next_letter, pps, U, W, uo, both;
    int lim = 64, fl = -1, q, k;
    if (wide) {
        bpe_classify_wide(p, cls, m.H & ~m.C, o200k, &w);
        w.L = bpe_spread(w.L, m.C);
        w.P = bpe_spread(w.P, m.C);
    } else {
        w.L = w.P = w.U = w.W = w.bad = 0;
    }
    L = m.L | w.L;
    D = m.D;
    ws = m.S | m.T | m.N;
    P = ~(m.L | D | ws | m.H) | w.P;
    /* before_unk: the byte after is a character the rules do not cover, or past the window */
    before_unk = (w.bad >> 1) | ((uint64_t)1 << 63);
    /* pps: the character before the one before is P or a space */
    if (wide)
        pps = bpe_spread(((P | m.S) << 1) & ~m.C, m.C) << 1;
    else
        pps = (P | m.S) << 2;

    /* the rules (see the top of this file); x << 1 is "byte p-1 is x" */
    st = L & (((D | m.N) << 1) | ((P << 1) & pps));
    if (o200k) {
        /* an upper-case-only letter after a lower-case-like one ends the [U]*[W]+ before it */
        U = m.U | bpe_spread(w.U, m.C);
        W = (m.L & ~m.U) | bpe_spread(w.W, m.C);
        uo = U & ~W;
        st |= uo & (W << 1);
    }
    st |= bpe_digit_starts(D);
    st |= P & ((L | D | m.T | m.N) << 1);
    st |= (m.S | m.T) & (((L | D | P | m.N) << 1) | (((m.S | m.T) << 1) & ~(ws >> 1)));
    st |= m.N & ((L | D) << 1);
    st |= 1;

    /* GPT-4o: a letter that is both U and W (Lm, Lo) next to an upper-case-only one:
       [U]* then runs through both, and whether it gives them back depends on what
       follows, further than the rules look */
    if (wide && o200k && (w.U & w.W)) {
        both = bpe_spread(w.U & w.W, m.C);
        w.bad |= (both & (uo << 1)) | (uo & (both << 1));
        before_unk |= w.bad >> 1;
    }

    /* where the rules stop being the whole truth */
    f = w.bad | ((m.S | m.T | m.A) & before_unk) | (m.A & (m.H >> 1));
    if (f) {
        /* back to the start of the white space before it: a character the rules do
           not cover may be white space (U+3000), and a newline after it changes that
           run; an apostrophe before a character >= 0x80 may begin a contraction
           (U+017F is (?i) "s") */
        q = bpe_ws_limit(ws, bpe_ctz(f));
        if (q < lim) lim = q;
        fl = bpe_top(f);
    }
    /* an apostrophe before a letter a contraction may begin with */
    a = m.A & ~(m.H >> 1) & ~((uint64_t)1 << 63);
    if (!o200k)
        a &= ~((P | m.S) << 1);    /* GPT-4: only an apostrophe that starts a chunk */
    else
        a &= L << 1;               /* GPT-4o: only one right after letters */
    next_letter = m.L >> 1;
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
        q = bpe_ws_limit(ws, bpe_ctz(f));
        if (q < lim) lim = q;
        if (bpe_top(f) + 1 > fl) fl = bpe_top(f) + 1;
    }
    /* white space at the window's end: its chunk may reach past it */
    if (ws >> 63) {
        q = bpe_ws_limit(ws, 63);
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

/* With AVX2: two 32-byte loads, and per class two compares and two movemasks,
   where SSE2 takes four loads and, per class, four compares, four movemasks and
   the shifts and ORs that join them. This copy is built for AVX2 alone (a target
   attribute) and used only where the processor has it (_simd.h); its masks are
   bpe_classify's, so the chunks are the same. In one process, warm, blocks of
   passes alternated 21 times: 3-8% faster on prose, the Bible and text in many
   scripts, code 0-3%. AVX-512, one load and one compare giving each 64-bit mask,
   was no faster than AVX2 here, and on older Xeons its 512-bit instructions
   lower the core's clock. */
#if BPE_HAVE_AVX2
BPE_T256 static inline uint64_t bpe_bits256(__m256i lo, __m256i hi) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | ((uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32);
}
BPE_T256 static inline __m256i bpe_in_range256(__m256i v, int lo, int hi) {
    __m256i x = _mm256_sub_epi8(v, _mm256_set1_epi8((char)lo));
    return _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8((char)(hi - lo))), x);
}
BPE_T256 static inline __m256i bpe_eq256(__m256i v, int c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)c)); }
BPE_T256 static uint64_t bpe_window_starts_avx2(const unsigned char* p, int o200k, const unsigned char* cls,
                                                int* limit, int* flag) {
    BpeMasks m;
    __m256i a = _mm256_loadu_si256((const __m256i*)p), b = _mm256_loadu_si256((const __m256i*)(p + 32));
    __m256i la = _mm256_or_si256(a, _mm256_set1_epi8(0x20)), lb = _mm256_or_si256(b, _mm256_set1_epi8(0x20));
    m.H = bpe_bits256(a, b);                                       /* the top bit */
    m.L = bpe_bits256(bpe_in_range256(la, 'a', 'z'), bpe_in_range256(lb, 'a', 'z'));
    m.U = bpe_bits256(bpe_in_range256(a, 'A', 'Z'), bpe_in_range256(b, 'A', 'Z'));
    m.D = bpe_bits256(bpe_in_range256(a, '0', '9'), bpe_in_range256(b, '0', '9'));
    m.S = bpe_bits256(bpe_eq256(a, ' '), bpe_eq256(b, ' '));
    m.T = bpe_bits256(_mm256_or_si256(bpe_eq256(a, '\t'), bpe_in_range256(a, 0x0B, 0x0C)),
                      _mm256_or_si256(bpe_eq256(b, '\t'), bpe_in_range256(b, 0x0B, 0x0C)));
    m.N = bpe_bits256(_mm256_or_si256(bpe_eq256(a, '\n'), bpe_eq256(a, '\r')),
                      _mm256_or_si256(bpe_eq256(b, '\n'), bpe_eq256(b, '\r')));
    m.A = bpe_bits256(bpe_eq256(a, '\''), bpe_eq256(b, '\''));
    m.SL = bpe_bits256(bpe_eq256(a, '/'), bpe_eq256(b, '/'));
    if (m.H) {
        m.C = bpe_bits256(bpe_in_range256(a, 0x80, 0xBF), bpe_in_range256(b, 0x80, 0xBF));
        return bpe_window_rules(p, o200k, cls, limit, flag, m, 1);
    }
    m.C = 0;
    return bpe_window_rules(p, o200k, cls, limit, flag, m, 0);
}
#endif

/* bpe_window_starts with SSE2 (or, without it, a byte at a time) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint64_t bpe_window_starts_sse2(const unsigned char* p, int o200k, const unsigned char* cls,
                                       int* limit, int* flag) {
    BpeMasks m;
    bpe_classify(p, &m);
    if (m.H) {
        m.C = bpe_continuations(p);
        return bpe_window_rules(p, o200k, cls, limit, flag, m, 1);
    }
    m.C = 0;
    return bpe_window_rules(p, o200k, cls, limit, flag, m, 0);
}

/* The chunk starts in the 64 bytes at p (p[0] starts one), for GPT-4's pattern
 * (o200k = 0) or GPT-4o's (o200k = 1); ``cls`` is the scanners' class table
 * (code point -> F_* bits). Returns the starts as bits; ``*limit`` is the first
 * byte they are not trusted from (64: all are), and ``*flag`` the last byte of
 * the window the scalar scanner has to get past.
 *
 * Characters of two to four bytes: each byte of one takes its class (bpe_spread),
 * so "byte p-1" is the character before p; "the character before that" is the
 * class at the first byte of p-1's character, one byte back, carried over its
 * continuation bytes (pps in bpe_window_rules). No start falls inside a
 * character: every rule needs the class to change at p, or an ASCII byte at p.
 *
 * Which copy classifies (AVX2 or SSE2) is decided here, inlined into the caller's
 * loop: one call per window either way. */
BPE_ALWAYS_INLINE uint64_t bpe_window_starts(const unsigned char* p, int o200k, const unsigned char* cls,
                                             int* limit, int* flag) {
#if BPE_HAVE_AVX2
    if (bpe_simd > 0)
        return bpe_window_starts_avx2(p, o200k, cls, limit, flag);
#endif
    return bpe_window_starts_sse2(p, o200k, cls, limit, flag);
}

#endif
