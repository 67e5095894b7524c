/*
 * estimate.h — the memory model's internal entry (estimate.c); its public functions are in
 * genesis.h (genesis_estimate_memory, genesis_optimize_batch_size, genesis_memory_budget).
 */
#ifndef GEN_ESTIMATE_H
#define GEN_ESTIMATE_H

#include "model_types.h"

/* Checks the training configuration against the memory budget: a warning, or an error
 * naming the batch size that fits when a budget was set. */
genesis_status gen_check_fit_budget(genesis_model *m, const genesis_table *t);

#endif /* GEN_ESTIMATE_H */
