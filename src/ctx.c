/*
 * ctx.c — genesis_ctx: seed, threads, device choice and log callback. The backend a model
 * runs on is resolved from the context when the model is created (backend.c).
 */
#include <string.h>
#include <omp.h>

#include "internal.h"

genesis_status genesis_ctx_create(genesis_ctx **out) {
    if (!out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    genesis_ctx *c = calloc(1, sizeof *c);
    if (!c) return GENESIS_ERR_NOMEM;
    c->device_kind = GENESIS_DEVICE_AUTO;
    *out = c;
    return GENESIS_OK;
}

void genesis_ctx_free(genesis_ctx *ctx) { free(ctx); }

genesis_status genesis_ctx_set_seed(genesis_ctx *ctx, uint64_t seed) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    ctx->seed = seed;
    return GENESIS_OK;
}

genesis_status genesis_ctx_set_threads(genesis_ctx *ctx, int threads) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(threads < 0 || threads > 1024, ctx, GENESIS_ERR_INVALID_ARG,
                  "threads must be between 0 (all cores) and 1024, got %d", threads);
    ctx->threads = threads;
    return GENESIS_OK;
}

void genesis_ctx_set_log(genesis_ctx *ctx, genesis_log_fn fn, void *user) {
    if (!ctx) return;
    ctx->log_fn = fn;
    ctx->log_user = user;
}

int gen_ctx_threads(const genesis_ctx *ctx) {
    if (ctx && ctx->threads > 0) return ctx->threads;
    /* 0 = the OpenMP default: OMP_NUM_THREADS when set, else every core */
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
}
