/*
 * cuemu_internal.h (Genesis CUDA emulator) — what the emulator's own files share: the global
 * lock, the per-stream queues of deferred work, the allocation table, sticky errors and the
 * counters (runtime.cc), the block scheduler (exec.cc), and the fibers (fiber.cc).
 * Everything here is called with the global lock held unless said otherwise.
 */
#ifndef GEN_CUEMU_INTERNAL_H
#define GEN_CUEMU_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime.h"

#define GEN_CUEMU_MAX_DEVICES 16
#define GEN_CUEMU_SHARED_LIMIT ((size_t)48 << 10) /* static + dynamic shared memory per block */

/* ---- runtime.cc ---------------------------------------------------------------------- */
void gen_cuemu_lock(void);
void gen_cuemu_unlock(void);
/* Waits on `cv` with the global lock released meanwhile (the emulated NCCL's rendezvous). */
void gen_cuemu_wait(pthread_cond_t *cv);
/* Records the calling thread's last error and returns it; `fmt` (may be NULL) goes to stderr. */
cudaError_t gen_cuemu_error(cudaError_t e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The sticky error (a fault in executed work), cudaSuccess if none. */
cudaError_t gen_cuemu_sticky(void);

/* A generic deferred operation (cuBLAS uses it): run() returns 0, or -1 with a message. */
typedef int (*gen_cuemu_fn)(void *arg, char *msg, size_t cap);
cudaError_t gen_cuemu_enqueue_fn(cudaStream_t s, const char *what, gen_cuemu_fn run,
                                 void (*release)(void *), void *arg);
/* Whether [p, p + bytes) lies inside one live device allocation. */
int gen_cuemu_device_range(const void *p, size_t bytes);

/* The product of cublasSgemm / cublasGemmEx / cublasLtMatmul (cublas.cc), arguments checked
 * by the caller: C (ld ldc) = relu?(alpha op(A) op(B) + beta Cin (ld ldcin) + bias?) queued on
 * `stream`; device_scalars: alpha and beta are device pointers read at execution. */
#ifdef GEN_CUEMU_CUBLAS_V2_H
cublasStatus_t gen_cuemu_gemm_enqueue(cudaStream_t stream, cublasOperation_t transa,
                                      cublasOperation_t transb, int m, int n, int k,
                                      const float *alpha, const void *A, int lda, const void *B,
                                      int ldb, const float *beta, const float *Cin, int ldcin,
                                      float *C, int ldc, const float *bias, int relu, int type,
                                      int tf32, int device_scalars, const char *name);
#endif /* GEN_CUEMU_CUBLAS_V2_H */
/* Counters (genesis_cuda_module_emu_stats). */
enum {
    GEN_CUEMU_STAT_SYNCS,        /* all synchronisations below, added up */
    GEN_CUEMU_STAT_STREAM_SYNCS, /* cudaStreamSynchronize */
    GEN_CUEMU_STAT_DEVICE_SYNCS, /* cudaDeviceSynchronize */
    GEN_CUEMU_STAT_EVENT_SYNCS,  /* cudaEventSynchronize */
    GEN_CUEMU_STAT_SYNC_COPIES,  /* cudaMemcpy, and async copies into pageable memory */
    GEN_CUEMU_STAT_KERNELS,      /* kernels executed */
    GEN_CUEMU_STAT_BLOCKS,       /* blocks executed */
    GEN_CUEMU_STAT_GEMMS,        /* cublasSgemm executed */
    GEN_CUEMU_STAT_FREE_SYNCS,   /* implicit synchronisations of cudaFree/cudaFreeHost */
    GEN_CUEMU_STAT_QUERIES,      /* cudaStreamQuery/cudaEventQuery that found work pending */
    GEN_CUEMU_STAT_CONTEXTS,     /* devices whose primary context a call created (see
                                    runtime.cc, "contexts") */
    GEN_CUEMU_STAT_HOST_LAUNCHES, /* kernel launches and library calls (cuBLAS, NCCL) the host
                                     queued on a stream directly (not recorded by a capture) */
    GEN_CUEMU_STAT_HOST_COPIES,  /* async copies and memsets the host queued directly */
    GEN_CUEMU_STAT_GRAPH_LAUNCHES, /* cudaGraphLaunch */
    GEN_CUEMU_STAT_CAPTURED,     /* work recorded into a graph by stream capture */
    GEN_CUEMU_STAT_SYNC_HAZARDS, /* device-wide synchronisations refused: a peer's NCCL
                                    collective was waiting for this thread (sync_hazard) */
    GEN_CUEMU_STAT_N
};
void gen_cuemu_count(int which);
/* Clears the sticky error (tests/cuemu/test_cuemu.cc only: a GPU never forgets one). */
void gen_cuemu_reset_sticky(void);
/* The module's exported counters (runtime.cc). */
extern "C" int genesis_cuda_module_emu_stats(unsigned long long *out, int cap);

/* ---- nccl.cc ---------------------------------------------------------------------------- */
/* 1 (and why, in msg) when a rank of a communicator held by the calling thread has not yet
 * issued a collective that a peer rank has queued: a device-wide synchronisation would wait
 * for the peer, and the peer for this thread. Called locked. */
int gen_cuemu_nccl_sync_hazard(char *msg, size_t cap);

/* ---- exec.cc ---------------------------------------------------------------------------- */
/* Runs every block of a launch; 0, or -1 with "kernel K: block (..) thread (..): why". */
int gen_cuemu_exec_kernel(gen_cuemu_kernel *k, char *msg, size_t cap);
/* Bytes of static shared memory in the module (the section gen_cuemu_shared). */
size_t gen_cuemu_static_shared(void);

/* ---- fiber.cc --------------------------------------------------------------------------- */
/* Takes a stack from the pool for `t` (NULL when out of memory). */
void *gen_cuemu_stack_get(void);
/* Returns a stack to the pool; abandoned: its fiber was dropped mid-kernel (a fault). */
void gen_cuemu_stack_put(void *stack, int abandoned);
/* Prepares `t` (whose t->stack is set) to run fn() from the top of its stack. */
void gen_cuemu_fiber_start(gen_cuemu_thread *t, void (*fn)(void));
/* Scheduler -> t; returns when t yields or exits. */
void gen_cuemu_fiber_resume(gen_cuemu_thread *t);
/* t -> scheduler (t waits); returns when the scheduler resumes t. */
void gen_cuemu_fiber_yield(gen_cuemu_thread *t);
/* t -> scheduler for good; never returns. (Not declared noreturn: under ASan a call to a
 * noreturn function first unpoisons the whole stack, which costs more than the thread.) */
void gen_cuemu_fiber_exit(gen_cuemu_thread *t);

#endif /* GEN_CUEMU_INTERNAL_H */
