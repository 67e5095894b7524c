/*
 * test_csv_write.c — the CSV writer (src/data/csv_write.c): RFC 4180 quoting of single fields,
 * the temporary-file-then-rename protocol (nothing at the final name before commit, nothing
 * at all after an abort), I/O errors naming the path, stdout, a writer -> reader round
 * trip, and number formatting (bit-exact shortest round trips, fixed decimals trimmed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table.h"
#include "test_util.h"

static genesis_ctx *g_ctx;
static char g_dir[64];

static void setup(void) {
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
    strcpy(g_dir, "/tmp/gen_test_csvw_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void teardown(void) {
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(g_dir);
    genesis_ctx_free(g_ctx);
    g_ctx = NULL;
}

static const char *in_dir(const char *name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    return p;
}

/* Number of entries in the test folder (excluding . and ..); the first name in *first. */
static int dir_entries(char *first, size_t cap) {
    DIR *d = opendir(g_dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    if (first && cap) first[0] = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == 0 && first) snprintf(first, cap, "%s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void check_field(const char *in, char delim, const char *want) {
    char buf[256];
    size_t len = strlen(in);
    size_t n = gen_csv_format_field(buf, sizeof buf, in, len, delim);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_uint_eq(gen_csv_field_size(in, len, delim), n);
    buf[n] = 0;
    ck_assert_str_eq(buf, want);
    if (n > 0) ck_assert_uint_eq(gen_csv_format_field(buf, n - 1, in, len, delim), 0);
}

/* ---- quoting ---------------------------------------------------------------------------- */

START_TEST(test_format_field_quoting) {
    check_field("plain", ',', "plain");
    check_field("a,b", ',', "\"a,b\"");
    check_field("a,b", ';', "a,b");
    check_field("a;b", ';', "\"a;b\"");
    check_field("a\tb", '\t', "\"a\tb\"");
    check_field("say \"hi\"", ',', "\"say \"\"hi\"\"\"");
    check_field("\"", ',', "\"\"\"\"");
    check_field("two\nlines", ',', "\"two\nlines\"");
    check_field("cr\rhere", ',', "\"cr\rhere\"");
    check_field(" State-gov", ',', "\" State-gov\"");
    check_field("trailing ", ',', "\"trailing \"");
    check_field("in side", ',', "in side");
    /* formula-looking and negative values are written as they are */
    check_field("=1+2", ',', "=1+2");
    check_field("+33", ',', "+33");
    check_field("-5.25", ',', "-5.25");
    check_field("@home", ',', "@home");
    /* empty: nothing to write, 0 bytes is success */
    char buf[4];
    ck_assert_uint_eq(gen_csv_format_field(buf, sizeof buf, "", 0, ','), 0);
    ck_assert_uint_eq(gen_csv_field_size("", 0, ','), 0);
    /* len counts, not NUL: only the first 3 bytes */
    char b2[16];
    ck_assert_uint_eq(gen_csv_format_field(b2, sizeof b2, "abc,def", 3, ','), 3);
}
END_TEST

/* ---- the writer ------------------------------------------------------------------------- */

START_TEST(test_writer_commit_renames) {
    const char *path = strdup(in_dir("out.csv"));
    gen_csv_writer *w = NULL;
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, path, ',', &w), GENESIS_OK);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(gen_csv_writer_field(w, "a", 1, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "b c", 3, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "x,\"y\"", 5, 1), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_raw(w, "1,2,3\n", 6), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, " sp", 3, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "", 0, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "two\nlines", 9, 1), GENESIS_OK);
    /* before commit: the final name does not exist, one hidden temporary file does */
    struct stat sb;
    ck_assert_int_ne(stat(path, &sb), 0);
    char first[256];
    ck_assert_int_eq(dir_entries(first, sizeof first), 1);
    ck_assert_msg(strncmp(first, ".out.csv.tmp.", 13) == 0, "temporary name %s", first);
    ck_assert_uint_eq(strlen(first), 13 + 6);
    ck_assert_int_eq(gen_csv_writer_close(w, 1), GENESIS_OK);
    /* after: exactly the final file */
    ck_assert_int_eq(dir_entries(first, sizeof first), 1);
    ck_assert_str_eq(first, "out.csv");
    size_t len;
    char *got = tu_read_file(path, &len);
    ck_assert_str_eq(got, "a,b c,\"x,\"\"y\"\"\"\n1,2,3\n\" sp\",,\"two\nlines\"\n");
    free(got);
    /* the file gets an ordinary mode, not mkstemp's 0600 */
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_ne(sb.st_mode & 0044, 0);
    /* writing again replaces it, keeping its mode */
    ck_assert_int_eq(chmod(path, 0640), 0);
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, path, ';', &w), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "p;q", 3, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "r,s", 3, 1), GENESIS_OK);
    got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "a,b c,\"x,\"\"y\"\"\"\n1,2,3\n\" sp\",,\"two\nlines\"\n"); /* old */
    free(got);
    ck_assert_int_eq(gen_csv_writer_close(w, 1), GENESIS_OK);
    got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "\"p;q\";r,s\n");
    free(got);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 07777, 0640);
    free((char *)path);
}
END_TEST

