/*
 * table_build.c — genesis_table_create / _add_continuous / _add_categorical: a table built
 * from columns a program already holds in memory (the Python package's DataFrames), so that
 * nothing goes through CSV text. The result is the same column store the CSV reader builds
 * (table.h): doubles with NaN for missing values, or int32 codes into level strings with -1
 * for missing values. What the reader infers from text — integer-ness, decimals, the column
 * type — the caller states and the library checks; date and identifier roles are CSV-only.
 * genesis_table_add_shape adds a column without values, for memory plans (estimate.c reads
 * only the row count, types, level counts and missing flags); fit and evaluate refuse it.
 * Limits follow the reader's (docs/api.md): 2^31-1 rows, 100000 columns, 1 MiB per level,
 * UTF-8 names and levels. Also gen_table_fingerprint, a table's 64-bit fingerprint, which a
 * checkpoint records and a resumed fit compares (src/model/checkpoint.c).
 */
#include <math.h>
#include <string.h>

#include "table.h"

#define GEN_TB_MAX_ROWS 2147483647LL
#define GEN_TB_MAX_COLS 100000
#define GEN_TB_MAX_LEVEL (1u << 20)

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF, no NUL). */
static int gen_tb_utf8_ok(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c == 0) return 0;
        if (c < 0x80) {
            i++;
            continue;
        }
        int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : -1;
        if (n < 0 || c > 0xF4 || i + (size_t)n >= len)
            return 0;
        unsigned cp = c & (0x3Fu >> n);
        for (int k = 1; k <= n; k++) {
            if ((s[i + (size_t)k] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + (size_t)k] & 0x3Fu);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += (size_t)n + 1;
    }
    return 1;
}

genesis_status genesis_table_create(genesis_ctx *ctx, int64_t nrows, const char *name,
                                    genesis_table **out) {
    if (!ctx || !out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    gen_clear_error(ctx);
    GEN_RETURN_IF(nrows < 0 || nrows > GEN_TB_MAX_ROWS, ctx, GENESIS_ERR_INVALID_ARG,
                  "`nrows` = %lld is outside 0 .. 2147483647", (long long)nrows);
    const char *src = name && name[0] ? name : "table";
    GEN_RETURN_IF(!gen_tb_utf8_ok(src, strlen(src)), ctx, GENESIS_ERR_INVALID_ARG,
                  "`name` of genesis_table_create is not valid UTF-8");
    genesis_table *t = calloc(1, sizeof *t);
    if (t) t->source = gen_strdup(src);
    if (!t || !t->source) {
        gen_table_destroy(t);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory creating a table");
    }
    t->nrows = nrows;
    t->delimiter = ',';
    t->ctx = ctx;
    *out = t;
    return GENESIS_OK;
}

/* Checks the column name and makes room for one more column; returns the new column
 * (zeroed, name set) or NULL with the error recorded in *st. */
static gen_column *gen_tb_new_column(genesis_table *t, const char *name, genesis_status *st) {
    genesis_ctx *ctx = t->ctx;
    *st = GENESIS_ERR_INVALID_ARG;
    if (!name || !name[0]) {
        gen_set_error(ctx, *st, "%s: column %d has an empty `name`; give every column a name",
                      t->source, t->ncols + 1);
        return NULL;
    }
    if (!gen_tb_utf8_ok(name, strlen(name))) {
        gen_set_error(ctx, *st, "%s: the `name` of column %d is not valid UTF-8", t->source,
                      t->ncols + 1);
        return NULL;
    }
    if (gen_table_find_column(t, name) >= 0) {
        gen_set_error(ctx, *st, "%s: two columns are named '%s'; column names must be unique",
                      t->source, name);
        return NULL;
    }
    if (t->ncols >= GEN_TB_MAX_COLS) {
        gen_set_error(ctx, *st, "%s: more than %d columns", t->source, GEN_TB_MAX_COLS);
        return NULL;
    }
    gen_column *cols = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof *cols);
    if (!cols) goto nomem;
    t->cols = cols;
    gen_column *gc = &cols[t->ncols];
    memset(gc, 0, sizeof *gc);
    gc->name = gen_strdup(name);
    gc->na_text = gen_strdup("");
    if (!gc->name || !gc->na_text) {
        free(gc->name);
        free(gc->na_text);
        goto nomem;
    }
    *st = GENESIS_OK;
    return gc;
nomem:
    *st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory adding column '%s'", t->source,
                        name);
    return NULL;
}

