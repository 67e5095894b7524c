/*
 * model_io.c — reading and writing .gen model files (layout in docs/file-format.md).
 * Defences, following what safetensors and GGUF's CVE history teach (docs/algorithms.md
 * §D1): the file size must equal header + payload + checksum exactly; the CRC-32 (zlib) is
 * checked before any field is parsed; every count is bounded and checked against the bytes
 * left before allocation; every index read from the file is range-checked against the
 * structures it points into; weights must be finite. Files from a newer format version are
 * refused with GENESIS_ERR_VERSION. A checkpoint's training-state section, after the model
 * section, is written and read here too (what it holds: src/model/checkpoint.c).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "model.h"
#include "model_io.h"
#include "quantile.h"
#include "registry.h"
#include "table.h"

/* ---- writer --------------------------------------------------------------------------- */

/* n more bytes at the end of b, to be filled by the caller; NULL (and b->oom) when out of
 * memory */
static unsigned char *wr_reserve(gen_bytes *b, size_t n) {
    if (b->oom) return NULL;
    if (n > SIZE_MAX / 2 - b->len) {
        b->oom = 1;
        return NULL;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    unsigned char *d = b->p + b->len;
    b->len += n;
    return d;
}

static void wr_bytes(gen_bytes *b, const void *p, size_t n) {
    unsigned char *d = wr_reserve(b, n);
    if (d && n) memcpy(d, p, n);
}

void gen_wr_raw(gen_bytes *b, const void *p, size_t n) { wr_bytes(b, p, n); }

void gen_wr_u32(gen_bytes *b, uint32_t v) {
    unsigned char t[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    wr_bytes(b, t, 4);
}
void gen_wr_u64(gen_bytes *b, uint64_t v) {
    gen_wr_u32(b, (uint32_t)v);
    gen_wr_u32(b, (uint32_t)(v >> 32));
}
void gen_wr_f64(gen_bytes *b, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    gen_wr_u64(b, u);
}
void gen_wr_f32s(gen_bytes *b, const float *v, size_t n) {
    /* one reservation for the whole array (a checkpoint holds hundreds of MB of floats) */
    if (n == 0 || b->oom) return;
    unsigned char *d = n <= SIZE_MAX / 8 ? wr_reserve(b, 4 * n) : NULL;
    if (!d) {
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        d[4 * i] = (unsigned char)u;
        d[4 * i + 1] = (unsigned char)(u >> 8);
        d[4 * i + 2] = (unsigned char)(u >> 16);
        d[4 * i + 3] = (unsigned char)(u >> 24);
    }
}
void gen_wr_f64s(gen_bytes *b, const double *v, size_t n) {
    for (size_t i = 0; i < n; i++) gen_wr_f64(b, v[i]);
}
void gen_wr_str(gen_bytes *b, const char *s) {
    if (!s) {
        gen_wr_u32(b, 0xFFFFFFFFu);
        return;
    }
    size_t n = strlen(s);
    gen_wr_u32(b, (uint32_t)n);
    wr_bytes(b, s, n);
}

/* ---- reader --------------------------------------------------------------------------- */

genesis_status gen_rd_fail(gen_reader *r, const char *what) {
    r->failed = 1;
    return gen_set_error(r->ctx, GENESIS_ERR_MODEL_FORMAT,
                         "%s: corrupted model file: %s (at byte %zu); re-create it with "
                         "`genesis_model_save`",
                         r->path, what, r->pos + GEN_FILE_HEADER);
}

static genesis_status rd_need(gen_reader *r, size_t n) {
    if (r->failed) return GENESIS_ERR_MODEL_FORMAT;
    if (n > r->len - r->pos) return gen_rd_fail(r, "a field extends past the end of the file");
    return GENESIS_OK;
}

genesis_status gen_rd_u32(gen_reader *r, uint32_t *v) {
    GEN_TRY(rd_need(r, 4));
    const unsigned char *p = r->p + r->pos;
    *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    r->pos += 4;
    return GENESIS_OK;
}
genesis_status gen_rd_u64(gen_reader *r, uint64_t *v) {
    uint32_t lo, hi;
    GEN_TRY(gen_rd_u32(r, &lo));
    GEN_TRY(gen_rd_u32(r, &hi));
    *v = (uint64_t)hi << 32 | lo;
    return GENESIS_OK;
}
genesis_status gen_rd_f64(gen_reader *r, double *v) {
    uint64_t u;
    GEN_TRY(gen_rd_u64(r, &u));
    memcpy(v, &u, 8);
    return GENESIS_OK;
}
genesis_status gen_rd_count(gen_reader *r, uint32_t lo, uint32_t hi, const char *what, int *v) {
    uint32_t u;
    GEN_TRY(gen_rd_u32(r, &u));
    if (u < lo || u > hi) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s %u is outside [%u, %u]", what, u, lo, hi);
        return gen_rd_fail(r, msg);
    }
    *v = (int)u;
    return GENESIS_OK;
}
genesis_status gen_rd_f32s(gen_reader *r, float *v, size_t n) {
    if (n > (r->len - r->pos) / 4) return gen_rd_fail(r, "an array extends past the end of the file");
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        GEN_TRY(gen_rd_u32(r, &u));
        memcpy(&v[i], &u, 4);
    }
    return GENESIS_OK;
}
genesis_status gen_rd_f64s(gen_reader *r, double *v, size_t n) {
    if (n > (r->len - r->pos) / 8) return gen_rd_fail(r, "an array extends past the end of the file");
    for (size_t i = 0; i < n; i++) GEN_TRY(gen_rd_f64(r, &v[i]));
    return GENESIS_OK;
}
genesis_status gen_rd_str(gen_reader *r, char **s) {
    uint32_t n;
    *s = NULL;
    GEN_TRY(gen_rd_u32(r, &n));
    if (n == 0xFFFFFFFFu) return GENESIS_OK;
    if (n > GEN_MAX_STRING) return gen_rd_fail(r, "a string is longer than 1 MiB");
    GEN_TRY(rd_need(r, n));
    char *p = malloc((size_t)n + 1);
    if (!p) return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
    memcpy(p, r->p + r->pos, n);
    p[n] = 0;
    if (memchr(p, 0, n)) {
        free(p);
        return gen_rd_fail(r, "a string contains a NUL byte");
    }
    r->pos += n;
    *s = p;
    return GENESIS_OK;
}

