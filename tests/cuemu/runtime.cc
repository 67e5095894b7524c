/*
 * runtime.cc (Genesis CUDA emulator) — the host side of the emulated CUDA runtime: devices
 * and their properties, errors (per-thread last error, the sticky error of a fault), device
 * and pinned allocations, streams whose work is deferred, events, copies and memsets, the
 * launch checks, stream capture and graphs (work recorded, then replayed as one launch, with
 * the capture rules below), and the counters the module exports.
 *
 * Semantics follow the CUDA Runtime API reference and its "API synchronization behavior"
 * page; where the emulator is stricter than a GPU it is so on purpose, to make bugs show:
 *   - all stream work (kernels, async copies and memsets, cuBLAS calls) waits in its
 *     stream's queue until a synchronisation point runs it (cudaStreamSynchronize,
 *     cudaDeviceSynchronize, cudaEventSynchronize, synchronous cudaMemcpy on the
 *     legacy stream, an async copy into pageable memory, cudaFree/cudaFreeHost, stream
 *     destruction), so a result read without a synchronisation is stale;
 *   - async host-to-device copies from pageable memory take a snapshot of the source at call
 *     time; from pinned memory (cudaMallocHost/cudaHostAlloc) they read it when executed;
 *     device-to-host copies into pageable memory are synchronous; into pinned memory they
 *     land when executed;
 *   - cudaMalloc'ed memory is filled with 0xFF bytes (NaN), aligned to 256 bytes, and of the
 *     exact size, so AddressSanitizer sees a kernel's out-of-bounds access; every copy and memset
 *     must lie inside one live allocation (device side; pinned side when pinned); freeing an
 *     unknown pointer is an error;
 *   - an invalid launch configuration (CUDA's limits: 1024 threads per block, block
 *     1024 x 1024 x 64, grid (2^31-1) x 65535 x 65535, no zero dimension, 48 KiB static +
 *     dynamic shared memory) sets cudaErrorInvalidConfiguration / cudaErrorInvalidValue
 *     and does not run; a fault inside executed work becomes a sticky error
 *     (cudaErrorLaunchFailure / cudaErrorIllegalAddress) returned by every later call, with
 *     the message on stderr.
 * One global lock guards everything; only one piece of work executes at a time in the
 * process. Devices: GENESIS_CUEMU_DEVICES (default 1). GENESIS_CUEMU_MEMORY_REPORT=FILE: at
 * exit, each device's peak and final device memory (cudaMalloc bytes) as lines
 * "device D peak P live L" (what a test of memory per device reads).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <map>

#include "cuemu_internal.h"

#define GEN_CUEMU_TOTAL_MEM ((size_t)16 << 30) /* what each emulated device reports */
#define GEN_CUEMU_SM_COUNT 132

enum { W_KERNEL, W_COPY, W_COPY2D, W_MEMSET, W_EVENT, W_FN, W_GRAPH, W_FREE };

typedef struct gen_cuemu_work {
    struct gen_cuemu_work *next;
    int kind;
    uint64_t seq;
    gen_cuemu_kernel *k;
    void *dst;
    const void *src;
    size_t bytes, dpitch, spitch, height;
    int value;
    void *owned; /* the snapshot of a pageable source */
    struct gen_cuemu_event *ev;
    gen_cuemu_fn fn;
    void (*release)(void *);
    void *arg;
    const char *what;
    int inject_fault; /* GENESIS_CUEMU_FAULT chose this launch */
    struct gen_cuemu_graph *graph; /* W_GRAPH: the launched graph (one reference held) */
} gen_cuemu_work;

/* A captured graph: its nodes in capture order (one stream, so each depends on the one
 * before), shared by the graph handle, its executable graphs and their queued launches. */
struct gen_cuemu_graph {
    int refs;
    gen_cuemu_work *head, *tail;
};
struct gen_cuemu_graph_exec {
    gen_cuemu_graph *g;
};

struct gen_cuemu_stream {
    int device;
    unsigned flags;
    int legacy;
    int busy; /* a thread is running its work (and may wait in an all-reduce, unlocked) */
    gen_cuemu_work *head, *tail;
    uint64_t seq; /* of the last work queued */
    struct gen_cuemu_stream *next;
    /* stream capture: work goes into `cap` instead of the queue */
    gen_cuemu_graph *cap;
    int cap_mode, cap_invalid;
    pthread_t cap_thread;
};

struct gen_cuemu_event {
    unsigned flags;
    gen_cuemu_stream *stream;
    uint64_t seq;
    gen_cuemu_work *item; /* the queued record, NULL once executed */
    int captured;         /* last recorded in a capturing stream */
};

typedef struct alloc_rec {
    size_t size;
    int pinned;
    int device;
    int freeing; /* a stream-ordered free (cudaFreeAsync) is queued: no second free */
} alloc_rec;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static thread_local cudaError_t t_last = cudaSuccess;
static thread_local int t_device = 0;
static cudaError_t g_sticky = cudaSuccess;
static unsigned long long g_stats[GEN_CUEMU_STAT_N];

static std::map<uintptr_t, alloc_rec> *g_allocs; /* never freed: reachable for LeakSanitizer */
static size_t g_live[GEN_CUEMU_MAX_DEVICES];
static size_t g_peak[GEN_CUEMU_MAX_DEVICES]; /* the most g_live ever held */
/* Contexts: since CUDA 12 cudaSetDevice initialises the device's primary context, and every
 * call that needs one (allocation, memory info, streams, launches) creates it; device
 * queries (count, properties) do not. A context costs real GPUs hundreds of MB, so the
 * emulator counts the devices that got one (GEN_CUEMU_STAT_CONTEXTS). Called locked. */
static int g_has_ctx[GEN_CUEMU_MAX_DEVICES];
static void ctx_touch(int device) {
    if (device < 0 || device >= GEN_CUEMU_MAX_DEVICES || g_has_ctx[device]) return;
    g_has_ctx[device] = 1;
    g_stats[GEN_CUEMU_STAT_CONTEXTS]++;
}
static gen_cuemu_stream g_legacy[GEN_CUEMU_MAX_DEVICES];
static gen_cuemu_stream *g_streams;
static int g_ndev = -1;

void gen_cuemu_lock(void) { pthread_mutex_lock(&g_mu); }
void gen_cuemu_unlock(void) { pthread_mutex_unlock(&g_mu); }
void gen_cuemu_count(int which) { g_stats[which]++; }
cudaError_t gen_cuemu_sticky(void) { return g_sticky; }
void gen_cuemu_reset_sticky(void) { g_sticky = cudaSuccess; }

