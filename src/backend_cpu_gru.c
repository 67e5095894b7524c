/*
 * backend_cpu_gru.c — the CPU reference of the GRU and sigmoid operations of
 * gen_backend_ops (TimeGAN, docs/algorithms.md §S2 and §S9.6): TF1 tf.nn.rnn_cell.GRUCell, the
 * reset gate applied to h_{t-1} BEFORE the candidate's recurrent matmul, one bias per gate
 * column. Layout and equations: backend.h; derivation of backward-through-time:
 * docs/timegan.md §2.
 *
 * The matmuls go through the backend's GEMM (OpenBLAS): the input projections of all B*T
 * rows in one call, then two small (B x H x 2H, B x H x H) calls per step, which are the
 * sequential part. Backward batches the input-side and candidate-side weight gradients
 * over all steps; only the gate-side recurrent ones are per step (they need h_{t-1}, which
 * for t = 0 is h0). Equal lengths only (every sample runs T steps): TimeGAN's data always
 * has them (docs/algorithms.md §S3), and src/sequence.c builds fixed-length windows.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "backend_cpu_gru.h"

/* exp without libm calls, so that the gate loops vectorise: Cody-Waite range reduction
 * x = n ln2 + r, |r| <= ln2/2, then a degree-7 Taylor polynomial (truncation ~5e-9
 * relative) scaled by 2^n built in the exponent bits. Input clamped to [-87, 88]: the
 * result stays a normal float (tanh and sigmoid saturate long before). Measured against
 * expf: within 2 ulp over [-87, 88] (tests/test_gru_grad.c). */
static inline float fast_expf(float x) {
    x = x < -87.0f ? -87.0f : x; /* ternaries, not fminf: they inline and vectorise */
    x = x > 88.0f ? 88.0f : x;
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round to nearest */
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
    uint32_t e = (uint32_t)((int32_t)n + 127) << 23; /* unsigned: no UB when x is NaN */
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

/* Per-row gate kernels with restrict pointers, compiled for AVX2 and the baseline (the
 * same scheme as backend_cpu.c's element-wise kernels); hp NULL stands for h_{t-1} = 0. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_GRU_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define GEN_GRU_KERNEL
#endif

static GEN_GRU_KERNEL void gates_row(float *restrict s, const float *restrict hp, int H) {
    for (int j = 0; j < 2 * H; j++) s[j] = sigm(s[j]);
    if (hp)
        for (int j = 0; j < H; j++) s[3 * H + j] = s[j] * hp[j];
    else
        for (int j = 0; j < H; j++) s[3 * H + j] = 0.0f;
}

static GEN_GRU_KERNEL void output_row(float *restrict yt, float *restrict s,
                                      const float *restrict hp, int H) {
    for (int j = 0; j < H; j++) s[2 * H + j] = fast_tanhf(s[2 * H + j]);
    if (hp)
        for (int j = 0; j < H; j++) yt[j] = s[H + j] * hp[j] + (1.0f - s[H + j]) * s[2 * H + j];
    else
        for (int j = 0; j < H; j++) yt[j] = (1.0f - s[H + j]) * s[2 * H + j];
}

void gen_cpu_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                         const float *W, const float *b, int B, int T, int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)C * H3; /* recurrent rows */
    /* pre-activations of every (b, t) row from x: save[:, :, 0:3H] = x . W[0:C] + b */
    for (size_t r = 0; r < BT; r++) memcpy(save + r * H4, b, (size_t)H3 * sizeof(float));
    if (C > 0) be->ops->gemm(be, 0, 0, (int)BT, H3, C, 1.0f, x, C, W, H3, 1.0f, save, H4);
    for (int t = 0; t < T; t++) {
        float *st = save + (size_t)t * H4;  /* row b at st + b*T*4H */
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        /* gates += h_{t-1} . Wh[:, 0:2H], then sigmoid; rh = r * h_{t-1} */
        if (hp) be->ops->gemm(be, 0, 0, B, 2 * H, H, 1.0f, hp, ldh, Wh, H3, 1.0f, st, T * H4);
        for (int bb = 0; bb < B; bb++)
            gates_row(st + (size_t)bb * T * H4, hp ? hp + (size_t)bb * ldh : NULL, H);
        /* candidate += (r * h_{t-1}) . Wh[:, 2H:3H], then tanh; h_t = u h + (1 - u) c */
        if (hp)
            be->ops->gemm(be, 0, 0, B, H, H, 1.0f, st + 3 * H, T * H4, Wh + 2 * H, H3, 1.0f,
                          st + 2 * H, T * H4);
        for (int bb = 0; bb < B; bb++)
            output_row(y + ((size_t)bb * T + t) * H, st + (size_t)bb * T * H4,
                       hp ? hp + (size_t)bb * ldh : NULL, H);
    }
}

