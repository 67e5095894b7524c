/*
 * evaluate_privacy.c — leak checks of a synthetic table (docs/algorithms.md §C4). They are
 * not anonymity guarantees (§D4): they catch copies and near copies.
 *
 *   Exact-copy rate        fraction of synthetic rows equal, in every column, to some real
 *                          row (missing equal to missing). Exact over all rows: real rows go
 *                          into a hash set, each synthetic row is looked up. The same pass
 *                          counts the real rows that equal another real row (every member of
 *                          a group of identical rows counts): a table of many repeated rows
 *                          has many exact copies in any sample of it.
 *   Baselines              (Genesis) with a holdout, every line above is also computed for
 *                          the holdout in the synthetic table's place (gen_ev_privacy_baseline):
 *                          what unseen real rows score against the training rows.
 *   NewRowSynthesis        (single_table/new_row_synthesis.py) fraction of synthetic rows
 *                          with no real row that matches: every categorical value equal, every
 *                          continuous value within |real - syn| <= |0.01 * syn|, missing only
 *                          matching missing. Exact over all rows: real rows are grouped by
 *                          their categorical values (hash), each group sorted by the most
 *                          selective continuous column, so a synthetic row looks at one group
 *                          and binary-searches its tolerance window.
 *   DCR                    (single_table/privacy/dcr_utils.py) distance of a row x to a
 *                          reference row y = mean over columns of: continuous |x - y| / range
 *                          of the reference column, capped at 1 (range 0: 1 if different);
 *                          exactly one missing 1, both missing 0; categorical 0 if equal (or
 *                          both missing) else 1. DCR(x) = min over all reference rows.
 *                          Computed row by row against blocks of 256 reference rows (never an
 *                          n x m matrix), rows in parallel (OpenMP), as an exact branch and
 *                          bound (gen_ev_dcr): block summaries and categorical mismatch counts
 *                          bound distances from below, continuous terms are added only while
 *                          a reference row can still beat the row's best, and a row stops at
 *                          distance 0. When the synthetic table has more
 *                          rows than dcr_rows (default 20,000), DCR uses a seeded random
 *                          subsample of that many synthetic rows (SDMetrics' own
 *                          num_rows_subsample does the same; Genesis keeps every real row as
 *                          reference). Exact copies and NewRowSynthesis stay exact.
 *   DCRBaselineProtection  (dcr_baseline_protection.py) min(median DCR(synthetic -> real) /
 *                          median DCR(random -> real), 1), NaN when the random median is 0.
 *                          The random table draws each column independently by the real
 *                          column's pandas dtype: int64 uniform integers in [min, max],
 *                          float64 uniform in [min, max], otherwise uniform over the real
 *                          column's distinct values; missing values re-injected at the real
 *                          rate. As many random rows as synthetic rows used.
 *   DCROverfittingProtection (dcr_overfitting_protection.py) with a holdout: p = fraction of
 *                          synthetic rows strictly closer to the training (real) table than
 *                          to the holdout (each distance scaled by its own reference's
 *                          ranges); score = min(2 (1 - p), 1). The two reference sets are
 *                          compared at equal size by default: the larger of training and
 *                          holdout is sampled (seeded, without replacement) to the smaller
 *                          one's row count, as SDMetrics 0.32's num_rows_subsample mode
 *                          samples training and validation to one size (compute_breakdown);
 *                          with unequal sizes the larger set is closer by its size alone.
 *                          dcr_reference_rows = -1 keeps both whole (SDMetrics' default
 *                          call), N > 0 samples both to min(N, sizes).
 */
#include <math.h>
#include <string.h>

#include "evaluate.h"
#include "rng.h"

#define GEN_EV_NAN_SENTINEL 1e300

/* ---- hashing rows ------------------------------------------------------------------------ */

static inline uint64_t gen_ev_mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

