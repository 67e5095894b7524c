/*
 * test_team_run.c — the rank launcher genesis_team_run (src/comm/team_run.c): every rank runs once
 * on its own thread with its rank, joins the team (GENESIS_DIST_THREADS) and sees the team's
 * size; each return value comes back in rcs; bad arguments are refused without running
 * anything. The training equivalence of thread ranks is tests/cli/dist_threads.sh (whose
 * helper, tests/mpi/mpi_equiv.c, starts its ranks with genesis_team_run too).
 */
#include <pthread.h>

#include <genesis/genesis.h>

#include "test_util.h"

enum { K = 4 };

typedef struct seen {
    pthread_mutex_t mu;
    int runs[K], rank_of_ctx[K], size_of_ctx[K];
    pthread_t thread[K];
} seen;

static int rank_fn(genesis_team *team, int rank, void *user) {
    seen *s = user;
    genesis_ctx *ctx = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 100;
    genesis_status st = genesis_ctx_join_team(ctx, team, rank, GENESIS_DIST_THREADS);
    pthread_mutex_lock(&s->mu);
    s->runs[rank]++;
    s->rank_of_ctx[rank] = genesis_ctx_rank(ctx);
    s->size_of_ctx[rank] = genesis_ctx_world_size(ctx);
    s->thread[rank] = pthread_self();
    pthread_mutex_unlock(&s->mu);
    genesis_ctx_free(ctx);
    return st == GENESIS_OK ? 10 + rank : 99;
}

START_TEST(test_ranks_run_once_each) {
    seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
    int rcs[K] = {0};
    ck_assert_int_eq(genesis_team_run(K, rank_fn, &s, rcs), GENESIS_OK);
    for (int r = 0; r < K; r++) {
        ck_assert_int_eq(s.runs[r], 1);
        ck_assert_int_eq(s.rank_of_ctx[r], r);
        ck_assert_int_eq(s.size_of_ctx[r], K);
        ck_assert_int_eq(rcs[r], 10 + r);
        ck_assert(!pthread_equal(s.thread[r], pthread_self()));
        for (int q = 0; q < r; q++) ck_assert(!pthread_equal(s.thread[r], s.thread[q]));
    }
}
END_TEST

START_TEST(test_one_rank_and_bad_args) {
    seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
    ck_assert_int_eq(genesis_team_run(1, rank_fn, &s, NULL), GENESIS_OK);
    ck_assert_int_eq(s.runs[0], 1);
    ck_assert_int_eq(s.size_of_ctx[0], 1);
    ck_assert_int_eq(genesis_team_run(0, rank_fn, &s, NULL), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_team_run(5000, rank_fn, &s, NULL), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_team_run(2, NULL, &s, NULL), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(s.runs[0] + s.runs[1], 1);
}
END_TEST

static Suite *team_run_suite(void) {
    Suite *s = suite_create("team_run");
    TCase *tc = tcase_create("launcher");
    tcase_add_test(tc, test_ranks_run_once_each);
    tcase_add_test(tc, test_one_rank_and_bad_args);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(team_run_suite()); }
