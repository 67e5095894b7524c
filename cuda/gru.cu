/*
 * gru.cu — the CUDA backend's `gru` family (backend.h): the GRU and sigmoid operations of the
 * CUDA backend's custom kernels, in the SAME reset-after cell as the CPU reference
 * (src/backend/cpu/gru.c) and cuDNN's CUDNN_GRU: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
 * separate input and recurrent biases, gate order r, z, n; layout in backend.h, derivation in
 * docs/layers.md ("GRU"). cuBLAS GEMMs (gen_cu_gemm, FP32) for the input projections of all
 * B*T rows; the recurrence of a layer in ONE kernel per direction (k_gru_fwd_seq,
 * k_gru_bwd_seq: a block per batch row walks the time loop with h in shared memory, so a
 * layer is a handful of launches instead of two per step, docs/timegan.md §9); layers wider
 * than GEN_GRU_SEQ_MAXH take one recurrent GEMM per step for all three gates (save's columns
 * r, z, W_hn h + b_hn are contiguous) and one element-wise kernel per step and direction. The
 * weight gradients are GEMMs over the whole sequence after the backward loop; the CPU code
 * keeps the same save and work layouts (backend.h) but its own loop order. Where the module
 * is built with cuDNN, backend_cuda.cu routes the GRU operations to cuDNN (gru_cudnn.cu)
 * instead, except inside a recorded step; these kernels are the fallback.
 *
 * Status: the per-step path passed its parity cases on an H200 (2026-11-26); the fused
 * kernels are parity-checked on the emulated runtime only (tests/parity/gru.c).
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

/* every (b, t) row of save (ld 4H) = [b_ir + b_hr, b_iz + b_hz, b_hn, b_in] */
__global__ void k_gru_bias_rows(float *__restrict__ save, const float *__restrict__ b, size_t BT,
                                int H) {
    size_t n = BT * 4 * H;
    GEN_GRID_LOOP(i, n) {
        int j = (int)(i % (4 * H));
        save[i] = j < 2 * H ? b[j] + b[3 * H + j] : j < 3 * H ? b[3 * H + j] : b[j - H];
    }
}

/* step t: s = [r, z, W_hn h + b_hn, n] pre-activations (r, z and the input n part summed
 * with their biases); r, z = sigmoid; n = tanh(s[3H:4H] + r * s[2H:3H]); save keeps r, z,
 * the recurrent n part and n; h_t = (1 - z) n + z h_{t-1} (hp NULL: zeros) */
__global__ void k_gru_step(float *__restrict__ y, float *__restrict__ save,
                           const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        float *s = save + ((size_t)b * T + t) * 4 * H;
        float r = gru_sigm(s[j]), z = gru_sigm(s[H + j]);
        float nn = tanhf(s[3 * H + j] + r * s[2 * H + j]);
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        s[j] = r;
        s[H + j] = z;
        s[3 * H + j] = nn;
        y[((size_t)b * T + t) * H + j] = (1.0f - z) * nn + z * hprev;
    }
}

/* The fused recurrence (docs/timegan.md §9): the whole time loop of a layer in one launch.
 * A block owns batch rows b (grid-stride) and its threads the hidden units j (stride
 * blockDim); h_{t-1} of the row lives in shared memory. Per step each unit adds its three
 * recurrent products (the rows j, H + j, 2H + j of W_hh against h_{t-1}, summed in k order
 * with FMA) to the step's pre-activations, then does k_gru_step's gate arithmetic. Steps
 * depend on each other only within a row, so rows never wait for one another; two barriers
 * per step. GEN_GRU_SEQ_MAXH bounds H (the backward pass keeps 3H floats in shared memory);
 * wider layers take the per-step kernels and GEMMs below. 512, not 1024: the emulated
 * runtime counts every kernel's static shared memory in one launch (tests/cuemu), and with
 * the column sums' trees (norm.cu, elementwise.cu) 1024 passed its 48 KiB. TimeGAN's widths
 * are far below either. */
#define GEN_GRU_SEQ_MAXH 512
#define GEN_GRU_SEQ_THREADS(H) ((unsigned)((H) < 32 ? 32 : (H) > 256 ? 256 : ((H) + 31) / 32 * 32))

