/*
 * test_sampling_all.c — the four models (CTGAN, TVAE, TimeGAN, DDPM) through the one sampling
 * pipeline (src/model/sample_stream.c) after a short fit on data/adult_sample.csv (TimeGAN: its
 * numeric columns, 400 rows as one series; n counts sequences of seq-len rows):
 *   - genesis_model_sample_encoded hands n rows of genesis_model_encoded_dim floats, all
 *     finite (TimeGAN: n x seq-len rows, one per time step, F features in [0, 1]);
 *   - a genesis_sampler over encoded batches gives the same bytes whatever its batch size
 *     (loaded copies of one saved model, so that every sampling call compared is the first);
 *   - decoded rows agree across the callback (genesis_model_sample), the iterator
 *     (genesis_sampler_next, one generation group per batch) and the CSV file
 *     (genesis_model_sample_csv): the same text, cell by cell;
 *   - TimeGAN: the decoded rows are the encoded ones decoded: the id column numbers the
 *     sequences, and every feature is a nondecreasing function of its encoded value, the
 *     steps of a sequence flipped back (a single series is reversed for training).
 * TimeGAN trains 2 iterations per phase with tiny widths, DDPM 20 iterations of a 20-step
 * diffusion: the paths, not the quality.
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

/* decoded rows as CSV text (RFC 4180 quoting where the writer quotes) */
typedef struct text {
    char *p;
    size_t len, cap;
    int64_t rows;
} text;

static void put(text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->p = realloc(t->p, t->cap);
        ck_assert(t->p);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void put_batch(text *t, const genesis_batch *b) {
    char buf[512];
    for (int64_t r = 0; r < genesis_batch_nrows(b); r++, t->rows++)
        for (int c = 0; c < genesis_batch_ncols(b); c++) {
            const char *v = genesis_batch_text(b, r, c, buf, sizeof buf);
            size_t n = strlen(v);
            int q = n && (strpbrk(v, ",\"\r\n") || v[0] == ' ' || v[n - 1] == ' ');
            if (q) put(t, "\"", 1);
            for (size_t i = 0; i < n; i++) put(t, v[i] == '"' ? "\"\"" : v + i, v[i] == '"' ? 2 : 1);
            if (q) put(t, "\"", 1);
            put(t, c + 1 < genesis_batch_ncols(b) ? "," : "\n", 1);
        }
}

static int sink_text(const genesis_batch *b, void *user) {
    put_batch(user, b);
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
    } else if (k == GENESIS_MODEL_DDPM) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32), GENESIS_OK);
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    }
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit %s: %s", genesis_model_kind_name(k), genesis_errmsg(ctx));
    return m;
}

/* encoded rows (encoded = 1) or decoded text of a loaded copy of `path`, through the
 * iterator with sampling batch `batch` */
static void sample_loaded(genesis_ctx *ctx, const char *path, int64_t n, int64_t batch,
                          int encoded, grab *g, text *tx) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, path, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_sampler *s = NULL;
    ck_assert_msg(genesis_sampler_create(m, n, encoded, &s) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    const float *x;
    int64_t rows;
    int dim;
    const genesis_batch *b;
    if (encoded)
        while (genesis_sampler_next_encoded(s, &x, &rows, &dim) == GENESIS_OK && x)
            ck_assert_int_eq(grab_encoded(x, rows, dim, g), 0);
    else
        while (genesis_sampler_next(s, &b) == GENESIS_OK && b) put_batch(tx, b);
    genesis_sampler_free(s);
    genesis_model_free(m);
}

/* a loaded copy's callback rows (csv = NULL) or CSV file */
static void sample_fresh(genesis_ctx *ctx, const char *path, int64_t n, text *tx, const char *csv) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, path, &m), GENESIS_OK);
    genesis_status st = csv ? genesis_model_sample_csv(m, n, csv) : genesis_model_sample(m, n, sink_text, tx);
    ck_assert_msg(st == GENESIS_OK, "%s", genesis_errmsg(ctx));
    genesis_model_free(m);
}

/* TimeGAN (one series of 6 numeric columns, seq-len 4): decoded row i * 4 + k is encoded
 * row i * 4 + 3 - k; its id is i + 1; each feature rises with its encoded value. */
