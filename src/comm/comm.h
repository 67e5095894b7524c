/*
 * comm.h — the communicator of data-parallel training (docs/distributed.md): rank, world
 * size, an in-place sum all-reduce on a float buffer in backend memory, small host-side
 * collectives for control (agreeing on errors, checking that every rank has the same data),
 * broadcast, barrier and abort. Implementations:
 *   - none: a context without a communicator is one worker; models test `gen_comm_size`
 *     once and skip every collective (no per-step cost);
 *   - MPI (comm_mpi.c, built when CMake finds MPI: GEN_HAVE_MPI): MPI_Allreduce on host
 *     memory, staged through the host for a GPU backend;
 *   - threads (comm_threads.c): ranks that are threads of one process (genesis_team); a
 *     deterministic shared-memory sum; CPU CI without MPI, and one process driving GPUs;
 *   - NCCL (cuda/comm_nccl.cu, built when NCCL is found with CUDA: GEN_HAVE_NCCL): one rank
 *     per GPU, bootstrapped by broadcasting the ncclUniqueId over an MPI or a team
 *     communicator (NCCL user guide, "Creating a communicator"); ncclAllReduce on the
 *     backend's stream.
 * The models use one path for every implementation: gen_comm_allreduce_sum on the flat
 * gradient arena of each network (PyTorch DDP / Horovod fuse tensors into buckets for the
 * same reason: one call per step instead of one per tensor; docs/algorithms.md §E1, §E2).
 *
 * The folder src/comm/ is data-parallel communication, above backend/: this interface and
 * what every communicator shares (comm.c), MPI (comm_mpi.c), threads of one process
 * (comm_threads.c) and their launcher (team_run.c); NCCL's lives in the CUDA module.
 */
#ifndef GEN_COMM_H
#define GEN_COMM_H

#include <stddef.h>

#include "backend.h"

typedef struct gen_comm gen_comm;

typedef struct gen_comm_ops {
    const char *name;
    /* x (n floats of `be`'s memory) = the sum over ranks of x, in place */
    genesis_status (*allreduce_sum)(gen_comm *c, gen_backend *be, float *x, size_t n);
    /* x (n host doubles; small control messages) = the sum over ranks, in place */
    genesis_status (*allreduce_host)(gen_comm *c, double *x, size_t n);
    genesis_status (*broadcast_host)(gen_comm *c, void *buf, size_t bytes, int root);
    genesis_status (*barrier)(gen_comm *c);
    /* stops every rank of the job (MPI_Abort); does not return when it works */
    void (*abort)(gen_comm *c, int code);
    void (*destroy)(gen_comm *c);
} gen_comm_ops;

struct gen_comm {
    const gen_comm_ops *ops;
    genesis_ctx *ctx;
    int rank, size;               /* this process's rank and the number of ranks */
    int local_rank, local_size;   /* among the ranks on this machine (GPU choice) */
    /* accounting of gen_comm_allreduce_sum (docs/distributed.md measures with it) */
    unsigned long long reduce_calls, reduce_floats;
    double reduce_s;
    void *impl;
};

/* Number of ranks of a context's communicator (1 when it has none). */
static inline int gen_comm_size(const gen_comm *c) { return c ? c->size : 1; }
static inline int gen_comm_rank(const gen_comm *c) { return c ? c->rank : 0; }

/* In-place sum over ranks of n floats of backend memory (timed into the accounting). */
genesis_status gen_comm_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n);
/* Every rank passes its own failure flag; returns how many ranks failed (0 when all are
 * fine). Ranks then leave together, so no rank waits forever in a later collective. On a
 * communication failure it returns `size` (every rank treated as failed). */
static inline int gen_comm_agree(gen_comm *c, int failed) {
    if (!c || c->size <= 1) return failed ? 1 : 0;
    double v = failed ? 1.0 : 0.0;
    if (c->ops->allreduce_host(c, &v, 1) != GENESIS_OK) return c->size;
    return (int)(v + 0.5);
}
/* Checks that `value` is the same on every rank; otherwise returns GENESIS_ERR_DATA on every
 * rank with a message naming `what`, rank 0's value and this rank's value. */
genesis_status gen_comm_check_same(gen_comm *c, const char *what, double value);
/* Rank 0 logs the all-reduce accounting of a finished fit (`seconds` of training, `steps`). */
void gen_comm_log_fit(genesis_ctx *ctx, const gen_comm *c, double seconds, long long steps);

/* (inline, like gen_comm_agree: the CUDA module's NCCL communicator uses both) */
static inline void gen_comm_free(gen_comm *c) {
    if (c && c->ops && c->ops->destroy) c->ops->destroy(c);
}

/* The MPI communicator over MPI_COMM_WORLD (calls MPI_Init when nobody has; MPI_Finalize
 * at free in that case). GENESIS_ERR_UNSUPPORTED in a build without MPI. */
genesis_status gen_comm_mpi_create(genesis_ctx *ctx, gen_comm **out);
/* The NCCL communicator: one rank per GPU (`device`), bootstrapped over `boot` (MPI or a
 * team; it takes `boot` over and frees it). GENESIS_ERR_UNSUPPORTED in a build without NCCL. */
genesis_status gen_comm_nccl_create(genesis_ctx *ctx, gen_comm *boot, int device, gen_comm **out);

/* A rank of a team of threads in this process (comm_threads.c), and the team's size. */
genesis_status gen_comm_team_create(genesis_ctx *ctx, genesis_team *team, int rank, gen_comm **out);
int gen_team_size(const genesis_team *team);

/* Whether the process was started by a launcher with several ranks (mpirun/srun/hydra):
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX/SLURM equivalents > 1. */
int gen_dist_env_size(void);

#endif /* GEN_COMM_H */
