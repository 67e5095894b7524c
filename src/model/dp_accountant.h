/*
 * dp_accountant.h — the privacy accountant of differentially private training
 * (dp_accountant.c; derivation: docs/privacy.md, "The accountant").
 *
 * Rényi differential privacy (Mironov, "Rényi Differential Privacy", CSF 2017) of the
 * Poisson-subsampled Gaussian mechanism (Mironov, Talwar, Zhang, "Rényi Differential Privacy
 * of the Sampled Gaussian Mechanism", 2019: integer orders §3.2, fractional orders §3.3),
 * composed over steps and mechanisms by adding RDP order by order, and converted to
 * (epsilon, delta) with the conversion of Canonne, Kamath, Steinke ("The Discrete Gaussian
 * for Differential Privacy", NeurIPS 2020, Prop. 12; also Balle et al., AISTATS 2020, Thm 21):
 *   epsilon = min over orders a of  rdp(a) + log((a - 1) / a) - (log delta + log a) / (a - 1).
 * Neighbouring tables differ by adding or removing one row.
 */
#ifndef GEN_DP_ACCOUNTANT_H
#define GEN_DP_ACCOUNTANT_H

#include <stdint.h>

/* One mechanism run `count` times: each run includes every row independently with
 * probability q (q = 1: every row) and adds Gaussian noise of standard deviation sigma times
 * the L2 sensitivity (sigma: the noise multiplier). */
typedef struct gen_dp_mech {
    double q, sigma;
    int64_t count;
} gen_dp_mech;

/* The orders the accountant evaluates (the grid of dp-accounting's RdpAccountant). */
int gen_dp_orders(const double **orders);
/* RDP at order a > 1 of one run of the subsampled Gaussian (q in [0, 1], sigma > 0). */
double gen_dp_rdp(double q, double sigma, double a);
/* epsilon at `delta` of the composition of n mechanisms; *order (may be NULL) gets the
 * order that attains it. */
double gen_dp_epsilon(const gen_dp_mech *m, int n, double delta, double *order);
/* The smallest noise multiplier (within 0.1%) that gives mechanism `which` of m[0..n) (its
 * sigma is what is searched) an epsilon at most `eps`; 0 when even sigma = 1e4 does not
 * reach it (epsilon too small for the order grid, or the other mechanisms spend it all). */
double gen_dp_sigma_for(gen_dp_mech *m, int n, int which, double delta, double eps);

/* The share of epsilon planned for the transformer's statistics, and of delta for the
 * threshold that releases category names (docs/privacy.md, "The budget"). */
#define GEN_DP_STATS_SHARE 0.1
#define GEN_DP_THRESHOLD_DELTA_SHARE 0.1

/* What a DP fit planned and spent (the plan: dp.c; kept by the model and its file); zero
 * when the model was not trained under DP. */
typedef struct gen_dp_info {
    int on;
    double epsilon;        /* the accountant's epsilon of the whole fit at delta (<= target) */
    double target;         /* the epsilon asked for */
    double delta;
    double sigma;          /* DP-SGD's noise multiplier (noise sd = sigma * clip) */
    double clip;           /* per-example gradient norm bound C */
    double q;              /* Poisson sampling rate (expected batch / rows) */
    int64_t steps;         /* optimiser steps */
    double stats_sigma;    /* noise multiplier of the histograms (sd = stats_sigma * sqrt(cols)) */
    double threshold;      /* noisy count a histogram cell needs to be released */
    double stats_epsilon;  /* epsilon of the histograms alone at delta (their share) */
} gen_dp_info;

#endif /* GEN_DP_ACCOUNTANT_H */
