/*
 * tvae.c — TVAE (Xu et al., "Modeling Tabular Data using Conditional GAN", NeurIPS 2019,
 * the VAE baseline of §4) written once against gen_backend_ops, as the reference behaves
 * (docs/algorithms.md §T5):
 *   encoder Linear(D, hid)-ReLU-Linear(hid, hid)-ReLU, heads mu and logvar (emb each);
 *   z = mu + eps * exp(logvar / 2);
 *   decoder Linear(emb, hid)-ReLU-Linear(hid, hid)-ReLU-Linear(hid, Dr), plus a learned
 *   sigma per encoded position (init 0.1, clamped to [0.01, 1] after every step);
 *   Dr = D in the reference's layout; with alpha_per_mode (a Genesis option, off by default;
 *   docs/algorithms.md "One alpha per mode") each continuous column of K slots gets K alphas,
 *   and a row's Gaussian term reads the alpha of its own slot;
 *   loss = loss_factor * (sum over tanh spans of (x - tanh r)^2 / (2 sigma^2) + B log sigma
 *          + sum over softmax spans of cross entropy(r, argmax x)) / B + KL / B;
 *   one Adam (lr 1e-3, betas 0.9/0.999, L2 decay 1e-5) over every parameter incl. sigma.
 * Memory: one allocation per buffer kind (llm.c), named pointers from size tables.
 * In BF16/FP16 the four ReLU outputs (read only as the next layer's input and for their sign)
 * are stored in 16 bits, in an arena of their own (docs/precision.md, "Memory").
 * Gradient checkpointing (ckpt; docs/memory.md): two blocks, the encoder (x -> h2) and the
 * decoder (z -> r). Only their inputs and outputs between them are kept (x, mu, logvar, eps,
 * std, z, r); the encoder's activations and gradients live in the decoder's buffers, and the
 * backward pass recomputes the encoder from x (the same operations on the same input, so the
 * same values) once the decoder's backward no longer needs them.
 * Data parallel (docs/distributed.md): each rank holds a contiguous slice of the global
 * batch, draws the global batch's noise at its rows' positions, scales the losses by the
 * global row count, and sums gradients (and the loss sums, in the arena's tail) in one
 * all-reduce per step. TVAE has no batch norm, so nothing else crosses ranks.
 * A step takes its noise offset, Adam's count and (full batches) its rows from a device step
 * state that it advances itself, so with one rank the second full step is recorded as a
 * CUDA graph and replayed for every later one (docs/cuda.md "CUDA graphs").
 * Derivations: docs/layers.md.
 */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "tvae.h"

static void param_sizes(const tvae *t, size_t s[TV_NT]) {
    size_t D = t->D, Dr = t->Dr, h = t->hid, e = t->emb;
    size_t v[TV_NT] = {h * D, h, h * h, h, e * h, e, e * h, e, h * e, h, h * h, h, Dr * h, Dr, D};
    memcpy(s, v, sizeof v);
}

static void point_tensors(tvae_tensors *p, float *base, const size_t *s) {
    float **ptrs[TV_NT] = {&p->eW1, &p->eb1, &p->eW2, &p->eb2, &p->mW, &p->mb, &p->vW, &p->vb,
                           &p->dW1, &p->db1, &p->dW2, &p->db2, &p->dW3, &p->db3, &p->sigma};
    gen_arena_point(base, ptrs, s, TV_NT);
}

