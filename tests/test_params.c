/*
 * test_params.c — the self-describing parameter table (src/model/params.c, genesis_param_get_info)
 * and the model kinds by name and features (src/model/model_kind.c): every parameter has a name, help, a range
 * holding each kind's default and at least one kind; the sampling-time settings are the ones
 * genesis_model_set_param accepts on a fitted model; a setting a kind does not use is refused
 * with a message naming it; kind names round-trip; TimeGAN's default count is the windows of
 * one series.
 */
#include <string.h>

#include <genesis/genesis.h>

#include "test_util.h"

START_TEST(test_every_param_described) {
    int n = genesis_param_count();
    ck_assert_int_ge(n, 24);
    genesis_param_info pi;
    ck_assert_int_eq(genesis_param_get_info((genesis_param)n, 0, &pi), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_param_get_info(GENESIS_P_EPOCHS, (genesis_model_kind)99, &pi),
                     GENESIS_ERR_INVALID_ARG);
    for (int p = 0; p < n; p++) {
        ck_assert_int_eq(genesis_param_get_info((genesis_param)p, 0, &pi), GENESIS_OK);
        ck_assert(pi.name && *pi.name && pi.help && *pi.help);
        ck_assert_uint_ne(pi.models, 0);
        const char *name;
        double lo, hi, def;
        genesis_param_bounds((genesis_param)p, &lo, &hi, &def, &name);
        ck_assert_str_eq(name, pi.name);
        ck_assert(lo == pi.lo && hi == pi.hi && def == pi.def);
        for (int k = 1; genesis_model_kind_name((genesis_model_kind)k); k++) {
            double d;
            ck_assert_int_eq(genesis_param_get_info((genesis_param)p, (genesis_model_kind)k, &pi), GENESIS_OK);
            genesis_param_default((genesis_model_kind)k, (genesis_param)p, &d);
            ck_assert(d == pi.def && d >= pi.lo && d <= pi.hi);
        }
    }
    /* TimeGAN's own defaults (docs/algorithms.md §S1) and uses */
    genesis_param_get_info(GENESIS_P_BATCH_SIZE, GENESIS_MODEL_TIMEGAN, &pi);
    ck_assert(pi.def == 128 && (pi.models & GENESIS_MODEL_BIT(GENESIS_MODEL_TIMEGAN)));
    genesis_param_get_info(GENESIS_P_EPOCHS, GENESIS_MODEL_TIMEGAN, &pi);
    ck_assert(!(pi.models & GENESIS_MODEL_BIT(GENESIS_MODEL_TIMEGAN)));
}
END_TEST

