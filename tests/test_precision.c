/*
 * test_precision.c — mixed-precision training (docs/precision.md): the roundings of
 * src/backend/precision.h against hand-worked values and IEEE 754 properties (every FP16 and BF16
 * value round-trips; random FP32 values round within the format's unit roundoff u, ties to
 * even), the CPU backend's vectorised rounding (F16C / integer forms) against the scalar one,
 * the CPU's mixed GEMM against the reference product of pre-rounded operands, the loss
 * scaling rules of amp_unscale / adam_dev step by step, and FP16 training through the public
 * API with an injected gradient overflow (GENESIS_FP16_INJECT_INF): the step is skipped and
 * counted, and training goes on to a loss like the run without it. A model file keeps the
 * precision (setting 24), and a file written before the setting existed (24 settings) loads
 * as fp32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "rng.h"
#include "test_util.h"

/* ---- rounding -------------------------------------------------------------------------- */

typedef struct round_case {
    int prec;
    float x, want;
} round_case;

START_TEST(test_round_known) {
    const float e8 = 0x1p-8f, e11 = 0x1p-11f;
    static round_case cases[32];
    int n = 0;
    /* BF16: 7 fraction bits, ulp(1) = 2^-7; 1 + 2^-8 is a tie (to even: 1), 1 + 3 2^-8 a tie
     * between 1 + 2^-7 (odd) and 1 + 2^-6 (even) */
    cases[n++] = (round_case){GEN_PREC_BF16, 1.0f + e8, 1.0f};
    cases[n++] = (round_case){GEN_PREC_BF16, 1.0f + 3 * e8, 1.0f + 0x1p-6f};
    cases[n++] = (round_case){GEN_PREC_BF16, 1.0f + e8 + 0x1p-20f, 1.0f + 0x1p-7f};
    cases[n++] = (round_case){GEN_PREC_BF16, -3.0f, -3.0f};
    cases[n++] = (round_case){GEN_PREC_BF16, 3.4e38f, INFINITY}; /* past BF16's largest */
    /* TF32 and FP16: 10 fraction bits, ulp(1) = 2^-10 */
    cases[n++] = (round_case){GEN_PREC_TF32, 1.0f + e11, 1.0f};
    cases[n++] = (round_case){GEN_PREC_TF32, 1.0f + 3 * e11, 1.0f + 0x1p-9f};
    cases[n++] = (round_case){GEN_PREC_FP16, 1.0f + e11, 1.0f};
    cases[n++] = (round_case){GEN_PREC_FP16, 1.0f + 3 * e11, 1.0f + 0x1p-9f};
    cases[n++] = (round_case){GEN_PREC_FP16, 65504.0f, 65504.0f};        /* the largest */
    cases[n++] = (round_case){GEN_PREC_FP16, 65519.0f, 65504.0f};
    cases[n++] = (round_case){GEN_PREC_FP16, 65520.0f, INFINITY};        /* the tie: to even */
    cases[n++] = (round_case){GEN_PREC_FP16, -1e6f, -INFINITY};
    cases[n++] = (round_case){GEN_PREC_FP16, 0x1p-24f, 0x1p-24f};        /* smallest subnormal */
    cases[n++] = (round_case){GEN_PREC_FP16, 0x1p-25f, 0.0f};            /* tie: to even (0) */
    cases[n++] = (round_case){GEN_PREC_FP16, 0x1.8p-25f, 0x1p-24f};
    cases[n++] = (round_case){GEN_PREC_FP16, 3 * 0x1p-25f, 0x1p-23f};    /* tie 1.5 -> 2 */
    cases[n++] = (round_case){GEN_PREC_FP16, 0x1.ffcp-15f, 0x1p-14f};    /* into the normals */
    cases[n++] = (round_case){GEN_PREC_FP16, 0.1f, 0.0999755859375f};
    for (int i = 0; i < n; i++) {
        float got = gen_round_prec(cases[i].x, cases[i].prec), got_v;
        gen_cpu_round_row(&got_v, &cases[i].x, 1, cases[i].prec);
        ck_assert_msg(got == cases[i].want && signbit(got) == signbit(cases[i].want),
                      "case %d: round(%a, prec %d) = %a, want %a", i, (double)cases[i].x,
                      cases[i].prec, (double)got, (double)cases[i].want);
        ck_assert_msg(got_v == got, "case %d: vectorised %a, scalar %a", i, (double)got_v,
                      (double)got);
    }
    for (int p = GEN_PREC_TF32; p <= GEN_PREC_FP16; p++) {
        ck_assert(isnan(gen_round_prec(NAN, p)));
        ck_assert(gen_round_prec(INFINITY, p) == INFINITY);
        ck_assert(gen_round_prec(-0.0f, p) == 0.0f && signbit(gen_round_prec(-0.0f, p)));
    }
    ck_assert(gen_round_prec(1.0f + 0x1p-23f, GEN_PREC_FP32) == 1.0f + 0x1p-23f);
}
END_TEST

