/*
 * backend_cuda.cu — the CUDA backend: gen_backend_ops filled with GPU launchers. This file
 * holds the table, the per-backend handles (device, one non-blocking stream, a cuBLAS
 * handle with its own workspace, docs/style.md §4: no globals, no per-call creation), memory
 * (alloc/free/upload/download/zero/copy2d), the GEMMs (cuBLAS, FP32; TF32 only when
 * GENESIS_CUDA_TF32=1) and linear forward/backward. The other operations live in one file
 * per family (elementwise.cu, rng.cu, norm.cu, softmax.cu, gan.cu, vae.cu, adam.cu, gru.cu).
 *
 * Every operation is queued on the backend's stream and returns at once, except download
 * and any_nonfinite (they synchronise: the host reads their result) and free (it waits for
 * queued work that may still use the buffer). upload copies through a ring of pinned
 * staging buffers, so the caller's buffer may be reused as soon as upload returns.
 * Errors: see cuda_common.cuh (sticky status, the first message goes to the context; later
 * operations do nothing, downloads give NaN).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"
#include "gru_cudnn.cuh"

#define GEN_CUBLAS_WORKSPACE ((size_t)32 << 20) /* what cuBLAS recommends on Hopper */

/* ---- errors ------------------------------------------------------------------------------- */

genesis_status gen_cuda_fail(gen_cuda *cu, genesis_status code, const char *call,
                             const char *file, int line, const char *detail) {
    if (cu->status != GENESIS_OK) return code;
    cu->status = code;
    const char *base = strrchr(file, '/');
    const char *op = cu->op ? cu->op : "setup";
    /* a kernel's fault is reported by the next call that waits for the stream: name that */
    int async = strstr(call, "Synchronize") || strstr(call, "gen_cuda_sync");
    gen_set_error(cu->ctx, code,
                  "the CUDA backend on GPU %d failed in operation %s: %s: %s (%s:%d)%s; or run "
                  "on the CPU (device cpu)",
                  cu->device, op, call, detail ? detail : "?", base ? base + 1 : file, line,
                  async && !cu->sync_each
                      ? "; found while waiting for the GPU, so an earlier operation may have "
                        "raised it: GENESIS_CUDA_SYNC=1 charges each error to its own operation"
                      : "");
    return code;
}

genesis_status gen_cuda_sync(gen_cuda *cu) {
    if (cu->capturing) /* a recorded step (graph.cu) must not wait for the GPU */
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_sync", __FILE__, __LINE__,
                             "the host waits for the GPU inside a step being recorded as a "
                             "CUDA graph (a download, any_nonfinite, free or a buffer that "
                             "grows); move it out of the step or set GENESIS_CUDA_GRAPHS=0");
    if (cu->wait) GEN_CUDA_PASS(cu->wait(cu, NULL, cu->wait_arg));
    else GEN_CUDA_TRY(cu, cudaStreamSynchronize(cu->stream));
    /* everything queued is done: no staging buffer is still being read */
    for (int i = 0; i < GEN_CUDA_STAGES; i++) cu->stage[i].pending = 0;
    return GENESIS_OK;
}

genesis_status gen_cuda_wait_event(gen_cuda *cu, cudaEvent_t ev) {
    if (cu->wait) return cu->wait(cu, ev, cu->wait_arg);
    GEN_CUDA_TRY(cu, cudaEventSynchronize(ev));
    return GENESIS_OK;
}

/* Every entry point: nothing after a failure; note the operation for error messages; make
 * the backend's GPU current (CUDA's current device is per host thread, and a context may be
 * used from another thread). */
static genesis_status cu_enter(gen_cuda *cu, const char *op) {
    if (cu->status != GENESIS_OK) return cu->status;
    cu->op = op;
    GEN_CUDA_TRY(cu, cudaSetDevice(cu->device));
    return GENESIS_OK;
}

/* Runs one launcher unless an earlier failure stopped the backend; GENESIS_CUDA_SYNC=1
 * synchronises after it so that an asynchronous error is charged to it. */
#define GEN_CUDA_RUN(be, name, call)                                                  \
    do {                                                                              \
        gen_cuda *cu = gen_cuda_of(be);                                               \
        if (cu_enter(cu, name) != GENESIS_OK) return;                                 \
        if ((call) == GENESIS_OK && cu->sync_each) gen_cuda_sync(cu);                 \
    } while (0)

/* ---- shared helpers (cuda_common.cuh) ------------------------------------------------------ */

/* Replaces the backend buffer *buf (NULL or from here) by one of `bytes`, in the stream's
 * order: kernels queued earlier still read the old one, which is freed when the stream
 * reaches them, and nothing waits. A cudaFree here would synchronise the device, which
 * with NCCL ranks sharing it can wait forever (docs/cuda.md, "NCCL and device-wide
 * synchronisation"). Refused inside a step being recorded: a replay holds the address. */
genesis_status gen_cuda_regrow(gen_cuda *cu, void **buf, size_t bytes, const char *what) {
    if (cu->capturing) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "%s grows inside a step being recorded as a CUDA graph; set "
                 "GENESIS_CUDA_GRAPHS=0",
                 what);
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_regrow", __FILE__, __LINE__, msg);
    }
    if (*buf) GEN_CUDA_TRY(cu, gen_cuda_dev_free(cu, *buf));
    *buf = NULL;
    GEN_CUDA_TRY(cu, gen_cuda_dev_alloc(cu, buf, bytes));
    return GENESIS_OK;
}

/* Device memory in the stream's order (cudaMallocAsync / cudaFreeAsync). A device without
 * memory pools (cu->sync_alloc, found by cu_init) gets cudaMalloc / cudaFree, whose free
 * synchronises the device: correct, but with NCCL ranks sharing a process it brings back
 * the wait described at gen_cuda_regrow. */
cudaError_t gen_cuda_dev_alloc(gen_cuda *cu, void **p, size_t bytes) {
    return cu->sync_alloc ? cudaMalloc(p, bytes) : cudaMallocAsync(p, bytes, cu->stream);
}

cudaError_t gen_cuda_dev_free(gen_cuda *cu, void *p) {
    if (!p) return cudaSuccess;
    if (cu->sync_alloc) {
        gen_cuda_sync(cu); /* queued work may still use it */
        return cudaFree(p);
    }
    return cudaFreeAsync(p, cu->stream);
}

genesis_status gen_cuda_scratch(gen_cuda *cu, size_t bytes, void **out) {
    *out = NULL;
    if (bytes < 256) bytes = 256;
    if (bytes > cu->scratch_bytes) {
        size_t want = cu->scratch_bytes * 2 > bytes ? cu->scratch_bytes * 2 : bytes;
        cu->scratch_bytes = 0;
        GEN_CUDA_PASS(gen_cuda_regrow(cu, &cu->scratch, want, "the scratch buffer"));
        cu->scratch_bytes = want;
    }
    *out = cu->scratch;
    return GENESIS_OK;
}

