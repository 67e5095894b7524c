/*
 * ingest.c — the CSV reader behind genesis_table_read_csv. The file (or stdin) is read in
 * 64 KiB chunks and handed to libcsv one physical line at a time, so every message can name
 * the exact line (embedded newlines in quoted fields included). Each field is checked as
 * UTF-8 where it is parsed (so the first bad one in the file is the one named) and kept in a
 * batch of rows; a full batch is interned column by column in parallel (ctx threads), each
 * column in row order, so the result does not depend on the thread count: every field goes
 * into its column's hash table (one entry per distinct raw string, classified once: missing
 * token, finite number, infinity or text) and the row keeps an int32 code. When the file is
 * done each column is typed: continuous when every non-missing value is a finite number
 * and there are more than max_categories distinct numbers (or when forced), categorical
 * otherwise; continuous values are expanded from the codes, categorical levels keep the
 * raw text. Date columns (datetime.h) are typed first: a column listed in `datetime`, or one
 * whose every non-missing value is an ISO 8601 date, month or timestamp of one shape
 * (unless listed in `not_datetime`, `discrete` or `continuous`), becomes continuous in UTC
 * seconds and keeps its format for writing; a listed column with a value that does not fit
 * is an error at that value's line. Identifier columns (idcol.h) come next: recognised by
 * the rule there or listed in `id`, they become a constant continuous column that keeps
 * only the shape of the ids (no real value); a listed column whose values have no such
 * shape is an error. Also gen_table_destroy and gen_table_find_column.
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "parallel.h"
#include "table.h"

#define GEN_RD_CHUNK ((size_t)64 * 1024)
#define GEN_RD_MAX_FIELD ((size_t)1024 * 1024)
#define GEN_RD_MAX_COLS 100000
#define GEN_RD_MAX_ROWS INT32_MAX
#define GEN_RD_SHOW 60 /* bytes of a value quoted in a message */
#define GEN_RD_BATCH_CELLS (1 << 20) /* fields held before a batch is interned */
#define GEN_RD_BATCH_ROWS 16384

/* Decimals classes of a continuous column: 0..17 digits after '.', then the shortest form. */
#define GEN_RD_DEC_CLASSES 19

/* What one distinct raw string is. */
enum { GEN_LV_TEXT = 0, GEN_LV_NUM, GEN_LV_INF, GEN_LV_HUGE, GEN_LV_MISSING };

typedef struct {
    size_t off;       /* into the column's arena (NUL-terminated there) */
    double value;     /* GEN_LV_NUM only */
    int64_t line;     /* physical line of its first appearance */
    uint32_t len;
    uint32_t hash;
    int32_t count;    /* rows holding it */
    int8_t kind;
    int8_t integral;  /* value is an integer below 2^53 in magnitude */
    int8_t decimals;  /* digits after '.', -1 for exponent notation or > 17 digits */
} gen_rd_level;

/* A string interner: arena + level records + open-addressing slots. */
typedef struct {
    char *arena;
    size_t arena_len, arena_cap;
    gen_rd_level *lv;
    int32_t nlv, lvcap;
    int32_t *slots; /* level index or -1 */
    size_t nslots;  /* power of two */
} gen_rd_intern;

typedef struct {
    gen_rd_intern in;
    int32_t *codes; /* [rowcap] interned level per row */
    int force;      /* 0 automatic, 1 categorical, 2 continuous */
    int dt_force;   /* 0 automatic (ISO 8601 recognised), 1 a date column, -1 never */
    char dt_pattern[GEN_DT_PATTERN]; /* the user's format ("" = recognise ISO 8601) */
    int id_force;   /* 0 automatic (idcol.h rule), 1 an identifier, -1 never */
    int family_cat; /* categorical as a member of a family of integer codes (gen_rd_families) */
} gen_rd_col;

typedef struct {
    const char *s;
    size_t len;
} gen_rd_token;

/* A field waiting in the batch: its bytes in the batch buffer, its physical line. */
typedef struct {
    size_t off;
    int64_t line;
    uint32_t len;
} gen_rd_cell;

typedef struct {
    genesis_ctx *ctx;
    const char *fname; /* for messages */
    genesis_status st;
    const genesis_csv_options *opts;
    int has_header;
    int max_categories;
    char delim;
    int64_t line;      /* physical line of the bytes being parsed (1-based) */
    int64_t rec_line;  /* line where the current record began */
    int64_t nf;        /* fields seen so far in the current record */
    int ncols;         /* 0 until the first record is complete */
    int64_t nrecords;
    /* first record, kept until the column count is known */
    char **first;
    size_t *first_len;
    int nfirst, firstcap;
    /* columns */
    char **names;
    gen_rd_col *cols;
    int32_t nrows, rowcap;
    /* missing-value tokens (trimmed) */
    gen_rd_token *tok;
    int ntok;
    char *tokbuf;
    /* the batch: rows [bstart, nrows) (and the fields of the row being read) not yet
     * interned; cell (row - bstart) * ncols + column */
    char *bbuf;
    size_t blen, bcap;
    gen_rd_cell *bcell;
    int32_t bstart, brows;
    unsigned char *bfail; /* [ncols] a column's interning ran out of memory */
} gen_reader;

static const char *const gen_rd_builtin_na[] = {"",     "?",    "NA",   "N/A", "NaN",
                                                "nan", "null", "NULL", "None"};

/* ---- small helpers --------------------------------------------------------------------- */

static int gen_rd_no_space(unsigned char c) {
    (void)c;
    return 0;
}

static int gen_rd_is_blank(char c) { return c == ' ' || c == '\t'; }

static void gen_rd_trim(const char **s, size_t *len) {
    const char *p = *s;
    size_t n = *len;
    while (n > 0 && gen_rd_is_blank(p[0])) p++, n--;
    while (n > 0 && gen_rd_is_blank(p[n - 1])) n--;
    *s = p;
    *len = n;
}

static int64_t gen_rd_count_nl(const char *s, size_t len) {
    int64_t n = 0;
    const char *end = s + len;
    while (s < end) {
        const char *q = memchr(s, '\n', (size_t)(end - s));
        if (!q) break;
        n++;
        s = q + 1;
    }
    return n;
}

static uint32_t gen_rd_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a, folded to 32 bits */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Copies at most GEN_RD_SHOW bytes of `s` into `buf` for a message, cut at a UTF-8 boundary,
 * with newlines shown as spaces and "..." when shortened. */
static const char *gen_rd_show(char *buf, size_t cap, const char *s, size_t len) {
    size_t n = len;
    int cut = 0;
    if (n > GEN_RD_SHOW) {
        n = GEN_RD_SHOW;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
        cut = 1;
    }
    if (n + 4 > cap) n = cap > 4 ? cap - 4 : 0;
    for (size_t i = 0; i < n; i++) buf[i] = (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
    if (cut) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = 0;
    return buf;
}

/* Offset of the first byte that is not valid UTF-8 (overlong forms, surrogates, code
 * points above U+10FFFF and NUL bytes are rejected), or -1 when all of it is valid. */
static long gen_rd_utf8_invalid(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    /* eight bytes at a time while they are ASCII without a NUL (every field is checked) */
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if ((w & 0x8080808080808080ULL) ||
            ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL))
            break;
    }
    while (i < len) {
        unsigned c = s[i];
        if (c >= 0x01 && c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c == 0xE0) need = 2, lo = 0xA0;
        else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) need = 2;
        else if (c == 0xED) need = 2, hi = 0x9F;
        else if (c == 0xF0) need = 3, lo = 0x90;
        else if (c >= 0xF1 && c <= 0xF3) need = 3;
        else if (c == 0xF4) need = 3, hi = 0x8F;
        else return (long)i; /* NUL, stray continuation, 0xC0/0xC1, 0xF5.. */
        if (len - i <= need) return (long)i;
        if (s[i + 1] < lo || s[i + 1] > hi) return (long)i;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80) return (long)i;
        i += need + 1;
    }
    return -1;
}

/* Classifies a trimmed, non-missing value: a finite decimal number (strtod syntax without
 * hex, inf or nan), an infinity spelled out, a number too large for a double, or text. */
