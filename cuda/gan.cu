/*
 * gan.cu — the CUDA backend's `gan` family (backend.h): the WGAN-GP pieces on the GPU:
 * interpolate_groups (real/fake mixing with one alpha per pac group; interpolate_uniform with its
 * alphas drawn in the same kernel), gp_penalty (per-row
 * gradient norms, the penalty and its upstream gradient U), and colsum_acc (also the bias
 * gradient of linear_backward).
 *
 * gp_penalty: one block per row g; the squared norm is a block tree in double, the penalty terms
 * (|G_g| - 1)^2 go to one double per row and the grid's last block adds them in a fixed order
 * in the same launch (gen_finish_last): the same value on every run. colsum_acc: one block per
 * 8 adjacent columns, 64 threads down the rows, the partial sums added in gen_col_tree's fixed
 * tree.
 * CPU: src/backend/cpu/gan.c; parity: tests/parity/gan.c.
 */
#include "cuda_common.cuh"

__global__ void k_interpolate_groups(float *__restrict__ out, const float *__restrict__ real,
                                     const float *__restrict__ fake,
                                     const float *__restrict__ alpha, size_t n, int w, int pac) {
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x) {
        size_t i = k / (size_t)w;
        float a = alpha[i / (size_t)pac];
        out[k] = a * real[k] + (1.0f - a) * fake[k];
    }
}

