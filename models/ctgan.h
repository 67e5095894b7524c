/*
 * ctgan.h — CTGAN's network state and its explicit forward/backward functions (ctgan.c),
 * exposed to the model glue (ctgan_model.c) and to the gradient tests.
 */
#ifndef GEN_CTGAN_H
#define GEN_CTGAN_H

#include "memory_model.h"
#include "backend.h"
#include "model.h"
#include "sampler.h"

#define CT_G_NT 10
#define CT_D_NT 6

typedef struct ctgan_config {
    int batch, pac, emb, gdim, ddim, data_dim, cond_dim;
    int train;   /* 0: generator only (a loaded model): no discriminator, gradients or Adam */
    /* data parallel (docs/distributed.md): `batch` is the global batch, split into `ranks`
     * equal slices; this network holds slice `rank`. 0 or 1 rank: one worker. */
    struct gen_comm *comm;
    int dis_steps; /* discriminator steps per generator step (training: sizes the draws) */
    int precision; /* GEN_PREC_* of the GEMMs; FP16 training adds loss scaling */
    /* 1 (training): gradient checkpointing (docs/memory.md): the generator's two residual
     * blocks share one set of internals and block 1 is recomputed in the backward pass */
    int ckpt;
} ctgan_config;

/* The ledger: a few floats of backend memory where each step leaves its loss sums and the
 * sums of its gradient arenas (discriminator at CT_LEDGER_D, generator at CT_LEDGER_G: four
 * loss sums and the gradient sum), and the epoch's running sum of them all (CT_LEDGER_ACC,
 * non-finite once any step was). Read once per epoch (ctgan_epoch_end). */
#define CT_LEDGER 16
#define CT_LEDGER_D 0
#define CT_LEDGER_G 5
#define CT_LEDGER_TMP 10
#define CT_LEDGER_ACC 11
/* Host draws (row ids, cond positions) are uploaded in chunks of at most this many bytes:
 * an epoch of Adult at the default batch is one chunk. */
#define CT_DRAW_CHUNK_BYTES ((size_t)4 << 20)

/* Floats after each gradient arena that carry the step's loss sums through the same
 * all-reduce as the gradients (one call per network per step). */
#define CT_RED_TAIL 4

/* Named slices of a parameter (or gradient) arena. */
typedef struct ctgan_gen_tensors {
    float *W1, *b1, *bn1g, *bn1b;  /* (g, d0) (g) (g) (g) */
    float *W2, *b2, *bn2g, *bn2b;  /* (g, d1) ... */
    float *W3, *b3;                /* (data_dim, d2) (data_dim) */
} ctgan_gen_tensors;
typedef struct ctgan_dis_tensors {
    float *W1, *b1;                /* (ddim, pac*w) (ddim) */
    float *W2, *b2;                /* (ddim, ddim) (ddim) */
    float *W3, *b3;                /* (1, ddim) (1) */
} ctgan_dis_tensors;

typedef struct ctgan_acts {
    /* generator, B rows */
    float *z, *zin, *X;                                   /* (B,emb) (B,d0) (B,d2)=[h2|h1|z'] */
    float *pre1, *bn1, *h1, *mean1, *rstd1;
    float *pre2, *bn2, *h2, *mean2, *rstd2;
    float *gout, *fake, *real;                            /* (B,data_dim) (B,w) (B,w) */
    float *dX, *dh, *dbn, *dpre, *dgout, *dfake;
    /* discriminator, n = B/pac packed rows */
    /* a: pre-activations, o: block outputs, m: the blocks' local slopes (dropout mask times
     * the leaky ReLU's slope, lrelu_dropout_forward's s) */
    float *a1, *m1, *o1, *a2, *m2, *o2, *y;               /* (2n,ddim) ... y (2n) */
    float *dy_pos, *dy_neg;                               /* constant +-1/n */
    float *do2, *da2, *do1, *da1;
    /* gradient penalty */
    float *alpha, *xhat;                                  /* (n) (B,w) */
    float *r1, *r2, *gd1, *G, *U, *q1, *p1, *q2, *p2;
    float *scal;                                          /* small scalars (losses) */
    float *cond;                                          /* (B, cond_dim) */
    /* act16 (BF16/FP16, docs/precision.md "Memory"): the generator's residual stack
     * X = [h2 | h1 | z'] in 16 bits (B, d2), read only by products and the ReLUs' signs; zin,
     * X, h1 and h2 above are then NULL (z' is written into X directly) and bn2 shares bn1
     * (each is read only by its ReLU) */
    uint16_t *Xs;
    /* ckpt: where block 1's recomputation puts its running statistics (2 gdim; discarded, so
     * the model's are updated once per forward) */
    float *ckrs;
} ctgan_acts;