/* ---- transformer ---------------------------------------------------------------------- */

/* Version 3 (GEN_FILE_VERSION_ROLES): the column roles after the last column record, one per column: u32 role (0
 * none, 1 date, 2 identifier); a date: str pattern, u32 frac, u32 zone style, u32 zone
 * offset minutes + 1440; an identifier: u32 kind, str prefix, str suffix, u32 width,
 * u64 start. */
static void gen_roles_save(const gen_transformer *tf, gen_bytes *b) {
    for (int c = 0; c < tf->ncols; c++) {
        const gen_dt_format *f = &tf->cols[c].dt;
        const gen_id_format *id = &tf->cols[c].id;
        if (id->kind != GEN_ID_NONE) {
            gen_wr_u32(b, 2u);
            gen_wr_u32(b, (uint32_t)id->kind);
            gen_wr_str(b, id->prefix);
            gen_wr_str(b, id->suffix);
            gen_wr_u32(b, (uint32_t)id->width);
            gen_wr_u64(b, (uint64_t)id->start);
            continue;
        }
        gen_wr_u32(b, f->pattern[0] ? 1u : 0u);
        if (f->pattern[0]) gen_dt_save(f, b);
    }
}

void gen_dt_save(const gen_dt_format *f, gen_bytes *b) {
    gen_wr_str(b, f->pattern);
    gen_wr_u32(b, (uint32_t)f->frac);
    gen_wr_u32(b, (uint32_t)f->zone_style);
    gen_wr_u32(b, (uint32_t)(f->zone_min + 1440));
}

genesis_status gen_dt_load(gen_dt_format *f, gen_reader *r) {
    int frac = 0, zs = 0, zm = 0;
    char *pat = NULL, why[160];
    GEN_TRY(gen_rd_str(r, &pat));
    if (!pat || gen_dt_pattern_check(pat, why, sizeof why) != 0) {
        free(pat);
        return gen_rd_fail(r, "a date column has an invalid format");
    }
    memcpy(f->pattern, pat, strlen(pat) + 1);
    free(pat);
    GEN_TRY(gen_rd_count(r, 0, 9, "date fraction digits", &frac));
    GEN_TRY(gen_rd_count(r, 0, GEN_DT_ZONE_PLAIN, "date zone style", &zs));
    GEN_TRY(gen_rd_count(r, 1, 2879, "date zone offset", &zm));
    f->frac = frac;
    f->zone_style = zs;
    f->zone_min = zm - 1440;
    return GENESIS_OK;
}

static genesis_status gen_roles_load(gen_transformer *tf, gen_reader *r) {
    for (int c = 0; c < tf->ncols; c++) {
        gen_col_transform *ct = &tf->cols[c];
        int role = 0;
        GEN_TRY(gen_rd_count(r, 0, 2, "column role", &role));
        if (!role) continue;
        if (role == 2) {
            gen_id_format *id = &ct->id;
            char *pre = NULL, *suf = NULL;
            int kind = 0, width = 0;
            uint64_t start = 0;
            if (ct->type != GENESIS_COLUMN_CONTINUOUS)
                return gen_rd_fail(r, "an identifier column is not continuous");
            GEN_TRY(gen_rd_count(r, 1, 2, "identifier kind", &kind));
            GEN_TRY(gen_rd_str(r, &pre));
            genesis_status st = gen_rd_str(r, &suf);
            if (st == GENESIS_OK && (!pre || !suf || strlen(pre) >= GEN_ID_AFFIX ||
                                     strlen(suf) >= GEN_ID_AFFIX))
                st = gen_rd_fail(r, "an identifier's prefix or suffix is invalid");
            if (st == GENESIS_OK) {
                memcpy(id->prefix, pre, strlen(pre) + 1);
                memcpy(id->suffix, suf, strlen(suf) + 1);
            }
            free(pre);
            free(suf);
            GEN_TRY(st);
            GEN_TRY(gen_rd_count(r, 0, 15, "identifier width", &width));
            GEN_TRY(gen_rd_u64(r, &start));
            if ((int64_t)start < -(int64_t)1e15 || (int64_t)start > (int64_t)1e15 + 1)
                return gen_rd_fail(r, "an identifier's first number is out of range");
            id->kind = kind;
            id->width = width;
            id->start = (int64_t)start;
            continue;
        }
        if (ct->type != GENESIS_COLUMN_CONTINUOUS) return gen_rd_fail(r, "a date column is not continuous");
        GEN_TRY(gen_dt_load(&ct->dt, r));
    }
    return GENESIS_OK;
}

/* Version 5 (GEN_FILE_VERSION_QUANTILE), written only when a column is normalised by its
 * quantiles: after the roles, per continuous column u32 N (0: none; else 2..1000) and N f64
 * quantiles, non-decreasing, finite, first below last; such a column has exactly one mode. */
int gen_transformer_has_quantiles(const gen_transformer *tf) {
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].n_quantiles) return 1;
    return 0;
}

static void gen_quantiles_save(const gen_transformer *tf, gen_bytes *b) {
    for (int c = 0; c < tf->ncols; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        if (ct->type != GENESIS_COLUMN_CONTINUOUS) continue;
        gen_wr_u32(b, (uint32_t)ct->n_quantiles);
        gen_wr_f64s(b, ct->quantiles, (size_t)ct->n_quantiles);
    }
}

/* Version 6 (GEN_FILE_VERSION_DECIMAL_COMMA), written only when a column's numbers are
 * written with a decimal comma (a ';' file's 3,14): after the quantile section (then always
 * present, with 0 for a column without a map), per continuous column u32 0 ('.') or 1 (','). */
