/*
 * test_tgloss_grad.c — TimeGAN's loss operations of the backend table (backend.h mse_loss,
 * bce_logits, moments_loss, adam_tf1_gated; docs/timegan.md §4 and §7) on the CPU backend:
 * each gradient against central finite differences of its own loss, and loss and gradient
 * against a direct double-precision transcription of the formulas of docs/algorithms.md §S4
 * (the host code models/timegan.c used before the losses moved into the backend). Also the
 * gated TF1 Adam: a shut gate changes nothing, an open one makes adam's update with eps /
 * sqrt(1 - beta2^k) and counts the step.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "test_util.h"
#include "cpu_fixture.h"

/* ---- the formulas, transcribed ---------------------------------------------------------------- */

static double ref_mse(const float *a, const float *b, int rows, int cols, int ld, float *ga,
                      float *gb, double k) {
    double n = (double)rows * cols, acc = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double e = (double)a[r * ld + c] - b[r * ld + c];
            acc += e * e;
            if (ga) ga[r * ld + c] += (float)(k * 2.0 * e / n);
            if (gb) gb[r * ld + c] -= (float)(k * 2.0 * e / n);
        }
    return acc / n;
}

static double ref_bce(const float *l, int n, float y, float *g, double scale) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double x = l[i], p = 1.0 / (1.0 + exp(-x));
        double lp = -log1p(exp(-x)), lq = lp - x; /* log p, log(1 - p) */
        s += -(y * lp + (1 - y) * lq);
        if (g) g[i] += (float)(scale * (p - y) / n);
    }
    return scale * s / n;
}

static double sgn(double v) { return (v > 0) - (v < 0); }

static double ref_moments(const float *xh, const float *x, int B, int T, int F, float *g,
                          double scale, double *v1o, double *v2o) {
    double v1 = 0, v2 = 0, n = (double)T * F;
    for (int c = 0; c < T * F; c++) {
        double mh = 0, m = 0, vh = 0, v = 0;
        for (int b = 0; b < B; b++) mh += xh[b * T * F + c], m += x[b * T * F + c];
        mh /= B, m /= B;
        for (int b = 0; b < B; b++) {
            vh += (xh[b * T * F + c] - mh) * (xh[b * T * F + c] - mh);
            v += (x[b * T * F + c] - m) * (x[b * T * F + c] - m);
        }
        vh /= B, v /= B;
        double sh = sqrt(vh + 1e-6), sr = sqrt(v + 1e-6);
        v1 += fabs(sh - sr);
        v2 += fabs(mh - m);
        for (int b = 0; b < B && g; b++)
            g[b * T * F + c] += (float)(scale / n * (sgn(sh - sr) * (xh[b * T * F + c] - mh) / (B * sh) +
                                                     sgn(mh - m) / B));
    }
    *v1o = v1 / n;
    *v2o = v2 / n;
    return (v1 + v2) / n;
}

/* ---- finite differences ------------------------------------------------------------------------- */

enum { R_ = 3, C_ = 5, LD_ = 7, N_ = 17, B_ = 6, T_ = 3, F_ = 2 };

typedef struct tl_case {
    int which;                    /* 0 mse, 1 bce, 2 moments */
    float a[R_ * LD_], b[R_ * LD_];
    float scale;
    int root;
    float l[N_], y;
    float xh[B_ * T_ * F_], x[B_ * T_ * F_];
} tl_case;

/* the loss whose gradient the op adds: scale * m (or scale * sqrt(m)); scale * BCE mean;
 * scale * (V1 + V2) */
static double tl_loss(void *u) {
    tl_case *c = u;
    double loss[2] = {0, 0};
    if (c->which == 0) {
        be->ops->mse_loss(be, loss, NULL, NULL, c->a, c->b, R_, C_, LD_, c->scale, c->root);
        return c->root ? c->scale * sqrt(loss[0]) : c->scale * loss[0];
    }
    if (c->which == 1) {
        be->ops->bce_logits(be, loss, NULL, c->l, N_, c->y, c->scale);
        return loss[0];
    }
    be->ops->moments_loss(be, loss, NULL, c->xh, c->x, B_, T_, F_, c->scale);
    return c->scale * (loss[0] + loss[1]);
}

