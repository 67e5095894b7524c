/*
 * comm_threads.c — ranks that are threads of one process (comm.h; docs/algorithms.md §E4):
 * a genesis_team holds what the K threads share. The all-reduce is a reduce-scatter then
 * all-gather through one shared buffer, summing every element over ranks in rank order
 * 0, 1, ..., K-1, so every rank gets the same bits on every run, whatever the scheduling.
 * Two pthread barriers per call. A GPU backend's buffer is staged through host memory; for
 * GPUs the NCCL communicator is the fast path and uses a team only to bootstrap and for the
 * host-side control collectives (cuda/comm_nccl.cu). Uses: CPU CI without MPI, and several
 * GPUs (or several ranks on one GPU) driven by one process.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "comm.h"

struct genesis_team {
    int size;
    pthread_barrier_t bar;
    const void **ptr;        /* [size] each rank's buffer during a collective */
    void *scratch;           /* the reduced buffer (rank 0 grows it before the first barrier) */
    size_t scratch_cap;
};

typedef struct team_comm {
    genesis_team *team;
    float *stage;            /* host staging for non-host backends */
    size_t stage_cap;
} team_comm;

genesis_status genesis_team_create(int size, genesis_team **out) {
    if (!out || size < 1 || size > 4096) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    genesis_team *t = calloc(1, sizeof *t);
    if (!t) return GENESIS_ERR_NOMEM;
    t->size = size;
    t->ptr = calloc((size_t)size, sizeof *t->ptr);
    if (!t->ptr || pthread_barrier_init(&t->bar, NULL, (unsigned)size) != 0) {
        free(t->ptr);
        free(t);
        return GENESIS_ERR_NOMEM;
    }
    *out = t;
    return GENESIS_OK;
}

int gen_team_size(const genesis_team *t) { return t ? t->size : 0; }

void genesis_team_free(genesis_team *t) {
    if (!t) return;
    pthread_barrier_destroy(&t->bar);
    free(t->ptr);
    free(t->scratch);
    free(t);
}

static void team_wait(genesis_team *t) { pthread_barrier_wait(&t->bar); }

/* Element range of rank r in the reduce-scatter: [n r / K, n (r + 1) / K). */
static size_t lo_of(size_t n, int r, int K) { return (size_t)((unsigned long long)n * (unsigned)r / (unsigned)K); }

/* x (n values of `elem` bytes, on the host) = sum over ranks, in rank order. */
static genesis_status team_reduce(gen_comm *c, void *x, size_t n, int is_double) {
    genesis_team *t = ((team_comm *)c->impl)->team;
    size_t elem = is_double ? sizeof(double) : sizeof(float);
    int K = t->size, r = c->rank;
    if (r == 0 && t->scratch_cap < n * elem) { /* nobody touches scratch before the barrier */
        void *s = realloc(t->scratch, n * elem);
        if (s) {
            t->scratch = s;
            t->scratch_cap = n * elem;
        }
    }
    t->ptr[r] = x;
    team_wait(t);
    if (t->scratch_cap < n * elem) { /* rank 0 could not grow it: everyone sees that */
        team_wait(t);
        return gen_set_error(c->ctx, GENESIS_ERR_NOMEM, "out of memory in an all-reduce");
    }
    size_t lo = lo_of(n, r, K), hi = lo_of(n, r + 1, K);
    if (is_double) {
        double *s = t->scratch;
        for (size_t i = lo; i < hi; i++) {
            double v = 0;
            for (int q = 0; q < K; q++) v += ((const double *)t->ptr[q])[i];
            s[i] = v;
        }
    } else {
        float *s = t->scratch;
        for (size_t i = lo; i < hi; i++) {
            float v = ((const float *)t->ptr[0])[i];
            for (int q = 1; q < K; q++) v += ((const float *)t->ptr[q])[i];
            s[i] = v;
        }
    }
    team_wait(t);
    memcpy(x, t->scratch, n * elem);
    /* the next collective's first barrier keeps scratch until every rank has copied it */
    return GENESIS_OK;
}

static int backend_is_host(const gen_backend *be) { return strcmp(be->ops->name, "cpu") == 0; }

static genesis_status team_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n) {
    team_comm *m = c->impl;
    float *buf = x;
    int host = backend_is_host(be);
    if (!host) {
        if (m->stage_cap < n) {
            float *s = realloc(m->stage, n * sizeof(float));
            if (s) {
                m->stage = s;
                m->stage_cap = n;
            }
        }
        /* a rank that cannot stage still takes part (with zeros), then reports */
        buf = m->stage_cap >= n ? m->stage : NULL;
        if (buf) be->ops->download(be, buf, x, n * sizeof(float));
    }
    if (!buf) { /* out of memory: take part with zeros so that no rank waits, then report */
        float *zero = calloc(n ? n : 1, sizeof(float));
        if (zero) team_reduce(c, zero, n, 0);
        free(zero);
        return gen_set_error(c->ctx, GENESIS_ERR_NOMEM, "out of memory staging an all-reduce");
    }
    GEN_TRY(team_reduce(c, buf, n, 0));
    if (!host) be->ops->upload(be, x, buf, n * sizeof(float));
    return GENESIS_OK;
}

static genesis_status team_allreduce_host(gen_comm *c, double *x, size_t n) {
    return team_reduce(c, x, n, 1);
}

static genesis_status team_broadcast_host(gen_comm *c, void *buf, size_t bytes, int root) {
    genesis_team *t = ((team_comm *)c->impl)->team;
    if (c->rank == root) t->ptr[root] = buf;
    team_wait(t);
    if (c->rank != root) memcpy(buf, t->ptr[root], bytes);
    team_wait(t); /* root's buffer stays valid until every rank has copied it */
    return GENESIS_OK;
}

static genesis_status team_barrier(gen_comm *c) {
    team_wait(((team_comm *)c->impl)->team);
    return GENESIS_OK;
}

/* The job is this process: stopping every rank means stopping it (the application asked,
 * through genesis_ctx_abort, as MPI_Abort would). */
static void team_abort(gen_comm *c, int code) {
    fprintf(stderr, "genesis: rank %d of %d (threads) stopped the process\n", c->rank, c->size);
    fflush(stderr);
    _Exit(code);
}

static void team_destroy(gen_comm *c) {
    team_comm *m = c->impl;
    if (m) free(m->stage);
    free(m);
    free(c);
}

static const gen_comm_ops team_ops = {
    .name = "threads",
    .allreduce_sum = team_allreduce_sum,
    .allreduce_host = team_allreduce_host,
    .broadcast_host = team_broadcast_host,
    .barrier = team_barrier,
    .abort = team_abort,
    .destroy = team_destroy,
};

genesis_status gen_comm_team_create(genesis_ctx *ctx, genesis_team *team, int rank, gen_comm **out) {
    *out = NULL;
    gen_comm *c = calloc(1, sizeof *c);
    team_comm *m = calloc(1, sizeof *m);
    if (!c || !m) {
        free(c);
        free(m);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating a team communicator");
    }
    m->team = team;
    c->ops = &team_ops;
    c->ctx = ctx;
    c->rank = c->local_rank = rank;
    c->size = c->local_size = team->size;
    c->impl = m;
    *out = c;
    return GENESIS_OK;
}