int gen_transformer_has_decimal_comma(const gen_transformer *tf) {
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS && tf->cols[c].decimal_comma) return 1;
    return 0;
}

static void gen_decimal_marks_save(const gen_transformer *tf, gen_bytes *b) {
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS)
            gen_wr_u32(b, (uint32_t)tf->cols[c].decimal_comma);
}

static genesis_status gen_decimal_marks_load(gen_transformer *tf, gen_reader *r) {
    for (int c = 0; c < tf->ncols; c++)
        if (tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS)
            GEN_TRY(gen_rd_count(r, 0, 1, "decimal mark", &tf->cols[c].decimal_comma));
    return GENESIS_OK;
}

static genesis_status gen_quantiles_load(gen_transformer *tf, gen_reader *r) {
    for (int c = 0; c < tf->ncols; c++) {
        gen_col_transform *ct = &tf->cols[c];
        if (ct->type != GENESIS_COLUMN_CONTINUOUS) continue;
        int nq = 0;
        GEN_TRY(gen_rd_count(r, 0, GEN_QUANTILES_MAX, "quantile count", &nq));
        if (nq == 0) continue;
        if (nq < 2) return gen_rd_fail(r, "a quantile map has fewer than 2 quantiles");
        if (ct->n_modes != 1 || ct->id.kind != GEN_ID_NONE)
            return gen_rd_fail(r, "a quantile-normalised column does not have exactly one mode");
        if ((size_t)nq * 8 > r->len - r->pos) return gen_rd_fail(r, "a quantile map is truncated");
        ct->quantiles = malloc((size_t)nq * sizeof *ct->quantiles);
        if (!ct->quantiles) return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
        ct->n_quantiles = nq;
        GEN_TRY(gen_rd_f64s(r, ct->quantiles, (size_t)nq));
        for (int k = 0; k < nq; k++)
            if (!isfinite(ct->quantiles[k]) || (k > 0 && ct->quantiles[k] < ct->quantiles[k - 1]))
                return gen_rd_fail(r, "a quantile map is not finite and non-decreasing");
        if (!(ct->quantiles[0] < ct->quantiles[nq - 1]))
            return gen_rd_fail(r, "a quantile map has no spread");
    }
    return GENESIS_OK;
}

/* all: write every optional section (a version 7 file, whose reader expects them all) */
static genesis_status transformer_save(const gen_transformer *tf, gen_bytes *b, int all);

genesis_status gen_transformer_save(const gen_transformer *tf, gen_bytes *b) {
    return transformer_save(tf, b, 0);
}

static genesis_status transformer_save(const gen_transformer *tf, gen_bytes *b, int all) {
    gen_wr_u32(b, (uint32_t)(unsigned char)tf->delimiter);
    gen_wr_u32(b, (uint32_t)tf->clamp_range);
    gen_wr_u32(b, (uint32_t)tf->data_dim);
    gen_wr_u32(b, (uint32_t)tf->nspans);
    for (int i = 0; i < tf->nspans; i++) {
        gen_wr_u32(b, (uint32_t)tf->spans[i].start);
        gen_wr_u32(b, (uint32_t)tf->spans[i].len);
        gen_wr_u32(b, (uint32_t)tf->spans[i].kind);
        gen_wr_u32(b, (uint32_t)tf->spans[i].column);
    }
    gen_wr_u32(b, (uint32_t)tf->ncols);
    for (int c = 0; c < tf->ncols; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        gen_wr_str(b, ct->name);
        gen_wr_u32(b, (uint32_t)ct->type);
        gen_wr_u32(b, (uint32_t)ct->span_first);
        gen_wr_u32(b, (uint32_t)ct->nspans);
        gen_wr_u32(b, (uint32_t)ct->offset);
        gen_wr_u32(b, (uint32_t)ct->width);
        gen_wr_str(b, ct->na_text);
        if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
            gen_wr_u32(b, (uint32_t)ct->n_modes);
            gen_wr_f64s(b, ct->mode_mean, (size_t)ct->n_modes);
            gen_wr_f64s(b, ct->mode_std, (size_t)ct->n_modes);
            gen_wr_f64s(b, ct->mode_weight, (size_t)ct->n_modes);
            gen_wr_u32(b, (uint32_t)ct->n_points);
            gen_wr_f64s(b, ct->point_value, (size_t)ct->n_points);
            gen_wr_u32(b, (uint32_t)ct->has_null);
            gen_wr_f64(b, ct->min);
            gen_wr_f64(b, ct->max);
            gen_wr_u32(b, (uint32_t)ct->is_integer);
            gen_wr_u32(b, (uint32_t)(ct->decimals + 1));
        } else {
            gen_wr_u32(b, (uint32_t)ct->n_slots);
            for (int k = 0; k < ct->n_slots; k++) gen_wr_str(b, ct->slot_text[k]);
            gen_wr_u32(b, (uint32_t)(ct->missing_slot + 1));
            gen_wr_u32(b, (uint32_t)(ct->rare_slot + 1));
            gen_wr_u32(b, (uint32_t)ct->n_rare);
            for (int k = 0; k < ct->n_rare; k++) gen_wr_str(b, ct->rare_text[k]);
            gen_wr_f64s(b, ct->rare_cdf, (size_t)ct->n_rare);
        }
    }
    gen_roles_save(tf, b);
    int comma = all || gen_transformer_has_decimal_comma(tf);
    if (comma || gen_transformer_has_quantiles(tf)) gen_quantiles_save(tf, b);
    if (comma) gen_decimal_marks_save(tf, b);
    return GENESIS_OK;
}

/* Reads an index stored as value+1 (so -1 is 0) and checks it against [-1, hi). */
static genesis_status rd_index(gen_reader *r, int hi, const char *what, int *v) {
    int u = 0;
    GEN_TRY(gen_rd_count(r, 0, (uint32_t)hi, what, &u));
    *v = u - 1;
    return GENESIS_OK;
}

