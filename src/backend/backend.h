/*
 * backend.h — the one table of operations every model is written against
 * (struct gen_backend_ops), ggml-backend style, grouped into named families (memory, batch,
 * dense, elementwise, norm, output, random, optimiser, graph, gan, vae, diffusion, gru,
 * tgloss, privacy; docs/architecture.md, "Backend families"). The CPU backend (src/backend/cpu/, one
 * file per family) is the plain-loop reference with cblas_sgemm as its tested fast path; the
 * CUDA backend (cuda/, one file per family) fills the same table. Models never know which
 * one runs them.
 *
 * Conventions (llm.c): outputs first, then inputs, then saved activations, then sizes.
 * Matrices are row-major with explicit leading dimensions. Every *_backward ADDS into its
 * gradient outputs (+=); callers zero gradient buffers. Pointers are backend memory
 * (host memory for the CPU backend). Random operations take (seed, stream, offset) and use
 * the Philox stream of rng.h, so every backend draws the same bits.
 * Derivations: docs/layers.md.
 *
 * The folder src/backend/ is the backend layer, above core/ and data/: this table, choosing a
 * backend for a context (backend.c), loading the CUDA module (cuda_module.c, cuda_module.h),
 * Philox (rng.h), number formats (precision.h), arenas (arena.h) and the diffusion arithmetic
 * the backends share (diffusion.h); src/backend/cpu/ is the CPU backend, one file per family.
 */
#ifndef GEN_BACKEND_H
#define GEN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "precision.h"

typedef struct gen_backend gen_backend;
typedef struct gen_graph gen_graph; /* a recorded step (CUDA graph); backend-private */

/* The per-step values of a training step, kept in backend memory so that one recorded step
 * replays correctly every step (docs/cuda.md, "CUDA graphs"): the kernels read them when
 * they run, and step_advance moves them on at the end of the step. The host keeps a mirror
 * and uploads it only where a step does not follow from the one before (a new chunk of
 * draws). */
typedef struct gen_step_state {
    uint64_t rng;             /* Philox counter offset of the step's first draw (gen_backend.
                                 rng_base points here while the step is issued) */
    int64_t t[2];             /* Adam step counts before the step, one per optimiser */
    int64_t k;                /* the step's index in the uploaded chunk of draws */
} gen_step_state;

/* Dynamic loss scaling of FP16 training (docs/precision.md), kept in backend memory so that a
 * recorded step replays it: the loss's gradient is multiplied by `scale` before the backward
 * pass (amp_scale); amp_unscale checks the summed gradients, divides them by the scale or, on
 * an Inf/NaN, zeroes them and sets `skip`, which the optimiser's adam_dev obeys; the scale
 * halves on a skipped step and doubles after `interval` clean steps in a row. */
typedef struct gen_amp {
    float scale;              /* the loss scale of the next backward pass */
    int32_t good;             /* clean steps since the scale last changed */
    int32_t skipped;          /* steps skipped so far (overflow) */
    int32_t skip;             /* 1: this step's gradients overflowed; adam_dev does nothing */
    int32_t steps;            /* amp_unscale calls so far (the test hook counts them) */
    int32_t inject_at;        /* test hook: the amp_unscale call (1-based) whose gradients are
                                 taken as overflowed, as if one were Inf; 0 = never */
    int32_t interval;         /* clean steps before the scale doubles (2000) */
    int32_t found;            /* scratch: a non-finite gradient seen (CUDA's check kernel) */
    float inv;                /* scratch: 1 / the scale this step's gradients carry */
} gen_amp;

#define GEN_AMP_INIT_SCALE 65536.0f /* 2^16, torch.cuda.amp.GradScaler's initial scale */
#define GEN_AMP_INTERVAL 2000       /* clean steps before the scale doubles */
#define GEN_AMP_MIN_SCALE 1.0f      /* the scale is never halved below this (so a run of
                                       real divergence stops at 1 and the ledger reports it) */

/* The activations of linear_act_forward and act_backward_bias (GEN_ACT_SCALE: the latter
 * only). */
enum { GEN_ACT_RELU = 0, GEN_ACT_SILU = 1, GEN_ACT_SCALE = 2 };

/* An activation span of the generator's output (the transformer's layout). */
typedef struct gen_act_span {
    int start, len;
    int softmax;              /* 0 = tanh, 1 = (Gumbel-)softmax */
} gen_act_span;

/* A span of TVAE's reconstruction loss (tvae_recon): positions [start, start + len) of the
 * encoded row x and where the decoder output r holds its terms. Without per-mode alphas every
 * span has r_start == start and modes == 0 (r and x share one layout). A tanh span of len 1
 * (a continuous column's alpha, its slot one-hot the softmax span at x[start + 1 .. start + 1
 * + modes)) may have modes > 0: r then holds `modes` alphas from r_start, one per slot, and
 * row b's Gaussian term reads the alpha of its own slot (docs/algorithms.md, "One alpha per
 * mode"). */
typedef struct gen_recon_span {
    int start, len;
    int softmax;              /* 0 = tanh (Gaussian term), 1 = cross entropy */
    int r_start;              /* the span's first position in r */
    int modes;                /* see above; 0 = the span's r positions mirror x's */
} gen_recon_span;

/* The encoded training table in backend memory (dev_table.c builds it once per fit): for
 * column c and row r, slot[c][r] and, for continuous columns, alpha[c][r] (slot and alpha
 * are arrays of column pointers in backend memory); offset[c] is the column's first output
 * position, cont[c] 1 for a continuous column (alpha at offset, the one-hot of the mode at
 * offset + 1 + slot) and 0 for a categorical one (the one-hot at offset + slot). The struct
 * itself lives on the host. */
typedef struct gen_dev_table {
    const int32_t *const *slot;
    const float *const *alpha;
    const int32_t *offset, *cont;
    int ncols, width;         /* width: the encoded row's length (data_dim) */
    int64_t nrows;
} gen_dev_table;

/* The scalars of one DDPM reverse step t -> s (docs/ddpm.md §5), from the host's schedule. */
typedef struct gen_ddpm_step {
    double abar_t, abar_s;    /* alpha-bar at t and at s (1 at s = -1) */
    double alpha_t;           /* 1 - beta_t */
    int ancestral;            /* 1: the DDPM posterior with variance beta_t (s = t - 1);
                                 0: strided DDIM */
    int last;                 /* s = -1: the step to the data (no noise) */
    double sigma;             /* strided: the noise's standard deviation (gen_ddpm_sigma of
                                 the `ddim-eta` setting); 0: deterministic DDIM (eta = 0) */
    float *x0prev;            /* strided, `sample-order` 2: backend memory laid out as xt,
                                 at tanh positions the previous step's x0 prediction, read
                                 when k2 != 0 and overwritten with this step's; NULL: first
                                 order (DDIM) */
    double k2;                /* the multistep coefficient (gen_ddpm_multistep_eps); 0: this
                                 step is DDIM's */
} gen_ddpm_step;

/* The table, one group per family. Each family has the same name on every side: its CPU code
 * in src/backend/cpu/<family>.c ("cpu/" below), its CUDA code in cuda/<family>.cu and its
 * parity cases (CUDA against the CPU) in tests/parity/<family>.c ("parity/");
 * docs/architecture.md, "Backend families", lists them. backend_cpu.c and backend_cuda.cu
 * assemble the tables. */
