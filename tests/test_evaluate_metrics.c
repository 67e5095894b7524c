/*
 * test_evaluate_metrics.c — the numeric building blocks of `genesis evaluate` against values
 * computed by hand and checked with numpy / scipy / sklearn (the expected values below were
 * printed by those libraries): KS statistic, 14-decimal rounding, the report's binning
 * (np.histogram_bin_edges + np.digitize), Cramer's V, Pearson, median, seeded subsamples,
 * ROC AUC, F1 and macro F1, label normalisation.
 */
#include "evaluate_ml.h"
#include "test_util.h"

START_TEST(test_ks_statistic) {
    /* scipy.stats.ks_2samp([1,2,3,4],[3,4,5,6]).statistic = 0.5 */
    double a[] = {1, 2, 3, 4}, b[] = {3, 4, 5, 6};
    ck_assert_double_eq_tol(gen_ev_ks_stat(a, 4, b, 4), 0.5, 1e-15);
    /* ties across samples: ks_2samp([1,1,2],[1,2,2,3]) = 0.41666... */
    double c[] = {1, 1, 2}, d[] = {1, 2, 2, 3};
    ck_assert_double_eq_tol(gen_ev_ks_stat(c, 3, d, 4), 5.0 / 12.0, 1e-15);
    /* identical samples */
    ck_assert_double_eq(gen_ev_ks_stat(a, 4, a, 4), 0.0);
}
END_TEST

START_TEST(test_round14) {
    /* pandas .round(14): 0.1 + 0.2 and 0.3 become the same number */
    ck_assert(gen_ev_round14(0.1 + 0.2) == gen_ev_round14(0.3));
    ck_assert(gen_ev_round14(2.0) == 2.0);
    ck_assert(isnan(gen_ev_round14(NAN)));
}
END_TEST

START_TEST(test_report_binning) {
    /* np.digitize([0,5,10,nan,9.99], np.histogram_bin_edges([0,5,10,9.99])) = [1 6 11 11 10]:
     * the maximum alone in label 11, NaN joins it */
    double x[] = {0, 5, 10, NAN, 9.99}, e[11];
    uint8_t l[5];
    ck_assert_int_eq(gen_ev_digitize(x, 5, l, e), 0);
    int want[] = {1, 6, 11, 11, 10};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(l[i], want[i]);
    ck_assert_double_eq(e[0], 0);
    ck_assert_double_eq(e[10], 10);
    /* a constant column: range widened by 0.5 each side -> label 6 */
    double y[] = {3, 3};
    ck_assert_int_eq(gen_ev_digitize(y, 2, l, e), 0);
    ck_assert_int_eq(l[0], 6);
    ck_assert_int_eq(l[1], 6);
    /* infinite values cannot be binned */
    double z[] = {1, INFINITY};
    ck_assert_int_eq(gen_ev_digitize(z, 2, l, e), -1);
}
END_TEST

START_TEST(test_cramers_v) {
    /* [[3,1],[1,3]]: chi2 = 2, n = 8 -> V = 0.5 (scipy association) */
    int64_t cnt[] = {3, 1, 1, 3};
    int32_t x[] = {0, 0, 1, 1}, y[] = {0, 1, 0, 1};
    ck_assert_double_eq_tol(gen_ev_cramers_v(cnt, x, y, 4, 2, 2), 0.5, 1e-12);
    /* [[10,0,2],[1,7,3]] (zero cell left out): 0.7953030158702667 */
    int64_t c2[] = {10, 2, 1, 7, 3};
    int32_t x2[] = {0, 0, 1, 1, 1}, y2[] = {0, 2, 0, 1, 2};
    ck_assert_double_eq_tol(gen_ev_cramers_v(c2, x2, y2, 5, 2, 3), 0.7953030158702667, 1e-12);
    /* a single row: undefined */
    int64_t c3[] = {4, 5};
    int32_t x3[] = {1, 1}, y3[] = {0, 1};
    ck_assert(isnan(gen_ev_cramers_v(c3, x3, y3, 2, 3, 2)));
}
END_TEST

START_TEST(test_pearson) {
    double x[] = {1, 2, 3, 4, NAN}, y[] = {2, 4, 6, 8, 1}, z[] = {5, 5, 5, 5, 5};
    ck_assert_double_eq_tol(gen_ev_pearson(x, y, 5), 1.0, 1e-15);
    ck_assert(isnan(gen_ev_pearson(x, z, 5))); /* constant */
    double u[] = {1, NAN}, v[] = {1, 2};
    ck_assert(isnan(gen_ev_pearson(u, v, 2))); /* fewer than two complete rows */
}
END_TEST

START_TEST(test_median) {
    double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2};
    ck_assert_double_eq(gen_ev_median(a, 3), 2);
    ck_assert_double_eq(gen_ev_median(b, 4), 2.5);
}
END_TEST

START_TEST(test_subsample) {
    int64_t *r = NULL, *s = NULL;
    ck_assert_int_eq(gen_ev_sample_rows(NULL, 1000, 50, 7, 3, &r), GENESIS_OK);
    ck_assert_int_eq(gen_ev_sample_rows(NULL, 1000, 50, 7, 3, &s), GENESIS_OK);
    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(r[i], s[i]); /* seeded */
        ck_assert(r[i] >= 0 && r[i] < 1000);
        if (i) ck_assert(r[i] > r[i - 1]); /* sorted, distinct */
    }
    free(r);
    free(s);
}
END_TEST

START_TEST(test_auc_f1) {
    /* sklearn roc_auc_score([1,0,1,0,1],[.9,.1,.5,.5,.2]) = 0.75 (a tie) */
    double sc[] = {0.9, 0.1, 0.5, 0.5, 0.2};
    int32_t lab[] = {1, 0, 1, 0, 1};
    ck_assert_double_eq_tol(gen_ev_auc(sc, lab, 5), 0.75, 1e-15);
    /* f1_score([1,1,0,0,1],[1,0,0,1,1]) = 2/3 */
    int32_t t[] = {1, 1, 0, 0, 1}, p[] = {1, 0, 0, 1, 1};
    ck_assert_double_eq_tol(gen_ev_f1(t, p, 5, 1), 2.0 / 3.0, 1e-15);
    /* f1_score([0,1,2,2,1],[0,2,2,2,1], average="macro") = 0.8222... */
    int32_t t3[] = {0, 1, 2, 2, 1}, p3[] = {0, 2, 2, 2, 1};
    ck_assert_double_eq_tol(gen_ev_macro_f1(t3, p3, 5, 4), 0.8222222222222223, 1e-12);
}
END_TEST

START_TEST(test_norm_label) {
    char buf[64];
    ck_assert_str_eq(gen_ev_norm_label(" >50K.", buf, sizeof buf), ">50K");
    ck_assert_str_eq(gen_ev_norm_label(" <=50K", buf, sizeof buf), "<=50K");
    ck_assert_str_eq(gen_ev_norm_label("a..", buf, sizeof buf), "a.");
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("evaluate_metrics");
    TCase *tc = tcase_create("formulas");
    tcase_add_test(tc, test_ks_statistic);
    tcase_add_test(tc, test_round14);
    tcase_add_test(tc, test_report_binning);
    tcase_add_test(tc, test_cramers_v);
    tcase_add_test(tc, test_pearson);
    tcase_add_test(tc, test_median);
    tcase_add_test(tc, test_subsample);
    tcase_add_test(tc, test_auc_f1);
    tcase_add_test(tc, test_norm_label);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
