/*
 * test_evaluate_fidelity.c — the papers' scores of `genesis evaluate` that need no XGBoost
 * (src/evaluate/evaluate_fidelity.c; definitions in docs/evaluate.md "The papers' scores"):
 *   - the DCR share on a one-column table worked out by hand (strict "closer", ties count
 *     as not closer), on a copy of the training rows (1.0) and on unseen real rows (about
 *     0.5: the training and holdout cuts are the same size);
 *   - alpha-precision / beta-recall of a table against itself (about 1) and against
 *     columns shuffled independently or uniform noise (far lower), and the fact that an
 *     unseen sample of the same rows gives beta-recall near 0.5;
 *   - the same numbers for the same seed whatever the thread count;
 *   - the JSON keys, and without XGBoost the "not available" note.
 * The XGBoost detection has its own test (test_evaluate_xgboost.c, skipped without XGBoost).
 */
#include <cjson/cJSON.h>

#include "evaluate_fixture.h"

#define Q GENESIS_EVAL_PART_QUALITY
#define P GENESIS_EVAL_PART_PRIVACY
#define D GENESIS_EVAL_PART_DETECTION

START_TEST(test_dcr_share_by_hand) {
    /* one continuous column; range of the training column = 10.
     * synthetic 1: training 0.1, holdout 0.3 -> closer to training
     *           5: training 0.5, holdout 0.1 -> holdout
     *          16: training 0.6, holdout 0.4 -> holdout
     *           7: training 0.3, holdout 0.3 -> a tie: not strictly closer
     * share = 1 / 4 */
    g_meta = put("meta.json", "{\"columns\":[{\"name\":\"x\",\"type\":\"continuous\"}]}");
    const char *tr = put("train.csv", "x\n0\n10\n");
    const char *sy = put("syn.csv", "x\n1\n5\n16\n7\n");
    const char *ho = put("hold.csv", "x\n4\n20\n");
    run_t x = ev_files(tr, sy, ho, P, 1, 1);
    ck_assert_double_eq_tol(score(&x, GENESIS_EVAL_DCR_SHARE), 0.25, 1e-15);
    ck_assert_int_eq(x.r->dcr_share_syn_rows, 4);
    done(&x);
    /* categorical column: one-hot over the training categories ("a" only), so "b" encodes
     * as all zeros (handle_unknown="ignore"): 1 against "a", 0 against "b".
     * synthetic (0, b): training (2, a) 0.2 + 1, holdout (8, b) 0.8 + 0 -> holdout;
     * synthetic (0, a): training 0.2, holdout 0.8 + 1 -> training. share = 1 / 2 */
    tr = put("train.csv", "x,c\n2,a\n12,a\n");
    sy = put("syn.csv", "x,c\n0,b\n0,a\n");
    ho = put("hold.csv", "x,c\n8,b\n20,b\n");
    g_meta = put("meta.json", "{\"columns\":[{\"name\":\"x\",\"type\":\"continuous\"},"
                              "{\"name\":\"c\",\"type\":\"categorical\"}]}");
    x = ev_files(tr, sy, ho, P, 1, 1);
    ck_assert_double_eq_tol(score(&x, GENESIS_EVAL_DCR_SHARE), 0.5, 1e-15);
    done(&x);
    /* without a holdout there is no DCR share */
    x = ev_files(tr, sy, NULL, P, 1, 1);
    ck_assert(isnan(score(&x, GENESIS_EVAL_DCR_SHARE)));
    done(&x);
    g_meta = NULL;
}
END_TEST

START_TEST(test_dcr_share_adult) {
    const char *tr = adult_rows("train.csv", 0, 700, 0);
    const char *ho = adult_rows("hold.csv", 700, 1400, 0);
    const char *copy = adult_rows("copy.csv", 0, 700, 0);
    const char *fresh = adult_rows("fresh.csv", 1400, 2000, 0);
    run_t x = ev_files(tr, copy, ho, P, 1, 1);
    ck_assert_double_eq(score(&x, GENESIS_EVAL_DCR_SHARE), 1.0);
    done(&x);
    x = ev_files(tr, fresh, ho, P, 1, 1);
    double s = score(&x, GENESIS_EVAL_DCR_SHARE);
    ck_assert_msg(fabs(s - 0.5) < 0.08, "unseen real rows: DCR share %.4f, expected about 0.5",
                  s);
    /* equal sizes: the two shares are one computation */
    ck_assert_double_eq(score(&x, GENESIS_EVAL_DCR_SHARE_EQUAL), s);
    done(&x);
}
END_TEST

/* A 2:1 split (TabSyn's Adult split): unseen real rows fall nearest to a training row about
 * 2/3 of the time on the whole tables; brought to equal sizes, about half the time; the
 * other way round (holdout the larger) likewise. */
