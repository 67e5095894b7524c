/*
 * transform.c — the data transformer (transform.h): a table <-> the encoded rows the networks
 * see, and the decoded rows back to CSV text.
 *
 * Continuous columns follow the reference's mode-specific normalisation (CTGAN, Xu et al.
 * 2019, §4.2; docs/algorithms.md §T2.2): a variational Bayesian GMM (vgm.c, scikit-learn's
 * BayesianGaussianMixture; Bishop PRML ch. 10) with up to 10 components; the modes whose
 * weight exceeds 0.005 become slots; each value is encoded as alpha = (x - mu_k) / (4 sigma_k)
 * clipped to +-0.99 plus the one-hot of a mode k *sampled* from the posterior restricted to
 * the valid modes (+1e-6 smoothing, renormalised), exactly as the reference.
 * Deliberate extensions beyond the reference:
 *   - point masses: a value holding >= 10% of the non-missing rows, or the column's min or
 *     max holding >= 1% (under quantile normalisation also from 0.5% when it holds ten times
 *     the rows of the next value inward: the map sends tied end values to an isolated
 *     z = +-5.2 that no mode holds; docs/ddpm.md §1a), gets its own slot (at most
 *     GEN_MAX_POINTS, most frequent first) and is written back exactly; a value must occur at
 *     least twice to count as a mass. The GMM
 *     is fitted on the remaining values only (if fewer than 2 remain or they are all equal
 *     there is no GMM; a single remaining value becomes one more point mass);
 *   - missing values get a null slot (the last slot of the softmax span) instead of being
 *     rejected or mean-imputed (§T2.5);
 *   - decoding clamps to the real [min, max] (opts.clamp_range) and rounds integer columns
 *     half-to-even and decimal columns to their number of decimals;
 *   - the GMM may be fitted on a random subsample of vgm_max_rows values;
 *   - quantile normalisation (opts.quantile; TabDDPM's preprocessing, quantile.c): the
 *     values left after the point masses are mapped onto a standard normal through their
 *     quantiles, one mode of mean 0 and std 1 holds them (no GMM), and decoding maps back;
 *   - date columns (datetime.h) are continuous columns of UTC seconds like any other; only
 *     their text differs: written in the column's own date format, rounded to its finest
 *     field.
 *   - identifier columns (idcol.h) are constant continuous columns (nothing to learn); the
 *     decoder overwrites their values with the next fresh number (a counter kept in the
 *     column transform, from the real maximum + 1) and the text puts it in the column's
 *     shape, so ids are unique over every sample of one model.
 * Slots of a continuous column: n_modes GMM modes, then n_points point masses, then the null
 * slot (when the column had missing values). alpha is 0 for points and nulls.
 *
 * Categorical columns: one-hot over the levels in order of first appearance (RDT's
 * OneHotEncoder, §T2.4), a missing slot last; when a column has more than max_categories
 * levels, the max_categories-1 most frequent are kept and the rest pooled into one rare slot
 * (before the missing slot) that decodes to a pooled level drawn by its real frequency.
 *
 * Randomness: gen_rng (Philox) with stream GEN_STREAM_TRANSFORM, the column index and the
 * purpose mixed into the stream id, key = opts.seed; so every column is independent of the
 * others and of the thread that handles it, and the encoding is a pure function of the data
 * and the seed. Columns are fitted and encoded in parallel (ctx threads). Decoding draws a
 * row's pooled rare level from that row's own stream (gen_row_draws, rng.h gen_rng_row).
 */
#include <math.h>
#include <string.h>

#include "parallel.h"
#include "quantile.h"
#include "transform.h"

/* ---- small helpers ------------------------------------------------------------------- */

enum { TF_PURPOSE_KMEANS = 1, TF_PURPOSE_SUBSAMPLE = 2, TF_PURPOSE_ENCODE = 3 };

