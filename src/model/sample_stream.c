/*
 * sample_stream.c — the sampling pipeline: genesis_sampler (an iterator over batches of
 * generated rows), and genesis_model_sample / _sample_encoded / _sample_csv built on it.
 *
 * A worker thread fills batch k+1 while the caller consumes batch k (two slots, a mutex and
 * a condition variable). With several sampling devices (genesis_model_set_sample_devices)
 * there is one such lane per device, each with its own copy of the generator, its worker and
 * its two slots: batch j is lane j mod K's, and the caller takes the batches in row order.
 * A batch is a whole number of the model's generation groups; each group is generated,
 * inverse-transformed (a sequence model's own decode: TimeGAN) and pinned to the conditions
 * exactly as a lone group would be: every random draw of a row is a function of the seed,
 * the call and the row's number (rng.h gen_rng_row; docs/memory.md "Several devices"), so
 * the bytes written do not depend on the batch size, the thread count or the devices. A sequence model's n
 * counts sequences of seq-len rows. The CSV writer formats each batch in blocks of rows on
 * several threads and writes the blocks in order, so its memory does not grow with the batch.
 *
 * Conditions (genesis_model_set_condition): conditions on different columns all hold on
 * every row; several values of one column take turns row by row. The generator's
 * conditional vector carries one condition per row, the columns taking turns; every
 * conditioned column is set to its value in the decoded row. No rejection loop.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "model_io.h"
#include "sample_size.h"
#include "table.h"

/* ---- batches of decoded rows (the public genesis_batch) -------------------------------- */

struct genesis_batch {
    const gen_transformer *tf;
    const gen_rowbatch *rb;
    int64_t nrows;
};

int64_t genesis_batch_nrows(const genesis_batch *b) { return b ? b->nrows : 0; }
int genesis_batch_ncols(const genesis_batch *b) { return b ? b->tf->ncols : 0; }

static int batch_ok(const genesis_batch *b, int64_t row, int col) {
    return b && row >= 0 && row < b->nrows && col >= 0 && col < b->tf->ncols;
}

int genesis_batch_is_missing(const genesis_batch *b, int64_t row, int col) {
    if (!batch_ok(b, row, col)) return 1;
    if (b->tf->cols[col].type == GENESIS_COLUMN_CONTINUOUS) return isnan(b->rb->num[col][row]);
    return b->rb->cat[col][row] == b->tf->cols[col].missing_slot;
}

double genesis_batch_number(const genesis_batch *b, int64_t row, int col) {
    if (!batch_ok(b, row, col) || b->tf->cols[col].type != GENESIS_COLUMN_CONTINUOUS) return NAN;
    return b->rb->num[col][row];
}

const char *genesis_batch_text(const genesis_batch *b, int64_t row, int col, char *buf,
                               size_t cap) {
    if (!batch_ok(b, row, col) || !buf || cap == 0) return "";
    size_t len = 0;
    const char *s = gen_rowbatch_text(b->tf, b->rb, (int)row, col, buf, cap, &len);
    if (s != buf) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, s, n);
        buf[n] = 0;
    }
    return buf;
}

genesis_status genesis_batch_column(const genesis_batch *b, int col, double *num,
                                    int32_t *codes) {
    if (!batch_ok(b, 0, col) && !(b && b->nrows == 0 && col >= 0 && col < b->tf->ncols))
        return GENESIS_ERR_INVALID_ARG;
    const gen_col_transform *ct = &b->tf->cols[col];
    if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
        if (!num) return GENESIS_ERR_INVALID_ARG;
        memcpy(num, b->rb->num[col], (size_t)b->nrows * sizeof *num);
        return GENESIS_OK;
    }
    if (!codes) return GENESIS_ERR_INVALID_ARG;
    /* slots: the kept levels, then the rare slot, then the missing slot (transform.c); the
     * numbering of genesis_model_column_level is the kept levels, then the pooled ones */
    int32_t kept = ct->n_slots - (ct->missing_slot >= 0) - (ct->rare_slot >= 0);
    const int32_t *slot = b->rb->cat[col];
    const int32_t *pick = b->rb->rare_pick[col];
    for (int64_t r = 0; r < b->nrows; r++) {
        int32_t s = slot[r], k = -1;
        if (s >= 0 && s < kept) {
            k = s;
        } else if (s == ct->rare_slot && ct->rare_slot >= 0 && pick && pick[r] >= 0 &&
                   pick[r] < ct->n_rare) {
            k = kept + pick[r];
        }
        codes[r] = k;
    }
    return GENESIS_OK;
}

