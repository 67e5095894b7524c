/*
 * test_transform.c — the data transformer (src/transform/transform.c) on tables built in memory:
 * encode -> dense rows -> decode round trips (bimodal, point masses at 0 and at a capped
 * maximum, missing values of both kinds, integer columns, the quantile normalisation), the
 * decode guarantees on arbitrary network outputs (range, integers, argmax ties), the
 * categorical cap with a rare slot that decodes to pooled levels by their frequency,
 * degenerate tables (constant column, one row, no rows), the span layout, determinism across
 * seeds and thread counts, encoding a second table by level text, and the CSV text of
 * decoded rows.
 */
#include "test_util.h"
#include "quantile.h"
#include "transform.h"

/* ---- tables in memory ---------------------------------------------------------------- */

static genesis_table *tt_new(int ncols, int64_t nrows) {
    genesis_table *t = calloc(1, sizeof *t);
    ck_assert(t);
    t->ncols = ncols;
    t->nrows = nrows;
    t->delimiter = ',';
    t->cols = calloc((size_t)ncols, sizeof *t->cols);
    ck_assert(t->cols);
    return t;
}

/* Continuous column c; takes a copy of vals. */
static void tt_cont(genesis_table *t, int c, const char *name, const double *vals, int is_integer,
                    int decimals, const char *na) {
    gen_column *col = &t->cols[c];
    col->name = gen_strdup(name);
    col->type = GENESIS_COLUMN_CONTINUOUS;
    col->num = malloc((size_t)(t->nrows > 0 ? t->nrows : 1) * sizeof(double));
    ck_assert(col->num);
    for (int64_t i = 0; i < t->nrows; i++) {
        col->num[i] = vals[i];
        col->nmissing += isnan(vals[i]);
    }
    col->is_integer = is_integer;
    col->decimals = decimals;
    col->na_text = gen_strdup(na);
}

/* Categorical column c with levels "<prefix><k>" (k < nlevels); takes a copy of codes. */
static void tt_cat(genesis_table *t, int c, const char *name, const int32_t *codes, int32_t nlevels,
                   const char *prefix, const char *na) {
    gen_column *col = &t->cols[c];
    col->name = gen_strdup(name);
    col->type = GENESIS_COLUMN_CATEGORICAL;
    col->cat = malloc((size_t)(t->nrows > 0 ? t->nrows : 1) * sizeof(int32_t));
    col->levels = calloc((size_t)(nlevels > 0 ? nlevels : 1), sizeof(char *));
    ck_assert(col->cat && col->levels);
    for (int64_t i = 0; i < t->nrows; i++) {
        col->cat[i] = codes[i];
        col->nmissing += codes[i] < 0;
    }
    for (int32_t k = 0; k < nlevels; k++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s%d", prefix, (int)k);
        col->levels[k] = gen_strdup(buf);
    }
    col->nlevels = nlevels;
    col->na_text = gen_strdup(na);
}

static void tt_free(genesis_table *t) {
    for (int c = 0; c < t->ncols; c++) {
        gen_column *col = &t->cols[c];
        free(col->name);
        free(col->num);
        free(col->cat);
        for (int32_t k = 0; k < col->nlevels; k++) free(col->levels[k]);
        free(col->levels);
        free(col->na_text);
    }
    free(t->cols);
    free(t);
}

typedef struct {
    genesis_ctx *ctx;
    gen_transformer tf;
    gen_encoded enc;
    float *dense; /* nrows x data_dim */
    gen_rowbatch rb;
} tt_run;

/* fit + transform + gather every row + decode the gathered rows */
static void tt_roundtrip(tt_run *r, const genesis_table *t, const gen_transform_opts *o) {
    ck_assert_int_eq(genesis_ctx_create(&r->ctx), GENESIS_OK);
    genesis_status st = gen_transformer_fit(r->ctx, &r->tf, t, o);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(r->ctx));
    st = gen_transformer_transform(r->ctx, &r->tf, t, &r->enc);
    ck_assert_msg(st == GENESIS_OK, "transform: %s", genesis_errmsg(r->ctx));
    int64_t n = t->nrows;
    int D = r->tf.data_dim;
    r->dense = calloc((size_t)(n > 0 ? n : 1) * (size_t)D, sizeof(float));
    int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    ck_assert(r->dense && rows);
    for (int64_t i = 0; i < n; i++) rows[i] = i;
    gen_encoded_gather(&r->tf, &r->enc, rows, (int)n, r->dense, D);
    free(rows);
    ck_assert_int_eq(gen_rowbatch_alloc(&r->tf, (int)n, &r->rb), GENESIS_OK);
    gen_row_draws rd = {1, GEN_STREAM_DECODE, 0, 0};
    gen_transformer_inverse(&r->tf, r->dense, D, (int)n, &rd, &r->rb);
}

static void tt_done(tt_run *r) {
    gen_rowbatch_free(&r->rb);
    free(r->dense);
    gen_encoded_free(&r->enc);
    gen_transformer_free(&r->tf);
    genesis_ctx_free(r->ctx);
}

