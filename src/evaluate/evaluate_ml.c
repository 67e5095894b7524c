/*
 * evaluate_ml.c — the classifiers SDMetrics' detection and efficacy metrics use
 * (docs/algorithms.md §C5; sdmetrics/utils.py HyperTransformer, single_table/detection,
 * single_table/efficacy), re-implemented:
 *   - features: HyperTransformer (numeric: NaN -> mean; object: one-hot fitted on the
 *     training rows) -> SimpleImputer (mean; nothing left to impute) -> RobustScaler
 *     (median, interquartile range with numpy's linear percentiles, range 0 -> 1);
 *   - LogisticRegression(lbfgs): L2-regularised (C = 1) binary or multinomial logistic
 *     regression minimised by L-BFGS (memory 10, backtracking Armijo line search), stopping
 *     as scipy's L-BFGS-B does for sklearn (max |g| < 1e-4, relative decrease < 64 eps, or
 *     max_iter iterations); optional balanced class weights;
 *   - MLPClassifier((50,)): one ReLU hidden layer, softmax output, Adam, minibatches of 200,
 *     built on the CPU backend's operations (linear_forward/backward, relu, cross_entropy_rows,
 *     adam: the project's own layers, float32). Glorot-uniform initialisation from the
 *     context seed. Early stop as sklearn (10 epochs without improving the loss by 1e-4);
 *   - ROC AUC (Mann-Whitney with average ranks for ties), F1 and macro F1 as sklearn.
 * Results match sklearn in distribution, not bit for bit (different optimiser details).
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "evaluate_ml.h"
#include "rng.h"

/* ---- features ------------------------------------------------------------------------------ */

static int gen_ev_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile(v, q) with linear interpolation of sorted v. */
static double gen_ev_percentile(const double *v, int64_t n, double q) {
    if (n <= 0) return NAN;
    double pos = q / 100.0 * (double)(n - 1);
    int64_t lo = (int64_t)floor(pos);
    if (lo >= n - 1) return v[n - 1];
    double fr = pos - (double)lo;
    return v[lo] + fr * (v[lo + 1] - v[lo]);
}

/* Numeric value of a categorical id in a column pandas reads as numbers; NaN otherwise. */
static inline double gen_ev_cat_value(const gen_ev_dict *dc, int32_t id) {
    return (id >= 0 && dc->is_num[id]) ? dc->value[id] : NAN;
}

genesis_status gen_ev_features_fit(genesis_ctx *ctx, const gen_ev_data *d,
                                   const gen_ev_table *t, const int64_t *rows, int64_t n,
                                   int skip, gen_ev_features *f) {
    memset(f, 0, sizeof *f);
    int nc = d->ncols;
    f->ncols = nc;
    f->kind = gen_calloc((size_t)nc, sizeof *f->kind);
    f->offset = gen_calloc((size_t)nc, sizeof *f->offset);
    f->fill = gen_calloc((size_t)nc, sizeof *f->fill);
    f->slot = gen_calloc((size_t)nc, sizeof *f->slot);
    double *x = NULL;
    genesis_status st = GENESIS_OK;
    if (!f->kind || !f->offset || !f->fill || !f->slot) goto oom;
    int dim = 0;
    for (int c = 0; c < nc; c++) {
        f->offset[c] = dim;
        if (c == skip) continue;
        int numeric = d->continuous[c] || t->dtype[c] != GEN_EV_OBJECT;
        if (numeric) {
            f->kind[c] = 1;
            double s = 0;
            int64_t m = 0;
            for (int64_t k = 0; k < n; k++) {
                int64_t i = rows ? rows[k] : k;
                double v = d->continuous[c] ? t->num[c][i] : gen_ev_cat_value(&d->dict[c], t->cat[c][i]);
                if (!isnan(v)) s += v, m++;
            }
            f->fill[c] = m ? s / (double)m : 0.0;
            dim++;
        } else {
            f->kind[c] = 2;
            int32_t ncat = d->dict[c].n + 1;
            f->slot[c] = malloc((size_t)ncat * sizeof **f->slot);
            if (!f->slot[c]) goto oom;
            for (int32_t k = 0; k < ncat; k++) f->slot[c][k] = -1;
            for (int64_t k = 0; k < n; k++) {
                int64_t i = rows ? rows[k] : k;
                f->slot[c][t->cat[c][i] + 1] = 0;
            }
            int32_t s = 0; /* slots in sorted id order (sklearn sorts categories; the order
                              does not change the models) */
            for (int32_t k = 0; k < ncat; k++)
                if (f->slot[c][k] == 0) f->slot[c][k] = s++;
            dim += s;
        }
    }
    f->dim = dim;
    f->center = gen_calloc((size_t)(dim ? dim : 1), sizeof *f->center);
    f->scale = gen_calloc((size_t)(dim ? dim : 1), sizeof *f->scale);
    size_t xrows = n > 0 ? (size_t)n : 1, xcols = dim > 0 ? (size_t)dim : 1;
    x = xrows <= SIZE_MAX / sizeof *x / xcols ? malloc(xrows * xcols * sizeof *x) : NULL;
    if (!f->center || !f->scale || !x) goto oom;
    for (int j = 0; j < dim; j++) f->center[j] = 0, f->scale[j] = 1;
    gen_ev_features_apply(f, d, t, rows, n, x);
    if ((st = gen_ev_robust_fit(ctx, x, dim, NULL, n, f->center, f->scale))) {
        gen_ev_features_free(f);
        goto done;
    }
    goto done;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory building model features");
    gen_ev_features_free(f);
done:
    free(x);
    return st;
}

