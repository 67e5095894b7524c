/*
 * evaluate_efficacy.c — usefulness: train on synthetic, test on real (TSTR), after SDMetrics'
 * ML efficacy metrics (single_table/efficacy/base.py, binary.py, multiclass.py;
 * docs/algorithms.md §C5), compared with the same models trained on the real table (TRTR).
 *
 *   target     a categorical column. Labels are compared after removing surrounding spaces
 *              and one trailing '.' (Adult's test split writes " >50K." for " >50K"); rows
 *              whose target is missing are left out.
 *   metric     two classes in the real table: F1 of the positive class, which is the real
 *              table's minority class (Adult: ">50K"); more classes: macro F1 over the
 *              classes seen in the truth or the predictions.
 *   training   the synthetic table (or the real one for the comparison), cut to at most
 *              tstr_rows rows (default 50,000; seeded subsample); features fitted on the
 *              training rows (evaluate_ml.c: numeric NaN -> mean, one-hot of object columns,
 *              RobustScaler); a single-class training table predicts that class.
 *   models     LogisticRegression(lbfgs, class_weight="balanced", max_iter=50) and
 *              MLPClassifier((50,), max_iter=50), as SDMetrics' BinaryLogisticRegression and
 *              BinaryMLPClassifier (the MLP on the project's backend layers).
 *   testing    every holdout row.
 *   reason     a macro F1 over several classes says so beside its numbers
 *              (gen_ev_tstr_reason): every class counts equally, so rare classes that no
 *              model predicts pull it down for real training rows as much as for synthetic
 *              ones.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "evaluate_ml.h"

const char *gen_ev_norm_label(const char *s, char *buf, size_t cap) {
    size_t n = strlen(s);
    while (n > 0 && (*s == ' ' || *s == '\t')) s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n > 0 && s[n - 1] == '.') n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n >= cap) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

const char *gen_ev_tstr_reason(const genesis_eval_result *r, char *buf, size_t cap) {
    if (cap == 0) return buf;
    buf[0] = 0;
    if (r->ntstr == 0 || r->positive || r->nclasses < 3) return buf;
    int n = snprintf(buf, cap,
                     "macro F1 over %d classes: every class counts equally, so classes that a "
                     "model rarely or never predicts (the rare ones) pull the mean down; with "
                     "many rare classes it is low for a model trained on real rows too",
                     r->nclasses);
    double lo = INFINITY;
    for (int k = 0; k < r->ntstr; k++)
        if (isfinite(r->tstr[k].real) && r->tstr[k].real < lo) lo = r->tstr[k].real;
    if (n > 0 && (size_t)n < cap && isfinite(lo) && lo < 0.5)
        snprintf(buf + n, cap - (size_t)n,
                 " (here %.3f at the lowest): compare the synthetic score with the "
                 "trained-on-real one, not with 1", lo);
    return buf;
}

/* Class list: normalised labels, in the order first met (real, synthetic, holdout). */
typedef struct {
    int K, cap;
    char **name;
    int32_t *of_id; /* dictionary id -> class (-1 for none) */
} gen_ev_classes;

static int gen_ev_class_of(gen_ev_classes *cl, const char *label) {
    char buf[512];
    gen_ev_norm_label(label, buf, sizeof buf);
    for (int k = 0; k < cl->K; k++)
        if (!strcmp(cl->name[k], buf)) return k;
    if (cl->K == cl->cap) {
        int nc = cl->cap ? cl->cap * 2 : 8;
        char **nn = realloc(cl->name, (size_t)nc * sizeof *nn);
        if (!nn) return -1;
        cl->name = nn;
        cl->cap = nc;
    }
    cl->name[cl->K] = gen_strdup(buf);
    if (!cl->name[cl->K]) return -1;
    return cl->K++;
}

static void gen_ev_classes_free(gen_ev_classes *cl) {
    for (int k = 0; k < cl->K; k++) free(cl->name[k]);
    free(cl->name);
    free(cl->of_id);
}