genesis_status gen_cuda_upload(gen_cuda *cu, void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return GENESIS_OK;
    if (cu->capturing) /* a replay would copy whatever the staging buffer then holds */
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_upload", __FILE__, __LINE__,
                             "an upload inside a step being recorded as a CUDA graph; upload "
                             "before the step or set GENESIS_CUDA_GRAPHS=0");
    if (bytes > GEN_CUDA_STAGE_MAX) { /* large (weights, whole tables): copy and wait */
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cu->stream));
        GEN_CUDA_PASS(gen_cuda_sync(cu));
        return GENESIS_OK;
    }
    gen_cuda_stage *s = &cu->stage[cu->stage_next];
    cu->stage_next = (cu->stage_next + 1) % GEN_CUDA_STAGES;
    if (s->pending) { /* the copy that last read this buffer must be done */
        GEN_CUDA_PASS(gen_cuda_wait_event(cu, s->done));
        s->pending = 0;
    }
    if (s->cap < bytes) { /* at least double; the old buffer waits for cu_release, since
                           * cudaFreeHost would synchronise the device (gen_cuda_regrow) */
        size_t want = (bytes + 65535) & ~(size_t)65535;
        if (want < 2 * s->cap) want = 2 * s->cap;
        void *fresh = NULL;
        GEN_CUDA_TRY(cu, cudaMallocHost(&fresh, want));
        if (s->host) {
            gen_cuda_retired *r = (gen_cuda_retired *)malloc(sizeof *r);
            if (!r) {
                cudaFreeHost(fresh);
                return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "malloc", __FILE__, __LINE__,
                                     "out of host memory for an upload buffer");
            }
            r->host = s->host;
            r->next = cu->retired;
            cu->retired = r;
        }
        s->host = fresh;
        s->cap = want;
    }
    memcpy(s->host, src, bytes);
    GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, s->host, bytes, cudaMemcpyHostToDevice, cu->stream));
    GEN_CUDA_TRY(cu, cudaEventRecord(s->done, cu->stream));
    s->pending = 1;
    return GENESIS_OK;
}

genesis_status gen_cuda_table_dev(gen_cuda *cu, gen_cuda_table *t, const void *src, size_t bytes,
                                  const void **dev) {
    *dev = NULL;
    if (t->dev && bytes == t->bytes && memcmp(src, t->host, bytes) == 0) {
        *dev = t->dev;
        return GENESIS_OK;
    }
    if (bytes > t->cap) {
        size_t cap = bytes < 1024 ? 1024 : bytes;
        void *h = realloc(t->host, cap);
        if (!h)
            return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "realloc", __FILE__, __LINE__,
                                 "out of host memory for the span table");
        t->host = h;
        t->cap = 0;
        t->bytes = 0;
        GEN_CUDA_PASS(gen_cuda_regrow(cu, &t->dev, cap, "the span table"));
        t->cap = cap;
    }
    memcpy(t->host, src, bytes);
    t->bytes = bytes;
    /* stream order: kernels queued earlier read the old table before this copy lands */
    genesis_status st = gen_cuda_upload(cu, t->dev, src, bytes);
    if (st != GENESIS_OK) return st;
    *dev = t->dev;
    return GENESIS_OK;
}

genesis_status gen_cuda_spans(gen_cuda *cu, const gen_act_span *spans, int n,
                              const gen_act_span **dev) {
    const void *d = NULL;
    genesis_status st = gen_cuda_table_dev(cu, &cu->spans, spans, (size_t)n * sizeof *spans, &d);
    *dev = (const gen_act_span *)d;
    return st;
}

genesis_status gen_cuda_recon_spans(gen_cuda *cu, const gen_recon_span *spans, int n,
                                    const gen_recon_span **dev) {
    const void *d = NULL;
    genesis_status st = gen_cuda_table_dev(cu, &cu->recon, spans, (size_t)n * sizeof *spans, &d);
    *dev = (const gen_recon_span *)d;
    return st;
}

/* ---- memory --------------------------------------------------------------------------------- */

static genesis_status cu_alloc_impl(gen_cuda *cu, size_t bytes, void **out) {
    *out = NULL;
    void *p = NULL;
    if (bytes == 0) bytes = 1;
    /* stream-ordered, as op_free: no device-wide synchronisation (gen_cuda_regrow) */
    cudaError_t e = gen_cuda_dev_alloc(cu, &p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* out of memory is not sticky: the caller reports NOMEM */
        return GENESIS_ERR_NOMEM;
    }
    e = cudaMemsetAsync(p, 0, bytes, cu->stream);
    if (e != cudaSuccess) {
        gen_cuda_dev_free(cu, p);
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudaMemsetAsync", __FILE__, __LINE__,
                             cudaGetErrorString(e));
    }
    *out = p;
    return GENESIS_OK;
}

static void *op_alloc(gen_backend *be, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    if (cu_enter(cu, "alloc") != GENESIS_OK) return NULL;
    void *p = NULL;
    cu_alloc_impl(cu, bytes, &p);
    return p;
}

static void op_free(gen_backend *be, void *p) {
    if (!p) return;
    gen_cuda *cu = gen_cuda_of(be);
    cudaSetDevice(cu->device);
    /* in the stream's order: queued work may still use it, and nothing waits (a cudaFree
     * would synchronise the device: gen_cuda_regrow) */
    if (gen_cuda_dev_free(cu, p) != cudaSuccess) cudaGetLastError();
}

static void op_upload(gen_backend *be, void *dst, const void *src, size_t bytes) {
    GEN_CUDA_RUN(be, "upload", gen_cuda_upload(cu, dst, src, bytes));
}

static genesis_status cu_download_impl(gen_cuda *cu, void *dst, const void *src, size_t bytes) {
    if (bytes <= GEN_CUDA_READBACK) { /* small: through pinned memory, one wait */
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(cu->readback, src, bytes, cudaMemcpyDeviceToHost,
                                         cu->stream));
        GEN_CUDA_PASS(gen_cuda_sync(cu));
        memcpy(dst, cu->readback, bytes);
        return GENESIS_OK;
    }
    GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cu->stream));
    GEN_CUDA_PASS(gen_cuda_sync(cu));
    return GENESIS_OK;
}

static void op_download(gen_backend *be, void *dst, const void *src, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    if (bytes == 0) return;
    if (cu_enter(cu, "download") == GENESIS_OK && cu_download_impl(cu, dst, src, bytes) == GENESIS_OK) return;
    memset(dst, 0xff, bytes); /* NaN: a failed backend never hands out plausible numbers */
}

static genesis_status cu_zero_impl(gen_cuda *cu, float *x, size_t n) {
    if (n) GEN_CUDA_TRY(cu, cudaMemsetAsync(x, 0, n * sizeof(float), cu->stream));
    return GENESIS_OK;
}
static void op_zero(gen_backend *be, float *x, size_t n) {
    GEN_CUDA_RUN(be, "zero", cu_zero_impl(cu, x, n));
}

static genesis_status cu_copy2d_impl(gen_cuda *cu, float *dst, int ldd, const float *src,
                                     int lds, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    GEN_CUDA_TRY(cu, cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(float), src,
                                       (size_t)lds * sizeof(float), (size_t)cols * sizeof(float),
                                       (size_t)rows, cudaMemcpyDeviceToDevice, cu->stream));
    return GENESIS_OK;
}
static void op_copy2d(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                      int cols) {
    GEN_CUDA_RUN(be, "copy2d", cu_copy2d_impl(cu, dst, ldd, src, lds, rows, cols));
}

/* ---- dense ------------------------------------------------------------------------------------ */

/* Converts the rows x cols matrix src (ld lds, FP32) to 16-bit values (ld ldd) in the format
 * `prec`, round to nearest even (precision.h) */
