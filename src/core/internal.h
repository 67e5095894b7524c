/*
 * internal.h — what every library file shares: the context, the error plumbing
 * (zstd-style GEN_RETURN_IF / GEN_TRY), logging, checked allocation and GEN_ASSERT.
 * Nothing here is installed; the public surface is include/genesis/genesis.h.
 *
 * The folder src/core/ is the lowest layer of the core (docs/architecture.md, "The source
 * tree"): the context (ctx.c), errors and logging (error.c), the version (version.c). Every
 * other folder includes this header; it includes nothing of theirs.
 */
#ifndef GEN_INTERNAL_H
#define GEN_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "genesis/genesis.h"

#define GEN_ERRMSG_CAP 1024

struct gen_backend;
struct gen_comm;

#define GEN_MAX_DEVICES 64

struct genesis_ctx {
    uint64_t seed;
    int threads;                 /* 0 = all cores */
    genesis_device_kind device_kind;
    int device_index;
    int backend_gpu;             /* backend of the last model created: 0 = CPU, N + 1 = GPU N */
    struct gen_comm *comm;       /* data-parallel communicator; NULL = one worker (comm.h) */
    void (*comm_free)(struct gen_comm *); /* set with comm by src/comm/ (the core sits below it) */
    int devices[GEN_MAX_DEVICES];/* --devices list: rank r on a machine uses devices[r % n] */
    int ndevices;
    genesis_log_fn log_fn;
    void *log_user;
    genesis_status last_status;
    char errmsg[GEN_ERRMSG_CAP];
    double mem_fraction;         /* share of available memory workloads may plan for */
    uint64_t mem_limit;          /* hard limit in bytes, 0 = none */
    int mem_budget_set;          /* the caller chose a budget (fit then enforces it) */
    const volatile sig_atomic_t *interrupt; /* genesis_ctx_set_interrupt; NULL = none */
};

/* A context for one more device of the same work (sampling lanes, sample_stream.c): the
 * seed, threads, log callback and memory budget of `src` on device kind/index; no
 * communicator. Free it with genesis_ctx_free. */
genesis_status gen_ctx_clone(const genesis_ctx *src, genesis_device_kind kind, int index,
                             genesis_ctx **out);

/* 1 when the caller's interrupt flag (genesis_ctx_set_interrupt) is set and the work runs
 * on one worker (no communicator: several ranks stop where they agree). Fits check it after
 * every step; gen_ckpt_point (src/model/checkpoint.c) stops on it by itself. */
static inline int gen_ctx_interrupted(const genesis_ctx *ctx) {
    return ctx && ctx->interrupt && *ctx->interrupt && !ctx->comm;
}

/* Records an error message in the context (if any) and returns `st`. */
genesis_status gen_set_error(genesis_ctx *ctx, genesis_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void gen_clear_error(genesis_ctx *ctx);
void gen_log(genesis_ctx *ctx, genesis_log_level lvl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Return `st` with a message when `cond` holds. */
#define GEN_RETURN_IF(cond, ctx, st, ...)                  \
    do {                                                   \
        if (cond) return gen_set_error((ctx), (st), __VA_ARGS__); \
    } while (0)

/* Pass a non-OK status upward (the message is already in the context). */
#define GEN_TRY(expr)                          \
    do {                                       \
        genesis_status gen_try_st_ = (expr);   \
        if (gen_try_st_ != GENESIS_OK) return gen_try_st_; \
    } while (0)

/* Programmer errors: always on, abort with file:line. */
#define GEN_ASSERT(cond)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "genesis: internal assertion failed: %s (%s:%d)\n", #cond, \
                    __FILE__, __LINE__);                                              \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* Overflow-checked sizes: return 0 on overflow (callers treat 0 as failure). */
static inline size_t gen_mul_size(size_t a, size_t b) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    return a * b;
}

/* calloc that returns NULL on overflow as well as on failure. */
static inline void *gen_calloc(size_t n, size_t size) {
    if (n == 0 || size == 0) return calloc(1, 1);
    if (gen_mul_size(n, size) == 0) return NULL;
    return calloc(n, size);
}

char *gen_strdup(const char *s);

/* Number of CPU threads the context asks for (resolves 0 to the core count). */
int gen_ctx_threads(const genesis_ctx *ctx);

#endif /* GEN_INTERNAL_H */
