/*
 * cuemu_device.h (Genesis CUDA emulator) — the device-side language of CUDA C++ for the host
 * compiler, and the launch object that GEN_LAUNCH (cuda/cuda_common.cuh) becomes when
 * the .cu files of cuda/ are compiled by g++ instead of nvcc:
 *   - __global__/__device__/__host__/__forceinline__ qualifiers (no meaning on the host);
 *   - __shared__: a static variable in the ELF section gen_cuemu_shared; the emulator fills
 *     the whole section with 0xFF bytes (NaN) before every block, so reading shared memory
 *     before writing it shows; blocks therefore run one at a time per process;
 *   - dim3/uint3 and threadIdx/blockIdx/blockDim/gridDim (the running fiber's values);
 *   - atomicAdd on unsigned and __threadfence (trivial: blocks run one at a time);
 *   - __syncthreads and the warp primitives (__shfl_*_sync, __any/__all/__ballot_sync):
 *     real exchanges between the fibers of the block / the 32 lanes of the warp, with the
 *     semantics of the CUDA C++ Programming Guide ("Warp Shuffle Functions", "Warp Vote
 *     Functions"); the exchange itself is in exec.cc;
 *   - gen_cuemu_launch(kernel, name, grid, block, smem, stream) returns an object whose
 *     call operator takes the kernel's arguments, copies them (by value, converted to the
 *     parameter types, as a launch does) and queues the launch on the stream.
 */
#ifndef GEN_CUEMU_DEVICE_H
#define GEN_CUEMU_DEVICE_H

#include <stdint.h>
#include <string.h>

#include <new>
#include <tuple>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static __attribute__((section("gen_cuemu_shared"), aligned(16)))

struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

/* One CUDA thread of the block being run (its fiber's bookkeeping lives in exec.cc). */
struct gen_cuemu_thread {
    uint3 idx;        /* threadIdx */
    int lin;          /* linear index in the block: x + y*bx + z*bx*by */
    int state;        /* exec.cc: ready, waiting at a barrier / warp operation, done */
    int wop;          /* the warp operation waited on */
    unsigned wmask;   /* its member mask */
    int warg, wwidth; /* lane / delta / xor mask, and width */
    uint64_t wval;    /* the value given */
    uint64_t wres;    /* the value received */
    void *sp;         /* saved context (fiber.cc) */
    void *stack;      /* the stack it runs on while started and not done */
    void *fake;       /* ASan's fake stack while switched out */
};

extern gen_cuemu_thread *gen_cuemu_self; /* the running thread */
extern uint3 gen_cuemu_block_idx;
extern dim3 gen_cuemu_block_dim, gen_cuemu_grid_dim;

#define threadIdx (gen_cuemu_self->idx)
#define blockIdx gen_cuemu_block_idx
#define blockDim gen_cuemu_block_dim
#define gridDim gen_cuemu_grid_dim
static constexpr int warpSize = 32;

/* ---- block barrier and warp primitives (exec.cc) ---------------------------------------- */
enum {
    GEN_CUEMU_SHFL = 1,
    GEN_CUEMU_SHFL_UP,
    GEN_CUEMU_SHFL_DOWN,
    GEN_CUEMU_SHFL_XOR,
    GEN_CUEMU_ANY,
    GEN_CUEMU_ALL,
    GEN_CUEMU_BALLOT
};
void __syncthreads(void);
/* Device-scope atomics and fences: blocks run one at a time in the whole process and a
 * thread yields only at a barrier or a warp primitive, so a plain read-modify-write is
 * atomic and every write is visible to the next block (the CUDA C++ Programming Guide,
 * "Atomic Functions", "Memory Fence Functions"). */
static inline unsigned atomicAdd(unsigned *address, unsigned val) {
    unsigned old = *address;
    *address = old + val;
    return old;
}
static inline void __threadfence(void) {}
uint64_t gen_cuemu_warp_op(int op, unsigned mask, uint64_t value, int arg, int width);

