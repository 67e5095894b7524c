/*
 * dp.c — the plan of a differentially private fit (docs/privacy.md, "The budget"): from the
 * target (epsilon, delta), the table's size and the kind's training length, the noise of the
 * transformer's histograms and DP-SGD's noise multiplier, so that the two composed (RDP,
 * dp_accountant.h) reach epsilon at delta; then the transformer fitted on the released
 * histograms (dp_stats.c). Refusals name the reason: a kind without DP-SGD, settings that
 * would train outside the accountant's assumptions (data-parallel ranks, resumed checkpoints,
 * mixed precision), columns whose role would leak real values (dates, identifiers), a target the
 * accountant cannot certify.
 * Budget: the histograms get noise that alone would spend GEN_DP_STATS_SHARE of epsilon;
 * the categories' threshold spends GEN_DP_THRESHOLD_DELTA_SHARE of delta (its release of a
 * level one row holds, times e^epsilon); the RDP conversion gets the rest of delta, and
 * DP-SGD's sigma is the smallest that keeps the composition of both at epsilon.
 * The row count n is treated as public (it sets q = batch / n and the default delta = 1/n),
 * as in Abadi et al. 2016 and the libraries that follow it.
 */
#include <math.h>
#include <string.h>

#include "comm.h"
#include "dp.h"
#include "dp_accountant.h"
#include "model_types.h"
#include "quantile.h"
#include "table.h"

int gen_dp_requested(const genesis_model *m) { return m->param[GENESIS_P_EPSILON] > 0; }

/* The optimiser steps the kind's fit runs on n rows. */
static int64_t planned_steps(const genesis_model *m, int64_t n, int B) {
    if (m->vt->train_param == GENESIS_P_ITERATIONS) return (int64_t)m->param[GENESIS_P_ITERATIONS];
    return (int64_t)m->param[GENESIS_P_EPOCHS] * ((n + B - 1) / B);
}

