/*
 * test_layers_grad.c — the CPU backend checked two ways:
 *   1. the OpenBLAS GEMM fast path against the plain-loop reference, all transposes,
 *      awkward shapes (1, 3, 17, 257);
 *   2. central finite differences for every operation's backward pass (linear, ReLU,
 *      LeakyReLU, dropout, batch norm, tanh and Gumbel-softmax spans, cross entropy, the
 *      gradient-penalty norm), then for whole CTGAN paths: the generator, the discriminator
 *      (weights and input) and the gradient penalty's double backward (docs/algorithms.md §T4.6).
 * A finite difference is trusted only where two step sizes agree (away from the kinks of
 * ReLU / LeakyReLU); each check requires most probed entries to be trusted.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "ctgan.h"
#include "tvae.h"
#include "test_util.h"
#include "cpu_fixture.h"


/* ---- GEMM ------------------------------------------------------------------------------ */

START_TEST(test_gemm_matches_reference) {
    static const int dims[] = {1, 3, 17, 257};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    int M = dims[i], N = dims[j], K = dims[(i + j) % 4];
                    int lda = (ta ? M : K) + 2, ldb = (tb ? K : N) + 1, ldc = N + 3;
                    size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb,
                           nc = (size_t)M * ldc;
                    float *A = malloc(na * 4), *B = malloc(nb * 4), *C1 = malloc(nc * 4),
                          *C2 = malloc(nc * 4);
                    tu_fill_uniform(A, na, -1, 1, 1);
                    tu_fill_uniform(B, nb, -1, 1, 2);
                    tu_fill_uniform(C1, nc, -1, 1, 3);
                    memcpy(C2, C1, nc * 4);
                    be->ops->gemm(be, ta, tb, M, N, K, 0.7f, A, lda, B, ldb, 0.3f, C1, ldc);
                    gen_gemm_reference(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, 0.3f, C2, ldc);
                    tu_assert_allclose(C1, C2, nc, 1e-4, 1e-4);
                    free(A); free(B); free(C1); free(C2);
                }
}
END_TEST

/* ---- single operations ---------------------------------------------------------------------- */

enum { B_ = 6, C_ = 5, OC_ = 4 };

typedef struct op_case {
    float inp[B_ * C_], W[OC_ * C_], bias[OC_], gamma[C_], beta[C_], R[B_ * C_ * 2];
    float out[B_ * C_ * 2], mean[C_], rstd[C_], mask[B_ * C_];
    int which;
} op_case;

static double op_loss(void *u) {
    op_case *c = u;
    size_t n = (size_t)B_ * C_;
    switch (c->which) {
    case 0: be->ops->linear_forward(be, c->out, OC_, c->inp, C_, c->W, c->bias, B_, C_, OC_); n = B_ * OC_; break;
    case 1: be->ops->relu_forward(be, c->out, c->inp, n); break;
    case 2: be->ops->leaky_relu_forward(be, c->out, c->inp, n, 0.2f); break;
    case 3: be->ops->batchnorm_forward(be, c->out, c->mean, c->rstd, c->inp, c->gamma, c->beta, B_, C_, 1e-5f); break;
    case 4: be->ops->dropout_forward(be, c->out, c->mask, c->inp, n, 0.5f, 7, 1, 0); break;
    }
    double l = 0;
    for (size_t i = 0; i < n; i++) l += (double)c->out[i] * c->R[i];
    return l;
}

