/*
 * test_timegan_e2e.c — TimeGAN end to end through the public API on Sines
 * (docs/algorithms.md §S7: per sample and feature freq, phase ~ U(0, 0.1), x_j =
 * (sin(freq j + phase) + 1) / 2, 24 steps, 5 features), written as panel data (entity =
 * sample, time = step) so that the CSV, sequence and model-file paths all run: a reduced
 * fit (hidden 12, batch 64, 300 iterations per phase instead of 50,000; one thread), then
 *   - the discriminative and predictive scores (one repeat, 1000 metric iterations each)
 *     must beat bounds an untrained generator fails (measured with the reset-after GRU and
 *     its init, seeds 1, 2, 3: untrained 0.43-0.50 / 0.26-0.30, trained 0.15-0.45 /
 *     0.218-0.229);
 *   - the per-step feature means and standard deviations of the generated sequences must
 *     be close to the real ones (the moments the G loss matches);
 *   - the model file round trip: a loaded model writes the same bytes for the same seed;
 *   - a TimeGAN file of format version 1 (TF1 GRUCell weights), crafted from the saved one
 *     with a valid checksum, is refused with an error that asks for a refit.
 * GENESIS_SLOW_TESTS=0 (the sanitizer run) trains briefly and skips the thresholds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <genesis/genesis.h>
#include <zlib.h>

#include "test_util.h"

static int slow_tests(void) {
    const char *s = getenv("GENESIS_SLOW_TESTS");
    return !(s && s[0] == '0');
}

static int collect(const genesis_batch *b, void *user) {
    *(int64_t *)user += genesis_batch_nrows(b);
    return 0;
}

enum { N_ = 600, T_ = 24, F_ = 5 };

static void write_sines(const char *path, uint64_t seed) {
    FILE *f = fopen(path, "w");
    ck_assert(f);
    gen_rng r;
    gen_rng_init(&r, seed, 3);
    fprintf(f, "id,t,f0,f1,f2,f3,f4\n");
    for (int i = 0; i < N_; i++) {
        double fr[F_], ph[F_];
        for (int k = 0; k < F_; k++) {
            fr[k] = 0.1 * gen_rng_uniform(&r);
            ph[k] = 0.1 * gen_rng_uniform(&r);
        }
        for (int j = 0; j < T_; j++) {
            fprintf(f, "%d,%d", i + 1, j);
            for (int k = 0; k < F_; k++) fprintf(f, ",%.6f", (sin(fr[k] * j + ph[k]) + 1) / 2);
            fprintf(f, "\n");
        }
    }
    fclose(f);
}

/* Reads "id,t,f0..f4" rows; per (t, f): mean and standard deviation over the sequences. */
static int64_t moments(const char *path, double mean[T_][F_], double sd[T_][F_]) {
    FILE *f = fopen(path, "r");
    ck_assert(f);
    char line[512];
    ck_assert(fgets(line, sizeof line, f));
    double s1[T_][F_] = {{0}}, s2[T_][F_] = {{0}};
    int64_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        double id, t, v[F_];
        ck_assert_int_eq(sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &id, &t, &v[0], &v[1], &v[2], &v[3], &v[4]), 7);
        int j = (int)t;
        ck_assert(j >= 0 && j < T_);
        for (int k = 0; k < F_; k++) {
            s1[j][k] += v[k];
            s2[j][k] += v[k] * v[k];
        }
        rows++;
    }
    fclose(f);
    int64_t n = rows / T_;
    for (int j = 0; j < T_; j++)
        for (int k = 0; k < F_; k++) {
            mean[j][k] = s1[j][k] / n;
            sd[j][k] = sqrt(fmax(s2[j][k] / n - mean[j][k] * mean[j][k], 0));
        }
    return n;
}

static void fit_sample(genesis_ctx *ctx, const genesis_table *t, int iters, const char *out,
                       const char *model) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    double v;
    genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &v);
    ck_assert_double_eq(v, 128); /* TimeGAN's own defaults */
    genesis_model_get_param(m, GENESIS_P_ITERATIONS, &v);
    ck_assert_double_eq(v, 50000);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, iters), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 12), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 64), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sequence_columns(m, "id", "t"), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_sample_csv(m, N_, out), GENESIS_OK);
    if (model) ck_assert_int_eq(genesis_model_save(m, model), GENESIS_OK);
    int64_t rows = 0; /* n counts sequences */
    ck_assert_int_eq(genesis_model_sample(m, 10, collect, &rows), GENESIS_OK);
    ck_assert_int_eq(rows, 10 * T_);
    genesis_model_free(m);
}

