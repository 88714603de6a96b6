/* Reading one UTF-8 character: the one decoder the scalar scanners (dec() in
 * _scanners.pxi) and the window scanner (bpe_classify_wide in _window.h) share.
 * The text is valid UTF-8 (it comes from a Python str), so nothing is checked.
 */
#ifndef BPE_UTF8_H
#define BPE_UTF8_H

#include <stdint.h>

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
