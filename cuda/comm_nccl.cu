/*
 * comm_nccl.cu — the NCCL communicator (src/comm/comm.h): one rank per GPU (or several ranks on one
 * GPU), one process per rank started with mpirun, or one thread per rank. Bootstrap as the NCCL user guide's "Example 2: One Device per Process
 * or Thread" (docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/communicators.html):
 * rank 0 calls ncclGetUniqueId, the 128-byte id is broadcast over the bootstrap communicator
 * (`boot`: MPI, or a team of threads), every rank calls cudaSetDevice, then ncclCommInitRank. The gradient
 * all-reduce is ncclAllReduce(ncclFloat, ncclSum) in place on the backend's stream, so it is
 * ordered after the backward pass and before Adam without a host synchronisation. Host-side
 * control collectives (agreeing on errors, checking the data) go through `boot`.
 * The same code bootstraps ranks that are threads of one process over a genesis_team
 * (comm_threads.c; NCCL's "one device per thread" case). Two ranks on one GPU need NCCL >= 2.30
 * and NCCL_MULTI_RANK_GPU_ENABLE=1 (docs/algorithms.md §E4). Compiled when CMake finds NCCL
 * with CUDA (GEN_HAVE_NCCL).
 * Failures: every rank enters every collective. A rank whose backend has failed still takes
 * part in the all-reduce with a buffer of NaN (its peers then see a non-finite sum and stop
 * with it, as for a diverged step); when even that cannot be queued it aborts the
 * communicator. The backend's host waits poll ncclCommGetAsyncError (nccl_wait), so a
 * collective that can never finish ends in an error with NCCL's text, never in a wait
 * without end.
 * Status: compile-checked only; bench/nccl_run.sh is the first GPU run.
 */
#ifdef GEN_HAVE_NCCL
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"
extern "C" {
#include "comm.h"
}

typedef struct nccl_comm {
    ncclComm_t comm;
    gen_comm *boot;  /* the MPI communicator: bootstrap and host collectives */
    int device;
    gen_cuda *cu;    /* the backend whose host waits watch this communicator (or NULL) */
    struct nccl_comm *next; /* the module's list of live communicators (g_live) */
} nccl_comm;

/* Live communicators, so that a backend destroyed before its communicator is forgotten. */
static pthread_mutex_t g_live_mu = PTHREAD_MUTEX_INITIALIZER;
static nccl_comm *g_live;

static void live_remove(nccl_comm *m) {
    pthread_mutex_lock(&g_live_mu);
    for (nccl_comm **p = &g_live; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    if (m->cu && m->cu->wait_arg == m) {
        m->cu->wait = NULL;
        m->cu->wait_arg = NULL;
    }
    m->cu = NULL;
    pthread_mutex_unlock(&g_live_mu);
}

extern "C" void gen_nccl_forget_backend(gen_cuda *cu) {
    pthread_mutex_lock(&g_live_mu);
    for (nccl_comm *m = g_live; m; m = m->next)
        if (m->cu == cu) m->cu = NULL;
    pthread_mutex_unlock(&g_live_mu);
}

static genesis_status nccl_fail(gen_comm *c, ncclResult_t r, const char *what) {
    return gen_set_error(c->ctx, GENESIS_ERR_CUDA, "NCCL %s failed on rank %d: %s (%s)", what,
                         c->rank, ncclGetErrorString(r), ncclGetLastError(NULL));
}

/* Aborts the communicator (NCCL's way out of a collective that cannot finish: its kernels
 * return and every later call on it fails) and records `what` on the backend. */
static genesis_status nccl_give_up(nccl_comm *m, gen_comm *c, gen_cuda *cu, ncclResult_t r,
                                   const char *what) {
    if (m->comm) ncclCommAbort(m->comm);
    m->comm = NULL;
    char detail[512];
    snprintf(detail, sizeof detail, "NCCL %s on rank %d of %d: %s", what, c->rank, c->size,
             ncclGetErrorString(r));
    if (cu) return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "nccl", __FILE__, __LINE__, detail);
    return gen_set_error(c->ctx, GENESIS_ERR_CUDA, "%s", detail);
}

/* The backend's host wait while NCCL work may be on its stream: poll the stream (or event)
 * and the communicator's asynchronous error, so a collective that a failed peer never
 * joins ends in an error here instead of a wait without end (NCCL user guide, "Fault
 * tolerance": poll ncclCommGetAsyncError, then ncclCommAbort). */
