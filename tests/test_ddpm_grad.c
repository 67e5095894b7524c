/*
 * test_ddpm_grad.c — the diffusion pieces of the CPU backend and the DDPM denoiser checked
 * against independent computations (docs/ddpm.md):
 *   - SiLU's backward and ddpm_loss's gradient (Gaussian MSE and the multinomial KL at
 *     t = 0, an intermediate t and a strided pair) by central finite differences, with the
 *     += semantics of the gradient outputs;
 *   - the sinusoidal timestep embedding against the formula in double;
 *   - the multinomial posterior (src/backend/diffusion.h) against Bayes' rule written out with the
 *     transition matrices, one step and several steps;
 *   - the KL is zero when the denoiser predicts x0 exactly (and positive otherwise);
 *   - the class-label embedding (forward against its definition, backward by finite
 *     differences, += semantics);
 *   - the whole denoiser, unconditional and class-conditional: every tensor's gradient
 *     (the label embedding's included) by finite differences;
 *   - the moving average of the weights against its closed form over a short run;
 *   - the schedules: cosine and linear alpha-bar decreasing from about 1 to about 0;
 *   - the Gaussian reverse step's DDIM noise (eta) against the DDPM posterior and the
 *     marginal it must keep;
 *   - the sampler's float exp (src/backend/expf_neg.h) against double exp, in ulp;
 *   - the multinomial draw (gen_ddpm_mn_draw): its analytic normaliser against the sum, and
 *     the categories it returns over a fine grid of uniforms against the posterior computed
 *     with double exp (the inversion's frequencies), with and without scratch;
 *   - the sampling forward with one time embedding for all rows (shared_t) against the
 *     per-row forward.
 *   - the strided sampler's timesteps and the second-order step
 *     (sample-order 2) against DPM-Solver++(2M)'s update and a toy ODE solved exactly.
 * A finite difference is trusted only where two step sizes agree (away from ReLU's kink);
 * each check requires most probed entries to be trusted (as test_layers_grad.c).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "ddpm.h"
#include "ddpm_steps.h"
#include "diffusion.h"
#include "test_util.h"
#include "cpu_fixture.h"

/* ---- SiLU -------------------------------------------------------------------------------- */

typedef struct silu_case {
    float inp[24], out[24], R[24];
} silu_case;

static double silu_loss(void *u) {
    silu_case *c = u;
    be->ops->silu_forward(be, c->out, c->inp, 24);
    double l = 0;
    for (int i = 0; i < 24; i++) l += (double)c->out[i] * c->R[i];
    return l;
}

START_TEST(test_silu) {
    silu_case c;
    tu_fill_uniform(c.inp, 24, -4, 4, 1);
    tu_fill_uniform(c.R, 24, -1, 1, 2);
    silu_loss(&c);
    for (int i = 0; i < 24; i++) /* the forward against its definition */
        ck_assert_double_eq_tol(c.out[i], c.inp[i] / (1.0 + exp(-c.inp[i])), 1e-5);
    float d[24];
    for (int i = 0; i < 24; i++) d[i] = 0.5f;
    be->ops->silu_backward(be, d, c.R, c.inp, 24);
    for (int i = 0; i < 24; i++) d[i] -= 0.5f; /* += semantics */
    tu_check_grad("silu", silu_loss, &c, c.inp, d, 24, 24, 1e-4, 1e-2);
}
END_TEST

/* ---- timestep embedding -------------------------------------------------------------------- */

START_TEST(test_timestep_embed) {
    int32_t t[5] = {0, 1, 17, 500, 999};
    int dims[3] = {8, 7, 128};
    for (int k = 0; k < 3; k++) {
        int dim = dims[k], half = dim / 2;
        float *o = malloc((size_t)5 * dim * sizeof(float));
        be->ops->timestep_embed(be, o, t, 5, dim);
        for (int b = 0; b < 5; b++)
            for (int i = 0; i < half; i++) {
                double f = exp(-log(10000.0) * i / half);
                ck_assert_double_eq_tol(o[b * dim + i], cos(t[b] * f), 2e-4);
                ck_assert_double_eq_tol(o[b * dim + half + i], sin(t[b] * f), 2e-4);
            }
        if (dim % 2)
            for (int b = 0; b < 5; b++) ck_assert(o[b * dim + dim - 1] == 0.0f);
        free(o);
    }
}
END_TEST

/* ---- the multinomial posterior against Bayes' rule ------------------------------------------- */

/* q(x_s = j | x_t = i, x0) by Bayes with transition Q(t|s) = a I + (1 - a)/K and
 * q(x_s | x0) = c x0 + (1 - c)/K */
