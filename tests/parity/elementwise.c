/*
 * tests/parity/elementwise.c — the parity cases of the backend family `elementwise` (backend.h;
 * CPU: src/backend/cpu/elementwise.c, CUDA: cuda/elementwise.cu): ReLU (also on 16-bit stored
 * outputs), leaky ReLU, the products, an activation's backward with the bias gradient
 * (act_backward_bias), sum, the step's ledger (ledger_add), clamp, any_nonfinite.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* relu_forward_h: prec, rows, cols, ldo pad, ldi pad, specials */
static void su_relufh(pt_env *e) {
    int rows = D(1), cols = D(2);
    pt_add_half(e, "out", (size_t)rows * (cols + D(3)), PT_OUT, -1, 1, D(0), 0);
    int i = pt_add(e, "inp", (size_t)rows * (cols + D(4)), PT_IN, -2, 2);
    if (D(5)) pt_specials(e, i);
}

static void ru_relufh(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    OPS(be)->relu_forward_h(be, PH(e, k, 0), D(2) + D(3), P(e, k, 1), D(2) + D(4), D(1), D(2));
    pt_prec(be, 0);
}

/* relu_backward_h: prec, rows, cols, ldo pad, specials (in the stored output) */
static void su_relubh(pt_env *e) {
    size_t n = (size_t)D(1) * D(2);
    pt_add(e, "dinp", n, PT_ACC, -1, 1);
    int i = pt_add(e, "dout", n, PT_IN, -2, 2);
    if (D(4)) pt_specials(e, i);
    pt_add_half(e, "out", (size_t)D(1) * (D(2) + D(3)), PT_IN, -1, 1, D(0), D(4));
}

static void ru_relubh(pt_env *e, gen_backend *be, int k) {
    pt_prec(be, D(0));
    OPS(be)->relu_backward_h(be, P(e, k, 0), P(e, k, 1), PH(e, k, 2), D(2) + D(3), D(1), D(2));
    pt_prec(be, 0);
}

static void su_ew3(pt_env *e) { /* acc/out, a, b */
    pt_add(e, "dinp", (size_t)D(0), PT_ACC, -1, 1);
    int a = pt_add(e, "a", (size_t)D(0), PT_IN, -2, 2);
    int b = pt_add(e, "b", (size_t)D(0), PT_IN, -2, 2);
    if (D(1)) {
        pt_specials(e, a);
        pt_specials(e, b);
    }
}

static void ru_relu_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->relu_forward(be, P(e, k, 0), P(e, k, 1), (size_t)D(0));
}

static void ru_relu_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->relu_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0));
}

static void ru_lrelu_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->leaky_relu_forward(be, P(e, k, 0), P(e, k, 1), (size_t)D(0), 0.2f);
}

static void ru_lrelu_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->leaky_relu_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0), 0.2f);
}

static void ru_mul(pt_env *e, gen_backend *be, int k) {
    OPS(be)->mul(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0));
}

/* act_backward_bias: rows, cols, act (GEN_ACT_*), bias (1) or none (0) */
static void su_abb(pt_env *e) {
    size_t n = (size_t)D(0) * D(1);
    pt_add(e, "dinp", n, PT_ACC, -1, 1);
    pt_add(e, "dbias", (size_t)D(1), PT_ACC, -1, 1);
    pt_add(e, "dout", n, PT_IN, -1, 1);
    pt_add(e, "x", n, PT_IN, -2, 2);
}

static void ru_abb(pt_env *e, gen_backend *be, int k) {
    OPS(be)->act_backward_bias(be, P(e, k, 0), D(3) ? P(e, k, 1) : NULL, P(e, k, 2), P(e, k, 3),
                               D(0), D(1), D(2));
}

/* ledger_add: k, n */
static void su_ledger(pt_env *e) {
    pt_add(e, "rec", (size_t)D(0) + 1, PT_OUT, -1, 1);
    pt_add(e, "tmp", 1, PT_OUT, -1, 1);
    pt_add(e, "acc", 1, PT_ACC, -1, 1);
    pt_add(e, "sums", (size_t)D(0) > 0 ? (size_t)D(0) : 1, PT_IN, -3, 3);
    pt_add(e, "g", (size_t)D(1) > 0 ? (size_t)D(1) : 1, PT_IN, -1, 1);
}

