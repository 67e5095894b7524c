/*
 * sequence.c — tables <-> fixed-length sequences for TimeGAN (docs/algorithms.md §S3, §S6;
 * choices in docs/timegan.md §5).
 *   Single series (no --entity, no --time): the reference's loader exactly: rows reversed
 *   (`ori[::-1]`), column min-max (x - min) / (max - min + 1e-7), stride-1 windows, N_rows -
 *   seq_len of them (the reference drops the last possible window), one shuffle; then the
 *   reference's second scaler over (windows, time) per feature. Generated windows are written
 *   flipped back, so the output reads in the input's row order.
 *   Time column without entity: rows ordered by time (no reversal), N_rows - seq_len + 1
 *   windows. Panel (--entity): one series per entity ordered by time (or file order), stride-1
 *   windows within each entity (entities shorter than seq_len are left out); every window has
 *   seq_len steps, so the GRUs never need ragged lengths.
 *   Categorical feature columns are one-hot (decoded by argmax). Output, in the input's
 *   column order: the entity column (or a new first column "sequence") numbering the
 *   generated sequences 1..n, the time column with the time values of a randomly drawn real
 *   window (the real time grid), the feature columns in raw units.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sequence.h"

#define SEQ_MAX_LEVELS 256
#define SEQ_MAX_GRID 4096

void gen_seq_schema_free(gen_seq_schema *s) {
    if (!s) return;
    for (int c = 0; c < s->ncols; c++) {
        free(s->cols[c].name);
        for (int k = 0; k < s->cols[c].nlevels; k++) free(s->cols[c].levels[k]);
        free(s->cols[c].levels);
    }
    free(s->cols);
    free(s->inner_min);
    free(s->inner_max);
    free(s->entity);
    free(s->time);
    free(s->grid);
    memset(s, 0, sizeof *s);
}

void gen_seq_data_free(gen_seq_data *d) {
    if (!d) return;
    free(d->x);
    memset(d, 0, sizeof *d);
}

/* Value of a numeric or numeric-text column at row i (NaN when missing or not a number). */
static double col_number(const gen_column *c, int64_t i) {
    if (c->type == GENESIS_COLUMN_CONTINUOUS) return c->num[i];
    if (c->cat[i] < 0) return NAN;
    char *end;
    const char *s = c->levels[c->cat[i]];
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    return (end == s || *end) ? NAN : v;
}

typedef struct row_key {
    double entity, time;
    int64_t row;
} row_key;

