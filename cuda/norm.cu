/*
 * norm.cu — the CUDA backend's `norm` family (backend.h): batch norm over B rows of C features on
 * the GPU, as cpu/norm.c computes it: training statistics in double (two passes: mean, then
 * the sum of squared deviations), biased variance, rstd = 1/sqrt(var + eps); the backward pass's
 * two column sums in double.
 *
 * Layout: one block per tile of GEN_COL_COLS (8) adjacent features (threadIdx.x, one 32-byte
 * sector of a row) and GEN_COL_ROWS (64) threads down the rows (threadIdx.y, a fixed stride).
 * Each thread sums its rows in order, then gen_col_tree adds the 64 partial sums in a fixed
 * halving tree, so the statistics are reproducible bit for bit. B is a few hundred rows in
 * these models: a thread walks B / 64 rows (8 at Adult's 500) and a 256-wide layer runs 32
 * blocks (docs/cuda.md, "Launch configurations"). CPU: src/backend/cpu/norm.c; parity:
 * tests/parity/norm.c.
 */
#include "cuda_common.cuh"

#define BN_COLS GEN_COL_COLS
#define BN_ROWS GEN_COL_ROWS

/* Sum of v over threadIdx.y for column threadIdx.x; every thread gets the total. */
__device__ __forceinline__ double bn_colsum(double v, double (*sh)[BN_COLS]) {
    return gen_col_tree(v, sh);
}

__global__ void k_bn_forward(float *__restrict__ out, float *__restrict__ mean,
                             float *__restrict__ rstd, const float *__restrict__ inp,
                             const float *__restrict__ gamma, const float *__restrict__ beta,
                             int B, int C, float eps) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    double s = 0.0;
    if (col)
        for (int b = threadIdx.y; b < B; b += BN_ROWS) s += inp[(size_t)b * C + c];
    double mu = bn_colsum(s, sh) / B;
    double s2 = 0.0;
    if (col)
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            double d = inp[(size_t)b * C + c] - mu;
            s2 += d * d;
        }
    double var = bn_colsum(s2, sh) / B;
    if (!col) return;
    float m = (float)mu, r = (float)(1.0 / sqrt(var + eps));
    if (threadIdx.y == 0) {
        mean[c] = m;
        rstd[c] = r;
    }
    float g = gamma[c], bt = beta[c];
    for (int b = threadIdx.y; b < B; b += BN_ROWS) {
        size_t i = (size_t)b * C + c;
        out[i] = (inp[i] - m) * r * g + bt;
    }
}

genesis_status gen_cu_batchnorm_forward(gen_cuda *cu, float *out, float *mean, float *rstd,
                                        const float *inp, const float *gamma,
                                        const float *beta, int B, int C, float eps) {
    if (B <= 0 || C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_forward, grid, block, 0, cu->stream)(out, mean, rstd, inp, gamma, beta, B, C,
               eps);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* linear_bn_relu_forward after its product (pre = inp . W^T, no bias yet): pre += bias, then
 * k_bn_forward's statistics and values, max(., 0) into out (ld ldo), and
 * k_bn_update_running's update by the column's thread y = 0. Each thread reads back only the
 * pre values it wrote. */
__global__ void k_bn_relu_forward(float *__restrict__ out, int ldo, float *__restrict__ pre,
                                  float *__restrict__ mean, float *__restrict__ rstd,
                                  float *__restrict__ rmean, float *__restrict__ rvar,
                                  const float *__restrict__ bias, const float *__restrict__ gamma,
                                  const float *__restrict__ beta, int B, int C, float eps,
                                  float momentum) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    double s = 0.0;
    if (col) {
        float bc = bias ? bias[c] : 0.0f;
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            size_t i = (size_t)b * C + c;
            float v = bias ? pre[i] + bc : pre[i];
            pre[i] = v;
            s += v;
        }
    }
    double mu = bn_colsum(s, sh) / B;
    double s2 = 0.0;
    if (col)
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            double d = pre[(size_t)b * C + c] - mu;
            s2 += d * d;
        }
    double var = bn_colsum(s2, sh) / B;
    if (!col) return;
    float m = (float)mu, r = (float)(1.0 / sqrt(var + eps));
    if (threadIdx.y == 0) {
        mean[c] = m;
        rstd[c] = r;
        double bv = 1.0 / ((double)r * r) - eps;
        double unbiased = B > 1 ? bv * B / (B - 1) : bv;
        rmean[c] = (1 - momentum) * rmean[c] + momentum * m;
        rvar[c] = (float)((1 - momentum) * rvar[c] + momentum * unbiased);
    }
    float g = gamma[c], bt = beta[c];
    for (int b = threadIdx.y; b < B; b += BN_ROWS) {
        float v = (pre[(size_t)b * C + c] - m) * r * g + bt;
        out[(size_t)b * ldo + c] = v > 0.0f ? v : 0.0f;
    }
}

