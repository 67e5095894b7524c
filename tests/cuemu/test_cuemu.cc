/*
 * test_cuemu.cc — the emulated CUDA runtime (tests/cuemu/) checked on its own, with small
 * kernels whose results are known: that barriers and warp primitives exchange what CUDA
 * documents (__shfl_up/down/xor/_sync with widths, __ballot/__any/__all_sync, block sums
 * through shared memory), that shared memory starts as NaN, that the faults the emulator
 * promises are raised (a barrier some threads never reach, a mask naming an exited lane or
 * a lane outside the block or leaving out the caller), that invalid launch configurations
 * are refused and do not run, that stream work waits for a synchronisation point with
 * CUDA's rules for pageable and pinned host memory, events, range checks on copies and
 * frees, cudaMemGetInfo, pointer attributes, the cuBLAS argument checks and SGEMM for every
 * transpose pair (beta = 0 must not read C), the synchronisation counters, stream capture
 * and graph replay (replays equal launches bit for bit; the calls capture forbids fail),
 * stream-ordered allocation (cudaMallocAsync/cudaFreeAsync), and the refusal of a
 * device-wide synchronisation while a peer NCCL rank's collective waits for the caller.
 * Linked directly with the emulator's sources (not through the module). Runs in well under
 * a second; CTest runs it under the forward and the random schedule.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "cublasLt.h"
#include "cublas_v2.h"
#include "nccl.h"
#include "cuemu_internal.h"

#define GEN_LAUNCH(k, grid, block, smem, stream) gen_cuemu_launch(k, #k, grid, block, smem, stream)
#define FULL 0xffffffffu

static int g_fail, g_checks;
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        g_checks++;                                                           \
        if (!(cond)) {                                                        \
            g_fail++;                                                         \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
    } while (0)

/* The sticky error of a deliberate fault, then a clean state for the next check. */
static cudaError_t sync_and_reset(void) {
    cudaError_t e = cudaDeviceSynchronize();
    gen_cuemu_lock();
    gen_cuemu_reset_sticky();
    gen_cuemu_unlock();
    cudaGetLastError();
    return e;
}

/* ---- kernels ------------------------------------------------------------------------------ */

