/*
 * ddpm_noise.h — TabDDPM's forward process q(x_t | x_0) for a training batch (Kotelnikov et
 * al., ICML 2023; docs/ddpm.md §2 and §6), written once for the CPU backend
 * (cpu/ddpm_noise.c) and the CUDA kernel (cuda/ddpm_noise.cu) with GEN_HOST_DEVICE, so both
 * compute the same expressions from the same counter-based Philox draws:
 *   - the timestep of row r: t = floor(u T) from the 32-bit word r of the counters from
 *     offset + 2 GEN_DDPM_REGION (u = word / 2^32);
 *   - a tanh position (element i = r D + j): x0 *= xscale, noise = the normal of element i of
 *     the counters from offset (rng.h gen_philox_normal_at),
 *     x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise (Ho et al. 2020, eq. 4), in double;
 *   - a softmax span of width K starting at element i: the one-hot of the category drawn from
 *     q(x_t | x_0) = abar_t x0 + (1 - abar_t) / K (Hoogeboom et al. 2021, eq. 5) by inverting
 *     its cumulative sum at the uniform of element i of the counters from offset +
 *     GEN_DDPM_REGION (diffusion.h gen_ddpm_u; the first k with u < sum_{j<=k} q_j, K - 1 when
 *     rounding leaves u above the total).
 * Every draw is a pure function of (seed, stream, offset, row number r, position j), so a
 * batch's x_t does not depend on the thread count, the device or how the rows are cut into
 * calls. The loss's coefficients of row r: alpha_t and alpha-bar_{t-1} (1 at t = 0).
 */
#ifndef GEN_DDPM_NOISE_H
#define GEN_DDPM_NOISE_H

#include "diffusion.h"

/* the timestep in [0, T) of row r (its running number in the fit) */
GEN_HOST_DEVICE static inline int gen_ddpm_noise_t(uint64_t seed, uint64_t stream,
                                                   uint64_t offset, uint64_t r, int T) {
    return (int)(((uint64_t)gen_philox_at(seed, stream, offset + 2 * GEN_DDPM_REGION, r) *
                  (uint64_t)T) >> 32);
}

/* One span of one row: x0, xt and noise point at the span's first position in the row, i is
 * that position's element number (r D + start), ab = alpha-bar_t. xt and noise are written at
 * the span's positions only (noise only at a tanh span's). */
GEN_HOST_DEVICE static inline void gen_ddpm_noise_span(float *x0, float *xt, float *noise,
                                                       int len, int softmax, double ab,
                                                       float xscale, uint64_t seed,
                                                       uint64_t stream, uint64_t offset,
                                                       uint64_t i) {
    if (!softmax) {
        double sa = sqrt(ab), sn = sqrt(1.0 - ab);
        for (int j = 0; j < len; j++) {
            x0[j] *= xscale;
            float z = gen_philox_normal_at(seed, stream, offset, i + (uint64_t)j);
            noise[j] = z;
            xt[j] = (float)(sa * (double)x0[j] + sn * (double)z);
        }
        return;
    }
    double u = gen_ddpm_u(seed, stream, offset, i), acc = 0, uk = (1.0 - ab) / len;
    int pick = len - 1;
    for (int k = 0; k < len; k++) {
        acc += ab * (double)x0[k] + uk;
        if (u < acc) {
            pick = k;
            break;
        }
    }
    for (int k = 0; k < len; k++) xt[k] = k == pick ? 1.0f : 0.0f;
}

#endif /* GEN_DDPM_NOISE_H */
