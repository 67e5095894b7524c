/*
 * registry.h — the core's one way to the models: the registry, defined in models/registry.c
 * (the one place that lists them). The core finds a kind's vtable here and never names a
 * model (docs/architecture.md, "Layers").
 */
#ifndef GEN_REGISTRY_H
#define GEN_REGISTRY_H

#include "model_types.h"

/* The registry (models/registry.c): every model's vtable, *n of them. */
const gen_model_vtable *const *gen_model_registry(int *n);
/* The default model's vtable: what a caller that does not choose a kind gets. */
const gen_model_vtable *gen_model_default(void);
/* The vtable of a kind; NULL when no model of that kind is built in. */
const gen_model_vtable *gen_model_vtable_of(genesis_model_kind kind);

#endif /* GEN_REGISTRY_H */
