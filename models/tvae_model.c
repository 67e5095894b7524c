/*
 * tvae_model.c — TVAE as a genesis model: the vtable that connects the network (tvae.c) to
 * the shared model glue (src/model/model.c): fit (shuffled epochs, last partial batch kept, as
 * the reference's DataLoader), generation, and the model file section.
 *
 * Generation departs from the reference where it is measurably weak: the reference decodes
 * every softmax span with argmax, which collapses uncertain categories onto the most likely
 * one; by default Genesis draws each category and mode from the decoder's softmax (Gumbel-max:
 * argmax(logits + Gumbel noise) is an exact draw). GENESIS_P_SAMPLE_ARGMAX=1 restores the
 * reference's argmax. Continuous values get the reference's sigma noise on alpha.
 * With GENESIS_P_ALPHA_PER_MODE=1 (docs/algorithms.md, "One alpha per mode") the decoder
 * outputs one alpha per slot of each continuous column; sampling draws the slot as above,
 * keeps that slot's alpha, and hands the ordinary encoded row (one alpha, the slot one-hot)
 * to the inverse transform. Model files before the setting load as 0 (src/model/model_io.c).
 * Data parallel (docs/distributed.md): every rank shuffles the same way and trains on its
 * slice of each global batch; the model file records the global batch and the first
 * sampling call swaps in a decoder sized for it, so rank 0 samples and saves what one rank
 * would.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "dev_table.h"
#include "checkpoint.h"
#include "model_io.h"
#include "tvae.h"

typedef struct tvae_model {
    tvae *net;
    uint64_t call;         /* the sampling call sigma_host was read for */
    float *sigma_host;     /* [D] copy of sigma for the alpha noise */
    float *rows_host;      /* [B x Dr] activated decoder rows (one alpha per mode only) */
    /* the fit's row order (kept across epochs: each epoch reshuffles the last one) and its
     * host stream; both are checkpointed */
    int64_t *order, norder;
    gen_rng train_rng;
} tvae_model;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tvae_model_free(genesis_model *m) {
    tvae_model *tm = m->impl;
    if (!tm) return;
    tvae_free(tm->net);
    free(tm->sigma_host);
    free(tm->rows_host);
    free(tm->order);
    free(tm);
    m->impl = NULL;
}

