/*
 * test_cuda_graphs.c — recorded training steps (CUDA graphs, docs/cuda.md "CUDA graphs") on
 * the emulated CUDA runtime:
 *   - the backend: a recorded step of random fills (offsets from the device step state),
 *     Adam with the count in device memory and the state's advance, replayed three times,
 *     equals the same operations issued three times, bit for bit; recording is off with
 *     GENESIS_CUDA_GRAPHS=0; an operation that would wait for the GPU, upload or allocate
 *     inside a recorded step fails with a message that says so (the emulator's capture
 *     rules, and the backend's own guard);
 *   - CTGAN and TVAE: a fit with graphs and one with GENESIS_CUDA_GRAPHS=0 end with
 *     bit-identical model state (gen_model_state: weights, batch-norm statistics, Adam
 *     moments), and the emulator's counters show what the host submits per step: one graph
 *     launch and no kernel launch with graphs, every kernel without;
 *   - TimeGAN: the same with one recorded iteration per phase (docs/timegan.md §9): graph and
 *     no-graph fits end with identical weights and Adam moments, and an iteration past the
 *     second of its phase is one graph launch and no kernel launch; a fit with graphs stopped
 *     with a checkpoint and continued ends with the uninterrupted fit's state;
 *   - kernels per step (docs/cuda.md, "Kernels per step"): CTGAN's, TVAE's and DDPM's
 *     within their budgets (CG_MAX_KERNELS_*), so that the fused step cannot creep back up;
 *   - FP16 training (docs/precision.md): the loss scale and the skip decision live in device
 *     memory, so a step recorded once replays them: with an overflow injected into a replayed
 *     step (GENESIS_FP16_INJECT_INF), graph and no-graph fits skip the same steps and end
 *     bit-identical.
 * The table is the first 240 rows of data/adult_sample.csv with tiny networks, so a fit is a
 * few seconds. CTest runs it under the forward and random:1 schedules (*_emu_*); without
 * GENESIS_CUDA_EMULATOR=1 it exits 77. CK_NOFORK, like the other CUDA suites.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "genesis/genesis.h"
#include "model.h"
#include "test_util.h"

/* The counters of genesis_cuda_module_emu_stats (GEN_CUEMU_STAT_*, tests/cuemu/cuemu_internal.h). */
enum { ST_KERNELS = 5, ST_HOST_LAUNCHES = 11, ST_HOST_COPIES, ST_GRAPH_LAUNCHES, ST_CAPTURED, ST_N };
#define ROWS 240
/* Kernels run on the device per training step at most (docs/cuda.md, "Kernels per step"; the
 * counts before the fused operations: CTGAN 99, TVAE 40, DDPM 27; with them 48, 27, 20; with
 * the bias and ReLU in cuBLASLt's epilogues (which GENESIS_CUDA_LT=0 undoes) and the losses
 * finished by their kernels' last block 44, 17, 13; DDPM then 15 with the batch's gather_rows
 * and ddpm_noise, which replaced the host's gather, draws and five uploads a step; then CTGAN
 * 35 and TVAE 14 with the ledger's sum in one kernel, Adam ending the step (adam_dev_end), and
 * CTGAN's real rows with their condition, the interpolates with their draws, the critic's pass
 * over fake|real|interpolates and its output layer's backward each in one) */
#define CG_MAX_KERNELS_CTGAN 35
#define CG_MAX_KERNELS_TVAE 14
#define CG_MAX_KERNELS_DDPM 15

typedef int (*stats_fn)(unsigned long long *out, int cap);

static stats_fn cg_stats(void) {
    const char *path = getenv("GENESIS_CUDA_MODULE");
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL; /* loaded by the library */
    stats_fn f = NULL;
    if (h) *(void **)&f = dlsym(h, "genesis_cuda_module_emu_stats");
    return f;
}

static void cg_read_stats(unsigned long long *st) {
    stats_fn f = cg_stats();
    ck_assert_msg(f != NULL, "genesis_cuda_module_emu_stats not found");
    ck_assert_int_ge(f(st, ST_N), ST_N);
}

static char g_csv[256];

