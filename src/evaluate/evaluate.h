/*
 * evaluate.h — internal contracts of `genesis evaluate` (the public surface is the evaluate
 * section of genesis.h). The evaluation works on its own aligned view of the tables:
 *
 *   evaluate_data.c      real / synthetic / holdout tables -> gen_ev_data: same columns, the
 *                        synthetic and holdout typed like the real table, categorical values
 *                        mapped to one dictionary per column, pandas dtypes emulated;
 *   evaluate_quality.c   Column Shapes and Column Pair Trends (SDMetrics QualityReport),
 *                        and the report's robust-binned pair trends beside them;
 *   evaluate_validity.c  Data Validity and Data Structure (SDMetrics DiagnosticReport);
 *   evaluate_privacy.c   exact copies, NewRowSynthesis, DCR baseline / overfitting protection,
 *                        the real duplicate share and the holdout-as-synthetic baselines;
 *   evaluate_ml.c        features, logistic regression (L-BFGS), MLP (backend layers), AUC, F1;
 *   evaluate_detection.c LogisticDetection;
 *   evaluate_efficacy.c  train on synthetic, test on real (TSTR);
 *   evaluate_fidelity.c  the papers' scores: XGBoost detection, alpha-precision /
 *                        beta-recall, the DCR share, XGBoost TSTR AUC;
 *   evaluate_plots.c     histogram / bar data for the report;
 *   evaluate_json.c      the JSON document;  evaluate_html.c  the HTML report;
 *   evaluate.c           the public entry points and the order of the parts.
 *
 * Why pandas dtypes: SDMetrics reads tables with pandas, and pandas' typing decides which
 * values are equal (1 == 1.0 in a numeric column, " ?" is a category and not a missing
 * value, "True" is a boolean) and what TableStructure compares. Definitions of every metric:
 * docs/algorithms.md §C1-§C5; docs/evaluate.md says where Genesis deviates.
 *
 * The folder src/evaluate/ is `genesis evaluate`, the top layer of the core: the aligned view
 * (evaluate_data.c), quality, validity, detection, privacy, usefulness and the sequence
 * metrics, the classifiers they use (evaluate_ml.c), and the JSON and HTML outputs.
 */
#ifndef GEN_EVALUATE_H
#define GEN_EVALUATE_H

#include "table.h"

/* The dtype pandas.read_csv would give a column of one table (TableStructure compares them;
 * the DCR random baseline draws by them). */
typedef enum gen_ev_dtype {
    GEN_EV_INT64 = 0,
    GEN_EV_FLOAT64 = 1,
    GEN_EV_BOOL = 2,
    GEN_EV_OBJECT = 3
} gen_ev_dtype;

const char *gen_ev_dtype_name(gen_ev_dtype d);

/* One categorical column's categories over all tables. A category is a pandas value: a
 * number (numeric and boolean columns: True == 1 == 1.0, as in Python) or a string
 * (object columns, compared byte for byte). Ids are dense, real table first. */
typedef struct gen_ev_dict {
    int32_t n, cap;
    char **label;          /* [n] the first spelling seen (for reports) */
    uint8_t *is_num;       /* [n] the key is a number */
    double *value;         /* [n] the number when is_num */
    int32_t *slots;        /* open addressing: id or -1 */
    size_t nslots;
} gen_ev_dict;

/* Adds or finds a category; returns its id or -1 on out of memory. */
int32_t gen_ev_dict_add_num(gen_ev_dict *d, double v, const char *label);
int32_t gen_ev_dict_add_str(gen_ev_dict *d, const char *s);
/* Finds a numeric category; -1 if absent. */
int32_t gen_ev_dict_find_num(const gen_ev_dict *d, double v);
void gen_ev_dict_free(gen_ev_dict *d);

/* One table in the evaluation's representation. */
typedef struct gen_ev_table {
    const char *role;      /* "real", "synthetic", "holdout" */
    const char *source;    /* file name for messages (may be NULL) */
    int64_t n;
    double **num;          /* [ncols]: continuous values, NaN = missing; NULL if categorical */
    int32_t **cat;         /* [ncols]: dictionary ids, -1 = missing (pandas NaN) */
    gen_ev_dtype *dtype;   /* [ncols] */
} gen_ev_table;