static genesis_status make_net(genesis_model *m, const tvae_config *cfg, tvae **out) {
    gen_act_span *spans = gen_model_act_spans(&m->tf);
    GEN_RETURN_IF(!spans, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->be->precision = gen_param_i(m, GENESIS_P_PRECISION); /* the GEMMs' operands */
    genesis_status st = tvae_create(m->ctx, m->be, cfg, spans, m->tf.nspans, out);
    free(spans);
    if (st != GENESIS_OK) return st;
    (*out)->lr = (float)m->param[GENESIS_P_GEN_LR];
    (*out)->decay = (float)m->param[GENESIS_P_GEN_DECAY];
    return GENESIS_OK;
}

static genesis_status new_impl(genesis_model *m, tvae_model **out) {
    tvae_model *tm = calloc(1, sizeof *tm);
    GEN_RETURN_IF(!tm, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    tm->sigma_host = calloc((size_t)m->tf.data_dim, sizeof(float));
    if (!tm->sigma_host) {
        free(tm);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    tm->call = UINT64_MAX;
    m->impl = tm;
    *out = tm;
    return GENESIS_OK;
}

/* Data parallel: same data and settings everywhere, and noise slices on Philox blocks. */
static genesis_status check_distributed(genesis_model *m, const gen_encoded *enc, gen_comm *comm) {
    /* the seed, table shape and settings were checked before the transformer fit (model.c) */
    GEN_TRY(gen_comm_check_same(comm, "the encoded row width", (double)m->tf.data_dim));
    GEN_RETURN_IF(gen_param_i(m, GENESIS_P_EMBEDDING_DIM) % 4 != 0, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "with %d ranks, embedding-dim (%d) must be a multiple of 4, so that each rank's "
                  "noise starts on a Philox block",
                  gen_comm_size(comm), gen_param_i(m, GENESIS_P_EMBEDDING_DIM));
    return GENESIS_OK;
}

/* After a data-parallel fit (at the first sampling call): a network for the global batch (no
 * training buffers) with the fitted parameters replaces the training network (a slice). */
static genesis_status regather_net(genesis_model *m, tvae_model *tm) {
    tvae *t = tm->net, *g = NULL;
    tvae_config cfg = {t->Bg, t->D, t->emb, t->hid, t->loss_factor, 0, NULL,
                       gen_param_i(m, GENESIS_P_PRECISION), t->alpha_per_mode, t->Dr, 0};
    GEN_TRY(make_net(m, &cfg, &g));
    float *h = malloc(t->count * sizeof(float));
    if (!h) {
        tvae_free(g);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory after training");
    }
    t->be->ops->download(t->be, h, t->params, t->count * sizeof(float));
    g->be->ops->upload(g->be, g->params, h, t->count * sizeof(float));
    free(h);
    tvae_free(t);
    tm->net = g;
    return GENESIS_OK;
}

/* Checkpoints (src/model/checkpoint.c): at an epoch boundary the fit's state is the parameters,
 * Adam's moments and step count, the noise counter, the host stream and the row order the
 * next epoch reshuffles. */
static genesis_status tvae_train_save(const genesis_model *m, gen_bytes *b) {
    const tvae_model *tm = m->impl;
    const tvae *t = tm->net;
    GEN_RETURN_IF(!t->train || !tm->order, m->ctx, GENESIS_ERR_STATE,
                  "TVAE is not training; no training state");
    GEN_TRY(gen_ckpt_wr_dev(m, b, t->params, t->count));
    GEN_TRY(gen_ckpt_wr_dev(m, b, t->m, t->count));
    GEN_TRY(gen_ckpt_wr_dev(m, b, t->v, t->count));
    gen_wr_u64(b, (uint64_t)t->step);
    gen_wr_u64(b, t->noise_off);
    gen_ckpt_wr_rng(b, &tm->train_rng);
    gen_ckpt_wr_perm(b, tm->order, tm->norder, 4);
    if (t->amp) gen_ckpt_wr_amp(m, b, t->amp, 1); /* FP16: the loss scaling */
    return GENESIS_OK;
}

static genesis_status tvae_train_restore(genesis_model *m, gen_reader *r) {
    tvae_model *tm = m->impl;
    tvae *t = tm->net;
    uint64_t step;
    GEN_TRY(gen_ckpt_rd_dev(m, r, t->params, t->count));
    GEN_TRY(gen_ckpt_rd_dev(m, r, t->m, t->count));
    GEN_TRY(gen_ckpt_rd_dev(m, r, t->v, t->count));
    GEN_TRY(gen_rd_u64(r, &step));
    GEN_TRY(gen_rd_u64(r, &t->noise_off));
    GEN_TRY(gen_ckpt_rd_rng(r, &tm->train_rng));
    if (step > ((uint64_t)1 << 50)) return gen_rd_fail(r, "TVAE step count is out of range");
    GEN_TRY(gen_ckpt_rd_perm(m, r, tm->order, tm->norder, 4, "TVAE row order"));
    if (t->amp) GEN_TRY(gen_ckpt_rd_amp(m, r, t->amp, 1)); /* FP16: the loss scaling */
    if (r->pos != r->len) return gen_rd_fail(r, "unexpected bytes after TVAE's training state");
    t->step = (int64_t)step;
    return GENESIS_OK;
}

static genesis_status tvae_model_fit(genesis_model *m, const gen_encoded *enc,
                                     genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    gen_comm *comm = ctx->comm;
    int K = gen_comm_size(comm), rank = gen_comm_rank(comm);
    if (K > 1) GEN_TRY(check_distributed(m, enc, comm));
    tvae_model *tm = NULL;
    GEN_TRY(new_impl(m, &tm));
    int B = gen_param_i(m, GENESIS_P_BATCH_SIZE);
    tvae_config cfg = {B, m->tf.data_dim, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                       gen_param_i(m, GENESIS_P_GEN_DIM), (float)m->param[GENESIS_P_LOSS_FACTOR], 1,
                       comm, gen_param_i(m, GENESIS_P_PRECISION),
                       gen_param_i(m, GENESIS_P_ALPHA_PER_MODE), 0,
                       gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    GEN_TRY(make_net(m, &cfg, &tm->net));
    tvae *t = tm->net;
    GEN_TRY(tvae_init_weights(t, m->seed));
    t->seed = m->seed;
    int64_t N = enc->nrows;
    if (m->dp.on) return tvae_dp_fit(m, t, enc, progress, user); /* DP-SGD: tvae_dp.c */
    /* the encoded table stays in backend memory; each epoch's shuffled order goes up in
     * chunks of whole batches, and the backend is waited for once per epoch */
    int64_t chunk_rows = (int64_t)(TV_ORDER_CHUNK_BYTES / sizeof(int32_t)) / B * B;
    if (chunk_rows < B) chunk_rows = B;
    if (chunk_rows > N) chunk_rows = N;
    gen_resident_table table;
    GEN_TRY(gen_resident_table_create(m->be, &m->tf, enc, &table));
    int64_t *order = tm->order = malloc((size_t)N * sizeof(int64_t));
    tm->norder = N;
    int32_t *chunk = malloc((size_t)chunk_rows * sizeof(int32_t));
    int32_t *chunk_dev = m->be->ops->alloc(m->be, (size_t)chunk_rows * sizeof(int32_t));
    if (!order || !chunk || !chunk_dev) {
        free(chunk);
        m->be->ops->free(m->be, chunk_dev);
        gen_resident_table_free(&table);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the training batch");
    }
    for (int64_t i = 0; i < N; i++) order[i] = i;
    gen_rng *rng = &tm->train_rng;
    gen_rng_init(rng, m->seed, GEN_STREAM_SAMPLER);
    int epochs = gen_param_i(m, GENESIS_P_EPOCHS);
    int64_t steps = (N + B - 1) / B;
    double t0 = now_s();
    float loss = 0;
    genesis_status st = GENESIS_OK;
    int64_t e0 = 0; /* epochs done (a resumed checkpoint) */
    gen_reader rr;
    if (gen_ckpt_resume_reader(m, &rr, &e0))
        st = e0 <= epochs ? tvae_train_restore(m, &rr)
                          : gen_rd_fail(&rr, "more epochs done than the fit has");
    for (int e = (int)e0; e < epochs && st == GENESIS_OK; e++) {
        for (int64_t i = N - 1; i > 0; i--) { /* reshuffle every epoch */
            int64_t j = (int64_t)gen_rng_below(rng, (uint64_t)i + 1);
            int64_t tmp = order[i]; order[i] = order[j]; order[j] = tmp;
        }
        int64_t c0 = -1; /* first row of the chunk in backend memory */
        for (int64_t s = 0; s < steps && st == GENESIS_OK; s++) {
            if (c0 < 0 || s * B >= c0 + chunk_rows) {
                c0 = s * B;
                int64_t nc = N - c0 < chunk_rows ? N - c0 : chunk_rows;
                for (int64_t i = 0; i < nc; i++) chunk[i] = (int32_t)order[c0 + i];
                m->be->ops->upload(m->be, chunk_dev, chunk, (size_t)nc * sizeof(int32_t));
                tvae_state_upload(t, 0); /* block k of the chunk is step c0 / B + k */
            }
            int rows = (int)((N - s * B) < B ? (N - s * B) : B);
            if (st == GENESIS_OK && s > 0 && gen_ctx_interrupted(ctx)) {
                st = gen_ckpt_stop_within(m, e + 1, epochs, s, steps);
                if (st != GENESIS_OK) break;
            }
            if (K == 1 && rows == B) { /* a full batch: the same work every step */
                st = tvae_train_step_chunk(t, &table.t, chunk_dev);
                continue;
            }
            /* this rank's slice of the global batch (all of it with one rank), or the last,
             * shorter batch: issued as it is */
            int lo = (int)((int64_t)rows * rank / K), hi = (int)((int64_t)rows * (rank + 1) / K);
            m->be->ops->gather_rows(m->be, t->act.x, t->D, &table.t, chunk_dev + (s * B - c0) + lo,
                                    hi - lo);
            st = tvae_train_step_slice(t, hi - lo, rows, lo);
        }
        if (st == GENESIS_OK) st = tvae_epoch_end(t, e + 1, &loss);
        if (st != GENESIS_OK) break;
        int stop = 0;
        if (progress && rank == 0) { /* rank 0 reports; the ranks agree on stopping */
            double el = now_s() - t0;
            int64_t ran = e + 1 - e0; /* epochs this call has run */
            genesis_progress p = {e + 1, epochs, (int64_t)(e + 1) * steps, (int64_t)epochs * steps,
                                  loss, 0.0, el, el / ran * (epochs - e - 1),
                                  (double)ran * N / (el > 0 ? el : 1e-9)};
            stop = progress(&p, user);
        }
        if (K > 1) stop = gen_comm_agree(comm, stop);
        st = gen_ckpt_point(m, e + 1, epochs, stop); /* checkpoint when due; stop */
    }
    free(tm->order);
    tm->order = NULL;
    free(chunk);
    tvae_graph_free(t); /* it reads the table and the chunk */
    m->be->ops->free(m->be, chunk_dev);
    gen_resident_table_free(&table);
    gen_comm_log_fit(ctx, comm, now_s() - t0, (long long)epochs * steps);
    if (t->amp && st == GENESIS_OK) { /* FP16: the loss scaling's account (docs/precision.md) */
        double scale = 0;
        gen_amp_read(m->be, t->amp, 1, &m->fp16_skipped, &scale);
        if (rank == 0)
            gen_log(ctx, GENESIS_LOG_INFO,
                    "fp16 loss scaling: %lld of %lld steps skipped (gradient overflow), final "
                    "loss scale %g",
                    (long long)m->fp16_skipped, (long long)epochs * steps, scale);
    }
    return st;
}

static int tvae_model_batch(const genesis_model *m) {
    const tvae_model *tm = m->impl;
    return tm->net->Bg;
}

/* Group k = row0 / B of a sampling call: the latent and Gumbel noise are the Philox
 * elements from noise_off = k x (the two regions of a group); row r's alpha noise comes from
 * its own row-numbered stream (rng.h gen_rng_row, stream + 1). */
static genesis_status tvae_model_generate(genesis_model *m, int B, const gen_condition *conds,
                                          int nconds, int64_t row0, float *out) {
    (void)conds; (void)nconds; /* refused earlier: TVAE has no conditional vector */
    tvae_model *tm = m->impl;
    if (tm->net->K > 1) GEN_TRY(regather_net(m, tm));
    tvae *t = tm->net;
    gen_backend *be = m->be;
    const gen_backend_ops *o = be->ops;
    GEN_ASSERT(B == t->B && row0 % B == 0);
    uint64_t stream = GEN_STREAM_SAMPLE + (m->sample_calls << 8);
    if (tm->call != m->sample_calls) { /* a new sampling call */
        tm->call = m->sample_calls;
        o->download(be, tm->sigma_host, t->p.sigma, (size_t)t->D * sizeof(float));
    }
    size_t nz = (size_t)B * t->emb, no = (size_t)B * t->D, nr = (size_t)B * t->Dr;
    t->seed = m->ctx->seed;
    t->noise_off = (uint64_t)(row0 / B) * ((nz + 3) / 4 + 1 + (nr + 3) / 4 + 1);
    o->fill_normal(be, t->act.z, nz, t->seed, stream, t->noise_off);
    t->noise_off += (nz + 3) / 4 + 1;
    tvae_decode(t, B);
    float tau = gen_param_i(m, GENESIS_P_SAMPLE_ARGMAX) ? 0.0f : 1.0f;
    o->activate_forward(be, t->act.out, t->Dr, t->act.r, t->Dr, B, t->spans, t->nspans, tau,
                        t->seed, stream, t->noise_off, 0);
    t->noise_off += (nr + 3) / 4 + 1;
    if (t->Dr == t->D) {
        o->download(be, out, t->act.out, no * sizeof(float));
    } else { /* one alpha per mode: each column keeps the alpha of its drawn slot */
        if (!tm->rows_host) tm->rows_host = malloc(nr * sizeof(float));
        GEN_RETURN_IF(!tm->rows_host, m->ctx, GENESIS_ERR_NOMEM, "out of memory sampling");
        o->download(be, tm->rows_host, t->act.out, nr * sizeof(float));
        tvae_to_encoded(t, tm->rows_host, B, out, t->D);
    }
    for (int b = 0; b < B; b++) { /* alpha ~ N(tanh(r), sigma), as the reference decodes */
        gen_rng r;
        gen_rng_row(&r, t->seed, stream + 1, (uint64_t)(row0 + b));
        for (int s = 0; s < t->nspans; s++)
            if (!t->rspans[s].softmax)
                for (int j = t->rspans[s].start; j < t->rspans[s].start + t->rspans[s].len; j++)
                    out[(size_t)b * t->D + j] += tm->sigma_host[j] * (float)gen_rng_normal(&r);
    }
    for (size_t i = 0; i < no; i++)
        if (!isfinite(out[i]))
            return gen_diverged(m->be, "the decoder produced non-finite values; the model is unusable");
    return GENESIS_OK;
}

static genesis_status tvae_model_save(const genesis_model *m, gen_bytes *b) {
    const tvae_model *tm = m->impl;
    const tvae *t = tm->net;
    gen_wr_u32(b, (uint32_t)t->Bg); /* the global batch */
    gen_wr_u32(b, (uint32_t)t->D);
    gen_wr_u32(b, (uint32_t)t->emb);
    gen_wr_u32(b, (uint32_t)t->hid);
    float *h = malloc(t->count * sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    m->be->ops->download(m->be, h, t->params, t->count * sizeof(float));
    gen_wr_u64(b, (uint64_t)t->count);
    gen_wr_f32s(b, h, t->count);
    free(h);
    return b->oom ? gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model") : GENESIS_OK;
}

static genesis_status tvae_model_load(genesis_model *m, gen_reader *r) {
    int B, D, emb, hid;
    GEN_TRY(gen_rd_count(r, 1, 1u << 20, "batch size", &B));
    GEN_TRY(gen_rd_count(r, 1, 1u << 24, "data width", &D));
    GEN_TRY(gen_rd_count(r, 1, 4096, "embedding size", &emb));
    GEN_TRY(gen_rd_count(r, 1, 8192, "hidden width", &hid));
    if (D != m->tf.data_dim) return gen_rd_fail(r, "TVAE width does not match the model's column layout");
    /* the decoder's width follows from the layout and the alpha-per-mode setting (read with
     * the settings; 0 in files written before it) */
    int apm = gen_param_i(m, GENESIS_P_ALPHA_PER_MODE);
    gen_act_span *spans = gen_model_act_spans(&m->tf);
    GEN_RETURN_IF(!spans, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    int Dr = tvae_out_dim(D, spans, m->tf.nspans, apm);
    free(spans);
    /* activations grow with batch x widths, which the file's size does not bound: cap them */
    if ((uint64_t)B * (4 * (uint64_t)D + 4 * (uint64_t)Dr + 16 * (uint64_t)hid + 8 * (uint64_t)emb) >
        ((uint64_t)1 << 28))
        return gen_rd_fail(r, "TVAE batch size and widths are implausibly large");
    uint64_t count, d = (uint64_t)D, dr = (uint64_t)Dr, h = (uint64_t)hid, e = (uint64_t)emb;
    GEN_TRY(gen_rd_u64(r, &count));
    uint64_t expect = h * d + h + h * h + h + 2 * (e * h + e) + h * e + h + h * h + h + dr * h + dr + d;
    if (count != expect) return gen_rd_fail(r, "TVAE parameter count does not match its sizes");
    if (count * 4 > r->len - r->pos) return gen_rd_fail(r, "TVAE weights extend past the end of the file");
    m->param[GENESIS_P_BATCH_SIZE] = B;
    m->param[GENESIS_P_EMBEDDING_DIM] = emb;
    m->param[GENESIS_P_GEN_DIM] = hid;
    tvae_model *tm = NULL;
    GEN_TRY(new_impl(m, &tm));
    tvae_config cfg = {B, D, emb, hid, (float)m->param[GENESIS_P_LOSS_FACTOR], 0, NULL,
                       gen_param_i(m, GENESIS_P_PRECISION), apm, Dr, 0};
    GEN_TRY(make_net(m, &cfg, &tm->net));
    tvae *t = tm->net;
    float *hp = malloc(t->count * sizeof(float));
    GEN_RETURN_IF(!hp, m->ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    genesis_status st = gen_rd_f32s(r, hp, t->count);
    for (size_t i = 0; st == GENESIS_OK && i < t->count; i++)
        if (!isfinite(hp[i])) st = gen_rd_fail(r, "a TVAE weight is NaN or infinite");
    const float *sig = hp + t->count - (size_t)D;
    for (int j = 0; st == GENESIS_OK && j < D; j++)
        if (!(sig[j] >= 0.01f && sig[j] <= 1.0f)) st = gen_rd_fail(r, "a TVAE output scale is outside [0.01, 1]");
    if (st == GENESIS_OK) m->be->ops->upload(m->be, t->params, hp, t->count * sizeof(float));
    free(hp);
    return st;
}

/* The network's bytes for a shape, plus the fit's row permutation (int64 per row) is counted
 * by the caller as encoded data (src/model/estimate.c). */
static void tvae_model_memory(const genesis_model *m, const gen_net_shape *sh, gen_net_bytes *out) {
    int apm = gen_param_i(m, GENESIS_P_ALPHA_PER_MODE);
    tvae_config cfg = {sh->batch, sh->data_dim, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                       gen_param_i(m, GENESIS_P_GEN_DIM), (float)m->param[GENESIS_P_LOSS_FACTOR],
                       sh->train, NULL, gen_param_i(m, GENESIS_P_PRECISION), apm,
                       sh->data_dim + (apm ? sh->mode_extra : 0),
                       gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    tvae_memory(&cfg, out);
    if (sh->train && sh->nrows > 0) { /* the epoch order's chunk: a host and a backend copy */
        int64_t rows = (int64_t)(TV_ORDER_CHUNK_BYTES / sizeof(int32_t)) / sh->batch * sh->batch;
        if (rows < sh->batch) rows = sh->batch;
        if (rows > sh->nrows) rows = sh->nrows;
        out->optimizer += 4 * (uint64_t)rows;
        out->host += 4 * (uint64_t)rows;
    }
}

static int tvae_model_state(const genesis_model *m, const float **ptr, size_t *count, int cap) {
    const tvae *t = ((const tvae_model *)m->impl)->net;
    const float *p[3] = {t->params, t->m, t->v};
    int k = 0;
    for (int i = 0; i < 3 && k < cap; i++)
        if (p[i]) {
            ptr[k] = p[i];
            count[k++] = t->count;
        }
    return k;
}

/* The row permutation of an epoch (src/model/estimate.c's encoded term). */
static uint64_t tvae_model_draw_bytes(const genesis_model *m, uint64_t nrows, int n_disc,
                                      int max_cat) {
    return 8 * nrows;
}

/* The settings TVAE uses and its defaults: the reference implementation's
 * (docs/algorithms.md §T5: 128-wide, torch Adam lr 1e-3, l2scale 1e-5). */
static const gen_param_use TVAE_PARAMS[] = {
    {GENESIS_P_EPOCHS, 300},          {GENESIS_P_BATCH_SIZE, 500},     {GENESIS_P_EMBEDDING_DIM, 128},
    {GENESIS_P_GEN_DIM, 128},         {GENESIS_P_GEN_LR, 1e-3},        {GENESIS_P_GEN_DECAY, 1e-5},
    {GENESIS_P_MAX_MODES, 10},        {GENESIS_P_MAX_CATEGORIES, 500}, {GENESIS_P_POINT_MASSES, 1},
    {GENESIS_P_CLAMP_RANGE, 1},       {GENESIS_P_VGM_MAX_ROWS, 200000}, {GENESIS_P_LOSS_FACTOR, 2},
    {GENESIS_P_SAMPLE_ARGMAX, 0},     {GENESIS_P_ALPHA_PER_MODE, 0},   {GENESIS_P_PRECISION, 0},
    {GENESIS_P_EPSILON, 0},           {GENESIS_P_DELTA, 0},            {GENESIS_P_MAX_GRAD_NORM, 1},
    {GENESIS_P_GRADIENT_CHECKPOINTING, 0},
};

const gen_model_vtable gen_tvae_vtable = {
    .kind = GENESIS_MODEL_TVAE,
    .name = "tvae",
    .fit = tvae_model_fit,
    .generate = tvae_model_generate,
    .generate_batch = tvae_model_batch,
    .save = tvae_model_save,
    .state = tvae_model_state,
    .load = tvae_model_load,
    .free = tvae_model_free,
    .memory = tvae_model_memory,
    .draw_bytes = tvae_model_draw_bytes,
    .train_save = tvae_train_save,
    .params = TVAE_PARAMS,
    .nparams = (int)(sizeof TVAE_PARAMS / sizeof TVAE_PARAMS[0]),
    .dp_sgd = 1,
};
