/*
 * dense.cu — the CUDA backend's `dense` family (backend.h): the GEMMs (cuBLAS, FP32; TF32 only
 * when GENESIS_CUDA_TF32=1; cublasGemmEx with 16-bit or TF32-rounded operands in mixed
 * precision, FP32 accumulation, docs/precision.md), linear forward/backward (bias broadcast and
 * column sums from elementwise.cu / gan.cu; in FP32 the forward's bias and ReLU go into a
 * cuBLASLt product's epilogue instead, docs/cuda.md "Kernels per step") and the 16-bit stored
 * inputs of linear_*_h. Row-major
 * products are handed to column-major cuBLAS as their transposes. CPU: src/backend/cpu/dense.c;
 * parity: tests/parity/dense.c.
 */
#include <string.h>

#include "cuda_common.cuh"


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

static genesis_status cu_lt_matmul(gen_cuda *cu, int ta, int tb, int m, int n, int k,
                                   float alpha, const float *A, int lda, const float *B, int ldb,
                                   float beta, float *D, int ldd, const float *bias, int relu,
                                   int *done);

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
    /* FP32: cuBLASLt with an algorithm without split-K (cu_lt_matmul), else cublasSgemm */
    int done = 0;
    GEN_CUDA_PASS(cu_lt_matmul(cu, tb, ta, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc, NULL, 0,
                               &done));
    if (done) return GENESIS_OK;
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

/* The algorithm of a cuBLASLt product (its descriptor and layouts made; key: its epilogue,
 * bias?, transposes, m, n, k, leading dimensions and the operands' alignments): the heuristic's
 * first choice among the
 * algorithms without a split-K reduction (CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK =
 * CUBLASLT_REDUCTION_SCHEME_NONE) within the cuBLAS workspace, cached per shape. On the H200
 * the step's small products spent a large share of the device time in split-K reduction
 * kernels (docs/cuda.md, "Kernels per step"); one dot product per output is one kernel a
 * product. *algo NULL when the heuristic offers none or fails: the library then chooses at the
 * call, split-K allowed (as before). */
static void cu_lt_algo(gen_cuda *cu, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la,
                       cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc,
                       const int32_t key[GEN_CUDA_LT_KEY], const cublasLtMatmulAlgo_t **algo) {
    *algo = NULL;
    for (int i = 0; i < GEN_CUDA_LT_ALGOS; i++) {
        gen_cuda_lt_algo *a = &cu->lt_algo[i];
        if (a->used && memcmp(a->key, key, sizeof a->key) == 0) {
            if (a->found) *algo = &a->algo;
            return;
        }
    }
    gen_cuda_lt_algo *a = &cu->lt_algo[cu->lt_algo_next];
    cu->lt_algo_next = (cu->lt_algo_next + 1) % GEN_CUDA_LT_ALGOS;
    memset(a, 0, sizeof *a);
    memcpy(a->key, key, sizeof a->key);
    a->used = 1;
    cublasLtMatmulPreference_t pref = NULL;
    uint64_t ws = cu->blas_ws_bytes;
    uint32_t mask = CUBLASLT_REDUCTION_SCHEME_NONE;
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    cublasStatus_t e = cublasLtMatmulPreferenceCreate(&pref);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &ws, sizeof ws);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                 &mask, sizeof mask);
    /* the operands' alignments (key[10..13]: A, B, C, D), not the default 256 bytes: the
     * products read column blocks of wider arrays */
    for (int i = 0; i < 4 && e == CUBLAS_STATUS_SUCCESS; i++) {
        uint32_t al = (uint32_t)key[10 + i];
        e = cublasLtMatmulPreferenceSetAttribute(
            pref, (cublasLtMatmulPreferenceAttributes_t)(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i),
            &al, sizeof al);
    }
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulAlgoGetHeuristic(cu->lt, d, la, lb, lc, lc, pref, 1, &res, &found);
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (e == CUBLAS_STATUS_SUCCESS && found > 0 && res.state == CUBLAS_STATUS_SUCCESS &&
        res.workspaceSize <= cu->blas_ws_bytes) {
        a->algo = res.algo;
        a->found = 1;
        *algo = &a->algo;
    }
}

