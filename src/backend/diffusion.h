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
 * and one reverse step of the sampler (docs/ddpm.md §5; its Gaussian part first or second
 * order, DPM-Solver++(2M) of Lu et al. 2022), written once for the CPU backend
 * and the CUDA kernels (GEN_HOST_DEVICE), so both compute the same expressions.
 * Derivations and the gradient of the KL: docs/ddpm.md.
 */
#ifndef GEN_DIFFUSION_H
#define GEN_DIFFUSION_H

#include <math.h>
#include <stdint.h>

#include "expf_neg.h"
#include "rng.h" /* GEN_HOST_DEVICE */

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

/* The noise of a strided (DDIM) step t -> s at eta in [0, 1] (Song, Meng, Ermon, ICLR 2021,
 * eq. 16): sigma = eta sqrt((1 - abs_) / (1 - abt)) sqrt(1 - abt / abs_). eta = 0 is the
 * deterministic DDIM; eta = 1 gives the DDPM posterior's variance
 * (1 - abs_) / (1 - abt) (1 - abt / abs_), for s = t - 1 that of Ho et al. 2020 eq. 7 with
 * beta-tilde. 0 at the last step (abs_ = 1). */
static inline double gen_ddpm_sigma(double eta, double abt, double abs_) {
    if (eta <= 0 || abs_ >= 1.0) return 0.0;
    double v = (1.0 - abs_) / (1.0 - abt) * (1.0 - abt / abs_);
    return v > 0 ? eta * sqrt(v) : 0.0;
}

/* One reverse step t -> s of a Gaussian (tanh) position, in double: x_t and the predicted
 * noise eps (both in the alpha-scaled units of the diffusion), abt = alpha-bar_t, abs_ =
 * alpha-bar_s (1 at s = -1), alpha_t = 1 - beta_t. x0 = (x_t - sqrt(1 - abt) eps) / sqrt(abt);
 * ancestral (DDPM, Ho et al. 2020 eq. 7, variance beta_t): the posterior mean
 * beta_t sqrt(abs_) / (1 - abt) x0 + (1 - abs_) sqrt(alpha_t) / (1 - abt) x_t plus
 * sqrt(beta_t) z; strided (DDIM, Song et al. 2021 eq. 12): sqrt(abs_) x0 +
 * sqrt(1 - abs_ - sigma^2) eps + sigma z, where sigma is the step's noise (gen_ddpm_sigma; 0:
 * DDIM's deterministic eta = 0, and the z term is left out). `last` (s = -1): no noise, and
 * DDIM returns x0. */
GEN_HOST_DEVICE static inline float gen_ddpm_gauss_step(double xt, double eps, double abt,
                                                        double abs_, double alpha_t,
                                                        int ancestral, int last, double sigma,
                                                        double z) {
    double x0 = (xt - sqrt(1.0 - abt) * eps) / sqrt(abt), nx;
    if (ancestral) {
        double beta = 1.0 - alpha_t;
        double c1 = beta * sqrt(abs_) / (1.0 - abt);
        double c2 = (1.0 - abs_) * sqrt(alpha_t) / (1.0 - abt);
        nx = c1 * x0 + c2 * xt;
        if (!last) nx += sqrt(beta) * z;
    } else {
        if (last) {
            nx = sqrt(abs_) * x0;
        } else if (sigma > 0) {
            double dir = 1.0 - abs_ - sigma * sigma;
            nx = sqrt(abs_) * x0 + sqrt(dir > 0 ? dir : 0.0) * eps + sigma * z;
        } else {
            nx = sqrt(abs_) * x0 + sqrt(1.0 - abs_) * eps;
        }
    }
    return (float)nx;
}

/* The second-order multistep correction of a strided Gaussian step (DPM-Solver++(2M), Lu et
 * al. 2022, "DPM-Solver++: Fast Solver for Guided Sampling of Diffusion Probabilistic Models",
 * Algorithm 2), written as the noise that DDIM's step (gen_ddpm_gauss_step, eta = 0) turns
 * into 2M's update: with x0 = (x_t - sqrt(1 - abt) eps) / sqrt(abt) this step's prediction
 * and x0p the previous step's, D = x0 + k (x0 - x0p), k = h_i / (2 h_{i-1}) (h: the steps in
 * lambda = log(sqrt(abar) / sqrt(1 - abar))), and the returned eps' = (x_t - sqrt(abt) D) /
 * sqrt(1 - abt) makes DDIM's x_s = sqrt(abs_) D + sqrt(1 - abs_) eps' =
 * (sigma_s / sigma_t) x_t - alpha_s (e^{-h} - 1) D, 2M's update (docs/ddpm.md §5). *x0 is set
 * to this step's prediction (what the next step reads as x0p). k = 0: eps unchanged. */
GEN_HOST_DEVICE static inline double gen_ddpm_multistep_eps(double xt, double eps, double abt,
                                                            double k, double x0p, double *x0) {
    double st = sqrt(1.0 - abt), at = sqrt(abt);
    *x0 = (xt - st * eps) / at;
    if (k == 0) return eps;
    double Dx = *x0 + k * (*x0 - x0p);
    return (xt - at * Dx) / st;
}

