/*
 * cuda_common.cuh — what every file of the CUDA backend shares: the backend's private state
 * (struct gen_cuda: device, stream, cuBLAS handle and workspace, scratch, the device copy
 * of the activation spans, the pinned staging ring for uploads, the sticky error), the
 * error macros (docs/style.md §3: GEN_GPU_TRY_GEN with GEN_CUDA_TRY / GEN_CUBLAS_TRY wrappers
 * that RETURN a genesis_status, never exit), launch-size helpers, the deterministic
 * warp/block reductions, and the launchers each family file defines (gen_cu_*).
 *
 * Every operation of gen_backend_ops returns void, so a failure is recorded once in
 * gen_cuda.status (the first error wins; its message, naming the operation, the CUDA call
 * and the library's error text, goes to the context) and every later operation does
 * nothing; downloads then fill their destination with NaN and any_nonfinite() answers 1.
 * The models see the non-finite value, ask the backend's status op (gen_diverged in
 * backend.h) and return the CUDA error, not a divergence. Launchers check
 * cudaGetLastError() after every kernel launch (llm.c), and
 * GENESIS_CUDA_SYNC=1 synchronises after every operation so errors point at the right one.
 *
 * Determinism: no float atomics anywhere. Sums go through fixed-shape trees
 * (gen_warp_sum / gen_block_sum) whose shape depends only on the problem size, and scalar
 * losses are finished by one block (gen_cu_reduce_finish, or the last block of the kernel
 * that wrote the partials: gen_finish_last), so two runs give the same bits.
 *
 * Files: backend_cuda.cu (the table's assembly, errors, shared helpers, creation), then one
 * file per family of backend.h (the same names as src/backend/cpu/ and tests/parity/):
 * memory.cu, batch.cu (training batches from the device-resident table), dense.cu (GEMM,
 * linear), elementwise.cu, norm.cu (batch norm), output.cu (generator activations, cross
 * entropy), random.cu (Philox fills and dropout), optimiser.cu (Adam, loss scaling),
 * graph.cu (recorded steps), gan.cu (WGAN-GP pieces, column sums), vae.cu (TVAE pieces),
 * diffusion.cu (DDPM), ddpm_noise.cu (DDPM's forward process), gru.cu and gru_cudnn.cu (GRU and sigmoid, TimeGAN), tgloss.cu
 * (TimeGAN's losses); and comm_nccl.cu, device_query.cu.
 */
#ifndef GEN_CUDA_COMMON_CUH
#define GEN_CUDA_COMMON_CUH

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "backend.h"
}
#include "rng.h"

#define GEN_CUDA_THREADS 256        /* threads per block of the 1-D kernels */
#define GEN_CUDA_MAX_BLOCKS 65535u  /* grid-stride loops cover the rest */
#define GEN_CUDA_STAGES 8           /* pinned upload buffers in the ring */
#define GEN_CUDA_STAGE_MAX ((size_t)16 << 20) /* larger uploads copy synchronously */
#define GEN_CUDA_REDUCE_BLOCKS 1024 /* most partial sums one scalar reduction makes */
#define GEN_CUDA_READBACK ((size_t)64 << 10) /* downloads up to this size bounce via pinned memory */

/* One cached cuBLASLt algorithm choice: the product's shape and epilogue, and the algorithm
 * (found 0: the heuristic offered none, the library chooses at each call). */
#define GEN_CUDA_LT_ALGOS 64
#define GEN_CUDA_LT_KEY 14
typedef struct gen_cuda_lt_algo {
    int used, found;
    int32_t key[GEN_CUDA_LT_KEY]; /* epilogue, bias?, ta, tb, m, n, k, lda, ldb, ldc, and the
                                     alignments of A, B, C, D (bytes, at most 256) */
    cublasLtMatmulAlgo_t algo;
} gen_cuda_lt_algo;

typedef struct gen_cuda_stage {
    void *host;            /* pinned */
    size_t cap;
    cudaEvent_t done;      /* recorded after the copy that reads `host` */
    int pending;
} gen_cuda_stage;

/* a pinned buffer a stage outgrew, kept until the backend goes (cudaFreeHost would
 * synchronise the device) */
