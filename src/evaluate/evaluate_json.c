/*
 * evaluate_json.c — the evaluation result as one JSON document (cJSON): headline scores,
 * then every part with its details (per column, per pair, privacy counts, detection folds,
 * TSTR models), the options that shaped it, and timings. Scores that were not computed or
 * are undefined are null. Names follow SDMetrics' where one exists (docs/evaluate.md).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "evaluate.h"

static cJSON *gen_ev_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void gen_ev_put(cJSON *o, const char *k, double v) { cJSON_AddItemToObject(o, k, gen_ev_num(v)); }

static void gen_ev_put_str(cJSON *o, const char *k, const char *s) {
    if (s) cJSON_AddStringToObject(o, k, s);
    else cJSON_AddNullToObject(o, k);
}

static void gen_ev_put_table(cJSON *root, const char *k, const char *src, int64_t rows) {
    cJSON *t = cJSON_AddObjectToObject(root, k);
    gen_ev_put_str(t, "source", src);
    cJSON_AddNumberToObject(t, "rows", (double)rows);
}

/* The papers' scores (evaluate_fidelity.c; docs/evaluate.md "The papers' scores"). */
static void gen_ev_json_fidelity(cJSON *root, const genesis_eval_result *r) {
    const double *s = r->score;
    cJSON *f = cJSON_AddObjectToObject(root, "fidelity");
    cJSON_AddStringToObject(f, "saturated",
                            "LogisticDetection is saturated: a linear model on one-hot features "
                            "cannot see the interactions that tell most generators' rows from "
                            "real ones, so it scores near 1 for good and mediocre tables alike; "
                            "the XGBoost detection, alpha-precision and beta-recall separate "
                            "them");
    if (r->parts & GENESIS_EVAL_PART_QUALITY) {
        cJSON *a = cJSON_AddObjectToObject(f, "alpha_precision");
        cJSON_AddStringToObject(a, "form", "synthcity AlphaPrecision, naive (TabSyn eval_quality)");
        gen_ev_put(a, "score", s[GENESIS_EVAL_ALPHA_PRECISION]);
        cJSON_AddNumberToObject(a, "rows_per_table", (double)r->ab_rows);
        cJSON *b = cJSON_AddObjectToObject(f, "beta_recall");
        cJSON_AddStringToObject(b, "form", "synthcity AlphaPrecision, naive (TabSyn eval_quality)");
        gen_ev_put(b, "score", s[GENESIS_EVAL_BETA_RECALL]);
        cJSON_AddNumberToObject(b, "rows_per_table", (double)r->ab_rows);
    }
    if (r->parts & GENESIS_EVAL_PART_DETECTION) {
        cJSON *x = cJSON_AddObjectToObject(f, "detection_xgboost");
        cJSON_AddBoolToObject(x, "available", r->xgb_available);
        if (!r->xgb_available) {
            cJSON_AddNullToObject(x, "score");
            cJSON_AddStringToObject(x, "note",
                                    "not available: install libxgboost-dev (scripts/setup.sh)");
        } else {
            gen_ev_put(x, "score", s[GENESIS_EVAL_DETECTION_XGBOOST]);
            gen_ev_put(x, "mean_auc", r->xgb_mean_auc);
            cJSON *a = cJSON_AddArrayToObject(x, "fold_auc");
            for (int k = 0; k < 3; k++) cJSON_AddItemToArray(a, gen_ev_num(r->xgb_auc[k]));
            cJSON_AddNumberToObject(x, "folds", 3);
            cJSON_AddNumberToObject(x, "real_rows", (double)r->xgb_real_rows);
            cJSON_AddNumberToObject(x, "synthetic_rows", (double)r->xgb_syn_rows);
            cJSON_AddStringToObject(x, "parameters",
                                    "binary:logistic, hist, 100 rounds, max_depth 6, eta 0.3, "
                                    "max_bin 256, base_score 0.5, nthread 1");
        }
    }
    if (r->parts & GENESIS_EVAL_PART_USEFULNESS) {
        cJSON *m = cJSON_AddObjectToObject(f, "tstr_xgboost");
        cJSON_AddStringToObject(m, "form", "TabSyn eval_mle: XGBoost, 36-point grid, 1/9 "
                                           "validation, ROC AUC on the holdout");
        cJSON_AddBoolToObject(m, "available", r->xgb_available);
        if (!r->xgb_available) {
            cJSON_AddStringToObject(m, "note",
                                    "not available: install libxgboost-dev (scripts/setup.sh)");
        } else if (!r->mle_binary) {
            cJSON_AddStringToObject(m, "note", "computed for binary targets only (the papers "
                                               "report AUC for those)");
        } else {
            cJSON_AddNumberToObject(m, "test_rows", (double)r->mle_test_rows);
            const char *side[2] = {"trained_on_synthetic", "trained_on_real"};
            for (int k = 0; k < 2; k++) {
                const gen_ev_mle_res *x = &r->mle[k];
                cJSON *o = cJSON_AddObjectToObject(m, side[k]);
                gen_ev_put(o, "auc", x->test_auc);
                gen_ev_put(o, "validation_auc", x->val_auc);
                cJSON_AddNumberToObject(o, "train_rows", (double)x->train_rows);
                if (isfinite(x->val_auc)) {
                    cJSON *p = cJSON_AddObjectToObject(o, "best");
                    cJSON_AddNumberToObject(p, "n_estimators", x->trees);
                    cJSON_AddNumberToObject(p, "max_depth", x->depth);
                    cJSON_AddNumberToObject(p, "min_child_weight", x->mcw);
                    cJSON_AddNumberToObject(p, "gamma", x->gamma);
                }
            }
        }
    }
    if ((r->parts & GENESIS_EVAL_PART_PRIVACY) && r->hold_rows) {
        cJSON *d = cJSON_AddObjectToObject(f, "dcr_share");
        cJSON_AddStringToObject(d, "form", "TabSyn eval_dcr: L1, numerical / range, one-hot");
        gen_ev_put(d, "score", s[GENESIS_EVAL_DCR_SHARE]);
        /* rows exchangeable with the real ones fall nearest to a training row in proportion
         * to the tables' sizes: 0.5 only when they are equal */
        double nt = (double)r->dcr_share_train_rows, nh = (double)r->dcr_share_hold_rows;
        cJSON_AddNumberToObject(d, "ideal", nt + nh > 0 ? nt / (nt + nh) : 0.5);
        cJSON_AddNumberToObject(d, "synthetic_rows_used", (double)r->dcr_share_syn_rows);
        cJSON_AddNumberToObject(d, "training_rows", (double)r->dcr_share_train_rows);
        cJSON_AddNumberToObject(d, "holdout_rows", (double)r->dcr_share_hold_rows);
        cJSON *q = cJSON_AddObjectToObject(d, "equal_size");
        gen_ev_put(q, "score", s[GENESIS_EVAL_DCR_SHARE_EQUAL]);
        cJSON_AddNumberToObject(q, "ideal", 0.5);
        cJSON_AddStringToObject(q, "form", "the share's odds times holdout_rows / training_rows");
    }
}

