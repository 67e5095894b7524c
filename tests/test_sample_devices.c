/*
 * test_sample_devices.c — sampling spread over several generating lanes
 * (genesis_model_set_sample_devices; src/model/sample_stream.c), here CPU streams, each a
 * thread with its own copy of the generator: batch j is lane j mod K's, and every random
 * draw of a row is a function of the seed and the row's number, so
 *   - CTGAN (unconditioned, and with a condition), TVAE and DDPM (class-conditional, its
 *     labels drawn per row) write the same CSV bytes with 1, 2 and 3 lanes and any batch
 *     size (loaded copies of one saved model, every call compared the first after a load);
 *   - the first call on a freshly fitted model, spread over 2 lanes, writes the rows of the
 *     first call after loading its file on one lane;
 *   - an identifier column numbers the rows: the same ids on any number of lanes, unique;
 *   - an iterator stopped after two batches of three lanes frees cleanly;
 *   - TimeGAN, whose draws continue from group to group, refuses several lanes.
 * The same on several emulated GPUs: tests/cli/emu_sample_devices.sh.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <genesis/genesis.h>

#include "test_util.h"

static genesis_ctx *g_ctx;

static void setup(void) {
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
    genesis_ctx_set_seed(g_ctx, 5);
    genesis_ctx_set_threads(g_ctx, 1);
    genesis_ctx_set_device(g_ctx, GENESIS_DEVICE_CPU, 0);
}

static void teardown(void) { genesis_ctx_free(g_ctx); }

static char *temp_path(const char *tag) {
    char *p = malloc(64);
    snprintf(p, 64, "/tmp/genesis_test_lanes_%s_XXXXXX", tag);
    int fd = mkstemp(p);
    ck_assert_int_ge(fd, 0);
    close(fd);
    return p;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    ck_assert(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ck_assert(fread(b, 1, (size_t)n, f) == (size_t)n);
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* The CSV `m` writes for n rows with `lanes` CPU lanes and sampling batch `batch`. */
static char *csv_of(genesis_model *m, int64_t n, int lanes, int64_t batch, size_t *len) {
    char *out = temp_path("csv");
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, lanes), GENESIS_OK);
    ck_assert_msg(genesis_model_sample_csv(m, n, out) == GENESIS_OK, "%s", genesis_errmsg(g_ctx));
    char *b = slurp(out, len);
    remove(out);
    free(out);
    return b;
}

/* n rows from a fresh load of `path` (its first sampling call). */
static char *loaded_csv(const char *path, const char *cond, int64_t n, int lanes, int64_t batch,
                        size_t *len) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_load(g_ctx, path, &m), GENESIS_OK);
    if (cond) ck_assert_int_eq(genesis_model_set_condition(m, cond, " Female"), GENESIS_OK);
    char *b = csv_of(m, n, lanes, batch, len);
    genesis_model_free(m);
    return b;
}

static genesis_model *fit_kind(const genesis_table *t, genesis_model_kind k) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, k, &m), GENESIS_OK);
    if (k == GENESIS_MODEL_DDPM) {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_target(m, "income"), GENESIS_OK);
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    }
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(g_ctx));
    return m;
}

/* _i: 0 CTGAN, 1 CTGAN with `sex` = Female, 2 TVAE, 3 DDPM with a class column */
START_TEST(same_bytes_any_lanes) {
    static const genesis_model_kind kinds[] = {GENESIS_MODEL_CTGAN, GENESIS_MODEL_CTGAN,
                                               GENESIS_MODEL_TVAE, GENESIS_MODEL_DDPM};
    const char *cond = _i == 1 ? "sex" : NULL;
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, tu_path("data/adult_sample.csv"), NULL, &t),
                     GENESIS_OK);
    genesis_model *m = fit_kind(t, kinds[_i]);
    genesis_table_free(t);
    char *path = temp_path("gen");
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    int64_t n = 5100; /* not a multiple of the batches: a short last batch */
    size_t la, lb, lc, ld;
    char *a = loaded_csv(path, cond, n, 1, 500, &la);
    char *b = loaded_csv(path, cond, n, 3, 1000, &lb);
    char *c = loaded_csv(path, cond, n, 2, 1500, &lc);
    ck_assert_uint_gt(la, 1000);
    ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "%s: 3 lanes differ from 1",
                  genesis_model_kind_name(kinds[_i]));
    ck_assert_msg(la == lc && memcmp(a, c, la) == 0, "%s: 2 lanes differ from 1",
                  genesis_model_kind_name(kinds[_i]));
    if (cond) { /* the condition holds on every row, whichever lane made it */
        char *copy = strdup(a), *save = NULL;
        int rows = 0, female = 0;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), rows++)
            female += strstr(l, ",\" Female\",") != NULL;
        ck_assert_int_eq(female, rows - 1); /* all but the header */
        ck_assert_int_eq(rows, n + 1);
        free(copy);
    }
    /* the model as fitted, its first call on 2 lanes: the rows of the loaded file's first */
    if (cond) ck_assert_int_eq(genesis_model_set_condition(m, cond, " Female"), GENESIS_OK);
    char *d = csv_of(m, n, 2, 1000, &ld);
    ck_assert_msg(la == ld && memcmp(a, d, la) == 0, "%s: the fitted model on 2 lanes differs",
                  genesis_model_kind_name(kinds[_i]));
    free(a); free(b); free(c); free(d);
    genesis_model_free(m);
    remove(path);
    free(path);
}
END_TEST