typedef struct gen_cuda_retired {
    void *host;
    struct gen_cuda_retired *next;
} gen_cuda_retired;

/* A device copy of a small host table (gen_cuda_table_dev): the host copy it was made from,
 * for the comparison that skips an unchanged upload. */
typedef struct gen_cuda_table {
    void *host, *dev;
    size_t bytes, cap;
} gen_cuda_table;

typedef struct gen_cuda {
    gen_backend_ops ops;   /* this backend's table (backend_cuda.cu) */
    genesis_ctx *ctx;
    int device, num_sms;
    char name[128];
    cudaStream_t stream;
    cublasHandle_t blas;
    void *blas_ws;
    size_t blas_ws_bytes;
    /* cuBLASLt: FP32 products with the bias and the ReLU in their epilogue (dense.cu); NULL
     * with GENESIS_CUDA_LT=0 or after the library refused a configuration (then cuBLAS and
     * a kernel, as before) */
    cublasLtHandle_t lt;
    /* the heuristic's algorithm per product shape (dense.cu, cu_lt_algo): the query costs host
     * time, and DDPM's steps are issued, not recorded */
    gen_cuda_lt_algo lt_algo[GEN_CUDA_LT_ALGOS];
    int lt_algo_next;
    unsigned *count;       /* gen_finish_last's device counter, 0 between kernels */
    int tf32;              /* GENESIS_CUDA_TF32=1: cuBLAS may use TF32 tensor cores */
    int sync_each;         /* GENESIS_CUDA_SYNC=1: synchronise after every operation */
    int graphs;            /* record steps as CUDA graphs (GENESIS_CUDA_GRAPHS=0: never) */
    int capturing;         /* the stream is being captured (graph.cu): no host waits */
    int sync_alloc;        /* no memory pools: cudaMalloc/cudaFree (gen_cuda_dev_alloc) */
    genesis_status status; /* sticky: the first failure; later operations do nothing */
    const char *op;        /* the gen_backend_ops entry running (named in error messages) */
    /* The host wait (gen_cuda_sync) of a backend whose stream carries NCCL collectives:
     * polls so that a peer's failure is noticed instead of waiting forever
     * (comm_nccl.cu); NULL: plain cudaStreamSynchronize. */
    genesis_status (*wait)(struct gen_cuda *cu, cudaEvent_t ev, void *arg); /* ev NULL: stream */
    void *wait_arg;
    /* device scratch for partial sums (grown on demand, never shrunk) */
    void *scratch;
    size_t scratch_bytes;
    /* device copies of the last activation-span table and the last reconstruction-span
     * table (host arrays are passed to the ops; gen_cuda_table) */
    gen_cuda_table spans, recon;
    /* the 16-bit operands of a BF16/FP16 GEMM (grown on demand, never shrunk;
     * docs/precision.md): op(A) then op(B), each converted from FP32 just before the product */
    uint16_t *half;
    size_t half_bytes;
    /* any_nonfinite's flag */
    int *flag_dev, *flag_host;
    /* pinned bounce buffer for small downloads (the ledger, losses): one asynchronous copy
     * and one wait, where a copy into pageable memory waits by itself and again after */
    void *readback;
    gen_cuda_stage stage[GEN_CUDA_STAGES];
    int stage_next;
    gen_cuda_retired *retired;
    /* gru_cudnn.cu's op layer: the GRU runs on cuDNN (NULL: the kernels of gru.cu) */
    struct gen_cudnn_gru_ops *dnn_gru;
} gen_cuda;

static inline gen_cuda *gen_cuda_of(gen_backend *be) { return (gen_cuda *)be->impl; }

/* optimiser.cu: loss scaling (backend.h gen_amp) and Adam that obeys its skip flag */
genesis_status gen_cu_amp_scale(gen_cuda *cu, float *x, size_t n, const gen_amp *amp);
genesis_status gen_cu_amp_unscale(gen_cuda *cu, float *g, size_t n, gen_amp *amp);

/* Records the first failure (status, context message, ERROR log line); returns `code`. */
genesis_status gen_cuda_fail(gen_cuda *cu, genesis_status code, const char *call,
                             const char *file, int line, const char *detail);

