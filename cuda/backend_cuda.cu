/*
 * backend_cuda.cu — the CUDA backend: gen_backend_ops filled with GPU launchers. This file
 * holds the table's assembly (each family file fills its members: gen_cu_ops_<family>), the
 * per-backend handles (device, one non-blocking stream, a cuBLAS handle with its own
 * workspace, docs/style.md §4: no globals, no per-call creation), the errors and the shared
 * helpers of cuda_common.cuh, and creation / destruction. The operations live in one file
 * per family, named as on the CPU (src/backend/cpu/<family>.c) and in the parity tests
 * (tests/parity/<family>.c): memory.cu, batch.cu, dense.cu, elementwise.cu, norm.cu,
 * output.cu, random.cu, optimiser.cu, graph.cu, gan.cu, vae.cu, diffusion.cu, ddpm_noise.cu, gru.cu (and
 * gru_cudnn.cu), tgloss.cu, privacy.cu.
 *
 * Every operation is queued on the backend's stream and returns at once, except download
 * and any_nonfinite (they synchronise: the host reads their result) and free (it waits for
 * queued work that may still use the buffer). upload copies through a ring of pinned
 * staging buffers, so the caller's buffer may be reused as soon as upload returns.
 * Errors: see cuda_common.cuh (sticky status, the first message goes to the context; later
 * operations do nothing, downloads give NaN).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"
#include "gru_cudnn.cuh"

#define GEN_CUBLAS_WORKSPACE ((size_t)32 << 20) /* what cuBLAS recommends on Hopper */

/* ---- errors ------------------------------------------------------------------------------- */

genesis_status gen_cuda_fail(gen_cuda *cu, genesis_status code, const char *call,
                             const char *file, int line, const char *detail) {
    if (cu->status != GENESIS_OK) return code;
    cu->status = code;
    const char *base = strrchr(file, '/');
    const char *op = cu->op ? cu->op : "setup";
    /* a kernel's fault is reported by the next call that waits for the stream: name that */
    int async = strstr(call, "Synchronize") || strstr(call, "gen_cuda_sync");
    gen_set_error(cu->ctx, code,
                  "the CUDA backend on GPU %d failed in operation %s: %s: %s (%s:%d)%s; or run "
                  "on the CPU (device cpu)",
                  cu->device, op, call, detail ? detail : "?", base ? base + 1 : file, line,
                  async && !cu->sync_each
                      ? "; found while waiting for the GPU, so an earlier operation may have "
                        "raised it: GENESIS_CUDA_SYNC=1 charges each error to its own operation"
                      : "");
    return code;
}

genesis_status gen_cuda_sync(gen_cuda *cu) {
    if (cu->capturing) /* a recorded step (graph.cu) must not wait for the GPU */
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_sync", __FILE__, __LINE__,
                             "the host waits for the GPU inside a step being recorded as a "
                             "CUDA graph (a download, any_nonfinite, free or a buffer that "
                             "grows); move it out of the step or set GENESIS_CUDA_GRAPHS=0");
    if (cu->wait) GEN_CUDA_PASS(cu->wait(cu, NULL, cu->wait_arg));
    else GEN_CUDA_TRY(cu, cudaStreamSynchronize(cu->stream));
    /* everything queued is done: no staging buffer is still being read */
    for (int i = 0; i < GEN_CUDA_STAGES; i++) cu->stage[i].pending = 0;
    return GENESIS_OK;
}

genesis_status gen_cuda_wait_event(gen_cuda *cu, cudaEvent_t ev) {
    if (cu->wait) return cu->wait(cu, ev, cu->wait_arg);
    GEN_CUDA_TRY(cu, cudaEventSynchronize(ev));
    return GENESIS_OK;
}

/* Every entry point: nothing after a failure; note the operation for error messages; make
 * the backend's GPU current (CUDA's current device is per host thread, and a context may be
 * used from another thread). */
/* ---- shared helpers (cuda_common.cuh) ------------------------------------------------------ */

/* Replaces the backend buffer *buf (NULL or from here) by one of `bytes`, in the stream's
 * order: kernels queued earlier still read the old one, which is freed when the stream
 * reaches them, and nothing waits. A cudaFree here would synchronise the device, which
 * with NCCL ranks sharing it can wait forever (docs/cuda.md, "NCCL and device-wide
 * synchronisation"). Refused inside a step being recorded: a replay holds the address. */
