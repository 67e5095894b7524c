/*
 * tests/parity/diffusion.c — the parity cases of the backend family `diffusion` (backend.h; CPU:
 * src/backend/cpu/diffusion.c, CUDA: cuda/diffusion.cu): silu, timestep/label embeddings,
 * ddpm_loss, scale, ema_update, ddpm_sample_init, ddpm_reverse_step.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* DDPM (docs/ddpm.md). silu_forward: n specials (su_ew2); silu_backward: n specials */
static void ru_silu_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->silu_forward(be, P(e, k, 0), P(e, k, 1), (size_t)D(0));
}

static void su_silu_b(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "dinp", n, PT_ACC, -1, 1);
    pt_add(e, "dout", n, PT_IN, -1, 1);
    int i = pt_add(e, "inp", n, PT_IN, -6, 6);
    if (D(1)) pt_specials(e, i);
}

static void ru_silu_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->silu_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0));
}

/* scale: n specials */
static void su_scale(pt_env *e) {
    int i = pt_add(e, "x", (size_t)D(0), PT_OUT, -3, 3);
    if (D(1)) pt_specials(e, i);
}

static void ru_scale(pt_env *e, gen_backend *be, int k) {
    OPS(be)->scale(be, P(e, k, 0), (size_t)D(0), 0.9996f);
}

/* timestep_embed: B dim (t in [0, 1000)) */
static void su_temb(pt_env *e) {
    pt_add(e, "out", (size_t)D(0) * D(1), PT_OUT, -1, 1);
    int32_t *t = pt_add_int(e, "t", (size_t)D(0));
    for (int b = 0; b < D(0); b++) t[b] = (int32_t)((b * 389 + 7 * e->idx) % 1000);
}

static void ru_temb(pt_env *e, gen_backend *be, int k) {
    OPS(be)->timestep_embed(be, P(e, k, 0), PI(e, k, 1), D(0), D(1));
}

/* label_embed: B K dim (labels spread over all K classes) */
static void su_lemb(pt_env *e) {
    pt_add(e, "out", (size_t)D(0) * D(2), PT_OUT, -1, 1);
    pt_add(e, "emb", (size_t)D(1) * D(2), PT_IN, -2, 2);
    int32_t *y = pt_add_int(e, "y", (size_t)D(0));
    for (int b = 0; b < D(0); b++) /* every fourth label hidden (-1: zeros) */
        y[b] = b % 4 == 3 ? -1 : (int32_t)((b * 7 + e->idx) % D(1));
}

static void ru_lemb(pt_env *e, gen_backend *be, int k) {
    OPS(be)->label_embed(be, P(e, k, 0), P(e, k, 1), PI(e, k, 2), D(0), D(2));
}

/* label_embed_backward: B K dim (some classes without rows when B < K) */
static void su_lemb_b(pt_env *e) {
    pt_add(e, "demb", (size_t)D(1) * D(2), PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)D(0) * D(2), PT_IN, -2, 2);
    int32_t *y = pt_add_int(e, "y", (size_t)D(0));
    for (int b = 0; b < D(0); b++) /* every fourth label hidden (-1: no class row) */
        y[b] = b % 4 == 2 ? -1 : (int32_t)((b * 5 + 3 * e->idx) % D(1));
}

static void ru_lemb_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->label_embed_backward(be, P(e, k, 0), P(e, k, 1), PI(e, k, 2), D(0), D(1), D(2));
}

/* ema_update: n specials */
static void su_ema(pt_env *e) {
    pt_add(e, "ema", (size_t)D(0), PT_OUT, -3, 3);
    int i = pt_add(e, "x", (size_t)D(0), PT_IN, -3, 3);
    if (D(1)) pt_specials(e, i);
}

static void ru_ema(pt_env *e, gen_backend *be, int k) {
    OPS(be)->ema_update(be, P(e, k, 0), P(e, k, 1), (size_t)D(0), 0.999f);
}

