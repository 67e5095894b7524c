/*
 * memory.c — the CPU backend's `memory` family (backend.h): alloc, free, upload, download,
 * zero, copy2d and host memory. On the CPU backend memory is host memory (host_memory = 1):
 * upload and download are one memmove, alloc is calloc. CUDA: cuda/memory.cu; parity:
 * tests/parity/memory.c.
 */
#include "cpu_internal.h"

void *gen_cpu_alloc(gen_backend *be, size_t bytes) {
    (void)be;
    return calloc(1, bytes ? bytes : 1);
}
void gen_cpu_free(gen_backend *be, void *p) { (void)be; free(p); }
void gen_cpu_copy(gen_backend *be, void *dst, const void *src, size_t bytes) {
    (void)be;
    if (bytes) memmove(dst, src, bytes);
}
void gen_cpu_zero(gen_backend *be, float *x, size_t n) {
    (void)be;
    if (n) memset(x, 0, n * sizeof *x);
}
void gen_cpu_copy2d(gen_backend *be, float *dst, int ldd, const float *src, int lds, int rows,
                    int cols) {
    (void)be;
    for (int r = 0; r < rows; r++)
        memcpy(dst + (size_t)r * ldd, src + (size_t)r * lds, (size_t)cols * sizeof(float));
}

void *gen_cpu_host_alloc(gen_backend *be, size_t bytes) {
    (void)be;
    return malloc(bytes ? bytes : 1);
}

void gen_cpu_host_free(gen_backend *be, void *p) {
    (void)be;
    free(p);
}