static int gen_rd_classify(const char *s, size_t n, double *value, int *integral,
                           int *decimals) {
    size_t i = 0, intd = 0, fracd = 0;
    int expo = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, intd++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, fracd++;
    }
    int ok = intd + fracd > 0;
    if (ok && i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1, ed = 0;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        while (j < n && s[j] >= '0' && s[j] <= '9') j++, ed++;
        if (ed == 0) ok = 0;
        i = j;
        expo = 1;
    }
    if (!ok || i != n) {
        size_t k = 0;
        if (k < n && (s[k] == '+' || s[k] == '-')) k++;
        size_t rest = n - k;
        if ((rest == 3 && strncasecmp(s + k, "inf", 3) == 0) ||
            (rest == 8 && strncasecmp(s + k, "infinity", 8) == 0))
            return GEN_LV_INF;
        return GEN_LV_TEXT;
    }
    /* The syntax is checked, so strtod stops exactly at s + n (the byte after is either a
     * blank or the NUL the arena keeps after every string). */
    char *end = NULL;
    double v = strtod(s, &end);
    if (end != s + n) return GEN_LV_TEXT;
    if (!isfinite(v)) return GEN_LV_HUGE;
    *value = v;
    *integral = (v == floor(v) && fabs(v) < 9007199254740992.0);
    *decimals = (expo || fracd > 17) ? -1 : (int)fracd;
    return GEN_LV_NUM;
}

/* ---- interner -------------------------------------------------------------------------- */

static void gen_rd_intern_free(gen_rd_intern *in) {
    free(in->arena);
    free(in->lv);
    free(in->slots);
    memset(in, 0, sizeof *in);
}

static int gen_rd_intern_rehash(gen_rd_intern *in, size_t nslots) {
    size_t bytes = gen_mul_size(nslots, sizeof(int32_t));
    int32_t *sl = bytes ? malloc(bytes) : NULL;
    if (!sl) return -1;
    memset(sl, 0xFF, bytes);
    for (int32_t k = 0; k < in->nlv; k++) {
        size_t j = in->lv[k].hash & (nslots - 1);
        while (sl[j] >= 0) j = (j + 1) & (nslots - 1);
        sl[j] = k;
    }
    free(in->slots);
    in->slots = sl;
    in->nslots = nslots;
    return 0;
}

/* Index of `s` in the interner, adding it when new (*isnew = 1). -1 on out of memory. */
static int32_t gen_rd_intern_add(gen_rd_intern *in, const char *s, size_t len, int *isnew) {
    *isnew = 0;
    if (in->nslots == 0 && gen_rd_intern_rehash(in, 8) != 0) return -1;
    uint32_t h = gen_rd_hash(s, len);
    size_t mask = in->nslots - 1, j = h & mask;
    while (in->slots[j] >= 0) {
        const gen_rd_level *l = &in->lv[in->slots[j]];
        if (l->hash == h && l->len == len && memcmp(in->arena + l->off, s, len) == 0)
            return in->slots[j];
        j = (j + 1) & mask;
    }
    if (in->nlv == INT32_MAX) return -1;
    if (in->nlv == in->lvcap) {
        int32_t nc = in->lvcap ? (in->lvcap > INT32_MAX / 2 ? INT32_MAX : in->lvcap * 2) : 4;
        size_t bytes = gen_mul_size((size_t)nc, sizeof *in->lv);
        gen_rd_level *nl = bytes ? realloc(in->lv, bytes) : NULL;
        if (!nl) return -1;
        in->lv = nl;
        in->lvcap = nc;
    }
    if (in->arena_len + len + 1 > in->arena_cap) {
        size_t nc = in->arena_cap ? in->arena_cap : 64;
        while (nc < in->arena_len + len + 1) {
            if (nc > SIZE_MAX / 2) return -1;
            nc *= 2;
        }
        char *na = realloc(in->arena, nc);
        if (!na) return -1;
        in->arena = na;
        in->arena_cap = nc;
    }
    gen_rd_level *l = &in->lv[in->nlv];
    memset(l, 0, sizeof *l);
    l->off = in->arena_len;
    l->len = (uint32_t)len;
    l->hash = h;
    if (len) memcpy(in->arena + in->arena_len, s, len);
    in->arena[in->arena_len + len] = 0;
    in->arena_len += len + 1;
    in->slots[j] = in->nlv;
    *isnew = 1;
    int32_t idx = in->nlv++;
    if ((size_t)in->nlv * 2 > in->nslots) {
        if (in->nslots > SIZE_MAX / 2 || gen_rd_intern_rehash(in, in->nslots * 2) != 0) {
            in->nlv--; /* keep the table consistent; the caller fails anyway */
            in->slots[j] = -1;
            in->arena_len = l->off;
            return -1;
        }
    }
    return idx;
}

/* Index of `s` or -1 (no insertion). */
static int32_t gen_rd_intern_find(const gen_rd_intern *in, const char *s, size_t len) {
    if (in->nslots == 0) return -1;
    uint32_t h = gen_rd_hash(s, len);
    size_t mask = in->nslots - 1, j = h & mask;
    while (in->slots[j] >= 0) {
        const gen_rd_level *l = &in->lv[in->slots[j]];
        if (l->hash == h && l->len == len && memcmp(in->arena + l->off, s, len) == 0)
            return in->slots[j];
        j = (j + 1) & mask;
    }
    return -1;
}

/* ---- reader state ---------------------------------------------------------------------- */

static genesis_status gen_rd_nomem(gen_reader *r) {
    r->st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM,
                          "%s:%lld: out of memory while reading — free memory or use a "
                          "smaller file",
                          r->fname, (long long)r->line);
    return r->st;
}

static int gen_rd_is_missing(const gen_reader *r, const char *s, size_t len) {
    gen_rd_trim(&s, &len);
    for (int k = 0; k < r->ntok; k++)
        if (r->tok[k].len == len && memcmp(r->tok[k].s, s, len) == 0) return 1;
    return 0;
}

/* The next comma-separated entry of a list (NA tokens, column lists): *item and *len, and
 * *p moved past it (NULL after the last). 0 when the list is done. Empty entries count. */
static int gen_rd_list_next(const char **p, const char **item, size_t *len) {
    if (!*p) return 0;
    const char *comma = strchr(*p, ',');
    *item = *p;
    *len = comma ? (size_t)(comma - *p) : strlen(*p);
    *p = comma ? comma + 1 : NULL;
    return 1;
}

static genesis_status gen_rd_tokens(gen_reader *r, const char *extra) {
    int nb = (int)(sizeof gen_rd_builtin_na / sizeof gen_rd_builtin_na[0]);
    int cap = nb + 1;
    if (extra) {
        r->tokbuf = gen_strdup(extra);
        if (!r->tokbuf) return gen_rd_nomem(r);
        for (const char *p = extra; *p; p++)
            if (*p == ',') cap++;
    }
    r->tok = gen_calloc((size_t)cap, sizeof *r->tok);
    if (!r->tok) return gen_rd_nomem(r);
    for (int k = 0; k < nb; k++) {
        r->tok[r->ntok].s = gen_rd_builtin_na[k];
        r->tok[r->ntok++].len = strlen(gen_rd_builtin_na[k]);
    }
    if (r->tokbuf) {
        const char *p = r->tokbuf, *s;
        size_t len;
        while (gen_rd_list_next(&p, &s, &len)) {
            gen_rd_trim(&s, &len);
            if (len > 0 && r->ntok < cap) {
                r->tok[r->ntok].s = s;
                r->tok[r->ntok++].len = len;
            }
        }
    }
    return GENESIS_OK;
}

static genesis_status gen_rd_grow_rows(gen_reader *r) {
    if (r->nrows < r->rowcap) return GENESIS_OK;
    if (r->nrows >= GEN_RD_MAX_ROWS) {
        r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                              "%s:%lld: more than %d data rows — split the file or sample "
                              "it down",
                              r->fname, (long long)r->rec_line, (int)GEN_RD_MAX_ROWS);
        return r->st;
    }
    int32_t nc = r->rowcap ? (r->rowcap > GEN_RD_MAX_ROWS / 2 ? GEN_RD_MAX_ROWS : r->rowcap * 2)
                           : 16;
    for (int c = 0; c < r->ncols; c++) {
        int32_t *p = realloc(r->cols[c].codes, (size_t)nc * sizeof *p);
        if (!p) return gen_rd_nomem(r);
        r->cols[c].codes = p;
    }
    r->rowcap = nc;
    return GENESIS_OK;
}

