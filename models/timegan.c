/*
 * timegan.c — TimeGAN (Yoon, Jarrett, van der Schaar, "Time-series Generative Adversarial
 * Networks", NeurIPS 2019) as the official TF1 code runs it (docs/algorithms.md §S; where paper
 * and code differ we follow the code, docs/timegan.md §4):
 *   five GRU stacks (width H) with per-step FC heads (§S2): embedder E (L layers, sigmoid),
 *   recovery R (L, sigmoid), generator G (L, sigmoid), supervisor S (L-1, sigmoid),
 *   discriminator D (L, logit per step). The GRU is the reset-after cell of cuDNN/PyTorch
 *   (backend.h), not TF1's GRUCell: the one deliberate difference from the reference, so
 *   that the GPU can run cuDNN's GRU (docs/timegan.md §1);
 *   losses (§S4): E_loss_T0 = mean (X - X~)^2, E_loss0 = 10 sqrt(E_loss_T0),
 *   E_loss = E_loss0 + 0.1 G_loss_S; G_loss_S = mean (H[:,1:] - S(H)[:,:-1])^2;
 *   G_loss = BCE(1, D(H^)) + gamma BCE(1, D(E^)) + 100 sqrt(G_loss_S) + 100 (V1 + V2);
 *   D_loss = BCE(1, D(H)) + BCE(0, D(H^)) + gamma BCE(0, D(E^)), BCE on logits, element means;
 *   five Adam instances (TF1: lr 1e-3, betas 0.9/0.999, eps 1e-8 outside the bias correction);
 *   three phases of `iters` iterations (§S5): embedding, supervised, joint (2 x (G, E) then D
 *   if D_loss > 0.15).
 * Forward/backward are explicit (llm.c); every matmul runs on the backend (gen_backend_ops
 * gemm, gru_*, linear_*). The scalar losses and their gradients w.r.t. the networks' outputs
 * are computed on the host from downloaded outputs (B*T*max(F,H) floats per term; a plain
 * memcpy on the CPU backend); a GPU port would move them into kernels (docs/timegan.md §7).
 */
#include <math.h>
#include <string.h>

#include "timegan.h"

/* ---- create / free --------------------------------------------------------------------------- */

void timegan_free(timegan *t) {
    if (!t) return;
    gen_backend *be = t->be;
    if (be) {
        be->ops->free(be, t->params);
        be->ops->free(be, t->grads);
        for (int i = 0; i < TG_NSTEPS; i++) {
            be->ops->free(be, t->m[i]);
            be->ops->free(be, t->v[i]);
        }
        be->ops->free(be, t->acts);
    }
    free(t->hX);
    free(t);
}

/* The networks each optimiser updates: a contiguous slice [first, last] of the arena
 * (order E, R, G, S, D). Phase 2's GS_solver covers G and S, but G never gets a gradient
 * there and TF leaves its Adam slots untouched: only S is stepped. */
static void step_nets(tg_step s, int *first, int *last) {
    static const int f[TG_NSTEPS] = {TG_E, TG_S, TG_G, TG_E, TG_D};
    static const int l[TG_NSTEPS] = {TG_R, TG_S, TG_S, TG_R, TG_D};
    *first = f[s];
    *last = l[s];
}
void tg_step_nets(tg_step s, int *first, int *last) { step_nets(s, first, last); }

size_t timegan_gen_side_floats(const timegan_config *cfg) {
    gen_seq_net n;
    int F = cfg->F, H = cfg->H, L = cfg->L;
    size_t c = 0;
    c = gen_seq_net_layout(&n, H, H, L, F, 1, c);     /* R */
    c = gen_seq_net_layout(&n, F, H, L, H, 1, c);     /* G */
    c = gen_seq_net_layout(&n, H, H, L - 1, H, 1, c); /* S */
    return c;
}

