/*
 * gru_layer_bench.c — one GRU layer through the CPU backend at TimeGAN's sizes: CPU time of
 * gru_forward and gru_backward (with and without weight gradients) and an FNV-1a hash of each
 * output's bytes, so two builds can be compared for speed and for identical results.
 *   gru_layer_bench [B 128] [reps 50] [C 24] [H 24] [h0 0]
 * Built against a tree's static library (NOTES.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "backend.h"
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static uint64_t fnv(const float *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n * 4; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}
int main(int argc, char **argv) {
    int B = argc > 1 ? atoi(argv[1]) : 128, reps = argc > 2 ? atoi(argv[2]) : 50;
    int C = argc > 3 ? atoi(argv[3]) : 24, H = argc > 4 ? atoi(argv[4]) : 24;
    int uh0 = argc > 5 ? atoi(argv[5]) : 0, T = 24;
    genesis_ctx *ctx;
    gen_backend *be;
    genesis_ctx_create(&ctx);
    gen_backend_cpu_create(ctx, 1, &be);
    size_t BT = (size_t)B * T, nw = gen_gru_weight_floats(C, H);
    float *x = malloc(BT * C * 4), *y = malloc(BT * H * 4), *save = malloc(BT * 4 * H * 4);
    float *W = malloc(nw * 4), *b = malloc(6 * H * 4), *h0 = malloc((size_t)B * H * 4);
    float *dx = calloc(BT * C, 4), *dW = calloc(nw, 4), *db = calloc(6 * H, 4);
    float *dh0 = calloc((size_t)B * H, 4);
    float *work = malloc(gen_gru_work_floats(B, T, H) * 4), *dy = malloc(BT * H * 4);
    srand(1);
    for (size_t i = 0; i < BT * C; i++) x[i] = (rand() % 1000) / 1000.f - .5f;
    for (size_t i = 0; i < nw; i++) W[i] = (rand() % 1000) / 5000.f - .1f;
    for (int i = 0; i < 6 * H; i++) b[i] = (rand() % 1000) / 5000.f - .1f;
    for (size_t i = 0; i < (size_t)B * H; i++) h0[i] = (rand() % 1000) / 1000.f - .5f;
    for (size_t i = 0; i < BT * H; i++) dy[i] = (rand() % 1000) / 1000.f - .5f;
    const float *hz = uh0 ? h0 : NULL;
    double fl = 2.0 * B * 3 * H * ((double)T * C + (T - 1.0) * H);
    be->ops->gru_forward(be, y, save, x, hz, W, b, B, T, C, H);
    be->ops->gru_backward(be, dx, uh0 ? dh0 : NULL, dW, db, work, dy, x, hz, y, save, W, B, T, C, H);
    printf("hash y %016llx save %016llx dx %016llx dW %016llx db %016llx dh0 %016llx\n",
           (unsigned long long)fnv(y, BT * H), (unsigned long long)fnv(save, BT * 4 * H),
           (unsigned long long)fnv(dx, BT * C), (unsigned long long)fnv(dW, nw),
           (unsigned long long)fnv(db, 6 * H), (unsigned long long)fnv(dh0, (size_t)B * H));
    double c0 = cpu_s();
    for (int r = 0; r < reps; r++) be->ops->gru_forward(be, y, save, x, hz, W, b, B, T, C, H);
    double f = (cpu_s() - c0) / reps;
    c0 = cpu_s();
    for (int r = 0; r < reps; r++)
        be->ops->gru_backward(be, dx, NULL, dW, db, work, dy, x, hz, y, save, W, B, T, C, H);
    double bw = (cpu_s() - c0) / reps;
    c0 = cpu_s();
    for (int r = 0; r < reps; r++)
        be->ops->gru_backward(be, dx, NULL, NULL, NULL, work, dy, x, hz, y, save, W, B, T, C, H);
    double bi = (cpu_s() - c0) / reps;
    /* backward: dh products (T-1 steps), dx products, and the weight gradients (as forward) */
    double fdx = 2.0 * B * T * 3 * H * C, fdh = 2.0 * B * (T - 1.0) * 3 * H * H;
    printf("B %d: forward %.3f ms %.1f GFLOP/s; backward+wgrad %.3f ms %.1f GFLOP/s; "
           "backward %.3f ms %.1f GFLOP/s\n", B, f * 1e3, fl / f * 1e-9, bw * 1e3,
           (fl + fdx + fdh) / bw * 1e-9, bi * 1e3, (fdx + fdh) / bi * 1e-9);
    return 0;
}
