/*
 * gru_cudnn.cu — the CUDA backend's GRU operations on cuDNN 9 (CUDNN_GRU: the reset gate
 * applied AFTER the recurrent matmul, two biases per gate, i.e. PyTorch's nn.GRU and the
 * cell of backend.h, src/backend/cpu/gru.c and cuda/gru.cu), plus the stack API below it.
 * Built where CMake finds cuDNN (GENESIS_CUDNN=AUTO|ON); backend_cuda.cu then routes
 * gru_forward / gru_backward here (GENESIS_CUDNN_GRU=0 at run time keeps the kernels of
 * gru.cu).
 *
 * Calls (docs/algorithms.md §S9, cuDNN 9.19 cudnn_adv.h): cudnnSetRNNDescriptor_v8 (STANDARD
 * algo, DOUBLE_BIAS, unidirectional, LINEAR_INPUT, FP32 with FMA math so results are
 * reproducible, projSize = hiddenSize, PADDED_IO_ENABLED for the batch-major unpacked layout),
 * RNN data descriptors for [B][T][vec], cudnnGetRNNTempSpaceSizes, cudnnRNNForward,
 * cudnnRNNBackwardData_v8 then cudnnRNNBackwardWeights_v8 (ADD into a zeroed dW, after
 * BackwardData, with the same reserve), cudnnGetRNNWeightParams to locate per-gate matrices
 * (never hard-coded offsets).
 *
 * Weights. backend.h keeps W = W_ih (3H x C) | W_hh (3H x H), row-major, gate rows r, z, n,
 * and b = b_ih | b_hh. cuDNN's weight space is opaque; cudnnGetRNNWeightParams gives, for
 * linLayerID 0, 1, 2 (input side) and 3, 4, 5 (recurrent side), the address of one gate's
 * matrix, an (H x in) row-major block (its descriptor is {1, H, in}), and of its bias. The
 * gate order of CUDNN_GRU's linLayerIDs is r, z, n (NVIDIA, cuDNN API reference,
 * cudnnGetRNNWeightParams: "values 0 and 3 reference the reset gate, 1 and 4 the update
 * gate, 2 and 5 the new memory gate"; PyTorch relies on the same order when it copies
 * weight_ih_l0 = W_ir|W_iz|W_in into cuDNN's weight space). So the repack is 12 plain
 * device copies, block g of W_ih to linLayer g, block g of W_hh to linLayer 3 + g, and the
 * same for the biases; the gradients come back the same way (cuBLAS axpy, because the
 * backend's backward adds). The dimensions cuDNN reports are checked against (H, in).
 *
 * The op layer. The backend's gru_forward / gru_backward are per layer, and cuDNN's backward
 * needs the reserve space its forward filled. The caller's `save` buffer (one per layer in
 * the models) is the key: each distinct save pointer gets a slot with its own descriptors,
 * weight spaces, work and reserve, rebuilt when the shape changes; backward finds the slot
 * of its forward. The `save` and `work` buffers themselves are not written (backend.h
 * allows it); tests/parity/ therefore runs with GENESIS_CUDNN_GRU=0 and
 * checks the kernels of gru.cu. There is no parity case for this route yet.
 *
 * Status: compile-checked only (no GPU in the sessions that wrote it). Before results from a
 * GPU are trusted, the cuDNN route needs its parity run against the CPU (y, dx, dh0, dW,
 * db) on a device.
 */
#ifdef GEN_HAVE_CUDNN
#include <cudnn.h>
#include <stdlib.h>
#include <string.h>

#include "gru_cudnn.cuh"

#define GEN_CUDNN_TRY(cu, call) \
    GEN_GPU_TRY_GEN(cu, call, CUDNN_STATUS_SUCCESS, cudnnGetErrorString, GENESIS_ERR_CUDA)

#define GEN_TRY_DNN(call)                               \
    do {                                                \
        genesis_status st_ = (call);                    \
        if (st_ != GENESIS_OK) return st_;              \
    } while (0)

struct gen_cudnn_gru {
    gen_cuda *cu;
    int in, H, L, B, T;
    int own_h;             /* 0: h belongs to the op layer's cache */
    cudnnHandle_t h;
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t drop;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd;
    int32_t *lens_dev;
    int *lens_host;
    size_t wbytes, work_bytes, reserve_bytes;
    void *work, *reserve;
};

