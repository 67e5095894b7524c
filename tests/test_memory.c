/*
 * test_memory.c — the memory model and the batched sampling pipeline:
 *   - the estimate is within 15% of the measured peak resident set for fit and for sampling
 *     (CTGAN and TVAE on data/adult_sample.csv; sampling a given number of rows, one batch
 *     or several, also DDPM; skipped under sanitizers, whose shadow memory is part of the
 *     resident set); fits in fp32, bf16 and fp16, and what bf16 and fp16 save against fp32
 *     (16-bit activations net of the operand copies), estimated and measured; sampling on
 *     three lanes (every lane's batches and copy of the generator counted);
 *   - the iterator (genesis_sampler) yields exactly n rows in batches of the size asked for,
 *     and the same rows whatever the batch size, in rows and in encoded form;
 *   - a memory limit shrinks the sampling batch instead of failing, and one too small for
 *     even one batch (or for training) is a clear GENESIS_ERR_NOMEM;
 *   - byte sizes parse as users write them.
 */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include <genesis/genesis.h>

#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define TM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TM_SANITIZED 1
#endif
#endif
#ifndef TM_SANITIZED
#define TM_SANITIZED 0
#endif

static genesis_ctx *g_ctx;
static genesis_table *g_table;

static void setup(void) {
    ck_assert_int_eq(genesis_ctx_create(&g_ctx), GENESIS_OK);
    genesis_ctx_set_seed(g_ctx, 3);
    genesis_ctx_set_threads(g_ctx, 1);
    /* host memory against the resident set: the CPU backend (the GPU's device memory is
     * checked by bench/gen_sizes.sh on the GPU machine) */
    genesis_ctx_set_device(g_ctx, GENESIS_DEVICE_CPU, 0);
    ck_assert_msg(genesis_table_read_csv(g_ctx, tu_path("data/adult_sample.csv"), NULL, &g_table) ==
                      GENESIS_OK,
                  "%s", genesis_errmsg(g_ctx));
}

static void teardown(void) {
    genesis_table_free(g_table);
    genesis_ctx_free(g_ctx);
}

static int reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static genesis_model *fitted(genesis_model_kind kind, int epochs) {
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(g_ctx, kind, &m), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs);
    ck_assert_msg(genesis_model_fit(m, g_table, NULL, NULL) == GENESIS_OK, "%s", genesis_errmsg(g_ctx));
    return m;
}

/* ---- estimate vs measured peak --------------------------------------------------------- */

/* data/adult_sample.csv repeated `copies` times, so that the data terms weigh in. */
static genesis_table *bigger_table(int copies) {
    char path[] = "/tmp/genesis_test_memory_big_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *out = fdopen(fd, "w");
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r");
    ck_assert_ptr_nonnull(in);
    char line[4096];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, in));
    fputs(line, out);
    long body = ftell(in);
    for (int k = 0; k < copies; k++) {
        fseek(in, body, SEEK_SET);
        while (fgets(line, sizeof line, in)) fputs(line, out);
    }
    fclose(in);
    fclose(out);
    genesis_table *t;
    ck_assert_int_eq(genesis_table_read_csv(g_ctx, path, NULL, &t), GENESIS_OK);
    remove(path);
    return t;
}

/* One fit of `kind` in `prec` on 50,000 rows (batch 5,000, one epoch, one thread) in a child
 * process of its own, so that no fit inherits another's freed pages in the resident set: the
 * exact estimate of the host total and the measured peak (0: no clear_refs to measure with).
 * Returns 0, or the failure the child met. */