static int cmp_key(const void *a, const void *b) {
    const row_key *x = a, *y = b;
    if (x->entity != y->entity) return x->entity < y->entity ? -1 : 1;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows grouped into series (entity, then time or file order; reversed for the
 * reference's single series): order[0..nrows), series boundaries in starts[0..ns]. */
static genesis_status group_rows(genesis_ctx *ctx, const genesis_table *t, int ecol, int tcol,
                                 int reverse, const char *ename, const char *tname,
                                 int64_t **order_out, int64_t **starts_out, int64_t *ns_out) {
    int64_t N = t->nrows;
    row_key *k = malloc((size_t)N * sizeof *k);
    int64_t *order = malloc((size_t)N * sizeof *order), *starts = malloc((size_t)(N + 1) * sizeof *starts);
    if (!k || !order || !starts) {
        free(k); free(order); free(starts);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory grouping %s into sequences", t->source);
    }
    for (int64_t i = 0; i < N; i++) {
        k[i].row = reverse ? N - 1 - i : i;
        k[i].entity = 0;
        k[i].time = (double)i;
        if (ecol >= 0) {
            const gen_column *c = &t->cols[ecol];
            k[i].entity = c->type == GENESIS_COLUMN_CONTINUOUS ? c->num[i] : (double)c->cat[i];
            if (isnan(k[i].entity) || k[i].entity < -0.5) {
                free(k); free(order); free(starts);
                return gen_set_error(ctx, GENESIS_ERR_DATA,
                                     "%s: row %lld has no value in the entity column '%s'; fill or "
                                     "drop such rows",
                                     t->source, (long long)i + 2, ename);
            }
        }
        if (tcol >= 0) {
            k[i].time = col_number(&t->cols[tcol], i);
            if (isnan(k[i].time)) {
                free(k); free(order); free(starts);
                return gen_set_error(ctx, GENESIS_ERR_DATA,
                                     "%s: the time column '%s' is not numeric or is missing at row "
                                     "%lld; `time` needs numbers (e.g. a step index or a Unix time)",
                                     t->source, tname, (long long)i + 2);
            }
        }
        if (reverse) k[i].time = (double)i; /* file order reversed */
    }
    if (ecol >= 0 || tcol >= 0) qsort(k, (size_t)N, sizeof *k, cmp_key);
    int64_t ns = 0;
    for (int64_t i = 0; i < N; i++) {
        order[i] = k[i].row;
        if (i == 0 || k[i].entity != k[i - 1].entity) starts[ns++] = i;
    }
    starts[ns] = N;
    free(k);
    *order_out = order;
    *starts_out = starts;
    *ns_out = ns;
    return GENESIS_OK;
}

/* Feature vector of row i in the loader's [0, 1] scale. */
static void row_features(const gen_seq_schema *s, const genesis_table *t, const int *map, int64_t i,
                         float *out) {
    for (int c = 0; c < s->ncols; c++) {
        const gen_seq_col *sc = &s->cols[c];
        const gen_column *col = &t->cols[map[c]];
        if (!sc->categorical) {
            double v = col_number(col, i);
            out[sc->offset] = (float)((v - sc->min) / (sc->max - sc->min + 1e-7));
        } else {
            for (int k = 0; k < sc->width; k++) out[sc->offset + k] = 0.0f;
            const char *txt = col->type == GENESIS_COLUMN_CATEGORICAL && col->cat[i] >= 0 ? col->levels[col->cat[i]] : NULL;
            char buf[64];
            if (col->type == GENESIS_COLUMN_CONTINUOUS && !isnan(col->num[i])) {
                snprintf(buf, sizeof buf, "%.17g", col->num[i]);
                txt = buf;
            }
            for (int k = 0; txt && k < sc->nlevels; k++)
                if (!strcmp(sc->levels[k], txt)) {
                    out[sc->offset + k] = 1.0f;
                    break;
                }
        }
    }
}

static genesis_status find_col(genesis_ctx *ctx, const genesis_table *t, const char *name,
                               const char *flag, int *out) {
    *out = -1;
    if (!name) return GENESIS_OK;
    *out = gen_table_find_column(t, name);
    GEN_RETURN_IF(*out < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: no column named '%s' (given by %s); check the header line", t->source,
                  name, flag);
    return GENESIS_OK;
}

static genesis_status cut_windows(genesis_ctx *ctx, const genesis_table *t, const gen_seq_schema *s,
                                  const int *map, const int64_t *order, const int64_t *starts,
                                  int64_t ns, int chunk, int drop_last, gen_seq_data *d,
                                  int64_t **first_row) {
    int T = s->T, F = s->F;
    int64_t n = 0, longest = 0;
    for (int64_t g = 0; g < ns; g++) {
        int64_t len = starts[g + 1] - starts[g];
        if (len > longest) longest = len;
        if (len < T) continue;
        n += chunk ? len / T : len - T + 1 - drop_last;
    }
    if (n < 1)
        return gen_set_error(ctx, GENESIS_ERR_DATA,
                             "%s: too few rows for `seq-len` %d: %lld rows%s; a sequence needs at "
                             "least %d rows%s; lower `seq-len` or add data",
                             t->source, T, (long long)(s->entity ? longest : t->nrows),
                             s->entity ? " in the longest entity" : "", T + drop_last,
                             s->entity ? " per entity" : "");
    float *row = malloc((size_t)F * sizeof(float));
    d->x = gen_calloc(gen_mul_size((size_t)n, (size_t)T * F), sizeof(float));
    if (first_row) *first_row = malloc((size_t)n * sizeof(int64_t));
    if (!row || !d->x || (first_row && !*first_row)) {
        free(row);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory cutting %s into sequences", t->source);
    }
    int64_t w = 0;
    for (int64_t g = 0; g < ns; g++) {
        int64_t len = starts[g + 1] - starts[g];
        if (len < T) continue;
        int64_t cnt = chunk ? len / T : len - T + 1 - drop_last;
        for (int64_t k = 0; k < cnt; k++, w++) {
            int64_t a = starts[g] + (chunk ? k * T : k);
            if (first_row) (*first_row)[w] = a;
            for (int j = 0; j < T; j++) {
                row_features(s, t, map, order[a + j], row);
                memcpy(d->x + ((size_t)w * T + j) * F, row, (size_t)F * sizeof(float));
            }
        }
    }
    free(row);
    d->n = n;
    return GENESIS_OK;
}

genesis_status gen_seq_build(genesis_ctx *ctx, const genesis_table *t, int T, const char *entity,
                             const char *time, uint64_t shuffle_seed, gen_seq_schema *s,
                             gen_seq_data *d) {
    memset(s, 0, sizeof *s);
    memset(d, 0, sizeof *d);
    int ecol, tcol;
    GEN_TRY(find_col(ctx, t, entity, "`entity`", &ecol));
    GEN_TRY(find_col(ctx, t, time, "`time`", &tcol));
    GEN_RETURN_IF(ecol >= 0 && ecol == tcol, ctx, GENESIS_ERR_INVALID_ARG,
                  "`entity` and `time` name the same column '%s'", entity);
    s->T = T;
    s->delimiter = t->delimiter;
    s->reversed = ecol < 0 && tcol < 0;
    s->entity = entity ? gen_strdup(entity) : NULL;
    s->time = time ? gen_strdup(time) : NULL;
    s->cols = calloc((size_t)t->ncols, sizeof *s->cols);
    int *map = malloc((size_t)t->ncols * sizeof(int));
    int64_t *order = NULL, *starts = NULL, *first = NULL, ns = 0;
    genesis_status st = GENESIS_OK;
    if (!s->cols || !map || (entity && !s->entity) || (time && !s->time)) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the written columns keep the input's order; a generated "sequence" id comes first */
    s->entity_pos = ecol >= 0 ? ecol : 0;
    s->time_pos = tcol < 0 ? -1 : ecol >= 0 ? tcol : tcol + 1;
    /* feature columns */
    for (int c = 0; c < t->ncols; c++) {
        if (c == ecol || c == tcol) continue;
        const gen_column *col = &t->cols[c];
        gen_seq_col *sc = &s->cols[s->ncols];
        map[s->ncols] = c;
        sc->name = gen_strdup(col->name);
        if (!sc->name) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
        sc->offset = s->F;
        s->ncols++;
        if (col->nmissing > 0) {
            st = gen_set_error(ctx, GENESIS_ERR_DATA,
                               "%s: column '%s' has %lld missing values; TimeGAN needs complete "
                               "rows (fill or drop them first)",
                               t->source, col->name, (long long)col->nmissing);
            goto done;
        }
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            sc->width = 1;
            sc->min = INFINITY;
            sc->max = -INFINITY;
            for (int64_t i = 0; i < t->nrows; i++) {
                sc->min = fmin(sc->min, col->num[i]);
                sc->max = fmax(sc->max, col->num[i]);
            }
            sc->is_integer = col->is_integer;
            sc->decimals = col->decimals;
        } else {
            if (col->nlevels > SEQ_MAX_LEVELS) {
                st = gen_set_error(ctx, GENESIS_ERR_DATA,
                                   "%s: column '%s' has %d distinct text values (at most %d are "
                                   "one-hot encoded for TimeGAN); if it is a date or an id, name "
                                   "it with `time` or `entity`, or drop it",
                                   t->source, col->name, (int)col->nlevels, SEQ_MAX_LEVELS);
                goto done;
            }
            sc->categorical = 1;
            sc->nlevels = col->nlevels;
            sc->width = col->nlevels;
            sc->levels = calloc((size_t)(col->nlevels ? col->nlevels : 1), sizeof(char *));
            if (!sc->levels) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
            for (int k = 0; k < col->nlevels; k++)
                if (!(sc->levels[k] = gen_strdup(col->levels[k]))) {
                    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
                    goto done;
                }
        }
        s->F += sc->width;
    }
    if (s->ncols == 0 || s->F == 0) {
        st = gen_set_error(ctx, GENESIS_ERR_DATA, "%s: no feature columns left besides the entity and time columns", t->source);
        goto done;
    }
    if (tcol >= 0) {
        const gen_column *tc = &t->cols[tcol];
        s->time_integer = tc->type == GENESIS_COLUMN_CONTINUOUS ? tc->is_integer : 1;
        s->time_decimals = tc->type == GENESIS_COLUMN_CONTINUOUS ? tc->decimals : -1;
        for (int64_t i = 0; tc->type != GENESIS_COLUMN_CONTINUOUS && i < t->nrows; i++) {
            double v = col_number(tc, i); /* numbers typed as text: integers only if all are */
            if (!isnan(v) && v != floor(v)) s->time_integer = 0;
        }
    }
    st = group_rows(ctx, t, ecol, tcol, s->reversed, entity, time, &order, &starts, &ns);
    if (st == GENESIS_OK)
        st = cut_windows(ctx, t, s, map, order, starts, ns, 0, s->reversed, d, &first);
    if (st != GENESIS_OK) goto done;
    /* the reference's second scaler (docs/algorithms.md §S3) */
    s->inner_min = malloc((size_t)s->F * sizeof(float));
    s->inner_max = malloc((size_t)s->F * sizeof(float));
    if (!s->inner_min || !s->inner_max) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
    size_t rows = (size_t)d->n * T;
    for (int f = 0; f < s->F; f++) {
        float mn = INFINITY, mx = -INFINITY;
        for (size_t r = 0; r < rows; r++) mn = fminf(mn, d->x[r * s->F + f]);
        for (size_t r = 0; r < rows; r++) mx = fmaxf(mx, d->x[r * s->F + f] - mn);
        s->inner_min[f] = mn;
        s->inner_max[f] = mx;
        for (size_t r = 0; r < rows; r++) d->x[r * s->F + f] = (d->x[r * s->F + f] - mn) / (mx + 1e-7f);
    }
    /* the real time grid: time values of up to SEQ_MAX_GRID windows, evenly spread */
    if (tcol >= 0) {
        s->ngrid = d->n < SEQ_MAX_GRID ? d->n : SEQ_MAX_GRID;
        s->grid = malloc((size_t)s->ngrid * T * sizeof(double));
        if (!s->grid) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
        for (int64_t g = 0; g < s->ngrid; g++) {
            int64_t w = g * d->n / s->ngrid;
            for (int j = 0; j < T; j++) s->grid[g * T + j] = col_number(&t->cols[tcol], order[first[w] + j]);
        }
    }
    /* one shuffle of the windows ("to make it similar to i.i.d") */
    {
        gen_rng r;
        gen_rng_init(&r, shuffle_seed, GEN_STREAM_SAMPLER + 32);
        size_t w = (size_t)T * s->F;
        float *tmp = malloc(w * sizeof(float));
        if (!tmp) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
        for (int64_t i = d->n - 1; i > 0; i--) {
            int64_t j = (int64_t)gen_rng_below(&r, (uint64_t)i + 1);
            memcpy(tmp, d->x + (size_t)i * w, w * 4);
            memcpy(d->x + (size_t)i * w, d->x + (size_t)j * w, w * 4);
            memcpy(d->x + (size_t)j * w, tmp, w * 4);
        }
        free(tmp);
    }
done:
    free(map); free(order); free(starts); free(first);
    if (st != GENESIS_OK) {
        gen_seq_schema_free(s);
        gen_seq_data_free(d);
    }
    return st;
}

genesis_status gen_seq_windows_like(genesis_ctx *ctx, const genesis_table *t,
                                    const gen_seq_schema *s, int chunk, gen_seq_data *d) {
    memset(d, 0, sizeof *d);
    int *map = malloc((size_t)(s->ncols ? s->ncols : 1) * sizeof(int));
    GEN_RETURN_IF(!map, ctx, GENESIS_ERR_NOMEM, "out of memory");
    for (int c = 0; c < s->ncols; c++) {
        map[c] = gen_table_find_column(t, s->cols[c].name);
        if (map[c] < 0 || (!s->cols[c].categorical && t->cols[map[c]].nmissing > 0)) {
            const char *why = map[c] < 0 ? "is missing" : "has missing values";
            free(map);
            return gen_set_error(ctx, GENESIS_ERR_DATA,
                                 "%s: column '%s' (a feature of the real data) %s; both files need "
                                 "the same complete columns",
                                 t->source, s->cols[c].name, why);
        }
    }
    /* grouping: the entity column, else a generated file's "sequence" column */
    const char *gname = s->entity ? s->entity : (chunk ? "sequence" : NULL);
    int ecol = gname ? gen_table_find_column(t, gname) : -1;
    int tcol = s->time ? gen_table_find_column(t, s->time) : -1;
    if (s->entity && ecol < 0) {
        free(map);
        return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG, "%s: no column named '%s' (`entity`)", t->source, s->entity);
    }
    int64_t *order = NULL, *starts = NULL, ns = 0;
    int reverse = s->reversed && !chunk;
    genesis_status st = group_rows(ctx, t, ecol, tcol, reverse, gname, s->time, &order, &starts, &ns);
    if (st == GENESIS_OK) st = cut_windows(ctx, t, s, map, order, starts, ns, chunk, reverse, d, NULL);
    if (st == GENESIS_OK && chunk && s->reversed) { /* written oldest-first; the model's order is newest-first */
        size_t w = (size_t)s->F;
        float *tmp = malloc(w * sizeof(float));
        if (!tmp) st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; tmp && i < d->n; i++)
            for (int j = 0; j < s->T / 2; j++) {
                float *a = d->x + ((size_t)i * s->T + j) * w, *b = d->x + ((size_t)i * s->T + s->T - 1 - j) * w;
                memcpy(tmp, a, w * 4); memcpy(a, b, w * 4); memcpy(b, tmp, w * 4);
            }
        free(tmp);
    }
    free(map); free(order); free(starts);
    if (st != GENESIS_OK) gen_seq_data_free(d);
    return st;
}

