/*
 * dense.c — the CPU backend's `dense` family (backend.h): gemm, linear_forward and
 * linear_backward, the one-output layer (linear1_forward, and linear1_backward_act: the zero
 * fills, linear_backward and act_backward_bias in turn), and the 16-bit stored activations of BF16/FP16 training (to_half,
 * linear_*_h; docs/precision.md, "Memory"). OpenBLAS's cblas_sgemm over fixed tiles
 * is the fast path, checked against the plain-loop gen_gemm_reference
 * (tests/test_layers_grad.c); the mixed-precision products round their operands as
 * precision.h does. Formulas: torch.nn semantics (docs/algorithms.md §T6); derivations of
 * the backward passes: docs/layers.md. CUDA: cuda/dense.cu; parity: tests/parity/dense.c.
 */
#include <cblas.h>

#include "cpu_internal.h"

/* ---- GEMM ---------------------------------------------------------------------------- */
void gen_gemm_reference(int ta, int tb, int M, int N, int K, float alpha, const float *A,
                        int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++) {
                float a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                float b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                acc += (double)a * b;
            }
            float *c = &C[(size_t)i * ldc + j];
            *c = (float)(alpha * acc + (beta == 0.0f ? 0.0 : (double)beta * *c));
        }
    }
}

static void cpu_gemm_fp32(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                          const float *A, int lda, const float *B, int ldb, float beta, float *C,
                          int ldc);

/* One row rounded to TF32 or BF16 (branch-free integer forms of precision.h's rounding,
 * so the loop vectorises; the same results bit for bit, NaN kept as a NaN) */
GEN_KERNEL static void round_row_int(float *restrict dst, const float *restrict src, int n,
                                     int prec) {
    const uint32_t *s = (const uint32_t *)src;
    uint32_t *d = (uint32_t *)dst;
    if (prec == GEN_PREC_TF32) {
        for (int j = 0; j < n; j++) {
            uint32_t u = s[j], r = (u + 0xFFFu + ((u >> 13) & 1u)) & ~0x1FFFu;
            d[j] = (u & 0x7F800000u) == 0x7F800000u ? u : r;
        }
    } else {
        for (int j = 0; j < n; j++) {
            uint32_t u = s[j], r = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
            d[j] = (u & 0x7FFFFFFFu) > 0x7F800000u ? (u | 0x00400000u) & 0xFFFF0000u : r;
        }
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
/* One row rounded to FP16 with the F16C conversions (IEEE round to nearest even, subnormals
 * and overflow as precision.h's gen_fp16_bits) */
__attribute__((target("avx,f16c"))) static void round_row_f16c(float *dst, const float *src,
                                                                int n) {
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + j), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(dst + j, _mm256_cvtph_ps(h));
    }
    for (; j < n; j++) dst[j] = gen_round_prec(src[j], GEN_PREC_FP16);
}
/* F16C and AVX from CPUID leaf 1 (ECX bits 29 and 28), and the OS saving the YMM registers
 * (OSXSAVE, bit 27, and XCR0 bits 1-2): Intel SDM vol. 1, 14.3. (clang 14's
 * __builtin_cpu_supports does not know "f16c".) */
static int have_f16c(void) {
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        known = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1) && (c >> 28 & 1) && (c >> 27 & 1)) {
            unsigned lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            known = (lo & 6u) == 6u;
        }
    }
    return known;
}
#else
static void round_row_f16c(float *dst, const float *src, int n) {
    for (int j = 0; j < n; j++) dst[j] = gen_round_prec(src[j], GEN_PREC_FP16);
}
static int have_f16c(void) { return 0; }
#endif

/* dst (n floats) = src rounded to prec: what gen_round_prec gives element by element */
void gen_cpu_round_row(float *dst, const float *src, int n, int prec) {
    if (prec == GEN_PREC_FP16) {
        if (have_f16c()) {
            round_row_f16c(dst, src, n);
        } else {
            for (int j = 0; j < n; j++) dst[j] = gen_round_prec(src[j], GEN_PREC_FP16);
        }
    } else if (prec == GEN_PREC_TF32 || prec == GEN_PREC_BF16) {
        round_row_int(dst, src, n, prec);
    } else if (dst != src) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    }
}