static int measure_fit(genesis_model_kind kind, genesis_precision prec, uint64_t *est,
                       uint64_t *peak) {
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(stdout);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        uint64_t r[3] = {1, 0, 0}; /* status, estimate, peak */
        genesis_table *t = bigger_table(25);
        genesis_model *m;
        genesis_memory_estimate before, e;
        if (genesis_model_create(g_ctx, kind, &m) == GENESIS_OK) {
            genesis_model_set_param(m, GENESIS_P_PRECISION, prec);
            genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
            genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 5000);
            if (genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &before) == GENESIS_OK &&
                !before.exact) {
                if (reset_peak() != 0) {
                    r[0] = 0; /* kernel without clear_refs: nothing to measure against */
                } else if (genesis_model_fit(m, t, NULL, NULL) == GENESIS_OK) {
                    genesis_memory_usage(m, NULL, &r[2], NULL);
                    /* before fit the encoded width is an upper bound: never smaller */
                    if (genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e) == GENESIS_OK &&
                        e.exact && before.host_total >= e.host_total) {
                        r[0] = 0;
                        r[1] = e.host_total;
                    }
                }
            }
            genesis_model_free(m);
        }
        genesis_table_free(t);
        ssize_t w = write(fd[1], r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    uint64_t r[3] = {1, 0, 0};
    ssize_t got = read(fd[0], r, sizeof r);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *est = r[1];
    *peak = r[2];
    return got == (ssize_t)sizeof r && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? (int)r[0] : 1;
}

/* The estimate of a fit against its measured peak resident set, in fp32, bf16 and fp16 (the
 * CPU's rounded operand copies are in the estimate's workspace, the activations stored in 16
 * bits in its activations); and what bf16 / fp16 save against fp32, estimated and measured
 * (docs/precision.md, "Memory"). */
START_TEST(fit_estimate_matches_peak) {
    if (TM_SANITIZED) return;
    genesis_model_kind kind = _i ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    const char *name = _i ? "tvae" : "ctgan";
    static const genesis_precision precs[3] = {GENESIS_PRECISION_FP32, GENESIS_PRECISION_BF16,
                                               GENESIS_PRECISION_FP16};
    uint64_t est[3], peak[3];
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(measure_fit(kind, precs[k], &est[k], &peak[k]) == 0,
                      "%s precision %d: the fit or its estimate failed", name, (int)precs[k]);
        if (peak[k] == 0) return; /* nothing to measure against */
        double r = (double)est[k] / (double)peak[k];
        printf("fit %s precision %d: estimate %llu vs peak %llu (ratio %.3f)\n", name,
               (int)precs[k], (unsigned long long)est[k], (unsigned long long)peak[k], r);
        ck_assert_msg(r > 0.85 && r < 1.15, "fit: estimate %llu vs peak %llu (ratio %.3f)",
                      (unsigned long long)est[k], (unsigned long long)peak[k], r);
    }
    for (int k = 1; k < 3; k++) {
        double de = ((double)est[0] - (double)est[k]) / 1e6,
               dp = ((double)peak[0] - (double)peak[k]) / 1e6;
        printf("fit %s precision %d saves %.2f MB against fp32 (estimated %.2f MB)\n", name,
               (int)precs[k], dp, de);
        /* the saving is the 16-bit activations net of the operand copies: measured within
         * 1.5 MB + 20% of the estimate, and a saving in both */
        ck_assert_msg(de > 0 && dp > 0, "%s precision %d: no saving (estimated %.2f, measured "
                      "%.2f MB)", name, (int)precs[k], de, dp);
        ck_assert_msg(fabs(dp - de) <= 1.5 + 0.2 * de, "%s precision %d: saves %.2f MB, "
                      "estimated %.2f MB", name, (int)precs[k], dp, de);
    }
}
END_TEST

/* m saved to a file and loaded back (m freed): a loaded model holds only the generator, as
 * `genesis sample` has it. */
static genesis_model *reloaded(genesis_model *m) {
    char path[] = "/tmp/genesis_test_memory_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(genesis_model_save(m, path), GENESIS_OK);
    genesis_model_free(m);
    genesis_model *back = NULL;
    ck_assert_int_eq(genesis_model_load(g_ctx, path, &back), GENESIS_OK);
    remove(path);
    return back;
}