static genesis_status gen_rd_bad_utf8(gen_reader *r, const char *s, long bad,
                                      int64_t fline, int64_t col, const char *where) {
    int64_t line = fline + gen_rd_count_nl(s, (size_t)bad);
    unsigned char b = (unsigned char)s[bad];
    if (b == 0)
        r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                              "%s:%lld:%lld: a NUL byte in %s — this does not look like a "
                              "text CSV file",
                              r->fname, (long long)line, (long long)col, where);
    else
        r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                              "%s:%lld:%lld: invalid UTF-8 in %s (byte 0x%02X at offset %ld "
                              "of the field) — save the file as UTF-8 (e.g. iconv -f latin1 "
                              "-t utf-8)",
                              r->fname, (long long)line, (long long)col, where, b, bad);
    return r->st;
}

/* Interns one data field (already checked as UTF-8) into column c at row `row`. Touches
 * only that column, so columns can be interned on different threads; -1 when out of
 * memory. */
static int gen_rd_intern_field(const gen_reader *r, int c, const char *s, size_t len,
                               int64_t fline, int32_t row) {
    gen_rd_col *col = &r->cols[c];
    int isnew;
    int32_t idx = gen_rd_intern_add(&col->in, s, len, &isnew);
    if (idx < 0) return -1;
    gen_rd_level *l = &col->in.lv[idx];
    if (isnew) {
        l->line = fline;
        if (gen_rd_is_missing(r, s, len)) {
            l->kind = GEN_LV_MISSING;
        } else {
            const char *t = col->in.arena + l->off;
            size_t tl = len;
            gen_rd_trim(&t, &tl);
            int integral = 0, decimals = 0;
            double v = 0;
            l->kind = (int8_t)gen_rd_classify(t, tl, &v, &integral, &decimals);
            l->value = v;
            l->integral = (int8_t)integral;
            l->decimals = (int8_t)decimals;
        }
    }
    l->count++;
    col->codes[row] = idx;
    return 0;
}

/* Keeps one data field of the current row in the batch. */
static genesis_status gen_rd_stash(gen_reader *r, int c, const char *s, size_t len,
                                   int64_t fline) {
    if (!r->bcell) {
        int64_t rows = GEN_RD_BATCH_CELLS / r->ncols;
        r->brows = (int32_t)(rows < 64 ? 64 : rows > GEN_RD_BATCH_ROWS ? GEN_RD_BATCH_ROWS : rows);
        r->bcell = gen_calloc((size_t)r->brows * (size_t)r->ncols, sizeof *r->bcell);
        r->bfail = gen_calloc((size_t)r->ncols, 1);
        if (!r->bcell || !r->bfail) return gen_rd_nomem(r);
    }
    if (r->blen + len + 1 > r->bcap) {
        size_t nc = r->bcap ? r->bcap : 65536;
        while (nc < r->blen + len + 1) nc *= 2;
        char *nb = realloc(r->bbuf, nc);
        if (!nb) return gen_rd_nomem(r);
        r->bbuf = nb;
        r->bcap = nc;
    }
    gen_rd_cell *cell = &r->bcell[(size_t)(r->nrows - r->bstart) * (size_t)r->ncols + (size_t)c];
    cell->off = r->blen;
    cell->len = (uint32_t)len;
    cell->line = fline;
    if (len) memcpy(r->bbuf + r->blen, s, len);
    r->blen += len;
    return GENESIS_OK;
}

static void gen_rd_flush_column(void *arg, int c) {
    gen_reader *r = arg;
    int32_t n = r->nrows - r->bstart;
    for (int32_t i = 0; i < n; i++) {
        const gen_rd_cell *cell = &r->bcell[(size_t)i * (size_t)r->ncols + (size_t)c];
        if (gen_rd_intern_field(r, c, r->bbuf + cell->off, cell->len, cell->line,
                                r->bstart + i) != 0) {
            r->bfail[c] = 1;
            return;
        }
    }
}

/* Interns the batch's complete rows, all columns in parallel, and empties the batch. */
static genesis_status gen_rd_flush(gen_reader *r) {
    if (r->nrows > r->bstart) {
        gen_parallel_for(gen_ctx_threads(r->ctx), r->ncols, gen_rd_flush_column, r);
        for (int c = 0; c < r->ncols; c++)
            if (r->bfail[c]) return gen_rd_nomem(r);
    }
    r->bstart = r->nrows;
    r->blen = 0;
    return GENESIS_OK;
}

/* ---- column-name lists (discrete / continuous overrides) ------------------------------- */

static genesis_status gen_rd_unknown_column(gen_reader *r, const char *s, size_t len,
                                            const char *what) {
    char known[400], nm[GEN_RD_SHOW + 8];
    size_t k = 0;
    known[0] = 0;
    for (int c = 0; c < r->ncols && k + 8 < sizeof known; c++) {
        int n = snprintf(known + k, sizeof known - k, "%s%s", c ? ", " : "", r->names[c]);
        if (n < 0 || (size_t)n >= sizeof known - k) {
            snprintf(known + k, sizeof known - k, ", ...");
            break;
        }
        k += (size_t)n;
    }
    r->st = gen_set_error(r->ctx, GENESIS_ERR_INVALID_ARG,
                          "%s: the %s column list names \"%s\", which is not a column of "
                          "this file — use one of: %s",
                          r->fname, what, gen_rd_show(nm, sizeof nm, s, len), known);
    return r->st;
}

/* The column an entry of a list names (exact, then without surrounding blanks), or -1. */
static int32_t gen_rd_list_column(const gen_rd_intern *names, const char **s, size_t *len) {
    int32_t idx = gen_rd_intern_find(names, *s, *len);
    if (idx < 0) { /* "a, b" style lists: try without the blanks */
        gen_rd_trim(s, len);
        if (*len > 0) idx = gen_rd_intern_find(names, *s, *len);
    }
    return idx;
}

static genesis_status gen_rd_apply_list(gen_reader *r, const gen_rd_intern *names,
                                        const char *list, int force, const char *what) {
    if (!list) return GENESIS_OK;
    const char *p = list, *s;
    size_t len;
    while (gen_rd_list_next(&p, &s, &len)) {
        int32_t idx = gen_rd_list_column(names, &s, &len);
        if (len > 0 && idx < 0) return gen_rd_unknown_column(r, s, len, what);
        if (idx >= 0) {
            gen_rd_col *col = &r->cols[idx];
            if (col->force != 0 && col->force != force) {
                r->st = gen_set_error(r->ctx, GENESIS_ERR_INVALID_ARG,
                                      "%s: column \"%s\" is listed both as discrete and as "
                                      "continuous — keep it in one list",
                                      r->fname, r->names[idx]);
                return r->st;
            }
            col->force = force;
        }
    }
    return GENESIS_OK;
}

/* The datetime ("name" or "name:FORMAT", force 1) and not_datetime ("name", force -1)
 * lists. A format ends at the next comma, so it cannot hold one. */
static genesis_status gen_rd_apply_dt_list(gen_reader *r, const gen_rd_intern *names,
                                           const char *list, int force, const char *what) {
    if (!list) return GENESIS_OK;
    if (force < 0 && !strcmp(list, "*")) { /* no recognition: only listed date columns */
        for (int c = 0; c < r->ncols; c++)
            if (r->cols[c].dt_force == 0) r->cols[c].dt_force = -1;
        return GENESIS_OK;
    }
    const char *p = list, *s;
    size_t len;
    while (gen_rd_list_next(&p, &s, &len)) {
        const char *colon = force > 0 ? memchr(s, ':', len) : NULL;
        const char *fmt = colon ? colon + 1 : NULL;
        size_t nlen = colon ? (size_t)(colon - s) : len;
        size_t flen = colon ? len - nlen - 1 : 0;
        int32_t idx = gen_rd_list_column(names, &s, &nlen);
        if (nlen > 0 && idx < 0) return gen_rd_unknown_column(r, s, nlen, what);
        if (idx >= 0) {
            gen_rd_col *col = &r->cols[idx];
            if ((col->dt_force != 0 && col->dt_force != force) || (force > 0 && col->force)) {
                r->st = gen_set_error(r->ctx, GENESIS_ERR_INVALID_ARG,
                                      "%s: column \"%s\" is listed as a date column and also "
                                      "as %s — keep it in one list",
                                      r->fname, r->names[idx],
                                      col->dt_force < 0 ? "not a date column"
                                      : col->force == 1 ? "discrete" : "continuous");
                return r->st;
            }
            col->dt_force = force;
            if (fmt) {
                char pat[GEN_DT_PATTERN + 1], why[160];
                if (flen >= sizeof pat) flen = sizeof pat - 1;
                memcpy(pat, fmt, flen);
                pat[flen] = 0;
                if (gen_dt_pattern_check(pat, why, sizeof why) != 0) {
                    r->st = gen_set_error(r->ctx, GENESIS_ERR_INVALID_ARG,
                                          "%s: date format \"%s\" of column \"%s\": %s",
                                          r->fname, pat, r->names[idx], why);
                    return r->st;
                }
                memcpy(col->dt_pattern, pat, flen + 1);
            }
        }
    }
    return GENESIS_OK;
}