__global__ void k_to_half(uint16_t *__restrict__ dst, int ldd, const float *__restrict__ src,
                          int lds, int rows, int cols, int prec) {
    size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dst[r * (size_t)ldd + c] = gen_half_bits(src[r * (size_t)lds + c], prec);
    }
}

static genesis_status cu_to_half(gen_cuda *cu, uint16_t *dst, int ldd, const float *src, int lds,
                                 int rows, int cols, int prec) {
    size_t n = (size_t)rows * cols;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_to_half, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        dst, ldd, src, lds, rows, cols, prec);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* Copies the rows x cols matrix src (ld lds) into dst (ld ldd) with every value rounded to
 * TF32, to nearest even (precision.h): a tensor core reads only the top 19 bits of an FP32
 * operand (the low 13 are dropped, not rounded), so rounded copies make a TF32 product the
 * CPU's product of the same rounded values (found on an H200: without them TF32 products were
 * off by about 2^-11 sqrt(K)). */
__global__ void k_to_tf32(float *__restrict__ dst, int ldd, const float *__restrict__ src,
                          int lds, int rows, int cols) {
    size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dst[r * (size_t)ldd + c] = gen_tf32_round(src[r * (size_t)lds + c]);
    }
}

static genesis_status cu_to_tf32(gen_cuda *cu, float *dst, int ldd, const float *src, int lds,
                                 int rows, int cols) {
    size_t n = (size_t)rows * cols;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_to_tf32, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        dst, ldd, src, lds, rows, cols);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* The reduced-precision operand buffer (16-bit operands, or TF32-rounded FP32 ones), at
 * least `bytes`: exactly the largest product's so far, as the
 * memory model counts it (src/model/estimate.c). A replayed graph holds its address, so it grows
 * only outside a recorded step, on the step's first issue. */
