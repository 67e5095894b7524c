/*
 * ddpm.c — TabDDPM's denoiser (Kotelnikov et al., "TabDDPM: Modelling Tabular Data with
 * Diffusion Models", ICML 2023, §3 and its MLPDiffusion) written once against
 * gen_backend_ops:
 *   temb = sinusoidal(t, E);  e = Linear(E, E)(SiLU(Linear(E, E)(temb)));
 *   with a class label y (optional): e += SiLU(Emb(K, E)[y]) (TabDDPM's label_emb);
 *   h0 = Linear(D, E)(x_t) + e;
 *   h_l = ReLU(Linear(h_{l-1})) for L hidden layers of width H (TabDDPM's MLP blocks, no
 *   dropout);  out = Linear(H, D)(h_L): the predicted Gaussian noise at the tanh positions
 *   and the logits of x_0 at every softmax span;
 *   loss = mean over rows of the MSE on the noise (per Gaussian feature) plus T * KL of the
 *   multinomial posteriors / number of categorical features (backend op ddpm_loss);
 *   AdamW (torch semantics: decay applied to the weights before the Adam update).
 * Memory: one allocation per buffer kind (llm.c), named slices from size tables.
 * Gradient checkpointing (ckpt; docs/memory.md): the blocks are the time embedding (t ->
 * temb -> e1 -> e2), the label embedding (y -> lab -> labs) and each hidden layer. The
 * backward pass reads of a hidden layer only its output (the ReLU's sign, the next product's
 * input), so the blocks' inputs h0, h_l are kept and their internals (the pre-activations)
 * share one buffer with the embeddings' internals, which the backward pass recomputes from
 * t and y (the same operations on the same inputs: the same values) after the hidden layers.
 * Derivations: docs/ddpm.md.
 */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "ddpm.h"

#define DDPM_NT (6 + 2 * DDPM_MAX_LAYERS + 3)

/* sizes in arena order; unused layer slots have size 0 */
static void param_sizes(const ddpm *d, size_t s[DDPM_NT]) {
    size_t D = d->D, E = d->E, H = d->H;
    memset(s, 0, DDPM_NT * sizeof s[0]);
    s[0] = E * E; s[1] = E; s[2] = E * E; s[3] = E; s[4] = E * D; s[5] = E;
    for (int l = 0; l < d->L; l++) {
        s[6 + 2 * l] = H * (l ? H : E);
        s[7 + 2 * l] = H;
    }
    s[6 + 2 * DDPM_MAX_LAYERS] = D * H;
    s[7 + 2 * DDPM_MAX_LAYERS] = D;
    s[8 + 2 * DDPM_MAX_LAYERS] = (size_t)d->K * E; /* last: an unconditional arena is unchanged */
}

static void point_tensors(ddpm_tensors *p, float *base, const size_t *s) {
    float **ptrs[DDPM_NT] = {&p->tW1, &p->tb1, &p->tW2, &p->tb2, &p->pW, &p->pb};
    for (int l = 0; l < DDPM_MAX_LAYERS; l++) {
        ptrs[6 + 2 * l] = &p->W[l];
        ptrs[7 + 2 * l] = &p->b[l];
    }
    ptrs[6 + 2 * DDPM_MAX_LAYERS] = &p->oW;
    ptrs[7 + 2 * DDPM_MAX_LAYERS] = &p->ob;
    ptrs[8 + 2 * DDPM_MAX_LAYERS] = &p->lemb;
    gen_arena_point(base, ptrs, s, DDPM_NT);
    if (!s[8 + 2 * DDPM_MAX_LAYERS]) p->lemb = NULL;
}

