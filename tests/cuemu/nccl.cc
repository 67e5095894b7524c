/*
 * nccl.cc (Genesis CUDA emulator) — NCCL for ranks that are threads of one process (the
 * genesis_team case of cuda/comm_nccl.cu), as the NCCL API documentation describes it:
 *   - ncclGetUniqueId makes an id; ncclCommInitRank blocks until all nranks ranks of that
 *     id have joined (a "clique");
 *   - ncclAllReduce checks its arguments, then is queued on the stream like a kernel; when
 *     the stream runs it, the rank waits (with the emulator's global lock released, so the
 *     other ranks' threads can run their streams) until every rank has reached the same
 *     collective; the last to arrive reduces the ranks' buffers in rank order (so results
 *     are reproducible) into every receive buffer (in place allowed);
 *   - a device-wide synchronisation (cudaFree, cudaDeviceSynchronize) on the host thread
 *     of a rank while a peer has queued a collective that rank has not issued is refused
 *     (gen_cuemu_nccl_sync_hazard): on a GPU the two would wait for each other forever;
 *   - ncclCommAbort wakes every waiting rank with an error (a sticky launch failure of its
 *     stream, as a failed NCCL kernel would be) and makes ncclCommGetAsyncError of the
 *     others report ncclRemoteError; ncclCommDestroy leaves the clique.
 * Supported: ncclFloat and ncclDouble with sum, prod, max, min, avg. Collectives must be
 * issued in the same order by every rank (NCCL's rule); counts, types and operations are
 * checked to agree. All state is guarded by the emulator's global lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuemu_internal.h"
#include "nccl.h"

typedef struct clique {
    struct clique *next;
    char id[NCCL_UNIQUE_ID_BYTES];
    int nranks, joined, members, aborted;
    struct ncclComm **rank;
    /* the collective being gathered */
    uint64_t round;
    int arrived;
    const void **send;
    void **recv;
    size_t *count;
    int *dtype, *op;
    pthread_cond_t cv;
} clique;

struct ncclComm {
    clique *cl;
    int rank;
    uint64_t seq; /* collectives queued so far */
    pthread_t thread; /* the thread that joined (its rank's host thread) */
    char last[256];
};

typedef struct allreduce_args {
    ncclComm_t comm;
    uint64_t seq;
    const void *send;
    void *recv;
    size_t count;
    int dtype, op;
} allreduce_args;

static clique *g_cliques;
static unsigned long long g_ids;

ncclResult_t ncclGetVersion(int *version) {
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    }
    return "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm) { return comm ? comm->last : ""; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    if (!id) return ncclInvalidArgument;
    memset(id, 0, sizeof *id);
    gen_cuemu_lock();
    unsigned long long n = ++g_ids;
    gen_cuemu_unlock();
    snprintf(id->internal, sizeof id->internal, "genesis-cuemu-nccl %ld %llu", (long)getpid(), n);
    return ncclSuccess;
}

static void clique_free(clique *c) {
    clique **pp = &g_cliques;
    while (*pp && *pp != c) pp = &(*pp)->next;
    if (*pp) *pp = c->next;
    pthread_cond_destroy(&c->cv);
    free(c->rank);
    free(c->send);
    free(c->recv);
    free(c->count);
    free(c->dtype);
    free(c->op);
    free(c);
}

static clique *clique_new(const ncclUniqueId *id, int nranks) {
    clique *c = (clique *)calloc(1, sizeof *c);
    if (!c) return NULL;
    memcpy(c->id, id->internal, sizeof c->id);
    c->nranks = nranks;
    c->rank = (ncclComm **)calloc((size_t)nranks, sizeof *c->rank);
    c->send = (const void **)calloc((size_t)nranks, sizeof *c->send);
    c->recv = (void **)calloc((size_t)nranks, sizeof *c->recv);
    c->count = (size_t *)calloc((size_t)nranks, sizeof *c->count);
    c->dtype = (int *)calloc((size_t)nranks, sizeof *c->dtype);
    c->op = (int *)calloc((size_t)nranks, sizeof *c->op);
    pthread_cond_init(&c->cv, NULL);
    if (!c->rank || !c->send || !c->recv || !c->count || !c->dtype || !c->op) {
        clique_free(c);
        return NULL;
    }
    c->next = g_cliques;
    g_cliques = c;
    return c;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
    *comm = NULL;
    ncclComm *m = (ncclComm *)calloc(1, sizeof *m);
    if (!m) return ncclSystemError;
    gen_cuemu_lock();
    clique *c = g_cliques;
    while (c && memcmp(c->id, id.internal, sizeof c->id) != 0) c = c->next;
    if (!c) c = clique_new(&id, nranks);
    ncclResult_t r = ncclSuccess;
    if (!c) r = ncclSystemError;
    else if (c->nranks != nranks || c->rank[rank] || c->joined == nranks) r = ncclInvalidUsage;
    if (r != ncclSuccess) {
        gen_cuemu_unlock();
        free(m);
        return r;
    }
    m->cl = c;
    m->rank = rank;
    m->thread = pthread_self();
    c->rank[rank] = m;
    c->joined++;
    c->members++;
    pthread_cond_broadcast(&c->cv);
    while (c->joined < c->nranks && !c->aborted) gen_cuemu_wait(&c->cv); /* all ranks join */
    r = c->aborted ? ncclRemoteError : ncclSuccess;
    gen_cuemu_unlock();
    *comm = m;
    return r;
}