static genesis_status cu_half_buffer(gen_cuda *cu, size_t bytes) {
    if (bytes <= cu->half_bytes) return GENESIS_OK;
    size_t want = bytes;
    cu->half_bytes = 0;
    GEN_CUDA_PASS(gen_cuda_regrow(cu, (void **)&cu->half, want, "the reduced-precision operand buffer"));
    cu->half_bytes = want;
    return GENESIS_OK;
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the same memory read
 * column-major is the transpose, so cuBLAS gets (B, A) with the same flags and (N, M).
 * prec (GEN_PREC_*, docs/precision.md): FP32 is cublasSgemm; TF32 rounds A and B to TF32
 * (k_to_tf32, packed FP32 copies) and calls cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32;
 * BF16/FP16 convert the stored A and B to 16
 * bits (k_to_half, packed) and call cublasGemmEx with CUBLAS_COMPUTE_32F (FP32 accumulation,
 * FP32 C). An operand already stored in 16 bits (Ah / Bh instead of A / B; BF16/FP16 only)
 * goes to cublasGemmEx as it is, with its own leading dimension, and takes no room in the
 * conversion buffer. */
static genesis_status cu_gemm_mixed(gen_cuda *cu, int ta, int tb, int M, int N, int K,
                                    float alpha, const float *A, const uint16_t *Ah, int lda,
                                    const float *B, const uint16_t *Bh, int ldb, float beta,
                                    float *C, int ldc, int prec) {
    if (M <= 0 || N <= 0) return GENESIS_OK;
    if (K <= 0) return gen_cu_scale2d(cu, C, ldc, M, N, beta); /* as the CPU: C *= beta */
    cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (prec == GEN_PREC_TF32) { /* FP32 operands only (16-bit storage is BF16/FP16's) */
        int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
        size_t na = (size_t)ar * ac, nb = (size_t)br * bc;
        GEN_CUDA_PASS(cu_half_buffer(cu, 4 * (na + nb)));
        float *ra = (float *)(void *)cu->half, *rb = ra + na;
        GEN_CUDA_PASS(cu_to_tf32(cu, ra, ac, A, lda, ar, ac));
        GEN_CUDA_PASS(cu_to_tf32(cu, rb, bc, B, ldb, br, bc));
        GEN_CUBLAS_TRY(cu, cublasGemmEx(cu->blas, opb, opa, N, M, K, &alpha, rb, CUDA_R_32F, bc,
                                        ra, CUDA_R_32F, ac, &beta, C, CUDA_R_32F, ldc,
                                        CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        return GENESIS_OK;
    }
    if (prec == GEN_PREC_BF16 || prec == GEN_PREC_FP16) {
        /* stored shapes (row-major): A is M x K (K x M when ta), B is K x N (N x K when tb) */
        int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
        size_t na = Ah ? 0 : (size_t)ar * ac, nb = Bh ? 0 : (size_t)br * bc;
        GEN_CUDA_PASS(cu_half_buffer(cu, 2 * (na + nb)));
        const uint16_t *ha = Ah, *hb = Bh;
        int la = lda, lb = ldb;
        if (!Ah) {
            GEN_CUDA_PASS(cu_to_half(cu, cu->half, ac, A, lda, ar, ac, prec));
            ha = cu->half;
            la = ac;
        }
        if (!Bh) {
            GEN_CUDA_PASS(cu_to_half(cu, cu->half + na, bc, B, ldb, br, bc, prec));
            hb = cu->half + na;
            lb = bc;
        }
        cudaDataType t = prec == GEN_PREC_BF16 ? CUDA_R_16BF : CUDA_R_16F;
        GEN_CUBLAS_TRY(cu, cublasGemmEx(cu->blas, opb, opa, N, M, K, &alpha, hb, t, lb, ha, t, la,
                                        &beta, C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT));
        return GENESIS_OK;
    }
    GEN_CUBLAS_TRY(cu, cublasSgemm(cu->blas, opb, opa, N, M, K, &alpha, B, ldb, A, lda, &beta, C,
                                   ldc));
    return GENESIS_OK;
}
static genesis_status cu_gemm_prec(gen_cuda *cu, int ta, int tb, int M, int N, int K,
                                   float alpha, const float *A, int lda, const float *B, int ldb,
                                   float beta, float *C, int ldc, int prec) {
    return cu_gemm_mixed(cu, ta, tb, M, N, K, alpha, A, NULL, lda, B, NULL, ldb, beta, C, ldc,
                         prec);
}
static genesis_status cu_gemm_impl(gen_cuda *cu, int ta, int tb, int M, int N, int K,
                                   float alpha, const float *A, int lda, const float *B, int ldb,
                                   float beta, float *C, int ldc) {
    return cu_gemm_prec(cu, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, GEN_PREC_FP32);
}
genesis_status gen_cu_gemm(gen_cuda *cu, int ta, int tb, int M, int N, int K, float alpha,
                           const float *A, int lda, const float *B, int ldb, float beta, float *C,
                           int ldc) {
    return cu_gemm_impl(cu, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

static void op_gemm(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                    const float *A, int lda, const float *B, int ldb, float beta, float *C,
                    int ldc) {
    GEN_CUDA_RUN(be, "gemm",
                 cu_gemm_prec(cu, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                              be->precision));
}

/* linear_forward / linear_backward with the input FP32 (inp) or 16-bit (inph) */
static genesis_status cu_linear_forward_impl(gen_cuda *cu, float *out, int ldo, const float *inp,
                                             const uint16_t *inph, int ldi, const float *W,
                                             const float *bias, int B, int C, int OC, int prec) {
    if (bias) {
        genesis_status st = gen_cu_fill_rows(cu, out, ldo, bias, B, OC);
        if (st != GENESIS_OK) return st;
    }
    return cu_gemm_mixed(cu, 0, 1, B, OC, C, 1.0f, inp, inph, ldi, W, NULL, C,
                         bias ? 1.0f : 0.0f, out, ldo, prec);
}
static void op_linear_forward(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                              const float *W, const float *bias, int B, int C, int OC) {
    GEN_CUDA_RUN(be, "linear_forward",
                 cu_linear_forward_impl(cu, out, ldo, inp, NULL, ldi, W, bias, B, C, OC,
                                        be->precision));
}

static genesis_status cu_linear_backward_impl(gen_cuda *cu, float *dinp, int lddi, float *dW,
                                              float *dbias, const float *dout, int lddo,
                                              const float *inp, const uint16_t *inph, int ldi,
                                              const float *W, int B, int C, int OC, int prec) {
    genesis_status st = GENESIS_OK;
    if (dinp)
        st = cu_gemm_prec(cu, 0, 0, B, C, OC, 1.0f, dout, lddo, W, C, 1.0f, dinp, lddi, prec);
    if (st == GENESIS_OK && dW)
        st = cu_gemm_mixed(cu, 1, 0, OC, C, B, 1.0f, dout, NULL, lddo, inp, inph, ldi, 1.0f, dW,
                           C, prec);
    if (st == GENESIS_OK && dbias) st = gen_cu_colsum_acc(cu, dbias, dout, lddo, B, OC);
    return st;
}
static void op_linear_backward(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                               const float *dout, int lddo, const float *inp, int ldi,
                               const float *W, int B, int C, int OC) {
    GEN_CUDA_RUN(be, "linear_backward",
                 cu_linear_backward_impl(cu, dinp, lddi, dW, dbias, dout, lddo, inp, NULL, ldi, W,
                                         B, C, OC, be->precision));
}

/* ---- 16-bit stored activations (docs/precision.md, "Memory") ------------------------------- */

static void op_to_half(gen_backend *be, uint16_t *dst, int ldd, const float *src, int lds,
                       int rows, int cols) {
    GEN_CUDA_RUN(be, "to_half", cu_to_half(cu, dst, ldd, src, lds, rows, cols, be->precision));
}
static void op_linear_forward_h(gen_backend *be, float *out, int ldo, const uint16_t *inp,
                                int ldi, const float *W, const float *bias, int B, int C, int OC) {
    GEN_CUDA_RUN(be, "linear_forward_h",
                 cu_linear_forward_impl(cu, out, ldo, NULL, inp, ldi, W, bias, B, C, OC,
                                        be->precision));
}
static void op_linear_backward_h(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                                 const float *dout, int lddo, const uint16_t *inp, int ldi,
                                 const float *W, int B, int C, int OC) {
    GEN_CUDA_RUN(be, "linear_backward_h",
                 cu_linear_backward_impl(cu, dinp, lddi, dW, dbias, dout, lddo, NULL, inp, ldi, W,
                                         B, C, OC, be->precision));
}
static void op_relu_forward_h(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                              int rows, int cols) {
    GEN_CUDA_RUN(be, "relu_forward_h",
                 gen_cu_relu_forward_h(cu, out, ldo, inp, ldi, rows, cols, be->precision));
}
static void op_relu_backward_h(gen_backend *be, float *dinp, const float *dout,
                               const uint16_t *out, int ldo, int rows, int cols) {
    GEN_CUDA_RUN(be, "relu_backward_h",
                 gen_cu_relu_backward_h(cu, dinp, dout, out, ldo, rows, cols, be->precision));
}

/* ---- the other families: thin wrappers over their launchers ----------------------------------- */

static void op_relu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "relu_forward", gen_cu_relu_forward(cu, out, inp, n));
}
static void op_relu_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                             size_t n) {
    GEN_CUDA_RUN(be, "relu_backward", gen_cu_relu_backward(cu, dinp, dout, out, n));
}
static void op_leaky_relu_forward(gen_backend *be, float *out, const float *inp, size_t n,
                                  float slope) {
    GEN_CUDA_RUN(be, "leaky_relu_forward", gen_cu_leaky_relu_forward(cu, out, inp, n, slope));
}
static void op_leaky_relu_backward(gen_backend *be, float *dinp, const float *dout,
                                   const float *inp, size_t n, float slope) {
    GEN_CUDA_RUN(be, "leaky_relu_backward",
                 gen_cu_leaky_relu_backward(cu, dinp, dout, inp, n, slope));
}
static void op_dropout_forward(gen_backend *be, float *out, float *mask, const float *inp,
                               size_t n, float p, uint64_t seed, uint64_t stream,
                               uint64_t offset) {
    GEN_CUDA_RUN(be, "dropout_forward",
                 gen_cu_dropout_forward(cu, out, mask, inp, n, p, seed, stream, offset,
                                        be->rng_base));
}
static void op_mul(gen_backend *be, float *out, const float *a, const float *b, size_t n) {
    GEN_CUDA_RUN(be, "mul", gen_cu_mul(cu, out, a, b, n));
}
static void op_mul_acc(gen_backend *be, float *dinp, const float *dout, const float *mask,
                       size_t n) {
    GEN_CUDA_RUN(be, "mul_acc", gen_cu_mul_acc(cu, dinp, dout, mask, n));
}
static void op_leaky_slope_mask(gen_backend *be, float *s, const float *inp, const float *mask,
                                size_t n, float slope) {
    GEN_CUDA_RUN(be, "leaky_slope_mask", gen_cu_leaky_slope_mask(cu, s, inp, mask, n, slope));
}
static void op_mul_rowvec(gen_backend *be, float *out, const float *s, const float *v, int rows,
                          int cols) {
    GEN_CUDA_RUN(be, "mul_rowvec", gen_cu_mul_rowvec(cu, out, s, v, rows, cols));
}
static void op_sum(gen_backend *be, float *out, const float *x, size_t n) {
    GEN_CUDA_RUN(be, "sum", gen_cu_sum(cu, out, x, n));
}
static void op_batchnorm_forward(gen_backend *be, float *out, float *mean, float *rstd,
                                 const float *inp, const float *gamma, const float *beta, int B,
                                 int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_forward",
                 gen_cu_batchnorm_forward(cu, out, mean, rstd, inp, gamma, beta, B, C, eps));
}
static void op_batchnorm_forward_eval(gen_backend *be, float *out, const float *inp,
                                      const float *rmean, const float *rvar, const float *gamma,
                                      const float *beta, int B, int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_forward_eval",
                 gen_cu_batchnorm_forward_eval(cu, out, inp, rmean, rvar, gamma, beta, B, C,
                                               eps));
}
static void op_batchnorm_update_running(gen_backend *be, float *rmean, float *rvar,
                                        const float *mean, const float *rstd, int B, int C,
                                        float momentum, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_update_running",
                 gen_cu_batchnorm_update_running(cu, rmean, rvar, mean, rstd, B, C, momentum,
                                                 eps));
}
static void op_batchnorm_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                  const float *dout, const float *inp, const float *mean,
                                  const float *rstd, const float *gamma, int B, int C) {
    GEN_CUDA_RUN(be, "batchnorm_backward",
                 gen_cu_batchnorm_backward(cu, dinp, dgamma, dbeta, dout, inp, mean, rstd, gamma,
                                           B, C));
}
static void op_activate_forward(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                                int B, const gen_act_span *spans, int nspans, float tau,
                                uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0) {
    GEN_CUDA_RUN(be, "activate_forward",
                 gen_cu_activate_forward(cu, out, ldo, x, ldx, B, spans, nspans, tau, seed,
                                         stream, offset, row0, be->rng_base));
}
static void op_batchnorm_stats(gen_backend *be, float *part, const float *inp, const float *mean,
                               int B, int C, int N) {
    GEN_CUDA_RUN(be, "batchnorm_stats", gen_cu_batchnorm_stats(cu, part, inp, mean, B, C, N));
}
static void op_batchnorm_apply(gen_backend *be, float *out, float *rstd, const float *inp,
                               const float *mean, const float *gamma, const float *beta, int B,
                               int C, float eps) {
    GEN_CUDA_RUN(be, "batchnorm_apply",
                 gen_cu_batchnorm_apply(cu, out, rstd, inp, mean, gamma, beta, B, C, eps));
}
static void op_batchnorm_backward_sums(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                       const float *dout, const float *inp, const float *mean,
                                       const float *rstd, const float *gamma, int B, int C) {
    GEN_CUDA_RUN(be, "batchnorm_backward_sums",
                 gen_cu_batchnorm_backward_sums(cu, sums, dgamma, dbeta, dout, inp, mean, rstd,
                                                gamma, B, C));
}
static void op_batchnorm_backward_apply(gen_backend *be, float *dinp, const float *dout,
                                        const float *inp, const float *mean, const float *rstd,
                                        const float *gamma, const float *sums, int B, int C,
                                        int N) {
    GEN_CUDA_RUN(be, "batchnorm_backward_apply",
                 gen_cu_batchnorm_backward_apply(cu, dinp, dout, inp, mean, rstd, gamma, sums, B,
                                                 C, N));
}
static void op_activate_backward(gen_backend *be, float *dx, int lddx, const float *dout,
                                 int lddo, const float *out, int ldo, int B,
                                 const gen_act_span *spans, int nspans, float tau) {
    GEN_CUDA_RUN(be, "activate_backward",
                 gen_cu_activate_backward(cu, dx, lddx, dout, lddo, out, ldo, B, spans, nspans,
                                          tau));
}
static void op_cross_entropy_rows(gen_backend *be, float *loss, float *dlogits, int ldd,
                                  const float *logits, int ldl, int B, const int32_t *start,
                                  const int32_t *len, const int32_t *target, float scale) {
    GEN_CUDA_RUN(be, "cross_entropy_rows",
                 gen_cu_cross_entropy_rows(cu, loss, dlogits, ldd, logits, ldl, B, start, len,
                                           target, scale));
}
static void op_interpolate_groups(gen_backend *be, float *out, const float *real,
                                  const float *fake, const float *alpha, int B, int w, int pac) {
    GEN_CUDA_RUN(be, "interpolate_groups",
                 gen_cu_interpolate_groups(cu, out, real, fake, alpha, B, w, pac));
}
static void op_gp_penalty(gen_backend *be, float *pen, float *U, const float *G, int n,
                          int width, float lambda) {
    GEN_CUDA_RUN(be, "gp_penalty", gen_cu_gp_penalty(cu, pen, U, G, n, width, lambda));
}
static void op_colsum_acc(gen_backend *be, float *dv, const float *a, int rows, int cols) {
    GEN_CUDA_RUN(be, "colsum_acc", gen_cu_colsum_acc(cu, dv, a, cols, rows, cols));
}
static void op_reparam_forward(gen_backend *be, float *z, float *std, const float *mu,
                               const float *logvar, const float *eps, size_t n) {
    GEN_CUDA_RUN(be, "reparam_forward", gen_cu_reparam_forward(cu, z, std, mu, logvar, eps, n));
}
static void op_reparam_backward(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                                const float *eps, const float *std, size_t n) {
    GEN_CUDA_RUN(be, "reparam_backward",
                 gen_cu_reparam_backward(cu, dmu, dlogvar, dz, eps, std, n));
}
static void op_kl_normal(gen_backend *be, float *loss, float *dmu, float *dlogvar,
                         const float *mu, const float *logvar, size_t n, float scale) {
    GEN_CUDA_RUN(be, "kl_normal", gen_cu_kl_normal(cu, loss, dmu, dlogvar, mu, logvar, n, scale));
}
static void op_tvae_recon(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                          int ldr, const float *x, const float *sigma, int B, int D,
                          const gen_recon_span *spans, int nspans, float scale) {
    GEN_CUDA_RUN(be, "tvae_recon",
                 gen_cu_tvae_recon(cu, loss, dr, dsigma, r, ldr, x, sigma, B, D, spans, nspans,
                                   scale));
}
static void op_clamp(gen_backend *be, float *x, size_t n, float lo, float hi) {
    GEN_CUDA_RUN(be, "clamp", gen_cu_clamp(cu, x, n, lo, hi));
}
static void op_adam(gen_backend *be, float *param, const float *grad, float *m, float *v,
                    size_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                    int64_t t) {
    GEN_CUDA_RUN(be, "adam",
                 gen_cu_adam(cu, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t));
}
static void op_fill_normal(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                           uint64_t offset) {
    GEN_CUDA_RUN(be, "fill_normal",
                 gen_cu_fill_normal(cu, x, n, seed, stream, offset, be->rng_base));
}
static void op_fill_uniform(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                            uint64_t offset) {
    GEN_CUDA_RUN(be, "fill_uniform",
                 gen_cu_fill_uniform(cu, x, n, seed, stream, offset, be->rng_base));
}
static int op_any_nonfinite(gen_backend *be, const float *x, size_t n) {
    gen_cuda *cu = gen_cuda_of(be);
    if (cu_enter(cu, "any_nonfinite") != GENESIS_OK) return 1;
    int found = 1;
    if (gen_cu_any_nonfinite(cu, x, n, &found) != GENESIS_OK) return 1;
    return found;
}

