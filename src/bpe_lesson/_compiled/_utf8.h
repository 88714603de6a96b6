/* Reading one UTF-8 character: the one decoder the scalar scanners (dec() in
 * _scanners.pxi) and the window scanner (bpe_classify_wide in _window.h) share.
 * The text is valid UTF-8 (a Python str's, or bytes that bpe_utf8_invalid_at
 * has passed), so the decoder checks nothing.
 */
#ifndef BPE_UTF8_H
#define BPE_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Where the first character of s[0:n] that Python's strict UTF-8 decoder refuses
 * begins, or n when it refuses none: no stray continuation byte, no overlong form
 * (C0, C1, E0 80-9F, F0 80-8F), no surrogate (ED A0-BF), nothing past U+10FFFF
 * (F4 90-, F5-FF), no character cut short by the end. Eight ASCII bytes at a time.
 */
static inline size_t bpe_utf8_invalid_at(const unsigned char* s, size_t n) {
    size_t i = 0;
    uint64_t w;
    while (i < n) {
        if (i + 8 <= n) {
            memcpy(&w, s + i, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned b = s[i];
        if (b < 0x80) {
            i += 1;
        } else if (b < 0xC2) {
            return i;
        } else if (b < 0xE0) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return i;
            i += 2;
        } else if (b < 0xF0) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80
                || (b == 0xE0 && s[i + 1] < 0xA0) || (b == 0xED && s[i + 1] >= 0xA0))
                return i;
            i += 3;
        } else if (b < 0xF5) {
            if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80
                || (s[i + 3] & 0xC0) != 0x80 || (b == 0xF0 && s[i + 1] < 0x90) || (b == 0xF4 && s[i + 1] >= 0x90))
                return i;
            i += 4;
        } else {
            return i;
        }
    }
    return n;
}

/* The length in bytes of the character whose first byte is b (b >= 0xC0). */
static inline int bpe_utf8_wide_len(unsigned b) {
    return b < 0xE0 ? 2 : (b < 0xF0 ? 3 : 4);
}

/* The code point of the character of ``len`` bytes (2 to 4) at p. */
static inline uint32_t bpe_utf8_wide_cp(const unsigned char* p, int len) {
    if (len == 2)
        return ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    if (len == 3)
        return ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6)
           | (p[3] & 0x3F);
}

#endif
