/*
 * cmd_sample.c — `genesis sample` (load a model, write rows) and what it shares with
 * `generate`: the conditions (--condition column=value) and writing the rows with the
 * sampling batch, its progress line and the summary. Sampling-time settings (the parameter
 * table's after_fit ones) may override the model's; the parser refuses the others.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *split_condition(const char *cond, char *buf, size_t cap, const char **value) {
    snprintf(buf, cap, "%s", cond);
    char *eq = strchr(buf, '=');
    *eq = 0;
    *value = eq + 1;
    char *name = buf;
    while (*name == ' ' || *name == '\t') name++;
    size_t n = strlen(name);
    while (n && (name[n - 1] == ' ' || name[n - 1] == '\t')) name[--n] = 0;
    return name;
}

genesis_status apply_conditions(genesis_model *m, const options *o) {
    genesis_status st = GENESIS_OK;
    for (int i = 0; st == GENESIS_OK && i < o->nconds; i++) {
        char buf[4096];
        const char *value, *name = split_condition(o->conds[i], buf, sizeof buf, &value);
        st = genesis_model_set_condition(m, name, value);
    }
    return st;
}

typedef struct progress_line {
    int tty;
    const genesis_model *m;
    double last;
} progress_line;

/* Rows done, rows/s and memory in use, at most every half second (and at the end). */
static int show_sample_progress(int64_t done, int64_t total, double sec, void *user) {
    progress_line *sp = user;
    if (done < total && sec - sp->last < 0.5) return 0;
    sp->last = sec;
    uint64_t rss = 0, dev = 0;
    genesis_memory_usage(sp->m, &rss, NULL, &dev);
    char host[32], gpu[64] = "";
    fmt_mib(host, sizeof host, rss);
    if (dev) {
        char d[32];
        fmt_mib(d, sizeof d, dev);
        snprintf(gpu, sizeof gpu, "  GPU memory in use %s", d);
    }
    double pct = total > 0 ? 100.0 * (double)done / (double)total : 100.0;
    fprintf(stderr, "%ssampled %lld/%lld rows (%.0f%%)  %.0f rows/s  host memory %s%s%s",
            sp->tty ? "\r\033[K" : "", (long long)done, (long long)total, pct,
            sec > 0 ? (double)done / sec : 0.0, host, gpu, sp->tty && done < total ? "" : "\n");
    fflush(stderr);
    return 0;
}

genesis_status write_sample_rows(genesis_ctx *ctx, genesis_model *m, const options *o, int64_t n) {
    genesis_status st = genesis_model_set_sample_batch(m, o->sample_batch);
    if (st != GENESIS_OK) return st;
    /* --devices / --multi-gpu: the rows spread over every listed GPU (the same bytes);
     * TimeGAN's draws continue from group to group, so it samples on its own GPU */
    int seq_model = genesis_model_kind_features(genesis_model_get_kind(m)) & GENESIS_FEATURE_SEQUENCES;
    if (o->ndevices > 1 && seq_model && !o->quiet)
        fprintf(stderr, "genesis: note: TimeGAN samples on one GPU (%s)\n", genesis_ctx_device_name(ctx));
    if (o->ndevices > 1 && !seq_model &&
        (st = genesis_model_set_sample_devices(m, o->devices, o->ndevices)) != GENESIS_OK)
        return st;
    progress_line sp = {isatty(2), m, 0};
    if (!o->quiet && (sp.tty || o->progress)) genesis_model_set_sample_progress(m, show_sample_progress, &sp);
    if (!o->quiet && !o->sample_batch && n > 0) {
        int64_t b = 0;
        double T = 1; /* TimeGAN: n counts sequences of seq-len rows */
        if (genesis_model_kind_features(genesis_model_get_kind(m)) & GENESIS_FEATURE_SEQUENCES)
            genesis_model_get_param(m, GENESIS_P_SEQ_LEN, &T);
        uint64_t budget = 0;
        genesis_memory_budget(m, &budget, NULL);
        if (genesis_optimize_batch_size(m, NULL, GENESIS_WORKLOAD_SAMPLE, &b) == GENESIS_OK) {
            char bb[32];
            fmt_mib(bb, sizeof bb, budget);
            char more[64] = "";
            if (o->ndevices > 1 && !seq_model)
                snprintf(more, sizeof more, ", one batch at a time on each of %d GPUs", o->ndevices);
            fprintf(stderr, "genesis: sampling in batches of %lld rows (memory budget %s on %s%s)\n",
                    (long long)(b < n * (int64_t)T ? b : n * (int64_t)T), bb,
                    genesis_ctx_device_name(ctx), more);
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = genesis_model_sample_csv(m, n, o->output);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int seq = genesis_model_kind_features(genesis_model_get_kind(m)) & GENESIS_FEATURE_SEQUENCES;
    const char *unit = seq ? "sequences" : "rows";
    if (st == GENESIS_OK && !o->quiet && strcmp(o->output, "-") != 0)
        fprintf(stderr, "genesis: wrote %lld %s to %s in %.2f s (%.0f %s/s)\n", (long long)n, unit,
                o->output, s, s > 0 ? (double)n / s : 0.0, unit);
    return st;
}

int cmd_sample(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_SAMPLE, argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    if (resolve_devices(&o) != GENESIS_OK) return EXIT_USAGE;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = genesis_model_load(ctx, o.model, &m);
    if (st == GENESIS_OK) st = apply_settings(m, &o);
    if (st == GENESIS_OK) st = apply_conditions(m, &o);
    if (st == GENESIS_OK) st = write_sample_rows(ctx, m, &o, o.rows);
    return finish(ctx, m, st);
}
