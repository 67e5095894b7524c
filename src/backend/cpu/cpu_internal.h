/*
 * cpu_internal.h — what the CPU backend's family files share (src/backend/cpu/<family>.c,
 * one per family of backend.h): the OpenMP and vectorisation helpers of the element-wise
 * loops, the step's random counter base, and the declarations of every family's operations,
 * which backend_cpu.c puts into the table. Semantics of each operation: backend.h.
 */
#ifndef GEN_CPU_INTERNAL_H
#define GEN_CPU_INTERNAL_H

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "precision.h"
#include "rng.h"

/* The step's counter offset that random operations add (gen_backend.rng_base), 0 unbound. */
static inline uint64_t cpu_rng_base(const gen_backend *be) {
    return be->rng_base ? *be->rng_base : 0;
}

/* Element-wise loops run on the OpenMP pool that OpenBLAS (Debian's OpenMP build) also
 * uses; small loops stay serial. Every parallel loop writes disjoint elements, so results do
 * not depend on the thread count. */
#define GEN_OMP_STR(x) #x
#define GEN_OMP_FOR(work) \
    _Pragma(GEN_OMP_STR(omp parallel for schedule(static) if ((work) >= 16384) num_threads(be->threads)))

/* Hot element-wise kernels are written as range functions with restrict pointers (OpenMP's
 * outlined loop bodies lose restrict and stay scalar) and compiled twice, for AVX2 and the
 * baseline, picked at load time; GEN_PARALLEL_RANGE splits [0, n) into one contiguous range
 * per thread. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define GEN_KERNEL
#endif
#define GEN_PARALLEL_RANGE(n, ...)                                                    \
    do {                                                                              \
        size_t gen_n_ = (n);                                                          \
        _Pragma("omp parallel if (gen_n_ >= 16384) num_threads(be->threads)") {      \
            size_t gen_t_ = (size_t)omp_get_thread_num(), gen_T_ = (size_t)omp_get_num_threads(); \
            size_t lo = gen_n_ * gen_t_ / gen_T_, hi = gen_n_ * (gen_t_ + 1) / gen_T_; \
            __VA_ARGS__;                                                              \
        }                                                                             \
    } while (0)

/* the most per-thread partial sums of a loss (vae.c, diffusion.c) */
#define GEN_MAX_PARTS 256

/* ---- memory (memory.c) ---- */
void *gen_cpu_alloc(gen_backend *be, size_t bytes);
void gen_cpu_free(gen_backend *be, void *p);
void gen_cpu_copy(gen_backend *be, void *dst, const void *src, size_t bytes);
void gen_cpu_zero(gen_backend *be, float *x, size_t n);
void gen_cpu_copy2d(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                    int cols);
void *gen_cpu_host_alloc(gen_backend *be, size_t bytes);
void gen_cpu_host_free(gen_backend *be, void *p);

/* ---- batch (batch.c) ---- */
void gen_cpu_gather_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                         const int32_t *rows, int B);
void gen_cpu_onehot_rows(gen_backend *be, float *out, int ldo, int w, const int32_t *pos,
                         int B);
void gen_cpu_gather_onehot_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                                const int32_t *rows, int B, int w, const int32_t *pos);
void gen_cpu_accumulate(gen_backend *be, float *acc, const float *x, int n);

/* ---- dense (dense.c) ---- */
void gen_cpu_gemm(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb, float beta, float *C,
                  int ldc);
void gen_cpu_linear_forward(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                            const float *W, const float *bias, int B, int C, int OC);
void gen_cpu_linear_backward(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                             const float *dout, int lddo, const float *inp, int ldi,
                             const float *W, int B, int C, int OC);
void gen_cpu_to_half(gen_backend *be, uint16_t *dst, int ldd, const float *src, int lds,
                     int rows, int cols);
void gen_cpu_linear_sparse_forward(gen_backend *be, float *out, int ldo, const float *inp,
                                   int ldi, const float *WT, const float *bias, int B, int C,
                                   int OC);
void gen_cpu_linear1_forward(gen_backend *be, float *y, float *sums, int nsums,
                             const float *inp, int ldi, const float *w, const float *bias, int n,
                             int C, int n2);
void gen_cpu_linear1_backward_act(gen_backend *be, float *da, float *dbs, float *dh, float *dW,
                                  float *db, const float *dy, const float *h, const float *w,
                                  const float *s, int n, int C);