cudaError_t gen_cuemu_error(cudaError_t e, const char *fmt, ...) {
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "genesis cuda emulator: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    if (e != cudaSuccess) t_last = e;
    return e;
}

static int ndevices(void) {
    if (g_ndev < 0) {
        const char *v = getenv("GENESIS_CUEMU_DEVICES");
        g_ndev = v && *v ? atoi(v) : 1;
        if (g_ndev < 0) g_ndev = 0;
        if (g_ndev > GEN_CUEMU_MAX_DEVICES) g_ndev = GEN_CUEMU_MAX_DEVICES;
        for (int i = 0; i < GEN_CUEMU_MAX_DEVICES; i++) {
            g_legacy[i].device = i;
            g_legacy[i].legacy = 1;
        }
    }
    return g_ndev;
}

/* ---- allocations ----------------------------------------------------------------------------- */

static std::map<uintptr_t, alloc_rec> &allocs(void) {
    if (!g_allocs) g_allocs = new std::map<uintptr_t, alloc_rec>();
    return *g_allocs;
}

/* The allocation holding p (NULL if none); *base gets its start. */
static const alloc_rec *find_alloc(const void *p, uintptr_t *base) {
    std::map<uintptr_t, alloc_rec> &m = allocs();
    uintptr_t a = (uintptr_t)p;
    std::map<uintptr_t, alloc_rec>::iterator it = m.upper_bound(a);
    if (it == m.begin()) return NULL;
    --it;
    if (a >= it->first + (it->second.size ? it->second.size : 1)) return NULL;
    if (base) *base = it->first;
    return &it->second;
}

/* 1 if [p, p+bytes) lies inside one live allocation of the kind asked for. */
static int in_range(const void *p, size_t bytes, int pinned) {
    uintptr_t base = 0;
    const alloc_rec *r = find_alloc(p, &base);
    if (!r || r->pinned != pinned) return 0;
    return (uintptr_t)p - base + bytes <= r->size;
}

int gen_cuemu_device_range(const void *p, size_t bytes) { return in_range(p, bytes, 0); }

/* ---- streams and deferred work --------------------------------------------------------------- */

static gen_cuemu_stream *stream_of(cudaStream_t s) {
    if (!s) return &g_legacy[t_device];
    for (gen_cuemu_stream *x = g_streams; x; x = x->next)
        if (x == s) return x;
    return NULL;
}

static void graph_unref(gen_cuemu_graph *g);

static void free_work(gen_cuemu_work *w) {
    if (w->graph) graph_unref(w->graph);
    if (w->k) w->k->destroy(w->k);
    free(w->owned);
    if (w->release) w->release(w->arg);
    if (w->ev) w->ev->item = NULL;
    free(w);
}

static int inject_replay(const char *name);

/* A stream-ordered free reached by its stream (also after a fault: the memory goes). */
static void exec_free(gen_cuemu_work *w) {
    std::map<uintptr_t, alloc_rec>::iterator it = allocs().find((uintptr_t)w->dst);
    if (it == allocs().end()) return; /* cudaFreeAsync checked it; nothing else frees it */
    g_live[it->second.device] -= it->second.size;
    allocs().erase(it);
    free(w->dst);
}

/* GENESIS_CUEMU_TRACE=FILE: one line per piece of work the device runs (its kind and, for a
 * kernel or a library call, its name; a kernel also its grid, block and dynamic shared bytes),
 * appended to FILE, so that the kernels of a step can be listed by kind and their launch
 * configurations read (docs/cuda.md, "Kernels per step"). Called locked. */
static void trace_work(const gen_cuemu_work *w) {
    static FILE *f;
    static int opened;
    if (!opened) {
        const char *path = getenv("GENESIS_CUEMU_TRACE");
        opened = 1;
        f = path && *path ? fopen(path, "a") : NULL;
    }
    if (!f) return;
    switch (w->kind) {
    case W_KERNEL:
        fprintf(f, "kernel %s grid %ux%ux%u block %ux%ux%u smem %zu\n", w->k->name,
                w->k->grid.x, w->k->grid.y, w->k->grid.z, w->k->block.x, w->k->block.y,
                w->k->block.z, w->k->smem);
        break;
    case W_FN: fprintf(f, "call %s\n", w->what ? w->what : "?"); break;
    case W_COPY: case W_COPY2D: fprintf(f, "copy\n"); break;
    case W_MEMSET: fprintf(f, "memset\n"); break;
    case W_GRAPH: fprintf(f, "graph\n"); break;
    default: return;
    }
    fflush(f);
}

static void exec_work(gen_cuemu_work *w) {
    if (w->kind == W_FREE) return exec_free(w);
    if (g_sticky != cudaSuccess) return; /* after a fault nothing more runs */
    trace_work(w);
    char msg[768] = "";
    int rc = 0;
    switch (w->kind) {
    case W_KERNEL:
        g_stats[GEN_CUEMU_STAT_KERNELS]++;
        if (w->inject_fault) {
            snprintf(msg, sizeof msg, "kernel %s: the fault GENESIS_CUEMU_FAULT asked for",
                     w->k->name);
            rc = cudaErrorIllegalAddress;
        } else if (gen_cuemu_exec_kernel(w->k, msg, sizeof msg) != 0) {
            rc = cudaErrorLaunchFailure;
        }
        break;
    case W_COPY: memcpy(w->dst, w->owned ? w->owned : w->src, w->bytes); break;
    case W_COPY2D:
        for (size_t r = 0; r < w->height; r++)
            memcpy((char *)w->dst + r * w->dpitch, (const char *)w->src + r * w->spitch, w->bytes);
        break;
    case W_MEMSET: memset(w->dst, w->value, w->bytes); break;
    case W_EVENT: break; /* free_work marks the event complete */
    case W_FN: rc = w->fn(w->arg, msg, sizeof msg); break;
    case W_GRAPH: /* the recorded nodes in order; each replayed kernel counts as a launch
                     for GENESIS_CUEMU_FAULT */
        for (gen_cuemu_work *n = w->graph->head; n && g_sticky == cudaSuccess; n = n->next) {
            if (n->kind == W_KERNEL) n->inject_fault = inject_replay(n->k->name);
            exec_work(n);
        }
        break;
    }
    if (rc) {
        g_sticky = (cudaError_t)rc;
        fprintf(stderr, "genesis cuda emulator: %s (%s, sticky)\n", msg,
                cudaGetErrorName((cudaError_t)rc));
    }
}

