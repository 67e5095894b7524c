/*
 * output.cu — the CUDA backend's `output` family (backend.h): the generator's output activations
 * and the conditional cross entropy on the GPU: activate_forward (tanh spans; Gumbel-)softmax
 * spans with rng.h's Philox noise), activate_backward, and cross_entropy_rows.
 *
 * One warp per (row, span): lanes stride over the span's columns, then warp-wide max and sum
 * (fixed butterfly trees, so results are reproducible). Spans are short (one to a few hundred
 * columns), so a warp per span keeps every lane busy without shared memory. The span table
 * arrives as a host array; gen_cuda_spans keeps a device copy.
 *
 * Gumbel noise for element (b, j), j < W (W = end of the last span), is counter offset + (b*W +
 * j)/4, word (b*W + j) % 4 of the Philox stream: the CPU reference's indexing. The CPU writes
 * that noise into every column < W before the spans overwrite theirs, so a column outside every
 * span keeps its noise; the warp of span s writes the noise of the gap between span s-1 and span
 * s to do the same (spans are in layout order). CPU: src/backend/cpu/output.c; parity:
 * tests/parity/output.c.
 */
#include "cuda_common.cuh"

#define SM_WARPS 8 /* warps per block */

__device__ __forceinline__ float gumbel_at(uint64_t seed, uint64_t stream, uint64_t offset,
                                           uint64_t idx) {
    return -logf(-logf(gen_u32_to_unit_open(gen_philox_at(seed, stream, offset, idx))));
}

__global__ void k_activate_forward(float *__restrict__ out, int ldo, const float *__restrict__ x,
                                   int ldx, int B, const gen_act_span *__restrict__ spans,
                                   int nspans, int W, float tau, uint64_t seed, uint64_t stream,
                                   uint64_t offset, uint64_t row0, const uint64_t *base) {
    if (base) offset += *base; /* a recorded step's counter (gen_backend.rng_base) */
    int lane = threadIdx.x & 31;
    long long wid = (long long)blockIdx.x * SM_WARPS + (threadIdx.x >> 5);
    if (wid >= (long long)B * nspans) return; /* whole warps leave together */
    int b = (int)(wid / nspans), s = (int)(wid % nspans);
    gen_act_span sp = spans[s];
    const float *xr = x + (size_t)b * ldx;
    float *yr = out + (size_t)b * ldo;
    int j0 = sp.start, j1 = sp.start + sp.len;
    uint64_t i0 = (row0 + (uint64_t)b) * (uint64_t)W;
    if (tau > 0.0f) { /* noise left in a gap before this span, as the CPU leaves it */
        int g0 = s > 0 ? spans[s - 1].start + spans[s - 1].len : 0;
        for (int j = g0 + lane; j < j0; j += 32) yr[j] = gumbel_at(seed, stream, offset, i0 + j);
    }
    if (!sp.softmax) {
        for (int j = j0 + lane; j < j1; j += 32) yr[j] = tanhf(xr[j]);
        return;
    }
    float mx = -INFINITY;
    if (tau > 0.0f) {
        float it = 1.0f / tau;
        for (int j = j0 + lane; j < j1; j += 32) {
            float v = (xr[j] + gumbel_at(seed, stream, offset, i0 + j)) * it;
            yr[j] = v;
            mx = v > mx ? v : mx;
        }
    } else {
        for (int j = j0 + lane; j < j1; j += 32) {
            float v = xr[j];
            yr[j] = v;
            mx = v > mx ? v : mx;
        }
    }
    mx = gen_warp_allmax(mx);
    float tot = 0.0f;
    for (int j = j0 + lane; j < j1; j += 32) {
        float e = expf(yr[j] - mx);
        yr[j] = e;
        tot += e;
    }
    tot = gen_warp_allsum(tot);
    float inv = 1.0f / tot;
    for (int j = j0 + lane; j < j1; j += 32) yr[j] *= inv;
}

