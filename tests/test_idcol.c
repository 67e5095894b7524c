/*
 * test_idcol.c — identifier columns (src/data/idcol.c, the rule in src/data/ingest.c, decoding in
 * src/transform/transform.c, the model file): the name rule, splitting numbered text, which columns
 * the reader takes for ids and which it leaves alone (measurements of distinct numbers,
 * repeated ids, missing values, tiny tables, free text), the overrides and their errors, and
 * a model fitted on ids: every written id unique, in the input's shape, never a real one,
 * still unique over two samples, and the same text after save and load.
 */
#include <unistd.h>

#include "idcol.h"
#include "table.h"
#include "test_util.h"

static char g_dir[256];
static genesis_ctx *g_ctx;
static char g_log[4096];

static void on_log(genesis_log_level lvl, const char *msg, void *user) {
    (void)lvl, (void)user;
    strncat(g_log, msg, sizeof g_log - strlen(g_log) - 2);
    strcat(g_log, "\n");
}

static void setup(void) {
    snprintf(g_dir, sizeof g_dir, "%s/genesis-id-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
    g_log[0] = 0;
    genesis_ctx_set_log(g_ctx, on_log, NULL);
}

static void teardown(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    ck_assert_int_eq(system(cmd), 0);
    genesis_ctx_free(g_ctx);
}

static const char *put(const char *name, const char *text) {
    static char bufs[4][512];
    static int k = 0;
    char *p = bufs[k++ & 3];
    snprintf(p, 512, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static genesis_table *rd(const char *path, const char *id, const char *not_id) {
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    o.id = id;
    o.not_id = not_id;
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(g_ctx, path, &o, &t);
    ck_assert_msg(st == GENESIS_OK, "%s: %s", path, genesis_errmsg(g_ctx));
    return t;
}

START_TEST(test_name_rule_and_split) {
    const char *yes[] = {"id", "ID", "uuid", "customer_id", "Order-ID", "visit id", "p.id",
                         "id_customer", "customerId", "orderID"};
    const char *no[] = {"idle", "valid", "paid", "grid", "identity", "Iid", "ID card", "kid"};
    for (size_t k = 0; k < sizeof yes / sizeof *yes; k++)
        ck_assert_msg(gen_id_name_like(yes[k]), "%s", yes[k]);
    for (size_t k = 0; k < sizeof no / sizeof *no; k++)
        ck_assert_msg(!gen_id_name_like(no[k]), "%s", no[k]);
    size_t a, b;
    int64_t v;
    ck_assert(gen_id_split("INV-00042/A", 11, &a, &b, &v));
    ck_assert_int_eq(a, 4);
    ck_assert_int_eq(b, 9);
    ck_assert_int_eq(v, 42);
    ck_assert(!gen_id_split("A1B2", 4, &a, &b, &v));      /* two runs */
    ck_assert(!gen_id_split("ABC", 3, &a, &b, &v));       /* no digit */
    ck_assert(!gen_id_split("x1234567890123456", 17, &a, &b, &v)); /* run too long */
    gen_id_format f = {GEN_ID_TEXT, "INV-", "/A", 5, 43};
    char buf[64];
    ck_assert_int_eq(gen_id_format_value(&f, 0, buf, sizeof buf), 11);
    ck_assert_str_eq(buf, "INV-00043/A");
    gen_id_format g = {GEN_ID_INTEGER, "", "", 0, 1001};
    gen_id_format_value(&g, 9, buf, sizeof buf);
    ck_assert_str_eq(buf, "1010");
}
END_TEST

/* n rows: cust_id (integers, step 3), code (C + 4 digits), weight (distinct numbers),
 * patient_id (repeats), note (free text, distinct), x */
static const char *table(int n, int with_missing) {
    static char buf[1 << 16];
    size_t k = (size_t)sprintf(buf, "cust_id,code,weight,patient_id,note,x\n");
    for (int i = 0; i < n; i++)
        k += (size_t)sprintf(buf + k, "%d,C%04d,%d.%02d,%d,note number %d and %d,%d\n",
                             100 + 3 * i, 7 + i, 50 + i, i % 100, i / 2, i, i * i, i % 5);
    if (with_missing) k += (size_t)sprintf(buf + k, "NA,C9999,1.5,1,x,1\n");
    return put("t.csv", buf);
}

START_TEST(test_reader_rule) {
    genesis_table *t = rd(table(40, 0), NULL, NULL);
    ck_assert(genesis_table_column_is_id(t, 0));       /* cust_id: integers, id-like name */
    ck_assert_int_eq(t->cols[0].id.kind, GEN_ID_INTEGER);
    ck_assert_int_eq(t->cols[0].id.start, 100 + 3 * 39 + 1);
    ck_assert(genesis_table_column_is_id(t, 1));       /* code: numbered text, any name */
    ck_assert_str_eq(t->cols[1].id.prefix, "C");
    ck_assert_int_eq(t->cols[1].id.width, 4);
    ck_assert_int_eq(t->cols[1].id.start, 47);
    ck_assert(!genesis_table_column_is_id(t, 2));      /* distinct numbers: a measurement */
    ck_assert(!genesis_table_column_is_id(t, 3));      /* repeats */
    ck_assert(!genesis_table_column_is_id(t, 4));      /* free text: two runs of digits */
    ck_assert_int_eq(t->cols[4].type, GENESIS_COLUMN_CATEGORICAL);
    for (int64_t i = 0; i < t->nrows; i++) ck_assert_double_eq(t->cols[0].num[i], 0.0);
    ck_assert_msg(strstr(g_log, "\"patient_id\" looks like an identifier but its values repeat"),
                  "no note on the repeated id: %s", g_log);
    genesis_table_free(t);
    /* an id-like name on a code with few levels (8 in 40 rows) is a category: no note */
    char buf[1024];
    size_t k = (size_t)sprintf(buf, "kind_id,y\n");
    for (int i = 0; i < 40; i++) k += (size_t)sprintf(buf + k, "%d,%d.5\n", i % 8, i);
    g_log[0] = 0;
    t = rd(put("codes.csv", buf), NULL, NULL);
    ck_assert(!genesis_table_column_is_id(t, 0));
    ck_assert_msg(!strstr(g_log, "looks like an identifier"), "a note on a code: %s", g_log);
    genesis_table_free(t);
    /* a missing value, or fewer than 10 rows: no automatic ids */
    t = rd(table(40, 1), NULL, NULL);
    ck_assert(!genesis_table_column_is_id(t, 0));
    genesis_table_free(t);
    t = rd(table(9, 0), NULL, NULL);
    ck_assert(!genesis_table_column_is_id(t, 0) && !genesis_table_column_is_id(t, 1));
    genesis_table_free(t);
    /* overrides: an id per row for the repeated column, none for code; "*" */
    t = rd(table(40, 0), "patient_id", "code");
    ck_assert(genesis_table_column_is_id(t, 3));
    ck_assert_int_eq(t->cols[3].id.start, 20); /* the largest real value (39 / 2) + 1 */
    ck_assert(!genesis_table_column_is_id(t, 1));
    genesis_table_free(t);
    t = rd(table(40, 0), NULL, "*");
    for (int c = 0; c < 6; c++) ck_assert(!genesis_table_column_is_id(t, c));
    genesis_table_free(t);
}
END_TEST

/* A column that numbers the rows (v0, v0 + 1, ... in row order) is an index under any name,
 * regenerated from its first value; the same numbers in another order, one gap, or a repeat
 * are a measurement; `not_id` keeps it a number. */
START_TEST(test_row_index) {
    char buf[4096];
    size_t k = (size_t)sprintf(buf, "row,Unnamed: 0,shuffled,gap,y\n");
    for (int i = 0; i < 30; i++)
        k += (size_t)sprintf(buf + k, "%d,%d,%d,%d,%d.5\n", i + 1, i, (i * 7) % 30, i + (i > 20),
                             i % 4);
    g_log[0] = 0;
    genesis_table *t = rd(put("index.csv", buf), NULL, NULL);
    ck_assert(genesis_table_column_is_id(t, 0));
    ck_assert_int_eq(t->cols[0].id.kind, GEN_ID_INTEGER);
    ck_assert_int_eq(t->cols[0].id.start, 1);
    ck_assert(genesis_table_column_is_id(t, 1));
    ck_assert_int_eq(t->cols[1].id.start, 0);
    ck_assert(!genesis_table_column_is_id(t, 2)); /* 0..29 in another order */
    ck_assert(!genesis_table_column_is_id(t, 3)); /* one gap */
    ck_assert_msg(strstr(g_log, "\"row\" numbers the rows (1, 2, ... in row order)"),
                  "no note on the index: %s", g_log);
    char out[32];
    gen_id_format_value(&t->cols[0].id, 4, out, sizeof out);
    ck_assert_str_eq(out, "5");
    genesis_table_free(t);
    t = rd(put("index.csv", buf), NULL, "row");
    ck_assert(!genesis_table_column_is_id(t, 0));
    ck_assert(genesis_table_column_is_id(t, 1));
    genesis_table_free(t);
}
END_TEST

START_TEST(test_reader_errors) {
    const char *p = table(40, 0);
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    o.id = "note";
    genesis_table *t = NULL;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, p, &o, &t), GENESIS_ERR_PARSE);
    char where[600];
    snprintf(where, sizeof where, "%s:2:5:", p);
    ck_assert_msg(strstr(genesis_errmsg(g_ctx), where) &&
                      strstr(genesis_errmsg(g_ctx), "note number 0 and 0"),
                  "%s", genesis_errmsg(g_ctx));
    o.id = "nosuch";
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, p, &o, &t), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(g_ctx), "use one of"));
    o.id = "x";
    o.discrete = "x";
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, p, &o, &t), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_null(t);
}
END_TEST