/* Waits for the backend's stream: the one host synchronisation every download, flag read
 * and GENESIS_CUDA_SYNC check goes through. */
genesis_status gen_cuda_sync(gen_cuda *cu);
/* Waits for an event recorded on the backend's stream (the same rules). */
genesis_status gen_cuda_wait_event(gen_cuda *cu, cudaEvent_t ev);

/* comm_nccl.cu: a backend being destroyed leaves the communicators that watched it. */
#ifdef GEN_HAVE_NCCL
extern "C" void gen_nccl_forget_backend(gen_cuda *cu);
#else
static inline void gen_nccl_forget_backend(gen_cuda *cu) { (void)cu; }
#endif

/* Generic checker (ggml style); the wrappers below name the library. Use only in functions
 * that return genesis_status. */
#define GEN_GPU_TRY_GEN(cu, call, success, strfn, code)                                     \
    do {                                                                                    \
        auto gen_gpu_err_ = (call);                                                         \
        if (gen_gpu_err_ != (success))                                                      \
            return gen_cuda_fail((cu), (code), #call, __FILE__, __LINE__, strfn(gen_gpu_err_)); \
    } while (0)
#define GEN_CUDA_TRY(cu, call) \
    GEN_GPU_TRY_GEN(cu, call, cudaSuccess, cudaGetErrorString, GENESIS_ERR_CUDA)
#define GEN_CUBLAS_TRY(cu, call) \
    GEN_GPU_TRY_GEN(cu, call, CUBLAS_STATUS_SUCCESS, cublasGetStatusString, GENESIS_ERR_CUBLAS)
/* After every kernel launch. */
#define GEN_CUDA_LAUNCHED(cu) GEN_CUDA_TRY(cu, cudaGetLastError())
/* Pass on a failure already recorded. */
#define GEN_CUDA_PASS(call)                              \
    do {                                                 \
        genesis_status gen_pass_st_ = (call);            \
        if (gen_pass_st_ != GENESIS_OK) return gen_pass_st_; \
    } while (0)

/* Every entry point: nothing after a failure; note the operation for error messages; make
 * the backend's GPU current (CUDA's current device is per host thread, and a context may be
 * used from another thread). */
static inline genesis_status gen_cuda_enter(gen_cuda *cu, const char *op) {
    if (cu->status != GENESIS_OK) return cu->status;
    cu->op = op;
    GEN_CUDA_TRY(cu, cudaSetDevice(cu->device));
    return GENESIS_OK;
}

/* Runs one launcher unless an earlier failure stopped the backend; GENESIS_CUDA_SYNC=1
 * synchronises after it so that an asynchronous error is charged to it. The family files'
 * table entries (op_*) are built on it. */
#define GEN_CUDA_RUN(be, name, call)                                                  \
    do {                                                                              \
        gen_cuda *cu = gen_cuda_of(be);                                               \
        if (gen_cuda_enter(cu, name) != GENESIS_OK) return;                           \
        if ((call) == GENESIS_OK && cu->sync_each) gen_cuda_sync(cu);                 \
    } while (0)

/* Each family file fills its members of the table (backend_cuda.cu calls them all). */
void gen_cu_ops_memory(gen_backend_ops *o);
void gen_cu_ops_batch(gen_backend_ops *o);
void gen_cu_ops_dense(gen_backend_ops *o);
void gen_cu_ops_elementwise(gen_backend_ops *o);
void gen_cu_ops_norm(gen_backend_ops *o);
void gen_cu_ops_output(gen_backend_ops *o);
void gen_cu_ops_random(gen_backend_ops *o);
void gen_cu_ops_optimiser(gen_backend_ops *o);
void gen_cu_ops_graph(gen_backend_ops *o);
void gen_cu_ops_gan(gen_backend_ops *o);
void gen_cu_ops_vae(gen_backend_ops *o);
void gen_cu_ops_diffusion(gen_backend_ops *o);
void gen_cu_ops_ddpm_noise(gen_backend_ops *o);
void gen_cu_ops_gru(gen_backend_ops *o);
void gen_cu_ops_tgloss(gen_backend_ops *o);
void gen_cu_ops_privacy(gen_backend_ops *o);

/* Every kernel launch: GEN_LAUNCH(kernel, grid, block, shared_bytes, stream)(args...).
 * nvcc: kernel<<<grid, block, shared_bytes, stream>>>(args...). The host compiler (the
 * emulated module, tests/cuemu/): an object that copies the arguments and queues the launch
 * on the stream (cuemu_device.h). */
#ifdef __CUDACC__
#define GEN_LAUNCH(k, grid, block, smem, stream) k<<<grid, block, smem, stream>>>
#else
#define GEN_LAUNCH(k, grid, block, smem, stream) gen_cuemu_launch(k, #k, grid, block, smem, stream)
#endif /* __CUDACC__ */

/* Blocks for a grid-stride loop over n items with `threads` threads (n > 0). */
static inline unsigned gen_cuda_grid(size_t n, unsigned threads) {
    size_t b = (n + threads - 1) / threads;
    return (unsigned)(b < GEN_CUDA_MAX_BLOCKS ? (b ? b : 1) : GEN_CUDA_MAX_BLOCKS);
}

/* Replaces a grown buffer in stream order (cudaFreeAsync + cudaMallocAsync: no device-wide
 * synchronisation); `what` names the buffer in the error when a step is being recorded. */
genesis_status gen_cuda_regrow(gen_cuda *cu, void **buf, size_t bytes, const char *what);
/* Device memory in the stream's order (cudaMallocAsync/cudaFreeAsync on cu->stream; the
 * synchronous pair on a device without memory pools). */
cudaError_t gen_cuda_dev_alloc(gen_cuda *cu, void **p, size_t bytes);
cudaError_t gen_cuda_dev_free(gen_cuda *cu, void *p);
/* Device scratch of at least `bytes` (valid until the next call that grows it; stream
 * order makes reuse between operations safe). */
genesis_status gen_cuda_scratch(gen_cuda *cu, size_t bytes, void **out);
/* Device copy of a small host table in cache t (re-uploaded only when the content changes;
 * grown, never shrunk). */
genesis_status gen_cuda_table_dev(gen_cuda *cu, gen_cuda_table *t, const void *src, size_t bytes,
                                  const void **dev);
/* Device copy of a host span table (cached: re-uploaded only when the content changes). */
genesis_status gen_cuda_spans(gen_cuda *cu, const gen_act_span *spans, int n,
                              const gen_act_span **dev);
/* The same for TVAE's reconstruction spans (their own cache). */
genesis_status gen_cuda_recon_spans(gen_cuda *cu, const gen_recon_span *spans, int n,
                                    const gen_recon_span **dev);
/* Asynchronous host -> device copy through the pinned staging ring: `src` may be reused as
 * soon as this returns. */
genesis_status gen_cuda_upload(gen_cuda *cu, void *dst, const void *src, size_t bytes);

/* ---- deterministic reductions (fixed trees; the result is valid in thread 0) ---------- */

template <typename T> __device__ __forceinline__ T gen_warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
/* All lanes get the warp's maximum (fmaxf: NaN loses to numbers, as in fmaxf). */
__device__ __forceinline__ float gen_warp_allmax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
/* All lanes get the warp's sum (butterfly; same tree for every lane). */
template <typename T> __device__ __forceinline__ T gen_warp_allsum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Sum over a block of `nthreads` (a multiple of 32, at most 1024) threads with linear index
 * `tid`; `sh` holds 32 values of shared memory. Every thread must call it. */
template <typename T>
__device__ __forceinline__ T gen_block_sum(T v, T *sh, int tid, int nthreads) {
    v = gen_warp_sum(v);
    int lane = tid & 31, warp = tid >> 5;
    __syncthreads(); /* sh may still be read by a previous call */
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (nthreads >> 5) ? sh[lane] : (T)0;
        v = gen_warp_sum(v);
    }
    return v;
}