/* Runs the queued work of `s` up to sequence number `upto`. A stream another thread is
 * running (its owner, waiting in an emulated all-reduce with the lock released) is left to
 * that thread: its order stays intact. */
static void drain(gen_cuemu_stream *s, uint64_t upto) {
    if (s->busy) return;
    s->busy = 1;
    while (s->head && s->head->seq <= upto) {
        gen_cuemu_work *w = s->head;
        s->head = w->next;
        if (!s->head) s->tail = NULL;
        exec_work(w);
        free_work(w);
    }
    s->busy = 0;
}

void gen_cuemu_wait(pthread_cond_t *cv) { pthread_cond_wait(cv, &g_mu); }

/* Every stream of a device (blocking_only: the legacy stream's implicit synchronisation,
 * which skips streams created with cudaStreamNonBlocking). */
static void drain_device(int device, int blocking_only) {
    for (gen_cuemu_stream *x = g_streams; x; x = x->next)
        if (x->device == device && !(blocking_only && (x->flags & cudaStreamNonBlocking)))
            drain(x, UINT64_MAX);
    drain(&g_legacy[device], UINT64_MAX);
}

static gen_cuemu_work *new_work(int kind) {
    gen_cuemu_work *w = (gen_cuemu_work *)calloc(1, sizeof *w);
    if (w) w->kind = kind;
    return w;
}

static void push(gen_cuemu_stream *s, gen_cuemu_work *w) {
    if (s->cap) { /* recorded, not executed (CUDA Programming Guide, "Stream Capture") */
        g_stats[GEN_CUEMU_STAT_CAPTURED]++;
        gen_cuemu_graph *g = s->cap;
        if (g->tail) g->tail->next = w;
        else g->head = w;
        g->tail = w;
        return;
    }
    if (w->kind == W_KERNEL || w->kind == W_FN) g_stats[GEN_CUEMU_STAT_HOST_LAUNCHES]++;
    if (w->kind == W_COPY || w->kind == W_COPY2D || w->kind == W_MEMSET)
        g_stats[GEN_CUEMU_STAT_HOST_COPIES]++;
    w->seq = ++s->seq;
    if (s->tail) s->tail->next = w;
    else s->head = w;
    s->tail = w;
}

/* ---- capture rules (CUDA Programming Guide, "Stream Capture": "Prohibited and Unhandled
 * Operations" and "Cross-stream Dependencies"; cudaStreamBeginCapture's capture modes) ----
 * Work queued on a capturing stream is recorded, not run. A call that would wait for it
 * (synchronising or querying the stream, the device, or an event recorded in the capture)
 * is an error, and so are the "potentially unsafe" calls (allocation, free, synchronous
 * copies) while a capture in global mode is under way on any thread, or a thread-local one
 * on the calling thread; each such error invalidates the capture, so that
 * cudaStreamEndCapture answers cudaErrorStreamCaptureInvalidated. Called locked. */

static void graph_unref(gen_cuemu_graph *g) {
    if (!g || --g->refs > 0) return;
    for (gen_cuemu_work *w = g->head, *next; w; w = next) {
        next = w->next;
        free_work(w);
    }
    free(g);
}

/* `st` is capturing: the call `fn` would wait for recorded work. */
static cudaError_t capture_violation(gen_cuemu_stream *st, const char *fn) {
    st->cap_invalid = 1;
    return gen_cuemu_error(cudaErrorStreamCaptureUnsupported,
                           "%s on a stream that is being captured: not permitted during "
                           "capture (the capture is invalidated)", fn);
}

/* A "potentially unsafe" call (allocation, free, synchronous copy): cudaSuccess, or the
 * error when a capture forbids it (and those captures are invalidated). */
static cudaError_t capture_unsafe(const char *fn) {
    int hit = 0;
    for (gen_cuemu_stream *x = g_streams; x; x = x->next)
        if (x->cap && (x->cap_mode == cudaStreamCaptureModeGlobal ||
                       (x->cap_mode == cudaStreamCaptureModeThreadLocal &&
                        pthread_equal(x->cap_thread, pthread_self())))) {
            x->cap_invalid = 1;
            hit = 1;
        }
    if (!hit) return cudaSuccess;
    return gen_cuemu_error(cudaErrorStreamCaptureUnsupported,
                           "%s while a stream capture is under way (global mode, or this "
                           "thread's thread-local capture): not permitted (the capture is "
                           "invalidated)", fn);
}

/* Whether a stream of `device` is capturing (a device-wide synchronisation then fails). */
static int device_capturing(int device) {
    int hit = 0;
    for (gen_cuemu_stream *x = g_streams; x; x = x->next)
        if (x->device == device && x->cap) {
            x->cap_invalid = 1;
            hit = 1;
        }
    return hit;
}

cudaError_t gen_cuemu_enqueue_fn(cudaStream_t s, const char *what, gen_cuemu_fn run,
                                 void (*release)(void *), void *arg) {
    gen_cuemu_stream *st = stream_of(s);
    if (!st) {
        release(arg);
        return gen_cuemu_error(cudaErrorInvalidResourceHandle, "%s on an unknown stream", what);
    }
    gen_cuemu_work *w = new_work(W_FN);
    if (!w) {
        release(arg);
        return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    }
    w->fn = run;
    w->release = release;
    w->arg = arg;
    w->what = what;
    push(st, w);
    return cudaSuccess;
}

/* ---- kernels --------------------------------------------------------------------------------- */

void gen_cuemu_launch_nomem(const char *name) {
    gen_cuemu_lock();
    gen_cuemu_error(cudaErrorMemoryAllocation, "launch of %s: out of host memory", name);
    gen_cuemu_unlock();
}

/* Failure injection, for tests of how the backend reports GPU failures (read once):
 *   GENESIS_CUEMU_NO_KERNEL_IMAGE=1  every launch fails as on a GPU the module has no code
 *                                    for (cudaErrorNoKernelImageForDevice, not sticky);
 *   GENESIS_CUEMU_FAULT=NAME:N       the N-th launch of a kernel whose name contains NAME
 *                                    faults when it runs (cudaErrorIllegalAddress, sticky),
 *                                    as a kernel with an out-of-bounds access would;
 *   GENESIS_CUEMU_LAUNCH_ERROR=NAME:N  the N-th launch of such a kernel is refused
 *                                    (cudaErrorLaunchOutOfResources, not sticky: the
 *                                    device stays usable), on whichever thread makes it. */
typedef struct inject_spec {
    char name[128];
    long nth, seen;
} inject_spec;
static struct {
    int read, no_image;
    inject_spec fault, refuse;
} g_inject;

