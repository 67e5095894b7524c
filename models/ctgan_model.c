/*
 * ctgan_model.c — CTGAN as a genesis model: the vtable that connects the network (ctgan.c)
 * to the shared model glue (src/model/model.c): fit with epochs, progress and divergence checks;
 * generation batches; and the model file section (generator weights, batch-norm running
 * statistics, the generation-time category prior). The discriminator is not saved (the
 * reference does not keep it either).
 * Data parallel (docs/distributed.md): the fit is the same loop on every rank; the network
 * holds the rank's slice of each global batch and sums gradients across ranks. The model
 * file records the global batch, and the first sampling call swaps the training network for
 * a generator sized for the global batch, so rank 0 samples and saves exactly what one rank
 * would.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "dev_table.h"
#include "ctgan.h"
#include "checkpoint.h"
#include "model_io.h"

typedef struct ctgan_model {
    ctgan *net;
    gen_cond_sampler prior;    /* category prior for unconditioned generation (no row lists) */
    gen_condition *draw;       /* [B] the drawn conditions of a sampling group */
    gen_rng rng;               /* ctgan_generate's stream (unread: the draws come in `draw`) */
    gen_rng train_rng;         /* the fit's conditions and row picks (checkpointed) */
    uint64_t gwt_call;         /* sample_calls + 1 when net->gwt was last built; 0: never */
} ctgan_model;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ctgan_model_free(genesis_model *m) {
    ctgan_model *cm = m->impl;
    if (!cm) return;
    ctgan_free(cm->net);
    gen_cond_sampler_free(&cm->prior);
    free(cm->draw);
    free(cm);
    m->impl = NULL;
}

static int cond_dim_of(const gen_transformer *tf) {
    int d = 0;
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].type == GENESIS_COLUMN_CATEGORICAL) d += tf->cols[c].width;
    return d;
}

