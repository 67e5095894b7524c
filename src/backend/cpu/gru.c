/*
 * gru.c — the CPU backend's `gru` family (backend.h): the GRU and sigmoid operations of
 * gen_backend_ops (TimeGAN, docs/algorithms.md §S2): the reset-after GRU cell of cuDNN's
 * CUDNN_GRU and PyTorch's nn.GRU (Cho et al. 2014, arXiv 1406.1078v1 ordering: the reset
 * gate scales the recurrent projection AFTER the matmul), separate input and recurrent
 * biases, gate order r, z, n. Layout and equations: backend.h; derivation of the forward and
 * backward-through-time passes: docs/layers.md ("GRU").
 *
 * The matmuls go through the backend's GEMM (OpenBLAS): the input projections of all B*T
 * rows in one call, then two small (B x 2H x H, B x H x H) calls per step, which are the
 * sequential part. Backward batches the input-side weight gradients, dx and the input
 * biases over all steps; the recurrent ones are per step (they need h_{t-1}, which for
 * t = 0 is h0). Equal lengths only (every sample runs T steps): TimeGAN's data always has
 * them, and src/model/sequence.c builds fixed-length windows.
 */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"

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
static inline float fast_tanhf(float x) { return 1.0f - 2.0f / (fast_expf(2.0f * x) + 1.0f); }

float gen_cpu_expf(float x) { return fast_expf(x); }

void gen_cpu_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) out[i] = sigm(inp[i]);
}

void gen_cpu_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) dinp[i] += dout[i] * out[i] * (1.0f - out[i]);
}

/* Per-row kernels with restrict pointers, compiled for AVX2 and the baseline (the same
 * scheme as backend_cpu.c's element-wise kernels); hp NULL stands for h_{t-1} = 0. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_GRU_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define GEN_GRU_KERNEL
#endif

/* One row of step t. On entry s[0:2H] = r, z pre-activations (input and recurrent parts and
 * both biases summed), s[2H:3H] = W_in x + b_in, s[3H:4H] = W_hn h + b_hn. On exit s[0:3H] =
 * r, z, n and s[3H:4H] unchanged (backward needs it); yt = (1 - z) n + z h_{t-1}. */
static GEN_GRU_KERNEL void step_row(float *restrict yt, float *restrict s,
                                    const float *restrict hp, int H) {
    for (int j = 0; j < 2 * H; j++) s[j] = sigm(s[j]);
    for (int j = 0; j < H; j++) s[2 * H + j] = fast_tanhf(s[2 * H + j] + s[j] * s[3 * H + j]);
    if (hp)
        for (int j = 0; j < H; j++)
            yt[j] = (1.0f - s[H + j]) * s[2 * H + j] + s[H + j] * hp[j];
    else
        for (int j = 0; j < H; j++) yt[j] = (1.0f - s[H + j]) * s[2 * H + j];
}

void gen_cpu_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                         const float *W, const float *b, int B, int T, int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C; /* W_hh (3H x H) after W_ih (3H x C) */
    /* every (b, t) row: [b_ir + b_hr, b_iz + b_hz, b_in, b_hn], then += x . W_ih^T on 0:3H */
    for (int j = 0; j < 2 * H; j++) save[j] = b[j] + b[H3 + j];
    for (int j = 0; j < H; j++) {
        save[2 * H + j] = b[2 * H + j];
        save[3 * H + j] = b[H3 + 2 * H + j];
    }
    for (size_t r = 1; r < BT; r++) memcpy(save + r * H4, save, (size_t)H4 * sizeof(float));
    if (C > 0) be->ops->gemm(be, 0, 1, (int)BT, H3, C, 1.0f, x, C, W, C, 1.0f, save, H4);
    for (int t = 0; t < T; t++) {
        float *st = save + (size_t)t * H4; /* row b at st + b*T*4H */
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        if (hp) {
            /* r, z += h_{t-1} . W_hr|hz^T;  recurrent n part += h_{t-1} . W_hn^T */
            be->ops->gemm(be, 0, 1, B, 2 * H, H, 1.0f, hp, ldh, Wh, H, 1.0f, st, T * H4);
            be->ops->gemm(be, 0, 1, B, H, H, 1.0f, hp, ldh, Wh + (size_t)2 * H * H, H, 1.0f,
                          st + 3 * H, T * H4);
        }
        for (int bb = 0; bb < B; bb++)
            step_row(y + ((size_t)bb * T + t) * H, st + (size_t)bb * T * H4,
                     hp ? hp + (size_t)bb * ldh : NULL, H);
    }
}

