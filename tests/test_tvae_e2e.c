/*
 * test_tvae_e2e.c — TVAE end to end through the public API on real data
 * (data/adult_sample.csv): quality thresholds against an untrained model, softmax draws vs
 * argmax decoding, missing values in a continuous column (the reference crashes at sampling
 * there), the model file round trip, and a TVAE file loaded where a CTGAN one was expected
 * (the file says which network it holds; conditions, which need CTGAN, are refused). Each
 * runs with both decoder layouts (alpha-per-mode 0 and 1, docs/algorithms.md "One alpha per
 * mode"); a file written before the setting existed loads with the layout of 0.
 * GENESIS_SLOW_TESTS=0 (the sanitizer run) trains briefly and skips the thresholds.
 */
#include <unistd.h>

#include "e2e_util.h"

static genesis_model *fit_tvae(genesis_ctx *ctx, const genesis_table *t, int epochs, int apm) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, apm), GENESIS_OK);
    double v;
    genesis_model_get_param(m, GENESIS_P_GEN_LR, &v);
    ck_assert_double_eq_tol(v, 1e-3, 1e-12); /* TVAE's own defaults */
    genesis_model_get_param(m, GENESIS_P_GEN_DIM, &v);
    ck_assert_double_eq(v, 128);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
    return m;
}

static void sample_text(genesis_model *m, int64_t n, text_table *out) {
    memset(out, 0, sizeof *out);
    ck_assert_int_eq(genesis_model_sample(m, n, collect, out), GENESIS_OK);
    ck_assert_int_eq(out->nrows, n);
}

START_TEST(test_tvae_quality_on_adult_sample) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 5);
    genesis_table *t;
    text_table real, syn, argmax, untrained;
    read_real(ctx, tu_path("data/adult_sample.csv"), &real, &t);
    int epochs = slow_tests() ? 150 : 2, apm = _i;
    genesis_model *m = fit_tvae(ctx, t, epochs, apm), *m0 = fit_tvae(ctx, t, 1, apm);
    sample_text(m, 2000, &syn);
    sample_text(m0, 2000, &untrained);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_ARGMAX, 1), GENESIS_OK);
    sample_text(m, 2000, &argmax);
    double shapes = column_shapes(&real, &syn, t), shapes0 = column_shapes(&real, &untrained, t);
    double shapes_arg = column_shapes(&real, &argmax, t);
    int rel = col_index(t, "relationship"), sex = col_index(t, "sex");
    double pair = tv_complement(&real, &syn, rel, sex);
    int occ = col_index(t, "occupation");
    double occ_draw = tv_complement(&real, &syn, occ, -1), occ_arg = tv_complement(&real, &argmax, occ, -1);
    fprintf(stderr, "TVAE adult_sample %d epochs, alpha-per-mode %d: column shapes %.3f (argmax "
                    "%.3f, 1 epoch %.3f); relationship x sex %.3f; occupation shape: draw %.3f, "
                    "argmax %.3f\n",
            epochs, apm, shapes, shapes_arg, shapes0, pair, occ_draw, occ_arg);
    if (slow_tests()) {
        ck_assert_msg(shapes >= 0.85, "column shapes %.3f below 0.85", shapes);
        ck_assert_msg(shapes > shapes0 + 0.03, "training did not help (%.3f vs %.3f)", shapes, shapes0);
        ck_assert_msg(pair >= 0.70, "relationship x sex %.3f below 0.70", pair);
        ck_assert_msg(occ_draw >= occ_arg - 0.01, "drawing categories should not be worse than argmax");
    }
    text_table_free(&real); text_table_free(&syn); text_table_free(&argmax); text_table_free(&untrained);
    genesis_model_free(m); genesis_model_free(m0);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