static uint64_t tf_stream(int col, int purpose) {
    return (uint64_t)GEN_STREAM_TRANSFORM | ((uint64_t)purpose << 8) | ((uint64_t)(col + 1) << 16);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A per-column failure, reported after the parallel section (first column wins). */
typedef struct {
    genesis_status st;
    char msg[256];
} tf_err;

static void tf_fail(tf_err *e, genesis_status st, const char *fmt, const char *name) {
    e->st = st;
    snprintf(e->msg, sizeof e->msg, fmt, name);
}

void gen_transform_opts_default(gen_transform_opts *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_modes = GEN_MAX_MODES;
    o->max_categories = 500;
    o->point_masses = 1;
    o->clamp_range = 1;
    o->vgm_max_rows = 200000;
    o->seed = 0;
}

/* ---- fit: continuous ----------------------------------------------------------------- */

typedef struct {
    double v;
    int64_t count;
} tf_run;

static int cmp_run_count(const void *a, const void *b) {
    const tf_run *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int is_point(const gen_col_transform *ct, double v) {
    for (int p = 0; p < ct->n_points; p++)
        if (ct->point_value[p] == v) return 1;
    return 0;
}

static void fit_continuous(const gen_column *col, int64_t n, int c, const gen_transform_opts *o,
                           gen_col_transform *ct, tf_err *err) {
    double *vals = malloc((size_t)(n > 0 ? n : 1) * sizeof *vals);
    double *rem = malloc((size_t)(n > 0 ? n : 1) * sizeof *rem);
    if (!vals || !rem) {
        tf_fail(err, GENESIS_ERR_NOMEM, "out of memory fitting column '%s'", ct->name);
        goto done;
    }
    int64_t nv = 0, nmiss = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = col->num[i];
        if (isnan(v)) {
            nmiss++;
        } else if (isinf(v)) {
            tf_fail(err, GENESIS_ERR_DATA,
                    "column '%s' holds an infinite value; only finite numbers can be modelled",
                    ct->name);
            goto done;
        } else {
            vals[nv++] = v;
        }
    }
    ct->has_null = nmiss > 0;
    ct->n_modes = ct->n_points = 0;
    if (nv == 0) {
        ct->min = ct->max = NAN;
        goto done;
    }
    qsort(vals, (size_t)nv, sizeof *vals, cmp_double);
    ct->min = vals[0];
    ct->max = vals[nv - 1];

    if (o->point_masses) {
        /* candidate masses, collected from the runs of the sorted values */
        tf_run cand[GEN_MAX_POINTS + 2];
        int ncand = 0;
        int64_t prev = 0; /* rows of the previous distinct value */
        for (int64_t i = 0; i < nv;) {
            int64_t j = i + 1;
            while (j < nv && vals[j] == vals[i]) j++;
            int64_t cnt = j - i;
            int edge = vals[i] == ct->min || vals[i] == ct->max;
            int mass = cnt * 10 >= nv || (edge && cnt * 100 >= nv);
            if (!mass && edge && o->quantile && cnt * 200 >= nv) {
                /* quantile map: an end spike from 0.5%, when it holds ten times the rows of the
                 * next distinct value inward (not merely a discrete column's last level) */
                int64_t inward = prev;
                if (i == 0 && j < nv) {
                    int64_t k = j + 1;
                    while (k < nv && vals[k] == vals[j]) k++;
                    inward = k - j;
                }
                mass = cnt >= 10 * inward;
            }
            if (cnt >= 2 && mass) {
                /* at most 10 values reach 10%, plus min and max: the array cannot overflow */
                if (ncand < GEN_MAX_POINTS + 2) cand[ncand++] = (tf_run){vals[i], cnt};
            }
            prev = cnt;
            i = j;
        }
        qsort(cand, (size_t)ncand, sizeof *cand, cmp_run_count);
        for (int p = 0; p < ncand && p < GEN_MAX_POINTS; p++) ct->point_value[ct->n_points++] = cand[p].v;
    }

    /* the values left after the point masses, sorted (vals is) */
    int64_t nrem = 0;
    for (int64_t i = 0; i < nv; i++)
        if (!is_point(ct, vals[i])) rem[nrem++] = vals[i];
    int spread = nrem >= 2 && rem[0] < rem[nrem - 1];
    if (spread && o->quantile) {
        ct->n_quantiles = gen_quantile_count(nrem);
        ct->quantiles = malloc((size_t)ct->n_quantiles * sizeof *ct->quantiles);
        if (!ct->quantiles) {
            ct->n_quantiles = 0;
            tf_fail(err, GENESIS_ERR_NOMEM, "out of memory fitting the quantiles of column '%s'",
                    ct->name);
            goto done;
        }
        gen_quantile_fit(rem, nrem, ct->n_quantiles, ct->quantiles);
        ct->n_modes = 1;
        ct->mode_comp[0] = 0;
        ct->mode_mean[0] = 0.0;
        ct->mode_std[0] = 1.0;
        ct->mode_weight[0] = 1.0;
    } else if (spread) {
        /* the GMM takes them in row order (its subsample and k-means draw by position) */
        nrem = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = col->num[i];
            if (!isnan(v) && !is_point(ct, v)) rem[nrem++] = v;
        }
        int64_t m = nrem;
        if (o->vgm_max_rows > 0 && nrem > o->vgm_max_rows) { /* partial Fisher-Yates */
            gen_rng rs;
            gen_rng_init(&rs, o->seed, tf_stream(c, TF_PURPOSE_SUBSAMPLE));
            m = o->vgm_max_rows < 2 ? 2 : o->vgm_max_rows;
            for (int64_t i = 0; i < m; i++) {
                int64_t j = i + (int64_t)gen_rng_below(&rs, (uint64_t)(nrem - i));
                double t = rem[i];
                rem[i] = rem[j];
                rem[j] = t;
            }
        }
        int maxk = o->max_modes < 1 ? 1 : o->max_modes > GEN_MAX_MODES ? GEN_MAX_MODES : o->max_modes;
        gen_rng rk;
        gen_rng_init(&rk, o->seed, tf_stream(c, TF_PURPOSE_KMEANS));
        if (gen_vgm_fit(&ct->gmm, rem, m, maxk, &rk) != 0) {
            tf_fail(err, GENESIS_ERR_NOMEM, "out of memory fitting the mixture of column '%s'",
                    ct->name);
            goto done;
        }
        for (int k = 0; k < ct->gmm.K; k++) {
            if (!(ct->gmm.weight[k] > 0.005) || ct->n_modes >= GEN_MAX_MODES) continue;
            ct->mode_comp[ct->n_modes] = k;
            ct->mode_mean[ct->n_modes] = ct->gmm.mean[k];
            ct->mode_std[ct->n_modes] = sqrt(ct->gmm.var[k]);
            ct->mode_weight[ct->n_modes] = ct->gmm.weight[k];
            ct->n_modes++;
        }
    } else if (nrem >= 1) {
        /* one distinct value left: it becomes a point mass. There is always room: 12
         * masses would need 10 values at >= 10% each, which leaves no other rows. */
        GEN_ASSERT(ct->n_points < GEN_MAX_POINTS);
        ct->point_value[ct->n_points++] = rem[0];
    }
done:
    free(vals);
    free(rem);
}