genesis_status gen_transformer_load(gen_transformer *tf, gen_reader *r) {
    memset(tf, 0, sizeof *tf);
    int delim, clamp;
    GEN_TRY(gen_rd_count(r, 1, 255, "delimiter", &delim));
    GEN_TRY(gen_rd_count(r, 0, 1, "clamp flag", &clamp));
    tf->delimiter = (char)delim;
    tf->clamp_range = clamp;
    GEN_TRY(gen_rd_count(r, 1, 1u << 24, "encoded width", &tf->data_dim));
    GEN_TRY(gen_rd_count(r, 1, 1u << 22, "span count", &tf->nspans));
    if ((size_t)tf->nspans * 16 > r->len - r->pos) return gen_rd_fail(r, "span table is truncated");
    tf->spans = calloc((size_t)tf->nspans, sizeof *tf->spans);
    if (!tf->spans) return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
    int pos = 0;
    for (int i = 0; i < tf->nspans; i++) {
        gen_span *s = &tf->spans[i];
        int kind;
        GEN_TRY(gen_rd_count(r, 0, (uint32_t)tf->data_dim, "span start", &s->start));
        GEN_TRY(gen_rd_count(r, 1, (uint32_t)tf->data_dim, "span length", &s->len));
        GEN_TRY(gen_rd_count(r, 0, 1, "span kind", &kind));
        GEN_TRY(gen_rd_count(r, 0, 100000, "span column", &s->column));
        s->kind = (gen_span_kind)kind;
        if (s->start != pos || s->len > tf->data_dim - pos)
            return gen_rd_fail(r, "spans do not tile the encoded row");
        pos += s->len;
    }
    if (pos != tf->data_dim) return gen_rd_fail(r, "spans do not cover the encoded row");
    GEN_TRY(gen_rd_count(r, 1, 100000, "column count", &tf->ncols));
    if ((size_t)tf->ncols * 32 > r->len - r->pos) return gen_rd_fail(r, "column table is truncated");
    tf->cols = calloc((size_t)tf->ncols, sizeof *tf->cols);
    if (!tf->cols) return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
    int next_span = 0;
    for (int c = 0; c < tf->ncols; c++) {
        gen_col_transform *ct = &tf->cols[c];
        int type;
        ct->missing_slot = ct->rare_slot = -1;
        GEN_TRY(gen_rd_str(r, &ct->name));
        if (!ct->name) return gen_rd_fail(r, "a column has no name");
        GEN_TRY(gen_rd_count(r, 0, 1, "column type", &type));
        ct->type = (genesis_column_type)type;
        GEN_TRY(gen_rd_count(r, 0, (uint32_t)tf->nspans, "first span", &ct->span_first));
        GEN_TRY(gen_rd_count(r, 1, 2, "span count", &ct->nspans));
        GEN_TRY(gen_rd_count(r, 0, (uint32_t)tf->data_dim, "column offset", &ct->offset));
        GEN_TRY(gen_rd_count(r, 1, (uint32_t)tf->data_dim, "column width", &ct->width));
        GEN_TRY(gen_rd_str(r, &ct->na_text));
        if (!ct->na_text) return gen_rd_fail(r, "a column has no missing-value text");
        /* the column's spans are the next ones, in order, and match its offset and width */
        if (ct->span_first != next_span || ct->span_first + ct->nspans > tf->nspans)
            return gen_rd_fail(r, "column spans out of order");
        const gen_span *sp = &tf->spans[ct->span_first];
        int w = 0;
        for (int k = 0; k < ct->nspans; k++) {
            if (sp[k].column != c) return gen_rd_fail(r, "a span names the wrong column");
            w += sp[k].len;
        }
        if (sp[0].start != ct->offset || w != ct->width) return gen_rd_fail(r, "column width does not match its spans");
        next_span += ct->nspans;
        if (ct->type == GENESIS_COLUMN_CONTINUOUS) {
            if (ct->nspans != 2 || sp[0].kind != GEN_SPAN_TANH || sp[0].len != 1 ||
                sp[1].kind != GEN_SPAN_SOFTMAX)
                return gen_rd_fail(r, "a continuous column needs a tanh and a softmax span");
            int dec;
            GEN_TRY(gen_rd_count(r, 0, GEN_MAX_MODES, "mode count", &ct->n_modes));
            GEN_TRY(gen_rd_f64s(r, ct->mode_mean, (size_t)ct->n_modes));
            GEN_TRY(gen_rd_f64s(r, ct->mode_std, (size_t)ct->n_modes));
            GEN_TRY(gen_rd_f64s(r, ct->mode_weight, (size_t)ct->n_modes));
            GEN_TRY(gen_rd_count(r, 0, GEN_MAX_POINTS, "point-mass count", &ct->n_points));
            GEN_TRY(gen_rd_f64s(r, ct->point_value, (size_t)ct->n_points));
            GEN_TRY(gen_rd_count(r, 0, 1, "null flag", &ct->has_null));
            GEN_TRY(gen_rd_f64(r, &ct->min));
            GEN_TRY(gen_rd_f64(r, &ct->max));
            GEN_TRY(gen_rd_count(r, 0, 1, "integer flag", &ct->is_integer));
            GEN_TRY(gen_rd_count(r, 0, 18, "decimals", &dec));
            ct->decimals = dec - 1;
            int slots = ct->n_modes + ct->n_points + ct->has_null;
            if (sp[1].len != (slots > 0 ? slots : 1)) return gen_rd_fail(r, "mode span width is wrong");
            for (int k = 0; k < ct->n_modes; k++)
                if (!isfinite(ct->mode_mean[k]) || !(ct->mode_std[k] > 0) || !isfinite(ct->mode_std[k]))
                    return gen_rd_fail(r, "a mode has a non-finite mean or a non-positive spread");
            for (int k = 0; k < ct->n_points; k++)
                if (!isfinite(ct->point_value[k])) return gen_rd_fail(r, "a point mass is not finite");
            if (!(ct->min <= ct->max) && !(isnan(ct->min) && isnan(ct->max)))
                return gen_rd_fail(r, "column range is invalid");
        } else {
            if (ct->nspans != 1 || sp[0].kind != GEN_SPAN_SOFTMAX)
                return gen_rd_fail(r, "a categorical column needs one softmax span");
            GEN_TRY(gen_rd_count(r, 1, 1u << 24, "category count", &ct->n_slots));
            if (ct->n_slots != ct->width) return gen_rd_fail(r, "category count does not match the span");
            if ((size_t)ct->n_slots * 4 > r->len - r->pos) return gen_rd_fail(r, "category list is truncated");
            ct->slot_text = calloc((size_t)ct->n_slots, sizeof(char *));
            if (!ct->slot_text) return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
            for (int k = 0; k < ct->n_slots; k++) GEN_TRY(gen_rd_str(r, &ct->slot_text[k]));
            GEN_TRY(rd_index(r, ct->n_slots, "missing slot", &ct->missing_slot));
            GEN_TRY(rd_index(r, ct->n_slots, "rare slot", &ct->rare_slot));
            GEN_TRY(gen_rd_count(r, 0, 1u << 24, "rare level count", &ct->n_rare));
            if ((ct->rare_slot >= 0) != (ct->n_rare > 0)) return gen_rd_fail(r, "rare slot without rare levels");
            for (int k = 0; k < ct->n_slots; k++)
                if (!ct->slot_text[k] && k != ct->rare_slot) return gen_rd_fail(r, "a category has no text");
            if (ct->n_rare > 0) {
                if ((size_t)ct->n_rare * 12 > r->len - r->pos) return gen_rd_fail(r, "rare level list is truncated");
                ct->rare_text = calloc((size_t)ct->n_rare, sizeof(char *));
                ct->rare_cdf = calloc((size_t)ct->n_rare, sizeof(double));
                if (!ct->rare_text || !ct->rare_cdf)
                    return gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
                for (int k = 0; k < ct->n_rare; k++) {
                    GEN_TRY(gen_rd_str(r, &ct->rare_text[k]));
                    if (!ct->rare_text[k]) return gen_rd_fail(r, "a rare level has no text");
                }
                GEN_TRY(gen_rd_f64s(r, ct->rare_cdf, (size_t)ct->n_rare));
                double prev = 0;
                for (int k = 0; k < ct->n_rare; k++) {
                    if (!(ct->rare_cdf[k] >= prev && ct->rare_cdf[k] <= 1.0))
                        return gen_rd_fail(r, "rare level frequencies are not a distribution");
                    prev = ct->rare_cdf[k];
                }
                if (prev != 1.0) return gen_rd_fail(r, "rare level frequencies do not sum to 1");
            }
        }
    }
    if (next_span != tf->nspans) return gen_rd_fail(r, "spans left over after the last column");
    if (r->version >= GEN_FILE_VERSION_ROLES) GEN_TRY(gen_roles_load(tf, r));
    if (r->version >= GEN_FILE_VERSION_QUANTILE) GEN_TRY(gen_quantiles_load(tf, r));
    if (r->version >= GEN_FILE_VERSION_DECIMAL_COMMA) GEN_TRY(gen_decimal_marks_load(tf, r));
    return GENESIS_OK;
}

