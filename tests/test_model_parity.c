/*
 * test_model_parity.c — whole training steps on the CUDA backend against the CPU reference
 * (llm.c test_gpt2 style): a small CTGAN, TVAE and DDPM are built on each backend from the
 * same host-drawn initial weights (ctgan_init_weights / tvae_init_weights with one seed),
 * trained K steps on the same data with the same noise (Philox streams are shared, host-side
 * sampling uses the same gen_rng), and compared: the losses of every step, and the final
 * parameter blobs by NMSE (< 1e-6 with TF32 off). Two CUDA runs must give the same bits.
 * Both run in every precision (docs/precision.md): fp32, tf32, bf16 and fp16 (with its loss
 * scaling, recorded in the CUDA graph like the rest of the step). Both backends round the
 * same operands the same way, so the only source of difference is still FP32 summation
 * order; but a difference of one FP32 ulp in an operand can move it across a rounding
 * boundary of the 16-bit format, which changes it by up to one unit roundoff u of that
 * format (mp_tol: u = 2^-11 tf32/fp16, 2^-8 bf16). The tolerances scale with u: parameter
 * NMSE < max(1e-6, (4u)^2) (an error of a few u in the updates' direction, relative), losses
 * within 1e-4 + max(1e-3, 16u) relative.
 * A last case goes through the public API on the default device (AUTO picks the GPU) and
 * compares sampled encoded rows with a CPU run of the same seed (CTGAN, TVAE, DDPM; each
 * without and with --epsilon, the DP fits of docs/privacy.md).
 *
 * The data is a synthetic table built in memory (two continuous columns, one bimodal and
 * one integer, and two related categorical columns), fitted and encoded by the real
 * transformer, with the real conditional sampler.
 * Without a GPU the executable exits 77 before anything forks (CTest: skipped); with one it
 * runs in CK_NOFORK mode (docs/style.md §7).
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "ctgan.h"
#include "ddpm.h"
#include "dev_table.h"
#include "sampler.h"
#include "table.h"
#include "test_util.h"
#include "transform.h"
#include "tvae.h"

#define MP_ROWS 240
#define MP_STEPS 5
#define MP_NMSE 1e-6

static const char *const MP_PREC[] = {"fp32", "tf32", "bf16", "fp16"};
/* unit roundoff of the operands' format (precision.h) */
static double mp_u(int prec) {
    return prec == GEN_PREC_BF16 ? GEN_U_BF16
           : prec == GEN_PREC_FP32 ? GEN_U_FP32
                                   : GEN_U_FP16; /* tf32 and fp16: 10 fraction bits */
}
/* the parameter NMSE allowed at a precision: (4u)^2, at least FP32's 1e-6 */
static double mp_nmse_tol(int prec) {
    double t = 16.0 * mp_u(prec) * mp_u(prec);
    return t > MP_NMSE ? t : MP_NMSE;
}
/* relative loss tolerance: 16u, at least FP32's 1e-3 */
static double mp_loss_rtol(int prec) {
    double t = 16.0 * mp_u(prec);
    return t > 1e-3 ? t : 1e-3;
}

static int g_selftest; /* GENESIS_PARITY_SELFTEST=1: CPU against CPU (checks the test itself) */

typedef struct mp_data {
    genesis_ctx *ctx;
    genesis_table *t;
    gen_transformer tf;
    gen_encoded enc;
    gen_cond_sampler s;
    gen_act_span *spans;
} mp_data;

static void mp_col_init(gen_column *c, const char *name, genesis_column_type type, int64_t n) {
    c->name = gen_strdup(name);
    c->type = type;
    c->na_text = gen_strdup("");
    if (type == GENESIS_COLUMN_CONTINUOUS)
        c->num = calloc((size_t)n, sizeof(double));
    else
        c->cat = calloc((size_t)n, sizeof(int32_t));
    ck_assert(c->name && c->na_text && (c->num || c->cat));
}

static void mp_levels(gen_column *c, int n, const char *prefix) {
    c->levels = calloc((size_t)n, sizeof(char *));
    ck_assert(c->levels);
    for (int k = 0; k < n; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s%d", prefix, k);
        c->levels[k] = gen_strdup(buf);
    }
    c->nlevels = n;
}

