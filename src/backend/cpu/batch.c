/*
 * batch.c — the CPU backend's `batch` family (backend.h): training batches built from
 * backend memory, so a training step needs no host copy: gather_rows (encoded rows expanded
 * from the device-resident table of dev_table.c), gather_onehot_rows (gather_rows, then
 * onehot_rows of the condition after the rows' columns), onehot_rows (the conditional vector's
 * one-hots) and accumulate (loss sums kept across steps). CUDA: cuda/batch.cu; parity:
 * tests/parity/batch.c.
 */
#include "cpu_internal.h"

void gen_cpu_gather_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                         const int32_t *rows, int B) {
    (void)be;
    GEN_OMP_FOR((size_t)B * (size_t)t->width)
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * ldo;
        memset(o, 0, (size_t)t->width * sizeof *o);
        int64_t r = rows[b];
        for (int c = 0; c < t->ncols; c++) {
            int32_t s = t->slot[c][r];
            if (t->cont[c]) {
                o[t->offset[c]] = t->alpha[c][r];
                o[t->offset[c] + 1 + s] = 1.0f;
            } else {
                o[t->offset[c] + s] = 1.0f;
            }
        }
    }
}
void gen_cpu_gather_onehot_rows(gen_backend *be, float *out, int ldo, const gen_dev_table *t,
                                const int32_t *rows, int B, int w, const int32_t *pos) {
    gen_cpu_gather_rows(be, out, ldo, t, rows, B);
    gen_cpu_onehot_rows(be, out + t->width, ldo, w, pos, B);
}
void gen_cpu_onehot_rows(gen_backend *be, float *out, int ldo, int w, const int32_t *pos,
                         int B) {
    (void)be;
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * ldo;
        memset(o, 0, (size_t)w * sizeof *o);
        if (pos[b] >= 0 && pos[b] < w) o[pos[b]] = 1.0f;
    }
}
void gen_cpu_accumulate(gen_backend *be, float *acc, const float *x, int n) {
    (void)be;
    for (int i = 0; i < n; i++) acc[i] += x[i];
}