void gen_cudnn_gru_free(gen_cudnn_gru *g) {
    if (!g) return;
    if (g->cu && g->cu->stream) cudaStreamSynchronize(g->cu->stream);
    cudaFree(g->work);
    cudaFree(g->reserve);
    cudaFree(g->lens_dev);
    free(g->lens_host);
    if (g->hd) cudnnDestroyTensorDescriptor(g->hd);
    if (g->xd) cudnnDestroyRNNDataDescriptor(g->xd);
    if (g->yd) cudnnDestroyRNNDataDescriptor(g->yd);
    if (g->rnn) cudnnDestroyRNNDescriptor(g->rnn);
    if (g->drop) cudnnDestroyDropoutDescriptor(g->drop);
    if (g->h && g->own_h) cudnnDestroy(g->h);
    free(g);
}

static genesis_status cudnn_gru_setup(gen_cudnn_gru *g) {
    gen_cuda *cu = g->cu;
    if (!g->h) {
        GEN_CUDNN_TRY(cu, cudnnCreate(&g->h));
        g->own_h = 1;
    }
    GEN_CUDNN_TRY(cu, cudnnSetStream(g->h, cu->stream));
    GEN_CUDNN_TRY(cu, cudnnCreateDropoutDescriptor(&g->drop));
    GEN_CUDNN_TRY(cu, cudnnSetDropoutDescriptor(g->drop, g->h, 0.0f, NULL, 0, 0));
    GEN_CUDNN_TRY(cu, cudnnCreateRNNDescriptor(&g->rnn));
    GEN_CUDNN_TRY(cu, cudnnSetRNNDescriptor_v8(g->rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_GRU,
                                               CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                               CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT,
                                               CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, g->in, g->H, g->H,
                                               g->L, g->drop, CUDNN_RNN_PADDED_IO_ENABLED));
    g->lens_host = (int *)malloc((size_t)g->B * sizeof(int));
    if (!g->lens_host) return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "malloc", __FILE__, __LINE__, "out of memory");
    for (int b = 0; b < g->B; b++) g->lens_host[b] = g->T; /* equal lengths (docs/timegan.md §1) */
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&g->lens_dev, (size_t)g->B * sizeof(int32_t)));
    GEN_CUDA_TRY(cu, cudaMemcpy(g->lens_dev, g->lens_host, (size_t)g->B * sizeof(int32_t),
                                cudaMemcpyHostToDevice));
    float pad = 0.0f;
    GEN_CUDNN_TRY(cu, cudnnCreateRNNDataDescriptor(&g->xd));
    GEN_CUDNN_TRY(cu, cudnnSetRNNDataDescriptor(g->xd, CUDNN_DATA_FLOAT,
                                                CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, g->T,
                                                g->B, g->in, g->lens_host, &pad));
    GEN_CUDNN_TRY(cu, cudnnCreateRNNDataDescriptor(&g->yd));
    GEN_CUDNN_TRY(cu, cudnnSetRNNDataDescriptor(g->yd, CUDNN_DATA_FLOAT,
                                                CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, g->T,
                                                g->B, g->H, g->lens_host, &pad));
    int dims[3] = {g->L, g->B, g->H}, strides[3] = {g->B * g->H, g->H, 1};
    GEN_CUDNN_TRY(cu, cudnnCreateTensorDescriptor(&g->hd));
    GEN_CUDNN_TRY(cu, cudnnSetTensorNdDescriptor(g->hd, CUDNN_DATA_FLOAT, 3, dims, strides));
    GEN_CUDNN_TRY(cu, cudnnGetRNNWeightSpaceSize(g->h, g->rnn, &g->wbytes));
    GEN_CUDNN_TRY(cu, cudnnGetRNNTempSpaceSizes(g->h, g->rnn, CUDNN_FWD_MODE_TRAINING, g->xd,
                                                &g->work_bytes, &g->reserve_bytes));
    GEN_CUDA_TRY(cu, cudaMalloc(&g->work, g->work_bytes ? g->work_bytes : 256));
    GEN_CUDA_TRY(cu, cudaMalloc(&g->reserve, g->reserve_bytes ? g->reserve_bytes : 256));
    return GENESIS_OK;
}

