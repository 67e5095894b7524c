/*
 * params.h — the parameter table inside the library (src/model/params.c): per-kind defaults (from
 * each model's params table, through the registry), names
 * and the check genesis_model_set_param runs. The public side is genesis_param_get_info.
 */
#ifndef GEN_PARAMS_H
#define GEN_PARAMS_H

#include "internal.h"

/* the default a model of `kind` starts with */
double gen_param_kind_default(genesis_model_kind kind, int p);
/* the parameter-table name ("batch-size"), or NULL for an unknown parameter */
const char *gen_param_name(int p);
/* 1 when `p` takes whole numbers only */
int genesis_param_is_integer(int p);
/* GENESIS_OK when a model of `kind` (fitted or not) may take p = v; else the error, recorded
 * in ctx with the parameter's name and what to do */
genesis_status gen_param_check(genesis_ctx *ctx, genesis_model_kind kind, int fitted, int p,
                               double v);

#endif /* GEN_PARAMS_H */
