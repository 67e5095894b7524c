/*
 * tests/parity/optimiser.c — the parity cases of the backend family `optimiser` (backend.h; CPU:
 * src/backend/cpu/optimiser.c, CUDA: cuda/optimiser.cu): adam, adamw, adam_dev with the loss
 * scaler, adam_dev_end (Adam, a clamp and the step state's advance), amp_scale, amp_unscale.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* A loss-scaling state in buffer i (backend.h gen_amp) */
static void pt_amp(pt_env *e, int i, float scale, int good, int interval, int inject_at) {
    gen_amp a;
    memset(&a, 0, sizeof a);
    a.scale = scale;
    a.good = good;
    a.skipped = 3;
    a.steps = 5;
    a.inject_at = inject_at;
    a.interval = interval;
    memcpy(e->b[i].host, &a, sizeof a);
}

#define PT_AMP_WORDS (sizeof(gen_amp) / 4)

/* amp_scale: n, specials (x *= scale, 1024: exact) */
static void su_amp_scale(pt_env *e) {
    int x = pt_add(e, "x", (size_t)D(0), PT_ACC, -1, 1);
    if (D(1)) pt_specials(e, x);
    int a = pt_add(e, "amp", PT_AMP_WORDS, PT_IN, 0, 0);
    pt_amp(e, a, 1024.0f, 0, 2000, 0);
}

static void ru_amp_scale(pt_env *e, gen_backend *be, int k) {
    OPS(be)->amp_scale(be, P(e, k, 0), (size_t)D(0), (const gen_amp *)(void *)P(e, k, 1));
}

/* amp_unscale: n, where a non-finite gradient is (-1 none, else the index), kind (0 NaN,
 * 1 +Inf, 2 -Inf), inject_at (the hook: 6 fires, as steps is 5 before), good before (the
 * interval is 4: good 3 doubles the scale on a clean step). Exact: the decisions are
 * integer logic and the unscale a power of two. */
static void su_amp_unscale(pt_env *e) {
    int g = pt_add(e, "g", (size_t)D(0), PT_ACC, -100, 100);
    if (D(1) >= 0) {
        static const float sp[] = {NAN, INFINITY, -INFINITY};
        pt_host(e, g)[D(1)] = sp[D(2)];
    }
    int a = pt_add(e, "amp", PT_AMP_WORDS, PT_ACC, 0, 0);
    pt_amp(e, a, 4096.0f, D(4), 4, D(3));
}

static void ru_amp_unscale(pt_env *e, gen_backend *be, int k) {
    OPS(be)->amp_unscale(be, P(e, k, 0), (size_t)D(0), (gen_amp *)(void *)P(e, k, 1));
}

/* adam_dev with a loss-scaling state: n, skip (1: nothing may change) */
static void su_adam_amp(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "param", n, PT_ACC, -1, 1);
    pt_add(e, "m", n, PT_ACC, -0.1f, 0.1f);
    pt_add(e, "v", n, PT_ACC, 0, 0.01f);
    pt_add(e, "grad", n, PT_IN, -0.5f, 0.5f);
    int32_t *t = pt_add_int(e, "t0", 2);
    int64_t t0 = 4;
    memcpy(t, &t0, sizeof t0);
    int a = pt_add(e, "amp", PT_AMP_WORDS, PT_IN, 0, 0);
    pt_amp(e, a, 1.0f, 0, 2000, 0);
    ((gen_amp *)(void *)e->b[a].host)->skip = D(1);
}

static void ru_adam_amp(pt_env *e, gen_backend *be, int k) {
    OPS(be)->adam_dev(be, P(e, k, 0), P(e, k, 3), P(e, k, 1), P(e, k, 2), (size_t)D(0), 2e-4f,
                      0.5f, 0.9f, 1e-8f, 1e-6f, (const int64_t *)(void *)PI(e, k, 4), 1,
                      (const gen_amp *)(void *)P(e, k, 5));
}

/* adam: n, t */
static void su_adam(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "param", n, PT_ACC, -1, 1);
    pt_add(e, "m", n, PT_ACC, -0.1f, 0.1f);
    pt_add(e, "v", n, PT_ACC, 0, 0.01f);
    pt_add(e, "grad", n, PT_IN, -0.5f, 0.5f);
}

static void ru_adam(pt_env *e, gen_backend *be, int k) {
    OPS(be)->adam(be, P(e, k, 0), P(e, k, 3), P(e, k, 1), P(e, k, 2), (size_t)D(0), 2e-4f, 0.5f,
                  0.9f, 1e-8f, 1e-6f, (int64_t)D(1));
}