/* ddpm_loss: B layout (not 3: its 1025-wide span is wider than GEN_DDPM_MAXK) grads; x0 and xt one-hot in softmax spans, coef (a, c) per row with
 * every third row at t = 0 (c = 1) */
static void su_ddpm_loss(pt_env *e) {
    pt_layout(e, D(1));
    int B = D(0), W = e->W;
    pt_add(e, "loss", 2, PT_OUT, -1, 1);
    pt_add(e, "dout", (size_t)B * W, PT_ACC, -1, 1);
    pt_add(e, "out", (size_t)B * W, PT_IN, -4, 4);
    int x0 = pt_add(e, "x0", (size_t)B * W, PT_IN, -3, 3);
    int xt = pt_add(e, "xt", (size_t)B * W, PT_IN, -3, 3);
    pt_add(e, "noise", (size_t)B * W, PT_IN, -2, 2);
    int cf = pt_add(e, "coef", (size_t)B * 2, PT_IN, 0.01f, 0.999f);
    gen_rng r;
    gen_rng_init(&r, 91 + (uint64_t)e->idx, 1);
    for (int q = 0; q < 2; q++) {
        float *x = pt_host(e, q ? xt : x0);
        for (int b = 0; b < B; b++)
            for (int s = 0; s < e->nspans; s++) {
                const gen_act_span *sp = &e->spans[s];
                if (!sp->softmax) continue;
                float *xr = x + (size_t)b * W + sp->start;
                for (int j = 0; j < sp->len; j++) xr[j] = 0.0f;
                xr[gen_rng_below(&r, (uint64_t)sp->len)] = 1.0f;
            }
    }
    float *c = pt_host(e, cf);
    for (int b = 0; b < B; b += 3) c[2 * b + 1] = 1.0f;
}

static void ru_ddpm_loss(pt_env *e, gen_backend *be, int k) {
    OPS(be)->ddpm_loss(be, P(e, k, 0), D(2) ? P(e, k, 1) : NULL, P(e, k, 2), P(e, k, 3),
                       P(e, k, 4), P(e, k, 5), P(e, k, 6), D(0), e->W, e->spans, e->nspans,
                       1.0f / (3 * D(0)), 1000.0f / (4 * D(0)));
}

/* The DDPM sampler's operations (docs/ddpm.md §5). x_t of B rows in layout e->spans: tanh
 * positions in [-3, 3], a random one-hot per softmax span (positions outside the spans keep
 * the buffer's random values). */
static void pt_ddpm_xt(pt_env *e, int i, int B) {
    float *x = pt_host(e, i);
    gen_rng r;
    gen_rng_init(&r, 77 + (uint64_t)e->idx, 2);
    for (int b = 0; b < B; b++)
        for (int s = 0; s < e->nspans; s++) {
            const gen_act_span *sp = &e->spans[s];
            float *xr = x + (size_t)b * e->W + sp->start;
            if (!sp->softmax) {
                for (int j = 0; j < sp->len; j++) xr[j] = (float)(6.0 * gen_rng_uniform(&r) - 3.0);
                continue;
            }
            for (int j = 0; j < sp->len; j++) xr[j] = 0.0f;
            xr[gen_rng_below(&r, (uint64_t)sp->len)] = 1.0f;
        }
}

/* t (B timesteps) as an output compared bit for bit, pre-filled with random words */
static void pt_ddpm_t(pt_env *e, int B) {
    int i = pt_add(e, "t", (size_t)B, PT_OUT, -1, 1);
    e->b[i].bits = 1;
}

/* ddpm_sample_init: B layout with_t offset */
static void su_ddpm_init(pt_env *e) {
    pt_layout(e, D(1));
    pt_add(e, "x", (size_t)D(0) * e->W, PT_OUT, -1, 1);
    pt_ddpm_t(e, D(0));
}

