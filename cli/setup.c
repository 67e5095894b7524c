/*
 * setup.c — what every command that runs a model sets up: the context (seed, threads,
 * memory budget, device, log), data-parallel distribution (ranks of an mpirun job, or ranks
 * that are threads of this process, one per GPU, started by the library's genesis_team_run),
 * and the end of a command (exit code; a failed rank stops the others).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --multi-gpu: every GPU found; --devices: each listed GPU must exist. A clear error (and
 * GENESIS_ERR_CANCELLED: already printed) otherwise. */
genesis_status resolve_devices(options *o) {
    if (!o->multi_gpu && o->ndevices == 0) return GENESIS_OK;
    genesis_device_info dev[64];
    int n = 0;
    char why[256] = "";
    genesis_detect_devices(dev, 64, &n, why, sizeof why);
    const char *flag = o->multi_gpu ? "--multi-gpu" : "--devices";
    if (n == 0) {
        fprintf(stderr, "genesis: error: %s: no GPU found (%s); drop %s to train on the CPU, or run "
                        "CPU ranks with mpirun -np N genesis ... (docs/distributed.md)\n",
                flag, why, flag);
        return GENESIS_ERR_CANCELLED;
    }
    if (o->multi_gpu) {
        for (int i = 0; i < n; i++) o->devices[i] = dev[i].index;
        o->ndevices = n;
    }
    for (int i = 0; i < o->ndevices; i++)
        if (o->devices[i] >= n) {
            fprintf(stderr, "genesis: error: --devices: GPU %d not found (%d GPU(s): cuda:0 .. cuda:%d)\n",
                    o->devices[i], n, n - 1);
            return GENESIS_ERR_CANCELLED;
        }
    return GENESIS_OK;
}

/* Data parallel: which communicator the options and the launcher ask for: ranks started by
 * mpirun (MPI, or NCCL with --devices/--multi-gpu), or ranks that are threads of this
 * process (o->team: NCCL, one thread per listed GPU). */
static genesis_status set_distribution(genesis_ctx *ctx, options *o) {
    int launched = genesis_dist_launched();
    const char *d = o->distributed ? o->distributed : "auto";
    genesis_dist_kind kind = GENESIS_DIST_NONE;
    if (!strcmp(d, "mpi")) kind = GENESIS_DIST_MPI;
    else if (!strcmp(d, "nccl")) kind = GENESIS_DIST_NCCL;
    else if (!strcmp(d, "auto") && (launched || o->team))
        kind = o->ndevices > 0 ? GENESIS_DIST_NCCL : GENESIS_DIST_MPI;
    if (kind == GENESIS_DIST_NONE) {
        /* one GPU, or sampling over several: the model lives on the first */
        if ((o->ndevices == 1 || (o->cmd == CMD_SAMPLE && o->ndevices > 1)) &&
            o->device == GENESIS_DEVICE_AUTO)
            return genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, o->devices[0]);
        return GENESIS_OK;
    }
    const char *what = kind == GENESIS_DIST_MPI ? "MPI" : "NCCL";
    const char *fix = kind == GENESIS_DIST_MPI ? "install libopenmpi-dev and rebuild: scripts/setup.sh"
                                               : "it needs CUDA and NCCL at configure time";
    if (!genesis_dist_supported(kind) && !o->distributed && launched) {
        fprintf(stderr, "genesis: error: started by a launcher with several ranks, but this build has "
                        "no %s support (%s); pass --distributed none to train each process alone\n",
                what, fix);
        return GENESIS_ERR_CANCELLED;
    }
    if (!genesis_dist_supported(kind)) {
        fprintf(stderr, "genesis: error: --distributed %s: this build has no %s support (%s%s)\n",
                kind == GENESIS_DIST_MPI ? "mpi" : "nccl", what, fix,
                kind == GENESIS_DIST_MPI ? "" : "; use --distributed mpi on CPU ranks");
        return GENESIS_ERR_CANCELLED;
    }
    genesis_status st = GENESIS_OK;
    if (o->ndevices) st = genesis_ctx_set_devices(ctx, o->devices, o->ndevices);
    if (st == GENESIS_OK)
        st = o->team ? genesis_ctx_join_team(ctx, o->team, o->team_rank, GENESIS_DIST_NCCL)
                     : genesis_ctx_set_distributed(ctx, kind);
    if (st != GENESIS_OK) return st;
    if (genesis_ctx_rank(ctx) > 0) o->quiet = 1; /* rank 0 alone prints progress and notes */
    return GENESIS_OK;
}