/* The id ("name", force 1) and not_id ("name", force -1; "*" = every column not listed as
 * an id) lists. */
static genesis_status gen_rd_apply_id_list(gen_reader *r, const gen_rd_intern *names,
                                           const char *list, int force, const char *what) {
    if (!list) return GENESIS_OK;
    if (force < 0 && !strcmp(list, "*")) {
        for (int c = 0; c < r->ncols; c++)
            if (r->cols[c].id_force == 0) r->cols[c].id_force = -1;
        return GENESIS_OK;
    }
    const char *p = list, *s;
    size_t len;
    while (gen_rd_list_next(&p, &s, &len)) {
        int32_t idx = gen_rd_list_column(names, &s, &len);
        if (len > 0 && idx < 0) return gen_rd_unknown_column(r, s, len, what);
        if (idx >= 0) {
            gen_rd_col *col = &r->cols[idx];
            if ((col->id_force != 0 && col->id_force != force) ||
                (force > 0 && (col->force || col->dt_force > 0))) {
                r->st = gen_set_error(r->ctx, GENESIS_ERR_INVALID_ARG,
                                      "%s: column \"%s\" is listed as an identifier and also "
                                      "in another column list (not-id, discrete, continuous or "
                                      "datetime) — keep it in one list",
                                      r->fname, r->names[idx]);
                return r->st;
            }
            col->id_force = force;
        }
    }
    return GENESIS_OK;
}

/* The first record is complete: it fixes the column count and, with a header, the names. */
static genesis_status gen_rd_first_record(gen_reader *r) {
    int n = r->nfirst;
    gen_rd_intern names;
    memset(&names, 0, sizeof names);
    r->ncols = n;
    r->names = gen_calloc((size_t)n, sizeof *r->names);
    r->cols = gen_calloc((size_t)n, sizeof *r->cols);
    if (!r->names || !r->cols) return gen_rd_nomem(r);
    for (int c = 0; c < n; c++) {
        if (r->has_header) {
            r->names[c] = r->first[c];
            r->first[c] = NULL;
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "col%d", c + 1);
            r->names[c] = gen_strdup(buf);
            if (!r->names[c]) return gen_rd_nomem(r);
        }
    }
    for (int c = 0; c < n; c++) {
        size_t len = strlen(r->names[c]);
        if (r->has_header && r->first_len[c] == 0) {
            r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                                  "%s:%lld:%d: column %d has an empty name in the header — "
                                  "name every column (or read the file without a header)",
                                  r->fname, (long long)r->rec_line, c + 1, c + 1);
            goto done;
        }
        int isnew;
        int32_t idx = gen_rd_intern_add(&names, r->names[c], len, &isnew);
        if (idx < 0) {
            gen_rd_nomem(r);
            goto done;
        }
        if (!isnew) {
            char nm[GEN_RD_SHOW + 8];
            r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                                  "%s:%lld:%d: column name \"%s\" appears twice (columns %d "
                                  "and %d) — rename one of them",
                                  r->fname, (long long)r->rec_line, c + 1,
                                  gen_rd_show(nm, sizeof nm, r->names[c], len), idx + 1, c + 1);
            goto done;
        }
    }
    if (r->opts) {
        if (gen_rd_apply_list(r, &names, r->opts->discrete, 1, "discrete") != GENESIS_OK)
            goto done;
        if (gen_rd_apply_list(r, &names, r->opts->continuous, 2, "continuous") != GENESIS_OK)
            goto done;
        if (gen_rd_apply_dt_list(r, &names, r->opts->datetime, 1, "datetime") != GENESIS_OK ||
            gen_rd_apply_dt_list(r, &names, r->opts->not_datetime, -1, "not-datetime") !=
                GENESIS_OK ||
            gen_rd_apply_id_list(r, &names, r->opts->id, 1, "id") != GENESIS_OK ||
            gen_rd_apply_id_list(r, &names, r->opts->not_id, -1, "not-id") != GENESIS_OK)
            goto done;
    }
    if (!r->has_header) { /* the first record is data */
        if (gen_rd_grow_rows(r) != GENESIS_OK) goto done;
        int64_t line = r->rec_line;
        for (int c = 0; c < n; c++) {
            int64_t fline = line;
            if (gen_rd_intern_field(r, c, r->first[c], r->first_len[c], fline, 0) != 0) {
                gen_rd_nomem(r);
                goto done;
            }
            line += gen_rd_count_nl(r->first[c], r->first_len[c]);
        }
        r->nrows = 1;
        r->bstart = 1;
    }
done:
    gen_rd_intern_free(&names);
    return r->st;
}

/* ---- libcsv callbacks ------------------------------------------------------------------ */

static void gen_rd_on_field(void *data, size_t len, void *user) {
    gen_reader *r = user;
    if (r->st != GENESIS_OK) return;
    const char *s = data ? (const char *)data : "";
    int64_t fline = r->line - gen_rd_count_nl(s, len);
    if (r->nf == 0) r->rec_line = fline;
    int64_t col = r->nf + 1;
    if (len > GEN_RD_MAX_FIELD) {
        r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                              "%s:%lld:%lld: a field of %zu bytes, more than the 1 MiB limit "
                              "— check for an unbalanced quote, or shorten the value",
                              r->fname, (long long)fline, (long long)col, len);
        return;
    }
    if (r->nf >= GEN_RD_MAX_COLS) {
        r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                              "%s:%lld: more than %d fields in one record — this reader "
                              "takes at most %d columns",
                              r->fname, (long long)r->rec_line, GEN_RD_MAX_COLS,
                              GEN_RD_MAX_COLS);
        return;
    }
    if (r->ncols == 0) {
        long bad = gen_rd_utf8_invalid(s, len);
        if (bad >= 0) {
            gen_rd_bad_utf8(r, s, bad, fline, col,
                            r->has_header ? "the header" : "the first row");
            return;
        }
        if (r->nfirst == r->firstcap) {
            int nc = r->firstcap ? r->firstcap * 2 : 16;
            char **f = realloc(r->first, (size_t)nc * sizeof *f);
            if (f) r->first = f;
            size_t *fl = realloc(r->first_len, (size_t)nc * sizeof *fl);
            if (fl) r->first_len = fl;
            if (!f || !fl) {
                gen_rd_nomem(r);
                return;
            }
            r->firstcap = nc;
        }
        char *copy = malloc(len + 1);
        if (!copy) {
            gen_rd_nomem(r);
            return;
        }
        if (len) memcpy(copy, s, len);
        copy[len] = 0;
        r->first[r->nfirst] = copy;
        r->first_len[r->nfirst++] = len;
    } else if (r->nf < r->ncols) {
        if (r->nf == 0 && gen_rd_grow_rows(r) != GENESIS_OK) return;
        long bad = gen_rd_utf8_invalid(s, len);
        if (bad >= 0) {
            char where[300];
            char nm[GEN_RD_SHOW + 8];
            const char *name = r->names[r->nf];
            snprintf(where, sizeof where, "column \"%s\"",
                     gen_rd_show(nm, sizeof nm, name, strlen(name)));
            gen_rd_bad_utf8(r, s, bad, fline, col, where);
            return;
        }
        if (gen_rd_stash(r, (int)r->nf, s, len, fline) != GENESIS_OK) return;
    }
    r->nf++;
}

