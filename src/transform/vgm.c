/*
 * vgm.c — the variational Bayesian Gaussian mixture of one continuous column, and the
 * 1-D k-means that initialises it.
 *
 * What it reproduces: scikit-learn's BayesianGaussianMixture (covariance_type='full' with one
 * feature, weight_concentration_prior_type='dirichlet_process', init_params='kmeans') as the
 * reference transformer configures it; docs/algorithms.md §T2.3 writes out every formula.
 * The variational updates are the standard ones for a Gaussian mixture with a
 * Normal-Wishart prior on each component and a truncated stick-breaking (Dirichlet process)
 * prior on the weights: Bishop, "Pattern Recognition and Machine Learning", ch. 10.2
 * (eqs. 10.46-10.66 for the Gaussian-Wishart part), Blei & Jordan, "Variational inference for
 * Dirichlet process mixtures" (2006) for the stick-breaking weights. scikit-learn deviates
 * from Bishop in two ways that we follow: the Wishart scale is stored as a covariance
 * normalised by the degrees of freedom, and the lower bound drops the constant terms (and is
 * not divided by the number of rows, so the absolute tolerance 1e-3 rarely stops a fit on
 * large columns early).
 *
 * k-means: the greedy k-means++ seeding (Arthur & Vassilvitskii 2007; 2 + floor(ln K) local
 * trials per centre, keep the candidate that lowers the potential most) on data centred on
 * its mean, then Lloyd iterations with empty clusters moved to the points farthest from their
 * centres, stopping on unchanged labels or when the squared centre shift is within
 * 1e-4 * var(x). The random draws come from gen_rng, not NumPy's MT19937, so the labels match
 * scikit-learn's in distribution only; given the same labels the mixture matches it to
 * rounding (tests/test_vgm.c against tests/fixtures/vgm_fixture.txt).
 *
 * Numerics: float64 throughout. The EM loop runs over the distinct values with their
 * multiplicities (identical rows have identical responsibilities; real columns repeat values
 * a lot), one pass per iteration: blocks of 64 values, log-probabilities for all components,
 * a log-sum-exp per value with our own branch-free exp (Cody-Waite reduction + degree-13
 * Taylor polynomial, a few ulp, vectorises), and the responsibilities folded straight into
 * the sufficient statistics. The within-component scatter is summed around a shift (each
 * component's previous mean) and corrected exactly, which keeps it free of cancellation
 * without storing the n x K responsibility matrix. Summation order differs from NumPy's, so
 * results agree with scikit-learn to ~1e-11 relative, not bit for bit. Digamma is our own
 * (recurrence up to x >= 6, then the asymptotic series, error < 1e-13); lgamma is libm's
 * (the reentrant lgamma_r where available).
 *
 * Limits: 1 <= K <= 16 components, n >= 2 rows (n >= K).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "vgm.h"

#define VGM_MAXK 16
#define VGM_GAMMA0 0.001     /* weight_concentration_prior */
#define VGM_BETA0 1.0        /* mean_precision_prior */
#define VGM_NU0 1.0          /* degrees_of_freedom_prior (= n_features) */
#define VGM_REG 1e-6         /* reg_covar */
#define VGM_LOG_2PI 1.8378770664093454836
#define VGM_LN2 0.69314718055994530942

/* ---- special functions --------------------------------------------------------------- */

double gen_digamma(double x) {
    if (!(x > 0.0)) {
        if (x == 0.0) return -INFINITY;
        return NAN; /* only positive arguments occur here */
    }
    double acc = 0.0;
    while (x < 6.0) { /* psi(x) = psi(x + 1) - 1/x */
        acc -= 1.0 / x;
        x += 1.0;
    }
    /* psi(x) ~ ln x - 1/(2x) - sum_n B_2n / (2n x^2n); terms up to x^-14, the first omitted
     * one is < 2e-13 at x = 6. */
    double r = 1.0 / x, r2 = r * r;
    double series =
        r2 * (1.0 / 12 -
              r2 * (1.0 / 120 -
                    r2 * (1.0 / 252 -
                          r2 * (1.0 / 240 -
                                r2 * (1.0 / 132 - r2 * (691.0 / 32760 - r2 * (1.0 / 12)))))));
    return acc + log(x) - 0.5 * r - series;
}