/* A window of rows [off, off + rows) of `src` as a row batch of its own (pointer arrays
 * owned by `view`, allocated with rb_view_alloc). */
typedef struct rb_view {
    gen_rowbatch rb;
} rb_view;

static int rb_view_alloc(rb_view *v, int ncols) {
    size_t n = (size_t)(ncols > 0 ? ncols : 1);
    v->rb.num = calloc(n, sizeof *v->rb.num);
    v->rb.cat = calloc(n, sizeof *v->rb.cat);
    v->rb.rare_pick = calloc(n, sizeof *v->rb.rare_pick);
    return v->rb.num && v->rb.cat && v->rb.rare_pick ? 0 : -1;
}

static void rb_view_free(rb_view *v) {
    free(v->rb.num);
    free(v->rb.cat);
    free(v->rb.rare_pick);
}

static const gen_rowbatch *rb_view_set(rb_view *v, const gen_rowbatch *src, int64_t off,
                                       int rows) {
    v->rb.B = rows;
    v->rb.ncols = src->ncols;
    for (int c = 0; c < src->ncols; c++) {
        v->rb.num[c] = src->num[c] ? src->num[c] + off : NULL;
        v->rb.cat[c] = src->cat[c] ? src->cat[c] + off : NULL;
        v->rb.rare_pick[c] = src->rare_pick[c] ? src->rare_pick[c] + off : NULL;
    }
    return &v->rb;
}

/* ---- the iterator ---------------------------------------------------------------------- */

typedef struct slot {
    float *x;              /* C x dim generator output */
    gen_rowbatch rb;       /* C decoded rows (not in encoded mode) */
    int64_t rows;
    int full;
    genesis_status st;
} slot;

/* One generating stream: the sampled model itself or its copy on another device, its two
 * slots and its worker thread. Batch j (rows [jC, (j + 1)C)) is lane j mod K's, in slot
 * (j / K) mod 2 of that lane. */
typedef struct lane {
    struct genesis_sampler *s;
    genesis_model *m;      /* generates this lane's batches */
    genesis_ctx *ctx;      /* the copy's own context (NULL: the sampled model's) */
    int k;                 /* lane index */
    slot slots[2];
    rb_view view;
    int threaded;
    pthread_t th;
} lane;

