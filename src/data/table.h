/*
 * table.h — the in-memory column store behind genesis_table, and the CSV reader/writer
 * contracts. A table is a list of typed columns: continuous columns hold doubles (NaN =
 * missing), categorical columns hold int32 codes into a list of level strings kept exactly
 * as they appeared in the file (-1 = missing).
 *
 * The folder src/data/ is data in and out, the layer above core/: the CSV reader (ingest.c)
 * and writer (csv_write.c), tables built from memory (table_build.c), the table entry points
 * (table_api.c), dates (datetime.c) and identifier columns (idcol.c).
 */
#ifndef GEN_TABLE_H
#define GEN_TABLE_H

#include "datetime.h"
#include "idcol.h"
#include "internal.h"

typedef struct gen_column {
    char *name;
    genesis_column_type type;
    /* continuous */
    double *num;            /* [nrows], NaN = missing */
    int is_integer;         /* every non-missing value was an integer in the file */
    int decimals;           /* typical digits after the decimal point (0..17: the fewest that
                               print 99% of the rows as read); -1: shortest round-trip form */
    int decimal_comma;      /* the file wrote the numbers with a decimal comma (3,14) */
    gen_dt_format dt;       /* a date column (dt.pattern[0] != 0): num holds UTC seconds
                               since 1970-01-01, written back in this format */
    gen_id_format id;       /* an identifier column (id.kind != 0): num holds 0 (nothing to
                               learn); output gets fresh ids in this shape (idcol.h) */
    /* categorical */
    int32_t *cat;           /* [nrows], -1 = missing */
    char **levels;          /* [nlevels] level strings exactly as read (spaces kept) */
    int32_t nlevels;
    /* missing values, both kinds */
    int64_t nmissing;
    char *na_text;          /* the missing-value token most seen in this column, as read
                               (e.g. " ?"), written back for missing values; "" if none */
} gen_column;

struct genesis_table {
    int ncols;
    int64_t nrows;
    gen_column *cols;       /* [ncols] */
    char delimiter;         /* the delimiter the file used */
    char *source;           /* file name it was read from (for messages) */
    genesis_ctx *ctx;       /* where genesis_table_add_* report errors (table_build.c) */
    int shape_only;         /* columns added by genesis_table_add_shape hold no values: the
                               table is for the memory model only; fit and evaluate refuse it */
};

/*
 * Reads a CSV file ("-" = stdin) into a new table (ingest.c). `opts` may be NULL (sniff
 * the delimiter, header on, max_categories 10). Streams the file in 64 KiB chunks; every
 * error names file:line:column and says what to do. Statuses: GENESIS_ERR_IO (cannot open
 * or read), GENESIS_ERR_PARSE (ragged row, bad quote, invalid UTF-8, forced-continuous value
 * that is not a number), GENESIS_ERR_DATA (empty, header only, field > 1 MiB, > 100000
 * columns, > 2^31-1 rows), GENESIS_ERR_INVALID_ARG (bad options, unknown column named in
 * the discrete/continuous lists), GENESIS_ERR_NOMEM.
 */
genesis_status gen_table_read_csv(genesis_ctx *ctx, const char *path,
                                  const genesis_csv_options *opts, genesis_table **out);

/* Frees the columns' storage and the table itself. */
void gen_table_destroy(genesis_table *t);
/* A 64-bit fingerprint of a table's names, types and values (FNV-1a over a canonical
 * encoding, table_build.c): checkpoints record it and a resumed fit compares it. */
uint64_t gen_table_fingerprint(const genesis_table *t);

/* Index of a column by exact name, or -1. */
int gen_table_find_column(const genesis_table *t, const char *name);

/*
 * CSV writer: streams records to a file that is created under a temporary name in the same
 * folder and renamed onto `path` only by gen_csv_writer_close(…, commit=1). "-" = stdout.
 * Fields containing the delimiter, a quote, CR or LF, or leading/trailing spaces are quoted
 * (quotes doubled); everything else is written as is.
 */
typedef struct gen_csv_writer gen_csv_writer;
genesis_status gen_csv_writer_open(genesis_ctx *ctx, const char *path, char delimiter,
                                   gen_csv_writer **out);
/* Appends one field (`len` bytes; quoting applied); `last` ends the record with '\n'. */
genesis_status gen_csv_writer_field(gen_csv_writer *w, const char *s, size_t len, int last);
/* Appends raw bytes the caller has already formatted (e.g. a whole batch of records). */
genesis_status gen_csv_writer_raw(gen_csv_writer *w, const char *s, size_t len);
/* commit=1: flush, fsync, rename onto the final name; commit=0: remove the temporary file.
 * Always frees `w`. */
genesis_status gen_csv_writer_close(gen_csv_writer *w, int commit);

/* Appends `s` to `buf` as one CSV field (quoted when needed). Returns bytes written, or 0 if
 * `cap` is too small (the caller grows its buffer and retries). */
size_t gen_csv_format_field(char *buf, size_t cap, const char *s, size_t len, char delimiter);

/* Exact number of bytes gen_csv_format_field writes for this field (0 for an empty field,
 * which is written as nothing: a 0 from gen_csv_format_field with len == 0 is success). */
size_t gen_csv_field_size(const char *s, size_t len, char delimiter);

/* Formats a number so that reading it back gives the same double, in the column's own
 * precision (decimals >= 0: fixed with that many digits, trailing zeros trimmed;
 * decimals < 0: shortest round-trip %g form). Returns the length. */
int gen_format_number(char *buf, size_t cap, double v, int decimals);

#endif /* GEN_TABLE_H */