static inline uint64_t gen_ev_num_bits(double v) {
    if (isnan(v)) return 0x7FF8DEADull;
    if (v == 0) v = 0;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static inline int gen_ev_num_eq(double a, double b) {
    return a == b || (isnan(a) && isnan(b));
}

/* Hash of a row over the chosen columns (cat: categorical only; all: every column). */
static uint64_t gen_ev_row_hash(const gen_ev_data *d, const gen_ev_table *t, int64_t i,
                                int cat_only) {
    uint64_t h = 0x1234567ull;
    for (int c = 0; c < d->ncols; c++) {
        if (d->continuous[c]) {
            if (!cat_only) h = gen_ev_mix(h, gen_ev_num_bits(t->num[c][i]));
        } else {
            h = gen_ev_mix(h, (uint64_t)(uint32_t)t->cat[c][i]);
        }
    }
    return h;
}

static int gen_ev_rows_eq(const gen_ev_data *d, const gen_ev_table *a, int64_t i,
                          const gen_ev_table *b, int64_t j, int cat_only) {
    for (int c = 0; c < d->ncols; c++) {
        if (d->continuous[c]) {
            if (!cat_only && !gen_ev_num_eq(a->num[c][i], b->num[c][j])) return 0;
        } else if (a->cat[c][i] != b->cat[c][j]) {
            return 0;
        }
    }
    return 1;
}

/* Open-addressing set of real rows keyed by a row hash; value = first row of its key (exact
 * copies) or group index (NewRowSynthesis). */
typedef struct {
    uint64_t *hash;
    int64_t *val;
    size_t mask;
} gen_ev_hset;

static int gen_ev_hset_init(gen_ev_hset *s, int64_t n) {
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap *= 2;
    s->hash = malloc(cap * sizeof *s->hash);
    s->val = malloc(cap * sizeof *s->val);
    s->mask = cap - 1;
    if (!s->hash || !s->val) return -1;
    for (size_t k = 0; k < cap; k++) s->val[k] = -1;
    return 0;
}

static void gen_ev_hset_free(gen_ev_hset *s) {
    free(s->hash);
    free(s->val);
}

/* ---- exact copies ------------------------------------------------------------------------- */

static genesis_status gen_ev_exact_copies(genesis_ctx *ctx, const gen_ev_data *d, int nt,
                                          int64_t *copies, int64_t *real_dups) {
    const gen_ev_table *R = &d->real, *S = &d->syn;
    gen_ev_hset hs;
    int64_t *cnt = NULL;
    if (gen_ev_hset_init(&hs, R->n) != 0 ||
        !(cnt = calloc(hs.mask + 1, sizeof *cnt))) {
        gen_ev_hset_free(&hs);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory hashing the real rows");
    }
    /* Distinct real rows: one slot per distinct row (duplicates skipped). */
    for (int64_t i = 0; i < R->n; i++) {
        uint64_t h = gen_ev_row_hash(d, R, i, 0);
        size_t j = h & hs.mask;
        int dup = 0;
        while (hs.val[j] >= 0) {
            if (hs.hash[j] == h && gen_ev_rows_eq(d, R, hs.val[j], R, i, 0)) {
                dup = 1;
                break;
            }
            j = (j + 1) & hs.mask;
        }
        if (!dup) hs.hash[j] = h, hs.val[j] = i;
        cnt[j]++;
    }
    int64_t dups = 0;
    for (size_t j = 0; j <= hs.mask; j++)
        if (cnt[j] >= 2) dups += cnt[j];
    free(cnt);
    *real_dups = dups;
    int64_t n = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 4096) reduction(+ : n)
    for (int64_t i = 0; i < S->n; i++) {
        uint64_t h = gen_ev_row_hash(d, S, i, 0);
        size_t j = h & hs.mask;
        while (hs.val[j] >= 0) {
            if (hs.hash[j] == h && gen_ev_rows_eq(d, R, hs.val[j], S, i, 0)) {
                n++;
                break;
            }
            j = (j + 1) & hs.mask;
        }
    }
    gen_ev_hset_free(&hs);
    *copies = n;
    return GENESIS_OK;
}

/* ---- NewRowSynthesis ---------------------------------------------------------------------- */

typedef struct {
    const gen_ev_data *d;
    int key;                 /* continuous column the groups are sorted by; -1 = none */
    int64_t *order;          /* real rows grouped, each group sorted by key (NaN last) */
    int64_t *gstart;         /* [ngroups + 1] */
    gen_ev_hset hs;          /* categorical hash -> group */
} gen_ev_nrs;

/* Sort record of a real row: group, then key value (missing last). */
typedef struct {
    int64_t g;
    double k;
    int64_t row;
} gen_ev_nrs_rec;

static int gen_ev_cmp_nrs(const void *pa, const void *pb) {
    const gen_ev_nrs_rec *a = pa, *b = pb;
    if (a->g != b->g) return (a->g > b->g) - (a->g < b->g);
    int nx = isnan(a->k), ny = isnan(b->k);
    if (nx || ny) {
        if (nx != ny) return nx - ny;
    } else if (a->k != b->k) {
        return (a->k > b->k) - (a->k < b->k);
    }
    return (a->row > b->row) - (a->row < b->row);
}

static int gen_ev_cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rows of sorted (NaN-free) `v` with |v - s| <= tol: [*lo, *hi). */
static void gen_ev_window(const double *v, int64_t n, double s, double tol, int64_t *lo,
                          int64_t *hi) {
    int64_t a = 0, b = n;
    while (a < b) { /* first with v - s >= -tol */
        int64_t m = a + (b - a) / 2;
        if (v[m] - s >= -tol) b = m;
        else a = m + 1;
    }
    *lo = a;
    b = n;
    while (a < b) { /* first with v - s > tol */
        int64_t m = a + (b - a) / 2;
        if (v[m] - s > tol) b = m;
        else a = m + 1;
    }
    *hi = a;
}

/* Picks the continuous column whose tolerance windows hold the fewest real rows, estimated
 * on up to 256 synthetic rows. */
static int gen_ev_pick_key(genesis_ctx *ctx, const gen_ev_data *d, int *key) {
    *key = -1;
    double best = INFINITY;
    const gen_ev_table *R = &d->real, *S = &d->syn;
    double *v = malloc((size_t)R->n * sizeof *v);
    if (!v) return -1;
    for (int c = 0; c < d->ncols; c++) {
        if (!d->continuous[c]) continue;
        int64_t m = 0;
        for (int64_t i = 0; i < R->n; i++)
            if (!isnan(R->num[c][i])) v[m++] = R->num[c][i];
        qsort(v, (size_t)m, sizeof *v, gen_ev_cmp_dbl);
        int64_t probes = S->n < 256 ? S->n : 256;
        double tot = 0;
        for (int64_t k = 0; k < probes; k++) {
            double s = S->num[c][k * (S->n / probes)];
            if (isnan(s)) {
                tot += (double)(R->n - m);
                continue;
            }
            int64_t lo, hi;
            gen_ev_window(v, m, s, fabs(0.01 * s), &lo, &hi);
            tot += (double)(hi - lo);
        }
        if (tot < best) best = tot, *key = c;
    }
    free(v);
    (void)ctx;
    return 0;
}