struct genesis_sampler {
    genesis_model *m;
    int64_t n, C, G, consumed, next;   /* next: the batch the caller takes next */
    int dim, encoded, threaded, K;
    lane *lanes;                       /* [K] */
    slot *holding;                     /* the slot the caller holds */
    gen_rng dec;                       /* a sequence model's decode (one lane) */
    gen_row_draws draws;               /* the tabular decode's row-numbered draws */
    /* conditions expanded per position in a group */
    gen_condition *rowcond;   /* [G] the conditional vector's condition for each row */
    int ncolconds;            /* distinct conditioned columns */
    int *pin_col;             /* [ncolconds] table column */
    int32_t *pin_slot;        /* [ncolconds * G] the value of that column on each row */
    genesis_batch batch;
    int stop;
    double t0;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Conditions -> per-row conditional vector entries and pinned values (see the top). */
static genesis_status expand_conditions(genesis_sampler *s) {
    genesis_model *m = s->m;
    int nc = m->nconds;
    if (nc == 0) return GENESIS_OK;
    int64_t G = s->G;
    int cols[GEN_MAX_CONDITIONS], cnt[GEN_MAX_CONDITIONS], first[GEN_MAX_CONDITIONS];
    int ncols = 0;
    for (int i = 0; i < nc; i++) {
        int j = 0;
        while (j < ncols && cols[j] != m->cond[i].table_column) j++;
        if (j == ncols) {
            cols[ncols] = m->cond[i].table_column;
            cnt[ncols] = 0;
            first[ncols] = i;
            ncols++;
        }
        cnt[j]++;
    }
    s->ncolconds = ncols;
    s->rowcond = calloc((size_t)G, sizeof *s->rowcond);
    s->pin_col = calloc((size_t)ncols, sizeof *s->pin_col);
    s->pin_slot = calloc((size_t)ncols * (size_t)G, sizeof *s->pin_slot);
    if (!s->rowcond || !s->pin_col || !s->pin_slot)
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory for the conditions");
    for (int j = 0; j < ncols; j++) {
        s->pin_col[j] = cols[j];
        for (int64_t r = 0; r < G; r++) { /* the (r mod count)-th condition of column j */
            int k = (int)(r % cnt[j]), i = first[j];
            for (int seen = 0; i < nc; i++)
                if (m->cond[i].table_column == cols[j] && seen++ == k) break;
            s->pin_slot[(size_t)j * (size_t)G + (size_t)r] = m->cond[i].slot;
            if (r % ncols == j) s->rowcond[r] = m->cond[i];
        }
    }
    return GENESIS_OK;
}

/* Generates the rows [row0, row0 + rows) of the call into slot `sl` of lane `ln`, group by
 * group (row0 is a multiple of the group). */
static genesis_status produce(genesis_sampler *s, lane *ln, slot *sl, int64_t row0, int64_t rows) {
    genesis_model *m = ln->m;
    for (int64_t off = 0; off < rows; off += s->G) {
        float *x = sl->x + (size_t)off * (size_t)s->dim;
        genesis_status st = m->vt->generate(m, (int)s->G, s->rowcond,
                                            s->rowcond ? (int)s->G : 0, row0 + off, x);
        if (st != GENESIS_OK) return st;
        if (s->encoded) continue;
        int g = (int)(rows - off < s->G ? rows - off : s->G);
        gen_rowbatch *v = (gen_rowbatch *)rb_view_set(&ln->view, &sl->rb, off, g);
        if (m->vt->decode) {
            m->vt->decode(m, x, g, &s->dec, v);
        } else {
            gen_row_draws d = s->draws;
            d.row0 = row0 + off;
            gen_transformer_inverse(&m->tf, x, s->dim, g, &d, v);
        }
        for (int j = 0; j < s->ncolconds; j++) {
            const int32_t *ps = s->pin_slot + (size_t)j * (size_t)s->G;
            int32_t *cat = v->cat[s->pin_col[j]];
            for (int r = 0; r < g; r++) cat[r] = ps[r];
        }
    }
    return GENESIS_OK;
}

static int64_t batch_rows_of(const genesis_sampler *s, int64_t j) {
    int64_t r0 = j * s->C;
    return s->n - r0 < s->C ? s->n - r0 : s->C;
}

static slot *slot_of(genesis_sampler *s, int64_t j) {
    return &s->lanes[j % s->K].slots[(j / s->K) & 1];
}

static void *worker(void *arg) {
    lane *ln = arg;
    genesis_sampler *s = ln->s;
    gen_backend *be = ln->m->be;
    if (be->ops->thread_attach) be->ops->thread_attach(be);
    for (int64_t j = ln->k;; j += s->K) {
        slot *sl = slot_of(s, j);
        pthread_mutex_lock(&s->mu);
        while (sl->full && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        int done = s->stop || j * s->C >= s->n;
        pthread_mutex_unlock(&s->mu);
        if (done) break;
        int64_t rows = batch_rows_of(s, j);
        genesis_status st = produce(s, ln, sl, j * s->C, rows);
        pthread_mutex_lock(&s->mu);
        sl->rows = rows;
        sl->st = st;
        sl->full = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        if (st != GENESIS_OK) break;
    }
    return NULL;
}

static void slot_free(gen_backend *be, slot *sl) {
    if (sl->x) be->ops->host_free(be, sl->x);
    gen_rowbatch_free(&sl->rb);
}

void genesis_sampler_free(genesis_sampler *s) {
    if (!s) return;
    if (s->threaded) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    for (int k = 0; s->lanes && k < s->K; k++)
        if (s->lanes[k].threaded) pthread_join(s->lanes[k].th, NULL);
    if (s->threaded) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    for (int k = 0; s->lanes && k < s->K; k++) {
        lane *ln = &s->lanes[k];
        if (ln->m)
            for (int i = 0; i < 2; i++) slot_free(ln->m->be, &ln->slots[i]);
        rb_view_free(&ln->view);
        if (ln->ctx) { /* a copy on another device */
            genesis_model_free(ln->m);
            genesis_ctx_free(ln->ctx);
        }
    }
    free(s->lanes);
    s->m->sampling = 0;
    free(s->rowcond);
    free(s->pin_col);
    free(s->pin_slot);
    free(s);
}

/* The generator of lane k: the model itself when it runs on the lane's device, else a copy
 * made from its model-file bytes on a context for that device (same seed, threads, log and
 * memory budget). `bytes` is made once, at the first copy. */
static genesis_status lane_model(genesis_sampler *s, int k, gen_bytes *bytes) {
    genesis_model *m = s->m;
    lane *ln = &s->lanes[k];
    int on_cpu = m->gpu <= 0, dev = on_cpu ? -1 : m->sample_dev[k];
    int mine = 0; /* whether an earlier lane already generates with the model itself */
    for (int i = 0; i < k; i++) mine |= s->lanes[i].m == m;
    if (!mine && (on_cpu || dev == m->gpu - 1)) {
        ln->m = m;
        return GENESIS_OK;
    }
    if (!bytes->p) GEN_TRY(gen_model_file_bytes(m, 0, bytes));
    genesis_status st = gen_ctx_clone(m->ctx, on_cpu ? GENESIS_DEVICE_CPU : GENESIS_DEVICE_CUDA,
                                      on_cpu ? 0 : dev, &ln->ctx);
    if (st != GENESIS_OK) return gen_set_error(m->ctx, st, "out of memory for a sampling device");
    st = gen_model_read_mem(ln->ctx, "the sampled model", bytes->p, bytes->len, 0, &ln->m);
    if (st == GENESIS_OK && !on_cpu && ln->ctx->backend_gpu != dev + 1)
        st = gen_set_error(ln->ctx, GENESIS_ERR_UNSUPPORTED,
                           "GPU %d: the CUDA backend did not start there", dev);
    if (st != GENESIS_OK)
        return gen_set_error(m->ctx, st, "sampling on %s %d: %s", on_cpu ? "CPU stream" : "GPU",
                             on_cpu ? k : dev, genesis_errmsg(ln->ctx));
    memcpy(ln->m->cond, m->cond, sizeof m->cond);
    ln->m->nconds = m->nconds;
    return GENESIS_OK;
}

genesis_status genesis_sampler_create(genesis_model *m, int64_t n, int encoded,
                                      genesis_sampler **out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    genesis_ctx *ctx = m->ctx;
    GEN_RETURN_IF(!m->fitted, ctx, GENESIS_ERR_STATE, "the model is not fitted; fit or load one first");
    GEN_RETURN_IF(n < 0, ctx, GENESIS_ERR_INVALID_ARG, "the number of rows must be >= 0, got %lld",
                  (long long)n);
    /* A sequence model (TimeGAN) counts sequences: each is seq-len rows (time steps) */
    int64_t unit = gen_model_unit_rows(m);
    GEN_RETURN_IF(n > INT64_MAX / unit, ctx, GENESIS_ERR_INVALID_ARG,
                  "%lld sequences of %lld rows are too many rows", (long long)n, (long long)unit);
    n *= unit;
    GEN_RETURN_IF(m->sampling, ctx, GENESIS_ERR_STATE,
                  "this model is already sampling (free its genesis_sampler first)");
    int K = gen_sample_lanes(m);
    GEN_RETURN_IF(K > 1 && m->vt->decode, ctx, GENESIS_ERR_UNSUPPORTED,
                  "%s samples on one device (its noise and time grids continue from one group "
                  "of sequences to the next); set one sampling device",
                  m->vt->name);
    int64_t C = m->sample_batch;
    if (C == 0) GEN_TRY(genesis_optimize_batch_size(m, NULL, GENESIS_WORKLOAD_SAMPLE, &C));
    C = gen_sample_round_batch(m, C);
    if (n > 0 && C > n) C = gen_sample_round_batch(m, n); /* no bigger than needed */
    if (n > 0 && K > (n + C - 1) / C) K = (int)((n + C - 1) / C); /* no idle device */
    genesis_sampler *s = calloc(1, sizeof *s);
    GEN_RETURN_IF(!s, ctx, GENESIS_ERR_NOMEM, "out of memory for the sampler");
    s->m = m;
    m->sampling = 1;
    s->n = n;
    s->C = C;
    s->G = gen_sample_group(m);
    s->dim = gen_model_row_dim(m);
    s->encoded = encoded != 0;
    s->K = K;
    s->lanes = calloc((size_t)K, sizeof *s->lanes);
    if (!s->lanes) {
        genesis_sampler_free(s);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the sampler");
    }
    /* the call's number and streams, before any lane's model copy generates */
    gen_rng_init(&s->dec, ctx->seed ^ (m->sample_calls * 0x9E3779B97F4A7C15ull), GEN_STREAM_DECODE);
    s->draws = (gen_row_draws){ctx->seed ^ (m->sample_calls * 0x9E3779B97F4A7C15ull),
                               GEN_STREAM_DECODE, 0, 0};
    m->sample_calls++;
    genesis_status st = GENESIS_OK;
    gen_bytes bytes = {0};
    for (int k = 0; k < K && st == GENESIS_OK; k++) {
        s->lanes[k].s = s;
        s->lanes[k].k = k;
        st = lane_model(s, k, &bytes);
        if (st == GENESIS_OK) s->lanes[k].m->sample_calls = m->sample_calls;
    }
    free(bytes.p);
    if (st != GENESIS_OK) {
        genesis_sampler_free(s);
        return st;
    }
    size_t xs = gen_mul_size(gen_mul_size((size_t)C, (size_t)s->dim), sizeof(float));
    int64_t nbatches = n > 0 ? (n + C - 1) / C : 2 * (int64_t)K;
    for (int k = 0; k < K && st == GENESIS_OK; k++) {
        lane *ln = &s->lanes[k];
        /* the second buffer only when a second batch of this lane follows (estimate.c counts
         * the same) */
        int64_t mine = nbatches > k ? (nbatches - k + K - 1) / K : 0;
        int nslots = mine > 1 ? 2 : (int)mine;
        for (int i = 0; i < nslots && st == GENESIS_OK; i++) {
            ln->slots[i].x = xs ? ln->m->be->ops->host_alloc(ln->m->be, xs) : NULL; /* pinned on a GPU */
            if (!ln->slots[i].x) st = GENESIS_ERR_NOMEM;
            if (st == GENESIS_OK && !s->encoded) st = gen_rowbatch_alloc(&m->tf, (int)C, &ln->slots[i].rb);
        }
        if (st == GENESIS_OK && rb_view_alloc(&ln->view, m->tf.ncols) != 0) st = GENESIS_ERR_NOMEM;
    }
    if (st != GENESIS_OK) {
        genesis_sampler_free(s);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                             "out of memory for sampling batches of %lld rows; set a smaller "
                             "batch (`genesis_model_set_sample_batch`) or memory limit "
                             "(`genesis_ctx_set_memory_budget(limit_bytes)`)",
                             (long long)C);
    }
    st = expand_conditions(s);
    if (st != GENESIS_OK) {
        genesis_sampler_free(s);
        return st;
    }
    /* identifier columns: ids [id0, id0 + n) belong to this call, numbered by row */
    if (!s->encoded && !m->vt->decode) s->draws.id0 = gen_transformer_take_ids(&m->tf, n);
    s->t0 = now_s();
    if (pthread_mutex_init(&s->mu, NULL) == 0) {
        if (pthread_cond_init(&s->cv, NULL) == 0) {
            s->threaded = 1;
            for (int k = 0; k < K; k++)
                if (pthread_create(&s->lanes[k].th, NULL, worker, &s->lanes[k]) == 0)
                    s->lanes[k].threaded = 1;
                else
                    break;
            if (!s->lanes[0].threaded) {
                pthread_cond_destroy(&s->cv);
                s->threaded = 0;
            }
        }
        if (!s->threaded) pthread_mutex_destroy(&s->mu);
    }
    int all = 1;
    for (int k = 0; k < K; k++) all &= s->lanes[k].threaded;
    if (s->threaded && !all) { /* some lanes have no thread: stop the others, work inline */
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        for (int k = 0; k < K; k++)
            if (s->lanes[k].threaded) pthread_join(s->lanes[k].th, NULL), s->lanes[k].threaded = 0;
        for (int k = 0; k < K; k++)
            for (int i = 0; i < 2; i++) s->lanes[k].slots[i].full = 0;
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        s->threaded = 0;
        s->stop = 0;
    }
    if (!s->threaded) gen_log(ctx, GENESIS_LOG_DEBUG, "sampling without worker threads");
    else if (K > 1) gen_log(ctx, GENESIS_LOG_INFO, "sampling on %d %s, batches of %lld rows in turn", K,
                            m->gpu > 0 ? "GPUs" : "CPU streams", (long long)C);
    *out = s;
    return GENESIS_OK;
}

int64_t genesis_sampler_batch_rows(const genesis_sampler *s) { return s ? s->C : 0; }

/* Releases the slot the caller held and returns the next full one (NULL at the end). */
static genesis_status next_slot(genesis_sampler *s, slot **out) {
    *out = NULL;
    genesis_model *m = s->m;
    if (!s->threaded) { /* no workers: produce in the caller's thread, batch after batch */
        if (s->holding) s->holding->full = 0;
        s->holding = NULL;
        if (s->consumed >= s->n) return GENESIS_OK;
        lane *ln = &s->lanes[s->next % s->K];
        slot *sl = &ln->slots[0];
        int64_t rows = batch_rows_of(s, s->next);
        genesis_status st = produce(s, ln, sl, s->next * s->C, rows);
        if (st != GENESIS_OK) {
            if (ln->ctx) return gen_set_error(m->ctx, st, "%s", genesis_errmsg(ln->ctx));
            return st;
        }
        sl->rows = rows;
        sl->full = 1;
        s->holding = sl;
        s->next++;
        s->consumed += rows;
        *out = sl;
    } else {
        pthread_mutex_lock(&s->mu);
        if (s->holding) {
            s->holding->full = 0;
            s->holding = NULL;
            pthread_cond_broadcast(&s->cv);
        }
        if (s->consumed >= s->n) {
            pthread_mutex_unlock(&s->mu);
            return GENESIS_OK;
        }
        lane *ln = &s->lanes[s->next % s->K];
        slot *sl = slot_of(s, s->next);
        while (!sl->full) pthread_cond_wait(&s->cv, &s->mu);
        genesis_status st = sl->st;
        if (st == GENESIS_OK) {
            s->holding = sl;
            s->next++;
            s->consumed += sl->rows;
        }
        pthread_mutex_unlock(&s->mu);
        if (st != GENESIS_OK) { /* the worker set the message (in its copy's context) and stopped */
            if (ln->ctx) return gen_set_error(m->ctx, st, "%s", genesis_errmsg(ln->ctx));
            return st;
        }
        *out = sl;
    }
    if (m->sample_progress && m->sample_progress(s->consumed, s->n, now_s() - s->t0,
                                                 m->sample_progress_user))
        return gen_set_error(m->ctx, GENESIS_ERR_CANCELLED, "sampling stopped by the caller");
    return GENESIS_OK;
}

genesis_status genesis_sampler_next(genesis_sampler *s, const genesis_batch **batch) {
    if (!s || !batch) return GENESIS_ERR_INVALID_ARG;
    *batch = NULL;
    GEN_RETURN_IF(s->encoded, s->m->ctx, GENESIS_ERR_STATE,
                  "this sampler yields encoded matrices; use genesis_sampler_next_encoded");
    slot *sl;
    GEN_TRY(next_slot(s, &sl));
    if (!sl) return GENESIS_OK;
    s->batch = (genesis_batch){&s->m->tf, &sl->rb, sl->rows};
    *batch = &s->batch;
    return GENESIS_OK;
}

genesis_status genesis_sampler_next_encoded(genesis_sampler *s, const float **x, int64_t *rows,
                                            int *dim) {
    if (!s || !x || !rows) return GENESIS_ERR_INVALID_ARG;
    *x = NULL;
    *rows = 0;
    if (dim) *dim = s->dim;
    slot *sl;
    GEN_TRY(next_slot(s, &sl));
    if (!sl) return GENESIS_OK;
    *x = sl->x;
    *rows = sl->rows;
    return GENESIS_OK;
}

/* ---- settings -------------------------------------------------------------------------- */

genesis_status genesis_model_set_sample_batch(genesis_model *m, int64_t rows) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(rows < 0 || rows > (INT64_C(1) << 30), m->ctx, GENESIS_ERR_INVALID_ARG,
                  "the sampling batch must be 0 (automatic) to 2^30 rows, got %lld",
                  (long long)rows);
    m->sample_batch = rows;
    return GENESIS_OK;
}

