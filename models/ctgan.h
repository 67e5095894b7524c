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
} ctgan_config;

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
    float *a1, *l1, *m1, *o1, *a2, *l2, *m2, *o2, *y;     /* (2n,ddim) ... y (2n) */
    float *dy_pos, *dy_neg;                               /* constant +-1/n */
    float *do2, *dl, *da2, *do1, *da1;
    /* gradient penalty */
    float *alpha, *xhat;                                  /* (n) (B,w) */
    float *s1, *s2, *r1, *r2, *gd1, *G, *U, *q1, *p1, *q2, *p2;
    float *scal;                                          /* small scalars (losses) */
    float *cond;                                          /* (B, cond_dim) */
} ctgan_acts;

typedef struct ctgan {
    gen_backend *be;
    int B, pac, n, emb, gdim, ddim, data_dim, cond_dim, d0, d1, d2, w, pacw;
    int train;
    int nspans;
    gen_act_span *spans;
    /* generator: params, grads, Adam moments; BN running stats (rm1, rv1, rm2, rv2) */
    size_t gcount;
    float *gparams, *ggrads, *gm, *gv, *gstats;
    ctgan_gen_tensors gp, gg;
    /* discriminator */
    size_t dcount;
    float *dparams, *dgrads, *dm, *dv;
    ctgan_dis_tensors dp, dg;
    float *acts;
    ctgan_acts act;
    int32_t *ce_idx;               /* backend copy of (start, len, target) per row */
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

size_t ctgan_step_scratch(const ctgan *c);
/* Bytes a network of this configuration allocates (memory_model.h); exact, by the same
 * size tables as ctgan_create. */
void ctgan_memory(const ctgan_config *cfg, gen_net_bytes *out);
genesis_status ctgan_train_step(ctgan *c, const gen_transformer *tf, const gen_encoded *enc,
                                const gen_cond_sampler *s, gen_rng *rng, float *host_buf,
                                ctgan_step_losses *losses);
genesis_status ctgan_generate(ctgan *c, const gen_cond_sampler *prior, gen_rng *rng,
                              const gen_condition *conds, int nconds, int bn_eval, float *out);

#endif /* GEN_CTGAN_H */
