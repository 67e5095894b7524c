/*
 * test_ddpm_e2e.c — DDPM (docs/ddpm.md) end to end through the public API on real data
 * (data/adult_sample.csv): quality by genesis_evaluate (SDMetrics' QualityReport) above a
 * threshold and above an untrained model's, strided sampling (sample-steps) against the
 * full ancestral chain, the model-file round trip (a loaded model samples the fitted one's
 * rows), the same seed giving the same model file, a checkpointed fit resumed equal to an
 * uninterrupted one, missing values in a continuous column, the class-conditional denoiser
 * with the weights' moving average (round trip, class shares, resume, what a target may
 * not be), the quantile normalisation (quality, file, API, resume, a damaged map), and what
 * DDPM refuses (conditions, settings of other methods).
 * GENESIS_SLOW_TESTS=0 (the sanitizer run) trains briefly and skips the thresholds.
 */
#include <unistd.h>
#include <zlib.h>

#include "e2e_util.h"
#include "model.h"

static char dir[64];
static const char *tmp(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/genesis_ddpm_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}
static void teardown(void) {
    static const char *names[] = {"s.csv", "a.csv", "b.csv", "m.gen", "m2.gen", "ck.gen",
                                  "full.gen", "res.gen", "missing.csv", "c.gen", "c2.gen",
                                  "cck.gen", "cres.gen", "e.gen", "e1.csv", "e2.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp(names[i]));
    rmdir(dir);
}

static genesis_model *ddpm_model(genesis_ctx *ctx, int iters) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, iters), GENESIS_OK);
    return m;
}

/* a small denoiser (hidden 32, embedding 16) with a 50-step linear or cosine schedule */
static genesis_model *small_model(genesis_ctx *ctx, int iters, int layers, int cosine) {
    genesis_model *m = ddpm_model(ctx, iters);
    genesis_model_set_param(m, GENESIS_P_GEN_DIM, 32);
    genesis_model_set_param(m, GENESIS_P_EMBEDDING_DIM, 16);
    genesis_model_set_param(m, GENESIS_P_NUM_LAYERS, layers);
    genesis_model_set_param(m, GENESIS_P_DIFFUSION_STEPS, 50);
    genesis_model_set_param(m, GENESIS_P_NOISE_SCHEDULE, cosine);
    return m;
}

static genesis_model *fit_ddpm(genesis_ctx *ctx, const genesis_table *t, int iters) {
    genesis_model *m = ddpm_model(ctx, iters);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
    return m;
}

/* a context (one thread, `seed`) and data/adult_sample.csv in *t */
static genesis_ctx *adult_ctx(uint64_t seed, genesis_table **t) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, 1);
    genesis_ctx_set_seed(ctx, seed);
    ck_assert_int_eq(genesis_table_read_csv(ctx, tu_path("data/adult_sample.csv"), NULL, t), GENESIS_OK);
    return ctx;
}

/* genesis_evaluate's overall quality (all pairs) of the rows in the CSV `path` (n rows; -1:
 * any number) against `real`; *shapes (may be NULL): the column shapes */
static double csv_quality(genesis_ctx *ctx, const genesis_table *real, const char *path,
                          int64_t n, double *shapes) {
    genesis_table *syn;
    ck_assert_int_eq(genesis_table_read_csv(ctx, path, NULL, &syn), GENESIS_OK);
    if (n >= 0) ck_assert_int_eq(genesis_table_nrows(syn), n);
    genesis_eval_options o;
    genesis_eval_options_init(&o);
    o.parts = GENESIS_EVAL_PART_QUALITY;
    genesis_eval_result *r;
    ck_assert_msg(genesis_evaluate(ctx, real, syn, &o, &r) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    double q = genesis_eval_result_score(r, GENESIS_EVAL_QUALITY);
    if (shapes) *shapes = genesis_eval_result_score(r, GENESIS_EVAL_COLUMN_SHAPES);
    genesis_eval_result_free(r);
    genesis_table_free(syn);
    return q;
}

/* genesis_evaluate's overall quality (all pairs) of n rows sampled with `steps` */
static double quality(genesis_ctx *ctx, genesis_model *m, const genesis_table *real, int64_t n,
                      int steps, double *shapes) {
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, steps), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m, n, tmp("s.csv")), GENESIS_OK);
    return csv_quality(ctx, real, tmp("s.csv"), n, shapes);
}

