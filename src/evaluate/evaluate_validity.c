/*
 * evaluate_validity.c — SDMetrics' single-table DiagnosticReport (docs/algorithms.md §C3):
 *
 *   Data Validity    per column, mean of the non-NaN scores:
 *                    BoundaryAdherence (continuous; boundary_adherence.py): the fraction of
 *                    synthetic values inside [min_real, max_real]; when the real column has
 *                    missing values the synthetic missing values are dropped first, otherwise
 *                    they count as outside;
 *                    CategoryAdherence (categorical; category_adherence.py): the fraction of
 *                    synthetic values that are real categories, a missing value being valid
 *                    when the real column has missing values.
 *   Data Structure   TableStructure (table_structure.py): |{(name, dtype)} of both tables| /
 *                    |union|, with the dtypes pandas.read_csv would give each column
 *                    (int64, float64, bool, object; evaluate_data.c).
 *   Overall          mean of the two properties.
 */
#include <math.h>
#include <string.h>

#include "evaluate.h"

static double gen_ev_boundary(const double *real, int64_t nr, const double *syn, int64_t ns) {
    double lo = INFINITY, hi = -INFINITY;
    int real_nan = 0, any = 0;
    for (int64_t i = 0; i < nr; i++) {
        double v = real[i];
        if (isnan(v)) {
            real_nan = 1;
            continue;
        }
        any = 1;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    int64_t valid = 0, total = 0;
    for (int64_t i = 0; i < ns; i++) {
        double v = syn[i];
        if (isnan(v) && real_nan) continue;
        total++;
        if (any && v >= lo && v <= hi) valid++;
    }
    return total ? (double)valid / (double)total : NAN;
}

static double gen_ev_category(const int32_t *real, int64_t nr, const int32_t *syn, int64_t ns,
                              int32_t ncat, int *oom) {
    uint8_t *seen = calloc((size_t)ncat + 1, 1);
    if (!seen) {
        *oom = 1;
        return NAN;
    }
    int real_nan = 0;
    for (int64_t i = 0; i < nr; i++) {
        if (real[i] < 0) real_nan = 1;
        else seen[real[i]] = 1;
    }
    int64_t valid = 0;
    for (int64_t i = 0; i < ns; i++)
        valid += syn[i] < 0 ? real_nan : seen[syn[i]];
    free(seen);
    return ns ? (double)valid / (double)ns : NAN;
}

genesis_status gen_ev_validity(genesis_ctx *ctx, const gen_ev_data *d, genesis_eval_result *r) {
    double s = 0;
    int m = 0, oom = 0;
    for (int c = 0; c < d->ncols; c++) {
        gen_ev_column_res *cr = &r->cols[c];
        if (d->continuous[c]) {
            cr->validity_metric = "BoundaryAdherence";
            cr->validity = gen_ev_boundary(d->real.num[c], d->real.n, d->syn.num[c], d->syn.n);
        } else {
            cr->validity_metric = "CategoryAdherence";
            cr->validity = gen_ev_category(d->real.cat[c], d->real.n, d->syn.cat[c], d->syn.n,
                                           d->dict[c].n, &oom);
        }
        if (!isnan(cr->validity)) s += cr->validity, m++;
    }
    GEN_RETURN_IF(oom, ctx, GENESIS_ERR_NOMEM, "out of memory computing data validity");
    int same = 0;
    for (int c = 0; c < d->ncols; c++) same += d->real.dtype[c] == d->syn.dtype[c];
    r->structure_same = same;
    r->structure_union = same + 2 * (d->ncols - same);
    double validity = m ? s / m : NAN;
    double structure = r->structure_union ? (double)same / r->structure_union : NAN;
    r->score[GENESIS_EVAL_DATA_VALIDITY] = validity;
    r->score[GENESIS_EVAL_DATA_STRUCTURE] = structure;
    r->score[GENESIS_EVAL_VALIDITY] = isnan(validity) ? structure
                                      : isnan(structure) ? validity
                                                         : (validity + structure) / 2;
    return GENESIS_OK;
}