static genesis_status gen_ev_new_rows(genesis_ctx *ctx, const gen_ev_data *d, int nt,
                                      int64_t *new_rows) {
    const gen_ev_table *R = &d->real, *S = &d->syn;
    gen_ev_nrs s;
    memset(&s, 0, sizeof s);
    s.d = d;
    genesis_status st = GENESIS_OK;
    int64_t *group = malloc((size_t)R->n * sizeof *group);
    int64_t *rep = malloc((size_t)R->n * sizeof *rep); /* a row of each group */
    s.order = malloc((size_t)R->n * sizeof *s.order);
    s.gstart = malloc(((size_t)R->n + 1) * sizeof *s.gstart);
    if (!group || !rep || !s.order || !s.gstart || gen_ev_hset_init(&s.hs, R->n) != 0 ||
        gen_ev_pick_key(ctx, d, &s.key) != 0) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory grouping the real rows");
        goto done;
    }
    int64_t ng = 0;
    for (int64_t i = 0; i < R->n; i++) {
        uint64_t h = gen_ev_row_hash(d, R, i, 1);
        size_t j = h & s.hs.mask;
        int64_t g = -1;
        while (s.hs.val[j] >= 0) {
            if (s.hs.hash[j] == h && gen_ev_rows_eq(d, R, rep[s.hs.val[j]], R, i, 1)) {
                g = s.hs.val[j];
                break;
            }
            j = (j + 1) & s.hs.mask;
        }
        if (g < 0) {
            g = ng++;
            rep[g] = i;
            s.hs.hash[j] = h;
            s.hs.val[j] = g;
        }
        group[i] = g;
        s.order[i] = i;
    }
    gen_ev_nrs_rec *rec = malloc((size_t)(R->n ? R->n : 1) * sizeof *rec);
    if (!rec) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory grouping the real rows");
        goto done;
    }
    for (int64_t i = 0; i < R->n; i++) {
        rec[i].g = group[i];
        rec[i].k = s.key >= 0 ? R->num[s.key][i] : 0;
        rec[i].row = i;
    }
    qsort(rec, (size_t)R->n, sizeof *rec, gen_ev_cmp_nrs);
    for (int64_t i = 0; i < R->n; i++) s.order[i] = rec[i].row;
    free(rec);
    for (int64_t g = 0, k = 0; g <= ng; g++) {
        while (k < R->n && group[s.order[k]] < g) k++;
        s.gstart[g] = k;
    }
    int64_t nnew = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 256) reduction(+ : nnew)
    for (int64_t i = 0; i < S->n; i++) {
        uint64_t h = gen_ev_row_hash(d, S, i, 1);
        size_t j = h & s.hs.mask;
        int64_t g = -1;
        while (s.hs.val[j] >= 0) {
            if (s.hs.hash[j] == h && gen_ev_rows_eq(d, R, rep[s.hs.val[j]], S, i, 1)) {
                g = s.hs.val[j];
                break;
            }
            j = (j + 1) & s.hs.mask;
        }
        if (g < 0) {
            nnew++;
            continue;
        }
        int64_t lo = s.gstart[g], hi = s.gstart[g + 1];
        if (s.key >= 0) {
            const double *kv = R->num[s.key];
            double x = S->num[s.key][i];
            int64_t nn = lo; /* first NaN in the group */
            int64_t a = lo, b = hi;
            while (a < b) {
                int64_t m = a + (b - a) / 2;
                if (isnan(kv[s.order[m]])) b = m;
                else a = m + 1;
            }
            nn = a;
            if (isnan(x)) {
                lo = nn;
            } else {
                double tol = fabs(0.01 * x);
                int64_t l = lo, r = nn;
                while (l < r) {
                    int64_t m = l + (r - l) / 2;
                    if (kv[s.order[m]] - x >= -tol) r = m;
                    else l = m + 1;
                }
                lo = l;
                r = nn;
                while (l < r) {
                    int64_t m = l + (r - l) / 2;
                    if (kv[s.order[m]] - x > tol) r = m;
                    else l = m + 1;
                }
                hi = l;
            }
        }
        int found = 0;
        for (int64_t k = lo; k < hi && !found; k++) {
            int64_t rr = s.order[k];
            int ok = 1;
            for (int c = 0; c < d->ncols && ok; c++) {
                if (!d->continuous[c]) continue;
                double x = S->num[c][i], y = R->num[c][rr];
                if (isnan(x)) ok = isnan(y);
                else ok = fabs(y - x) <= fabs(0.01 * x);
            }
            found = ok;
        }
        if (!found) nnew++;
    }
    *new_rows = nnew;
done:
    free(group);
    free(rep);
    free(s.order);
    free(s.gstart);
    gen_ev_hset_free(&s.hs);
    return st;
}

/* ---- DCR ---------------------------------------------------------------------------------- */

/* Rows prepared for distance computations against one reference table: categorical ids and
 * range-scaled continuous values (NaN -> a far sentinel, so that |NaN - x| caps at 1 and
 * |NaN - NaN| = 0); continuous columns of range 0 compare exactly. Column-major. A
 * reference also gets per-block summaries (GEN_EV_DCR_BLOCK rows): for each categorical
 * column a 64-bit mask of the codes present (bit code mod 64), for each continuous column
 * the block's min and max; its rows are sorted by their categorical values first, so that
 * blocks are homogeneous and the summaries give tight lower bounds. */
