/*
 * tvae_dp.c — TVAE trained with DP-SGD (Abadi et al., "Deep Learning with Differential
 * Privacy", CCS 2016; docs/privacy.md), the path tvae_model.c's fit takes when the plan
 * (src/model/dp.c) set m->dp:
 *   - each step's batch is a Poisson sample: every row joins independently with probability
 *     q (the accountant's assumption), so its size varies; it runs through the network in
 *     chunks of at most the batch size, and the clipped gradients of the chunks are summed;
 *   - per-example gradients are never formed: TVAE is a stack of linear layers joined by
 *     row-wise functions (ReLU, the reparameterisation, per-row losses; no batch norm), so
 *     row b's gradient of layer l is g_b^T x_b and its squared norm over the whole network is
 *     sum_l (||x_b^(l)||^2 + 1) ||g_b^(l)||^2 (dp_sqnorm_acc over the seven layers' stored
 *     inputs and output gradients of one ordinary backward pass with per-row losses);
 *   - the clipping factor s_b = min(1, C / norm_b) scales every output-gradient row, and the
 *     weight gradients are recomputed from them: sum_b s_b g_b^T x_b = (s g)^T x, one product
 *     per layer (the gradients of the layers' inputs are not needed again);
 *   - the sum gets N(0, sigma^2 C^2) per coordinate (dp_noise, Philox stream GEN_STREAM_DP)
 *     and is divided by the expected batch q n; Adam (lr, betas, L2 decay as without DP)
 *     follows, which is post-processing.
 * The decoder's output scale sigma (tvae.c) is not trained under DP: its gradient is a sum
 * of per-row terms outside the linear layers, so it is kept at its initial 0.1 (a
 * data-independent value) and neither clipped nor noised.
 * The loss printed while training is a diagnostic of the real batches, not part of the model.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "dev_table.h"
#include "dp.h"
#include "tvae.h"

#define TVAE_DP_LAYERS 7

/* The seven linear layers as the clipping sees them (dp.h gen_dp_linear). */
static void dp_layers(tvae *t, gen_dp_linear L[TVAE_DP_LAYERS]) {
    tvae_acts *a = &t->act;
    tvae_tensors *p = &t->p, *g = &t->g;
    int D = t->D, h = t->hid, e = t->emb, Dr = t->Dr;
    gen_dp_linear l[TVAE_DP_LAYERS] = {
        {a->x, D, D, a->da1, h, h, g->eW1, g->eb1, p->eW1},
        {a->h1, h, h, a->da2, h, h, g->eW2, g->eb2, p->eW2},
        {a->h2, h, h, a->dmu, e, e, g->mW, g->mb, p->mW},
        {a->h2, h, h, a->dlv, e, e, g->vW, g->vb, p->vW},
        {a->z, e, e, a->dc1, h, h, g->dW1, g->db1, p->dW1},
        {a->k1, h, h, a->dc2, h, h, g->dW2, g->db2, p->dW2},
        {a->k2, h, h, a->dr, Dr, Dr, g->dW3, g->db3, p->dW3},
    };
    memcpy(L, l, sizeof l);
}

void tvae_dp_clip_rows(tvae *t, int b, float *sum, float *sq, float *s, float clip, float *loss) {
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    tvae_forward_backward_n(t, b, 1, 1); /* per-row losses: each row's own gradient */
    if (loss) o->accumulate(be, loss, t->act.scal, 2);
    gen_dp_linear L[TVAE_DP_LAYERS];
    dp_layers(t, L);
    o->zero(be, t->grads, t->count);
    gen_dp_clip_linear(be, L, TVAE_DP_LAYERS, b, sq, s, clip);
    o->accumulate(be, sum, t->grads, (int)(t->count - (size_t)t->D));
}

