/*
 * fiber.cc (Genesis CUDA emulator) — the fibers that emulated CUDA threads run on: a pool
 * of mmap'ed stacks (a guard page below each, reused across blocks and launches) and the
 * context switch between the block scheduler and a thread.
 *
 * On x86-64 the switch is ten instructions of assembly (save the six callee-saved
 * registers of the System V ABI on the old stack, swap stack pointers, restore), so a
 * switch costs nanoseconds instead of the two signal-mask system calls of swapcontext.
 * Elsewhere (or with -DGEN_CUEMU_UCONTEXT) it falls back to makecontext/swapcontext.
 * MXCSR and the x87 control word are not switched: nothing in a kernel changes them.
 *
 * Under AddressSanitizer every switch is announced with __sanitizer_start_switch_fiber /
 * __sanitizer_finish_switch_fiber (sanitizer/common_interface_defs.h), so ASan knows which
 * stack is live and keeps detecting stack errors inside kernels.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuemu_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define GEN_CUEMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GEN_CUEMU_ASAN 1
#endif /* __has_feature(address_sanitizer) */
#endif /* __SANITIZE_ADDRESS__ */

#ifdef GEN_CUEMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define GEN_CUEMU_STACK_BYTES ((size_t)512 << 10) /* ASan's frames are several times larger */
#else
#define GEN_CUEMU_STACK_BYTES ((size_t)64 << 10)
#endif /* GEN_CUEMU_ASAN */

#if defined(__x86_64__) && !defined(GEN_CUEMU_UCONTEXT)
#define GEN_CUEMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif /* __x86_64__ */

typedef struct gen_cuemu_stack {
    struct gen_cuemu_stack *next; /* free list */
    char *lo;                     /* usable stack: [lo, lo + size) */
    size_t size;
    int abandoned; /* its last fiber never finished: all of it may carry stale redzones */
#ifndef GEN_CUEMU_ASM_SWITCH
    ucontext_t uc;
#endif /* GEN_CUEMU_ASM_SWITCH */
} gen_cuemu_stack;

static gen_cuemu_stack *g_free;      /* stacks not in use */
static void (*g_entry)(void);        /* what a new fiber runs */
static const void *g_sched_bottom;   /* the scheduler's stack, for ASan */
static size_t g_sched_size;
static void *g_sched_fake;

#ifdef GEN_CUEMU_ASAN
#define ASAN_START(save, bottom, size) __sanitizer_start_switch_fiber((save), (bottom), (size))
#define ASAN_FINISH(fake, bottom, size) __sanitizer_finish_switch_fiber((fake), (bottom), (size))
/* A reused stack still carries the redzones of the frames that never returned: the few
 * at its top (fiber_first, the thread's entry) after a normal exit, any after a fault. */
#define ASAN_CLEAN(s)                                                                   \
    do {                                                                                \
        size_t top_ = (s)->abandoned || (s)->size < 8192 ? (s)->size : 8192;            \
        __asan_unpoison_memory_region((s)->lo + (s)->size - top_, top_);                 \
        (s)->abandoned = 0;                                                             \
    } while (0)
#else
#define ASAN_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define ASAN_FINISH(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#define ASAN_CLEAN(s) ((void)(s))
#endif /* GEN_CUEMU_ASAN */

void *gen_cuemu_stack_get(void) {
    if (g_free) {
        gen_cuemu_stack *s = g_free;
        g_free = s->next;
        return s;
    }
    gen_cuemu_stack *s = (gen_cuemu_stack *)calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t total = GEN_CUEMU_STACK_BYTES + page;
    void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) {
        free(s);
        return NULL;
    }
    mprotect(m, page, PROT_NONE); /* an overflowing kernel faults instead of corrupting */
    s->lo = (char *)m + page;
    s->size = GEN_CUEMU_STACK_BYTES;
    return s;
}

void gen_cuemu_stack_put(void *stack, int abandoned) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)stack;
    s->abandoned |= abandoned;
    s->next = g_free;
    g_free = s;
}

/* First code on a new fiber: tell ASan the switch is over, then run the thread. */
static void fiber_first(void) {
    ASAN_FINISH(NULL, &g_sched_bottom, &g_sched_size);
    g_entry();
    abort(); /* g_entry ends with gen_cuemu_fiber_exit */
}

#ifdef GEN_CUEMU_ASM_SWITCH
/* gen_cuemu_ctx_switch(void **save_sp, void *to_sp): push the callee-saved registers,
 * store the stack pointer, load the other one, pop, return into the other context.
 * gen_cuemu_ctx_entry: where a new stack "returns" to; calls the function in r13. */
