/*
 * optimiser.cu — the CUDA backend's `optimiser` family (backend.h): torch Adam with L2-coupled
 * weight decay as ONE kernel over a parameter arena (llm.c): each model keeps its parameters,
 * gradients and moments in one allocation per kind, so a whole network's update is a single
 * launch. The bias corrections are computed on the host in double exactly as cpu/optimiser.c does
 * and passed in as two floats; adam_dev_end (adam_dev whose last block clamps a
 * range and advances the step state: the end of a step in one kernel); adam_dev (a recorded step, docs/cuda.md "CUDA graphs") reads the
 * step count from device memory and computes the same two floats on the device, once per block,
 * with the same formulas. Also the loss scaling of FP16 training (backend.h gen_amp,
 * docs/precision.md): the scale and skip decision live in device memory, so a recorded step
 * replays them; adam_dev does nothing on a step whose gradients overflowed. CPU:
 * src/backend/cpu/optimiser.c; parity: tests/parity/optimiser.c.
 */
#include <math.h>

#include "cuda_common.cuh"

__device__ __forceinline__ void adam_update(float *__restrict__ param,
                                            const float *__restrict__ grad,
                                            float *__restrict__ m, float *__restrict__ v,
                                            size_t n, float beta1, float beta2, float eps,
                                            float weight_decay, float step, float isbc2,
                                            float keep = 1.0f) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float p = keep != 1.0f ? param[i] * keep : param[i]; /* adamw's decoupled decay */
        float g = grad[i] + weight_decay * p;
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        param[i] = p - step * mi / (sqrtf(vi) * isbc2 + eps);
    }
}

__global__ void k_adam(float *__restrict__ param, const float *__restrict__ grad,
                       float *__restrict__ m, float *__restrict__ v, size_t n, float beta1,
                       float beta2, float eps, float weight_decay, float step, float isbc2) {
    adam_update(param, grad, m, v, n, beta1, beta2, eps, weight_decay, step, isbc2);
}

/* adamw: param *= keep, then k_adam without weight decay */
__global__ void k_adamw(float *__restrict__ param, const float *__restrict__ grad,
                        float *__restrict__ m, float *__restrict__ v, size_t n, float beta1,
                        float beta2, float eps, float keep, float step, float isbc2) {
    adam_update(param, grad, m, v, n, beta1, beta2, eps, 0.0f, step, isbc2, keep);
}

/* Adam's bias corrections at step t = *t0 + dt, as gen_cu_adam computes them on the host:
 * sc[0] = lr / (1 - beta1^t), sc[1] = 1 / sqrt(1 - beta2^t) */
__device__ static void adam_corrections(float *sc, const int64_t *t0, int64_t dt, float lr,
                                        float beta1, float beta2) {
    double t = (double)(*t0 + dt);
    double bc1 = 1.0 - pow((double)beta1, t), bc2 = 1.0 - pow((double)beta2, t);
    sc[0] = (float)((double)lr / bc1);
    sc[1] = (float)(1.0 / sqrt(bc2));
}

/* t = *t0 + dt; thread 0 of each block computes the corrections (adam_corrections) and shares
 * them */
__global__ void k_adam_dev(float *__restrict__ param, const float *__restrict__ grad,
                           float *__restrict__ m, float *__restrict__ v, size_t n, float lr,
                           float beta1, float beta2, float eps, float weight_decay,
                           const int64_t *__restrict__ t0, int64_t dt,
                           const gen_amp *__restrict__ amp) {
    if (amp && amp->skip) return; /* the same value for every thread: a uniform exit */
    __shared__ float sc[2];
    if (threadIdx.x == 0) adam_corrections(sc, t0, dt, lr, beta1, beta2);
    __syncthreads();
    adam_update(param, grad, m, v, n, beta1, beta2, eps, weight_decay, sc[0], sc[1]);
}