#define GEN_EV_DCR_BLOCK 256
typedef struct {
    int64_t n;
    int ncat, nnum, nexact;
    int32_t **cat;
    double **num, **exact;
    int64_t nblocks;
    uint64_t *mask;        /* [nblocks x ncat] */
    double *bmin, *bmax;   /* [nblocks x nnum] */
} gen_ev_dcr_rows;

static void gen_ev_dcr_rows_free(gen_ev_dcr_rows *x) {
    for (int k = 0; k < x->ncat; k++) free(x->cat[k]);
    for (int k = 0; k < x->nnum; k++) free(x->num[k]);
    for (int k = 0; k < x->nexact; k++) free(x->exact[k]);
    free(x->cat);
    free(x->num);
    free(x->exact);
    free(x->mask);
    free(x->bmin);
    free(x->bmax);
    memset(x, 0, sizeof *x);
}

/* Scale of each continuous column of the reference: 1/range, 0 for range 0 (exact compare),
 * 1 when the reference column has no values. */
static void gen_ev_ranges(const gen_ev_data *d, const gen_ev_table *ref, double *inv) {
    for (int c = 0; c < d->ncols; c++) {
        if (!d->continuous[c]) continue;
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < ref->n; i++) {
            double v = ref->num[c][i];
            if (isnan(v)) continue;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        inv[c] = lo > hi ? 1.0 : (hi > lo ? 1.0 / (hi - lo) : 0.0);
    }
}

/* Prepares rows `rows` (NULL = all) of the column arrays num/cat with the reference scales
 * `inv`. */
static int gen_ev_dcr_prepare(const gen_ev_data *d, double *const *num, int32_t *const *cat,
                              const int64_t *rows, int64_t n, const double *inv,
                              gen_ev_dcr_rows *x) {
    memset(x, 0, sizeof *x);
    x->n = n;
    x->cat = gen_calloc((size_t)d->ncols, sizeof *x->cat);
    x->num = gen_calloc((size_t)d->ncols, sizeof *x->num);
    x->exact = gen_calloc((size_t)d->ncols, sizeof *x->exact);
    if (!x->cat || !x->num || !x->exact) return -1;
    for (int c = 0; c < d->ncols; c++) {
        if (!d->continuous[c]) {
            int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
            if (!v) return -1;
            x->cat[x->ncat++] = v;
            for (int64_t t = 0; t < n; t++) v[t] = cat[c][rows ? rows[t] : t];
            continue;
        }
        double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!v) return -1;
        int exact = inv[c] == 0;
        if (exact) x->exact[x->nexact++] = v;
        else x->num[x->nnum++] = v;
        for (int64_t t = 0; t < n; t++) {
            double y = num[c][rows ? rows[t] : t];
            v[t] = isnan(y) ? GEN_EV_NAN_SENTINEL : exact ? y : y * inv[c];
        }
    }
    return 0;
}

typedef struct {
    uint64_t key;
    int64_t row;
} gen_ev_keyrow;

static int gen_ev_cmp_keyrow(const void *a, const void *b) {
    const gen_ev_keyrow *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->row > y->row) - (x->row < y->row);
}

/* A reference table: its rows ordered by a mixed-radix key of the categorical columns
 * (fewest categories first, as many as fit in 62 bits), then prepared, then the block
 * summaries. */
static int gen_ev_dcr_prepare_ref(const gen_ev_data *d, const gen_ev_table *t,
                                  const double *inv, gen_ev_dcr_rows *x) {
    int64_t n = t->n;
    gen_ev_keyrow *kr = malloc((size_t)(n ? n : 1) * sizeof *kr);
    int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    int *cols = malloc((size_t)d->ncols * sizeof *cols);
    int rc = -1;
    if (!kr || !order || !cols) goto done;
    int m = 0;
    for (int c = 0; c < d->ncols; c++)
        if (!d->continuous[c]) cols[m++] = c;
    for (int a = 1; a < m; a++) /* insertion sort by cardinality */
        for (int b = a; b > 0 && d->dict[cols[b]].n < d->dict[cols[b - 1]].n; b--) {
            int tmp = cols[b];
            cols[b] = cols[b - 1];
            cols[b - 1] = tmp;
        }
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = 0;
        double room = 4.6e18;
        for (int k = 0; k < m; k++) {
            double radix = (double)d->dict[cols[k]].n + 1;
            if (radix > room) break;
            room /= radix;
            key = key * (uint64_t)radix + (uint64_t)(t->cat[cols[k]][i] + 1);
        }
        kr[i].key = key;
        kr[i].row = i;
    }
    qsort(kr, (size_t)n, sizeof *kr, gen_ev_cmp_keyrow);
    for (int64_t i = 0; i < n; i++) order[i] = kr[i].row;
    if (gen_ev_dcr_prepare(d, t->num, t->cat, order, n, inv, x) != 0) goto done;
    x->nblocks = (n + GEN_EV_DCR_BLOCK - 1) / GEN_EV_DCR_BLOCK;
    x->mask = calloc((size_t)(x->nblocks * x->ncat + 1), sizeof *x->mask);
    x->bmin = malloc((size_t)(x->nblocks * x->nnum + 1) * sizeof *x->bmin);
    x->bmax = malloc((size_t)(x->nblocks * x->nnum + 1) * sizeof *x->bmax);
    if (!x->mask || !x->bmin || !x->bmax) goto done;
    for (int64_t bl = 0; bl < x->nblocks; bl++) {
        int64_t r0 = bl * GEN_EV_DCR_BLOCK, r1 = r0 + GEN_EV_DCR_BLOCK < n ? r0 + GEN_EV_DCR_BLOCK : n;
        for (int j = 0; j < x->ncat; j++) {
            uint64_t mk = 0;
            for (int64_t i = r0; i < r1; i++) mk |= 1ull << ((uint32_t)x->cat[j][i] & 63u);
            x->mask[bl * x->ncat + j] = mk;
        }
        for (int j = 0; j < x->nnum; j++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int64_t i = r0; i < r1; i++) {
                lo = x->num[j][i] < lo ? x->num[j][i] : lo;
                hi = x->num[j][i] > hi ? x->num[j][i] : hi;
            }
            x->bmin[bl * x->nnum + j] = lo;
            x->bmax[bl * x->nnum + j] = hi;
        }
    }
    rc = 0;
