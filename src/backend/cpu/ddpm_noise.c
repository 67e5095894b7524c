/*
 * ddpm_noise.c — the CPU backend's `ddpm_noise` family (backend.h): DDPM's forward process
 * for a training batch (docs/ddpm.md §6), rows in parallel with the expressions and Philox
 * draws of src/backend/ddpm_noise.h. Every draw is a pure function of its row's number and
 * position, so the bytes do not depend on the thread count. CUDA: cuda/ddpm_noise.cu;
 * parity: tests/parity/ddpm_noise.c.
 */
#include "cpu_internal.h"
#include "ddpm_noise.h"

void gen_cpu_ddpm_noise(gen_backend *be, float *x0, float *xt, float *noise, float *coef,
                        int32_t *t, const double *sched, int T, int B, int D,
                        const gen_act_span *spans, int nspans, float xscale, uint64_t seed,
                        uint64_t stream, uint64_t offset, uint64_t row0) {
    offset += cpu_rng_base(be);
    GEN_OMP_FOR((size_t)B * D)
    for (int b = 0; b < B; b++) {
        uint64_t r = row0 + (uint64_t)b;
        int tb = gen_ddpm_noise_t(seed, stream, offset, r, T);
        double ab = sched[T + tb];
        t[b] = tb;
        coef[2 * b] = (float)sched[tb];
        coef[2 * b + 1] = (float)(tb ? sched[T + tb - 1] : 1.0);
        size_t o0 = (size_t)b * D;
        for (int s = 0; s < nspans; s++) {
            size_t o = o0 + spans[s].start;
            gen_ddpm_noise_span(x0 + o, xt + o, noise + o, spans[s].len, spans[s].softmax, ab,
                                xscale, seed, stream, offset, r * (uint64_t)D + spans[s].start);
        }
    }
}