genesis_status genesis_model_set_sample_devices(genesis_model *m, const int *devices, int n) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(n < 0 || n > GEN_MAX_DEVICES, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "sampling devices: give 0 to %d, got %d", GEN_MAX_DEVICES, n);
    GEN_RETURN_IF(n > 0 && m->gpu > 0 && !devices, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "sampling devices: the model runs on a GPU; list the GPU indices");
    for (int i = 0; m->gpu > 0 && i < n; i++) {
        GEN_RETURN_IF(devices[i] < 0 || devices[i] > 255, m->ctx, GENESIS_ERR_INVALID_ARG,
                      "sampling devices: GPU index %d is not in 0..255", devices[i]);
        for (int j = 0; j < i; j++)
            GEN_RETURN_IF(devices[j] == devices[i], m->ctx, GENESIS_ERR_INVALID_ARG,
                          "sampling devices: GPU %d is listed twice", devices[i]);
    }
    m->sample_ndev = n;
    for (int i = 0; i < n; i++) m->sample_dev[i] = m->gpu > 0 ? devices[i] : -1;
    return GENESIS_OK;
}

void genesis_model_set_sample_progress(genesis_model *m, genesis_sample_progress_fn fn,
                                       void *user) {
    if (!m) return;
    m->sample_progress = fn;
    m->sample_progress_user = user;
}

