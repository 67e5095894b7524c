/*
 * ctgan.c — CTGAN (Xu et al., "Modeling Tabular Data using Conditional GAN", NeurIPS 2019)
 * written once against gen_backend_ops, exactly as the reference behaves
 * (docs/algorithms.md §T4):
 *   generator: z' = [z (emb), cond]; two residual blocks h = ReLU(BN(Linear(in))),
 *     out = [h, in]; a final Linear to data_dim; tanh / Gumbel-softmax (tau 0.2) per span;
 *   discriminator: pac rows packed into one input; Linear-LeakyReLU(0.2)-Dropout(0.5) twice,
 *     Linear to 1; WGAN loss + gradient penalty (lambda 10) whose gradient w.r.t. the
 *     discriminator's weights is the explicit double-backward of docs/algorithms.md §T4.6
 *     (ctgan_gp_backward);
 *   conditional loss: cross entropy of the selected discrete column's logits (§T4.5);
 *   Adam (lr 2e-4, betas 0.5/0.9, L2 decay 1e-6) for both networks.
 * Memory follows llm.c: one allocation per buffer kind (parameters, gradients, Adam m/v,
 * activations), filled from size tables into named pointers. The row layout of the
 * generator's residual stack is X = [h2 | h1 | z'] so each block's input is a suffix of X.
 * In BF16/FP16 X is stored in 16 bits (it is read only by products and for the ReLUs' signs;
 * docs/precision.md, "Memory").
 * Gradient checkpointing (ckpt; docs/memory.md): the generator's blocks keep only their
 * inputs (the suffixes of X); block 2's internals (pre, bn, h) are block 1's buffers, and the
 * backward pass recomputes block 1 from z' after block 2's backward (the same operations on
 * the same input: the same values; its running statistics go to a scratch, act.ckrs, so
 * the model's are updated once). The discriminator keeps its activations: it runs on B/pac
 * packed rows, and the gradient penalty's double backward reads both layers' slopes at once.
 * Data parallel (docs/distributed.md): with K ranks each holds a contiguous slice of the
 * global batch; every rank draws the whole batch's conditions and row picks (cheap host
 * draws) and its slice of the counter-based noise (keyed by global position), the losses are
 * scaled by the global batch so the sum over ranks is the one-rank gradient, batch norm uses
 * the global batch's statistics (synchronised), and each network's gradient arena is summed
 * in one all-reduce per step. With K == 1 none of this runs.
 * A training step takes its per-step values (noise offsets, Adam's counts, its block of
 * draws) from a device step state that it advances itself, so with one rank the second step
 * is recorded as a CUDA graph and replayed for every later one (docs/cuda.md "CUDA graphs").
 * Derivations: docs/layers.md.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "comm.h"
#include "ctgan.h"
#include "model_io.h"
#include "sampler.h"

#define CT_TAU 0.2f
#define CT_LRELU 0.2f
#define CT_DROPOUT 0.5f
#define CT_GP_LAMBDA 10.0f
#define CT_BN_EPS 1e-5f
#define CT_BN_MOMENTUM 0.1f

/* ---- arenas --------------------------------------------------------------------------- */

static void ctgan_param_sizes(const ctgan *c, size_t gs[CT_G_NT], size_t ds[CT_D_NT]) {
    int g = c->gdim;
    gs[0] = (size_t)g * c->d0; gs[1] = g; gs[2] = g; gs[3] = g;
    gs[4] = (size_t)g * c->d1; gs[5] = g; gs[6] = g; gs[7] = g;
    gs[8] = (size_t)c->data_dim * c->d2; gs[9] = c->data_dim;
    ds[0] = (size_t)c->ddim * c->pacw; ds[1] = c->ddim;
    ds[2] = (size_t)c->ddim * c->ddim; ds[3] = c->ddim;
    ds[4] = c->ddim; ds[5] = 1;
}

static void point_gen(ctgan_gen_tensors *t, float *base, const size_t *gs) {
    float **p[CT_G_NT] = {&t->W1, &t->b1, &t->bn1g, &t->bn1b, &t->W2,
                          &t->b2, &t->bn2g, &t->bn2b, &t->W3, &t->b3};
    gen_arena_point(base, p, gs, CT_G_NT);
}
static void point_dis(ctgan_dis_tensors *t, float *base, const size_t *ds) {
    float **p[CT_D_NT] = {&t->W1, &t->b1, &t->W2, &t->b2, &t->W3, &t->b3};
    gen_arena_point(base, p, ds, CT_D_NT);
}

/* Activations: one allocation, named pointers. */
static size_t ctgan_point_acts(ctgan *c, float *base) {
    size_t B = c->B, g = c->gdim;
    size_t n = c->train ? (size_t)c->n : 0, n2 = 2 * n, dd = c->train ? (size_t)c->ddim : 0;
    /* the critic's activations: the joint fake|real rows and, one rank, the interpolates
     * after them (ct_dis_forward_joint) */
    size_t nj = c->K == 1 ? 3 * n : n2;
    size_t Bt = c->train ? B : 0; /* buffers only training touches (real rows, gradients) */
    ctgan_acts *a = &c->act;
    float **p[] = {&a->z, &a->zin, &a->X, &a->pre1, &a->bn1, &a->h1, &a->mean1, &a->rstd1,
                   &a->pre2, &a->bn2, &a->h2, &a->mean2, &a->rstd2, &a->gout, &a->fake,
                   &a->real, &a->xhat, &a->dX, &a->dh, &a->dbn, &a->dpre, &a->dgout, &a->dfake,
                   &a->a1, &a->m1, &a->o1, &a->a2, &a->m2, &a->o2, &a->y,
                   &a->dy_pos, &a->dy_neg, &a->do2, &a->da2, &a->do1, &a->da1, &a->alpha,
                   &a->r1, &a->r2, &a->gd1, &a->G, &a->U, &a->q1, &a->p1,
                   &a->q2, &a->p2, &a->scal, &a->cond, &a->ckrs};
    size_t F = c->act16 ? 0 : 1; /* act16: zin, X, h1, h2 in the 16-bit X, bn2 = bn1 */
    size_t C = c->ckpt ? 0 : 1;  /* ckpt: block 2's pre, bn, h are block 1's */
    size_t sz[] = {B * c->emb, F * B * c->d0, F * B * c->d2, B * g, B * g, F * B * g, g, g,
                   C * B * g, C * F * B * g, C * F * B * g, g, g, B * c->data_dim, B * c->w,
                   Bt * c->w, B * c->w, Bt * c->d2, Bt * g, Bt * g, Bt * g, Bt * c->data_dim,
                   Bt * c->w, nj * dd, nj * dd, nj * dd, nj * dd, nj * dd, nj * dd, nj,
                   n, n, n2 * dd, n2 * dd, n2 * dd, n2 * dd,
                   c->train ? (size_t)c->ng : 0,
                   n * dd, n * dd, n * dd, n * c->pacw, n * c->pacw, n * dd, n * dd,
                   n * dd, n * dd, 16, B * (size_t)(c->cond_dim > 0 ? c->cond_dim : 1),
                   c->ckpt ? 2 * g : 0};
    GEN_ASSERT(sizeof p / sizeof p[0] == sizeof sz / sizeof sz[0]);
    size_t nf = gen_arena_point(base, p, sz, (int)(sizeof sz / sizeof sz[0]));
    if (base && c->ckpt) {
        a->pre2 = a->pre1;
        a->bn2 = a->bn1;
        a->h2 = a->h1;
    }
    if (base && c->act16) {
        a->bn2 = a->bn1;
        a->zin = a->X = a->h1 = a->h2 = NULL;
    }
    return nf;
}

/* The 16-bit arena (act16; 0 values otherwise): the generator's residual stack. */
static size_t ctgan_point_acts16(ctgan *c, uint16_t *base) {
    uint16_t **p[] = {&c->act.Xs};
    size_t sz[] = {c->act16 ? (size_t)c->B * c->d2 : 0};
    return gen_arena_point16(base, p, sz, 1);
}

/* ---- create / free ------------------------------------------------------------------------ */