genesis_status timegan_create(genesis_ctx *ctx, gen_backend *be, const timegan_config *cfg,
                              timegan **out) {
    *out = NULL;
    GEN_RETURN_IF(cfg->L < 2 || cfg->L > GEN_SEQ_MAX_LAYERS, ctx, GENESIS_ERR_INVALID_ARG,
                  "TimeGAN needs between 2 and %d layers (the supervisor has layers - 1), got %d",
                  GEN_SEQ_MAX_LAYERS, cfg->L);
    timegan *t = calloc(1, sizeof *t);
    GEN_RETURN_IF(!t, ctx, GENESIS_ERR_NOMEM, "out of memory creating TimeGAN");
    t->be = be;
    t->cfg = *cfg;
    int F = cfg->F, H = cfg->H, L = cfg->L, B = cfg->batch, T = cfg->T;
    size_t off = 0;
    off = gen_seq_net_layout(&t->net[TG_E], F, H, L, H, 1, off);
    off = gen_seq_net_layout(&t->net[TG_R], H, H, L, F, 1, off);
    off = gen_seq_net_layout(&t->net[TG_G], F, H, L, H, 1, off);
    off = gen_seq_net_layout(&t->net[TG_S], H, H, L - 1, H, 1, off);
    off = gen_seq_net_layout(&t->net[TG_D], H, H, L, 1, 0, off);
    t->count = off;
    const gen_backend_ops *o = be->ops;
    size_t pbytes = gen_mul_size(t->count, sizeof(float));
    t->params = o->alloc(be, pbytes);
    if (!t->params) goto nomem;
    if (cfg->train) {
        t->grads = o->alloc(be, pbytes);
        if (!t->grads) goto nomem;
        for (int s = 0; s < TG_NSTEPS; s++) {
            int a, b;
            step_nets((tg_step)s, &a, &b);
            size_t n = t->net[b].off + t->net[b].count - t->net[a].off;
            t->m[s] = o->alloc(be, n * sizeof(float));
            t->v[s] = o->alloc(be, n * sizeof(float));
            if (!t->m[s] || !t->v[s]) goto nomem;
        }
    }
    for (int i = 0; i < TG_NNETS; i++) gen_seq_net_point(&t->net[i], t->params, t->grads);
    /* runs: S sees [E^; H] (2B), D sees [H; H^; E^] (3B); generation-only models need G, S, R */
    int cap[TG_NNETS] = {B, B, B, 2 * B, 3 * B};
    size_t BT = (size_t)B * T, n = 0;
    size_t rsz[TG_NNETS];
    for (int i = 0; i < TG_NNETS; i++) {
        rsz[i] = (cfg->train || i == TG_G || i == TG_S || i == TG_R) ? gen_seq_run_floats(&t->net[i], cap[i], T) : 0;
        n += rsz[i];
    }
    size_t scr = 0;
    for (int i = 0; i < TG_NNETS && cfg->train; i++) {
        size_t s = gen_seq_net_scratch_floats(&t->net[i], cap[i], T);
        if (s > scr) scr = s;
    }
    size_t bufs[] = {BT * F, BT * F, 2 * BT * H, 3 * BT * H,                  /* X Z Sin Din */
                     cfg->train ? BT * F : 0, 2 * BT * H, 3 * BT, 3 * BT * H, /* dXt dSout dY dDin */
                     BT * H, 2 * BT * H, BT * H, BT * H, 3 * BT * H, scr};     /* dRin dSin dGout dH ones scratch */
    float **ptr[] = {&t->X, &t->Z, &t->Sin, &t->Din, &t->dXt, &t->dSout, &t->dY, &t->dDin,
                     &t->dRin, &t->dSin, &t->dGout, &t->dH, &t->ones, &t->scratch};
    int nb = (int)(sizeof bufs / sizeof bufs[0]);
    if (!cfg->train)
        for (int i = 4; i < nb; i++) bufs[i] = 0;
    for (int i = 0; i < nb; i++) n += bufs[i];
    t->acts = o->alloc(be, gen_mul_size(n, sizeof(float)));
    if (!t->acts) goto nomem;
    float *p = t->acts;
    for (int i = 0; i < TG_NNETS; i++) {
        if (rsz[i]) gen_seq_run_point(&t->run[i], &t->net[i], p, cap[i], T);
        p += rsz[i];
    }
    for (int i = 0; i < nb; i++) {
        *ptr[i] = bufs[i] ? p : NULL;
        p += bufs[i];
    }
    /* host mirrors: hX hXt (B T F); hH hHs (2B T H); hY (3B T); gradients alike */
    size_t hsz[] = {BT * F, BT * F, 2 * BT * H, 2 * BT * H, 3 * BT, BT * F, BT * H, 2 * BT * H, 3 * BT};
    float **hptr[] = {&t->hX, &t->hXt, &t->hH, &t->hHs, &t->hY, &t->gXt, &t->gH, &t->gHs, &t->gY};
    size_t hn = 0;
    for (int i = 0; i < 9; i++) hn += hsz[i];
    t->hX = gen_calloc(hn, sizeof(float));
    if (!t->hX) goto nomem;
    float *q = t->hX;
    for (int i = 0; i < 9; i++) {
        *hptr[i] = q;
        q += hsz[i];
    }
    if (cfg->train) {
        float *h1 = malloc(3 * BT * H * sizeof(float));
        if (!h1) goto nomem;
        for (size_t i = 0; i < 3 * BT * H; i++) h1[i] = 1.0f;
        o->upload(be, t->ones, h1, 3 * BT * H * sizeof(float));
        free(h1);
    }
    *out = t;
    return GENESIS_OK;
nomem:
    timegan_free(t);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                         "out of memory allocating TimeGAN (batch %d, seq-len %d, hidden %d, "
                         "layers %d); try a smaller batch size or hidden width",
                         cfg->batch, cfg->T, cfg->H, cfg->L);
}