/* every 16-bit value widens exactly and encodes back to itself (NaNs stay NaNs) */
START_TEST(test_round_all_halves) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = gen_fp16_f32((uint16_t)h), b = gen_bf16_f32((uint16_t)h);
        if (isnan(f)) ck_assert(isnan(gen_fp16_f32(gen_fp16_bits(f))));
        else ck_assert_msg(gen_fp16_bits(f) == h, "fp16 %04x -> %a -> %04x", h, (double)f,
                           gen_fp16_bits(f));
        if (isnan(b)) ck_assert(isnan(gen_bf16_f32(gen_bf16_bits(b))));
        else ck_assert_msg(gen_bf16_bits(b) == h, "bf16 %04x", h);
    }
}
END_TEST

/* Random FP32 bit patterns: scalar and vectorised roundings agree; inside the format's normal
 * range the error is at most u |x| (u = 2^-8 bf16, 2^-11 tf32/fp16), and the result is one of
 * the two neighbours (rounding again changes nothing). */
START_TEST(test_round_random) {
    enum { N = 1 << 18 };
    float *x = malloc(N * sizeof(float)), *v = malloc(N * sizeof(float));
    ck_assert(x && v);
    gen_rng r;
    gen_rng_init(&r, 5, 1);
    for (int i = 0; i < N; i++) {
        uint32_t u = (uint32_t)gen_rng_below(&r, 1ull << 32);
        if (i % 2) u = (u & 0x807FFFFFu) | ((uint32_t)(100 + gen_rng_below(&r, 60)) << 23);
        memcpy(&x[i], &u, 4); /* every other one near 1 (exponents 2^-27 .. 2^32) */
    }
    const double U[4] = {0, GEN_U_TF32, GEN_U_BF16, GEN_U_FP16};
    for (int p = GEN_PREC_TF32; p <= GEN_PREC_FP16; p++) {
        gen_cpu_round_row(v, x, N, p);
        double lo = p == GEN_PREC_FP16 ? 0x1p-14 : 0x1p-126, hi = p == GEN_PREC_FP16 ? 65504 : 3e38;
        for (int i = 0; i < N; i++) {
            float s = gen_round_prec(x[i], p);
            if (isnan(x[i])) {
                ck_assert(isnan(s) && isnan(v[i]));
                continue;
            }
            ck_assert_msg(s == v[i] || (s == 0 && v[i] == 0),
                          "prec %d: %a rounds to %a (scalar) and %a (vectorised)", p,
                          (double)x[i], (double)s, (double)v[i]);
            ck_assert(gen_round_prec(s, p) == s);
            double ax = fabs((double)x[i]);
            if (ax >= lo && ax <= hi)
                ck_assert_msg(fabs((double)s - x[i]) <= U[p] * ax, "prec %d: |%a - %a| > u|x|",
                              p, (double)s, (double)x[i]);
        }
    }
    free(x);
    free(v);
}
END_TEST

/* ---- the CPU's mixed GEMM ---------------------------------------------------------------- */