/* The largest power of two, at most 256, that divides a pointer's address (cuBLASLt's
 * alignment preference) */
static int32_t cu_align(const void *p) {
    uintptr_t a = (uintptr_t)p;
    int32_t al = 256;
    while (al > 1 && a % (uintptr_t)al != 0) al >>= 1;
    return al;
}

/* Column-major D (m x n, ld ldd) = epilogue(alpha op(A) op(B) + beta D) as one cublasLtMatmul in
 * FP32, A m x k after op (ld lda), B k x n (ld ldb), the bias (m values, or NULL) one per row
 * of D, relu: the ReLU last (epilogues DEFAULT, BIAS, RELU, RELU_BIAS). *done = 0 (nothing
 * queued) when there is no cuBLASLt handle or the library refuses the call (the handle is then
 * dropped for good, with a warning in the log: the caller runs cuBLAS (and a kernel); on the
 * emulator test_cuda_graphs' kernel budgets fail if that happens, and test_cuemu checks the
 * refusals themselves). */
static genesis_status cu_lt_matmul(gen_cuda *cu, int ta, int tb, int m, int n, int k,
                                   float alpha, const float *A, int lda, const float *B, int ldb,
                                   float beta, float *D, int ldd, const float *bias, int relu,
                                   int *done) {
    *done = 0;
    if (!cu->lt || cu->tf32 || m <= 0 || n <= 0 || k <= 0) return GENESIS_OK;
    cublasLtMatmulDesc_t d = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    int32_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    uint32_t epi = bias ? (relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
                        : (relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
    cublasStatus_t e = cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
    if (e == CUBLAS_STATUS_SUCCESS && bias)
        e = cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                           sizeof bias);
    /* the stored shapes: A is m x k (k x m when ta), B is k x n (n x k when tb) */
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, (uint64_t)(ta ? k : m),
                                       (uint64_t)(ta ? m : k), lda);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, (uint64_t)(tb ? n : k),
                                       (uint64_t)(tb ? k : n), ldb);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, (uint64_t)m, (uint64_t)n, ldd);
    if (e == CUBLAS_STATUS_SUCCESS) {
        const int32_t key[GEN_CUDA_LT_KEY] = {(int32_t)epi, bias != NULL, ta, tb, m, n, k,
                                              lda, ldb, ldd, cu_align(A), cu_align(B),
                                              cu_align(D), cu_align(D)};
        const cublasLtMatmulAlgo_t *algo = NULL;
        cu_lt_algo(cu, d, la, lb, lc, key, &algo);
        e = cublasLtMatmul(cu->lt, d, &alpha, A, la, B, lb, &beta, D, lc, D, lc, algo,
                           cu->blas_ws, cu->blas_ws_bytes, cu->stream);
    }
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (d) cublasLtMatmulDescDestroy(d);
    if (e != CUBLAS_STATUS_SUCCESS) { /* refused before anything was queued */
        gen_log(cu->ctx, GENESIS_LOG_WARN, "cuBLASLt refused a product with epilogue %u "
                "(%d x %d x %d): %s; cuBLAS and a kernel from now on", epi, m, n, k,
                cublasGetStatusString(e));
        cublasLtDestroy(cu->lt);
        cu->lt = NULL;
        return GENESIS_OK;
    }
    *done = 1;
    return GENESIS_OK;
}

/* out (B x OC, ld ldo) = relu?(inp (B x C, ld ldi) . W^T + bias?) as one cublasLtMatmul in
 * FP32, the bias and the ReLU in its epilogue (BIAS, RELU_BIAS, RELU): column-major, D = out^T
 * (OC x B) = op(W^T as stored: C x OC, TRANSA T) . inp^T (C x B), the bias one value per row
 * of D. *done as cu_lt_matmul's. */
static genesis_status cu_lt_linear(gen_cuda *cu, float *out, int ldo, const float *inp, int ldi,
                                   const float *W, const float *bias, int B, int C, int OC,
                                   int relu, int *done) {
    return cu_lt_matmul(cu, 1, 0, OC, B, C, 1.0f, W, C, inp, ldi, 0.0f, out, ldo, bias, relu,
                        done);
}