START_TEST(test_ddpm_quality_on_adult_sample) {
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 5);
    genesis_table *t;
    text_table real, syn;
    read_real(ctx, tu_path("data/adult_sample.csv"), &real, &t);
    int iters = slow_tests() ? 1500 : 20;
    /* without the thresholds (GENESIS_SLOW_TESTS=0) fewer rows run the same code */
    int64_t n = slow_tests() ? 2000 : 400, nfull = slow_tests() ? 256 : 64;
    genesis_model *m = fit_ddpm(ctx, t, iters), *m0 = fit_ddpm(ctx, t, 1);
    double s100, s20, s_full, s0;
    double q100 = quality(ctx, m, t, n, 100, &s100);
    double q20 = quality(ctx, m, t, n, 20, &s20);
    double q0 = quality(ctx, m0, t, n, 100, &s0);
    /* the full ancestral chain (T = 1000 denoiser calls): one batch of rows */
    double qfull = quality(ctx, m, t, nfull, 0, &s_full);
    /* the same rows as text through the row callback: a strongly related pair */
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 100), GENESIS_OK);
    memset(&syn, 0, sizeof syn);
    ck_assert_int_eq(genesis_model_sample(m, n, collect, &syn), GENESIS_OK);
    double shapes_text = column_shapes(&real, &syn, t);
    double pair = tv_complement(&real, &syn, col_index(t, "relationship"), col_index(t, "sex"));
    fprintf(stderr, "DDPM adult_sample %d iterations: quality %.3f (shapes %.3f) with 100 steps, "
                    "%.3f (%.3f) with 20 steps, %.3f (%.3f) ancestral on %d rows; untrained %.3f (%.3f); "
                    "callback rows: shapes %.3f, relationship x sex %.3f\n",
            iters, q100, s100, q20, s20, qfull, s_full, (int)nfull, q0, s0, shapes_text, pair);
    if (slow_tests()) {
        ck_assert_msg(q100 >= 0.90, "quality %.3f below 0.90", q100);
        ck_assert_msg(q20 >= 0.88, "quality with 20 steps %.3f below 0.88", q20);
        ck_assert_msg(s_full >= 0.85, "column shapes of the ancestral chain %.3f below 0.85", s_full);
        ck_assert_msg(q100 > q0 + 0.05, "training did not help (%.3f vs untrained %.3f)", q100, q0);
        ck_assert_msg(pair >= 0.75, "relationship x sex %.3f below 0.75", pair);
    }
    text_table_free(&real);
    text_table_free(&syn);
    genesis_model_free(m);
    genesis_model_free(m0);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* A sampling setting p = value on the model in m.gen (whose first call with 7 strided steps
 * wrote a.csv), sampled with 7 steps: `bad` is refused, the rows differ from a.csv, and a
 * save and load keep the value and give the same first call's rows. Returns the loaded
 * copy (the caller frees it). */
static genesis_model *sampler_setting_kept(genesis_ctx *ctx, genesis_param p, double value,
                                           double bad) {
    genesis_model *m1, *m2;
    double v;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &m1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m1, GENESIS_P_SAMPLE_STEPS, 7), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m1, p, value), GENESIS_OK);
    ck_assert_int_ne(genesis_model_set_param(m1, p, bad), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m1, 300, tmp("e1.csv")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m1, tmp("e.gen")), GENESIS_OK);
    genesis_model_free(m1);
    ck_assert_int_eq(genesis_model_load(ctx, tmp("e.gen"), &m2), GENESIS_OK);
    genesis_model_get_param(m2, p, &v);
    ck_assert_double_eq(v, value);
    ck_assert_int_eq(genesis_model_sample_csv(m2, 300, tmp("e2.csv")), GENESIS_OK);
    tu_assert_same_files(tmp("e1.csv"), tmp("e2.csv"));
    size_t na, ne;
    unsigned char *pa = tu_read_file(tmp("a.csv"), &na), *pe = tu_read_file(tmp("e1.csv"), &ne);
    ck_assert_msg(na != ne || memcmp(pa, pe, na) != 0, "setting %d = %g sampled the 7 DDIM steps' rows",
                  (int)p, value);
    free(pa);
    free(pe);
    return m2;
}