static void ru_ddpm_init(pt_env *e, gen_backend *be, int k) {
    OPS(be)->ddpm_sample_init(be, P(e, k, 0), D(2) ? PI(e, k, 1) : NULL, 999 - D(0) % 7, D(0),
                              e->W, e->spans, e->nspans, 42, GEN_STREAM_SAMPLE + (1u << 8),
                              gen_ddpm_op_offset((uint64_t)D(3)), (uint64_t)D(3) * 1000003u);
}

/* ddpm_reverse_step: B layout mode (0 strided DDIM, 1 ancestral, 2 strided DDIM with
 * eta = 0.7: noise drawn at tanh positions, 3 second order (x0prev read and written, k2 =
 * 0.6), 4 second order's first step (k2 = 0: x0prev written only)) last in_place offset. In
 * place: one buffer "x" holds x_t and receives x_s (positions outside the spans must keep
 * their values); else "xout" (random) from the input "xt". eps in [-4, 4]: the noise
 * prediction at tanh positions, logits at softmax spans. */
static void su_ddpm_rev(pt_env *e) {
    pt_layout(e, D(1));
    size_t n = (size_t)D(0) * e->W;
    int x = pt_add(e, D(4) ? "x" : "xout", n, PT_OUT, -1, 1);
    pt_ddpm_t(e, D(0));
    if (!D(4)) x = pt_add(e, "xt", n, PT_IN, -1, 1);
    pt_ddpm_xt(e, x, D(0));
    pt_add(e, "eps", n, PT_IN, -4, 4);
    if (D(2) >= 3) pt_add(e, "x0prev", n, PT_ACC, -4, 4);
}

