/*
 * tgloss.c — the CPU backend's `tgloss` family (backend.h): TimeGAN's scalar losses with their
 * gradients w.r.t. the networks' outputs (backend.h mse_loss, bce_logits, moments_loss): the
 * losses of the official TF1 code (Yoon et al., NeurIPS 2019; docs/algorithms.md §S4,
 * docs/timegan.md §4). They were host code in models/timegan.c; as backend operations the CUDA
 * backend keeps them on the GPU (cuda/tgloss.cu, the same expressions in the same order).
 * Plain serial loops in double (the sizes are B * T * max(F, H), small): the sums do not
 * depend on the thread count. Also take_rows, the batch gather of TimeGAN's sequences, and
 * adam_tf1_gated (TF1's Adam behind a gate on the device). CUDA: cuda/tgloss.cu; parity:
 * tests/parity/tgloss.c.
 */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"

void gen_cpu_mse_loss(gen_backend *be, double *loss, float *da, float *db, const float *a,
                      const float *b, int rows, int cols, int ld, float scale, int root) {
    (void)be;
    double n = (double)rows * cols, acc = 0;
    if (rows <= 0 || cols <= 0) {
        loss[0] = 0.0;
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * ld + c;
            double e = (double)a[i] - b[i];
            acc += e * e;
        }
    double m = acc / n;
    loss[0] = m;
    if (!da && !db) return;
    double k = root ? (double)scale * 0.5 / sqrt(fmax(m, 1e-20)) : (double)scale;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * ld + c;
            double e = (double)a[i] - b[i];
            float g = (float)(k * 2.0 * e / n);
            if (da) da[i] += g;
            if (db) db[i] -= g;
        }
}

void gen_cpu_bce_logits(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                        float y, float scale) {
    (void)be;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double x = l[i];
        s += fmax(x, 0.0) - x * y + log1p(exp(-fabs(x)));
        if (dl) dl[i] += (float)((double)scale * (1.0 / (1.0 + exp(-x)) - y) / (double)n);
    }
    loss[0] = n ? (double)scale * s / (double)n : 0.0;
}

static double sgn(double v) { return (v > 0) - (v < 0); }

void gen_cpu_moments_loss(gen_backend *be, double *loss, float *dxh, const float *xh,
                          const float *x, int B, int T, int F, float scale) {
    (void)be;
    double v1 = 0, v2 = 0, n = (double)T * F;
    for (int t = 0; t < T; t++)
        for (int f = 0; f < F; f++) {
            double mh = 0, m = 0, vh = 0, v = 0;
            for (int b = 0; b < B; b++) {
                size_t i = ((size_t)b * T + t) * F + f;
                mh += xh[i];
                m += x[i];
            }
            mh /= B;
            m /= B;
            for (int b = 0; b < B; b++) {
                size_t i = ((size_t)b * T + t) * F + f;
                vh += (xh[i] - mh) * (xh[i] - mh);
                v += (x[i] - m) * (x[i] - m);
            }
            vh /= B;
            v /= B;
            double sh = sqrt(vh + 1e-6), sr = sqrt(v + 1e-6);
            v1 += fabs(sh - sr);
            v2 += fabs(mh - m);
            if (dxh) {
                double ca = (double)scale / n * sgn(sh - sr) * 0.5 / sh,
                       cc = (double)scale / n * sgn(mh - m) / B;
                for (int b = 0; b < B; b++) {
                    size_t i = ((size_t)b * T + t) * F + f;
                    dxh[i] += (float)(ca * 2.0 * (xh[i] - mh) / B + cc);
                }
            }
        }
    loss[0] = n > 0 ? v1 / n : 0.0;
    loss[1] = n > 0 ? v2 / n : 0.0;
}

void gen_cpu_take_rows(gen_backend *be, float *out, const float *src, const int32_t *idx, int B,
                       int w) {
    (void)be;
    for (int b = 0; b < B; b++)
        memcpy(out + (size_t)b * w, src + (size_t)idx[b] * w, (size_t)w * sizeof(float));
}

/* TF1's Adam behind a device gate (backend.h adam_tf1_gated): the update adam makes at step
 * k with eps / sqrt(1 - beta2^k) */
void gen_cpu_adam_tf1_gated(gen_backend *be, float *param, const float *grad, float *m,
                            float *v, size_t n, float lr, float beta1, float beta2, float eps,
                            int64_t *t, const double *gate, int ngate, double threshold) {
    if (gate) {
        double s = 0;
        for (int i = 0; i < ngate; i++) s += gate[i];
        if (!(s > threshold)) return;
    }
    int64_t k = *t + 1;
    double bc2 = 1.0 - pow(beta2, (double)k);
    gen_cpu_adam(be, param, grad, m, v, n, lr, beta1, beta2, (float)(eps / sqrt(bc2)), 0.0f, k);
    *t = k;
}