/* lgamma without touching the global signgam (columns are fitted on several threads). */
static double vgm_lgamma(double x) {
#if defined(_DEFAULT_SOURCE) || defined(_BSD_SOURCE) || defined(__APPLE__)
    int sign;
    return lgamma_r(x, &sign);
#else
    return lgamma(x);
#endif
}

static double betaln(double a, double b) { return vgm_lgamma(a) + vgm_lgamma(b) - vgm_lgamma(a + b); }

/* ---- k-means ------------------------------------------------------------------------- */

/* Index of the nearest centre (first minimum). */
static inline int nearest(double v, const double *c, int K) {
    int best = 0;
    double bd = (v - c[0]) * (v - c[0]);
    for (int k = 1; k < K; k++) {
        double d = (v - c[k]) * (v - c[k]);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

/* First index i with cs[i] >= v (numpy searchsorted, side='left'), clipped to n-1. */
static int64_t search_left(const double *cs, int64_t n, double v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cs[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? lo : n - 1;
}

/* Greedy k-means++ seeding on centred data xc; writes K centres. */
static void kmeanspp(const double *xc, int64_t n, int K, gen_rng *rng, double *centre,
                     double *closest, double *cs) {
    int trials = 2 + (int)floor(log((double)K));
    int64_t first = (int64_t)gen_rng_below(rng, (uint64_t)n);
    centre[0] = xc[first];
    double pot = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = xc[i] - centre[0];
        closest[i] = d * d;
        pot += closest[i];
    }
    for (int c = 1; c < K; c++) {
        double run = 0.0;
        for (int64_t i = 0; i < n; i++) {
            run += closest[i];
            cs[i] = run;
        }
        double best_pot = INFINITY;
        int64_t best_id = 0;
        for (int t = 0; t < trials; t++) {
            double u = gen_rng_uniform(rng) * pot;
            int64_t id = search_left(cs, n, u);
            double cand = xc[id], p = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double d = xc[i] - cand;
                d *= d;
                p += d < closest[i] ? d : closest[i];
            }
            if (p < best_pot) { /* strict: the first of equal candidates wins (argmin) */
                best_pot = p;
                best_id = id;
            }
        }
        centre[c] = xc[best_id];
        pot = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double d = xc[i] - centre[c];
            d *= d;
            if (d < closest[i]) closest[i] = d;
            pot += closest[i];
        }
    }
}

