/*
 * test_evaluate_report.c — the report's context lines: the robust
 * pair-trend binning beside the SDMetrics one on a table with one extreme outlier, the
 * real-vs-real baselines (the holdout evaluated as if it were the synthetic table), the
 * share of real rows duplicated within the real table, and the reason given for a low
 * macro F1 over many classes. Tables are tiny CSV texts; the expected values are worked
 * out in the comments.
 */
#include <cjson/cJSON.h>
#include <unistd.h>

#include "evaluate.h"
#include "evaluate_texts.h"
#include "rng.h"
#include "test_util.h"

#define Q GENESIS_EVAL_PART_QUALITY
#define P GENESIS_EVAL_PART_PRIVACY
#define U GENESIS_EVAL_PART_USEFULNESS

/* Reads a whole file into a malloc'd string. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq((long)fread(s, 1, (size_t)n, f), n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* ---- robust pair binning ----------------------------------------------------------------- */

START_TEST(test_robust_binning_outlier) {
    /* real: x = 0.0, 0.1, ..., 99.9 (1000 rows), c = a below 50 else b, plus one row
     * x = 1e6, c = b. The synthetic table is the 1000 ordinary rows. SDMetrics' binning cuts
     * each table over its own min..max: the real table's 1000 ordinary rows all fall in its
     * first bin of width 1e5, the synthetic ones spread over ten bins, so the contingency
     * tables barely overlap (score about 0.1). The robust binning cuts both tables over the
     * real 0.5%..99.5% quantiles (about 0.5..99.5; the outlier is row 1001 of 1001, past the
     * 99.5% point), the outlier joins the last bin: the tables differ by that one row,
     * score 1 - (1/1001 + ...)/2 > 0.99. */
    static char real[65536], syn[65536];
    size_t kr = (size_t)snprintf(real, sizeof real, "x,c\n");
    size_t ks = (size_t)snprintf(syn, sizeof syn, "x,c\n");
    for (int i = 999; i >= 0; i--) {
        kr += (size_t)snprintf(real + kr, sizeof real - kr, "%.1f,%s\n", i * 0.1,
                               i < 500 ? "a" : "b");
        ks += (size_t)snprintf(syn + ks, sizeof syn - ks, "%.1f,%s\n", i * 0.1,
                               i < 500 ? "a" : "b");
    }
    snprintf(real + kr, sizeof real - kr, "1000000.0,b\n");
    run_t x = ev(real, syn, NULL, NULL, NULL, Q, 0);
    ck_assert_msg(x.st == GENESIS_OK, "%s", genesis_errmsg(x.ctx));
    ck_assert_int_eq(x.r->npairs, 1);
    const gen_ev_pair_res *p = &x.r->pairs[0];
    ck_assert_str_eq(p->metric, "ContingencySimilarity");
    ck_assert_msg(p->score < 0.3, "SDMetrics-binned score %f", p->score);
    ck_assert_msg(p->score_robust > 0.99, "robust score %f", p->score_robust);
    ck_assert_double_eq_tol(x.r->pair_trends_robust, p->score_robust, 1e-12);
    ck_assert_double_eq_tol(score(&x, GENESIS_EVAL_PAIR_TRENDS), p->score, 1e-12);
    /* both in the JSON; the report says which one the map shows */
    cJSON *j = cJSON_Parse(genesis_eval_result_json(x.r));
    ck_assert_ptr_nonnull(j);
    cJSON *sc = cJSON_GetObjectItem(j, "scores");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(sc, "column_pair_trends")->valuedouble,
                            p->score, 1e-9);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(sc, "column_pair_trends_robust")->valuedouble,
                            p->score_robust, 1e-9);
    cJSON *pj = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "quality"), "column_pair_trends"), 0);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(pj, "score_robust")->valuedouble,
                            p->score_robust, 1e-9);
    cJSON_Delete(j);
    char path[600];
    snprintf(path, sizeof path, "%s/r.html", g_dir);
    ck_assert_int_eq(genesis_eval_result_write_html(x.r, path), GENESIS_OK);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "The map shows <b>robust binning</b>"));
    ck_assert_ptr_nonnull(strstr(html, "SDMetrics binning: "));
    free(html);
    done(&x);
}
END_TEST

START_TEST(test_robust_binning_edges) {
    /* 200 values 1..200: the 0.5% quantile is at position 0.995 (1.995), the 99.5% one at
     * 198.005 (199.005); width 19.701. 1 -> bin 0 (below), 100 -> floor(98.005 / 19.701) =
     * 4, 300 -> 9 (above), NaN -> 10. */
    double ref[200];
    for (int i = 0; i < 200; i++) ref[i] = i + 1;
    double x[4] = {1, 100, 300, NAN}, lo, hi;
    uint8_t lab[4];
    ck_assert_int_eq(gen_ev_digitize_robust(ref, 200, x, 4, lab, &lo, &hi), 0);
    ck_assert_double_eq_tol(lo, 1.995, 1e-9);
    ck_assert_double_eq_tol(hi, 199.005, 1e-9);
    ck_assert_int_eq(lab[0], 0);
    ck_assert_int_eq(lab[1], 4);
    ck_assert_int_eq(lab[2], 9);
    ck_assert_int_eq(lab[3], 10);
}
END_TEST


