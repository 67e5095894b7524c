/*
 * evaluate_detection.c — SDMetrics' LogisticDetection (single_table/detection/base.py and
 * sklearn.py; docs/algorithms.md §C5): can a logistic regression tell real rows (label 1) from
 * synthetic rows (label 0)?
 *
 *   1. each table is cut to at most detection_rows rows (default 20,000; seeded subsample,
 *      as bench/quality/score.py does before calling SDMetrics);
 *   2. features: HyperTransformer fitted on the real rows (numeric columns NaN -> mean,
 *      object columns one-hot; a category only the synthetic table has gives all zeros,
 *      where SDMetrics' encoder would raise);
 *   3. 3-fold stratified cross-validation (seeded shuffle); in each fold SimpleImputer ->
 *      RobustScaler -> LogisticRegression(lbfgs, C = 1, max_iter 100) fitted on the
 *      training part, ROC AUC of P(real) on the held-out part (folds run in parallel);
 *   4. score = 1 - mean over folds of (2 max(AUC, 0.5) - 1): 1 = indistinguishable,
 *      0 = perfectly separable.
 * Each fold's rows are built from the category codes as sparse rows (one entry per column,
 * gen_ev_sparse): the one-hot width of high-cardinality columns costs neither memory nor
 * time per L-BFGS iteration. The model equals the dense one up to summation order
 * (tests/test_evaluate_sparse.c; docs/evaluate.md "Speed").
 * The all-pairs quality score cannot see a table whose every marginal is right and every
 * relation wrong; this score can, so the report puts it next to quality.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "evaluate_ml.h"
#include "rng.h"

/* The rows of detection: the real rows (rr, nr; NULL = 0..nr-1) then the synthetic ones. */
typedef struct {
    const gen_ev_features *f;
    const gen_ev_data *d;
    const int64_t *rr, *sr;
    int64_t nr;
} gen_ev_detect_set;

/* The unscaled features of the rows of fold k (te = 1) or of the other folds (te = 0), as
 * sparse rows from the category codes (the n x dim one-hot matrix is never built), and their
 * labels into yt. */
static genesis_status gen_ev_detect_rows(genesis_ctx *ctx, const gen_ev_detect_set *set,
                                         const int32_t *y, const int32_t *fold, int64_t n, int k,
                                         int te, gen_ev_sparse *sx, int32_t *yt) {
    const gen_ev_features *f = set->f;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) m += (fold[i] == k) == te;
    GEN_TRY(gen_ev_sparse_alloc(ctx, m, f->dim, m * f->ncols, sx));
    m = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((fold[i] == k) != te) continue;
        int real = i < set->nr;
        int64_t row = real ? (set->rr ? set->rr[i] : i)
                           : (set->sr ? set->sr[i - set->nr] : i - set->nr);
        int64_t e = sx->start[m];
        e += gen_ev_features_row(f, set->d, real ? &set->d->real : &set->d->syn, row, sx->col + e,
                                 sx->val + e);
        sx->start[m + 1] = e;
        yt[m++] = y[i];
    }
    return GENESIS_OK;
}

/* Fold k: scaler and logistic regression fitted on the other folds, AUC on fold k. */
static genesis_status gen_ev_detect_fold(genesis_ctx *ctx, const gen_ev_detect_set *set,
                                         const int32_t *y, const int32_t *fold, int64_t n, int k,
                                         double *auc) {
    int dim = set->f->dim;
    double *center = malloc((size_t)(dim ? dim : 1) * sizeof *center);
    double *scale = malloc((size_t)(dim ? dim : 1) * sizeof *scale);
    double *p1 = malloc((size_t)(n ? n : 1) * sizeof *p1);
    int32_t *yt = malloc((size_t)(n ? n : 1) * sizeof *yt);
    gen_ev_sparse sx;
    memset(&sx, 0, sizeof sx);
    gen_ev_logreg m;
    memset(&m, 0, sizeof m);
    genesis_status st = GENESIS_OK;
    if (!center || !scale || !p1 || !yt) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the detection metric");
        goto done;
    }
    if ((st = gen_ev_detect_rows(ctx, set, y, fold, n, k, 0, &sx, yt))) goto done;
    if ((st = gen_ev_robust_fit_sparse(ctx, &sx, center, scale))) goto done;
    gen_ev_sparse_scale(&sx, center, scale);
    if ((st = gen_ev_logreg_fit_sparse(ctx, &sx, yt, 2, 0, 100, &m))) goto done;
    gen_ev_sparse_free(&sx);
    if ((st = gen_ev_detect_rows(ctx, set, y, fold, n, k, 1, &sx, yt))) goto done;
    gen_ev_sparse_scale(&sx, center, scale);
    gen_ev_logreg_predict_sparse(&m, &sx, p1, NULL);
    *auc = gen_ev_auc(p1, yt, sx.n);