static void gen_rd_on_row(int c, void *user) {
    gen_reader *r = user;
    (void)c;
    if (r->st != GENESIS_OK || r->nf == 0) return;
    if (r->ncols == 0) {
        if (gen_rd_first_record(r) != GENESIS_OK) return;
    } else if (r->nf != r->ncols) {
        const char *what = r->has_header ? "the header has" : "the first row has";
        r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                              "%s:%lld:%lld: line %lld has %lld field%s, %s %d — quote values "
                              "that contain the delimiter '%s', and give every row the same "
                              "number of fields",
                              r->fname, (long long)r->rec_line,
                              (long long)(r->nf < r->ncols ? r->nf + 1 : r->ncols + 1),
                              (long long)r->rec_line, (long long)r->nf, r->nf == 1 ? "" : "s",
                              what, r->ncols, r->delim == '\t' ? "\\t" : (char[]){r->delim, 0});
        return;
    } else {
        r->nrows++;
        if (r->brows > 0 && r->nrows - r->bstart >= r->brows && gen_rd_flush(r) != GENESIS_OK)
            return;
    }
    r->nrecords++;
    r->nf = 0;
}

/* ---- typing and building ---------------------------------------------------------------- */

static int gen_rd_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Number of distinct numeric values among the column's levels, counting at most up to
 * limit + 1. -1 on out of memory. */
static int64_t gen_rd_distinct_numbers(const gen_rd_intern *in, int64_t limit) {
    double *v = gen_calloc((size_t)in->nlv, sizeof *v);
    if (!v) return -1;
    size_t n = 0;
    for (int32_t k = 0; k < in->nlv; k++)
        if (in->lv[k].kind == GEN_LV_NUM) v[n++] = in->lv[k].value;
    qsort(v, n, sizeof *v, gen_rd_cmp_double);
    int64_t d = n ? 1 : 0;
    for (size_t i = 1; i < n && d <= limit; i++)
        if (v[i] != v[i - 1]) d++;
    free(v);
    return d;
}

/* Types column c as a date column when it is one: 1 (gc filled: continuous seconds and the
 * format), 0 (not a date column: typed as usual), -1 (error set: a listed column with a
 * value that does not fit its format). */
static int gen_rd_datetime(gen_reader *r, int c, gen_column *gc) {
    gen_rd_col *rc = &r->cols[c];
    gen_rd_intern *in = &rc->in;
    if (rc->dt_force < 0 || rc->force != 0) return 0;
    gen_dt_format f;
    memset(&f, 0, sizeof f);
    int32_t first = -1;
    for (int32_t k = 0; k < in->nlv && first < 0; k++)
        if (in->lv[k].kind != GEN_LV_MISSING) first = k;
    if (first < 0) return 0;
    if (rc->dt_pattern[0]) {
        memcpy(f.pattern, rc->dt_pattern, sizeof f.pattern);
    } else {
        const gen_rd_level *l = &in->lv[first];
        const char *t = in->arena + l->off;
        size_t tl = l->len;
        gen_rd_trim(&t, &tl);
        if (!gen_dt_detect(t, tl, f.pattern)) {
            if (rc->dt_force <= 0) return 0;
            char val[GEN_RD_SHOW + 8];
            r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                                  "%s:%lld:%d: column \"%s\" is listed as a date column but "
                                  "\"%s\" is not an ISO 8601 date (YYYY-MM-DD, YYYY-MM or "
                                  "YYYY-MM-DDTHH:MM[:SS]) — give its format in `datetime` as "
                                  "\"%s:FORMAT\" (e.g. %%d/%%m/%%Y)",
                                  r->fname, (long long)l->line, c + 1, gc->name,
                                  gen_rd_show(val, sizeof val, in->arena + l->off, l->len),
                                  gc->name);
            return -1;
        }
    }
    int zone_set = 0;
    for (int32_t k = 0; k < in->nlv; k++) {
        gen_rd_level *l = &in->lv[k];
        if (l->kind == GEN_LV_MISSING) continue;
        const char *t = in->arena + l->off;
        size_t tl = l->len;
        gen_rd_trim(&t, &tl);
        double sec = 0;
        int fd = 0, zs = 0, zm = 0;
        const char *why = "";
        int at = gen_dt_parse(f.pattern, t, tl, &sec, &fd, &zs, &zm, &why);
        if (at != 0) {
            if (rc->dt_force <= 0) return 0; /* recognised from the first value only */
            char val[GEN_RD_SHOW + 8];
            r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                                  "%s:%lld:%d: column \"%s\" is a date column (format \"%s\") "
                                  "but \"%s\" does not fit at character %d: %s — fix the "
                                  "value, mark it missing (e.g. NA), give the right format "
                                  "(`datetime` \"%s:FORMAT\"), or drop the column from "
                                  "`datetime`",
                                  r->fname, (long long)l->line, c + 1, gc->name, f.pattern,
                                  gen_rd_show(val, sizeof val, in->arena + l->off, l->len), at,
                                  why, gc->name);
            return -1;
        }
        l->value = sec;
        if (fd > f.frac) f.frac = fd;
        if (!zone_set && zs != GEN_DT_ZONE_NONE) f.zone_style = zs, f.zone_min = zm, zone_set = 1;
    }
    gc->type = GENESIS_COLUMN_CONTINUOUS;
    gc->dt = f;
    gc->is_integer = f.frac == 0;
    gc->decimals = f.frac;
    int32_t n = r->nrows;
    gc->num = malloc((size_t)(n ? n : 1) * sizeof *gc->num);
    if (!gc->num) return gen_rd_nomem(r), -1;
    for (int32_t i = 0; i < n; i++) {
        const gen_rd_level *l = &in->lv[rc->codes[i]];
        gc->num[i] = l->kind == GEN_LV_MISSING ? NAN : l->value;
    }
    free(rc->codes);
    rc->codes = NULL;
    gen_rd_intern_free(in);
    return 1;
}

/* 1 when the column's values, read in row order, are v0, v0 + 1, ..., v0 + n - 1 (a row
 * number), with *v0 the first; every level is a whole number (the caller checked). */
static int gen_rd_counts_rows(const gen_rd_intern *in, const int32_t *codes, int32_t n,
                              int64_t *v0) {
    if (n < 2 || !codes) return 0;
    *v0 = (int64_t)in->lv[codes[0]].value;
    for (int32_t i = 1; i < n; i++)
        if ((int64_t)in->lv[codes[i]].value != *v0 + i) return 0;
    return 1;
}

/* Types column c as an identifier when it is one (idcol.h): 1 (gc filled), 0 (not an id),
 * -1 (error set: a listed column whose values have no shape ids can be written in). */
