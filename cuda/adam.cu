/*
 * adam.cu — torch Adam with L2-coupled weight decay as ONE kernel over a parameter arena
 * (llm.c): each model keeps its parameters, gradients and moments in one allocation per
 * kind, so a whole network's update is a single launch. The bias corrections are computed
 * on the host in double exactly as backend_cpu.c does and passed in as two floats; adam_dev
 * (a recorded step, docs/cuda.md "CUDA graphs") reads the step count from device memory
 * and computes the same two floats on the device, once per block, with the same formulas.
 */
#include <math.h>

#include "cuda_common.cuh"

__device__ __forceinline__ void adam_update(float *__restrict__ param,
                                            const float *__restrict__ grad,
                                            float *__restrict__ m, float *__restrict__ v,
                                            size_t n, float beta1, float beta2, float eps,
                                            float weight_decay, float step, float isbc2) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float p = param[i];
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

/* t = *t0 + dt; thread 0 of each block computes the corrections (as gen_cu_adam does on the
 * host) and shares them */
__global__ void k_adam_dev(float *__restrict__ param, const float *__restrict__ grad,
                           float *__restrict__ m, float *__restrict__ v, size_t n, float lr,
                           float beta1, float beta2, float eps, float weight_decay,
                           const int64_t *__restrict__ t0, int64_t dt) {
    __shared__ float sc[2];
    if (threadIdx.x == 0) {
        double t = (double)(*t0 + dt);
        double bc1 = 1.0 - pow((double)beta1, t), bc2 = 1.0 - pow((double)beta2, t);
        sc[0] = (float)((double)lr / bc1);
        sc[1] = (float)(1.0 / sqrt(bc2));
    }
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

genesis_status gen_cu_adam_dev(gen_cuda *cu, float *param, const float *grad, float *m,
                               float *v, size_t n, float lr, float beta1, float beta2,
                               float eps, float weight_decay, const int64_t *t0, int64_t dt) {
    if (n == 0) return GENESIS_OK;
    GEN_LAUNCH(k_adam_dev, gen_cuda_grid(n, GEN_CUDA_THREADS), GEN_CUDA_THREADS, 0, cu->stream)(
        param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t0, dt);
    GEN_CUDA_LAUNCHED(cu);
    return GENESIS_OK;
}