genesis_status genesis_table_add_continuous(genesis_table *t, const char *name,
                                            const double *values, int integer, int decimals) {
    if (!t || !t->ctx || (!values && t->nrows > 0)) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = t->ctx;
    GEN_RETURN_IF(integer != 0 && integer != 1, ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: `integer` must be 0 or 1 (column '%s')", t->source, name ? name : "");
    GEN_RETURN_IF(decimals < -1 || decimals > 17, ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: `decimals` = %d is outside -1 .. 17 (column '%s')", t->source, decimals,
                  name ? name : "");
    int64_t nmiss = 0;
    for (int64_t i = 0; i < t->nrows; i++) {
        double v = values[i];
        if (isnan(v)) {
            nmiss++;
            continue;
        }
        GEN_RETURN_IF(isinf(v), ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s', row %lld: %s is not a finite number; use NaN for a "
                      "missing value",
                      t->source, name ? name : "", (long long)i, v > 0 ? "inf" : "-inf");
        GEN_RETURN_IF(integer && (v != floor(v) || fabs(v) >= 9007199254740992.0), ctx,
                      GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s', row %lld: %.17g is not a whole number below 2^53, "
                      "but `integer` = 1",
                      t->source, name ? name : "", (long long)i, v);
    }
    genesis_status st;
    gen_column *gc = gen_tb_new_column(t, name, &st);
    if (!gc) return st;
    gc->num = gen_calloc((size_t)(t->nrows > 0 ? t->nrows : 1), sizeof *gc->num);
    if (!gc->num) {
        free(gc->name);
        free(gc->na_text);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory adding column '%s'",
                             t->source, name);
    }
    if (t->nrows > 0) memcpy(gc->num, values, (size_t)t->nrows * sizeof *gc->num);
    gc->type = GENESIS_COLUMN_CONTINUOUS;
    gc->is_integer = integer;
    gc->decimals = integer ? 0 : decimals;
    gc->nmissing = nmiss;
    t->ncols++;
    return GENESIS_OK;
}

static int gen_tb_cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