/* *peak: the process's peak memory while m writes n rows to a scratch CSV; -1 when this
 * system cannot reset the peak counter. */
static int sampled_peak(genesis_model *m, int64_t n, uint64_t *peak) {
    if (reset_peak() != 0) return -1;
    char out[] = "/tmp/genesis_test_memory_csv_XXXXXX";
    int fd = mkstemp(out);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(genesis_model_sample_csv(m, n, out), GENESIS_OK);
    remove(out);
    *peak = 0;
    genesis_memory_usage(m, NULL, peak, NULL);
    return 0;
}

START_TEST(sample_estimate_matches_peak) {
    if (TM_SANITIZED) return;
    genesis_model *m = fitted(_i == 0 ? GENESIS_MODEL_CTGAN : GENESIS_MODEL_TVAE, 1);
    m = reloaded(m);
    int64_t batch = 16000;
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_memory_estimate e;
    ck_assert_int_eq(genesis_estimate_memory(m, NULL, GENESIS_WORKLOAD_SAMPLE, batch, &e), GENESIS_OK);
    uint64_t peak = 0;
    if (sampled_peak(m, 3 * batch, &peak) != 0) { /* no peak counter here */
        genesis_model_free(m);
        return;
    }
    double r = (double)e.host_total / (double)peak;
    ck_assert_msg(r > 0.85 && r < 1.15, "sample: estimate %llu vs peak %llu (ratio %.3f)",
                  (unsigned long long)e.host_total, (unsigned long long)peak, r);
    genesis_model_free(m);
}
END_TEST

/* genesis_estimate_sampling against the peak, for a run of n rows: one batch in flight when n
 * fits in one (the pipeline allocates no second buffer), two otherwise. DDPM (few iterations,
 * two reverse steps: memory does not depend on either) and CTGAN. */
START_TEST(sample_rows_estimate_matches_peak) {
    if (TM_SANITIZED) return;
    int ddpm = _i < 2, one = _i != 1;
    genesis_model *m;
    if (ddpm) {
        ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_DDPM, &m), GENESIS_OK);
        genesis_model_set_param(m, GENESIS_P_ITERATIONS, 5);
        ck_assert_msg(genesis_model_fit(m, g_table, NULL, NULL) == GENESIS_OK, "%s",
                      genesis_errmsg(g_ctx));
    } else {
        m = fitted(GENESIS_MODEL_CTGAN, 1);
    }
    m = reloaded(m);
    if (ddpm) ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_SAMPLE_STEPS, 2), GENESIS_OK);
    int64_t batch = 16384, n = one ? 15000 : 3 * batch;
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_memory_estimate e, any;
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, n, batch, &e), GENESIS_OK);
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, 0, batch, &any), GENESIS_OK);
    if (one) { /* one batch, no larger than n needs */
        ck_assert_int_ge(e.batch_rows, n);
        ck_assert_int_lt(e.batch_rows, batch);
        ck_assert_uint_lt(e.output_buffers, any.output_buffers);
    } else {
        ck_assert_uint_eq(e.host_total, any.host_total);
    }
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, -1, batch, &e), GENESIS_ERR_INVALID_ARG);
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, n, batch, &e), GENESIS_OK);
    uint64_t peak = 0;
    if (sampled_peak(m, n, &peak) != 0) { /* no peak counter here */
        genesis_model_free(m);
        return;
    }
    double r = (double)e.host_total / (double)peak;
    printf("sample %s, %lld rows: estimate %llu vs peak %llu (ratio %.3f)\n", ddpm ? "ddpm" : "ctgan",
           (long long)n, (unsigned long long)e.host_total, (unsigned long long)peak, r);
    ck_assert_msg(r > 0.85 && r < 1.15, "sample %lld rows: estimate %llu vs peak %llu (ratio %.3f)",
                  (long long)n, (unsigned long long)e.host_total, (unsigned long long)peak, r);
    genesis_model_free(m);
}
END_TEST

