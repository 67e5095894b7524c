/*
 * sampler.c — conditional vectors and training-by-sampling for CTGAN
 * (Xu et al., "Modeling Tabular Data using Conditional GAN", NeurIPS 2019, §4.3;
 * reference behaviour in docs/algorithms.md §T3). Everything is O(1) per draw after an
 * O(rows x discrete columns) CSR build: the cdf search is a binary search, and the row pick
 * is one uniform index into the category's row list.
 */
#include <math.h>
#include <string.h>

#include "sampler.h"

genesis_status gen_cond_sampler_layout(genesis_ctx *ctx, gen_cond_sampler *s,
                                       const gen_transformer *tf) {
    memset(s, 0, sizeof *s);
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].type == GENESIS_COLUMN_CATEGORICAL) s->n_disc++;
    if (s->n_disc == 0) return GENESIS_OK;
    int nd = s->n_disc;
    s->disc_col = calloc((size_t)nd, sizeof(int));
    s->cond_start = calloc((size_t)nd, sizeof(int));
    s->data_start = calloc((size_t)nd, sizeof(int));
    s->n_cat = calloc((size_t)nd, sizeof(int));
    if (!s->disc_col || !s->cond_start || !s->data_start || !s->n_cat) {
        gen_cond_sampler_free(s);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory building the conditional sampler");
    }
    int d = 0;
    for (int c = 0; c < tf->ncols; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        if (ct->type != GENESIS_COLUMN_CATEGORICAL) continue;
        s->disc_col[d] = c;
        s->cond_start[d] = s->cond_dim;
        s->data_start[d] = ct->offset;
        s->n_cat[d] = ct->width;
        s->cond_dim += ct->width;
        if (ct->width > s->max_cat) s->max_cat = ct->width;
        d++;
    }
    return GENESIS_OK;
}

genesis_status gen_cond_sampler_init(genesis_ctx *ctx, gen_cond_sampler *s,
                                     const gen_transformer *tf, const gen_encoded *enc,
                                     int log_frequency) {
    GEN_TRY(gen_cond_sampler_layout(ctx, s, tf));
    s->nrows = enc->nrows;
    if (s->n_disc == 0) return GENESIS_OK;
    int nd = s->n_disc, d;
    size_t cells = (size_t)nd * s->max_cat;
    s->cdf = gen_calloc(cells, sizeof(double));
    s->row_start = gen_calloc(cells + 1, sizeof(int64_t));
    s->rows = gen_calloc(gen_mul_size((size_t)nd, (size_t)(enc->nrows ? enc->nrows : 1)),
                         sizeof(int32_t));
    int64_t *fill = gen_calloc(cells, sizeof(int64_t));
    if (!s->cdf || !s->row_start || !s->rows || !fill) {
        free(fill);
        goto nomem;
    }
    /* counts -> CSR offsets */
    for (d = 0; d < nd; d++) {
        const int32_t *slot = enc->slot[s->disc_col[d]];
        for (int64_t i = 0; i < enc->nrows; i++) s->row_start[(size_t)d * s->max_cat + slot[i] + 1]++;
    }
    for (d = 0; d < nd; d++) {
        double tot = 0;
        for (int k = 0; k < s->n_cat[d]; k++) {
            double cnt = (double)s->row_start[(size_t)d * s->max_cat + k + 1];
            double f = log_frequency ? log(cnt + 1.0) : cnt;
            s->cdf[(size_t)d * s->max_cat + k] = f;
            tot += f;
        }
        double acc = 0;
        for (int k = 0; k < s->n_cat[d]; k++) {
            acc += tot > 0 ? s->cdf[(size_t)d * s->max_cat + k] / tot : 1.0 / s->n_cat[d];
            s->cdf[(size_t)d * s->max_cat + k] = acc;
        }
        s->cdf[(size_t)d * s->max_cat + s->n_cat[d] - 1] = 1.0;
    }
    for (size_t k = 0; k < cells; k++) s->row_start[k + 1] += s->row_start[k];
    for (d = 0; d < nd; d++) {
        const int32_t *slot = enc->slot[s->disc_col[d]];
        for (int64_t i = 0; i < enc->nrows; i++) {
            size_t cell = (size_t)d * s->max_cat + slot[i];
            s->rows[s->row_start[cell] + fill[cell]++] = (int32_t)i;
        }
    }
    free(fill);
    return GENESIS_OK;
nomem:
    gen_cond_sampler_free(s);
    return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory building the conditional sampler");
}

void gen_cond_sampler_free(gen_cond_sampler *s) {
    free(s->disc_col);
    free(s->cond_start);
    free(s->data_start);
    free(s->n_cat);
    free(s->cdf);
    free(s->row_start);
    free(s->rows);
    memset(s, 0, sizeof *s);
}

static int cdf_search(const double *cdf, int n, double u) {
    int lo = 0, hi = n - 1; /* first k with cdf[k] > u */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

void gen_cond_sampler_draw(const gen_cond_sampler *s, gen_rng *rng, int B, int32_t *col,
                           int32_t *cat) {
    for (int b = 0; b < B; b++) {
        int d = (int)gen_rng_below(rng, (uint64_t)s->n_disc);
        double u = gen_rng_uniform(rng);
        col[b] = d;
        cat[b] = cdf_search(s->cdf + (size_t)d * s->max_cat, s->n_cat[d], u);
    }
}

int64_t gen_cond_sampler_pick_row(const gen_cond_sampler *s, gen_rng *rng, int col, int cat) {
    size_t cell = (size_t)col * s->max_cat + cat;
    int64_t lo = s->row_start[cell], n = s->row_start[cell + 1] - lo;
    if (n <= 0) return (int64_t)gen_rng_below(rng, (uint64_t)s->nrows); /* unreachable: p = 0 */
    return s->rows[lo + (int64_t)gen_rng_below(rng, (uint64_t)n)];
}

void gen_cond_sampler_onehot(const gen_cond_sampler *s, const int32_t *col, const int32_t *cat,
                             int B, float *out, int ld) {
    for (int b = 0; b < B; b++) {
        float *r = out + (size_t)b * ld;
        memset(r, 0, (size_t)s->cond_dim * sizeof(float));
        if (col[b] >= 0) r[s->cond_start[col[b]] + cat[b]] = 1.0f;
    }
}