done:
    free(kr);
    free(order);
    free(cols);
    return rc;
}

/* x86-64: an AVX2 copy of the counting loop next to the baseline one, picked at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define GEN_EV_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GEN_EV_CLONES
#endif

/* mis[t] += (rc[t] != v) */
GEN_EV_CLONES static void gen_ev_count_i32(int32_t *restrict mis, const int32_t *restrict rc,
                                           int32_t v, int n) {
    for (int t = 0; t < n; t++) mis[t] += rc[t] != v;
}
GEN_EV_CLONES static void gen_ev_count_f64(int32_t *restrict mis, const double *restrict rc,
                                           double v, int n) {
    for (int t = 0; t < n; t++) mis[t] += rc[t] != v;
}

/* out[q] = DCR of query row q to the reference rows (mean over ncols columns), as a branch
 * and bound that gives the same minimum as comparing every pair:
 *   - a block of reference rows is skipped when its summary already shows a distance of at
 *     least the query's best so far (categorical codes absent from the block, continuous
 *     values outside the block's range);
 *   - in a block, the count of differing categorical (and range-0) values bounds each row's
 *     distance from below; only rows under the best get their continuous terms, column by
 *     column, and a row is dropped as soon as its partial sum reaches the best;
 *   - a query stops at distance 0.
 * Sums run in a fixed order (categorical count, then continuous columns), so the result
 * does not depend on threads or on the pruning. */
/* Lower bound of the distance (times ncols) from query q to any row of block bl. */
static inline double gen_ev_block_bound(const gen_ev_dcr_rows *Q, const gen_ev_dcr_rows *R,
                                        int64_t q, int64_t bl) {
    double lb = 0;
    const uint64_t *mk = R->mask + bl * R->ncat;
    for (int j = 0; j < R->ncat; j++) lb += !((mk[j] >> ((uint32_t)Q->cat[j][q] & 63u)) & 1u);
    const double *lo = R->bmin + bl * R->nnum, *hi = R->bmax + bl * R->nnum;
    for (int j = 0; j < R->nnum; j++) {
        double v = Q->num[j][q], e = lo[j] - v > v - hi[j] ? lo[j] - v : v - hi[j];
        lb += e <= 0 ? 0 : e < 1.0 ? e : 1.0;
    }
    return lb;
}

/* The smallest distance (times ncols) from query q to a row of block bl, if below b;
 * otherwise b. */
static double gen_ev_block_min(const gen_ev_dcr_rows *Q, const gen_ev_dcr_rows *R, int64_t q,
                               int64_t bl, double b) {
    int32_t mis[GEN_EV_DCR_BLOCK], cand[GEN_EV_DCR_BLOCK];
    double part[GEN_EV_DCR_BLOCK];
    int64_t r0 = bl * GEN_EV_DCR_BLOCK;
    int nr = (int)(R->n - r0 < GEN_EV_DCR_BLOCK ? R->n - r0 : GEN_EV_DCR_BLOCK);
    for (int t = 0; t < nr; t++) mis[t] = 0;
    for (int j = 0; j < R->ncat; j++) gen_ev_count_i32(mis, R->cat[j] + r0, Q->cat[j][q], nr);
    for (int j = 0; j < R->nexact; j++) gen_ev_count_f64(mis, R->exact[j] + r0, Q->exact[j][q], nr);
    int m = 0;
    for (int t = 0; t < nr; t++) {
        if ((double)mis[t] < b) {
            cand[m] = t;
            part[m++] = (double)mis[t];
        }
    }
    for (int j = 0; j < R->nnum && m > 0; j++) {
        const double *rc = R->num[j] + r0;
        double v = Q->num[j][q];
        int m2 = 0;
        for (int u = 0; u < m; u++) {
            double e = fabs(rc[cand[u]] - v);
            double p = part[u] + (e < 1.0 ? e : 1.0);
            cand[m2] = cand[u];
            part[m2] = p;
            m2 += p < b;
        }
        m = m2;
    }
    for (int u = 0; u < m; u++) b = part[u] < b ? part[u] : b;
    return b;
}