static genesis_table *mp_table(int64_t n) {
    genesis_table *t = calloc(1, sizeof *t);
    ck_assert(t);
    t->ncols = 4;
    t->nrows = n;
    t->delimiter = ',';
    t->cols = calloc(4, sizeof *t->cols);
    ck_assert(t->cols);
    mp_col_init(&t->cols[0], "x", GENESIS_COLUMN_CONTINUOUS, n);
    mp_col_init(&t->cols[1], "kind", GENESIS_COLUMN_CATEGORICAL, n);
    mp_col_init(&t->cols[2], "count", GENESIS_COLUMN_CONTINUOUS, n);
    mp_col_init(&t->cols[3], "group", GENESIS_COLUMN_CATEGORICAL, n);
    mp_levels(&t->cols[1], 3, "k");
    mp_levels(&t->cols[3], 5, "g");
    t->cols[2].is_integer = 1;
    t->cols[0].decimals = 3;
    gen_rng r;
    gen_rng_init(&r, 2024, 1);
    for (int64_t i = 0; i < n; i++) {
        int kind = (int)gen_rng_below(&r, 3);
        t->cols[1].cat[i] = kind;
        t->cols[3].cat[i] = (int32_t)((kind * 2 + gen_rng_below(&r, 2)) % 5);
        double z = gen_rng_normal(&r);
        t->cols[0].num[i] = kind == 0 ? -3.0 + z : 5.0 + 0.5 * z;
        t->cols[2].num[i] = floor(100.0 * gen_rng_uniform(&r)) + 10 * kind;
    }
    return t;
}

static void mp_data_init(mp_data *d) {
    memset(d, 0, sizeof *d);
    ck_assert_int_eq(genesis_ctx_create(&d->ctx), GENESIS_OK);
    d->t = mp_table(MP_ROWS);
    gen_transform_opts o;
    gen_transform_opts_default(&o);
    o.seed = 3;
    genesis_status st = gen_transformer_fit(d->ctx, &d->tf, d->t, &o);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(d->ctx));
    st = gen_transformer_transform(d->ctx, &d->tf, d->t, &d->enc);
    ck_assert_msg(st == GENESIS_OK, "transform: %s", genesis_errmsg(d->ctx));
    st = gen_cond_sampler_init(d->ctx, &d->s, &d->tf, &d->enc, 1);
    ck_assert_msg(st == GENESIS_OK, "sampler: %s", genesis_errmsg(d->ctx));
    d->spans = gen_model_act_spans(&d->tf);
    ck_assert(d->spans);
}

static void mp_data_free(mp_data *d) {
    free(d->spans);
    gen_cond_sampler_free(&d->s);
    gen_encoded_free(&d->enc);
    gen_transformer_free(&d->tf);
    gen_table_destroy(d->t);
    genesis_ctx_free(d->ctx);
}

static gen_backend *mp_backend(genesis_ctx *ctx, int gpu) {
    gen_backend *be = NULL;
    genesis_status st = gpu && !g_selftest ? gen_backend_cuda_create(ctx, 0, &be)
                                           : gen_backend_cpu_create(ctx, gpu ? 2 : 1, &be);
    ck_assert_msg(st == GENESIS_OK, "backend: %s", genesis_errmsg(ctx));
    return be;
}

static double mp_nmse(const float *a, const float *ref, size_t n, double *maxd) {
    double num = 0, den = 0;
    *maxd = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - ref[i];
        if (!isfinite(d)) return INFINITY;
        num += d * d;
        den += (double)ref[i] * ref[i];
        if (fabs(d) > *maxd) *maxd = fabs(d);
    }
    return den > 0 ? num / den : num;
}

static void mp_check_loss(const char *what, int step, float gpu, float cpu, int prec) {
    double tol = 1e-4 + mp_loss_rtol(prec) * fabs((double)cpu);
    ck_assert_msg(isfinite(gpu) && fabs((double)gpu - cpu) <= tol,
                  "%s at step %d: gpu %.9g, cpu %.9g (tolerance %.3g)", what, step + 1,
                  (double)gpu, (double)cpu, tol);
}

/* ---- CTGAN ---------------------------------------------------------------------------------- */

typedef struct ctgan_run {
    ctgan_step_losses loss[MP_STEPS];
    float *g, *d, *stats;
    size_t gn, dn, sn;
} ctgan_run;

