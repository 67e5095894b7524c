/*
 * tests/parity/norm.c — the parity cases of the backend family `norm` (backend.h; CPU:
 * src/backend/cpu/norm.c, CUDA: cuda/norm.cu): batch norm, its synchronised (per-rank
 * partial) form, and the generator block (linear, batch norm, ReLU) in one operation forward
 * and one backward.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* batch norm: B, C */
static void su_bn_f(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "out", (size_t)B * C, PT_OUT, -1, 1);
    pt_add(e, "mean", (size_t)C, PT_OUT, -1, 1);
    pt_add(e, "rstd", (size_t)C, PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
    pt_add(e, "beta", (size_t)C, PT_IN, -0.5f, 0.5f);
}

static void ru_bn_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), P(e, k, 4),
                               P(e, k, 5), D(0), D(1), 1e-5f);
}

/* a generator block (linear, batch norm, running statistics, ReLU): B, C, OC, extra columns
 * of out's and inp's leading dimensions, bias (1) or none (0) */
static void su_lbr(pt_env *e) {
    int B = D(0), C = D(1), OC = D(2), x = D(3);
    pt_add(e, "out", (size_t)B * (OC + x), PT_OUT, -1, 1);
    pt_add(e, "pre", (size_t)B * OC, PT_OUT, -1, 1);
    pt_add(e, "mean", (size_t)OC, PT_OUT, -1, 1);
    pt_add(e, "rstd", (size_t)OC, PT_OUT, -1, 1);
    pt_add(e, "rmean", (size_t)OC, PT_ACC, -1, 1);
    pt_add(e, "rvar", (size_t)OC, PT_ACC, 0.5f, 2);
    pt_add(e, "inp", (size_t)B * (C + x), PT_IN, -1, 1);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -0.5f, 0.5f);
    pt_add(e, "bias", (size_t)OC, PT_IN, -0.5f, 0.5f);
    pt_add(e, "gamma", (size_t)OC, PT_IN, 0.5f, 1.5f);
    pt_add(e, "beta", (size_t)OC, PT_IN, -0.5f, 0.5f);
}

static void ru_lbr(pt_env *e, gen_backend *be, int k) {
    int C = D(1), OC = D(2), x = D(3);
    OPS(be)->linear_bn_relu_forward(be, P(e, k, 0), OC + x, P(e, k, 1), NULL, P(e, k, 2),
                                    P(e, k, 3), P(e, k, 4), P(e, k, 5), P(e, k, 6), C + x,
                                    P(e, k, 7),
                                    D(4) ? P(e, k, 8) : NULL, P(e, k, 9), P(e, k, 10), D(0), C,
                                    OC, 1e-5f, 0.1f);
}

/* a generator block's backward (ReLU, batch norm, bias gradient): B, C, extra columns of
 * dout's and out's leading dimensions, bias (1) or none (0) */
static void su_rbb(pt_env *e) {
    int B = D(0), C = D(1), x = D(2);
    pt_add(e, "dinp", (size_t)B * C, PT_ACC, -1, 1);
    pt_add(e, "dgamma", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dbeta", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dbias", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * (C + x), PT_IN, -1, 1);
    pt_add(e, "out", (size_t)B * (C + x), PT_IN, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, -1, 1);
    pt_add(e, "rstd", (size_t)C, PT_IN, 0.5f, 2);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
}

static void ru_rbb(pt_env *e, gen_backend *be, int k) {
    int C = D(1), x = D(2);
    OPS(be)->relu_bn_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), D(3) ? P(e, k, 3) : NULL,
                              NULL, NULL, P(e, k, 4), C + x, P(e, k, 5), C + x, P(e, k, 6),
                              P(e, k, 7), P(e, k, 8), P(e, k, 9), D(0), C);
}

static void su_bn_eval(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "out", (size_t)B * C, PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "rmean", (size_t)C, PT_IN, -1, 1);
    pt_add(e, "rvar", (size_t)C, PT_IN, 0.1f, 3);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
    pt_add(e, "beta", (size_t)C, PT_IN, -0.5f, 0.5f);
}

static void ru_bn_eval(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_forward_eval(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                    P(e, k, 4), P(e, k, 5), D(0), D(1), 1e-5f);
}

static void su_bn_run(pt_env *e) {
    int C = D(1);
    pt_add(e, "rmean", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "rvar", (size_t)C, PT_ACC, 0.5f, 2);
    pt_add(e, "mean", (size_t)C, PT_IN, -1, 1);
    pt_add(e, "rstd", (size_t)C, PT_IN, 0.5f, 3);
}

static void ru_bn_run(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_update_running(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), D(0),
                                      D(1), 0.1f, 1e-5f);
}

static void su_bn_b(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "dinp", (size_t)B * C, PT_ACC, -1, 1);
    pt_add(e, "dgamma", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dbeta", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * C, PT_IN, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, 0, 2);
    pt_add(e, "rstd", (size_t)C, PT_IN, 0.3f, 1.5f);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
}

static void ru_bn_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), P(e, k, 4),
                                P(e, k, 5), P(e, k, 6), P(e, k, 7), D(0), D(1));
}

/* synchronised batch norm (data parallel): B rows of a global batch of N = 3B; B, C, centred */
static void su_bn_stats(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "part", (size_t)C, PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, 0, 2);
}

static void ru_bn_stats(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_stats(be, P(e, k, 0), P(e, k, 1), D(2) ? P(e, k, 2) : NULL, D(0), D(1),
                             3 * D(0));
}

static void su_bn_apply(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "out", (size_t)B * C, PT_OUT, -1, 1);
    pt_add(e, "rstd", (size_t)C, PT_ACC, 0.1f, 3); /* the variance in, rstd out */
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, 0, 2);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
    pt_add(e, "beta", (size_t)C, PT_IN, -0.5f, 0.5f);
}