static int fmt_num(char *buf, size_t cap, double v, int integer, int decimals) {
    if (integer) return snprintf(buf, cap, "%.0f", round(v));
    if (decimals >= 0) return snprintf(buf, cap, "%.*f", decimals, v);
    return snprintf(buf, cap, "%.17g", v);
}

/* id, the time column when there is one, and the features */
static int seq_written_cols(const gen_seq_schema *s) { return s->ncols + 1 + (s->time ? 1 : 0); }

genesis_status gen_seq_csv_open(genesis_ctx *ctx, const gen_seq_schema *s, const char *path,
                                gen_csv_writer **out) {
    gen_csv_writer *w = NULL;
    GEN_TRY(gen_csv_writer_open(ctx, path, s->delimiter ? s->delimiter : ',', &w));
    const char *idname = s->entity ? s->entity : "sequence";
    int total = seq_written_cols(s);
    genesis_status st = GENESIS_OK;
    for (int p = 0, c = 0; st == GENESIS_OK && p < total; p++) {
        const char *name = p == s->entity_pos ? idname : p == s->time_pos ? s->time : s->cols[c++].name;
        st = gen_csv_writer_field(w, name, strlen(name), p == total - 1);
    }
    if (st != GENESIS_OK) {
        gen_csv_writer_close(w, 0);
        return st;
    }
    *out = w;
    return GENESIS_OK;
}