/* Several sampling lanes (genesis_model_set_sample_devices; here 3 CPU streams, each with
 * its own copy of the generator and two batches in flight): the estimate counts every lane
 * and stays within 15% of the peak. */
START_TEST(sample_lanes_estimate_matches_peak) {
    if (TM_SANITIZED) return;
    genesis_model *m = reloaded(fitted(GENESIS_MODEL_CTGAN, 1));
    int64_t batch = 16000, n = 9 * batch;
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_memory_estimate one, three;
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, n, batch, &one), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_sample_devices(m, NULL, 3), GENESIS_OK);
    ck_assert_int_eq(genesis_estimate_sampling(m, NULL, n, batch, &three), GENESIS_OK);
    /* two more lanes: four more batches in flight, two more networks */
    ck_assert_uint_eq(three.output_buffers - one.output_buffers, 2 * one.output_per_row * (uint64_t)batch);
    ck_assert_uint_gt(three.host_total - one.host_total, three.output_buffers - one.output_buffers);
    uint64_t peak = 0;
    if (sampled_peak(m, n, &peak) != 0) { /* no peak counter here */
        genesis_model_free(m);
        return;
    }
    double r = (double)three.host_total / (double)peak;
    printf("sample ctgan on 3 lanes, %lld rows: estimate %llu vs peak %llu (ratio %.3f)\n",
           (long long)n, (unsigned long long)three.host_total, (unsigned long long)peak, r);
    ck_assert_msg(r > 0.85 && r < 1.15, "3 lanes: estimate %llu vs peak %llu (ratio %.3f)",
                  (unsigned long long)three.host_total, (unsigned long long)peak, r);
    genesis_model_free(m);
}
END_TEST

/* ---- the iterator ---------------------------------------------------------------------- */

/* All values of n rows as text, through the iterator with a given batch size. */
static char *rows_text(genesis_model *m, int64_t n, int64_t batch, int64_t *batches) {
    ck_assert_int_eq(genesis_model_set_sample_batch(m, batch), GENESIS_OK);
    genesis_sampler *s;
    ck_assert_int_eq(genesis_sampler_create(m, n, 0, &s), GENESIS_OK);
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap), buf[256];
    int64_t rows = 0;
    *batches = 0;
    const genesis_batch *b;
    while (genesis_sampler_next(s, &b) == GENESIS_OK && b) {
        (*batches)++;
        ck_assert_int_le(genesis_batch_nrows(b), genesis_sampler_batch_rows(s));
        for (int64_t r = 0; r < genesis_batch_nrows(b); r++)
            for (int c = 0; c < genesis_batch_ncols(b); c++) {
                const char *t = genesis_batch_text(b, r, c, buf, sizeof buf);
                size_t k = strlen(t);
                if (len + k + 2 > cap) all = realloc(all, cap *= 2);
                memcpy(all + len, t, k);
                len += k;
                all[len++] = c + 1 < genesis_batch_ncols(b) ? ',' : '\n';
            }
        rows += genesis_batch_nrows(b);
    }
    all[len] = 0;
    ck_assert_int_eq(rows, n);
    genesis_sampler_free(s);
    return all;
}

START_TEST(iterator_same_rows_any_batch) {
    genesis_model *m = fitted(_i == 0 ? GENESIS_MODEL_CTGAN : GENESIS_MODEL_TVAE, 2);
    int64_t n = 2345, nb1, nb2, nb3;
    /* each sampling call gets fresh noise; the same seed on a fresh context repeats it, so
     * compare calls made in the same order on models in the same state */
    genesis_ctx_set_seed(g_ctx, 11);
    char *a = rows_text(m, n, 500, &nb1);
    char *b = rows_text(m, n, 1500, &nb2);
    char *c = rows_text(m, n, 0, &nb3);
    ck_assert_int_eq(nb1, 5);
    ck_assert_int_eq(nb2, 2);
    ck_assert_int_eq(nb3, 1); /* automatic: no bigger than n needs */
    ck_assert_str_ne(a, b);   /* later calls draw new rows */
    free(a); free(b); free(c);
    genesis_model_free(m);

    /* the same sequence of calls with other batch sizes gives the same bytes */
    m = fitted(_i == 0 ? GENESIS_MODEL_CTGAN : GENESIS_MODEL_TVAE, 2);
    char *a2 = rows_text(m, n, 2500, &nb1);
    genesis_model_free(m);
    m = fitted(_i == 0 ? GENESIS_MODEL_CTGAN : GENESIS_MODEL_TVAE, 2);
    char *a3 = rows_text(m, n, 1000, &nb2);
    ck_assert_str_eq(a2, a3);
    free(a2); free(a3);
    genesis_model_free(m);
}
END_TEST

