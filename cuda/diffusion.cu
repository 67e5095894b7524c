/*
 * diffusion.cu — the CUDA backend's `diffusion` family (backend.h): the DDPM operations of the
 * CUDA backend (docs/ddpm.md): SiLU forward and backward, the sinusoidal timestep embedding,
 * TabDDPM's loss (MSE on the noise at tanh spans, the multinomial-diffusion KL at softmax spans,
 * and their gradients) and the element-wise scale of AdamW's decoupled decay, the class-label
 * embedding (forward and backward; the backward sums a class's rows in row order, as the CPU) and
 * the weights' EMA, and the sampler's two steps on the device: x_T (ddpm_sample_init) and one
 * reverse step (ddpm_reverse_step: the Gaussian posterior or DDIM update, or its second-order
 * multistep form, at tanh positions, the
 * multinomial posterior's draw at softmax spans), one thread per (row, span), with the
 * expressions and Philox draws of src/backend/diffusion.h that the CPU backend calls too. Each kernel
 * computes the expression of cpu/diffusion.c element for element (the KL in double, as the CPU);
 * the loss sums are per-row partials finished by one block in a fixed order
 * (gen_finish_last, in the same launch), so two runs give the same bits. CPU: src/backend/cpu/diffusion.c;
 * parity: tests/parity/diffusion.c.
 */
#include "cuda_common.cuh"
#include "diffusion.h"