genesis_status make_ctx(options *o, genesis_ctx **ctx) {
    genesis_status st = genesis_ctx_create(ctx);
    if (st != GENESIS_OK) return st;
    genesis_ctx_set_log(*ctx, log_to_stderr, &o->quiet);
    genesis_ctx_set_seed(*ctx, o->seed);
    if ((st = genesis_ctx_set_threads(*ctx, o->threads)) != GENESIS_OK) return st;
    if ((o->mem_fraction > 0 || o->mem_limit > 0) &&
        (st = genesis_ctx_set_memory_budget(*ctx, o->mem_fraction > 0 ? o->mem_fraction : 0.8,
                                            o->mem_limit)) != GENESIS_OK)
        return st;
    if (o->cmd == CMD_EVALUATE) return GENESIS_OK; /* CPU metrics, one process */
    if ((st = genesis_ctx_set_device(*ctx, o->device, o->device_index)) != GENESIS_OK) return st;
    return set_distribution(*ctx, o);
}

int finish(genesis_ctx *ctx, genesis_model *m, genesis_status st) {
    int rc = st == GENESIS_OK ? 0 : st == GENESIS_ERR_CANCELLED ? EXIT_USAGE : lib_error(ctx, st);
    if (rc != 0 && genesis_ctx_world_size(ctx) > 1) {
        /* the other ranks may be waiting for this one in a collective: stop them all */
        fprintf(stderr, "genesis: rank %d failed; stopping all %d ranks\n", genesis_ctx_rank(ctx),
                genesis_ctx_world_size(ctx));
        fflush(stderr);
        genesis_ctx_abort(ctx, rc);
    }
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    return rc;
}

typedef struct rank_job {
    const options *o;
    int (*body)(options *);
} rank_job;

/* one rank of a team: its own copy of the options, quiet but for rank 0 */
static int rank_main(genesis_team *team, int rank, void *user) {
    const rank_job *j = user;
    options o = *j->o;
    o.team = team;
    o.team_rank = rank;
    o.quiet = o.quiet || rank > 0;
    return j->body(&o);
}

/* Runs a training command: as it is (one worker, or one rank of an mpirun job), or, for
 * --devices/--multi-gpu with several GPUs and no launcher, as one rank per GPU, each a
 * thread of this process (genesis_team_run; NCCL between the GPUs). */
int run_ranks(options *o, int (*body)(options *)) {
    if (resolve_devices(o) != GENESIS_OK) return EXIT_USAGE;
    const char *d = o->distributed ? o->distributed : "auto";
    int K = o->ndevices;
    if (genesis_dist_launched() || K < 2 || (strcmp(d, "auto") && strcmp(d, "nccl"))) return body(o);
    if (!genesis_dist_supported(GENESIS_DIST_NCCL)) {
        fprintf(stderr, "genesis: error: %d GPUs in one process need NCCL, which this build lacks (it "
                        "needs CUDA and NCCL at configure time)\n", K);
        return EXIT_USAGE;
    }
    rank_job job = {o, body};
    int rcs[64], rc = 0;
    if (genesis_team_run(K, rank_main, &job, rcs) != GENESIS_OK) {
        fprintf(stderr, "genesis: error: cannot start %d ranks (out of memory or threads)\n", K);
        return 1;
    }
    for (int r = 0; r < K; r++) rc = rcs[r] > rc ? rcs[r] : rc;
    return rc;
}