/* The sizes timegan_create allocates, without allocating (the memory model). Mirrors its
 * layout: keep the two in step. */
void timegan_memory(const timegan_config *cfg, gen_net_bytes *out) {
    int F = cfg->F, H = cfg->H, L = cfg->L, B = cfg->batch, T = cfg->T;
    gen_seq_net net[TG_NNETS];
    size_t off = 0;
    off = gen_seq_net_layout(&net[TG_E], F, H, L, H, 1, off);
    off = gen_seq_net_layout(&net[TG_R], H, H, L, F, 1, off);
    off = gen_seq_net_layout(&net[TG_G], F, H, L, H, 1, off);
    off = gen_seq_net_layout(&net[TG_S], H, H, L - 1, H, 1, off);
    off = gen_seq_net_layout(&net[TG_D], H, H, L, 1, 0, off);
    size_t opt = 0;
    if (cfg->train) {
        opt = off; /* gradients */
        for (int s = 0; s < TG_NSTEPS; s++) {
            int a, b;
            step_nets((tg_step)s, &a, &b);
            opt += 2 * (net[b].off + net[b].count - net[a].off);
        }
    }
    int cap[TG_NNETS] = {B, B, B, 2 * B, 3 * B};
    size_t BT = (size_t)B * T, n = 0, scr = 0;
    for (int i = 0; i < TG_NNETS; i++) {
        if (cfg->train || i == TG_G || i == TG_S || i == TG_R) n += gen_seq_run_floats(&net[i], cap[i], T);
        size_t s = cfg->train ? gen_seq_net_scratch_floats(&net[i], cap[i], T) : 0;
        if (s > scr) scr = s;
    }
    n += 2 * BT * F + 5 * BT * H; /* X Z Sin Din */
    if (cfg->train) n += BT * F + 2 * BT * H + 3 * BT + 3 * BT * H + BT * H + 2 * BT * H +
                         BT * H + BT * H + 3 * BT * H + scr;
    out->params = 4 * (uint64_t)off;
    out->optimizer = 4 * (uint64_t)opt;
    out->acts = 4 * (uint64_t)n;
    out->host = 4 * (uint64_t)(3 * BT * F + 2 * BT * H + 2 * BT * H + 3 * BT + BT * H +
                               2 * BT * H + 3 * BT);
}

genesis_status timegan_init_weights(timegan *t, uint64_t seed) {
    float *h = malloc(t->count * sizeof(float));
    GEN_RETURN_IF(!h, t->be->ctx, GENESIS_ERR_NOMEM, "out of memory initialising TimeGAN");
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_INIT);
    for (int i = 0; i < TG_NNETS; i++) gen_seq_net_init(&t->net[i], h, &r);
    gen_backend *be = t->be;
    be->ops->upload(be, t->params, h, t->count * sizeof(float));
    free(h);
    for (int s = 0; s < TG_NSTEPS && t->grads; s++) {
        int a, b;
        step_nets((tg_step)s, &a, &b);
        size_t n = t->net[b].off + t->net[b].count - t->net[a].off;
        be->ops->zero(be, t->m[s], n);
        be->ops->zero(be, t->v[s], n);
        t->t[s] = 0;
    }
    return GENESIS_OK;
}

