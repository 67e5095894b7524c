/*
 * tests/parity/output.c — the parity cases of the backend family `output` (backend.h; CPU:
 * src/backend/cpu/output.c, CUDA: cuda/output.cu): activate_forward/backward, cross_entropy_rows.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* activate_forward: B, layout, tau variant (0: 0.2, 1: 0 = plain softmax, 2: 1.0), offset;
 * ldx = W + 1, ldo = W + 3 */
static float pt_tau(int v) { return v == 0 ? 0.2f : v == 1 ? 0.0f : 1.0f; }

static void su_act_f(pt_env *e) {
    pt_layout(e, D(1));
    pt_add(e, "out", (size_t)D(0) * (e->W + 3), PT_OUT, -1, 1);
    pt_add(e, "x", (size_t)D(0) * (e->W + 1), PT_IN, -4, 4);
}

static void ru_act_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->activate_forward(be, P(e, k, 0), e->W + 3, P(e, k, 1), e->W + 1, D(0), e->spans,
                              e->nspans, pt_tau(D(2)), 4242, GEN_STREAM_NOISE, (uint64_t)D(3),
                              (uint64_t)D(3) % 5);
}

/* activate_backward: B, layout, tau variant ; out holds softmax/tanh-like values */
static void su_act_b(pt_env *e) {
    pt_layout(e, D(1));
    pt_add(e, "dx", (size_t)D(0) * (e->W + 2), PT_ACC, -1, 1);
    pt_add(e, "dout", (size_t)D(0) * (e->W + 1), PT_IN, -1, 1);
    pt_add(e, "out", (size_t)D(0) * (e->W + 3), PT_IN, 0, 1);
}

static void ru_act_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->activate_backward(be, P(e, k, 0), e->W + 2, P(e, k, 1), e->W + 1, P(e, k, 2),
                               e->W + 3, D(0), e->spans, e->nspans, pt_tau(D(2)));
}

/* cross_entropy_rows: B, L, with dlogits ; ldl = L + 1, ldd = L + 2; some rows len 0 */
static void su_ce(pt_env *e) {
    int B = D(0), L = D(1);
    pt_add(e, "loss", 1, PT_OUT, -1, 1);
    pt_add(e, "dlogits", (size_t)B * (L + 2), PT_ACC, -1, 1);
    pt_add(e, "logits", (size_t)B * (L + 1), PT_IN, -6, 6);
    int32_t *st = pt_add_int(e, "start", (size_t)B);
    int32_t *ln = pt_add_int(e, "len", (size_t)B);
    int32_t *tg = pt_add_int(e, "target", (size_t)B);
    gen_rng r;
    gen_rng_init(&r, 55 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++) {
        st[b] = (int32_t)gen_rng_below(&r, (uint64_t)L);
        ln[b] = b % 7 == 3 ? 0 : 1 + (int32_t)gen_rng_below(&r, (uint64_t)(L - st[b]));
        tg[b] = st[b] + (ln[b] ? (int32_t)gen_rng_below(&r, (uint64_t)ln[b]) : 0);
    }
}

static void ru_ce(pt_env *e, gen_backend *be, int k) {
    int L = D(1);
    OPS(be)->cross_entropy_rows(be, P(e, k, 0), D(2) ? P(e, k, 1) : NULL, L + 2, P(e, k, 2), L + 1,
                                D(0), PI(e, k, 3), PI(e, k, 4), PI(e, k, 5), 1.0f / D(0));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_ACT_F = {"activate_forward", "B layout tau offset", 2e-6, 1e-5, su_act_f,
                              ru_act_f};
static const pt_op O_ACT_B = {"activate_backward", "B layout tau", 1e-5, 1e-5, su_act_b, ru_act_b};
static const pt_op O_CE = {"cross_entropy_rows", "B L grads", 1e-6, 1e-5, su_ce, ru_ce};

static const pt_case cases[] = {
    /* generator activations */
    {&O_ACT_F, {1, 0, 0, 0}}, {&O_ACT_F, {3, 1, 0, 1}}, {&O_ACT_F, {17, 2, 0, 5}},
    {&O_ACT_F, {257, 2, 1, 0}}, {&O_ACT_F, {17, 3, 0, 11}}, {&O_ACT_F, {3, 3, 2, 0}},
    {&O_ACT_F, {5, 4, 0, 2}}, {&O_ACT_F, {500, 2, 0, 99}},
    {&O_ACT_B, {1, 0, 0}}, {&O_ACT_B, {3, 1, 0}}, {&O_ACT_B, {17, 2, 0}}, {&O_ACT_B, {257, 2, 1}},
    {&O_ACT_B, {17, 3, 0}}, {&O_ACT_B, {5, 4, 2}},
    {&O_CE, {1, 1, 1}}, {&O_CE, {3, 17, 1}}, {&O_CE, {17, 3, 0}}, {&O_CE, {257, 300, 1}},
    {&O_CE, {1025, 17, 1}},
};

const pt_family pt_family_output = {"output", cases, (int)(sizeof cases / sizeof cases[0])};
