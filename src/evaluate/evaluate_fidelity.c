/*
 * evaluate_fidelity.c — the scores that the tabular-generation papers of 2024-2026 (TabSyn,
 * Zhang et al., ICLR 2024; TabDiff, Shi et al., ICLR 2025) report beside SDMetrics' reports,
 * computed as their evaluation code computes them (definitions and sources:
 * docs/evaluate.md "The papers' scores"):
 *
 *   alpha-precision, beta-recall   Alaa et al., "How Faithful is Your Synthetic Data?"
 *                                  (ICML 2022), in the "naive" form of synthcity's
 *                                  AlphaPrecision (metrics/eval_statistical.py) that TabSyn's
 *                                  eval/eval_quality.py reports: rows embedded as min-max
 *                                  scaled numerical columns + one-hot categorical columns,
 *                                  centre = the real rows' mean, alphas = 30 points in [0, 1];
 *                                  r_k = the alpha_k quantile of the real rows' distances to the
 *                                  centre; P(alpha_k) = share of synthetic rows within r_k;
 *                                  beta-recall from each real row's nearest synthetic row
 *                                  (covered when that row is no farther than the real row's
 *                                  nearest real neighbour, and within the alpha_k quantile of
 *                                  those rows' distances to the synthetic centre); each score
 *                                  = 1 - sum_k |alpha_k - curve_k| / sum_k alpha_k.
 *   DCR share                      TabSyn's eval/eval_dcr.py: numerical columns divided by
 *                                  the real column's range, categorical columns one-hot, L1
 *                                  distance; share of synthetic rows whose nearest training
 *                                  row is strictly closer than their nearest holdout row.
 *                                  0.5 = no more like the training rows than like unseen rows.
 *   XGBoost detection              synthcity's SyntheticDetectionXGB
 *                                  (metrics/eval_detection.py): real rows labelled 0,
 *                                  synthetic rows 1, 3-fold stratified cross-validation,
 *                                  XGBoost classifier, ROC AUC of P(synthetic) on each held-out
 *                                  fold; reported as synthcity's mean AUC and as SDMetrics'
 *                                  detection scale 1 - mean(2 max(AUC, 0.5) - 1).
 *   TSTR with XGBoost              TabSyn's eval/mle/mle.py for a binary target: XGBoost on
 *                                  the synthetic (and, for comparison, the real) rows, a
 *                                  36-point grid validated on 1/9 of them, the best point's
 *                                  ROC AUC on the holdout.
 *
 * Distances use the column form of the one-hot embedding (never an n x m matrix): a
 * categorical column adds 0 when two rows share a category and 2 when they differ (the
 * one-hot vectors differ in two places; squared or not, each place adds 1); a category the
 * real table lacks encodes as all zeros (OneHotEncoder(handle_unknown="ignore")), so it adds
 * 1 against a known category and 0 against another unknown one. Missing numerical values
 * take the real column's mean; a missing categorical value is a category of its own.
 * XGBoost is reached through its C API (<xgboost/c_api.h>) when the build found it
 * (GEN_HAVE_XGBOOST); without it that score is NaN and the JSON says how to get it.
 */
#include <math.h>
#include <string.h>

#include "evaluate_ml.h"
#include "rng.h"

#ifdef GEN_HAVE_XGBOOST
#include <xgboost/c_api.h>
#endif

/* Rows per table behind alpha-precision / beta-recall (both tables are cut, seeded, to
 * min(real rows, synthetic rows, this): synthcity needs equal sizes; the nearest-neighbour
 * searches cost rows^2). */
#define GEN_EV_ALPHA_ROWS 10000
#define GEN_EV_ALPHA_STEPS 30

/* ---- the embedding --------------------------------------------------------------------- */

typedef struct gen_ev_emb {
    int ncols, nnum, ncat;
    int *num_col, *cat_col;     /* [nnum], [ncat] source columns */
    double *mean, *lo, *range;  /* [nnum] real column: mean, min, max - min (0 -> 1) */
    int32_t **slot;             /* [ncat] (dictionary id + 1) -> one-hot slot, -1 unknown */
    int *width;                 /* [ncat] categories of the real table (slots) */
    int dim;                    /* nnum + sum of widths: the one-hot embedding's size */
} gen_ev_emb;

static void gen_ev_emb_free(gen_ev_emb *e) {
    if (e->slot)
        for (int j = 0; j < e->ncat; j++) free(e->slot[j]);
    free(e->slot), free(e->width), free(e->num_col), free(e->cat_col);
    free(e->mean), free(e->lo), free(e->range);
    memset(e, 0, sizeof *e);
}

/* Fitted on table t (the real table, or TSTR's training table); column `skip` (-1: none) is
 * left out. */
