/*
 * test_vgm.c — the Bayesian Gaussian mixture (src/transform/vgm.c) against scikit-learn.
 *
 * tests/fixtures/vgm_fixture.txt (written by tests/fixtures/make_vgm_fixture.py with
 * scikit-learn's BayesianGaussianMixture, settings of docs/algorithms.md §T2.3) holds four
 * columns with the k-means labels sklearn initialised from and the fitted weights_, means_,
 * covariances_, n_iter_, lower_bound_ and predict_proba at 20 points. Starting from the same
 * labels, gen_vgm_fit_from_labels must agree to 1e-6 relative and run the same number of
 * iterations. The full fit (our own k-means from gen_rng) is checked for what it must
 * recover on a bimodal column. Also: digamma against SciPy's values, k-means on separated
 * clusters and its partition quality against sklearn's labels, determinism, and the time of
 * a 32k-row, 10-component fit.
 */
#include <time.h>

#include "test_util.h"
#include "vgm.h"

/* ---- fixture reader ------------------------------------------------------------------ */

typedef struct {
    char name[64];
    int64_t n;
    int K, n_iter, converged, nq;
    double *x;
    int32_t *labels;
    double weights[16], means[16], cov[16], lower_bound;
    double *queries, *proba;
} fx_column;

static int fx_tok(FILE *f, char *buf, size_t cap) {
    int c;
    do {
        c = fgetc(f);
        if (c == '#')
            while (c != '\n' && c != EOF) c = fgetc(f);
    } while (c == ' ' || c == '\n' || c == '\t' || c == '\r');
    if (c == EOF) return 0;
    size_t len = 0;
    while (c != EOF && c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        if (len + 1 < cap) buf[len++] = (char)c;
        c = fgetc(f);
    }
    buf[len] = 0;
    return 1;
}

static void fx_expect(FILE *f, const char *key) {
    char tok[128];
    ck_assert_msg(fx_tok(f, tok, sizeof tok), "fixture ended before '%s'", key);
    ck_assert_msg(strcmp(tok, key) == 0, "fixture: expected '%s', got '%s'", key, tok);
}

static double fx_num(FILE *f) {
    char tok[128], *end;
    ck_assert(fx_tok(f, tok, sizeof tok));
    double v = strtod(tok, &end);
    ck_assert_msg(*end == 0, "fixture: bad number '%s'", tok);
    return v;
}

static void fx_nums(FILE *f, const char *key, double *out, int64_t n) {
    fx_expect(f, key);
    for (int64_t i = 0; i < n; i++) out[i] = fx_num(f);
}

/* Reads column `which` (0-based) of the fixture. */
static void fx_load(int which, fx_column *c) {
    const char *path = tu_path("tests/fixtures/vgm_fixture.txt");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (set GEN_SOURCE_DIR)", path);
    fx_expect(f, "ncols");
    int ncols = (int)fx_num(f);
    ck_assert_int_gt(ncols, which);
    memset(c, 0, sizeof *c);
    for (int col = 0; col <= which; col++) {
        free(c->x); free(c->labels); free(c->queries); free(c->proba);
        fx_expect(f, "column");
        ck_assert(fx_tok(f, c->name, sizeof c->name));
        fx_expect(f, "n");
        c->n = (int64_t)fx_num(f);
        fx_expect(f, "K");
        c->K = (int)fx_num(f);
        ck_assert(c->n >= 2 && c->K >= 1 && c->K <= 16);
        c->x = malloc((size_t)c->n * sizeof *c->x);
        c->labels = malloc((size_t)c->n * sizeof *c->labels);
        double *lab = malloc((size_t)c->n * sizeof *lab);
        ck_assert(c->x && c->labels && lab);
        fx_nums(f, "x", c->x, c->n);
        fx_nums(f, "labels", lab, c->n);
        for (int64_t i = 0; i < c->n; i++) c->labels[i] = (int32_t)lab[i];
        free(lab);
        fx_nums(f, "weights", c->weights, c->K);
        fx_nums(f, "means", c->means, c->K);
        fx_nums(f, "covariances", c->cov, c->K);
        fx_expect(f, "n_iter");
        c->n_iter = (int)fx_num(f);
        fx_expect(f, "converged");
        c->converged = (int)fx_num(f);
        fx_expect(f, "lower_bound");
        c->lower_bound = fx_num(f);
        fx_expect(f, "nq");
        c->nq = (int)fx_num(f);
        c->queries = malloc((size_t)c->nq * sizeof *c->queries);
        c->proba = malloc((size_t)c->nq * (size_t)c->K * sizeof *c->proba);
        ck_assert(c->queries && c->proba);
        fx_nums(f, "queries", c->queries, c->nq);
        fx_nums(f, "proba", c->proba, (int64_t)c->nq * c->K);
    }
    fclose(f);
}