void gen_cpu_linear_act_forward(gen_backend *be, float *out, float *pre, const float *inp,
                                int ldi, const float *W, const float *bias, int B, int C, int OC,
                                int act);
void gen_cpu_linear_forward_h(gen_backend *be, float *out, int ldo, const uint16_t *inp,
                              int ldi, const float *W, const float *bias, int B, int C,
                              int OC);
void gen_cpu_linear_backward_h(gen_backend *be, float *dinp, int lddi, float *dW,
                               float *dbias, const float *dout, int lddo, const uint16_t *inp,
                               int ldi, const float *W, int B, int C, int OC);

/* ---- elementwise (elementwise.c) ---- */
void gen_cpu_relu_forward(gen_backend *be, float *out, const float *inp, size_t n);
void gen_cpu_relu_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                           size_t n);
void gen_cpu_leaky_relu_forward(gen_backend *be, float *out, const float *inp, size_t n,
                                float slope);
void gen_cpu_leaky_relu_backward(gen_backend *be, float *dinp, const float *dout,
                                 const float *inp, size_t n, float slope);
void gen_cpu_mul(gen_backend *be, float *out, const float *a, const float *b, size_t n);
void gen_cpu_mul_acc(gen_backend *be, float *dinp, const float *dout, const float *mask,
                     size_t n);
void gen_cpu_leaky_slope_mask(gen_backend *be, float *s, const float *inp, const float *mask,
                              size_t n, float slope);
void gen_cpu_mul_rowvec(gen_backend *be, float *out, const float *s, const float *v, int rows,
                        int cols);
void gen_cpu_sum(gen_backend *be, float *out, const float *x, size_t n);
void gen_cpu_ledger_add(gen_backend *be, float *rec, float *tmp, float *acc, const float *sums,
                        int k, const float *g, size_t n);
void gen_cpu_clamp(gen_backend *be, float *x, size_t n, float lo, float hi);
int gen_cpu_any_nonfinite(gen_backend *be, const float *x, size_t n);
void gen_cpu_relu_forward_h(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                            int rows, int cols);
void gen_cpu_relu_backward_h(gen_backend *be, float *dinp, const float *dout,
                             const uint16_t *out, int ldo, int rows, int cols);

/* ---- norm (norm.c) ---- */
void gen_cpu_batchnorm_forward(gen_backend *be, float *out, float *mean, float *rstd,
                               const float *inp, const float *gamma, const float *beta, int B,
                               int C, float eps);
void gen_cpu_batchnorm_forward_eval(gen_backend *be, float *out, const float *inp,
                                    const float *rmean, const float *rvar, const float *gamma,
                                    const float *beta, int B, int C, float eps);
void gen_cpu_relu_bn_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                              float *dbias, float *dh, float *dbn, const float *dout, int lddo,
                              const float *out, int ldo, const float *inp, const float *mean,
                              const float *rstd, const float *gamma, int B, int C);
void gen_cpu_linear_bn_relu_forward(gen_backend *be, float *out, int ldo, float *pre, float *bn,
                                    float *mean, float *rstd, float *rmean, float *rvar,
                                    const float *inp, int ldi, const float *W, const float *bias,
                                    const float *gamma, const float *beta, int B, int C, int OC,
                                    float eps, float momentum);
void gen_cpu_batchnorm_update_running(gen_backend *be, float *rmean, float *rvar,
                                      const float *mean, const float *rstd, int B, int C,
                                      float momentum, float eps);
void gen_cpu_batchnorm_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                const float *dout, const float *inp, const float *mean,
                                const float *rstd, const float *gamma, int B, int C);
void gen_cpu_batchnorm_stats(gen_backend *be, float *part, const float *inp, const float *mean,
                             int B, int C, int N);
void gen_cpu_batchnorm_apply(gen_backend *be, float *out, float *rstd, const float *inp,
                             const float *mean, const float *gamma, const float *beta, int B,
                             int C, float eps);
void gen_cpu_batchnorm_backward_sums(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                     const float *dout, const float *inp, const float *mean,
                                     const float *rstd, const float *gamma, int B, int C);
void gen_cpu_batchnorm_backward_apply(gen_backend *be, float *dinp, const float *dout,
                                      const float *inp, const float *mean, const float *rstd,
                                      const float *gamma, const float *sums, int B, int C,
                                      int N);

