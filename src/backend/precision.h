/*
 * precision.h — the number formats of mixed-precision training (docs/precision.md): rounding
 * an FP32 value to TF32, BF16 or FP16 with round to nearest, ties to even, and the 16-bit
 * encodings of BF16 and FP16. Shared by the CPU backend (which emulates a 16-bit GEMM by
 * rounding copies of its operands), the CUDA backend's conversion kernels (host + device
 * code) and the emulated cuBLAS (cublasGemmEx), so every place rounds the same way.
 * Formats: IEEE 754-2008 binary16 (1 sign, 5 exponent, 10 fraction bits, subnormals);
 * bfloat16 = the upper 16 bits of binary32 (8 exponent, 7 fraction bits); TF32 = binary32's
 * exponent with 10 fraction bits (NVIDIA A100 whitepaper, 2020). NaN stays NaN; values past
 * the largest finite number round to infinity as IEEE rounding says.
 */
#ifndef GEN_PRECISION_H
#define GEN_PRECISION_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define GEN_HD __host__ __device__ __forceinline__
#else
#define GEN_HD static inline
#endif

/* genesis_precision values (genesis.h), repeated so that device code needs no public header */
#define GEN_PREC_FP32 0
#define GEN_PREC_TF32 1
#define GEN_PREC_BF16 2
#define GEN_PREC_FP16 3

/* Unit roundoff u = 2^-(p) of each format (p = fraction bits + 1): the bound on the relative
 * error of one rounding, used by the parity tests' tolerances. */
#define GEN_U_FP32 5.9604644775390625e-08 /* 2^-24 */
#define GEN_U_TF32 4.8828125e-04          /* 2^-11 */
#define GEN_U_BF16 3.90625e-03            /* 2^-8 */
#define GEN_U_FP16 4.8828125e-04          /* 2^-11 */

GEN_HD uint32_t gen_f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
GEN_HD float gen_bits_f32(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* BF16 bits of x, round to nearest even (a quiet NaN for NaN) */
GEN_HD uint16_t gen_bf16_bits(float x) {
    uint32_t u = gen_f32_bits(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7FFFu + ((u >> 16) & 1u); /* a carry into the exponent is the right rounding */
    return (uint16_t)(u >> 16);
}
GEN_HD float gen_bf16_f32(uint16_t h) { return gen_bits_f32((uint32_t)h << 16); }

/* FP16 bits of x, round to nearest even, subnormals kept, overflow to infinity */
GEN_HD uint16_t gen_fp16_bits(float x) {
    uint32_t u = gen_f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    u &= 0x7FFFFFFFu;
    if (u > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);  /* NaN */
    if (u >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* >= 65520: infinity */
    if (u < 0x38800000u) {                                   /* below 2^-14: subnormal */
        if (u <= 0x33000000u) return sign;                   /* <= 2^-25 (a tie: to 0) */
        uint32_t mant = (u & 0x7FFFFFu) | 0x800000u;
        int shift = 126 - (int)(u >> 23);                    /* 14 .. 24 */
        uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = (u - 0x38000000u) >> 13; /* exponent rebased by 127 - 15 = 112 */
    uint32_t rem = u & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;
    return (uint16_t)(sign | r);
}
GEN_HD float gen_fp16_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact in FP32 */
        float v = (float)m * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    if (e == 31) return gen_bits_f32(sign | 0x7F800000u | (m << 13));
    return gen_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* TF32: FP32 with the low 13 fraction bits rounded away (to nearest even) */
GEN_HD float gen_tf32_round(float x) {
    uint32_t u = gen_f32_bits(x);
    if ((u & 0x7F800000u) == 0x7F800000u) return x; /* Inf, NaN */
    u += 0xFFFu + ((u >> 13) & 1u);
    return gen_bits_f32(u & ~0x1FFFu);
}

/* x rounded to `prec` (GEN_PREC_*) and back to FP32 */
GEN_HD float gen_round_prec(float x, int prec) {
    switch (prec) {
    case GEN_PREC_TF32: return gen_tf32_round(x);
    case GEN_PREC_BF16: return gen_bf16_f32(gen_bf16_bits(x));
    case GEN_PREC_FP16: return gen_fp16_f32(gen_fp16_bits(x));
    default: return x;
    }
}

/* The 16-bit encoding of x in a 16-bit format (BF16 or FP16) */
GEN_HD uint16_t gen_half_bits(float x, int prec) {
    return prec == GEN_PREC_BF16 ? gen_bf16_bits(x) : gen_fp16_bits(x);
}
GEN_HD float gen_half_f32(uint16_t h, int prec) {
    return prec == GEN_PREC_BF16 ? gen_bf16_f32(h) : gen_fp16_f32(h);
}

#endif /* GEN_PRECISION_H */
