/*
 * device_query.cu — GPU discovery for genesis_detect_devices() and the backend choice:
 * each device's name, memory (cudaMemGetInfo), compute capability, multiprocessors and PCI
 * bus id; the driver and runtime versions; cuBLAS's version (cublasGetProperty); cuDNN's and
 * NCCL's versions from the libraries installed (dlopen of libcudnn.so.9 / libnccl.so.2 and
 * their cudnnGetVersion / ncclGetVersion, so the answer is what a run would load).
 * Without a device the first runtime call returns cudaErrorInsufficientDriver (35) or
 * cudaErrorNoDevice (100); the reason given then says whether the driver library is missing
 * (no NVIDIA driver installed) or present without a usable GPU.
 * The calling thread's current device is restored afterwards.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <library_types.h>
#include <stdio.h>
#include <string.h>

#include "genesis/genesis.h"

/* int f(void) or int f(int *) version functions of an optional library. */
static int lib_version(const char *const *sonames, const char *sym, int by_pointer) {
    for (int i = 0; sonames[i]; i++) {
        void *h = dlopen(sonames[i], RTLD_LAZY | RTLD_LOCAL);
        if (!h) continue;
        int v = 0;
        void *f = dlsym(h, sym);
        if (f && by_pointer) {
            int (*fp)(int *) = (int (*)(int *))f;
            if (fp(&v) != 0) v = 0;
        } else if (f) {
            size_t (*fv)(void) = (size_t (*)(void))f;
            v = (int)fv();
        }
        dlclose(h);
        if (v) return v;
    }
    return 0;
}

static int cublas_version(void) {
    int a = 0, b = 0, c = 0;
    if (cublasGetProperty(MAJOR_VERSION, &a) != CUBLAS_STATUS_SUCCESS) return 0;
    cublasGetProperty(MINOR_VERSION, &b);
    cublasGetProperty(PATCH_LEVEL, &c);
    return a * 10000 + b * 100 + c;
}

extern "C" int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                                      size_t why_cap) {
    int n = 0;
    *count = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (why && why_cap) {
            if (!drv)
                snprintf(why, why_cap,
                         "no GPU: the NVIDIA driver is not installed (libcuda.so.1 cannot be "
                         "loaded); runs use the CPU");
            else
                snprintf(why, why_cap,
                         "no usable GPU: %s (CUDA error %d); the driver library is present, so "
                         "check nvidia-smi, the driver version against CUDA runtime %d.%d, and "
                         "CUDA_VISIBLE_DEVICES; runs use the CPU",
                         cudaGetErrorString(err), (int)err, CUDART_VERSION / 1000,
                         (CUDART_VERSION % 1000) / 10);
        }
        if (drv) dlclose(drv);
        cudaGetLastError();
        return 0;
    }
    int rt = 0, drv = 0, prev = -1;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    cudaGetDevice(&prev);
    static const char *const cudnn_libs[] = {"libcudnn.so.9", "libcudnn.so", NULL};
    static const char *const nccl_libs[] = {"libnccl.so.2", "libnccl.so", NULL};
    int cudnn = lib_version(cudnn_libs, "cudnnGetVersion", 0);
    int nccl = lib_version(nccl_libs, "ncclGetVersion", 1);
    int cublas = cublas_version();
    for (int i = 0; i < n && *count < cap; i++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        genesis_device_info *d = &out[*count];
        memset(d, 0, sizeof *d);
        d->index = i;
        snprintf(d->name, sizeof d->name, "%s", p.name);
        d->cc_major = p.major;
        d->cc_minor = p.minor;
        d->multiprocessors = p.multiProcessorCount;
        snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%04x:%02x:%02x.0", p.pciDomainID,
                 p.pciBusID, p.pciDeviceID);
        d->driver_version = drv;
        d->runtime_version = rt;
        d->cublas_version = cublas;
        d->cudnn_version = cudnn;
        d->nccl_version = nccl;
        size_t fr = 0, tot = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess) {
            d->free_memory = fr;
            d->total_memory = tot;
        } else {
            d->total_memory = p.totalGlobalMem;
            cudaGetLastError();
        }
        (*count)++;
    }
    if (prev >= 0) cudaSetDevice(prev);
    if (why && why_cap)
        snprintf(why, why_cap, "%d GPU(s); CUDA driver %d.%d, runtime %d.%d", n, drv / 1000,
                 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return n;
}