START_TEST(test_kind_names) {
    int n = 0;
    for (int k = 1; genesis_model_kind_name((genesis_model_kind)k); k++, n++) {
        genesis_model_kind back = 0;
        ck_assert_int_eq(genesis_model_kind_from_name(genesis_model_kind_name((genesis_model_kind)k), &back), GENESIS_OK);
        ck_assert_int_eq(back, k);
    }
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(genesis_model_kind_name(GENESIS_MODEL_TIMEGAN), "timegan");
    ck_assert_str_eq(genesis_model_kind_name(GENESIS_MODEL_DDPM), "ddpm");
    ck_assert_uint_eq(genesis_model_kind_features(GENESIS_MODEL_DDPM), GENESIS_FEATURE_TARGET);
    genesis_model_kind k;
    ck_assert_int_eq(genesis_model_kind_from_name("gpt", &k), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_kind_from_name(NULL, &k), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_null(genesis_model_kind_name((genesis_model_kind)0));
    ck_assert_uint_eq(genesis_model_kind_features(GENESIS_MODEL_CTGAN), GENESIS_FEATURE_CONDITIONS);
    ck_assert_uint_eq(genesis_model_kind_features(GENESIS_MODEL_TVAE), 0);
    ck_assert_uint_eq(genesis_model_kind_features(GENESIS_MODEL_TIMEGAN), GENESIS_FEATURE_SEQUENCES);
    ck_assert_uint_eq(genesis_model_kind_features((genesis_model_kind)0), 0);
}
END_TEST

/* the traits each model declares (genesis_model_kind_get_info): what fit counts, which
 * setting says how long, how many losses the progress reports */
START_TEST(test_kind_info) {
    static const struct {
        genesis_model_kind kind;
        const char *unit;
        genesis_param param;
        int losses;
    } want[] = {{GENESIS_MODEL_CTGAN, "epochs", GENESIS_P_EPOCHS, 2},
                {GENESIS_MODEL_TVAE, "epochs", GENESIS_P_EPOCHS, 1},
                {GENESIS_MODEL_TIMEGAN, "iterations", GENESIS_P_ITERATIONS, 2},
                {GENESIS_MODEL_DDPM, "iterations", GENESIS_P_ITERATIONS, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        genesis_model_kind_info ki;
        ck_assert_int_eq(genesis_model_kind_get_info(want[i].kind, &ki), GENESIS_OK);
        ck_assert_str_eq(ki.name, genesis_model_kind_name(want[i].kind));
        ck_assert_uint_eq(ki.features, genesis_model_kind_features(want[i].kind));
        ck_assert_str_eq(ki.train_unit, want[i].unit);
        ck_assert_int_eq(ki.train_param, want[i].param);
        ck_assert_int_eq(ki.losses, want[i].losses);
        /* the training unit is a setting the kind uses */
        genesis_param_info pi;
        ck_assert_int_eq(genesis_param_get_info(ki.train_param, want[i].kind, &pi), GENESIS_OK);
        ck_assert(pi.models & GENESIS_MODEL_BIT(want[i].kind));
        ck_assert_str_eq(pi.name, ki.train_unit);
    }
    genesis_model_kind_info ki;
    ck_assert_int_eq(genesis_model_kind_get_info((genesis_model_kind)0, &ki), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_kind_get_info((genesis_model_kind)99, &ki), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_kind_get_info(GENESIS_MODEL_CTGAN, NULL), GENESIS_ERR_INVALID_ARG);
}
END_TEST

START_TEST(test_set_param_follows_table) {
    genesis_ctx *ctx;
    genesis_model *m;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_ARGMAX, 1), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "`sample-argmax`"));
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "tvae"));
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PAC, 5), GENESIS_OK);
    ck_assert_int_eq(genesis_model_default_rows(m, 1000), 1000);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 3), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, 10), GENESIS_OK);
    ck_assert_int_eq(genesis_model_default_rows(m, 100), 90);
    ck_assert_int_eq(genesis_model_default_rows(m, 5), 1);
    ck_assert_int_eq(genesis_model_default_rows(NULL, 5), 0);
    genesis_model_free(m);
    /* DDPM: its own settings and defaults; epochs and the GAN settings refused */
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    double v;
    genesis_model_get_param(m, GENESIS_P_DIFFUSION_STEPS, &v);
    ck_assert_double_eq(v, 1000);
    genesis_model_get_param(m, GENESIS_P_SAMPLE_STEPS, &v); /* strided: docs/ddpm.md §9 */
    ck_assert_double_eq(v, 100);
    genesis_model_get_param(m, GENESIS_P_GEN_LR, &v);
    ck_assert_double_eq_tol(v, 2e-3, 1e-12);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 3), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "`epochs` does not apply to ddpm"));
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PAC, 5), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 1), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_NOISE_SCHEDULE, 2), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 50), GENESIS_OK);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 50), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "it applies to ddpm"));
    /* alpha-per-mode: TVAE's decoder layout, 0 or 1, fixed at fit */
    genesis_param_info pi;
    ck_assert_int_eq(genesis_param_get_info(GENESIS_P_ALPHA_PER_MODE, GENESIS_MODEL_TVAE, &pi), GENESIS_OK);
    ck_assert_str_eq(pi.name, "alpha-per-mode");
    ck_assert(pi.lo == 0 && pi.hi == 1 && pi.integer && !pi.after_fit);
    ck_assert_uint_eq(pi.models, GENESIS_MODEL_BIT(GENESIS_MODEL_TVAE));
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, 2), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, 0), GENESIS_OK);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, 1), GENESIS_ERR_INVALID_ARG);
    genesis_model_free(m);
    genesis_ctx_free(ctx);
}
END_TEST