/* The first ROWS rows of data/adult_sample.csv in a temporary file; 0 on success. */
static int cg_write_table(void) {
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r");
    snprintf(g_csv, sizeof g_csv, "/tmp/genesis_cuda_graphs_%ld.csv", (long)getpid());
    FILE *out = in ? fopen(g_csv, "w") : NULL;
    if (!in || !out) {
        printf("test_cuda_graphs: cannot read data/adult_sample.csv or write %s\n", g_csv);
        if (in) fclose(in);
        return 1;
    }
    char line[8192];
    for (int i = 0; i <= ROWS && fgets(line, sizeof line, in); i++) fputs(line, out);
    fclose(in);
    return fclose(out) != 0;
}

typedef struct fit_result {
    float *state;
    size_t n;
    unsigned long long d[ST_N]; /* counters over the fit */
    int64_t skipped;            /* steps the FP16 loss scaling skipped */
} fit_result;

static int g_prec; /* the precision cg_fit trains in (GENESIS_PRECISION_*) */

static void cg_fit(genesis_model_kind kind, int graphs, int epochs, int batch, fit_result *r) {
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    setenv("GENESIS_CUDA_GRAPHS", graphs ? "1" : "0", 1); /* read when the backend is made */
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_seed(ctx, 3);
    genesis_ctx_set_threads(ctx, 1);
    ck_assert_int_eq(genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    ck_assert_msg(genesis_table_read_csv(ctx, g_csv, &co, &t) == GENESIS_OK, "%s",
                  genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_create(ctx, kind, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, batch), GENESIS_OK);
    if (kind == GENESIS_MODEL_DDPM) { /* `epochs` counts optimiser steps (iterations) */
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, epochs), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 20), GENESIS_OK);
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PRECISION, g_prec), GENESIS_OK);
    }
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 8), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 16), GENESIS_OK);
    if (kind == GENESIS_MODEL_CTGAN) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIS_DIM, 16), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PAC, 4), GENESIS_OK);
    }
    unsigned long long s0[ST_N], s1[ST_N];
    cg_read_stats(s0);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "fit: %s",
                  genesis_errmsg(ctx));
    cg_read_stats(s1);
    ck_assert_str_eq(genesis_ctx_device_name(ctx), "cuda:0");
    for (int i = 0; i < ST_N; i++) r->d[i] = s1[i] - s0[i];
    ck_assert_int_eq(gen_model_state(m, &r->state, &r->n, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_skipped_steps(m, &r->skipped), GENESIS_OK);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unsetenv("GENESIS_CUDA_GRAPHS");
}

/* Per-epoch difference of a counter between a 2-epoch and a 1-epoch fit. */
static long long cg_epoch(const fit_result *e2, const fit_result *e1, int i) {
    return (long long)e2->d[i] - (long long)e1->d[i];
}

/* Graph and no-graph fits of one model: identical state; the counts per epoch of S steps,
 * of which `full` are full batches (replayed) and the rest one shorter last batch; at most
 * max_kernels kernels run on the device per step (docs/cuda.md, "Kernels per step": the
 * fused operations keep the count down, and this keeps it from creeping back up). */