typedef struct gen_backend_ops {
    const char *name;
    int host_memory;          /* 1: backend memory is host memory (the CPU), so host arrays
                                 serve as backend buffers without a copy */

    /* ==== memory: cpu/memory.c, cuda/memory.cu, parity/memory.c =============================== */
    /* backend memory and host memory for transfers */
    void *(*alloc)(gen_backend *be, size_t bytes);          /* zero-filled; NULL on failure */
    void (*free)(gen_backend *be, void *p);                 /* accepts NULL */
    void (*upload)(gen_backend *be, void *dst, const void *src, size_t bytes);
    void (*download)(gen_backend *be, void *dst, const void *src, size_t bytes);
    void (*zero)(gen_backend *be, float *x, size_t n);
    /* dst (rows x cols, ld ldd) = src (rows x cols, ld lds) */
    void (*copy2d)(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                   int cols);
    /* Host memory for transfers: page-locked with CUDA (copies run at full PCIe/NVLink speed
     * and can overlap), plain with the CPU. NULL on failure; host_free accepts NULL. */
    void *(*host_alloc)(gen_backend *be, size_t bytes);
    void (*host_free)(gen_backend *be, void *p);

    /* ==== batch: cpu/batch.c, cuda/batch.cu, parity/batch.c =================================== */
    /* training batches from backend memory (no per-step host copies) */
    /* out (B rows, ld ldo): columns [0, t->width) of row b = encoded row rows[b] of t (one-hots
     * and alphas, zeros elsewhere); columns past width untouched */
    void (*gather_rows)(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                        const int32_t *rows, int B);
    /* out (B rows, ld ldo): columns [0, w) = 0, then out[b * ldo + pos[b]] = 1 where
     * 0 <= pos[b] < w (the conditional vector's one-hots) */
    void (*onehot_rows)(gen_backend *be, float *out, int ldo, int w, const int32_t *pos, int B);
    /* gather_rows(out, ldo, t, rows, B), then onehot_rows(out + t->width, ldo, w, pos, B): the
     * real rows with their condition in one call (CTGAN; docs/cuda.md, "Kernels per step").
     * CUDA: one kernel. */
    void (*gather_onehot_rows)(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                               const int32_t *rows, int B, int w, const int32_t *pos);
    /* acc[0..n) += x[0..n) (loss sums kept on the device across steps) */
    void (*accumulate)(gen_backend *be, float *acc, const float *x, int n);

    /* ==== dense: cpu/dense.c, cuda/dense.cu, parity/dense.c =================================== */
    /* products (GEMM, linear layers), also with 16-bit stored inputs */
    /* C (M x N) = alpha * op(A) * op(B) + beta * C; op = transpose when ta/tb. */
    void (*gemm)(gen_backend *be, int ta, int tb, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
    /* out (B x OC, ld ldo) = inp (B x C, ld ldi) . W^T + bias;  W (OC x C), bias (OC) or NULL */
    void (*linear_forward)(gen_backend *be, float *out, int ldo, const float *inp, int ldi,
                           const float *W, const float *bias, int B, int C, int OC);
    /* dinp += dout . W (NULL: skip); dW += dout^T . inp (NULL: skip); dbias += colsum(dout) */
    void (*linear_backward)(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                            const float *dout, int lddo, const float *inp, int ldi,
                            const float *W, int B, int C, int OC);
    /* A layer with one output (the critic's last; docs/cuda.md, "Kernels per step"): y (n) =
     * linear_forward(inp (n x C, ld ldi), w (1 x C), bias (1 value, or NULL)) with OC = 1, then
     * sums[j] = sum(y[j m .. (j + 1) m)) (sum's value) for j < nsums, m = n / nsums (nsums 0:
     * none); then, when n2 > 0, the same product alone for n2 more rows (inp + n ldi into
     * y + n; no sums), as a second call would. CUDA in FP32: one kernel for all n + n2 rows. */
    void (*linear1_forward)(gen_backend *be, float *y, float *sums, int nsums, const float *inp,
                            int ldi, const float *w, const float *bias, int n, int C, int n2);
    /* The backward of linear1_forward's layer and of the activation before it (the critic's
     * last layer and its block's local slope s; docs/cuda.md, "Kernels per step"): with dh and
     * da zeroed first, linear_backward(dh, C, dW, db, dy, 1, h, C, w, n, C, 1) (dW (C), db (1
     * value) NULL: skipped), then act_backward_bias(da, dbs, dh, s, n, C, GEN_ACT_SCALE) (dbs
     * NULL: skipped); dh, da, h, s are n x C, contiguous. CUDA: one kernel, no product. */
    void (*linear1_backward_act)(gen_backend *be, float *da, float *dbs, float *dh, float *dW,
                                 float *db, const float *dy, const float *h, const float *w,
                                 const float *s, int n, int C);
    /* out (B x OC, ld ldo) = inp (B x C, ld ldi) . WT + bias, WT (C x OC) the transpose of
     * linear_forward's W, bias (OC) or NULL, summing per output only the inputs that are not
     * zero, in input order (so a zero input skips its weights even where they are not
     * finite). For inputs that are mostly one-hot blocks (DDPM's x_t while sampling): the
     * cost is the non-zeros times OC, not C times OC. */
    void (*linear_sparse_forward)(gen_backend *be, float *out, int ldo, const float *inp,
                                  int ldi, const float *WT, const float *bias, int B, int C,
                                  int OC);
    /* linear_forward then an activation, in one call (docs/cuda.md, "Kernels per step"): pre
     * (B x OC, contiguous) = linear_forward(inp (B x C, ld ldi), W, bias), out (B x OC,
     * contiguous) = act(pre) with act GEN_ACT_RELU (relu_forward's value) or GEN_ACT_SILU
     * (silu_forward's). The same numbers as the two operations; CUDA runs the product and one
     * kernel (the bias and the activation), or in FP32 with GEN_ACT_RELU one cuBLASLt product
     * whose epilogue adds the bias and takes the ReLU: then pre is scratch, not written (a
     * ReLU's backward reads out, whose sign is pre's). */
    void (*linear_act_forward)(gen_backend *be, float *out, float *pre, const float *inp, int ldi,
                               const float *W, const float *bias, int B, int C, int OC, int act);
    /* ---- 16-bit stored activations (docs/precision.md, "Memory") ----
     * In BF16/FP16 training (be->precision GEN_PREC_BF16 or GEN_PREC_FP16, and only then)
     * an activation that the backward pass reads only as a product's operand, or as the sign
     * of a ReLU's output, is stored as the format's 16-bit encoding (precision.h,
     * gen_half_bits) instead of FP32. The product rounds its operands to the format anyway,
     * so every product below equals the FP32-stored one bit for bit: the CPU expands the
     * stored values into the same FP32 copy its rounding would have made; CUDA hands them to
     * cublasGemmEx as they are. */
    /* dst (rows x cols, ld ldd, 16-bit) = src (rows x cols, ld lds) rounded to the format */
    void (*to_half)(gen_backend *be, uint16_t *dst, int ldd, const float *src, int lds,
                    int rows, int cols);
    /* linear_forward with the input stored in 16 bits (inp: B x C, ld ldi) */
    void (*linear_forward_h)(gen_backend *be, float *out, int ldo, const uint16_t *inp, int ldi,
                             const float *W, const float *bias, int B, int C, int OC);
    /* linear_backward with the input stored in 16 bits: dW += dout^T . inp (the only product
     * that reads inp); dinp and dbias as linear_backward */
    void (*linear_backward_h)(gen_backend *be, float *dinp, int lddi, float *dW, float *dbias,
                              const float *dout, int lddo, const uint16_t *inp, int ldi,
                              const float *W, int B, int C, int OC);

    /* ==== elementwise: cpu/elementwise.c, cuda/elementwise.cu, parity/elementwise.c =========== */
    /* element-wise operations (contiguous n), the full sum, the finiteness check */
    void (*relu_forward)(gen_backend *be, float *out, const float *inp, size_t n);
    /* dinp += dout * (out > 0) */
    void (*relu_backward)(gen_backend *be, float *dinp, const float *dout, const float *out,
                          size_t n);
    void (*leaky_relu_forward)(gen_backend *be, float *out, const float *inp, size_t n,
                               float slope);
    /* dinp += dout * (inp > 0 ? 1 : slope) */
    void (*leaky_relu_backward)(gen_backend *be, float *dinp, const float *dout,
                                const float *inp, size_t n, float slope);
    /* out = a * b */
    void (*mul)(gen_backend *be, float *out, const float *a, const float *b, size_t n);
    /* dinp += dout * mask (dropout backward; any element-wise scale) */
    void (*mul_acc)(gen_backend *be, float *dinp, const float *dout, const float *mask, size_t n);
    /* s[i] = mask[i] * (inp[i] > 0 ? 1 : slope): the local slope of leaky-ReLU then dropout */
    void (*leaky_slope_mask)(gen_backend *be, float *s, const float *inp, const float *mask,
                             size_t n, float slope);
    /* An activation's backward and the bias gradient of the layer before it, in one pass
     * (docs/cuda.md, "Kernels per step"): dinp (rows x cols, contiguous) += dout * f(x), then
     * dbias (cols; NULL: skip) += the column sums of dinp, added row by row as
     * linear_backward adds them (dinp then being that layer's dout). f(x) = x
     * (GEN_ACT_SCALE: a mask or a local slope; mul_acc's value), x > 0 (GEN_ACT_RELU, x the
     * ReLU's output; relu_backward's value), SiLU's derivative at x (GEN_ACT_SILU, x the
     * input; silu_backward's value). */
    void (*act_backward_bias)(gen_backend *be, float *dinp, float *dbias, const float *dout,
                              const float *x, int rows, int cols, int act);
    /* out (rows x cols) = s (rows x cols) * v (cols), broadcast over rows */
    void (*mul_rowvec)(gen_backend *be, float *out, const float *s, const float *v, int rows,
                       int cols);
    /* out[0] = sum(x) (n floats) */
    void (*sum)(gen_backend *be, float *out, const float *x, size_t n);
    /* A training step's bookkeeping in one call (the ledger of docs/cuda.md, "Kernels per
     * step"): rec[0..k) = sums[0..k) (copy2d), rec[k] = sum(g[0..n)), tmp[0] = sum(rec[0..k])
     * and acc[0] += tmp[0] (accumulate), each value as those operations compute it. sums
     * does not overlap rec; all in backend memory. CUDA: one kernel, or two for a g of more
     * than 1,024 floats (sum's partials, then the rest in the finishing block). */
    void (*ledger_add)(gen_backend *be, float *rec, float *tmp, float *acc, const float *sums,
                       int k, const float *g, size_t n);
    /* x = min(max(x, lo), hi) */
    void (*clamp)(gen_backend *be, float *x, size_t n, float lo, float hi);
    /* returns 1 if any of x[0..n) is NaN or infinite */
    int (*any_nonfinite)(gen_backend *be, const float *x, size_t n);
    /* the ReLU of the 16-bit stored activations (dense above; docs/precision.md, "Memory") */
    /* out (rows x cols, ld ldo, 16-bit) = max(inp, 0) rounded to the format (inp: rows x cols,
     * ld ldi; a NaN gives 0, as relu_forward) */
    void (*relu_forward_h)(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                           int rows, int cols);
    /* dinp (rows x cols, contiguous) += dout (contiguous) * (out > 0), out the stored 16-bit
     * output (ld ldo): relu_backward reading the stored value (a positive input that rounded
     * to zero passes no gradient) */
    void (*relu_backward_h)(gen_backend *be, float *dinp, const float *dout,
                            const uint16_t *out, int ldo, int rows, int cols);

    /* ==== norm: cpu/norm.c, cuda/norm.cu, parity/norm.c ======================================= */
    /* batch norm over B rows of C features (training statistics; biased variance) */
    void (*batchnorm_forward)(gen_backend *be, float *out, float *mean, float *rstd,
                              const float *inp, const float *gamma, const float *beta, int B,
                              int C, float eps);
    void (*batchnorm_forward_eval)(gen_backend *be, float *out, const float *inp,
                                   const float *rmean, const float *rvar, const float *gamma,
                                   const float *beta, int B, int C, float eps);
    /* running = (1-m) running + m batch (running variance uses the unbiased batch variance) */
    void (*batchnorm_update_running)(gen_backend *be, float *rmean, float *rvar,
                                     const float *mean, const float *rstd, int B, int C,
                                     float momentum, float eps);
    void (*batchnorm_backward)(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                               const float *dout, const float *inp, const float *mean,
                               const float *rstd, const float *gamma, int B, int C);
    /* A generator block's backward in one call (docs/cuda.md, "Kernels per step"): with dbn
     * = dout (B x C, ld lddo) where the block's stored ReLU output out (B x C, ld ldo) is
     * positive (relu_backward's value), batchnorm_backward(dinp, dgamma, dbeta, dbn, inp,
     * mean, rstd, gamma), then dbias (C; NULL: skip) += the column sums of dinp (B x C,
     * contiguous), added row by row as linear_backward adds them (dinp being the dout of the
     * layer before). CUDA: one kernel. dh, dbn (B x C each, or NULL): scratch the CPU runs
     * the replaced operations in (copy2d, relu_backward, batchnorm_backward; the model's own
     * buffers, so that it touches the memory it did); other backends leave them alone. */
    void (*relu_bn_backward)(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                             float *dbias, float *dh, float *dbn, const float *dout, int lddo,
                             const float *out, int ldo, const float *inp, const float *mean,
                             const float *rstd, const float *gamma, int B, int C);
    /* A generator block in one call (docs/cuda.md, "Kernels per step"): pre (B x OC,
     * contiguous) = linear_forward(inp (B x C, ld ldi), W, bias); batchnorm_forward of pre
     * (mean, rstd); batchnorm_update_running(rmean, rvar, ..., momentum, eps); out (B x OC, ld
     * ldo) = max(the normalised pre, 0) (relu_forward's value). The same numbers as those
     * four operations; CUDA runs the product and one kernel. bn (B x OC, or NULL): scratch the
     * CPU writes the normalised pre to before the ReLU, as batchnorm_forward did; other
     * backends leave it alone. */
    void (*linear_bn_relu_forward)(gen_backend *be, float *out, int ldo, float *pre, float *bn,
                                   float *mean,
                                   float *rstd, float *rmean, float *rvar, const float *inp,
                                   int ldi, const float *W, const float *bias,
                                   const float *gamma, const float *beta, int B, int C, int OC,
                                   float eps, float momentum);
    /* ---- batch norm synchronised across data-parallel ranks (docs/distributed.md): the
     * statistics are those of the global batch of N rows, of which this rank holds B; the
     * caller sums the partial results over ranks between the steps ---- */
    /* part[c] = sum_b inp[b,c] / N (mean NULL), else sum_b (inp[b,c] - mean[c])^2 / N */
    void (*batchnorm_stats)(gen_backend *be, float *part, const float *inp, const float *mean,
                            int B, int C, int N);
    /* rstd: the (global, biased) variance on entry, 1/sqrt(var + eps) on return;
     * out = (inp - mean) * rstd * gamma + beta */
    void (*batchnorm_apply)(gen_backend *be, float *out, float *rstd, const float *inp,
                            const float *mean, const float *gamma, const float *beta, int B,
                            int C, float eps);
    /* sums[c] = sum_b dout*gamma, sums[C + c] = sum_b dout*gamma*xhat (partial, to be summed
     * over ranks); dgamma += sum_b dout*xhat; dbeta += sum_b dout (this rank's rows) */
    void (*batchnorm_backward_sums)(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                    const float *dout, const float *inp, const float *mean,
                                    const float *rstd, const float *gamma, int B, int C);
    /* dinp += rstd * (dout*gamma - sums[c]/N - xhat * sums[C + c]/N), sums over all ranks */
    void (*batchnorm_backward_apply)(gen_backend *be, float *dinp, const float *dout,
                                     const float *inp, const float *mean, const float *rstd,
                                     const float *gamma, const float *sums, int B, int C, int N);

    /* ==== output: cpu/output.c, cuda/output.cu, parity/output.c =============================== */
    /* the generator's output activations and the conditional cross entropy */
    /* tanh spans: out = tanh(x); softmax spans: out = softmax((x + g)/tau), g = -log(E),
     * E ~ Exp(1) from Philox: element (b, j) is stream index (row0 + b) * W + j (W = the
     * spans' width), word idx%4 of counter offset + idx/4; row0 is the global index of the
     * first row (a data-parallel rank's slice draws the noise the whole batch would).
     * tau <= 0 means plain softmax without noise. */
    void (*activate_forward)(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                             int B, const gen_act_span *spans, int nspans, float tau,
                             uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0);
    /* dx += d out/dx applied to dout, using the forward's out. */
    void (*activate_backward)(gen_backend *be, float *dx, int lddx, const float *dout,
                              int lddo, const float *out, int ldo, int B,
                              const gen_act_span *spans, int nspans, float tau);
    /* Cross entropy of each row's selected span: row b uses logits[b, start[b] .. +len[b])
     * and target column target[b] (absolute); rows with len 0 are skipped.
     * loss[0] = scale * sum_b CE_b;  dlogits += scale * dCE/dlogits. */
    void (*cross_entropy_rows)(gen_backend *be, float *loss, float *dlogits, int ldd,
                               const float *logits, int ldl, int B, const int32_t *start,
                               const int32_t *len, const int32_t *target, float scale);

    /* ==== random: cpu/random.c, cuda/random.cu, parity/random.c =============================== */
    /* Philox draws (rng.h): random fills and dropout */
    void (*fill_normal)(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                        uint64_t offset);
    void (*fill_uniform)(gen_backend *be, float *x, size_t n, uint64_t seed, uint64_t stream,
                         uint64_t offset);
    /* mask[i] = keep ? 1/(1-p) : 0 (Philox uniform >= p keeps), out = inp * mask */
    void (*dropout_forward)(gen_backend *be, float *out, float *mask, const float *inp,
                            size_t n, float p, uint64_t seed, uint64_t stream, uint64_t offset);
    /* The generator's input z' = [z, cond] in one call (docs/cuda.md, "Kernels per step"): out
     * (B rows, ld ldo) columns [0, emb) = fill_normal's draws of B emb values from these
     * arguments (value b emb + j at row b, column j), columns [emb, emb + w) =
     * onehot_rows(w, pos). CUDA: one kernel. z (B x emb) and cond (B x w), or NULL: scratch
     * the CPU fills first (fill_normal, onehot_rows) and copies from, as before; other
     * backends leave them alone. */
    void (*normal_onehot_rows)(gen_backend *be, float *out, int ldo, float *z, float *cond,
                               int emb, int w, const int32_t *pos, int B, uint64_t seed,
                               uint64_t stream, uint64_t offset);
    /* Leaky ReLU then dropout in one pass (a discriminator block; docs/cuda.md, "Kernels per
     * step"): with m the mask dropout_forward draws from the same arguments, out = m *
     * leaky_relu(inp) (leaky_relu_forward's value) and s = m * (inp > 0 ? 1 : slope)
     * (leaky_slope_mask's value), the local slope of both, so that the backward pass is
     * mul_acc(dinp, dout, s) and the gradient penalty reads s as it is */
    void (*lrelu_dropout_forward)(gen_backend *be, float *out, float *s, const float *inp,
                                  size_t n, float slope, float p, uint64_t seed,
                                  uint64_t stream, uint64_t offset);
    /* linear_forward into pre (B x OC, contiguous; inp B x C, ld ldi) then
     * lrelu_dropout_forward of pre (n = B OC): the same numbers as the two operations; then,
     * when B2 > 0, the same for B2 more rows (inp + B ldi into out, s, pre + B OC) with the
     * draws at offset2, as a second call would. CUDA runs one product over B + B2 rows and
     * one kernel that adds the bias on the way. */
    void (*linear_lrelu_dropout_forward)(gen_backend *be, float *out, float *s, float *pre,
                                         const float *inp, int ldi, const float *W,
                                         const float *bias, int B, int C, int OC, float slope,
                                         float p, uint64_t seed, uint64_t stream,
                                         uint64_t offset, int B2, uint64_t offset2);

    /* ==== optimiser: cpu/optimiser.c, cuda/optimiser.cu, parity/optimiser.c =================== */
    /* torch Adam with L2-coupled weight decay; FP16 loss scaling */
    void (*adam)(gen_backend *be, float *param, const float *grad, float *m, float *v, size_t n,
                 float lr, float beta1, float beta2, float eps, float weight_decay, int64_t t);
    /* adam with the step count in backend memory: t = *t0 + dt (t0: an int64 in backend
     * memory, read when the update runs); the same numbers as adam(..., *t0 + dt). amp (NULL:
     * none): when amp->skip is set the update does nothing (parameters and moments stay) */
    void (*adam_dev)(gen_backend *be, float *param, const float *grad, float *m, float *v,
                     size_t n, float lr, float beta1, float beta2, float eps,
                     float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp);
    /* AdamW's step (decoupled weight decay; DDPM, docs/ddpm.md): param *= keep (scale's
     * value; keep = 1 - lr * decay, 1: skipped), then adam(..., weight decay 0, t). CUDA: one
     * kernel (docs/cuda.md, "Kernels per step"). */
    void (*adamw)(gen_backend *be, float *param, const float *grad, float *m, float *v, size_t n,
                  float lr, float beta1, float beta2, float eps, float keep, int64_t t);
    /* The end of a training step in one call (docs/cuda.md, "Kernels per step"): adam_dev(...),
     * then clamp(clip, nclip, lo, hi) when clip is not NULL (values inside param, updated
     * first), then step_advance(st, d). CUDA: one kernel, whose last block clamps and
     * advances after every block has read *t0. */
    void (*adam_dev_end)(gen_backend *be, float *param, const float *grad, float *m, float *v,
                         size_t n, float lr, float beta1, float beta2, float eps,
                         float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp,
                         float *clip, size_t nclip, float lo, float hi, gen_step_state *st,
                         gen_step_state d);
    /* ---- loss scaling (gen_amp above; docs/precision.md) ---- */
    /* x[0..n) *= amp->scale (read when it runs) */
    void (*amp_scale)(gen_backend *be, float *x, size_t n, const gen_amp *amp);
    /* the end of a backward pass: steps += 1; skip = some g[i] is not finite (or steps ==
     * inject_at); skip: g = 0, scale = max(scale / 2, GEN_AMP_MIN_SCALE), good = 0,
     * skipped += 1; else g /= scale, good += 1 and when good == interval: scale *= 2,
     * good = 0 */
    void (*amp_unscale)(gen_backend *be, float *g, size_t n, gen_amp *amp);

    /* ==== graph: cpu/graph.c, cuda/graph.cu, parity/graph.c =================================== */
    /* device step state and recorded steps (docs/cuda.md, "CUDA graphs") */
    /* dst[0..n) = src[k * n .. k * n + n) with k = st->k read when it runs: the step's block
     * of a chunk of uploaded draws */
    void (*select_block)(gen_backend *be, int32_t *dst, const int32_t *src, size_t n,
                         const gen_step_state *st);
    /* *st += d, field by field (st in backend memory): the end of a step */
    void (*step_advance)(gen_backend *be, gen_step_state *st, gen_step_state d);
    /* Recording (CUDA graphs). graph_begin starts recording the backend's work: until
     * graph_end, operations are recorded, not run, and nothing may be read back, uploaded,
     * allocated or freed. It answers 0 when the backend does not record (the CPU: these
     * entries are NULL; CUDA with GENESIS_CUDA_GRAPHS=0 or GENESIS_CUDA_SYNC=1): the caller
     * then issues its work normally. graph_end returns the recorded work (NULL on a failure,
     * which the backend's status reports); graph_launch queues one replay of it;
     * graph_free accepts NULL. */
    int (*graph_begin)(gen_backend *be);
    gen_graph *(*graph_end)(gen_backend *be);
    void (*graph_launch)(gen_backend *be, gen_graph *g);
    void (*graph_free)(gen_backend *be, gen_graph *g);

    /* ==== gan: cpu/gan.c, cuda/gan.cu, parity/gan.c =========================================== */
    /* WGAN-GP pieces (CTGAN) */
    /* out row i = alpha[i / pac] * real_i + (1 - alpha[i/pac]) * fake_i (rows of width w) */
    void (*interpolate_groups)(gen_backend *be, float *out, const float *real,
                               const float *fake, const float *alpha, int B, int w, int pac);
    /* fill_uniform(alpha, ng, seed, stream, offset), then interpolate_groups(out, real, fake,
     * alpha + first, B, w, pac): the interpolates with their draws in one call (docs/cuda.md,
     * "Kernels per step"). CUDA: one kernel. */
    void (*interpolate_uniform)(gen_backend *be, float *out, float *alpha, const float *real,
                                const float *fake, int B, int w, int pac, size_t ng, size_t first,
                                uint64_t seed, uint64_t stream, uint64_t offset);
    /* Per row g of G (n x width): pen[0] = lambda/n * sum_g (|G_g| - 1)^2 and
     * U_g = (2 lambda / n) (|G_g| - 1) G_g / |G_g| */
    void (*gp_penalty)(gen_backend *be, float *pen, float *U, const float *G, int n, int width,
                       float lambda);
    /* dv (cols) += colsum(a (rows x cols)) */
    void (*colsum_acc)(gen_backend *be, float *dv, const float *a, int rows, int cols);

    /* ==== vae: cpu/vae.c, cuda/vae.cu, parity/vae.c =========================================== */
    /* variational autoencoder pieces (TVAE) */
    /* std = exp(logvar / 2); z = mu + eps * std (reparameterisation) */
    void (*reparam_forward)(gen_backend *be, float *z, float *std, const float *mu,
                            const float *logvar, const float *eps, size_t n);
    /* dmu += dz; dlogvar += dz * eps * std / 2 */
    void (*reparam_backward)(gen_backend *be, float *dmu, float *dlogvar, const float *dz,
                             const float *eps, const float *std, size_t n);
    /* reparam_backward over B rows of e values, then dmb (e) += the column sums of dmu and
     * dvb (e) += those of dlogvar, added row by row as linear_backward adds a bias gradient
     * (the encoder's two heads; docs/cuda.md, "Kernels per step"). CUDA: one kernel. */
    void (*reparam_backward_bias)(gen_backend *be, float *dmu, float *dlogvar, float *dmb,
                                  float *dvb, const float *dz, const float *eps,
                                  const float *std, int B, int e);
    /* KL(N(mu, exp(logvar)) || N(0, 1)): loss[0] = scale * -1/2 sum(1 + logvar - mu^2 -
     * exp(logvar)); dmu += scale * mu; dlogvar += scale * (exp(logvar) - 1) / 2 */
    void (*kl_normal)(gen_backend *be, float *loss, float *dmu, float *dlogvar, const float *mu,
                      const float *logvar, size_t n, float scale);
    /* TVAE reconstruction loss of B rows r (decoder output, row stride ldr) against encoded
     * rows x (row stride D), span by span (docs/algorithms.md §T5): tanh position j of a span
     * (its r position j' = r_start + j - start, or with modes > 0 j' = r_start + k_b, k_b the
     * first argmax of x[b, start + 1 .. start + 1 + modes)): sum_b (x_bj - tanh r_bj')^2 /
     * (2 sigma_j^2) + B log sigma_j; softmax span: sum_b cross entropy(r[b, r_start .. +len),
     * argmax x_span). sigma and dsigma are indexed like x. loss[0] = scale * total; dr +=
     * scale * d/dr; dsigma += scale * d/dsigma (tanh positions). */
    void (*tvae_recon)(gen_backend *be, float *loss, float *dr, float *dsigma, const float *r,
                       int ldr, const float *x, const float *sigma, int B, int D,
                       const gen_recon_span *spans, int nspans, float scale);

    /* ==== diffusion: cpu/diffusion.c, cuda/diffusion.cu, parity/diffusion.c =================== */
    /* diffusion (DDPM; docs/ddpm.md) */
    /* out = inp * sigmoid(inp) (SiLU) */
    void (*silu_forward)(gen_backend *be, float *out, const float *inp, size_t n);
    /* dinp += dout * (s + inp * s * (1 - s)), s = sigmoid(inp) */
    void (*silu_backward)(gen_backend *be, float *dinp, const float *dout, const float *inp,
                          size_t n);
    /* out (B x dim) = sinusoidal embedding of the integer timesteps t (B): with half =
     * dim / 2 and f_i = exp(-ln(10000) i / half), out[b, i] = cos(t_b f_i) and
     * out[b, half + i] = sin(t_b f_i) for i < half; an odd dim's last column is 0 */
    void (*timestep_embed)(gen_backend *be, float *out, const int32_t *t, int B, int dim);
    /* TabDDPM's loss of the denoiser output `out` (B x D) for encoded rows x0, noised rows xt
     * and the Gaussian noise `noise` (all B x D). tanh spans (Gaussian): sum (out - noise)^2.
     * softmax spans (multinomial diffusion): with K the span's width and per row coef[2b] =
     * a (alpha_t), coef[2b + 1] = c (alpha-bar_{t-1}, 1 at t = 0), the posteriors
     * q ∝ (a xt + (1 - a)/K) * (c x0 + (1 - c)/K) and p the same with x0 replaced by
     * softmax(out span); sum KL(q || p). loss[0] = gscale * Gaussian sum, loss[1] = mscale *
     * multinomial sum; dout += their gradients (dout may be NULL). */
    void (*ddpm_loss)(gen_backend *be, float *loss, float *dout, const float *out,
                      const float *x0, const float *xt, const float *noise, const float *coef,
                      int B, int D, const gen_act_span *spans, int nspans, float gscale,
                      float mscale);
    /* x *= s (AdamW's decoupled weight decay) */
    void (*scale)(gen_backend *be, float *x, size_t n, float s);
    /* Class-label embedding (TabDDPM's nn.Embedding of the target, docs/ddpm.md §3a): out
     * (B x dim) row b = emb row y[b], emb (K x dim), 0 <= y[b] < K; y[b] < 0 (a hidden
     * label: classifier-free guidance's unconditional rows) gives a row of zeros */
    void (*label_embed)(gen_backend *be, float *out, const float *emb, const int32_t *y, int B,
                        int dim);
    /* demb (K x dim) row k += sum over the rows b with y[b] = k of dout row b, the rows added
     * in increasing b (rows with y[b] < 0 add nothing) */
    void (*label_embed_backward)(gen_backend *be, float *demb, const float *dout,
                                 const int32_t *y, int B, int K, int dim);
    /* ema = decay * ema + (1 - decay) * x (an exponential moving average of weights; with
     * decay = -w, DDPM's guided prediction (1 + w) x - w ema) */
    void (*ema_update)(gen_backend *be, float *ema, const float *x, size_t n, float decay);
    /* DDPM sampling on the backend (docs/ddpm.md §5), B rows of width D, the draws of
     * diffusion.h (element (b, j) = e0 + b * D + j: a tanh position's normal from the
     * counters from offset, a softmax span's uniform from offset + GEN_DDPM_REGION; offset
     * plus rng_base).
     * Positions outside the spans are not written. t (B timesteps, backend memory; NULL:
     * skipped): every t[b] = tnext, the denoiser's timestep for the next step.
     * ddpm_sample_init: x_T; tanh positions N(0, 1), softmax span of width K the one-hot of
     * category floor(u K) (gen_ddpm_init_cat). */
    void (*ddpm_sample_init)(gen_backend *be, float *x, int32_t *t, int tnext, int B, int D,
                             const gen_act_span *spans, int nspans, uint64_t seed,
                             uint64_t stream, uint64_t offset, uint64_t e0);
    /* ddpm_reverse_step: xout = one reverse step of xt given the denoiser's output eps
     * (predicted noise at tanh positions, logits at softmax spans): gen_ddpm_gauss_step per
     * tanh position, a one-hot of gen_ddpm_mn_draw (a = abar_t / abar_s, c = abar_s) per
     * softmax span. xout may be xt. step.x0prev (strided, second order): before the Gaussian
     * step, eps at a tanh position becomes gen_ddpm_multistep_eps's (x0prev's value there
     * read when step.k2 != 0), and x0prev there is overwritten with this step's x0. */
    void (*ddpm_reverse_step)(gen_backend *be, float *xout, int32_t *t, int tnext,
                              const float *xt, const float *eps, int B, int D,
                              const gen_act_span *spans, int nspans, gen_ddpm_step step,
                              uint64_t seed, uint64_t stream, uint64_t offset, uint64_t e0);

    /* ==== ddpm_noise: cpu/ddpm_noise.c, cuda/ddpm_noise.cu, parity/ddpm_noise.c ============= */
    /* DDPM's forward process for a training batch (docs/ddpm.md §6; the expressions and draws
     * of src/backend/ddpm_noise.h): B rows of width D whose running numbers in the fit are
     * row0 .. row0 + B - 1. x0 (B x D, the encoded rows) is scaled by xscale at tanh
     * positions, in place; t[b] = the row's timestep in [0, T); at tanh positions noise = the
     * Gaussian draw and xt = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise; a softmax span's xt =
     * the one-hot of the category drawn from abar_t x0 + (1 - abar_t) / K; coef[2b] =
     * alpha_t, coef[2b + 1] = alpha-bar_{t-1} (1 at t = 0). sched (backend memory, 2T
     * doubles): alpha_t = 1 - beta_t for t < T, then alpha-bar_t. Positions outside the spans
     * are not written (nor noise at softmax spans). The draws: the Philox counters from
     * offset (plus rng_base) of (seed, stream). */
    void (*ddpm_noise)(gen_backend *be, float *x0, float *xt, float *noise, float *coef,
                       int32_t *t, const double *sched, int T, int B, int D,
                       const gen_act_span *spans, int nspans, float xscale, uint64_t seed,
                       uint64_t stream, uint64_t offset, uint64_t row0);

    /* ==== gru: cpu/gru.c, cuda/gru.cu, parity/gru.c =========================================== */
    /* GRU and sigmoid (TimeGAN); CUDA also cuda/gru_cudnn.cu (cuDNN) */
    /* out = 1 / (1 + exp(-inp)) */
    void (*sigmoid_forward)(gen_backend *be, float *out, const float *inp, size_t n);
    /* dinp += dout * out * (1 - out) */
    void (*sigmoid_backward)(gen_backend *be, float *dinp, const float *dout, const float *out,
                             size_t n);
    /* ---- GRU: one layer over a whole sequence (TimeGAN; docs/algorithms.md §S2) ----
     * The reset-after cell of cuDNN's CUDNN_GRU and PyTorch's nn.GRU, batch-major data,
     * equal lengths (every sample runs T steps), per step t (h_{-1} = h0, zeros when h0 is
     * NULL), gate order r (reset), z (update), n (new):
     *   r   = sigmoid(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)
     *   z   = sigmoid(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)
     *   n   = tanh(W_in x_t + b_in + r * (W_hn h_{t-1} + b_hn))      (reset AFTER the matmul)
     *   h_t = (1 - z) * n + z * h_{t-1}
     * W (3H * (C + H) floats) = W_ih (3H x C, row-major) followed by W_hh (3H x H,
     * row-major); rows [0, H) are gate r, [H, 2H) z, [2H, 3H) n, so each gate's matrix is a
     * contiguous (H x C) or (H x H) row-major block, PyTorch's weight_ih_l0 / weight_hh_l0.
     * b (6H) = b_ih (r, z, n) followed by b_hh (r, z, n). cuDNN (CUDNN_GRU, DOUBLE_BIAS)
     * takes the same per-gate blocks: linLayerID 0, 1, 2 = W_ir, W_iz, W_in and 3, 4, 5 =
     * W_hr, W_hz, W_hn, each an (H x in) row-major matrix with its bias; cuda/gru_cudnn.cu
     * copies the blocks to the addresses cudnnGetRNNWeightParams returns.
     * Derivation of forward and backward: docs/layers.md ("GRU").
     * y (B, T, H) = h_0..h_{T-1} of every step; save (B, T, 4H) = r, z, W_hn h_{t-1} + b_hn,
     * n per step (written by forward, read by backward; backends that keep their own state,
     * such as cuDNN's reserve space, may leave it unwritten); x (B, T, C). */
    void (*gru_forward)(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                        const float *W, const float *b, int B, int T, int C, int H);
    /* Backward through time from dy (B, T, H) (the loss's gradient w.r.t. every step's
     * output; no gradient enters through the final state). dx (B, T, C) += (NULL: skip),
     * dh0 (B, H) += (NULL: skip), dW += and db += (both NULL: skip the weight gradients).
     * work (gen_gru_work_floats): scratch, (B, T, 5H) + (B, H) floats. Both backends put
     * G (B, T, 4H) = dR, dZ, q = dN r, dN (the gradients of the gates' pre-activations; q
     * that of W_hn h + b_hn) first and the gradient reaching h_{-1} (B, H) last; between
     * them CUDA keeps Yp (B, T, H) = h_{t-1} of every step, the CPU its weight gradients'
     * partial sums per chunk of rows (cpu/gru.c). Not compared by the parity tests. */
    void (*gru_backward)(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                         float *work, const float *dy, const float *x, const float *h0,
                         const float *y, const float *save, const float *W, int B, int T,
                         int C, int H);

    /* ==== tgloss: cpu/tgloss.c, cuda/tgloss.cu, parity/tgloss.c =============================== */
    /* TimeGAN's losses, TF1's gated Adam and batch gather */
    /* ---- TimeGAN's losses on the device (docs/timegan.md §7; math: docs/algorithms.md §S4)
     * Loss values are written in double to backend memory (a finite-difference check of the
     * whole model needs more than a float's digits), gradients w.r.t. the networks' outputs
     * added (+=) into backend buffers, so an update step reads nothing back. Sums are in
     * double in a fixed order (deterministic whatever the thread or block count). ---- */
    /* Squared error of a against b, both rows x cols with row stride ld: m = sum (a - b)^2 /
     * (rows cols); loss[0] = m; with k = scale (root 0) or scale * 0.5 / sqrt(max(m, 1e-20))
     * (root 1: the gradient of scale * sqrt(m)): da += k * 2 (a - b) / (rows cols), db -= the
     * same (either NULL). rows * cols == 0: loss[0] = 0 and no gradient. */
    void (*mse_loss)(gen_backend *be, double *loss, float *da, float *db, const float *a,
                     const float *b, int rows, int cols, int ld, float scale, int root);
    /* Binary cross entropy with logits l[0..n) against label y (0 or 1), an element mean:
     * loss[0] = scale * mean(max(l, 0) - l y + log1p(exp(-|l|))); dl += scale * (sigmoid(l) -
     * y) / n (dl NULL: skip). */
    void (*bce_logits)(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                       float y, float scale);
    /* TimeGAN's moments loss of xh (fake) against x (real), both (B, T, F): per (t, f) over
     * the batch axis the means mh, m and biased variances vh, v; sh = sqrt(vh + 1e-6), sr =
     * sqrt(v + 1e-6); loss[0] = V1 = mean_{t,f} |sh - sr|, loss[1] = V2 = mean_{t,f} |mh - m|;
     * dxh += scale * d(V1 + V2)/dxh with sign(0) = 0: element (b, t, f) gets
     * scale / (T F) * (sign(sh - sr) (xh - mh) / (B sh) + sign(mh - m) / B) (NULL: skip). */
    void (*moments_loss)(gen_backend *be, double *loss, float *dxh, const float *xh,
                         const float *x, int B, int T, int F, float scale);
    /* TF1's Adam with the step count in backend memory and a gate on the device: when gate is
     * NULL or gate[0] + ... + gate[ngate - 1] (added in that order) > threshold (a NaN fails),
     * k = *t + 1, the update of adam(..., eps / sqrt(1 - beta2^k), weight decay 0, k) (TF1:
     * p -= lr sqrt(1 - beta2^k) / (1 - beta1^k) m / (sqrt(v) + eps)), and *t = k; otherwise
     * nothing changes. t: one int64 in backend memory. */
    void (*adam_tf1_gated)(gen_backend *be, float *param, const float *grad, float *m, float *v,
                           size_t n, float lr, float beta1, float beta2, float eps, int64_t *t,
                           const double *gate, int ngate, double threshold);
    /* out (B rows of w floats, contiguous) row b = src row idx[b] (src: rows of w floats,
     * idx: B int32 in backend memory): TimeGAN's batches from its sequences in backend
     * memory */
    void (*take_rows)(gen_backend *be, float *out, const float *src, const int32_t *idx, int B,
                      int w);

    /* ==== privacy: cpu/privacy.c, cuda/privacy.cu, parity/privacy.c ========================= */
    /* DP-SGD (docs/privacy.md): per-example gradient norms of linear layers without forming
     * the per-example gradients, clipping factors, row scaling and the Gaussian noise */
    /* sq[b] += (||x_b||^2 + 1) ||g_b||^2 for b < B: the squared Frobenius norm of row b's
     * gradient of a linear layer out = inp . W^T + bias (x_b: row b of its input, B x C, ld
     * ldx; g_b: row b of dL_b/d out, B x OC, ld ldg), dW_b = g_b^T x_b and dbias_b = g_b
     * (Goodfellow 2015, "Efficient per-example gradient computations"). Sums in double. */
    void (*dp_sqnorm_acc)(gen_backend *be, float *sq, const float *x, int ldx, int C,
                          const float *g, int ldg, int OC, int B);
    /* s[b] = min(1, clip / sqrt(sq[b])) (1 where sq[b] == 0) */
    void (*dp_clip_factors)(gen_backend *be, float *s, const float *sq, int B, float clip);
    /* x (B x cols, ld ld): row b *= s[b] */
    void (*dp_scale_rows)(gen_backend *be, float *x, int ld, const float *s, int B, int cols);
    /* g[i] = (g[i] + sd * z_i) * scale, z_i element i of fill_normal(seed, stream, offset)
     * (the same Philox draws; offset adds the step's base as every random operation) */
    void (*dp_noise)(gen_backend *be, float *g, size_t n, float sd, float scale, uint64_t seed,
                     uint64_t stream, uint64_t offset);

    /* ==== the backend itself (no family): cpu/backend_cpu.c, cuda/backend_cuda.cu =========== */
    /* The backend's first failure (sticky: a CUDA, cuBLAS or NCCL error), GENESIS_OK while
     * none. After a failure every operation does nothing, downloads give NaN, and the
     * context's message names the operation and the library's error text. NULL: the
     * backend cannot fail once created (the CPU). */
    genesis_status (*status)(gen_backend *be);

    void (*destroy)(gen_backend *be);
    /* Prepares the calling thread to use this backend (a thread other than the one that
     * created it: the sampling worker). CPU: single-threaded BLAS calls inside our tiles;
     * CUDA: the backend's device made current. May be NULL. */
    void (*thread_attach)(gen_backend *be);
} gen_backend_ops;

struct gen_backend {
    const gen_backend_ops *ops;
    genesis_ctx *ctx;
    int threads;
    void *impl;               /* backend-private state */
    /* NULL, or a counter in backend memory (a gen_step_state's rng) that every random
     * operation adds to its offset when it runs (models set it around a training step; the
     * offsets they pass are then relative to the step's start) */
    const uint64_t *rng_base;
    /* GEN_PREC_* (precision.h): the operand precision of gemm, linear_forward and
     * linear_backward (FP32 accumulation always); models set it from their `precision`
     * setting. 0 = FP32. */
    int precision;
};

/* Whether the backend can record a step and replay it. */
static inline int gen_backend_graphs(const gen_backend *be) {
    return be->ops->graph_begin != NULL;
}

/* The CPU reference backend. `threads` = BLAS threads (0 = all cores). */
genesis_status gen_backend_cpu_create(genesis_ctx *ctx, int threads, gen_backend **out);
/* The CUDA backend on GPU `device` (cuda/backend_cuda.cu, loaded from libgenesis-cuda.so by
 * src/backend/cuda_module.c). A build without CUDA, or a machine without the driver or the module,
 * answers GENESIS_ERR_UNSUPPORTED with the reason. */
genesis_status gen_backend_cuda_create(genesis_ctx *ctx, int device, gen_backend **out);
/* GPU discovery through the module (cuda/device_query.cu); 0 GPUs with `why` otherwise. */
int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                           size_t why_cap);

