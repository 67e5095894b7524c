/*
 * gru.c — the CPU backend's `gru` family (backend.h): the GRU and sigmoid operations of
 * gen_backend_ops (TimeGAN, docs/algorithms.md §S2): the reset-after GRU cell of cuDNN's
 * CUDNN_GRU and PyTorch's nn.GRU (Cho et al. 2014, arXiv 1406.1078v1 ordering: the reset
 * gate scales the recurrent projection AFTER the matmul), separate input and recurrent
 * biases, gate order r, z, n. Layout and equations: backend.h; derivation of the forward and
 * backward-through-time passes: docs/layers.md ("GRU"); why the loops are shaped this way:
 * docs/timegan.md §9 and §10.
 *
 * Every sample's recurrence depends only on its own earlier steps, so the time loop runs per
 * group of four batch rows, start to end, while that group's rows stay in the L1 cache:
 * per step, the input and recurrent products of all three gates are two calls of one small
 * register-blocked kernel (mm_rows: 4 rows x 24 columns of accumulators, AVX2 + FMA where the
 * CPU has them, else plain loops), then the gate arithmetic of the four rows at once. Threads
 * take whole row groups, so each row's arithmetic is the same whatever the thread count.
 * Backward runs per chunk of 16 rows, row group by row group (the gradient reaching h_{t-1}
 * and dx per step); right after a group, while its G is in cache, its weight and bias
 * gradients are added into the chunk's partial sums (wg_run: register-blocked, k in order),
 * and the chunks' partials are added to dW and db in chunk order at the end. Threads take
 * whole chunks: the sums' order does not depend on the threads either. Equal lengths only
 * (every sample runs T steps).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define GEN_GRU_X86 1
#endif

/* exp without libm calls, so that the gate loops vectorise: Cody-Waite range reduction
 * x = n ln2 + r, |r| <= ln2/2, then a degree-7 Taylor polynomial (truncation ~5e-9
 * relative) scaled by 2^n built in the exponent bits. Input clamped to [-87, 88]: the
 * result stays a normal float (tanh and sigmoid saturate long before). Measured against
 * expf: within 2 ulp over [-87, 88] (tests/test_gru_grad.c). */
static inline float fast_expf(float x) {
    x = x < -87.0f ? -87.0f : x; /* ternaries, not fminf: they inline and vectorise */
    x = x > 88.0f ? 88.0f : x;
    /* round to nearest: t = 1.5 * 2^23 + n, whose low mantissa bits hold n */
    float t = x * 1.44269504088896341f + 12582912.0f;
    float n = t - 12582912.0f;
    float r = x - n * 0.693145751953125f;
    r = r - n * 1.42860682030941723212e-6f;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    /* 2^n from t's bits (0x4B400000 + n): integer arithmetic on bits, so a NaN x (which
     * the clamps above let through) gives a NaN result, not a float-to-int conversion of
     * NaN, which C leaves undefined */
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint32_t e = (tb - 0x4B400000u + 127u) << 23;
    float sc;
    memcpy(&sc, &e, sizeof sc);
    return p * sc;
}
static inline float sigm(float x) { return 1.0f / (1.0f + fast_expf(-x)); }
/* Per-row kernels with restrict pointers, compiled for AVX2 and the baseline (the same
 * scheme as backend_cpu.c's element-wise kernels). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_GRU_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define GEN_GRU_KERNEL
#endif
static inline float fast_tanhf(float x) { return 1.0f - 2.0f / (fast_expf(2.0f * x) + 1.0f); }

static int have_avx2_fma(void);
#ifdef GEN_GRU_X86
static float expf_avx2(float x);
#endif
/* the exp the gates use on this CPU (the AVX2 form where fwd_row_avx2 runs) */
float gen_cpu_expf(float x) {
#ifdef GEN_GRU_X86
    if (have_avx2_fma()) return expf_avx2(x);
#endif
    return fast_expf(x);
}

static GEN_GRU_KERNEL void sigmoid_range(float *restrict out, const float *restrict inp, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = sigm(inp[i]);
}

void gen_cpu_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    sigmoid_range(out, inp, n);
}

void gen_cpu_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) dinp[i] += dout[i] * out[i] * (1.0f - out[i]);
}


/* ---- the small products: out[r][0:P) = sum_k a_r[k] Bm[k][0:P) for R <= 4 rows ------------ */

enum { MM_R = 4, MM_W = 24 }; /* rows and columns of one register block */
#define MM_PAD(n) (((n) + MM_W - 1) / MM_W * MM_W)

/* Bm (K x P, P a multiple of MM_W, 32-byte aligned), out rows ld P, a_r any K floats. k runs
 * 0..K-1 in order, one multiply-add each, except that [ks0, ks1) is skipped when ks0 > 0
 * (rows of Bm that are zero: skipping a product by zero leaves the sum as it was): the same
 * sums for every R and thread. This plain
 * form serves CPUs without AVX2 and FMA; the FMA path below rounds once per multiply-add
 * instead of twice, so the two give slightly different bytes (each the same on every run). */
#define MM_NEXT(k) ((k) + 1 == ks0 ? ks1 : (k) + 1)
static void mm_rows_plain(int R, float *restrict out, const float *const *a, const float *restrict Bm,
                          int K, int P, int ks0, int ks1) {
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * P;
        for (int j = 0; j < P; j++) o[j] = 0.0f;
        for (int k = 0; k < K; k = MM_NEXT(k)) {
            float ak = a[r][k];
            const float *bk = Bm + (size_t)k * P;
            for (int j = 0; j < P; j++) o[j] += ak * bk[j];
        }
    }
}

#ifdef GEN_GRU_X86
/* The same sums with AVX2 FMA: 4 rows x 24 columns of accumulators (12 registers) per
 * block, each k one broadcast per row and three loads of Bm shared by the four rows. The
 * skipped range splits k into two plain loops (k in order). */