static void op_adam_dev(gen_backend *be, float *param, const float *grad, float *m, float *v,
                        size_t n, float lr, float beta1, float beta2, float eps,
                        float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp) {
    GEN_CUDA_RUN(be, "adam_dev",
                 gen_cu_adam_dev(cu, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay,
                                 t0, dt, amp));
}
static void op_amp_scale(gen_backend *be, float *x, size_t n, const gen_amp *amp) {
    GEN_CUDA_RUN(be, "amp_scale", gen_cu_amp_scale(cu, x, n, amp));
}
static void op_amp_unscale(gen_backend *be, float *g, size_t n, gen_amp *amp) {
    GEN_CUDA_RUN(be, "amp_unscale", gen_cu_amp_unscale(cu, g, n, amp));
}
static void op_select_block(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                            const gen_step_state *st) {
    GEN_CUDA_RUN(be, "select_block", gen_cu_select_block(cu, dst, src, n, st));
}
static void op_step_advance(gen_backend *be, gen_step_state *st, gen_step_state d) {
    GEN_CUDA_RUN(be, "step_advance", gen_cu_step_advance(cu, st, d));
}
static int op_graph_begin(gen_backend *be) {
    gen_cuda *cu = gen_cuda_of(be);
    if (cu_enter(cu, "graph_begin") != GENESIS_OK) return 0;
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

static void op_mse_loss(gen_backend *be, double *loss, float *da, float *db, const float *a,
                        const float *b, int rows, int cols, int ld, float scale, int root) {
    GEN_CUDA_RUN(be, "mse_loss",
                 gen_cu_mse_loss(cu, loss, da, db, a, b, rows, cols, ld, scale, root));
}
static void op_bce_logits(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                          float y, float scale) {
    GEN_CUDA_RUN(be, "bce_logits", gen_cu_bce_logits(cu, loss, dl, l, n, y, scale));
}
static void op_moments_loss(gen_backend *be, double *loss, float *dxh, const float *xh,
                            const float *x, int B, int T, int F, float scale) {
    GEN_CUDA_RUN(be, "moments_loss", gen_cu_moments_loss(cu, loss, dxh, xh, x, B, T, F, scale));
}
static void op_adam_tf1_gated(gen_backend *be, float *param, const float *grad, float *m,
                              float *v, size_t n, float lr, float beta1, float beta2, float eps,
                              int64_t *t, const double *gate, int ngate, double threshold) {
    GEN_CUDA_RUN(be, "adam_tf1_gated",
                 gen_cu_adam_tf1_gated(cu, param, grad, m, v, n, lr, beta1, beta2, eps, t, gate,
                                       ngate, threshold));
}
static void op_take_rows(gen_backend *be, float *out, const float *src, const int32_t *idx,
                         int B, int w) {
    GEN_CUDA_RUN(be, "take_rows", gen_cu_take_rows(cu, out, src, idx, B, w));
}

static void op_gather_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                           const int32_t *rows, int B) {
    GEN_CUDA_RUN(be, "gather_rows", gen_cu_gather_rows(cu, out, ldo, t, rows, B));
}
static void op_onehot_rows(gen_backend *be, float *out, int ldo, int w, const int32_t *pos,
                           int B) {
    GEN_CUDA_RUN(be, "onehot_rows", gen_cu_onehot_rows(cu, out, ldo, w, pos, B));
}
static void op_accumulate(gen_backend *be, float *acc, const float *x, int n) {
    GEN_CUDA_RUN(be, "accumulate", gen_cu_accumulate(cu, acc, x, n));
}

