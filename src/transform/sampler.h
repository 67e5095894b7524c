/*
 * sampler.h — CTGAN's conditional vector and training-by-sampling (docs/algorithms.md §T3).
 * Discrete columns are the categorical columns (one softmax span each). For training, a
 * discrete column is picked uniformly, then a category with probability proportional to
 * log(count + 1) (or count), then a real row holding that category uniformly. For
 * generation without conditions the same column-then-category prior is used (§T3).
 * Row lists are kept in CSR form (category -> row ids), built once from the encoded table.
 */
#ifndef GEN_SAMPLER_H
#define GEN_SAMPLER_H

#include "rng.h"
#include "transform.h"

typedef struct gen_cond_sampler {
    int n_disc;            /* discrete columns */
    int cond_dim;          /* total categories over discrete columns */
    int max_cat;
    int *disc_col;         /* [n_disc] table column */
    int *cond_start;       /* [n_disc] offset in the cond vector */
    int *data_start;       /* [n_disc] offset of its softmax span in the encoded row */
    int *n_cat;            /* [n_disc] */
    double *cdf;           /* [n_disc * max_cat] cumulative category probabilities */
    int64_t *row_start;    /* [n_disc * max_cat + 1] CSR offsets (per column blocks) */
    int32_t *rows;         /* [n_disc * nrows] row ids grouped by (column, category); tables
                              hold at most 2^31-1 rows */
    int64_t nrows;
} gen_cond_sampler;

/* The column layout only (which columns are discrete, their offsets and widths); no
 * probabilities or row lists. gen_cond_sampler_init builds on it. */
genesis_status gen_cond_sampler_layout(genesis_ctx *ctx, gen_cond_sampler *s,
                                       const gen_transformer *tf);
genesis_status gen_cond_sampler_init(genesis_ctx *ctx, gen_cond_sampler *s,
                                     const gen_transformer *tf, const gen_encoded *enc,
                                     int log_frequency);
void gen_cond_sampler_free(gen_cond_sampler *s);

/* Training draw: col[b] uniform over discrete columns, cat[b] by the (log-)frequency cdf. */
void gen_cond_sampler_draw(const gen_cond_sampler *s, gen_rng *rng, int B, int32_t *col,
                           int32_t *cat);
/* A real row id holding category `cat` of discrete column `col` (uniform among them). */
int64_t gen_cond_sampler_pick_row(const gen_cond_sampler *s, gen_rng *rng, int col, int cat);
/* Writes one-hot cond rows (B x cond_dim, row stride ld) for (col[b], cat[b]). */
void gen_cond_sampler_onehot(const gen_cond_sampler *s, const int32_t *col, const int32_t *cat,
                             int B, float *out, int ld);

#endif /* GEN_SAMPLER_H */
