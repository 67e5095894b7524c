/*
 * vae.cu — the CUDA backend's `vae` family (backend.h): TVAE's pieces on the GPU: the
 * reparameterisation (forward and backward), the KL term and the reconstruction loss, each as
 * cpu/vae.c computes it.
 *
 * Scalar losses are reduced without float atomics: kl_normal writes one double partial sum per
 * block (the grid depends on n alone) and tvae_recon one double per tanh span and one per (row,
 * softmax span); the grid's last block then adds them in a fixed order in the same launch
 * (gen_finish_last, an integer counter). tvae_recon is one kernel: one block per span for the
 * tanh columns (each column's sums over the B rows are block trees in double, as the CPU's are
 * double), then one warp per (row, softmax span) for the cross entropies (float softmax, as
 * the CPU's). The decoder output r has its own row stride and span
 * positions (gen_recon_span): with one alpha per mode, a row's Gaussian term reads the alpha of
 * its slot (docs/algorithms.md). CPU: src/backend/cpu/vae.c; parity: tests/parity/vae.c.
 */
#include "cuda_common.cuh"

#define GEN_GRID_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_reparam_forward(float *__restrict__ z, float *__restrict__ std,
                                  const float *__restrict__ mu, const float *__restrict__ logvar,
                                  const float *__restrict__ eps, size_t n) {
    GEN_GRID_LOOP(i, n) {
        float s = expf(0.5f * logvar[i]);
        std[i] = s;
        z[i] = mu[i] + eps[i] * s;
    }
}

genesis_status gen_cu_reparam_forward(gen_cuda *cu, float *z, float *std, const float *mu,
                                      const float *logvar, const float *eps, size_t n) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_reparam_forward, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(z, std, mu, logvar, eps, n);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_reparam_backward(float *__restrict__ dmu, float *__restrict__ dlogvar,
                                   const float *__restrict__ dz, const float *__restrict__ eps,
                                   const float *__restrict__ std, size_t n) {
    GEN_GRID_LOOP(i, n) {
        dmu[i] += dz[i];
        dlogvar[i] += dz[i] * eps[i] * std[i] * 0.5f;
    }
}

genesis_status gen_cu_reparam_backward(gen_cuda *cu, float *dmu, float *dlogvar,
                                       const float *dz, const float *eps, const float *std,
                                       size_t n) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_reparam_backward, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(dmu, dlogvar, dz, eps, std, n);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* partial[block] = sum (1 + logvar - mu^2 - exp(logvar)); gradients element-wise */
__global__ void k_kl_normal(float *__restrict__ loss, unsigned *count,
                            double *__restrict__ partial, float *__restrict__ dmu,
                            float *__restrict__ dlogvar, const float *__restrict__ mu,
                            const float *__restrict__ logvar, size_t n, float scale) {
    __shared__ double sh[32];
    double acc = 0.0;
    GEN_GRID_LOOP(i, n) {
        float ev = expf(logvar[i]);
        acc += 1.0 + logvar[i] - (double)mu[i] * mu[i] - ev;
        if (dmu) dmu[i] += scale * mu[i];
        if (dlogvar) dlogvar[i] += scale * 0.5f * (ev - 1.0f);
    }
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (!partial) return; /* the same for the whole grid */
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
    /* CPU: (float)(-0.5 * tot * scale); -0.5 * x is exact, so this is the same rounding */
    gen_finish_last(loss, partial, (int)gridDim.x, -0.5 * (double)scale, 1.0, count, sh);
}

