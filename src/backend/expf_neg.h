/*
 * expf_neg.h — exp(x) in float for x <= 0, written out (range reduction and a polynomial) so
 * that the compiler vectorises a loop of it on a baseline x86-64 (SSE2: no call, no branch)
 * and the CPU and a CUDA kernel compute the same bits (GEN_HOST_DEVICE; every product and
 * sum rounded on its own: nvcc would otherwise contract a * b + c into one fma).
 *
 *   n = round(x log2 e)        (adding 1.5 * 2^23 rounds to an integer, ties to even)
 *   r = (x - n ln2_hi) - n ln2_lo   (Cody and Waite's two-part ln 2: ln2_hi has 15
 *                                    significant bits, so n ln2_hi is exact for |n| < 512)
 *   exp(x) = 2^n exp(r),  |r| <= ln2 / 2 (+ rounding),
 *   exp(r) ~ the Taylor polynomial of degree 7 (truncation below 1e-8 relative), by Horner,
 *   2^n built in the exponent bits from the low bits of the rounded sum.
 * Accuracy against double exp: at most 1.21 ulp over every float of (-87, 0] (measured by
 * bench/results/ddpmdraw_20261128b/raw/expf_neg_exhaustive.c; tests/test_ddpm_grad.c,
 * test_expf_neg, checks every 61st float against 1.5 ulp). At and below -87 (exp < 1.7e-38,
 * where the result would leave the normal floats), at -inf and at NaN it returns 0.
 * docs/ddpm.md §5.
 */
#ifndef GEN_EXPF_NEG_H
#define GEN_EXPF_NEG_H

#include <stdint.h>

#include "precision.h" /* gen_f32_bits, gen_bits_f32 */
#include "rng.h"       /* GEN_HOST_DEVICE */

#if defined(__CUDA_ARCH__)
#define GEN_FMUL(a, b) __fmul_rn((a), (b))
#define GEN_FADD(a, b) __fadd_rn((a), (b))
#define GEN_DMUL(a, b) __dmul_rn((a), (b))
#define GEN_DADD(a, b) __dadd_rn((a), (b))
#else /* C11 and C++17 in ISO mode do not contract; the baseline x86-64 has no fma anyway */
#define GEN_FMUL(a, b) ((a) * (b))
#define GEN_FADD(a, b) ((a) + (b))
#define GEN_DMUL(a, b) ((a) * (b))
#define GEN_DADD(a, b) ((a) + (b))
#endif

#define GEN_EXPF_NEG_MIN (-87.0f)

GEN_HOST_DEVICE static inline float gen_expf_neg(float x) {
    const float shift = 12582912.0f;                    /* 1.5 * 2^23 */
    const float log2e = 1.44269502f;                    /* log2(e) rounded to float */
    const float ln2_hi = 0.693145751953125f, ln2_lo = 1.42860677e-06f; /* ln 2 = hi + lo */
    float t = GEN_FADD(GEN_FMUL(x, log2e), shift);
    float n = GEN_FADD(t, -shift);
    float r = GEN_FADD(GEN_FADD(x, GEN_FMUL(n, -ln2_hi)), GEN_FMUL(n, -ln2_lo));
    float p = 1.98412701e-04f;                          /* 1/7! */
    p = GEN_FADD(GEN_FMUL(p, r), 1.38888892e-03f);      /* 1/6! */
    p = GEN_FADD(GEN_FMUL(p, r), 8.33333377e-03f);      /* 1/5! */
    p = GEN_FADD(GEN_FMUL(p, r), 4.16666679e-02f);      /* 1/4! */
    p = GEN_FADD(GEN_FMUL(p, r), 1.66666672e-01f);      /* 1/3! */
    p = GEN_FADD(GEN_FMUL(p, r), 0.5f);
    p = GEN_FADD(GEN_FMUL(p, r), 1.0f);
    p = GEN_FADD(GEN_FMUL(p, r), 1.0f);
    /* t's bits are those of 1.5 * 2^23 plus n (its ulp is 1): shifted left by 23, the
     * constant's bits leave the word and n lands in the exponent field */
    float s = gen_bits_f32((gen_f32_bits(t) << 23) + (127u << 23)); /* 2^n for n >= -126 */
    /* x <= -87 (n < -126 possible, s then garbage), -inf and NaN: 0, by a mask (a select on
     * x would let the compiler branch, and the loop would not vectorise) */
    uint32_t keep = 0u - (uint32_t)(x > GEN_EXPF_NEG_MIN);
    return gen_bits_f32(gen_f32_bits(GEN_FMUL(p, s)) & keep);
}
#endif /* GEN_EXPF_NEG_H */
