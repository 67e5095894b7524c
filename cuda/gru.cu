/*
 * gru.cu — the GRU and sigmoid operations of the CUDA backend, in the SAME TF1 GRUCell
 * convention as the CPU reference (src/backend_cpu_gru.c; layout in backend.h; reset gate
 * applied to h_{t-1} before the candidate's recurrent matmul, docs/algorithms.md §S9.6). The
 * structure mirrors the CPU code call for call: cuBLAS GEMMs (gen_cu_gemm, FP32) for the
 * input projections of all B*T rows and the two recurrent products per step, and small
 * element-wise kernels for the gates. cuDNN's GRU (CUDNN_GRU) applies the reset gate AFTER
 * the recurrent matmul and cannot express this cell; docs/timegan.md §3 says why the backend
 * keeps the TF1 form.
 *
 * Status: compile-checked only. The session that wrote it had no GPU; the parity case in
 * tests/test_backend_parity.c compares it with the CPU where a GPU exists.
 */
#include "cuda_common.cuh"

#define GEN_GRID_LOOP(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

#define GEN_LAUNCH1D(cu, n, kernel, ...)                                                           \
    do {                                                                                           \
        if ((n) > 0) {                                                                             \
            GEN_LAUNCH(kernel, gen_cuda_grid((n), GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,          \
                       (cu)->stream)(__VA_ARGS__);                                                 \
            GEN_CUDA_LAUNCHED(cu);                                                                 \
        }                                                                                          \
    } while (0)

#define GEN_TRY_ST(call)                                \
    do {                                                \
        genesis_status st_ = (call);                    \
        if (st_ != GENESIS_OK) return st_;              \
    } while (0)

__device__ __forceinline__ float gru_sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void k_sigmoid_forward(float *__restrict__ out, const float *__restrict__ inp, size_t n) {
    GEN_GRID_LOOP(i, n) out[i] = gru_sigm(inp[i]);
}
__global__ void k_sigmoid_backward(float *__restrict__ dinp, const float *__restrict__ dout,
                                   const float *__restrict__ out, size_t n) {
    GEN_GRID_LOOP(i, n) dinp[i] += dout[i] * out[i] * (1.0f - out[i]);
}
genesis_status gen_cu_sigmoid_forward(gen_cuda *cu, float *out, const float *inp, size_t n) {
    GEN_LAUNCH1D(cu, n, k_sigmoid_forward, out, inp, n);
    return GENESIS_OK;
}
genesis_status gen_cu_sigmoid_backward(gen_cuda *cu, float *dinp, const float *dout,
                                       const float *out, size_t n) {
    GEN_LAUNCH1D(cu, n, k_sigmoid_backward, dinp, dout, out, n);
    return GENESIS_OK;
}

/* save[r, 0:3H] = b for every one of the B*T rows (ld 4H) */
__global__ void k_gru_bias_rows(float *__restrict__ save, const float *__restrict__ b, size_t BT,
                                int H) {
    size_t n = BT * 3 * H;
    GEN_GRID_LOOP(i, n) {
        size_t r = i / (3 * H), j = i % (3 * H);
        save[r * 4 * H + j] = b[j];
    }
}

/* step t, first half: sigmoid of the gates, rh = r * h_{t-1} (hp NULL: zeros) */
__global__ void k_gru_gates(float *__restrict__ save, const float *__restrict__ hp, int ldh, int B,
                            int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        float *s = save + ((size_t)b * T + t) * 4 * H;
        float r = gru_sigm(s[j]);
        s[j] = r;
        s[H + j] = gru_sigm(s[H + j]);
        s[3 * H + j] = hp ? r * hp[(size_t)b * ldh + j] : 0.0f;
    }
}

/* step t, second half: c = tanh(candidate), h_t = u h_{t-1} + (1 - u) c */
__global__ void k_gru_output(float *__restrict__ y, float *__restrict__ save,
                             const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        float *s = save + ((size_t)b * T + t) * 4 * H;
        float c = tanhf(s[2 * H + j]);
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        s[2 * H + j] = c;
        y[((size_t)b * T + t) * H + j] = s[H + j] * hprev + (1.0f - s[H + j]) * c;
    }
}