static genesis_status cudnn_gru_make(gen_cuda *cu, cudnnHandle_t h, int in, int H, int L, int B,
                                     int T, gen_cudnn_gru **out) {
    *out = NULL;
    gen_cudnn_gru *g = (gen_cudnn_gru *)calloc(1, sizeof *g);
    if (!g) return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "calloc", __FILE__, __LINE__, "out of memory");
    g->cu = cu;
    g->h = h;
    g->in = in; g->H = H; g->L = L; g->B = B; g->T = T;
    genesis_status st = cudnn_gru_setup(g);
    if (st != GENESIS_OK) {
        gen_cudnn_gru_free(g);
        return st;
    }
    *out = g;
    return GENESIS_OK;
}

genesis_status gen_cudnn_gru_create(gen_cuda *cu, int in, int H, int L, int B, int T,
                                    gen_cudnn_gru **out) {
    return cudnn_gru_make(cu, NULL, in, H, L, B, T, out);
}

size_t gen_cudnn_gru_weight_bytes(const gen_cudnn_gru *g) { return g->wbytes; }

genesis_status gen_cudnn_gru_param(gen_cudnn_gru *g, void *wspace, int layer, int lin,
                                   float **mat, int *rows, int *cols, float **bias) {
    gen_cuda *cu = g->cu;
    cudnnTensorDescriptor_t md = NULL, bd = NULL;
    GEN_CUDNN_TRY(cu, cudnnCreateTensorDescriptor(&md));
    cudnnStatus_t s = cudnnCreateTensorDescriptor(&bd);
    void *m = NULL, *b = NULL;
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnGetRNNWeightParams(g->h, g->rnn, layer, g->wbytes, wspace, lin, md, &m, bd, &b);
    int nd = 0, dims[3] = {0, 0, 0}, strides[3];
    cudnnDataType_t dt;
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnGetTensorNdDescriptor(md, 3, &dt, &nd, dims, strides);
    cudnnDestroyTensorDescriptor(md);
    if (bd) cudnnDestroyTensorDescriptor(bd);
    GEN_CUDNN_TRY(cu, s);
    *mat = (float *)m;
    *bias = (float *)b;
    *rows = dims[1]; /* a 3-D descriptor {1, rows, cols}: gate = W . x, W rows x cols row-major */
    *cols = dims[2];
    return GENESIS_OK;
}

genesis_status gen_cudnn_gru_forward(gen_cudnn_gru *g, const void *wspace, const float *x,
                                     float *y, int train) {
    GEN_CUDNN_TRY(g->cu, cudnnRNNForward(g->h, g->rnn,
                                         train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                                         g->lens_dev, g->xd, x, g->yd, y, g->hd, NULL, NULL, NULL,
                                         NULL, NULL, g->wbytes, wspace, g->work_bytes, g->work,
                                         train ? g->reserve_bytes : 0, train ? g->reserve : NULL));
    return GENESIS_OK;
}

genesis_status gen_cudnn_gru_backward(gen_cudnn_gru *g, const void *wspace, void *dwspace,
                                      const float *x, const float *y, const float *dy, float *dx) {
    GEN_CUDNN_TRY(g->cu, cudnnRNNBackwardData_v8(g->h, g->rnn, g->lens_dev, g->yd, y, dy, g->xd, dx,
                                                 g->hd, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                 g->wbytes, wspace, g->work_bytes, g->work,
                                                 g->reserve_bytes, g->reserve));
    if (dwspace)
        GEN_CUDNN_TRY(g->cu, cudnnRNNBackwardWeights_v8(g->h, g->rnn, CUDNN_WGRAD_MODE_ADD, g->lens_dev,
                                                        g->xd, x, g->hd, NULL, g->yd, y, g->wbytes,
                                                        dwspace, g->work_bytes, g->work,
                                                        g->reserve_bytes, g->reserve));
    return GENESIS_OK;
}

/* ---- the backend's gru_forward / gru_backward (semantics in backend.h) ------------------- */

typedef struct dnn_slot {
    const float *save;     /* key: the caller's save buffer of this layer */
    int B, T, C, H;
    gen_cudnn_gru *g;      /* one layer; its work and reserve */
    void *w, *dw;          /* weight space and its gradient (g->wbytes each) */
    size_t mat[6], bias[6]; /* float offsets of each linLayer's matrix and bias in w (and dw) */
    float *dx, *dhx;       /* cuDNN writes these; the backend's backward adds them */
} dnn_slot;

