/*
 * evaluate_ml.h — the small machine-learning kit behind detection and TSTR (evaluate_ml.c):
 * SDMetrics' feature pipeline (HyperTransformer -> SimpleImputer -> RobustScaler), logistic
 * regression (own L-BFGS), a one-hidden-layer MLP on the backend's layers, ROC AUC and F1.
 */
#ifndef GEN_EVALUATE_ML_H
#define GEN_EVALUATE_ML_H

#include "evaluate.h"

/* Features of a table's rows, fitted on training rows (sdmetrics.utils.HyperTransformer):
 * continuous columns and categorical columns pandas reads as numbers (int, float, bool)
 * give one numeric feature (missing -> the training mean); other categorical columns are
 * one-hot encoded over the categories of the training rows (missing is a category of its
 * own; a category unseen in training gives all zeros, sklearn's handle_unknown="ignore").
 * Then every feature is centred on its training median and divided by its interquartile
 * range (RobustScaler; range 0 -> 1). */
typedef struct gen_ev_features {
    int ncols;            /* source columns */
    int dim;              /* feature count */
    int *kind;            /* [ncols] 0 skip, 1 numeric, 2 one-hot */
    int *offset;          /* [ncols] first feature of the column */
    double *fill;         /* [ncols] numeric: training mean */
    int32_t **slot;       /* [ncols] one-hot: dictionary id + 1 -> feature index - offset,
                             -1 = unseen; index 0 is the missing value */
    double *center, *scale; /* [dim] */
} gen_ev_features;

/* Fits on rows `rows` (n) of table t; column `skip` (the target, or -1) is left out. */
genesis_status gen_ev_features_fit(genesis_ctx *ctx, const gen_ev_data *d,
                                   const gen_ev_table *t, const int64_t *rows, int64_t n,
                                   int skip, gen_ev_features *f);
/* center/scale (dim) = RobustScaler fitted on rows `rows` (NULL = all n) of x (row-major,
 * n_rows x dim): median and interquartile range (numpy linear percentiles; range 0 -> 1). */
genesis_status gen_ev_robust_fit(genesis_ctx *ctx, const double *x, int dim, const int64_t *rows,
                                 int64_t n, double *center, double *scale);
/* x (n x dim, row-major) = scaled features of rows `rows` (NULL = all) of t. */
void gen_ev_features_apply(const gen_ev_features *f, const gen_ev_data *d,
                           const gen_ev_table *t, const int64_t *rows, int64_t n, double *x);
void gen_ev_features_free(gen_ev_features *f);

/* Rows of features as a sparse matrix, for tables whose one-hot blocks make them wide: a
 * row has one entry per column (its numeric value or its one-hot slot), not one per
 * feature. Row i is X_i = z0 + sum of its entries (val at col); unscaled (as
 * gen_ev_features_row lists them) z0 = 0, scaled z0 = the scaled value of a zero. */
typedef struct gen_ev_sparse {
    int64_t n;
    int dim;
    int64_t *start;       /* [n + 1] row i: entries start[i] .. start[i + 1] - 1 */
    int32_t *col;         /* [cap] feature index */
    double *val;          /* [cap] */
    double *z0;           /* [dim] */
} gen_ev_sparse;
/* The unscaled non-zero features of row i of t (at most f->ncols): a numeric column's value
 * (missing -> fill), a one-hot column's slot with 1. Returns the count. */
int gen_ev_features_row(const gen_ev_features *f, const gen_ev_data *d, const gen_ev_table *t,
                        int64_t i, int32_t *col, double *val);
/* n rows of dim features with room for cap entries; start all 0, z0 all 0. */
genesis_status gen_ev_sparse_alloc(genesis_ctx *ctx, int64_t n, int dim, int64_t cap,
                                   gen_ev_sparse *s);
void gen_ev_sparse_free(gen_ev_sparse *s);
/* gen_ev_robust_fit of the unscaled rows s (z0 = 0), column by column: each column's
 * entries and zeros, so the same center and scale as the dense matrix gives. */