int gen_kmeans_1d(const double *x, int64_t n, int K, gen_rng *rng, int32_t *labels) {
    if (!x || !labels || !rng || n < 1 || K < 1 || K > VGM_MAXK || (int64_t)K > n) return -1;
    double *xc = malloc((size_t)n * sizeof *xc);
    double *w1 = malloc((size_t)n * sizeof *w1);
    double *w2 = malloc((size_t)n * sizeof *w2);
    int32_t *old = malloc((size_t)n * sizeof *old);
    if (!xc || !w1 || !w2 || !old) {
        free(xc); free(w1); free(w2); free(old);
        return -1;
    }
    double mean = 0.0;
    for (int64_t i = 0; i < n; i++) mean += x[i];
    mean /= (double)n;
    double var = 0.0;
    for (int64_t i = 0; i < n; i++) {
        xc[i] = x[i] - mean;
        var += xc[i] * xc[i];
    }
    var /= (double)n;
    double tol = 1e-4 * var;

    double centre[VGM_MAXK], next[VGM_MAXK], sum[VGM_MAXK], cnt[VGM_MAXK];
    kmeanspp(xc, n, K, rng, centre, w1, w2);

    for (int64_t i = 0; i < n; i++) old[i] = -1;
    int strict = 0;
    for (int it = 0; it < 300; it++) {
        for (int k = 0; k < K; k++) sum[k] = cnt[k] = 0.0;
        for (int64_t i = 0; i < n; i++) {
            int k = nearest(xc[i], centre, K);
            labels[i] = k;
            sum[k] += xc[i];
            cnt[k] += 1.0;
        }
        /* empty clusters take the points farthest from their current centre */
        int empty[VGM_MAXK], n_empty = 0;
        for (int k = 0; k < K; k++)
            if (cnt[k] == 0.0) empty[n_empty++] = k;
        if (n_empty > 0) {
            int64_t far[VGM_MAXK];
            double fard[VGM_MAXK];
            int nf = 0;
            for (int64_t i = 0; i < n; i++) {
                double d = xc[i] - centre[labels[i]];
                d *= d;
                if (nf == n_empty && !(d > fard[nf - 1])) continue;
                int j = nf < n_empty ? nf++ : nf - 1;
                while (j > 0 && d > fard[j - 1]) {
                    fard[j] = fard[j - 1];
                    far[j] = far[j - 1];
                    j--;
                }
                fard[j] = d;
                far[j] = i;
            }
            for (int e = 0; e < n_empty && e < nf; e++) {
                int from = labels[far[e]], to = empty[e];
                sum[from] -= xc[far[e]];
                cnt[from] -= 1.0;
                sum[to] = xc[far[e]];
                cnt[to] = 1.0;
            }
        }
        double shift = 0.0;
        for (int k = 0; k < K; k++) {
            next[k] = cnt[k] > 0.0 ? sum[k] / cnt[k] : sum[k];
            double d = next[k] - centre[k];
            shift += d * d;
            centre[k] = next[k];
        }
        if (memcmp(labels, old, (size_t)n * sizeof *labels) == 0) {
            strict = 1;
            break;
        }
        if (shift <= tol) break;
        memcpy(old, labels, (size_t)n * sizeof *labels);
    }
    if (!strict)
        for (int64_t i = 0; i < n; i++) labels[i] = nearest(xc[i], centre, K);
    free(xc); free(w1); free(w2); free(old);
    return 0;
}

/* ---- the mixture --------------------------------------------------------------------- */

typedef struct {
    double m0, c0; /* mean prior, covariance prior */
} vgm_prior;

/* M-step from sufficient statistics: nk (with 10 eps added), xk (component means), sk
 * (variances + reg). Sets a, b, beta, mean, nu, var, prec_chol. */
static int m_step(gen_vgm *g, const vgm_prior *pr, const double *nk, const double *xk,
                  const double *sk) {
    int K = g->K;
    double tail = 0.0;
    for (int k = K - 1; k >= 0; k--) {
        g->a[k] = 1.0 + nk[k];
        g->b[k] = VGM_GAMMA0 + tail;
        tail += nk[k];
    }
    for (int k = 0; k < K; k++) {
        g->beta[k] = VGM_BETA0 + nk[k];
        g->mean[k] = (VGM_BETA0 * pr->m0 + nk[k] * xk[k]) / g->beta[k];
        g->nu[k] = VGM_NU0 + nk[k];
        double d = xk[k] - pr->m0;
        double cov = pr->c0 + nk[k] * sk[k] + nk[k] * VGM_BETA0 / g->beta[k] * d * d;
        cov /= g->nu[k];
        if (!(cov > 0.0) || !isfinite(cov)) return -1;
        g->var[k] = cov;
        g->prec_chol[k] = 1.0 / sqrt(cov);
    }
    return 0;
}

void gen_vgm_refresh(gen_vgm *g) {
    int K = g->K;
    double stick = 0.0, wsum = 0.0, rest = 1.0;
    for (int k = 0; k < K; k++) {
        double s = g->a[k] + g->b[k];
        double dg = gen_digamma(s);
        g->log_const[k] = gen_digamma(g->a[k]) - dg + stick;
        stick += gen_digamma(g->b[k]) - dg;
        g->weight[k] = g->a[k] / s * rest;
        rest *= g->b[k] / s;
        wsum += g->weight[k];
    }
    for (int k = 0; k < K; k++) {
        g->weight[k] /= wsum;
        g->prec_chol[k] = 1.0 / sqrt(g->var[k]);
        g->log_const[k] += -0.5 * VGM_LOG_2PI + log(g->prec_chol[k]) - 0.5 * log(g->nu[k]) +
                           0.5 * (VGM_LN2 + gen_digamma(0.5 * g->nu[k]) - 1.0 / g->beta[k]);
    }
}

