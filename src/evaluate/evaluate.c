/*
 * evaluate.c — the public entry points of `genesis evaluate` (genesis.h, evaluation
 * section): options, genesis_evaluate (checks, the aligned view, then the parts in order:
 * quality, validity, privacy, detection, usefulness, chart data), the result accessors and
 * free. The metrics themselves live in evaluate_*.c (see evaluate.h for the map).
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "evaluate.h"

double gen_ev_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void genesis_eval_options_init(genesis_eval_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->correlation_threshold = 0.5;
    o->association_threshold = 0.3;
}

void genesis_eval_result_free(genesis_eval_result *r) {
    if (!r) return;
    if (r->names)
        for (int c = 0; c < r->ncols; c++) free(r->names[c]);
    if (r->cols)
        for (int c = 0; c < r->ncols; c++) {
            gen_ev_column_res *cr = &r->cols[c];
            free(cr->real_freq);
            free(cr->syn_freq);
            if (cr->bin_label)
                for (int b = 0; b < cr->nbins; b++) free(cr->bin_label[b]);
            free(cr->bin_label);
        }
    free(r->names);
    free(r->continuous);
    free(r->cols);
    free(r->pairs);
    free(r->src_real);
    free(r->src_syn);
    free(r->src_hold);
    free(r->target);
    free(r->positive);
    free(r->note);
    free(r->json);
    free(r);
}

static genesis_status gen_ev_resolve(genesis_ctx *ctx, const genesis_eval_options *opts,
                                     gen_ev_opts *o) {
    genesis_eval_options def;
    genesis_eval_options_init(&def);
    if (!opts) opts = &def;
    GEN_RETURN_IF(opts->struct_size != sizeof *opts, ctx, GENESIS_ERR_INVALID_ARG,
                  "genesis_eval_options was not initialised with genesis_eval_options_init()");
    GEN_RETURN_IF(opts->subsample_rows < 0 || opts->detection_rows < 0 || opts->tstr_rows < 0 ||
                      opts->dcr_rows < -1 || opts->dcr_reference_rows < -1,
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "evaluation row limits must be 0 (default) or positive (dcr_rows and "
                  "dcr_reference_rows: -1 = all)");
    GEN_RETURN_IF(!(opts->correlation_threshold >= 0 && opts->correlation_threshold <= 1) ||
                      !(opts->association_threshold >= 0 && opts->association_threshold <= 1),
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "pair-trend thresholds must be between 0 and 1 (got %g and %g)",
                  opts->correlation_threshold, opts->association_threshold);
    unsigned all = GENESIS_EVAL_PART_QUALITY | GENESIS_EVAL_PART_VALIDITY |
                   GENESIS_EVAL_PART_PRIVACY | GENESIS_EVAL_PART_DETECTION |
                   GENESIS_EVAL_PART_USEFULNESS;
    GEN_RETURN_IF(opts->parts & ~all, ctx, GENESIS_ERR_INVALID_ARG,
                  "unknown evaluation part bits 0x%x", opts->parts & ~all);
    o->parts = opts->parts ? opts->parts : all;
    o->seed = ctx->seed;
    o->threads = gen_ctx_threads(ctx);
    o->subsample_rows = opts->subsample_rows ? opts->subsample_rows : 50000;
    o->dcr_rows = opts->dcr_rows == 0 ? 20000 : opts->dcr_rows < 0 ? 0 : opts->dcr_rows;
    o->dcr_reference_rows = opts->dcr_reference_rows;
    o->detection_rows = opts->detection_rows ? opts->detection_rows : 20000;
    o->tstr_rows = opts->tstr_rows ? opts->tstr_rows : 50000;
    o->corr_threshold = opts->correlation_threshold;
    o->assoc_threshold = opts->association_threshold;
    o->target = opts->target && opts->target[0] ? opts->target : NULL;
    return GENESIS_OK;
}

static char *gen_ev_dup_or_null(const char *s) { return s ? gen_strdup(s) : NULL; }

genesis_status genesis_evaluate(genesis_ctx *ctx, const genesis_table *real,
                                const genesis_table *synthetic, const genesis_eval_options *opts,
                                genesis_eval_result **out) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(ctx);
    GEN_RETURN_IF(!out, ctx, GENESIS_ERR_INVALID_ARG, "genesis_evaluate: out is NULL");
    *out = NULL;
    GEN_RETURN_IF(!real || !synthetic, ctx, GENESIS_ERR_INVALID_ARG,
                  "genesis_evaluate: give both the real and the synthetic table");
    GEN_RETURN_IF(real->shape_only || synthetic->shape_only ||
                      (opts && opts->holdout && opts->holdout->shape_only),
                  ctx, GENESIS_ERR_DATA,
                  "a table made with `genesis_table_add_shape` holds no values to evaluate");
    gen_ev_opts o;
    GEN_TRY(gen_ev_resolve(ctx, opts, &o));
    const genesis_table *hold = opts ? opts->holdout : NULL;
    const char *metadata = opts && opts->metadata_path && opts->metadata_path[0]
                               ? opts->metadata_path : NULL;
    double t0 = gen_ev_now();
    gen_ev_data *d = NULL;
    GEN_TRY(gen_ev_data_build(ctx, real, synthetic, hold, metadata, &d));

    /* the target, before any long computation */
    genesis_status st = GENESIS_OK;
    if (o.target) {
        int tc = -1;
        for (int c = 0; c < d->ncols; c++)
            if (!strcmp(d->names[c], o.target)) tc = c;
        if (tc < 0) {
            char known[400];
            size_t k = 0;
            known[0] = 0;
            for (int c = 0; c < d->ncols && k + 8 < sizeof known; c++) {
                int w = snprintf(known + k, sizeof known - k, "%s%s", c ? ", " : "", d->names[c]);
                if (w < 0 || (size_t)w >= sizeof known - k) break;
                k += (size_t)w;
            }
            st = gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                               "target column \"%s\" is not a column of the real table — use "
                               "one of: %s", o.target, known);
            goto fail;
        }
        if (d->continuous[tc]) {
            st = gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                               "target column \"%s\" is continuous; usefulness (TSTR) needs a "
                               "categorical target — pick a class column, or declare it "
                               "categorical in a metadata file", o.target);
            goto fail;
        }
        if (!d->has_holdout) {
            st = gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                               "target \"%s\" given without a holdout table — usefulness "
                               "(TSTR) tests on real rows the generator never saw: pass them "
                               "as the holdout", o.target);
            goto fail;
        }
        if ((st = gen_ev_align_holdout_target(ctx, d, tc))) goto fail;
    }

    genesis_eval_result *r = calloc(1, sizeof *r);
    if (!r) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < sizeof r->score / sizeof r->score[0]; k++) r->score[k] = NAN;
    r->ctx = ctx;
    r->ncols = d->ncols;
    r->names = gen_calloc((size_t)d->ncols, sizeof *r->names);
    r->continuous = gen_calloc((size_t)d->ncols, sizeof *r->continuous);
    r->cols = gen_calloc((size_t)d->ncols, sizeof *r->cols);
    if (!r->names || !r->continuous || !r->cols) goto oom;
    for (int c = 0; c < d->ncols; c++) {
        if (!(r->names[c] = gen_strdup(d->names[c]))) goto oom;
        r->continuous[c] = d->continuous[c];
        r->cols[c].col = c;
        r->cols[c].shape = r->cols[c].validity = NAN;
    }
    r->real_rows = d->real.n;
    r->syn_rows = d->syn.n;
    r->hold_rows = d->has_holdout ? d->hold.n : 0;
    r->src_real = gen_ev_dup_or_null(real->source);
    r->src_syn = gen_ev_dup_or_null(synthetic->source);
    r->src_hold = hold ? gen_ev_dup_or_null(hold->source) : NULL;
    r->seed = o.seed;
    r->corr_threshold = o.corr_threshold;
    r->assoc_threshold = o.assoc_threshold;
    r->subsample_rows = o.subsample_rows;
    r->dcr_median_syn = r->dcr_median_random = r->dcr_median_holdout = NAN;
    r->dcr_closer_to_training = NAN;
    for (int k = 0; k < 3; k++) r->detect_auc[k] = r->xgb_auc[k] = NAN;
    r->xgb_mean_auc = r->dcr_share_train_closer = r->pair_trends_robust = NAN;
    r->base_exact_copy_rate = r->base_new_row_synthesis = r->base_dcr_median = NAN;
    r->base_dcr_median_random = r->base_dcr_baseline = NAN;
    for (int k = 0; k < 2; k++) r->mle[k].val_auc = r->mle[k].test_auc = NAN;
    r->t_prepare = gen_ev_now() - t0;

    double t;
    if (o.parts & GENESIS_EVAL_PART_QUALITY) {
        t = gen_ev_now();
        if ((st = gen_ev_quality(ctx, d, &o, r))) goto fail_r;
        r->t_quality = gen_ev_now() - t;
        r->parts |= GENESIS_EVAL_PART_QUALITY;
    }
    if (o.parts & GENESIS_EVAL_PART_VALIDITY) {
        t = gen_ev_now();
        if ((st = gen_ev_validity(ctx, d, r))) goto fail_r;
        r->t_validity = gen_ev_now() - t;
        r->parts |= GENESIS_EVAL_PART_VALIDITY;
    }
    if (o.parts & GENESIS_EVAL_PART_PRIVACY) {
        t = gen_ev_now();
        if ((st = gen_ev_privacy(ctx, d, &o, r))) goto fail_r;
        if (d->has_holdout && (st = gen_ev_privacy_baseline(ctx, d, &o, r))) goto fail_r;
        r->t_privacy = gen_ev_now() - t;
        r->parts |= GENESIS_EVAL_PART_PRIVACY;
    }
    if (o.parts & GENESIS_EVAL_PART_DETECTION) {
        t = gen_ev_now();
        if ((st = gen_ev_detection(ctx, d, &o, r))) goto fail_r;
        r->t_detection = gen_ev_now() - t;
        r->parts |= GENESIS_EVAL_PART_DETECTION;
    }
    if ((o.parts & GENESIS_EVAL_PART_USEFULNESS) && o.target) {
        t = gen_ev_now();
        if (!(r->target = gen_strdup(o.target))) goto oom;
        if ((st = gen_ev_efficacy(ctx, d, &o, r))) goto fail_r;
        r->t_tstr = gen_ev_now() - t;
        r->parts |= GENESIS_EVAL_PART_USEFULNESS;
    }
    /* the field's current scores (evaluate_fidelity.c), each under the part it belongs to */
    t = gen_ev_now();
    if ((st = gen_ev_fidelity(ctx, d, &o, r))) goto fail_r;
    r->t_fidelity = gen_ev_now() - t;
    if ((st = gen_ev_plots(ctx, d, r))) goto fail_r;
    r->t_total = gen_ev_now() - t0;
    gen_ev_data_free(d);
    *out = r;
    return GENESIS_OK;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
