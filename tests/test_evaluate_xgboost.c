/*
 * test_evaluate_xgboost.c — the XGBoost detection of `genesis evaluate`
 * (src/evaluate/evaluate_fidelity.c; docs/evaluate.md "The papers' scores"): two disjoint
 * halves of data/adult_sample.csv are nearly indistinguishable (score near 1, mean AUC near
 * 0.5); the real rows against the same rows with every column shuffled independently (right
 * marginals, no relations) are told apart (score far lower); a table whose every relation
 * is right except one that the logistic model cannot see (a product of two columns' signs)
 * is caught by the trees; the same seed gives the same score at any thread count; the
 * XGBoost TSTR AUC (TabSyn's MLE grid) is high trained on unseen real rows, near chance
 * trained on shuffled columns, and absent for a target with more than two classes.
 * Exits 77 (skipped) in a build without XGBoost.
 */
#include "evaluate_fixture.h"

#define D GENESIS_EVAL_PART_DETECTION

START_TEST(test_halves_vs_shuffled) {
    const char *a = adult_rows("a.csv", 0, 1000, 0);
    const char *b = adult_rows("b.csv", 1000, 2000, 0);
    const char *s = adult_rows("s.csv", 0, 1000, 3);
    run_t x = ev_files(a, b, NULL, D, 1, 1);
    double same = score(&x, GENESIS_EVAL_DETECTION_XGBOOST);
    ck_assert_msg(same > 0.85, "two halves of the real rows: %.4f (mean AUC %.4f)", same,
                  x.r->xgb_mean_auc);
    ck_assert_int_eq(x.r->xgb_real_rows, 1000);
    for (int k = 0; k < 3; k++) ck_assert(isfinite(x.r->xgb_auc[k]));
    done(&x);
    x = ev_files(a, s, NULL, D, 1, 1);
    double shuf = score(&x, GENESIS_EVAL_DETECTION_XGBOOST);
    ck_assert_msg(shuf < 0.3, "columns shuffled: %.4f (mean AUC %.4f)", shuf, x.r->xgb_mean_auc);
    ck_assert_msg(x.r->xgb_mean_auc > 0.85, "columns shuffled: mean AUC %.4f", x.r->xgb_mean_auc);
    done(&x);
}
END_TEST

START_TEST(test_interaction_logistic_misses) {
    /* real: y = sign(a) * sign(b) * |noise|; synthetic: the same a, b, |y| with y's sign
     * random. Every marginal is the same and a linear model on a, b, y sees nothing;
     * trees split on a, b and y together. */
    static char r[1 << 17], s[1 << 17];
    gen_rng g;
    gen_rng_init(&g, 4, 1);
    size_t kr = (size_t)snprintf(r, sizeof r, "a,b,y\n"), ks = kr;
    memcpy(s, r, kr + 1);
    for (int i = 0; i < 1500; i++) {
        double a = gen_rng_normal(&g), b = gen_rng_normal(&g), e = fabs(gen_rng_normal(&g)) + 0.1;
        double y = (a > 0) == (b > 0) ? e : -e;
        kr += (size_t)snprintf(r + kr, sizeof r - kr, "%.5f,%.5f,%.5f\n", a, b, y);
        double a2 = gen_rng_normal(&g), b2 = gen_rng_normal(&g), e2 = fabs(gen_rng_normal(&g)) + 0.1;
        ks += (size_t)snprintf(s + ks, sizeof s - ks, "%.5f,%.5f,%.5f\n", a2, b2,
                               gen_rng_below(&g, 2) ? e2 : -e2);
    }
    run_t x = ev_files(put("r.csv", r), put("s.csv", s), NULL, D, 2, 1);
    double lin = score(&x, GENESIS_EVAL_DETECTION), xgb = score(&x, GENESIS_EVAL_DETECTION_XGBOOST);
    ck_assert_msg(lin > 0.85, "logistic detection: %.4f", lin);
    ck_assert_msg(xgb < 0.5, "XGBoost detection: %.4f", xgb);
    done(&x);
}
END_TEST

