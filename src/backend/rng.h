/*
 * rng.h — Philox4x32-10, a counter-based random number generator (Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC'11; constants from the paper).
 * Counter-based means element i of a stream is a pure function of (key, counter), so the
 * CPU and the CUDA backend draw identical bits for dropout masks, Gumbel noise and
 * latent noise, and a stream can be split without sharing state.
 *
 * Two ways to use it:
 *   - gen_philox(key, ctr) -> four 32-bit words: stateless, for bulk fills (element i of a
 *     fill uses counter base + i/4, word i%4);
 *   - gen_rng: a sequential stream (key, counter, a 4-word buffer) for host-side draws.
 * GEN_HOST_DEVICE lets the same inline code compile under nvcc.
 */
#ifndef GEN_RNG_H
#define GEN_RNG_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GEN_HOST_DEVICE __host__ __device__
#else
#define GEN_HOST_DEVICE
#endif

typedef struct { uint32_t v[4]; } gen_u32x4;

GEN_HOST_DEVICE static inline uint32_t gen_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi) {
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Philox4x32 with 10 rounds; key = 64 bits, counter = 128 bits (high 64 bits = stream). */
GEN_HOST_DEVICE static inline gen_u32x4 gen_philox(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi) {
    uint32_t c0 = (uint32_t)ctr_lo, c1 = (uint32_t)(ctr_lo >> 32);
    uint32_t c2 = (uint32_t)ctr_hi, c3 = (uint32_t)(ctr_hi >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = gen_mulhilo32(0xD2511F53u, c0, &hi0);
        uint32_t lo1 = gen_mulhilo32(0xCD9E8D57u, c2, &hi1);
        uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    gen_u32x4 out = {{c0, c1, c2, c3}};
    return out;
}

/* 32 random bits -> float in [0, 1) with 24 bits, and in (0, 1] (for logs). */
GEN_HOST_DEVICE static inline float gen_u32_to_unit(uint32_t x) {
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}
GEN_HOST_DEVICE static inline float gen_u32_to_unit_open0(uint32_t x) {
    return ((float)(x >> 8) + 1.0f) * (1.0f / 16777216.0f);
}

/* 32 random bits -> float strictly inside (0, 1): 23 bits plus a half step, so that both
 * log(u) and log(-log(u)) are finite (Gumbel noise). */
GEN_HOST_DEVICE static inline float gen_u32_to_unit_open(uint32_t x) {
    return ((float)(x >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

/* Element i of a stateless stream: word i%4 of philox(key, base + i/4, stream). */
GEN_HOST_DEVICE static inline uint32_t gen_philox_at(uint64_t key, uint64_t stream, uint64_t base,
                                                     uint64_t i) {
    gen_u32x4 r = gen_philox(key, base + (i >> 2), stream);
    return r.v[i & 3];
}

/* Standard normal for element i: Box-Muller on words (2j, 2j+1) of the block, so elements
 * 2j and 2j+1 share one pair (cos and sin halves). */
GEN_HOST_DEVICE static inline float gen_philox_normal_at(uint64_t key, uint64_t stream,
                                                         uint64_t base, uint64_t i) {
    gen_u32x4 r = gen_philox(key, base + (i >> 2), stream);
    int pair = (int)((i & 3) >> 1);
    float u1 = gen_u32_to_unit_open0(r.v[2 * pair]);
    float u2 = gen_u32_to_unit(r.v[2 * pair + 1]);
    float rad = sqrtf(-2.0f * logf(u1));
    float th = 6.28318530717958647692f * u2;
    return (i & 1) ? rad * sinf(th) : rad * cosf(th);
}

/* Sequential host stream. */
typedef struct gen_rng {
    uint64_t key, stream, counter;
    uint32_t buf[4];
    int pos;                 /* next unused word in buf; 4 = empty */
} gen_rng;

static inline void gen_rng_init(gen_rng *r, uint64_t seed, uint64_t stream) {
    r->key = seed;
    r->stream = stream;
    r->counter = 0;
    r->pos = 4;
}

static inline uint32_t gen_rng_u32(gen_rng *r) {
    if (r->pos >= 4) {
        gen_u32x4 b = gen_philox(r->key, r->counter++, r->stream);
        r->buf[0] = b.v[0]; r->buf[1] = b.v[1]; r->buf[2] = b.v[2]; r->buf[3] = b.v[3];
        r->pos = 0;
    }
    return r->buf[r->pos++];
}

static inline uint64_t gen_rng_u64(gen_rng *r) {
    uint64_t hi = gen_rng_u32(r);
    return (hi << 32) | gen_rng_u32(r);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double gen_rng_uniform(gen_rng *r) {
    return (double)(gen_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Unbiased integer in [0, n) (Lemire's multiply-shift with rejection); n >= 1. */
static inline uint64_t gen_rng_below(gen_rng *r, uint64_t n) {
    if (n <= 1) return 0;
    if (n <= 0xFFFFFFFFu) {
        uint32_t n32 = (uint32_t)n;
        uint64_t m = (uint64_t)gen_rng_u32(r) * n32;
        uint32_t l = (uint32_t)m;
        if (l < n32) {
            uint32_t t = (uint32_t)(-n32) % n32;
            while (l < t) {
                m = (uint64_t)gen_rng_u32(r) * n32;
                l = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do x = gen_rng_u64(r); while (x >= lim);
    return x % n;
}

/* Standard normal (Box-Muller, no cached value: each call uses two uniforms). */
static inline double gen_rng_normal(gen_rng *r) {
    double u1 = 1.0 - gen_rng_uniform(r); /* (0, 1] */
    double u2 = gen_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

/* Row-numbered draws (sampling, docs/memory.md "Several devices"): row `row` of a sampling
 * call reads its own sequential stream, the counter blocks [row << GEN_ROW_SHIFT,
 * (row + 1) << GEN_ROW_SHIFT) of (key, stream). A row's draws are then a function of the
 * seed and the row's number alone, whichever device, thread or batch generates it.
 * 2^20 blocks (4 Mi words) per row, rows below 2^44. */
#define GEN_ROW_SHIFT 20
static inline void gen_rng_row(gen_rng *r, uint64_t key, uint64_t stream, uint64_t row) {
    gen_rng_init(r, key, stream);
    r->counter = row << GEN_ROW_SHIFT;
}

/* Stream ids that keep the library's uses of one seed apart. */
enum {
    GEN_STREAM_INIT = 1,       /* weight initialisation */
    GEN_STREAM_TRANSFORM = 2,  /* GMM subsample and mode sampling */
    GEN_STREAM_SAMPLER = 3,    /* conditional vectors and row picks */
    GEN_STREAM_NOISE = 4,      /* latent noise, Gumbel, dropout, GP alpha (stateless fills) */
    GEN_STREAM_SAMPLE = 5,     /* generation */
    GEN_STREAM_DECODE = 6,     /* rare-level draws while decoding */
    GEN_STREAM_DP = 7,         /* DP-SGD: the gradient noise (dp_noise) */
    GEN_STREAM_DP_BATCH = 8,   /* DP-SGD: Poisson sampling of the batches' rows */
    GEN_STREAM_DP_STATS = 9    /* the noisy histograms of the transformer's statistics */
};

#endif /* GEN_RNG_H */