/* every dense row: continuous spans one-hot + alpha in (-1, 1), categorical one-hot */
static void tt_check_dense(const tt_run *r, int64_t n) {
    int D = r->tf.data_dim;
    for (int64_t i = 0; i < n; i++) {
        const float *row = r->dense + (size_t)i * (size_t)D;
        for (int s = 0; s < r->tf.nspans; s++) {
            const gen_span *sp = &r->tf.spans[s];
            if (sp->kind == GEN_SPAN_TANH) {
                ck_assert(sp->len == 1 && fabsf(row[sp->start]) <= 0.99f);
            } else {
                float sum = 0;
                int ones = 0;
                for (int k = 0; k < sp->len; k++) {
                    sum += row[sp->start + k];
                    ones += row[sp->start + k] == 1.0f;
                }
                ck_assert(sum == 1.0f && ones == 1);
            }
        }
    }
}

static double tt_normal(gen_rng *g, double mu, double sd) { return mu + sd * gen_rng_normal(g); }

/* ---- continuous ---------------------------------------------------------------------- */

START_TEST(test_bimodal_roundtrip) {
    int64_t n = 4000;
    double *x = malloc((size_t)n * sizeof *x);
    gen_rng g;
    gen_rng_init(&g, 42, 99);
    for (int64_t i = 0; i < n; i++)
        x[i] = gen_rng_uniform(&g) < 0.6 ? tt_normal(&g, 10, 2) : tt_normal(&g, 50, 5);
    genesis_table *t = tt_new(1, n);
    tt_cont(t, 0, "bimodal", x, 0, -1, "");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert_int_ge(ct->n_modes, 2);
    ck_assert_int_eq(ct->n_points, 0); /* no value repeats */
    ck_assert_int_eq(ct->has_null, 0);
    ck_assert_int_eq(ct->width, 1 + ct->n_modes);
    ck_assert_int_eq(r.tf.data_dim, 1 + ct->n_modes);
    tt_check_dense(&r, n);
    double mn = INFINITY, mx = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        mn = fmin(mn, x[i]);
        mx = fmax(mx, x[i]);
    }
    ck_assert(ct->min == mn && ct->max == mx);
    int64_t close = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = r.rb.num[0][i];
        ck_assert(v >= mn && v <= mx);
        close += fabs(v - x[i]) <= 1e-4 * (1 + fabs(x[i]));
    }
    /* only a value whose sampled mode is > 3.96 sigma away gets clipped */
    ck_assert_msg(close >= n - n / 200, "%lld of %lld decode within 1e-4", (long long)close,
                  (long long)n);
    tt_done(&r);
    tt_free(t);
    free(x);
}
END_TEST

START_TEST(test_zero_point_mass) {
    /* like Adult's capital-gain: 92% zeros, the rest spread integers */
    int64_t n = 5000;
    double *x = malloc((size_t)n * sizeof *x);
    gen_rng g;
    gen_rng_init(&g, 7, 99);
    for (int64_t i = 0; i < n; i++)
        x[i] = gen_rng_uniform(&g) < 0.92 ? 0.0 : rint(exp(tt_normal(&g, 8, 1)));
    genesis_table *t = tt_new(1, n);
    tt_cont(t, 0, "capital-gain", x, 1, 0, "");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert_int_ge(ct->n_points, 1);
    ck_assert(ct->point_value[0] == 0.0); /* most frequent first */
    ck_assert_int_ge(ct->n_modes, 1);
    tt_check_dense(&r, n);
    for (int64_t i = 0; i < n; i++) {
        if (x[i] == 0.0) {
            ck_assert_int_eq(r.enc.slot[0][i], ct->n_modes);
            ck_assert(r.enc.alpha[0][i] == 0.0f);
            ck_assert(r.rb.num[0][i] == 0.0 && !signbit(r.rb.num[0][i]));
        } else {
            ck_assert_int_lt(r.enc.slot[0][i], ct->n_modes);
        }
        double v = r.rb.num[0][i];
        ck_assert(v == rint(v) && v >= ct->min && v <= ct->max);
    }
    tt_done(&r);
    /* with point masses off the zeros go through the GMM like everything else */
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.point_masses = 0;
    tt_run r2 = {0};
    tt_roundtrip(&r2, t, &o);
    ck_assert_int_eq(r2.tf.cols[0].n_points, 0);
    ck_assert_int_ge(r2.tf.cols[0].n_modes, 1);
    tt_done(&r2);
    tt_free(t);
    free(x);
}
END_TEST