genesis_status gen_cu_adam(gen_cuda *cu, float *param, const float *grad, float *m, float *v,
                           size_t n, float lr, float beta1, float beta2, float eps,
                           float weight_decay, int64_t t) {
    if (n == 0) return GENESIS_OK;
    double bc1 = 1.0 - pow(beta1, (double)t), bc2 = 1.0 - pow(beta2, (double)t);
    float step = (float)(lr / bc1);
    float isbc2 = (float)(1.0 / sqrt(bc2));
    GEN_LAUNCH(k_adam, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(param,
               grad, m, v, n, beta1, beta2, eps, weight_decay, step, isbc2);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static genesis_status cu_adamw(gen_cuda *cu, float *param, const float *grad, float *m, float *v,
                               size_t n, float lr, float beta1, float beta2, float eps, float keep,
                               int64_t t) {
    if (n == 0) return GENESIS_OK;
    double bc1 = 1.0 - pow(beta1, (double)t), bc2 = 1.0 - pow(beta2, (double)t);
    float step = (float)(lr / bc1);
    float isbc2 = (float)(1.0 / sqrt(bc2));
    GEN_LAUNCH(k_adamw, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        param, grad, m, v, n, beta1, beta2, eps, keep, step, isbc2);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

static void op_adamw(gen_backend *be, float *param, const float *grad, float *m, float *v,
                     size_t n, float lr, float beta1, float beta2, float eps, float keep,
                     int64_t t) {
    GEN_CUDA_RUN(be, "adamw", cu_adamw(cu, param, grad, m, v, n, lr, beta1, beta2, eps, keep, t));
}

genesis_status gen_cu_adam_dev(gen_cuda *cu, float *param, const float *grad, float *m,
                               float *v, size_t n, float lr, float beta1, float beta2,
                               float eps, float weight_decay, const int64_t *t0, int64_t dt,
                               const gen_amp *amp) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_adam_dev, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t0, dt, amp);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* adam_dev_end: k_adam_dev's update (every block, also when the loss scaler skips it: the
 * blocks must still be counted), then the grid's last block (gen_finish_last's counter
 * protocol: every block's thread 0 has read *t0 and its updates are fenced before it counts)
 * clamps clip[0..nclip) and adds d to the step state, as clamp and step_advance would after it
 * (docs/cuda.md, "Kernels per step") */
__global__ void k_adam_dev_end(float *__restrict__ param, const float *__restrict__ grad,
                               float *__restrict__ m, float *__restrict__ v, size_t n, float lr,
                               float beta1, float beta2, float eps, float weight_decay,
                               const int64_t *t0, int64_t dt, const gen_amp *__restrict__ amp,
                               float *clip, size_t nclip, float lo, float hi,
                               gen_step_state *st, gen_step_state d, unsigned *count) {
    __shared__ float sc[2];
    __shared__ int last;
    if (threadIdx.x == 0) adam_corrections(sc, t0, dt, lr, beta1, beta2);
    __syncthreads();
    if (!(amp && amp->skip)) /* the same value for every thread */
        adam_update(param, grad, m, v, n, beta1, beta2, eps, weight_decay, sc[0], sc[1]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    volatile float *x = clip; /* written by other blocks: read past any cache */
    for (size_t i = threadIdx.x; clip && i < nclip; i += blockDim.x) {
        float y = x[i];
        x[i] = y < lo ? lo : y > hi ? hi : y;
    }
    if (threadIdx.x == 0) {
        st->rng += d.rng;
        st->t[0] += d.t[0];
        st->t[1] += d.t[1];
        st->k += d.k;
        *count = 0;
    }
}

static genesis_status cu_adam_dev_end(gen_cuda *cu, float *param, const float *grad, float *m,
                                      float *v, size_t n, float lr, float beta1, float beta2,
                                      float eps, float weight_decay, const int64_t *t0,
                                      int64_t dt, const gen_amp *amp, float *clip, size_t nclip,
                                      float lo, float hi, gen_step_state *st, gen_step_state d) {
    unsigned grid = n > 0 ? gen_cuda_grid(n, GEN_CUDA_THREADS) : 1;
    GEN_LAUNCH(k_adam_dev_end, grid, GEN_CUDA_THREADS, 0, cu->stream)(
        param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t0, dt, amp, clip, nclip, lo,
        hi, st, d, cu->count);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

/* ---- loss scaling ---------------------------------------------------------------------------- */

#define GEN_AMP_LOOP(i, n)                                                  \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_amp_scale(float *__restrict__ x, size_t n, const gen_amp *__restrict__ amp) {
    float s = amp->scale;
    GEN_AMP_LOOP(i, n) x[i] *= s;
}

/* amp->found = 1 when some g[i] is NaN or infinite (every writer stores 1: a benign race,
 * as any_nonfinite); amp->found is 0 before (reset, and cleared by k_amp_decide) */
__global__ void k_amp_check(const float *__restrict__ g, size_t n, gen_amp *__restrict__ amp) {
    int found = 0;
    GEN_AMP_LOOP(i, n) found |= !isfinite(g[i]);
    if (__any_sync(0xffffffffu, found) && (threadIdx.x & 31) == 0) amp->found = 1;
}

/* one thread: the skip decision and the next scale (backend_cpu.c cpu_amp_unscale's rules);
 * inv = 1 / the scale the gradients carry, for k_amp_apply */
__global__ void k_amp_decide(gen_amp *amp) {
    amp->steps++;
    int bad = amp->found || (amp->inject_at > 0 && amp->steps == amp->inject_at);
    amp->found = 0;
    amp->skip = bad;
    amp->inv = 1.0f / amp->scale;
    if (bad) {
        float h = amp->scale * 0.5f;
        amp->scale = h < GEN_AMP_MIN_SCALE ? GEN_AMP_MIN_SCALE : h;
        amp->good = 0;
        amp->skipped++;
    } else if (++amp->good >= amp->interval) {
        amp->scale *= 2.0f;
        amp->good = 0;
    }
}

__global__ void k_amp_apply(float *__restrict__ g, size_t n, const gen_amp *__restrict__ amp) {
    int skip = amp->skip;
    float inv = amp->inv;
    GEN_AMP_LOOP(i, n) g[i] = skip ? 0.0f : g[i] * inv;
}

genesis_status gen_cu_amp_scale(gen_cuda *cu, float *x, size_t n, const gen_amp *amp) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_amp_scale, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        x, n, amp);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}