/* ---- fit: categorical ---------------------------------------------------------------- */

typedef struct {
    int32_t code;
    int64_t count, first;
} tf_level;

static int cmp_level_first(const void *a, const void *b) {
    const tf_level *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

static int cmp_level_freq(const void *a, const void *b) {
    const tf_level *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static void fit_categorical(const gen_column *col, int64_t n, const gen_transform_opts *o,
                            gen_col_transform *ct, tf_err *err) {
    int32_t L = col->nlevels > 0 ? col->nlevels : 0;
    tf_level *lv = calloc((size_t)(L > 0 ? L : 1), sizeof *lv);
    if (!lv) {
        tf_fail(err, GENESIS_ERR_NOMEM, "out of memory fitting column '%s'", ct->name);
        return;
    }
    for (int32_t l = 0; l < L; l++) {
        lv[l].code = l;
        lv[l].first = INT64_MAX;
    }
    int64_t nmiss = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t code = col->cat[i];
        if (code < 0) {
            nmiss++;
            continue;
        }
        if (code >= L) {
            tf_fail(err, GENESIS_ERR_INTERNAL, "column '%s' has a level code out of range",
                    ct->name);
            free(lv);
            return;
        }
        if (lv[code].count++ == 0) lv[code].first = i;
    }
    /* present levels, by first appearance */
    int32_t np = 0;
    for (int32_t l = 0; l < L; l++)
        if (lv[l].count > 0) lv[np++] = lv[l];
    qsort(lv, (size_t)np, sizeof *lv, cmp_level_first);

    int32_t keep = np, nrare = 0;
    int cap = o->max_categories;
    if (cap > 0 && np > cap) {
        keep = cap - 1;
        nrare = np - keep;
        /* the most frequent keep levels (ties: first appearance) go first, then each part
         * back in order of first appearance */
        qsort(lv, (size_t)np, sizeof *lv, cmp_level_freq);
        qsort(lv, (size_t)keep, sizeof *lv, cmp_level_first);
        qsort(lv + keep, (size_t)nrare, sizeof *lv, cmp_level_first);
    }
    int slots = keep + (nrare > 0) + (nmiss > 0);
    ct->rare_slot = nrare > 0 ? keep : -1;
    ct->missing_slot = nmiss > 0 ? keep + (nrare > 0) : -1;
    ct->n_slots = slots > 0 ? slots : 1;
    ct->slot_text = calloc((size_t)ct->n_slots, sizeof *ct->slot_text);
    if (!ct->slot_text) goto nomem;
    for (int32_t s = 0; s < keep; s++) {
        ct->slot_text[s] = gen_strdup(col->levels[lv[s].code] ? col->levels[lv[s].code] : "");
        if (!ct->slot_text[s]) goto nomem;
    }
    if (ct->missing_slot >= 0) {
        ct->slot_text[ct->missing_slot] = gen_strdup(ct->na_text);
        if (!ct->slot_text[ct->missing_slot]) goto nomem;
    }
    if (slots == 0) { /* no rows at all: one empty slot keeps the layout valid */
        ct->slot_text[0] = gen_strdup("");
        if (!ct->slot_text[0]) goto nomem;
    }
    if (nrare > 0) {
        ct->n_rare = nrare;
        ct->rare_text = calloc((size_t)nrare, sizeof *ct->rare_text);
        ct->rare_cdf = calloc((size_t)nrare, sizeof *ct->rare_cdf);
        if (!ct->rare_text || !ct->rare_cdf) goto nomem;
        int64_t total = 0, run = 0;
        for (int32_t r = 0; r < nrare; r++) total += lv[keep + r].count;
        for (int32_t r = 0; r < nrare; r++) {
            const char *txt = col->levels[lv[keep + r].code];
            ct->rare_text[r] = gen_strdup(txt ? txt : "");
            if (!ct->rare_text[r]) goto nomem;
            run += lv[keep + r].count;
            ct->rare_cdf[r] = (double)run / (double)total;
        }
        ct->rare_cdf[nrare - 1] = 1.0;
    }
    free(lv);
    return;
nomem:
    free(lv);
    tf_fail(err, GENESIS_ERR_NOMEM, "out of memory fitting column '%s'", ct->name);
}

/* ---- fit ----------------------------------------------------------------------------- */

typedef struct {
    const genesis_table *t;
    const gen_transform_opts *o;
    gen_transformer *tf;
    tf_err *err;
} tf_fit_job;

static void fit_one(void *arg, int c) {
    tf_fit_job *job = arg;
    const gen_column *col = &job->t->cols[c];
    gen_col_transform *ct = &job->tf->cols[c];
    if (col->type == GENESIS_COLUMN_CONTINUOUS)
        fit_continuous(col, job->t->nrows, c, job->o, ct, &job->err[c]);
    else
        fit_categorical(col, job->t->nrows, job->o, ct, &job->err[c]);
}

genesis_status gen_transformer_fit(genesis_ctx *ctx, gen_transformer *tf, const genesis_table *t,
                                   const gen_transform_opts *o) {
    if (!tf) return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG, "no transformer to fit");
    memset(tf, 0, sizeof *tf);
    GEN_RETURN_IF(!t || t->ncols < 1 || t->nrows < 0, ctx, GENESIS_ERR_DATA,
                  "the table has no columns; nothing to transform");
    gen_transform_opts def;
    if (!o) {
        gen_transform_opts_default(&def);
        o = &def;
    }
    tf->ncols = t->ncols;
    tf->delimiter = t->delimiter ? t->delimiter : ',';
    tf->clamp_range = o->clamp_range != 0;
    tf->seed = o->seed;
    tf->cols = calloc((size_t)t->ncols, sizeof *tf->cols);
    tf_err *err = calloc((size_t)t->ncols, sizeof *err);
    if (!tf->cols || !err) {
        free(err);
        gen_transformer_free(tf);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the transformer");
    }
    for (int c = 0; c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        gen_col_transform *ct = &tf->cols[c];
        ct->type = col->type;
        ct->missing_slot = ct->rare_slot = -1;
        ct->name = gen_strdup(col->name ? col->name : "");
        ct->na_text = gen_strdup(col->na_text ? col->na_text : "");
        if (!ct->name || !ct->na_text) {
            free(err);
            gen_transformer_free(tf);
            return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the transformer");
        }
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            ct->is_integer = col->is_integer;
            ct->decimals = col->decimals;
            ct->decimal_comma = col->decimal_comma;
            ct->dt = col->dt;
            ct->id = col->id;
            if (!col->num && t->nrows > 0) err[c].st = GENESIS_ERR_INTERNAL;
        } else if (!col->cat && t->nrows > 0) {
            err[c].st = GENESIS_ERR_INTERNAL;
        }
        if (err[c].st != GENESIS_OK) {
            snprintf(err[c].msg, sizeof err[c].msg, "column '%s' has no data", ct->name);
        }
    }
    int bad = 0;
    for (int c = 0; c < t->ncols; c++) bad |= err[c].st != GENESIS_OK;
    if (!bad) {
        tf_fit_job job = {t, o, tf, err};
        gen_parallel_for(gen_ctx_threads(ctx), t->ncols, fit_one, &job);
    }
    for (int c = 0; c < t->ncols; c++) {
        if (err[c].st != GENESIS_OK) {
            genesis_status st = gen_set_error(ctx, err[c].st, "%s", err[c].msg);
            free(err);
            gen_transformer_free(tf);
            return st;
        }
    }
    free(err);

    /* layout */
    int nspans = 0;
    for (int c = 0; c < t->ncols; c++) nspans += t->cols[c].type == GENESIS_COLUMN_CONTINUOUS ? 2 : 1;
    tf->spans = calloc((size_t)nspans, sizeof *tf->spans);
    if (!tf->spans) {
        gen_transformer_free(tf);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the transformer");
    }
    int off = 0, si = 0;
    for (int c = 0; c < t->ncols; c++) {
        gen_col_transform *ct = &tf->cols[c];
        ct->span_first = si;
        ct->offset = off;
        if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
            int w = ct->n_modes + ct->n_points + ct->has_null;
            if (w < 1) w = 1;
            ct->nspans = 2;
            ct->width = 1 + w;
            tf->spans[si++] = (gen_span){off, 1, GEN_SPAN_TANH, c};
            tf->spans[si++] = (gen_span){off + 1, w, GEN_SPAN_SOFTMAX, c};
        } else {
            ct->nspans = 1;
            ct->width = ct->n_slots;
            tf->spans[si++] = (gen_span){off, ct->n_slots, GEN_SPAN_SOFTMAX, c};
        }
        if (ct->width > (1 << 24) - off) {
            gen_transformer_free(tf);
            return gen_set_error(ctx, GENESIS_ERR_DATA,
                                 "the encoded row would be wider than 2^24 values; lower "
                                 "max-categories");
        }
        off += ct->width;
    }
    tf->nspans = si;
    tf->data_dim = off;
    return GENESIS_OK;
}