static genesis_status op_status(gen_backend *be) { return gen_cuda_of(be)->status; }

static void op_silu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "silu_forward", gen_cu_silu_forward(cu, out, inp, n));
}
static void op_silu_backward(gen_backend *be, float *dinp, const float *dout, const float *inp,
                             size_t n) {
    GEN_CUDA_RUN(be, "silu_backward", gen_cu_silu_backward(cu, dinp, dout, inp, n));
}
static void op_timestep_embed(gen_backend *be, float *out, const int32_t *t, int B, int dim) {
    GEN_CUDA_RUN(be, "timestep_embed", gen_cu_timestep_embed(cu, out, t, B, dim));
}
static void op_ddpm_loss(gen_backend *be, float *loss, float *dout, const float *out,
                         const float *x0, const float *xt, const float *noise, const float *coef,
                         int B, int D, const gen_act_span *spans, int nspans, float gscale,
                         float mscale) {
    GEN_CUDA_RUN(be, "ddpm_loss",
                 gen_cu_ddpm_loss(cu, loss, dout, out, x0, xt, noise, coef, B, D, spans, nspans,
                                  gscale, mscale));
}
static void op_scale(gen_backend *be, float *x, size_t n, float s) {
    GEN_CUDA_RUN(be, "scale", gen_cu_scale(cu, x, n, s));
}
static void op_label_embed(gen_backend *be, float *out, const float *emb, const int32_t *y, int B,
                           int dim) {
    GEN_CUDA_RUN(be, "label_embed", gen_cu_label_embed(cu, out, emb, y, B, dim));
}
static void op_label_embed_backward(gen_backend *be, float *demb, const float *dout,
                                    const int32_t *y, int B, int K, int dim) {
    GEN_CUDA_RUN(be, "label_embed_backward", gen_cu_label_embed_backward(cu, demb, dout, y, B, K, dim));
}
static void op_ema_update(gen_backend *be, float *ema, const float *x, size_t n, float decay) {
    GEN_CUDA_RUN(be, "ema_update", gen_cu_ema_update(cu, ema, x, n, decay));
}
static void op_ddpm_sample_init(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                                const gen_act_span *spans, int nspans, uint64_t seed,
                                uint64_t stream, uint64_t offset, uint64_t e0) {
    GEN_CUDA_RUN(be, "ddpm_sample_init",
                 gen_cu_ddpm_sample_init(cu, x, t, tnext, B, D, spans, nspans, seed, stream,
                                         offset, e0, be->rng_base));
}
static void op_ddpm_reverse_step(gen_backend *be, float *xout, int32_t *t, int tnext,
                                 const float *xt, const float *eps, int B, int D,
                                 const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                 uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0) {
    GEN_CUDA_RUN(be, "ddpm_reverse_step",
                 gen_cu_ddpm_reverse_step(cu, xout, t, tnext, xt, eps, B, D, spans, nspans, st,
                                          seed, stream, offset, e0, be->rng_base));
}
static void op_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "sigmoid_forward", gen_cu_sigmoid_forward(cu, out, inp, n));
}
static void op_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                                size_t n) {
    GEN_CUDA_RUN(be, "sigmoid_backward", gen_cu_sigmoid_backward(cu, dinp, dout, out, n));
}
/* The GRU: cuDNN where the module has it (gru_cudnn.cu), else the kernels of gru.cu; the
 * same cell and weight layout either way (backend.h). */
static genesis_status cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                     const float *h0, const float *W, const float *b, int B, int T,
                                     int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru)
        return gen_cudnn_gru_op_forward(cu, cu->dnn_gru, y, save, x, h0, W, b, B, T, C, H);
#endif
    return gen_cu_gru_forward(cu, y, save, x, h0, W, b, B, T, C, H);
}
static genesis_status cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                      float *work, const float *dy, const float *x,
                                      const float *h0, const float *y, const float *save,
                                      const float *W, int B, int T, int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru)
        return gen_cudnn_gru_op_backward(cu, cu->dnn_gru, dx, dh0, dW, db, dy, x, h0, y, save, B,
                                         T, C, H);
#endif
    return gen_cu_gru_backward(cu, dx, dh0, dW, db, work, dy, x, h0, y, save, W, B, T, C, H);
}
static void op_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                           const float *W, const float *b, int B, int T, int C, int H) {
    GEN_CUDA_RUN(be, "gru_forward", cu_gru_forward(cu, y, save, x, h0, W, b, B, T, C, H));
}
static void op_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                            float *work, const float *dy, const float *x, const float *h0,
                            const float *y, const float *save, const float *W, int B, int T,
                            int C, int H) {
    GEN_CUDA_RUN(be, "gru_backward",
                 cu_gru_backward(cu, dx, dh0, dW, db, work, dy, x, h0, y, save, W, B, T, C, H));
}

/* ---- create / destroy -------------------------------------------------------------------------- */