/* Rows of t with a target, cut to at most cap (seeded); their classes. */
static genesis_status gen_ev_labelled_rows(genesis_ctx *ctx, const gen_ev_table *t, int target,
                                           const gen_ev_classes *cl, int64_t cap, uint64_t seed,
                                           uint64_t stream, int64_t **rows_out, int32_t **y_out,
                                           int64_t *n_out) {
    int64_t n = 0;
    int64_t *rows = malloc((size_t)t->n * sizeof *rows);
    GEN_RETURN_IF(!rows, ctx, GENESIS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < t->n; i++)
        if (t->cat[target][i] >= 0) rows[n++] = i;
    if (cap > 0 && n > cap) {
        int64_t *pick = NULL;
        genesis_status st = gen_ev_sample_rows(ctx, n, cap, seed, stream, &pick);
        if (st) {
            free(rows);
            return st;
        }
        for (int64_t k = 0; k < cap; k++) pick[k] = rows[pick[k]];
        free(rows);
        rows = pick;
        n = cap;
    }
    int32_t *y = malloc((size_t)(n ? n : 1) * sizeof *y);
    if (!y) {
        free(rows);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    for (int64_t k = 0; k < n; k++) y[k] = cl->of_id[t->cat[target][rows[k]]];
    *rows_out = rows;
    *y_out = y;
    *n_out = n;
    return GENESIS_OK;
}

/* One training set's features and the holdout encoded with them. */
typedef struct {
    gen_ev_features f;
    double *x, *xt;        /* (n x dim), (nh x dim) */
    const int32_t *y;
    int64_t n;
    int single;            /* one class only: predict it */
} gen_ev_trainset;

static genesis_status gen_ev_trainset_build(genesis_ctx *ctx, const gen_ev_data *d,
                                            const gen_ev_table *t, const int64_t *rows,
                                            const int32_t *y, int64_t n, int target,
                                            const int64_t *hrows, int64_t nh,
                                            gen_ev_trainset *ts) {
    memset(ts, 0, sizeof *ts);
    ts->y = y;
    ts->n = n;
    ts->single = 1;
    for (int64_t i = 1; i < n && ts->single; i++) ts->single = y[i] == y[0];
    GEN_TRY(gen_ev_features_fit(ctx, d, t, rows, n, target, &ts->f));
    int dim = ts->f.dim;
    ts->x = malloc((size_t)(n ? n : 1) * (size_t)(dim ? dim : 1) * sizeof *ts->x);
    ts->xt = malloc((size_t)(nh ? nh : 1) * (size_t)(dim ? dim : 1) * sizeof *ts->xt);
    GEN_RETURN_IF(!ts->x || !ts->xt, ctx, GENESIS_ERR_NOMEM, "out of memory building features");
    gen_ev_features_apply(&ts->f, d, t, rows, n, ts->x);
    gen_ev_features_apply(&ts->f, d, &d->hold, hrows, nh, ts->xt);
    return GENESIS_OK;
}

static void gen_ev_trainset_free(gen_ev_trainset *ts) {
    gen_ev_features_free(&ts->f);
    free(ts->x);
    free(ts->xt);
}

/* Fits one model (0 logistic regression, 1 MLP) on a training set; pred = holdout classes. */
static genesis_status gen_ev_fit_predict(genesis_ctx *ctx, const gen_ev_opts *o,
                                         const gen_ev_trainset *ts, int model, int K,
                                         int64_t nh, int32_t *pred) {
    int dim = ts->f.dim;
    if (ts->single || ts->n == 0) {
        for (int64_t i = 0; i < nh; i++) pred[i] = ts->n ? ts->y[0] : 0;
        return GENESIS_OK;
    }
    if (model == 1)
        return gen_ev_mlp_fit_predict(ctx, ts->x, ts->y, ts->n, dim, K, 50, 50, o->seed, 1,
                                      ts->xt, nh, pred);
    gen_ev_logreg m;
    GEN_TRY(gen_ev_logreg_fit(ctx, ts->x, ts->y, ts->n, dim, K, 1, 50, &m));
    gen_ev_logreg_predict(&m, ts->xt, nh, NULL, pred);
    gen_ev_logreg_free(&m);
    return GENESIS_OK;
}

genesis_status gen_ev_efficacy(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                               genesis_eval_result *r) {
    int target = -1;
    for (int c = 0; c < d->ncols; c++)
        if (!strcmp(d->names[c], o->target)) target = c;
    GEN_RETURN_IF(target < 0 || d->continuous[target], ctx, GENESIS_ERR_INTERNAL,
                  "target checked before");
    const gen_ev_dict *dict = &d->dict[target];
    gen_ev_classes cl;
    memset(&cl, 0, sizeof cl);
    int64_t *srows = NULL, *rrows = NULL, *hrows = NULL, *cnt = NULL;
    int32_t *sy = NULL, *ry = NULL, *hy = NULL;
    int64_t ns = 0, nr = 0, nh = 0;
    genesis_status st = GENESIS_OK;
    cl.of_id = malloc(((size_t)dict->n + 1) * sizeof *cl.of_id);
    if (!cl.of_id) goto oom;
    /* classes: real labels first, so the real table decides the class list */
    for (int32_t id = 0; id < dict->n; id++) cl.of_id[id] = -1;
    const gen_ev_table *tabs[3] = {&d->real, &d->syn, &d->hold};
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < tabs[k]->n; i++) {
            int32_t id = tabs[k]->cat[target][i];
            if (id >= 0 && cl.of_id[id] < 0 && (cl.of_id[id] = gen_ev_class_of(&cl, dict->label[id])) < 0)
                goto oom;
        }
    /* the real table's classes and its minority class */
    cnt = calloc((size_t)cl.K + 1, sizeof *cnt);
    if (!cnt) goto oom;
    for (int64_t i = 0; i < d->real.n; i++) {
        int32_t id = d->real.cat[target][i];
        if (id >= 0) cnt[cl.of_id[id]]++;
    }
    int real_classes = 0, minority = -1;
    for (int k = 0; k < cl.K; k++) {
        if (cnt[k] == 0) continue;
        real_classes++;
        if (minority < 0 || cnt[k] < cnt[minority]) minority = k;
    }
    if (real_classes < 2) {
        r->note = gen_strdup("usefulness skipped: the target column has fewer than two classes "
                             "in the real table");
        goto done;
    }
    int pos = real_classes == 2 ? minority : -1;
    r->nclasses = real_classes;
    r->tstr_metric = pos >= 0 ? "f1" : "macro_f1";
    if (pos >= 0 && !(r->positive = gen_strdup(cl.name[pos]))) goto oom;
    if ((st = gen_ev_labelled_rows(ctx, &d->syn, target, &cl, o->tstr_rows, o->seed,
                                   GEN_EV_STREAM_TSTR, &srows, &sy, &ns)) ||
        (st = gen_ev_labelled_rows(ctx, &d->real, target, &cl, o->tstr_rows, o->seed,
                                   GEN_EV_STREAM_TSTR + 1, &rrows, &ry, &nr)) ||
        (st = gen_ev_labelled_rows(ctx, &d->hold, target, &cl, 0, o->seed,
                                   GEN_EV_STREAM_TSTR + 2, &hrows, &hy, &nh)))
        goto done;
    if (nh == 0) {
        r->note = gen_strdup("usefulness skipped: no holdout row has a target value");
        goto done;
    }
    r->tstr_train_rows_syn = ns;
    r->tstr_train_rows_real = nr;
    r->tstr_test_rows = nh;
    /* binary: relabel to (other = 0, positive = 1) so the sigmoid model predicts pos */
    int K = cl.K;
    if (pos >= 0) {
        for (int64_t i = 0; i < ns; i++) sy[i] = sy[i] == pos;
        for (int64_t i = 0; i < nr; i++) ry[i] = ry[i] == pos;
        for (int64_t i = 0; i < nh; i++) hy[i] = hy[i] == pos;
        K = 2;
        pos = 1;
    }
    r->tstr[0].model = "LogisticRegression";
    r->tstr[1].model = "MLP";
    r->ntstr = 2;
    {
        /* four independent fits (2 models x 2 training tables), one per thread, each with
         * single-threaded BLAS: on two cores this beats threading inside small products */
        gen_ev_trainset ts[2];
        memset(ts, 0, sizeof ts);
        int32_t *pred = malloc((size_t)4 * (size_t)nh * sizeof *pred);
        genesis_status js[4] = {GENESIS_OK, GENESIS_OK, GENESIS_OK, GENESIS_OK};
        if (!pred) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        if (!st) st = gen_ev_trainset_build(ctx, d, &d->syn, srows, sy, ns, target, hrows, nh, &ts[0]);
        if (!st) st = gen_ev_trainset_build(ctx, d, &d->real, rrows, ry, nr, target, hrows, nh, &ts[1]);
        if (!st) {
            int saved = openblas_get_num_threads();
            openblas_set_num_threads(1);
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 1)
            for (int job = 0; job < 4; job++) /* MLPs first: they take longest */
                js[job] = gen_ev_fit_predict(NULL, o, &ts[job & 1], job < 2, K, nh,
                                             pred + (size_t)job * nh);
            openblas_set_num_threads(saved);
            /* jobs report no message (one context, several threads): say it here */
            for (int job = 0; job < 4 && !st; job++)
                if (js[job]) st = gen_set_error(ctx, js[job], "usefulness: fitting the %s "
                                                "model failed (%s)", job < 2 ? "MLP" :
                                                "logistic regression", genesis_status_str(js[job]));
        }
        if (!st)
            for (int job = 0; job < 4; job++) {
                const int32_t *pj = pred + (size_t)job * nh;
                double sc = pos >= 0 ? gen_ev_f1(hy, pj, nh, pos) : gen_ev_macro_f1(hy, pj, nh, K);
                gen_ev_tstr_res *tr = &r->tstr[job < 2 ? 1 : 0];
                if (job & 1) tr->real = sc;
                else tr->synthetic = sc;
            }
        gen_ev_trainset_free(&ts[0]);
        gen_ev_trainset_free(&ts[1]);
        free(pred);
        if (st) goto done;
    }
    r->score[GENESIS_EVAL_TSTR_LOGISTIC] = r->tstr[0].synthetic;
    r->score[GENESIS_EVAL_TSTR_MLP] = r->tstr[1].synthetic;
    r->score[GENESIS_EVAL_TRTR_LOGISTIC] = r->tstr[0].real;
    r->score[GENESIS_EVAL_TRTR_MLP] = r->tstr[1].real;
    goto done;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory preparing the TSTR labels");
done:
    gen_ev_classes_free(&cl);
    free(srows), free(rrows), free(hrows), free(cnt), free(sy), free(ry), free(hy);
    return st;
}
