/*
 * test_sync_count.c — how often CTGAN and TVAE training wait for the GPU, counted by the
 * emulated CUDA runtime (docs/cuda.md, "Synchronisations per training step" and "The
 * emulated CUDA runtime"): the module's genesis_cuda_module_emu_stats counts every stream,
 * device and event synchronisation and every synchronous copy. A fit of data/adult_sample.csv
 * (2,000 rows) through the public API on the emulated GPU must:
 *   - cost the same number of synchronisations at batch 250 as at batch 500 (twice the
 *     steps): nothing waits per step;
 *   - cost at most GEN_SYNCS_PER_EPOCH (one) more for every further epoch (the ledger read of
 *     ctgan_epoch_end / tvae_epoch_end; uploads wait for nothing).
 * DDPM sampling (docs/ddpm.md §5) runs its whole reverse chain on the device: sampling the
 * same rows with 10 and with 50 reverse steps must cost the same synchronisations (a batch
 * is read back once, at its end; test_ddpm_sample_syncs).
 * TimeGAN (models/timegan.c, docs/timegan.md §7) waits once per progress point (every
 * log_every iterations and each phase's last), not per update step: a fit with one progress
 * point per phase costs the same at 4 and at 8 iterations per phase, and one more point per
 * phase costs at most GEN_TG_SYNCS_PER_REPORT more per point (test_timegan_syncs).
 * The host submissions of a GRU layer and of a TimeGAN joint iteration are counted and held
 * under a ceiling (test_timegan_launches).
 * And device discovery creates no CUDA context (test_discovery_contexts).
 * Runs only on the emulator (GENESIS_CUDA_EMULATOR=1 and GENESIS_CUDA_MODULE, as the
 * *_emu CTest entry sets them); exits 77 otherwise. CK_NOFORK, like the other CUDA suites.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "genesis/genesis.h"
#include "backend.h"
#include "timegan.h"
#include "test_util.h"

#define GEN_SYNCS_PER_EPOCH 1
#define GEN_TG_SYNCS_PER_REPORT 1 /* timegan_sync's one download */

typedef int (*stats_fn)(unsigned long long *out, int cap);

static stats_fn sc_stats(void) {
    const char *path = getenv("GENESIS_CUDA_MODULE");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL; /* loaded by the library */
    stats_fn f = NULL;
    if (h) *(void **)&f = dlsym(h, "genesis_cuda_module_emu_stats");
    return f;
}

/* A context on the emulated cuda:0 (seed 1, one thread) and data/adult_sample.csv */
static void sc_open(genesis_ctx **ctx, genesis_table **t) {
    ck_assert_int_eq(genesis_ctx_create(ctx), GENESIS_OK);
    genesis_ctx_set_seed(*ctx, 1);
    genesis_ctx_set_threads(*ctx, 1);
    ck_assert_int_eq(genesis_ctx_set_device(*ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    ck_assert_msg(genesis_table_read_csv(*ctx, tu_path("data/adult_sample.csv"), &co, t) ==
                      GENESIS_OK, "%s", genesis_errmsg(*ctx));
}

/* Synchronisations of one fit (counter 0 of genesis_cuda_module_emu_stats). */
static unsigned long long sc_fit(genesis_model_kind kind, int epochs, int batch) {
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    sc_open(&ctx, &t);
    ck_assert_int_eq(genesis_model_create(ctx, kind, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, batch), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs), GENESIS_OK);
    stats_fn f = sc_stats();
    unsigned long long before[1] = {0}, after[1] = {0};
    ck_assert_msg(f != NULL, "genesis_cuda_module_emu_stats not found in %s",
                  getenv("GENESIS_CUDA_MODULE"));
    f(before, 1);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "fit: %s",
                  genesis_errmsg(ctx));
    f(after, 1);
    ck_assert_str_eq(genesis_ctx_device_name(ctx), "cuda:0");
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return after[0] - before[0];
}