/* The GRU cell of gru_forward / gru_backward: 2 = reset-after (above); 1 was TF1's GRUCell.
 * Part of the module ABI, so that a CUDA module built for the other cell is not loaded. */
#define GEN_GRU_CELL 2
/* The layout of gru_forward's save and gru_backward's work (above): 2 = r, z, W_hn h + b_hn,
 * n and G | Yp | dh; 1 was r, z, n, W_hn h + b_hn and dpre | dh | q. Part of the module
 * ABI: the core sizes the work buffer. */
#define GEN_GRU_SCRATCH 2
/* What the core and the CUDA module must agree on: the version, the shared structures and
 * the semantics that changed without changing a size (the GRU cell). */
/* The order of gen_backend_ops' members (2: grouped by family). Part of the module ABI: a
 * reordering keeps the table's size, so only this number tells the two layouts apart. */
#define GEN_BACKEND_OPS_LAYOUT 2
#define GEN_CUDA_MODULE_ABI                                                                   \
    ((unsigned long)GENESIS_VERSION_NUMBER * 1000003ul ^ (unsigned long)GEN_GRU_CELL * 65537ul ^ \
     (unsigned long)GEN_GRU_SCRATCH * 131071ul ^ (unsigned long)GEN_BACKEND_OPS_LAYOUT * 9973ul ^ \
     (unsigned long)sizeof(struct genesis_ctx) * 7919ul ^                                     \
     (unsigned long)sizeof(gen_backend_ops) * 104729ul ^ (unsigned long)sizeof(gen_backend) ^ \
     (unsigned long)sizeof(genesis_device_info) << 20)