static void fx_free(fx_column *c) {
    free(c->x); free(c->labels); free(c->queries); free(c->proba);
}

/* ---- digamma ------------------------------------------------------------------------- */

START_TEST(test_digamma) {
    /* scipy.special.digamma */
    static const double xs[] = {1.0, 0.5, 0.001, 1e-06, 2.5, 5.999, 6.0, 10.0, 123.456, 1e6,
                                30000.5};
    static const double ref[] = {-0.5772156649015329, -1.9635100260214235, -1000.5755719318103,
                                 -1000000.57721402,    0.7031566406452432,  1.7059363290792255,
                                 1.7061176684318005,   2.251752589066721,   4.811829323828985,
                                 13.81551005796419,    10.30895266069059};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double got = gen_digamma(xs[i]);
        ck_assert_msg(fabs(got - ref[i]) <= 1e-12 * (1.0 + fabs(ref[i])),
                      "digamma(%g) = %.17g, want %.17g", xs[i], got, ref[i]);
    }
}
END_TEST

/* ---- sklearn parity from the same labels --------------------------------------------- */

START_TEST(test_fixture_parity) {
    fx_column c;
    fx_load(_i, &c);
    gen_vgm g;
    ck_assert_int_eq(gen_vgm_fit_from_labels(&g, c.x, c.n, c.K, c.labels, 100, 1e-3), 0);
    ck_assert_int_eq(g.K, c.K);
    ck_assert_msg(g.n_iter == c.n_iter, "%s: n_iter %d, sklearn %d", c.name, g.n_iter, c.n_iter);
    ck_assert_int_eq(g.converged, c.converged);
    tu_assert_allclose(g.weight, c.weights, c.K, 0.0, 1e-6);
    tu_assert_allclose(g.mean, c.means, c.K, 0.0, 1e-6);
    tu_assert_allclose(g.var, c.cov, c.K, 0.0, 1e-6);
    ck_assert_msg(fabs(g.lower_bound - c.lower_bound) <= 1e-6 * fabs(c.lower_bound),
                  "%s: lower bound %.12g, sklearn %.12g", c.name, g.lower_bound, c.lower_bound);
    double p[16];
    for (int q = 0; q < c.nq; q++) {
        gen_vgm_predict_proba(&g, c.queries[q], p);
        /* relative 1e-6; probabilities below 1e-300 are at the edge of the double range */
        tu_assert_allclose(p, c.proba + (size_t)q * c.K, c.K, 1e-300, 1e-6);
    }
    fx_free(&c);
}
END_TEST

/* ---- end-to-end fit with our own k-means --------------------------------------------- */

