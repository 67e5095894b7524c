/*
 * exec.cc (Genesis CUDA emulator) — runs a kernel launch: every block in turn (one block at
 * a time in the whole process, under the emulator's global lock), every thread of the block
 * on its own fiber (fiber.cc). A thread runs until it finishes or waits at __syncthreads or
 * a warp primitive; when no thread can run, waiting warps whose member lanes have all
 * arrived exchange their values, and a barrier every thread of the block reached opens.
 *
 * Rules checked (CUDA C++ Programming Guide, "Synchronization Functions", "Warp Shuffle
 * Functions", "Warp Vote Functions"; warps are 32 consecutive linear thread indices):
 *   - __syncthreads must be reached by every thread of the block: a thread that exited
 *     while others wait is a fault;
 *   - a warp primitive's mask must include the calling lane, and every lane it names must
 *     exist in the block, not have exited, and call a warp primitive with the same mask;
 *     a shuffle that reads a lane outside the mask is a fault (undefined on a GPU);
 *   - width is a power of two from 1 to 32;
 *   - no thread can make progress -> a fault (divergent barriers / masks).
 * A fault stops the launch; the message names the kernel, the block and the thread.
 *
 * Order (GENESIS_CUEMU_SCHEDULE): forward (linear thread order, blocks in order), reverse,
 * or random[:seed] (a random permutation of the threads of a block, new for every launch,
 * and a random affine permutation of the blocks), so order-dependent races show.
 *
 * Shared memory: every __shared__ variable lives in the section gen_cuemu_shared (see
 * cuemu_device.h); before each block the section is filled with 0xFF bytes (NaN).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu_internal.h"

gen_cuemu_thread *gen_cuemu_self;
uint3 gen_cuemu_block_idx;
dim3 gen_cuemu_block_dim, gen_cuemu_grid_dim;

/* The linker defines these for the section (a C identifier name); weak, in case no kernel
 * has shared memory, and the anchor below makes the section exist anyway. */
extern "C" char __start_gen_cuemu_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_gen_cuemu_shared[] __attribute__((weak, visibility("hidden")));
__attribute__((section("gen_cuemu_shared"), aligned(16), used)) static char g_shared_anchor[16];

enum { TS_READY, TS_BARRIER, TS_WARP, TS_DONE };
enum { SCHED_FORWARD, SCHED_REVERSE, SCHED_RANDOM };

static gen_cuemu_thread g_th[1024];
static int g_order[1024];
static int g_n; /* threads per block of the running launch */
static gen_cuemu_kernel *g_k;
static int g_sched = -1;
static uint64_t g_rng; /* xorshift state of the random schedule */

size_t gen_cuemu_static_shared(void) {
    if (!__start_gen_cuemu_shared || !__stop_gen_cuemu_shared) return sizeof g_shared_anchor;
    return (size_t)(__stop_gen_cuemu_shared - __start_gen_cuemu_shared);
}