static size_t point_acts(tvae *t, float *base) {
    tvae_acts *a = &t->act;
    size_t B = t->B, D = t->D, Dr = t->Dr, h = t->hid, e = t->emb;
    size_t T = t->train ? B : 0; /* rows of the buffers only training touches */
    /* act16: the ReLU outputs live in the 16-bit arena (point_acts16) and the pre-activations
     * share a1 (B rows: the decoder's c1, c2 use it when sampling) */
    size_t A = t->act16 ? 0 : 1, H = t->act16 ? 0 : 1, Ta = t->act16 ? B : T;
    /* ckpt: the encoder's activations and gradients are the decoder's (aliased below) */
    size_t C = t->ckpt ? 0 : 1;
    if (t->ckpt && !t->act16) Ta = 0;
    float **p[] = {&a->x, &a->a1, &a->h1, &a->a2, &a->h2, &a->mu, &a->lv, &a->eps, &a->std, &a->z,
                   &a->c1, &a->k1, &a->c2, &a->k2, &a->r, &a->dr, &a->dk2, &a->dc2, &a->dk1,
                   &a->dc1, &a->dz, &a->dmu, &a->dlv, &a->dh2, &a->da2, &a->dh1, &a->da1, &a->out,
                   &a->scal};
    size_t s[] = {T * D, Ta * h, C * H * T * h, C * A * T * h, C * H * T * h, T * e, T * e, T * e,
                  T * e, B * e, A * B * h, H * B * h, A * B * h, H * B * h, B * Dr, T * Dr, T * h,
                  T * h, T * h, T * h, T * e, T * e, T * e, C * T * h, C * T * h, C * T * h,
                  C * T * h, B * Dr, 16};
    GEN_ASSERT(sizeof p / sizeof p[0] == sizeof s / sizeof s[0]);
    size_t n = gen_arena_point(base, p, s, (int)(sizeof s / sizeof s[0]));
    if (base && t->act16) {
        a->a2 = a->c1 = a->c2 = a->a1;
        a->h1 = a->h2 = a->k1 = a->k2 = NULL;
    }
    if (base && t->ckpt) {
        if (!t->act16) {
            a->a1 = a->c1; a->h1 = a->k1; a->a2 = a->c2; a->h2 = a->k2;
        }
        a->dh2 = a->dk2; a->da2 = a->dc2; a->dh1 = a->dk1; a->da1 = a->dc1;
    }
    return n;
}

/* The 16-bit arena (act16; 0 values otherwise): the ReLU outputs h1, h2 (training) and k1,
 * k2 (the decoder). */
static size_t point_acts16(tvae *t, uint16_t *base) {
    tvae_acts *a = &t->act;
    size_t B = t->act16 ? t->B : 0, h = t->hid, T = t->train ? B : 0;
    uint16_t **p[] = {&a->h1s, &a->h2s, &a->k1s, &a->k2s};
    size_t C = t->ckpt ? 0 : 1; /* ckpt: the encoder's are the decoder's */
    size_t s[] = {C * T * h, C * T * h, B * h, B * h};
    size_t n = gen_arena_point16(base, p, s, 4);
    if (base && t->act16 && t->ckpt) {
        a->h1s = a->k1s;
        a->h2s = a->k2s;
    }
    return n;
}

static void tvae_set_dims(tvae *t, const tvae_config *cfg) {
    t->comm = cfg->comm;
    t->K = gen_comm_size(cfg->comm);
    t->rank = gen_comm_rank(cfg->comm);
    t->Bg = cfg->batch;
    t->B = (cfg->batch + t->K - 1) / t->K;
    t->D = cfg->data_dim; t->emb = cfg->emb; t->hid = cfg->hid;
    t->Dr = cfg->out_dim > 0 ? cfg->out_dim : cfg->data_dim;
    t->alpha_per_mode = cfg->alpha_per_mode;
    t->loss_factor = cfg->loss_factor;
    t->train = cfg->train;
    t->ckpt = cfg->train && cfg->ckpt;
    t->fp16 = cfg->train && cfg->precision == GEN_PREC_FP16;
    t->act16 = gen_act16(cfg->precision);
}

/* Backend bytes of the step state and the step's block of row ids. */
static size_t tvae_state_bytes(const tvae *t) {
    return sizeof(gen_step_state) + (size_t)t->B * sizeof(int32_t);
}

