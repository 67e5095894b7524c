/*
 * bench_fit.c — end-to-end CPU timings through the public API: seconds per training epoch
 * (steps/s, rows/s) and sampling rows/s to CSV, on a given table (default
 * data/adult_sample.csv, 2,000 rows of Adult).
 * Prints one JSON line, with the device that trained ("cpu", "cuda:0"). Used by
 * bench/run_cpu.sh, which runs the Python reference beside it, and bench/gpu_session.sh (CUDA
 * graphs on and off through GENESIS_CUDA_GRAPHS; the precisions at two batch sizes).
 *
 *   bench_fit data.csv [epochs=3] [sample_rows=100000] [threads=0] [out.csv=/dev/null]
 *             [method=ctgan|tvae] [batch=0: the model's default] [precision=fp32|tf32|bf16|fp16]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <genesis/genesis.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct timing {
    double t_start, t_first_epoch_end, t_end;
    int epochs;
    long long steps;
} timing;

static int on_epoch(const genesis_progress *p, void *user) {
    timing *t = user;
    if (p->epoch == 1) t->t_first_epoch_end = now();
    t->t_end = now();
    t->epochs = p->epoch;
    t->steps = p->step;
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "data/adult_sample.csv";
    int epochs = argc > 2 ? atoi(argv[2]) : 3;
    long long nsample = argc > 3 ? atoll(argv[3]) : 100000;
    int threads = argc > 4 ? atoi(argv[4]) : 0;
    const char *out = argc > 5 ? argv[5] : "/dev/null";
    const char *method = argc > 6 ? argv[6] : "ctgan";
    int batch = argc > 7 ? atoi(argv[7]) : 0;
    const char *prec = argc > 8 ? argv[8] : NULL;
    int prec_value = -1;
    for (int i = 0; prec && genesis_param_choice(GENESIS_P_PRECISION, i); i++)
        if (!strcmp(prec, genesis_param_choice(GENESIS_P_PRECISION, i))) prec_value = i;
    if (prec && prec_value < 0) {
        fprintf(stderr, "bench_fit: unknown precision %s\n", prec);
        return 2;
    }
    genesis_model_kind kind = !strcmp(method, "tvae") ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    genesis_ctx *ctx;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_threads(ctx, threads);
    double t0 = now();
    genesis_status st = genesis_table_read_csv(ctx, path, NULL, &t);
    double t_read = now() - t0;
    if (st == GENESIS_OK) st = genesis_model_create(ctx, kind, &m);
    if (st == GENESIS_OK) st = genesis_model_set_param(m, GENESIS_P_EPOCHS, epochs);
    if (st == GENESIS_OK && batch > 0) st = genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, batch);
    if (st == GENESIS_OK && prec_value >= 0)
        st = genesis_model_set_param(m, GENESIS_P_PRECISION, prec_value);
    timing tm = {0};
    if (st == GENESIS_OK) {
        tm.t_start = now();
        st = genesis_model_fit(m, t, on_epoch, &tm);
    }
    double t_fit = now() - tm.t_start;
    double t_s0 = now();
    if (st == GENESIS_OK) st = genesis_model_sample_csv(m, nsample, out);
    double t_sample = now() - t_s0;
    if (st != GENESIS_OK) {
        fprintf(stderr, "bench_fit: %s\n", genesis_errmsg(ctx));
        return 1;
    }
    double train = tm.t_end - tm.t_start; /* includes the transformer fit before epoch 1 */
    double later = epochs > 1 ? (tm.t_end - tm.t_first_epoch_end) / (epochs - 1) : train;
    double prep = (tm.t_first_epoch_end - tm.t_start) - later; /* transformer + first epoch - typical */
    double bs = 0, pv = 0;
    genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &bs);
    genesis_model_get_param(m, GENESIS_P_PRECISION, &pv);
    const char *pname = genesis_param_choice(GENESIS_P_PRECISION, (int)pv);
    printf("{\"engine\":\"genesis\",\"model\":\"%s\",\"device\":\"%s\",\"batch\":%.0f,\"precision\":\"%s\","
           "\"table\":\"%s\",\"rows\":%lld,\"threads\":%d,\"epochs\":%d,"
           "\"read_s\":%.3f,\"fit_s\":%.3f,\"prep_s\":%.3f,\"s_per_epoch\":%.4f,"
           "\"steps_per_s\":%.2f,\"sample_rows\":%lld,\"sample_s\":%.3f,\"sample_rows_per_s\":%.0f}\n",
           method, genesis_ctx_device_name(ctx), bs, pname ? pname : "?", path,
           (long long)genesis_table_nrows(t), threads, epochs, t_read, t_fit, prep, later,
           (double)tm.steps / epochs / later, nsample, t_sample,
           t_sample > 0 ? nsample / t_sample : 0.0);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return 0;
}
