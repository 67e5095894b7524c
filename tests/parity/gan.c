/*
 * tests/parity/gan.c — the parity cases of the backend family `gan` (backend.h; CPU:
 * src/backend/cpu/gan.c, CUDA: cuda/gan.cu): interpolate_groups, interpolate_uniform,
 * gp_penalty, colsum_acc.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* interpolate_groups: B, w, pac */
static void su_interp(pt_env *e) {
    int B = D(0), w = D(1), pac = D(2);
    pt_add(e, "out", (size_t)B * w, PT_OUT, -1, 1);
    pt_add(e, "real", (size_t)B * w, PT_IN, -1, 1);
    pt_add(e, "fake", (size_t)B * w, PT_IN, -1, 1);
    pt_add(e, "alpha", (size_t)(B / pac), PT_IN, 0, 1);
}

static void ru_interp(pt_env *e, gen_backend *be, int k) {
    OPS(be)->interpolate_groups(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), D(0), D(1),
                                D(2));
}

/* interpolate_uniform: B, w, pac, first (this rank's first group), extra groups after, offset;
 * ng = first + B / pac + extra alphas drawn */
static void su_interpu(pt_env *e) {
    int B = D(0), w = D(1), pac = D(2);
    pt_add(e, "out", (size_t)B * w, PT_OUT, -1, 1);
    pt_add(e, "alpha", (size_t)(D(3) + B / pac + D(4)), PT_OUT, -1, 1);
    pt_add(e, "real", (size_t)B * w, PT_IN, -1, 1);
    pt_add(e, "fake", (size_t)B * w, PT_IN, -1, 1);
}

static void ru_interpu(pt_env *e, gen_backend *be, int k) {
    size_t ng = (size_t)(D(3) + D(0) / D(2) + D(4));
    OPS(be)->interpolate_uniform(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), D(0), D(1),
                                 D(2), ng, (size_t)D(3), 4321, GEN_STREAM_NOISE, (uint64_t)D(5));
}

/* gp_penalty: n, width, a zero row? */
static void su_gp(pt_env *e) {
    int n = D(0), w = D(1);
    pt_add(e, "pen", 1, PT_OUT, -1, 1);
    pt_add(e, "U", (size_t)n * w, PT_OUT, -1, 1);
    int g = pt_add(e, "G", (size_t)n * w, PT_IN, -0.2f, 0.2f);
    if (D(2)) memset(pt_host(e, g) + (size_t)(n / 2) * w, 0, (size_t)w * sizeof(float));
}

static void ru_gp(pt_env *e, gen_backend *be, int k) {
    OPS(be)->gp_penalty(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), D(0), D(1), 10.0f);
}

/* colsum_acc: rows, cols */
static void su_colsum(pt_env *e) {
    pt_add(e, "dv", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "a", (size_t)D(0) * D(1), PT_IN, -1, 1);
}

static void ru_colsum(pt_env *e, gen_backend *be, int k) {
    OPS(be)->colsum_acc(be, P(e, k, 0), P(e, k, 1), D(0), D(1));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_INTERP = {"interpolate_groups", "B w pac", 1e-6, 1e-6, su_interp, ru_interp};
/* the alphas are fill_uniform's (exact); the interpolates interpolate_groups' tolerance */
static const pt_op O_INTERP_U = {"interpolate_uniform", "B w pac first extra offset", 1e-6, 1e-6,
                                 su_interpu, ru_interpu};
static const pt_op O_GP = {"gp_penalty", "n width zero_row", 1e-6, 1e-5, su_gp, ru_gp};
static const pt_op O_COLSUM = {"colsum_acc", "rows cols", 2e-5, 2e-5, su_colsum, ru_colsum};

static const pt_case cases[] = {
    /* WGAN-GP */
    {&O_INTERP, {1, 1, 1}}, {&O_INTERP, {3, 17, 3}}, {&O_INTERP, {20, 257, 10}},
    {&O_INTERP, {1025, 3, 5}},
    {&O_INTERP_U, {1, 1, 1, 0, 0, 0}}, {&O_INTERP_U, {3, 17, 3, 0, 5, 7}},
    {&O_INTERP_U, {20, 257, 10, 2, 4, 123}}, {&O_INTERP_U, {1025, 3, 5, 5, 0, 99999}},
    {&O_INTERP_U, {500, 151, 10, 150, 0, 3}},
    {&O_GP, {1, 1, 0}}, {&O_GP, {3, 17, 1}}, {&O_GP, {17, 1025, 0}}, {&O_GP, {257, 3, 1}},
    {&O_GP, {50, 1600, 0}},
    {&O_COLSUM, {1, 1}}, {&O_COLSUM, {3, 17}}, {&O_COLSUM, {257, 3}}, {&O_COLSUM, {100, 256}},
    {&O_COLSUM, {17, 1025}},
};

const pt_family pt_family_gan = {"gan", cases, (int)(sizeof cases / sizeof cases[0])};
