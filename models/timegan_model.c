/*
 * timegan_model.c — TimeGAN as a genesis model: the vtable that connects the network
 * (timegan.c) to the shared glue (src/model/model.c). TimeGAN reads the table itself
 * (src/model/sequence.c: windows, one-hot, the reference's two min-max scalers) instead of the
 * tabular transformer, trains the three phases (docs/algorithms.md §S5), and samples through
 * the shared pipeline (src/model/sample_stream.c): n counts sequences of seq-len rows, generate()
 * gives their features, decode() the rows in raw units (§S6 renormalisation then the
 * loader's inverse; src/model/sequence.c), whose layout m->tf describes. The model file keeps the
 * generator side only (R, G, S weights: what generation runs) and the sequence schema; E
 * and D are not needed after training.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "model_io.h"
#include "sequence.h"
#include "timegan.h"
#include "timegan_ckpt.h"

typedef struct timegan_model {
    timegan *net;
    gen_seq_schema schema;
    int64_t ntrain;
    int gen_started;           /* tgm_generate: the sampling call whose noise it continues */
    uint64_t gen_call, gen_off;
    int64_t next_id;           /* tgm_decode: the call's next sequence id */
    gen_rng grid_pick;         /* and its draws of real time grids */
} timegan_model;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tgm_free(genesis_model *m) {
    timegan_model *tm = m->impl;
    if (!tm) return;
    timegan_free(tm->net);
    gen_seq_schema_free(&tm->schema);
    free(tm);
    m->impl = NULL;
}

typedef struct fit_progress {
    genesis_progress_fn fn;
    void *user;
    double t0;
} fit_progress;

/* Phases map to "epochs" 1..3 of the progress record; loss_g is the phase's headline loss
 * (sqrt E_loss_T0, sqrt G_loss_S, then the adversarial G_loss_U), loss_d the D loss. The ETA
 * weighs an iteration of each phase by its measured cost (1 : 0.6 : 10, docs/timegan.md §7). */
static int on_progress(int phase, int64_t it, int64_t iters, const tg_losses *ls, void *u) {
    fit_progress *fp = u;
    static const double w[3] = {1.0, 0.6, 10.0};
    double el = now_s() - fp->t0, wdone = 0, wall = 0;
    for (int k = 0; k < 3; k++) {
        wall += w[k] * (double)iters;
        wdone += w[k] * (double)(k < phase - 1 ? iters : k == phase - 1 ? it : 0);
    }
    int64_t done = (int64_t)(phase - 1) * iters + it, total = 3 * iters;
    genesis_progress p = {phase, 3, done, total,
                          phase == 1 ? sqrt(ls->e_t0) : phase == 2 ? sqrt(ls->g_s) : ls->g_u,
                          ls->d, el, el / wdone * (wall - wdone),
                          (double)done / (el > 0 ? el : 1e-9)};
    return fp->fn(&p, fp->user);
}