void tvae_memory(const tvae_config *cfg, gen_net_bytes *out) {
    tvae t;
    memset(&t, 0, sizeof t);
    tvae_set_dims(&t, cfg);
    size_t s[TV_NT], count = 0;
    param_sizes(&t, s);
    for (int i = 0; i < TV_NT; i++) count += s[i];
    memset(out, 0, sizeof *out);
    out->params = 4 * count;
    out->optimizer = cfg->train ? 3 * 4 * count + 4 * TV_LEDGER + tvae_state_bytes(&t) +
                                      (t.fp16 ? sizeof(gen_amp) : 0)
                                : 0;
    out->acts = 4 * point_acts(&t, NULL) + 2 * point_acts16(&t, NULL);
    /* the products' operands (mixed precision copies them): encoder and heads (training),
     * decoder */
    uint64_t B = (uint64_t)t.B, D = (uint64_t)t.D, Dr = (uint64_t)t.Dr, h = (uint64_t)t.hid,
             e = (uint64_t)t.emb;
    int s16 = t.act16; /* the ReLU outputs are stored in 16 bits (docs/precision.md) */
    if (cfg->train) {
        gen_linear_products(out, B, D, h, 0);
        gen_linear_products(out, B, h, h, s16);
        gen_linear_products(out, B, h, e, s16);
    }
    gen_linear_products(out, B, e, h, 0);
    gen_linear_products(out, B, h, h, s16);
    gen_linear_products(out, B, h, Dr, s16);
    /* host: sigma copy (the training rows come from the resident table, tvae_model.c); with
     * one alpha per mode, a batch of activated decoder rows (tvae_to_encoded's input) */
    out->host = 4 * (size_t)t.D + (Dr != D ? 4 * (size_t)(B * Dr) : 0);
}

void tvae_free(tvae *t) {
    if (!t) return;
    gen_backend *be = t->be;
    if (be) {
        be->ops->free(be, t->params); be->ops->free(be, t->grads);
        be->ops->free(be, t->m); be->ops->free(be, t->v);
        be->ops->free(be, t->acts);
        be->ops->free(be, t->acts16);
        be->ops->free(be, t->ledger);
        tvae_graph_free(t);
        be->ops->free(be, t->state);
        be->ops->free(be, t->amp);
    }
    free(t->spans);
    free(t->rspans);
    free(t);
}

/* The continuous column whose alpha is spans[s]: its slot count K, or 0 when spans[s] is not
 * an alpha (the transformer's layout: a tanh span of len 1, then its softmax span). */
static int alpha_slots(const gen_act_span *spans, int nspans, int s) {
    const gen_act_span *a = &spans[s];
    if (a->softmax || a->len != 1 || s + 1 >= nspans) return 0;
    const gen_act_span *m = &spans[s + 1];
    return m->softmax && m->start == a->start + 1 ? m->len : 0;
}

int tvae_out_dim(int D, const gen_act_span *spans, int nspans, int alpha_per_mode) {
    int Dr = D;
    for (int s = 0; alpha_per_mode && s < nspans; s++) {
        int K = alpha_slots(spans, nspans, s);
        if (K > 1) Dr += K - 1;
    }
    return Dr;
}

/* The decoder's spans (r's layout) and the loss's spans from the encoded layout: positions
 * shift by the extra alphas of the columns before them. */
static void derive_spans(tvae *t, const gen_act_span *spans, int nspans) {
    int shift = 0;
    for (int s = 0; s < nspans; s++) {
        const gen_act_span *x = &spans[s];
        int K = t->alpha_per_mode ? alpha_slots(spans, nspans, s) : 0;
        t->rspans[s] = (gen_recon_span){x->start, x->len, x->softmax, x->start + shift, 0};
        t->spans[s] = (gen_act_span){x->start + shift, x->len, x->softmax};
        if (K > 1) {
            t->rspans[s].modes = K;
            t->spans[s].len = K;
            shift += K - 1;
        }
    }
}

