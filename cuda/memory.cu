/*
 * memory.cu — the CUDA backend's `memory` family (backend.h): alloc/free (stream-ordered,
 * cudaMallocAsync / cudaFreeAsync), upload through a ring of pinned staging buffers (the caller's
 * buffer may be reused as soon as upload returns), download (small ones bounce through pinned
 * memory; a failed backend hands out NaN), zero, copy2d and page-locked host memory. Download
 * synchronises (the host reads its result); free waits for nothing (stream order). CPU:
 * src/backend/cpu/memory.c; parity: tests/parity/memory.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"

genesis_status gen_cuda_upload(gen_cuda *cu, void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return GENESIS_OK;
    if (cu->capturing) /* a replay would copy whatever the staging buffer then holds */
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_upload", __FILE__, __LINE__,
                             "an upload inside a step being recorded as a CUDA graph; upload "
                             "before the step or set GENESIS_CUDA_GRAPHS=0");
    if (bytes > GEN_CUDA_STAGE_MAX) { /* large (weights, whole tables): copy and wait */
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cu->stream));
        GEN_CUDA_PASS(gen_cuda_sync(cu));
        return GENESIS_OK;
    }
    gen_cuda_stage *s = &cu->stage[cu->stage_next];
    cu->stage_next = (cu->stage_next + 1) % GEN_CUDA_STAGES;
    if (s->pending) { /* the copy that last read this buffer must be done */
        GEN_CUDA_PASS(gen_cuda_wait_event(cu, s->done));
        s->pending = 0;
    }
    if (s->cap < bytes) { /* at least double; the old buffer waits for cu_release, since
                           * cudaFreeHost would synchronise the device (gen_cuda_regrow) */
        size_t want = (bytes + 65535) & ~(size_t)65535;
        if (want < 2 * s->cap) want = 2 * s->cap;
        void *fresh = NULL;
        GEN_CUDA_TRY(cu, cudaMallocHost(&fresh, want));
        if (s->host) {
            gen_cuda_retired *r = (gen_cuda_retired *)malloc(sizeof *r);
            if (!r) {
                cudaFreeHost(fresh);
                return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "malloc", __FILE__, __LINE__,
                                     "out of host memory for an upload buffer");
            }
            r->host = s->host;
            r->next = cu->retired;
            cu->retired = r;
        }
        s->host = fresh;
        s->cap = want;
    }
    memcpy(s->host, src, bytes);
    GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, s->host, bytes, cudaMemcpyHostToDevice, cu->stream));
    GEN_CUDA_TRY(cu, cudaEventRecord(s->done, cu->stream));
    s->pending = 1;
    return GENESIS_OK;
}

/* ---- the table's entries ---------------------------------------------------------------- */

static genesis_status cu_alloc_impl(gen_cuda *cu, size_t bytes, void **out) {
    *out = NULL;
    void *p = NULL;
    if (bytes == 0) bytes = 1;
    /* stream-ordered, as op_free: no device-wide synchronisation (gen_cuda_regrow) */
    cudaError_t e = gen_cuda_dev_alloc(cu, &p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* out of memory is not sticky: the caller reports NOMEM */
        return GENESIS_ERR_NOMEM;
    }
    e = cudaMemsetAsync(p, 0, bytes, cu->stream);
    if (e != cudaSuccess) {
        gen_cuda_dev_free(cu, p);
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "cudaMemsetAsync", __FILE__, __LINE__,
                             cudaGetErrorString(e));
    }
    *out = p;
    return GENESIS_OK;
}

static void *op_alloc(gen_backend *be, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    if (gen_cuda_enter(cu, "alloc") != GENESIS_OK) return NULL;
    void *p = NULL;
    cu_alloc_impl(cu, bytes, &p);
    return p;
}

static void op_free(gen_backend *be, void *p) {
    if (!p) return;
    gen_cuda *cu = gen_cuda_of(be);
    cudaSetDevice(cu->device);
    /* in the stream's order: queued work may still use it, and nothing waits (a cudaFree
     * would synchronise the device: gen_cuda_regrow) */
    if (gen_cuda_dev_free(cu, p) != cudaSuccess) cudaGetLastError();
}

static void op_upload(gen_backend *be, void *dst, const void *src, size_t bytes) {
    GEN_CUDA_RUN(be, "upload", gen_cuda_upload(cu, dst, src, bytes));
}

static genesis_status cu_download_impl(gen_cuda *cu, void *dst, const void *src, size_t bytes) {
    if (bytes <= GEN_CUDA_READBACK) { /* small: through pinned memory, one wait */
        GEN_CUDA_TRY(cu, cudaMemcpyAsync(cu->readback, src, bytes, cudaMemcpyDeviceToHost,
                                         cu->stream));
        GEN_CUDA_PASS(gen_cuda_sync(cu));
        memcpy(dst, cu->readback, bytes);
        return GENESIS_OK;
    }
    GEN_CUDA_TRY(cu, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cu->stream));
    GEN_CUDA_PASS(gen_cuda_sync(cu));
    return GENESIS_OK;
}

static void op_download(gen_backend *be, void *dst, const void *src, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    if (bytes == 0) return;
    if (gen_cuda_enter(cu, "download") == GENESIS_OK && cu_download_impl(cu, dst, src, bytes) == GENESIS_OK) return;
    memset(dst, 0xff, bytes); /* NaN: a failed backend never hands out plausible numbers */
}

static genesis_status cu_zero_impl(gen_cuda *cu, float *x, size_t n) {
    if (n) GEN_CUDA_TRY(cu, cudaMemsetAsync(x, 0, n * sizeof(float), cu->stream));
    return GENESIS_OK;
}

static void op_zero(gen_backend *be, float *x, size_t n) {
    GEN_CUDA_RUN(be, "zero", cu_zero_impl(cu, x, n));
}

static genesis_status cu_copy2d_impl(gen_cuda *cu, float *dst, int ldd, const float *src,
                                     int lds, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return GENESIS_OK;
    GEN_CUDA_TRY(cu, cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(float), src,
                                       (size_t)lds * sizeof(float), (size_t)cols * sizeof(float),
                                       (size_t)rows, cudaMemcpyDeviceToDevice, cu->stream));
    return GENESIS_OK;
}

static void op_copy2d(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                      int cols) {
    GEN_CUDA_RUN(be, "copy2d", cu_copy2d_impl(cu, dst, ldd, src, lds, rows, cols));
}

static void *op_host_alloc(gen_backend *be, size_t bytes) {
    gen_cuda *cu = gen_cuda_of(be);
    void *p = NULL;
    if (cu) cudaSetDevice(cu->device);
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
        cudaGetLastError(); /* page-locked memory can run out: fall back to pageable memory */
        p = malloc(bytes ? bytes : 1);
    }
    return p;
}

static void op_host_free(gen_backend *be, void *p) {
    (void)be;
    if (!p) return;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost) {
        cudaFreeHost(p);
    } else {
        cudaGetLastError();
        free(p);
    }
}

void gen_cu_ops_memory(gen_backend_ops *o) {
    o->alloc = op_alloc;
    o->free = op_free;
    o->upload = op_upload;
    o->download = op_download;
    o->zero = op_zero;
    o->copy2d = op_copy2d;
    o->host_alloc = op_host_alloc;
    o->host_free = op_host_free;
}
