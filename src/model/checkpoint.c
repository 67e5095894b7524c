/*
 * checkpoint.c — resumable training (docs/checkpoints.md). A checkpoint is a model file
 * (src/model/model_io.c) of format version 4 whose model section is followed by a training-state
 * section: magic "GENTRAIN", the units done and their total (the kind's training unit:
 * epochs, or iterations for DDPM and TimeGAN, TimeGAN's
 * over its three phases), the training table's fingerprint, the checkpoint interval, the
 * sequence columns, and the network's own state (vt->train_save: every weight, Adam moments
 * and step counters, random streams, data order). The fits call gen_ckpt_point at their safe
 * points (epoch boundaries; TimeGAN: between iterations), where nothing drawn is pending, so
 * the saved state determines the rest of the fit and a resumed fit gives the bytes of an
 * uninterrupted one. Writing a checkpoint reads state only: it draws no random number.
 * Files are written under a temporary name and renamed (gen_csv_writer), and carry the model
 * file's CRC-32. The library installs no signal handler: stopping is the progress callback's
 * non-zero return.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"
#include "model_io.h"
#include "table.h"

static double ckpt_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- pieces the networks' state is made of ---------------------------------------------- */

void gen_ckpt_wr_rng(gen_bytes *b, const gen_rng *r) {
    gen_wr_u64(b, r->key);
    gen_wr_u64(b, r->stream);
    gen_wr_u64(b, r->counter);
    for (int i = 0; i < 4; i++) gen_wr_u32(b, r->buf[i]);
    gen_wr_u32(b, (uint32_t)r->pos);
}

genesis_status gen_ckpt_rd_rng(gen_reader *rd, gen_rng *r) {
    int pos = 0;
    GEN_TRY(gen_rd_u64(rd, &r->key));
    GEN_TRY(gen_rd_u64(rd, &r->stream));
    GEN_TRY(gen_rd_u64(rd, &r->counter));
    for (int i = 0; i < 4; i++) GEN_TRY(gen_rd_u32(rd, &r->buf[i]));
    GEN_TRY(gen_rd_count(rd, 0, 4, "random stream position", &pos));
    r->pos = pos;
    return GENESIS_OK;
}

