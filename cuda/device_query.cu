/*
 * device_query.cu — GPU discovery for genesis_detect_devices() and the backend choice:
 * each device's name, memory (cudaMemGetInfo), compute capability, multiprocessors and PCI
 * bus id; the driver and runtime versions; cuBLAS's version (cublasGetProperty); cuDNN's and
 * NCCL's versions from the libraries installed (dlopen of libcudnn.so.9 / libnccl.so.2 and
 * their cudnnGetVersion / ncclGetVersion, so the answer is what a run would load).
 * Without a device the first runtime call returns cudaErrorInsufficientDriver (35) or
 * cudaErrorNoDevice (100); the reason given then says whether the driver library is missing
 * (no NVIDIA driver installed) or present without a usable GPU.
 * No CUDA context is created: a context costs about 0.5 GB of device memory, and every
 * process (each MPI rank) discovers every visible GPU. Names, compute capability and total
 * memory come from cudaGetDeviceProperties (device attributes, no context); free memory from
 * NVML (libnvidia-ml.so.1, shipped with the driver: nvmlDeviceGetHandleByPciBusId_v2,
 * nvmlDeviceGetMemoryInfo, as the NVML API reference gives them), which reads it without a
 * context either. Without NVML, free memory is reported as the total.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <library_types.h>
#include <stdint.h>
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

/* NVML, loaded at run time (its declarations as the NVML API reference gives them). */
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;
typedef struct nvml_api {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    int (*by_pci)(const char *bus_id, void **dev);
    int (*memory)(void *dev, nvml_memory *m);
} nvml_api;

static int nvml_open(nvml_api *n) {
    memset(n, 0, sizeof *n);
    n->lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!n->lib) return 0;
    *(void **)&n->init = dlsym(n->lib, "nvmlInit_v2");
    *(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
    *(void **)&n->by_pci = dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&n->memory = dlsym(n->lib, "nvmlDeviceGetMemoryInfo");
    if (!n->init || !n->shutdown || !n->by_pci || !n->memory || n->init() != 0) {
        dlclose(n->lib);
        n->lib = NULL;
        return 0;
    }
    return 1;
}

static void nvml_close(nvml_api *n) {
    if (!n->lib) return;
    n->shutdown();
    dlclose(n->lib);
    n->lib = NULL;
}

/* Free and total memory of the GPU at `bus_id` through NVML; 0 when NVML cannot say. */
static int nvml_memory_of(nvml_api *n, const char *bus_id, uint64_t *fr, uint64_t *tot) {
    void *dev = NULL;
    nvml_memory m;
    if (!n->lib || n->by_pci(bus_id, &dev) != 0 || n->memory(dev, &m) != 0) return 0;
    *fr = m.free;
    *tot = m.total;
    return 1;
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
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    static const char *const cudnn_libs[] = {"libcudnn.so.9", "libcudnn.so", NULL};
    static const char *const nccl_libs[] = {"libnccl.so.2", "libnccl.so", NULL};
    int cudnn = lib_version(cudnn_libs, "cudnnGetVersion", 0);
    int nccl = lib_version(nccl_libs, "ncclGetVersion", 1);
    int cublas = cublas_version();
    nvml_api nv;
    nvml_open(&nv);
    for (int i = 0; i < n && *count < cap; i++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        genesis_device_info *d = &out[*count];
        memset(d, 0, sizeof *d);
        d->index = i;
        size_t name_len = strnlen(p.name, sizeof p.name); /* longer names are cut, not overrun */
        if (name_len > sizeof d->name - 1) name_len = sizeof d->name - 1;
        memcpy(d->name, p.name, name_len);
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
        uint64_t fr = 0, tot = 0;
        if (nvml_memory_of(&nv, d->pci_bus_id, &fr, &tot)) {
            d->free_memory = fr;
            d->total_memory = tot;
        } else {
            d->total_memory = p.totalGlobalMem;
            d->free_memory = p.totalGlobalMem;
        }
        (*count)++;
    }
    nvml_close(&nv);
    if (why && why_cap)
        snprintf(why, why_cap, "%d GPU(s); CUDA driver %d.%d, runtime %d.%d", n, drv / 1000,
                 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return n;
}