START_TEST(test_mse_loss) {
    for (int root = 0; root < 2; root++) {
        tl_case c;
        memset(&c, 0, sizeof c);
        c.which = 0;
        c.root = root;
        c.scale = root ? 10.0f : 0.1f;
        tu_fill_uniform(c.a, R_ * LD_, 0, 1, 11 + root);
        tu_fill_uniform(c.b, R_ * LD_, 0, 1, 13 + root);
        float da[R_ * LD_], db[R_ * LD_], ra[R_ * LD_], rb[R_ * LD_];
        double loss = -1;
        for (int i = 0; i < R_ * LD_; i++) da[i] = db[i] = ra[i] = rb[i] = 0.25f; /* += */
        be->ops->mse_loss(be, &loss, da, db, c.a, c.b, R_, C_, LD_, c.scale, root);
        double m = ref_mse(c.a, c.b, R_, C_, LD_, NULL, NULL, 0);
        ck_assert_double_eq_tol(loss, m, 1e-12 * m);
        double k = root ? c.scale * 0.5 / sqrt(fmax(loss, 1e-20)) : c.scale;
        ref_mse(c.a, c.b, R_, C_, LD_, ra, rb, k);
        for (int i = 0; i < R_ * LD_; i++) {
            ck_assert_msg(da[i] == ra[i] && db[i] == rb[i], "mse root %d: gradient %d: %g %g vs %g %g",
                          root, i, da[i], db[i], ra[i], rb[i]);
            if (i % LD_ >= C_) ck_assert(da[i] == 0.25f && db[i] == 0.25f); /* padding untouched */
        }
        for (int i = 0; i < R_ * LD_; i++) da[i] -= 0.25f, db[i] -= 0.25f;
        tu_check_grad(root ? "mse(root).da" : "mse.da", tl_loss, &c, c.a, da, R_ * LD_, 21, 1e-4, 1e-2);
        tu_check_grad(root ? "mse(root).db" : "mse.db", tl_loss, &c, c.b, db, R_ * LD_, 21, 1e-4, 1e-2);
    }
    /* nothing to compare (T = 1's supervised loss): 0 and no gradient */
    double loss = 5;
    float a = 1, b = 2, g = 3;
    be->ops->mse_loss(be, &loss, &g, &g, &a, &b, 4, 0, 0, 1.0f, 1);
    ck_assert(loss == 0.0 && g == 3.0f);
}
END_TEST

START_TEST(test_bce_logits) {
    for (int y = 0; y < 2; y++) {
        tl_case c;
        memset(&c, 0, sizeof c);
        c.which = 1;
        c.y = (float)y;
        c.scale = 0.7f;
        tu_fill_uniform(c.l, N_, -4, 4, 31 + y);
        c.l[3] = 40.0f; /* saturated logits stay finite */
        c.l[7] = -40.0f;
        float g[N_], r[N_];
        double loss = -1;
        for (int i = 0; i < N_; i++) g[i] = r[i] = 0.5f;
        be->ops->bce_logits(be, &loss, g, c.l, N_, c.y, c.scale);
        double ref = ref_bce(c.l, N_, c.y, r, c.scale);
        ck_assert_double_eq_tol(loss, ref, 1e-9 * fabs(ref));
        for (int i = 0; i < N_; i++) {
            ck_assert_msg(fabsf(g[i] - r[i]) <= 1e-7f, "bce y %d: gradient %d: %g vs %g", y, i, g[i], r[i]);
            g[i] -= 0.5f;
        }
        tu_check_grad(y ? "bce(1)" : "bce(0)", tl_loss, &c, c.l, g, N_, N_, 1e-4, 1e-2);
    }
}
END_TEST

