/*
 * elementwise.c — the CPU backend's `elementwise` family (backend.h): ReLU (also with its
 * output stored in 16 bits, docs/precision.md), leaky ReLU, products (mul, mul_acc, the slope
 * mask of the gradient penalty, mul_rowvec), the full sum, clamp and any_nonfinite. Plain
 * loops (the hot ones as range kernels compiled for AVX2 and the baseline, cpu_internal.h);
 * every element is computed on its own, so results do not depend on the thread count.
 * Derivations: docs/layers.md. CUDA: cuda/elementwise.cu; parity: tests/parity/elementwise.c.
 */
#include "cpu_internal.h"

/* ---- element-wise -------------------------------------------------------------------- */
static GEN_KERNEL void relu_fwd_range(float *restrict out, const float *restrict inp, size_t lo,
                                      size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}
static GEN_KERNEL void relu_bwd_range(float *restrict dinp, const float *restrict dout,
                                      const float *restrict out, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += out[i] > 0.0f ? dout[i] : 0.0f;
}
static GEN_KERNEL void lrelu_fwd_range(float *restrict out, const float *restrict inp, float slope,
                                       size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = inp[i] > 0.0f ? inp[i] : slope * inp[i];
}
static GEN_KERNEL void lrelu_bwd_range(float *restrict dinp, const float *restrict dout,
                                       const float *restrict inp, float slope, size_t lo,
                                       size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += inp[i] > 0.0f ? dout[i] : slope * dout[i];
}
static GEN_KERNEL void mul_range(float *restrict out, const float *restrict a,
                                 const float *restrict b, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) out[i] = a[i] * b[i];
}
static GEN_KERNEL void mul_acc_range(float *restrict dinp, const float *restrict dout,
                                     const float *restrict mask, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) dinp[i] += dout[i] * mask[i];
}
static GEN_KERNEL void slope_mask_range(float *restrict s, const float *restrict inp,
                                        const float *restrict mask, float slope, size_t lo,
                                        size_t hi) {
    for (size_t i = lo; i < hi; i++) s[i] = mask[i] * (inp[i] > 0.0f ? 1.0f : slope);
}

void gen_cpu_relu_forward(gen_backend *be, float *out, const float *inp, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, relu_fwd_range(out, inp, lo, hi));
}
void gen_cpu_relu_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                           size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, relu_bwd_range(dinp, dout, out, lo, hi));
}
void gen_cpu_leaky_relu_forward(gen_backend *be, float *out, const float *inp, size_t n,
                                float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, lrelu_fwd_range(out, inp, slope, lo, hi));
}
void gen_cpu_leaky_relu_backward(gen_backend *be, float *dinp, const float *dout,
                                 const float *inp, size_t n, float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, lrelu_bwd_range(dinp, dout, inp, slope, lo, hi));
}

void gen_cpu_mul(gen_backend *be, float *out, const float *a, const float *b, size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, mul_range(out, a, b, lo, hi));
}
void gen_cpu_mul_acc(gen_backend *be, float *dinp, const float *dout, const float *mask,
                     size_t n) {
    (void)be;
    GEN_PARALLEL_RANGE(n, mul_acc_range(dinp, dout, mask, lo, hi));
}
void gen_cpu_act_backward_bias(gen_backend *be, float *dinp, float *dbias, const float *dout,
                               const float *x, int rows, int cols, int act) {
    size_t n = (size_t)rows * cols;
    if (act == GEN_ACT_RELU) gen_cpu_relu_backward(be, dinp, dout, x, n);
    else if (act == GEN_ACT_SILU) gen_cpu_silu_backward(be, dinp, dout, x, n);
    else gen_cpu_mul_acc(be, dinp, dout, x, n);
    if (!dbias) return;
    for (int b = 0; b < rows; b++) { /* linear_backward's order (cpu/dense.c) */
        const float *d = dinp + (size_t)b * cols;
        for (int o = 0; o < cols; o++) dbias[o] += d[o];
    }
}
void gen_cpu_leaky_slope_mask(gen_backend *be, float *s, const float *inp, const float *mask,
                              size_t n, float slope) {
    (void)be;
    GEN_PARALLEL_RANGE(n, slope_mask_range(s, inp, mask, slope, lo, hi));
}
void gen_cpu_mul_rowvec(gen_backend *be, float *out, const float *s, const float *v, int rows,
                        int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = s[(size_t)r * cols + c] * v[c];
}
void gen_cpu_sum(gen_backend *be, float *out, const float *x, size_t n) {
    (void)be;
    double acc = 0;
    for (size_t i = 0; i < n; i++) acc += x[i];
    out[0] = (float)acc;
}
void gen_cpu_ledger_add(gen_backend *be, float *rec, float *tmp, float *acc, const float *sums,
                        int k, const float *g, size_t n) {
    memcpy(rec, sums, (size_t)k * sizeof(float));
    gen_cpu_sum(be, rec + k, g, n);
    gen_cpu_sum(be, tmp, rec, (size_t)k + 1);
    gen_cpu_accumulate(be, acc, tmp, 1);
}

void gen_cpu_clamp(gen_backend *be, float *x, size_t n, float lo, float hi) {
    (void)be;
    for (size_t i = 0; i < n; i++) x[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
}

int gen_cpu_any_nonfinite(gen_backend *be, const float *x, size_t n) {
    (void)be;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 1;
    return 0;
}

/* ---- the ReLU of the 16-bit stored activations (docs/precision.md, "Memory") ---- */
void gen_cpu_relu_forward_h(gen_backend *be, uint16_t *out, int ldo, const float *inp, int ldi,
                            int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        uint16_t *o = out + (size_t)i * ldo;
        const float *x = inp + (size_t)i * ldi;
        for (int j = 0; j < cols; j++) o[j] = gen_half_bits(x[j] > 0.0f ? x[j] : 0.0f, prec);
    }
}
void gen_cpu_relu_backward_h(gen_backend *be, float *dinp, const float *dout,
                             const uint16_t *out, int ldo, int rows, int cols) {
    int prec = be->precision;
    GEN_OMP_FOR((size_t)rows * cols)
    for (int i = 0; i < rows; i++) {
        const uint16_t *o = out + (size_t)i * ldo;
        float *di = dinp + (size_t)i * cols;
        const float *d = dout + (size_t)i * cols;
        for (int j = 0; j < cols; j++) di[j] += gen_half_f32(o[j], prec) > 0.0f ? d[j] : 0.0f;
    }
}