START_TEST(test_cpu_gemm_prec) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    gen_backend *be;
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 1, &be), GENESIS_OK);
    int M = 37, N = 29, K = 300, lda = K + 3, ldb = K + 1, ldc = N + 2; /* A M x K, B N x K */
    float *A = malloc((size_t)M * lda * 4), *B = malloc((size_t)N * ldb * 4);
    float *Ar = malloc((size_t)M * lda * 4), *Br = malloc((size_t)N * ldb * 4);
    float *C = malloc((size_t)M * ldc * 4), *R = malloc((size_t)M * ldc * 4);
    float *F = malloc((size_t)M * ldc * 4);
    ck_assert(A && B && Ar && Br && C && R && F);
    tu_fill_uniform(A, (size_t)M * lda, -1, 1, 3);
    tu_fill_uniform(B, (size_t)N * ldb, -1, 1, 4);
    for (int p = GEN_PREC_TF32; p <= GEN_PREC_FP16; p++) {
        for (size_t i = 0; i < (size_t)M * lda; i++) Ar[i] = gen_round_prec(A[i], p);
        for (size_t i = 0; i < (size_t)N * ldb; i++) Br[i] = gen_round_prec(B[i], p);
        tu_fill_uniform(C, (size_t)M * ldc, -1, 1, 5);
        memcpy(R, C, (size_t)M * ldc * 4);
        memcpy(F, C, (size_t)M * ldc * 4);
        be->precision = p;
        be->ops->gemm(be, 0, 1, M, N, K, 0.5f, A, lda, B, ldb, 0.25f, C, ldc);
        be->precision = GEN_PREC_FP32;
        be->ops->gemm(be, 0, 1, M, N, K, 0.5f, A, lda, B, ldb, 0.25f, F, ldc);
        gen_gemm_reference(0, 1, M, N, K, 0.5f, Ar, lda, Br, ldb, 0.25f, R, ldc);
        /* the reference accumulates in double: FP32 summation, |d| <= K u32 sum|ab| ~ 1e-5 */
        double maxd = 0, maxf = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                size_t k = (size_t)i * ldc + j;
                maxd = fmax(maxd, fabs((double)C[k] - R[k]));
                maxf = fmax(maxf, fabs((double)F[k] - R[k]));
            }
        printf("cpu gemm prec %d: max|d| vs rounded reference %.3e, fp32 product vs it %.3e\n", p,
               maxd, maxf);
        ck_assert_msg(maxd < 2e-5, "prec %d: %.3e", p, maxd);
        /* not rounding is off by about u sqrt(K) / 4: far more */
        ck_assert_msg(maxf > 10 * maxd, "prec %d: the rounding does not show", p);
    }
    free(A); free(B); free(Ar); free(Br); free(C); free(R); free(F);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}
END_TEST

/* ---- 16-bit stored activations: the same numbers as FP32 storage (CPU backend) -------------- */

/* linear_forward_h / linear_backward_h on to_half(X) give the bytes linear_forward /
 * linear_backward give on X; relu_forward_h stores round(max(x, 0)); relu_backward_h passes
 * the gradient where relu_backward on the FP32 output does, except where a positive x
 * rounded to zero (planted here: 1e-9 is below FP16's half-smallest subnormal 2^-25, 1e-41
 * below BF16's) */
