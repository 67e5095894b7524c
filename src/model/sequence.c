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
 *   Categorical feature columns are one-hot (decoded by argmax). Missing values (as the
 *   tabular transformer's null slot, docs/timegan.md §5): a continuous column with any gets
 *   a second feature, its missing mask (the value feature is 0 there), a categorical one a
 *   missing level; decoding draws missing with the mask's value (the missing level's share
 *   of the column's outputs) as the probability, so the missing rate follows the mask's
 *   mean, which the generator's moment loss matches. Output (gen_seq_layout/gen_seq_decode,
 *   rows for the shared sampling pipeline), in the input's column order: the entity column
 *   (or a new first column "sequence") numbering the generated sequences 1..n, the time
 *   column with the time values of a randomly drawn real window (the real time grid), the
 *   feature columns in raw units. Date columns (the table's, src/data/datetime.c) are numbers, UTC
 *   seconds: a date time column orders the rows, a date feature is min-max scaled like any
 *   number; both are written back in their own format. An identifier column other than the
 *   entity is refused.
 */
#include <ctype.h>
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
        if (s->cols[c].levels) /* a load that failed before the levels were allocated */
            for (int k = 0; k < s->cols[c].nlevels; k++) free(s->cols[c].levels[k]);
        free(s->cols[c].levels);
        free(s->cols[c].na_text);
    }
    free(s->cols);
    free(s->inner_min);
    free(s->inner_max);
    free(s->entity);
    free(s->time);
    free(s->grid);
    for (int k = 0; s->cal_name && k < s->ncal; k++) free(s->cal_name[k]);
    free(s->cal_name);
    free(s->cal_pos);
    free(s->cal_integer);
    free(s->cal_decimals);
    free(s->cal_grid);
    memset(s, 0, sizeof *s);
}

void gen_seq_data_free(gen_seq_data *d) {
    if (!d) return;
    free(d->x);
    memset(d, 0, sizeof *d);
}

/* Value of a numeric or numeric-text column at row i (NaN when missing or not a number; a
 * text that strtod reads as infinite or NaN, "inf" or "1e999", is not a number, as the CSV
 * reader types it). */
static double col_number(const gen_column *c, int64_t i) {
    if (c->type == GENESIS_COLUMN_CONTINUOUS) return c->num[i];
    if (c->cat[i] < 0) return NAN;
    char *end;
    const char *s = c->levels[c->cat[i]];
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    return (end == s || *end || !isfinite(v)) ? NAN : v;
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
                                     "%lld; `time` needs numbers or dates (e.g. a step index, a "
                                     "Unix time or an ISO date)",
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
            out[sc->offset] = isnan(v) ? 0.0f : (float)((v - sc->min) / (sc->max - sc->min + 1e-7));
            if (sc->width == 2) out[sc->offset + 1] = isnan(v) ? 1.0f : 0.0f;
        } else {
            for (int k = 0; k < sc->width; k++) out[sc->offset + k] = 0.0f;
            const char *txt = col->type == GENESIS_COLUMN_CATEGORICAL && col->cat[i] >= 0 ? col->levels[col->cat[i]] : NULL;
            char buf[64];
            if (col->type == GENESIS_COLUMN_CONTINUOUS && !isnan(col->num[i])) {
                snprintf(buf, sizeof buf, "%.17g", col->num[i]);
                txt = buf;
            }
            int k = txt ? 0 : sc->nlevels; /* nlevels: the missing level, when there is one */
            while (k < sc->nlevels && strcmp(sc->levels[k], txt)) k++;
            if (k < sc->nlevels || (!txt && k < sc->width)) out[sc->offset + k] = 1.0f;
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

/* A calendar column by its name: a part of a date or time of day (case and '_' ignored). */
static int calendar_name(const char *name) {
    static const char *const names[] = {"year", "month", "day", "hour", "minute", "second",
                                        "weekday", "dayofweek", "dow", "week", "weekofyear",
                                        "quarter", "dayofyear", "doy", "dayofmonth"};
    char buf[32];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof buf; c++)
        if (*c != '_' && *c != ' ') buf[n++] = (char)tolower((unsigned char)*c);
    buf[n] = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(buf, names[k])) return 1;
    return 0;
}

