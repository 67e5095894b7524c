/*
 * bench_timegan.c — TimeGAN on Sines (docs/algorithms.md §S7: freq, phase ~ U(0, 0.1),
 * x = (sin(freq j + phase) + 1) / 2, 5 features, 24 steps) on the CPU backend: seconds per
 * 1,000 iterations of each phase (wall clock, and the process's CPU seconds, which a shared
 * machine's other load inflates less), with the matmul FLOPs of the GRU and linear operations
 * counted as they run and the GFLOP/s they make; then (unless --iters 0) a full fit of the
 * given length, generation and the discriminative / predictive scores, with the real-data
 * predictive baseline.
 *   bench_timegan [--n 10000] [--iters 1000] [--hidden 24] [--layers 3] [--batch 128]
 *                 [--threads 1] [--seed 0] [--time-iters 50] [--repeats 3]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evaluate_sequences.h"
#include "timegan.h"

/* the joint phase's E step as the fit runs it (reusing the G step's H where the build can) */
#ifdef TG_HAVE_FIT_STEP
#define TG_E_AFTER_G(t, B) timegan_fit_step(t, TG_STEP_E, B, 1)
#else
#define TG_E_AFTER_G(t, B) timegan_update(t, TG_STEP_E, B, NULL)
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FLOP counting: the CPU table with the GRU and linear operations wrapped. A multiply-add is
 * two FLOPs; the counted work is the cell's matmuls (input and recurrent products, their
 * gradients) and the heads', not the element-wise gate arithmetic. */
static gen_backend_ops g_counting;
static const gen_backend_ops *g_inner;
static double g_flops;
static double g_sec[4]; /* CPU seconds inside gru_forward, gru_backward, linear_forward, linear_backward */

static void cnt_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                            const float *W, const float *b, int B, int T, int C, int H) {
    g_flops += 2.0 * B * 3 * H * ((double)T * C + (double)(h0 ? T : T - 1) * H);
    double c0 = cpu_s();
    g_inner->gru_forward(be, y, save, x, h0, W, b, B, T, C, H);
    g_sec[0] += cpu_s() - c0;
}
static void cnt_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                             float *work, const float *dy, const float *x, const float *h0,
                             const float *y, const float *save, const float *W, int B, int T,
                             int C, int H) {
    double rec = 2.0 * B * 3 * H * (double)(h0 ? T : T - 1) * H, in = 2.0 * B * T * 3 * H * C;
    g_flops += rec + (dx ? in : 0) + (dW ? in + rec : 0);
    double c0 = cpu_s();
    g_inner->gru_backward(be, dx, dh0, dW, db, work, dy, x, h0, y, save, W, B, T, C, H);
    g_sec[1] += cpu_s() - c0;
}
static void cnt_linear_forward(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                               const float *W, const float *bias, int B, int C, int OC) {
    g_flops += 2.0 * B * C * OC;
    double c0 = cpu_s();
    g_inner->linear_forward(be, out, ldo, inp, ldi, W, bias, B, C, OC);
    g_sec[2] += cpu_s() - c0;
}
static void cnt_linear_backward(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                                const float *dout, int lddo, const float *inp, int ldi,
                                const float *W, int B, int C, int OC) {
    g_flops += 2.0 * B * C * OC * ((dinp ? 1 : 0) + (dW ? 1 : 0));
    double c0 = cpu_s();
    g_inner->linear_backward(be, dinp, lddi, dW, dbias, dout, lddo, inp, ldi, W, B, C, OC);
    g_sec[3] += cpu_s() - c0;
}

static void sines(float *x, int n, int T, int F, uint64_t seed) {
    gen_rng r;
    gen_rng_init(&r, seed, 77);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < F; k++) {
            double fr = 0.1 * gen_rng_uniform(&r), ph = 0.1 * gen_rng_uniform(&r);
            for (int j = 0; j < T; j++) x[((size_t)i * T + j) * F + k] = (float)((sin(fr * j + ph) + 1) / 2);
        }
}

/* the reference's inner scaler (docs/algorithms.md §S3): per feature, min over (samples, time),
 * then max of the shifted data; x = (x - min) / (max + 1e-7); renormalise x * max + min */
static void inner_scale(float *x, int n, int T, int F, float *mn, float *mx) {
    for (int f = 0; f < F; f++) {
        mn[f] = INFINITY;
        mx[f] = -INFINITY;
    }
    for (size_t i = 0; i < (size_t)n * T; i++)
        for (int f = 0; f < F; f++) mn[f] = fminf(mn[f], x[i * F + f]);
    for (size_t i = 0; i < (size_t)n * T; i++)
        for (int f = 0; f < F; f++) mx[f] = fmaxf(mx[f], x[i * F + f] - mn[f]);
    for (size_t i = 0; i < (size_t)n * T; i++)
        for (int f = 0; f < F; f++) x[i * F + f] = (x[i * F + f] - mn[f]) / (mx[f] + 1e-7f);
}

static int show(int phase, int64_t it, int64_t iters, const tg_losses *ls, void *u) {
    (void)u;
    fprintf(stderr, "phase %d it %lld/%lld: e %.4f s %.4f d %.4f g_u %.4f g_v %.4f\n", phase,
            (long long)it, (long long)iters, sqrt(ls->e_t0), sqrt(ls->g_s), ls->d, ls->g_u, ls->g_v);
    return 0;
}

