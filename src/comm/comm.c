/*
 * comm.c — what every communicator shares (comm.h): the timed all-reduce wrapper, agreeing
 * on failures, checking that ranks hold the same data, the launcher detection, and the
 * public entry points (genesis_ctx_set_distributed, rank, world size, abort). The
 * implementations live in comm_mpi.c and cuda/comm_nccl.cu; a build without them answers
 * GENESIS_ERR_UNSUPPORTED with what to install.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "cuda_module.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

genesis_status gen_comm_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n) {
    if (!c || c->size <= 1 || n == 0) return GENESIS_OK;
    double t0 = now_s();
    genesis_status st = c->ops->allreduce_sum(c, be, x, n);
    c->reduce_s += now_s() - t0;
    c->reduce_calls++;
    c->reduce_floats += n;
    return st;
}

genesis_status gen_comm_check_same(gen_comm *c, const char *what, double value) {
    if (!c || c->size <= 1) return GENESIS_OK;
    double root = value;
    GEN_TRY(c->ops->broadcast_host(c, &root, sizeof root, 0));
    int mine = !(root == value || (isnan(root) && isnan(value)));
    int bad = gen_comm_agree(c, mine);
    if (bad == 0) return GENESIS_OK;
    if (mine)
        return gen_set_error(c->ctx, GENESIS_ERR_DATA,
                             "rank %d has %s = %.17g but rank 0 has %.17g; every rank must read "
                             "the same data with the same settings and seed",
                             c->rank, what, value, root);
    return gen_set_error(c->ctx, GENESIS_ERR_DATA,
                         "%d rank(s) disagree with rank 0 on %s (%.17g); every rank must read the "
                         "same data with the same settings and seed",
                         bad, what, root);
}

void gen_comm_log_fit(genesis_ctx *ctx, const gen_comm *c, double seconds, long long steps) {
    if (!c || c->size <= 1 || c->rank != 0) return;
    gen_log(ctx, GENESIS_LOG_INFO,
            "data parallel over %d ranks (%s): %llu all-reduce calls, %.1f MiB summed, %.3f s "
            "in all-reduce of %.3f s training (%.3f ms per step)",
            c->size, c->ops->name, c->reduce_calls, c->reduce_floats * 4.0 / 1048576.0,
            c->reduce_s, seconds, 1e3 * c->reduce_s / (double)(steps > 0 ? steps : 1));
}

static int env_int(const char *name) {
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end == 0 && v > 0 && v < 1 << 24) ? (int)v : 0;
}

int gen_dist_env_size(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                       "MPI_LOCALNRANKS", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int v = env_int(vars[i]);
        if (v > 0) return v;
    }
    return 0;
}

#ifndef GEN_HAVE_MPI
genesis_status gen_comm_mpi_create(genesis_ctx *ctx, gen_comm **out) {
    *out = NULL;
    return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                         "this build has no MPI support; install an MPI (e.g. libopenmpi-dev "
                         "openmpi-bin: scripts/setup.sh) and rebuild");
}
#endif

#ifdef GEN_HAVE_NCCL
/* The NCCL communicator lives in the CUDA module (cuda/comm_nccl.cu), reached through the
 * module's loader like the backend itself. */
typedef genesis_status (*nccl_create_fn)(genesis_ctx *, gen_comm *, int, gen_comm **);

genesis_status gen_comm_nccl_create(genesis_ctx *ctx, gen_comm *boot, int device, gen_comm **out) {
    *out = NULL;
    const char *why = "";
    nccl_create_fn create = NULL;
    *(void **)&create = gen_cuda_module_entry("genesis_cuda_module_nccl_create", &why);
    if (why[0]) return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED, "NCCL: %s", why);
    if (!create)
        return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                             "the CUDA module was built without NCCL; rebuild with NCCL found");
    return create(ctx, boot, device, out);
}
#else
genesis_status gen_comm_nccl_create(genesis_ctx *ctx, gen_comm *boot, int device, gen_comm **out) {
    (void)device;
    gen_comm_free(boot);
    *out = NULL;
    return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                         "this build has no NCCL support (it needs the CUDA backend and NCCL at "
                         "configure time); use `GENESIS_DIST_MPI`");
}
#endif

/* ---- public API ------------------------------------------------------------------------ */

int genesis_dist_supported(genesis_dist_kind kind) {
    switch (kind) {
    case GENESIS_DIST_NONE: return 1;
    case GENESIS_DIST_THREADS: return 1;
#ifdef GEN_HAVE_MPI
    case GENESIS_DIST_MPI: return 1;
#endif
#ifdef GEN_HAVE_NCCL
    case GENESIS_DIST_NCCL: return 1;
#endif
    default: return 0;
    }
}

