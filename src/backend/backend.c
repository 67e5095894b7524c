/*
 * backend.c — choosing the backend for a context (the CUDA backend when a GPU is there,
 * else the CPU; a GPU whose backend cannot start falls back to the CPU, said through the
 * log callback), device discovery (genesis_detect_devices) and the name of the backend in
 * use (genesis_ctx_device_name).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

genesis_status genesis_detect_devices(genesis_device_info *out, int cap, int *count, char *why,
                                      size_t why_cap) {
    if (!count || cap < 0 || (cap > 0 && !out)) return GENESIS_ERR_INVALID_ARG;
    *count = 0;
#ifdef GEN_HAVE_CUDA
    gen_cuda_query_devices(out, cap, count, why, why_cap);
#else
    if (why && why_cap)
        snprintf(why, why_cap, "this build has no CUDA backend (configured with GENESIS_CUDA=OFF "
                               "or no nvcc was found)");
#endif
    return GENESIS_OK;
}

genesis_status gen_diverged(gen_backend *be, const char *fmt, ...) {
    genesis_status st = gen_backend_status(be);
    if (st != GENESIS_OK) return st;
    char msg[GEN_ERRMSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gen_set_error(be->ctx, GENESIS_ERR_DIVERGED, "%s", msg);
}

void gen_amp_reset(gen_backend *be, gen_amp *amp, int n) {
    const char *inj = getenv("GENESIS_FP16_INJECT_INF");
    long k = inj ? strtol(inj, NULL, 10) : 0;
    for (int i = 0; i < n; i++) {
        gen_amp a;
        memset(&a, 0, sizeof a);
        a.scale = GEN_AMP_INIT_SCALE;
        a.interval = GEN_AMP_INTERVAL;
        a.inject_at = k > 0 && k < INT32_MAX ? (int32_t)k : 0;
        be->ops->upload(be, amp + i, &a, sizeof a);
    }
}

int gen_act16(int precision) {
    if (precision != GEN_PREC_BF16 && precision != GEN_PREC_FP16) return 0;
    const char *e = getenv("GENESIS_ACT16");
    return !(e && !strcmp(e, "0"));
}

void gen_amp_read(gen_backend *be, const gen_amp *amp, int n, int64_t *skipped, double *scale) {
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        gen_amp a;
        be->ops->download(be, &a, amp + i, sizeof a);
        s += a.skipped;
        if (i == 0 && scale) *scale = a.scale;
    }
    if (skipped) *skipped = s;
}

#ifndef GEN_HAVE_CUDA
genesis_status gen_backend_cuda_create(genesis_ctx *ctx, int device, gen_backend **out) {
    (void)device;
    *out = NULL;
    return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                         "this build has no CUDA backend (configured with GENESIS_CUDA=OFF or no "
                         "nvcc was found)");
}
#endif

/* AUTO and CUDA use the GPU when there is one (AUTO: the context's device index when that
 * GPU exists, else GPU 0); a GPU that is present but whose backend cannot start falls back
 * to the CPU with a logged warning. */
genesis_status gen_backend_create(genesis_ctx *ctx, gen_backend **out) {
    *out = NULL;
    ctx->backend_gpu = 0;
    if (ctx->device_kind == GENESIS_DEVICE_CUDA || ctx->device_kind == GENESIS_DEVICE_AUTO) {
        genesis_device_info dev[16];
        int n = 0;
        char why[256] = "";
        genesis_detect_devices(dev, 16, &n, why, sizeof why);
#ifndef GEN_HAVE_CUDA
        if (ctx->device_kind == GENESIS_DEVICE_CUDA)
            return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                                 "`GENESIS_DEVICE_CUDA`: %s; use `GENESIS_DEVICE_CPU` or "
                                 "`GENESIS_DEVICE_AUTO`",
                                 why);
#else
        int idx = ctx->device_index;
        if (ctx->device_kind == GENESIS_DEVICE_CUDA) {
            if (n == 0)
                gen_log(ctx, GENESIS_LOG_WARN, "`GENESIS_DEVICE_CUDA`: %s; falling back to the CPU",
                        why);
            else if (idx >= n)
                return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                                     "GPU %d (`GENESIS_DEVICE_CUDA`): only %d GPU(s) found", idx,
                                     n);
        } else if (idx >= n) {
            idx = 0;
        }
        if (n > 0) {
            genesis_status st = gen_backend_cuda_create(ctx, idx, out);
            if (st == GENESIS_OK) {
                ctx->backend_gpu = idx + 1;
                gen_log(ctx, GENESIS_LOG_INFO, "training on GPU %d (%s)", idx, dev[idx].name);
                return GENESIS_OK;
            }
            gen_log(ctx, GENESIS_LOG_WARN,
                    "GPU %d (%s) found, but the CUDA backend could not start: %s; falling back "
                    "to the CPU",
                    idx, dev[idx].name, genesis_errmsg(ctx));
            gen_clear_error(ctx);
        }
#endif
    }
    return gen_backend_cpu_create(ctx, ctx->threads, out);
}

genesis_status genesis_ctx_set_device(genesis_ctx *ctx, genesis_device_kind kind, int index) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(kind != GENESIS_DEVICE_AUTO && kind != GENESIS_DEVICE_CPU &&
                      kind != GENESIS_DEVICE_CUDA,
                  ctx, GENESIS_ERR_INVALID_ARG, "unknown device kind %d", (int)kind);
    GEN_RETURN_IF(index < 0 || index > 255, ctx, GENESIS_ERR_INVALID_ARG,
                  "device index must be between 0 and 255, got %d", index);
#ifndef GEN_HAVE_CUDA
    GEN_RETURN_IF(kind == GENESIS_DEVICE_CUDA, ctx, GENESIS_ERR_UNSUPPORTED,
                  "this build has no CUDA backend (rebuild with nvcc present or "
                  "GENESIS_CUDA=ON); use `GENESIS_DEVICE_CPU` or `GENESIS_DEVICE_AUTO`");
#endif
    ctx->device_kind = kind;
    ctx->device_index = index;
    return GENESIS_OK;
}

const char *genesis_ctx_device_name(const genesis_ctx *ctx) {
    static const char *const names[] = {"cpu",    "cuda:0",  "cuda:1",  "cuda:2",  "cuda:3",
                                        "cuda:4", "cuda:5",  "cuda:6",  "cuda:7",  "cuda:8",
                                        "cuda:9", "cuda:10", "cuda:11", "cuda:12", "cuda:13",
                                        "cuda:14", "cuda:15"};
    if (!ctx || ctx->backend_gpu <= 0) return "cpu";
    if (ctx->backend_gpu < (int)(sizeof names / sizeof names[0])) return names[ctx->backend_gpu];
    return "cuda";
}
