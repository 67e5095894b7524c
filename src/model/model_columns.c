/*
 * model_columns.c — genesis_model_ncols / _column_info / _column_level / _column_mixture /
 * _column_quantiles: the columns a fitted or loaded tabular model generates, read from its
 * transformer (transform.h), so that a program holding only a .gen file can name and type the
 * values of its batches and see each continuous column's modes, quantile map and point
 * masses. TimeGAN keeps its columns in its own sequence layout and reports none here.
 */
#include <string.h>

#include "model.h"

int genesis_model_ncols(const genesis_model *m) {
    return (m && m->fitted) ? m->tf.ncols : 0;
}

/* a fitted model and a column of it */
static genesis_status check_column(const genesis_model *m, int col) {
    GEN_RETURN_IF(!m->fitted, m->ctx, GENESIS_ERR_STATE,
                  "the model is not fitted; fit or load one first");
    GEN_RETURN_IF(col < 0 || col >= m->tf.ncols, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "`col` = %d is outside 0 .. %d (genesis_model_ncols - 1)", col,
                  m->tf.ncols - 1);
    return GENESIS_OK;
}

genesis_status genesis_model_column_info(const genesis_model *m, int col,
                                         genesis_model_column *out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    GEN_TRY(check_column(m, col));
    const gen_col_transform *ct = &m->tf.cols[col];
    out->name = ct->name;
    out->type = ct->type;
    if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
        out->integer = ct->is_integer;
        out->decimals = ct->is_integer ? 0 : ct->decimals;
        out->has_missing = ct->has_null;
        out->datetime = ct->dt.pattern[0] ? ct->dt.pattern : NULL;
        out->is_id = ct->id.kind != GEN_ID_NONE;
    } else {
        out->has_missing = ct->missing_slot >= 0;
        int kept = ct->n_slots - (ct->missing_slot >= 0) - (ct->rare_slot >= 0);
        out->nlevels = kept + ct->n_rare;
    }
    return GENESIS_OK;
}

genesis_status genesis_model_column_mixture(const genesis_model *m, int col, int cap,
                                            int *nmodes, double *mean, double *std,
                                            double *weight, int *npoints, double *point) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    if (nmodes) *nmodes = 0;
    if (npoints) *npoints = 0;
    GEN_TRY(check_column(m, col));
    const gen_col_transform *ct = &m->tf.cols[col];
    if (ct->type != GENESIS_COLUMN_CONTINUOUS) return GENESIS_OK;
    int modes = ct->n_quantiles ? 0 : ct->n_modes; /* a quantile map's mode is its z */
    if (nmodes) *nmodes = modes;
    if (npoints) *npoints = ct->n_points;
    for (int k = 0; k < modes && k < cap; k++) {
        if (mean) mean[k] = ct->mode_mean[k];
        if (std) std[k] = ct->mode_std[k];
        if (weight) weight[k] = ct->mode_weight[k];
    }
    for (int k = 0; k < ct->n_points && k < cap && point; k++) point[k] = ct->point_value[k];
    return GENESIS_OK;
}

genesis_status genesis_model_column_quantiles(const genesis_model *m, int col, int cap,
                                              int *nquantiles, double *q) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    if (nquantiles) *nquantiles = 0;
    GEN_TRY(check_column(m, col));
    const gen_col_transform *ct = &m->tf.cols[col];
    if (nquantiles) *nquantiles = ct->n_quantiles;
    for (int k = 0; k < ct->n_quantiles && k < cap && q; k++) q[k] = ct->quantiles[k];
    return GENESIS_OK;
}

const char *genesis_model_column_level(const genesis_model *m, int col, int k) {
    if (!m || !m->fitted || col < 0 || col >= m->tf.ncols || k < 0) return NULL;
    const gen_col_transform *ct = &m->tf.cols[col];
    if (ct->type != GENESIS_COLUMN_CATEGORICAL) return NULL;
    /* slots: kept levels first, then the rare slot, then the missing slot (transform.c) */
    int kept = ct->n_slots - (ct->missing_slot >= 0) - (ct->rare_slot >= 0);
    if (k < kept) return ct->slot_text[k];
    if (k - kept < ct->n_rare) return ct->rare_text[k - kept];
    return NULL;
}