/* after_fit is exactly what a fitted model accepts */
/* The default kind is DDPM, and epochs convert to a kind's own training unit: unchanged for
 * a kind trained by epochs, ceil(epochs x rows / min(batch, rows)) batches for DDPM, refused
 * for TimeGAN (its phases are no passes over rows). */
START_TEST(test_default_kind_and_epochs) {
    ck_assert_int_eq(genesis_model_kind_default(), GENESIS_MODEL_DDPM);
    genesis_ctx *ctx;
    genesis_model *m;
    double n = 0;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_epochs_length(m, 2000, 7, &n), GENESIS_OK);
    ck_assert_double_eq(n, 7);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, genesis_model_kind_default(), &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_epochs_length(m, 2000, 3, &n), GENESIS_OK); /* batch 256 */
    ck_assert_double_eq(n, 24);                                                /* 6000 / 256 = 23.4 */
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 500), GENESIS_OK);
    ck_assert_int_eq(genesis_model_epochs_length(m, 2000, 3, &n), GENESIS_OK);
    ck_assert_double_eq(n, 12);
    ck_assert_int_eq(genesis_model_epochs_length(m, 3, 4, &n), GENESIS_OK); /* batch = the 3 rows */
    ck_assert_double_eq(n, 4);
    ck_assert_int_eq(genesis_model_epochs_length(m, 0, 4, &n), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_epochs_length(m, 10, 0.5, &n), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_epochs_length(m, 2000000000, 1e6, &n), GENESIS_ERR_INVALID_ARG);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_epochs_length(m, 2000, 3, &n), GENESIS_ERR_UNSUPPORTED);
    genesis_model_free(m);
    genesis_ctx_free(ctx);
}
END_TEST

START_TEST(test_after_fit_on_fitted_model) {
    genesis_ctx *ctx;
    genesis_table *t;
    genesis_model *m;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/adult_sample.csv", GEN_SOURCE_DIR);
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    genesis_ctx_set_threads(ctx, 1);
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, &t), GENESIS_OK);
    for (int kind = GENESIS_MODEL_CTGAN; kind <= GENESIS_MODEL_TVAE; kind++) {
        ck_assert_int_eq(genesis_model_create(ctx, (genesis_model_kind)kind, &m), GENESIS_OK);
        genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
        genesis_model_set_param(m, GENESIS_P_GEN_DIM, 16);
        genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 8);
        ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
        genesis_param_info pi;
        for (int p = 0; genesis_param_get_info((genesis_param)p, (genesis_model_kind)kind, &pi) == GENESIS_OK; p++) {
            if (!(pi.models & GENESIS_MODEL_BIT(kind))) continue;
            genesis_status st = genesis_model_set_param(m, (genesis_param)p, pi.def);
            ck_assert_int_eq(st, pi.after_fit ? GENESIS_OK : GENESIS_ERR_STATE);
        }
        genesis_model_free(m);
    }
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

static Suite *params_suite(void) {
    Suite *s = suite_create("params");
    TCase *tc = tcase_create("table");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_param_described);
    tcase_add_test(tc, test_kind_names);
    tcase_add_test(tc, test_kind_info);
    tcase_add_test(tc, test_set_param_follows_table);
    tcase_add_test(tc, test_after_fit_on_fitted_model);
    tcase_add_test(tc, test_default_kind_and_epochs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(params_suite()); }
