/*
 * cmd_evaluate.c — `genesis evaluate`: a synthetic table scored against the real one
 * (genesis_evaluate: quality, detection, validity, privacy, usefulness; docs/evaluate.md) as
 * a summary, JSON or an HTML report; with --sequences, TimeGAN's discriminative and
 * predictive scores (genesis_evaluate_sequences; docs/timegan.md §6). Flags: args.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* -0.000 for a score of -1e-17 (1 - a rounded total variation of 2) helps nobody */
static double ev_show(double v) { return (v < 0 && v > -5e-4) ? 0.0 : v; }

static void ev_line(const char *what, double v, const char *more) {
    v = ev_show(v);
    if (isnan(v)) printf("  %-30s   n/a   %s\n", what, more ? more : "");
    else printf("  %-30s %6.3f  %s\n", what, v, more ? more : "");
}

/* Indices of the (up to) three smallest non-NaN scores, smallest first; -1 where fewer. */
static void lowest3(const double *score, int n, int out[3]) {
    out[0] = out[1] = out[2] = -1;
    for (int i = 0; i < n; i++) {
        if (isnan(score[i])) continue;
        for (int k = 0; k < 3; k++) {
            if (out[k] < 0 || score[i] < score[out[k]]) {
                for (int j = 2; j > k; j--) out[j] = out[j - 1];
                out[k] = i;
                break;
            }
        }
    }
}