void gen_transformer_free(gen_transformer *tf) {
    if (!tf) return;
    for (int c = 0; tf->cols && c < tf->ncols; c++) {
        gen_col_transform *ct = &tf->cols[c];
        free(ct->name);
        free(ct->na_text);
        if (ct->slot_text)
            for (int s = 0; s < ct->n_slots; s++) free(ct->slot_text[s]);
        free(ct->slot_text);
        if (ct->rare_text)
            for (int32_t r = 0; r < ct->n_rare; r++) free(ct->rare_text[r]);
        free(ct->rare_text);
        free(ct->rare_cdf);
        free(ct->quantiles);
    }
    free(tf->cols);
    free(tf->spans);
    memset(tf, 0, sizeof *tf);
}

/* ---- transform (encode) -------------------------------------------------------------- */

/* Posterior over the valid modes for a value (before the +1e-6 smoothing). */
static void mode_posterior(const gen_col_transform *ct, double v, double *p) {
    if (ct->gmm.K > 0) {
        double full[16];
        gen_vgm_predict_proba(&ct->gmm, v, full);
        for (int j = 0; j < ct->n_modes; j++) p[j] = full[ct->mode_comp[j]];
        return;
    }
    /* a transformer read back from a model file keeps only the valid modes: use their
     * own mixture weight * N(v; mu, sigma) */
    double lp[GEN_MAX_MODES], mx = -INFINITY, s = 0.0;
    for (int j = 0; j < ct->n_modes; j++) {
        double z = (v - ct->mode_mean[j]) / ct->mode_std[j];
        lp[j] = log(ct->mode_weight[j]) - log(ct->mode_std[j]) - 0.5 * z * z;
        if (lp[j] > mx) mx = lp[j];
    }
    for (int j = 0; j < ct->n_modes; j++) {
        p[j] = exp(lp[j] - mx);
        s += p[j];
    }
    for (int j = 0; j < ct->n_modes; j++) p[j] /= s;
}

