/*
 * dp.h — differentially private fits (docs/privacy.md): the plan that turns a target
 * (epsilon, delta) into the noise of DP-SGD and of the transformer's statistics (dp.c), the
 * noisy histograms the transformer is fitted on instead of the real values (dp_stats.c), and
 * the record a model keeps and its file stores.
 */
#ifndef GEN_DP_H
#define GEN_DP_H

#include <stdint.h>

#include "dp_accountant.h"
#include "internal.h"
#include "transform.h"

/* Whether the model's settings ask for a DP fit (epsilon > 0). */
int gen_dp_requested(const genesis_model *m);
/* Plans a DP fit of t (m->dp filled) and fits m->tf on the released histograms; *recoded gets
 * the real table with categories the release dropped set missing, the table the network
 * trains on (free with gen_table_destroy). Refuses, with the reason, what cannot reach the
 * target or would leak around it. */
genesis_status gen_dp_fit_transformer(genesis_model *m, const genesis_table *t,
                                      const gen_transform_opts *to, genesis_table **recoded);
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

#endif /* GEN_DP_H */