static void gen_ev_dcr(const gen_ev_dcr_rows *Q, const gen_ev_dcr_rows *R, int ncols, int nt,
                       double *out) {
    int64_t nq = Q->n, nb = R->nblocks;
#pragma omp parallel num_threads(nt)
    {
        double *lbs = malloc((size_t)(nb ? nb : 1) * sizeof *lbs);
#pragma omp for schedule(dynamic, 16)
        for (int64_t q = 0; q < nq; q++) {
            double b = INFINITY;
            if (lbs) {
                /* best first: the block with the smallest bound gives a small b early,
                 * then every block whose bound is not below b is skipped */
                int64_t first = 0;
                for (int64_t bl = 0; bl < nb; bl++) {
                    lbs[bl] = gen_ev_block_bound(Q, R, q, bl);
                    if (lbs[bl] < lbs[first]) first = bl;
                }
                if (nb) b = gen_ev_block_min(Q, R, q, first, b);
                for (int64_t bl = 0; bl < nb && b > 0; bl++)
                    if (bl != first && lbs[bl] < b) b = gen_ev_block_min(Q, R, q, bl, b);
            } else { /* no memory for the bounds: every block, bounds computed on the way */
                for (int64_t bl = 0; bl < nb && b > 0; bl++)
                    if (gen_ev_block_bound(Q, R, q, bl) < b) b = gen_ev_block_min(Q, R, q, bl, b);
            }
            out[q] = b / (double)ncols;
        }
        free(lbs);
    }
}

/* The random baseline (dcr_baseline_protection.py _generate_random_data), n rows, in the
 * evaluation's column arrays. */
