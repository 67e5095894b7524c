/*
 * privacy.c — the CPU backend's `privacy` family (backend.h): what DP-SGD adds to a training
 * step (Abadi et al., "Deep Learning with Differential Privacy", CCS 2016): the squared norm
 * of each example's gradient of a linear layer from its input row and output-gradient row
 * (||g_b^T x_b||_F^2 = ||x_b||^2 ||g_b||^2, plus ||g_b||^2 for the bias; Goodfellow 2015),
 * the clipping factors min(1, C / ||grad_b||), the scaling of rows by them, and the Gaussian
 * noise added to the summed clipped gradient. Rows are independent, so each is one loop
 * iteration summed in double in a fixed order (the result does not depend on the thread
 * count); the noise is fill_normal's Philox draw of each element (random.c).
 * CUDA: cuda/privacy.cu; parity: tests/parity/privacy.c; derivation: docs/privacy.md.
 */
#include <math.h>

#include "cpu_internal.h"

void gen_cpu_dp_sqnorm_acc(gen_backend *be, float *sq, const float *x, int ldx, int C,
                           const float *g, int ldg, int OC, int B) {
    GEN_OMP_FOR((size_t)B * (C + OC))
    for (int b = 0; b < B; b++) {
        const float *xr = x + (size_t)b * ldx, *gr = g + (size_t)b * ldg;
        double xx = 1.0, gg = 0.0;
        for (int i = 0; i < C; i++) xx += (double)xr[i] * xr[i];
        for (int j = 0; j < OC; j++) gg += (double)gr[j] * gr[j];
        sq[b] = (float)((double)sq[b] + xx * gg);
    }
}

void gen_cpu_dp_clip_factors(gen_backend *be, float *s, const float *sq, int B, float clip) {
    (void)be;
    for (int b = 0; b < B; b++) {
        double n = sqrt((double)sq[b]);
        s[b] = n > clip ? (float)(clip / n) : 1.0f;
    }
}

void gen_cpu_dp_scale_rows(gen_backend *be, float *x, int ld, const float *s, int B, int cols) {
    GEN_OMP_FOR((size_t)B * cols)
    for (int b = 0; b < B; b++) {
        float *xr = x + (size_t)b * ld, f = s[b];
        for (int j = 0; j < cols; j++) xr[j] *= f;
    }
}

void gen_cpu_dp_noise(gen_backend *be, float *g, size_t n, float sd, float scale, uint64_t seed,
                      uint64_t stream, uint64_t offset) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i += 4) { /* fill_normal's draw: one block, two Box-Muller pairs */
        gen_u32x4 r = gen_philox(seed, offset + i / 4, stream);
        float z[4];
        for (int p = 0; p < 2; p++) {
            float u1 = gen_u32_to_unit_open0(r.v[2 * p]), u2 = gen_u32_to_unit(r.v[2 * p + 1]);
            float rad = sqrtf(-2.0f * logf(u1)), th = 6.28318530717958647692f * u2;
            z[2 * p] = rad * cosf(th);
            z[2 * p + 1] = rad * sinf(th);
        }
        for (size_t k = 0; k < 4 && i + k < n; k++) g[i + k] = (g[i + k] + sd * z[k]) * scale;
    }
}