static genesis_status cu_linear_bn_relu_forward(gen_cuda *cu, float *out, int ldo, float *pre,
                                                float *mean, float *rstd, float *rmean,
                                                float *rvar, const float *inp, int ldi,
                                                const float *W, const float *bias,
                                                const float *gamma, const float *beta, int B,
                                                int C, int OC, float eps, float momentum,
                                                int prec) {
    if (B <= 0 || OC <= 0) return GENESIS_OK;
    GEN_CUDA_PASS(gen_cu_linear_forward(cu, pre, OC, inp, ldi, W, NULL, B, C, OC, prec));
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((OC + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_relu_forward, grid, block, 0, cu->stream)(out, ldo, pre, mean, rstd, rmean,
               rvar, bias, gamma, beta, B, OC, eps, momentum);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_bn_forward_eval(float *__restrict__ out, const float *__restrict__ inp,
                                  const float *__restrict__ rmean, const float *__restrict__ rvar,
                                  const float *__restrict__ gamma, const float *__restrict__ beta,
                                  size_t n, int C, float eps) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i % (size_t)C);
        out[i] = (inp[i] - rmean[c]) / sqrtf(rvar[c] + eps) * gamma[c] + beta[c];
    }
}

genesis_status gen_cu_batchnorm_forward_eval(gen_cuda *cu, float *out, const float *inp,
                                             const float *rmean, const float *rvar,
                                             const float *gamma, const float *beta, int B,
                                             int C, float eps) {
    if (B <= 0 || C <= 0) return GENESIS_OK;
    size_t n = (size_t)B * (size_t)C;
    GEN_LAUNCH(k_bn_forward_eval, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, inp, rmean, rvar, gamma, beta, n, C, eps);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_bn_update_running(float *__restrict__ rmean, float *__restrict__ rvar,
                                    const float *__restrict__ mean,
                                    const float *__restrict__ rstd, int B, int C,
                                    float momentum, float eps) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    double var = 1.0 / ((double)rstd[c] * rstd[c]) - eps;
    double unbiased = B > 1 ? var * B / (B - 1) : var;
    rmean[c] = (1 - momentum) * rmean[c] + momentum * mean[c];
    rvar[c] = (float)((1 - momentum) * rvar[c] + momentum * unbiased);
}

genesis_status gen_cu_batchnorm_update_running(gen_cuda *cu, float *rmean, float *rvar,
                                               const float *mean, const float *rstd, int B,
                                               int C, float momentum, float eps) {
    if (C <= 0) return GENESIS_OK;
    unsigned grid = (unsigned)((C + GEN_CUDA_THREADS - 1) / GEN_CUDA_THREADS);
    GEN_LAUNCH(k_bn_update_running, grid, GEN_CUDA_THREADS, 0, cu->stream)(rmean, rvar, mean, rstd,
               B, C, momentum, eps);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* Column c's backward sums over B rows (a BN_COLS x BN_ROWS block per BN_COLS columns):
 * s[0] = sum dxhat, s[1] = sum dxhat * xhat, s[2] = sum dout * xhat, s[3] = sum dout
 * (dxhat = dout * gamma); every thread of the column gets them. */
__device__ __forceinline__ void bn_backward_colsums(double s[4], const float *__restrict__ dout,
                                                    const float *__restrict__ inp, int c, bool col,
                                                    float m, float r, float g, int B, int C,
                                                    double (*sh)[BN_COLS]) {
    double sd = 0.0, sdx = 0.0, sg = 0.0, sb = 0.0;
    if (col)
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - m) * r;
            float dxhat = dout[i] * g;
            sd += dxhat;
            sdx += (double)dxhat * xhat;
            sg += (double)(dout[i] * xhat);
            sb += dout[i];
        }
    s[0] = bn_colsum(sd, sh);
    s[1] = bn_colsum(sdx, sh);
    s[2] = bn_colsum(sg, sh);
    s[3] = bn_colsum(sb, sh);
}

/* dgamma += sum dout * xhat; dbeta += sum dout;
 * dinp += rstd * (dxhat - sum(dxhat)/B - xhat * sum(dxhat * xhat)/B), dxhat = dout * gamma */
