/*
 * cuda_module.c — loads the CUDA backend (libgenesis-cuda.so, built from cuda/) only when a
 * run may use a GPU, so that a CUDA build on a machine without one never maps the CUDA
 * runtime, cuBLAS or cuRAND (about 220 MB resident and 0.3 s per process when linked
 * directly). Order: no NVIDIA driver (libcuda.so.1 cannot be loaded) -> no module, said
 * plainly; else the module from $GENESIS_CUDA_MODULE, next to this library (and in its
 * genesis/ subfolder, where `make install` puts it), next to the program, or in the build
 * and install folders this copy was configured with. The module carries an ABI number (the
 * version and the sizes of the structures both sides share) that must match.
 *
 * The emulated module (tests/cuemu/: the same backend compiled by the host compiler against an
 * emulated CUDA runtime, for tests) exports genesis_cuda_module_emulated. It is loaded only
 * when asked for, with GENESIS_CUDA_EMULATOR=1 and GENESIS_CUDA_MODULE=its path (no NVIDIA
 * driver needed then); found any other way, it is refused, so nobody trains on the emulator
 * by accident. Device queries then say it is the emulator.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cuda_module.h"

#ifdef GEN_HAVE_CUDA

#define MODULE_NAME "libgenesis-cuda.so"

typedef int (*query_fn)(genesis_device_info *, int, int *, char *, size_t);
typedef genesis_status (*create_fn)(genesis_ctx *, int, gen_backend **);
typedef unsigned long (*abi_fn)(void);

static struct {
    void *handle;
    query_fn query;
    create_fn create;
    int emulated;              /* the emulated CUDA runtime (GENESIS_CUDA_EMULATOR=1) */
    char why[768];
} g_mod;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const char g_anchor = 0; /* an object of this library, for dladdr */

/* want_emu: GENESIS_CUDA_EMULATOR=1 (only the emulated module is accepted); else the emulated
 * module is refused. */
static int try_path(const char *path, int want_emu, char *err, size_t cap) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        if (access(path, F_OK) == 0 && !err[0]) snprintf(err, cap, "%s", e ? e : path);
        return 0;
    }
    /* POSIX's way to turn dlsym's void * into a function pointer without a cast that ISO C
     * forbids (dlsym's rationale) */
    abi_fn abi = NULL;
    query_fn q = NULL;
    create_fn c = NULL;
    *(void **)&abi = dlsym(h, "genesis_cuda_module_abi");
    *(void **)&q = dlsym(h, "genesis_cuda_module_query");
    *(void **)&c = dlsym(h, "genesis_cuda_module_create");
    if (!abi || !q || !c || abi() != GEN_CUDA_MODULE_ABI) {
        snprintf(err, cap, "%s is from another version of Genesis (rebuild or reinstall)", path);
        dlclose(h);
        return 0;
    }
    int emulated = dlsym(h, "genesis_cuda_module_emulated") != NULL;
    if (emulated != want_emu) {
        snprintf(err, cap,
                 emulated ? "%s is the emulated CUDA runtime (for tests, not a GPU); it is used "
                            "only with GENESIS_CUDA_EMULATOR=1"
                          : "%s is not the emulated CUDA module that GENESIS_CUDA_EMULATOR=1 asks "
                            "for",
                 path);
        dlclose(h);
        return 0;
    }
    g_mod.emulated = emulated;
    g_mod.handle = h;
    g_mod.query = q;
    g_mod.create = c;
    return 1;
}

/* dir of `file` + "/" + rel into buf */
static const char *beside(char *buf, size_t cap, const char *file, const char *rel) {
    const char *slash = strrchr(file, '/');
    if (!slash) return NULL;
    snprintf(buf, cap, "%.*s/%s", (int)(slash - file), file, rel);
    return buf;
}

static void load_module(void) {
    const char *emu = getenv("GENESIS_CUDA_EMULATOR");
    if (emu && !strcmp(emu, "1")) { /* tests: the emulated module, no driver needed */
        const char *mod = getenv("GENESIS_CUDA_MODULE");
        char err[512] = "";
        if (mod && *mod && try_path(mod, 1, err, sizeof err)) return;
        snprintf(g_mod.why, sizeof g_mod.why,
                 "GENESIS_CUDA_EMULATOR=1 needs GENESIS_CUDA_MODULE=<path of the emulated "
                 "libgenesis-cuda.so>%s%s; runs use the CPU", err[0] ? ": " : "", err);
        return;
    }
    void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!drv) {
        snprintf(g_mod.why, sizeof g_mod.why,
                 "no GPU: the NVIDIA driver is not installed (libcuda.so.1 cannot be loaded); "
                 "runs use the CPU");
        return;
    }
    dlclose(drv);
    char err[512] = "", path[4096], self[4096];
    const char *env = getenv("GENESIS_CUDA_MODULE");
    if (env && *env && try_path(env, 0, err, sizeof err)) return;
    Dl_info info;
    if (dladdr(&g_anchor, &info) && info.dli_fname) {
        if (beside(path, sizeof path, info.dli_fname, MODULE_NAME) && try_path(path, 0, err, sizeof err)) return;
        if (beside(path, sizeof path, info.dli_fname, "genesis/" MODULE_NAME) && try_path(path, 0, err, sizeof err)) return;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        if (beside(path, sizeof path, self, MODULE_NAME) && try_path(path, 0, err, sizeof err)) return;
    }
    if (try_path(GEN_CUDA_MODULE_BUILD_DIR "/" MODULE_NAME, 0, err, sizeof err)) return;
    if (try_path(GEN_CUDA_MODULE_INSTALL_DIR "/" MODULE_NAME, 0, err, sizeof err)) return;
    snprintf(g_mod.why, sizeof g_mod.why,
             "no usable GPU backend: the NVIDIA driver is installed but %s%s; set "
             "GENESIS_CUDA_MODULE to the file's path; runs use the CPU",
             err[0] ? "the CUDA module could not be loaded: " : "the CUDA module " MODULE_NAME
                                                                " was not found next to the library or the program",
             err);
}

int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                           size_t why_cap) {
    pthread_once(&g_once, load_module);
    *count = 0;
    if (!g_mod.query) {
        if (why && why_cap) snprintf(why, why_cap, "%s", g_mod.why);
        return 0;
    }
    int n = g_mod.query(out, cap, count, why, why_cap);
    if (g_mod.emulated && why && why_cap) {
        size_t len = strlen(why);
        if (*count == 0) /* the module's reason talks about a driver */
            snprintf(why, why_cap, "the emulated CUDA runtime reports no device "
                     "(GENESIS_CUEMU_DEVICES=0?); runs use the CPU");
        else
            snprintf(why + len, why_cap - len, " [the emulated CUDA runtime "
                     "(GENESIS_CUDA_EMULATOR=1), not a GPU]");
    }
    return n;
}

genesis_status gen_backend_cuda_create(genesis_ctx *ctx, int device, gen_backend **out) {
    pthread_once(&g_once, load_module);
    *out = NULL;
    if (!g_mod.create) return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED, "%s", g_mod.why);
    return g_mod.create(ctx, device, out);
}

void *gen_cuda_module_entry(const char *name, const char **why) {
    pthread_once(&g_once, load_module);
    *why = g_mod.create ? "" : g_mod.why;
    return g_mod.create ? dlsym(g_mod.handle, name) : NULL;
}

#else
void *gen_cuda_module_entry(const char *name, const char **why) {
    (void)name;
    *why = "this build has no CUDA support";
    return NULL;
}
#endif
