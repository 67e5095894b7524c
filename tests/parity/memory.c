/*
 * tests/parity/memory.c — the parity cases of the backend family `memory` (backend.h; CPU:
 * src/backend/cpu/memory.c, CUDA: cuda/memory.cu): zero, copy2d (alloc/upload/download/free:
 * every case, and test_backend_basics in main.c).
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

static void su_zero(pt_env *e) { pt_add(e, "x", (size_t)D(0), PT_OUT, -1, 1); }

static void ru_zero(pt_env *e, gen_backend *be, int k) {
    OPS(be)->zero(be, P(e, k, 0), (size_t)D(0));
}

/* copy2d: rows, cols, ldd pad, lds pad */
static void su_copy2d(pt_env *e) {
    pt_add(e, "dst", (size_t)D(0) * (D(1) + D(2)), PT_OUT, -1, 1);
    pt_add(e, "src", (size_t)D(0) * (D(1) + D(3)), PT_IN, -1, 1);
}

static void ru_copy2d(pt_env *e, gen_backend *be, int k) {
    OPS(be)->copy2d(be, P(e, k, 0), D(1) + D(2), P(e, k, 1), D(1) + D(3), D(0), D(1));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_ZERO = {"zero", "n", 0, 0, su_zero, ru_zero};
static const pt_op O_COPY2D = {"copy2d", "rows cols ldd+ lds+", 0, 0, su_copy2d, ru_copy2d};

static const pt_case cases[] = {
    {&O_ZERO, {1}}, {&O_ZERO, {1025}}, {&O_ZERO, {65539}},
    {&O_COPY2D, {1, 1, 0, 0}}, {&O_COPY2D, {3, 17, 2, 5}}, {&O_COPY2D, {257, 3, 1, 0}},
    {&O_COPY2D, {17, 1025, 0, 3}},
};

const pt_family pt_family_memory = {"memory", cases, (int)(sizeof cases / sizeof cases[0])};