genesis_status gen_cu_interpolate_groups(gen_cuda *cu, float *out, const float *real,
                                         const float *fake, const float *alpha, int B, int w,
                                         int pac) {
    if (B <= 0 || w <= 0) return GENESIS_OK;
    size_t n = (size_t)B * (size_t)w;
    GEN_LAUNCH(k_interpolate_groups, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, real, fake, alpha, n, w, pac);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* interpolate_uniform: the alphas as fill_uniform draws them (value g: word g % 4 of Philox
 * block offset + g / 4, the step's counter base added when it runs), written for all ng
 * groups, and each interpolate thread draws its own group's again (first + its row / pac)
 * instead of reading it back: one kernel, the same values */
__global__ void k_interpolate_uniform(float *__restrict__ out, float *__restrict__ alpha,
                                      const float *__restrict__ real,
                                      const float *__restrict__ fake, size_t n, int w, int pac,
                                      size_t ng, size_t first, uint64_t seed, uint64_t stream,
                                      uint64_t offset, const uint64_t *base) {
    if (base) offset += *base;
    size_t tot = n > ng ? n : ng;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < tot;
         k += (size_t)gridDim.x * blockDim.x) {
        if (k < ng) alpha[k] = gen_u32_to_unit(gen_philox(seed, offset + k / 4, stream).v[k % 4]);
        if (k < n) {
            size_t g = first + k / (size_t)w / (size_t)pac;
            float a = gen_u32_to_unit(gen_philox(seed, offset + g / 4, stream).v[g % 4]);
            out[k] = a * real[k] + (1.0f - a) * fake[k];
        }
    }
}

static genesis_status cu_interpolate_uniform(gen_cuda *cu, float *out, float *alpha,
                                             const float *real, const float *fake, int B, int w,
                                             int pac, size_t ng, size_t first, uint64_t seed,
                                             uint64_t stream, uint64_t offset,
                                             const uint64_t *base) {
    size_t n = B > 0 && w > 0 ? (size_t)B * (size_t)w : 0, tot = n > ng ? n : ng;
    if (tot == 0) return GENESIS_OK;
    GEN_LAUNCH(k_interpolate_uniform, gen_cuda_grid(tot, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, alpha, real, fake, n, w, pac, ng, first, seed, stream, offset,
                           base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

#define GP_THREADS 256

__global__ void k_gp_penalty(float *__restrict__ pen, unsigned *count,
                             double *__restrict__ partial, float *__restrict__ U,
                             const float *__restrict__ G, int n, int width, float lambda) {
    __shared__ double sh[32];
    __shared__ double coef_sh;
    int g = blockIdx.x;
    const float *row = G + (size_t)g * width;
    double ss = 0.0;
    for (int j = threadIdx.x; j < width; j += GP_THREADS) ss += (double)row[j] * row[j];
    ss = gen_block_sum(ss, sh, (int)threadIdx.x, GP_THREADS);
    if (threadIdx.x == 0) {
        double norm = sqrt(ss);
        partial[g] = (norm - 1) * (norm - 1);
        coef_sh = norm > 0 ? 2.0 * lambda / n * (norm - 1) / norm : 0.0;
    }
    __syncthreads();
    double coef = coef_sh;
    float *u = U + (size_t)g * width;
    for (int j = threadIdx.x; j < width; j += GP_THREADS) u[j] = (float)(coef * row[j]);
    gen_finish_last(pen, partial, n, (double)lambda, (double)n, count, sh);
}

genesis_status gen_cu_gp_penalty(gen_cuda *cu, float *pen, float *U, const float *G, int n,
                                 int width, float lambda) {
    if (n <= 0) {
        /* the CPU writes lambda * 0 / 0 = NaN here; nothing calls it with n = 0 */
        GEN_CUDA_TRY(cu, cudaMemsetAsync(pen, 0xff, sizeof(float), cu->stream));
        return GENESIS_OK;
    }
    void *p = NULL;
    genesis_status st = gen_cuda_scratch(cu, (size_t)n * sizeof(double), &p);
    if (st != GENESIS_OK) return st;
    double *partial = (double *)p;
    GEN_LAUNCH(k_gp_penalty, (unsigned)n, GP_THREADS, 0, cu->stream)(pen, cu->count, partial, U,
               G, n, width, lambda);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

#define CS_COLS GEN_COL_COLS
#define CS_ROWS GEN_COL_ROWS

/* dv[c] += sum of column c over the rows: GEN_COL_COLS columns x GEN_COL_ROWS row-threads a
 * block, the partial sums added by gen_col_tree (cuda_common.cuh) */
__global__ void k_colsum_acc(float *__restrict__ dv, const float *__restrict__ a, int lda,
                             int rows, int cols) {
    __shared__ float sh[CS_ROWS][CS_COLS];
    int c = blockIdx.x * CS_COLS + threadIdx.x;
    float s = 0.0f;
    if (c < cols)
        for (int r = threadIdx.y; r < rows; r += CS_ROWS) s += a[(size_t)r * lda + c];
    float t = gen_col_tree(s, sh);
    if (threadIdx.y == 0 && c < cols) dv[c] += t;
}

genesis_status gen_cu_colsum_acc(gen_cuda *cu, float *dv, const float *a, int lda, int rows,
                                 int cols) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    dim3 block(CS_COLS, CS_ROWS), grid((unsigned)((cols + CS_COLS - 1) / CS_COLS));
    GEN_LAUNCH(k_colsum_acc, grid, block, 0, cu->stream)(dv, a, lda, rows, cols);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_interpolate_groups(gen_backend *be, float *out, const float *real,
                                  const float *fake, const float *alpha, int B, int w, int pac) {
    GEN_CUDA_RUN(be, "interpolate_groups",
                 gen_cu_interpolate_groups(cu, out, real, fake, alpha, B, w, pac));
}

static void op_interpolate_uniform(gen_backend *be, float *out, float *alpha, const float *real,
                                   const float *fake, int B, int w, int pac, size_t ng,
                                   size_t first, uint64_t seed, uint64_t stream,
                                   uint64_t offset) {
    GEN_CUDA_RUN(be, "interpolate_uniform",
                 cu_interpolate_uniform(cu, out, alpha, real, fake, B, w, pac, ng, first, seed,
                                        stream, offset, be->rng_base));
}

static void op_gp_penalty(gen_backend *be, float *pen, float *U, const float *G, int n,
                          int width, float lambda) {
    GEN_CUDA_RUN(be, "gp_penalty", gen_cu_gp_penalty(cu, pen, U, G, n, width, lambda));
}

static void op_colsum_acc(gen_backend *be, float *dv, const float *a, int rows, int cols) {
    GEN_CUDA_RUN(be, "colsum_acc", gen_cu_colsum_acc(cu, dv, a, cols, rows, cols));
}

void gen_cu_ops_gan(gen_backend_ops *o) {
    o->interpolate_groups = op_interpolate_groups;
    o->interpolate_uniform = op_interpolate_uniform;
    o->gp_penalty = op_gp_penalty;
    o->colsum_acc = op_colsum_acc;
}