START_TEST(test_grad_elementwise_and_linear) {
    op_case c;
    tu_fill_uniform(c.inp, B_ * C_, -1, 1, 11);
    tu_fill_uniform(c.W, OC_ * C_, -1, 1, 12);
    tu_fill_uniform(c.bias, OC_, -1, 1, 13);
    tu_fill_uniform(c.gamma, C_, 0.5, 1.5, 14);
    tu_fill_uniform(c.beta, C_, -1, 1, 15);
    tu_fill_uniform(c.R, B_ * C_ * 2, -1, 1, 16);
    size_t n = (size_t)B_ * C_;
    float dinp[B_ * C_], dW[OC_ * C_], db[OC_], dg[C_], dbeta[C_];
    /* linear */
    c.which = 0;
    op_loss(&c);
    memset(dinp, 0, sizeof dinp); memset(dW, 0, sizeof dW); memset(db, 0, sizeof db);
    be->ops->linear_backward(be, dinp, C_, dW, db, c.R, OC_, c.inp, C_, c.W, B_, C_, OC_);
    tu_check_grad("linear.dinp", op_loss, &c, c.inp, dinp, n, 30, 1e-3, 1e-2);
    tu_check_grad("linear.dW", op_loss, &c, c.W, dW, OC_ * C_, 20, 1e-3, 1e-2);
    tu_check_grad("linear.db", op_loss, &c, c.bias, db, OC_, 4, 1e-3, 1e-2);
    /* relu, leaky relu: backward adds into a pre-filled buffer (+= semantics) */
    for (int w = 1; w <= 2; w++) {
        c.which = w;
        op_loss(&c);
        for (size_t i = 0; i < n; i++) dinp[i] = 1.0f;
        if (w == 1) be->ops->relu_backward(be, dinp, c.R, c.out, n);
        else be->ops->leaky_relu_backward(be, dinp, c.R, c.inp, n, 0.2f);
        for (size_t i = 0; i < n; i++) dinp[i] -= 1.0f;
        tu_check_grad(w == 1 ? "relu" : "leaky_relu", op_loss, &c, c.inp, dinp, n, 30, 1e-3, 1e-2);
    }
    /* batch norm (training statistics) */
    c.which = 3;
    op_loss(&c);
    memset(dinp, 0, sizeof dinp); memset(dg, 0, sizeof dg); memset(dbeta, 0, sizeof dbeta);
    be->ops->batchnorm_backward(be, dinp, dg, dbeta, c.R, c.inp, c.mean, c.rstd, c.gamma, B_, C_);
    tu_check_grad("batchnorm.dinp", op_loss, &c, c.inp, dinp, n, 30, 1e-3, 2e-2);
    tu_check_grad("batchnorm.dgamma", op_loss, &c, c.gamma, dg, C_, 5, 1e-3, 1e-2);
    tu_check_grad("batchnorm.dbeta", op_loss, &c, c.beta, dbeta, C_, 5, 1e-3, 1e-2);
    /* dropout: same Philox block -> same mask in every call */
    c.which = 4;
    op_loss(&c);
    memset(dinp, 0, sizeof dinp);
    be->ops->mul_acc(be, dinp, c.R, c.mask, n);
    tu_check_grad("dropout", op_loss, &c, c.inp, dinp, n, 30, 1e-3, 1e-2);
    int kept = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert(c.mask[i] == 0.0f || c.mask[i] == 2.0f);
        kept += c.mask[i] != 0.0f;
    }
    ck_assert(kept > 0 && kept < (int)n);
}
END_TEST

/* Gumbel-softmax / tanh spans and the cross entropy on logits. */
typedef struct act_case {
    float x[4 * 9], out[4 * 9], R[4 * 9];
    gen_act_span spans[3];
    int32_t start[4], len[4], target[4];
    float loss;
    int which;
} act_case;

static double act_loss(void *u) {
    act_case *c = u;
    if (c->which == 0) {
        be->ops->activate_forward(be, c->out, 9, c->x, 9, 4, c->spans, 3, 0.2f, 3, 4, 100, 0);
        double l = 0;
        for (int i = 0; i < 36; i++) l += (double)c->out[i] * c->R[i];
        return l;
    }
    be->ops->cross_entropy_rows(be, &c->loss, NULL, 9, c->x, 9, 4, c->start, c->len, c->target, 0.25f);
    return c->loss;
}

