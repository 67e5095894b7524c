/*
 * tests/parity/tgloss.c — the parity cases of the backend family `tgloss` (backend.h; CPU:
 * src/backend/cpu/tgloss.c, CUDA: cuda/tgloss.cu): mse_loss, bce_logits, moments_loss,
 * adam_tf1_gated, take_rows.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* ---- TimeGAN's losses (backend.h "TimeGAN's losses on the device") ----------------------------- */

/* A buffer of n doubles (2 n words) with values v (NULL: random in [lo, hi)). */
static int pt_add_dbl(pt_env *e, const char *name, size_t n, int role, const double *v) {
    int i = pt_add(e, name, 2 * n, role, -1, 1);
    e->b[i].dbl = 1;
    if (v) memcpy(e->b[i].host, v, n * sizeof(double));
    return i;
}

static double *PD(pt_env *e, int bk, int i) { return (double *)(void *)P(e, bk, i); }

/* mse_loss: rows, cols, ld pad, root, grads */
static void su_mse(pt_env *e) {
    size_t n = (size_t)D(0) * (D(1) + D(2));
    pt_add_dbl(e, "loss", 1, PT_OUT, NULL);
    pt_add(e, "da", n, PT_ACC, -1, 1);
    pt_add(e, "db", n, PT_ACC, -1, 1);
    pt_add(e, "a", n, PT_IN, 0, 1);
    pt_add(e, "b", n, PT_IN, 0, 1);
}

static void ru_mse(pt_env *e, gen_backend *be, int k) {
    OPS(be)->mse_loss(be, PD(e, k, 0), D(4) ? P(e, k, 1) : NULL, D(4) ? P(e, k, 2) : NULL,
                      P(e, k, 3), P(e, k, 4), D(0), D(1), D(1) + D(2), D(3) ? 10.0f : 0.1f, D(3));
}

/* bce_logits: n, label, grads */
static void su_bce(pt_env *e) {
    pt_add_dbl(e, "loss", 1, PT_OUT, NULL);
    pt_add(e, "dl", (size_t)D(0), PT_ACC, -1, 1);
    pt_add(e, "l", (size_t)D(0), PT_IN, -9, 9);
}

static void ru_bce(pt_env *e, gen_backend *be, int k) {
    OPS(be)->bce_logits(be, PD(e, k, 0), D(2) ? P(e, k, 1) : NULL, P(e, k, 2), (size_t)D(0),
                        (float)D(1), 0.75f);
}

/* moments_loss: B, T, F, grads */
static void su_moments(pt_env *e) {
    size_t n = (size_t)D(0) * D(1) * D(2);
    pt_add_dbl(e, "loss", 2, PT_OUT, NULL);
    pt_add(e, "dxh", n, PT_ACC, -1, 1);
    pt_add(e, "xh", n, PT_IN, 0, 1);
    pt_add(e, "x", n, PT_IN, 0.1f, 0.9f);
}

static void ru_moments(pt_env *e, gen_backend *be, int k) {
    OPS(be)->moments_loss(be, PD(e, k, 0), D(3) ? P(e, k, 1) : NULL, P(e, k, 2), P(e, k, 3), D(0),
                          D(1), D(2), 100.0f);
}

/* adam_tf1_gated: n, gate (0 shut, 1 open, 2 none, 3 NaN): the step count compared exactly */
static void su_adam_tg(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "param", n, PT_ACC, -1, 1);
    pt_add(e, "m", n, PT_ACC, -0.1f, 0.1f);
    pt_add(e, "v", n, PT_ACC, 0, 0.01f);
    pt_add(e, "grad", n, PT_IN, -0.5f, 0.5f);
    int t = pt_add(e, "t", 2, PT_ACC, 0, 0);
    int64_t t0 = 6;
    memcpy(e->b[t].host, &t0, sizeof t0);
    e->b[t].bits = 1;
    double g[4][3] = {{0.05, 0.05, 0.05}, {0.05, 0.07, 0.05}, {0, 0, 0}, {0.5, NAN, 0.5}};
    pt_add_dbl(e, "gate", 3, PT_IN, g[D(1)]);
}

