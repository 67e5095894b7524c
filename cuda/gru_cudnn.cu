/*
 * gru_cudnn.cu — an optional cuDNN 9 GRU stack (CUDNN_GRU: the reset gate applied AFTER the
 * recurrent matmul, two biases per gate, i.e. PyTorch's nn.GRU / Keras reset_after=True; NOT
 * the TF1 cell of backend.h, see docs/timegan.md §3). Built only with -DGENESIS_CUDNN=ON;
 * not wired into the backend table or the TimeGAN model, because a model trained with one
 * cell cannot run with the other: using it means a second cell type with its own weights.
 *
 * Calls (docs/algorithms.md §S9, cuDNN 9.19 cudnn_adv.h): cudnnSetRNNDescriptor_v8 (STANDARD
 * algo, DOUBLE_BIAS, unidirectional, LINEAR_INPUT, FP32 with FMA math so results are
 * reproducible, projSize = hiddenSize, PADDED_IO_ENABLED for the batch-major unpacked layout),
 * RNN data descriptors for [B][T][vec], cudnnGetRNNTempSpaceSizes, cudnnRNNForward,
 * cudnnRNNBackwardData_v8 then cudnnRNNBackwardWeights_v8 (ADD into a zeroed dW, after
 * BackwardData, with the same reserve), cudnnGetRNNWeightParams to locate per-gate matrices
 * (never hard-coded offsets). Zero initial state (hx = NULL), no gradient into hy.
 *
 * Status: compile-checked only (no GPU in the session that wrote it); the NULL semantics of
 * hx/dhy/dhx/devSeqLengths follow PyTorch's usage and must be verified with a
 * finite-difference test on a device (docs/algorithms.md §S9.6) before anything builds on it.
 */
#ifdef GEN_HAVE_CUDNN
#include <cudnn.h>

#include "gru_cudnn.cuh"

#define GEN_CUDNN_TRY(cu, call) \
    GEN_GPU_TRY_GEN(cu, call, CUDNN_STATUS_SUCCESS, cudnnGetErrorString, GENESIS_ERR_CUDA)

struct gen_cudnn_gru {
    gen_cuda *cu;
    int in, H, L, B, T;
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
    if (g->h) cudnnDestroy(g->h);
    free(g);
}

static genesis_status cudnn_gru_setup(gen_cudnn_gru *g) {
    gen_cuda *cu = g->cu;
    GEN_CUDNN_TRY(cu, cudnnCreate(&g->h));
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

genesis_status gen_cudnn_gru_create(gen_cuda *cu, int in, int H, int L, int B, int T,
                                    gen_cudnn_gru **out) {
    *out = NULL;
    gen_cudnn_gru *g = (gen_cudnn_gru *)calloc(1, sizeof *g);
    if (!g) return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "calloc", __FILE__, __LINE__, "out of memory");
    g->cu = cu;
    g->in = in; g->H = H; g->L = L; g->B = B; g->T = T;
    genesis_status st = cudnn_gru_setup(g);
    if (st != GENESIS_OK) {
        gen_cudnn_gru_free(g);
        return st;
    }
    *out = g;
    return GENESIS_OK;
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
#endif /* GEN_HAVE_CUDNN */