START_TEST(test_capped_max) {
    /* 5% of the rows sit exactly at the cap (the maximum), 2 decimals */
    int64_t n = 4000;
    double *x = malloc((size_t)n * sizeof *x);
    gen_rng g;
    gen_rng_init(&g, 8, 99);
    for (int64_t i = 0; i < n; i++) {
        double v = rint(100 * (20 + 60 * gen_rng_uniform(&g))) / 100;
        x[i] = i % 20 == 3 ? 99.99 : v;
    }
    genesis_table *t = tt_new(1, n);
    tt_cont(t, 0, "capped", x, 0, 2, "");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert(ct->max == 99.99);
    int found = -1;
    for (int p = 0; p < ct->n_points; p++)
        if (ct->point_value[p] == 99.99) found = p;
    ck_assert_int_ge(found, 0);
    for (int64_t i = 0; i < n; i++) {
        double v = r.rb.num[0][i];
        if (x[i] == 99.99) {
            ck_assert_int_eq(r.enc.slot[0][i], ct->n_modes + found);
            ck_assert(v == 99.99);
        }
        ck_assert(v >= ct->min && v <= 99.99);
        ck_assert(fabs(v * 100 - rint(v * 100)) < 1e-6); /* 2 decimals */
    }
    tt_done(&r);
    tt_free(t);
    free(x);
}
END_TEST

/* Round trip of one continuous column x[0..n) (its first `at_min` rows hold its minimum
 * m); returns whether m became a point mass, and then checks those rows decode to exactly m. */
static int tt_end_mass(const double *x, int64_t n, int64_t at_min, int is_integer, int decimals,
                       int quantile) {
    genesis_table *t = tt_new(1, n);
    tt_cont(t, 0, "words", x, is_integer, decimals, "");
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.quantile = quantile;
    tt_run r = {0};
    tt_roundtrip(&r, t, &o);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert(ct->min == x[0]);
    int found = 0;
    for (int p = 0; p < ct->n_points; p++) found |= ct->point_value[p] == x[0];
    if (found)
        for (int64_t i = 0; i < at_min; i++) ck_assert(r.rb.num[0][i] == x[0]);
    tt_done(&r);
    tt_free(t);
    return found;
}

/* An end value is a point mass from 1% of the rows on; under quantile normalisation from
 * 0.5% when it is a spike, ten times as many rows as the next value inward (a zero at 0.8%
 * among distinct values, as the empty articles of a news table); at 0.4% it stays with the
 * continuous part either way. */
START_TEST(test_end_point_mass_threshold) {
    int64_t n = 4000;
    double *x = malloc((size_t)n * sizeof *x);
    const int64_t at_min[3] = {48, 32, 16}; /* 1.2%, 0.8%, 0.4% of 4000 */
    for (int quantile = 0; quantile <= 1; quantile++)
        for (int k = 0; k < 3; k++) {
            gen_rng g;
            gen_rng_init(&g, 8, 7 + k);
            for (int64_t i = 0; i < n; i++)
                x[i] = i < at_min[k] ? 0.0 : rint(1000 * (20 + 60 * gen_rng_uniform(&g))) / 1000;
            int found = tt_end_mass(x, n, at_min[k], 0, 3, quantile);
            int expect = k == 0 || (k == 1 && quantile);
            ck_assert_msg(found == expect, "quantile %d, %lld rows at the minimum: point mass %d",
                          quantile, (long long)at_min[k], found);
        }
    /* a discrete column (days 1..31) whose first level holds 0.8%, fewer rows than the next
     * level: not a spike, so no point mass under either normalisation */
    for (int64_t i = 0; i < n; i++) x[i] = i < 32 ? 1 : 2 + (double)(i % 30);
    for (int quantile = 0; quantile <= 1; quantile++)
        ck_assert_msg(!tt_end_mass(x, n, 32, 1, 0, quantile),
                      "quantile %d: a discrete column's first level became a point mass", quantile);
    free(x);
}
END_TEST

