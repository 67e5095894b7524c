/*
 * cublaslt.cc (Genesis CUDA emulator) — the cuBLASLt calls of cuda/ (cublasLt.h): a matmul
 * descriptor (compute and scale type, transposes, epilogue, bias pointer), matrix layouts, and
 * cublasLtMatmul, which queues cublas.cc's product with the epilogue applied to each element:
 * D = relu?(alpha op(A) op(B) + beta C + bias?), the bias one FP32 per row of D (the cuBLAS
 * Library documentation, cuBLASLt API: cublasLtMatmul, cublasLtEpilogue_t).
 *
 * Argument checks, as documented: a NULL handle or descriptor is CUBLAS_STATUS_NOT_INITIALIZED;
 * CUBLAS_STATUS_INVALID_VALUE for an attribute buffer that is NULL or of the wrong size, an
 * unknown transpose or epilogue value, layouts whose shapes do not make op(A) m x k, op(B)
 * k x n and C, D m x n, a leading dimension below the rows, C and D the same memory with
 * different layouts, a BIAS epilogue without a bias pointer, NULL alpha or beta, or a
 * workspace size without a workspace, or an algo that cublasLtMatmulAlgoGetHeuristic did not
 * return for this problem; CUBLAS_STATUS_NOT_SUPPORTED for types other than FP32 throughout
 * (compute CUBLAS_COMPUTE_32F, scale and matrices CUDA_R_32F) and any epilogue other than
 * DEFAULT, RELU, BIAS, RELU_BIAS (not emulated).
 *
 * The heuristic (cublasLtMatmulPreference*, cublasLtMatmulAlgoGetHeuristic): a preference
 * holds the workspace limit (uint64_t) and the reduction-scheme mask (uint32_t, at most
 * CUBLASLT_REDUCTION_SCHEME_MASK; default all schemes) and the least alignment of A, B, C and D
 * the caller promises (uint32_t, a power of two; default 256 bytes); a NULL or wrongly sized
 * buffer, a mask with other bits or an alignment that is no power of two is
 * CUBLAS_STATUS_INVALID_VALUE, another attribute NOT_SUPPORTED. The
 * query checks the problem as cublasLtMatmul does (the same statuses), a NULL preference,
 * result array or count and a requested count below 1 are INVALID_VALUE; it returns one
 * algorithm, whose reduction scheme is NONE (one dot product in sequence: no split-K) and which
 * needs no workspace, so every mask and limit admit it; it keeps the alignments promised, and
 * cublasLtMatmul refuses it (NOT_SUPPORTED) for pointers less aligned, as an algorithm chosen
 * for aligned operands cannot run on others. GENESIS_CUEMU_LT_NO_ALGO=1 makes it
 * return none (SUCCESS, count 0), as a library may for a configuration it has no kernel for:
 * the backend must then fall back to the library's own choice (algo NULL). Scalars are
 * host pointers (the default pointer mode). The product is queued on `stream` and runs as
 * cublasSgemm's does (FP32 accumulation in order of k); the bias is added to alpha acc + beta c
 * in FP32 and the ReLU applied last.
 */
#include <stdlib.h>
#include <string.h>

#include "cublasLt.h"
#include "cuemu_internal.h"

struct gen_cuemu_lt {
    int unused;
};
struct gen_cuemu_lt_desc {
    int32_t ta, tb;
    uint32_t epilogue;
    const void *bias;
};
struct gen_cuemu_lt_layout {
    cudaDataType type;
    uint64_t rows, cols;
    int64_t ld;
};
struct gen_cuemu_lt_pref {
    uint64_t max_ws;
    uint32_t reduction_mask;
    uint32_t align[4]; /* A, B, C, D */
};

