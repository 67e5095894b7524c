/*
 * elementwise.cu — the CUDA backend's `elementwise` family (backend.h): the element-wise
 * operations of the CUDA backend (ReLU, LeakyReLU, products, the slope mask of the gradient
 * penalty, clamp), the bias broadcast and the beta-scaling used by linear/gemm, the deterministic
 * full sum and the one-block finisher every scalar loss goes through, and any_nonfinite. Each
 * kernel is a grid-stride loop writing the same expression as cpu/elementwise.c, element for element.
 * CPU: src/backend/cpu/elementwise.c; parity: tests/parity/elementwise.c.
 */
#include "cuda_common.cuh"

#define GEN_GRID_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

#define GEN_LAUNCH1D(cu, n, kernel, ...)                                                           \
    do {                                                                                           \
        if ((n) == 0) return GENESIS_OK;                                                           \
        GEN_LAUNCH(kernel, gen_cuda_grid((n), GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,              \
                   (cu)->stream)(__VA_ARGS__);                                                     \
        GEN_CUDA_LAUNCHED(cu);                                                                     \
        return GENESIS_OK;                                                                         \
    } while (0)

/* ---- activations ---------------------------------------------------------------------- */

__global__ void k_relu_forward(float *__restrict__ out, const float *__restrict__ inp, size_t n) {
    GEN_GRID_LOOP(i, n) out[i] = fmaxf(inp[i], 0.0f);
}
genesis_status gen_cu_relu_forward(gen_cuda *cu, float *out, const float *inp, size_t n) {
    GEN_LAUNCH1D(cu, n, k_relu_forward, out, inp, n);
}

__global__ void k_relu_backward(float *__restrict__ dinp, const float *__restrict__ dout,
                                const float *__restrict__ out, size_t n) {
    GEN_GRID_LOOP(i, n) dinp[i] += out[i] > 0.0f ? dout[i] : 0.0f; /* as the CPU: Inf*0 is not NaN */
}
genesis_status gen_cu_relu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                    const float *out, size_t n) {
    GEN_LAUNCH1D(cu, n, k_relu_backward, dinp, dout, out, n);
}

/* 16-bit stored output (docs/precision.md, "Memory"): rows x cols, the output at ld ldo */
__global__ void k_relu_forward_h(uint16_t *__restrict__ out, int ldo,
                                 const float *__restrict__ inp, int ldi, int cols, size_t n,
                                 int prec) {
    GEN_GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        float x = inp[r * (size_t)ldi + c];
        out[r * (size_t)ldo + c] = gen_half_bits(x > 0.0f ? x : 0.0f, prec); /* NaN: 0 */
    }
}
genesis_status gen_cu_relu_forward_h(gen_cuda *cu, uint16_t *out, int ldo, const float *inp,
                                     int ldi, int rows, int cols, int prec) {
    size_t n = (size_t)rows * (size_t)cols;
    GEN_LAUNCH1D(cu, n, k_relu_forward_h, out, ldo, inp, ldi, cols, n, prec);
}

__global__ void k_relu_backward_h(float *__restrict__ dinp, const float *__restrict__ dout,
                                  const uint16_t *__restrict__ out, int ldo, int cols, size_t n,
                                  int prec) {
    GEN_GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dinp[i] += gen_half_f32(out[r * (size_t)ldo + c], prec) > 0.0f ? dout[i] : 0.0f;
    }
}
genesis_status gen_cu_relu_backward_h(gen_cuda *cu, float *dinp, const float *dout,
                                      const uint16_t *out, int ldo, int rows, int cols, int prec) {
    size_t n = (size_t)rows * (size_t)cols;
    GEN_LAUNCH1D(cu, n, k_relu_backward_h, dinp, dout, out, ldo, cols, n, prec);
}

__global__ void k_leaky_relu_forward(float *__restrict__ out, const float *__restrict__ inp,
                                     size_t n, float slope) {
    GEN_GRID_LOOP(i, n) out[i] = inp[i] > 0.0f ? inp[i] : slope * inp[i]; /* NaN stays NaN */
}
genesis_status gen_cu_leaky_relu_forward(gen_cuda *cu, float *out, const float *inp, size_t n,
                                         float slope) {
    GEN_LAUNCH1D(cu, n, k_leaky_relu_forward, out, inp, n, slope);
}