/* The 25th, 50th and 75th percentiles of column j of a column with at most two distinct
 * values (a one-hot slot, a flag), from the two counts instead of a sort: the sorted column
 * is a (ca times) then b, so its elements are known by position and gen_ev_percentile gives
 * the same values as on the sorted copy. Returns 0 (use the sort) for an empty column, a
 * third value, a NaN or a negative zero (which the sort's comparison calls equal to zero, so
 * its place there is the sort's choice). */
static int gen_ev_two_values(const double *x, int dim, int j, const int64_t *rows, int64_t n,
                             double *q25, double *q50, double *q75) {
    if (n <= 0) return 0;
    double a = x[(size_t)(rows ? rows[0] : 0) * dim + j], b = a;
    int64_t ca = 0;
    for (int64_t k = 0; k < n; k++) {
        double v = x[(size_t)(rows ? rows[k] : k) * dim + j];
        if (v == 0 && signbit(v)) return 0;
        if (v == a) {
            ca++;
            continue;
        }
        if (v == b) continue;
        if (b != a || isnan(v)) return 0; /* a third value */
        b = v;
    }
    if (b < a) { /* the smaller value first */
        double t = a;
        a = b, b = t, ca = n - ca;
    }
    double v[2] = {a, b};
    const double q[3] = {25, 50, 75};
    double *out[3] = {q25, q50, q75};
    for (int s = 0; s < 3; s++) { /* gen_ev_percentile on the implied sorted column */
        double pos = q[s] / 100.0 * (double)(n - 1);
        int64_t lo = (int64_t)floor(pos);
        if (lo >= n - 1) {
            *out[s] = v[n - 1 >= ca];
            continue;
        }
        double fr = pos - (double)lo, vl = v[lo >= ca], vh = v[lo + 1 >= ca];
        *out[s] = vl + fr * (vh - vl);
    }
    return 1;
}

genesis_status gen_ev_robust_fit(genesis_ctx *ctx, const double *x, int dim, const int64_t *rows,
                                 int64_t n, double *center, double *scale) {
    double *col = malloc((size_t)(n ? n : 1) * sizeof *col);
    GEN_RETURN_IF(!col, ctx, GENESIS_ERR_NOMEM, "out of memory scaling model features");
    for (int j = 0; j < dim; j++) {
        double q25, q50, q75;
        if (gen_ev_two_values(x, dim, j, rows, n, &q25, &q50, &q75)) {
            center[j] = q50;
            double iqr = q75 - q25;
            scale[j] = (iqr > 0 && isfinite(iqr)) ? iqr : 1.0;
            continue;
        }
        for (int64_t k = 0; k < n; k++) col[k] = x[(size_t)(rows ? rows[k] : k) * dim + j];
        qsort(col, (size_t)n, sizeof *col, gen_ev_cmp_d);
        q25 = gen_ev_percentile(col, n, 25), q50 = gen_ev_percentile(col, n, 50);
        q75 = gen_ev_percentile(col, n, 75);
        center[j] = isnan(q50) ? 0 : q50;
        double iqr = q75 - q25;
        scale[j] = (iqr > 0 && isfinite(iqr)) ? iqr : 1.0;
    }
    free(col);
    return GENESIS_OK;
}

void gen_ev_features_apply(const gen_ev_features *f, const gen_ev_data *d,
                           const gen_ev_table *t, const int64_t *rows, int64_t n, double *x) {
    int dim = f->dim;
    for (int64_t k = 0; k < n; k++) {
        int64_t i = rows ? rows[k] : k;
        double *xr = x + (size_t)k * dim;
        for (int j = 0; j < dim; j++) xr[j] = 0;
        for (int c = 0; c < f->ncols; c++) {
            if (f->kind[c] == 1) {
                double v = d->continuous[c] ? t->num[c][i]
                                            : gen_ev_cat_value(&d->dict[c], t->cat[c][i]);
                xr[f->offset[c]] = isnan(v) ? f->fill[c] : v;
            } else if (f->kind[c] == 2) {
                int32_t s = f->slot[c][t->cat[c][i] + 1];
                if (s >= 0) xr[f->offset[c] + s] = 1.0;
            }
        }
        for (int j = 0; j < dim; j++) xr[j] = (xr[j] - f->center[j]) / f->scale[j];
    }
}