static void run_ctgan(mp_data *d, int gpu, int prec, ctgan_run *out) {
    gen_backend *be = mp_backend(d->ctx, gpu);
    be->precision = prec;
    ctgan_config cfg = {30, 3, 16, 32, 32, d->tf.data_dim, d->s.cond_dim, 1, NULL, 1, prec, 0};
    ctgan *c = NULL;
    genesis_status st = ctgan_create(d->ctx, be, &cfg, d->spans, d->tf.nspans, &c);
    ck_assert_msg(st == GENESIS_OK, "ctgan_create: %s", genesis_errmsg(d->ctx));
    c->gen_lr = c->dis_lr = 2e-4f;
    c->gen_decay = c->dis_decay = 1e-6f;
    ck_assert_int_eq(ctgan_init_weights(c, 42), GENESIS_OK);
    c->seed = 42;
    c->noise_off = 0;
    gen_resident_table table;
    ck_assert_int_eq(gen_resident_table_create(be, &d->tf, &d->enc, &table), GENESIS_OK);
    int32_t *draws = calloc(ctgan_step_scratch(c), sizeof(int32_t));
    ck_assert(draws);
    gen_rng rng;
    gen_rng_init(&rng, 42, GEN_STREAM_SAMPLER);
    for (int k = 0; k < MP_STEPS; k++) { /* one step per "epoch": the losses of each step */
        ctgan_draw_steps(c, &d->s, d->enc.nrows, &rng, 1, draws);
        ctgan_upload_draws(c, draws, 1);
        st = ctgan_train_step(c, &table.t, d->s.n_disc, 0);
        if (st == GENESIS_OK) st = ctgan_epoch_end(c, k + 1, &out->loss[k]);
        ck_assert_msg(st == GENESIS_OK, "%s step %d: %s", be->ops->name, k + 1,
                      genesis_errmsg(d->ctx));
    }
    free(draws);
    gen_resident_table_free(&table);
    out->gn = c->gcount;
    out->dn = c->dcount;
    out->sn = 4 * (size_t)c->gdim;
    out->g = malloc(out->gn * sizeof(float));
    out->d = malloc(out->dn * sizeof(float));
    out->stats = malloc(out->sn * sizeof(float));
    ck_assert(out->g && out->d && out->stats);
    be->ops->download(be, out->g, c->gparams, out->gn * sizeof(float));
    be->ops->download(be, out->d, c->dparams, out->dn * sizeof(float));
    be->ops->download(be, out->stats, c->gstats, out->sn * sizeof(float));
    ctgan_free(c);
    gen_backend_free(be);
}

static void free_ctgan_run(ctgan_run *r) {
    free(r->g);
    free(r->d);
    free(r->stats);
}

