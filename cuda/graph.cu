/*
 * graph.cu — the CUDA backend's `graph` family (backend.h): recorded training steps (CUDA graphs)
 * and the device step state they read (docs/cuda.md, "CUDA graphs"). A model records one training
 * step with stream capture (cudaStreamBeginCapture in thread-local mode ... cudaStreamEndCapture,
 * then cudaGraphInstantiate) and replays it with one cudaGraphLaunch per step; what changes from
 * step to step lives in a gen_step_state in device memory, which the kernels read when they run
 * (random counter offsets, Adam's step counts, the step's block of draws) and which
 * k_step_advance moves on at the end of each step, inside the graph. While the stream is captured
 * the backend refuses to wait for the GPU or upload (gen_cuda_sync, gen_cuda_upload: a replay
 * would read a staging buffer long reused); cudaMalloc in a capture is refused by CUDA itself
 * (thread-local mode, this thread). CUDA Programming Guide, "CUDA Graphs" / "Stream Capture".
 * CPU: src/backend/cpu/graph.c; parity: tests/parity/graph.c.
 */
#include <stdlib.h>

#include "cuda_common.cuh"

struct gen_graph {
    cudaGraphExec_t exec;
};

__global__ void k_select_block(int32_t *__restrict__ dst, const int32_t *__restrict__ src,
                               size_t n, const gen_step_state *__restrict__ st) {
    const int32_t *from = src + (size_t)st->k * n;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = from[i];
}

__global__ void k_step_advance(gen_step_state *st, gen_step_state d) {
    st->rng += d.rng;
    st->t[0] += d.t[0];
    st->t[1] += d.t[1];
    st->k += d.k;
}

genesis_status gen_cu_select_block(gen_cuda *cu, int32_t *dst, const int32_t *src, size_t n,
                                   const gen_step_state *st) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_select_block, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(dst, src, n, st);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_step_advance(gen_cuda *cu, gen_step_state *st, gen_step_state d) {
    GEN_LAUNCH(k_step_advance, 1, 1, 0, cu->stream)(st, d);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

int gen_cu_graph_begin(gen_cuda *cu) {
    if (!cu->graphs || cu->sync_each || cu->capturing || cu->wait) return 0;
    cudaError_t e = cudaStreamBeginCapture(cu->stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
        gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudaStreamBeginCapture", __FILE__, __LINE__,
                      cudaGetErrorString(e));
        return 0;
    }
    cu->capturing = 1;
    return 1;
}

gen_graph *gen_cu_graph_end(gen_cuda *cu) {
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(cu->stream, &g);
    cu->capturing = 0;
    if (e != cudaSuccess || !g) {
        cudaGetLastError();
        gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudaStreamEndCapture", __FILE__, __LINE__,
                      cudaGetErrorString(e));
        return NULL;
    }
    if (cu->status != GENESIS_OK) { /* an operation failed while it was being recorded */
        cudaGraphDestroy(g);
        return NULL;
    }
    gen_graph *r = (gen_graph *)calloc(1, sizeof *r);
    if (!r) {
        cudaGraphDestroy(g);
        gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "calloc", __FILE__, __LINE__,
                      "out of host memory for a CUDA graph");
        return NULL;
    }
    e = cudaGraphInstantiate(&r->exec, g, 0);
    cudaGraphDestroy(g); /* the executable graph keeps what it needs */
    if (e != cudaSuccess) {
        free(r);
        gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudaGraphInstantiate", __FILE__, __LINE__,
                      cudaGetErrorString(e));
        return NULL;
    }
    return r;
}

genesis_status gen_cu_graph_launch(gen_cuda *cu, gen_graph *g) {
    GEN_CUDA_TRY(cu, cudaGraphLaunch(g->exec, cu->stream));
    return GENESIS_OK;
}

void gen_cu_graph_free(gen_cuda *cu, gen_graph *g) {
    (void)cu;
    if (!g) return;
    cudaGraphExecDestroy(g->exec);
    free(g);
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_select_block(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                            const gen_step_state *st) {
    GEN_CUDA_RUN(be, "select_block", gen_cu_select_block(cu, dst, src, n, st));
}

static void op_step_advance(gen_backend *be, gen_step_state *st, gen_step_state d) {
    GEN_CUDA_RUN(be, "step_advance", gen_cu_step_advance(cu, st, d));
}

static int op_graph_begin(gen_backend *be) {
    gen_cuda *cu = gen_cuda_of(be);
    if (gen_cuda_enter(cu, "graph_begin") != GENESIS_OK) return 0;
    return gen_cu_graph_begin(cu);
}

static gen_graph *op_graph_end(gen_backend *be) {
    gen_cuda *cu = gen_cuda_of(be);
    if (!cu->capturing) return NULL;
    cu->op = "graph_end"; /* even after a failure: the capture must end */
    return gen_cu_graph_end(cu);
}

static void op_graph_launch(gen_backend *be, gen_graph *g) {
    GEN_CUDA_RUN(be, "graph_launch", gen_cu_graph_launch(cu, g));
}

static void op_graph_free(gen_backend *be, gen_graph *g) {
    gen_cuda *cu = gen_cuda_of(be);
    cudaSetDevice(cu->device);
    gen_cu_graph_free(cu, g);
}

void gen_cu_ops_graph(gen_backend_ops *o) {
    o->select_block = op_select_block;
    o->step_advance = op_step_advance;
    o->graph_begin = op_graph_begin;
    o->graph_end = op_graph_end;
    o->graph_launch = op_graph_launch;
    o->graph_free = op_graph_free;
}
