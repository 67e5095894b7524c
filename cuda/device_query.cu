/*
 * device_query.cu — GPU discovery for genesis_detect_devices() and the backend choice.
 * Without a device the first runtime call returns cudaErrorInsufficientDriver (35) or
 * cudaErrorNoDevice (100): both mean "no GPU here" and the library falls back to the CPU.
 * The training operations of the CUDA backend are not in this build yet (see docs/).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "genesis/genesis.h"

extern "C" int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                                      size_t why_cap) {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    *count = 0;
    if (err != cudaSuccess) {
        if (why && why_cap)
            snprintf(why, why_cap, "no usable GPU: %s (CUDA error %d)", cudaGetErrorString(err),
                     (int)err);
        cudaGetLastError();
        return 0;
    }
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    for (int i = 0; i < n && i < cap; i++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        genesis_device_info *d = &out[*count];
        memset(d, 0, sizeof *d);
        d->index = i;
        snprintf(d->name, sizeof d->name, "%s", p.name);
        d->cc_major = p.major;
        d->cc_minor = p.minor;
        size_t fr = 0, tot = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess) {
            d->free_memory = fr;
            d->total_memory = tot;
        } else {
            d->total_memory = p.totalGlobalMem;
        }
        (*count)++;
    }
    if (why && why_cap)
        snprintf(why, why_cap, "%d GPU(s); CUDA driver %d.%d, runtime %d.%d", n, drv / 1000,
                 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return n;
}