static void ev_summary(const genesis_eval_result *r, const char *real, const char *syn,
                       const char *target) {
    char buf[256];
    int ncol = genesis_eval_result_ncolumns(r), np = genesis_eval_result_npairs(r);
    int strong = 0;
    for (int i = 0; i < np; i++) {
        genesis_eval_pair p;
        genesis_eval_result_pair(r, i, &p);
        strong += p.meets_threshold;
    }
    printf("genesis evaluate: %s vs %s\n\n", syn, real);
    double q = genesis_eval_result_score(r, GENESIS_EVAL_QUALITY);
    if (!isnan(q) || !isnan(genesis_eval_result_score(r, GENESIS_EVAL_COLUMN_SHAPES))) {
        printf("Quality (SDMetrics QualityReport)\n");
        snprintf(buf, sizeof buf, "shapes %.3f, pair trends %.3f over %d pairs",
                 genesis_eval_result_score(r, GENESIS_EVAL_COLUMN_SHAPES),
                 genesis_eval_result_score(r, GENESIS_EVAL_PAIR_TRENDS), np);
        ev_line("overall, all pairs", q, buf);
        snprintf(buf, sizeof buf, "pair trends %.3f over %d strongly related pairs",
                 genesis_eval_result_score(r, GENESIS_EVAL_PAIR_TRENDS_THRESHOLD), strong);
        ev_line("overall, strong pairs (2026)", genesis_eval_result_score(r, GENESIS_EVAL_QUALITY_THRESHOLD), buf);
    }
    double det = genesis_eval_result_score(r, GENESIS_EVAL_DETECTION);
    if (!isnan(det)) {
        printf("Detection (LogisticDetection)\n");
        ev_line("score", det, "1 = real and synthetic rows cannot be told apart");
    }
    double ap = genesis_eval_result_score(r, GENESIS_EVAL_ALPHA_PRECISION);
    double share = genesis_eval_result_score(r, GENESIS_EVAL_DCR_SHARE);
    if (!isnan(det) || !isnan(ap) || !isnan(share)) {
        printf("The papers' scores (TabSyn, TabDiff; LogisticDetection saturates near 1)\n");
        if (!isnan(det)) {
            double xgb = genesis_eval_result_score(r, GENESIS_EVAL_DETECTION_XGBOOST);
            ev_line("detection, XGBoost", xgb,
                    isnan(xgb) ? "not available: install libxgboost-dev (scripts/setup.sh)"
                               : "1 = gradient-boosted trees cannot tell the rows apart");
        }
        if (!isnan(ap)) {
            ev_line("alpha-precision", ap, "synthetic rows where real rows are (synthcity, naive)");
            ev_line("beta-recall", genesis_eval_result_score(r, GENESIS_EVAL_BETA_RECALL),
                    "real rows covered; about 0.5 for a fresh real sample");
        }
        if (!isnan(share)) {
            double eq = genesis_eval_result_score(r, GENESIS_EVAL_DCR_SHARE_EQUAL);
            ev_line("DCR share, equal sizes", eq,
                    "closer to training than to holdout (L1), both of one size; 0.5 is ideal");
            if (share != eq) ev_line("DCR share, whole tables", share,
                                     "TabSyn's call: leans above 0.5 when training > holdout");
        }
    }
    double val = genesis_eval_result_score(r, GENESIS_EVAL_VALIDITY);
    if (!isnan(val)) {
        printf("Validity (SDMetrics DiagnosticReport)\n");
        snprintf(buf, sizeof buf, "data validity %.3f, data structure %.3f",
                 genesis_eval_result_score(r, GENESIS_EVAL_DATA_VALIDITY),
                 genesis_eval_result_score(r, GENESIS_EVAL_DATA_STRUCTURE));
        ev_line("overall", val, buf);
    }
    double ec = genesis_eval_result_score(r, GENESIS_EVAL_EXACT_COPY_RATE);
    if (!isnan(ec)) {
        printf("Privacy (leak checks, not anonymity)\n");
        ev_line("exact-copy rate", ec, "fraction of synthetic rows equal to a real row (lower is better)");
        ev_line("new rows (NewRowSynthesis)", genesis_eval_result_score(r, GENESIS_EVAL_NEW_ROW_SYNTHESIS),
                "no real row within 1% on every value");
        ev_line("DCR baseline protection", genesis_eval_result_score(r, GENESIS_EVAL_DCR_BASELINE),
                "distance to closest real row vs random rows");
        double of = genesis_eval_result_score(r, GENESIS_EVAL_DCR_OVERFITTING);
        genesis_eval_dcr_info di;
        if (!isnan(of) && genesis_eval_result_dcr_overfitting(r, &di) == GENESIS_OK) {
            if (di.equal_size)
                snprintf(buf, sizeof buf, "closer to training than to holdout? %lld rows of each "
                         "(seeded sample; tables %lld and %lld)", (long long)di.training_rows,
                         (long long)di.training_total, (long long)di.holdout_total);
            else
                snprintf(buf, sizeof buf, "closer to training than to holdout? whole tables, "
                         "%lld and %lld rows", (long long)di.training_total,
                         (long long)di.holdout_total);
            ev_line("DCR overfitting protection", of, buf);
            if (di.warning) printf("  warning: %s\n", di.warning);
        }
    }
    double t1 = genesis_eval_result_score(r, GENESIS_EVAL_TSTR_LOGISTIC);
    if (!isnan(t1) && target) {
        printf("Usefulness (train on synthetic, test on holdout; target %s)\n", target);
        snprintf(buf, sizeof buf, "trained on real: %.3f",
                 genesis_eval_result_score(r, GENESIS_EVAL_TRTR_LOGISTIC));
        ev_line("logistic regression", t1, buf);
        snprintf(buf, sizeof buf, "trained on real: %.3f", genesis_eval_result_score(r, GENESIS_EVAL_TRTR_MLP));
        ev_line("MLP (50 hidden)", genesis_eval_result_score(r, GENESIS_EVAL_TSTR_MLP), buf);
        double xa = genesis_eval_result_score(r, GENESIS_EVAL_TSTR_XGBOOST_AUC);
        if (!isnan(xa)) {
            snprintf(buf, sizeof buf, "ROC AUC; trained on real: %.3f (TabSyn's grid)",
                     genesis_eval_result_score(r, GENESIS_EVAL_TRTR_XGBOOST_AUC));
            ev_line("XGBoost", xa, buf);
        }
    }
    /* the weakest columns and pairs, where a person should look first */
    double *score = malloc(sizeof(double) * (size_t)(ncol > np ? (ncol > 0 ? ncol : 1) : np));
    if (!score) return;
    int worst[3];
    for (int i = 0; i < ncol; i++) {
        genesis_eval_column c;
        genesis_eval_result_column(r, i, &c);
        score[i] = c.shape;
    }
    lowest3(score, ncol, worst);
    if (worst[0] >= 0) {
        printf("\nWeakest columns:");
        for (int k = 0; k < 3 && worst[k] >= 0; k++) {
            genesis_eval_column c;
            genesis_eval_result_column(r, worst[k], &c);
            printf("%s %s %s %.3f", k ? "," : "", c.name, c.continuous ? "KS" : "TV", ev_show(c.shape));
        }
        printf("\n");
    }
    for (int i = 0; i < np; i++) {
        genesis_eval_pair p;
        genesis_eval_result_pair(r, i, &p);
        score[i] = p.meets_threshold ? p.score : NAN;
    }
    lowest3(score, np, worst);
    if (worst[0] >= 0) {
        printf("Weakest strong pairs:");
        for (int k = 0; k < 3 && worst[k] >= 0; k++) {
            genesis_eval_pair p;
            genesis_eval_result_pair(r, worst[k], &p);
            printf("%s %s~%s %.3f", k ? "," : "", p.column1, p.column2, ev_show(p.score));
        }
        printf("\n");
    }
    free(score);
}