genesis_status gen_cu_kl_normal(gen_cuda *cu, float *loss, float *dmu, float *dlogvar,
                                const float *mu, const float *logvar, size_t n, float scale) {
    int nb = gen_cuda_reduce_blocks(n);
    double *partial = NULL;
    if (loss) {
        void *p = NULL;
        genesis_status st = gen_cuda_scratch(cu, (size_t)nb * sizeof(double), &p);
        if (st != GENESIS_OK) return st;
        partial = (double *)p;
    }
    if (n == 0) {
        if (!loss) return GENESIS_OK;
        GEN_CUDA_TRY(cu, cudaMemsetAsync(partial, 0, sizeof(double), cu->stream));
        return gen_cu_reduce_finish(cu, loss, partial, 1, 1.0, 1.0);
    }
    if (!loss && !dmu && !dlogvar) return GENESIS_OK;
    GEN_LAUNCH(k_kl_normal, nb, GEN_CUDA_THREADS, 0, cu->stream)(loss, cu->count, partial, dmu,
               dlogvar, mu, logvar, n, scale);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- reconstruction ---------------------------------------------------------------------- */

#define TR_THREADS 256
#define TR_WARPS 8

/* One block per span; softmax spans only zero their partial. For each tanh column j:
 * tot_j = sum_b (x - tanh r)^2 / (2 sg^2) + B log sg, dsigma_j += scale * d tot_j / d sg,
 * dr += scale * d tot_j / d r. partial[s] = sum over the span's columns of tot_j. r position
 * of (b, j): r_start + j - start, or with modes > 0 r_start + the row's slot (the first
 * argmax of the one-hot after the alpha, as the CPU's scan). */
__device__ __forceinline__ void recon_tanh_block(double *__restrict__ partial,
                                                 float *__restrict__ dr,
                                                 float *__restrict__ dsigma,
                                                 const float *__restrict__ r, int ldr,
                                                 const float *__restrict__ x,
                                                 const float *__restrict__ sigma, int B, int D,
                                                 const gen_recon_span *__restrict__ spans,
                                                 float scale, int blk, double *sh) {
    gen_recon_span sp = spans[blk];
    if (sp.softmax) {
        if (threadIdx.x == 0 && partial) partial[blk] = 0.0;
        return;
    }
    double span_tot = 0.0;
    for (int j = sp.start; j < sp.start + sp.len; j++) {
        double sg = sigma[j], tot = 0.0, ds = 0.0;
        for (int b = threadIdx.x; b < B; b += TR_THREADS) {
            const float *xr = x + (size_t)b * D;
            int jr = sp.r_start + j - sp.start;
            if (sp.modes > 0) {
                int k = 0;
                for (int m = 1; m < sp.modes; m++)
                    if (xr[j + 1 + m] > xr[j + 1 + k]) k = m;
                jr = sp.r_start + k;
            }
            size_t i = (size_t)b * ldr + jr;
            float t = tanhf(r[i]);
            double e = xr[j] - t;
            tot += e * e / (2 * sg * sg);
            ds += -e * e / (sg * sg * sg);
            if (dr) dr[i] += scale * (float)(-e / (sg * sg)) * (1.0f - t * t);
        }
        tot = gen_block_sum(tot, sh, (int)threadIdx.x, TR_THREADS);
        ds = gen_block_sum(ds, sh, (int)threadIdx.x, TR_THREADS);
        if (threadIdx.x == 0) {
            span_tot += tot + B * log(sg);
            if (dsigma) dsigma[j] += scale * (float)(ds + B / sg);
        }
    }
    if (threadIdx.x == 0 && partial) partial[blk] = span_tot;
}

/* One warp per (row b, span s); tanh spans only zero their partial. Cross entropy of the
 * span's logits (r from r_start) against the first argmax of x's span (float softmax, as the
 * CPU). */
__device__ __forceinline__ void recon_softmax_warp(double *__restrict__ partial,
                                                   float *__restrict__ dr,
                                                   const float *__restrict__ r, int ldr,
                                                   const float *__restrict__ x, int B, int D,
                                                   const gen_recon_span *__restrict__ spans,
                                                   int nspans, float scale, int blk) {
    int lane = threadIdx.x & 31;
    long long wid = (long long)blk * TR_WARPS + (threadIdx.x >> 5);
    if (wid >= (long long)B * nspans) return;
    int b = (int)(wid / nspans), s = (int)(wid % nspans);
    gen_recon_span sp = spans[s];
    if (!sp.softmax) {
        if (lane == 0 && partial) partial[wid] = 0.0;
        return;
    }
    const float *rr = r + (size_t)b * ldr + sp.r_start, *xr = x + (size_t)b * D + sp.start;
    int n = sp.len;
    /* first index of the largest x (strictly greater wins, as the CPU's scan); x is an
     * encoded batch, finite by construction */
    float bv = -INFINITY;
    int bi = n; /* none yet */
    for (int j = lane; j < n; j += 32)
        if (bi == n || xr[j] > bv) {
            bv = xr[j];
            bi = j;
        }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) { /* (value, -index) is a total order: every lane ends
                                          with the same winner */
        float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        int oi = __shfl_xor_sync(0xffffffffu, bi, o);
        if (oi != n && (bi == n || ov > bv || (ov == bv && oi < bi))) {
            bv = ov;
            bi = oi;
        }
    }
    int tgt = bi < n ? bi : 0;
    /* max as the CPU: start at rr[0], so a NaN there sticks; later NaNs are skipped */
    float mx = rr[0];
    for (int j = lane; j < n; j += 32) mx = rr[j] > mx ? rr[j] : mx;
    mx = gen_warp_allmax(mx);
    float z = 0.0f;
    for (int j = lane; j < n; j += 32) z += expf(rr[j] - mx);
    z = gen_warp_allsum(z);
    float lse = mx + logf(z);
    if (lane == 0 && partial) partial[wid] = lse - rr[tgt];
    if (dr) {
        float *d = dr + (size_t)b * ldr + sp.r_start;
        for (int j = lane; j < n; j += 32) {
            float v = d[j] + scale * expf(rr[j] - lse);
            if (j == tgt) v -= scale;
            d[j] = v;
        }
    }
}