genesis_status gen_cu_amp_unscale(gen_cuda *cu, float *g, size_t n, gen_amp *amp) {
    if (n > 0) {
        GEN_LAUNCH(k_amp_check, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
                   cu->stream)(g, n, amp);
        GEN_CUDA_LAUNCHED(cu);
    }
    GEN_LAUNCH(k_amp_decide, 1, 1, 0, cu->stream)(amp);
    GEN_CUDA_LAUNCHED(cu);
    if (n > 0) {
        GEN_LAUNCH(k_amp_apply, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0,
                   cu->stream)(g, n, amp);
        GEN_CUDA_LAUNCHED(cu);
    }
    return GENESIS_OK;
}

/* ---- the table's entries (backend_cuda.cu assembles the table) ----------------------------- */

static void op_adam(gen_backend *be, float *param, const float *grad, float *m, float *v,
                    size_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                    int64_t t) {
    GEN_CUDA_RUN(be, "adam",
                 gen_cu_adam(cu, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t));
}

static void op_adam_dev(gen_backend *be, float *param, const float *grad, float *m, float *v,
                        size_t n, float lr, float beta1, float beta2, float eps,
                        float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp) {
    GEN_CUDA_RUN(be, "adam_dev",
                 gen_cu_adam_dev(cu, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay,
                                 t0, dt, amp));
}

static void op_adam_dev_end(gen_backend *be, float *param, const float *grad, float *m,
                            float *v, size_t n, float lr, float beta1, float beta2, float eps,
                            float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp,
                            float *clip, size_t nclip, float lo, float hi, gen_step_state *st,
                            gen_step_state d) {
    GEN_CUDA_RUN(be, "adam_dev_end",
                 cu_adam_dev_end(cu, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay,
                                 t0, dt, amp, clip, nclip, lo, hi, st, d));
}

static void op_amp_scale(gen_backend *be, float *x, size_t n, const gen_amp *amp) {
    GEN_CUDA_RUN(be, "amp_scale", gen_cu_amp_scale(cu, x, n, amp));
}

static void op_amp_unscale(gen_backend *be, float *g, size_t n, gen_amp *amp) {
    GEN_CUDA_RUN(be, "amp_unscale", gen_cu_amp_unscale(cu, g, n, amp));
}

void gen_cu_ops_optimiser(gen_backend_ops *o) {
    o->adam = op_adam;
    o->adam_dev_end = op_adam_dev_end;
    o->adam_dev = op_adam_dev;
    o->adamw = op_adamw;
    o->amp_scale = op_amp_scale;
    o->amp_unscale = op_amp_unscale;
}
