/*
 * test_dist.c — the single-process pieces of data-parallel training (docs/distributed.md),
 * on the CPU backend, without MPI (the multi-rank tests are tests/cli/mpi_equivalence.sh):
 *   - synchronised batch norm: a batch split into slices, with the partial statistics and
 *     backward sums added up as the all-reduce would, gives batchnorm_forward/backward's
 *     results for the whole batch (outputs, statistics, dgamma/dbeta, dinp);
 *   - activate_forward's row0: a slice of rows draws the Gumbel noise the whole batch would;
 *   - one worker: rank 0 of 1, the communicator helpers are no-ops, argument checks.
 */
#include "test_util.h"

#include "backend.h"
#include "comm.h"

static genesis_ctx *ctx;
static gen_backend *be;

static void setup(void) {
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 1, &be), GENESIS_OK);
}
static void teardown(void) {
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}

enum { B_ = 24, C_ = 13, K_ = 3, S_ = B_ / K_ };

START_TEST(test_sync_bn_matches_whole_batch) {
    const gen_backend_ops *o = be->ops;
    float inp[B_ * C_], gamma[C_], beta[C_], dout[B_ * C_];
    tu_fill_uniform(inp, B_ * C_, -2, 3, 1);
    tu_fill_uniform(gamma, C_, 0.5f, 1.5f, 2);
    tu_fill_uniform(beta, C_, -1, 1, 3);
    tu_fill_uniform(dout, B_ * C_, -1, 1, 4);
    /* the whole batch */
    float out[B_ * C_], mean[C_], rstd[C_], dinp[B_ * C_] = {0}, dg[C_] = {0}, db[C_] = {0};
    o->batchnorm_forward(be, out, mean, rstd, inp, gamma, beta, B_, C_, 1e-5f);
    o->batchnorm_backward(be, dinp, dg, db, dout, inp, mean, rstd, gamma, B_, C_);
    /* K slices: partial means, "all-reduce", partial variances, "all-reduce", apply */
    float smean[C_] = {0}, svar[C_] = {0}, part[C_], sout[B_ * C_];
    for (int k = 0; k < K_; k++) {
        o->batchnorm_stats(be, part, inp + k * S_ * C_, NULL, S_, C_, B_);
        for (int c = 0; c < C_; c++) smean[c] += part[c];
    }
    for (int k = 0; k < K_; k++) {
        o->batchnorm_stats(be, part, inp + k * S_ * C_, smean, S_, C_, B_);
        for (int c = 0; c < C_; c++) svar[c] += part[c];
    }
    float srstd[K_][C_];
    for (int k = 0; k < K_; k++) { /* each rank applies with the same global statistics */
        memcpy(srstd[k], svar, sizeof svar);
        o->batchnorm_apply(be, sout + k * S_ * C_, srstd[k], inp + k * S_ * C_, smean, gamma, beta,
                           S_, C_, 1e-5f);
    }
    tu_assert_allclose(smean, mean, C_, 1e-6, 1e-5);
    tu_assert_allclose(srstd[0], rstd, C_, 1e-6, 1e-5);
    ck_assert_int_eq(memcmp(srstd[0], srstd[K_ - 1], sizeof srstd[0]), 0);
    tu_assert_allclose(sout, out, B_ * C_, 1e-5, 1e-5);
    /* backward: partial sums, "all-reduce", apply; dgamma/dbeta add up over the slices */
    float sums[2 * C_] = {0}, ps[2 * C_], sdg[C_] = {0}, sdb[C_] = {0}, sdinp[B_ * C_] = {0};
    for (int k = 0; k < K_; k++) {
        o->batchnorm_backward_sums(be, ps, sdg, sdb, dout + k * S_ * C_, inp + k * S_ * C_, smean,
                                   srstd[k], gamma, S_, C_);
        for (int c = 0; c < 2 * C_; c++) sums[c] += ps[c];
    }
    for (int k = 0; k < K_; k++)
        o->batchnorm_backward_apply(be, sdinp + k * S_ * C_, dout + k * S_ * C_, inp + k * S_ * C_,
                                    smean, srstd[k], gamma, sums, S_, C_, B_);
    tu_assert_allclose(sdg, dg, C_, 1e-5, 1e-5);
    tu_assert_allclose(sdb, db, C_, 1e-5, 1e-5);
    tu_assert_allclose(sdinp, dinp, B_ * C_, 1e-5, 1e-4);
}
END_TEST

