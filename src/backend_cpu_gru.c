/*
 * backend_cpu_gru.c — the CPU reference of the GRU and sigmoid operations of
 * gen_backend_ops (TimeGAN, specs/timegan.md §2 and §9.6): TF1 tf.nn.rnn_cell.GRUCell, the
 * reset gate applied to h_{t-1} BEFORE the candidate's recurrent matmul, one bias per gate
 * column. Layout and equations: backend.h; derivation of backward-through-time:
 * docs/timegan.md §2.
 *
 * The matmuls go through the backend's GEMM (OpenBLAS): the input projections of all B*T
 * rows in one call, then two small (B x H x 2H, B x H x H) calls per step, which are the
 * sequential part. Backward batches the input-side and candidate-side weight gradients
 * over all steps; only the gate-side recurrent ones are per step (they need h_{t-1}, which
 * for t = 0 is h0). Equal lengths only (every sample runs T steps): TimeGAN's data always
 * has them (§3), and src/sequence.c builds fixed-length windows.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "backend_cpu_gru.h"

void gen_cpu_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) out[i] = 1.0f / (1.0f + expf(-inp[i]));
}

void gen_cpu_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++) dinp[i] += dout[i] * out[i] * (1.0f - out[i]);
}

static inline float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

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
        for (int bb = 0; bb < B; bb++) {
            float *s = st + (size_t)bb * T * H4;
            for (int j = 0; j < 2 * H; j++) s[j] = sigm(s[j]);
            for (int j = 0; j < H; j++) s[3 * H + j] = hp ? s[j] * hp[(size_t)bb * ldh + j] : 0.0f;
        }
        /* candidate += (r * h_{t-1}) . Wh[:, 2H:3H], then tanh */
        if (hp)
            be->ops->gemm(be, 0, 0, B, H, H, 1.0f, st + 3 * H, T * H4, Wh + 2 * H, H3, 1.0f,
                          st + 2 * H, T * H4);
        for (int bb = 0; bb < B; bb++) {
            float *s = st + (size_t)bb * T * H4;
            float *yt = y + ((size_t)bb * T + t) * H;
            for (int j = 0; j < H; j++) {
                float c = tanhf(s[2 * H + j]);
                float hprev = hp ? hp[(size_t)bb * ldh + j] : 0.0f;
                s[2 * H + j] = c;
                yt[j] = s[H + j] * hprev + (1.0f - s[H + j]) * c;
            }
        }
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
        for (int bb = 0; bb < B; bb++) {
            const float *s = save + ((size_t)bb * T + t) * H4;
            float *dp = dpre + ((size_t)bb * T + t) * H3;
            float *g = dh + (size_t)bb * H;
            const float *dyt = dy + ((size_t)bb * T + t) * H;
            for (int j = 0; j < H; j++) {
                float u = s[H + j], c = s[2 * H + j];
                float hprev = hp ? hp[(size_t)bb * ldh + j] : 0.0f;
                float gh = g[j] + dyt[j];
                dp[2 * H + j] = gh * (1.0f - u) * (1.0f - c * c);
                dp[H + j] = gh * (hprev - c) * u * (1.0f - u);
                g[j] = gh * u; /* the direct path h_{t-1} -> h_t */
            }
        }
        if (!hp) { /* zero initial state: r only scales zeros, so d r = 0 */
            for (int bb = 0; bb < B; bb++)
                memset(dpre + ((size_t)bb * T + t) * H3, 0, (size_t)H * sizeof(float));
            continue;
        }
        /* d(r * h_{t-1}) = dC . Wh[:, 2H:3H]^T */
        be->ops->gemm(be, 0, 1, B, H, H, 1.0f, dpre + (size_t)t * H3 + 2 * H, T * H3, Wh + 2 * H,
                      H3, 0.0f, drh, H);
        for (int bb = 0; bb < B; bb++) {
            const float *s = save + ((size_t)bb * T + t) * H4;
            float *dp = dpre + ((size_t)bb * T + t) * H3;
            float *g = dh + (size_t)bb * H;
            const float *q = drh + (size_t)bb * H;
            for (int j = 0; j < H; j++) {
                float r = s[j];
                dp[j] = q[j] * hp[(size_t)bb * ldh + j] * r * (1.0f - r);
                g[j] += q[j] * r;
            }
        }
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