__global__ void k_leaky_relu_backward(float *__restrict__ dinp, const float *__restrict__ dout,
                                      const float *__restrict__ inp, size_t n, float slope) {
    GEN_GRID_LOOP(i, n) {
        float pos = (float)(inp[i] > 0.0f);
        dinp[i] += dout[i] * (pos + slope * (1.0f - pos));
    }
}
genesis_status gen_cu_leaky_relu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                          const float *inp, size_t n, float slope) {
    GEN_LAUNCH1D(cu, n, k_leaky_relu_backward, dinp, dout, inp, n, slope);
}

/* ---- products ------------------------------------------------------------------------- */

__global__ void k_mul(float *__restrict__ out, const float *__restrict__ a,
                      const float *__restrict__ b, size_t n) {
    GEN_GRID_LOOP(i, n) out[i] = a[i] * b[i];
}
genesis_status gen_cu_mul(gen_cuda *cu, float *out, const float *a, const float *b, size_t n) {
    GEN_LAUNCH1D(cu, n, k_mul, out, a, b, n);
}

__global__ void k_mul_acc(float *__restrict__ dinp, const float *__restrict__ dout,
                          const float *__restrict__ mask, size_t n) {
    GEN_GRID_LOOP(i, n) dinp[i] += dout[i] * mask[i];
}
genesis_status gen_cu_mul_acc(gen_cuda *cu, float *dinp, const float *dout, const float *mask,
                              size_t n) {
    GEN_LAUNCH1D(cu, n, k_mul_acc, dinp, dout, mask, n);
}

__global__ void k_leaky_slope_mask(float *__restrict__ s, const float *__restrict__ inp,
                                   const float *__restrict__ mask, size_t n, float slope) {
    GEN_GRID_LOOP(i, n) {
        float pos = (float)(inp[i] > 0.0f);
        s[i] = mask[i] * (pos + slope * (1.0f - pos));
    }
}
genesis_status gen_cu_leaky_slope_mask(gen_cuda *cu, float *s, const float *inp,
                                       const float *mask, size_t n, float slope) {
    GEN_LAUNCH1D(cu, n, k_leaky_slope_mask, s, inp, mask, n, slope);
}

__global__ void k_mul_rowvec(float *__restrict__ out, const float *__restrict__ s,
                             const float *__restrict__ v, size_t n, int cols) {
    GEN_GRID_LOOP(i, n) out[i] = s[i] * v[i % (size_t)cols];
}
genesis_status gen_cu_mul_rowvec(gen_cuda *cu, float *out, const float *s, const float *v,
                                 int rows, int cols) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    size_t n = (size_t)rows * (size_t)cols;
    GEN_LAUNCH1D(cu, n, k_mul_rowvec, out, s, v, n, cols);
}

__global__ void k_clamp(float *__restrict__ x, size_t n, float lo, float hi) {
    GEN_GRID_LOOP(i, n) {
        float v = x[i];
        x[i] = v < lo ? lo : v > hi ? hi : v;
    }
}
genesis_status gen_cu_clamp(gen_cuda *cu, float *x, size_t n, float lo, float hi) {
    GEN_LAUNCH1D(cu, n, k_clamp, x, n, lo, hi);
}

/* ---- 2-D helpers for linear / gemm ---------------------------------------------------- */

__global__ void k_fill_rows(float *__restrict__ out, int ldo, const float *__restrict__ v,
                            size_t n, int cols) {
    GEN_GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        out[r * (size_t)ldo + c] = v[c];
    }
}
genesis_status gen_cu_fill_rows(gen_cuda *cu, float *out, int ldo, const float *v, int rows,
                                int cols) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    size_t n = (size_t)rows * (size_t)cols;
    GEN_LAUNCH1D(cu, n, k_fill_rows, out, ldo, v, n, cols);
}

