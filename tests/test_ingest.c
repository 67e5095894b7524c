/*
 * test_ingest.c — the CSV reader (src/data/ingest.c): delimiter sniffing, quoting, CRLF, missing
 * tokens, column typing and its overrides, number precision, verbatim levels, every kind of
 * bad input (status plus a message naming file and line), large generated inputs, and the
 * shipped data/adult_sample.csv.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "table.h"
#include "test_util.h"

static genesis_ctx *g_ctx;

static char g_captured[4096];
static void capture_log(genesis_log_level lvl, const char *msg, void *user) {
    (void)lvl, (void)user;
    strncat(g_captured, msg, sizeof g_captured - strlen(g_captured) - 2);
    strcat(g_captured, "\n");
}

static void setup(void) { ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK); }
static void teardown(void) {
    genesis_ctx_free(g_ctx);
    g_ctx = NULL;
}

static genesis_csv_options opts_default(void) {
    genesis_csv_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.has_header = 1;
    return o;
}

static genesis_table *read_ok(const char *path, const genesis_csv_options *o) {
    genesis_table *t = NULL;
    genesis_status st = gen_table_read_csv(g_ctx, path, o, &t);
    ck_assert_msg(st == GENESIS_OK, "reading %s: %s: %s", path, genesis_status_str(st),
                  genesis_errmsg(g_ctx));
    ck_assert_ptr_nonnull(t);
    return t;
}

static genesis_table *read_fixture(const char *rel, const genesis_csv_options *o) {
    return read_ok(tu_path(rel), o);
}

/* Reading must fail with `want`, and the message must contain each non-NULL needle. */
static void read_bad(const char *path, const genesis_csv_options *o, genesis_status want,
                     const char *n1, const char *n2, const char *n3) {
    genesis_table *t = (genesis_table *)0x1;
    genesis_status st = gen_table_read_csv(g_ctx, path, o, &t);
    const char *msg = genesis_errmsg(g_ctx);
    ck_assert_msg(st == want, "%s: got %s (%s), want %s", path, genesis_status_str(st), msg,
                  genesis_status_str(want));
    ck_assert_ptr_null(t);
    const char *needles[3] = {n1, n2, n3};
    for (int k = 0; k < 3; k++)
        if (needles[k])
            ck_assert_msg(strstr(msg, needles[k]) != NULL, "message \"%s\" lacks \"%s\"", msg,
                          needles[k]);
}

static const gen_column *col(const genesis_table *t, const char *name) {
    int c = gen_table_find_column(t, name);
    ck_assert_msg(c >= 0, "no column %s", name);
    return &t->cols[c];
}

static const char *level_of(const gen_column *c, int64_t row) {
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CATEGORICAL);
    int32_t k = c->cat[row];
    return k < 0 ? NULL : c->levels[k];
}

/* Writes `len` bytes to a fresh temporary file; the caller unlinks and frees the name. */
static char *tmp_file(const char *data, size_t len) {
    char *name = strdup("/tmp/gen_test_ingest_XXXXXX.csv");
    int fd = mkstemps(name, 4);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return name;
}

static void tmp_done(char *name) {
    unlink(name);
    free(name);
}

/* ---- delimiters and quoting -------------------------------------------------------------- */