static void cg_check_model(genesis_model_kind kind, const char *name, int batch, int S, int full,
                           int max_kernels) {
    fit_result g1, g2, n1, n2;
    cg_fit(kind, 1, 1, batch, &g1);
    cg_fit(kind, 1, 2, batch, &g2);
    cg_fit(kind, 0, 1, batch, &n1);
    cg_fit(kind, 0, 2, batch, &n2);
    ck_assert_int_eq((long long)g2.n, (long long)n2.n);
    size_t diff = 0, first = 0;
    for (size_t i = g2.n; i-- > 0;)
        if (memcmp(&g2.state[i], &n2.state[i], sizeof(float)) != 0) {
            diff++;
            first = i;
        }
    ck_assert_msg(diff == 0,
                  "%s: %zu of %zu state values differ between the fit with CUDA graphs and "
                  "without; first at %zu: %.9g vs %.9g",
                  name, diff, g2.n, first, (double)g2.state[first], (double)n2.state[first]);
    long long gl = cg_epoch(&g2, &g1, ST_HOST_LAUNCHES), gc = cg_epoch(&g2, &g1, ST_HOST_COPIES),
              gg = cg_epoch(&g2, &g1, ST_GRAPH_LAUNCHES);
    long long nl = cg_epoch(&n2, &n1, ST_HOST_LAUNCHES), nc = cg_epoch(&n2, &n1, ST_HOST_COPIES),
              ng = cg_epoch(&n2, &n1, ST_GRAPH_LAUNCHES);
    printf("%s: one epoch of %d steps (%d full): with graphs %lld graph launches, %lld kernel "
           "and cuBLAS launches, %lld copies/memsets; without: %lld, %lld, %lld; host "
           "submissions per step %.2f with graphs, %.2f without; kernels run per epoch %lld "
           "and %lld; work captured %llu\n",
           name, S, full, gg, gl, gc, ng, nl, nc, (double)(gg + gl + gc) / S,
           (double)(ng + nl + nc) / S, cg_epoch(&g2, &g1, ST_KERNELS),
           cg_epoch(&n2, &n1, ST_KERNELS), g2.d[ST_CAPTURED]);
    /* with graphs every full step is one graph launch (the first step of the fit is issued,
     * the second recorded and launched) */
    ck_assert_int_eq(gg, full);
    ck_assert_int_eq((long long)g2.d[ST_GRAPH_LAUNCHES], 2LL * full - 1);
    ck_assert_msg(g2.d[ST_CAPTURED] > 20, "%s: the recorded step holds %llu operations", name,
                  g2.d[ST_CAPTURED]);
    ck_assert_int_eq(ng, 0);
    ck_assert_int_eq((long long)n2.d[ST_CAPTURED], 0);
    /* no kernel is launched for a full step; a shorter last batch is issued as it is: the
     * launched full step is that plus select_block (one kernel) */
    if (full == S) {
        ck_assert_int_eq(gl, 0);
    } else {
        ck_assert_int_eq(gl * S + full, nl);
    }
    ck_assert_msg(nl >= 20LL * S, "%s: only %lld launches per epoch without graphs", name, nl);
    /* copies and memsets: the epoch's own four (the chunk and step-state uploads, the ledger
     * read and reset), plus P per issued step (zeros and 2-D copies, recorded in a graph):
     * without graphs 4 + S P, with graphs 4 + (S - full) P */
    ck_assert_msg((nc - 4) % S == 0 && (nc - 4) * (S - full) == (gc - 4) * S,
                  "%s: %lld copies per epoch with graphs, %lld without", name, gc, nc);
    ck_assert_msg(nc > 4 + S, "%s: %lld copies per epoch without graphs", name, nc);
    /* the same kernels run either way, and no more than the step's budget */
    ck_assert_int_eq(cg_epoch(&g2, &g1, ST_KERNELS), cg_epoch(&n2, &n1, ST_KERNELS));
    ck_assert_msg(cg_epoch(&g2, &g1, ST_KERNELS) <= (long long)max_kernels * S,
                  "%s: %lld kernels in an epoch of %d steps, more than %d per step", name,
                  cg_epoch(&g2, &g1, ST_KERNELS), S, max_kernels);
    free(g1.state);
    free(g2.state);
    free(n1.state);
    free(n2.state);
}

START_TEST(test_ctgan_graphs) {
    /* 240 rows, batch 40: 6 steps an epoch (CTGAN drops a last partial batch) */
    cg_check_model(GENESIS_MODEL_CTGAN, "ctgan", 40, ROWS / 40, ROWS / 40, CG_MAX_KERNELS_CTGAN);
}
END_TEST

START_TEST(test_tvae_graphs) {
    /* batch 50: 4 full steps and a last one of 40 rows */
    cg_check_model(GENESIS_MODEL_TVAE, "tvae", 50, 5, 4, CG_MAX_KERNELS_TVAE);
}
END_TEST

/* ---- TimeGAN: one recorded iteration per phase (docs/timegan.md §9) ---------------------- */

#define TG_SEQS 40
#define TG_T 6
static char g_seq_csv[256];

/* TG_SEQS sequences of TG_T steps, two features (noisy sines), id and t columns */
static void cg_write_sequences(void) {
    snprintf(g_seq_csv, sizeof g_seq_csv, "/tmp/genesis_cuda_graphs_seq_%ld.csv", (long)getpid());
    FILE *out = fopen(g_seq_csv, "w");
    ck_assert_msg(out != NULL, "cannot write %s", g_seq_csv);
    fputs("id,t,a,b\n", out);
    for (int i = 0; i < TG_SEQS; i++)
        for (int j = 0; j < TG_T; j++)
            fprintf(out, "%d,%d,%.4f,%.4f\n", i, j, sin(0.3 * i + 0.7 * j),
                    cos(0.11 * i * j) + 0.01 * (i % 7));
    ck_assert_int_eq(fclose(out), 0);
}

