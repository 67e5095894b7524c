/*
 * model.h — the core's model interface, what every model (CTGAN, TVAE, TimeGAN, DDPM) plugs
 * into: the genesis_model object and the per-model vtable (model_types.h), and the functions
 * of the shared code in src/model/model.c, which does everything that is not network-specific:
 * parameters and bounds, the transformer fit, conditions; sampling is sample_stream.c's and
 * the model file src/model/model_io.c's. The core never names a model: it finds a kind's vtable
 * through the registry (registry.h, defined in models/registry.c, the one place that lists
 * the models). docs/architecture.md, "Layers".
 *
 * The folder src/model/ is what every model shares, above the transformer: the model object
 * and its vtable (model_types.h, model.c, model_kind.c, model_columns.c), the registry's
 * declarations (registry.h), parameters (params.c), model files and checkpoints (model_io.c,
 * checkpoint.c), the memory model (estimate.c, sample_size.c, sysmem.c), the sampling pipeline
 * (sample_stream.c), the training table in backend memory (dev_table.c), sequences and the
 * GRU layers (sequence.c, seq_nets.c). The networks themselves are in models/.
 */
#ifndef GEN_MODEL_H
#define GEN_MODEL_H

#include "model_types.h"

/* An untrained model of `kind` with the kind's defaults and a backend from the context;
 * GENESIS_ERR_UNSUPPORTED (message set) for a kind this build does not have. */
genesis_status gen_model_new(genesis_ctx *ctx, genesis_model_kind kind, genesis_model **out);

/* The kind's GPU defaults (vtable gpu_params) on a GPU backend without differential privacy,
 * else its usual ones, for every such setting the caller has not set. */
void gen_model_device_defaults(genesis_model *m);

/* A host copy of the model's whole state, the arrays of vt->state one after another
 * (*out: caller frees); seg (may be NULL, room for 16) receives each array's length and
 * *nseg their number. */
genesis_status gen_model_state(const genesis_model *m, float **out, size_t *n, size_t *seg,
                               int *nseg);

/* The transformer's activation spans in the backend's form (caller frees). */
gen_act_span *gen_model_act_spans(const gen_transformer *tf);

/* The fewest rows (time steps for a sequence model) a fit accepts. */
#define GEN_MIN_FIT_ROWS 3

#endif /* GEN_MODEL_H */
