/*
 * test_gru_grad.c — the CPU GRU operation (the reset-after cell of cuDNN / PyTorch,
 * backend.h) checked four ways:
 *   1. forward against a plain double-precision transcription of the cell's equations as
 *      PyTorch's nn.GRU documents them (r, z, n gate order; n = tanh(W_in x + b_in +
 *      r * (W_hn h + b_hn)); h' = (1 - z) n + z h), and one step against values worked out
 *      by hand, which TF1's GRUCell (reset before the matmul, the cell Genesis used before
 *      file version 3 of the TimeGAN section) does not reproduce;
 *   2. central finite differences of a random linear functional of the outputs w.r.t. the
 *      input, the initial state, the weights and the biases (with and without h0, several
 *      shapes including C = 1, H = 1, a full group of four batch rows and gates wider than
 *      one register block);
 *   3. the same bytes on one thread and on two;
 *   4. the sigmoid operation's backward, and the accuracy of the branch-free exp the CPU
 *      gates use.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "cpu_internal.h"
#include "test_util.h"
#include "cpu_fixture.h"


typedef struct gru_case {
    int B, T, C, H, use_h0;
    float *x, *h0, *W, *b, *y, *save, *R;
    float *dx, *dh0, *dW, *db, *work;
} gru_case;

static gru_case *case_new(int B, int T, int C, int H, int use_h0, uint64_t seed) {
    gru_case *c = calloc(1, sizeof *c);
    c->B = B; c->T = T; c->C = C; c->H = H; c->use_h0 = use_h0;
    size_t nx = (size_t)B * T * C, ny = (size_t)B * T * H, nw = gen_gru_weight_floats(C, H);
    size_t nb = gen_gru_bias_floats(H);
    c->x = malloc(nx * 4 + 4); c->h0 = malloc((size_t)B * H * 4); c->W = malloc(nw * 4);
    c->b = malloc(nb * 4); c->y = malloc(ny * 4); c->save = malloc(ny * 16);
    c->R = malloc(ny * 4);
    c->dx = calloc(nx + 1, 4); c->dh0 = calloc((size_t)B * H, 4); c->dW = calloc(nw, 4);
    c->db = calloc(nb, 4); c->work = malloc(gen_gru_work_floats(B, T, H) * 4);
    tu_fill_uniform(c->x, nx, -1, 1, seed);
    tu_fill_uniform(c->h0, (size_t)B * H, -0.8f, 0.8f, seed + 1);
    tu_fill_uniform(c->W, nw, -0.8f, 0.8f, seed + 2);
    tu_fill_uniform(c->b, nb, -0.5f, 1.0f, seed + 3);
    tu_fill_uniform(c->R, ny, -1, 1, seed + 4);
    return c;
}

static void case_free(gru_case *c) {
    free(c->x); free(c->h0); free(c->W); free(c->b); free(c->y); free(c->save); free(c->R);
    free(c->dx); free(c->dh0); free(c->dW); free(c->db); free(c->work); free(c);
}

static double case_loss(void *u) {
    gru_case *c = u;
    be->ops->gru_forward(be, c->y, c->save, c->x, c->use_h0 ? c->h0 : NULL, c->W, c->b, c->B,
                         c->T, c->C, c->H);
    double l = 0;
    for (size_t i = 0; i < (size_t)c->B * c->T * c->H; i++) l += (double)c->y[i] * c->R[i];
    return l;
}

/* Central differences at every entry (the cases are small), trusted where two step sizes
 * agree. */