/* One reverse step of a softmax (multinomial) span of width K: x0_hat = softmax(logits),
 * q(x_s | x_t, x0_hat) ∝ (a x_t + (1 - a)/K) * (c x0_hat + (1 - c)/K) (gen_mn_posterior's
 * expression, a = alpha-bar_t / alpha-bar_s, c = alpha-bar_s), and the category drawn by
 * inverting its cumulative sum at u in [0, 1) (the first k with u W < sum_{i <= k} q_i; K - 1
 * when rounding leaves u W above the total). x_t is a one-hot (at j; the last xt_k > 1/2, none:
 * the zero vector), so the normaliser needs no pass of its own (docs/ddpm.md §5):
 *   W = sum_k (a xt_k + ua) (c sm_k + uc) = ua (c + K uc) + a (c sm_j + uc) = ua + a (c sm_j + uc),
 * ua = (1 - a)/K, uc = (1 - c)/K, because sum sm = 1 and c + K uc = 1. The exps are
 * gen_expf_neg's floats of logit - max (expf_neg.h), summed in double over four interleaved
 * partial sums in a fixed order; the cumulative pass stops at the drawn category. e: K floats of
 * scratch that keep the exps between the passes (the loop that fills it vectorises), or NULL to
 * recompute them (the same function of the same values, so both give the same draw). */
GEN_HOST_DEVICE static inline int gen_ddpm_mn_draw(const float *xt, const float *logits, int K,
                                                   double a, double c, double u, float *e) {
    float m[4] = {logits[0], logits[0], logits[0], logits[0]}; /* four chains: the max is exact */
    int k4 = K & ~3, j = -1;
    for (int k = 0; k < k4; k += 4)
        for (int l = 0; l < 4; l++) m[l] = logits[k + l] > m[l] ? logits[k + l] : m[l];
    for (int k = k4; k < K; k++) m[0] = logits[k] > m[0] ? logits[k] : m[0];
    float mx = m[0];
    for (int l = 1; l < 4; l++) mx = m[l] > mx ? m[l] : mx;
    for (int k = 0; k < K; k++) j = xt[k] > 0.5f ? k : j; /* no early exit: it vectorises */
    if (e)
        for (int k = 0; k < K; k++) e[k] = gen_expf_neg(GEN_FADD(logits[k], -mx));
#define GEN_MN_E(k) ((double)(e ? e[k] : gen_expf_neg(GEN_FADD(logits[k], -mx))))
    double z0 = 0, z1 = 0, z2 = 0, z3 = 0;
    for (int k = 0; k < k4; k += 4) {
        z0 += GEN_MN_E(k);
        z1 += GEN_MN_E(k + 1);
        z2 += GEN_MN_E(k + 2);
        z3 += GEN_MN_E(k + 3);
    }
    for (int k = k4; k < K; k++) z0 += GEN_MN_E(k);
    double z = (z0 + z1) + (z2 + z3);
    double ua = (1.0 - a) / K, uc = (1.0 - c) / K, cz = c / z;
    /* q_k = ua (cz e_k + uc) + [k = j] a (cz e_j + uc) */
    double qa = GEN_DMUL(ua, cz), qb = GEN_DMUL(ua, uc);
    double qj = j >= 0 ? GEN_DMUL(a, GEN_DADD(GEN_DMUL(cz, GEN_MN_E(j)), uc)) : 0.0;
    double target = GEN_DMUL(u, GEN_DADD(ua, qj)), acc = 0;
    for (int k = 0; k < K; k++) {
        acc = GEN_DADD(acc, GEN_DADD(GEN_DMUL(qa, GEN_MN_E(k)), qb));
        if (k == j) acc = GEN_DADD(acc, qj);
        if (target < acc) return k;
    }
#undef GEN_MN_E
    return K - 1;
}

/* The sampler's draws (docs/ddpm.md §5). Every draw is a pure function of its element's
 * index in the sampling call, i = e0 + b D + j (e0: the elements of the rows generated before
 * this batch in the call), and of the operation's counter base `offset` (operation k of a
 * batch's chain: k 2 GEN_DDPM_REGION, gen_ddpm_op_offset): a tanh position takes the normal of
 * element i of the region [offset, offset + GEN_DDPM_REGION) (rng.h's stateless indexing), a
 * softmax span starting at element i one uniform, word i % 4 of counter offset +
 * GEN_DDPM_REGION + i / 4. So the rows do not depend on how the call is cut into batches (the
 * CPU and a GPU may use different batch sizes and still write the same rows). Two regions,
 * because a span's first element can share a Philox block, and so a Box-Muller word, with a
 * tanh position just before it (a continuous column's alpha, then its mode span): one region
 * would tie the alpha's noise to the mode's draw. A region holds 2^42 elements. */
#define GEN_DDPM_REGION (UINT64_C(1) << 40)
GEN_HOST_DEVICE static inline uint64_t gen_ddpm_op_offset(uint64_t k) {
    return k * 2 * GEN_DDPM_REGION;
}
/* the uniform in [0, 1) of element i (32 bits) */
GEN_HOST_DEVICE static inline double gen_ddpm_u(uint64_t seed, uint64_t stream, uint64_t offset,
                                                uint64_t i) {
    return (double)gen_philox_at(seed, stream, offset + GEN_DDPM_REGION, i) *
           (1.0 / 4294967296.0);
}
/* x_T's category of a softmax span of width K starting at element i: floor(u K) from the
 * uniform's 32 bits */
GEN_HOST_DEVICE static inline int gen_ddpm_init_cat(uint64_t seed, uint64_t stream,
                                                    uint64_t offset, uint64_t i, int K) {
    return (int)(((uint64_t)gen_philox_at(seed, stream, offset + GEN_DDPM_REGION, i) *
                  (uint64_t)K) >> 32);
}
#endif /* GEN_DIFFUSION_H */