done:
    gen_ev_logreg_free(&m);
    gen_ev_sparse_free(&sx);
    free(center), free(scale), free(p1), free(yt);
    return st;
}

genesis_status gen_ev_detection(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                                genesis_eval_result *r) {
    int64_t nr = d->real.n, ns = d->syn.n, cap = o->detection_rows;
    int64_t *rr = NULL, *sr = NULL, *perm = NULL;
    int32_t *y = NULL, *fold = NULL;
    gen_ev_features f;
    memset(&f, 0, sizeof f);
    genesis_status st = GENESIS_OK;
    if (cap > 0 && nr > cap) {
        if ((st = gen_ev_sample_rows(ctx, nr, cap, o->seed, GEN_EV_STREAM_DETECT, &rr))) goto done;
        nr = cap;
    }
    if (cap > 0 && ns > cap) {
        if ((st = gen_ev_sample_rows(ctx, ns, cap, o->seed, GEN_EV_STREAM_DETECT + 1, &sr)))
            goto done;
        ns = cap;
    }
    r->detect_real_rows = nr;
    r->detect_syn_rows = ns;
    if ((st = gen_ev_features_fit(ctx, d, &d->real, rr, nr, -1, &f))) goto done;
    for (int j = 0; j < f.dim; j++) f.center[j] = 0, f.scale[j] = 1; /* scaled per fold */
    int64_t n = nr + ns;
    y = malloc((size_t)n * sizeof *y);
    fold = malloc((size_t)n * sizeof *fold);
    perm = malloc((size_t)n * sizeof *perm);
    if (!y || !fold || !perm) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the detection metric");
        goto done;
    }
    gen_ev_detect_set set = {&f, d, rr, sr, nr};
    for (int64_t i = 0; i < n; i++) y[i] = i < nr;
    /* stratified folds: each class shuffled, then dealt round-robin */
    gen_ev_stratified_folds(y, n, 3, o->seed, GEN_EV_STREAM_DETECT + 2, perm, fold);
    /* the three folds in parallel, each with single-threaded BLAS */
    genesis_status fs[3] = {GENESIS_OK, GENESIS_OK, GENESIS_OK};
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 1)
    for (int k = 0; k < 3; k++)
        fs[k] = gen_ev_detect_fold(NULL, &set, y, fold, n, k, &r->detect_auc[k]);
    openblas_set_num_threads(saved);
    for (int k = 0; k < 3 && !st; k++) /* folds report no message (one context, threads) */
        if (fs[k]) st = gen_set_error(ctx, fs[k], "detection: fold %d failed (%s)", k + 1,
                                      genesis_status_str(fs[k]));
    if (st) goto done;
    double sum = 0;
    for (int k = 0; k < 3; k++) {
        double auc = isnan(r->detect_auc[k]) ? 0.5 : r->detect_auc[k];
        sum += (auc > 0.5 ? auc : 0.5) * 2 - 1;
    }
    r->score[GENESIS_EVAL_DETECTION] = 1.0 - sum / 3.0;
done:
    gen_ev_features_free(&f);
    free(rr), free(sr), free(perm), free(y), free(fold);
    return st;
}