static genesis_seq_eval_result scores(genesis_ctx *ctx, const genesis_table *real, const char *syn) {
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    genesis_table *s;
    ck_assert_int_eq(genesis_table_read_csv(ctx, syn, &co, &s), GENESIS_OK);
    genesis_seq_eval_options o;
    genesis_seq_eval_options_init(&o);
    o.entity = "id";
    o.time = "t";
    o.repeats = 1;
    o.disc_iterations = 1000;
    o.pred_iterations = 1000;
    genesis_seq_eval_result r;
    genesis_status st = genesis_evaluate_sequences(ctx, real, s, &o, &r);
    ck_assert_msg(st == GENESIS_OK, "evaluate: %s", genesis_errmsg(ctx));
    ck_assert_int_eq(r.real_sequences, N_);
    ck_assert_int_eq(r.synthetic_sequences, N_);
    genesis_table_free(s);
    return r;
}

static int same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    ck_assert(fa && fb);
    int same = 1, ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        if (ca != cb) same = 0;
    } while (same && ca != EOF);
    fclose(fa);
    fclose(fb);
    return same;
}

/* Rewrites `path` as format version `version` (byte 8, little-endian u32) with its CRC-32
 * recomputed (docs/file-format.md), so that only the version differs. */
static void rewrite_version(const char *path, const char *out, uint32_t version) {
    size_t n;
    unsigned char *p = tu_read_file(path, &n);
    ck_assert_int_eq(p[8] | p[9] << 8, 3); /* files are written as version 3 */
    for (int i = 0; i < 4; i++) p[8 + i] = (unsigned char)(version >> (8 * i));
    uint32_t crc = (uint32_t)crc32(crc32(0L, NULL, 0), p, (uInt)(n - 4));
    for (int i = 0; i < 4; i++) p[n - 4 + i] = (unsigned char)(crc >> (8 * i));
    tu_write_file(out, p, n);
    free(p);
}

START_TEST(test_timegan_sines) {
    char dir[] = "/tmp/genesis-timegan-e2e.XXXXXX";
    ck_assert(mkdtemp(dir));
    char real[256], syn[256], syn0[256], model[256], again[256];
    snprintf(real, sizeof real, "%s/sines.csv", dir);
    snprintf(syn, sizeof syn, "%s/syn.csv", dir);
    snprintf(syn0, sizeof syn0, "%s/untrained.csv", dir);
    snprintf(model, sizeof model, "%s/m.gen", dir);
    snprintf(again, sizeof again, "%s/again.csv", dir);
    write_sines(real, 11);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    const char *seed = getenv("GENESIS_TEST_SEED"); /* for measuring the bounds over seeds */
    genesis_ctx_set_seed(ctx, seed ? strtoull(seed, NULL, 10) : 1);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, real, &co, &t), GENESIS_OK);
    int slow = slow_tests();
    fit_sample(ctx, t, slow ? 300 : 3, syn, model);
    /* the saved model writes the same bytes with the same seed */
    genesis_model *m;
    ck_assert_int_eq(genesis_model_load(ctx, model, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_get_kind(m), GENESIS_MODEL_TIMEGAN);
    ck_assert_int_eq(genesis_model_sample_csv(m, N_, again), GENESIS_OK);
    genesis_model_free(m);
    ck_assert_msg(same_file(syn, again), "the loaded model generated different sequences");
    /* the same file as format version 1 (the TF1 GRUCell era): refused, refit asked for */
    rewrite_version(model, again, 1);
    m = NULL;
    ck_assert_int_eq(genesis_model_load(ctx, again, &m), GENESIS_ERR_VERSION);
    ck_assert_ptr_null(m);
    const char *msg = genesis_errmsg(ctx);
    ck_assert_msg(strstr(msg, "older genesis") && strstr(msg, "GRU") && strstr(msg, "re-fit"),
                  "message: %s", msg);
    if (slow) {
        genesis_seq_eval_result r = scores(ctx, t, syn);
        fit_sample(ctx, t, 1, syn0, NULL);
        genesis_seq_eval_result r0 = scores(ctx, t, syn0);
        double mr[T_][F_], sr[T_][F_], mg[T_][F_], sg[T_][F_], m0[T_][F_], s0[T_][F_];
        moments(real, mr, sr);
        ck_assert_int_eq(moments(syn, mg, sg), N_);
        moments(syn0, m0, s0);
        double dm = 0, ds = 0, dm0 = 0, ds0 = 0;
        for (int j = 0; j < T_; j++)
            for (int k = 0; k < F_; k++) {
                dm += fabs(mg[j][k] - mr[j][k]) / (T_ * F_);
                ds += fabs(sg[j][k] - sr[j][k]) / (T_ * F_);
                dm0 += fabs(m0[j][k] - mr[j][k]) / (T_ * F_);
                ds0 += fabs(s0[j][k] - sr[j][k]) / (T_ * F_);
            }
        fprintf(stderr,
                "timegan sines: trained disc %.4f pred %.4f |mean| %.4f |sd| %.4f; untrained disc "
                "%.4f pred %.4f |mean| %.4f |sd| %.4f\n",
                r.discriminative, r.predictive, dm, ds, r0.discriminative, r0.predictive, dm0, ds0);
        ck_assert_msg(r.discriminative < 0.49, "discriminative score %.4f (bound 0.49)", r.discriminative);
        ck_assert_msg(r.predictive < 0.25, "predictive score %.4f (bound 0.25)", r.predictive);
        /* 0.04: with the reset-after GRU and its U(+-1/sqrt(H)) init, seeds 1-3 give mean
         * errors 0.014-0.031 and std errors 0.020-0.032 (TF1's cell: below 0.02); an
         * untrained generator gives 0.09-0.11 */
        ck_assert_msg(dm < 0.04, "per-step mean error %.4f (bound 0.04)", dm);
        ck_assert_msg(ds < 0.04, "per-step standard deviation error %.4f (bound 0.04)", ds);
        /* the bounds mean something: an untrained generator fails them */
        ck_assert_msg(r0.predictive >= 0.25 || dm0 >= 0.04 || ds0 >= 0.04,
                      "the bounds do not separate an untrained generator");
    }
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unlink(real); unlink(syn); unlink(syn0); unlink(model); unlink(again);
    rmdir(dir);
}
END_TEST