/* ---- losses on the host (docs/algorithms.md §S4) ---------------------------------------------- */

/* mean over n logits of BCE-with-logits against label y; g += scale * d mean / d logit */
static double bce_mean(const float *l, size_t n, float y, float *g, double scale) {
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double x = l[i];
        s += fmax(x, 0.0) - x * y + log1p(exp(-fabs(x)));
        if (g) g[i] += (float)(scale * (1.0 / (1.0 + exp(-x)) - y) / (double)n);
    }
    return s / (double)n;
}

/* G_loss_S = mean over B (T-1) H of (h[:, t] - s[:, t-1])^2 with h the target latent and s
 * the supervisor's output. gs += scale dG_S/ds; gh += scale dG_S/dh (either NULL). */
static double sup_loss(const float *h, const float *s, int B, int T, int H, float *gs, float *gh,
                       double scale) {
    double n = (double)B * (T - 1) * H, acc = 0;
    if (T < 2) return 0;
    for (int b = 0; b < B; b++)
        for (int t = 1; t < T; t++)
            for (int j = 0; j < H; j++) {
                size_t it = ((size_t)b * T + t) * H + j, ip = ((size_t)b * T + t - 1) * H + j;
                double e = (double)h[it] - s[ip];
                acc += e * e;
                if (gs) gs[ip] -= (float)(scale * 2.0 * e / n);
                if (gh) gh[it] += (float)(scale * 2.0 * e / n);
            }
    return acc / n;
}

/* mean (x - xt)^2 over n; g += scale d/dxt */
static double mse(const float *x, const float *xt, size_t n, float *g, double scale) {
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        double e = (double)xt[i] - x[i];
        acc += e * e;
        if (g) g[i] += (float)(scale * 2.0 * e / (double)n);
    }
    return acc / (double)n;
}

static double sgn(double v) { return (v > 0) - (v < 0); }

/* Moments loss V1 + V2 of x^ (fake) against x (real), statistics over the batch axis per
 * (t, f), biased variance; g += scale d/dx^. */
static double moments_loss(const float *xh, const float *x, int B, int T, int F, float *g,
                           double scale) {
    double v1 = 0, v2 = 0, n = (double)T * F;
    for (int t = 0; t < T; t++)
        for (int f = 0; f < F; f++) {
            double mh = 0, m = 0, vh = 0, v = 0;
            for (int b = 0; b < B; b++) {
                size_t i = ((size_t)b * T + t) * F + f;
                mh += xh[i];
                m += x[i];
            }
            mh /= B;
            m /= B;
            for (int b = 0; b < B; b++) {
                size_t i = ((size_t)b * T + t) * F + f;
                vh += (xh[i] - mh) * (xh[i] - mh);
                v += (x[i] - m) * (x[i] - m);
            }
            vh /= B;
            v /= B;
            double sh = sqrt(vh + 1e-6), sr = sqrt(v + 1e-6);
            v1 += fabs(sh - sr);
            v2 += fabs(mh - m);
            if (g) {
                double a = scale / n * sgn(sh - sr) * 0.5 / sh, c = scale / n * sgn(mh - m) / B;
                for (int b = 0; b < B; b++) {
                    size_t i = ((size_t)b * T + t) * F + f;
                    g[i] += (float)(a * 2.0 * (xh[i] - mh) / B + c);
                }
            }
        }
    return v1 / n + v2 / n;
}

/* ---- the update steps ------------------------------------------------------------------------- */

static void dl(gen_backend *be, float *h, const float *d, size_t n) {
    be->ops->download(be, h, d, n * sizeof(float));
}
static void ul(gen_backend *be, float *d, const float *h, size_t n) {
    be->ops->upload(be, d, h, n * sizeof(float));
}

