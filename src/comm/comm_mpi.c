/*
 * comm_mpi.c — the MPI communicator (comm.h) over MPI_COMM_WORLD: CPU ranks started with
 * `mpirun -np K genesis fit ...`. The all-reduce is MPI_Allreduce(MPI_IN_PLACE, MPI_SUM) on
 * the gradient buffer; a GPU backend's buffer is staged through a host copy (NCCL is the
 * fast path there: cuda/comm_nccl.cu). MPI_Init is called only when nobody has (an embedding
 * application may have initialised MPI itself; then it also finalises it). The local rank
 * (for the GPU choice) comes from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
 * Compiled only when CMake found MPI (GEN_HAVE_MPI).
 */
#ifdef GEN_HAVE_MPI
#include <mpi.h>
#include <string.h>

#include "comm.h"

typedef struct mpi_comm {
    MPI_Comm world;              /* a duplicate of MPI_COMM_WORLD: our messages stay ours */
    int we_initialised;
    float *stage;                /* host staging for non-host backends */
    size_t stage_cap;
} mpi_comm;

static genesis_status mpi_fail(gen_comm *c, int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return gen_set_error(c->ctx, GENESIS_ERR_IO, "MPI %s failed on rank %d: %s", what, c->rank, msg);
}

static int backend_is_host(const gen_backend *be) { return strcmp(be->ops->name, "cpu") == 0; }

static genesis_status mpi_allreduce_sum(gen_comm *c, gen_backend *be, float *x, size_t n) {
    mpi_comm *m = c->impl;
    float *buf = x;
    if (!backend_is_host(be)) {
        if (m->stage_cap < n) {
            float *s = realloc(m->stage, n * sizeof(float));
            if (!s) return gen_set_error(c->ctx, GENESIS_ERR_NOMEM, "out of memory staging an all-reduce");
            m->stage = s;
            m->stage_cap = n;
        }
        buf = m->stage;
        be->ops->download(be, buf, x, n * sizeof(float));
    }
    /* MPI counts are int: reduce in chunks of at most 2^30 floats */
    for (size_t off = 0; off < n;) {
        size_t k = n - off < ((size_t)1 << 30) ? n - off : ((size_t)1 << 30);
        int rc = MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)k, MPI_FLOAT, MPI_SUM, m->world);
        if (rc != MPI_SUCCESS) return mpi_fail(c, rc, "MPI_Allreduce");
        off += k;
    }
    if (buf != x) be->ops->upload(be, x, buf, n * sizeof(float));
    return GENESIS_OK;
}

static genesis_status mpi_allreduce_host(gen_comm *c, double *x, size_t n) {
    mpi_comm *m = c->impl;
    int rc = MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_DOUBLE, MPI_SUM, m->world);
    return rc == MPI_SUCCESS ? GENESIS_OK : mpi_fail(c, rc, "MPI_Allreduce");
}

static genesis_status mpi_broadcast_host(gen_comm *c, void *buf, size_t bytes, int root) {
    mpi_comm *m = c->impl;
    int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, m->world);
    return rc == MPI_SUCCESS ? GENESIS_OK : mpi_fail(c, rc, "MPI_Bcast");
}

static genesis_status mpi_barrier(gen_comm *c) {
    mpi_comm *m = c->impl;
    int rc = MPI_Barrier(m->world);
    return rc == MPI_SUCCESS ? GENESIS_OK : mpi_fail(c, rc, "MPI_Barrier");
}

static void mpi_abort(gen_comm *c, int code) {
    (void)c;
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void mpi_destroy(gen_comm *c) {
    mpi_comm *m = c->impl;
    if (m) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) {
            MPI_Comm_free(&m->world);
            if (m->we_initialised) MPI_Finalize();
        }
        free(m->stage);
        free(m);
    }
    free(c);
}

static const gen_comm_ops mpi_ops = {
    .name = "mpi",
    .allreduce_sum = mpi_allreduce_sum,
    .allreduce_host = mpi_allreduce_host,
    .broadcast_host = mpi_broadcast_host,
    .barrier = mpi_barrier,
    .abort = mpi_abort,
    .destroy = mpi_destroy,
};

genesis_status gen_comm_mpi_create(genesis_ctx *ctx, gen_comm **out) {
    *out = NULL;
    int inited = 0, fin = 0;
    MPI_Finalized(&fin);
    GEN_RETURN_IF(fin, ctx, GENESIS_ERR_STATE,
                  "MPI was already finalised in this process; MPI can start only once per process");
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return gen_set_error(ctx, GENESIS_ERR_IO,
                                 "MPI_Init failed; start the ranks with mpirun (or srun)");
    }
    gen_comm *c = calloc(1, sizeof *c);
    mpi_comm *m = calloc(1, sizeof *m);
    if (!c || !m) {
        free(c);
        free(m);
        if (!inited) MPI_Finalize();
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating the MPI communicator");
    }
    m->we_initialised = !inited;
    c->ops = &mpi_ops;
    c->ctx = ctx;
    c->impl = m;
    MPI_Comm_dup(MPI_COMM_WORLD, &m->world);
    /* errors come back as codes (turned into messages), not as an abort deep inside MPI */
    MPI_Comm_set_errhandler(m->world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->world, &c->rank);
    MPI_Comm_size(m->world, &c->size);
    MPI_Comm local;
    if (MPI_Comm_split_type(m->world, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(local, &c->local_rank);
        MPI_Comm_size(local, &c->local_size);
        MPI_Comm_free(&local);
    } else {
        c->local_rank = c->rank;
        c->local_size = c->size;
    }
    *out = c;
    return GENESIS_OK;
}

#else
typedef int gen_comm_mpi_unused; /* ISO C forbids an empty translation unit */
#endif /* GEN_HAVE_MPI */
