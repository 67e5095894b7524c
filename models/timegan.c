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
 * gemm, gru_*, linear_*), and so do the scalar losses and their gradients w.r.t. the
 * networks' outputs (mse_loss, bce_logits, moments_loss) and the D step's gate
 * (adam_tf1_gated): an update step reads nothing back. The losses and a divergence ledger
 * stay in backend memory until a progress point (timegan_sync; docs/timegan.md §7).
 */
#include <math.h>
#include <string.h>

#include "timegan.h"

/* ---- create / free --------------------------------------------------------------------------- */

/* The recorded iterations (they name the fit's batch buffers: freed when the fit ends). */
static void timegan_graphs_free(timegan *t) {
    for (int i = 0; i < 3; i++) {
        if (t->graph[i]) t->be->ops->graph_free(t->be, t->graph[i]);
        t->graph[i] = NULL;
    }
}

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
        timegan_graphs_free(t);
        be->ops->free(be, t->acts);
        be->ops->free(be, t->dev);
    }
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
    if (cfg->train) {
        /* the step counts, the step state, then the ledger (zero-filled by alloc) */
        t->dev = o->alloc(be, TG_DEV_BYTES);
        if (!t->dev) goto nomem;
        t->tdev = t->dev;
        t->dstep = t->tdev + TG_STEP_D;
        t->state = (gen_step_state *)(t->tdev + TG_NSTEPS);
        t->led = (double *)(t->state + 1);
        t->ledf = (float *)(t->led + TG_NSTEPS * TL_W);
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
void timegan_memory(const timegan_config *cfg, int64_t nseq, gen_net_bytes *out) {
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
    if (cfg->train) n += TG_DEV_BYTES / 4; /* step counts, step state, ledger */
    /* timegan_fit: the sequences in backend memory (the host's in place on the CPU: an upper
     * bound there), a chunk of batch ids, host and backend (chunk_cap at most), and the
     * iteration's block of them (3 B) */
    uint64_t ids = cfg->train && nseq > 0 ? ((uint64_t)4 << 20) + 24 * (uint64_t)B : 0;
    uint64_t fitf = cfg->train && nseq > 0 ? (uint64_t)nseq * T * F + ids / 4 : 0;
    out->params = 4 * (uint64_t)off;
    out->optimizer = 4 * ((uint64_t)opt + fitf);
    out->acts = 4 * (uint64_t)n;
    out->host = ids;
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
    if (t->dev) be->ops->zero(be, t->dev, TG_DEV_BYTES / 4);
    memset(t->hled, 0, sizeof t->hled);
    memset(t->hledf, 0, sizeof t->hledf);
    return GENESIS_OK;
}

/* ---- losses on the device (docs/algorithms.md §S4, docs/timegan.md §7) -------------------------
 * The loss operations of the backend (mse_loss, bce_logits, moments_loss) write each step's
 * loss terms into the step's row of the ledger (TL_* slots, backend memory) and add their
 * gradients w.r.t. the networks' outputs into the backward buffers: an update step reads
 * nothing back. */

static double *led_row(timegan *t, tg_step step) { return t->led + (size_t)step * TL_W; }

/* The step's forward (and with `backward` its gradients into t->grads, zeroed first), the
 * loss terms into the ledger row of the step. reuse_h: the embedder's run still holds
 * H = E(X) of this batch with E's current weights (the joint phase's E step right after its
 * G step, which does not change E), so E's forward is not run again: the same values. */
static void tg_issue_h(timegan *t, tg_step step, int B, int backward, int reuse_h) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    const int T = t->cfg.T, F = t->cfg.F, H = t->cfg.H;
    const size_t BTF = (size_t)B * T * F, BTH = (size_t)B * T * H, BT = (size_t)B * T;
    const float gamma = t->cfg.gamma;
    gen_seq_net *E = &t->net[TG_E], *R = &t->net[TG_R], *G = &t->net[TG_G], *S = &t->net[TG_S],
           *D = &t->net[TG_D];
    gen_seq_run *rE = &t->run[TG_E], *rR = &t->run[TG_R], *rG = &t->run[TG_G], *rS = &t->run[TG_S],
           *rD = &t->run[TG_D];
    double *L = led_row(t, step);
    /* G_loss_S's pairs: H[:, 1:] (target, H floats on) against S's output [:, :-1], rows of
     * (T-1) H floats with stride T H */
    const int sc = (T - 1) * H, sld = T * H;
    if (backward) o->zero(be, t->grads, t->count);
    /* every step starts from the embedding of the real batch */
    if (!reuse_h) gen_seq_net_forward(be, E, rE, t->X, B, T);
    float *Hd = gen_seq_run_out(E, rE);
    switch (step) {
    case TG_STEP_E0:
    case TG_STEP_E: {
        gen_seq_net_forward(be, R, rR, Hd, B, T);
        if (backward) {
            o->zero(be, t->dXt, BTF);
            o->zero(be, t->dH, BTH);
        }
        /* E_loss0 = 10 sqrt(E_loss_T0) */
        o->mse_loss(be, L + TL_ET0, backward ? t->dXt : NULL, NULL, gen_seq_run_out(R, rR), t->X,
                    B, T * F, T * F, 10.0f, 1);
        if (step == TG_STEP_E) {
            /* 0.1 G_loss_S reaches H as the target (into dH directly) and through S's input */
            gen_seq_net_forward(be, S, rS, Hd, B, T);
            if (backward) o->zero(be, t->dSout, BTH);
            o->mse_loss(be, L + TL_GS, backward ? t->dH + H : NULL, backward ? t->dSout : NULL,
                        Hd + H, gen_seq_run_out(S, rS), B, sc, sld, 0.1f, 0);
        }
        if (!backward) break;
        gen_seq_net_backward(be, R, rR, t->dH, t->dXt, Hd, B, T, 1, t->scratch);
        if (step == TG_STEP_E)
            gen_seq_net_backward(be, S, rS, t->dH, t->dSout, Hd, B, T, 0, t->scratch);
        gen_seq_net_backward(be, E, rE, NULL, t->dH, t->X, B, T, 1, t->scratch);
        break;
    }
    case TG_STEP_SUP: {
        gen_seq_net_forward(be, S, rS, Hd, B, T);
        if (backward) o->zero(be, t->dSout, BTH);
        o->mse_loss(be, L + TL_GS, NULL, backward ? t->dSout : NULL, Hd + H, gen_seq_run_out(S, rS),
                    B, sc, sld, 1.0f, 0);
        if (!backward) break;
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
        float *Y = gen_seq_run_out(D, rD);
        if (backward) {
            o->zero(be, t->dY, 2 * BT);
            o->zero(be, t->dSout + BTH, BTH);
            o->zero(be, t->dXt, BTF);
        }
        /* G_loss_U + gamma G_loss_U_e (the ledger keeps gamma G_loss_U_e) */
        o->bce_logits(be, L + TL_GU, backward ? t->dY : NULL, Y, BT, 1.0f, 1.0f);
        o->bce_logits(be, L + TL_GUE, backward ? t->dY + BT : NULL, Y + BT, BT, 1.0f, gamma);
        /* 100 sqrt(G_loss_S): d/dH^sup into dSout's second half */
        o->mse_loss(be, L + TL_GS, NULL, backward ? t->dSout + BTH : NULL, Hd + H, Sout + BTH, B,
                    sc, sld, 100.0f, 1);
        /* 100 (V1 + V2) of X^ against X */
        o->moments_loss(be, L + TL_V1, backward ? t->dXt : NULL, gen_seq_run_out(R, rR), t->X, B,
                        T, F, 100.0f);
        if (!backward) break;
        o->zero(be, t->dDin, 2 * BTH);
        gen_seq_net_backward(be, D, rD, t->dDin, t->dY, t->Din, 2 * B, T, 0, t->scratch);
        o->zero(be, t->dRin, BTH);
        gen_seq_net_backward(be, R, rR, t->dRin, t->dXt, Sout, B, T, 0, t->scratch);
        /* dSout = [dD/dH^ + dR/dH^; d 100 sqrt(G_S) / dH^sup] */
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
        float *Y = gen_seq_run_out(D, rD);
        if (backward) o->zero(be, t->dY, 3 * BT);
        o->bce_logits(be, L + TL_D1, backward ? t->dY : NULL, Y, BT, 1.0f, 1.0f);
        o->bce_logits(be, L + TL_D2, backward ? t->dY + BT : NULL, Y + BT, BT, 0.0f, 1.0f);
        o->bce_logits(be, L + TL_D3, backward ? t->dY + 2 * BT : NULL, Y + 2 * BT, BT, 0.0f, gamma);
        if (!backward) break;
        gen_seq_net_backward(be, D, rD, NULL, t->dY, t->Din, 3 * B, T, 1, t->scratch);
        break;
    }
    default:
        break;
    }
}

