/*
 * tests/parity/ddpm_noise.c — the parity cases of the backend family `ddpm_noise` (backend.h;
 * CPU: src/backend/cpu/ddpm_noise.c, CUDA: cuda/ddpm_noise.cu): DDPM's forward process for a
 * training batch. The timesteps and the categorical draws must agree exactly (t compared bit
 * for bit, the one-hots are 0 or 1); the Gaussian noise and x_t within fill_normal's
 * tolerance (logf/sinf/cosf of the Box-Muller pair may differ by an ulp).
 */
#include "parity.h"
#include "ddpm_noise.h"

/* ddpm_noise: B layout T cosine row0. x0: alphas in [-1, 1] at tanh positions, a random
 * one-hot per softmax span; xt and noise pre-filled with random values (positions outside
 * the spans must keep them); sched: the schedule of T steps, alpha_t then alpha-bar_t. */
static void su_ddpm_noise(pt_env *e) {
    pt_layout(e, D(1));
    int B = D(0), W = e->W, T = D(2);
    size_t n = (size_t)B * W;
    int x0 = pt_add(e, "x0", n, PT_OUT, -1, 1);
    pt_add(e, "xt", n, PT_OUT, -1, 1);
    pt_add(e, "noise", n, PT_OUT, -1, 1);
    pt_add(e, "coef", (size_t)B * 2, PT_OUT, -1, 1);
    int ti = pt_add(e, "t", (size_t)B, PT_OUT, -1, 1);
    e->b[ti].bits = 1;
    int si = pt_add(e, "sched", 2 * (size_t)T * 2, PT_IN, -1, 1); /* 2T doubles */
    double *sc = (double *)(void *)pt_host(e, si), ab = 1;
    gen_ddpm_betas(sc, T, D(3));
    for (int i = 0; i < T; i++) {
        sc[i] = 1.0 - sc[i];
        ab *= sc[i];
        sc[T + i] = ab;
    }
    float *x = pt_host(e, x0);
    gen_rng r;
    gen_rng_init(&r, 53 + (uint64_t)e->idx, 3);
    for (int b = 0; b < B; b++)
        for (int s = 0; s < e->nspans; s++) {
            const gen_act_span *sp = &e->spans[s];
            if (!sp->softmax) continue;
            float *xr = x + (size_t)b * W + sp->start;
            for (int j = 0; j < sp->len; j++) xr[j] = 0.0f;
            xr[gen_rng_below(&r, (uint64_t)sp->len)] = 1.0f;
        }
}

static void ru_ddpm_noise(pt_env *e, gen_backend *be, int k) {
    OPS(be)->ddpm_noise(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), PI(e, k, 4),
                        (const double *)(const void *)P(e, k, 5), D(2), D(0), e->W, e->spans,
                        e->nspans, 1.6f, 11, GEN_STREAM_NOISE + (1u << 8), 0,
                        (uint64_t)D(4) * 1000003u);
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_DDPM_NOISE = {"ddpm_noise", "B layout T cosine row0", 2e-6, 2e-6,
                                   su_ddpm_noise, ru_ddpm_noise};

static const pt_case cases[] = {
    {&O_DDPM_NOISE, {1, 0, 2, 0, 0}},      {&O_DDPM_NOISE, {1, 1, 1000, 1, 5}},
    {&O_DDPM_NOISE, {17, 2, 1000, 1, 0}},  {&O_DDPM_NOISE, {257, 2, 50, 0, 3}},
    {&O_DDPM_NOISE, {33, 3, 1000, 1, 77}}, {&O_DDPM_NOISE, {500, 4, 100, 1, 2}},
    {&O_DDPM_NOISE, {1025, 2, 1000, 1, 1000001}},
};

const pt_family pt_family_ddpm_noise = {"ddpm_noise", cases, (int)(sizeof cases / sizeof cases[0])};