static void cu_release(gen_cuda *cu) {
    if (!cu) return;
    if (cu->capturing) { /* a step left half recorded (an error path): drop it */
        cudaGraph_t g = NULL;
        cudaStreamEndCapture(cu->stream, &g);
        if (g) cudaGraphDestroy(g);
        cudaGetLastError();
        cu->capturing = 0;
    }
    if (cu->stream) { /* the grown buffers in stream order (gen_cuda_regrow) */
        gen_cuda_dev_free(cu, cu->scratch);
        gen_cuda_dev_free(cu, cu->half);
        gen_cuda_dev_free(cu, cu->spans.dev);
        gen_cuda_dev_free(cu, cu->recon.dev);
        gen_cuda_sync(cu); /* polls NCCL's errors while a communicator watches */
    }
    gen_nccl_forget_backend(cu);
    for (int i = 0; i < GEN_CUDA_STAGES; i++) {
        if (cu->stage[i].host) cudaFreeHost(cu->stage[i].host);
        if (cu->stage[i].done) cudaEventDestroy(cu->stage[i].done);
    }
    while (cu->retired) {
        gen_cuda_retired *r = cu->retired;
        cu->retired = r->next;
        cudaFreeHost(r->host);
        free(r);
    }
#ifdef GEN_HAVE_CUDNN
    gen_cudnn_gru_ops_free(cu->dnn_gru);
#endif
    if (cu->blas) cublasDestroy(cu->blas);
    cudaFree(cu->blas_ws);
    cudaFree(cu->flag_dev);
    if (cu->flag_host) cudaFreeHost(cu->flag_host);
    if (cu->readback) cudaFreeHost(cu->readback);
    if (cu->stream) cudaStreamDestroy(cu->stream);
    free(cu->spans.host);
    free(cu->recon.host);
    free(cu);
}

static void op_destroy(gen_backend *be) {
    if (!be) return;
    gen_cuda *cu = gen_cuda_of(be);
    if (cu) cudaSetDevice(cu->device);
    cu_release(cu);
    free(be);
}

/* The sampling worker thread: the CUDA runtime's current device is per host thread. */
static void op_thread_attach(gen_backend *be) {
    gen_cuda *cu = gen_cuda_of(be);
    if (cu) cudaSetDevice(cu->device);
}

static void *op_host_alloc(gen_backend *be, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    void *p = NULL;
    if (cu) cudaSetDevice(cu->device);
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
        cudaGetLastError(); /* page-locked memory can run out: fall back to pageable memory */
        p = malloc(bytes ? bytes : 1);
    }
    return p;
}

static void op_host_free(gen_backend *be, void *p) {
    (void)be;
    if (!p) return;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost) {
        cudaFreeHost(p);
    } else {
        cudaGetLastError();
        free(p);
    }
}

/* The table, filled by name (C++17 has no designated initialisers): a field added to
 * gen_backend_ops stays NULL here until it is written, never silently shifted. */
static void cu_fill_ops(gen_backend_ops *o) {
    memset(o, 0, sizeof *o);
    o->name = "cuda";
    o->alloc = op_alloc;
    o->free = op_free;
    o->upload = op_upload;
    o->download = op_download;
    o->zero = op_zero;
    o->copy2d = op_copy2d;
    o->gemm = op_gemm;
    o->linear_forward = op_linear_forward;
    o->linear_backward = op_linear_backward;
    o->gather_rows = op_gather_rows;
    o->onehot_rows = op_onehot_rows;
    o->accumulate = op_accumulate;
    o->to_half = op_to_half;
    o->linear_forward_h = op_linear_forward_h;
    o->linear_backward_h = op_linear_backward_h;
    o->relu_forward_h = op_relu_forward_h;
    o->relu_backward_h = op_relu_backward_h;
    o->relu_forward = op_relu_forward;
    o->relu_backward = op_relu_backward;
    o->leaky_relu_forward = op_leaky_relu_forward;
    o->leaky_relu_backward = op_leaky_relu_backward;
    o->dropout_forward = op_dropout_forward;
    o->mul = op_mul;
    o->mul_acc = op_mul_acc;
    o->leaky_slope_mask = op_leaky_slope_mask;
    o->mul_rowvec = op_mul_rowvec;
    o->sum = op_sum;
    o->batchnorm_forward = op_batchnorm_forward;
    o->batchnorm_forward_eval = op_batchnorm_forward_eval;
    o->batchnorm_update_running = op_batchnorm_update_running;
    o->batchnorm_backward = op_batchnorm_backward;
    o->batchnorm_stats = op_batchnorm_stats;
    o->batchnorm_apply = op_batchnorm_apply;
    o->batchnorm_backward_sums = op_batchnorm_backward_sums;
    o->batchnorm_backward_apply = op_batchnorm_backward_apply;
    o->activate_forward = op_activate_forward;
    o->activate_backward = op_activate_backward;
    o->cross_entropy_rows = op_cross_entropy_rows;
    o->interpolate_groups = op_interpolate_groups;
    o->gp_penalty = op_gp_penalty;
    o->colsum_acc = op_colsum_acc;
    o->reparam_forward = op_reparam_forward;
    o->reparam_backward = op_reparam_backward;
    o->kl_normal = op_kl_normal;
    o->tvae_recon = op_tvae_recon;
    o->clamp = op_clamp;
    o->silu_forward = op_silu_forward;
    o->silu_backward = op_silu_backward;
    o->timestep_embed = op_timestep_embed;
    o->ddpm_loss = op_ddpm_loss;
    o->scale = op_scale;
    o->label_embed = op_label_embed;
    o->label_embed_backward = op_label_embed_backward;
    o->ema_update = op_ema_update;
    o->ddpm_sample_init = op_ddpm_sample_init;
    o->ddpm_reverse_step = op_ddpm_reverse_step;
    o->sigmoid_forward = op_sigmoid_forward;
    o->sigmoid_backward = op_sigmoid_backward;
    o->gru_forward = op_gru_forward;
    o->gru_backward = op_gru_backward;
    o->adam = op_adam;
    o->fill_normal = op_fill_normal;
    o->fill_uniform = op_fill_uniform;
    o->any_nonfinite = op_any_nonfinite;
    o->status = op_status;
    o->destroy = op_destroy;
    o->thread_attach = op_thread_attach;
    o->host_alloc = op_host_alloc;
    o->host_free = op_host_free;
    o->adam_dev = op_adam_dev;
    o->amp_scale = op_amp_scale;
    o->amp_unscale = op_amp_unscale;
    o->select_block = op_select_block;
    o->step_advance = op_step_advance;
    o->graph_begin = op_graph_begin;
    o->graph_end = op_graph_end;
    o->graph_launch = op_graph_launch;
    o->graph_free = op_graph_free;
    o->mse_loss = op_mse_loss;
    o->bce_logits = op_bce_logits;
    o->moments_loss = op_moments_loss;
    o->adam_tf1_gated = op_adam_tf1_gated;
    o->take_rows = op_take_rows;
}

static int env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

#ifndef GEN_CUDA_ARCHS
#define GEN_CUDA_ARCHS "?"
#endif

static __global__ void k_probe(int *flag) { *flag = 0x600d; }

/* One kernel launched and read back before the backend is handed out: a GPU this build has
 * no machine code or PTX for (an older CUDA, a narrower CMAKE_CUDA_ARCHITECTURES) fails here,
 * with a message that says so, and the run falls back to the CPU, instead of failing at the
 * first kernel of training. */