/* ---- real duplicates and baselines -------------------------------------------------------- */

START_TEST(test_real_duplicate_share) {
    /* real rows: (1,a) twice, (2,b) once, (3,c) three times, (4,d) once, (missing,e) twice:
     * the groups of two or more hold 2 + 3 + 2 = 7 of the 9 rows (missing equals missing). */
    const char *real = "x,c\n1,a\n1,a\n2,b\n3,c\n3,c\n3,c\n4,d\n,e\n,e\n";
    const char *syn = "x,c\n1,a\n9,z\n";
    run_t x = ev(real, syn, NULL, NULL, NULL, P, 0);
    ck_assert_msg(x.st == GENESIS_OK, "%s", genesis_errmsg(x.ctx));
    ck_assert_int_eq(x.r->real_dup_rows, 7);
    ck_assert_int_eq(x.r->exact_copies, 1);
    ck_assert_int_eq(x.r->has_baseline, 0);
    cJSON *j = cJSON_Parse(genesis_eval_result_json(x.r));
    ck_assert_ptr_nonnull(j);
    cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "privacy"), "real_duplicate_rows");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq((int)cJSON_GetObjectItem(d, "rows")->valuedouble, 7);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(d, "share")->valuedouble, 7.0 / 9.0, 1e-9);
    ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "privacy"), "baseline"));
    cJSON_Delete(j);
    done(&x);
}
END_TEST

/* A table of n rows: an integer x in 0..9, a number y, a category c (seeded). */
static void make_rows(char *buf, size_t cap, int n, double shift, uint64_t seed) {
    gen_rng r;
    gen_rng_init(&r, seed, 7);
    size_t k = (size_t)snprintf(buf, cap, "x,y,c\n");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%d,%.1f,%c\n", (int)gen_rng_below(&r, 10),
                              shift + (double)gen_rng_below(&r, 20),
                              "abc"[gen_rng_below(&r, 3)]);
}

START_TEST(test_baselines_are_holdout_as_synthetic) {
    /* the baselines of an evaluation with a holdout equal the privacy lines of a second
     * evaluation whose synthetic table is that holdout (same functions, same seed) */
    static char real[16384], syn[16384], hold[16384];
    make_rows(real, sizeof real, 300, 0, 1);
    make_rows(syn, sizeof syn, 250, 3, 2);
    make_rows(hold, sizeof hold, 200, 0, 3);
    run_t a = ev(real, syn, hold, NULL, NULL, P, 0);
    ck_assert_msg(a.st == GENESIS_OK, "%s", genesis_errmsg(a.ctx));
    run_t b = ev(real, hold, NULL, NULL, NULL, P, 0);
    ck_assert_msg(b.st == GENESIS_OK, "%s", genesis_errmsg(b.ctx));
    ck_assert_int_eq(a.r->has_baseline, 1);
    ck_assert_int_eq(a.r->base_exact_copies, b.r->exact_copies);
    ck_assert_int_gt(a.r->base_exact_copies, 0); /* 2000 distinct rows, 300 real: repeats */
    ck_assert_double_eq_tol(a.r->base_exact_copy_rate,
                            score(&b, GENESIS_EVAL_EXACT_COPY_RATE), 1e-15);
    ck_assert_int_eq(a.r->base_new_rows, b.r->new_rows);
    ck_assert_double_eq_tol(a.r->base_new_row_synthesis,
                            score(&b, GENESIS_EVAL_NEW_ROW_SYNTHESIS), 1e-15);
    ck_assert_int_eq(a.r->base_dcr_rows, b.r->dcr_rows);
    ck_assert_double_eq_tol(a.r->base_dcr_median, b.r->dcr_median_syn, 1e-15);
    ck_assert_double_eq_tol(a.r->base_dcr_median_random, b.r->dcr_median_random, 1e-15);
    ck_assert_double_eq_tol(a.r->base_dcr_baseline, score(&b, GENESIS_EVAL_DCR_BASELINE),
                            1e-15);
    /* the synthetic table's own lines are those of a run without a holdout (no baseline) */
    run_t c = ev(real, syn, NULL, NULL, NULL, P, 0);
    ck_assert_msg(c.st == GENESIS_OK, "%s", genesis_errmsg(c.ctx));
    ck_assert_int_eq(a.r->exact_copies, c.r->exact_copies);
    ck_assert_double_eq_tol(a.r->dcr_median_syn, c.r->dcr_median_syn, 1e-15);
    ck_assert_double_eq_tol(score(&a, GENESIS_EVAL_DCR_BASELINE),
                            score(&c, GENESIS_EVAL_DCR_BASELINE), 1e-15);
    /* JSON and HTML carry them */
    cJSON *j = cJSON_Parse(genesis_eval_result_json(a.r));
    ck_assert_ptr_nonnull(j);
    cJSON *bl = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "privacy"), "baseline");
    ck_assert_ptr_nonnull(bl);
    ck_assert_str_eq(cJSON_GetObjectItem(bl, "table")->valuestring, "holdout");
    ck_assert_int_eq((int)cJSON_GetObjectItem(bl, "exact_copies")->valuedouble,
                     (int)b.r->exact_copies);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(bl, "dcr_baseline_protection")->valuedouble,
                            score(&b, GENESIS_EVAL_DCR_BASELINE), 1e-9);
    cJSON_Delete(j);
    char path[600];
    snprintf(path, sizeof path, "%s/b.html", g_dir);
    ck_assert_int_eq(genesis_eval_result_write_html(a.r, path), GENESIS_OK);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "Unseen real rows (the holdout) score"));
    ck_assert_ptr_nonnull(strstr(html, "baseline: the holdout scored as if synthetic"));
    ck_assert_ptr_nonnull(strstr(html, "of the real rows repeat another real row"));
    free(html);
    done(&a);
    done(&b);
    done(&c);
}
END_TEST

