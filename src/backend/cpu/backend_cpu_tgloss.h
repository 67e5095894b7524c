/*
 * backend_cpu_tgloss.h — the CPU backend's TimeGAN loss operations (backend_cpu_tgloss.c),
 * declared for the CPU table in backend_cpu.c. Semantics: backend.h ("TimeGAN's losses on the
 * device").
 */
#ifndef GEN_BACKEND_CPU_TGLOSS_H
#define GEN_BACKEND_CPU_TGLOSS_H

#include "backend.h"

void gen_cpu_mse_loss(gen_backend *be, double *loss, float *da, float *db, const float *a,
                      const float *b, int rows, int cols, int ld, float scale, int root);
void gen_cpu_bce_logits(gen_backend *be, double *loss, float *dl, const float *l, size_t n,
                        float y, float scale);
void gen_cpu_moments_loss(gen_backend *be, double *loss, float *dxh, const float *xh,
                          const float *x, int B, int T, int F, float scale);
void gen_cpu_take_rows(gen_backend *be, float *out, const float *src, const int32_t *idx, int B,
                       int w);

#endif /* GEN_BACKEND_CPU_TGLOSS_H */
