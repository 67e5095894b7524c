/*
 * model.c — the model glue shared by every network: create/free, settings (checked against
 * the parameter table, src/model/params.c), fit (transformer fit, encoding, then the network's own
 * fit) and conditions. Sampling: sample_stream.c.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "dp.h"
#include "estimate.h"
#include "model.h"
#include "params.h"
#include "registry.h"
#include "table.h"

genesis_status gen_model_new(genesis_ctx *ctx, genesis_model_kind kind, genesis_model **out) {
    const gen_model_vtable *vt = gen_model_vtable_of(kind);
    GEN_RETURN_IF(!vt, ctx, GENESIS_ERR_UNSUPPORTED,
                  "model kind %d is not available in this version (CTGAN, TVAE and TimeGAN are)",
                  (int)kind);
    genesis_model *m = calloc(1, sizeof *m);
    GEN_RETURN_IF(!m, ctx, GENESIS_ERR_NOMEM, "out of memory creating a model");
    m->ctx = ctx;
    m->vt = vt;
    for (int i = 0; i < GEN_NPARAMS; i++) m->param[i] = gen_param_kind_default(kind, i);
    genesis_status st = gen_backend_create(ctx, &m->be);
    if (st != GENESIS_OK) {
        free(m);
        return st;
    }
    m->gpu = ctx->backend_gpu;
    gen_model_device_defaults(m);
    *out = m;
    return GENESIS_OK;
}

void gen_model_device_defaults(genesis_model *m) {
    const gen_model_vtable *vt = m->vt;
    int gpu = m->gpu && !(m->param[GENESIS_P_EPSILON] > 0);
    for (int i = 0; i < vt->ngpu_params; i++) {
        int p = (int)vt->gpu_params[i].p;
        if (!m->param_given[p])
            m->param[p] = gpu ? vt->gpu_params[i].def : gen_param_kind_default(vt->kind, p);
    }
}

genesis_status genesis_model_create(genesis_ctx *ctx, genesis_model_kind kind,
                                    genesis_model **out) {
    if (!ctx || !out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    gen_clear_error(ctx);
    return gen_model_new(ctx, kind, out);
}

void genesis_model_free(genesis_model *m) {
    if (!m) return;
    if (m->vt && m->vt->free) m->vt->free(m);
    gen_transformer_free(&m->tf);
    gen_backend_free(m->be);
    free(m->seq_entity);
    free(m->seq_time);
    free(m->seq_calendar);
    free(m->target);
    free(m->ckpt_path);
    free(m->ckpt_snap);
    free(m->resume);
    free(m);
}

/* a == b for two optional strings */
static int same_text(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

genesis_status genesis_model_set_target(genesis_model *m, const char *column) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    GEN_RETURN_IF(!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_TARGET), m->ctx,
                  GENESIS_ERR_UNSUPPORTED,
                  "a fit-time target (a class-conditional denoiser) applies to ddpm, not %s",
                  m->vt->name);
    GEN_RETURN_IF(m->fitted, m->ctx, GENESIS_ERR_STATE,
                  "the target cannot change after the model is fitted");
    char *t = column ? gen_strdup(column) : NULL;
    GEN_RETURN_IF(column && !t, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    free(m->target);
    m->target = t;
    return GENESIS_OK;
}

genesis_status genesis_model_set_sequence_columns(genesis_model *m, const char *entity,
                                                  const char *time) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    GEN_RETURN_IF(!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_SEQUENCES), m->ctx,
                  GENESIS_ERR_UNSUPPORTED,
                  "entity and time columns apply to sequence models (TimeGAN), not %s", m->vt->name);
    GEN_RETURN_IF(m->fitted, m->ctx, GENESIS_ERR_STATE,
                  "the sequence columns cannot change after the model is fitted");
    GEN_RETURN_IF(m->resume && (!same_text(entity, m->seq_entity) || !same_text(time, m->seq_time)),
                  m->ctx, GENESIS_ERR_STATE,
                  "the checkpoint being continued was made with `entity` %s and `time` %s; a "
                  "resumed fit keeps them",
                  m->seq_entity ? m->seq_entity : "(none)", m->seq_time ? m->seq_time : "(none)");
    char *e = entity ? gen_strdup(entity) : NULL, *t = time ? gen_strdup(time) : NULL;
    if ((entity && !e) || (time && !t)) {
        free(e);
        free(t);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    free(m->seq_entity);
    free(m->seq_time);
    m->seq_entity = e;
    m->seq_time = t;
    return GENESIS_OK;
}