struct gen_cudnn_gru_ops {
    cudnnHandle_t h;
    dnn_slot *s;
    int n, cap;
};

static void slot_clear(dnn_slot *s) {
    gen_cudnn_gru_free(s->g);
    cudaFree(s->w);
    cudaFree(s->dw);
    cudaFree(s->dx);
    cudaFree(s->dhx);
    memset(s, 0, sizeof *s);
}

void gen_cudnn_gru_ops_free(gen_cudnn_gru_ops *o) {
    if (!o) return;
    for (int i = 0; i < o->n; i++) slot_clear(&o->s[i]);
    free(o->s);
    if (o->h) cudnnDestroy(o->h);
    free(o);
}

genesis_status gen_cudnn_gru_ops_create(gen_cuda *cu, gen_cudnn_gru_ops **out) {
    *out = NULL;
    gen_cudnn_gru_ops *o = (gen_cudnn_gru_ops *)calloc(1, sizeof *o);
    if (!o) return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "calloc", __FILE__, __LINE__, "out of memory");
    cudnnStatus_t s = cudnnCreate(&o->h);
    if (s != CUDNN_STATUS_SUCCESS) {
        free(o);
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudnnCreate", __FILE__, __LINE__,
                             cudnnGetErrorString(s));
    }
    *out = o;
    return GENESIS_OK;
}

static genesis_status slot_build(gen_cuda *cu, gen_cudnn_gru_ops *o, dnn_slot *s, const float *save,
                                 int B, int T, int C, int H) {
    s->save = save;
    s->B = B; s->T = T; s->C = C; s->H = H;
    genesis_status st = cudnn_gru_make(cu, o->h, C, H, 1, B, T, &s->g);
    if (st != GENESIS_OK) return st;
    GEN_CUDA_TRY(cu, cudaMalloc(&s->w, s->g->wbytes));
    GEN_CUDA_TRY(cu, cudaMalloc(&s->dw, s->g->wbytes));
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&s->dx, (size_t)B * T * (C > 0 ? C : 1) * sizeof(float)));
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&s->dhx, (size_t)B * H * sizeof(float)));
    for (int lin = 0; lin < 6; lin++) {
        float *m = NULL, *b = NULL;
        int rows = 0, cols = 0;
        GEN_TRY_DNN(gen_cudnn_gru_param(s->g, s->w, 0, lin, &m, &rows, &cols, &b));
        if (rows != H || cols != (lin < 3 ? C : H) || !m || !b)
            return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudnnGetRNNWeightParams", __FILE__, __LINE__,
                                 "a GRU gate matrix is not the (H x in) block the repack expects");
        s->mat[lin] = (size_t)(m - (float *)s->w);
        s->bias[lin] = (size_t)(b - (float *)s->w);
    }
    return GENESIS_OK;
}

/* the slot of `save` with this shape: found, rebuilt (shape changed) or added */
static genesis_status slot_for(gen_cuda *cu, gen_cudnn_gru_ops *o, const float *save, int B, int T,
                               int C, int H, int create, dnn_slot **out) {
    *out = NULL;
    for (int i = 0; i < o->n; i++) {
        dnn_slot *s = &o->s[i];
        if (s->save != save) continue;
        if (s->B == B && s->T == T && s->C == C && s->H == H) {
            *out = s;
            return GENESIS_OK;
        }
        if (!create) break;
        GEN_CUDA_TRY(cu, cudaStreamSynchronize(cu->stream)); /* its buffers may be in use */
        slot_clear(s);
        GEN_TRY_DNN(slot_build(cu, o, s, save, B, T, C, H));
        *out = s;
        return GENESIS_OK;
    }
    if (!create)
        return gen_cuda_fail(cu, GENESIS_ERR_STATE, "gru_backward", __FILE__, __LINE__,
                             "no cuDNN GRU forward with this save buffer and shape preceded the backward");
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 16;
        dnn_slot *ns = (dnn_slot *)realloc(o->s, (size_t)cap * sizeof *ns);
        if (!ns) return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "realloc", __FILE__, __LINE__, "out of memory");
        memset(ns + o->cap, 0, (size_t)(cap - o->cap) * sizeof *ns);
        o->s = ns;
        o->cap = cap;
    }
    dnn_slot *s = &o->s[o->n++];
    GEN_TRY_DNN(slot_build(cu, o, s, save, B, T, C, H));
    *out = s;
    return GENESIS_OK;
}

