/*
 * ctx.c — genesis_ctx: seed, threads, device choice and log callback. The backend a model
 * runs on is resolved from the context when the model is created (backend.c).
 */
#include <string.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

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

genesis_status gen_ctx_clone(const genesis_ctx *src, genesis_device_kind kind, int index,
                             genesis_ctx **out) {
    *out = NULL;
    genesis_ctx *c = calloc(1, sizeof *c);
    if (!c) return GENESIS_ERR_NOMEM;
    c->seed = src->seed;
    c->threads = src->threads;
    c->device_kind = kind;
    c->device_index = index;
    c->log_fn = src->log_fn;
    c->log_user = src->log_user;
    c->mem_fraction = src->mem_fraction;
    c->mem_limit = src->mem_limit;
    c->mem_budget_set = src->mem_budget_set;
    *out = c;
    return GENESIS_OK;
}

void genesis_ctx_free(genesis_ctx *ctx) {
    if (!ctx) return;
    if (ctx->comm_free) ctx->comm_free(ctx->comm);
    free(ctx);
}

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

void genesis_ctx_set_interrupt(genesis_ctx *ctx, const volatile sig_atomic_t *flag) {
    if (ctx) ctx->interrupt = flag;
}

int gen_ctx_threads(const genesis_ctx *ctx) {
    if (ctx && ctx->threads > 0) return ctx->threads;
    /* 0 = automatic: OMP_NUM_THREADS when set; otherwise the cores that other work is not
     * already using (1-minute load average), at least one. Statically split parallel work
     * waits for its slowest thread, so a thread sharing a core with another job slows every
     * step down; since no output depends on the thread count, choosing it from the load
     * keeps runs reproducible. */
    int n = omp_get_max_threads();
    if (n < 1) n = 1;
    if (!getenv("OMP_NUM_THREADS")) {
        double la[1];
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (cores > 0 && getloadavg(la, 1) == 1) {
            long free_cores = cores - (long)(la[0] + 0.5);
            if (free_cores < 1) free_cores = 1;
            if (free_cores < n) n = (int)free_cores;
        }
    }
    return n;
}
