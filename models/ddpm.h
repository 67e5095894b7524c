/*
 * ddpm.h — the TabDDPM denoiser (ddpm.c): its parameter and activation arenas and its
 * explicit forward/backward on the backend table, exposed to the model glue (ddpm_model.c)
 * and to the gradient tests. docs/ddpm.md.
 */
#ifndef GEN_DDPM_H
#define GEN_DDPM_H

#include "backend.h"
#include "memory_model.h"
#include "model.h"

#define DDPM_MAX_LAYERS 8
/* the alpha of a tanh position is multiplied by this before diffusion (alpha = (x - mu) /
 * (4 sigma) of the column's mode, so the scaled value has about unit variance in its mode) */
#define DDPM_ALPHA_SCALE 4.0f

typedef struct ddpm_config {
    int batch, data_dim;
    int temb;      /* timestep embedding and projection width (TabDDPM's dim_t) */
    int hid;       /* hidden width of every MLP layer */
    int layers;    /* hidden layers, 1 .. DDPM_MAX_LAYERS */
    int train;     /* 0: sampling only (no gradient or Adam buffers) */
    int classes;   /* K > 0: a class-conditional denoiser, a K-row label embedding; 0: none */
    int ema;       /* 1 (training only): keep an exponential moving average of the weights */
    /* 1 (training only): gradient checkpointing (docs/memory.md): one buffer for every
     * block's internals, the time and label embeddings recomputed in the backward pass */
    int ckpt;
} ddpm_config;

/* Named slices of the parameter (or gradient) arena, in arena order. */
typedef struct ddpm_tensors {
    float *tW1, *tb1, *tW2, *tb2;        /* time MLP: (E, E) (E) (E, E) (E) */
    float *pW, *pb;                      /* projection of x: (E, D) (E) */
    float *W[DDPM_MAX_LAYERS], *b[DDPM_MAX_LAYERS]; /* (H, E or H) (H) */
    float *oW, *ob;                      /* output: (D, H) (D) */
    float *lemb;                         /* label embedding (K, E); NULL when K = 0 */
} ddpm_tensors;

typedef struct ddpm_acts {
    float *x0, *xt, *noise, *coef;       /* (B, D) x3, (B, 2): the step's inputs */
    float *temb, *e1, *e1s, *e2, *h0;    /* (B, E) */
    float *lab, *labs;                   /* (B, E) the label's embedding and its SiLU (K > 0) */
    float *a[DDPM_MAX_LAYERS], *h[DDPM_MAX_LAYERS]; /* (B, H) */
    float *out;                          /* (B, D): predicted noise | categorical logits */
    float *dout, *dA, *dB;               /* gradients: (B, D), (B, max(E, H)) x2 */
    float *loss;                         /* [0] Gaussian, [1] multinomial */
} ddpm_acts;

typedef struct ddpm {
    gen_backend *be;
    int B, D, E, H, L;
    int train;
    int ckpt;                  /* gradient checkpointing (training; ddpm_config.ckpt) */
    int K;                     /* classes of the label embedding; 0: unconditional */
    int nspans, nnum, ncat;    /* spans; tanh spans (Gaussian); softmax spans (multinomial) */
    gen_act_span *spans;
    size_t count;
    float *params, *grads, *m, *v;
    float *ema;                /* the weights' moving average (training with cfg.ema); NULL */
    ddpm_tensors p, g;
    float *acts;
    int32_t *t;                /* (B) timesteps, backend memory */
    int32_t *y;                /* (B) class labels, backend memory (K > 0) */
    ddpm_acts act;
    float *pWt;                /* sampling on a host-memory backend: the projection's weights
                                  transposed (D x E, the model glue's buffer), read by
                                  linear_sparse_forward; NULL: the dense product */
    int shared_t;              /* sampling: every row has t[0]'s timestep, so the time MLP runs
                                  on one row and joins the projection's bias (docs/ddpm.md §5) */
    int64_t step;              /* Adam steps taken */
    int borrowed;              /* params belong to another network (ddpm_create_view) */
} ddpm;

genesis_status ddpm_create(genesis_ctx *ctx, gen_backend *be, const ddpm_config *cfg,
                           const gen_act_span *spans, int nspans, ddpm **out);
/* A network for sampling only, `batch` rows, that reads `owner`'s weights in place (not
 * copied; they must outlive it): its own activations, timesteps and labels. */
genesis_status ddpm_create_view(genesis_ctx *ctx, const ddpm *owner, int batch, ddpm **out);
void ddpm_free(ddpm *d);
/* Bytes a network of this configuration allocates (memory_model.h). */
void ddpm_memory(const ddpm_config *cfg, gen_net_bytes *out);
/* torch.nn.Linear's initialisation, drawn on the host from the init stream. */
genesis_status ddpm_init_weights(ddpm *d, uint64_t seed);
/* Denoiser forward of B rows: act.xt, t (and y when K > 0) -> act.out. With pWt set, the
 * projection of x_t sums only its non-zero entries (x_t's softmax spans are one-hots while
 * sampling; docs/ddpm.md §5). With shared_t set, t[0] is every row's timestep: the time
 * embedding and MLP run on one row (so a row's value does not depend on B) and their output
 * is added to the projection's bias. */
void ddpm_forward(ddpm *d, int B);
/* With ckpt: the time and label embeddings' internals (temb, e1, e1s, lab) again, from
 * t and y, for the backward pass (their buffer held the hidden layers' meanwhile). */
void ddpm_embed_recompute(ddpm *d, int B);
/* Forward, loss (ddpm_loss with gscale, mscale) and, when `backward`, every gradient into
 * d->grads (zeroed first). Returns the loss (both parts). */
float ddpm_forward_backward(ddpm *d, int B, float gscale, float mscale, int backward);
/* One AdamW step (torch semantics: decoupled decay, betas 0.9 / 0.999, eps 1e-8). */
void ddpm_adamw(ddpm *d, float lr, float decay);
/* ema = decay * ema + (1 - decay) * params (after each AdamW step; d->ema must exist). */
void ddpm_ema(ddpm *d, float decay);

/* DP-SGD (ddpm_dp.c, docs/privacy.md): the clipped gradient of the B rows whose step inputs
 * are in act (x0, xt, noise, coef, t, y): sum (count floats) += sum_b min(1, clip / |g_b|)
 * g_b with g_b row b's own gradient under the per-row loss scales gscale, mscale; sq[b] =
 * |g_b|^2, s[b] its factor (B floats each); the loss sums added to loss[0..1] (NULL: not).
 * Overwrites d->grads. */
void ddpm_dp_clip_rows(ddpm *d, int B, float gscale, float mscale, float *sum, float *sq,
                       float *s, float clip, float *loss);

#endif /* GEN_DDPM_H */