#define MM4_K(k)                                                                               \
    do {                                                                                       \
        const float *bk = b + (size_t)(k) * P;                                                 \
        __m256 b0 = _mm256_load_ps(bk), b1 = _mm256_load_ps(bk + 8),                           \
               b2 = _mm256_load_ps(bk + 16);                                                   \
        __m256 x = _mm256_broadcast_ss(a0 + (k));                                              \
        c00 = _mm256_fmadd_ps(x, b0, c00); c01 = _mm256_fmadd_ps(x, b1, c01);                  \
        c02 = _mm256_fmadd_ps(x, b2, c02);                                                     \
        x = _mm256_broadcast_ss(a1 + (k));                                                     \
        c10 = _mm256_fmadd_ps(x, b0, c10); c11 = _mm256_fmadd_ps(x, b1, c11);                  \
        c12 = _mm256_fmadd_ps(x, b2, c12);                                                     \
        x = _mm256_broadcast_ss(a2 + (k));                                                     \
        c20 = _mm256_fmadd_ps(x, b0, c20); c21 = _mm256_fmadd_ps(x, b1, c21);                  \
        c22 = _mm256_fmadd_ps(x, b2, c22);                                                     \
        x = _mm256_broadcast_ss(a3 + (k));                                                     \
        c30 = _mm256_fmadd_ps(x, b0, c30); c31 = _mm256_fmadd_ps(x, b1, c31);                  \
        c32 = _mm256_fmadd_ps(x, b2, c32);                                                     \
    } while (0)
#define MM1_K(k)                                                                               \
    do {                                                                                       \
        const float *bk = b + (size_t)(k) * P;                                                 \
        __m256 x = _mm256_broadcast_ss(ar + (k));                                              \
        c0 = _mm256_fmadd_ps(x, _mm256_load_ps(bk), c0);                                       \
        c1 = _mm256_fmadd_ps(x, _mm256_load_ps(bk + 8), c1);                                   \
        c2 = _mm256_fmadd_ps(x, _mm256_load_ps(bk + 16), c2);                                  \
    } while (0)
__attribute__((target("avx2,fma"))) static void mm_rows_avx2(int R, float *restrict out,
                                                              const float *const *a,
                                                              const float *restrict Bm, int K,
                                                              int P, int ks0, int ks1) {
    int k1 = ks0 > 0 ? ks0 : K, k2 = ks0 > 0 ? ks1 : K; /* k in [0, k1) and [k2, K) */
    for (int j0 = 0; j0 < P; j0 += MM_W) {
        const float *b = Bm + j0;
        if (R == MM_R) {
            __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00,
                   c12 = c00, c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
            const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
            for (int k = 0; k < k1; k++) MM4_K(k);
            for (int k = k2; k < K; k++) MM4_K(k);
            float *o = out + j0;
            _mm256_store_ps(o, c00); _mm256_store_ps(o + 8, c01); _mm256_store_ps(o + 16, c02);
            o += P;
            _mm256_store_ps(o, c10); _mm256_store_ps(o + 8, c11); _mm256_store_ps(o + 16, c12);
            o += P;
            _mm256_store_ps(o, c20); _mm256_store_ps(o + 8, c21); _mm256_store_ps(o + 16, c22);
            o += P;
            _mm256_store_ps(o, c30); _mm256_store_ps(o + 8, c31); _mm256_store_ps(o + 16, c32);
        } else {
            for (int r = 0; r < R; r++) {
                __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0;
                const float *ar = a[r];
                for (int k = 0; k < k1; k++) MM1_K(k);
                for (int k = k2; k < K; k++) MM1_K(k);
                float *o = out + (size_t)r * P + j0;
                _mm256_store_ps(o, c0); _mm256_store_ps(o + 8, c1); _mm256_store_ps(o + 16, c2);
            }
        }
    }
}
#undef MM4_K
#undef MM1_K

/* fast_expf, eight lanes, with FMA: max/min keep a NaN (they return their second operand
 * when one is NaN), so it propagates as in the scalar form. */
__attribute__((target("avx2,fma"))) static inline __m256 exp8(__m256 x) {
    x = _mm256_max_ps(_mm256_set1_ps(-87.0f), x);
    x = _mm256_min_ps(_mm256_set1_ps(88.0f), x);
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
    __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860682030941723212e-6f), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(127 - 0x4B400000)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
__attribute__((target("avx2,fma"))) static inline __m256 sigm8(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}
__attribute__((target("avx2,fma"))) static inline __m256 tanh8(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    return _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(exp8(_mm256_mul_ps(two, x)), one)));
}
__attribute__((target("avx2,fma"))) static float expf_avx2(float x) {
    return _mm256_cvtss_f32(exp8(_mm256_set1_ps(x)));
}

/* One block of eight units of fwd_row (below), each lane's r, z, n and h_t in registers. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
fwd_unit8(float *restrict yt, float *restrict s, const float *restrict gi,
          const float *restrict gh, const float *restrict hp, const float *restrict b, int H,
          int j) {
    const float *bh = b + 3 * H;
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 ar = _mm256_add_ps(_mm256_loadu_ps(gi + j), _mm256_loadu_ps(b + j));
    __m256 az = _mm256_add_ps(_mm256_loadu_ps(gi + H + j), _mm256_loadu_ps(b + H + j));
    __m256 hn = _mm256_loadu_ps(bh + 2 * H + j);
    if (gh) {
        ar = _mm256_add_ps(ar, _mm256_add_ps(_mm256_loadu_ps(gh + j), _mm256_loadu_ps(bh + j)));
        az = _mm256_add_ps(az, _mm256_add_ps(_mm256_loadu_ps(gh + H + j),
                                             _mm256_loadu_ps(bh + H + j)));
        hn = _mm256_add_ps(_mm256_loadu_ps(gh + 2 * H + j), hn);
    } else {
        ar = _mm256_add_ps(ar, _mm256_loadu_ps(bh + j));
        az = _mm256_add_ps(az, _mm256_loadu_ps(bh + H + j));
    }
    __m256 r = sigm8(ar), z = sigm8(az);
    __m256 an = _mm256_add_ps(_mm256_loadu_ps(gi + 2 * H + j), _mm256_loadu_ps(b + 2 * H + j));
    __m256 n = tanh8(_mm256_fmadd_ps(r, hn, an));
    __m256 y = _mm256_mul_ps(_mm256_sub_ps(one, z), n);
    if (hp) y = _mm256_fmadd_ps(z, _mm256_loadu_ps(hp + j), y);
    _mm256_storeu_ps(s + j, r);
    _mm256_storeu_ps(s + H + j, z);
    _mm256_storeu_ps(s + 2 * H + j, hn);
    _mm256_storeu_ps(s + 3 * H + j, n);
    _mm256_storeu_ps(yt + j, y);
}

/* fwd_row (below) for H a multiple of 8. */
__attribute__((target("avx2,fma"))) static void fwd_row_avx2(float *restrict yt,
                                                              float *restrict s,
                                                              const float *restrict gi,
                                                              const float *restrict gh,
                                                              const float *restrict hp,
                                                              const float *restrict b, int H) {
    for (int j = 0; j < H; j += 8) fwd_unit8(yt, s, gi, gh, hp, b, H, j);
}

