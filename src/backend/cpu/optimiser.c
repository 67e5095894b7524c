/*
 * optimiser.c — the CPU backend's `optimiser` family (backend.h): torch's Adam with
 * L2-coupled weight decay (torch.optim.Adam; the bias corrections in double, as the CUDA
 * kernel receives them), adam_dev_end (adam_dev, a clamp and
 * step_advance in turn), adam_dev (the step count read from backend memory, obeying the
 * loss scaler's skip) and the dynamic loss scaling of FP16 training (amp_scale,
 * amp_unscale; torch.cuda.amp.GradScaler's rules, docs/precision.md). CUDA:
 * cuda/optimiser.cu; parity: tests/parity/optimiser.c.
 */
#include "cpu_internal.h"

/* ---- Adam ----------------------------------------------------------------------------------- */
static GEN_KERNEL void adam_range(float *restrict param, const float *restrict grad,
                                  float *restrict m, float *restrict v, float lr_t, float beta1,
                                  float beta2, float eps, float wd, float isbc2, size_t lo,
                                  size_t hi) {
    for (size_t i = lo; i < hi; i++) {
        float g = grad[i] + wd * param[i];
        m[i] = beta1 * m[i] + (1.0f - beta1) * g;
        v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
        param[i] -= lr_t * m[i] / (sqrtf(v[i]) * isbc2 + eps);
    }
}

void gen_cpu_adam(gen_backend *be, float *param, const float *grad, float *m, float *v,
                  size_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                  int64_t t) {
    (void)be;
    double bc1 = 1.0 - pow(beta1, (double)t), bc2 = 1.0 - pow(beta2, (double)t);
    float step = (float)(lr / bc1);
    float isbc2 = (float)(1.0 / sqrt(bc2));
    GEN_PARALLEL_RANGE(n, adam_range(param, grad, m, v, step, beta1, beta2, eps, weight_decay,
                                     isbc2, lo, hi));
}

void gen_cpu_adamw(gen_backend *be, float *param, const float *grad, float *m, float *v,
                   size_t n, float lr, float beta1, float beta2, float eps, float keep,
                   int64_t t) {
    if (keep != 1.0f) gen_cpu_scale(be, param, n, keep);
    gen_cpu_adam(be, param, grad, m, v, n, lr, beta1, beta2, eps, 0.0f, t);
}

/* ---- device step state (backend.h; on the CPU "backend memory" is host memory) ------------- */
void gen_cpu_adam_dev(gen_backend *be, float *param, const float *grad, float *m, float *v,
                      size_t n, float lr, float beta1, float beta2, float eps,
                      float weight_decay, const int64_t *t0, int64_t dt,
                      const gen_amp *amp) {
    if (amp && amp->skip) return;
    gen_cpu_adam(be, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, *t0 + dt);
}
void gen_cpu_adam_dev_end(gen_backend *be, float *param, const float *grad, float *m, float *v,
                          size_t n, float lr, float beta1, float beta2, float eps,
                          float weight_decay, const int64_t *t0, int64_t dt, const gen_amp *amp,
                          float *clip, size_t nclip, float lo, float hi, gen_step_state *st,
                          gen_step_state d) {
    gen_cpu_adam_dev(be, param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, t0, dt, amp);
    if (clip) gen_cpu_clamp(be, clip, nclip, lo, hi);
    gen_cpu_step_advance(be, st, d);
}

/* ---- loss scaling (backend.h gen_amp) ------------------------------------------------------ */
void gen_cpu_amp_scale(gen_backend *be, float *x, size_t n, const gen_amp *amp) {
    float s = amp->scale;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i++) x[i] *= s;
}
void gen_cpu_amp_unscale(gen_backend *be, float *g, size_t n, gen_amp *amp) {
    amp->steps++;
    int bad = amp->inject_at > 0 && amp->steps == amp->inject_at;
    for (size_t i = 0; i < n && !bad; i++)
        if (!isfinite(g[i])) bad = 1;
    amp->skip = bad;
    amp->inv = 1.0f / amp->scale; /* a power of two: exact */
    if (bad) {
        memset(g, 0, n * sizeof *g);
        amp->scale = amp->scale * 0.5f < GEN_AMP_MIN_SCALE ? GEN_AMP_MIN_SCALE : amp->scale * 0.5f;
        amp->good = 0;
        amp->skipped++;
        return;
    }
    float inv = amp->inv;
    GEN_OMP_FOR(n)
    for (size_t i = 0; i < n; i++) g[i] *= inv;
    if (++amp->good >= amp->interval) {
        amp->scale *= 2.0f;
        amp->good = 0;
    }
}