START_TEST(test_dcr_share_unequal_sizes) {
    const char *tr = adult_rows("train.csv", 0, 1000, 0);
    const char *ho = adult_rows("hold.csv", 1000, 1500, 0);
    const char *fresh = adult_rows("fresh.csv", 1500, 2000, 0);
    run_t x = ev_files(tr, fresh, ho, P, 1, 1);
    double whole = score(&x, GENESIS_EVAL_DCR_SHARE), eq = score(&x, GENESIS_EVAL_DCR_SHARE_EQUAL);
    ck_assert_msg(fabs(whole - 2.0 / 3.0) < 0.07, "whole tables 2:1: %.4f, expected ~0.667", whole);
    ck_assert_msg(fabs(eq - 0.5) < 0.07, "equal sizes: %.4f, expected ~0.5", eq);
    done(&x);
    x = ev_files(ho, fresh, tr, P, 1, 1);
    whole = score(&x, GENESIS_EVAL_DCR_SHARE), eq = score(&x, GENESIS_EVAL_DCR_SHARE_EQUAL);
    ck_assert_msg(fabs(whole - 1.0 / 3.0) < 0.07, "whole tables 1:2: %.4f, expected ~0.333", whole);
    ck_assert_msg(fabs(eq - 0.5) < 0.07, "equal sizes (holdout larger): %.4f, expected ~0.5", eq);
    done(&x);
    /* copies of training rows stay at 1 on both forms */
    const char *copy = adult_rows("copy.csv", 0, 500, 0);
    x = ev_files(tr, copy, ho, P, 1, 1);
    ck_assert_double_eq(score(&x, GENESIS_EVAL_DCR_SHARE), 1.0);
    ck_assert_double_eq(score(&x, GENESIS_EVAL_DCR_SHARE_EQUAL), 1.0);
    done(&x);
    /* by hand, 3 training rows (0, 10, 30), 1 holdout row (4): synthetic 1, 8 and 16 are
     * closer to training, 5 to the holdout: share 3/4, odds 3 * 1/3 = 1 -> 1/2 */
    g_meta = put("meta.json", "{\"columns\":[{\"name\":\"x\",\"type\":\"continuous\"}]}");
    const char *t3 = put("t3.csv", "x\n0\n10\n30\n");
    const char *s4 = put("s4.csv", "x\n1\n5\n16\n8\n");
    const char *h1 = put("h1.csv", "x\n4\n");
    x = ev_files(t3, s4, h1, P, 1, 1);
    ck_assert_double_eq_tol(score(&x, GENESIS_EVAL_DCR_SHARE), 0.75, 1e-15);
    ck_assert_double_eq_tol(score(&x, GENESIS_EVAL_DCR_SHARE_EQUAL), 0.5, 1e-15);
    done(&x);
    g_meta = NULL;
}
END_TEST

START_TEST(test_alpha_beta) {
    const char *tr = adult_rows("train.csv", 0, 1000, 0);
    const char *copy = adult_rows("copy.csv", 0, 1000, 0);
    const char *other = adult_rows("other.csv", 1000, 2000, 0);
    const char *shuf = adult_rows("shuf.csv", 0, 1000, 5);
    run_t x = ev_files(tr, copy, NULL, Q, 1, 1);
    double a = score(&x, GENESIS_EVAL_ALPHA_PRECISION), b = score(&x, GENESIS_EVAL_BETA_RECALL);
    /* a copy: every curve point hits its alpha except at alpha = 0, where the rows on the
     * smallest radius count (1 - share / sum of alphas, sum = 15) */
    ck_assert_msg(a > 0.999 && a <= 1, "copy: alpha-precision %.6f", a);
    ck_assert_msg(b > 0.999 && b <= 1, "copy: beta-recall %.6f", b);
    ck_assert_int_eq(x.r->ab_rows, 1000);
    done(&x);
    x = ev_files(tr, other, NULL, Q, 1, 1); /* an unseen sample of the same rows */
    a = score(&x, GENESIS_EVAL_ALPHA_PRECISION), b = score(&x, GENESIS_EVAL_BETA_RECALL);
    ck_assert_msg(a > 0.95, "unseen real rows: alpha-precision %.4f", a);
    ck_assert_msg(b > 0.4 && b < 0.6, "unseen real rows: beta-recall %.4f", b);
    done(&x);
    x = ev_files(tr, shuf, NULL, Q, 1, 1); /* right marginals, no relations */
    b = score(&x, GENESIS_EVAL_BETA_RECALL);
    ck_assert_msg(b < 0.25, "shuffled columns: beta-recall %.4f", b);
    done(&x);
    /* uniform noise over each column's range, categories drawn uniformly */
    static char buf[1 << 16];
    gen_rng g;
    gen_rng_init(&g, 9, 1);
    size_t k = (size_t)snprintf(buf, sizeof buf, "x,y,c\n");
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%.4f,%.4f,%c\n", gen_rng_normal(&g),
                              gen_rng_normal(&g), "ab"[i % 2]);
    const char *realn = put("realn.csv", buf);
    k = (size_t)snprintf(buf, sizeof buf, "x,y,c\n");
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%.4f,%.4f,%c\n",
                              8 * gen_rng_uniform(&g) - 4, 8 * gen_rng_uniform(&g) - 4,
                              "ab"[gen_rng_below(&g, 2)]);
    const char *noise = put("noise.csv", buf);
    x = ev_files(realn, noise, NULL, Q, 1, 1);
    a = score(&x, GENESIS_EVAL_ALPHA_PRECISION), b = score(&x, GENESIS_EVAL_BETA_RECALL);
    ck_assert_msg(a < 0.6, "uniform noise against a normal table: alpha-precision %.4f", a);
    ck_assert_msg(b < 0.3, "uniform noise against a normal table: beta-recall %.4f", b);
    done(&x);
}
END_TEST