static genesis_status gen_ev_emb_fit(genesis_ctx *ctx, const gen_ev_data *d,
                                     const gen_ev_table *t, int skip, gen_ev_emb *e) {
    memset(e, 0, sizeof *e);
    int nc = d->ncols;
    e->ncols = nc;
    e->num_col = malloc((size_t)nc * sizeof *e->num_col);
    e->cat_col = malloc((size_t)nc * sizeof *e->cat_col);
    e->mean = malloc((size_t)nc * sizeof *e->mean);
    e->lo = malloc((size_t)nc * sizeof *e->lo);
    e->range = malloc((size_t)nc * sizeof *e->range);
    e->slot = calloc((size_t)nc, sizeof *e->slot);
    e->width = calloc((size_t)nc, sizeof *e->width);
    if (!e->num_col || !e->cat_col || !e->mean || !e->lo || !e->range || !e->slot || !e->width)
        goto oom;
    for (int c = 0; c < nc; c++) {
        if (c == skip) continue;
        if (d->continuous[c]) {
            int j = e->nnum++;
            e->num_col[j] = c;
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            int64_t k = 0;
            for (int64_t i = 0; i < t->n; i++) {
                double v = t->num[c][i];
                if (!isfinite(v)) continue;
                sum += v, k++;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
            e->mean[j] = k ? sum / (double)k : 0;
            e->lo[j] = k ? lo : 0;
            e->range[j] = k && hi > lo ? hi - lo : 1;
        } else {
            int j = e->ncat++;
            e->cat_col[j] = c;
            int32_t nid = d->dict[c].n + 1;
            if (!(e->slot[j] = malloc((size_t)nid * sizeof *e->slot[j]))) goto oom;
            for (int32_t k = 0; k < nid; k++) e->slot[j][k] = -1;
            for (int64_t i = 0; i < t->n; i++) {
                int32_t id = t->cat[c][i] + 1;
                if (id >= 0 && id < nid && e->slot[j][id] < 0) e->slot[j][id] = e->width[j]++;
            }
        }
    }
    e->dim = e->nnum;
    for (int j = 0; j < e->ncat; j++) e->dim += e->width[j];
    return GENESIS_OK;
oom:
    gen_ev_emb_free(e);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the fidelity scores");
}

/* Column form of rows `rows` (NULL = 0..n-1) of t: num (n x nnum), the numerical values
 * (missing -> mean) minus `lo` (NULL: 0) divided by the range; cat (n x ncat), the one-hot
 * slot or -1 for a category the real table lacks. */
static void gen_ev_emb_cols(const gen_ev_emb *e, const gen_ev_table *t, const int64_t *rows,
                            int64_t n, int minmax, double *num, int32_t *cat) {
    for (int64_t r = 0; r < n; r++) {
        int64_t i = rows ? rows[r] : r;
        for (int j = 0; j < e->nnum; j++) {
            double v = t->num[e->num_col[j]][i];
            if (!isfinite(v)) v = e->mean[j];
            num[(size_t)r * e->nnum + j] = (v - (minmax ? e->lo[j] : 0)) / e->range[j];
        }
        for (int j = 0; j < e->ncat; j++) {
            int32_t id = t->cat[e->cat_col[j]][i] + 1;
            cat[(size_t)r * e->ncat + j] = id >= 0 ? e->slot[j][id] : -1;
        }
    }
}

/* One categorical column's contribution to the squared L2 and to the L1 distance of two
 * one-hot vectors (they are equal: every place differs by 0 or 1). */
static inline double gen_ev_cat_cost(int32_t a, int32_t b) {
    return a == b ? 0.0 : (a < 0 || b < 0) ? 1.0 : 2.0;
}

/* ---- alpha-precision, beta-recall ------------------------------------------------------- */

typedef struct gen_ev_rows {
    int64_t n;
    int nnum, ncat;
    const double *num;
    const int32_t *cat;
} gen_ev_rows;

static inline double gen_ev_sq(const gen_ev_rows *a, int64_t i, const gen_ev_rows *b,
                               int64_t k) {
    const double *x = a->num + (size_t)i * a->nnum, *y = b->num + (size_t)k * b->nnum;
    const int32_t *p = a->cat + (size_t)i * a->ncat, *q = b->cat + (size_t)k * b->ncat;
    double s = 0;
    for (int j = 0; j < a->nnum; j++) {
        double t = x[j] - y[j];
        s += t * t;
    }
    for (int j = 0; j < a->ncat; j++) s += gen_ev_cat_cost(p[j], q[j]);
    return s;
}

/* A lower bound of gen_ev_sq(a, i, b, k), the exact sum of the categorical costs (small
 * integers, so any order gives the same value) in a loop without branches: gen_ev_sq adds
 * them one by one to a non-negative numerical sum, and round-to-nearest is monotone, so each
 * of its partial sums is at least the exact sum of the costs added so far. A pair with
 * bound >= the best so far is skipped without changing which pair wins or its distance. */
static inline double gen_ev_sq_bound(const gen_ev_rows *a, int64_t i, const gen_ev_rows *b,
                                     int64_t k) {
    const int32_t *p = a->cat + (size_t)i * a->ncat, *q = b->cat + (size_t)k * b->ncat;
    int32_t s = 0;
    for (int j = 0; j < a->ncat; j++) /* 0 equal, 1 one side unknown (< 0), 2 otherwise */
        s += (p[j] != q[j]) * (2 - ((p[j] | q[j]) < 0));
    return (double)s;
}

/* The centre of a set (mean of its one-hot embedding): numerical means, then for each
 * categorical column the share of every slot; cat_sq[j] = sum of the squared shares. */
typedef struct gen_ev_centre {
    double *num;      /* [nnum] */
    double **share;   /* [ncat][width] */
    double *cat_sq;   /* [ncat] */
} gen_ev_centre;

static void gen_ev_centre_free(gen_ev_centre *c, int ncat) {
    if (c->share)
        for (int j = 0; j < ncat; j++) free(c->share[j]);
    free(c->share), free(c->num), free(c->cat_sq);
}

static int gen_ev_centre_fit(const gen_ev_emb *e, const gen_ev_rows *s, gen_ev_centre *c) {
    memset(c, 0, sizeof *c);
    c->num = calloc((size_t)(e->nnum ? e->nnum : 1), sizeof *c->num);
    c->share = calloc((size_t)(e->ncat ? e->ncat : 1), sizeof *c->share);
    c->cat_sq = calloc((size_t)(e->ncat ? e->ncat : 1), sizeof *c->cat_sq);
    if (!c->num || !c->share || !c->cat_sq) return -1;
    for (int j = 0; j < e->ncat; j++)
        if (!(c->share[j] = calloc((size_t)(e->width[j] ? e->width[j] : 1), sizeof(double))))
            return -1;
    /* numpy's mean sums pairwise; a plain sum differs from it in the last bits only */
    for (int64_t i = 0; i < s->n; i++) {
        for (int j = 0; j < e->nnum; j++) c->num[j] += s->num[(size_t)i * e->nnum + j];
        for (int j = 0; j < e->ncat; j++) {
            int32_t k = s->cat[(size_t)i * e->ncat + j];
            if (k >= 0) c->share[j][k] += 1;
        }
    }
    for (int j = 0; j < e->nnum; j++) c->num[j] /= (double)s->n;
    for (int j = 0; j < e->ncat; j++) {
        for (int k = 0; k < e->width[j]; k++) {
            c->share[j][k] /= (double)s->n;
            c->cat_sq[j] += c->share[j][k] * c->share[j][k];
        }
    }
    return 0;
}

/* Euclidean distance of row i of s to the centre: per categorical column, the one-hot
 * vector x against the shares p: sum_k p_k^2 - 2 p_x + [x known]. */
static double gen_ev_centre_dist(const gen_ev_emb *e, const gen_ev_rows *s, int64_t i,
                                 const gen_ev_centre *c) {
    double d2 = 0;
    for (int j = 0; j < e->nnum; j++) {
        double t = s->num[(size_t)i * e->nnum + j] - c->num[j];
        d2 += t * t;
    }
    for (int j = 0; j < e->ncat; j++) {
        int32_t k = s->cat[(size_t)i * e->ncat + j];
        d2 += c->cat_sq[j] + (k >= 0 ? 1.0 - 2.0 * c->share[j][k] : 0.0);
    }
    return sqrt(d2 > 0 ? d2 : 0);
}

static int gen_ev_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.quantile(x, q) (method "linear") of sorted x. */
static double gen_ev_quantile_sorted(const double *x, int64_t n, double q) {
    double h = (double)(n - 1) * q;
    int64_t lo = (int64_t)floor(h);
    if (lo >= n - 1) return x[n - 1];
    double g = h - (double)lo, a = x[lo], b = x[lo + 1];
    return g >= 0.5 ? b - (b - a) * (1 - g) : a + (b - a) * g; /* numpy's _lerp */
}

static genesis_status gen_ev_alpha_beta_rows(genesis_ctx *ctx, const gen_ev_emb *e,
                                             const gen_ev_rows *re, const gen_ev_rows *sy,
                                             int threads, double out[2]) {
    int64_t n = re->n;
    double *r_centre = malloc((size_t)n * sizeof *r_centre);
    double *s_centre = malloc((size_t)n * sizeof *s_centre);
    double *rr = malloc((size_t)n * sizeof *rr), *rs = malloc((size_t)n * sizeof *rs);
    double *closest = malloc((size_t)n * sizeof *closest);
    double *sorted = malloc((size_t)n * sizeof *sorted);
    int64_t *arg = malloc((size_t)n * sizeof *arg);
    gen_ev_centre cr, cs;
    int bad = gen_ev_centre_fit(e, re, &cr) | gen_ev_centre_fit(e, sy, &cs);
    genesis_status st = GENESIS_OK;
    if (bad || !r_centre || !s_centre || !rr || !rs || !closest || !sorted || !arg) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in alpha-precision");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        r_centre[i] = gen_ev_centre_dist(e, re, i, &cr);
        s_centre[i] = gen_ev_centre_dist(e, sy, i, &cr); /* synthetic rows to the real centre */
    }
    /* nearest real neighbour (other than the row itself) and nearest synthetic row of every
     * real row; ties go to the lowest index. A pair whose categorical mismatch count already
     * reaches the best so far cannot win (gen_ev_sq_bound), so only the others are summed. */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (int64_t i = 0; i < n; i++) {
        double best_r = INFINITY, best_s = INFINITY;
        int64_t best_k = 0;
        for (int64_t k = 0; k < n; k++) {
            if (k != i && gen_ev_sq_bound(re, i, re, k) < best_r) {
                double v = gen_ev_sq(re, i, re, k);
                if (v < best_r) best_r = v;
            }
            if (gen_ev_sq_bound(re, i, sy, k) < best_s) {
                double w = gen_ev_sq(re, i, sy, k);
                if (w < best_s) best_s = w, best_k = k;
            }
        }
        rr[i] = sqrt(best_r);
        rs[i] = sqrt(best_s);
        arg[i] = best_k;
    }
    for (int64_t i = 0; i < n; i++) closest[i] = gen_ev_centre_dist(e, sy, arg[i], &cs);
    double radius[GEN_EV_ALPHA_STEPS], cradius[GEN_EV_ALPHA_STEPS], alpha[GEN_EV_ALPHA_STEPS];
    memcpy(sorted, r_centre, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, gen_ev_cmp_double);
    for (int k = 0; k < GEN_EV_ALPHA_STEPS; k++) {
        alpha[k] = k == GEN_EV_ALPHA_STEPS - 1 ? 1.0 : (double)k / (GEN_EV_ALPHA_STEPS - 1);
        radius[k] = gen_ev_quantile_sorted(sorted, n, alpha[k]);
    }
    memcpy(sorted, closest, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, gen_ev_cmp_double);
    for (int k = 0; k < GEN_EV_ALPHA_STEPS; k++)
        cradius[k] = gen_ev_quantile_sorted(sorted, n, alpha[k]);
    double dev_p = 0, dev_b = 0, asum = 0;
    for (int k = 0; k < GEN_EV_ALPHA_STEPS; k++) {
        int64_t np = 0, nb = 0;
        for (int64_t i = 0; i < n; i++) {
            np += s_centre[i] <= radius[k];
            nb += rs[i] <= rr[i] && closest[i] <= cradius[k];
        }
        dev_p += fabs(alpha[k] - (double)np / (double)n);
        dev_b += fabs(alpha[k] - (double)nb / (double)n);
        asum += alpha[k];
    }
    out[0] = 1.0 - dev_p / asum;
    out[1] = 1.0 - dev_b / asum;
done:
    gen_ev_centre_free(&cr, e->ncat);
    gen_ev_centre_free(&cs, e->ncat);
    free(r_centre), free(s_centre), free(rr), free(rs), free(closest), free(sorted), free(arg);
    return st;
}