static genesis_status gen_ev_random_table(genesis_ctx *ctx, const gen_ev_data *d, int64_t n,
                                          uint64_t seed, double **num, int32_t **cat) {
    const gen_ev_table *R = &d->real;
    gen_rng rng;
    gen_rng_init(&rng, seed, GEN_EV_STREAM_BASELINE);
    for (int c = 0; c < d->ncols; c++) {
        double lo = INFINITY, hi = -INFINITY;
        int64_t nnan = 0;
        if (d->continuous[c] || R->dtype[c] == GEN_EV_INT64 || R->dtype[c] == GEN_EV_FLOAT64) {
            for (int64_t i = 0; i < R->n; i++) {
                double v = d->continuous[c] ? R->num[c][i]
                           : R->cat[c][i] < 0 ? NAN : d->dict[c].value[R->cat[c][i]];
                if (isnan(v)) {
                    nnan++;
                    continue;
                }
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        } else {
            for (int64_t i = 0; i < R->n; i++) nnan += R->cat[c][i] < 0;
        }
        double nan_ratio = (double)nnan / (double)R->n;
        int32_t *uniq = NULL;
        int32_t nu = 0;
        int by_value = d->continuous[c] || R->dtype[c] == GEN_EV_INT64 ||
                       R->dtype[c] == GEN_EV_FLOAT64;
        if (!by_value) {
            uint8_t *seen = calloc((size_t)d->dict[c].n + 1, 1);
            uniq = malloc(((size_t)d->dict[c].n + 1) * sizeof *uniq);
            if (!seen || !uniq) {
                free(seen);
                free(uniq);
                return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            }
            for (int64_t i = 0; i < R->n; i++) {
                int32_t id = R->cat[c][i];
                if (id >= 0 && !seen[id]) seen[id] = 1, uniq[nu++] = id;
            }
            free(seen);
        }
        for (int64_t i = 0; i < n; i++) {
            double v = NAN;
            int32_t id = -1;
            if (by_value) {
                if (lo <= hi) {
                    if (R->dtype[c] == GEN_EV_INT64)
                        v = lo + (double)gen_rng_below(&rng, (uint64_t)(hi - lo) + 1);
                    else
                        v = lo + (hi - lo) * gen_rng_uniform(&rng);
                }
                if (!d->continuous[c]) {
                    id = isnan(v) ? -1 : gen_ev_dict_find_num(&d->dict[c], v);
                    if (id < 0 && !isnan(v)) id = -2; /* a value that is no category */
                }
            } else if (nu > 0) {
                id = uniq[gen_rng_below(&rng, (uint64_t)nu)];
            }
            if (gen_rng_uniform(&rng) < nan_ratio) v = NAN, id = -1;
            if (d->continuous[c]) num[c][i] = v;
            else cat[c][i] = id;
        }
        free(uniq);
    }
    return GENESIS_OK;
}

/* A view of rows `rows` (k of them) of table t: gathered copies of the columns (dtype
 * shared). Freed with gen_ev_subtable_free. */
static int gen_ev_subtable(const gen_ev_data *d, const gen_ev_table *t, const int64_t *rows,
                           int64_t k, gen_ev_table *out) {
    memset(out, 0, sizeof *out);
    out->role = t->role;
    out->source = t->source;
    out->dtype = t->dtype;
    out->n = k;
    out->num = gen_calloc((size_t)d->ncols, sizeof *out->num);
    out->cat = gen_calloc((size_t)d->ncols, sizeof *out->cat);
    if (!out->num || !out->cat) return -1;
    for (int c = 0; c < d->ncols; c++) {
        if (d->continuous[c]) {
            if (!(out->num[c] = malloc((size_t)(k ? k : 1) * sizeof **out->num))) return -1;
            for (int64_t i = 0; i < k; i++) out->num[c][i] = t->num[c][rows[i]];
        } else {
            if (!(out->cat[c] = malloc((size_t)(k ? k : 1) * sizeof **out->cat))) return -1;
            for (int64_t i = 0; i < k; i++) out->cat[c][i] = t->cat[c][rows[i]];
        }
    }
    return 0;
}

static void gen_ev_subtable_free(const gen_ev_data *d, gen_ev_table *t) {
    for (int c = 0; c < d->ncols; c++) {
        if (t->num) free(t->num[c]);
        if (t->cat) free(t->cat[c]);
    }
    free(t->num);
    free(t->cat);
    memset(t, 0, sizeof *t);
}

/* Fewer reference rows than this on either side: the share of closer rows moves by several
 * points between seeds (its standard error at p = 0.5 is about 0.5 / sqrt(rows) from the
 * synthetic side alone, and the reference sample adds its own), so the report warns. */
#define GEN_EV_DCR_FEW_REFERENCE 1000

/* DCROverfittingProtection: the reference sets sized (equal by default), the synthetic
 * rows' DCR to each, p and the score. dsyn_real: DCR of the same query rows to the whole
 * real table (reused when the training side is not sampled). */
static genesis_status gen_ev_overfitting(genesis_ctx *ctx, const gen_ev_data *d,
                                         const gen_ev_opts *o, const int64_t *rows, int64_t nq,
                                         const double *dsyn_real, genesis_eval_result *r) {
    int nc = d->ncols, nt = o->threads;
    int64_t ntr = d->real.n, nho = d->hold.n, mtr = ntr, mho = nho;
    if (o->dcr_reference_rows >= 0) {
        int64_t m = ntr < nho ? ntr : nho;
        if (o->dcr_reference_rows > 0 && o->dcr_reference_rows < m) m = o->dcr_reference_rows;
        mtr = mho = m;
    }
    r->dcr_equal_size = o->dcr_reference_rows >= 0;
    r->dcr_train_ref = mtr;
    r->dcr_hold_ref = mho;
    if (mtr < GEN_EV_DCR_FEW_REFERENCE || mho < GEN_EV_DCR_FEW_REFERENCE)
        r->dcr_warning = "fewer than 1000 reference rows on a side: the overfitting score "
                         "varies by several points between seeds; use a larger holdout";
    else if (!r->dcr_equal_size && (2 * nho < ntr || 2 * ntr < nho))
        r->dcr_warning = "training and holdout differ in size by more than a factor 2 and "
                         "both are used whole: the larger set is closer by its size alone, "
                         "so the score is biased; compare at equal sizes (the default)";
    genesis_status st = GENESIS_OK;
    int64_t *trows = NULL, *hrows = NULL;
    gen_ev_table tsub, hsub;
    memset(&tsub, 0, sizeof tsub), memset(&hsub, 0, sizeof hsub);
    const gen_ev_table *tref = &d->real, *href_t = &d->hold;
    double *inv = gen_calloc((size_t)nc, sizeof *inv);
    double *dtrain = malloc((size_t)(nq ? nq : 1) * sizeof *dtrain);
    double *dhold = malloc((size_t)(nq ? nq : 1) * sizeof *dhold);
    gen_ev_dcr_rows q, ref;
    memset(&q, 0, sizeof q), memset(&ref, 0, sizeof ref);
    if (!inv || !dtrain || !dhold) goto oom;
    if (mtr < ntr) {
        if ((st = gen_ev_sample_rows(ctx, ntr, mtr, o->seed, GEN_EV_STREAM_DCR_TRAIN, &trows)))
            goto done;
        if (gen_ev_subtable(d, &d->real, trows, mtr, &tsub)) goto oom;
        tref = &tsub;
        gen_ev_ranges(d, tref, inv);
        if (gen_ev_dcr_prepare_ref(d, tref, inv, &ref) ||
            gen_ev_dcr_prepare(d, d->syn.num, d->syn.cat, rows, nq, inv, &q))
            goto oom;
        gen_ev_dcr(&q, &ref, nc, nt, dtrain);
        gen_ev_dcr_rows_free(&q), gen_ev_dcr_rows_free(&ref);
    } else {
        memcpy(dtrain, dsyn_real, (size_t)nq * sizeof *dtrain);
    }
    if (mho < nho) {
        if ((st = gen_ev_sample_rows(ctx, nho, mho, o->seed, GEN_EV_STREAM_DCR_HOLD, &hrows)))
            goto done;
        if (gen_ev_subtable(d, &d->hold, hrows, mho, &hsub)) goto oom;
        href_t = &hsub;
    }
    gen_ev_ranges(d, href_t, inv);
    if (gen_ev_dcr_prepare_ref(d, href_t, inv, &ref) ||
        gen_ev_dcr_prepare(d, d->syn.num, d->syn.cat, rows, nq, inv, &q))
        goto oom;
    gen_ev_dcr(&q, &ref, nc, nt, dhold);
    int64_t closer = 0;
    for (int64_t i = 0; i < nq; i++) closer += dtrain[i] < dhold[i];
    double p = (double)closer / (double)nq;
    r->dcr_closer_to_training = p;
    double s = 2.0 * (1.0 - p);
    r->score[GENESIS_EVAL_DCR_OVERFITTING] = s < 1 ? s : 1;
    r->dcr_median_holdout = gen_ev_median(dhold, nq);
    goto done;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory computing distances to the "
                       "training and holdout rows");
done:
    gen_ev_dcr_rows_free(&q), gen_ev_dcr_rows_free(&ref);
    gen_ev_subtable_free(d, &tsub), gen_ev_subtable_free(d, &hsub);
    free(trows), free(hrows), free(inv), free(dtrain), free(dhold);
    return st;
}