/* ---- output (output.c) ---- */
void gen_cpu_activate_forward(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                              int B, const gen_act_span *spans, int nspans, float tau,
                              uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0);
void gen_cpu_activate_backward(gen_backend *be, float *dx, int lddx, const float *dout,
                               int lddo, const float *out, int ldo, int B,
                               const gen_act_span *spans, int nspans, float tau);
void gen_cpu_cross_entropy_rows(gen_backend *be, float *loss, float *dlogits, int ldd,
                                const float *logits, int ldl, int B, const int32_t *start,
                                const int32_t *len, const int32_t *target, float scale);

/* ---- random (random.c) ---- */
void gen_cpu_lrelu_dropout_forward(gen_backend *be, float *out, float *s, const float *inp,
                                   size_t n, float slope, float p, uint64_t seed,
                                   uint64_t stream, uint64_t offset);
void gen_cpu_linear_lrelu_dropout_forward(gen_backend *be, float *out, float *s, float *pre,
                                          const float *inp, int ldi, const float *W,
                                          const float *bias, int B, int C, int OC, float slope,
                                          float p, uint64_t seed, uint64_t stream,
                                          uint64_t offset, int B2, uint64_t offset2);
void gen_cpu_act_backward_bias(gen_backend *be, float *dinp, float *dbias, const float *dout,
                               const float *x, int rows, int cols, int act);
void gen_cpu_normal_onehot_rows(gen_backend *be, float *out, int ldo, float *z, float *cond,
                                int emb, int w, const int32_t *pos, int B, uint64_t seed,
                                uint64_t stream, uint64_t offset);
void gen_cpu_dropout_forward(gen_backend *be, float *out, float *mask, const float *inp,
                             size_t n, float p, uint64_t seed, uint64_t stream,
                             uint64_t offset);
void gen_cpu_fill_normal(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                         uint64_t offset);
void gen_cpu_fill_uniform(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                          uint64_t offset);

/* ---- optimiser (optimiser.c) ---- */
void gen_cpu_adam(gen_backend *be, float *param, const float *grad, float *m, float *v,
                  size_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int64_t t);
void gen_cpu_adamw(gen_backend *be, float *param, const float *grad, float *m, float *v,
                   size_t n, float lr, float beta1, float beta2, float eps, float keep,
                   int64_t t);
void gen_cpu_adam_dev(gen_backend *be, float *param, const float *grad, float *m, float *v,
                      size_t n, float lr, float beta1, float beta2, float eps,
                      float weight_decay, const int64_t *t0, int64_t dt,
                      const gen_amp *amp);
void gen_cpu_adam_dev_end(gen_backend *be, float *param, const float *grad, float *m, float *v,
                          size_t n, float lr, float beta1, float beta2, float eps,
                          float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp,
                          float *clip, size_t nclip, float lo, float hi, gen_step_state *st,
                          gen_step_state d);
void gen_cpu_amp_scale(gen_backend *be, float *x, size_t n, const gen_amp *amp);
void gen_cpu_amp_unscale(gen_backend *be, float *g, size_t n, gen_amp *amp);

/* ---- graph (graph.c) ---- */
void gen_cpu_select_block(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                          const gen_step_state *st);
void gen_cpu_step_advance(gen_backend *be, gen_step_state *st, gen_step_state d);

/* ---- gan (gan.c) ---- */
void gen_cpu_colsum_acc(gen_backend *be, float *dv, const float *a, int rows, int cols);
void gen_cpu_interpolate_groups(gen_backend *be, float *out, const float *real,
                                const float *fake, const float *alpha, int B, int w, int pac);
void gen_cpu_interpolate_uniform(gen_backend *be, float *out, float *alpha, const float *real,
                                 const float *fake, int B, int w, int pac, size_t ng,
                                 size_t first, uint64_t seed, uint64_t stream, uint64_t offset);
void gen_cpu_gp_penalty(gen_backend *be, float *pen, float *U, const float *G, int n,
                        int width, float lambda);

/* ---- vae (vae.c) ---- */
void gen_cpu_reparam_forward(gen_backend *be, float *z, float *std, const float *mu,
                             const float *logvar, const float *eps, size_t n);
void gen_cpu_reparam_backward_bias(gen_backend *be, float *dmu, float *dlogvar, float *dmb,
                                   float *dvb, const float *dz, const float *eps,
                                   const float *std, int B, int e);