START_TEST(test_grad_activations_and_cross_entropy) {
    act_case c;
    tu_fill_uniform(c.x, 36, -2, 2, 21);
    tu_fill_uniform(c.R, 36, -1, 1, 22);
    c.spans[0] = (gen_act_span){0, 1, 0};
    c.spans[1] = (gen_act_span){1, 5, 1};
    c.spans[2] = (gen_act_span){6, 3, 1};
    float dx[36];
    c.which = 0;
    act_loss(&c);
    for (int b = 0; b < 4; b++) { /* softmax spans sum to one */
        double s = 0;
        for (int j = 1; j < 6; j++) s += c.out[b * 9 + j];
        ck_assert_double_eq_tol(s, 1.0, 1e-5);
    }
    memset(dx, 0, sizeof dx);
    be->ops->activate_backward(be, dx, 9, c.R, 9, c.out, 9, 4, c.spans, 3, 0.2f);
    tu_check_grad("gumbel_softmax+tanh", act_loss, &c, c.x, dx, 36, 36, 1e-3, 2e-2);
    /* cross entropy: rows pick spans 1 or 2, one row skipped (len 0) */
    int32_t st[4] = {1, 6, 1, 0}, ln[4] = {5, 3, 5, 0}, tg[4] = {3, 7, 1, 0};
    memcpy(c.start, st, sizeof st); memcpy(c.len, ln, sizeof ln); memcpy(c.target, tg, sizeof tg);
    c.which = 1;
    memset(dx, 0, sizeof dx);
    be->ops->cross_entropy_rows(be, &c.loss, dx, 9, c.x, 9, 4, c.start, c.len, c.target, 0.25f);
    tu_check_grad("cross_entropy", act_loss, &c, c.x, dx, 36, 36, 1e-4, 1e-2);
    for (int j = 0; j < 9; j++) ck_assert(dx[27 + j] == 0.0f);
}
END_TEST

typedef struct gp_case {
    float G[3 * 7], U[3 * 7], pen;
} gp_case;
static double gp_loss(void *u) {
    gp_case *c = u;
    be->ops->gp_penalty(be, &c->pen, c->U, c->G, 3, 7, 10.0f);
    return c->pen;
}
START_TEST(test_grad_gp_norm) {
    gp_case c;
    tu_fill_uniform(c.G, 21, -1, 1, 31);
    gp_loss(&c);
    float U[21];
    memcpy(U, c.U, sizeof U);
    tu_check_grad("gp_penalty", gp_loss, &c, c.G, U, 21, 21, 1e-3, 1e-2);
}
END_TEST

START_TEST(test_adam_matches_torch_formula) {
    float p[3] = {0.5f, -1.0f, 2.0f}, g[3] = {0.1f, -0.2f, 0.3f}, m[3] = {0}, v[3] = {0};
    double pd[3] = {0.5, -1.0, 2.0}, md[3] = {0}, vd[3] = {0};
    for (int t = 1; t <= 3; t++) {
        be->ops->adam(be, p, g, m, v, 3, 1e-2f, 0.5f, 0.9f, 1e-8f, 1e-3f, t);
        for (int i = 0; i < 3; i++) {
            double gg = g[i] + 1e-3 * pd[i];
            md[i] = 0.5 * md[i] + 0.5 * gg;
            vd[i] = 0.9 * vd[i] + 0.1 * gg * gg;
            double mh = md[i] / (1 - pow(0.5, t)), vh = vd[i] / (1 - pow(0.9, t));
            pd[i] -= 1e-2 * mh / (sqrt(vh) + 1e-8);
        }
    }
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(p[i], pd[i], 1e-6);
}
END_TEST

/* ---- whole CTGAN paths ------------------------------------------------------------------------ */

typedef struct net_case {
    ctgan *c;
    float *R;    /* random projection of the output */
    int which;   /* 0 generator, 1 discriminator on act->real, 2 gradient penalty */
} net_case;

static double net_loss(void *u) {
    net_case *k = u;
    ctgan *c = k->c;
    c->noise_off = 0; /* identical dropout masks in every evaluation */
    double l = 0;
    if (k->which == 0) {
        ctgan_gen_forward(c, 1);
        for (size_t i = 0; i < (size_t)c->B * c->data_dim; i++) l += (double)c->act.gout[i] * k->R[i];
    } else if (k->which == 1) {
        ctgan_dis_forward(c, c->act.real, c->n);
        for (int i = 0; i < c->n; i++) l += (double)c->act.y[i] * k->R[i];
    } else {
        ctgan_dis_forward(c, c->act.xhat, c->n);
        be->ops->zero(be, c->dgrads, c->dcount);
        ctgan_gp_backward(c);
        l = c->act.scal[2];
    }
    return l;
}

