/*
 * backend_cpu.c — the CPU reference backend: every operation of gen_backend_ops as plain
 * loops, with OpenBLAS's cblas_sgemm as the GEMM fast path (tests/test_layers_grad.c checks
 * it against gen_gemm_reference). This file is the specification the CUDA backend is
 * compared with. Formulas: torch.nn semantics as in docs/algorithms.md §T6; derivations of
 * the backward passes in docs/layers.md.
 */
#include <cblas.h>
#include <omp.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "backend_cpu_gru.h"
#include "backend_cpu_tgloss.h"
#include "diffusion.h"
#include "precision.h"
#include "rng.h"

/* The step's counter offset that random operations add (gen_backend.rng_base), 0 unbound. */
static inline uint64_t cpu_rng_base(const gen_backend *be) {
    return be->rng_base ? *be->rng_base : 0;
}

/* Element-wise loops run on the OpenMP pool that OpenBLAS (Debian's OpenMP build) also
 * uses; small loops stay serial. Every parallel loop writes disjoint elements, so results do
 * not depend on the thread count. */
#define GEN_OMP_STR(x) #x
#define GEN_OMP_FOR(work) \
    _Pragma(GEN_OMP_STR(omp parallel for schedule(static) if ((work) >= 16384) num_threads(be->threads)))

/* Hot element-wise kernels are written as range functions with restrict pointers (OpenMP's
 * outlined loop bodies lose restrict and stay scalar) and compiled twice, for AVX2 and the
 * baseline, picked at load time; GEN_PARALLEL_RANGE splits [0, n) into one contiguous range
 * per thread. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define GEN_KERNEL
#endif
#define GEN_PARALLEL_RANGE(n, ...)                                                    \
    do {                                                                              \
        size_t gen_n_ = (n);                                                          \
        _Pragma("omp parallel if (gen_n_ >= 16384) num_threads(be->threads)") {      \
            size_t gen_t_ = (size_t)omp_get_thread_num(), gen_T_ = (size_t)omp_get_num_threads(); \
            size_t lo = gen_n_ * gen_t_ / gen_T_, hi = gen_n_ * (gen_t_ + 1) / gen_T_; \
            __VA_ARGS__;                                                              \
        }                                                                             \
    } while (0)

/* ---- memory ------------------------------------------------------------------------- */
static void *cpu_alloc(gen_backend *be, size_t bytes) {
    (void)be;
    return calloc(1, bytes ? bytes : 1);
}
static void cpu_free(gen_backend *be, void *p) { (void)be; free(p); }
static void cpu_copy(gen_backend *be, void *dst, const void *src, size_t bytes) {
    (void)be;
    if (bytes) memmove(dst, src, bytes);
}
static void cpu_zero(gen_backend *be, float *x, size_t n) {
    (void)be;
    if (n) memset(x, 0, n * sizeof *x);
}
static void cpu_copy2d(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                       int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        memcpy(dst + (size_t)r * ldd, src + (size_t)r * lds, (size_t)cols * sizeof(float));
}

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

static void cpu_gemm(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
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
    if (dinp) cpu_gemm(be, 0, 0, B, C, OC, 1.0f, dout, lddo, W, C, 1.0f, dinp, lddi);
    if (dW)
        cpu_gemm_mixed(be, 1, 0, OC, C, B, 1.0f, dout, NULL, lddo, inp, inph, ldi, 1.0f, dW, C);
    if (dbias) {
        for (int b = 0; b < B; b++) {
            const float *d = dout + (size_t)b * lddo;
            for (int o = 0; o < OC; o++) dbias[o] += d[o];
        }
    }
}
static void cpu_linear_forward(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                               const float *W, const float *bias, int B, int C, int OC) {
    linear_forward_any(be, out, ldo, inp, NULL, ldi, W, bias, B, C, OC);
}
static void cpu_linear_backward(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                                const float *dout, int lddo, const float *inp, int ldi,
                                const float *W, int B, int C, int OC) {
    linear_backward_any(be, dinp, lddi, dW, dbias, dout, lddo, inp, NULL, ldi, W, B, C, OC);
}

/* ---- 16-bit stored activations (docs/precision.md, "Memory") ------------------------- */
static void cpu_to_half(gen_backend *be, uint16_t *dst, int ldd, const float *src, int lds,
                        int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        uint16_t *d = dst + (size_t)i * ldd;
        const float *x = src + (size_t)i * lds;
        for (int j = 0; j < cols; j++) d[j] = gen_half_bits(x[j], prec);
    }
}
static void cpu_linear_forward_h(gen_backend *be, float *out, int ldo, const uint16_t *inp,
                                 int ldi, const float *W, const float *bias, int B, int C,
                                 int OC) {
    linear_forward_any(be, out, ldo, NULL, inp, ldi, W, bias, B, C, OC);
}
static void cpu_linear_backward_h(gen_backend *be, float *dinp, int lddi, float *dW,
                                  float *dbias, const float *dout, int lddo, const uint16_t *inp,
                                  int ldi, const float *W, int B, int C, int OC) {
    linear_backward_any(be, dinp, lddi, dW, dbias, dout, lddo, NULL, inp, ldi, W, B, C, OC);
}
static void cpu_relu_forward_h(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                               int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        uint16_t *o = out + (size_t)i * ldo;
        const float *x = inp + (size_t)i * ldi;
        for (int j = 0; j < cols; j++) o[j] = gen_half_bits(x[j] > 0.0f ? x[j] : 0.0f, prec);
    }
}
static void cpu_relu_backward_h(gen_backend *be, float *dinp, const float *dout,
                                const uint16_t *out, int ldo, int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        const uint16_t *o = out + (size_t)i * ldo;
        float *di = dinp + (size_t)i * cols;
        const float *d = dout + (size_t)i * cols;
        for (int j = 0; j < cols; j++) di[j] += gen_half_f32(o[j], prec) > 0.0f ? d[j] : 0.0f;
    }
}