START_TEST(iterator_encoded_and_early_stop) {
    genesis_model *m = fitted(GENESIS_MODEL_CTGAN, 1);
    ck_assert_int_eq(genesis_model_set_sample_batch(m, 1000), GENESIS_OK);
    genesis_sampler *s;
    ck_assert_int_eq(genesis_sampler_create(m, 2600, 1, &s), GENESIS_OK);
    const float *x;
    int64_t rows, total = 0;
    int dim = 0, nb = 0;
    while (genesis_sampler_next_encoded(s, &x, &rows, &dim) == GENESIS_OK && x) {
        ck_assert_int_eq(dim, genesis_model_encoded_dim(m));
        for (int64_t i = 0; i < rows * dim; i++) ck_assert(isfinite(x[i]) && x[i] >= -1.0f && x[i] <= 1.0f);
        total += rows;
        nb++;
    }
    ck_assert_int_eq(total, 2600);
    ck_assert_int_eq(nb, 3);
    const genesis_batch *b;
    ck_assert_int_eq(genesis_sampler_next(s, &b), GENESIS_ERR_STATE); /* wrong kind */
    genesis_sampler_free(s);
    /* stopping early while the worker is ahead must not hang or leak; meanwhile the model
     * is busy */
    ck_assert_int_eq(genesis_sampler_create(m, 1000000, 0, &s), GENESIS_OK);
    ck_assert_int_eq(genesis_sampler_next(s, &b), GENESIS_OK);
    ck_assert_ptr_nonnull(b);
    genesis_sampler *second;
    ck_assert_int_eq(genesis_sampler_create(m, 10, 0, &second), GENESIS_ERR_STATE);
    genesis_sampler_free(s);
    /* zero rows: no batch at all */
    ck_assert_int_eq(genesis_sampler_create(m, 0, 0, &s), GENESIS_OK);
    ck_assert_int_eq(genesis_sampler_next(s, &b), GENESIS_OK);
    ck_assert_ptr_null(b);
    genesis_sampler_free(s);
    genesis_model_free(m);
}
END_TEST

/* ---- budgets --------------------------------------------------------------------------- */

