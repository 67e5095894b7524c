/*
 * evaluate_sequences.c — TimeGAN's two sequence metrics (docs/algorithms.md §S8, the official
 * code's metrics/discriminative_metrics.py and predictive_metrics.py), on sequences already
 * scaled to [0, 1] as the reference compares them, with the same GRU operations as the model
 * (one GRU layer (the backend's reset-after cell), hidden max(1, F/2), seq_nets.c, also TimeGAN's):
 *   discriminative score: real and synthetic each permuted and split 80/20; a post-hoc GRU
 *   classifier reads each sequence's final state through FC(hidden -> 1); 2000 iterations of
 *   128 real + 128 synthetic training sequences, loss BCE(1, real) + BCE(0, fake); accuracy
 *   on all held-out sequences; score |0.5 - acc|;
 *   predictive score (train on synthetic, test on real): a GRU over features 0..F-2 at steps
 *   0..T-2 with a per-step FC + sigmoid predicts the last feature at steps 1..T-1; MAE loss,
 *   5000 iterations of 128; score = mean absolute error over every real sequence.
 * Each is repeated with a freshly initialised model; mean and standard deviation returned.
 * Equal lengths only (our sequences always have T steps).
 */
#include <math.h>
#include <string.h>

#include "evaluate_sequences.h"
#include "sequence.h"
#include "seq_nets.h"

void gen_seq_metric_opts_default(gen_seq_metric_opts *o) {
    o->repeats = 10;
    o->disc_iters = 2000;
    o->pred_iters = 5000;
    o->batch = 128;
    o->seed = 0;
}

/* A small trainable net on the backend: parameters, gradients, TF1 Adam. */
typedef struct small_net {
    gen_backend *be;
    gen_seq_net n;
    gen_seq_run r;
    float *params, *grads, *m, *v, *acts, *scratch, *x, *dout;
    int Bmax, T;
    int64_t step;
} small_net;

static void small_free(small_net *s) {
    gen_backend *be = s->be;
    float *bufs[] = {s->params, s->grads, s->m, s->v, s->acts, s->scratch, s->x, s->dout};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) be->ops->free(be, bufs[i]);
    memset(s, 0, sizeof *s);
}

static genesis_status small_create(gen_backend *be, small_net *s, int in, int H, int out,
                                   int sigmoid, int Bmax, int T, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->be = be;
    s->Bmax = Bmax;
    s->T = T;
    size_t cnt = gen_seq_net_layout(&s->n, in, H, 1, out, sigmoid, 0);
    const gen_backend_ops *o = be->ops;
    size_t BT = (size_t)Bmax * T;
    s->params = o->alloc(be, cnt * 4);
    s->grads = o->alloc(be, cnt * 4);
    s->m = o->alloc(be, cnt * 4);
    s->v = o->alloc(be, cnt * 4);
    s->acts = o->alloc(be, gen_seq_run_floats(&s->n, Bmax, T) * 4);
    s->scratch = o->alloc(be, gen_seq_net_scratch_floats(&s->n, Bmax, T) * 4);
    s->x = o->alloc(be, BT * (size_t)(in ? in : 1) * 4);
    s->dout = o->alloc(be, BT * (size_t)out * 4);
    float *h = malloc(cnt * 4);
    if (!s->params || !s->grads || !s->m || !s->v || !s->acts || !s->scratch || !s->x || !s->dout || !h) {
        free(h);
        small_free(s);
        return gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory for the metric's GRU");
    }
    gen_seq_net_point(&s->n, s->params, s->grads);
    gen_seq_run_point(&s->r, &s->n, s->acts, Bmax, T);
    gen_rng r;
    gen_rng_init(&r, seed, GEN_STREAM_INIT);
    gen_seq_net_init(&s->n, h, &r);
    o->upload(be, s->params, h, cnt * 4);
    free(h);
    return GENESIS_OK;
}

static void small_adam(small_net *s) {
    int64_t k = ++s->step;
    float eps = (float)(1e-8 / sqrt(1.0 - pow(0.999, (double)k))); /* TF1 form, timegan.c */
    s->be->ops->adam(s->be, s->params, s->grads, s->m, s->v, s->n.count, 1e-3f, 0.9f, 0.999f, eps,
                     0.0f, k);
}

static double mean_std(const double *v, int n, double *sd) {
    double m = 0, q = 0;
    for (int i = 0; i < n; i++) m += v[i];
    m /= n;
    for (int i = 0; i < n; i++) q += (v[i] - m) * (v[i] - m);
    *sd = n > 1 ? sqrt(q / n) : 0.0;
    return m;
}