static size_t point_acts(ddpm *d, float *base) {
    ddpm_acts *a = &d->act;
    size_t B = d->B, D = d->D, E = d->E, H = d->H, T = d->train ? B : 0;
    size_t W = E > H ? E : H;
    float **p[11 + 2 * DDPM_MAX_LAYERS + 5];
    size_t s[11 + 2 * DDPM_MAX_LAYERS + 5];
    int n = 0;
    /* ckpt: one buffer S holds the internals of whichever block runs (the embeddings' four
     * (six with labels) B x E, or a hidden layer's pre-activation), pointed below */
    size_t C = d->ckpt ? 0 : 1, emb = (d->K ? 6 : 4) * E, S = d->ckpt ? B * (emb > H ? emb : H) : 0;
#define ADD(ptr, size) (p[n] = (ptr), s[n++] = (size))
    ADD(&a->x0, T * D); ADD(&a->xt, B * D); ADD(&a->noise, T * D); ADD(&a->coef, T * 2);
    ADD(&a->temb, C * B * E); ADD(&a->e1, C * B * E); ADD(&a->e1s, C * B * E);
    ADD(&a->e2, C * B * E); ADD(&a->h0, B * E); ADD(&a->lab, d->K ? C * B * E : 0);
    ADD(&a->labs, d->K ? C * B * E : 0);
    for (int l = 0; l < DDPM_MAX_LAYERS; l++) {
        ADD(&a->a[l], l < d->L ? (l ? C * B * H : (d->ckpt ? S : B * H)) : 0);
        ADD(&a->h[l], l < d->L ? B * H : 0);
    }
    ADD(&a->out, B * D); ADD(&a->dout, T * D); ADD(&a->dA, T * W); ADD(&a->dB, T * W);
    ADD(&a->loss, 4);
#undef ADD
    size_t nf = gen_arena_point(base, p, s, n);
    if (base && d->ckpt) {
        size_t bE = (size_t)B * E;
        for (int l = 1; l < d->L; l++) a->a[l] = a->a[0];
        a->temb = a->a[0];
        a->e1 = a->temb + bE;
        a->e1s = a->e1 + bE;
        a->e2 = a->e1s + bE;
        if (d->K) {
            a->lab = a->e2 + bE;
            a->labs = a->lab + bE;
        }
    }
    return nf;
}

static void set_dims(ddpm *d, const ddpm_config *cfg) {
    d->B = cfg->batch; d->D = cfg->data_dim; d->E = cfg->temb; d->H = cfg->hid;
    d->L = cfg->layers; d->train = cfg->train; d->K = cfg->classes;
    d->ckpt = cfg->train && cfg->ckpt;
}

void ddpm_memory(const ddpm_config *cfg, gen_net_bytes *out) {
    ddpm d;
    memset(&d, 0, sizeof d);
    set_dims(&d, cfg);
    size_t s[DDPM_NT], count = 0;
    param_sizes(&d, s);
    for (int i = 0; i < DDPM_NT; i++) count += s[i];
    memset(out, 0, sizeof *out);
    out->params = 4 * count;
    out->optimizer = cfg->train ? (cfg->ema ? 4 : 3) * 4 * count : 0;
    out->acts = 4 * point_acts(&d, NULL) + (cfg->classes ? 8 : 4) * (uint64_t)d.B;
}

void ddpm_free(ddpm *d) {
    if (!d) return;
    gen_backend *be = d->be;
    if (be) {
        if (!d->borrowed) be->ops->free(be, d->params);
        be->ops->free(be, d->grads);
        be->ops->free(be, d->m); be->ops->free(be, d->v);
        be->ops->free(be, d->acts); be->ops->free(be, d->t);
        be->ops->free(be, d->ema); be->ops->free(be, d->y);
    }
    free(d->spans);
    free(d);
}