/* the emulator's algorithm: a tag and the problem it was chosen for (m, n, k of D = op(A) op(B)) */
#define LT_ALGO_TAG 0x47454e4c54414c47ull

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
    if (!h) return CUBLAS_STATUS_INVALID_VALUE;
    *h = (cublasLtHandle_t)calloc(1, sizeof **h);
    return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType) {
    if (!d) return CUBLAS_STATUS_INVALID_VALUE;
    if (computeType != CUBLAS_COMPUTE_32F || scaleType != CUDA_R_32F)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    cublasLtMatmulDesc_t p = (cublasLtMatmulDesc_t)calloc(1, sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    p->ta = CUBLAS_OP_N;
    p->tb = CUBLAS_OP_N;
    p->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    *d = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
    if (!d) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

static int op_ok(int32_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t sizeInBytes) {
    if (!d) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!buf) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSA:
    case CUBLASLT_MATMUL_DESC_TRANSB: {
        int32_t v;
        if (sizeInBytes != sizeof v) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&v, buf, sizeof v);
        if (!op_ok(v)) return CUBLAS_STATUS_INVALID_VALUE;
        (attr == CUBLASLT_MATMUL_DESC_TRANSA ? d->ta : d->tb) = v;
        return CUBLAS_STATUS_SUCCESS;
    }
    case CUBLASLT_MATMUL_DESC_EPILOGUE: {
        uint32_t v;
        if (sizeInBytes != sizeof v) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&v, buf, sizeof v);
        d->epilogue = v; /* checked by cublasLtMatmul */
        return CUBLAS_STATUS_SUCCESS;
    }
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
        if (sizeInBytes != sizeof(const void *)) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&d->bias, buf, sizeof(const void *));
        return CUBLAS_STATUS_SUCCESS;
    default:
        return CUBLAS_STATUS_NOT_SUPPORTED; /* not emulated */
    }
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
    if (!l) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t p = (cublasLtMatrixLayout_t)calloc(1, sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    p->type = type;
    p->rows = rows;
    p->cols = cols;
    p->ld = ld;
    *l = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
    if (!l) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(l);
    return CUBLAS_STATUS_SUCCESS;
}

/* rows x cols op'd by op: the shape it has in the product */
static void op_shape(const gen_cuemu_lt_layout *l, int32_t op, uint64_t *r, uint64_t *c) {
    *r = op == CUBLAS_OP_N ? l->rows : l->cols;
    *c = op == CUBLAS_OP_N ? l->cols : l->rows;
}

static int ld_ok(const gen_cuemu_lt_layout *l) {
    return l->ld >= (int64_t)(l->rows > 1 ? l->rows : 1) && l->ld <= INT32_MAX &&
           l->rows <= INT32_MAX && l->cols <= INT32_MAX;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
    if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = (cublasLtMatmulPreference_t)calloc(1, sizeof *p);
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    p->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    for (int i = 0; i < 4; i++) p->align[i] = 256;
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
    free(pref); /* NULL: nothing (as cuBLASLt) */
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t sizeInBytes) {
    if (!pref) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!buf) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
        if (sizeInBytes != sizeof(uint64_t)) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&pref->max_ws, buf, sizeof(uint64_t));
        return CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: {
        uint32_t v;
        if (sizeInBytes != sizeof v) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&v, buf, sizeof v);
        if (v & ~(uint32_t)CUBLASLT_REDUCTION_SCHEME_MASK) return CUBLAS_STATUS_INVALID_VALUE;
        pref->reduction_mask = v;
        return CUBLAS_STATUS_SUCCESS;
    }
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES: {
        uint32_t v;
        if (sizeInBytes != sizeof v) return CUBLAS_STATUS_INVALID_VALUE;
        memcpy(&v, buf, sizeof v);
        if (v == 0 || (v & (v - 1)) != 0) return CUBLAS_STATUS_INVALID_VALUE;
        pref->align[attr - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = v;
        return CUBLAS_STATUS_SUCCESS;
    }
    default:
        return CUBLAS_STATUS_NOT_SUPPORTED; /* not emulated */
    }
}

/* The checks cublasLtMatmul and the heuristic share: the descriptors, types, epilogue,
 * shapes and leading dimensions; *m, *n, *k the problem's sizes. */