static genesis_status make_net(genesis_model *m, const ctgan_config *cfg, ctgan **out) {
    gen_act_span *spans = gen_model_act_spans(&m->tf);
    GEN_RETURN_IF(!spans, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->be->precision = gen_param_i(m, GENESIS_P_PRECISION); /* the GEMMs' operands */
    genesis_status st = ctgan_create(m->ctx, m->be, cfg, spans, m->tf.nspans, out);
    free(spans);
    if (st != GENESIS_OK) return st;
    ctgan *c = *out;
    c->gen_lr = (float)m->param[GENESIS_P_GEN_LR];
    c->dis_lr = (float)m->param[GENESIS_P_DIS_LR];
    c->gen_decay = (float)m->param[GENESIS_P_GEN_DECAY];
    c->dis_decay = (float)m->param[GENESIS_P_DIS_DECAY];
    return GENESIS_OK;
}

/* Data parallel: every rank must hold the same data and settings, and the global batch must
 * split into equal slices of whole pac groups whose noise starts on Philox block boundaries
 * (4 values). Every rank computes the same answer, so they fail together. */
static genesis_status check_distributed(genesis_model *m, const gen_encoded *enc, gen_comm *comm,
                                        int B, int pac) {
    genesis_ctx *ctx = m->ctx;
    int K = gen_comm_size(comm);
    /* the seed, table shape and settings were checked before the transformer fit (model.c) */
    GEN_TRY(gen_comm_check_same(comm, "the encoded row width", (double)m->tf.data_dim));
    GEN_RETURN_IF(B % (K * pac) != 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "with %d ranks, `batch-size` (%d) must be a multiple of ranks x `pac` = %d (the "
                  "global batch is split into equal slices of whole pac groups); e.g. `batch-size` "
                  "%d",
                  K, B, K * pac, (B / (K * pac) + 1) * K * pac);
    int Bl = B / K, nl = Bl / pac;
    GEN_RETURN_IF((int64_t)Bl * gen_param_i(m, GENESIS_P_EMBEDDING_DIM) % 4 != 0 ||
                      (int64_t)nl * gen_param_i(m, GENESIS_P_DIS_DIM) % 4 != 0,
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "with %d ranks, (batch-size / ranks) x embedding-dim and (batch-size / ranks / "
                  "pac) x discriminator-dim must be multiples of 4, so that each rank's noise "
                  "starts on a Philox block; use dimensions that are multiples of 4",
                  K);
    return GENESIS_OK;
}

/* After a data-parallel fit (at the first sampling call): a generator-only network for the
 * global batch, with the fitted weights and batch-norm statistics, replaces the training
 * network (which holds a slice). */
static genesis_status regather_generator(genesis_model *m, ctgan_model *cm) {
    ctgan *c = cm->net, *g = NULL;
    ctgan_config cfg = {c->Bg, c->pac, c->emb, c->gdim, c->ddim, c->data_dim, c->cond_dim, 0, NULL, 0,
                        gen_param_i(m, GENESIS_P_PRECISION), 0};
    GEN_TRY(make_net(m, &cfg, &g));
    size_t ns = 4 * (size_t)c->gdim;
    float *h = malloc((c->gcount + ns) * sizeof(float));
    if (!h) {
        ctgan_free(g);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory after training");
    }
    gen_backend *be = c->be;
    be->ops->download(be, h, c->gparams, c->gcount * sizeof(float));
    be->ops->download(be, h + c->gcount, c->gstats, ns * sizeof(float));
    be->ops->upload(be, g->gparams, h, c->gcount * sizeof(float));
    be->ops->upload(be, g->gstats, h + c->gcount, ns * sizeof(float));
    free(h);
    g->seed = c->seed;
    ctgan_free(c);
    cm->net = g;
    return GENESIS_OK;
}

/* Checkpoints (src/model/checkpoint.c): at an epoch boundary the fit's state is the networks'
 * weights, the batch-norm statistics, both Adams' moments and step counts, the noise
 * counter and the host stream of conditions and row picks; each epoch draws its batches
 * afresh from that stream, so nothing else carries over. */
static genesis_status ctgan_train_save(const genesis_model *m, gen_bytes *b) {
    const ctgan_model *cm = m->impl;
    const ctgan *c = cm->net;
    GEN_RETURN_IF(!c->train, m->ctx, GENESIS_ERR_STATE, "CTGAN is not training; no training state");
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->gparams, c->gcount));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->gstats, 4 * (size_t)c->gdim));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->dparams, c->dcount));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->gm, c->gcount));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->gv, c->gcount));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->dm, c->dcount));
    GEN_TRY(gen_ckpt_wr_dev(m, b, c->dv, c->dcount));
    gen_wr_u64(b, (uint64_t)c->gstep);
    gen_wr_u64(b, (uint64_t)c->dstep);
    gen_wr_u64(b, c->noise_off);
    gen_ckpt_wr_rng(b, &cm->train_rng);
    if (c->amp) gen_ckpt_wr_amp(m, b, c->amp, 2); /* FP16: the loss scaling */
    return GENESIS_OK;
}

static genesis_status ctgan_train_restore(genesis_model *m, gen_reader *r) {
    ctgan_model *cm = m->impl;
    ctgan *c = cm->net;
    uint64_t gstep, dstep;
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->gparams, c->gcount));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->gstats, 4 * (size_t)c->gdim));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->dparams, c->dcount));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->gm, c->gcount));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->gv, c->gcount));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->dm, c->dcount));
    GEN_TRY(gen_ckpt_rd_dev(m, r, c->dv, c->dcount));
    GEN_TRY(gen_rd_u64(r, &gstep));
    GEN_TRY(gen_rd_u64(r, &dstep));
    GEN_TRY(gen_rd_u64(r, &c->noise_off));
    GEN_TRY(gen_ckpt_rd_rng(r, &cm->train_rng));
    if (c->amp) GEN_TRY(gen_ckpt_rd_amp(m, r, c->amp, 2)); /* FP16: the loss scaling */
    if (gstep > ((uint64_t)1 << 50) || dstep > ((uint64_t)1 << 50))
        return gen_rd_fail(r, "CTGAN step counts are out of range");
    if (r->pos != r->len) return gen_rd_fail(r, "unexpected bytes after CTGAN's training state");
    c->gstep = (int64_t)gstep;
    c->dstep = (int64_t)dstep;
    return GENESIS_OK;
}

