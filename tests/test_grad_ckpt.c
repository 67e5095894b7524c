/*
 * test_grad_ckpt.c — gradient checkpointing (GENESIS_P_GRADIENT_CHECKPOINTING,
 * docs/memory.md "Gradient checkpointing"):
 *   - CTGAN (FP32 and BF16 storage), TVAE (FP32 and BF16), DDPM (with and without a class
 *     column): a fit with the setting and one without, same seed, write the same model file
 *     bytes and end with the same training state (weights, batch-norm statistics, Adam
 *     moments: gen_model_state), bit for bit; so the recomputed blocks equal the stored
 *     ones and batch norm's running statistics are updated once per step; the fitted
 *     networks then generate the same rows;
 *   - the memory model: the fit's activation term is smaller with the setting, by at least
 *     the buffers it shares (a lower bound per model from its layer widths), and the other
 *     terms are unchanged;
 *   - with --epsilon (DP-SGD, which reads every activation) the setting is refused.
 * The table is the first 240 rows of data/adult_sample.csv with tiny networks. With
 * GENESIS_CUDA_EMULATOR=1 (CTest's *_emu) the fits run on the emulated CUDA runtime.
 */
#include <string.h>
#include <unistd.h>

#include "genesis/genesis.h"
#include "model.h"
#include "test_util.h"

#define ROWS 240

static char g_csv[256];
static int g_cuda; /* fits on the emulated CUDA runtime */

static int gc_write_table(void) {
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r");
    snprintf(g_csv, sizeof g_csv, "/tmp/genesis_grad_ckpt_%ld.csv", (long)getpid());
    FILE *out = in ? fopen(g_csv, "w") : NULL;
    if (!in || !out) {
        if (in) fclose(in);
        return 1;
    }
    char line[8192];
    for (int i = 0; i <= ROWS && fgets(line, sizeof line, in); i++) fputs(line, out);
    fclose(in);
    return fclose(out) != 0;
}

typedef struct gc_run {
    genesis_ctx *ctx;
    genesis_table *t;
    genesis_model *m;
} gc_run;

/* A model of `kind` with tiny networks, not fitted yet. */
static void gc_make(gc_run *r, genesis_model_kind kind, int prec, int ckpt, const char *target) {
    ck_assert_int_eq(genesis_ctx_create(&r->ctx), GENESIS_OK);
    genesis_ctx_set_seed(r->ctx, 11);
    genesis_ctx_set_threads(r->ctx, 1);
    if (g_cuda) ck_assert_int_eq(genesis_ctx_set_device(r->ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    ck_assert_msg(genesis_table_read_csv(r->ctx, g_csv, &co, &r->t) == GENESIS_OK, "%s",
                  genesis_errmsg(r->ctx));
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(r->ctx, kind, &m), GENESIS_OK);
    r->m = m;
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 40), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 8), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 16), GENESIS_OK);
    if (kind == GENESIS_MODEL_DDPM) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 12), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_NUM_LAYERS, 3), GENESIS_OK);
        if (target) ck_assert_int_eq(genesis_model_set_target(m, target), GENESIS_OK);
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 2), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PRECISION, prec), GENESIS_OK);
    }
    if (kind == GENESIS_MODEL_CTGAN) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIS_DIM, 16), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PAC, 4), GENESIS_OK);
    }
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, ckpt),
                     GENESIS_OK);
}

static void gc_free(gc_run *r) {
    genesis_model_free(r->m);
    genesis_table_free(r->t);
    genesis_ctx_free(r->ctx);
}

/* Fits with and without the setting: the same file bytes and training state. */
static void gc_same_model(genesis_model_kind kind, int prec, const char *target) {
    char path[2][256], csv[2][256];
    float *state[2];
    size_t n[2];
    for (int ckpt = 0; ckpt < 2; ckpt++) {
        gc_run r;
        gc_make(&r, kind, prec, ckpt, target);
        ck_assert_msg(genesis_model_fit(r.m, r.t, NULL, NULL) == GENESIS_OK, "fit: %s",
                      genesis_errmsg(r.ctx));
        ck_assert_int_eq(gen_model_state(r.m, &state[ckpt], &n[ckpt], NULL, NULL), GENESIS_OK);
        snprintf(path[ckpt], sizeof path[ckpt], "/tmp/genesis_grad_ckpt_%ld_%d.gen", (long)getpid(),
                 ckpt);
        ck_assert_int_eq(genesis_model_save(r.m, path[ckpt]), GENESIS_OK);
        /* the fitted network (checkpointing's buffers) generates too */
        snprintf(csv[ckpt], sizeof csv[ckpt], "/tmp/genesis_grad_ckpt_%ld_%d.csv", (long)getpid(),
                 ckpt);
        ck_assert_msg(genesis_model_sample_csv(r.m, 300, csv[ckpt]) == GENESIS_OK, "%s",
                      genesis_errmsg(r.ctx));
        double v = -1;
        ck_assert_int_eq(genesis_model_get_param(r.m, GENESIS_P_GRADIENT_CHECKPOINTING, &v),
                         GENESIS_OK);
        ck_assert(v == ckpt);
        gc_free(&r);
    }
    ck_assert_uint_eq(n[0], n[1]);
    ck_assert_msg(memcmp(state[0], state[1], n[0] * sizeof(float)) == 0,
                  "kind %d precision %d: the training state differs with checkpointing", kind,
                  prec);
    tu_assert_same_files(path[0], path[1]);
    tu_assert_same_files(csv[0], csv[1]);
    /* the setting is not stored: a loaded model has the default */
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    ck_assert_int_eq(genesis_model_load(ctx, path[1], &m), GENESIS_OK);
    double v = -1;
    ck_assert_int_eq(genesis_model_get_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, &v), GENESIS_OK);
    ck_assert(v == 0);
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    for (int i = 0; i < 2; i++) {
        free(state[i]);
        unlink(path[i]);
        unlink(csv[i]);
    }
}