/* The derived widths; shared by create and the memory model so that both count the same. */
static void ctgan_set_dims(ctgan *c, const ctgan_config *cfg) {
    c->comm = cfg->comm;
    c->K = gen_comm_size(cfg->comm);
    c->rank = gen_comm_rank(cfg->comm);
    c->Bg = cfg->batch;
    c->B = cfg->batch / c->K; c->pac = cfg->pac; c->emb = cfg->emb; c->gdim = cfg->gdim;
    c->ddim = cfg->ddim; c->data_dim = cfg->data_dim; c->cond_dim = cfg->cond_dim;
    c->r0 = c->rank * c->B;
    c->n = c->B / c->pac;
    c->ng = c->n * c->K;
    c->d0 = c->emb + c->cond_dim;
    c->d1 = c->gdim + c->d0;
    c->d2 = 2 * c->gdim + c->d0;
    c->w = c->data_dim + c->cond_dim;
    c->pacw = c->pac * c->w;
    c->train = cfg->train;
    c->ckpt = cfg->train && cfg->ckpt;
    c->dis_steps = cfg->train ? (cfg->dis_steps > 0 ? cfg->dis_steps : 1) : 0;
    c->fp16 = cfg->train && cfg->precision == GEN_PREC_FP16;
    c->act16 = gen_act16(cfg->precision);
}

/* Backend bytes of the draws allocation: the step state, the step's block, a chunk. */
static size_t ctgan_draws_bytes(const ctgan *c) {
    return sizeof(gen_step_state) +
           sizeof(int32_t) * ((size_t)ctgan_draw_ints(c) + ctgan_step_scratch(c));
}

/* Backend bytes of the loss-scaling block (FP16 training): two gen_amp and dys. */
static size_t ctgan_amp_bytes(const ctgan *c) {
    return 2 * sizeof(gen_amp) + 2 * (size_t)c->n * sizeof(float);
}

void ctgan_memory(const ctgan_config *cfg, gen_net_bytes *out) {
    ctgan c;
    memset(&c, 0, sizeof c);
    ctgan_set_dims(&c, cfg);
    size_t gs[CT_G_NT], ds[CT_D_NT], g = 0, d = 0;
    ctgan_param_sizes(&c, gs, ds);
    for (int i = 0; i < CT_G_NT; i++) g += gs[i];
    for (int i = 0; i < CT_D_NT; i++) d += ds[i];
    memset(out, 0, sizeof *out);
    /* generator weights + the batch-norm running statistics (gstats) */
    out->params = 4 * (g + 4 * (size_t)c.gdim) + (c.train ? 4 * d : 0);
    /* gradients and Adam m, v of both networks, a chunk of draws with the step state and
     * the step's block, and the ledger */
    out->optimizer = c.train ? 4 * 3 * (g + d) + ctgan_draws_bytes(&c) + 4 * CT_LEDGER +
                                   (c.fp16 ? ctgan_amp_bytes(&c) : 0)
                             : 0;
    out->acts = 4 * ctgan_point_acts(&c, NULL) + 2 * ctgan_point_acts16(&c, NULL);
    /* the products' operands (mixed precision copies them): the generator's three layers on
     * B rows; training, the discriminator's on the joint fake|real pass (2n packed rows),
     * which bound the gradient penalty's products on n rows too */
    uint64_t B = (uint64_t)c.B, g2 = (uint64_t)c.gdim;
    int s16 = c.act16; /* the generator's inputs are slices of X, in 16 bits with act16 */
    gen_linear_products(out, B, (uint64_t)c.d0, g2, s16);
    gen_linear_products(out, B, (uint64_t)c.d1, g2, s16);
    gen_linear_products(out, B, (uint64_t)c.d2, (uint64_t)c.data_dim, s16);
    if (c.train) {
        uint64_t R = (c.K == 1 ? 3 : 2) * (uint64_t)c.n, dd = (uint64_t)c.ddim;
        gen_linear_products(out, R, (uint64_t)c.pacw, dd, 0);
        gen_linear_products(out, R, dd, dd, 0);
        gen_linear_products(out, R, dd, 1, 0);
    }
    /* host: the row/category scratch (host_col) and, training, a chunk of draws */
    out->host = (size_t)c.Bg * 4 * sizeof(int32_t) +
                (c.train ? 4 * ctgan_step_scratch(&c) : (size_t)c.B * (size_t)(c.cond_dim > 0 ? c.cond_dim : 1) * 4);
}

void ctgan_free(ctgan *c) {
    if (!c) return;
    gen_backend *be = c->be;
    if (be) {
        be->ops->free(be, c->gparams); be->ops->free(be, c->ggrads);
        be->ops->free(be, c->gm); be->ops->free(be, c->gv);
        be->ops->free(be, c->gstats);
        be->ops->free(be, c->dparams); be->ops->free(be, c->dgrads);
        be->ops->free(be, c->dm); be->ops->free(be, c->dv);
        be->ops->free(be, c->acts);
        be->ops->free(be, c->acts16);
        ctgan_graph_free(c);
        be->ops->free(be, c->state); /* the allocation that holds the draws */
        be->ops->free(be, c->ledger);
        be->ops->free(be, c->bnred);
        be->ops->free(be, c->amp);
        be->ops->free(be, c->gwt);
    }
    free(c->spans);
    free(c->host_col);
    free(c);
}

genesis_status ctgan_create(genesis_ctx *ctx, gen_backend *be, const ctgan_config *cfg,
                            const gen_act_span *spans, int nspans, ctgan **out) {
    *out = NULL;
    ctgan *c = calloc(1, sizeof *c);
    GEN_RETURN_IF(!c, ctx, GENESIS_ERR_NOMEM, "out of memory creating CTGAN");
    c->be = be;
    ctgan_set_dims(c, cfg);
    c->nspans = nspans;
    c->spans = calloc((size_t)(nspans ? nspans : 1), sizeof *spans);
    c->host_col = calloc((size_t)c->Bg * 4, sizeof(int32_t));
    if (!c->spans || !c->host_col) goto nomem;
    memcpy(c->spans, spans, (size_t)nspans * sizeof *spans);

    size_t gs[CT_G_NT], ds[CT_D_NT];
    ctgan_param_sizes(c, gs, ds);
    for (int i = 0; i < CT_G_NT; i++) c->gcount += gs[i];
    for (int i = 0; i < CT_D_NT; i++) c->dcount += ds[i];
    size_t gb = c->gcount * sizeof(float), db = c->dcount * sizeof(float);
    c->gparams = be->ops->alloc(be, gb);
    c->gstats = be->ops->alloc(be, 4 * (size_t)c->gdim * sizeof(float));
    size_t nacts = ctgan_point_acts(c, NULL);
    c->acts = be->ops->alloc(be, gen_mul_size(nacts, sizeof(float)));
    size_t n16 = ctgan_point_acts16(c, NULL);
    if (n16) c->acts16 = be->ops->alloc(be, gen_mul_size(n16, sizeof(uint16_t)));
    if (!c->gparams || !c->gstats || !c->acts || (n16 && !c->acts16)) goto nomem;
    point_gen(&c->gp, c->gparams, gs);
    ctgan_point_acts(c, c->acts);
    ctgan_point_acts16(c, c->acts16);
    if (c->ckpt) be->ops->zero(be, c->act.ckrs, 2 * (size_t)c->gdim);
    if (c->train) {
        /* the gradient arenas end with CT_RED_TAIL floats for the losses (ctgan_reduce) */
        c->ggrads = be->ops->alloc(be, gb + CT_RED_TAIL * sizeof(float));
        c->gm = be->ops->alloc(be, gb); c->gv = be->ops->alloc(be, gb);
        c->dparams = be->ops->alloc(be, db);
        c->dgrads = be->ops->alloc(be, db + CT_RED_TAIL * sizeof(float));
        if (c->K > 1) c->bnred = be->ops->alloc(be, 2 * (size_t)c->gdim * sizeof(float));
        c->dm = be->ops->alloc(be, db); c->dv = be->ops->alloc(be, db);
        c->state = be->ops->alloc(be, ctgan_draws_bytes(c));
        if (c->state) {
            c->cur = (int32_t *)(c->state + 1);
            c->draws = c->cur + ctgan_draw_ints(c);
        }
        c->ledger = be->ops->alloc(be, CT_LEDGER * sizeof(float));
        if (c->fp16) {
            c->amp = be->ops->alloc(be, ctgan_amp_bytes(c));
            if (c->amp) c->dys = (float *)(c->amp + 2);
        }
        if (!c->ggrads || !c->gm || !c->gv || !c->dparams || !c->dgrads || !c->dm || !c->dv ||
            !c->draws || !c->ledger || (c->K > 1 && !c->bnred) || (c->fp16 && !c->amp))
            goto nomem;
        point_gen(&c->gg, c->ggrads, gs);
        point_dis(&c->dp, c->dparams, ds);
        point_dis(&c->dg, c->dgrads, ds);
    }
    if (c->train) {
        float *h = malloc((size_t)c->n * 2 * sizeof(float));
        if (!h) goto nomem;
        for (int k = 0; k < c->n; k++) { /* the WGAN loss is a mean over the global batch */
            h[k] = 1.0f / c->ng;
            h[c->n + k] = -1.0f / c->ng;
        }
        be->ops->upload(be, c->act.dy_pos, h, (size_t)c->n * sizeof(float));
        be->ops->upload(be, c->act.dy_neg, h + c->n, (size_t)c->n * sizeof(float));
        free(h);
    }
    *out = c;
    return GENESIS_OK;
nomem:
    ctgan_free(c);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                         "out of memory allocating CTGAN (batch %d, data width %d, cond width %d)",
                         cfg->batch, cfg->data_dim, cfg->cond_dim);
}

