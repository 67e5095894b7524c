/*
 * privacy.cu — the CUDA backend's `privacy` family (backend.h), what DP-SGD adds to a step
 * (docs/privacy.md): dp_sqnorm_acc (one block per row: the row's squared input and
 * output-gradient norms as fixed-tree block sums in double, so the result does not depend
 * on the grid), dp_clip_factors, dp_scale_rows, and dp_noise (fill_normal's Philox draw of
 * each element, as random.cu, added to the summed clipped gradient and scaled).
 * CPU: src/backend/cpu/privacy.c; parity: tests/parity/privacy.c.
 */
#include "cuda_common.cuh"

#ifndef GEN_GRID_LOOP
#define GEN_GRID_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)
#endif

#define DP_THREADS 128

__global__ void k_dp_sqnorm_acc(float *__restrict__ sq, const float *__restrict__ x, int ldx,
                                int C, const float *__restrict__ g, int ldg, int OC, int B) {
    __shared__ double sh[32];
    for (int b = blockIdx.x; b < B; b += gridDim.x) {
        const float *xr = x + (size_t)b * ldx, *gr = g + (size_t)b * ldg;
        double xx = 0.0, gg = 0.0;
        for (int i = threadIdx.x; i < C; i += blockDim.x) xx += (double)xr[i] * xr[i];
        for (int j = threadIdx.x; j < OC; j += blockDim.x) gg += (double)gr[j] * gr[j];
        xx = gen_block_sum(xx, sh, (int)threadIdx.x, (int)blockDim.x);
        gg = gen_block_sum(gg, sh, (int)threadIdx.x, (int)blockDim.x);
        if (threadIdx.x == 0) sq[b] = (float)((double)sq[b] + (xx + 1.0) * gg);
    }
}

__global__ void k_dp_clip_factors(float *__restrict__ s, const float *__restrict__ sq, int B,
                                  float clip) {
    GEN_GRID_LOOP(b, (size_t)B) {
        double n = sqrt((double)sq[b]);
        s[b] = n > clip ? (float)(clip / n) : 1.0f;
    }
}

__global__ void k_dp_scale_rows(float *__restrict__ x, int ld, const float *__restrict__ s,
                                int B, int cols) {
    size_t n = (size_t)B * cols;
    GEN_GRID_LOOP(i, n) {
        size_t b = i / cols, j = i % cols;
        x[b * ld + j] *= s[b];
    }
}

__global__ void k_dp_noise(float *__restrict__ g, size_t n, float sd, float scale, uint64_t seed,
                           uint64_t stream, uint64_t offset, const uint64_t *base) {
    if (base) offset += *base;
    size_t nblk = (n + 3) / 4;
    GEN_GRID_LOOP(q, nblk) {
        gen_u32x4 r = gen_philox(seed, offset + q, stream);
        float z[4];
#pragma unroll
        for (int p = 0; p < 2; p++) {
            float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
            float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
            z[2 * p] = rad * cosf(th);
            z[2 * p + 1] = rad * sinf(th);
        }
        size_t i = 4 * q;
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k < n) g[i + k] = (g[i + k] + sd * z[k]) * scale;
    }
}

static genesis_status cu_dp_sqnorm_acc(gen_cuda *cu, float *sq, const float *x, int ldx, int C,
                                       const float *g, int ldg, int OC, int B) {
    if (B <= 0) return GENESIS_OK;
    unsigned nb = (unsigned)B < GEN_CUDA_MAX_BLOCKS ? (unsigned)B : GEN_CUDA_MAX_BLOCKS;
    GEN_LAUNCH(k_dp_sqnorm_acc, nb, DP_THREADS, 0, cu->stream)(sq, x, ldx, C, g, ldg, OC, B);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static genesis_status cu_dp_clip_factors(gen_cuda *cu, float *s, const float *sq, int B,
                                         float clip) {
    if (B <= 0) return GENESIS_OK;
    GEN_LAUNCH(k_dp_clip_factors, gen_cuda_grid((size_t)B, GEN_CUDA_THREADS), GEN_CUDA_THREADS,
               0, cu->stream)(s, sq, B, clip);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static genesis_status cu_dp_scale_rows(gen_cuda *cu, float *x, int ld, const float *s, int B,
                                       int cols) {
    size_t n = (size_t)B * (size_t)cols;
    if (B <= 0 || cols <= 0) return GENESIS_OK;
    GEN_LAUNCH(k_dp_scale_rows, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(x, ld, s, B, cols);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static genesis_status cu_dp_noise(gen_cuda *cu, float *g, size_t n, float sd, float scale,
                                  uint64_t seed, uint64_t stream, uint64_t offset,
                                  const uint64_t *base) {
    if (n == 0) return GENESIS_OK;
    size_t nblk = (n + 3) / 4;
    GEN_LAUNCH(k_dp_noise, gen_cuda_grid(nblk, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(g, n, sd, scale, seed, stream, offset, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_dp_sqnorm_acc(gen_backend *be, float *sq, const float *x, int ldx, int C,
                             const float *g, int ldg, int OC, int B) {
    GEN_CUDA_RUN(be, "dp_sqnorm_acc", cu_dp_sqnorm_acc(cu, sq, x, ldx, C, g, ldg, OC, B));
}

static void op_dp_clip_factors(gen_backend *be, float *s, const float *sq, int B, float clip) {
    GEN_CUDA_RUN(be, "dp_clip_factors", cu_dp_clip_factors(cu, s, sq, B, clip));
}

static void op_dp_scale_rows(gen_backend *be, float *x, int ld, const float *s, int B, int cols) {
    GEN_CUDA_RUN(be, "dp_scale_rows", cu_dp_scale_rows(cu, x, ld, s, B, cols));
}

static void op_dp_noise(gen_backend *be, float *g, size_t n, float sd, float scale,
                        uint64_t seed, uint64_t stream, uint64_t offset) {
    GEN_CUDA_RUN(be, "dp_noise",
                 cu_dp_noise(cu, g, n, sd, scale, seed, stream, offset, be->rng_base));
}

void gen_cu_ops_privacy(gen_backend_ops *o) {
    o->dp_sqnorm_acc = op_dp_sqnorm_acc;
    o->dp_clip_factors = op_dp_clip_factors;
    o->dp_scale_rows = op_dp_scale_rows;
    o->dp_noise = op_dp_noise;
}
