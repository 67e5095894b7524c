/*
 * quantile.h — the quantile normalisation of one continuous column: values are mapped
 * through their empirical distribution function onto a standard normal, z = Phi^-1(F(x)),
 * and back, x = F^-1(Phi(z)). It is what TabDDPM (Kotelnikov et al., ICML 2023) feeds its
 * Gaussian diffusion: scikit-learn's QuantileTransformer(output_distribution="normal",
 * n_quantiles = max(min(n / 30, 1000), 10), subsample = 1e9). The map follows that
 * transformer's definition (docs/ddpm.md §1a):
 *   - the quantiles are NumPy's linear percentiles of the values at references
 *     r_j = j / (N - 1), j = 0..N-1, made non-decreasing;
 *   - forward: F(x) is the linear interpolation of (q_j, r_j); where x equals a run of tied
 *     quantiles, the middle of their references (the mean of interpolating upwards and
 *     downwards); at or below q_0 0, at or above q_{N-1} 1 (exact comparisons, where
 *     scikit-learn takes anything within an absolute 1e-7 of an end as the end); F is
 *     clipped to [1e-7, 1 - 1e-7] before Phi^-1, so |z| <= 5.2;
 *   - inverse: x = the linear interpolation of (r_j, q_j) at Phi(z).
 * Phi^-1 is Abramowitz and Stegun 26.2.23 (|error| < 4.5e-4) refined by Halley steps on
 * erfc, to double precision.
 */
#ifndef GEN_QUANTILE_H
#define GEN_QUANTILE_H

#include <stdint.h>

#define GEN_QUANTILES_MAX 1000

/* The number of quantiles for n values: max(min(n / 30, 1000), 10), at most n. */
int gen_quantile_count(int64_t n);

/* Fills q[0..nq) from sorted[0..n) (ascending, finite, n >= 1): NumPy's linear percentiles
 * at j / (nq - 1), made non-decreasing. nq >= 2. */
void gen_quantile_fit(const double *sorted, int64_t n, int nq, double *q);

/* z = Phi^-1(F(x)) for the map q[0..nq), |z| <= 5.2. */
double gen_quantile_forward(const double *q, int nq, double x);

/* x = F^-1(Phi(z)), inside [q_0, q_{nq-1}]. */
double gen_quantile_inverse(const double *q, int nq, double z);

/* The standard normal distribution function and its inverse (p in (0, 1)). */
double gen_norm_cdf(double z);
double gen_norm_ppf(double p);

#endif
