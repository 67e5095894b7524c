/*
 * gru.cu — the CUDA backend's `gru` family (backend.h): the GRU and sigmoid operations of the
 * CUDA backend's custom kernels, in the SAME reset-after cell as the CPU reference
 * (src/backend/cpu/gru.c) and cuDNN's CUDNN_GRU: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
 * separate input and recurrent biases, gate order r, z, n; layout in backend.h, derivation in
 * docs/layers.md ("GRU"). The structure mirrors the CPU code call for call: cuBLAS GEMMs
 * (gen_cu_gemm, FP32) for the input projections of all B*T rows and the two recurrent products
 * per step, and one element-wise kernel per step and direction. Where the module is built with
 * cuDNN, backend_cuda.cu routes the GRU operations to cuDNN (gru_cudnn.cu) instead; these kernels
 * are the fallback.
 *
 * Status: compile-checked only. The session that wrote it had no GPU; the parity case in
 * tests/parity/gru.c compares it with the CPU where a GPU exists.
 */
#include "cuda_common.cuh"
#include "gru_cudnn.cuh"

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

/* every (b, t) row of save (ld 4H) = [b_ir + b_hr, b_iz + b_hz, b_in, b_hn] */
__global__ void k_gru_bias_rows(float *__restrict__ save, const float *__restrict__ b, size_t BT,
                                int H) {
    size_t n = BT * 4 * H;
    GEN_GRID_LOOP(i, n) {
        int j = (int)(i % (4 * H));
        save[i] = j < 2 * H ? b[j] + b[3 * H + j] : j < 3 * H ? b[j] : b[2 * H + j];
    }
}

/* step t: r, z = sigmoid(s[0:2H]); n = tanh(s[2H:3H] + r * s[3H:4H]); save keeps r, z, n
 * and the recurrent n part; h_t = (1 - z) n + z h_{t-1} (hp NULL: zeros) */
__global__ void k_gru_step(float *__restrict__ y, float *__restrict__ save,
                           const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        float *s = save + ((size_t)b * T + t) * 4 * H;
        float r = gru_sigm(s[j]), z = gru_sigm(s[H + j]);
        float nn = tanhf(s[2 * H + j] + r * s[3 * H + j]);
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        s[j] = r;
        s[H + j] = z;
        s[2 * H + j] = nn;
        y[((size_t)b * T + t) * H + j] = (1.0f - z) * nn + z * hprev;
    }
}

genesis_status gen_cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                  const float *h0, const float *W, const float *b, int B, int T,
                                  int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C; /* W_hh (3H x H) after W_ih (3H x C) */
    GEN_LAUNCH1D(cu, BT * H4, k_gru_bias_rows, save, b, BT, H);
    if (C > 0) GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, (int)BT, H3, C, 1.0f, x, C, W, C, 1.0f, save, H4));
    for (int t = 0; t < T; t++) {
        float *st = save + (size_t)t * H4;
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        if (hp) {
            GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, B, 2 * H, H, 1.0f, hp, ldh, Wh, H, 1.0f, st, T * H4));
            GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, B, H, H, 1.0f, hp, ldh, Wh + (size_t)2 * H * H, H,
                                   1.0f, st + 3 * H, T * H4));
        }
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_step, y, save, hp, ldh, B, T, t, H);
    }
    return GENESIS_OK;
}

/* backward step t: dh (in) = dL/dh_t from later steps; writes dpre = [dR, dZ, dN], q = dN r
 * (the gradient of W_hn h + b_hn) and dh (out) = z * delta, the direct path to h_{t-1} */
__global__ void k_gru_bwd(float *__restrict__ dpre, float *__restrict__ q, float *__restrict__ dh,
                          const float *__restrict__ dy, const float *__restrict__ save,
                          const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        const float *s = save + ((size_t)b * T + t) * 4 * H;
        float *dp = dpre + ((size_t)b * T + t) * 3 * H;
        float r = s[j], z = s[H + j], nn = s[2 * H + j], hn = s[3 * H + j];
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        float d = dh[i] + dy[((size_t)b * T + t) * H + j];
        float dn = d * (1.0f - z) * (1.0f - nn * nn);
        dp[2 * H + j] = dn;
        dp[H + j] = d * (hprev - nn) * z * (1.0f - z);
        dp[j] = dn * hn * r * (1.0f - r);
        q[i] = dn * r;
        dh[i] = d * z;
    }
}