static ctgan *small_net(void) {
    gen_act_span spans[4] = {{0, 1, 0}, {1, 3, 1}, {4, 4, 1}, {8, 2, 1}};
    ctgan_config cfg = {20, 5, 4, 8, 8, 10, 6, 1, NULL, 1, 0, 0};
    ctgan *c;
    ck_assert_int_eq(ctgan_create(ctx, be, &cfg, spans, 4, &c), GENESIS_OK);
    ck_assert_int_eq(ctgan_init_weights(c, 5), GENESIS_OK);
    c->seed = 9;
    tu_fill_uniform(c->act.zin, (size_t)c->B * c->d0, -1, 1, 41);
    tu_fill_uniform(c->act.real, (size_t)c->B * c->w, 0, 1, 42);
    tu_fill_uniform(c->act.xhat, (size_t)c->B * c->w, 0, 1, 43);
    return c;
}

/* Sampling's sparse products (ctgan_sampling_weights: z' = [z, one-hot cond], the sums over
 * the inputs' non-zeros in input order) give the dense forward's output up to rounding. */
START_TEST(test_ctgan_sparse_sampling_forward) {
    ctgan *c = small_net();
    ck_assert_int_gt(c->cond_dim, 1);
    for (int b = 0; b < c->B; b++) { /* the condition part one-hot, as sampling writes it */
        float *cond = c->act.zin + (size_t)b * c->d0 + c->emb;
        for (int k = 0; k < c->cond_dim; k++) cond[k] = k == b % c->cond_dim ? 1.0f : 0.0f;
    }
    size_t no = (size_t)c->B * c->data_dim;
    float *dense = malloc(no * sizeof(float));
    ck_assert_ptr_nonnull(dense);
    ctgan_gen_forward(c, 0);
    memcpy(dense, c->act.gout, no * sizeof(float));
    ck_assert_int_eq(ctgan_sampling_weights(c), GENESIS_OK);
    ck_assert_ptr_nonnull(c->gwt); /* the CPU backend has the sparse product */
    c->gwt_on = 1;
    ctgan_gen_forward(c, 0);
    c->gwt_on = 0;
    for (size_t i = 0; i < no; i++)
        ck_assert_msg(fabsf(c->act.gout[i] - dense[i]) <= 1e-5f * (1.0f + fabsf(dense[i])),
                      "output %zu: sparse %g dense %g", i, c->act.gout[i], dense[i]);
    free(dense);
    ctgan_free(c);
}
END_TEST

START_TEST(test_grad_ctgan_generator) {
    net_case k = {small_net(), NULL, 0};
    ctgan *c = k.c;
    size_t no = (size_t)c->B * c->data_dim;
    k.R = malloc(no * sizeof(float));
    tu_fill_uniform(k.R, no, -1, 1, 44);
    net_loss(&k);
    memcpy(c->act.dgout, k.R, no * sizeof(float));
    be->ops->zero(be, c->ggrads, c->gcount);
    ctgan_gen_backward(c);
    size_t gs[CT_G_NT] = {(size_t)c->gdim * c->d0, c->gdim, c->gdim, c->gdim, (size_t)c->gdim * c->d1,
                          c->gdim, c->gdim, c->gdim, (size_t)c->data_dim * c->d2, c->data_dim};
    static const char *names[CT_G_NT] = {"G.W1", "G.b1", "G.bn1.gamma", "G.bn1.beta", "G.W2",
                                          "G.b2", "G.bn2.gamma", "G.bn2.beta", "G.W3", "G.b3"};
    size_t off = 0;
    for (int t = 0; t < CT_G_NT; t++) {
        tu_check_grad(names[t], net_loss, &k, c->gparams + off, c->ggrads + off, gs[t], 12, 2e-3, 3e-2);
        off += gs[t];
    }
    free(k.R);
    ctgan_free(c);
}
END_TEST