genesis_status genesis_model_set_calendar_columns(genesis_model *m, const char *columns) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    GEN_RETURN_IF(!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_SEQUENCES), m->ctx,
                  GENESIS_ERR_UNSUPPORTED, "calendar columns apply to sequence models (TimeGAN), not %s",
                  m->vt->name);
    GEN_RETURN_IF(m->fitted, m->ctx, GENESIS_ERR_STATE,
                  "the calendar columns cannot change after the model is fitted");
    GEN_RETURN_IF(columns && !columns[0], m->ctx, GENESIS_ERR_INVALID_ARG,
                  "calendar columns: give a comma-separated list of columns, or none");
    char *c = columns ? gen_strdup(columns) : NULL;
    GEN_RETURN_IF(columns && !c, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    free(m->seq_calendar);
    m->seq_calendar = c;
    return GENESIS_OK;
}

genesis_model_kind genesis_model_get_kind(const genesis_model *m) {
    return m ? m->vt->kind : (genesis_model_kind)0;
}

genesis_status genesis_model_set_param(genesis_model *m, genesis_param p, double v) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    GEN_TRY(gen_param_check(m->ctx, m->vt->kind, m->fitted, (int)p, v));
    GEN_RETURN_IF(m->resume && v != m->param[p], m->ctx, GENESIS_ERR_STATE,
                  "`%s` is %g in the checkpoint being continued, not %g; a resumed fit keeps the "
                  "checkpoint's settings",
                  gen_param_name((int)p), m->param[p], v);
    m->param[p] = v;
    m->param_given[p] = 1;
    if (p == GENESIS_P_CLAMP_RANGE) m->tf.clamp_range = (int)v;
    if (p == GENESIS_P_EPSILON) gen_model_device_defaults(m); /* DP keeps the CPU's budget */
    return GENESIS_OK;
}

genesis_status genesis_model_get_param(const genesis_model *m, genesis_param p, double *v) {
    if (!m || !v || (int)p < 0 || (int)p >= GEN_NPARAMS) return GENESIS_ERR_INVALID_ARG;
    *v = m->param[p];
    return GENESIS_OK;
}

genesis_status genesis_model_skipped_steps(const genesis_model *m, int64_t *out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    *out = m->fp16_skipped;
    return GENESIS_OK;
}