/* ---- whole files ---------------------------------------------------------------------- */

/* ---- the training-state section (checkpoints, src/model/checkpoint.c) -------------------------- */

/* Written after the model section: magic, format, the units done and their total, the
 * table's fingerprint and shape, the checkpoint interval, the sequence columns, then the
 * network's own state (vt->train_save) with its length. Read from r at its start, into m
 * (the network's part copied to m->resume when keep). */

static genesis_status ckpt_write_section(const genesis_model *m, gen_bytes *b) {
    GEN_RETURN_IF(!m->vt->train_save, m->ctx, GENESIS_ERR_UNSUPPORTED,
                  "%s models cannot write checkpoints", m->vt->name);
    gen_wr_raw(b, GEN_TRAIN_MAGIC, 8);
    gen_wr_u32(b, GEN_TRAIN_FORMAT);
    gen_wr_u64(b, (uint64_t)m->ckpt_done);
    gen_wr_u64(b, (uint64_t)m->ckpt_total);
    gen_wr_u64(b, m->fit_fp);
    gen_wr_u64(b, (uint64_t)m->fit_rows);
    gen_wr_u32(b, (uint32_t)m->fit_cols);
    gen_wr_u64(b, (uint64_t)m->ckpt_every);
    gen_wr_f64(b, m->ckpt_minutes);
    gen_wr_str(b, m->seq_entity);
    gen_wr_str(b, m->seq_time);
    size_t at = b->len;
    gen_wr_u64(b, 0); /* the network state's length, patched below */
    size_t start = b->len;
    GEN_TRY(m->vt->train_save(m, b));
    if (b->oom) return gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory writing a checkpoint");
    uint64_t n = b->len - start;
    for (int i = 0; i < 8; i++) b->p[at + i] = (unsigned char)(n >> (8 * i));
    return GENESIS_OK;
}