/* A TimeGAN fit of `iters` iterations per phase (batch 8, hidden 4, 2 layers), graphs on or
 * off: its state (every network's weights and Adam moments) and the counters over the fit. */
static void cg_fit_timegan(int graphs, int iters, fit_result *r) {
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    setenv("GENESIS_CUDA_GRAPHS", graphs ? "1" : "0", 1);
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_seed(ctx, 4);
    genesis_ctx_set_threads(ctx, 1);
    ck_assert_int_eq(genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    ck_assert_msg(genesis_table_read_csv(ctx, g_seq_csv, NULL, &t) == GENESIS_OK, "%s",
                  genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, iters), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, TG_T), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 4), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_NUM_LAYERS, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 8), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sequence_columns(m, "id", "t"), GENESIS_OK);
    unsigned long long s0[ST_N], s1[ST_N];
    cg_read_stats(s0);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "fit: %s",
                  genesis_errmsg(ctx));
    cg_read_stats(s1);
    for (int i = 0; i < ST_N; i++) r->d[i] = s1[i] - s0[i];
    ck_assert_int_eq(gen_model_state(m, &r->state, &r->n, NULL, NULL), GENESIS_OK);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unsetenv("GENESIS_CUDA_GRAPHS");
}

/* Graph and no-graph fits end bit-identical (weights of all five networks, the five Adams'
 * moments); with graphs an iteration of any phase past the second is one graph launch and
 * no kernel launch, and the same kernels run either way. Per iteration = the difference of
 * a fit of I2 and one of I1 iterations per phase, over 3 (I2 - I1) iterations. */
START_TEST(test_timegan_graphs) {
    const int I1 = 4, I2 = 6, n = 3 * (I2 - I1);
    cg_write_sequences();
    fit_result g1, g2, n1, n2;
    cg_fit_timegan(1, I1, &g1);
    cg_fit_timegan(1, I2, &g2);
    cg_fit_timegan(0, I1, &n1);
    cg_fit_timegan(0, I2, &n2);
    ck_assert_int_eq((long long)g2.n, (long long)n2.n);
    ck_assert_msg(g2.n > 100, "timegan: a state of %zu values", g2.n);
    size_t diff = 0, first = 0;
    for (size_t i = g2.n; i-- > 0;)
        if (memcmp(&g2.state[i], &n2.state[i], sizeof(float)) != 0) {
            diff++;
            first = i;
        }
    ck_assert_msg(diff == 0,
                  "timegan: %zu of %zu state values differ between the fit with CUDA graphs and "
                  "without; first at %zu: %.9g vs %.9g",
                  diff, g2.n, first, (double)g2.state[first], (double)n2.state[first]);
    long long gl = cg_epoch(&g2, &g1, ST_HOST_LAUNCHES), gg = cg_epoch(&g2, &g1, ST_GRAPH_LAUNCHES);
    long long nl = cg_epoch(&n2, &n1, ST_HOST_LAUNCHES), ng = cg_epoch(&n2, &n1, ST_GRAPH_LAUNCHES);
    long long gc = cg_epoch(&g2, &g1, ST_HOST_COPIES), nc = cg_epoch(&n2, &n1, ST_HOST_COPIES);
    printf("timegan: %d more iterations (%d per phase): with graphs %lld graph launches, %lld "
           "kernel and cuBLAS launches, %lld copies/memsets; without: %lld, %lld, %lld; kernels "
           "run %lld and %lld; work captured %llu (three phases' iterations)\n",
           n, I2 - I1, gg, gl, gc, ng, nl, nc, cg_epoch(&g2, &g1, ST_KERNELS),
           cg_epoch(&n2, &n1, ST_KERNELS), g2.d[ST_CAPTURED]);
    /* each phase: the first iteration issued, the second recorded and launched, the rest
     * replayed */
    ck_assert_int_eq(gg, n);
    ck_assert_int_eq((long long)g2.d[ST_GRAPH_LAUNCHES], 3LL * (I2 - 1));
    ck_assert_int_eq(gl, 0);
    ck_assert_int_eq(ng, 0);
    ck_assert_int_eq((long long)n2.d[ST_CAPTURED], 0);
    ck_assert_msg(g2.d[ST_CAPTURED] > 100, "timegan: the recorded iterations hold %llu operations",
                  g2.d[ST_CAPTURED]);
    ck_assert_msg(nl >= 100LL * n, "timegan: only %lld launches in %d iterations without graphs",
                  nl, n);
    ck_assert_msg(gc < nc, "timegan: %lld copies with graphs, %lld without", gc, nc);
    ck_assert_int_eq(cg_epoch(&g2, &g1, ST_KERNELS), cg_epoch(&n2, &n1, ST_KERNELS));
    free(g1.state);
    free(g2.state);
    free(n1.state);
    free(n2.state);
    remove(g_seq_csv);
}
END_TEST