START_TEST(test_ctgan_steps) {
    int prec = _i;
    printf("ctgan in %s:\n", MP_PREC[prec]);
    mp_data d;
    mp_data_init(&d);
    ctgan_run cpu, gpu, gpu2;
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    memset(&gpu2, 0, sizeof gpu2);
    run_ctgan(&d, 0, prec, &cpu);
    run_ctgan(&d, 1, prec, &gpu);
    run_ctgan(&d, 1, prec, &gpu2);
    for (int k = 0; k < MP_STEPS; k++) {
        printf("ctgan step %d: loss_d %.7f/%.7f  penalty %.7f/%.7f  loss_g %.7f/%.7f  cond "
               "%.7f/%.7f (gpu/cpu)\n",
               k + 1, gpu.loss[k].loss_d, cpu.loss[k].loss_d, gpu.loss[k].penalty,
               cpu.loss[k].penalty, gpu.loss[k].loss_g, cpu.loss[k].loss_g, gpu.loss[k].cond,
               cpu.loss[k].cond);
    }
    for (int k = 0; k < MP_STEPS; k++) {
        mp_check_loss("CTGAN loss_d", k, gpu.loss[k].loss_d, cpu.loss[k].loss_d, prec);
        mp_check_loss("CTGAN penalty", k, gpu.loss[k].penalty, cpu.loss[k].penalty, prec);
        mp_check_loss("CTGAN loss_g", k, gpu.loss[k].loss_g, cpu.loss[k].loss_g, prec);
        mp_check_loss("CTGAN cond", k, gpu.loss[k].cond, cpu.loss[k].cond, prec);
    }
    double mg, md, ms;
    double ng = mp_nmse(gpu.g, cpu.g, cpu.gn, &mg), nd = mp_nmse(gpu.d, cpu.d, cpu.dn, &md);
    double ns = mp_nmse(gpu.stats, cpu.stats, cpu.sn, &ms);
    double tol = mp_nmse_tol(prec);
    printf("ctgan %s after %d steps: generator nmse %.3e (max|d| %.3e), discriminator nmse %.3e "
           "(max|d| %.3e), bn stats nmse %.3e (max|d| %.3e); tolerance %.3e\n",
           MP_PREC[prec], MP_STEPS, ng, mg, nd, md, ns, ms, tol);
    fflush(stdout);
    ck_assert_msg(ng < tol, "%s generator parameters: nmse %.3e", MP_PREC[prec], ng);
    ck_assert_msg(nd < tol, "%s discriminator parameters: nmse %.3e", MP_PREC[prec], nd);
    ck_assert_msg(ns < tol, "%s batch-norm running statistics: nmse %.3e", MP_PREC[prec], ns);
    if (prec != GEN_PREC_FP32) { /* the precision must show: the CPU's own fp32 run differs */
        ctgan_run ref;
        memset(&ref, 0, sizeof ref);
        run_ctgan(&d, 0, GEN_PREC_FP32, &ref);
        double m1, m2, e1 = mp_nmse(cpu.g, ref.g, ref.gn, &m1), e2 = mp_nmse(cpu.d, ref.d, ref.dn, &m2);
        printf("ctgan %s vs fp32 on the cpu: generator nmse %.3e, discriminator nmse %.3e\n",
               MP_PREC[prec], e1, e2);
        ck_assert_msg(e1 > 0 && e2 > 0, "%s training gave fp32's parameters", MP_PREC[prec]);
        free_ctgan_run(&ref);
    }
    ck_assert_msg(!memcmp(&gpu.loss, &gpu2.loss, sizeof gpu.loss) &&
                      !memcmp(gpu.g, gpu2.g, gpu.gn * 4) && !memcmp(gpu.d, gpu2.d, gpu.dn * 4) &&
                      !memcmp(gpu.stats, gpu2.stats, gpu.sn * 4),
                  "two CUDA runs of CTGAN differ: training is not reproducible");
    free_ctgan_run(&cpu);
    free_ctgan_run(&gpu);
    free_ctgan_run(&gpu2);
    mp_data_free(&d);
}
END_TEST

/* ---- TVAE ------------------------------------------------------------------------------------ */

typedef struct tvae_run {
    float loss[MP_STEPS];
    float *p;
    size_t n;
} tvae_run;

static void run_tvae(mp_data *d, int gpu, int prec, int apm, tvae_run *out) {
    gen_backend *be = mp_backend(d->ctx, gpu);
    be->precision = prec;
    int B = 24, D = d->tf.data_dim;
    tvae_config cfg = {B, D, 8, 32, 2.0f, 1, NULL, prec, apm, 0, 0};
    tvae *t = NULL;
    genesis_status st = tvae_create(d->ctx, be, &cfg, d->spans, d->tf.nspans, &t);
    ck_assert_msg(st == GENESIS_OK, "tvae_create: %s", genesis_errmsg(d->ctx));
    ck_assert(apm ? t->Dr > D : t->Dr == D); /* the bimodal column has several slots */
    t->lr = 1e-3f;
    t->decay = 1e-5f;
    ck_assert_int_eq(tvae_init_weights(t, 7), GENESIS_OK);
    t->seed = 7;
    t->noise_off = 0;
    float *hx = malloc((size_t)B * D * sizeof(float));
    int64_t rows[64];
    ck_assert(hx);
    for (int k = 0; k < MP_STEPS; k++) {
        int nb = k == MP_STEPS - 1 ? 10 : B; /* the last step is a partial batch */
        for (int i = 0; i < nb; i++) rows[i] = ((int64_t)k * B + (int64_t)i * 7) % MP_ROWS;
        gen_encoded_gather(&d->tf, &d->enc, rows, nb, hx, D);
        be->ops->upload(be, t->act.x, hx, (size_t)nb * D * sizeof(float));
        st = tvae_train_step(t, nb, &out->loss[k]);
        ck_assert_msg(st == GENESIS_OK, "%s step %d: %s", be->ops->name, k + 1,
                      genesis_errmsg(d->ctx));
    }
    out->n = t->count;
    out->p = malloc(out->n * sizeof(float));
    ck_assert(out->p);
    be->ops->download(be, out->p, t->params, out->n * sizeof(float));
    free(hx);
    tvae_free(t);
    gen_backend_free(be);
}

