/* Which vector instructions the compiled scanners use: AVX2 where the processor
 * has it, else SSE2. One switch for the window scanner (_window.h) and the
 * special-token search (bpe_find in _encoder.pxi). Compiled once, into _native.
 *
 * Why: the wheel is built for any x86-64 processor, which guarantees SSE2 (16
 * bytes a step) and not AVX2 (32). The AVX2 copies of those loops are built for
 * AVX2 alone (a target attribute on each function), and called only when the
 * processor says it has AVX2, asked once (bpe_simd_get). Both copies give the
 * same results; the tests run each (``_simd`` in either extension).
 *
 * What this file does not do: choose for other compilers or processors (there,
 * SSE2 or a byte at a time, as before).
 */
#ifndef BPE_SIMD_H
#define BPE_SIMD_H

#if defined(__GNUC__) && defined(__x86_64__) && !defined(BPE_NO_AVX2)
#include <immintrin.h>
#define BPE_HAVE_AVX2 1
#define BPE_T256 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))

/* 1: AVX2; 0: SSE2; -1: not asked yet (SSE2 until then) */
static int bpe_simd = -1;

static inline int bpe_simd_get(void) {
    if (bpe_simd < 0) {
        __builtin_cpu_init();
        bpe_simd = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return bpe_simd;
}

static inline int bpe_simd_set(int on) {     /* returns the mode now in use */
    __builtin_cpu_init();
    bpe_simd = (on && __builtin_cpu_supports("avx2")) ? 1 : 0;
    return bpe_simd;
}
#else
#define BPE_HAVE_AVX2 0
static inline int bpe_simd_get(void) { return 0; }
static inline int bpe_simd_set(int on) { (void)on; return 0; }
#endif

#endif
