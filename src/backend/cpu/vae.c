/*
 * vae.c — the CPU backend's `vae` family (backend.h): TVAE's pieces (Xu et al. 2019;
 * docs/algorithms.md §T5): the reparameterisation (forward and backward), the KL term
 * against N(0, 1) and the reconstruction loss span by span (Gaussian terms with a learned
 * sigma at tanh positions, with one alpha per mode where the layout has them; cross entropy
 * at softmax spans). Loss sums are per-thread partials in double added in a fixed order.
 * CUDA: cuda/vae.cu; parity: tests/parity/vae.c.
 */
#include "cpu_internal.h"

/* ---- TVAE pieces ---------------------------------------------------------------------------- */
static void reparam_fwd_range(float *restrict z, float *restrict std, const float *restrict mu,
                              const float *restrict logvar, const float *restrict eps, size_t lo,
                              size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        std[i] = expf(0.5f * logvar[i]);
        z[i] = mu[i] + eps[i] * std[i];
    }
}
void gen_cpu_reparam_forward(gen_backend *be, float *z, float *std, const float *mu,
                             const float *logvar, const float *eps, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, reparam_fwd_range(z, std, mu, logvar, eps, lo, hi));
}
static GEN_KERNEL void reparam_bwd_range(float *restrict dmu, float *restrict dlogvar,
                                         const float *restrict dz, const float *restrict eps,
                                         const float *restrict std, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        dmu[i] += dz[i];
        dlogvar[i] += dz[i] * eps[i] * std[i] * 0.5f;
    }
}
void gen_cpu_reparam_backward(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                              const float *eps, const float *std, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, reparam_bwd_range(dmu, dlogvar, dz, eps, std, lo, hi));
}

void gen_cpu_reparam_backward_bias(gen_backend *be, float *dmu, float *dlogvar, float *dmb,
                                   float *dvb, const float *dz, const float *eps,
                                   const float *std, int B, int e) {
    gen_cpu_reparam_backward(be, dmu, dlogvar, dz, eps, std, (size_t)B * e);
    for (int b = 0; b < B; b++) /* linear_backward's order (cpu/dense.c) */
        for (int o = 0; o < e; o++) dmb[o] += dmu[(size_t)b * e + o];
    for (int b = 0; b < B; b++)
        for (int o = 0; o < e; o++) dvb[o] += dlogvar[(size_t)b * e + o];
}

/* Per-thread partial sums, added in thread order: the total is the same for a given thread
 * count (the gradients never depend on it). */

static double kl_range(float *dmu, float *dlogvar, const float *mu, const float *logvar,
                       float scale, size_t lo, size_t hi) {
    double tot = 0;
    for (size_t i = lo; i < hi; i++) {
        float ev = expf(logvar[i]);
        tot += 1.0 + logvar[i] - (double)mu[i] * mu[i] - ev;
        if (dmu) dmu[i] += scale * mu[i];
        if (dlogvar) dlogvar[i] += scale * 0.5f * (ev - 1.0f);
    }
    return tot;
}
void gen_cpu_kl_normal(gen_backend *be, float *loss, float *dmu, float *dlogvar,
                       const float *mu, const float *logvar, size_t n, float scale) {
    (void)be;
    double part[GEN_MAX_PARTS] = {0};
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE(n, {
        if (gen_t_ < (size_t)nt) part[gen_t_] = kl_range(dmu, dlogvar, mu, logvar, scale, lo, hi);
    });
    double tot = 0;
    for (int t = 0; t < nt; t++) tot += part[t];
    if (loss) loss[0] = (float)(-0.5 * tot * scale);
}

/* Cross entropy of rows [lo, hi) over the softmax spans; returns the summed loss. */
static double recon_softmax_rows(float *dr, const float *r, int ldr, const float *x, int D,
                                 const gen_recon_span *spans, int nspans, float scale, int lo,
                                 int hi) {
    double tot = 0;
    for (int b = lo; b < hi; b++) {
        for (int s = 0; s < nspans; s++) {
            const gen_recon_span *sp = &spans[s];
            if (!sp->softmax) continue;
            const float *rr = r + (size_t)b * ldr + sp->r_start, *xr = x + (size_t)b * D + sp->start;
            int tgt = 0;
            for (int j = 1; j < sp->len; j++)
                if (xr[j] > xr[tgt]) tgt = j;
            float mx = rr[0];
            for (int j = 1; j < sp->len; j++) mx = rr[j] > mx ? rr[j] : mx;
            float z = 0.0f;
            for (int j = 0; j < sp->len; j++) z += expf(rr[j] - mx);
            float lse = mx + logf(z);
            tot += lse - rr[tgt];
            if (dr) {
                float *d = dr + (size_t)b * ldr + sp->r_start;
                for (int j = 0; j < sp->len; j++) d[j] += scale * expf(rr[j] - lse);
                d[tgt] -= scale;
            }
        }
    }
    return tot;
}

/* The slot of row xr's continuous column whose alpha is at x position j: the first argmax of
 * the one-hot that follows it. */
static int recon_slot(const float *xr, int j, int modes) {
    int k = 0;
    for (int i = 1; i < modes; i++)
        if (xr[j + 1 + i] > xr[j + 1 + k]) k = i;
    return k;
}

void gen_cpu_tvae_recon(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                        int ldr, const float *x, const float *sigma, int B, int D,
                        const gen_recon_span *spans, int nspans, float scale) {
    (void)be;
    double tot = 0;
    for (int s = 0; s < nspans; s++) { /* tanh spans: few columns, reduced over rows */
        const gen_recon_span *sp = &spans[s];
        if (sp->softmax) continue;
        for (int j = sp->start; j < sp->start + sp->len; j++) {
            double sg = sigma[j], ds = 0;
            for (int b = 0; b < B; b++) {
                const float *xr = x + (size_t)b * D;
                int jr = sp->r_start + (sp->modes > 0 ? recon_slot(xr, j, sp->modes) : j - sp->start);
                size_t i = (size_t)b * ldr + jr;
                float t = tanhf(r[i]);
                double e = xr[j] - t;
                tot += e * e / (2 * sg * sg);
                ds += -e * e / (sg * sg * sg);
                if (dr) dr[i] += scale * (float)(-e / (sg * sg)) * (1.0f - t * t);
            }
            tot += B * log(sg);
            ds += B / sg;
            if (dsigma) dsigma[j] += scale * (float)ds;
        }
    }
    double part[GEN_MAX_PARTS] = {0};
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE((size_t)B * D, {
        size_t rl = (size_t)B * gen_t_ / gen_T_, rh = (size_t)B * (gen_t_ + 1) / gen_T_;
        (void)lo; (void)hi;
        if (gen_t_ < (size_t)nt)
            part[gen_t_] = recon_softmax_rows(dr, r, ldr, x, D, spans, nspans, scale, (int)rl,
                                              (int)rh);
    });
    for (int t = 0; t < nt; t++) tot += part[t];
    if (loss) loss[0] = (float)(tot * scale);
}
