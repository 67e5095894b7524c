/*
 * model_kind.c — the model kinds by name ("ctgan", "tvae", "timegan", "ddpm": each network's
 * own vtable name) and their traits as each model declares them in its vtable: what it can
 * do besides fit and sample (conditions: a network with a conditional vector, CTGAN;
 * sequences: a network that reads the table itself, TimeGAN; target: a class the fit
 * conditions on, DDPM), what its fit counts (epochs or iterations) and how many losses its
 * progress reports (genesis_model_kind_get_info); and what a kind generates when the caller
 * does not say how much: the training table's rows for the tabular models; for a sequence
 * model as many sequences as a single series of that many rows has windows (rows - seq_len,
 * at least 1), as TimeGAN's reference generation does (docs/timegan.md §5). The kinds, and
 * which one is the default (genesis_model_kind_default), come from the registry
 * (models/registry.c). genesis_model_epochs_length says how long `epochs` passes over the rows
 * are in a model's own training unit: for a tabular model trained by iterations (DDPM)
 * ceil(epochs x rows / batch), the number of batches that many passes take (docs/cli.md,
 * "Epochs for a method trained by iterations").
 */
#include <math.h>
#include <string.h>

#include "model_types.h"
#include "params.h"
#include "registry.h"


const char *genesis_model_kind_name(genesis_model_kind kind) {
    const gen_model_vtable *vt = gen_model_vtable_of(kind);
    return vt ? vt->name : NULL;
}

genesis_model_kind genesis_model_kind_default(void) { return gen_model_default()->kind; }

genesis_status genesis_model_kind_from_name(const char *name, genesis_model_kind *kind) {
    int n = 0;
    const gen_model_vtable *const *all = gen_model_registry(&n);
    for (int i = 0; name && kind && i < n; i++)
        if (strcmp(all[i]->name, name) == 0) {
            *kind = all[i]->kind;
            return GENESIS_OK;
        }
    return GENESIS_ERR_INVALID_ARG;
}

unsigned genesis_model_kind_features(genesis_model_kind kind) {
    const gen_model_vtable *vt = gen_model_vtable_of(kind);
    if (!vt) return 0;
    return vt->features | (vt->fit_table ? GENESIS_FEATURE_SEQUENCES : 0u);
}

genesis_status genesis_model_kind_get_info(genesis_model_kind kind, genesis_model_kind_info *out) {
    const gen_model_vtable *vt = gen_model_vtable_of(kind);
    if (!vt || !out) return GENESIS_ERR_INVALID_ARG;
    out->name = vt->name;
    out->features = genesis_model_kind_features(kind);
    out->train_param = vt->train_param;
    out->train_unit = gen_param_name((int)vt->train_param);
    out->losses = vt->losses == 2 ? 2 : 1;
    return GENESIS_OK;
}

int64_t genesis_model_default_rows(const genesis_model *m, int64_t table_rows) {
    if (!m || table_rows < 0) return 0;
    if (!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_SEQUENCES)) return table_rows;
    int64_t windows = table_rows - (int64_t)m->param[GENESIS_P_SEQ_LEN];
    return windows > 1 ? windows : 1;
}

genesis_status genesis_model_epochs_length(const genesis_model *m, int64_t rows, double epochs,
                                           double *length) {
    if (!m || !length || rows < 1 || !(epochs >= 1)) return GENESIS_ERR_INVALID_ARG;
    int tp = (int)m->vt->train_param;
    if (tp == GENESIS_P_EPOCHS) {
        *length = epochs;
        return GENESIS_OK;
    }
    GEN_RETURN_IF(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_SEQUENCES, m->ctx,
                  GENESIS_ERR_UNSUPPORTED,
                  "%s trains by `%s` over several phases; epochs do not convert to them", m->vt->name,
                  gen_param_name(tp));
    double batch = m->param[GENESIS_P_BATCH_SIZE];
    if (batch > (double)rows) batch = (double)rows; /* a fit's batch is at most the table */
    double n = ceil(epochs * (double)rows / batch);
    double lo = 0, hi = 0;
    genesis_param_bounds((genesis_param)tp, &lo, &hi, NULL, NULL);
    GEN_RETURN_IF(n > hi, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "%g epochs of %lld rows at batch %g are %.0f %s, more than the %g allowed", epochs,
                  (long long)rows, batch, n, gen_param_name(tp), hi);
    *length = n;
    return GENESIS_OK;
}