static genesis_status refuse_settings(genesis_model *m, const genesis_table *t) {
    genesis_ctx *ctx = m->ctx;
    GEN_RETURN_IF(!m->vt->dp_sgd, ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: %s cannot train under differential privacy in this version; use "
                  "--method ctgan, tvae or ddpm",
                  m->vt->name);
    GEN_RETURN_IF(gen_comm_size(ctx->comm) > 1, ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: differentially private training runs on one rank (the accountant "
                  "counts one Poisson-sampled batch per step); drop the data-parallel ranks");
    GEN_RETURN_IF(m->resume, ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: differentially private fits cannot resume checkpoints in this "
                  "version; start the fit again without --resume");
    if (m->ckpt_path)
        gen_log(ctx, GENESIS_LOG_INFO,
                "differential privacy: this fit writes no checkpoint (not supported yet); a "
                "stopped fit starts again");
    GEN_RETURN_IF(gen_param_i(m, GENESIS_P_PRECISION) != GEN_PREC_FP32, ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: differentially private training needs --precision fp32 (the "
                  "per-example norms read FP32 activations)");
    GEN_RETURN_IF(gen_param_i(m, GENESIS_P_GRADIENT_CHECKPOINTING), ctx, GENESIS_ERR_UNSUPPORTED,
                  "--epsilon: differentially private training keeps every activation (the "
                  "per-example norms read them after the backward pass); drop "
                  "--gradient-checkpointing");
    for (int c = 0; c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        GEN_RETURN_IF(col->dt.pattern[0] || col->id.kind, ctx, GENESIS_ERR_UNSUPPORTED,
                      "--epsilon: column '%s' is read as a %s column, whose format and first "
                      "value the model file would keep; that would leak real values outside "
                      "the privacy budget — drop the column, or read it as categorical or "
                      "continuous with --discrete / --continuous",
                      col->name, col->dt.pattern[0] ? "date" : "identifier");
    }
    return GENESIS_OK;
}

/* z with P[N(0,1) >= z] <= e^logp, for a logp too small for exp() (e^-700 and below: an
 * epsilon of several hundred). The Mills-ratio bound P[N >= z] < phi(z) / z gives such a z
 * where log(phi(z) / z) = logp, solved by Newton's method (the function falls steadily in z
 * > 0, and the start sqrt(-2 logp) lies above the root). */
static double normal_tail_point(double logp) {
    double z = sqrt(-2.0 * logp);
    for (int i = 0; i < 60; i++) {
        double g = -0.5 * z * z - log(z) - 0.91893853320467274 - logp; /* log(2 pi) / 2 */
        double step = g / (-z - 1.0 / z);
        z -= step;
        if (fabs(step) < 1e-12 * z) break;
    }
    return z;
}

/* Fills m->dp: the noise of the histograms and of DP-SGD for the target. */
static genesis_status plan(genesis_model *m, const genesis_table *t) {
    genesis_ctx *ctx = m->ctx;
    int64_t n = t->nrows;
    int B = gen_param_i(m, GENESIS_P_BATCH_SIZE);
    double eps = m->param[GENESIS_P_EPSILON];
    double delta = m->param[GENESIS_P_DELTA] > 0 ? m->param[GENESIS_P_DELTA] : 1.0 / (double)n;
    double d_thr = GEN_DP_THRESHOLD_DELTA_SHARE * delta, d_rdp = delta - d_thr;
    gen_dp_info *dp = &m->dp;
    memset(dp, 0, sizeof *dp);
    dp->target = eps;
    dp->delta = delta;
    dp->clip = m->param[GENESIS_P_MAX_GRAD_NORM];
    dp->q = B >= n ? 1.0 : (double)B / (double)n;
    dp->steps = planned_steps(m, n, B);
    /* the histograms alone: GEN_DP_STATS_SHARE of epsilon */
    gen_dp_mech mech[2] = {{1.0, 1.0, 1}, {dp->q, 1.0, dp->steps}};
    dp->stats_epsilon = GEN_DP_STATS_SHARE * eps;
    dp->stats_sigma = gen_dp_sigma_for(mech, 1, 0, d_rdp, dp->stats_epsilon);
    GEN_RETURN_IF(dp->stats_sigma <= 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "--epsilon %g: too small for the accountant to certify at delta %g (its share "
                  "for the column statistics, %g, is below what any noise reaches over its "
                  "orders); ask for a larger epsilon",
                  eps, delta, dp->stats_epsilon);
    mech[0].sigma = dp->stats_sigma;
    dp->sigma = gen_dp_sigma_for(mech, 2, 1, d_rdp, eps);
    GEN_RETURN_IF(dp->sigma <= 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "--epsilon %g cannot be reached at delta %g with %lld steps at sampling rate "
                  "%.4g (batch %d of %lld rows): even noise multiplier 1e4 spends more; train "
                  "fewer epochs, use a smaller batch, or ask for a larger epsilon",
                  eps, delta, (long long)dp->steps, dp->q, B, (long long)n);
    mech[1].sigma = dp->sigma;
    dp->epsilon = gen_dp_epsilon(mech, 2, d_rdp, NULL);
    /* the categories' threshold: a level one row holds shows with probability at most
     * d_thr / (e^eps * categorical columns) per column */
    int ncat = 0;
    for (int c = 0; c < t->ncols; c++) ncat += t->cols[c].type == GENESIS_COLUMN_CATEGORICAL;
    double sd = dp->stats_sigma * sqrt((double)t->ncols);
    double logp = log(d_thr) - eps - log((double)(ncat > 0 ? ncat : 1));
    dp->threshold = 1.0 + sd * (logp > -700 ? -gen_norm_ppf(exp(logp)) : normal_tail_point(logp));
    dp->on = 1;
    if (m->seed == 0)
        gen_log(ctx, GENESIS_LOG_WARN,
                "differential privacy: the seed is the secret of the noise, and this fit uses "
                "the default seed 0, which anyone can repeat; for the guarantee to hold against "
                "someone who knows the data but not the noise, pass a random --seed and keep it "
                "private");
    gen_log(ctx, GENESIS_LOG_INFO,
            "differential privacy: epsilon %.4g at delta %.3g; DP-SGD noise multiplier %.4g, "
            "clip %.4g, sampling rate %.4g, %lld steps; column histograms noise sd %.4g, "
            "release threshold %.1f rows",
            dp->epsilon, delta, dp->sigma, dp->clip, dp->q, (long long)dp->steps, sd,
            dp->threshold);
    return GENESIS_OK;
}

genesis_status gen_dp_fit_transformer(genesis_model *m, const genesis_table *t,
                                      const gen_transform_opts *to, genesis_table **recoded) {
    *recoded = NULL;
    GEN_TRY(refuse_settings(m, t));
    GEN_TRY(plan(m, t));
    genesis_table *ps = NULL, *rc = NULL;
    double sd = m->dp.stats_sigma * sqrt((double)t->ncols);
    genesis_status st = gen_dp_release_tables(m->ctx, t, sd, m->dp.threshold, m->seed, &ps, &rc);
    if (st == GENESIS_OK) st = gen_transformer_fit(m->ctx, &m->tf, ps, to);
    if (st != GENESIS_OK) {
        gen_table_destroy(ps);
        gen_table_destroy(rc);
        memset(&m->dp, 0, sizeof m->dp);
        return st;
    }
    gen_table_destroy(m->dp_pseudo); /* kept for the kind's fit; model.c frees it after */
    m->dp_pseudo = ps;
    *recoded = rc;
    return GENESIS_OK;
}

static const char DP_MECHANISM[] =
    "DP-SGD (Poisson-sampled batches, per-example clipping, Gaussian noise; Abadi et al. 2016) "
    "and Gaussian noisy histograms for the transformer, composed with the RDP accountant of "
    "the sampled Gaussian mechanism (Mironov 2017; Mironov, Talwar, Zhang 2019), converted "
    "to (epsilon, delta) as Canonne, Kamath, Steinke 2020; add/remove-one-row neighbours";

const char *gen_dp_mechanism(const genesis_model *m) {
    return m->vt->dp_mechanism ? m->vt->dp_mechanism : DP_MECHANISM;
}

genesis_status genesis_model_privacy(const genesis_model *m, genesis_privacy *out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(!m->fitted, m->ctx, GENESIS_ERR_STATE, "the model is not fitted; fit or load one first");
    memset(out, 0, sizeof *out);
    const gen_dp_info *dp = &m->dp;
    if (!dp->on) return GENESIS_OK;
    out->dp = 1;
    out->epsilon = dp->epsilon;
    out->delta = dp->delta;
    out->target_epsilon = dp->target;
    out->noise_multiplier = dp->sigma;
    out->max_grad_norm = dp->clip;
    out->sampling_rate = dp->q;
    out->steps = dp->steps;
    out->stats_noise = dp->stats_sigma * sqrt((double)m->tf.ncols);
    out->stats_threshold = dp->threshold;
    out->stats_epsilon = dp->stats_epsilon;
    out->mechanism = gen_dp_mechanism(m);
    return GENESIS_OK;
}