__global__ void k_bn_backward(float *__restrict__ dinp, float *__restrict__ dgamma,
                              float *__restrict__ dbeta, const float *__restrict__ dout,
                              const float *__restrict__ inp, const float *__restrict__ mean,
                              const float *__restrict__ rstd, const float *__restrict__ gamma,
                              int B, int C) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    float m = col ? mean[c] : 0.0f, r = col ? rstd[c] : 0.0f, g = col ? gamma[c] : 0.0f;
    double sums4[4];
    bn_backward_colsums(sums4, dout, inp, c, col, m, r, g, B, C, sh);
    double sd = sums4[0], sdx = sums4[1], sg = sums4[2], sb = sums4[3];
    if (!col) return;
    if (threadIdx.y == 0) {
        dgamma[c] += (float)sg;
        dbeta[c] += (float)sb;
    }
    for (int b = threadIdx.y; b < B; b += BN_ROWS) {
        size_t i = (size_t)b * C + c;
        float xhat = (inp[i] - m) * r;
        float dxhat = dout[i] * g;
        dinp[i] += r * (float)(dxhat - sd / B - xhat * sdx / B);
    }
}

/* relu_bn_backward: k_bn_backward on dbn = dout (ld lddo) where out (ld ldo) > 0, then
 * dbias += the column's sum of the updated dinp (in double over the column's threads, the
 * fixed gen_col_tree) */
__global__ void k_relu_bn_backward(float *__restrict__ dinp, float *__restrict__ dgamma,
                                   float *__restrict__ dbeta, float *__restrict__ dbias,
                                   const float *__restrict__ dout, int lddo,
                                   const float *__restrict__ out, int ldo,
                                   const float *__restrict__ inp, const float *__restrict__ mean,
                                   const float *__restrict__ rstd,
                                   const float *__restrict__ gamma, int B, int C) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    float m = col ? mean[c] : 0.0f, r = col ? rstd[c] : 0.0f, g = col ? gamma[c] : 0.0f;
    double sd = 0.0, sdx = 0.0, sg = 0.0, sb = 0.0;
    if (col)
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            size_t i = (size_t)b * C + c;
            float d = out[(size_t)b * ldo + c] > 0.0f ? dout[(size_t)b * lddo + c] : 0.0f;
            float xhat = (inp[i] - m) * r;
            float dxhat = d * g;
            sd += dxhat;
            sdx += (double)dxhat * xhat;
            sg += (double)(d * xhat);
            sb += d;
        }
    sd = bn_colsum(sd, sh);
    sdx = bn_colsum(sdx, sh);
    sg = bn_colsum(sg, sh);
    sb = bn_colsum(sb, sh);
    double sbias = 0.0;
    if (col) {
        if (threadIdx.y == 0) {
            dgamma[c] += (float)sg;
            dbeta[c] += (float)sb;
        }
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            size_t i = (size_t)b * C + c;
            float d = out[(size_t)b * ldo + c] > 0.0f ? dout[(size_t)b * lddo + c] : 0.0f;
            float xhat = (inp[i] - m) * r;
            float dxhat = d * g;
            float v = dinp[i] + r * (float)(dxhat - sd / B - xhat * sdx / B);
            dinp[i] = v;
            sbias += v;
        }
    }
    if (!dbias) return; /* the same for the whole block */
    sbias = bn_colsum(sbias, sh);
    if (col && threadIdx.y == 0) dbias[c] += (float)sbias;
}

static genesis_status cu_relu_bn_backward(gen_cuda *cu, float *dinp, float *dgamma, float *dbeta,
                                          float *dbias, const float *dout, int lddo,
                                          const float *out, int ldo, const float *inp,
                                          const float *mean, const float *rstd,
                                          const float *gamma, int B, int C) {
    if (B <= 0 || C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_relu_bn_backward, grid, block, 0, cu->stream)(dinp, dgamma, dbeta, dbias, dout,
               lddo, out, ldo, inp, mean, rstd, gamma, B, C);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_batchnorm_backward(gen_cuda *cu, float *dinp, float *dgamma,
                                         float *dbeta, const float *dout, const float *inp,
                                         const float *mean, const float *rstd,
                                         const float *gamma, int B, int C) {
    if (B <= 0 || C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_backward, grid, block, 0, cu->stream)(dinp, dgamma, dbeta, dout, inp, mean,
               rstd, gamma, B, C);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- synchronised batch norm (data-parallel ranks): partial statistics of the global
 * batch of N rows, summed over ranks by the caller between the steps ---- */

__global__ void k_bn_stats(float *__restrict__ part, const float *__restrict__ inp,
                           const float *__restrict__ mean, int B, int C, int N) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    double s = 0.0;
    if (col) {
        float m = mean ? mean[c] : 0.0f;
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            double v = inp[(size_t)b * C + c];
            if (mean) v = (v - m) * (v - m);
            s += v;
        }
    }
    s = bn_colsum(s, sh);
    if (col && threadIdx.y == 0) part[c] = (float)(s / N);
}