typedef struct {
    const gen_transformer *tf;
    const genesis_table *t;
    gen_encoded *e;
    tf_err *err;
} tf_enc_job;

static void encode_continuous(const gen_transformer *tf, const gen_column *col, int64_t n, int c,
                              int32_t *slot, float *alpha, tf_err *err) {
    const gen_col_transform *ct = &tf->cols[c];
    gen_rng rng;
    gen_rng_init(&rng, tf->seed, tf_stream(c, TF_PURPOSE_ENCODE));
    int null_slot = ct->n_modes + ct->n_points;
    for (int64_t i = 0; i < n; i++) {
        double v = col->num[i];
        alpha[i] = 0.0f;
        if (isnan(v)) {
            if (!ct->has_null) {
                tf_fail(err, GENESIS_ERR_DATA,
                        "column '%s' has missing values, but had none when the model was fitted",
                        ct->name);
                return;
            }
            slot[i] = null_slot;
            continue;
        }
        if (isinf(v)) {
            tf_fail(err, GENESIS_ERR_DATA,
                    "column '%s' holds an infinite value; only finite numbers can be modelled",
                    ct->name);
            return;
        }
        int p;
        for (p = 0; p < ct->n_points; p++)
            if (ct->point_value[p] == v) break;
        if (p < ct->n_points) {
            slot[i] = ct->n_modes + p;
            continue;
        }
        if (ct->n_modes == 0) {
            if (ct->n_points == 0) {
                tf_fail(err, GENESIS_ERR_DATA,
                        "column '%s' held no values when the model was fitted", ct->name);
                return;
            }
            int best = 0; /* a value never seen at fit: nearest point mass */
            for (int q = 1; q < ct->n_points; q++)
                if (fabs(ct->point_value[q] - v) < fabs(ct->point_value[best] - v)) best = q;
            slot[i] = ct->n_modes + best;
            continue;
        }
        if (ct->n_quantiles) v = gen_quantile_forward(ct->quantiles, ct->n_quantiles, v);
        double pr[GEN_MAX_MODES], cdf[GEN_MAX_MODES], run = 0.0;
        mode_posterior(ct, v, pr);
        for (int j = 0; j < ct->n_modes; j++) {
            run += pr[j] + 1e-6;
            cdf[j] = run;
        }
        double u = gen_rng_uniform(&rng) * run;
        int k = 0;
        while (k < ct->n_modes - 1 && cdf[k] <= u) k++;
        double a = (v - ct->mode_mean[k]) / (4.0 * ct->mode_std[k]);
        if (a > 0.99) a = 0.99;
        if (a < -0.99) a = -0.99;
        slot[i] = k;
        alpha[i] = (float)a;
    }
}

typedef struct {
    const char *text;
    int slot;
} tf_text_slot;

static int cmp_text_slot(const void *a, const void *b) {
    return strcmp(((const tf_text_slot *)a)->text, ((const tf_text_slot *)b)->text);
}

