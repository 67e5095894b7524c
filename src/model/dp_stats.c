/*
 * dp_stats.c — the transformer's statistics under differential privacy (docs/privacy.md,
 * "The transformer's statistics"): for every column a histogram of the real values with
 * Gaussian noise on every cell (one row adds 1 to one cell per column, so the L2
 * sensitivity of all histograms together is sqrt(columns)), cells whose noisy count is below
 * a threshold dropped, and a pseudo-table drawn from what is left. The transformer is fitted
 * on the pseudo-table only (post-processing), so its mixture modes, ranges, point masses,
 * quantiles and category lists come from noisy counts, never from a real value.
 *   continuous: a grid fixed before seeing data: missing, exactly 0, and per sign G bins
 *     per decade of |x| from 1e-6 to 1e12 (clamped), each split by "whole number or not";
 *     G (32, 16, 8, 4 or 2: gen_dp_bins_per_decade) depends only on the row count and the
 *     threshold, so that a column spread over one decade keeps about twice the threshold
 *     per bin; a pseudo value is drawn uniformly in its bin (rounded in whole-number
 *     cells); the column is whole-numbered when no fractional cell survives, and otherwise
 *     printed with 3 decimals (a fixed choice: the real number of decimals is not looked at).
 *   categorical: one cell per level of the data and one for missing values. The level
 *     names come from the data, so a level only one row holds must not show: its cell is
 *     released with probability Pr[1 + N(0, sd^2) >= threshold], which the plan (dp.c) keeps
 *     inside the delta it sets aside for it.
 * The network trains on the real rows recoded to what was released (each row by itself,
 * from released quantities only): a category that was not released becomes missing when the
 * missing cell was released, else the released category of the largest noisy count; a
 * missing value without a released missing cell becomes that category, or for a continuous
 * column one value drawn from the released cells.
 * The draws come from one host Philox stream (GEN_STREAM_DP_STATS) in a fixed order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "rng.h"
#include "table.h"

#define GEN_DPH_DECADES 18                     /* 1e-6 .. 1e12 */

/* the grid of G bins per decade: missing, zero, sign x bin x whole */
static int cont_cells(int G) { return 2 + 2 * GEN_DPH_DECADES * G * 2; }

static int cont_cell(double x, int G) {
    if (isnan(x)) return 0;
    if (x == 0.0) return 1;
    int s = x < 0, whole = x == floor(x), nb = GEN_DPH_DECADES * G, klo = -6 * G;
    double k = floor(G * log10(fabs(x)));
    int b = k < klo ? 0 : k >= klo + nb ? nb - 1 : (int)k - klo;
    return 2 + ((s * nb + b) * 2 + whole);
}

static double cell_value(int c, int G, gen_rng *r) {
    int nb = GEN_DPH_DECADES * G, klo = -6 * G;
    int i = c - 2, whole = i & 1, b = (i >> 1) % nb, s = (i >> 1) / nb;
    double lo = pow(10.0, (double)(klo + b) / G);
    double hi = pow(10.0, (double)(klo + b + 1) / G);
    double v = lo + (hi - lo) * gen_rng_uniform(r);
    if (whole) v = fmax(1.0, round(v));
    return s ? -v : v;
}

/* Adds the noise to cnt[0..n), keeps cells at or above threshold (others 0); returns how
 * many survive and their total in *tot. */
static int release(double *cnt, int n, double sd, double threshold, gen_rng *r, double *tot) {
    int kept = 0;
    *tot = 0;
    for (int i = 0; i < n; i++) {
        double v = cnt[i] + sd * gen_rng_normal(r);
        cnt[i] = v >= threshold ? v : 0.0;
        if (cnt[i] > 0) { kept++; *tot += cnt[i]; }
    }
    return kept;
}

/* An index drawn with probability w[i] / tot */
static int draw(const double *w, int n, double tot, gen_rng *r) {
    double u = gen_rng_uniform(r) * tot, acc = 0;
    int last = 0;
    for (int i = 0; i < n; i++) {
        if (w[i] <= 0) continue;
        acc += w[i];
        last = i;
        if (u < acc) return i;
    }
    return last;
}