__global__ void k_block_sum(float *out, const float *in) {
    __shared__ float sh[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? sh[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

__global__ void k_warp_ops(int *out) {
    int lane = threadIdx.x;
    int *o = out + lane * 8;
    o[0] = __shfl_up_sync(FULL, lane * 10, 1);
    o[1] = __shfl_down_sync(FULL, lane * 10, 3);
    o[2] = __shfl_xor_sync(FULL, lane * 10, 5);
    o[3] = __shfl_sync(FULL, lane * 10, 7);
    o[4] = __shfl_down_sync(FULL, lane * 10, 1, 8);
    o[5] = (int)__ballot_sync(FULL, lane % 3 == 0);
    o[6] = __any_sync(FULL, lane == 31) + 2 * __all_sync(FULL, lane < 31);
    o[7] = __shfl_xor_sync(FULL, lane * 10, 4, 4);
}

__global__ void k_shared_uninit(unsigned *out) {
    __shared__ unsigned s[4];
    if (threadIdx.x == 0) out[0] = s[1];
}

__global__ void k_barrier_exit(int *out) {
    if (threadIdx.x >= 16) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

__global__ void k_shfl_exited(int *out) {
    if ((threadIdx.x & 31) >= 16) return;
    out[threadIdx.x] = __shfl_down_sync(FULL, (int)threadIdx.x, 1);
}

__global__ void k_shfl_full(int *out) { out[threadIdx.x] = __shfl_xor_sync(FULL, 1, 1); }

__global__ void k_mask_no_self(int *out) {
    out[threadIdx.x] = __shfl_sync(threadIdx.x == 0 ? 0x2u : FULL, 1, 0);
}

__global__ void k_set(int *p, int v) {
    if (threadIdx.x == 0 && blockIdx.x == 0) p[0] = v;
}

/* ---- checks -------------------------------------------------------------------------------- */

static void check_exchanges(void) {
    const int nb = 3, nt = 1024;
    float *in = NULL, *out = NULL, h[nb * nt], r[nb];
    for (int i = 0; i < nb * nt; i++) h[i] = (float)(i % 97);
    cudaMalloc((void **)&in, sizeof h);
    cudaMalloc((void **)&out, sizeof r);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    GEN_LAUNCH(k_block_sum, nb, nt, 0, 0)(out, in);
    CHECK(cudaGetLastError() == cudaSuccess, "launch");
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    for (int b = 0; b < nb; b++) {
        float want = 0;
        for (int i = 0; i < nt; i++) want += h[b * nt + i];
        CHECK(r[b] == want, "block %d sum %g, want %g", b, r[b], want);
    }
    int *d = NULL, w[32 * 8];
    cudaMalloc((void **)&d, sizeof w);
    GEN_LAUNCH(k_warp_ops, 1, 32, 0, 0)(d);
    cudaMemcpy(w, d, sizeof w, cudaMemcpyDeviceToHost);
    unsigned ballot = 0;
    for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
    for (int l = 0; l < 32; l++) {
        const int *o = w + l * 8;
        CHECK(o[0] == (l >= 1 ? l - 1 : l) * 10, "up lane %d: %d", l, o[0]);
        CHECK(o[1] == (l + 3 < 32 ? l + 3 : l) * 10, "down lane %d: %d", l, o[1]);
        CHECK(o[2] == (l ^ 5) * 10, "xor lane %d: %d", l, o[2]);
        CHECK(o[3] == 70, "idx lane %d: %d", l, o[3]);
        CHECK(o[4] == ((l % 8) + 1 < 8 ? l + 1 : l) * 10, "down width 8 lane %d: %d", l, o[4]);
        CHECK((unsigned)o[5] == ballot, "ballot lane %d: %08x", l, (unsigned)o[5]);
        CHECK(o[6] == 1, "any/all lane %d: %d", l, o[6]);
        CHECK(o[7] == ((l ^ 4) / 4 == l / 4 ? l ^ 4 : l) * 10, "xor width 4 lane %d: %d", l, o[7]);
    }
    unsigned *u = NULL, uh = 0;
    cudaMalloc((void **)&u, 4);
    GEN_LAUNCH(k_shared_uninit, 1, 32, 0, 0)(u);
    cudaMemcpy(&uh, u, 4, cudaMemcpyDeviceToHost);
    CHECK(uh == 0xffffffffu, "shared memory not NaN-filled: %08x", uh);
    cudaFree(in);
    cudaFree(out);
    cudaFree(d);
    cudaFree(u);
}

static void check_faults(void) {
    int *d = NULL;
    cudaMalloc((void **)&d, 64 * sizeof(int));
    printf("(the next four 'genesis cuda emulator' messages are expected)\n");
    GEN_LAUNCH(k_barrier_exit, 1, 32, 0, 0)(d);
    CHECK(cudaGetLastError() == cudaSuccess, "a fault shows at the sync point, not the launch");
    CHECK(sync_and_reset() == cudaErrorLaunchFailure, "barrier some threads never reach");
    GEN_LAUNCH(k_shfl_exited, 1, 32, 0, 0)(d);
    CHECK(sync_and_reset() == cudaErrorLaunchFailure, "full mask naming exited lanes");
    GEN_LAUNCH(k_shfl_full, 1, 48, 0, 0)(d);
    CHECK(sync_and_reset() == cudaErrorLaunchFailure, "full mask in a partial warp");
    GEN_LAUNCH(k_mask_no_self, 1, 32, 0, 0)(d);
    CHECK(sync_and_reset() == cudaErrorLaunchFailure, "mask without the calling lane");
    GEN_LAUNCH(k_shfl_full, 2, 64, 0, 0)(d);
    CHECK(sync_and_reset() == cudaSuccess, "full warps are fine");
    cudaFree(d);
}

static void check_configs(void) {
    int *d = NULL, h = -1;
    cudaMalloc((void **)&d, sizeof(int));
    cudaMemset(d, 0, sizeof(int));
    struct {
        dim3 g, b;
        size_t smem;
        cudaError_t want;
    } c[] = {
        {dim3(1), dim3(1025), 0, cudaErrorInvalidConfiguration},
        {dim3(1), dim3(64, 32), 0, cudaErrorInvalidConfiguration},
        {dim3(1), dim3(1, 1, 65), 0, cudaErrorInvalidConfiguration},
        {dim3(1, 65536), dim3(32), 0, cudaErrorInvalidConfiguration},
        {dim3(1, 1, 65536), dim3(32), 0, cudaErrorInvalidConfiguration},
        {dim3(0), dim3(32), 0, cudaErrorInvalidConfiguration},
        {dim3(1), dim3(32, 0), 0, cudaErrorInvalidConfiguration},
        {dim3(1), dim3(32), (size_t)48 << 10, cudaErrorInvalidValue},
    };
    printf("(the next %d 'invalid configuration'/'shared memory' messages are expected)\n",
           (int)(sizeof c / sizeof c[0]));
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        GEN_LAUNCH(k_set, c[i].g, c[i].b, c[i].smem, 0)(d, 7);
        CHECK(cudaGetLastError() == c[i].want, "config %zu", i);
    }
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    CHECK(h == 0, "an invalid launch ran");
    GEN_LAUNCH(k_set, dim3(1), dim3(32, 32), 0, 0)(d, 5);
    CHECK(cudaGetLastError() == cudaSuccess, "32 x 32 block");
    GEN_LAUNCH(k_set, dim3(2, 3, 4), dim3(8, 8, 16), 0, 0)(d, 6);
    CHECK(cudaGetLastError() == cudaSuccess, "3-D grid and block");
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    CHECK(h == 6, "valid launches ran: %d", h);
    cudaFree(d);
}

static void check_streams(void) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int *d = NULL, *pin = NULL, page = -1;
    cudaMalloc((void **)&d, sizeof(int));
    unsigned fresh = 0;
    cudaMemcpy(&fresh, d, 4, cudaMemcpyDeviceToHost);
    CHECK(fresh == 0xffffffffu, "cudaMalloc'ed memory starts as NaN bytes: %08x", fresh);
    cudaMallocHost((void **)&pin, sizeof(int));
    pin[0] = -1;
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 42);
    cudaMemcpyAsync(pin, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(pin[0] == -1, "D2H into pinned memory landed before the sync");
    unsigned long long st0[GEN_CUEMU_STAT_N], st1[GEN_CUEMU_STAT_N];
    genesis_cuda_module_emu_stats(st0, GEN_CUEMU_STAT_N);
    cudaStreamSynchronize(s);
    genesis_cuda_module_emu_stats(st1, GEN_CUEMU_STAT_N);
    CHECK(pin[0] == 42, "D2H into pinned memory after the sync: %d", pin[0]);
    CHECK(st1[GEN_CUEMU_STAT_SYNCS] == st0[GEN_CUEMU_STAT_SYNCS] + 1 &&
              st1[GEN_CUEMU_STAT_STREAM_SYNCS] == st0[GEN_CUEMU_STAT_STREAM_SYNCS] + 1,
          "one stream sync counted");
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 43);
    cudaMemcpyAsync(&page, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(page == 43, "D2H into pageable memory is synchronous: %d", page);
    page = 1;
    cudaMemcpyAsync(d, &page, sizeof(int), cudaMemcpyHostToDevice, s);
    page = 2;
    cudaMemcpyAsync(&page, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(page == 1, "H2D from pageable memory takes the value at call time: %d", page);
    pin[0] = 1;
    cudaMemcpyAsync(d, pin, sizeof(int), cudaMemcpyHostToDevice, s);
    pin[0] = 2;
    cudaMemcpyAsync(&page, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(page == 2, "H2D from pinned memory reads it when executed: %d", page);
    cudaEvent_t ev;
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 44);
    cudaMemcpyAsync(pin, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(ev, s);
    CHECK(pin[0] != 44, "event work ran before a sync or query");
    CHECK(cudaEventSynchronize(ev) == cudaSuccess && pin[0] == 44, "event sync: %d", pin[0]);
    CHECK(cudaEventQuery(ev) == cudaSuccess, "event complete");
    /* polling: the first query runs the pending work and says "not ready", the next "done" */
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 45);
    cudaMemcpyAsync(pin, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaEventRecord(ev, s);
    CHECK(cudaEventQuery(ev) == cudaErrorNotReady, "event query with work pending");
    CHECK(cudaEventQuery(ev) == cudaSuccess && pin[0] == 45, "event query progressed: %d", pin[0]);
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 46);
    cudaMemcpyAsync(pin, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    int polls = 0;
    while (cudaStreamQuery(s) == cudaErrorNotReady && polls < 10) polls++;
    CHECK(polls == 1 && pin[0] == 46, "stream query: %d polls, %d", polls, pin[0]);
    cudaEventDestroy(ev);
    /* range checks */
    printf("(the next three range messages are expected)\n");
    CHECK(cudaMemcpyAsync(d, pin, 2 * sizeof(int), cudaMemcpyHostToDevice, s) ==
              cudaErrorInvalidValue, "copy past the end of a device allocation");
    CHECK(cudaMemsetAsync((char *)d + 1, 0, sizeof(int), s) == cudaErrorInvalidValue,
          "memset past the end");
    CHECK(cudaFree(&page) == cudaErrorInvalidValue, "cudaFree of a host pointer");
    cudaGetLastError();
    size_t f0, t0, f1, t1;
    cudaMemGetInfo(&f0, &t0);
    void *big = NULL;
    cudaMalloc(&big, 12345);
    cudaMemGetInfo(&f1, &t1);
    CHECK(t0 == t1 && f0 - f1 == 12345, "cudaMemGetInfo: %zu -> %zu", f0, f1);
    cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, (char *)big + 100);
    CHECK(a.type == cudaMemoryTypeDevice, "device pointer attributes");
    cudaPointerGetAttributes(&a, pin);
    CHECK(a.type == cudaMemoryTypeHost, "pinned pointer attributes");
    cudaPointerGetAttributes(&a, &page);
    CHECK(a.type == cudaMemoryTypeUnregistered, "pageable pointer attributes");
    cudaFree(big);
    cudaFreeHost(pin);
    cudaFree(d);
    cudaStreamDestroy(s);
}

/* cuBLASLt (cublaslt.cc): the argument checks, then D = relu?(op(A) op(B) + beta C + bias) for
 * every epilogue and transpose against a host loop, with C and D apart and in place. */
static void check_blaslt(void) {
    cublasLtHandle_t h;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    CHECK(cublasLtCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasLtCreate");
    cublasLtMatmulDesc_t d = NULL;
    CHECK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F) ==
              CUBLAS_STATUS_NOT_SUPPORTED, "TF32 compute is not emulated");
    CHECK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS,
          "desc");
    int32_t bad_op = 7, opt = CUBLAS_OP_T;
    uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
    CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &bad_op, sizeof bad_op) ==
              CUBLAS_STATUS_INVALID_VALUE, "transpose value 7");
    CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &opt, 8) ==
              CUBLAS_STATUS_INVALID_VALUE, "attribute size 8 for an int32");
    CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, NULL, 4) ==
              CUBLAS_STATUS_INVALID_VALUE, "NULL attribute buffer");
    const int m = 5, n = 3, k = 4, ld = 7;
    float ha[ld * ld], hb[ld * ld], hc[ld * ld], hbias[ld], want[ld * ld], got[ld * ld];
    float *A, *B, *C, *D, *bias, *ws;
    cudaMalloc((void **)&A, sizeof ha);
    cudaMalloc((void **)&B, sizeof hb);
    cudaMalloc((void **)&C, sizeof hc);
    cudaMalloc((void **)&D, sizeof hc);
    cudaMalloc((void **)&bias, sizeof hbias);
    cudaMalloc((void **)&ws, 1024);
    for (int i = 0; i < ld * ld; i++) {
        ha[i] = (float)(i % 5) - 2.0f;
        hb[i] = (float)(i % 3) - 1.0f;
        hc[i] = (float)(i % 4) - 1.5f;
    }
    for (int i = 0; i < ld; i++) hbias[i] = 0.25f * (float)i - 1.0f;
    cudaMemcpy(A, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(bias, hbias, sizeof hbias, cudaMemcpyHostToDevice);
    cublasLtMatrixLayout_t la, lb, lc, lbad;
    float one = 1.0f, zero = 0.0f, half = 0.5f;
    /* the argument checks (A m x k, B k x n untransposed) */
    cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, ld);
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, ld);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, ld);
    cublasLtMatrixLayoutCreate(&lbad, CUDA_R_32F, m, n, m - 1);
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lc, NULL, ws, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "BIAS epilogue without a bias pointer");
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, la, &zero, D, lc, D, lc, NULL, ws, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "B's rows are not A's columns");
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lbad, D, lbad, NULL, ws, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "ld below the rows");
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lb, NULL, ws, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "D's shape is not m x n");
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lc, NULL, NULL, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "a workspace size without a workspace");
    /* the heuristic: preferences, the query's checks, and the algorithm it returns (no split-K)
     * accepted by cublasLtMatmul for its own problem only */
    cublasLtMatmulPreference_t pref = NULL;
    CHECK(cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS, "preference");
    uint32_t mask = CUBLASLT_REDUCTION_SCHEME_NONE, badmask = 8;
    uint64_t wsb = 1024;
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                               &badmask, sizeof badmask) ==
              CUBLAS_STATUS_INVALID_VALUE, "a reduction mask with an unknown bit");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                               &wsb, sizeof wsb) == CUBLAS_STATUS_INVALID_VALUE,
          "a reduction mask of 8 bytes");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               NULL, sizeof wsb) == CUBLAS_STATUS_INVALID_VALUE,
          "a NULL preference buffer");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                               &mask, sizeof mask) == CUBLAS_STATUS_SUCCESS,
          "reduction mask NONE");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &wsb, sizeof wsb) == CUBLAS_STATUS_SUCCESS,
          "workspace limit");
    cublasLtMatmulHeuristicResult_t hr[2];
    int nalg = -1;
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pref, 0, hr, &nalg) ==
              CUBLAS_STATUS_INVALID_VALUE, "heuristic: requested count 0");
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, NULL, 1, hr, &nalg) ==
              CUBLAS_STATUS_INVALID_VALUE, "heuristic: NULL preference");
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, la, lc, lc, pref, 1, hr, &nalg) ==
              CUBLAS_STATUS_INVALID_VALUE, "heuristic: B's rows are not A's columns");
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pref, 2, hr, &nalg) ==
                  CUBLAS_STATUS_SUCCESS && nalg == 1 && hr[0].state == CUBLAS_STATUS_SUCCESS &&
              hr[0].workspaceSize == 0,
          "heuristic: one algorithm without workspace (%d)", nalg);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lc, &hr[0].algo, ws, 1024,
                         s) == CUBLAS_STATUS_SUCCESS, "the heuristic's algorithm");
    cublasLtMatrixLayout_t lk; /* k one less: another problem */
    cublasLtMatrixLayoutCreate(&lk, CUDA_R_32F, m, k - 1, ld);
    cublasLtMatrixLayout_t lbk;
    cublasLtMatrixLayoutCreate(&lbk, CUDA_R_32F, k - 1, n, ld);
    CHECK(cublasLtMatmul(h, d, &one, A, lk, B, lbk, &zero, D, lc, D, lc, &hr[0].algo, ws, 1024,
                         s) == CUBLAS_STATUS_INVALID_VALUE, "an algorithm of another problem");
    /* alignment: the default preference promises 256-byte operands; an algorithm chosen so
     * refuses a less aligned A, one chosen for 4-byte operands takes it */
    cublasLtMatmulPreference_t pa = NULL;
    cublasLtMatmulPreferenceCreate(&pa);
    uint32_t a4 = 4, a3 = 3;
    CHECK(cublasLtMatmulPreferenceSetAttribute(pa, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &a3,
                                               sizeof a3) == CUBLAS_STATUS_INVALID_VALUE,
          "an alignment of 3 bytes");
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pa, 1, hr, &nalg) ==
              CUBLAS_STATUS_SUCCESS && nalg == 1, "heuristic, default alignment");
    CHECK(cublasLtMatmul(h, d, &one, A + 1, la, B, lb, &zero, D, lc, D, lc, &hr[0].algo, ws,
                         1024, s) == CUBLAS_STATUS_NOT_SUPPORTED,
          "an algorithm for 256-byte operands on a 4-byte aligned A");
    CHECK(cublasLtMatmulPreferenceSetAttribute(pa, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &a4,
                                               sizeof a4) == CUBLAS_STATUS_SUCCESS,
          "an alignment of 4 bytes");
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pa, 1, hr, &nalg) ==
              CUBLAS_STATUS_SUCCESS && nalg == 1, "heuristic, A 4-byte aligned");
    CHECK(cublasLtMatmul(h, d, &one, A + 1, la, B, lb, &zero, D, lc, D, lc, &hr[0].algo, ws,
                         1024, s) == CUBLAS_STATUS_SUCCESS,
          "an algorithm for 4-byte operands on a 4-byte aligned A");
    cublasLtMatmulPreferenceDestroy(pa);
    cublasLtMatmulAlgo_t zalgo;
    memset(&zalgo, 0, sizeof zalgo);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lc, &zalgo, ws, 1024, s) ==
              CUBLAS_STATUS_INVALID_VALUE, "an algorithm the heuristic did not return");
    setenv("GENESIS_CUEMU_LT_NO_ALGO", "1", 1);
    CHECK(cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pref, 1, hr, &nalg) ==
                  CUBLAS_STATUS_SUCCESS && nalg == 0,
          "heuristic with GENESIS_CUEMU_LT_NO_ALGO: none");
    unsetenv("GENESIS_CUEMU_LT_NO_ALGO");
    cublasLtMatrixLayoutDestroy(lk);
    cublasLtMatrixLayoutDestroy(lbk);
    CHECK(cublasLtMatmulPreferenceDestroy(pref) == CUBLAS_STATUS_SUCCESS, "preference destroy");
    cudaStreamSynchronize(s);
    uint32_t gelu = 32; /* CUBLASLT_EPILOGUE_GELU */
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &gelu, sizeof gelu);
    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &zero, D, lc, D, lc, NULL, ws, 1024, s) ==
              CUBLAS_STATUS_NOT_SUPPORTED, "an epilogue not emulated");
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lbad);
    const uint32_t epis[4] = {CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU,
                              CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS};
    for (int e = 0; e < 4; e++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    int32_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
                    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof oa);
                    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof ob);
                    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epis[e],
                                                   sizeof epis[e]);
                    cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ta ? k : m, ta ? m : k, ld);
                    cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, tb ? n : k, tb ? k : n, ld);
                    int has_bias = e >= 2, relu = e & 1;
                    for (int j = 0; j < n; j++)
                        for (int i = 0; i < m; i++) {
                            float acc = 0;
                            for (int l = 0; l < k; l++)
                                acc += (ta ? ha[i * ld + l] : ha[l * ld + i]) *
                                       (tb ? hb[l * ld + j] : hb[j * ld + l]);
                            float v = acc + 0.5f * hc[j * ld + i];
                            if (has_bias) v += hbias[i];
                            if (relu) v = v > 0.0f ? v : 0.0f;
                            want[j * ld + i] = v;
                        }
                    float *out = inplace ? C : D;
                    cudaMemcpy(C, hc, sizeof hc, cudaMemcpyHostToDevice);
                    cudaMemsetAsync(D, 0xff, sizeof hc, s); /* NaN outside the m x n written */
                    /* in place: with the heuristic's algorithm (the same numbers) */
                    cublasLtMatmulPreference_t pr = NULL;
                    cublasLtMatmulHeuristicResult_t r1;
                    int na = 0;
                    cublasLtMatmulPreferenceCreate(&pr);
                    CHECK(!inplace || (cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pr, 1,
                                                                      &r1, &na) ==
                                           CUBLAS_STATUS_SUCCESS &&
                                       na == 1),
                          "lt heuristic e %d ta %d tb %d", e, ta, tb);
                    cublasLtMatmulPreferenceDestroy(pr);
                    CHECK(cublasLtMatmul(h, d, &one, A, la, B, lb, &half, C, lc, out, lc,
                                         inplace ? &r1.algo : NULL, ws, 1024,
                                         s) == CUBLAS_STATUS_SUCCESS,
                          "lt matmul e %d ta %d tb %d", e, ta, tb);
                    cudaStreamSynchronize(s);
                    cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
                    int wrong = 0;
                    for (int j = 0; j < n; j++)
                        for (int i = 0; i < m; i++) wrong += got[j * ld + i] != want[j * ld + i];
                    CHECK(!wrong, "lt epilogue %u ta %d tb %d in place %d: %d wrong", epis[e], ta,
                          tb, inplace, wrong);
                    if (!inplace) {
                        CHECK(isnan(got[m]), "lt wrote outside D's m rows");
                        float c0[ld * ld];
                        cudaMemcpy(c0, C, sizeof c0, cudaMemcpyDeviceToHost);
                        CHECK(memcmp(c0, hc, sizeof c0) == 0, "lt changed C when D is apart");
                    }
                    cublasLtMatrixLayoutDestroy(la);
                    cublasLtMatrixLayoutDestroy(lb);
                }
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(d);
    CHECK(cublasLtDestroy(h) == CUBLAS_STATUS_SUCCESS, "cublasLtDestroy");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(D);
    cudaFree(bias);
    cudaFree(ws);
    cudaStreamDestroy(s);
}