double timegan_loss(timegan *t, tg_step step, int B, int backward, tg_losses *ls) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    const int T = t->cfg.T, F = t->cfg.F, H = t->cfg.H;
    const size_t BTF = (size_t)B * T * F, BTH = (size_t)B * T * H, BT = (size_t)B * T;
    const double gamma = t->cfg.gamma;
    gen_seq_net *E = &t->net[TG_E], *R = &t->net[TG_R], *G = &t->net[TG_G], *S = &t->net[TG_S],
           *D = &t->net[TG_D];
    gen_seq_run *rE = &t->run[TG_E], *rR = &t->run[TG_R], *rG = &t->run[TG_G], *rS = &t->run[TG_S],
           *rD = &t->run[TG_D];
    memset(ls, 0, sizeof *ls);
    if (backward) o->zero(be, t->grads, t->count);
    /* every step starts from the embedding of the real batch */
    gen_seq_net_forward(be, E, rE, t->X, B, T);
    float *Hd = gen_seq_run_out(E, rE);
    double loss = 0;
    switch (step) {
    case TG_STEP_E0:
    case TG_STEP_E: {
        gen_seq_net_forward(be, R, rR, Hd, B, T);
        dl(be, t->hX, t->X, BTF);
        dl(be, t->hXt, gen_seq_run_out(R, rR), BTF);
        ls->e_t0 = mse(t->hX, t->hXt, BTF, NULL, 0);
        double rt = sqrt(fmax(ls->e_t0, 1e-20));
        loss = 10.0 * rt;
        if (step == TG_STEP_E) {
            gen_seq_net_forward(be, S, rS, Hd, B, T);
            dl(be, t->hH, Hd, BTH);
            dl(be, t->hHs, gen_seq_run_out(S, rS), BTH);
            ls->g_s = sup_loss(t->hH, t->hHs, B, T, H, NULL, NULL, 0);
            loss += 0.1 * ls->g_s;
        }
        ls->total = loss;
        if (!backward) break;
        memset(t->gXt, 0, BTF * sizeof(float));
        mse(t->hX, t->hXt, BTF, t->gXt, 10.0 * 0.5 / rt);
        ul(be, t->dXt, t->gXt, BTF);
        o->zero(be, t->dH, BTH);
        gen_seq_net_backward(be, R, rR, t->dH, t->dXt, Hd, B, T, 1, t->scratch);
        if (step == TG_STEP_E) { /* G_loss_S reaches H as the target and through S's input */
            memset(t->gH, 0, BTH * sizeof(float));
            memset(t->gHs, 0, BTH * sizeof(float));
            sup_loss(t->hH, t->hHs, B, T, H, t->gHs, t->gH, 0.1);
            ul(be, t->dSout, t->gHs, BTH);
            gen_seq_net_backward(be, S, rS, t->dH, t->dSout, Hd, B, T, 0, t->scratch);
            ul(be, t->dRin, t->gH, BTH);
            o->mul_acc(be, t->dH, t->dRin, t->ones, BTH);
        }
        gen_seq_net_backward(be, E, rE, NULL, t->dH, t->X, B, T, 1, t->scratch);
        break;
    }
    case TG_STEP_SUP: {
        gen_seq_net_forward(be, S, rS, Hd, B, T);
        dl(be, t->hH, Hd, BTH);
        dl(be, t->hHs, gen_seq_run_out(S, rS), BTH);
        ls->g_s = sup_loss(t->hH, t->hHs, B, T, H, NULL, NULL, 0);
        loss = ls->total = ls->g_s;
        if (!backward) break;
        memset(t->gHs, 0, BTH * sizeof(float));
        sup_loss(t->hH, t->hHs, B, T, H, t->gHs, NULL, 1.0);
        ul(be, t->dSout, t->gHs, BTH);
        gen_seq_net_backward(be, S, rS, NULL, t->dSout, Hd, B, T, 1, t->scratch);
        break;
    }
    case TG_STEP_G: {
        /* E^ = G(Z); [H^; H^sup] = S([E^; H]); X^ = R(H^); [Y_fake; Y_fake_e] = D([H^; E^]) */
        gen_seq_net_forward(be, G, rG, t->Z, B, T);
        float *Eh = gen_seq_run_out(G, rG);
        o->copy2d(be, t->Sin, H, Eh, H, (int)BT, H);
        o->copy2d(be, t->Sin + BTH, H, Hd, H, (int)BT, H);
        gen_seq_net_forward(be, S, rS, t->Sin, 2 * B, T);
        float *Sout = gen_seq_run_out(S, rS); /* [H^; H^sup] */
        gen_seq_net_forward(be, R, rR, Sout, B, T);
        o->copy2d(be, t->Din, H, Sout, H, (int)BT, H);
        o->copy2d(be, t->Din + BTH, H, Eh, H, (int)BT, H);
        gen_seq_net_forward(be, D, rD, t->Din, 2 * B, T);
        dl(be, t->hY, gen_seq_run_out(D, rD), 2 * BT);
        dl(be, t->hX, t->X, BTF);
        dl(be, t->hXt, gen_seq_run_out(R, rR), BTF);
        dl(be, t->hH, Hd, BTH);
        dl(be, t->hHs, Sout + BTH, BTH);
        ls->g_u = bce_mean(t->hY, BT, 1.0f, NULL, 0);
        ls->g_ue = bce_mean(t->hY + BT, BT, 1.0f, NULL, 0);
        ls->g_s = sup_loss(t->hH, t->hHs, B, T, H, NULL, NULL, 0);
        ls->g_v = moments_loss(t->hXt, t->hX, B, T, F, NULL, 0);
        double rs = sqrt(fmax(ls->g_s, 1e-20));
        loss = ls->total = ls->g_u + gamma * ls->g_ue + 100.0 * rs + 100.0 * ls->g_v;
        if (!backward) break;
        memset(t->gY, 0, 2 * BT * sizeof(float));
        bce_mean(t->hY, BT, 1.0f, t->gY, 1.0);
        bce_mean(t->hY + BT, BT, 1.0f, t->gY + BT, gamma);
        ul(be, t->dY, t->gY, 2 * BT);
        o->zero(be, t->dDin, 2 * BTH);
        gen_seq_net_backward(be, D, rD, t->dDin, t->dY, t->Din, 2 * B, T, 0, t->scratch);
        memset(t->gXt, 0, BTF * sizeof(float));
        moments_loss(t->hXt, t->hX, B, T, F, t->gXt, 100.0);
        ul(be, t->dXt, t->gXt, BTF);
        o->zero(be, t->dRin, BTH);
        gen_seq_net_backward(be, R, rR, t->dRin, t->dXt, Sout, B, T, 0, t->scratch);
        /* dSout = [dD/dH^ + dR/dH^; d 100 sqrt(G_S) / dH^sup] */
        memset(t->gHs, 0, BTH * sizeof(float));
        sup_loss(t->hH, t->hHs, B, T, H, t->gHs, NULL, 100.0 * 0.5 / rs);
        ul(be, t->dSout + BTH, t->gHs, BTH);
        o->copy2d(be, t->dSout, H, t->dDin, H, (int)BT, H);
        o->mul_acc(be, t->dSout, t->dRin, t->ones, BTH);
        o->zero(be, t->dSin, 2 * BTH);
        gen_seq_net_backward(be, S, rS, t->dSin, t->dSout, t->Sin, 2 * B, T, 1, t->scratch);
        /* dE^ = through S + through D */
        o->copy2d(be, t->dGout, H, t->dSin, H, (int)BT, H);
        o->mul_acc(be, t->dGout, t->dDin + BTH, t->ones, BTH);
        gen_seq_net_backward(be, G, rG, NULL, t->dGout, t->Z, B, T, 1, t->scratch);
        break;
    }
    case TG_STEP_D: {
        /* D on [H; H^; E^] with E^ = G(Z), H^ = S(E^) */
        gen_seq_net_forward(be, G, rG, t->Z, B, T);
        float *Eh = gen_seq_run_out(G, rG);
        gen_seq_net_forward(be, S, rS, Eh, B, T);
        o->copy2d(be, t->Din, H, Hd, H, (int)BT, H);
        o->copy2d(be, t->Din + BTH, H, gen_seq_run_out(S, rS), H, (int)BT, H);
        o->copy2d(be, t->Din + 2 * BTH, H, Eh, H, (int)BT, H);
        gen_seq_net_forward(be, D, rD, t->Din, 3 * B, T);
        dl(be, t->hY, gen_seq_run_out(D, rD), 3 * BT);
        ls->d = bce_mean(t->hY, BT, 1.0f, NULL, 0) + bce_mean(t->hY + BT, BT, 0.0f, NULL, 0) +
                gamma * bce_mean(t->hY + 2 * BT, BT, 0.0f, NULL, 0);
        loss = ls->total = ls->d;
        if (!backward) break;
        memset(t->gY, 0, 3 * BT * sizeof(float));
        bce_mean(t->hY, BT, 1.0f, t->gY, 1.0);
        bce_mean(t->hY + BT, BT, 0.0f, t->gY + BT, 1.0);
        bce_mean(t->hY + 2 * BT, BT, 0.0f, t->gY + 2 * BT, gamma);
        ul(be, t->dY, t->gY, 3 * BT);
        gen_seq_net_backward(be, D, rD, NULL, t->dY, t->Din, 3 * B, T, 1, t->scratch);
        break;
    }
    default:
        break;
    }
    return loss;
}

