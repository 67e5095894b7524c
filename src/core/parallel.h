/*
 * parallel.h — a parallel loop over independent items: fn(arg, i) for every i in [0, n), on
 * up to `threads` threads (the caller's included), items handed out one at a time in order.
 * Each item must write only its own outputs, so the result does not depend on the thread
 * count or on which thread ran which item. Used for per-column work (the CSV reader's
 * interning, the transformer's fits and encodings).
 */
#ifndef GEN_PARALLEL_H
#define GEN_PARALLEL_H

void gen_parallel_for(int threads, int n, void (*fn)(void *arg, int i), void *arg);

#endif
