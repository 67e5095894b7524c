/*
 * sample_size.c — the sizes of sampling that both the sampling pipeline (sample_stream.c)
 * and the memory model (estimate.c) need: the model's generation group, batch rounding, the
 * bytes per row of a batch in flight and the fixed bytes of CSV formatting. A leaf: it calls
 * neither of them, so estimate.c and sample_stream.c do not depend on each other both ways.
 */
#include <math.h>
#include <string.h>

#include "sample_size.h"
#include "table.h"

int gen_sample_lanes(const genesis_model *m) {
    return m->sample_ndev > 1 ? m->sample_ndev : 1;
}

int64_t gen_sample_group(const genesis_model *m) {
    int g = m->fitted ? m->vt->generate_batch(m) : gen_param_i(m, GENESIS_P_BATCH_SIZE);
    return g > 0 ? g : 1;
}

int64_t gen_sample_round_batch(const genesis_model *m, int64_t rows) {
    int64_t g = gen_sample_group(m);
    if (rows < g) return g;
    if (rows > INT64_C(1) << 40) rows = INT64_C(1) << 40;
    return (rows + g - 1) / g * g;
}

uint64_t gen_sample_bytes_per_row(const genesis_model *m, int data_dim, const genesis_table *t) {
    uint64_t rb = 0;
    int ncols = m->fitted ? m->tf.ncols : (t ? t->ncols : 0);
    for (int c = 0; c < ncols; c++) {
        int cont, rare;
        if (m->fitted) {
            cont = m->tf.cols[c].type == GENESIS_COLUMN_CONTINUOUS;
            rare = m->tf.cols[c].rare_slot >= 0;
        } else {
            cont = t->cols[c].type == GENESIS_COLUMN_CONTINUOUS;
            rare = !cont && t->cols[c].nlevels > gen_param_i(m, GENESIS_P_MAX_CATEGORIES);
        }
        rb += cont ? 8 : 4 + (rare ? 4 : 0);
    }
    return 4 * (uint64_t)data_dim + rb;
}

/* The typical length of a formatted row: a number takes the digits of the column's range
 * plus its decimals (24 when printed in shortest round-trip form), a category the mean
 * length of its levels plus quotes; one separator each. */
static uint64_t row_text_bytes(const genesis_model *m) {
    if (!m->fitted) return 64;
    uint64_t b = 0;
    for (int c = 0; c < m->tf.ncols; c++) {
        const gen_col_transform *ct = &m->tf.cols[c];
        double w = 24;
        if (ct->type == GENESIS_COLUMN_CATEGORICAL) {
            double sum = 0;
            int k = 0;
            for (int s = 0; s < ct->n_slots; s++)
                if (ct->slot_text[s]) sum += (double)strlen(ct->slot_text[s]), k++;
            w = (k ? sum / k : 8) + 2;
        } else if (ct->decimals >= 0) {
            double mx = fabs(ct->min) > fabs(ct->max) ? fabs(ct->min) : fabs(ct->max);
            w = (mx >= 1 ? floor(log10(mx)) + 1 : 1) + (ct->min < 0) +
                (ct->is_integer ? 0 : ct->decimals + 1);
        }
        b += (uint64_t)w + 1;
    }
    return b;
}

uint64_t gen_sample_fixed_bytes(const genesis_model *m, int threads) {
    int cond = 0;
    if (m->fitted)
        for (int c = 0; c < m->tf.ncols; c++)
            if (m->tf.cols[c].type == GENESIS_COLUMN_CATEGORICAL) cond += m->tf.cols[c].width;
    uint64_t g = (uint64_t)gen_sample_group(m);
    /* formatting: one block of text per thread (pages beyond the text are not touched) */
    return (uint64_t)(threads > 0 ? threads : 1) * GEN_FMT_BLOCK_ROWS * row_text_bytes(m) +
           g * (uint64_t)cond * 4;
}
