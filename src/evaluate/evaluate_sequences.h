/*
 * evaluate_sequences.h — TimeGAN's discriminative and predictive scores
 * (evaluate_sequences.c, docs/algorithms.md §S8) on host arrays of sequences (n, T, F) already
 * scaled to [0, 1].
 */
#ifndef GEN_EVALUATE_SEQUENCES_H
#define GEN_EVALUATE_SEQUENCES_H

#include "backend.h"

typedef struct gen_seq_metric_opts {
    int repeats;      /* fresh models per score; mean and std reported (10) */
    int disc_iters;   /* 2000 */
    int pred_iters;   /* 5000 */
    int batch;        /* 128 */
    uint64_t seed;
} gen_seq_metric_opts;

void gen_seq_metric_opts_default(gen_seq_metric_opts *o);

/* |0.5 - held-out accuracy| of a post-hoc GRU classifier (0 best, 0.5 worst). */
genesis_status gen_discriminative_score(gen_backend *be, const float *real, int64_t nr,
                                        const float *fake, int64_t nf, int T, int F,
                                        const gen_seq_metric_opts *o, double *mean, double *sd);
/* MAE on the real sequences of a one-step-ahead GRU regressor trained on the synthetic ones
 * (lower is better). Needs F >= 2. */
genesis_status gen_predictive_score(gen_backend *be, const float *real, int64_t nr,
                                    const float *fake, int64_t nf, int T, int F,
                                    const gen_seq_metric_opts *o, double *mean, double *sd);

#endif /* GEN_EVALUATE_SEQUENCES_H */