__global__ void k_scale2d(float *__restrict__ C, int ldc, size_t n, int cols, float beta) {
    GEN_GRID_LOOP(i, n) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        C[r * (size_t)ldc + c] *= beta;
    }
}
genesis_status gen_cu_scale2d(gen_cuda *cu, float *C, int ldc, int rows, int cols, float beta) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    size_t n = (size_t)rows * (size_t)cols;
    GEN_LAUNCH1D(cu, n, k_scale2d, C, ldc, n, cols, beta);
}

/* ---- deterministic sums ----------------------------------------------------------------- */

/* partials[block] = sum of x[i] (double) over the block's grid-stride share. The grid size
 * comes from gen_cuda_reduce_blocks(n), so the tree depends on n alone. */
__global__ void k_sum_partial(double *__restrict__ partials, const float *__restrict__ x,
                              size_t n) {
    __shared__ double sh[32];
    double acc = 0.0;
    GEN_GRID_LOOP(i, n) acc += (double)x[i];
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

/* The sum of a vector that fits one block of k_sum_partial (gen_cuda_reduce_blocks(n) == 1)
 * in one kernel: the same tree, finished as k_reduce_finish finishes one partial (its block
 * tree adds zeros to it, which turns a -0 into +0: hence the + 0.0), so the same bits as the
 * two kernels. A loss or a ledger entry of a few values is one launch, not two (docs/cuda.md,
 * "Kernels per step"). */
__global__ void k_sum_one(float *__restrict__ out, const float *__restrict__ x, size_t n) {
    __shared__ double sh[32];
    double acc = 0.0;
    GEN_GRID_LOOP(i, n) acc += (double)x[i];
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) out[0] = (float)(acc + 0.0);
}

/* One block: out[0] = (float)(scale * sum(partials) / div). Thread t adds partials t,
 * t + 1024, ... in order, then the fixed block tree. */
__global__ void k_reduce_finish(float *__restrict__ out, const double *__restrict__ partials,
                                int n, double scale, double div) {
    __shared__ double sh[32];
    double acc = 0.0;
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) acc += partials[i];
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) out[0] = (float)(scale * acc / div);
}

