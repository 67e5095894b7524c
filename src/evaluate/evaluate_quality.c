/*
 * evaluate_quality.c — SDMetrics' single-table QualityReport (docs/algorithms.md §C1, §C2):
 *
 *   Column Shapes       KSComplement (continuous): 1 - D of the two-sample KS test on the
 *                       non-missing values rounded to 14 decimals (kscomplement.py);
 *                       TVComplement (categorical): 1 - 1/2 sum_c |f_syn(c) - f_real(c)|,
 *                       missing dropped, synthetic-only categories added to the real counts
 *                       with weight 1e-6 (tv_complement.py, utils.get_frequencies).
 *   Column Pair Trends  CorrelationSimilarity for two continuous columns: 1 - |r_real -
 *                       r_syn| / 2 with Pearson r on the rows where both are present, NaN if
 *                       either column is constant in either table (correlation_similarity.py);
 *                       ContingencySimilarity otherwise: 1 - 1/2 sum over cells |p_real -
 *                       p_syn| of the joint frequencies, missing values a category of their
 *                       own (contingency_similarity.py). A continuous column in a mixed pair
 *                       is binned the way the REPORT does it (column_pair_trends.py
 *                       _discretize_column): each table with its own np.histogram_bin_edges
 *                       (10 equal bins over its own min..max) and np.digitize, so labels run
 *                       1..11, the maximum sits alone in label 11 and NaN joins it.
 *   Subsampling         contingency pairs: when either table has more than 50,000 rows, each
 *                       is cut to a random 50,000 (per pair). SDMetrics draws with numpy's
 *                       global RNG, Genesis with its seeded Philox stream: subsampled scores
 *                       agree in distribution, not bit for bit. A real table of <= 50,000
 *                       rows is used whole either way.
 *   Threshold mode      (SDMetrics >= 0.26, Jan 2026; reports/utils.py): a pair counts only if
 *                       |Pearson_real| > 0.5 (continuous pairs) or Cramer's V of the real
 *                       contingency table > 0.3 (scipy association, on the same binned codes
 *                       and, when subsampled, the same subsample); the all-pairs mode (every
 *                       score published before 2026) averages every pair. Both are reported.
 *   Scores              property = mean of the non-NaN items; overall = nanmean of the two
 *                       properties (base_report.py).
 *   Robust pair trends  (Genesis, not SDMetrics; the report's heat map) the same contingency
 *                       similarity, but a continuous column is cut into 10 equal bins over
 *                       the REAL column's 0.5%..99.5% quantile range, values beyond it in the
 *                       end bins, NaN its own code, one set of edges for both tables: one
 *                       outlier can no longer squeeze every other value into one bin
 *                       (gen_ev_digitize_robust). Same rows (and subsamples) as above; pairs
 *                       of two continuous columns keep CorrelationSimilarity.
 * Pairs run in parallel (OpenMP, one pair per task).
 */
#include <math.h>
#include <string.h>

#include "evaluate.h"
#include "rng.h"

/* ---- sorting ------------------------------------------------------------------------------ */

/* LSD radix sort of n 64-bit keys, 16 bits per pass; a pass whose digit is the same for
 * every key is skipped (small key ranges take one pass). tmp holds n keys. */
static void gen_ev_radix_u64(uint64_t *a, uint64_t *tmp, int64_t n) {
    static const int B = 16;
    size_t *cnt = malloc(((size_t)1 << B) * sizeof *cnt);
    if (!cnt || n < 256) { /* tiny: insertion sort */
        free(cnt);
        for (int64_t i = 1; i < n; i++) {
            uint64_t v = a[i];
            int64_t j = i;
            while (j > 0 && a[j - 1] > v) a[j] = a[j - 1], j--;
            a[j] = v;
        }
        return;
    }
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += B) {
        memset(cnt, 0, ((size_t)1 << B) * sizeof *cnt);
        for (int64_t i = 0; i < n; i++) cnt[(src[i] >> shift) & 0xFFFF]++;
        if (cnt[(src[0] >> shift) & 0xFFFF] == (size_t)n) continue;
        size_t sum = 0;
        for (size_t d = 0; d < ((size_t)1 << B); d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & 0xFFFF]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
    free(cnt);
}