genesis_status gen_seq_csv_rows(gen_csv_writer *w, const gen_seq_schema *s, const float *x,
                                int64_t n, int64_t first_id, gen_rng *grid_pick) {
    genesis_status st = GENESIS_OK;
    char buf[96];
    const int T = s->T, F = s->F;
    for (int64_t i = 0; st == GENESIS_OK && i < n; i++) {
        int64_t g = s->ngrid ? (int64_t)gen_rng_below(grid_pick, (uint64_t)s->ngrid) : 0;
        for (int k = 0; st == GENESIS_OK && k < T; k++) {
            int j = s->reversed ? T - 1 - k : k; /* back to the input's row order */
            const float *v = x + ((size_t)i * T + j) * F;
            int total = seq_written_cols(s), len;
            for (int p = 0, c = 0; st == GENESIS_OK && p < total; p++) {
                int last = p == total - 1;
                if (p == s->entity_pos) {
                    len = snprintf(buf, sizeof buf, "%lld", (long long)(first_id + i));
                    st = gen_csv_writer_field(w, buf, (size_t)len, last);
                    continue;
                }
                if (p == s->time_pos) {
                    len = fmt_num(buf, sizeof buf, s->grid[g * T + j], s->time_integer, s->time_decimals);
                    st = gen_csv_writer_field(w, buf, (size_t)len, last);
                    continue;
                }
                const gen_seq_col *sc = &s->cols[c++];
                if (!sc->categorical) {
                    int f = sc->offset;
                    double u = (double)v[f] * s->inner_max[f] + s->inner_min[f]; /* loader scale */
                    double raw = u * (sc->max - sc->min + 1e-7) + sc->min;
                    len = fmt_num(buf, sizeof buf, raw, sc->is_integer, sc->decimals);
                    st = gen_csv_writer_field(w, buf, (size_t)len, last);
                } else {
                    int best = 0;
                    for (int q = 1; q < sc->width; q++)
                        if (v[sc->offset + q] > v[sc->offset + best]) best = q;
                    const char *txt = sc->nlevels ? sc->levels[best] : "";
                    st = gen_csv_writer_field(w, txt, strlen(txt), last);
                }
            }
        }
    }
    return st;
}