static genesis_status gen_ev_fid_alpha_beta(genesis_ctx *ctx, const gen_ev_data *d,
                                            const gen_ev_emb *e, const gen_ev_opts *o,
                                            genesis_eval_result *r) {
    int64_t n = d->real.n < d->syn.n ? d->real.n : d->syn.n;
    if (n > GEN_EV_ALPHA_ROWS) n = GEN_EV_ALPHA_ROWS;
    r->ab_rows = n;
    if (n < 2) return GENESIS_OK; /* NaN: no nearest other real row */
    int64_t *rrows = NULL, *srows = NULL;
    genesis_status st = GENESIS_OK;
    if (d->real.n > n &&
        (st = gen_ev_sample_rows(ctx, d->real.n, n, o->seed, GEN_EV_STREAM_ALPHA, &rrows)))
        return st;
    if (d->syn.n > n &&
        (st = gen_ev_sample_rows(ctx, d->syn.n, n, o->seed, GEN_EV_STREAM_ALPHA + 1, &srows))) {
        free(rrows);
        return st;
    }
    size_t nn = (size_t)n * (size_t)(e->nnum ? e->nnum : 1);
    size_t nc = (size_t)n * (size_t)(e->ncat ? e->ncat : 1);
    double *rnum = malloc(nn * sizeof *rnum), *snum = malloc(nn * sizeof *snum);
    int32_t *rcat = malloc(nc * sizeof *rcat), *scat = malloc(nc * sizeof *scat);
    if (!rnum || !snum || !rcat || !scat) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in alpha-precision");
        goto done;
    }
    gen_ev_emb_cols(e, &d->real, rrows, n, 1, rnum, rcat);
    gen_ev_emb_cols(e, &d->syn, srows, n, 1, snum, scat);
    gen_ev_rows re = {n, e->nnum, e->ncat, rnum, rcat}, sy = {n, e->nnum, e->ncat, snum, scat};
    double ab[2] = {NAN, NAN};
    if ((st = gen_ev_alpha_beta_rows(ctx, e, &re, &sy, o->threads, ab))) goto done;
    r->score[GENESIS_EVAL_ALPHA_PRECISION] = ab[0];
    r->score[GENESIS_EVAL_BETA_RECALL] = ab[1];