/* exp8 on four vectors, operation by operation: the four chains of dependent operations are
 * interleaved in the instruction stream, so the core overlaps their latencies (one exp8 is
 * ~15 dependent operations; the reorder window holds few such chains otherwise). Each lane
 * sees exactly exp8's operations: the same bytes. */
__attribute__((target("avx2,fma"), always_inline)) static inline void exp8x4(__m256 *x) {
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 t[4], n[4], r[4], p[4];
#define X4(stmt) do { for (int i = 0; i < 4; i++) { stmt; } } while (0)
    X4(x[i] = _mm256_max_ps(_mm256_set1_ps(-87.0f), x[i]));
    X4(x[i] = _mm256_min_ps(_mm256_set1_ps(88.0f), x[i]));
    X4(t[i] = _mm256_fmadd_ps(x[i], _mm256_set1_ps(1.44269504088896341f), magic));
    X4(n[i] = _mm256_sub_ps(t[i], magic));
    X4(r[i] = _mm256_fnmadd_ps(n[i], _mm256_set1_ps(0.693145751953125f), x[i]));
    X4(r[i] = _mm256_fnmadd_ps(n[i], _mm256_set1_ps(1.42860682030941723212e-6f), r[i]));
    X4(p[i] = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 5040), r[i], _mm256_set1_ps(1.0f / 720)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(1.0f / 120)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(1.0f / 24)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(1.0f / 6)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(0.5f)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(1.0f)));
    X4(p[i] = _mm256_fmadd_ps(p[i], r[i], _mm256_set1_ps(1.0f)));
    X4(x[i] = _mm256_mul_ps(p[i], _mm256_castsi256_ps(_mm256_slli_epi32(
                                      _mm256_add_epi32(_mm256_castps_si256(t[i]),
                                                       _mm256_set1_epi32(127 - 0x4B400000)),
                                      23))));
}

/* fwd_unit8 for the MM_R rows of a group at once (gi, gh rows ld ldg; gh NULL at the first
 * step without h0), the rows' sigmoids and tanh through exp8x4. Every element sees
 * fwd_unit8's operations (s is stored, then z read back: exact): the same bytes. */
__attribute__((target("avx2,fma"))) static void fwd_rows4_avx2(float *const *yt, float *const *s,
                                                                const float *gi,
                                                                const float *gh, int ldg,
                                                                const float *const *hp,
                                                                const float *restrict b, int H) {
    const float *bh = b + 3 * H;
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    for (int j = 0; j < H; j += 8) {
        __m256 v[4], r[4];
        /* r = sigmoid(W_ir x + b_ir + (W_hr h + b_hr)) */
        X4(v[i] = _mm256_add_ps(_mm256_loadu_ps(gi + i * ldg + j), _mm256_loadu_ps(b + j)));
        if (gh)
            X4(v[i] = _mm256_add_ps(v[i], _mm256_add_ps(_mm256_loadu_ps(gh + i * ldg + j),
                                                         _mm256_loadu_ps(bh + j))));
        else
            X4(v[i] = _mm256_add_ps(v[i], _mm256_loadu_ps(bh + j)));
        X4(v[i] = _mm256_sub_ps(_mm256_setzero_ps(), v[i]));
        exp8x4(v);
        X4(r[i] = _mm256_div_ps(one, _mm256_add_ps(one, v[i])));
        X4(_mm256_storeu_ps(s[i] + j, r[i]));
        /* z */
        X4(v[i] = _mm256_add_ps(_mm256_loadu_ps(gi + i * ldg + H + j),
                                _mm256_loadu_ps(b + H + j)));
        if (gh)
            X4(v[i] = _mm256_add_ps(v[i], _mm256_add_ps(_mm256_loadu_ps(gh + i * ldg + H + j),
                                                         _mm256_loadu_ps(bh + H + j))));
        else
            X4(v[i] = _mm256_add_ps(v[i], _mm256_loadu_ps(bh + H + j)));
        X4(v[i] = _mm256_sub_ps(_mm256_setzero_ps(), v[i]));
        exp8x4(v);
        X4(_mm256_storeu_ps(s[i] + H + j, _mm256_div_ps(one, _mm256_add_ps(one, v[i]))));
        /* n = tanh(W_in x + b_in + r (W_hn h + b_hn)) */
        X4({
            __m256 hn = _mm256_loadu_ps(bh + 2 * H + j);
            if (gh) hn = _mm256_add_ps(_mm256_loadu_ps(gh + i * ldg + 2 * H + j), hn);
            _mm256_storeu_ps(s[i] + 2 * H + j, hn);
            __m256 an = _mm256_add_ps(_mm256_loadu_ps(gi + i * ldg + 2 * H + j),
                                      _mm256_loadu_ps(b + 2 * H + j));
            v[i] = _mm256_mul_ps(two, _mm256_fmadd_ps(r[i], hn, an));
        });
        exp8x4(v);
        X4(v[i] = _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(v[i], one))));
        /* h_t = (1 - z) n + z h_{t-1} */
        X4({
            _mm256_storeu_ps(s[i] + 3 * H + j, v[i]);
            __m256 z = _mm256_loadu_ps(s[i] + H + j);
            __m256 y = _mm256_mul_ps(_mm256_sub_ps(one, z), v[i]);
            if (hp[i]) y = _mm256_fmadd_ps(z, _mm256_loadu_ps(hp[i] + j), y);
            _mm256_storeu_ps(yt[i] + j, y);
        });
    }
}
#undef X4