fail_r:
    genesis_eval_result_free(r);
fail:
    gen_ev_data_free(d);
    return st;
}

double genesis_eval_result_score(const genesis_eval_result *r, genesis_eval_score which) {
    if (!r || (int)which < 0 || (int)which > GENESIS_EVAL_DCR_SHARE_EQUAL) return NAN;
    return r->score[which];
}

int genesis_eval_result_ncolumns(const genesis_eval_result *r) { return r ? r->ncols : 0; }

genesis_status genesis_eval_result_column(const genesis_eval_result *r, int i,
                                          genesis_eval_column *out) {
    if (!r || !out || i < 0 || i >= r->ncols) return GENESIS_ERR_INVALID_ARG;
    const gen_ev_column_res *cr = &r->cols[i];
    out->name = r->names[i];
    out->continuous = r->continuous[i];
    out->shape_metric = r->continuous[i] ? "KSComplement" : "TVComplement";
    out->shape = cr->shape;
    out->validity_metric = r->continuous[i] ? "BoundaryAdherence" : "CategoryAdherence";
    out->validity = cr->validity;
    return GENESIS_OK;
}

int genesis_eval_result_npairs(const genesis_eval_result *r) { return r ? r->npairs : 0; }

genesis_status genesis_eval_result_pair(const genesis_eval_result *r, int i,
                                        genesis_eval_pair *out) {
    if (!r || !out || i < 0 || i >= r->npairs) return GENESIS_ERR_INVALID_ARG;
    const gen_ev_pair_res *p = &r->pairs[i];
    out->column1 = r->names[p->a];
    out->column2 = r->names[p->b];
    out->metric = p->metric;
    out->score = p->score;
    out->real_correlation = p->real_corr;
    out->synthetic_correlation = p->syn_corr;
    out->real_association = p->real_assoc;
    out->meets_threshold = p->meets;
    return GENESIS_OK;
}

genesis_status genesis_eval_result_dcr_overfitting(const genesis_eval_result *r,
                                                   genesis_eval_dcr_info *out) {
    if (!r || !out) return GENESIS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!r->hold_rows || !(r->parts & GENESIS_EVAL_PART_PRIVACY)) return GENESIS_ERR_INVALID_ARG;
    out->synthetic_rows = r->dcr_rows;
    out->training_rows = r->dcr_train_ref;
    out->holdout_rows = r->dcr_hold_ref;
    out->training_total = r->real_rows;
    out->holdout_total = r->hold_rows;
    out->equal_size = r->dcr_equal_size;
    out->warning = r->dcr_warning;
    return GENESIS_OK;
}

const char *genesis_eval_result_json(genesis_eval_result *r) {
    if (!r) return NULL;
    if (!r->json) r->json = gen_ev_json(r);
    return r->json;
}

genesis_status genesis_eval_result_write_html(const genesis_eval_result *r, const char *path) {
    if (!r) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(r->ctx);
    GEN_RETURN_IF(!path || !path[0], r->ctx, GENESIS_ERR_INVALID_ARG,
                  "no report file name given");
    return gen_ev_write_html(r, path);
}
