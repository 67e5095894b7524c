/*
 * norm.c — the CPU backend's `norm` family (backend.h): batch norm over B rows of C features
 * (torch.nn.BatchNorm1d in training mode: biased batch variance, running statistics with
 * the unbiased one; statistics and the backward pass's column sums in double), and the same
 * split into per-rank partial sums for batch norm synchronised across data-parallel ranks
 * (docs/distributed.md). Derivation of the backward pass: docs/layers.md. CUDA:
 * cuda/norm.cu; parity: tests/parity/norm.c.
 */
#include "cpu_internal.h"

/* batchnorm_forward into out (ld ldo), max(., 0) of it with relu (relu_forward's value) */
static void bn_forward(float *out, int ldo, int relu, float *mean, float *rstd, const float *inp,
                       const float *gamma, const float *beta, int B, int C, float eps) {
    double *acc = calloc((size_t)2 * C, sizeof *acc);
    GEN_ASSERT(acc != NULL);
    double *acc2 = acc + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) acc[c] += inp[(size_t)b * C + c];
    for (int c = 0; c < C; c++) acc[c] /= B;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            double d = inp[(size_t)b * C + c] - acc[c];
            acc2[c] += d * d;
        }
    for (int c = 0; c < C; c++) {
        mean[c] = (float)acc[c];
        rstd[c] = (float)(1.0 / sqrt(acc2[c] / B + eps));
    }
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float v = (inp[i] - mean[c]) * rstd[c] * gamma[c] + beta[c];
            out[(size_t)b * ldo + c] = relu ? (v > 0.0f ? v : 0.0f) : v;
        }
    free(acc);
}
void gen_cpu_batchnorm_forward(gen_backend *be, float *out, float *mean, float *rstd,
                               const float *inp, const float *gamma, const float *beta, int B,
                               int C, float eps) {
    (void)be;
    bn_forward(out, C, 0, mean, rstd, inp, gamma, beta, B, C, eps);
}
void gen_cpu_relu_bn_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                              float *dbias, float *dh, float *dbn, const float *dout, int lddo,
                              const float *out, int ldo, const float *inp, const float *mean,
                              const float *rstd, const float *gamma, int B, int C) {
    if (dh && dbn && ldo == C) { /* the replaced operations, in the caller's buffers */
        gen_cpu_copy2d(be, dh, C, dout, lddo, B, C);
        gen_cpu_zero(be, dbn, (size_t)B * C);
        gen_cpu_relu_backward(be, dbn, dh, out, (size_t)B * C);
        gen_cpu_batchnorm_backward(be, dinp, dgamma, dbeta, dbn, inp, mean, rstd, gamma, B, C);
    } else {
        float *t = calloc((size_t)B * C + 1, sizeof *t);
        GEN_ASSERT(t != NULL);
        for (int b = 0; b < B; b++) /* relu_backward into zeros: 0 + (...), -0 becomes +0 */
            for (int c = 0; c < C; c++)
                t[(size_t)b * C + c] =
                    0.0f + (out[(size_t)b * ldo + c] > 0.0f ? dout[(size_t)b * lddo + c] : 0.0f);
        gen_cpu_batchnorm_backward(be, dinp, dgamma, dbeta, t, inp, mean, rstd, gamma, B, C);
        free(t);
    }
    if (!dbias) return;
    for (int b = 0; b < B; b++) { /* linear_backward's order (cpu/dense.c) */
        const float *d = dinp + (size_t)b * C;
        for (int c = 0; c < C; c++) dbias[c] += d[c];
    }
}
/* The four operations in a row: with bn, batchnorm_forward into it and relu_forward from it
 * (as before); without, the normalised values go straight through the ReLU into out */