START_TEST(test_ddpm_files_and_determinism) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(8, &t);
    genesis_model *m = small_model(ctx, 30, 3, 0);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m, tmp("m.gen")), GENESIS_OK);
    /* the fitted model's first sampling call = the loaded model's first call */
    ck_assert_int_eq(genesis_model_sample_csv(m, 300, tmp("a.csv")), GENESIS_OK);
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &l), GENESIS_OK);
    ck_assert_int_eq(genesis_model_get_kind(l), GENESIS_MODEL_DDPM);
    double v;
    genesis_model_get_param(l, GENESIS_P_NUM_LAYERS, &v);
    ck_assert_double_eq(v, 3);
    genesis_model_get_param(l, GENESIS_P_DIFFUSION_STEPS, &v);
    ck_assert_double_eq(v, 50);
    ck_assert_int_eq(genesis_model_sample_csv(l, 300, tmp("b.csv")), GENESIS_OK);
    tu_assert_same_files(tmp("a.csv"), tmp("b.csv"));
    /* strided sampling on the loaded model, then a setting it may not change */
    ck_assert_int_eq(genesis_model_set_param(l, GENESIS_P_SAMPLE_STEPS, 7), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(l, 300, tmp("b.csv")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(l, GENESIS_P_DIFFUSION_STEPS, 10), GENESIS_ERR_STATE);
    /* conditions need a conditional vector */
    ck_assert_int_eq(genesis_model_set_condition(l, "sex", " Male"), GENESIS_ERR_UNSUPPORTED);
    genesis_model_free(l);
    /* the first call of the loaded model with 7 strided DDIM steps (a.csv), then DDIM noise
     * (ddim-eta, a sampling setting) on the same steps, refused outside [0, 1] */
    genesis_model *e0;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &e0), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(e0, GENESIS_P_SAMPLE_STEPS, 7), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(e0, 300, tmp("a.csv")), GENESIS_OK);
    genesis_model_free(e0);
    genesis_model_free(sampler_setting_kept(ctx, GENESIS_P_DDIM_ETA, 0.5, 1.5));
    /* the sampler's order (a sampling setting, docs/ddpm.md §5): a file without it loads as
     * 1; the second-order step keeps the checks above; set back to 1, the model writes the
     * file it was loaded from, byte for byte (no sampler record: older versions read it) */
    genesis_model *q0, *q2;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &q0), GENESIS_OK);
    genesis_model_get_param(q0, GENESIS_P_SAMPLE_ORDER, &v);
    ck_assert_double_eq(v, 1);
    genesis_model_free(q0);
    q2 = sampler_setting_kept(ctx, GENESIS_P_SAMPLE_ORDER, 2, 3);
    ck_assert_int_eq(genesis_model_set_param(q2, GENESIS_P_SAMPLE_ORDER, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(q2, GENESIS_P_SAMPLE_STEPS, 100), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(q2, tmp("e.gen")), GENESIS_OK);
    tu_assert_same_files(tmp("m.gen"), tmp("e.gen"));
    genesis_model_free(q2);
    /* the same seed: the same model file */
    genesis_model *m2 = small_model(ctx, 30, 3, 0);
    ck_assert_int_eq(genesis_model_fit(m2, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m2, tmp("m2.gen")), GENESIS_OK);
    tu_assert_same_files(tmp("m.gen"), tmp("m2.gen"));
    /* a truncated file is refused with a message */
    size_t n;
    unsigned char *p = tu_read_file(tmp("m.gen"), &n);
    FILE *f = fopen(tmp("m2.gen"), "wb");
    fwrite(p, 1, n - 100, f);
    fclose(f);
    free(p);
    genesis_model *bad = NULL;
    ck_assert_int_ne(genesis_model_load(ctx, tmp("m2.gen"), &bad), GENESIS_OK);
    ck_assert_ptr_null(bad);
    genesis_model_free(m);
    genesis_model_free(m2);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* The rows a sampling call writes do not depend on the group its chains run on (diffusion.h:
 * every draw is indexed by the row's place in the call): the training batch (64, the CPU's
 * group) against groups of 100 rows (GENESIS_DDPM_SAMPLE_ROWS, a GPU-like group with its own
 * network sharing the weights), both from a freshly loaded model. The denoiser's products run
 * over different row counts, so a value may differ in its last bits: nearly every cell of the
 * CSV must be equal, not every byte. */
START_TEST(test_ddpm_rows_independent_of_group) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(5, &t);
    genesis_model *m = small_model(ctx, 40, 2, 1);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 64);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m, tmp("m.gen")), GENESIS_OK);
    char out[2][256]; /* tmp() reuses its buffers */
    snprintf(out[0], sizeof out[0], "%s", tmp("a.csv"));
    snprintf(out[1], sizeof out[1], "%s", tmp("b.csv"));
    for (int k = 0; k < 2; k++) {
        if (k) setenv("GENESIS_DDPM_SAMPLE_ROWS", "100", 1);
        genesis_model *l;
        ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &l), GENESIS_OK);
        genesis_sampler *probe;
        ck_assert_int_eq(genesis_sampler_create(l, 300, 0, &probe), GENESIS_OK);
        ck_assert_int_eq(genesis_sampler_batch_rows(probe) % (k ? 100 : 64), 0);
        genesis_sampler_free(probe);
        ck_assert_int_eq(genesis_model_sample_csv(l, 300, out[k]), GENESIS_OK);
        genesis_model_free(l);
    }
    unsetenv("GENESIS_DDPM_SAMPLE_ROWS");
    size_t na, nb;
    char *a = tu_read_file(out[0], &na), *b = tu_read_file(out[1], &nb);
    long cells = 0, same = 0;
    char *sa = NULL, *sb = NULL;
    for (char *ca = strtok_r(a, ",\n", &sa), *cb = strtok_r(b, ",\n", &sb); ca && cb;
         ca = strtok_r(NULL, ",\n", &sa), cb = strtok_r(NULL, ",\n", &sb)) {
        cells++;
        same += strcmp(ca, cb) == 0;
    }
    printf("ddpm rows by group 64 vs 100: %ld of %ld cells equal\n", same, cells);
    ck_assert_int_ge(cells, 301 * 15);
    ck_assert_msg(same >= cells * 99 / 100, "only %ld of %ld cells equal", same, cells);
    free(a);
    free(b);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

