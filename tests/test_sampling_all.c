/*
 * test_sampling_all.c — the three models (CTGAN, TVAE, TimeGAN) through the one sampling
 * pipeline (src/sample_stream.c) after a short fit on data/adult_sample.csv (TimeGAN: its
 * numeric columns, 400 rows as one series):
 *   - genesis_model_sample_encoded hands n rows of genesis_model_encoded_dim floats, all
 *     finite (TimeGAN: a row is one time step, F features in [0, 1]; a sequence seq-len rows);
 *   - a genesis_sampler over encoded batches gives the same bytes whatever its batch size
 *     (two loaded copies of one saved model, so both sampling calls are the first);
 *   - decoded rows (genesis_model_sample): CTGAN and TVAE; TimeGAN refuses with
 *     GENESIS_ERR_UNSUPPORTED (its rows have no tabular transformer; its CSV is its own);
 *   - TimeGAN refuses a row count that is not whole sequences.
 * TimeGAN trains 2 iterations per phase with tiny widths: the paths, not the quality.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <genesis/genesis.h>

#include "test_util.h"

typedef struct grab {
    float *x;
    int64_t rows, cap;
    int dim, bad;
} grab;

static int grab_encoded(const float *x, int64_t rows, int dim, void *user) {
    grab *g = user;
    if (g->dim && g->dim != dim) g->bad = 1;
    g->dim = dim;
    if (g->rows + rows > g->cap) {
        g->bad = 1;
        return 1;
    }
    for (int64_t i = 0; i < rows * dim; i++)
        if (!isfinite(x[i])) g->bad = 1;
    memcpy(g->x + g->rows * dim, x, (size_t)(rows * dim) * sizeof(float));
    g->rows += rows;
    return 0;
}

static int count_rows(const genesis_batch *b, void *user) {
    *(int64_t *)user += genesis_batch_nrows(b);
    return 0;
}

/* data/adult_sample.csv's numeric columns (TimeGAN needs complete rows; the categorical
 * ones have missing values) into `path`, the first 400 rows as one series. */
static void adult_numeric(const char *path) {
    static const int keep[] = {0, 2, 4, 10, 11, 12};
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r"), *out = fopen(path, "w");
    ck_assert(in && out);
    char line[4096];
    for (int r = 0; r <= 400 && fgets(line, sizeof line, in); r++) {
        line[strcspn(line, "\r\n")] = 0;
        char *f[32];
        int nf = 0;
        for (char *p = line; nf < 32; p++) {
            f[nf++] = p;
            p = strchr(p, ',');
            if (!p) break;
            *p = 0;
        }
        ck_assert_int_ge(nf, 13);
        for (int k = 0; k < 6; k++) fprintf(out, "%s%s", k ? "," : "", f[keep[k]]);
        fputc('\n', out);
    }
    fclose(in);
    fclose(out);
}

static genesis_model *fit_kind(genesis_ctx *ctx, const genesis_table *t, genesis_model_kind k) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(ctx, k, &m), GENESIS_OK);
    if (k == GENESIS_MODEL_TIMEGAN) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 2), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, 4), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 4), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 8), GENESIS_OK);
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    }
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit %s: %s", genesis_model_kind_name(k), genesis_errmsg(ctx));
    return m;
}

/* encoded rows of a loaded copy of `path`, sampling batch `batch` */
static void sample_loaded(genesis_ctx *ctx, const char *path, int64_t n, int64_t batch, grab *g) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, path, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_sampler *s = NULL;
    ck_assert_msg(genesis_sampler_create(m, n, 1, &s) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    const float *x;
    int64_t rows;
    int dim;
    while (genesis_sampler_next_encoded(s, &x, &rows, &dim) == GENESIS_OK && x)
        ck_assert_int_eq(grab_encoded(x, rows, dim, g), 0);
    genesis_sampler_free(s);
    genesis_model_free(m);
}