START_TEST(test_fit_bimodal) {
    fx_column c;
    fx_load(0, &c); /* 60% N(10, 2), 40% N(50, 5) */
    ck_assert_str_eq(c.name, "bimodal");
    /* the two populations' sample means and shares, split at 30 */
    double s[2] = {0, 0}, cnt[2] = {0, 0};
    for (int64_t i = 0; i < c.n; i++) {
        int h = c.x[i] > 30.0;
        s[h] += c.x[i];
        cnt[h] += 1;
    }
    for (uint64_t seed = 1; seed <= 3; seed++) {
        gen_rng r;
        gen_rng_init(&r, seed, GEN_STREAM_TRANSFORM);
        gen_vgm g;
        ck_assert_int_eq(gen_vgm_fit(&g, c.x, c.n, 10, &r), 0);
        ck_assert_int_eq(g.K, 10);
        double wsum = 0.0, w[2] = {0, 0}, wm[2] = {0, 0};
        int modes = 0;
        for (int k = 0; k < g.K; k++) {
            wsum += g.weight[k];
            if (g.weight[k] <= 0.005) continue;
            modes++;
            int h = g.mean[k] > 30.0;
            w[h] += g.weight[k];
            wm[h] += g.weight[k] * g.mean[k];
        }
        ck_assert(fabs(wsum - 1.0) < 1e-12);
        ck_assert_msg(modes >= 2 && modes <= 8, "seed %d: %d modes above 0.005", (int)seed,
                      modes);
        for (int h = 0; h < 2; h++) {
            double want_w = cnt[h] / (double)c.n, want_m = s[h] / cnt[h];
            double got_m = wm[h] / w[h];
            ck_assert_msg(fabs(w[h] - want_w) <= 0.02, "mode %d weight %.4f, want %.4f", h, w[h],
                          want_w);
            ck_assert_msg(fabs(got_m - want_m) <= 0.02 * fabs(want_m), "mode %d mean %.4f, want %.4f",
                          h, got_m, want_m);
        }
    }
    fx_free(&c);
}
END_TEST

/* ---- k-means ------------------------------------------------------------------------- */

START_TEST(test_kmeans_separated) {
    /* three tight, well separated groups: every seed must find exactly them */
    int64_t n = 3000;
    double *x = malloc((size_t)n * sizeof *x);
    int32_t *lab = malloc((size_t)n * sizeof *lab), *lab2 = malloc((size_t)n * sizeof *lab2);
    ck_assert(x && lab && lab2);
    gen_rng r;
    gen_rng_init(&r, 7, 99);
    for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 3) * 100.0 + gen_rng_normal(&r);
    for (uint64_t seed = 0; seed < 5; seed++) {
        gen_rng_init(&r, seed, 1);
        ck_assert_int_eq(gen_kmeans_1d(x, n, 3, &r, lab), 0);
        for (int64_t i = 3; i < n; i++) ck_assert_int_eq(lab[i], lab[i % 3]);
        ck_assert(lab[0] != lab[1] && lab[1] != lab[2] && lab[0] != lab[2]);
        gen_rng_init(&r, seed, 1);
        ck_assert_int_eq(gen_kmeans_1d(x, n, 3, &r, lab2), 0);
        ck_assert(memcmp(lab, lab2, (size_t)n * sizeof *lab) == 0);
    }
    free(x); free(lab); free(lab2);
}
END_TEST

static double km_inertia(const double *x, int64_t n, const int32_t *lab) {
    double s[16] = {0}, c[16] = {0}, in = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s[lab[i]] += x[i];
        c[lab[i]] += 1.0;
    }
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - s[lab[i]] / c[lab[i]];
        in += d * d;
    }
    return in;
}

START_TEST(test_kmeans_vs_sklearn) {
    /* our seeding draws other random numbers than sklearn's, so labels differ; the quality
     * of the partition must not: mean inertia over 10 seeds within 20% of sklearn's */
    fx_column c;
    fx_load(_i, &c);
    int32_t *lab = malloc((size_t)c.n * sizeof *lab);
    ck_assert(lab);
    double mean = 0.0;
    for (uint64_t seed = 0; seed < 10; seed++) {
        gen_rng r;
        gen_rng_init(&r, seed, GEN_STREAM_TRANSFORM);
        ck_assert_int_eq(gen_kmeans_1d(c.x, c.n, c.K, &r, lab), 0);
        int used[16] = {0};
        for (int64_t i = 0; i < c.n; i++) used[lab[i]] = 1;
        for (int k = 0; k < c.K; k++) ck_assert_msg(used[k], "%s: cluster %d empty", c.name, k);
        mean += km_inertia(c.x, c.n, lab) / 10.0;
    }
    double ref = km_inertia(c.x, c.n, c.labels);
    ck_assert_msg(mean <= 1.2 * ref, "%s: mean inertia %g, sklearn %g", c.name, mean, ref);
    free(lab);
    fx_free(&c);
}
END_TEST

