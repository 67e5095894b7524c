/*
 * test_quantile.c — the quantile normalisation (src/transform/quantile.c): the normal distribution
 * function's inverse against published values and against erfc, the quantile count rule,
 * NumPy's linear percentiles on a hand-checked array, the forward map at the knots, between
 * them, on tied quantiles and beyond the ends, the inverse undoing the forward map, and the
 * mapped values of skewed data coming out standard normal.
 */
#include "quantile.h"
#include "test_util.h"

START_TEST(test_norm_ppf) {
    /* published values: Phi^-1(0.975) = 1.959963984540054, Phi^-1(0.841344746068543) = 1
     * (Phi(1) = 0.841344746068543), Phi^-1(1e-7) = -5.199337582192817 */
    ck_assert_double_eq_tol(gen_norm_ppf(0.975), 1.959963984540054, 1e-13);
    ck_assert_double_eq_tol(gen_norm_ppf(0.5), 0.0, 1e-15);
    ck_assert_double_eq_tol(gen_norm_ppf(0.841344746068543), 1.0, 1e-12);
    ck_assert_double_eq_tol(gen_norm_ppf(1e-7), -5.199337582192817, 1e-10);
    ck_assert(isinf(gen_norm_ppf(0.0)) && gen_norm_ppf(0.0) < 0);
    ck_assert(isinf(gen_norm_ppf(1.0)) && gen_norm_ppf(1.0) > 0);
    /* the inverse of erfc's distribution function: to double precision for z <= 0; above,
     * p = Phi(z) near 1 keeps only ~1e-16 / (1 - p) of the tail's digits */
    double worst = 0, worst_up = 0;
    for (int i = -600; i <= 600; i++) {
        double z = i / 100.0, e = fabs(gen_norm_ppf(gen_norm_cdf(z)) - z) / (1 + fabs(z));
        if (z <= 0) worst = fmax(worst, e);
        else worst_up = fmax(worst_up, e);
    }
    ck_assert_msg(worst < 1e-13, "ppf(cdf(z)) off by %.3g for z <= 0", worst);
    ck_assert_msg(worst_up < 1e-8, "ppf(cdf(z)) off by %.3g for z > 0", worst_up);
    /* symmetric */
    for (int i = 1; i < 100; i++) {
        double p = i / 200.0;
        ck_assert_double_eq_tol(gen_norm_ppf(p), -gen_norm_ppf(1 - p), 1e-12);
    }
}
END_TEST

START_TEST(test_count_and_fit) {
    ck_assert_int_eq(gen_quantile_count(10000), 333);
    ck_assert_int_eq(gen_quantile_count(100), 10);
    ck_assert_int_eq(gen_quantile_count(5), 5);
    ck_assert_int_eq(gen_quantile_count(2000000), GEN_QUANTILES_MAX);
    /* 1..10: positions j (n - 1) / (nq - 1) */
    double v[10], q[4];
    for (int i = 0; i < 10; i++) v[i] = i + 1;
    gen_quantile_fit(v, 10, 4, q);
    ck_assert(q[0] == 1 && q[1] == 4 && q[2] == 7 && q[3] == 10);
    gen_quantile_fit(v, 10, 3, q);
    ck_assert(q[0] == 1 && q[1] == 5.5 && q[2] == 10);
    /* two values, interpolated */
    double two[2] = {-1, 3};
    gen_quantile_fit(two, 2, 3, q);
    ck_assert(q[0] == -1 && q[1] == 1 && q[2] == 3);
}
END_TEST