static void print_sequences(const options *o, const genesis_seq_eval_result *r) {
    const genesis_seq_eval_options *so = &o->seq;
    if (o->json) {
        printf("{\"real_sequences\": %lld, \"synthetic_sequences\": %lld, \"seq_len\": %d, "
               "\"repeats\": %d, \"discriminative\": %.6g, \"discriminative_std\": %.6g",
               (long long)r->real_sequences, (long long)r->synthetic_sequences, so->seq_len,
               so->repeats, r->discriminative, r->discriminative_std);
        if (!isnan(r->predictive))
            printf(", \"predictive\": %.6g, \"predictive_std\": %.6g", r->predictive, r->predictive_std);
        if (!isnan(r->predictive_real))
            printf(", \"predictive_real\": %.6g, \"predictive_real_std\": %.6g", r->predictive_real,
                   r->predictive_real_std);
        printf("}\n");
        return;
    }
    printf("genesis evaluate --sequences: %s vs %s\n", o->synthetic, o->real);
    printf("  %lld real and %lld synthetic sequences of %d steps; %d repeats (mean +- std)\n\n",
           (long long)r->real_sequences, (long long)r->synthetic_sequences, so->seq_len, so->repeats);
    printf("  discriminative score  %.4f +- %.4f  (|0.5 - accuracy| of a GRU classifier; 0 best)\n",
           r->discriminative, r->discriminative_std);
    if (isnan(r->predictive)) printf("  predictive score         n/a    (needs at least 2 features)\n");
    else printf("  predictive score      %.4f +- %.4f  (MAE, train on synthetic, test on real; lower is better)\n",
                r->predictive, r->predictive_std);
    if (!isnan(r->predictive_real))
        printf("  predictive, real data %.4f +- %.4f  (the same model trained on the real sequences)\n",
               r->predictive_real, r->predictive_real_std);
}

int cmd_evaluate(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_EVALUATE, argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    const char *cmd = "evaluate";
    if (o.sequences && (o.holdout || o.eval.target || o.report || o.skip))
        return usage_error(cmd, "--sequences computes the two sequence scores only; "
                                "--holdout, --target, --report and --skip do not apply");
    if (!o.sequences && o.eval.target && !o.holdout)
        return usage_error(cmd, "--target needs --holdout: usefulness is tested on real "
                                "rows the generator never saw");
    unsigned all = GENESIS_EVAL_PART_QUALITY | GENESIS_EVAL_PART_VALIDITY | GENESIS_EVAL_PART_PRIVACY |
                   GENESIS_EVAL_PART_DETECTION | GENESIS_EVAL_PART_USEFULNESS;
    if ((all & ~o.skip) == 0) return usage_error(cmd, "--skip leaves nothing to evaluate");
    o.eval.parts = all & ~o.skip;

    genesis_ctx *ctx = NULL;
    genesis_table *tr = NULL, *ts = NULL, *th = NULL;
    genesis_eval_result *res = NULL;
    genesis_seq_eval_result sr;
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.delimiter = o.delimiter ? o.delimiter[0] : 0;
    co.na_tokens = o.na;
    co.datetime = o.datetime;
    co.not_datetime = o.not_datetime;
    /* the real table's identifier columns (the reader's rule, --id / --not-id) are not
     * scored, as SDMetrics scores no id column; the other tables follow the real one */
    co.id = o.sequences ? NULL : o.id;
    co.not_id = o.sequences ? "*" : o.not_id;
    genesis_status st = make_ctx(&o, &ctx);
    if (!ctx) return lib_error(NULL, st);
    /* the real table typed by the reader; the others (not for sequences) read with every
     * column categorical so each value keeps its exact text, then typed like the real table */
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, o.real, &co, &tr);
    if (!o.sequences) co.max_categories = INT32_MAX;
    co.id = NULL;
    co.not_id = "*";
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, o.synthetic, &co, &ts);
    if (st == GENESIS_OK && o.holdout) st = genesis_table_read_csv(ctx, o.holdout, &co, &th);
    o.eval.holdout = th;
    if (st == GENESIS_OK && o.sequences) {
        st = genesis_evaluate_sequences(ctx, tr, ts, &o.seq, &sr);
        if (st == GENESIS_OK) print_sequences(&o, &sr);
    } else if (st == GENESIS_OK) {
        st = genesis_evaluate(ctx, tr, ts, &o.eval, &res);
        const char *js = st == GENESIS_OK && o.json ? genesis_eval_result_json(res) : NULL;
        if (st == GENESIS_OK && o.json && !js) st = GENESIS_ERR_NOMEM;
        else if (js) printf("%s\n", js);
        else if (st == GENESIS_OK) ev_summary(res, o.real, o.synthetic, o.eval.target);
    }
    fflush(stdout);
    if (st == GENESIS_OK && o.report) {
        st = genesis_eval_result_write_html(res, o.report);
        if (st == GENESIS_OK && !o.quiet) fprintf(stderr, "genesis: wrote the report to %s\n", o.report);
    }
    rc = st == GENESIS_OK ? 0 : lib_error(ctx, st);
    genesis_eval_result_free(res);
    genesis_table_free(tr);
    genesis_table_free(ts);
    genesis_table_free(th);
    genesis_ctx_free(ctx);
    return rc;
}