/* ---- element-wise -------------------------------------------------------------------- */
static GEN_KERNEL void relu_fwd_range(float *restrict out, const float *restrict inp, size_t lo,
                                      size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}
static GEN_KERNEL void relu_bwd_range(float *restrict dinp, const float *restrict dout,
                                      const float *restrict out, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += out[i] > 0.0f ? dout[i] : 0.0f;
}
static GEN_KERNEL void lrelu_fwd_range(float *restrict out, const float *restrict inp, float slope,
                                       size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = inp[i] > 0.0f ? inp[i] : slope * inp[i];
}
static GEN_KERNEL void lrelu_bwd_range(float *restrict dinp, const float *restrict dout,
                                       const float *restrict inp, float slope, size_t lo,
                                       size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += inp[i] > 0.0f ? dout[i] : slope * dout[i];
}
static GEN_KERNEL void mul_range(float *restrict out, const float *restrict a,
                                 const float *restrict b, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = a[i] * b[i];
}
static GEN_KERNEL void mul_acc_range(float *restrict dinp, const float *restrict dout,
                                     const float *restrict mask, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += dout[i] * mask[i];
}
static GEN_KERNEL void slope_mask_range(float *restrict s, const float *restrict inp,
                                        const float *restrict mask, float slope, size_t lo,
                                        size_t hi) {
    for (size_t i = lo; i < hi; i++) s[i] = mask[i] * (inp[i] > 0.0f ? 1.0f : slope);
}

static void cpu_gather_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                            const int32_t *rows, int B) {
    (void)be;
    GEN_OMP_FOR((size_t)B * (size_t)t->width)
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * ldo;
        memset(o, 0, (size_t)t->width * sizeof *o);
        int64_t r = rows[b];
        for (int c = 0; c < t->ncols; c++) {
            int32_t s = t->slot[c][r];
            if (t->cont[c]) {
                o[t->offset[c]] = t->alpha[c][r];
                o[t->offset[c] + 1 + s] = 1.0f;
            } else {
                o[t->offset[c] + s] = 1.0f;
            }
        }
    }
}
static void cpu_onehot_rows(gen_backend *be, float *out, int ldo, int w, const int32_t *pos,
                            int B) {
    (void)be;
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * ldo;
        memset(o, 0, (size_t)w * sizeof *o);
        if (pos[b] >= 0 && pos[b] < w) o[pos[b]] = 1.0f;
    }
}
static void cpu_accumulate(gen_backend *be, float *acc, const float *x, int n) {
    (void)be;
    for (int i = 0; i < n; i++) acc[i] += x[i];
}

static void cpu_relu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, relu_fwd_range(out, inp, lo, hi));
}
static void cpu_relu_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, relu_bwd_range(dinp, dout, out, lo, hi));
}
static void cpu_leaky_relu_forward(gen_backend *be, float *out, const float *inp, size_t n,
                                   float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, lrelu_fwd_range(out, inp, slope, lo, hi));
}
static void cpu_leaky_relu_backward(gen_backend *be, float *dinp, const float *dout,
                                    const float *inp, size_t n, float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, lrelu_bwd_range(dinp, dout, inp, slope, lo, hi));
}
static void cpu_dropout_forward(gen_backend *be, float *out, float *mask, const float *inp,
                                size_t n, float p, uint64_t seed, uint64_t stream,
                                uint64_t offset) {
    offset += cpu_rng_base(be);
    float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) {
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        for (size_t k = 0; k < 4 && i + k < n; k++) {
            float m = gen_u32_to_unit(r.v[k]) >= p ? scale : 0.0f;
            mask[i + k] = m;
            out[i + k] = inp[i + k] * m;
        }
    }
}
static void cpu_mul(gen_backend *be, float *out, const float *a, const float *b, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, mul_range(out, a, b, lo, hi));
}
static void cpu_mul_acc(gen_backend *be, float *dinp, const float *dout, const float *mask,
                        size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, mul_acc_range(dinp, dout, mask, lo, hi));
}
static void cpu_leaky_slope_mask(gen_backend *be, float *s, const float *inp, const float *mask,
                                 size_t n, float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, slope_mask_range(s, inp, mask, slope, lo, hi));
}
static void cpu_mul_rowvec(gen_backend *be, float *out, const float *s, const float *v, int rows,
                           int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = s[(size_t)r * cols + c] * v[c];
}
static void cpu_sum(gen_backend *be, float *out, const float *x, size_t n) {
    (void)be;
    double acc = 0;
    for (size_t i = 0; i < n; i++) acc += x[i];
    out[0] = (float)acc;
}
static void cpu_colsum_acc(gen_backend *be, float *dv, const float *a, int rows, int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) dv[c] += a[(size_t)r * cols + c];
}

