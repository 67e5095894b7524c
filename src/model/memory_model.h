/*
 * memory_model.h — the internal side of the memory model (src/model/estimate.c): what each
 * network allocates, reported by the network's own code from the same size tables its
 * create function uses (ctgan_memory, tvae_memory), so the estimate cannot drift from the
 * allocation. Derivation of every term: docs/memory.md.
 */
#ifndef GEN_MEMORY_MODEL_H
#define GEN_MEMORY_MODEL_H

#include <stdint.h>

typedef struct gen_net_bytes {
    uint64_t params;     /* weights and batch-norm statistics (backend memory) */
    uint64_t optimizer;  /* gradients, Adam moments and training index buffers (backend) */
    uint64_t acts;       /* the activation arena at the configured batch (backend) */
    uint64_t host;       /* host-side scratch the network keeps or allocates per step */
    uint64_t gemm_operands; /* the most elements of op(A) + op(B) in one of the network's
                               products: what mixed precision copies (docs/precision.md) */
    uint64_t gemm_convert;  /* the same without the operands stored in 16 bits (activations
                               of BF16/FP16 training, docs/precision.md "Memory"): what the
                               CUDA backend converts to 16 bits */
} gen_net_bytes;

/* The largest op(A) + op(B) (elements) of a linear layer on R rows, C inputs, OC outputs:
 * the forward (R x C, OC x C), dinp (R x OC, OC x C) and dW (R x OC, R x C) products */
static inline uint64_t gen_linear_operands(uint64_t R, uint64_t C, uint64_t OC) {
    uint64_t f = R * C + OC * C, d = R * OC + OC * C, w = R * OC + R * C;
    uint64_t m = f > d ? f : d;
    return m > w ? m : w;
}
static inline void gen_max_operands(gen_net_bytes *b, uint64_t n) {
    if (n > b->gemm_operands) b->gemm_operands = n;
}
/* A linear layer's products (as gen_linear_operands) in both counts: every operand, and the
 * ones stored FP32, the input (R x C) not when inp16 (stored in 16 bits) */
static inline void gen_linear_products(gen_net_bytes *b, uint64_t R, uint64_t C, uint64_t OC,
                                       int inp16) {
    gen_max_operands(b, gen_linear_operands(R, C, OC));
    uint64_t x = inp16 ? 0 : R * C, f = x + OC * C, d = R * OC + OC * C, w = R * OC + x;
    uint64_t m = f > d ? f : d;
    m = m > w ? m : w;
    if (m > b->gemm_convert) b->gemm_convert = m;
}

/* What a network is sized by: rows per batch, the encoded row width, the conditional vector
 * width (CTGAN), and whether it trains (gradients, optimiser, discriminator/encoder). */
typedef struct gen_net_shape {
    int batch, data_dim, cond_dim, train;
    int64_t nrows;       /* training rows (fit; 0 otherwise): per-fit index buffers */
    int mode_extra;      /* the continuous columns' slots beyond the first, summed: the
                            outputs a TVAE decoder with one alpha per mode adds */
    int sample_rows;     /* sampling: the rows the model generates at once (its group; 0
                            when fitting): a model whose group is not its batch adds a
                            network for it (DDPM on a GPU) */
} gen_net_shape;

#endif /* GEN_MEMORY_MODEL_H */
