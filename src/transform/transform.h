/*
 * transform.h — the data transformer: a table <-> the encoded matrix the networks see.
 *
 * Continuous column (docs/algorithms.md §T2.2, extended):
 *   spans: tanh(1) = alpha, then softmax(n_modes + n_points + has_null) = which component.
 *   - GMM modes: a variational Bayesian GMM (vgm.h) fitted on the values that are neither
 *     missing nor a point mass; alpha = (x - mu_k)/(4 sigma_k) clipped to +-0.99, the mode k
 *     sampled from the posterior (+1e-6 smoothing), as the reference does.
 *   - point masses: values carrying a large share of the column (>= 10% of rows, or the
 *     column's min/max with >= 1%; with quantile normalisation also an end spike from 0.5%)
 *     get their own slot and are written back exactly; their alpha is 0.
 *   - null slot: present when the column has missing values; decoding it writes missing.
 *   decode: slot = argmax; GMM mode -> x = clip(alpha,-1,1)*4*sigma + mu, then clamped to the
 *   real column's [min, max] (unless clamp is off) and rounded when the column is integer.
 *   Quantile normalisation (opts.quantile, quantile.h): instead of the GMM, one mode holding
 *   z = Phi^-1(F(x)) with mean 0 and std 1 (F: the values' quantiles); decode x = F^-1(Phi(z)).
 * Categorical column: one softmax span over the kept levels (+ a missing level, + a rare
 *   slot when the column had more than max_categories levels; a decoded rare slot draws one
 *   of the pooled levels by its real frequency).
 *
 * The encoded training data is kept compact (gen_encoded: one alpha and one slot index per
 * column and row) and expanded to dense one-hot rows only for a batch (gen_encoded_gather).
 *
 * The folder src/transform/ is the transformer, above data/, backend/ and comm/: this
 * encoding, the mixture modes of a continuous column (vgm.c), the quantile map (quantile.c) and
 * CTGAN's conditional vectors over the encoded spans (sampler.c).
 */
#ifndef GEN_TRANSFORM_H
#define GEN_TRANSFORM_H

#include "rng.h"
#include "table.h"
#include "vgm.h"

#define GEN_MAX_MODES 10
#define GEN_MAX_POINTS 12

typedef enum { GEN_SPAN_TANH = 0, GEN_SPAN_SOFTMAX = 1 } gen_span_kind;

typedef struct gen_span {
    int start, len;
    gen_span_kind kind;
    int column;             /* the table column it encodes */
} gen_span;

typedef struct gen_col_transform {
    char *name;
    genesis_column_type type;
    int span_first;         /* index into gen_transformer.spans */
    int nspans;             /* 2 for continuous, 1 for categorical */
    int offset, width;      /* columns of the encoded row it occupies */
    /* continuous */
    int n_modes;                     /* valid GMM modes, 0..10 */
    double mode_mean[GEN_MAX_MODES];
    double mode_std[GEN_MAX_MODES];
    double mode_weight[GEN_MAX_MODES];
    int n_points;
    double point_value[GEN_MAX_POINTS];
    int has_null;
    int n_quantiles;                 /* quantile normalisation (quantile.h): 0 = off; else the
                                        one mode is z = Phi^-1(F(x)) with mean 0 and std 1 */
    double *quantiles;               /* [n_quantiles] the map F, non-decreasing */
    double min, max;                 /* of the real non-missing values */
    int is_integer, decimals;
    int decimal_comma;               /* written with a decimal comma (3,14), as read */
    gen_dt_format dt;                /* a date column (dt.pattern[0] != 0): values are UTC
                                        seconds, written back in this format (datetime.h) */
    gen_id_format id;                /* an identifier column (id.kind != 0): modelled as a
                                        constant; decoding numbers the rows (idcol.h) */
    int64_t id_next;                 /* ids handed out so far by this transformer (the one
                                        piece of sampling state it keeps: ids stay unique
                                        over every sample drawn from one model) */
    /* categorical (levels in slot order; slot = level code after remapping) */
    int n_slots;                     /* softmax width */
    char **slot_text;                /* [n_slots] text per slot (NULL for the rare slot) */
    int missing_slot;                /* slot of missing values, -1 if none */
    int rare_slot;                   /* slot pooling rare levels, -1 if none */
    int32_t n_rare;                  /* pooled levels */
    char **rare_text;                /* [n_rare] */
    double *rare_cdf;                /* [n_rare] cumulative real frequency, last = 1 */
    char *na_text;                   /* text written for missing values */
    /* continuous, for encoding only (not needed to decode; zero in a loaded model, where
     * encoding falls back to the valid modes' own mixture) */
    gen_vgm gmm;                     /* the full fitted mixture (gmm.K == 0: none) */
    int mode_comp[GEN_MAX_MODES];    /* component of gmm behind each valid mode */
} gen_col_transform;