/* ---- batch norm ------------------------------------------------------------------------ */
static void cpu_batchnorm_forward(gen_backend *be, float *out, float *mean, float *rstd,
                                  const float *inp, const float *gamma, const float *beta, int B,
                                  int C, float eps) {
    (void)be;
    double *acc = calloc((size_t)2 * C, sizeof *acc);
    GEN_ASSERT(acc != NULL);
    double *acc2 = acc + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) acc[c] += inp[(size_t)b * C + c];
    for (int c = 0; c < C; c++) acc[c] /= B;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            double d = inp[(size_t)b * C + c] - acc[c];
            acc2[c] += d * d;
        }
    for (int c = 0; c < C; c++) {
        mean[c] = (float)acc[c];
        rstd[c] = (float)(1.0 / sqrt(acc2[c] / B + eps));
    }
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - mean[c]) * rstd[c] * gamma[c] + beta[c];
        }
    free(acc);
}
static void cpu_batchnorm_forward_eval(gen_backend *be, float *out, const float *inp,
                                       const float *rmean, const float *rvar, const float *gamma,
                                       const float *beta, int B, int C, float eps) {
    (void)be;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - rmean[c]) / sqrtf(rvar[c] + eps) * gamma[c] + beta[c];
        }
}
static void cpu_batchnorm_update_running(gen_backend *be, float *rmean, float *rvar,
                                         const float *mean, const float *rstd, int B, int C,
                                         float momentum, float eps) {
    (void)be;
    for (int c = 0; c < C; c++) {
        double var = 1.0 / ((double)rstd[c] * rstd[c]) - eps;
        double unbiased = B > 1 ? var * B / (B - 1) : var;
        rmean[c] = (1 - momentum) * rmean[c] + momentum * mean[c];
        rvar[c] = (float)((1 - momentum) * rvar[c] + momentum * unbiased);
    }
}
/* sd[c] = sum_b dxhat, sd[C + c] = sum_b dxhat * xhat (double); dgamma, dbeta += their sums */
static void bn_backward_sums(double *sd, float *dgamma, float *dbeta, const float *dout,
                             const float *inp, const float *mean, const float *rstd,
                             const float *gamma, int B, int C) {
    double *sdx = sd + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            sd[c] += dxhat;
            sdx[c] += (double)dxhat * xhat;
            dgamma[c] += dout[i] * xhat;
            dbeta[c] += dout[i];
        }
}
static void cpu_batchnorm_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                   const float *dout, const float *inp, const float *mean,
                                   const float *rstd, const float *gamma, int B, int C) {
    (void)be;
    double *sd = calloc((size_t)2 * C, sizeof *sd); /* sum dxhat, sum dxhat*xhat */
    GEN_ASSERT(sd != NULL);
    bn_backward_sums(sd, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, C);
    const double *sdx = sd + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            dinp[i] += rstd[c] * (float)(dxhat - sd[c] / B - xhat * sdx[c] / B);
        }
    free(sd);
}

/* ---- batch norm synchronised across ranks (double sums, like the single-rank version) ---- */
static void cpu_batchnorm_stats(gen_backend *be, float *part, const float *inp, const float *mean,
                                int B, int C, int N) {
    (void)be;
    double *acc = calloc((size_t)C, sizeof *acc);
    GEN_ASSERT(acc != NULL);
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            double v = inp[(size_t)b * C + c];
            if (mean) v = (v - mean[c]) * (v - mean[c]);
            acc[c] += v;
        }
    for (int c = 0; c < C; c++) part[c] = (float)(acc[c] / N);
    free(acc);
}
static void cpu_batchnorm_apply(gen_backend *be, float *out, float *rstd, const float *inp,
                                const float *mean, const float *gamma, const float *beta, int B,
                                int C, float eps) {
    (void)be;
    for (int c = 0; c < C; c++) rstd[c] = (float)(1.0 / sqrt((double)rstd[c] + eps));
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - mean[c]) * rstd[c] * gamma[c] + beta[c];
        }
}
static void cpu_batchnorm_backward_sums(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                        const float *dout, const float *inp, const float *mean,
                                        const float *rstd, const float *gamma, int B, int C) {
    (void)be;
    double *sd = calloc((size_t)2 * C, sizeof *sd);
    GEN_ASSERT(sd != NULL);
    bn_backward_sums(sd, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, C);
    for (int c = 0; c < 2 * C; c++) sums[c] = (float)sd[c];
    free(sd);
}
static void cpu_batchnorm_backward_apply(gen_backend *be, float *dinp, const float *dout,
                                         const float *inp, const float *mean, const float *rstd,
                                         const float *gamma, const float *sums, int B, int C,
                                         int N) {
    (void)be;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            dinp[i] += rstd[c] * (float)(dxhat - (double)sums[c] / N - xhat * (double)sums[C + c] / N);
        }
}

/* ---- generator output activations ------------------------------------------------------- */
static int spans_width(const gen_act_span *spans, int nspans) {
    return nspans ? spans[nspans - 1].start + spans[nspans - 1].len : 0;
}

static void cpu_activate_forward(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                                 int B, const gen_act_span *spans, int nspans, float tau,
                                 uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0) {
    offset += cpu_rng_base(be);
    int W = spans_width(spans, nspans);
    GEN_OMP_FOR((size_t)B * W)
    for (int b = 0; b < B; b++) {
        const float *xr = x + (size_t)b * ldx;
        float *yr = out + (size_t)b * ldo;
        if (tau > 0.0f) {
            /* Gumbel noise g = -log(-log(u)) for element (b, j) = stream index b*W + j */
            uint64_t i0 = (row0 + (uint64_t)b) * (uint64_t)W;
            for (int j = 0; j < W;) {
                uint64_t idx = i0 + (uint64_t)j;
                gen_u32x4 r = gen_philox(seed, offset + (idx >> 2), stream);
                for (int k = (int)(idx & 3); k < 4 && j < W; k++, j++)
                    yr[j] = -logf(-logf(gen_u32_to_unit_open(r.v[k])));
            }
        }
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            int j0 = sp->start, j1 = sp->start + sp->len;
            if (!sp->softmax) {
                for (int j = j0; j < j1; j++) yr[j] = tanhf(xr[j]);
                continue;
            }
            float mx = -INFINITY;
            if (tau > 0.0f) {
                float it = 1.0f / tau;
                for (int j = j0; j < j1; j++) yr[j] = (xr[j] + yr[j]) * it;
            } else {
                for (int j = j0; j < j1; j++) yr[j] = xr[j];
            }
            for (int j = j0; j < j1; j++) mx = yr[j] > mx ? yr[j] : mx;
            float tot = 0.0f;
            for (int j = j0; j < j1; j++) {
                yr[j] = expf(yr[j] - mx);
                tot += yr[j];
            }
            float inv = 1.0f / tot;
            for (int j = j0; j < j1; j++) yr[j] *= inv;
        }
    }
}