START_TEST(test_grad_ctgan_discriminator) {
    net_case k = {small_net(), NULL, 1};
    ctgan *c = k.c;
    k.R = malloc((size_t)c->n * sizeof(float));
    tu_fill_uniform(k.R, (size_t)c->n, -1, 1, 45);
    net_loss(&k);
    float *dx = calloc((size_t)c->B * c->w, sizeof(float));
    be->ops->zero(be, c->dgrads, c->dcount);
    ctgan_dis_backward(c, c->act.real, k.R, dx, 1, c->n);
    size_t ds[CT_D_NT] = {(size_t)c->ddim * c->pacw, c->ddim, (size_t)c->ddim * c->ddim, c->ddim, c->ddim, 1};
    static const char *names[CT_D_NT] = {"D.W1", "D.b1", "D.W2", "D.b2", "D.W3", "D.b3"};
    float *saved = malloc(c->dcount * sizeof(float));
    memcpy(saved, c->dgrads, c->dcount * sizeof(float));
    size_t off = 0;
    for (int t = 0; t < CT_D_NT; t++) {
        tu_check_grad(names[t], net_loss, &k, c->dparams + off, saved + off, ds[t], 12, 1e-3, 3e-2);
        off += ds[t];
    }
    tu_check_grad("D.input", net_loss, &k, c->act.real, dx, (size_t)c->B * c->w, 30, 1e-3, 3e-2);
    free(saved); free(dx); free(k.R);
    ctgan_free(c);
}
END_TEST

START_TEST(test_grad_ctgan_gradient_penalty) {
    net_case k = {small_net(), NULL, 2};
    ctgan *c = k.c;
    net_loss(&k);
    ck_assert(c->act.scal[2] > 0);
    float *g = malloc(c->dcount * sizeof(float));
    memcpy(g, c->dgrads, c->dcount * sizeof(float));
    size_t ds[CT_D_NT] = {(size_t)c->ddim * c->pacw, c->ddim, (size_t)c->ddim * c->ddim, c->ddim, c->ddim, 1};
    static const char *names[CT_D_NT] = {"GP.W1", "GP.b1", "GP.W2", "GP.b2", "GP.W3", "GP.b3"};
    size_t off = 0;
    for (int t = 0; t < CT_D_NT; t++) {
        tu_check_grad(names[t], net_loss, &k, c->dparams + off, g + off, ds[t], 12, 1e-3, 3e-2);
        off += ds[t];
    }
    free(g);
    ctgan_free(c);
}
END_TEST


/* ---- TVAE -------------------------------------------------------------------------------------- */

typedef struct vae_op_case {
    float mu[12], lv[12], eps[12], z[12], std[12], R[12], loss;
    float r[4 * 12], x[4 * 9], sigma[9];
    gen_recon_span spans[5];
    int which, ldr, D, nspans;
} vae_op_case;

static double vae_op_loss(void *u) {
    vae_op_case *c = u;
    double l = 0;
    if (c->which == 0) {
        be->ops->reparam_forward(be, c->z, c->std, c->mu, c->lv, c->eps, 12);
        for (int i = 0; i < 12; i++) l += (double)c->z[i] * c->R[i];
    } else if (c->which == 1) {
        be->ops->kl_normal(be, &c->loss, NULL, NULL, c->mu, c->lv, 12, 0.25f);
        l = c->loss;
    } else {
        be->ops->tvae_recon(be, &c->loss, NULL, NULL, c->r, c->ldr, c->x, c->sigma, 4, c->D,
                            c->spans, c->nspans, 0.5f);
        l = c->loss;
    }
    return l;
}