done:
    free(rrows), free(srows), free(rnum), free(snum), free(rcat), free(scat);
    return st;
}

/* ---- the DCR share ---------------------------------------------------------------------- */

/* L1 distance of row i of a to its nearest row of b (stops adding once a row cannot win). */
static double gen_ev_l1_nearest(const gen_ev_rows *a, int64_t i, const gen_ev_rows *b) {
    const double *x = a->num + (size_t)i * a->nnum;
    const int32_t *p = a->cat + (size_t)i * a->ncat;
    double best = INFINITY;
    for (int64_t k = 0; k < b->n && best > 0; k++) {
        const double *y = b->num + (size_t)k * b->nnum;
        const int32_t *q = b->cat + (size_t)k * b->ncat;
        double s = 0;
        for (int j = 0; j < a->ncat && s < best; j++) s += gen_ev_cat_cost(p[j], q[j]);
        for (int j = 0; j < a->nnum && s < best; j++) s += fabs(x[j] - y[j]);
        if (s < best) best = s;
    }
    return best;
}

static genesis_status gen_ev_fid_dcr_share(genesis_ctx *ctx, const gen_ev_data *d,
                                           const gen_ev_emb *e, const gen_ev_opts *o,
                                           genesis_eval_result *r) {
    int64_t ns = d->syn.n, nt = d->real.n, nh = d->hold.n;
    int64_t *srows = NULL;
    genesis_status st = GENESIS_OK;
    if (o->dcr_rows > 0 && ns > o->dcr_rows) {
        GEN_TRY(gen_ev_sample_rows(ctx, ns, o->dcr_rows, o->seed, GEN_EV_STREAM_DCR_SHARE, &srows));
        ns = o->dcr_rows;
    }
    int w = e->nnum ? e->nnum : 1, v = e->ncat ? e->ncat : 1;
    double *snum = malloc((size_t)ns * w * sizeof *snum);
    double *tnum = malloc((size_t)nt * w * sizeof *tnum);
    double *hnum = malloc((size_t)nh * w * sizeof *hnum);
    int32_t *scat = malloc((size_t)ns * v * sizeof *scat);
    int32_t *tcat = malloc((size_t)nt * v * sizeof *tcat);
    int32_t *hcat = malloc((size_t)nh * v * sizeof *hcat);
    if (!snum || !tnum || !hnum || !scat || !tcat || !hcat) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the DCR share");
        goto done;
    }
    gen_ev_emb_cols(e, &d->syn, srows, ns, 0, snum, scat);
    gen_ev_emb_cols(e, &d->real, NULL, nt, 0, tnum, tcat);
    gen_ev_emb_cols(e, &d->hold, NULL, nh, 0, hnum, hcat);
    gen_ev_rows sy = {ns, e->nnum, e->ncat, snum, scat};
    gen_ev_rows tr = {nt, e->nnum, e->ncat, tnum, tcat};
    gen_ev_rows ho = {nh, e->nnum, e->ncat, hnum, hcat};
    int64_t closer = 0;
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 16) reduction(+ : closer)
    for (int64_t i = 0; i < ns; i++)
        closer += gen_ev_l1_nearest(&sy, i, &tr) < gen_ev_l1_nearest(&sy, i, &ho);
    r->dcr_share_syn_rows = ns;
    r->dcr_share_train_rows = nt;
    r->dcr_share_hold_rows = nh;
    r->dcr_share_train_closer = (double)closer / (double)ns;
    r->score[GENESIS_EVAL_DCR_SHARE] = r->dcr_share_train_closer;
    /* rows exchangeable with the real ones are nearest to a training row with probability
     * nt / (nt + nh); the share's odds times nh / nt is the share the same rows would score
     * against two tables of one size (docs/evaluate.md): 0.5 for them, 1 for copies */
    double p = r->dcr_share_train_closer, a = p * (double)nh, b = (1 - p) * (double)nt;
    r->score[GENESIS_EVAL_DCR_SHARE_EQUAL] = a + b > 0 ? a / (a + b) : p;
done:
    free(srows), free(snum), free(tnum), free(hnum), free(scat), free(tcat), free(hcat);
    return st;
}

/* ---- XGBoost detection ------------------------------------------------------------------ */