/* The finish of a partial-sum kernel in the same launch (the CUDA C++ Programming Guide's
 * threadfence reduction, "Memory Fence Functions"): after each block has written its partials
 * (partials[blockIdx.x], or one per row), every thread of every block (1-D blocks of a
 * multiple of 32 threads)
 * calls it; the block that finishes last, counted in *count (the backend's device counter,
 * 0 between launches, which that block puts back, so a replayed graph finds it at 0), adds
 * the n partials as k_reduce_finish does (thread t: t, t + blockDim.x, ..., then the fixed
 * block tree) and writes out[0] = (float)(scale * sum / div). Which block is last varies from
 * run to run; the sum does not. One kernel instead of the partials' and k_reduce_finish's
 * (docs/cuda.md, "Kernels per step"). `sh`: 32 doubles of the kernel's shared memory. */
__device__ __forceinline__ void gen_finish_last(float *out, const double *partials, int n,
                                                double scale, double div, unsigned *count,
                                                double *sh) {
    __threadfence(); /* this block's partials are visible to the block that counts last */
    __syncthreads(); /* (and every earlier use of sh is over) */
    if (threadIdx.x == 0) sh[0] = atomicAdd(count, 1u) == gridDim.x - 1 ? 1.0 : 0.0;
    __syncthreads();
    if (sh[0] == 0.0) return; /* the whole block: not the last (gen_block_sum below first
                                 synchronises, so every thread has read the flag) */
    const volatile double *p = partials; /* written by other blocks: read past any cache */
    double acc = 0.0;
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) acc += p[i];
    acc = gen_block_sum(acc, sh, (int)threadIdx.x, (int)blockDim.x);
    if (threadIdx.x == 0) {
        out[0] = (float)(scale * acc / div);
        *count = 0;
    }
}