genesis_status gen_cu_reduce_finish(gen_cuda *cu, float *out, const double *partials, int n,
                                    double scale, double div) {
    GEN_LAUNCH(k_reduce_finish, 1, 1024, 0, cu->stream)(out, partials, n, scale, div);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_sum(gen_cuda *cu, float *out, const float *x, size_t n) {
    int nb = gen_cuda_reduce_blocks(n);
    void *p = NULL;
    genesis_status st = gen_cuda_scratch(cu, (size_t)nb * sizeof(double), &p);
    if (st != GENESIS_OK) return st;
    double *partials = (double *)p;
    if (n == 0) {
        GEN_CUDA_TRY(cu, cudaMemsetAsync(partials, 0, sizeof(double), cu->stream));
        return gen_cu_reduce_finish(cu, out, partials, 1, 1.0, 1.0);
    }
    if (nb == 1) {
        GEN_LAUNCH(k_sum_one, 1, GEN_CUDA_THREADS, 0, cu->stream)(out, x, n);
        GEN_CUDA_LAUNCHED(cu);
        return GENESIS_OK;
    }
    GEN_LAUNCH(k_sum_partial, nb, GEN_CUDA_THREADS, 0, cu->stream)(partials, x, n);
    GEN_CUDA_LAUNCHED(cu);
    return gen_cu_reduce_finish(cu, out, partials, nb, 1.0, 1.0);
}

/* ---- ledger_add ----------------------------------------------------------------------------- */

/* The ledger's bookkeeping, by one thread block: g's sum gs into rec[k]; rec[0..k) = sums; then
 * tmp = the sum of rec[0..k] (k_sum_one's: the k + 1 values are in the first warp, the other
 * warps add zeros) and acc += tmp (k_accumulate's). */
__device__ void ledger_finish(float *rec, float *tmp, float *acc, const float *sums, int k,
                              float gs, double *sh) {
    int t = (int)threadIdx.x, nt = (int)blockDim.x;
    double v = 0.0;
    if (t < k) {
        rec[t] = sums[t];
        v = (double)sums[t];
    } else if (t == k) {
        rec[k] = gs;
        v = (double)gs;
    }
    v = gen_block_sum(v, sh, t, nt);
    if (t == 0) {
        float s = (float)(v + 0.0);
        tmp[0] = s;
        acc[0] += s;
    }
}

/* One block: g's sum straight from g (k_sum_one's tree), then ledger_finish. */
__global__ void k_ledger_add(float *__restrict__ rec, float *__restrict__ tmp,
                             float *__restrict__ acc, const float *__restrict__ sums, int k,
                             const float *__restrict__ g, size_t n) {
    __shared__ double sh[32];
    __shared__ float gsh;
    int t = (int)threadIdx.x, nt = (int)blockDim.x;
    double a = 0.0;
    for (size_t i = (size_t)t; i < n; i += (size_t)nt) a += (double)g[i];
    a = gen_block_sum(a, sh, t, nt);
    if (t == 0) gsh = (float)(a + 0.0); /* the block sum is thread 0's */
    __syncthreads();
    ledger_finish(rec, tmp, acc, sums, k, gsh, sh);
}

/* A gradient arena larger than one block: k_sum_partial's partials, and the grid's last block
 * (gen_finish_last's counter protocol) adds them in k_reduce_finish's order (thread t: t,
 * t + blockDim.x, ..., then the block tree; the tree of GEN_CUDA_THREADS threads, not
 * k_reduce_finish's 1,024, so the gradient sum may differ from the two-kernel version in its
 * last bits: it only says whether a gradient is non-finite) and runs ledger_finish. One
 * kernel instead of two (docs/cuda.md, "Kernels per step"). */
__global__ void k_ledger_sum(float *__restrict__ rec, float *__restrict__ tmp,
                             float *__restrict__ acc, const float *__restrict__ sums, int k,
                             const float *__restrict__ g, size_t n, double *partials,
                             unsigned *count) {
    __shared__ double sh[32];
    __shared__ float gsh;
    double a = 0.0;
    GEN_GRID_LOOP(i, n) a += (double)g[i];
    a = gen_block_sum(a, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) partials[blockIdx.x] = a;
    __threadfence(); /* this block's partial is visible to the block that counts last */
    __syncthreads();
    if (threadIdx.x == 0) sh[0] = atomicAdd(count, 1u) == gridDim.x - 1 ? 1.0 : 0.0;
    __syncthreads();
    if (sh[0] == 0.0) return; /* the whole block: not the last */
    const volatile double *p = partials; /* written by other blocks: read past any cache */
    int t = (int)threadIdx.x, nt = (int)blockDim.x, np = (int)gridDim.x;
    double s = 0.0;
    for (int i = t; i < np; i += nt) s += p[i];
    s = gen_block_sum(s, sh, t, nt);
    if (t == 0) {
        gsh = (float)(1.0 * s / 1.0);
        *count = 0;
    }
    __syncthreads();
    ledger_finish(rec, tmp, acc, sums, k, gsh, sh);
}

static genesis_status cu_ledger_add(gen_cuda *cu, float *rec, float *tmp, float *acc,
                                    const float *sums, int k, const float *g, size_t n) {
    GEN_ASSERT(k >= 0 && k < GEN_CUDA_THREADS);
    int nb = gen_cuda_reduce_blocks(n);
    if (n > 0 && nb > 1) {
        void *p = NULL;
        GEN_CUDA_PASS(gen_cuda_scratch(cu, (size_t)nb * sizeof(double), &p));
        GEN_LAUNCH(k_ledger_sum, nb, GEN_CUDA_THREADS, 0, cu->stream)(
            rec, tmp, acc, sums, k, g, n, (double *)p, cu->count);
    } else {
        GEN_LAUNCH(k_ledger_add, 1, GEN_CUDA_THREADS, 0, cu->stream)(rec, tmp, acc, sums, k, g,
                                                                     n);
    }
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- any_nonfinite ------------------------------------------------------------------------ */

/* Every thread that sees a NaN or infinity stores 1: the same value, so the race is benign
 * and the answer does not depend on the order. */
__global__ void k_any_nonfinite(int *__restrict__ flag, const float *__restrict__ x, size_t n) {
    int found = 0;
    GEN_GRID_LOOP(i, n) found |= !isfinite(x[i]);
    if (__any_sync(0xffffffffu, found) && (threadIdx.x & 31) == 0) *flag = 1;
}

genesis_status gen_cu_any_nonfinite(gen_cuda *cu, const float *x, size_t n, int *result) {
    *result = 1; /* what a failure answers */
    GEN_CUDA_TRY(cu, cudaMemsetAsync(cu->flag_dev, 0, sizeof(int), cu->stream));
    if (n > 0) {
        GEN_LAUNCH(k_any_nonfinite, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
                   cu->stream)(cu->flag_dev, x, n);
        GEN_CUDA_LAUNCHED(cu);
    }
    GEN_CUDA_TRY(cu, cudaMemcpyAsync(cu->flag_host, cu->flag_dev, sizeof(int),
                                     cudaMemcpyDeviceToHost, cu->stream));
    GEN_CUDA_PASS(gen_cuda_sync(cu));
    *result = *cu->flag_host != 0;
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_relu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "relu_forward", gen_cu_relu_forward(cu, out, inp, n));
}

static void op_relu_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                             size_t n) {
    GEN_CUDA_RUN(be, "relu_backward", gen_cu_relu_backward(cu, dinp, dout, out, n));
}

