/*
 * tests/parity/dense.c — the parity cases of the backend family `dense` (backend.h; CPU:
 * src/backend/cpu/dense.c, CUDA: cuda/dense.cu): gemm, linear_forward/backward,
 * linear_act_forward, linear1_forward, linear_sparse_forward, their mixed-precision
 * (TF32/BF16/FP16) forms, and the 16-bit stored inputs (to_half, linear_*_h).
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* The product ops' buffers and calls, their dimensions from D(o) on: o = 0 for the FP32
 * cases, 1 for the mixed-precision ones (whose D(0) is the precision). */

/* gemm: ta, tb, M, N, K at D(o)..; lda/ldb/ldc padded */
static void gemm_lds(const pt_env *e, int o, int *lda, int *ldb, int *ldc) {
    int ta = D(o), tb = D(o + 1), M = D(o + 2), N = D(o + 3), K = D(o + 4);
    *lda = (ta ? M : K) + 2;
    *ldb = (tb ? K : N) + 1;
    *ldc = N + 3;
}

static void gemm_setup(pt_env *e, int o) {
    int lda, ldb, ldc;
    gemm_lds(e, o, &lda, &ldb, &ldc);
    int ta = D(o), tb = D(o + 1), M = D(o + 2), N = D(o + 3), K = D(o + 4);
    pt_add(e, "A", (size_t)(ta ? (K > 0 ? K : 1) : M) * lda, PT_IN, -1, 1);
    pt_add(e, "B", (size_t)(tb ? N : (K > 0 ? K : 1)) * ldb, PT_IN, -1, 1);
    pt_add(e, "C", (size_t)M * ldc, PT_ACC, -1, 1);
}

static void gemm_run(pt_env *e, gen_backend *be, int k, int o, float beta) {
    int lda, ldb, ldc;
    gemm_lds(e, o, &lda, &ldb, &ldc);
    OPS(be)->gemm(be, D(o), D(o + 1), D(o + 2), D(o + 3), D(o + 4), 0.7f, P(e, k, 0), lda,
                  P(e, k, 1), ldb, beta, P(e, k, 2), ldc);
}

/* linear_forward: B, C, OC, bias? at D(o)..; ldo = OC + 2, ldi = C + 1 */
static void linf_setup(pt_env *e, int o) {
    pt_add(e, "out", (size_t)D(o) * (D(o + 2) + 2), PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)D(o) * (D(o + 1) + 1), PT_IN, -1, 1);
    pt_add(e, "W", (size_t)D(o + 2) * D(o + 1), PT_IN, -1, 1);
    pt_add(e, "bias", (size_t)D(o + 2), PT_IN, -1, 1);
}

static void linf_run(pt_env *e, gen_backend *be, int k, int o) {
    OPS(be)->linear_forward(be, P(e, k, 0), D(o + 2) + 2, P(e, k, 1), D(o + 1) + 1, P(e, k, 2),
                            D(o + 3) ? P(e, k, 3) : NULL, D(o), D(o + 1), D(o + 2));
}

/* linear_backward: B, C, OC, mask (1 dinp, 2 dW, 4 dbias) at D(o)..; lddi = C+3,
 * lddo = OC+1, ldi = C+2 */
static void linb_setup(pt_env *e, int o) {
    int B = D(o), C = D(o + 1), OC = D(o + 2);
    pt_add(e, "dinp", (size_t)B * (C + 3), PT_ACC, -1, 1);
    pt_add(e, "dW", (size_t)OC * C, PT_ACC, -1, 1);
    pt_add(e, "dbias", (size_t)OC, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * (OC + 1), PT_IN, -1, 1);
    pt_add(e, "inp", (size_t)B * (C + 2), PT_IN, -1, 1);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -1, 1);
}

static void linb_run(pt_env *e, gen_backend *be, int k, int o) {
    int B = D(o), C = D(o + 1), OC = D(o + 2), m = D(o + 3);
    OPS(be)->linear_backward(be, (m & 1) ? P(e, k, 0) : NULL, C + 3, (m & 2) ? P(e, k, 1) : NULL,
                             (m & 4) ? P(e, k, 2) : NULL, P(e, k, 3), OC + 1, P(e, k, 4), C + 2,
                             P(e, k, 5), B, C, OC);
}

/* linear_act_forward: B, C, OC, bias?, act (GEN_ACT_*); ldi = C + 1. With GEN_ACT_RELU pre
 * is scratch (CUDA's cuBLASLt product writes out only). */
