/*
 * tests/parity/gru.c — the parity cases of the backend family `gru` (backend.h; CPU:
 * src/backend/cpu/gru.c, CUDA: cuda/gru.cu): sigmoid_forward/backward, gru_forward/backward (the
 * kernels of cuda/gru.cu: GENESIS_CUDNN_GRU=0).
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* sigmoid_forward / sigmoid_backward: n, specials */
static void ru_sig_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->sigmoid_forward(be, P(e, k, 0), P(e, k, 1), (size_t)D(0));
}

static void su_sig_b(pt_env *e) {
    size_t n = (size_t)D(0);
    pt_add(e, "dinp", n, PT_ACC, -1, 1);
    pt_add(e, "dout", n, PT_IN, -1, 1);
    pt_add(e, "out", n, PT_IN, 0, 1);
}

static void ru_sig_b(pt_env *e, gen_backend *be, int k) {
    OPS(be)->sigmoid_backward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), (size_t)D(0));
}

/* gru_forward, and gru_forward then gru_backward: B T C H h0 wgrad (reset-after cell) */
static void su_gru(pt_env *e) {
    size_t B = (size_t)D(0), T = (size_t)D(1), C = (size_t)D(2), H = (size_t)D(3);
    pt_add(e, "y", B * T * H, PT_OUT, -1, 1);
    pt_add(e, "save", B * T * 4 * H, PT_OUT, -1, 1);
    pt_add(e, "x", B * T * C, PT_IN, -1, 1);
    pt_add(e, "h0", B * H, PT_IN, -0.9f, 0.9f);
    pt_add(e, "W", gen_gru_weight_floats((int)C, (int)H), PT_IN, -0.5f, 0.5f);
    pt_add(e, "b", gen_gru_bias_floats((int)H), PT_IN, -0.5f, 1);
}

static void ru_gru_f(pt_env *e, gen_backend *be, int k) {
    OPS(be)->gru_forward(be, P(e, k, 0), P(e, k, 1), P(e, k, 2), D(4) ? P(e, k, 3) : NULL,
                         P(e, k, 4), P(e, k, 5), D(0), D(1), D(2), D(3));
}

static void su_gru_b(pt_env *e) {
    su_gru(e);
    size_t B = (size_t)D(0), T = (size_t)D(1), C = (size_t)D(2), H = (size_t)D(3);
    pt_add(e, "dx", B * T * C, PT_ACC, -1, 1);
    pt_add(e, "dh0", B * H, PT_ACC, -1, 1);
    pt_add(e, "dW", gen_gru_weight_floats((int)C, (int)H), PT_ACC, -1, 1);
    pt_add(e, "db", gen_gru_bias_floats((int)H), PT_ACC, -1, 1);
    /* scratch: its layout (backend.h) is each backend's own business after G */
    pt_add(e, "work", gen_gru_work_floats((int)B, (int)T, (int)H), PT_SCRATCH, -1, 1);
    pt_add(e, "dy", B * T * H, PT_IN, -1, 1);
}

static void ru_gru_b(pt_env *e, gen_backend *be, int k) {
    ru_gru_f(e, be, k);
    int h0 = D(4), wg = D(5);
    OPS(be)->gru_backward(be, P(e, k, 6), h0 ? P(e, k, 7) : NULL, wg ? P(e, k, 8) : NULL,
                          wg ? P(e, k, 9) : NULL, P(e, k, 10), P(e, k, 11), P(e, k, 2),
                          h0 ? P(e, k, 3) : NULL, P(e, k, 0), P(e, k, 1), P(e, k, 4), D(0), D(1),
                          D(2), D(3));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_SIG_F = {"sigmoid_forward", "n specials", 1e-6, 1e-6, su_ew2, ru_sig_f};
static const pt_op O_SIG_B = {"sigmoid_backward", "n", 1e-6, 1e-6, su_sig_b, ru_sig_b};
static const pt_op O_GRU_F = {"gru_forward", "B T C H h0", 2e-5, 1e-4, su_gru, ru_gru_f};
static const pt_op O_GRU_B = {"gru_backward", "B T C H h0 wgrad", 1e-4, 1e-4, su_gru_b, ru_gru_b};

static const pt_case cases[] = {
    /* TimeGAN: sigmoid heads, reset-after GRU layer (forward; forward + backward through time) */
    {&O_SIG_F, {1, 0}}, {&O_SIG_F, {1025, 1}}, {&O_SIG_B, {3}}, {&O_SIG_B, {65539}},
    {&O_GRU_F, {1, 1, 1, 1, 1}}, {&O_GRU_F, {3, 5, 17, 4, 0}}, {&O_GRU_F, {128, 24, 6, 24, 0}},
    {&O_GRU_F, {17, 3, 24, 24, 1}},
    {&O_GRU_B, {1, 1, 1, 1, 1, 1}}, {&O_GRU_B, {3, 5, 17, 4, 0, 1}},
    {&O_GRU_B, {17, 3, 24, 24, 1, 0}},
    {&O_GRU_B, {128, 24, 6, 24, 0, 1}}, {&O_GRU_B, {5, 7, 3, 2, 1, 1}},
    /* the fused recurrence's edges (cuda/gru.cu: a block per batch row, its threads striding
     * over the hidden units): H above one block's 256 threads, H = 512 (its widest), and
     * H = 513, which takes the per-step kernels and GEMMs; H = 1024 on the per-step path */
    {&O_GRU_F, {3, 4, 5, 300, 1}}, {&O_GRU_B, {3, 4, 5, 300, 1, 1}}, {&O_GRU_B, {2, 3, 2, 33, 0, 1}},
    {&O_GRU_F, {2, 2, 1, 512, 1}}, {&O_GRU_B, {1, 2, 2, 512, 1, 1}},
    {&O_GRU_F, {2, 2, 1, 513, 1}}, {&O_GRU_B, {1, 2, 2, 513, 1, 1}},
    {&O_GRU_F, {2, 2, 1, 1024, 1}}, {&O_GRU_B, {1, 2, 2, 1024, 1, 1}},
};

const pt_family pt_family_gru = {"gru", cases, (int)(sizeof cases / sizeof cases[0])};
