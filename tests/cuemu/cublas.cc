/*
 * cublas.cc (Genesis CUDA emulator) — the cuBLAS calls of cuda/: handles (stream, workspace,
 * math / pointer / atomics modes), library properties, status strings, cublasSgemm and
 * cublasGemmEx (16-bit or TF32 operands, FP32 accumulation: docs/precision.md).
 *
 * cublasSgemm follows the cuBLAS Library documentation: column-major
 * C = alpha op(A) op(B) + beta C with op(A) m x k, op(B) k x n, C m x n; the argument
 * checks return CUBLAS_STATUS_INVALID_VALUE when m, n or k < 0, a transpose flag is not
 * N/T/C, lda < max(1, transa == N ? m : k), ldb < max(1, transb == N ? k : n) or
 * ldc < max(1, m); m == 0 or n == 0 does nothing; with beta == 0, C is not read (it may hold
 * NaN). The product runs when the handle's stream is synchronised, like any stream work,
 * and accumulates in FP32 in order of k (no TF32 in any math mode). Every matrix must lie
 * inside one live device allocation (else cudaErrorIllegalAddress at execution).
 * cublasGemmEx takes the same checks and the same loop; its FP16 / BF16 operands are widened
 * exactly to FP32 and, with CUBLAS_COMPUTE_32F_FAST_TF32, FP32 operands are cut to TF32 as a
 * tensor core reads them (the low 13 fraction bits dropped, toward zero: seen on an H200,
 * where products of unrounded operands were off by about 2^-11 sqrt(K) against round to
 * nearest), so the products are exact in FP32 and only the accumulation rounds. cuda/ rounds
 * its operands to nearest first (k_to_tf32), which the cut then leaves as they are.
 * cuBLASLt's cublasLtMatmul (cublaslt.cc) queues the same product, with C read from one
 * matrix and D written to another, and its epilogue (the bias, then the ReLU) applied to each
 * element after alpha acc + beta c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precision.h" /* src/backend/: the same rounding as the CPU backend */
#include "cublas_v2.h"
#include "cuemu_internal.h"

struct gen_cuemu_blas {
    cudaStream_t stream;
    void *ws;
    size_t ws_bytes;
    cublasMath_t math;
    cublasPointerMode_t pmode;
    cublasAtomicsMode_t atomics;
};

typedef struct gemm_args {
    cublasOperation_t ta, tb;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
    const float *palpha, *pbeta; /* device pointers in CUBLAS_POINTER_MODE_DEVICE */
    const void *A, *B;
    float *C;
    const float *Cin; /* read for beta != 0 (C itself, or cuBLASLt's C beside D) */
    int ldcin;
    const float *bias; /* cuBLASLt's BIAS epilogues: one value per row of C, added after */
    int relu;          /* cuBLASLt's RELU epilogues: max(., 0) last */
    int type;     /* the operands' cudaDataType (cublasSgemm: CUDA_R_32F) */
    int tf32;     /* 1: FP32 operands rounded to TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) */
    const char *name;
} gemm_args;

static size_t elem_size(int type) { return type == CUDA_R_32F ? 4 : 2; }

/* element i of an operand as FP32 (16-bit types widen exactly) */
static inline float elem(const gemm_args *g, const void *p, size_t i) {
    if (g->type == CUDA_R_16F) return gen_fp16_f32(((const uint16_t *)p)[i]);
    if (g->type == CUDA_R_16BF) return gen_bf16_f32(((const uint16_t *)p)[i]);
    float x = ((const float *)p)[i];
    return g->tf32 ? gen_bits_f32(gen_f32_bits(x) & ~0x1FFFu) : x;
}

cublasStatus_t cublasCreate(cublasHandle_t *h) {
    gen_cuemu_blas *b = (gen_cuemu_blas *)calloc(1, sizeof *b);
    if (!b) return CUBLAS_STATUS_ALLOC_FAILED;
    *h = b;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace(cublasHandle_t h, void *ws, size_t bytes) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    gen_cuemu_lock();
    int ok = bytes == 0 || gen_cuemu_device_range(ws, bytes);
    gen_cuemu_unlock();
    if (!ok) return CUBLAS_STATUS_INVALID_VALUE;
    h->ws = ws;
    h->ws_bytes = bytes;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t mode) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->pmode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetAtomicsMode(cublasHandle_t h, cublasAtomicsMode_t mode) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->atomics = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
    switch (type) {
    case MAJOR_VERSION: *value = 13; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = 0; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = 0; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

const char *cublasGetStatusString(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    }
    return "unknown error";
}