static void su_linact(pt_env *e) {
    int B = D(0), C = D(1), OC = D(2);
    pt_add(e, "out", (size_t)B * OC, PT_OUT, -1, 1);
    pt_add(e, "pre", (size_t)B * OC, D(4) == GEN_ACT_RELU ? PT_SCRATCH : PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)B * (C + 1), PT_IN, -1, 1);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -1, 1);
    pt_add(e, "bias", (size_t)OC, PT_IN, -1, 1);
}

static void ru_linact(pt_env *e, gen_backend *be, int k) {
    OPS(be)->linear_act_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), D(1) + 1, P(e, k, 3),
                                D(3) ? P(e, k, 4) : NULL, D(0), D(1), D(2), D(4));
}

/* linear1_forward: n, C, nsums, bias?, prec, n2 (rows after n, no sums); ldi = C + 3 */
static void su_lin1(pt_env *e) {
    int n = D(0), C = D(1), ns = D(2), n2 = D(5);
    pt_add(e, "y", (size_t)(n + n2), PT_OUT, -1, 1);
    pt_add(e, "sums", (size_t)(ns > 0 ? ns : 1), PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)(n + n2) * (C + 3), PT_IN, -1, 1);
    pt_add(e, "w", (size_t)C, PT_IN, -1, 1);
    pt_add(e, "bias", 1, PT_IN, -1, 1);
}

static void ru_lin1(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(4));
    OPS(be)->linear1_forward(be, P(e, k, 0), P(e, k, 1), D(2), P(e, k, 2), D(1) + 3, P(e, k, 3),
                             D(3) ? P(e, k, 4) : NULL, D(0), D(1), D(5));
    pt_prec(be, 0);
}