/* ---- model file section --------------------------------------------------------------------- */

void gen_seq_schema_save(const gen_seq_schema *s, gen_bytes *b) {
    gen_wr_u32(b, (uint32_t)s->T);
    gen_wr_u32(b, (uint32_t)s->F);
    gen_wr_u32(b, (uint32_t)(unsigned char)s->delimiter);
    gen_wr_u32(b, (uint32_t)s->reversed);
    gen_wr_str(b, s->entity);
    gen_wr_str(b, s->time);
    gen_wr_u32(b, (uint32_t)s->time_integer);
    gen_wr_u32(b, (uint32_t)(s->time_decimals + 1));
    gen_wr_u32(b, (uint32_t)s->ncols);
    for (int c = 0; c < s->ncols; c++) {
        const gen_seq_col *sc = &s->cols[c];
        gen_wr_str(b, sc->name);
        gen_wr_u32(b, (uint32_t)sc->categorical);
        gen_wr_u32(b, (uint32_t)sc->width);
        gen_wr_f64(b, sc->min);
        gen_wr_f64(b, sc->max);
        gen_wr_u32(b, (uint32_t)sc->is_integer);
        gen_wr_u32(b, (uint32_t)(sc->decimals + 1));
        gen_wr_u32(b, (uint32_t)sc->nlevels);
        for (int k = 0; k < sc->nlevels; k++) gen_wr_str(b, sc->levels[k]);
    }
    gen_wr_u32(b, (uint32_t)s->entity_pos);
    gen_wr_u32(b, (uint32_t)(s->time_pos + 1));
    gen_wr_f32s(b, s->inner_min, (size_t)s->F);
    gen_wr_f32s(b, s->inner_max, (size_t)s->F);
    gen_wr_u64(b, (uint64_t)s->ngrid);
    gen_wr_f64s(b, s->grid, (size_t)s->ngrid * s->T);
}