#endif /* GEN_GRU_X86 */

typedef void (*mm_rows_fn)(int R, float *restrict out, const float *const *a,
                           const float *restrict Bm, int K, int P, int ks0, int ks1);

static int have_avx2_fma(void) {
#ifdef GEN_GRU_X86
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static mm_rows_fn mm_rows_pick(void) {
#ifdef GEN_GRU_X86
    if (have_avx2_fma()) return mm_rows_avx2;
#endif
    return mm_rows_plain;
}

/* ---- per-call scratch: packed weights and one block of temporaries per thread ------------ */

typedef struct gru_pack {
    float *mem;
    float *WiT, *WhT; /* forward: (C x P3), (H x P3) = W_ih^T, W_hh^T, columns r | z | n */
    float *WiG, *WhG; /* backward: (4H x PC) = [W_ir; W_iz; 0; W_in], (3H x PH) = W_hh */
    float *tmp;       /* per thread: 2 blocks of MM_R rows x max(P3, PC, PH) */
    int P3, PC, PH, tw;
} gru_pack;

static int gru_pack_make(gru_pack *p, const float *W, int C, int H, int threads, int backward) {
    memset(p, 0, sizeof *p);
    const int H3 = 3 * H;
    p->P3 = MM_PAD(H3);
    p->PC = MM_PAD(C > 0 ? C : 1);
    p->PH = MM_PAD(H);
    p->tw = p->P3 > p->PC ? p->P3 : p->PC;
    if (p->PH > p->tw) p->tw = p->PH;
    size_t nf = backward ? (size_t)4 * H * p->PC + (size_t)H3 * p->PH
                         : (size_t)(C > 0 ? C : 0) * p->P3 + (size_t)H * p->P3;
    size_t nt = (size_t)threads * 2 * MM_R * p->tw;
    size_t bytes = (nf + nt) * sizeof(float);
    p->mem = aligned_alloc(32, (bytes + 31) / 32 * 32);
    if (!p->mem) return 0;
    memset(p->mem, 0, (bytes + 31) / 32 * 32);
    const float *Wh = W + (size_t)H3 * C;
    float *q = p->mem;
    if (backward) {
        p->WiG = q; q += (size_t)4 * H * p->PC;
        p->WhG = q; q += (size_t)H3 * p->PH;
        for (int g = 0; g < 4; g++) { /* rows of G = [dR, dZ, q, dN]: W_ir, W_iz, 0, W_in */
            if (g == 2) continue;
            int src = g == 3 ? 2 : g;
            for (int j = 0; j < H; j++)
                memcpy(p->WiG + ((size_t)g * H + j) * p->PC, W + ((size_t)src * H + j) * C,
                       (size_t)C * sizeof(float));
        }
        for (int i = 0; i < H3; i++)
            memcpy(p->WhG + (size_t)i * p->PH, Wh + (size_t)i * H, (size_t)H * sizeof(float));
    } else {
        p->WiT = q; q += (size_t)(C > 0 ? C : 0) * p->P3;
        p->WhT = q; q += (size_t)H * p->P3;
        for (int i = 0; i < H3; i++) {
            for (int k = 0; k < C; k++) p->WiT[(size_t)k * p->P3 + i] = W[(size_t)i * C + k];
            for (int k = 0; k < H; k++) p->WhT[(size_t)k * p->P3 + i] = Wh[(size_t)i * H + k];
        }
    }
    p->tmp = q;
    return 1;
}

/* ---- forward ---------------------------------------------------------------------------------- */

/* One row of step t: gi = W_ih x (r, z, n), gh = W_hh h_{t-1} (NULL: h_{t-1} = 0), b the
 * biases. save row s = r, z, W_hn h + b_hn, n; yt = (1 - z) n + z h_{t-1}. */
static GEN_GRU_KERNEL void fwd_row(float *restrict yt, float *restrict s,
                                   const float *restrict gi, const float *restrict gh,
                                   const float *restrict hp, const float *restrict b, int H) {
    const float *bh = b + 3 * H;
    if (gh) {
        for (int j = 0; j < 2 * H; j++) s[j] = sigm(gi[j] + b[j] + (gh[j] + bh[j]));
        for (int j = 0; j < H; j++) s[2 * H + j] = gh[2 * H + j] + bh[2 * H + j];
    } else {
        for (int j = 0; j < 2 * H; j++) s[j] = sigm(gi[j] + b[j] + bh[j]);
        for (int j = 0; j < H; j++) s[2 * H + j] = bh[2 * H + j];
    }
    for (int j = 0; j < H; j++)
        s[3 * H + j] = fast_tanhf(gi[2 * H + j] + b[2 * H + j] + s[j] * s[2 * H + j]);
    if (hp)
        for (int j = 0; j < H; j++)
            yt[j] = (1.0f - s[H + j]) * s[3 * H + j] + s[H + j] * hp[j];
    else
        for (int j = 0; j < H; j++) yt[j] = (1.0f - s[H + j]) * s[3 * H + j];
}

/* Prefetch n floats from p (one call per 64-byte line): the row of the next step, which the
 * hardware prefetchers miss when a group interleaves several rows' streams. */
static inline void prefetch_floats(const float *p, int n, int write) {
    for (int i = 0; i < n; i += 16) {
        if (write) __builtin_prefetch(p + i, 1, 3);
        else __builtin_prefetch(p + i, 0, 3);
    }
}

typedef void (*fwd_row_fn)(float *restrict yt, float *restrict s, const float *restrict gi,
                           const float *restrict gh, const float *restrict hp,
                           const float *restrict b, int H);

/* Rows [b0, b0 + R) through all T steps. */
static void fwd_rows(const gru_pack *p, mm_rows_fn mm, fwd_row_fn rowf, float *tmp, float *y,
                     float *save,
                     const float *x, const float *h0, const float *b, int b0, int R, int T, int C,
                     int H) {
    float *gi = tmp, *gh = tmp + (size_t)MM_R * p->tw;
    const float *xa[MM_R], *ha[MM_R];
    static const float zero = 0.0f;
    for (int t = 0; t < T; t++) {
        for (int r = 0; r < R; r++) {
            size_t row = (size_t)(b0 + r) * T + t;
            xa[r] = C > 0 ? x + row * C : &zero;
            ha[r] = t ? y + (row - 1) * H : h0 ? h0 + (size_t)(b0 + r) * H : NULL;
        }
        if (t + 1 < T)
            for (int r = 0; r < R; r++) {
                size_t row = (size_t)(b0 + r) * T + t + 1;
                if (C > 0) prefetch_floats(x + row * C, C, 0);
                prefetch_floats(save + row * 4 * H, 4 * H, 1);
                prefetch_floats(y + row * H, H, 1);
            }
        if (C > 0) mm(R, gi, xa, p->WiT, C, p->P3, 0, 0);
        else memset(gi, 0, (size_t)R * p->P3 * sizeof(float));
        int rec = ha[0] != NULL;
        if (rec) mm(R, gh, ha, p->WhT, H, p->P3, 0, 0);
#ifdef GEN_GRU_X86
        if (R == MM_R && rowf == fwd_row_avx2) {
            float *ya[MM_R], *sa[MM_R];
            for (int r = 0; r < R; r++) {
                size_t i = (size_t)(b0 + r) * T + t;
                ya[r] = y + i * H;
                sa[r] = save + i * 4 * H;
            }
            fwd_rows4_avx2(ya, sa, gi, rec ? gh : NULL, p->P3, ha, b, H);
            continue;
        }
#endif
        for (int r = 0; r < R; r++) {
            size_t i = (size_t)(b0 + r) * T + t;
            rowf(y + i * H, save + i * 4 * H, gi + (size_t)r * p->P3,
                    rec ? gh + (size_t)r * p->P3 : NULL, ha[r], b, H);
        }
    }
}

void gen_cpu_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                         const float *W, const float *b, int B, int T, int C, int H) {
    if (B <= 0 || T <= 0) return;
    int threads = be->threads > 0 ? be->threads : 1;
    gru_pack p;
    if (!gru_pack_make(&p, W, C, H, threads, 0)) {
        gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory in the GRU forward pass");
        for (size_t i = 0; i < (size_t)B * T * H; i++) y[i] = NAN; /* the caller's check trips */
        return;
    }
    mm_rows_fn mm = mm_rows_pick();
    fwd_row_fn row = fwd_row;
#ifdef GEN_GRU_X86
    if (H % 8 == 0 && have_avx2_fma()) row = fwd_row_avx2;
#endif
    int groups = (B + MM_R - 1) / MM_R;
    double work = (double)B * T * 3 * H * (C + H);
    _Pragma("omp parallel for schedule(dynamic, 1) if (groups > 1 && work >= 1e6) num_threads(threads)")
    for (int g = 0; g < groups; g++) {
        float *tmp = p.tmp + (size_t)omp_get_thread_num() * 2 * MM_R * p.tw;
        int b0 = g * MM_R, R = B - b0 < MM_R ? B - b0 : MM_R;
        if (R == MM_R) fwd_rows(&p, mm, row, tmp, y, save, x, h0, b, b0, R, T, C, H);
        else
            for (int r = 0; r < R; r++)
                fwd_rows(&p, mm, row, tmp, y, save, x, h0, b, b0 + r, 1, T, C, H);
    }
    free(p.mem);
}