static void bayes(double *p, int i, const double *x0, int K, double a, double c) {
    double W = 0;
    for (int j = 0; j < K; j++) {
        double qs = c * x0[j] + (1 - c) / K;            /* q(x_s = j | x0) */
        double tr = a * (i == j) + (1 - a) / K;        /* q(x_t = i | x_s = j) */
        p[j] = tr * qs;
        W += p[j];
    }
    for (int j = 0; j < K; j++) p[j] /= W;
}

START_TEST(test_multinomial_posterior) {
    enum { K = 5, T = 50 };
    double betas[T], abar[T], ab = 1;
    gen_ddpm_betas(betas, T, 1);
    for (int i = 0; i < T; i++) abar[i] = (ab *= 1 - betas[i]);
    double x0[K] = {0.1, 0.5, 0.05, 0.3, 0.05}, p[K], ref[K];
    float xt[K] = {0, 0, 1, 0, 0};
    int pairs[4][2] = {{10, 9}, {0, -1}, {40, 20}, {49, 0}};
    for (int k = 0; k < 4; k++) {
        int t = pairs[k][0], s = pairs[k][1];
        double c = s >= 0 ? abar[s] : 1.0, a = abar[t] / c;
        gen_mn_posterior(p, xt, x0, K, a, c);
        bayes(ref, 2, x0, K, a, c);
        for (int j = 0; j < K; j++) ck_assert_double_eq_tol(p[j], ref[j], 1e-12);
    }
    /* composing one-step transitions gives the multistep one: Q(t|s) = prod alpha = abar_t/abar_s */
    double prod = 1;
    for (int i = 21; i <= 40; i++) prod *= 1 - betas[i];
    ck_assert_double_eq_tol(prod, abar[40] / abar[20], 1e-12);
}
END_TEST

/* The Gaussian reverse step's DDIM noise (ddim-eta; src/backend/diffusion.h gen_ddpm_sigma):
 *  - eta = 0 is the deterministic DDIM step, whatever z;
 *  - eta = 1 on a one-step pair (s = t - 1) is the DDPM posterior written out: mean
 *    beta_t sqrt(abar_s) / (1 - abar_t) x0 + (1 - abar_s) sqrt(alpha_t) / (1 - abar_t) x_t,
 *    variance beta-tilde = (1 - abar_s) / (1 - abar_t) beta_t (Ho et al. 2020 eqs. 6-7);
 *  - at any eta, with the true noise as the prediction, x_s keeps q(x_s | x0)'s moments:
 *    mean sqrt(abar_s) x0 and variance 1 - abar_s (Song et al. 2021's marginal property),
 *    over 200,000 draws of (noise, z) on a strided pair. */
START_TEST(test_gauss_step_eta) {
    enum { T = 1000 };
    double betas[T], abar[T], ab = 1;
    gen_ddpm_betas(betas, T, 1);
    for (int i = 0; i < T; i++) abar[i] = (ab *= 1 - betas[i]);
    int pairs[3][2] = {{500, 499}, {900, 899}, {10, 9}};
    for (int k = 0; k < 3; k++) {
        int t = pairs[k][0], s = pairs[k][1];
        double abt = abar[t], abs_ = abar[s], al = 1 - betas[t], xt = 0.7, eps = -0.4, z = 1.3;
        double x0 = (xt - sqrt(1 - abt) * eps) / sqrt(abt);
        double ddim = sqrt(abs_) * x0 + sqrt(1 - abs_) * eps;
        ck_assert_double_eq(gen_ddpm_sigma(0, abt, abs_), 0.0);
        ck_assert_double_eq_tol(gen_ddpm_gauss_step(xt, eps, abt, abs_, al, 0, 0, 0.0, z), ddim,
                                1e-6);
        double sig = gen_ddpm_sigma(1, abt, abs_);
        double bt = (1 - abs_) / (1 - abt) * betas[t];
        ck_assert_double_eq_tol(sig * sig, bt, 1e-12 + 1e-9 * bt);
        double mean = betas[t] * sqrt(abs_) / (1 - abt) * x0 + (1 - abs_) * sqrt(al) / (1 - abt) * xt;
        ck_assert_double_eq_tol(gen_ddpm_gauss_step(xt, eps, abt, abs_, al, 0, 0, sig, z),
                                mean + sqrt(bt) * z, 1e-5);
        ck_assert_double_eq(gen_ddpm_sigma(1, abt, 1.0), 0.0); /* the last step: none */
    }
    /* the marginal: x0 = 0.5, t = 800 -> s = 300, eta 0.5 and 1 */
    gen_rng r;
    gen_rng_init(&r, 11, 3);
    for (int e = 0; e < 2; e++) {
        double eta = e ? 1.0 : 0.5, abt = abar[800], abs_ = abar[300], x0 = 0.5;
        double sig = gen_ddpm_sigma(eta, abt, abs_), m1 = 0, m2 = 0;
        ck_assert(sig > 0.05 && sig * sig < 1 - abs_);
        const int n = 200000;
        for (int i = 0; i < n; i++) {
            double eps = gen_rng_normal(&r), z = gen_rng_normal(&r);
            double xt = sqrt(abt) * x0 + sqrt(1 - abt) * eps;
            double xs = gen_ddpm_gauss_step(xt, eps, abt, abs_, 1 - betas[800], 0, 0, sig, z);
            m1 += xs;
            m2 += xs * xs;
        }
        m1 /= n;
        m2 = m2 / n - m1 * m1;
        ck_assert_msg(fabs(m1 - sqrt(abs_) * x0) < 0.01, "eta %.1f: mean %.4f, want %.4f", eta, m1,
                      sqrt(abs_) * x0);
        ck_assert_msg(fabs(m2 / (1 - abs_) - 1) < 0.02, "eta %.1f: variance %.4f, want %.4f", eta,
                      m2, 1 - abs_);
    }
}
END_TEST

