/*
 * dp.h — differentially private fits (docs/privacy.md): the plan that turns a target
 * (epsilon, delta) into the noise of DP-SGD and of the transformer's statistics (dp.c), the
 * noisy histograms the transformer is fitted on instead of the real values (dp_stats.c), and
 * the record a model keeps and its file stores.
 */
#ifndef GEN_DP_H
#define GEN_DP_H

#include <stdint.h>

#include "backend.h"
#include "dp_accountant.h"
#include "internal.h"
#include "rng.h"
#include "transform.h"

/* Whether the model's settings ask for a DP fit (epsilon > 0). */
int gen_dp_requested(const genesis_model *m);
/* Plans a DP fit of t (m->dp filled) and fits m->tf on the released histograms; *recoded gets
 * the real table with categories the release dropped set missing, the table the network
 * trains on (free with gen_table_destroy). Refuses, with the reason, what cannot reach the
 * target or would leak around it. */
genesis_status gen_dp_fit_transformer(genesis_model *m, const genesis_table *t,
                                      const gen_transform_opts *to, genesis_table **recoded);
/* The mechanism's description for genesis_model_privacy: the kind's (vtable dp_mechanism) or
 * the default DP-SGD text. */
const char *gen_dp_mechanism(const genesis_model *m);
/* dp_stats.c: the pseudo-table of nrows rows drawn from noisy histograms of t's columns
 * (Gaussian noise of sd `sd` per cell, cells below `threshold` dropped), and t recoded to its
 * categories. NULL *pseudo on refusal (the message names the column). */
/* The continuous columns' bins per decade for nrows rows and a release threshold (public
 * quantities only): the largest of 32, 16, 8, 4 with nrows / (2 G) >= threshold, else 2. */
#define GEN_DPH_MAX_G 32
int gen_dp_bins_per_decade(int64_t nrows, double threshold);
genesis_status gen_dp_release_tables(genesis_ctx *ctx, const genesis_table *t, double sd,
                                     double threshold, uint64_t seed, genesis_table **pseudo,
                                     genesis_table **recoded);

/* ---- dp_sgd.c: the model-independent pieces of a DP-SGD step ---- */
/* Poisson sampling: rows[0 .. return) = the rows i < n that join, each with probability q
 * (one uniform draw of pick per row, in row order). */
int64_t gen_dp_poisson_rows(gen_rng *pick, double q, int64_t n, int32_t *rows);
/* One linear layer out = x W^T + bias of a stack, as the clipping sees it: its input rows x
 * (B x C, ld ldx), its output-gradient rows g (B x OC, ld ldg; per-row losses: row b is
 * dL_b/d out_b), its gradient slices dW, db and its weights W. */
typedef struct gen_dp_linear {
    const float *x;
    int ldx, C;
    float *g;
    int ldg, OC;
    float *dW, *db;
    const float *W;
} gen_dp_linear;
/* Per-example clipping of the nl layers' gradients on B rows (functions between the layers
 * act on one row each): sq[b] = squared norm of row b's gradient over the stack, s[b] =
 * min(1, clip / sqrt(sq[b])), every g row b scaled by s[b], and dW, db += the clipped sum
 * sum_b s_b (g_b^T x_b, g_b). sq, s: B floats of backend memory. */
void gen_dp_clip_linear(gen_backend *be, const gen_dp_linear *L, int nl, int B, float *sq,
                        float *s, float clip);
/* The step's noise on the summed clipped gradient g (n floats): g = (g + N(0, (sigma C)^2))
 * / (q nrows), the draws of Philox stream GEN_STREAM_DP at block *at (advanced). */
void gen_dp_noise_sum(gen_backend *be, const gen_dp_info *dp, int64_t nrows, float *g, size_t n,
                      uint64_t seed, uint64_t *at);
/* A DP fit's report at the end of its unit `unit` of `units` (epochs; DDPM: hundredths of
 * the iterations) after `step` of m->dp.steps steps: the progress callback (loss, rows per
 * second from the expected batch q nrows) and the stop request; GENESIS_ERR_CANCELLED with a
 * message naming `what` `at` of `total` when the caller or an interrupt stops the fit. */
genesis_status gen_dp_report(genesis_model *m, genesis_progress_fn progress, void *user, int unit,
                             int units, int64_t step, int64_t nrows, double loss, double elapsed,
                             const char *what, int64_t at, int64_t total);

#endif /* GEN_DP_H */