static void tg_issue(timegan *t, tg_step step, int B, int backward) {
    tg_issue_h(t, step, B, backward, 0);
}

/* The losses of a ledger row (host copy) and the step's total. */
static double tg_losses_of(const timegan *t, tg_step step, const double *L, tg_losses *ls) {
    double gamma = t->cfg.gamma;
    memset(ls, 0, sizeof *ls);
    switch (step) {
    case TG_STEP_E0:
    case TG_STEP_E:
        ls->e_t0 = L[TL_ET0];
        ls->total = 10.0 * sqrt(fmax(ls->e_t0, 1e-20));
        if (step == TG_STEP_E) {
            ls->g_s = L[TL_GS];
            ls->total += 0.1 * ls->g_s;
        }
        break;
    case TG_STEP_SUP:
        ls->g_s = ls->total = L[TL_GS];
        break;
    case TG_STEP_G:
        ls->g_u = L[TL_GU];
        ls->g_ue = gamma != 0 ? L[TL_GUE] / gamma : 0.0; /* gamma 0: the term is not computed */
        ls->g_s = L[TL_GS];
        ls->g_v = L[TL_V1] + L[TL_V2];
        ls->total = ls->g_u + L[TL_GUE] + 100.0 * sqrt(fmax(ls->g_s, 1e-20)) + 100.0 * ls->g_v;
        break;
    case TG_STEP_D: /* the gate's sum, in its order */
        ls->d = ls->total = L[TL_D1] + L[TL_D2] + L[TL_D3];
        break;
    default:
        break;
    }
    return ls->total;
}