/* ---- sinks and CSV --------------------------------------------------------------------- */

static genesis_status cancelled(genesis_ctx *ctx) {
    return gen_set_error(ctx, GENESIS_ERR_CANCELLED, "sampling stopped by the caller's sink");
}

genesis_status genesis_model_sample(genesis_model *m, int64_t n, genesis_sink_fn sink,
                                    void *user) {
    if (!m || !sink) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    genesis_sampler *s;
    GEN_TRY(genesis_sampler_create(m, n, 0, &s));
    genesis_status st;
    const genesis_batch *b;
    while ((st = genesis_sampler_next(s, &b)) == GENESIS_OK && b)
        if (sink(b, user)) {
            st = cancelled(m->ctx);
            break;
        }
    genesis_sampler_free(s);
    return st;
}

genesis_status genesis_model_sample_encoded(genesis_model *m, int64_t n,
                                            genesis_encoded_sink_fn sink, void *user) {
    if (!m || !sink) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    genesis_sampler *s;
    GEN_TRY(genesis_sampler_create(m, n, 1, &s));
    genesis_status st;
    const float *x;
    int64_t rows;
    int dim;
    while ((st = genesis_sampler_next_encoded(s, &x, &rows, &dim)) == GENESIS_OK && x)
        if (sink(x, rows, dim, user)) {
            st = cancelled(m->ctx);
            break;
        }
    genesis_sampler_free(s);
    return st;
}

