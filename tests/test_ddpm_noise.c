/*
 * test_ddpm_noise.c — the CPU backend's ddpm_noise (DDPM's forward process for a training
 * batch, src/backend/ddpm_noise.h, docs/ddpm.md §6) against its definition:
 *   - the timesteps are uniform on [0, T) (each decile's count within 5 binomial standard
 *     deviations) and the loss's coefficients are the schedule's alpha_t and alpha-bar_{t-1};
 *   - the noise at tanh positions is standard normal (mean and variance within 5 standard
 *     errors) and x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise with x0 scaled in place;
 *   - every softmax span of x_t is a one-hot whose category frequencies match
 *     q = abar_t x0 + (1 - abar_t) / K summed over the rows (within 5 binomial standard
 *     deviations), for a one-hot x0 and for a width-1 span;
 *   - positions outside the spans, and the noise at softmax spans, are not written;
 *   - the bytes do not depend on the thread count, nor on how the rows are cut into calls
 *     (the draws are keyed by each row's running number).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ddpm_noise.h"
#include "test_util.h"
#include "cpu_fixture.h"

#define NB 20000
#define T_STEPS 100
/* the layout: tanh [0, 3), a gap at 3, softmax [4, 9) (K 5), tanh [9, 10), softmax [10, 11) */
static const gen_act_span SPANS[] = {{0, 3, 0}, {4, 5, 1}, {9, 1, 0}, {10, 1, 1}};
#define NSPANS 4
#define W 11
static const float X0_TANH[4] = {0.3f, -0.5f, 0.0f, 0.9f}; /* positions 0, 1, 2 and 9 */
#define HOT 2                                               /* x0's category in [4, 9) */
#define SENT -7.0f

typedef struct batch {
    float x0[NB * W], xt[NB * W], noise[NB * W], coef[2 * NB];
    int32_t t[NB];
} batch;

static double sched[2 * T_STEPS];

static void make_sched(void) {
    double ab = 1;
    gen_ddpm_betas(sched, T_STEPS, 1);
    for (int i = 0; i < T_STEPS; i++) {
        sched[i] = 1.0 - sched[i];
        ab *= sched[i];
        sched[T_STEPS + i] = ab;
    }
}

static void fill(batch *q) {
    for (int b = 0; b < NB; b++) {
        float *x = q->x0 + (size_t)b * W;
        for (int j = 0; j < W; j++) x[j] = 0.0f;
        x[0] = X0_TANH[0], x[1] = X0_TANH[1], x[2] = X0_TANH[2], x[9] = X0_TANH[3];
        x[3] = SENT;
        x[4 + HOT] = 1.0f;
        x[10] = 1.0f;
    }
    for (size_t i = 0; i < (size_t)NB * W; i++) q->xt[i] = q->noise[i] = SENT;
}

static void run(gen_backend *b, batch *q, int lo, int hi) {
    b->ops->ddpm_noise(b, q->x0 + (size_t)lo * W, q->xt + (size_t)lo * W,
                       q->noise + (size_t)lo * W, q->coef + 2 * lo, q->t + lo, sched, T_STEPS,
                       hi - lo, W, SPANS, NSPANS, 1.6f, 5, GEN_STREAM_NOISE + (1u << 8), 0,
                       (uint64_t)lo + 1234);
}

START_TEST(test_distribution) {
    make_sched();
    batch *q = malloc(sizeof *q);
    ck_assert(q);
    fill(q);
    run(be, q, 0, NB);
    /* t uniform; coefficients from the schedule */
    int dec[10] = {0};
    for (int b = 0; b < NB; b++) {
        int t = q->t[b];
        ck_assert(t >= 0 && t < T_STEPS);
        dec[t * 10 / T_STEPS]++;
        ck_assert(q->coef[2 * b] == (float)sched[t]);
        ck_assert(q->coef[2 * b + 1] == (float)(t ? sched[T_STEPS + t - 1] : 1.0));
    }
    double p = 0.1, sd = sqrt(NB * p * (1 - p));
    for (int k = 0; k < 10; k++) ck_assert_msg(fabs(dec[k] - NB * p) < 5 * sd, "decile %d: %d", k, dec[k]);
    /* the Gaussian part */
    static const int tanh_pos[4] = {0, 1, 2, 9};
    double s1 = 0, s2 = 0;
    for (int b = 0; b < NB; b++) {
        double ab = sched[T_STEPS + q->t[b]];
        for (int k = 0; k < 4; k++) {
            size_t i = (size_t)b * W + tanh_pos[k];
            float x0 = X0_TANH[k] * 1.6f;
            ck_assert(q->x0[i] == x0);
            double z = q->noise[i];
            s1 += z;
            s2 += z * z;
            ck_assert(q->xt[i] == (float)(sqrt(ab) * (double)x0 + sqrt(1.0 - ab) * z));
        }
    }
    double n = 4.0 * NB, mean = s1 / n, var = s2 / n - mean * mean;
    ck_assert_msg(fabs(mean) < 5 / sqrt(n), "noise mean %g", mean);
    ck_assert_msg(fabs(var - 1) < 5 * sqrt(2 / n), "noise variance %g", var);
    /* the categorical part: one-hots with q's frequencies */
    double cnt[5] = {0}, want[5] = {0}, vr[5] = {0};
    for (int b = 0; b < NB; b++) {
        const float *x = q->xt + (size_t)b * W;
        double ab = sched[T_STEPS + q->t[b]], ones = 0;
        for (int k = 0; k < 5; k++) {
            ck_assert(x[4 + k] == 0.0f || x[4 + k] == 1.0f);
            ones += x[4 + k];
            cnt[k] += x[4 + k];
            double qk = ab * (k == HOT) + (1 - ab) / 5;
            want[k] += qk;
            vr[k] += qk * (1 - qk);
        }
        ck_assert(ones == 1);
        ck_assert(x[10] == 1.0f); /* a width-1 span: its only category */
        ck_assert(x[3] == SENT && q->noise[(size_t)b * W + 3] == SENT && q->x0[(size_t)b * W + 3] == SENT);
        for (int k = 4; k < 9; k++) ck_assert(q->noise[(size_t)b * W + k] == SENT);
        ck_assert(q->noise[(size_t)b * W + 10] == SENT);
    }
    for (int k = 0; k < 5; k++)
        ck_assert_msg(fabs(cnt[k] - want[k]) < 5 * sqrt(vr[k]), "category %d: %g drawn, %g expected",
                      k, cnt[k], want[k]);
    ck_assert(cnt[HOT] > 2 * cnt[0]); /* x0's category dominates */
    free(q);
}
END_TEST

START_TEST(test_threads_and_calls) {
    make_sched();
    batch *a = malloc(sizeof *a), *c = malloc(sizeof *c), *s = malloc(sizeof *s);
    ck_assert(a && c && s);
    gen_backend *b4 = NULL;
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 4, &b4), GENESIS_OK);
    fill(a);
    fill(c);
    fill(s);
    run(be, a, 0, NB);
    run(b4, c, 0, NB);
    run(be, s, 0, 777); /* the same rows in three calls */
    run(be, s, 777, 778);
    run(be, s, 778, NB);
    ck_assert(memcmp(a, c, sizeof *a) == 0);
    ck_assert(memcmp(a, s, sizeof *a) == 0);
    gen_backend_free(b4);
    free(a);
    free(c);
    free(s);
}
END_TEST

int main(void) {
    Suite *su = suite_create("ddpm_noise");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_distribution);
    tcase_add_test(tc, test_threads_and_calls);
    suite_add_tcase(su, tc);
    return tu_run(su);
}