/* ---- backward --------------------------------------------------------------------------------- */

/* One row of step t: dh (in) = dL/dh_t from later steps, dyt its share from the output; writes
 * G = [dR, dZ, q, dN] (pre-activation gradients; q = dN * r, the gradient of W_hn h + b_hn)
 * and dh (out) = z * delta, the direct path to h_{t-1}. */
static GEN_GRU_KERNEL void bwd_row(float *restrict G, float *restrict dh,
                                   const float *restrict s, const float *restrict dyt,
                                   const float *restrict hp, int H) {
    for (int j = 0; j < H; j++) {
        float r = s[j], z = s[H + j], hn = s[2 * H + j], n = s[3 * H + j];
        float hprev = hp ? hp[j] : 0.0f;
        float d = dh[j] + dyt[j];
        float dn = d * (1.0f - z) * (1.0f - n * n);
        G[3 * H + j] = dn;
        G[H + j] = d * (hprev - n) * z * (1.0f - z);
        G[j] = dn * hn * r * (1.0f - r);
        G[2 * H + j] = dn * r;
        dh[j] = d * z;
    }
}

#ifdef GEN_GRU_X86
/* bwd_row for the MM_R rows of a group at once (H a multiple of 8), the rows' loads and
 * arithmetic interleaved (more loads of save in flight). AVX2 without FMA, as bwd_row's AVX2
 * clone is compiled: the same multiplications and subtractions in the same order, so the
 * same bytes (FMA would let the compiler contract 1 - n n). */