START_TEST(test_deterministic) {
    const char *a = adult_rows("a.csv", 0, 900, 0);
    const char *b = adult_rows("b.csv", 900, 1700, 8);
    run_t x = ev_files(a, b, NULL, D, 6, 1);
    run_t y = ev_files(a, b, NULL, D, 6, 3);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(x.r->xgb_auc[k] == y.r->xgb_auc[k], "fold %d: %.17g vs %.17g", k,
                      x.r->xgb_auc[k], y.r->xgb_auc[k]);
    done(&x);
    done(&y);
}
END_TEST

START_TEST(test_tstr_auc) {
    /* TabSyn's MLE protocol on income: trained on real rows the holdout never saw, the AUC is
     * high (Adult's income is well predicted); trained on the same rows with every column
     * shuffled (the target independent of the features) it is near chance */
    const char *tr = adult_rows("train.csv", 0, 1000, 0);
    const char *ho = adult_rows("hold.csv", 1000, 2000, 0);
    const char *sy = adult_rows("syn.csv", 0, 1000, 0);
    const char *sh = adult_rows("shuf.csv", 0, 1000, 4);
    run_t x = ev_files_target(tr, sy, ho, "income", 1, 2);
    double good = score(&x, GENESIS_EVAL_TSTR_XGBOOST_AUC);
    ck_assert_msg(good > 0.8, "trained on real rows: AUC %.4f", good);
    /* the synthetic table is the real one: both sides train the same model on the same rows */
    ck_assert(good == score(&x, GENESIS_EVAL_TRTR_XGBOOST_AUC) ||
              fabs(good - score(&x, GENESIS_EVAL_TRTR_XGBOOST_AUC)) < 0.05);
    ck_assert_int_eq(x.r->mle_test_rows, 1000);
    ck_assert_int_eq(x.r->mle[0].train_rows, 1000);
    done(&x);
    x = ev_files_target(tr, sh, ho, "income", 1, 2);
    double bad = score(&x, GENESIS_EVAL_TSTR_XGBOOST_AUC);
    ck_assert_msg(bad < 0.65, "trained on shuffled columns: AUC %.4f", bad);
    done(&x);
    /* a target with more than two classes: no AUC (the papers report it for binary targets) */
    x = ev_files_target(tr, sy, ho, "race", 1, 1);
    ck_assert(isnan(score(&x, GENESIS_EVAL_TSTR_XGBOOST_AUC)));
    ck_assert_int_eq(x.r->mle_binary, 0);
    done(&x);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("evaluate_xgboost");
    TCase *t = tcase_create("xgboost");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_halves_vs_shuffled);
    tcase_add_test(t, test_interaction_logistic_misses);
    tcase_add_test(t, test_deterministic);
    tcase_add_test(t, test_tstr_auc);
    suite_add_tcase(s, t);
    return s;
}

/* Is this build linked with XGBoost? Asked of the library itself (the flag lives in the
 * result), so the test needs no build definitions of its own. */
static int have_xgboost(void) {
    genesis_ctx *ctx = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 0;
    genesis_table *t = NULL;
    static char dir[256];
    snprintf(dir, sizeof dir, "%s/genesis-xgb-probe.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int ok = 0;
    if (mkdtemp(dir)) {
        char p[400];
        snprintf(p, sizeof p, "%s/t.csv", dir);
        FILE *f = fopen(p, "w");
        if (f) {
            fputs("x\n1\n2\n3\n", f);
            fclose(f);
            genesis_csv_options o;
            genesis_csv_options_init(&o);
            genesis_eval_options eo;
            genesis_eval_options_init(&eo);
            eo.parts = GENESIS_EVAL_PART_VALIDITY;
            genesis_eval_result *r = NULL;
            if (genesis_table_read_csv(ctx, p, &o, &t) == GENESIS_OK &&
                genesis_evaluate(ctx, t, t, &eo, &r) == GENESIS_OK)
                ok = r->xgb_available;
            genesis_eval_result_free(r);
            genesis_table_free(t);
            remove(p);
        }
        rmdir(dir);
    }
    genesis_ctx_free(ctx);
    return ok;
}

int main(void) {
    if (!have_xgboost()) {
        printf("test_evaluate_xgboost: skipped: this build has no XGBoost (install "
               "libxgboost-dev, scripts/setup.sh)\n");
        return 77;
    }
    return tu_run(suite());
}