/* Formats rows of `rb` in blocks of GEN_FMT_BLOCK_ROWS, `nt` blocks at a time on nt threads,
 * and writes the blocks in row order. */
typedef struct fmt_block {
    char *buf;
    size_t cap, len;
    rb_view view;
    genesis_status st;
} fmt_block;

static genesis_status write_rows(gen_csv_writer *w, const gen_transformer *tf,
                                 const gen_rowbatch *rb, int64_t rows, fmt_block *blk, int nt) {
    for (int64_t base = 0; base < rows; base += (int64_t)nt * GEN_FMT_BLOCK_ROWS) {
        int nb = (int)((rows - base + GEN_FMT_BLOCK_ROWS - 1) / GEN_FMT_BLOCK_ROWS);
        if (nb > nt) nb = nt;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nb > 1)
        for (int i = 0; i < nb; i++) {
            int64_t off = base + (int64_t)i * GEN_FMT_BLOCK_ROWS;
            int r = (int)(rows - off < GEN_FMT_BLOCK_ROWS ? rows - off : GEN_FMT_BLOCK_ROWS);
            blk[i].len = 0;
            blk[i].st = gen_rowbatch_format_csv(tf, rb_view_set(&blk[i].view, rb, off, r),
                                                &blk[i].buf, &blk[i].cap, &blk[i].len);
        }
        for (int i = 0; i < nb; i++) {
            if (blk[i].st != GENESIS_OK) return blk[i].st;
            GEN_TRY(gen_csv_writer_raw(w, blk[i].buf, blk[i].len));
        }
    }
    return GENESIS_OK;
}

