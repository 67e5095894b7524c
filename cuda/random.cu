/*
 * random.cu — the CUDA backend's `random` family (backend.h), the Philox draws: fill_normal,
 * fill_uniform, normal_onehot_rows (the generator's input), dropout_forward, lrelu_dropout_forward
 * and linear_lrelu_dropout_forward (the product, then one kernel). They use rng.h's gen_philox
 * (GEN_HOST_DEVICE), with the CPU reference's indexing: element i of a fill is word i % 4 of
 * philox(seed, offset + i / 4, stream), and a normal pair (2j, 2j+1) of a block is Box-Muller on
 * words (2j, 2j+1). One thread per block of four elements, so each Philox block is computed once;
 * CPU and GPU draw the same bits (the transcendental functions may differ in the last ulp). With a
 * step's counter base bound (gen_backend.rng_base, a device pointer) the kernel adds it to the
 * offset when it runs, so a recorded step draws fresh numbers at every replay. CPU:
 * src/backend/cpu/random.c; parity: tests/parity/random.c.
 */
#include "cuda_common.cuh"

#define GEN_GRID_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

/* The counter offset of a launch: offset plus the step's base when one is bound. */
__device__ __forceinline__ uint64_t gen_rng_offset(uint64_t offset, const uint64_t *base) {
    return base ? offset + *base : offset;
}

__global__ void k_fill_normal(float *__restrict__ x, size_t n, uint64_t seed, uint64_t stream,
                              uint64_t offset, const uint64_t *base) {
    offset = gen_rng_offset(offset, base);
    size_t nblk = (n + 3) / 4;
    GEN_GRID_LOOP(g, nblk) {
        gen_u32x4 r = gen_philox(seed, offset + g, stream);
        float z[4];
#pragma unroll
        for (int p = 0; p < 2; p++) {
            float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
            float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
            z[2 * p] = rad * cosf(th);
            z[2 * p + 1] = rad * sinf(th);
        }
        size_t i = 4 * g;
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k < n) x[i + k] = z[k];
    }
}

/* normal_onehot_rows: k_fill_normal's draws placed at (i / emb, i % emb) of out, then the
 * one-hots of onehot_rows at columns emb .. emb + w, in one grid */
__global__ void k_normal_onehot(float *__restrict__ out, int ldo, int emb, int w,
                                const int32_t *__restrict__ pos, int B, uint64_t seed,
                                uint64_t stream, uint64_t offset, const uint64_t *base) {
    offset = gen_rng_offset(offset, base);
    size_t n = (size_t)B * (size_t)emb, nblk = (n + 3) / 4;
    GEN_GRID_LOOP(g, nblk) {
        gen_u32x4 r = gen_philox(seed, offset + g, stream);
        float z[4];
#pragma unroll
        for (int p = 0; p < 2; p++) {
            float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
            float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
            z[2 * p] = rad * cosf(th);
            z[2 * p + 1] = rad * sinf(th);
        }
        size_t i = 4 * g;
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k < n) out[(i + k) / emb * (size_t)ldo + (i + k) % emb] = z[k];
    }
    size_t m = (size_t)B * (size_t)w;
    GEN_GRID_LOOP(i, m) {
        int b = (int)(i / (size_t)w), j = (int)(i % (size_t)w);
        out[(size_t)b * ldo + emb + j] = pos[b] == j ? 1.0f : 0.0f;
    }
}