/* TF1 Adam: lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); p -= lr_t m / (sqrt(v) + eps). The
 * backend's Adam is torch's, p -= lr / (1 - b1^t) m / (sqrt(v) / sqrt(1 - b2^t) + eps');
 * the two are the same update when eps' = eps / sqrt(1 - b2^t). */
static void adam_tf1(timegan *t, tg_step s) {
    int a, b;
    step_nets(s, &a, &b);
    size_t off = t->net[a].off, n = t->net[b].off + t->net[b].count - off;
    int64_t k = ++t->t[s];
    double bc2 = 1.0 - pow(0.999, (double)k);
    float eps = (float)(1e-8 / sqrt(bc2));
    t->be->ops->adam(t->be, t->params + off, t->grads + off, t->m[s], t->v[s], n, t->cfg.lr, 0.9f,
                     0.999f, eps, 0.0f, k);
}

/* Adam on the step's networks after a finite check of the loss and gradients. */
static genesis_status apply_step(timegan *t, tg_step step, double loss) {
    gen_backend *be = t->be;
    if (!isfinite(loss) || be->ops->any_nonfinite(be, t->grads, t->count))
        return gen_diverged(be,
                             "TimeGAN diverged (update step %d, loss %g); try a smaller learning "
                             "rate or another seed",
                             (int)step, loss);
    adam_tf1(t, step);
    return GENESIS_OK;
}