static int stop_at(const genesis_progress *p, void *user) { return p->step == *(int *)user; }

/* the checkpoint `ck` loaded, fitted to the end (with `target`, NULL: none) and saved as `res`:
 * the same bytes as the uninterrupted fit's model file `full`; returns the resumed model */
static genesis_model *resume_to_end(genesis_ctx *ctx, const genesis_table *t, const char *ck,
                                    const char *target, const char *full, const char *res) {
    char fpath[256];
    snprintf(fpath, sizeof fpath, "%s", tmp(full)); /* tmp() reuses its buffers */
    genesis_model *m = NULL;
    ck_assert_int_eq(genesis_model_load_checkpoint(ctx, tmp(ck), &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_checkpoint(m, NULL, 0, 0), GENESIS_OK);
    if (target) ck_assert_int_eq(genesis_model_set_target(m, target), GENESIS_OK);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_save(m, tmp(res)), GENESIS_OK);
    tu_assert_same_files(fpath, tmp(res));
    return m;
}

START_TEST(test_ddpm_resume_equals_uninterrupted) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(21, &t);
    genesis_model *full = ddpm_model(ctx, 40);
    genesis_model_set_param(full, GENESIS_P_GEN_DIM, 32);
    genesis_model_set_param(full, GENESIS_P_BATCH_SIZE, 600); /* epochs of 3 batches */
    ck_assert_int_eq(genesis_model_fit(full, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(full, tmp("full.gen")), GENESIS_OK);
    genesis_model *part = ddpm_model(ctx, 40);
    genesis_model_set_param(part, GENESIS_P_GEN_DIM, 32);
    genesis_model_set_param(part, GENESIS_P_BATCH_SIZE, 600);
    ck_assert_int_eq(genesis_model_set_checkpoint(part, tmp("ck.gen"), 0, 0), GENESIS_OK);
    int at = 17;
    ck_assert_int_eq(genesis_model_fit(part, t, stop_at, &at), GENESIS_ERR_STOPPED);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "iteration 17 of 40"));
    genesis_model_free(part);
    genesis_model *res = resume_to_end(ctx, t, "ck.gen", NULL, "full.gen", "res.gen");
    float *sf = NULL, *sr = NULL;
    size_t nf, nr;
    ck_assert_int_eq(gen_model_state(full, &sf, &nf, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(gen_model_state(res, &sr, &nr, NULL, NULL), GENESIS_OK);
    ck_assert_uint_eq(nf, nr);
    ck_assert_msg(memcmp(sf, sr, nf * sizeof(float)) == 0, "resumed AdamW state differs");
    free(sf);
    free(sr);
    genesis_model_free(full);
    genesis_model_free(res);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

START_TEST(test_ddpm_missing_values) {
    FILE *f = fopen(tmp("missing.csv"), "w");
    fprintf(f, "x,y,g\n");
    gen_rng r;
    gen_rng_init(&r, 2, 1);
    int nmiss = 0;
    for (int i = 0; i < 1000; i++) {
        int grp = (int)gen_rng_below(&r, 3);
        double x = grp * 10 + gen_rng_normal(&r);
        if (gen_rng_uniform(&r) < 0.25) { fprintf(f, ",%.3f,g%d\n", -x, grp); nmiss++; }
        else fprintf(f, "%.3f,%.3f,g%d\n", x, -x, grp);
    }
    fclose(f);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, tmp("missing.csv"), NULL, &t), GENESIS_OK);
    genesis_model *m = ddpm_model(ctx, slow_tests() ? 800 : 5);
    genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 50);
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    text_table syn;
    memset(&syn, 0, sizeof syn);
    ck_assert_int_eq(genesis_model_sample(m, 1500, collect, &syn), GENESIS_OK);
    ck_assert_int_eq(syn.nrows, 1500);
    int miss = 0;
    for (int64_t i = 0; i < syn.nrows; i++) miss += syn.cells[i * syn.ncols][0] == 0;
    fprintf(stderr, "DDPM missing x: real %.3f, synthetic %.3f\n", nmiss / 1000.0, miss / 1500.0);
    ck_assert_msg(miss > 0 && miss < 1500, "missing values not reproduced (%d of 1500)", miss);
    if (slow_tests()) ck_assert_msg(fabs(miss / 1500.0 - nmiss / 1000.0) < 0.08, "missing share off");
    text_table_free(&syn);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* a small class-conditional DDPM on income with the weights' moving average */