static genesis_status ctgan_model_fit(genesis_model *m, const gen_encoded *enc,
                                      genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    gen_comm *comm = ctx->comm;
    int K = gen_comm_size(comm), rank = gen_comm_rank(comm);
    int B = gen_param_i(m, GENESIS_P_BATCH_SIZE), pac = gen_param_i(m, GENESIS_P_PAC);
    GEN_RETURN_IF(m->dp.on && pac != 1 && m->param_given[GENESIS_P_PAC], ctx,
                  GENESIS_ERR_INVALID_ARG,
                  "`pac` %d cannot be used with `epsilon`: under differential privacy each "
                  "discriminator input is one row, the privacy unit (pac 1); leave `pac` out "
                  "or set it to 1",
                  pac);
    if (m->dp.on && pac != 1) { /* DP-CTGAN: one real row per discriminator input (ctgan_dp.c) */
        gen_log(ctx, GENESIS_LOG_INFO,
                "differential privacy: pac %d -> 1 (each discriminator input is one row, the "
                "privacy unit)", pac);
        pac = 1;
        m->param[GENESIS_P_PAC] = 1;
    }
    GEN_RETURN_IF(B % pac != 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "`batch-size` (%d) must be a multiple of `pac` (%d); e.g. `batch-size` %d", B,
                  pac,
                  (B / pac + 1) * pac);
    if (K > 1) GEN_TRY(check_distributed(m, enc, comm, B, pac));
    ctgan_model *cm = calloc(1, sizeof *cm);
    GEN_RETURN_IF(!cm, ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->impl = cm;
    if (m->dp.on) { /* the conditions' prior from the released marginals, never the real rows */
        GEN_RETURN_IF(!m->dp_pseudo, ctx, GENESIS_ERR_INTERNAL,
                      "DP-CTGAN: the released marginals are missing");
        gen_encoded penc;
        GEN_TRY(gen_transformer_transform(ctx, &m->tf, m->dp_pseudo, &penc));
        genesis_status pst = gen_cond_sampler_init(ctx, &cm->prior, &m->tf, &penc, 0);
        gen_encoded_free(&penc);
        GEN_TRY(pst);
    } else {
        GEN_TRY(gen_cond_sampler_init(ctx, &cm->prior, &m->tf, enc,
                                      gen_param_i(m, GENESIS_P_LOG_FREQUENCY)));
    }
    ctgan_config cfg = {B, pac, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                        gen_param_i(m, GENESIS_P_GEN_DIM), gen_param_i(m, GENESIS_P_DIS_DIM),
                        m->tf.data_dim, cm->prior.cond_dim, 1, comm,
                        gen_param_i(m, GENESIS_P_DIS_STEPS), gen_param_i(m, GENESIS_P_PRECISION),
                        gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    GEN_TRY(make_net(m, &cfg, &cm->net));
    ctgan *c = cm->net;
    GEN_TRY(ctgan_init_weights(c, m->seed));
    c->seed = m->seed;
    c->noise_off = 0;
    if (m->dp.on) { /* DP-SGD on the discriminator: ctgan_dp.c */
        genesis_status dst = ctgan_dp_fit(m, c, &cm->prior, enc, progress, user);
        free(cm->prior.rows); /* the pseudo-table's row lists: not kept */
        cm->prior.rows = NULL;
        free(cm->prior.row_start);
        cm->prior.row_start = NULL;
        return dst;
    }

    /* the encoded table stays in backend memory; the host draws a chunk of steps at a time
     * and the backend is waited for once per epoch (docs/cuda.md, "Synchronisations") */
    gen_resident_table table;
    GEN_TRY(gen_resident_table_create(m->be, &m->tf, enc, &table));
    int32_t *draws = gen_calloc(ctgan_step_scratch(c), sizeof(int32_t));
    if (!draws) {
        gen_resident_table_free(&table);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the training draws");
    }
    gen_rng *rng = &cm->train_rng;
    gen_rng_init(rng, m->seed, GEN_STREAM_SAMPLER);
    int epochs = gen_param_i(m, GENESIS_P_EPOCHS);
    int64_t e0 = 0; /* epochs done (a resumed checkpoint) */
    gen_reader rr;
    if (gen_ckpt_resume_reader(m, &rr, &e0)) {
        genesis_status rst = e0 <= epochs ? ctgan_train_restore(m, &rr)
                                          : gen_rd_fail(&rr, "more epochs done than the fit has");
        if (rst != GENESIS_OK) {
            free(draws);
            gen_resident_table_free(&table);
            return rst;
        }
    }
    int64_t steps = enc->nrows / B > 1 ? enc->nrows / B : 1;
    int chunk = ctgan_chunk_steps(c);
    double t0 = now_s();
    genesis_status st = GENESIS_OK;
    ctgan_step_losses L = {0};
    for (int e = (int)e0; e < epochs && st == GENESIS_OK; e++) {
        for (int64_t s0 = 0; s0 < steps && st == GENESIS_OK; s0 += chunk) {
            int ns = steps - s0 < chunk ? (int)(steps - s0) : chunk;
            ctgan_draw_steps(c, &cm->prior, enc->nrows, rng, ns, draws);
            ctgan_upload_draws(c, draws, ns);
            for (int k = 0; k < ns && st == GENESIS_OK; k++) {
                st = ctgan_train_step(c, &table.t, cm->prior.n_disc, k);
                if (st == GENESIS_OK && gen_ctx_interrupted(ctx) && s0 + k + 1 < steps)
                    st = gen_ckpt_stop_within(m, e + 1, epochs, s0 + k + 1, steps);
            }
        }
        if (st == GENESIS_OK) st = ctgan_epoch_end(c, e + 1, &L);
        if (st != GENESIS_OK) break;
        int stop = 0;
        if (progress && rank == 0) { /* rank 0 reports; the ranks agree on stopping */
            double el = now_s() - t0;
            int64_t ran = e + 1 - e0; /* epochs this call has run */
            genesis_progress p = {e + 1, epochs, (int64_t)(e + 1) * steps, (int64_t)epochs * steps,
                                  L.loss_g, L.loss_d, el, el / ran * (epochs - e - 1),
                                  (double)ran * steps * B / (el > 0 ? el : 1e-9)};
            stop = progress(&p, user);
        }
        if (K > 1) stop = gen_comm_agree(comm, stop);
        st = gen_ckpt_point(m, e + 1, epochs, stop); /* checkpoint when due; stop */
    }
    free(draws);
    ctgan_graph_free(c); /* it reads the table */
    if (c->amp && st == GENESIS_OK) { /* FP16: the loss scaling's account (docs/precision.md) */
        double sd = 0, sg = 0;
        int64_t kd = 0, kg = 0;
        gen_amp_read(m->be, c->amp, 1, &kd, &sd);
        gen_amp_read(m->be, c->amp + 1, 1, &kg, &sg);
        m->fp16_skipped = kd + kg;
        if (rank == 0)
            gen_log(ctx, GENESIS_LOG_INFO,
                    "fp16 loss scaling: %lld of %lld discriminator and %lld of %lld generator "
                    "steps skipped (gradient overflow), final loss scales %g and %g",
                    (long long)kd, (long long)epochs * steps * c->dis_steps, (long long)kg,
                    (long long)epochs * steps, sd, sg);
    }
    gen_resident_table_free(&table);
    gen_comm_log_fit(ctx, comm, now_s() - t0, (long long)epochs * steps);
    /* the row lists are only for training; keep the category prior */
    free(cm->prior.rows);
    cm->prior.rows = NULL;
    free(cm->prior.row_start);
    cm->prior.row_start = NULL;
    return st;
}

static int ctgan_model_batch(const genesis_model *m) {
    const ctgan_model *cm = m->impl;
    return cm->net->Bg;
}

/* Group k = row0 / B of a sampling call: the latent noise and the Gumbel noise are the
 * Philox elements ctgan_generate reads from sample_off = k x (its two regions per group);
 * without conditions, row r's conditional vector entry is drawn from its own row-numbered
 * stream (rng.h gen_rng_row, stream + 1). */
static genesis_status ctgan_model_generate(genesis_model *m, int B, const gen_condition *conds,
                                           int nconds, int64_t row0, float *out) {
    ctgan_model *cm = m->impl;
    if (cm->net->K > 1) GEN_TRY(regather_generator(m, cm));
    ctgan *c = cm->net;
    GEN_ASSERT(B == c->B && row0 % B == 0);
    if (cm->gwt_call != (uint64_t)m->sample_calls + 1) { /* weights fixed within one call */
        GEN_TRY(ctgan_sampling_weights(c));
        cm->gwt_call = (uint64_t)m->sample_calls + 1;
    }
    uint64_t stream = GEN_STREAM_SAMPLE + (m->sample_calls << 8);
    size_t nz = (size_t)B * c->emb, ne = (size_t)B * c->data_dim;
    c->seed = m->ctx->seed;
    c->sample_stream = stream;
    c->sample_off = (uint64_t)(row0 / B) * ((nz + 3) / 4 + 1 + (ne + 3) / 4 + 1);
    gen_rng_row(&cm->rng, c->seed, stream + 1, (uint64_t)row0);
    if (c->cond_dim > 0 && nconds == 0 && cm->prior.n_disc > 0) {
        if (!cm->draw) cm->draw = calloc((size_t)B, sizeof *cm->draw);
        GEN_RETURN_IF(!cm->draw, m->ctx, GENESIS_ERR_NOMEM, "out of memory while sampling");
        for (int b = 0; b < B; b++) {
            gen_rng r;
            int32_t col, cat;
            gen_rng_row(&r, c->seed, stream + 1, (uint64_t)(row0 + b));
            gen_cond_sampler_draw(&cm->prior, &r, 1, &col, &cat);
            cm->draw[b] = (gen_condition){col, -1, cat};
        }
        conds = cm->draw;
        nconds = B;
    }
    return ctgan_generate(c, &cm->prior, &cm->rng, conds, nconds,
                          gen_param_i(m, GENESIS_P_BN_EVAL_SAMPLE), out);
}

static genesis_status ctgan_model_save(const genesis_model *m, gen_bytes *b) {
    const ctgan_model *cm = m->impl;
    const ctgan *c = cm->net;
    gen_backend *be = c->be;
    gen_wr_u32(b, (uint32_t)c->Bg); /* the global batch: what one rank would have trained with */
    gen_wr_u32(b, (uint32_t)c->pac);
    gen_wr_u32(b, (uint32_t)c->emb);
    gen_wr_u32(b, (uint32_t)c->gdim);
    gen_wr_u32(b, (uint32_t)c->ddim);
    gen_wr_u32(b, (uint32_t)c->data_dim);
    gen_wr_u32(b, (uint32_t)c->cond_dim);
    size_t ns = 4 * (size_t)c->gdim;
    float *h = malloc((c->gcount + ns) * sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    be->ops->download(be, h, c->gparams, c->gcount * sizeof(float));
    be->ops->download(be, h + c->gcount, c->gstats, ns * sizeof(float));
    gen_wr_u64(b, (uint64_t)c->gcount);
    gen_wr_f32s(b, h, c->gcount + ns);
    free(h);
    gen_wr_u32(b, (uint32_t)cm->prior.n_disc);
    gen_wr_u32(b, (uint32_t)cm->prior.max_cat);
    gen_wr_f64s(b, cm->prior.cdf, (size_t)cm->prior.n_disc * cm->prior.max_cat);
    return b->oom ? gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model")
                  : GENESIS_OK;
}

static genesis_status ctgan_model_load(genesis_model *m, gen_reader *r) {
    genesis_ctx *ctx = m->ctx;
    int cfgv[7];
    static const char *names[7] = {"batch size", "pac", "embedding size", "generator width",
                                   "discriminator width", "data width", "condition width"};
    static const uint32_t hi[7] = {1u << 20, 1000, 4096, 8192, 8192, 1u << 24, 1u << 24};
    for (int i = 0; i < 7; i++)
        GEN_TRY(gen_rd_count(r, i == 6 ? 0 : 1, hi[i], names[i], &cfgv[i]));
    ctgan_config cfg = {cfgv[0], cfgv[1], cfgv[2], cfgv[3], cfgv[4], cfgv[5], cfgv[6], 0, NULL, 0,
                        gen_param_i(m, GENESIS_P_PRECISION), 0};
    if (cfg.batch % cfg.pac != 0 || cfg.data_dim != m->tf.data_dim ||
        cfg.cond_dim != cond_dim_of(&m->tf))
        return gen_rd_fail(r, "CTGAN sizes do not match the model's column layout");
    /* a loaded model only generates; its buffers grow with batch x width, which the file's
     * size does not bound, so cap them (1 GiB of activations) */
    uint64_t per_row = 8 * ((uint64_t)cfg.emb + cfg.cond_dim) + 16 * (uint64_t)cfg.gdim +
                       8 * (uint64_t)cfg.data_dim; /* >= the generator's activations per row */
    if ((uint64_t)cfg.batch * per_row > ((uint64_t)1 << 28))
        return gen_rd_fail(r, "CTGAN batch size and widths are implausibly large");
    ctgan_model *cm = calloc(1, sizeof *cm);
    GEN_RETURN_IF(!cm, ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    m->impl = cm;
    GEN_TRY(gen_cond_sampler_layout(ctx, &cm->prior, &m->tf));
    /* check the parameter count against the bytes present before allocating the network */
    uint64_t gcount;
    GEN_TRY(gen_rd_u64(r, &gcount));
    uint64_t d0 = (uint64_t)cfg.emb + cfg.cond_dim, g = (uint64_t)cfg.gdim;
    uint64_t expect = g * d0 + 3 * g + g * (g + d0) + 3 * g + (uint64_t)cfg.data_dim * (2 * g + d0) +
                      (uint64_t)cfg.data_dim;
    if (gcount != expect) return gen_rd_fail(r, "generator parameter count does not match its sizes");
    if ((gcount + 4 * g) * 4 > r->len - r->pos)
        return gen_rd_fail(r, "generator weights extend past the end of the file");
    m->param[GENESIS_P_BATCH_SIZE] = cfg.batch;
    m->param[GENESIS_P_PAC] = cfg.pac;
    m->param[GENESIS_P_EMBEDDING_DIM] = cfg.emb;
    m->param[GENESIS_P_GEN_DIM] = cfg.gdim;
    m->param[GENESIS_P_DIS_DIM] = cfg.ddim;
    GEN_TRY(make_net(m, &cfg, &cm->net));
    ctgan *c = cm->net;
    size_t ns = 4 * (size_t)c->gdim;
    float *h = malloc((c->gcount + ns) * sizeof(float));
    GEN_RETURN_IF(!h, ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    genesis_status st = gen_rd_f32s(r, h, c->gcount + ns);
    for (size_t i = 0; st == GENESIS_OK && i < c->gcount + ns; i++)
        if (!isfinite(h[i])) st = gen_rd_fail(r, "a generator weight is NaN or infinite");
    if (st == GENESIS_OK) {
        m->be->ops->upload(m->be, c->gparams, h, c->gcount * sizeof(float));
        m->be->ops->upload(m->be, c->gstats, h + c->gcount, ns * sizeof(float));
    }
    free(h);
    GEN_TRY(st);
    int nd, mc;
    GEN_TRY(gen_rd_count(r, 0, 1u << 24, "discrete column count", &nd));
    GEN_TRY(gen_rd_count(r, 0, 1u << 24, "category count", &mc));
    if (nd != cm->prior.n_disc || mc != cm->prior.max_cat)
        return gen_rd_fail(r, "category prior does not match the model's columns");
    size_t cells = (size_t)nd * mc;
    if (cells) {
        if (cells * 8 > r->len - r->pos) return gen_rd_fail(r, "category prior is truncated");
        cm->prior.cdf = malloc(cells * sizeof(double));
        GEN_RETURN_IF(!cm->prior.cdf, ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
        GEN_TRY(gen_rd_f64s(r, cm->prior.cdf, cells));
        for (int d = 0; d < nd; d++) { /* a valid cdf: non-decreasing in [0, 1], ends at 1 */
            const double *cdf = cm->prior.cdf + (size_t)d * mc;
            double prev = 0;
            for (int k = 0; k < cm->prior.n_cat[d]; k++) {
                if (!(cdf[k] >= prev && cdf[k] <= 1.0)) return gen_rd_fail(r, "category prior is not a distribution");
                prev = cdf[k];
            }
            if (prev != 1.0) return gen_rd_fail(r, "category prior does not sum to 1");
        }
    }
    return GENESIS_OK;
}

static void ctgan_model_memory(const genesis_model *m, const gen_net_shape *sh, gen_net_bytes *out) {
    /* a DP fit (epsilon set) runs with pac 1 (ctgan_model_fit), whose discriminator takes pac
     * times more inputs: the estimate and the fit's memory check count that network */
    int pac = m->param[GENESIS_P_EPSILON] > 0 ? 1 : gen_param_i(m, GENESIS_P_PAC);
    ctgan_config cfg = {sh->batch, pac, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                        gen_param_i(m, GENESIS_P_GEN_DIM), gen_param_i(m, GENESIS_P_DIS_DIM),
                        sh->data_dim, sh->cond_dim, sh->train, NULL,
                        gen_param_i(m, GENESIS_P_DIS_STEPS), gen_param_i(m, GENESIS_P_PRECISION),
                        gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    ctgan_memory(&cfg, out);
}

static int ctgan_model_state(const genesis_model *m, const float **ptr, size_t *count, int cap) {
    const ctgan *c = ((const ctgan_model *)m->impl)->net;
    const float *p[7] = {c->gparams, c->gstats, c->dparams, c->gm, c->gv, c->dm, c->dv};
    size_t n[7] = {c->gcount, 4 * (size_t)c->gdim, c->dcount, c->gcount, c->gcount, c->dcount,
                   c->dcount};
    int k = 0;
    for (int i = 0; i < 7 && k < cap; i++)
        if (p[i]) {
            ptr[k] = p[i];
            count[k++] = n[i];
        }
    return k;
}

static int ctgan_model_batch_step(const genesis_model *m) { return gen_param_i(m, GENESIS_P_PAC); }

/* The conditional sampler's row lists: a category per row and discrete column, and per
 * (column, category) cell an offset and a row-list head (src/model/estimate.c's encoded term). */
static uint64_t ctgan_model_draw_bytes(const genesis_model *m, uint64_t nrows, int n_disc,
                                       int max_cat) {
    uint64_t cells = (uint64_t)n_disc * (uint64_t)max_cat;
    return 4 * nrows * (uint64_t)n_disc + 8 * (cells + 1) + 8 * cells;
}

/* The settings CTGAN uses and its defaults: the reference implementation's
 * (docs/algorithms.md). */
static const gen_param_use CTGAN_PARAMS[] = {
    {GENESIS_P_EPOCHS, 300},          {GENESIS_P_BATCH_SIZE, 500},     {GENESIS_P_EMBEDDING_DIM, 128},
    {GENESIS_P_GEN_DIM, 256},         {GENESIS_P_DIS_DIM, 256},        {GENESIS_P_GEN_LR, 2e-4},
    {GENESIS_P_DIS_LR, 2e-4},         {GENESIS_P_GEN_DECAY, 1e-6},     {GENESIS_P_DIS_DECAY, 1e-6},
    {GENESIS_P_PAC, 10},              {GENESIS_P_DIS_STEPS, 1},        {GENESIS_P_LOG_FREQUENCY, 1},
    {GENESIS_P_MAX_MODES, 10},        {GENESIS_P_MAX_CATEGORIES, 500}, {GENESIS_P_POINT_MASSES, 1},
    {GENESIS_P_CLAMP_RANGE, 1},       {GENESIS_P_BN_EVAL_SAMPLE, 0},   {GENESIS_P_VGM_MAX_ROWS, 200000},
    {GENESIS_P_PRECISION, 0},
    {GENESIS_P_GRADIENT_CHECKPOINTING, 0},
    {GENESIS_P_EPSILON, 0},           {GENESIS_P_DELTA, 0},            {GENESIS_P_MAX_GRAD_NORM, 1},
};

const gen_model_vtable gen_ctgan_vtable = {
    .kind = GENESIS_MODEL_CTGAN,
    .name = "ctgan",
    .fit = ctgan_model_fit,
    .generate = ctgan_model_generate,
    .generate_batch = ctgan_model_batch,
    .save = ctgan_model_save,
    .state = ctgan_model_state,
    .load = ctgan_model_load,
    .free = ctgan_model_free,
    .memory = ctgan_model_memory,
    .features = GENESIS_FEATURE_CONDITIONS,
    .batch_step = ctgan_model_batch_step,
    .draw_bytes = ctgan_model_draw_bytes,
    .train_save = ctgan_train_save,
    .losses = 2,
    .params = CTGAN_PARAMS,
    .nparams = (int)(sizeof CTGAN_PARAMS / sizeof CTGAN_PARAMS[0]),
    .dp_sgd = 1,
    .dp_mechanism =
        "DP-SGD on CTGAN's discriminator only (pac 1, one row per input; Poisson-sampled real "
        "rows; per-example clipping of each real row's gradient; Gaussian noise; cross-entropy "
        "GAN loss, no gradient penalty; the generator updated only through the private "
        "discriminator, conditions drawn from the released marginals) and Gaussian noisy "
        "histograms for the transformer, composed with the RDP accountant of the sampled "
        "Gaussian mechanism (Mironov 2017; Mironov, Talwar, Zhang 2019), converted to "
        "(epsilon, delta) as Canonne, Kamath, Steinke 2020; add/remove-one-row neighbours",
};