/* The strided sampler's timesteps (models/ddpm_steps.c): the stride floor(i T / S) the
 * sampler always used, from floor((S - 1) T / S) down to 0, strictly increasing; S = T is
 * every step. */
START_TEST(test_timesteps) {
    enum { T = 1000 };
    int tau[T], S_[4] = {5, 25, 100, 999};
    for (int k = 0; k < 4; k++) {
        int S = S_[k];
        ddpm_timesteps(T, S, tau);
        ck_assert_int_eq(tau[0], 0);
        ck_assert_int_eq(tau[S - 1], (int)((int64_t)(S - 1) * T / S));
        for (int i = 1; i < S; i++) ck_assert_int_gt(tau[i], tau[i - 1]);
        for (int i = 0; i < S; i++) ck_assert_int_eq(tau[i], (int)((int64_t)i * T / S));
    }
    ddpm_timesteps(T, T, tau);
    for (int i = 0; i < T; i++) ck_assert_int_eq(tau[i], i);
}
END_TEST

/* The second-order Gaussian step (`sample-order` 2; diffusion.h gen_ddpm_multistep_eps,
 * models/ddpm_steps.c ddpm_order2_k):
 *  - k = 0 leaves eps as it is, bit for bit (the step is DDIM's) and returns x0;
 *  - with k != 0, DDIM's step on the returned eps is DPM-Solver++(2M)'s update written out
 *    (Lu et al. 2022, Algorithm 2): (sigma_s / sigma_t) x_t - alpha_s (e^{-h} - 1) D,
 *    D = (1 + 1/(2r)) x0 - 1/(2r) x0_prev, r = h_prev / h;
 *    with k at most 1/2 (a step far longer in lambda than the previous one is capped);
 *  - on a toy case whose probability-flow ODE is known in closed form (x0 ~ N(mu, v), the
 *    exact noise prediction), the chain from tau[S-1] to the prediction at tau[0] lands
 *    closer to the ODE's solution with the second-order step than with DDIM's (by over 3x),
 *    and its error falls by over 3x when S doubles (DDIM's by about 2x, first order). */
static double toy_eps(double x, double ab, double mu, double v) {
    double x0 = mu + sqrt(ab) * v / (ab * v + 1 - ab) * (x - sqrt(ab) * mu); /* E[x0 | x_t] */
    return (x - sqrt(ab) * x0) / sqrt(1 - ab);
}
/* the chain's result from x at tau[S-1]: its last prediction x0 at tau[0] (what the step to
 * the data returns); the reference maps x by the exact flow to tau[0] and predicts there */