genesis_status gen_cuda_regrow(gen_cuda *cu, void **buf, size_t bytes, const char *what) {
    if (cu->capturing) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "%s grows inside a step being recorded as a CUDA graph; set "
                 "GENESIS_CUDA_GRAPHS=0",
                 what);
        return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "gen_cuda_regrow", __FILE__, __LINE__, msg);
    }
    if (*buf) GEN_CUDA_TRY(cu, gen_cuda_dev_free(cu, *buf));
    *buf = NULL;
    GEN_CUDA_TRY(cu, gen_cuda_dev_alloc(cu, buf, bytes));
    return GENESIS_OK;
}

/* Device memory in the stream's order (cudaMallocAsync / cudaFreeAsync). A device without
 * memory pools (cu->sync_alloc, found by cu_init) gets cudaMalloc / cudaFree, whose free
 * synchronises the device: correct, but with NCCL ranks sharing a process it brings back
 * the wait described at gen_cuda_regrow. */
cudaError_t gen_cuda_dev_alloc(gen_cuda *cu, void **p, size_t bytes) {
    return cu->sync_alloc ? cudaMalloc(p, bytes) : cudaMallocAsync(p, bytes, cu->stream);
}

cudaError_t gen_cuda_dev_free(gen_cuda *cu, void *p) {
    if (!p) return cudaSuccess;
    if (cu->sync_alloc) {
        gen_cuda_sync(cu); /* queued work may still use it */
        return cudaFree(p);
    }
    return cudaFreeAsync(p, cu->stream);
}

genesis_status gen_cuda_scratch(gen_cuda *cu, size_t bytes, void **out) {
    *out = NULL;
    if (bytes < 256) bytes = 256;
    if (bytes > cu->scratch_bytes) {
        size_t want = cu->scratch_bytes * 2 > bytes ? cu->scratch_bytes * 2 : bytes;
        cu->scratch_bytes = 0;
        GEN_CUDA_PASS(gen_cuda_regrow(cu, &cu->scratch, want, "the scratch buffer"));
        cu->scratch_bytes = want;
    }
    *out = cu->scratch;
    return GENESIS_OK;
}


genesis_status gen_cuda_table_dev(gen_cuda *cu, gen_cuda_table *t, const void *src, size_t bytes,
                                  const void **dev) {
    *dev = NULL;
    if (t->dev && bytes == t->bytes && memcmp(src, t->host, bytes) == 0) {
        *dev = t->dev;
        return GENESIS_OK;
    }
    if (bytes > t->cap) {
        size_t cap = bytes < 1024 ? 1024 : bytes;
        void *h = realloc(t->host, cap);
        if (!h)
            return gen_cuda_fail(cu, GENESIS_ERR_NOMEM, "realloc", __FILE__, __LINE__,
                                 "out of host memory for the span table");
        t->host = h;
        t->cap = 0;
        t->bytes = 0;
        GEN_CUDA_PASS(gen_cuda_regrow(cu, &t->dev, cap, "the span table"));
        t->cap = cap;
    }
    memcpy(t->host, src, bytes);
    t->bytes = bytes;
    /* stream order: kernels queued earlier read the old table before this copy lands */
    genesis_status st = gen_cuda_upload(cu, t->dev, src, bytes);
    if (st != GENESIS_OK) return st;
    *dev = t->dev;
    return GENESIS_OK;
}

genesis_status gen_cuda_spans(gen_cuda *cu, const gen_act_span *spans, int n,
                              const gen_act_span **dev) {
    const void *d = NULL;
    genesis_status st = gen_cuda_table_dev(cu, &cu->spans, spans, (size_t)n * sizeof *spans, &d);
    *dev = (const gen_act_span *)d;
    return st;
}

genesis_status gen_cuda_recon_spans(gen_cuda *cu, const gen_recon_span *spans, int n,
                                    const gen_recon_span **dev) {
    const void *d = NULL;
    genesis_status st = gen_cuda_table_dev(cu, &cu->recon, spans, (size_t)n * sizeof *spans, &d);
    *dev = (const gen_recon_span *)d;
    return st;
}

