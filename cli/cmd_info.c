/*
 * cmd_info.c — `genesis info`: the version, the model kinds, the build's features, every
 * GPU found (memory, compute capability, driver, runtime, cuBLAS, cuDNN, NCCL) or why none
 * is usable, data-parallel support, the CPU cores and the host's memory.
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ", NAME M.m.p" of a MAJOR*10000 + MINOR*100 + PATCH version; ", NAME not found" for 0 */
static void version3(const char *name, int v) {
    if (v) printf(", %s %d.%d.%d", name, v / 10000, (v / 100) % 100, v % 100);
    else printf(", %s not found", name);
}

int cmd_info(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("Usage: genesis info\n\nPrints the version, the build's features, the host's memory\n"
                   "and every GPU found (memory, compute capability, driver, runtime, cuBLAS, cuDNN,\n"
                   "NCCL), or why none is usable.\n");
            return 0;
        }
        return usage_error("info", "unexpected argument '%s'", argv[i]);
    }
    printf("genesis %s (library %s)\n", GENESIS_VERSION_STRING, genesis_version_string());
    printf("models:");
    for (int k = 1; genesis_model_kind_name((genesis_model_kind)k); k++)
        printf("%s %s", k > 1 ? "," : "", genesis_model_kind_name((genesis_model_kind)k));
    printf("\n");
    genesis_device_info dev[16];
    int n = 0;
    char why[512] = "";
    genesis_detect_devices(dev, 16, &n, why, sizeof why);
    printf("GPUs: %s\n", why);
    for (int i = 0; i < n; i++) {
        const genesis_device_info *d = &dev[i];
        printf("  cuda:%d  %s  (PCI %s)\n", d->index, d->name, d->pci_bus_id);
        printf("          compute capability %d.%d, %d multiprocessors\n", d->cc_major, d->cc_minor,
               d->multiprocessors);
        printf("          memory %.1f GiB total, %.1f GiB free\n", d->total_memory / 1073741824.0,
               d->free_memory / 1073741824.0);
        printf("          driver %d.%d, runtime %d.%d", d->driver_version / 1000,
               (d->driver_version % 1000) / 10, d->runtime_version / 1000,
               (d->runtime_version % 1000) / 10);
        version3("cuBLAS", d->cublas_version);
        version3("cuDNN", d->cudnn_version);
        version3("NCCL", d->nccl_version);
        printf("\n");
    }
    printf("training device: %s\n", n > 0 ? "cuda:0 with --device auto|cuda (--device cpu "
                                              "forces the CPU)"
                                            : "cpu");
    printf("data parallel: MPI %s, NCCL %s (docs/distributed.md)\n",
           genesis_dist_supported(GENESIS_DIST_MPI) ? "built in" : "not built in",
           genesis_dist_supported(GENESIS_DIST_NCCL) ? "built in" : "not built in");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t tot = 0, avail = 0;
    genesis_host_memory(&tot, &avail);
    printf("CPU cores: %ld; host memory %.1f GiB, %.1f GiB available\n", cores,
           tot / 1073741824.0, avail / 1073741824.0);
    return 0;
}