/* Column reductions over a few hundred rows (bias gradients, batch norm's statistics): a
 * block of GEN_COL_COLS adjacent columns (threadIdx.x; 8 floats = one 32-byte sector of a
 * row) x GEN_COL_ROWS row-threads (threadIdx.y, a fixed stride), so that at Adult's batch
 * (500 rows) a thread walks 8 rows, not 31-62, and a 256-wide layer has 32 blocks, not 8
 * (docs/cuda.md, "Launch configurations"). gen_col_tree adds the GEN_COL_ROWS partial sums
 * of column threadIdx.x in a fixed tree (halving, in place in `sh`) and gives every thread
 * the total; every thread of the block must call it. */
#define GEN_COL_COLS 8
#define GEN_COL_ROWS 64
template <typename T>
__device__ __forceinline__ T gen_col_tree(T v, T (*sh)[GEN_COL_COLS]) {
    sh[threadIdx.y][threadIdx.x] = v;
    __syncthreads();
    for (int h = GEN_COL_ROWS / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.y < h) sh[threadIdx.y][threadIdx.x] += sh[threadIdx.y + h][threadIdx.x];
        __syncthreads();
    }
    T t = sh[0][threadIdx.x];
    __syncthreads(); /* sh may be written again by the next call */
    return t;
}

/* ---- launchers (each returns GENESIS_OK or the recorded failure) ---------------------- */

/* elementwise.cu */
genesis_status gen_cu_relu_forward(gen_cuda *cu, float *out, const float *inp, size_t n);
/* ReLU with the output stored in 16 bits (backend.h relu_forward_h / relu_backward_h) */
genesis_status gen_cu_relu_forward_h(gen_cuda *cu, uint16_t *out, int ldo, const float *inp,
                                     int ldi, int rows, int cols, int prec);
genesis_status gen_cu_relu_backward_h(gen_cuda *cu, float *dinp, const float *dout,
                                      const uint16_t *out, int ldo, int rows, int cols, int prec);
genesis_status gen_cu_relu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                    const float *out, size_t n);
genesis_status gen_cu_leaky_relu_forward(gen_cuda *cu, float *out, const float *inp, size_t n,
                                         float slope);
genesis_status gen_cu_leaky_relu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                          const float *inp, size_t n, float slope);
genesis_status gen_cu_mul(gen_cuda *cu, float *out, const float *a, const float *b, size_t n);
genesis_status gen_cu_mul_acc(gen_cuda *cu, float *dinp, const float *dout, const float *mask,
                              size_t n);
