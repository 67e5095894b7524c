/*
 * tests/parity/random.c — the parity cases of the backend family `random` (backend.h; CPU:
 * src/backend/cpu/random.c, CUDA: cuda/random.cu): fill_normal, fill_uniform, dropout_forward,
 * lrelu_dropout_forward, linear_lrelu_dropout_forward, normal_onehot_rows
 * (Philox: the same bits on every backend).
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* dropout: n, p (percent), offset */
static void su_dropout(pt_env *e) {
    pt_add(e, "out", (size_t)D(0), PT_OUT, -1, 1);
    pt_add(e, "mask", (size_t)D(0), PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)D(0), PT_IN, -1, 1);
}

static void ru_dropout(pt_env *e, gen_backend *be, int k) {
    OPS(be)->dropout_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0), D(1) / 100.0f,
                             12345, GEN_STREAM_NOISE, (uint64_t)D(2));
}

/* leaky ReLU + dropout: n, p (percent), offset */
static void su_lrelu_dropout(pt_env *e) {
    pt_add(e, "out", (size_t)D(0), PT_OUT, -1, 1);
    pt_add(e, "s", (size_t)D(0), PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)D(0), PT_IN, -1, 1);
}

static void ru_lrelu_dropout(pt_env *e, gen_backend *be, int k) {
    OPS(be)->lrelu_dropout_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0), 0.2f,
                                   D(1) / 100.0f, 12345, GEN_STREAM_NOISE, (uint64_t)D(2));
}

/* linear + leaky ReLU + dropout: B, C, OC, bias (1) or none, p (percent), offset; ldi C + 1 */
/* linear_lrelu_dropout_forward's buffers for B rows of C inputs (and a ones column) to OC */
static void llrd_buffers(pt_env *e, int B, int C, int OC) {
    pt_add(e, "out", (size_t)B * OC, PT_OUT, -1, 1);
    pt_add(e, "s", (size_t)B * OC, PT_OUT, -1, 1);
    pt_add(e, "pre", (size_t)B * OC, PT_OUT, -1, 1);
    pt_add(e, "inp", (size_t)B * (C + 1), PT_IN, -1, 1);
    pt_add(e, "W", (size_t)OC * C, PT_IN, -1, 1);
    pt_add(e, "bias", (size_t)OC, PT_IN, -1, 1);
}

static void su_llrd(pt_env *e) { llrd_buffers(e, D(0), D(1), D(2)); }

static void ru_llrd(pt_env *e, gen_backend *be, int k) {
    OPS(be)->linear_lrelu_dropout_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                          D(1) + 1, P(e, k, 4), D(3) ? P(e, k, 5) : NULL, D(0),
                                          D(1), D(2), 0.2f, D(4) / 100.0f, 12345,
                                          GEN_STREAM_NOISE, (uint64_t)D(5), 0, 0);
}

/* the same with a second segment of B2 rows drawing from offset2 (CTGAN's critic on the
 * joint fake|real rows and the interpolates): B, C, OC, B2, offset, offset2; bias, p 50% */
static void su_llrd2(pt_env *e) { llrd_buffers(e, D(0) + D(3), D(1), D(2)); }

static void ru_llrd2(pt_env *e, gen_backend *be, int k) {
    OPS(be)->linear_lrelu_dropout_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), P(e, k, 3),
                                          D(1) + 1, P(e, k, 4), P(e, k, 5), D(0), D(1), D(2),
                                          0.2f, 0.5f, 12345, GEN_STREAM_NOISE, (uint64_t)D(4),
                                          D(3), (uint64_t)D(5));
}

/* the generator's input: B, emb, w, extra columns of ld, offset */
static void su_normal_onehot(pt_env *e) {
    int B = D(0), emb = D(1), w = D(2);
    pt_add(e, "out", (size_t)B * (emb + w + D(3)), PT_OUT, -1, 1);
    int32_t *pos = pt_add_int(e, "pos", (size_t)B);
    gen_rng r;
    gen_rng_init(&r, 97 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++)
        pos[b] = b % 7 == 5 ? -1 : (int32_t)gen_rng_below(&r, (uint64_t)(w > 0 ? w : 1));
}

static void ru_normal_onehot(pt_env *e, gen_backend *be, int k) {
    OPS(be)->normal_onehot_rows(be, P(e, k, 0), D(1) + D(2) + D(3), NULL, NULL, D(1), D(2),
                                PI(e, k, 1), D(0), 777, GEN_STREAM_NOISE,
                                (uint64_t)D(4));
}