/* The values of column c of a CSV file (after the header), n at most. */
static int column_values(const char *path, int c, char vals[][32], int n) {
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int k = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    while (k < n && fgets(line, sizeof line, f)) {
        char *s = line;
        for (int j = 0; j < c; j++) s = strchr(s, ',') + 1;
        size_t len = strcspn(s, ",\n");
        ck_assert_uint_lt(len, 32);
        memcpy(vals[k], s, len);
        vals[k++][len] = 0;
    }
    fclose(f);
    return k;
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

START_TEST(test_model_ids) {
    const char *in = table(200, 0);
    genesis_table *t = rd(in, NULL, NULL);
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 50);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    char out[300], out2[300], out3[300], model[300];
    snprintf(out, sizeof out, "%s/o1.csv", g_dir);
    snprintf(out2, sizeof out2, "%s/o2.csv", g_dir);
    snprintf(out3, sizeof out3, "%s/o3.csv", g_dir);
    snprintf(model, sizeof model, "%s/m.gen", g_dir);
    ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m, 300, out), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m, 300, out2), GENESIS_OK);
    static char real[2][200][32], syn[2][600][32];
    for (int c = 0; c < 2; c++) {
        ck_assert_int_eq(column_values(in, c, real[c], 200), 200);
        ck_assert_int_eq(column_values(out, c, syn[c], 300), 300);
        ck_assert_int_eq(column_values(out2, c, syn[c] + 300, 300), 300);
        /* the shape of the input: digits only, or C + at least 4 digits */
        for (int i = 0; i < 600; i++) {
            const char *s = syn[c][i];
            size_t d = strspn(s + c, "0123456789");
            ck_assert_msg(d > 0 && s[c + d] == 0 && (c == 0 || (s[0] == 'C' && d >= 4)),
                          "\"%s\" is not in the input's shape", s);
        }
        /* unique over both samples, and never a real value */
        qsort(syn[c], 600, 32, cmp_str);
        for (int i = 1; i < 600; i++)
            ck_assert_msg(strcmp(syn[c][i - 1], syn[c][i]), "id %s written twice", syn[c][i]);
        for (int i = 0; i < 200; i++)
            ck_assert_msg(!bsearch(real[c][i], syn[c], 600, 32, cmp_str),
                          "real id %s copied", real[c][i]);
    }
    /* a loaded model starts numbering afresh: its first sample is the original's first */
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(g_ctx, model, &l), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(l, 300, out3), GENESIS_OK);
    static char a[300][32], b[300][32];
    column_values(out, 1, a, 300);
    column_values(out3, 1, b, 300);
    ck_assert_str_eq(a[0], "C0207");
    for (int i = 0; i < 300; i++) ck_assert_str_eq(a[i], b[i]);
    genesis_model_free(l);
    genesis_model_free(m);
    genesis_table_free(t);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("idcol");
    TCase *r = tcase_create("rule");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_add_test(r, test_name_rule_and_split);
    tcase_add_test(r, test_reader_rule);
    tcase_add_test(r, test_row_index);
    tcase_add_test(r, test_reader_errors);
    suite_add_tcase(s, r);
    TCase *m = tcase_create("model");
    tcase_add_checked_fixture(m, setup, teardown);
    tcase_set_timeout(m, 120);
    tcase_add_test(m, test_model_ids);
    suite_add_tcase(s, m);
    return s;
}

int main(void) { return tu_run(suite()); }