int gen_ev_features_row(const gen_ev_features *f, const gen_ev_data *d, const gen_ev_table *t,
                        int64_t i, int32_t *col, double *val) {
    int m = 0;
    for (int c = 0; c < f->ncols; c++) {
        if (f->kind[c] == 1) {
            double v = d->continuous[c] ? t->num[c][i]
                                        : gen_ev_cat_value(&d->dict[c], t->cat[c][i]);
            col[m] = f->offset[c], val[m++] = isnan(v) ? f->fill[c] : v;
        } else if (f->kind[c] == 2) {
            int32_t s = f->slot[c][t->cat[c][i] + 1];
            if (s >= 0) col[m] = f->offset[c] + s, val[m++] = 1.0;
        }
    }
    return m;
}

genesis_status gen_ev_sparse_alloc(genesis_ctx *ctx, int64_t n, int dim, int64_t cap,
                                   gen_ev_sparse *s) {
    memset(s, 0, sizeof *s);
    s->n = n, s->dim = dim;
    s->start = calloc((size_t)n + 1, sizeof *s->start);
    s->col = malloc((size_t)(cap ? cap : 1) * sizeof *s->col);
    s->val = malloc((size_t)(cap ? cap : 1) * sizeof *s->val);
    s->z0 = calloc((size_t)(dim ? dim : 1), sizeof *s->z0);
    if (s->start && s->col && s->val && s->z0) return GENESIS_OK;
    gen_ev_sparse_free(s);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory building model features");
}

void gen_ev_sparse_free(gen_ev_sparse *s) {
    free(s->start), free(s->col), free(s->val), free(s->z0);
    memset(s, 0, sizeof *s);
}

genesis_status gen_ev_robust_fit_sparse(genesis_ctx *ctx, const gen_ev_sparse *s, double *center,
                                        double *scale) {
    int64_t n = s->n, nnz = s->start[n];
    int dim = s->dim;
    int64_t *cstart = calloc((size_t)dim + 1, sizeof *cstart);
    double *cval = malloc((size_t)(nnz ? nnz : 1) * sizeof *cval);
    double *col = malloc((size_t)(n ? n : 1) * sizeof *col);
    genesis_status st = GENESIS_OK;
    if (!cstart || !cval || !col) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory scaling model features");
        goto done;
    }
    for (int64_t e = 0; e < nnz; e++) cstart[s->col[e] + 1]++;
    for (int j = 0; j < dim; j++) cstart[j + 1] += cstart[j];
    for (int64_t i = 0; i < n; i++) /* each column's values in row order (cstart[j] advances) */
        for (int64_t e = s->start[i]; e < s->start[i + 1]; e++)
            cval[cstart[s->col[e]]++] = s->val[e];
    for (int j = dim; j > 0; j--) cstart[j] = cstart[j - 1];
    cstart[0] = 0;
    for (int j = 0; j < dim && !st; j++) { /* the dense column: its values, zeros elsewhere */
        int64_t m = cstart[j + 1] - cstart[j];
        memcpy(col, cval + cstart[j], (size_t)m * sizeof *col);
        for (int64_t k = m; k < n; k++) col[k] = 0;
        st = gen_ev_robust_fit(ctx, col, 1, NULL, n, center + j, scale + j);
    }
done:
    free(cstart), free(cval), free(col);
    return st;
}

void gen_ev_sparse_scale(gen_ev_sparse *s, const double *center, const double *scale) {
    for (int j = 0; j < s->dim; j++) s->z0[j] = (0 - center[j]) / scale[j];
    for (int64_t i = 0; i < s->n; i++)
        for (int64_t e = s->start[i]; e < s->start[i + 1]; e++) {
            int j = s->col[e];
            s->val[e] = (s->val[e] - center[j]) / scale[j] - s->z0[j];
        }
}

void gen_ev_features_free(gen_ev_features *f) {
    if (!f) return;
    if (f->slot)
        for (int c = 0; c < f->ncols; c++) free(f->slot[c]);
    free(f->kind);
    free(f->offset);
    free(f->fill);
    free(f->slot);
    free(f->center);
    free(f->scale);
    memset(f, 0, sizeof *f);
}

/* ---- logistic regression ------------------------------------------------------------------ */