#ifdef GEN_HAVE_XGBOOST
/* The one-hot embedding as XGBoost reads it: float32, numerical values raw with NaN as
 * XGBoost's missing value, then the one-hot slots. */
static void gen_ev_emb_dense(const gen_ev_emb *e, const gen_ev_table *t, const int64_t *rows,
                             int64_t n, float *x) {
    for (int64_t r = 0; r < n; r++) {
        int64_t i = rows ? rows[r] : r;
        float *dst = x + (size_t)r * e->dim;
        memset(dst, 0, (size_t)e->dim * sizeof *dst);
        for (int j = 0; j < e->nnum; j++) dst[j] = (float)t->num[e->num_col[j]][i];
        int off = e->nnum;
        for (int j = 0; j < e->ncat; j++) {
            int32_t id = t->cat[e->cat_col[j]][i] + 1;
            int32_t s = id >= 0 ? e->slot[j][id] : -1;
            if (s >= 0) dst[off + s] = 1.0f;
            off += e->width[j];
        }
    }
}

/* The rows of the XGBoost detection: the real rows (rr, nr; NULL = 0..nr-1), then the
 * synthetic ones; each fold's matrices are built from the category codes. */
typedef struct {
    const gen_ev_emb *e;
    const gen_ev_data *d;
    const int64_t *rr, *sr;
    int64_t nr;
} gen_ev_xgb_set;

/* The embedded rows of fold k (te = 1; labels into yi) or of the other folds (te = 0;
 * labels into yf) into x (zeroed, dim floats per row). */
static void gen_ev_xgb_rows(const gen_ev_xgb_set *set, const int32_t *y, const int32_t *fold,
                            int64_t n, int dim, int k, int te, float *x, float *yf, int32_t *yi) {
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((fold[i] == k) != te) continue;
        int real = i < set->nr;
        int64_t row = real ? (set->rr ? set->rr[i] : i)
                           : (set->sr ? set->sr[i - set->nr] : i - set->nr);
        const gen_ev_table *t = real ? &set->d->real : &set->d->syn;
        if (set->e->dim) gen_ev_emb_dense(set->e, t, &row, 1, x + (size_t)m * dim);
        if (yf) yf[m] = (float)y[i];
        if (yi) yi[m] = y[i];
        m++;
    }
}

/* Fold k: booster trained on the other folds, AUC of P(synthetic) on fold k. Returns 0, or
 * -1 with XGBoost's message in `err`. */
static int gen_ev_xgb_fold(const gen_ev_xgb_set *set, const int32_t *y, const int32_t *fold,
                           int64_t n, int dim, int k, uint64_t seed, double *auc, char *err,
                           size_t errcap) {
    int64_t ntr = 0, nte = 0;
    for (int64_t i = 0; i < n; i++) {
        if (fold[i] == k) nte++;
        else ntr++;
    }
    size_t mtr = (size_t)(ntr ? ntr : 1), mte = (size_t)(nte ? nte : 1); /* a fold may be empty */
    float *xtr = calloc(mtr * dim, sizeof *xtr), *xte = NULL;
    float *ytr = malloc(mtr * sizeof *ytr);
    int32_t *yte = malloc(mte * sizeof *yte);
    double *p = malloc(mte * sizeof *p);
    DMatrixHandle dtr = NULL, dte = NULL;
    BoosterHandle b = NULL;
    int rc = -1;
    if (!xtr || !ytr || !yte || !p) {
        snprintf(err, errcap, "out of memory");
        goto done;
    }
    gen_ev_xgb_rows(set, y, fold, n, dim, k, 0, xtr, ytr, NULL);
    char seedbuf[32];
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)(seed & 0x7fffffffull));
    /* XGBClassifier's defaults (synthcity passes "depth": 3, a name XGBoost ignores, so the
     * effective depth is the default 6), fixed here so that every XGBoost version and both
     * language bindings train the same model (docs/evaluate.md) */
    const char *params[][2] = {{"objective", "binary:logistic"}, {"booster", "gbtree"},
                               {"tree_method", "hist"},          {"max_depth", "6"},
                               {"eta", "0.3"},                   {"max_bin", "256"},
                               {"min_child_weight", "1"},        {"lambda", "1"},
                               {"subsample", "1"},               {"colsample_bytree", "1"},
                               {"base_score", "0.5"},            {"nthread", "1"},
                               {"verbosity", "0"},               {"seed", seedbuf}};
    if (XGDMatrixCreateFromMat(xtr, (bst_ulong)ntr, (bst_ulong)dim, NAN, &dtr) ||
        XGDMatrixSetFloatInfo(dtr, "label", ytr, (bst_ulong)ntr) || XGBoosterCreate(&dtr, 1, &b))
        goto xgb_error;
    free(xtr); /* the DMatrix holds its own copy */
    xtr = NULL;
    for (size_t q = 0; q < sizeof params / sizeof params[0]; q++)
        if (XGBoosterSetParam(b, params[q][0], params[q][1])) goto xgb_error;
    for (int it = 0; it < 100; it++)
        if (XGBoosterUpdateOneIter(b, it, dtr)) goto xgb_error;
    /* the training matrix (and its histogram index) goes before the test matrix comes: the
     * booster keeps no reference to it; the peak is one matrix, not both */
    XGDMatrixFree(dtr);
    dtr = NULL;
    if (!(xte = calloc(mte * dim, sizeof *xte))) {
        snprintf(err, errcap, "out of memory");
        goto done;
    }
    gen_ev_xgb_rows(set, y, fold, n, dim, k, 1, xte, NULL, yte);
    if (XGDMatrixCreateFromMat(xte, (bst_ulong)nte, (bst_ulong)dim, NAN, &dte)) goto xgb_error;
    free(xte);
    xte = NULL;
    bst_ulong len = 0;
    const float *pred = NULL;
    if (XGBoosterPredict(b, dte, 0, 0, 0, &len, &pred)) goto xgb_error;
    if ((int64_t)len != nte) {
        snprintf(err, errcap, "XGBoost returned %llu predictions for %lld rows",
                 (unsigned long long)len, (long long)nte);
        goto done;
    }
    for (int64_t i = 0; i < nte; i++) p[i] = pred[i];
    *auc = gen_ev_auc(p, yte, nte);
    rc = 0;
    goto done;