double timegan_loss(timegan *t, tg_step step, int B, int backward, tg_losses *ls) {
    gen_backend *be = t->be;
    double L[TL_W];
    tg_issue(t, step, B, backward);
    be->ops->download(be, L, led_row(t, step), sizeof L);
    return tg_losses_of(t, step, L, ls);
}

/* TF1 Adam: lr_t = lr sqrt(1 - b2^t) / (1 - b1^t); p -= lr_t m / (sqrt(v) + eps). The
 * backend's Adam is torch's, p -= lr / (1 - b1^t) m / (sqrt(v) / sqrt(1 - b2^t) + eps');
 * the two are the same update when eps' = eps / sqrt(1 - b2^t). adam_tf1_gated makes that
 * update with the step count in backend memory (t->tdev), so that a recorded iteration
 * replays it; the D step runs behind the gate D_loss > 0.15, decided on the device. */
static void adam_tf1(timegan *t, tg_step s) {
    int a, b;
    step_nets(s, &a, &b);
    size_t off = t->net[a].off, n = t->net[b].off + t->net[b].count - off;
    int gated = s == TG_STEP_D;
    t->be->ops->adam_tf1_gated(t->be, t->params + off, t->grads + off, t->m[s], t->v[s], n,
                               t->cfg.lr, 0.9f, 0.999f, 1e-8f, t->tdev + s,
                               gated ? led_row(t, s) + TL_D1 : NULL, gated ? 3 : 0, 0.15);
}

/* The step's bookkeeping in backend memory: the sum of the gradient arena (non-finite iff a
 * gradient is, short of an overflow; a non-finite loss term makes its gradients non-finite)
 * into the ledger and the running TG_ACC, which timegan_sync reads. */
static void tg_ledger_add(timegan *t, tg_step step) {
    gen_backend *be = t->be;
    be->ops->sum(be, t->ledf + TG_GSUM + step, t->grads, t->count);
    be->ops->accumulate(be, t->ledf + TG_ACC, t->ledf + TG_GSUM + step, 1);
}

genesis_status timegan_sync(timegan *t, int phase, int64_t it) {
    gen_backend *be = t->be;
    unsigned char buf[TG_DEV_BYTES];
    be->ops->download(be, buf, t->dev, sizeof buf); /* the one synchronisation */
    size_t at = sizeof t->t + sizeof(gen_step_state);
    memcpy(t->t, buf, sizeof t->t);
    memcpy(t->hled, buf + at, sizeof t->hled);
    memcpy(t->hledf, buf + at + sizeof t->hled, sizeof t->hledf);
    int bad = !isfinite(t->hledf[TG_ACC]);
    for (int i = 0; i < TG_NSTEPS * TL_W; i++) bad |= !isfinite(t->hled[i]);
    if (bad)
        return gen_diverged(be,
                            "TimeGAN diverged (phase %d, by iteration %lld); try a smaller "
                            "learning rate or another seed",
                            phase, (long long)it);
    return GENESIS_OK;
}