static genesis_status nccl_wait(gen_cuda *cu, cudaEvent_t ev, void *arg) {
    nccl_comm *m = (nccl_comm *)arg;
    for (unsigned polls = 0;; polls++) {
        cudaError_t e = ev ? cudaEventQuery(ev) : cudaStreamQuery(cu->stream);
        if (e == cudaSuccess) return GENESIS_OK;
        if (e != cudaErrorNotReady)
            return gen_cuda_fail(cu, GENESIS_ERR_CUDA,
                                 ev ? "cudaEventSynchronize (polled)" : "cudaStreamSynchronize (polled)",
                                 __FILE__, __LINE__, cudaGetErrorString(e));
        ncclResult_t async = ncclSuccess;
        if (m->comm && ncclCommGetAsyncError(m->comm, &async) == ncclSuccess &&
            async != ncclSuccess && async != ncclInProgress) {
            if (m->comm) ncclCommAbort(m->comm);
            m->comm = NULL;
            char detail[512];
            snprintf(detail, sizeof detail,
                     "NCCL reported an asynchronous error while this rank waited for its GPU "
                     "(a peer rank failed or the network broke): %s", ncclGetErrorString(async));
            return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "ncclCommGetAsyncError", __FILE__, __LINE__,
                                 detail);
        }
        if (polls < 64) continue; /* short waits: spin */
        struct timespec ts = {0, 20000}; /* then every 20 us */
        nanosleep(&ts, NULL);
    }
}

static genesis_status nccl_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n) {
    nccl_comm *m = (nccl_comm *)c->impl;
    if (strcmp(be->ops->name, "cpu") == 0) /* a CPU backend: host memory, so use MPI */
        return m->boot->ops->allreduce_sum(m->boot, be, x, n);
    gen_cuda *cu = gen_cuda_of(be);
    if (!m->comm) /* aborted earlier: the peers know (their waits failed) */
        return cu->status != GENESIS_OK ? cu->status
                                        : gen_set_error(c->ctx, GENESIS_ERR_CUDA,
                                                        "NCCL: the communicator was aborted");
    if (cu->wait_arg != m) { /* this backend's host waits now watch the communicator */
        pthread_mutex_lock(&g_live_mu);
        m->cu = cu;
        cu->wait = nccl_wait;
        cu->wait_arg = m;
        pthread_mutex_unlock(&g_live_mu);
    }
    if (cu->status != GENESIS_OK) {
        /* Every rank enters every collective (docs/distributed.md): a rank whose backend
         * failed still takes part, with NaN, and goes on with its peers to the end of the
         * epoch, where all of them see the non-finite sums (this rank then returns its CUDA
         * error, the others a divergence). It waits for each such collective itself, since
         * nothing else of its stream will (its operations do nothing now). When even that
         * cannot be queued, abort, so no peer waits forever. */
        cudaSetDevice(cu->device);
        cudaGetLastError();
        cudaError_t e = cudaMemsetAsync(x, 0xff, n * sizeof(float), cu->stream);
        ncclResult_t r = e == cudaSuccess
                             ? ncclAllReduce(x, x, n, ncclFloat, ncclSum, m->comm, cu->stream)
                             : ncclUnhandledCudaError;
        if (e != cudaSuccess || r != ncclSuccess) {
            nccl_give_up(m, c, NULL, r, "abort after a GPU failure");
            return cu->status;
        }
        nccl_wait(cu, NULL, m);
        return m->comm ? GENESIS_OK : cu->status;
    }
    ncclResult_t r = ncclAllReduce(x, x, n, ncclFloat, ncclSum, m->comm, cu->stream);
    if (r != ncclSuccess) return nccl_give_up(m, c, cu, r, "ncclAllReduce failed");
    /* asynchronous NCCL errors (a peer died, a network failure) surface here and in every
     * later host wait (nccl_wait) */
    ncclResult_t async = ncclSuccess;
    if (ncclCommGetAsyncError(m->comm, &async) == ncclSuccess && async != ncclSuccess &&
        async != ncclInProgress)
        return nccl_give_up(m, c, cu, async, "all-reduce (asynchronous error)");
    return GENESIS_OK;
}

static genesis_status nccl_allreduce_host(gen_comm *c, double *x, size_t n) {
    nccl_comm *m = (nccl_comm *)c->impl;
    return m->boot->ops->allreduce_host(m->boot, x, n);
}

static genesis_status nccl_broadcast_host(gen_comm *c, void *buf, size_t bytes, int root) {
    nccl_comm *m = (nccl_comm *)c->impl;
    return m->boot->ops->broadcast_host(m->boot, buf, bytes, root);
}

