/*
 * test_ctgan_e2e.c — CTGAN end to end through the public API on real data
 * (data/adult_sample.csv: the first 2000 rows of UCI Adult):
 *   - quality: after training, the synthetic table's column shapes (SDMetrics definitions:
 *     KS complement for continuous, TV complement for categorical columns) and a strongly
 *     related pair (relationship x sex, contingency similarity) clear thresholds, and beat an
 *     untrained model;
 *   - exact point masses (capital-gain = 0), integer output and the real range;
 *   - determinism (same seed -> identical bytes, different seed -> different bytes);
 *   - save/load round trip gives the same samples; truncated and corrupted model files are
 *     refused with GENESIS_ERR_MODEL_FORMAT, never a crash;
 *   - missing values in a continuous column are modelled and reproduced;
 *   - conditioned sampling pins the column.
 * GENESIS_SLOW_TESTS=0 (the sanitizer run) trains for a few epochs and skips the thresholds.
 */
#include <unistd.h>

#include "e2e_util.h"

/* ---- helpers -------------------------------------------------------------------------- */

static genesis_model *fit_sample(genesis_ctx *ctx, const genesis_table *t, int epochs, int64_t n,
                                 text_table *out) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
    memset(out, 0, sizeof *out);
    ck_assert_int_eq(genesis_model_sample(m, n, collect, out), GENESIS_OK);
    ck_assert_int_eq(out->nrows, n);
    return m;
}

/* ---- tests -------------------------------------------------------------------------------- */

START_TEST(test_quality_on_adult_sample) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 3);
    genesis_table *t;
    text_table real, syn, untrained;
    read_real(ctx, tu_path("data/adult_sample.csv"), &real, &t);
    int epochs = slow_tests() ? 150 : 2;
    genesis_model *m = fit_sample(ctx, t, epochs, 2000, &syn);
    genesis_model *m0 = fit_sample(ctx, t, 1, 2000, &untrained);
    double shapes = column_shapes(&real, &syn, t), shapes0 = column_shapes(&real, &untrained, t);
    int rel = col_index(t, "relationship"), sex = col_index(t, "sex");
    double pair = tv_complement(&real, &syn, rel, sex), pair0 = tv_complement(&real, &untrained, rel, sex);
    fprintf(stderr, "adult_sample: %d epochs: column shapes %.3f (1 epoch: %.3f); "
                    "relationship x sex %.3f (1 epoch: %.3f)\n",
            epochs, shapes, shapes0, pair, pair0);
    /* exact point mass, integers, range */
    int cg = col_index(t, "capital-gain"), age = col_index(t, "age");
    int64_t zeros_real = 0, zeros_syn = 0;
    for (int64_t r = 0; r < syn.nrows; r++) {
        zeros_real += !strcmp(real.cells[r * real.ncols + cg], "0");
        zeros_syn += !strcmp(syn.cells[r * syn.ncols + cg], "0");
        const char *a = syn.cells[r * syn.ncols + age];
        char *end;
        double v = strtod(a, &end);
        ck_assert_msg(*end == 0 && v == floor(v) && v >= 17 && v <= 90, "age '%s' is not an integer in range", a);
        ck_assert_msg(strtod(syn.cells[r * syn.ncols + cg], NULL) >= 0, "negative capital-gain");
    }
    fprintf(stderr, "capital-gain exactly 0: real %.3f, synthetic %.3f\n", zeros_real / 2000.0, zeros_syn / 2000.0);
    if (slow_tests()) {
        ck_assert_msg(shapes >= 0.85, "column shapes %.3f below 0.85", shapes);
        ck_assert_msg(shapes > shapes0 + 0.03, "training did not improve column shapes (%.3f vs %.3f)", shapes, shapes0);
        ck_assert_msg(pair >= 0.68 && pair > pair0 + 0.08,
                      "relationship x sex contingency similarity %.3f (untrained %.3f)", pair, pair0);
        ck_assert_msg(fabs(zeros_syn / 2000.0 - zeros_real / 2000.0) < 0.10,
                      "capital-gain zero share %.3f vs real %.3f", zeros_syn / 2000.0, zeros_real / 2000.0);
    }
    text_table_free(&real); text_table_free(&syn); text_table_free(&untrained);
    genesis_model_free(m); genesis_model_free(m0);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