START_TEST(test_kmeans_edge) {
    /* K = n, duplicates, constant data: labels stay in range, no crash */
    double x[6] = {1, 1, 1, 2, 2, 9};
    int32_t lab[6];
    gen_rng r;
    gen_rng_init(&r, 3, 1);
    ck_assert_int_eq(gen_kmeans_1d(x, 6, 6, &r, lab), 0);
    for (int i = 0; i < 6; i++) ck_assert(lab[i] >= 0 && lab[i] < 6);
    double cst[5] = {4, 4, 4, 4, 4};
    ck_assert_int_eq(gen_kmeans_1d(cst, 5, 3, &r, lab), 0);
    for (int i = 0; i < 5; i++) ck_assert(lab[i] >= 0 && lab[i] < 3);
    ck_assert_int_eq(gen_kmeans_1d(x, 6, 7, &r, lab), -1);
    /* a constant column still fits (reg_covar keeps the variances positive) */
    gen_vgm g;
    ck_assert_int_eq(gen_vgm_fit(&g, cst, 5, 10, &r), 0);
    ck_assert_int_eq(g.K, 5);
    for (int k = 0; k < g.K; k++) ck_assert(isfinite(g.mean[k]) && g.var[k] > 0);
    ck_assert_int_eq(gen_vgm_fit(&g, x, 1, 10, &r), -1);
    /* two rows */
    ck_assert_int_eq(gen_vgm_fit(&g, x + 4, 2, 10, &r), 0);
    ck_assert_int_eq(g.K, 2);
}
END_TEST

/* ---- determinism and time ------------------------------------------------------------ */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

START_TEST(test_fit_32k_time) {
    int64_t n = 32768;
    double *x = malloc((size_t)n * sizeof *x);
    ck_assert(x);
    gen_rng r;
    gen_rng_init(&r, 11, 99);
    for (int64_t i = 0; i < n; i++) {
        double u = gen_rng_uniform(&r);
        x[i] = u < 0.5 ? 38 + 13 * gen_rng_normal(&r)
               : u < 0.8 ? 120 + 8 * gen_rng_normal(&r)
                         : exp(3 + gen_rng_normal(&r));
    }
    gen_vgm g1, g2;
    gen_rng_init(&r, 5, GEN_STREAM_TRANSFORM);
    double t0 = now_s();
    ck_assert_int_eq(gen_vgm_fit(&g1, x, n, 10, &r), 0);
    double t1 = now_s();
    gen_rng_init(&r, 5, GEN_STREAM_TRANSFORM);
    ck_assert_int_eq(gen_vgm_fit(&g2, x, n, 10, &r), 0);
    ck_assert(memcmp(&g1, &g2, sizeof g1) == 0); /* same seed -> same bits */
    printf("vgm: 32768 rows, 10 components, %d iterations: %.3f s\n", g1.n_iter, t1 - t0);
    ck_assert_int_eq(g1.K, 10);
    free(x);
}
END_TEST

static Suite *vgm_suite(void) {
    Suite *s = suite_create("vgm");
    TCase *tc = tcase_create("special");
    tcase_add_test(tc, test_digamma);
    suite_add_tcase(s, tc);
    tc = tcase_create("sklearn");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_fixture_parity, 0, 4);
    tcase_add_test(tc, test_fit_bimodal);
    suite_add_tcase(s, tc);
    tc = tcase_create("kmeans");
    tcase_add_test(tc, test_kmeans_separated);
    tcase_add_loop_test(tc, test_kmeans_vs_sklearn, 0, 4);
    tcase_add_test(tc, test_kmeans_edge);
    suite_add_tcase(s, tc);
    tc = tcase_create("perf");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fit_32k_time);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(vgm_suite()); }