static genesis_status nccl_barrier(gen_comm *c) {
    nccl_comm *m = (nccl_comm *)c->impl;
    return m->boot->ops->barrier(m->boot);
}

static void nccl_abort(gen_comm *c, int code) {
    nccl_comm *m = (nccl_comm *)c->impl;
    live_remove(m);
    if (m->comm) ncclCommAbort(m->comm);
    m->comm = NULL;
    m->boot->ops->abort(m->boot, code);
}

static void nccl_destroy(gen_comm *c) {
    nccl_comm *m = (nccl_comm *)c->impl;
    if (m) {
        live_remove(m);
        if (m->comm) ncclCommDestroy(m->comm);
        gen_comm_free(m->boot);
        free(m);
    }
    free(c);
}

static const gen_comm_ops nccl_ops = {
    "nccl",           nccl_allreduce_sum, nccl_allreduce_host, nccl_broadcast_host,
    nccl_barrier,     nccl_abort,         nccl_destroy,
};

extern "C" genesis_status gen_comm_nccl_create(genesis_ctx *ctx, gen_comm *boot, int device,
                                               gen_comm **out) {
    *out = NULL;
    int ndev = 0;
    cudaError_t ce = cudaGetDeviceCount(&ndev);
    int mine = ce != cudaSuccess || device >= ndev;
    /* every rank learns whether any rank lacks its GPU before anyone waits in NCCL */
    int bad = gen_comm_agree(boot, mine);
    if (bad) {
        int rank = boot->rank;
        gen_comm_free(boot);
        if (!mine)
            return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                                 "NCCL: %d other rank(s) found no GPU for them; see their messages", bad);
        return gen_set_error(ctx, GENESIS_ERR_UNSUPPORTED,
                             "NCCL: rank %d wants GPU %d but %d GPU(s) are visible (%s); use "
                             "--distributed mpi on CPU machines",
                             rank, device, ce == cudaSuccess ? ndev : 0,
                             ce == cudaSuccess ? "check --devices" : cudaGetErrorString(ce));
    }
    gen_comm *c = (gen_comm *)calloc(1, sizeof *c);
    nccl_comm *m = (nccl_comm *)calloc(1, sizeof *m);
    if (!c || !m) {
        free(c);
        free(m);
        gen_comm_free(boot);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating the NCCL communicator");
    }
    c->ops = &nccl_ops;
    c->ctx = ctx;
    c->rank = boot->rank;
    c->size = boot->size;
    c->local_rank = boot->local_rank;
    c->local_size = boot->local_size;
    c->impl = m;
    m->boot = boot;
    m->device = device;
    pthread_mutex_lock(&g_live_mu);
    m->next = g_live;
    g_live = m;
    pthread_mutex_unlock(&g_live_mu);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t r = ncclSuccess;
    if (c->rank == 0) r = ncclGetUniqueId(&id);
    /* every rank learns whether rank 0 got an id before anyone waits in ncclCommInitRank */
    genesis_status st = GENESIS_OK;
    if (gen_comm_agree(boot, r != ncclSuccess)) st = gen_set_error(ctx, GENESIS_ERR_CUDA, "ncclGetUniqueId failed on rank 0");
    if (st == GENESIS_OK) st = boot->ops->broadcast_host(boot, &id, sizeof id, 0);
    if (st == GENESIS_OK && cudaSetDevice(device) != cudaSuccess)
        st = gen_set_error(ctx, GENESIS_ERR_CUDA, "cudaSetDevice(%d) failed on rank %d", device, c->rank);
    if (st == GENESIS_OK) {
        r = ncclCommInitRank(&m->comm, c->size, id, c->rank);
        if (r != ncclSuccess) {
            m->comm = NULL;
            st = nccl_fail(c, r, "ncclCommInitRank (two ranks on one GPU need NCCL >= 2.30 and "
                                 "NCCL_MULTI_RANK_GPU_ENABLE=1)");
        }
    }
    if (st != GENESIS_OK) {
        nccl_destroy(c);
        return st;
    }
    *out = c;
    return GENESIS_OK;
}

/* the module's entry point for src/backend/cuda_module.c */
extern "C" __attribute__((visibility("default"))) genesis_status genesis_cuda_module_nccl_create(
    genesis_ctx *ctx, gen_comm *boot, int device, gen_comm **out) {
    return gen_comm_nccl_create(ctx, boot, device, out);
}
#endif /* GEN_HAVE_NCCL */