template <typename T>
static inline T gen_cuemu_shfl(int op, unsigned mask, T v, int arg, int width) {
    static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffled value is at most 8 bytes");
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof v);
    bits = gen_cuemu_warp_op(op, mask, bits, arg, width);
    T r;
    memcpy(&r, &bits, sizeof r);
    return r;
}
template <typename T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    return gen_cuemu_shfl(GEN_CUEMU_SHFL, mask, v, src, width);
}
template <typename T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    return gen_cuemu_shfl(GEN_CUEMU_SHFL_UP, mask, v, (int)delta, width);
}
template <typename T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    return gen_cuemu_shfl(GEN_CUEMU_SHFL_DOWN, mask, v, (int)delta, width);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lanemask, int width = 32) {
    return gen_cuemu_shfl(GEN_CUEMU_SHFL_XOR, mask, v, lanemask, width);
}
static inline int __any_sync(unsigned mask, int pred) {
    return (int)gen_cuemu_warp_op(GEN_CUEMU_ANY, mask, pred != 0, 0, 32);
}
static inline int __all_sync(unsigned mask, int pred) {
    return (int)gen_cuemu_warp_op(GEN_CUEMU_ALL, mask, pred != 0, 0, 32);
}
static inline unsigned __ballot_sync(unsigned mask, int pred) {
    return (unsigned)gen_cuemu_warp_op(GEN_CUEMU_BALLOT, mask, pred != 0, 0, 32);
}

/* ---- launches ------------------------------------------------------------------------- */

/* A queued launch: the kernel with its copied arguments, run once per emulated thread. */
struct gen_cuemu_kernel {
    void (*invoke)(gen_cuemu_kernel *k); /* calls the kernel with the stored arguments */
    void (*destroy)(gen_cuemu_kernel *k);
    const char *name;
    dim3 grid, block;
    size_t smem;
};

/* Checks the configuration (sets cudaGetLastError's error and drops `k` when invalid) and
 * queues `k` on stream `s` (runtime.cc). */
void gen_cuemu_enqueue_kernel(gen_cuemu_kernel *k, cudaStream_t s);

template <typename... P> struct gen_cuemu_kernel_args : gen_cuemu_kernel {
    void (*fn)(P...);
    std::tuple<P...> args;
    template <typename... A> explicit gen_cuemu_kernel_args(void (*f)(P...), A &&...a)
        : gen_cuemu_kernel(), fn(f), args(std::forward<A>(a)...) {}
    static void run(gen_cuemu_kernel *k) {
        gen_cuemu_kernel_args *self = static_cast<gen_cuemu_kernel_args *>(k);
        std::apply(self->fn, self->args); /* each thread gets its own copies, as on a GPU */
    }
    static void drop(gen_cuemu_kernel *k) { delete static_cast<gen_cuemu_kernel_args *>(k); }
};

void gen_cuemu_launch_nomem(const char *name); /* records cudaErrorMemoryAllocation */

template <typename... P> struct gen_cuemu_launcher {
    void (*fn)(P...);
    const char *name;
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
    template <typename... A> void operator()(A &&...a) const {
        static_assert(sizeof...(A) == sizeof...(P), "a kernel launch with the wrong arity");
        gen_cuemu_kernel_args<P...> *k =
            new (std::nothrow) gen_cuemu_kernel_args<P...>(fn, std::forward<A>(a)...);
        if (!k) {
            gen_cuemu_launch_nomem(name);
            return;
        }
        k->invoke = &gen_cuemu_kernel_args<P...>::run;
        k->destroy = &gen_cuemu_kernel_args<P...>::drop;
        k->name = name;
        k->grid = grid;
        k->block = block;
        k->smem = smem;
        gen_cuemu_enqueue_kernel(k, stream);
    }
};

template <typename... P>
static inline gen_cuemu_launcher<P...> gen_cuemu_launch(void (*fn)(P...), const char *name,
                                                        dim3 grid, dim3 block, size_t smem,
                                                        cudaStream_t stream) {
    gen_cuemu_launcher<P...> l;
    l.fn = fn;
    l.name = name;
    l.grid = grid;
    l.block = block;
    l.smem = smem;
    l.stream = stream;
    return l;
}

#endif /* GEN_CUEMU_DEVICE_H */