/* linear1_backward_act: n, C, weights? (dW, db, dbs), prec */
static void su_lin1b(pt_env *e) {
    size_t nc = (size_t)D(0) * D(1);
    pt_add(e, "da", nc, PT_OUT, -1, 1);
    pt_add(e, "dbs", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "dh", nc, PT_OUT, -1, 1);
    pt_add(e, "dW", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "db", 1, PT_ACC, -1, 1);
    pt_add(e, "dy", (size_t)D(0), PT_IN, -1, 1);
    pt_add(e, "h", nc, PT_IN, -1, 1);
    pt_add(e, "w", (size_t)D(1), PT_IN, -1, 1);
    int s = pt_add(e, "s", nc, PT_IN, 0, 2);
    float *sv = pt_host(e, s); /* a dropout mask times a leaky slope: 0, 0.4 or 2 */
    for (size_t i = 0; i < nc; i++) sv[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 0.4f : 2.0f;
}

static void ru_lin1b(pt_env *e, gen_backend *be, int k) {
    int wt = D(2);
    pt_prec(be, D(3));
    OPS(be)->linear1_backward_act(be, P(e, k, 0), wt ? P(e, k, 1) : NULL, P(e, k, 2),
                                  wt ? P(e, k, 3) : NULL, wt ? P(e, k, 4) : NULL, P(e, k, 5),
                                  P(e, k, 6), P(e, k, 7), P(e, k, 8), D(0), D(1));
    pt_prec(be, 0);
}

/* linear_sparse_forward: B, C, OC, bias?, dense inputs per row (the rest: zeros, and one
 * 1.0 per block of 7, as one-hot blocks); ldo = OC + 2, ldi = C + 1 */
static void su_lins(pt_env *e) {
    int B = D(0), C = D(1), OC = D(2), nd = D(4);
    pt_add(e, "out", (size_t)B * (OC + 2), PT_OUT, -1, 1);
    int i = pt_add(e, "inp", (size_t)B * (C + 1), PT_IN, -1, 1);
    pt_add(e, "WT", (size_t)C * OC, PT_IN, -1, 1);
    pt_add(e, "bias", (size_t)OC, PT_IN, -1, 1);
    float *x = pt_host(e, i);
    for (int b = 0; b < B; b++)
        for (int j = nd; j < C + 1; j++) {
            float *v = x + (size_t)b * (C + 1) + j;
            *v = (j - nd) % 7 == (b + j / 7) % 7 ? 1.0f : 0.0f;
        }
}

static void ru_lins(pt_env *e, gen_backend *be, int k) {
    int B = D(0), C = D(1), OC = D(2);
    OPS(be)->linear_sparse_forward(be, P(e, k, 0), OC + 2, P(e, k, 1), C + 1, P(e, k, 2),
                                   D(3) ? P(e, k, 3) : NULL, B, C, OC);
}

/* gemm: ta, tb, M, N, K, beta variant (0: beta 0.3, 1: beta 0) */
static void su_gemm(pt_env *e) { gemm_setup(e, 0); }

static void ru_gemm(pt_env *e, gen_backend *be, int k) { gemm_run(e, be, k, 0, D(5) ? 0.0f : 0.3f); }

/* linear_forward: B, C, OC, bias? */
static void su_linf(pt_env *e) { linf_setup(e, 0); }

static void ru_linf(pt_env *e, gen_backend *be, int k) { linf_run(e, be, k, 0); }

/* linear_backward: B, C, OC, mask */
static void su_linb(pt_env *e) { linb_setup(e, 0); }

static void ru_linb(pt_env *e, gen_backend *be, int k) { linb_run(e, be, k, 0); }

/* gemm_mixed: prec, ta, tb, M, N, K (beta 0.3) */
static void su_gemmx(pt_env *e) { gemm_setup(e, 1); }

static void ru_gemmx(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    gemm_run(e, be, k, 1, 0.3f);
    pt_prec(be, 0);
}

/* linear_forward_mixed: prec, B, C, OC, bias? */
static void su_linfx(pt_env *e) { linf_setup(e, 1); }

static void ru_linfx(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    linf_run(e, be, k, 1);
    pt_prec(be, 0);
}

/* linear_backward_mixed: prec, B, C, OC, mask */
static void su_linbx(pt_env *e) { linb_setup(e, 1); }

static void ru_linbx(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    linb_run(e, be, k, 1);
    pt_prec(be, 0);
}

/* to_half: prec, rows, cols, ldd pad, lds pad, specials */
static void su_to_half(pt_env *e) {
    int rows = D(1), cols = D(2);
    pt_add_half(e, "dst", (size_t)rows * (cols + D(3)), PT_OUT, -1, 1, D(0), 0);
    int i = pt_add(e, "src", (size_t)rows * (cols + D(4)), PT_IN, -3, 3);
    if (D(5)) pt_specials(e, i);
}

static void ru_to_half(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    OPS(be)->to_half(be, PH(e, k, 0), D(2) + D(3), P(e, k, 1), D(2) + D(4), D(1), D(2));
    pt_prec(be, 0);
}

/* linear_forward_h: prec, B, C, OC, bias?; ldo = OC + 2, ldi = C + 1 (16-bit) */
static void su_linfh(pt_env *e) {
    int B = D(1), C = D(2), OC = D(3);
    pt_add(e, "out", (size_t)B * (OC + 2), PT_OUT, -1, 1);
    pt_add_half(e, "inp", (size_t)B * (C + 1), PT_IN, -1, 1, D(0), 0);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -1, 1);
    pt_add(e, "bias", (size_t)OC, PT_IN, -1, 1);
}

static void ru_linfh(pt_env *e, gen_backend *be, int k) {
    int B = D(1), C = D(2), OC = D(3);
    pt_prec(be, D(0));
    OPS(be)->linear_forward_h(be, P(e, k, 0), OC + 2, PH(e, k, 1), C + 1, P(e, k, 2),
                              D(4) ? P(e, k, 3) : NULL, B, C, OC);
    pt_prec(be, 0);
}

/* linear_backward_h: prec, B, C, OC, mask (1 dinp, 2 dW, 4 dbias); lddi = C + 3,
 * lddo = OC + 1, ldi = C + 2 (16-bit) */
static void su_linbh(pt_env *e) {
    int B = D(1), C = D(2), OC = D(3);
    pt_add(e, "dinp", (size_t)B * (C + 3), PT_ACC, -1, 1);
    pt_add(e, "dW", (size_t)OC * C, PT_ACC, -1, 1);
    pt_add(e, "dbias", (size_t)OC, PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)B * (OC + 1), PT_IN, -1, 1);
    pt_add_half(e, "inp", (size_t)B * (C + 2), PT_IN, -1, 1, D(0), 0);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -1, 1);
}