START_TEST(ctgan_same_bytes) {
    gc_same_model(GENESIS_MODEL_CTGAN, GENESIS_PRECISION_FP32, NULL);
    gc_same_model(GENESIS_MODEL_CTGAN, GENESIS_PRECISION_BF16, NULL);
}
END_TEST

START_TEST(tvae_same_bytes) {
    gc_same_model(GENESIS_MODEL_TVAE, GENESIS_PRECISION_FP32, NULL);
    gc_same_model(GENESIS_MODEL_TVAE, GENESIS_PRECISION_BF16, NULL);
}
END_TEST

START_TEST(ddpm_same_bytes) {
    gc_same_model(GENESIS_MODEL_DDPM, 0, NULL);
    gc_same_model(GENESIS_MODEL_DDPM, 0, "income");
}
END_TEST

/* The fit's estimate with and without the setting at batch B. */
static void gc_estimate(genesis_model_kind kind, int B, const char *target,
                        genesis_memory_estimate e[2]) {
    for (int ckpt = 0; ckpt < 2; ckpt++) {
        gc_run r;
        gc_make(&r, kind, 0, ckpt, target);
        ck_assert_int_eq(genesis_model_set_param(r.m, GENESIS_P_BATCH_SIZE, B), GENESIS_OK);
        ck_assert_msg(genesis_estimate_memory(r.m, r.t, GENESIS_WORKLOAD_FIT, 0, &e[ckpt]) ==
                          GENESIS_OK,
                      "%s", genesis_errmsg(r.ctx));
        gc_free(&r);
    }
    ck_assert_uint_eq(e[0].parameters, e[1].parameters);
    ck_assert_uint_eq(e[0].optimizer, e[1].optimizer);
    ck_assert_uint_eq(e[0].encoded_data, e[1].encoded_data);
    ck_assert_uint_lt(e[1].activations, e[0].activations);
}

START_TEST(estimate_counts_the_saving) {
    genesis_memory_estimate e[2];
    const uint64_t B = 400, g = 16, E = 8; /* gc_make's widths */
    /* CTGAN: block 2's pre-activation, batch-norm output and ReLU output (3 B g floats) go,
     * the scratch running statistics (2 g) come */
    gc_estimate(GENESIS_MODEL_CTGAN, (int)B, NULL, e);
    ck_assert_uint_eq(e[0].activations - e[1].activations, 4 * (3 * B * g - 2 * g));
    /* TVAE: the encoder's four activations and four gradients (8 B h) */
    gc_estimate(GENESIS_MODEL_TVAE, (int)B, NULL, e);
    ck_assert_uint_eq(e[0].activations - e[1].activations, 4 * 8 * B * g);
    /* DDPM, 3 hidden layers of width H = 16 and E = 8: the embeddings' 4 B E and the
     * pre-activations' 3 B H become one buffer of B max(4 E, H) */
    gc_estimate(GENESIS_MODEL_DDPM, (int)B, NULL, e);
    ck_assert_uint_eq(e[0].activations - e[1].activations, 4 * (4 * B * E + 3 * B * g - B * 32));
}
END_TEST

START_TEST(dp_refuses_checkpointing) {
    gc_run r;
    gc_make(&r, GENESIS_MODEL_TVAE, 0, 1, NULL);
    ck_assert_int_eq(genesis_model_set_param(r.m, GENESIS_P_EPSILON, 5), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(r.m, r.t, NULL, NULL), GENESIS_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(genesis_errmsg(r.ctx), "gradient-checkpointing") != NULL, "%s",
                  genesis_errmsg(r.ctx));
    gc_free(&r);
}
END_TEST

int main(void) {
    if (gc_write_table()) {
        printf("test_grad_ckpt: cannot read data/adult_sample.csv or write %s\n", g_csv);
        return 1;
    }
    const char *emu = getenv("GENESIS_CUDA_EMULATOR");
    g_cuda = emu && strcmp(emu, "1") == 0;
    Suite *s = suite_create("grad_ckpt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, ctgan_same_bytes);
    tcase_add_test(tc, tvae_same_bytes);
    tcase_add_test(tc, ddpm_same_bytes);
    if (!g_cuda) {
        tcase_add_test(tc, estimate_counts_the_saving);
        tcase_add_test(tc, dp_refuses_checkpointing);
    }
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    unlink(g_csv);
    return rc;
}