genesis_status ddpm_create_view(genesis_ctx *ctx, const ddpm *owner, int batch, ddpm **out) {
    *out = NULL;
    gen_backend *be = owner->be;
    ddpm *d = calloc(1, sizeof *d);
    GEN_RETURN_IF(!d, ctx, GENESIS_ERR_NOMEM, "out of memory creating DDPM");
    d->be = be;
    ddpm_config cfg = {batch, owner->D, owner->E, owner->H, owner->L, 0, owner->K, 0, 0};
    set_dims(d, &cfg);
    d->nspans = owner->nspans, d->nnum = owner->nnum, d->ncat = owner->ncat;
    d->spans = calloc((size_t)(d->nspans ? d->nspans : 1), sizeof *d->spans);
    if (d->spans) memcpy(d->spans, owner->spans, (size_t)d->nspans * sizeof *d->spans);
    d->count = owner->count;
    d->params = owner->params;
    d->borrowed = 1;
    d->p = owner->p;
    d->acts = be->ops->alloc(be, gen_mul_size(point_acts(d, NULL), sizeof(float)));
    d->t = be->ops->alloc(be, (size_t)batch * sizeof(int32_t));
    if (d->K) d->y = be->ops->alloc(be, (size_t)batch * sizeof(int32_t));
    if (!d->spans || !d->acts || !d->t || (d->K && !d->y)) {
        ddpm_free(d);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                             "out of memory allocating DDPM's sampling network (%d rows)", batch);
    }
    point_acts(d, d->acts);
    *out = d;
    return GENESIS_OK;
}

genesis_status ddpm_create(genesis_ctx *ctx, gen_backend *be, const ddpm_config *cfg,
                           const gen_act_span *spans, int nspans, ddpm **out) {
    *out = NULL;
    GEN_RETURN_IF(cfg->layers < 1 || cfg->layers > DDPM_MAX_LAYERS, ctx, GENESIS_ERR_INVALID_ARG,
                  "DDPM takes 1 to %d hidden layers, got %d", DDPM_MAX_LAYERS, cfg->layers);
    GEN_RETURN_IF(cfg->classes < 0 || (cfg->classes && !be->ops->label_embed), ctx,
                  GENESIS_ERR_UNSUPPORTED, "the %s backend has no label embedding", be->ops->name);
    GEN_RETURN_IF(cfg->ema && (!cfg->train || !be->ops->ema_update), ctx, GENESIS_ERR_UNSUPPORTED,
                  "the %s backend keeps no moving average of weights", be->ops->name);
    ddpm *d = calloc(1, sizeof *d);
    GEN_RETURN_IF(!d, ctx, GENESIS_ERR_NOMEM, "out of memory creating DDPM");
    d->be = be;
    set_dims(d, cfg);
    d->nspans = nspans;
    d->spans = calloc((size_t)(nspans ? nspans : 1), sizeof *spans);
    if (!d->spans) goto nomem;
    memcpy(d->spans, spans, (size_t)nspans * sizeof *spans);
    for (int s = 0; s < nspans; s++) {
        if (spans[s].softmax) d->ncat++;
        else d->nnum += spans[s].len;
    }
    size_t s[DDPM_NT];
    param_sizes(d, s);
    for (int i = 0; i < DDPM_NT; i++) d->count += s[i];
    size_t bytes = d->count * sizeof(float);
    d->params = be->ops->alloc(be, bytes);
    d->acts = be->ops->alloc(be, gen_mul_size(point_acts(d, NULL), sizeof(float)));
    d->t = be->ops->alloc(be, (size_t)d->B * sizeof(int32_t));
    if (d->K) d->y = be->ops->alloc(be, (size_t)d->B * sizeof(int32_t));
    if (!d->params || !d->acts || !d->t || (d->K && !d->y)) goto nomem;
    point_tensors(&d->p, d->params, s);
    if (cfg->train) {
        d->grads = be->ops->alloc(be, bytes);
        d->m = be->ops->alloc(be, bytes);
        d->v = be->ops->alloc(be, bytes);
        if (cfg->ema) d->ema = be->ops->alloc(be, bytes);
        if (!d->grads || !d->m || !d->v || (cfg->ema && !d->ema)) goto nomem;
        point_tensors(&d->g, d->grads, s);
    }
    point_acts(d, d->acts);
    *out = d;
    return GENESIS_OK;
nomem:
    ddpm_free(d);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory allocating DDPM (batch %d, width %d)",
                         cfg->batch, cfg->data_dim);
}