START_TEST(test_grad_tvae_ops) {
    vae_op_case c;
    tu_fill_uniform(c.mu, 12, -1, 1, 61);
    tu_fill_uniform(c.lv, 12, -1, 1, 62);
    tu_fill_uniform(c.eps, 12, -1, 1, 63);
    tu_fill_uniform(c.R, 12, -1, 1, 64);
    float dmu[12], dlv[12];
    /* reparameterisation */
    c.which = 0;
    vae_op_loss(&c);
    memset(dmu, 0, sizeof dmu); memset(dlv, 0, sizeof dlv);
    be->ops->reparam_backward(be, dmu, dlv, c.R, c.eps, c.std, 12);
    tu_check_grad("reparam.dmu", vae_op_loss, &c, c.mu, dmu, 12, 12, 1e-4, 1e-2);
    tu_check_grad("reparam.dlogvar", vae_op_loss, &c, c.lv, dlv, 12, 12, 1e-4, 1e-2);
    /* KL */
    c.which = 1;
    memset(dmu, 0, sizeof dmu); memset(dlv, 0, sizeof dlv);
    be->ops->kl_normal(be, &c.loss, dmu, dlv, c.mu, c.lv, 12, 0.25f);
    tu_check_grad("kl.dmu", vae_op_loss, &c, c.mu, dmu, 12, 12, 1e-4, 1e-2);
    tu_check_grad("kl.dlogvar", vae_op_loss, &c, c.lv, dlv, 12, 12, 1e-4, 1e-2);
    /* reconstruction: a tanh span, a 3-way and a 2-way softmax span, with learned sigma */
    c.which = 2;
    c.spans[0] = (gen_recon_span){0, 2, 0, 0, 0};
    c.spans[1] = (gen_recon_span){2, 3, 1, 2, 0};
    c.spans[2] = (gen_recon_span){5, 2, 1, 5, 0};
    c.ldr = c.D = 7;
    c.nspans = 3;
    tu_fill_uniform(c.r, 28, -1.5, 1.5, 65);
    tu_fill_uniform(c.x, 28, -0.9, 0.9, 66);
    tu_fill_uniform(c.sigma, 7, 0.2, 0.8, 67);
    float dr[48], ds[9];
    memset(dr, 0, sizeof dr); memset(ds, 0, sizeof ds);
    be->ops->tvae_recon(be, &c.loss, dr, ds, c.r, 7, c.x, c.sigma, 4, 7, c.spans, 3, 0.5f);
    tu_check_grad("recon.dr", vae_op_loss, &c, c.r, dr, 28, 28, 1e-4, 1e-2);
    tu_check_grad("recon.dsigma", vae_op_loss, &c, c.sigma, ds, 2, 2, 1e-4, 1e-2);
    for (int j = 2; j < 7; j++) ck_assert(ds[j] == 0.0f); /* sigma only at tanh positions */
}
END_TEST

/* One alpha per mode (docs/algorithms.md): x = [alpha | 3 slots | alpha | 2 slots | 2 levels]
 * (D 9), r = [3 alphas | 3 logits | 2 alphas | 2 logits | 2 logits] (Dr 12); each row's
 * Gaussian term reads the alpha of its slot, so the other alphas get no gradient. */
START_TEST(test_grad_tvae_recon_per_mode) {
    vae_op_case c;
    memset(&c, 0, sizeof c);
    c.which = 2;
    c.spans[0] = (gen_recon_span){0, 1, 0, 0, 3};
    c.spans[1] = (gen_recon_span){1, 3, 1, 3, 0};
    c.spans[2] = (gen_recon_span){4, 1, 0, 6, 2};
    c.spans[3] = (gen_recon_span){5, 2, 1, 8, 0};
    c.spans[4] = (gen_recon_span){7, 2, 1, 10, 0};
    c.ldr = 12;
    c.D = 9;
    c.nspans = 5;
    tu_fill_uniform(c.r, 48, -1.5, 1.5, 81);
    tu_fill_uniform(c.sigma, 9, 0.2, 0.8, 82);
    /* rows' slots: column 0 -> 2, 0, 1, 2; column 1 -> 1, 1, 0, 1; levels 0, 1, 1, 0 */
    static const int k0[4] = {2, 0, 1, 2}, k1[4] = {1, 1, 0, 1}, lv[4] = {0, 1, 1, 0};
    float alpha[8];
    tu_fill_uniform(alpha, 8, -0.9, 0.9, 83);
    for (int b = 0; b < 4; b++) {
        float *x = c.x + 9 * b;
        x[0] = alpha[2 * b];
        x[1 + k0[b]] = 1.0f;
        x[4] = alpha[2 * b + 1];
        x[5 + k1[b]] = 1.0f;
        x[7 + lv[b]] = 1.0f;
    }
    float dr[48], ds[9];
    memset(dr, 0, sizeof dr); memset(ds, 0, sizeof ds);
    be->ops->tvae_recon(be, &c.loss, dr, ds, c.r, 12, c.x, c.sigma, 4, 9, c.spans, 5, 0.5f);
    tu_check_grad("recon_per_mode.dr", vae_op_loss, &c, c.r, dr, 48, 48, 1e-4, 1e-2);
    tu_check_grad("recon_per_mode.dsigma", vae_op_loss, &c, c.sigma, ds, 9, 9, 1e-4, 1e-2);
    /* an alpha no row's slot selects gets nothing: column 1's alpha 0 is row 2's only */
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < 3; k++)
            ck_assert((dr[12 * b + k] != 0.0f) == (k == k0[b]));
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < 2; k++)
            ck_assert((dr[12 * b + 6 + k] != 0.0f) == (k == k1[b]));
    for (int j = 0; j < 9; j++) ck_assert((ds[j] != 0.0f) == (j == 0 || j == 4));
    /* the same rows in the shared layout, with each row's selected alphas moved to the one
     * alpha position: the same loss (the per-mode layout only routes the terms) */
    vae_op_case p = c;
    p.spans[0] = (gen_recon_span){0, 1, 0, 0, 0};
    p.spans[1] = (gen_recon_span){1, 3, 1, 1, 0};
    p.spans[2] = (gen_recon_span){4, 1, 0, 4, 0};
    p.spans[3] = (gen_recon_span){5, 2, 1, 5, 0};
    p.spans[4] = (gen_recon_span){7, 2, 1, 7, 0};
    p.ldr = 9;
    for (int b = 0; b < 4; b++) {
        const float *rr = c.r + 12 * b;
        float *q = p.r + 9 * b;
        q[0] = rr[k0[b]];
        memcpy(q + 1, rr + 3, 3 * sizeof(float));
        q[4] = rr[6 + k1[b]];
        memcpy(q + 5, rr + 8, 4 * sizeof(float));
    }
    ck_assert_double_eq_tol(vae_op_loss(&p), vae_op_loss(&c), 1e-5 * fabs(vae_op_loss(&c)));
}
END_TEST