/* A copy of the rows x cols matrix X (ld ldx) with every element rounded to `prec`, packed
 * (ld cols); NULL when out of memory */
static float *rounded_copy(gen_backend *be, const float *X, int ldx, int rows, int cols,
                           int prec) {
    float *r = malloc((size_t)rows * (size_t)cols * sizeof(float));
    if (!r) return NULL;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++)
        gen_cpu_round_row(r + (size_t)i * cols, X + (size_t)i * ldx, cols, prec);
    return r;
}

/* A copy of the rows x cols matrix X of 16-bit values (ld ldx) expanded to FP32, packed (ld
 * cols): the same values, in the same layout, as rounded_copy of the FP32 matrix they were
 * rounded from; NULL when out of memory */
static float *expanded_copy(gen_backend *be, const uint16_t *X, int ldx, int rows, int cols,
                            int prec) {
    float *r = malloc((size_t)rows * (size_t)cols * sizeof(float));
    if (!r) return NULL;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        const uint16_t *x = X + (size_t)i * ldx;
        float *d = r + (size_t)i * cols;
        for (int j = 0; j < cols; j++) d[j] = gen_half_f32(x[j], prec);
    }
    return r;
}

/* Element (i, k) of a stored matrix, FP32 (rounded to prec) or 16-bit (expanded) */
static inline float mixed_at(const float *X, const uint16_t *Xh, int ld, int i, int k, int prec) {
    size_t at = (size_t)i * ld + k;
    return Xh ? gen_half_f32(Xh[at], prec) : gen_round_prec(X[at], prec);
}

/* The mixed-precision GEMM (docs/precision.md): op(A) and op(B) rounded to be->precision
 * (round to nearest even), then the FP32 product of the rounded values; what a 16-bit or
 * TF32 tensor-core GEMM with FP32 accumulation computes, up to the summation order. An
 * operand given as 16-bit values (Ah, Bh instead of A, B: BF16/FP16 only) is expanded into
 * the copy instead of rounded, which gives the same copy as its FP32 original would: the
 * same product, bit for bit. */
static void cpu_gemm_mixed(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                           const float *A, const uint16_t *Ah, int lda, const float *B,
                           const uint16_t *Bh, int ldb, float beta, float *C, int ldc) {
    int prec = be->precision;
    if ((prec == GEN_PREC_FP32 && !Ah && !Bh) || M <= 0 || N <= 0 || K <= 0) {
        cpu_gemm_fp32(be, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    /* stored shapes: A is M x K (K x M when ta), B is K x N (N x K when tb) */
    int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    float *ra = Ah ? expanded_copy(be, Ah, lda, ar, ac, prec)
                   : rounded_copy(be, A, lda, ar, ac, prec);
    float *rb = Bh ? expanded_copy(be, Bh, ldb, br, bc, prec)
                   : rounded_copy(be, B, ldb, br, bc, prec);
    if (ra && rb) {
        cpu_gemm_fp32(be, ta, tb, M, N, K, alpha, ra, ac, rb, bc, beta, C, ldc);
    } else { /* out of memory for the copies: the values rounded one product at a time */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float acc = 0;
                for (int k = 0; k < K; k++) {
                    float a = ta ? mixed_at(A, Ah, lda, k, i, prec)
                                 : mixed_at(A, Ah, lda, i, k, prec);
                    float b = tb ? mixed_at(B, Bh, ldb, j, k, prec)
                                 : mixed_at(B, Bh, ldb, k, j, prec);
                    acc += a * b;
                }
                float *c = &C[(size_t)i * ldc + j];
                *c = alpha * acc + (beta == 0.0f ? 0.0f : beta * *c);
            }
    }
    free(ra);
    free(rb);
}

void gen_cpu_gemm(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb, float beta, float *C,
                  int ldc) {
    cpu_gemm_mixed(be, ta, tb, M, N, K, alpha, A, NULL, lda, B, NULL, ldb, beta, C, ldc);
}

static void cpu_gemm_fp32(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                          const float *A, int lda, const float *B, int ldb, float beta, float *C,
                          int ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) C[(size_t)i * ldc + j] *= beta;
        return;
    }
    /* Fixed tiles of C, each computed by one single-threaded sgemm call: the tiles (and so
     * every summation order) are the same whatever the thread count, so results do not
     * depend on it; threads take tiles dynamically, which also keeps a thread that lost its
     * core to another process from holding the others up. */
    enum { TM = 64 };
    int TN = 256;
    int tiles_m = (M + TM - 1) / TM, tiles_n = (N + TN - 1) / TN;
    if (tiles_m * tiles_n < 4 && N > 128) { /* few rows: split the columns finer */
        TN = 128;
        tiles_n = (N + TN - 1) / TN;
    }
    int tiles = tiles_m * tiles_n;
    CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    double work = (double)M * N * K;
    _Pragma("omp parallel for schedule(dynamic, 1) if (tiles > 1 && work >= 2e6) num_threads(be->threads)")
    for (int t = 0; t < tiles; t++) {
        int i0 = (t / tiles_n) * TM, j0 = (t % tiles_n) * TN;
        int m = M - i0 < TM ? M - i0 : TM, n = N - j0 < TN ? N - j0 : TN;
        const float *a = ta ? A + i0 : A + (size_t)i0 * lda;
        const float *b = tb ? B + (size_t)j0 * ldb : B + j0;
        cblas_sgemm(CblasRowMajor, opa, opb, m, n, K, alpha, a, lda, b, ldb, beta,
                    C + (size_t)i0 * ldc + j0, ldc);
    }
}