/* ---- the backend itself (no family) ----------------------------------------------------- */

static genesis_status op_status(gen_backend *be) { return gen_cuda_of(be)->status; }

/* ---- create / destroy -------------------------------------------------------------------------- */

static void cu_release(gen_cuda *cu) {
    if (!cu) return;
    if (cu->capturing) { /* a step left half recorded (an error path): drop it */
        cudaGraph_t g = NULL;
        cudaStreamEndCapture(cu->stream, &g);
        if (g) cudaGraphDestroy(g);
        cudaGetLastError();
        cu->capturing = 0;
    }
    if (cu->stream) { /* the grown buffers in stream order (gen_cuda_regrow) */
        gen_cuda_dev_free(cu, cu->scratch);
        gen_cuda_dev_free(cu, cu->half);
        gen_cuda_dev_free(cu, cu->spans.dev);
        gen_cuda_dev_free(cu, cu->recon.dev);
        gen_cuda_sync(cu); /* polls NCCL's errors while a communicator watches */
    }
    gen_nccl_forget_backend(cu);
    for (int i = 0; i < GEN_CUDA_STAGES; i++) {
        if (cu->stage[i].host) cudaFreeHost(cu->stage[i].host);
        if (cu->stage[i].done) cudaEventDestroy(cu->stage[i].done);
    }
    while (cu->retired) {
        gen_cuda_retired *r = cu->retired;
        cu->retired = r->next;
        cudaFreeHost(r->host);
        free(r);
    }
#ifdef GEN_HAVE_CUDNN
    gen_cudnn_gru_ops_free(cu->dnn_gru);
#endif
    if (cu->lt) cublasLtDestroy(cu->lt);
    if (cu->blas) cublasDestroy(cu->blas);
    cudaFree(cu->blas_ws);
    cudaFree(cu->flag_dev);
    cudaFree(cu->count);
    if (cu->flag_host) cudaFreeHost(cu->flag_host);
    if (cu->readback) cudaFreeHost(cu->readback);
    if (cu->stream) cudaStreamDestroy(cu->stream);
    free(cu->spans.host);
    free(cu->recon.host);
    free(cu);
}

static void op_destroy(gen_backend *be) {
    if (!be) return;
    gen_cuda *cu = gen_cuda_of(be);
    if (cu) cudaSetDevice(cu->device);
    cu_release(cu);
    free(be);
}

/* The sampling worker thread: the CUDA runtime's current device is per host thread. */
static void op_thread_attach(gen_backend *be) {
    gen_cuda *cu = gen_cuda_of(be);
    if (cu) cudaSetDevice(cu->device);
}

/* The table, filled by name (C++17 has no designated initialisers): a field added to
 * gen_backend_ops stays NULL here until it is written, never silently shifted. */
static void cu_fill_ops(gen_backend_ops *o) {
    memset(o, 0, sizeof *o);
    o->name = "cuda";
    gen_cu_ops_memory(o);
    gen_cu_ops_batch(o);
    gen_cu_ops_dense(o);
    gen_cu_ops_elementwise(o);
    gen_cu_ops_norm(o);
    gen_cu_ops_output(o);
    gen_cu_ops_random(o);
    gen_cu_ops_optimiser(o);
    gen_cu_ops_graph(o);
    gen_cu_ops_gan(o);
    gen_cu_ops_vae(o);
    gen_cu_ops_diffusion(o);
    gen_cu_ops_ddpm_noise(o);
    gen_cu_ops_gru(o);
    gen_cu_ops_tgloss(o);
    gen_cu_ops_privacy(o);
    o->status = op_status;
    o->destroy = op_destroy;
    o->thread_attach = op_thread_attach;
}

static int env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

#ifndef GEN_CUDA_ARCHS
#define GEN_CUDA_ARCHS "?"
#endif

static __global__ void k_probe(int *flag) { *flag = 0x600d; }

/* One kernel launched and read back before the backend is handed out: a GPU this build has
 * no machine code or PTX for (an older CUDA, a narrower CMAKE_CUDA_ARCHITECTURES) fails here,
 * with a message that says so, and the run falls back to the CPU, instead of failing at the
 * first kernel of training. */