START_TEST(test_writer_abort_leaves_nothing) {
    const char *path = in_dir("aborted.csv");
    gen_csv_writer *w = NULL;
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, path, ',', &w), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "x", 1, 1), GENESIS_OK);
    ck_assert_int_eq(dir_entries(NULL, 0), 1);
    ck_assert_int_eq(gen_csv_writer_close(w, 0), GENESIS_OK);
    ck_assert_int_eq(dir_entries(NULL, 0), 0);
    ck_assert_int_eq(gen_csv_writer_close(NULL, 1), GENESIS_OK);
}
END_TEST

START_TEST(test_writer_large_output) {
    /* more than the 1 MiB buffer, and a single field larger than it */
    const char *path = in_dir("big.csv");
    gen_csv_writer *w = NULL;
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, path, ',', &w), GENESIS_OK);
    size_t bigl = 3 * 1024 * 1024 / 2;
    char *big = malloc(bigl);
    ck_assert_ptr_nonnull(big);
    memset(big, 'q', bigl);
    big[10] = '"'; /* forces quoting: one more byte for the doubled quote, two around */
    char rec[64];
    size_t expect = 0;
    for (int i = 0; i < 100000; i++) {
        int n = snprintf(rec, sizeof rec, "%d", i);
        ck_assert_int_eq(gen_csv_writer_field(w, rec, (size_t)n, 0), GENESIS_OK);
        ck_assert_int_eq(gen_csv_writer_field(w, "abcdefgh", 8, 1), GENESIS_OK);
        expect += (size_t)n + 1 + 8 + 1;
    }
    ck_assert_int_eq(gen_csv_writer_field(w, big, bigl, 1), GENESIS_OK);
    expect += bigl + 3 + 1;
    ck_assert_int_eq(gen_csv_writer_close(w, 1), GENESIS_OK);
    free(big);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq((size_t)sb.st_size, expect);
}
END_TEST

START_TEST(test_writer_errors) {
    gen_csv_writer *w = (gen_csv_writer *)0x1;
    const char *missing = in_dir("no/such/dir/out.csv");
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, missing, ',', &w), GENESIS_ERR_IO);
    ck_assert_ptr_null(w);
    const char *msg = genesis_errmsg(g_ctx);
    ck_assert_msg(strstr(msg, missing) != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, strerror(ENOENT)) != NULL, "%s", msg);
    /* a folder as the output */
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, g_dir, ',', &w), GENESIS_ERR_IO);
    ck_assert_msg(strstr(genesis_errmsg(g_ctx), g_dir) != NULL, "%s", genesis_errmsg(g_ctx));
    /* bad arguments */
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, "", ',', &w), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, in_dir("x.csv"), '"', &w),
                     GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, in_dir("x.csv"), ',', NULL),
                     GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, in_dir("sub/"), ',', &w),
                     GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(dir_entries(NULL, 0), 0);
    /* a read-only folder (meaningless as root, who may write anywhere) */
    if (geteuid() != 0) {
        char ro[600];
        snprintf(ro, sizeof ro, "%s/ro", g_dir);
        ck_assert_int_eq(mkdir(ro, 0555), 0);
        char p[700];
        snprintf(p, sizeof p, "%s/out.csv", ro);
        ck_assert_int_eq(gen_csv_writer_open(g_ctx, p, ',', &w), GENESIS_ERR_IO);
        ck_assert_msg(strstr(genesis_errmsg(g_ctx), strerror(EACCES)) != NULL, "%s",
                      genesis_errmsg(g_ctx));
        rmdir(ro);
    }
    /* ENOSPC: we cannot mkstemp in /dev, so point stdout at /dev/full and write to "-";
     * the buffered data fails at the latest on commit. */
    int full = open("/dev/full", O_WRONLY);
    if (full >= 0) {
        fflush(stdout);
        int saved = dup(STDOUT_FILENO);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_ge(dup2(full, STDOUT_FILENO), 0);
        close(full);
        ck_assert_int_eq(gen_csv_writer_open(g_ctx, "-", ',', &w), GENESIS_OK);
        ck_assert_int_eq(gen_csv_writer_field(w, "x", 1, 1), GENESIS_OK);
        genesis_status st = gen_csv_writer_close(w, 1);
        clearerr(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
        ck_assert_int_eq(st, GENESIS_ERR_IO);
        ck_assert_msg(strstr(genesis_errmsg(g_ctx), strerror(ENOSPC)) != NULL, "%s",
                      genesis_errmsg(g_ctx));
    }
}
END_TEST

