/*
 * ctgan_dp.c — CTGAN with a differentially private discriminator (docs/privacy.md, "DP-CTGAN"),
 * the path ctgan_model.c's fit takes when the plan (src/model/dp.c) set m->dp. Only the
 * discriminator reads real rows, so only its updates are made private (DP-SGD: Abadi et al.,
 * CCS 2016; the construction of DP-GANs such as Xie et al., "Differentially Private
 * Generative Adversarial Network", 2018, and of DP-CTGAN, Fang et al., 2022); the generator
 * is updated from the released discriminator and fresh noise only, which is post-processing.
 * The privacy unit is one row of the table (add/remove-one neighbours):
 *   - pac = 1 (the fit sets it): each discriminator input is one real row [its encoding, its
 *     conditional vector], so one row's influence on a step is one input's;
 *   - each step's real rows are a Poisson sample (probability q each), in chunks of at most
 *     the batch size; a real row's conditional vector is its own category in a discrete
 *     column drawn uniformly (a function of that row alone), not training-by-sampling's pick
 *     of rows by category (which would read every row's category);
 *   - the loss is the GAN's cross entropy (Goodfellow et al. 2014) on D's logit y:
 *     softplus(-y) for a real row, softplus(y) for a fake one; the WGAN gradient penalty is
 *     dropped, because its interpolates mix a real row into a fake one and its gradient
 *     needs the double backward's rows per example (docs/privacy.md says why);
 *   - each real row's gradient is clipped to C (its norm from the three linear layers'
 *     inputs and output gradients, dp.h gen_dp_clip_linear; the leaky ReLU and dropout act on
 *     one row each, the discriminator has no batch norm), the B fake rows' gradient (fixed
 *     count, from the generator and noise: no real data) is added unclipped, N(0, sigma^2
 *     C^2) per coordinate is added and the sum divided by the expected batch q n;
 *   - the fake rows' conditional vectors come from the transformer's released marginals
 *     (the prior built from the pseudo-table of noisy histograms, frequencies not their
 *     logarithms, so that fake and real rows carry conditions of the same distribution).
 * Generator step (one per `discriminator-steps` discriminator steps): the non-saturating loss
 * softplus(-D(G(z))) averaged over B rows plus the conditional cross entropy, through the
 * private discriminator.
 * The losses printed while training are diagnostics of the last step's fake rows.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "ctgan.h"
#include "dev_table.h"
#include "dp.h"
#include "sampler.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* dy = d softplus(-y) / dy = sigma(y) - 1 = -sigma(-y), times scale (y is negated in place) */
static void real_label_grad(gen_backend *be, float *dy, float *y, int n, float scale) {
    const gen_backend_ops *o = be->ops;
    o->scale(be, y, (size_t)n, -1.0f);
    o->sigmoid_forward(be, dy, y, (size_t)n);
    o->scale(be, dy, (size_t)n, -scale);
}

void ctgan_dp_clip_real(ctgan *c, const float *x, float *dy, int b, float *sq, float *s,
                        float clip) {
    ctgan_acts *a = &c->act;
    ctgan_dis_tensors *p = &c->dp, *g = &c->dg;
    int dd = c->ddim, pw = c->pacw;
    ctgan_dis_backward(c, x, dy, NULL, 0, b); /* the rows' output gradients da1, da2 */
    gen_dp_linear L[3] = {
        {x, pw, pw, a->da1, dd, dd, g->W1, g->b1, p->W1},
        {a->o1, dd, dd, a->da2, dd, dd, g->W2, g->b2, p->W2},
        {a->o2, dd, dd, dy, 1, 1, g->W3, g->b3, p->W3},
    };
    gen_dp_clip_linear(c->be, L, 3, b, sq, s, clip);
}

/* The fit's host draws: the generator's conditions (positions in the conditional vector,
 * -1 none) and the conditional loss's spans for B rows, from the released prior. */
static void draw_conditions(const gen_cond_sampler *s, gen_rng *rng, int B, int32_t *col,
                            int32_t *cat, int32_t *gpos, int32_t *ce) {
    if (s->n_disc > 0) gen_cond_sampler_draw(s, rng, B, col, cat);
    for (int b = 0; b < B; b++) {
        int d = s->n_disc > 0 ? col[b] : -1;
        gpos[b] = d >= 0 ? s->cond_start[d] + cat[b] : -1;
        ce[b] = d >= 0 ? s->data_start[d] : 0;
        ce[B + b] = d >= 0 ? s->n_cat[d] : 0;
        ce[2 * B + b] = d >= 0 ? s->data_start[d] + cat[b] : 0;
    }
}