static void ru_adam_tg(pt_env *e, gen_backend *be, int k) {
    OPS(be)->adam_tf1_gated(be, P(e, k, 0), P(e, k, 3), P(e, k, 1), P(e, k, 2), (size_t)D(0),
                            1e-3f, 0.9f, 0.999f, 1e-8f, (int64_t *)(void *)P(e, k, 4),
                            D(1) == 2 ? NULL : PD(e, k, 5), 3, 0.15 + 1e-12);
}

/* take_rows: B, w, source rows (ids in any order, repeats included) */
static void su_take(pt_env *e) {
    int B = D(0), w = D(1), nr = D(2);
    pt_add(e, "out", (size_t)B * w, PT_OUT, -1, 1);
    pt_add(e, "src", (size_t)nr * w, PT_IN, -1, 1);
    int32_t *idx = pt_add_int(e, "idx", (size_t)B);
    gen_rng r;
    gen_rng_init(&r, 97 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++) idx[b] = b == 0 ? nr - 1 : (int32_t)gen_rng_below(&r, (uint64_t)nr);
}

static void ru_take(pt_env *e, gen_backend *be, int k) {
    OPS(be)->take_rows(be, P(e, k, 0), P(e, k, 1), PI(e, k, 2), D(0), D(1));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

/* TimeGAN's losses: double sums in another order (block trees), float gradients */
static const pt_op O_MSE = {"mse_loss", "rows cols ld+ root grads", 1e-7, 1e-6, su_mse, ru_mse};
static const pt_op O_BCE = {"bce_logits", "n y grads", 1e-7, 1e-6, su_bce, ru_bce};
static const pt_op O_MOMENTS = {"moments_loss", "B T F grads", 1e-7, 1e-6, su_moments, ru_moments};
static const pt_op O_ADAM_TG = {"adam_tf1_gated", "n gate", 1e-6, 1e-5, su_adam_tg, ru_adam_tg};
static const pt_op O_TAKE = {"take_rows", "B w nrows", 0, 0, su_take, ru_take};

static const pt_case cases[] = {
    /* TimeGAN's losses: the reference sizes (B 128, T 24, F 5, H 24: E_loss_T0 and the
     * moments over (B, T F), G_loss_S's rows of (T-1) H with stride T H), awkward ones, empty */
    {&O_MSE, {1, 1, 0, 0, 1}}, {&O_MSE, {3, 17, 2, 1, 1}}, {&O_MSE, {128, 120, 0, 1, 1}},
    {&O_MSE, {128, 552, 24, 0, 1}}, {&O_MSE, {128, 552, 24, 1, 1}}, {&O_MSE, {257, 33, 5, 0, 0}},
    {&O_MSE, {4, 0, 3, 1, 1}},
    {&O_BCE, {1, 1, 1}}, {&O_BCE, {17, 0, 1}}, {&O_BCE, {3072, 1, 1}}, {&O_BCE, {65539, 0, 1}},
    {&O_BCE, {1025, 1, 0}}, {&O_BCE, {0, 1, 1}},
    {&O_MOMENTS, {1, 1, 1, 1}}, {&O_MOMENTS, {3, 4, 2, 1}}, {&O_MOMENTS, {128, 24, 5, 1}},
    {&O_MOMENTS, {64, 24, 28, 1}}, {&O_MOMENTS, {7, 3, 5, 0}},
    {&O_ADAM_TG, {1025, 0}}, {&O_ADAM_TG, {1025, 1}}, {&O_ADAM_TG, {65539, 2}},
    {&O_ADAM_TG, {17, 3}},
    {&O_TAKE, {1, 1, 1}}, {&O_TAKE, {16, 120, 40}}, {&O_TAKE, {128, 120, 2000}},
    {&O_TAKE, {3, 1025, 7}},
};

const pt_family pt_family_tgloss = {"tgloss", cases, (int)(sizeof cases / sizeof cases[0])};