/* torch.nn.Linear: W and b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), tensors in arena order;
 * the label embedding (last) N(0, 1), as torch.nn.Embedding. The moving average starts at
 * the initial weights (TabDDPM's deepcopy of the initial denoiser). */
genesis_status ddpm_init_weights(ddpm *d, uint64_t seed) {
    float *h = malloc(d->count * sizeof(float));
    GEN_RETURN_IF(!h, d->be->ctx, GENESIS_ERR_NOMEM, "out of memory initialising DDPM");
    size_t s[DDPM_NT];
    param_sizes(d, s);
    int fan[DDPM_NT] = {d->E, d->E, d->E, d->E, d->D, d->D};
    for (int l = 0; l < DDPM_MAX_LAYERS; l++) fan[6 + 2 * l] = fan[7 + 2 * l] = l ? d->H : d->E;
    fan[6 + 2 * DDPM_MAX_LAYERS] = fan[7 + 2 * DDPM_MAX_LAYERS] = d->H;
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_INIT);
    size_t off = 0;
    for (int i = 0; i < DDPM_NT; i++) {
        float bound = 1.0f / sqrtf((float)fan[i]);
        if (i == 8 + 2 * DDPM_MAX_LAYERS)
            for (size_t k = 0; k < s[i]; k++) h[off + k] = (float)gen_rng_normal(&r);
        else
            for (size_t k = 0; k < s[i]; k++) h[off + k] = bound * (2.0f * (float)gen_rng_uniform(&r) - 1.0f);
        off += s[i];
    }
    gen_backend *be = d->be;
    be->ops->upload(be, d->params, h, d->count * sizeof(float));
    if (d->ema) be->ops->upload(be, d->ema, h, d->count * sizeof(float));
    if (d->train) {
        be->ops->zero(be, d->m, d->count);
        be->ops->zero(be, d->v, d->count);
    }
    d->step = 0;
    free(h);
    return GENESIS_OK;
}

void ddpm_forward(ddpm *d, int B) {
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    ddpm_acts *a = &d->act;
    ddpm_tensors *p = &d->p;
    int E = d->E, H = d->H, D = d->D, Bt = d->shared_t ? 1 : B;
    o->timestep_embed(be, a->temb, d->t, Bt, E);
    o->linear_act_forward(be, a->e1s, a->e1, a->temb, E, p->tW1, p->tb1, Bt, E, E, GEN_ACT_SILU);
    o->linear_forward(be, a->e2, E, a->e1s, E, p->tW2, p->tb2, Bt, E, E);
    const float *pb = p->pb;
    if (d->shared_t) { /* one row's time embedding joins the bias: temb's row 0 = pb + e2 */
        o->copy2d(be, a->temb, E, p->pb, E, 1, E);
        o->accumulate(be, a->temb, a->e2, E);
        pb = a->temb;
    }
    if (d->K) { /* TabDDPM: emb += SiLU(label_emb(y)) */
        o->label_embed(be, a->lab, p->lemb, d->y, B, E);
        o->silu_forward(be, a->labs, a->lab, (size_t)B * E);
        if (!d->shared_t) o->accumulate(be, a->e2, a->labs, B * E);
    }
    if (d->pWt) o->linear_sparse_forward(be, a->h0, E, a->xt, D, d->pWt, pb, B, D, E);
    else o->linear_forward(be, a->h0, E, a->xt, D, p->pW, pb, B, D, E);
    if (!d->shared_t) o->accumulate(be, a->h0, a->e2, B * E);
    else if (d->K) o->accumulate(be, a->h0, a->labs, B * E);
    const float *in = a->h0;
    int inw = E;
    for (int l = 0; l < d->L; l++) {
        o->linear_act_forward(be, a->h[l], a->a[l], in, inw, p->W[l], p->b[l], B, inw, H,
                              GEN_ACT_RELU);
        in = a->h[l];
        inw = H;
    }
    o->linear_forward(be, a->out, D, in, H, p->oW, p->ob, B, H, D);
}