/* Sines with holes (docs/timegan.md §5, missing values): 300 entities of 24 steps, f1
 * blanked in 25% of its cells, f3 in 8% and a categorical column `level` (f0 above or below
 * 0.5) in 12%, at random. After a reduced fit (seq-len 12, batch 32, hidden 12, 1000
 * iterations per phase), each column's missing rate in the generated CSV (empty fields) must
 * be within 0.08 of the real one: the mask features' means are among the moments the
 * generator matches (a model that ignored them would write none for f1 and `level`).
 * Measured (GENESIS_TEST_SEED): seeds 1-3 within 0.064; shorter fits, or rates of 30/20/15%,
 * missed by up to 0.29 (the rate is only as good as training; docs/timegan.md §7). */
START_TEST(test_timegan_missing) {
    enum { N = 300 };
    static const double rate[4] = {0, 0.25, 0.125, 0.08}; /* f0, f1, level, f3 */
    char real[] = "/tmp/genesis-timegan-na-XXXXXX", syn[64];
    int fd = mkstemp(real);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(syn, sizeof syn, "%s.syn.csv", real);
    FILE *f = fopen(real, "w");
    ck_assert(f);
    gen_rng r;
    gen_rng_init(&r, 5, 3);
    fprintf(f, "id,t,f0,f1,level,f3\n");
    for (int i = 0; i < N; i++) {
        double fr[3], ph[3];
        for (int k = 0; k < 3; k++) {
            fr[k] = 0.1 * gen_rng_uniform(&r);
            ph[k] = 0.1 * gen_rng_uniform(&r);
        }
        for (int j = 0; j < T_; j++) {
            double v[3];
            for (int k = 0; k < 3; k++) v[k] = (sin(fr[k] * j + ph[k]) + 1) / 2;
            fprintf(f, "%d,%d,%.6f,", i + 1, j, v[0]);
            if (gen_rng_uniform(&r) >= rate[1]) fprintf(f, "%.6f", v[1]);
            fprintf(f, ",%s,", gen_rng_uniform(&r) < rate[2] ? "" : v[0] > 0.5 ? "high" : "low");
            if (gen_rng_uniform(&r) >= rate[3]) fprintf(f, "%.6f", v[2]);
            fprintf(f, "\n");
        }
    }
    fclose(f);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    const char *seed = getenv("GENESIS_TEST_SEED");
    genesis_ctx_set_seed(ctx, seed ? strtoull(seed, NULL, 10) : 1);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(ctx, real, NULL, &t), GENESIS_OK);
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, slow_tests() ? 1000 : 3), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, 12), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 12), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 32), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sequence_columns(m, "id", "t"), GENESIS_OK);
    genesis_status st = genesis_model_fit(m, t, NULL, NULL);
    ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
    ck_assert_int_eq(genesis_model_sample_csv(m, 2 * N, syn), GENESIS_OK);
    genesis_model_free(m);
    double got[2][4] = {{0}};
    const char *files[2] = {real, syn};
    for (int w = 0; w < 2; w++) {
        f = fopen(files[w], "r");
        ck_assert(f);
        char line[256];
        ck_assert(fgets(line, sizeof line, f));
        int64_t rows = 0;
        for (; fgets(line, sizeof line, f); rows++) {
            line[strcspn(line, "\r\n")] = 0;
            char *p = line;
            for (int c = 0; c < 6; c++) {
                char *e = strchr(p, ',');
                ck_assert(c == 5 || e);
                if (c >= 2 && (e ? e == p : !*p)) got[w][c - 2] += 1;
                p = e ? e + 1 : p;
            }
        }
        fclose(f);
        ck_assert_int_eq(rows, N * 24);
        for (int c = 0; c < 4; c++) got[w][c] /= (double)rows;
    }
    fprintf(stderr, "timegan missing rates real/synthetic: f0 %.3f/%.3f f1 %.3f/%.3f level %.3f/%.3f f3 %.3f/%.3f\n",
            got[0][0], got[1][0], got[0][1], got[1][1], got[0][2], got[1][2], got[0][3], got[1][3]);
    for (int c = 0; slow_tests() && c < 4; c++)
        ck_assert_msg(fabs(got[1][c] - got[0][c]) < 0.08, "column %d: synthetic missing rate %.3f, real %.3f",
                      c, got[1][c], got[0][c]);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    unlink(real);
    unlink(syn);
}
END_TEST

