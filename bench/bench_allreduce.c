/*
 * bench_allreduce.c — the cost of the data-parallel all-reduce per training step
 * (docs/distributed.md). Run under the launcher, e.g.
 *     mpirun -np 2 build/bench_allreduce [data.csv]
 * It sizes the buffers from the real models on the given table (default
 * data/adult_sample.csv, default settings): CTGAN's generator and discriminator gradient
 * arenas (+ the loss tail) and its synchronised batch-norm reductions, and TVAE's gradient
 * arena; then times each size (barrier, then 200 all-reduces; the median of 5 such runs, as
 * seen by rank 0) through the same gen_comm_allreduce_sum the models use, on CPU-backend
 * buffers. Prints time per call, the bus bandwidth 2(K-1)/K * bytes / time (the NCCL tests'
 * "busbw" convention) and the all-reduce time per CTGAN and TVAE step.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "ctgan.h"
#include "model.h"
#include "tvae.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over 5 runs of the mean time of `reps` all-reduces of n floats (seconds). A GPU
 * backend's all-reduce is asynchronous: a one-float download waits for the stream. */
static double time_allreduce(gen_comm *c, gen_backend *be, float *buf, size_t n, int reps) {
    double t[5];
    float one;
    gen_comm_allreduce_sum(c, be, buf, n); /* warm-up (NCCL sets up its channels lazily) */
    be->ops->download(be, &one, buf, sizeof one);
    for (int r = 0; r < 5; r++) {
        c->ops->barrier(c);
        double t0 = now_s();
        for (int i = 0; i < reps; i++) gen_comm_allreduce_sum(c, be, buf, n);
        be->ops->download(be, &one, buf, sizeof one);
        t[r] = (now_s() - t0) / reps;
    }
    qsort(t, 5, sizeof t[0], cmp_double);
    double med = t[2];
    c->ops->broadcast_host(c, &med, sizeof med, 0); /* report rank 0's view everywhere */
    return med;
}

/* Fits one epoch of a tiny run to learn the model's real arena sizes on this table. */
static size_t model_floats(genesis_ctx *ctx, const genesis_table *t, genesis_model_kind kind,
                           size_t *g, size_t *d, int *gdim) {
    genesis_model *m = NULL;
    *g = *d = 0;
    if (genesis_model_create(ctx, kind, &m) != GENESIS_OK) return 0;
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    if (genesis_model_fit(m, t, NULL, NULL) != GENESIS_OK) {
        genesis_model_free(m);
        return 0;
    }
    float *x = NULL;
    size_t n = 0, seg[16];
    int k = 0;
    gen_model_state(m, &x, &n, seg, &k);
    free(x);
    double gd = 0;
    genesis_model_get_param(m, GENESIS_P_GEN_DIM, &gd);
    *gdim = (int)gd;
    if (kind == GENESIS_MODEL_CTGAN && k == 7) {
        *g = seg[0];
        *d = seg[2];
    } else if (k >= 1) {
        *g = seg[0];
    }
    genesis_model_free(m);
    return *g + *d;
}

typedef struct bench_sizes {
    size_t cg, cd, tg;
    int gdim;
    const char *path;
} bench_sizes;

/* Times every buffer size on this rank's communicator; rank 0 prints. */
static int bench_rank(genesis_ctx *ctx, const bench_sizes *bs) {
    gen_comm *c = ctx->comm;
    gen_backend *be = NULL;
    if (gen_backend_create(ctx, &be) != GENESIS_OK) {
        fprintf(stderr, "bench_allreduce: rank %d: %s\n", c->rank, genesis_errmsg(ctx));
        return 1;
    }
    int gdim = bs->gdim;
    size_t sizes[] = {(size_t)gdim, 2 * (size_t)gdim, bs->tg + TV_RED_TAIL, bs->cg + CT_RED_TAIL,
                      bs->cd + CT_RED_TAIL, (size_t)1 << 20, (size_t)1 << 22};
    const char *what[] = {"CTGAN batch-norm stats (gdim)", "CTGAN batch-norm backward (2 gdim)",
                          "TVAE gradients + loss tail", "CTGAN G gradients + loss tail",
                          "CTGAN D gradients + loss tail", "1 Mi floats (4 MiB)",
                          "4 Mi floats (16 MiB)"};
    int ns = (int)(sizeof sizes / sizeof sizes[0]);
    size_t maxn = 0;
    for (int i = 0; i < ns; i++) maxn = sizes[i] > maxn ? sizes[i] : maxn;
    float *buf = be->ops->alloc(be, maxn * sizeof(float));
    if (!buf) return 1;
    double tcall[16];
    int K = c->size;
    if (c->rank == 0)
        printf("bench_allreduce: %d ranks (%s) on %s, table %s\n"
               "%-36s %10s %10s %12s %12s\n",
               K, c->ops->name, genesis_ctx_device_name(ctx), bs->path, "buffer", "floats", "MiB",
               "us/call", "busbw GB/s");
    for (int i = 0; i < ns; i++) {
        int reps = sizes[i] > (1u << 20) ? 20 : 200;
        tcall[i] = time_allreduce(c, be, buf, sizes[i], reps);
        if (c->rank == 0)
            printf("%-36s %10zu %10.3f %12.1f %12.3f\n", what[i], sizes[i],
                   sizes[i] * 4.0 / 1048576.0, tcall[i] * 1e6,
                   2.0 * (K - 1) / K * sizes[i] * 4.0 / tcall[i] / 1e9);
    }
    if (c->rank == 0) {
        /* per CTGAN step (1 discriminator step): batch norm 4 + 4 forward reductions of gdim
         * floats, 2 backward of 2 gdim, then the D and G gradient arenas; TVAE: one. */
        double ct = 8 * tcall[0] + 2 * tcall[1] + tcall[3] + tcall[4];
        printf("per CTGAN step: 12 calls, %.3f MiB, %.1f us;  per TVAE step: 1 call, %.3f MiB, %.1f us\n",
               (12.0 * gdim + bs->cg + bs->cd + 2 * CT_RED_TAIL) * 4 / 1048576.0, ct * 1e6,
               (bs->tg + TV_RED_TAIL) * 4.0 / 1048576.0, tcall[2] * 1e6);
    }
    be->ops->free(be, buf);
    gen_backend_free(be);
    return 0;
}