static void cpu_activate_backward(gen_backend *be, float *dx, int lddx, const float *dout,
                                  int lddo, const float *out, int ldo, int B,
                                  const gen_act_span *spans, int nspans, float tau) {
    (void)be;
    float itau = tau > 0.0f ? 1.0f / tau : 1.0f;
    GEN_OMP_FOR((size_t)B * 64)
    for (int b = 0; b < B; b++) {
        float *dxr = dx + (size_t)b * lddx;
        const float *dyr = dout + (size_t)b * lddo;
        const float *yr = out + (size_t)b * ldo;
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            if (!sp->softmax) {
                for (int j = sp->start; j < sp->start + sp->len; j++)
                    dxr[j] += dyr[j] * (1.0f - yr[j] * yr[j]);
                continue;
            }
            /* the dot product in double: one rounding, so any summation order (the GPU's
             * warp tree) agrees to a unit of float roundoff on the widest spans */
            double acc = 0.0;
            for (int j = sp->start; j < sp->start + sp->len; j++) acc += (double)yr[j] * dyr[j];
            float dot = (float)acc;
            for (int j = sp->start; j < sp->start + sp->len; j++)
                dxr[j] += itau * yr[j] * (dyr[j] - dot);
        }
    }
}

static void cpu_cross_entropy_rows(gen_backend *be, float *loss, float *dlogits, int ldd,
                                   const float *logits, int ldl, int B, const int32_t *start,
                                   const int32_t *len, const int32_t *target, float scale) {
    (void)be;
    double tot = 0;
    for (int b = 0; b < B; b++) {
        if (len[b] <= 0) continue;
        const float *l = logits + (size_t)b * ldl + start[b];
        float mx = -INFINITY;
        for (int j = 0; j < len[b]; j++) mx = l[j] > mx ? l[j] : mx;
        double z = 0;
        for (int j = 0; j < len[b]; j++) z += exp((double)l[j] - mx);
        double lse = mx + log(z);
        tot += lse - l[target[b] - start[b]];
        if (dlogits) {
            float *d = dlogits + (size_t)b * ldd + start[b];
            for (int j = 0; j < len[b]; j++) {
                double p = exp((double)l[j] - lse);
                d[j] += scale * (float)(p - (j == target[b] - start[b] ? 1.0 : 0.0));
            }
        }
    }
    if (loss) loss[0] = (float)(scale * tot);
}

/* ---- WGAN-GP -------------------------------------------------------------------------------- */
static void cpu_interpolate_groups(gen_backend *be, float *out, const float *real,
                                   const float *fake, const float *alpha, int B, int w, int pac) {
    (void)be;
    GEN_OMP_FOR((size_t)B * w)
    for (int i = 0; i < B; i++) {
        float a = alpha[i / pac];
        for (int j = 0; j < w; j++) {
            size_t k = (size_t)i * w + j;
            out[k] = a * real[k] + (1.0f - a) * fake[k];
        }
    }
}
static void cpu_gp_penalty(gen_backend *be, float *pen, float *U, const float *G, int n,
                           int width, float lambda) {
    (void)be;
    double tot = 0;
    for (int g = 0; g < n; g++) {
        const float *row = G + (size_t)g * width;
        double ss = 0;
        for (int j = 0; j < width; j++) ss += (double)row[j] * row[j];
        double norm = sqrt(ss);
        tot += (norm - 1) * (norm - 1);
        double coef = norm > 0 ? 2.0 * lambda / n * (norm - 1) / norm : 0.0;
        for (int j = 0; j < width; j++) U[(size_t)g * width + j] = (float)(coef * row[j]);
    }
    pen[0] = (float)(lambda * tot / n);
}

/* ---- TVAE pieces ---------------------------------------------------------------------------- */
static void reparam_fwd_range(float *restrict z, float *restrict std, const float *restrict mu,
                              const float *restrict logvar, const float *restrict eps, size_t lo,
                              size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        std[i] = expf(0.5f * logvar[i]);
        z[i] = mu[i] + eps[i] * std[i];
    }
}
static void cpu_reparam_forward(gen_backend *be, float *z, float *std, const float *mu,
                                const float *logvar, const float *eps, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, reparam_fwd_range(z, std, mu, logvar, eps, lo, hi));
}
static GEN_KERNEL void reparam_bwd_range(float *restrict dmu, float *restrict dlogvar,
                                         const float *restrict dz, const float *restrict eps,
                                         const float *restrict std, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        dmu[i] += dz[i];
        dlogvar[i] += dz[i] * eps[i] * std[i] * 0.5f;
    }
}
static void cpu_reparam_backward(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                                 const float *eps, const float *std, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, reparam_bwd_range(dmu, dlogvar, dz, eps, std, lo, hi));
}

/* Per-thread partial sums, added in thread order: the total is the same for a given thread
 * count (the gradients never depend on it). */
#define GEN_MAX_PARTS 256

