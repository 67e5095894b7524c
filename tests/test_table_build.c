/*
 * test_table_build.c — tables built from in-memory columns (src/data/table_build.c), a model's
 * column accessors (src/model/model_columns.c) and genesis_batch_column (src/model/sample_stream.c): a
 * built table equal to a CSV file's gives the same model and byte-identical synthetic CSV;
 * every bad argument is refused with a message naming the column; the column accessors agree
 * with the training table before and after save/load; whole-column reads agree with the
 * per-value accessors, pooled rare levels included; a shape-only table plans as the real one.
 */
#include <unistd.h>

#include "table.h"
#include "test_util.h"

static genesis_ctx *g_ctx;
static char g_dir[256];

static void setup(void) {
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
    snprintf(g_dir, sizeof g_dir, "/tmp/gen_tb_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
}
static void teardown(void) {
    genesis_ctx_free(g_ctx);
    g_ctx = NULL;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    ck_assert_int_eq(system(cmd), 0);
}

enum { NR = 60 };

/* The same data as a CSV file and as columns: an integer column with > 10 distinct values, a
 * two-decimal column with missing values, a categorical column with a missing value. */
static void make_data(double *age, double *score, int32_t *color, const char *path) {
    static const char *const lv[3] = {"red", "green", "blue"};
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "age,score,color\n");
    for (int i = 0; i < NR; i++) {
        age[i] = 18 + (i * 7) % 50;
        score[i] = i % 9 == 4 ? NAN : (double)((i * 37) % 1000) / 100.0;
        color[i] = i % 11 == 5 ? -1 : (i / 2) % 3;
        if (isnan(score[i]))
            fprintf(f, "%.0f,,%s\n", age[i], color[i] < 0 ? "" : lv[color[i]]);
        else
            fprintf(f, "%.0f,%.2f,%s\n", age[i], score[i], color[i] < 0 ? "" : lv[color[i]]);
    }
    ck_assert_int_eq(fclose(f), 0);
}

static genesis_table *build(const double *age, const double *score, const int32_t *color) {
    static const char *const lv[3] = {"red", "green", "blue"};
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_create(g_ctx, NR, "frame", &t), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(t, "age", age, 1, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(t, "score", score, 0, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_categorical(t, "color", color, lv, 3), GENESIS_OK);
    return t;
}

static genesis_model *fit(genesis_table *t) {
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 20), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 8), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 16), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIS_DIM, 16), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(g_ctx));
    return m;
}

START_TEST(test_same_as_csv) {
    double age[NR], score[NR];
    int32_t color[NR];
    char csv[300], out_a[300], out_b[300];
    snprintf(csv, sizeof csv, "%s/in.csv", g_dir);
    snprintf(out_a, sizeof out_a, "%s/a.csv", g_dir);
    snprintf(out_b, sizeof out_b, "%s/b.csv", g_dir);
    make_data(age, score, color, csv);

    genesis_table *tc = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, csv, NULL, &tc), GENESIS_OK);
    genesis_table *tb = build(age, score, color);
    ck_assert_int_eq(genesis_table_nrows(tb), NR);
    ck_assert_int_eq(genesis_table_ncols(tb), 3);
    for (int c = 0; c < 3; c++) {
        ck_assert_str_eq(genesis_table_column_name(tb, c), genesis_table_column_name(tc, c));
        ck_assert_int_eq(genesis_table_column_type(tb, c), genesis_table_column_type(tc, c));
        ck_assert_int_eq(tb->cols[c].nmissing, tc->cols[c].nmissing);
        ck_assert_int_eq(tb->cols[c].is_integer, tc->cols[c].is_integer);
        ck_assert_int_eq(tb->cols[c].decimals, tc->cols[c].decimals);
    }
    ck_assert_int_gt(tb->cols[1].nmissing, 0);
    ck_assert_int_gt(tb->cols[2].nmissing, 0);

    genesis_model *ma = fit(tc), *mb = fit(tb);
    ck_assert_int_eq(genesis_model_sample_csv(ma, 200, out_a), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(mb, 200, out_b), GENESIS_OK);
    size_t na, nb;
    char *a = tu_read_file(out_a, &na), *b = tu_read_file(out_b, &nb);
    ck_assert_uint_gt(na, 200);
    ck_assert_msg(na == nb && memcmp(a, b, na) == 0, "built table and CSV give different rows");
    free(a);
    free(b);
    genesis_model_free(ma);
    genesis_model_free(mb);
    genesis_table_free(tc);
    genesis_table_free(tb);
}
END_TEST