int main(int argc, char **argv) {
    int n = 10000, iters = 1000, H = 24, L = 3, B = 128, threads = 1, titers = 50, repeats = 3;
    uint64_t seed = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i];
        long v = atol(argv[i + 1]);
        if (!strcmp(a, "--n")) n = (int)v;
        else if (!strcmp(a, "--iters")) iters = (int)v;
        else if (!strcmp(a, "--hidden")) H = (int)v;
        else if (!strcmp(a, "--layers")) L = (int)v;
        else if (!strcmp(a, "--batch")) B = (int)v;
        else if (!strcmp(a, "--threads")) threads = (int)v;
        else if (!strcmp(a, "--seed")) seed = (uint64_t)v;
        else if (!strcmp(a, "--time-iters")) titers = (int)v;
        else if (!strcmp(a, "--repeats")) repeats = (int)v;
        else { fprintf(stderr, "unknown flag %s\n", a); return 2; }
    }
    const int T = 24, F = 5;
    genesis_ctx *ctx;
    gen_backend *be;
    genesis_ctx_create(&ctx);
    if (gen_backend_cpu_create(ctx, threads, &be) != GENESIS_OK) return 1;
    g_inner = be->ops;
    g_counting = *be->ops;
    g_counting.gru_forward = cnt_gru_forward;
    g_counting.gru_backward = cnt_gru_backward;
    g_counting.linear_forward = cnt_linear_forward;
    g_counting.linear_backward = cnt_linear_backward;
    be->ops = &g_counting;
    float *x = malloc((size_t)n * T * F * 4);
    sines(x, n, T, F, seed + 1);
    float *xs = malloc((size_t)n * T * F * 4), mn[5], mx[5];
    memcpy(xs, x, (size_t)n * T * F * 4);
    inner_scale(xs, n, T, F, mn, mx);
    timegan_config cfg = {B, T, F, H, L, 1e-3f, 1.0f, 1};
    timegan *t;
    if (timegan_create(ctx, be, &cfg, &t) != GENESIS_OK) { fprintf(stderr, "%s\n", genesis_errmsg(ctx)); return 1; }
    timegan_init_weights(t, seed);
    t->seed = seed;
    /* timing: titers updates of each kind on random batches */
    const char *names[] = {"phase 1 (E0 step)", "phase 2 (supervised step)", "phase 3 (2x(G+E) + D)"};
    printf("TimeGAN CPU timing: n %d, T %d, F %d, hidden %d, layers %d, batch %d, threads %d\n", n, T,
           F, H, L, B, threads);
    for (int p = 0; p < 3 && titers > 0; p++) {
        memcpy(t->X, xs, (size_t)B * T * F * 4); /* CPU backend: device memory is host memory */
        be->ops->fill_uniform(be, t->Z, (size_t)B * T * F, seed, 4, 0);
        double t0 = now_s(), c0 = cpu_s();
        g_flops = 0;
        memset(g_sec, 0, sizeof g_sec);
        for (int i = 0; i < titers; i++) {
            if (p == 0) timegan_update(t, TG_STEP_E0, B, NULL);
            else if (p == 1) timegan_update(t, TG_STEP_SUP, B, NULL);
            else {
                for (int k = 0; k < 2; k++) { /* as timegan_fit runs them */
                    timegan_update(t, TG_STEP_G, B, NULL);
                    TG_E_AFTER_G(t, B);
                }
                timegan_update(t, TG_STEP_D, B, NULL);
            }
        }
        double el = now_s() - t0, cel = cpu_s() - c0;
        printf("  %-28s %8.2f s per 1,000 iterations (%.2f CPU s; %.3f GFLOP per iteration, "
               "%.1f GFLOP/s wall, %.1f per CPU s)\n", names[p], el / titers * 1000,
               cel / titers * 1000, g_flops / titers * 1e-9, g_flops / el * 1e-9,
               g_flops / cel * 1e-9);
        printf("  %-28s CPU s per 1,000: GRU forward %.2f, backward %.2f, linear forward %.2f, "
               "backward %.2f, the rest %.2f\n", "", g_sec[0] / titers * 1000,
               g_sec[1] / titers * 1000, g_sec[2] / titers * 1000, g_sec[3] / titers * 1000,
               (cel - g_sec[0] - g_sec[1] - g_sec[2] - g_sec[3]) / titers * 1000);
    }
    if (iters > 0) {
        timegan_init_weights(t, seed);
        double t0 = now_s();
        if (timegan_fit(t, xs, n, iters, iters / 5 > 0 ? iters / 5 : 1, show, NULL) != GENESIS_OK) {
            fprintf(stderr, "%s\n", genesis_errmsg(ctx));
            return 1;
        }
        double fit_s = now_s() - t0;
        float *g = malloc((size_t)n * T * F * 4);
        uint64_t off = 0;
        timegan_generate(t, n, seed, 5, &off, g);
        for (size_t i = 0; i < (size_t)n * T; i++)
            for (int f = 0; f < F; f++) g[i * F + f] = g[i * F + f] * mx[f] + mn[f];
        gen_seq_metric_opts mo;
        gen_seq_metric_opts_default(&mo);
        mo.repeats = repeats;
        mo.seed = seed;
        double dm, ds, pm, ps, bm, bs;
        t0 = now_s();
        gen_discriminative_score(be, x, n, g, n, T, F, &mo, &dm, &ds);
        gen_predictive_score(be, x, n, g, n, T, F, &mo, &pm, &ps);
        gen_predictive_score(be, x, n, x, n, T, F, &mo, &bm, &bs);
        printf("Sines, %d iterations per phase (fit %.1f s): discriminative %.4f +- %.4f, "
               "predictive %.4f +- %.4f, real-data predictive %.4f +- %.4f (%d repeats, %.1f s)\n",
               iters, fit_s, dm, ds, pm, ps, bm, bs, repeats, now_s() - t0);
        free(g);
    }
    timegan_free(t);
    free(x);
    free(xs);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
    return 0;
}
