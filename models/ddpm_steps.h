/*
 * ddpm_steps.h — the strided DDPM sampler's schedule (docs/ddpm.md §5): which of the T
 * timesteps its S steps visit and the coefficient of the second-order multistep Gaussian
 * step (`sample-order` 2, DPM-Solver++(2M), Lu et al. 2022).
 */
#ifndef GEN_DDPM_STEPS_H
#define GEN_DDPM_STEPS_H

/* tau[0..S) increasing in [0, T), 1 <= S <= T; the chain visits tau[S-1] .. tau[0]:
 * floor(i T / S) (Song et al. 2021's uniform stride; S = T: every step). */
void ddpm_timesteps(int T, int S, int *tau);

/* The multistep coefficient k of chain step i (t = tau[i] -> s = tau[i-1], abar[] of the
 * schedule): h_i / (2 h_{i-1}), h the steps in lambda = log(sqrt(abar) / sqrt(1 - abar)),
 * at most 1/2; 0 at the chain's first step (i = S - 1) and at its last (i = 0: the step to
 * the data). */
double ddpm_order2_k(const double *abar, const int *tau, int S, int i);

#endif /* GEN_DDPM_STEPS_H */
