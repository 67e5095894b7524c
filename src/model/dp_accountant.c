/*
 * dp_accountant.c — RDP accounting of the Poisson-subsampled Gaussian mechanism and its
 * conversion to (epsilon, delta) (dp_accountant.h; derivation: docs/privacy.md).
 *
 * With mu0 = N(0, s^2), mu1 = N(1, s^2) and the mixture (1 - q) mu0 + q mu1, the RDP of
 * order a is log(A_a) / (a - 1) with A_a = E_{z ~ mu0}[((1 - q) + q mu1(z) / mu0(z))^a]
 * (Mironov, Talwar, Zhang 2019, Thm 4 and §3.2-3.3):
 *   integer a:  A_a = sum_k C(a, k) (1 - q)^(a - k) q^k exp((k^2 - k) / (2 s^2));
 *   fractional: split at z0 = 1/2 + s^2 log(1/q - 1), where (1 - q) mu0 = q mu1, and expand
 *     the binomial on each side in its convergent direction:
 *     A_a = sum_k C(a, k) (1 - q)^(a - k) q^k e^((k^2 - k)/(2 s^2)) erfc((k - z0)/(s sqrt2))/2
 *         + sum_k C(a, k) q^(a - k) (1 - q)^k e^((j^2 - j)/(2 s^2)) erfc((z0 - j)/(s sqrt2))/2
 *     with j = a - k (C(a, k) changes sign past k = a; terms summed until negligible).
 * Everything is summed in log space with signs. All in double.
 */
#include <math.h>
#include <stddef.h>

#include "dp_accountant.h"

/* The orders of dp-accounting's RdpAccountant (DEFAULT_RDP_ORDERS in dp_accounting/rdp/
 * rdp_privacy_accountant.py, version 0.6.0): 1.1 ... 10.9 by 0.1, 11 ... 63, 128, 256, 512,
 * 1024; the tests compare against it. */
#define GEN_DP_NORDERS (99 + 53 + 4)

int gen_dp_orders(const double **orders) {
    static const double extra[4] = {128, 256, 512, 1024};
    static double ord[GEN_DP_NORDERS];
    static int built; /* the same values every time: a race writes equal values */
    if (!built) {
        int n = 0;
        for (int i = 1; i < 100; i++) ord[n++] = 1.0 + i / 10.0;
        for (int a = 11; a < 64; a++) ord[n++] = a;
        for (int i = 0; i < 4; i++) ord[n++] = extra[i];
        built = 1;
    }
    *orders = ord;
    return GEN_DP_NORDERS;
}

/* log(exp(a) + s exp(b)) for s = +1 or -1 (a >= b when s = -1); -INFINITY is log 0 */
static double log_add(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + log1p(exp(lo - hi));
}

static double log_sub(double a, double b) {
    if (b == -INFINITY) return a;
    if (b >= a) return -INFINITY; /* rounding at the end of a converged series */
    return a + log1p(-exp(b - a));
}

/* log(erfc(x)), also where erfc underflows (asymptotic series, Abramowitz-Stegun 7.1.23) */
static double log_erfc(double x) {
    if (x < 20.0) return log(erfc(x));
    double x2 = x * x;
    return -x2 - log(x) - 0.5 * log(M_PI) + log1p(-0.5 / x2 + 0.75 / (x2 * x2));
}

static double log_a_int(double q, double s, int a) {
    double la = -INFINITY, lq = log(q), l1q = log1p(-q);
    for (int k = 0; k <= a; k++) {
        double lc = lgamma(a + 1.0) - lgamma(k + 1.0) - lgamma(a - k + 1.0);
        double t = lc + k * lq + (a - k) * l1q + ((double)k * k - k) / (2 * s * s);
        la = log_add(la, t);
    }
    return la;
}

static double log_a_frac(double q, double s, double a) {
    double l0p = -INFINITY, l0n = -INFINITY, l1p = -INFINITY, l1n = -INFINITY;
    double lq = log(q), l1q = log1p(-q);
    double z0 = s * s * log(1.0 / q - 1.0) + 0.5, r2s = sqrt(2.0) * s;
    double lc = 0.0; /* log |C(a, k)| */
    int sign = 1;    /* sign of C(a, k) */
    for (int k = 0; k < 100000; k++) {
        double j = a - k;
        double t0 = lc + k * lq + j * l1q + ((double)k * k - k) / (2 * s * s) +
                    log(0.5) + log_erfc((k - z0) / r2s);
        double t1 = lc + j * lq + k * l1q + (j * j - j) / (2 * s * s) +
                    log(0.5) + log_erfc((z0 - j) / r2s);
        if (sign > 0) { l0p = log_add(l0p, t0); l1p = log_add(l1p, t1); }
        else { l0n = log_add(l0n, t0); l1n = log_add(l1n, t1); }
        if (k > a && (t0 > t1 ? t0 : t1) < -40.0) break;
        /* C(a, k + 1) = C(a, k) (a - k) / (k + 1) */
        double f = (a - k) / (k + 1.0);
        if (f < 0) sign = -sign;
        lc += log(fabs(f));
    }
    return log_add(log_sub(l0p, l0n), log_sub(l1p, l1n));
}

double gen_dp_rdp(double q, double sigma, double a) {
    if (q <= 0.0) return 0.0;
    if (q >= 1.0) return a / (2.0 * sigma * sigma); /* the Gaussian mechanism (Mironov, Prop. 7) */
    double la = (a == floor(a)) ? log_a_int(q, sigma, (int)a) : log_a_frac(q, sigma, a);
    return la / (a - 1.0);
}

double gen_dp_epsilon(const gen_dp_mech *m, int n, double delta, double *order) {
    const double *ord;
    int no = gen_dp_orders(&ord);
    double best = INFINITY, best_a = 0;
    for (int i = 0; i < no; i++) {
        double a = ord[i], r = 0;
        for (int j = 0; j < n; j++)
            if (m[j].count > 0) r += (double)m[j].count * gen_dp_rdp(m[j].q, m[j].sigma, a);
        /* the KL bound delta <= sqrt(1 - e^-r) already gives epsilon 0 (dp-accounting's
         * compute_epsilon does the same) */
        double e = delta * delta + expm1(-r) > 0 ? 0.0
                                                  : r + log1p(-1.0 / a) - (log(delta) + log(a)) / (a - 1.0);
        if (e < best) { best = e; best_a = a; }
    }
    if (order) *order = best_a;
    return best < 0 ? 0 : best;
}

double gen_dp_sigma_for(gen_dp_mech *m, int n, int which, double delta, double eps) {
    double hi = 1e4, lo = 1e-2;
    m[which].sigma = hi;
    if (gen_dp_epsilon(m, n, delta, NULL) > eps) return 0.0;
    m[which].sigma = lo;
    if (gen_dp_epsilon(m, n, delta, NULL) <= eps) return lo;
    while (hi / lo > 1.0005) { /* epsilon falls as sigma grows: bisect on a log scale */
        double mid = sqrt(hi * lo);
        m[which].sigma = mid;
        if (gen_dp_epsilon(m, n, delta, NULL) <= eps) hi = mid;
        else lo = mid;
    }
    m[which].sigma = hi;
    return hi;
}