static double toy_chain(const double *abar, const int *tau, int S, int order2, double x,
                        double mu, double v) {
    double x0p = 0, x0;
    for (int i = S - 1; i >= 1; i--) {
        double abt = abar[tau[i]], abs_ = abar[tau[i - 1]];
        double k = order2 ? ddpm_order2_k(abar, tau, S, i) : 0.0;
        double e = gen_ddpm_multistep_eps(x, toy_eps(x, abt, mu, v), abt, k, x0p, &x0);
        x0p = x0;
        double Dx = (x - sqrt(1 - abt) * e) / sqrt(abt); /* gen_ddpm_gauss_step's DDIM, in double */
        x = sqrt(abs_) * Dx + sqrt(1 - abs_) * e;
    }
    double ab0 = abar[tau[0]];
    return (x - sqrt(1 - ab0) * toy_eps(x, ab0, mu, v)) / sqrt(ab0);
}
START_TEST(test_order2_step) {
    enum { T = 1000 };
    double betas[T], abar[T], ab = 1;
    gen_ddpm_betas(betas, T, 1);
    for (int i = 0; i < T; i++) abar[i] = (ab *= 1 - betas[i]);
    /* k = 0: DDIM's eps, bit for bit */
    double x0, xt = 0.7, eps = -0.4, abt = abar[600], abs_ = abar[560], abp = abar[640];
    ck_assert_double_eq(gen_ddpm_multistep_eps(xt, eps, abt, 0.0, 123.0, &x0), eps);
    ck_assert_double_eq_tol(x0, (xt - sqrt(1 - abt) * eps) / sqrt(abt), 1e-15);
    /* k != 0: the 2M update */
    double lam[3], ab3[3] = {abp, abt, abs_};
    for (int j = 0; j < 3; j++) lam[j] = 0.5 * log(ab3[j] / (1 - ab3[j]));
    double h = lam[2] - lam[1], hp = lam[1] - lam[0], r = hp / h, k = h / (2 * hp), x0prev = 0.9;
    double e2 = gen_ddpm_multistep_eps(xt, eps, abt, k, x0prev, &x0);
    double Dx = (1 + 1 / (2 * r)) * x0 - 1 / (2 * r) * x0prev;
    double want = sqrt((1 - abs_) / (1 - abt)) * xt - sqrt(abs_) * (exp(-h) - 1) * Dx;
    ck_assert_double_eq_tol(gen_ddpm_gauss_step(xt, e2, abt, abs_, 1 - betas[600], 0, 0, 0.0, 0),
                            want, 1e-6);
    int tau3[3] = {560, 600, 640};
    ck_assert_double_eq_tol(ddpm_order2_k(abar, tau3, 3, 1), k, 1e-12);
    ck_assert_double_eq(ddpm_order2_k(abar, tau3, 3, 0), 0.0);
    ck_assert_double_eq(ddpm_order2_k(abar, tau3, 3, 2), 0.0);
    int tau4[4] = {0, 100, 200, 300}; /* lambda: a step into t = 0 over 3x the one before */
    ck_assert_double_eq(ddpm_order2_k(abar, tau4, 4, 1), 0.5); /* capped */
    /* the toy ODE: x0 ~ N(0.8, 0.25), from 5 starting points */
    const double mu = 0.8, v = 0.25;
    double err[2][2] = {{0}};
    int S_[2] = {10, 20}, tau[20];
    for (int a = 0; a < 2; a++) {
        ddpm_timesteps(T, S_[a], tau);
        double at = abar[tau[S_[a] - 1]], a0 = abar[tau[0]];
        double mt = sqrt(at) * mu, sdt = sqrt(at * v + 1 - at), m0 = sqrt(a0) * mu,
               sd0 = sqrt(a0 * v + 1 - a0);
        for (int j = 0; j < 5; j++) {
            double x = -2.0 + j;
            double xr = m0 + sd0 / sdt * (x - mt); /* the exact flow to tau[0] */
            double ref = (xr - sqrt(1 - a0) * toy_eps(xr, a0, mu, v)) / sqrt(a0);
            for (int o = 0; o < 2; o++) {
                double d = fabs(toy_chain(abar, tau, S_[a], o, x, mu, v) - ref);
                err[a][o] = d > err[a][o] ? d : err[a][o];
            }
        }
    }
    printf("toy ODE, max error over 5 starts: S = 10: DDIM %.3e, 2M %.3e; S = 20: DDIM %.3e, "
           "2M %.3e\n", err[0][0], err[0][1], err[1][0], err[1][1]);
    ck_assert_msg(err[0][1] < err[0][0] / 3 && err[1][1] < err[1][0] / 3,
                  "the second-order step is not closer to the ODE than DDIM's");
    ck_assert_msg(err[0][1] / err[1][1] > 3.0, "2M's error did not fall like S^-2");
    ck_assert_msg(err[0][0] / err[1][0] > 1.5 && err[0][0] / err[1][0] < 3.0,
                  "DDIM's error did not fall like S^-1");
}
END_TEST

START_TEST(test_schedules) {
    enum { T = 1000 };
    double b[T];
    for (int cos_ = 0; cos_ < 2; cos_++) {
        gen_ddpm_betas(b, T, cos_);
        double ab = 1;
        for (int i = 0; i < T; i++) {
            ck_assert(b[i] > 0 && b[i] < 1);
            ab *= 1 - b[i];
            if (i == 0) ck_assert(ab > 0.99);
        }
        ck_assert_msg(ab < 1e-3, "alpha-bar_T %g", ab);
    }
}
END_TEST

/* ---- ddpm_loss ------------------------------------------------------------------------------- */

enum { LB = 4, LD = 9 };

typedef struct loss_case {
    float out[LB * LD], x0[LB * LD], xt[LB * LD], noise[LB * LD], coef[2 * LB], loss[2];
    gen_act_span spans[3];
} loss_case;