START_TEST(test_writer_stdout) {
    /* point fd 1 at a file for the duration (restored, so CK_FORK=no works too) */
    char path[600];
    snprintf(path, sizeof path, "%s/stdout.txt", g_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
    close(fd);
    gen_csv_writer *w = NULL;
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, "-", '\t', &w), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "a b", 3, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "c\td", 3, 1), GENESIS_OK);
    genesis_status st = gen_csv_writer_close(w, 1);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_int_eq(st, GENESIS_OK);
    char *got = tu_read_file(path, NULL);
    ck_assert_str_eq(got, "a b\t\"c\td\"\n");
    free(got);
}
END_TEST

/* Whatever the writer quotes, the reader gets back byte for byte. */
START_TEST(test_writer_reader_round_trip) {
    static const char *const vals[] = {" State-gov", "a,b", "say \"hi\"", "two\nlines",
                                       "trail ",     "=SUM(A1)", "-3",       "crlf\r\nx",
                                       "plain",      "\"",       "é ü",      "tab\tin"};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    const char *path = in_dir("rt.csv");
    gen_csv_writer *w = NULL;
    ck_assert_int_eq(gen_csv_writer_open(g_ctx, path, ',', &w), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "v", 1, 0), GENESIS_OK);
    ck_assert_int_eq(gen_csv_writer_field(w, "n", 1, 1), GENESIS_OK);
    for (int i = 0; i < nv; i++) {
        char num[32];
        ck_assert_int_eq(gen_csv_writer_field(w, vals[i], strlen(vals[i]), 0), GENESIS_OK);
        int n = gen_format_number(num, sizeof num, 0.1 * (i + 1) - 0.35, -1);
        ck_assert_int_eq(gen_csv_writer_field(w, num, (size_t)n, 1), GENESIS_OK);
    }
    ck_assert_int_eq(gen_csv_writer_close(w, 1), GENESIS_OK);
    genesis_table *t = NULL;
    ck_assert_msg(gen_table_read_csv(g_ctx, path, NULL, &t) == GENESIS_OK, "%s",
                  genesis_errmsg(g_ctx));
    ck_assert_int_eq(t->nrows, nv);
    const gen_column *v = &t->cols[0];
    ck_assert_int_eq(v->nlevels, nv);
    for (int i = 0; i < nv; i++) ck_assert_str_eq(v->levels[v->cat[i]], vals[i]);
    const gen_column *n = &t->cols[1];
    ck_assert_int_eq(n->type, GENESIS_COLUMN_CONTINUOUS);
    for (int i = 0; i < nv; i++) ck_assert_double_eq(n->num[i], 0.1 * (i + 1) - 0.35);
    gen_table_destroy(t);
}
END_TEST

/* ---- numbers ---------------------------------------------------------------------------- */

static const char *fmt(double v, int decimals) {
    static char buf[64];
    int n = gen_format_number(buf, sizeof buf, v, decimals);
    ck_assert_int_eq(n, (int)strlen(buf));
    return buf;
}