/* torch.nn.Linear init: W, b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)); BN gamma 1, beta 0. */
static void init_uniform(float *x, size_t n, int fan_in, gen_rng *r) {
    float bound = 1.0f / sqrtf((float)fan_in);
    for (size_t i = 0; i < n; i++) x[i] = bound * (2.0f * (float)gen_rng_uniform(r) - 1.0f);
}

genesis_status ctgan_init_weights(ctgan *c, uint64_t seed) {
    gen_backend *be = c->be;
    float *hg = malloc(c->gcount * sizeof(float)), *hd = malloc(c->dcount * sizeof(float));
    float *hs = malloc(4 * (size_t)c->gdim * sizeof(float));
    if (!hg || !hd || !hs) {
        free(hg); free(hd); free(hs);
        return gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory initialising CTGAN");
    }
    size_t gs[CT_G_NT], ds[CT_D_NT];
    ctgan_param_sizes(c, gs, ds);
    ctgan_gen_tensors g;
    ctgan_dis_tensors d;
    point_gen(&g, hg, gs);
    point_dis(&d, hd, ds);
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_INIT);
    init_uniform(g.W1, gs[0], c->d0, &r); init_uniform(g.b1, gs[1], c->d0, &r);
    init_uniform(g.W2, gs[4], c->d1, &r); init_uniform(g.b2, gs[5], c->d1, &r);
    init_uniform(g.W3, gs[8], c->d2, &r); init_uniform(g.b3, gs[9], c->d2, &r);
    for (int i = 0; i < c->gdim; i++) {
        g.bn1g[i] = 1; g.bn1b[i] = 0; g.bn2g[i] = 1; g.bn2b[i] = 0;
        hs[i] = 0; hs[c->gdim + i] = 1; hs[2 * c->gdim + i] = 0; hs[3 * c->gdim + i] = 1;
    }
    init_uniform(d.W1, ds[0], c->pacw, &r); init_uniform(d.b1, ds[1], c->pacw, &r);
    init_uniform(d.W2, ds[2], c->ddim, &r); init_uniform(d.b2, ds[3], c->ddim, &r);
    init_uniform(d.W3, ds[4], c->ddim, &r); init_uniform(d.b3, ds[5], c->ddim, &r);
    be->ops->upload(be, c->gparams, hg, c->gcount * sizeof(float));
    be->ops->upload(be, c->dparams, hd, c->dcount * sizeof(float));
    be->ops->upload(be, c->gstats, hs, 4 * (size_t)c->gdim * sizeof(float));
    be->ops->zero(be, c->gm, c->gcount); be->ops->zero(be, c->gv, c->gcount);
    be->ops->zero(be, c->dm, c->dcount); be->ops->zero(be, c->dv, c->dcount);
    c->gstep = c->dstep = 0;
    if (c->amp) gen_amp_reset(be, c->amp, 2);
    free(hg); free(hd); free(hs);
    return GENESIS_OK;
}

/* Next fresh block of the Philox noise stream for n elements. */
static uint64_t noise_offset(ctgan *c, size_t n) {
    uint64_t o = c->noise_off;
    c->noise_off += (n + 3) / 4 + 1;
    return o;
}

/* ---- data-parallel pieces (no-ops, or the one-rank code, when K == 1) ----------------------- */

static void ct_allreduce(ctgan *c, float *x, size_t n) {
    if (c->comm_st == GENESIS_OK) c->comm_st = gen_comm_allreduce_sum(c->comm, c->be, x, n);
}

/* Training-mode batch norm: this batch's statistics (K == 1) or the global batch's (K > 1:
 * partial mean, all-reduce, partial variance around it, all-reduce), then the running
 * statistics update with the global row count. */
static void ct_bn_forward(ctgan *c, float *out, float *mean, float *rstd, const float *inp,
                          const float *gamma, const float *beta, float *rm, float *rv) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    int B = c->B, g = c->gdim;
    if (c->K == 1) {
        o->batchnorm_forward(be, out, mean, rstd, inp, gamma, beta, B, g, CT_BN_EPS);
    } else {
        o->batchnorm_stats(be, mean, inp, NULL, B, g, c->Bg);
        ct_allreduce(c, mean, (size_t)g);
        o->batchnorm_stats(be, rstd, inp, mean, B, g, c->Bg);
        ct_allreduce(c, rstd, (size_t)g);
        o->batchnorm_apply(be, out, rstd, inp, mean, gamma, beta, B, g, CT_BN_EPS);
    }
    o->batchnorm_update_running(be, rm, rv, mean, rstd, c->Bg, g, CT_BN_MOMENTUM, CT_BN_EPS);
}

/* Batch-norm backward; K > 1: the two column sums of the global batch (one all-reduce of
 * 2 gdim floats). dgamma/dbeta get this rank's share, summed with the other gradients. */
static void ct_bn_backward(ctgan *c, float *dinp, float *dgamma, float *dbeta, const float *dout,
                           const float *inp, const float *mean, const float *rstd,
                           const float *gamma) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    int B = c->B, g = c->gdim;
    if (c->K == 1) {
        o->batchnorm_backward(be, dinp, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, g);
        return;
    }
    o->batchnorm_backward_sums(be, c->bnred, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, g);
    ct_allreduce(c, c->bnred, 2 * (size_t)g);
    o->batchnorm_backward_apply(be, dinp, dout, inp, mean, rstd, gamma, c->bnred, B, g, c->Bg);
}

/* Leaky ReLU and dropout on n packed rows (one pass, lrelu_dropout_forward; K == 1 uses
 * linear_lrelu_dropout_forward instead): out = the block's output, mask = its local slope s
 * (dropout mask times the leaky ReLU's slope), all the backward pass and the gradient penalty
 * need. K > 1: the rows are one (or, for the joint fake|real pass, two) slices of the global
 * packed rows, so each slice takes the mask the whole batch would have at its global position (the
 * fit checks that positions fall on Philox block boundaries). */
static void ct_dropout(ctgan *c, float *out, float *mask, const float *inp, int n) {
    gen_backend *be = c->be;
    size_t dd = (size_t)c->ddim, nd = (size_t)n * dd;
    if (c->K == 1) {
        be->ops->lrelu_dropout_forward(be, out, mask, inp, nd, CT_LRELU, CT_DROPOUT, c->seed,
                                       GEN_STREAM_NOISE, noise_offset(c, nd));
        return;
    }
    int halves = n == 2 * c->n ? 2 : 1;
    size_t nh = (size_t)n / halves, ngh = nh * (size_t)c->K;
    uint64_t base = noise_offset(c, (size_t)halves * ngh * dd);
    for (int h = 0; h < halves; h++) {
        size_t first = ((size_t)h * ngh + (size_t)c->rank * nh) * dd, at = (size_t)h * nh * dd;
        be->ops->lrelu_dropout_forward(be, out + at, mask + at, inp + at, nh * dd, CT_LRELU,
                                       CT_DROPOUT, c->seed, GEN_STREAM_NOISE, base + first / 4);
    }
}

/* Sums the gradient arena over ranks together with the nsc loss sums of act.scal (carried
 * in the arena's tail) and returns where the summed scalars are (backend memory; K == 1:
 * act.scal itself). Nothing is read back: the ledger keeps them (ct_ledger). */
static float *ct_reduce(ctgan *c, float *grads, size_t count, int nsc) {
    gen_backend *be = c->be;
    if (c->K == 1) return c->act.scal;
    be->ops->copy2d(be, grads + count, nsc, c->act.scal, nsc, 1, nsc);
    ct_allreduce(c, grads, count + (size_t)nsc);
    return grads + count;
}