#define VGM_BLK 64

/* e[j] = exp(lp[j] - mx[j]) (an argument <= 0) over one block, within a few ulp; arguments
 * below -708 are left to the caller, who replaces them by 0 (such a responsibility is below
 * 1e-307 of the row's largest). Range reduction x = n ln2 + r (Cody-Waite split of ln2, as
 * in fdlibm), |r| <= ln2/2, then the Taylor polynomial of degree 13 (truncation < 5e-18)
 * evaluated by Estrin's scheme (short dependency chains), then n is written into the
 * exponent bits. No branches or selects, so the loop vectorises. */
static inline void vgm_exp_block(double *restrict e, const double *restrict lp,
                                 const double *restrict mx) {
    const double magic = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer */
    for (int j = 0; j < VGM_BLK; j++) {
        double x = lp[j] - mx[j];
        double t = x * 1.4426950408889634 + magic;
        double nn = t - magic;
        double r = (x - nn * 6.93147180369123816490e-01) - nn * 1.90821492927058770002e-10;
        double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        double q0 = 1.0 + r, q1 = 0.5 + r * (1.0 / 6), q2 = 1.0 / 24 + r * (1.0 / 120),
               q3 = 1.0 / 720 + r * (1.0 / 5040), q4 = 1.0 / 40320 + r * (1.0 / 362880),
               q5 = 1.0 / 3628800 + r * (1.0 / 39916800),
               q6 = 1.0 / 479001600 + r * (1.0 / 6227020800.0);
        double p = ((q0 + r2 * q1) + r4 * (q2 + r2 * q3)) + r8 * ((q4 + r2 * q5) + r4 * q6);
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits); /* the low mantissa bits of t hold n */
        bits = (bits + 1023u) << 52;
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        e[j] = p * scale;
    }
}

/* One row's posterior over the components (predict_proba). */
static void row_proba(const gen_vgm *g, double v, double *proba) {
    int K = g->K;
    double lp[VGM_MAXK], mx = -INFINITY, s = 0.0;
    for (int k = 0; k < K; k++) {
        double y = (v - g->mean[k]) * g->prec_chol[k];
        lp[k] = g->log_const[k] - 0.5 * y * y;
        if (lp[k] > mx) mx = lp[k];
    }
    for (int k = 0; k < K; k++) {
        lp[k] = exp(lp[k] - mx);
        s += lp[k];
    }
    double inv = 1.0 / s;
    for (int k = 0; k < K; k++) proba[k] = lp[k] * inv;
}

/* Sufficient statistics of one E-step: W = sum w r, A = sum w r d, B = sum w r d^2 with
 * d = x - shift_k, and ent = sum w sum_k r log r. */
typedef struct {
    double W[VGM_MAXK], A[VGM_MAXK], B[VGM_MAXK], ent;
} vgm_stats;

/* E-step over unique values u[0..m) with multiplicities cnt, folded into the statistics.
 * Rows go in blocks of VGM_BLK with the component loop outside, so the inner loops have a
 * fixed trip count and vectorise; the block tail is padded with weight 0. */
