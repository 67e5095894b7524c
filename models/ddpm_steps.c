/*
 * ddpm_steps.c — the strided DDPM sampler's timesteps and second-order coefficient
 * (ddpm_steps.h; docs/ddpm.md §5). The timesteps are Song et al.'s (ICLR 2021) uniform
 * stride (two other spacings were measured and are not offered: docs/ddpm.md §5, §9). The
 * coefficient is DPM-Solver++(2M)'s (Lu et al. 2022, Algorithm 2: D = (1 + 1/(2r)) x0_i -
 * 1/(2r) x0_{i-1}, r = h_{i-1} / h_i, so D = x0_i + k (x0_i - x0_{i-1}) with k = h_i / (2
 * h_{i-1})), capped at 1/2, the value of equal steps: a step much longer in lambda than the
 * one before (the cosine schedule's stride into t = 0 is 3-4 times longer) would extrapolate
 * the prediction far past the two it has, and on a Gaussian toy whose flow is known that is
 * worse than DDIM's first-order step (docs/ddpm.md §5).
 */
#include <math.h>
#include <stdint.h>

#include "ddpm_steps.h"

void ddpm_timesteps(int T, int S, int *tau) {
    for (int i = 0; i < S; i++) tau[i] = (int)((int64_t)i * T / S);
}

/* DPM-Solver's lambda: half the log signal-to-noise ratio */
static double lambda_of(double abar) { return 0.5 * log(abar / (1.0 - abar)); }

double ddpm_order2_k(const double *abar, const int *tau, int S, int i) {
    if (i <= 0 || i >= S - 1) return 0.0; /* s = -1: lambda_s infinite, DDIM's step */
    double lt = lambda_of(abar[tau[i]]);
    double h = lambda_of(abar[tau[i - 1]]) - lt, hp = lt - lambda_of(abar[tau[i + 1]]);
    if (!(hp > 0)) return 0.0;
    double k = h / (2.0 * hp);
    return k < 0.5 ? k : 0.5; /* capped at equal steps' 1/2 (r >= 1): docs/ddpm.md §5 */
}