/* The step's bookkeeping, all in backend memory: the network's loss sums (4 floats at
 * `at`) and the sum of its gradient arena (non-finite iff any gradient is, short of an
 * overflow that is a divergence too) go to the ledger, and into the epoch's running sum,
 * which ctgan_epoch_end reads once. */
static void ct_ledger(ctgan *c, const float *sums, const float *grads, size_t count, int at) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    o->ledger_add(be, c->ledger + at, c->ledger + CT_LEDGER_TMP, c->ledger + CT_LEDGER_ACC, sums, 4,
                  grads, count);
}

/* ---- generator ------------------------------------------------------------------------------- */

/* Column `col` on of the generator's input z' = [z, cond] = src (B x width, contiguous): into
 * zin (FP32) or, with act16, into X's last d0 columns in 16 bits. */
static void ct_put_input(ctgan *c, int col, const float *src, int width) {
    gen_backend *be = c->be;
    if (c->act16)
        be->ops->to_half(be, c->act.Xs + 2 * c->gdim + col, c->d2, src, width, c->B, width);
    else
        be->ops->copy2d(be, c->act.zin + col, c->d0, src, width, c->B, width);
}

/* A generator block's batch norm: training statistics (train_bn) or the running ones. */
static void ct_gen_bn(ctgan *c, int train_bn, float *out, float *mean, float *rstd,
                      const float *inp, const float *gamma, const float *beta, float *rm,
                      float *rv) {
    gen_backend *be = c->be;
    if (train_bn) ct_bn_forward(c, out, mean, rstd, inp, gamma, beta, rm, rv);
    else be->ops->batchnorm_forward_eval(be, out, inp, rm, rv, gamma, beta, c->B, c->gdim,
                                         CT_BN_EPS);
}

/* Block 1, z' -> h1 (into X[:, g:2g] too), its running statistics into rm1, rv1 (the
 * model's, or with ckpt's recomputation a scratch). */
static void ct_gen_block1(ctgan *c, int train_bn, float *rm1, float *rv1) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_gen_tensors *p = &c->gp;
    int B = c->B, g = c->gdim, d0 = c->d0, d2 = c->d2;
    if (c->act16) { /* X in 16 bits (docs/precision.md, "Memory"): the same products */
        uint16_t *X = a->Xs; /* z' is in place (ct_put_input) */
        o->linear_forward_h(be, a->pre1, g, X + 2 * g, d2, p->W1, p->b1, B, d0, g);
        ct_gen_bn(c, train_bn, a->bn1, a->mean1, a->rstd1, a->pre1, p->bn1g, p->bn1b, rm1, rv1);
        o->relu_forward_h(be, X + g, d2, a->bn1, g, B, g);
        return;
    }
    /* one rank in training: the block is one operation (linear_bn_relu_forward: on CUDA
     * the product and one kernel; docs/cuda.md, "Kernels per step") */
    if (train_bn && c->K == 1) {
        o->linear_bn_relu_forward(be, a->h1, g, a->pre1, a->bn1, a->mean1, a->rstd1, rm1, rv1,
                                  a->zin, d0, p->W1, p->b1, p->bn1g, p->bn1b, B, d0, g,
                                  CT_BN_EPS, CT_BN_MOMENTUM);
    } else {
        o->linear_forward(be, a->pre1, g, a->zin, d0, p->W1, p->b1, B, d0, g);
        ct_gen_bn(c, train_bn, a->bn1, a->mean1, a->rstd1, a->pre1, p->bn1g, p->bn1b, rm1, rv1);
        o->relu_forward(be, a->h1, a->bn1, (size_t)B * g);
    }
    o->copy2d(be, a->X + g, d2, a->h1, g, B, g);
}

genesis_status ctgan_sampling_weights(ctgan *c) {
    gen_backend *be = c->be;
    if (!be->ops->host_memory || !be->ops->linear_sparse_forward || c->act16 || c->K != 1)
        return GENESIS_OK;
    int g = c->gdim;
    size_t n1 = (size_t)c->d0 * g, n2 = (size_t)c->d1 * g, n3 = (size_t)c->d2 * c->data_dim;
    if (!c->gwt) {
        c->gwt = be->ops->alloc(be, gen_mul_size(n1 + n2 + n3, sizeof(float)));
        GEN_RETURN_IF(!c->gwt, be->ctx, GENESIS_ERR_NOMEM,
                      "out of memory for CTGAN's sampling weights (%zu floats)", n1 + n2 + n3);
    }
    const float *W[3] = {c->gp.W1, c->gp.W2, c->gp.W3}; /* host memory: read in place */
    int in[3] = {c->d0, c->d1, c->d2}, out[3] = {g, g, c->data_dim};
    float *t = c->gwt;
    enum { TILE = 32 }; /* in tiles: both sides stay in cache on wide tables */
    for (int l = 0; l < 3; l++) {
        for (int o0 = 0; o0 < out[l]; o0 += TILE)
            for (int i0 = 0; i0 < in[l]; i0 += TILE)
                for (int o = o0; o < o0 + TILE && o < out[l]; o++)
                    for (int i = i0; i < i0 + TILE && i < in[l]; i++)
                        t[(size_t)i * out[l] + o] = W[l][(size_t)o * in[l] + i];
        t += (size_t)in[l] * out[l];
    }
    return GENESIS_OK;
}

/* ctgan_gen_forward while sampling with gwt: each product sums only its input's non-zeros
 * (linear_sparse_forward): block 1 reads z and one weight row for the one-hot condition
 * instead of all d0 rows, block 2 and the output layer skip the ReLUs' zeros and the
 * condition's zeros too. The same layers as the dense path; the sums run in input order. */
static void ct_gen_forward_sparse(ctgan *c, int train_bn) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_gen_tensors *p = &c->gp;
    int B = c->B, g = c->gdim, d0 = c->d0, d1 = c->d1, d2 = c->d2;
    float *rm1 = c->gstats, *rv1 = rm1 + g, *rm2 = rv1 + g, *rv2 = rm2 + g;
    const float *wt1 = c->gwt, *wt2 = wt1 + (size_t)d0 * g, *wt3 = wt2 + (size_t)d1 * g;
    o->copy2d(be, a->X + 2 * g, d2, a->zin, d0, B, d0);
    o->linear_sparse_forward(be, a->pre1, g, a->zin, d0, wt1, p->b1, B, d0, g);
    ct_gen_bn(c, train_bn, a->bn1, a->mean1, a->rstd1, a->pre1, p->bn1g, p->bn1b, rm1, rv1);
    o->relu_forward(be, a->h1, a->bn1, (size_t)B * g);
    o->copy2d(be, a->X + g, d2, a->h1, g, B, g);
    o->linear_sparse_forward(be, a->pre2, g, a->X + g, d2, wt2, p->b2, B, d1, g);
    ct_gen_bn(c, train_bn, a->bn2, a->mean2, a->rstd2, a->pre2, p->bn2g, p->bn2b, rm2, rv2);
    o->relu_forward(be, a->h2, a->bn2, (size_t)B * g);
    o->copy2d(be, a->X, d2, a->h2, g, B, g);
    o->linear_sparse_forward(be, a->gout, c->data_dim, a->X, d2, wt3, p->b3, B, d2, c->data_dim);
}

/* act->zin (B x d0) must hold z' = [z, cond] (with act16: X's last d0 columns, ct_put_input).
 * Writes act->gout (B x data_dim). */