__global__ void k_gru_fwd_seq(float *__restrict__ y, float *__restrict__ save,
                              const float *__restrict__ h0, const float *__restrict__ Wh, int B,
                              int T, int H) {
    __shared__ float hs[GEN_GRU_SEQ_MAXH];
    for (int b = (int)blockIdx.x; b < B; b += (int)gridDim.x) {
        for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) hs[j] = h0 ? h0[(size_t)b * H + j] : 0.0f;
        __syncthreads();
        for (int t = 0; t < T; t++) {
            size_t row = (size_t)b * T + t;
            float *s = save + row * 4 * H;
            for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) {
                if (t > 0 || h0) { /* no h_{-1}: the products are zero, as k_gru_step's */
                    const float *wr = Wh + (size_t)j * H, *wz = wr + (size_t)H * H,
                                *wn = wz + (size_t)H * H;
                    float ar = 0.0f, az = 0.0f, an = 0.0f;
                    for (int k = 0; k < H; k++) {
                        float hk = hs[k];
                        ar = fmaf(hk, wr[k], ar);
                        az = fmaf(hk, wz[k], az);
                        an = fmaf(hk, wn[k], an);
                    }
                    s[j] += ar;
                    s[H + j] += az;
                    s[2 * H + j] += an;
                }
                float r = gru_sigm(s[j]), z = gru_sigm(s[H + j]);
                float nn = tanhf(s[3 * H + j] + r * s[2 * H + j]);
                s[j] = r;
                s[H + j] = z;
                s[3 * H + j] = nn;
                y[row * H + j] = (1.0f - z) * nn + z * hs[j];
            }
            __syncthreads(); /* every unit has read h_{t-1} */
            for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) hs[j] = y[row * H + j];
            __syncthreads();
        }
    }
}

genesis_status gen_cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                  const float *h0, const float *W, const float *b, int B, int T,
                                  int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C; /* W_hh (3H x H) after W_ih (3H x C) */
    GEN_LAUNCH1D(cu, BT * H4, k_gru_bias_rows, save, b, BT, H);
    if (C > 0) { /* r, z into columns [0, 2H), the input n part into [3H, 4H) */
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, (int)BT, 2 * H, C, 1.0f, x, C, W, C, 1.0f, save, H4));
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, (int)BT, H, C, 1.0f, x, C, W + (size_t)2 * H * C, C,
                               1.0f, save + H3, H4));
    }
    if (H <= GEN_GRU_SEQ_MAXH) { /* one launch for the whole recurrence */
        GEN_LAUNCH(k_gru_fwd_seq, ((unsigned)B < GEN_CUDA_MAX_BLOCKS ? (unsigned)B : GEN_CUDA_MAX_BLOCKS),
                   GEN_GRU_SEQ_THREADS(H), 0, cu->stream)(y, save, h0, Wh, B, T, H);
        GEN_CUDA_LAUNCHED(cu);
        return GENESIS_OK;
    }
    for (int t = 0; t < T; t++) {
        float *st = save + (size_t)t * H4;
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        /* the three gates' recurrent products in one GEMM: columns [0, 3H) += h_{t-1} W_hh^T */
        if (hp)
            GEN_TRY_ST(gen_cu_gemm(cu, 0, 1, B, H3, H, 1.0f, hp, ldh, Wh, H, 1.0f, st, T * H4));
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_step, y, save, hp, ldh, B, T, t, H);
    }
    return GENESIS_OK;
}

/* backward step t: dh (in) = dL/dh_t from later steps; writes G = [dR, dZ, q = dN r, dN],
 * Yp = h_{t-1} (zeros without one) and dh (out) = z * delta, the direct path to h_{t-1} */