START_TEST(test_seeded_and_thread_independent) {
    /* unequal sizes: alpha / beta subsample the real table to the synthetic one's 600 rows */
    const char *tr = adult_rows("train.csv", 0, 1400, 0);
    const char *ho = adult_rows("hold.csv", 1400, 2000, 0);
    const char *sy = adult_rows("syn.csv", 0, 600, 11);
    run_t x = ev_files(tr, sy, ho, Q | P, 5, 1);
    run_t y = ev_files(tr, sy, ho, Q | P, 5, 2);
    ck_assert_int_eq(x.r->ab_rows, 600);
    genesis_eval_score s[] = {GENESIS_EVAL_ALPHA_PRECISION, GENESIS_EVAL_BETA_RECALL,
                              GENESIS_EVAL_DCR_SHARE};
    for (int i = 0; i < 3; i++) {
        ck_assert(isfinite(score(&x, s[i])));
        ck_assert_msg(score(&x, s[i]) == score(&y, s[i]), "score %d: %.17g vs %.17g", (int)s[i],
                      score(&x, s[i]), score(&y, s[i]));
    }
    done(&x);
    done(&y);
}
END_TEST

START_TEST(test_json_keys) {
    const char *tr = adult_rows("train.csv", 0, 300, 0);
    const char *ho = adult_rows("hold.csv", 300, 600, 0);
    const char *sy = adult_rows("syn.csv", 600, 900, 0);
    run_t x = ev_files(tr, sy, ho, Q | P | D, 1, 1);
    cJSON *j = cJSON_Parse(genesis_eval_result_json(x.r));
    ck_assert_ptr_nonnull(j);
    cJSON *sc = cJSON_GetObjectItem(j, "scores");
    const char *keys[] = {"alpha_precision", "beta_recall", "dcr_share", "detection_xgboost"};
    for (int i = 0; i < 4; i++) ck_assert_msg(cJSON_HasObjectItem(sc, keys[i]), "%s", keys[i]);
    cJSON *f = cJSON_GetObjectItem(j, "fidelity");
    ck_assert_ptr_nonnull(f);
    ck_assert(cJSON_IsString(cJSON_GetObjectItem(f, "saturated")));
    cJSON *dx = cJSON_GetObjectItem(f, "detection_xgboost");
    ck_assert_ptr_nonnull(dx);
    if (!x.r->xgb_available) { /* the build without XGBoost says how to get it */
        ck_assert(cJSON_IsNull(cJSON_GetObjectItem(sc, "detection_xgboost")));
        const char *note = cJSON_GetStringValue(cJSON_GetObjectItem(dx, "note"));
        ck_assert_ptr_nonnull(note);
        ck_assert_ptr_nonnull(strstr(note, "install libxgboost-dev"));
    } else {
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(sc, "detection_xgboost")));
    }
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(f, "dcr_share"), "score")));
    cJSON_Delete(j);
    /* the report carries the saturation sentence */
    char path[600];
    snprintf(path, sizeof path, "%s/report.html", g_dir);
    ck_assert_int_eq(genesis_eval_result_write_html(x.r, path), GENESIS_OK);
    FILE *h = fopen(path, "r");
    ck_assert_ptr_nonnull(h);
    static char html[1 << 20];
    size_t n = fread(html, 1, sizeof html - 1, h);
    html[n] = 0;
    fclose(h);
    ck_assert_ptr_nonnull(strstr(html, "logistic detection above is saturated"));
    ck_assert_ptr_nonnull(strstr(html, "DCR share"));
    done(&x);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("evaluate_fidelity");
    TCase *t = tcase_create("fidelity");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_dcr_share_by_hand);
    tcase_add_test(t, test_dcr_share_adult);
    tcase_add_test(t, test_dcr_share_unequal_sizes);
    tcase_add_test(t, test_alpha_beta);
    tcase_add_test(t, test_seeded_and_thread_independent);
    tcase_add_test(t, test_json_keys);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tu_run(suite()); }