void gen_cpu_reparam_backward(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                              const float *eps, const float *std, size_t n);
void gen_cpu_kl_normal(gen_backend *be, float *loss, float *dmu, float *dlogvar,
                       const float *mu, const float *logvar, size_t n, float scale);
void gen_cpu_tvae_recon(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                        int ldr, const float *x, const float *sigma, int B, int D,
                        const gen_recon_span *spans, int nspans, float scale);

/* ---- diffusion (diffusion.c) ---- */
void gen_cpu_silu_forward(gen_backend *be, float *out, const float *inp, size_t n);
void gen_cpu_silu_backward(gen_backend *be, float *dinp, const float *dout, const float *inp,
                           size_t n);
void gen_cpu_timestep_embed(gen_backend *be, float *out, const int32_t *t, int B, int dim);
void gen_cpu_label_embed(gen_backend *be, float *out, const float *emb, const int32_t *y,
                         int B, int dim);
void gen_cpu_label_embed_backward(gen_backend *be, float *demb, const float *dout,
                                  const int32_t *y, int B, int K, int dim);
void gen_cpu_ema_update(gen_backend *be, float *ema, const float *x, size_t n, float decay);
void gen_cpu_ddpm_sample_init(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                              const gen_act_span *spans, int nspans, uint64_t seed,
                              uint64_t stream, uint64_t offset, uint64_t e0);
void gen_cpu_ddpm_reverse_step(gen_backend *be, float *xout, int32_t *t, int tnext,
                               const float *xt, const float *eps, int B, int D,
                               const gen_act_span *spans, int nspans, gen_ddpm_step st,
                               uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0);

/* ---- ddpm_noise (ddpm_noise.c) ---- */
void gen_cpu_ddpm_noise(gen_backend *be, float *x0, float *xt, float *noise, float *coef,
                        int32_t *t, const double *sched, int T, int B, int D,
                        const gen_act_span *spans, int nspans, float xscale, uint64_t seed,
                        uint64_t stream, uint64_t offset, uint64_t row0);
void gen_cpu_ddpm_loss(gen_backend *be, float *loss, float *dout, const float *out,
                       const float *x0, const float *xt, const float *noise, const float *coef,
                       int B, int D, const gen_act_span *spans, int nspans, float gscale,
                       float mscale);
void gen_cpu_scale(gen_backend *be, float *x, size_t n, float s);

/* ---- gru (gru.c) ---- */
/* The branch-free exp the CPU gates use (exposed for its accuracy test). */
float gen_cpu_expf(float x);
void gen_cpu_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n);
void gen_cpu_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n);
void gen_cpu_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                         const float *W, const float *b, int B, int T, int C, int H);
void gen_cpu_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                          float *work, const float *dy, const float *x, const float *h0,
                          const float *y, const float *save, const float *W, int B, int T,
                          int C, int H);

/* ---- tgloss (tgloss.c) ---- */
void gen_cpu_mse_loss(gen_backend *be, double *loss, float *da, float *db, const float *a,
                      const float *b, int rows, int cols, int ld, float scale, int root);
void gen_cpu_bce_logits(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                        float y, float scale);
void gen_cpu_moments_loss(gen_backend *be, double *loss, float *dxh, const float *xh,
                          const float *x, int B, int T, int F, float scale);
void gen_cpu_take_rows(gen_backend *be, float *out, const float *src, const int32_t *idx, int B,
                       int w);
void gen_cpu_adam_tf1_gated(gen_backend *be, float *param, const float *grad, float *m,
                            float *v, size_t n, float lr, float beta1, float beta2, float eps,
                            int64_t *t, const double *gate, int ngate, double threshold);

/* ---- privacy (privacy.c) ---- */
void gen_cpu_dp_sqnorm_acc(gen_backend *be, float *sq, const float *x, int ldx, int C,
                           const float *g, int ldg, int OC, int B);
void gen_cpu_dp_clip_factors(gen_backend *be, float *s, const float *sq, int B, float clip);
void gen_cpu_dp_scale_rows(gen_backend *be, float *x, int ld, const float *s, int B, int cols);
void gen_cpu_dp_noise(gen_backend *be, float *g, size_t n, float sd, float scale, uint64_t seed,
                      uint64_t stream, uint64_t offset);

#endif /* GEN_CPU_INTERNAL_H */
