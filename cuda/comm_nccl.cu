/*
 * comm_nccl.cu — the NCCL communicator (src/comm.h): one rank per GPU (or several ranks on one
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
 * Status: compile-checked only; bench/nccl_run.sh is the first GPU run.
 */
#ifdef GEN_HAVE_NCCL
#include <nccl.h>
#include <stdio.h>
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
} nccl_comm;

static genesis_status nccl_fail(gen_comm *c, ncclResult_t r, const char *what) {
    return gen_set_error(c->ctx, GENESIS_ERR_CUDA, "NCCL %s failed on rank %d: %s (%s)", what,
                         c->rank, ncclGetErrorString(r), ncclGetLastError(NULL));
}

static genesis_status nccl_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n) {
    nccl_comm *m = (nccl_comm *)c->impl;
    if (strcmp(be->ops->name, "cpu") == 0) /* a CPU backend: host memory, so use MPI */
        return m->boot->ops->allreduce_sum(m->boot, be, x, n);
    gen_cuda *cu = gen_cuda_of(be);
    if (cu->status != GENESIS_OK) return cu->status;
    ncclResult_t r = ncclAllReduce(x, x, n, ncclFloat, ncclSum, m->comm, cu->stream);
    if (r != ncclSuccess) return nccl_fail(c, r, "ncclAllReduce");
    /* asynchronous NCCL errors (a peer died, a network failure) surface here */
    ncclResult_t async = ncclSuccess;
    if (ncclCommGetAsyncError(m->comm, &async) == ncclSuccess && async != ncclSuccess)
        return nccl_fail(c, async, "all-reduce (asynchronous error)");
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
    if (m->comm) ncclCommAbort(m->comm);
    m->comm = NULL;
    m->boot->ops->abort(m->boot, code);
}

static void nccl_destroy(gen_comm *c) {
    nccl_comm *m = (nccl_comm *)c->impl;
    if (m) {
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

/* the module's entry point for src/cuda_module.c */
extern "C" __attribute__((visibility("default"))) genesis_status genesis_cuda_module_nccl_create(
    genesis_ctx *ctx, gen_comm *boot, int device, gen_comm **out) {
    return gen_comm_nccl_create(ctx, boot, device, out);
}
#endif /* GEN_HAVE_NCCL */
