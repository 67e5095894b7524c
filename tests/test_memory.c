/*
 * test_memory.c — the memory model and the batched sampling pipeline:
 *   - the estimate is within 15% of the measured peak resident set for fit and for sampling
 *     (CTGAN and TVAE on data/adult_sample.csv; sampling a given number of rows, one batch
 *     or several, also DDPM; skipped under sanitizers, whose shadow memory is part of the
 *     resident set);
 *   - the iterator (genesis_sampler) yields exactly n rows in batches of the size asked for,
 *     and the same rows whatever the batch size, in rows and in encoded form;
 *   - a memory limit shrinks the sampling batch instead of failing, and one too small for
 *     even one batch (or for training) is a clear GENESIS_ERR_NOMEM;
 *   - byte sizes parse as users write them.
 */
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

static void check_fit_peak(genesis_model_kind kind, genesis_precision prec) {
    genesis_table *t = bigger_table(25); /* 50,000 rows */
    genesis_model *m;
    ck_assert_int_eq(genesis_model_create(g_ctx, kind, &m), GENESIS_OK);
    ck_assert_int_eq(genesis_model_set_param(m, GENESIS_P_PRECISION, prec), GENESIS_OK);
    genesis_model_set_param(m, GENESIS_P_EPOCHS, 1);
    genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, 5000);
    genesis_memory_estimate before;
    ck_assert_int_eq(genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &before), GENESIS_OK);
    ck_assert_int_eq(before.exact, 0);
    if (reset_peak() != 0) {
        genesis_model_free(m);
        genesis_table_free(t);
        return; /* kernel without clear_refs: nothing to measure against */
    }
    ck_assert_int_eq(genesis_model_fit(m, t, NULL, NULL), GENESIS_OK);
    uint64_t peak = 0;
    genesis_memory_usage(m, NULL, &peak, NULL);
    genesis_memory_estimate e;
    ck_assert_int_eq(genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e), GENESIS_OK);
    genesis_table_free(t);
    ck_assert_int_eq(e.exact, 1);
    /* before fit the encoded width is an upper bound, so the estimate can only be larger */
    ck_assert_uint_ge(before.host_total, e.host_total);
    double r = (double)e.host_total / (double)peak;
    printf("fit %s precision %d: estimate %llu vs peak %llu (ratio %.3f)\n",
           kind == GENESIS_MODEL_CTGAN ? "ctgan" : "tvae", (int)prec,
           (unsigned long long)e.host_total, (unsigned long long)peak, r);
    ck_assert_msg(r > 0.85 && r < 1.15, "fit: estimate %llu vs peak %llu (ratio %.3f)",
                  (unsigned long long)e.host_total, (unsigned long long)peak, r);
    genesis_model_free(m);
}

START_TEST(fit_estimate_matches_peak) {
    if (TM_SANITIZED) return;
    /* fp32, then bf16: the CPU's rounded operand copies are in the estimate's workspace */
    check_fit_peak(_i % 2 == 0 ? GENESIS_MODEL_CTGAN : GENESIS_MODEL_TVAE,
                   _i < 2 ? GENESIS_PRECISION_FP32 : GENESIS_PRECISION_BF16);
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
    tcase_add_loop_test(tc, fit_estimate_matches_peak, 0, 4);
    tcase_add_loop_test(tc, sample_estimate_matches_peak, 0, 2);
    tcase_add_loop_test(tc, sample_rows_estimate_matches_peak, 0, 3);
    tcase_add_loop_test(tc, iterator_same_rows_any_batch, 0, 2);
    tcase_add_test(tc, iterator_encoded_and_early_stop);
    tcase_add_test(tc, memory_limit_shrinks_batch);
    tcase_add_test(tc, parse_sizes);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