void tvae_to_encoded(const tvae *t, const float *r, int B, float *x, int ld) {
    for (int b = 0; b < B; b++) {
        const float *rr = r + (size_t)b * t->Dr;
        float *xr = x + (size_t)b * ld;
        if (t->Dr == t->D) {
            memcpy(xr, rr, (size_t)t->D * sizeof(float));
            continue;
        }
        memset(xr, 0, (size_t)t->D * sizeof(float));
        for (int s = 0; s < t->nspans; s++) {
            const gen_recon_span *sp = &t->rspans[s];
            if (sp->modes > 0) { /* the slot span follows: its first argmax picks the alpha */
                const float *p = rr + t->rspans[s + 1].r_start;
                int k = 0;
                for (int i = 1; i < sp->modes; i++)
                    if (p[i] > p[k]) k = i;
                xr[sp->start] = rr[sp->r_start + k];
            } else {
                memcpy(xr + sp->start, rr + sp->r_start, (size_t)sp->len * sizeof(float));
            }
        }
    }
}

genesis_status tvae_create(genesis_ctx *ctx, gen_backend *be, const tvae_config *cfg,
                           const gen_act_span *spans, int nspans, tvae **out) {
    *out = NULL;
    tvae *t = calloc(1, sizeof *t);
    GEN_RETURN_IF(!t, ctx, GENESIS_ERR_NOMEM, "out of memory creating TVAE");
    t->be = be;
    tvae_set_dims(t, cfg);
    t->nspans = nspans;
    t->spans = calloc((size_t)(nspans ? nspans : 1), sizeof *t->spans);
    t->rspans = calloc((size_t)(nspans ? nspans : 1), sizeof *t->rspans);
    if (!t->spans || !t->rspans) goto nomem;
    derive_spans(t, spans, nspans);
    t->Dr = tvae_out_dim(t->D, spans, nspans, t->alpha_per_mode);
    if (cfg->out_dim > 0 && cfg->out_dim != t->Dr) {
        int w = t->Dr;
        tvae_free(t);
        return gen_set_error(ctx, GENESIS_ERR_INTERNAL,
                             "TVAE decoder width %d does not match the layout's %d", cfg->out_dim, w);
    }
    size_t s[TV_NT];
    param_sizes(t, s);
    for (int i = 0; i < TV_NT; i++) t->count += s[i];
    size_t bytes = t->count * sizeof(float);
    t->params = be->ops->alloc(be, bytes);
    t->acts = be->ops->alloc(be, gen_mul_size(point_acts(t, NULL), sizeof(float)));
    size_t n16 = point_acts16(t, NULL);
    if (n16) t->acts16 = be->ops->alloc(be, gen_mul_size(n16, sizeof(uint16_t)));
    if (!t->params || !t->acts || (n16 && !t->acts16)) goto nomem;
    point_tensors(&t->p, t->params, s);
    if (cfg->train) {
        t->grads = be->ops->alloc(be, bytes + TV_RED_TAIL * sizeof(float));
        t->m = be->ops->alloc(be, bytes);
        t->v = be->ops->alloc(be, bytes);
        t->ledger = be->ops->alloc(be, TV_LEDGER * sizeof(float));
        t->state = be->ops->alloc(be, tvae_state_bytes(t));
        if (t->fp16) t->amp = be->ops->alloc(be, sizeof(gen_amp));
        if (!t->grads || !t->m || !t->v || !t->ledger || !t->state || (t->fp16 && !t->amp))
            goto nomem;
        t->cur = (int32_t *)(t->state + 1);
        point_tensors(&t->g, t->grads, s);
    }
    point_acts(t, t->acts);
    point_acts16(t, t->acts16);
    *out = t;
    return GENESIS_OK;
nomem:
    tvae_free(t);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory allocating TVAE (batch %d, width %d)",
                         cfg->batch, cfg->data_dim);
}