START_TEST(test_format_number_fixed) {
    ck_assert_str_eq(fmt(1.5, 2), "1.5");
    ck_assert_str_eq(fmt(2.0, 2), "2");
    ck_assert_str_eq(fmt(2.25, 2), "2.25");
    ck_assert_str_eq(fmt(2.255001, 2), "2.26");
    ck_assert_str_eq(fmt(-0.001, 2), "0"); /* no "-0" */
    ck_assert_str_eq(fmt(-0.0, 0), "0");
    ck_assert_str_eq(fmt(-1.5, 1), "-1.5");
    ck_assert_str_eq(fmt(39.0, 0), "39");
    ck_assert_str_eq(fmt(39.6, 0), "40");
    ck_assert_str_eq(fmt(100.0, 3), "100"); /* trailing zeros go, integer zeros stay */
    ck_assert_str_eq(fmt(1234567.125, 3), "1234567.125");
    ck_assert_str_eq(fmt(0.1, 17), "0.10000000000000001");
    ck_assert_str_eq(fmt(NAN, 2), "");
    ck_assert_str_eq(fmt(NAN, -1), "");
    /* a huge value in a small buffer falls back to the short form */
    char small[24];
    int n = gen_format_number(small, sizeof small, 1e300, 2);
    ck_assert_int_gt(n, 0);
    ck_assert_double_eq(strtod(small, NULL), 1e300);
    /* no room at all */
    char tiny[2] = {'x', 'x'};
    ck_assert_int_eq(gen_format_number(tiny, sizeof tiny, 12.5, -1), 0);
    ck_assert_str_eq(tiny, "");
}
END_TEST

START_TEST(test_format_number_shortest) {
    ck_assert_str_eq(fmt(0.1, -1), "0.1");
    ck_assert_str_eq(fmt(1.0, -1), "1");
    ck_assert_str_eq(fmt(-2.5, -1), "-2.5");
    ck_assert_str_eq(fmt(1e-5, -1), "1e-05");
    ck_assert_str_eq(fmt(123456.0, -1), "123456");
    ck_assert_str_eq(fmt(0.1 + 0.2, -1), "0.30000000000000004");
    ck_assert_str_eq(fmt(1.0 / 3.0, -1), "0.3333333333333333");
    ck_assert_str_eq(fmt(5e-324, -1), "5e-324"); /* the smallest subnormal */
    ck_assert_str_eq(fmt(1.7976931348623157e308, -1), "1.7976931348623157e+308");
    ck_assert_str_eq(fmt(9007199254740993.0, -1), "9007199254740992");
    /* random bit patterns (all exponents) and random values in data-like ranges read back
     * bit for bit, and no shorter precision would */
    gen_rng r;
    gen_rng_init(&r, 2024, 7);
    char buf[64], shorter[400];
    for (int i = 0; i < 200000; i++) {
        double v;
        if (i % 2 == 0) {
            uint64_t bits = gen_rng_u64(&r);
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v)) continue;
        } else {
            v = (gen_rng_uniform(&r) - 0.5) * pow(10.0, (double)(i % 13) - 4.0);
        }
        int n = gen_format_number(buf, sizeof buf, v, -1);
        ck_assert_int_gt(n, 0);
        double back = strtod(buf, NULL);
        ck_assert_msg(memcmp(&back, &v, sizeof v) == 0, "%.17g printed as %s", v, buf);
        /* shortest: count significant digits p in buf and check p-1 fails */
        int p = 0, started = 0;
        for (const char *c = buf; *c && *c != 'e'; c++) {
            if (*c >= '1' && *c <= '9') started = 1;
            if (started && *c >= '0' && *c <= '9') p++;
        }
        if (p > 1) {
            snprintf(shorter, sizeof shorter, "%.*g", p - 1, v);
            ck_assert_msg(strtod(shorter, NULL) != v, "%s is not the shortest for %.17g (%s)",
                          buf, v, shorter);
        }
    }
}
END_TEST

static Suite *csv_write_suite(void) {
    Suite *s = suite_create("csv_write");
    TCase *tc = tcase_create("writer");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_format_field_quoting);
    tcase_add_test(tc, test_writer_commit_renames);
    tcase_add_test(tc, test_writer_abort_leaves_nothing);
    tcase_add_test(tc, test_writer_large_output);
    tcase_add_test(tc, test_writer_errors);
    tcase_add_test(tc, test_writer_stdout);
    tcase_add_test(tc, test_writer_reader_round_trip);
    tcase_add_test(tc, test_format_number_fixed);
    tcase_add_test(tc, test_format_number_shortest);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(csv_write_suite()); }