/* linear_forward / linear_backward with the input FP32 (inp) or 16-bit (inph) */
static void linear_forward_any(gen_backend *be, float *out, int ldo, const float *inp,
                               const uint16_t *inph, int ldi, const float *W, const float *bias,
                               int B, int C, int OC) {
    if (bias) {
        GEN_OMP_FOR((size_t)B * OC)
        for (int b = 0; b < B; b++) memcpy(out + (size_t)b * ldo, bias, (size_t)OC * sizeof(float));
    }
    cpu_gemm_mixed(be, 0, 1, B, OC, C, 1.0f, inp, inph, ldi, W, NULL, C, bias ? 1.0f : 0.0f, out,
                   ldo);
}
static void linear_backward_any(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                                const float *dout, int lddo, const float *inp,
                                const uint16_t *inph, int ldi, const float *W, int B, int C,
                                int OC) {
    if (dinp) gen_cpu_gemm(be, 0, 0, B, C, OC, 1.0f, dout, lddo, W, C, 1.0f, dinp, lddi);
    if (dW)
        cpu_gemm_mixed(be, 1, 0, OC, C, B, 1.0f, dout, NULL, lddo, inp, inph, ldi, 1.0f, dW, C);
    if (dbias) {
        for (int b = 0; b < B; b++) {
            const float *d = dout + (size_t)b * lddo;
            for (int o = 0; o < OC; o++) dbias[o] += d[o];
        }
    }
}
void gen_cpu_linear_forward(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                            const float *W, const float *bias, int B, int C, int OC) {
    linear_forward_any(be, out, ldo, inp, NULL, ldi, W, bias, B, C, OC);
}
void gen_cpu_linear1_forward(gen_backend *be, float *y, float *sums, int nsums,
                             const float *inp, int ldi, const float *w, const float *bias, int n,
                             int C, int n2) {
    gen_cpu_linear_forward(be, y, 1, inp, ldi, w, bias, n, C, 1);
    int m = nsums > 0 ? n / nsums : 0;
    for (int j = 0; j < nsums; j++) gen_cpu_sum(be, sums + j, y + (size_t)j * m, (size_t)m);
    if (n2 > 0) gen_cpu_linear_forward(be, y + n, 1, inp + (size_t)n * ldi, ldi, w, bias, n2, C, 1);
}
void gen_cpu_linear1_backward_act(gen_backend *be, float *da, float *dbs, float *dh, float *dW,
                                  float *db, const float *dy, const float *h, const float *w,
                                  const float *s, int n, int C) {
    size_t nc = (size_t)n * C;
    gen_cpu_zero(be, dh, nc);
    gen_cpu_linear_backward(be, dh, C, dW, db, dy, 1, h, C, w, n, C, 1);
    gen_cpu_zero(be, da, nc);
    gen_cpu_act_backward_bias(be, da, dbs, dh, s, n, C, GEN_ACT_SCALE);
}
/* linear_sparse_forward, rows [lo, hi): per row, the positions of the non-zero inputs (a
 * branch-free scan into nz that skips blocks of eight zeros, C ints of scratch; NULL: a test
 * per input, the same sums), then an AXPY of WT's row i for each, then the bias; a row's sums
 * do not depend on how the rows are split. */