static void encode_categorical(const gen_transformer *tf, const gen_column *col, int64_t n,
                               int c, int32_t *slot, tf_err *err) {
    const gen_col_transform *ct = &tf->cols[c];
    int32_t L = col->nlevels > 0 ? col->nlevels : 0;
    int64_t nt = (int64_t)ct->n_slots + ct->n_rare;
    tf_text_slot *idx = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *idx);
    int32_t *map = malloc((size_t)(L > 0 ? L : 1) * sizeof *map);
    if (!idx || !map) {
        free(idx);
        free(map);
        tf_fail(err, GENESIS_ERR_NOMEM, "out of memory encoding column '%s'", ct->name);
        return;
    }
    int64_t m = 0;
    for (int s = 0; s < ct->n_slots; s++)
        if (s != ct->missing_slot && s != ct->rare_slot && ct->slot_text[s])
            idx[m++] = (tf_text_slot){ct->slot_text[s], s};
    for (int32_t r = 0; r < ct->n_rare; r++) idx[m++] = (tf_text_slot){ct->rare_text[r], ct->rare_slot};
    qsort(idx, (size_t)m, sizeof *idx, cmp_text_slot);
    for (int32_t l = 0; l < L; l++) {
        tf_text_slot key = {col->levels[l] ? col->levels[l] : "", -1};
        const tf_text_slot *hit = m ? bsearch(&key, idx, (size_t)m, sizeof *idx, cmp_text_slot) : NULL;
        map[l] = hit ? hit->slot : -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int32_t code = col->cat[i];
        int32_t s;
        if (code < 0) {
            s = ct->missing_slot;
            if (s < 0) {
                tf_fail(err, GENESIS_ERR_DATA,
                        "column '%s' has missing values, but had none when the model was fitted",
                        ct->name);
                break;
            }
        } else if (code >= L || map[code] < 0) {
            tf_fail(err, GENESIS_ERR_DATA,
                    "column '%s' holds a value that was not seen when the model was fitted",
                    ct->name);
            break;
        } else {
            s = map[code];
        }
        slot[i] = s;
    }
    free(idx);
    free(map);
}

static void encode_one(void *arg, int c) {
    tf_enc_job *job = arg;
    const gen_column *col = &job->t->cols[c];
    if (job->tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS)
        encode_continuous(job->tf, col, job->t->nrows, c, job->e->slot[c], job->e->alpha[c],
                          &job->err[c]);
    else
        encode_categorical(job->tf, col, job->t->nrows, c, job->e->slot[c], &job->err[c]);
}

genesis_status gen_transformer_transform(genesis_ctx *ctx, const gen_transformer *tf,
                                         const genesis_table *t, gen_encoded *out) {
    if (!out) return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG, "no output for the encoding");
    memset(out, 0, sizeof *out);
    GEN_RETURN_IF(!tf || !t, ctx, GENESIS_ERR_INVALID_ARG, "no transformer or table to encode");
    GEN_RETURN_IF(t->ncols < 1 || t->nrows < 0, ctx, GENESIS_ERR_DATA,
                  "the table has no columns; nothing to encode");
    GEN_RETURN_IF(t->ncols != tf->ncols, ctx, GENESIS_ERR_DATA,
                  "the table has %d columns, the model was fitted on %d", t->ncols, tf->ncols);
    for (int c = 0; c < t->ncols; c++)
        GEN_RETURN_IF(t->cols[c].type != tf->cols[c].type, ctx, GENESIS_ERR_DATA,
                      "column %d ('%s') is %s here but was %s when the model was fitted", c + 1,
                      tf->cols[c].name,
                      t->cols[c].type == GENESIS_COLUMN_CONTINUOUS ? "continuous" : "categorical",
                      tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS ? "continuous" : "categorical");
    int64_t n = t->nrows;
    out->nrows = n;
    out->ncols = t->ncols;
    out->slot = calloc((size_t)t->ncols, sizeof *out->slot);
    out->alpha = calloc((size_t)t->ncols, sizeof *out->alpha);
    tf_err *err = calloc((size_t)t->ncols, sizeof *err);
    int ok = out->slot && out->alpha && err;
    for (int c = 0; ok && c < t->ncols; c++) {
        out->slot[c] = gen_calloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
        ok = out->slot[c] != NULL;
        if (ok && tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS) {
            out->alpha[c] = gen_calloc((size_t)(n > 0 ? n : 1), sizeof(float));
            ok = out->alpha[c] != NULL;
        }
    }
    if (!ok) {
        free(err);
        gen_encoded_free(out);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory encoding %lld rows",
                             (long long)n);
    }
    tf_enc_job job = {tf, t, out, err};
    gen_parallel_for(gen_ctx_threads(ctx), t->ncols, encode_one, &job);
    for (int c = 0; c < t->ncols; c++) {
        if (err[c].st != GENESIS_OK) {
            genesis_status st = gen_set_error(ctx, err[c].st, "%s", err[c].msg);
            free(err);
            gen_encoded_free(out);
            return st;
        }
    }
    free(err);
    return GENESIS_OK;
}

