/*
 * test_timegan_grad.c — TimeGAN's five update steps (models/timegan.c, docs/algorithms.md §S4,
 * §S5) checked by central finite differences on tiny networks (B 3, T 4, F 2, H 3, L 2):
 * for E0 (10 sqrt(E_loss_T0) on E, R), the supervised step (G_loss_S on S), the generator
 * step (adversarial + 100 sqrt(G_loss_S) + 100 moments on G, S, through frozen D and R), the
 * embedder step (E_loss0 + 0.1 G_loss_S on E, R, through frozen S, both paths of H) and the
 * discriminator step (on D), every parameter of the updated networks is probed; the others
 * must get exactly zero gradient. Also: the TF1 Adam form, the loss values against a
 * direct transcription of the formulas, and the joint phase's E step reusing the G step's
 * embedding (the same bytes as recomputing it).
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "timegan.h"
#include "test_util.h"
#include "cpu_fixture.h"


enum { B_ = 3, T_ = 4, F_ = 2, H_ = 3, L_ = 2 };

static timegan *tiny(uint64_t seed) {
    timegan_config cfg = {B_, T_, F_, H_, L_, 1e-3f, 1.0f, 1};
    timegan *t = NULL;
    ck_assert_int_eq(timegan_create(ctx, be, &cfg, &t), GENESIS_OK);
    ck_assert_int_eq(timegan_init_weights(t, seed), GENESIS_OK);
    /* spread the weights a little so that gates are not all saturated at init */
    float x[B_ * T_ * F_];
    tu_fill_uniform(x, B_ * T_ * F_, 0, 1, seed + 1);
    memcpy(t->X, x, sizeof x);
    tu_fill_uniform(x, B_ * T_ * F_, 0, 1, seed + 2);
    memcpy(t->Z, x, sizeof x);
    return t;
}

static const char *NET[] = {"E", "R", "G", "S", "D"};

static void check_step(tg_step step, const int *updated, uint64_t seed) {
    timegan *t = tiny(seed);
    tg_losses ls;
    double l0 = timegan_loss(t, step, B_, 1, &ls);
    ck_assert(isfinite(l0));
    float *g = malloc(t->count * sizeof(float));
    memcpy(g, t->grads, t->count * sizeof(float));
    int trusted = 0, probes = 0, bad = 0;
    char msg[256] = "";
    for (int k = 0; k < TG_NNETS; k++) {
        const gen_seq_net *n = &t->net[k];
        for (size_t i = n->off; i < n->off + n->count; i++) {
            if (!updated[k]) {
                ck_assert_msg(g[i] == 0.0f, "step %d: frozen net %s got gradient %g at %zu", step,
                              NET[k], g[i], i - n->off);
                continue;
            }
            float x0 = t->params[i];
            double fd[2];
            float eps[2] = {1e-2f, 5e-3f};
            for (int e = 0; e < 2; e++) {
                t->params[i] = x0 + eps[e];
                double lp = timegan_loss(t, step, B_, 0, &ls);
                t->params[i] = x0 - eps[e];
                double lm = timegan_loss(t, step, B_, 0, &ls);
                t->params[i] = x0;
                fd[e] = (lp - lm) / (2.0 * ((double)(x0 + eps[e]) - (double)x0));
            }
            probes++;
            /* |.| kinks of the moments loss between the two step sizes show as disagreement,
             * and so does rounding: the generator step's loss is ~50 in float, ~3e-6 of
             * noise per evaluation, ~3e-4 in a difference quotient at eps 5e-3, as large as
             * the smallest gradients; such probes are not trusted */
            if (fabs(fd[0] - fd[1]) > 1e-4 + 2e-2 * fabs(fd[1])) continue;
            trusted++;
            double best = (4.0 * fd[1] - fd[0]) / 3.0;
            if (fabs(best - g[i]) > 2e-4 + 1e-2 * fabs(best)) {
                if (!bad)
                    snprintf(msg, sizeof msg, "%s[%zu]: analytic %.6g vs numeric %.6g (%.6g %.6g)",
                             NET[k], i - n->off, g[i], best, fd[0], fd[1]);
                bad++;
            }
        }
    }
    ck_assert_msg(bad == 0, "step %d: %d of %d trusted probes differ; first: %s", step, bad,
                  trusted, msg);
    ck_assert_msg(trusted >= probes * 9 / 10, "step %d: only %d of %d probes were smooth", step,
                  trusted, probes);
    free(g);
    timegan_free(t);
}