static genesis_status ckpt_read_section(genesis_model *m, gen_reader *r, int keep) {
    if (r->len - r->pos < 8 || memcmp(r->p + r->pos, GEN_TRAIN_MAGIC, 8) != 0)
        return gen_rd_fail(r, "unexpected bytes after the model (no training-state section)");
    r->pos += 8;
    uint32_t fmt;
    uint64_t done, total, fp, rows, every, n;
    double minutes;
    int cols;
    char *entity = NULL, *time = NULL;
    GEN_TRY(gen_rd_u32(r, &fmt));
    if (fmt != GEN_TRAIN_FORMAT) return gen_rd_fail(r, "unknown training-state format");
    GEN_TRY(gen_rd_u64(r, &done));
    GEN_TRY(gen_rd_u64(r, &total));
    GEN_TRY(gen_rd_u64(r, &fp));
    GEN_TRY(gen_rd_u64(r, &rows));
    GEN_TRY(gen_rd_count(r, 1, 100000, "training table column count", &cols));
    GEN_TRY(gen_rd_u64(r, &every));
    GEN_TRY(gen_rd_f64(r, &minutes));
    if (total < 1 || total > ((uint64_t)1 << 40) || done > total || rows < 1 ||
        rows > ((uint64_t)1 << 40) || every > ((uint64_t)1 << 40) || !(minutes >= 0 && minutes < 1e9))
        return gen_rd_fail(r, "the training progress is out of range");
    GEN_TRY(gen_rd_str(r, &entity));
    genesis_status st = gen_rd_str(r, &time);
    if (st == GENESIS_OK) st = gen_rd_u64(r, &n);
    if (st == GENESIS_OK && n != r->len - r->pos)
        st = gen_rd_fail(r, "the network's training state does not fill the rest of the file");
    if (st == GENESIS_OK && keep) {
        m->resume = malloc(n ? (size_t)n : 1);
        if (!m->resume) st = gen_set_error(m->ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", r->path);
    }
    if (st != GENESIS_OK) {
        free(entity);
        free(time);
        return st;
    }
    if (keep) {
        memcpy(m->resume, r->p + r->pos, (size_t)n);
        m->resume_len = (size_t)n;
        m->resume_done = (int64_t)done;
        m->resume_total = (int64_t)total;
        m->resume_fp = fp;
        m->resume_rows = (int64_t)rows;
        m->resume_cols = cols;
        m->ckpt_every = (int64_t)every;
        m->ckpt_minutes = minutes;
        free(m->seq_entity);
        free(m->seq_time);
        m->seq_entity = entity;
        m->seq_time = time;
    } else {
        free(entity);
        free(time);
    }
    r->pos += (size_t)n;
    return GENESIS_OK;
}

genesis_status gen_model_write_file(const genesis_model *m, const char *path) {
    return gen_model_write_file_ex(m, path, 0);
}

/* Version 7 (GEN_FILE_VERSION_DP): the privacy record of a model trained under differential
 * privacy (dp.h): u32 1, then f64 epsilon, target, delta, sigma, clip, q, u64 steps, f64
 * stats_sigma, threshold, stats_epsilon. */
static void dp_record_save(const gen_dp_info *dp, gen_bytes *b) {
    gen_wr_u32(b, 1);
    double v[6] = {dp->epsilon, dp->target, dp->delta, dp->sigma, dp->clip, dp->q};
    gen_wr_f64s(b, v, 6);
    gen_wr_u64(b, (uint64_t)dp->steps);
    double w[3] = {dp->stats_sigma, dp->threshold, dp->stats_epsilon};
    gen_wr_f64s(b, w, 3);
}

static genesis_status dp_record_load(genesis_model *m, gen_reader *r) {
    uint32_t on = 0;
    uint64_t steps = 0;
    double v[6], w[3];
    GEN_TRY(gen_rd_u32(r, &on));
    GEN_TRY(gen_rd_f64s(r, v, 6));
    GEN_TRY(gen_rd_u64(r, &steps));
    GEN_TRY(gen_rd_f64s(r, w, 3));
    if (on != 1) return gen_rd_fail(r, "the privacy record is malformed");
    for (int i = 0; i < 6; i++)
        if (!(v[i] >= 0 && v[i] < 1e300)) return gen_rd_fail(r, "a privacy value is out of range");
    for (int i = 0; i < 3; i++)
        if (!(w[i] >= 0 && w[i] < 1e300)) return gen_rd_fail(r, "a privacy value is out of range");
    if (!(v[2] < 1) || !(v[5] <= 1) || steps > ((uint64_t)1 << 50))
        return gen_rd_fail(r, "a privacy value is out of range");
    gen_dp_info *dp = &m->dp;
    *dp = (gen_dp_info){1, v[0], v[1], v[2], v[3], v[4], v[5], (int64_t)steps, w[0], w[1], w[2]};
    return GENESIS_OK;
}

genesis_status gen_model_file_bytes(const genesis_model *m, int with_state, gen_bytes *out) {
    genesis_ctx *ctx = m->ctx;
    gen_bytes b = {0};
    memset(out, 0, sizeof *out);
    wr_bytes(&b, GEN_FILE_MAGIC, 8);
    int quantiles = !m->vt->fit_table && gen_transformer_has_quantiles(&m->tf);
    int comma = !m->vt->fit_table && gen_transformer_has_decimal_comma(&m->tf);
    int dp = m->dp.on;
    gen_wr_u32(&b, dp          ? GEN_FILE_VERSION_DP
                   : comma     ? GEN_FILE_VERSION_DECIMAL_COMMA
                   : quantiles ? GEN_FILE_VERSION_QUANTILE
                   : with_state ? GEN_FILE_VERSION_CHECKPOINT : GEN_FILE_VERSION_MODEL);
    gen_wr_u32(&b, (uint32_t)m->vt->kind);
    gen_wr_u64(&b, 0); /* payload length, patched below */
    size_t start = b.len;
    /* files without differential privacy keep version 6's settings, so older readers read them */
    gen_wr_u32(&b, dp ? GEN_NPARAMS_FILE : GEN_NPARAMS_V6);
    gen_wr_f64s(&b, m->param, dp ? GEN_NPARAMS_FILE : GEN_NPARAMS_V6);
    /* a DP model's seed is the secret of its noise (docs/privacy.md): not stored */
    gen_wr_u64(&b, dp ? 0 : m->seed);
    if (dp) dp_record_save(&m->dp, &b);
    genesis_status st = m->vt->fit_table ? GENESIS_OK : transformer_save(&m->tf, &b, dp);
    if (st == GENESIS_OK) st = m->vt->save(m, &b);
    if (st == GENESIS_OK && with_state) st = ckpt_write_section(m, &b);
    /* a failed GPU hands out NaN weights: never write them as a model */
    if (st == GENESIS_OK && m->be) st = gen_backend_status(m->be);
    if (st == GENESIS_OK && b.oom) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    if (st != GENESIS_OK) {
        free(b.p);
        return st;
    }
    uint64_t plen = b.len - start;
    for (int i = 0; i < 8; i++) b.p[16 + i] = (unsigned char)(plen >> (8 * i));
    uint32_t crc = (uint32_t)crc32(0L, b.p, (uInt)0);
    size_t done = 0;
    while (done < b.len) { /* crc32 takes uInt lengths */
        size_t chunk = b.len - done > (1u << 30) ? (1u << 30) : b.len - done;
        crc = (uint32_t)crc32(crc, b.p + done, (uInt)chunk);
        done += chunk;
    }
    gen_wr_u32(&b, crc);
    if (b.oom) {
        free(b.p);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory saving the model");
    }
    *out = b;
    return GENESIS_OK;
}

genesis_status gen_model_write_bytes(genesis_ctx *ctx, const char *path, const unsigned char *p,
                                     size_t len) {
    gen_csv_writer *w;
    genesis_status st = gen_csv_writer_open(ctx, path, ',', &w);
    if (st == GENESIS_OK) {
        st = gen_csv_writer_raw(w, (const char *)p, len);
        genesis_status cst = gen_csv_writer_close(w, st == GENESIS_OK);
        if (st == GENESIS_OK) st = cst;
    }
    return st;
}

genesis_status gen_model_write_file_ex(const genesis_model *m, const char *path, int with_state) {
    gen_bytes b;
    GEN_TRY(gen_model_file_bytes(m, with_state, &b));
    genesis_status st = gen_model_write_bytes(m->ctx, path, b.p, b.len);
    free(b.p);
    return st;
}

int genesis_param_is_integer(int p);

genesis_status gen_model_read_file(genesis_ctx *ctx, const char *path, genesis_model **out) {
    return gen_model_read_file_ex(ctx, path, 0, out);
}

/* The container's header (magic, version, the kind's oldest version, payload length against
 * `size`, the file's size) of a file of `size` bytes whose first GEN_FILE_HEADER bytes are
 * `head` (not read when the file is shorter); fills version, kind and payload length. */
static genesis_status check_header(genesis_ctx *ctx, const char *path, const unsigned char *head,
                                   uint64_t size, uint32_t *version, uint32_t *kind, uint64_t *plen) {
    if (size < GEN_FILE_HEADER + 4)
        return gen_set_error(ctx, GENESIS_ERR_MODEL_FORMAT,
                             "%s: too short to be a genesis model file (%llu bytes); it may be "
                             "truncated",
                             path, (unsigned long long)size);
    if (memcmp(head, GEN_FILE_MAGIC, 8) != 0)
        return gen_set_error(ctx, GENESIS_ERR_MODEL_FORMAT,
                             "%s: not a genesis model file (wrong magic bytes); give a file "
                             "written by `genesis_model_save`",
                             path);
    gen_reader hr = {head, GEN_FILE_HEADER, 8, path, ctx, 0, 0};
    gen_rd_u32(&hr, version);
    gen_rd_u32(&hr, kind);
    gen_rd_u64(&hr, plen);
    if (*version > GEN_FILE_VERSION || *version == 0)
        return gen_set_error(ctx, GENESIS_ERR_VERSION,
                             "%s: model file format version %u; this genesis %s reads version %u "
                             "(upgrade genesis or re-fit the model)",
                             path, *version, GENESIS_VERSION_STRING, GEN_FILE_VERSION);
    const gen_model_vtable *kvt = gen_model_vtable_of((genesis_model_kind)*kind);
    if (kvt && *version < kvt->min_file_version)
        return gen_set_error(ctx, GENESIS_ERR_VERSION,
                             "%s: a %s model written by an older genesis (model file format "
                             "version %u), %s; this genesis %s cannot run those weights: re-fit "
                             "it with this version",
                             path, kvt->name, *version, kvt->old_file_reason ? kvt->old_file_reason : "",
                             GENESIS_VERSION_STRING);
    if (*plen != size - GEN_FILE_HEADER - 4)
        return gen_set_error(ctx, GENESIS_ERR_MODEL_FORMAT,
                             "%s: the header says %llu payload bytes but the file holds %llu; the "
                             "file is truncated or has extra bytes",
                             path, (unsigned long long)*plen,
                             (unsigned long long)(size - GEN_FILE_HEADER - 4));
    return GENESIS_OK;
}

genesis_status gen_model_read_file_ex(genesis_ctx *ctx, const char *path, int keep_state,
                                      genesis_model **out) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    GEN_RETURN_IF(!f, ctx, GENESIS_ERR_IO, "%s: cannot open model file: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return gen_set_error(ctx, GENESIS_ERR_IO, "%s: not a regular file", path);
    }
    uint64_t size = (uint64_t)sb.st_size;
    unsigned char head[GEN_FILE_HEADER];
    if (size >= GEN_FILE_HEADER + 4 && fread(head, 1, GEN_FILE_HEADER, f) != GEN_FILE_HEADER) {
        fclose(f);
        return gen_set_error(ctx, GENESIS_ERR_IO, "%s: read error", path);
    }
    /* the container's checks before the payload is read (and memory reserved for it) */
    uint32_t version, kind;
    uint64_t plen;
    genesis_status hs = check_header(ctx, path, head, size, &version, &kind, &plen);
    if (hs != GENESIS_OK) {
        fclose(f);
        return hs;
    }
    if (size > ((uint64_t)1 << 40) || size > SIZE_MAX) {
        fclose(f);
        return gen_set_error(ctx, GENESIS_ERR_MODEL_FORMAT, "%s: model file is implausibly large", path);
    }
    unsigned char *buf = malloc((size_t)size);
    if (!buf) {
        fclose(f);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory reading the model", path);
    }
    memcpy(buf, head, GEN_FILE_HEADER);
    size_t got = fread(buf + GEN_FILE_HEADER, 1, (size_t)size - GEN_FILE_HEADER, f);
    fclose(f);
    if (got != size - GEN_FILE_HEADER) {
        free(buf);
        return gen_set_error(ctx, GENESIS_ERR_IO, "%s: read error (file changed while reading?)", path);
    }
    genesis_status st = gen_model_read_mem(ctx, path, buf, (size_t)size, keep_state, out);
    free(buf);
    return st;
}