__global__ void k_gru_bwd(float *__restrict__ G, float *__restrict__ Yp, float *__restrict__ dh,
                          const float *__restrict__ dy, const float *__restrict__ save,
                          const float *__restrict__ hp, int ldh, int B, int T, int t, int H) {
    size_t n = (size_t)B * H;
    GEN_GRID_LOOP(i, n) {
        int b = (int)(i / H), j = (int)(i % H);
        size_t row = (size_t)b * T + t;
        const float *s = save + row * 4 * H;
        float *g = G + row * 4 * H;
        float r = s[j], z = s[H + j], hn = s[2 * H + j], nn = s[3 * H + j];
        float hprev = hp ? hp[(size_t)b * ldh + j] : 0.0f;
        float d = dh[i] + dy[row * H + j];
        float dn = d * (1.0f - z) * (1.0f - nn * nn);
        g[3 * H + j] = dn;
        g[H + j] = d * (hprev - nn) * z * (1.0f - z);
        g[j] = dn * hn * r * (1.0f - r);
        g[2 * H + j] = dn * r;
        Yp[row * H + j] = hprev;
        dh[i] = d * z;
    }
}

/* The fused backward recurrence: k_gru_bwd's step for every t in one launch, a block per
 * batch row (grid-stride) as k_gru_fwd_seq; the step's [dR, dZ, q] of the row go to shared
 * memory, and each unit j adds column j of W_hh against them (the gradient reaching h_{t-1}
 * through the gates, summed in gate-row order with FMA) to its z delta; dh (B x H, the
 * work's last part) ends holding the gradient reaching h_{-1}, as the per-step path's. */
__global__ void k_gru_bwd_seq(float *__restrict__ G, float *__restrict__ Yp,
                              float *__restrict__ dh, const float *__restrict__ dy,
                              const float *__restrict__ save, const float *__restrict__ y,
                              const float *__restrict__ h0, const float *__restrict__ Wh, int B,
                              int T, int H) {
    __shared__ float gs[3 * GEN_GRU_SEQ_MAXH];
    for (int b = (int)blockIdx.x; b < B; b += (int)gridDim.x) {
        float *dhb = dh + (size_t)b * H;
        for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) dhb[j] = 0.0f;
        for (int t = T - 1; t >= 0; t--) {
            size_t row = (size_t)b * T + t;
            const float *hp = t ? y + (row - 1) * H : h0 ? h0 + (size_t)b * H : NULL;
            const float *s = save + row * 4 * H;
            float *g = G + row * 4 * H;
            for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) {
                float r = s[j], z = s[H + j], hn = s[2 * H + j], nn = s[3 * H + j];
                float hprev = hp ? hp[j] : 0.0f;
                float d = dhb[j] + dy[row * H + j];
                float dn = d * (1.0f - z) * (1.0f - nn * nn);
                float dz = d * (hprev - nn) * z * (1.0f - z), dr = dn * hn * r * (1.0f - r);
                g[3 * H + j] = dn;
                g[H + j] = dz;
                g[j] = dr;
                g[2 * H + j] = dn * r;
                Yp[row * H + j] = hprev;
                dhb[j] = d * z;
                gs[j] = dr;
                gs[H + j] = dz;
                gs[2 * H + j] = dn * r;
            }
            __syncthreads();
            if (hp) /* dh_{t-1} = z delta + [dR, dZ, q] . W_hh */
                for (int j = (int)threadIdx.x; j < H; j += (int)blockDim.x) {
                    float acc = 0.0f;
                    for (int i = 0; i < 3 * H; i++) acc = fmaf(gs[i], Wh[(size_t)i * H + j], acc);
                    dhb[j] += acc;
                }
            __syncthreads(); /* gs is rewritten by the next step */
        }
    }
}

__global__ void k_add(float *__restrict__ a, const float *__restrict__ b, size_t n) {
    GEN_GRID_LOOP(i, n) a[i] += b[i];
}

/* The recurrence in one launch (k_gru_bwd_seq; wider than GEN_GRU_SEQ_MAXH: per step one
 * element-wise kernel and one GEMM, the gradient reaching h_{t-1} through all three gates);
 * the weight, input and bias gradients are GEMMs and column sums over all B*T rows after the
 * loop (the recurrent weights' against Yp). */