START_TEST(test_tvae_steps) {
    int prec = _i < 4 ? _i : GEN_PREC_FP32, apm = _i == 4; /* 4: one alpha per mode */
    printf("tvae in %s%s:\n", MP_PREC[prec], apm ? ", alpha-per-mode 1" : "");
    mp_data d;
    mp_data_init(&d);
    tvae_run cpu, gpu, gpu2;
    run_tvae(&d, 0, prec, apm, &cpu);
    run_tvae(&d, 1, prec, apm, &gpu);
    run_tvae(&d, 1, prec, apm, &gpu2);
    for (int k = 0; k < MP_STEPS; k++)
        printf("tvae step %d: loss %.7f / %.7f (gpu/cpu)\n", k + 1, gpu.loss[k], cpu.loss[k]);
    for (int k = 0; k < MP_STEPS; k++)
        mp_check_loss("TVAE loss", k, gpu.loss[k], cpu.loss[k], prec);
    double mx, n = mp_nmse(gpu.p, cpu.p, cpu.n, &mx), tol = mp_nmse_tol(prec);
    printf("tvae %s after %d steps: parameter nmse %.3e (max|d| %.3e); tolerance %.3e\n",
           MP_PREC[prec], MP_STEPS, n, mx, tol);
    fflush(stdout);
    ck_assert_msg(n < tol, "%s TVAE parameters: nmse %.3e", MP_PREC[prec], n);
    if (prec != GEN_PREC_FP32) { /* the precision must show: the CPU's own fp32 run differs */
        tvae_run ref;
        run_tvae(&d, 0, GEN_PREC_FP32, 0, &ref);
        double m1, e1 = mp_nmse(cpu.p, ref.p, ref.n, &m1);
        printf("tvae %s vs fp32 on the cpu: parameter nmse %.3e\n", MP_PREC[prec], e1);
        ck_assert_msg(e1 > 0, "%s training gave fp32's parameters", MP_PREC[prec]);
        free(ref.p);
    }
    ck_assert_msg(!memcmp(gpu.loss, gpu2.loss, sizeof gpu.loss) &&
                      !memcmp(gpu.p, gpu2.p, gpu.n * sizeof(float)),
                  "two CUDA runs of TVAE differ: training is not reproducible");
    free(cpu.p);
    free(gpu.p);
    free(gpu2.p);
    mp_data_free(&d);
}
END_TEST

/* ---- DDPM: the denoiser, ddpm_loss and AdamW on host-made noisy batches ------------------------ */

typedef struct ddpm_run {
    float loss[MP_STEPS];
    float *p, *ema;
    size_t n;
} ddpm_run;