static void check_decoded(const grab *g, const char *csv, int64_t n) {
    FILE *f = fopen(csv, "r");
    ck_assert(f);
    char line[1024];
    ck_assert(fgets(line, sizeof line, f));
    int64_t rows = n * 4;
    double *dec = malloc((size_t)rows * 7 * sizeof(double));
    for (int64_t r = 0; r < rows; r++) {
        ck_assert(fgets(line, sizeof line, f));
        char *p = line;
        for (int c = 0; c < 7; c++, p++) dec[r * 7 + c] = strtod(p, &p);
        ck_assert_int_eq((int64_t)dec[r * 7], r / 4 + 1);
    }
    fclose(f);
    ck_assert_int_eq(g->dim, 6);
    for (int c = 0; c < 6; c++)
        for (int64_t a = 0; a < rows; a++)
            for (int64_t b = 0; b < rows; b++) {
                float ea = g->x[(a / 4 * 4 + 3 - a % 4) * 6 + c], eb = g->x[(b / 4 * 4 + 3 - b % 4) * 6 + c];
                ck_assert_msg(!(ea < eb && dec[a * 7 + 1 + c] > dec[b * 7 + 1 + c]),
                              "column %d: rows %lld and %lld decode out of order", c, (long long)a, (long long)b);
            }
    free(dec);
}

static void check_kind(genesis_model_kind k) {
    genesis_ctx *ctx = NULL;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    genesis_ctx_set_seed(ctx, 11);
    genesis_ctx_set_threads(ctx, 1);
    genesis_table *t = NULL;
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/genesis-sampling-all-%d.csv", (int)getpid());
    int tg = k == GENESIS_MODEL_TIMEGAN;
    if (tg) adult_numeric(csv);
    ck_assert_int_eq(genesis_table_read_csv(ctx, tg ? csv : tu_path("data/adult_sample.csv"), NULL, &t),
                     GENESIS_OK);
    if (tg) unlink(csv);
    genesis_model *m = fit_kind(ctx, t, k);
    const char *name = genesis_model_kind_name(k);
    int dim = genesis_model_encoded_dim(m);
    ck_assert_msg(dim > 0, "%s: encoded dim %d", name, dim);
    int64_t n = tg ? 60 : 67, rows = tg ? 4 * n : n; /* TimeGAN: n sequences of 4 rows */

    /* the callback over encoded batches */
    grab g = {malloc((size_t)(rows * dim) * sizeof(float)), 0, rows, 0, 0};
    ck_assert_msg(genesis_model_sample_encoded(m, n, grab_encoded, &g) == GENESIS_OK, "%s: %s",
                  name, genesis_errmsg(ctx));
    ck_assert_int_eq(g.rows, rows);
    ck_assert_int_eq(g.dim, dim);
    ck_assert_int_eq(g.bad, 0);
    if (tg)
        for (int64_t i = 0; i < rows * dim; i++) ck_assert(g.x[i] >= 0.0f && g.x[i] <= 1.0f);

    /* the sampler's batch size does not change the bytes; the decoded paths agree */
    char path[64];
    snprintf(path, sizeof path, "/tmp/genesis-sampling-all-%d-%s.gen", (int)getpid(), name);
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    grab a = {malloc((size_t)(rows * dim) * sizeof(float)), 0, rows, 0, 0};
    grab b = {malloc((size_t)(rows * dim) * sizeof(float)), 0, rows, 0, 0};
    sample_loaded(ctx, path, n, 1, 1, &a, NULL);         /* one generation group per batch */
    sample_loaded(ctx, path, n, 100000, 1, &b, NULL);    /* everything in one batch */
    ck_assert_int_eq(a.rows, rows);
    ck_assert_int_eq(b.rows, rows);
    ck_assert_msg(memcmp(a.x, b.x, (size_t)(rows * dim) * sizeof(float)) == 0,
                  "%s: encoded rows depend on the sampling batch size", name);
    text cb = {0}, it = {0}, file = {0};
    sample_fresh(ctx, path, n, &cb, NULL);
    sample_loaded(ctx, path, n, 1, 0, NULL, &it);
    ck_assert_int_eq(cb.rows, rows);
    ck_assert_int_eq(it.rows, rows);
    ck_assert_msg(strcmp(cb.p, it.p) == 0, "%s: callback and iterator rows differ", name);
    sample_fresh(ctx, path, n, NULL, csv);
    FILE *f = fopen(csv, "r");
    ck_assert(f);
    char line[4096];
    ck_assert(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) put(&file, line, strlen(line));
    fclose(f);
    ck_assert_msg(strcmp(cb.p, file.p) == 0, "%s: the CSV file differs from the callback's rows", name);
    if (tg) check_decoded(&a, csv, n);
    unlink(csv);
    unlink(path);
    free(cb.p);
    free(it.p);
    free(file.p);
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

START_TEST(test_ddpm_sampling) { check_kind(GENESIS_MODEL_DDPM); }
END_TEST

int main(void) {
    Suite *s = suite_create("sampling_all");
    TCase *tc = tcase_create("adult_sample");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_ctgan_sampling);
    tcase_add_test(tc, test_tvae_sampling);
    tcase_add_test(tc, test_timegan_sampling);
    tcase_add_test(tc, test_ddpm_sampling);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