genesis_status gen_cu_batchnorm_stats(gen_cuda *cu, float *part, const float *inp,
                                      const float *mean, int B, int C, int N) {
    if (C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_stats, grid, block, 0, cu->stream)(part, inp, mean, B, C, N);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_bn_apply(float *__restrict__ out, float *__restrict__ rstd,
                           const float *__restrict__ inp, const float *__restrict__ mean,
                           const float *__restrict__ gamma, const float *__restrict__ beta,
                           int B, int C, float eps) {
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    float r = col ? (float)(1.0 / sqrt((double)rstd[c] + eps)) : 0.0f;
    if (col) {
        float m = mean[c], g = gamma[c], bt = beta[c];
        for (int b = threadIdx.y; b < B; b += BN_ROWS) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - m) * r * g + bt;
        }
    }
    __syncthreads(); /* every thread has read the variance before it is overwritten */
    if (col && threadIdx.y == 0) rstd[c] = r;
}

genesis_status gen_cu_batchnorm_apply(gen_cuda *cu, float *out, float *rstd, const float *inp,
                                      const float *mean, const float *gamma, const float *beta,
                                      int B, int C, float eps) {
    if (C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_apply, grid, block, 0, cu->stream)(out, rstd, inp, mean, gamma, beta, B, C,
               eps);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_bn_backward_sums(float *__restrict__ sums, float *__restrict__ dgamma,
                                   float *__restrict__ dbeta, const float *__restrict__ dout,
                                   const float *__restrict__ inp, const float *__restrict__ mean,
                                   const float *__restrict__ rstd, const float *__restrict__ gamma,
                                   int B, int C) {
    __shared__ double sh[BN_ROWS][BN_COLS];
    int c = blockIdx.x * BN_COLS + threadIdx.x;
    bool col = c < C;
    float m = col ? mean[c] : 0.0f, r = col ? rstd[c] : 0.0f, g = col ? gamma[c] : 0.0f;
    double sums4[4];
    bn_backward_colsums(sums4, dout, inp, c, col, m, r, g, B, C, sh);
    double sd = sums4[0], sdx = sums4[1], sg = sums4[2], sb = sums4[3];
    if (!col || threadIdx.y != 0) return;
    sums[c] = (float)sd;
    sums[C + c] = (float)sdx;
    dgamma[c] += (float)sg;
    dbeta[c] += (float)sb;
}

genesis_status gen_cu_batchnorm_backward_sums(gen_cuda *cu, float *sums, float *dgamma,
                                              float *dbeta, const float *dout, const float *inp,
                                              const float *mean, const float *rstd,
                                              const float *gamma, int B, int C) {
    if (C <= 0) return GENESIS_OK;
    dim3 block(BN_COLS, BN_ROWS), grid((unsigned)((C + BN_COLS - 1) / BN_COLS));
    GEN_LAUNCH(k_bn_backward_sums, grid, block, 0, cu->stream)(sums, dgamma, dbeta, dout, inp, mean,
               rstd, gamma, B, C);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_bn_backward_apply(float *__restrict__ dinp, const float *__restrict__ dout,
                                    const float *__restrict__ inp, const float *__restrict__ mean,
                                    const float *__restrict__ rstd, const float *__restrict__ gamma,
                                    const float *__restrict__ sums, size_t n, int C, int N) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i % (size_t)C);
        float xhat = (inp[i] - mean[c]) * rstd[c];
        float dxhat = dout[i] * gamma[c];
        dinp[i] += rstd[c] * (float)(dxhat - (double)sums[c] / N - xhat * (double)sums[C + c] / N);
    }
}

genesis_status gen_cu_batchnorm_backward_apply(gen_cuda *cu, float *dinp, const float *dout,
                                               const float *inp, const float *mean,
                                               const float *rstd, const float *gamma,
                                               const float *sums, int B, int C, int N) {
    if (B <= 0 || C <= 0) return GENESIS_OK;
    size_t n = (size_t)B * (size_t)C;
    GEN_LAUNCH(k_bn_backward_apply, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(dinp, dout, inp, mean, rstd, gamma, sums, n, C, N);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_batchnorm_forward(gen_backend *be, float *out, float *mean, float *rstd,
                                 const float *inp, const float *gamma, const float *beta, int B,
                                 int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_forward",
                 gen_cu_batchnorm_forward(cu, out, mean, rstd, inp, gamma, beta, B, C, eps));
}

static void op_batchnorm_forward_eval(gen_backend *be, float *out, const float *inp,
                                      const float *rmean, const float *rvar, const float *gamma,
                                      const float *beta, int B, int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_forward_eval",
                 gen_cu_batchnorm_forward_eval(cu, out, inp, rmean, rvar, gamma, beta, B, C,
                                               eps));
}