genesis_status gen_cu_leaky_slope_mask(gen_cuda *cu, float *s, const float *inp,
                                       const float *mask, size_t n, float slope);
genesis_status gen_cu_mul_rowvec(gen_cuda *cu, float *out, const float *s, const float *v,
                                 int rows, int cols);
genesis_status gen_cu_sum(gen_cuda *cu, float *out, const float *x, size_t n);
genesis_status gen_cu_act_backward_bias(gen_cuda *cu, float *dinp, float *dbias,
                                           const float *dout, const float *x, int rows, int cols,
                                           int act);
genesis_status gen_cu_clamp(gen_cuda *cu, float *x, size_t n, float lo, float hi);
genesis_status gen_cu_any_nonfinite(gen_cuda *cu, const float *x, size_t n, int *result);
/* out rows (ld ldo) = v (cols): the bias broadcast of linear_forward */
/* dense.cu: linear_forward at precision prec (bias NULL: the product alone, beta 0) */
genesis_status gen_cu_linear_forward(gen_cuda *cu, float *out, int ldo, const float *inp, int ldi,
                                     const float *W, const float *bias, int B, int C, int OC,
                                     int prec);
genesis_status gen_cu_fill_rows(gen_cuda *cu, float *out, int ldo, const float *v, int rows,
                                int cols);
/* C (rows x cols, ld ldc) *= beta: GEMM with K = 0 */
genesis_status gen_cu_scale2d(gen_cuda *cu, float *C, int ldc, int rows, int cols, float beta);
/* out[0] = (float)(scale * sum(partials[0..n)) / div), one block, fixed order */
genesis_status gen_cu_reduce_finish(gen_cuda *cu, float *out, const double *partials, int n,
                                    double scale, double div);
/* Blocks gen_cu_sum-style partial reductions use for n items (depends on n only). */
static inline int gen_cuda_reduce_blocks(size_t n) {
    size_t b = (n + 4 * GEN_CUDA_THREADS - 1) / (4 * GEN_CUDA_THREADS);
    return (int)(b < GEN_CUDA_REDUCE_BLOCKS ? (b ? b : 1) : GEN_CUDA_REDUCE_BLOCKS);
}

/* random.cu; base: NULL, or a device counter added to offset when the kernel runs
 * (gen_backend.rng_base) */
genesis_status gen_cu_fill_normal(gen_cuda *cu, float *x, size_t n, uint64_t seed,
                                  uint64_t stream, uint64_t offset, const uint64_t *base);
genesis_status gen_cu_fill_uniform(gen_cuda *cu, float *x, size_t n, uint64_t seed,
                                   uint64_t stream, uint64_t offset, const uint64_t *base);
genesis_status gen_cu_dropout_forward(gen_cuda *cu, float *out, float *mask, const float *inp,
                                      size_t n, float p, uint64_t seed, uint64_t stream,
                                      uint64_t offset, const uint64_t *base);

/* norm.cu */
genesis_status gen_cu_batchnorm_forward(gen_cuda *cu, float *out, float *mean, float *rstd,
                                        const float *inp, const float *gamma,
                                        const float *beta, int B, int C, float eps);
genesis_status gen_cu_batchnorm_forward_eval(gen_cuda *cu, float *out, const float *inp,
                                             const float *rmean, const float *rvar,
                                             const float *gamma, const float *beta, int B,
                                             int C, float eps);
genesis_status gen_cu_batchnorm_update_running(gen_cuda *cu, float *rmean, float *rvar,
                                               const float *mean, const float *rstd, int B,
                                               int C, float momentum, float eps);
genesis_status gen_cu_batchnorm_backward(gen_cuda *cu, float *dinp, float *dgamma,
                                         float *dbeta, const float *dout, const float *inp,
                                         const float *mean, const float *rstd,
                                         const float *gamma, int B, int C);
genesis_status gen_cu_batchnorm_stats(gen_cuda *cu, float *part, const float *inp,
                                      const float *mean, int B, int C, int N);
genesis_status gen_cu_batchnorm_apply(gen_cuda *cu, float *out, float *rstd, const float *inp,
                                      const float *mean, const float *gamma, const float *beta,
                                      int B, int C, float eps);
