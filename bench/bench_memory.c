/*
 * bench_memory.c — checks the memory model against measured peak usage. Prints one JSON line
 * with the estimate's total and the measured peak for one workload:
 *
 *   bench_memory fit    data.csv [method=ctgan|tvae|ddpm] [epochs=1] [batch=0] [save=model.gen]
 *   bench_memory sample model.gen rows [batch=0]     (CSV to $BENCH_MEMORY_OUT, then removed)
 *   GENESIS_DEVICE=cpu|cuda picks the backend (default: AUTO).
 *   BENCH_GRADIENT_CHECKPOINTING=1 fits with gradient checkpointing (docs/memory.md).
 *   DDPM: `epochs` counts optimiser steps (iterations).
 * The line also gives the estimate's activation term and the fit's seconds per step.
 *
 * Host (CPU backend): the peak resident set (VmHWM) of this process, reset with
 * /proc/self/clear_refs after the table is read (fit) or the model is loaded (sample), so the
 * peak covers the workload plus what the process already held, which the estimate counts too
 * (runtime, table). GPU (CUDA backend): device memory in use (cudaMemGetInfo) sampled after
 * every epoch / batch against the estimate's device total, and the same reading taken before
 * this process made a CUDA context ("device_before": NVML counts the memory the driver
 * reserves as in use, 0.6 GiB on an H200 with nothing running), so that peak_device -
 * device_before is this process's share. Run each workload in its own
 * process (bench/memory.sh does): a process that already trained keeps freed heap resident.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <genesis/genesis.h>

static int reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

typedef struct dev_peak {
    const genesis_model *m;
    uint64_t peak;
} dev_peak;

static void note_device(dev_peak *d) {
    uint64_t used = 0;
    genesis_memory_usage(d->m, NULL, NULL, &used);
    if (used > d->peak) d->peak = used;
}

/* the fit's progress calls: the first and the last (time, steps done), for the seconds per
 * step between them (the training loop alone, without the transformer fit before it) */
static double g_t_first, g_t_last;
static int64_t g_s_first = -1, g_s_last;
static double now(void);

static int on_epoch(const genesis_progress *p, void *user) {
    note_device(user);
    double t = now();
    if (g_s_first < 0) {
        g_t_first = t;
        g_s_first = p->step;
    }
    g_t_last = t;
    g_s_last = p->step;
    return 0;
}

static int on_batch(int64_t done, int64_t total, double s, void *user) {
    (void)done; (void)total; (void)s;
    note_device(user);
    return 0;
}

static uint64_t g_rss_start;
static int g_ckpt;      /* BENCH_GRADIENT_CHECKPOINTING */
static long long g_steps; /* the fit's optimiser steps (0: sampling) */
static uint64_t g_dev_before; /* device memory in use before this process's context */

static void report(const char *what, const char *src, const genesis_memory_estimate *e,
                   uint64_t host_peak, uint64_t dev_peak_bytes, double seconds) {
    double host_ratio = host_peak ? (double)e->host_total / (double)host_peak : 0;
    printf("{\"workload\":\"%s\",\"input\":\"%s\",\"batch_rows\":%lld,\"exact\":%d,"
           "\"data_dim\":%d,\"estimate_host\":%llu,\"peak_host\":%llu,\"host_ratio\":%.4f,"
           "\"estimate_device\":%llu,\"peak_device\":%llu,\"table\":%llu,\"encoded\":%llu,"
           "\"transform_fit\":%llu,\"network\":%llu,\"output_buffers\":%llu,\"runtime\":%llu,"
           "\"rss_at_start\":%llu,\"device_before\":%llu,\"seconds\":%.2f,"
           "\"activations\":%llu,\"ckpt\":%d,\"steps\":%lld,\"step_seconds\":%.4f}\n",
           what, src, (long long)e->batch_rows, e->exact, e->data_dim,
           (unsigned long long)e->host_total, (unsigned long long)host_peak, host_ratio,
           (unsigned long long)e->device_total, (unsigned long long)dev_peak_bytes,
           (unsigned long long)e->table, (unsigned long long)e->encoded_data,
           (unsigned long long)e->transform_fit,
           (unsigned long long)(e->parameters + e->optimizer + e->activations),
           (unsigned long long)e->output_buffers,
           (unsigned long long)(e->runtime + e->workspace), (unsigned long long)g_rss_start,
           (unsigned long long)g_dev_before, seconds, (unsigned long long)e->activations,
           g_ckpt, g_steps,
           g_s_last > g_s_first ? (g_t_last - g_t_first) / (double)(g_s_last - g_s_first) : 0.0);
}