static genesis_status cu_probe(gen_cuda *cu, const cudaDeviceProp *prop) {
    cu->op = "the start-up check";
    GEN_LAUNCH(k_probe, 1, 1, 0, cu->stream)(cu->flag_dev);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(cu->flag_host, cu->flag_dev, sizeof(int), cudaMemcpyDeviceToHost,
                            cu->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    cu->op = NULL;
    if (e == cudaSuccess && *cu->flag_host == 0x600d) return GENESIS_OK;
    char detail[512];
    snprintf(detail, sizeof detail,
             "the kernels of this build cannot run on %s (compute capability %d.%d): %s; this "
             "build was compiled for CUDA architectures %s; rebuild with "
             "-DCMAKE_CUDA_ARCHITECTURES=%d%d (or a list that includes it)",
             prop->name, prop->major, prop->minor,
             e == cudaSuccess ? "the check kernel wrote nothing" : cudaGetErrorString(e),
             GEN_CUDA_ARCHS, prop->major, prop->minor);
    cudaGetLastError();
    return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "kernel launch", __FILE__, __LINE__, detail);
}

static genesis_status cu_init(gen_cuda *cu) {
    cudaDeviceProp prop;
    GEN_CUDA_TRY(cu, cudaSetDevice(cu->device));
    GEN_CUDA_TRY(cu, cudaGetDeviceProperties(&prop, cu->device));
    snprintf(cu->name, sizeof cu->name, "%.127s", prop.name);
    cu->num_sms = prop.multiProcessorCount;
    GEN_CUDA_TRY(cu, cudaStreamCreateWithFlags(&cu->stream, cudaStreamNonBlocking));
    { /* stream-ordered allocation, unless the device has no memory pools */
        void *probe = NULL;
        cudaError_t e = cudaMallocAsync(&probe, 256, cu->stream);
        if (e == cudaErrorNotSupported) {
            cudaGetLastError();
            cu->sync_alloc = 1;
            gen_log(cu->ctx, GENESIS_LOG_INFO, "GPU %d has no memory pools: cudaMalloc and "
                    "synchronising frees instead of cudaMallocAsync/cudaFreeAsync", cu->device);
        } else {
            GEN_CUDA_TRY(cu, e);
            GEN_CUDA_TRY(cu, cudaFreeAsync(probe, cu->stream));
        }
    }
    GEN_CUBLAS_TRY(cu, cublasCreate(&cu->blas));
    GEN_CUBLAS_TRY(cu, cublasSetStream(cu->blas, cu->stream));
    GEN_CUBLAS_TRY(cu, cublasSetPointerMode(cu->blas, CUBLAS_POINTER_MODE_HOST));
    GEN_CUBLAS_TRY(cu, cublasSetAtomicsMode(cu->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
    /* FP32 unless asked: CUBLAS_DEFAULT_MATH never lowers SGEMM to TF32 */
    GEN_CUBLAS_TRY(cu, cublasSetMathMode(cu->blas, cu->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                            : CUBLAS_DEFAULT_MATH));
    /* an explicit workspace keeps cuBLAS's results reproducible and its memory ours */
    cu->blas_ws_bytes = GEN_CUBLAS_WORKSPACE;
    GEN_CUDA_TRY(cu, cudaMalloc(&cu->blas_ws, cu->blas_ws_bytes));
    GEN_CUBLAS_TRY(cu, cublasSetWorkspace(cu->blas, cu->blas_ws, cu->blas_ws_bytes));
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&cu->flag_dev, sizeof(int)));
    GEN_CUDA_TRY(cu, cudaMallocHost((void **)&cu->flag_host, sizeof(int)));
    GEN_CUDA_TRY(cu, cudaMallocHost(&cu->readback, GEN_CUDA_READBACK));
    for (int i = 0; i < GEN_CUDA_STAGES; i++)
        GEN_CUDA_TRY(cu, cudaEventCreateWithFlags(&cu->stage[i].done, cudaEventDisableTiming));
#ifdef GEN_HAVE_CUDNN
    /* GENESIS_CUDNN_GRU=0 keeps the GRU on gru.cu's kernels (their parity cases use it) */
    const char *dnn = getenv("GENESIS_CUDNN_GRU");
    if (!(dnn && strcmp(dnn, "0") == 0)) {
        genesis_status st = gen_cudnn_gru_ops_create(cu, &cu->dnn_gru);
        if (st != GENESIS_OK) return st;
    }
#endif
    void *p = NULL;
    GEN_CUDA_PASS(gen_cuda_scratch(cu, (size_t)GEN_CUDA_REDUCE_BLOCKS * sizeof(double), &p));
    return cu_probe(cu, &prop);
}

extern "C" genesis_status gen_backend_cuda_create(genesis_ctx *ctx, int device,
                                                  gen_backend **out) {
    *out = NULL;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return gen_set_error(ctx, GENESIS_ERR_CUDA, "no usable GPU: %s (CUDA error %d)",
                             cudaGetErrorString(e), (int)e);
    }
    GEN_RETURN_IF(device < 0 || device >= n, ctx, GENESIS_ERR_INVALID_ARG,
                  "GPU %d asked for, but %d GPU(s) found", device, n);
    gen_backend *be = (gen_backend *)calloc(1, sizeof *be);
    gen_cuda *cu = (gen_cuda *)calloc(1, sizeof *cu);
    if (!be || !cu) {
        free(be);
        free(cu);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating the CUDA backend");
    }
    cu->ctx = ctx;
    cu->device = device;
    cu->tf32 = env_flag("GENESIS_CUDA_TF32");
    cu->sync_each = env_flag("GENESIS_CUDA_SYNC");
    const char *graphs = getenv("GENESIS_CUDA_GRAPHS"); /* on unless "0" */
    cu->graphs = !(graphs && strcmp(graphs, "0") == 0) && !cu->sync_each;
    genesis_status st = cu_init(cu);
    if (st != GENESIS_OK) {
        cu_release(cu);
        free(be);
        return st; /* cu_init put the message into the context */
    }
    cu_fill_ops(&cu->ops);
    be->ops = &cu->ops;
    be->ctx = ctx;
    be->threads = 1;
    be->impl = cu;
    gen_log(ctx, GENESIS_LOG_INFO, "CUDA backend on GPU %d (%s, %d SMs)%s%s%s", device,
            cu->name, cu->num_sms, cu->tf32 ? ", TF32 GEMMs" : "",
            cu->sync_each ? ", synchronous" : "", cu->graphs ? "" : ", no CUDA graphs");
    *out = be;
    return GENESIS_OK;
}

/* ---- the module's entry points (src/backend/cuda_module.c loads them with dlsym) ---- */

extern "C" int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                                      size_t why_cap);

extern "C" __attribute__((visibility("default"))) unsigned long genesis_cuda_module_abi(void) {
    return GEN_CUDA_MODULE_ABI;
}

extern "C" __attribute__((visibility("default"))) int genesis_cuda_module_query(
    genesis_device_info *out, int cap, int *count, char *why, size_t why_cap) {
    return gen_cuda_query_devices(out, cap, count, why, why_cap);
}

extern "C" __attribute__((visibility("default"))) genesis_status genesis_cuda_module_create(
    genesis_ctx *ctx, int device, gen_backend **out) {
    return gen_backend_cuda_create(ctx, device, out);
}