/* `want` with a message containing `needle`. */
static void expect(genesis_status st, genesis_status want, const char *needle) {
    const char *msg = genesis_errmsg(g_ctx);
    ck_assert_msg(st == want, "got %s (%s), want %s", genesis_status_str(st), msg,
                  genesis_status_str(want));
    ck_assert_msg(strstr(msg, needle) != NULL, "message \"%s\" lacks \"%s\"", msg, needle);
}

START_TEST(test_bad_arguments) {
    genesis_table *t = (genesis_table *)0x1;
    expect(genesis_table_create(g_ctx, -1, NULL, &t), GENESIS_ERR_INVALID_ARG, "`nrows`");
    ck_assert_ptr_null(t);
    ck_assert_int_eq(genesis_table_create(NULL, 3, NULL, &t), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_table_create(g_ctx, 3, "df", &t), GENESIS_OK);

    double ok[3] = {1, 2, NAN}, inf[3] = {1, INFINITY, 2}, frac[3] = {1, 2.5, 3};
    double big[3] = {1, 1e300, 3};
    expect(genesis_table_add_continuous(t, "", ok, 0, -1), GENESIS_ERR_INVALID_ARG, "empty");
    expect(genesis_table_add_continuous(t, "x", inf, 0, -1), GENESIS_ERR_INVALID_ARG,
           "column 'x', row 1: inf");
    expect(genesis_table_add_continuous(t, "x", frac, 1, 0), GENESIS_ERR_INVALID_ARG,
           "row 1: 2.5 is not a whole number");
    expect(genesis_table_add_continuous(t, "x", big, 1, 0), GENESIS_ERR_INVALID_ARG, "2^53");
    expect(genesis_table_add_continuous(t, "x", ok, 0, 18), GENESIS_ERR_INVALID_ARG, "`decimals`");
    expect(genesis_table_add_continuous(t, "x", ok, 2, 0), GENESIS_ERR_INVALID_ARG, "`integer`");
    expect(genesis_table_add_continuous(t, "x\xff", ok, 0, -1), GENESIS_ERR_INVALID_ARG, "UTF-8");
    ck_assert_int_eq(genesis_table_ncols(t), 0);
    ck_assert_int_eq(genesis_table_add_continuous(t, "x", ok, 0, -1), GENESIS_OK);
    expect(genesis_table_add_continuous(t, "x", ok, 0, -1), GENESIS_ERR_INVALID_ARG,
           "two columns are named 'x'");

    const char *lv[3] = {"a", "b", "a"};
    const char *lvnull[2] = {"a", NULL};
    const char *lvbad[2] = {"a", "\xc3\x28"};
    int32_t codes[3] = {0, 1, -1}, oob[3] = {0, 2, 1}, neg[3] = {0, -2, 1};
    expect(genesis_table_add_categorical(t, "c", codes, lv, 3), GENESIS_ERR_INVALID_ARG,
           "level 'a' is given twice");
    expect(genesis_table_add_categorical(t, "c", oob, lv, 2), GENESIS_ERR_INVALID_ARG,
           "row 1: code 2 is outside -1 .. 1");
    expect(genesis_table_add_categorical(t, "c", neg, lv, 2), GENESIS_ERR_INVALID_ARG,
           "row 1: code -2");
    expect(genesis_table_add_categorical(t, "c", codes, lvnull, 2), GENESIS_ERR_INVALID_ARG,
           "level 1 is NULL");
    expect(genesis_table_add_categorical(t, "c", codes, lvbad, 2), GENESIS_ERR_INVALID_ARG,
           "level 1 is not valid UTF-8");
    expect(genesis_table_add_categorical(t, "x", codes, lv, 2), GENESIS_ERR_INVALID_ARG,
           "two columns are named 'x'");
    ck_assert_int_eq(genesis_table_ncols(t), 1);
    ck_assert_int_eq(genesis_table_add_categorical(t, "c", codes, lv, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_table_ncols(t), 2);
    ck_assert_int_eq(genesis_table_column_type(t, 1), GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(t->cols[1].nmissing, 1);
    ck_assert_int_eq(genesis_table_add_categorical(NULL, "c", codes, lv, 2),
                     GENESIS_ERR_INVALID_ARG);
    genesis_table_free(t);

    /* an empty table is refused by fit, as an empty file is */
    ck_assert_int_eq(genesis_table_create(g_ctx, 0, NULL, &t), GENESIS_OK);
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    expect(genesis_model_fit(m, t, NULL, NULL), GENESIS_ERR_DATA, "no rows");
    genesis_model_free(m);
    genesis_table_free(t);
}
END_TEST

static void check_columns(const genesis_model *m) {
    ck_assert_int_eq(genesis_model_ncols(m), 3);
    genesis_model_column c;
    ck_assert_int_eq(genesis_model_column_info(m, 0, &c), GENESIS_OK);
    ck_assert_str_eq(c.name, "age");
    ck_assert_int_eq(c.type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c.integer, 1);
    ck_assert_int_eq(c.has_missing, 0);
    ck_assert_ptr_null(c.datetime);
    ck_assert_int_eq(genesis_model_column_info(m, 1, &c), GENESIS_OK);
    ck_assert_str_eq(c.name, "score");
    ck_assert_int_eq(c.integer, 0);
    ck_assert_int_eq(c.decimals, 2);
    ck_assert_int_eq(c.has_missing, 1);
    ck_assert_int_eq(genesis_model_column_info(m, 2, &c), GENESIS_OK);
    ck_assert_str_eq(c.name, "color");
    ck_assert_int_eq(c.type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(c.has_missing, 1);
    ck_assert_int_eq(c.nlevels, 3); /* "unused" is not generated */
    /* in order of first appearance: rows 0, 2 and 4 */
    ck_assert_str_eq(genesis_model_column_level(m, 2, 0), "red");
    ck_assert_str_eq(genesis_model_column_level(m, 2, 1), "green");
    ck_assert_str_eq(genesis_model_column_level(m, 2, 2), "blue");
    ck_assert_ptr_null(genesis_model_column_level(m, 2, 3));
    ck_assert_ptr_null(genesis_model_column_level(m, 0, 0));
    ck_assert_int_eq(genesis_model_column_info(m, 3, &c), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_model_column_info(m, -1, &c), GENESIS_ERR_INVALID_ARG);
}

START_TEST(test_model_columns) {
    static const char *const lv[4] = {"red", "green", "unused", "blue"};
    double age[NR], score[NR];
    int32_t color[NR];
    char csv[300], gen[300];
    snprintf(csv, sizeof csv, "%s/in.csv", g_dir);
    snprintf(gen, sizeof gen, "%s/m.gen", g_dir);
    make_data(age, score, color, csv);
    for (int i = 0; i < NR; i++)
        if (color[i] == 2) color[i] = 3; /* "blue" is level 3; level 2 is never used */
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_create(g_ctx, NR, NULL, &t), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(t, "age", age, 1, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(t, "score", score, 0, 2), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_categorical(t, "color", color, lv, 4), GENESIS_OK);

    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    genesis_model_column c;
    ck_assert_int_eq(genesis_model_ncols(m), 0);
    ck_assert_int_eq(genesis_model_column_info(m, 0, &c), GENESIS_ERR_STATE);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 20), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    check_columns(m);
    ck_assert_int_eq(genesis_model_save(m, gen), GENESIS_OK);
    genesis_model *l = NULL;
    ck_assert_int_eq(genesis_model_load(g_ctx, gen, &l), GENESIS_OK);
    check_columns(l);
    genesis_model_free(l);
    genesis_model_free(m);
    genesis_table_free(t);
    ck_assert_int_eq(genesis_model_ncols(NULL), 0);
}
END_TEST

/* genesis_batch_column agrees with the per-value accessors, pooled rare levels included. */
START_TEST(test_batch_column) {
    static const char *const lv[6] = {"a", "b", "c", "d", "e", "f"};
    double x[NR];
    int32_t code[NR];
    for (int i = 0; i < NR; i++) {
        x[i] = i % 13 == 3 ? NAN : (double)(i * 17 % 23) / 4.0;
        code[i] = i % 10 == 9 ? -1 : i % 7 < 3 ? i % 7 % 2 : i % 6;
    }
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_create(g_ctx, NR, NULL, &t), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(t, "x", x, 0, -1), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_categorical(t, "k", code, lv, 6), GENESIS_OK);
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_TVAE, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 20), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_MAX_CATEGORIES, 3), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    genesis_model_column info;
    ck_assert_int_eq(genesis_model_column_info(m, 1, &info), GENESIS_OK);
    ck_assert_int_eq(info.nlevels, 6); /* 2 kept + 4 pooled */

    genesis_sampler *s = NULL;
    ck_assert_int_eq(genesis_sampler_create(m, 500, 0, &s), GENESIS_OK);
    const genesis_batch *b = NULL;
    int64_t seen = 0, missing = 0, pooled = 0;
    double num[500];
    int32_t codes[500];
    char buf[64];
    while (genesis_sampler_next(s, &b) == GENESIS_OK && b) {
        int64_t n = genesis_batch_nrows(b);
        ck_assert_int_le(n, 500);
        ck_assert_int_eq(genesis_batch_column(b, 0, num, NULL), GENESIS_OK);
        ck_assert_int_eq(genesis_batch_column(b, 1, NULL, codes), GENESIS_OK);
        ck_assert_int_eq(genesis_batch_column(b, 1, num, NULL), GENESIS_ERR_INVALID_ARG);
        ck_assert_int_eq(genesis_batch_column(b, 2, num, codes), GENESIS_ERR_INVALID_ARG);
        for (int64_t r = 0; r < n; r++) {
            double want = genesis_batch_number(b, r, 0);
            ck_assert(isnan(want) ? isnan(num[r]) : num[r] == want);
            ck_assert_int_eq(codes[r] < 0, genesis_batch_is_missing(b, r, 1));
            if (codes[r] < 0) {
                missing++;
                continue;
            }
            ck_assert_int_lt(codes[r], 6);
            pooled += codes[r] >= 2;
            ck_assert_str_eq(genesis_model_column_level(m, 1, codes[r]),
                             genesis_batch_text(b, r, 1, buf, sizeof buf));
        }
        seen += n;
    }
    ck_assert_int_eq(seen, 500);
    ck_assert_int_gt(pooled, 0);
    ck_assert_int_gt(missing, 0);
    ck_assert_int_eq(genesis_batch_column(NULL, 0, num, codes), GENESIS_ERR_INVALID_ARG);
    genesis_sampler_free(s);
    genesis_model_free(m);
    genesis_table_free(t);
}
END_TEST