/* an identifier column: fresh ids numbered by row, the same on any number of lanes */
START_TEST(ids_numbered_by_row) {
    char *csv = temp_path("ids");
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r"), *out = fopen(csv, "w");
    ck_assert(in && out);
    char line[4096];
    for (int r = 0; r <= 600 && fgets(line, sizeof line, in); r++)
        if (r) fprintf(out, "C%05d,%s", r, line);
        else fprintf(out, "rid,%s", line);
    fclose(in);
    fclose(out);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.id = "rid";
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, csv, &co, &t), GENESIS_OK);
    genesis_model *m = fit_kind(t, GENESIS_MODEL_TVAE);
    genesis_table_free(t);
    char *path = temp_path("gen");
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    size_t la, lb;
    char *a = loaded_csv(path, NULL, 3000, 1, 500, &la);
    char *b = loaded_csv(path, NULL, 3000, 3, 500, &lb);
    ck_assert(la == lb && memcmp(a, b, la) == 0);
    /* row r (from 0) has the id after the training ones' pattern, r + 1 of them apart */
    int r = 0, prev = -1;
    for (char *p = strchr(a, '\n') + 1; *p; p = strchr(p, '\n') + 1, r++) {
        ck_assert_int_eq(p[0], 'C');
        int id = atoi(p + 1);
        ck_assert_msg(prev < 0 || id == prev + 1, "row %d: id %d after %d", r, id, prev);
        prev = id;
    }
    ck_assert_int_eq(r, 3000);
    free(a); free(b);
    genesis_model_free(m);
    remove(path); remove(csv);
    free(path); free(csv);
}
END_TEST

START_TEST(early_stop_and_refusals) {
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, tu_path("data/adult_sample.csv"), NULL, &t),
                     GENESIS_OK);
    genesis_model *m = fit_kind(t, GENESIS_MODEL_CTGAN);
    genesis_table_free(t);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, 65), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, -1), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, 3), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sample_batch(m, 500), GENESIS_OK);
    genesis_sampler *s = NULL;
    ck_assert_int_eq(genesis_sampler_create(m, 100000, 0, &s), GENESIS_OK);
    const genesis_batch *b;
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(genesis_sampler_next(s, &b), GENESIS_OK);
        ck_assert_int_eq(genesis_batch_nrows(b), 500);
    }
    genesis_sampler_free(s); /* the three workers stop with batches in flight */
    ck_assert_int_eq(genesis_sampler_create(m, 10, 1, &s), GENESIS_OK); /* one batch: one lane works */
    const float *x;
    int64_t rows;
    int dim;
    ck_assert_int_eq(genesis_sampler_next_encoded(s, &x, &rows, &dim), GENESIS_OK);
    ck_assert_int_eq(rows, 10);
    ck_assert_int_eq(genesis_sampler_next_encoded(s, &x, &rows, &dim), GENESIS_OK);
    ck_assert(x == NULL);
    genesis_sampler_free(s);
    genesis_model_free(m);
}
END_TEST

START_TEST(timegan_one_lane) {
    char *csv = temp_path("seq");
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r"), *out = fopen(csv, "w");
    ck_assert(in && out);
    char line[4096];
    for (int r = 0; r <= 200 && fgets(line, sizeof line, in); r++) {
        int age, num;
        if (r == 0) { fputs("age,education_num\n", out); continue; }
        ck_assert_int_eq(sscanf(line, "%d,%*[^,],%*[^,],%*[^,],%d", &age, &num), 2);
        fprintf(out, "%d,%d\n", age, num);
    }
    fclose(in);
    fclose(out);
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, csv, NULL, &t), GENESIS_OK);
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_ITERATIONS, 2);
    genesis_model_set_param(m, GENESIS_P_SEQ_LEN, 4);
    genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 4);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 8);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(g_ctx));
    genesis_table_free(t);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, 2), GENESIS_OK);
    genesis_sampler *s = NULL;
    ck_assert_int_eq(genesis_sampler_create(m, 10, 0, &s), GENESIS_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(g_ctx), "one device"));
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_sampler_create(m, 10, 0, &s), GENESIS_OK);
    genesis_sampler_free(s);
    genesis_model_free(m);
    remove(csv);
    free(csv);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sample_devices");
    TCase *tc = tcase_create("lanes");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, same_bytes_any_lanes, 0, 4);
    tcase_add_test(tc, ids_numbered_by_row);
    tcase_add_test(tc, early_stop_and_refusals);
    tcase_add_test(tc, timegan_one_lane);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