static int cg_stop_at(const genesis_progress *p, void *user) { return p->step == *(int *)user; }

/* A TimeGAN fit with graphs, stopped with a checkpoint in phase 2 and continued (graphs
 * recorded afresh in the continued fit, from the step counts and step state the checkpoint
 * restores), ends with the state of the uninterrupted fit with graphs. */
START_TEST(test_timegan_graphs_resume) {
    const int I = 6;
    int at = I + 3; /* phase 2, iteration 3 */
    char ck[256];
    snprintf(ck, sizeof ck, "/tmp/genesis_cuda_graphs_ck_%ld.gen", (long)getpid());
    cg_write_sequences();
    fit_result full;
    cg_fit_timegan(1, I, &full);
    setenv("GENESIS_CUDA_GRAPHS", "1", 1);
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_seed(ctx, 4);
    genesis_ctx_set_threads(ctx, 1);
    ck_assert_int_eq(genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_table_read_csv(ctx, g_seq_csv, NULL, &t), GENESIS_OK);
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, I), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, TG_T), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 4), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_NUM_LAYERS, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 8), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sequence_columns(m, "id", "t"), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_checkpoint(m, ck, 0, 0), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, cg_stop_at, &at);
    ck_assert_msg(st == GENESIS_ERR_STOPPED, "fit: %d %s", st, genesis_errmsg(ctx));
    genesis_model_free(m);
    m = NULL;
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, ck, &m), GENESIS_OK);
    int64_t done = -1, total = -1;
    ck_assert_int_eq(genesis_model_checkpoint_progress(m, &done, &total), GENESIS_OK);
    ck_assert_int_eq(done, at);
    ck_assert_int_eq(genesis_model_set_checkpoint(m, NULL, 0, 0), GENESIS_OK);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "resumed fit: %s",
                  genesis_errmsg(ctx));
    float *rs = NULL;
    size_t rn = 0;
    ck_assert_int_eq(gen_model_state(m, &rs, &rn, NULL, NULL), GENESIS_OK);
    ck_assert_uint_eq(rn, full.n);
    size_t diff = 0;
    for (size_t i = 0; i < rn; i++) diff += memcmp(&rs[i], &full.state[i], sizeof(float)) != 0;
    printf("timegan: stopped at iteration %lld of %lld with graphs, continued: %zu of %zu "
           "state values differ from the uninterrupted fit\n", (long long)done,
           (long long)total, diff, rn);
    ck_assert_msg(diff == 0, "timegan: the continued fit differs in %zu of %zu values", diff, rn);
    free(rs);
    free(full.state);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unsetenv("GENESIS_CUDA_GRAPHS");
    remove(ck);
    remove(g_seq_csv);
}
END_TEST

/* DDPM does not record its steps (docs/cuda.md): the kernels of one optimiser step, as the
 * difference of a 12-step and a 6-step fit over 6, within its budget */
START_TEST(test_ddpm_kernels) {
    fit_result a, b;
    cg_fit(GENESIS_MODEL_DDPM, 0, 6, 40, &a);
    cg_fit(GENESIS_MODEL_DDPM, 0, 12, 40, &b);
    long long k = cg_epoch(&b, &a, ST_KERNELS);
    printf("ddpm: %lld kernels in 6 optimiser steps (%.2f per step)\n", k, k / 6.0);
    ck_assert_msg(k > 0 && k <= 6LL * CG_MAX_KERNELS_DDPM,
                  "ddpm: %lld kernels in 6 steps, more than %d per step", k, CG_MAX_KERNELS_DDPM);
    free(a.state);
    free(b.state);
}
END_TEST

/* FP16 with an overflow injected into the 5th backward pass of each loss-scaling state (the
 * first step is issued, the second recorded, the 5th a replay): graph and no-graph fits skip
 * the same steps and end bit-identical (weights, statistics, Adam moments) */