/* adamw: n, t, keep variant (0: 1, no decay; 1: 1 - 2e-4 * 1e-2) */
static void ru_adamw(pt_env *e, gen_backend *be, int k) {
    OPS(be)->adamw(be, P(e, k, 0), P(e, k, 3), P(e, k, 1), P(e, k, 2), (size_t)D(0), 2e-4f, 0.9f,
                   0.999f, 1e-8f, D(2) ? 1.0f - 2e-4f * 1e-2f : 1.0f, (int64_t)D(1));
}

/* adam_dev_end: n, skip, nclip (the clamp on param[3 .. 3 + nclip), to [0.01, 1]); the step
 * state compared bit for bit */
static void su_adam_end(pt_env *e) {
    su_adam_amp(e);
    gen_step_state st = {.rng = 0xFFFFFFF0ull, .t = {4, 1ll << 40}, .k = 5};
    int i = pt_add(e, "st", sizeof st / 4, PT_ACC, 0, 0);
    memcpy(e->b[i].host, &st, sizeof st);
    e->b[i].bits = 1;
}

static void ru_adam_end(pt_env *e, gen_backend *be, int k) {
    gen_step_state d = {.rng = 123457, .t = {1, 0}, .k = 1};
    OPS(be)->adam_dev_end(be, P(e, k, 0), P(e, k, 3), P(e, k, 1), P(e, k, 2), (size_t)D(0), 2e-4f,
                          0.5f, 0.9f, 1e-8f, 1e-6f, (const int64_t *)(void *)PI(e, k, 4), 1,
                          (const gen_amp *)(void *)P(e, k, 5), D(2) ? P(e, k, 0) + 3 : NULL,
                          (size_t)D(2), 0.01f, 1.0f, (gen_step_state *)(void *)P(e, k, 6), d);
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_ADAM = {"adam", "n t", 1e-6, 1e-5, su_adam, ru_adam};
static const pt_op O_ADAMW = {"adamw", "n t keep", 1e-6, 1e-5, su_adam, ru_adamw};
/* loss scaling: exact (powers of two, integer decisions) */
static const pt_op O_AMP_SCALE = {"amp_scale", "n specials", 0, 0, su_amp_scale, ru_amp_scale};
static const pt_op O_AMP_UNSCALE = {"amp_unscale", "n where kind inject good", 0, 0,
                                    su_amp_unscale, ru_amp_unscale};
static const pt_op O_ADAM_AMP = {"adam_dev_amp", "n skip", 1e-6, 1e-5, su_adam_amp, ru_adam_amp};

static const pt_op O_ADAM_END = {"adam_dev_end", "n skip nclip", 1e-6, 1e-5, su_adam_end,
                                 ru_adam_end};

static const pt_case cases[] = {
    /* Adam */
    {&O_ADAMW, {1, 1, 1}}, {&O_ADAMW, {1025, 3, 1}}, {&O_ADAMW, {65539, 200, 0}},
    {&O_ADAM, {1, 1}}, {&O_ADAM, {17, 2}}, {&O_ADAM, {1025, 10}}, {&O_ADAM, {65539, 1000}},
    /* loss scaling */
    {&O_AMP_SCALE, {1, 0}}, {&O_AMP_SCALE, {1025, 0}}, {&O_AMP_SCALE, {65539, 1}},
    {&O_AMP_UNSCALE, {1025, -1, 0, 0, 0}}, {&O_AMP_UNSCALE, {1025, -1, 0, 0, 3}},
    {&O_AMP_UNSCALE, {65539, 65538, 0, 0, 1}}, {&O_AMP_UNSCALE, {257, 0, 1, 0, 3}},
    {&O_AMP_UNSCALE, {17, 9, 2, 0, 0}}, {&O_AMP_UNSCALE, {1025, -1, 0, 6, 3}},
    {&O_AMP_UNSCALE, {3, -1, 0, 7, 0}},
    {&O_ADAM_AMP, {1025, 0}}, {&O_ADAM_AMP, {1025, 1}}, {&O_ADAM_AMP, {65539, 1}},
    /* the end of a step: Adam, the clamp, the state's advance in one */
    {&O_ADAM_END, {1025, 0, 0}}, {&O_ADAM_END, {65539, 0, 130}}, {&O_ADAM_END, {65539, 1, 130}},
    {&O_ADAM_END, {4, 0, 1}}, {&O_ADAM_END, {1, 0, 0}},
};

const pt_family pt_family_optimiser = {"optimiser", cases, (int)(sizeof cases / sizeof cases[0])};