static void check_grad(const char *what, gru_case *c, float *x, const float *g, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float x0 = x[i];
        double fd[2];
        float eps[2] = {2e-2f, 1e-2f};
        for (int k = 0; k < 2; k++) {
            x[i] = x0 + eps[k];
            double lp = case_loss(c);
            x[i] = x0 - eps[k];
            double lm = case_loss(c);
            x[i] = x0;
            fd[k] = (lp - lm) / (2.0 * ((double)(x0 + eps[k]) - (double)x0));
        }
        /* Richardson: the O(eps^2) error of the two estimates cancels */
        double best = (4.0 * fd[1] - fd[0]) / 3.0;
        ck_assert_msg(fabs(best - g[i]) <= 2e-3 + 2e-3 * fabs(best),
                      "%s[%zu] (B%d T%d C%d H%d h0 %d): analytic %.7g vs numeric %.7g", what, i,
                      c->B, c->T, c->C, c->H, c->use_h0, g[i], best);
    }
}

START_TEST(test_gru_forward_matches_reset_after_cell) {
    int B = 3, T = 5, C = 4, H = 3;
    gru_case *c = case_new(B, T, C, H, 1, 11);
    case_loss(c);
    double *h = malloc((size_t)H * sizeof(double)), *hn = malloc((size_t)H * sizeof(double));
    double gi[3], gh[3];
    const float *Wi = c->W, *Wh = c->W + (size_t)3 * H * C, *bi = c->b, *bh = c->b + 3 * H;
    for (int b = 0; b < B; b++) {
        for (int j = 0; j < H; j++) h[j] = c->h0[b * H + j];
        for (int t = 0; t < T; t++) {
            const float *xt = c->x + ((size_t)b * T + t) * C;
            for (int j = 0; j < H; j++) {
                for (int g = 0; g < 3; g++) { /* gate g's row j: W_i[gH + j] . x, W_h[gH + j] . h */
                    size_t row = (size_t)g * H + j;
                    gi[g] = bi[row];
                    gh[g] = bh[row];
                    for (int k = 0; k < C; k++) gi[g] += (double)Wi[row * C + k] * xt[k];
                    for (int k = 0; k < H; k++) gh[g] += (double)Wh[row * H + k] * h[k];
                }
                double r = 1.0 / (1.0 + exp(-(gi[0] + gh[0])));
                double z = 1.0 / (1.0 + exp(-(gi[1] + gh[1])));
                double n = tanh(gi[2] + r * gh[2]);
                hn[j] = (1.0 - z) * n + z * h[j];
            }
            for (int j = 0; j < H; j++) {
                h[j] = hn[j];
                ck_assert_msg(fabs(h[j] - c->y[((size_t)b * T + t) * H + j]) < 1e-5,
                              "y[%d,%d,%d] %.7g vs reset-after cell %.7g", b, t, j,
                              c->y[((size_t)b * T + t) * H + j], h[j]);
            }
        }
    }
    free(h); free(hn);
    case_free(c);
}
END_TEST

/* One step, C = H = 1, every weight and bias distinct, worked out by hand:
 *   r  = s(0.5*1 + 0.1 + 1.0*0.5 + 0.4)       = s(1.5)   = 0.81757448
 *   z  = s(-0.5*1 + 0.2 + 0.5*0.5 - 0.1)      = s(-0.15) = 0.46257015
 *   n  = tanh(1.0*1 - 0.3 + r*(2.0*0.5 + 0.5)) = tanh(1.92636171) = 0.95843829
 *   h' = (1 - z) n + z * 0.5                   = 0.74637842
 * TF1's GRUCell with the same weights and bias b_in + b_hn gives
 * tanh(0.7 + 0.5 + 2.0 * (r * 0.5)) for n and h' = 0.75003839, so the old cell fails. */
