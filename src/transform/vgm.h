/*
 * vgm.h — the variational Bayesian Gaussian mixture for one continuous column, exactly as
 * scikit-learn's BayesianGaussianMixture runs with the settings the reference transformer
 * uses (docs/algorithms.md §T2.3): Dirichlet-process weight prior 0.001, mean precision
 * prior 1, dof prior 1, covariance prior = sample variance, reg 1e-6, tol 1e-3, 100
 * iterations, k-means++ initialisation (greedy, 2 + floor(ln K) local trials) followed by
 * Lloyd iterations, all in float64. The k-means seeding draws from gen_rng (not NumPy's
 * MT19937), so fits match scikit-learn in distribution and, given the same k-means labels,
 * in every number (tests/test_vgm.c checks both against committed sklearn fixtures).
 */
#ifndef GEN_VGM_H
#define GEN_VGM_H

#include "rng.h"
#include "internal.h"

typedef struct gen_vgm {
    int K;                    /* components fitted (= min(n, max_components)) */
    double weight[16];        /* weights_ (sum 1) */
    double mean[16];          /* means_ */
    double var[16];           /* covariances_ (sigma^2) */
    /* variational parameters for predict_proba */
    double a[16], b[16];      /* stick-breaking Beta parameters */
    double beta[16], nu[16];  /* mean precision, degrees of freedom */
    double prec_chol[16];     /* 1/sqrt(var) */
    double log_const[16];     /* per-component constant of the E-step log-density:
                                 E[log pi_k] + log prec - log(nu)/2 - log(2 pi)/2
                                 + (log 2 + psi(nu/2) - 1/beta)/2 (gen_vgm_refresh) */
    int n_iter;               /* EM iterations run */
    int converged;
    double lower_bound;
} gen_vgm;

/* k-means labels for x[0..n) with K clusters (sklearn's lloyd with greedy k-means++ init,
 * data centred first). labels: [n]. Returns 0, or -1 on allocation failure or bad arguments
 * (K outside 1..16, K > n). */
int gen_kmeans_1d(const double *x, int64_t n, int K, gen_rng *rng, int32_t *labels);

/* Fits the mixture from given initial hard labels (exactly sklearn's _initialize + EM loop).
 * Returns 0, or -1 on allocation failure / degenerate input (n < 2, a label outside [0, K),
 * non-finite values). */
int gen_vgm_fit_from_labels(gen_vgm *g, const double *x, int64_t n, int K, const int32_t *labels,
                            int max_iter, double tol);

/* Full fit: K = min(n, max_components, 16), k-means init from rng, then EM (100 iterations,
 * tol 1e-3). Single-threaded; thread-safe (no shared state). */
int gen_vgm_fit(gen_vgm *g, const double *x, int64_t n, int max_components, gen_rng *rng);

/* Recomputes the derived fields (weight, prec_chol, log_const) from K, a, b, beta, nu, mean
 * and var, e.g. after loading those from a model file. The fits call it themselves. */
void gen_vgm_refresh(gen_vgm *g);

/* Digamma psi(x) for x > 0 (recurrence to x >= 6, then the asymptotic series; |error| <
 * 1e-12). */
double gen_digamma(double x);

/* Posterior responsibilities of one value over the K components (predict_proba). */
void gen_vgm_predict_proba(const gen_vgm *g, double x, double *proba);

#endif /* GEN_VGM_H */