START_TEST(test_sniff_delimiters) {
    static const struct {
        const char *file;
        char delim;
        const char *name3;
    } cases[] = {{"tests/data/comma.csv", ',', "gamma, delta"},
                 {"tests/data/semicolon.csv", ';', "gamma; delta"},
                 {"tests/data/tab.csv", '\t', "tab\there"},
                 {"tests/data/pipe.csv", '|', NULL}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        genesis_table *t = read_fixture(cases[k].file, NULL);
        ck_assert_int_eq(t->delimiter, cases[k].delim);
        ck_assert_int_eq(t->ncols, 3);
        ck_assert_str_eq(t->cols[0].name, "id");
        ck_assert_str_eq(t->cols[1].name, "name");
        ck_assert_str_eq(t->cols[2].name, "score");
        ck_assert_str_eq(level_of(&t->cols[1], 0), "alpha");
        if (cases[k].name3) ck_assert_str_eq(level_of(&t->cols[1], 2), cases[k].name3);
        ck_assert_str_eq(t->source, tu_path(cases[k].file));
        gen_table_destroy(t);
    }
    /* "2,5" is not a number: the semicolon file's score column is categorical */
    genesis_table *t = read_fixture("tests/data/semicolon.csv", NULL);
    ck_assert_str_eq(level_of(col(t, "score"), 0), "2,5");
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_explicit_delimiter) {
    genesis_csv_options o = opts_default();
    o.delimiter = ';';
    /* pipe.csv read with ';' has one column whose name is the whole header line */
    genesis_table *t = read_fixture("tests/data/pipe.csv", &o);
    ck_assert_int_eq(t->ncols, 1);
    ck_assert_str_eq(t->cols[0].name, "id|name|score");
    ck_assert_int_eq(t->delimiter, ';');
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_quoting) {
    genesis_table *t = read_fixture("tests/data/quoted.csv", NULL);
    ck_assert_int_eq(t->nrows, 5);
    const gen_column *c = col(t, "text");
    ck_assert_str_eq(level_of(c, 0), "has, comma");
    ck_assert_str_eq(level_of(c, 1), "has \"quotes\"");
    ck_assert_str_eq(level_of(c, 2), "two\nlines");
    ck_assert_ptr_null(level_of(c, 3)); /* "" is missing */
    ck_assert_str_eq(level_of(c, 4), "plain");
    ck_assert_int_eq(c->nmissing, 1);
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_crlf_no_final_newline) {
    genesis_table *t = read_fixture("tests/data/crlf_noeol.csv", NULL);
    ck_assert_int_eq(t->nrows, 3);
    ck_assert_int_eq(t->ncols, 3);
    ck_assert_str_eq(t->cols[2].name, "c"); /* no '\r' left in the last name */
    ck_assert_str_eq(level_of(col(t, "b"), 2), "z");
    const gen_column *c = col(t, "c");
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CATEGORICAL); /* only 3 distinct numbers */
    ck_assert_str_eq(c->levels[c->cat[2]], "3.5");
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_bom_and_stdin) {
    genesis_table *t = read_fixture("tests/data/bom.csv", NULL);
    ck_assert_str_eq(t->cols[0].name, "name");
    gen_table_destroy(t);
    /* "-" reads stdin: point fd 0 at a file for the duration */
    int fd = open(tu_path("tests/data/pipe.csv"), O_RDONLY);
    ck_assert_int_ge(fd, 0);
    int saved = dup(STDIN_FILENO);
    ck_assert_int_ge(dup2(fd, STDIN_FILENO), 0);
    close(fd);
    clearerr(stdin);
    t = read_ok("-", NULL);
    dup2(saved, STDIN_FILENO);
    close(saved);
    clearerr(stdin);
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_int_eq(t->delimiter, '|');
    ck_assert_str_eq(t->source, "-");
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_no_header) {
    genesis_csv_options o = opts_default();
    o.has_header = 0;
    o.discrete = "col1";
    genesis_table *t = read_fixture("tests/data/pipe.csv", &o);
    ck_assert_int_eq(t->nrows, 3);
    ck_assert_str_eq(t->cols[0].name, "col1");
    ck_assert_str_eq(t->cols[2].name, "col3");
    ck_assert_str_eq(level_of(&t->cols[0], 0), "id");
    ck_assert_str_eq(level_of(&t->cols[1], 2), "beta");
    gen_table_destroy(t);
}
END_TEST

/* ---- missing values and levels ---------------------------------------------------------- */