static double tvae_loss(void *u);

/* The whole network with one alpha per mode: the decoder is wider (D 9 -> Dr 12 for slots 3
 * and 4) and every parameter's gradient matches finite differences. */
START_TEST(test_grad_tvae_network_per_mode) {
    gen_act_span spans[4] = {{0, 1, 0}, {1, 3, 1}, {4, 1, 0}, {5, 4, 1}};
    tvae_config cfg = {9, 9, 3, 6, 2.0f, 1, NULL, 0, 1, 0, 0};
    tvae *t;
    ck_assert_int_eq(tvae_create(ctx, be, &cfg, spans, 4, &t), GENESIS_OK);
    ck_assert_int_eq(t->Dr, 14);
    ck_assert_int_eq(tvae_out_dim(9, spans, 4, 1), 14);
    ck_assert_int_eq(tvae_out_dim(9, spans, 4, 0), 9);
    ck_assert_int_eq(tvae_init_weights(t, 4), GENESIS_OK);
    /* encoded rows: alpha, then a one-hot slot */
    gen_rng r;
    gen_rng_init(&r, 74, 1);
    memset(t->act.x, 0, 81 * sizeof(float));
    for (int b = 0; b < 9; b++) {
        float *x = t->act.x + 9 * b;
        x[0] = (float)(1.8 * gen_rng_uniform(&r) - 0.9);
        x[1 + gen_rng_below(&r, 3)] = 1.0f;
        x[4] = (float)(1.8 * gen_rng_uniform(&r) - 0.9);
        x[5 + gen_rng_below(&r, 4)] = 1.0f;
    }
    tu_fill_uniform(t->act.eps, 27, -1, 1, 72);
    tu_fill_uniform(t->p.sigma, 9, 0.3f, 0.6f, 73);
    tvae_forward_backward(t, 9, 1);
    float *g = malloc(t->count * sizeof(float));
    memcpy(g, t->grads, t->count * sizeof(float));
    size_t D = 9, Dr = 14, h = 6, e = 3;
    size_t sz[TV_NT] = {h * D, h, h * h, h, e * h, e, e * h, e, h * e, h, h * h, h, Dr * h, Dr, D};
    static const char *names[TV_NT] = {"enc.W1", "enc.b1", "enc.W2", "enc.b2", "mu.W", "mu.b",
                                        "logvar.W", "logvar.b", "dec.W1", "dec.b1", "dec.W2",
                                        "dec.b2", "dec.W3", "dec.b3", "sigma"};
    size_t off = 0, total = 0;
    for (int k = 0; k < TV_NT; k++) total += sz[k];
    ck_assert_uint_eq(total, t->count);
    for (int k = 0; k < TV_NT; k++) {
        int n = k == 12 || k == 13 ? (int)sz[k] : (sz[k] < 12 ? (int)sz[k] : 12);
        tu_check_grad(names[k], tvae_loss, t, t->params + off, g + off, sz[k], n, 2e-3, 3e-2);
        off += sz[k];
    }
    /* the activated decoder rows back to encoded rows: each alpha is its drawn slot's */
    float rr[14] = {0.1f, 0.2f, 0.3f, 0.05f, 0.9f, 0.05f, -0.4f, -0.5f, 0.1f, 0.2f, 0.6f, 0.1f,
                    0.0f, 0.0f};
    float xx[9];
    tvae_to_encoded(t, rr, 1, xx, 9);
    ck_assert(xx[0] == 0.2f && xx[2] == 0.9f && xx[4] == -0.4f && xx[5] == 0.6f && xx[6] == 0.1f);
    free(g);
    tvae_free(t);
}
END_TEST