static void inject_parse(const char *env, inject_spec *sp) {
    const char *f = getenv(env);
    const char *colon = f ? strrchr(f, ':') : NULL;
    if (f && colon && colon > f && (size_t)(colon - f) < sizeof sp->name) {
        memcpy(sp->name, f, (size_t)(colon - f));
        sp->nth = strtol(colon + 1, NULL, 10);
    }
}

/* 1 when this launch of `name` is the one `sp` asks for. */
static int inject_hit(inject_spec *sp, const char *name) {
    return sp->nth > 0 && strstr(name, sp->name) && ++sp->seen == sp->nth;
}

static void inject_read(void) {
    if (g_inject.read) return;
    g_inject.read = 1;
    const char *v = getenv("GENESIS_CUEMU_NO_KERNEL_IMAGE");
    g_inject.no_image = v && *v && strcmp(v, "0") != 0;
    inject_parse("GENESIS_CUEMU_FAULT", &g_inject.fault);
    inject_parse("GENESIS_CUEMU_LAUNCH_ERROR", &g_inject.refuse);
}

/* A kernel node of a graph being replayed: GENESIS_CUEMU_FAULT counts it as a launch. */
static int inject_replay(const char *name) {
    inject_read();
    return inject_hit(&g_inject.fault, name);
}

void gen_cuemu_enqueue_kernel(gen_cuemu_kernel *k, cudaStream_t s) {
    gen_cuemu_lock();
    inject_read();
    gen_cuemu_stream *st = stream_of(s);
    const dim3 g = k->grid, b = k->block;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    size_t shared = k->smem + gen_cuemu_static_shared();
    if (g_sticky != cudaSuccess) {
        t_last = g_sticky;
        k->destroy(k);
    } else if (g_inject.no_image) {
        gen_cuemu_error(cudaErrorNoKernelImageForDevice,
                        "launch of %s: no kernel image for this device "
                        "(GENESIS_CUEMU_NO_KERNEL_IMAGE)", k->name);
        k->destroy(k);
    } else if (inject_hit(&g_inject.refuse, k->name)) {
        gen_cuemu_error(cudaErrorLaunchOutOfResources,
                        "launch of %s refused (GENESIS_CUEMU_LAUNCH_ERROR)", k->name);
        k->destroy(k);
    } else if (!st) {
        gen_cuemu_error(cudaErrorInvalidResourceHandle, "launch of %s on an unknown stream",
                        k->name);
        k->destroy(k);
    } else if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z || b.x > 1024 || b.y > 1024 ||
               b.z > 64 || threads > 1024 || g.x > 2147483647u || g.y > 65535 || g.z > 65535) {
        gen_cuemu_error(cudaErrorInvalidConfiguration,
                        "launch of %s with grid (%u,%u,%u) block (%u,%u,%u): invalid "
                        "configuration", k->name, g.x, g.y, g.z, b.x, b.y, b.z);
        k->destroy(k);
    } else if (shared > GEN_CUEMU_SHARED_LIMIT) {
        gen_cuemu_error(cudaErrorInvalidValue,
                        "launch of %s asks for %zu bytes of shared memory (static + dynamic; "
                        "limit %zu)", k->name, shared, GEN_CUEMU_SHARED_LIMIT);
        k->destroy(k);
    } else {
        gen_cuemu_work *w = new_work(W_KERNEL);
        if (!w) {
            gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
            k->destroy(k);
        } else {
            w->k = k;
            /* a captured kernel is counted when a replay runs it (inject_replay) */
            if (!st->cap && inject_hit(&g_inject.fault, k->name)) w->inject_fault = 1;
            push(st, w);
            gen_cuemu_unlock();
            return;
        }
    }
    /* a launch that failed during capture invalidates it, as on a GPU */
    if (st && st->cap) st->cap_invalid = 1;
    gen_cuemu_unlock();
}

/* ---- errors ---------------------------------------------------------------------------------- */

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorNoKernelImageForDevice:
        return "no kernel image is available for execution on the device";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorCapturedEvent:
        return "operation not permitted on an event last recorded in a capturing stream";
    case cudaErrorStreamCaptureWrongThread:
        return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotPermitted: return "operation not permitted";
    case cudaErrorNotSupported: return "operation not supported";
    }
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorNoKernelImageForDevice: return "cudaErrorNoKernelImageForDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorCapturedEvent: return "cudaErrorCapturedEvent";
    case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNotPermitted: return "cudaErrorNotPermitted";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    }
    return "cudaErrorUnknown";
}

cudaError_t cudaGetLastError(void) {
    gen_cuemu_lock();
    cudaError_t e = g_sticky != cudaSuccess ? g_sticky : t_last;
    t_last = cudaSuccess;
    gen_cuemu_unlock();
    return e;
}

cudaError_t cudaPeekAtLastError(void) {
    gen_cuemu_lock();
    cudaError_t e = g_sticky != cudaSuccess ? g_sticky : t_last;
    gen_cuemu_unlock();
    return e;
}

/* ---- devices --------------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *n) {
    gen_cuemu_lock();
    int d = ndevices();
    gen_cuemu_unlock();
    *n = d;
    if (d == 0) return gen_cuemu_error(cudaErrorNoDevice, NULL);
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    gen_cuemu_lock();
    int n = ndevices();
    gen_cuemu_unlock();
    if (device < 0 || device >= n) return gen_cuemu_error(cudaErrorInvalidDevice, NULL);
    t_device = device;
    gen_cuemu_lock();
    ctx_touch(device);
    gen_cuemu_unlock();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
    *device = t_device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device) {
    gen_cuemu_lock();
    int n = ndevices();
    gen_cuemu_unlock();
    if (!p) return gen_cuemu_error(cudaErrorInvalidValue, NULL);
    if (device < 0 || device >= n) return gen_cuemu_error(cudaErrorInvalidDevice, NULL);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Genesis CUDA emulator (emulated sm_90, not a GPU)");
    p->totalGlobalMem = GEN_CUEMU_TOTAL_MEM;
    p->sharedMemPerBlock = GEN_CUEMU_SHARED_LIMIT;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = GEN_CUEMU_SM_COUNT;
    p->pciDomainID = 0;
    p->pciBusID = 0xe0 + device;
    p->pciDeviceID = 0;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    gen_cuemu_lock();
    ctx_touch(t_device);
    size_t live = g_live[t_device];
    gen_cuemu_unlock();
    *total_bytes = GEN_CUEMU_TOTAL_MEM;
    *free_bytes = live < GEN_CUEMU_TOTAL_MEM ? GEN_CUEMU_TOTAL_MEM - live : 0;
    return cudaSuccess;
}

/* ---- synchronisation ------------------------------------------------------------------------- */