typedef struct team_job {
    genesis_team *team;
    genesis_dist_kind kind;
    int rank, rc;
    const bench_sizes *bs;
} team_job;

static void *team_rank(void *arg) {
    team_job *j = arg;
    genesis_ctx *ctx = NULL;
    j->rc = 1;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return NULL;
    genesis_ctx_set_threads(ctx, 1);
    genesis_ctx_set_device(ctx, j->kind == GENESIS_DIST_NCCL ? GENESIS_DEVICE_CUDA : GENESIS_DEVICE_CPU, 0);
    const char *g = getenv("BENCH_GPUS");
    int ng = g ? atoi(g) : 1, list[64];
    for (int i = 0; i < 64; i++) list[i] = i;
    genesis_ctx_set_devices(ctx, list, ng >= 1 && ng <= 64 ? ng : 1);
    if (genesis_ctx_join_team(ctx, j->team, j->rank, j->kind) != GENESIS_OK) {
        fprintf(stderr, "bench_allreduce: rank %d: %s\n", j->rank, genesis_errmsg(ctx));
        genesis_ctx_free(ctx);
        return NULL;
    }
    j->rc = bench_rank(ctx, j->bs);
    genesis_ctx_free(ctx);
    return NULL;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "data/adult_sample.csv";
    int team_k = 0;
    genesis_dist_kind team_kind = GENESIS_DIST_THREADS;
    if (argc == 5 && !strcmp(argv[2], "--team")) {
        team_k = atoi(argv[3]);
        team_kind = !strcmp(argv[4], "nccl") ? GENESIS_DIST_NCCL : GENESIS_DIST_THREADS;
        if (team_k < 1 || team_k > 64) return 2;
    } else if (argc > 2) {
        fprintf(stderr, "usage: bench_allreduce [data.csv] [--team K threads|nccl]\n");
        return 2;
    }
    genesis_ctx *ctx = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 1;
    genesis_ctx_set_threads(ctx, 1);
    genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    genesis_table *t = NULL;
    /* model sizes first, on one rank's own (undistributed) context */
    if (genesis_table_read_csv(ctx, path, &co, &t) != GENESIS_OK) {
        fprintf(stderr, "bench_allreduce: %s\n", genesis_errmsg(ctx));
        return 1;
    }
    bench_sizes bs = {0, 0, 0, 256, path};
    size_t td;
    int tdim = 128;
    model_floats(ctx, t, GENESIS_MODEL_CTGAN, &bs.cg, &bs.cd, &bs.gdim);
    model_floats(ctx, t, GENESIS_MODEL_TVAE, &bs.tg, &td, &tdim);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    ctx = NULL;

    if (team_k > 0) {
        genesis_team *team = NULL;
        if (genesis_team_create(team_k, &team) != GENESIS_OK) return 1;
        team_job jobs[64];
        pthread_t th[64];
        for (int r = 0; r < team_k; r++) {
            team_job j = {team, team_kind, r, 1, &bs};
            jobs[r] = j;
            pthread_create(&th[r], NULL, team_rank, &jobs[r]);
        }
        int rc = 0;
        for (int r = 0; r < team_k; r++) {
            pthread_join(th[r], NULL);
            rc |= jobs[r].rc;
        }
        genesis_team_free(team);
        return rc;
    }
    if (!genesis_dist_supported(GENESIS_DIST_MPI)) {
        printf("bench_allreduce: this build has no MPI support (use --team K threads|nccl)\n");
        return 0;
    }
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    if (genesis_ctx_set_distributed(ctx, GENESIS_DIST_MPI) != GENESIS_OK) {
        fprintf(stderr, "bench_allreduce: %s\n", genesis_errmsg(ctx));
        return 1;
    }
    int rc = bench_rank(ctx, &bs);
    genesis_ctx_free(ctx);
    return rc;
}