START_TEST(test_sync_bn_one_slice) {
    /* one rank (N == B) through the synchronised ops: the plain batch norm */
    const gen_backend_ops *o = be->ops;
    float inp[B_ * C_], gamma[C_], beta[C_];
    tu_fill_uniform(inp, B_ * C_, -1, 1, 5);
    tu_fill_uniform(gamma, C_, 0.5f, 1.5f, 6);
    tu_fill_uniform(beta, C_, -1, 1, 7);
    float out[B_ * C_], mean[C_], rstd[C_], m2[C_], v2[C_], out2[B_ * C_];
    o->batchnorm_forward(be, out, mean, rstd, inp, gamma, beta, B_, C_, 1e-5f);
    o->batchnorm_stats(be, m2, inp, NULL, B_, C_, B_);
    o->batchnorm_stats(be, v2, inp, m2, B_, C_, B_);
    o->batchnorm_apply(be, out2, v2, inp, m2, gamma, beta, B_, C_, 1e-5f);
    tu_assert_allclose(m2, mean, C_, 1e-7, 1e-6);
    tu_assert_allclose(v2, rstd, C_, 1e-7, 1e-6);
    tu_assert_allclose(out2, out, B_ * C_, 1e-6, 1e-6);
}
END_TEST

START_TEST(test_activate_row0_slices) {
    /* Gumbel-softmax rows 2..5 computed alone with row0 = 2 are the whole batch's rows */
    gen_act_span spans[3] = {{0, 1, 0}, {1, 3, 1}, {4, 3, 1}};
    enum { B = 6, W = 7 };
    float x[B * W], full[B * W], part[4 * W];
    tu_fill_uniform(x, B * W, -2, 2, 8);
    be->ops->activate_forward(be, full, W, x, W, B, spans, 3, 0.2f, 11, 4, 5, 0);
    be->ops->activate_forward(be, part, W, x + 2 * W, W, 4, spans, 3, 0.2f, 11, 4, 5, 2);
    ck_assert_int_eq(memcmp(part, full + 2 * W, sizeof part), 0);
}
END_TEST

START_TEST(test_one_worker) {
    ck_assert_int_eq(genesis_ctx_rank(ctx), 0);
    ck_assert_int_eq(genesis_ctx_world_size(ctx), 1);
    ck_assert_int_eq(genesis_ctx_rank(NULL), 0);
    ck_assert_int_eq(genesis_ctx_world_size(NULL), 1);
    ck_assert_int_eq(genesis_dist_supported(GENESIS_DIST_NONE), 1);
    ck_assert_int_eq(genesis_ctx_set_distributed(ctx, GENESIS_DIST_NONE), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_distributed(ctx, (genesis_dist_kind)9), GENESIS_ERR_INVALID_ARG);
    genesis_ctx_abort(ctx, 1); /* without distribution: nothing happens */
    int dup[2] = {1, 1}, ok[3] = {0, 2, 1}, big[1] = {300};
    ck_assert_int_eq(genesis_ctx_set_devices(ctx, dup, 2), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "twice"));
    ck_assert_int_eq(genesis_ctx_set_devices(ctx, big, 1), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_ctx_set_devices(ctx, ok, 3), GENESIS_OK);
    /* the helpers with no communicator */
    float x[3] = {1, 2, 3};
    ck_assert_int_eq(gen_comm_allreduce_sum(NULL, be, x, 3), GENESIS_OK);
    ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 3);
    ck_assert_int_eq(gen_comm_agree(NULL, 0), 0);
    ck_assert_int_eq(gen_comm_agree(NULL, 1), 1);
    ck_assert_int_eq(gen_comm_check_same(NULL, "x", 1.0), GENESIS_OK);
    ck_assert_int_eq(gen_comm_size(NULL), 1);
    ck_assert_int_eq(gen_comm_rank(NULL), 0);
}
END_TEST

START_TEST(test_launcher_detection) {
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMI_SIZE");
    unsetenv("PMIX_SIZE");
    unsetenv("MPI_LOCALNRANKS");
    unsetenv("SLURM_NTASKS");
    ck_assert_int_eq(genesis_dist_launched(), 0);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    ck_assert_int_eq(genesis_dist_launched(), 0);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    ck_assert_int_eq(genesis_dist_launched(), 1);
    setenv("OMPI_COMM_WORLD_SIZE", "x4", 1);
    ck_assert_int_eq(genesis_dist_launched(), 0);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    setenv("PMI_SIZE", "2", 1);
    ck_assert_int_eq(genesis_dist_launched(), 1);
    unsetenv("PMI_SIZE");
}
END_TEST

static Suite *dist_suite(void) {
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("single_process");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sync_bn_matches_whole_batch);
    tcase_add_test(tc, test_sync_bn_one_slice);
    tcase_add_test(tc, test_activate_row0_slices);
    tcase_add_test(tc, test_one_worker);
    tcase_add_test(tc, test_launcher_detection);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(dist_suite()); }