static genesis_status cu_normal_onehot(gen_cuda *cu, float *out, int ldo, int emb, int w,
                                       const int32_t *pos, int B, uint64_t seed, uint64_t stream,
                                       uint64_t offset, const uint64_t *base) {
    size_t nblk = ((size_t)B * emb + 3) / 4, m = (size_t)B * (w > 0 ? w : 0);
    size_t most = nblk > m ? nblk : m;
    if (most == 0) return GENESIS_OK;
    GEN_LAUNCH(k_normal_onehot, gen_cuda_grid(most, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, ldo, emb, w > 0 ? w : 0, pos, B, seed, stream, offset, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_fill_uniform(float *__restrict__ x, size_t n, uint64_t seed, uint64_t stream,
                               uint64_t offset, const uint64_t *base) {
    offset = gen_rng_offset(offset, base);
    size_t nblk = (n + 3) / 4;
    GEN_GRID_LOOP(g, nblk) {
        gen_u32x4 r = gen_philox(seed, offset + g, stream);
        size_t i = 4 * g;
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k < n) x[i + k] = gen_u32_to_unit(r.v[k]);
    }
}

/* mask = keep ? scale : 0 with keep = uniform >= p; out = inp * mask */
__global__ void k_dropout_forward(float *__restrict__ out, float *__restrict__ mask,
                                  const float *__restrict__ inp, size_t n, float p, float scale,
                                  uint64_t seed, uint64_t stream, uint64_t offset,
                                  const uint64_t *base) {
    offset = gen_rng_offset(offset, base);
    size_t nblk = (n + 3) / 4;
    GEN_GRID_LOOP(g, nblk) {
        gen_u32x4 r = gen_philox(seed, offset + g, stream);
        size_t i = 4 * g;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (i + k < n) {
                float m = gen_u32_to_unit(r.v[k]) >= p ? scale : 0.0f;
                mask[i + k] = m;
                out[i + k] = inp[i + k] * m;
            }
        }
    }
}

/* k_dropout_forward after a leaky ReLU: out = m * leaky(x), s = m * (x > 0 ? 1 : slope);
 * with a bias (cols values, broadcast over rows) x += bias first, written back to inp. The
 * first n values draw from offset, the n2 after them (a second segment of whole rows) from
 * offset2, each from its own first Philox block, as two launches would. */
__global__ void k_lrelu_dropout(float *__restrict__ out, float *__restrict__ s,
                                float *__restrict__ inp, const float *__restrict__ bias,
                                size_t cols, size_t n, float slope, float p, float scale,
                                uint64_t seed, uint64_t stream, uint64_t offset,
                                const uint64_t *base, size_t n2, uint64_t offset2) {
    offset = gen_rng_offset(offset, base);
    offset2 = gen_rng_offset(offset2, base);
    size_t nb1 = (n + 3) / 4, nblk = nb1 + (n2 + 3) / 4;
    GEN_GRID_LOOP(g, nblk) {
        int second = g >= nb1;
        size_t gb = second ? g - nb1 : g, lim = second ? n2 : n, at = second ? n : 0;
        gen_u32x4 r = gen_philox(seed, (second ? offset2 : offset) + gb, stream);
        size_t i = 4 * gb;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (i + k < lim) {
                size_t e = at + i + k;
                float m = gen_u32_to_unit(r.v[k]) >= p ? scale : 0.0f, x = inp[e];
                if (bias) {
                    x += bias[(i + k) % cols];
                    inp[e] = x;
                }
                float l = x > 0.0f ? x : slope * x;
                out[e] = l * m;
                s[e] = m * (x > 0.0f ? 1.0f : slope);
            }
        }
    }
}

