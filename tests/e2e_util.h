/*
 * e2e_util.h — shared by the end-to-end model tests: synthetic rows collected as text
 * through the public batch API, the real table read as text, and SDMetrics-style scores
 * (docs/algorithms.md §C2: KS complement, TV complement, contingency similarity) small enough
 * for test tables.
 */
#ifndef GEN_E2E_UTIL_H
#define GEN_E2E_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <genesis/genesis.h>

#include "test_util.h"

static int slow_tests(void) {
    const char *s = getenv("GENESIS_SLOW_TESTS");
    return !(s && s[0] == '0');
}

/* ---- tables as text columns ------------------------------------------------------------ */

typedef struct text_table {
    int ncols;
    int64_t nrows, cap;
    char **cells; /* row-major nrows x ncols, strdup'ed */
    int missing_col_mask[64];
} text_table;

static int collect(const genesis_batch *b, void *user) {
    text_table *t = user;
    t->ncols = genesis_batch_ncols(b);
    char buf[512];
    for (int64_t r = 0; r < genesis_batch_nrows(b); r++) {
        if (t->nrows == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 1024;
            t->cells = realloc(t->cells, (size_t)t->cap * t->ncols * sizeof(char *));
        }
        for (int c = 0; c < t->ncols; c++) {
            const char *s = genesis_batch_is_missing(b, r, c) ? "" : genesis_batch_text(b, r, c, buf, sizeof buf);
            t->cells[t->nrows * t->ncols + c] = strdup(s);
        }
        t->nrows++;
    }
    return 0;
}

static void text_table_free(text_table *t) {
    for (int64_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* Reads a CSV through the library itself, as text (it has been checked by test_ingest). */
static void read_real(genesis_ctx *ctx, const char *path, text_table *out, genesis_table **tab) {
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, tab), GENESIS_OK);
    /* the real values as text: the sample file has no quotes, so split on commas */
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    memset(out, 0, sizeof *out);
    out->ncols = genesis_table_ncols(*tab);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (out->nrows == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 1024;
            out->cells = realloc(out->cells, (size_t)out->cap * out->ncols * sizeof(char *));
        }
        char *save = NULL, *tok = strtok_r(line, ",", &save);
        for (int c = 0; c < out->ncols; c++) {
            const char *v = tok ? tok : "";
            const char *t = v;
            while (*t == ' ') t++;
            out->cells[out->nrows * out->ncols + c] = strdup(strcmp(t, "?") == 0 ? "" : v);
            tok = strtok_r(NULL, ",", &save);
        }
        out->nrows++;
    }
    fclose(f);
}

/* ---- SDMetrics-style scores (docs/algorithms.md §C2) -------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *numbers(const text_table *t, int col, int64_t *n) {
    double *v = malloc((size_t)t->nrows * sizeof(double));
    *n = 0;
    for (int64_t r = 0; r < t->nrows; r++) {
        const char *s = t->cells[r * t->ncols + col];
        if (*s) v[(*n)++] = strtod(s, NULL);
    }
    qsort(v, (size_t)*n, sizeof(double), cmp_double);
    return v;
}

/* 1 - two-sample KS statistic */
static double ks_complement(const text_table *real, const text_table *syn, int col) {
    int64_t na, nb;
    double *a = numbers(real, col, &na), *b = numbers(syn, col, &nb);
    int64_t i = 0, j = 0;
    double d = 0;
    while (i < na && j < nb) {
        double x = a[i] <= b[j] ? a[i] : b[j];
        while (i < na && a[i] <= x) i++;
        while (j < nb && b[j] <= x) j++;
        double diff = fabs((double)i / na - (double)j / nb);
        if (diff > d) d = diff;
    }
    free(a);
    free(b);
    return 1.0 - d;
}

/* frequency of each distinct key (strings) in a, looked up for b; returns 1 - TV distance */
static double tv_complement_keys(char **ka, int64_t na, char **kb, int64_t nb) {
    /* O(k^2) over distinct keys is fine for these small tables */
    char **keys = malloc((size_t)(na + nb) * sizeof(char *));
    double *fa = calloc((size_t)(na + nb), sizeof(double)), *fb = calloc((size_t)(na + nb), sizeof(double));
    int nk = 0;
    for (int pass = 0; pass < 2; pass++) {
        char **k = pass ? kb : ka;
        int64_t n = pass ? nb : na;
        double *f = pass ? fb : fa;
        for (int64_t i = 0; i < n; i++) {
            int found = -1;
            for (int q = 0; q < nk; q++)
                if (!strcmp(keys[q], k[i])) { found = q; break; }
            if (found < 0) { keys[nk] = k[i]; found = nk++; }
            f[found] += 1.0 / n;
        }
    }
    double tv = 0;
    for (int q = 0; q < nk; q++) tv += fabs(fa[q] - fb[q]);
    free(keys); free(fa); free(fb);
    return 1.0 - 0.5 * tv;
}

static double tv_complement(const text_table *real, const text_table *syn, int c1, int c2) {
    char **ka = malloc((size_t)real->nrows * sizeof(char *)), **kb = malloc((size_t)syn->nrows * sizeof(char *));
    for (int pass = 0; pass < 2; pass++) {
        const text_table *t = pass ? syn : real;
        char **k = pass ? kb : ka;
        for (int64_t r = 0; r < t->nrows; r++) {
            const char *a = t->cells[r * t->ncols + c1];
            const char *b = c2 >= 0 ? t->cells[r * t->ncols + c2] : "";
            while (*a == ' ') a++;
            while (*b == ' ') b++;
            size_t la = strlen(a), lb = strlen(b);
            k[r] = malloc(la + lb + 2);
            memcpy(k[r], a, la);
            k[r][la] = '\x1f';
            memcpy(k[r] + la + 1, b, lb + 1);
        }
    }
    double s = tv_complement_keys(ka, real->nrows, kb, syn->nrows);
    for (int64_t i = 0; i < real->nrows; i++) free(ka[i]);
    for (int64_t i = 0; i < syn->nrows; i++) free(kb[i]);
    free(ka); free(kb);
    return s;
}

static double column_shapes(const text_table *real, const text_table *syn, const genesis_table *t) {
    double tot = 0;
    for (int c = 0; c < real->ncols; c++)
        tot += genesis_table_column_type(t, c) == GENESIS_COLUMN_CONTINUOUS ? ks_complement(real, syn, c)
                                                                          : tv_complement(real, syn, c, -1);
    return tot / real->ncols;
}

static int col_index(const genesis_table *t, const char *name) {
    for (int c = 0; c < genesis_table_ncols(t); c++)
        if (!strcmp(genesis_table_column_name(t, c), name)) return c;
    return -1;
}

#endif /* GEN_E2E_UTIL_H */