genesis_status gen_cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                  const float *h0, const float *W, const float *b, int B, int T,
                                  int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)C * H3;
    GEN_LAUNCH1D(cu, BT * H3, k_gru_bias_rows, save, b, BT, H);
    if (C > 0) GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, (int)BT, H3, C, 1.0f, x, C, W, H3, 1.0f, save, H4));
    for (int t = 0; t < T; t++) {
        float *st = save + (size_t)t * H4;
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        if (hp) GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, B, 2 * H, H, 1.0f, hp, ldh, Wh, H3, 1.0f, st, T * H4));
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_gates, save, hp, ldh, B, T, t, H);
        if (hp)
            GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, B, H, H, 1.0f, st + 3 * H, T * H4, Wh + 2 * H, H3,
                                   1.0f, st + 2 * H, T * H4));
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_output, y, save, hp, ldh, B, T, t, H);
    }
    return GENESIS_OK;
}

/* backward step t, first half: candidate and update-gate pre-activation gradients; dh
 * becomes the direct path's share of dL/dh_{t-1}; zero reset-gate gradient when hp is NULL */
__global__ void k_gru_bwd_cu(float *__restrict__ dpre, float *__restrict__ dh,
                             const float *__restrict__ dy, const float *__restrict__ save,
                             const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        const float *s = save + ((size_t)b * T + t) * 4 * H;
        float *dp = dpre + ((size_t)b * T + t) * 3 * H;
        float u = s[H + j], c = s[2 * H + j];
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        float gh = dh[i] + dy[((size_t)b * T + t) * H + j];
        dp[2 * H + j] = gh * (1.0f - u) * (1.0f - c * c);
        dp[H + j] = gh * (hprev - c) * u * (1.0f - u);
        if (!hp) dp[j] = 0.0f;
        dh[i] = gh * u;
    }
}

/* backward step t, second half: reset-gate gradient from d(r h); dh += d(r h) * r */
__global__ void k_gru_bwd_r(float *__restrict__ dpre, float *__restrict__ dh,
                            const float *__restrict__ drh, const float *__restrict__ save,
                            const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        const float *s = save + ((size_t)b * T + t) * 4 * H;
        float r = s[j], q = drh[i];
        dpre[((size_t)b * T + t) * 3 * H + j] = q * hp[(size_t)b * ldh + j] * r * (1.0f - r);
        dh[i] += q * r;
    }
}

__global__ void k_add(float *__restrict__ a, const float *__restrict__ b, size_t n) {
    GEN_GRID_LOOP(i, n) a[i] += b[i];
}

genesis_status gen_cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                   float *work, const float *dy, const float *x,
                                   const float *h0, const float *y, const float *save,
                                   const float *W, int B, int T, int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)C * H3;
    float *dpre = work, *dh = work + BT * H3, *drh = dh + (size_t)B * H;
    GEN_CUDA_TRY(cu, cudaMemsetAsync(dh, 0, (size_t)B * H * sizeof(float), cu->stream));
    for (int t = T - 1; t >= 0; t--) {
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_bwd_cu, dpre, dh, dy, save, hp, ldh, B, T, t, H);
        if (!hp) continue;
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, B, H, H, 1.0f, dpre + (size_t)t * H3 + 2 * H, T * H3,
                               Wh + 2 * H, H3, 0.0f, drh, H));
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_bwd_r, dpre, dh, drh, save, hp, ldh, B, T, t, H);
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, B, H, 2 * H, 1.0f, dpre + (size_t)t * H3, T * H3, Wh, H3,
                               1.0f, dh, H));
        if (dW)
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H, 2 * H, B, 1.0f, hp, ldh, dpre + (size_t)t * H3,
                                   T * H3, 1.0f, dW + (size_t)C * H3, H3));
    }
    if (dh0 && h0) GEN_LAUNCH1D(cu, (size_t)B * H, k_add, dh0, dh, (size_t)B * H);
    if (dx && C > 0)
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, (int)BT, C, H3, 1.0f, dpre, H3, W, H3, 1.0f, dx, C));
    if (dW) {
        if (C > 0)
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, C, H3, (int)BT, 1.0f, x, C, dpre, H3, 1.0f, dW, H3));
        GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H, H, (int)BT, 1.0f, save + 3 * H, H4, dpre + 2 * H, H3,
                               1.0f, dW + (size_t)C * H3 + 2 * H, H3));
    }
    if (db) GEN_TRY_ST(gen_cu_colsum_acc(cu, db, dpre, H3, (int)BT, H3));
    return GENESIS_OK;
}
