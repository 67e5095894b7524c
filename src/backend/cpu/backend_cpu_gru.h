/*
 * backend_cpu_gru.h — the CPU backend's GRU and sigmoid operations (backend_cpu_gru.c),
 * declared for the CPU table in backend_cpu.c. Semantics: backend.h.
 */
#ifndef GEN_BACKEND_CPU_GRU_H
#define GEN_BACKEND_CPU_GRU_H

#include "backend.h"

/* The branch-free exp the CPU gates use (exposed for its accuracy test). */
float gen_cpu_expf(float x);
void gen_cpu_sigmoid_forward(gen_backend *be, float *out, const float *inp, size_t n);
void gen_cpu_sigmoid_backward(gen_backend *be, float *dinp, const float *dout, const float *out,
                              size_t n);
void gen_cpu_gru_forward(gen_backend *be, float *y, float *save, const float *x, const float *h0,
                         const float *W, const float *b, int B, int T, int C, int H);
void gen_cpu_gru_backward(gen_backend *be, float *dx, float *dh0, float *dW, float *db,
                          float *work, const float *dy, const float *x, const float *h0,
                          const float *y, const float *save, const float *W, int B, int T,
                          int C, int H);

#endif /* GEN_BACKEND_CPU_GRU_H */