/* A device-wide synchronisation (cudaFree, cudaFreeHost, cudaDeviceSynchronize) waits for
 * every queued kernel, NCCL's included. When a peer rank of a communicator this thread
 * holds has queued a collective that this thread's rank has not issued yet, the peer's
 * collective waits for this thread and this thread for it: on a GPU that never returns
 * (the NCCL documentation's warning about cudaFree beside NCCL kernels). The emulator
 * refuses the call (cudaErrorNotPermitted, not sticky) with both ranks named, instead of
 * hanging in some interleavings and passing in others. Called locked. */
static cudaError_t sync_hazard(const char *what) {
    char why[512];
    if (!gen_cuemu_nccl_sync_hazard(why, sizeof why)) return cudaSuccess;
    g_stats[GEN_CUEMU_STAT_SYNC_HAZARDS]++;
    return gen_cuemu_error(cudaErrorNotPermitted, "%s while %s: on a GPU this waits forever "
                           "(synchronise the device only where no collective can be in flight, "
                           "or free in stream order: cudaFreeAsync)", what, why);
}

cudaError_t cudaDeviceSynchronize(void) {
    gen_cuemu_lock();
    if (device_capturing(t_device)) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorStreamCaptureUnsupported,
                               "cudaDeviceSynchronize while a stream of the device is being "
                               "captured: not permitted (the capture is invalidated)");
    }
    cudaError_t hazard = sync_hazard("cudaDeviceSynchronize");
    if (hazard != cudaSuccess) {
        gen_cuemu_unlock();
        return hazard;
    }
    g_stats[GEN_CUEMU_STAT_DEVICE_SYNCS]++;
    g_stats[GEN_CUEMU_STAT_SYNCS]++;
    drain_device(t_device, 0);
    cudaError_t e = g_sticky;
    gen_cuemu_unlock();
    return e;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t e = cudaSuccess;
    if (!st) {
        e = gen_cuemu_error(cudaErrorInvalidResourceHandle,
                            "cudaStreamSynchronize: unknown stream");
    } else if (st->cap) {
        e = capture_violation(st, "cudaStreamSynchronize");
    } else {
        g_stats[GEN_CUEMU_STAT_STREAM_SYNCS]++;
        g_stats[GEN_CUEMU_STAT_SYNCS]++;
        if (st->legacy) drain_device(st->device, 1);
        else drain(st, UINT64_MAX);
        e = g_sticky;
    }
    gen_cuemu_unlock();
    return e;
}

cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
    gen_cuemu_stream *st = (gen_cuemu_stream *)calloc(1, sizeof *st);
    if (!st) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    gen_cuemu_lock();
    ctx_touch(t_device);
    st->device = t_device;
    st->flags = flags;
    st->next = g_streams;
    g_streams = st;
    gen_cuemu_unlock();
    *s = st;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    gen_cuemu_lock();
    gen_cuemu_stream **pp = &g_streams;
    while (*pp && *pp != s) pp = &(*pp)->next;
    if (!s || !*pp) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: unknown stream");
    }
    drain(s, UINT64_MAX); /* queued work completes before the stream goes */
    graph_unref(s->cap);  /* an unfinished capture is dropped */
    *pp = s->next;
    free(s);
    gen_cuemu_unlock();
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
    gen_cuemu_event *ev = (gen_cuemu_event *)calloc(1, sizeof *ev);
    if (!ev) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    ev->flags = flags;
    *e = ev;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!e) return gen_cuemu_error(cudaErrorInvalidResourceHandle, NULL);
    gen_cuemu_lock();
    if (e->item) e->item->ev = NULL; /* the queued record completes without it */
    gen_cuemu_unlock();
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    if (!e) return gen_cuemu_error(cudaErrorInvalidResourceHandle, NULL);
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    gen_cuemu_work *w = st ? new_work(W_EVENT) : NULL;
    cudaError_t r = cudaSuccess;
    if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaEventRecord: unknown stream");
    } else if (!w) {
        r = gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    } else if (st->cap) { /* a point of the capture, not of the stream's execution */
        free(w);
        if (e->item) e->item->ev = NULL;
        e->item = NULL;
        e->stream = st;
        e->captured = 1;
    } else {
        if (e->item) e->item->ev = NULL; /* a re-record replaces the earlier one */
        e->captured = 0;
        w->ev = e;
        push(st, w);
        e->stream = st;
        e->seq = w->seq;
        e->item = w;
    }
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    if (!e) return gen_cuemu_error(cudaErrorInvalidResourceHandle, NULL);
    gen_cuemu_lock();
    if (e->captured) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorCapturedEvent, "cudaEventSynchronize on an event "
                               "recorded in a capturing stream: not permitted");
    }
    g_stats[GEN_CUEMU_STAT_EVENT_SYNCS]++;
    g_stats[GEN_CUEMU_STAT_SYNCS]++;
    if (e->item) drain(e->stream, e->seq);
    cudaError_t r = g_sticky;
    gen_cuemu_unlock();
    return r;
}

/* Polling (cudaStreamQuery/cudaEventQuery) is how a host waits without blocking, so a query
 * must let the work progress: a query that finds work pending runs it and answers
 * cudaErrorNotReady ("not yet"); the next query answers cudaSuccess. Code that polls until
 * success is thus synchronised; code that reads results after one query is not. */