xgb_error:
    snprintf(err, errcap, "%s", XGBGetLastError());
done:
    if (b) XGBoosterFree(b);
    if (dtr) XGDMatrixFree(dtr);
    if (dte) XGDMatrixFree(dte);
    free(xtr), free(xte), free(ytr), free(yte), free(p);
    return rc;
}

static genesis_status gen_ev_fid_xgb(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_emb *e,
                                     const gen_ev_opts *o, genesis_eval_result *r) {
    int64_t nr = d->real.n, ns = d->syn.n, cap = o->detection_rows;
    int64_t *rr = NULL, *sr = NULL, *perm = NULL;
    int32_t *y = NULL, *fold = NULL;
    genesis_status st = GENESIS_OK;
    if (cap > 0 && nr > cap) {
        if ((st = gen_ev_sample_rows(ctx, nr, cap, o->seed, GEN_EV_STREAM_XGB, &rr))) goto done;
        nr = cap;
    }
    if (cap > 0 && ns > cap) {
        if ((st = gen_ev_sample_rows(ctx, ns, cap, o->seed, GEN_EV_STREAM_XGB + 1, &sr))) goto done;
        ns = cap;
    }
    r->xgb_real_rows = nr;
    r->xgb_syn_rows = ns;
    int dim = e->dim ? e->dim : 1;
    int64_t n = nr + ns;
    y = malloc((size_t)n * sizeof *y);
    fold = malloc((size_t)n * sizeof *fold);
    perm = malloc((size_t)n * sizeof *perm);
    if (!y || !fold || !perm) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost detection");
        goto done;
    }
    gen_ev_xgb_set set = {e, d, rr, sr, nr};
    for (int64_t i = 0; i < n; i++) y[i] = i >= nr; /* synthetic = 1, as synthcity labels */
    /* stratified folds: each class shuffled (seeded), then dealt round-robin */
    gen_ev_stratified_folds(y, n, 3, o->seed, GEN_EV_STREAM_XGB + 2, perm, fold);
    /* the three folds in parallel, each booster on one thread: the same trees whatever the
     * machine's thread count */
    int frc[3] = {0, 0, 0};
    char ferr[3][256];
    int nth = o->threads < 3 ? o->threads : 3;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
    for (int k = 0; k < 3; k++)
        frc[k] = gen_ev_xgb_fold(&set, y, fold, n, dim, k, o->seed, &r->xgb_auc[k], ferr[k],
                                 sizeof ferr[k]);
    for (int k = 0; k < 3; k++)
        if (frc[k]) {
            st = gen_set_error(ctx, GENESIS_ERR_INTERNAL, "XGBoost detection, fold %d: %s",
                               k + 1, ferr[k]);
            goto done;
        }
    double sum = 0, sum_auc = 0;
    for (int k = 0; k < 3; k++) {
        double auc = isnan(r->xgb_auc[k]) ? 0.5 : r->xgb_auc[k];
        sum_auc += auc;
        sum += (auc > 0.5 ? auc : 0.5) * 2 - 1;
    }
    r->xgb_mean_auc = sum_auc / 3.0;
    r->score[GENESIS_EVAL_DETECTION_XGBOOST] = 1.0 - sum / 3.0;
done:
    free(rr), free(sr), free(perm), free(y), free(fold);
    return st;
}

/* ---- train on synthetic, test on real, with XGBoost (TabSyn's eval_mle) ------------------ */

/* One booster: `rounds` rounds of binary:logistic on (x, y) with the grid point's depth,
 * min_child_weight and gamma; then P(1) of `nq` query sets at 10, 50 and 100 trees. Returns
 * 0, or -1 with XGBoost's message in err. */
static int gen_ev_mle_booster(const float *x, const float *y, int64_t n, int dim, int depth,
                              int mcw, int gamma, uint64_t seed, const float *const *qx,
                              const int64_t *qn, int nq, double *const *out3, char *err,
                              size_t errcap) {
    DMatrixHandle dtr = NULL, dq[2] = {NULL, NULL};
    BoosterHandle b = NULL;
    char dep[16], mc[16], ga[16], sd[32];
    snprintf(dep, sizeof dep, "%d", depth);
    snprintf(mc, sizeof mc, "%d", mcw);
    snprintf(ga, sizeof ga, "%d", gamma);
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)(seed & 0x7fffffffull));
    const char *params[][2] = {{"objective", "binary:logistic"}, {"booster", "gbtree"},
                               {"tree_method", "hist"},          {"max_depth", dep},
                               {"min_child_weight", mc},         {"gamma", ga},
                               {"eta", "0.3"},                   {"max_bin", "256"},
                               {"lambda", "1"},                  {"base_score", "0.5"},
                               {"nthread", "1"},                 {"verbosity", "0"},
                               {"seed", sd}};
    int rc = -1;
    if (XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)dim, NAN, &dtr) ||
        XGDMatrixSetFloatInfo(dtr, "label", y, (bst_ulong)n) || XGBoosterCreate(&dtr, 1, &b))
        goto xgb_error;
    for (size_t q = 0; q < sizeof params / sizeof params[0]; q++)
        if (XGBoosterSetParam(b, params[q][0], params[q][1])) goto xgb_error;
    for (int it = 0; it < 100; it++)
        if (XGBoosterUpdateOneIter(b, it, dtr)) goto xgb_error;
    static const unsigned trees[3] = {10, 50, 100};
    for (int q = 0; q < nq; q++) {
        if (XGDMatrixCreateFromMat(qx[q], (bst_ulong)qn[q], (bst_ulong)dim, NAN, &dq[q]))
            goto xgb_error;
        for (int k = 0; k < 3; k++) {
            bst_ulong len = 0;
            const float *pred = NULL;
            if (XGBoosterPredict(b, dq[q], 0, trees[k], 0, &len, &pred)) goto xgb_error;
            if ((int64_t)len != qn[q]) {
                snprintf(err, errcap, "XGBoost returned %llu predictions for %lld rows",
                         (unsigned long long)len, (long long)qn[q]);
                goto done;
            }
            for (int64_t i = 0; i < qn[q]; i++) out3[q][(size_t)k * qn[q] + i] = pred[i];
        }
    }
    rc = 0;
    goto done;