/* Sorts n doubles (no NaN) through order-preserving 64-bit keys. Returns -1 on out of
 * memory (then x is untouched). */
static int gen_ev_sort_doubles(double *x, int64_t n) {
    uint64_t *k = malloc((size_t)(n ? n : 1) * sizeof *k), *t = malloc((size_t)(n ? n : 1) * sizeof *t);
    if (!k || !t) {
        free(k);
        free(t);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, &x[i], sizeof b);
        k[i] = (b >> 63) ? ~b : b | 0x8000000000000000ull;
    }
    gen_ev_radix_u64(k, t, n);
    for (int64_t i = 0; i < n; i++) {
        uint64_t b = (k[i] >> 63) ? k[i] & 0x7FFFFFFFFFFFFFFFull : ~k[i];
        memcpy(&x[i], &b, sizeof b);
    }
    free(k);
    free(t);
    return 0;
}

/* ---- small numerics ------------------------------------------------------------------- */

double gen_ev_round14(double x) {
    if (!isfinite(x)) return x;
    return nearbyint(x * 1e14) / 1e14;
}

double gen_ev_ks_stat(const double *a, int64_t na, const double *b, int64_t nb) {
    int64_t i = 0, j = 0;
    double d = 0;
    while (i < na || j < nb) {
        double v = (j >= nb || (i < na && a[i] <= b[j])) ? a[i] : b[j];
        while (i < na && a[i] <= v) i++;
        while (j < nb && b[j] <= v) j++;
        double diff = fabs((double)i / (double)na - (double)j / (double)nb);
        if (diff > d) d = diff;
    }
    return d;
}

int gen_ev_digitize(const double *x, int64_t n, uint8_t *label, double edges[11]) {
    double lo = INFINITY, hi = -INFINITY;
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        if (isnan(v)) continue;
        if (!isfinite(v)) return -1;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        cnt++;
    }
    if (cnt == 0) lo = 0, hi = 1;
    if (lo == hi) lo -= 0.5, hi += 0.5;
    /* np.linspace(lo, hi, 11): i * step + start, the last edge exactly hi */
    double step = (hi - lo) / 10.0;
    for (int k = 0; k < 10; k++) edges[k] = (double)k * step + lo;
    edges[10] = hi;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        if (isnan(v)) {
            label[i] = 11;
            continue;
        }
        int l = 0; /* np.digitize: the number of edges <= v */
        while (l < 11 && edges[l] <= v) l++;
        label[i] = (uint8_t)l;
    }
    return 0;
}

static int gen_ev_cmp_double(const void *a, const void *b);

/* Quantile q of sorted v[0..m) by linear interpolation (numpy's default). */
static double gen_ev_quantile_sorted(const double *v, int64_t m, double q) {
    double pos = q * (double)(m - 1);
    int64_t i = (int64_t)floor(pos);
    if (i >= m - 1) return v[m - 1];
    double f = pos - (double)i;
    return v[i] + f * (v[i + 1] - v[i]);
}

int gen_ev_digitize_robust(const double *ref, int64_t nref, const double *x, int64_t n,
                           uint8_t *label, double *lo, double *hi) {
    double *v = malloc((size_t)(nref ? nref : 1) * sizeof *v);
    if (!v) return -1;
    int64_t m = 0;
    for (int64_t i = 0; i < nref; i++)
        if (isfinite(ref[i])) v[m++] = ref[i];
    double a = 0, b = 1;
    if (m > 0) {
        qsort(v, (size_t)m, sizeof *v, gen_ev_cmp_double);
        a = gen_ev_quantile_sorted(v, m, 0.005);
        b = gen_ev_quantile_sorted(v, m, 0.995);
    }
    free(v);
    if (!(b > a)) a -= 0.5, b += 0.5;
    double w = (b - a) / 10.0;
    for (int64_t i = 0; i < n; i++) {
        double t = x[i];
        if (isnan(t)) {
            label[i] = 10;
            continue;
        }
        double k = floor((t - a) / w);
        label[i] = (uint8_t)(k < 0 ? 0 : k > 9 ? 9 : (int)k);
    }
    *lo = a;
    *hi = b;
    return 0;
}