cudaError_t cudaEventQuery(cudaEvent_t e) {
    if (!e) return gen_cuemu_error(cudaErrorInvalidResourceHandle, NULL);
    gen_cuemu_lock();
    cudaError_t r = g_sticky;
    if (e->captured) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorCapturedEvent, "cudaEventQuery on an event recorded "
                               "in a capturing stream: not permitted");
    }
    if (r == cudaSuccess && e->item) {
        g_stats[GEN_CUEMU_STAT_QUERIES]++;
        drain(e->stream, e->seq);
        r = g_sticky != cudaSuccess ? g_sticky : cudaErrorNotReady;
    }
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaStreamQuery(cudaStream_t s) {
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t r = g_sticky;
    if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaStreamQuery: unknown stream");
    } else if (st->cap) {
        r = capture_violation(st, "cudaStreamQuery");
    } else if (r == cudaSuccess && (st->head || st->busy)) {
        g_stats[GEN_CUEMU_STAT_QUERIES]++;
        drain(st, UINT64_MAX);
        r = g_sticky != cudaSuccess ? g_sticky : cudaErrorNotReady;
    }
    gen_cuemu_unlock();
    return r;
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* Device memory of `bytes` on the current device (lock held). */
static cudaError_t alloc_device(void **p, size_t bytes) {
    if (g_live[t_device] + bytes > GEN_CUEMU_TOTAL_MEM)
        return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    /* the exact size (ASan sees a kernel's out-of-bounds access), aligned to 256 bytes as
     * cudaMalloc's memory is (the CUDA Programming Guide; cuBLASLt's algorithms may rely on it) */
    void *m = NULL;
    if (posix_memalign(&m, 256, bytes ? bytes : 1) != 0) m = NULL;
    if (!m) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    memset(m, 0xff, bytes); /* NaN: reading memory never written shows */
    alloc_rec rec = {bytes, 0, t_device, 0};
    allocs()[(uintptr_t)m] = rec;
    g_live[t_device] += bytes;
    if (g_live[t_device] > g_peak[t_device]) g_peak[t_device] = g_live[t_device];
    *p = m;
    return cudaSuccess;
}

/* GENESIS_CUEMU_MEMORY_REPORT (see the top): written when the process ends. */
__attribute__((destructor)) static void memory_report(void) {
    const char *path = getenv("GENESIS_CUEMU_MEMORY_REPORT");
    if (!path || !*path || g_ndev < 0) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (int d = 0; d < g_ndev; d++)
        fprintf(f, "device %d peak %zu live %zu\n", d, g_peak[d], g_live[d]);
    fclose(f);
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
    *p = NULL;
    if (bytes == 0) return cudaSuccess;
    gen_cuemu_lock();
    ctx_touch(t_device);
    cudaError_t r = cudaSuccess;
    if (g_sticky != cudaSuccess) r = gen_cuemu_error(g_sticky, NULL);
    else if ((r = capture_unsafe("cudaMalloc")) == cudaSuccess) r = alloc_device(p, bytes);
    gen_cuemu_unlock();
    return r;
}

/* Stream-ordered allocation and free (CUDA Programming Guide, "Stream Ordered Memory
 * Allocator"): neither synchronises anything, which is why a backend that shares its
 * device with NCCL ranks of the same process grows its buffers with them (docs/cuda.md,
 * "NCCL and device-wide synchronisation"). The memory is allocated at once (use in the
 * stream's order is the caller's promise) and freed when the stream reaches the free.
 * In a capture CUDA would record memory nodes, which the emulator does not: refused. */
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
    if (!p) return gen_cuemu_error(cudaErrorInvalidValue, "cudaMallocAsync: NULL pointer");
    *p = NULL;
    gen_cuemu_lock();
    ctx_touch(t_device);
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t r = cudaSuccess;
    if (g_sticky != cudaSuccess) r = gen_cuemu_error(g_sticky, NULL);
    else if (!st) r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaMallocAsync: unknown stream");
    else if (st->cap) r = capture_violation(st, "cudaMallocAsync (graph memory nodes are not emulated)");
    else if (bytes) r = alloc_device(p, bytes);
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
    if (!p) return cudaSuccess;
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    std::map<uintptr_t, alloc_rec>::iterator it = allocs().find((uintptr_t)p);
    cudaError_t r = cudaSuccess;
    gen_cuemu_work *w = NULL;
    if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaFreeAsync: unknown stream");
    } else if (st->cap) {
        r = capture_violation(st, "cudaFreeAsync (graph memory nodes are not emulated)");
    } else if (it == allocs().end() || it->second.pinned || it->second.freeing) {
        r = gen_cuemu_error(cudaErrorInvalidValue, "cudaFreeAsync(%p): not the start of a live "
                            "device allocation%s", p,
                            it != allocs().end() && it->second.freeing ? " (already freed)" : "");
    } else if (!(w = new_work(W_FREE))) {
        r = gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    } else {
        it->second.freeing = 1;
        w->dst = p;
        push(st, w);
    }
    gen_cuemu_unlock();
    return r;
}

static cudaError_t free_kind(void *p, int pinned, const char *what) {
    if (!p) return cudaSuccess;
    gen_cuemu_lock();
    cudaError_t unsafe = capture_unsafe(what);
    if (unsafe != cudaSuccess) {
        gen_cuemu_unlock();
        return unsafe;
    }
    std::map<uintptr_t, alloc_rec>::iterator it = allocs().find((uintptr_t)p);
    if (it == allocs().end() || it->second.pinned != pinned || it->second.freeing) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorInvalidValue, "%s(%p): not the start of a live %s "
                               "allocation", what, p, pinned ? "pinned host" : "device");
    }
    cudaError_t hazard = sync_hazard(what);
    if (hazard != cudaSuccess) {
        gen_cuemu_unlock();
        return hazard;
    }
    g_stats[GEN_CUEMU_STAT_FREE_SYNCS]++;
    /* cudaFree/cudaFreeHost synchronise implicitly: queued work may still use the memory */
    for (int d = 0; d < ndevices(); d++) drain_device(d, 0);
    it = allocs().find((uintptr_t)p); /* the drains may have waited unlocked */
    if (it == allocs().end()) {
        gen_cuemu_unlock();
        return gen_cuemu_error(cudaErrorInvalidValue, "%s(%p): freed by another thread meanwhile",
                               what, p);
    }
    if (!pinned) g_live[it->second.device] -= it->second.size;
    allocs().erase(it);
    free(p);
    gen_cuemu_unlock();
    return cudaSuccess;
}

cudaError_t cudaFree(void *p) { return free_kind(p, 0, "cudaFree"); }
cudaError_t cudaFreeHost(void *p) { return free_kind(p, 1, "cudaFreeHost"); }

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags) {
    (void)flags;
    *p = NULL;
    gen_cuemu_lock();
    cudaError_t unsafe = capture_unsafe("cudaHostAlloc");
    gen_cuemu_unlock();
    if (unsafe != cudaSuccess) return unsafe;
    void *m = malloc(bytes ? bytes : 1);
    if (!m) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    memset(m, 0xff, bytes ? bytes : 1);
    gen_cuemu_lock();
    alloc_rec rec = {bytes ? bytes : 1, 1, t_device, 0};
    allocs()[(uintptr_t)m] = rec;
    gen_cuemu_unlock();
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes) { return cudaHostAlloc(p, bytes, 0); }

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
    if (!a) return gen_cuemu_error(cudaErrorInvalidValue, NULL);
    memset(a, 0, sizeof *a);
    gen_cuemu_lock();
    const alloc_rec *r = find_alloc(p, NULL);
    if (r && r->pinned) {
        a->type = cudaMemoryTypeHost;
        a->hostPointer = (void *)p;
        a->devicePointer = (void *)p;
    } else if (r) {
        a->type = cudaMemoryTypeDevice;
        a->devicePointer = (void *)p;
    } else {
        a->type = cudaMemoryTypeUnregistered;
        a->hostPointer = (void *)p;
    }
    a->device = r ? r->device : -2;
    gen_cuemu_unlock();
    return cudaSuccess;
}