static void run_ddpm(mp_data *d, int gpu, ddpm_run *out) {
    gen_backend *be = mp_backend(d->ctx, gpu);
    int B = 24, D = d->tf.data_dim;
    ddpm_config cfg = {B, D, 8, 32, 2, 1, 3, 1, 0}; /* class-conditional, with the weights' EMA */
    ddpm *m = NULL;
    genesis_status st = ddpm_create(d->ctx, be, &cfg, d->spans, d->tf.nspans, &m);
    ck_assert_msg(st == GENESIS_OK, "ddpm_create: %s", genesis_errmsg(d->ctx));
    ck_assert_int_eq(ddpm_init_weights(m, 7), GENESIS_OK);
    size_t BD = (size_t)B * D;
    float *x0 = malloc(BD * sizeof(float)), *xt = malloc(BD * sizeof(float)),
          *nz = malloc(BD * sizeof(float)), coef[2 * 24];
    int32_t t[24], y[24];
    int64_t rows[24];
    ck_assert(x0 && xt && nz);
    gen_rng r;
    gen_rng_init(&r, 11, 1); /* the same host draws on both backends */
    for (int k = 0; k < MP_STEPS; k++) {
        for (int i = 0; i < B; i++) rows[i] = ((int64_t)k * B + (int64_t)i * 7) % MP_ROWS;
        gen_encoded_gather(&d->tf, &d->enc, rows, B, x0, D);
        for (int b = 0; b < B; b++) {
            t[b] = (int32_t)gen_rng_below(&r, 1000);
            y[b] = (int32_t)gen_rng_below(&r, 3);
            coef[2 * b] = 0.98f;
            coef[2 * b + 1] = b % 4 ? 0.6f : 1.0f;
            for (int s = 0; s < d->tf.nspans; s++) {
                const gen_act_span *sp = &d->spans[s];
                float *x = xt + (size_t)b * D + sp->start, *e = nz + (size_t)b * D + sp->start;
                int pick = (int)gen_rng_below(&r, (uint64_t)sp->len);
                for (int j = 0; j < sp->len; j++) {
                    e[j] = (float)gen_rng_normal(&r);
                    x[j] = sp->softmax ? (float)(j == pick)
                                       : 0.6f * 4.0f * x0[(size_t)b * D + sp->start + j] + 0.8f * e[j];
                }
            }
        }
        be->ops->upload(be, m->act.x0, x0, BD * sizeof(float));
        be->ops->upload(be, m->act.xt, xt, BD * sizeof(float));
        be->ops->upload(be, m->act.noise, nz, BD * sizeof(float));
        be->ops->upload(be, m->act.coef, coef, sizeof coef);
        be->ops->upload(be, m->t, t, sizeof t);
        be->ops->upload(be, m->y, y, sizeof y);
        out->loss[k] = ddpm_forward_backward(m, B, 1.0f / (float)B, 1000.0f / (4.0f * (float)B), 1);
        ddpm_adamw(m, 2e-3f, 1e-4f);
        ddpm_ema(m, 0.9f);
        ck_assert_msg(gen_backend_status(be) == GENESIS_OK, "%s step %d: %s", be->ops->name, k + 1,
                      genesis_errmsg(d->ctx));
    }
    out->n = m->count;
    out->p = malloc(out->n * sizeof(float));
    ck_assert(out->p);
    be->ops->download(be, out->p, m->params, out->n * sizeof(float));
    out->ema = malloc(out->n * sizeof(float));
    ck_assert(out->ema);
    be->ops->download(be, out->ema, m->ema, out->n * sizeof(float));
    free(x0);
    free(xt);
    free(nz);
    ddpm_free(m);
    gen_backend_free(be);
}

START_TEST(test_ddpm_steps) {
    mp_data d;
    mp_data_init(&d);
    ddpm_run cpu, gpu, gpu2;
    run_ddpm(&d, 0, &cpu);
    run_ddpm(&d, 1, &gpu);
    run_ddpm(&d, 1, &gpu2);
    for (int k = 0; k < MP_STEPS; k++)
        printf("ddpm step %d: loss %.7f / %.7f (gpu/cpu)\n", k + 1, gpu.loss[k], cpu.loss[k]);
    for (int k = 0; k < MP_STEPS; k++) mp_check_loss("DDPM loss", k, gpu.loss[k], cpu.loss[k], GEN_PREC_FP32);
    double mx, n = mp_nmse(gpu.p, cpu.p, cpu.n, &mx);
    printf("ddpm after %d steps: parameter nmse %.3e (max|d| %.3e)\n", MP_STEPS, n, mx);
    fflush(stdout);
    ck_assert_msg(n < MP_NMSE, "DDPM parameters: nmse %.3e", n);
    double ne = mp_nmse(gpu.ema, cpu.ema, cpu.n, &mx);
    ck_assert_msg(ne < MP_NMSE, "DDPM moving average: nmse %.3e", ne);
    ck_assert_msg(!memcmp(gpu.loss, gpu2.loss, sizeof gpu.loss) &&
                      !memcmp(gpu.p, gpu2.p, gpu.n * sizeof(float)),
                  "two CUDA runs of DDPM differ: training is not reproducible");
    free(cpu.p);
    free(gpu.p);
    free(gpu2.p);
    free(cpu.ema);
    free(gpu.ema);
    free(gpu2.ema);
    mp_data_free(&d);
}
END_TEST

/* ---- the public API on the default device ----------------------------------------------------- */

typedef struct enc_sink {
    float *x;
    int64_t cap, n;
    int dim;
} enc_sink;

static int collect(const float *x, int64_t rows, int dim, void *user) {
    enc_sink *s = user;
    s->dim = dim;
    for (int64_t r = 0; r < rows && s->n < s->cap; r++, s->n++)
        memcpy(s->x + (size_t)s->n * dim, x + (size_t)r * dim, (size_t)dim * sizeof(float));
    return 0;
}

/* fit 2 epochs and sample 200 encoded rows; returns the device name used. order2 (DDPM): 7
 * strided steps with the second-order Gaussian step (docs/ddpm.md §5) instead
 * of the whole ancestral chain */