__attribute__((target("avx2"))) static void bwd_rows4_avx2(float *const *G, float *dh, int ldh,
                                                            const float *const *s,
                                                            const float *const *dyt,
                                                            const float *const *hp, int H) {
    const __m256 one = _mm256_set1_ps(1.0f);
    for (int j = 0; j < H; j += 8) {
        for (int i = 0; i < 4; i++) {
            const float *si = s[i];
            __m256 r = _mm256_loadu_ps(si + j), z = _mm256_loadu_ps(si + H + j),
                   hn = _mm256_loadu_ps(si + 2 * H + j), n = _mm256_loadu_ps(si + 3 * H + j);
            __m256 hprev = hp[i] ? _mm256_loadu_ps(hp[i] + j) : _mm256_setzero_ps();
            float *dhi = dh + (size_t)i * ldh + j;
            __m256 d = _mm256_add_ps(_mm256_loadu_ps(dhi), _mm256_loadu_ps(dyt[i] + j));
            __m256 omz = _mm256_sub_ps(one, z);
            __m256 dn = _mm256_mul_ps(_mm256_mul_ps(d, omz),
                                      _mm256_sub_ps(one, _mm256_mul_ps(n, n)));
            float *g = G[i];
            _mm256_storeu_ps(g + 3 * H + j, dn);
            _mm256_storeu_ps(g + H + j,
                             _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(d, _mm256_sub_ps(hprev, n)),
                                                         z), omz));
            _mm256_storeu_ps(g + j, _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(dn, hn), r),
                                                  _mm256_sub_ps(one, r)));
            _mm256_storeu_ps(g + 2 * H + j, _mm256_mul_ps(dn, r));
            _mm256_storeu_ps(dhi, _mm256_mul_ps(d, z));
        }
    }
}
#endif

static GEN_GRU_KERNEL void add_row(float *restrict a, const float *restrict b, int n) {
    for (int j = 0; j < n; j++) a[j] += b[j];
}

/* Rows [b0, b0 + R) backward through all T steps: G of every step (Gg: the group's own R x T
 * rows, row r's step t at r T + t), dx, the final dh. */
static void bwd_rows(const gru_pack *p, mm_rows_fn mm, float *tmp, float *Gg, float *dhout,
                     float *dx, const float *dy, const float *h0, const float *y,
                     const float *save, int b0, int R, int T, int C, int H) {
#ifdef GEN_GRU_X86
    const int rows4 = H % 8 == 0 && have_avx2_fma();
#endif
    float *dh = tmp, *acc = tmp + (size_t)MM_R * p->tw; /* dh rows ld tw */
    const float *ga[MM_R];
    memset(dh, 0, (size_t)R * p->tw * sizeof(float));
    for (int t = T - 1; t >= 0; t--) {
        const float *hp[MM_R];
        if (t > 0)
            for (int r = 0; r < R; r++) {
                size_t row = (size_t)(b0 + r) * T + t - 1;
                prefetch_floats(save + row * 4 * H, 4 * H, 0);
                prefetch_floats(dy + row * H, H, 0);
                prefetch_floats(Gg + ((size_t)r * T + t - 1) * 4 * H, 4 * H, 1);
                if (t > 1) prefetch_floats(y + (row - 1) * H, H, 0);
                if (dx && C > 0) prefetch_floats(dx + row * C, C, 1);
            }
        const float *sa[MM_R], *da[MM_R];
        float *gw[MM_R];
        for (int r = 0; r < R; r++) {
            size_t row = (size_t)(b0 + r) * T + t;
            hp[r] = t ? y + (row - 1) * H : h0 ? h0 + (size_t)(b0 + r) * H : NULL;
            gw[r] = Gg + ((size_t)r * T + t) * 4 * H;
            sa[r] = save + row * 4 * H;
            da[r] = dy + row * H;
            ga[r] = gw[r];
        }
#ifdef GEN_GRU_X86
        if (R == MM_R && rows4) bwd_rows4_avx2(gw, dh, p->tw, sa, da, hp, H);
        else
#endif
            for (int r = 0; r < R; r++) bwd_row(gw[r], dh + (size_t)r * p->tw, sa[r], da[r], hp[r], H);
        if (dx && C > 0) { /* dx_t += [dR, dZ, q, dN] . [W_ir; W_iz; 0; W_in], q's zero rows skipped */
            mm(R, acc, ga, p->WiG, 4 * H, p->PC, 2 * H, 3 * H);
            for (int r = 0; r < R; r++)
                add_row(dx + ((size_t)(b0 + r) * T + t) * C, acc + (size_t)r * p->PC, C);
        }
        if (hp[0]) { /* dh_{t-1} = z delta + [dR, dZ, q] . W_hh */
            mm(R, acc, ga, p->WhG, 3 * H, p->PH, 0, 0);
            for (int r = 0; r < R; r++) add_row(dh + (size_t)r * p->tw, acc + (size_t)r * p->PH, H);
        }
    }
    for (int r = 0; r < R; r++)
        memcpy(dhout + (size_t)(b0 + r) * H, dh + (size_t)r * p->tw, (size_t)H * sizeof(float));
}

/* ---- weight gradients, one chunk of rows at a time while its G is in cache ---------------- */

/* Pw (M x ldp) (=, first; else +=) sum over k = 0..K-1 in order of G[k][col(m)] X[k][0:N),
 * col(m) = m below split, m + shift above (W_ih: [dR, dZ, dN] = columns 0..2H and 3H..4H of
 * G; W_hh: [dR, dZ, q] = 0..3H). One multiply-add per term, k in order: each element's sum
 * is the same whatever the thread count. ldp a multiple of 8; columns N..ldp get zeros. */
static void wg_run_plain(float *restrict Pw, int ldp, const float *restrict G, int ldg,
                         const float *restrict X, int ldx, int K, int M, int N, int split,
                         int shift, int first) {
    for (int m = 0; m < M; m++) {
        float *o = Pw + (size_t)m * ldp;
        const float *g = G + (m < split ? m : m + shift);
        if (first)
            for (int n = 0; n < ldp; n++) o[n] = 0.0f;
        for (int k = 0; k < K; k++) {
            float gk = g[(size_t)k * ldg];
            const float *xk = X + (size_t)k * ldx;
            for (int n = 0; n < N; n++) o[n] += gk * xk[n];
        }
    }
}

#ifdef GEN_GRU_X86
/* The same with AVX2 FMA: tiles of 4 m x 24 n in 12 registers, each k three loads of X (masked
 * at the row's end) and four broadcasts of G. */