/* Extent in elements of a column-major rows x cols matrix with leading dimension ld. */
static size_t extent(int rows, int cols, int ld) {
    return (size_t)(cols - 1) * (size_t)ld + (size_t)rows;
}

/* The product itself. Every matrix was range-checked against its allocation first, so
 * AddressSanitizer's instrumentation is left out of these loops (it would dominate). */
#if defined(__GNUC__)
__attribute__((no_sanitize("address")))
#endif /* __GNUC__ */
static void gemm_compute(const gemm_args *g, float alpha, float beta, int need_ab, float *pa,
                         float *pb, float *acc) {
    int m = g->m, n = g->n, k = g->k;
    if (need_ab) {
        for (int l = 0; l < k; l++)
            for (int i = 0; i < m; i++)
                pa[(size_t)l * m + i] = g->ta == CUBLAS_OP_N ? elem(g, g->A, (size_t)l * g->lda + i)
                                                              : elem(g, g->A, (size_t)i * g->lda + l);
        for (int j = 0; j < n; j++)
            for (int l = 0; l < k; l++)
                pb[(size_t)j * k + l] = g->tb == CUBLAS_OP_N ? elem(g, g->B, (size_t)j * g->ldb + l)
                                                              : elem(g, g->B, (size_t)l * g->ldb + j);
    }
    for (int j = 0; j < n; j++) {
        float *c = g->C + (size_t)j * g->ldc;
        for (int i = 0; i < m; i++) acc[i] = 0.0f;
        if (need_ab)
            for (int l = 0; l < k; l++) {
                float b = pb[(size_t)j * k + l];
                const float *a = pa + (size_t)l * m;
                for (int i = 0; i < m; i++) acc[i] += a[i] * b;
            }
        const float *ci = g->Cin + (size_t)j * g->ldcin;
        for (int i = 0; i < m; i++) {
            float v = beta == 0.0f ? alpha * acc[i] : alpha * acc[i] + beta * ci[i];
            if (g->bias) v += g->bias[i];
            if (g->relu) v = v > 0.0f ? v : 0.0f;
            c[i] = v;
        }
    }
}

static int gemm_run(void *arg, char *msg, size_t cap) {
    gemm_args *g = (gemm_args *)arg;
    int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
    int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
    float alpha = g->alpha, beta = g->beta;
    if (g->palpha) { /* device pointer mode: the scalars are read now */
        if (!gen_cuemu_device_range(g->palpha, 4) || !gen_cuemu_device_range(g->pbeta, 4)) {
            snprintf(msg, cap, "%s: alpha/beta are not device memory", g->name);
            return cudaErrorIllegalAddress;
        }
        alpha = *g->palpha;
        beta = *g->pbeta;
    }
    int need_ab = alpha != 0.0f && g->k > 0;
    size_t es = elem_size(g->type);
    if ((need_ab && (!gen_cuemu_device_range(g->A, extent(ar, ac, g->lda) * es) ||
                     !gen_cuemu_device_range(g->B, extent(br, bc, g->ldb) * es))) ||
        !gen_cuemu_device_range(g->C, extent(g->m, g->n, g->ldc) * 4) ||
        (beta != 0.0f && !gen_cuemu_device_range(g->Cin, extent(g->m, g->n, g->ldcin) * 4)) ||
        (g->bias && !gen_cuemu_device_range(g->bias, (size_t)g->m * 4))) {
        snprintf(msg, cap, "%s(m %d, n %d, k %d, lda %d, ldb %d, ldc %d): a matrix "
                 "runs outside its device allocation", g->name, g->m, g->n, g->k, g->lda, g->ldb, g->ldc);
        return cudaErrorIllegalAddress;
    }
    gen_cuemu_count(GEN_CUEMU_STAT_GEMMS);
    int m = g->m, n = g->n, k = g->k;
    /* pack op(A) (m x k) and op(B) (k x n) column-major, then C column by column */
    float *pa = NULL, *pb = NULL, *acc = (float *)malloc((size_t)m * sizeof(float));
    if (need_ab) {
        pa = (float *)malloc((size_t)m * k * sizeof(float));
        pb = (float *)malloc((size_t)k * n * sizeof(float));
    }
    if (!acc || (need_ab && (!pa || !pb))) {
        free(pa);
        free(pb);
        free(acc);
        snprintf(msg, cap, "%s: out of host memory", g->name);
        return cudaErrorMemoryAllocation;
    }
    gemm_compute(g, alpha, beta, need_ab, pa, pb, acc);
    free(pa);
    free(pb);
    free(acc);
    return 0;
}