genesis_status gen_cu_batchnorm_backward_sums(gen_cuda *cu, float *sums, float *dgamma,
                                              float *dbeta, const float *dout, const float *inp,
                                              const float *mean, const float *rstd,
                                              const float *gamma, int B, int C);
genesis_status gen_cu_batchnorm_backward_apply(gen_cuda *cu, float *dinp, const float *dout,
                                               const float *inp, const float *mean,
                                               const float *rstd, const float *gamma,
                                               const float *sums, int B, int C, int N);

/* output.cu */
genesis_status gen_cu_activate_forward(gen_cuda *cu, float *out, int ldo, const float *x,
                                       int ldx, int B, const gen_act_span *spans, int nspans,
                                       float tau, uint64_t seed, uint64_t stream,
                                       uint64_t offset, uint64_t row0, const uint64_t *base);
genesis_status gen_cu_activate_backward(gen_cuda *cu, float *dx, int lddx, const float *dout,
                                        int lddo, const float *out, int ldo, int B,
                                        const gen_act_span *spans, int nspans, float tau);
genesis_status gen_cu_cross_entropy_rows(gen_cuda *cu, float *loss, float *dlogits, int ldd,
                                         const float *logits, int ldl, int B,
                                         const int32_t *start, const int32_t *len,
                                         const int32_t *target, float scale);

/* gan.cu */
genesis_status gen_cu_interpolate_groups(gen_cuda *cu, float *out, const float *real,
                                         const float *fake, const float *alpha, int B, int w,
                                         int pac);
genesis_status gen_cu_gp_penalty(gen_cuda *cu, float *pen, float *U, const float *G, int n,
                                 int width, float lambda);
/* dv (cols) += colsum(a (rows x cols, ld lda)) */
genesis_status gen_cu_colsum_acc(gen_cuda *cu, float *dv, const float *a, int lda, int rows,
                                 int cols);

/* backend_cuda.cu: C (M x N) = alpha op(A) op(B) + beta C, row-major (the gemm operation) */
genesis_status gen_cu_gemm(gen_cuda *cu, int ta, int tb, int M, int N, int K, float alpha,
                           const float *A, int lda, const float *B, int ldb, float beta, float *C,
                           int ldc);

/* gru.cu (reset-after GRU cell; semantics in backend.h) */
/* diffusion.cu (DDPM) */
genesis_status gen_cu_silu_forward(gen_cuda *cu, float *out, const float *inp, size_t n);
genesis_status gen_cu_silu_backward(gen_cuda *cu, float *dinp, const float *dout,
                                    const float *inp, size_t n);
genesis_status gen_cu_timestep_embed(gen_cuda *cu, float *out, const int32_t *t, int B, int dim);
genesis_status gen_cu_ddpm_loss(gen_cuda *cu, float *loss, float *dout, const float *out,
                                const float *x0, const float *xt, const float *noise,
                                const float *coef, int B, int D, const gen_act_span *spans,
                                int nspans, float gscale, float mscale);
genesis_status gen_cu_scale(gen_cuda *cu, float *x, size_t n, float s);
genesis_status gen_cu_label_embed(gen_cuda *cu, float *out, const float *emb, const int32_t *y,
                                  int B, int dim);
genesis_status gen_cu_label_embed_backward(gen_cuda *cu, float *demb, const float *dout,
                                           const int32_t *y, int B, int K, int dim);
genesis_status gen_cu_ema_update(gen_cuda *cu, float *ema, const float *x, size_t n, float decay);
genesis_status gen_cu_ddpm_sample_init(gen_cuda *cu, float *x, int32_t *t, int tnext, int B,
                                       int D, const gen_act_span *spans, int nspans,
                                       uint64_t seed, uint64_t stream, uint64_t offset,
                                       uint64_t e0, const uint64_t *base);
genesis_status gen_cu_ddpm_reverse_step(gen_cuda *cu, float *xout, int32_t *t, int tnext,
                                        const float *xt, const float *eps, int B, int D,
                                        const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                        uint64_t seed, uint64_t stream, uint64_t offset,
                                        uint64_t e0, const uint64_t *base);