static void ru_bn_apply(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_apply(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), P(e, k, 4),
                             P(e, k, 5), D(0), D(1), 1e-5f);
}

static void su_bn_bsums(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "sums", 2 * (size_t)C, PT_OUT, -1, 1);
    pt_add(e, "dgamma", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dbeta", (size_t)C, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * C, PT_IN, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, 0, 2);
    pt_add(e, "rstd", (size_t)C, PT_IN, 0.3f, 1.5f);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
}

static void ru_bn_bsums(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_backward_sums(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                     P(e, k, 4), P(e, k, 5), P(e, k, 6), P(e, k, 7), D(0), D(1));
}

static void su_bn_bapply(pt_env *e) {
    int B = D(0), C = D(1);
    pt_add(e, "dinp", (size_t)B * C, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * C, PT_IN, -1, 1);
    pt_add(e, "inp", (size_t)B * C, PT_IN, -3, 5);
    pt_add(e, "mean", (size_t)C, PT_IN, 0, 2);
    pt_add(e, "rstd", (size_t)C, PT_IN, 0.3f, 1.5f);
    pt_add(e, "gamma", (size_t)C, PT_IN, 0.5f, 1.5f);
    pt_add(e, "sums", 2 * (size_t)C, PT_IN, -5, 5);
}

static void ru_bn_bapply(pt_env *e, gen_backend *be, int k) {
    OPS(be)->batchnorm_backward_apply(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                      P(e, k, 4), P(e, k, 5), P(e, k, 6), D(0), D(1), 3 * D(0));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_BN_F = {"batchnorm_forward", "B C", 1e-5, 1e-5, su_bn_f, ru_bn_f};
static const pt_op O_LBR = {"linear_bn_relu_forward", "B C OC ld+ bias", 1e-4, 1e-4, su_lbr,
                            ru_lbr};
/* batchnorm_backward's tolerances; the bias gradient sums B updated values */
static const pt_op O_RBB = {"relu_bn_backward", "B C ld+ bias", 5e-5, 5e-5, su_rbb, ru_rbb};
static const pt_op O_BN_EVAL = {"batchnorm_forward_eval", "B C", 1e-6, 1e-6, su_bn_eval,
                                ru_bn_eval};
static const pt_op O_BN_RUN = {"batchnorm_update_running", "B C", 1e-6, 1e-6, su_bn_run, ru_bn_run};
/* the CPU adds dgamma/dbeta in float row by row: allow for its own rounding */
static const pt_op O_BN_B = {"batchnorm_backward", "B C", 5e-5, 5e-5, su_bn_b, ru_bn_b};
static const pt_op O_BN_STATS = {"batchnorm_stats", "B C centred", 1e-5, 1e-5, su_bn_stats,
                                 ru_bn_stats};
static const pt_op O_BN_APPLY = {"batchnorm_apply", "B C", 1e-5, 1e-5, su_bn_apply, ru_bn_apply};
/* the CPU adds dgamma/dbeta in float row by row, as batchnorm_backward */
static const pt_op O_BN_BSUMS = {"batchnorm_backward_sums", "B C", 5e-5, 5e-5, su_bn_bsums,
                                 ru_bn_bsums};
static const pt_op O_BN_BAPPLY = {"batchnorm_backward_apply", "B C", 1e-5, 1e-5, su_bn_bapply,
                                  ru_bn_bapply};

static const pt_case cases[] = {
    /* batch norm */
    {&O_BN_F, {1, 1}}, {&O_BN_F, {3, 17}}, {&O_BN_F, {17, 3}}, {&O_BN_F, {257, 1}},
    {&O_BN_F, {500, 256}}, {&O_BN_F, {1025, 33}},
    {&O_LBR, {1, 1, 1, 0, 1}}, {&O_LBR, {3, 5, 17, 2, 1}}, {&O_LBR, {40, 37, 16, 0, 0}},
    {&O_LBR, {500, 133, 256, 3, 1}}, {&O_LBR, {257, 64, 33, 1, 1}},
    {&O_RBB, {1, 1, 0, 1}}, {&O_RBB, {3, 17, 2, 1}}, {&O_RBB, {500, 256, 3, 1}},
    {&O_RBB, {257, 33, 0, 0}}, {&O_RBB, {40, 16, 5, 1}},
    {&O_BN_EVAL, {1, 1}}, {&O_BN_EVAL, {17, 257}}, {&O_BN_EVAL, {1025, 3}},
    {&O_BN_RUN, {1, 3}}, {&O_BN_RUN, {500, 257}},
    {&O_BN_B, {1, 1}}, {&O_BN_B, {3, 17}}, {&O_BN_B, {257, 1}}, {&O_BN_B, {500, 256}},
    {&O_BN_B, {1025, 33}},
    {&O_BN_STATS, {1, 1, 0}}, {&O_BN_STATS, {17, 3, 1}}, {&O_BN_STATS, {250, 256, 0}},
    {&O_BN_STATS, {250, 256, 1}}, {&O_BN_STATS, {1025, 33, 1}},
    {&O_BN_APPLY, {1, 1}}, {&O_BN_APPLY, {17, 257}}, {&O_BN_APPLY, {250, 256}},
    {&O_BN_BSUMS, {1, 1}}, {&O_BN_BSUMS, {3, 17}}, {&O_BN_BSUMS, {250, 256}},
    {&O_BN_BSUMS, {1025, 33}},
    {&O_BN_BAPPLY, {1, 1}}, {&O_BN_BAPPLY, {17, 3}}, {&O_BN_BAPPLY, {250, 256}},
};

const pt_family pt_family_norm = {"norm", cases, (int)(sizeof cases / sizeof cases[0])};
