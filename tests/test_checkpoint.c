/*
 * test_checkpoint.c — resumable training through the public API (src/model/checkpoint.c,
 * docs/checkpoints.md): for CTGAN and TVAE, a fit stopped by its progress callback writes a
 * checkpoint and returns GENESIS_ERR_STOPPED; genesis_model_load_checkpoint then
 * genesis_model_fit continue it, and the model file and the whole training state (weights,
 * batch-norm statistics, Adam moments) equal the uninterrupted fit's bit for bit. A stop
 * without a checkpoint file is GENESIS_ERR_CANCELLED; a checkpoint is a model file that
 * genesis_model_load reads; a plain model file is not a checkpoint; a different table, a
 * changed setting, a corrupted checkpoint and a data-parallel fit (on every rank, also when
 * only one set a checkpoint) are refused. The killed-
 * process case (kill -9, then resume) is tests/cli/checkpoint.sh.
 */
#include <unistd.h>

#include <genesis/genesis.h>

#include "model.h"
#include "test_util.h"

static char dir[64];

static const char *tmp(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static genesis_table *read_table(genesis_ctx *ctx, const char *path) {
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, &t), GENESIS_OK);
    return t;
}

/* small networks and few epochs: seconds */
static genesis_model *small_model(genesis_ctx *ctx, genesis_model_kind kind) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, kind, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 4), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 200), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 16), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32), GENESIS_OK);
    if (kind == GENESIS_MODEL_CTGAN)
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIS_DIM, 32), GENESIS_OK);
    return m;
}

static int stop_at(const genesis_progress *p, void *user) { return p->epoch == *(int *)user; }

/* the model's whole state on the host (weights, statistics, optimiser) */
static float *state_of(const genesis_model *m, size_t *n) {
    float *s = NULL;
    ck_assert_int_eq(gen_model_state(m, &s, n, NULL, NULL), GENESIS_OK);
    return s;
}