/* torch.nn.Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for W and b; sigma = 0.1 */
genesis_status tvae_init_weights(tvae *t, uint64_t seed) {
    float *h = malloc(t->count * sizeof(float));
    GEN_RETURN_IF(!h, t->be->ctx, GENESIS_ERR_NOMEM, "out of memory initialising TVAE");
    size_t s[TV_NT];
    param_sizes(t, s);
    int fan[TV_NT] = {t->D, t->D, t->hid, t->hid, t->hid, t->hid, t->hid, t->hid,
                      t->emb, t->emb, t->hid, t->hid, t->hid, t->hid, 0};
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_INIT);
    size_t off = 0;
    for (int i = 0; i < TV_NT; i++) {
        float bound = fan[i] ? 1.0f / sqrtf((float)fan[i]) : 0.0f;
        for (size_t k = 0; k < s[i]; k++)
            h[off + k] = fan[i] ? bound * (2.0f * (float)gen_rng_uniform(&r) - 1.0f) : 0.1f;
        off += s[i];
    }
    gen_backend *be = t->be;
    be->ops->upload(be, t->params, h, t->count * sizeof(float));
    be->ops->zero(be, t->m, t->count);
    be->ops->zero(be, t->v, t->count);
    if (t->amp) gen_amp_reset(be, t->amp, 1);
    t->step = 0;
    free(h);
    return GENESIS_OK;
}

/* dpre += dh where the stored ReLU output (out, or outh in 16 bits) is positive. With FP32
 * storage the bias gradient of the layer before, dbias += colsum(dpre), comes in the same
 * pass (act_backward_bias) and NULL is returned; otherwise dbias is returned for that layer's
 * linear_backward. */
static float *tv_relu_backward(gen_backend *be, float *dpre, float *dbias, const float *dh,
                               const float *out, const uint16_t *outh, int B, int h) {
    if (!outh) {
        be->ops->act_backward_bias(be, dpre, dbias, dh, out, B, h, GEN_ACT_RELU);
        return NULL;
    }
    gen_relu_backward_x(be, dpre, dh, out, outh, h, B, h);
    return dbias;
}

/* The encoder block: x -> h1 -> h2 (run again in the backward pass with ckpt). */
static void tv_encode(tvae *t, int B) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    tvae_acts *a = &t->act;
    tvae_tensors *p = &t->p;
    int h = t->hid, D = t->D;
    if (!a->h1s) { /* FP32 storage: each layer and its ReLU in one operation */
        o->linear_act_forward(be, a->h1, a->a1, a->x, D, p->eW1, p->eb1, B, D, h, GEN_ACT_RELU);
        o->linear_act_forward(be, a->h2, a->a2, a->h1, h, p->eW2, p->eb2, B, h, h, GEN_ACT_RELU);
    } else {
        o->linear_forward(be, a->a1, h, a->x, D, p->eW1, p->eb1, B, D, h);
        gen_relu_forward_x(be, a->h1, a->h1s, h, a->a1, B, h);
        gen_linear_forward_x(be, a->a2, h, a->h1, a->h1s, h, p->eW2, p->eb2, B, h, h);
        gen_relu_forward_x(be, a->h2, a->h2s, h, a->a2, B, h);
    }
}