static double loss_of(void *u) {
    loss_case *c = u;
    be->ops->ddpm_loss(be, c->loss, NULL, c->out, c->x0, c->xt, c->noise, c->coef, LB, LD,
                       c->spans, 3, 0.3f, 0.7f);
    return (double)c->loss[0] + c->loss[1];
}

/* one-hot rows for the softmax spans from a seed */
static void onehots(float *x, const gen_act_span *spans, uint64_t seed) {
    gen_rng r;
    gen_rng_init(&r, seed, 5);
    for (int b = 0; b < LB; b++)
        for (int s = 0; s < 3; s++) {
            if (!spans[s].softmax) continue;
            int k = (int)gen_rng_below(&r, (uint64_t)spans[s].len);
            for (int j = 0; j < spans[s].len; j++) x[b * LD + spans[s].start + j] = j == k;
        }
}

START_TEST(test_ddpm_loss_grad) {
    loss_case c;
    c.spans[0] = (gen_act_span){0, 2, 0};
    c.spans[1] = (gen_act_span){2, 4, 1};
    c.spans[2] = (gen_act_span){6, 3, 1};
    tu_fill_uniform(c.out, LB * LD, -2, 2, 11);
    tu_fill_uniform(c.noise, LB * LD, -1, 1, 12);
    tu_fill_uniform(c.x0, LB * LD, -1, 1, 13);
    tu_fill_uniform(c.xt, LB * LD, -1, 1, 14);
    onehots(c.x0, c.spans, 1);
    onehots(c.xt, c.spans, 2);
    /* rows: t = 0 (c = 1), a late step, an early step, a strided pair */
    float coef[2 * LB] = {0.99f, 1.0f, 0.9f, 0.05f, 0.995f, 0.9f, 0.6f, 0.3f};
    memcpy(c.coef, coef, sizeof coef);
    float d[LB * LD];
    for (int i = 0; i < LB * LD; i++) d[i] = 1.0f;
    be->ops->ddpm_loss(be, c.loss, d, c.out, c.x0, c.xt, c.noise, c.coef, LB, LD, c.spans, 3, 0.3f,
                       0.7f);
    for (int i = 0; i < LB * LD; i++) d[i] -= 1.0f;
    tu_check_grad("ddpm_loss.dout", loss_of, &c, c.out, d, LB * LD, LB * LD, 1e-4, 1e-2);
    ck_assert(c.loss[0] > 0 && c.loss[1] > 0);
    /* a perfect prediction of x0 (logits +-30) has (almost) zero KL at every t */
    for (int b = 0; b < LB; b++)
        for (int s = 1; s < 3; s++)
            for (int j = 0; j < c.spans[s].len; j++) {
                int i = b * LD + c.spans[s].start + j;
                c.out[i] = c.x0[i] > 0.5f ? 30.0f : -30.0f;
            }
    loss_of(&c);
    ck_assert_msg(c.loss[1] < 1e-6, "KL of a perfect prediction %g", c.loss[1]);
}
END_TEST

/* ---- the whole denoiser ----------------------------------------------------------------------- */

typedef struct net_case {
    ddpm *d;
} net_case;

static double net_loss(void *u) {
    ddpm *d = ((net_case *)u)->d;
    return ddpm_forward_backward(d, d->B, 0.2f, 0.4f, 0);
}

/* ---- the class-label embedding -------------------------------------------------------------- */

typedef struct lab_case {
    float emb[4 * 5], out[6 * 5], R[6 * 5];
    int32_t y[6];
} lab_case;

static double lab_loss(void *u) {
    lab_case *c = u;
    be->ops->label_embed(be, c->out, c->emb, c->y, 6, 5);
    double l = 0;
    for (int i = 0; i < 30; i++) l += (double)c->out[i] * c->out[i] * c->R[i];
    return l;
}

START_TEST(test_label_embed) {
    lab_case c = {.y = {2, 0, 2, 3, 1, 2}};
    tu_fill_uniform(c.emb, 20, -1, 1, 31);
    tu_fill_uniform(c.R, 30, -1, 1, 32);
    lab_loss(&c);
    for (int b = 0; b < 6; b++) /* the forward: row b is embedding row y[b] */
        for (int j = 0; j < 5; j++) ck_assert(c.out[b * 5 + j] == c.emb[c.y[b] * 5 + j]);
    float dout[30], g[20];
    for (int i = 0; i < 30; i++) dout[i] = 2.0f * c.out[i] * c.R[i];
    for (int i = 0; i < 20; i++) g[i] = 0.25f; /* += semantics */
    be->ops->label_embed_backward(be, g, dout, c.y, 6, 4, 5);
    for (int i = 0; i < 20; i++) g[i] -= 0.25f;
    tu_check_grad("label_embed.demb", lab_loss, &c, c.emb, g, 20, 20, 1e-4, 1e-3);
}
END_TEST

