/*
 * tests/parity/graph.c — the parity cases of the backend family `graph` (backend.h; CPU:
 * src/backend/cpu/graph.c, CUDA: cuda/graph.cu): the device step state a recorded step reads,
 * select_block and step_advance (exact: integer copies and sums, compared bit for bit).
 * Recording itself (graph_begin/end/launch/free; NULL on the CPU) is checked by
 * tests/test_cuda_graphs.c: recorded steps against issued ones.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

#define PT_STATE_WORDS (sizeof(gen_step_state) / 4)

/* A step state in backend memory (buffer role `role`, compared bit for bit). */
static int pt_add_state(pt_env *e, const char *name, int role, gen_step_state st) {
    int i = pt_add(e, name, PT_STATE_WORDS, role, 0, 0);
    memcpy(e->b[i].host, &st, sizeof st);
    e->b[i].bits = role != PT_IN;
    return i;
}

/* select_block: n, K blocks of draws, the block k the state names (k < K) */
static void su_select(pt_env *e) {
    size_t n = (size_t)D(0), K = (size_t)D(1);
    int o = pt_add(e, "dst", n, PT_OUT, -1, 1);
    e->b[o].bits = 1;
    int32_t *src = pt_add_int(e, "src", n * K);
    for (size_t i = 0; i < n * K; i++) /* in [-2^23, 2^23): no overflow */
        src[i] = (int32_t)((uint32_t)(i * 2654435761u) >> 8) - (1 << 23);
    gen_step_state st = {.rng = 99, .t = {3, 4}, .k = D(2)};
    pt_add_state(e, "st", PT_IN, st);
}
static void ru_select(pt_env *e, gen_backend *be, int k) {
    OPS(be)->select_block(be, PI(e, k, 0), PI(e, k, 1), (size_t)D(0),
                          (const gen_step_state *)(void *)P(e, k, 2));
}

/* step_advance: the increments of rng, t[0], t[1], k (added to a state far from zero) */
static void su_advance(pt_env *e) {
    gen_step_state st = {.rng = 0xFFFFFFF0ull, .t = {1000, 1ll << 40}, .k = 5};
    pt_add_state(e, "st", PT_ACC, st);
}
static void ru_advance(pt_env *e, gen_backend *be, int k) {
    gen_step_state d = {.rng = (uint64_t)D(0), .t = {D(1), D(2)}, .k = D(3)};
    OPS(be)->step_advance(be, (gen_step_state *)(void *)P(e, k, 0), d);
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_SELECT = {"select_block", "n K k", 0, 0, su_select, ru_select};
static const pt_op O_ADVANCE = {"step_advance", "rng t0 t1 k", 0, 0, su_advance, ru_advance};

static const pt_case cases[] = {
    {&O_SELECT, {1, 1, 0}}, {&O_SELECT, {17, 3, 2}}, {&O_SELECT, {1025, 4, 1}},
    {&O_SELECT, {65539, 2, 1}},
    {&O_ADVANCE, {0, 0, 0, 0}}, {&O_ADVANCE, {1, 1, 0, 1}}, {&O_ADVANCE, {1000, 0, 2, 0}},
    {&O_ADVANCE, {123457, 7, 7, 3}},
};

const pt_family pt_family_graph = {"graph", cases, (int)(sizeof cases / sizeof cases[0])};
