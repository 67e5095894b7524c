/*
 * output.c — the CPU backend's `output` family (backend.h): the generator's output
 * activations (activate_forward: tanh spans and (Gumbel-)softmax spans with Philox noise,
 * CTGAN's _apply_activate; activate_backward) and cross_entropy_rows (CTGAN's conditional
 * loss of the selected span per row). Formulas: docs/algorithms.md; derivations:
 * docs/layers.md. CUDA: cuda/output.cu; parity: tests/parity/output.c.
 */
#include "cpu_internal.h"

static int spans_width(const gen_act_span *spans, int nspans) {
    return nspans ? spans[nspans - 1].start + spans[nspans - 1].len : 0;
}

void gen_cpu_activate_forward(gen_backend *be, float *out, int ldo, const float *x, int ldx,
                              int B, const gen_act_span *spans, int nspans, float tau,
                              uint64_t seed, uint64_t stream, uint64_t offset, uint64_t row0) {
    offset += cpu_rng_base(be);
    int W = spans_width(spans, nspans);
    GEN_OMP_FOR((size_t)B * W)
    for (int b = 0; b < B; b++) {
        const float *xr = x + (size_t)b * ldx;
        float *yr = out + (size_t)b * ldo;
        if (tau > 0.0f) {
            /* Gumbel noise g = -log(-log(u)) for element (b, j) = stream index b*W + j */
            uint64_t i0 = (row0 + (uint64_t)b) * (uint64_t)W;
            for (int j = 0; j < W;) {
                uint64_t idx = i0 + (uint64_t)j;
                gen_u32x4 r = gen_philox(seed, offset + (idx >> 2), stream);
                for (int k = (int)(idx & 3); k < 4 && j < W; k++, j++)
                    yr[j] = -logf(-logf(gen_u32_to_unit_open(r.v[k])));
            }
        }
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            int j0 = sp->start, j1 = sp->start + sp->len;
            if (!sp->softmax) {
                for (int j = j0; j < j1; j++) yr[j] = tanhf(xr[j]);
                continue;
            }
            float mx = -INFINITY;
            if (tau > 0.0f) {
                float it = 1.0f / tau;
                for (int j = j0; j < j1; j++) yr[j] = (xr[j] + yr[j]) * it;
            } else {
                for (int j = j0; j < j1; j++) yr[j] = xr[j];
            }
            for (int j = j0; j < j1; j++) mx = yr[j] > mx ? yr[j] : mx;
            float tot = 0.0f;
            for (int j = j0; j < j1; j++) {
                yr[j] = expf(yr[j] - mx);
                tot += yr[j];
            }
            float inv = 1.0f / tot;
            for (int j = j0; j < j1; j++) yr[j] *= inv;
        }
    }
}

void gen_cpu_activate_backward(gen_backend *be, float *dx, int lddx, const float *dout,
                               int lddo, const float *out, int ldo, int B,
                               const gen_act_span *spans, int nspans, float tau) {
    (void)be;
    float itau = tau > 0.0f ? 1.0f / tau : 1.0f;
    GEN_OMP_FOR((size_t)B * 64)
    for (int b = 0; b < B; b++) {
        float *dxr = dx + (size_t)b * lddx;
        const float *dyr = dout + (size_t)b * lddo;
        const float *yr = out + (size_t)b * ldo;
        for (int s = 0; s < nspans; s++) {
            const gen_act_span *sp = &spans[s];
            if (!sp->softmax) {
                for (int j = sp->start; j < sp->start + sp->len; j++)
                    dxr[j] += dyr[j] * (1.0f - yr[j] * yr[j]);
                continue;
            }
            /* the dot product in double: one rounding, so any summation order (the GPU's
             * warp tree) agrees to a unit of float roundoff on the widest spans */
            double acc = 0.0;
            for (int j = sp->start; j < sp->start + sp->len; j++) acc += (double)yr[j] * dyr[j];
            float dot = (float)acc;
            for (int j = sp->start; j < sp->start + sp->len; j++)
                dxr[j] += itau * yr[j] * (dyr[j] - dot);
        }
    }
}

void gen_cpu_cross_entropy_rows(gen_backend *be, float *loss, float *dlogits, int ldd,
                                const float *logits, int ldl, int B, const int32_t *start,
                                const int32_t *len, const int32_t *target, float scale) {
    (void)be;
    double tot = 0;
    for (int b = 0; b < B; b++) {
        if (len[b] <= 0) continue;
        const float *l = logits + (size_t)b * ldl + start[b];
        float mx = -INFINITY;
        for (int j = 0; j < len[b]; j++) mx = l[j] > mx ? l[j] : mx;
        double z = 0;
        for (int j = 0; j < len[b]; j++) z += exp((double)l[j] - mx);
        double lse = mx + log(z);
        tot += lse - l[target[b] - start[b]];
        if (dlogits) {
            float *d = dlogits + (size_t)b * ldd + start[b];
            for (int j = 0; j < len[b]; j++) {
                double p = exp((double)l[j] - lse);
                d[j] += scale * (float)(p - (j == target[b] - start[b] ? 1.0 : 0.0));
            }
        }
    }
    if (loss) loss[0] = (float)(scale * tot);
}
