/*
 * backend.c — choosing the backend for a context (CUDA -> CPU fallback, said through the
 * log callback) and device discovery (genesis_detect_devices).
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"

#ifdef GEN_HAVE_CUDA
int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                           size_t why_cap);
#endif

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

genesis_status gen_backend_create(genesis_ctx *ctx, gen_backend **out) {
    *out = NULL;
    if (ctx->device_kind == GENESIS_DEVICE_CUDA || ctx->device_kind == GENESIS_DEVICE_AUTO) {
        genesis_device_info dev[16];
        int n = 0;
        char why[256] = "";
        genesis_detect_devices(dev, 16, &n, why, sizeof why);
        if (ctx->device_kind == GENESIS_DEVICE_CUDA) {
#ifndef GEN_HAVE_CUDA
            return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                                 "--device cuda: %s; use --device cpu or auto", why);
#else
            if (n == 0)
                gen_log(ctx, GENESIS_LOG_WARN, "--device cuda: %s; falling back to the CPU", why);
            else if (ctx->device_index >= n)
                return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                                     "--device cuda:%d: only %d GPU(s) found", ctx->device_index, n);
            else
                gen_log(ctx, GENESIS_LOG_WARN,
                        "GPU %d (%s) found, but this version trains on the CPU only; "
                        "falling back to the CPU",
                        ctx->device_index, dev[ctx->device_index].name);
#endif
        }
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
                  "GENESIS_CUDA=ON); use --device cpu or auto");
#endif
    ctx->device_kind = kind;
    ctx->device_index = index;
    return GENESIS_OK;
}

const char *genesis_ctx_device_name(const genesis_ctx *ctx) {
    (void)ctx;
    return "cpu"; /* every model trains on the CPU backend in this version */
}
