/*
 * timegan.h — TimeGAN's networks, losses, update steps and the three-phase training loop
 * (timegan.c), exposed to the model glue (timegan_model.c), the sequence metrics and the
 * gradient tests. The math follows the official TF1 code (docs/algorithms.md §S2, §S4, §S5).
 */
#ifndef GEN_TIMEGAN_H
#define GEN_TIMEGAN_H

#include "backend.h"
#include "memory_model.h"
#include "rng.h"
#include "seq_nets.h"

typedef struct gen_bytes gen_bytes; /* model_io.h */

enum { TG_E, TG_R, TG_G, TG_S, TG_D, TG_NNETS };

/* The update steps of docs/algorithms.md §S5, one per optimiser. */
typedef enum tg_step {
    TG_STEP_E0 = 0,  /* phase 1: E_loss0 = 10 sqrt(E_loss_T0) on E, R */
    TG_STEP_SUP = 1, /* phase 2: G_loss_S on S (G gets no gradient) */
    TG_STEP_G = 2,   /* phase 3: G_loss on G, S */
    TG_STEP_E = 3,   /* phase 3: E_loss = E_loss0 + 0.1 G_loss_S on E, R */
    TG_STEP_D = 4,   /* phase 3: D_loss on D */
    TG_NSTEPS = 5
} tg_step;

typedef struct tg_losses {
    double e_t0;      /* mean (X - X~)^2 */
    double g_s;       /* supervised loss */
    double g_u, g_ue; /* adversarial terms */
    double g_v;       /* moments loss V1 + V2 */
    double d;         /* discriminator loss */
    double total;     /* the loss the step minimises */
} tg_losses;

/* The ledger (backend memory, docs/timegan.md §7): one row of TL_W doubles per update step
 * with its loss terms (gamma G_loss_U_e and gamma BCE(0, D(E^)) kept with their weight; D_loss
 * = TL_D1 + TL_D2 + TL_D3, which the D step's gate adds up), then floats: the sum of each
 * step's gradient arena (TG_GSUM + step) and their running sum TG_ACC, non-finite once any
 * gradient since the start was. */
enum { TL_ET0, TL_GS, TL_GU, TL_GUE, TL_V1, TL_V2, TL_D1, TL_D2, TL_D3, TL_W };
enum { TG_GSUM = 0, TG_ACC = TG_NSTEPS, TG_NF };
/* The fit's state in backend memory (t->dev): the five Adams' step counts, the step state a
 * recorded iteration reads (the noise counter and the iteration's block of batch ids,
 * docs/timegan.md §9), then the ledger. */
#define TG_DEV_BYTES                                                                       \
    (TG_NSTEPS * sizeof(int64_t) + sizeof(gen_step_state) + TG_NSTEPS * TL_W * sizeof(double) + \
     TG_NF * sizeof(float))

typedef struct timegan_config {
    int batch, T, F, H, L;
    float lr, gamma;
    int train; /* 0: generation only (a loaded model): no gradients, Adam or E/D runs */
} timegan_config;

/* Checkpoints (timegan_ckpt.c, src/model/checkpoint.c): the fit's hook, attached by the model glue
 * for a fit that writes checkpoints or continues one. timegan_fit restores the loop's state
 * through it before the first iteration and hands it the loop's state after each iteration;
 * it calls the checkpoint code only through the hook's functions, which timegan_ckpt.c sets,
 * so that the training loop does not depend on it. */
struct timegan;
typedef struct tg_ckpt_hook {
    genesis_model *m;
    /* the loop's state at the safe point (after) */
    int64_t done, iters;
    const int64_t *perm;
    int64_t N;
    const gen_rng *rng;
    /* restores a continued checkpoint's state at the start of timegan_fit (sets the first
     * phase and iteration to run: phase 4 = done; phase 1, iteration 1 when there is none) */
    genesis_status (*restore)(struct timegan *t, int64_t *perm, int64_t N, gen_rng *rng,
                              int64_t iters, int *phase, int64_t *it);
    /* the point after an iteration: checkpoint when due, or stop */
    genesis_status (*after)(struct timegan *t, int phase, int64_t it, int64_t iters,
                            const int64_t *perm, int64_t N, const gen_rng *rng, int stop);
} tg_ckpt_hook;