typedef struct {
    const double *x;
    const int32_t *y;
    const double *sw;     /* [n] sample weights / sum of weights */
    int64_t n;
    int dim, nout;
    double l2;            /* 1 / (C * sum of weights) */
    double *z;            /* [n x nout] scratch */
    const gen_ev_sparse *sx; /* non-NULL: the rows as a sparse matrix (x unused) */
    double *zw0;          /* [nout] scratch of the sparse form: W z0 */
} gen_ev_lr_problem;

/* Z = X W^T of the sparse form: X = 1 z0^T + E, so row i is W z0 + sum over its entries. */
static void gen_ev_lr_sparse_forward(const gen_ev_lr_problem *p, const double *W) {
    const gen_ev_sparse *s = p->sx;
    int dim = p->dim, nout = p->nout;
    for (int k = 0; k < nout; k++) {
        double a = 0;
        for (int j = 0; j < dim; j++) a += s->z0[j] * W[(size_t)k * dim + j];
        p->zw0[k] = a;
    }
    for (int64_t i = 0; i < p->n; i++) {
        double *zi = p->z + (size_t)i * nout;
        for (int k = 0; k < nout; k++) zi[k] = p->zw0[k];
        for (int64_t e = s->start[i]; e < s->start[i + 1]; e++)
            for (int k = 0; k < nout; k++) zi[k] += s->val[e] * W[(size_t)k * dim + s->col[e]];
    }
}

/* gW = G^T X of the sparse form: z0 times G's column sums (gb), plus each entry's share. */
static void gen_ev_lr_sparse_backward(const gen_ev_lr_problem *p, const double *gb, double *gW) {
    const gen_ev_sparse *s = p->sx;
    int dim = p->dim, nout = p->nout;
    for (int k = 0; k < nout; k++)
        for (int j = 0; j < dim; j++) gW[(size_t)k * dim + j] = s->z0[j] * gb[k];
    for (int64_t i = 0; i < p->n; i++) {
        const double *gi = p->z + (size_t)i * nout;
        for (int64_t e = s->start[i]; e < s->start[i + 1]; e++)
            for (int k = 0; k < nout; k++) gW[(size_t)k * dim + s->col[e]] += gi[k] * s->val[e];
    }
}

/* Objective and gradient at w = [W (nout x dim) | b (nout)]. */
static double gen_ev_lr_eval(const gen_ev_lr_problem *p, const double *w, double *g) {
    int64_t n = p->n;
    int dim = p->dim, nout = p->nout;
    const double *W = w, *b = w + (size_t)nout * dim;
    double *gW = g, *gb = g + (size_t)nout * dim;
    if (p->sx)
        gen_ev_lr_sparse_forward(p, W);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, nout, dim, 1.0, p->x, dim,
                    W, dim, 0.0, p->z, nout);
    double f = 0;
    for (int k = 0; k < nout; k++) gb[k] = 0;
    for (int64_t i = 0; i < n; i++) {
        double *zi = p->z + (size_t)i * nout;
        double s = p->sw[i];
        if (nout == 1) {
            double z = zi[0] + b[0];
            double yv = p->y[i] == 1 ? 1.0 : 0.0;
            /* log(1 + e^z) - y z, stably */
            double sp = z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
            f += s * (sp - yv * z);
            double pr = 1.0 / (1.0 + exp(-z));
            zi[0] = s * (pr - yv);
            gb[0] += zi[0];
        } else {
            double mx = -INFINITY;
            for (int k = 0; k < nout; k++) {
                zi[k] += b[k];
                mx = zi[k] > mx ? zi[k] : mx;
            }
            double se = 0;
            for (int k = 0; k < nout; k++) se += exp(zi[k] - mx);
            double lse = mx + log(se);
            f += s * (lse - zi[p->y[i]]);
            for (int k = 0; k < nout; k++) {
                double pr = exp(zi[k] - lse);
                zi[k] = s * (pr - (k == p->y[i] ? 1.0 : 0.0));
                gb[k] += zi[k];
            }
        }
    }
    /* gW = G^T X + l2 W */
    if (p->sx)
        gen_ev_lr_sparse_backward(p, gb, gW);
    else
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nout, dim, (int)n, 1.0, p->z, nout,
                    p->x, dim, 0.0, gW, dim);
    double reg = 0;
    for (size_t k = 0; k < (size_t)nout * dim; k++) {
        reg += W[k] * W[k];
        gW[k] += p->l2 * W[k];
    }
    return f + 0.5 * p->l2 * reg;
}