static genesis_status add_continuous(genesis_ctx *ctx, const gen_column *col, int64_t n, double sd,
                                     double threshold, int G, gen_rng *r, genesis_table *ps,
                                     genesis_table *rc) {
    int ncells = cont_cells(G);
    double *cnt = calloc((size_t)ncells, sizeof *cnt);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    genesis_status st = GENESIS_OK;
    if (!cnt || !v) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the noisy histograms");
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) cnt[cont_cell(col->num[i], G)] += 1.0;
    double tot = 0;
    int kept = st == GENESIS_OK ? release(cnt, ncells, sd, threshold, r, &tot) : 0;
    int values = 0, frac = 0;
    for (int c = 1; c < ncells; c++) {
        if (cnt[c] <= 0) continue;
        values++;
        if (c >= 2 && !((c - 2) & 1)) frac = 1;
    }
    if (st == GENESIS_OK && (kept == 0 || values == 0))
        st = gen_set_error(ctx, GENESIS_ERR_DATA,
                           "column '%s': no value range of it survives the privacy noise "
                           "(each needs about %.0f rows); raise --epsilon, or drop the column",
                           col->name, threshold);
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) {
        int c = draw(cnt, ncells, tot, r);
        v[i] = c == 0 ? NAN : c == 1 ? 0.0 : cell_value(c, G, r);
    }
    if (st == GENESIS_OK) st = genesis_table_add_continuous(ps, col->name, v, !frac, frac ? 3 : 0);
    /* the real rows; without a released missing cell their missing values take one value
     * drawn from the released cells (the transformer has no missing slot to encode them) */
    double fill = 0.0;
    if (st == GENESIS_OK && cnt[0] <= 0) {
        int c = draw(cnt, ncells, tot, r);
        fill = c == 1 ? 0.0 : cell_value(c, G, r);
    }
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++)
        v[i] = isnan(col->num[i]) && cnt[0] <= 0 ? fill : col->num[i];
    if (st == GENESIS_OK) st = genesis_table_add_continuous(rc, col->name, v, 0, -1);
    free(cnt);
    free(v);
    return st;
}

static genesis_status add_categorical(genesis_ctx *ctx, const gen_column *col, int64_t n, double sd,
                                      double threshold, gen_rng *r, genesis_table *ps,
                                      genesis_table *rc) {
    int32_t L = col->nlevels;
    double *cnt = calloc((size_t)L + 1, sizeof *cnt); /* levels, then missing */
    int32_t *map = malloc(((size_t)L + 1) * sizeof *map);
    int32_t *codes = malloc((size_t)(n > 0 ? n : 1) * sizeof *codes);
    const char **names = malloc(((size_t)L + 1) * sizeof *names);
    genesis_status st = GENESIS_OK;
    if (!cnt || !map || !codes || !names)
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the noisy histograms");
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) cnt[col->cat[i] < 0 ? L : col->cat[i]] += 1.0;
    double tot = 0;
    if (st == GENESIS_OK) release(cnt, L + 1, sd, threshold, r, &tot);
    int32_t kept = 0;
    for (int32_t l = 0; st == GENESIS_OK && l < L; l++) {
        map[l] = cnt[l] > 0 ? kept : -1;
        if (cnt[l] > 0) names[kept++] = col->levels[l] ? col->levels[l] : "";
    }
    if (st == GENESIS_OK && kept == 0)
        st = gen_set_error(ctx, GENESIS_ERR_DATA,
                           "column '%s': no category of it survives the privacy noise (each "
                           "needs about %.0f rows); raise --epsilon, or drop the column",
                           col->name, threshold);
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) {
        int c = draw(cnt, L + 1, tot, r);
        codes[i] = c == L ? -1 : map[c];
    }
    if (st == GENESIS_OK) st = genesis_table_add_categorical(ps, col->name, codes, names, kept);
    /* the real rows: a level that was not released is missing when the missing cell was
     * released, else the released level of the largest noisy count (so are missing values
     * without a released missing cell) */
    int32_t top = -1;
    for (int32_t l = 0; l < L; l++)
        if (cnt[l] > 0 && (top < 0 || cnt[l] > cnt[top])) top = l;
    int32_t other = cnt[L] > 0 ? -1 : (top >= 0 ? map[top] : -1);
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) {
        int32_t c = col->cat[i];
        codes[i] = c >= 0 && map[c] >= 0 ? map[c] : other;
    }
    if (st == GENESIS_OK) st = genesis_table_add_categorical(rc, col->name, codes, names, kept);
    free(cnt);
    free(map);
    free(codes);
    free(names);
    return st;
}

int gen_dp_bins_per_decade(int64_t nrows, double threshold) {
    int G = GEN_DPH_MAX_G;
    while (G > 2 && (double)nrows / (2.0 * G) < threshold) G /= 2;
    return G;
}

genesis_status gen_dp_release_tables(genesis_ctx *ctx, const genesis_table *t, double sd,
                                     double threshold, uint64_t seed, genesis_table **pseudo,
                                     genesis_table **recoded) {
    int G = gen_dp_bins_per_decade(t->nrows, threshold);
    *pseudo = *recoded = NULL;
    genesis_table *ps = NULL, *rc = NULL;
    GEN_TRY(genesis_table_create(ctx, t->nrows, t->source, &ps));
    genesis_status st = genesis_table_create(ctx, t->nrows, t->source, &rc);
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_DP_STATS);
    for (int c = 0; st == GENESIS_OK && c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        st = col->type == GENESIS_COLUMN_CONTINUOUS
                 ? add_continuous(ctx, col, t->nrows, sd, threshold, G, &r, ps, rc)
                 : add_categorical(ctx, col, t->nrows, sd, threshold, &r, ps, rc);
    }
    if (st != GENESIS_OK) {
        gen_table_destroy(ps);
        gen_table_destroy(rc);
        return st;
    }
    *pseudo = ps;
    *recoded = rc;
    return GENESIS_OK;
}