void gen_cpu_linear_bn_relu_forward(gen_backend *be, float *out, int ldo, float *pre, float *bn,
                                    float *mean, float *rstd, float *rmean, float *rvar,
                                    const float *inp, int ldi, const float *W, const float *bias,
                                    const float *gamma, const float *beta, int B, int C, int OC,
                                    float eps, float momentum) {
    gen_cpu_linear_forward(be, pre, OC, inp, ldi, W, bias, B, C, OC);
    if (bn && ldo == OC) {
        bn_forward(bn, OC, 0, mean, rstd, pre, gamma, beta, B, OC, eps);
        gen_cpu_relu_forward(be, out, bn, (size_t)B * OC);
    } else {
        bn_forward(out, ldo, 1, mean, rstd, pre, gamma, beta, B, OC, eps);
    }
    gen_cpu_batchnorm_update_running(be, rmean, rvar, mean, rstd, B, OC, momentum, eps);
}
void gen_cpu_batchnorm_forward_eval(gen_backend *be, float *out, const float *inp,
                                    const float *rmean, const float *rvar, const float *gamma,
                                    const float *beta, int B, int C, float eps) {
    (void)be;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - rmean[c]) / sqrtf(rvar[c] + eps) * gamma[c] + beta[c];
        }
}
void gen_cpu_batchnorm_update_running(gen_backend *be, float *rmean, float *rvar,
                                      const float *mean, const float *rstd, int B, int C,
                                      float momentum, float eps) {
    (void)be;
    for (int c = 0; c < C; c++) {
        double var = 1.0 / ((double)rstd[c] * rstd[c]) - eps;
        double unbiased = B > 1 ? var * B / (B - 1) : var;
        rmean[c] = (1 - momentum) * rmean[c] + momentum * mean[c];
        rvar[c] = (float)((1 - momentum) * rvar[c] + momentum * unbiased);
    }
}
/* sd[c] = sum_b dxhat, sd[C + c] = sum_b dxhat * xhat (double); dgamma, dbeta += their sums */
static void bn_backward_sums(double *sd, float *dgamma, float *dbeta, const float *dout,
                             const float *inp, const float *mean, const float *rstd,
                             const float *gamma, int B, int C) {
    double *sdx = sd + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            sd[c] += dxhat;
            sdx[c] += (double)dxhat * xhat;
            dgamma[c] += dout[i] * xhat;
            dbeta[c] += dout[i];
        }
}
void gen_cpu_batchnorm_backward(gen_backend *be, float *dinp, float *dgamma, float *dbeta,
                                const float *dout, const float *inp, const float *mean,
                                const float *rstd, const float *gamma, int B, int C) {
    (void)be;
    double *sd = calloc((size_t)2 * C, sizeof *sd); /* sum dxhat, sum dxhat*xhat */
    GEN_ASSERT(sd != NULL);
    bn_backward_sums(sd, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, C);
    const double *sdx = sd + C;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            dinp[i] += rstd[c] * (float)(dxhat - sd[c] / B - xhat * sdx[c] / B);
        }
    free(sd);
}

/* ---- batch norm synchronised across ranks (double sums, like the single-rank version) ---- */
void gen_cpu_batchnorm_stats(gen_backend *be, float *part, const float *inp, const float *mean,
                             int B, int C, int N) {
    (void)be;
    double *acc = calloc((size_t)C, sizeof *acc);
    GEN_ASSERT(acc != NULL);
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            double v = inp[(size_t)b * C + c];
            if (mean) v = (v - mean[c]) * (v - mean[c]);
            acc[c] += v;
        }
    for (int c = 0; c < C; c++) part[c] = (float)(acc[c] / N);
    free(acc);
}
void gen_cpu_batchnorm_apply(gen_backend *be, float *out, float *rstd, const float *inp,
                             const float *mean, const float *gamma, const float *beta, int B,
                             int C, float eps) {
    (void)be;
    for (int c = 0; c < C; c++) rstd[c] = (float)(1.0 / sqrt((double)rstd[c] + eps));
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            out[i] = (inp[i] - mean[c]) * rstd[c] * gamma[c] + beta[c];
        }
}
void gen_cpu_batchnorm_backward_sums(gen_backend *be, float *sums, float *dgamma, float *dbeta,
                                     const float *dout, const float *inp, const float *mean,
                                     const float *rstd, const float *gamma, int B, int C) {
    (void)be;
    double *sd = calloc((size_t)2 * C, sizeof *sd);
    GEN_ASSERT(sd != NULL);
    bn_backward_sums(sd, dgamma, dbeta, dout, inp, mean, rstd, gamma, B, C);
    for (int c = 0; c < 2 * C; c++) sums[c] = (float)sd[c];
    free(sd);
}
void gen_cpu_batchnorm_backward_apply(gen_backend *be, float *dinp, const float *dout,
                                      const float *inp, const float *mean, const float *rstd,
                                      const float *gamma, const float *sums, int B, int C,
                                      int N) {
    (void)be;
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)b * C + c;
            float xhat = (inp[i] - mean[c]) * rstd[c];
            float dxhat = dout[i] * gamma[c];
            dinp[i] += rstd[c] * (float)(dxhat - (double)sums[c] / N - xhat * (double)sums[C + c] / N);
        }
}