START_TEST(test_act16_ops_same) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    gen_backend *be;
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 1, &be), GENESIS_OK);
    int B = 67, C = 45, OC = 31, ldx = C + 3, n = B * C;
    float *X = malloc((size_t)B * ldx * 4), *W = malloc((size_t)OC * C * 4), *b = malloc(OC * 4);
    float *Y1 = malloc((size_t)B * OC * 4), *Y2 = malloc((size_t)B * OC * 4);
    float *G = malloc((size_t)B * OC * 4), *dW1 = calloc((size_t)OC * C, 4), *dW2 = calloc((size_t)OC * C, 4);
    float *R = malloc((size_t)n * 4), *D = malloc((size_t)n * 4), *g1 = calloc(n, 4), *g2 = calloc(n, 4);
    uint16_t *Xs = malloc((size_t)B * ldx * 2), *Rs = malloc((size_t)n * 2);
    ck_assert(X && W && b && Y1 && Y2 && G && dW1 && dW2 && R && D && g1 && g2 && Xs && Rs);
    tu_fill_uniform(X, (size_t)B * ldx, -2, 2, 11);
    tu_fill_uniform(W, (size_t)OC * C, -1, 1, 12);
    tu_fill_uniform(b, OC, -1, 1, 13);
    tu_fill_uniform(G, (size_t)B * OC, -1, 1, 14);
    tu_fill_uniform(D, n, -1, 1, 15);
    for (int p = GEN_PREC_BF16; p <= GEN_PREC_FP16; p++) {
        float tiny = p == GEN_PREC_FP16 ? 1e-9f : 1e-41f;
        for (int i = 0; i < B; i++) X[(size_t)i * ldx + (i % C)] = tiny;
        be->precision = p;
        be->ops->linear_forward(be, Y1, OC, X, ldx, W, b, B, C, OC);
        be->ops->to_half(be, Xs, ldx, X, ldx, B, C);
        be->ops->linear_forward_h(be, Y2, OC, Xs, ldx, W, b, B, C, OC);
        ck_assert_msg(!memcmp(Y1, Y2, (size_t)B * OC * 4), "prec %d: forward differs", p);
        be->ops->linear_backward(be, NULL, 0, dW1, NULL, G, OC, X, ldx, W, B, C, OC);
        be->ops->linear_backward_h(be, NULL, 0, dW2, NULL, G, OC, Xs, ldx, W, B, C, OC);
        ck_assert_msg(!memcmp(dW1, dW2, (size_t)OC * C * 4), "prec %d: dW differs", p);
        /* ReLU of X's first C columns, rows packed */
        be->ops->relu_forward_h(be, Rs, C, X, ldx, B, C);
        for (int i = 0; i < B; i++)
            for (int j = 0; j < C; j++) {
                float x = X[(size_t)i * ldx + j];
                R[i * C + j] = x > 0 ? x : 0;
                ck_assert(Rs[i * C + j] == gen_half_bits(x > 0 ? x : 0, p));
            }
        memset(g1, 0, (size_t)n * 4);
        memset(g2, 0, (size_t)n * 4);
        be->ops->relu_backward(be, g1, D, R, n);
        be->ops->relu_backward_h(be, g2, D, Rs, C, B, C);
        int zeroed = 0;
        for (int k = 0; k < n; k++) {
            if (g1[k] == g2[k]) continue;
            ck_assert_msg(R[k] > 0 && gen_half_f32(Rs[k], p) == 0 && g2[k] == 0,
                          "prec %d: relu_backward_h differs at %d", p, k);
            zeroed++;
        }
        printf("act16 ops prec %d: forward and dW bit-identical; relu mask differs only at the %d "
               "planted positives that round to zero\n", p, zeroed);
        ck_assert_int_eq(zeroed, B);
    }
    be->precision = GEN_PREC_FP32;
    free(X); free(W); free(b); free(Y1); free(Y2); free(G); free(dW1); free(dW2);
    free(R); free(D); free(g1); free(g2); free(Xs); free(Rs);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}
END_TEST

/* ---- loss scaling, step by step (the CPU backend's amp_unscale / adam_dev) ------------------- */

START_TEST(test_amp_rules) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    gen_backend *be;
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 1, &be), GENESIS_OK);
    unsetenv("GENESIS_FP16_INJECT_INF");
    gen_amp a;
    gen_amp_reset(be, &a, 1);
    ck_assert(a.scale == GEN_AMP_INIT_SCALE && a.interval == GEN_AMP_INTERVAL && a.inject_at == 0);
    a.interval = 3;
    float g[4], p[4] = {1, 2, 3, 4}, m[4] = {0}, v[4] = {0};
    int64_t t0 = 0;
    /* three clean steps: unscaled exactly, then the scale doubles */
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < 4; i++) g[i] = (float)(i + 1) * a.scale;
        float before = a.scale;
        be->ops->amp_unscale(be, g, 4, &a);
        ck_assert(!a.skip && g[0] == 1.0f && g[3] == 4.0f);
        ck_assert(a.scale == (s == 2 ? 2 * before : before));
    }
    ck_assert(a.good == 0 && a.skipped == 0 && a.scale == 2 * GEN_AMP_INIT_SCALE);
    /* an overflow: skipped, gradients zeroed, the scale halved, Adam leaves everything alone */
    g[0] = 1;
    g[1] = INFINITY;
    g[2] = NAN;
    be->ops->amp_unscale(be, g, 4, &a);
    ck_assert(a.skip && a.skipped == 1 && a.good == 0 && a.scale == GEN_AMP_INIT_SCALE);
    ck_assert(g[0] == 0 && g[1] == 0 && g[2] == 0);
    be->ops->adam_dev(be, p, g, m, v, 4, 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, &t0, 1, &a);
    ck_assert(p[0] == 1 && p[3] == 4 && m[0] == 0 && v[0] == 0);
    /* a clean step after it updates again */
    for (int i = 0; i < 4; i++) g[i] = a.scale;
    be->ops->amp_unscale(be, g, 4, &a);
    ck_assert(!a.skip && g[0] == 1.0f && a.good == 1);
    be->ops->adam_dev(be, p, g, m, v, 4, 0.1f, 0.9f, 0.999f, 1e-8f, 0.01f, &t0, 1, &a);
    ck_assert(p[0] < 1 && m[0] != 0);
    /* the test hook: the 6th call overflows though every gradient is finite */
    a.inject_at = a.steps + 1;
    for (int i = 0; i < 4; i++) g[i] = 1;
    be->ops->amp_unscale(be, g, 4, &a);
    ck_assert(a.skip && a.skipped == 2 && g[0] == 0);
    /* the floor: never below GEN_AMP_MIN_SCALE */
    a.scale = 1.5f * GEN_AMP_MIN_SCALE;
    g[0] = NAN;
    be->ops->amp_unscale(be, g, 4, &a);
    ck_assert(a.scale == GEN_AMP_MIN_SCALE);
    /* amp_scale multiplies by the scale */
    a.scale = 8;
    g[0] = 0.5f;
    be->ops->amp_scale(be, g, 1, &a);
    ck_assert(g[0] == 4.0f);
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}
END_TEST