START_TEST(test_missing_roundtrip) {
    int64_t n = 3000;
    double *x = malloc((size_t)n * sizeof *x);
    int32_t *codes = malloc((size_t)n * sizeof *codes);
    gen_rng g;
    gen_rng_init(&g, 9, 99);
    for (int64_t i = 0; i < n; i++) {
        x[i] = i % 10 == 4 ? NAN : rint(tt_normal(&g, 40, 12));
        codes[i] = i % 7 == 2 ? -1 : (int32_t)gen_rng_below(&g, 4);
    }
    genesis_table *t = tt_new(2, n);
    tt_cont(t, 0, "num", x, 1, 0, "NA");
    tt_cat(t, 1, "cat", codes, 4, "L", " ?");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    const gen_col_transform *cn = &r.tf.cols[0], *cc = &r.tf.cols[1];
    ck_assert_int_eq(cn->has_null, 1);
    int null_slot = cn->n_modes + cn->n_points;
    ck_assert_int_eq(cn->width, 1 + null_slot + 1);
    ck_assert_int_eq(cc->n_slots, 5);
    ck_assert_int_eq(cc->missing_slot, 4);
    ck_assert_int_eq(cc->rare_slot, -1);
    ck_assert_str_eq(cc->slot_text[4], " ?");
    ck_assert_int_eq(cc->offset, cn->width);
    ck_assert_int_eq(r.tf.data_dim, cn->width + 5);
    tt_check_dense(&r, n);
    char buf[64];
    size_t len;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i])) {
            ck_assert_int_eq(r.enc.slot[0][i], null_slot);
            ck_assert(r.enc.alpha[0][i] == 0.0f);
            ck_assert(isnan(r.rb.num[0][i]));
            const char *s = gen_rowbatch_text(&r.tf, &r.rb, (int)i, 0, buf, sizeof buf, &len);
            ck_assert(len == 2 && memcmp(s, "NA", 2) == 0);
        } else {
            ck_assert(!isnan(r.rb.num[0][i]));
            ck_assert(fabs(r.rb.num[0][i] - x[i]) <= 0.5 || fabs(r.enc.alpha[0][i]) == 0.99f);
        }
        if (codes[i] < 0) {
            ck_assert_int_eq(r.rb.cat[1][i], 4);
            const char *s = gen_rowbatch_text(&r.tf, &r.rb, (int)i, 1, buf, sizeof buf, &len);
            ck_assert(len == 2 && memcmp(s, " ?", 2) == 0);
        } else {
            const char *s = gen_rowbatch_text(&r.tf, &r.rb, (int)i, 1, buf, sizeof buf, &len);
            ck_assert(len == strlen(t->cols[1].levels[codes[i]]) &&
                      memcmp(s, t->cols[1].levels[codes[i]], len) == 0);
        }
    }
    tt_done(&r);
    tt_free(t);
    free(x);
    free(codes);
}
END_TEST

/* Quantile normalisation (opts.quantile): a skewed column with a point mass at 0 and missing
 * values. One mode, alpha = z / 4 with z standard normal over the rows, the point mass and
 * the missing values in their own slots, and every value decoded back (up to the float
 * alpha's rounding). */
START_TEST(test_quantile_roundtrip) {
    int64_t n = 5000;
    double *x = malloc((size_t)n * sizeof *x);
    gen_rng g;
    gen_rng_init(&g, 17, 99);
    for (int64_t i = 0; i < n; i++) {
        double u = gen_rng_uniform(&g);
        x[i] = u < 0.2 ? 0.0 : u < 0.25 ? NAN : exp(2.0 * gen_rng_normal(&g));
    }
    genesis_table *t = tt_new(1, n);
    tt_cont(t, 0, "skewed", x, 0, -1, "");
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.quantile = 1;
    tt_run r = {0};
    tt_roundtrip(&r, t, &o);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert_int_eq(ct->n_modes, 1);
    ck_assert_int_eq(ct->n_points, 1);
    ck_assert(ct->point_value[0] == 0.0);
    ck_assert_int_eq(ct->has_null, 1);
    int64_t nv = 0;
    for (int64_t i = 0; i < n; i++) nv += !isnan(x[i]) && x[i] != 0.0;
    ck_assert_int_eq(ct->n_quantiles, gen_quantile_count(nv));
    tt_check_dense(&r, n);
    double sum = 0, sum2 = 0, worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = r.rb.num[0][i];
        if (isnan(x[i])) {
            ck_assert(isnan(v));
            continue;
        }
        if (x[i] == 0.0) {
            ck_assert_int_eq(r.enc.slot[0][i], 1);
            ck_assert(v == 0.0);
            continue;
        }
        ck_assert_int_eq(r.enc.slot[0][i], 0);
        double z = 4.0 * r.enc.alpha[0][i];
        sum += z;
        sum2 += z * z;
        if (fabs(z) < 3.9) worst = fmax(worst, fabs(v - x[i]) / x[i]);
        ck_assert(v >= ct->min && v <= ct->max);
    }
    double mean = sum / nv, sd = sqrt(sum2 / nv - mean * mean);
    fprintf(stderr, "quantile transform: z mean %.4f sd %.4f; decode worst relative error %.2g\n",
            mean, sd, worst);
    ck_assert_msg(fabs(mean) < 0.02 && fabs(sd - 1) < 0.05, "z mean %.4f sd %.4f", mean, sd);
    ck_assert_msg(worst < 1e-5, "decoded values off by %.3g relative", worst);
    tt_done(&r);
    tt_free(t);
    free(x);
}
END_TEST

/* Arbitrary network outputs: random alpha in [-1.5, 1.5] and random span scores. */
static void tt_random_rows(const gen_transformer *tf, float *x, int B, uint64_t seed) {
    gen_rng g;
    gen_rng_init(&g, seed, 99);
    for (int b = 0; b < B; b++)
        for (int j = 0; j < tf->data_dim; j++)
            x[(size_t)b * (size_t)tf->data_dim + j] = (float)(3 * gen_rng_uniform(&g) - 1.5);
}