static genesis_status cu_probe(gen_cuda *cu, const cudaDeviceProp *prop) {
    cu->op = "the start-up check";
    GEN_LAUNCH(k_probe, 1, 1, 0, cu->stream)(cu->flag_dev);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(cu->flag_host, cu->flag_dev, sizeof(int), cudaMemcpyDeviceToHost,
                            cu->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cu->stream);
    cu->op = NULL;
    if (e == cudaSuccess && *cu->flag_host == 0x600d) return GENESIS_OK;
    char detail[512];
    snprintf(detail, sizeof detail,
             "the kernels of this build cannot run on %s (compute capability %d.%d): %s; this "
             "build was compiled for CUDA architectures %s; rebuild with "
             "-DCMAKE_CUDA_ARCHITECTURES=%d%d (or a list that includes it)",
             prop->name, prop->major, prop->minor,
             e == cudaSuccess ? "the check kernel wrote nothing" : cudaGetErrorString(e),
             GEN_CUDA_ARCHS, prop->major, prop->minor);
    cudaGetLastError();
    return gen_cuda_fail(cu, GENESIS_ERR_CUDA, "kernel launch", __FILE__, __LINE__, detail);
}

static genesis_status cu_init(gen_cuda *cu) {
    cudaDeviceProp prop;
    GEN_CUDA_TRY(cu, cudaSetDevice(cu->device));
    GEN_CUDA_TRY(cu, cudaGetDeviceProperties(&prop, cu->device));
    snprintf(cu->name, sizeof cu->name, "%.127s", prop.name);
    cu->num_sms = prop.multiProcessorCount;
    GEN_CUDA_TRY(cu, cudaStreamCreateWithFlags(&cu->stream, cudaStreamNonBlocking));
    { /* stream-ordered allocation, unless the device has no memory pools */
        void *probe = NULL;
        cudaError_t e = cudaMallocAsync(&probe, 256, cu->stream);
        if (e == cudaErrorNotSupported) {
            cudaGetLastError();
            cu->sync_alloc = 1;
            gen_log(cu->ctx, GENESIS_LOG_INFO, "GPU %d has no memory pools: cudaMalloc and "
                    "synchronising frees instead of cudaMallocAsync/cudaFreeAsync", cu->device);
        } else {
            GEN_CUDA_TRY(cu, e);
            GEN_CUDA_TRY(cu, cudaFreeAsync(probe, cu->stream));
        }
    }
    GEN_CUBLAS_TRY(cu, cublasCreate(&cu->blas));
    GEN_CUBLAS_TRY(cu, cublasSetStream(cu->blas, cu->stream));
    GEN_CUBLAS_TRY(cu, cublasSetPointerMode(cu->blas, CUBLAS_POINTER_MODE_HOST));
    GEN_CUBLAS_TRY(cu, cublasSetAtomicsMode(cu->blas, CUBLAS_ATOMICS_NOT_ALLOWED));
    /* FP32 unless asked: CUBLAS_DEFAULT_MATH never lowers SGEMM to TF32 */
    GEN_CUBLAS_TRY(cu, cublasSetMathMode(cu->blas, cu->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                            : CUBLAS_DEFAULT_MATH));
    /* an explicit workspace keeps cuBLAS's results reproducible and its memory ours */
    cu->blas_ws_bytes = GEN_CUBLAS_WORKSPACE;
    GEN_CUDA_TRY(cu, cudaMalloc(&cu->blas_ws, cu->blas_ws_bytes));
    GEN_CUBLAS_TRY(cu, cublasSetWorkspace(cu->blas, cu->blas_ws, cu->blas_ws_bytes));
    /* GENESIS_CUDA_LT=0: no cuBLASLt (each bias and ReLU of a product a kernel of its own) */
    const char *lt = getenv("GENESIS_CUDA_LT");
    if (!(lt && strcmp(lt, "0") == 0)) GEN_CUBLAS_TRY(cu, cublasLtCreate(&cu->lt));
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&cu->flag_dev, sizeof(int)));
    GEN_CUDA_TRY(cu, cudaMalloc((void **)&cu->count, sizeof(unsigned)));
    /* on the stream: every kernel that reads it comes after (no device-wide wait here) */
    GEN_CUDA_TRY(cu, cudaMemsetAsync(cu->count, 0, sizeof(unsigned), cu->stream));
    GEN_CUDA_TRY(cu, cudaMallocHost((void **)&cu->flag_host, sizeof(int)));
    GEN_CUDA_TRY(cu, cudaMallocHost(&cu->readback, GEN_CUDA_READBACK));
    for (int i = 0; i < GEN_CUDA_STAGES; i++)
        GEN_CUDA_TRY(cu, cudaEventCreateWithFlags(&cu->stage[i].done, cudaEventDisableTiming));