/* ---- reasons ------------------------------------------------------------------------------ */

START_TEST(test_macro_f1_reason_text) {
    genesis_eval_result r;
    memset(&r, 0, sizeof r);
    char buf[400];
    r.ntstr = 2;
    r.nclasses = 17;
    r.tstr[0].real = 0.015;
    r.tstr[1].real = 0.2;
    gen_ev_tstr_reason(&r, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "macro F1 over 17 classes"));
    ck_assert_ptr_nonnull(strstr(buf, "low for a model trained on real rows too"));
    ck_assert_ptr_nonnull(strstr(buf, "0.015"));
    r.tstr[0].real = 0.8;
    r.tstr[1].real = 0.7;
    gen_ev_tstr_reason(&r, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "macro F1 over 17 classes"));
    ck_assert_ptr_null(strstr(buf, "at the lowest"));
    char pos[] = "yes"; /* binary F1: nothing to explain */
    r.positive = pos;
    r.nclasses = 2;
    ck_assert_str_eq(gen_ev_tstr_reason(&r, buf, sizeof buf), "");
}
END_TEST

START_TEST(test_macro_f1_reason_in_report) {
    /* 12 classes drawn independently of the features: every model's macro F1 is low, and
     * the JSON and the HTML say why */
    static char bufs[3][32768];
    for (int t = 0; t < 3; t++) {
        gen_rng r;
        gen_rng_init(&r, 40 + (uint64_t)t, 1);
        size_t k = (size_t)snprintf(bufs[t], sizeof bufs[t], "x,z,label\n");
        for (int i = 0; i < 360; i++)
            k += (size_t)snprintf(bufs[t] + k, sizeof bufs[t] - k, "%.2f,%c,k%d\n",
                                  100 * gen_rng_uniform(&r), "uv"[gen_rng_below(&r, 2)],
                                  (int)gen_rng_below(&r, 12));
    }
    run_t x = ev(bufs[0], bufs[1], bufs[2], NULL, "label", U, 0);
    ck_assert_msg(x.st == GENESIS_OK, "%s", genesis_errmsg(x.ctx));
    ck_assert_int_eq(x.r->nclasses, 12);
    ck_assert_str_eq(x.r->tstr_metric, "macro_f1");
    cJSON *j = cJSON_Parse(genesis_eval_result_json(x.r));
    ck_assert_ptr_nonnull(j);
    cJSON *u = cJSON_GetObjectItem(j, "usefulness");
    cJSON *why = cJSON_GetObjectItem(u, "reason");
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why->valuestring, "macro F1 over 12 classes"));
    cJSON *bl = cJSON_GetObjectItem(u, "baseline");
    ck_assert_ptr_nonnull(bl);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(bl, "logistic_regression")->valuedouble,
                            score(&x, GENESIS_EVAL_TRTR_LOGISTIC), 1e-9);
    cJSON_Delete(j);
    char path[600];
    snprintf(path, sizeof path, "%s/u.html", g_dir);
    ck_assert_int_eq(genesis_eval_result_write_html(x.r, path), GENESIS_OK);
    char *html = slurp(path);
    ck_assert_ptr_nonnull(strstr(html, "Low for a reason: macro F1 over 12 classes"));
    free(html);
    done(&x);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("evaluate_report");
    TCase *t = tcase_create("report");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_robust_binning_outlier);
    tcase_add_test(t, test_robust_binning_edges);
    tcase_add_test(t, test_real_duplicate_share);
    tcase_add_test(t, test_baselines_are_holdout_as_synthetic);
    tcase_add_test(t, test_macro_f1_reason_text);
    tcase_add_test(t, test_macro_f1_reason_in_report);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tu_run(suite()); }