genesis_status gen_cudnn_gru_op_forward(gen_cuda *cu, gen_cudnn_gru_ops *o, float *y, float *save,
                                        const float *x, const float *h0, const float *W,
                                        const float *b, int B, int T, int C, int H) {
    dnn_slot *s;
    GEN_TRY_DNN(slot_for(cu, o, save, B, T, C, H, 1, &s));
    float *w = (float *)s->w;
    /* repack (file comment): gate g of W_ih / b_ih -> linLayer g, of W_hh / b_hh -> 3 + g */
    for (int lin = 0; lin < 6; lin++) {
        int g = lin % 3, in = lin < 3 ? C : H;
        const float *src = lin < 3 ? W + (size_t)g * H * C : W + (size_t)3 * H * C + (size_t)g * H * H;
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(w + s->mat[lin], src, (size_t)H * in * sizeof(float),
                                         cudaMemcpyDeviceToDevice, cu->stream));
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(w + s->bias[lin], b + (size_t)lin * H, (size_t)H * sizeof(float),
                                         cudaMemcpyDeviceToDevice, cu->stream));
    }
    gen_cudnn_gru *g = s->g;
    GEN_CUDNN_TRY(cu, cudnnRNNForward(g->h, g->rnn, CUDNN_FWD_MODE_TRAINING, g->lens_dev, g->xd, x,
                                      g->yd, y, g->hd, h0, NULL, NULL, NULL, NULL, g->wbytes, s->w,
                                      g->work_bytes, g->work, g->reserve_bytes, g->reserve));
    return GENESIS_OK;
}

static genesis_status add_into(gen_cuda *cu, float *dst, const float *src, size_t n) {
    const float one = 1.0f;
    GEN_CUBLAS_TRY(cu, cublasSaxpy(cu->blas, (int)n, &one, src, 1, dst, 1));
    return GENESIS_OK;
}

genesis_status gen_cudnn_gru_op_backward(gen_cuda *cu, gen_cudnn_gru_ops *o, float *dx, float *dh0,
                                         float *dW, float *db, const float *dy, const float *x,
                                         const float *h0, const float *y, const float *save,
                                         int B, int T, int C, int H) {
    dnn_slot *s;
    GEN_TRY_DNN(slot_for(cu, o, save, B, T, C, H, 0, &s));
    gen_cudnn_gru *g = s->g;
    GEN_CUDNN_TRY(cu, cudnnRNNBackwardData_v8(g->h, g->rnn, g->lens_dev, g->yd, y, dy, g->xd, s->dx,
                                              g->hd, h0, NULL, h0 ? s->dhx : NULL, NULL, NULL, NULL,
                                              NULL, g->wbytes, s->w, g->work_bytes, g->work,
                                              g->reserve_bytes, g->reserve));
    if (dx && C > 0) GEN_TRY_DNN(add_into(cu, dx, s->dx, (size_t)B * T * C));
    if (dh0 && h0) GEN_TRY_DNN(add_into(cu, dh0, s->dhx, (size_t)B * H));
    if (!dW && !db) return GENESIS_OK;
    GEN_CUDA_TRY(cu, cudaMemsetAsync(s->dw, 0, g->wbytes, cu->stream));
    GEN_CUDNN_TRY(cu, cudnnRNNBackwardWeights_v8(g->h, g->rnn, CUDNN_WGRAD_MODE_ADD, g->lens_dev, g->xd,
                                                 x, g->hd, h0, g->yd, y, g->wbytes, s->dw,
                                                 g->work_bytes, g->work, g->reserve_bytes,
                                                 g->reserve));
    const float *dw = (const float *)s->dw;
    for (int lin = 0; lin < 6; lin++) {
        int gi = lin % 3, in = lin < 3 ? C : H;
        if (dW && in > 0) {
            float *dst = lin < 3 ? dW + (size_t)gi * H * C : dW + (size_t)3 * H * C + (size_t)gi * H * H;
            GEN_TRY_DNN(add_into(cu, dst, dw + s->mat[lin], (size_t)H * in));
        }
        if (db) GEN_TRY_DNN(add_into(cu, db + (size_t)lin * H, dw + s->bias[lin], (size_t)H));
    }
    return GENESIS_OK;
}
#endif /* GEN_HAVE_CUDNN */