START_TEST(test_grad_e0) { check_step(TG_STEP_E0, (int[]){1, 1, 0, 0, 0}, 11); }
END_TEST
START_TEST(test_grad_supervised) { check_step(TG_STEP_SUP, (int[]){0, 0, 0, 1, 0}, 12); }
END_TEST
START_TEST(test_grad_generator) { check_step(TG_STEP_G, (int[]){0, 0, 1, 1, 0}, 13); }
END_TEST
START_TEST(test_grad_embedder) { check_step(TG_STEP_E, (int[]){1, 1, 0, 0, 0}, 14); }
END_TEST
START_TEST(test_grad_discriminator) { check_step(TG_STEP_D, (int[]){0, 0, 0, 0, 1}, 15); }
END_TEST

/* The embedder step's supervised term on its own: E_loss - E_loss0 = 0.1 G_loss_S, whose
 * gradient w.r.t. E flows through the target H[:,1:] and through S's input. It is small next
 * to 10 sqrt(E_loss_T0), so it is checked as the difference of the two steps' gradients
 * against finite differences of the difference of their losses, with a tight tolerance. */
START_TEST(test_grad_embedder_supervised_term) {
    timegan *t = tiny(16);
    tg_losses ls;
    const gen_seq_net *E = &t->net[TG_E];
    float *g = malloc(E->count * sizeof(float));
    timegan_loss(t, TG_STEP_E, B_, 1, &ls);
    memcpy(g, t->grads + E->off, E->count * sizeof(float));
    timegan_loss(t, TG_STEP_E0, B_, 1, &ls);
    double gmax = 0;
    for (size_t i = 0; i < E->count; i++) {
        g[i] -= t->grads[E->off + i];
        gmax = fmax(gmax, fabs(g[i]));
    }
    ck_assert_msg(gmax > 1e-5, "the supervised term's gradient vanishes (%g): the check would be empty", gmax);
    int bad = 0;
    char msg[200] = "";
    for (size_t i = 0; i < E->count; i++) {
        float *p = &t->params[E->off + i], x0 = *p, eps = 1e-2f;
        *p = x0 + eps;
        double lp = timegan_loss(t, TG_STEP_E, B_, 0, &ls) - timegan_loss(t, TG_STEP_E0, B_, 0, &ls);
        *p = x0 - eps;
        double lm = timegan_loss(t, TG_STEP_E, B_, 0, &ls) - timegan_loss(t, TG_STEP_E0, B_, 0, &ls);
        *p = x0;
        double fd = (lp - lm) / (2.0 * ((double)(x0 + eps) - (double)x0));
        if (fabs(fd - g[i]) > 2e-3 * gmax + 2e-2 * fabs(fd)) {
            if (!bad) snprintf(msg, sizeof msg, "E[%zu]: analytic %.6g vs numeric %.6g (largest %.3g)", i, g[i], fd, gmax);
            bad++;
        }
    }
    ck_assert_msg(bad == 0, "0.1 G_loss_S in the E step: %d of %zu entries differ; first: %s", bad,
                  E->count, msg);
    free(g);
    timegan_free(t);
}
END_TEST