static void grad_network(int K) {
    gen_act_span spans[4] = {{0, 1, 0}, {1, 3, 1}, {4, 1, 0}, {5, 4, 1}};
    ddpm_config cfg = {5, 9, 6, 7, 2, 1, K, 0, 0};
    ddpm *d;
    ck_assert_int_eq(ddpm_create(ctx, be, &cfg, spans, 4, &d), GENESIS_OK);
    ck_assert_int_eq(d->nnum, 2);
    ck_assert_int_eq(d->ncat, 2);
    ck_assert_int_eq(ddpm_init_weights(d, 3), GENESIS_OK);
    int B = 5, D = 9;
    tu_fill_uniform(d->act.xt, (size_t)B * D, -1, 1, 21);
    tu_fill_uniform(d->act.x0, (size_t)B * D, -1, 1, 22);
    tu_fill_uniform(d->act.noise, (size_t)B * D, -1, 1, 23);
    gen_rng r;
    gen_rng_init(&r, 7, 1);
    for (int b = 0; b < B; b++) {
        for (int s = 1; s < 4; s += 2) {
            int k0 = (int)gen_rng_below(&r, (uint64_t)spans[s].len), kt = (int)gen_rng_below(&r, (uint64_t)spans[s].len);
            for (int j = 0; j < spans[s].len; j++) {
                d->act.x0[b * D + spans[s].start + j] = j == k0;
                d->act.xt[b * D + spans[s].start + j] = j == kt;
            }
        }
        d->t[b] = (int32_t)(b * 200);
        if (K) d->y[b] = (int32_t)((b * 2) % K);
        d->act.coef[2 * b] = 0.95f;
        d->act.coef[2 * b + 1] = b ? 0.5f : 1.0f;
    }
    ddpm_forward_backward(d, B, 0.2f, 0.4f, 1);
    float *g = malloc(d->count * sizeof(float));
    memcpy(g, d->grads, d->count * sizeof(float));
    const float *pt[] = {d->p.tW1, d->p.tb1, d->p.tW2, d->p.tb2, d->p.pW, d->p.pb, d->p.W[0],
                         d->p.b[0], d->p.W[1], d->p.b[1], d->p.oW, d->p.ob, d->p.lemb};
    static const char *names[] = {"time.W1", "time.b1", "time.W2", "time.b2", "proj.W", "proj.b",
                                  "mlp.W1", "mlp.b1", "mlp.W2", "mlp.b2", "out.W", "out.b",
                                  "label.emb"};
    size_t sz[] = {36, 6, 36, 6, 54, 6, 42, 7, 49, 7, 63, 9, (size_t)K * 6};
    size_t tot = 0;
    for (int k = 0; k < (K ? 13 : 12); k++) {
        size_t off = (size_t)(pt[k] - d->params);
        tu_check_grad(names[k], net_loss, &(net_case){d}, d->params + off, g + off, sz[k], 12, 2e-3, 3e-2);
        tot += sz[k];
    }
    ck_assert_uint_eq(tot, d->count); /* every tensor checked */
    free(g);
    ddpm_free(d);
}

START_TEST(test_grad_ddpm_network) { grad_network(0); }
END_TEST

START_TEST(test_grad_ddpm_network_conditional) { grad_network(3); }
END_TEST

/* The moving average after n AdamW steps, p_0 the initial weights and p_i those after step i:
 * ema_n = decay^n p_0 + sum_{i=1..n} (1 - decay) decay^(n-i) p_i. */
START_TEST(test_ema_closed_form) {
    gen_act_span spans[2] = {{0, 2, 0}, {2, 3, 1}};
    ddpm_config cfg = {4, 5, 4, 6, 1, 1, 2, 1, 0};
    ddpm *d;
    ck_assert_int_eq(ddpm_create(ctx, be, &cfg, spans, 2, &d), GENESIS_OK);
    ck_assert_int_eq(ddpm_init_weights(d, 9), GENESIS_OK);
    ck_assert(memcmp(d->ema, d->params, d->count * sizeof(float)) == 0); /* starts at p_0 */
    enum { STEPS = 6 };
    const double decay = 0.8;
    size_t n = d->count;
    double *want = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) want[i] = pow(decay, STEPS) * d->params[i];
    tu_fill_uniform(d->act.xt, 20, -1, 1, 41);
    tu_fill_uniform(d->act.x0, 20, -1, 1, 42);
    tu_fill_uniform(d->act.noise, 20, -1, 1, 43);
    for (int b = 0; b < 4; b++) {
        for (int j = 2; j < 5; j++) {
            d->act.x0[b * 5 + j] = j == 2 + b % 3;
            d->act.xt[b * 5 + j] = j == 2 + (b + 1) % 3;
        }
        d->t[b] = 100 * b;
        d->y[b] = b % 2;
        d->act.coef[2 * b] = 0.9f;
        d->act.coef[2 * b + 1] = 0.5f;
    }
    for (int k = 1; k <= STEPS; k++) {
        ddpm_forward_backward(d, 4, 0.1f, 0.1f, 1);
        ddpm_adamw(d, 1e-2f, 1e-4f);
        ddpm_ema(d, (float)decay);
        for (size_t i = 0; i < n; i++) want[i] += (1 - decay) * pow(decay, STEPS - k) * d->params[i];
    }
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(d->ema[i] - want[i]) / (1e-3 + fabs(want[i])));
    ck_assert_msg(worst < 1e-5, "EMA differs from its closed form by %g (relative)", worst);
    /* and it differs from the trained weights (the average lags them) */
    ck_assert(memcmp(d->ema, d->params, n * sizeof(float)) != 0);
    free(want);
    ddpm_free(d);
}
END_TEST