genesis_status gen_model_state(const genesis_model *m, float **out, size_t *n, size_t *seg,
                               int *nseg) {
    const float *ptr[16];
    size_t cnt[16], tot = 0;
    *out = NULL;
    *n = 0;
    GEN_RETURN_IF(!m->impl || !m->vt->state, m->ctx, GENESIS_ERR_STATE, "the model has no state yet");
    int k = m->vt->state(m, ptr, cnt, 16);
    for (int i = 0; i < k; i++) tot += cnt[i];
    float *h = gen_calloc(tot, sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory copying the model state");
    for (int i = 0, off = 0; i < k; off += (int)cnt[i], i++)
        m->be->ops->download(m->be, h + off, ptr[i], cnt[i] * sizeof(float));
    *out = h;
    *n = tot;
    for (int i = 0; seg && i < k; i++) seg[i] = cnt[i];
    if (nseg) *nseg = k;
    return GENESIS_OK;
}

gen_act_span *gen_model_act_spans(const gen_transformer *tf) {
    gen_act_span *s = calloc((size_t)(tf->nspans ? tf->nspans : 1), sizeof *s);
    if (!s) return NULL;
    for (int i = 0; i < tf->nspans; i++) {
        s[i].start = tf->spans[i].start;
        s[i].len = tf->spans[i].len;
        s[i].softmax = tf->spans[i].kind == GEN_SPAN_SOFTMAX;
    }
    return s;
}

/* The last safe point's state a fit kept for a stop between safe points (checkpoint.c). */
static void free_ckpt_snap(genesis_model *m) {
    free(m->ckpt_snap);
    m->ckpt_snap = NULL;
    m->ckpt_snap_len = 0;
}

genesis_status genesis_model_fit(genesis_model *m, const genesis_table *t,
                                 genesis_progress_fn progress, void *user) {
    if (!m || !t) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = m->ctx;
    gen_clear_error(ctx);
    GEN_RETURN_IF(m->fitted, ctx, GENESIS_ERR_STATE,
                  "this model is already fitted; create a new model to fit again");
    GEN_RETURN_IF(t->nrows < 1 || t->ncols < 1, ctx, GENESIS_ERR_DATA,
                  "the table has no rows or no columns; nothing to learn");
    /* with one or two rows every generated row would copy a real one */
    GEN_RETURN_IF(t->nrows < GEN_MIN_FIT_ROWS, ctx, GENESIS_ERR_DATA,
                  "%s%sthe table has %lld row%s; a model needs at least %d rows to learn from "
                  "(with fewer, every generated row would copy a real one) — add rows",
                  t->source ? t->source : "", t->source ? ": " : "", (long long)t->nrows,
                  t->nrows == 1 ? "" : "s", GEN_MIN_FIT_ROWS);
    GEN_RETURN_IF(t->shape_only, ctx, GENESIS_ERR_DATA,
                  "the table was made with `genesis_table_add_shape` and holds no values; it "
                  "is for memory estimates only");
    int ck = m->ckpt_path || m->resume; /* writes or continues a checkpoint */
    if (gen_comm_size(ctx->comm) > 1) { /* the ranks refuse together: none waits for another */
        GEN_TRY(gen_comm_check_same(ctx->comm, "whether a checkpoint file is set", (double)ck));
        GEN_RETURN_IF(ck, ctx, GENESIS_ERR_UNSUPPORTED,
                      "checkpoints are not supported with data-parallel training (%d ranks) in "
                      "this version; train on one rank, or leave `genesis_model_set_checkpoint` "
                      "out",
                      gen_comm_size(ctx->comm));
    }
    GEN_RETURN_IF(ck && !m->vt->train_save, ctx, GENESIS_ERR_UNSUPPORTED,
                  "%s models cannot write checkpoints", m->vt->name);
    if (ck) {
        m->fit_fp = gen_table_fingerprint(t);
        m->fit_rows = t->nrows;
        m->fit_cols = t->ncols;
    }
    if (m->resume) { /* continue a checkpoint: its seed, on the table it was made on */
        GEN_RETURN_IF(m->fit_fp != m->resume_fp, ctx, GENESIS_ERR_DATA,
                      "%s%sthis is not the table the checkpoint %s was made on (%lld rows x %d "
                      "columns then, %lld x %d now%s); resume with the same input file and the "
                      "same reading options",
                      t->source ? t->source : "", t->source ? ": " : "", m->ckpt_path,
                      (long long)m->resume_rows, m->resume_cols, (long long)t->nrows, t->ncols,
                      m->resume_rows == t->nrows && m->resume_cols == t->ncols
                          ? ", but different values, names or types" : "");
        /* the generation-only network read from the checkpoint's model section goes: the fit
         * builds the training network and restores it (gen_ckpt_resume_reader) */
        if (m->vt->free) m->vt->free(m);
        gen_transformer_free(&m->tf);
        m->loaded = 0;
    } else {
        m->seed = ctx->seed;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    m->ckpt_last_s = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec; /* for ckpt_minutes */
    m->ckpt_point_s = m->ckpt_last_s; /* the safe points of this fit (checkpoint.c) */
    m->ckpt_points = 0;
    m->ckpt_written = 0;
    if (gen_comm_size(ctx->comm) > 1) { /* data parallel: the same table and settings everywhere */
        gen_comm *c = ctx->comm;
        GEN_TRY(gen_comm_check_same(c, "the seed (high 32 bits)", (double)(m->seed >> 32)));
        GEN_TRY(gen_comm_check_same(c, "the seed (low 32 bits)", (double)(m->seed & 0xFFFFFFFFu)));
        GEN_TRY(gen_comm_check_same(c, "the number of rows", (double)t->nrows));
        GEN_TRY(gen_comm_check_same(c, "the number of columns", (double)t->ncols));
        GEN_TRY(gen_comm_check_same(c, "the model kind", (double)m->vt->kind));
        for (int p = 0; p < GEN_NPARAMS; p++)
            GEN_TRY(gen_comm_check_same(c, gen_param_name(p), m->param[p]));
    }
    if (m->vt->fit_table) { /* sequence models read the table themselves */
        genesis_status fst = m->vt->fit_table(m, t, progress, user);
        free_ckpt_snap(m);
        if (fst != GENESIS_OK) {
            if (m->vt->free) m->vt->free(m);
            return fst;
        }
        m->fitted = 1;
        free(m->resume);
        m->resume = NULL;
        return GENESIS_OK;
    }
    GEN_TRY(gen_check_fit_budget(m, t));
    gen_transform_opts to;
    gen_transform_opts_default(&to);
    to.max_modes = gen_param_i(m, GENESIS_P_MAX_MODES);
    to.max_categories = gen_param_i(m, GENESIS_P_MAX_CATEGORIES);
    to.point_masses = gen_param_i(m, GENESIS_P_POINT_MASSES);
    to.clamp_range = gen_param_i(m, GENESIS_P_CLAMP_RANGE);
    to.vgm_max_rows = (int64_t)m->param[GENESIS_P_VGM_MAX_ROWS];
    to.quantile = gen_param_i(m, GENESIS_P_QUANTILE);
    to.seed = m->seed;
    /* differential privacy (docs/privacy.md): the transformer is fitted on noisy histograms
     * and the network trains on the real table recoded to what they released */
    genesis_table *recoded = NULL;
    memset(&m->dp, 0, sizeof m->dp);
    genesis_status st = gen_dp_requested(m) ? gen_dp_fit_transformer(m, t, &to, &recoded)
                                            : gen_transformer_fit(ctx, &m->tf, t, &to);
    gen_encoded enc;
    memset(&enc, 0, sizeof enc);
    if (st == GENESIS_OK) st = gen_transformer_transform(ctx, &m->tf, recoded ? recoded : t, &enc);
    gen_table_destroy(recoded);
    if (st == GENESIS_OK) {
        st = m->vt->fit(m, &enc, progress, user);
        free_ckpt_snap(m);
        gen_encoded_free(&enc);
    }
    gen_table_destroy(m->dp_pseudo);
    m->dp_pseudo = NULL;
    if (st != GENESIS_OK) { /* leave the model as created, so that fit can be called again */
        if (m->vt->free) m->vt->free(m);
        gen_transformer_free(&m->tf);
        memset(&m->dp, 0, sizeof m->dp);
        return st;
    }
    m->fitted = 1;
    free(m->resume);
    m->resume = NULL;
    return GENESIS_OK;
}

int genesis_model_encoded_dim(const genesis_model *m) {
    return (m && m->fitted) ? gen_model_row_dim(m) : 0;
}

/* ---- conditions ----------------------------------------------------------------------- */

genesis_status genesis_model_set_condition(genesis_model *m, const char *column,
                                           const char *value) {
    if (!m || !column || !value) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = m->ctx;
    GEN_RETURN_IF(!m->fitted, ctx, GENESIS_ERR_STATE, "the model is not fitted; fit or load one first");
    GEN_RETURN_IF(!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_CONDITIONS), ctx,
                  GENESIS_ERR_UNSUPPORTED,
                  "conditions need a conditional model (CTGAN); %s has no conditional vector",
                  m->vt->name);
    int col = -1, disc = 0, d = -1;
    for (int c = 0; c < m->tf.ncols; c++) {
        int is_disc = m->tf.cols[c].type == GENESIS_COLUMN_CATEGORICAL;
        if (strcmp(m->tf.cols[c].name, column) == 0) {
            col = c;
            d = is_disc ? disc : -1;
            break;
        }
        disc += is_disc;
    }
    GEN_RETURN_IF(col < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "`genesis_model_set_condition`: no column named '%s' in the model", column);
    const gen_col_transform *ct = &m->tf.cols[col];
    GEN_RETURN_IF(d < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "`genesis_model_set_condition`: column '%s' is continuous; conditions apply to "
                  "categorical columns",
                  column);
    int slot = -1;
    for (int pass = 0; pass < 2 && slot < 0; pass++) {
        for (int k = 0; k < ct->n_slots; k++) {
            const char *txt = ct->slot_text[k];
            if (!txt) continue;
            if (pass == 0 ? strcmp(txt, value) == 0 : 0) { slot = k; break; }
            if (pass == 1) { /* match ignoring surrounding spaces */
                const char *a = txt, *b = value;
                while (*a == ' ' || *a == '\t') a++;
                while (*b == ' ' || *b == '\t') b++;
                size_t la = strlen(a), lb = strlen(b);
                while (la && (a[la - 1] == ' ' || a[la - 1] == '\t')) la--;
                while (lb && (b[lb - 1] == ' ' || b[lb - 1] == '\t')) lb--;
                if (la == lb && memcmp(a, b, la) == 0) { slot = k; break; }
            }
        }
    }
    GEN_RETURN_IF(slot < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "`genesis_model_set_condition`: value '%s' was never seen in column '%s' (or is "
                  "one of its pooled rare levels); use a value present in the training data",
                  value, column);
    for (int i = 0; i < m->nconds; i++)
        GEN_RETURN_IF(m->cond[i].column == d && m->cond[i].slot == slot, ctx,
                      GENESIS_ERR_INVALID_ARG,
                      "`genesis_model_set_condition`: '%s=%s' is given twice", column, value);
    GEN_RETURN_IF(m->nconds >= GEN_MAX_CONDITIONS, ctx, GENESIS_ERR_INVALID_ARG,
                  "too many conditions (at most %d)", GEN_MAX_CONDITIONS);
    m->cond[m->nconds].column = d;
    m->cond[m->nconds].slot = slot;
    m->cond[m->nconds].table_column = col;
    m->nconds++;
    return GENESIS_OK;
}

void genesis_model_clear_conditions(genesis_model *m) {
    if (m) m->nconds = 0;
}