START_TEST(test_spaces_kept_verbatim) {
    genesis_table *t = read_fixture("tests/data/spaces.csv", NULL);
    ck_assert_str_eq(t->cols[1].name, " workclass");
    ck_assert_str_eq(t->cols[2].name, "city ");
    const gen_column *w = &t->cols[1];
    ck_assert_int_eq(w->nlevels, 3);
    ck_assert_str_eq(w->levels[0], " State-gov");
    ck_assert_str_eq(w->levels[1], " Self-emp-not-inc");
    ck_assert_str_eq(w->levels[2], " Private ");
    ck_assert_int_eq(w->cat[3], -1);
    ck_assert_int_eq(w->nmissing, 1);
    ck_assert_str_eq(w->na_text, " ?");
    const gen_column *city = &t->cols[2];
    ck_assert_int_eq(city->nlevels, 3); /* " Paris" and "Paris" differ */
    ck_assert_str_eq(city->levels[0], " Paris");
    ck_assert_str_eq(city->levels[1], "Paris");
    ck_assert_str_eq(city->na_text, "");
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_all_missing_constant_one_row) {
    genesis_table *t = read_fixture("tests/data/all_missing.csv", NULL);
    ck_assert_int_eq(t->nrows, 4);
    for (int c = 0; c < 3; c++) {
        ck_assert_int_eq(t->cols[c].type, GENESIS_COLUMN_CATEGORICAL);
        ck_assert_int_eq(t->cols[c].nlevels, 0);
        ck_assert_int_eq(t->cols[c].nmissing, 4);
        for (int r = 0; r < 4; r++) ck_assert_int_eq(t->cols[c].cat[r], -1);
    }
    /* column a: "", " ", "NULL", "N/A" each once -> the first seen wins */
    ck_assert_str_eq(t->cols[0].na_text, "");
    ck_assert_str_eq(t->cols[1].na_text, "NA");
    /* column c: "?", " ?", "", "NaN" */
    ck_assert_str_eq(t->cols[2].na_text, "?");
    gen_table_destroy(t);

    t = read_fixture("tests/data/constant.csv", NULL);
    ck_assert_int_eq(t->nrows, 3);
    ck_assert_int_eq(col(t, "v")->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(col(t, "v")->nlevels, 1);
    ck_assert_str_eq(col(t, "k")->levels[0], "same");
    gen_table_destroy(t);

    t = read_fixture("tests/data/one_row.csv", NULL);
    ck_assert_int_eq(t->nrows, 1);
    ck_assert_int_eq(t->ncols, 3);
    ck_assert_str_eq(level_of(col(t, "z"), 0), "3.0");
    gen_table_destroy(t);
}
END_TEST

START_TEST(test_na_tokens_option) {
    genesis_table *t = read_fixture("tests/data/na.csv", NULL);
    ck_assert_int_eq(col(t, "b")->nmissing, 0);
    ck_assert_int_eq(col(t, "b")->nlevels, 4);
    gen_table_destroy(t);

    genesis_csv_options o = opts_default();
    o.na_tokens = "-, missing";
    t = read_fixture("tests/data/na.csv", &o);
    const gen_column *b = col(t, "b");
    ck_assert_int_eq(b->nmissing, 5);
    ck_assert_int_eq(b->nlevels, 1);
    ck_assert_str_eq(b->levels[0], "x");
    ck_assert_str_eq(b->na_text, "-"); /* 3 times, more than "missing" / " missing " */
    ck_assert_int_eq(b->cat[3], 0);
    ck_assert_int_eq(b->cat[2], -1);
    gen_table_destroy(t);
}
END_TEST

/* ---- typing ----------------------------------------------------------------------------- */

START_TEST(test_typing_rules) {
    genesis_table *t = read_fixture("tests/data/typing.csv", NULL);
    ck_assert_int_eq(t->nrows, 15);
    const gen_column *c;

    c = col(t, "int_col"); /* 2, 1, 3, ..., 15: not in row order, so not an index */
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->is_integer, 1);
    ck_assert_int_eq(c->decimals, 0);
    ck_assert_double_eq(c->num[14], 15.0);
    ck_assert_ptr_null(c->cat);

    c = col(t, "dec_col");
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->is_integer, 0);
    ck_assert_int_eq(c->decimals, 2);
    ck_assert_double_eq(c->num[5], 6.5);

    c = col(t, "exp_col");
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->decimals, -1);
    ck_assert_int_eq(c->is_integer, 0);
    ck_assert_double_eq(c->num[1], 2e-3);

    c = col(t, "few"); /* 3 distinct numbers <= 10 */
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(c->nlevels, 3);
    ck_assert_str_eq(c->levels[0], "1");
    ck_assert_str_eq(c->levels[2], "0");
    ck_assert_ptr_null(c->num);

    c = col(t, "intfloat");
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->is_integer, 1);
    ck_assert_int_eq(c->decimals, 1);

    ck_assert_int_eq(col(t, "text")->type, GENESIS_COLUMN_CATEGORICAL);
    c = col(t, "mixed"); /* one "x" among numbers */
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(c->nlevels, 15);

    c = col(t, "numsp"); /* "  10 ": blanks around a number are fine */
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_double_eq(c->num[0], 10.0);
    ck_assert_int_eq(c->is_integer, 1);

    ck_assert_int_eq(col(t, "hexy")->type, GENESIS_COLUMN_CATEGORICAL); /* no hex */

    c = col(t, "big"); /* 9007199254740993 >= 2^53 */
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->is_integer, 0);
    ck_assert_int_eq(c->decimals, 0);
    gen_table_destroy(t);
}
END_TEST

/* A column is written with the decimals that print at least 99% of its rows as read: one
 * 8-decimal value among 300 two-decimal prices does not make it 8; 5 four-decimal values in
 * 105 rows (4.8%) do; exponent notation in more than 1% of the rows: the shortest form. */
START_TEST(test_typical_decimals) {
    static char buf[1 << 15];
    for (int expo = 3; expo <= 4; expo++) { /* rows of "tiny" in exponent notation */
        size_t k = (size_t)sprintf(buf, "price,rate,tiny\n");
        for (int i = 0; i < 301; i++) {
            char price[32];
            if (i == 0) snprintf(price, sizeof price, "10.12345678");
            else snprintf(price, sizeof price, "%d.%02d", 10 + i, (i * 37) % 100);
            k += (size_t)sprintf(buf + k, "%s,%s,%s\n", price,
                                 i < 100 ? "0.25" : i < 105 ? "0.1234" : "0.5",
                                 i < expo ? "1e-9" : i % 2 ? "0.5" : "1.25");
        }
        char *name = tmp_file(buf, k);
        genesis_csv_options o = opts_default();
        o.max_categories = 2;
        genesis_table *t = read_ok(name, &o);
        ck_assert_int_eq(col(t, "price")->decimals, 2);
        ck_assert_double_eq_tol(col(t, "price")->num[0], 10.12345678, 1e-12); /* value kept */
        ck_assert_int_eq(col(t, "rate")->decimals, 4);
        /* 3 of 301 rows (1.0%) in exponent notation: 2 decimals; 4 (1.3%): shortest form */
        ck_assert_int_eq(col(t, "tiny")->decimals, expo == 3 ? 2 : -1);
        gen_table_destroy(t);
        tmp_done(name);
    }
}
END_TEST

/* Whole-number codes of one family (names that differ in a trailing number) are typed alike:
 * PAY_0 has 8 levels (categorical alone), PAY_2 and PAY_3 11 (continuous alone): all three
 * categorical, with a note. A family whose members all have more than 10 levels stays
 * continuous, one with more than 20 is not a code, and a type given by the user wins. */