static char *sample_to_string(genesis_model *m, const char *path, size_t *len) {
    ck_assert_int_eq(genesis_model_sample_csv(m, 700, path), GENESIS_OK);
    return tu_read_file(path, len);
}

START_TEST(test_determinism_and_round_trip) {
    char dir[] = "/tmp/genesis_e2e_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char out[256], model[256], bad[256];
    snprintf(out, sizeof out, "%s/out.csv", dir);
    snprintf(model, sizeof model, "%s/m.gen", dir);
    snprintf(bad, sizeof bad, "%s/bad.gen", dir);
    char *res[3];
    size_t len[3];
    genesis_model *keep = NULL;
    genesis_ctx *keep_ctx = NULL;
    for (int run = 0; run < 3; run++) {
        genesis_ctx *ctx;
        genesis_ctx_create(&ctx);
        genesis_ctx_set_seed(ctx, run == 2 ? 8 : 7);
        genesis_table *t;
        ck_assert_int_eq(genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, &t), GENESIS_OK);
        genesis_model *m;
        ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
        genesis_model_set_param(m, GENESIS_P_EPOCHS, 2);
        ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
        res[run] = sample_to_string(m, out, &len[run]);
        if (run == 0) {
            ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
            keep = m;
            keep_ctx = ctx;
            genesis_table_free(t);
            continue; /* its context stays alive with the model */
        }
        genesis_model_free(m);
        genesis_table_free(t);
        genesis_ctx_free(ctx);
    }
    ck_assert_msg(len[0] == len[1] && memcmp(res[0], res[1], (size_t)len[0]) == 0, "same seed, different output");
    ck_assert_msg(len[0] != len[2] || memcmp(res[0], res[2], (size_t)len[0]) != 0, "different seeds, same output");
    /* load: the first sampling call of the loaded model equals the original's first */
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 7);
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(ctx, model, &l), GENESIS_OK);
    ck_assert_int_eq(genesis_model_get_kind(l), GENESIS_MODEL_CTGAN);
    size_t ll;
    char *loaded = sample_to_string(l, out, &ll);
    ck_assert_msg(ll == len[0] && memcmp(loaded, res[0], (size_t)ll) == 0, "loaded model samples differently");
    genesis_model_free(l);
    /* truncated files: every prefix length in a spread, all refused cleanly */
    size_t mlen;
    char *mbytes = tu_read_file(model, &mlen);
    for (size_t cut = 0; cut < mlen; cut += (cut < 256 ? 1 : mlen / 97 + 1)) {
        tu_write_file(bad, mbytes, cut);
        genesis_model *x = NULL;
        genesis_status st = genesis_model_load(ctx, bad, &x);
        ck_assert_msg(st == GENESIS_ERR_MODEL_FORMAT && x == NULL, "truncated at %zu: status %d (%s)", cut, st,
                      genesis_errmsg(ctx));
    }
    /* corrupted bytes anywhere: refused (checksum or structure) */
    for (size_t pos = 0; pos < mlen; pos += mlen / 61 + 1) {
        mbytes[pos] ^= 0x5a;
        tu_write_file(bad, mbytes, mlen);
        mbytes[pos] ^= 0x5a;
        genesis_model *x = NULL;
        genesis_status st = genesis_model_load(ctx, bad, &x);
        ck_assert_msg(st == GENESIS_ERR_MODEL_FORMAT || st == GENESIS_ERR_VERSION, "flip at %zu: status %d", pos, st);
        ck_assert_ptr_null(x);
    }
    /* a future format version */
    mbytes[8] = 99;
    tu_write_file(bad, mbytes, mlen);
    genesis_model *x = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, bad, &x), GENESIS_ERR_VERSION);
    ck_assert_msg(strstr(genesis_errmsg(ctx), "version") != NULL, "message: %s", genesis_errmsg(ctx));
    free(mbytes);
    free(loaded);
    for (int i = 0; i < 3; i++) free(res[i]);
    genesis_model_free(keep);
    genesis_ctx_free(keep_ctx);
    genesis_ctx_free(ctx);
    unlink(out); unlink(model); unlink(bad); rmdir(dir);
}
END_TEST