void ctgan_gen_forward(ctgan *c, int train_bn) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_gen_tensors *p = &c->gp;
    int B = c->B, g = c->gdim, d0 = c->d0, d1 = c->d1, d2 = c->d2;
    float *rm1 = c->gstats, *rv1 = rm1 + g, *rm2 = rv1 + g, *rv2 = rm2 + g;
    if (c->act16) { /* X in 16 bits (docs/precision.md, "Memory"): the same products */
        uint16_t *X = a->Xs; /* z' is in place (ct_put_input) */
        ct_gen_block1(c, train_bn, rm1, rv1);
        o->linear_forward_h(be, a->pre2, g, X + g, d2, p->W2, p->b2, B, d1, g);
        ct_gen_bn(c, train_bn, a->bn2, a->mean2, a->rstd2, a->pre2, p->bn2g, p->bn2b, rm2, rv2);
        o->relu_forward_h(be, X, d2, a->bn2, g, B, g);
        o->linear_forward_h(be, a->gout, c->data_dim, X, d2, p->W3, p->b3, B, d2, c->data_dim);
        return;
    }
    if (c->gwt_on) {
        ct_gen_forward_sparse(c, train_bn);
        return;
    }
    o->copy2d(be, a->X + 2 * g, d2, a->zin, d0, B, d0);
    int fused = train_bn && c->K == 1; /* as in ct_gen_block1 */
    ct_gen_block1(c, train_bn, rm1, rv1);
    /* block 2: input X[:, g:] = [h1, z'] */
    if (fused) {
        o->linear_bn_relu_forward(be, a->h2, g, a->pre2, a->bn2, a->mean2, a->rstd2, rm2, rv2,
                                  a->X + g, d2, p->W2, p->b2, p->bn2g, p->bn2b, B, d1, g,
                                  CT_BN_EPS, CT_BN_MOMENTUM);
    } else {
        o->linear_forward(be, a->pre2, g, a->X + g, d2, p->W2, p->b2, B, d1, g);
        ct_gen_bn(c, train_bn, a->bn2, a->mean2, a->rstd2, a->pre2, p->bn2g, p->bn2b, rm2, rv2);
        o->relu_forward(be, a->h2, a->bn2, (size_t)B * g);
    }
    o->copy2d(be, a->X, d2, a->h2, g, B, g);
    /* output layer on X = [h2, h1, z'] */
    o->linear_forward(be, a->gout, c->data_dim, a->X, d2, p->W3, p->b3, B, d2, c->data_dim);
}

/* Backward from act->dgout (B x data_dim) into c->gg (+=). Uses the forward's activations. */
void ctgan_gen_backward(ctgan *c) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_gen_tensors *p = &c->gp, *d = &c->gg;
    int B = c->B, g = c->gdim, d0 = c->d0, d1 = c->d1, d2 = c->d2, dd = c->data_dim;
    size_t Bg = (size_t)B * g;
    /* each layer's input: FP32 (X, zin) or, with act16, X in 16 bits (docs/precision.md,
     * "Memory"); the other pointer is NULL. The block ReLU outputs h2, h1 are X's first two
     * column groups. */
    const uint16_t *Xs = a->Xs;
    const uint16_t *in3s = Xs, *in2s = Xs ? Xs + g : NULL, *in1s = Xs ? Xs + 2 * g : NULL;
    const float *in3 = a->X, *in2 = a->X ? a->X + g : NULL, *in1 = a->zin;
    /* only the hidden parts of each block's input need a gradient (z' is an input), so dX
     * is computed for X[:, :2g] from the output layer and X[:, g:2g] from block 2 */
    o->zero(be, a->dX, (size_t)B * d2);
    gen_linear_backward_x(be, NULL, 0, d->W3, d->b3, a->dgout, dd, in3, in3s, d2, p->W3, B, d2,
                          dd);
    o->gemm(be, 0, 0, B, 2 * g, c->data_dim, 1.0f, a->dgout, c->data_dim, p->W3, d2, 1.0f, a->dX, d2);
    /* one rank with FP32 storage: each block's ReLU, batch norm and bias gradient in one
     * operation (relu_bn_backward; docs/cuda.md, "Kernels per step") */
    int fused = c->K == 1 && !Xs;
    /* block 2 */
    o->zero(be, a->dpre, Bg);
    float *db = d->b2;
    if (fused) {
        o->relu_bn_backward(be, a->dpre, d->bn2g, d->bn2b, db, a->dh, a->dbn, a->dX, d2, a->h2,
                            g, a->pre2, a->mean2, a->rstd2, p->bn2g, B, g);
        db = NULL;
    } else {
        o->copy2d(be, a->dh, g, a->dX, d2, B, g);
        o->zero(be, a->dbn, Bg);
        gen_relu_backward_x(be, a->dbn, a->dh, a->h2, in3s, d2, B, g);
        ct_bn_backward(c, a->dpre, d->bn2g, d->bn2b, a->dbn, a->pre2, a->mean2, a->rstd2, p->bn2g);
    }
    gen_linear_backward_x(be, NULL, 0, d->W2, db, a->dpre, g, in2, in2s, d2, p->W2, B, d1, g);
    o->gemm(be, 0, 0, B, g, g, 1.0f, a->dpre, g, p->W2, d1, 1.0f, a->dX + g, d2);
    /* block 1 (ckpt: its internals were block 2's; recomputed from z', the running
     * statistics into the scratch) */
    if (c->ckpt) ct_gen_block1(c, 1, a->ckrs, a->ckrs + g);
    o->zero(be, a->dpre, Bg);
    db = d->b1;
    if (fused) {
        o->relu_bn_backward(be, a->dpre, d->bn1g, d->bn1b, db, a->dh, a->dbn, a->dX + g, d2,
                            a->h1, g, a->pre1, a->mean1, a->rstd1, p->bn1g, B, g);
        db = NULL;
    } else {
        o->copy2d(be, a->dh, g, a->dX + g, d2, B, g);
        o->zero(be, a->dbn, Bg);
        gen_relu_backward_x(be, a->dbn, a->dh, a->h1, in2s, d2, B, g);
        ct_bn_backward(c, a->dpre, d->bn1g, d->bn1b, a->dbn, a->pre1, a->mean1, a->rstd1, p->bn1g);
    }
    gen_linear_backward_x(be, NULL, 0, d->W1, db, a->dpre, g, in1, in1s, Xs ? d2 : d0, p->W1,
                          B, d0, g);
}

/* ---- discriminator -------------------------------------------------------------------------- */

/* x: `n` packed rows of width pac*w (B rows of width w per n = B/pac; up to 2B rows so
 * that the fake and real batches share one pass: then n = 2 c->n, fake rows first).
 * Writes act->y (n). */
static void ct_dis_forward(ctgan *c, const float *x, int n, int nsums);

void ctgan_dis_forward(ctgan *c, const float *x, int n) { ct_dis_forward(c, x, n, 0); }

/* ctgan_dis_forward, and with nsums > 0 act->scal[j] = sum of y over the j-th of nsums equal
 * parts of the n rows (the critic's score sums; linear1_forward: one kernel on CUDA) */
static void ct_dis_forward(ctgan *c, const float *x, int n, int nsums) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_dis_tensors *p = &c->dp;
    int dd = c->ddim;
    if (c->K == 1) { /* each block one operation: on CUDA the product and one kernel */
        size_t nd = (size_t)n * dd;
        o->linear_lrelu_dropout_forward(be, a->o1, a->m1, a->a1, x, c->pacw, p->W1, p->b1, n,
                                        c->pacw, dd, CT_LRELU, CT_DROPOUT, c->seed,
                                        GEN_STREAM_NOISE, noise_offset(c, nd), 0, 0);
        o->linear_lrelu_dropout_forward(be, a->o2, a->m2, a->a2, a->o1, dd, p->W2, p->b2, n, dd,
                                        dd, CT_LRELU, CT_DROPOUT, c->seed, GEN_STREAM_NOISE,
                                        noise_offset(c, nd), 0, 0);
    } else {
        o->linear_forward(be, a->a1, dd, x, c->pacw, p->W1, p->b1, n, c->pacw, dd);
        ct_dropout(c, a->o1, a->m1, a->a1, n);
        o->linear_forward(be, a->a2, dd, a->o1, dd, p->W2, p->b2, n, dd, dd);
        ct_dropout(c, a->o2, a->m2, a->a2, n);
    }
    o->linear1_forward(be, a->y, a->scal, nsums, a->o2, dd, p->W3, p->b3, n, dd, 0);
}

/* The discriminator step's critic pass, one rank: the joint fake|real rows (2n; the score
 * sums into scal[0], scal[1]) and the interpolates of the gradient penalty after them (n rows,
 * drawn here: interpolate_uniform), each layer in one operation over the 3n rows (the
 * interpolates' activations are rows 2n.. of a1, m1, ...). The draws keep the order of the
 * separate passes (the joint pass's two masks, the alphas, the interpolates' two masks), so the
 * numbers are those of ct_dis_forward on the joint rows, the interpolation, and
 * ctgan_dis_forward on the interpolates (docs/cuda.md, "Kernels per step"). */