static void ru_linbh(pt_env *e, gen_backend *be, int k) {
    int B = D(1), C = D(2), OC = D(3), m = D(4);
    pt_prec(be, D(0));
    OPS(be)->linear_backward_h(be, (m & 1) ? P(e, k, 0) : NULL, C + 3,
                               (m & 2) ? P(e, k, 1) : NULL, (m & 4) ? P(e, k, 2) : NULL,
                               P(e, k, 3), OC + 1, PH(e, k, 4), C + 2, P(e, k, 5), B, C, OC);
    pt_prec(be, 0);
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_GEMM = {"gemm", "ta tb M N K beta0", 2e-4, 1e-4, su_gemm, ru_gemm};
static const pt_op O_LINF = {"linear_forward", "B C OC bias", 2e-4, 1e-4, su_linf, ru_linf};
static const pt_op O_LINACT = {"linear_act_forward", "B C OC bias act", 2e-4, 1e-4, su_linact,
                               ru_linact};
static const pt_op O_LIN1 = {"linear1_forward", "n C nsums bias prec n2", 2e-4, 1e-4, su_lin1,
                             ru_lin1};
/* the column sums of the CUDA kernel's trees against the CPU's row order: colsum_acc's
 * tolerance; dh, da exact up to the product's rounding */
static const pt_op O_LIN1B = {"linear1_backward_act", "n C weights prec", 2e-5, 2e-5, su_lin1b,
                              ru_lin1b};
static const pt_op O_LINS = {"linear_sparse_forward", "B C OC bias dense", 2e-4, 1e-4, su_lins,
                             ru_lins};
static const pt_op O_LINB = {"linear_backward", "B C OC mask", 5e-4, 1e-4, su_linb, ru_linb};
/* mixed precision: FP32's tolerances (see su_gemmx: only the summation order differs) */
static const pt_op O_GEMM_X = {"gemm_mixed", "prec ta tb M N K", 2e-4, 1e-4, su_gemmx, ru_gemmx};
static const pt_op O_LINF_X = {"linear_forward_mixed", "prec B C OC bias", 2e-4, 1e-4, su_linfx,
                               ru_linfx};
static const pt_op O_LINB_X = {"linear_backward_mixed", "prec B C OC mask", 5e-4, 1e-4, su_linbx,
                               ru_linbx};
/* 16-bit stored activations: conversions and ReLU exact (16-bit outputs bit for bit; the
 * backward's += exact too), products with the mixed-precision products' tolerances */
static const pt_op O_TO_HALF = {"to_half", "prec rows cols ldd+ lds+ specials", 0, 0, su_to_half,
                                ru_to_half};
static const pt_op O_LINF_H = {"linear_forward_h", "prec B C OC bias", 2e-4, 1e-4, su_linfh,
                               ru_linfh};
static const pt_op O_LINB_H = {"linear_backward_h", "prec B C OC mask", 5e-4, 1e-4, su_linbh,
                               ru_linbh};

static const pt_case cases[] = {
    /* gemm: every transpose pair on awkward shapes, beta 0 and K = 0 */
    {&O_GEMM, {0, 0, 1, 1, 1, 0}}, {&O_GEMM, {0, 1, 3, 17, 257, 0}},
    {&O_GEMM, {1, 0, 17, 3, 1025, 0}},
    {&O_GEMM, {1, 1, 257, 257, 17, 0}}, {&O_GEMM, {0, 0, 1, 1025, 3, 0}},
    {&O_GEMM, {0, 1, 1025, 1, 257, 0}}, {&O_GEMM, {1, 0, 257, 17, 3, 1}},
    {&O_GEMM, {1, 1, 3, 1025, 17, 1}}, {&O_GEMM, {0, 0, 500, 256, 256, 0}},
    {&O_GEMM, {0, 0, 17, 3, 0, 0}}, {&O_GEMM, {1, 1, 1, 257, 1, 1}},
    {&O_LINF, {1, 1, 1, 1}}, {&O_LINF, {3, 17, 257, 1}}, {&O_LINF, {17, 1025, 3, 0}},
    {&O_LINF, {257, 3, 17, 1}}, {&O_LINF, {50, 1600, 256, 1}}, {&O_LINF, {100, 256, 1, 1}},
    {&O_LINACT, {1, 1, 1, 1, GEN_ACT_RELU}}, {&O_LINACT, {3, 17, 257, 1, GEN_ACT_RELU}},
    {&O_LINACT, {17, 1025, 3, 0, GEN_ACT_RELU}}, {&O_LINACT, {500, 128, 128, 1, GEN_ACT_RELU}},
    {&O_LINACT, {1, 1, 1, 1, GEN_ACT_SILU}}, {&O_LINACT, {257, 3, 17, 1, GEN_ACT_SILU}},
    {&O_LINACT, {256, 128, 128, 0, GEN_ACT_SILU}},
    {&O_LINS, {1, 1, 1, 1, 1}}, {&O_LINS, {3, 17, 257, 1, 0}}, {&O_LINS, {50, 1777, 128, 1, 88}},
    {&O_LINS, {257, 300, 17, 0, 5}}, {&O_LINS, {2, 1025, 3, 1, 1025}},
    {&O_LIN1, {1, 1, 1, 1, 0}}, {&O_LIN1, {100, 256, 2, 1, 0}}, {&O_LIN1, {50, 256, 1, 1, 0}},
    {&O_LIN1, {17, 1025, 0, 0, 0}}, {&O_LIN1, {2050, 64, 2, 1, 0}}, {&O_LIN1, {100, 256, 2, 1, 2}},
    {&O_LIN1, {100, 256, 2, 1, 0, 50}}, {&O_LIN1, {6, 33, 3, 0, 0, 1}},
    {&O_LIN1, {100, 256, 2, 1, 2, 50}}, {&O_LIN1, {0, 7, 0, 1, 0, 5}},
    {&O_LIN1B, {1, 1, 1, 0}}, {&O_LIN1B, {100, 256, 1, 0}}, {&O_LIN1B, {50, 256, 0, 0}},
    {&O_LIN1B, {517, 13, 1, 0}}, {&O_LIN1B, {100, 256, 1, 2}}, {&O_LIN1B, {3, 1025, 1, 0}},
    {&O_LINB, {1, 1, 1, 7}}, {&O_LINB, {3, 17, 257, 7}}, {&O_LINB, {17, 1025, 3, 6}},
    {&O_LINB, {257, 3, 17, 5}}, {&O_LINB, {100, 256, 1, 7}}, {&O_LINB, {1025, 17, 3, 3}},
    {&O_LINB, {500, 256, 300, 7}},
    /* mixed precision (prec 1 tf32, 2 bf16, 3 fp16): every transpose pair, awkward shapes,
     * CTGAN's and TVAE's layer shapes */
    {&O_GEMM_X, {1, 0, 0, 17, 3, 257}}, {&O_GEMM_X, {2, 0, 1, 3, 17, 257}},
    {&O_GEMM_X, {3, 1, 0, 17, 3, 1025}}, {&O_GEMM_X, {2, 1, 1, 257, 257, 17}},
    {&O_GEMM_X, {3, 0, 0, 1, 1, 1}}, {&O_GEMM_X, {1, 1, 1, 3, 1025, 17}},
    {&O_GEMM_X, {2, 0, 0, 500, 256, 256}}, {&O_GEMM_X, {3, 0, 1, 500, 256, 384}},
    {&O_GEMM_X, {3, 0, 0, 17, 3, 0}},
    {&O_LINF_X, {1, 3, 17, 257, 1}}, {&O_LINF_X, {2, 50, 1600, 256, 1}},
    {&O_LINF_X, {3, 257, 3, 17, 0}}, {&O_LINF_X, {3, 500, 384, 256, 1}},
    {&O_LINB_X, {1, 17, 1025, 3, 6}}, {&O_LINB_X, {2, 500, 256, 300, 7}},
    {&O_LINB_X, {3, 3, 17, 257, 7}}, {&O_LINB_X, {3, 500, 256, 128, 7}},
    /* 16-bit stored activations (prec 2 bf16, 3 fp16): awkward shapes, padded rows (odd
     * leading dimensions: values straddle words), CTGAN's residual stack (d2 = 2 g + d0) and
     * TVAE's layers */
    {&O_TO_HALF, {2, 1, 1, 0, 0, 0}}, {&O_TO_HALF, {3, 17, 3, 1, 2, 1}},
    {&O_TO_HALF, {2, 257, 33, 5, 0, 1}}, {&O_TO_HALF, {3, 500, 230, 512, 0, 0}},
    {&O_LINF_H, {2, 1, 1, 1, 1}}, {&O_LINF_H, {3, 3, 17, 257, 1}}, {&O_LINF_H, {2, 257, 3, 17, 0}},
    {&O_LINF_H, {3, 500, 742, 150, 1}}, {&O_LINF_H, {2, 500, 128, 128, 1}},
    {&O_LINB_H, {2, 1, 1, 1, 7}}, {&O_LINB_H, {3, 17, 1025, 3, 6}}, {&O_LINB_H, {2, 3, 17, 257, 7}},
    {&O_LINB_H, {3, 500, 742, 150, 2}}, {&O_LINB_H, {2, 500, 128, 300, 7}},
};

const pt_family pt_family_dense = {"dense", cases, (int)(sizeof cases / sizeof cases[0])};