START_TEST(test_missing_continuous_and_conditions) {
    char dir[] = "/tmp/genesis_e2e_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/missing.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "x,y,g\n");
    gen_rng r;
    gen_rng_init(&r, 1, 1);
    int nmiss = 0;
    for (int i = 0; i < 1000; i++) {
        int grp = (int)gen_rng_below(&r, 3);
        double x = grp * 10 + gen_rng_normal(&r);
        if (gen_rng_uniform(&r) < 0.2) { fprintf(f, ",%.3f,g%d\n", x * 2, grp); nmiss++; }
        else fprintf(f, "%.3f,%.3f,g%d\n", x, x * 2, grp);
    }
    fclose(f);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, &t), GENESIS_OK);
    ck_assert_int_eq(genesis_table_column_type(t, 0), GENESIS_COLUMN_CONTINUOUS);
    text_table syn;
    genesis_model *m = fit_sample(ctx, t, slow_tests() ? 40 : 2, 2000, &syn);
    int miss = 0;
    for (int64_t i = 0; i < syn.nrows; i++) miss += syn.cells[i * syn.ncols][0] == 0;
    fprintf(stderr, "missing x: real %.3f, synthetic %.3f\n", nmiss / 1000.0, miss / 2000.0);
    ck_assert_msg(miss > 0, "no missing values generated");
    if (slow_tests()) ck_assert_msg(fabs(miss / 2000.0 - nmiss / 1000.0) < 0.08, "missing share off");
    text_table_free(&syn);
    /* conditions: every row carries the value; unknown values are refused */
    ck_assert_int_eq(genesis_model_set_condition(m, "g", "g2"), GENESIS_OK);
    memset(&syn, 0, sizeof syn);
    ck_assert_int_eq(genesis_model_sample(m, 600, collect, &syn), GENESIS_OK);
    for (int64_t i = 0; i < syn.nrows; i++) ck_assert_str_eq(syn.cells[i * syn.ncols + 2], "g2");
    text_table_free(&syn);
    ck_assert_int_eq(genesis_model_set_condition(m, "g", "g9"), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_condition(m, "x", "1"), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_condition(m, "nope", "1"), GENESIS_ERR_INVALID_ARG);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_api_misuse) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 0), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1.5), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, (genesis_param)999, 1), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_sample_csv(m, 10, "/tmp/never.csv"), GENESIS_ERR_STATE);
    ck_assert_int_eq(genesis_model_save(m, "/tmp/never.gen"), GENESIS_ERR_STATE);
    ck_assert_int_eq(access("/tmp/never.csv", F_OK), -1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, &t), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 505), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_ERR_INVALID_ARG); /* not a multiple of pac */
    ck_assert_msg(strstr(genesis_errmsg(ctx), "pac") != NULL, "%s", genesis_errmsg(ctx));
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, (genesis_model_kind)99, &m), GENESIS_ERR_UNSUPPORTED);
    genesis_model_free(NULL);
    genesis_table_free(NULL);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    genesis_ctx_free(NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ctgan_e2e");
    TCase *tc = tcase_create("adult_sample");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_quality_on_adult_sample);
    tcase_add_test(tc, test_determinism_and_round_trip);
    tcase_add_test(tc, test_missing_continuous_and_conditions);
    tcase_add_test(tc, test_api_misuse);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