__asm__(".text\n"
        ".globl gen_cuemu_ctx_switch\n"
        ".hidden gen_cuemu_ctx_switch\n"
        ".type gen_cuemu_ctx_switch,@function\n"
        "gen_cuemu_ctx_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size gen_cuemu_ctx_switch, .-gen_cuemu_ctx_switch\n"
        ".globl gen_cuemu_ctx_entry\n"
        ".hidden gen_cuemu_ctx_entry\n"
        ".type gen_cuemu_ctx_entry,@function\n"
        "gen_cuemu_ctx_entry:\n"
        "    callq *%r13\n"
        "    ud2\n"
        ".size gen_cuemu_ctx_entry, .-gen_cuemu_ctx_entry\n");
extern "C" void gen_cuemu_ctx_switch(void **save_sp, void *to_sp);
extern "C" void gen_cuemu_ctx_entry(void);

static void *g_sched_sp;

void gen_cuemu_fiber_start(gen_cuemu_thread *t, void (*fn)(void)) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)t->stack;
    g_entry = fn;
    ASAN_CLEAN(s);
    uintptr_t top = ((uintptr_t)(s->lo + s->size)) & ~(uintptr_t)15;
    /* after the six pops and the ret, rsp = top - 16: 16-byte aligned before the call */
    uint64_t *sp = (uint64_t *)(top - 72);
    sp[0] = 0;                                /* r15 */
    sp[1] = 0;                                /* r14 */
    sp[2] = (uint64_t)(uintptr_t)&fiber_first; /* r13: called by gen_cuemu_ctx_entry */
    sp[3] = 0;                                /* r12 */
    sp[4] = 0;                                /* rbx */
    sp[5] = 0;                                /* rbp */
    sp[6] = (uint64_t)(uintptr_t)&gen_cuemu_ctx_entry;
    sp[7] = 0;
    sp[8] = 0;
    t->sp = sp;
}

void gen_cuemu_fiber_resume(gen_cuemu_thread *t) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)t->stack;
    ASAN_START(&g_sched_fake, s->lo, s->size);
    gen_cuemu_ctx_switch(&g_sched_sp, t->sp);
    ASAN_FINISH(g_sched_fake, NULL, NULL);
}

void gen_cuemu_fiber_yield(gen_cuemu_thread *t) {
    ASAN_START(&t->fake, g_sched_bottom, g_sched_size);
    gen_cuemu_ctx_switch(&t->sp, g_sched_sp);
    ASAN_FINISH(t->fake, &g_sched_bottom, &g_sched_size);
}

void gen_cuemu_fiber_exit(gen_cuemu_thread *t) {
    void *dead = NULL;
    (void)t;
    ASAN_START(NULL, g_sched_bottom, g_sched_size); /* this fiber's fake stack goes */
    gen_cuemu_ctx_switch(&dead, g_sched_sp);
    abort();
}

#else /* the portable fallback */

static ucontext_t g_sched_uc;

void gen_cuemu_fiber_start(gen_cuemu_thread *t, void (*fn)(void)) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)t->stack;
    g_entry = fn;
    ASAN_CLEAN(s);
    getcontext(&s->uc);
    s->uc.uc_stack.ss_sp = s->lo;
    s->uc.uc_stack.ss_size = s->size;
    s->uc.uc_link = NULL;
    makecontext(&s->uc, fiber_first, 0);
    t->sp = &s->uc;
}

void gen_cuemu_fiber_resume(gen_cuemu_thread *t) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)t->stack;
    ASAN_START(&g_sched_fake, s->lo, s->size);
    swapcontext(&g_sched_uc, &s->uc);
    ASAN_FINISH(g_sched_fake, NULL, NULL);
}

void gen_cuemu_fiber_yield(gen_cuemu_thread *t) {
    gen_cuemu_stack *s = (gen_cuemu_stack *)t->stack;
    ASAN_START(&t->fake, g_sched_bottom, g_sched_size);
    swapcontext(&s->uc, &g_sched_uc);
    ASAN_FINISH(t->fake, &g_sched_bottom, &g_sched_size);
}

void gen_cuemu_fiber_exit(gen_cuemu_thread *t) {
    (void)t;
    ASAN_START(NULL, g_sched_bottom, g_sched_size);
    setcontext(&g_sched_uc);
    abort();
}

#endif /* GEN_CUEMU_ASM_SWITCH */