xgb_error:
    snprintf(err, errcap, "%s", XGBGetLastError());
done:
    if (b) XGBoosterFree(b);
    if (dtr) XGDMatrixFree(dtr);
    for (int q = 0; q < 2; q++)
        if (dq[q]) XGDMatrixFree(dq[q]);
    return rc;
}

/* Labelled rows of table t for the binary target: y = 1 for the positive id, 0 for the
 * other real class; rows with a missing or any other target value are left out. At most
 * `cap` rows (seeded subsample; 0 = all). */
static genesis_status gen_ev_mle_rows(genesis_ctx *ctx, const gen_ev_table *t, int target,
                                      int32_t pos, int32_t neg, int64_t cap, uint64_t seed,
                                      uint64_t stream, int64_t **rows, float **y, int64_t *n) {
    *rows = NULL, *y = NULL, *n = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < t->n; i++) m += t->cat[target][i] == pos || t->cat[target][i] == neg;
    int64_t *all = malloc((size_t)(m ? m : 1) * sizeof *all);
    GEN_RETURN_IF(!all, ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
    m = 0;
    for (int64_t i = 0; i < t->n; i++)
        if (t->cat[target][i] == pos || t->cat[target][i] == neg) all[m++] = i;
    if (cap > 0 && m > cap) {
        int64_t *pick = NULL;
        genesis_status st = gen_ev_sample_rows(ctx, m, cap, seed, stream, &pick);
        if (st) {
            free(all);
            return st;
        }
        for (int64_t k = 0; k < cap; k++) pick[k] = all[pick[k]];
        free(all);
        all = pick;
        m = cap;
    }
    float *yy = malloc((size_t)(m ? m : 1) * sizeof *yy);
    if (!yy) {
        free(all);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
    }
    for (int64_t k = 0; k < m; k++) yy[k] = t->cat[target][all[k]] == pos ? 1.0f : 0.0f;
    *rows = all, *y = yy, *n = m;
    return GENESIS_OK;
}

/* TabSyn's protocol for one training table t: 1/9 of its rows (seeded shuffle) validate the
 * 36-point grid (n_estimators 10 / 50 / 100, min_child_weight 1 / 10, max_depth 5 / 10 / 20,
 * gamma 0 / 1), the point with the best validation AUC (first in sklearn's ParameterGrid
 * order on ties) is scored by its ROC AUC on the holdout. The three n_estimators of one
 * (depth, min_child_weight, gamma) are the first 10, 50 and 100 trees of one booster (the
 * same trees a separate fit would grow: no sampling). */
static genesis_status gen_ev_mle_one(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                                     const gen_ev_table *t, int target, int32_t pos,
                                     int32_t neg, const int64_t *hrows, const int32_t *hy,
                                     int64_t nh, uint64_t stream, gen_ev_mle_res *res) {
    int64_t *rows = NULL;
    float *y = NULL, *xall = NULL, *xtr = NULL, *ytr = NULL, *xva = NULL, *xte = NULL;
    int32_t *yva = NULL;
    double *pv = NULL, *pt = NULL;
    int64_t n = 0;
    gen_ev_emb e;
    memset(&e, 0, sizeof e);
    genesis_status st = gen_ev_mle_rows(ctx, t, target, pos, neg, o->tstr_rows, o->seed, stream,
                                        &rows, &y, &n);
    if (st) return st;
    res->train_rows = n;
    int64_t nva = n / 9, ntr = n - nva;
    int single = 1;
    for (int64_t i = 1; i < n && single; i++) single = y[i] == y[0];
    if (ntr < 1 || nva < 1 || single) goto done; /* NaN: nothing to learn or validate */
    if ((st = gen_ev_emb_fit(ctx, d, t, target, &e))) goto done;
    int dim = e.dim ? e.dim : 1;
    xall = malloc((size_t)n * dim * sizeof *xall);
    xtr = malloc((size_t)ntr * dim * sizeof *xtr);
    ytr = malloc((size_t)ntr * sizeof *ytr);
    xva = malloc((size_t)nva * dim * sizeof *xva);
    yva = malloc((size_t)nva * sizeof *yva);
    xte = malloc((size_t)(nh ? nh : 1) * dim * sizeof *xte);
    pv = malloc((size_t)12 * 3 * nva * sizeof *pv);
    pt = malloc((size_t)12 * 3 * (nh ? nh : 1) * sizeof *pt);
    if (!xall || !xtr || !ytr || !xva || !yva || !xte || !pv || !pt) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
        goto done;
    }
    if (e.dim) {
        gen_ev_emb_dense(&e, t, rows, n, xall);
        gen_ev_emb_dense(&e, &d->hold, hrows, nh, xte);
    } else {
        memset(xall, 0, (size_t)n * sizeof *xall);
        memset(xte, 0, (size_t)(nh ? nh : 1) * sizeof *xte);
    }
    /* seeded shuffle; the first n / 9 rows validate (TabSyn: int(n / 9) after a shuffle) */
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    if (!perm) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    gen_rng g;
    gen_rng_init(&g, o->seed, stream + 1);
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)gen_rng_below(&g, (uint64_t)(i + 1));
        int64_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t i = perm[k];
        if (k < nva) {
            memcpy(xva + (size_t)k * dim, xall + (size_t)i * dim, (size_t)dim * sizeof *xva);
            yva[k] = y[i] > 0.5f;
        } else {
            memcpy(xtr + (size_t)(k - nva) * dim, xall + (size_t)i * dim, (size_t)dim * sizeof *xtr);
            ytr[k - nva] = y[i];
        }
    }
    free(perm);
    /* the 12 boosters in parallel, one thread each; grid order as sklearn's ParameterGrid
     * (keys sorted: gamma, max_depth, min_child_weight, n_estimators; the last fastest) */
    static const int G[2] = {0, 1}, DEP[3] = {5, 10, 20}, MCW[2] = {1, 10};
    int frc[12];
    char ferr[12][256];
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 1)
    for (int b = 0; b < 12; b++) {
        const float *qx[2] = {xva, xte};
        int64_t qn[2] = {nva, nh};
        double *out3[2] = {pv + (size_t)b * 3 * nva, pt + (size_t)b * 3 * (nh ? nh : 1)};
        frc[b] = gen_ev_mle_booster(xtr, ytr, ntr, dim, DEP[(b / 2) % 3], MCW[b % 2], G[b / 6],
                                    o->seed, qx, qn, nh ? 2 : 1, out3, ferr[b], sizeof ferr[b]);
    }
    for (int b = 0; b < 12; b++)
        if (frc[b]) {
            st = gen_set_error(ctx, GENESIS_ERR_INTERNAL, "XGBoost TSTR: %s", ferr[b]);
            goto done;
        }
    static const int TREES[3] = {10, 50, 100};
    double best = -1;
    for (int b = 0; b < 12; b++)
        for (int k = 0; k < 3; k++) {
            double v = gen_ev_auc(pv + ((size_t)b * 3 + k) * nva, yva, nva);
            if (isnan(v)) v = -1; /* one class in the validation rows */
            if (v > best) {
                best = v;
                res->val_auc = v < 0 ? NAN : v;
                res->test_auc = nh ? gen_ev_auc(pt + ((size_t)b * 3 + k) * nh, hy, nh) : NAN;
                res->gamma = G[b / 6], res->depth = DEP[(b / 2) % 3], res->mcw = MCW[b % 2];
                res->trees = TREES[k];
            }
        }