static double kl_range(float *dmu, float *dlogvar, const float *mu, const float *logvar,
                       float scale, size_t lo, size_t hi) {
    double tot = 0;
    for (size_t i = lo; i < hi; i++) {
        float ev = expf(logvar[i]);
        tot += 1.0 + logvar[i] - (double)mu[i] * mu[i] - ev;
        if (dmu) dmu[i] += scale * mu[i];
        if (dlogvar) dlogvar[i] += scale * 0.5f * (ev - 1.0f);
    }
    return tot;
}
static void cpu_kl_normal(gen_backend *be, float *loss, float *dmu, float *dlogvar,
                          const float *mu, const float *logvar, size_t n, float scale) {
    (void)be;
    double part[GEN_MAX_PARTS] = {0};
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE(n, {
        if (gen_t_ < (size_t)nt) part[gen_t_] = kl_range(dmu, dlogvar, mu, logvar, scale, lo, hi);
    });
    double tot = 0;
    for (int t = 0; t < nt; t++) tot += part[t];
    if (loss) loss[0] = (float)(-0.5 * tot * scale);
}

/* Cross entropy of rows [lo, hi) over the softmax spans; returns the summed loss. */
static double recon_softmax_rows(float *dr, const float *r, int ldr, const float *x, int D,
                                 const gen_recon_span *spans, int nspans, float scale, int lo,
                                 int hi) {
    double tot = 0;
    for (int b = lo; b < hi; b++) {
        for (int s = 0; s < nspans; s++) {
            const gen_recon_span *sp = &spans[s];
            if (!sp->softmax) continue;
            const float *rr = r + (size_t)b * ldr + sp->r_start, *xr = x + (size_t)b * D + sp->start;
            int tgt = 0;
            for (int j = 1; j < sp->len; j++)
                if (xr[j] > xr[tgt]) tgt = j;
            float mx = rr[0];
            for (int j = 1; j < sp->len; j++) mx = rr[j] > mx ? rr[j] : mx;
            float z = 0.0f;
            for (int j = 0; j < sp->len; j++) z += expf(rr[j] - mx);
            float lse = mx + logf(z);
            tot += lse - rr[tgt];
            if (dr) {
                float *d = dr + (size_t)b * ldr + sp->r_start;
                for (int j = 0; j < sp->len; j++) d[j] += scale * expf(rr[j] - lse);
                d[tgt] -= scale;
            }
        }
    }
    return tot;
}

/* The slot of row xr's continuous column whose alpha is at x position j: the first argmax of
 * the one-hot that follows it. */
static int recon_slot(const float *xr, int j, int modes) {
    int k = 0;
    for (int i = 1; i < modes; i++)
        if (xr[j + 1 + i] > xr[j + 1 + k]) k = i;
    return k;
}

static void cpu_tvae_recon(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                           int ldr, const float *x, const float *sigma, int B, int D,
                           const gen_recon_span *spans, int nspans, float scale) {
    (void)be;
    double tot = 0;
    for (int s = 0; s < nspans; s++) { /* tanh spans: few columns, reduced over rows */
        const gen_recon_span *sp = &spans[s];
        if (sp->softmax) continue;
        for (int j = sp->start; j < sp->start + sp->len; j++) {
            double sg = sigma[j], ds = 0;
            for (int b = 0; b < B; b++) {
                const float *xr = x + (size_t)b * D;
                int jr = sp->r_start + (sp->modes > 0 ? recon_slot(xr, j, sp->modes) : j - sp->start);
                size_t i = (size_t)b * ldr + jr;
                float t = tanhf(r[i]);
                double e = xr[j] - t;
                tot += e * e / (2 * sg * sg);
                ds += -e * e / (sg * sg * sg);
                if (dr) dr[i] += scale * (float)(-e / (sg * sg)) * (1.0f - t * t);
            }
            tot += B * log(sg);
            ds += B / sg;
            if (dsigma) dsigma[j] += scale * (float)ds;
        }
    }
    double part[GEN_MAX_PARTS] = {0};
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE((size_t)B * D, {
        size_t rl = (size_t)B * gen_t_ / gen_T_, rh = (size_t)B * (gen_t_ + 1) / gen_T_;
        (void)lo; (void)hi;
        if (gen_t_ < (size_t)nt)
            part[gen_t_] = recon_softmax_rows(dr, r, ldr, x, D, spans, nspans, scale, (int)rl,
                                              (int)rh);
    });
    for (int t = 0; t < nt; t++) tot += part[t];
    if (loss) loss[0] = (float)(tot * scale);
}
static void cpu_clamp(gen_backend *be, float *x, size_t n, float lo, float hi) {
    (void)be;
    for (size_t i = 0; i < n; i++) x[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
}

/* ---- diffusion (DDPM; docs/ddpm.md) --------------------------------------------------------- */
static void cpu_silu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) out[i] = inp[i] / (1.0f + expf(-inp[i]));
}
static void cpu_silu_backward(gen_backend *be, float *dinp, const float *dout, const float *inp,
                              size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) {
        float s = 1.0f / (1.0f + expf(-inp[i]));
        dinp[i] += dout[i] * (s + inp[i] * s * (1.0f - s));
    }
}
static void cpu_timestep_embed(gen_backend *be, float *out, const int32_t *t, int B, int dim) {
    (void)be;
    int half = dim / 2;
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * dim;
        for (int i = 0; i < half; i++) {
            float f = expf(-9.210340371976184f * (float)i / (float)half); /* ln 10000 */
            float arg = (float)t[b] * f;
            o[i] = cosf(arg);
            o[half + i] = sinf(arg);
        }
        if (dim % 2) o[dim - 1] = 0.0f;
    }
}