#ifdef GEN_HAVE_CUDNN
    /* GENESIS_CUDNN_GRU=0 keeps the GRU on gru.cu's kernels (their parity cases use it) */
    const char *dnn = getenv("GENESIS_CUDNN_GRU");
    if (!(dnn && strcmp(dnn, "0") == 0)) {
        genesis_status st = gen_cudnn_gru_ops_create(cu, &cu->dnn_gru);
        if (st != GENESIS_OK) return st;
    }
#endif
    void *p = NULL;
    GEN_CUDA_PASS(gen_cuda_scratch(cu, (size_t)GEN_CUDA_REDUCE_BLOCKS * sizeof(double), &p));
    return cu_probe(cu, &prop);
}

extern "C" genesis_status gen_backend_cuda_create(genesis_ctx *ctx, int device,
                                                  gen_backend **out) {
    *out = NULL;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return gen_set_error(ctx, GENESIS_ERR_CUDA, "no usable GPU: %s (CUDA error %d)",
                             cudaGetErrorString(e), (int)e);
    }
    GEN_RETURN_IF(device < 0 || device >= n, ctx, GENESIS_ERR_INVALID_ARG,
                  "GPU %d asked for, but %d GPU(s) found", device, n);
    gen_backend *be = (gen_backend *)calloc(1, sizeof *be);
    gen_cuda *cu = (gen_cuda *)calloc(1, sizeof *cu);
    if (!be || !cu) {
        free(be);
        free(cu);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating the CUDA backend");
    }
    cu->ctx = ctx;
    cu->device = device;
    cu->tf32 = env_flag("GENESIS_CUDA_TF32");
    cu->sync_each = env_flag("GENESIS_CUDA_SYNC");
    const char *graphs = getenv("GENESIS_CUDA_GRAPHS"); /* on unless "0" */
    cu->graphs = !(graphs && strcmp(graphs, "0") == 0) && !cu->sync_each;
    genesis_status st = cu_init(cu);
    if (st != GENESIS_OK) {
        cu_release(cu);
        free(be);
        return st; /* cu_init put the message into the context */
    }
    cu_fill_ops(&cu->ops);
    be->ops = &cu->ops;
    be->ctx = ctx;
    be->threads = 1;
    be->impl = cu;
    gen_log(ctx, GENESIS_LOG_INFO, "CUDA backend on GPU %d (%s, %d SMs)%s%s%s", device,
            cu->name, cu->num_sms, cu->tf32 ? ", TF32 GEMMs" : "",
            cu->sync_each ? ", synchronous" : "", cu->graphs ? "" : ", no CUDA graphs");
    *out = be;
    return GENESIS_OK;
}

/* ---- the module's entry points (src/backend/cuda_module.c loads them with dlsym) ---- */

extern "C" int gen_cuda_query_devices(genesis_device_info *out, int cap, int *count, char *why,
                                      size_t why_cap);

extern "C" __attribute__((visibility("default"))) unsigned long genesis_cuda_module_abi(void) {
    return GEN_CUDA_MODULE_ABI;
}

extern "C" __attribute__((visibility("default"))) int genesis_cuda_module_query(
    genesis_device_info *out, int cap, int *count, char *why, size_t why_cap) {
    return gen_cuda_query_devices(out, cap, count, why, why_cap);
}

extern "C" __attribute__((visibility("default"))) genesis_status genesis_cuda_module_create(
    genesis_ctx *ctx, int device, gen_backend **out) {
    return gen_backend_cuda_create(ctx, device, out);
}