static void ru_ddpm_rev(pt_env *e, gen_backend *be, int k) {
    /* a linear schedule's values near t = 500 of 1000 (strided: 10 steps apart) */
    double abt = 0.0785, alpha = 0.98995;
    double abs_ = D(3) ? 1.0 : D(2) == 1 ? abt / alpha : 0.1193;
    gen_ddpm_step st = {abt, abs_, alpha, D(2) == 1, D(3),
                        D(2) == 2 ? gen_ddpm_sigma(0.7, abt, abs_) : 0.0,
                        D(2) >= 3 ? P(e, k, D(4) ? 3 : 4) : NULL, D(2) == 3 ? 0.6 : 0.0};
    float *xt = D(4) ? P(e, k, 0) : P(e, k, 2);
    OPS(be)->ddpm_reverse_step(be, P(e, k, 0), D(3) ? NULL : PI(e, k, 1), 489, xt,
                               P(e, k, D(4) ? 2 : 3), D(0), e->W, e->spans, e->nspans, st, 7,
                               GEN_STREAM_SAMPLE, gen_ddpm_op_offset((uint64_t)D(5)),
                               (uint64_t)D(5) * 7919u);
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_SILU_F = {"silu_forward", "n specials", 1e-6, 1e-6, su_ew2, ru_silu_f};
static const pt_op O_SILU_B = {"silu_backward", "n specials", 1e-6, 1e-6, su_silu_b, ru_silu_b};
static const pt_op O_SCALE = {"scale", "n specials", 0, 0, su_scale, ru_scale};
/* cosf/sinf of arguments up to 1000: a few ulp of the argument's size */
static const pt_op O_TEMB = {"timestep_embed", "B dim", 2e-4, 0, su_temb, ru_temb};
static const pt_op O_DDPM_LOSS = {"ddpm_loss", "B layout grads", 1e-5, 1e-4, su_ddpm_loss,
                                  ru_ddpm_loss};
/* a copy; the backward sums each class's rows in the CPU's order; the EMA may fuse */
static const pt_op O_LEMB = {"label_embed", "B K dim", 0, 0, su_lemb, ru_lemb};
static const pt_op O_LEMB_B = {"label_embed_backward", "B K dim", 0, 0, su_lemb_b, ru_lemb_b};
static const pt_op O_EMA = {"ema_update", "n specials", 1e-6, 1e-6, su_ema, ru_ema};
/* the normals of fill_normal's tolerance; categorical draws must agree exactly */
static const pt_op O_DDPM_INIT = {"ddpm_sample_init", "B layout t offset", 2e-6, 2e-6, su_ddpm_init,
                 ru_ddpm_init};
static const pt_op O_DDPM_REV = {"ddpm_reverse_step", "B layout mode last in_place offset", 1e-5,
                                 1e-5,
                su_ddpm_rev, ru_ddpm_rev};

static const pt_case cases[] = {
    /* DDPM */
    {&O_SILU_F, {1, 0}}, {&O_SILU_F, {1025, 1}}, {&O_SILU_B, {3, 0}}, {&O_SILU_B, {65539, 1}},
    {&O_SCALE, {17, 0}}, {&O_SCALE, {1025, 1}},
    {&O_TEMB, {1, 1}}, {&O_TEMB, {3, 7}}, {&O_TEMB, {257, 128}}, {&O_TEMB, {17, 2}},
    {&O_DDPM_LOSS, {1, 0, 1}}, {&O_DDPM_LOSS, {1, 1, 1}}, {&O_DDPM_LOSS, {3, 2, 1}},
    {&O_DDPM_LOSS, {17, 2, 0}}, {&O_DDPM_LOSS, {257, 2, 1}}, {&O_DDPM_LOSS, {500, 4, 1}},
    {&O_LEMB, {1, 1, 1}}, {&O_LEMB, {17, 3, 128}}, {&O_LEMB, {1025, 7, 5}},
    {&O_LEMB_B, {1, 1, 1}}, {&O_LEMB_B, {3, 7, 17}}, {&O_LEMB_B, {1025, 2, 128}},
    {&O_LEMB_B, {257, 30, 3}},
    {&O_EMA, {1, 0}}, {&O_EMA, {1025, 1}}, {&O_EMA, {65539, 0}},
    {&O_DDPM_INIT, {1, 0, 1, 0}}, {&O_DDPM_INIT, {3, 1, 0, 5}}, {&O_DDPM_INIT, {257, 2, 1, 3}},
    {&O_DDPM_INIT, {17, 3, 1, 1000001}}, {&O_DDPM_INIT, {500, 4, 1, 2}},
    {&O_DDPM_REV, {1, 0, 1, 0, 0, 0}}, {&O_DDPM_REV, {1, 1, 0, 0, 1, 9}},
    {&O_DDPM_REV, {17, 2, 0, 0, 0, 3}}, {&O_DDPM_REV, {17, 2, 1, 0, 1, 3}},
    {&O_DDPM_REV, {257, 2, 1, 0, 0, 123}}, {&O_DDPM_REV, {257, 2, 0, 1, 1, 0}},
    {&O_DDPM_REV, {33, 3, 0, 0, 0, 77}}, {&O_DDPM_REV, {9, 3, 1, 1, 1, 5}},
    {&O_DDPM_REV, {500, 4, 1, 0, 1, 11}}, {&O_DDPM_REV, {500, 4, 0, 0, 0, 1}},
    {&O_DDPM_REV, {1025, 2, 1, 1, 0, 2}}, {&O_DDPM_REV, {17, 2, 2, 0, 0, 3}},
    {&O_DDPM_REV, {500, 4, 2, 0, 1, 11}}, {&O_DDPM_REV, {33, 3, 2, 1, 0, 77}},
    {&O_DDPM_REV, {17, 2, 3, 0, 0, 3}}, {&O_DDPM_REV, {500, 4, 3, 0, 1, 11}},
    {&O_DDPM_REV, {257, 3, 3, 1, 1, 5}}, {&O_DDPM_REV, {33, 2, 4, 0, 0, 77}},
};

const pt_family pt_family_diffusion = {"diffusion", cases, (int)(sizeof cases / sizeof cases[0])};
