/*
 * diffusion.c — the CPU backend's `diffusion` family (backend.h; TabDDPM, docs/ddpm.md):
 * SiLU, the sinusoidal timestep embedding, the class-label embedding, TabDDPM's loss (MSE on
 * the noise at tanh spans, the multinomial-diffusion KL at softmax spans), the element-wise
 * scale of AdamW's decoupled decay, the weights' EMA, and the sampler's steps (x_T and one
 * reverse step) with the expressions and Philox draws of diffusion.h. CUDA:
 * cuda/diffusion.cu; parity: tests/parity/diffusion.c.
 */
#include "cpu_internal.h"
#include "diffusion.h"

void gen_cpu_silu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) out[i] = inp[i] / (1.0f + expf(-inp[i]));
}
void gen_cpu_silu_backward(gen_backend *be, float *dinp, const float *dout, const float *inp,
                           size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) {
        float s = 1.0f / (1.0f + expf(-inp[i]));
        dinp[i] += dout[i] * (s + inp[i] * s * (1.0f - s));
    }
}
void gen_cpu_timestep_embed(gen_backend *be, float *out, const int32_t *t, int B, int dim) {
    (void)be;
    int half = dim / 2;
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * dim;
        for (int i = 0; i < half; i++) {
            float f = expf(-9.210340371976184f * (float)i / (float)half); /* ln 10000 */
            float arg = (float)t[b] * f;
            o[i] = cosf(arg);
            o[half + i] = sinf(arg);
        }
        if (dim % 2) o[dim - 1] = 0.0f;
    }
}

void gen_cpu_label_embed(gen_backend *be, float *out, const float *emb, const int32_t *y,
                         int B, int dim) {
    (void)be;
    for (int b = 0; b < B; b++) /* a hidden label (y < 0) embeds as zeros */
        if (y[b] < 0) memset(out + (size_t)b * dim, 0, (size_t)dim * sizeof(float));
        else memcpy(out + (size_t)b * dim, emb + (size_t)y[b] * dim, (size_t)dim * sizeof(float));
}
void gen_cpu_label_embed_backward(gen_backend *be, float *demb, const float *dout,
                                  const int32_t *y, int B, int K, int dim) {
    (void)be; (void)K;
    for (int b = 0; b < B; b++) {
        if (y[b] < 0) continue; /* a hidden label has no row of emb */
        float *d = demb + (size_t)y[b] * dim;
        const float *g = dout + (size_t)b * dim;
        for (int j = 0; j < dim; j++) d[j] += g[j];
    }
}
void gen_cpu_ema_update(gen_backend *be, float *ema, const float *x, size_t n, float decay) {
    (void)be;
    float keep = decay, take = 1.0f - decay;
    for (size_t i = 0; i < n; i++) ema[i] = keep * ema[i] + take * x[i];
}

/* DDPM sampling (backend.h, docs/ddpm.md §5): rows in parallel; every draw is a pure
 * function of its element's index, so the bytes do not depend on the thread count. */
void gen_cpu_ddpm_sample_init(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                              const gen_act_span *spans, int nspans, uint64_t seed,
                              uint64_t stream, uint64_t offset, uint64_t e0) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR((size_t)B * D)
    for (int b = 0; b < B; b++) {
        size_t r0 = (size_t)b * D;
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            float *xs = x + r0 + sp->start;
            if (!sp->softmax) {
                for (int j = 0; j < sp->len; j++)
                    xs[j] = gen_philox_normal_at(seed, stream, offset, e0 + r0 + sp->start + j);
                continue;
            }
            int pick = gen_ddpm_init_cat(seed, stream, offset, e0 + r0 + sp->start, sp->len);
            for (int k = 0; k < sp->len; k++) xs[k] = k == pick ? 1.0f : 0.0f;
        }
        if (t) t[b] = tnext;
    }
}
/* ddpm_reverse_step's rows [lo, hi) (compiled for AVX2 and the baseline: the draw's exps
 * vectorise 8 or 4 wide; the same operations in both, so the same bits); e: the draw's
 * scratch, the widest span's floats */