START_TEST(test_scale) {
    float x[7] = {1, -2, 3, 0, 5, -6, 7};
    be->ops->scale(be, x, 7, 0.5f);
    ck_assert(x[0] == 0.5f && x[1] == -1.0f && x[6] == 3.5f);
}
END_TEST

/* ---- the sampler's float exp and multinomial draw (docs/ddpm.md §5) ------------------------ */

/* gen_expf_neg against double exp over every 61st float of (-87, 0] (18 million; the whole
 * range, 1.1e9 floats, measured 1.21 ulp at most), and its ends: 1 at 0, 0 at and below
 * -87, at -inf and at NaN. The ulp is the float spacing at the exact value. */
START_TEST(test_expf_neg) {
    double worst = 0;
    float wx = 0;
    long n = 0;
    uint32_t hi = gen_f32_bits(GEN_EXPF_NEG_MIN);
    for (uint32_t b = 0x80000000u; b < hi; b += 61, n++) {
        float x = gen_bits_f32(b), f = gen_expf_neg(x);
        double ex = exp((double)x);
        int e;
        frexp(ex, &e);
        double ulps = fabs((double)f - ex) / ldexp(1.0, e - 24);
        if (ulps > worst) worst = ulps, wx = x;
    }
    printf("expf_neg: %ld points of (-87, 0], at most %.3f ulp (at %.9g)\n", n, worst, wx);
    ck_assert_msg(worst <= 1.5, "expf_neg: %.3f ulp at %.9g", worst, wx);
    ck_assert_int_ge(n, 18000000);
    ck_assert_float_eq(gen_expf_neg(0.0f), 1.0f);
    ck_assert_float_eq(gen_expf_neg(-0.0f), 1.0f);
    ck_assert_float_eq(gen_expf_neg(-87.0f), 0.0f);
    ck_assert_float_eq(gen_expf_neg(-1e30f), 0.0f);
    ck_assert_float_eq(gen_expf_neg(-INFINITY), 0.0f);
    ck_assert_float_eq(gen_expf_neg(NAN), 0.0f);
    ck_assert(gen_expf_neg(-86.99f) > 0.0f && isnormal(gen_expf_neg(-86.99f)));
}
END_TEST

/* The draw of gen_ddpm_mn_draw over spans of width 1 to 700 (a one-hot x_t at j, or none),
 * logits spread over [-30, 30] or a wide max (some exps below the float range), on a strided
 * pair, a one-step pair and the last step (c = 1, no uniform part):
 *   - the normaliser ua + a (c sm_j + uc) (docs/ddpm.md §5) equals gen_mn_posterior's sum;
 *   - over NU uniforms u = (i + 1/2) / NU the share of draws of each category is the
 *     posterior's probability (computed with double exp) to within 1/NU + 1e-6 at each
 *     k, and the cumulative shares to within 2/NU (the inversion draws q exactly up to
 *     rounding);
 *   - the draws with the exps kept in scratch and recomputed (the CUDA kernel's way) agree
 *     (at every 25th u). */