/* One update step of the fit: forward, backward, ledger, Adam; nothing read back. */
void timegan_fit_step(timegan *t, tg_step step, int B, int reuse_h) {
    tg_issue_h(t, step, B, 1, reuse_h && step == TG_STEP_E);
    tg_ledger_add(t, step);
    adam_tf1(t, step);
}
static void tg_fit_step(timegan *t, tg_step step, int B) { timegan_fit_step(t, step, B, 0); }

genesis_status timegan_update(timegan *t, tg_step step, int B, tg_losses *ls) {
    if (!ls) {
        tg_fit_step(t, step, B);
        return GENESIS_OK;
    }
    gen_backend *be = t->be;
    double loss = timegan_loss(t, step, B, 1, ls);
    if (!isfinite(loss) || be->ops->any_nonfinite(be, t->grads, t->count))
        return gen_diverged(be,
                            "TimeGAN diverged (update step %d, loss %g); try a smaller learning "
                            "rate or another seed",
                            (int)step, loss);
    adam_tf1(t, step);
    if (step != TG_STEP_D || ls->d > 0.15) t->t[step]++; /* the gate's decision for D */
    return GENESIS_OK;
}

/* ---- training loop (docs/algorithms.md §S5) ---------------------------------------------------- */

/* Batches come from the sequences in backend memory (one upload per fit; the host array in
 * place on the CPU): the host draws the row ids of a chunk of iterations' batches at once (up
 * to the next progress point, in exactly the order one batch at a time would) and uploads
 * them in one go with the step state (noise counter, k = 0). An iteration then runs on the
 * device alone (tg_issue_iter): select_block copies block k of the chunk (its q batches' ids)
 * into `sel`, take_rows gathers each batch, the noise is drawn at offsets relative to the
 * state's counter (rng_base), and step_advance moves the counter and k on; so every iteration
 * of a phase is the same work on the same buffers, which a CUDA graph records once and
 * replays (docs/timegan.md §9). */
typedef struct tg_batcher {
    const float *data;
    int64_t N, *perm;
    size_t row;               /* floats per sequence */
    gen_rng rng;
    const float *ddata;       /* the sequences in backend memory */
    float *dalloc;            /* ddata when it was allocated here */
    int32_t *hidx, *didx;     /* a chunk's row ids: host, backend memory (the same on the CPU) */
    int32_t *sel;             /* the iteration's ids (3 B, backend memory) */
    int64_t cap, used, filled; /* batches: room, gathered, drawn */
} tg_batcher;

/* Batches a chunk holds at most: 3 per iteration (phase 3) up to a progress point, and
 * 4 MiB of ids. */
static int64_t chunk_cap(int B, int log_every, int ck) {
    int64_t want = ck ? 3 : 3 * (int64_t)log_every, most = ((int64_t)4 << 20) / (4 * (int64_t)B);
    if (want > most) want = most;
    return want < 3 ? 3 : want;
}

/* Row ids of nb fresh random batches without replacement (partial Fisher-Yates over a kept
 * permutation, which is uniform whatever order it holds: the reference's permutation(N)[:B]),
 * into backend memory, and the step state the chunk's iterations start from. */
static void draw_chunk(timegan *t, tg_batcher *bt, int B, int64_t nb) {
    for (int64_t k = 0; k < nb; k++)
        for (int i = 0; i < B; i++) {
            int64_t j = i + (int64_t)gen_rng_below(&bt->rng, (uint64_t)(bt->N - i));
            int64_t tmp = bt->perm[i]; bt->perm[i] = bt->perm[j]; bt->perm[j] = tmp;
            bt->hidx[k * B + i] = (int32_t)bt->perm[i];
        }
    if (bt->didx != bt->hidx)
        t->be->ops->upload(t->be, bt->didx, bt->hidx, (size_t)(nb * B) * sizeof(int32_t));
    gen_step_state st = {t->noise_off, {0, 0}, 0};
    t->be->ops->upload(t->be, t->state, &st, sizeof st);
    bt->used = 0;
    bt->filled = nb;
}

/* Philox counters one batch's noise takes */
static uint64_t noise_step(int B, size_t row) { return ((size_t)B * row + 3) / 4 + 1; }

/* Batch j of the iteration into t->X (its ids in bt->sel), its noise into t->Z (offsets
 * relative to the step state's counter: be->rng_base is set). */