static void sc_check(genesis_model_kind kind, const char *name) {
    unsigned long long e1 = sc_fit(kind, 1, 500), e1s = sc_fit(kind, 1, 250);
    unsigned long long e2 = sc_fit(kind, 2, 500);
    printf("%s: synchronisations: 1 epoch batch 500: %llu, batch 250: %llu; 2 epochs: %llu\n",
           name, e1, e1s, e2);
    ck_assert_msg(e1s == e1, "%s waits per step: %llu synchronisations at batch 250 (8 steps), "
                  "%llu at batch 500 (4 steps)", name, e1s, e1);
    ck_assert_msg(e2 >= e1 && e2 - e1 <= GEN_SYNCS_PER_EPOCH,
                  "%s: %llu synchronisations for one more epoch (at most %d)", name, e2 - e1,
                  GEN_SYNCS_PER_EPOCH);
}

/* Device discovery creates no CUDA context (docs/cuda.md, "Device discovery"): main()
 * listed every emulated GPU (the CTest entry makes 3); then a fit on cuda:0 makes one.
 * (Discovery used to call cudaSetDevice + cudaMemGetInfo on each GPU: 3 contexts.) */
#define SC_STAT_CONTEXTS 10 /* GEN_CUEMU_STAT_CONTEXTS (tests/cuemu/cuemu_internal.h) */
static unsigned long long g_ctx_after_discovery = ~0ull;
static int g_ndev;

START_TEST(test_discovery_contexts) {
    printf("contexts after listing %d GPUs: %llu\n", g_ndev, g_ctx_after_discovery);
    ck_assert_msg(g_ctx_after_discovery == 0, "listing %d GPUs created %llu CUDA contexts",
                  g_ndev, g_ctx_after_discovery);
    sc_fit(GENESIS_MODEL_TVAE, 1, 500);
    unsigned long long st[SC_STAT_CONTEXTS + 1] = {0};
    ck_assert_int_gt(sc_stats()(st, SC_STAT_CONTEXTS + 1), SC_STAT_CONTEXTS);
    ck_assert_msg(st[SC_STAT_CONTEXTS] == 1, "a fit on cuda:0 made %llu contexts",
                  st[SC_STAT_CONTEXTS]);
}
END_TEST

static int sc_sink(const genesis_batch *b, void *user) {
    (void)b;
    ++*(int *)user;
    return 0;
}

/* Synchronisations of sampling n rows with `steps` reverse steps from the fitted DDPM m. */
static unsigned long long sc_ddpm_sample(genesis_ctx *ctx, genesis_model *m, int steps, int64_t n,
                                         int *batches) {
    unsigned long long before[1] = {0}, after[1] = {0};
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, steps), GENESIS_OK);
    *batches = 0;
    sc_stats()(before, 1);
    genesis_status st = genesis_model_sample(m, n, sc_sink, batches);
    sc_stats()(after, 1);
    ck_assert_msg(st == GENESIS_OK, "sample: %s", genesis_errmsg(ctx));
    return after[0] - before[0];
}