double gen_ev_cramers_v(const int64_t *count, const int32_t *x, const int32_t *y,
                        int64_t ncells, int32_t A, int32_t B) {
    double *rs = calloc((size_t)A + 1, sizeof *rs), *cs = calloc((size_t)B + 1, sizeof *cs);
    double v = NAN;
    if (!rs || !cs) goto done;
    double n = 0;
    for (int64_t k = 0; k < ncells; k++) {
        rs[x[k]] += (double)count[k];
        cs[y[k]] += (double)count[k];
        n += (double)count[k];
    }
    int nr = 0, nc = 0;
    for (int32_t i = 0; i < A; i++) nr += rs[i] > 0;
    for (int32_t i = 0; i < B; i++) nc += cs[i] > 0;
    if (n <= 0 || nr < 2 || nc < 2) goto done;
    /* chi2 = sum over all cells (o - e)^2 / e = n * sum_{o > 0} o^2 / (r c) - n */
    double s = 0;
    for (int64_t k = 0; k < ncells; k++) {
        double o = (double)count[k];
        s += o * o / (rs[x[k]] * cs[y[k]]);
    }
    double chi2 = n * s - n;
    if (chi2 < 0) chi2 = 0;
    int m = (nr < nc ? nr : nc) - 1;
    v = sqrt(chi2 / n / (double)m);
done:
    free(rs);
    free(cs);
    return v;
}

double gen_ev_pearson(const double *x, const double *y, int64_t n) {
    double sx = 0, sy = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i]) || isnan(y[i])) continue;
        sx += x[i];
        sy += y[i];
        m++;
    }
    if (m < 2) return NAN;
    double mx = sx / (double)m, my = sy / (double)m, sxx = 0, syy = 0, sxy = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i]) || isnan(y[i])) continue;
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    if (sxx <= 0 || syy <= 0) return NAN;
    double r = sxy / (sqrt(sxx) * sqrt(syy));
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

