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
 * The all-pairs quality score cannot see a table whose every marginal is right and every
 * relation wrong; this score can, so the report puts it next to quality.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "evaluate_ml.h"
#include "rng.h"

/* Fold k: scaler and logistic regression fitted on the other folds, AUC on fold k. */
static genesis_status gen_ev_detect_fold(genesis_ctx *ctx, const double *x, const int32_t *y,
                                         const int32_t *fold, int64_t n, int dim, int k,
                                         double *auc) {
    int64_t *tr = malloc((size_t)n * sizeof *tr), *te = malloc((size_t)n * sizeof *te);
    double *xs = malloc((size_t)n * (size_t)(dim ? dim : 1) * sizeof *xs);
    double *center = malloc((size_t)(dim ? dim : 1) * sizeof *center);
    double *scale = malloc((size_t)(dim ? dim : 1) * sizeof *scale);
    double *p1 = malloc((size_t)n * sizeof *p1);
    int32_t *yt = malloc((size_t)n * sizeof *yt);
    gen_ev_logreg m;
    memset(&m, 0, sizeof m);
    genesis_status st = GENESIS_OK;
    if (!tr || !te || !xs || !center || !scale || !p1 || !yt) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the detection metric");
        goto done;
    }
    int64_t ntr = 0, nte = 0;
    for (int64_t i = 0; i < n; i++) {
        if (fold[i] == k) te[nte++] = i;
        else tr[ntr++] = i;
    }
    if ((st = gen_ev_robust_fit(ctx, x, dim, tr, ntr, center, scale))) goto done;
    for (int64_t t = 0; t < ntr; t++) {
        const double *src = x + (size_t)tr[t] * dim;
        double *dst = xs + (size_t)t * dim;
        for (int j = 0; j < dim; j++) dst[j] = (src[j] - center[j]) / scale[j];
        yt[t] = y[tr[t]];
    }
    if ((st = gen_ev_logreg_fit(ctx, xs, yt, ntr, dim, 2, 0, 100, &m))) goto done;
    for (int64_t t = 0; t < nte; t++) {
        const double *src = x + (size_t)te[t] * dim;
        double *dst = xs + (size_t)t * dim;
        for (int j = 0; j < dim; j++) dst[j] = (src[j] - center[j]) / scale[j];
        yt[t] = y[te[t]];
    }
    gen_ev_logreg_predict(&m, xs, nte, p1, NULL);
    *auc = gen_ev_auc(p1, yt, nte);
done:
    gen_ev_logreg_free(&m);
    free(tr), free(te), free(xs), free(center), free(scale), free(p1), free(yt);
    return st;
}

genesis_status gen_ev_detection(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                                genesis_eval_result *r) {
    int64_t nr = d->real.n, ns = d->syn.n, cap = o->detection_rows;
    int64_t *rr = NULL, *sr = NULL, *perm = NULL;
    double *x = NULL;
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
    int dim = f.dim;
    for (int j = 0; j < dim; j++) f.center[j] = 0, f.scale[j] = 1; /* scaled per fold */
    int64_t n = nr + ns;
    x = malloc((size_t)n * (size_t)(dim ? dim : 1) * sizeof *x);
    y = malloc((size_t)n * sizeof *y);
    fold = malloc((size_t)n * sizeof *fold);
    perm = malloc((size_t)n * sizeof *perm);
    if (!x || !y || !fold || !perm) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory in the detection metric");
        goto done;
    }
    gen_ev_features_apply(&f, d, &d->real, rr, nr, x);
    gen_ev_features_apply(&f, d, &d->syn, sr, ns, x + (size_t)nr * dim);
    for (int64_t i = 0; i < n; i++) y[i] = i < nr;
    /* stratified folds: each class shuffled, then dealt round-robin */
    gen_ev_stratified_folds(y, n, 3, o->seed, GEN_EV_STREAM_DETECT + 2, perm, fold);
    /* the three folds in parallel, each with single-threaded BLAS */
    genesis_status fs[3] = {GENESIS_OK, GENESIS_OK, GENESIS_OK};
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 1)
    for (int k = 0; k < 3; k++) fs[k] = gen_ev_detect_fold(NULL, x, y, fold, n, dim, k, &r->detect_auc[k]);
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
    free(rr), free(sr), free(perm), free(x), free(y), free(fold);
    return st;
}
