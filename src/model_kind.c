/*
 * model_kind.c — the model kinds by name ("ctgan", "tvae", "timegan": each network's own
 * vtable name), what each can do besides fit and sample (conditions: a network with a
 * conditional vector, CTGAN; sequences: a network that reads the table itself, TimeGAN), and
 * what a kind generates when the caller does not say how much: the
 * training table's rows for the tabular models; for TimeGAN as many sequences as a single
 * series of that many rows has windows (rows - seq_len, at least 1), as the reference's
 * generation does (docs/timegan.md §5).
 */
#include <string.h>

#include "model.h"

static const gen_model_vtable *const KINDS[] = {&gen_ctgan_vtable, &gen_tvae_vtable,
                                                &gen_timegan_vtable};
#define NKINDS ((int)(sizeof KINDS / sizeof KINDS[0]))

const char *genesis_model_kind_name(genesis_model_kind kind) {
    for (int i = 0; i < NKINDS; i++)
        if (KINDS[i]->kind == kind) return KINDS[i]->name;
    return NULL;
}

genesis_status genesis_model_kind_from_name(const char *name, genesis_model_kind *kind) {
    for (int i = 0; name && kind && i < NKINDS; i++)
        if (strcmp(KINDS[i]->name, name) == 0) {
            *kind = KINDS[i]->kind;
            return GENESIS_OK;
        }
    return GENESIS_ERR_INVALID_ARG;
}

unsigned genesis_model_kind_features(genesis_model_kind kind) {
    for (int i = 0; i < NKINDS; i++)
        if (KINDS[i]->kind == kind)
            return (kind == GENESIS_MODEL_CTGAN ? GENESIS_FEATURE_CONDITIONS : 0u) |
                   (KINDS[i]->fit_table ? GENESIS_FEATURE_SEQUENCES : 0u);
    return 0;
}

int64_t genesis_model_default_rows(const genesis_model *m, int64_t table_rows) {
    if (!m || table_rows < 0) return 0;
    if (!(genesis_model_kind_features(m->vt->kind) & GENESIS_FEATURE_SEQUENCES)) return table_rows;
    int64_t windows = table_rows - (int64_t)m->param[GENESIS_P_SEQ_LEN];
    return windows > 1 ? windows : 1;
}