/* ---- copies and memsets ---------------------------------------------------------------------- */

static const char *kind_name(cudaMemcpyKind k) {
    switch (k) {
    case cudaMemcpyHostToHost: return "host to host";
    case cudaMemcpyHostToDevice: return "host to device";
    case cudaMemcpyDeviceToHost: return "device to host";
    case cudaMemcpyDeviceToDevice: return "device to device";
    default: return "default";
    }
}

/* The common part of cudaMemcpy and cudaMemcpyAsync (lock held). sync: the synchronous
 * call (runs at once, after the legacy stream's implicit synchronisation). */
static cudaError_t copy_locked(const char *fn, void *dst, const void *src, size_t bytes,
                               cudaMemcpyKind kind, gen_cuemu_stream *st, int sync) {
    if (g_sticky != cudaSuccess) return gen_cuemu_error(g_sticky, NULL);
    if (!st) return gen_cuemu_error(cudaErrorInvalidResourceHandle, "%s: unknown stream", fn);
    if (bytes == 0) return cudaSuccess;
    const alloc_rec *rd = find_alloc(dst, NULL), *rs = find_alloc(src, NULL);
    int dst_dev = rd && !rd->pinned, src_dev = rs && !rs->pinned;
    if (kind == cudaMemcpyDefault)
        kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                       : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    int want_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    int want_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (want_dst_dev ? !in_range(dst, bytes, 0) : dst_dev)
        return gen_cuemu_error(cudaErrorInvalidValue, "%s (%s, %zu bytes): destination %p is %s",
                               fn, kind_name(kind), bytes, dst,
                               want_dst_dev ? "not inside one live device allocation"
                                            : "device memory");
    if (want_src_dev ? !in_range(src, bytes, 0) : src_dev)
        return gen_cuemu_error(cudaErrorInvalidValue, "%s (%s, %zu bytes): source %p is %s", fn,
                               kind_name(kind), bytes, src,
                               want_src_dev ? "not inside one live device allocation"
                                            : "device memory");
    int dst_pinned = rd && rd->pinned, src_pinned = rs && rs->pinned;
    if ((dst_pinned && !in_range(dst, bytes, 1)) || (src_pinned && !in_range(src, bytes, 1)))
        return gen_cuemu_error(cudaErrorInvalidValue, "%s (%s, %zu bytes): runs past the end "
                               "of a pinned allocation", fn, kind_name(kind), bytes);
    /* synchronous: the call itself, D2H/H2H into pageable memory, and H2H */
    int now = sync || (kind == cudaMemcpyDeviceToHost && !dst_pinned) ||
              kind == cudaMemcpyHostToHost;
    if (st->cap && now) return capture_violation(st, "a synchronous copy (into pageable memory)");
    if (st->cap && kind == cudaMemcpyHostToDevice && !src_pinned)
        return capture_violation(st, "a copy from pageable host memory (the emulator records "
                                     "only pinned host memory in a graph)");
    if (now) {
        g_stats[GEN_CUEMU_STAT_SYNC_COPIES]++;
        g_stats[GEN_CUEMU_STAT_SYNCS]++;
        if (st->legacy) drain_device(st->device, 1);
        else drain(st, UINT64_MAX);
        if (g_sticky != cudaSuccess) return gen_cuemu_error(g_sticky, NULL);
        memcpy(dst, src, bytes);
        return cudaSuccess;
    }
    gen_cuemu_work *w = new_work(W_COPY);
    if (!w) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    w->dst = dst;
    w->src = src;
    w->bytes = bytes;
    if (kind == cudaMemcpyHostToDevice && !src_pinned) { /* pageable: snapshot now */
        w->owned = malloc(bytes);
        if (!w->owned) {
            free(w);
            return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
        }
        memcpy(w->owned, src, bytes);
    }
    push(st, w);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s) {
    gen_cuemu_lock();
    cudaError_t r = copy_locked("cudaMemcpyAsync", dst, src, bytes, kind, stream_of(s), 0);
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    gen_cuemu_lock();
    cudaError_t r = capture_unsafe("cudaMemcpy");
    if (r == cudaSuccess)
        r = copy_locked("cudaMemcpy", dst, src, bytes, kind, &g_legacy[t_device], 1);
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s) {
    gen_cuemu_lock();
    cudaError_t r = cudaSuccess;
    gen_cuemu_stream *st = stream_of(s);
    if (g_sticky != cudaSuccess) {
        r = gen_cuemu_error(g_sticky, NULL);
    } else if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaMemcpy2DAsync: unknown stream");
    } else if (width > dpitch || width > spitch) {
        r = gen_cuemu_error(cudaErrorInvalidPitchValue, "cudaMemcpy2DAsync: width %zu is "
                            "larger than a pitch (%zu, %zu)", width, dpitch, spitch);
    } else if (kind != cudaMemcpyDeviceToDevice) {
        r = gen_cuemu_error(cudaErrorInvalidMemcpyDirection, "cudaMemcpy2DAsync: only device "
                            "to device copies are emulated");
    } else if (width && height) {
        size_t dext = (height - 1) * dpitch + width, sext = (height - 1) * spitch + width;
        if (!in_range(dst, dext, 0) || !in_range(src, sext, 0)) {
            r = gen_cuemu_error(cudaErrorInvalidValue, "cudaMemcpy2DAsync (%zu rows of %zu "
                                "bytes, pitches %zu/%zu): outside a live device allocation",
                                height, width, dpitch, spitch);
        } else {
            gen_cuemu_work *w = new_work(W_COPY2D);
            if (!w) {
                r = gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
            } else {
                w->dst = dst;
                w->src = src;
                w->bytes = width;
                w->dpitch = dpitch;
                w->spitch = spitch;
                w->height = height;
                push(st, w);
            }
        }
    }
    gen_cuemu_unlock();
    return r;
}

