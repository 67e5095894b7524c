/*
 * tvae.h — TVAE's network state and its explicit forward/backward functions (tvae.c),
 * exposed to the model glue (tvae_model.c) and to the gradient tests.
 */
#ifndef GEN_TVAE_H
#define GEN_TVAE_H

#include "memory_model.h"
#include "backend.h"
#include "model.h"

#define TV_NT 15

typedef struct tvae_config {
    int batch, data_dim, emb, hid;
    float loss_factor;
    int train;   /* 0: decoder use only (a loaded model): no gradient or Adam buffers */
    /* data parallel (docs/distributed.md): `batch` is the global batch; each rank holds a
     * slice of at most ceil(batch / ranks) rows. NULL or one rank: one worker. */
    struct gen_comm *comm;
    int precision; /* GEN_PREC_* of the GEMMs; FP16 training adds loss scaling */
    /* 1: the decoder outputs one alpha per slot of each continuous column instead of one per
     * column (docs/algorithms.md, "One alpha per mode"); 0: the reference's layout */
    int alpha_per_mode;
    /* the decoder's output width: data_dim, or with alpha_per_mode tvae_out_dim(); 0 = let
     * tvae_create compute it from the spans (tvae_memory, which has no spans, needs it) */
    int out_dim;
    /* 1 (training): gradient checkpointing (docs/memory.md): the encoder's activations share
     * the decoder's buffers and the encoder is recomputed from x in the backward pass */
    int ckpt;
} tvae_config;

/* Floats after the gradient arena that carry the loss sums through the gradient all-reduce. */
#define TV_RED_TAIL 2
/* Backend floats where each step leaves its two loss sums, its gradient sum and the epoch's
 * running sum (index 4; non-finite once any step was), read once per epoch. */
#define TV_LEDGER 8
/* Each epoch's shuffled row order is uploaded in chunks of at most this many bytes. */
#define TV_ORDER_CHUNK_BYTES ((size_t)4 << 20)

/* Named slices of the parameter (or gradient) arena. */
typedef struct tvae_tensors {
    float *eW1, *eb1, *eW2, *eb2;     /* encoder (hid, D) (hid) (hid, hid) (hid) */
    float *mW, *mb, *vW, *vb;         /* mu and logvar heads (emb, hid) (emb) */
    float *dW1, *db1, *dW2, *db2;     /* decoder (hid, emb) (hid) (hid, hid) (hid) */
    float *dW3, *db3;                 /* (Dr, hid) (Dr) */
    float *sigma;                     /* (D) learned output scale, indexed like the encoded row;
                                         only alpha positions matter */
} tvae_tensors;

typedef struct tvae_acts {
    float *x;                                   /* (B, D) encoded batch */
    float *a1, *h1, *a2, *h2, *mu, *lv;          /* encoder */
    float *eps, *std, *z;                        /* (B, emb) */
    float *c1, *k1, *c2, *k2, *r;                /* decoder; r (B, Dr) */
    float *dr, *dk2, *dc2, *dk1, *dc1, *dz, *dmu, *dlv, *dh2, *da2, *dh1, *da1;
    float *out;                                  /* (B, Dr) activated output (sampling) */
    /* act16 (BF16/FP16, docs/precision.md "Memory"): the four ReLU outputs in 16 bits, read
     * only as the next product's input and for the ReLU's sign; h1 .. k2 above are then
     * NULL and a1, a2, c1, c2 share one FP32 buffer (each is read only by its ReLU) */
    uint16_t *h1s, *h2s, *k1s, *k2s;
    float *scal;                                 /* losses */
} tvae_acts;

typedef struct tvae {
    gen_backend *be;
    int B, D, emb, hid;
    int Dr;                    /* the decoder's output width (D without alpha_per_mode) */
    int alpha_per_mode;
    float loss_factor;
    int train;                 /* 0: decoder only; the encoder and gradient buffers are empty */
    int ckpt;                  /* gradient checkpointing (training; tvae_config.ckpt) */
    int nspans;
    gen_act_span *spans;       /* the decoder output's activation spans (r's layout) */
    gen_recon_span *rspans;    /* the reconstruction loss's spans (x's layout, r's positions) */
    size_t count;
    float *params, *grads, *m, *v;
    tvae_tensors p, g;
    float *acts;
    uint16_t *acts16;                 /* the 16-bit activations (act16), or NULL */
    int act16;                        /* gen_act16(precision): ReLU outputs stored in 16 bits */
    float *ledger;                    /* TV_LEDGER floats of backend memory (training) */
    tvae_acts act;
    uint64_t seed, noise_off;
    int64_t step;
    float lr, decay;
    /* the step's per-step values in backend memory (backend.h; docs/cuda.md "CUDA graphs"):
     * the step state, then the step's block of row ids (B), one allocation */
    gen_step_state *state;
    int32_t *cur;
    gen_step_state state_host;        /* the host's mirror of *state */
    gen_step_state step_delta;        /* what a full step adds to it */
    int64_t steps_done;
    gen_graph *graph;                 /* the recorded full step (tvae_train_step_chunk) */
    const gen_dev_table *graph_table; /* what it reads */
    const int32_t *graph_chunk;
    /* data parallel: K ranks (K == 1: no collective), the global batch Bg */
    struct gen_comm *comm;
    int K, rank, Bg;
    genesis_status comm_st;
    /* FP16 training (docs/precision.md): the loss-scaling state in backend memory; NULL in
     * every other precision */
    gen_amp *amp;
    int fp16;
} tvae;

