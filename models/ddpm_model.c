/*
 * ddpm_model.c — TabDDPM (Kotelnikov et al., ICML 2023) as a genesis model: the vtable that
 * connects the denoiser (ddpm.c) to the shared model glue (src/model/model.c): fit, generation
 * through the shared sampling pipeline, the memory model and the model file section.
 *
 * Data: the shared transformer's encoded rows (mode-specific normalisation, docs/ddpm.md
 * says why). Each tanh position (a continuous column's alpha) is diffused as a Gaussian
 * feature after scaling by DDPM_ALPHA_SCALE; each softmax span (a categorical column, or a
 * continuous column's mode / point-mass / missing slot) is one multinomial feature
 * (Hoogeboom et al. 2021). Missing values, point masses, rare levels and range clamping
 * therefore work as for TVAE.
 * Training: shuffled epochs of full batches (the last partial batch of an epoch is dropped
 * and its rows start the next permutation; the row order from the host stream
 * GEN_STREAM_SAMPLER), the batch gathered on the backend from the encoded table kept there
 * for the fit (dev_table.c; on the host when it does not fit), the forward process on the
 * backend (ddpm_noise: t uniform in [0, T), the Gaussian noise and the categorical draws
 * from counter-based Philox draws of each row's running number, src/backend/ddpm_noise.h),
 * AdamW with TabDDPM's linear learning-rate decay to 0 over the iterations.
 * Generation: ancestral sampling over all T steps (sample-steps 0 or >= T), or S strided
 * steps (ddpm_steps.c): DDIM (setting ddim-eta, default 0: deterministic; sample-order 2: the
 * multistep DPM-Solver++(2M), the previous step's prediction kept in x0buf) for the Gaussian
 * part and the exact multistep multinomial posterior for the categorical part. The whole
 * chain runs on the backend (CPU, or CUDA: cuda/diffusion.cu): x_T and each reverse step are
 * backend operations (ddpm_sample_init, ddpm_reverse_step; the arithmetic of
 * src/backend/diffusion.h) with the backend's Philox draws, and a batch is read back once,
 * at the end.
 * Class conditioning (genesis_model_set_target; TabDDPM's p(x | y) for classification): the
 * target column's span is taken out of the diffusion (zero in x_t, no loss); its class
 * y indexes a label embedding added to the timestep embedding (ddpm.c); sampling draws y
 * from its share in the training rows (stored in the model section) and writes it as the
 * span's one-hot.
 * EMA (setting ema-decay > 0): a moving average of the weights kept during the fit
 * (TabDDPM's update_ema, rate 0.999) becomes the model's weights when the fit ends.
 * Checkpoints: between iterations (ddpm_train_save). Not supported: conditions (no
 * conditional vector), data-parallel training.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "ddpm.h"
#include "ddpm_steps.h"
#include "dev_table.h"
#include "diffusion.h"
#include "dp.h"
#include "checkpoint.h"
#include "model_io.h"

typedef struct ddpm_model {
    ddpm *net;
    int T, cosine;
    double *alpha, *abar;        /* [T] 1 - beta_t and the cumulative product */
    float *hx0;                  /* a batch gathered on the host (without a resident table) */
    int32_t *hrows, *drows;      /* a batch's row numbers, host and backend memory [B] */
    double *sched;               /* backend memory [2T]: alpha_t, then alpha-bar_t */
    gen_resident_table table;    /* the encoded rows in backend memory during a fit */
    int resident;                /* 1: batches are gathered from `table` on the backend */
    uint64_t drawn;              /* rows noised so far in the fit: the next row's number for
                                    the forward process's draws (ddpm_noise) */
    ddpm *snet;                  /* the sampling network when its group is not the training
                                    batch (ddpm_create_view: net's weights, its own rows) */
    int hy_rows;                 /* rows hy holds */
    float *gbuf;                 /* guidance (§3b): the unconditional prediction, then the
                                    guided one, [grows x D] backend memory */
    int32_t *ynull;              /* [grows] hidden labels (-1), backend memory */
    float *pwt;                  /* [D x E] the projection's weights transposed, refreshed by
                                    each generate call (host-memory backends) */
    int grows;
    float *x0buf;                /* sample-order 2: the previous step's x0 prediction,
                                    [x0rows x D] backend memory */
    int x0rows;
    int *tau;                    /* the sampler's timesteps [ntau] (ddpm_timesteps) */
    int ntau;
    /* the fit's state between iterations (checkpointed): row order, next position in it,
     * the row-order and noise streams */
    int64_t *order, norder, pos;
    gen_rng ro, rn;
    /* class conditioning: the target's transformer column (-1: none), its span in the
     * encoded row, the class shares of the training rows [K] and the step's labels [B] */
    int target, tstart, tlen;
    double *share;
    int32_t *hy;
} ddpm_model;

/* The model section of a class-conditional DDPM starts with this word (an unconditional
 * section starts with the batch size, at most 2^20, so a file without it is read as before). */
#define DDPM_SECTION_COND 0xDD9E0C01u
/* ... or, before that, with this one: the sampler's setting sample-order, written when it is
 * not 1 (the sampler of files without it) */
#define DDPM_SECTION_SAMPLER 0xDD9E5A01u

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ddpm_model_free(genesis_model *m) {
    ddpm_model *dm = m->impl;
    if (!dm) return;
    if (m->be) {
        m->be->ops->free(m->be, dm->gbuf);
        m->be->ops->free(m->be, dm->ynull);
        m->be->ops->free(m->be, dm->pwt);
        m->be->ops->free(m->be, dm->x0buf);
        m->be->ops->free(m->be, dm->drows);
        m->be->ops->free(m->be, dm->sched);
    }
    gen_resident_table_free(&dm->table);
    ddpm_free(dm->snet);
    ddpm_free(dm->net);
    free(dm->alpha); free(dm->abar);
    free(dm->hx0); free(dm->hrows);
    free(dm->order);
    free(dm->tau);
    free(dm->share); free(dm->hy);
    free(dm);
    m->impl = NULL;
}

/* target: the class column (-1 none), whose span leaves the diffused spans; cfg->classes is
 * its width. */