static void cpu_label_embed(gen_backend *be, float *out, const float *emb, const int32_t *y,
                            int B, int dim) {
    (void)be;
    for (int b = 0; b < B; b++) /* a hidden label (y < 0) embeds as zeros */
        if (y[b] < 0) memset(out + (size_t)b * dim, 0, (size_t)dim * sizeof(float));
        else memcpy(out + (size_t)b * dim, emb + (size_t)y[b] * dim, (size_t)dim * sizeof(float));
}
static void cpu_label_embed_backward(gen_backend *be, float *demb, const float *dout,
                                     const int32_t *y, int B, int K, int dim) {
    (void)be; (void)K;
    for (int b = 0; b < B; b++) {
        if (y[b] < 0) continue; /* a hidden label has no row of emb */
        float *d = demb + (size_t)y[b] * dim;
        const float *g = dout + (size_t)b * dim;
        for (int j = 0; j < dim; j++) d[j] += g[j];
    }
}
static void cpu_ema_update(gen_backend *be, float *ema, const float *x, size_t n, float decay) {
    (void)be;
    float keep = decay, take = 1.0f - decay;
    for (size_t i = 0; i < n; i++) ema[i] = keep * ema[i] + take * x[i];
}

/* DDPM sampling (backend.h, docs/ddpm.md §5): rows in parallel; every draw is a pure
 * function of its element's index, so the bytes do not depend on the thread count. */
static void cpu_ddpm_sample_init(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                                 const gen_act_span *spans, int nspans, uint64_t seed,
                                 uint64_t stream, uint64_t offset, uint64_t e0) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR((size_t)B * D)
    for (int b = 0; b < B; b++) {
        size_t r0 = (size_t)b * D;
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            float *xs = x + r0 + sp->start;
            if (!sp->softmax) {
                for (int j = 0; j < sp->len; j++)
                    xs[j] = gen_philox_normal_at(seed, stream, offset, e0 + r0 + sp->start + j);
                continue;
            }
            int pick = gen_ddpm_init_cat(seed, stream, offset, e0 + r0 + sp->start, sp->len);
            for (int k = 0; k < sp->len; k++) xs[k] = k == pick ? 1.0f : 0.0f;
        }
        if (t) t[b] = tnext;
    }
}
static void cpu_ddpm_reverse_step(gen_backend *be, float *xout, int32_t *t, int tnext,
                                  const float *xt, const float *eps, int B, int D,
                                  const gen_act_span *spans, int nspans, gen_ddpm_step st,
                                  uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0) {
    offset += cpu_rng_base(be);
    double a = st.abar_t / st.abar_s, c = st.abar_s;
    int maxk = 1;
    for (int s = 0; s < nspans; s++)
        if (spans[s].softmax && spans[s].len > maxk) maxk = spans[s].len;
    _Pragma("omp parallel if ((size_t)B * D >= 16384) num_threads(be->threads)") {
        double *e = malloc((size_t)maxk * sizeof(double)); /* NULL: recomputed, same values */
        _Pragma("omp for schedule(static)")
        for (int b = 0; b < B; b++) {
            size_t r0 = (size_t)b * D;
            for (int s = 0; s < nspans; s++) {
                const gen_act_span *sp = &spans[s];
                size_t o = r0 + sp->start;
                if (!sp->softmax) {
                    for (int j = 0; j < sp->len; j++) {
                        double z = (st.ancestral || st.sigma > 0) && !st.last
                                       ? gen_philox_normal_at(seed, stream, offset, e0 + o + j)
                                       : 0.0;
                        xout[o + j] = gen_ddpm_gauss_step(xt[o + j], eps[o + j], st.abar_t,
                                                          st.abar_s, st.alpha_t, st.ancestral,
                                                          st.last, st.sigma, z);
                    }
                    continue;
                }
                int K = sp->len;
                int pick = gen_ddpm_mn_draw(xt + o, eps + o, K, a, c,
                                            gen_ddpm_u(seed, stream, offset, e0 + o), e);
                for (int k = 0; k < K; k++) xout[o + k] = k == pick ? 1.0f : 0.0f;
            }
            if (t) t[b] = tnext;
        }
        free(e);
    }
}

/* The multinomial part of ddpm_loss for rows [lo, hi): returns the summed KL. */
static double ddpm_mn_rows(float *dout, const float *out, const float *x0, const float *xt,
                           const float *coef, int D, const gen_act_span *spans, int nspans,
                           float mscale, int lo, int hi) {
    double tot = 0, sm[GEN_DDPM_MAXK], q[GEN_DDPM_MAXK], pp[GEN_DDPM_MAXK], x0d[GEN_DDPM_MAXK];
    for (int b = lo; b < hi; b++) {
        double a = coef[2 * b], c = coef[2 * b + 1];
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            if (!sp->softmax) continue;
            int K = sp->len;
            GEN_ASSERT(K <= GEN_DDPM_MAXK);
            size_t o0 = (size_t)b * D + sp->start;
            const float *r = out + o0;
            double mx = r[0], z = 0;
            for (int k = 1; k < K; k++) mx = r[k] > mx ? r[k] : mx;
            for (int k = 0; k < K; k++) z += exp(r[k] - mx);
            for (int k = 0; k < K; k++) {
                sm[k] = exp(r[k] - mx) / z;
                x0d[k] = x0[o0 + k];
            }
            gen_mn_posterior(q, xt + o0, x0d, K, a, c);
            gen_mn_posterior(pp, xt + o0, sm, K, a, c);
            double kl = 0, e = (1.0 - c) / K, acc = 0;
            for (int k = 0; k < K; k++)
                if (q[k] > 0) kl += q[k] * (log(q[k]) - log(pp[k] > 1e-300 ? pp[k] : 1e-300));
            tot += kl;
            if (!dout) continue;
            /* d KL / d logit_i = (p_i - q_i) r_i - s_i sum_j (p_j - q_j) r_j, r = c s / (c s + e) */
            for (int k = 0; k < K; k++) {
                double den = c * sm[k] + e;
                double rk = den > 0 ? c * sm[k] / den : 1.0;
                x0d[k] = (pp[k] - q[k]) * rk;
                acc += x0d[k];
            }
            for (int k = 0; k < K; k++) dout[o0 + k] += mscale * (float)(x0d[k] - sm[k] * acc);
        }
    }
    return tot;
}