/* linear_forward / linear_backward with the input FP32 (inp) or 16-bit (inph) */
static genesis_status cu_linear_forward_impl(gen_cuda *cu, float *out, int ldo, const float *inp,
                                             const uint16_t *inph, int ldi, const float *W,
                                             const float *bias, int B, int C, int OC, int prec) {
    if (bias && !inph && prec == GEN_PREC_FP32) { /* the bias in the product's epilogue */
        int done = 0;
        GEN_CUDA_PASS(cu_lt_linear(cu, out, ldo, inp, ldi, W, bias, B, C, OC, 0, &done));
        if (done) return GENESIS_OK;
    }
    if (bias) {
        genesis_status st = gen_cu_fill_rows(cu, out, ldo, bias, B, OC);
        if (st != GENESIS_OK) return st;
    }
    return cu_gemm_mixed(cu, 0, 1, B, OC, C, 1.0f, inp, inph, ldi, W, NULL, C,
                         bias ? 1.0f : 0.0f, out, ldo, prec);
}
genesis_status gen_cu_linear_forward(gen_cuda *cu, float *out, int ldo, const float *inp, int ldi,
                                     const float *W, const float *bias, int B, int C, int OC,
                                     int prec) {
    return cu_linear_forward_impl(cu, out, ldo, inp, NULL, ldi, W, bias, B, C, OC, prec);
}
/* linear1_forward in FP32, one block of 1,024 threads (the sums need every row): warp w
 * computes rows w, w + 32, ... (lanes over the inputs, a fixed shuffle tree), so that a warp
 * has at most 4 of the critic's 100 rows at Adult's batch (docs/cuda.md, "Launch
 * configurations"), then sums[j] as a block sum (double) */
#define L1_THREADS 1024
__global__ void k_linear1(float *__restrict__ y, float *__restrict__ sums, int nsums,
                          const float *__restrict__ inp, int ldi, const float *__restrict__ w,
                          const float *__restrict__ bias, int n, int C, int n2) {
    __shared__ double sh[32];
    int t = (int)threadIdx.x, lane = t & 31, warp = t >> 5, nw = L1_THREADS / 32;
    float b = bias ? bias[0] : 0.0f;
    for (int r = warp; r < n + n2; r += nw) { /* the n2 rows after n: no sums */
        const float *x = inp + (size_t)r * ldi;
        float a = 0.0f;
        for (int k = lane; k < C; k += 32) a += x[k] * w[k];
        a = gen_warp_sum(a);
        if (lane == 0) y[r] = bias ? b + a : a;
    }
    __syncthreads();
    int m = nsums > 0 ? n / nsums : 0;
    for (int j = 0; j < nsums; j++) {
        double acc = 0.0;
        for (int i = t; i < m; i += L1_THREADS) acc += (double)y[(size_t)j * m + i];
        acc = gen_block_sum(acc, sh, t, L1_THREADS);
        if (t == 0) sums[j] = (float)(acc + 0.0);
    }
}
static genesis_status cu_linear1_forward(gen_cuda *cu, float *y, float *sums, int nsums,
                                         const float *inp, int ldi, const float *w,
                                         const float *bias, int n, int C, int n2, int prec) {
    if (n2 < 0) n2 = 0;
    if (n < 0 || n + n2 <= 0) return GENESIS_OK;
    if (prec != GEN_PREC_FP32) { /* the product rounds its operands: cuBLAS, then the sums */
        GEN_CUDA_PASS(
            cu_linear_forward_impl(cu, y, 1, inp, NULL, ldi, w, bias, n + n2, C, 1, prec));
        int m = nsums > 0 ? n / nsums : 0;
        for (int j = 0; j < nsums; j++)
            GEN_CUDA_PASS(gen_cu_sum(cu, sums + j, y + (size_t)j * m, (size_t)m));
        return GENESIS_OK;
    }
    GEN_LAUNCH(k_linear1, 1, L1_THREADS, 0, cu->stream)(y, sums, nsums, inp, ldi, w, bias, n, C,
                                                       n2);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}