static void ct_dis_forward_joint(ctgan *c) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_dis_tensors *p = &c->dp;
    int n = c->n, dd = c->ddim;
    size_t nd = (size_t)n * dd;
    GEN_ASSERT(c->K == 1 && a->xhat == a->real + (size_t)c->B * c->w);
    uint64_t j1 = noise_offset(c, 2 * nd), j2 = noise_offset(c, 2 * nd);
    uint64_t al = noise_offset(c, (size_t)c->ng);
    uint64_t x1 = noise_offset(c, nd), x2 = noise_offset(c, nd);
    o->interpolate_uniform(be, a->xhat, a->alpha, a->real, a->fake, c->B, c->w, c->pac,
                           (size_t)c->ng, (size_t)c->rank * n, c->seed, GEN_STREAM_NOISE, al);
    o->linear_lrelu_dropout_forward(be, a->o1, a->m1, a->a1, a->fake, c->pacw, p->W1, p->b1, 2 * n,
                                    c->pacw, dd, CT_LRELU, CT_DROPOUT, c->seed, GEN_STREAM_NOISE,
                                    j1, n, x1);
    o->linear_lrelu_dropout_forward(be, a->o2, a->m2, a->a2, a->o1, dd, p->W2, p->b2, 2 * n, dd,
                                    dd, CT_LRELU, CT_DROPOUT, c->seed, GEN_STREAM_NOISE, j2, n,
                                    x2);
    o->linear1_forward(be, a->y, a->scal, 2, a->o2, dd, p->W3, p->b3, 2 * n, dd, n);
}

/* Backward from dy (n packed rows, as in the forward). dx += d/dx when non-NULL; weight
 * grads into c->dg when with_weights. */
void ctgan_dis_backward(ctgan *c, const float *x, const float *dy, float *dx, int with_weights,
                        int n) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_dis_tensors *p = &c->dp, *d = with_weights ? &c->dg : NULL;
    int dd = c->ddim;
    size_t nd = (size_t)n * dd;
    /* the output layer's backward with block 2's slope (m2) and bias gradient in one operation
     * (linear1_backward_act); block 1's slope (m1: ct_dropout) and the first layer's bias
     * gradient in one pass (act_backward_bias) */
    o->linear1_backward_act(be, a->da2, d ? d->b2 : NULL, a->do2, d ? d->W3 : NULL,
                            d ? d->b3 : NULL, dy, a->o2, p->W3, a->m2, n, dd);
    o->zero(be, a->do1, nd);
    o->linear_backward(be, a->do1, dd, d ? d->W2 : NULL, NULL, a->da2, dd, a->o1, dd, p->W2, n,
                       dd, dd);
    o->zero(be, a->da1, nd);
    o->act_backward_bias(be, a->da1, d ? d->b1 : NULL, a->do1, a->m1, n, dd, GEN_ACT_SCALE);
    o->linear_backward(be, dx, c->pacw, d ? d->W1 : NULL, NULL, a->da1, dd, x, c->pacw, p->W1, n,
                       c->pacw, dd);
}

/* Gradient penalty on act->xhat (after ctgan_dis_forward(c, act->xhat) filled a1, m1, a2,
 * m2): pen = lambda * mean_g (|dD/dxhat_g| - 1)^2; adds d pen / d weights to c->dg and
 * returns pen in act->scal[2]. The explicit double-backward of docs/algorithms.md §T4.6. */
static void ct_gp_backward(ctgan *c, const float *s1, const float *s2);

void ctgan_gp_backward(ctgan *c) { ct_gp_backward(c, c->act.m1, c->act.m2); }

/* ctgan_gp_backward with the interpolates' local slopes s1, s2 (n x ddim each; ct_dropout)
 * where they are: rows 0.. of m1, m2 after ctgan_dis_forward, rows 2n.. after
 * ct_dis_forward_joint */
static void ct_gp_backward(ctgan *c, const float *s1, const float *s2) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    ctgan_dis_tensors *p = &c->dp, *d = &c->dg;
    int n = c->n, dd = c->ddim, pw = c->pacw;
    size_t nd = (size_t)n * dd;
    o->mul_rowvec(be, a->r2, s2, p->W3, n, dd);                             /* g_a2 */
    o->gemm(be, 0, 0, n, dd, dd, 1.0f, a->r2, dd, p->W2, dd, 0.0f, a->gd1, dd); /* g_d1 */
    o->mul(be, a->r1, s1, a->gd1, nd);                                   /* g_a1 */
    o->gemm(be, 0, 0, n, pw, dd, 1.0f, a->r1, dd, p->W1, pw, 0.0f, a->G, pw);   /* dD/dx */
    /* lambda * mean over the global packed rows: K > 1 scales by this rank's share */
    float lambda = c->K == 1 ? CT_GP_LAMBDA : CT_GP_LAMBDA * (float)n / (float)c->ng;
    o->gp_penalty(be, a->scal + 2, a->U, a->G, n, pw, lambda);
    if (c->amp) o->amp_scale(be, a->U, (size_t)n * pw, &c->amp[0]); /* FP16: the loss scale */
    o->gemm(be, 1, 0, dd, pw, n, 1.0f, a->r1, dd, a->U, pw, 1.0f, d->W1, pw);
    o->gemm(be, 0, 1, n, dd, pw, 1.0f, a->U, pw, p->W1, pw, 0.0f, a->q1, dd);
    o->mul(be, a->p1, s1, a->q1, nd);
    o->gemm(be, 1, 0, dd, dd, n, 1.0f, a->r2, dd, a->p1, dd, 1.0f, d->W2, dd);
    o->gemm(be, 0, 1, n, dd, dd, 1.0f, a->p1, dd, p->W2, dd, 0.0f, a->q2, dd);
    /* p2 = s2 * q2 and its column sums into W3's gradient in one pass (act_backward_bias) */
    o->zero(be, a->p2, nd);
    o->act_backward_bias(be, a->p2, d->W3, a->q2, s2, n, dd, GEN_ACT_SCALE);
}

/* ---- one training step ------------------------------------------------------------------------ */

/* Fills z' = [z ~ N(0,1), one-hot cond] (ct_put_input) and act->cond for this rank's rows: gpos
 * holds each row's position in the conditional vector (-1: none); z is the global batch's
 * noise at rows r0 .. */
void ctgan_generator_input(ctgan *c, const int32_t *gpos) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    size_t nz = (size_t)c->B * c->emb;
    uint64_t off = noise_offset(c, (size_t)c->Bg * c->emb) + (uint64_t)c->r0 * c->emb / 4;
    if (!c->act16 && c->cond_dim > 0) { /* zin = [z, cond] in one operation; cond stays there */
        o->normal_onehot_rows(be, a->zin, c->d0, a->z, a->cond, c->emb, c->cond_dim, gpos, c->B,
                              c->seed, GEN_STREAM_NOISE, off);
        return;
    }
    o->fill_normal(be, a->z, nz, c->seed, GEN_STREAM_NOISE, off);
    ct_put_input(c, 0, a->z, c->emb);
    if (c->cond_dim > 0) {
        o->onehot_rows(be, a->cond, c->cond_dim, c->cond_dim, gpos, c->B);
        ct_put_input(c, c->emb, a->cond, c->cond_dim);
    }
}

/* act->fake = [activate(gout), cond] */
void ctgan_fake_rows(ctgan *c) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    size_t ne = (size_t)c->Bg * c->data_dim;
    o->activate_forward(be, a->fake, c->w, a->gout, c->data_dim, c->B, c->spans, c->nspans, CT_TAU,
                        c->seed, GEN_STREAM_NOISE, noise_offset(c, ne), (uint64_t)c->r0);
    if (c->cond_dim > 0)
        o->copy2d(be, a->fake + c->data_dim, c->w, c->act16 ? a->cond : a->zin + c->emb,
                  c->act16 ? c->cond_dim : c->d0, c->B, c->cond_dim);
}

void ctgan_gen_grads(ctgan *c, const float *dy, int n_disc, const int32_t *ce_start,
                     const int32_t *ce_len, const int32_t *ce_tgt) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    int B = c->B, w = c->w;
    o->zero(be, a->dfake, (size_t)B * w);
    o->zero(be, a->dgout, (size_t)B * c->data_dim);
    ctgan_dis_backward(c, a->fake, dy, a->dfake, 0, c->n);
    o->activate_backward(be, a->dgout, c->data_dim, a->dfake, w, a->fake, w, B, c->spans,
                         c->nspans, CT_TAU);
    if (n_disc > 0)
        o->cross_entropy_rows(be, a->scal + 3, a->dgout, c->data_dim, a->gout, c->data_dim, B,
                              ce_start, ce_len, ce_tgt, 1.0f / c->Bg);
    o->zero(be, c->ggrads, c->gcount);
    ctgan_gen_backward(c);
}