static void shuffle(int64_t *p, int64_t n, gen_rng *r) {
    for (int64_t i = 0; i < n; i++) p[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)gen_rng_below(r, (uint64_t)i + 1);
        int64_t t = p[i]; p[i] = p[j]; p[j] = t;
    }
}

/* B distinct picks out of idx[0..n) (partial Fisher-Yates on a scratch copy) */
static void pick(int64_t *idx, int64_t n, int B, gen_rng *r) {
    for (int i = 0; i < B; i++) {
        int64_t j = i + (int64_t)gen_rng_below(r, (uint64_t)(n - i));
        int64_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
    }
}

genesis_status gen_discriminative_score(gen_backend *be, const float *real, int64_t nr,
                                        const float *fake, int64_t nf, int T, int F,
                                        const gen_seq_metric_opts *o, double *mean, double *sd) {
    genesis_ctx *ctx = be->ctx;
    int64_t trr = (int64_t)(nr * 0.8), trf = (int64_t)(nf * 0.8);
    GEN_RETURN_IF(trr < 1 || trf < 1 || nr - trr < 1 || nf - trf < 1, ctx, GENESIS_ERR_DATA,
                  "the discriminative score needs at least 2 real and 2 synthetic sequences "
                  "(got %lld and %lld)", (long long)nr, (long long)nf);
    int H = F / 2 > 0 ? F / 2 : 1;
    int Br = trr < o->batch ? (int)trr : o->batch, Bf = trf < o->batch ? (int)trf : o->batch;
    int64_t nte = (nr - trr) + (nf - trf);
    int Bmax = Br + Bf > 512 ? Br + Bf : 512; /* training batch, and the test chunk */
    size_t row = (size_t)T * F;
    int64_t *pr = malloc((size_t)nr * 8), *pf = malloc((size_t)nf * 8);
    float *hx = malloc((size_t)Bmax * row * 4), *hl = malloc((size_t)Bmax * T * 4),
          *hg = malloc((size_t)Bmax * T * 4);
    double *scores = calloc((size_t)o->repeats, sizeof(double));
    genesis_status st = GENESIS_OK;
    if (!pr || !pf || !hx || !hl || !hg || !scores) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the discriminative score");
    for (int rep = 0; rep < o->repeats && st == GENESIS_OK; rep++) {
        gen_rng r;
        gen_rng_init(&r, o->seed + 7919u * (uint64_t)rep, GEN_STREAM_SAMPLER);
        shuffle(pr, nr, &r);
        shuffle(pf, nf, &r);
        small_net s;
        st = small_create(be, &s, F, H, 1, 0, Bmax, T, o->seed + 104729u * (uint64_t)rep + 1);
        if (st != GENESIS_OK) break;
        int64_t *ir = malloc((size_t)trr * 8), *jf = malloc((size_t)trf * 8);
        if (!ir || !jf) {
            free(ir); free(jf); small_free(&s);
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(ir, pr, (size_t)trr * 8);
        memcpy(jf, pf, (size_t)trf * 8);
        for (int it = 0; it < o->disc_iters; it++) {
            pick(ir, trr, Br, &r);
            pick(jf, trf, Bf, &r);
            for (int b = 0; b < Br; b++) memcpy(hx + (size_t)b * row, real + (size_t)ir[b] * row, row * 4);
            for (int b = 0; b < Bf; b++) memcpy(hx + (size_t)(Br + b) * row, fake + (size_t)jf[b] * row, row * 4);
            int B = Br + Bf;
            be->ops->upload(be, s.x, hx, (size_t)B * row * 4);
            gen_seq_net_forward(be, &s.n, &s.r, s.x, B, T);
            be->ops->download(be, hl, s.r.pre, (size_t)B * T * 4);
            /* loss on the final step's logit only: mean BCE(1, real) + mean BCE(0, fake) */
            memset(hg, 0, (size_t)B * T * 4);
            for (int b = 0; b < B; b++) {
                double x = hl[(size_t)b * T + T - 1], y = b < Br;
                hg[(size_t)b * T + T - 1] = (float)((1.0 / (1.0 + exp(-x)) - y) / (b < Br ? Br : Bf));
            }
            be->ops->upload(be, s.dout, hg, (size_t)B * T * 4);
            be->ops->zero(be, s.grads, s.n.count);
            gen_seq_net_backward(be, &s.n, &s.r, NULL, s.dout, s.x, B, T, 1, s.scratch);
            small_adam(&s);
        }
        /* held-out accuracy, in chunks of Bmax */
        int64_t correct = 0;
        for (int part = 0; part < 2; part++) {
            const float *src = part ? fake : real;
            const int64_t *perm = part ? pf + trf : pr + trr;
            int64_t n = part ? nf - trf : nr - trr;
            for (int64_t d = 0; d < n; d += Bmax) {
                int B = (int)(n - d < Bmax ? n - d : Bmax);
                for (int b = 0; b < B; b++) memcpy(hx + (size_t)b * row, src + (size_t)perm[d + b] * row, row * 4);
                be->ops->upload(be, s.x, hx, (size_t)B * row * 4);
                gen_seq_net_forward(be, &s.n, &s.r, s.x, B, T);
                be->ops->download(be, hl, s.r.pre, (size_t)B * T * 4);
                for (int b = 0; b < B; b++) {
                    int says_real = hl[(size_t)b * T + T - 1] > 0.0f; /* sigmoid > 0.5 */
                    correct += says_real == (part == 0);
                }
            }
        }
        scores[rep] = fabs(0.5 - (double)correct / (double)nte);
        free(ir); free(jf);
        small_free(&s);
    }
    if (st == GENESIS_OK) *mean = mean_std(scores, o->repeats, sd);
    free(pr); free(pf); free(hx); free(hl); free(hg); free(scores);
    return st;
}

genesis_status gen_predictive_score(gen_backend *be, const float *real, int64_t nr,
                                    const float *fake, int64_t nf, int T, int F,
                                    const gen_seq_metric_opts *o, double *mean, double *sd) {
    genesis_ctx *ctx = be->ctx;
    GEN_RETURN_IF(F < 2 || T < 2, ctx, GENESIS_ERR_DATA,
                  "the predictive score needs at least 2 features and 2 steps (it predicts the "
                  "last feature one step ahead from the others); got %d features, %d steps", F, T);
    GEN_RETURN_IF(nr < 1 || nf < 1, ctx, GENESIS_ERR_DATA, "the predictive score needs real and synthetic sequences");
    int H = F / 2 > 0 ? F / 2 : 1, Ti = T - 1, Fi = F - 1;
    int Bt = nf < o->batch ? (int)nf : o->batch;
    int Bmax = Bt > 512 ? Bt : 512;
    size_t irow = (size_t)Ti * Fi;
    float *hx = malloc((size_t)Bmax * irow * 4), *hy = malloc((size_t)Bmax * Ti * 4),
          *hp = malloc((size_t)Bmax * Ti * 4);
    int64_t *idx = malloc((size_t)nf * 8);
    double *scores = calloc((size_t)o->repeats, sizeof(double));
    genesis_status st = GENESIS_OK;
    if (!hx || !hy || !hp || !idx || !scores) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory for the predictive score");
    /* X = x[0:T-1, 0:F-1], Y = x[1:T, F-1] */
#define PRED_ROW(src, i, b)                                                          \
    do {                                                                             \
        const float *q_ = (src) + (size_t)(i) * T * F;                               \
        for (int t_ = 0; t_ < Ti; t_++) {                                            \
            memcpy(hx + ((size_t)(b) * Ti + t_) * Fi, q_ + (size_t)t_ * F, (size_t)Fi * 4); \
            hy[(size_t)(b) * Ti + t_] = q_[(size_t)(t_ + 1) * F + F - 1];           \
        }                                                                            \
    } while (0)
    for (int rep = 0; rep < o->repeats && st == GENESIS_OK; rep++) {
        gen_rng r;
        gen_rng_init(&r, o->seed + 7919u * (uint64_t)rep, GEN_STREAM_SAMPLER + 16);
        for (int64_t i = 0; i < nf; i++) idx[i] = i;
        small_net s;
        st = small_create(be, &s, Fi, H, 1, 1, Bmax, Ti, o->seed + 104729u * (uint64_t)rep + 2);
        if (st != GENESIS_OK) break;
        for (int it = 0; it < o->pred_iters; it++) {
            pick(idx, nf, Bt, &r);
            for (int b = 0; b < Bt; b++) PRED_ROW(fake, idx[b], b);
            be->ops->upload(be, s.x, hx, (size_t)Bt * irow * 4);
            gen_seq_net_forward(be, &s.n, &s.r, s.x, Bt, Ti);
            be->ops->download(be, hp, s.r.out, (size_t)Bt * Ti * 4);
            double n = (double)Bt * Ti;
            for (size_t k = 0; k < (size_t)Bt * Ti; k++) { /* d mean|p - y| (sign(0) = 0) */
                double e = (double)hp[k] - hy[k];
                hp[k] = (float)(((e > 0) - (e < 0)) / n);
            }
            be->ops->upload(be, s.dout, hp, (size_t)Bt * Ti * 4);
            be->ops->zero(be, s.grads, s.n.count);
            gen_seq_net_backward(be, &s.n, &s.r, NULL, s.dout, s.x, Bt, Ti, 1, s.scratch);
            small_adam(&s);
        }
        double mae = 0;
        for (int64_t d = 0; d < nr; d += Bmax) {
            int B = (int)(nr - d < Bmax ? nr - d : Bmax);
            for (int b = 0; b < B; b++) PRED_ROW(real, d + b, b);
            be->ops->upload(be, s.x, hx, (size_t)B * irow * 4);
            gen_seq_net_forward(be, &s.n, &s.r, s.x, B, Ti);
            be->ops->download(be, hp, s.r.out, (size_t)B * Ti * 4);
            for (size_t k = 0; k < (size_t)B * Ti; k++) mae += fabs((double)hp[k] - hy[k]);
        }
        scores[rep] = mae / ((double)nr * Ti); /* equal lengths: mean of per-sequence MAEs */
        small_free(&s);
    }
#undef PRED_ROW
    if (st == GENESIS_OK) *mean = mean_std(scores, o->repeats, sd);
    free(hx); free(hy); free(hp); free(idx); free(scores);
    return st;
}

/* ---- public entry point ------------------------------------------------------------------------ */

void genesis_seq_eval_options_init(genesis_seq_eval_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->seq_len = 24;
    o->repeats = 10;
    o->disc_iterations = 2000;
    o->pred_iterations = 5000;
}

genesis_status genesis_evaluate_sequences(genesis_ctx *ctx, const genesis_table *real,
                                          const genesis_table *synthetic,
                                          const genesis_seq_eval_options *o,
                                          genesis_seq_eval_result *out) {
    if (!ctx || !real || !synthetic || !o || !out) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(ctx);
    GEN_RETURN_IF(real->shape_only || synthetic->shape_only, ctx, GENESIS_ERR_DATA,
                  "a table made with `genesis_table_add_shape` holds no values to evaluate");
    GEN_RETURN_IF(o->struct_size != sizeof *o, ctx, GENESIS_ERR_INVALID_ARG,
                  "genesis_seq_eval_options was not set up with genesis_seq_eval_options_init");
    GEN_RETURN_IF(o->seq_len < 2 || o->repeats < 1 || o->disc_iterations < 1 || o->pred_iterations < 1,
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "sequence metrics need seq_len >= 2 and at least one repeat and iteration");
    out->discriminative = out->discriminative_std = NAN;
    out->predictive = out->predictive_std = NAN;
    out->predictive_real = out->predictive_real_std = NAN;
    gen_seq_schema s;
    gen_seq_data scaled, dr, ds;
    memset(&dr, 0, sizeof dr);
    memset(&ds, 0, sizeof ds);
    GEN_TRY(gen_seq_build(ctx, real, o->seq_len, o->entity, o->time, NULL, ctx->seed, &s, &scaled));
    gen_seq_data_free(&scaled);
    gen_backend *be = NULL;
    genesis_status st = gen_seq_windows_like(ctx, real, &s, 0, &dr);
    if (st == GENESIS_OK) st = gen_seq_windows_like(ctx, synthetic, &s, 1, &ds);
    if (st == GENESIS_OK) st = gen_backend_create(ctx, &be);
    gen_seq_metric_opts mo;
    gen_seq_metric_opts_default(&mo);
    mo.repeats = o->repeats;
    mo.disc_iters = o->disc_iterations;
    mo.pred_iters = o->pred_iterations;
    mo.seed = ctx->seed;
    if (st == GENESIS_OK) {
        out->real_sequences = dr.n;
        out->synthetic_sequences = ds.n;
        st = gen_discriminative_score(be, dr.x, dr.n, ds.x, ds.n, s.T, s.F, &mo,
                                      &out->discriminative, &out->discriminative_std);
    }
    if (st == GENESIS_OK && s.F >= 2)
        st = gen_predictive_score(be, dr.x, dr.n, ds.x, ds.n, s.T, s.F, &mo, &out->predictive,
                                  &out->predictive_std);
    if (st == GENESIS_OK && s.F >= 2 && o->real_baseline)
        st = gen_predictive_score(be, dr.x, dr.n, dr.x, dr.n, s.T, s.F, &mo, &out->predictive_real,
                                  &out->predictive_real_std);
    gen_backend_free(be);
    gen_seq_data_free(&dr);
    gen_seq_data_free(&ds);
    gen_seq_schema_free(&s);
    return st;
}