typedef struct gen_transformer {
    int ncols;
    gen_col_transform *cols;         /* [ncols], in table column order */
    int nspans;
    gen_span *spans;                 /* [nspans] in layout order */
    int data_dim;                    /* width of an encoded row */
    char delimiter;                  /* for output */
    int clamp_range;                 /* decoded values stay inside [min, max] */
    uint64_t seed;                   /* opts.seed: the mode sampling while encoding */
} gen_transformer;

typedef struct gen_transform_opts {
    int max_modes;          /* 10 */
    int max_categories;     /* 500 */
    int point_masses;       /* 1 */
    int clamp_range;        /* 1 */
    int64_t vgm_max_rows;   /* 0 = all rows */
    int quantile;           /* 0; 1: continuous columns normalised by their quantiles */
    uint64_t seed;          /* for the GMM fit's row subsample and the mode sampling */
} gen_transform_opts;

void gen_transform_opts_default(gen_transform_opts *o);

/* Fits the transformer on a table. `tf` is zeroed first; free with gen_transformer_free. */
genesis_status gen_transformer_fit(genesis_ctx *ctx, gen_transformer *tf, const genesis_table *t,
                                   const gen_transform_opts *o);
void gen_transformer_free(gen_transformer *tf);

/* Compact encoded table: for column c and row i, slot[c][i] is the mode/point/null slot
 * (continuous) or the category slot (categorical); alpha[c][i] is the tanh value
 * (continuous only; NULL for categorical). */
typedef struct gen_encoded {
    int64_t nrows;
    int ncols;
    int32_t **slot;   /* [ncols][nrows] */
    float **alpha;    /* [ncols][nrows] or NULL per column */
} gen_encoded;

/* Encodes every row of `t` (which must have the columns the transformer was fitted on). */
genesis_status gen_transformer_transform(genesis_ctx *ctx, const gen_transformer *tf,
                                         const genesis_table *t, gen_encoded *out);
void gen_encoded_free(gen_encoded *e);

/* Writes the dense rows `rows[0..B)` of `e` into out (B x data_dim, row stride ld). */
void gen_encoded_gather(const gen_transformer *tf, const gen_encoded *e, const int64_t *rows,
                        int B, float *out, int ld);

/* Decoded rows, column-major like a table: num[c] for continuous, cat[c] for categorical.
 * For categorical columns cat holds the slot; rare slots are resolved to a pooled level
 * index in rare_pick[c] (or -1). */
typedef struct gen_rowbatch {
    int B, ncols;
    double **num;     /* [ncols][B] (NULL for categorical) */
    int32_t **cat;    /* [ncols][B] (NULL for continuous) */
    int32_t **rare_pick; /* [ncols][B] (NULL when the column has no rare slot) */
} gen_rowbatch;

genesis_status gen_rowbatch_alloc(const gen_transformer *tf, int B, gen_rowbatch *rb);
void gen_rowbatch_free(gen_rowbatch *rb);

/* Where the rows being decoded sit in their sampling call: row b of a batch is the call's
 * row row0 + b. Its pooled rare levels are drawn from its own row-numbered stream
 * (gen_rng_row(seed, stream, row0 + b), one counter block per column), and an identifier
 * column gives it id.start + id0 + row0 + b (id0: gen_transformer_take_ids), so the decoded
 * rows do not depend on which device or batch decodes them. */
typedef struct gen_row_draws {
    uint64_t seed, stream;
    int64_t row0, id0;
} gen_row_draws;

/* Inverse transform of B activated rows x (B x data_dim, row stride ld) into rb. */
void gen_transformer_inverse(const gen_transformer *tf, const float *x, int ld, int B,
                             const gen_row_draws *rd, gen_rowbatch *rb);

/* Reserves n ids in every identifier column (ids stay unique over every sample drawn from
 * one model) and returns the number handed out before: a sampling call's id0. */
int64_t gen_transformer_take_ids(gen_transformer *tf, int64_t n);

/* Text of a decoded value as the CSV writer prints it. Returns a pointer into buf or into
 * the transformer's own strings; *len gets its length. */
const char *gen_rowbatch_text(const gen_transformer *tf, const gen_rowbatch *rb, int row,
                              int col, char *buf, size_t cap, size_t *len);

/* Formats rows [0, B) of rb as CSV records appended to *buf (grown as needed). */
genesis_status gen_rowbatch_format_csv(const gen_transformer *tf, const gen_rowbatch *rb,
                                       char **buf, size_t *cap, size_t *len);

#endif /* GEN_TRANSFORM_H */