static void ru_ledger(pt_env *e, gen_backend *be, int k) {
    OPS(be)->ledger_add(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3), D(0), P(e, k, 4),
                        (size_t)D(1));
}

static void ru_mul_acc(pt_env *e, gen_backend *be, int k) {
    OPS(be)->mul_acc(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0));
}

static void ru_slope_mask(pt_env *e, gen_backend *be, int k) {
    OPS(be)->leaky_slope_mask(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0), 0.2f);
}

static void su_clamp(pt_env *e) {
    int i = pt_add(e, "x", (size_t)D(0), PT_ACC, -2, 2);
    if (D(1)) pt_specials(e, i);
}

static void ru_clamp(pt_env *e, gen_backend *be, int k) {
    OPS(be)->clamp(be, P(e, k, 0), (size_t)D(0), 0.01f, 1.0f);
}

static void su_sum(pt_env *e) {
    pt_add(e, "out", 1, PT_OUT, -1, 1);
    int i = pt_add(e, "x", (size_t)D(0), PT_IN, -1, 1.5f);
    if (D(1)) pt_specials(e, i);
}

static void ru_sum(pt_env *e, gen_backend *be, int k) {
    OPS(be)->sum(be, P(e, k, 0), P(e, k, 1), (size_t)D(0));
}

/* mul_rowvec: rows, cols */
static void su_rowvec(pt_env *e) {
    pt_add(e, "out", (size_t)D(0) * D(1), PT_OUT, -1, 1);
    pt_add(e, "s", (size_t)D(0) * D(1), PT_IN, -1, 1);
    pt_add(e, "v", (size_t)D(1), PT_IN, -1, 1);
}

static void ru_rowvec(pt_env *e, gen_backend *be, int k) {
    OPS(be)->mul_rowvec(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), D(0), D(1));
}

/* any_nonfinite: n, where (-1 none, 0 first, 1 last, 2 middle), kind (0 NaN, 1 +Inf, 2 -Inf) */
static void su_nonfinite(pt_env *e) {
    int i = pt_add(e, "x", (size_t)D(0), PT_IN, -1e30f, 1e30f);
    float *h = pt_host(e, i);
    size_t n = (size_t)D(0);
    float v = D(2) == 0 ? NAN : D(2) == 1 ? INFINITY : -INFINITY;
    if (D(1) == 0) h[0] = v;
    if (D(1) == 1) h[n - 1] = v;
    if (D(1) == 2) h[n / 2] = v;
    e->has_iret = 1;
}