/* The draws of one step, ints in a block of c->draw_ints: per discriminator step the
 * generator's cond positions, the real rows and the real rows' cond positions (B each, this
 * rank's slice), then the generator step's cond positions and cross-entropy start, length
 * and target (B each). */
static int32_t *draw_block(const ctgan *c, int32_t *base, int ds) {
    return base + (size_t)ds * 3 * (size_t)c->B;
}

int ctgan_draw_ints(const ctgan *c) { return (3 * c->dis_steps + 4) * c->B; }

int ctgan_chunk_steps(const ctgan *c) {
    int per = ctgan_draw_ints(c);
    int k = (int)(CT_DRAW_CHUNK_BYTES / ((size_t)per * sizeof(int32_t)));
    return k > 0 ? k : 1;
}

void ctgan_draw_steps(ctgan *c, const gen_cond_sampler *s, int64_t nrows, gen_rng *rng,
                      int nsteps, int32_t *host) {
    int B = c->B, Bg = c->Bg, r0 = c->r0;
    /* col, cat and perm cover the global batch: every rank makes the same host draws, in the
     * order one rank would, and keeps its slice */
    int32_t *col = c->host_col, *cat = col + Bg, *perm = cat + Bg;
    for (int k = 0; k < nsteps; k++) {
        int32_t *blk = host + (size_t)k * ctgan_draw_ints(c);
        for (int ds = 0; ds < c->dis_steps; ds++) {
            int32_t *gpos = draw_block(c, blk, ds), *rows = gpos + B, *rpos = rows + B;
            /* conditions, generator input, and the matching real rows (shuffled, §T4.5) */
            if (s->n_disc > 0) gen_cond_sampler_draw(s, rng, Bg, col, cat);
            for (int b = 0; b < B; b++)
                gpos[b] = s->n_disc > 0 && col[r0 + b] >= 0 ? s->cond_start[col[r0 + b]] + cat[r0 + b] : -1;
            for (int b = 0; b < Bg; b++) perm[b] = b;
            for (int b = Bg - 1; b > 0; b--) {
                int j = (int)gen_rng_below(rng, (uint64_t)b + 1);
                int32_t t = perm[b]; perm[b] = perm[j]; perm[j] = t;
            }
            for (int b = 0; b < Bg; b++) {
                int64_t r = s->n_disc > 0 ? gen_cond_sampler_pick_row(s, rng, col[perm[b]], cat[perm[b]])
                                          : (int64_t)gen_rng_below(rng, (uint64_t)nrows);
                if (b >= r0 && b < r0 + B) rows[b - r0] = (int32_t)r;
            }
            for (int b = 0; b < B; b++) {
                int p = perm[r0 + b];
                rpos[b] = s->n_disc > 0 && col[p] >= 0 ? s->cond_start[col[p]] + cat[p] : -1;
            }
        }
        int32_t *gpos = draw_block(c, blk, c->dis_steps);
        int32_t *ce_start = gpos + B, *ce_len = ce_start + B, *ce_tgt = ce_len + B;
        if (s->n_disc > 0) gen_cond_sampler_draw(s, rng, Bg, col, cat);
        for (int b = 0; b < B; b++) {
            int d = s->n_disc > 0 ? col[r0 + b] : -1;
            gpos[b] = d >= 0 ? s->cond_start[d] + cat[r0 + b] : -1;
            ce_start[b] = d >= 0 ? s->data_start[d] : 0;
            ce_len[b] = d >= 0 ? s->n_cat[d] : 0;
            ce_tgt[b] = d >= 0 ? s->data_start[d] + cat[r0 + b] : 0;
        }
    }
}

void ctgan_upload_draws(ctgan *c, const int32_t *host, int nsteps) {
    c->be->ops->upload(c->be, c->draws, host,
                       (size_t)nsteps * (size_t)ctgan_draw_ints(c) * sizeof(int32_t));
    /* the state the next step starts from: the host's counters (tests may have set them) */
    gen_step_state s = {c->noise_off, {c->dstep, c->gstep}, 0};
    c->state_host = s;
    c->be->ops->upload(c->be, c->state, &c->state_host, sizeof s);
}

/* Issues one training step: every per-step value comes from the device step state (random
 * offsets relative to its rng, Adam's counts from its t, the draws of block k), and the
 * step ends by advancing it, so the same work serves every step (a CUDA graph). Returns
 * what the step adds to the state in *d. */
static genesis_status ctgan_issue_step(ctgan *c, const gen_dev_table *table, int n_disc,
                                       gen_step_state *d) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    int B = c->B, n = c->n, w = c->w;
    uint64_t noise0 = c->noise_off;
    c->noise_off = 0; /* offsets relative to the step's start (state->rng) */
    be->rng_base = &c->state->rng;
    o->select_block(be, c->cur, c->draws, (size_t)ctgan_draw_ints(c), c->state);
    int32_t *blk = c->cur;

    for (int ds = 0; ds < c->dis_steps; ds++) {
        int32_t *gpos = draw_block(c, blk, ds), *rows = gpos + B, *rpos = rows + B;
        ctgan_generator_input(c, gpos);
        /* the real rows [encoded row, its cond] straight from the resident table */
        if (c->cond_dim > 0) o->gather_onehot_rows(be, a->real, w, table, rows, B, c->cond_dim, rpos);
        else o->gather_rows(be, a->real, w, table, rows, B);

        ctgan_gen_forward(c, 1);
        ctgan_fake_rows(c);

        o->zero(be, c->dgrads, c->dcount);
        /* WGAN: loss_d = -(mean D(real) - mean D(fake)); fake and real are adjacent in the
         * activation arena, so one pass of 2n packed rows covers both (dy = +1/n, -1/n) */
        GEN_ASSERT(a->real == a->fake + (size_t)B * w && a->dy_neg == a->dy_pos + n);
        /* scal[0], scal[1]: sum D(fake), sum D(real); one rank: the interpolates of the
         * gradient penalty in the same pass */
        int joint = c->K == 1;
        if (joint) ct_dis_forward_joint(c);
        else ct_dis_forward(c, a->fake, 2 * n, 2);
        const float *dy = a->dy_pos;
        if (c->amp) { /* FP16: the backward pass starts from the scaled loss */
            o->copy2d(be, c->dys, 2 * n, a->dy_pos, 2 * n, 1, 2 * n);
            o->amp_scale(be, c->dys, 2 * (size_t)n, &c->amp[0]);
            dy = c->dys;
        }
        ctgan_dis_backward(c, a->fake, dy, NULL, 1, 2 * n);
        /* gradient penalty on interpolates, alpha shared per pac group (drawn for the global
         * packed rows; this rank uses its slice) */
        if (joint) {
            size_t at = 2 * (size_t)n * c->ddim; /* the interpolates' rows */
            ct_gp_backward(c, a->m1 + at, a->m2 + at);
        } else {
            o->fill_uniform(be, a->alpha, (size_t)c->ng, c->seed, GEN_STREAM_NOISE,
                            noise_offset(c, (size_t)c->ng));
            o->interpolate_groups(be, a->xhat, a->real, a->fake, a->alpha + (size_t)c->rank * n, B,
                                  w, c->pac);
            ctgan_dis_forward(c, a->xhat, n);
            ctgan_gp_backward(c);
        }
        o->zero(be, a->scal + 3, 1);
        float *sums = ct_reduce(c, c->dgrads, c->dcount, CT_RED_TAIL);
        if (c->comm_st != GENESIS_OK) break;
        if (c->amp) o->amp_unscale(be, c->dgrads, c->dcount, &c->amp[0]);
        ct_ledger(c, sums, c->dgrads, c->dcount, CT_LEDGER_D);
        o->adam_dev(be, c->dparams, c->dgrads, c->dm, c->dv, c->dcount, c->dis_lr, 0.5f, 0.9f,
                    1e-8f, c->dis_decay, &c->state->t[0], ds + 1, c->amp ? &c->amp[0] : NULL);
    }
    if (c->comm_st != GENESIS_OK) {
        be->rng_base = NULL;
        c->noise_off = noise0;
        return c->comm_st;
    }

    /* generator step */
    int32_t *gpos = draw_block(c, blk, c->dis_steps);
    int32_t *ce_start = gpos + B, *ce_len = ce_start + B, *ce_tgt = ce_len + B;
    ctgan_generator_input(c, gpos);
    ctgan_gen_forward(c, 1);
    ctgan_fake_rows(c);
    ct_dis_forward(c, a->fake, n, 1); /* scal[0] = sum D(fake) */
    o->zero(be, a->scal + 1, 3);
    if (!c->amp) {
        ctgan_gen_grads(c, a->dy_neg, n_disc, ce_start, ce_len, ce_tgt);
    } else { /* FP16: both losses' gradients times the scale (the cross entropy's first, then
              * scaled, then the WGAN term, scaled at its dy, added) */
        o->zero(be, a->dfake, (size_t)B * w);
        o->zero(be, a->dgout, (size_t)B * c->data_dim);
        o->copy2d(be, c->dys, n, a->dy_neg, n, 1, n);
        o->amp_scale(be, c->dys, (size_t)n, &c->amp[1]);
        ctgan_dis_backward(c, a->fake, c->dys, a->dfake, 0, n);
        if (n_disc > 0)
            o->cross_entropy_rows(be, a->scal + 3, a->dgout, c->data_dim, a->gout, c->data_dim,
                                  B, ce_start, ce_len, ce_tgt, 1.0f / c->Bg);
        o->amp_scale(be, a->dgout, (size_t)B * c->data_dim, &c->amp[1]);
        o->activate_backward(be, a->dgout, c->data_dim, a->dfake, w, a->fake, w, B, c->spans,
                             c->nspans, CT_TAU);
        o->zero(be, c->ggrads, c->gcount);
        ctgan_gen_backward(c);
    }
    float *sums = ct_reduce(c, c->ggrads, c->gcount, CT_RED_TAIL);
    if (c->comm_st == GENESIS_OK) {
        if (c->amp) o->amp_unscale(be, c->ggrads, c->gcount, &c->amp[1]);
        ct_ledger(c, sums, c->ggrads, c->gcount, CT_LEDGER_G);
        /* Adam and the state's advance, the end of the step, in one operation */
        gen_step_state step = {c->noise_off, {c->dis_steps, 1}, 1};
        *d = step;
        o->adam_dev_end(be, c->gparams, c->ggrads, c->gm, c->gv, c->gcount, c->gen_lr, 0.5f, 0.9f,
                        1e-8f, c->gen_decay, &c->state->t[1], 1, c->amp ? &c->amp[1] : NULL, NULL,
                        0, 0.0f, 0.0f, c->state, step);
    }
    be->rng_base = NULL;
    c->noise_off = noise0;
    return c->comm_st;
}