static const char *api_run(genesis_model_kind kind, genesis_device_kind dev, double epsilon,
                           int order2, enc_sink *out) {
    genesis_ctx *ctx;
    ck_assert_int_eq(genesis_ctx_create(&ctx), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_seed(ctx, 11), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_threads(ctx, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_device(ctx, dev, 0), GENESIS_OK);
    genesis_table *t = mp_table(MP_ROWS);
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_create(ctx, kind, &m), GENESIS_OK);
    const char *name = genesis_ctx_device_name(ctx);
    if (kind == GENESIS_MODEL_DDPM) { /* 20 iterations of a 20-step diffusion */
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32), GENESIS_OK);
        if (order2) {
            ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 7), GENESIS_OK);
            ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_ORDER, 2), GENESIS_OK);
        }
    } else {
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPOCHS, 2), GENESIS_OK);
    }
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 60), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EPSILON, epsilon), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit on %s: %s", name, genesis_errmsg(ctx));
    out->n = 0;
    st = genesis_model_sample_encoded(m, out->cap, collect, out);
    ck_assert_msg(st == GENESIS_OK, "sample on %s: %s", name, genesis_errmsg(ctx));
    ck_assert_int_eq(out->n, out->cap);
    genesis_model_free(m);
    gen_table_destroy(t);
    genesis_ctx_free(ctx);
    return name;
}

START_TEST(test_api_default_device) {
    genesis_model_kind kinds[3] = {GENESIS_MODEL_CTGAN, GENESIS_MODEL_TVAE, GENESIS_MODEL_DDPM};
    genesis_model_kind kind = kinds[_i % 3];
    double eps = _i >= 3 && _i < 6 ? 8.0 : 0.0; /* 3..5: the DP fits (docs/privacy.md) */
    int order2 = _i == 8; /* 8: DDPM sampled by the strided second-order sampler */
    enum { N = 200 };
    static float a[N * 512], b[N * 512];
    enc_sink sg = {a, N, 0, 0}, sc = {b, N, 0, 0};
    const char *name = api_run(kind, GENESIS_DEVICE_AUTO, eps, order2, &sg);
    if (!g_selftest) ck_assert_str_eq(name, "cuda:0");
    ck_assert_str_eq(api_run(kind, GENESIS_DEVICE_CPU, eps, order2, &sc), "cpu");
    ck_assert_int_eq(sg.dim, sc.dim);
    ck_assert_int_le(sg.dim, 512);
    double mx, n = mp_nmse(a, b, (size_t)N * sg.dim, &mx);
    printf("%s%s%s through the API: %s vs cpu, sampled encoded rows nmse %.3e (max|d| %.3e)\n",
           genesis_model_kind_name(kind), eps > 0 ? " (DP)" : "",
           order2 ? " (7 steps, second order)" : "", name, n, mx);
    fflush(stdout);
    /* a few training steps and one sampling pass: small drift only (argmax flips allowed; DDPM:
     * a categorical draw that rounding moves across a boundary) */
    ck_assert_msg(n < 1e-2, "sampled rows differ between %s and cpu: nmse %.3e", name, n);
}
END_TEST

int main(void) {
    genesis_device_info dev[4];
    int n = 0;
    char why[256] = "";
    genesis_detect_devices(dev, 4, &n, why, sizeof why);
    const char *self = getenv("GENESIS_PARITY_SELFTEST");
    g_selftest = self && !strcmp(self, "1");
    if (n == 0 && !g_selftest) {
        printf("test_model_parity: skipped: %s\n", why);
        return 77;
    }
    setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    unsetenv("GENESIS_CUDA_TF32");
    printf("test_model_parity: %s\n", n > 0 ? dev[0].name : "CPU self-test");
    Suite *s = suite_create("model_parity");
    TCase *tc = tcase_create("cuda");
    tcase_set_tags(tc, "cuda");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_ctgan_steps, 0, 4); /* fp32, tf32, bf16, fp16 */
    tcase_add_loop_test(tc, test_tvae_steps, 0, 5); /* the four, then fp32 per-mode */
    tcase_add_test(tc, test_ddpm_steps);
    tcase_add_loop_test(tc, test_api_default_device, 0, 6); /* without and with DP */
    tcase_add_loop_test(tc, test_api_default_device, 8, 9); /* DDPM's second-order sampler */
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