static void op_leaky_relu_forward(gen_backend *be, float *out, const float *inp, size_t n,
                                  float slope) {
    GEN_CUDA_RUN(be, "leaky_relu_forward", gen_cu_leaky_relu_forward(cu, out, inp, n, slope));
}

static void op_leaky_relu_backward(gen_backend *be, float *dinp, const float *dout,
                                   const float *inp, size_t n, float slope) {
    GEN_CUDA_RUN(be, "leaky_relu_backward",
                 gen_cu_leaky_relu_backward(cu, dinp, dout, inp, n, slope));
}

static void op_mul(gen_backend *be, float *out, const float *a, const float *b, size_t n) {
    GEN_CUDA_RUN(be, "mul", gen_cu_mul(cu, out, a, b, n));
}

static void op_mul_acc(gen_backend *be, float *dinp, const float *dout, const float *mask,
                       size_t n) {
    GEN_CUDA_RUN(be, "mul_acc", gen_cu_mul_acc(cu, dinp, dout, mask, n));
}

static void op_leaky_slope_mask(gen_backend *be, float *s, const float *inp, const float *mask,
                                size_t n, float slope) {
    GEN_CUDA_RUN(be, "leaky_slope_mask", gen_cu_leaky_slope_mask(cu, s, inp, mask, n, slope));
}

static void op_mul_rowvec(gen_backend *be, float *out, const float *s, const float *v, int rows,
                          int cols) {
    GEN_CUDA_RUN(be, "mul_rowvec", gen_cu_mul_rowvec(cu, out, s, v, rows, cols));
}

static void op_sum(gen_backend *be, float *out, const float *x, size_t n) {
    GEN_CUDA_RUN(be, "sum", gen_cu_sum(cu, out, x, n));
}

static void op_clamp(gen_backend *be, float *x, size_t n, float lo, float hi) {
    GEN_CUDA_RUN(be, "clamp", gen_cu_clamp(cu, x, n, lo, hi));
}

static int op_any_nonfinite(gen_backend *be, const float *x, size_t n) {
    gen_cuda *cu = gen_cuda_of(be);
    if (gen_cuda_enter(cu, "any_nonfinite") != GENESIS_OK) return 1;
    int found = 1;
    if (gen_cu_any_nonfinite(cu, x, n, &found) != GENESIS_OK) return 1;
    return found;
}

