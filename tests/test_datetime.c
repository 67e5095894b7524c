/*
 * test_datetime.c — date columns (src/data/datetime.c, their typing in src/data/ingest.c, their text in
 * src/transform/transform.c, their format in model files): epoch values checked against Python's
 * datetime (values in the comments), every day of years 0001-9999 checked against the C
 * library's gmtime_r, text round trips in each ISO shape and in user formats, recognition
 * rules (one shape per column, numbers never dates, overrides), bad dates with file:line:column,
 * and a model fitted on dates: sampled values in the input's own format, the same text after
 * save and load, and a plain table's model (role records of 0) loading back.
 */
#include <time.h>
#include <unistd.h>

#include "datetime.h"
#include "table.h"
#include "test_util.h"

static char g_dir[256];
static genesis_ctx *g_ctx;

static void setup(void) {
    snprintf(g_dir, sizeof g_dir, "%s/genesis-dt-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
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

static double parse_ok(const char *pat, const char *s) {
    double sec = 0;
    int fd, zs, zm;
    const char *why = "";
    int at = gen_dt_parse(pat, s, strlen(s), &sec, &fd, &zs, &zm, &why);
    ck_assert_msg(at == 0, "\"%s\" with \"%s\": stops at %d: %s", s, pat, at, why);
    return sec;
}

/* s read with its detected (or given) pattern and written back gives s again. */
static void round_trip(const char *pat, const char *s) {
    gen_dt_format f;
    memset(&f, 0, sizeof f);
    if (pat) {
        snprintf(f.pattern, sizeof f.pattern, "%s", pat);
    } else {
        ck_assert_msg(gen_dt_detect(s, strlen(s), f.pattern), "\"%s\" not recognised", s);
    }
    double sec;
    const char *why;
    ck_assert_int_eq(gen_dt_parse(f.pattern, s, strlen(s), &sec, &f.frac, &f.zone_style,
                                  &f.zone_min, &why), 0);
    char buf[128];
    ck_assert_int_gt(gen_dt_format_value(&f, sec, buf, sizeof buf), 0);
    ck_assert_msg(!strcmp(buf, s), "\"%s\" -> %.6f -> \"%s\" (pattern %s)", s, sec, buf, f.pattern);
}

START_TEST(test_epoch_values) {
    /* Python: datetime(2024,2,29,12,34,56,789000,tzinfo=+02:00).timestamp() = 1709202896.789;
     * datetime(2000,3,1,tzinfo=utc) = 951868800; 1969-12-31T23:59:59Z = -1;
     * 0001-01-01 = -62135596800; 9999-12-31T23:59:59 = 253402300799 */
    ck_assert_double_eq_tol(parse_ok("%Y-%m-%dT%H:%M:%S.%f%z", "2024-02-29T12:34:56.789+02:00"),
                            1709202896.789, 1e-6);
    ck_assert_double_eq(parse_ok("%Y-%m-%d", "2000-03-01"), 951868800.0);
    ck_assert_double_eq(parse_ok("%Y-%m-%d %H:%M:%S", "1969-12-31 23:59:59"), -1.0);
    ck_assert_double_eq(parse_ok("%Y-%m-%d", "0001-01-01"), -62135596800.0);
    ck_assert_double_eq(parse_ok("%Y-%m-%dT%H:%M:%SZ", "9999-12-31T23:59:59Z"), 253402300799.0);
    ck_assert_double_eq(parse_ok("%Y-%m-%dT%H:%M:%S.%f", "2000-03-01T00:00:00"), 951868800.0);
    ck_assert_double_eq(parse_ok("%d/%m/%Y", "1/3/2021"), 1614556800.0);
    ck_assert_double_eq(parse_ok("%Y%m%d", "20210314"), 1615680000.0);
}
END_TEST

START_TEST(test_every_day_against_gmtime) {
    /* days from 0001-01-01 to 9999-12-31: our civil date equals gmtime_r's, and reads back */
    gen_dt_format f;
    memset(&f, 0, sizeof f);
    strcpy(f.pattern, "%Y-%m-%d");
    for (int64_t d = -719162; d <= 2932896; d++) {
        time_t t = (time_t)(d * 86400);
        struct tm tm;
        /* plain tests in the loop: each passing ck_assert writes to Check's pipe (3.6M days) */
        if (!gmtime_r(&t, &tm)) ck_abort_msg("day %lld: gmtime_r failed", (long long)d);
        char want[32], got[32];
        snprintf(want, sizeof want, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
        int len = gen_dt_format_value(&f, (double)d * 86400, got, sizeof got);
        if (len != 10 || strcmp(want, got))
            ck_abort_msg("day %lld: %s (%d chars), gmtime %s", (long long)d, got, len, want);
        if (d % 97 == 0) ck_assert_double_eq(parse_ok("%Y-%m-%d", got), (double)d * 86400);
    }
}
END_TEST

START_TEST(test_text_round_trips) {
    const char *iso[] = {"2024-01-05", "2024-01", "1999-12-31T23:59", "2024-02-29 00:00:01",
                         "2024-02-29T12:34:56.789+02:00", "2024-02-29T12:34:56.5Z",
                         "2024-02-29T12:34:56.123456-05:30", "2024-06-30T10:11:12+0100",
                         "1900-02-28T00:00:00Z"};
    for (size_t k = 0; k < sizeof iso / sizeof *iso; k++) round_trip(NULL, iso[k]);
    round_trip("%d/%m/%Y", "31/12/2023");
    round_trip("%Y%m%d%H%M", "202312312359");
    round_trip("%m/%d/%Y %H:%M", "02/29/2024 13:05");
    round_trip("%Y-%m-%d%%", "2024-01-01%");
    /* rounding to the finest field: 2024-01-05T13:00 is nearer the 6th; a month keeps its month */
    gen_dt_format f;
    memset(&f, 0, sizeof f);
    char buf[64];
    strcpy(f.pattern, "%Y-%m-%d");
    gen_dt_format_value(&f, parse_ok("%Y-%m-%dT%H:%M", "2024-01-05T13:00"), buf, sizeof buf);
    ck_assert_str_eq(buf, "2024-01-06");
    strcpy(f.pattern, "%Y-%m");
    gen_dt_format_value(&f, parse_ok("%Y-%m-%d", "2024-01-31"), buf, sizeof buf);
    ck_assert_str_eq(buf, "2024-01");
    /* not ISO, or not a date */
    const char *no[] = {"2024", "2024-1-5", "2024/01/05", "2024-13", "2024-02-30", "2024-01-05T",
                        "2024-01-05T25:00", "2024-01-05T10:00:00.", "2024-01-05X", "20240105"};
    for (size_t k = 0; k < sizeof no / sizeof *no; k++) {
        char pat[GEN_DT_PATTERN];
        ck_assert_msg(!gen_dt_detect(no[k], strlen(no[k]), pat), "\"%s\" recognised", no[k]);
    }
    char why[160];
    ck_assert_int_ne(gen_dt_pattern_check("%d/%m", why, sizeof why), 0);   /* no year */
    ck_assert_int_ne(gen_dt_pattern_check("%Y-%q", why, sizeof why), 0);   /* unknown */
    ck_assert_int_ne(gen_dt_pattern_check("%Y %H", why, sizeof why), 0);   /* gap */
    ck_assert_int_eq(gen_dt_pattern_check("%d.%m.%Y %H:%M", why, sizeof why), 0);
}
END_TEST

static genesis_table *rd(const char *path, const char *dt, const char *not_dt, const char *disc) {
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    o.datetime = dt;
    o.not_datetime = not_dt;
    o.discrete = disc;
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(g_ctx, path, &o, &t);
    ck_assert_msg(st == GENESIS_OK, "%s: %s", path, genesis_errmsg(g_ctx));
    return t;
}

static void rd_bad(const char *path, const char *dt, genesis_status want, const char *n1,
                   const char *n2) {
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    o.datetime = dt;
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(g_ctx, path, &o, &t);
    const char *msg = genesis_errmsg(g_ctx);
    ck_assert_msg(st == want, "%s: got %d (%s)", path, st, msg);
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(msg, n1) != NULL, "\"%s\" lacks \"%s\"", msg, n1);
    if (n2) ck_assert_msg(strstr(msg, n2) != NULL, "\"%s\" lacks \"%s\"", msg, n2);
}

#define DATES "d,m,ts,slash,mixed,num\n" \
              "2024-01-05,2024-01,2024-01-05T10:11:12Z,05/01/2024,2024-01-05,20240105\n" \
              "2023-12-31,2023-12,2023-12-31T23:59:59.25Z,31/12/2023,2024-01-05 10:00,20231231\n" \
              "NA,NA,NA,NA,NA,NA\n" \
              "2020-02-29,2020-02,2020-02-29T00:00:00Z,29/02/2020,2020-02-29,20200229\n"

START_TEST(test_reader_recognition) {
    const char *p = put("d.csv", DATES);
    genesis_table *t = rd(p, NULL, NULL, NULL);
    ck_assert_str_eq(genesis_table_column_datetime(t, 0), "%Y-%m-%d");
    ck_assert_str_eq(genesis_table_column_datetime(t, 1), "%Y-%m");
    ck_assert_str_eq(genesis_table_column_datetime(t, 2), "%Y-%m-%dT%H:%M:%S.%f%z");
    ck_assert_ptr_null(genesis_table_column_datetime(t, 3)); /* not ISO */
    ck_assert_ptr_null(genesis_table_column_datetime(t, 4)); /* two shapes */
    ck_assert_ptr_null(genesis_table_column_datetime(t, 5)); /* numbers are never dates */
    const gen_column *d = &t->cols[0], *ts = &t->cols[2];
    ck_assert_int_eq(d->type, GENESIS_COLUMN_CONTINUOUS);
    ck_assert_double_eq(d->num[0], 1704412800.0);
    ck_assert(isnan(d->num[2]));
    ck_assert_int_eq(d->nmissing, 1);
    ck_assert_int_eq(ts->dt.frac, 2);
    ck_assert_int_eq(ts->dt.zone_style, GEN_DT_ZONE_Z);
    ck_assert_double_eq_tol(ts->num[1], 1704067199.25, 1e-6);
    genesis_table_free(t);
    /* overrides: a format for the non-ISO and digit columns, a column kept as text, "*" */
    t = rd(p, "slash:%d/%m/%Y, num:%Y%m%d", "d", NULL);
    ck_assert_ptr_null(genesis_table_column_datetime(t, 0));
    ck_assert_int_eq(t->cols[0].type, GENESIS_COLUMN_CATEGORICAL);
    ck_assert_str_eq(genesis_table_column_datetime(t, 3), "%d/%m/%Y");
    ck_assert_str_eq(genesis_table_column_datetime(t, 5), "%Y%m%d");
    ck_assert_double_eq(t->cols[3].num[0], t->cols[5].num[0]);
    genesis_table_free(t);
    t = rd(p, "m", "*", NULL);
    ck_assert_ptr_null(genesis_table_column_datetime(t, 0));
    ck_assert_str_eq(genesis_table_column_datetime(t, 1), "%Y-%m");
    genesis_table_free(t);
    t = rd(p, NULL, NULL, "d"); /* discrete wins over recognition */
    ck_assert_ptr_null(genesis_table_column_datetime(t, 0));
    genesis_table_free(t);
}
END_TEST

START_TEST(test_reader_bad_dates) {
    const char *p = put("bad.csv", "id,d\n1,2024-01-05\n2,2024-02-30\n3,2024-03-01\n");
    /* recognised from the first value, but a later one is no date: the column stays text */
    genesis_table *t = rd(p, NULL, NULL, NULL);
    ck_assert_ptr_null(genesis_table_column_datetime(t, 1));
    genesis_table_free(t);
    /* listed: an error naming file:line:column, the value, and what to do */
    char where[600];
    snprintf(where, sizeof where, "%s:3:2:", p);
    rd_bad(p, "d", GENESIS_ERR_PARSE, where, "\"2024-02-30\"");
    rd_bad(p, "d:%d/%m/%Y", GENESIS_ERR_PARSE, "2:2:", "`datetime`");
    rd_bad(p, "id", GENESIS_ERR_PARSE, "not an ISO 8601 date", "FORMAT");
    rd_bad(p, "nosuch", GENESIS_ERR_INVALID_ARG, "nosuch", "use one of");
    rd_bad(p, "d:%d/%m", GENESIS_ERR_INVALID_ARG, "needs a year", NULL);
}
END_TEST

/* Every date value of column c of a CSV file fits `pat`, ends with `suffix` and has
 * want_len bytes (0: any); returns the rows checked. */
static int check_column(const char *path, int c, const char *pat, const char *suffix,
                        size_t want_len) {
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int n = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        for (int k = 0; k < c; k++) s = strchr(s, ',') + 1;
        size_t len = strcspn(s, ",\n");
        s[len] = 0;
        if (!strcmp(s, "NA")) continue;
        double sec;
        int fd, zs, zm;
        const char *why;
        ck_assert_msg(gen_dt_parse(pat, s, len, &sec, &fd, &zs, &zm, &why) == 0,
                      "\"%s\" does not fit %s", s, pat);
        if (suffix) ck_assert_msg(len > strlen(suffix) && !strcmp(s + len - strlen(suffix), suffix),
                                  "\"%s\" lost its zone %s", s, suffix);
        if (want_len) ck_assert_msg(len == want_len, "\"%s\": not %zu bytes", s, want_len);
        n++;
    }
    fclose(f);
    return n;
}

static int file_version(const char *path) {
    size_t len;
    char *b = tu_read_file(path, &len);
    int v = (unsigned char)b[8];
    free(b);
    return v;
}

START_TEST(test_model_round_trip) {
    char text[16384] = "day,stamp,x,c\n";
    for (int i = 0; i < 120; i++) {
        char l[160];
        snprintf(l, sizeof l, "2023-%02d-%02d,2023-%02d-%02d %02d:%02d:%02d.%03d+01:00,%d,%c\n",
                 i % 12 + 1, i % 28 + 1, (i * 7) % 12 + 1, (i * 3) % 28 + 1, i % 24, (i * 13) % 60,
                 (i * 29) % 60, (i * 37) % 1000, i % 17, "ab"[i % 2]);
        strcat(text, l);
        if (i == 50) strcat(text, "NA,NA,3,a\n");
    }
    const char *in = put("in.csv", text);
    genesis_table *t = rd(in, NULL, NULL, NULL);
    ck_assert_str_eq(genesis_table_column_datetime(t, 1), "%Y-%m-%d %H:%M:%S.%f%z");
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 2);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 40);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    char out[300], out2[300], model[300];
    snprintf(out, sizeof out, "%s/out.csv", g_dir);
    snprintf(out2, sizeof out2, "%s/out2.csv", g_dir);
    snprintf(model, sizeof model, "%s/m.gen", g_dir);
    ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
    ck_assert_int_eq(file_version(model), 3); /* the role records: version 3 */
    genesis_ctx_set_seed(g_ctx, 5);
    ck_assert_int_eq(genesis_model_sample_csv(m, 300, out), GENESIS_OK);
    ck_assert_int_ge(check_column(out, 0, "%Y-%m-%d", NULL, 10), 150);
    /* the zone and three fraction digits, as read: "2023-01-01 00:00:00.000+01:00" */
    ck_assert_int_ge(check_column(out, 1, "%Y-%m-%d %H:%M:%S.%f%z", "+01:00", 29), 150);
    size_t len;
    char *a = tu_read_file(out, &len);
    /* loaded from the file: the same text */
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(g_ctx, model, &l), GENESIS_OK);
    genesis_ctx_set_seed(g_ctx, 5);
    ck_assert_int_eq(genesis_model_sample_csv(l, 300, out2), GENESIS_OK);
    size_t len2;
    char *b = tu_read_file(out2, &len2);
    ck_assert_msg(len == len2 && !memcmp(a, b, (size_t)len), "loaded model writes other text");
    free(a);
    free(b);
    genesis_model_free(l);
    genesis_model_free(m);
    genesis_table_free(t);
    /* the same table with dates kept as text: a plain model (every role record 0) */
    t = rd(in, NULL, "*", NULL);
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 40);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
    ck_assert_int_eq(file_version(model), 3);
    genesis_model_free(m);
    ck_assert_int_eq(genesis_model_load(g_ctx, model, &m), GENESIS_OK);
    genesis_model_free(m);
    genesis_table_free(t);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("datetime");
    TCase *u = tcase_create("values");
    tcase_add_checked_fixture(u, setup, teardown);
    tcase_set_timeout(u, 60);
    tcase_add_test(u, test_epoch_values);
    tcase_add_test(u, test_every_day_against_gmtime);
    tcase_add_test(u, test_text_round_trips);
    suite_add_tcase(s, u);
    TCase *r = tcase_create("reader");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_add_test(r, test_reader_recognition);
    tcase_add_test(r, test_reader_bad_dates);
    suite_add_tcase(s, r);
    TCase *m = tcase_create("model");
    tcase_add_checked_fixture(m, setup, teardown);
    tcase_set_timeout(m, 120);
    tcase_add_test(m, test_model_round_trip);
    suite_add_tcase(s, m);
    return s;
}

int main(void) { return tu_run(suite()); }