void gen_encoded_free(gen_encoded *e) {
    if (!e) return;
    for (int c = 0; c < e->ncols; c++) {
        if (e->slot) free(e->slot[c]);
        if (e->alpha) free(e->alpha[c]);
    }
    free(e->slot);
    free(e->alpha);
    memset(e, 0, sizeof *e);
}

void gen_encoded_gather(const gen_transformer *tf, const gen_encoded *e, const int64_t *rows,
                        int B, float *out, int ld) {
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * (size_t)ld;
        memset(o, 0, (size_t)tf->data_dim * sizeof *o);
        int64_t r = rows[b];
        for (int c = 0; c < tf->ncols; c++) {
            const gen_col_transform *ct = &tf->cols[c];
            int32_t s = e->slot[c][r];
            if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
                o[ct->offset] = e->alpha[c][r];
                o[ct->offset + 1 + s] = 1.0f;
            } else {
                o[ct->offset + s] = 1.0f;
            }
        }
    }
}

/* ---- inverse (decode) ---------------------------------------------------------------- */

genesis_status gen_rowbatch_alloc(const gen_transformer *tf, int B, gen_rowbatch *rb) {
    if (!rb) return GENESIS_ERR_INVALID_ARG;
    memset(rb, 0, sizeof *rb);
    if (!tf || B < 0) return GENESIS_ERR_INVALID_ARG;
    rb->B = B;
    rb->ncols = tf->ncols;
    rb->num = calloc((size_t)(tf->ncols > 0 ? tf->ncols : 1), sizeof *rb->num);
    rb->cat = calloc((size_t)(tf->ncols > 0 ? tf->ncols : 1), sizeof *rb->cat);
    rb->rare_pick = calloc((size_t)(tf->ncols > 0 ? tf->ncols : 1), sizeof *rb->rare_pick);
    if (!rb->num || !rb->cat || !rb->rare_pick) goto nomem;
    size_t nb = (size_t)(B > 0 ? B : 1);
    for (int c = 0; c < tf->ncols; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
            if (!(rb->num[c] = calloc(nb, sizeof(double)))) goto nomem;
        } else {
            if (!(rb->cat[c] = calloc(nb, sizeof(int32_t)))) goto nomem;
            if (ct->rare_slot >= 0 && !(rb->rare_pick[c] = calloc(nb, sizeof(int32_t))))
                goto nomem;
        }
    }
    return GENESIS_OK;
nomem:
    gen_rowbatch_free(rb);
    return GENESIS_ERR_NOMEM;
}

void gen_rowbatch_free(gen_rowbatch *rb) {
    if (!rb) return;
    for (int c = 0; c < rb->ncols; c++) {
        if (rb->num) free(rb->num[c]);
        if (rb->cat) free(rb->cat[c]);
        if (rb->rare_pick) free(rb->rare_pick[c]);
    }
    free(rb->num);
    free(rb->cat);
    free(rb->rare_pick);
    memset(rb, 0, sizeof *rb);
}

static int argmax_span(const float *x, int len) {
    int best = 0;
    for (int k = 1; k < len; k++)
        if (x[k] > x[best]) best = k;
    return best;
}

/* x rounded to d decimals (nearest double to the decimal), when that is representable. */
static double round_decimals(double x, int d) {
    static const double p10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
    if (d < 0 || d > 17) return x;
    double s = x * p10[d];
    if (!(fabs(s) < 4503599627370496.0)) return x; /* 2^52: already at full precision */
    return rint(s) / p10[d];
}

int64_t gen_transformer_take_ids(gen_transformer *tf, int64_t n) {
    int64_t id0 = 0;
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].id.kind != GEN_ID_NONE) {
            if (tf->cols[c].id_next > id0) id0 = tf->cols[c].id_next;
        }
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].id.kind != GEN_ID_NONE) tf->cols[c].id_next = id0 + n;
    return id0;
}

