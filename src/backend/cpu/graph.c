/*
 * graph.c — the CPU backend's `graph` family (backend.h; docs/cuda.md, "CUDA graphs"): the
 * device step state a recorded step reads (select_block, step_advance). The CPU records
 * nothing: graph_begin/end/launch/free are NULL in its table, and callers then issue their
 * work normally. CUDA: cuda/graph.cu; parity: tests/parity/graph.c.
 */
#include "cpu_internal.h"

void gen_cpu_select_block(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                          const gen_step_state *st) {
    (void)be;
    memcpy(dst, src + (size_t)st->k * n, n * sizeof(int32_t));
}
void gen_cpu_step_advance(gen_backend *be, gen_step_state *st, gen_step_state d) {
    (void)be;
    st->rng += d.rng;
    st->t[0] += d.t[0];
    st->t[1] += d.t[1];
    st->k += d.k;
}