void ddpm_embed_recompute(ddpm *d, int B) {
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    ddpm_acts *a = &d->act;
    ddpm_tensors *p = &d->p;
    int E = d->E;
    o->timestep_embed(be, a->temb, d->t, B, E);
    o->linear_act_forward(be, a->e1s, a->e1, a->temb, E, p->tW1, p->tb1, B, E, E, GEN_ACT_SILU);
    if (d->K) o->label_embed(be, a->lab, p->lemb, d->y, B, E);
}

float ddpm_forward_backward(ddpm *d, int B, float gscale, float mscale, int backward) {
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    ddpm_acts *a = &d->act;
    ddpm_tensors *p = &d->p, *g = &d->g;
    int E = d->E, H = d->H, D = d->D, L = d->L;
    ddpm_forward(d, B);
    if (backward) {
        o->zero(be, d->grads, d->count);
        o->zero(be, a->dout, (size_t)B * D);
    }
    o->ddpm_loss(be, a->loss, backward ? a->dout : NULL, a->out, a->x0, a->xt, a->noise, a->coef,
                 B, D, d->spans, d->nspans, gscale, mscale);
    if (backward) {
        /* output layer: dA = dh_L */
        o->zero(be, a->dA, (size_t)B * H);
        o->linear_backward(be, a->dA, H, g->oW, g->ob, a->dout, D, a->h[L - 1], H, p->oW, B, H, D);
        for (int l = L - 1; l >= 0; l--) {
            o->zero(be, a->dB, (size_t)B * H);
            /* dB = da_l, and the bias gradient in the same pass */
            o->act_backward_bias(be, a->dB, g->b[l], a->dA, a->h[l], B, H, GEN_ACT_RELU);
            const float *in = l ? a->h[l - 1] : a->h0;
            int inw = l ? H : E;
            o->zero(be, a->dA, (size_t)B * inw);
            o->linear_backward(be, a->dA, inw, g->W[l], NULL, a->dB, H, in, inw, p->W[l], B, inw,
                               H);
        }
        /* dA = dh0 = d(projection) = d(e2) */
        o->linear_backward(be, NULL, 0, g->pW, g->pb, a->dA, E, a->xt, D, p->pW, B, D, E);
        if (d->ckpt) ddpm_embed_recompute(d, B);
        if (d->K) { /* d(label embedding) = SiLU' * dh0, summed per class */
            o->zero(be, a->dB, (size_t)B * E);
            o->silu_backward(be, a->dB, a->dA, a->lab, (size_t)B * E);
            o->label_embed_backward(be, g->lemb, a->dB, d->y, B, d->K, E);
        }
        o->zero(be, a->dB, (size_t)B * E);
        o->linear_backward(be, a->dB, E, g->tW2, g->tb2, a->dA, E, a->e1s, E, p->tW2, B, E, E);
        o->zero(be, a->dA, (size_t)B * E);
        o->act_backward_bias(be, a->dA, g->tb1, a->dB, a->e1, B, E, GEN_ACT_SILU);
        o->linear_backward(be, NULL, 0, g->tW1, NULL, a->dA, E, a->temb, E, p->tW1, B, E, E);
    }
    float l2[2];
    o->download(be, l2, a->loss, sizeof l2);
    return l2[0] + l2[1];
}

void ddpm_adamw(ddpm *d, float lr, float decay) {
    gen_backend *be = d->be;
    d->step++;
    be->ops->adamw(be, d->params, d->grads, d->m, d->v, d->count, lr, 0.9f, 0.999f, 1e-8f,
                   decay > 0 ? 1.0f - lr * decay : 1.0f, d->step);
}

void ddpm_ema(ddpm *d, float decay) {
    d->be->ops->ema_update(d->be, d->ema, d->params, d->count, decay);
}