/* Is column c in the comma-separated list? */
static int in_list(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Marks the calendar columns (docs/timegan.md §5): named ones holding a whole number in every
 * row, or those `calendar` lists ("none": no column). A listed column that is missing or not
 * numeric in every row is an error naming it. */
static genesis_status find_calendar(genesis_ctx *ctx, const genesis_table *t, int ecol, int tcol,
                                    const char *calendar, char *is_cal, int *ncal) {
    *ncal = 0;
    int none = calendar && !strcmp(calendar, "none");
    if (calendar && !none) {
        for (const char *p = calendar; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int found = 0;
            for (int c = 0; c < t->ncols; c++)
                if (strlen(t->cols[c].name) == len && !strncmp(t->cols[c].name, p, len)) found = 1;
            GEN_RETURN_IF(!found, ctx, GENESIS_ERR_INVALID_ARG,
                          "%s: no column named '%.*s' (given by `calendar`); check the header line",
                          t->source, (int)len, p);
            if (!e) break;
            p = e + 1;
        }
    }
    for (int c = 0; c < t->ncols; c++) {
        is_cal[c] = 0;
        if (c == ecol || c == tcol || none) continue;
        const gen_column *col = &t->cols[c];
        int listed = calendar ? in_list(calendar, col->name) : calendar_name(col->name);
        if (!listed) continue;
        int whole = 1, numeric = 1;
        for (int64_t i = 0; i < t->nrows && numeric; i++) {
            double v = col_number(col, i);
            if (isnan(v)) numeric = 0;
            else if (v != floor(v)) whole = 0;
        }
        if (calendar) {
            GEN_RETURN_IF(!numeric, ctx, GENESIS_ERR_DATA,
                          "%s: the calendar column '%s' is missing or not a number in some row; "
                          "`calendar` needs numbers in every row", t->source, col->name);
        } else if (!numeric || !whole) {
            continue; /* by its name only when it holds whole numbers throughout */
        }
        is_cal[c] = 1;
        (*ncal)++;
    }
    return GENESIS_OK;
}

genesis_status gen_seq_build(genesis_ctx *ctx, const genesis_table *t, int T, const char *entity,
                             const char *time, const char *calendar, uint64_t shuffle_seed,
                             gen_seq_schema *s, gen_seq_data *d) {
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
    char *is_cal = malloc((size_t)t->ncols);
    int *cal_col = NULL;
    genesis_status st = GENESIS_OK;
    if (!s->cols || !map || !is_cal || (entity && !s->entity) || (time && !s->time)) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the written columns keep the input's order; a generated "sequence" id comes first */
    s->entity_pos = ecol >= 0 ? ecol : 0;
    s->time_pos = tcol < 0 ? -1 : ecol >= 0 ? tcol : tcol + 1;
    st = find_calendar(ctx, t, ecol, tcol, calendar, is_cal, &s->ncal);
    if (st != GENESIS_OK) goto done;
    if (s->ncal) {
        s->cal_name = calloc((size_t)s->ncal, sizeof(char *));
        s->cal_pos = malloc((size_t)s->ncal * sizeof(int));
        s->cal_integer = malloc((size_t)s->ncal * sizeof(int));
        s->cal_decimals = malloc((size_t)s->ncal * sizeof(int));
        cal_col = malloc((size_t)s->ncal * sizeof(int));
        if (!s->cal_name || !s->cal_pos || !s->cal_integer || !s->cal_decimals || !cal_col) {
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (int c = 0, k = 0; c < t->ncols; c++) {
            if (!is_cal[c]) continue;
            const gen_column *col = &t->cols[c];
            cal_col[k] = c;
            s->cal_pos[k] = ecol >= 0 ? c : c + 1;
            s->cal_integer[k] = 1;
            for (int64_t i = 0; i < t->nrows && s->cal_integer[k]; i++)
                if (col_number(col, i) != floor(col_number(col, i))) s->cal_integer[k] = 0;
            s->cal_decimals[k] = col->type == GENESIS_COLUMN_CONTINUOUS ? col->decimals : -1;
            if (!(s->cal_name[k] = gen_strdup(col->name))) {
                st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
                goto done;
            }
            gen_log(ctx, GENESIS_LOG_INFO,
                    "%s: column \"%s\" is a calendar column: written from the real windows the "
                    "time values come from, not modelled (none in `calendar` models it)",
                    t->source, col->name);
            k++;
        }
    }
    /* feature columns */
    for (int c = 0; c < t->ncols; c++) {
        if (c == ecol || c == tcol || is_cal[c]) continue;
        const gen_column *col = &t->cols[c];
        gen_seq_col *sc = &s->cols[s->ncols];
        map[s->ncols] = c;
        sc->name = gen_strdup(col->name);
        if (!sc->name) { st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory"); goto done; }
        sc->offset = s->F;
        s->ncols++;
        if (col->na_text && col->na_text[0] && !(sc->na_text = gen_strdup(col->na_text))) {
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (col->id.kind != GEN_ID_NONE) {
            st = gen_set_error(ctx, GENESIS_ERR_DATA,
                               "%s: column '%s' is an identifier column; TimeGAN does not generate "
                               "identifiers besides the entity column: name it as `entity`, or "
                               "drop it", t->source, col->name);
            goto done;
        }
        int missing = col->nmissing > 0; /* one more feature: the mask or missing level */
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            sc->width = 1 + missing;
            sc->min = INFINITY;
            sc->max = -INFINITY;
            for (int64_t i = 0; i < t->nrows; i++) { /* fmin/fmax skip NaN */
                sc->min = fmin(sc->min, col->num[i]);
                sc->max = fmax(sc->max, col->num[i]);
            }
            if (!(sc->min <= sc->max)) sc->min = sc->max = 0; /* no value at all */
            sc->is_integer = col->is_integer;
            sc->decimals = col->decimals;
            sc->dt = col->dt;
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
            sc->width = col->nlevels + missing;
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
        st = gen_set_error(ctx, GENESIS_ERR_DATA, "%s: no feature columns left besides the entity, time and calendar columns%s", t->source,
                           s->ncal ? " (`calendar none` models the calendar columns)" : "");
        goto done;
    }
    if (tcol >= 0) {
        const gen_column *tc = &t->cols[tcol];
        s->time_integer = tc->type == GENESIS_COLUMN_CONTINUOUS ? tc->is_integer : 1;
        s->time_decimals = tc->type == GENESIS_COLUMN_CONTINUOUS ? tc->decimals : -1;
        if (tc->type == GENESIS_COLUMN_CONTINUOUS) s->time_dt = tc->dt;
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
    /* the real time grid: time values (and calendar columns) of up to SEQ_MAX_GRID windows,
     * evenly spread */
    if (tcol >= 0 || s->ncal) {
        s->ngrid = d->n < SEQ_MAX_GRID ? d->n : SEQ_MAX_GRID;
        if (tcol >= 0 && !(s->grid = malloc((size_t)s->ngrid * T * sizeof(double)))) {
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (s->ncal && !(s->cal_grid = malloc((size_t)s->ngrid * T * s->ncal * sizeof(double)))) {
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (int64_t g = 0; g < s->ngrid; g++) {
            int64_t w = g * d->n / s->ngrid;
            for (int j = 0; j < T; j++) {
                int64_t row = order[first[w] + j];
                if (tcol >= 0) s->grid[g * T + j] = col_number(&t->cols[tcol], row);
                for (int k = 0; k < s->ncal; k++)
                    s->cal_grid[(g * T + j) * s->ncal + k] = col_number(&t->cols[cal_col[k]], row);
            }
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
    free(map); free(order); free(starts); free(first); free(is_cal); free(cal_col);
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
        if (map[c] < 0 ||
            (s->cols[c].width == 1 && !s->cols[c].categorical && t->cols[map[c]].nmissing > 0)) {
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

/* id, the time column when there is one, and the features */
static int seq_written_cols(const gen_seq_schema *s) { return s->ncols + 1 + (s->time ? 1 : 0) + s->ncal; }

/* the calendar column written at position p, or -1 */
static int calendar_at(const gen_seq_schema *s, int p) {
    for (int k = 0; k < s->ncal; k++)
        if (s->cal_pos[k] == p) return k;
    return -1;
}

genesis_status gen_seq_layout(const gen_seq_schema *s, gen_transformer *tf) {
    memset(tf, 0, sizeof *tf);
    int total = seq_written_cols(s);
    if (!(tf->cols = calloc((size_t)total, sizeof *tf->cols))) return GENESIS_ERR_NOMEM;
    tf->ncols = total;
    tf->data_dim = s->F;
    tf->delimiter = s->delimiter ? s->delimiter : ',';
    for (int p = 0, c = 0; p < total; p++) {
        gen_col_transform *ct = &tf->cols[p];
        int id = p == s->entity_pos, tm = p == s->time_pos, cal = calendar_at(s, p);
        const gen_seq_col *sc = id || tm || cal >= 0 ? NULL : &s->cols[c++];
        if (cal >= 0) { /* a calendar column: a number, printed as read */
            ct->name = gen_strdup(s->cal_name[cal]);
            ct->na_text = gen_strdup("");
            ct->missing_slot = ct->rare_slot = -1;
            ct->type = GENESIS_COLUMN_CONTINUOUS;
            ct->is_integer = s->cal_integer[cal];
            ct->decimals = s->cal_decimals[cal];
            if (!ct->name || !ct->na_text) goto nomem;
            continue;
        }
        ct->name = gen_strdup(id ? (s->entity ? s->entity : "sequence") : tm ? s->time : sc->name);
        ct->na_text = gen_strdup(sc && sc->na_text ? sc->na_text : "");
        ct->missing_slot = ct->rare_slot = -1;
        ct->type = sc && sc->categorical ? GENESIS_COLUMN_CATEGORICAL : GENESIS_COLUMN_CONTINUOUS;
        ct->is_integer = sc ? sc->is_integer : id || s->time_integer;
        ct->decimals = sc ? sc->decimals : id ? 0 : s->time_decimals;
        if (!id) ct->dt = sc ? sc->dt : s->time_dt;
        if (!ct->name || !ct->na_text) goto nomem;
        if (ct->type == GENESIS_COLUMN_CATEGORICAL) {
            ct->n_slots = sc->width;
            if (!(ct->slot_text = calloc((size_t)sc->width, sizeof(char *)))) goto nomem;
            for (int k = 0; k < sc->nlevels; k++)
                if (!(ct->slot_text[k] = gen_strdup(sc->levels[k]))) goto nomem;
            if (sc->width > sc->nlevels) ct->missing_slot = sc->nlevels;
        }
    }
    return GENESIS_OK;
nomem:
    gen_transformer_free(tf);
    return GENESIS_ERR_NOMEM;
}

/* a feature in the loader's [0, 1] scale (undoes the inner scaler) */
static double loader_scale(const gen_seq_schema *s, const float *v, int f) {
    return (double)v[f] * s->inner_max[f] + s->inner_min[f];
}

void gen_seq_decode(const gen_seq_schema *s, const float *x, int64_t n, int64_t first_id,
                    gen_rng *grid_pick, gen_rng *miss, gen_rowbatch *rb) {
    const int T = s->T, F = s->F;
    for (int64_t i = 0; i < n; i++) {
        int64_t g = s->ngrid ? (int64_t)gen_rng_below(grid_pick, (uint64_t)s->ngrid) : 0;
        for (int k = 0; k < T; k++) {
            int64_t r = i * T + k;
            int j = s->reversed ? T - 1 - k : k; /* back to the input's row order */
            const float *v = x + ((size_t)i * T + j) * F;
            for (int p = 0, c = 0; p < rb->ncols; p++) {
                if (p == s->entity_pos) { rb->num[p][r] = (double)(first_id + i); continue; }
                if (p == s->time_pos) { rb->num[p][r] = s->grid[g * T + j]; continue; }
                int cal = s->ncal ? calendar_at(s, p) : -1;
                if (cal >= 0) { rb->num[p][r] = s->cal_grid[(g * T + j) * s->ncal + cal]; continue; }
                const gen_seq_col *sc = &s->cols[c++];
                int f = sc->offset;
                int na = 0; /* drawn with the mask's value (the missing level's share) */
                if (sc->width > (sc->categorical ? sc->nlevels : 1)) {
                    double pr = fmax(loader_scale(s, v, f + sc->width - 1), 0), sum = 0;
                    for (int q = 0; sc->categorical && q < sc->width; q++)
                        sum += fmax(loader_scale(s, v, f + q), 0);
                    na = gen_rng_uniform(miss) < (!sc->categorical ? pr : sum > 0 ? pr / sum : 0);
                }
                if (sc->categorical) { /* argmax over the levels */
                    int best = 0;
                    for (int q = 1; q < sc->nlevels; q++)
                        if (v[f + q] > v[f + best]) best = q;
                    rb->cat[p][r] = na ? sc->nlevels : best;
                    continue;
                }
                double raw = loader_scale(s, v, f) * (sc->max - sc->min + 1e-7) + sc->min;
                if (sc->is_integer) raw = round(raw);
                rb->num[p][r] = na ? NAN : raw;
            }
        }
    }
}

/* ---- model file section --------------------------------------------------------------------- */

void gen_seq_schema_save(const gen_seq_schema *s, gen_bytes *b) {
    gen_wr_u32(b, (uint32_t)s->T);
    gen_wr_u32(b, (uint32_t)s->F);
    gen_wr_u32(b, (uint32_t)(unsigned char)s->delimiter);
    /* bit 1: calendar columns (their record follows the feature columns, their grid the time
     * grid); written only when there are some, so that files without keep their bytes */
    gen_wr_u32(b, (uint32_t)s->reversed | (s->ncal ? 2u : 0u));
    gen_wr_str(b, s->entity);
    gen_wr_str(b, s->time);
    gen_wr_u32(b, (uint32_t)s->time_integer | (s->time_dt.pattern[0] ? 2u : 0u)); /* 2: a date */
    if (s->time_dt.pattern[0]) gen_dt_save(&s->time_dt, b);
    gen_wr_u32(b, (uint32_t)(s->time_decimals + 1));
    gen_wr_u32(b, (uint32_t)s->ncols);
    for (int c = 0; c < s->ncols; c++) {
        const gen_seq_col *sc = &s->cols[c];
        gen_wr_str(b, sc->name);
        int na = sc->na_text && sc->na_text[0];
        /* 2: a date; 4: a missing-value token follows (only then: files without one keep
         * their bytes) */
        gen_wr_u32(b, (uint32_t)sc->categorical | (sc->dt.pattern[0] ? 2u : 0u) | (na ? 4u : 0u));
        if (sc->dt.pattern[0]) gen_dt_save(&sc->dt, b);
        if (na) gen_wr_str(b, sc->na_text);
        gen_wr_u32(b, (uint32_t)sc->width);
        gen_wr_f64(b, sc->min);
        gen_wr_f64(b, sc->max);
        gen_wr_u32(b, (uint32_t)sc->is_integer);
        gen_wr_u32(b, (uint32_t)(sc->decimals + 1));
        gen_wr_u32(b, (uint32_t)sc->nlevels);
        for (int k = 0; k < sc->nlevels; k++) gen_wr_str(b, sc->levels[k]);
    }
    if (s->ncal) {
        gen_wr_u32(b, (uint32_t)s->ncal);
        for (int k = 0; k < s->ncal; k++) {
            gen_wr_str(b, s->cal_name[k]);
            gen_wr_u32(b, (uint32_t)s->cal_pos[k]);
            gen_wr_u32(b, (uint32_t)s->cal_integer[k]);
            gen_wr_u32(b, (uint32_t)(s->cal_decimals[k] + 1));
        }
    }
    gen_wr_u32(b, (uint32_t)s->entity_pos);
    gen_wr_u32(b, (uint32_t)(s->time_pos + 1));
    gen_wr_f32s(b, s->inner_min, (size_t)s->F);
    gen_wr_f32s(b, s->inner_max, (size_t)s->F);
    gen_wr_u64(b, (uint64_t)s->ngrid);
    if (s->time) gen_wr_f64s(b, s->grid, (size_t)s->ngrid * s->T);
    if (s->ncal) gen_wr_f64s(b, s->cal_grid, (size_t)s->ngrid * s->T * s->ncal);
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
    SEQ_TRY(gen_rd_count(r, 0, 3, "reversal flag", &s->reversed));
    int has_cal = s->reversed >> 1;
    s->reversed &= 1;
    SEQ_TRY(gen_rd_str(r, &s->entity));
    SEQ_TRY(gen_rd_str(r, &s->time));
    SEQ_TRY(gen_rd_count(r, 0, 3, "time integer flag", &s->time_integer));
    if (s->time_integer & 2) SEQ_TRY(gen_dt_load(&s->time_dt, r));
    s->time_integer &= 1;
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
        SEQ_TRY(gen_rd_count(r, 0, 6, "categorical flag", &sc->categorical));
        if ((sc->categorical & 3) == 3) { st = gen_rd_fail(r, "a sequence column is both a date and categorical"); goto fail; }
        if (sc->categorical & 2) SEQ_TRY(gen_dt_load(&sc->dt, r));
        if (sc->categorical & 4) {
            SEQ_TRY(gen_rd_str(r, &sc->na_text));
            if (!sc->na_text) { st = gen_rd_fail(r, "a sequence column's missing-value token is empty"); goto fail; }
        }
        sc->categorical &= 1;
        SEQ_TRY(gen_rd_count(r, 1, SEQ_MAX_LEVELS + 1, "column width", &sc->width));
        SEQ_TRY(gen_rd_f64(r, &sc->min));
        SEQ_TRY(gen_rd_f64(r, &sc->max));
        SEQ_TRY(gen_rd_count(r, 0, 1, "integer flag", &sc->is_integer));
        SEQ_TRY(gen_rd_count(r, 0, 18, "decimals", &dec));
        sc->decimals = dec - 1;
        int nlev = 0; /* sc->nlevels is set once sc->levels holds that many slots */
        SEQ_TRY(gen_rd_count(r, 0, SEQ_MAX_LEVELS, "level count", &nlev));
        if (!isfinite(sc->min) || !isfinite(sc->max) || sc->max < sc->min ||
            (sc->categorical ? (unsigned)(sc->width - nlev) > 1u
                             : sc->width > 2 || nlev != 0)) {
            st = gen_rd_fail(r, "a sequence column's range or layout is inconsistent");
            goto fail;
        }
        sc->offset = off;
        off += sc->width;
        sc->levels = calloc((size_t)(nlev ? nlev : 1), sizeof(char *));
        if (!sc->levels) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
        sc->nlevels = nlev;
        for (int k = 0; k < sc->nlevels; k++) {
            SEQ_TRY(gen_rd_str(r, &sc->levels[k]));
            if (!sc->levels[k]) { st = gen_rd_fail(r, "a category level is missing"); goto fail; }
        }
    }
    if (off != s->F) { st = gen_rd_fail(r, "sequence columns do not tile the feature vector"); goto fail; }
    if (has_cal) {
        int ncal;
        SEQ_TRY(gen_rd_count(r, 1, 1000, "calendar column count", &ncal));
        s->cal_name = calloc((size_t)ncal, sizeof(char *));
        s->cal_pos = malloc((size_t)ncal * sizeof(int));
        s->cal_integer = malloc((size_t)ncal * sizeof(int));
        s->cal_decimals = malloc((size_t)ncal * sizeof(int));
        if (!s->cal_name || !s->cal_pos || !s->cal_integer || !s->cal_decimals) {
            st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto fail;
        }
        s->ncal = ncal;
        for (int k = 0; k < ncal; k++) {
            SEQ_TRY(gen_rd_str(r, &s->cal_name[k]));
            if (!s->cal_name[k]) { st = gen_rd_fail(r, "a calendar column has no name"); goto fail; }
            SEQ_TRY(gen_rd_count(r, 0, 1 << 20, "calendar column position", &s->cal_pos[k]));
            SEQ_TRY(gen_rd_count(r, 0, 1, "calendar integer flag", &s->cal_integer[k]));
            SEQ_TRY(gen_rd_count(r, 0, 18, "calendar decimals", &dec));
            s->cal_decimals[k] = dec - 1;
        }
    }
    {
        int total = seq_written_cols(s), tp;
        SEQ_TRY(gen_rd_count(r, 0, total - 1, "id column position", &s->entity_pos));
        SEQ_TRY(gen_rd_count(r, 0, total, "time column position", &tp));
        s->time_pos = tp - 1;
        if ((s->time != NULL) != (s->time_pos >= 0) || s->time_pos == s->entity_pos) {
            st = gen_rd_fail(r, "the id and time column positions are inconsistent");
            goto fail;
        }
        for (int k = 0; k < s->ncal; k++) {
            int clash = s->cal_pos[k] >= total || s->cal_pos[k] == s->entity_pos || s->cal_pos[k] == s->time_pos;
            for (int q = 0; q < k; q++) clash |= s->cal_pos[q] == s->cal_pos[k];
            if (clash) { st = gen_rd_fail(r, "the calendar column positions are inconsistent"); goto fail; }
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
    uint64_t per = (uint64_t)(s->time ? 1 : 0) + (uint64_t)s->ncal; /* values per grid step */
    if (ng > SEQ_MAX_GRID || (ng > 0) != (per > 0) || ng * (uint64_t)s->T * per * 8 > r->len - r->pos) {
        st = gen_rd_fail(r, "the time grid is inconsistent or truncated");
        goto fail;
    }
    s->ngrid = (int64_t)ng;
    if (ng && s->time) {
        s->grid = malloc((size_t)ng * s->T * sizeof(double));
        if (!s->grid) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
        SEQ_TRY(gen_rd_f64s(r, s->grid, (size_t)ng * s->T));
    }
    if (ng && s->ncal) {
        s->cal_grid = malloc((size_t)ng * s->T * s->ncal * sizeof(double));
        if (!s->cal_grid) { st = gen_set_error(r->ctx, GENESIS_ERR_NOMEM, "out of memory"); goto fail; }
        SEQ_TRY(gen_rd_f64s(r, s->cal_grid, (size_t)ng * s->T * s->ncal));
        for (size_t i = 0; i < (size_t)ng * s->T * s->ncal; i++)
            if (!isfinite(s->cal_grid[i])) { st = gen_rd_fail(r, "a calendar value is not finite"); goto fail; }
    }
    return GENESIS_OK;
#undef SEQ_TRY
fail:
    gen_seq_schema_free(s);
    return st;
}