genesis_status gen_ev_robust_fit_sparse(genesis_ctx *ctx, const gen_ev_sparse *s, double *center,
                                        double *scale);
/* Scales unscaled rows in place: X = (X - center) / scale, as z0 = (0 - center) / scale and
 * each entry minus z0 of its column. */
void gen_ev_sparse_scale(gen_ev_sparse *s, const double *center, const double *scale);

/* Logistic regression (sklearn LogisticRegression, lbfgs, L2 with C = 1 on the weights,
 * objective = weighted mean log-loss + ||W||^2 / (2 C sum(w))): K = 2 is the binary
 * sigmoid model, K > 2 multinomial softmax. y in [0, K). `balanced`: class weights
 * n / (K n_k). Stops when max |gradient| < 1e-4 or after max_iter L-BFGS iterations. */
typedef struct gen_ev_logreg {
    int dim, K, nout;     /* nout = 1 (binary) or K */
    double *W;            /* [nout x dim] */
    double *b;            /* [nout] */
    int iterations;
} gen_ev_logreg;
genesis_status gen_ev_logreg_fit(genesis_ctx *ctx, const double *x, const int32_t *y, int64_t n,
                                 int dim, int K, int balanced, int max_iter, gen_ev_logreg *m);
/* The same model fitted on sparse rows (X W^T and G^T X over the entries: the cost follows
 * the columns, not the one-hot width; equal to the dense fit up to summation order). */
genesis_status gen_ev_logreg_fit_sparse(genesis_ctx *ctx, const gen_ev_sparse *sx,
                                        const int32_t *y, int K, int balanced, int max_iter,
                                        gen_ev_logreg *m);
/* p1[i] = P(class 1) for binary models; pred[i] = argmax class. Either may be NULL. */
void gen_ev_logreg_predict(const gen_ev_logreg *m, const double *x, int64_t n, double *p1,
                           int32_t *pred);
void gen_ev_logreg_predict_sparse(const gen_ev_logreg *m, const gen_ev_sparse *sx, double *p1,
                                  int32_t *pred);
void gen_ev_logreg_free(gen_ev_logreg *m);

/* MLP classifier (sklearn MLPClassifier((50,)) defaults: ReLU, Adam lr 1e-3, batch 200,
 * L2 alpha 1e-4, up to max_epochs epochs, stops after 10 epochs without a 1e-4 gain),
 * written on the CPU backend's linear / ReLU / cross-entropy / Adam operations.
 * pred (n_test) = predicted classes of x_test. */
genesis_status gen_ev_mlp_fit_predict(genesis_ctx *ctx, const double *x, const int32_t *y,
                                      int64_t n, int dim, int K, int hidden, int max_epochs,
                                      uint64_t seed, int threads, const double *x_test,
                                      int64_t n_test, int32_t *pred);

/* ROC AUC of scores for labels (1 positive, 0 negative), ties averaged; NaN if one class. */
double gen_ev_auc(const double *score, const int32_t *label, int64_t n);
/* F1 of class `pos`. */
double gen_ev_f1(const int32_t *truth, const int32_t *pred, int64_t n, int32_t pos);
/* Macro F1 over the classes present in truth or pred (sklearn average="macro"). */
double gen_ev_macro_f1(const int32_t *truth, const int32_t *pred, int64_t n, int K);

/* Stratified folds of labels y (0 or 1) over n rows: each class's rows shuffled with the
 * Philox stream (seed, stream), then dealt round-robin into k folds (fold[i]). perm: n
 * scratch indices. Detection by logistic regression and by XGBoost share it. */
void gen_ev_stratified_folds(const int32_t *y, int64_t n, int k, uint64_t seed, uint64_t stream,
                             int64_t *perm, int32_t *fold);

#endif /* GEN_EVALUATE_ML_H */