START_TEST(memory_limit_shrinks_batch) {
    genesis_model *m = fitted(GENESIS_MODEL_CTGAN, 1);
    int64_t free_batch = 0, tight = 0;
    ck_assert_int_eq(genesis_optimize_batch_size(m, NULL, GENESIS_WORKLOAD_SAMPLE, &free_batch), GENESIS_OK);
    genesis_memory_estimate small;
    ck_assert_int_eq(genesis_estimate_memory(m, NULL, GENESIS_WORKLOAD_SAMPLE, 500, &small), GENESIS_OK);
    /* room for a few groups beyond the smallest configuration */
    uint64_t limit = small.host_total + 4 * small.output_per_row * 500;
    ck_assert_int_eq(genesis_ctx_set_memory_budget(g_ctx, 0.8, limit), GENESIS_OK);
    ck_assert_int_eq(genesis_optimize_batch_size(m, NULL, GENESIS_WORKLOAD_SAMPLE, &tight), GENESIS_OK);
    ck_assert_int_lt(tight, free_batch);
    ck_assert_int_ge(tight, 500);
    ck_assert_int_eq(tight % 500, 0);
    genesis_memory_estimate e;
    ck_assert_int_eq(genesis_estimate_memory(m, NULL, GENESIS_WORKLOAD_SAMPLE, 0, &e), GENESIS_OK);
    ck_assert_uint_le(e.host_total, limit);
    ck_assert_int_eq(e.batch_rows, tight);
    /* sampling under the limit works */
    char out[] = "/tmp/genesis_test_limit_XXXXXX";
    int fd = mkstemp(out);
    close(fd);
    ck_assert_int_eq(genesis_model_sample_csv(m, 20000, out), GENESIS_OK);
    remove(out);
    /* a limit below one batch: a clear error, nothing written */
    ck_assert_int_eq(genesis_ctx_set_memory_budget(g_ctx, 0.8, small.host_total / 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_sample_csv(m, 100, out), GENESIS_ERR_NOMEM);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(g_ctx), "memory budget"));
    ck_assert_int_ne(access(out, F_OK), 0);
    genesis_model_free(m);
    /* training that cannot fit is refused before it starts, with a batch size that fits or
     * the reason none does */
    ck_assert_int_eq(genesis_model_create(g_ctx, GENESIS_MODEL_CTGAN, &m), GENESIS_OK);
    genesis_memory_estimate fe;
    ck_assert_int_eq(genesis_estimate_memory(m, g_table, GENESIS_WORKLOAD_FIT, 0, &fe), GENESIS_OK);
    ck_assert_int_eq(genesis_ctx_set_memory_budget(g_ctx, 0.8, fe.host_total - fe.activations / 2), GENESIS_OK);
    ck_assert_int_eq(genesis_model_fit(m, g_table, NULL, NULL), GENESIS_ERR_NOMEM);
    ck_assert_ptr_nonnull(strstr(genesis_errmsg(g_ctx), "`batch-size`"));
    genesis_model_free(m);
    ck_assert_int_eq(genesis_ctx_set_memory_budget(g_ctx, 1.5, 0), GENESIS_ERR_INVALID_ARG);
}
END_TEST

START_TEST(parse_sizes) {
    uint64_t b;
    ck_assert_int_eq(genesis_parse_bytes("8GB", &b), GENESIS_OK);
    ck_assert_uint_eq(b, 8ull << 30);
    ck_assert_int_eq(genesis_parse_bytes("512MiB", &b), GENESIS_OK);
    ck_assert_uint_eq(b, 512ull << 20);
    ck_assert_int_eq(genesis_parse_bytes("1.5g", &b), GENESIS_OK);
    ck_assert_uint_eq(b, 3ull << 29);
    ck_assert_int_eq(genesis_parse_bytes(" 100000 ", &b), GENESIS_OK);
    ck_assert_uint_eq(b, 100000);
    ck_assert_int_eq(genesis_parse_bytes("12K", &b), GENESIS_OK);
    ck_assert_uint_eq(b, 12288);
    const char *bad[] = {"", "GB", "-1GB", "8XB", "8 GB extra", "nan", "1e300G", NULL};
    for (int i = 0; bad[i]; i++)
        ck_assert_msg(genesis_parse_bytes(bad[i], &b) == GENESIS_ERR_INVALID_ARG, "accepted '%s'", bad[i]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, fit_estimate_matches_peak, 0, 2);
    tcase_add_loop_test(tc, sample_estimate_matches_peak, 0, 2);
    tcase_add_loop_test(tc, sample_rows_estimate_matches_peak, 0, 3);
    tcase_add_test(tc, sample_lanes_estimate_matches_peak);
    tcase_add_loop_test(tc, iterator_same_rows_any_batch, 0, 2);
    tcase_add_test(tc, iterator_encoded_and_early_stop);
    tcase_add_test(tc, memory_limit_shrinks_batch);
    tcase_add_test(tc, parse_sizes);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