static genesis_status gen_ev_logreg_lbfgs(genesis_ctx *ctx, const double *x,
                                          const gen_ev_sparse *sx, const int32_t *y, int64_t n,
                                          int dim, int K, int balanced, int max_iter,
                                          gen_ev_logreg *m) {
    memset(m, 0, sizeof *m);
    int nout = K <= 2 ? 1 : K;
    size_t np = (size_t)nout * dim + nout;
    enum { M = 10 };
    m->dim = dim;
    m->K = K;
    m->nout = nout;
    double *w = calloc(np, sizeof *w), *g = calloc(np, sizeof *g), *wn = calloc(np, sizeof *wn);
    double *gn = calloc(np, sizeof *gn), *dir = calloc(np, sizeof *dir);
    double *S = calloc(np * M, sizeof *S), *Y = calloc(np * M, sizeof *Y);
    double rho[M], alpha[M];
    double *sw = malloc((size_t)(n ? n : 1) * sizeof *sw);
    double *z = malloc((size_t)(n ? n : 1) * (size_t)nout * sizeof *z);
    int64_t *cnt = calloc((size_t)K + 1, sizeof *cnt);
    double *zw0 = malloc((size_t)nout * sizeof *zw0);
    genesis_status st = GENESIS_OK;
    if (!w || !g || !wn || !gn || !dir || !S || !Y || !sw || !z || !cnt || !zw0) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory fitting a logistic regression");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) cnt[y[i]]++;
    int present = 0;
    for (int k = 0; k < K; k++) present += cnt[k] > 0;
    double tot = 0;
    for (int64_t i = 0; i < n; i++) {
        sw[i] = balanced ? (double)n / ((double)present * (double)cnt[y[i]]) : 1.0;
        tot += sw[i];
    }
    for (int64_t i = 0; i < n; i++) sw[i] /= tot;
    gen_ev_lr_problem p = {x, y, sw, n, dim, nout, 1.0 / tot, z, sx, zw0};
    double f = gen_ev_lr_eval(&p, w, g);
    int hist = 0, head = 0, it;
    for (it = 0; it < max_iter; it++) {
        double gmax = 0;
        for (size_t k = 0; k < np; k++) gmax = fabs(g[k]) > gmax ? fabs(g[k]) : gmax;
        if (gmax < 1e-4) break;
        /* two-loop recursion */
        for (size_t k = 0; k < np; k++) dir[k] = -g[k];
        for (int h = 0; h < hist; h++) {
            int j = (head - 1 - h + M) % M;
            double a = 0;
            for (size_t k = 0; k < np; k++) a += S[j * np + k] * dir[k];
            alpha[j] = rho[j] * a;
            for (size_t k = 0; k < np; k++) dir[k] -= alpha[j] * Y[j * np + k];
        }
        double gamma = 1.0;
        if (hist > 0) {
            int j = (head - 1 + M) % M;
            double sy = 0, yy = 0;
            for (size_t k = 0; k < np; k++) sy += S[j * np + k] * Y[j * np + k], yy += Y[j * np + k] * Y[j * np + k];
            gamma = sy / yy;
        } else {
            double gn2 = 0;
            for (size_t k = 0; k < np; k++) gn2 += g[k] * g[k];
            gamma = 1.0 / sqrt(gn2);
        }
        for (size_t k = 0; k < np; k++) dir[k] *= gamma;
        for (int h = hist - 1; h >= 0; h--) {
            int j = (head - 1 - h + M) % M;
            double b = 0;
            for (size_t k = 0; k < np; k++) b += Y[j * np + k] * dir[k];
            b *= rho[j];
            for (size_t k = 0; k < np; k++) dir[k] += S[j * np + k] * (alpha[j] - b);
        }
        double gd = 0;
        for (size_t k = 0; k < np; k++) gd += g[k] * dir[k];
        if (gd >= 0) { /* not a descent direction: restart from the gradient */
            for (size_t k = 0; k < np; k++) dir[k] = -g[k];
            gd = 0;
            for (size_t k = 0; k < np; k++) gd -= g[k] * g[k];
            hist = 0;
        }
        double t = 1.0, fn = f;
        int ok = 0;
        for (int ls = 0; ls < 50; ls++) {
            for (size_t k = 0; k < np; k++) wn[k] = w[k] + t * dir[k];
            fn = gen_ev_lr_eval(&p, wn, gn);
            if (fn <= f + 1e-4 * t * gd) {
                ok = 1;
                break;
            }
            t *= 0.5;
        }
        if (!ok) break;
        double sy = 0;
        for (size_t k = 0; k < np; k++) {
            S[head * np + k] = wn[k] - w[k];
            Y[head * np + k] = gn[k] - g[k];
            sy += S[head * np + k] * Y[head * np + k];
        }
        if (sy > 1e-12) {
            rho[head] = 1.0 / sy;
            head = (head + 1) % M;
            if (hist < M) hist++;
        }
        double fprev = f;
        memcpy(w, wn, np * sizeof *w);
        memcpy(g, gn, np * sizeof *g);
        f = fn;
        double den = fmax(fmax(fabs(fprev), fabs(f)), 1.0);
        if ((fprev - f) / den <= 64 * 2.220446049250313e-16) {
            it++;
            break;
        }
    }
    m->iterations = it;
    m->W = w;
    m->b = malloc((size_t)nout * sizeof *m->b);
    if (!m->b) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto done;
    }
    memcpy(m->b, w + (size_t)nout * dim, (size_t)nout * sizeof *m->b);
    w = NULL;