typedef struct dp_bufs {
    int32_t *rows, *hint;       /* host: the Poisson sample (n); conditions (6 B), real rows' (B) */
    int32_t *dint;              /* backend: rows, rpos, gpos, ce (3 B) */
    float *dy, *sq, *s;         /* backend: B each */
} dp_bufs;

/* One discriminator step: the fake term, the clipped real rows, the noise, Adam. */
static void dis_step(genesis_model *m, ctgan *c, const gen_cond_sampler *prior,
                     const gen_encoded *enc, const gen_dev_table *table, gen_rng *pick,
                     gen_rng *rng, dp_bufs *bf, uint64_t *noise_at) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    const gen_dp_info *dp = &m->dp;
    int B = c->B, w = c->w;
    int32_t *col = bf->hint, *cat = col + B, *gpos = cat + B, *ce = gpos + B;
    int32_t *drows = bf->dint, *drpos = drows + B, *dgpos = drpos + B;
    /* fake rows: B of them whatever the sample's size, conditions from the released prior */
    draw_conditions(prior, rng, B, col, cat, gpos, ce);
    o->upload(be, dgpos, gpos, (size_t)B * sizeof(int32_t));
    ctgan_generator_input(c, dgpos);
    ctgan_gen_forward(c, 1);
    ctgan_fake_rows(c);
    o->zero(be, c->dgrads, c->dcount);
    ctgan_dis_forward(c, a->fake, B);
    o->sigmoid_forward(be, bf->dy, a->y, (size_t)B); /* d softplus(y) / dy */
    ctgan_dis_backward(c, a->fake, bf->dy, NULL, 1, B);
    /* real rows: a Poisson sample, each with its own category in a uniform discrete column */
    int64_t nb = gen_dp_poisson_rows(pick, dp->q, enc->nrows, bf->rows);
    for (int64_t c0 = 0; c0 < nb; c0 += B) {
        int b = (int)(nb - c0 < B ? nb - c0 : B);
        const int32_t *r = bf->rows + c0;
        int32_t *rpos = bf->hint + 6 * B;
        for (int i = 0; i < b; i++) {
            int d = prior->n_disc > 0 ? (int)gen_rng_below(rng, (uint64_t)prior->n_disc) : -1;
            rpos[i] = d >= 0 ? prior->cond_start[d] + enc->slot[prior->disc_col[d]][r[i]] : -1;
        }
        o->upload(be, drows, r, (size_t)b * sizeof(int32_t));
        o->gather_rows(be, a->real, w, table, drows, b);
        if (c->cond_dim > 0) {
            o->upload(be, drpos, rpos, (size_t)b * sizeof(int32_t));
            o->onehot_rows(be, a->real + c->data_dim, w, c->cond_dim, drpos, b);
        }
        ctgan_dis_forward(c, a->real, b);
        real_label_grad(be, bf->dy, a->y, b, 1.0f);
        ctgan_dp_clip_real(c, a->real, bf->dy, b, bf->sq, bf->s, (float)dp->clip);
    }
    gen_dp_noise_sum(be, dp, enc->nrows, c->dgrads, c->dcount, m->seed, noise_at);
    o->adam(be, c->dparams, c->dgrads, c->dm, c->dv, c->dcount, c->dis_lr, 0.5f, 0.9f, 1e-8f,
            c->dis_decay, ++c->dstep);
}