typedef struct ctgan {
    gen_backend *be;
    int B, pac, n, emb, gdim, ddim, data_dim, cond_dim, d0, d1, d2, w, pacw;
    int train;
    int ckpt;                      /* gradient checkpointing (training; ctgan_config.ckpt) */
    int fp16;                      /* training in FP16: loss scaling (amp below) */
    int nspans;
    gen_act_span *spans;
    /* generator: params, grads, Adam moments; BN running stats (rm1, rv1, rm2, rv2) */
    size_t gcount;
    float *gparams, *ggrads, *gm, *gv, *gstats;
    ctgan_gen_tensors gp, gg;
    /* sampling on a host-memory backend (ctgan_sampling_weights): the generator's three
     * weight matrices transposed, W1^T (d0 x g) | W2^T (d1 x g) | W3^T (d2 x data_dim), for
     * linear_sparse_forward; NULL: the dense products */
    float *gwt;
    int gwt_on;                    /* ctgan_gen_forward uses gwt (set by ctgan_generate) */
    /* discriminator */
    size_t dcount;
    float *dparams, *dgrads, *dm, *dv;
    ctgan_dis_tensors dp, dg;
    float *acts;
    uint16_t *acts16;              /* the 16-bit activations (act16), or NULL */
    int act16;                     /* gen_act16(precision): activations stored in 16 bits */
    ctgan_acts act;
    int32_t *draws;                /* backend copy of a chunk of steps' draws (ctgan_draw_steps) */
    /* the step's per-step values in backend memory (backend.h; docs/cuda.md "CUDA graphs"),
     * sharing draws' allocation: the step state, then the step's block of draws */
    gen_step_state *state;
    int32_t *cur;
    gen_step_state state_host;     /* the host's mirror of *state */
    gen_step_state step_delta;     /* what one step adds to the state (known once issued) */
    int64_t steps_done;            /* training steps of this network (0: none issued yet) */
    gen_graph *graph;              /* the recorded step (NULL: none; see ctgan_train_step) */
    const gen_dev_table *graph_table; /* what the recorded step reads */
    int graph_n_disc;
    float *ledger;                 /* CT_LEDGER floats of backend memory */
    int32_t *host_col;             /* host scratch: col, cat, perm (B each) + spare */
    /* training state */
    uint64_t seed, noise_off;
    int64_t gstep, dstep;
    int dis_steps;
    float gen_lr, dis_lr, gen_decay, dis_decay;
    /* sampling state */
    uint64_t sample_stream, sample_off;
    /* data parallel: K ranks; this rank holds global rows r0 .. r0 + B of Bg (packed rows
     * rank * n .. of ng); with K == 1 every collective is skipped */
    struct gen_comm *comm;
    int K, rank, Bg, ng, r0;
    float *bnred;                  /* (2 gdim) synchronised batch-norm sums (K > 1) */
    genesis_status comm_st;        /* first failed collective of the step */
    /* FP16 training (docs/precision.md): the loss-scaling states of the discriminator [0]
     * and the generator [1] in backend memory, followed by dys (2n floats: the WGAN loss's
     * dy times the scale); NULL in every other precision */
    gen_amp *amp;
    float *dys;
} ctgan;

typedef struct ctgan_step_losses {
    float loss_g, loss_d, penalty, cond;
} ctgan_step_losses;

genesis_status ctgan_create(genesis_ctx *ctx, gen_backend *be, const ctgan_config *cfg,
                            const gen_act_span *spans, int nspans, ctgan **out);
void ctgan_free(ctgan *c);
genesis_status ctgan_init_weights(ctgan *c, uint64_t seed);

void ctgan_gen_forward(ctgan *c, int train_bn);
void ctgan_gen_backward(ctgan *c);
void ctgan_dis_forward(ctgan *c, const float *x, int n);
void ctgan_dis_backward(ctgan *c, const float *x, const float *dy, float *dx, int with_weights,
                        int n);