static genesis_status new_impl(genesis_model *m, const ddpm_config *cfg, int target,
                               ddpm_model **out) {
    gen_backend *be = m->be;
    GEN_RETURN_IF(!be->ops->ddpm_loss || !be->ops->timestep_embed || !be->ops->silu_forward ||
                      !be->ops->scale || !be->ops->ddpm_sample_init || !be->ops->ddpm_reverse_step ||
                      !be->ops->ddpm_noise,
                  m->ctx, GENESIS_ERR_UNSUPPORTED,
                  "the %s backend has no diffusion operations; run ddpm on the CPU", be->ops->name);
    ddpm_model *dm = calloc(1, sizeof *dm);
    GEN_RETURN_IF(!dm, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    m->impl = dm;
    dm->target = target;
    if (target >= 0) {
        dm->tstart = m->tf.cols[target].offset;
        dm->tlen = m->tf.cols[target].width;
        dm->share = calloc((size_t)dm->tlen, sizeof(double));
        dm->hy = malloc((size_t)cfg->batch * sizeof(int32_t));
        dm->hy_rows = cfg->batch;
        GEN_RETURN_IF(!dm->share || !dm->hy, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    dm->T = gen_param_i(m, GENESIS_P_DIFFUSION_STEPS);
    dm->cosine = gen_param_i(m, GENESIS_P_NOISE_SCHEDULE);
    dm->alpha = malloc((size_t)dm->T * sizeof(double));
    dm->abar = malloc((size_t)dm->T * sizeof(double));
    GEN_RETURN_IF(!dm->alpha || !dm->abar, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    gen_ddpm_betas(dm->alpha, dm->T, dm->cosine);
    double ab = 1;
    for (int i = 0; i < dm->T; i++) {
        dm->alpha[i] = 1.0 - dm->alpha[i];
        ab *= dm->alpha[i];
        dm->abar[i] = ab;
    }
    gen_act_span *spans = gen_model_act_spans(&m->tf);
    GEN_RETURN_IF(!spans, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    for (int s = 0; s < m->tf.nspans; s++)
        if (spans[s].softmax && spans[s].len > GEN_DDPM_MAXK) {
            int len = spans[s].len;
            free(spans);
            return gen_set_error(m->ctx, GENESIS_ERR_INVALID_ARG,
                                 "ddpm takes at most %d slots per column, a column has %d; lower "
                                 "`max-categories`",
                                 GEN_DDPM_MAXK, len);
        }
    int ns = 0; /* the diffused spans: all but the target's */
    for (int s = 0; s < m->tf.nspans; s++)
        if (!(target >= 0 && spans[s].start == dm->tstart)) spans[ns++] = spans[s];
    genesis_status st = ddpm_create(m->ctx, be, cfg, spans, ns, &dm->net);
    free(spans);
    if (st == GENESIS_OK) *out = dm;
    return st;
}

/* The forward process's draws (ddpm_noise) are keyed by this stream, apart from the host
 * stream dm->rn (GEN_STREAM_NOISE's sequential counters: the label dropout). */
#define DDPM_NOISE_STREAM (GEN_STREAM_NOISE + (1u << 8))

/* The fit's batch buffers: the schedule in backend memory, the row numbers, and the encoded
 * table in backend memory (gen_resident_table) — or, when that does not fit (or
 * GENESIS_DDPM_HOST_BATCH=1, a test hook), a host buffer that batches are gathered into and
 * uploaded from (docs/ddpm.md §6); both give the same x0, so the same bytes. */
static genesis_status fit_buffers(genesis_model *m, ddpm_model *dm, const gen_encoded *enc) {
    ddpm *d = dm->net;
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    int T = dm->T;
    double *h = malloc(2 * (size_t)T * sizeof(double));
    dm->sched = o->alloc(be, 2 * (size_t)T * sizeof(double));
    dm->hrows = malloc((size_t)d->B * sizeof(int32_t));
    dm->drows = o->alloc(be, (size_t)d->B * sizeof(int32_t));
    if (!h || !dm->sched || !dm->hrows || !dm->drows) {
        free(h);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory for DDPM's batch buffers");
    }
    memcpy(h, dm->alpha, (size_t)T * sizeof(double));
    memcpy(h + T, dm->abar, (size_t)T * sizeof(double));
    o->upload(be, dm->sched, h, 2 * (size_t)T * sizeof(double));
    free(h);
    /* x_t's and the noise's positions that ddpm_noise does not write stay 0 (the target's
     * span; the noise at softmax spans) */
    o->zero(be, d->act.xt, (size_t)d->B * d->D);
    o->zero(be, d->act.noise, (size_t)d->B * d->D);
    dm->drawn = 0;
    const char *host = getenv("GENESIS_DDPM_HOST_BATCH"); /* a test hook: the fallback path */
    if (!(host && *host == '1') && enc->nrows <= INT32_MAX &&
        gen_resident_table_create(be, &m->tf, enc, &dm->table) == GENESIS_OK) {
        dm->resident = 1;
        return GENESIS_OK;
    }
    gen_resident_table_free(&dm->table);
    gen_clear_error(m->ctx);
    gen_log(m->ctx, GENESIS_LOG_INFO,
            "ddpm: the encoded table (%lld rows) stays on the host; each batch is gathered there "
            "and uploaded",
            (long long)enc->nrows);
    dm->resident = 0;
    dm->hx0 = malloc((size_t)d->B * d->D * sizeof(float));
    GEN_RETURN_IF(!dm->hx0, m->ctx, GENESIS_ERR_NOMEM, "out of memory for DDPM's batch");
    return GENESIS_OK;
}

/* A batch of b rows (rows: their numbers in the encoded table) through the forward process:
 * x0 gathered into act.x0 (on the backend from the resident table, else on the host and
 * uploaded), then ddpm_noise writes x_t, the noise, t and the loss's coefficients on the
 * backend (docs/ddpm.md §6) with the draws of the rows' running numbers in the fit (dm->drawn
 * on), so iteration i's rows are numbered i B .. i B + B - 1 without DP; the class labels
 * (dm->hy) go up when the denoiser is class-conditional. */
static void noise_batch(genesis_model *m, ddpm_model *dm, const gen_encoded *enc,
                        const int64_t *rows, int b) {
    ddpm *d = dm->net;
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    int D = d->D;
    if (dm->resident) {
        for (int i = 0; i < b; i++) dm->hrows[i] = (int32_t)rows[i];
        o->upload(be, dm->drows, dm->hrows, (size_t)b * sizeof(int32_t));
        o->gather_rows(be, d->act.x0, D, &dm->table.t, dm->drows, b);
    } else {
        gen_encoded_gather(&m->tf, enc, rows, b, dm->hx0, D);
        o->upload(be, d->act.x0, dm->hx0, (size_t)b * D * sizeof(float));
    }
    o->ddpm_noise(be, d->act.x0, d->act.xt, d->act.noise, d->act.coef, d->t, dm->sched, dm->T,
                  b, D, d->spans, d->nspans, DDPM_ALPHA_SCALE, m->seed, DDPM_NOISE_STREAM, 0,
                  dm->drawn);
    dm->drawn += (uint64_t)b;
    if (d->K) o->upload(be, d->y, dm->hy, (size_t)b * sizeof(int32_t));
}

static void loss_scales(const ddpm_model *dm, int B, float *gscale, float *mscale) {
    const ddpm *d = dm->net;
    *gscale = d->nnum ? 1.0f / ((float)B * (float)d->nnum) : 0.0f;
    *mscale = d->ncat ? (float)dm->T / ((float)B * (float)d->ncat) : 0.0f;
}

/* Checkpoints (src/model/checkpoint.c): between iterations the fit's state is the parameters,
 * AdamW's moments and step count, both host streams, the row order and the position in it. */
static genesis_status ddpm_train_save(const genesis_model *m, gen_bytes *b) {
    const ddpm_model *dm = m->impl;
    const ddpm *d = dm->net;
    GEN_RETURN_IF(!d->train || !dm->order, m->ctx, GENESIS_ERR_STATE,
                  "DDPM is not training; no training state");
    GEN_TRY(gen_ckpt_wr_dev(m, b, d->params, d->count));
    GEN_TRY(gen_ckpt_wr_dev(m, b, d->m, d->count));
    GEN_TRY(gen_ckpt_wr_dev(m, b, d->v, d->count));
    gen_wr_u64(b, (uint64_t)d->step);
    gen_ckpt_wr_rng(b, &dm->ro);
    gen_ckpt_wr_rng(b, &dm->rn);
    gen_wr_u64(b, (uint64_t)dm->pos);
    gen_ckpt_wr_perm(b, dm->order, dm->norder, 4);
    /* appended by class conditioning and the EMA (absent without them) */
    if (dm->target >= 0) gen_wr_u32(b, (uint32_t)dm->target + 1);
    if (d->ema) GEN_TRY(gen_ckpt_wr_dev(m, b, d->ema, d->count));
    return GENESIS_OK;
}

static genesis_status ddpm_train_restore(genesis_model *m, gen_reader *r) {
    ddpm_model *dm = m->impl;
    ddpm *d = dm->net;
    uint64_t step, pos;
    GEN_TRY(gen_ckpt_rd_dev(m, r, d->params, d->count));
    GEN_TRY(gen_ckpt_rd_dev(m, r, d->m, d->count));
    GEN_TRY(gen_ckpt_rd_dev(m, r, d->v, d->count));
    GEN_TRY(gen_rd_u64(r, &step));
    GEN_TRY(gen_ckpt_rd_rng(r, &dm->ro));
    GEN_TRY(gen_ckpt_rd_rng(r, &dm->rn));
    GEN_TRY(gen_rd_u64(r, &pos));
    if (step > ((uint64_t)1 << 50)) return gen_rd_fail(r, "DDPM step count is out of range");
    if (pos > (uint64_t)dm->norder) return gen_rd_fail(r, "DDPM row position is past the row order");
    GEN_TRY(gen_ckpt_rd_perm(m, r, dm->order, dm->norder, 4, "DDPM row order"));
    if (dm->target >= 0) {
        uint32_t tg;
        GEN_TRY(gen_rd_u32(r, &tg));
        if (tg != (uint32_t)dm->target + 1)
            return gen_rd_fail(r, "the checkpoint was made with another DDPM target column");
    }
    if (d->ema) {
        if (r->len - r->pos < d->count * sizeof(float))
            return gen_rd_fail(r, "the checkpoint holds no moving average of the weights (it was "
                                  "made with ema-decay 0)");
        GEN_TRY(gen_ckpt_rd_dev(m, r, d->ema, d->count));
    }
    if (r->pos != r->len) return gen_rd_fail(r, "unexpected bytes after DDPM's training state");
    d->step = (int64_t)step;
    dm->pos = (int64_t)pos;
    return GENESIS_OK;
}

/* The transformer column of the fit-time target (genesis_model_set_target) in *col, -1 for
 * none; an unknown or non-categorical column is refused, naming it. */
static genesis_status find_target(genesis_model *m, int *col) {
    *col = -1;
    if (!m->target) return GENESIS_OK;
    for (int c = 0; c < m->tf.ncols; c++) {
        const gen_col_transform *ct = &m->tf.cols[c];
        if (strcmp(ct->name, m->target) != 0) continue;
        GEN_RETURN_IF(ct->type != GENESIS_COLUMN_CATEGORICAL || ct->id.kind, m->ctx,
                      GENESIS_ERR_INVALID_ARG,
                      "ddpm: the target column '%s' is %s; a class-conditional denoiser needs a "
                      "categorical target",
                      m->target, ct->id.kind ? "an identifier" : "continuous");
        *col = c;
        return GENESIS_OK;
    }
    return gen_set_error(m->ctx, GENESIS_ERR_INVALID_ARG, "ddpm: no column named '%s' (the target)",
                         m->target);
}

/* The fit under differential privacy (docs/privacy.md): Poisson batches (each row with
 * probability q, in chunks of at most the batch size), the clipped per-row gradients of
 * ddpm_dp.c summed, N(0, (sigma C)^2) added (dp_noise), divided by the expected batch q n,
 * then AdamW as without DP. A target is refused: its class shares are stored for sampling. */
static genesis_status ddpm_fit_dp(genesis_model *m, ddpm_model *dm, const gen_encoded *enc,
                                  genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    ddpm *d = dm->net;
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    const gen_dp_info *dp = &m->dp;
    GEN_RETURN_IF(dm->target >= 0, ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: a class-conditional DDPM (--target) stores its classes' shares; "
                  "that is not inside the privacy budget in this version — leave --target out");
    int64_t N = enc->nrows, T = dp->steps;
    int B = d->B;
    float gscale, mscale, lr0 = (float)m->param[GENESIS_P_GEN_LR];
    float decay = (float)m->param[GENESIS_P_GEN_DECAY], ema = (float)m->param[GENESIS_P_EMA_DECAY];
    loss_scales(dm, 1, &gscale, &mscale); /* per-row losses */
    GEN_TRY(fit_buffers(m, dm, enc));
    int64_t *rows = malloc((size_t)N * sizeof *rows);
    float *sq = o->alloc(be, (size_t)B * sizeof(float)), *s = o->alloc(be, (size_t)B * sizeof(float));
    float *sum = o->alloc(be, d->count * sizeof(float)), *loss = o->alloc(be, 2 * sizeof(float));
    genesis_status st = GENESIS_OK;
    if (!rows || !sq || !s || !sum || !loss)
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for DP-SGD's buffers");
    gen_rng pick;
    gen_rng_init(&pick, m->seed, GEN_STREAM_DP_BATCH);
    gen_rng_init(&dm->rn, m->seed, GEN_STREAM_NOISE);
    int64_t every = T >= 100 ? T / 100 : 1, seen = 0;
    int reports = (int)((T + every - 1) / every);
    uint64_t noise_at = 0;
    double t0 = now_s();
    if (st == GENESIS_OK) o->zero(be, loss, 2);
    for (int64_t it = 0; it < T && st == GENESIS_OK; it++) {
        int64_t nb = 0;
        for (int64_t i = 0; i < N; i++)
            if (gen_rng_uniform(&pick) < dp->q) rows[nb++] = i;
        o->zero(be, sum, d->count);
        for (int64_t c0 = 0; c0 < nb; c0 += B) {
            int b = (int)(nb - c0 < B ? nb - c0 : B);
            noise_batch(m, dm, enc, rows + c0, b);
            ddpm_dp_clip_rows(d, b, gscale, mscale, sum, sq, s, (float)dp->clip, loss);
        }
        seen += nb;
        gen_dp_noise_sum(be, dp, N, sum, d->count, m->seed, &noise_at);
        o->copy2d(be, d->grads, (int)d->count, sum, (int)d->count, 1, (int)d->count);
        ddpm_adamw(d, lr0 * (float)(1.0 - (double)it / (double)T), decay);
        if (d->ema) ddpm_ema(d, ema);
        if ((it + 1) % every != 0 && it + 1 != T) continue;
        float l[2];
        o->download(be, l, loss, sizeof l);
        o->zero(be, loss, 2);
        double avg = seen > 0 ? (l[0] + l[1]) / (double)seen : 0.0;
        seen = 0;
        if (!isfinite(avg) || o->any_nonfinite(be, d->params, d->count)) {
            st = gen_diverged(be, "ddpm diverged under DP-SGD at iteration %lld; lower "
                              "`generator-lr`", (long long)it + 1);
            break;
        }
        st = gen_dp_report(m, progress, user, (int)((it + 1 + every - 1) / every), reports, it + 1,
                           N, avg, now_s() - t0, "iteration", it + 1, T);
    }
    free(rows);
    gen_resident_table_free(&dm->table);
    o->free(be, sq);
    o->free(be, s);
    o->free(be, sum);
    o->free(be, loss);
    if (st == GENESIS_OK && d->ema)
        o->copy2d(be, d->params, (int)d->count, d->ema, (int)d->count, 1, (int)d->count);
    return st;
}

static genesis_status ddpm_model_fit(genesis_model *m, const gen_encoded *enc,
                                     genesis_progress_fn progress, void *user) {
    genesis_ctx *ctx = m->ctx;
    GEN_RETURN_IF(gen_comm_size(ctx->comm) > 1, ctx, GENESIS_ERR_UNSUPPORTED,
                  "ddpm does not train data-parallel in this version; train on one rank, or "
                  "choose a method that does (ctgan or tvae)");
    int B = gen_param_i(m, GENESIS_P_BATCH_SIZE);
    int64_t N = enc->nrows;
    if (B > N) B = (int)N;
    GEN_RETURN_IF(B < 1, ctx, GENESIS_ERR_DATA, "ddpm needs at least one row to learn from");
    int target;
    GEN_TRY(find_target(m, &target));
    double pdrop = m->param[GENESIS_P_LABEL_DROPOUT];
    GEN_RETURN_IF(pdrop > 0 && target < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "`label-dropout` hides the class of some rows: it needs a target "
                  "(`genesis_model_set_target`)");
    float ema = (float)m->param[GENESIS_P_EMA_DECAY];
    ddpm_config cfg = {B, m->tf.data_dim, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                       gen_param_i(m, GENESIS_P_GEN_DIM), gen_param_i(m, GENESIS_P_NUM_LAYERS), 1,
                       target >= 0 ? m->tf.cols[target].width : 0, ema > 0,
                       gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    ddpm_model *dm = NULL;
    GEN_TRY(new_impl(m, &cfg, target, &dm));
    ddpm *d = dm->net;
    const int32_t *yslot = target >= 0 ? enc->slot[target] : NULL;
    if (yslot) { /* the class shares sampling draws from */
        for (int64_t i = 0; i < N; i++) {
            GEN_ASSERT(yslot[i] >= 0 && yslot[i] < dm->tlen);
            dm->share[yslot[i]] += 1.0;
        }
        for (int k = 0; k < dm->tlen; k++) dm->share[k] /= (double)N;
    }
    GEN_TRY(ddpm_init_weights(d, m->seed));
    if (m->dp.on) return ddpm_fit_dp(m, dm, enc, progress, user); /* DP-SGD */
    int64_t *order = dm->order = malloc((size_t)N * sizeof(int64_t));
    GEN_RETURN_IF(!order, ctx, GENESIS_ERR_NOMEM, "out of memory for the row order");
    dm->norder = N;
    for (int64_t i = 0; i < N; i++) order[i] = i;
    gen_rng_init(&dm->ro, m->seed, GEN_STREAM_SAMPLER);
    gen_rng_init(&dm->rn, m->seed, GEN_STREAM_NOISE);
    dm->pos = N;
    GEN_TRY(fit_buffers(m, dm, enc));
    int64_t iters = (int64_t)m->param[GENESIS_P_ITERATIONS];
    float lr0 = (float)m->param[GENESIS_P_GEN_LR], decay = (float)m->param[GENESIS_P_GEN_DECAY];
    float gscale, mscale;
    loss_scales(dm, B, &gscale, &mscale);
    int64_t every = iters >= 100 ? iters / 100 : 1; /* progress: about 100 reports */
    int reports = (int)((iters + every - 1) / every);
    double t0 = now_s(), lsum = 0;
    int lcount = 0;
    genesis_status st = GENESIS_OK;
    int64_t it0 = 0; /* iterations done (a resumed checkpoint) */
    gen_reader rr;
    if (gen_ckpt_resume_reader(m, &rr, &it0))
        st = it0 <= iters ? ddpm_train_restore(m, &rr)
                          : gen_rd_fail(&rr, "more iterations done than the fit has");
    dm->drawn = (uint64_t)it0 * (uint64_t)B; /* every iteration noises B rows */
    for (int64_t it = it0; it < iters && st == GENESIS_OK; it++) {
        if (dm->pos + B > N) { /* a new epoch: reshuffle */
            for (int64_t i = N - 1; i > 0; i--) {
                int64_t j = (int64_t)gen_rng_below(&dm->ro, (uint64_t)i + 1);
                int64_t tmp = order[i]; order[i] = order[j]; order[j] = tmp;
            }
            dm->pos = 0;
        }
        if (yslot)
            for (int b = 0; b < B; b++) dm->hy[b] = yslot[order[dm->pos + b]];
        for (int b = 0; yslot && pdrop > 0 && b < B; b++) /* classifier-free guidance (§3b) */
            if (gen_rng_uniform(&dm->rn) < pdrop) dm->hy[b] = -1;
        noise_batch(m, dm, enc, order + dm->pos, B);
        dm->pos += B;
        float loss = ddpm_forward_backward(d, B, gscale, mscale, 1);
        if (!isfinite(loss) || m->be->ops->any_nonfinite(m->be, d->grads, d->count)) {
            st = gen_diverged(m->be, "ddpm diverged at iteration %lld (loss %g); lower `generator-lr`",
                              (long long)it + 1, (double)loss);
            break;
        }
        lsum += loss;
        lcount++;
        ddpm_adamw(d, lr0 * (float)(1.0 - (double)it / (double)iters), decay);
        if (d->ema) ddpm_ema(d, ema);
        int stop = 0;
        if (((it + 1) % every == 0 || it + 1 == iters) && lcount) {
            int k = (int)((it + 1 + every - 1) / every);
            if (progress) {
                double el = now_s() - t0;
                int64_t ran = it + 1 - it0;
                genesis_progress p = {k, reports, it + 1, iters, lsum / lcount, 0.0, el,
                                      el / (double)ran * (double)(iters - it - 1),
                                      (double)ran * B / (el > 0 ? el : 1e-9)};
                stop = progress(&p, user);
            }
            lsum = 0;
            lcount = 0;
        }
        st = gen_ckpt_point(m, it + 1, iters, stop); /* checkpoint when due; stop */
    }
    free(dm->order);
    dm->order = NULL;
    gen_resident_table_free(&dm->table);
    if (st == GENESIS_OK && d->ema) /* the moving average samples */
        m->be->ops->copy2d(m->be, d->params, (int)d->count, d->ema, (int)d->count, 1, (int)d->count);
    return st;
}

/* The sampling group: the rows one chain of reverse steps runs on (docs/ddpm.md §5). On the
 * CPU the training batch: the denoiser's arithmetic sets the time there. On a GPU at least
 * DDPM_GPU_SAMPLE_ROWS, so that a step's dozen kernels are not launch-bound (at 256 rows they
 * are). The rows do not depend on the group (diffusion.h's draws). GENESIS_DDPM_SAMPLE_ROWS
 * sets it (a test hook: the emulated GPU would take minutes over 16,384 rows). */
#define DDPM_GPU_SAMPLE_ROWS 16384
static int ddpm_sample_rows(const genesis_model *m, int B) {
    const char *env = getenv("GENESIS_DDPM_SAMPLE_ROWS");
    long v = env ? strtol(env, NULL, 10) : 0;
    if (v > 0 && v <= (1 << 20)) return (int)v;
    if (!m->be || m->be->ops->host_memory) return B;
    return B > DDPM_GPU_SAMPLE_ROWS ? B : DDPM_GPU_SAMPLE_ROWS;
}

static int ddpm_model_batch(const genesis_model *m) {
    return ddpm_sample_rows(m, ((const ddpm_model *)m->impl)->net->B);
}

/* Sampling (docs/ddpm.md §5) runs on the backend: x_T (ddpm_sample_init), then per step the
 * denoiser's forward and one reverse step (ddpm_reverse_step) over the batch in act.xt, which
 * also sets the rows' timestep for the next step; nothing is read back until the batch is
 * done. The draws: the backend's Philox elements of the call's stream GEN_STREAM_SAMPLE +
 * (k << 8), element e0 + b D + j of operation k's counter regions (diffusion.h; e0 = the
 * group's first row number in the call, times D), so the rows do not depend on the group
 * size or on the device that generates them; a row's class label from its own row-numbered
 * host stream one above it (rng.h gen_rng_row). B is the sampling group: the training
 * network's batch, or a network of B rows sharing its weights (dm->snet). */
/* The guidance buffers for groups of B rows (allocated at the first guided group). */
static genesis_status guidance_buffers(genesis_model *m, ddpm_model *dm, int B, int D) {
    gen_backend *be = m->be;
    if (dm->grows == B) return GENESIS_OK;
    be->ops->free(be, dm->gbuf);
    be->ops->free(be, dm->ynull);
    dm->grows = 0;
    dm->gbuf = be->ops->alloc(be, gen_mul_size((size_t)B * sizeof(float), (size_t)D));
    dm->ynull = be->ops->alloc(be, (size_t)B * sizeof(int32_t));
    int32_t *h = malloc((size_t)B * sizeof(int32_t));
    if (!dm->gbuf || !dm->ynull || !h) {
        free(h);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory for guidance (%d rows)", B);
    }
    for (int b = 0; b < B; b++) h[b] = -1;
    be->ops->upload(be, dm->ynull, h, (size_t)B * sizeof(int32_t));
    free(h);
    dm->grows = B;
    return GENESIS_OK;
}

/* dm->pwt = the projection's weights (E x D) transposed, for linear_sparse_forward: x_t's
 * softmax spans are one-hots at every sampling step (x_T and each reverse step write them),
 * so the projection reads one weight row per span instead of all D. Host-memory backends
 * only (the CPU, where the dense product costs D x E per row); a GPU's GEMM is faster than
 * the gather, so there pwt stays NULL. Done per call: the weights may have changed since. */
static genesis_status sparse_projection(genesis_model *m, ddpm_model *dm) {
    gen_backend *be = m->be;
    ddpm *n = dm->net;
    size_t D = (size_t)n->D, E = (size_t)n->E;
    if (!be->ops->host_memory || !be->ops->linear_sparse_forward) return GENESIS_OK;
    if (!dm->pwt) {
        dm->pwt = be->ops->alloc(be, gen_mul_size(D * E, sizeof(float)));
        GEN_RETURN_IF(!dm->pwt, m->ctx, GENESIS_ERR_NOMEM,
                      "out of memory for DDPM's sampling weights (%zu x %zu)", D, E);
    }
    const float *w = n->p.pW; /* host memory: read in place */
    for (size_t e = 0; e < E; e++)
        for (size_t j = 0; j < D; j++) dm->pwt[j * E + e] = w[e * D + j];
    return GENESIS_OK;
}

static genesis_status ddpm_model_generate(genesis_model *m, int B, const gen_condition *conds,
                                          int nconds, int64_t row0, float *out) {
    (void)conds; (void)nconds; /* refused earlier: DDPM has no conditional vector */
    ddpm_model *dm = m->impl;
    ddpm *d = dm->net;
    gen_backend *be = m->be;
    if (B != d->B) {
        if (!dm->snet || dm->snet->B != B) {
            ddpm_free(dm->snet);
            dm->snet = NULL;
            GEN_TRY(ddpm_create_view(m->ctx, dm->net, B, &dm->snet));
        }
        d = dm->snet;
    }
    if (d->K && dm->hy_rows < B) {
        int32_t *hy = realloc(dm->hy, (size_t)B * sizeof(int32_t));
        GEN_RETURN_IF(!hy, m->ctx, GENESIS_ERR_NOMEM, "out of memory for %d class labels", B);
        dm->hy = hy;
        dm->hy_rows = B;
    }
    int D = d->D, T = dm->T;
    uint64_t seed = m->ctx->seed, stream = GEN_STREAM_SAMPLE + (m->sample_calls << 8);
    int S = gen_param_i(m, GENESIS_P_SAMPLE_STEPS);
    if (S <= 0 || S > T) S = T;
    int ancestral = S == T;
    double eta = m->param[GENESIS_P_DDIM_ETA];
    int order2 = !ancestral && gen_param_i(m, GENESIS_P_SAMPLE_ORDER) == 2;
    if (dm->ntau != S) { /* the timesteps depend on S alone (T is fixed once fitted) */
        int *tau = realloc(dm->tau, (size_t)S * sizeof(int));
        GEN_RETURN_IF(!tau, m->ctx, GENESIS_ERR_NOMEM, "out of memory for %d sampling steps", S);
        dm->tau = tau;
        dm->ntau = S;
        ddpm_timesteps(T, S, dm->tau);
    }
    if (order2 && dm->x0rows != B) {
        be->ops->free(be, dm->x0buf);
        dm->x0rows = 0;
        dm->x0buf = be->ops->alloc(be, gen_mul_size((size_t)B * sizeof(float), (size_t)D));
        GEN_RETURN_IF(!dm->x0buf, m->ctx, GENESIS_ERR_NOMEM,
                      "out of memory for the second-order sampler (%d rows)", B);
        dm->x0rows = B;
    }
    float w = (float)m->param[GENESIS_P_GUIDANCE];
    if (w > 0) {
        GEN_RETURN_IF(!d->K || m->param[GENESIS_P_LABEL_DROPOUT] <= 0, m->ctx,
                      GENESIS_ERR_INVALID_ARG,
                      "`guidance` needs a class-conditional model fitted with `label-dropout` > 0 "
                      "(it learns the unconditional prediction that guidance subtracts)");
        GEN_TRY(guidance_buffers(m, dm, B, D));
    }
    if (d->K) { /* the class of each row, from its share in the training rows */
        for (int b = 0; b < B; b++) { /* row r's own stream (rng.h gen_rng_row) */
            gen_rng r;
            gen_rng_row(&r, seed, stream + 1, (uint64_t)(row0 + b));
            double v = gen_rng_uniform(&r), acc = 0;
            int pick = dm->tlen - 1;
            for (int k = 0; k < dm->tlen; k++) {
                acc += dm->share[k];
                if (v < acc && dm->share[k] > 0) { pick = k; break; }
            }
            while (pick > 0 && dm->share[pick] <= 0) pick--; /* rounding at the top end */
            dm->hy[b] = pick;
        }
        be->ops->upload(be, d->y, dm->hy, (size_t)B * sizeof(int32_t));
    }
    GEN_TRY(sparse_projection(m, dm));
    d->pWt = dm->pwt;
    d->shared_t = 1; /* every row of the group is at the same step */
    uint64_t e0 = (uint64_t)row0 * (uint64_t)D, op = 0;
    be->ops->zero(be, d->act.xt, (size_t)B * D); /* the target's span stays 0 */
    const int *tau = dm->tau;
    be->ops->ddpm_sample_init(be, d->act.xt, d->t, tau[S - 1], B, D, d->spans, d->nspans,
                              seed, stream, gen_ddpm_op_offset(op++), e0);
    for (int i = S - 1; i >= 0; i--) {
        int t = tau[i], s = i ? tau[i - 1] : -1;
        double abs_ = s >= 0 ? dm->abar[s] : 1.0;
        gen_ddpm_step st = {dm->abar[t], abs_, dm->alpha[t], ancestral, s < 0,
                            ancestral ? 0.0 : gen_ddpm_sigma(eta, dm->abar[t], abs_),
                            order2 ? dm->x0buf : NULL,
                            order2 ? ddpm_order2_k(dm->abar, tau, S, i) : 0.0};
        const float *eps = d->act.out;
        if (w > 0) { /* (1 + w) eps(x, y) - w eps(x): the hidden-label pass first */
            int32_t *y = d->y;
            d->y = dm->ynull;
            ddpm_forward(d, B);
            d->y = y;
            be->ops->copy2d(be, dm->gbuf, D, d->act.out, D, B, D);
            ddpm_forward(d, B);
            be->ops->ema_update(be, dm->gbuf, d->act.out, (size_t)B * D, -w);
            eps = dm->gbuf;
        } else {
            ddpm_forward(d, B);
        }
        be->ops->ddpm_reverse_step(be, d->act.xt, s >= 0 ? d->t : NULL, s, d->act.xt,
                                   eps, B, D, d->spans, d->nspans, st, seed, stream,
                                   gen_ddpm_op_offset(op++), e0);
    }
    d->pWt = NULL;
    d->shared_t = 0;
    be->ops->download(be, out, d->act.xt, (size_t)B * D * sizeof(float));
    GEN_TRY(gen_backend_status(be));
    for (int b = 0; b < B; b++) /* alpha back to its range; the one-hots as drawn */
        for (int s = 0; s < d->nspans; s++) {
            const gen_act_span *sp = &d->spans[s];
            if (sp->softmax) continue;
            for (int j = sp->start; j < sp->start + sp->len; j++) {
                float *v = out + (size_t)b * D + j;
                *v = fminf(fmaxf(*v / DDPM_ALPHA_SCALE, -1.0f), 1.0f);
            }
        }
    for (int b = 0; d->K && b < B; b++)
        for (int k = 0; k < dm->tlen; k++)
            out[(size_t)b * D + dm->tstart + k] = k == dm->hy[b] ? 1.0f : 0.0f;
    for (size_t i = 0; i < (size_t)B * D; i++)
        if (!isfinite(out[i]))
            return gen_diverged(be, "the denoiser produced non-finite values; the model is unusable");
    return GENESIS_OK;
}

static genesis_status ddpm_model_save(const genesis_model *m, gen_bytes *b) {
    const ddpm_model *dm = m->impl;
    const ddpm *d = dm->net;
    int order = gen_param_i(m, GENESIS_P_SAMPLE_ORDER);
    if (order != 1) { /* the sampler, when not the one of files without the record */
        gen_wr_u32(b, DDPM_SECTION_SAMPLER);
        gen_wr_u32(b, (uint32_t)order);
    }
    if (dm->target >= 0) { /* a class-conditional model: its target and class shares first */
        gen_wr_u32(b, DDPM_SECTION_COND);
        gen_wr_u32(b, (uint32_t)dm->target);
        gen_wr_u32(b, (uint32_t)dm->tlen);
        gen_wr_f64s(b, dm->share, (size_t)dm->tlen);
    }
    gen_wr_u32(b, (uint32_t)d->B);
    gen_wr_u32(b, (uint32_t)d->D);
    gen_wr_u32(b, (uint32_t)d->E);
    gen_wr_u32(b, (uint32_t)d->H);
    gen_wr_u32(b, (uint32_t)d->L);
    gen_wr_u32(b, (uint32_t)dm->T);
    gen_wr_u32(b, (uint32_t)dm->cosine);
    float *h = malloc(d->count * sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    /* the weights that sample: the moving average while it is kept (a checkpoint's model) */
    m->be->ops->download(m->be, h, d->ema ? d->ema : d->params, d->count * sizeof(float));
    gen_wr_u64(b, (uint64_t)d->count);
    gen_wr_f32s(b, h, d->count);
    free(h);
    return b->oom ? gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory saving the model") : GENESIS_OK;
}

static genesis_status ddpm_model_load(genesis_model *m, gen_reader *r) {
    int B, D, E, H, L, T, cosine, target = -1, K = 0;
    double share[GEN_DDPM_MAXK];
    size_t p0 = r->pos;
    uint32_t first;
    GEN_TRY(gen_rd_u32(r, &first));
    /* the sampler's setting; a file without it was written for the DDIM sampler */
    int order = 1;
    if (first == DDPM_SECTION_SAMPLER) {
        GEN_TRY(gen_rd_count(r, 1, 2, "DDPM sample order", &order));
        p0 = r->pos;
        GEN_TRY(gen_rd_u32(r, &first));
    }
    m->param[GENESIS_P_SAMPLE_ORDER] = order;
    if (first == DDPM_SECTION_COND) {
        GEN_TRY(gen_rd_count(r, 0, m->tf.ncols - 1, "DDPM target column", &target));
        const gen_col_transform *ct = &m->tf.cols[target];
        if (ct->type != GENESIS_COLUMN_CATEGORICAL)
            return gen_rd_fail(r, "the DDPM target column is not categorical");
        GEN_TRY(gen_rd_count(r, 1, GEN_DDPM_MAXK, "DDPM target classes", &K));
        if (K != ct->width) return gen_rd_fail(r, "DDPM target classes do not match the column's width");
        GEN_TRY(gen_rd_f64s(r, share, (size_t)K));
        double tot = 0;
        for (int k = 0; k < K; k++) {
            if (!(share[k] >= 0 && share[k] <= 1)) return gen_rd_fail(r, "a DDPM class share is out of range");
            tot += share[k];
        }
        if (fabs(tot - 1) > 1e-6) return gen_rd_fail(r, "the DDPM class shares do not sum to 1");
    } else {
        r->pos = p0; /* an unconditional section: this word is the batch size */
    }
    GEN_TRY(gen_rd_count(r, 1, 1u << 20, "batch size", &B));
    GEN_TRY(gen_rd_count(r, 1, 1u << 24, "data width", &D));
    GEN_TRY(gen_rd_count(r, 1, 4096, "embedding size", &E));
    GEN_TRY(gen_rd_count(r, 1, 8192, "hidden width", &H));
    GEN_TRY(gen_rd_count(r, 1, DDPM_MAX_LAYERS, "hidden layers", &L));
    GEN_TRY(gen_rd_count(r, 2, 100000, "diffusion steps", &T));
    GEN_TRY(gen_rd_count(r, 0, 1, "noise schedule", &cosine));
    if (D != m->tf.data_dim) return gen_rd_fail(r, "DDPM width does not match the model's column layout");
    if ((uint64_t)B * (6 * (uint64_t)D + 8 * (uint64_t)E + 2 * (uint64_t)L * H) > ((uint64_t)1 << 28))
        return gen_rd_fail(r, "DDPM batch size and widths are implausibly large");
    uint64_t count, d = (uint64_t)D, e = (uint64_t)E, h = (uint64_t)H;
    GEN_TRY(gen_rd_u64(r, &count));
    uint64_t expect = 2 * (e * e + e) + e * d + e + h * e + h + (uint64_t)(L - 1) * (h * h + h) + d * h + d +
                      (uint64_t)K * e;
    if (count != expect) return gen_rd_fail(r, "DDPM parameter count does not match its sizes");
    if (count * 4 > r->len - r->pos) return gen_rd_fail(r, "DDPM weights extend past the end of the file");
    m->param[GENESIS_P_BATCH_SIZE] = B;
    m->param[GENESIS_P_EMBEDDING_DIM] = E;
    m->param[GENESIS_P_GEN_DIM] = H;
    m->param[GENESIS_P_NUM_LAYERS] = L;
    m->param[GENESIS_P_DIFFUSION_STEPS] = T;
    m->param[GENESIS_P_NOISE_SCHEDULE] = cosine;
    ddpm_config cfg = {B, D, E, H, L, 0, K, 0, 0};
    ddpm_model *dm = NULL;
    GEN_TRY(new_impl(m, &cfg, target, &dm));
    if (target >= 0) {
        memcpy(dm->share, share, (size_t)K * sizeof(double));
        free(m->target);
        m->target = gen_strdup(m->tf.cols[target].name);
        GEN_RETURN_IF(!m->target, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    ddpm *net = dm->net;
    float *hp = malloc(net->count * sizeof(float));
    GEN_RETURN_IF(!hp, m->ctx, GENESIS_ERR_NOMEM, "out of memory loading the model");
    genesis_status st = gen_rd_f32s(r, hp, net->count);
    for (size_t i = 0; st == GENESIS_OK && i < net->count; i++)
        if (!isfinite(hp[i])) st = gen_rd_fail(r, "a DDPM weight is NaN or infinite");
    if (st == GENESIS_OK) m->be->ops->upload(m->be, net->params, hp, net->count * sizeof(float));
    free(hp);
    return st;
}

/* The network's bytes, plus a training step's host buffers: a batch of x_0 (gathered on the
 * host when the encoded table does not stay in backend memory) and its row numbers, and the
 * schedule (host and backend); sampling touches none of them (it runs on the backend and
 * reads the batch back into the sampling pipeline's buffer). */
static void ddpm_model_memory(const genesis_model *m, const gen_net_shape *sh, gen_net_bytes *out) {
    int K = 0; /* the target's classes, when the columns are known */
    for (int c = 0; m->target && c < m->tf.ncols; c++)
        if (strcmp(m->tf.cols[c].name, m->target) == 0) K = m->tf.cols[c].width;
    ddpm_config cfg = {sh->batch, sh->data_dim, gen_param_i(m, GENESIS_P_EMBEDDING_DIM),
                       gen_param_i(m, GENESIS_P_GEN_DIM), gen_param_i(m, GENESIS_P_NUM_LAYERS),
                       sh->train, K, sh->train && m->param[GENESIS_P_EMA_DECAY] > 0,
                       gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING)};
    ddpm_memory(&cfg, out);
    if (sh->sample_rows > 0 && sh->sample_rows != sh->batch) { /* dm->snet (ddpm_create_view) */
        ddpm_config vc = cfg;
        vc.batch = sh->sample_rows, vc.train = 0, vc.ema = 0;
        gen_net_bytes v;
        ddpm_memory(&vc, &v);
        out->acts += v.acts;
        out->host += K ? 4 * (uint64_t)sh->sample_rows : 0; /* the labels' host copy */
    }
    if (sh->sample_rows > 0 && m->param[GENESIS_P_GUIDANCE] > 0) /* gbuf and ynull */
        out->acts += 4 * (uint64_t)sh->sample_rows * ((uint64_t)sh->data_dim + 1);
    if (sh->sample_rows > 0 && gen_param_i(m, GENESIS_P_SAMPLE_ORDER) == 2) /* x0buf */
        out->acts += 4 * (uint64_t)sh->sample_rows * (uint64_t)sh->data_dim;
    uint64_t BD = (uint64_t)sh->batch * (uint64_t)sh->data_dim;
    out->host += (sh->train ? 4 * BD + 4 * (uint64_t)sh->batch : 0) + 4 * (uint64_t)sh->batch +
                 16 * (uint64_t)gen_param_i(m, GENESIS_P_DIFFUSION_STEPS);
    if (sh->train) out->acts += 4 * (uint64_t)sh->batch +
                                16 * (uint64_t)gen_param_i(m, GENESIS_P_DIFFUSION_STEPS);
}

static int ddpm_model_state(const genesis_model *m, const float **ptr, size_t *count, int cap) {
    const ddpm *d = ((const ddpm_model *)m->impl)->net;
    const float *p[3] = {d->params, d->m, d->v};
    int k = 0;
    for (int i = 0; i < 3 && k < cap; i++)
        if (p[i]) {
            ptr[k] = p[i];
            count[k++] = d->count;
        }
    return k;
}

/* The row permutation (src/model/estimate.c's encoded term). */
static uint64_t ddpm_model_draw_bytes(const genesis_model *m, uint64_t nrows, int n_disc,
                                      int max_cat) {
    (void)m; (void)n_disc; (void)max_cat;
    return 8 * nrows;
}

/* The settings DDPM uses and its defaults (docs/ddpm.md: TabDDPM's T = 1000, cosine
 * schedule, AdamW lr 2e-3 and decay 1e-4, the quantile normalisation; a CPU-sized MLP of
 * 2 x 256 and 5,000 steps). */
static const gen_param_use DDPM_PARAMS[] = {
    {GENESIS_P_BATCH_SIZE, 256},      {GENESIS_P_EMBEDDING_DIM, 128},  {GENESIS_P_GEN_DIM, 256},
    {GENESIS_P_GEN_LR, 2e-3},         {GENESIS_P_GEN_DECAY, 1e-4},     {GENESIS_P_MAX_MODES, 10},
    {GENESIS_P_MAX_CATEGORIES, 500},  {GENESIS_P_POINT_MASSES, 1},     {GENESIS_P_CLAMP_RANGE, 1},
    {GENESIS_P_VGM_MAX_ROWS, 200000}, {GENESIS_P_NUM_LAYERS, 2},       {GENESIS_P_ITERATIONS, 5000},
    {GENESIS_P_DIFFUSION_STEPS, 1000}, {GENESIS_P_SAMPLE_STEPS, 100},  {GENESIS_P_NOISE_SCHEDULE, 1},
    {GENESIS_P_EMA_DECAY, 0},         {GENESIS_P_LABEL_DROPOUT, 0},    {GENESIS_P_GUIDANCE, 0},
    {GENESIS_P_QUANTILE, 1},          {GENESIS_P_DDIM_ETA, 0},
    {GENESIS_P_SAMPLE_ORDER, 1},
    {GENESIS_P_EPSILON, 0},           {GENESIS_P_DELTA, 0},            {GENESIS_P_MAX_GRAD_NORM, 1},
    {GENESIS_P_GRADIENT_CHECKPOINTING, 0},
};

/* On a GPU: 30,000 steps of 4,096 rows, TabDDPM's larger batch at the top of the step counts
 * docs/ddpm.md §7 lists (Kotelnikov et al. 2023); measured on the whole of Adult on an H200 (115 s)
 * above the CPU-sized default on pair trends, XGBoost detection, beta-recall and TSTR
 * (docs/ddpm.md §7). Not under differential privacy: its accountant prices every step. */
static const gen_param_use DDPM_GPU_PARAMS[] = {
    {GENESIS_P_BATCH_SIZE, 4096}, {GENESIS_P_ITERATIONS, 30000},
};

const gen_model_vtable gen_ddpm_vtable = {
    .kind = GENESIS_MODEL_DDPM,
    .name = "ddpm",
    .fit = ddpm_model_fit,
    .generate = ddpm_model_generate,
    .generate_batch = ddpm_model_batch,
    .save = ddpm_model_save,
    .state = ddpm_model_state,
    .load = ddpm_model_load,
    .free = ddpm_model_free,
    .memory = ddpm_model_memory,
    .draw_bytes = ddpm_model_draw_bytes,
    .train_save = ddpm_train_save,
    .features = GENESIS_FEATURE_TARGET,
    .train_param = GENESIS_P_ITERATIONS,
    .params = DDPM_PARAMS,
    .nparams = (int)(sizeof DDPM_PARAMS / sizeof DDPM_PARAMS[0]),
    .gpu_params = DDPM_GPU_PARAMS,
    .ngpu_params = (int)(sizeof DDPM_GPU_PARAMS / sizeof DDPM_GPU_PARAMS[0]),
    .dp_sgd = 1,
};
