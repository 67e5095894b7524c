/*
 * cublasLt.h (Genesis CUDA emulator) — the cuBLASLt calls cuda/ makes (docs/cuda.md, "Kernels
 * per step"): handle, matmul descriptor and its attributes, matrix layouts, and cublasLtMatmul
 * with the epilogues DEFAULT, RELU, BIAS and RELU_BIAS. Not NVIDIA's header: written from the
 * cuBLAS Library documentation (cuBLASLt API); enum values are the documented ones.
 */
#ifndef GEN_CUEMU_CUBLASLT_H
#define GEN_CUEMU_CUBLASLT_H

#include <stdint.h>

#include "cublas_v2.h"

typedef struct gen_cuemu_lt *cublasLtHandle_t;
typedef struct gen_cuemu_lt_desc *cublasLtMatmulDesc_t;
typedef struct gen_cuemu_lt_layout *cublasLtMatrixLayout_t;
typedef struct gen_cuemu_lt_pref *cublasLtMatmulPreference_t;
typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;

/* the heuristic's preferences (cublasLtMatmulPreferenceAttributes_t): the emulator knows the
 * workspace limit and the reduction-scheme mask */
typedef enum {
    CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8
} cublasLtMatmulPreferenceAttributes_t;

/* split-K reduction schemes (cublasLtReductionScheme_t) */
typedef enum {
    CUBLASLT_REDUCTION_SCHEME_NONE = 0,
    CUBLASLT_REDUCTION_SCHEME_INPLACE = 1,
    CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2,
    CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4,
    CUBLASLT_REDUCTION_SCHEME_MASK = 0x7
} cublasLtReductionScheme_t;

typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_TRANSC = 5,
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8
} cublasLtMatmulDescAttributes_t;

typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_RELU = 2,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_RELU_BIAS = 6
} cublasLtEpilogue_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h);
/* computeType CUBLAS_COMPUTE_32F with scaleType CUDA_R_32F (the only pair emulated) */
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d);
/* TRANSA / TRANSB: int32_t (cublasOperation_t); EPILOGUE: uint32_t (cublasLtEpilogue_t);
 * BIAS_POINTER: a device pointer (const void *); sizeInBytes must be the attribute's size */
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l);
/* MAX_WORKSPACE_BYTES: uint64_t; REDUCTION_SCHEME_MASK: uint32_t (at most
 * CUBLASLT_REDUCTION_SCHEME_MASK); MIN_ALIGNMENT_A/B/C/D_BYTES: uint32_t, a power of two
 * (default 256: the algorithm may then need pointers aligned to 256 bytes) */
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t sizeInBytes);
/* at most one algorithm: the emulator's one (no split-K: reduction scheme NONE, no workspace),
 * for a problem cublasLtMatmul would accept */
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t Adesc,
                                              cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc,
                                              cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t pref,
                                              int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int *returnAlgoCount);
/* D = epilogue(alpha op(A) op(B) + beta C), column-major; the bias (one FP32 per row of D) is
 * added before the ReLU. algo NULL: the library chooses (the only form emulated). */
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream);

#endif /* GEN_CUEMU_CUBLASLT_H */