static GEN_KERNEL void sparse_rows(float *restrict out, int ldo, const float *restrict inp,
                                   int ldi, const float *restrict WT, const float *restrict bias,
                                   int C, int OC, int lo, int hi, int *restrict nz) {
    for (int b = lo; b < hi; b++) {
        float *restrict o = out + (size_t)b * ldo;
        const float *x = inp + (size_t)b * ldi;
        int n = 0, i = 0;
        for (; nz && i + 8 <= C; i += 8) { /* a block of eight zeros (±0) is skipped whole */
            uint32_t any = 0;
            for (int l = 0; l < 8; l++) any |= gen_f32_bits(x[i + l]) << 1;
            if (!any) continue;
            for (int l = 0; l < 8; l++) {
                nz[n] = i + l;
                n += x[i + l] != 0.0f;
            }
        }
        for (; nz && i < C; i++) {
            nz[n] = i;
            n += x[i] != 0.0f;
        }
        for (int j = 0; j < OC; j++) o[j] = 0.0f;
        for (int k = 0; k < (nz ? n : C); k++) {
            int r = nz ? nz[k] : k;
            float v = x[r];
            if (v == 0.0f) continue;
            const float *restrict w = WT + (size_t)r * OC;
            for (int j = 0; j < OC; j++) o[j] += v * w[j];
        }
        if (bias)
            for (int j = 0; j < OC; j++) o[j] += bias[j];
    }
}
void gen_cpu_linear_sparse_forward(gen_backend *be, float *out, int ldo, const float *inp,
                                   int ldi, const float *WT, const float *bias, int B, int C,
                                   int OC) {
    _Pragma("omp parallel if ((size_t)B * OC >= 16384) num_threads(be->threads)") {
        int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
        int *nz = malloc((size_t)(C > 0 ? C : 1) * sizeof *nz);
        sparse_rows(out, ldo, inp, ldi, WT, bias, C, OC, (int)(B * t / T),
                    (int)(B * (t + 1) / T), nz);
        free(nz);
    }
}
void gen_cpu_linear_act_forward(gen_backend *be, float *out, float *pre, const float *inp,
                                int ldi, const float *W, const float *bias, int B, int C, int OC,
                                int act) {
    gen_cpu_linear_forward(be, pre, OC, inp, ldi, W, bias, B, C, OC);
    if (act == GEN_ACT_SILU) gen_cpu_silu_forward(be, out, pre, (size_t)B * OC);
    else gen_cpu_relu_forward(be, out, pre, (size_t)B * OC);
}
void gen_cpu_linear_backward(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                             const float *dout, int lddo, const float *inp, int ldi,
                             const float *W, int B, int C, int OC) {
    linear_backward_any(be, dinp, lddi, dW, dbias, dout, lddo, inp, NULL, ldi, W, B, C, OC);
}

/* ---- 16-bit stored activations (docs/precision.md, "Memory") ------------------------- */
void gen_cpu_to_half(gen_backend *be, uint16_t *dst, int ldd, const float *src, int lds,
                     int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        uint16_t *d = dst + (size_t)i * ldd;
        const float *x = src + (size_t)i * lds;
        for (int j = 0; j < cols; j++) d[j] = gen_half_bits(x[j], prec);
    }
}
void gen_cpu_linear_forward_h(gen_backend *be, float *out, int ldo, const uint16_t *inp,
                              int ldi, const float *W, const float *bias, int B, int C,
                              int OC) {
    linear_forward_any(be, out, ldo, NULL, inp, ldi, W, bias, B, C, OC);
}
void gen_cpu_linear_backward_h(gen_backend *be, float *dinp, int lddi, float *dW,
                               float *dbias, const float *dout, int lddo, const uint16_t *inp,
                               int ldi, const float *W, int B, int C, int OC) {
    linear_backward_any(be, dinp, lddi, dW, dbias, dout, lddo, NULL, inp, ldi, W, B, C, OC);
}