int genesis_dist_launched(void) { return gen_dist_env_size() > 1; }

genesis_status genesis_ctx_set_distributed(genesis_ctx *ctx, genesis_dist_kind kind) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(kind == GENESIS_DIST_THREADS, ctx, GENESIS_ERR_INVALID_ARG,
                  "ranks that are threads join a team: genesis_ctx_join_team");
    GEN_RETURN_IF(kind != GENESIS_DIST_NONE && kind != GENESIS_DIST_MPI && kind != GENESIS_DIST_NCCL,
                  ctx, GENESIS_ERR_INVALID_ARG, "unknown distribution kind %d", (int)kind);
    GEN_RETURN_IF(ctx->comm, ctx, GENESIS_ERR_STATE,
                  "this context is already distributed; set it once, before creating models");
    if (kind == GENESIS_DIST_NONE) return GENESIS_OK;
    gen_comm *c = NULL;
    GEN_TRY(gen_comm_mpi_create(ctx, &c));
    if (kind == GENESIS_DIST_NCCL) {
        /* one GPU per rank: the rank's local index picks from the context's device list */
        int dev = ctx->ndevices > 0 ? ctx->devices[c->local_rank % ctx->ndevices] : c->local_rank;
        gen_comm *nc = NULL;
        GEN_TRY(gen_comm_nccl_create(ctx, c, dev, &nc));
        c = nc;
        ctx->device_kind = GENESIS_DEVICE_CUDA;
        ctx->device_index = dev;
    } else if (ctx->ndevices > 0) { /* MPI ranks on GPUs: each its own, sums through the host */
        ctx->device_kind = GENESIS_DEVICE_CUDA;
        ctx->device_index = ctx->devices[c->local_rank % ctx->ndevices];
    }
    ctx->comm = c;
    ctx->comm_free = gen_comm_free;
    return GENESIS_OK;
}

genesis_status genesis_ctx_join_team(genesis_ctx *ctx, genesis_team *team, int rank,
                                     genesis_dist_kind kind) {
    if (!ctx || !team) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(kind != GENESIS_DIST_THREADS && kind != GENESIS_DIST_NCCL, ctx,
                  GENESIS_ERR_INVALID_ARG, "a team's ranks use GENESIS_DIST_THREADS or GENESIS_DIST_NCCL");
    GEN_RETURN_IF(ctx->comm, ctx, GENESIS_ERR_STATE,
                  "this context is already distributed; set it once, before creating models");
    GEN_RETURN_IF(rank < 0 || rank >= gen_team_size(team), ctx, GENESIS_ERR_INVALID_ARG,
                  "rank %d is outside the team of %d", rank, gen_team_size(team));
    gen_comm *c = NULL;
    GEN_TRY(gen_comm_team_create(ctx, team, rank, &c));
    if (kind == GENESIS_DIST_NCCL) {
        int dev = ctx->ndevices > 0 ? ctx->devices[rank % ctx->ndevices] : rank;
        gen_comm *nc = NULL;
        GEN_TRY(gen_comm_nccl_create(ctx, c, dev, &nc));
        c = nc;
        ctx->device_kind = GENESIS_DEVICE_CUDA;
        ctx->device_index = dev;
    }
    ctx->comm = c;
    ctx->comm_free = gen_comm_free;
    return GENESIS_OK;
}

genesis_status genesis_ctx_set_devices(genesis_ctx *ctx, const int *devices, int n) {
    if (!ctx || n < 0 || (n > 0 && !devices)) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(n > GEN_MAX_DEVICES, ctx, GENESIS_ERR_INVALID_ARG,
                  "at most %d devices can be listed, got %d", GEN_MAX_DEVICES, n);
    for (int i = 0; i < n; i++) {
        GEN_RETURN_IF(devices[i] < 0 || devices[i] > 255, ctx, GENESIS_ERR_INVALID_ARG,
                      "device index must be between 0 and 255, got %d", devices[i]);
        for (int j = 0; j < i; j++)
            GEN_RETURN_IF(devices[i] == devices[j], ctx, GENESIS_ERR_INVALID_ARG,
                          "device %d is listed twice", devices[i]);
    }
    memcpy(ctx->devices, devices, (size_t)n * sizeof(int));
    ctx->ndevices = n;
    return GENESIS_OK;
}

int genesis_ctx_rank(const genesis_ctx *ctx) { return ctx ? gen_comm_rank(ctx->comm) : 0; }
int genesis_ctx_world_size(const genesis_ctx *ctx) { return ctx ? gen_comm_size(ctx->comm) : 1; }

void genesis_ctx_abort(genesis_ctx *ctx, int code) {
    if (ctx && ctx->comm && ctx->comm->size > 1) ctx->comm->ops->abort(ctx->comm, code);
}