/* The whole file in memory (`size` bytes at `buf`): the container's checks again (so that a
 * caller holding bytes gets the same refusals as one holding a path), the checksum, then the
 * payload. `path` names the bytes in messages. */
genesis_status gen_model_read_mem(genesis_ctx *ctx, const char *path, const unsigned char *buf,
                                  size_t size, int keep_state, genesis_model **out) {
    *out = NULL;
    uint32_t version, kind;
    uint64_t plen;
    GEN_TRY(check_header(ctx, path, buf, size, &version, &kind, &plen));
    uint32_t crc = (uint32_t)crc32(0L, buf, 0);
    for (size_t done = 0; done < size - 4;) {
        size_t chunk = size - 4 - done > (1u << 30) ? (1u << 30) : size - 4 - done;
        crc = (uint32_t)crc32(crc, buf + done, (uInt)chunk);
        done += chunk;
    }
    const unsigned char *cp = buf + size - 4;
    uint32_t stored = (uint32_t)cp[0] | (uint32_t)cp[1] << 8 | (uint32_t)cp[2] << 16 | (uint32_t)cp[3] << 24;
    if (crc != stored)
        return gen_set_error(ctx, GENESIS_ERR_MODEL_FORMAT,
                             "%s: model file is corrupted (checksum mismatch); re-create it with "
                             "`genesis_model_save`",
                             path);
    genesis_model *m = NULL;
    genesis_status st = gen_model_new(ctx, (genesis_model_kind)kind, &m);
    if (st != GENESIS_OK) {
        if (st == GENESIS_ERR_UNSUPPORTED)
            return gen_set_error(ctx, GENESIS_ERR_VERSION,
                                 "%s: model kind %u is not known to this genesis %s (a newer "
                                 "genesis may read it)",
                                 path, kind, GENESIS_VERSION_STRING);
        return st;
    }
    gen_reader r = {buf + GEN_FILE_HEADER, (size_t)plen, 0, path, ctx, 0, version};
    /* settings: a count, then that many values; settings added by later versions keep the
     * defaults the model was created with */
    double params[GEN_NPARAMS];
    int nparams = 0;
    st = gen_rd_count(&r, 1, GEN_NPARAMS_FILE, "settings count", &nparams);
    if (st == GENESIS_OK) st = gen_rd_f64s(&r, params, (size_t)nparams);
    /* ... except alpha-per-mode: a file without it has the decoder layout of 0 */
    if (st == GENESIS_OK && nparams <= GENESIS_P_ALPHA_PER_MODE) m->param[GENESIS_P_ALPHA_PER_MODE] = 0;
    /* ... and quantile: a file without it has no quantile maps */
    if (st == GENESIS_OK && nparams <= GENESIS_P_QUANTILE) m->param[GENESIS_P_QUANTILE] = 0;
    for (int i = 0; st == GENESIS_OK && i < nparams; i++) {
        double lo, hi;
        genesis_param_bounds((genesis_param)i, &lo, &hi, NULL, NULL);
        if (!(params[i] >= lo && params[i] <= hi) || (genesis_param_is_integer(i) && params[i] != floor(params[i])))
            st = gen_rd_fail(&r, "a setting is out of range");
        else m->param[i] = params[i];
    }
    if (st == GENESIS_OK) st = gen_rd_u64(&r, &m->seed);
    if (st == GENESIS_OK && version >= GEN_FILE_VERSION_DP) st = dp_record_load(m, &r);
    int tabular = !m->vt->fit_table; /* sequence models have no transformer section */
    if (st == GENESIS_OK && tabular) st = gen_transformer_load(&m->tf, &r);
    if (st == GENESIS_OK && tabular && m->tf.clamp_range != (int)m->param[GENESIS_P_CLAMP_RANGE])
        st = gen_rd_fail(&r, "the clamp setting disagrees with the transformer's");
    if (st == GENESIS_OK && tabular && !m->param[GENESIS_P_QUANTILE] && gen_transformer_has_quantiles(&m->tf))
        st = gen_rd_fail(&r, "the quantile setting disagrees with the transformer's");
    if (st == GENESIS_OK) st = m->vt->load(m, &r);
    /* version 4: a checkpoint's training state may follow the model (src/model/checkpoint.c) */
    if (st == GENESIS_OK && version >= GEN_FILE_VERSION_CHECKPOINT && r.pos != r.len)
        st = ckpt_read_section(m, &r, keep_state);
    if (st == GENESIS_OK && r.pos != r.len) st = gen_rd_fail(&r, "unexpected bytes after the model");
    if (st != GENESIS_OK) {
        genesis_model_free(m);
        return st;
    }
    m->fitted = 1;
    m->loaded = 1;
    *out = m;
    return GENESIS_OK;
}

genesis_status genesis_model_save(const genesis_model *m, const char *path) {
    if (!m || !path) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(m->ctx);
    GEN_RETURN_IF(!m->fitted, m->ctx, GENESIS_ERR_STATE, "the model is not fitted; nothing to save");
    return gen_model_write_file(m, path);
}

genesis_status genesis_model_load(genesis_ctx *ctx, const char *path, genesis_model **out) {
    if (!ctx || !path || !out) return GENESIS_ERR_INVALID_ARG;
    gen_clear_error(ctx);
    return gen_model_read_file(ctx, path, out);
}