done:
    free(w), free(g), free(wn), free(gn), free(dir), free(S), free(Y), free(sw), free(z);
    free(cnt), free(zw0);
    if (st != GENESIS_OK) gen_ev_logreg_free(m);
    return st;
}

genesis_status gen_ev_logreg_fit(genesis_ctx *ctx, const double *x, const int32_t *y, int64_t n,
                                 int dim, int K, int balanced, int max_iter, gen_ev_logreg *m) {
    return gen_ev_logreg_lbfgs(ctx, x, NULL, y, n, dim, K, balanced, max_iter, m);
}

genesis_status gen_ev_logreg_fit_sparse(genesis_ctx *ctx, const gen_ev_sparse *sx,
                                        const int32_t *y, int K, int balanced, int max_iter,
                                        gen_ev_logreg *m) {
    return gen_ev_logreg_lbfgs(ctx, NULL, sx, y, sx->n, sx->dim, K, balanced, max_iter, m);
}

void gen_ev_logreg_predict(const gen_ev_logreg *m, const double *x, int64_t n, double *p1,
                           int32_t *pred) {
    int dim = m->dim, nout = m->nout;
    for (int64_t i = 0; i < n; i++) {
        const double *xi = x + (size_t)i * dim;
        if (nout == 1) {
            double z = m->b[0];
            for (int j = 0; j < dim; j++) z += m->W[j] * xi[j];
            double pr = 1.0 / (1.0 + exp(-z));
            if (p1) p1[i] = pr;
            if (pred) pred[i] = pr > 0.5 ? 1 : 0;
        } else {
            int best = 0;
            double bz = -INFINITY;
            for (int k = 0; k < nout; k++) {
                double z = m->b[k];
                const double *wk = m->W + (size_t)k * dim;
                for (int j = 0; j < dim; j++) z += wk[j] * xi[j];
                if (z > bz) bz = z, best = k;
            }
            if (pred) pred[i] = best;
            if (p1) p1[i] = NAN;
        }
    }
}

void gen_ev_logreg_predict_sparse(const gen_ev_logreg *m, const gen_ev_sparse *sx, double *p1,
                                  int32_t *pred) {
    int dim = m->dim, nout = m->nout;
    for (int64_t i = 0; i < sx->n; i++) {
        int best = 0;
        double bz = -INFINITY;
        for (int k = 0; k < nout; k++) {
            const double *wk = m->W + (size_t)k * dim;
            double z = m->b[k];
            for (int j = 0; j < dim; j++) z += wk[j] * sx->z0[j];
            for (int64_t e = sx->start[i]; e < sx->start[i + 1]; e++)
                z += wk[sx->col[e]] * sx->val[e];
            if (nout == 1) {
                double pr = 1.0 / (1.0 + exp(-z));
                if (p1) p1[i] = pr;
                if (pred) pred[i] = pr > 0.5 ? 1 : 0;
            } else if (z > bz) {
                bz = z, best = k;
            }
        }
        if (nout > 1) {
            if (pred) pred[i] = best;
            if (p1) p1[i] = NAN;
        }
    }
}

void gen_ev_logreg_free(gen_ev_logreg *m) {
    if (!m) return;
    free(m->W);
    free(m->b);
    m->W = m->b = NULL;
}

/* ---- MLP on the backend ------------------------------------------------------------------ */