char *gen_ev_json(const genesis_eval_result *r) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    const double *s = r->score;
    cJSON_AddStringToObject(root, "genesis_version", GENESIS_VERSION_STRING);
    gen_ev_put_table(root, "real", r->src_real, r->real_rows);
    gen_ev_put_table(root, "synthetic", r->src_syn, r->syn_rows);
    if (r->hold_rows) gen_ev_put_table(root, "holdout", r->src_hold, r->hold_rows);
    else cJSON_AddNullToObject(root, "holdout");
    cJSON_AddNumberToObject(root, "seed", (double)r->seed);

    cJSON *sc = cJSON_AddObjectToObject(root, "scores");
    gen_ev_put(sc, "quality", s[GENESIS_EVAL_QUALITY]);
    gen_ev_put(sc, "quality_threshold", s[GENESIS_EVAL_QUALITY_THRESHOLD]);
    gen_ev_put(sc, "column_shapes", s[GENESIS_EVAL_COLUMN_SHAPES]);
    gen_ev_put(sc, "column_pair_trends", s[GENESIS_EVAL_PAIR_TRENDS]);
    gen_ev_put(sc, "column_pair_trends_threshold", s[GENESIS_EVAL_PAIR_TRENDS_THRESHOLD]);
    gen_ev_put(sc, "column_pair_trends_robust", r->pair_trends_robust);
    gen_ev_put(sc, "detection", s[GENESIS_EVAL_DETECTION]);
    gen_ev_put(sc, "validity", s[GENESIS_EVAL_VALIDITY]);
    gen_ev_put(sc, "data_validity", s[GENESIS_EVAL_DATA_VALIDITY]);
    gen_ev_put(sc, "data_structure", s[GENESIS_EVAL_DATA_STRUCTURE]);
    gen_ev_put(sc, "exact_copy_rate", s[GENESIS_EVAL_EXACT_COPY_RATE]);
    gen_ev_put(sc, "new_row_synthesis", s[GENESIS_EVAL_NEW_ROW_SYNTHESIS]);
    gen_ev_put(sc, "dcr_baseline_protection", s[GENESIS_EVAL_DCR_BASELINE]);
    gen_ev_put(sc, "dcr_overfitting_protection", s[GENESIS_EVAL_DCR_OVERFITTING]);
    gen_ev_put(sc, "tstr_logistic_regression", s[GENESIS_EVAL_TSTR_LOGISTIC]);
    gen_ev_put(sc, "tstr_mlp", s[GENESIS_EVAL_TSTR_MLP]);
    gen_ev_put(sc, "trtr_logistic_regression", s[GENESIS_EVAL_TRTR_LOGISTIC]);
    gen_ev_put(sc, "trtr_mlp", s[GENESIS_EVAL_TRTR_MLP]);
    gen_ev_put(sc, "detection_xgboost", s[GENESIS_EVAL_DETECTION_XGBOOST]);
    gen_ev_put(sc, "alpha_precision", s[GENESIS_EVAL_ALPHA_PRECISION]);
    gen_ev_put(sc, "beta_recall", s[GENESIS_EVAL_BETA_RECALL]);
    gen_ev_put(sc, "dcr_share", s[GENESIS_EVAL_DCR_SHARE]);
    gen_ev_put(sc, "tstr_xgboost_auc", s[GENESIS_EVAL_TSTR_XGBOOST_AUC]);
    gen_ev_put(sc, "trtr_xgboost_auc", s[GENESIS_EVAL_TRTR_XGBOOST_AUC]);
    gen_ev_put(sc, "dcr_share_equal_size", s[GENESIS_EVAL_DCR_SHARE_EQUAL]);

    if (r->parts & GENESIS_EVAL_PART_QUALITY) {
        cJSON *q = cJSON_AddObjectToObject(root, "quality");
        cJSON_AddStringToObject(q, "report", "SDMetrics QualityReport (single table)");
        cJSON *a = cJSON_AddObjectToObject(q, "all_pairs");
        gen_ev_put(a, "score", s[GENESIS_EVAL_QUALITY]);
        gen_ev_put(a, "column_shapes", s[GENESIS_EVAL_COLUMN_SHAPES]);
        gen_ev_put(a, "column_pair_trends", s[GENESIS_EVAL_PAIR_TRENDS]);
        gen_ev_put(a, "column_pair_trends_robust", r->pair_trends_robust);
        cJSON_AddStringToObject(q, "robust_binning",
                                "Genesis, not SDMetrics: continuous columns in 10 equal bins "
                                "over the real column's 0.5%-99.5% quantile range, tails in "
                                "the end bins, one set of edges for both tables; the HTML "
                                "heat map shows these scores");
        cJSON *t = cJSON_AddObjectToObject(q, "threshold");
        gen_ev_put(t, "score", s[GENESIS_EVAL_QUALITY_THRESHOLD]);
        gen_ev_put(t, "column_shapes", s[GENESIS_EVAL_COLUMN_SHAPES]);
        gen_ev_put(t, "column_pair_trends", s[GENESIS_EVAL_PAIR_TRENDS_THRESHOLD]);
        gen_ev_put(t, "correlation_threshold", r->corr_threshold);
        gen_ev_put(t, "association_threshold", r->assoc_threshold);
        cJSON_AddNumberToObject(t, "pairs_counted", r->npairs_meeting);
        cJSON_AddNumberToObject(q, "pairs", r->npairs);
        cJSON_AddNumberToObject(q, "subsample_rows", (double)r->subsample_rows);
        cJSON *cols = cJSON_AddArrayToObject(q, "column_shapes");
        for (int c = 0; c < r->ncols; c++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "column", r->names[c]);
            cJSON_AddStringToObject(o, "type", r->continuous[c] ? "continuous" : "categorical");
            gen_ev_put_str(o, "metric", r->cols[c].shape_metric);
            gen_ev_put(o, "score", r->cols[c].shape);
            if (r->cols[c].shape_error) cJSON_AddStringToObject(o, "error", r->cols[c].shape_error);
            cJSON_AddItemToArray(cols, o);
        }
        cJSON *pairs = cJSON_AddArrayToObject(q, "column_pair_trends");
        for (int k = 0; k < r->npairs; k++) {
            const gen_ev_pair_res *p = &r->pairs[k];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "column_1", r->names[p->a]);
            cJSON_AddStringToObject(o, "column_2", r->names[p->b]);
            gen_ev_put_str(o, "metric", p->metric);
            gen_ev_put(o, "score", p->score);
            gen_ev_put(o, "score_robust", p->score_robust);
            gen_ev_put(o, "real_correlation", p->real_corr);
            gen_ev_put(o, "synthetic_correlation", p->syn_corr);
            gen_ev_put(o, "real_association", p->real_assoc);
            cJSON_AddBoolToObject(o, "meets_threshold", p->meets);
            cJSON_AddBoolToObject(o, "subsampled", p->subsampled);
            if (p->error) cJSON_AddStringToObject(o, "error", p->error);
            cJSON_AddItemToArray(pairs, o);
        }
    }
    if (r->parts & GENESIS_EVAL_PART_VALIDITY) {
        cJSON *v = cJSON_AddObjectToObject(root, "validity");
        cJSON_AddStringToObject(v, "report", "SDMetrics DiagnosticReport (single table)");
        gen_ev_put(v, "score", s[GENESIS_EVAL_VALIDITY]);
        gen_ev_put(v, "data_validity", s[GENESIS_EVAL_DATA_VALIDITY]);
        gen_ev_put(v, "data_structure", s[GENESIS_EVAL_DATA_STRUCTURE]);
        cJSON_AddNumberToObject(v, "structure_matching_columns", r->structure_same);
        cJSON_AddNumberToObject(v, "structure_union", r->structure_union);
        cJSON *cols = cJSON_AddArrayToObject(v, "columns");
        for (int c = 0; c < r->ncols; c++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "column", r->names[c]);
            gen_ev_put_str(o, "metric", r->cols[c].validity_metric);
            gen_ev_put(o, "score", r->cols[c].validity);
            cJSON_AddItemToArray(cols, o);
        }
    }
    if (r->parts & GENESIS_EVAL_PART_PRIVACY) {
        cJSON *p = cJSON_AddObjectToObject(root, "privacy");
        cJSON_AddNumberToObject(p, "exact_copies", (double)r->exact_copies);
        gen_ev_put(p, "exact_copy_rate", s[GENESIS_EVAL_EXACT_COPY_RATE]);
        cJSON *n = cJSON_AddObjectToObject(p, "new_row_synthesis");
        gen_ev_put(n, "score", s[GENESIS_EVAL_NEW_ROW_SYNTHESIS]);
        cJSON_AddNumberToObject(n, "new_rows", (double)r->new_rows);
        cJSON_AddNumberToObject(n, "matched_rows", (double)(r->nrs_rows - r->new_rows));
        cJSON_AddNumberToObject(n, "numerical_match_tolerance", 0.01);
        cJSON *d = cJSON_AddObjectToObject(p, "dcr");
        cJSON_AddNumberToObject(d, "synthetic_rows_used", (double)r->dcr_rows);
        cJSON_AddBoolToObject(d, "subsampled", !r->dcr_exact);
        gen_ev_put(d, "median_dcr_synthetic_to_real", r->dcr_median_syn);
        gen_ev_put(d, "median_dcr_random_to_real", r->dcr_median_random);
        gen_ev_put(d, "baseline_protection", s[GENESIS_EVAL_DCR_BASELINE]);
        gen_ev_put(d, "median_dcr_synthetic_to_holdout", r->dcr_median_holdout);
        gen_ev_put(d, "closer_to_training", r->dcr_closer_to_training);
        if (r->hold_rows) {
            cJSON *rs = cJSON_AddObjectToObject(d, "overfitting_reference");
            cJSON_AddStringToObject(rs, "sizing", r->dcr_equal_size ? "equal_seeded_sample"
                                                                    : "whole_tables");
            cJSON_AddNumberToObject(rs, "training_rows_used", (double)r->dcr_train_ref);
            cJSON_AddNumberToObject(rs, "holdout_rows_used", (double)r->dcr_hold_ref);
            cJSON_AddNumberToObject(rs, "training_rows", (double)r->real_rows);
            cJSON_AddNumberToObject(rs, "holdout_rows", (double)r->hold_rows);
            if (r->dcr_warning) cJSON_AddStringToObject(rs, "warning", r->dcr_warning);
        }
        gen_ev_put(d, "overfitting_protection", s[GENESIS_EVAL_DCR_OVERFITTING]);
        cJSON *dup = cJSON_AddObjectToObject(p, "real_duplicate_rows");
        cJSON_AddStringToObject(dup, "meaning", "real rows equal in every column to another "
                                                "real row (each member of a group counts)");
        cJSON_AddNumberToObject(dup, "rows", (double)r->real_dup_rows);
        gen_ev_put(dup, "share", r->real_rows ? (double)r->real_dup_rows / (double)r->real_rows
                                              : NAN);
        if (r->has_baseline) {
            cJSON *b = cJSON_AddObjectToObject(p, "baseline");
            cJSON_AddStringToObject(b, "table", "holdout");
            cJSON_AddStringToObject(b, "meaning", "the holdout scored against the training "
                                                  "rows as if it were the synthetic table: "
                                                  "what unseen real rows score");
            cJSON_AddNumberToObject(b, "rows", (double)r->hold_rows);
            cJSON_AddNumberToObject(b, "exact_copies", (double)r->base_exact_copies);
            gen_ev_put(b, "exact_copy_rate", r->base_exact_copy_rate);
            gen_ev_put(b, "new_row_synthesis", r->base_new_row_synthesis);
            cJSON_AddNumberToObject(b, "new_rows", (double)r->base_new_rows);
            cJSON_AddNumberToObject(b, "dcr_rows_used", (double)r->base_dcr_rows);
            gen_ev_put(b, "median_dcr_to_real", r->base_dcr_median);
            gen_ev_put(b, "median_dcr_random_to_real", r->base_dcr_median_random);
            gen_ev_put(b, "dcr_baseline_protection", r->base_dcr_baseline);
        }
    }
    if (r->parts & GENESIS_EVAL_PART_DETECTION) {
        cJSON *d = cJSON_AddObjectToObject(root, "detection");
        cJSON_AddStringToObject(d, "metric", "LogisticDetection");
        gen_ev_put(d, "score", s[GENESIS_EVAL_DETECTION]);
        cJSON_AddNumberToObject(d, "real_rows", (double)r->detect_real_rows);
        cJSON_AddNumberToObject(d, "synthetic_rows", (double)r->detect_syn_rows);
        cJSON *a = cJSON_AddArrayToObject(d, "fold_auc");
        for (int k = 0; k < 3; k++) cJSON_AddItemToArray(a, gen_ev_num(r->detect_auc[k]));
        if (s[GENESIS_EVAL_DETECTION] >= 0.9)
            cJSON_AddStringToObject(d, "note", "saturated: a linear model on one-hot features "
                                               "misses interactions between columns and scores "
                                               "near 1 for good and mediocre tables alike; see "
                                               "fidelity.detection_xgboost");
    }
    if (r->parts & GENESIS_EVAL_PART_USEFULNESS) {
        cJSON *u = cJSON_AddObjectToObject(root, "usefulness");
        gen_ev_put_str(u, "target", r->target);
        gen_ev_put_str(u, "metric", r->tstr_metric);
        gen_ev_put_str(u, "positive_label", r->positive);
        cJSON_AddNumberToObject(u, "classes", r->nclasses);
        cJSON_AddNumberToObject(u, "train_rows_synthetic", (double)r->tstr_train_rows_syn);
        cJSON_AddNumberToObject(u, "train_rows_real", (double)r->tstr_train_rows_real);
        cJSON_AddNumberToObject(u, "test_rows", (double)r->tstr_test_rows);
        cJSON *m = cJSON_AddArrayToObject(u, "models");
        for (int k = 0; k < r->ntstr; k++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "model", r->tstr[k].model);
            gen_ev_put(o, "trained_on_synthetic", r->tstr[k].synthetic);
            gen_ev_put(o, "trained_on_real", r->tstr[k].real);
            cJSON_AddItemToArray(m, o);
        }
        if (r->ntstr) {
            cJSON *b = cJSON_AddObjectToObject(u, "baseline");
            cJSON_AddStringToObject(b, "meaning", "the same models trained on the real rows, "
                                                  "tested on the holdout (TRTR)");
            gen_ev_put(b, "logistic_regression", r->tstr[0].real);
            if (r->ntstr > 1) gen_ev_put(b, "mlp", r->tstr[1].real);
        }
        char why[400];
        if (gen_ev_tstr_reason(r, why, sizeof why)[0]) cJSON_AddStringToObject(u, "reason", why);
    }
    gen_ev_json_fidelity(root, r);
    if (r->note) cJSON_AddStringToObject(root, "note", r->note);
    cJSON *t = cJSON_AddObjectToObject(root, "time_s");
    gen_ev_put(t, "prepare", r->t_prepare);
    gen_ev_put(t, "quality", r->t_quality);
    gen_ev_put(t, "validity", r->t_validity);
    gen_ev_put(t, "privacy", r->t_privacy);
    gen_ev_put(t, "detection", r->t_detection);
    gen_ev_put(t, "usefulness", r->t_tstr);
    gen_ev_put(t, "fidelity", r->t_fidelity);
    gen_ev_put(t, "total", r->t_total);
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}