genesis_status gen_cu_sigmoid_forward(gen_cuda *cu, float *out, const float *inp, size_t n);
genesis_status gen_cu_sigmoid_backward(gen_cuda *cu, float *dinp, const float *dout,
                                       const float *out, size_t n);
genesis_status gen_cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                  const float *h0, const float *W, const float *b, int B, int T,
                                  int C, int H);
genesis_status gen_cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                   float *work, const float *dy, const float *x,
                                   const float *h0, const float *y, const float *save,
                                   const float *W, int B, int T, int C, int H);

/* vae.cu */
genesis_status gen_cu_reparam_forward(gen_cuda *cu, float *z, float *std, const float *mu,
                                      const float *logvar, const float *eps, size_t n);
genesis_status gen_cu_reparam_backward(gen_cuda *cu, float *dmu, float *dlogvar,
                                       const float *dz, const float *eps, const float *std,
                                       size_t n);
genesis_status gen_cu_kl_normal(gen_cuda *cu, float *loss, float *dmu, float *dlogvar,
                                const float *mu, const float *logvar, size_t n, float scale);
genesis_status gen_cu_tvae_recon(gen_cuda *cu, float *loss, float *dr, float *dsigma,
                                 const float *r, int ldr, const float *x, const float *sigma,
                                 int B, int D, const gen_recon_span *spans, int nspans,
                                 float scale);

/* batch.cu */
genesis_status gen_cu_gather_rows(gen_cuda *cu, float *out, int ldo, const gen_dev_table *t,
                                  const int32_t *rows, int B);
genesis_status gen_cu_onehot_rows(gen_cuda *cu, float *out, int ldo, int w, const int32_t *pos,
                                  int B);
genesis_status gen_cu_accumulate(gen_cuda *cu, float *acc, const float *x, int n);

/* optimiser.cu */
genesis_status gen_cu_adam(gen_cuda *cu, float *param, const float *grad, float *m, float *v,
                           size_t n, float lr, float beta1, float beta2, float eps,
                           float weight_decay, int64_t t);
/* t = *t0 + dt read on the device; the bias corrections computed there as the host does */
genesis_status gen_cu_adam_dev(gen_cuda *cu, float *param, const float *grad, float *m,
                               float *v, size_t n, float lr, float beta1, float beta2,
                               float eps, float weight_decay, const int64_t *t0, int64_t dt,
                               const gen_amp *amp);

/* graph.cu: the device step state and recorded steps (docs/cuda.md, "CUDA graphs") */
genesis_status gen_cu_select_block(gen_cuda *cu, int32_t *dst, const int32_t *src, size_t n,
                                   const gen_step_state *st);
genesis_status gen_cu_step_advance(gen_cuda *cu, gen_step_state *st, gen_step_state d);
int gen_cu_graph_begin(gen_cuda *cu);
gen_graph *gen_cu_graph_end(gen_cuda *cu);
genesis_status gen_cu_graph_launch(gen_cuda *cu, gen_graph *g);
void gen_cu_graph_free(gen_cuda *cu, gen_graph *g);

/* tgloss.cu: TimeGAN's losses on the device (backend.h) */
genesis_status gen_cu_mse_loss(gen_cuda *cu, double *loss, float *da, float *db, const float *a,
                               const float *b, int rows, int cols, int ld, float scale,
                               int root);
genesis_status gen_cu_bce_logits(gen_cuda *cu, double *loss, float *dl, const float *l, size_t n,
                                 float y, float scale);
genesis_status gen_cu_moments_loss(gen_cuda *cu, double *loss, float *dxh, const float *xh,
                                   const float *x, int B, int T, int F, float scale);
genesis_status gen_cu_adam_tf1_gated(gen_cuda *cu, float *param, const float *grad, float *m,
                                     float *v, size_t n, float lr, float beta1, float beta2,
                                     float eps, int64_t *t, const double *gate, int ngate,
                                     double threshold);
genesis_status gen_cu_take_rows(gen_cuda *cu, float *out, const float *src, const int32_t *idx,
                                int B, int w);

#endif /* GEN_CUDA_COMMON_CUH */