static void op_relu_forward_h(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                              int rows, int cols) {
    GEN_CUDA_RUN(be, "relu_forward_h",
                 gen_cu_relu_forward_h(cu, out, ldo, inp, ldi, rows, cols, be->precision));
}

static void op_relu_backward_h(gen_backend *be, float *dinp, const float *dout,
                               const uint16_t *out, int ldo, int rows, int cols) {
    GEN_CUDA_RUN(be, "relu_backward_h",
                 gen_cu_relu_backward_h(cu, dinp, dout, out, ldo, rows, cols, be->precision));
}

/* ---- act_backward_bias ------------------------------------------------------------------ */

#define AB_COLS GEN_COL_COLS
#define AB_ROWS GEN_COL_ROWS

/* One block per GEN_COL_COLS adjacent columns x GEN_COL_ROWS row-threads (cuda_common.cuh):
 * each thread updates its rows of its column (relu_backward's, silu_backward's or mul_acc's
 * formula) and sums the updated values; gen_col_tree adds the partial sums in a fixed tree,
 * and thread y = 0 adds the column's total to dbias. */
__global__ void k_act_backward_bias(float *__restrict__ dinp, float *__restrict__ dbias,
                                    const float *__restrict__ dout, const float *__restrict__ x,
                                    int rows, int cols, int act) {
    __shared__ float sh[AB_ROWS][AB_COLS];
    int c = blockIdx.x * AB_COLS + threadIdx.x;
    float s = 0.0f;
    if (c < cols)
        for (int r = threadIdx.y; r < rows; r += AB_ROWS) {
            size_t i = (size_t)r * cols + c;
            float d = dout[i], v = x[i], g;
            if (act == GEN_ACT_RELU) {
                g = v > 0.0f ? d : 0.0f;
            } else if (act == GEN_ACT_SILU) {
                float sg = 1.0f / (1.0f + expf(-v));
                g = d * (sg + v * sg * (1.0f - sg));
            } else {
                g = d * v;
            }
            float u = dinp[i] + g;
            dinp[i] = u;
            s += u;
        }
    if (!dbias) return; /* the same for the whole block */
    float t = gen_col_tree(s, sh);
    if (threadIdx.y == 0 && c < cols) dbias[c] += t;
}

genesis_status gen_cu_act_backward_bias(gen_cuda *cu, float *dinp, float *dbias,
                                           const float *dout, const float *x, int rows, int cols,
                                           int act) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    dim3 block(AB_COLS, AB_ROWS), grid((unsigned)((cols + AB_COLS - 1) / AB_COLS));
    GEN_LAUNCH(k_act_backward_bias, grid, block, 0, cu->stream)(dinp, dbias, dout, x, rows, cols,
                                                                 act);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static void op_ledger_add(gen_backend *be, float *rec, float *tmp, float *acc, const float *sums,
                          int k, const float *g, size_t n) {
    GEN_CUDA_RUN(be, "ledger_add", cu_ledger_add(cu, rec, tmp, acc, sums, k, g, n));
}

static void op_act_backward_bias(gen_backend *be, float *dinp, float *dbias, const float *dout,
                                 const float *x, int rows, int cols, int act) {
    GEN_CUDA_RUN(be, "act_backward_bias",
                 gen_cu_act_backward_bias(cu, dinp, dbias, dout, x, rows, cols, act));
}

void gen_cu_ops_elementwise(gen_backend_ops *o) {
    o->act_backward_bias = op_act_backward_bias;
    o->ledger_add = op_ledger_add;
    o->relu_forward = op_relu_forward;
    o->relu_backward = op_relu_backward;
    o->leaky_relu_forward = op_leaky_relu_forward;
    o->leaky_relu_backward = op_leaky_relu_backward;
    o->mul = op_mul;
    o->mul_acc = op_mul_acc;
    o->leaky_slope_mask = op_leaky_slope_mask;
    o->mul_rowvec = op_mul_rowvec;
    o->sum = op_sum;
    o->clamp = op_clamp;
    o->any_nonfinite = op_any_nonfinite;
    o->relu_forward_h = op_relu_forward_h;
    o->relu_backward_h = op_relu_backward_h;
}
