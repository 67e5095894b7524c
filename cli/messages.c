/*
 * messages.c — what the command prints besides its results: usage errors, library errors
 * and notices with the library's API names replaced by the command's flags, and the byte and
 * duration formats. Errors read "genesis: error: <what>"; exit codes 0 success, 1 error,
 * 2 usage error (docs/cli.md).
 */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

int usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "genesis: error: ");
    vfprintf(stderr, fmt, ap);
    if (cmd) fprintf(stderr, "\nTry 'genesis %s --help'.\n", cmd);
    else fprintf(stderr, "\nTry 'genesis --help'.\n");
    va_end(ap);
    return EXIT_USAGE;
}

/* The library's messages name what a caller can change by its API name, in backquotes: a
 * model setting by its parameter-table name (`batch-size`: genesis_param_get_info), a
 * function, an argument or an enum value (`genesis_model_set_condition`, `entity`,
 * `GENESIS_DEVICE_CPU`). The command prints its own flag instead: settings through the
 * parameter table, the rest through this list. A name it does not know is printed as the
 * library wrote it. */
static const struct {
    const char *api, *cli;
} API_FLAGS[] = {
    {"genesis_model_set_condition", "--condition"},
    {"entity", "--entity"},
    {"time", "--time"},
    {"calendar", "--calendar"},
    {"datetime", "--datetime"},
    {"not_datetime", "--not-datetime"},
    {"id", "--id"},
    {"not_id", "--not-id"},
    {"GENESIS_DEVICE_CUDA", "--device cuda"},
    {"GENESIS_DEVICE_CPU", "--device cpu"},
    {"GENESIS_DEVICE_AUTO", "--device auto"},
    {"GENESIS_DIST_MPI", "--distributed mpi"},
    {"genesis_model_set_sample_batch", "--sample-batch"},
    {"genesis_model_set_target", "--target"},
    {"genesis_ctx_set_memory_budget(limit_bytes)", "--memory-limit"},
    {"genesis_ctx_set_memory_budget(fraction)", "--memory-fraction"},
    {"genesis_model_save", "'genesis fit' (or --save)"},
    {"genesis_model_set_checkpoint", "--checkpoint"},
    {"genesis_model_load_checkpoint", "--resume"},
    {"genesis_model_load", "'genesis sample -m'"},
};

/* the flag for the API name api[0 .. n), or NULL */
static const char *api_flag(const char *api, size_t n, char *buf, size_t cap) {
    genesis_param_info pi;
    for (int p = 0; genesis_param_get_info((genesis_param)p, 0, &pi) == GENESIS_OK; p++)
        if (strlen(pi.name) == n && memcmp(pi.name, api, n) == 0) {
            snprintf(buf, cap, "--%s", pi.name);
            return buf;
        }
    for (size_t i = 0; i < sizeof API_FLAGS / sizeof API_FLAGS[0]; i++)
        if (strlen(API_FLAGS[i].api) == n && memcmp(API_FLAGS[i].api, api, n) == 0)
            return API_FLAGS[i].cli;
    return NULL;
}

void put_message(FILE *f, const char *msg) {
    char buf[96];
    const char *p = msg;
    for (;;) {
        const char *a = strchr(p, '`'), *b = a ? strchr(a + 1, '`') : NULL;
        if (!b) {
            fputs(p, f);
            return;
        }
        fwrite(p, 1, (size_t)(a - p), f);
        const char *flag = api_flag(a + 1, (size_t)(b - a - 1), buf, sizeof buf);
        if (flag) fputs(flag, f);
        else fwrite(a, 1, (size_t)(b - a + 1), f);
        p = b + 1;
    }
}

int lib_error(genesis_ctx *ctx, genesis_status st) {
    const char *msg = ctx ? genesis_errmsg(ctx) : "";
    flockfile(stderr);
    fputs("genesis: error: ", stderr);
    put_message(stderr, msg && *msg ? msg : genesis_status_str(st));
    fputc('\n', stderr);
    funlockfile(stderr);
    return st == GENESIS_ERR_INVALID_ARG ? EXIT_USAGE : 1;
}

/* user: the command's quiet flag (per rank when ranks are threads) */
void log_to_stderr(genesis_log_level lvl, const char *msg, void *user) {
    int quiet = user ? *(const int *)user : 0;
    if (lvl == GENESIS_LOG_DEBUG || (quiet && lvl > GENESIS_LOG_ERROR)) return;
    flockfile(stderr); /* one line, even when ranks are threads */
    fprintf(stderr, "genesis: %s: ",
            lvl == GENESIS_LOG_ERROR ? "error" : lvl == GENESIS_LOG_WARN ? "warning" : "note");
    put_message(stderr, msg);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void fmt_mib(char *buf, size_t cap, uint64_t b) {
    if (b >= (1ULL << 30)) snprintf(buf, cap, "%.2f GiB", (double)b / 1073741824.0);
    else if (b >= (10ULL << 20)) snprintf(buf, cap, "%.0f MiB", (double)b / 1048576.0);
    else if (b >= (1ULL << 20)) snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
    else if (b >= 1024) snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
    else snprintf(buf, cap, "%llu B", (unsigned long long)b);
}

void fmt_duration(char *buf, size_t cap, double s) {
    if (s < 60) snprintf(buf, cap, "%.0fs", s);
    else if (s < 3600) snprintf(buf, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, cap, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}