START_TEST(test_ddpm_sample_syncs) {
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    sc_open(&ctx, &t);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 128), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32), GENESIS_OK);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "fit: %s",
                  genesis_errmsg(ctx));
    ck_assert_str_eq(genesis_ctx_device_name(ctx), "cuda:0");
    int b10 = 0, b50 = 0;
    /* a sampling group of 256 rows (a GPU's default, 16,384, takes minutes on the emulator),
     * not the training batch: the sampling network that shares the weights */
    setenv("GENESIS_DDPM_SAMPLE_ROWS", "256", 1);
    unsigned long long s10 = sc_ddpm_sample(ctx, m, 10, 256, &b10);
    unsigned long long s50 = sc_ddpm_sample(ctx, m, 50, 256, &b50);
    printf("ddpm sampling of 256 rows: synchronisations: 10 steps: %llu, 50 steps: %llu "
           "(%d and %d batches)\n", s10, s50, b10, b50);
    ck_assert_int_gt(b10, 0);
    ck_assert_int_eq(b10, b50);
    ck_assert_msg(s50 == s10, "ddpm sampling waits per reverse step: %llu synchronisations with "
                  "50 steps, %llu with 10", s50, s10);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* Synchronisations of a TimeGAN fit on the emulated GPU (timegan_fit directly, so that the
 * progress interval is the test's): 40 random sequences of 8 steps x 3 features, batch 16,
 * hidden 8, 2 layers, `iters` iterations per phase, a progress point every `every`. With
 * `out`, the fitted parameters (malloc'ed) and their count; `cpu`: the fit on the CPU. */
static unsigned long long sc_timegan(int iters, int every, int cpu, float **out, size_t *count) {
    genesis_ctx *ctx = NULL;
    gen_backend *be = NULL;
    timegan *t = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_status bst = cpu ? gen_backend_cpu_create(ctx, 1, &be) : gen_backend_cuda_create(ctx, 0, &be);
    ck_assert_msg(bst == GENESIS_OK, "%s", genesis_errmsg(ctx));
    timegan_config cfg = {16, 8, 3, 8, 2, 1e-3f, 1.0f, 1};
    ck_assert_int_eq(timegan_create(ctx, be, &cfg, &t), GENESIS_OK);
    ck_assert_int_eq(timegan_init_weights(t, 5), GENESIS_OK);
    t->seed = 5;
    float *x = malloc(40 * 8 * 3 * sizeof(float));
    ck_assert(x);
    tu_fill_uniform(x, 40 * 8 * 3, 0, 1, 7);
    stats_fn f = sc_stats();
    ck_assert(f != NULL);
    unsigned long long before[1] = {0}, after[1] = {0};
    f(before, 1);
    ck_assert_msg(timegan_fit(t, x, 40, iters, every, NULL, NULL) == GENESIS_OK, "fit: %s",
                  genesis_errmsg(ctx));
    f(after, 1);
    free(x);
    if (out) {
        *count = t->count;
        *out = malloc(t->count * sizeof(float));
        ck_assert(*out);
        be->ops->download(be, *out, t->params, t->count * sizeof(float));
    }
    timegan_free(t);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
    return after[0] - before[0];
}

START_TEST(test_timegan_syncs) {
    float *pg = NULL, *pc = NULL;
    size_t ng = 0, nc = 0;
    unsigned long long a = sc_timegan(4, 4, 0, NULL, NULL), b = sc_timegan(8, 8, 0, &pg, &ng);
    unsigned long long c = sc_timegan(8, 4, 0, NULL, NULL);
    printf("timegan: synchronisations: 4 iterations per phase, 1 report each: %llu; 8 "
           "iterations, 1 report: %llu; 8 iterations, 2 reports: %llu\n", a, b, c);
    ck_assert_msg(a == b, "TimeGAN waits per iteration: %llu synchronisations for 8 iterations "
                  "per phase, %llu for 4 (one progress point per phase each)", b, a);
    ck_assert_msg(c >= b && c - b <= 3 * GEN_TG_SYNCS_PER_REPORT,
                  "TimeGAN: %llu synchronisations for one more progress point per phase (at most "
                  "%d)", c - b, 3 * GEN_TG_SYNCS_PER_REPORT);
    /* the same fit on the CPU: the device path (losses, ledger, D gate, batches gathered from
     * chunks of ids) trains the same network */
    sc_timegan(8, 8, 1, &pc, &nc);
    ck_assert(ng == nc && ng > 0);
    double num = 0, den = 0;
    for (size_t i = 0; i < ng; i++) {
        num += ((double)pg[i] - pc[i]) * ((double)pg[i] - pc[i]);
        den += (double)pc[i] * pc[i];
    }
    printf("timegan: parameters after 3 x 8 iterations, emulated GPU vs CPU: NMSE %.3e\n", num / den);
    ck_assert_msg(num <= 1e-8 * den, "TimeGAN on the emulated GPU and on the CPU: NMSE %g", num / den);
    free(pg);
    free(pc);
}
END_TEST

/* Host submissions (kernel and cuBLAS launches, async copies and memsets, graph launches:
 * GEN_CUEMU_STAT_HOST_LAUNCHES, _HOST_COPIES, _GRAPH_LAUNCHES) since `before`. */
enum { SC_ST_HOST_LAUNCHES = 11, SC_ST_N = 14 };
static unsigned long long sc_submits(const unsigned long long *before, unsigned long long *now) {
    unsigned long long st[SC_ST_N] = {0};
    ck_assert_int_ge(sc_stats()(st, SC_ST_N), SC_ST_N);
    unsigned long long n = st[SC_ST_HOST_LAUNCHES] + st[SC_ST_HOST_LAUNCHES + 1] +
                           st[SC_ST_HOST_LAUNCHES + 2];
    unsigned long long d = before ? n - *before : n;
    if (now) *now = n;
    return d;
}

/* The GRU's launches (cuda/gru.cu, docs/timegan.md §9): the recurrence of a layer is one
 * kernel per direction (k_gru_fwd_seq, k_gru_bwd_seq), so a layer's forward is that, the bias
 * rows and the input GEMMs (4), and its backward that, the input and weight GEMMs and the
 * bias column sums after the loop (9, 10 with h0): the counts do not grow with T; and the
 * submissions of one joint-phase iteration of TimeGAN at the paper's network sizes (T 24,
 * hidden 24, 3 layers, 5 features; batch 8 to keep the emulator fast: launches do not
 * depend on it), printed for docs/timegan.md and held under a ceiling. A fit replays each
 * phase's iteration as one CUDA graph (test_cuda_graphs' test_timegan_graphs); these are the
 * submissions of an issued iteration (GENESIS_CUDA_GRAPHS=0, and each phase's first). */
#define SC_TG_GRU_FWD 4
#define SC_TG_GRU_BWD 10
#define SC_TG_SUBMITS_PER_JOINT 750 /* 714 measured; 4891 with a GEMM and a kernel per time
                                       step, 8989 before that (GRU forward 72 and backward
                                       145 at T 24, E's forward twice per G, E pair) */
START_TEST(test_timegan_launches) {
    genesis_ctx *ctx = NULL;
    gen_backend *be = NULL;
    timegan *t = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_status bst = gen_backend_cuda_create(ctx, 0, &be);
    ck_assert_msg(bst == GENESIS_OK, "%s", genesis_errmsg(ctx));
    const int B = 8, T = 24, F = 5, H = 24, L = 3;
    timegan_config cfg = {B, T, F, H, L, 1e-3f, 1.0f, 1};
    ck_assert_int_eq(timegan_create(ctx, be, &cfg, &t), GENESIS_OK);
    ck_assert_int_eq(timegan_init_weights(t, 5), GENESIS_OK);
    float *x = malloc((size_t)B * T * F * sizeof(float));
    ck_assert(x);
    tu_fill_uniform(x, (size_t)B * T * F, 0, 1, 7);
    be->ops->upload(be, t->X, x, (size_t)B * T * F * sizeof(float));
    tu_fill_uniform(x, (size_t)B * T * F, 0, 1, 8);
    be->ops->upload(be, t->Z, x, (size_t)B * T * F * sizeof(float));
    free(x);
    /* one GRU layer (the embedder's second), forward and backward with weight gradients */
    gen_seq_net *E = &t->net[TG_E];
    gen_seq_run *rE = &t->run[TG_E];
    unsigned long long s0;
    sc_submits(NULL, &s0);
    be->ops->gru_forward(be, rE->y[1], rE->save[1], rE->y[0], NULL, E->W[1], E->b[1], B, T, H, H);
    unsigned long long f1 = sc_submits(&s0, &s0);
    be->ops->gru_backward(be, t->dH, NULL, E->gW[1], E->gb[1], t->scratch, t->dSout, rE->y[0], NULL,
                          rE->y[1], rE->save[1], E->W[1], B, T, H, H);
    unsigned long long b1 = sc_submits(&s0, &s0);
    /* a joint iteration as timegan_fit runs it (after one to warm up), without the batch
     * gathers (two submissions per batch, three batches) */
    unsigned long long it[3];
    for (int k = 0; k < 3; k++) { /* k = 2: E's forward run again in the E steps */
        for (int j = 0; j < 2; j++) {
            timegan_fit_step(t, TG_STEP_G, B, 0);
            timegan_fit_step(t, TG_STEP_E, B, k < 2);
        }
        timegan_fit_step(t, TG_STEP_D, B, 0);
        it[k] = sc_submits(&s0, &s0);
    }
    /* phases 1 and 2: one step per iteration */
    timegan_fit_step(t, TG_STEP_E0, B, 0);
    unsigned long long p1 = sc_submits(&s0, &s0);
    timegan_fit_step(t, TG_STEP_SUP, B, 0);
    unsigned long long p2 = sc_submits(&s0, &s0);
    ck_assert_int_eq(timegan_sync(t, 3, 3), GENESIS_OK);
    printf("timegan launches: one GRU layer (T %d): forward %llu, backward %llu submissions; "
           "one joint iteration: %llu (warm-up %llu; %llu with E's forward repeated), an "
           "embedding iteration %llu, a supervised one %llu, plus 2 per batch and 2 per "
           "iteration in a fit (select_block, step_advance)\n", T, f1, b1,
           it[1], it[0], it[2], p1, p2);
    ck_assert_msg(f1 <= SC_TG_GRU_FWD, "GRU forward: %llu submissions for %d steps", f1, T);
    ck_assert_msg(b1 <= SC_TG_GRU_BWD, "GRU backward: %llu submissions for %d steps", b1, T);
    ck_assert_msg(it[1] <= SC_TG_SUBMITS_PER_JOINT,
                  "a TimeGAN joint iteration: %llu submissions (at most %d)", it[1],
                  SC_TG_SUBMITS_PER_JOINT);
    timegan_free(t);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}
END_TEST

START_TEST(test_ctgan_syncs) { sc_check(GENESIS_MODEL_CTGAN, "ctgan"); }
END_TEST

START_TEST(test_tvae_syncs) { sc_check(GENESIS_MODEL_TVAE, "tvae"); }
END_TEST

int main(void) {
    const char *emu = getenv("GENESIS_CUDA_EMULATOR");
    genesis_device_info dev[4];
    int n = 0;
    char why[256] = "";
    if (!emu || strcmp(emu, "1") != 0) {
        printf("test_sync_count: skipped: counts come from the emulated CUDA runtime "
               "(GENESIS_CUDA_EMULATOR=1)\n");
        return 77;
    }
    genesis_detect_devices(dev, 4, &n, why, sizeof why);
    if (n == 0) {
        printf("test_sync_count: skipped: %s\n", why);
        return 77;
    }
    g_ndev = n;
    stats_fn f = sc_stats();
    unsigned long long st[SC_STAT_CONTEXTS + 1] = {0};
    if (f && f(st, SC_STAT_CONTEXTS + 1) > SC_STAT_CONTEXTS) g_ctx_after_discovery = st[SC_STAT_CONTEXTS];
    Suite *s = suite_create("sync_count");
    TCase *tc = tcase_create("cuda");
    tcase_set_tags(tc, "cuda");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_discovery_contexts); /* first: contexts are counted per process */
    tcase_add_test(tc, test_ctgan_syncs);
    tcase_add_test(tc, test_tvae_syncs);
    tcase_add_test(tc, test_ddpm_sample_syncs);
    tcase_add_test(tc, test_timegan_syncs);
    tcase_add_test(tc, test_timegan_launches);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