START_TEST(test_decode_range_and_integers) {
    int64_t n = 2000;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    gen_rng g;
    gen_rng_init(&g, 10, 99);
    for (int64_t i = 0; i < n; i++) {
        a[i] = rint(fabs(tt_normal(&g, 30, 20))) + 17; /* integer, skewed near the minimum */
        b[i] = rint(1000 * tt_normal(&g, 0, 1)) / 1000;    /* 3 decimals */
    }
    genesis_table *t = tt_new(2, n);
    tt_cont(t, 0, "age", a, 1, 0, "");
    tt_cont(t, 1, "score", b, 0, 3, "");
    genesis_ctx *ctx;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    gen_transformer tf;
    ck_assert_int_eq(gen_transformer_fit(ctx, &tf, t, NULL), GENESIS_OK);
    int B = 4096;
    float *x = malloc((size_t)B * (size_t)tf.data_dim * sizeof *x);
    tt_random_rows(&tf, x, B, 3);
    gen_rowbatch rb;
    ck_assert_int_eq(gen_rowbatch_alloc(&tf, B, &rb), GENESIS_OK);
    gen_row_draws rd = {1, GEN_STREAM_DECODE, 0, 0};
    gen_transformer_inverse(&tf, x, tf.data_dim, B, &rd, &rb);
    int at_min = 0;
    for (int i = 0; i < B; i++) {
        double v = rb.num[0][i], w = rb.num[1][i];
        ck_assert(v == rint(v) && v >= tf.cols[0].min && v <= tf.cols[0].max);
        ck_assert(w >= tf.cols[1].min && w <= tf.cols[1].max);
        ck_assert(fabs(w * 1000 - rint(w * 1000)) < 1e-6);
        at_min += v == tf.cols[0].min;
    }
    ck_assert_int_gt(at_min, 0); /* the clamp is reached with alpha up to +-1.5 */
    /* with the clamp off, values leave the range */
    tf.clamp_range = 0;
    gen_transformer_inverse(&tf, x, tf.data_dim, B, &rd, &rb);
    int outside = 0;
    for (int i = 0; i < B; i++)
        outside += rb.num[0][i] < tf.cols[0].min || rb.num[0][i] > tf.cols[0].max;
    ck_assert_int_gt(outside, 0);
    /* argmax ties go to the first slot */
    memset(x, 0, (size_t)tf.data_dim * sizeof *x);
    x[0] = 0.25f;
    gen_transformer_inverse(&tf, x, tf.data_dim, 1, &rd, &rb);
    const gen_col_transform *ct = &tf.cols[0];
    ck_assert_int_gt(ct->n_modes, 0);
    double want = 0.25 * 4 * ct->mode_std[0] + ct->mode_mean[0]; /* clamp is off now */
    ck_assert(rb.num[0][0] == rint(want));
    ck_assert_int_gt(tf.cols[1].n_modes, 0);
    ck_assert(rb.num[1][0] == rint(1000 * tf.cols[1].mode_mean[0]) / 1000); /* alpha 0 */
    gen_rowbatch_free(&rb);
    free(x);
    gen_transformer_free(&tf);
    genesis_ctx_free(ctx);
    tt_free(t);
    free(a);
    free(b);
}
END_TEST

/* ---- categorical cap ----------------------------------------------------------------- */