#include <time.h>
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(genesis_ctx *ctx, genesis_status st) {
    fprintf(stderr, "bench_memory: %s\n", ctx ? genesis_errmsg(ctx) : genesis_status_str(st));
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "fit") && strcmp(argv[1], "sample"))) {
        fprintf(stderr, "usage: bench_memory fit data.csv [ctgan|tvae] [epochs] [batch] [save]\n"
                        "       bench_memory sample model.gen rows [batch]\n");
        return 2;
    }
    genesis_device_info gpus[16];
    int ngpu = 0;
    genesis_detect_devices(gpus, 16, &ngpu, NULL, 0); /* NVML: creates no context */
    if (ngpu > 0) g_dev_before = gpus[0].total_memory - gpus[0].free_memory;
    genesis_ctx *ctx;
    genesis_ctx_create(&ctx);
    genesis_ctx_set_seed(ctx, 0);
    const char *dev = getenv("GENESIS_DEVICE"); /* cpu | cuda | auto (default) */
    if (dev && !strcmp(dev, "cpu")) genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    if (dev && !strcmp(dev, "cuda")) genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, 0);
    genesis_model *m = NULL;
    genesis_memory_estimate e;
    genesis_status st;
    dev_peak dp = {NULL, 0};
    uint64_t peak = 0;
    double t0;
    if (!strcmp(argv[1], "fit")) {
        const char *method = argc > 3 ? argv[3] : "ctgan";
        int epochs = argc > 4 ? atoi(argv[4]) : 1;
        long long batch = argc > 5 ? atoll(argv[5]) : 0;
        genesis_table *t;
        if ((st = genesis_table_read_csv(ctx, argv[2], NULL, &t)) != GENESIS_OK) return fail(ctx, st);
        genesis_model_kind kind = !strcmp(method, "tvae") ? GENESIS_MODEL_TVAE
                                  : !strcmp(method, "ddpm") ? GENESIS_MODEL_DDPM
                                                            : GENESIS_MODEL_CTGAN;
        st = genesis_model_create(ctx, kind, &m);
        if (st == GENESIS_OK)
            st = genesis_model_set_param(m, kind == GENESIS_MODEL_DDPM ? GENESIS_P_ITERATIONS : GENESIS_P_EPOCHS, epochs);
        if (st == GENESIS_OK && batch > 0) st = genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, (double)batch);
        g_ckpt = getenv("BENCH_GRADIENT_CHECKPOINTING") && atoi(getenv("BENCH_GRADIENT_CHECKPOINTING"));
        if (st == GENESIS_OK) st = genesis_model_set_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, g_ckpt);
        double B = 0;
        genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &B);
        int64_t nrows = genesis_table_nrows(t);
        g_steps = kind == GENESIS_MODEL_DDPM ? epochs : (long long)epochs * (long long)((nrows + (int64_t)B - 1) / (int64_t)B);
        if (st != GENESIS_OK) return fail(ctx, st);
        dp.m = m;
        if (reset_peak() != 0) fprintf(stderr, "bench_memory: cannot reset the peak; it includes reading\n");
        genesis_memory_usage(NULL, &g_rss_start, NULL, NULL);
        t0 = now();
        if ((st = genesis_model_fit(m, t, on_epoch, &dp)) != GENESIS_OK) return fail(ctx, st);
        genesis_memory_usage(m, NULL, &peak, NULL);
        /* the estimate from the fitted model's exact widths, for the same table */
        if ((st = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e)) != GENESIS_OK) return fail(ctx, st);
        report("fit", argv[2], &e, peak, dp.peak, now() - t0);
        if (argc > 6 && (st = genesis_model_save(m, argv[6])) != GENESIS_OK) return fail(ctx, st);
        genesis_table_free(t);
    } else {
        long long rows = argc > 3 ? atoll(argv[3]) : 1000000;
        long long batch = argc > 4 ? atoll(argv[4]) : 0;
        if ((st = genesis_model_load(ctx, argv[2], &m)) != GENESIS_OK) return fail(ctx, st);
        if ((st = genesis_model_set_sample_batch(m, batch)) != GENESIS_OK) return fail(ctx, st);
        if (batch == 0) { /* the batch the pipeline will use for n rows */
            genesis_sampler *probe;
            if ((st = genesis_sampler_create(m, rows, 0, &probe)) != GENESIS_OK) return fail(ctx, st);
            batch = genesis_sampler_batch_rows(probe);
            genesis_sampler_free(probe);
        }
        if ((st = genesis_estimate_memory(m, NULL, GENESIS_WORKLOAD_SAMPLE, batch, &e)) != GENESIS_OK)
            return fail(ctx, st);
        dp.m = m;
        genesis_model_set_sample_progress(m, on_batch, &dp);
        if (reset_peak() != 0) fprintf(stderr, "bench_memory: cannot reset the peak\n");
        genesis_memory_usage(NULL, &g_rss_start, NULL, NULL);
        t0 = now();
        const char *out = getenv("BENCH_MEMORY_OUT") ? getenv("BENCH_MEMORY_OUT") : "/tmp/bench_memory_out.csv";
        if ((st = genesis_model_sample_csv(m, rows, out)) != GENESIS_OK) return fail(ctx, st);
        remove(out);
        genesis_memory_usage(m, NULL, &peak, NULL);
        report("sample", argv[2], &e, peak, dp.peak, now() - t0);
    }
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    return 0;
}