static void op_batchnorm_update_running(gen_backend *be, float *rmean, float *rvar,
                                        const float *mean, const float *rstd, int B, int C,
                                        float momentum, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_update_running",
                 gen_cu_batchnorm_update_running(cu, rmean, rvar, mean, rstd, B, C, momentum,
                                                 eps));
}

static void op_batchnorm_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                  const float *dout, const float *inp, const float *mean,
                                  const float *rstd, const float *gamma, int B, int C) {
    GEN_CUDA_RUN(be, "batchnorm_backward",
                 gen_cu_batchnorm_backward(cu, dinp, dgamma, dbeta, dout, inp, mean, rstd, gamma,
                                           B, C));
}

static void op_batchnorm_stats(gen_backend *be, float *part, const float *inp, const float *mean,
                               int B, int C, int N) {
    GEN_CUDA_RUN(be, "batchnorm_stats", gen_cu_batchnorm_stats(cu, part, inp, mean, B, C, N));
}

static void op_batchnorm_apply(gen_backend *be, float *out, float *rstd, const float *inp,
                               const float *mean, const float *gamma, const float *beta, int B,
                               int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_apply",
                 gen_cu_batchnorm_apply(cu, out, rstd, inp, mean, gamma, beta, B, C, eps));
}

static void op_batchnorm_backward_sums(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                       const float *dout, const float *inp, const float *mean,
                                       const float *rstd, const float *gamma, int B, int C) {
    GEN_CUDA_RUN(be, "batchnorm_backward_sums",
                 gen_cu_batchnorm_backward_sums(cu, sums, dgamma, dbeta, dout, inp, mean, rstd,
                                                gamma, B, C));
}

static void op_batchnorm_backward_apply(gen_backend *be, float *dinp, const float *dout,
                                        const float *inp, const float *mean, const float *rstd,
                                        const float *gamma, const float *sums, int B, int C,
                                        int N) {
    GEN_CUDA_RUN(be, "batchnorm_backward_apply",
                 gen_cu_batchnorm_backward_apply(cu, dinp, dout, inp, mean, rstd, gamma, sums, B,
                                                 C, N));
}

static void op_linear_bn_relu_forward(gen_backend *be, float *out, int ldo, float *pre,
                                      float *bn, float *mean, float *rstd, float *rmean,
                                      float *rvar, const float *inp, int ldi, const float *W,
                                      const float *bias, const float *gamma, const float *beta,
                                      int B, int C, int OC, float eps, float momentum) {
    (void)bn; /* the CPU's scratch */
    GEN_CUDA_RUN(be, "linear_bn_relu_forward",
                 cu_linear_bn_relu_forward(cu, out, ldo, pre, mean, rstd, rmean, rvar, inp, ldi,
                                           W, bias, gamma, beta, B, C, OC, eps, momentum,
                                           be->precision));
}

static void op_relu_bn_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                float *dbias, float *dh, float *dbn, const float *dout, int lddo,
                                const float *out, int ldo, const float *inp, const float *mean,
                                const float *rstd, const float *gamma, int B, int C) {
    (void)dh; /* the CPU's scratch */
    (void)dbn;
    GEN_CUDA_RUN(be, "relu_bn_backward",
                 cu_relu_bn_backward(cu, dinp, dgamma, dbeta, dbias, dout, lddo, out, ldo, inp,
                                     mean, rstd, gamma, B, C));
}

void gen_cu_ops_norm(gen_backend_ops *o) {
    o->relu_bn_backward = op_relu_bn_backward;
    o->linear_bn_relu_forward = op_linear_bn_relu_forward;
    o->batchnorm_forward = op_batchnorm_forward;
    o->batchnorm_forward_eval = op_batchnorm_forward_eval;
    o->batchnorm_update_running = op_batchnorm_update_running;
    o->batchnorm_backward = op_batchnorm_backward;
    o->batchnorm_stats = op_batchnorm_stats;
    o->batchnorm_apply = op_batchnorm_apply;
    o->batchnorm_backward_sums = op_batchnorm_backward_sums;
    o->batchnorm_backward_apply = op_batchnorm_backward_apply;
}
