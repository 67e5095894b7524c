/*
 * error.c — status strings, the per-context last-error message and the log callback.
 * Messages follow the CLI's convention: what went wrong, where (file:line:column), and
 * what to do about it; what the caller can change is named by its API name in backquotes
 * (docs/style.md §3), which the CLI prints as its flag.
 */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

const char *genesis_status_str(genesis_status st) {
    switch (st) {
    case GENESIS_OK: return "no error";
    case GENESIS_ERR_INVALID_ARG: return "invalid argument";
    case GENESIS_ERR_NOMEM: return "out of memory";
    case GENESIS_ERR_IO: return "input/output error";
    case GENESIS_ERR_PARSE: return "malformed input";
    case GENESIS_ERR_DATA: return "unusable data";
    case GENESIS_ERR_MODEL_FORMAT: return "bad model file";
    case GENESIS_ERR_VERSION: return "unsupported model file version";
    case GENESIS_ERR_DIVERGED: return "training diverged";
    case GENESIS_ERR_UNSUPPORTED: return "not supported";
    case GENESIS_ERR_CUDA: return "CUDA error";
    case GENESIS_ERR_CUBLAS: return "cuBLAS error";
    case GENESIS_ERR_CUDNN: return "cuDNN error";
    case GENESIS_ERR_STATE: return "called in the wrong state";
    case GENESIS_ERR_CANCELLED: return "cancelled";
    case GENESIS_ERR_INTERNAL: return "internal error";
    case GENESIS_ERR_STOPPED: return "stopped; the training state is in the checkpoint file";
    }
    return "unknown status";
}

genesis_status gen_set_error(genesis_ctx *ctx, genesis_status st, const char *fmt, ...) {
    if (!ctx) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
    va_end(ap);
    ctx->last_status = st;
    return st;
}

void gen_clear_error(genesis_ctx *ctx) {
    if (!ctx) return;
    ctx->errmsg[0] = 0;
    ctx->last_status = GENESIS_OK;
}

const char *genesis_errmsg(const genesis_ctx *ctx) {
    return ctx ? ctx->errmsg : "no context";
}

void gen_log(genesis_ctx *ctx, genesis_log_level lvl, const char *fmt, ...) {
    if (!ctx || !ctx->log_fn) return;
    char msg[GEN_ERRMSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->log_fn(lvl, msg, ctx->log_user);
}

char *gen_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