static void e_pass(const gen_vgm *g, const double *u, const double *cnt, int64_t m,
                   const double *shift, vgm_stats *st) {
    int K = g->K;
    memset(st, 0, sizeof *st);
    double E[VGM_MAXK][VGM_BLK];
    double xb[VGM_BLK], wb[VGM_BLK], mx[VGM_BLK], s[VGM_BLK], el[VGM_BLK], sc[VGM_BLK];
    for (int64_t i0 = 0; i0 < m; i0 += VGM_BLK) {
        int nb = m - i0 < VGM_BLK ? (int)(m - i0) : VGM_BLK, unit = 1;
        for (int j = 0; j < nb; j++) {
            xb[j] = u[i0 + j];
            wb[j] = cnt[i0 + j];
            unit &= wb[j] == 1.0;
        }
        for (int j = nb; j < VGM_BLK; j++) {
            xb[j] = xb[nb - 1];
            wb[j] = 0.0;
        }
        for (int k = 0; k < K; k++) {
            double mu = g->mean[k], pc = g->prec_chol[k], c = g->log_const[k];
            for (int j = 0; j < VGM_BLK; j++) {
                double y = (xb[j] - mu) * pc;
                E[k][j] = c - 0.5 * y * y;
            }
        }
        for (int j = 0; j < VGM_BLK; j++) {
            mx[j] = E[0][j];
            s[j] = 0.0;
            el[j] = 0.0;
        }
        for (int k = 1; k < K; k++)
            for (int j = 0; j < VGM_BLK; j++) mx[j] = E[k][j] > mx[j] ? E[k][j] : mx[j];
        for (int k = 0; k < K; k++) {
            double e[VGM_BLK];
            vgm_exp_block(e, E[k], mx);
            for (int j = 0; j < VGM_BLK; j++) {
                double v = E[k][j] - mx[j] > -708.0 ? e[j] : 0.0;
                s[j] += v;
                el[j] += v * E[k][j];
                E[k][j] = v;
            }
        }
        /* entropy: sum_k r log r = sum_k r lp - log_norm (as sum_k r = 1), log_norm =
         * mx + log s; the logs of a block of unit-weight rows are taken as one log of their
         * product (s is in [1, K], so 64 of them stay below 2^256) */
        double tj[VGM_BLK];
        for (int j = 0; j < VGM_BLK; j++) {
            double inv = 1.0 / s[j];
            sc[j] = wb[j] * inv;
            tj[j] = wb[j] * (el[j] * inv - mx[j]);
        }
        double ent = 0.0;
        for (int j = 0; j < VGM_BLK; j++) ent += tj[j];
        if (unit) {
            double prod = 1.0;
            for (int j = 0; j < nb; j++) prod *= s[j];
            ent -= log(prod);
        } else {
            for (int j = 0; j < nb; j++) ent -= wb[j] * log(s[j]);
        }
        st->ent += ent;
        for (int k = 0; k < K; k++) {
            double sh = shift[k];
            double w4[4] = {0, 0, 0, 0}, a4[4] = {0, 0, 0, 0}, b4[4] = {0, 0, 0, 0};
            for (int j = 0; j < VGM_BLK; j += 4)
                for (int l = 0; l < 4; l++) {
                    double r = E[k][j + l] * sc[j + l];
                    double d = xb[j + l] - sh;
                    double rd = r * d;
                    w4[l] += r;
                    a4[l] += rd;
                    b4[l] += rd * d;
                }
            st->W[k] += (w4[0] + w4[1]) + (w4[2] + w4[3]);
            st->A[k] += (a4[0] + a4[1]) + (a4[2] + a4[3]);
            st->B[k] += (b4[0] + b4[1]) + (b4[2] + b4[3]);
        }
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gen_vgm_fit_from_labels(gen_vgm *g, const double *x, int64_t n, int K, const int32_t *labels,
                            int max_iter, double tol) {
    if (!g || !x || !labels || n < 2 || K < 1 || K > VGM_MAXK) return -1;
    memset(g, 0, sizeof *g);
    g->K = K;

    vgm_prior pr;
    double m0 = 0.0;
    for (int64_t i = 0; i < n; i++) m0 += x[i];
    m0 /= (double)n;
    double c0 = 0.0;
    for (int64_t i = 0; i < n; i++) c0 += (x[i] - m0) * (x[i] - m0);
    c0 /= (double)(n - 1);
    pr.m0 = m0;
    pr.c0 = c0;
    if (!isfinite(m0) || !isfinite(c0)) return -1; /* also catches NaN / inf rows */

    const double eps10 = 10.0 * DBL_EPSILON;
    double nk[VGM_MAXK], xk[VGM_MAXK], sk[VGM_MAXK];

    /* _initialize: the M-step with hard responsibilities from the labels */
    double lc[VGM_MAXK] = {0}, sx[VGM_MAXK] = {0}, ss[VGM_MAXK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int k = labels[i];
        if (k < 0 || k >= K) return -1;
        lc[k] += 1.0;
        sx[k] += x[i];
    }
    for (int k = 0; k < K; k++) {
        nk[k] = lc[k] + eps10;
        xk[k] = sx[k] / nk[k];
    }
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - xk[labels[i]];
        ss[labels[i]] += d * d;
    }
    for (int k = 0; k < K; k++) sk[k] = ss[k] / nk[k] + VGM_REG;
    if (m_step(g, &pr, nk, xk, sk) != 0) return -1;
    gen_vgm_refresh(g);

    /* The EM loop runs over the distinct values with their multiplicities: identical
     * rows have identical responsibilities, and real columns (ages, counts, amounts rounded
     * to cents) repeat values a lot. */
    double *u = malloc((size_t)n * sizeof *u);
    double *cnt = malloc((size_t)n * sizeof *cnt);
    if (!u || !cnt) {
        free(u);
        free(cnt);
        return -1;
    }
    memcpy(u, x, (size_t)n * sizeof *u);
    qsort(u, (size_t)n, sizeof *u, cmp_double);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (m > 0 && u[i] == u[m - 1]) {
            cnt[m - 1] += 1.0;
        } else {
            u[m] = u[i];
            cnt[m++] = 1.0;
        }
    }

    int rc = 0;
    double lb = -INFINITY;
    g->n_iter = 0;
    g->converged = 0;
    for (int it = 1; it <= max_iter; it++) {
        double shift[VGM_MAXK];
        for (int k = 0; k < K; k++) shift[k] = xk[k];
        vgm_stats st;
        e_pass(g, u, cnt, m, shift, &st);
        double ent = st.ent;
        for (int k = 0; k < K; k++) {
            nk[k] = st.W[k] + eps10;
            xk[k] = (st.A[k] + shift[k] * st.W[k]) / nk[k];
            double delta = xk[k] - shift[k];
            double scatter = st.B[k] - 2.0 * delta * st.A[k] + delta * delta * st.W[k];
            if (scatter < 0.0) scatter = 0.0;
            sk[k] = scatter / nk[k] + VGM_REG;
        }
        if (m_step(g, &pr, nk, xk, sk) != 0) {
            rc = -1;
            break;
        }
        gen_vgm_refresh(g);

        /* lower bound (sklearn's _compute_lower_bound for 1 feature) */
        double log_wishart = 0.0, log_norm_weight = 0.0, log_beta = 0.0;
        for (int k = 0; k < K; k++) {
            double ldc = log(g->prec_chol[k]) - 0.5 * log(g->nu[k]);
            log_wishart += -(g->nu[k] * ldc + g->nu[k] * 0.5 * VGM_LN2 + vgm_lgamma(0.5 * g->nu[k]));
            log_norm_weight += -betaln(g->a[k], g->b[k]);
            log_beta += log(g->beta[k]);
        }
        double prev = lb;
        lb = -ent - log_wishart - log_norm_weight - 0.5 * log_beta;
        g->n_iter = it;
        if (fabs(lb - prev) < tol) {
            g->converged = 1;
            break;
        }
    }
    g->lower_bound = lb;
    free(u);
    free(cnt);
    return rc;
}

int gen_vgm_fit(gen_vgm *g, const double *x, int64_t n, int max_components, gen_rng *rng) {
    if (!g || !x || !rng || n < 2 || max_components < 1) return -1;
    int K = max_components > VGM_MAXK ? VGM_MAXK : max_components;
    if ((int64_t)K > n) K = (int)n;
    int32_t *labels = malloc((size_t)n * sizeof *labels);
    if (!labels) return -1;
    int rc = gen_kmeans_1d(x, n, K, rng, labels);
    if (rc == 0) rc = gen_vgm_fit_from_labels(g, x, n, K, labels, 100, 1e-3);
    free(labels);
    return rc;
}

void gen_vgm_predict_proba(const gen_vgm *g, double x, double *proba) { row_proba(g, x, proba); }