genesis_status timegan_update(timegan *t, tg_step step, int B, tg_losses *ls) {
    return apply_step(t, step, timegan_loss(t, step, B, 1, ls));
}

/* ---- training loop (docs/algorithms.md §S5) ---------------------------------------------------- */

typedef struct tg_batcher {
    const float *data;
    int64_t N, *perm;
    size_t row;   /* floats per sequence */
    gen_rng rng;
} tg_batcher;

/* A fresh random batch without replacement (partial Fisher-Yates over a kept permutation,
 * which is uniform whatever order it holds): the reference's permutation(N)[:B]. */
static void next_batch(timegan *t, tg_batcher *bt, int B) {
    for (int i = 0; i < B; i++) {
        int64_t j = i + (int64_t)gen_rng_below(&bt->rng, (uint64_t)(bt->N - i));
        int64_t tmp = bt->perm[i]; bt->perm[i] = bt->perm[j]; bt->perm[j] = tmp;
        memcpy(t->hX + (size_t)i * bt->row, bt->data + (size_t)bt->perm[i] * bt->row,
               bt->row * sizeof(float));
    }
    t->be->ops->upload(t->be, t->X, t->hX, (size_t)B * bt->row * sizeof(float));
    size_t nz = (size_t)B * bt->row;
    t->be->ops->fill_uniform(t->be, t->Z, nz, t->seed, GEN_STREAM_NOISE, t->noise_off);
    t->noise_off += (nz + 3) / 4 + 1;
}