void tvae_decode(tvae *t, int B) {
    tvae_acts *a = &t->act;
    tvae_tensors *p = &t->p;
    int h = t->hid, e = t->emb, Dr = t->Dr;
    if (!a->k1s) { /* FP32 storage: each layer and its ReLU in one operation */
        t->be->ops->linear_act_forward(t->be, a->k1, a->c1, a->z, e, p->dW1, p->db1, B, e, h,
                                       GEN_ACT_RELU);
        t->be->ops->linear_act_forward(t->be, a->k2, a->c2, a->k1, h, p->dW2, p->db2, B, h, h,
                                       GEN_ACT_RELU);
    } else {
        t->be->ops->linear_forward(t->be, a->c1, h, a->z, e, p->dW1, p->db1, B, e, h);
        gen_relu_forward_x(t->be, a->k1, a->k1s, h, a->c1, B, h);
        gen_linear_forward_x(t->be, a->c2, h, a->k1, a->k1s, h, p->dW2, p->db2, B, h, h);
        gen_relu_forward_x(t->be, a->k2, a->k2s, h, a->c2, B, h);
    }
    gen_linear_forward_x(t->be, a->r, Dr, a->k2, a->k2s, h, p->dW3, p->db3, B, h, Dr);
}

float tvae_forward_backward(tvae *t, int B, int backward) {
    tvae_forward_backward_n(t, B, B, backward);
    return tvae_read_loss(t);
}

float tvae_read_loss(tvae *t) {
    float sc[2];
    t->be->ops->download(t->be, sc, t->act.scal, sizeof sc);
    return sc[0] + sc[1];
}

void tvae_forward_backward_n(tvae *t, int B, int N, int backward) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    tvae_acts *a = &t->act;
    tvae_tensors *p = &t->p, *g = &t->g;
    int h = t->hid, e = t->emb, D = t->D, Dr = t->Dr;
    size_t Bh = (size_t)B * h, Be = (size_t)B * e;
    if (B == 0) { /* a rank with no rows of a short last batch: contributes nothing */
        if (backward) o->zero(be, t->grads, t->count);
        o->zero(be, a->scal, 2);
        return;
    }
    tv_encode(t, B);
    gen_linear_forward_x(be, a->mu, e, a->h2, a->h2s, h, p->mW, p->mb, B, h, e);
    gen_linear_forward_x(be, a->lv, e, a->h2, a->h2s, h, p->vW, p->vb, B, h, e);
    o->reparam_forward(be, a->z, a->std, a->mu, a->lv, a->eps, Be);
    tvae_decode(t, B);
    if (backward) {
        o->zero(be, t->grads, t->count);
        o->zero(be, a->dr, (size_t)B * Dr);
        o->zero(be, a->dmu, Be);
        o->zero(be, a->dlv, Be);
    }
    o->tvae_recon(be, a->scal, backward ? a->dr : NULL, backward ? g->sigma : NULL, a->r, Dr,
                  a->x, p->sigma, B, D, t->rspans, t->nspans, t->loss_factor / N);
    o->kl_normal(be, a->scal + 1, backward ? a->dmu : NULL, backward ? a->dlv : NULL, a->mu, a->lv,
                 Be, 1.0f / N);
    if (!backward) return;
    if (t->amp) { /* FP16: the backward pass starts from the scaled loss (docs/precision.md) */
        o->amp_scale(be, a->dr, (size_t)B * Dr, t->amp);
        o->amp_scale(be, a->dmu, Be, t->amp);
        o->amp_scale(be, a->dlv, Be, t->amp);
        o->amp_scale(be, g->sigma, (size_t)D, t->amp);
    }
    /* decoder (tv_relu_backward: the bias gradients of FP32 storage ride on the ReLUs') */
    o->zero(be, a->dk2, Bh);
    gen_linear_backward_x(be, a->dk2, h, g->dW3, g->db3, a->dr, Dr, a->k2, a->k2s, h, p->dW3, B, h, Dr);
    o->zero(be, a->dc2, Bh);
    float *db = tv_relu_backward(be, a->dc2, g->db2, a->dk2, a->k2, a->k2s, B, h);
    o->zero(be, a->dk1, Bh);
    gen_linear_backward_x(be, a->dk1, h, g->dW2, db, a->dc2, h, a->k1, a->k1s, h, p->dW2, B, h, h);
    o->zero(be, a->dc1, Bh);
    db = tv_relu_backward(be, a->dc1, g->db1, a->dk1, a->k1, a->k1s, B, h);
    o->zero(be, a->dz, Be);
    o->linear_backward(be, a->dz, e, g->dW1, db, a->dc1, h, a->z, e, p->dW1, B, e, h);
    /* reparameterisation, then both heads into h2 */
    /* with the heads' bias gradients in the same pass (reparam_backward_bias) */
    o->reparam_backward_bias(be, a->dmu, a->dlv, g->mb, g->vb, a->dz, a->eps, a->std, B, e);
    /* ckpt: the decoder's backward is done with the buffers the encoder shares: run it again */
    if (t->ckpt) tv_encode(t, B);
    o->zero(be, a->dh2, Bh);
    gen_linear_backward_x(be, a->dh2, h, g->mW, NULL, a->dmu, e, a->h2, a->h2s, h, p->mW, B, h, e);
    gen_linear_backward_x(be, a->dh2, h, g->vW, NULL, a->dlv, e, a->h2, a->h2s, h, p->vW, B, h, e);
    /* encoder */
    o->zero(be, a->da2, Bh);
    db = tv_relu_backward(be, a->da2, g->eb2, a->dh2, a->h2, a->h2s, B, h);
    o->zero(be, a->dh1, Bh);
    gen_linear_backward_x(be, a->dh1, h, g->eW2, db, a->da2, h, a->h1, a->h1s, h, p->eW2, B, h, h);
    o->zero(be, a->da1, Bh);
    db = tv_relu_backward(be, a->da1, g->eb1, a->dh1, a->h1, a->h1s, B, h);
    o->linear_backward(be, NULL, 0, g->eW1, db, a->da1, h, a->x, D, p->eW1, B, D, h);
}