/* backward, first half of step t for one row: candidate and update-gate pre-activation
 * gradients; g becomes the direct path's share of dL/dh_{t-1} */
static GEN_GRU_KERNEL void bwd_row_cu(float *restrict dp, float *restrict g,
                                      const float *restrict s, const float *restrict dyt,
                                      const float *restrict hp, int H) {
    for (int j = 0; j < H; j++) {
        float u = s[H + j], c = s[2 * H + j];
        float hprev = hp ? hp[j] : 0.0f;
        float gh = g[j] + dyt[j];
        dp[2 * H + j] = gh * (1.0f - u) * (1.0f - c * c);
        dp[H + j] = gh * (hprev - c) * u * (1.0f - u);
        g[j] = gh * u;
    }
}

static GEN_GRU_KERNEL void bwd_row_r(float *restrict dp, float *restrict g,
                                     const float *restrict s, const float *restrict q,
                                     const float *restrict hp, int H) {
    for (int j = 0; j < H; j++) {
        float r = s[j];
        dp[j] = q[j] * hp[j] * r * (1.0f - r);
        g[j] += q[j] * r;
    }
}

void gen_cpu_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                          float *work, const float *dy, const float *x, const float *h0,
                          const float *y, const float *save, const float *W, int B, int T,
                          int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)C * H3;
    float *dpre = work;                    /* (B, T, 3H): d gate pre-activations, d cand. */
    float *dh = work + BT * H3;            /* (B, H) gradient reaching h_t */
    float *drh = dh + (size_t)B * H;       /* (B, H) gradient of r * h_{t-1} */
    const int wgrad = dW != NULL;
    memset(dh, 0, (size_t)B * H * sizeof(float));
    for (int t = T - 1; t >= 0; t--) {
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        /* dh += dy_t; candidate and update-gate pre-activations */
        for (int bb = 0; bb < B; bb++)
            bwd_row_cu(dpre + ((size_t)bb * T + t) * H3, dh + (size_t)bb * H,
                       save + ((size_t)bb * T + t) * H4, dy + ((size_t)bb * T + t) * H,
                       hp ? hp + (size_t)bb * ldh : NULL, H);
        if (!hp) { /* zero initial state: r only scales zeros, so d r = 0 */
            for (int bb = 0; bb < B; bb++)
                memset(dpre + ((size_t)bb * T + t) * H3, 0, (size_t)H * sizeof(float));
            continue;
        }
        /* d(r * h_{t-1}) = dC . Wh[:, 2H:3H]^T */
        be->ops->gemm(be, 0, 1, B, H, H, 1.0f, dpre + (size_t)t * H3 + 2 * H, T * H3, Wh + 2 * H,
                      H3, 0.0f, drh, H);
        for (int bb = 0; bb < B; bb++)
            bwd_row_r(dpre + ((size_t)bb * T + t) * H3, dh + (size_t)bb * H,
                      save + ((size_t)bb * T + t) * H4, drh + (size_t)bb * H,
                      hp + (size_t)bb * ldh, H);
        /* h_{t-1} feeds the gates: dh_{t-1} += dG . Wh[:, 0:2H]^T; dWh_gates += h^T dG */
        be->ops->gemm(be, 0, 1, B, H, 2 * H, 1.0f, dpre + (size_t)t * H3, T * H3, Wh, H3, 1.0f, dh,
                      H);
        if (wgrad)
            be->ops->gemm(be, 1, 0, H, 2 * H, B, 1.0f, hp, ldh, dpre + (size_t)t * H3, T * H3,
                          1.0f, dW + (size_t)C * H3, H3);
    }
    if (dh0 && h0)
        for (size_t i = 0; i < (size_t)B * H; i++) dh0[i] += dh[i];
    if (dx && C > 0) be->ops->gemm(be, 0, 1, (int)BT, C, H3, 1.0f, dpre, H3, W, H3, 1.0f, dx, C);
    if (wgrad) {
        if (C > 0) be->ops->gemm(be, 1, 0, C, H3, (int)BT, 1.0f, x, C, dpre, H3, 1.0f, dW, H3);
        /* candidate's recurrent rows: (r * h_{t-1})^T dC over every (b, t) row */
        be->ops->gemm(be, 1, 0, H, H, (int)BT, 1.0f, save + 3 * H, H4, dpre + 2 * H, H3, 1.0f,
                      dW + (size_t)C * H3 + 2 * H, H3);
    }
    if (db)
        for (size_t r = 0; r < BT; r++)
            for (int j = 0; j < H3; j++) db[j] += dpre[r * H3 + j];
}