static cudaError_t memset_locked(const char *fn, void *p, int value, size_t bytes,
                                 gen_cuemu_stream *st) {
    if (g_sticky != cudaSuccess) return gen_cuemu_error(g_sticky, NULL);
    if (!st) return gen_cuemu_error(cudaErrorInvalidResourceHandle, "%s: unknown stream", fn);
    if (bytes == 0) return cudaSuccess;
    if (!in_range(p, bytes, 0))
        return gen_cuemu_error(cudaErrorInvalidValue, "%s(%p, %zu bytes): not inside one live "
                               "device allocation", fn, p, bytes);
    gen_cuemu_work *w = new_work(W_MEMSET);
    if (!w) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    w->dst = p;
    w->value = value;
    w->bytes = bytes;
    push(st, w);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s) {
    gen_cuemu_lock();
    cudaError_t r = memset_locked("cudaMemsetAsync", p, value, bytes, stream_of(s));
    gen_cuemu_unlock();
    return r;
}

/* "The cudaMemset functions are asynchronous with respect to the host except when the
 * target memory is pinned host memory" (API synchronization behavior): device memory only
 * here, so it is queued on the legacy stream. */
cudaError_t cudaMemset(void *p, int value, size_t bytes) {
    gen_cuemu_lock();
    cudaError_t r = memset_locked("cudaMemset", p, value, bytes, &g_legacy[t_device]);
    gen_cuemu_unlock();
    return r;
}

/* ---- stream capture and graphs ---------------------------------------------------------------- */

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t r = cudaSuccess;
    if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaStreamBeginCapture: unknown stream");
    } else if (st->legacy) {
        r = gen_cuemu_error(cudaErrorStreamCaptureUnsupported,
                            "cudaStreamBeginCapture: the legacy (NULL) stream cannot be captured");
    } else if (st->cap) {
        r = gen_cuemu_error(cudaErrorIllegalState,
                            "cudaStreamBeginCapture: the stream is already being captured");
    } else if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
               mode != cudaStreamCaptureModeRelaxed) {
        r = gen_cuemu_error(cudaErrorInvalidValue, "cudaStreamBeginCapture: mode %d", (int)mode);
    } else if (g_sticky != cudaSuccess) {
        r = gen_cuemu_error(g_sticky, NULL);
    } else {
        st->cap = (gen_cuemu_graph *)calloc(1, sizeof *st->cap);
        if (!st->cap) {
            r = gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
        } else {
            st->cap->refs = 1;
            st->cap_mode = mode;
            st->cap_invalid = 0;
            st->cap_thread = pthread_self();
        }
    }
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph) {
    *graph = NULL;
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t r = cudaSuccess;
    if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaStreamEndCapture: unknown stream");
    } else if (!st->cap) {
        r = gen_cuemu_error(cudaErrorIllegalState,
                            "cudaStreamEndCapture: the stream is not being captured");
    } else if (st->cap_mode != cudaStreamCaptureModeRelaxed &&
               !pthread_equal(st->cap_thread, pthread_self())) {
        r = gen_cuemu_error(cudaErrorStreamCaptureWrongThread,
                            "cudaStreamEndCapture from a thread other than the one that began "
                            "the capture");
    } else {
        gen_cuemu_graph *g = st->cap;
        st->cap = NULL;
        if (st->cap_invalid) {
            graph_unref(g);
            r = gen_cuemu_error(cudaErrorStreamCaptureInvalidated,
                                "cudaStreamEndCapture: the capture was invalidated by a call "
                                "not permitted during capture (reported above)");
        } else {
            *graph = g;
        }
    }
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status) {
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    cudaError_t r = cudaSuccess;
    if (!st) r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaStreamIsCapturing: unknown stream");
    else *status = !st->cap ? cudaStreamCaptureStatusNone
                            : st->cap_invalid ? cudaStreamCaptureStatusInvalidated
                                              : cudaStreamCaptureStatusActive;
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags) {
    (void)flags;
    *exec = NULL;
    if (!graph) return gen_cuemu_error(cudaErrorInvalidValue, "cudaGraphInstantiate: no graph");
    gen_cuemu_graph_exec *x = (gen_cuemu_graph_exec *)calloc(1, sizeof *x);
    if (!x) return gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    gen_cuemu_lock();
    x->g = graph;
    graph->refs++;
    gen_cuemu_unlock();
    *exec = x;
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
    if (!exec) return gen_cuemu_error(cudaErrorInvalidValue, "cudaGraphLaunch: no graph");
    gen_cuemu_lock();
    gen_cuemu_stream *st = stream_of(s);
    gen_cuemu_work *w = NULL;
    cudaError_t r = cudaSuccess;
    if (g_sticky != cudaSuccess) {
        r = gen_cuemu_error(g_sticky, NULL);
    } else if (!st) {
        r = gen_cuemu_error(cudaErrorInvalidResourceHandle, "cudaGraphLaunch: unknown stream");
    } else if (!(w = new_work(W_GRAPH))) {
        r = gen_cuemu_error(cudaErrorMemoryAllocation, NULL);
    } else {
        w->graph = exec->g;
        exec->g->refs++;
        if (!st->cap) g_stats[GEN_CUEMU_STAT_GRAPH_LAUNCHES]++;
        push(st, w); /* into a capture: a child graph */
    }
    gen_cuemu_unlock();
    return r;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    if (!exec) return cudaSuccess;
    gen_cuemu_lock();
    graph_unref(exec->g); /* launches still queued hold their own reference */
    gen_cuemu_unlock();
    free(exec);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    gen_cuemu_lock();
    graph_unref(graph);
    gen_cuemu_unlock();
    return cudaSuccess;
}

/* ---- what the module exports besides the backend --------------------------------------------- */

/* Present only in the emulated module: src/backend/cuda_module.c refuses a module that has it unless
 * GENESIS_CUDA_EMULATOR=1 asks for the emulator. */
extern "C" __attribute__((visibility("default"))) int genesis_cuda_module_emulated(void) {
    return 1;
}

/* Copies up to `cap` counters into out (order: the GEN_CUEMU_STAT_* enum of cuemu_internal.h:
 * syncs, stream syncs, device syncs, event syncs, synchronous copies, kernels, blocks, gemms,
 * implicit syncs of cudaFree, queries that found work pending, contexts, host launches, host
 * copies, graph launches, captured work) and returns how many exist. */
extern "C" __attribute__((visibility("default"))) int genesis_cuda_module_emu_stats(
    unsigned long long *out, int cap) {
    gen_cuemu_lock();
    for (int i = 0; i < cap && i < GEN_CUEMU_STAT_N; i++) out[i] = g_stats[i];
    gen_cuemu_unlock();
    return GEN_CUEMU_STAT_N;
}
