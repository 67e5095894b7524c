/*
 * seq_nets.h — a small recurrent network as a core layer: a stack of reset-after GRU layers
 * (backend.h) with a per-step fully connected head, optionally followed by a sigmoid, with its
 * own forward and backward on the backend's operations (seq_nets.c). The sequence metrics
 * (evaluate_sequences.c) build their GRU classifier and regressor from it; TimeGAN
 * (models/timegan.c) builds its five networks from it.
 */
#ifndef GEN_SEQ_NETS_H
#define GEN_SEQ_NETS_H

#include "backend.h"
#include "rng.h"

#define GEN_SEQ_MAX_LAYERS 8

/* One GRU stack (reset-after GRU layers of width H, backend.h) with a per-step fully
 * connected head, optionally followed by a sigmoid. Pointers into the model's parameter and
 * gradient arenas. */
typedef struct gen_seq_net {
    int in, H, L, out, sigmoid;
    size_t off, count;                         /* slice of the arenas, in floats */
    float *W[GEN_SEQ_MAX_LAYERS], *b[GEN_SEQ_MAX_LAYERS]; /* layer l: ((in_l + H) x 3H), (3H) */
    float *fW, *fb;                             /* head (out x H), (out) */
    float *gW[GEN_SEQ_MAX_LAYERS], *gb[GEN_SEQ_MAX_LAYERS], *gfW, *gfb;
} gen_seq_net;

/* Activations of one application of a net, for up to Bmax sequences. */
typedef struct gen_seq_run {
    int Bmax;
    float *y[GEN_SEQ_MAX_LAYERS], *save[GEN_SEQ_MAX_LAYERS]; /* (B, T, H), (B, T, 4H) */
    float *pre, *out;                               /* head (B, T, out) before / after sigmoid */
} gen_seq_run;

/* Parameter layout of a net at float offset off in an arena; returns the offset after it. */
size_t gen_seq_net_layout(gen_seq_net *n, int in, int H, int L, int out, int sigmoid, size_t off);
void gen_seq_net_point(gen_seq_net *n, float *params, float *grads);
size_t gen_seq_run_floats(const gen_seq_net *n, int Bmax, int T);
void gen_seq_run_point(gen_seq_run *r, const gen_seq_net *n, float *base, int Bmax, int T);
void gen_seq_net_init(const gen_seq_net *n, float *host_params, gen_rng *r);
void gen_seq_net_forward(gen_backend *be, const gen_seq_net *n, gen_seq_run *r, const float *x, int B, int T);
/* Output of the last forward: the sigmoid's output, or the head's pre-activation. */
static inline float *gen_seq_run_out(const gen_seq_net *n, gen_seq_run *r) { return n->sigmoid ? r->out : r->pre; }
/* Scratch for gen_seq_net_backward, floats. */
size_t gen_seq_net_scratch_floats(const gen_seq_net *n, int Bmax, int T);
/* dx += d/dx (NULL: skip), weight gradients += when wgrad; dout (B, T, out). */
void gen_seq_net_backward(gen_backend *be, const gen_seq_net *n, gen_seq_run *r, float *dx, const float *dout,
                     const float *x, int B, int T, int wgrad, float *scratch);

#endif /* GEN_SEQ_NETS_H */
