/*
 * dp_sgd.c — the model-independent pieces of a DP-SGD step (Abadi et al., "Deep Learning with
 * Differential Privacy", CCS 2016; docs/privacy.md, "DP-SGD"), shared by the models' DP
 * paths (models/tvae_dp.c, models/ddpm_model.c, models/ctgan_dp.c):
 *   - Poisson sampling of a step's rows: each row joins with probability q, one host draw per
 *     row in row order (the accountant's assumption);
 *   - per-example clipping of a stack of linear layers whose per-row functions between them
 *     act on one row each: row b's squared gradient norm is sum_l (||x_b||^2 + 1) ||g_b||^2
 *     (Goodfellow 2015), the factor s_b = min(1, C / norm_b) scales every layer's output
 *     gradient row, and the weight gradients are recomputed from the scaled rows,
 *     sum_b s_b g_b^T x_b = (diag(s) g)^T x (one product per layer, added to the gradients);
 *   - the step's noise: N(0, sigma^2 C^2) per coordinate on the summed clipped gradient, then
 *     division by the expected batch q n (Philox stream GEN_STREAM_DP, fresh blocks per step);
 *   - the progress report and stop request of a fit that writes no checkpoint.
 * What the layers are (their inputs, output gradients and gradient slices) is the model's.
 */
#include "dp.h"
#include "model_types.h"

int64_t gen_dp_poisson_rows(gen_rng *pick, double q, int64_t n, int32_t *rows) {
    int64_t nb = 0;
    for (int64_t i = 0; i < n; i++)
        if (gen_rng_uniform(pick) < q) rows[nb++] = (int32_t)i;
    return nb;
}

void gen_dp_clip_linear(gen_backend *be, const gen_dp_linear *L, int nl, int B, float *sq,
                        float *s, float clip) {
    const gen_backend_ops *o = be->ops;
    o->zero(be, sq, (size_t)B);
    for (int i = 0; i < nl; i++)
        o->dp_sqnorm_acc(be, sq, L[i].x, L[i].ldx, L[i].C, L[i].g, L[i].ldg, L[i].OC, B);
    o->dp_clip_factors(be, s, sq, B, clip);
    for (int i = 0; i < nl; i++) o->dp_scale_rows(be, L[i].g, L[i].ldg, s, B, L[i].OC);
    for (int i = 0; i < nl; i++)
        o->linear_backward(be, NULL, 0, L[i].dW, L[i].db, L[i].g, L[i].ldg, L[i].x, L[i].ldx,
                           L[i].W, B, L[i].C, L[i].OC);
}

void gen_dp_noise_sum(gen_backend *be, const gen_dp_info *dp, int64_t nrows, float *g, size_t n,
                      uint64_t seed, uint64_t *at) {
    float sd = (float)(dp->sigma * dp->clip), inv = (float)(1.0 / (dp->q * (double)nrows));
    be->ops->dp_noise(be, g, n, sd, inv, seed, GEN_STREAM_DP, *at);
    *at += (n + 3) / 4 + 1;
}

genesis_status gen_dp_report(genesis_model *m, genesis_progress_fn progress, void *user, int unit,
                             int units, int64_t step, int64_t nrows, double loss, double elapsed,
                             const char *what, int64_t at, int64_t total) {
    const gen_dp_info *dp = &m->dp;
    int stop = 0;
    if (progress) {
        double rest = elapsed / (double)step * (double)(dp->steps - step);
        genesis_progress p = {unit, units, step, dp->steps, loss, 0.0, elapsed, rest,
                              (double)step * dp->q * (double)nrows / (elapsed > 0 ? elapsed : 1e-9)};
        stop = progress(&p, user);
    }
    if (stop || gen_ctx_interrupted(m->ctx))
        return gen_set_error(m->ctx, GENESIS_ERR_CANCELLED,
                             "training stopped by the caller at %s %lld of %lld (a differentially "
                             "private fit writes no checkpoint)",
                             what, (long long)at, (long long)total);
    return GENESIS_OK;
}