START_TEST(test_moments_loss) {
    tl_case c;
    memset(&c, 0, sizeof c);
    c.which = 2;
    c.scale = 1.3f;
    int n = B_ * T_ * F_;
    tu_fill_uniform(c.xh, n, 0, 1, 41);
    tu_fill_uniform(c.x, n, 0.2f, 0.8f, 42);
    float g[B_ * T_ * F_], r[B_ * T_ * F_];
    double loss[2] = {-1, -1};
    for (int i = 0; i < n; i++) g[i] = r[i] = -0.125f;
    be->ops->moments_loss(be, loss, g, c.xh, c.x, B_, T_, F_, c.scale);
    double v1, v2;
    ref_moments(c.xh, c.x, B_, T_, F_, r, c.scale, &v1, &v2);
    ck_assert_double_eq_tol(loss[0], v1, 1e-12 * v1);
    ck_assert_double_eq_tol(loss[1], v2, 1e-12 * v2);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(fabsf(g[i] - r[i]) <= 1e-6f * fmaxf(1.0f, fabsf(r[i])),
                      "moments: gradient %d: %g vs %g", i, g[i], r[i]);
        g[i] += 0.125f;
    }
    tu_check_grad("moments.dxh", tl_loss, &c, c.xh, g, n, n, 1e-4, 1e-2);
    /* equal batches: zero loss; sign(0) = 0 gives no gradient */
    float z[B_ * T_ * F_];
    memset(z, 0, sizeof z);
    be->ops->moments_loss(be, loss, z, c.x, c.x, B_, T_, F_, 1.0f);
    ck_assert(loss[0] == 0.0 && loss[1] == 0.0);
    for (int i = 0; i < n; i++) ck_assert(z[i] == 0.0f);
}
END_TEST

START_TEST(test_adam_tf1_gated) {
    enum { n = 9 };
    float p[n], g[n], m[n], v[n], p2[n], m2[n], v2[n];
    tu_fill_uniform(p, n, -1, 1, 51);
    tu_fill_uniform(g, n, -1, 1, 52);
    memset(m, 0, sizeof m);
    memset(v, 0, sizeof v);
    memcpy(p2, p, sizeof p);
    memcpy(m2, m, sizeof m);
    memcpy(v2, v, sizeof v);
    int64_t t = 0;
    double gate[3] = {0.05, 0.05, 0.05}; /* the sum is not > 0.15 + 1e-9: shut */
    be->ops->adam_tf1_gated(be, p, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, &t, gate, 3, 0.15 + 1e-9);
    ck_assert(t == 0 && !memcmp(p, p2, sizeof p) && !memcmp(m, m2, sizeof m));
    gate[1] = NAN; /* a NaN loss keeps it shut */
    be->ops->adam_tf1_gated(be, p, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, &t, gate, 3, 0.15);
    ck_assert(t == 0 && !memcmp(p, p2, sizeof p));
    gate[1] = 0.1; /* 0.05 + 0.1 + 0.05 = 0.2 > 0.15: open */
    for (int k = 1; k <= 3; k++) {
        be->ops->adam_tf1_gated(be, p, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, &t,
                                k == 3 ? NULL : gate, 3, 0.15);
        float eps = (float)(1e-8f / sqrt(1.0 - pow(0.999f, (double)k)));
        be->ops->adam(be, p2, g, m2, v2, n, 1e-3f, 0.9f, 0.999f, eps, 0.0f, k);
        ck_assert_int_eq(t, k);
        ck_assert(!memcmp(p, p2, sizeof p) && !memcmp(m, m2, sizeof m) && !memcmp(v, v2, sizeof v));
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("tgloss_grad");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_mse_loss);
    tcase_add_test(tc, test_bce_logits);
    tcase_add_test(tc, test_moments_loss);
    tcase_add_test(tc, test_adam_tf1_gated);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