genesis_status tvae_train_step(tvae *t, int B, float *loss) {
    tvae_state_upload(t, 0);
    GEN_TRY(tvae_train_step_slice(t, B, B, 0));
    return tvae_epoch_end(t, 0, loss);
}

void tvae_state_upload(tvae *t, int64_t k) {
    gen_step_state s = {t->noise_off, {t->step, 0}, k};
    t->state_host = s;
    t->be->ops->upload(t->be, t->state, &t->state_host, sizeof s);
}

/* The host's mirror after a step that added d. */
static void tvae_step_done(tvae *t, gen_step_state d) {
    t->state_host.rng += d.rng;
    t->state_host.t[0] += d.t[0];
    t->state_host.k += d.k;
    t->noise_off += d.rng;
    t->step += d.t[0];
    t->steps_done++;
}

/* Issues one step on the rows in act.x: the noise offset relative to the device step
 * state's rng, Adam's count from its t[0], and the state advanced at the end, so the same
 * work serves every step of this shape (a CUDA graph). *d: what the step adds. */
static genesis_status tvae_issue_step(tvae *t, int B, int N, int first, gen_step_state *d) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    /* the global batch's noise; this slice starts at element first * emb (a multiple of 4:
     * the fit checks emb) */
    size_t ne = (size_t)B * t->emb, neg = (size_t)N * t->emb;
    be->rng_base = &t->state->rng;
    o->fill_normal(be, t->act.eps, ne, t->seed, GEN_STREAM_NOISE,
                   (uint64_t)first * t->emb / 4);
    be->rng_base = NULL;
    tvae_forward_backward_n(t, B, N, 1);
    const float *sums = t->act.scal;
    if (t->K > 1) { /* sum gradients and the two loss sums over ranks in one call */
        o->copy2d(be, t->grads + t->count, TV_RED_TAIL, t->act.scal, TV_RED_TAIL, 1, TV_RED_TAIL);
        t->comm_st = gen_comm_allreduce_sum(t->comm, be, t->grads, t->count + TV_RED_TAIL);
        if (t->comm_st != GENESIS_OK) return t->comm_st;
        sums = t->grads + t->count;
    }
    if (t->amp) o->amp_unscale(be, t->grads, t->count, t->amp);
    /* the ledger (backend memory): the loss sums, the gradient arena's sum (non-finite iff a
     * gradient is), and the epoch's running sum of them, read once by tvae_epoch_end */
    o->ledger_add(be, t->ledger, t->ledger + 3, t->ledger + 4, sums, 2, t->grads, t->count);
    /* Adam, the sigma clamp and the state's advance, the end of the step, in one operation */
    gen_step_state step = {(neg + 3) / 4 + 1, {1, 0}, 1};
    *d = step;
    o->adam_dev_end(be, t->params, t->grads, t->m, t->v, t->count, t->lr, 0.9f, 0.999f, 1e-8f,
                    t->decay, &t->state->t[0], 1, t->amp, t->p.sigma, (size_t)t->D, 0.01f, 1.0f,
                    t->state, step);
    return GENESIS_OK;
}