typedef struct gen_ev_data {
    int ncols;
    char **names;          /* [ncols] */
    int *continuous;       /* [ncols] 1 = continuous (SDMetrics "numerical"), 0 = categorical */
    gen_ev_dict *dict;     /* [ncols] (empty for continuous columns) */
    gen_ev_table real, syn, hold; /* hold.n == 0: no holdout */
    int has_holdout;
} gen_ev_data;

/* Builds the aligned view. `metadata_path` (may be NULL): JSON column types overriding the
 * real table's. Errors name the table, the column and what to do. */
genesis_status gen_ev_data_build(genesis_ctx *ctx, const genesis_table *real,
                                 const genesis_table *syn, const genesis_table *hold,
                                 const char *metadata_path, gen_ev_data **out);
void gen_ev_data_free(gen_ev_data *d);
/* The TSTR target's holdout labels that differ from a real label only by surrounding spaces
 * or one trailing '.' (gen_ev_norm_label: Adult's test split writes " >50K.") take that real
 * label's id, so that the holdout is comparable in DCR overfitting and TSTR. */
genesis_status gen_ev_align_holdout_target(genesis_ctx *ctx, gen_ev_data *d, int target);

/* ---- results --------------------------------------------------------------------------- */

typedef struct gen_ev_column_res {
    int col;
    const char *shape_metric;      /* "KSComplement" | "TVComplement" */
    double shape;                  /* NaN when incomputable */
    const char *validity_metric;   /* "BoundaryAdherence" | "CategoryAdherence" */
    double validity;
    const char *shape_error;       /* static text or NULL */
    /* plot data (evaluate_plots.c) */
    int nbins;
    double lo, hi;                 /* continuous: histogram range */
    double vmin, vmax;             /* continuous: the real column's min and max */
    double *real_freq, *syn_freq;  /* [nbins] fractions of all rows */
    char **bin_label;              /* categorical: [nbins] (last may be "other") */
    double real_missing, syn_missing; /* fraction of missing (NaN) rows */
} gen_ev_column_res;

typedef struct gen_ev_pair_res {
    int a, b;                      /* column indexes, a < b */
    const char *metric;            /* "CorrelationSimilarity" | "ContingencySimilarity" */
    double score;                  /* all-pairs mode score (NaN when incomputable) */
    double score_robust;           /* the same with robust binning (contingency pairs with a
                                    * continuous column; otherwise equal to score) */
    double real_corr, syn_corr;    /* Pearson (correlation pairs) */
    double real_assoc;             /* Cramer's V of the real table (contingency pairs) */
    int meets;                     /* threshold mode: 1 counts, 0 does not */
    int subsampled;                /* contingency computed on <= 50k-row subsamples */
    const char *error;             /* static text or NULL */
} gen_ev_pair_res;

typedef struct gen_ev_tstr_res {
    const char *model;             /* "LogisticRegression" | "MLP" */
    double synthetic, real;        /* F1 (binary) / macro F1 trained on synthetic / real */
} gen_ev_tstr_res;

/* XGBoost train-on-X, test-on-holdout (TabSyn's eval_mle; evaluate_fidelity.c). */
typedef struct gen_ev_mle_res {
    int64_t train_rows;            /* labelled training rows (before the 1/9 validation cut) */
    double val_auc, test_auc;      /* best grid point's validation AUC, its holdout AUC */
    int trees, depth, mcw, gamma;  /* that grid point */
} gen_ev_mle_res;