static void cg_check_fp16(genesis_model_kind kind, const char *name, int batch, int states) {
    fit_result g, n, clean;
    g_prec = GENESIS_PRECISION_FP16;
    cg_fit(kind, 1, 2, batch, &clean);
    setenv("GENESIS_FP16_INJECT_INF", "5", 1);
    cg_fit(kind, 1, 2, batch, &g);
    cg_fit(kind, 0, 2, batch, &n);
    unsetenv("GENESIS_FP16_INJECT_INF");
    g_prec = GENESIS_PRECISION_FP32;
    size_t diff = 0;
    ck_assert_int_eq((long long)g.n, (long long)n.n);
    for (size_t i = 0; i < g.n; i++) diff += memcmp(&g.state[i], &n.state[i], sizeof(float)) != 0;
    printf("%s fp16: %lld steps skipped with graphs, %lld without, %lld without the injection; "
           "%zu of %zu state values differ; graph launches %llu\n",
           name, (long long)g.skipped, (long long)n.skipped, (long long)clean.skipped, diff, g.n,
           g.d[ST_GRAPH_LAUNCHES]);
    ck_assert_msg(g.d[ST_GRAPH_LAUNCHES] > 4, "%s: the fp16 steps were not replayed", name);
    ck_assert_int_eq((long long)g.skipped, (long long)n.skipped);
    ck_assert_int_eq((long long)g.skipped, (long long)clean.skipped + states);
    ck_assert_msg(diff == 0, "%s fp16: %zu state values differ with and without graphs", name,
                  diff);
    free(g.state);
    free(n.state);
    free(clean.state);
}

START_TEST(test_fp16_graphs) {
    if (_i == 0) cg_check_fp16(GENESIS_MODEL_CTGAN, "ctgan", 40, 2);
    else cg_check_fp16(GENESIS_MODEL_TVAE, "tvae", 50, 1);
}
END_TEST

/* ---- the backend's recorded steps ----------------------------------------------------------- */

static gen_backend *cg_backend(genesis_ctx **ctx, const char *graphs) {
    setenv("GENESIS_CUDA_GRAPHS", graphs, 1);
    ck_assert_int_eq(genesis_ctx_create(ctx), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_device(*ctx, GENESIS_DEVICE_CUDA, 0), GENESIS_OK);
    gen_backend *be = NULL;
    ck_assert_int_eq(gen_backend_create(*ctx, &be), GENESIS_OK);
    unsetenv("GENESIS_CUDA_GRAPHS");
    ck_assert_str_eq(be->ops->name, "cuda");
    return be;
}

/* One step: random fills at offsets relative to the state, Adam with the state's count, the
 * state advanced. */
static void cg_step(gen_backend *be, gen_step_state *st, float *x, float *p, float *g, float *m,
                    float *v) {
    const gen_backend_ops *o = be->ops;
    be->rng_base = &st->rng;
    o->fill_uniform(be, x, 37, 11, 5, 0);
    o->fill_normal(be, g, 29, 11, 5, 10);
    be->rng_base = NULL;
    o->adam_dev(be, p, g, m, v, 29, 1e-2f, 0.5f, 0.9f, 1e-8f, 1e-6f, &st->t[1], 1, NULL);
    gen_step_state d = {20, {0, 1}, 0};
    o->step_advance(be, st, d);
}