START_TEST(test_mn_draw) {
    enum { NU = 5000, KMAX = 700 };
    static float lg[KMAX], xt[KMAX], scratch[KMAX];
    static double sm[KMAX], q[KMAX], cnt[KMAX];
    const int widths[] = {1, 2, 3, 7, 64, 700};
    const double ac[3][2] = {{0.3, 0.2}, {0.995, 0.6}, {0.98, 1.0}}; /* (a, c) */
    int cases = 0;
    for (int wi = 0; wi < 6; wi++)
        for (int p = 0; p < 3; p++)
            for (int v = 0; v < 3; v++) {
                int K = widths[wi], j = v == 2 ? -1 : (v ? K - 1 : K / 3);
                double a = ac[p][0], c = ac[p][1];
                tu_fill_uniform(lg, (size_t)K, -30, 30, (uint64_t)(100 + 7 * wi + 3 * p + v));
                if (v == 1 && K > 2) lg[1] = 120.0f; /* most exps underflow */
                double mx = lg[0], z = 0;
                for (int k = 0; k < K; k++) mx = lg[k] > mx ? lg[k] : mx;
                for (int k = 0; k < K; k++) z += (sm[k] = exp(lg[k] - mx));
                for (int k = 0; k < K; k++) {
                    sm[k] /= z;
                    xt[k] = k == j ? 1.0f : 0.0f;
                }
                double W = gen_mn_posterior(q, xt, sm, K, a, c), ua = (1 - a) / K;
                double Wa = ua + (j >= 0 ? a * (c * sm[j] + (1 - c) / K) : 0.0);
                ck_assert_msg(fabs(W - Wa) <= 1e-12 * W, "K %d: normaliser %.17g, analytic %.17g",
                              K, W, Wa);
                memset(cnt, 0, sizeof cnt);
                for (int i = 0; i < NU; i++) {
                    double u = (i + 0.5) / NU;
                    int k1 = gen_ddpm_mn_draw(xt, lg, K, a, c, u, scratch);
                    if (i % 25 == 0)
                        ck_assert_int_eq(gen_ddpm_mn_draw(xt, lg, K, a, c, u, NULL), k1);
                    ck_assert(k1 >= 0 && k1 < K);
                    cnt[k1] += 1.0 / NU;
                }
                double cq = 0, cc = 0;
                for (int k = 0; k < K; k++) {
                    ck_assert_msg(fabs(cnt[k] - q[k]) <= 1.0 / NU + 1e-6,
                                  "K %d a %g c %g j %d: category %d drawn %.6f, posterior %.6f", K,
                                  a, c, j, k, cnt[k], q[k]);
                    cq += q[k];
                    cc += cnt[k];
                    ck_assert(fabs(cc - cq) <= 2.0 / NU);
                }
                cases++;
            }
    ck_assert_int_eq(cases, 54);
}
END_TEST

/* The sampling forward (shared_t: one time embedding and MLP, added to the projection's bias)
 * against the per-row forward when every row is at the same step, unconditional and with a
 * label embedding: the same outputs up to float rounding. */
static void shared_t_forward(int K) {
    gen_act_span spans[4] = {{0, 2, 0}, {2, 3, 1}, {5, 1, 0}, {6, 3, 1}};
    ddpm_config cfg = {6, 9, 8, 7, 2, 0, K, 0, 0};
    ddpm *d;
    ck_assert_int_eq(ddpm_create(ctx, be, &cfg, spans, 4, &d), GENESIS_OK);
    ck_assert_int_eq(ddpm_init_weights(d, 5), GENESIS_OK);
    int B = 6, D = 9;
    float ref[6 * 9];
    for (int step = 0; step < 3; step++) {
        tu_fill_uniform(d->act.xt, (size_t)B * D, -1, 1, (uint64_t)(31 + step));
        for (int b = 0; b < B; b++) {
            d->t[b] = (int32_t)(step * 411 + 17);
            if (K) d->y[b] = (int32_t)(b % (K + 1)) - 1; /* -1: a hidden label */
        }
        d->shared_t = 0;
        ddpm_forward(d, B);
        memcpy(ref, d->act.out, sizeof ref);
        d->shared_t = 1;
        ddpm_forward(d, B);
        for (int i = 0; i < B * D; i++)
            ck_assert_msg(fabs(d->act.out[i] - ref[i]) <= 1e-5 + 1e-5 * fabs(ref[i]),
                          "K %d t %d: out[%d] %.9g, per-row %.9g", K, d->t[0], i, d->act.out[i],
                          ref[i]);
    }
    ddpm_free(d);
}
START_TEST(test_shared_t_forward) {
    shared_t_forward(0);
    shared_t_forward(3);
}
END_TEST


int main(void) {
    Suite *s = suite_create("ddpm_grad");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60); /* the draw's and the exp's sweeps take a second or two */
    tcase_add_test(tc, test_silu);
    tcase_add_test(tc, test_timestep_embed);
    tcase_add_test(tc, test_multinomial_posterior);
    tcase_add_test(tc, test_schedules);
    tcase_add_test(tc, test_gauss_step_eta);
    tcase_add_test(tc, test_ddpm_loss_grad);
    tcase_add_test(tc, test_label_embed);
    tcase_add_test(tc, test_grad_ddpm_network);
    tcase_add_test(tc, test_grad_ddpm_network_conditional);
    tcase_add_test(tc, test_ema_closed_form);
    tcase_add_test(tc, test_scale);
    tcase_add_test(tc, test_expf_neg);
    tcase_add_test(tc, test_mn_draw);
    tcase_add_test(tc, test_shared_t_forward);
    tcase_add_test(tc, test_timesteps);
    tcase_add_test(tc, test_order2_step);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