/* The b rows in act.x: their reparameterisation noise, then tvae_dp_clip_rows. */
static void dp_chunk(tvae *t, int b, float *sum, float *sq, float *s, float clip, float *loss) {
    size_t ne = (size_t)b * t->emb;
    t->be->ops->fill_normal(t->be, t->act.eps, ne, t->seed, GEN_STREAM_NOISE, t->noise_off);
    t->noise_off += (ne + 3) / 4 + 1;
    tvae_dp_clip_rows(t, b, sum, sq, s, clip, loss);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

genesis_status tvae_dp_fit(genesis_model *m, tvae *t, const gen_encoded *enc,
                           genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    gen_backend *be = t->be;
    const gen_backend_ops *o = be->ops;
    const gen_dp_info *dp = &m->dp;
    int64_t N = enc->nrows;
    int B = t->B;
    size_t n = t->count - (size_t)t->D; /* every parameter but sigma (the last tensor) */
    GEN_RETURN_IF(t->act16 || t->amp || t->K > 1, ctx, GENESIS_ERR_UNSUPPORTED,
                  "DP-SGD needs FP32 activations on one rank");
    gen_resident_table table;
    GEN_TRY(gen_resident_table_create(be, &m->tf, enc, &table));
    int32_t *rows = malloc((size_t)N * sizeof *rows);
    int32_t *rows_dev = o->alloc(be, (size_t)B * sizeof *rows_dev);
    float *sq = o->alloc(be, (size_t)B * sizeof(float)), *s = o->alloc(be, (size_t)B * sizeof(float));
    float *sum = o->alloc(be, n * sizeof(float)), *loss = o->alloc(be, 2 * sizeof(float));
    genesis_status st = GENESIS_OK;
    if (!rows || !rows_dev || !sq || !s || !sum || !loss)
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for DP-SGD's buffers");
    gen_rng pick;
    gen_rng_init(&pick, m->seed, GEN_STREAM_DP_BATCH);
    int epochs = gen_param_i(m, GENESIS_P_EPOCHS);
    int64_t T = dp->steps, per_epoch = T / (epochs > 0 ? epochs : 1);
    if (per_epoch < 1) per_epoch = 1;
    uint64_t noise_at = 0;
    int64_t seen = 0;
    double t0 = now_s();
    if (st == GENESIS_OK) o->zero(be, loss, 2);
    for (int64_t k = 0; k < T && st == GENESIS_OK; k++) {
        int64_t nb = gen_dp_poisson_rows(&pick, dp->q, N, rows);
        o->zero(be, sum, n);
        for (int64_t c0 = 0; c0 < nb; c0 += B) {
            int b = (int)(nb - c0 < B ? nb - c0 : B);
            o->upload(be, rows_dev, rows + c0, (size_t)b * sizeof *rows);
            o->gather_rows(be, t->act.x, t->D, &table.t, rows_dev, b);
            dp_chunk(t, b, sum, sq, s, (float)dp->clip, loss);
        }
        seen += nb;
        gen_dp_noise_sum(be, dp, N, sum, n, t->seed, &noise_at);
        o->copy2d(be, t->grads, (int)n, sum, (int)n, 1, (int)n);
        o->zero(be, t->g.sigma, (size_t)t->D);
        t->step++;
        o->adam(be, t->params, t->grads, t->m, t->v, t->count, t->lr, 0.9f, 0.999f, 1e-8f,
                t->decay, t->step);
        o->clamp(be, t->p.sigma, (size_t)t->D, 0.01f, 1.0f);
        if ((k + 1) % per_epoch != 0 && k + 1 != T) continue;
        /* an epoch's end: the loss read back once, divergence, progress, stop */
        float l[2];
        o->download(be, l, loss, sizeof l);
        o->zero(be, loss, 2);
        int e = (int)((k + 1) / per_epoch);
        double avg = seen > 0 ? (l[0] + l[1]) / (double)seen : 0.0;
        seen = 0;
        if (!isfinite(avg) || gen_backend_status(be) != GENESIS_OK) {
            st = gen_diverged(be, "TVAE diverged under DP-SGD in epoch %d; try a smaller "
                              "learning rate or another seed", e);
            break;
        }
        st = gen_dp_report(m, progress, user, e, epochs, k + 1, N, avg, now_s() - t0, "epoch", e,
                           epochs);
    }
    free(rows);
    o->free(be, rows_dev);
    o->free(be, sq);
    o->free(be, s);
    o->free(be, sum);
    o->free(be, loss);
    gen_resident_table_free(&table);
    return st;
}