/* The backend's failure, or GENESIS_OK (backends without a status op never fail). */
static inline genesis_status gen_backend_status(gen_backend *be) {
    return be->ops->status ? be->ops->status(be) : GENESIS_OK;
}
/* A non-finite loss, gradient or output: returns the backend's own failure when it has one
 * (its message, naming the operation and the CUDA error, stays in the context: a broken GPU
 * is not a diverged model), else records `fmt` as GENESIS_ERR_DIVERGED. */
genesis_status gen_diverged(gen_backend *be, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Uploads n fresh loss-scaling states to amp (backend memory): scale GEN_AMP_INIT_SCALE,
 * interval GEN_AMP_INTERVAL, nothing skipped; the test hook GENESIS_FP16_INJECT_INF=K (the
 * environment) makes the K-th backward pass of each state overflow (docs/precision.md). */
void gen_amp_reset(gen_backend *be, gen_amp *amp, int n);
/* Whether a network trained or run in `precision` stores the activations that allow it in 16
 * bits (docs/precision.md, "Memory"): BF16 and FP16, unless the test hook GENESIS_ACT16=0
 * (the environment) keeps them FP32, the reference the tests compare the 16-bit storage
 * with. */
int gen_act16(int precision);
/* A layer whose input (or ReLU output) is stored either FP32 (x) or in 16 bits (xh): the
 * one that is not NULL is used; rows are contiguous for the FP32 buffers of the element-wise
 * ReLU ops. One place for what both networks store either way. */
static inline void gen_linear_forward_x(gen_backend *be, float *out, int ldo, const float *x,
                                        const uint16_t *xh, int ldi, const float *W,
                                        const float *bias, int B, int C, int OC) {
    if (xh) be->ops->linear_forward_h(be, out, ldo, xh, ldi, W, bias, B, C, OC);
    else be->ops->linear_forward(be, out, ldo, x, ldi, W, bias, B, C, OC);
}
static inline void gen_linear_backward_x(gen_backend *be, float *dinp, int lddi, float *dW,
                                         float *dbias, const float *dout, int lddo,
                                         const float *x, const uint16_t *xh, int ldi,
                                         const float *W, int B, int C, int OC) {
    if (xh) be->ops->linear_backward_h(be, dinp, lddi, dW, dbias, dout, lddo, xh, ldi, W, B, C, OC);
    else be->ops->linear_backward(be, dinp, lddi, dW, dbias, dout, lddo, x, ldi, W, B, C, OC);
}
/* out = max(inp, 0) (rows x cols, inp contiguous) into out (contiguous) or outh (ld ldo) */
static inline void gen_relu_forward_x(gen_backend *be, float *out, uint16_t *outh, int ldo,
                                      const float *inp, int rows, int cols) {
    if (outh) be->ops->relu_forward_h(be, outh, ldo, inp, cols, rows, cols);
    else be->ops->relu_forward(be, out, inp, (size_t)rows * cols);
}
/* dinp += dout where the stored output (out contiguous, or outh with ld ldo) is positive */
static inline void gen_relu_backward_x(gen_backend *be, float *dinp, const float *dout,
                                       const float *out, const uint16_t *outh, int ldo,
                                       int rows, int cols) {
    if (outh) be->ops->relu_backward_h(be, dinp, dout, outh, ldo, rows, cols);
    else be->ops->relu_backward(be, dinp, dout, out, (size_t)rows * cols);
}
/* Reads n loss-scaling states back (a host wait): the steps skipped in all, and the first
 * state's scale in *scale (either may be NULL). */
void gen_amp_read(gen_backend *be, const gen_amp *amp, int n, int64_t *skipped, double *scale);
/* Picks the backend for the context's device choice (CUDA -> CPU fallback, logged). */
genesis_status gen_backend_create(genesis_ctx *ctx, gen_backend **out);
void gen_backend_free(gen_backend *be);

/* GRU scratch the backward pass needs (floats). */
static inline size_t gen_gru_work_floats(int B, int T, int H) {
    return (size_t)B * T * 5 * H + (size_t)B * H;
}
/* GRU parameter sizes (floats): W = W_ih | W_hh, b = b_ih | b_hh (layout above). */
static inline size_t gen_gru_weight_floats(int C, int H) { return (size_t)3 * H * ((size_t)C + H); }
static inline size_t gen_gru_bias_floats(int H) { return (size_t)6 * H; }

/* The CPU backend's rounding of n floats (cpu/dense.c) to GEN_PREC_* (vectorised; the same values as
 * gen_round_prec element by element, a NaN stays a NaN); dst and src do not overlap. */
void gen_cpu_round_row(float *dst, const float *src, int n, int prec);

/* Reference (plain loop) GEMM, used by tests to check the BLAS fast path. */

void gen_gemm_reference(int ta, int tb, int M, int N, int K, float alpha, const float *A,
                        int lda, const float *B, int ldb, float beta, float *C, int ldc);

#endif /* GEN_BACKEND_H */