static void check_kind(genesis_model_kind k) {
    genesis_ctx *ctx = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_seed(ctx, 11);
    genesis_ctx_set_threads(ctx, 1);
    genesis_table *t = NULL;
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/genesis-sampling-all-%d.csv", (int)getpid());
    if (k == GENESIS_MODEL_TIMEGAN) adult_numeric(csv);
    ck_assert_int_eq(genesis_table_read_csv(ctx, k == GENESIS_MODEL_TIMEGAN ? csv
                                                 : tu_path("data/adult_sample.csv"), NULL, &t),
                     GENESIS_OK);
    if (k == GENESIS_MODEL_TIMEGAN) unlink(csv);
    genesis_model *m = fit_kind(ctx, t, k);
    const char *name = genesis_model_kind_name(k);
    int dim = genesis_model_encoded_dim(m);
    ck_assert_msg(dim > 0, "%s: encoded dim %d", name, dim);
    int64_t unit = k == GENESIS_MODEL_TIMEGAN ? 4 : 1; /* rows per generated unit */
    int64_t n = 60 * unit + (k == GENESIS_MODEL_TIMEGAN ? 0 : 7);

    /* the callback over encoded batches */
    grab g = {malloc((size_t)(n * dim) * sizeof(float)), 0, n, 0, 0};
    ck_assert_msg(genesis_model_sample_encoded(m, n, grab_encoded, &g) == GENESIS_OK, "%s: %s",
                  name, genesis_errmsg(ctx));
    ck_assert_int_eq(g.rows, n);
    ck_assert_int_eq(g.dim, dim);
    ck_assert_int_eq(g.bad, 0);
    if (k == GENESIS_MODEL_TIMEGAN)
        for (int64_t i = 0; i < n * dim; i++) ck_assert(g.x[i] >= 0.0f && g.x[i] <= 1.0f);

    /* decoded rows: the tabular models; TimeGAN refuses */
    int64_t got = 0;
    genesis_status st = genesis_model_sample(m, n, count_rows, &got);
    if (k == GENESIS_MODEL_TIMEGAN) {
        ck_assert_int_eq(st, GENESIS_ERR_UNSUPPORTED);
        ck_assert_int_eq(genesis_model_sample_encoded(m, n + 1, grab_encoded, &g),
                         GENESIS_ERR_INVALID_ARG);
    } else {
        ck_assert_msg(st == GENESIS_OK, "%s: %s", name, genesis_errmsg(ctx));
        ck_assert_int_eq(got, n);
    }

    /* the sampler's batch size does not change the bytes */
    char path[64];
    snprintf(path, sizeof path, "/tmp/genesis-sampling-all-%d-%s.gen", (int)getpid(), name);
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    grab a = {malloc((size_t)(n * dim) * sizeof(float)), 0, n, 0, 0};
    grab b = {malloc((size_t)(n * dim) * sizeof(float)), 0, n, 0, 0};
    sample_loaded(ctx, path, n, 1, &a);         /* one generation group per batch */
    sample_loaded(ctx, path, n, 100000, &b);    /* everything in one batch */
    unlink(path);
    ck_assert_int_eq(a.rows, n);
    ck_assert_int_eq(b.rows, n);
    ck_assert_msg(memcmp(a.x, b.x, (size_t)(n * dim) * sizeof(float)) == 0,
                  "%s: encoded rows depend on the sampling batch size", name);
    free(a.x);
    free(b.x);
    free(g.x);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}

START_TEST(test_ctgan_sampling) { check_kind(GENESIS_MODEL_CTGAN); }
END_TEST

START_TEST(test_tvae_sampling) { check_kind(GENESIS_MODEL_TVAE); }
END_TEST

START_TEST(test_timegan_sampling) { check_kind(GENESIS_MODEL_TIMEGAN); }
END_TEST

int main(void) {
    Suite *s = suite_create("sampling_all");
    TCase *tc = tcase_create("adult_sample");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ctgan_sampling);
    tcase_add_test(tc, test_tvae_sampling);
    tcase_add_test(tc, test_timegan_sampling);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
