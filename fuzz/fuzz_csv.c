/*
 * fuzz_csv.c — libFuzzer harness of the CSV reader and its typing (src/data/ingest.c), the path
 * `genesis fit` reads its input through (genesis_table_read_csv). An input is two control
 * bytes, then the file. The first byte chooses reader options, the second which columns the
 * options that name columns name (taken from the file's first line, fz_header_name). Every
 * column of a table that reads is then queried (name, type, date format, identifier flag).
 * docs/fuzzing.md.
 */
#include "fuzz_common.h"

/* Date formats a named date column gets (docs/api.md: %Y %m %d %H %M %S %f %z). */
static const char *const fz_formats[4] = {"", ":%Y-%m-%d %H:%M:%S%z", ":%d/%m/%Y %H:%M:%S.%f",
                                          ":%Y%m%d"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    unsigned o = data[0], sel = data[1];
    const uint8_t *csv = data + 2;
    size_t n = size - 2;
    genesis_ctx *ctx = fz_ctx();
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    char a[256], b[256], dt[300], id[256];
    fz_header_name(csv, n, sel & 7, a, sizeof a);
    fz_header_name(csv, n, (sel >> 3) & 7, b, sizeof b);
    snprintf(dt, sizeof dt, "%s%s", a, fz_formats[(sel >> 6) & 3]);
    fz_header_name(csv, n, (sel >> 3) & 7, id, sizeof id);
    /* bit 0: no header line; bit 1: typing threshold 2 (else the default 10, or with bit 7
     * every value categorical, as `genesis evaluate` reads the synthetic table); bit 2:
     * column a forced categorical, b continuous; bit 3: column a a date (ISO or a format);
     * bit 4: no automatic dates (with bit 3: none but a); bit 5: column b an identifier;
     * bit 6: extra missing tokens and a forced ';' delimiter; bits 0 and 4: no automatic
     * identifiers */
    co.has_header = !(o & 1);
    co.max_categories = (o & 128) ? INT32_MAX : (o & 2) ? 2 : 0;
    if (o & 4) {
        co.discrete = a;
        co.continuous = b;
    }
    if (o & 8) co.datetime = dt;
    if (o & 16) co.not_datetime = (o & 8) ? "*" : b;
    if (o & 32) co.id = id;
    if ((o & 17) == 17) co.not_id = "*";
    if (o & 64) {
        co.na_tokens = "-,missing,  ";
        co.delimiter = ';';
    }
    char path[600];
    fz_write("in.csv", csv, n, path, sizeof path);
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(ctx, path, &co, &t);
    fz_say(ctx, "read", st);
    if (st == GENESIS_OK) {
        int64_t rows = genesis_table_nrows(t);
        int nc = genesis_table_ncols(t);
        if (rows < 1 || nc < 1) abort(); /* a table that reads has rows and columns */
        for (int c = 0; c < nc; c++) {
            const char *name = genesis_table_column_name(t, c);
            const char *f = genesis_table_column_datetime(t, c);
            if (!name || strlen(name) + (f ? strlen(f) : 0) > size + 64) abort();
            if ((unsigned)genesis_table_column_type(t, c) > 1u) abort();
            (void)genesis_table_column_is_id(t, c);
        }
        genesis_table_free(t);
    } else if (!genesis_errmsg(ctx)[0] || st == GENESIS_ERR_NOMEM) {
        abort(); /* every refusal says why; a few KiB of input never exhaust memory */
    }
    return 0;
}