/* Leaves the clique (lock held); the last member frees it. */
static void comm_leave(ncclComm *m, int abort) {
    clique *c = m->cl;
    if (abort) c->aborted = 1;
    c->rank[m->rank] = NULL;
    pthread_cond_broadcast(&c->cv);
    if (--c->members == 0) clique_free(c);
    free(m);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    gen_cuemu_lock();
    comm_leave(comm, 0);
    gen_cuemu_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    gen_cuemu_lock();
    comm_leave(comm, 1);
    gen_cuemu_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error) {
    if (!comm || !async_error) return ncclInvalidArgument;
    gen_cuemu_lock();
    *async_error = comm->cl->aborted ? ncclRemoteError : ncclSuccess;
    gen_cuemu_unlock();
    return ncclSuccess;
}

int gen_cuemu_nccl_sync_hazard(char *msg, size_t cap) {
    for (clique *c = g_cliques; c; c = c->next) {
        if (c->aborted) continue;
        for (int me = 0; me < c->nranks; me++) {
            ncclComm *m = c->rank[me];
            if (!m || !pthread_equal(m->thread, pthread_self())) continue;
            for (int p = 0; p < c->nranks; p++)
                if (c->rank[p] && c->rank[p]->seq > m->seq) {
                    snprintf(msg, cap, "NCCL rank %d has queued all-reduce #%llu, which waits "
                             "for rank %d (this thread), which has not issued it yet", p,
                             (unsigned long long)m->seq, me);
                    return 1;
                }
        }
    }
    return 0;
}

static size_t dtype_size(int t) { return t == ncclDouble ? 8 : 4; }

template <typename T> static void reduce(clique *c, size_t n, int op) {
    T *acc = (T *)malloc(n * sizeof(T) + 1);
    if (!acc) return;
    memcpy(acc, c->send[0], n * sizeof(T));
    for (int r = 1; r < c->nranks; r++) {
        const T *x = (const T *)c->send[r];
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case ncclProd: acc[i] *= x[i]; break;
            case ncclMax: acc[i] = x[i] > acc[i] ? x[i] : acc[i]; break;
            case ncclMin: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
            default: acc[i] += x[i]; break; /* sum, avg */
            }
        }
    }
    if (op == ncclAvg)
        for (size_t i = 0; i < n; i++) acc[i] /= (T)c->nranks;
    for (int r = 0; r < c->nranks; r++) memcpy(c->recv[r], acc, n * sizeof(T));
    free(acc);
}

/* Runs on the rank's stream (lock held; released while waiting for the other ranks). */
static int allreduce_run(void *arg, char *msg, size_t cap) {
    allreduce_args *a = (allreduce_args *)arg;
    clique *c = a->comm->cl;
    int me = a->comm->rank;
    while (c->round != a->seq && !c->aborted) gen_cuemu_wait(&c->cv); /* earlier collective */
    if (!c->aborted) {
        c->send[me] = a->send;
        c->recv[me] = a->recv;
        c->count[me] = a->count;
        c->dtype[me] = a->dtype;
        c->op[me] = a->op;
        if (++c->arrived == c->nranks) {
            for (int r = 1; r < c->nranks; r++)
                if (c->count[r] != c->count[0] || c->dtype[r] != c->dtype[0] ||
                    c->op[r] != c->op[0]) {
                    snprintf(msg, cap, "ncclAllReduce #%llu: rank %d has count %zu type %d op "
                             "%d, rank 0 count %zu type %d op %d", (unsigned long long)a->seq, r,
                             c->count[r], c->dtype[r], c->op[r], c->count[0], c->dtype[0],
                             c->op[0]);
                    c->aborted = 1;
                    pthread_cond_broadcast(&c->cv);
                    return cudaErrorLaunchFailure;
                }
            if (a->dtype == ncclDouble) reduce<double>(c, a->count, a->op);
            else reduce<float>(c, a->count, a->op);
            c->arrived = 0;
            c->round++;
            pthread_cond_broadcast(&c->cv);
            return 0;
        }
        while (c->round == a->seq && !c->aborted) gen_cuemu_wait(&c->cv);
        if (c->round > a->seq) return 0;
    }
    snprintf(msg, cap, "ncclAllReduce #%llu on rank %d: the communicator was aborted",
             (unsigned long long)a->seq, me);
    return cudaErrorLaunchFailure;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
    if (!comm) return ncclInvalidArgument;
    if (datatype != ncclFloat && datatype != ncclDouble) {
        snprintf(comm->last, sizeof comm->last, "the emulator reduces ncclFloat and ncclDouble "
                 "only");
        return ncclInvalidArgument;
    }
    if (op < ncclSum || op > ncclAvg) return ncclInvalidArgument;
    size_t bytes = count * dtype_size(datatype);
    gen_cuemu_lock();
    ncclResult_t r = ncclSuccess;
    if (count && (!gen_cuemu_device_range(sendbuff, bytes) ||
                  !gen_cuemu_device_range(recvbuff, bytes))) {
        snprintf(comm->last, sizeof comm->last, "ncclAllReduce: a buffer of %zu bytes is not "
                 "inside one device allocation", bytes);
        r = ncclInvalidArgument;
    } else if (gen_cuemu_sticky() != cudaSuccess) {
        r = ncclUnhandledCudaError;
    } else {
        allreduce_args *a = (allreduce_args *)calloc(1, sizeof *a);
        if (!a) {
            r = ncclSystemError;
        } else {
            a->comm = comm;
            a->seq = comm->seq++;
            a->send = sendbuff;
            a->recv = recvbuff;
            a->count = count;
            a->dtype = datatype;
            a->op = op;
            if (gen_cuemu_enqueue_fn(stream, "ncclAllReduce", allreduce_run, free, a) !=
                cudaSuccess)
                r = ncclUnhandledCudaError;
        }
    }
    gen_cuemu_unlock();
    return r;
}