void gen_transformer_inverse(const gen_transformer *tf, const float *x, int ld, int B,
                             const gen_row_draws *rd, gen_rowbatch *rb) {
    GEN_ASSERT(B <= rb->B);
    for (int c = 0; c < tf->ncols; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
            int w = ct->width - 1;
            double *num = rb->num[c];
            for (int b = 0; b < B; b++) {
                const float *row = x + (size_t)b * (size_t)ld + ct->offset;
                int s = argmax_span(row + 1, w);
                double v;
                if (s < ct->n_modes) {
                    double a = row[0];
                    if (a > 1.0) a = 1.0;
                    if (a < -1.0) a = -1.0;
                    v = a * 4.0 * ct->mode_std[s] + ct->mode_mean[s];
                    if (ct->n_quantiles) v = gen_quantile_inverse(ct->quantiles, ct->n_quantiles, v);
                    if (tf->clamp_range && ct->min <= ct->max) {
                        if (v < ct->min) v = ct->min;
                        if (v > ct->max) v = ct->max;
                    }
                    if (ct->is_integer)
                        v = rint(v);
                    else if (ct->decimals >= 0)
                        v = round_decimals(v, ct->decimals);
                    if (v == 0.0) v = 0.0; /* no negative zero */
                } else if (s < ct->n_modes + ct->n_points) {
                    v = ct->point_value[s - ct->n_modes];
                } else {
                    v = NAN;
                }
                num[b] = v;
            }
            if (ct->id.kind != GEN_ID_NONE) /* fresh ids, numbered by row */
                for (int b = 0; b < B; b++) num[b] = (double)(ct->id.start + rd->id0 + rd->row0 + b);
        } else {
            int32_t *cat = rb->cat[c];
            int32_t *pick = rb->rare_pick[c];
            for (int b = 0; b < B; b++) {
                const float *row = x + (size_t)b * (size_t)ld + ct->offset;
                int s = argmax_span(row, ct->n_slots);
                cat[b] = s;
                if (pick) {
                    pick[b] = -1;
                    if (s == ct->rare_slot) {
                        gen_rng rng;
                        gen_rng_row(&rng, rd->seed, rd->stream, (uint64_t)(rd->row0 + b));
                        rng.counter += (uint64_t)c; /* one block per column */
                        double u = gen_rng_uniform(&rng);
                        int32_t lo = 0, hi = ct->n_rare - 1; /* first cdf > u */
                        while (lo < hi) {
                            int32_t mid = lo + (hi - lo) / 2;
                            if (ct->rare_cdf[mid] > u)
                                hi = mid;
                            else
                                lo = mid + 1;
                        }
                        pick[b] = lo;
                    }
                }
            }
        }
    }
}

/* ---- text ---------------------------------------------------------------------------- */

const char *gen_rowbatch_text(const gen_transformer *tf, const gen_rowbatch *rb, int row,
                              int col, char *buf, size_t cap, size_t *len) {
    const gen_col_transform *ct = &tf->cols[col];
    const char *s = "";
    if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
        double v = rb->num[col][row];
        if (isnan(v)) {
            s = ct->na_text;
        } else if (ct->id.kind != GEN_ID_NONE) {
            int n = gen_id_format_value(&ct->id, (int64_t)v - ct->id.start, buf, cap);
            *len = n > 0 ? (size_t)n : 0;
            return buf;
        } else if (ct->dt.pattern[0]) {
            int n = gen_dt_format_value(&ct->dt, v, buf, cap);
            if (n > 0) {
                *len = (size_t)n;
                return buf;
            }
            s = ct->na_text; /* outside years 0-9999: written as missing */
        } else {
            int n = gen_format_number(buf, cap, v, ct->is_integer ? 0 : ct->decimals);
            /* whole numbers the file wrote with a decimal point ("41.0") keep it, so that a
             * reader types the column as it typed the real one */
            if (n > 0 && ct->is_integer && ct->decimals > 0 && (size_t)n + 3 <= cap) {
                buf[n++] = '.';
                buf[n++] = '0';
                buf[n] = 0;
            }
            if (ct->decimal_comma) { /* as the file wrote them: 3,14 */
                char *dot = n > 0 ? memchr(buf, '.', (size_t)n) : NULL;
                if (dot) *dot = ',';
            }
            *len = n > 0 ? (size_t)n : 0;
            return buf;
        }
    } else {
        int32_t slot = rb->cat[col][row];
        if (slot == ct->rare_slot && ct->rare_slot >= 0) {
            int32_t p = rb->rare_pick[col] ? rb->rare_pick[col][row] : -1;
            s = (p >= 0 && p < ct->n_rare) ? ct->rare_text[p] : "";
        } else if (slot == ct->missing_slot) {
            s = ct->na_text;
        } else if (slot >= 0 && slot < ct->n_slots && ct->slot_text[slot]) {
            s = ct->slot_text[slot];
        }
    }
    *len = strlen(s);
    return s;
}

static int grow(char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    char *nb = realloc(*buf, nc);
    if (!nb) return -1;
    *buf = nb;
    *cap = nc;
    return 0;
}

genesis_status gen_rowbatch_format_csv(const gen_transformer *tf, const gen_rowbatch *rb,
                                       char **buf, size_t *cap, size_t *len) {
    char num[512];
    for (int r = 0; r < rb->B; r++) {
        for (int c = 0; c < tf->ncols; c++) {
            size_t n = 0;
            const char *s = gen_rowbatch_text(tf, rb, r, c, num, sizeof num, &n);
            /* a quoted field is at most 2n + 2 bytes, plus the separator */
            if (n > (SIZE_MAX - *len - 3) / 2 || grow(buf, cap, *len + 2 * n + 3) != 0)
                return GENESIS_ERR_NOMEM;
            if (n > 0) {
                size_t k = gen_csv_format_field(*buf + *len, *cap - *len, s, n, tf->delimiter);
                if (k == 0) return GENESIS_ERR_INTERNAL;
                *len += k;
            }
            (*buf)[(*len)++] = c + 1 < tf->ncols ? tf->delimiter : '\n';
        }
    }
    return GENESIS_OK;
}