/* ---- FP16 training with an injected overflow --------------------------------------------------- */

static int last_loss(const genesis_progress *p, void *user) {
    *(double *)user = p->loss_g;
    return 0;
}

/* A small `kind` model on the sample table in `prec` (seed, epochs of 20 steps of 100 rows,
 * generator width gdim), fitted with `cb` (may be NULL); the caller frees m, t and ctx. */
static genesis_model *fit_small(genesis_model_kind kind, genesis_precision prec, uint64_t seed,
                                int epochs, int gdim, genesis_progress_fn cb, double *loss,
                                genesis_ctx **ctx, genesis_table **t) {
    genesis_ctx_create(ctx);
    genesis_ctx_set_seed(*ctx, seed);
    genesis_ctx_set_threads(*ctx, 1);
    ck_assert_int_eq(genesis_table_read_csv(*ctx, tu_path("data/adult_sample.csv"), NULL, t),
                     GENESIS_OK);
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(*ctx, kind, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PRECISION, prec), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 100);
    genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 32);
    genesis_model_set_param(m, GENESIS_P_GEN_DIM, gdim);
    if (kind == GENESIS_MODEL_CTGAN) genesis_model_set_param(m, GENESIS_P_DIS_DIM, 32);
    ck_assert_msg(genesis_model_fit(m, *t, cb, loss) == GENESIS_OK, "%s", genesis_errmsg(*ctx));
    return m;
}

/* fits `kind` on the sample table in fp16; returns the skipped steps and the last loss */
static int64_t fit_fp16(genesis_model_kind kind, const char *inject, double *loss) {
    if (inject) setenv("GENESIS_FP16_INJECT_INF", inject, 1);
    else unsetenv("GENESIS_FP16_INJECT_INF");
    genesis_ctx *ctx;
    genesis_table *t;
    genesis_model *m = fit_small(kind, GENESIS_PRECISION_FP16, 4, 4, 32, last_loss, loss, &ctx, &t);
    int64_t skipped = -1;
    ck_assert_int_eq(genesis_model_skipped_steps(m, &skipped), GENESIS_OK);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unsetenv("GENESIS_FP16_INJECT_INF");
    return skipped;
}

START_TEST(test_fp16_injected_overflow) {
    genesis_model_kind kind = _i ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    const char *name = _i ? "tvae" : "ctgan";
    double l0 = 0, l1 = 0;
    int64_t k0 = fit_fp16(kind, NULL, &l0);
    /* the 40th backward pass (epoch 2 of 4 at 20 steps an epoch) of each loss-scaling
     * state overflows: CTGAN has two (discriminator, generator), TVAE one */
    int64_t k1 = fit_fp16(kind, "40", &l1);
    int states = _i ? 1 : 2;
    printf("%s fp16: %lld steps skipped without injection (last loss %.4f), %lld with it (last "
           "loss %.4f)\n", name, (long long)k0, l0, (long long)k1, l1);
    /* the natural skips come first (the initial scale 2^16 is too large for the first
     * steps), identically in both runs; the injection adds one per state */
    ck_assert_msg(k1 == k0 + states, "%s: the injected overflow was not skipped (%lld vs %lld)",
                  name, (long long)k1, (long long)k0);
    ck_assert_msg(isfinite(l1) && fabs(l1 - l0) <= 0.25 * fabs(l0) + 0.25,
                  "%s: training did not recover: last loss %.4f vs %.4f", name, l1, l0);
}
END_TEST

