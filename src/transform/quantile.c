/*
 * quantile.c — the quantile normalisation of a continuous column (quantile.h): scikit-learn
 * QuantileTransformer's normal-output map as TabDDPM uses it, and the normal distribution
 * function's inverse it needs. Definitions and sources: docs/ddpm.md §1a.
 */
#include <math.h>

#include "quantile.h"

#define QT_BOUND 1e-7 /* scikit-learn's BOUNDS_THRESHOLD: how close F may come to 0 and 1 */

int gen_quantile_count(int64_t n) {
    int64_t k = n / 30;
    if (k > GEN_QUANTILES_MAX) k = GEN_QUANTILES_MAX;
    if (k < 10) k = 10;
    if (k > n) k = n;
    return (int)k;
}

void gen_quantile_fit(const double *sorted, int64_t n, int nq, double *q) {
    for (int j = 0; j < nq; j++) {
        /* NumPy's "linear" percentile: position r (n - 1), interpolated */
        double h = (double)j / (double)(nq - 1) * (double)(n - 1);
        int64_t lo = (int64_t)floor(h);
        if (lo >= n - 1) {
            q[j] = sorted[n - 1];
        } else {
            double f = h - (double)lo;
            q[j] = sorted[lo] + f * (sorted[lo + 1] - sorted[lo]);
        }
        if (j > 0 && q[j] < q[j - 1]) q[j] = q[j - 1]; /* rounding may not reverse the order */
    }
}

double gen_norm_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

double gen_norm_ppf(double p) {
    if (!(p > 0.0)) return -INFINITY;
    if (!(p < 1.0)) return INFINITY;
    /* Abramowitz and Stegun 26.2.23 for the tail probability t = min(p, 1 - p) */
    double t = p < 0.5 ? p : 1.0 - p;
    double s = sqrt(-2.0 * log(t));
    double z = s - (2.515517 + s * (0.802853 + s * 0.010328)) /
                       (1.0 + s * (1.432788 + s * (0.189269 + s * 0.001308)));
    if (p < 0.5) z = -z;
    /* Halley's method on Phi(z) - p: cubic convergence from 4.5e-4 */
    for (int it = 0; it < 3; it++) {
        double e = gen_norm_cdf(z) - p;
        double u = e * sqrt(2.0 * M_PI) * exp(0.5 * z * z);
        z -= u / (1.0 + 0.5 * z * u);
    }
    return z;
}

/* the reference r_j = j / (nq - 1) */
static double ref(int j, int nq) { return (double)j / (double)(nq - 1); }

double gen_quantile_forward(const double *q, int nq, double x) {
    double p;
    /* The ends by exact comparison. scikit-learn also sends x within an absolute 1e-7 of an
     * end to that end, which depends on the column's units: a column whose values are
     * 1 - k 1e-9 would all map to z = 5.2 (docs/ddpm.md §1a). */
    if (x <= q[0]) {
        p = 0.0;
    } else if (x >= q[nq - 1]) {
        p = 1.0;
    } else {
        /* a: the first quantile >= x; b: the last quantile <= x */
        int lo = 0, hi = nq - 1;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (q[mid] >= x) hi = mid;
            else lo = mid + 1;
        }
        int a = lo;
        lo = 0;
        hi = nq - 1;
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (q[mid] <= x) lo = mid;
            else hi = mid - 1;
        }
        int b = lo;
        if (a <= b) { /* x equals q_a .. q_b */
            p = 0.5 * (ref(a, nq) + ref(b, nq));
        } else { /* q_b < x < q_a, a = b + 1 */
            p = ref(b, nq) + (x - q[b]) / (q[a] - q[b]) * (ref(a, nq) - ref(b, nq));
        }
    }
    if (p < QT_BOUND) p = QT_BOUND;
    if (p > 1.0 - QT_BOUND) p = 1.0 - QT_BOUND;
    return gen_norm_ppf(p);
}

double gen_quantile_inverse(const double *q, int nq, double z) {
    double p = gen_norm_cdf(z);
    double h = p * (double)(nq - 1);
    if (!(h > 0.0)) return q[0];
    if (h >= (double)(nq - 1)) return q[nq - 1];
    int lo = (int)floor(h);
    double f = h - (double)lo;
    return q[lo] + f * (q[lo + 1] - q[lo]);
}