typedef struct timegan {
    gen_backend *be;
    timegan_config cfg;
    gen_seq_net net[TG_NNETS];
    size_t count;                 /* all parameters */
    float *params, *grads;
    float *m[TG_NSTEPS], *v[TG_NSTEPS];
    int64_t t[TG_NSTEPS];         /* Adam steps per optimiser: a copy of tdev, as of the last
                                     timegan_sync (the counts live in backend memory) */
    gen_seq_run run[TG_NNETS];
    float *acts;                  /* every activation and device scratch */
    /* device buffers */
    float *X, *Z;                 /* (B, T, F) batch and noise */
    float *Sin, *Din;             /* (2B, T, H), (3B, T, H) concatenated inputs */
    float *dXt, *dSout, *dY, *dDin, *dRin, *dSin, *dGout, *dH, *ones;
    float *scratch;               /* gen_seq_net_backward scratch, sized for the widest use */
    void *dev;                    /* backend memory (TG_DEV_BYTES): tdev, state, led, ledf */
    int64_t *tdev;                /* the Adams' step counts (D's gate decides D's) */
    int64_t *dstep;               /* tdev + TG_STEP_D */
    gen_step_state *state;        /* rng: the noise counter of the iteration's first batch;
                                     k: the iteration's block of batch ids in the chunk */
    gen_graph *graph[3];          /* a recorded iteration of each phase (timegan_fit), or NULL */
    double *led;                  /* the ledger's loss rows */
    float *ledf;                  /* the ledger's gradient sums (TG_NF floats) */
    double hled[TG_NSTEPS * TL_W]; /* host copies, as of the last timegan_sync */
    float hledf[TG_NF];
    uint64_t seed, noise_off;
    tg_ckpt_hook *ck;             /* checkpoints; NULL = none (timegan_ckpt.c) */
} timegan;

genesis_status timegan_create(genesis_ctx *ctx, gen_backend *be, const timegan_config *cfg,
                              timegan **out);
/* Floats of the generator side (R, G, S: what a model file stores) for cfg's sizes, without
 * allocating: the loader checks a file's count and its bytes against it before creating. */
size_t timegan_gen_side_floats(const timegan_config *cfg);
void timegan_free(timegan *t);
/* Bytes timegan_create allocates for cfg (parameters, gradients and Adam moments,
 * activations and device buffers), and with nseq > 0 training sequences what timegan_fit
 * adds (their copy in backend memory, the batch ids), for the memory model. */
void timegan_memory(const timegan_config *cfg, int64_t nseq, gen_net_bytes *out);
/* GRU weights and biases U(-1/sqrt(H), 1/sqrt(H)) (PyTorch's), heads Glorot-uniform with bias 0; Adam reset. */
genesis_status timegan_init_weights(timegan *t, uint64_t seed);

/* Forward of one update step on the batch already in t->X (and noise in t->Z), rows B
 * (<= batch). Returns the step's loss; fills *ls (reads the step's ledger row back: one
 * synchronisation). With `backward`, zeroes t->grads and accumulates the gradient of that
 * loss w.r.t. the parameters of the networks the step updates (others stay zero). */
double timegan_loss(timegan *t, tg_step step, int B, int backward, tg_losses *ls);

/* One optimiser step: loss + backward + Adam (TF1 form, eps 1e-8) on the step's networks;
 * the D step only when D_loss > 0.15 (decided on the device). ls NULL: nothing is read back
 * (the fit's step; the ledger keeps the losses and timegan_sync checks them); otherwise the
 * losses are read back and checked at once. */
genesis_status timegan_update(timegan *t, tg_step step, int B, tg_losses *ls);

/* The fit's update step (timegan_update with ls NULL). reuse_h, for TG_STEP_E only: E's run
 * still holds H = E(X) of the batch in t->X with E's current weights (the joint phase's E
 * step right after the G step on the same batch), and E's forward is skipped. */
void timegan_fit_step(timegan *t, tg_step step, int B, int reuse_h);
#define TG_HAVE_FIT_STEP 1 /* for bench_timegan, built against older trees too */

/* Reads the ledger and the step counts back (one synchronisation) into t->hled, t->t;
 * GENESIS_ERR_DIVERGED (or the backend's failure) when a loss or gradient since the start
 * was not finite. phase, it: for the message. */
genesis_status timegan_sync(timegan *t, int phase, int64_t it);

/* Progress callback of timegan_fit: phase 1..3, iteration (1-based). Nonzero stops. */
typedef int (*tg_progress_fn)(int phase, int64_t it, int64_t iters, const tg_losses *ls,
                              void *user);

/* The three phases of docs/algorithms.md §S5 on `data` (N sequences, host, (N, T, F), scaled to
 * [0, 1]), `iters` iterations each; `log_every` iterations between progress calls. */
genesis_status timegan_fit(timegan *t, const float *data, int64_t N, int64_t iters,
                           int log_every, tg_progress_fn progress, void *user);

/* The networks optimiser `s` updates: the slice [first, last] of the arena. */
void tg_step_nets(tg_step s, int *first, int *last);

/* X^ = R(S(G(Z))), Z ~ U[0, 1), for n sequences into out (host, (n, T, F)); the noise comes
 * from Philox (seed, stream) starting at counter *noise_off (advanced), so the same
 * arguments give the same sequences, and consecutive calls whose n are multiples of the
 * batch size give what one call would. */
genesis_status timegan_generate(timegan *t, int64_t n, uint64_t seed, uint64_t stream,
                                uint64_t *noise_off, float *out);

#endif /* GEN_TIMEGAN_H */