/* Both entry points: the checks, then the product queued on the handle's stream. */
static cublasStatus_t gemm_queue(cublasHandle_t h, cublasOperation_t transa,
                                 cublasOperation_t transb, int m, int n, int k,
                                 const float *alpha, const void *A, int lda, const void *B,
                                 int ldb, const float *beta, float *C, int ldc, int type, int tf32,
                                 const char *name) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int ok_t = (transa == CUBLAS_OP_N || transa == CUBLAS_OP_T || transa == CUBLAS_OP_C) &&
               (transb == CUBLAS_OP_N || transb == CUBLAS_OP_T || transb == CUBLAS_OP_C);
    int mina = transa == CUBLAS_OP_N ? m : k, minb = transb == CUBLAS_OP_N ? k : n;
    if (!ok_t || m < 0 || n < 0 || k < 0 || lda < (mina > 1 ? mina : 1) ||
        ldb < (minb > 1 ? minb : 1) || ldc < (m > 1 ? m : 1) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    return gen_cuemu_gemm_enqueue(h->stream, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                  beta, C, ldc, C, ldc, NULL, 0, type, tf32,
                                  h->pmode == CUBLAS_POINTER_MODE_DEVICE, name);
}

cublasStatus_t gen_cuemu_gemm_enqueue(cudaStream_t stream, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const float *alpha, const void *A, int lda, const void *B,
                                      int ldb, const float *beta, const float *Cin, int ldcin,
                                      float *C, int ldc, const float *bias, int relu, int type,
                                      int tf32, int device_scalars, const char *name) {
    gemm_args *g = (gemm_args *)calloc(1, sizeof *g);
    if (!g) return CUBLAS_STATUS_ALLOC_FAILED;
    /* real-valued: C (conjugate transpose) is T */
    g->ta = transa == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    g->tb = transb == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    g->m = m;
    g->n = n;
    g->k = k;
    g->lda = lda;
    g->ldb = ldb;
    g->ldc = ldc;
    if (device_scalars) {
        g->palpha = alpha;
        g->pbeta = beta;
    } else { /* host pointer mode: the scalars are read at call time */
        g->alpha = *alpha;
        g->beta = *beta;
    }
    g->A = A;
    g->B = B;
    g->C = C;
    g->Cin = Cin;
    g->ldcin = ldcin;
    g->bias = bias;
    g->relu = relu;
    g->type = type;
    g->tf32 = tf32;
    g->name = name;
    gen_cuemu_lock();
    cudaError_t e = gen_cuemu_sticky();
    if (e == cudaSuccess) e = gen_cuemu_enqueue_fn(stream, name, gemm_run, free, g);
    else free(g);
    gen_cuemu_unlock();
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                           int m, int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc) {
    return gemm_queue(h, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                      CUDA_R_32F, 0, "cublasSgemm");
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                            int m, int n, int k, const void *alpha, const void *A,
                            cudaDataType Atype, int lda, const void *B, cudaDataType Btype,
                            int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    /* the combinations cuBLAS documents for FP32 output that cuda/ uses */
    int types_ok = Atype == Btype && Ctype == CUDA_R_32F &&
                   (Atype == CUDA_R_32F || Atype == CUDA_R_16F || Atype == CUDA_R_16BF);
    int compute_ok = computeType == CUBLAS_COMPUTE_32F ||
                     (computeType == CUBLAS_COMPUTE_32F_FAST_TF32 && Atype == CUDA_R_32F);
    if (!types_ok || !compute_ok) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (algo != CUBLAS_GEMM_DEFAULT) return CUBLAS_STATUS_INVALID_VALUE;
    return gemm_queue(h, transa, transb, m, n, k, (const float *)alpha, A, lda, B, ldb,
                      (const float *)beta, (float *)C, ldc, Atype,
                      computeType == CUBLAS_COMPUTE_32F_FAST_TF32, "cublasGemmEx");
}