static void resume_equals_uninterrupted(genesis_model_kind kind) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    genesis_ctx_set_seed(ctx, 21);
    genesis_table *t = read_table(ctx, tu_path("data/adult_sample.csv"));

    genesis_model *full = small_model(ctx, kind);
    ck_assert_int_eq(genesis_model_fit(full, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(full, tmp("full.gen")), GENESIS_OK);
    size_t nf, nr;
    float *sf = state_of(full, &nf);

    /* stopped by the callback after epoch 2: the state is written, the status says so */
    genesis_model *part = small_model(ctx, kind);
    ck_assert_int_eq(genesis_model_set_checkpoint(part, tmp("ck.gen"), 0, 0), GENESIS_OK);
    int at = 2;
    genesis_status st = genesis_model_fit(part, t, stop_at, &at);
    ck_assert_msg(st == GENESIS_ERR_STOPPED, "fit: %d %s", st, genesis_errmsg(ctx));
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), tmp("ck.gen")));
    genesis_model_free(part);

    /* a checkpoint is also a model file: sampling reads it */
    genesis_model *peek = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("ck.gen"), &peek), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(peek, 50, tmp("peek.csv")), GENESIS_OK);
    genesis_model_free(peek);

    /* another seed on the context does not matter: the checkpoint's is used */
    genesis_ctx_set_seed(ctx, 999);
    genesis_model *res = NULL;
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp("ck.gen"), &res), GENESIS_OK);
    int64_t done = -1, total = -1;
    ck_assert_int_eq(genesis_model_checkpoint_progress(res, &done, &total), GENESIS_OK);
    ck_assert_int_eq(done, 2);
    ck_assert_int_eq(total, 4);
    /* the same settings may be given again, a different one is refused */
    ck_assert_int_eq(genesis_model_set_param(res, GENESIS_P_EPOCHS, 4), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(res, GENESIS_P_EPOCHS, 5), GENESIS_ERR_STATE);
    ck_assert_int_eq(genesis_model_set_checkpoint(res, NULL, 0, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(res, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(res, tmp("resumed.gen")), GENESIS_OK);
    tu_assert_same_files(tmp("full.gen"), tmp("resumed.gen"));
    float *sr = state_of(res, &nr);
    ck_assert_uint_eq(nf, nr);
    ck_assert_msg(memcmp(sf, sr, nf * sizeof(float)) == 0,
                  "the resumed training state differs from the uninterrupted one");
    /* the same rows with the same sampling seed */
    genesis_ctx_set_seed(ctx, 4);
    ck_assert_int_eq(genesis_model_sample_csv(full, 300, tmp("a.csv")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(res, 300, tmp("b.csv")), GENESIS_OK);
    tu_assert_same_files(tmp("a.csv"), tmp("b.csv"));

    free(sf);
    free(sr);
    genesis_model_free(full);
    genesis_model_free(res);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/genesis_ckpt_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}
static void teardown(void) {
    static const char *names[] = {"full.gen", "ck.gen", "resumed.gen", "peek.csv", "a.csv",
                                  "b.csv", "plain.gen", "bad.gen", "other.csv", "dp.gen"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp(names[i]));
    rmdir(dir);
}

START_TEST(test_ctgan_resume_equals_uninterrupted) { resume_equals_uninterrupted(GENESIS_MODEL_CTGAN); }
END_TEST

START_TEST(test_tvae_resume_equals_uninterrupted) { resume_equals_uninterrupted(GENESIS_MODEL_TVAE); }
END_TEST

START_TEST(test_refusals) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    genesis_table *t = read_table(ctx, tu_path("data/adult_sample.csv"));
    ck_assert_int_eq(genesis_model_set_checkpoint(NULL, "x", 1, 0), GENESIS_ERR_INVALID_ARG);

    /* a stop without a checkpoint file: cancelled, as before checkpoints existed */
    genesis_model *m = small_model(ctx, GENESIS_MODEL_TVAE);
    ck_assert_int_eq(genesis_model_set_checkpoint(m, tmp("ck.gen"), -1, 0), GENESIS_ERR_INVALID_ARG);
    int at = 1;
    ck_assert_int_eq(genesis_model_fit(m, t, stop_at, &at), GENESIS_ERR_CANCELLED);
    ck_assert_int_eq(access(tmp("ck.gen"), F_OK), -1);
    /* an interval longer than the fit: only the stop writes, and the file reads back */
    ck_assert_int_eq(genesis_model_set_checkpoint(m, tmp("ck.gen"), 1000, 90.0), GENESIS_OK);
    at = 1;
    ck_assert_int_eq(genesis_model_fit(m, t, stop_at, &at), GENESIS_ERR_STOPPED);
    genesis_model *r = NULL;
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp("ck.gen"), &r), GENESIS_OK);
    genesis_model_free(r);
    r = NULL;
    /* every 1 epoch: written while training, then the stop writes the latest */
    ck_assert_int_eq(genesis_model_set_checkpoint(m, tmp("ck.gen"), 1, 0), GENESIS_OK);
    at = 3;
    ck_assert_int_eq(genesis_model_fit(m, t, stop_at, &at), GENESIS_ERR_STOPPED);
    genesis_model_free(m);

    /* a plain model file is not a checkpoint */
    m = small_model(ctx, GENESIS_MODEL_TVAE);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m, tmp("plain.gen")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_checkpoint(m, "x", 1, 0), GENESIS_ERR_STATE);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp("plain.gen"), &r), GENESIS_ERR_DATA);
    ck_assert_ptr_null(r);

    /* another table (one row fewer) is refused, and the model stays resumable */
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp("ck.gen"), &r), GENESIS_OK);
    int64_t done = 0;
    ck_assert_int_eq(genesis_model_checkpoint_progress(r, &done, NULL), GENESIS_OK);
    ck_assert_int_eq(done, 3);
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r"), *out = fopen(tmp("other.csv"), "w");
    ck_assert(in && out);
    char line[4096];
    for (int i = 0; fgets(line, sizeof line, in); i++)
        if (i != 7) fputs(line, out);
    fclose(in);
    fclose(out);
    genesis_table *t2 = read_table(ctx, tmp("other.csv"));
    ck_assert_int_eq(genesis_model_fit(r, t2, NULL, NULL), GENESIS_ERR_DATA);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "not the table the checkpoint"));
    ck_assert_int_eq(genesis_model_fit(r, t, NULL, NULL), GENESIS_OK);
    genesis_model_free(r);
    genesis_table_free(t2);

    /* one flipped byte: the checksum refuses it */
    size_t n;
    unsigned char *p = tu_read_file(tmp("ck.gen"), &n);
    p[n / 2] ^= 0x40;
    FILE *f = fopen(tmp("bad.gen"), "wb");
    ck_assert(f && fwrite(p, 1, n, f) == n);
    fclose(f);
    free(p);
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp("bad.gen"), &r), GENESIS_ERR_MODEL_FORMAT);

    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* data parallel: refused with a message, on every rank */
static int dp_rank(genesis_team *team, int rank, void *user) {
    int only_rank0 = *(const int *)user; /* a checkpoint set on rank 0 alone */
    genesis_ctx *ctx = NULL;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    if (genesis_ctx_join_team(ctx, team, rank, GENESIS_DIST_THREADS) != GENESIS_OK) return 100;
    genesis_table *t = NULL;
    if (genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, &t) != GENESIS_OK) return 101;
    genesis_model *m = NULL;
    genesis_model_create(ctx, GENESIS_MODEL_TVAE, &m);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    if (!only_rank0 || rank == 0) genesis_model_set_checkpoint(m, tmp("dp.gen"), 1, 0);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    int ok = only_rank0 ? st != GENESIS_OK
                        : st == GENESIS_ERR_UNSUPPORTED && strstr(genesis_errmsg(ctx), "data-parallel") != NULL;
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return ok ? 0 : 1;
}

START_TEST(test_data_parallel_refused) {
    for (int only_rank0 = 0; only_rank0 < 2; only_rank0++) { /* every rank refuses, none hangs */
        int rcs[2] = {-1, -1};
        ck_assert_int_eq(genesis_team_run(2, dp_rank, &only_rank0, rcs), GENESIS_OK);
        ck_assert_int_eq(rcs[0], 0);
        ck_assert_int_eq(rcs[1], 0);
        ck_assert_int_eq(access(tmp("dp.gen"), F_OK), -1);
    }
}
END_TEST

static Suite *checkpoint_suite(void) {
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("resume");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ctgan_resume_equals_uninterrupted);
    tcase_add_test(tc, test_tvae_resume_equals_uninterrupted);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_data_parallel_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(checkpoint_suite()); }