genesis_status gen_ev_mlp_fit_predict(genesis_ctx *ctx, const double *x, const int32_t *y,
                                      int64_t n, int dim, int K, int hidden, int max_epochs,
                                      uint64_t seed, int threads, const double *x_test,
                                      int64_t n_test, int32_t *pred) {
    gen_backend *be = NULL;
    GEN_TRY(gen_backend_cpu_create(ctx, threads, &be));
    const gen_backend_ops *op = be->ops;
    int H = hidden, B = 200;
    if (n < B) B = (int)n;
    int PB = 4096; /* prediction batch */
    int maxb = B > PB ? B : PB;
    size_t nw1 = (size_t)H * dim, nw2 = (size_t)K * H;
    size_t np = nw1 + H + nw2 + K;
    /* one allocation per kind (llm.c): parameters, gradients, Adam m, Adam v */
    float *par = op->alloc(be, np * sizeof(float)), *grad = op->alloc(be, np * sizeof(float));
    float *am = op->alloc(be, np * sizeof(float)), *av = op->alloc(be, np * sizeof(float));
    float *xb = op->alloc(be, (size_t)maxb * (dim ? dim : 1) * sizeof(float));
    float *hpre = op->alloc(be, (size_t)maxb * H * sizeof(float));
    float *hact = op->alloc(be, (size_t)maxb * H * sizeof(float));
    float *dh = op->alloc(be, (size_t)maxb * H * sizeof(float));
    float *dhpre = op->alloc(be, (size_t)maxb * H * sizeof(float));
    float *logits = op->alloc(be, (size_t)maxb * K * sizeof(float));
    float *dlogits = op->alloc(be, (size_t)maxb * K * sizeof(float));
    float *host = malloc((size_t)maxb * (dim ? dim : 1) * sizeof *host);
    float *hl = malloc((size_t)maxb * K * sizeof *hl);
    float *hp = malloc(np * sizeof *hp);
    int32_t *start = calloc((size_t)B, sizeof *start), *len = malloc((size_t)B * sizeof *len);
    int32_t *tgt = malloc((size_t)B * sizeof *tgt);
    int64_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    genesis_status st = GENESIS_OK;
    if (!par || !grad || !am || !av || !xb || !hpre || !hact || !dh || !dhpre || !logits ||
        !dlogits || !host || !hl || !hp || !start || !len || !tgt || !perm) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory training the MLP");
        goto done;
    }
    float *W1 = par, *b1 = par + nw1, *W2 = b1 + H, *b2 = W2 + nw2;
    float *dW1 = grad, *db1 = grad + nw1, *dW2 = db1 + H, *db2 = dW2 + nw2;
    gen_rng rng;
    gen_rng_init(&rng, seed, GEN_EV_STREAM_TSTR + 7);
    double bound1 = sqrt(6.0 / (double)(dim + H)), bound2 = sqrt(6.0 / (double)(H + K));
    for (size_t k = 0; k < np; k++) hp[k] = 0;
    for (size_t k = 0; k < nw1; k++) hp[k] = (float)((2 * gen_rng_uniform(&rng) - 1) * bound1);
    for (size_t k = 0; k < (size_t)H; k++) hp[nw1 + k] = (float)((2 * gen_rng_uniform(&rng) - 1) * bound1);
    for (size_t k = 0; k < nw2; k++)
        hp[nw1 + H + k] = (float)((2 * gen_rng_uniform(&rng) - 1) * bound2);
    for (size_t k = 0; k < (size_t)K; k++)
        hp[nw1 + H + nw2 + k] = (float)((2 * gen_rng_uniform(&rng) - 1) * bound2);
    op->upload(be, par, hp, np * sizeof(float));
    for (int b = 0; b < B; b++) len[b] = K;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    double best = INFINITY;
    int no_gain = 0;
    int64_t t = 0;
    const float wd = (float)(1e-4 / B); /* sklearn: alpha ||W||^2 / (2 batch) */
    for (int ep = 0; ep < max_epochs; ep++) {
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = (int64_t)gen_rng_below(&rng, (uint64_t)(i + 1));
            int64_t tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        double eloss = 0;
        for (int64_t s0 = 0; s0 < n; s0 += B) {
            int bn = (int)(n - s0 < B ? n - s0 : B);
            for (int b = 0; b < bn; b++) {
                const double *xi = x + (size_t)perm[s0 + b] * dim;
                for (int j = 0; j < dim; j++) host[(size_t)b * dim + j] = (float)xi[j];
                tgt[b] = y[perm[s0 + b]];
            }
            op->upload(be, xb, host, (size_t)bn * dim * sizeof(float));
            op->zero(be, grad, np);
            op->zero(be, dlogits, (size_t)bn * K);
            op->zero(be, dh, (size_t)bn * H);
            op->zero(be, dhpre, (size_t)bn * H);
            op->linear_forward(be, hpre, H, xb, dim, W1, b1, bn, dim, H);
            op->relu_forward(be, hact, hpre, (size_t)bn * H);
            op->linear_forward(be, logits, K, hact, H, W2, b2, bn, H, K);
            float loss = 0;
            op->cross_entropy_rows(be, &loss, dlogits, K, logits, K, bn, start, len, tgt,
                                   1.0f / (float)bn);
            eloss += (double)loss * bn;
            op->linear_backward(be, dh, H, dW2, db2, dlogits, K, hact, H, W2, bn, H, K);
            op->relu_backward(be, dhpre, dh, hact, (size_t)bn * H);
            op->linear_backward(be, NULL, 0, dW1, db1, dhpre, H, xb, dim, W1, bn, dim, H);
            t++;
            op->adam(be, par, grad, am, av, np, 1e-3f, 0.9f, 0.999f, 1e-8f, wd, t);
        }
        eloss /= (double)n;
        if (eloss > best - 1e-4) {
            if (++no_gain >= 10) break;
        } else {
            no_gain = 0;
        }
        if (eloss < best) best = eloss;
    }
    for (int64_t s0 = 0; s0 < n_test; s0 += PB) {
        int bn = (int)(n_test - s0 < PB ? n_test - s0 : PB);
        for (int b = 0; b < bn; b++)
            for (int j = 0; j < dim; j++)
                host[(size_t)b * dim + j] = (float)x_test[(size_t)(s0 + b) * dim + j];
        op->upload(be, xb, host, (size_t)bn * dim * sizeof(float));
        op->linear_forward(be, hpre, H, xb, dim, W1, b1, bn, dim, H);
        op->relu_forward(be, hact, hpre, (size_t)bn * H);
        op->linear_forward(be, logits, K, hact, H, W2, b2, bn, H, K);
        op->download(be, hl, logits, (size_t)bn * K * sizeof(float));
        for (int b = 0; b < bn; b++) {
            int bk = 0;
            for (int k = 1; k < K; k++)
                if (hl[(size_t)b * K + k] > hl[(size_t)b * K + bk]) bk = k;
            pred[s0 + b] = bk;
        }
    }