void ctgan_gp_backward(ctgan *c);
/* The generator's input z' = [z ~ N(0, 1), one-hot cond] for this rank's rows (gpos: each
 * row's position in the conditional vector, -1 none; B int32 in backend memory), and the
 * fake rows act.fake = [activate(gout), cond] after ctgan_gen_forward. */
void ctgan_generator_input(ctgan *c, const int32_t *gpos);
void ctgan_fake_rows(ctgan *c);
/* The generator's gradients (into ggrads, zeroed here) from the critic's output gradient dy
 * (n packed rows of act.fake, after ctgan_dis_forward on them) and, with n_disc > 0, the
 * conditional loss (cross entropy of row b's span ce_start[b] .. + ce_len[b] against
 * ce_tgt[b], scaled by 1 / global batch; its sum into act.scal[3]). */
void ctgan_gen_grads(ctgan *c, const float *dy, int n_disc, const int32_t *ce_start,
                     const int32_t *ce_len, const int32_t *ce_tgt);

/* Training is split so that a step needs nothing from the host: the host draws a chunk of
 * steps' conditions and row ids (ctgan_draw_steps, the same host RNG sequence as one step
 * at a time), they are uploaded at once (ctgan_upload_draws), each step reads its block
 * (ctgan_train_step, k = the step's index in the chunk) and gathers its real rows from the
 * resident table, and the losses and the divergence check are read once per epoch
 * (ctgan_epoch_end). */
int ctgan_draw_ints(const ctgan *c);   /* ints of draws per step */
int ctgan_chunk_steps(const ctgan *c); /* steps per upload */
size_t ctgan_step_scratch(const ctgan *c); /* host ints for one chunk of draws */
void ctgan_draw_steps(ctgan *c, const gen_cond_sampler *s, int64_t nrows, gen_rng *rng,
                      int nsteps, int32_t *host);
/* Uploads a chunk of draws and the step state (the host's counters, k = 0). */
void ctgan_upload_draws(ctgan *c, const int32_t *host, int nsteps);
/* Step k of the uploaded chunk (k: the steps since ctgan_upload_draws; the step reads it from
 * the device step state). With a backend that records (CUDA), the second step of a network
 * is recorded as a CUDA graph and every later step replays it: one graph launch per step
 * (K == 1; docs/cuda.md "CUDA graphs"). */
genesis_status ctgan_train_step(ctgan *c, const gen_dev_table *table, int n_disc, int k);
/* Frees the recorded step (the end of a fit: the table it reads goes away). */
void ctgan_graph_free(ctgan *c);
/* Reads the ledger: the last step's losses into *losses, or the divergence of the epoch. */
genesis_status ctgan_epoch_end(ctgan *c, int epoch, ctgan_step_losses *losses);
/* Bytes a network of this configuration allocates (memory_model.h); exact, by the same
 * size tables as ctgan_create. */
void ctgan_memory(const ctgan_config *cfg, gen_net_bytes *out);
/* gwt = the generator's weights transposed, for the sparse products of sampling (the
 * conditional vector is one-hot and carried to every layer, the ReLUs' outputs half zeros):
 * host-memory backends with linear_sparse_forward, FP32 activations, one rank; otherwise
 * nothing. Call when the weights may have changed (each sampling call). */
genesis_status ctgan_sampling_weights(ctgan *c);
/* ctgan_dp.c: DP-CTGAN (docs/privacy.md). ctgan_dp_clip_real: after ctgan_dis_forward on the
 * b real rows x (pac 1) and with dy (b floats) the rows' per-row loss gradients d loss_b /
 * d y_b, adds sum_b min(1, clip / |grad_b|) grad_b of the discriminator's parameters to dg
 * (sq, s: b floats of backend memory get the squared norms and the factors; dy is scaled).
 * ctgan_dp_fit: the whole DP fit of a freshly initialised network (m->dp planned; prior:
 * the conditional vectors' prior from the released marginals). */
void ctgan_dp_clip_real(ctgan *c, const float *x, float *dy, int b, float *sq, float *s,
                        float clip);
genesis_status ctgan_dp_fit(genesis_model *m, ctgan *c, const gen_cond_sampler *prior,
                            const gen_encoded *enc, genesis_progress_fn progress, void *user);
genesis_status ctgan_generate(ctgan *c, const gen_cond_sampler *prior, gen_rng *rng,
                              const gen_condition *conds, int nconds, int bn_eval, float *out);

#endif /* GEN_CTGAN_H */
