/*
 * tgloss.cu — the CUDA backend's `tgloss` family (backend.h): TimeGAN's losses on the GPU
 * (backend.h mse_loss, bce_logits, moments_loss) and TF1's Adam behind a device gate
 * (adam_tf1_gated): the losses of the official TF1 TimeGAN (Yoon et al., NeurIPS 2019;
 * docs/algorithms.md §S4), so that an update step reads nothing back (docs/timegan.md §7). Each
 * kernel computes the expression of src/backend/cpu/tgloss.c in double, element for element; loss
 * sums are per-block (mse, bce) or per-(t, f) column (moments) double partials finished by one
 * block in a fixed order (tg_finish, the double twin of gen_cu_reduce_finish), so two runs give
 * the same bits. mse_loss's gradient reads the mean from loss[0] on the device (the sqrt chain
 * rule needs it). Also take_rows, the batch gather of TimeGAN's sequences kept in device memory.
 * CPU: src/backend/cpu/tgloss.c; parity: tests/parity/tgloss.c.
 */
#include <math.h>

#include "cuda_common.cuh"

#define TG_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

/* One block: out[0] = scale * sum(partials[0..n)) / div in double (the fixed tree of
 * k_reduce_finish). */
__global__ void k_tg_finish(double *__restrict__ out, const double *__restrict__ partials, int n,
                            double scale, double div) {
    __shared__ double sh[32];
    double acc = 0.0;
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) acc += partials[i];
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) out[0] = scale * acc / div;
}