static int gen_rd_idcol(gen_reader *r, int c, gen_column *gc, int64_t nmiss) {
    gen_rd_col *rc = &r->cols[c];
    gen_rd_intern *in = &rc->in;
    if (rc->id_force < 0 || (rc->id_force == 0 && (rc->force != 0 || rc->dt_force > 0)))
        return 0;
    int named = gen_id_name_like(gc->name);
    int32_t n = r->nrows, ndistinct = 0;
    int unique = nmiss == 0 && n > 0, allint = 1, text = 1, padded = 0, runlen = -1;
    int64_t imax = INT64_MIN, tmax = INT64_MIN;
    gen_id_format f;
    memset(&f, 0, sizeof f);
    const gen_rd_level *bad = NULL;
    for (int32_t k = 0; k < in->nlv; k++) {
        const gen_rd_level *l = &in->lv[k];
        if (l->kind == GEN_LV_MISSING) continue;
        ndistinct++;
        if (l->count > 1) unique = 0;
        if (l->kind == GEN_LV_NUM && l->integral && l->decimals == 0 && fabs(l->value) < 1e15) {
            if ((int64_t)l->value > imax) imax = (int64_t)l->value;
        } else {
            allint = 0;
        }
        const char *t = in->arena + l->off;
        size_t tl = l->len, p0, p1;
        gen_rd_trim(&t, &tl);
        int64_t v;
        if (!text) continue;
        if (!gen_id_split(t, tl, &p0, &p1, &v)) {
            text = 0;
            if (!bad) bad = l;
            continue;
        }
        if (tmax == INT64_MIN) {
            memcpy(f.prefix, t, p0), f.prefix[p0] = 0;
            memcpy(f.suffix, t + p1, tl - p1), f.suffix[tl - p1] = 0;
            runlen = (int)(p1 - p0);
        } else if (strlen(f.prefix) != p0 || memcmp(f.prefix, t, p0) ||
                   strlen(f.suffix) != tl - p1 || memcmp(f.suffix, t + p1, tl - p1)) {
            text = 0;
            if (!bad) bad = l;
            continue;
        }
        if ((int)(p1 - p0) != runlen) runlen = 0;
        if (p1 - p0 > 1 && t[p0] == '0') padded = 1;
        if (v > tmax) tmax = v;
    }
    if (ndistinct == 0) text = allint = 0;
    if (allint && !padded) {
        f.kind = GEN_ID_INTEGER;
        f.start = imax + 1;
        f.prefix[0] = f.suffix[0] = 0;
    } else if (text) {
        f.kind = GEN_ID_TEXT;
        f.start = tmax + 1;
        f.width = padded && runlen > 0 ? runlen : 0;
    }
    if (rc->id_force == 0) {
        if (!unique || n < 10) {
            /* worth a note only when the values could name entities (at most 20 rows
             * each on average): a code with 8 levels named "type_id" is a category */
            if (named && nmiss == 0 && ndistinct >= 20 && (int64_t)ndistinct * 20 >= n &&
                ndistinct < n && n >= 10)
                gen_log(r->ctx, GENESIS_LOG_INFO,
                        "%s: column \"%s\" looks like an identifier but its values repeat "
                        "(%d distinct in %d rows: one id per entity?); it is treated as an "
                        "ordinary column. List it in `id` for a fresh unique value per row, "
                        "or in `not_id` to silence this note",
                        r->fname, gc->name, (int)ndistinct, (int)n);
            return 0;
        }
        if (f.kind == GEN_ID_INTEGER && !named) {
            /* distinct integers are usually a measurement (Adult's fnlwgt), unless they number
             * the rows: v0, v0 + 1, v0 + 2, ... in row order (a row number, an exported
             * index). Such an index is regenerated from the same first value. */
            int64_t v0;
            if (!gen_rd_counts_rows(in, rc->codes, n, &v0)) return 0;
            f.start = v0;
            gen_log(r->ctx, GENESIS_LOG_INFO,
                    "%s: column \"%s\" numbers the rows (%lld, %lld, ... in row order); it is "
                    "an index, written as %lld, %lld, ... and not modelled. List it in `not_id` "
                    "to model it as a number",
                    r->fname, gc->name, (long long)v0, (long long)v0 + 1, (long long)v0,
                    (long long)v0 + 1);
        }
        if (f.kind == GEN_ID_NONE) return 0;
    } else if (f.kind == GEN_ID_NONE) {
        char val[GEN_RD_SHOW + 8];
        const gen_rd_level *l = bad ? bad : &in->lv[0];
        r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                              "%s:%lld:%d: column \"%s\" is listed as an identifier but "
                              "\"%s\" does not fit one shape with the others (an integer, "
                              "or text with one run of digits and the same text around it, "
                              "like C0001) — drop it from `id`",
                              r->fname, (long long)l->line, c + 1, gc->name,
                              gen_rd_show(val, sizeof val, in->arena + l->off, l->len));
        return -1;
    }
    gc->type = GENESIS_COLUMN_CONTINUOUS;
    gc->id = f;
    gc->is_integer = 1;
    gc->decimals = 0;
    gc->nmissing = 0;
    gc->num = calloc((size_t)(n ? n : 1), sizeof *gc->num); /* all 0: nothing to learn */
    if (!gc->num) return gen_rd_nomem(r), -1;
    free(rc->codes);
    rc->codes = NULL;
    gen_rd_intern_free(in);
    return 1;
}

/* The decimals a continuous column is written with: the fewest that print at least 99% of
 * its rows' values as they were read (rows_at[d]: the rows written with d decimals, d = 0..17;
 * the last class: exponent notation or more than 17 digits, printed in the shortest
 * round-trip form, -1). One very precise value among thousands of two-decimal prices does
 * not make every synthetic value print eight decimals; a column where more than 1% of the
 * rows need more keeps them. */
static int gen_rd_typical_decimals(const int64_t *rows_at, int64_t nrows) {
    int64_t covered = 0;
    for (int d = 0; d < GEN_RD_DEC_CLASSES - 1; d++) {
        covered += rows_at[d];
        if (covered * 100 >= nrows * 99) return d;
    }
    return -1;
}

/* Decimal commas. In a file whose delimiter is not ',' (';' where a comma is the decimal
 * mark), a column whose every value is a whole number (12) or a number with one decimal comma
 * (3,14; -0,5), at least one of them with a comma and none with a '.', holds numbers: its
 * comma levels become numbers here, before typing, and the column is written back with a
 * decimal comma. Thousands separators (1.234,56) are not read: such a column stays text.
 * Returns 1 when the column was converted. */
static int gen_rd_decimal_comma(gen_reader *r, gen_rd_col *rc) {
    gen_rd_intern *in = &rc->in;
    if (r->delim == ',' || rc->force == 1 || rc->dt_force > 0 || rc->id_force > 0) return 0;
    int commas = 0;
    for (int32_t k = 0; k < in->nlv; k++) {
        const gen_rd_level *l = &in->lv[k];
        if (l->kind == GEN_LV_MISSING) continue;
        const char *t = in->arena + l->off;
        size_t tl = l->len;
        gen_rd_trim(&t, &tl);
        if (l->kind == GEN_LV_NUM) { /* plain whole numbers only: 12, -3 */
            if (memchr(t, '.', tl) || memchr(t, 'e', tl) || memchr(t, 'E', tl)) return 0;
            continue;
        }
        size_t i = 0, intd = 0, fracd = 0;
        if (i < tl && (t[i] == '+' || t[i] == '-')) i++;
        while (i < tl && t[i] >= '0' && t[i] <= '9') i++, intd++;
        if (i == tl || t[i] != ',') return 0;
        i++;
        while (i < tl && t[i] >= '0' && t[i] <= '9') i++, fracd++;
        if (i != tl || intd == 0 || fracd == 0 || fracd > 17 || intd + fracd > 300) return 0;
        commas++;
    }
    if (!commas) return 0;
    for (int32_t k = 0; k < in->nlv; k++) {
        gen_rd_level *l = &in->lv[k];
        if (l->kind != GEN_LV_TEXT) continue;
        const char *t = in->arena + l->off;
        size_t tl = l->len;
        gen_rd_trim(&t, &tl);
        char num[320];
        memcpy(num, t, tl);
        num[tl] = 0;
        char *comma = strchr(num, ',');
        *comma = '.';
        double v = 0;
        int integral = 0, decimals = 0;
        int kind = gen_rd_classify(num, tl, &v, &integral, &decimals);
        l->kind = (int8_t)kind;
        if (kind == GEN_LV_NUM) {
            l->value = v;
            l->integral = (int8_t)integral;
            l->decimals = (int8_t)decimals;
        }
    }
    return 1;
}