/* A shape-only table plans as the real table of that shape does, and cannot be fitted. */
START_TEST(test_shape_estimate) {
    static const char *const lv[4] = {"p", "q", "r", "s"};
    double x[NR];
    int32_t code[NR];
    for (int i = 0; i < NR; i++) {
        x[i] = i % 5 == 0 ? NAN : i * 0.5;
        code[i] = i % 4;
    }
    genesis_table *real = NULL, *shape = NULL;
    ck_assert_int_eq(genesis_table_create(g_ctx, NR, NULL, &real), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_continuous(real, "x", x, 0, -1), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_categorical(real, "k", code, lv, 4), GENESIS_OK);
    ck_assert_int_eq(genesis_table_create(g_ctx, NR, NULL, &shape), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_shape(shape, "x", 0, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_shape(shape, "k", 4, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_table_add_shape(shape, "y", -1, 0), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_table_add_shape(shape, "k", 2, 0), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_table_column_type(shape, 1), GENESIS_COLUMN_CATEGORICAL);
    for (int kind = GENESIS_MODEL_CTGAN; kind <= GENESIS_MODEL_TVAE; kind++) {
        genesis_model *m = NULL;
        ck_assert_int_eq(genesis_model_create(g_ctx, (genesis_model_kind)kind, &m), GENESIS_OK);
        genesis_memory_estimate a, b;
        for (int w = 0; w < 2; w++) {
            ck_assert_int_eq(genesis_estimate_memory(m, real, (genesis_workload)w, 0, &a),
                             GENESIS_OK);
            ck_assert_int_eq(genesis_estimate_memory(m, shape, (genesis_workload)w, 0, &b),
                             GENESIS_OK);
            ck_assert_int_eq(a.data_dim, b.data_dim);
            ck_assert_int_eq(a.cond_dim, b.cond_dim);
            ck_assert_uint_eq(a.parameters, b.parameters);
            ck_assert_uint_eq(a.optimizer, b.optimizer);
            ck_assert_uint_eq(a.activations, b.activations);
            ck_assert_uint_eq(a.encoded_data, b.encoded_data);
            ck_assert_uint_eq(a.transform_fit, b.transform_fit);
            ck_assert_uint_eq(a.device_total, b.device_total);
            /* the column store differs only by the level strings' bytes */
            ck_assert_uint_le(b.table, a.table);
            ck_assert_uint_le(a.table - b.table, 4 * 32);
        }
        genesis_status st = genesis_model_fit(m, shape, NULL, NULL);
        ck_assert_int_eq(st, GENESIS_ERR_DATA);
        ck_assert_ptr_nonnull(strstr(genesis_errmsg(g_ctx), "genesis_table_add_shape"));
        genesis_model_free(m);
    }
    genesis_eval_result *r = NULL;
    ck_assert_int_eq(genesis_evaluate(g_ctx, real, shape, NULL, &r), GENESIS_ERR_DATA);
    ck_assert_ptr_null(r);
    genesis_table_free(real);
    genesis_table_free(shape);
}
END_TEST

static Suite *table_build_suite(void) {
    Suite *s = suite_create("table_build");
    TCase *tc = tcase_create("columns");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_same_as_csv);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_model_columns);
    tcase_add_test(tc, test_batch_column);
    tcase_add_test(tc, test_shape_estimate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(table_build_suite()); }