static int gen_ev_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gen_ev_median(double *x, int64_t n) {
    if (n <= 0) return NAN;
    qsort(x, (size_t)n, sizeof *x, gen_ev_cmp_double);
    return (n & 1) ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

genesis_status gen_ev_sample_rows(genesis_ctx *ctx, int64_t n, int64_t k, uint64_t seed,
                                  uint64_t stream, int64_t **out) {
    *out = NULL;
    if (k > n) k = n;
    if (k < 0) k = 0;
    /* rejection sampling into a bitmap of n bits (never an n-element array): draw k distinct
     * rows, or, when k > n/2, the n - k rows to leave out; then read the rows out in order */
    int complement = k > n / 2;
    int64_t draw = complement ? n - k : k;
    size_t words = (size_t)(n / 64 + 1);
    uint64_t *bits = calloc(words, sizeof *bits);
    int64_t *rows = malloc((size_t)(k ? k : 1) * sizeof *rows);
    if (!bits || !rows) {
        free(bits);
        free(rows);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory drawing a subsample");
    }
    gen_rng r;
    gen_rng_init(&r, seed, stream);
    for (int64_t got = 0; got < draw;) {
        uint64_t i = gen_rng_below(&r, (uint64_t)n);
        uint64_t m = 1ull << (i & 63);
        if (bits[i >> 6] & m) continue;
        bits[i >> 6] |= m;
        got++;
    }
    int64_t m = 0;
    for (size_t w = 0; w < words; w++) {
        uint64_t word = complement ? ~bits[w] : bits[w];
        while (word) {
#if defined(__GNUC__)
            int64_t i = (int64_t)(w * 64) + __builtin_ctzll(word);
#else
            int64_t i = (int64_t)(w * 64);
            for (uint64_t t = word; !(t & 1u); t >>= 1) i++;
#endif
            word &= word - 1;
            if (i < n) rows[m++] = i;
        }
    }
    free(bits);
    *out = rows;
    return GENESIS_OK;
}

/* ---- Column Shapes ----------------------------------------------------------------------- */

/* Sorted, rounded, non-missing copy of a continuous column; *m its length. */
static double *gen_ev_sorted_values(const double *x, int64_t n, int64_t *m) {
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (!isnan(x[i])) v[k++] = gen_ev_round14(x[i]);
    if (gen_ev_sort_doubles(v, k) != 0) {
        free(v);
        return NULL;
    }
    *m = k;
    return v;
}

static double gen_ev_ks_complement(const double *real, int64_t nr, const double *syn,
                                   int64_t ns, int *oom) {
    int64_t ma = 0, mb = 0;
    double *a = gen_ev_sorted_values(real, nr, &ma), *b = gen_ev_sorted_values(syn, ns, &mb);
    double s = NAN;
    if (!a || !b) *oom = 1;
    else if (ma > 0 && mb > 0) s = 1.0 - gen_ev_ks_stat(a, ma, b, mb);
    free(a);
    free(b);
    return s;
}

static double gen_ev_tv_complement(const int32_t *real, int64_t nr, const int32_t *syn,
                                   int64_t ns, int32_t ncat, int *oom) {
    int64_t *cr = calloc((size_t)ncat + 1, sizeof *cr), *cs = calloc((size_t)ncat + 1, sizeof *cs);
    double s = NAN;
    if (!cr || !cs) {
        *oom = 1;
        goto done;
    }
    int64_t tr = 0, ts = 0;
    for (int64_t i = 0; i < nr; i++)
        if (real[i] >= 0) cr[real[i]]++, tr++;
    for (int64_t i = 0; i < ns; i++)
        if (syn[i] >= 0) cs[syn[i]]++, ts++;
    if (tr == 0 || ts == 0) goto done;
    double sum_real = (double)tr;
    for (int32_t c = 0; c < ncat; c++)
        if (cr[c] == 0 && cs[c] > 0) sum_real += 1e-6;
    double tv = 0;
    for (int32_t c = 0; c < ncat; c++) {
        if (cr[c] == 0 && cs[c] == 0) continue;
        double fr = cr[c] > 0 ? (double)cr[c] / sum_real : 1e-6 / sum_real;
        double fs = (double)cs[c] / (double)ts;
        tv += fabs(fs - fr);
    }
    s = 1.0 - 0.5 * tv;
done:
    free(cr);
    free(cs);
    return s;
}

/* ---- Column Pair Trends ------------------------------------------------------------------- */

typedef struct {
    const gen_ev_data *d;
    uint8_t **rlab, **slab; /* [ncols] report-binned labels of continuous columns */
    int *disc_failed;       /* [ncols] np.histogram_bin_edges failed (infinite values) */
    int *constant;          /* [ncols] one distinct value in the real or synthetic table */
} gen_ev_pairctx;

/* The discrete code of row i of column c in a table: binned label, or category id with
 * NaN as the last code. */
static inline int32_t gen_ev_code(const gen_ev_pairctx *p, int real, int c, int64_t i) {
    if (p->d->continuous[c]) return (real ? p->rlab : p->slab)[c][i];
    int32_t id = (real ? p->d->real.cat : p->d->syn.cat)[c][i];
    return id < 0 ? p->d->dict[c].n : id;
}

static int32_t gen_ev_card(const gen_ev_pairctx *p, int c) {
    return p->d->continuous[c] ? 12 : p->d->dict[c].n + 1;
}

/* Cell keys of the selected rows (rows == NULL: all n). */
static uint64_t *gen_ev_keys(const gen_ev_pairctx *p, int real, int a, int b, int32_t B,
                             const int64_t *rows, int64_t n) {
    uint64_t *k = malloc((size_t)(n ? n : 1) * sizeof *k);
    if (!k) return NULL;
    for (int64_t t = 0; t < n; t++) {
        int64_t i = rows ? rows[t] : t;
        k[t] = (uint64_t)gen_ev_code(p, real, a, i) * (uint64_t)B +
               (uint64_t)gen_ev_code(p, real, b, i);
    }
    return k;
}

/* Contingency similarity of one pair and Cramer's V of its real table. Returns 0 or -1 on
 * out of memory. */
static int gen_ev_contingency(const gen_ev_pairctx *p, int a, int b, const int64_t *rrows,
                              int64_t nr, const int64_t *srows, int64_t ns, double *score,
                              double *assoc) {
    int32_t A = gen_ev_card(p, a), B = gen_ev_card(p, b);
    uint64_t *kr = gen_ev_keys(p, 1, a, b, B, rrows, nr);
    uint64_t *ks = gen_ev_keys(p, 0, a, b, B, srows, ns);
    int64_t *cnt = NULL;
    int32_t *cx = NULL, *cy = NULL;
    int rc = -1;
    if (!kr || !ks) goto done;
    {
        int64_t big = nr > ns ? nr : ns;
        uint64_t *tmp = malloc((size_t)(big ? big : 1) * sizeof *tmp);
        if (!tmp) goto done;
        gen_ev_radix_u64(kr, tmp, nr);
        gen_ev_radix_u64(ks, tmp, ns);
        free(tmp);
    }
    cnt = malloc((size_t)(nr ? nr : 1) * sizeof *cnt);
    cx = malloc((size_t)(nr ? nr : 1) * sizeof *cx);
    cy = malloc((size_t)(nr ? nr : 1) * sizeof *cy);
    if (!cnt || !cx || !cy) goto done;
    /* merge the two sorted key lists cell by cell */
    double tv = 0;
    int64_t i = 0, j = 0, ncell = 0;
    while (i < nr || j < ns) {
        uint64_t key = (j >= ns || (i < nr && kr[i] <= ks[j])) ? kr[i] : ks[j];
        int64_t c1 = 0, c2 = 0;
        while (i < nr && kr[i] == key) i++, c1++;
        while (j < ns && ks[j] == key) j++, c2++;
        tv += fabs((double)c1 / (double)nr - (double)c2 / (double)ns);
        if (c1 > 0) {
            cnt[ncell] = c1;
            cx[ncell] = (int32_t)(key / (uint64_t)B);
            cy[ncell] = (int32_t)(key % (uint64_t)B);
            ncell++;
        }
    }
    *score = 1.0 - tv / 2.0;
    *assoc = gen_ev_cramers_v(cnt, cx, cy, ncell, A, B);
    rc = 0;
done:
    free(kr);
    free(ks);
    free(cnt);
    free(cx);
    free(cy);
    return rc;
}

/* One pair, all-pairs mode score plus the threshold test, and the robust score (pr_rob: the
 * robust binning's labels). Returns -1 on out of memory. */
static int gen_ev_pair(const gen_ev_pairctx *p, const gen_ev_pairctx *pr_rob,
                       const gen_ev_opts *o, int pidx, gen_ev_pair_res *pr) {
    const gen_ev_data *d = p->d;
    int a = pr->a, b = pr->b;
    pr->score = pr->score_robust = pr->real_corr = pr->syn_corr = pr->real_assoc = NAN;
    pr->meets = 0;
    if (d->continuous[a] && d->continuous[b]) {
        pr->metric = "CorrelationSimilarity";
        if (p->constant[a] || p->constant[b]) {
            pr->error = "ConstantInputError: a column is constant in the real or synthetic "
                        "data; correlation is undefined";
            return 0;
        }
        pr->real_corr = gen_ev_pearson(d->real.num[a], d->real.num[b], d->real.n);
        pr->syn_corr = gen_ev_pearson(d->syn.num[a], d->syn.num[b], d->syn.n);
        if (!isnan(pr->real_corr) && !isnan(pr->syn_corr))
            pr->score = 1.0 - fabs(pr->real_corr - pr->syn_corr) / 2.0;
        pr->score_robust = pr->score;
        pr->meets = !isnan(pr->real_corr) && fabs(pr->real_corr) > o->corr_threshold;
        return 0;
    }
    pr->metric = "ContingencySimilarity";
    if ((d->continuous[a] && p->disc_failed[a]) || (d->continuous[b] && p->disc_failed[b])) {
        pr->error = "ValueError: the continuous column holds infinite values and cannot be "
                    "binned";
        return 0;
    }
    int64_t nr = d->real.n, ns = d->syn.n, S = o->subsample_rows;
    int64_t *rrows = NULL, *srows = NULL;
    if (S > 0 && (nr > S || ns > S)) {
        uint64_t stream = (uint64_t)GEN_EV_STREAM_PAIRS + 2 * (uint64_t)pidx;
        if (nr > S && gen_ev_sample_rows(NULL, nr, S, o->seed, stream, &rrows) != GENESIS_OK)
            return -1;
        if (ns > S &&
            gen_ev_sample_rows(NULL, ns, S, o->seed, stream + 1, &srows) != GENESIS_OK) {
            free(rrows);
            return -1;
        }
        if (nr > S) nr = S;
        if (ns > S) ns = S;
        pr->subsampled = 1;
    }
    int rc = gen_ev_contingency(p, a, b, rrows, nr, srows, ns, &pr->score, &pr->real_assoc);
    if (rc == 0) {
        if (d->continuous[a] || d->continuous[b]) {
            double unused;
            rc = gen_ev_contingency(pr_rob, a, b, rrows, nr, srows, ns, &pr->score_robust,
                                    &unused);
        } else {
            pr->score_robust = pr->score;
        }
    }
    free(rrows);
    free(srows);
    pr->meets = !isnan(pr->real_assoc) && pr->real_assoc > o->assoc_threshold;
    return rc;
}

/* More than one distinct non-missing value? (pandas nunique() == 1 is "constant") */
static int gen_ev_is_constant(const double *x, int64_t n) {
    int64_t first = -1;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i])) continue;
        if (first < 0) first = i;
        else if (x[i] != x[first]) return 0;
    }
    return first >= 0;
}