static void tg_batch(timegan *t, tg_batcher *bt, int B, int j) {
    gen_backend *be = t->be;
    be->ops->take_rows(be, t->X, bt->ddata, bt->sel + (size_t)j * B, B, (int)bt->row);
    be->ops->fill_uniform(be, t->Z, (size_t)B * bt->row, t->seed, GEN_STREAM_NOISE,
                          (uint64_t)j * noise_step(B, bt->row));
}

/* One iteration of `phase` (docs/algorithms.md §S5), nothing read back and nothing from the
 * host but the arguments, which are the same for every iteration of the phase. */
static void tg_issue_iter(timegan *t, tg_batcher *bt, int phase, int B) {
    gen_backend *be = t->be;
    int q = phase == 3 ? 3 : 1; /* batches per iteration */
    be->rng_base = &t->state->rng;
    be->ops->select_block(be, bt->sel, bt->didx, (size_t)q * B, t->state);
    if (phase == 1) {
        tg_batch(t, bt, B, 0);
        tg_fit_step(t, TG_STEP_E0, B);
    } else if (phase == 2) {
        tg_batch(t, bt, B, 0);
        tg_fit_step(t, TG_STEP_SUP, B);
    } else {
        for (int k = 0; k < 2; k++) {
            tg_batch(t, bt, B, k);
            tg_fit_step(t, TG_STEP_G, B);
            /* the reference runs the E step on the G step's batch: the G step updated G and
             * S only, so H = E(X) from its forward is still exact */
            timegan_fit_step(t, TG_STEP_E, B, 1);
        }
        /* the gate: D learns only while D_loss > 0.15, decided on the device by
         * adam_tf1_gated from the D loss of this forward (one forward serves the check and
         * the update; the reference recomputes the same value) */
        tg_batch(t, bt, B, 2);
        tg_fit_step(t, TG_STEP_D, B);
    }
    gen_step_state d = {(uint64_t)q * noise_step(B, bt->row), {0, 0}, 1};
    be->ops->step_advance(be, t->state, d);
    be->rng_base = NULL;
}

/* Runs one iteration: issued (the first of the phase in this fit, which sizes the backend's
 * scratch; or every one where the backend does not record, GENESIS_CUDA_GRAPHS=0, the CPU),
 * recorded once (the second) and then replayed. */
static genesis_status tg_run_iter(timegan *t, tg_batcher *bt, int phase, int B, int warm) {
    gen_backend *be = t->be;
    gen_graph **g = &t->graph[phase - 1];
    if (!*g && warm && gen_backend_graphs(be) && be->ops->graph_begin(be)) {
        tg_issue_iter(t, bt, phase, B);
        *g = be->ops->graph_end(be);
        if (!*g) {
            genesis_status st = gen_backend_status(be);
            return st != GENESIS_OK ? st
                                    : gen_set_error(be->ctx, GENESIS_ERR_INTERNAL,
                                                    "recording a TimeGAN iteration (phase %d) as "
                                                    "a CUDA graph failed", phase);
        }
    }
    if (*g) be->ops->graph_launch(be, *g);
    else tg_issue_iter(t, bt, phase, B);
    /* the host's mirror of what the iteration drew */
    int q = phase == 3 ? 3 : 1;
    t->noise_off += (uint64_t)q * noise_step(B, bt->row);
    bt->used += q;
    return GENESIS_OK;
}

static void batcher_free(timegan *t, tg_batcher *bt) {
    gen_backend *be = t->be;
    timegan_graphs_free(t); /* they name these buffers */
    if (bt->didx != bt->hidx) be->ops->free(be, bt->didx);
    be->ops->free(be, bt->sel);
    be->ops->free(be, bt->dalloc);
    free(bt->hidx);
    free(bt->perm);
}

