/*
 * team_run.c — the rank launcher for ranks that are threads of this process: one thread per
 * rank, each running the caller's function with the shared genesis_team and its rank
 * (docs/distributed.md, "Ranks as threads"). The threads are all created before any of them
 * starts, so that a thread that cannot be created leaves no rank waiting in a collective for
 * a missing member: then none runs and the call fails. The CLI's --devices/--multi-gpu use
 * it; an embedding program calls it the same way.
 */
#include <pthread.h>

#include "internal.h"

typedef struct launch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go;                   /* 0 waiting, 1 run, -1 cancelled */
    genesis_team *team;
    genesis_rank_fn fn;
    void *user;
} launch;

typedef struct rank_slot {
    launch *l;
    int rank, rc;
} rank_slot;

static void *rank_main(void *arg) {
    rank_slot *s = arg;
    launch *l = s->l;
    pthread_mutex_lock(&l->mu);
    while (l->go == 0) pthread_cond_wait(&l->cv, &l->mu);
    int go = l->go;
    pthread_mutex_unlock(&l->mu);
    if (go > 0) s->rc = l->fn(l->team, s->rank, l->user);
    return NULL;
}

genesis_status genesis_team_run(int size, genesis_rank_fn fn, void *user, int *rcs) {
    if (!fn || size < 1 || size > 4096) return GENESIS_ERR_INVALID_ARG;
    launch l = {.fn = fn, .user = user};
    rank_slot *slot = calloc((size_t)size, sizeof *slot);
    pthread_t *th = calloc((size_t)size, sizeof *th);
    genesis_status st = slot && th ? genesis_team_create(size, &l.team) : GENESIS_ERR_NOMEM;
    if (st != GENESIS_OK) {
        free(slot);
        free(th);
        return st;
    }
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    int started = 0;
    for (; started < size; started++) {
        slot[started] = (rank_slot){&l, started, 0};
        if (pthread_create(&th[started], NULL, rank_main, &slot[started]) != 0) break;
    }
    pthread_mutex_lock(&l.mu);
    l.go = started == size ? 1 : -1;
    pthread_cond_broadcast(&l.cv);
    pthread_mutex_unlock(&l.mu);
    for (int r = 0; r < started; r++) pthread_join(th[r], NULL);
    for (int r = 0; rcs && started == size && r < size; r++) rcs[r] = slot[r].rc;
    pthread_cond_destroy(&l.cv);
    pthread_mutex_destroy(&l.mu);
    genesis_team_free(l.team);
    free(slot);
    free(th);
    return started == size ? GENESIS_OK : GENESIS_ERR_NOMEM;
}