static double gen_ev_nanmean2(double a, double b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return (a + b) / 2;
}

genesis_status gen_ev_quality(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                              genesis_eval_result *r) {
    int nc = d->ncols, nt = o->threads;
    int oom = 0;
    /* Column Shapes */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(| : oom)
    for (int c = 0; c < nc; c++) {
        gen_ev_column_res *cr = &r->cols[c];
        int bad = 0;
        if (d->continuous[c]) {
            cr->shape_metric = "KSComplement";
            cr->shape = gen_ev_ks_complement(d->real.num[c], d->real.n, d->syn.num[c],
                                             d->syn.n, &bad);
            if (isnan(cr->shape) && !bad) cr->shape_error = "no non-missing values";
        } else {
            cr->shape_metric = "TVComplement";
            cr->shape = gen_ev_tv_complement(d->real.cat[c], d->real.n, d->syn.cat[c],
                                             d->syn.n, d->dict[c].n, &bad);
            if (isnan(cr->shape) && !bad)
                cr->shape_error = "IncomputableMetricError: The TVComplement metric must have "
                                  "1 or more non-null values.";
        }
        oom |= bad;
    }
    GEN_RETURN_IF(oom, ctx, GENESIS_ERR_NOMEM, "out of memory computing column shapes");

    /* Column Pair Trends */
    gen_ev_pairctx p = {d, NULL, NULL, NULL, NULL}, q = {d, NULL, NULL, NULL, NULL};
    p.rlab = gen_calloc((size_t)nc, sizeof *p.rlab);
    p.slab = gen_calloc((size_t)nc, sizeof *p.slab);
    q.rlab = gen_calloc((size_t)nc, sizeof *q.rlab);
    q.slab = gen_calloc((size_t)nc, sizeof *q.slab);
    p.disc_failed = gen_calloc((size_t)nc, sizeof *p.disc_failed);
    p.constant = gen_calloc((size_t)nc, sizeof *p.constant);
    genesis_status st = GENESIS_OK;
    if (!p.rlab || !p.slab || !q.rlab || !q.slab || !p.disc_failed || !p.constant) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto done;
    }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(| : oom)
    for (int c = 0; c < nc; c++) {
        if (!d->continuous[c]) continue;
        double edges[11];
        p.rlab[c] = malloc((size_t)d->real.n);
        p.slab[c] = malloc((size_t)d->syn.n);
        q.rlab[c] = malloc((size_t)d->real.n);
        q.slab[c] = malloc((size_t)d->syn.n);
        if (!p.rlab[c] || !p.slab[c] || !q.rlab[c] || !q.slab[c]) {
            oom = 1;
            continue;
        }
        double lo, hi;
        if (gen_ev_digitize_robust(d->real.num[c], d->real.n, d->real.num[c], d->real.n,
                                   q.rlab[c], &lo, &hi) != 0 ||
            gen_ev_digitize_robust(d->real.num[c], d->real.n, d->syn.num[c], d->syn.n,
                                   q.slab[c], &lo, &hi) != 0) {
            oom = 1;
            continue;
        }
        if (gen_ev_digitize(d->real.num[c], d->real.n, p.rlab[c], edges) != 0 ||
            gen_ev_digitize(d->syn.num[c], d->syn.n, p.slab[c], edges) != 0)
            p.disc_failed[c] = 1;
        p.constant[c] = gen_ev_is_constant(d->real.num[c], d->real.n) ||
                        gen_ev_is_constant(d->syn.num[c], d->syn.n);
    }
    if (oom) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory binning columns");
        goto done;
    }
    int npairs = nc * (nc - 1) / 2;
    r->pairs = gen_calloc((size_t)(npairs ? npairs : 1), sizeof *r->pairs);
    if (!r->pairs) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto done;
    }
    r->npairs = npairs;
    for (int a = 0, k = 0; a < nc; a++)
        for (int b = a + 1; b < nc; b++, k++) {
            r->pairs[k].a = a;
            r->pairs[k].b = b;
        }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(| : oom)
    for (int k = 0; k < npairs; k++)
        if (gen_ev_pair(&p, &q, o, k, &r->pairs[k]) != 0) oom = 1;
    if (oom) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory computing pair trends");
        goto done;
    }

    /* property and overall scores */
    double s = 0;
    int m = 0;
    for (int c = 0; c < nc; c++)
        if (!isnan(r->cols[c].shape)) s += r->cols[c].shape, m++;
    double shapes = m ? s / m : NAN;
    double sa = 0, st_ = 0;
    int ma = 0, mt = 0;
    r->npairs_meeting = 0;
    for (int k = 0; k < npairs; k++) {
        const gen_ev_pair_res *pr = &r->pairs[k];
        if (pr->meets) r->npairs_meeting++;
        if (isnan(pr->score)) continue;
        sa += pr->score, ma++;
        if (pr->meets) st_ += pr->score, mt++;
    }
    double trends = ma ? sa / ma : NAN, trends_thr = mt ? st_ / mt : NAN;
    double sr = 0;
    int mr = 0;
    for (int k = 0; k < npairs; k++)
        if (!isnan(r->pairs[k].score_robust)) sr += r->pairs[k].score_robust, mr++;
    r->pair_trends_robust = mr ? sr / mr : NAN;
    r->score[GENESIS_EVAL_COLUMN_SHAPES] = shapes;
    r->score[GENESIS_EVAL_PAIR_TRENDS] = trends;
    r->score[GENESIS_EVAL_PAIR_TRENDS_THRESHOLD] = trends_thr;
    r->score[GENESIS_EVAL_QUALITY] = gen_ev_nanmean2(shapes, trends);
    r->score[GENESIS_EVAL_QUALITY_THRESHOLD] = gen_ev_nanmean2(shapes, trends_thr);
done:
    for (int c = 0; c < nc; c++) {
        if (p.rlab) free(p.rlab[c]);
        if (p.slab) free(p.slab[c]);
    }
    for (int c = 0; c < nc; c++) {
        if (q.rlab) free(q.rlab[c]);
        if (q.slab) free(q.slab[c]);
    }
    free(p.rlab);
    free(p.slab);
    free(q.rlab);
    free(q.slab);
    free(p.disc_failed);
    free(p.constant);
    return st;
}