static genesis_status gen_rd_build_column(gen_reader *r, int c, gen_column *gc) {
    gen_rd_col *rc = &r->cols[c];
    gen_rd_intern *in = &rc->in;
    gc->decimal_comma = gen_rd_decimal_comma(r, rc);
    int64_t nmiss = 0;
    int32_t best_na = -1, first_bad = -1, nonmiss = 0;
    for (int32_t k = 0; k < in->nlv; k++) {
        const gen_rd_level *l = &in->lv[k];
        if (l->kind == GEN_LV_MISSING) {
            nmiss += l->count;
            if (best_na < 0 || l->count > in->lv[best_na].count) best_na = k;
        } else {
            nonmiss++;
            if (l->kind != GEN_LV_NUM && first_bad < 0) first_bad = k;
        }
    }
    gc->name = r->names[c];
    r->names[c] = NULL;
    gc->nmissing = nmiss;
    gc->na_text = gen_strdup(best_na >= 0 ? in->arena + in->lv[best_na].off : "");
    if (!gc->na_text) return gen_rd_nomem(r);
    if (nonmiss > 0 && (first_bad >= 0 || rc->dt_force > 0)) {
        /* recognition needs text (numbers alone are never dates); a listed column may hold
         * digits only (20240131 with %Y%m%d) */
        int dt = gen_rd_datetime(r, c, gc);
        if (dt < 0) return r->st;
        if (dt > 0) return GENESIS_OK;
    }
    if (nonmiss > 0) {
        int idr = gen_rd_idcol(r, c, gc, nmiss);
        if (idr < 0) return r->st;
        if (idr > 0) return GENESIS_OK;
    }

    int continuous = 0;
    if (nonmiss == 0) {
        if (rc->force == 2)
            gen_log(r->ctx, GENESIS_LOG_WARN,
                    "%s: column \"%s\" has no values at all; it is kept as an empty "
                    "categorical column although it was listed as continuous",
                    r->fname, gc->name);
    } else if (rc->force == 2) {
        if (first_bad >= 0) {
            const gen_rd_level *l = &in->lv[first_bad];
            char val[GEN_RD_SHOW + 8];
            gen_rd_show(val, sizeof val, in->arena + l->off, l->len);
            const char *why = l->kind == GEN_LV_INF    ? "is infinite"
                              : l->kind == GEN_LV_HUGE ? "is too large for a double"
                                                       : "is not a number";
            r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                                  "%s:%lld:%d: column \"%s\" is listed as continuous but "
                                  "\"%s\" %s — fix the value, mark it missing (e.g. NA), or "
                                  "drop the column from the continuous list",
                                  r->fname, (long long)l->line, c + 1, gc->name, val, why);
            return r->st;
        }
        continuous = 1;
    } else if (rc->force == 0 && first_bad < 0 && nonmiss > r->max_categories) {
        int64_t d = gen_rd_distinct_numbers(in, r->max_categories);
        if (d < 0) return gen_rd_nomem(r);
        continuous = d > r->max_categories && !rc->family_cat;
    }

    int32_t n = r->nrows;
    if (continuous) {
        gc->type = GENESIS_COLUMN_CONTINUOUS;
        gc->num = malloc((size_t)n * sizeof *gc->num);
        if (!gc->num) return gen_rd_nomem(r);
        int integral = 1;
        int64_t rows_at[GEN_RD_DEC_CLASSES] = {0}, nnum = 0;
        for (int32_t k = 0; k < in->nlv; k++) {
            const gen_rd_level *l = &in->lv[k];
            if (l->kind != GEN_LV_NUM) continue;
            if (!l->integral) integral = 0;
            rows_at[l->decimals < 0 ? GEN_RD_DEC_CLASSES - 1 : l->decimals] += l->count;
            nnum += l->count;
        }
        gc->is_integer = integral;
        gc->decimals = gen_rd_typical_decimals(rows_at, nnum);
        for (int32_t i = 0; i < n; i++) {
            const gen_rd_level *l = &in->lv[rc->codes[i]];
            gc->num[i] = l->kind == GEN_LV_MISSING ? NAN : l->value;
        }
        free(rc->codes);
        rc->codes = NULL;
    } else {
        gc->type = GENESIS_COLUMN_CATEGORICAL;
        int32_t *map = malloc((size_t)(in->nlv ? in->nlv : 1) * sizeof *map);
        gc->levels = gen_calloc((size_t)(nonmiss ? nonmiss : 1), sizeof *gc->levels);
        if (!map || !gc->levels) {
            free(map);
            return gen_rd_nomem(r);
        }
        int32_t nl = 0;
        for (int32_t k = 0; k < in->nlv; k++) {
            const gen_rd_level *l = &in->lv[k];
            if (l->kind == GEN_LV_MISSING) {
                map[k] = -1;
                continue;
            }
            char *s = malloc((size_t)l->len + 1);
            if (!s) {
                free(map);
                gc->nlevels = nl;
                return gen_rd_nomem(r);
            }
            memcpy(s, in->arena + l->off, (size_t)l->len + 1);
            gc->levels[nl] = s;
            map[k] = nl++;
        }
        gc->nlevels = nl;
        for (int32_t i = 0; i < n; i++) rc->codes[i] = map[rc->codes[i]];
        free(map);
        int32_t *shrunk = realloc(rc->codes, (size_t)n * sizeof *shrunk);
        gc->cat = shrunk ? shrunk : rc->codes;
        rc->codes = NULL;
    }
    gen_rd_intern_free(in);
    return GENESIS_OK;
}

/* Families of integer codes. Columns whose names differ only in a trailing number (PAY_0,
 * PAY_2, ..., PAY_6) and that hold whole numbers only are usually one code measured several
 * times; the distinct-count rule alone can type some of them categorical (10 levels or fewer)
 * and the others continuous (11), so that one code is modelled two ways and the continuous
 * members produce values that never occur. When such a family has members of both kinds and
 * none has more than twice the categorical limit of distinct values, all are categorical,
 * and a note says so. Columns with a type given by the user keep it. */
typedef struct {
    const char *name;
    int col;
    size_t stem;   /* the name's length without its trailing digits */
    int64_t ndistinct;
} gen_rd_member;

static int gen_rd_cmp_member(const void *a, const void *b) {
    const gen_rd_member *x = a, *y = b;
    size_t n = x->stem < y->stem ? x->stem : y->stem;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    if (x->stem != y->stem) return x->stem < y->stem ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

static genesis_status gen_rd_families(gen_reader *r) {
    int64_t limit = 2 * (int64_t)r->max_categories;
    if (!r->has_header) return GENESIS_OK; /* col1, col2, ...: the reader's numbering */
    gen_rd_member *m = gen_calloc((size_t)(r->ncols ? r->ncols : 1), sizeof *m);
    if (!m) return gen_rd_nomem(r);
    int nm = 0;
    for (int c = 0; c < r->ncols; c++) {
        const gen_rd_col *rc = &r->cols[c];
        const char *name = r->names[c];
        size_t len = strlen(name), stem = len;
        while (stem > 0 && name[stem - 1] >= '0' && name[stem - 1] <= '9') stem--;
        if (stem == len || stem == 0 || rc->force != 0 || rc->dt_force > 0 || rc->id_force > 0)
            continue;
        int codes = 0;
        for (int32_t k = 0; k < rc->in.nlv; k++) {
            const gen_rd_level *l = &rc->in.lv[k];
            if (l->kind == GEN_LV_MISSING) continue;
            if (l->kind != GEN_LV_NUM || !l->integral || l->decimals != 0) {
                codes = 0;
                break;
            }
            codes = 1;
        }
        if (!codes) continue;
        int64_t d = gen_rd_distinct_numbers(&rc->in, limit);
        if (d < 0) {
            free(m);
            return gen_rd_nomem(r);
        }
        if (d <= limit) m[nm++] = (gen_rd_member){name, c, stem, d};
    }
    qsort(m, (size_t)nm, sizeof *m, gen_rd_cmp_member);
    for (int a = 0, b; a < nm; a = b) {
        int few = 0, many = 0;
        for (b = a; b < nm && m[b].stem == m[a].stem &&
                    !memcmp(m[b].name, m[a].name, m[a].stem); b++) {
            if (m[b].ndistinct > r->max_categories) many++;
            else few++;
        }
        if (!few || !many) continue;
        char list[512] = "";
        size_t used = 0;
        for (int k = a; k < b; k++) {
            if (m[k].ndistinct > r->max_categories) r->cols[m[k].col].family_cat = 1;
            if (used < sizeof list - 1)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                                         k > a ? ", " : "", m[k].name);
        }
        gen_log(r->ctx, GENESIS_LOG_INFO,
                "%s: columns %s hold whole-number codes of one family (%.*s*, at most %lld "
                "distinct values each); all are categorical, so that the family is modelled "
                "one way. List them as continuous to model them as numbers",
                r->fname, list, (int)m[a].stem, m[a].name, (long long)limit);
    }
    free(m);
    return GENESIS_OK;
}

static genesis_status gen_rd_build(gen_reader *r, const char *path, genesis_table **out) {
    genesis_table *t = calloc(1, sizeof *t);
    if (!t) return gen_rd_nomem(r);
    t->cols = gen_calloc((size_t)r->ncols, sizeof *t->cols);
    t->source = gen_strdup(path);
    if (!t->cols || !t->source) {
        gen_table_destroy(t);
        return gen_rd_nomem(r);
    }
    t->ncols = r->ncols;
    t->nrows = r->nrows;
    t->delimiter = r->delim;
    if (gen_rd_families(r) != GENESIS_OK) {
        gen_table_destroy(t);
        return r->st;
    }
    for (int c = 0; c < r->ncols; c++) {
        if (gen_rd_build_column(r, c, &t->cols[c]) != GENESIS_OK) {
            gen_table_destroy(t);
            return r->st;
        }
    }
    *out = t;
    return GENESIS_OK;
}