/* The loss values against the formulas written out directly from the networks' outputs. */
START_TEST(test_loss_values) {
    timegan *t = tiny(21);
    tg_losses ls;
    timegan_loss(t, TG_STEP_D, B_, 0, &ls);
    /* D on [H; H^; E^]: logits of the three parts */
    const float *y = gen_seq_run_out(&t->net[TG_D], &t->run[TG_D]);
    double d = 0;
    for (int p = 0; p < 3; p++) {
        double s = 0;
        for (int i = 0; i < B_ * T_; i++) {
            double x = y[p * B_ * T_ + i], lab = p == 0;
            double sg = 1.0 / (1.0 + exp(-x));
            s += -(lab * log(sg) + (1 - lab) * log(1 - sg));
        }
        d += s / (B_ * T_);
    }
    ck_assert_double_eq_tol(ls.d, d, 1e-6);
    ck_assert_double_eq_tol(ls.total, d, 1e-6);
    double l = timegan_loss(t, TG_STEP_E0, B_, 0, &ls);
    const float *xt = gen_seq_run_out(&t->net[TG_R], &t->run[TG_R]);
    double m = 0;
    for (int i = 0; i < B_ * T_ * F_; i++) m += (t->X[i] - xt[i]) * (t->X[i] - xt[i]);
    m /= B_ * T_ * F_;
    ck_assert_double_eq_tol(ls.e_t0, m, 1e-7);
    ck_assert_double_eq_tol(l, 10 * sqrt(m), 1e-6);
    timegan_free(t);
}
END_TEST

/* TF1's Adam (lr_t = lr sqrt(1-b2^t)/(1-b1^t), eps outside) reproduced through the backend's
 * torch-form Adam: three steps of timegan_update against the TF formula on the host. */
START_TEST(test_adam_tf1_form) {
    timegan *t = tiny(31);
    size_t off = t->net[TG_D].off, n = t->net[TG_D].count;
    double *p = malloc(n * sizeof(double)), *m = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) p[i] = t->params[off + i];
    tg_losses ls;
    for (int k = 1; k <= 3; k++) {
        timegan_loss(t, TG_STEP_D, B_, 1, &ls);
        float *g = malloc(n * sizeof(float));
        memcpy(g, t->grads + off, n * sizeof(float));
        ck_assert_int_eq(timegan_update(t, TG_STEP_D, B_, &ls), GENESIS_OK);
        double lr_t = 1e-3 * sqrt(1 - pow(0.999, k)) / (1 - pow(0.9, k));
        for (size_t i = 0; i < n; i++) {
            m[i] = 0.9 * m[i] + 0.1 * g[i];
            v[i] = 0.999 * v[i] + 0.001 * (double)g[i] * g[i];
            p[i] -= lr_t * m[i] / (sqrt(v[i]) + 1e-8);
        }
        free(g);
        for (size_t i = 0; i < n; i++) ck_assert_double_eq_tol(t->params[off + i], p[i], 2e-6);
    }
    free(p); free(m); free(v);
    timegan_free(t);
}
END_TEST

/* The joint phase's E step reuses the G step's H = E(X) (timegan_fit_step's reuse_h): two
 * identical models, G step then E step with and without the reuse, end with the same
 * parameter bytes (a G step that touched E or its activations would break this). */
START_TEST(test_e_step_reuses_embedding) {
    timegan *a = tiny(17), *b = tiny(17);
    for (int k = 0; k < 2; k++) {
        timegan_fit_step(a, TG_STEP_G, B_, 0);
        timegan_fit_step(a, TG_STEP_E, B_, 1);
        timegan_fit_step(b, TG_STEP_G, B_, 0);
        timegan_fit_step(b, TG_STEP_E, B_, 0);
    }
    ck_assert_int_eq(timegan_sync(a, 3, 2), GENESIS_OK);
    ck_assert_int_eq(timegan_sync(b, 3, 2), GENESIS_OK);
    ck_assert(memcmp(a->params, b->params, a->count * sizeof(float)) == 0);
    ck_assert(memcmp(a->hled, b->hled, sizeof a->hled) == 0);
    timegan_free(a);
    timegan_free(b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("timegan_grad");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_grad_e0);
    tcase_add_test(tc, test_grad_supervised);
    tcase_add_test(tc, test_grad_generator);
    tcase_add_test(tc, test_grad_embedder);
    tcase_add_test(tc, test_grad_embedder_supervised_term);
    tcase_add_test(tc, test_grad_discriminator);
    tcase_add_test(tc, test_loss_values);
    tcase_add_test(tc, test_adam_tf1_form);
    tcase_add_test(tc, test_e_step_reuses_embedding);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