START_TEST(test_gru_one_step_by_hand) {
    const float x = 1.0f, h0 = 0.5f;
    const float W[6] = {0.5f, -0.5f, 1.0f, /* W_ir W_iz W_in */ 1.0f, 0.5f, 2.0f /* W_h* */};
    const float b[6] = {0.1f, 0.2f, -0.3f, /* b_i */ 0.4f, -0.1f, 0.5f /* b_h */};
    float y, save[4];
    be->ops->gru_forward(be, &y, save, &x, &h0, W, b, 1, 1, 1, 1);
    ck_assert_double_eq_tol(save[0], 0.8175744762, 1e-6);
    ck_assert_double_eq_tol(save[1], 0.4625701547, 1e-6);
    ck_assert_double_eq_tol(save[2], 1.5, 1e-6); /* save = r, z, W_hn h + b_hn, n */
    ck_assert_double_eq_tol(save[3], 0.9584382939, 1e-6);
    ck_assert_double_eq_tol(y, 0.7463784214, 1e-6);
    ck_assert(fabs(y - 0.7500383874) > 1e-3);
}
END_TEST

START_TEST(test_gru_backward_finite_differences) {
    static const int shapes[][5] = {
        /* B, T, C, H, use_h0 */
        {2, 4, 3, 3, 1}, {2, 4, 3, 3, 0}, {3, 3, 1, 2, 1}, {1, 5, 2, 1, 1}, {2, 2, 4, 4, 0},
        /* a full group of four rows plus single rows, and gates wider than one 24-column
         * register block */
        {6, 3, 2, 9, 1}, {5, 2, 3, 8, 0},
        /* more rows than one chunk of the weight gradients' partial sums (16), a tail group */
        {37, 3, 5, 9, 1}, {20, 2, 3, 8, 0},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int *sh = shapes[s];
        gru_case *c = case_new(sh[0], sh[1], sh[2], sh[3], sh[4], 100 + s);
        case_loss(c);
        be->ops->gru_backward(be, c->dx, c->use_h0 ? c->dh0 : NULL, c->dW, c->db, c->work, c->R,
                              c->x, c->use_h0 ? c->h0 : NULL, c->y, c->save, c->W, c->B, c->T,
                              c->C, c->H);
        check_grad("dx", c, c->x, c->dx, (size_t)c->B * c->T * c->C);
        if (c->use_h0) check_grad("dh0", c, c->h0, c->dh0, (size_t)c->B * c->H);
        check_grad("dW", c, c->W, c->dW, gen_gru_weight_floats(c->C, c->H));
        check_grad("db", c, c->b, c->db, gen_gru_bias_floats(c->H));
        case_free(c);
    }
}
END_TEST

START_TEST(test_gru_backward_accumulates_and_skips) {
    /* backward adds into its outputs; NULL dW/db/dx skips those without changing the rest */
    gru_case *c = case_new(2, 3, 2, 3, 1, 7);
    case_loss(c);
    size_t nw = gen_gru_weight_floats(c->C, c->H), nx = (size_t)c->B * c->T * c->C;
    be->ops->gru_backward(be, c->dx, c->dh0, c->dW, c->db, c->work, c->R, c->x, c->h0, c->y,
                          c->save, c->W, c->B, c->T, c->C, c->H);
    float *dx1 = malloc(nx * 4), *dW1 = malloc(nw * 4), *dh1 = malloc((size_t)c->B * c->H * 4);
    memcpy(dx1, c->dx, nx * 4); memcpy(dW1, c->dW, nw * 4);
    memcpy(dh1, c->dh0, (size_t)c->B * c->H * 4);
    be->ops->gru_backward(be, c->dx, c->dh0, c->dW, c->db, c->work, c->R, c->x, c->h0, c->y,
                          c->save, c->W, c->B, c->T, c->C, c->H);
    for (size_t i = 0; i < nw; i++) ck_assert_float_eq_tol(c->dW[i], 2 * dW1[i], 1e-5);
    for (size_t i = 0; i < nx; i++) ck_assert_float_eq_tol(c->dx[i], 2 * dx1[i], 1e-5);
    float *dx2 = calloc(nx, 4), *dh2 = calloc((size_t)c->B * c->H, 4);
    be->ops->gru_backward(be, dx2, dh2, NULL, NULL, c->work, c->R, c->x, c->h0, c->y, c->save,
                          c->W, c->B, c->T, c->C, c->H);
    tu_assert_allclose(dx2, dx1, nx, 1e-6, 1e-6);
    tu_assert_allclose(dh2, dh1, (size_t)c->B * c->H, 1e-6, 1e-6);
    free(dx1); free(dW1); free(dh1); free(dx2); free(dh2);
    case_free(c);
}
END_TEST