static void op_linear1_forward(gen_backend *be, float *y, float *sums, int nsums,
                               const float *inp, int ldi, const float *w, const float *bias, int n,
                               int C, int n2) {
    GEN_CUDA_RUN(be, "linear1_forward",
                 cu_linear1_forward(cu, y, sums, nsums, inp, ldi, w, bias, n, C, n2,
                                    be->precision));
}

static genesis_status cu_linear_backward_impl(gen_cuda *cu, float *dinp, int lddi, float *dW,
                                              float *dbias, const float *dout, int lddo,
                                              const float *inp, const uint16_t *inph, int ldi,
                                              const float *W, int B, int C, int OC, int prec);

/* linear1_backward_act: gen_col_tree's layout (GEN_COL_COLS columns x GEN_COL_ROWS row-threads
 * a block, docs/cuda.md "Launch configurations"): column c's thread y walks rows y, y + 64, ...:
 * dh = dy w_c (a rank-one product: the one term, as cuBLAS adds it to zero), da = dh s, and the
 * partial sums of da (dbs), dy h (dW) and, for db, dy (every column the same; block 0 column 0
 * adds it); the trees add the partials in a fixed order. The CPU adds row by row: equal up to
 * rounding (parity's tolerance). */
__global__ void k_linear1_backward_act(float *__restrict__ da, float *__restrict__ dbs,
                                       float *__restrict__ dh, float *__restrict__ dW,
                                       float *__restrict__ db, const float *__restrict__ dy,
                                       const float *__restrict__ h, const float *__restrict__ w,
                                       const float *__restrict__ s, int n, int C) {
    __shared__ float sh[GEN_COL_ROWS][GEN_COL_COLS];
    int c = blockIdx.x * GEN_COL_COLS + threadIdx.x;
    float sb = 0.0f, sw = 0.0f, sy = 0.0f;
    if (c < C) {
        float wc = w[c];
        for (int r = threadIdx.y; r < n; r += GEN_COL_ROWS) {
            size_t i = (size_t)r * C + c;
            float d = dy[r], g = d * wc, v = g * s[i];
            dh[i] = g;
            da[i] = v;
            sb += v;
            if (dW) sw += d * h[i];
            sy += d;
        }
    }
    float tb = gen_col_tree(sb, sh), tw = gen_col_tree(sw, sh), ty = gen_col_tree(sy, sh);
    if (threadIdx.y == 0 && c < C) {
        if (dbs) dbs[c] += tb;
        if (dW) dW[c] += tw;
        if (db && c == 0) db[0] += ty;
    }
}
static genesis_status cu_linear1_backward_act(gen_cuda *cu, float *da, float *dbs, float *dh,
                                              float *dW, float *db, const float *dy,
                                              const float *h, const float *w, const float *s,
                                              int n, int C, int prec) {
    if (C <= 0) return GENESIS_OK;
    if (n <= 0) return GENESIS_OK; /* nothing to add; dh and da have no rows */
    if (prec != GEN_PREC_FP32) { /* the product rounds its operands: the replaced sequence */
        size_t bytes = (size_t)n * C * sizeof(float);
        GEN_CUDA_TRY(cu, cudaMemsetAsync(dh, 0, bytes, cu->stream));
        GEN_CUDA_PASS(cu_linear_backward_impl(cu, dh, C, dW, db, dy, 1, h, NULL, C, w, n, C, 1,
                                              prec));
        GEN_CUDA_TRY(cu, cudaMemsetAsync(da, 0, bytes, cu->stream));
        return gen_cu_act_backward_bias(cu, da, dbs, dh, s, n, C, GEN_ACT_SCALE);
    }
    dim3 block(GEN_COL_COLS, GEN_COL_ROWS), grid((unsigned)((C + GEN_COL_COLS - 1) / GEN_COL_COLS));
    GEN_LAUNCH(k_linear1_backward_act, grid, block, 0, cu->stream)(da, dbs, dh, dW, db, dy, h, w,
                                                                  s, n, C);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}
static void op_linear1_backward_act(gen_backend *be, float *da, float *dbs, float *dh, float *dW,
                                    float *db, const float *dy, const float *h, const float *w,
                                    const float *s, int n, int C) {
    GEN_CUDA_RUN(be, "linear1_backward_act",
                 cu_linear1_backward_act(cu, da, dbs, dh, dW, db, dy, h, w, s, n, C,
                                         be->precision));
}