struct genesis_eval_result {
    genesis_ctx *ctx;
    double score[32];              /* by genesis_eval_score; NaN = not computed */
    int ncols;
    char **names;                  /* [ncols] */
    int *continuous;
    gen_ev_column_res *cols;       /* [ncols] */
    int npairs;
    gen_ev_pair_res *pairs;
    int npairs_meeting;
    double pair_trends_robust;     /* mean of the non-NaN score_robust (the report's map) */
    int64_t real_rows, syn_rows, hold_rows;
    char *src_real, *src_syn, *src_hold; /* file names (may be NULL) */
    uint64_t seed;
    double corr_threshold, assoc_threshold;
    int64_t subsample_rows;
    /* validity */
    int structure_same, structure_union;
    /* privacy */
    int64_t exact_copies, new_rows, nrs_rows;
    int64_t real_dup_rows;         /* real rows equal in every column to another real row */
    int64_t dcr_rows;              /* synthetic rows used for DCR */
    double dcr_median_syn, dcr_median_random, dcr_closer_to_training;
    double dcr_median_holdout;
    int dcr_exact;                 /* 1 when every synthetic row was used */
    int64_t dcr_train_ref, dcr_hold_ref; /* overfitting: reference rows used on each side */
    int dcr_equal_size;            /* 1: both sides sampled to one size */
    const char *dcr_warning;       /* static text or NULL */
    /* real-vs-real baselines: the holdout scored against the training rows by the same
     * functions, as if it were the synthetic table (has_baseline: computed) */
    int has_baseline;
    int64_t base_exact_copies, base_new_rows, base_dcr_rows;
    double base_exact_copy_rate, base_new_row_synthesis;
    double base_dcr_median, base_dcr_median_random, base_dcr_baseline;
    /* detection */
    int64_t detect_real_rows, detect_syn_rows;
    double detect_auc[3];
    /* the field's current scores (evaluate_fidelity.c) */
    int xgb_available;             /* 1: built with XGBoost */
    double xgb_auc[3], xgb_mean_auc; /* XGBoost detection: per fold, mean (synthcity) */
    int64_t xgb_real_rows, xgb_syn_rows;
    int64_t ab_rows;               /* rows per table behind alpha-precision / beta-recall */
    int64_t dcr_share_syn_rows, dcr_share_train_rows, dcr_share_hold_rows;
    double dcr_share_train_closer; /* the share itself (also score[GENESIS_EVAL_DCR_SHARE]) */
    int mle_binary;                /* the target has two classes in the real table */
    int64_t mle_test_rows;         /* holdout rows with one of those classes */
    gen_ev_mle_res mle[2];         /* XGBoost trained on synthetic [0] / real [1] rows */
    /* usefulness */
    char *target;
    char *positive;                /* binary: the minority class of the real table */
    int nclasses;
    const char *tstr_metric;       /* "f1" | "macro_f1" */
    gen_ev_tstr_res tstr[2];
    int ntstr;
    int64_t tstr_train_rows_syn, tstr_train_rows_real, tstr_test_rows;
    char *note;                    /* reason a part was skipped, or NULL */
    /* timings (seconds) */
    double t_prepare, t_quality, t_validity, t_privacy, t_detection, t_tstr, t_total;
    double t_fidelity;             /* the scores of evaluate_fidelity.c together */
    int parts;                     /* genesis_eval_part bits computed */
    char *json;                    /* built lazily by genesis_eval_result_json */
};

/* Options with defaults resolved. */
typedef struct gen_ev_opts {
    unsigned parts;
    uint64_t seed;
    int threads;
    int64_t subsample_rows, dcr_rows, detection_rows, tstr_rows;
    int64_t dcr_reference_rows;    /* 0 = equal sizes (the smaller table's), -1 = whole */
    double corr_threshold, assoc_threshold;
    const char *target;
} gen_ev_opts;

/* ---- the parts -------------------------------------------------------------------------- */

/* Column Shapes + Column Pair Trends (both modes). Fills r->cols[*].shape and r->pairs. */
genesis_status gen_ev_quality(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                              genesis_eval_result *r);
/* Data Validity + Data Structure. */
genesis_status gen_ev_validity(genesis_ctx *ctx, const gen_ev_data *d, genesis_eval_result *r);
/* Exact copies, NewRowSynthesis, DCR. */
genesis_status gen_ev_privacy(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                              genesis_eval_result *r);
/* The real-vs-real baselines of the privacy lines: gen_ev_privacy on a view of d whose
 * synthetic table is the holdout (no holdout of its own), copied into r->base_*. Needs
 * d->has_holdout. */
genesis_status gen_ev_privacy_baseline(genesis_ctx *ctx, const gen_ev_data *d,
                                       const gen_ev_opts *o, genesis_eval_result *r);
/* Why a usefulness score may be low for a reason of the table rather than of the
 * synthetic rows (a macro F1 over several classes); "" when there is nothing to say.
 * Writes into buf (cap bytes) and returns it. */
const char *gen_ev_tstr_reason(const genesis_eval_result *r, char *buf, size_t cap);
/* LogisticDetection. */
genesis_status gen_ev_detection(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                                genesis_eval_result *r);
/* TSTR for o->target. */
genesis_status gen_ev_efficacy(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                               genesis_eval_result *r);
/* The scores of the 2024-2026 tabular-generation papers (evaluate_fidelity.c):
 * alpha-precision and beta-recall (o->parts has QUALITY), the DCR share (PRIVACY, with a
 * holdout), XGBoost detection (DETECTION) and XGBoost TSTR AUC (USEFULNESS, with a target),
 * the last two when built with XGBoost. */