/* ---- 16-bit stored activations (docs/precision.md, "Memory") ------------------------------ */

/* Fits `kind` in `prec` on the sample table (2 epochs of 20 steps, small networks) and saves
 * it to `path`; act16 0: GENESIS_ACT16=0, the activations stored FP32 as before */
static void fit_save(genesis_model_kind kind, genesis_precision prec, int act16,
                     const char *path) {
    if (act16) unsetenv("GENESIS_ACT16");
    else setenv("GENESIS_ACT16", "0", 1);
    genesis_ctx *ctx;
    genesis_table *t;
    genesis_model *m = fit_small(kind, prec, 5, 2, 48, NULL, NULL, &ctx, &t);
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unsetenv("GENESIS_ACT16");
}

/* Storing the activations that allow it in 16 bits changes no number: the products read the
 * same rounded values, the ReLU masks the same signs (short of a positive value that rounds
 * to zero, which these fits do not meet). The saved weights are the same bytes. */
START_TEST(test_act16_same_training) {
    genesis_model_kind kind = _i % 2 ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    genesis_precision prec = _i < 2 ? GENESIS_PRECISION_BF16 : GENESIS_PRECISION_FP16;
    char a[] = "/tmp/genesis_test_act16_a_XXXXXX", b[] = "/tmp/genesis_test_act16_b_XXXXXX";
    int fa = mkstemp(a), fb = mkstemp(b);
    ck_assert(fa >= 0 && fb >= 0);
    close(fa);
    close(fb);
    fit_save(kind, prec, 1, a);
    fit_save(kind, prec, 0, b);
    printf("act16 %s %s: 16-bit and FP32 activation storage save the same model\n",
           _i % 2 ? "tvae" : "ctgan", _i < 2 ? "bf16" : "fp16");
    tu_assert_same_files(a, b);
    remove(a);
    remove(b);
}
END_TEST

/* ---- the model file: the precision is kept; 24-setting files load as fp32 -------------------- */

START_TEST(test_file_precision) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, &t),
                     GENESIS_OK);
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    genesis_model_set_param(m, GENESIS_P_PRECISION, GENESIS_PRECISION_BF16);
    /* a file without the later settings has the decoder of alpha-per-mode 0 */
    genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, 0);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    char path[] = "/tmp/genesis_test_precision_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    genesis_model_free(m);
    double v = -1;
    ck_assert_int_eq(genesis_model_load(ctx, path, &m), GENESIS_OK);
    genesis_model_get_param(m, GENESIS_P_PRECISION, &v);
    ck_assert(v == GENESIS_PRECISION_BF16);
    genesis_model_free(m);
    /* the same file as a genesis without the setting wrote it: S = 24, the later f64s gone */
    /* precision is setting 24; every setting of version 6 is stored (34: the privacy
     * settings 34-36 only in a differentially private model's file, and 37,
     * gradient-checkpointing, in none; docs/file-format.md) */
    ck_assert_uint_eq(tu_file_keep_settings(path, 24), 34u);
    ck_assert_uint_eq((uint32_t)genesis_param_count(), 39u);
    ck_assert_msg(genesis_model_load(ctx, path, &m) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    genesis_model_get_param(m, GENESIS_P_PRECISION, &v);
    ck_assert_msg(v == GENESIS_PRECISION_FP32, "a 24-setting file loads with precision %g", v);
    genesis_model_free(m);
    remove(path);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

int main(void) {
    Suite *s = suite_create("precision");
    TCase *tc = tcase_create("precision");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_round_known);
    tcase_add_test(tc, test_round_all_halves);
    tcase_add_test(tc, test_round_random);
    tcase_add_test(tc, test_cpu_gemm_prec);
    tcase_add_test(tc, test_act16_ops_same);
    tcase_add_test(tc, test_amp_rules);
    tcase_add_loop_test(tc, test_fp16_injected_overflow, 0, 2);
    tcase_add_test(tc, test_file_precision);
    tcase_add_loop_test(tc, test_act16_same_training, 0, 4);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