__global__ void k_add(float *__restrict__ a, const float *__restrict__ b, size_t n) {
    GEN_GRID_LOOP(i, n) a[i] += b[i];
}

genesis_status gen_cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                   float *work, const float *dy, const float *x,
                                   const float *h0, const float *y, const float *save,
                                   const float *W, int B, int T, int C, int H) {
    const int H3 = 3 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C;
    float *dWh = dW ? dW + (size_t)H3 * C : NULL;
    float *dpre = work, *dh = work + BT * H3, *q = dh + (size_t)B * H;
    GEN_CUDA_TRY(cu, cudaMemsetAsync(dh, 0, (size_t)B * H * sizeof(float), cu->stream));
    for (int t = T - 1; t >= 0; t--) {
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_bwd, dpre, q, dh, dy, save, hp, ldh, B, T, t, H);
        if (db) GEN_TRY_ST(gen_cu_colsum_acc(cu, db + H3 + 2 * H, q, H, B, H)); /* b_hn */
        if (!hp) continue;
        const float *dpt = dpre + (size_t)t * H3;
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, B, H, 2 * H, 1.0f, dpt, T * H3, Wh, H, 1.0f, dh, H));
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, B, H, H, 1.0f, q, H, Wh + (size_t)2 * H * H, H, 1.0f, dh,
                               H));
        if (dWh) {
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, 2 * H, H, B, 1.0f, dpt, T * H3, hp, ldh, 1.0f, dWh, H));
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H, H, B, 1.0f, q, H, hp, ldh, 1.0f,
                                   dWh + (size_t)2 * H * H, H));
        }
    }
    if (dh0 && h0) GEN_LAUNCH1D(cu, (size_t)B * H, k_add, dh0, dh, (size_t)B * H);
    if (dx && C > 0)
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, (int)BT, C, H3, 1.0f, dpre, H3, W, C, 1.0f, dx, C));
    if (dW && C > 0)
        GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H3, C, (int)BT, 1.0f, dpre, H3, x, C, 1.0f, dW, C));
    if (db) {
        GEN_TRY_ST(gen_cu_colsum_acc(cu, db, dpre, H3, (int)BT, H3));           /* b_ih */
        GEN_TRY_ST(gen_cu_colsum_acc(cu, db + H3, dpre, H3, (int)BT, 2 * H));   /* b_hr, b_hz */
    }
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    GEN_CUDA_RUN(be, "sigmoid_forward", gen_cu_sigmoid_forward(cu, out, inp, n));
}

static void op_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                                size_t n) {
    GEN_CUDA_RUN(be, "sigmoid_backward", gen_cu_sigmoid_backward(cu, dinp, dout, out, n));
}

/* The GRU: cuDNN where the module has it (gru_cudnn.cu), else the kernels of gru.cu; the
 * same cell and weight layout either way (backend.h). */
static genesis_status cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                     const float *h0, const float *W, const float *b, int B, int T,
                                     int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru)
        return gen_cudnn_gru_op_forward(cu, cu->dnn_gru, y, save, x, h0, W, b, B, T, C, H);
#endif
    return gen_cu_gru_forward(cu, y, save, x, h0, W, b, B, T, C, H);
}

static genesis_status cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                      float *work, const float *dy, const float *x,
                                      const float *h0, const float *y, const float *save,
                                      const float *W, int B, int T, int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru)
        return gen_cudnn_gru_op_backward(cu, cu->dnn_gru, dx, dh0, dW, db, dy, x, h0, y, save, B,
                                         T, C, H);
#endif
    return gen_cu_gru_backward(cu, dx, dh0, dW, db, work, dy, x, h0, y, save, W, B, T, C, H);
}

static void op_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                           const float *W, const float *b, int B, int T, int C, int H) {
    GEN_CUDA_RUN(be, "gru_forward", cu_gru_forward(cu, y, save, x, h0, W, b, B, T, C, H));
}

static void op_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                            float *work, const float *dy, const float *x, const float *h0,
                            const float *y, const float *save, const float *W, int B, int T,
                            int C, int H) {
    GEN_CUDA_RUN(be, "gru_backward",
                 cu_gru_backward(cu, dx, dh0, dW, db, work, dy, x, h0, y, save, W, B, T, C, H));
}

void gen_cu_ops_gru(gen_backend_ops *o) {
    o->sigmoid_forward = op_sigmoid_forward;
    o->sigmoid_backward = op_sigmoid_backward;
    o->gru_forward = op_gru_forward;
    o->gru_backward = op_gru_backward;
}