genesis_status gen_ev_privacy(genesis_ctx *ctx, const gen_ev_data *d, const gen_ev_opts *o,
                              genesis_eval_result *r) {
    int nt = o->threads, nc = d->ncols;
    GEN_TRY(gen_ev_exact_copies(ctx, d, nt, &r->exact_copies, &r->real_dup_rows));
    r->score[GENESIS_EVAL_EXACT_COPY_RATE] = (double)r->exact_copies / (double)d->syn.n;
    GEN_TRY(gen_ev_new_rows(ctx, d, nt, &r->new_rows));
    r->nrs_rows = d->syn.n;
    r->score[GENESIS_EVAL_NEW_ROW_SYNTHESIS] = (double)r->new_rows / (double)d->syn.n;

    /* DCR on (a subsample of) the synthetic rows */
    genesis_status st = GENESIS_OK;
    int64_t nq = d->syn.n, *rows = NULL;
    if (o->dcr_rows > 0 && nq > o->dcr_rows) {
        GEN_TRY(gen_ev_sample_rows(ctx, d->syn.n, o->dcr_rows, o->seed, GEN_EV_STREAM_DCR,
                                   &rows));
        nq = o->dcr_rows;
    }
    r->dcr_rows = nq;
    r->dcr_exact = rows == NULL;
    double *inv = gen_calloc((size_t)nc, sizeof *inv);
    double **rnum = gen_calloc((size_t)nc, sizeof *rnum);
    int32_t **rcat = gen_calloc((size_t)nc, sizeof *rcat);
    double *dsyn = malloc((size_t)nq * sizeof *dsyn), *drand = malloc((size_t)nq * sizeof *drand);
    gen_ev_dcr_rows ref, qs, qr;
    memset(&ref, 0, sizeof ref), memset(&qs, 0, sizeof qs), memset(&qr, 0, sizeof qr);
    if (!inv || !rnum || !rcat || !dsyn || !drand) goto oom;
    for (int c = 0; c < nc; c++) {
        if (d->continuous[c]) rnum[c] = malloc((size_t)nq * sizeof **rnum);
        else rcat[c] = malloc((size_t)nq * sizeof **rcat);
        if (!rnum[c] && !rcat[c]) goto oom;
    }
    if ((st = gen_ev_random_table(ctx, d, nq, o->seed, rnum, rcat))) goto done;
    gen_ev_ranges(d, &d->real, inv);
    if (gen_ev_dcr_prepare_ref(d, &d->real, inv, &ref) ||
        gen_ev_dcr_prepare(d, d->syn.num, d->syn.cat, rows, nq, inv, &qs) ||
        gen_ev_dcr_prepare(d, rnum, rcat, NULL, nq, inv, &qr))
        goto oom;
    gen_ev_dcr(&qs, &ref, nc, nt, dsyn);
    gen_ev_dcr(&qr, &ref, nc, nt, drand);
    if (d->has_holdout && (st = gen_ev_overfitting(ctx, d, o, rows, nq, dsyn, r))) goto done;
    r->dcr_median_syn = gen_ev_median(dsyn, nq);
    r->dcr_median_random = gen_ev_median(drand, nq);
    if (r->dcr_median_random != 0) {
        double s = r->dcr_median_syn / r->dcr_median_random;
        r->score[GENESIS_EVAL_DCR_BASELINE] = s < 1 ? s : 1;
    }
    goto done;
oom:
    st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory computing distances to the "
                       "closest record");
done:
    gen_ev_dcr_rows_free(&ref), gen_ev_dcr_rows_free(&qs), gen_ev_dcr_rows_free(&qr);
    for (int c = 0; c < nc; c++) {
        if (rnum) free(rnum[c]);
        if (rcat) free(rcat[c]);
    }
    free(rnum), free(rcat), free(inv), free(rows), free(dsyn), free(drand);
    return st;
}

genesis_status gen_ev_privacy_baseline(genesis_ctx *ctx, const gen_ev_data *d,
                                       const gen_ev_opts *o, genesis_eval_result *r) {
    if (!d->has_holdout || d->hold.n == 0) return GENESIS_OK;
    gen_ev_data view = *d;
    view.syn = d->hold;
    view.has_holdout = 0;
    memset(&view.hold, 0, sizeof view.hold);
    genesis_eval_result *b = calloc(1, sizeof *b);
    GEN_RETURN_IF(!b, ctx, GENESIS_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < sizeof b->score / sizeof b->score[0]; k++) b->score[k] = NAN;
    genesis_status st = gen_ev_privacy(ctx, &view, o, b);
    if (st == GENESIS_OK) {
        r->has_baseline = 1;
        r->base_exact_copies = b->exact_copies;
        r->base_exact_copy_rate = b->score[GENESIS_EVAL_EXACT_COPY_RATE];
        r->base_new_rows = b->new_rows;
        r->base_new_row_synthesis = b->score[GENESIS_EVAL_NEW_ROW_SYNTHESIS];
        r->base_dcr_rows = b->dcr_rows;
        r->base_dcr_median = b->dcr_median_syn;
        r->base_dcr_median_random = b->dcr_median_random;
        r->base_dcr_baseline = b->score[GENESIS_EVAL_DCR_BASELINE];
    }
    free(b);
    return st;
}