static uint64_t rng_next(void) {
    uint64_t x = g_rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    g_rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void sched_init(void) {
    if (g_sched >= 0) return;
    const char *s = getenv("GENESIS_CUEMU_SCHEDULE");
    g_sched = SCHED_FORWARD;
    uint64_t seed = 1;
    if (s && !strcmp(s, "reverse")) {
        g_sched = SCHED_REVERSE;
    } else if (s && !strncmp(s, "random", 6)) {
        g_sched = SCHED_RANDOM;
        if (s[6] == ':') seed = strtoull(s + 7, NULL, 10);
    } else if (s && *s && strcmp(s, "forward") != 0) {
        fprintf(stderr, "genesis cuda emulator: GENESIS_CUEMU_SCHEDULE='%s' is not forward, "
                        "reverse or random[:seed]; using forward\n", s);
    }
    g_rng = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    if (!g_rng) g_rng = 1;
}

static void thread_main(void) {
    g_k->invoke(g_k);
    gen_cuemu_self->state = TS_DONE;
    gen_cuemu_fiber_exit(gen_cuemu_self);
}

void __syncthreads(void) {
    gen_cuemu_thread *t = gen_cuemu_self;
    t->state = TS_BARRIER;
    gen_cuemu_fiber_yield(t);
}

uint64_t gen_cuemu_warp_op(int op, unsigned mask, uint64_t value, int arg, int width) {
    gen_cuemu_thread *t = gen_cuemu_self;
    t->state = TS_WARP;
    t->wop = op;
    t->wmask = mask;
    t->wval = value;
    t->warg = arg;
    t->wwidth = width;
    gen_cuemu_fiber_yield(t);
    return t->wres;
}

static const char *op_name(int op) {
    switch (op) {
    case GEN_CUEMU_SHFL: return "__shfl_sync";
    case GEN_CUEMU_SHFL_UP: return "__shfl_up_sync";
    case GEN_CUEMU_SHFL_DOWN: return "__shfl_down_sync";
    case GEN_CUEMU_SHFL_XOR: return "__shfl_xor_sync";
    case GEN_CUEMU_ANY: return "__any_sync";
    case GEN_CUEMU_ALL: return "__all_sync";
    case GEN_CUEMU_BALLOT: return "__ballot_sync";
    default: return "?";
    }
}

/* "kernel K: block (x,y,z) thread (x,y,z): " + why */
static int fault(char *msg, size_t cap, const gen_cuemu_thread *t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fault(char *msg, size_t cap, const gen_cuemu_thread *t, const char *fmt, ...) {
    int n = snprintf(msg, cap, "kernel %s: block (%u,%u,%u) thread (%u,%u,%u): ", g_k->name,
                     gen_cuemu_block_idx.x, gen_cuemu_block_idx.y, gen_cuemu_block_idx.z,
                     t->idx.x, t->idx.y, t->idx.z);
    if (n < 0 || (size_t)n >= cap) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The lane a shuffle of lane `lane` reads (itself when outside its width segment). */
static int shfl_source(const gen_cuemu_thread *t, int lane) {
    int w = t->wwidth, seg = lane & ~(w - 1), off = lane - seg;
    switch (t->wop) {
    case GEN_CUEMU_SHFL: return seg + (t->warg & (w - 1));
    case GEN_CUEMU_SHFL_UP: return off - t->warg >= 0 ? lane - t->warg : lane;
    case GEN_CUEMU_SHFL_DOWN: return off + t->warg < w ? lane + t->warg : lane;
    default: { /* xor */
        int src = lane ^ t->warg;
        return (src & ~(w - 1)) == seg && src < 32 ? src : lane;
    }
    }
}

/* Completes every warp operation whose members have all arrived; returns the number of
 * threads released, or -1 on a fault. */
static int resolve_warps(char *msg, size_t cap) {
    int released = 0;
    for (int base = 0; base < g_n; base += 32) {
        gen_cuemu_thread *w = &g_th[base];
        int lanes = g_n - base < 32 ? g_n - base : 32;
        for (int l = 0; l < lanes; l++) {
            gen_cuemu_thread *t = &w[l];
            if (t->state != TS_WARP) continue;
            unsigned m = t->wmask;
            if (!((m >> l) & 1u))
                return fault(msg, cap, t, "%s with mask 0x%08x, which does not include the "
                             "calling lane %d", op_name(t->wop), m, l);
            if (t->wwidth < 1 || t->wwidth > 32 || (t->wwidth & (t->wwidth - 1)))
                return fault(msg, cap, t, "%s with width %d (a power of two up to 32)",
                             op_name(t->wop), t->wwidth);
            int ready = 1;
            for (int j = 0; j < 32 && ready; j++) {
                if (!((m >> j) & 1u)) continue;
                if (j >= lanes)
                    return fault(msg, cap, t, "%s with mask 0x%08x names lane %d (thread %d), "
                                 "which does not exist (block of %d threads)", op_name(t->wop), m,
                                 j, base + j, g_n);
                const gen_cuemu_thread *o = &w[j];
                if (o->state == TS_DONE)
                    return fault(msg, cap, t, "%s with mask 0x%08x names lane %d (thread %d), "
                                 "which has exited", op_name(t->wop), m, j, base + j);
                if (o->state != TS_WARP || o->wmask != m) ready = 0;
                else if (o->wop != t->wop)
                    return fault(msg, cap, t, "%s meets %s of lane %d under the same mask",
                                 op_name(t->wop), op_name(o->wop), j);
            }
            if (!ready) continue;
            /* every member has arrived: exchange */
            unsigned vote = 0;
            for (int j = 0; j < 32; j++)
                if ((m >> j) & 1u && w[j].wval) vote |= 1u << j;
            for (int j = 0; j < 32; j++) {
                if (!((m >> j) & 1u)) continue;
                gen_cuemu_thread *o = &w[j];
                switch (o->wop) {
                case GEN_CUEMU_ANY: o->wres = vote != 0; break;
                case GEN_CUEMU_ALL: o->wres = vote == m; break;
                case GEN_CUEMU_BALLOT: o->wres = vote; break;
                default: {
                    int src = shfl_source(o, j);
                    if (src >= lanes || !((m >> src) & 1u))
                        return fault(msg, cap, o, "%s reads lane %d, which is not in the mask "
                                     "0x%08x", op_name(o->wop), src, m);
                    o->wres = w[src].wval;
                }
                }
            }
            for (int j = 0; j < 32; j++)
                if ((m >> j) & 1u) {
                    w[j].state = TS_READY;
                    released++;
                }
        }
    }
    return released;
}

/* Describes why no thread can continue. */
static int deadlock(char *msg, size_t cap, int live) {
    const gen_cuemu_thread *bar = NULL, *wrp = NULL, *done = NULL;
    for (int i = 0; i < g_n; i++) {
        const gen_cuemu_thread *t = &g_th[i];
        if (t->state == TS_BARRIER && !bar) bar = t;
        if (t->state == TS_WARP && !wrp) wrp = t;
        if (t->state == TS_DONE && !done) done = t;
    }
    if (bar && !wrp && done)
        return fault(msg, cap, bar, "waits at __syncthreads, which %d of the block's %d threads "
                     "never reach (thread (%u,%u,%u) has exited)", g_n - live, g_n, done->idx.x,
                     done->idx.y, done->idx.z);
    if (bar && wrp)
        return fault(msg, cap, wrp, "waits at %s (mask 0x%08x) while thread (%u,%u,%u) waits at "
                     "__syncthreads: divergent synchronisation", op_name(wrp->wop), wrp->wmask,
                     bar->idx.x, bar->idx.y, bar->idx.z);
    if (wrp)
        return fault(msg, cap, wrp, "waits at %s (mask 0x%08x), which the other named lanes "
                     "never join with the same mask", op_name(wrp->wop), wrp->wmask);
    return fault(msg, cap, &g_th[0], "no thread can continue");
}

static void release_stacks(void) {
    for (int i = 0; i < g_n; i++)
        if (g_th[i].stack) {
            gen_cuemu_stack_put(g_th[i].stack, 1);
            g_th[i].stack = NULL;
        }
}

static int run_block(char *msg, size_t cap) {
    if (__start_gen_cuemu_shared && __stop_gen_cuemu_shared)
        memset(__start_gen_cuemu_shared, 0xff,
               (size_t)(__stop_gen_cuemu_shared - __start_gen_cuemu_shared));
    for (int i = 0; i < g_n; i++) {
        g_th[i].state = TS_READY;
        g_th[i].stack = NULL;
    }
    int live = g_n;
    for (;;) {
        for (int j = 0; j < g_n; j++) {
            gen_cuemu_thread *t = &g_th[g_order[j]];
            if (t->state != TS_READY) continue;
            if (!t->stack) {
                t->stack = gen_cuemu_stack_get();
                if (!t->stack) {
                    release_stacks();
                    return fault(msg, cap, t, "out of memory for a fiber stack");
                }
                gen_cuemu_fiber_start(t, thread_main);
            }
            gen_cuemu_self = t;
            gen_cuemu_fiber_resume(t);
            if (t->state == TS_DONE) { /* its stack serves the next thread */
                gen_cuemu_stack_put(t->stack, 0);
                t->stack = NULL;
                live--;
            }
        }
        gen_cuemu_self = NULL;
        if (live == 0) return 0;
        int r = resolve_warps(msg, cap);
        if (r < 0) {
            release_stacks();
            return -1;
        }
        if (r > 0) continue;
        int at_barrier = 0;
        for (int i = 0; i < g_n; i++) at_barrier += g_th[i].state == TS_BARRIER;
        if (at_barrier == g_n) { /* everyone arrived: the barrier opens */
            for (int i = 0; i < g_n; i++) g_th[i].state = TS_READY;
            continue;
        }
        deadlock(msg, cap, live);
        release_stacks();
        return -1;
    }
}

static void make_order(void) {
    for (int i = 0; i < g_n; i++) g_order[i] = g_sched == SCHED_REVERSE ? g_n - 1 - i : i;
    if (g_sched == SCHED_RANDOM)
        for (int i = g_n - 1; i > 0; i--) {
            int j = (int)(rng_next() % (uint64_t)(i + 1));
            int tmp = g_order[i];
            g_order[i] = g_order[j];
            g_order[j] = tmp;
        }
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int gen_cuemu_exec_kernel(gen_cuemu_kernel *k, char *msg, size_t cap) {
    sched_init();
    g_k = k;
    gen_cuemu_block_dim = k->block;
    gen_cuemu_grid_dim = k->grid;
    g_n = (int)(k->block.x * k->block.y * k->block.z);
    for (int i = 0; i < g_n; i++) {
        gen_cuemu_thread *t = &g_th[i];
        memset(t, 0, sizeof *t);
        t->lin = i;
        t->idx.x = (unsigned)i % k->block.x;
        t->idx.y = ((unsigned)i / k->block.x) % k->block.y;
        t->idx.z = (unsigned)i / (k->block.x * k->block.y);
    }
    make_order();
    uint64_t gx = k->grid.x, gy = k->grid.y, nb = gx * gy * k->grid.z;
    uint64_t a = 1, c = 0; /* block i runs as (a*i + c) mod nb */
    if (g_sched == SCHED_RANDOM && nb > 1) {
        do a = rng_next() % nb; while (a == 0 || gcd64(a, nb) != 1);
        c = rng_next() % nb;
    }
    for (uint64_t i = 0; i < nb; i++) {
        uint64_t b = g_sched == SCHED_REVERSE ? nb - 1 - i
                                              : (uint64_t)(((unsigned __int128)a * i + c) % nb);
        gen_cuemu_block_idx.x = (unsigned)(b % gx);
        gen_cuemu_block_idx.y = (unsigned)((b / gx) % gy);
        gen_cuemu_block_idx.z = (unsigned)(b / (gx * gy));
        gen_cuemu_count(GEN_CUEMU_STAT_BLOCKS);
        if (run_block(msg, cap) != 0) return -1;
    }
    return 0;
}