static genesis_status tg_finish(gen_cuda *cu, double *out, const double *partials, int n,
                                double scale, double div) {
    GEN_LAUNCH(k_tg_finish, 1, 1024, 0, cu->stream)(out, partials, n, scale, div);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* The scratch of a reduction over n elements: *nb blocks' partial sums in *partial; with n = 0,
 * *nb = 0 and *loss set to 0 on the device. */
static genesis_status tg_partials(gen_cuda *cu, double *loss, size_t n, double **partial, int *nb) {
    *nb = gen_cuda_reduce_blocks(n);
    void *p = NULL;
    GEN_CUDA_PASS(gen_cuda_scratch(cu, (size_t)*nb * sizeof(double), &p));
    *partial = (double *)p;
    if (n > 0) return GENESIS_OK;
    *nb = 0;
    GEN_CUDA_TRY(cu, cudaMemsetAsync(*partial, 0, sizeof(double), cu->stream));
    return tg_finish(cu, loss, *partial, 1, 1.0, 1.0);
}

/* ---- squared error ---------------------------------------------------------------------- */

__global__ void k_mse_partial(double *__restrict__ partial, const float *__restrict__ a,
                              const float *__restrict__ b, size_t n, int cols, int ld) {
    __shared__ double sh[32];
    double acc = 0.0;
    TG_LOOP(i, n) {
        size_t j = (i / (size_t)cols) * (size_t)ld + i % (size_t)cols;
        double e = (double)a[j] - b[j];
        acc += e * e;
    }
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void k_mse_grad(float *__restrict__ da, float *__restrict__ db,
                           const float *__restrict__ a, const float *__restrict__ b, size_t n,
                           int cols, int ld, const double *__restrict__ loss, float scale,
                           int root) {
    double m = loss[0], nn = (double)n;
    double k = root ? (double)scale * 0.5 / sqrt(fmax(m, 1e-20)) : (double)scale;
    TG_LOOP(i, n) {
        size_t j = (i / (size_t)cols) * (size_t)ld + i % (size_t)cols;
        double e = (double)a[j] - b[j];
        float g = (float)(k * 2.0 * e / nn);
        if (da) da[j] += g;
        if (db) db[j] -= g;
    }
}

genesis_status gen_cu_mse_loss(gen_cuda *cu, double *loss, float *da, float *db, const float *a,
                               const float *b, int rows, int cols, int ld, float scale,
                               int root) {
    size_t n = rows > 0 && cols > 0 ? (size_t)rows * (size_t)cols : 0;
    int nb;
    double *partial;
    GEN_CUDA_PASS(tg_partials(cu, loss, n, &partial, &nb));
    if (nb == 0) return GENESIS_OK; /* no elements: the loss is 0 */
    GEN_LAUNCH(k_mse_partial, nb, GEN_CUDA_THREADS, 0, cu->stream)(partial, a, b, n, cols, ld);
    GEN_CUDA_LAUNCHED(cu);
    GEN_CUDA_PASS(tg_finish(cu, loss, partial, nb, 1.0, (double)n));
    if (!da && !db) return GENESIS_OK;
    GEN_LAUNCH(k_mse_grad, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        da, db, a, b, n, cols, ld, loss, scale, root);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- binary cross entropy with logits ----------------------------------------------------- */

__global__ void k_bce_logits(double *__restrict__ partial, float *__restrict__ dl,
                             const float *__restrict__ l, size_t n, float y, float scale) {
    __shared__ double sh[32];
    double acc = 0.0;
    TG_LOOP(i, n) {
        double x = l[i];
        acc += fmax(x, 0.0) - x * y + log1p(exp(-fabs(x)));
        if (dl) dl[i] += (float)((double)scale * (1.0 / (1.0 + exp(-x)) - y) / (double)n);
    }
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

genesis_status gen_cu_bce_logits(gen_cuda *cu, double *loss, float *dl, const float *l, size_t n,
                                 float y, float scale) {
    int nb;
    double *partial;
    GEN_CUDA_PASS(tg_partials(cu, loss, n, &partial, &nb));
    if (nb == 0) return GENESIS_OK; /* no elements: the loss is 0 */
    GEN_LAUNCH(k_bce_logits, nb, GEN_CUDA_THREADS, 0, cu->stream)(partial, dl, l, n, y, scale);
    GEN_CUDA_LAUNCHED(cu);
    return tg_finish(cu, loss, partial, nb, (double)scale, (double)n);
}

/* ---- moments loss --------------------------------------------------------------------------- */

__device__ __forceinline__ double tg_sgn(double v) { return (double)((v > 0) - (v < 0)); }

/* One thread per (t, f) column c = t F + f: the statistics over the batch, the column's
 * |sh - sr| and |mh - m| into p1[c], p2[c], and the column's gradient. */
__global__ void k_moments(double *__restrict__ p1, double *__restrict__ p2,
                          float *__restrict__ dxh, const float *__restrict__ xh,
                          const float *__restrict__ x, int B, int TF, float scale) {
    TG_LOOP(c, (size_t)TF) {
        double mh = 0, m = 0, vh = 0, v = 0, n = (double)TF;
        for (int b = 0; b < B; b++) {
            size_t i = (size_t)b * TF + c;
            mh += xh[i];
            m += x[i];
        }
        mh /= B;
        m /= B;
        for (int b = 0; b < B; b++) {
            size_t i = (size_t)b * TF + c;
            vh += (xh[i] - mh) * (xh[i] - mh);
            v += (x[i] - m) * (x[i] - m);
        }
        vh /= B;
        v /= B;
        double sh = sqrt(vh + 1e-6), sr = sqrt(v + 1e-6);
        p1[c] = fabs(sh - sr);
        p2[c] = fabs(mh - m);
        if (dxh) {
            double ca = (double)scale / n * tg_sgn(sh - sr) * 0.5 / sh,
                   cc = (double)scale / n * tg_sgn(mh - m) / B;
            for (int b = 0; b < B; b++) {
                size_t i = (size_t)b * TF + c;
                dxh[i] += (float)(ca * 2.0 * (xh[i] - mh) / B + cc);
            }
        }
    }
}

genesis_status gen_cu_moments_loss(gen_cuda *cu, double *loss, float *dxh, const float *xh,
                                   const float *x, int B, int T, int F, float scale) {
    int TF = T > 0 && F > 0 ? T * F : 0;
    void *p = NULL;
    GEN_CUDA_PASS(gen_cuda_scratch(cu, (size_t)(2 * TF + 2) * sizeof(double), &p));
    double *p1 = (double *)p, *p2 = p1 + TF + 1;
    if (TF == 0) {
        GEN_CUDA_TRY(cu, cudaMemsetAsync(p1, 0, (size_t)(2 * TF + 2) * sizeof(double), cu->stream));
        GEN_CUDA_PASS(tg_finish(cu, loss, p1, 1, 1.0, 1.0));
        return tg_finish(cu, loss + 1, p2, 1, 1.0, 1.0);
    }
    GEN_LAUNCH(k_moments, gen_cuda_grid((size_t)TF, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(p1, p2, dxh, xh, x, B, TF, scale);
    GEN_CUDA_LAUNCHED(cu);
    GEN_CUDA_PASS(tg_finish(cu, loss, p1, TF, 1.0, (double)TF));
    return tg_finish(cu, loss + 1, p2, TF, 1.0, (double)TF);
}

/* ---- TF1 Adam behind a device gate ----------------------------------------------------------- */

__device__ __forceinline__ int tg_gate_open(const double *gate, int ngate, double threshold) {
    if (!gate) return 1;
    double s = 0;
    for (int i = 0; i < ngate; i++) s += gate[i];
    return s > threshold; /* a NaN stays shut */
}

/* k = *t + 1; thread 0 of each block computes the corrections as cpu_adam does on the host
 * for adam(..., eps / sqrt(1 - beta2^k), 0, k) and shares them */
__global__ void k_adam_tf1_gated(float *__restrict__ param, const float *__restrict__ grad,
                                 float *__restrict__ m, float *__restrict__ v, size_t n, float lr,
                                 float beta1, float beta2, float eps,
                                 const int64_t *__restrict__ t, const double *__restrict__ gate,
                                 int ngate, double threshold) {
    if (!tg_gate_open(gate, ngate, threshold)) return; /* uniform: every thread reads the same gate */
    __shared__ float sc[3];
    if (threadIdx.x == 0) {
        double k = (double)(*t + 1);
        double bc1 = 1.0 - pow((double)beta1, k), bc2 = 1.0 - pow((double)beta2, k);
        sc[0] = (float)((double)lr / bc1);
        sc[1] = (float)(1.0 / sqrt(bc2));
        sc[2] = (float)((double)eps / sqrt(bc2));
    }
    __syncthreads();
    float step = sc[0], isbc2 = sc[1], e = sc[2];
    TG_LOOP(i, n) {
        float p = param[i];
        float g = grad[i] + 0.0f * p;
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        param[i] = p - step * mi / (sqrtf(vi) * isbc2 + e);
    }
}

/* after the update (stream order): the step count moves on when the gate was open */
__global__ void k_gate_advance(int64_t *t, const double *gate, int ngate, double threshold) {
    if (tg_gate_open(gate, ngate, threshold)) *t += 1;
}

genesis_status gen_cu_adam_tf1_gated(gen_cuda *cu, float *param, const float *grad, float *m,
                                     float *v, size_t n, float lr, float beta1, float beta2,
                                     float eps, int64_t *t, const double *gate, int ngate,
                                     double threshold) {
    if (n > 0) {
        GEN_LAUNCH(k_adam_tf1_gated, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
                   cu->stream)(param, grad, m, v, n, lr, beta1, beta2, eps, t, gate, ngate,
                                       threshold);
        GEN_CUDA_LAUNCHED(cu);
    }
    GEN_LAUNCH(k_gate_advance, 1, 1, 0, cu->stream)(t, gate, ngate, threshold);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- batch gather ------------------------------------------------------------------------------- */

__global__ void k_take_rows(float *__restrict__ out, const float *__restrict__ src,
                            const int32_t *__restrict__ idx, size_t n, int w) {
    TG_LOOP(i, n) {
        size_t b = i / (size_t)w, j = i % (size_t)w;
        out[i] = src[(size_t)idx[b] * (size_t)w + j];
    }
}

genesis_status gen_cu_take_rows(gen_cuda *cu, float *out, const float *src, const int32_t *idx,
                                int B, int w) {
    size_t n = B > 0 && w > 0 ? (size_t)B * (size_t)w : 0;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_take_rows, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        out, src, idx, n, w);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_mse_loss(gen_backend *be, double *loss, float *da, float *db, const float *a,
                        const float *b, int rows, int cols, int ld, float scale, int root) {
    GEN_CUDA_RUN(be, "mse_loss",
                 gen_cu_mse_loss(cu, loss, da, db, a, b, rows, cols, ld, scale, root));
}

static void op_bce_logits(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                          float y, float scale) {
    GEN_CUDA_RUN(be, "bce_logits", gen_cu_bce_logits(cu, loss, dl, l, n, y, scale));
}

static void op_moments_loss(gen_backend *be, double *loss, float *dxh, const float *xh,
                            const float *x, int B, int T, int F, float scale) {
    GEN_CUDA_RUN(be, "moments_loss", gen_cu_moments_loss(cu, loss, dxh, xh, x, B, T, F, scale));
}

static void op_adam_tf1_gated(gen_backend *be, float *param, const float *grad, float *m,
                              float *v, size_t n, float lr, float beta1, float beta2, float eps,
                              int64_t *t, const double *gate, int ngate, double threshold) {
    GEN_CUDA_RUN(be, "adam_tf1_gated",
                 gen_cu_adam_tf1_gated(cu, param, grad, m, v, n, lr, beta1, beta2, eps, t, gate,
                                       ngate, threshold));
}

static void op_take_rows(gen_backend *be, float *out, const float *src, const int32_t *idx,
                         int B, int w) {
    GEN_CUDA_RUN(be, "take_rows", gen_cu_take_rows(cu, out, src, idx, B, w));
}

void gen_cu_ops_tgloss(gen_backend_ops *o) {
    o->mse_loss = op_mse_loss;
    o->bce_logits = op_bce_logits;
    o->moments_loss = op_moments_loss;
    o->adam_tf1_gated = op_adam_tf1_gated;
    o->take_rows = op_take_rows;
}