void gen_ckpt_wr_perm(gen_bytes *b, const int64_t *order, int64_t n, int width) {
    gen_wr_u64(b, (uint64_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (width == 8) gen_wr_u64(b, (uint64_t)order[i]);
        else gen_wr_u32(b, (uint32_t)order[i]);
    }
}

genesis_status gen_ckpt_rd_perm(genesis_model *m, gen_reader *r, int64_t *order, int64_t n, int width,
                                const char *what) {
    char msg[160];
    uint64_t len;
    GEN_TRY(gen_rd_u64(r, &len));
    if (len != (uint64_t)n) {
        snprintf(msg, sizeof msg, "%s has the wrong length", what);
        return gen_rd_fail(r, msg);
    }
    if (len > (r->len - r->pos) / (size_t)width) { /* checked before anything is allocated */
        snprintf(msg, sizeof msg, "%s extends past the end", what);
        return gen_rd_fail(r, msg);
    }
    unsigned char *seen = calloc((size_t)(len ? len : 1), 1);
    GEN_RETURN_IF(!seen, m->ctx, GENESIS_ERR_NOMEM, "out of memory reading a checkpoint");
    genesis_status st = GENESIS_OK;
    for (uint64_t i = 0; st == GENESIS_OK && i < len; i++) {
        uint64_t v = 0;
        if (width == 8) {
            st = gen_rd_u64(r, &v);
        } else {
            uint32_t v32 = 0;
            st = gen_rd_u32(r, &v32);
            v = v32;
        }
        if (st == GENESIS_OK && (v >= len || seen[v])) { /* every index once */
            snprintf(msg, sizeof msg, "%s is not a permutation", what);
            st = gen_rd_fail(r, msg);
        }
        if (st == GENESIS_OK) {
            seen[v] = 1;
            order[i] = (int64_t)v;
        }
    }
    free(seen);
    return st;
}

genesis_status gen_ckpt_wr_dev(const genesis_model *m, gen_bytes *b, const float *dev, size_t n) {
    float *h = gen_calloc(n ? n : 1, sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory writing a checkpoint");
    if (n) m->be->ops->download(m->be, h, dev, n * sizeof(float));
    gen_wr_u64(b, (uint64_t)n);
    gen_wr_f32s(b, h, n);
    free(h);
    return GENESIS_OK;
}

void gen_ckpt_wr_amp(const genesis_model *m, gen_bytes *b, const gen_amp *amp, int n) {
    for (int i = 0; i < n; i++) {
        gen_amp a;
        m->be->ops->download(m->be, &a, amp + i, sizeof a);
        gen_wr_f32s(b, &a.scale, 1);
        gen_wr_u32(b, (uint32_t)a.good);
        gen_wr_u32(b, (uint32_t)a.skipped);
        gen_wr_u32(b, (uint32_t)a.steps);
    }
}

genesis_status gen_ckpt_rd_amp(genesis_model *m, gen_reader *r, gen_amp *amp, int n) {
    for (int i = 0; i < n; i++) {
        gen_amp a;
        uint32_t good, skipped, steps;
        m->be->ops->download(m->be, &a, amp + i, sizeof a); /* interval, test hook: as set */
        GEN_TRY(gen_rd_f32s(r, &a.scale, 1));
        GEN_TRY(gen_rd_u32(r, &good));
        GEN_TRY(gen_rd_u32(r, &skipped));
        GEN_TRY(gen_rd_u32(r, &steps));
        if (!(a.scale >= GEN_AMP_MIN_SCALE && isfinite(a.scale)) || good > INT32_MAX ||
            skipped > INT32_MAX || steps > INT32_MAX)
            return gen_rd_fail(r, "the FP16 loss-scaling state is out of range");
        a.good = (int32_t)good;
        a.skipped = (int32_t)skipped;
        a.steps = (int32_t)steps;
        a.skip = a.found = 0;
        m->be->ops->upload(m->be, amp + i, &a, sizeof a);
    }
    return GENESIS_OK;
}

genesis_status gen_ckpt_rd_dev(genesis_model *m, gen_reader *r, float *dev, size_t n) {
    uint64_t got;
    GEN_TRY(gen_rd_u64(r, &got));
    if (got != (uint64_t)n) return gen_rd_fail(r, "a training-state array has the wrong length");
    if (n > (r->len - r->pos) / 4) return gen_rd_fail(r, "a training-state array extends past the end");
    float *h = gen_calloc(n ? n : 1, sizeof(float));
    GEN_RETURN_IF(!h, m->ctx, GENESIS_ERR_NOMEM, "out of memory reading a checkpoint");
    genesis_status st = gen_rd_f32s(r, h, n);
    for (size_t i = 0; st == GENESIS_OK && i < n; i++)
        if (!isfinite(h[i])) st = gen_rd_fail(r, "a training-state value is NaN or infinite");
    if (st == GENESIS_OK && n) m->be->ops->upload(m->be, dev, h, n * sizeof(float));
    free(h);
    return st;
}

/* ---- during a fit ------------------------------------------------------------------------ */

/* Drops the kept state (src/model/model.c frees it too, after a fit). */
static void ckpt_drop_snap(genesis_model *m) {
    free(m->ckpt_snap);
    m->ckpt_snap = NULL;
    m->ckpt_snap_len = 0;
    m->ckpt_snap_done = 0;
}

/* A safe point's state is kept in memory for a stop before the next one only for fits whose
 * unit (an epoch) is many steps, when a caller may interrupt, and when the unit took long
 * enough (GEN_CKPT_SNAP_S) that waiting for the next safe point would be felt.
 * GENESIS_CKPT_SNAP_S (seconds) replaces it: a test hook (tests/cli/checkpoint.sh keeps every
 * epoch's state with 0, so that Ctrl-C stops within an epoch of a small fit). */
#define GEN_CKPT_SNAP_S 1.0
static double ckpt_snap_s(void) {
    const char *env = getenv("GENESIS_CKPT_SNAP_S");
    char *end = NULL;
    double v = env ? strtod(env, &end) : GEN_CKPT_SNAP_S;
    return env && end != env && v >= 0 ? v : GEN_CKPT_SNAP_S;
}

genesis_status gen_ckpt_point(genesis_model *m, int64_t done, int64_t total, int stop) {
    genesis_ctx *ctx = m->ctx;
    const char *unit = m->vt->train_param == GENESIS_P_ITERATIONS ? "iteration" : "epoch";
    if (gen_ctx_interrupted(ctx)) stop = 1;
    double now = ckpt_now_s(), took = now - m->ckpt_point_s;
    m->ckpt_point_s = now;
    m->ckpt_points++;
    if (!m->ckpt_path) {
        GEN_RETURN_IF(stop, ctx, GENESIS_ERR_CANCELLED,
                      "training stopped by the caller at %s %lld of %lld", unit, (long long)done,
                      (long long)total);
        return GENESIS_OK;
    }
    int due = stop || (done < total && ((m->ckpt_every > 0 && done % m->ckpt_every == 0) ||
                                        (m->ckpt_minutes > 0 && now - m->ckpt_last_s >= 60.0 * m->ckpt_minutes)));
    int keep = !stop && done < total && ctx->interrupt && !ctx->comm &&
               m->vt->train_param == GENESIS_P_EPOCHS && took >= ckpt_snap_s();
    ckpt_drop_snap(m); /* an older state is never written in place of this one */
    if (!due && !keep) return GENESIS_OK;
    m->ckpt_done = done;
    m->ckpt_total = total;
    gen_bytes b;
    GEN_TRY(gen_model_file_bytes(m, 1, &b));
    genesis_status st = due ? gen_model_write_bytes(ctx, m->ckpt_path, b.p, b.len) : GENESIS_OK;
    if (st == GENESIS_OK && keep) {
        m->ckpt_snap = b.p;
        m->ckpt_snap_len = b.len;
        m->ckpt_snap_done = done;
    } else {
        free(b.p);
    }
    GEN_TRY(st);
    if (!due) return GENESIS_OK;
    m->ckpt_written = 1;
    m->ckpt_last_s = ckpt_now_s();
    gen_log(ctx, GENESIS_LOG_DEBUG, "checkpoint at %s %lld of %lld written to %s", unit,
            (long long)done, (long long)total, m->ckpt_path);
    GEN_RETURN_IF(stop, ctx, GENESIS_ERR_STOPPED,
                  "training stopped by the caller at %s %lld of %lld; the training state is in "
                  "%s (`genesis_model_load_checkpoint` continues it)",
                  unit, (long long)done, (long long)total, m->ckpt_path);
    return GENESIS_OK;
}

genesis_status gen_ckpt_stop_within(genesis_model *m, int64_t unit, int64_t total, int64_t step,
                                    int64_t steps) {
    genesis_ctx *ctx = m->ctx;
    if (!m->ckpt_path)
        return gen_set_error(ctx, GENESIS_ERR_CANCELLED,
                             "training stopped by the caller at step %lld of %lld of epoch %lld "
                             "of %lld",
                             (long long)step, (long long)steps, (long long)unit, (long long)total);
    if (m->ckpt_snap) {
        GEN_TRY(gen_model_write_bytes(ctx, m->ckpt_path, m->ckpt_snap, m->ckpt_snap_len));
        m->ckpt_done = m->ckpt_snap_done;
        m->ckpt_total = total;
        m->ckpt_written = 1;
        gen_log(ctx, GENESIS_LOG_DEBUG, "checkpoint at epoch %lld of %lld written to %s",
                (long long)m->ckpt_snap_done, (long long)total, m->ckpt_path);
        return gen_set_error(ctx, GENESIS_ERR_STOPPED,
                             "training stopped by the caller at step %lld of %lld of epoch %lld "
                             "of %lld; the training state at the end of epoch %lld is in %s "
                             "(`genesis_model_load_checkpoint` continues it)",
                             (long long)step, (long long)steps, (long long)unit,
                             (long long)total, (long long)m->ckpt_snap_done, m->ckpt_path);
    }
    if (m->ckpt_points == 0) /* nothing finished since the fit started */
        return gen_set_error(ctx, GENESIS_ERR_CANCELLED,
                             "training stopped by the caller at step %lld of %lld of epoch %lld "
                             "of %lld, before an epoch of this fit finished: no checkpoint "
                             "written",
                             (long long)step, (long long)steps, (long long)unit, (long long)total);
    return GENESIS_OK; /* short epochs: stop at the end of this one (gen_ckpt_point) */
}

int gen_ckpt_resume_reader(genesis_model *m, gen_reader *r, int64_t *done) {
    if (!m->resume) return 0;
    memset(r, 0, sizeof *r);
    r->p = m->resume;
    r->len = m->resume_len;
    r->path = m->ckpt_path ? m->ckpt_path : "checkpoint";
    r->ctx = m->ctx;
    r->version = GEN_FILE_VERSION_CHECKPOINT;
    *done = m->resume_done;
    return 1;
}

/* ---- public ------------------------------------------------------------------------------ */

genesis_status genesis_model_set_checkpoint(genesis_model *m, const char *path, int64_t every,
                                            double minutes) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    GEN_RETURN_IF(every < 0 || every > ((int64_t)1 << 40) || !(minutes >= 0 && minutes < 1e9),
                  m->ctx, GENESIS_ERR_INVALID_ARG,
                  "`genesis_model_set_checkpoint`: every (%lld) and minutes (%g) must be >= 0",
                  (long long)every, minutes);
    GEN_RETURN_IF(m->fitted, m->ctx, GENESIS_ERR_STATE,
                  "the model is fitted; checkpoints are set before genesis_model_fit");
    char *p = NULL;
    if (path) {
        GEN_RETURN_IF(!*path || !strcmp(path, "-"), m->ctx, GENESIS_ERR_INVALID_ARG,
                      "`genesis_model_set_checkpoint`: a checkpoint is a file that is replaced "
                      "as training goes on; give a file name (not empty, not '-')");
        p = gen_strdup(path);
        GEN_RETURN_IF(!p, m->ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    free(m->ckpt_path);
    m->ckpt_path = p;
    m->ckpt_every = path ? every : 0;
    m->ckpt_minutes = path ? minutes : 0;
    return GENESIS_OK;
}

genesis_status genesis_model_load_checkpoint(genesis_ctx *ctx, const char *path,
                                             genesis_model **out) {
    if (!ctx || !path || !out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    gen_clear_error(ctx);
    genesis_model *m = NULL;
    GEN_TRY(gen_model_read_file_ex(ctx, path, 1, &m));
    if (!m->resume) {
        genesis_model_free(m);
        return gen_set_error(ctx, GENESIS_ERR_DATA,
                             "%s: a model file without training state, not a checkpoint; a fit "
                             "cannot continue from it (`genesis_model_load` reads it for "
                             "sampling)",
                             path);
    }
    m->ckpt_path = gen_strdup(path);
    if (!m->ckpt_path) {
        genesis_model_free(m);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    m->fitted = 0; /* genesis_model_fit continues it */
    *out = m;
    return GENESIS_OK;
}

genesis_status genesis_model_checkpoint_progress(const genesis_model *m, int64_t *done,
                                                 int64_t *total) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    if (m->ckpt_written && !m->fitted) { /* a stopped fit: the state it wrote */
        if (done) *done = m->ckpt_done;
        if (total) *total = m->ckpt_total;
        return GENESIS_OK;
    }
    GEN_RETURN_IF(!m->resume, m->ctx, GENESIS_ERR_STATE,
                  "the model holds no checkpoint to continue (genesis_model_load_checkpoint)");
    if (done) *done = m->resume_done;
    if (total) *total = m->resume_total;
    return GENESIS_OK;
}