/* Same inputs on one thread and on two (and with the batch split into different row groups
 * by B): identical bytes of y, save and every gradient (docs/timegan.md §9). */
START_TEST(test_gru_threads_same_bytes) {
    gen_backend *be2 = NULL;
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 2, &be2), GENESIS_OK);
    gru_case *c = case_new(37, 24, 5, 24, 0, 21);
    size_t ny = (size_t)c->B * c->T * c->H, nx = (size_t)c->B * c->T * c->C;
    size_t nw = gen_gru_weight_floats(c->C, c->H), nb = gen_gru_bias_floats(c->H);
    float *out[2][5];
    gen_backend *bes[2] = {be, be2};
    for (int k = 0; k < 2; k++) {
        memset(c->dx, 0, nx * 4); memset(c->dW, 0, nw * 4); memset(c->db, 0, nb * 4);
        bes[k]->ops->gru_forward(bes[k], c->y, c->save, c->x, NULL, c->W, c->b, c->B, c->T, c->C,
                                 c->H);
        bes[k]->ops->gru_backward(bes[k], c->dx, NULL, c->dW, c->db, c->work, c->R, c->x, NULL,
                                  c->y, c->save, c->W, c->B, c->T, c->C, c->H);
        const float *src[5] = {c->y, c->save, c->dx, c->dW, c->db};
        size_t n[5] = {ny, 4 * ny, nx, nw, nb};
        for (int i = 0; i < 5; i++) {
            out[k][i] = malloc(n[i] * 4);
            memcpy(out[k][i], src[i], n[i] * 4);
        }
        if (k == 1)
            for (int i = 0; i < 5; i++) {
                ck_assert_msg(memcmp(out[0][i], out[1][i], n[i] * 4) == 0,
                              "GRU output %d differs between 1 and 2 threads", i);
                free(out[0][i]);
                free(out[1][i]);
            }
    }
    case_free(c);
    gen_backend_free(be2);
}
END_TEST

START_TEST(test_fast_exp_accuracy) {
    double worst = 0;
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f + 175.0f * (float)i / 200000.0f;
        double ref = exp((double)x), got = gen_cpu_expf(x);
        double rel = fabs(got - ref) / ref;
        if (rel > worst) worst = rel;
    }
    ck_assert_msg(worst < 3e-7, "fast exp: worst relative error %.3g", worst);
}
END_TEST

START_TEST(test_sigmoid_backward) {
    float x[7] = {-5, -1, -0.1f, 0, 0.3f, 2, 8}, out[7], d[7] = {0}, dout[7] = {1, 2, 3, 4, 5, 6, 7};
    be->ops->sigmoid_forward(be, out, x, 7);
    be->ops->sigmoid_backward(be, d, dout, out, 7);
    for (int i = 0; i < 7; i++) {
        double s = 1.0 / (1.0 + exp(-(double)x[i]));
        ck_assert_double_eq_tol(out[i], s, 1e-6);
        ck_assert_double_eq_tol(d[i], dout[i] * s * (1 - s), 1e-6);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("gru_grad");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gru_forward_matches_reset_after_cell);
    tcase_add_test(tc, test_gru_one_step_by_hand);
    tcase_add_test(tc, test_gru_backward_finite_differences);
    tcase_add_test(tc, test_gru_backward_accumulates_and_skips);
    tcase_add_test(tc, test_gru_threads_same_bytes);
    tcase_add_test(tc, test_fast_exp_accuracy);
    tcase_add_test(tc, test_sigmoid_backward);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