static cublasStatus_t lt_check(cublasLtHandle_t h, cublasLtMatmulDesc_t computeDesc,
                               cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                               cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                               uint64_t *m, uint64_t *n, uint64_t *k) {
    if (!h || !computeDesc || !Adesc || !Bdesc || !Cdesc || !Ddesc)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (Adesc->type != CUDA_R_32F || Bdesc->type != CUDA_R_32F || Cdesc->type != CUDA_R_32F ||
        Ddesc->type != CUDA_R_32F)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    uint32_t epi = computeDesc->epilogue;
    if (epi != CUBLASLT_EPILOGUE_DEFAULT && epi != CUBLASLT_EPILOGUE_RELU &&
        epi != CUBLASLT_EPILOGUE_BIAS && epi != CUBLASLT_EPILOGUE_RELU_BIAS)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    uint64_t am, ak, bk, bn;
    op_shape(Adesc, computeDesc->ta, &am, &ak);
    op_shape(Bdesc, computeDesc->tb, &bk, &bn);
    if (ak != bk || Cdesc->rows != am || Cdesc->cols != bn || Ddesc->rows != am ||
        Ddesc->cols != bn || !ld_ok(Adesc) || !ld_ok(Bdesc) || !ld_ok(Cdesc) || !ld_ok(Ddesc))
        return CUBLAS_STATUS_INVALID_VALUE;
    *m = am;
    *n = bn;
    *k = ak;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t Adesc,
                                              cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc,
                                              cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t pref,
                                              int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int *returnAlgoCount) {
    uint64_t m = 0, n = 0, k = 0;
    cublasStatus_t st = lt_check(h, desc, Adesc, Bdesc, Cdesc, Ddesc, &m, &n, &k);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    if (!pref || !results || !returnAlgoCount || requestedAlgoCount < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    const char *none = getenv("GENESIS_CUEMU_LT_NO_ALGO");
    if (none && *none && strcmp(none, "0") != 0) return CUBLAS_STATUS_SUCCESS;
    /* the one algorithm has reduction scheme NONE, which every mask admits (NONE is 0), and
     * needs no workspace, which every limit admits */
    memset(&results[0], 0, sizeof results[0]);
    results[0].algo.data[0] = LT_ALGO_TAG;
    results[0].algo.data[1] = m;
    results[0].algo.data[2] = n;
    results[0].algo.data[3] = k;
    results[0].algo.data[4] = CUBLASLT_REDUCTION_SCHEME_NONE;
    for (int i = 0; i < 4; i++) /* the alignments promised, 16 bits each (at most 2^15) */
        results[0].algo.data[5] |= (uint64_t)(pref->align[i] < 32768 ? pref->align[i] : 32768)
                                   << (16 * i);
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream) {
    uint64_t am = 0, bn = 0, ak = 0;
    cublasStatus_t st = lt_check(h, computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &am, &bn, &ak);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    /* an algorithm must be the heuristic's, for this problem */
    if (algo && (algo->data[0] != LT_ALGO_TAG || algo->data[1] != am || algo->data[2] != bn ||
                 algo->data[3] != ak))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (algo) { /* the operands as aligned as the heuristic was told */
        const void *ptr[4] = {A, B, C ? C : D, D};
        for (int i = 0; i < 4; i++)
            if ((uintptr_t)ptr[i] % ((algo->data[5] >> (16 * i)) & 0xffff) != 0)
                return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    uint32_t epi = computeDesc->epilogue;
    int has_bias = epi == CUBLASLT_EPILOGUE_BIAS || epi == CUBLASLT_EPILOGUE_RELU_BIAS;
    int relu = epi == CUBLASLT_EPILOGUE_RELU || epi == CUBLASLT_EPILOGUE_RELU_BIAS;
    if (!alpha || !beta || (has_bias && !computeDesc->bias) || !D ||
        (workspaceSizeInBytes > 0 && !workspace))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (C == D && (Cdesc->ld != Ddesc->ld)) return CUBLAS_STATUS_INVALID_VALUE;
    if (workspaceSizeInBytes > 0) {
        gen_cuemu_lock();
        int ok = gen_cuemu_device_range(workspace, workspaceSizeInBytes);
        gen_cuemu_unlock();
        if (!ok) return CUBLAS_STATUS_INVALID_VALUE;
    }
    float b0 = *(const float *)beta;
    if (b0 != 0.0f && !C) return CUBLAS_STATUS_INVALID_VALUE;
    if (am == 0 || bn == 0) return CUBLAS_STATUS_SUCCESS;
    cublasOperation_t ta = computeDesc->ta == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t tb = computeDesc->tb == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    return gen_cuemu_gemm_enqueue(stream, ta, tb, (int)am, (int)bn, (int)ak, (const float *)alpha,
                                  A, (int)Adesc->ld, B, (int)Bdesc->ld, (const float *)beta,
                                  (const float *)(C ? C : D), (int)Cdesc->ld, (float *)D,
                                  (int)Ddesc->ld, has_bias ? (const float *)computeDesc->bias : NULL,
                                  relu, CUDA_R_32F, 0, 0, "cublasLtMatmul");
}