genesis_status gen_cu_fill_normal(gen_cuda *cu, float *x, size_t n, uint64_t seed,
                                  uint64_t stream, uint64_t offset, const uint64_t *base) {
    if (n == 0) return GENESIS_OK;
    size_t nblk = (n + 3) / 4;
    GEN_LAUNCH(k_fill_normal, gen_cuda_grid(nblk, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(x, n, seed, stream, offset, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_fill_uniform(gen_cuda *cu, float *x, size_t n, uint64_t seed,
                                   uint64_t stream, uint64_t offset, const uint64_t *base) {
    if (n == 0) return GENESIS_OK;
    size_t nblk = (n + 3) / 4;
    GEN_LAUNCH(k_fill_uniform, gen_cuda_grid(nblk, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(x, n, seed, stream, offset, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_dropout_forward(gen_cuda *cu, float *out, float *mask, const float *inp,
                                      size_t n, float p, uint64_t seed, uint64_t stream,
                                      uint64_t offset, const uint64_t *base) {
    if (n == 0) return GENESIS_OK;
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; /* on the host, as the CPU does */
    size_t nblk = (n + 3) / 4;
    GEN_LAUNCH(k_dropout_forward, gen_cuda_grid(nblk, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, mask, inp, n, p, scale, seed, stream, offset, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* lrelu_dropout_forward of rows x cols values with bias (cols, or NULL) added first and the
 * sum written back to x (linear_lrelu_dropout_forward after its product), then of rows2 more
 * rows drawing from offset2 */
static genesis_status cu_lrelu_dropout(gen_cuda *cu, float *out, float *s, float *x,
                                       const float *bias, size_t rows, size_t cols, float slope,
                                       float p, uint64_t seed, uint64_t stream, uint64_t offset,
                                       const uint64_t *base, size_t rows2, uint64_t offset2) {
    size_t n = rows * cols, n2 = rows2 * cols;
    if (n + n2 == 0) return GENESIS_OK;
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; /* on the host, as the CPU does */
    size_t nblk = (n + 3) / 4 + (n2 + 3) / 4;
    GEN_LAUNCH(k_lrelu_dropout, gen_cuda_grid(nblk, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, s, x, bias, cols, n, slope, p, scale, seed, stream, offset, base,
                           n2, offset2);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static genesis_status cu_linear_lrelu_dropout(gen_cuda *cu, float *out, float *s, float *pre,
                                              const float *inp, int ldi, const float *W,
                                              const float *bias, int B, int C, int OC,
                                              float slope, float p, uint64_t seed,
                                              uint64_t stream, uint64_t offset,
                                              const uint64_t *base, int prec, int B2,
                                              uint64_t offset2) {
    if (B2 < 0) B2 = 0;
    if (B < 0 || B + B2 <= 0 || OC <= 0) return GENESIS_OK;
    /* one product over both segments' rows (inp's second segment follows the first) */
    GEN_CUDA_PASS(gen_cu_linear_forward(cu, pre, OC, inp, ldi, W, NULL, B + B2, C, OC, prec));
    return cu_lrelu_dropout(cu, out, s, pre, bias, (size_t)B, (size_t)OC, slope, p, seed, stream,
                            offset, base, (size_t)B2, offset2);
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_lrelu_dropout_forward(gen_backend *be, float *out, float *s, const float *inp,
                                     size_t n, float slope, float p, uint64_t seed,
                                     uint64_t stream, uint64_t offset) {
    GEN_CUDA_RUN(be, "lrelu_dropout_forward",
                 cu_lrelu_dropout(cu, out, s, (float *)inp, NULL, 1, n, slope, p, seed, stream,
                                  offset, be->rng_base, 0, 0));
}

static void op_normal_onehot_rows(gen_backend *be, float *out, int ldo, float *z, float *cond,
                                  int emb, int w, const int32_t *pos, int B, uint64_t seed,
                                  uint64_t stream, uint64_t offset) {
    (void)z; /* the CPU's scratch */
    (void)cond;
    GEN_CUDA_RUN(be, "normal_onehot_rows",
                 cu_normal_onehot(cu, out, ldo, emb, w, pos, B, seed, stream, offset,
                                  be->rng_base));
}

static void op_linear_lrelu_dropout_forward(gen_backend *be, float *out, float *s, float *pre,
                                            const float *inp, int ldi, const float *W,
                                            const float *bias, int B, int C, int OC, float slope,
                                            float p, uint64_t seed, uint64_t stream,
                                            uint64_t offset, int B2, uint64_t offset2) {
    GEN_CUDA_RUN(be, "linear_lrelu_dropout_forward",
                 cu_linear_lrelu_dropout(cu, out, s, pre, inp, ldi, W, bias, B, C, OC, slope, p,
                                         seed, stream, offset, be->rng_base, be->precision, B2,
                                         offset2));
}

static void op_dropout_forward(gen_backend *be, float *out, float *mask, const float *inp,
                               size_t n, float p, uint64_t seed, uint64_t stream,
                               uint64_t offset) {
    GEN_CUDA_RUN(be, "dropout_forward",
                 gen_cu_dropout_forward(cu, out, mask, inp, n, p, seed, stream, offset,
                                        be->rng_base));
}

static void op_fill_normal(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                           uint64_t offset) {
    GEN_CUDA_RUN(be, "fill_normal",
                 gen_cu_fill_normal(cu, x, n, seed, stream, offset, be->rng_base));
}

static void op_fill_uniform(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                            uint64_t offset) {
    GEN_CUDA_RUN(be, "fill_uniform",
                 gen_cu_fill_uniform(cu, x, n, seed, stream, offset, be->rng_base));
}

void gen_cu_ops_random(gen_backend_ops *o) {
    o->fill_normal = op_fill_normal;
    o->fill_uniform = op_fill_uniform;
    o->dropout_forward = op_dropout_forward;
    o->lrelu_dropout_forward = op_lrelu_dropout_forward;
    o->normal_onehot_rows = op_normal_onehot_rows;
    o->linear_lrelu_dropout_forward = op_linear_lrelu_dropout_forward;
}