done:
    gen_ev_emb_free(&e);
    free(rows), free(y), free(xall), free(xtr), free(ytr), free(xva), free(yva), free(xte);
    free(pv), free(pt);
    return st;
}

static genesis_status gen_ev_fid_mle(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                                     genesis_eval_result *r) {
    int target = -1;
    for (int c = 0; c < d->ncols; c++)
        if (!strcmp(d->names[c], o->target)) target = c;
    if (target < 0 || d->continuous[target]) return GENESIS_OK;
    /* the real table's two classes; the minority one is the positive class */
    int32_t nid = d->dict[target].n;
    int64_t *cnt = calloc((size_t)(nid ? nid : 1), sizeof *cnt);
    GEN_RETURN_IF(!cnt, ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
    for (int64_t i = 0; i < d->real.n; i++)
        if (d->real.cat[target][i] >= 0) cnt[d->real.cat[target][i]]++;
    int32_t pos = -1, neg = -1, k = 0;
    for (int32_t id = 0; id < nid; id++)
        if (cnt[id]) {
            k++;
            if (pos < 0 || cnt[id] < cnt[pos]) neg = pos >= 0 ? pos : neg, pos = id;
            else if (neg < 0 || cnt[id] < cnt[neg]) neg = id;
        }
    free(cnt);
    r->mle_binary = k == 2;
    if (k != 2) return GENESIS_OK; /* AUC for binary targets only, as the papers report */
    int64_t *hrows = NULL, nh = 0;
    float *hyf = NULL;
    int32_t *hy = NULL;
    genesis_status st = gen_ev_mle_rows(ctx, &d->hold, target, pos, neg, 0, o->seed, 0, &hrows,
                                        &hyf, &nh);
    if (st) return st;
    r->mle_test_rows = nh;
    if (!(hy = malloc((size_t)(nh ? nh : 1) * sizeof *hy))) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the XGBoost TSTR");
        goto done;
    }
    for (int64_t i = 0; i < nh; i++) hy[i] = hyf[i] > 0.5f;
    if ((st = gen_ev_mle_one(ctx, d, o, &d->syn, target, pos, neg, hrows, hy, nh,
                             GEN_EV_STREAM_MLE, &r->mle[0])) ||
        (st = gen_ev_mle_one(ctx, d, o, &d->real, target, pos, neg, hrows, hy, nh,
                             GEN_EV_STREAM_MLE + 2, &r->mle[1])))
        goto done;
    r->score[GENESIS_EVAL_TSTR_XGBOOST_AUC] = r->mle[0].test_auc;
    r->score[GENESIS_EVAL_TRTR_XGBOOST_AUC] = r->mle[1].test_auc;
done:
    free(hrows), free(hyf), free(hy);
    return st;
}
#endif /* GEN_HAVE_XGBOOST */

genesis_status gen_ev_fidelity(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                               genesis_eval_result *r) {
#ifdef GEN_HAVE_XGBOOST
    r->xgb_available = 1;
#else
    r->xgb_available = 0;
#endif
    unsigned want = o->parts & (GENESIS_EVAL_PART_QUALITY | GENESIS_EVAL_PART_DETECTION);
    if (d->has_holdout)
        want |= o->parts & (GENESIS_EVAL_PART_PRIVACY | GENESIS_EVAL_PART_USEFULNESS);
    if (!want) return GENESIS_OK;
    gen_ev_emb e;
    GEN_TRY(gen_ev_emb_fit(ctx, d, &d->real, -1, &e));
    genesis_status st = GENESIS_OK;
    if (want & GENESIS_EVAL_PART_QUALITY) st = gen_ev_fid_alpha_beta(ctx, d, &e, o, r);
    if (!st && (want & GENESIS_EVAL_PART_PRIVACY) && d->hold.n > 0 && d->syn.n > 0)
        st = gen_ev_fid_dcr_share(ctx, d, &e, o, r);
#ifdef GEN_HAVE_XGBOOST
    if (!st && (want & GENESIS_EVAL_PART_DETECTION)) st = gen_ev_fid_xgb(ctx, d, &e, o, r);
    if (!st && (want & GENESIS_EVAL_PART_USEFULNESS) && o->target) st = gen_ev_fid_mle(ctx, d, o, r);
#endif
    gen_ev_emb_free(&e);
    return st;
}