START_TEST(test_forward_map) {
    double q[5] = {0, 1, 1, 1, 4}; /* references 0, .25, .5, .75, 1; three tied at 1 */
    /* inside a strictly increasing stretch: linear in the references */
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 0.5), gen_norm_ppf(0.125), 1e-12);
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 2.5), gen_norm_ppf(0.875), 1e-12);
    /* on the tie: the middle of the tied references */
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 1.0), 0.0, 1e-12);
    /* the ends and beyond: clipped to 1e-7 */
    double lo = gen_norm_ppf(1e-7);
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 0.0), lo, 1e-12);
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, -3.0), lo, 1e-12);
    /* (1 - 1e-7 is not exact in binary: the upper end agrees to 1e-9) */
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 4.0), -lo, 1e-9);
    ck_assert_double_eq_tol(gen_quantile_forward(q, 5, 1e9), -lo, 1e-9);
    /* the ends by exact comparison: a column spread over less than 1e-7 keeps its order
     * (scikit-learn's absolute 1e-7 threshold would send all of these to the top end) */
    double t[5] = {1 - 4e-9, 1 - 3e-9, 1 - 2e-9, 1 - 1e-9, 1};
    ck_assert_double_eq_tol(gen_quantile_forward(t, 5, 1 - 2e-9), 0.0, 1e-6);
    ck_assert_double_eq_tol(gen_quantile_forward(t, 5, 1 - 3.5e-9), gen_norm_ppf(0.125), 1e-6);
    ck_assert(gen_quantile_forward(t, 5, 1 - 1e-9) < 1.0);
    ck_assert_double_eq_tol(gen_quantile_forward(t, 5, 1.0), -lo, 1e-9);
    ck_assert_double_eq_tol(gen_quantile_forward(t, 5, 1 - 4e-9), lo, 1e-12);
    /* monotone */
    double prev = -INFINITY;
    for (int i = -100; i <= 500; i++) {
        double z = gen_quantile_forward(q, 5, i / 100.0);
        ck_assert_msg(z >= prev, "not monotone at %g", i / 100.0);
        prev = z;
    }
}
END_TEST

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_inverse_and_normality) {
    /* lognormal values: skewed, with a long right tail */
    int64_t n = 20000;
    double *x = malloc((size_t)n * sizeof *x), *s = malloc((size_t)n * sizeof *s);
    ck_assert(x && s);
    gen_rng g;
    gen_rng_init(&g, 3, 99);
    for (int64_t i = 0; i < n; i++) s[i] = x[i] = exp(1.5 * gen_rng_normal(&g));
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    int nq = gen_quantile_count(n);
    double *q = malloc((size_t)nq * sizeof *q);
    ck_assert(q);
    gen_quantile_fit(s, n, nq, q);
    ck_assert(q[0] == s[0] && q[nq - 1] == s[n - 1]);
    double sum = 0, sum2 = 0, worst = 0;
    int64_t below = 0;
    for (int64_t i = 0; i < n; i++) {
        double z = gen_quantile_forward(q, nq, x[i]);
        sum += z;
        sum2 += z * z;
        below += z < 1.0;
        /* the inverse undoes the map (both piecewise linear in the references) */
        double back = gen_quantile_inverse(q, nq, z);
        if (x[i] > s[0] && x[i] < s[n - 1])
            worst = fmax(worst, fabs(back - x[i]) / (1e-12 + fabs(x[i])));
    }
    double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
    fprintf(stderr, "quantile map of %lld lognormal values: z mean %.4f, sd %.4f, P(z < 1) %.4f, "
                    "inverse worst relative error %.2g\n",
            (long long)n, mean, sd, (double)below / n, worst);
    ck_assert_msg(fabs(mean) < 0.01, "mean of z %.4f", mean);
    ck_assert_msg(fabs(sd - 1) < 0.05, "sd of z %.4f", sd); /* the two ends sit at +-5.2 */
    ck_assert_msg(fabs((double)below / n - gen_norm_cdf(1.0)) < 0.005, "P(z < 1) = %.4f",
                  (double)below / n);
    ck_assert_msg(worst < 1e-9, "inverse(forward(x)) off by %.3g relative", worst);
    /* the inverse stays inside the quantiles, whatever z */
    for (int i = -100; i <= 100; i++) {
        double v = gen_quantile_inverse(q, nq, i / 10.0);
        ck_assert(v >= q[0] && v <= q[nq - 1]);
    }
    free(q);
    free(x);
    free(s);
}
END_TEST

static Suite *quantile_suite(void) {
    Suite *s = suite_create("quantile");
    TCase *tc = tcase_create("map");
    tcase_add_test(tc, test_norm_ppf);
    tcase_add_test(tc, test_count_and_fit);
    tcase_add_test(tc, test_forward_map);
    tcase_add_test(tc, test_inverse_and_normality);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(quantile_suite()); }