genesis_status gen_cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                   float *work, const float *dy, const float *x,
                                   const float *h0, const float *y, const float *save,
                                   const float *W, int B, int T, int C, int H) {
    const int H3 = 3 * H, H4 = 4 * H;
    const size_t BT = (size_t)B * T;
    const float *Wh = W + (size_t)H3 * C;
    float *G = work, *Yp = G + BT * H4, *dh = Yp + BT * H;
    if (H <= GEN_GRU_SEQ_MAXH) { /* one launch for the whole recurrence */
        GEN_LAUNCH(k_gru_bwd_seq, ((unsigned)B < GEN_CUDA_MAX_BLOCKS ? (unsigned)B : GEN_CUDA_MAX_BLOCKS),
                   GEN_GRU_SEQ_THREADS(H), 0, cu->stream)(G, Yp, dh, dy, save, y, h0, Wh, B, T, H);
        GEN_CUDA_LAUNCHED(cu);
    } else {
        GEN_CUDA_TRY(cu, cudaMemsetAsync(dh, 0, (size_t)B * H * sizeof(float), cu->stream));
    }
    for (int t = T - 1; t >= 0 && H > GEN_GRU_SEQ_MAXH; t--) {
        const float *hp = t ? y + (size_t)(t - 1) * H : h0;
        int ldh = t ? T * H : H;
        GEN_LAUNCH1D(cu, (size_t)B * H, k_gru_bwd, G, Yp, dh, dy, save, hp, ldh, B, T, t, H);
        if (!hp) continue;
        /* dh_{t-1} = z delta + [dR, dZ, q] . W_hh */
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, B, H, H3, 1.0f, G + (size_t)t * H4, T * H4, Wh, H, 1.0f,
                               dh, H));
    }
    if (dh0 && h0) GEN_LAUNCH1D(cu, (size_t)B * H, k_add, dh0, dh, (size_t)B * H);
    if (dx && C > 0) { /* dx += [dR, dZ] . W_ir|iz + dN . W_in */
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, (int)BT, C, 2 * H, 1.0f, G, H4, W, C, 1.0f, dx, C));
        GEN_TRY_ST(gen_cu_gemm(cu, 0, 0, (int)BT, C, H, 1.0f, G + H3, H4, W + (size_t)2 * H * C, C,
                               1.0f, dx, C));
    }
    if (dW) { /* dW_ir|iz += [dR, dZ]^T x; dW_in += dN^T x; dW_hh += [dR, dZ, q]^T Yp */
        if (C > 0) {
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, 2 * H, C, (int)BT, 1.0f, G, H4, x, C, 1.0f, dW, C));
            GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H, C, (int)BT, 1.0f, G + H3, H4, x, C, 1.0f,
                                   dW + (size_t)2 * H * C, C));
        }
        GEN_TRY_ST(gen_cu_gemm(cu, 1, 0, H3, H, (int)BT, 1.0f, G, H4, Yp, H, 1.0f,
                               dW + (size_t)H3 * C, H));
    }
    if (db) {
        GEN_TRY_ST(gen_cu_colsum_acc(cu, db, G, H4, (int)BT, 2 * H));           /* b_ir, b_iz */
        GEN_TRY_ST(gen_cu_colsum_acc(cu, db + 2 * H, G + H3, H4, (int)BT, H));  /* b_in */
        GEN_TRY_ST(gen_cu_colsum_acc(cu, db + H3, G, H4, (int)BT, H3));         /* b_hr, b_hz, b_hn */
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
 * same cell and weight layout either way (backend.h). While a step is recorded (graph.cu),
 * the kernels of gru.cu: cuDNN's route rebuilds a slot's buffers (a wait and cudaMalloc)
 * when the same network runs on another batch size, as TimeGAN's supervisor does within an
 * iteration (2B rows, then B), which a capture refuses. A recorded step runs its forward and
 * backward passes both here, so the two routes never meet within a step. */
static genesis_status cu_gru_forward(gen_cuda *cu, float *y, float *save, const float *x,
                                     const float *h0, const float *W, const float *b, int B, int T,
                                     int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru && !cu->capturing)
        return gen_cudnn_gru_op_forward(cu, cu->dnn_gru, y, save, x, h0, W, b, B, T, C, H);
#endif
    return gen_cu_gru_forward(cu, y, save, x, h0, W, b, B, T, C, H);
}

static genesis_status cu_gru_backward(gen_cuda *cu, float *dx, float *dh0, float *dW, float *db,
                                      float *work, const float *dy, const float *x,
                                      const float *h0, const float *y, const float *save,
                                      const float *W, int B, int T, int C, int H) {
#ifdef GEN_HAVE_CUDNN
    if (cu->dnn_gru && !cu->capturing)
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