static void cpu_ddpm_loss(gen_backend *be, float *loss, float *dout, const float *out,
                          const float *x0, const float *xt, const float *noise, const float *coef,
                          int B, int D, const gen_act_span *spans, int nspans, float gscale,
                          float mscale) {
    double g = 0;
    for (int b = 0; b < B; b++)
        for (int s = 0; s < nspans; s++) {
            if (spans[s].softmax) continue;
            for (int j = spans[s].start; j < spans[s].start + spans[s].len; j++) {
                size_t i = (size_t)b * D + j;
                double e = (double)out[i] - noise[i];
                g += e * e;
                if (dout) dout[i] += gscale * 2.0f * (float)e;
            }
        }
    double part[GEN_MAX_PARTS] = {0}, m = 0;
    int nt = be->threads < GEN_MAX_PARTS ? be->threads : GEN_MAX_PARTS;
    GEN_PARALLEL_RANGE((size_t)B * D, {
        size_t rl = (size_t)B * gen_t_ / gen_T_, rh = (size_t)B * (gen_t_ + 1) / gen_T_;
        (void)lo; (void)hi;
        if (gen_t_ < (size_t)nt)
            part[gen_t_] = ddpm_mn_rows(dout, out, x0, xt, coef, D, spans, nspans, mscale, (int)rl, (int)rh);
    });
    for (int t = 0; t < nt; t++) m += part[t];
    if (loss) {
        loss[0] = (float)(g * gscale);
        loss[1] = (float)(m * mscale);
    }
}
static void cpu_scale(gen_backend *be, float *x, size_t n, float s) {
    (void)be;
    for (size_t i = 0; i < n; i++) x[i] *= s;
}

/* ---- Adam ----------------------------------------------------------------------------------- */
static GEN_KERNEL void adam_range(float *restrict param, const float *restrict grad,
                                  float *restrict m, float *restrict v, float lr_t, float beta1,
                                  float beta2, float eps, float wd, float isbc2, size_t lo,
                                  size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        float g = grad[i] + wd * param[i];
        m[i] = beta1 * m[i] + (1.0f - beta1) * g;
        v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
        param[i] -= lr_t * m[i] / (sqrtf(v[i]) * isbc2 + eps);
    }
}

static void cpu_adam(gen_backend *be, float *param, const float *grad, float *m, float *v,
                     size_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                     int64_t t) {
    (void)be;
    double bc1 = 1.0 - pow(beta1, (double)t), bc2 = 1.0 - pow(beta2, (double)t);
    float step = (float)(lr / bc1);
    float isbc2 = (float)(1.0 / sqrt(bc2));
    GEN_PARALLEL_RANGE(n, adam_range(param, grad, m, v, step, beta1, beta2, eps, weight_decay,
                                     isbc2, lo, hi));
}

/* ---- device step state (backend.h; on the CPU "backend memory" is host memory) ------------- */
static void cpu_adam_dev(gen_backend *be, float *param, const float *grad, float *m, float *v,
                         size_t n, float lr, float beta1, float beta2, float eps,
                         float weight_decay, const int64_t *t0, int64_t dt,
                         const gen_amp *amp) {
    if (amp && amp->skip) return;
    cpu_adam(be, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, *t0 + dt);
}

/* TF1's Adam behind a device gate (backend.h adam_tf1_gated): the update adam makes at step
 * k with eps / sqrt(1 - beta2^k) */
static void cpu_adam_tf1_gated(gen_backend *be, float *param, const float *grad, float *m,
                               float *v, size_t n, float lr, float beta1, float beta2, float eps,
                               int64_t *t, const double *gate, int ngate, double threshold) {
    if (gate) {
        double s = 0;
        for (int i = 0; i < ngate; i++) s += gate[i];
        if (!(s > threshold)) return;
    }
    int64_t k = *t + 1;
    double bc2 = 1.0 - pow(beta2, (double)k);
    cpu_adam(be, param, grad, m, v, n, lr, beta1, beta2, (float)(eps / sqrt(bc2)), 0.0f, k);
    *t = k;
}

/* ---- loss scaling (backend.h gen_amp) ------------------------------------------------------ */
static void cpu_amp_scale(gen_backend *be, float *x, size_t n, const gen_amp *amp) {
    float s = amp->scale;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i++) x[i] *= s;
}
static void cpu_amp_unscale(gen_backend *be, float *g, size_t n, gen_amp *amp) {
    amp->steps++;
    int bad = amp->inject_at > 0 && amp->steps == amp->inject_at;
    for (size_t i = 0; i < n && !bad; i++)
        if (!isfinite(g[i])) bad = 1;
    amp->skip = bad;
    amp->inv = 1.0f / amp->scale; /* a power of two: exact */
    if (bad) {
        memset(g, 0, n * sizeof *g);
        amp->scale = amp->scale * 0.5f < GEN_AMP_MIN_SCALE ? GEN_AMP_MIN_SCALE : amp->scale * 0.5f;
        amp->good = 0;
        amp->skipped++;
        return;
    }
    float inv = amp->inv;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i++) g[i] *= inv;
    if (++amp->good >= amp->interval) {
        amp->scale *= 2.0f;
        amp->good = 0;
    }
}
static void cpu_select_block(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                             const gen_step_state *st) {
    (void)be;
    memcpy(dst, src + (size_t)st->k * n, n * sizeof(int32_t));
}
static void cpu_step_advance(gen_backend *be, gen_step_state *st, gen_step_state d) {
    (void)be;
    st->rng += d.rng;
    st->t[0] += d.t[0];
    st->t[1] += d.t[1];
    st->k += d.k;
}

