/*
 * gru_cudnn.cuh — cuDNN 9's GRU (gru_cudnn.cu, built where CMake finds cuDNN): the
 * backend's gru_forward / gru_backward on cuDNN (the op layer, same cell and weight layout
 * as backend.h), and below it a stack API (CUDNN_GRU semantics: reset after the recurrent
 * matmul, double bias; batch-major [B][T][vec] data, equal lengths). Compile-checked only.
 */
#ifndef GEN_GRU_CUDNN_CUH
#define GEN_GRU_CUDNN_CUH

#include "cuda_common.cuh"

typedef struct gen_cudnn_gru gen_cudnn_gru;

/* A stack of L layers, input width `in`, hidden H, for batches of exactly B sequences of T. */
genesis_status gen_cudnn_gru_create(gen_cuda *cu, int in, int H, int L, int B, int T,
                                    gen_cudnn_gru **out);
void gen_cudnn_gru_free(gen_cudnn_gru *g);
/* Bytes of the (opaque) weight space; dW spaces have the same size. */
size_t gen_cudnn_gru_weight_bytes(const gen_cudnn_gru *g);
/* Matrix (rows x cols, row-major; gate = W . x) and bias of `lin` (0..2 input-side r, z, h';
 * 3..5 recurrent r, z, h') of `layer` inside `wspace` (or a dW space). */
genesis_status gen_cudnn_gru_param(gen_cudnn_gru *g, void *wspace, int layer, int lin,
                                   float **mat, int *rows, int *cols, float **bias);
/* y (B, T, H) = stack(x (B, T, in)); train = 1 fills the reserve for the backward pass. */
genesis_status gen_cudnn_gru_forward(gen_cudnn_gru *g, const void *wspace, const float *x,
                                     float *y, int train);
/* After a training forward on the same x: dx = d/dx (written), dW space += (ADD; NULL skips
 * the weight gradients; BackwardData always runs first, as cuDNN requires). */
genesis_status gen_cudnn_gru_backward(gen_cudnn_gru *g, const void *wspace, void *dwspace,
                                      const float *x, const float *y, const float *dy, float *dx);

/* The op layer: one cuDNN handle and a slot per layer (keyed by the caller's save buffer,
 * which is left unwritten; see gru_cudnn.cu). Semantics of the two ops: backend.h. */
typedef struct gen_cudnn_gru_ops gen_cudnn_gru_ops;
genesis_status gen_cudnn_gru_ops_create(gen_cuda *cu, gen_cudnn_gru_ops **out);
void gen_cudnn_gru_ops_free(gen_cudnn_gru_ops *o);
genesis_status gen_cudnn_gru_op_forward(gen_cuda *cu, gen_cudnn_gru_ops *o, float *y, float *save,
                                        const float *x, const float *h0, const float *W,
                                        const float *b, int B, int T, int C, int H);
genesis_status gen_cudnn_gru_op_backward(gen_cuda *cu, gen_cudnn_gru_ops *o, float *dx, float *dh0,
                                         float *dW, float *db, const float *dy, const float *x,
                                         const float *h0, const float *y, const float *save,
                                         int B, int T, int C, int H);

#endif /* GEN_GRU_CUDNN_CUH */