genesis_status timegan_fit(timegan *t, const float *data, int64_t N, int64_t iters,
                           int log_every, tg_progress_fn progress, void *user) {
    genesis_ctx *ctx = t->be->ctx;
    GEN_RETURN_IF(N < 1, ctx, GENESIS_ERR_DATA, "TimeGAN needs at least one sequence");
    int B = N < t->cfg.batch ? (int)N : t->cfg.batch;
    tg_batcher bt = {data, N, malloc((size_t)N * sizeof(int64_t)), (size_t)t->cfg.T * t->cfg.F, {0}};
    GEN_RETURN_IF(!bt.perm, ctx, GENESIS_ERR_NOMEM, "out of memory for the batch order");
    for (int64_t i = 0; i < N; i++) bt.perm[i] = i;
    gen_rng_init(&bt.rng, t->seed, GEN_STREAM_SAMPLER);
    genesis_status st = GENESIS_OK;
    tg_losses ls, lg, le, ld;
    memset(&lg, 0, sizeof lg);
    memset(&le, 0, sizeof le);
    memset(&ld, 0, sizeof ld); /* the TF quirk: d_loss is logged before any D update */
    int phase0 = 1;
    int64_t it0 = 1; /* where to start: a continued checkpoint's next iteration */
    if (t->ck) st = tg_ckpt_restore(t, bt.perm, N, &bt.rng, iters, &phase0, &it0);
    for (int phase = phase0; phase <= 3 && st == GENESIS_OK; phase++) {
        for (int64_t it = phase == phase0 ? it0 : 1; it <= iters && st == GENESIS_OK; it++) {
            tg_losses shown;
            if (phase == 1) {
                next_batch(t, &bt, B);
                st = timegan_update(t, TG_STEP_E0, B, &ls);
                shown = ls;
            } else if (phase == 2) {
                next_batch(t, &bt, B);
                st = timegan_update(t, TG_STEP_SUP, B, &ls);
                shown = ls;
            } else {
                for (int k = 0; k < 2 && st == GENESIS_OK; k++) {
                    next_batch(t, &bt, B);
                    st = timegan_update(t, TG_STEP_G, B, &lg);
                    if (st == GENESIS_OK) st = timegan_update(t, TG_STEP_E, B, &le);
                }
                if (st != GENESIS_OK) break;
                next_batch(t, &bt, B);
                /* the gate: D learns only while D_loss > 0.15 (one forward serves the check
                 * and the update; the reference recomputes the same value) */
                double check = timegan_loss(t, TG_STEP_D, B, 1, &ld);
                if (check > 0.15) st = apply_step(t, TG_STEP_D, check);
                shown = lg;
                shown.d = ld.d;
                shown.e_t0 = le.e_t0;
            }
            int stop = st == GENESIS_OK && progress && (it % log_every == 0 || it == iters) &&
                       progress(phase, it, iters, &shown, user);
            if (st == GENESIS_OK && t->ck) st = tg_ckpt_after(t, phase, it, iters, bt.perm, N, &bt.rng, stop);
            else if (stop)
                st = gen_set_error(ctx, GENESIS_ERR_CANCELLED,
                                   "training stopped by the caller in phase %d, iteration %lld",
                                   phase, (long long)it);
        }
    }
    free(bt.perm);
    return st;
}

genesis_status timegan_generate(timegan *t, int64_t n, uint64_t seed, uint64_t stream,
                                uint64_t *noise_off, float *out) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    const int T = t->cfg.T, F = t->cfg.F, B = t->cfg.batch;
    uint64_t off = *noise_off;
    for (int64_t done = 0; done < n;) {
        int rows = (int)((n - done) < B ? (n - done) : B);
        size_t nz = (size_t)rows * T * F;
        o->fill_uniform(be, t->Z, nz, seed, stream, off);
        off += (nz + 3) / 4 + 1;
        gen_seq_net_forward(be, &t->net[TG_G], &t->run[TG_G], t->Z, rows, T);
        gen_seq_net_forward(be, &t->net[TG_S], &t->run[TG_S], gen_seq_run_out(&t->net[TG_G], &t->run[TG_G]),
                       rows, T);
        gen_seq_net_forward(be, &t->net[TG_R], &t->run[TG_R], gen_seq_run_out(&t->net[TG_S], &t->run[TG_S]),
                       rows, T);
        o->download(be, out + (size_t)done * T * F, gen_seq_run_out(&t->net[TG_R], &t->run[TG_R]),
                    nz * sizeof(float));
        done += rows;
    }
    *noise_off = off;
    for (size_t i = 0; i < (size_t)n * T * F; i++)
        if (!isfinite(out[i]))
            return gen_diverged(be,
                                 "the TimeGAN generator produced non-finite values; the model is unusable");
    return GENESIS_OK;
}