#define WG_FMA4(x0, x1, x2)                                                                    \
    do {                                                                                       \
        __m256 a_ = _mm256_broadcast_ss(g0 + gk);                                              \
        c00 = _mm256_fmadd_ps(a_, x0, c00); c01 = _mm256_fmadd_ps(a_, x1, c01);                \
        c02 = _mm256_fmadd_ps(a_, x2, c02);                                                    \
        a_ = _mm256_broadcast_ss(g1 + gk);                                                     \
        c10 = _mm256_fmadd_ps(a_, x0, c10); c11 = _mm256_fmadd_ps(a_, x1, c11);                \
        c12 = _mm256_fmadd_ps(a_, x2, c12);                                                    \
        a_ = _mm256_broadcast_ss(g2 + gk);                                                     \
        c20 = _mm256_fmadd_ps(a_, x0, c20); c21 = _mm256_fmadd_ps(a_, x1, c21);                \
        c22 = _mm256_fmadd_ps(a_, x2, c22);                                                    \
        a_ = _mm256_broadcast_ss(g3 + gk);                                                     \
        c30 = _mm256_fmadd_ps(a_, x0, c30); c31 = _mm256_fmadd_ps(a_, x1, c31);                \
        c32 = _mm256_fmadd_ps(a_, x2, c32);                                                    \
    } while (0)
__attribute__((target("avx2,fma"))) static void wg_run_avx2(float *restrict Pw, int ldp,
                                                             const float *restrict G, int ldg,
                                                             const float *restrict X, int ldx,
                                                             int K, int M, int N, int split,
                                                             int shift, int first) {
    for (int n0 = 0; n0 < ldp; n0 += 24) {
        __m256i mk0, mk1, mk2;
        {
            const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            int l0 = N - n0, l1 = N - n0 - 8, l2 = N - n0 - 16;
            mk0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(l0 < 0 ? 0 : l0 > 8 ? 8 : l0), lane);
            mk1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(l1 < 0 ? 0 : l1 > 8 ? 8 : l1), lane);
            mk2 = _mm256_cmpgt_epi32(_mm256_set1_epi32(l2 < 0 ? 0 : l2 > 8 ? 8 : l2), lane);
        }
        int nv = (ldp - n0) / 8 < 3 ? (ldp - n0) / 8 : 3; /* vectors of Pw in this block */
        int full = N - n0 >= 24;
        for (int m0 = 0; m0 < M; m0 += 4) {
            int mr = M - m0 < 4 ? M - m0 : 4;
            const float *gp[4];
            for (int i = 0; i < 4; i++) {
                int m = m0 + (i < mr ? i : 0);
                gp[i] = G + (m < split ? m : m + shift);
            }
            const float *g0 = gp[0], *g1 = gp[1], *g2 = gp[2], *g3 = gp[3];
            __m256 acc[4][3];
            for (int i = 0; i < 4; i++)
                for (int v = 0; v < 3; v++)
                    acc[i][v] = first || i >= mr || v >= nv
                                    ? _mm256_setzero_ps()
                                    : _mm256_load_ps(Pw + (size_t)(m0 + i) * ldp + n0 + 8 * v);
            __m256 c00 = acc[0][0], c01 = acc[0][1], c02 = acc[0][2], c10 = acc[1][0],
                   c11 = acc[1][1], c12 = acc[1][2], c20 = acc[2][0], c21 = acc[2][1],
                   c22 = acc[2][2], c30 = acc[3][0], c31 = acc[3][1], c32 = acc[3][2];
            const float *xk = X + n0;
            if (full)
                for (int k = 0; k < K; k++, xk += ldx) {
                    size_t gk = (size_t)k * ldg;
                    __m256 x0 = _mm256_loadu_ps(xk), x1 = _mm256_loadu_ps(xk + 8),
                           x2 = _mm256_loadu_ps(xk + 16);
                    WG_FMA4(x0, x1, x2);
                }
            else
                for (int k = 0; k < K; k++, xk += ldx) {
                    size_t gk = (size_t)k * ldg;
                    __m256 x0 = _mm256_maskload_ps(xk, mk0), x1 = _mm256_maskload_ps(xk + 8, mk1),
                           x2 = _mm256_maskload_ps(xk + 16, mk2);
                    WG_FMA4(x0, x1, x2);
                }
            acc[0][0] = c00; acc[0][1] = c01; acc[0][2] = c02;
            acc[1][0] = c10; acc[1][1] = c11; acc[1][2] = c12;
            acc[2][0] = c20; acc[2][1] = c21; acc[2][2] = c22;
            acc[3][0] = c30; acc[3][1] = c31; acc[3][2] = c32;
            for (int i = 0; i < mr; i++)
                for (int v = 0; v < nv; v++)
                    _mm256_store_ps(Pw + (size_t)(m0 + i) * ldp + n0 + 8 * v, acc[i][v]);
        }
    }
}
#undef WG_FMA4
#endif

typedef void (*wg_run_fn)(float *restrict Pw, int ldp, const float *restrict G, int ldg,
                          const float *restrict X, int ldx, int K, int M, int N, int split,
                          int shift, int first);

enum { WG_CHUNK = 16 }; /* batch rows per partial sum of the weight gradients (fixed: the
                         * sums must not depend on the thread count) */

/* One chunk's partial sums: dW_ih (3H x PCw), dW_hh (3H x PHw), column sums of G (4H). */
typedef struct wg_part {
    float *mem;
    size_t stride; /* floats per chunk */
    int PCw, PHw;
} wg_part;

/* Rows [b0, b0 + R) (Gg: their G, just written by bwd_rows) into the chunk's partial Pc;
 * first: the chunk's first rows (Pc = instead of +=). Order per element: row by row, t
 * ascending (h0's term, when there is one, at t = 0). */