START_TEST(test_categorical_cap) {
    int64_t n = 60000;
    int32_t L = 2000;
    int32_t *codes = malloc((size_t)n * sizeof *codes);
    /* level k has weight ~ 1/(k+1) (Zipf), codes in order of first appearance */
    double *cdf = malloc((size_t)L * sizeof *cdf), tot = 0;
    for (int32_t k = 0; k < L; k++) cdf[k] = (tot += 1.0 / (k + 1));
    gen_rng g;
    gen_rng_init(&g, 11, 99);
    for (int64_t i = 0; i < n; i++) {
        if (i < L) {
            codes[i] = (int32_t)i; /* every level appears, level k first at row k */
            continue;
        }
        double u = gen_rng_uniform(&g) * tot;
        int32_t lo = 0, hi = L - 1;
        while (lo < hi) {
            int32_t mid = (lo + hi) / 2;
            if (cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        codes[i] = lo;
    }
    genesis_table *t = tt_new(1, n);
    tt_cat(t, 0, "city", codes, L, "c", "");
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.max_categories = 50;
    tt_run r = {0};
    tt_roundtrip(&r, t, &o);
    const gen_col_transform *ct = &r.tf.cols[0];
    ck_assert_int_eq(ct->n_slots, 50);
    ck_assert_int_eq(r.tf.data_dim, 50);
    ck_assert_int_eq(ct->rare_slot, 49);
    ck_assert_int_eq(ct->missing_slot, -1);
    ck_assert_int_eq(ct->n_rare, L - 49);
    ck_assert(ct->slot_text[49] == NULL);
    ck_assert(ct->rare_cdf[ct->n_rare - 1] == 1.0);
    /* counts per level */
    int64_t *cnt = calloc((size_t)L, sizeof *cnt);
    for (int64_t i = 0; i < n; i++) cnt[codes[i]]++;
    /* kept = the 49 most frequent, in order of first appearance */
    int kept_ok = 1;
    int64_t min_kept = INT64_MAX, max_rare = 0;
    int *is_kept = calloc((size_t)L, sizeof *is_kept);
    for (int s = 0; s < 49; s++) {
        int k = atoi(ct->slot_text[s] + 1);
        is_kept[k] = 1;
        if (cnt[k] < min_kept) min_kept = cnt[k];
        if (s > 0 && k <= atoi(ct->slot_text[s - 1] + 1)) kept_ok = 0;
    }
    for (int32_t k = 0; k < L; k++)
        if (!is_kept[k] && cnt[k] > max_rare) max_rare = cnt[k];
    ck_assert(kept_ok);
    ck_assert_int_ge(min_kept, max_rare);
    /* encoding: kept levels to their slot, others to the rare slot; decode is exact */
    for (int64_t i = 0; i < n; i++) {
        int32_t s = r.enc.slot[0][i];
        if (is_kept[codes[i]]) {
            ck_assert_int_lt(s, 49);
            ck_assert_str_eq(ct->slot_text[s], t->cols[0].levels[codes[i]]);
        } else {
            ck_assert_int_eq(s, 49);
        }
        ck_assert_int_eq(r.rb.cat[0][i], s);
    }
    /* decoding the rare slot: only pooled levels, with their real frequencies */
    int B = 200000;
    float *x = calloc((size_t)B * 50, sizeof *x);
    for (int b = 0; b < B; b++) x[(size_t)b * 50 + 49] = 1.0f;
    gen_rowbatch rb;
    ck_assert_int_eq(gen_rowbatch_alloc(&r.tf, B, &rb), GENESIS_OK);
    gen_row_draws rd = {5, GEN_STREAM_DECODE, 0, 0};
    gen_transformer_inverse(&r.tf, x, 50, B, &rd, &rb);
    int64_t *got = calloc((size_t)ct->n_rare, sizeof *got);
    for (int b = 0; b < B; b++) {
        ck_assert_int_eq(rb.cat[0][b], 49);
        int32_t p = rb.rare_pick[0][b];
        ck_assert(p >= 0 && p < ct->n_rare);
        got[p]++;
        if (b < 100) {
            char buf[32];
            size_t len;
            const char *s = gen_rowbatch_text(&r.tf, &rb, b, 0, buf, sizeof buf, &len);
            ck_assert(len == strlen(ct->rare_text[p]) && memcmp(s, ct->rare_text[p], len) == 0);
            ck_assert(!is_kept[atoi(ct->rare_text[p] + 1)]);
        }
    }
    int64_t rare_total = 0;
    for (int32_t k = 0; k < L; k++)
        if (!is_kept[k]) rare_total += cnt[k];
    for (int32_t p = 0; p < ct->n_rare; p++) {
        int k = atoi(ct->rare_text[p] + 1);
        double want = (double)cnt[k] / (double)rare_total;
        double sd = sqrt(want * (1 - want) / B);
        ck_assert_msg(fabs((double)got[p] / B - want) <= 5 * sd + 1e-9, "level %d: %g vs %g", k,
                      (double)got[p] / B, want);
    }
    free(got);
    gen_rowbatch_free(&rb);
    free(x);
    free(is_kept);
    free(cnt);
    tt_done(&r);
    tt_free(t);
    free(codes);
    free(cdf);
}
END_TEST

/* ---- degenerate tables --------------------------------------------------------------- */

START_TEST(test_constant_and_tiny) {
    double cst[100];
    int32_t codes[100];
    for (int i = 0; i < 100; i++) {
        cst[i] = 7.5;
        codes[i] = 0;
    }
    genesis_table *t = tt_new(2, 100);
    tt_cont(t, 0, "const", cst, 0, 1, "");
    tt_cat(t, 1, "one", codes, 1, "only", "");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    ck_assert_int_eq(r.tf.cols[0].n_modes, 0);
    ck_assert_int_eq(r.tf.cols[0].n_points, 1);
    ck_assert(r.tf.cols[0].point_value[0] == 7.5);
    ck_assert_int_eq(r.tf.cols[1].n_slots, 1);
    for (int i = 0; i < 100; i++) ck_assert(r.rb.num[0][i] == 7.5 && r.rb.cat[1][i] == 0);
    tt_done(&r);
    /* point masses off: the constant still becomes a point (there is nothing to fit) */
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.point_masses = 0;
    tt_roundtrip(&r, t, &o);
    ck_assert_int_eq(r.tf.cols[0].n_points, 1);
    ck_assert(r.rb.num[0][99] == 7.5);
    tt_done(&r);
    tt_free(t);

    /* one row */
    double one = 3.25;
    int32_t c1 = 0;
    t = tt_new(2, 1);
    tt_cont(t, 0, "x", &one, 0, 2, "");
    tt_cat(t, 1, "y", &c1, 1, "v", "");
    tt_roundtrip(&r, t, NULL);
    ck_assert(r.rb.num[0][0] == 3.25);
    ck_assert_int_eq(r.rb.cat[1][0], 0);
    tt_done(&r);
    tt_free(t);

    /* two distinct values, a column of only missing values, and no rows at all */
    double two[4] = {1, 2, 1, 2}, nan4[4] = {NAN, NAN, NAN, NAN};
    int32_t miss4[4] = {-1, -1, -1, -1};
    t = tt_new(3, 4);
    tt_cont(t, 0, "two", two, 1, 0, "");
    tt_cont(t, 1, "nan", nan4, 0, -1, "?");
    tt_cat(t, 2, "m", miss4, 0, "z", "N/A");
    tt_roundtrip(&r, t, NULL);
    for (int i = 0; i < 4; i++) {
        ck_assert(r.rb.num[0][i] == two[i]);
        ck_assert(isnan(r.rb.num[1][i]));
        ck_assert_int_eq(r.rb.cat[2][i], r.tf.cols[2].missing_slot);
    }
    tt_done(&r);
    tt_free(t);

    t = tt_new(2, 0);
    tt_cont(t, 0, "e", NULL, 0, -1, "");
    tt_cat(t, 1, "f", NULL, 0, "z", "");
    tt_roundtrip(&r, t, NULL);
    ck_assert_int_eq(r.tf.data_dim, 3);
    tt_done(&r);
    tt_free(t);
}
END_TEST

START_TEST(test_bad_input) {
    double x[3] = {1, INFINITY, 2};
    genesis_table *t = tt_new(1, 3);
    tt_cont(t, 0, "inf", x, 0, -1, "");
    genesis_ctx *ctx;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    gen_transformer tf;
    ck_assert_int_eq(gen_transformer_fit(ctx, &tf, t, NULL), GENESIS_ERR_DATA);
    ck_assert(strstr(genesis_errmsg(ctx), "inf") != NULL);
    ck_assert(tf.cols == NULL);
    tt_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* ---- determinism, threads, a second table --------------------------------------------- */

static genesis_table *tt_mixed(int64_t n, uint64_t seed) {
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    int32_t *c = malloc((size_t)n * sizeof *c);
    gen_rng g;
    gen_rng_init(&g, seed, 99);
    for (int64_t i = 0; i < n; i++) {
        a[i] = gen_rng_uniform(&g) < 0.5 ? tt_normal(&g, -3, 1) : tt_normal(&g, 4, 2);
        b[i] = i % 5 == 0 ? 0.0 : rint(exp(tt_normal(&g, 4, 1)));
        c[i] = (int32_t)gen_rng_below(&g, 6);
    }
    genesis_table *t = tt_new(3, n);
    tt_cont(t, 0, "a", a, 0, -1, "");
    tt_cont(t, 1, "b", b, 1, 0, "");
    tt_cat(t, 2, "c", c, 6, "k", "");
    free(a);
    free(b);
    free(c);
    return t;
}

START_TEST(test_determinism) {
    int64_t n = 3000;
    genesis_table *t = tt_mixed(n, 1);
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.seed = 1234;
    gen_encoded e[3];
    gen_transformer tf[3];
    int threads[3] = {1, 4, 1};
    for (int run = 0; run < 3; run++) {
        genesis_ctx *ctx;
        ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
        ck_assert_int_eq(genesis_ctx_set_threads(ctx, threads[run]), GENESIS_OK);
        if (run == 2) o.seed = 99;
        ck_assert_int_eq(gen_transformer_fit(ctx, &tf[run], t, &o), GENESIS_OK);
        ck_assert_int_eq(gen_transformer_transform(ctx, &tf[run], t, &e[run]), GENESIS_OK);
        genesis_ctx_free(ctx);
    }
    ck_assert_int_eq(tf[0].data_dim, tf[1].data_dim);
    for (int c = 0; c < 3; c++) {
        ck_assert(memcmp(e[0].slot[c], e[1].slot[c], (size_t)n * sizeof(int32_t)) == 0);
        if (e[0].alpha[c]) {
            ck_assert(memcmp(e[0].alpha[c], e[1].alpha[c], (size_t)n * sizeof(float)) == 0);
            ck_assert(memcmp(tf[0].cols[c].mode_mean, tf[1].cols[c].mode_mean,
                             sizeof tf[0].cols[c].mode_mean) == 0);
        }
    }
    /* another seed draws other modes for some rows of the bimodal column */
    int64_t diff = 0;
    for (int64_t i = 0; i < n; i++)
        diff += e[0].slot[0][i] != e[2].slot[0][i] || e[0].alpha[0][i] != e[2].alpha[0][i];
    ck_assert_int_gt(diff, 0);
    for (int run = 0; run < 3; run++) {
        gen_encoded_free(&e[run]);
        gen_transformer_free(&tf[run]);
    }
    tt_free(t);
}
END_TEST

START_TEST(test_second_table_and_subsample) {
    genesis_table *t = tt_mixed(5000, 2);
    genesis_ctx *ctx;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.vgm_max_rows = 500; /* the GMM sees a random 500-row subsample */
    gen_transformer tf;
    ck_assert_int_eq(gen_transformer_fit(ctx, &tf, t, &o), GENESIS_OK);
    ck_assert_int_eq(tf.cols[0].gmm.K, 10);
    double wlo = 0;
    for (int k = 0; k < tf.cols[0].n_modes; k++)
        if (tf.cols[0].mode_mean[k] < 0.5) wlo += tf.cols[0].mode_weight[k];
    ck_assert(wlo > 0.4 && wlo < 0.6);
    /* a second table with the same columns but its levels listed in another order */
    genesis_table *u = tt_mixed(300, 3);
    gen_column *cu = &u->cols[2];
    char *tmp = cu->levels[0];
    cu->levels[0] = cu->levels[5];
    cu->levels[5] = tmp;
    gen_encoded e;
    ck_assert_int_eq(gen_transformer_transform(ctx, &tf, u, &e), GENESIS_OK);
    for (int64_t i = 0; i < u->nrows; i++)
        ck_assert_str_eq(tf.cols[2].slot_text[e.slot[2][i]], cu->levels[cu->cat[i]]);
    gen_encoded_free(&e);
    /* a level never seen at fit is an error, not a silent zero row */
    free(cu->levels[1]);
    cu->levels[1] = gen_strdup("brand new");
    ck_assert_int_eq(gen_transformer_transform(ctx, &tf, u, &e), GENESIS_ERR_DATA);
    ck_assert(strstr(genesis_errmsg(ctx), "'c'") != NULL);
    /* so is a missing value in a column that had none */
    u->cols[0].num[0] = NAN;
    ck_assert_int_eq(gen_transformer_transform(ctx, &tf, u, &e), GENESIS_ERR_DATA);
    /* a transformer without its GMM (as read back from a model file) still encodes */
    u->cols[0].num[0] = 1.0;
    free(cu->levels[1]);
    cu->levels[1] = gen_strdup("k1");
    memset(&tf.cols[0].gmm, 0, sizeof tf.cols[0].gmm);
    ck_assert_int_eq(gen_transformer_transform(ctx, &tf, u, &e), GENESIS_OK);
    for (int64_t i = 0; i < u->nrows; i++) {
        int32_t s = e.slot[0][i];
        ck_assert(s >= 0 && s < tf.cols[0].n_modes);
        double back = e.alpha[0][i] * 4 * tf.cols[0].mode_std[s] + tf.cols[0].mode_mean[s];
        ck_assert(fabs(back - u->cols[0].num[i]) < 1e-4 || fabs(e.alpha[0][i]) == 0.99f);
    }
    gen_encoded_free(&e);
    gen_transformer_free(&tf);
    genesis_ctx_free(ctx);
    tt_free(u);
    tt_free(t);
}
END_TEST

/* ---- CSV text ------------------------------------------------------------------------ */

START_TEST(test_format_csv) {
    double a[4] = {1.5, NAN, 1.5, 1.5}, b[4] = {3, 4, 3, 4};
    int32_t c[4] = {0, 1, -1, 2};
    genesis_table *t = tt_new(3, 4);
    tt_cont(t, 0, "a", a, 0, 1, "NA");
    tt_cont(t, 1, "b", b, 1, 0, "");
    tt_cat(t, 2, "c", c, 3, "x", "");
    free(t->cols[2].levels[1]);
    t->cols[2].levels[1] = gen_strdup("has,comma");
    free(t->cols[2].levels[2]);
    t->cols[2].levels[2] = gen_strdup(" padded");
    tt_run r = {0};
    tt_roundtrip(&r, t, NULL);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    ck_assert_int_eq(gen_rowbatch_format_csv(&r.tf, &r.rb, &buf, &cap, &len), GENESIS_OK);
    const char *want = "1.5,3,x0\nNA,4,\"has,comma\"\n1.5,3,\n1.5,4,\" padded\"\n";
    ck_assert_uint_eq(len, strlen(want));
    ck_assert(memcmp(buf, want, len) == 0);
    free(buf);
    tt_done(&r);
    tt_free(t);
}
END_TEST

static Suite *transform_suite(void) {
    Suite *s = suite_create("transform");
    TCase *tc = tcase_create("continuous");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bimodal_roundtrip);
    tcase_add_test(tc, test_zero_point_mass);
    tcase_add_test(tc, test_capped_max);
    tcase_add_test(tc, test_end_point_mass_threshold);
    tcase_add_test(tc, test_missing_roundtrip);
    tcase_add_test(tc, test_quantile_roundtrip);
    tcase_add_test(tc, test_decode_range_and_integers);
    suite_add_tcase(s, tc);
    tc = tcase_create("categorical");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_categorical_cap);
    suite_add_tcase(s, tc);
    tc = tcase_create("edge");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_constant_and_tiny);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_second_table_and_subsample);
    tcase_add_test(tc, test_format_csv);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(transform_suite()); }