static genesis_model *cond_model(genesis_ctx *ctx, int iters, double ema) {
    genesis_model *m = small_model(ctx, iters, 2, 1);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 600);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_EMA_DECAY, ema), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_target(m, "income"), GENESIS_OK);
    return m;
}

/* the share of the rows of a CSV that hold `value` (in any field) */
static double share_of(const char *path, const char *value) {
    size_t n;
    char *p = tu_read_file(path, &n);
    p[n] = 0;
    int rows = 0, hits = 0;
    char *save = NULL;
    strtok_r(p, "\n", &save); /* header */
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        rows++;
        hits += strstr(line, value) != NULL;
    }
    free(p);
    return rows ? (double)hits / rows : 0;
}

START_TEST(test_ddpm_target_and_ema) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(4, &t);
    /* round trip: the loaded model keeps the target, its class shares and the averaged weights */
    genesis_model *m = cond_model(ctx, 40, 0.95);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_set_target(m, "sex"), GENESIS_ERR_STATE);
    ck_assert_int_eq(genesis_model_save(m, tmp("c.gen")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m, 2000, tmp("a.csv")), GENESIS_OK);
    genesis_model *l;
    ck_assert_msg(genesis_model_load(ctx, tmp("c.gen"), &l) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    double v;
    genesis_model_get_param(l, GENESIS_P_EMA_DECAY, &v);
    ck_assert_double_eq_tol(v, 0.95, 1e-12);
    ck_assert_int_eq(genesis_model_sample_csv(l, 2000, tmp("b.csv")), GENESIS_OK);
    tu_assert_same_files(tmp("a.csv"), tmp("b.csv"));
    /* classes are drawn from their training shares (24.95% >50K), whatever the training */
    double real = share_of(tu_path("data/adult_sample.csv"), ">50K");
    double syn = share_of(tmp("a.csv"), ">50K");
    fprintf(stderr, "DDPM class-conditional: >50K real %.4f, synthetic %.4f\n", real, syn);
    ck_assert_msg(real > 0.2 && fabs(syn - real) < 0.03, ">50K share %.4f vs real %.4f", syn, real);
    /* conditions stay refused (no conditional vector) */
    ck_assert_int_eq(genesis_model_set_condition(l, "income", " >50K"), GENESIS_ERR_UNSUPPORTED);
    genesis_model_free(l);
    /* the moving average is what samples: without it, other weights */
    genesis_model *m0 = cond_model(ctx, 40, 0);
    ck_assert_int_eq(genesis_model_fit(m0, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(m0, tmp("c2.gen")), GENESIS_OK);
    size_t n1, n2;
    unsigned char *p1 = tu_read_file(tmp("c.gen"), &n1), *p2 = tu_read_file(tmp("c2.gen"), &n2);
    ck_assert(n1 == n2 && memcmp(p1, p2, n1) != 0);
    free(p1);
    free(p2);
    genesis_model_free(m0);
    /* a checkpointed fit resumes to the same model (the average and target in its state) */
    genesis_model *part = cond_model(ctx, 40, 0.95);
    ck_assert_int_eq(genesis_model_set_checkpoint(part, tmp("cck.gen"), 0, 0), GENESIS_OK);
    int at = 13;
    ck_assert_int_eq(genesis_model_fit(part, t, stop_at, &at), GENESIS_ERR_STOPPED);
    genesis_model_free(part);
    genesis_model_free(resume_to_end(ctx, t, "cck.gen", "income", "c.gen", "cres.gen"));
    genesis_model_free(m);
    /* what a target may not be */
    genesis_model *bad = cond_model(ctx, 2, 0);
    ck_assert_int_eq(genesis_model_set_target(bad, "age"), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(bad, t, NULL, NULL), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "'age' is continuous"));
    genesis_model_free(bad);
    bad = cond_model(ctx, 2, 0);
    ck_assert_int_eq(genesis_model_set_target(bad, "no such column"), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(bad, t, NULL, NULL), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "'no such column'"));
    genesis_model_free(bad);
    genesis_model *tv;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TVAE, &tv), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_target(tv, "income"), GENESIS_ERR_UNSUPPORTED);
    genesis_model_free(tv);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* Classifier-free guidance (docs/ddpm.md §3b): a class-conditional model fitted with hidden
 * labels samples with guidance; a guided call is deterministic (a loaded model's first call
 * twice), differs from the unguided one and keeps a quality far above an untrained model's
 * (guidance trades some fidelity for rows that follow their class: docs/ddpm.md); guidance
 * without label dropout, and label dropout without a target, are refused. */
