/*
 * test_device_defaults.c — the defaults a model kind gives on a GPU (the vtable's gpu_params;
 * DDPM: 30,000 iterations of 4,096 rows, docs/ddpm.md §7) against those on the CPU
 * (5,000 of 256), through the public API:
 *   - a model created on the CPU has the CPU defaults, as genesis_param_default reports them;
 *   - on a GPU (the emulated runtime's cuda:0 under the *_emu CTest entry, or a real one) the
 *     GPU defaults, for DDPM only (CTGAN keeps its batch of 500);
 *   - a setting the caller gives wins, whatever the device;
 *   - differential privacy (epsilon > 0) brings back the CPU budget for the settings the
 *     caller has not given, and epsilon 0 the GPU's again.
 * Without a GPU and without the emulator, the GPU part is skipped (the CPU part still runs).
 */
#include <string.h>

#include "genesis/genesis.h"
#include "test_util.h"

static double param(genesis_model *m, genesis_param p) {
    double v = -1;
    ck_assert_int_eq(genesis_model_get_param(m, p, &v), GENESIS_OK);
    return v;
}

static double cpu_default(genesis_model_kind k, genesis_param p) {
    double v = -1;
    ck_assert_int_eq(genesis_param_default(k, p, &v), GENESIS_OK);
    return v;
}

START_TEST(test_cpu_defaults) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    ck_assert_str_eq(genesis_ctx_device_name(ctx), "cpu");
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), cpu_default(GENESIS_MODEL_DDPM, GENESIS_P_ITERATIONS));
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), cpu_default(GENESIS_MODEL_DDPM, GENESIS_P_BATCH_SIZE));
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 5000);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), 256);
    /* DP on the CPU changes nothing */
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, 3), GENESIS_OK);
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 5000);
    genesis_model_free(m);
    genesis_ctx_free(ctx);
}
END_TEST

START_TEST(test_gpu_defaults) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    /* a CUDA request without a GPU falls back to the CPU (the model's backend says which) */
    if (genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, 0) != GENESIS_OK) {
        genesis_ctx_free(ctx);
        return;
    }
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    if (strncmp(genesis_ctx_device_name(ctx), "cuda", 4) != 0) { /* the CPU case is the test */
        genesis_model_free(m);
        genesis_ctx_free(ctx);
        return;
    }
    ck_assert_str_eq(genesis_ctx_device_name(ctx), "cuda:0");
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 30000);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), 4096);
    /* DP: the CPU's budget for both; the caller's batch then stays through epsilon 0 */
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, 3), GENESIS_OK);
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 5000);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), 256);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 512), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, 0), GENESIS_OK);
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 30000);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), 512);
    genesis_model_free(m);
    /* a given setting wins from the start */
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 700), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, 0), GENESIS_OK);
    ck_assert_double_eq(param(m, GENESIS_P_ITERATIONS), 700);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), 4096);
    genesis_model_free(m);
    /* the other kinds have no GPU defaults */
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_double_eq(param(m, GENESIS_P_BATCH_SIZE), cpu_default(GENESIS_MODEL_CTGAN, GENESIS_P_BATCH_SIZE));
    genesis_model_free(m);
    genesis_ctx_free(ctx);
}
END_TEST

int main(void) {
    Suite *s = suite_create("device_defaults");
    TCase *t = tcase_create("defaults");
    tcase_add_test(t, test_cpu_defaults);
    tcase_add_test(t, test_gpu_defaults);
    suite_add_tcase(s, t);
    return tu_run(s);
}