static void wg_rows(const wg_part *wp, wg_run_fn run, float *Pc, const float *Gg, const float *x,
                    const float *h0, const float *y, int b0, int R, int T, int C, int H,
                    int first) {
    const int H3 = 3 * H, H4 = 4 * H;
    float *Pi = Pc, *Ph = Pc + (size_t)H3 * wp->PCw, *Ps = Ph + (size_t)H3 * wp->PHw;
    const size_t r0 = (size_t)b0 * T;
    /* W_ih: the rows' x and G are contiguous (B, T, .) rows: one run */
    /* row by row, so that the row's G (T x 4H floats) stays in L1 for its two products */
    for (int r = 0; r < R; r++) {
        size_t row = r0 + (size_t)r * T;
        const float *g = Gg + (size_t)r * T * H4;
        int f = first && r == 0;
        if (C > 0) run(Pi, wp->PCw, g, H4, x + row * C, C, T, H3, C, 2 * H, H, f);
        if (h0) { /* t = 0 against h0 */
            run(Ph, wp->PHw, g, H4, h0 + (size_t)(b0 + r) * H, H, 1, H3, H, H3, 0, f);
            f = 0;
        }
        run(Ph, wp->PHw, g + H4, H4, y + row * H, H, T - 1, H3, H, H3, 0, f);
    }
    if (first) memcpy(Ps, Gg, (size_t)H4 * sizeof(float));
    for (int r = first ? 1 : 0; r < R * T; r++) add_row(Ps, Gg + (size_t)r * H4, H4);
}

void gen_cpu_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                          float *work, const float *dy, const float *x, const float *h0,
                          const float *y, const float *save, const float *W, int B, int T,
                          int C, int H) {
    if (B <= 0 || T <= 0) return;
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    int threads = be->threads > 0 ? be->threads : 1;
    /* work: (B, T, 4H), of which chunk c uses its first MM_R x T rows for the G of one row
     * group at a time (written, then summed into the weight gradients while in cache: G never
     * streams through memory); (B, T, H) for the chunks' partial sums when they fit; (B, H)
     * the gradient reaching h_{-1} */
    float *G = work;
    float *spare = G + BT * H4;
    float *dhl = spare + BT * H;
    gru_pack p;
    wg_part wp = {0};
    float *owned = NULL;
    const int wgrad = dW || db, chunks = (B + WG_CHUNK - 1) / WG_CHUNK;
    if (!gru_pack_make(&p, W, C, H, threads, 1)) goto nomem;
    if (wgrad) {
        wp.PCw = (C + 7) / 8 * 8;
        wp.PHw = (H + 7) / 8 * 8;
        wp.stride = ((size_t)H3 * (wp.PCw + wp.PHw) + H4 + 7) / 8 * 8;
        size_t need = (size_t)chunks * wp.stride;
        if (need + 8 <= BT * H) { /* in work, from its first 32-byte boundary: no allocation */
            uintptr_t a = ((uintptr_t)spare + 31) & ~(uintptr_t)31;
            wp.mem = (float *)a;
        } else {
            wp.mem = owned = aligned_alloc(32, need * sizeof(float));
            if (!owned) {
                free(p.mem);
                goto nomem;
            }
        }
    }
    mm_rows_fn mm = mm_rows_pick();
    wg_run_fn run = wg_run_plain;
#ifdef GEN_GRU_X86
    if (have_avx2_fma()) run = wg_run_avx2;
#endif
    double wk = (double)B * T * 3 * H * (C + H);
    /* threads take whole chunks; within one, its row groups in order, each group's weight
     * gradients summed right after its backward while its G is in cache */
    _Pragma("omp parallel for schedule(dynamic, 1) if (chunks > 1 && wk >= 1e6) num_threads(threads)")
    for (int c = 0; c < chunks; c++) {
        float *tmp = p.tmp + (size_t)omp_get_thread_num() * 2 * MM_R * p.tw;
        float *Pc = wgrad ? wp.mem + (size_t)c * wp.stride : NULL;
        float *Gg = G + (size_t)c * WG_CHUNK * T * H4;
        int end = (c + 1) * WG_CHUNK < B ? (c + 1) * WG_CHUNK : B;
        for (int b0 = c * WG_CHUNK; b0 < end; b0 += MM_R) {
            int R = end - b0 < MM_R ? end - b0 : MM_R;
            if (R == MM_R) {
                bwd_rows(&p, mm, tmp, Gg, dhl, dx, dy, h0, y, save, b0, R, T, C, H);
                if (wgrad)
                    wg_rows(&wp, run, Pc, Gg, x, h0, y, b0, R, T, C, H, b0 == c * WG_CHUNK);
            } else
                for (int r = 0; r < R; r++) {
                    bwd_rows(&p, mm, tmp, Gg, dhl, dx, dy, h0, y, save, b0 + r, 1, T, C, H);
                    if (wgrad)
                        wg_rows(&wp, run, Pc, Gg, x, h0, y, b0 + r, 1, T, C, H,
                                b0 + r == c * WG_CHUNK);
                }
        }
    }
    free(p.mem);
    if (dh0 && h0)
        for (size_t i = 0; i < (size_t)B * H; i++) dh0[i] += dhl[i];
    /* the chunks' partial sums in chunk order: dW_ir|iz|in += [dR, dZ, dN]^T x,
     * dW_hh += [dR, dZ, q]^T h_{t-1}; b_ir, b_iz += dR, dZ; b_in += dN; b_h* += dR, dZ, q */
    for (int c = 0; c < chunks && wgrad; c++) {
        const float *Pi = wp.mem + (size_t)c * wp.stride, *Ph = Pi + (size_t)H3 * wp.PCw,
                    *Ps = Ph + (size_t)H3 * wp.PHw;
        if (dW) {
            for (int m = 0; m < H3; m++) {
                float *o = dW + (size_t)m * C;
                const float *q = Pi + (size_t)m * wp.PCw;
                for (int n = 0; n < C; n++) o[n] += q[n];
            }
            for (int m = 0; m < H3; m++) {
                float *o = dW + (size_t)H3 * C + (size_t)m * H;
                const float *q = Ph + (size_t)m * wp.PHw;
                for (int n = 0; n < H; n++) o[n] += q[n];
            }
        }
        if (db) {
            for (int j = 0; j < 2 * H; j++) db[j] += Ps[j];
            for (int j = 0; j < H; j++) db[2 * H + j] += Ps[H3 + j];
            for (int j = 0; j < H3; j++) db[H3 + j] += Ps[j];
        }
    }
    free(owned);
    return;
nomem:
    gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory in the GRU backward pass");
    if (dW) dW[0] = NAN; /* the caller's check trips */
}
