/*
 * registry.c — the one place that names the models: the list of every network's vtable
 * (CTGAN, TVAE, TimeGAN, DDPM), through which the core (src/) reaches them by kind or by name
 * (src/model/registry.h: gen_model_registry, gen_model_vtable_of). Each vtable carries its model's
 * traits (features, training unit, losses, settings and their defaults), which the core, the
 * CLI and the Python package ask for (genesis_model_kind_get_info, genesis_param_get_info).
 * Adding a model is its files in models/ and a line here (docs/architecture.md, "Adding a
 * model"). The default model, what a caller that does not choose gets (the CLI without
 * --method, Python's SyntheticGenerator()), is named here too: DDPM, the method that met every
 * marginal criterion at its defaults on the tables measured (docs/benchmarks.md, "Which method
 * by default").
 */
#include "registry.h"

extern const gen_model_vtable gen_ctgan_vtable;
extern const gen_model_vtable gen_tvae_vtable;
extern const gen_model_vtable gen_timegan_vtable;
extern const gen_model_vtable gen_ddpm_vtable;

static const gen_model_vtable *const MODELS[] = {&gen_ctgan_vtable, &gen_tvae_vtable,
                                                 &gen_timegan_vtable, &gen_ddpm_vtable};

const gen_model_vtable *gen_model_default(void) { return &gen_ddpm_vtable; }

const gen_model_vtable *const *gen_model_registry(int *n) {
    if (n) *n = (int)(sizeof MODELS / sizeof MODELS[0]);
    return MODELS;
}

const gen_model_vtable *gen_model_vtable_of(genesis_model_kind kind) {
    int n = 0;
    const gen_model_vtable *const *all = gen_model_registry(&n);
    for (int i = 0; i < n; i++)
        if (all[i]->kind == kind) return all[i];
    return NULL;
}
