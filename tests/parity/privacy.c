/*
 * tests/parity/privacy.c — the parity cases of the backend family `privacy` (backend.h; CPU:
 * src/backend/cpu/privacy.c, CUDA: cuda/privacy.cu): the per-example squared gradient norms
 * of a linear layer, the clipping factors, the row scaling and DP-SGD's noise (Philox: the
 * same draws as fill_normal on every backend; Box-Muller's transcendentals may differ in the
 * last ulp).
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* sqnorm: B, C, OC, ld padding */
static void su_sqnorm(pt_env *e) {
    int B = D(0), C = D(1), OC = D(2), p = D(3);
    pt_add(e, "sq", (size_t)B, PT_ACC, 0, 1);
    pt_add(e, "x", (size_t)B * (C + p), PT_IN, -1, 1);
    pt_add(e, "g", (size_t)B * (OC + p), PT_IN, -1, 1);
}

static void ru_sqnorm(pt_env *e, gen_backend *be, int k) {
    int B = D(0), C = D(1), OC = D(2), p = D(3);
    OPS(be)->dp_sqnorm_acc(be, P(e, k, 0), P(e, k, 1), C + p, C, P(e, k, 2), OC + p, OC, B);
}

/* clip factors: B, clip (tenths); sq in [0, 10) with zeros among them */
static void su_clip(pt_env *e) {
    pt_add(e, "s", (size_t)D(0), PT_OUT, -1, 1);
    int i = pt_add(e, "sq", (size_t)D(0), PT_IN, 0, 10);
    float *h = pt_host(e, i);
    for (int b = 0; b < D(0); b += 7) h[b] = 0.0f;
}

static void ru_clip(pt_env *e, gen_backend *be, int k) {
    OPS(be)->dp_clip_factors(be, P(e, k, 0), P(e, k, 1), D(0), D(1) / 10.0f);
}

/* scale rows: B, cols, ld padding */
static void su_scale(pt_env *e) {
    int B = D(0), cols = D(1), p = D(2);
    pt_add(e, "x", (size_t)B * (cols + p), PT_ACC, -1, 1);
    pt_add(e, "s", (size_t)B, PT_IN, 0, 1);
}

static void ru_scale(pt_env *e, gen_backend *be, int k) {
    OPS(be)->dp_scale_rows(be, P(e, k, 0), D(1) + D(2), P(e, k, 1), D(0), D(1));
}

/* noise: n, offset, sd (tenths) */
static void su_noise(pt_env *e) { pt_add(e, "g", (size_t)D(0), PT_ACC, -1, 1); }

static void ru_noise(pt_env *e, gen_backend *be, int k) {
    OPS(be)->dp_noise(be, P(e, k, 0), (size_t)D(0), D(2) / 10.0f, 0.125f, 4242,
                      GEN_STREAM_DP, (uint64_t)D(1));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_SQNORM = {"dp_sqnorm_acc", "B C OC pad", 1e-5, 1e-5, su_sqnorm, ru_sqnorm};
static const pt_op O_CLIP = {"dp_clip_factors", "B clip*10", 1e-7, 1e-6, su_clip, ru_clip};
static const pt_op O_SCALE = {"dp_scale_rows", "B cols pad", 0, 0, su_scale, ru_scale};
static const pt_op O_NOISE = {"dp_noise", "n offset sd*10", 4e-6, 4e-6, su_noise, ru_noise};

static const pt_case cases[] = {
    {&O_SQNORM, {1, 1, 1, 0}}, {&O_SQNORM, {7, 33, 5, 3}}, {&O_SQNORM, {129, 256, 257, 0}},
    {&O_SQNORM, {300, 1000, 2, 1}},
    {&O_CLIP, {1, 10}}, {&O_CLIP, {1000, 15}}, {&O_CLIP, {257, 1}},
    {&O_SCALE, {1, 1, 0}}, {&O_SCALE, {33, 257, 2}}, {&O_SCALE, {500, 128, 0}},
    {&O_NOISE, {1, 0, 10}}, {&O_NOISE, {3, 9, 5}}, {&O_NOISE, {1025, 1, 30}},
    {&O_NOISE, {65539, 100000, 12}},
};

const pt_family pt_family_privacy = {"privacy", cases, (int)(sizeof cases / sizeof cases[0])};