/* spans: the encoded row's layout (the transformer's). With cfg->alpha_per_mode the decoder's
 * layout is derived from it: each continuous column (a tanh span of len 1 followed by its
 * softmax span of K slots) becomes K alphas then the K slot logits. */
genesis_status tvae_create(genesis_ctx *ctx, gen_backend *be, const tvae_config *cfg,
                           const gen_act_span *spans, int nspans, tvae **out);
/* The decoder's output width for the encoded layout `spans` of width D: D, or with
 * alpha_per_mode D plus (K - 1) per continuous column of K slots. */
int tvae_out_dim(int D, const gen_act_span *spans, int nspans, int alpha_per_mode);
/* Activated decoder rows (B, Dr; the sampling output in r's layout) to encoded rows (B, D,
 * row stride ld): each continuous column's slot is the first argmax of its activated slot
 * span, and its alpha the one of that slot. Without alpha_per_mode a plain copy. */
void tvae_to_encoded(const tvae *t, const float *r, int B, float *x, int ld);
void tvae_free(tvae *t);
/* Bytes a network of this configuration allocates (memory_model.h), by tvae_create's own
 * size tables. */
void tvae_memory(const tvae_config *cfg, gen_net_bytes *out);
genesis_status tvae_init_weights(tvae *t, uint64_t seed);

/* Forward of B rows of act.x through encoder, reparameterisation and decoder; returns the
 * loss (reconstruction * loss_factor / B + KL / B) and, when `backward`, accumulates all
 * gradients into t->grads (zeroed first). act.eps must hold the noise. */
float tvae_forward_backward(tvae *t, int B, int backward);
/* Decoder only: act.z (B, emb) -> act.r (B, D). */
void tvae_decode(tvae *t, int B);
/* As tvae_forward_backward, with the losses scaled by N rows (the global batch, of which
 * these B rows are a slice): the sum over ranks is the loss and gradient of all N rows. The
 * loss sums stay in act.scal (nothing is read back; tvae_read_loss reads them). */
void tvae_forward_backward_n(tvae *t, int B, int N, int backward);
float tvae_read_loss(tvae *t);
/* One optimiser step on the batch already in act.x (B rows), and its loss read back (tests). */
genesis_status tvae_train_step(tvae *t, int B, float *loss);
/* One optimiser step on this rank's B rows, global rows first .. first + B of a global batch
 * of N rows (K == 1: first 0, N == B); gradients and losses are summed over ranks. Reads
 * nothing back: the losses and the divergence check wait in the ledger for tvae_epoch_end. */
genesis_status tvae_train_step_slice(tvae *t, int B, int N, int first);
/* Reads the ledger once: the last step's loss, or the epoch's divergence. */
genesis_status tvae_epoch_end(tvae *t, int epoch, float *loss);
/* Uploads the step state: the host's counters (noise_off, step) and the index k of the next
 * step's block in the uploaded chunk of row ids. */
void tvae_state_upload(tvae *t, int64_t k);
/* One full step (B rows, one rank) on the rows of block k of `chunk` (k from the device step
 * state, advanced by every step): gathers them from the resident table, then as
 * tvae_train_step_slice(t, B, B, 0). With a backend that records (CUDA), the second such step
 * is recorded as a CUDA graph and every later one replays it (docs/cuda.md "CUDA graphs"). */
genesis_status tvae_train_step_chunk(tvae *t, const gen_dev_table *table, const int32_t *chunk);
/* Frees the recorded step (the end of a fit). */
void tvae_graph_free(tvae *t);
/* The fit under differential privacy (tvae_dp.c, docs/privacy.md): DP-SGD with Poisson
 * batches, per-example clipping to m->dp.clip and Gaussian noise of m->dp.sigma, for
 * m->dp.steps steps, on the freshly initialised network t. */
genesis_status tvae_dp_fit(genesis_model *m, tvae *t, const gen_encoded *enc,
                           genesis_progress_fn progress, void *user);
/* DP-SGD's clipped gradient of the b rows in act.x (act.eps holds their noise): sum (every
 * parameter but sigma, count - D floats) += sum_b min(1, clip / |grad_b|) grad_b, grad_b row
 * b's own gradient; sq[b] = |grad_b|^2 and s[b] its factor (b floats each); the per-row
 * loss sums are added to loss[0..1] (NULL: not). Overwrites t->grads. */
void tvae_dp_clip_rows(tvae *t, int b, float *sum, float *sq, float *s, float clip, float *loss);

#endif /* GEN_TVAE_H */