#define DF_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_silu_forward(float *__restrict__ out, const float *__restrict__ inp, size_t n) {
    DF_LOOP(i, n) out[i] = inp[i] / (1.0f + expf(-inp[i]));
}
genesis_status gen_cu_silu_forward(gen_cuda *cu, float *out, const float *inp, size_t n) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_silu_forward, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(out, inp, n);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_silu_backward(float *__restrict__ dinp, const float *__restrict__ dout,
                                const float *__restrict__ inp, size_t n) {
    DF_LOOP(i, n) {
        float s = 1.0f / (1.0f + expf(-inp[i]));
        dinp[i] += dout[i] * (s + inp[i] * s * (1.0f - s));
    }
}
genesis_status gen_cu_silu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                    const float *inp, size_t n) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_silu_backward, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(dinp, dout, inp, n);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_scale(float *__restrict__ x, size_t n, float s) {
    DF_LOOP(i, n) x[i] *= s;
}
genesis_status gen_cu_scale(gen_cuda *cu, float *x, size_t n, float s) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_scale, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(x, n, s);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* label_embed: one thread per (row, column) of the output */
__global__ void k_label_embed(float *__restrict__ out, const float *__restrict__ emb,
                              const int32_t *__restrict__ y, int B, int dim) {
    DF_LOOP(idx, (size_t)B * dim) {
        size_t b = idx / dim, j = idx % dim;
        out[idx] = y[b] < 0 ? 0.0f : emb[(size_t)y[b] * dim + j]; /* y < 0: hidden, zeros */
    }
}
genesis_status gen_cu_label_embed(gen_cuda *cu, float *out, const float *emb, const int32_t *y,
                                  int B, int dim) {
    size_t n = (size_t)B * (size_t)dim;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_label_embed, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(out, emb, y, B, dim);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* label_embed_backward: one thread per (class, column) of demb, adding the rows of its class
 * in increasing order (the CPU's order, no atomics: the same bits every run) */
__global__ void k_label_embed_backward(float *__restrict__ demb, const float *__restrict__ dout,
                                       const int32_t *__restrict__ y, int B, int K, int dim) {
    DF_LOOP(idx, (size_t)K * dim) {
        int k = (int)(idx / dim);
        size_t j = idx % dim;
        float acc = demb[idx];
        for (int b = 0; b < B; b++)
            if (y[b] == k) acc += dout[(size_t)b * dim + j];
        demb[idx] = acc;
    }
}
genesis_status gen_cu_label_embed_backward(gen_cuda *cu, float *demb, const float *dout,
                                           const int32_t *y, int B, int K, int dim) {
    size_t n = (size_t)K * (size_t)dim;
    if (n == 0 || B == 0) return GENESIS_OK;
    GEN_LAUNCH(k_label_embed_backward, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(demb, dout, y, B, K, dim);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

__global__ void k_ema_update(float *__restrict__ ema, const float *__restrict__ x, size_t n,
                             float decay) {
    float keep = decay, take = 1.0f - decay;
    DF_LOOP(i, n) ema[i] = keep * ema[i] + take * x[i];
}
genesis_status gen_cu_ema_update(gen_cuda *cu, float *ema, const float *x, size_t n, float decay) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_ema_update, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(ema, x, n, decay);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* one thread per (row, column) of the output */
__global__ void k_timestep_embed(float *__restrict__ out, const int32_t *__restrict__ t, int B,
                                 int dim) {
    int half = dim / 2;
    DF_LOOP(idx, (size_t)B * dim) {
        int b = (int)(idx / dim), j = (int)(idx % dim);
        float v = 0.0f;
        if (j < 2 * half) {
            int i = j < half ? j : j - half;
            float f = expf(-9.210340371976184f * (float)i / (float)half); /* ln 10000 */
            float arg = (float)t[b] * f;
            v = j < half ? cosf(arg) : sinf(arg);
        }
        out[idx] = v;
    }
}
genesis_status gen_cu_timestep_embed(gen_cuda *cu, float *out, const int32_t *t, int B, int dim) {
    size_t n = (size_t)B * (size_t)dim;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_timestep_embed, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(out, t, B, dim);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* One thread per row: the Gaussian squared error over the tanh spans (partial[b]) and its
 * gradient; with a loss, loss[0] = gscale * the sum of the B partials by the grid's last block
 * (gen_finish_last). */
__global__ void k_ddpm_gauss(float *__restrict__ loss, unsigned *count,
                             double *__restrict__ partial, float *__restrict__ dout,
                             const float *__restrict__ out, const float *__restrict__ noise, int B,
                             int D, const gen_act_span *__restrict__ spans, int nspans,
                             float gscale) {
    __shared__ double sh[32];
    DF_LOOP(b, (size_t)B) {
        double g = 0;
        for (int s = 0; s < nspans; s++) {
            if (spans[s].softmax) continue;
            for (int j = spans[s].start; j < spans[s].start + spans[s].len; j++) {
                size_t i = b * (size_t)D + j;
                double e = (double)out[i] - noise[i];
                g += e * e;
                if (dout) dout[i] += gscale * 2.0f * (float)e;
            }
        }
        if (partial) partial[b] = g;
    }
    if (partial) gen_finish_last(loss, partial, B, (double)gscale, 1.0, count, sh);
}

/* One thread per (row, span): the KL of the span's posteriors (0 for a tanh span) into
 * partial[b * nspans + s], and its gradient; the span's values are recomputed in each pass
 * instead of stored. With a loss, loss[0] = mscale * the sum of the partials (the grid's last
 * block, gen_finish_last). */
__global__ void k_ddpm_mn(float *__restrict__ loss, unsigned *count, double *__restrict__ partial,
                          float *__restrict__ dout, const float *__restrict__ out,
                          const float *__restrict__ x0, const float *__restrict__ xt,
                          const float *__restrict__ coef, int B, int D,
                          const gen_act_span *__restrict__ spans, int nspans, float mscale) {
    __shared__ double sh[32];
    DF_LOOP(w, (size_t)B * nspans) {
        int b = (int)(w / nspans), s = (int)(w % nspans);
        gen_act_span sp = spans[s];
        if (!sp.softmax) {
            if (partial) partial[w] = 0.0;
            continue;
        }
        int K = sp.len;
        size_t o0 = (size_t)b * D + sp.start;
        const float *r = out + o0, *x = x0 + o0, *y = xt + o0;
        double a = coef[2 * b], c = coef[2 * b + 1], e = (1.0 - c) / K;
        double mx = r[0], z = 0, Wq = 0, Wp = 0;
        for (int k = 1; k < K; k++) mx = r[k] > mx ? r[k] : mx;
        for (int k = 0; k < K; k++) z += exp(r[k] - mx);
        for (int k = 0; k < K; k++) {
            double A = a * y[k] + (1.0 - a) / K, sk = exp(r[k] - mx) / z;
            Wq += A * (c * x[k] + (1.0 - c) / K);
            Wp += A * (c * sk + (1.0 - c) / K);
        }
        double kl = 0, acc = 0;
        for (int k = 0; k < K; k++) {
            double A = a * y[k] + (1.0 - a) / K, sk = exp(r[k] - mx) / z;
            double q = A * (c * x[k] + (1.0 - c) / K) / Wq, p = A * (c * sk + (1.0 - c) / K) / Wp;
            if (q > 0) kl += q * (log(q) - log(p > 1e-300 ? p : 1e-300));
            double den = c * sk + e;
            acc += (p - q) * (den > 0 ? c * sk / den : 1.0);
        }
        if (partial) partial[w] = kl;
        if (!dout) continue;
        for (int k = 0; k < K; k++) {
            double A = a * y[k] + (1.0 - a) / K, sk = exp(r[k] - mx) / z;
            double q = A * (c * x[k] + (1.0 - c) / K) / Wq, p = A * (c * sk + (1.0 - c) / K) / Wp;
            double den = c * sk + e;
            double g = (p - q) * (den > 0 ? c * sk / den : 1.0);
            dout[o0 + k] += mscale * (float)(g - sk * acc);
        }
    }
    if (partial) gen_finish_last(loss, partial, B * nspans, (double)mscale, 1.0, count, sh);
}

genesis_status gen_cu_ddpm_loss(gen_cuda *cu, float *loss, float *dout, const float *out,
                                const float *x0, const float *xt, const float *noise,
                                const float *coef, int B, int D, const gen_act_span *spans,
                                int nspans, float gscale, float mscale) {
    if (B <= 0 || nspans <= 0) {
        if (loss) GEN_CUDA_TRY(cu, cudaMemsetAsync(loss, 0, 2 * sizeof(float), cu->stream));
        return GENESIS_OK;
    }
    const gen_act_span *dspans = NULL;
    genesis_status st = gen_cuda_spans(cu, spans, nspans, &dspans);
    if (st != GENESIS_OK) return st;
    double *partial = NULL;
    size_t nmn = (size_t)B * (size_t)nspans, npart = (size_t)B + nmn;
    if (loss) {
        if (npart > (size_t)INT32_MAX)
            return gen_cuda_fail(cu, GENESIS_ERR_INVALID_ARG, "ddpm_loss", __FILE__, __LINE__,
                                 "too many rows x spans for one reduction");
        void *p = NULL;
        st = gen_cuda_scratch(cu, npart * sizeof(double), &p);
        if (st != GENESIS_OK) return st;
        partial = (double *)p;
    }
    GEN_LAUNCH(k_ddpm_gauss, gen_cuda_grid((size_t)B, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(loss, cu->count, partial, dout, out, noise, B, D, dspans, nspans,
                           gscale);
    GEN_CUDA_LAUNCHED(cu);
    GEN_LAUNCH(k_ddpm_mn, gen_cuda_grid(nmn, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(loss ? loss + 1 : NULL, cu->count, partial ? partial + B : NULL, dout,
                           out, x0, xt, coef, B, D, dspans, nspans, mscale);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ddpm_sample_init: one thread per (row, span); the span-0 thread of a row writes its t */
__global__ void k_ddpm_sample_init(float *__restrict__ x, int32_t *__restrict__ t, int tnext,
                                   int B, int D, const gen_act_span *__restrict__ spans,
                                   int nspans, uint64_t seed, uint64_t stream, uint64_t offset,
                                   uint64_t e0, const uint64_t *base) {
    if (base) offset += *base; /* a bound step counter (gen_backend.rng_base) */
    int ns = nspans > 0 ? nspans : 1;
    DF_LOOP(w, (size_t)B * ns) {
        int b = (int)(w / ns), s = (int)(w % ns);
        if (s == 0 && t) t[b] = tnext;
        if (s >= nspans) continue;
        gen_act_span sp = spans[s];
        size_t o = (size_t)b * D + sp.start;
        if (!sp.softmax) {
            for (int j = 0; j < sp.len; j++)
                x[o + j] = gen_philox_normal_at(seed, stream, offset, e0 + o + j);
            continue;
        }
        int pick = gen_ddpm_init_cat(seed, stream, offset, e0 + o, sp.len);
        for (int k = 0; k < sp.len; k++) x[o + k] = k == pick ? 1.0f : 0.0f;
    }
}
genesis_status gen_cu_ddpm_sample_init(gen_cuda *cu, float *x, int32_t *t, int tnext, int B,
                                       int D, const gen_act_span *spans, int nspans,
                                       uint64_t seed, uint64_t stream, uint64_t offset,
                                       uint64_t e0, const uint64_t *base) {
    if (B <= 0 || (nspans <= 0 && !t)) return GENESIS_OK;
    const gen_act_span *dspans = NULL;
    if (nspans > 0) GEN_CUDA_PASS(gen_cuda_spans(cu, spans, nspans, &dspans));
    size_t n = (size_t)B * (size_t)(nspans > 0 ? nspans : 1);
    GEN_LAUNCH(k_ddpm_sample_init, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(x, t, tnext, B, D, dspans, nspans, seed, stream, offset, e0, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ddpm_reverse_step: one thread per (row, span), reading its span of xt whole before writing
 * the span of xout (so xout may be xt); gen_expf_neg(logit - max) is recomputed in each pass
 * (gen_ddpm_mn_draw without scratch), the same values the CPU keeps (expf_neg.h rounds every
 * operation on its own under nvcc too, so a GPU computes the CPU's bits) */
__global__ void k_ddpm_reverse_step(float *xout, int32_t *__restrict__ t, int tnext,
                                    const float *xt, const float *__restrict__ eps, int B, int D,
                                    const gen_act_span *__restrict__ spans, int nspans,
                                    gen_ddpm_step st, uint64_t seed, uint64_t stream,
                                    uint64_t offset, uint64_t e0, const uint64_t *base) {
    if (base) offset += *base;
    double a = st.abar_t / st.abar_s, c = st.abar_s;
    int ns = nspans > 0 ? nspans : 1;
    DF_LOOP(w, (size_t)B * ns) {
        int b = (int)(w / ns), s = (int)(w % ns);
        if (s == 0 && t) t[b] = tnext;
        if (s >= nspans) continue;
        gen_act_span sp = spans[s];
        size_t o = (size_t)b * D + sp.start;
        if (!sp.softmax) {
            for (int j = 0; j < sp.len; j++) {
                double z = (st.ancestral || st.sigma > 0) && !st.last
                               ? (double)gen_philox_normal_at(seed, stream, offset, e0 + o + j)
                               : 0.0;
                double ep = eps[o + j], x0;
                if (st.x0prev) {
                    ep = gen_ddpm_multistep_eps(xt[o + j], ep, st.abar_t, st.k2, st.x0prev[o + j],
                                               &x0);
                    st.x0prev[o + j] = (float)x0;
                }
                xout[o + j] = gen_ddpm_gauss_step(xt[o + j], ep, st.abar_t, st.abar_s,
                                                  st.alpha_t, st.ancestral, st.last, st.sigma, z);
            }
            continue;
        }
        int pick = gen_ddpm_mn_draw(xt + o, eps + o, sp.len, a, c,
                                    gen_ddpm_u(seed, stream, offset, e0 + o), NULL);
        for (int k = 0; k < sp.len; k++) xout[o + k] = k == pick ? 1.0f : 0.0f;
    }
}
genesis_status gen_cu_ddpm_reverse_step(gen_cuda *cu, float *xout, int32_t *t, int tnext,
                                        const float *xt, const float *eps, int B, int D,
                                        const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                        uint64_t seed, uint64_t stream, uint64_t offset,
                                        uint64_t e0, const uint64_t *base) {
    if (B <= 0 || (nspans <= 0 && !t)) return GENESIS_OK;
    const gen_act_span *dspans = NULL;
    if (nspans > 0) GEN_CUDA_PASS(gen_cuda_spans(cu, spans, nspans, &dspans));
    size_t n = (size_t)B * (size_t)(nspans > 0 ? nspans : 1);
    GEN_LAUNCH(k_ddpm_reverse_step, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(xout, t, tnext, xt, eps, B, D, dspans, nspans, st, seed, stream,
                           offset, e0, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_silu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "silu_forward", gen_cu_silu_forward(cu, out, inp, n));
}

static void op_silu_backward(gen_backend *be, float *dinp, const float *dout, const float *inp,
                             size_t n) {
    GEN_CUDA_RUN(be, "silu_backward", gen_cu_silu_backward(cu, dinp, dout, inp, n));
}

static void op_timestep_embed(gen_backend *be, float *out, const int32_t *t, int B, int dim) {
    GEN_CUDA_RUN(be, "timestep_embed", gen_cu_timestep_embed(cu, out, t, B, dim));
}

static void op_ddpm_loss(gen_backend *be, float *loss, float *dout, const float *out,
                         const float *x0, const float *xt, const float *noise, const float *coef,
                         int B, int D, const gen_act_span *spans, int nspans, float gscale,
                         float mscale) {
    GEN_CUDA_RUN(be, "ddpm_loss",
                 gen_cu_ddpm_loss(cu, loss, dout, out, x0, xt, noise, coef, B, D, spans, nspans,
                                  gscale, mscale));
}

static void op_scale(gen_backend *be, float *x, size_t n, float s) {
    GEN_CUDA_RUN(be, "scale", gen_cu_scale(cu, x, n, s));
}

static void op_label_embed(gen_backend *be, float *out, const float *emb, const int32_t *y, int B,
                           int dim) {
    GEN_CUDA_RUN(be, "label_embed", gen_cu_label_embed(cu, out, emb, y, B, dim));
}

static void op_label_embed_backward(gen_backend *be, float *demb, const float *dout,
                                    const int32_t *y, int B, int K, int dim) {
    GEN_CUDA_RUN(be, "label_embed_backward", gen_cu_label_embed_backward(cu, demb, dout, y, B, K, dim));
}

static void op_ema_update(gen_backend *be, float *ema, const float *x, size_t n, float decay) {
    GEN_CUDA_RUN(be, "ema_update", gen_cu_ema_update(cu, ema, x, n, decay));
}

static void op_ddpm_sample_init(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                                const gen_act_span *spans, int nspans, uint64_t seed,
                                uint64_t stream, uint64_t offset, uint64_t e0) {
    GEN_CUDA_RUN(be, "ddpm_sample_init",
                 gen_cu_ddpm_sample_init(cu, x, t, tnext, B, D, spans, nspans, seed, stream,
                                         offset, e0, be->rng_base));
}

static void op_ddpm_reverse_step(gen_backend *be, float *xout, int32_t *t, int tnext,
                                 const float *xt, const float *eps, int B, int D,
                                 const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                 uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0) {
    GEN_CUDA_RUN(be, "ddpm_reverse_step",
                 gen_cu_ddpm_reverse_step(cu, xout, t, tnext, xt, eps, B, D, spans, nspans, st,
                                          seed, stream, offset, e0, be->rng_base));
}

void gen_cu_ops_diffusion(gen_backend_ops *o) {
    o->silu_forward = op_silu_forward;
    o->silu_backward = op_silu_backward;
    o->timestep_embed = op_timestep_embed;
    o->ddpm_loss = op_ddpm_loss;
    o->scale = op_scale;
    o->label_embed = op_label_embed;
    o->label_embed_backward = op_label_embed_backward;
    o->ema_update = op_ema_update;
    o->ddpm_sample_init = op_ddpm_sample_init;
    o->ddpm_reverse_step = op_ddpm_reverse_step;
}