genesis_status gen_seq_schema_load(gen_seq_schema *s, gen_reader *r) {
    memset(s, 0, sizeof *s);
    int delim, dec, ncols;
    genesis_status st = GENESIS_OK;
#define SEQ_TRY(call) do { if ((st = (call)) != GENESIS_OK) goto fail; } while (0)
    SEQ_TRY(gen_rd_count(r, 1, 100000, "sequence length", &s->T));
    SEQ_TRY(gen_rd_count(r, 1, 1u << 20, "feature width", &s->F));
    SEQ_TRY(gen_rd_count(r, 1, 255, "delimiter", &delim));
    s->delimiter = (char)delim;
    SEQ_TRY(gen_rd_count(r, 0, 1, "reversal flag", &s->reversed));
    SEQ_TRY(gen_rd_str(r, &s->entity));
    SEQ_TRY(gen_rd_str(r, &s->time));
    SEQ_TRY(gen_rd_count(r, 0, 1, "time integer flag", &s->time_integer));
    SEQ_TRY(gen_rd_count(r, 0, 18, "time decimals", &dec));
    s->time_decimals = dec - 1;
    SEQ_TRY(gen_rd_count(r, 1, 100000, "feature column count", &ncols));
    if ((size_t)ncols * 32 > r->len - r->pos) { st = gen_rd_fail(r, "sequence column table is truncated"); goto fail; }
    s->cols = calloc((size_t)ncols, sizeof *s->cols);
    if (!s->cols) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
    int off = 0;
    for (int c = 0; c < ncols; c++) {
        gen_seq_col *sc = &s->cols[c];
        s->ncols = c + 1;
        SEQ_TRY(gen_rd_str(r, &sc->name));
        if (!sc->name) { st = gen_rd_fail(r, "a sequence column has no name"); goto fail; }
        SEQ_TRY(gen_rd_count(r, 0, 1, "categorical flag", &sc->categorical));
        SEQ_TRY(gen_rd_count(r, 1, SEQ_MAX_LEVELS, "column width", &sc->width));
        SEQ_TRY(gen_rd_f64(r, &sc->min));
        SEQ_TRY(gen_rd_f64(r, &sc->max));
        SEQ_TRY(gen_rd_count(r, 0, 1, "integer flag", &sc->is_integer));
        SEQ_TRY(gen_rd_count(r, 0, 18, "decimals", &dec));
        sc->decimals = dec - 1;
        SEQ_TRY(gen_rd_count(r, 0, SEQ_MAX_LEVELS, "level count", &sc->nlevels));
        if (!isfinite(sc->min) || !isfinite(sc->max) || sc->max < sc->min ||
            (sc->categorical ? sc->nlevels != sc->width : sc->width != 1 || sc->nlevels != 0)) {
            st = gen_rd_fail(r, "a sequence column's range or layout is inconsistent");
            goto fail;
        }
        sc->offset = off;
        off += sc->width;
        sc->levels = calloc((size_t)(sc->nlevels ? sc->nlevels : 1), sizeof(char *));
        if (!sc->levels) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
        for (int k = 0; k < sc->nlevels; k++) {
            SEQ_TRY(gen_rd_str(r, &sc->levels[k]));
            if (!sc->levels[k]) { st = gen_rd_fail(r, "a category level is missing"); goto fail; }
        }
    }
    if (off != s->F) { st = gen_rd_fail(r, "sequence columns do not tile the feature vector"); goto fail; }
    {
        int total = seq_written_cols(s), tp;
        SEQ_TRY(gen_rd_count(r, 0, total - 1, "id column position", &s->entity_pos));
        SEQ_TRY(gen_rd_count(r, 0, total, "time column position", &tp));
        s->time_pos = tp - 1;
        if ((s->time != NULL) != (s->time_pos >= 0) || s->time_pos == s->entity_pos) {
            st = gen_rd_fail(r, "the id and time column positions are inconsistent");
            goto fail;
        }
    }
    if ((size_t)s->F * 8 > r->len - r->pos) { st = gen_rd_fail(r, "sequence scalers are truncated"); goto fail; }
    s->inner_min = malloc((size_t)s->F * sizeof(float));
    s->inner_max = malloc((size_t)s->F * sizeof(float));
    if (!s->inner_min || !s->inner_max) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
    SEQ_TRY(gen_rd_f32s(r, s->inner_min, (size_t)s->F));
    SEQ_TRY(gen_rd_f32s(r, s->inner_max, (size_t)s->F));
    for (int f = 0; f < s->F; f++)
        if (!isfinite(s->inner_min[f]) || !isfinite(s->inner_max[f])) { st = gen_rd_fail(r, "a sequence scaler is not finite"); goto fail; }
    uint64_t ng;
    SEQ_TRY(gen_rd_u64(r, &ng));
    if (ng > SEQ_MAX_GRID || (ng > 0) != (s->time != NULL) || ng * (uint64_t)s->T * 8 > r->len - r->pos) {
        st = gen_rd_fail(r, "the time grid is inconsistent or truncated");
        goto fail;
    }
    s->ngrid = (int64_t)ng;
    if (ng) {
        s->grid = malloc((size_t)ng * s->T * sizeof(double));
        if (!s->grid) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
        SEQ_TRY(gen_rd_f64s(r, s->grid, (size_t)ng * s->T));
    }
    return GENESIS_OK;
#undef SEQ_TRY
fail:
    gen_seq_schema_free(s);
    return st;
}