static genesis_status tgm_fit_table(genesis_model *m, const genesis_table *t,
                                    genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    timegan_model *tm = calloc(1, sizeof *tm);
    GEN_RETURN_IF(!tm, ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->impl = tm;
    int T = gen_param_i(m, GENESIS_P_SEQ_LEN);
    gen_seq_data d;
    GEN_TRY(gen_seq_build(ctx, t, T, m->seq_entity, m->seq_time, m->seq_calendar, m->seed, &tm->schema, &d));
    tm->ntrain = d.n;
    timegan_config cfg = {gen_param_i(m, GENESIS_P_BATCH_SIZE), T, tm->schema.F,
                          gen_param_i(m, GENESIS_P_HIDDEN_DIM), gen_param_i(m, GENESIS_P_NUM_LAYERS),
                          (float)m->param[GENESIS_P_GEN_LR], 1.0f, 1};
    genesis_status st = timegan_create(ctx, m->be, &cfg, &tm->net);
    if (st == GENESIS_OK) st = timegan_init_weights(tm->net, m->seed);
    if (st == GENESIS_OK) {
        tm->net->seed = m->seed;
        int64_t iters = (int64_t)m->param[GENESIS_P_ITERATIONS];
        int every = iters >= 100 ? (int)(iters / 100) : 1;
        fit_progress fp = {progress, user, now_s()};
        tg_ckpt_hook hook; /* checkpoints (timegan_ckpt.c) */
        tg_ckpt_attach(m, tm->net, &hook);
        st = timegan_fit(tm->net, d.x, d.n, iters, every, progress ? on_progress : NULL, &fp);
        tm->net->ck = NULL;
    }
    gen_seq_data_free(&d);
    if (st == GENESIS_OK && gen_seq_layout(&tm->schema, &m->tf) != GENESIS_OK)
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
    return st;
}

/* The shared sampling pipeline (src/model/sample_stream.c): a row is one time step (generate: F
 * features in the loader's inner [0, 1] scale, in the model's step order; decode: the
 * written columns in the input's row order), a generated sequence seq-len consecutive rows,
 * a generation group `batch` whole sequences. The noise, ids and time-grid draws of a
 * sampling call continue across its groups, so its rows do not depend on the batch size. */
static int tgm_batch(const genesis_model *m) {
    const timegan_model *tm = m->impl;
    return tm->net->cfg.batch * tm->net->cfg.T;
}
static int tgm_encoded_dim(const genesis_model *m) {
    const timegan_model *tm = m->impl;
    return tm->net->cfg.F;
}
static genesis_status tgm_generate(genesis_model *m, int B, const gen_condition *c, int nc,
                                   int64_t row0, float *out) {
    (void)c; (void)nc; (void)row0; /* one device: the call's draws continue group to group */
    timegan_model *tm = m->impl;
    int T = tm->net->cfg.T;
    GEN_RETURN_IF(B % T != 0, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "TimeGAN generates whole sequences: %d rows are not a multiple of %d", B, T);
    uint64_t call = m->sample_calls ? m->sample_calls - 1 : 0; /* the sampler counted this call */
    if (!tm->gen_started || tm->gen_call != call) {
        tm->gen_started = 1;
        tm->gen_call = call;
        tm->gen_off = 0;
        tm->next_id = 1;
        gen_rng_init(&tm->grid_pick, m->ctx->seed, GEN_STREAM_SAMPLE + (call << 8) + 1);
    }
    return timegan_generate(tm->net, B / T, m->ctx->seed, GEN_STREAM_SAMPLE + (call << 8),
                            &tm->gen_off, out);
}
static void tgm_decode(genesis_model *m, const float *x, int rows, gen_rng *rng, gen_rowbatch *rb) {
    timegan_model *tm = m->impl;
    int64_t n = rows / tm->schema.T;
    gen_seq_decode(&tm->schema, x, n, tm->next_id, &tm->grid_pick, rng, rb);
    tm->next_id += n;
}
/* The memory model's network term (src/model/estimate.c): the sizes of timegan_create for the
 * model's settings; shape->batch is in sequences. Unfitted, the feature width F is the
 * estimate's encoded width, an upper bound (TimeGAN one-hots categorical columns and keeps
 * a continuous one as 1 feature). */
static void tgm_memory(const genesis_model *m, const gen_net_shape *shape, gen_net_bytes *out) {
    const timegan_model *tm = m->impl;
    timegan_config cfg = {shape->batch, gen_param_i(m, GENESIS_P_SEQ_LEN),
                          tm && tm->net ? tm->net->cfg.F : (shape->data_dim > 0 ? shape->data_dim : 1),
                          gen_param_i(m, GENESIS_P_HIDDEN_DIM), gen_param_i(m, GENESIS_P_NUM_LAYERS),
                          0.0f, 1.0f, shape->train};
    timegan_memory(&cfg, shape->train ? shape->nrows : 0, out); /* windows <= rows */
}

static genesis_status tgm_fit(genesis_model *m, const gen_encoded *enc, genesis_progress_fn p, void *u) {
    (void)enc; (void)p; (void)u;
    return gen_set_error(m->ctx, GENESIS_ERR_UNSUPPORTED, "TimeGAN learns from the table (fit_table)");
}

/* the generator side: R, G, S are adjacent in the arena (order E, R, G, S, D) */
static void gen_side(const timegan *t, size_t *off, size_t *count) {
    *off = t->net[TG_R].off;
    *count = t->net[TG_S].off + t->net[TG_S].count - *off;
}

static genesis_status tgm_save(const genesis_model *m, gen_bytes *b) {
    const timegan_model *tm = m->impl;
    const timegan *t = tm->net;
    gen_wr_u32(b, (uint32_t)t->cfg.batch);
    gen_wr_u32(b, (uint32_t)t->cfg.T);
    gen_wr_u32(b, (uint32_t)t->cfg.F);
    gen_wr_u32(b, (uint32_t)t->cfg.H);
    gen_wr_u32(b, (uint32_t)t->cfg.L);
    gen_wr_u64(b, (uint64_t)tm->ntrain);
    size_t off, cnt;
    gen_side(t, &off, &cnt);
    float *h = malloc(cnt * sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    m->be->ops->download(m->be, h, t->params + off, cnt * sizeof(float));
    gen_wr_u64(b, (uint64_t)cnt);
    gen_wr_f32s(b, h, cnt);
    free(h);
    gen_seq_schema_save(&tm->schema, b);
    return b->oom ? gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model") : GENESIS_OK;
}

static genesis_status tgm_load(genesis_model *m, gen_reader *r) {
    int B, T, F, H, L;
    GEN_TRY(gen_rd_count(r, 1, 1u << 16, "batch size", &B));
    GEN_TRY(gen_rd_count(r, 2, 100000, "sequence length", &T));
    GEN_TRY(gen_rd_count(r, 1, 1u << 16, "feature width", &F));
    GEN_TRY(gen_rd_count(r, 1, 4096, "hidden width", &H));
    GEN_TRY(gen_rd_count(r, 2, GEN_SEQ_MAX_LAYERS, "layer count", &L));
    /* activations grow with batch x length x widths, which the file size does not bound */
    if ((uint64_t)B * T * (40 * (uint64_t)H * L + 8 * (uint64_t)F) > ((uint64_t)1 << 30))
        return gen_rd_fail(r, "TimeGAN batch size, sequence length and widths are implausibly large");
    uint64_t ntrain, cnt;
    GEN_TRY(gen_rd_u64(r, &ntrain));
    timegan_model *tm = calloc(1, sizeof *tm);
    GEN_RETURN_IF(!tm, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->impl = tm;
    tm->ntrain = (int64_t)(ntrain > ((uint64_t)1 << 40) ? 0 : ntrain);
    timegan_config cfg = {B, T, F, H, L, (float)m->param[GENESIS_P_GEN_LR], 1.0f, 0};
    /* Everything in the file is read and checked before the network is allocated: the
     * weight count against the sizes and the bytes left, the weights (into a buffer the
     * file's size bounds), the schema and its agreement with the sizes. */
    size_t off, need = timegan_gen_side_floats(&cfg);
    GEN_TRY(gen_rd_u64(r, &cnt));
    if (cnt != need) return gen_rd_fail(r, "TimeGAN parameter count does not match its sizes");
    if (cnt > (r->len - r->pos) / 4) return gen_rd_fail(r, "TimeGAN weights extend past the end of the file");
    float *h = malloc(cnt * sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    genesis_status st = gen_rd_f32s(r, h, cnt);
    for (size_t i = 0; st == GENESIS_OK && i < cnt; i++)
        if (!isfinite(h[i])) st = gen_rd_fail(r, "a TimeGAN weight is NaN or infinite");
    if (st == GENESIS_OK) st = gen_seq_schema_load(&tm->schema, r);
    if (st == GENESIS_OK && (tm->schema.T != T || tm->schema.F != F))
        st = gen_rd_fail(r, "the sequence schema disagrees with the network's sizes");
    if (st == GENESIS_OK) st = timegan_create(m->ctx, m->be, &cfg, &tm->net);
    if (st == GENESIS_OK) {
        gen_side(tm->net, &off, &need);
        if (cnt != need) st = gen_rd_fail(r, "TimeGAN parameter count does not match its sizes");
    }
    if (st == GENESIS_OK) m->be->ops->upload(m->be, tm->net->params + off, h, cnt * sizeof(float));
    free(h);
    if (st == GENESIS_OK && gen_seq_layout(&tm->schema, &m->tf) != GENESIS_OK)
        st = gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    if (st == GENESIS_OK) {
        m->param[GENESIS_P_BATCH_SIZE] = B;
        m->param[GENESIS_P_SEQ_LEN] = T;
        m->param[GENESIS_P_HIDDEN_DIM] = H;
        m->param[GENESIS_P_NUM_LAYERS] = L;
    }
    return st;
}

/* The state's arrays (gen_model_state): every network's weights, then each optimiser's
 * moments (absent on a loaded, generation-only model). */
static int tgm_state(const genesis_model *m, const float **ptr, size_t *count, int cap) {
    const timegan *t = ((const timegan_model *)m->impl)->net;
    int k = 0;
    if (!t || cap < 1) return 0;
    ptr[k] = t->params;
    count[k++] = t->count;
    for (int s = 0; s < TG_NSTEPS && t->grads && k + 2 <= cap; s++) {
        int a, b;
        tg_step_nets((tg_step)s, &a, &b);
        size_t n = t->net[b].off + t->net[b].count - t->net[a].off;
        ptr[k] = t->m[s];
        count[k++] = n;
        ptr[k] = t->v[s];
        count[k++] = n;
    }
    return k;
}

static genesis_status tgm_train_save(const genesis_model *m, gen_bytes *b) {
    const timegan_model *tm = m->impl;
    return tg_ckpt_save(m, tm->net, b);
}

/* The settings TimeGAN uses and its defaults (docs/algorithms.md §S1: batch 128, TF1 Adam
 * lr 1e-3). */
static const gen_param_use TIMEGAN_PARAMS[] = {
    {GENESIS_P_BATCH_SIZE, 128}, {GENESIS_P_GEN_LR, 1e-3},     {GENESIS_P_SEQ_LEN, 24},
    {GENESIS_P_HIDDEN_DIM, 24},  {GENESIS_P_NUM_LAYERS, 3},    {GENESIS_P_ITERATIONS, 50000},
};

const gen_model_vtable gen_timegan_vtable = {
    .kind = GENESIS_MODEL_TIMEGAN,
    .name = "timegan",
    .fit = tgm_fit,
    .generate = tgm_generate,
    .generate_batch = tgm_batch,
    .save = tgm_save,
    .load = tgm_load,
    .free = tgm_free,
    .fit_table = tgm_fit_table,
    .decode = tgm_decode,
    .encoded_dim = tgm_encoded_dim,
    .memory = tgm_memory,
    .min_file_version = GEN_FILE_VERSION_GRU_RESET_AFTER,
    .old_file_reason = "whose GRU was TF1's GRUCell, while this one uses the reset-after GRU "
                       "cell of cuDNN/PyTorch",
    .train_save = tgm_train_save,
    .state = tgm_state,
    .train_param = GENESIS_P_ITERATIONS,
    .losses = 2,
    .params = TIMEGAN_PARAMS,
    .nparams = (int)(sizeof TIMEGAN_PARAMS / sizeof TIMEGAN_PARAMS[0]),
};