genesis_status tvae_train_step_slice(tvae *t, int B, int N, int first) {
    gen_step_state d;
    GEN_TRY(tvae_issue_step(t, B, N, first, &d));
    tvae_step_done(t, d);
    return GENESIS_OK;
}

void tvae_graph_free(tvae *t) {
    if (t->graph) t->be->ops->graph_free(t->be, t->graph);
    t->graph = NULL;
}

/* The rows of the step's block, then the step. */
static genesis_status tvae_issue_chunk_step(tvae *t, const gen_dev_table *table,
                                            const int32_t *chunk, gen_step_state *d) {
    gen_backend *be = t->be;
    be->ops->select_block(be, t->cur, chunk, (size_t)t->B, t->state);
    be->ops->gather_rows(be, t->act.x, t->D, table, t->cur, t->B);
    return tvae_issue_step(t, t->B, t->B, 0, d);
}

genesis_status tvae_train_step_chunk(tvae *t, const gen_dev_table *table, const int32_t *chunk) {
    gen_backend *be = t->be;
    GEN_ASSERT(t->K == 1);
    if (t->graph && (t->graph_table != table || t->graph_chunk != chunk)) tvae_graph_free(t);
    /* the first step is issued (it sizes the backend's scratch and span table); the second
     * full step is recorded once; every later one replays it */
    if (!t->graph && t->steps_done >= 1 && gen_backend_graphs(be) && be->ops->graph_begin(be)) {
        genesis_status st = tvae_issue_chunk_step(t, table, chunk, &t->step_delta);
        gen_graph *g = be->ops->graph_end(be);
        if (st == GENESIS_OK && !g) st = gen_backend_status(be);
        if (st == GENESIS_OK && !g)
            st = gen_set_error(be->ctx, GENESIS_ERR_INTERNAL,
                               "recording a TVAE step as a CUDA graph failed");
        if (st != GENESIS_OK) {
            if (g) be->ops->graph_free(be, g);
            return st;
        }
        t->graph = g;
        t->graph_table = table;
        t->graph_chunk = chunk;
    }
    if (t->graph) be->ops->graph_launch(be, t->graph);
    else GEN_TRY(tvae_issue_chunk_step(t, table, chunk, &t->step_delta));
    tvae_step_done(t, t->step_delta);
    return GENESIS_OK;
}

genesis_status tvae_epoch_end(tvae *t, int epoch, float *loss) {
    gen_backend *be = t->be;
    float l[TV_LEDGER];
    be->ops->download(be, l, t->ledger, sizeof l); /* the epoch's one synchronisation */
    be->ops->zero(be, t->ledger + 4, 1);
    if (!isfinite(l[4]))
        return gen_diverged(be,
                            "TVAE diverged in epoch %d (by step %lld; last loss %g); try a "
                            "smaller learning rate or another seed",
                            epoch, (long long)t->step, l[0] + l[1]);
    if (loss) *loss = l[0] + l[1];
    return GENESIS_OK;
}