static void check_blas(void) {
    cublasHandle_t h;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cublasCreate(&h);
    cublasSetStream(h, s);
    float one = 1.0f, zero = 0.0f, half = 0.5f;
    float *A = NULL, *B = NULL, *C = NULL;
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 3, 2, &one, A, 3, B, 2, &zero, C, 4) ==
              CUBLAS_STATUS_INVALID_VALUE, "lda < m");
    CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 3, 2, &one, A, 1, B, 2, &zero, C, 4) ==
              CUBLAS_STATUS_INVALID_VALUE, "lda < k with A transposed");
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 3, 2, &one, A, 4, B, 2, &zero, C, 4) ==
              CUBLAS_STATUS_INVALID_VALUE, "ldb < n with B transposed");
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 3, 2, &one, A, 4, B, 2, &zero, C, 3) ==
              CUBLAS_STATUS_INVALID_VALUE, "ldc < m");
    CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 3, 2, &one, A, 4, B, 2, &zero, C, 4) ==
              CUBLAS_STATUS_INVALID_VALUE, "m < 0");
    const int m = 5, n = 3, k = 4, ld = 7; /* every matrix stored with leading dimension 7 */
    float ha[ld * ld], hb[ld * ld], hc[ld * ld], want[ld * ld];
    cudaMalloc((void **)&A, sizeof ha);
    cudaMalloc((void **)&B, sizeof hb);
    cudaMalloc((void **)&C, sizeof hc);
    for (int i = 0; i < ld * ld; i++) {
        ha[i] = (float)(i % 5) - 2.0f;
        hb[i] = (float)(i % 3) - 1.0f;
    }
    cudaMemcpy(A, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hb, sizeof hb, cudaMemcpyHostToDevice);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int b0 = 0; b0 < 2; b0++) {
                for (int i = 0; i < ld * ld; i++) hc[i] = b0 ? NAN : (float)(i % 4);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++) {
                        float acc = 0;
                        for (int l = 0; l < k; l++)
                            acc += (ta ? ha[i * ld + l] : ha[l * ld + i]) *
                                   (tb ? hb[l * ld + j] : hb[j * ld + l]);
                        want[j * ld + i] = b0 ? acc : acc + 0.5f * hc[j * ld + i];
                    }
                cudaMemcpy(C, hc, sizeof hc, cudaMemcpyHostToDevice);
                CHECK(cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  m, n, k, &one, A, ld, B, ld, b0 ? &zero : &half, C, ld) ==
                          CUBLAS_STATUS_SUCCESS, "sgemm %d%d", ta, tb);
                float got[ld * ld];
                cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost); /* not synchronised */
                int stale = memcmp(got, hc, sizeof got) == 0;
                cudaStreamSynchronize(s);
                cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost);
                int bad = 0;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++) bad += got[j * ld + i] != want[j * ld + i];
                CHECK(stale, "sgemm %d%d ran before its stream was synchronised", ta, tb);
                CHECK(!bad, "sgemm ta %d tb %d beta %s: %d wrong", ta, tb, b0 ? "0" : "0.5", bad);
                CHECK(isnan(got[m]) == b0, "sgemm wrote outside its m rows");
            }
    cublasDestroy(h);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaStreamDestroy(s);
}