static double tvae_loss(void *u) { return tvae_forward_backward((tvae *)u, 9, 0); }

START_TEST(test_grad_tvae_network) {
    gen_act_span spans[4] = {{0, 1, 0}, {1, 3, 1}, {4, 1, 0}, {5, 4, 1}};
    tvae_config cfg = {9, 9, 3, 6, 2.0f, 1, NULL, 0, 0, 0, 0};
    tvae *t;
    ck_assert_int_eq(tvae_create(ctx, be, &cfg, spans, 4, &t), GENESIS_OK);
    ck_assert_int_eq(tvae_init_weights(t, 4), GENESIS_OK);
    tu_fill_uniform(t->act.x, 81, -0.9f, 0.9f, 71);
    tu_fill_uniform(t->act.eps, 27, -1, 1, 72);
    tu_fill_uniform(t->p.sigma, 9, 0.3f, 0.6f, 73);
    tvae_forward_backward(t, 9, 1);
    float *g = malloc(t->count * sizeof(float));
    memcpy(g, t->grads, t->count * sizeof(float));
    size_t D = 9, h = 6, e = 3;
    size_t sz[TV_NT] = {h * D, h, h * h, h, e * h, e, e * h, e, h * e, h, h * h, h, D * h, D, D};
    static const char *names[TV_NT] = {"enc.W1", "enc.b1", "enc.W2", "enc.b2", "mu.W", "mu.b",
                                        "logvar.W", "logvar.b", "dec.W1", "dec.b1", "dec.W2",
                                        "dec.b2", "dec.W3", "dec.b3", "sigma"};
    size_t off = 0;
    for (int k = 0; k < TV_NT; k++) {
        tu_check_grad(names[k], tvae_loss, t, t->params + off, g + off, sz[k] < 12 ? sz[k] : 12, 12, 2e-3, 3e-2);
        off += sz[k];
    }
    free(g);
    tvae_free(t);
}
END_TEST

int main(void) {
    Suite *s = suite_create("layers_grad");
    TCase *tc = tcase_create("cpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gemm_matches_reference);
    tcase_add_test(tc, test_grad_elementwise_and_linear);
    tcase_add_test(tc, test_grad_activations_and_cross_entropy);
    tcase_add_test(tc, test_grad_gp_norm);
    tcase_add_test(tc, test_adam_matches_torch_formula);
    tcase_add_test(tc, test_grad_ctgan_generator);
    tcase_add_test(tc, test_ctgan_sparse_sampling_forward);
    tcase_add_test(tc, test_grad_ctgan_discriminator);
    tcase_add_test(tc, test_grad_ctgan_gradient_penalty);
    tcase_add_test(tc, test_grad_tvae_ops);
    tcase_add_test(tc, test_grad_tvae_network);
    tcase_add_test(tc, test_grad_tvae_recon_per_mode);
    tcase_add_test(tc, test_grad_tvae_network_per_mode);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