genesis_status gen_ev_fidelity(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                               genesis_eval_result *r);

/* Histogram / bar data of every column for the report. */
genesis_status gen_ev_plots(genesis_ctx *ctx, const gen_ev_data *d, genesis_eval_result *r);

/* Builds the JSON document (malloc'd) or NULL on out of memory. */
char *gen_ev_json(const genesis_eval_result *r);
/* Writes the HTML report. */
genesis_status gen_ev_write_html(const genesis_eval_result *r, const char *path);

/* ---- small shared helpers (evaluate_quality.c) ----------------------------------------- */

/* numpy.round(x, 14) as pandas does it before the KS test: rint(x * 1e14) / 1e14. */
double gen_ev_round14(double x);
/* Two-sample KS statistic of sorted arrays (scipy.stats.ks_2samp's D). */
double gen_ev_ks_stat(const double *a, int64_t na, const double *b, int64_t nb);
/* Report binning (np.histogram_bin_edges + np.digitize, 10 bins): labels 0..11 per value,
 * NaN -> 11; `edges` gets the 11 edges. Returns 0, or -1 when a value is infinite. */
int gen_ev_digitize(const double *x, int64_t n, uint8_t *label, double edges[11]);
/* Robust binning of the report's pair map: 10 equal bins over [q 0.5%, q 99.5%] of `ref`
 * (the real column; linear-interpolation quantiles of its finite values), values below in
 * bin 0, above in bin 9, NaN -> 10; the same edges label `x`. Returns 0, or -1 on out of
 * memory. lo / hi get the range used. */
int gen_ev_digitize_robust(const double *ref, int64_t nref, const double *x, int64_t n,
                           uint8_t *label, double *lo, double *hi);
/* Cramer's V (scipy.stats.contingency.association, method="cramer") of a count table given
 * as its non-zero cells (x in [0, A), y in [0, B)); the table's rows and columns are the x
 * and y values present. NaN when it has fewer than 2 rows or columns. */
double gen_ev_cramers_v(const int64_t *count, const int32_t *x, const int32_t *y,
                        int64_t ncells, int32_t A, int32_t B);
/* Pearson correlation of paired values (rows with NaN in either dropped); NaN when fewer
 * than 2 rows remain or either side is constant. */
double gen_ev_pearson(const double *x, const double *y, int64_t n);

/* Median (pandas: mean of the two middle values for an even count); sorts `x`. */
double gen_ev_median(double *x, int64_t n);

/* Picks k distinct indexes out of [0, n) (k <= n), sorted, uniformly from a seeded stream
 * (memory: n bits). */
genesis_status gen_ev_sample_rows(genesis_ctx *ctx, int64_t n, int64_t k, uint64_t seed,
                                  uint64_t stream, int64_t **out);

/* Label normalisation for TSTR targets: surrounding spaces and one trailing '.' removed
 * (Adult's test split writes " >50K."). Writes into buf. */
const char *gen_ev_norm_label(const char *s, char *buf, size_t cap);

/* Wall-clock seconds (monotonic). */
double gen_ev_now(void);

/* Stream ids of the evaluation's random draws (rng.h streams of the context seed). */
enum {
    GEN_EV_STREAM_DCR = 201,
    GEN_EV_STREAM_BASELINE = 202,
    GEN_EV_STREAM_DCR_TRAIN = 203, /* overfitting: training reference subsample */
    GEN_EV_STREAM_DCR_HOLD = 204,  /* overfitting: holdout reference subsample */
    GEN_EV_STREAM_DETECT = 301,
    GEN_EV_STREAM_TSTR = 401,
    GEN_EV_STREAM_XGB = 501,       /* XGBoost detection: subsamples (+0, +1), folds (+2) */
    GEN_EV_STREAM_ALPHA = 511,     /* alpha / beta: subsamples (+0, +1) */
    GEN_EV_STREAM_DCR_SHARE = 521, /* DCR share: synthetic subsample */
    GEN_EV_STREAM_MLE = 531,       /* XGBoost TSTR: rows (+0), split (+1); TRTR +2, +3 */
    GEN_EV_STREAM_PAIRS = 1 << 24  /* + 2 * pair index (+1): contingency subsamples */
};

#endif /* GEN_EVALUATE_H */
