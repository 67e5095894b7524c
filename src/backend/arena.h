/*
 * arena.h — llm.c-style memory: one allocation per buffer kind (parameters, gradients, Adam
 * moments, activations), cut into named tensors from a size table.
 */
#ifndef GEN_ARENA_H
#define GEN_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Points *ptrs[i] at consecutive slices of `base` holding sizes[i] floats (base may be NULL
 * to only count); returns the total number of floats. */
static inline size_t gen_arena_point(float *base, float **ptrs[], const size_t *sizes, int n) {
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        if (base) *ptrs[i] = base + off;
        off += sizes[i];
    }
    return off;
}

/* The same for an arena of 16-bit values (activations stored in BF16/FP16,
 * docs/precision.md "Memory"); returns the number of 16-bit values. */
static inline size_t gen_arena_point16(uint16_t *base, uint16_t **ptrs[], const size_t *sizes,
                                       int n) {
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        if (base) *ptrs[i] = base + off;
        off += sizes[i];
    }
    return off;
}

#endif /* GEN_ARENA_H */
