/*
 * tests/parity/vae.c — the parity cases of the backend family `vae` (backend.h; CPU:
 * src/backend/cpu/vae.c, CUDA: cuda/vae.cu): reparam_forward/backward, reparam_backward_bias,
 * kl_normal, tvae_recon.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* reparameterisation, KL: n (, with grads) */
static void su_rep_f(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "z", n, PT_OUT, -1, 1);
    pt_add(e, "std", n, PT_OUT, -1, 1);
    pt_add(e, "mu", n, PT_IN, -2, 2);
    int lv = pt_add(e, "logvar", n, PT_IN, -4, 2);
    pt_add(e, "eps", n, PT_IN, -3, 3);
    if (D(1)) pt_specials(e, lv);
}

static void ru_rep_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->reparam_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), P(e, k, 4),
                             (size_t)D(0));
}

static void su_rep_b(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "dmu", n, PT_ACC, -1, 1);
    pt_add(e, "dlogvar", n, PT_ACC, -1, 1);
    pt_add(e, "dz", n, PT_IN, -1, 1);
    pt_add(e, "eps", n, PT_IN, -3, 3);
    pt_add(e, "std", n, PT_IN, 0.1f, 3);
}

static void ru_rep_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->reparam_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), P(e, k, 4),
                              (size_t)D(0));
}

/* reparam_backward_bias: B, e */
static void su_rep_bb(pt_env *e) {
    size_t n = (size_t)D(0) * D(1);
    pt_add(e, "dmu", n, PT_ACC, -1, 1);
    pt_add(e, "dlogvar", n, PT_ACC, -1, 1);
    pt_add(e, "dmb", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "dvb", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "dz", n, PT_IN, -1, 1);
    pt_add(e, "eps", n, PT_IN, -3, 3);
    pt_add(e, "std", n, PT_IN, 0.1f, 3);
}

static void ru_rep_bb(pt_env *e, gen_backend *be, int k) {
    OPS(be)->reparam_backward_bias(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                   P(e, k, 4), P(e, k, 5), P(e, k, 6), D(0), D(1));
}

static void su_kl(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "loss", 1, PT_OUT, -1, 1);
    pt_add(e, "dmu", n, PT_ACC, -1, 1);
    pt_add(e, "dlogvar", n, PT_ACC, -1, 1);
    pt_add(e, "mu", n, PT_IN, -2, 2);
    pt_add(e, "logvar", n, PT_IN, -4, 2);
}

static void ru_kl(pt_env *e, gen_backend *be, int k) {
    OPS(be)->kl_normal(be, P(e, k, 0), D(1) ? P(e, k, 1) : NULL, D(1) ? P(e, k, 2) : NULL,
                       P(e, k, 3), P(e, k, 4), (size_t)D(0), 1.0f / 37);
}

/* tvae_recon: B, layout, with grads, per-mode ; x encoded-like (one-hot in softmax spans).
 * per-mode 1: every tanh span of len 1 followed by its softmax span gets one alpha per slot
 * in r (docs/algorithms.md "One alpha per mode"), and r's rows are padded by 2. */
static void su_recon(pt_env *e) {
    pt_layout(e, D(1));
    int B = D(0), W = e->W, shift = 0;
    for (int s = 0; s < e->nspans; s++) {
        const gen_act_span *sp = &e->spans[s];
        e->rspans[s] = (gen_recon_span){sp->start, sp->len, sp->softmax, sp->start + shift, 0};
        if (D(3) && !sp->softmax && sp->len == 1 && s + 1 < e->nspans && e->spans[s + 1].softmax &&
            e->spans[s + 1].start == sp->start + 1 && e->spans[s + 1].len > 1) {
            e->rspans[s].modes = e->spans[s + 1].len;
            shift += e->spans[s + 1].len - 1;
        }
    }
    e->ldr = W + shift + (D(3) ? 2 : 0);
    pt_add(e, "loss", 1, PT_OUT, -1, 1);
    pt_add(e, "dr", (size_t)B * e->ldr, PT_ACC, -1, 1);
    pt_add(e, "dsigma", (size_t)W, PT_ACC, -1, 1);
    pt_add(e, "r", (size_t)B * e->ldr, PT_IN, -3, 3);
    int xi = pt_add(e, "x", (size_t)B * W, PT_IN, -0.99f, 0.99f);
    pt_add(e, "sigma", (size_t)W, PT_IN, 0.01f, 1);
    float *x = pt_host(e, xi);
    gen_rng r;
    gen_rng_init(&r, 77 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++)
        for (int s = 0; s < e->nspans; s++) {
            const gen_act_span *sp = &e->spans[s];
            if (!sp->softmax) continue;
            float *xr = x + (size_t)b * W + sp->start;
            for (int j = 0; j < sp->len; j++) xr[j] = 0.0f;
            xr[gen_rng_below(&r, (uint64_t)sp->len)] = 1.0f;
        }
}

static void ru_recon(pt_env *e, gen_backend *be, int k) {
    int g = D(2);
    OPS(be)->tvae_recon(be, P(e, k, 0), g ? P(e, k, 1) : NULL, g ? P(e, k, 2) : NULL, P(e, k, 3),
                        e->ldr, P(e, k, 4), P(e, k, 5), D(0), e->W, e->rspans, e->nspans,
                        2.0f / D(0));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

/* the bias sums: B values, in float in another order */
static const pt_op O_REP_BB = {"reparam_backward_bias", "B e", 2e-5, 2e-5, su_rep_bb, ru_rep_bb};
static const pt_op O_REP_F = {"reparam_forward", "n specials", 1e-6, 1e-6, su_rep_f, ru_rep_f};
static const pt_op O_REP_B = {"reparam_backward", "n", 1e-6, 1e-6, su_rep_b, ru_rep_b};
static const pt_op O_KL = {"kl_normal", "n grads", 1e-5, 1e-5, su_kl, ru_kl};
static const pt_op O_RECON = {"tvae_recon", "B layout grads per-mode", 1e-5, 1e-5, su_recon,
                              ru_recon};

static const pt_case cases[] = {
    {&O_REP_BB, {1, 1}}, {&O_REP_BB, {500, 128}}, {&O_REP_BB, {17, 33}}, {&O_REP_BB, {1025, 3}},
    /* TVAE */
    {&O_REP_F, {1, 0}}, {&O_REP_F, {1025, 0}}, {&O_REP_F, {257, 1}},
    {&O_REP_B, {3, 0}}, {&O_REP_B, {65539, 0}},
    {&O_KL, {1, 1}}, {&O_KL, {17, 0}}, {&O_KL, {1025, 1}}, {&O_KL, {65539, 1}},
    {&O_RECON, {1, 0, 1}}, {&O_RECON, {3, 2, 1}}, {&O_RECON, {17, 2, 0}}, {&O_RECON, {257, 3, 1}},
    {&O_RECON, {500, 2, 1}}, {&O_RECON, {1025, 0, 1}},
    {&O_RECON, {1, 2, 1, 1}}, {&O_RECON, {3, 2, 1, 1}}, {&O_RECON, {17, 2, 0, 1}},
    {&O_RECON, {257, 2, 1, 1}}, {&O_RECON, {1025, 2, 1, 1}}, {&O_RECON, {500, 4, 1, 1}},
};

const pt_family pt_family_vae = {"vae", cases, (int)(sizeof cases / sizeof cases[0])};
