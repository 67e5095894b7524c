/*
 * evaluate_plots.c — the numbers behind the report's per-column charts (no metric here):
 *   continuous   about 30 equal-width bins over the real column's [min, max] (a column of
 *                whole numbers gets bins of a whole number of values, centred on them, so
 *                that no bin holds more distinct values than its neighbour); each bar is the
 *                fraction of the table's non-missing values in that bin. Synthetic values
 *                outside the real range are not drawn (BoundaryAdherence counts them);
 *   categorical  the 12 categories with the largest real or synthetic frequency (so a
 *                category only the synthetic table has still shows), then one bar
 *                "other (N more)"; missing values get a bar of their own when either table
 *                has them. Fractions of all rows.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "evaluate.h"

#define GEN_EV_HIST_BINS 30
#define GEN_EV_TOP_CATS 12

static genesis_status gen_ev_plot_continuous(genesis_ctx *ctx, const gen_ev_data *d, int c,
                                             gen_ev_column_res *cr) {
    const double *xr = d->real.num[c], *xs = d->syn.num[c];
    double lo = INFINITY, hi = -INFINITY;
    int64_t mr = 0, ms = 0;
    for (int64_t i = 0; i < d->real.n; i++) {
        if (isnan(xr[i])) continue;
        lo = xr[i] < lo ? xr[i] : lo;
        hi = xr[i] > hi ? xr[i] : hi;
        mr++;
    }
    if (mr == 0) lo = 0, hi = 1;
    cr->vmin = lo;
    cr->vmax = hi;
    int integral = mr > 0;
    for (int64_t i = 0; i < d->real.n && integral; i++)
        if (!isnan(xr[i]) && xr[i] != floor(xr[i])) integral = 0;
    int nb = GEN_EV_HIST_BINS;
    if (integral && hi - lo < 1e6) {
        /* whole numbers: bins of w values each, edges half-way between integers */
        double range = hi - lo + 1;
        double w = ceil(range / 40.0);
        nb = (int)ceil(range / w);
        lo -= 0.5;
        hi = lo + nb * w;
    } else if (lo == hi) {
        lo -= 0.5, hi += 0.5;
    }
    cr->nbins = nb;
    cr->lo = lo;
    cr->hi = hi;
    cr->real_freq = calloc((size_t)nb, sizeof(double));
    cr->syn_freq = calloc((size_t)nb, sizeof(double));
    GEN_RETURN_IF(!cr->real_freq || !cr->syn_freq, ctx, GENESIS_ERR_NOMEM, "out of memory");
    double w = (hi - lo) / nb;
    for (int64_t i = 0; i < d->real.n; i++) {
        if (isnan(xr[i])) continue;
        int b = (int)((xr[i] - lo) / w);
        cr->real_freq[b < 0 ? 0 : b >= nb ? nb - 1 : b] += 1;
    }
    for (int64_t i = 0; i < d->syn.n; i++) {
        if (isnan(xs[i])) continue;
        ms++;
        if (xs[i] < lo || xs[i] > hi) continue;
        int b = (int)((xs[i] - lo) / w);
        cr->syn_freq[b < 0 ? 0 : b >= nb ? nb - 1 : b] += 1;
    }
    for (int b = 0; b < nb; b++) {
        cr->real_freq[b] = mr ? cr->real_freq[b] / (double)mr : 0;
        cr->syn_freq[b] = ms ? cr->syn_freq[b] / (double)ms : 0;
    }
    cr->real_missing = (double)(d->real.n - mr) / (double)d->real.n;
    cr->syn_missing = (double)(d->syn.n - ms) / (double)d->syn.n;
    return GENESIS_OK;
}

typedef struct {
    int32_t id;
    double key;
} gen_ev_rank;

static int gen_ev_cmp_rank(const void *a, const void *b) {
    double x = ((const gen_ev_rank *)a)->key, y = ((const gen_ev_rank *)b)->key;
    if (x != y) return (x < y) - (x > y); /* descending */
    int32_t i = ((const gen_ev_rank *)a)->id, j = ((const gen_ev_rank *)b)->id;
    return (i > j) - (i < j);
}

static genesis_status gen_ev_plot_categorical(genesis_ctx *ctx, const gen_ev_data *d, int c,
                                              gen_ev_column_res *cr) {
    int32_t n = d->dict[c].n;
    double *fr = calloc((size_t)n + 1, sizeof *fr), *fs = calloc((size_t)n + 1, sizeof *fs);
    gen_ev_rank *rk = malloc(((size_t)n + 1) * sizeof *rk);
    genesis_status st = GENESIS_OK;
    if (!fr || !fs || !rk) goto oom;
    for (int64_t i = 0; i < d->real.n; i++) fr[d->real.cat[c][i] < 0 ? n : d->real.cat[c][i]] += 1;
    for (int64_t i = 0; i < d->syn.n; i++) fs[d->syn.cat[c][i] < 0 ? n : d->syn.cat[c][i]] += 1;
    for (int32_t k = 0; k <= n; k++) {
        fr[k] /= (double)d->real.n;
        fs[k] /= (double)d->syn.n;
    }
    int32_t m = 0;
    for (int32_t k = 0; k < n; k++)
        if (fr[k] > 0 || fs[k] > 0) rk[m].id = k, rk[m].key = fr[k] > fs[k] ? fr[k] : fs[k], m++;
    qsort(rk, (size_t)m, sizeof *rk, gen_ev_cmp_rank);
    int top = m > GEN_EV_TOP_CATS + 1 ? GEN_EV_TOP_CATS : m;
    int has_other = m > top, has_missing = fr[n] > 0 || fs[n] > 0;
    int nb = top + has_other + has_missing;
    cr->nbins = nb;
    cr->real_freq = calloc((size_t)(nb ? nb : 1), sizeof(double));
    cr->syn_freq = calloc((size_t)(nb ? nb : 1), sizeof(double));
    cr->bin_label = gen_calloc((size_t)(nb ? nb : 1), sizeof(char *));
    if (!cr->real_freq || !cr->syn_freq || !cr->bin_label) goto oom;
    for (int b = 0; b < top; b++) {
        cr->real_freq[b] = fr[rk[b].id];
        cr->syn_freq[b] = fs[rk[b].id];
        if (!(cr->bin_label[b] = gen_strdup(d->dict[c].label[rk[b].id]))) goto oom;
    }
    int b = top;
    if (has_other) {
        char buf[64];
        snprintf(buf, sizeof buf, "other (%d more)", (int)(m - top));
        for (int32_t k = top; k < m; k++) {
            cr->real_freq[b] += fr[rk[k].id];
            cr->syn_freq[b] += fs[rk[k].id];
        }
        if (!(cr->bin_label[b++] = gen_strdup(buf))) goto oom;
    }
    if (has_missing) {
        cr->real_freq[b] = fr[n];
        cr->syn_freq[b] = fs[n];
        if (!(cr->bin_label[b++] = gen_strdup("(missing)"))) goto oom;
    }
    cr->real_missing = fr[n];
    cr->syn_missing = fs[n];
    goto done;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory preparing the report's charts");
done:
    free(fr);
    free(fs);
    free(rk);
    return st;
}

genesis_status gen_ev_plots(genesis_ctx *ctx, const gen_ev_data *d, genesis_eval_result *r) {
    for (int c = 0; c < d->ncols; c++) {
        if (d->continuous[c]) GEN_TRY(gen_ev_plot_continuous(ctx, d, c, &r->cols[c]));
        else GEN_TRY(gen_ev_plot_categorical(ctx, d, c, &r->cols[c]));
    }
    return GENESIS_OK;
}