static unsigned warp_blocks(long long warps) {
    return (unsigned)((warps + SM_WARPS - 1) / SM_WARPS);
}

genesis_status gen_cu_activate_forward(gen_cuda *cu, float *out, int ldo, const float *x,
                                       int ldx, int B, const gen_act_span *spans, int nspans,
                                       float tau, uint64_t seed, uint64_t stream,
                                       uint64_t offset, uint64_t row0, const uint64_t *base) {
    if (B <= 0 || nspans <= 0) return GENESIS_OK;
    const gen_act_span *dspans = NULL;
    genesis_status st = gen_cuda_spans(cu, spans, nspans, &dspans);
    if (st != GENESIS_OK) return st;
    int W = spans[nspans - 1].start + spans[nspans - 1].len;
    long long warps = (long long)B * nspans;
    GEN_LAUNCH(k_activate_forward, warp_blocks(warps), 32 * SM_WARPS, 0, cu->stream)(out, ldo, x,
               ldx, B, dspans, nspans, W, tau, seed, stream, offset, row0, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_activate_backward(float *__restrict__ dx, int lddx,
                                    const float *__restrict__ dout, int lddo,
                                    const float *__restrict__ out, int ldo, int B,
                                    const gen_act_span *__restrict__ spans, int nspans,
                                    float itau) {
    int lane = threadIdx.x & 31;
    long long wid = (long long)blockIdx.x * SM_WARPS + (threadIdx.x >> 5);
    if (wid >= (long long)B * nspans) return;
    int b = (int)(wid / nspans), s = (int)(wid % nspans);
    gen_act_span sp = spans[s];
    float *dxr = dx + (size_t)b * lddx;
    const float *dyr = dout + (size_t)b * lddo;
    const float *yr = out + (size_t)b * ldo;
    int j0 = sp.start, j1 = sp.start + sp.len;
    if (!sp.softmax) {
        for (int j = j0 + lane; j < j1; j += 32) dxr[j] += dyr[j] * (1.0f - yr[j] * yr[j]);
        return;
    }
    double acc = 0.0; /* double, as the CPU: rounded once, whatever the order */
    for (int j = j0 + lane; j < j1; j += 32) acc += (double)yr[j] * dyr[j];
    float dot = (float)gen_warp_allsum(acc);
    for (int j = j0 + lane; j < j1; j += 32) dxr[j] += itau * yr[j] * (dyr[j] - dot);
}

genesis_status gen_cu_activate_backward(gen_cuda *cu, float *dx, int lddx, const float *dout,
                                        int lddo, const float *out, int ldo, int B,
                                        const gen_act_span *spans, int nspans, float tau) {
    if (B <= 0 || nspans <= 0) return GENESIS_OK;
    const gen_act_span *dspans = NULL;
    genesis_status st = gen_cuda_spans(cu, spans, nspans, &dspans);
    if (st != GENESIS_OK) return st;
    float itau = tau > 0.0f ? 1.0f / tau : 1.0f;
    long long warps = (long long)B * nspans;
    GEN_LAUNCH(k_activate_backward, warp_blocks(warps), 32 * SM_WARPS, 0, cu->stream)(dx, lddx,
               dout, lddo, out, ldo, B, dspans, nspans, itau);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* One warp per row: CE_b = logsumexp(span) - logit[target] in double (as the CPU);
 * partial[b] = CE_b (0 for rows with len 0); dlogits += scale * (softmax - onehot). */
__device__ __forceinline__ void ce_row(double *__restrict__ partial, float *__restrict__ dlogits,
                                       int ldd, const float *__restrict__ logits, int ldl, int b,
                                       const int32_t *__restrict__ start,
                                       const int32_t *__restrict__ len,
                                       const int32_t *__restrict__ target, float scale) {
    int lane = threadIdx.x & 31;
    int n = len[b];
    if (n <= 0) {
        if (lane == 0 && partial) partial[b] = 0.0;
        return;
    }
    int st = start[b], tg = target[b] - st;
    const float *l = logits + (size_t)b * ldl + st;
    float mx = -INFINITY;
    for (int j = lane; j < n; j += 32) mx = l[j] > mx ? l[j] : mx;
    mx = gen_warp_allmax(mx);
    double z = 0.0;
    for (int j = lane; j < n; j += 32) z += exp((double)l[j] - mx);
    z = gen_warp_allsum(z);
    double lse = mx + log(z);
    if (lane == 0 && partial) partial[b] = lse - l[tg];
    if (dlogits) {
        float *d = dlogits + (size_t)b * ldd + st;
        for (int j = lane; j < n; j += 32) {
            double p = exp((double)l[j] - lse);
            d[j] += scale * (float)(p - (j == tg ? 1.0 : 0.0));
        }
    }
}
/* ce_row for rows b = warp index < B, then (with a loss) loss = scale * sum of the partials by
 * the grid's last block (gen_finish_last) */
__global__ void k_cross_entropy_rows(float *__restrict__ loss, unsigned *count,
                                     double *__restrict__ partial, float *__restrict__ dlogits,
                                     int ldd, const float *__restrict__ logits, int ldl, int B,
                                     const int32_t *__restrict__ start,
                                     const int32_t *__restrict__ len,
                                     const int32_t *__restrict__ target, float scale) {
    __shared__ double sh[32];
    int b = blockIdx.x * SM_WARPS + (threadIdx.x >> 5);
    if (b < B) ce_row(partial, dlogits, ldd, logits, ldl, b, start, len, target, scale);
    if (partial) gen_finish_last(loss, partial, B, (double)scale, 1.0, count, sh);
}

genesis_status gen_cu_cross_entropy_rows(gen_cuda *cu, float *loss, float *dlogits, int ldd,
                                         const float *logits, int ldl, int B,
                                         const int32_t *start, const int32_t *len,
                                         const int32_t *target, float scale) {
    if (B <= 0) {
        if (!loss) return GENESIS_OK;
        GEN_CUDA_TRY(cu, cudaMemsetAsync(loss, 0, sizeof(float), cu->stream));
        return GENESIS_OK;
    }
    double *partial = NULL;
    if (loss) {
        void *p = NULL;
        genesis_status st = gen_cuda_scratch(cu, (size_t)B * sizeof(double), &p);
        if (st != GENESIS_OK) return st;
        partial = (double *)p;
    }
    GEN_LAUNCH(k_cross_entropy_rows, warp_blocks(B), 32 * SM_WARPS, 0, cu->stream)(loss, cu->count,
               partial, dlogits, ldd, logits, ldl, B, start, len, target, scale);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_activate_forward(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                                int B, const gen_act_span *spans, int nspans, float tau,
                                uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0) {
    GEN_CUDA_RUN(be, "activate_forward",
                 gen_cu_activate_forward(cu, out, ldo, x, ldx, B, spans, nspans, tau, seed,
                                         stream, offset, row0, be->rng_base));
}

static void op_activate_backward(gen_backend *be, float *dx, int lddx, const float *dout,
                                 int lddo, const float *out, int ldo, int B,
                                 const gen_act_span *spans, int nspans, float tau) {
    GEN_CUDA_RUN(be, "activate_backward",
                 gen_cu_activate_backward(cu, dx, lddx, dout, lddo, out, ldo, B, spans, nspans,
                                          tau));
}

static void op_cross_entropy_rows(gen_backend *be, float *loss, float *dlogits, int ldd,
                                  const float *logits, int ldl, int B, const int32_t *start,
                                  const int32_t *len, const int32_t *target, float scale) {
    GEN_CUDA_RUN(be, "cross_entropy_rows",
                 gen_cu_cross_entropy_rows(cu, loss, dlogits, ldd, logits, ldl, B, start, len,
                                           target, scale));
}

void gen_cu_ops_output(gen_backend_ops *o) {
    o->activate_forward = op_activate_forward;
    o->activate_backward = op_activate_backward;
    o->cross_entropy_rows = op_cross_entropy_rows;
}
