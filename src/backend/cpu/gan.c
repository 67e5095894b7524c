/*
 * gan.c — the CPU backend's `gan` family (backend.h): the WGAN-GP pieces of CTGAN
 * (Gulrajani et al. 2017; docs/algorithms.md): interpolate_groups (real/fake mixing with one
 * alpha per pac group), interpolate_uniform (the alphas drawn first: fill_uniform, then
 * interpolate_groups), gp_penalty (per-row gradient norms, the penalty and its upstream
 * gradient) and colsum_acc (column sums added into a vector). CUDA: cuda/gan.cu; parity:
 * tests/parity/gan.c.
 */
#include "cpu_internal.h"

void gen_cpu_colsum_acc(gen_backend *be, float *dv, const float *a, int rows, int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) dv[c] += a[(size_t)r * cols + c];
}

/* ---- WGAN-GP -------------------------------------------------------------------------------- */
void gen_cpu_interpolate_groups(gen_backend *be, float *out, const float *real,
                                const float *fake, const float *alpha, int B, int w, int pac) {
    (void)be;
    GEN_OMP_FOR((size_t)B * w)
    for (int i = 0; i < B; i++) {
        float a = alpha[i / pac];
        for (int j = 0; j < w; j++) {
            size_t k = (size_t)i * w + j;
            out[k] = a * real[k] + (1.0f - a) * fake[k];
        }
    }
}
void gen_cpu_interpolate_uniform(gen_backend *be, float *out, float *alpha, const float *real,
                                 const float *fake, int B, int w, int pac, size_t ng,
                                 size_t first, uint64_t seed, uint64_t stream, uint64_t offset) {
    gen_cpu_fill_uniform(be, alpha, ng, seed, stream, offset);
    gen_cpu_interpolate_groups(be, out, real, fake, alpha + first, B, w, pac);
}
void gen_cpu_gp_penalty(gen_backend *be, float *pen, float *U, const float *G, int n,
                        int width, float lambda) {
    (void)be;
    double tot = 0;
    for (int g = 0; g < n; g++) {
        const float *row = G + (size_t)g * width;
        double ss = 0;
        for (int j = 0; j < width; j++) ss += (double)row[j] * row[j];
        double norm = sqrt(ss);
        tot += (norm - 1) * (norm - 1);
        double coef = norm > 0 ? 2.0 * lambda / n * (norm - 1) / norm : 0.0;
        for (int j = 0; j < width; j++) U[(size_t)g * width + j] = (float)(coef * row[j]);
    }
    pen[0] = (float)(lambda * tot / n);
}