START_TEST(test_ddpm_guidance) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(6, &t);
    genesis_model *m = cond_model(ctx, 400, 0);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_LABEL_DROPOUT, 0.2), GENESIS_OK);
    ck_assert_msg(genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_save(m, tmp("c.gen")), GENESIS_OK);
    char out[3][256]; /* tmp() reuses its buffers */
    snprintf(out[0], sizeof out[0], "%s", tmp("s.csv"));
    snprintf(out[1], sizeof out[1], "%s", tmp("a.csv"));
    snprintf(out[2], sizeof out[2], "%s", tmp("b.csv"));
    const double w[3] = {0, 1, 1};
    for (int k = 0; k < 3; k++) {
        genesis_model *l;
        ck_assert_int_eq(genesis_model_load(ctx, tmp("c.gen"), &l), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(l, GENESIS_P_SAMPLE_STEPS, 20), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(l, GENESIS_P_GUIDANCE, w[k]), GENESIS_OK);
        ck_assert_msg(genesis_model_sample_csv(l, 2000, out[k]) == GENESIS_OK, "%s",
                      genesis_errmsg(ctx));
        genesis_model_free(l);
    }
    tu_assert_same_files(out[1], out[2]);
    size_t n0, n1;
    unsigned char *p0 = tu_read_file(out[0], &n0), *p1 = tu_read_file(out[1], &n1);
    ck_assert(n0 != n1 || memcmp(p0, p1, n0) != 0);
    free(p0);
    free(p1);
    double q0 = csv_quality(ctx, t, out[0], -1, NULL), q2 = csv_quality(ctx, t, out[1], -1, NULL);
    fprintf(stderr, "DDPM guidance on income: quality %.3f unguided, %.3f with w = 1\n", q0, q2);
    ck_assert_msg(q2 > 0.80, "guided quality %.3f (unguided %.3f)", q2, q0);
    /* guidance needs the hidden-label training; label dropout needs a target */
    genesis_model *plain = cond_model(ctx, 20, 0);
    ck_assert_int_eq(genesis_model_fit(plain, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(plain, GENESIS_P_GUIDANCE, 1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(plain, 100, tmp("s.csv")), GENESIS_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "label-dropout"));
    genesis_model_free(plain);
    genesis_model *notarget = ddpm_model(ctx, 20);
    ck_assert_int_eq(genesis_model_set_param(notarget, GENESIS_P_LABEL_DROPOUT, 0.1), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(notarget, t, NULL, NULL), GENESIS_ERR_INVALID_ARG);
    genesis_model_free(notarget);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

/* the u32 format version of a model file */
static unsigned file_version(const char *path) {
    size_t n;
    unsigned char *p = tu_read_file(path, &n);
    ck_assert(n > 12);
    unsigned v = p[8] | p[9] << 8 | p[10] << 16 | (unsigned)p[11] << 24;
    free(p);
    return v;
}

/* Quantile normalisation (TabDDPM's preprocessing, DDPM's default): quality on adult_sample
 * above a threshold and the modes' model's, the map in the model file (format version 5, only when used), the
 * API reading it, a loaded model sampling the fitted one's rows, a resumed checkpoint equal to
 * the uninterrupted fit, a damaged map refused, and the setting refused for other methods. */
START_TEST(test_ddpm_quantile) {
    genesis_table *t;
    genesis_ctx *ctx = adult_ctx(12, &t);
    int iters = slow_tests() ? 1500 : 20;
    genesis_model *mq = ddpm_model(ctx, iters), *mm = ddpm_model(ctx, iters);
    double def;
    ck_assert_int_eq(genesis_model_get_param(mq, GENESIS_P_QUANTILE, &def), GENESIS_OK);
    ck_assert_double_eq(def, 1); /* DDPM's default, as TabDDPM */
    ck_assert_int_eq(genesis_model_set_param(mm, GENESIS_P_QUANTILE, 0), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(mq, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(mm, t, NULL, NULL), GENESIS_OK);
    /* the fitted model's first sampling call, for the loaded model's (below) */
    ck_assert_int_eq(genesis_model_sample_csv(mq, 300, tmp("a.csv")), GENESIS_OK);
    int64_t rows = slow_tests() ? 2000 : 400; /* fewer rows without the thresholds */
    double sq, sm, qq = quality(ctx, mq, t, rows, 100, &sq), qm = quality(ctx, mm, t, rows, 100, &sm);
    fprintf(stderr, "DDPM adult_sample %d iterations: quality %.3f (shapes %.3f) with quantiles, "
                    "%.3f (%.3f) with modes\n", iters, qq, sq, qm, sm);
    if (slow_tests()) {
        ck_assert_msg(qq >= 0.90, "quality with quantiles %.3f below 0.90", qq);
        ck_assert_msg(qq >= qm - 0.02, "quantiles %.3f well below modes %.3f", qq, qm);
    }
    /* the map: age has one (no point mass covers it), increasing, inside the column's range */
    int age = col_index(t, "age"), nq = 0, nm = -1;
    ck_assert_int_eq(genesis_model_column_quantiles(mq, age, 0, &nq, NULL), GENESIS_OK);
    ck_assert_int_ge(nq, 10);
    double *q = malloc((size_t)nq * sizeof *q);
    ck_assert_int_eq(genesis_model_column_quantiles(mq, age, nq, &nq, q), GENESIS_OK);
    for (int k = 1; k < nq; k++) ck_assert(q[k] >= q[k - 1]);
    ck_assert(q[0] < q[nq - 1] && q[0] >= 17 && q[nq - 1] <= 90);
    genesis_model_column_mixture(mq, age, 0, &nm, NULL, NULL, NULL, NULL, NULL);
    ck_assert_int_eq(nm, 0);
    int nq_modes = -1;
    ck_assert_int_eq(genesis_model_column_quantiles(mm, age, 0, &nq_modes, NULL), GENESIS_OK);
    ck_assert_int_eq(nq_modes, 0);
    /* files: version 5 with quantiles, 3 without; the loaded model samples the same rows */
    ck_assert_int_eq(genesis_model_save(mq, tmp("m.gen")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(mm, tmp("m2.gen")), GENESIS_OK);
    ck_assert_uint_eq(file_version(tmp("m.gen")), 5);
    ck_assert_uint_eq(file_version(tmp("m2.gen")), 3);
    genesis_model *l;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m.gen"), &l), GENESIS_OK);
    double v;
    genesis_model_get_param(l, GENESIS_P_QUANTILE, &v);
    ck_assert_double_eq(v, 1);
    ck_assert_int_eq(genesis_model_sample_csv(l, 300, tmp("b.csv")), GENESIS_OK);
    tu_assert_same_files(tmp("a.csv"), tmp("b.csv"));
    genesis_model_free(l);
    /* a quantile moved above its successor (CRC made right again): refused, saying why */
    size_t n;
    unsigned char *p = tu_read_file(tmp("m.gen"), &n);
    size_t at = 0;
    for (size_t i = 24; i + 8 <= n && !at; i++)
        if (memcmp(p + i, &q[1], 8) == 0 && memcmp(p + i - 8, &q[0], 8) == 0) at = i;
    ck_assert_msg(at, "age's quantiles not found in the file");
    double big = q[nq - 1] + 1;
    memcpy(p + at, &big, 8);
    uint32_t crc = (uint32_t)crc32(crc32(0L, NULL, 0), p, (uInt)(n - 4));
    for (int i = 0; i < 4; i++) p[n - 4 + i] = (unsigned char)(crc >> (8 * i));
    FILE *f = fopen(tmp("m2.gen"), "wb");
    fwrite(p, 1, n, f);
    fclose(f);
    free(p);
    genesis_model *bad = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, tmp("m2.gen"), &bad), GENESIS_ERR_MODEL_FORMAT);
    ck_assert_ptr_null(bad);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(ctx), "quantile"));
    free(q);
    /* a checkpoint carries the map: the resumed fit equals the uninterrupted one */
    genesis_model *full = small_model(ctx, 12, 2, 1), *part = small_model(ctx, 12, 2, 1);
    genesis_model_set_param(full, GENESIS_P_BATCH_SIZE, 600);
    genesis_model_set_param(part, GENESIS_P_BATCH_SIZE, 600);
    ck_assert_int_eq(genesis_model_fit(full, t, NULL, NULL), GENESIS_OK);
    ck_assert_int_eq(genesis_model_save(full, tmp("full.gen")), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_checkpoint(part, tmp("ck.gen"), 0, 0), GENESIS_OK);
    int stop = 5;
    ck_assert_int_eq(genesis_model_fit(part, t, stop_at, &stop), GENESIS_ERR_STOPPED);
    ck_assert_uint_eq(file_version(tmp("ck.gen")), 5);
    genesis_model *res = resume_to_end(ctx, t, "ck.gen", NULL, "full.gen", "res.gen");
    /* a DDPM setting only */
    genesis_model *c;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &c), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(c, GENESIS_P_QUANTILE, 1), GENESIS_ERR_INVALID_ARG);
    genesis_model_free(c);
    genesis_model_free(full);
    genesis_model_free(part);
    genesis_model_free(res);
    genesis_model_free(mq);
    genesis_model_free(mm);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ddpm_e2e");
    TCase *tc = tcase_create("adult_sample");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_ddpm_quality_on_adult_sample);
    tcase_add_test(tc, test_ddpm_files_and_determinism);
    tcase_add_test(tc, test_ddpm_resume_equals_uninterrupted);
    tcase_add_test(tc, test_ddpm_missing_values);
    tcase_add_test(tc, test_ddpm_target_and_ema);
    tcase_add_test(tc, test_ddpm_rows_independent_of_group);
    tcase_add_test(tc, test_ddpm_guidance);
    tcase_add_test(tc, test_ddpm_quantile);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