/* linear_sparse_forward: one thread per output (row, column), the row's non-zero inputs in
 * input order (the CPU's order; nvcc may fuse the multiply-add, within parity's tolerance) */
__global__ void k_linear_sparse(float *__restrict__ out, int ldo, const float *__restrict__ inp,
                                int ldi, const float *__restrict__ WT,
                                const float *__restrict__ bias, int B, int C, int OC) {
    size_t n = (size_t)B * OC;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t b = i / (size_t)OC, j = i % (size_t)OC;
        const float *x = inp + b * (size_t)ldi;
        float a = 0.0f;
        for (int k = 0; k < C; k++) {
            float v = x[k];
            if (v != 0.0f) a += v * WT[(size_t)k * OC + j];
        }
        out[b * (size_t)ldo + j] = bias ? a + bias[j] : a;
    }
}
static genesis_status cu_linear_sparse(gen_cuda *cu, float *out, int ldo, const float *inp,
                                       int ldi, const float *WT, const float *bias, int B, int C,
                                       int OC) {
    size_t n = (size_t)B * OC;
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_linear_sparse, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(out, ldo, inp, ldi, WT, bias, B, C, OC);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}
static void op_linear_sparse_forward(gen_backend *be, float *out, int ldo, const float *inp,
                                     int ldi, const float *WT, const float *bias, int B, int C,
                                     int OC) {
    GEN_CUDA_RUN(be, "linear_sparse_forward",
                 cu_linear_sparse(cu, out, ldo, inp, ldi, WT, bias, B, C, OC));
}

/* linear_act_forward after its product (pre = inp . W^T): pre += bias, out = act(pre) with
 * relu_forward's or silu_forward's formula */
__global__ void k_bias_act(float *__restrict__ out, float *__restrict__ pre,
                           const float *__restrict__ bias, int rows, int cols, int act) {
    size_t n = (size_t)rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = pre[i];
        if (bias) {
            v += bias[i % (size_t)cols];
            pre[i] = v;
        }
        out[i] = act == GEN_ACT_SILU ? v / (1.0f + expf(-v)) : (v > 0.0f ? v : 0.0f);
    }
}
static genesis_status cu_linear_act_forward(gen_cuda *cu, float *out, float *pre, const float *inp,
                                            int ldi, const float *W, const float *bias, int B,
                                            int C, int OC, int act, int prec) {
    size_t n = (size_t)B * OC;
    if (n == 0) return GENESIS_OK;
    if (act == GEN_ACT_RELU && prec == GEN_PREC_FP32) { /* out = relu(. + bias) in one product */
        int done = 0;
        GEN_CUDA_PASS(cu_lt_linear(cu, out, OC, inp, ldi, W, bias, B, C, OC, 1, &done));
        if (done) return GENESIS_OK; /* pre not written (backend.h) */
    }
    GEN_CUDA_PASS(cu_linear_forward_impl(cu, pre, OC, inp, NULL, ldi, W, NULL, B, C, OC, prec));
    GEN_LAUNCH(k_bias_act, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        out, pre, bias, B, OC, act);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}
static void op_linear_act_forward(gen_backend *be, float *out, float *pre, const float *inp,
                                  int ldi, const float *W, const float *bias, int B, int C, int OC,
                                  int act) {
    GEN_CUDA_RUN(be, "linear_act_forward",
                 cu_linear_act_forward(cu, out, pre, inp, ldi, W, bias, B, C, OC, act,
                                       be->precision));
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


/* ---- the table's entries ---------------------------------------------------------------- */

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

void gen_cu_ops_dense(gen_backend_ops *o) {
    o->gemm = op_gemm;
    o->linear_forward = op_linear_forward;
    o->linear_backward = op_linear_backward;
    o->linear_act_forward = op_linear_act_forward;
    o->linear1_forward = op_linear1_forward;
    o->linear1_backward_act = op_linear1_backward_act;
    o->linear_sparse_forward = op_linear_sparse_forward;
    o->to_half = op_to_half;
    o->linear_forward_h = op_linear_forward_h;
    o->linear_backward_h = op_linear_backward_h;
}