void ctgan_graph_free(ctgan *c) {
    if (c->graph) c->be->ops->graph_free(c->be, c->graph);
    c->graph = NULL;
}

/* Records the step (not run: CUDA captures it) and keeps the graph in c->graph; leaves it
 * NULL when the backend does not record (the caller then issues the step). */
static genesis_status ctgan_record_step(ctgan *c, const gen_dev_table *table, int n_disc,
                                        gen_step_state *d) {
    gen_backend *be = c->be;
    if (!be->ops->graph_begin(be)) return GENESIS_OK;
    genesis_status st = ctgan_issue_step(c, table, n_disc, d);
    gen_graph *g = be->ops->graph_end(be);
    if (st == GENESIS_OK && !g) st = gen_backend_status(be);
    if (st != GENESIS_OK || !g) {
        if (g) be->ops->graph_free(be, g);
        return st != GENESIS_OK ? st
                                : gen_set_error(be->ctx, GENESIS_ERR_INTERNAL,
                                                "recording a CTGAN step as a CUDA graph failed");
    }
    c->graph = g;
    c->graph_table = table;
    c->graph_n_disc = n_disc;
    return GENESIS_OK;
}

genesis_status ctgan_train_step(ctgan *c, const gen_dev_table *table, int n_disc, int k) {
    gen_backend *be = c->be;
    GEN_ASSERT(k == c->state_host.k); /* the step reads k from the device step state */
    if (c->graph && (c->graph_table != table || c->graph_n_disc != n_disc)) ctgan_graph_free(c);
    /* the first step is issued (it sizes the backend's scratch and span table); the second
     * is recorded once; every later one replays it (one data-parallel rank: collectives pass
     * through the host, so K > 1 issues every step) */
    if (!c->graph && c->steps_done >= 1 && c->K == 1 && gen_backend_graphs(be))
        GEN_TRY(ctgan_record_step(c, table, n_disc, &c->step_delta));
    if (c->graph) {
        be->ops->graph_launch(be, c->graph);
    } else {
        GEN_TRY(ctgan_issue_step(c, table, n_disc, &c->step_delta));
    }
    /* the host's mirror of the counters */
    gen_step_state d = c->step_delta;
    c->state_host.rng += d.rng;
    c->state_host.t[0] += d.t[0];
    c->state_host.t[1] += d.t[1];
    c->state_host.k += d.k;
    c->noise_off += d.rng;
    c->dstep += d.t[0];
    c->gstep += d.t[1];
    c->steps_done++;
    return GENESIS_OK;
}

genesis_status ctgan_epoch_end(ctgan *c, int epoch, ctgan_step_losses *losses) {
    gen_backend *be = c->be;
    float l[CT_LEDGER];
    be->ops->download(be, l, c->ledger, sizeof l); /* the epoch's one synchronisation */
    be->ops->zero(be, c->ledger + CT_LEDGER_ACC, 1);
    float loss_d = -(l[CT_LEDGER_D + 1] - l[CT_LEDGER_D]) / c->ng, pen = l[CT_LEDGER_D + 2];
    float ce = l[CT_LEDGER_G + 3], loss_g = -l[CT_LEDGER_G] / c->ng + ce;
    if (!isfinite(l[CT_LEDGER_ACC]))
        return gen_diverged(be,
                            "CTGAN diverged in epoch %d (by generator step %lld; last losses: "
                            "discriminator %g, penalty %g, generator %g); try a smaller learning "
                            "rate or another seed",
                            epoch, (long long)c->gstep, loss_d, pen, loss_g);
    if (losses) {
        losses->loss_d = loss_d;
        losses->penalty = pen;
        losses->loss_g = loss_g;
        losses->cond = ce;
    }
    return GENESIS_OK;
}

/* Host ints for one chunk of draws (and the same in backend memory). */
size_t ctgan_step_scratch(const ctgan *c) {
    return (size_t)ctgan_chunk_steps(c) * (size_t)ctgan_draw_ints(c);
}

/* ---- generation -------------------------------------------------------------------------------- */

genesis_status ctgan_generate(ctgan *c, const gen_cond_sampler *prior, gen_rng *rng,
                              const gen_condition *conds, int nconds, int bn_eval, float *out) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    int B = c->B;
    size_t nz = (size_t)B * c->emb;
    o->fill_normal(be, a->z, nz, c->seed, c->sample_stream, c->sample_off);
    c->sample_off += (nz + 3) / 4 + 1;
    ct_put_input(c, 0, a->z, c->emb);
    if (c->cond_dim > 0) {
        int32_t *col = c->host_col, *cat = col + B;
        if (nconds > 0) {
            for (int b = 0; b < B; b++) { /* one condition per row (sample_stream.c) */
                col[b] = conds[b % nconds].column;
                cat[b] = conds[b % nconds].slot;
            }
        } else {
            gen_cond_sampler_draw(prior, rng, B, col, cat);
        }
        float *hc = malloc((size_t)B * c->cond_dim * sizeof(float));
        if (!hc) return gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory while sampling");
        gen_cond_sampler_onehot(prior, col, cat, B, hc, c->cond_dim);
        o->upload(be, a->cond, hc, (size_t)B * c->cond_dim * sizeof(float));
        free(hc);
        ct_put_input(c, c->emb, a->cond, c->cond_dim);
    }
    c->gwt_on = c->gwt != NULL;
    ctgan_gen_forward(c, !bn_eval);
    c->gwt_on = 0;
    size_t ne = (size_t)B * c->data_dim;
    o->activate_forward(be, a->fake, c->data_dim, a->gout, c->data_dim, B, c->spans, c->nspans,
                        CT_TAU, c->seed, c->sample_stream, c->sample_off, 0);
    c->sample_off += (ne + 3) / 4 + 1;
    o->download(be, out, a->fake, ne * sizeof(float));
    if (o->any_nonfinite(be, a->fake, ne))
        return gen_diverged(be,
                             "the generator produced non-finite values; the model is unusable");
    return GENESIS_OK;
}
