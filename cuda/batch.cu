/*
 * batch.cu — the CUDA backend's `batch` family (backend.h): training batches built in device
 * memory, so a training step needs no host copy (backend.h: gather_rows, gather_onehot_rows (the
 * rows and their condition in one kernel), onehot_rows,
 * accumulate): the encoded table is uploaded once per fit and rows are expanded from it by index;
 * the conditional vector's one-hots are written from positions; loss sums are added up across
 * steps and read once per epoch. CPU: src/backend/cpu/batch.c; parity: tests/parity/batch.c.
 */
#include "cuda_common.cuh"

#define GR_THREADS 128

/* The block's threads write table row r's alphas and one-hots into its zeroed output row o. */
__device__ static void put_row(float *o, const int32_t *const *slot, const float *const *alpha,
                               const int32_t *__restrict__ offset, const int32_t *__restrict__ cont,
                               int ncols, long long r) {
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) {
        int s = slot[c][r];
        if (cont[c]) {
            o[offset[c]] = alpha[c][r];
            o[offset[c] + 1 + s] = 1.0f;
        } else {
            o[offset[c] + s] = 1.0f;
        }
    }
}

/* One block per row (grid-stride over rows): zero the row's encoded columns, then write the
 * alphas and one-hots of each table column. */
__global__ void k_gather_rows(float *__restrict__ out, int ldo, const int32_t *const *slot,
                              const float *const *alpha, const int32_t *__restrict__ offset,
                              const int32_t *__restrict__ cont, int ncols, int width,
                              const int32_t *__restrict__ rows, int B) {
    for (int b = blockIdx.x; b < B; b += gridDim.x) {
        float *o = out + (size_t)b * ldo;
        for (int j = threadIdx.x; j < width; j += blockDim.x) o[j] = 0.0f;
        __syncthreads();
        put_row(o, slot, alpha, offset, cont, ncols, rows[b]);
        __syncthreads(); /* the next row's zeroing must not overtake (a row per block pass) */
    }
}

genesis_status gen_cu_gather_rows(gen_cuda *cu, float *out, int ldo, const gen_dev_table *t,
                                  const int32_t *rows, int B) {
    if (B <= 0 || t->width <= 0) return GENESIS_OK;
    unsigned grid = (unsigned)(B < (int)GEN_CUDA_MAX_BLOCKS ? B : (int)GEN_CUDA_MAX_BLOCKS);
    GEN_LAUNCH(k_gather_rows, grid, GR_THREADS, 0, cu->stream)(out, ldo, t->slot, t->alpha,
               t->offset, t->cont, t->ncols, t->width, rows, B);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* gather_onehot_rows: k_gather_rows, with the zeroing pass also writing the row's w one-hot
 * columns after the encoded ones (pos[b] == j: 1) */
__global__ void k_gather_onehot_rows(float *__restrict__ out, int ldo, const int32_t *const *slot,
                                     const float *const *alpha, const int32_t *__restrict__ offset,
                                     const int32_t *__restrict__ cont, int ncols, int width,
                                     const int32_t *__restrict__ rows, int B, int w,
                                     const int32_t *__restrict__ pos) {
    for (int b = blockIdx.x; b < B; b += gridDim.x) {
        float *o = out + (size_t)b * ldo;
        int pb = pos[b];
        for (int j = threadIdx.x; j < width + w; j += blockDim.x)
            o[j] = j >= width && j - width == pb ? 1.0f : 0.0f;
        __syncthreads();
        put_row(o, slot, alpha, offset, cont, ncols, rows[b]);
        __syncthreads(); /* the next row's zeroing must not overtake (a row per block pass) */
    }
}

static genesis_status cu_gather_onehot_rows(gen_cuda *cu, float *out, int ldo,
                                            const gen_dev_table *t, const int32_t *rows, int B,
                                            int w, const int32_t *pos) {
    if (w < 0) w = 0;
    if (B <= 0 || t->width + w <= 0) return GENESIS_OK;
    unsigned grid = (unsigned)(B < (int)GEN_CUDA_MAX_BLOCKS ? B : (int)GEN_CUDA_MAX_BLOCKS);
    GEN_LAUNCH(k_gather_onehot_rows, grid, GR_THREADS, 0, cu->stream)(out, ldo, t->slot,
               t->alpha, t->offset, t->cont, t->ncols, t->width, rows, B, w, pos);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_onehot_rows(float *__restrict__ out, int ldo, int w,
                              const int32_t *__restrict__ pos, int B) {
    size_t n = (size_t)B * (size_t)w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int b = (int)(i / (size_t)w), j = (int)(i % (size_t)w);
        out[(size_t)b * ldo + j] = pos[b] == j ? 1.0f : 0.0f;
    }
}

genesis_status gen_cu_onehot_rows(gen_cuda *cu, float *out, int ldo, int w, const int32_t *pos,
                                  int B) {
    size_t n = (size_t)B * (size_t)(w > 0 ? w : 0);
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_onehot_rows, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, ldo, w, pos, B);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_accumulate(float *__restrict__ acc, const float *__restrict__ x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc[i] += x[i];
}

genesis_status gen_cu_accumulate(gen_cuda *cu, float *acc, const float *x, int n) {
    if (n <= 0) return GENESIS_OK;
    GEN_LAUNCH(k_accumulate, gen_cuda_grid((size_t)n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(acc, x, n);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_gather_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                           const int32_t *rows, int B) {
    GEN_CUDA_RUN(be, "gather_rows", gen_cu_gather_rows(cu, out, ldo, t, rows, B));
}

static void op_onehot_rows(gen_backend *be, float *out, int ldo, int w, const int32_t *pos,
                           int B) {
    GEN_CUDA_RUN(be, "onehot_rows", gen_cu_onehot_rows(cu, out, ldo, w, pos, B));
}

static void op_gather_onehot_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                                  const int32_t *rows, int B, int w, const int32_t *pos) {
    GEN_CUDA_RUN(be, "gather_onehot_rows", cu_gather_onehot_rows(cu, out, ldo, t, rows, B, w, pos));
}

static void op_accumulate(gen_backend *be, float *acc, const float *x, int n) {
    GEN_CUDA_RUN(be, "accumulate", gen_cu_accumulate(cu, acc, x, n));
}

void gen_cu_ops_batch(gen_backend_ops *o) {
    o->gather_rows = op_gather_rows;
    o->onehot_rows = op_onehot_rows;
    o->gather_onehot_rows = op_gather_onehot_rows;
    o->accumulate = op_accumulate;
}