/* tvae_recon in one launch: blocks 0 .. nspans - 1 run recon_tanh_block for their span,
 * the rest recon_softmax_warp (8 warps a block) with partials after the spans'; with a loss,
 * loss = scale * the sum of all npart partials by the grid's last block (gen_finish_last) */
__global__ void k_recon(float *__restrict__ loss, unsigned *count, int npart,
                        double *__restrict__ partial, float *__restrict__ dr,
                        float *__restrict__ dsigma, const float *__restrict__ r, int ldr,
                        const float *__restrict__ x, const float *__restrict__ sigma, int B, int D,
                        const gen_recon_span *__restrict__ spans, int nspans, float scale) {
    __shared__ double sh[32];
    int blk = (int)blockIdx.x;
    if (blk < nspans)
        recon_tanh_block(partial, dr, dsigma, r, ldr, x, sigma, B, D, spans, scale, blk, sh);
    else
        recon_softmax_warp(partial ? partial + nspans : NULL, dr, r, ldr, x, B, D, spans, nspans,
                           scale, blk - nspans);
    if (partial) gen_finish_last(loss, partial, npart, (double)scale, 1.0, count, sh);
}

genesis_status gen_cu_tvae_recon(gen_cuda *cu, float *loss, float *dr, float *dsigma,
                                 const float *r, int ldr, const float *x, const float *sigma,
                                 int B, int D, const gen_recon_span *spans, int nspans,
                                 float scale) {
    if (nspans <= 0 || B < 0) {
        if (!loss) return GENESIS_OK;
        GEN_CUDA_TRY(cu, cudaMemsetAsync(loss, 0, sizeof(float), cu->stream));
        return GENESIS_OK;
    }
    const gen_recon_span *dspans = NULL;
    genesis_status st = gen_cuda_recon_spans(cu, spans, nspans, &dspans);
    if (st != GENESIS_OK) return st;
    double *partial = NULL;
    size_t nsoft = (size_t)B * (size_t)nspans, npart = (size_t)nspans + nsoft;
    if (loss) {
        void *p = NULL;
        st = gen_cuda_scratch(cu, npart * sizeof(double), &p);
        if (st != GENESIS_OK) return st;
        partial = (double *)p;
    }
    if (!loss && !dr && !dsigma) return GENESIS_OK;
    size_t blocks = (size_t)nspans + (nsoft + TR_WARPS - 1) / TR_WARPS;
    if (npart > (size_t)INT32_MAX || blocks > (size_t)INT32_MAX)
        return gen_cuda_fail(cu, GENESIS_ERR_INVALID_ARG, "tvae_recon", __FILE__, __LINE__,
                             "too many rows x spans for one reduction");
    GEN_LAUNCH(k_recon, (unsigned)blocks, TR_THREADS, 0, cu->stream)(loss, cu->count, (int)npart,
               partial, dr, dsigma, r, ldr, x, sigma, B, D, dspans, nspans, scale);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_reparam_forward(gen_backend *be, float *z, float *std, const float *mu,
                               const float *logvar, const float *eps, size_t n) {
    GEN_CUDA_RUN(be, "reparam_forward", gen_cu_reparam_forward(cu, z, std, mu, logvar, eps, n));
}

/* reparam_backward_bias: one block per GEN_COL_COLS columns x GEN_COL_ROWS row-threads
 * (cuda_common.cuh), each thread updating its rows and summing the updated values,
 * gen_col_tree adding the partial sums in a fixed tree */
#define RB_COLS GEN_COL_COLS
#define RB_ROWS GEN_COL_ROWS
__global__ void k_reparam_backward_bias(float *__restrict__ dmu, float *__restrict__ dlogvar,
                                        float *__restrict__ dmb, float *__restrict__ dvb,
                                        const float *__restrict__ dz,
                                        const float *__restrict__ eps,
                                        const float *__restrict__ std, int B, int e) {
    __shared__ float sh[RB_ROWS][RB_COLS];
    int c = blockIdx.x * RB_COLS + threadIdx.x;
    float a = 0.0f, b2 = 0.0f;
    if (c < e)
        for (int r = threadIdx.y; r < B; r += RB_ROWS) {
            size_t i = (size_t)r * e + c;
            float u = dmu[i] + dz[i], w = dlogvar[i] + dz[i] * eps[i] * std[i] * 0.5f;
            dmu[i] = u;
            dlogvar[i] = w;
            a += u;
            b2 += w;
        }
    float tm = gen_col_tree(a, sh);
    float tv = gen_col_tree(b2, sh);
    if (threadIdx.y == 0 && c < e) {
        dmb[c] += tm;
        dvb[c] += tv;
    }
}

static genesis_status cu_reparam_backward_bias(gen_cuda *cu, float *dmu, float *dlogvar,
                                               float *dmb, float *dvb, const float *dz,
                                               const float *eps, const float *std, int B, int e) {
    if (B <= 0 || e <= 0) return GENESIS_OK;
    dim3 block(RB_COLS, RB_ROWS), grid((unsigned)((e + RB_COLS - 1) / RB_COLS));
    GEN_LAUNCH(k_reparam_backward_bias, grid, block, 0, cu->stream)(dmu, dlogvar, dmb, dvb, dz,
                                                                   eps, std, B, e);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static void op_reparam_backward_bias(gen_backend *be, float *dmu, float *dlogvar, float *dmb,
                                     float *dvb, const float *dz, const float *eps,
                                     const float *std, int B, int e) {
    GEN_CUDA_RUN(be, "reparam_backward_bias",
                 cu_reparam_backward_bias(cu, dmu, dlogvar, dmb, dvb, dz, eps, std, B, e));
}

static void op_reparam_backward(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                                const float *eps, const float *std, size_t n) {
    GEN_CUDA_RUN(be, "reparam_backward",
                 gen_cu_reparam_backward(cu, dmu, dlogvar, dz, eps, std, n));
}

static void op_kl_normal(gen_backend *be, float *loss, float *dmu, float *dlogvar,
                         const float *mu, const float *logvar, size_t n, float scale) {
    GEN_CUDA_RUN(be, "kl_normal", gen_cu_kl_normal(cu, loss, dmu, dlogvar, mu, logvar, n, scale));
}

static void op_tvae_recon(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                          int ldr, const float *x, const float *sigma, int B, int D,
                          const gen_recon_span *spans, int nspans, float scale) {
    GEN_CUDA_RUN(be, "tvae_recon",
                 gen_cu_tvae_recon(cu, loss, dr, dsigma, r, ldr, x, sigma, B, D, spans, nspans,
                                   scale));
}

void gen_cu_ops_vae(gen_backend_ops *o) {
    o->reparam_forward = op_reparam_forward;
    o->reparam_backward = op_reparam_backward;
    o->reparam_backward_bias = op_reparam_backward_bias;
    o->kl_normal = op_kl_normal;
    o->tvae_recon = op_tvae_recon;
}