/* backward, one row of step t: g (in) = dL/dh_t from later steps, dyt its share from the
 * output; writes the pre-activation gradients dp = [dR, dZ, dN] (input side), q = dN * r
 * (the recurrent n part's gradient) and g (out) = the direct path z * delta. */
static GEN_GRU_KERNEL void bwd_row(float *restrict dp, float *restrict q, float *restrict g,
                                   const float *restrict s, const float *restrict dyt,
                                   const float *restrict hp, int H) {
    for (int j = 0; j < H; j++) {
        float r = s[j], z = s[H + j], n = s[2 * H + j], hn = s[3 * H + j];
        float hprev = hp ? hp[j] : 0.0f;
        float d = g[j] + dyt[j];
        float dn = d * (1.0f - z) * (1.0f - n * n);
        dp[2 * H + j] = dn;
        dp[H + j] = d * (hprev - n) * z * (1.0f - z);
        dp[j] = dn * hn * r * (1.0f - r);
        q[j] = dn * r;
        g[j] = d * z;
    }
}

void gen_cpu_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                          float *work, const float *dy, const float *x, const float *h0,
                          const float *y, const float *save, const float *W, int B, int T,
                          int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C;
    float *dpre = work;                    /* (B, T, 3H): dR, dZ, dN of every row */
    float *dh = work + BT * H3;            /* (B, H) gradient reaching h_t */
    float *q = dh + (size_t)B * H;         /* (B, H) dN * r: gradient of W_hn h + b_hn */
    float *dWh = dW ? dW + (size_t)H3 * C : NULL;
    memset(dh, 0, (size_t)B * H * sizeof(float));
    for (int t = T - 1; t >= 0; t--) {
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        for (int bb = 0; bb < B; bb++)
            bwd_row(dpre + ((size_t)bb * T + t) * H3, q + (size_t)bb * H, dh + (size_t)bb * H,
                    save + ((size_t)bb * T + t) * H4, dy + ((size_t)bb * T + t) * H,
                    hp ? hp + (size_t)bb * ldh : NULL, H);
        if (db) /* b_hn gets q; the other biases are batched after the loop */
            for (int bb = 0; bb < B; bb++)
                for (int j = 0; j < H; j++) db[H3 + 2 * H + j] += q[(size_t)bb * H + j];
        if (!hp) continue; /* zero initial state: no recurrent matmul to differentiate */
        const float *dpt = dpre + (size_t)t * H3; /* row b at dpt + b*T*3H */
        /* dh_{t-1} += [dR, dZ] . W_hr|hz + q . W_hn */
        be->ops->gemm(be, 0, 0, B, H, 2 * H, 1.0f, dpt, T * H3, Wh, H, 1.0f, dh, H);
        be->ops->gemm(be, 0, 0, B, H, H, 1.0f, q, H, Wh + (size_t)2 * H * H, H, 1.0f, dh, H);
        if (dWh) { /* dW_hr|hz += [dR, dZ]^T h_{t-1};  dW_hn += q^T h_{t-1} */
            be->ops->gemm(be, 1, 0, 2 * H, H, B, 1.0f, dpt, T * H3, hp, ldh, 1.0f, dWh, H);
            be->ops->gemm(be, 1, 0, H, H, B, 1.0f, q, H, hp, ldh, 1.0f, dWh + (size_t)2 * H * H,
                          H);
        }
    }
    if (dh0 && h0)
        for (size_t i = 0; i < (size_t)B * H; i++) dh0[i] += dh[i];
    /* input side over all B*T rows: dx += dpre . W_ih; dW_ih += dpre^T x */
    if (dx && C > 0) be->ops->gemm(be, 0, 0, (int)BT, C, H3, 1.0f, dpre, H3, W, C, 1.0f, dx, C);
    if (dW && C > 0) be->ops->gemm(be, 1, 0, H3, C, (int)BT, 1.0f, dpre, H3, x, C, 1.0f, dW, C);
    if (db) /* b_ih += all of dpre; b_hr, b_hz += dR, dZ */
        for (size_t r = 0; r < BT; r++)
            for (int j = 0; j < H3; j++) {
                db[j] += dpre[r * H3 + j];
                if (j < 2 * H) db[H3 + j] += dpre[r * H3 + j];
            }
}