/* An identifier column besides the entity (src/data/idcol.c) is refused with a message naming
 * it; a time column of ISO dates is accepted (its rows ordered as dates). */
START_TEST(test_timegan_roles) {
    char path[] = "/tmp/genesis-timegan-roles-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "store,day,code,v\n");
    for (int e = 0; e < 3; e++)
        for (int j = 0; j < 8; j++) fprintf(f, "S%d,2023-01-%02d,C%04d,%d\n", e, j + 1, e * 8 + j, e + j);
    fclose(f);
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.id = "code";
    for (int pass = 0; pass < 2; pass++) {
        genesis_table *t;
        ck_assert_int_eq(genesis_table_read_csv(ctx, path, &co, &t), GENESIS_OK);
        genesis_model *m;
        ck_assert_int_eq(genesis_model_create(ctx, GENESIS_MODEL_TIMEGAN, &m), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_ITERATIONS, 2), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SEQ_LEN, 4), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_HIDDEN_DIM, 4), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 4), GENESIS_OK);
        ck_assert_int_eq(genesis_model_set_sequence_columns(m, "store", "day"), GENESIS_OK);
        genesis_status st = genesis_model_fit(m, t, NULL, NULL);
        if (pass == 0) {
            ck_assert_int_eq(st, GENESIS_ERR_DATA);
            ck_assert_msg(strstr(genesis_errmsg(ctx), "'code'") && strstr(genesis_errmsg(ctx), "identifier"),
                          "message: %s", genesis_errmsg(ctx));
        } else {
            ck_assert_msg(st == GENESIS_OK, "fit: %s", genesis_errmsg(ctx));
        }
        genesis_model_free(m);
        genesis_table_free(t);
        co.id = NULL;
        co.not_id = "*"; /* the second pass: code read as an ordinary column */
    }
    genesis_ctx_free(ctx);
    unlink(path);
}
END_TEST

int main(void) {
    Suite *s = suite_create("timegan_e2e");
    TCase *tc = tcase_create("sines");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_timegan_sines);
    tcase_add_test(tc, test_timegan_missing);
    tcase_add_test(tc, test_timegan_roles);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
