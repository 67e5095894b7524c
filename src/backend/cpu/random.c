/*
 * random.c — the CPU backend's `random` family (backend.h): the Philox fills fill_normal and
 * fill_uniform, dropout_forward and lrelu_dropout_forward (leaky ReLU and dropout in one
 * pass). Element i is word i % 4 of gen_philox(seed, offset +
 * i / 4, stream) (rng.h), a normal pair Box-Muller on two words of one block, so every
 * backend draws the same bits; offset adds the step's counter base (gen_backend.rng_base).
 * CUDA: cuda/random.cu; parity: tests/parity/random.c.
 */
#include "cpu_internal.h"

/* One Philox block's four normals (two Box-Muller pairs) */
static inline void normal_block(gen_u32x4 r, float z[4]) {
    for (int p = 0; p < 2; p++) {
        float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
        float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
        z[2 * p] = rad * cosf(th);
        z[2 * p + 1] = rad * sinf(th);
    }
}

void gen_cpu_dropout_forward(gen_backend *be, float *out, float *mask, const float *inp,
                             size_t n, float p, uint64_t seed, uint64_t stream,
                             uint64_t offset) {
    offset += cpu_rng_base(be);
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) {
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        for (size_t k = 0; k < 4 && i + k < n; k++) {
            float m = gen_u32_to_unit(r.v[k]) >= p ? scale : 0.0f;
            mask[i + k] = m;
            out[i + k] = inp[i + k] * m;
        }
    }
}

void gen_cpu_lrelu_dropout_forward(gen_backend *be, float *out, float *s, const float *inp,
                                   size_t n, float slope, float p, uint64_t seed,
                                   uint64_t stream, uint64_t offset) {
    offset += cpu_rng_base(be);
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) {
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        for (size_t k = 0; k < 4 && i + k < n; k++) {
            float m = gen_u32_to_unit(r.v[k]) >= p ? scale : 0.0f, x = inp[i + k];
            float l = x > 0.0f ? x : slope * x; /* leaky_relu_forward, then dropout */
            out[i + k] = l * m;
            s[i + k] = m * (x > 0.0f ? 1.0f : slope);
        }
    }
}

void gen_cpu_linear_lrelu_dropout_forward(gen_backend *be, float *out, float *s, float *pre,
                                          const float *inp, int ldi, const float *W,
                                          const float *bias, int B, int C, int OC, float slope,
                                          float p, uint64_t seed, uint64_t stream,
                                          uint64_t offset, int B2, uint64_t offset2) {
    gen_cpu_linear_forward(be, pre, OC, inp, ldi, W, bias, B, C, OC);
    gen_cpu_lrelu_dropout_forward(be, out, s, pre, (size_t)B * OC, slope, p, seed, stream,
                                  offset);
    if (B2 <= 0) return;
    size_t at = (size_t)B * OC; /* the second call's rows */
    gen_cpu_linear_forward(be, pre + at, OC, inp + (size_t)B * ldi, ldi, W, bias, B2, C, OC);
    gen_cpu_lrelu_dropout_forward(be, out + at, s + at, pre + at, (size_t)B2 * OC, slope, p, seed,
                                  stream, offset2);
}

void gen_cpu_normal_onehot_rows(gen_backend *be, float *out, int ldo, float *z, float *cond,
                                int emb, int w, const int32_t *pos, int B, uint64_t seed,
                                uint64_t stream, uint64_t offset) {
    if (z && cond) { /* the replaced operations, in the caller's buffers */
        gen_cpu_fill_normal(be, z, (size_t)B * emb, seed, stream, offset);
        gen_cpu_copy2d(be, out, ldo, z, emb, B, emb);
        gen_cpu_onehot_rows(be, cond, w, w, pos, B);
        gen_cpu_copy2d(be, out + emb, ldo, cond, w, B, w);
        return;
    }
    size_t n = (size_t)B * emb;
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) { /* fill_normal's draws, value i at (i / emb, i % emb) */
        float v[4];
        normal_block(gen_philox(seed, offset + i / 4, stream), v);
        size_t b = i / (size_t)emb, j = i % (size_t)emb; /* one division per block */
        for (size_t k = 0; k < 4 && i + k < n; k++) {
            out[b * (size_t)ldo + j] = v[k];
            if (++j == (size_t)emb) {
                j = 0;
                b++;
            }
        }
    }
    gen_cpu_onehot_rows(be, out + emb, ldo, w, pos, B);
}

/* ---- random fills --------------------------------------------------------------------------- */
void gen_cpu_fill_normal(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                         uint64_t offset) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) { /* one Philox block gives four normals (two pairs) */
        float z[4];
        normal_block(gen_philox(seed, offset + i / 4, stream), z);
        for (size_t k = 0; k < 4 && i + k < n; k++) x[i + k] = z[k];
    }
}
void gen_cpu_fill_uniform(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                          uint64_t offset) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) {
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        for (size_t k = 0; k < 4 && i + k < n; k++) x[i + k] = gen_u32_to_unit(r.v[k]);
    }
}