static GEN_KERNEL void reverse_rows(float *xout, int32_t *t, int tnext, const float *xt,
                                    const float *eps, int lo, int hi, int D,
                                    const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                    uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0,
                                    float *restrict e) {
    double a = st.abar_t / st.abar_s, c = st.abar_s;
    for (int b = lo; b < hi; b++) {
        size_t r0 = (size_t)b * D;
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            size_t o = r0 + sp->start;
            if (!sp->softmax) {
                for (int j = 0; j < sp->len; j++) {
                    double z = (st.ancestral || st.sigma > 0) && !st.last
                                   ? gen_philox_normal_at(seed, stream, offset, e0 + o + j)
                                   : 0.0;
                    double ep = eps[o + j], x0;
                    if (st.x0prev) { /* the second-order step (diffusion.h) */
                        ep = gen_ddpm_multistep_eps(xt[o + j], ep, st.abar_t, st.k2,
                                                   st.x0prev[o + j], &x0);
                        st.x0prev[o + j] = (float)x0;
                    }
                    xout[o + j] = gen_ddpm_gauss_step(xt[o + j], ep, st.abar_t, st.abar_s,
                                                      st.alpha_t, st.ancestral, st.last,
                                                      st.sigma, z);
                }
                continue;
            }
            int K = sp->len;
            int pick = gen_ddpm_mn_draw(xt + o, eps + o, K, a, c,
                                        gen_ddpm_u(seed, stream, offset, e0 + o), e);
            for (int k = 0; k < K; k++) xout[o + k] = k == pick ? 1.0f : 0.0f;
        }
        if (t) t[b] = tnext;
    }
}
void gen_cpu_ddpm_reverse_step(gen_backend *be, float *xout, int32_t *t, int tnext,
                               const float *xt, const float *eps, int B, int D,
                               const gen_act_span *spans, int nspans, gen_ddpm_step st,
                               uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0) {
    offset += cpu_rng_base(be);
    int maxk = 1;
    for (int s = 0; s < nspans; s++)
        if (spans[s].softmax && spans[s].len > maxk) maxk = spans[s].len;
    _Pragma("omp parallel if ((size_t)B * D >= 16384) num_threads(be->threads)") {
        int64_t th = omp_get_thread_num(), T = omp_get_num_threads();
        float *e = malloc((size_t)maxk * sizeof(float)); /* NULL: recomputed, same values */
        reverse_rows(xout, t, tnext, xt, eps, (int)(B * th / T), (int)(B * (th + 1) / T), D,
                     spans, nspans, st, seed, stream, offset, e0, e);
        free(e);
    }
}

/* The multinomial part of ddpm_loss for rows [lo, hi): returns the summed KL. */
static double ddpm_mn_rows(float *dout, const float *out, const float *x0, const float *xt,
                           const float *coef, int D, const gen_act_span *spans, int nspans,
                           float mscale, int lo, int hi) {
    double tot = 0, sm[GEN_DDPM_MAXK], q[GEN_DDPM_MAXK], pp[GEN_DDPM_MAXK], x0d[GEN_DDPM_MAXK];
    for (int b = lo; b < hi; b++) {
        double a = coef[2 * b], c = coef[2 * b + 1];
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            if (!sp->softmax) continue;
            int K = sp->len;
            GEN_ASSERT(K <= GEN_DDPM_MAXK);
            size_t o0 = (size_t)b * D + sp->start;
            const float *r = out + o0;
            double mx = r[0], z = 0;
            for (int k = 1; k < K; k++) mx = r[k] > mx ? r[k] : mx;
            for (int k = 0; k < K; k++) z += exp(r[k] - mx);
            for (int k = 0; k < K; k++) {
                sm[k] = exp(r[k] - mx) / z;
                x0d[k] = x0[o0 + k];
            }
            gen_mn_posterior(q, xt + o0, x0d, K, a, c);
            gen_mn_posterior(pp, xt + o0, sm, K, a, c);
            double kl = 0, e = (1.0 - c) / K, acc = 0;
            for (int k = 0; k < K; k++)
                if (q[k] > 0) kl += q[k] * (log(q[k]) - log(pp[k] > 1e-300 ? pp[k] : 1e-300));
            tot += kl;
            if (!dout) continue;
            /* d KL / d logit_i = (p_i - q_i) r_i - s_i sum_j (p_j - q_j) r_j, r = c s / (c s + e) */
            for (int k = 0; k < K; k++) {
                double den = c * sm[k] + e;
                double rk = den > 0 ? c * sm[k] / den : 1.0;
                x0d[k] = (pp[k] - q[k]) * rk;
                acc += x0d[k];
            }
            for (int k = 0; k < K; k++) dout[o0 + k] += mscale * (float)(x0d[k] - sm[k] * acc);
        }
    }
    return tot;
}

void gen_cpu_ddpm_loss(gen_backend *be, float *loss, float *dout, const float *out,
                       const float *x0, const float *xt, const float *noise, const float *coef,
                       int B, int D, const gen_act_span *spans, int nspans, float gscale,
                       float mscale) {
    double g = 0;
    for (int b = 0; b < B; b++)
        for (int s = 0; s < nspans; s++) {
            if (spans[s].softmax) continue;
            for (int j = spans[s].start; j < spans[s].start + spans[s].len; j++) {
                size_t i = (size_t)b * D + j;
                double e = (double)out[i] - noise[i];
                g += e * e;
                if (dout) dout[i] += gscale * 2.0f * (float)e;
            }
        }
    double part[GEN_MAX_PARTS] = {0}, m = 0;
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE((size_t)B * D, {
        size_t rl = (size_t)B * gen_t_ / gen_T_, rh = (size_t)B * (gen_t_ + 1) / gen_T_;
        (void)lo; (void)hi;
        if (gen_t_ < (size_t)nt)
            part[gen_t_] = ddpm_mn_rows(dout, out, x0, xt, coef, D, spans, nspans, mscale, (int)rl, (int)rh);
    });
    for (int t = 0; t < nt; t++) m += part[t];
    if (loss) {
        loss[0] = (float)(g * gscale);
        loss[1] = (float)(m * mscale);
    }
}
void gen_cpu_scale(gen_backend *be, float *x, size_t n, float s) {
    (void)be;
    for (size_t i = 0; i < n; i++) x[i] *= s;
}