START_TEST(test_backend_replay) {
    genesis_ctx *ctx = NULL;
    gen_backend *be = cg_backend(&ctx, "1");
    const gen_backend_ops *o = be->ops;
    float *buf[2][5];
    gen_step_state *st[2];
    gen_step_state s0 = {7, {0, 3}, 0};
    size_t sz[5] = {37, 29, 29, 29, 29};
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 5; i++) buf[r][i] = o->alloc(be, sz[i] * sizeof(float));
        st[r] = o->alloc(be, sizeof(gen_step_state));
        o->upload(be, st[r], &s0, sizeof s0);
    }
    unsigned long long a[ST_N], b[ST_N];
    cg_read_stats(a);
    ck_assert_int_eq(o->graph_begin(be), 1);
    cg_step(be, st[0], buf[0][0], buf[0][1], buf[0][2], buf[0][3], buf[0][4]);
    gen_graph *g = o->graph_end(be);
    ck_assert_msg(g != NULL, "%s", genesis_errmsg(ctx));
    cg_read_stats(b);
    ck_assert_int_eq((long long)(b[ST_CAPTURED] - a[ST_CAPTURED]), 4);
    for (int k = 0; k < 3; k++) {
        o->graph_launch(be, g);
        cg_step(be, st[1], buf[1][0], buf[1][1], buf[1][2], buf[1][3], buf[1][4]);
    }
    ck_assert_int_eq(gen_backend_status(be), GENESIS_OK);
    for (int i = 0; i < 5; i++) {
        float h0[37], h1[37];
        o->download(be, h0, buf[0][i], sz[i] * sizeof(float));
        o->download(be, h1, buf[1][i], sz[i] * sizeof(float));
        ck_assert_msg(memcmp(h0, h1, sz[i] * sizeof(float)) == 0,
                      "buffer %d: replayed step differs from the issued one", i);
    }
    gen_step_state h0, h1;
    o->download(be, &h0, st[0], sizeof h0);
    o->download(be, &h1, st[1], sizeof h1);
    ck_assert_msg(h0.rng == 7 + 60 && h0.t[1] == 6 && memcmp(&h0, &h1, sizeof h0) == 0,
                  "step state after 3 replays: rng %llu t %lld", (unsigned long long)h0.rng,
                  (long long)h0.t[1]);
    o->graph_free(be, g);
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 5; i++) o->free(be, buf[r][i]);
        o->free(be, st[r]);
    }
    gen_backend_free(be);
    genesis_ctx_free(ctx);
    /* GENESIS_CUDA_GRAPHS=0: the backend does not record */
    be = cg_backend(&ctx, "0");
    ck_assert_int_eq(be->ops->graph_begin(be), 0);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}
END_TEST

/* What a recorded step must not do: each ends in an error that says so. */
START_TEST(test_backend_capture_rules) {
    const char *want[3] = {"inside a step being recorded as a CUDA graph",
                           "an upload inside a step being recorded",
                           "operation failed due to a previous error during capture"};
    for (int c = 0; c < 3; c++) {
        genesis_ctx *ctx = NULL;
        gen_backend *be = cg_backend(&ctx, "1");
        const gen_backend_ops *o = be->ops;
        float *x = o->alloc(be, 64 * sizeof(float)), h[64] = {0};
        ck_assert_int_eq(o->graph_begin(be), 1);
        o->zero(be, x, 64);
        if (c == 0) o->download(be, h, x, sizeof h);              /* waits for the GPU */
        if (c == 1) o->upload(be, x, h, sizeof h);                /* a staging copy */
        float *y = c == 2 ? o->alloc(be, 16) : NULL;              /* cudaMalloc in capture */
        gen_graph *g = o->graph_end(be);
        ck_assert_msg(g == NULL, "case %d: the recorded step was accepted", c);
        ck_assert_int_eq(gen_backend_status(be), GENESIS_ERR_CUDA);
        ck_assert_msg(strstr(genesis_errmsg(ctx), want[c]) != NULL, "case %d: %s", c,
                      genesis_errmsg(ctx));
        printf("capture rule %d: %s\n", c, genesis_errmsg(ctx));
        o->free(be, y);
        o->free(be, x);
        gen_backend_free(be);
        genesis_ctx_free(ctx);
    }
}
END_TEST

int main(void) {
    const char *emu = getenv("GENESIS_CUDA_EMULATOR");
    genesis_device_info dev[4];
    int n = 0;
    char why[256] = "";
    if (!emu || strcmp(emu, "1") != 0) {
        printf("test_cuda_graphs: skipped: runs on the emulated CUDA runtime "
               "(GENESIS_CUDA_EMULATOR=1)\n");
        return 77;
    }
    genesis_detect_devices(dev, 4, &n, why, sizeof why);
    if (n == 0) {
        printf("test_cuda_graphs: skipped: %s\n", why);
        return 77;
    }
    if (cg_write_table() != 0) return 1;
    Suite *s = suite_create("cuda_graphs");
    TCase *tc = tcase_create("cuda");
    tcase_set_tags(tc, "cuda");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_backend_replay);
    tcase_add_test(tc, test_backend_capture_rules);
    tcase_add_test(tc, test_ctgan_graphs);
    tcase_add_test(tc, test_tvae_graphs);
    tcase_add_test(tc, test_timegan_graphs);
    tcase_add_test(tc, test_timegan_graphs_resume);
    tcase_add_test(tc, test_ddpm_kernels);
    tcase_add_loop_test(tc, test_fp16_graphs, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove(g_csv);
    return failed ? 1 : 0;
}
