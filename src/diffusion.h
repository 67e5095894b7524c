/*
 * diffusion.h — the arithmetic of TabDDPM's two diffusions (Kotelnikov et al., "TabDDPM:
 * Modelling Tabular Data with Diffusion Models", ICML 2023) that the CPU backend's loss
 * (backend_cpu.c: ddpm_loss) and the DDPM sampler (models/ddpm_model.c) share:
 *   - the noise schedules: linear betas (Ho et al. 2020, scaled by 1000 / T) and the cosine
 *     schedule (Nichol and Dhariwal 2021, s = 0.008, betas clipped at 0.999);
 *   - the multinomial posterior of Hoogeboom et al. 2021 ("Argmax Flows and Multinomial
 *     Diffusion", eq. 7-8) between two steps s < t:
 *       q(x_s | x_t, x_0) ∝ (a x_t + (1 - a)/K) * (c x_0 + (1 - c)/K),
 *     a = alpha-bar_t / alpha-bar_s (one step: alpha_t), c = alpha-bar_s (1 at s = -1).
 * Derivations and the gradient of the KL: docs/ddpm.md.
 */
#ifndef GEN_DIFFUSION_H
#define GEN_DIFFUSION_H

#include <math.h>

/* The widest softmax span (categories of one column, with its rare and missing slots) the
 * multinomial diffusion takes; a wider column is refused at fit (models/ddpm_model.c). */
#define GEN_DDPM_MAXK 1024

/* betas[0..T) of a schedule (0 linear, 1 cosine), in double */
static inline void gen_ddpm_betas(double *betas, int T, int cosine) {
    if (!cosine) {
        double scale = 1000.0 / T, lo = scale * 1e-4, hi = scale * 0.02;
        for (int i = 0; i < T; i++) betas[i] = T > 1 ? lo + (hi - lo) * i / (T - 1) : lo;
        return;
    }
    const double s = 0.008, pi2 = 1.5707963267948966;
    for (int i = 0; i < T; i++) {
        double f0 = cos(((double)i / T + s) / (1 + s) * pi2), f1 = cos(((double)(i + 1) / T + s) / (1 + s) * pi2);
        double b = 1.0 - (f1 * f1) / (f0 * f0);
        betas[i] = b < 0.999 ? b : 0.999;
    }
}

/* p[0..K) ∝ (a xt_k + (1 - a)/K) * (c x0_k + (1 - c)/K), normalised; x0 is a probability
 * vector (one-hot or a prediction), xt one-hot. Returns the normaliser. */
static inline double gen_mn_posterior(double *p, const float *xt, const double *x0, int K,
                                      double a, double c) {
    double W = 0;
    for (int k = 0; k < K; k++) {
        p[k] = (a * xt[k] + (1.0 - a) / K) * (c * x0[k] + (1.0 - c) / K);
        W += p[k];
    }
    for (int k = 0; k < K; k++) p[k] /= W;
    return W;
}

#endif /* GEN_DIFFUSION_H */