__global__ void k_affine(float *x, int n, float a, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}

/* Stream capture and graphs: recorded work does not run until the graph is launched; a
 * replay (kernels, a memset, a pinned copy, cublasSgemm) gives the bits of the same work
 * launched directly; the counters tell host launches from graph launches; and the calls that
 * CUDA forbids during capture fail and invalidate it. */
static void check_graphs(void) {
    const int n = 48, m = 4; /* x: n floats; C = A . B with A, B, C 4 x 4 (column-major) */
    cudaStream_t s;
    cublasHandle_t h;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cublasCreate(&h);
    cublasSetStream(h, s);
    float hx[n], hab[2 * m * m];
    for (int i = 0; i < n; i++) hx[i] = 0.37f * (float)i - 3.1f;
    for (int i = 0; i < 2 * m * m; i++) hab[i] = (float)(i % 7) * 0.25f - 0.6f;
    float *x[2], *AB[2], *C[2], *pin = NULL;
    for (int r = 0; r < 2; r++) {
        cudaMalloc((void **)&x[r], sizeof hx);
        cudaMalloc((void **)&AB[r], sizeof hab);
        cudaMalloc((void **)&C[r], m * m * sizeof(float));
        cudaMemcpy(x[r], hx, sizeof hx, cudaMemcpyHostToDevice);
        cudaMemcpy(AB[r], hab, sizeof hab, cudaMemcpyHostToDevice);
    }
    cudaMallocHost((void **)&pin, sizeof(float));
    *pin = 0.5f;
    float one = 1.0f, beta = 0.25f;
    /* the step: x = 1.5 x + 0.25; x[0] = pin; A[0] = x[1]; C = A B + beta C; x[2..6) = 0 */
    auto step = [&](int r) {
        GEN_LAUNCH(k_affine, 2, 32, 0, s)(x[r], n, 1.5f, 0.25f);
        cudaMemcpyAsync(x[r], pin, sizeof(float), cudaMemcpyHostToDevice, s);
        cudaMemcpyAsync(AB[r], x[r] + 1, sizeof(float), cudaMemcpyDeviceToDevice, s);
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, AB[r], m, AB[r] + m * m, m, &beta,
                    C[r], m);
        cudaMemsetAsync(x[r] + 2, 0, 4 * sizeof(float), s);
    };
    cudaStreamSynchronize(s);
    unsigned long long st0[GEN_CUEMU_STAT_N], st1[GEN_CUEMU_STAT_N], st2[GEN_CUEMU_STAT_N];
    genesis_cuda_module_emu_stats(st0, GEN_CUEMU_STAT_N);
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess, "begin capture");
    CHECK(cudaStreamIsCapturing(s, &cs) == cudaSuccess && cs == cudaStreamCaptureStatusActive,
          "capture status %d", (int)cs);
    step(1);
    cudaGraph_t g = NULL;
    CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess && g, "end capture");
    CHECK(cudaStreamIsCapturing(s, &cs) == cudaSuccess && cs == cudaStreamCaptureStatusNone,
          "capture status after the end %d", (int)cs);
    genesis_cuda_module_emu_stats(st1, GEN_CUEMU_STAT_N);
    CHECK(st1[GEN_CUEMU_STAT_CAPTURED] - st0[GEN_CUEMU_STAT_CAPTURED] == 5 &&
              st1[GEN_CUEMU_STAT_HOST_LAUNCHES] == st0[GEN_CUEMU_STAT_HOST_LAUNCHES] &&
              st1[GEN_CUEMU_STAT_HOST_COPIES] == st0[GEN_CUEMU_STAT_HOST_COPIES],
          "capture recorded %llu, launched %llu", st1[GEN_CUEMU_STAT_CAPTURED] - st0[GEN_CUEMU_STAT_CAPTURED],
          st1[GEN_CUEMU_STAT_HOST_LAUNCHES] - st0[GEN_CUEMU_STAT_HOST_LAUNCHES]);
    cudaStreamSynchronize(s);
    float got[n];
    cudaMemcpy(got, x[1], sizeof got, cudaMemcpyDeviceToHost);
    CHECK(memcmp(got, hx, sizeof got) == 0, "captured work ran without a graph launch");
    cudaGraphExec_t ge = NULL;
    CHECK(cudaGraphInstantiate(&ge, g, 0) == cudaSuccess && ge, "instantiate");
    CHECK(cudaGraphDestroy(g) == cudaSuccess, "graph destroy (the executable graph stays)");
    for (int k = 0; k < 3; k++) {
        *pin = 0.5f + (float)k; /* a pinned source is read when the replay runs */
        step(0);
        cudaStreamSynchronize(s);
        CHECK(cudaGraphLaunch(ge, s) == cudaSuccess, "graph launch %d", k);
        cudaStreamSynchronize(s);
    }
    genesis_cuda_module_emu_stats(st2, GEN_CUEMU_STAT_N);
    CHECK(st2[GEN_CUEMU_STAT_GRAPH_LAUNCHES] - st1[GEN_CUEMU_STAT_GRAPH_LAUNCHES] == 3 &&
              st2[GEN_CUEMU_STAT_HOST_LAUNCHES] - st1[GEN_CUEMU_STAT_HOST_LAUNCHES] == 6 &&
              st2[GEN_CUEMU_STAT_KERNELS] - st1[GEN_CUEMU_STAT_KERNELS] == 6 &&
              st2[GEN_CUEMU_STAT_GEMMS] - st1[GEN_CUEMU_STAT_GEMMS] == 6,
          "3 replays and 3 launched steps: graph launches %llu, host launches %llu, kernels %llu",
          st2[GEN_CUEMU_STAT_GRAPH_LAUNCHES] - st1[GEN_CUEMU_STAT_GRAPH_LAUNCHES],
          st2[GEN_CUEMU_STAT_HOST_LAUNCHES] - st1[GEN_CUEMU_STAT_HOST_LAUNCHES],
          st2[GEN_CUEMU_STAT_KERNELS] - st1[GEN_CUEMU_STAT_KERNELS]);
    float a[n], b[n], ca[m * m], cb[m * m];
    cudaMemcpy(a, x[0], sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, x[1], sizeof b, cudaMemcpyDeviceToHost);
    cudaMemcpy(ca, C[0], sizeof ca, cudaMemcpyDeviceToHost);
    cudaMemcpy(cb, C[1], sizeof cb, cudaMemcpyDeviceToHost);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(ca, cb, sizeof ca) == 0 && b[0] == 2.5f &&
              b[2] == 0.0f && b[7] != hx[7],
          "replayed step differs from the launched one (x[7] %g vs %g)", (double)b[7], (double)a[7]);
    /* an executable graph destroyed while its launch is queued: the launch still runs */
    GEN_LAUNCH(k_affine, 2, 32, 0, s)(x[0], n, 1.5f, 0.25f); /* keep x[0] in step */
    cudaMemcpyAsync(x[0], pin, sizeof(float), cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(AB[0], x[0] + 1, sizeof(float), cudaMemcpyDeviceToDevice, s);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, AB[0], m, AB[0] + m * m, m, &beta,
                C[0], m);
    cudaMemsetAsync(x[0] + 2, 0, 4 * sizeof(float), s);
    cudaGraphLaunch(ge, s);
    CHECK(cudaGraphExecDestroy(ge) == cudaSuccess, "exec destroy with a launch queued");
    cudaStreamSynchronize(s);
    cudaMemcpy(a, x[0], sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, x[1], sizeof b, cudaMemcpyDeviceToHost);
    CHECK(memcmp(a, b, sizeof a) == 0, "a launch queued before cudaGraphExecDestroy did not run");

    /* what capture forbids: each fails and invalidates the capture */
    struct {
        const char *what;
        int call;
        cudaStreamCaptureMode mode;
        cudaError_t want, want_end;
    } bad[] = {
        {"cudaStreamSynchronize", 0, cudaStreamCaptureModeGlobal, cudaErrorStreamCaptureUnsupported,
         cudaErrorStreamCaptureInvalidated},
        {"cudaStreamQuery", 1, cudaStreamCaptureModeRelaxed, cudaErrorStreamCaptureUnsupported,
         cudaErrorStreamCaptureInvalidated},
        {"cudaDeviceSynchronize", 2, cudaStreamCaptureModeRelaxed,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        {"cudaMalloc (global mode)", 3, cudaStreamCaptureModeGlobal,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        {"cudaMalloc (relaxed mode)", 3, cudaStreamCaptureModeRelaxed, cudaSuccess, cudaSuccess},
        {"cudaMemcpy (thread-local mode)", 4, cudaStreamCaptureModeThreadLocal,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        {"copy into pageable memory", 5, cudaStreamCaptureModeRelaxed,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        {"copy from pageable memory", 6, cudaStreamCaptureModeRelaxed,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        {"cudaEventSynchronize of a captured event", 7, cudaStreamCaptureModeGlobal,
         cudaErrorCapturedEvent, cudaSuccess},
        {"an invalid launch", 8, cudaStreamCaptureModeGlobal, cudaErrorInvalidConfiguration,
         cudaErrorStreamCaptureInvalidated},
        {"cudaFree (global mode)", 9, cudaStreamCaptureModeGlobal,
         cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
    };
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *p = NULL;
        float host[4];
        CHECK(cudaStreamBeginCapture(s, bad[i].mode) == cudaSuccess, "begin %s", bad[i].what);
        GEN_LAUNCH(k_affine, 2, 32, 0, s)(x[1], n, 1.0f, 1.0f);
        cudaError_t e = cudaSuccess;
        switch (bad[i].call) {
        case 0: e = cudaStreamSynchronize(s); break;
        case 1: e = cudaStreamQuery(s); break;
        case 2: e = cudaDeviceSynchronize(); break;
        case 3: e = cudaMalloc(&p, 64); break;
        case 4: e = cudaMemcpy(host, x[0], sizeof host, cudaMemcpyDeviceToHost); break;
        case 5: e = cudaMemcpyAsync(host, x[0], sizeof host, cudaMemcpyDeviceToHost, s); break;
        case 6: e = cudaMemcpyAsync(x[0], host, sizeof host, cudaMemcpyHostToDevice, s); break;
        case 7:
            cudaEventRecord(ev, s);
            e = cudaEventSynchronize(ev);
            break;
        case 8:
            GEN_LAUNCH(k_affine, 1, 2048, 0, s)(x[1], n, 1.0f, 1.0f);
            e = cudaGetLastError();
            break;
        case 9: e = cudaFree(C[0]); break;
        }
        cudaGetLastError();
        cudaGraph_t gb = NULL;
        cudaError_t ee = cudaStreamEndCapture(s, &gb);
        cudaGetLastError();
        CHECK(e == bad[i].want && ee == bad[i].want_end && (gb != NULL) == (ee == cudaSuccess),
              "%s during capture: %s (want %s), end capture: %s (want %s)", bad[i].what,
              cudaGetErrorName(e), cudaGetErrorName(bad[i].want), cudaGetErrorName(ee),
              cudaGetErrorName(bad[i].want_end));
        cudaGraphDestroy(gb);
        if (p) cudaFree(p);
    }
    cudaEventDestroy(ev);
    cudaStreamSynchronize(s);
    cudaMemcpy(a, x[1], sizeof a, cudaMemcpyDeviceToHost);
    CHECK(memcmp(a, b, sizeof a) == 0, "work recorded by the refused captures ran");
    CHECK(cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal) ==
              cudaErrorStreamCaptureUnsupported, "capture of the legacy stream");
    cudaGraph_t none = NULL;
    CHECK(cudaStreamEndCapture(s, &none) == cudaErrorIllegalState && !none,
          "end of a capture never begun");
    cudaGetLastError();
    cublasDestroy(h);
    for (int r = 0; r < 2; r++) {
        cudaFree(x[r]);
        cudaFree(AB[r]);
        cudaFree(C[r]);
    }
    cudaFreeHost(pin);
    cudaStreamDestroy(s);
}

/* Stream-ordered allocation: cudaMallocAsync's memory counts at once; cudaFreeAsync's
 * goes only when the stream reaches the free (work queued before it still reads it); a
 * second free, a pinned pointer or a capturing stream are refused. */
static void check_stream_ordered(void) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    size_t f0, f1, f2, f3, t;
    cudaMemGetInfo(&f0, &t);
    int *d = NULL, *pin = NULL;
    CHECK(cudaMallocAsync((void **)&d, 4096, s) == cudaSuccess && d, "cudaMallocAsync");
    cudaMemGetInfo(&f1, &t);
    CHECK(f0 - f1 == 4096, "cudaMallocAsync counts at once: %zu", f0 - f1);
    cudaMallocHost((void **)&pin, sizeof(int));
    pin[0] = -1;
    unsigned long long st0[GEN_CUEMU_STAT_N], st1[GEN_CUEMU_STAT_N];
    genesis_cuda_module_emu_stats(st0, GEN_CUEMU_STAT_N);
    GEN_LAUNCH(k_set, 1, 32, 0, s)(d, 7);
    cudaMemcpyAsync(pin, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(cudaFreeAsync(d, s) == cudaSuccess, "cudaFreeAsync");
    genesis_cuda_module_emu_stats(st1, GEN_CUEMU_STAT_N);
    cudaMemGetInfo(&f2, &t);
    CHECK(f2 == f1 && pin[0] == -1, "nothing ran and nothing was freed before the stream got "
          "there: %zu, %d", f1 - f2, pin[0]);
    CHECK(st1[GEN_CUEMU_STAT_SYNCS] == st0[GEN_CUEMU_STAT_SYNCS] &&
              st1[GEN_CUEMU_STAT_FREE_SYNCS] == st0[GEN_CUEMU_STAT_FREE_SYNCS],
          "cudaMallocAsync and cudaFreeAsync do not synchronise");
    printf("(the next four stream-ordered allocation messages are expected)\n");
    CHECK(cudaFreeAsync(d, s) == cudaErrorInvalidValue, "a second cudaFreeAsync is refused");
    CHECK(cudaFree(d) == cudaErrorInvalidValue, "cudaFree after cudaFreeAsync is refused");
    CHECK(cudaFreeAsync(pin, s) == cudaErrorInvalidValue, "cudaFreeAsync of pinned memory");
    cudaStreamSynchronize(s);
    cudaMemGetInfo(&f3, &t);
    CHECK(pin[0] == 7 && f3 == f0, "the kernel read the memory before the free: %d; freed: "
          "%zu", pin[0], f0 - f3);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    void *g = NULL;
    CHECK(cudaMallocAsync(&g, 256, s) == cudaErrorStreamCaptureUnsupported && !g,
          "cudaMallocAsync in a capture is refused (no graph memory nodes)");
    cudaGraph_t graph = NULL;
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    cudaFreeHost(pin);
    cudaStreamDestroy(s);
}

/* Two NCCL ranks on two host threads: while rank 1 has queued an all-reduce that rank 0
 * has not issued, rank 0's cudaFree and cudaDeviceSynchronize would wait for it (and it
 * for rank 0): refused with cudaErrorNotPermitted instead of hanging. Once rank 0 issues
 * its all-reduce, both complete and rank 0 may free. */
typedef struct hz_rank {
    ncclUniqueId id;
    int rank;
    float *x;
    cudaStream_t s;
    pthread_barrier_t *queued, *checked;
    int ok;
} hz_rank;

static void *hz_peer(void *arg) {
    hz_rank *r = (hz_rank *)arg;
    ncclComm_t comm = NULL;
    r->ok = ncclCommInitRank(&comm, 2, r->id, r->rank) == ncclSuccess &&
            ncclAllReduce(r->x, r->x, 4, ncclFloat, ncclSum, comm, r->s) == ncclSuccess;
    pthread_barrier_wait(r->queued); /* rank 1's all-reduce is queued */
    pthread_barrier_wait(r->checked);
    r->ok = r->ok && cudaStreamSynchronize(r->s) == cudaSuccess;
    ncclCommDestroy(comm);
    return NULL;
}

static void check_nccl_sync_hazard(void) {
    pthread_barrier_t queued, checked;
    pthread_barrier_init(&queued, NULL, 2);
    pthread_barrier_init(&checked, NULL, 2);
    hz_rank r[2];
    memset(r, 0, sizeof r);
    ncclGetUniqueId(&r[0].id);
    for (int i = 0; i < 2; i++) {
        r[i].id = r[0].id;
        r[i].rank = i;
        r[i].queued = &queued;
        r[i].checked = &checked;
        cudaStreamCreateWithFlags(&r[i].s, cudaStreamNonBlocking);
        cudaMalloc((void **)&r[i].x, 4 * sizeof(float));
        float one[4] = {1, 2, 3, 4};
        cudaMemcpy(r[i].x, one, sizeof one, cudaMemcpyHostToDevice);
    }
    pthread_t peer;
    pthread_create(&peer, NULL, hz_peer, &r[1]);
    ncclComm_t comm = NULL;
    CHECK(ncclCommInitRank(&comm, 2, r[0].id, 0) == ncclSuccess, "rank 0 joins");
    pthread_barrier_wait(&queued);
    void *tmp = NULL;
    cudaMalloc(&tmp, 64);
    unsigned long long st0[GEN_CUEMU_STAT_N], st1[GEN_CUEMU_STAT_N];
    genesis_cuda_module_emu_stats(st0, GEN_CUEMU_STAT_N);
    printf("(the next two NCCL synchronisation messages are expected)\n");
    CHECK(cudaFree(tmp) == cudaErrorNotPermitted, "cudaFree while a peer's all-reduce waits "
          "for this thread");
    CHECK(cudaDeviceSynchronize() == cudaErrorNotPermitted, "cudaDeviceSynchronize likewise");
    genesis_cuda_module_emu_stats(st1, GEN_CUEMU_STAT_N);
    CHECK(st1[GEN_CUEMU_STAT_SYNC_HAZARDS] == st0[GEN_CUEMU_STAT_SYNC_HAZARDS] + 2,
          "two hazards counted");
    cudaGetLastError();
    CHECK(ncclAllReduce(r[0].x, r[0].x, 4, ncclFloat, ncclSum, comm, r[0].s) == ncclSuccess,
          "rank 0 issues its all-reduce");
    pthread_barrier_wait(&checked);
    CHECK(cudaStreamSynchronize(r[0].s) == cudaSuccess, "rank 0's all-reduce completes");
    pthread_join(peer, NULL);
    CHECK(r[1].ok, "rank 1's all-reduce completes");
    float got[4] = {0, 0, 0, 0};
    cudaMemcpy(got, r[1].x, sizeof got, cudaMemcpyDeviceToHost);
    CHECK(got[0] == 2 && got[3] == 8, "the sum: %g %g", got[0], got[3]);
    CHECK(cudaFree(tmp) == cudaSuccess, "cudaFree once no collective waits");
    ncclCommDestroy(comm);
    for (int i = 0; i < 2; i++) {
        cudaFree(r[i].x);
        cudaStreamDestroy(r[i].s);
    }
    pthread_barrier_destroy(&queued);
    pthread_barrier_destroy(&checked);
}

int main(void) {
    cudaDeviceProp p;
    int n = 0;
    CHECK(cudaGetDeviceCount(&n) == cudaSuccess && n >= 1, "device count %d", n);
    CHECK(cudaGetDeviceProperties(&p, 0) == cudaSuccess && strstr(p.name, "emulator") &&
              p.warpSize == 32 && p.maxThreadsDim[2] == 64 && p.major == 9,
          "device properties");
    check_exchanges();
    check_faults();
    check_configs();
    check_streams();
    check_stream_ordered();
    check_nccl_sync_hazard();
    check_blas();
    check_blaslt();
    fprintf(stderr, "(the next 24 capture messages are expected)\n");
    check_graphs();
    printf("test_cuemu: %d checks, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