genesis_status timegan_fit(timegan *t, const float *data, int64_t N, int64_t iters,
                           int log_every, tg_progress_fn progress, void *user) {
    gen_backend *be = t->be;
    genesis_ctx *ctx = be->ctx;
    GEN_RETURN_IF(N < 1, ctx, GENESIS_ERR_DATA, "TimeGAN needs at least one sequence");
    GEN_RETURN_IF(N > INT32_MAX, ctx, GENESIS_ERR_DATA,
                  "TimeGAN takes at most %d sequences, got %lld", INT32_MAX, (long long)N);
    int B = N < t->cfg.batch ? (int)N : t->cfg.batch;
    if (log_every < 1) log_every = 1;
    timegan_graphs_free(t);
    tg_batcher bt;
    memset(&bt, 0, sizeof bt);
    bt.data = data;
    bt.N = N;
    bt.row = (size_t)t->cfg.T * t->cfg.F;
    bt.perm = malloc((size_t)N * sizeof(int64_t));
    bt.cap = chunk_cap(B, log_every, t->ck != NULL);
    bt.hidx = malloc((size_t)(bt.cap * B) * sizeof(int32_t));
    bt.sel = be->ops->alloc(be, (size_t)3 * B * sizeof(int32_t));
    size_t dbytes = gen_mul_size((size_t)N, bt.row * sizeof(float));
    if (be->ops->host_memory) {
        bt.ddata = data;
        bt.didx = bt.hidx;
    } else {
        bt.dalloc = be->ops->alloc(be, dbytes);
        bt.didx = be->ops->alloc(be, (size_t)(bt.cap * B) * sizeof(int32_t));
        if (bt.dalloc) be->ops->upload(be, bt.dalloc, data, dbytes);
        bt.ddata = bt.dalloc;
    }
    if (!bt.perm || !bt.hidx || !bt.sel || !bt.ddata || !bt.didx) {
        batcher_free(t, &bt);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                             "out of memory for TimeGAN's %lld training sequences and batch order",
                             (long long)N);
    }
    for (int64_t i = 0; i < N; i++) bt.perm[i] = i;
    gen_rng_init(&bt.rng, t->seed, GEN_STREAM_SAMPLER);
    genesis_status st = GENESIS_OK;
    int phase0 = 1;
    int64_t it0 = 1; /* where to start: a continued checkpoint's next iteration */
    if (t->ck) st = t->ck->restore(t, bt.perm, N, &bt.rng, iters, &phase0, &it0);
    /* Nothing is read back inside an iteration: the losses and the divergence check wait in
     * the ledger until a progress point (every log_every iterations and the phase's last),
     * where timegan_sync reads them once (docs/timegan.md §7). */
    for (int phase = phase0; phase <= 3 && st == GENESIS_OK; phase++) {
        int64_t first = phase == phase0 ? it0 : 1;
        for (int64_t it = first; it <= iters && st == GENESIS_OK; it++) {
            int q = phase == 3 ? 3 : 1; /* batches per iteration */
            if (bt.used == bt.filled) { /* the batches up to the next progress point (one
                                           iteration with checkpoints: their state is exact);
                                           a chunk ends where the phase does */
                int64_t r = ((it - 1) / log_every + 1) * log_every;
                int64_t k = t->ck ? 1 : (r < iters ? r : iters) - it + 1;
                if (k > bt.cap / q) k = bt.cap / q;
                draw_chunk(t, &bt, B, k * q);
            }
            st = tg_run_iter(t, &bt, phase, B, it > first);
            int stop = 0;
            if (st == GENESIS_OK && (it % log_every == 0 || it == iters)) {
                st = timegan_sync(t, phase, it);
                if (st == GENESIS_OK && progress) {
                    tg_losses shown, x;
                    if (phase == 1) tg_losses_of(t, TG_STEP_E0, t->hled + TG_STEP_E0 * TL_W, &shown);
                    else if (phase == 2) tg_losses_of(t, TG_STEP_SUP, t->hled + TG_STEP_SUP * TL_W, &shown);
                    else {
                        tg_losses_of(t, TG_STEP_G, t->hled + TG_STEP_G * TL_W, &shown);
                        shown.d = tg_losses_of(t, TG_STEP_D, t->hled + TG_STEP_D * TL_W, &x);
                        tg_losses_of(t, TG_STEP_E, t->hled + TG_STEP_E * TL_W, &x);
                        shown.e_t0 = x.e_t0;
                    }
                    stop = progress(phase, it, iters, &shown, user);
                }
            }
            if (gen_ctx_interrupted(ctx)) stop = 1; /* Ctrl-C: at this iteration */
            if (st == GENESIS_OK && t->ck) st = t->ck->after(t, phase, it, iters, bt.perm, N, &bt.rng, stop);
            else if (st == GENESIS_OK && stop)
                st = gen_set_error(ctx, GENESIS_ERR_CANCELLED,
                                   "training stopped by the caller in phase %d, iteration %lld",
                                   phase, (long long)it);
        }
    }
    batcher_free(t, &bt);
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