genesis_status genesis_table_add_categorical(genesis_table *t, const char *name,
                                             const int32_t *codes, const char *const *levels,
                                             int32_t nlevels) {
    if (!t || !t->ctx || (!codes && t->nrows > 0) || (!levels && nlevels > 0))
        return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = t->ctx;
    const char *nm = name ? name : "";
    GEN_RETURN_IF(nlevels < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: column '%s': `nlevels` = %d is negative", t->source, nm, (int)nlevels);
    for (int32_t k = 0; k < nlevels; k++) {
        GEN_RETURN_IF(!levels[k], ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s': level %d is NULL", t->source, nm, (int)k);
        size_t len = strlen(levels[k]);
        GEN_RETURN_IF(len > GEN_TB_MAX_LEVEL, ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s': level %d is longer than 1 MiB", t->source, nm, (int)k);
        GEN_RETURN_IF(!gen_tb_utf8_ok(levels[k], len), ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s': level %d is not valid UTF-8", t->source, nm, (int)k);
    }
    int64_t nmiss = 0;
    for (int64_t i = 0; i < t->nrows; i++) {
        GEN_RETURN_IF(codes[i] < -1 || codes[i] >= nlevels, ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: column '%s', row %lld: code %d is outside -1 .. %d (`nlevels` - 1; "
                      "-1 = missing)",
                      t->source, nm, (long long)i, (int)codes[i], (int)nlevels - 1);
        nmiss += codes[i] < 0;
    }
    /* distinct levels: sort a copy of the pointers and compare neighbours */
    if (nlevels > 1) {
        const char **sorted = gen_calloc((size_t)nlevels, sizeof *sorted);
        if (!sorted)
            return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory adding column '%s'",
                                 t->source, nm);
        memcpy(sorted, levels, (size_t)nlevels * sizeof *sorted);
        qsort(sorted, (size_t)nlevels, sizeof *sorted, gen_tb_cmp_str);
        const char *dup = NULL;
        for (int32_t k = 1; k < nlevels && !dup; k++)
            if (strcmp(sorted[k - 1], sorted[k]) == 0) dup = sorted[k];
        if (dup) {
            genesis_status st = gen_set_error(
                ctx, GENESIS_ERR_INVALID_ARG,
                "%s: column '%s': the level '%.200s' is given twice; levels must be distinct",
                t->source, nm, dup);
            free(sorted);
            return st;
        }
        free(sorted);
    }
    genesis_status st;
    gen_column *gc = gen_tb_new_column(t, name, &st);
    if (!gc) return st;
    gc->type = GENESIS_COLUMN_CATEGORICAL;
    gc->cat = gen_calloc((size_t)(t->nrows > 0 ? t->nrows : 1), sizeof *gc->cat);
    gc->levels = gen_calloc((size_t)(nlevels > 0 ? nlevels : 1), sizeof *gc->levels);
    int ok = gc->cat && gc->levels;
    for (int32_t k = 0; ok && k < nlevels; k++) ok = (gc->levels[k] = gen_strdup(levels[k])) != NULL;
    if (!ok) {
        for (int32_t k = 0; gc->levels && k < nlevels; k++) free(gc->levels[k]);
        free(gc->levels);
        free(gc->cat);
        free(gc->name);
        free(gc->na_text);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory adding column '%s'",
                             t->source, nm);
    }
    if (t->nrows > 0) memcpy(gc->cat, codes, (size_t)t->nrows * sizeof *gc->cat);
    gc->nlevels = nlevels;
    gc->nmissing = nmiss;
    t->ncols++;
    return GENESIS_OK;
}

genesis_status genesis_table_add_shape(genesis_table *t, const char *name, int32_t nlevels,
                                       int missing) {
    if (!t || !t->ctx) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = t->ctx;
    GEN_RETURN_IF(nlevels < 0 || (missing != 0 && missing != 1), ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: column '%s': `nlevels` must be >= 0 and `missing` 0 or 1", t->source,
                  name ? name : "");
    genesis_status st;
    gen_column *gc = gen_tb_new_column(t, name, &st);
    if (!gc) return st;
    if (nlevels > 0) {
        /* level strings are left NULL: the memory model counts them as empty */
        gc->levels = gen_calloc((size_t)nlevels, sizeof *gc->levels);
        if (!gc->levels) {
            free(gc->name);
            free(gc->na_text);
            return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory adding column '%s'",
                                 t->source, name);
        }
    }
    gc->type = nlevels > 0 ? GENESIS_COLUMN_CATEGORICAL : GENESIS_COLUMN_CONTINUOUS;
    gc->nlevels = nlevels;
    gc->nmissing = missing;
    t->shape_only = 1;
    t->ncols++;
    return GENESIS_OK;
}

/* ---- the table's fingerprint (checkpoints record it; a resumed fit compares it) ---------- */

typedef struct fnv {
    uint64_t h;
} fnv;

static void fnv_bytes(fnv *f, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        f->h ^= c[i];
        f->h *= 1099511628211ull; /* the FNV-1a 64-bit prime */
    }
}
static void fnv_u64(fnv *f, uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    fnv_bytes(f, b, 8);
}
static void fnv_str(fnv *f, const char *s) {
    fnv_u64(f, s ? (uint64_t)strlen(s) : UINT64_MAX);
    if (s) fnv_bytes(f, s, strlen(s));
}

uint64_t gen_table_fingerprint(const genesis_table *t) {
    fnv f = {14695981039346656037ull}; /* the FNV-1a 64-bit offset basis */
    fnv_u64(&f, (uint64_t)t->nrows);
    fnv_u64(&f, (uint64_t)t->ncols);
    for (int c = 0; c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        fnv_str(&f, col->name);
        fnv_u64(&f, (uint64_t)col->type);
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            fnv_str(&f, col->dt.pattern);
            fnv_u64(&f, (uint64_t)col->id.kind);
            for (int64_t i = 0; col->num && i < t->nrows; i++) {
                uint64_t u;
                memcpy(&u, &col->num[i], 8);
                fnv_u64(&f, u);
            }
        } else {
            fnv_u64(&f, (uint64_t)col->nlevels);
            for (int32_t k = 0; k < col->nlevels; k++) fnv_str(&f, col->levels[k]);
            for (int64_t i = 0; col->cat && i < t->nrows; i++) fnv_u64(&f, (uint64_t)(int64_t)col->cat[i]);
        }
    }
    return f.h;
}