static void ru_nonfinite(pt_env *e, gen_backend *be, int k) {
    e->iret[k] = OPS(be)->any_nonfinite(be, P(e, k, 0), (size_t)D(0));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_RELU_F = {"relu_forward", "n specials", 0, 0, su_ew2, ru_relu_f};
static const pt_op O_RELU_B = {"relu_backward", "n specials", 0, 0, su_ew3, ru_relu_b};
static const pt_op O_LRELU_F = {"leaky_relu_forward", "n specials", 0, 0, su_ew2, ru_lrelu_f};
static const pt_op O_LRELU_B = {"leaky_relu_backward", "n specials", 1e-6, 1e-6, su_ew3,
                                ru_lrelu_b};
static const pt_op O_MUL = {"mul", "n specials", 0, 0, su_ew3, ru_mul};
/* the column sums are in float in another order than the CPU's: a sum of rows terms */
static const pt_op O_ABB = {"act_backward_bias", "rows cols act bias", 2e-5, 2e-5, su_abb, ru_abb};
/* sums in double on both sides, in another order */
static const pt_op O_LEDGER = {"ledger_add", "k n", 1e-5, 1e-6, su_ledger, ru_ledger};
static const pt_op O_MUL_ACC = {"mul_acc", "n specials", 1e-6, 1e-6, su_ew3, ru_mul_acc};
static const pt_op O_SLOPE = {"leaky_slope_mask", "n specials", 0, 0, su_ew3, ru_slope_mask};
static const pt_op O_ROWVEC = {"mul_rowvec", "rows cols", 0, 0, su_rowvec, ru_rowvec};
static const pt_op O_SUM = {"sum", "n specials", 1e-5, 1e-6, su_sum, ru_sum};
static const pt_op O_CLAMP = {"clamp", "n specials", 0, 0, su_clamp, ru_clamp};
static const pt_op O_NONFINITE = {"any_nonfinite", "n where kind", 0, 0, su_nonfinite,
                                  ru_nonfinite};
static const pt_op O_RELU_FH = {"relu_forward_h", "prec rows cols ldo+ ldi+ specials", 0, 0,
                                su_relufh,
               ru_relufh};
static const pt_op O_RELU_BH = {"relu_backward_h", "prec rows cols ldo+ specials", 0, 0,
                                su_relubh, ru_relubh};

static const pt_case cases[] = {
    /* element-wise */
    {&O_ABB, {1, 1, GEN_ACT_RELU, 1}}, {&O_ABB, {3, 17, GEN_ACT_RELU, 1}},
    {&O_ABB, {500, 256, GEN_ACT_RELU, 1}}, {&O_ABB, {17, 257, GEN_ACT_SILU, 1}},
    {&O_ABB, {256, 128, GEN_ACT_SILU, 0}}, {&O_ABB, {100, 256, GEN_ACT_SCALE, 1}},
    {&O_ABB, {1025, 3, GEN_ACT_SCALE, 1}}, {&O_ABB, {33, 65, GEN_ACT_SCALE, 0}},
    {&O_LEDGER, {4, 1}}, {&O_LEDGER, {2, 1024}}, {&O_LEDGER, {4, 1025}}, {&O_LEDGER, {2, 300001}},
    {&O_LEDGER, {0, 17}}, {&O_LEDGER, {4, 0}},
    {&O_RELU_F, {1, 0}}, {&O_RELU_F, {1025, 0}}, {&O_RELU_F, {65539, 1}},
    {&O_RELU_B, {3, 0}}, {&O_RELU_B, {257, 0}}, {&O_RELU_B, {65539, 1}},
    {&O_LRELU_F, {17, 0}}, {&O_LRELU_F, {1025, 1}},
    {&O_LRELU_B, {1, 0}}, {&O_LRELU_B, {257, 0}}, {&O_LRELU_B, {65539, 1}},
    {&O_MUL, {3, 0}}, {&O_MUL, {1025, 1}}, {&O_MUL_ACC, {17, 0}}, {&O_MUL_ACC, {65539, 1}},
    {&O_SLOPE, {1, 0}}, {&O_SLOPE, {1025, 1}},
    {&O_ROWVEC, {1, 1}}, {&O_ROWVEC, {17, 3}}, {&O_ROWVEC, {257, 1025}},
    {&O_SUM, {1, 0}}, {&O_SUM, {3, 0}}, {&O_SUM, {1025, 0}}, {&O_SUM, {1000003, 0}},
    {&O_SUM, {257, 1}},
    {&O_CLAMP, {17, 0}}, {&O_CLAMP, {1025, 1}},
    /* any_nonfinite */
    {&O_NONFINITE, {1, -1, 0}}, {&O_NONFINITE, {1, 0, 0}}, {&O_NONFINITE, {3, 1, 1}},
    {&O_NONFINITE, {257, 2, 2}}, {&O_NONFINITE, {1025, -1, 0}}, {&O_NONFINITE, {1000003, 1, 0}},
    {&O_NONFINITE, {1000003, -1, 0}},
    {&O_RELU_FH, {2, 1, 1, 0, 0, 0}}, {&O_RELU_FH, {3, 17, 3, 1, 2, 1}},
    {&O_RELU_FH, {2, 257, 33, 3, 0, 1}}, {&O_RELU_FH, {3, 500, 256, 486, 0, 1}},
    {&O_RELU_BH, {2, 1, 1, 0, 0}}, {&O_RELU_BH, {3, 17, 3, 1, 1}}, {&O_RELU_BH, {2, 257, 33, 3, 1}},
    {&O_RELU_BH, {3, 500, 256, 486, 1}},
};

const pt_family pt_family_elementwise = {"elementwise",
                                         cases, (int)(sizeof cases / sizeof cases[0])};