/* fills: n, offset */
static void su_fill(pt_env *e) { pt_add(e, "x", (size_t)D(0), PT_OUT, -1, 1); }

static void ru_fill_normal(pt_env *e, gen_backend *be, int k) {
    OPS(be)->fill_normal(be, P(e, k, 0), (size_t)D(0), 777, GEN_STREAM_NOISE, (uint64_t)D(1));
}

static void ru_fill_uniform(pt_env *e, gen_backend *be, int k) {
    OPS(be)->fill_uniform(be, P(e, k, 0), (size_t)D(0), 777, 9, (uint64_t)D(1));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_DROPOUT = {"dropout_forward", "n p% offset", 0, 0, su_dropout, ru_dropout};
static const pt_op O_LRELU_DROPOUT = {"lrelu_dropout_forward", "n p% offset", 0, 0,
                                     su_lrelu_dropout, ru_lrelu_dropout};
/* the product's tolerances (dense.c's linear_forward); the leaky ReLU and mask are exact, but
 * a pre-activation within rounding of 0 may take the other slope: s compared with the same
 * tolerance, which such a flip would exceed (0.4 vs 2) */
static const pt_op O_LLRD = {"linear_lrelu_dropout_forward", "B C OC bias p% offset", 2e-4, 1e-4,
                             su_llrd, ru_llrd};
static const pt_op O_LLRD2 = {"linear_lrelu_dropout_forward", "B C OC B2 offset offset2", 2e-4,
                              1e-4, su_llrd2, ru_llrd2};
/* the normals: fill_normal's tolerance (the transcendental functions' last ulp) */
static const pt_op O_NORMAL_ONEHOT = {"normal_onehot_rows", "B emb w ld+ offset", 2e-6, 2e-6,
                                      su_normal_onehot, ru_normal_onehot};
static const pt_op O_FILL_N = {"fill_normal", "n offset", 2e-6, 2e-6, su_fill, ru_fill_normal};
static const pt_op O_FILL_U = {"fill_uniform", "n offset", 0, 0, su_fill, ru_fill_uniform};

static const pt_case cases[] = {
    /* Philox */
    {&O_DROPOUT, {1, 50, 0}}, {&O_DROPOUT, {3, 50, 7}}, {&O_DROPOUT, {1025, 50, 123}},
    {&O_DROPOUT, {65539, 20, 5}}, {&O_DROPOUT, {257, 100, 0}}, {&O_DROPOUT, {257, 0, 0}},
    {&O_LRELU_DROPOUT, {1, 50, 0}}, {&O_LRELU_DROPOUT, {3, 50, 7}},
    {&O_LRELU_DROPOUT, {1025, 50, 123}}, {&O_LRELU_DROPOUT, {65539, 20, 5}},
    {&O_LRELU_DROPOUT, {257, 100, 0}}, {&O_LRELU_DROPOUT, {257, 0, 0}},
    {&O_LLRD, {1, 1, 1, 1, 50, 0}}, {&O_LLRD, {3, 17, 257, 1, 50, 7}},
    {&O_LLRD, {100, 64, 256, 1, 50, 123}}, {&O_LLRD, {17, 1025, 3, 0, 20, 5}},
    {&O_LLRD2, {1, 1, 1, 1, 0, 9}}, {&O_LLRD2, {3, 17, 5, 2, 7, 100}},
    {&O_LLRD2, {100, 64, 256, 50, 123, 40000}}, {&O_LLRD2, {0, 5, 3, 4, 0, 11}},
    {&O_NORMAL_ONEHOT, {1, 1, 1, 0, 0}}, {&O_NORMAL_ONEHOT, {40, 8, 13, 0, 5}},
    {&O_NORMAL_ONEHOT, {500, 128, 101, 3, 77}}, {&O_NORMAL_ONEHOT, {17, 7, 3, 1, 2}},
    {&O_FILL_N, {1, 0}}, {&O_FILL_N, {3, 9}}, {&O_FILL_N, {1025, 1}}, {&O_FILL_N, {65539, 100000}},
    {&O_FILL_U, {1, 0}}, {&O_FILL_U, {17, 3}}, {&O_FILL_U, {65539, 77}},
};

const pt_family pt_family_random = {"random", cases, (int)(sizeof cases / sizeof cases[0])};