/* One generator step through the private discriminator; dy keeps d loss / dy (B floats). */
static void gen_step(ctgan *c, const gen_cond_sampler *prior, gen_rng *rng, dp_bufs *bf) {
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    ctgan_acts *a = &c->act;
    int B = c->B;
    int32_t *col = bf->hint, *cat = col + B, *gpos = cat + B, *ce = gpos + B;
    int32_t *dgpos = bf->dint + 2 * B, *dce = dgpos + B;
    draw_conditions(prior, rng, B, col, cat, gpos, ce);
    o->upload(be, dgpos, gpos, (size_t)B * 4 * sizeof(int32_t)); /* gpos and ce, adjacent */
    ctgan_generator_input(c, dgpos);
    ctgan_gen_forward(c, 1);
    ctgan_fake_rows(c);
    ctgan_dis_forward(c, a->fake, B);
    real_label_grad(be, bf->dy, a->y, B, 1.0f / (float)B); /* non-saturating: softplus(-y) */
    o->zero(be, a->scal + 3, 1);
    ctgan_gen_grads(c, bf->dy, prior->n_disc, dce, dce + B, dce + 2 * B);
    o->adam(be, c->gparams, c->ggrads, c->gm, c->gv, c->gcount, c->gen_lr, 0.5f, 0.9f, 1e-8f,
            c->gen_decay, ++c->gstep);
}

genesis_status ctgan_dp_fit(genesis_model *m, ctgan *c, const gen_cond_sampler *prior,
                            const gen_encoded *enc, genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    gen_backend *be = c->be;
    const gen_backend_ops *o = be->ops;
    const gen_dp_info *dp = &m->dp;
    int B = c->B;
    GEN_RETURN_IF(c->pac != 1 || c->K > 1 || c->amp || c->act16, ctx, GENESIS_ERR_UNSUPPORTED,
                  "DP-CTGAN needs pac 1, FP32 and one rank");
    gen_resident_table table;
    GEN_TRY(gen_resident_table_create(be, &m->tf, enc, &table));
    dp_bufs bf = {0};
    bf.rows = malloc((size_t)(enc->nrows > 0 ? enc->nrows : 1) * sizeof(int32_t));
    bf.hint = malloc((size_t)7 * B * sizeof(int32_t));
    bf.dint = o->alloc(be, (size_t)6 * B * sizeof(int32_t));
    bf.dy = o->alloc(be, (size_t)B * sizeof(float));
    bf.sq = o->alloc(be, (size_t)B * sizeof(float));
    bf.s = o->alloc(be, (size_t)B * sizeof(float));
    genesis_status st = GENESIS_OK;
    if (!bf.rows || !bf.hint || !bf.dint || !bf.dy || !bf.sq || !bf.s)
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for DP-CTGAN's buffers");
    gen_rng pick, rng;
    gen_rng_init(&pick, m->seed, GEN_STREAM_DP_BATCH);
    gen_rng_init(&rng, m->seed, GEN_STREAM_SAMPLER);
    int epochs = gen_param_i(m, GENESIS_P_EPOCHS), ds = c->dis_steps;
    int64_t T = dp->steps, per_epoch = T / (epochs > 0 ? epochs : 1);
    if (per_epoch < 1) per_epoch = 1;
    uint64_t noise_at = 0;
    double t0 = now_s();
    for (int64_t k = 0; k < T && st == GENESIS_OK; k++) {
        dis_step(m, c, prior, enc, &table.t, &pick, &rng, &bf, &noise_at);
        if ((k + 1) % ds == 0 || k + 1 == T) gen_step(c, prior, &rng, &bf);
        if ((k + 1) % per_epoch != 0 && k + 1 != T) continue;
        /* an epoch's end: divergence, progress (diagnostics of the last generator step) */
        int e = (int)((k + 1) / per_epoch);
        float dy[8] = {0};
        int nd = B < 8 ? B : 8;
        o->download(be, dy, bf.dy, (size_t)nd * sizeof(float));
        double lg = 0;
        for (int i = 0; i < nd; i++) lg -= log(1.0 + (double)B * dy[i]) / nd; /* softplus(-y) */
        if (gen_backend_status(be) != GENESIS_OK || o->any_nonfinite(be, c->dparams, c->dcount) ||
            o->any_nonfinite(be, c->gparams, c->gcount)) {
            st = gen_diverged(be, "CTGAN diverged under DP-SGD in epoch %d; try a smaller "
                              "learning rate or another seed", e);
            break;
        }
        st = gen_dp_report(m, progress, user, e, epochs, k + 1, enc->nrows, lg, now_s() - t0,
                           "epoch", e, epochs);
    }
    free(bf.rows);
    free(bf.hint);
    o->free(be, bf.dint);
    o->free(be, bf.dy);
    o->free(be, bf.sq);
    o->free(be, bf.s);
    gen_resident_table_free(&table);
    return st;
}