/* ---- random fills --------------------------------------------------------------------------- */
static void cpu_fill_normal(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                            uint64_t offset) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) { /* one Philox block gives four normals (two pairs) */
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        float z[4];
        for (int p = 0; p < 2; p++) {
            float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
            float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
            z[2 * p] = rad * cosf(th);
            z[2 * p + 1] = rad * sinf(th);
        }
        for (size_t k = 0; k < 4 && i + k < n; k++) x[i + k] = z[k];
    }
}
static void cpu_fill_uniform(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                             uint64_t offset) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) {
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        for (size_t k = 0; k < 4 && i + k < n; k++) x[i + k] = gen_u32_to_unit(r.v[k]);
    }
}
static int cpu_any_nonfinite(gen_backend *be, const float *x, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 1;
    return 0;
}

static void cpu_destroy(gen_backend *be) { free(be); }

static void *cpu_host_alloc(gen_backend *be, size_t bytes) {
    (void)be;
    return malloc(bytes ? bytes : 1);
}

static void cpu_host_free(gen_backend *be, void *p) {
    (void)be;
    free(p);
}

static void cpu_thread_attach(gen_backend *be) {
    (void)be;
    openblas_set_num_threads(1); /* per calling thread in OpenBLAS's OpenMP build */
}

static const gen_backend_ops cpu_ops = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .zero = cpu_zero,
    .copy2d = cpu_copy2d,
    .gemm = cpu_gemm,
    .linear_forward = cpu_linear_forward,
    .linear_backward = cpu_linear_backward,
    .host_memory = 1,
    .gather_rows = cpu_gather_rows,
    .onehot_rows = cpu_onehot_rows,
    .accumulate = cpu_accumulate,
    .to_half = cpu_to_half,
    .linear_forward_h = cpu_linear_forward_h,
    .linear_backward_h = cpu_linear_backward_h,
    .relu_forward_h = cpu_relu_forward_h,
    .relu_backward_h = cpu_relu_backward_h,
    .relu_forward = cpu_relu_forward,
    .relu_backward = cpu_relu_backward,
    .leaky_relu_forward = cpu_leaky_relu_forward,
    .leaky_relu_backward = cpu_leaky_relu_backward,
    .dropout_forward = cpu_dropout_forward,
    .mul = cpu_mul,
    .mul_acc = cpu_mul_acc,
    .leaky_slope_mask = cpu_leaky_slope_mask,
    .mul_rowvec = cpu_mul_rowvec,
    .sum = cpu_sum,
    .batchnorm_forward = cpu_batchnorm_forward,
    .batchnorm_forward_eval = cpu_batchnorm_forward_eval,
    .batchnorm_update_running = cpu_batchnorm_update_running,
    .batchnorm_backward = cpu_batchnorm_backward,
    .batchnorm_stats = cpu_batchnorm_stats,
    .batchnorm_apply = cpu_batchnorm_apply,
    .batchnorm_backward_sums = cpu_batchnorm_backward_sums,
    .batchnorm_backward_apply = cpu_batchnorm_backward_apply,
    .activate_forward = cpu_activate_forward,
    .activate_backward = cpu_activate_backward,
    .cross_entropy_rows = cpu_cross_entropy_rows,
    .interpolate_groups = cpu_interpolate_groups,
    .gp_penalty = cpu_gp_penalty,
    .colsum_acc = cpu_colsum_acc,
    .reparam_forward = cpu_reparam_forward,
    .reparam_backward = cpu_reparam_backward,
    .kl_normal = cpu_kl_normal,
    .tvae_recon = cpu_tvae_recon,
    .clamp = cpu_clamp,
    .silu_forward = cpu_silu_forward,
    .silu_backward = cpu_silu_backward,
    .timestep_embed = cpu_timestep_embed,
    .ddpm_loss = cpu_ddpm_loss,
    .scale = cpu_scale,
    .label_embed = cpu_label_embed,
    .label_embed_backward = cpu_label_embed_backward,
    .ema_update = cpu_ema_update,
    .ddpm_sample_init = cpu_ddpm_sample_init,
    .ddpm_reverse_step = cpu_ddpm_reverse_step,
    .sigmoid_forward = gen_cpu_sigmoid_forward,
    .sigmoid_backward = gen_cpu_sigmoid_backward,
    .gru_forward = gen_cpu_gru_forward,
    .gru_backward = gen_cpu_gru_backward,
    .adam = cpu_adam,
    .fill_normal = cpu_fill_normal,
    .fill_uniform = cpu_fill_uniform,
    .any_nonfinite = cpu_any_nonfinite,
    .destroy = cpu_destroy,
    .thread_attach = cpu_thread_attach,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .adam_dev = cpu_adam_dev,
    .amp_scale = cpu_amp_scale,
    .amp_unscale = cpu_amp_unscale,
    .select_block = cpu_select_block,
    .step_advance = cpu_step_advance,
    .mse_loss = gen_cpu_mse_loss,
    .bce_logits = gen_cpu_bce_logits,
    .moments_loss = gen_cpu_moments_loss,
    .adam_tf1_gated = cpu_adam_tf1_gated,
    .take_rows = gen_cpu_take_rows,
};

genesis_status gen_backend_cpu_create(genesis_ctx *ctx, int threads, gen_backend **out) {
    gen_backend *be = calloc(1, sizeof *be);
    GEN_RETURN_IF(!be, ctx, GENESIS_ERR_NOMEM, "out of memory creating the CPU backend");
    be->ops = &cpu_ops;
    be->ctx = ctx;
    be->threads = threads > 0 ? threads : gen_ctx_threads(ctx);
    openblas_set_num_threads(1); /* cpu_gemm threads over fixed tiles itself */
    *out = be;
    return GENESIS_OK;
}

void gen_backend_free(gen_backend *be) {
    if (be) be->ops->destroy(be);
}