START_TEST(test_tvae_missing_values_and_files) {
    char dir[] = "/tmp/genesis_tvae_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256], model[256];
    snprintf(path, sizeof path, "%s/missing.csv", dir);
    snprintf(model, sizeof model, "%s/t.gen", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "x,y,g\n");
    gen_rng r;
    gen_rng_init(&r, 2, 1);
    int nmiss = 0;
    for (int i = 0; i < 1000; i++) {
        int grp = (int)gen_rng_below(&r, 3);
        double x = grp * 10 + gen_rng_normal(&r);
        if (gen_rng_uniform(&r) < 0.25) { fprintf(f, ",%.3f,g%d\n", -x, grp); nmiss++; }
        else fprintf(f, "%.3f,%.3f,g%d\n", x, -x, grp);
    }
    fclose(f);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, &t), GENESIS_OK);
    int apm = _i;
    genesis_model *m = fit_tvae(ctx, t, slow_tests() ? 60 : 2, apm);
    text_table syn;
    sample_text(m, 1500, &syn);
    int miss = 0;
    for (int64_t i = 0; i < syn.nrows; i++) miss += syn.cells[i * syn.ncols][0] == 0;
    fprintf(stderr, "TVAE missing x (alpha-per-mode %d): real %.3f, synthetic %.3f\n", apm,
            nmiss / 1000.0, miss / 1500.0);
    ck_assert_msg(miss > 0 && miss < 1500, "missing values not reproduced (%d of 1500)", miss);
    if (slow_tests()) ck_assert_msg(fabs(miss / 1500.0 - nmiss / 1000.0) < 0.08, "missing share off");
    text_table_free(&syn);
    /* conditions need CTGAN's conditional vector */
    ck_assert_int_eq(genesis_model_set_condition(m, "g", "g1"), GENESIS_ERR_UNSUPPORTED);
    /* file round trip: the loaded model is a TVAE and samples the same rows */
    ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(ctx, model, &l), GENESIS_OK);
    ck_assert_int_eq(genesis_model_get_kind(l), GENESIS_MODEL_TVAE);
    text_table a, b;
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_load(ctx, model, &m), GENESIS_OK);
    sample_text(m, 700, &a);
    sample_text(l, 700, &b);
    for (int64_t i = 0; i < a.nrows * a.ncols; i++) ck_assert_str_eq(a.cells[i], b.cells[i]);
    double v = -1;
    genesis_model_get_param(l, GENESIS_P_ALPHA_PER_MODE, &v);
    ck_assert(v == apm);
    genesis_model_free(l);
    /* the file as a genesis before alpha-per-mode wrote it (28 settings): it loads with one
     * alpha per column and samples as the full file does; a per-mode decoder cannot be read
     * that way (its weights do not fit the layout) */
    ck_assert_uint_ge(tu_file_keep_settings(model, 28), 29);
    genesis_status st = genesis_model_load(ctx, model, &l);
    if (apm) {
        ck_assert_int_eq(st, GENESIS_ERR_MODEL_FORMAT);
        ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "parameter count"));
    } else {
        ck_assert_msg(st == GENESIS_OK, "%s", genesis_errmsg(ctx));
        genesis_model_get_param(l, GENESIS_P_ALPHA_PER_MODE, &v);
        ck_assert(v == 0);
        text_table c;
        sample_text(l, 700, &c);
        for (int64_t i = 0; i < a.nrows * a.ncols; i++) ck_assert_str_eq(a.cells[i], c.cells[i]);
        text_table_free(&c);
        genesis_model_free(l);
    }
    text_table_free(&a);
    text_table_free(&b);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unlink(path);
    unlink(model);
    rmdir(dir);
}
END_TEST

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* The memory model counts the wider decoder of alpha-per-mode 1: two models of one table and
 * seed differ only in it, so their files differ by exactly the extra weights, and so must the
 * estimates' parameter bytes (fitted: exact); before fit the estimate grows too. */
START_TEST(test_tvae_alpha_per_mode_memory) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 3);
    genesis_ctx_set_threads(ctx, 1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, &t), GENESIS_OK);
    char dir[] = "/tmp/genesis_tvae_apm_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[2][256];
    genesis_memory_estimate fit[2], fitted[2];
    for (int apm = 0; apm < 2; apm++) {
        genesis_model *m;
        ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, apm), GENESIS_OK);
        ck_assert_int_eq(genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &fit[apm]), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
        ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
        snprintf(path[apm], sizeof path[apm], "%s/m%d.gen", dir, apm);
        ck_assert_int_eq(genesis_model_save(m, path[apm]), GENESIS_OK);
        genesis_model_free(m);
        ck_assert_int_eq(genesis_model_load(ctx, path[apm], &m), GENESIS_OK);
        ck_assert_int_eq(genesis_estimate_memory(m, NULL, GENESIS_WORKLOAD_SAMPLE, 500, &fitted[apm]),
                         GENESIS_OK);
        ck_assert(fitted[apm].exact);
        genesis_model_free(m);
    }
    long extra = file_size(path[1]) - file_size(path[0]);
    fprintf(stderr, "TVAE alpha-per-mode on adult_sample: %ld more bytes of weights\n", extra);
    ck_assert_int_gt(extra, 0);
    ck_assert_int_eq((long)(fitted[1].parameters - fitted[0].parameters), extra);
    ck_assert_uint_gt(fitted[1].activations, fitted[0].activations);
    ck_assert_uint_gt(fit[1].parameters, fit[0].parameters);
    ck_assert_uint_gt(fit[1].activations, fit[0].activations);
    unlink(path[0]);
    unlink(path[1]);
    rmdir(dir);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tvae_e2e");
    TCase *tc = tcase_create("adult_sample");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, test_tvae_quality_on_adult_sample, 0, 2);
    tcase_add_loop_test(tc, test_tvae_missing_values_and_files, 0, 2);
    tcase_add_test(tc, test_tvae_alpha_per_mode_memory);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
