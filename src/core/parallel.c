/*
 * parallel.c — gen_parallel_for (parallel.h): a mutex-guarded counter hands out the items;
 * threads are started for the call and joined before it returns (at most 64; where a thread
 * cannot be started, the ones that did, the caller's included, do all the items).
 */
#include "parallel.h"

#include <pthread.h>

typedef struct {
    pthread_mutex_t mu;
    int next, n;
    void (*fn)(void *, int);
    void *arg;
} gen_par_pool;

static void *gen_par_worker(void *p) {
    gen_par_pool *pool = p;
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        int i = pool->next++;
        pthread_mutex_unlock(&pool->mu);
        if (i >= pool->n) break;
        pool->fn(pool->arg, i);
    }
    return NULL;
}

void gen_parallel_for(int threads, int n, void (*fn)(void *arg, int i), void *arg) {
    if (threads > n) threads = n;
    if (threads > 64) threads = 64;
    if (threads <= 1) {
        for (int i = 0; i < n; i++) fn(arg, i);
        return;
    }
    gen_par_pool pool;
    pthread_mutex_init(&pool.mu, NULL);
    pool.next = 0;
    pool.n = n;
    pool.fn = fn;
    pool.arg = arg;
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, gen_par_worker, &pool) != 0) break;
        started++;
    }
    gen_par_worker(&pool);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&pool.mu);
}