static void gen_rd_free(gen_reader *r) {
    for (int k = 0; k < r->nfirst; k++) free(r->first[k]);
    free(r->first);
    free(r->first_len);
    for (int c = 0; c < r->ncols; c++) {
        if (r->names) free(r->names[c]);
        if (r->cols) {
            gen_rd_intern_free(&r->cols[c].in);
            free(r->cols[c].codes);
        }
    }
    free(r->names);
    free(r->cols);
    free(r->tok);
    free(r->tokbuf);
    free(r->bbuf);
    free(r->bcell);
    free(r->bfail);
}

/* The delimiter of the header line: the candidate seen most often outside quotes. */
static char gen_rd_sniff(const char *s, size_t n) {
    static const char cand[4] = {',', ';', '\t', '|'};
    size_t cnt[4] = {0, 0, 0, 0};
    int inq = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '"') {
            inq = !inq;
        } else if (!inq) {
            if (ch == '\n' || ch == '\r') break;
            for (int k = 0; k < 4; k++)
                if (ch == cand[k]) cnt[k]++;
        }
    }
    int best = 0;
    for (int k = 1; k < 4; k++)
        if (cnt[k] > cnt[best]) best = k;
    return cand[best];
}

/* Feeds one buffer to libcsv, one physical line per call. */
static genesis_status gen_rd_feed(gen_reader *r, struct csv_parser *p, const char *buf,
                                  size_t n) {
    const char *s = buf, *end = buf + n;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t m = nl ? (size_t)(nl + 1 - s) : (size_t)(end - s);
        size_t done = csv_parse(p, s, m, gen_rd_on_field, gen_rd_on_row, r);
        if (r->st != GENESIS_OK) return r->st;
        if (done != m) {
            int e = csv_error(p);
            if (e == CSV_ENOMEM) return gen_rd_nomem(r);
            if (e == CSV_EPARSE)
                r->st = gen_set_error(r->ctx, GENESIS_ERR_PARSE,
                                      "%s:%lld:%lld: stray quote: a '\"' inside a field that "
                                      "is not quoted, or text after a closing quote — quote "
                                      "the whole field and double the quotes inside (\"\")",
                                      r->fname, (long long)r->line, (long long)r->nf + 1);
            else
                r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA, "%s:%lld:%lld: %s",
                                      r->fname, (long long)r->line, (long long)r->nf + 1,
                                      csv_strerror(e));
            return r->st;
        }
        if (nl) r->line++; /* before the check: a quoted field may hold this newline */
        if (p->entry_pos > GEN_RD_MAX_FIELD) {
            r->st = gen_set_error(r->ctx, GENESIS_ERR_DATA,
                                  "%s:%lld:%lld: a field longer than the 1 MiB limit starts "
                                  "here — check for an unbalanced quote, or shorten the value",
                                  r->fname,
                                  (long long)(r->line - gen_rd_count_nl((const char *)p->entry_buf,
                                                                        p->entry_pos)),
                                  (long long)r->nf + 1);
            return r->st;
        }
        s += m;
    }
    return GENESIS_OK;
}

genesis_status gen_table_read_csv(genesis_ctx *ctx, const char *path,
                                  const genesis_csv_options *opts, genesis_table **out) {
    if (!out) return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG, "read_csv: out is NULL");
    *out = NULL;
    GEN_RETURN_IF(!path || !path[0], ctx, GENESIS_ERR_INVALID_ARG,
                  "no input file given — pass a CSV file name, or \"-\" for stdin");
    if (opts) {
        GEN_RETURN_IF(opts->struct_size < sizeof *opts, ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: CSV options were not initialised — call genesis_csv_options_init "
                      "first",
                      path);
        GEN_RETURN_IF(opts->delimiter == '"' || opts->delimiter == '\n' ||
                          opts->delimiter == '\r',
                      ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: the delimiter cannot be a quote or a line break — use e.g. ',' ';' "
                      "or '\\t'",
                      path);
        GEN_RETURN_IF(opts->max_categories < 0, ctx, GENESIS_ERR_INVALID_ARG,
                      "%s: max_categories must be 0 (default 10) or more, got %d", path,
                      opts->max_categories);
    }
    int is_stdin = strcmp(path, "-") == 0;
    gen_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.fname = is_stdin ? "<stdin>" : path;
    r.opts = opts;
    r.has_header = opts ? (opts->has_header != 0) : 1;
    r.max_categories = (opts && opts->max_categories > 0) ? opts->max_categories : 10;
    r.line = 1;

    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) {
        int e = errno;
        return gen_set_error(ctx, GENESIS_ERR_IO, "%s: cannot open: %s — check the path and "
                             "its permissions", path, strerror(e));
    }
    char *buf = malloc(GEN_RD_CHUNK);
    struct csv_parser parser;
    int parser_ok = 0;
    if (!buf || gen_rd_tokens(&r, opts ? opts->na_tokens : NULL) != GENESIS_OK) {
        gen_rd_nomem(&r);
        goto done;
    }
    size_t n = fread(buf, 1, GEN_RD_CHUNK, fp);
    size_t off = 0;
    if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) off = 3;
    r.delim = (opts && opts->delimiter) ? opts->delimiter : gen_rd_sniff(buf + off, n - off);
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        gen_rd_nomem(&r);
        goto done;
    }
    parser_ok = 1;
    csv_set_space_func(&parser, gen_rd_no_space);
    csv_set_delim(&parser, (unsigned char)r.delim);
    csv_set_blk_size(&parser, 16384);
    for (;;) {
        if (ferror(fp)) {
            int e = errno;
            r.st = gen_set_error(ctx, GENESIS_ERR_IO, "%s:%lld: read error: %s — check the "
                                 "file and the disk", r.fname, (long long)r.line, strerror(e));
            goto done;
        }
        if (n == 0) break;
        if (gen_rd_feed(&r, &parser, buf + off, n - off) != GENESIS_OK) goto done;
        off = 0;
        n = fread(buf, 1, GEN_RD_CHUNK, fp);
    }
    if (csv_fini(&parser, gen_rd_on_field, gen_rd_on_row, &r) != 0 && r.st == GENESIS_OK) {
        int64_t start = r.line - gen_rd_count_nl((const char *)parser.entry_buf,
                                                 parser.entry_buf ? parser.entry_pos : 0);
        r.st = gen_set_error(ctx, GENESIS_ERR_PARSE,
                             "%s:%lld:%lld: unterminated quote: the quoted field that starts "
                             "here never ends — close the quote, and double quotes inside "
                             "a field (\"\")",
                             r.fname, (long long)start, (long long)r.nf + 1);
    }
    if (r.st != GENESIS_OK || gen_rd_flush(&r) != GENESIS_OK) goto done;
    if (r.nrecords == 0) {
        r.st = gen_set_error(ctx, GENESIS_ERR_DATA,
                             "%s: file is empty — give a CSV file with a header line and data "
                             "rows", r.fname);
        goto done;
    }
    if (r.nrows == 0) {
        r.st = gen_set_error(ctx, GENESIS_ERR_DATA,
                             "%s:%lld: the file has a header line but no data rows — add "
                             "rows below the header",
                             r.fname, (long long)r.rec_line);
        goto done;
    }
    gen_rd_build(&r, path, out);
done:
    if (parser_ok) csv_free(&parser);
    free(buf);
    if (!is_stdin) fclose(fp);
    gen_rd_free(&r);
    return r.st;
}

/* ---- table ----------------------------------------------------------------------------- */

void gen_table_destroy(genesis_table *t) {
    if (!t) return;
    if (t->cols) {
        for (int c = 0; c < t->ncols; c++) {
            gen_column *col = &t->cols[c];
            free(col->name);
            free(col->num);
            free(col->cat);
            if (col->levels)
                for (int32_t k = 0; k < col->nlevels; k++) free(col->levels[k]);
            free(col->levels);
            free(col->na_text);
        }
    }
    free(t->cols);
    free(t->source);
    free(t);
}

int gen_table_find_column(const genesis_table *t, const char *name) {
    if (!t || !name) return -1;
    for (int c = 0; c < t->ncols; c++)
        if (t->cols[c].name && strcmp(t->cols[c].name, name) == 0) return c;
    return -1;
}