done:
    if (be) {
        op->free(be, par), op->free(be, grad), op->free(be, am), op->free(be, av);
        op->free(be, xb), op->free(be, hpre), op->free(be, hact), op->free(be, dh);
        op->free(be, dhpre), op->free(be, logits), op->free(be, dlogits);
        gen_backend_free(be);
    }
    free(host), free(hl), free(hp), free(start), free(len), free(tgt), free(perm);
    return st;
}

/* ---- scores ------------------------------------------------------------------------------ */

typedef struct {
    double s;
    int32_t l;
} gen_ev_scored;

static int gen_ev_cmp_scored(const void *a, const void *b) {
    double x = ((const gen_ev_scored *)a)->s, y = ((const gen_ev_scored *)b)->s;
    return (x > y) - (x < y);
}

double gen_ev_auc(const double *score, const int32_t *label, int64_t n) {
    gen_ev_scored *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return NAN;
    int64_t npos = 0;
    for (int64_t i = 0; i < n; i++) {
        v[i].s = score[i];
        v[i].l = label[i];
        npos += label[i] == 1;
    }
    int64_t nneg = n - npos;
    if (npos == 0 || nneg == 0) {
        free(v);
        return NAN;
    }
    qsort(v, (size_t)n, sizeof *v, gen_ev_cmp_scored);
    double rank_sum = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        while (j < n && v[j].s == v[i].s) j++;
        double avg = 0.5 * (double)(i + 1 + j); /* ranks i+1 .. j */
        for (int64_t k = i; k < j; k++)
            if (v[k].l == 1) rank_sum += avg;
        i = j;
    }
    free(v);
    return (rank_sum - (double)npos * (double)(npos + 1) / 2.0) / ((double)npos * (double)nneg);
}

double gen_ev_f1(const int32_t *truth, const int32_t *pred, int64_t n, int32_t pos) {
    int64_t tp = 0, fp = 0, fn = 0;
    for (int64_t i = 0; i < n; i++) {
        int t = truth[i] == pos, p = pred[i] == pos;
        tp += t && p;
        fp += !t && p;
        fn += t && !p;
    }
    return (tp + fp + fn) ? 2.0 * (double)tp / (double)(2 * tp + fp + fn) : 0.0;
}

double gen_ev_macro_f1(const int32_t *truth, const int32_t *pred, int64_t n, int K) {
    double s = 0;
    int m = 0;
    for (int k = 0; k < K; k++) {
        int present = 0;
        for (int64_t i = 0; i < n && !present; i++) present = truth[i] == k || pred[i] == k;
        if (!present) continue;
        s += gen_ev_f1(truth, pred, n, k);
        m++;
    }
    return m ? s / m : NAN;
}

void gen_ev_stratified_folds(const int32_t *y, int64_t n, int k, uint64_t seed, uint64_t stream,
                             int64_t *perm, int32_t *fold) {
    gen_rng rng;
    gen_rng_init(&rng, seed, stream);
    for (int cls = 0; cls < 2; cls++) {
        int64_t m0 = 0;
        for (int64_t i = 0; i < n; i++)
            if (y[i] == cls) perm[m0++] = i;
        for (int64_t i = m0 - 1; i > 0; i--) {
            int64_t j = (int64_t)gen_rng_below(&rng, (uint64_t)(i + 1));
            int64_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int64_t m = 0; m < m0; m++) fold[perm[m]] = (int32_t)(m % k);
    }
}