genesis_status genesis_model_sample_csv(genesis_model *m, int64_t n, const char *path) {
    if (!m || !path) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = m->ctx;
    gen_clear_error(ctx);
    GEN_RETURN_IF(!m->fitted, ctx, GENESIS_ERR_STATE, "the model is not fitted; fit or load one first");
    GEN_RETURN_IF(n < 0, ctx, GENESIS_ERR_INVALID_ARG, "the number of rows must be >= 0, got %lld",
                  (long long)n);
    int nt = gen_ctx_threads(ctx);
    if (nt < 1) nt = 1;
    fmt_block *blk = calloc((size_t)nt, sizeof *blk);
    GEN_RETURN_IF(!blk, ctx, GENESIS_ERR_NOMEM, "out of memory for the CSV writer");
    genesis_status st = GENESIS_OK;
    for (int i = 0; i < nt && st == GENESIS_OK; i++)
        if (rb_view_alloc(&blk[i].view, m->tf.ncols) != 0)
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the CSV writer");
    gen_csv_writer *w = NULL;
    genesis_sampler *s = NULL;
    if (st == GENESIS_OK)
        st = gen_csv_writer_open(ctx, path, m->tf.delimiter ? m->tf.delimiter : ',', &w);
    for (int c = 0; c < m->tf.ncols && st == GENESIS_OK; c++)
        st = gen_csv_writer_field(w, m->tf.cols[c].name, strlen(m->tf.cols[c].name),
                                  c == m->tf.ncols - 1);
    if (st == GENESIS_OK) st = genesis_sampler_create(m, n, 0, &s);
    const genesis_batch *b = NULL;
    while (st == GENESIS_OK && (st = genesis_sampler_next(s, &b)) == GENESIS_OK && b) {
        st = write_rows(w, &m->tf, b->rb, b->nrows, blk, nt);
        if (st == GENESIS_ERR_NOMEM) st = gen_set_error(ctx, st, "out of memory formatting CSV rows");
    }
    genesis_sampler_free(s);
    genesis_status cst = w ? gen_csv_writer_close(w, st == GENESIS_OK) : GENESIS_OK;
    for (int i = 0; i < nt; i++) {
        free(blk[i].buf);
        rb_view_free(&blk[i].view);
    }
    free(blk);
    return st != GENESIS_OK ? st : cst;
}