START_TEST(test_code_families) {
    static char buf[1 << 15];
    size_t k = (size_t)sprintf(buf, "PAY_0,PAY_2,PAY_3,AMT1,AMT2,SCORE1,SCORE2\n");
    for (int i = 0; i < 200; i++)
        k += (size_t)sprintf(buf + k, "%d,%d,%d,%d,%d,%d,%d\n", i % 8 - 2, i % 11 - 2,
                             (i * 7) % 11 - 2, 1000 + (i * 37) % 500, 2000 + (i * 53) % 700,
                             i % 15, (i * 4) % 15);
    char *name = tmp_file(buf, k);
    genesis_ctx_set_log(g_ctx, capture_log, NULL);
    g_captured[0] = 0;
    genesis_csv_options o = opts_default();
    genesis_table *t = read_ok(name, &o);
    for (int c = 0; c < 3; c++)
        ck_assert_msg(t->cols[c].type == GENESIS_COLUMN_CATEGORICAL, "%s", t->cols[c].name);
    ck_assert_int_eq(col(t, "PAY_2")->nlevels, 11);
    ck_assert_int_eq(col(t, "AMT1")->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(col(t, "SCORE1")->type, GENESIS_COLUMN_CONTINUOUS); /* 15 and 15 levels */
    ck_assert_int_eq(col(t, "SCORE2")->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_msg(strstr(g_captured, "\"PAY_0\", \"PAY_2\", \"PAY_3\" hold whole-number codes"),
                  "no note: %s", g_captured);
    gen_table_destroy(t);
    o.continuous = "PAY_2";
    t = read_ok(name, &o);
    ck_assert_int_eq(col(t, "PAY_2")->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(col(t, "PAY_3")->type, GENESIS_COLUMN_CATEGORICAL);
    gen_table_destroy(t);
    genesis_ctx_set_log(g_ctx, NULL, NULL);
    tmp_done(name);
}
END_TEST

/* Decimal commas: in a ';' file a column of 3,14-style numbers (and whole numbers) is
 * continuous with those values and is marked to be written back with a comma; a column with
 * a thousands separator (1.234,56) stays text; in a ',' file a quoted "3,14" is text. */
START_TEST(test_decimal_comma) {
    static char buf[1 << 14];
    size_t k = (size_t)sprintf(buf, "price;thousands;n\n");
    for (int i = 0; i < 40; i++)
        k += (size_t)sprintf(buf + k, "%s%d,%02d;1.%03d,5;%d\n", i == 5 ? "-" : "", i * 3,
                             (i * 7) % 100, i, i % 3);
    k += (size_t)sprintf(buf + k, "12;2.000,5;1\n"); /* a whole number among them */
    char *name = tmp_file(buf, k);
    genesis_csv_options o = opts_default();
    genesis_table *t = read_ok(name, &o);
    const gen_column *c = col(t, "price");
    ck_assert_int_eq(c->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(c->decimal_comma, 1);
    ck_assert_int_eq(c->decimals, 2);
    ck_assert_double_eq_tol(c->num[1], 3.07, 1e-12);
    ck_assert_double_eq_tol(c->num[5], -15.35, 1e-12);
    ck_assert_double_eq_tol(c->num[40], 12.0, 1e-12);
    ck_assert_int_eq(col(t, "thousands")->type, GENESIS_COLUMN_CATEGORICAL);
    gen_table_destroy(t);
    tmp_done(name);
    k = (size_t)sprintf(buf, "price,n\n");
    for (int i = 0; i < 40; i++) k += (size_t)sprintf(buf + k, "\"%d,%02d\",%d\n", i, i, i % 3);
    name = tmp_file(buf, k);
    t = read_ok(name, &o);
    ck_assert_int_eq(col(t, "price")->type, GENESIS_COLUMN_CATEGORICAL);
    gen_table_destroy(t);
    tmp_done(name);
}
END_TEST

START_TEST(test_max_categories_and_overrides) {
    genesis_csv_options o = opts_default();
    o.max_categories = 15; /* 15 distinct is not more than 15 */
    genesis_table *t = read_fixture("tests/data/typing.csv", &o);
    ck_assert_int_eq(col(t, "int_col")->type, GENESIS_COLUMN_CATEGORICAL);
    gen_table_destroy(t);

    o = opts_default();
    o.discrete = "int_col,dec_col";
    o.continuous = " few , numsp"; /* blanks around names are forgiven */
    t = read_fixture("tests/data/typing.csv", &o);
    ck_assert_int_eq(col(t, "int_col")->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(col(t, "int_col")->nlevels, 15);
    ck_assert_int_eq(col(t, "dec_col")->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_str_eq(col(t, "dec_col")->levels[5], "6.50"); /* raw text kept */
    const gen_column *few = col(t, "few");
    ck_assert_int_eq(few->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_double_eq(few->num[2], 0.0);
    ck_assert_int_eq(few->is_integer, 1);
    ck_assert_int_eq(col(t, "numsp")->type, GENESIS_COLUMN_CONTINUOUS);
    gen_table_destroy(t);

    const char *f = tu_path("tests/data/typing.csv");
    o = opts_default();
    o.discrete = "int_col,nosuch";
    read_bad(f, &o, GENESIS_ERR_INVALID_ARG, "nosuch", "typing.csv", NULL);
    o = opts_default();
    o.continuous = "Int_col";
    read_bad(f, &o, GENESIS_ERR_INVALID_ARG, "\"Int_col\"", NULL, NULL);
    o = opts_default();
    o.discrete = "few";
    o.continuous = "few";
    read_bad(f, &o, GENESIS_ERR_INVALID_ARG, "few", NULL, NULL);
    o = opts_default();
    o.continuous = "mixed"; /* "x" on line 10, column 7 */
    read_bad(f, &o, GENESIS_ERR_PARSE, "typing.csv:10:7:", "\"x\"", "mixed");
    o = opts_default();
    o.continuous = "text";
    read_bad(f, &o, GENESIS_ERR_PARSE, "typing.csv:2:6:", "\"t1\"", NULL);
    o = opts_default();
    o.max_categories = -1;
    read_bad(f, &o, GENESIS_ERR_INVALID_ARG, NULL, NULL, NULL);
}
END_TEST

START_TEST(test_inf_and_nan) {
    const char *f = tu_path("tests/data/inf_nan.csv");
    genesis_table *t = read_ok(f, NULL);
    const gen_column *v = col(t, "v");
    ck_assert_int_eq(v->type, GENESIS_COLUMN_CATEGORICAL); /* "inf" text */
    ck_assert_int_eq(v->nmissing, 1);                       /* "nan" */
    ck_assert_str_eq(v->na_text, "nan");
    ck_assert_str_eq(level_of(v, 2), "inf");
    ck_assert_int_eq(col(t, "w")->type, GENESIS_COLUMN_CONTINUOUS);
    gen_table_destroy(t);

    genesis_csv_options o = opts_default();
    o.continuous = "v";
    read_bad(f, &o, GENESIS_ERR_PARSE, "inf_nan.csv:4:2:", "\"inf\"", "infinite");

    /* 1e999 overflows: not a finite number */
    static const char huge[] = "a,b\n1,1e999\n2,2\n3,3\n4,4\n5,5\n6,6\n7,7\n8,8\n9,9\n10,10\n11,11\n";
    char *name = tmp_file(huge, sizeof huge - 1);
    t = read_ok(name, NULL);
    ck_assert_int_eq(col(t, "b")->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(col(t, "a")->type, GENESIS_COLUMN_CONTINUOUS);
    gen_table_destroy(t);
    o.continuous = "b";
    read_bad(name, &o, GENESIS_ERR_PARSE, ":2:2:", "1e999", NULL);
    tmp_done(name);
}
END_TEST

/* ---- bad inputs ------------------------------------------------------------------------- */

START_TEST(test_bad_inputs) {
    read_bad(tu_path("tests/data/bad/empty.csv"), NULL, GENESIS_ERR_DATA, "empty.csv",
             "file is empty", NULL);
    read_bad(tu_path("tests/data/bad/header_only.csv"), NULL, GENESIS_ERR_DATA,
             "header_only.csv:1", "no data rows", NULL);
    read_bad(tu_path("tests/data/bad/ragged.csv"), NULL, GENESIS_ERR_PARSE, "ragged.csv:7:",
             "line 7 has 4 fields, the header has 5", NULL);
    read_bad(tu_path("tests/data/bad/ragged_multiline.csv"), NULL, GENESIS_ERR_PARSE,
             "ragged_multiline.csv:6:", "line 6 has 2 fields", NULL);
    read_bad(tu_path("tests/data/bad/unterminated_quote.csv"), NULL, GENESIS_ERR_PARSE,
             "unterminated_quote.csv:3:2:", "unterminated quote", NULL);
    read_bad(tu_path("tests/data/bad/stray_quote.csv"), NULL, GENESIS_ERR_PARSE,
             "stray_quote.csv:3:2:", "quote", NULL);
    read_bad(tu_path("tests/data/bad/invalid_utf8.csv"), NULL, GENESIS_ERR_PARSE,
             "invalid_utf8.csv:4:2:", "UTF-8", "city");
    read_bad(tu_path("tests/data/bad/dup_header.csv"), NULL, GENESIS_ERR_DATA,
             "dup_header.csv:1:3:", "\"a\" appears twice", NULL);
    read_bad(tu_path("tests/data/bad/empty_name.csv"), NULL, GENESIS_ERR_DATA,
             "empty_name.csv:1:2:", "empty name", NULL);
    read_bad(tu_path("tests/data/bad/no_such_file.csv"), NULL, GENESIS_ERR_IO,
             "no_such_file.csv", strerror(ENOENT), NULL);
    read_bad(tu_path("tests/data"), NULL, GENESIS_ERR_IO, "tests/data", NULL, NULL);
    read_bad("", NULL, GENESIS_ERR_INVALID_ARG, NULL, NULL, NULL);
    genesis_csv_options o;
    memset(&o, 0, sizeof o); /* struct_size not set */
    read_bad(tu_path("tests/data/comma.csv"), &o, GENESIS_ERR_INVALID_ARG, "init", NULL, NULL);
    ck_assert_int_eq(gen_table_read_csv(g_ctx, "x", NULL, NULL), GENESIS_ERR_INVALID_ARG);
}
END_TEST

START_TEST(test_bad_utf8_forms) {
    static const struct {
        const char *bytes;
        const char *what;
    } cases[] = {
        {"\xC0\xAF", "overlong /"},
        {"\xE0\x80\xAF", "overlong 3-byte"},
        {"\xF0\x80\x80\xAF", "overlong 4-byte"},
        {"\xED\xA0\x80", "surrogate D800"},
        {"\xED\xBF\xBF", "surrogate DFFF"},
        {"\xF4\x90\x80\x80", "above U+10FFFF"},
        {"\xF5\x80\x80\x80", "F5 lead"},
        {"\x80", "lone continuation"},
        {"\xE2\x82", "truncated 3-byte"},
        {"ok\xC3", "truncated at end"},
        {"\xFF", "FF"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char data[128];
        int n = snprintf(data, sizeof data, "a,b\n1,fine\n2,x%sy\n", cases[k].bytes);
        char *name = tmp_file(data, (size_t)n);
        genesis_table *t = NULL;
        genesis_status st = gen_table_read_csv(g_ctx, name, NULL, &t);
        ck_assert_msg(st == GENESIS_ERR_PARSE, "%s: got %s", cases[k].what,
                      genesis_status_str(st));
        ck_assert_msg(strstr(genesis_errmsg(g_ctx), ":3:2:") != NULL, "%s: %s", cases[k].what,
                      genesis_errmsg(g_ctx));
        tmp_done(name);
    }
    /* valid multi-byte text: 2, 3 and 4 byte forms, U+FFFF and U+10FFFF */
    static const char good[] = "a,b\n1,Montr\xC3\xA9" "al\n2,\xE2\x82\xAC\n3,\xF0\x9F\x98\x80\n"
                               "4,\xEF\xBF\xBF\n5,\xF4\x8F\xBF\xBF\n";
    char *name = tmp_file(good, sizeof good - 1);
    genesis_table *t = read_ok(name, NULL);
    ck_assert_str_eq(t->cols[1].levels[0], "Montr\xC3\xA9" "al");
    ck_assert_int_eq(t->cols[1].nlevels, 5);
    gen_table_destroy(t);
    tmp_done(name);
    /* a NUL byte */
    static const char nul[] = "a,b\n1,x\n2,y\0z\n";
    name = tmp_file(nul, sizeof nul - 1);
    read_bad(name, NULL, GENESIS_ERR_PARSE, ":3:2:", "NUL", NULL);
    tmp_done(name);
    /* invalid UTF-8 in the header */
    static const char hdr[] = "a,\xE9t\xE9\n1,2\n";
    name = tmp_file(hdr, sizeof hdr - 1);
    read_bad(name, NULL, GENESIS_ERR_PARSE, ":1:2:", "header", NULL);
    tmp_done(name);
    /* a bad byte on the second line of a multi-line quoted field */
    static const char ml[] = "a,b\n1,\"first\nsec\xFFond\"\n";
    name = tmp_file(ml, sizeof ml - 1);
    read_bad(name, NULL, GENESIS_ERR_PARSE, ":3:2:", "UTF-8", NULL);
    tmp_done(name);
}
END_TEST

START_TEST(test_limits) {
    /* a field over 1 MiB */
    size_t big = 1024 * 1024 + 10;
    char *data = malloc(big + 64);
    ck_assert_ptr_nonnull(data);
    size_t n = (size_t)sprintf(data, "a,b\n1,");
    memset(data + n, 'x', big);
    n += big;
    memcpy(data + n, "\n", 1);
    n += 1;
    char *name = tmp_file(data, n);
    read_bad(name, NULL, GENESIS_ERR_DATA, ":2:2:", "1 MiB", NULL);
    tmp_done(name);
    /* the same inside an unterminated quote: stopped early, not at end of file */
    data[6] = '"';
    name = tmp_file(data, n);
    read_bad(name, NULL, GENESIS_ERR_DATA, ":2:2:", "1 MiB", NULL);
    tmp_done(name);
    free(data);

    /* 100000 columns are fine, 100001 are not */
    for (int extra = 0; extra < 2; extra++) {
        int ncols = 100000 + extra;
        size_t cap = (size_t)ncols * 16 + 64;
        char *d = malloc(cap);
        ck_assert_ptr_nonnull(d);
        size_t k = 0;
        for (int c = 0; c < ncols; c++) k += (size_t)sprintf(d + k, "%sc%d", c ? "," : "", c);
        d[k++] = '\n';
        for (int c = 0; c < ncols; c++) k += (size_t)sprintf(d + k, "%s%d", c ? "," : "", c % 7);
        d[k++] = '\n';
        char *nm = tmp_file(d, k);
        free(d);
        if (extra == 0) {
            genesis_table *t = read_ok(nm, NULL);
            ck_assert_int_eq(t->ncols, 100000);
            ck_assert_int_eq(t->nrows, 1);
            ck_assert_str_eq(t->cols[99999].name, "c99999");
            ck_assert_int_eq(gen_table_find_column(t, "c54321"), 54321);
            gen_table_destroy(t);
        } else {
            read_bad(nm, NULL, GENESIS_ERR_DATA, ":1", "100000", NULL);
        }
        tmp_done(nm);
    }
}
END_TEST

/* 100k distinct strings plus a numeric column: interning must stay linear. */
START_TEST(test_many_distinct_values) {
    const int n = 100000;
    size_t cap = (size_t)n * 40 + 64;
    char *d = malloc(cap);
    ck_assert_ptr_nonnull(d);
    size_t k = (size_t)sprintf(d, "id,key,x\n");
    for (int i = 0; i < n; i++)
        k += (size_t)sprintf(d + k, "%d,key_%07d,%d.%d\n", i, (i * 7919) % n, i % 1000, i % 10);
    char *name = tmp_file(d, k);
    free(d);
    /* by default both "id" (integers, id-like name) and "key" (numbered text of one shape)
     * are identifier columns (src/data/idcol.h); read as ordinary columns below */
    genesis_table *t = read_ok(name, NULL);
    ck_assert_int_eq(col(t, "id")->id.kind, GEN_ID_INTEGER);
    ck_assert_int_eq(col(t, "id")->id.start, n);
    ck_assert_int_eq(col(t, "key")->id.kind, GEN_ID_TEXT);
    ck_assert_str_eq(col(t, "key")->id.prefix, "key_");
    ck_assert_int_eq(col(t, "key")->id.width, 7);
    ck_assert_int_eq(col(t, "key")->id.start, n);
    gen_table_destroy(t);
    genesis_csv_options o = opts_default();
    o.not_id = "*";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    t = read_ok(name, &o);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ck_assert_int_eq(t->nrows, n);
    const gen_column *key = col(t, "key");
    ck_assert_int_eq(key->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(key->nlevels, n);
    ck_assert_str_eq(key->levels[1], "key_0007919");
    ck_assert_int_eq(key->cat[n - 1], n - 1);
    ck_assert_int_eq(col(t, "id")->type, GENESIS_COLUMN_CONTINUOUS);
    const gen_column *x = col(t, "x");
    ck_assert_int_eq(x->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_int_eq(x->decimals, 1);
    ck_assert_double_eq(x->num[12345], 345.5);
    gen_table_destroy(t);
    tmp_done(name);
    /* generous: well under a second normally, slower under sanitizers/valgrind */
    ck_assert_msg(secs < 20.0, "reading 100k distinct values took %.2f s", secs);
}
END_TEST

/* Line numbers stay physical across chunk boundaries and multi-line fields. */
START_TEST(test_line_numbers_far_down) {
    const int n = 30000; /* about 400 KiB: several 64 KiB chunks */
    size_t cap = (size_t)n * 40 + 64;
    char *d = malloc(cap);
    ck_assert_ptr_nonnull(d);
    size_t k = (size_t)sprintf(d, "a,b,c\n");
    for (int i = 0; i < n; i++) {
        if (i % 1000 == 0) k += (size_t)sprintf(d + k, "%d,\"x\ny\",3\n", i); /* 2 lines */
        else k += (size_t)sprintf(d + k, "%d,abcdefghijklmnopqrstuvwxyz,3\n", i);
    }
    /* 30 records took 2 lines each: physical lines = 1 + n + 30; the bad line is next */
    k += (size_t)sprintf(d + k, "1,2\n");
    char *name = tmp_file(d, k);
    free(d);
    char want[64];
    snprintf(want, sizeof want, ":%d:", 1 + n + 30 + 1);
    read_bad(name, NULL, GENESIS_ERR_PARSE, want, "has 2 fields", NULL);
    tmp_done(name);
}
END_TEST

/* Fields are interned in batches of rows, columns in parallel: a file of several batches reads
 * to the same table at any thread count, and a bad field deep in a later batch is still the
 * one named, at its line and column. */
START_TEST(test_batches_and_threads) {
    const int n = 50000; /* 5 columns: batches of 16384 rows, so four of them */
    size_t cap = (size_t)n * 64 + 64;
    char *d = malloc(cap);
    ck_assert_ptr_nonnull(d);
    size_t k = (size_t)sprintf(d, "a,b,c,d,e\n");
    for (int i = 0; i < n; i++)
        k += (size_t)sprintf(d + k, "%d.%d,L%d,%s,%d,t%d\n", (i * 37) % 9973, i % 10, i % 7,
                             i % 101 == 0 ? "" : "x", (i * 13) % 20, (i * 7919) % 5000);
    char *name = tmp_file(d, k);
    genesis_csv_options o = opts_default();
    o.not_id = "*";
    uint64_t fp[3];
    int threads[3] = {1, 3, 8};
    for (int r = 0; r < 3; r++) {
        ck_assert_int_eq(genesis_ctx_set_threads(g_ctx, threads[r]), GENESIS_OK);
        genesis_table *t = read_ok(name, &o);
        ck_assert_int_eq(t->nrows, n);
        ck_assert_int_eq(col(t, "a")->type, GENESIS_COLUMN_CONTINUOUS);
        ck_assert_double_eq_tol(col(t, "a")->num[n - 1], (double)(((n - 1) * 37) % 9973) + 0.9,
                                1e-9);
        ck_assert_int_eq(col(t, "b")->nlevels, 7);
        ck_assert_int_eq(col(t, "c")->nmissing, (n + 100) / 101);
        ck_assert_int_eq(col(t, "e")->nlevels, 5000);
        /* levels in order of first appearance: row 40000's level is the same string */
        const gen_column *e = col(t, "e");
        char want[16];
        snprintf(want, sizeof want, "t%d", (40000 * 7919) % 5000);
        ck_assert_str_eq(e->levels[e->cat[40000]], want);
        fp[r] = gen_table_fingerprint(t);
        gen_table_destroy(t);
    }
    ck_assert_uint_eq(fp[0], fp[1]);
    ck_assert_uint_eq(fp[0], fp[2]);
    tmp_done(name);
    /* invalid UTF-8 at row 45001 (line 45002), column 4, and a ragged row after it */
    size_t row = 0, at = 0;
    for (size_t i = 0; i < k; i++)
        if (d[i] == '\n' && ++row == 45001) { at = i + 1; break; }
    ck_assert_uint_gt(at, 0);
    char *f = d + at;
    for (int commas = 0; commas < 3; f++)
        if (*f == ',') commas++;
    f[0] = (char)0xC3; /* a lead byte without its continuation */
    k += (size_t)sprintf(d + k, "1,2\n");
    name = tmp_file(d, k);
    free(d);
    ck_assert_int_eq(genesis_ctx_set_threads(g_ctx, 4), GENESIS_OK);
    read_bad(name, &o, GENESIS_ERR_PARSE, ":45002:4:", "invalid UTF-8", "column \"d\"");
    tmp_done(name);
}
END_TEST

START_TEST(test_adult_sample) {
    genesis_table *t = read_fixture("data/adult_sample.csv", NULL);
    ck_assert_int_eq(t->nrows, 2000);
    ck_assert_int_eq(t->ncols, 15);
    ck_assert_int_eq(t->delimiter, ',');
    static const char *const cont[] = {"age", "fnlwgt", "education-num", "capital-gain",
                                       "capital-loss", "hours-per-week"};
    for (int k = 0; k < 6; k++) {
        const gen_column *c = col(t, cont[k]);
        ck_assert_msg(c->type == GENESIS_COLUMN_CONTINUOUS, "%s", cont[k]);
        ck_assert_int_eq(c->is_integer, 1);
        ck_assert_int_eq(c->decimals, 0);
        ck_assert_int_eq(c->nmissing, 0);
    }
    ck_assert_double_eq(col(t, "age")->num[0], 39.0);
    ck_assert_double_eq(col(t, "fnlwgt")->num[0], 77516.0);
    int ncat = 0;
    for (int c = 0; c < t->ncols; c++) ncat += t->cols[c].type == GENESIS_COLUMN_CATEGORICAL;
    ck_assert_int_eq(ncat, 9);
    const gen_column *w = col(t, "workclass");
    ck_assert_int_eq(w->type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_int_eq(w->nlevels, 7);
    ck_assert_int_eq(w->nmissing, 123);
    ck_assert_str_eq(w->na_text, " ?");
    ck_assert_str_eq(w->levels[0], " State-gov");
    ck_assert_int_eq(col(t, "occupation")->nmissing, 123);
    ck_assert_int_eq(col(t, "native-country")->nmissing, 39);
    ck_assert_int_eq(col(t, "native-country")->nlevels, 36);
    ck_assert_int_eq(col(t, "sex")->nlevels, 2);
    ck_assert_str_eq(col(t, "income")->levels[0], " <=50K");
    ck_assert_int_eq(col(t, "education")->nlevels, 16);
    ck_assert_int_eq(gen_table_find_column(t, "nope"), -1);
    ck_assert_int_eq(gen_table_find_column(NULL, "age"), -1);
    gen_table_destroy(t);
    gen_table_destroy(NULL);
}
END_TEST

static Suite *ingest_suite(void) {
    Suite *s = suite_create("ingest");
    TCase *tc = tcase_create("csv");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sniff_delimiters);
    tcase_add_test(tc, test_explicit_delimiter);
    tcase_add_test(tc, test_quoting);
    tcase_add_test(tc, test_crlf_no_final_newline);
    tcase_add_test(tc, test_bom_and_stdin);
    tcase_add_test(tc, test_no_header);
    tcase_add_test(tc, test_spaces_kept_verbatim);
    tcase_add_test(tc, test_all_missing_constant_one_row);
    tcase_add_test(tc, test_na_tokens_option);
    tcase_add_test(tc, test_typing_rules);
    tcase_add_test(tc, test_typical_decimals);
    tcase_add_test(tc, test_code_families);
    tcase_add_test(tc, test_decimal_comma);
    tcase_add_test(tc, test_max_categories_and_overrides);
    tcase_add_test(tc, test_inf_and_nan);
    tcase_add_test(tc, test_bad_inputs);
    tcase_add_test(tc, test_bad_utf8_forms);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_many_distinct_values);
    tcase_add_test(tc, test_line_numbers_far_down);
    tcase_add_test(tc, test_batches_and_threads);
    tcase_add_test(tc, test_adult_sample);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(ingest_suite()); }
