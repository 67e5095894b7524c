/*
 * ddpm_noise.cu — the CUDA backend's `ddpm_noise` family (backend.h): DDPM's forward process
 * for a training batch on the device (docs/ddpm.md §6), one thread per (row, span) with the
 * expressions and Philox draws of src/backend/ddpm_noise.h that the CPU backend calls too;
 * each thread derives its row's timestep from the row's own counter, and the span-0 thread
 * writes it and the loss's coefficients. CPU: src/backend/cpu/ddpm_noise.c; parity:
 * tests/parity/ddpm_noise.c.
 */
#include "cuda_common.cuh"
#include "ddpm_noise.h"

__global__ void k_ddpm_noise(float *x0, float *xt, float *noise, float *__restrict__ coef,
                             int32_t *__restrict__ t, const double *__restrict__ sched, int T,
                             int B, int D, const gen_act_span *__restrict__ spans, int nspans,
                             float xscale, uint64_t seed, uint64_t stream, uint64_t offset,
                             uint64_t row0, const uint64_t *base) {
    if (base) offset += *base; /* a bound step counter (gen_backend.rng_base) */
    int ns = nspans > 0 ? nspans : 1;
    for (size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x; w < (size_t)B * ns;
         w += (size_t)gridDim.x * blockDim.x) {
        int b = (int)(w / ns), s = (int)(w % ns);
        uint64_t r = row0 + (uint64_t)b;
        int tb = gen_ddpm_noise_t(seed, stream, offset, r, T);
        double ab = sched[T + tb];
        if (s == 0) {
            t[b] = tb;
            coef[2 * b] = (float)sched[tb];
            coef[2 * b + 1] = (float)(tb ? sched[T + tb - 1] : 1.0);
        }
        if (s >= nspans) continue;
        gen_act_span sp = spans[s];
        size_t o = (size_t)b * D + sp.start;
        gen_ddpm_noise_span(x0 + o, xt + o, noise + o, sp.len, sp.softmax, ab, xscale, seed,
                            stream, offset, r * (uint64_t)D + sp.start);
    }
}

static genesis_status gen_cu_ddpm_noise(gen_cuda *cu, float *x0, float *xt, float *noise,
                                        float *coef, int32_t *t, const double *sched, int T,
                                        int B, int D, const gen_act_span *spans, int nspans,
                                        float xscale, uint64_t seed, uint64_t stream,
                                        uint64_t offset, uint64_t row0, const uint64_t *base) {
    if (B <= 0) return GENESIS_OK;
    const gen_act_span *dspans = NULL;
    if (nspans > 0) GEN_CUDA_PASS(gen_cuda_spans(cu, spans, nspans, &dspans));
    size_t n = (size_t)B * (size_t)(nspans > 0 ? nspans : 1);
    GEN_LAUNCH(k_ddpm_noise, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
               cu->stream)(x0, xt, noise, coef, t, sched, T, B, D, dspans, nspans, xscale, seed,
                           stream, offset, row0, base);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- the table's entry (backend_cuda.cu assembles the table) ------------------------------- */

static void op_ddpm_noise(gen_backend *be, float *x0, float *xt, float *noise, float *coef,
                          int32_t *t, const double *sched, int T, int B, int D,
                          const gen_act_span *spans, int nspans, float xscale, uint64_t seed,
                          uint64_t stream, uint64_t offset, uint64_t row0) {
    GEN_CUDA_RUN(be, "ddpm_noise",
                 gen_cu_ddpm_noise(cu, x0, xt, noise, coef, t, sched, T, B, D, spans, nspans,
                                   xscale, seed, stream, offset, row0, be->rng_base));
}

void gen_cu_ops_ddpm_noise(gen_backend_ops *o) {
    o->ddpm_noise = op_ddpm_noise;
}
