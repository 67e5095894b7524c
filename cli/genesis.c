/*
 * genesis.c — the `genesis` command: generate | fit | sample | info. It includes only the
 * public header, so everything it does a C program embedding libgenesis can do too.
 * Model settings flags (--epochs, --generator-lr, ...) are generated from the library's
 * parameter table (genesis_param_bounds), so the CLI and the API cannot drift apart.
 * Exit codes: 0 success, 1 error, 2 usage error. Errors read "genesis: error: <what>".
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <genesis/genesis.h>

#define EXIT_USAGE 2
#define NPARAM_MAX 64
#define MAX_CONDS 64

/* ---- messages ------------------------------------------------------------------------- */

static int g_quiet = 0;

static int usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "genesis: error: ");
    vfprintf(stderr, fmt, ap);
    if (cmd) fprintf(stderr, "\nTry 'genesis %s --help'.\n", cmd);
    else fprintf(stderr, "\nTry 'genesis --help'.\n");
    va_end(ap);
    return EXIT_USAGE;
}

static int lib_error(genesis_ctx *ctx, genesis_status st) {
    const char *msg = ctx ? genesis_errmsg(ctx) : "";
    fprintf(stderr, "genesis: error: %s\n", msg && *msg ? msg : genesis_status_str(st));
    return st == GENESIS_ERR_INVALID_ARG ? EXIT_USAGE : 1;
}

static void log_to_stderr(genesis_log_level lvl, const char *msg, void *user) {
    (void)user;
    if (lvl == GENESIS_LOG_DEBUG || (g_quiet && lvl > GENESIS_LOG_ERROR)) return;
    fprintf(stderr, "genesis: %s: %s\n",
            lvl == GENESIS_LOG_ERROR ? "error" : lvl == GENESIS_LOG_WARN ? "warning" : "note", msg);
}

/* ---- options -------------------------------------------------------------------------- */

typedef struct options {
    const char *input, *output, *model_in, *model_out, *save, *method;
    const char *entity, *time; /* TimeGAN panel data */
    const char *delimiter, *na, *discrete, *continuous;
    int no_header;
    long long rows;
    int rows_set;
    unsigned long long seed;
    int threads;
    genesis_device_kind device;
    int device_index;
    int quiet, progress;
    const char *conds[MAX_CONDS];
    int nconds;
    int pset[NPARAM_MAX];
    double pval[NPARAM_MAX];
} options;

enum {
    OPT_DELIM = 1000, OPT_NA, OPT_DISCRETE, OPT_CONTINUOUS, OPT_NOHEADER, OPT_METHOD, OPT_SEED,
    OPT_THREADS, OPT_DEVICE, OPT_QUIET, OPT_SAVE, OPT_COND, OPT_PROGRESS, OPT_VERSION,
    OPT_ENTITY, OPT_TIME,
    OPT_PARAM_BASE = 2000
};

static int parse_ll(const char *s, long long *v) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *v = x;
    return 0;
}

static int parse_double(const char *s, double *v) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x)) return -1;
    *v = x;
    return 0;
}

/* "cpu", "auto", "cuda", "cuda:N" */
static int parse_device(const char *s, genesis_device_kind *k, int *idx) {
    *idx = 0;
    if (!strcmp(s, "cpu")) *k = GENESIS_DEVICE_CPU;
    else if (!strcmp(s, "auto")) *k = GENESIS_DEVICE_AUTO;
    else if (!strcmp(s, "cuda")) *k = GENESIS_DEVICE_CUDA;
    else if (!strncmp(s, "cuda:", 5)) {
        long long v;
        if (parse_ll(s + 5, &v) || v < 0 || v > 255) return -1;
        *k = GENESIS_DEVICE_CUDA;
        *idx = (int)v;
    } else return -1;
    return 0;
}

static int n_params(void) {
    int n = 0;
    while (n < NPARAM_MAX && genesis_param_bounds((genesis_param)n, NULL, NULL, NULL, NULL) == GENESIS_OK) n++;
    return n;
}

/* Which flags each command takes. */
enum { F_INPUT = 1, F_OUTPUT = 2, F_MODEL_IN = 4, F_MODEL_OUT = 8, F_ROWS = 16, F_TRAIN = 32,
       F_COND = 64, F_SAVE = 128, F_RUN = 256 };

static void print_param_help(void) {
    int np = n_params();
    fprintf(stdout, "\nModel settings (architecture and optimiser defaults are the reference "
                    "implementation's;\npoint-masses, clamp-range, max-categories, vgm-max-rows "
                    "and sample-argmax 0 are Genesis additions):\n");
    for (int p = 0; p < np; p++) {
        double lo, hi, def, tdef;
        const char *name;
        genesis_param_bounds((genesis_param)p, &lo, &hi, &def, &name);
        genesis_param_default(GENESIS_MODEL_TVAE, (genesis_param)p, &tdef);
        if (tdef != def)
            fprintf(stdout, "  --%-22s %g, TVAE %g  (range %g .. %g)\n", name, def, tdef, lo, hi);
        else
            fprintf(stdout, "  --%-22s %g  (range %g .. %g)\n", name, def, lo, hi);
    }
}

static void help_evaluate(void);

static void help(const char *cmd) {
    if (cmd && !strcmp(cmd, "evaluate")) {
        help_evaluate();
        return;
    }
    if (!cmd || !strcmp(cmd, "genesis")) {
        printf("genesis %s — synthetic tabular data (CTGAN, TVAE) and sequences (TimeGAN)\n\n"
               "Usage:\n"
               "  genesis generate -i data.csv -o synthetic.csv -n ROWS [options]\n"
               "  genesis fit      -i data.csv -m model.gen [options]\n"
               "  genesis sample   -m model.gen -o synthetic.csv -n ROWS [--condition col=value]\n"
               "  genesis evaluate --real real.csv --synthetic synthetic.csv [--holdout test.csv]\n"
               "                   [--target col] [--json] [--report report.html]\n"
               "  genesis generate --method timegan -i series.csv --seq-len 24 -n SEQUENCES -o out.csv\n"
               "                   [--entity id_col --time time_col]\n"
               "  genesis evaluate --sequences --real series.csv --synthetic out.csv --seq-len 24\n"
               "  genesis info\n\n"
               "Run 'genesis COMMAND --help' for a command's options. 'genesis --version'.\n"
               "Exit codes: 0 success, 1 error, 2 usage error.\n",
               genesis_version_string());
        return;
    }
    if (!strcmp(cmd, "info")) {
        printf("Usage: genesis info\n\nPrints the version, the build's features and the GPUs found.\n");
        return;
    }
    if (!strcmp(cmd, "generate"))
        printf("Usage: genesis generate -i data.csv -o synthetic.csv -n ROWS [options]\n\n"
               "Learns the table and writes ROWS synthetic rows ('-' = stdin/stdout).\n");
    else if (!strcmp(cmd, "fit"))
        printf("Usage: genesis fit -i data.csv -m model.gen [options]\n\nLearns the table and saves the model.\n");
    else if (!strcmp(cmd, "sample"))
        printf("Usage: genesis sample -m model.gen -o synthetic.csv -n ROWS [options]\n\n"
               "Writes ROWS synthetic rows from a saved model.\n");
    printf("\nOptions:\n");
    if (strcmp(cmd, "sample") != 0)
        printf("  -i, --input FILE        the real table (CSV with a header row)\n"
               "      --delimiter C       ',' ';' 'tab' '|' (default: sniffed)\n"
               "      --na TOKEN[,TOKEN]  extra missing-value tokens (always: empty ? NA N/A NaN nan null NULL None)\n"
               "      --discrete a,b      force these columns categorical\n"
               "      --continuous c,d    force these columns continuous\n"
               "      --no-header         the file has no header row\n"
               "      --method NAME       ctgan (default), tvae or timegan (sequences)\n"
               "      --entity COL        timegan: column identifying each series (panel data)\n"
               "      --time COL          timegan: numeric column ordering the rows\n"
               "      --device D          cpu | auto | cuda | cuda:N (default auto)\n"
               "      --threads N         CPU threads (default 0: the cores other work is not using;\n"
               "                          OMP_NUM_THREADS when set); never changes the output\n");
    if (!strcmp(cmd, "generate") || !strcmp(cmd, "sample"))
        printf("  -o, --output FILE       the synthetic table (written to a temporary name, then renamed)\n"
               "  -n, --rows N            rows to generate (default: as many as the input had for generate)\n"
               "      --condition c=v     only rows with categorical column c = v (repeatable; several\n"
               "                          conditions take turns row by row)\n");
    if (!strcmp(cmd, "fit")) printf("  -m, --model FILE        where to save the model (.gen)\n");
    if (!strcmp(cmd, "sample")) printf("  -m, --model FILE        a model saved by fit or --save\n");
    if (!strcmp(cmd, "generate")) printf("      --save FILE         also save the fitted model\n");
    printf("      --seed S            random seed (default 0); the same seed and input give the same\n"
           "                          output, whatever the thread count\n"
           "  -q, --quiet             no progress or notes\n"
           "      --progress          progress lines even when stderr is not a terminal\n"
           "  -h, --help              this help\n");
    if (strcmp(cmd, "sample") != 0) print_param_help();
    else printf("      --sample-argmax 0|1 TVAE: 1 decodes categories by argmax (the reference's way)\n"
                "      --bn-eval-sample 0|1 CTGAN: 1 uses batch norm's running statistics\n"
                "      --clamp-range 0|1   1 keeps values inside the real column's range\n");
}

/* Settings that shape sampling only, so `sample` may change them on a saved model. */
static int is_sampling_param(int p) {
    return p == GENESIS_P_BN_EVAL_SAMPLE || p == GENESIS_P_CLAMP_RANGE || p == GENESIS_P_SAMPLE_ARGMAX;
}

static int parse_args(const char *cmd, int flags, int argc, char **argv, options *o) {
    static struct option base[] = {
        {"input", required_argument, 0, 'i'}, {"output", required_argument, 0, 'o'},
        {"model", required_argument, 0, 'm'}, {"rows", required_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'}, {"quiet", no_argument, 0, 'q'},
        {"delimiter", required_argument, 0, OPT_DELIM}, {"na", required_argument, 0, OPT_NA},
        {"discrete", required_argument, 0, OPT_DISCRETE},
        {"continuous", required_argument, 0, OPT_CONTINUOUS},
        {"no-header", no_argument, 0, OPT_NOHEADER}, {"method", required_argument, 0, OPT_METHOD},
        {"seed", required_argument, 0, OPT_SEED}, {"threads", required_argument, 0, OPT_THREADS},
        {"device", required_argument, 0, OPT_DEVICE}, {"save", required_argument, 0, OPT_SAVE},
        {"condition", required_argument, 0, OPT_COND}, {"progress", no_argument, 0, OPT_PROGRESS},
        {"entity", required_argument, 0, OPT_ENTITY}, {"time", required_argument, 0, OPT_TIME},
    };
    int nb = (int)(sizeof base / sizeof base[0]), np = n_params();
    struct option longopts[sizeof base / sizeof base[0] + NPARAM_MAX + 1];
    memcpy(longopts, base, sizeof base);
    for (int p = 0; p < np; p++) {
        const char *name;
        genesis_param_bounds((genesis_param)p, NULL, NULL, NULL, &name);
        longopts[nb + p] = (struct option){name, required_argument, 0, OPT_PARAM_BASE + p};
    }
    memset(&longopts[nb + np], 0, sizeof longopts[0]);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":i:o:m:n:hq", longopts, NULL)) != -1) {
        long long v;
        switch (c) {
        case 'h': help(cmd); exit(0);
        case 'q': o->quiet = 1; break;
        case 'i': o->input = optarg; break;
        case 'o': o->output = optarg; break;
        case 'm': o->model_in = o->model_out = optarg; break;
        case 'n':
            if (parse_ll(optarg, &v) || v < 0)
                return usage_error(cmd, "-n/--rows must be a whole number >= 0, got '%s'", optarg);
            o->rows = v;
            o->rows_set = 1;
            break;
        case OPT_DELIM:
            if (!strcmp(optarg, "tab") || !strcmp(optarg, "\\t")) o->delimiter = "\t";
            else if (strlen(optarg) != 1 || optarg[0] == '"' || optarg[0] == '\n' || optarg[0] == '\r')
                return usage_error(cmd, "--delimiter must be one character (or 'tab'), got '%s'", optarg);
            else o->delimiter = optarg;
            break;
        case OPT_NA: o->na = optarg; break;
        case OPT_DISCRETE: o->discrete = optarg; break;
        case OPT_CONTINUOUS: o->continuous = optarg; break;
        case OPT_NOHEADER: o->no_header = 1; break;
        case OPT_METHOD: o->method = optarg; break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            if (optarg[0] == '-') return usage_error(cmd, "--seed must be a whole number >= 0, got '%s'", optarg);
            unsigned long long s = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end)
                return usage_error(cmd, "--seed must be a whole number >= 0, got '%s'", optarg);
            o->seed = s;
            break;
        }
        case OPT_THREADS:
            if (parse_ll(optarg, &v) || v < 0 || v > 1024)
                return usage_error(cmd, "--threads must be between 0 and 1024, got '%s'", optarg);
            o->threads = (int)v;
            break;
        case OPT_DEVICE:
            if (parse_device(optarg, &o->device, &o->device_index))
                return usage_error(cmd, "--device must be cpu, auto, cuda or cuda:N, got '%s'", optarg);
            break;
        case OPT_SAVE: o->save = optarg; break;
        case OPT_COND:
            if (!strchr(optarg, '=')) return usage_error(cmd, "--condition needs column=value, got '%s'", optarg);
            if (o->nconds >= MAX_CONDS) return usage_error(cmd, "at most %d --condition flags", MAX_CONDS);
            o->conds[o->nconds++] = optarg;
            break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_ENTITY: o->entity = optarg; break;
        case OPT_TIME: o->time = optarg; break;
        case ':': return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        case '?':
            if (optopt) return usage_error(cmd, "unknown option '-%c'", optopt);
            return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        default:
            if (c >= OPT_PARAM_BASE && c < OPT_PARAM_BASE + np) {
                int p = c - OPT_PARAM_BASE;
                const char *name;
                double lo, hi, val;
                genesis_param_bounds((genesis_param)p, &lo, &hi, NULL, &name);
                if (parse_double(optarg, &val) || val < lo || val > hi)
                    return usage_error(cmd, "--%s must be a number between %g and %g, got '%s'", name,
                                       lo, hi, optarg);
                o->pset[p] = 1;
                o->pval[p] = val;
            }
            break;
        }
    }
    if (optind < argc) return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    /* which flags this command accepts */
    if (!(flags & F_TRAIN)) {
        for (int p = 0; p < np; p++)
            if (o->pset[p] && !is_sampling_param(p)) {
                const char *name;
                genesis_param_bounds((genesis_param)p, NULL, NULL, NULL, &name);
                return usage_error(cmd, "--%s is a training setting; it applies to fit and generate", name);
            }
        if (o->input) return usage_error(cmd, "-i/--input does not apply to '%s'", cmd);
    }
    if (!(flags & F_COND) && o->nconds) return usage_error(cmd, "--condition applies to generate and sample");
    if (!(flags & F_INPUT) && (o->entity || o->time))
        return usage_error(cmd, "--entity and --time apply to fit and generate (a saved TimeGAN model keeps them)");
    if (!(flags & F_INPUT) && (o->delimiter || o->na || o->discrete || o->continuous || o->no_header || o->method))
        return usage_error(cmd, "reading options (--delimiter, --na, --discrete, --continuous, "
                                "--no-header, --method) apply to fit and generate");
    if (!(flags & F_SAVE) && o->save)
        return usage_error(cmd, "--save applies to generate (fit saves to -m/--model)");
    if ((flags & F_SAVE) && o->save && o->model_out)
        return usage_error(cmd, "give the model file once: --save FILE");
    if (flags & F_SAVE) o->model_out = o->save;
    if ((flags & F_INPUT) && !o->input) return usage_error(cmd, "missing -i/--input FILE");
    if ((flags & F_OUTPUT) && !o->output) return usage_error(cmd, "missing -o/--output FILE");
    if ((flags & F_MODEL_IN) && !o->model_in) return usage_error(cmd, "missing -m/--model FILE");
    if (!(flags & F_ROWS) && o->rows_set) return usage_error(cmd, "-n/--rows does not apply to '%s'", cmd);
    if (!(flags & F_OUTPUT) && o->output) return usage_error(cmd, "-o/--output does not apply to '%s'", cmd);
    if (o->method && strcmp(o->method, "ctgan") != 0 && strcmp(o->method, "tvae") != 0 &&
        strcmp(o->method, "timegan") != 0)
        return usage_error(cmd, "--method must be ctgan, tvae or timegan, got '%s'", o->method);
    int timegan = o->method && !strcmp(o->method, "timegan");
    if ((o->entity || o->time) && !timegan)
        return usage_error(cmd, "--entity and --time apply to --method timegan (sequences)");
    if (timegan && o->nconds) return usage_error(cmd, "--condition needs --method ctgan (TimeGAN has no conditional vector)");
    if (!timegan)
        for (int p = GENESIS_P_SEQ_LEN; p < np && p <= GENESIS_P_ITERATIONS; p++)
            if (o->pset[p] && (flags & F_INPUT)) {
                const char *name;
                genesis_param_bounds((genesis_param)p, NULL, NULL, NULL, &name);
                return usage_error(cmd, "--%s applies to --method timegan", name);
            }
    return 0;
}

/* ---- progress ------------------------------------------------------------------------- */

static void fmt_duration(char *buf, size_t cap, double s) {
    if (s < 60) snprintf(buf, cap, "%.0fs", s);
    else if (s < 3600) snprintf(buf, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, cap, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

typedef struct progress_state {
    int tty;
    int gan; /* two losses (CTGAN) or one (TVAE) */
    int seq; /* TimeGAN: "epochs" are the three phases */
} progress_state;

/* TimeGAN: one line per phase on a terminal, a line every 10% otherwise. */
static int show_seq_progress(const genesis_progress *p, const progress_state *ps) {
    static const char *what[] = {"", "embedding  sqrt(E_T0)", "supervised sqrt(G_S)", "joint      G_U"};
    int64_t per = p->steps / 3, it = p->step - (int64_t)(p->epoch - 1) * per;
    char eta[32], el[32], dl[32] = "";
    fmt_duration(eta, sizeof eta, p->eta_s);
    fmt_duration(el, sizeof el, p->elapsed_s);
    if (p->epoch == 3) snprintf(dl, sizeof dl, "  D %.3f", p->loss_d);
    if (ps->tty) {
        fprintf(stderr, "\r\033[Kphase %d/3 %s %.4f%s  iteration %lld/%lld  %s elapsed  ETA %s",
                p->epoch, what[p->epoch], p->loss_g, dl, (long long)it, (long long)per, el, eta);
        if (it == per) fputc('\n', stderr);
    } else if (per < 10 || it % (per / 10) == 0 || it == per) {
        fprintf(stderr, "phase %d/3 %s %.4f%s  iteration %lld/%lld  %s elapsed  ETA %s\n", p->epoch,
                what[p->epoch], p->loss_g, dl, (long long)it, (long long)per, el, eta);
    }
    fflush(stderr);
    return 0;
}

static int show_progress(const genesis_progress *p, void *user) {
    const progress_state *ps = user;
    if (ps->seq) return show_seq_progress(p, ps);
    int tty = ps->tty;
    char losses[64];
    if (ps->gan) snprintf(losses, sizeof losses, "loss G %+.3f  D %+.3f", p->loss_g, p->loss_d);
    else snprintf(losses, sizeof losses, "loss %+.3f", p->loss_g);
    char eta[32], el[32];
    fmt_duration(eta, sizeof eta, p->eta_s);
    fmt_duration(el, sizeof el, p->elapsed_s);
    if (tty) {
        fprintf(stderr, "\r\033[Kepoch %d/%d  %s  %.0f rows/s  %s elapsed  ETA %s", p->epoch,
                p->epochs, losses, p->rows_per_s, el, eta);
        if (p->epoch == p->epochs) fputc('\n', stderr);
    } else if (p->epoch == p->epochs || p->epoch % 10 == 0 || p->epoch == 1) {
        fprintf(stderr, "epoch %d/%d  %s  %.0f rows/s  %s elapsed  ETA %s\n", p->epoch, p->epochs,
                losses, p->rows_per_s, el, eta);
    }
    fflush(stderr);
    return 0;
}

/* ---- commands --------------------------------------------------------------------------- */

static genesis_status make_ctx(const options *o, genesis_ctx **ctx) {
    genesis_status st = genesis_ctx_create(ctx);
    if (st != GENESIS_OK) return st;
    genesis_ctx_set_log(*ctx, log_to_stderr, NULL);
    genesis_ctx_set_seed(*ctx, o->seed);
    if ((st = genesis_ctx_set_threads(*ctx, o->threads)) != GENESIS_OK) return st;
    return genesis_ctx_set_device(*ctx, o->device, o->device_index);
}

/* Splits "column=value" into buf: the column name with surrounding spaces trimmed (the
 * value is matched by the library, exactly or ignoring surrounding spaces). */
static const char *split_condition(const char *cond, char *buf, size_t cap, const char **value) {
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

static genesis_status apply_conditions(genesis_model *m, const options *o) {
    for (int i = 0; i < o->nconds; i++) {
        char buf[4096];
        const char *value;
        const char *name = split_condition(o->conds[i], buf, sizeof buf, &value);
        genesis_status st = genesis_model_set_condition(m, name, value);
        if (st != GENESIS_OK) return st;
    }
    return GENESIS_OK;
}

/* Before training: every --condition names a categorical column of the table and the
 * method has a conditional vector, so a typo does not cost a whole training run. */
static int check_conditions_early(const options *o, const genesis_table *t) {
    if (o->nconds && o->method && strcmp(o->method, "tvae") == 0)
        return usage_error("generate", "--condition needs --method ctgan (TVAE has no conditional vector)");
    for (int i = 0; i < o->nconds; i++) {
        char buf[4096];
        const char *value;
        const char *name = split_condition(o->conds[i], buf, sizeof buf, &value);
        int found = -1;
        for (int c = 0; c < genesis_table_ncols(t); c++)
            if (!strcmp(genesis_table_column_name(t, c), name)) found = c;
        if (found < 0) return usage_error("generate", "--condition: no column named '%s' in %s", name, o->input);
        if (genesis_table_column_type(t, found) != GENESIS_COLUMN_CATEGORICAL)
            return usage_error("generate", "--condition: column '%s' is continuous; conditions apply to "
                                           "categorical columns", name);
    }
    return 0;
}

static genesis_status fit_from_options(genesis_ctx *ctx, const options *o, genesis_model **m,
                                       int64_t *nrows) {
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.delimiter = o->delimiter ? o->delimiter[0] : 0;
    co.has_header = !o->no_header;
    co.na_tokens = o->na;
    co.discrete = o->discrete;
    co.continuous = o->continuous;
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(ctx, o->input, &co, &t);
    if (st != GENESIS_OK) return st;
    *nrows = genesis_table_nrows(t);
    if (check_conditions_early(o, t)) {
        genesis_table_free(t);
        return GENESIS_ERR_CANCELLED; /* the usage error is already printed */
    }
    genesis_model_kind kind = o->method && !strcmp(o->method, "tvae") ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    if (o->method && !strcmp(o->method, "timegan")) kind = GENESIS_MODEL_TIMEGAN;
    st = genesis_model_create(ctx, kind, m);
    for (int p = 0; st == GENESIS_OK && p < NPARAM_MAX; p++)
        if (o->pset[p]) st = genesis_model_set_param(*m, (genesis_param)p, o->pval[p]);
    if (st == GENESIS_OK && kind == GENESIS_MODEL_TIMEGAN)
        st = genesis_model_set_sequence_columns(*m, o->entity, o->time);
    if (st == GENESIS_OK && !o->quiet && kind == GENESIS_MODEL_TIMEGAN) {
        double sl, it, hd, nl;
        genesis_model_get_param(*m, GENESIS_P_SEQ_LEN, &sl);
        genesis_model_get_param(*m, GENESIS_P_ITERATIONS, &it);
        genesis_model_get_param(*m, GENESIS_P_HIDDEN_DIM, &hd);
        genesis_model_get_param(*m, GENESIS_P_NUM_LAYERS, &nl);
        fprintf(stderr, "genesis: %s: %lld rows x %d columns; training TimeGAN (seq-len %g, hidden %g, "
                        "%g layers) for 3 x %g iterations on %s\n",
                o->input, (long long)genesis_table_nrows(t), genesis_table_ncols(t), sl, hd, nl, it,
                genesis_ctx_device_name(ctx));
    } else if (st == GENESIS_OK && !o->quiet) {
        int ncont = 0;
        for (int c = 0; c < genesis_table_ncols(t); c++)
            ncont += genesis_table_column_type(t, c) == GENESIS_COLUMN_CONTINUOUS;
        double ep;
        genesis_model_get_param(*m, GENESIS_P_EPOCHS, &ep);
        fprintf(stderr, "genesis: %s: %lld rows x %d columns (%d continuous, %d categorical); "
                        "training %s for %g epochs on %s\n",
                o->input, (long long)genesis_table_nrows(t), genesis_table_ncols(t), ncont,
                genesis_table_ncols(t) - ncont, kind == GENESIS_MODEL_TVAE ? "TVAE" : "CTGAN", ep,
                genesis_ctx_device_name(ctx));
    }
    progress_state ps = {isatty(2), kind == GENESIS_MODEL_CTGAN, kind == GENESIS_MODEL_TIMEGAN};
    int want = !o->quiet && (ps.tty || o->progress);
    if (st == GENESIS_OK) st = genesis_model_fit(*m, t, want ? show_progress : NULL, &ps);
    genesis_table_free(t);
    return st;
}

static genesis_status write_rows(genesis_ctx *ctx, genesis_model *m, const options *o, int64_t n) {
    (void)ctx;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    genesis_status st = genesis_model_sample_csv(m, n, o->output);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int seq = genesis_model_get_kind(m) == GENESIS_MODEL_TIMEGAN;
    if (st == GENESIS_OK && !o->quiet && strcmp(o->output, "-") != 0)
        fprintf(stderr, "genesis: wrote %lld %s to %s in %.2f s (%.0f %s/s)\n", (long long)n,
                seq ? "sequences" : "rows", o->output, s, s > 0 ? (double)n / s : 0.0,
                seq ? "sequences" : "rows");
    return st;
}

/* Frees what a command made and turns its status into the exit code (CANCELLED means a
 * usage error was already printed, e.g. by check_conditions_early). */
static int finish(genesis_ctx *ctx, genesis_model *m, genesis_status st) {
    int rc = st == GENESIS_OK ? 0 : st == GENESIS_ERR_CANCELLED ? EXIT_USAGE : lib_error(ctx, st);
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    return rc;
}

static int cmd_generate(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("generate", F_INPUT | F_OUTPUT | F_ROWS | F_TRAIN | F_COND | F_SAVE, argc, argv, &o);
    if (rc) return rc;
    g_quiet = o.quiet;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, &o, &m, &nrows);
    if (st == GENESIS_OK && o.model_out) st = genesis_model_save(m, o.model_out);
    if (st == GENESIS_OK) st = apply_conditions(m, &o);
    int64_t n = o.rows_set ? o.rows : nrows;
    if (st == GENESIS_OK && !o.rows_set && genesis_model_get_kind(m) == GENESIS_MODEL_TIMEGAN) {
        double sl; /* as many sequences as a single series has windows, as the reference */
        genesis_model_get_param(m, GENESIS_P_SEQ_LEN, &sl);
        n = nrows - (int64_t)sl > 1 ? nrows - (int64_t)sl : 1;
    }
    if (st == GENESIS_OK) st = write_rows(ctx, m, &o, n);
    return finish(ctx, m, st);
}

static int cmd_fit(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("fit", F_INPUT | F_MODEL_IN | F_TRAIN, argc, argv, &o);
    if (rc) return rc;
    g_quiet = o.quiet;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, &o, &m, &nrows);
    if (st == GENESIS_OK) st = genesis_model_save(m, o.model_out);
    if (st == GENESIS_OK && !o.quiet) fprintf(stderr, "genesis: saved model to %s\n", o.model_out);
    return finish(ctx, m, st);
}

static int cmd_sample(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("sample", F_OUTPUT | F_MODEL_IN | F_ROWS | F_COND, argc, argv, &o);
    if (rc) return rc;
    if (!o.rows_set) return usage_error("sample", "missing -n/--rows N");
    g_quiet = o.quiet;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = genesis_model_load(ctx, o.model_in, &m);
    for (int p = 0; st == GENESIS_OK && p < NPARAM_MAX; p++)
        if (o.pset[p]) st = genesis_model_set_param(m, (genesis_param)p, o.pval[p]);
    if (st == GENESIS_OK) st = apply_conditions(m, &o);
    if (st == GENESIS_OK) st = write_rows(ctx, m, &o, o.rows);
    return finish(ctx, m, st);
}

static int cmd_info(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            help("info");
            return 0;
        }
        return usage_error("info", "unexpected argument '%s'", argv[i]);
    }
    printf("genesis %s (library %s)\n", GENESIS_VERSION_STRING, genesis_version_string());
    printf("models: ctgan, tvae, timegan\n");
    genesis_device_info dev[16];
    int n = 0;
    char why[256] = "";
    genesis_detect_devices(dev, 16, &n, why, sizeof why);
    printf("GPUs: %s\n", why);
    for (int i = 0; i < n; i++)
        printf("  cuda:%d  %s  compute %d.%d  memory %.1f GiB total, %.1f GiB free\n", dev[i].index,
               dev[i].name, dev[i].cc_major, dev[i].cc_minor, dev[i].total_memory / 1073741824.0,
               dev[i].free_memory / 1073741824.0);
    printf("training device: %s\n", n > 0 ? "cuda:0 with --device auto|cuda (the CUDA backend is not yet "
                                              "validated on a GPU; --device cpu forces the CPU)"
                                            : "cpu");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("CPU cores: %ld\n", cores);
    return 0;
}

/* ---- evaluate ------------------------------------------------------------------------- */

static void help_evaluate(void) {
    printf("Usage: genesis evaluate --real real.csv --synthetic synthetic.csv [options]\n"
           "       genesis evaluate --sequences --real real.csv --synthetic synthetic.csv\n"
           "                        [--seq-len 24] [--entity COL] [--time COL] [--repeats 10]\n"
           "                        [--disc-iterations 2000] [--pred-iterations 5000] [--real-baseline]\n"
           "         TimeGAN's discriminative and predictive scores on sequences (docs/timegan.md)\n\n"
           "Scores a synthetic table against the real table it imitates, as SDMetrics does:\n"
           "quality (column shapes, column pair trends: all pairs and the 2026 strong-pair\n"
           "mode), detection, validity, privacy (exact copies, new rows, distance to the\n"
           "closest record) and, with --holdout and --target, usefulness (train on synthetic,\n"
           "test on real). Both tables need the same columns; the synthetic table's column\n"
           "types follow the real table's. Definitions: docs/evaluate.md.\n\n"
           "Options:\n"
           "      --real FILE         the real (training) table\n"
           "      --synthetic FILE    the synthetic table\n"
           "      --holdout FILE      real rows the generator never saw: DCR overfitting\n"
           "                          protection, and the test set of --target\n"
           "      --target COLUMN     categorical column for usefulness (needs --holdout)\n"
           "      --metadata FILE     JSON column types overriding the real table's:\n"
           "                          {\"columns\":[{\"name\":\"age\",\"type\":\"continuous\"},...]}\n"
           "      --json              print every score and detail as JSON on stdout\n"
           "      --report FILE       write a self-contained HTML report\n"
           "      --skip PART[,PART]  leave out quality, validity, privacy, detection, usefulness\n"
           "      --dcr-rows N        synthetic rows used for distances (default 20000; 0 = all)\n"
           "      --detection-rows N  rows per table for detection (default 20000)\n"
           "      --tstr-rows N       training rows for usefulness (default 50000)\n"
           "      --subsample-rows N  contingency pairs above this many rows are subsampled\n"
           "                          (default 50000, as SDMetrics)\n"
           "      --delimiter C       ',' ';' 'tab' '|' (default: sniffed)\n"
           "      --na TOKEN[,TOKEN]  extra missing-value tokens\n"
           "      --seed S            random seed for subsamples, folds and the random baseline\n"
           "      --threads N         CPU threads (default: all cores)\n"
           "  -q, --quiet             no notes on stderr\n"
           "  -h, --help              this help\n"
           "Exit codes: 0 success, 1 error (unreadable or mismatched tables), 2 usage error.\n");
}

enum { EV_REAL = 3000, EV_SYN, EV_HOLD, EV_TARGET, EV_META, EV_JSON, EV_REPORT, EV_SKIP,
       EV_DCR, EV_DET, EV_TSTR, EV_SUB, EV_DELIM, EV_NA, EV_SEED, EV_THREADS, EV_SEQ,
       EV_SEQLEN, EV_ENTITY, EV_TIME, EV_REPEATS, EV_DISCIT, EV_PREDIT, EV_BASELINE };

/* -0.000 for a score of -1e-17 (1 - a rounded total variation of 2) helps nobody */
static double ev_show(double v) { return (v < 0 && v > -5e-4) ? 0.0 : v; }

static void ev_line(const char *what, double v, const char *more) {
    v = ev_show(v);
    if (isnan(v)) printf("  %-30s   n/a   %s\n", what, more ? more : "");
    else printf("  %-30s %6.3f  %s\n", what, v, more ? more : "");
}

/* The human summary on stdout. */

/* Indices of the (up to) three smallest non-NaN scores, smallest first; -1 where fewer. */
static void lowest3(const double *score, int n, int out[3]) {
    out[0] = out[1] = out[2] = -1;
    for (int i = 0; i < n; i++) {
        if (isnan(score[i])) continue;
        for (int k = 0; k < 3; k++) {
            if (out[k] < 0 || score[i] < score[out[k]]) {
                for (int j = 2; j > k; j--) out[j] = out[j - 1];
                out[k] = i;
                break;
            }
        }
    }
}

static void ev_summary(const genesis_eval_result *r, const char *real, const char *syn,
                       const char *target) {
    char buf[256];
    int ncol = genesis_eval_result_ncolumns(r), np = genesis_eval_result_npairs(r);
    int strong = 0;
    for (int i = 0; i < np; i++) {
        genesis_eval_pair p;
        genesis_eval_result_pair(r, i, &p);
        strong += p.meets_threshold;
    }
    printf("genesis evaluate: %s vs %s\n\n", syn, real);
    double q = genesis_eval_result_score(r, GENESIS_EVAL_QUALITY);
    if (!isnan(q) || !isnan(genesis_eval_result_score(r, GENESIS_EVAL_COLUMN_SHAPES))) {
        printf("Quality (SDMetrics QualityReport)\n");
        snprintf(buf, sizeof buf, "shapes %.3f, pair trends %.3f over %d pairs",
                 genesis_eval_result_score(r, GENESIS_EVAL_COLUMN_SHAPES),
                 genesis_eval_result_score(r, GENESIS_EVAL_PAIR_TRENDS), np);
        ev_line("overall, all pairs", q, buf);
        snprintf(buf, sizeof buf, "pair trends %.3f over %d strongly related pairs",
                 genesis_eval_result_score(r, GENESIS_EVAL_PAIR_TRENDS_THRESHOLD), strong);
        ev_line("overall, strong pairs (2026)", genesis_eval_result_score(r, GENESIS_EVAL_QUALITY_THRESHOLD), buf);
    }
    double det = genesis_eval_result_score(r, GENESIS_EVAL_DETECTION);
    if (!isnan(det)) {
        printf("Detection (LogisticDetection)\n");
        ev_line("score", det, "1 = real and synthetic rows cannot be told apart");
    }
    double val = genesis_eval_result_score(r, GENESIS_EVAL_VALIDITY);
    if (!isnan(val)) {
        printf("Validity (SDMetrics DiagnosticReport)\n");
        snprintf(buf, sizeof buf, "data validity %.3f, data structure %.3f",
                 genesis_eval_result_score(r, GENESIS_EVAL_DATA_VALIDITY),
                 genesis_eval_result_score(r, GENESIS_EVAL_DATA_STRUCTURE));
        ev_line("overall", val, buf);
    }
    double ec = genesis_eval_result_score(r, GENESIS_EVAL_EXACT_COPY_RATE);
    if (!isnan(ec)) {
        printf("Privacy (leak checks, not anonymity)\n");
        ev_line("exact-copy rate", ec, "fraction of synthetic rows equal to a real row (lower is better)");
        ev_line("new rows (NewRowSynthesis)", genesis_eval_result_score(r, GENESIS_EVAL_NEW_ROW_SYNTHESIS),
                "no real row within 1% on every value");
        ev_line("DCR baseline protection", genesis_eval_result_score(r, GENESIS_EVAL_DCR_BASELINE),
                "distance to closest real row vs random rows");
        double of = genesis_eval_result_score(r, GENESIS_EVAL_DCR_OVERFITTING);
        if (!isnan(of)) ev_line("DCR overfitting protection", of, "closer to training than to holdout?");
    }
    double t1 = genesis_eval_result_score(r, GENESIS_EVAL_TSTR_LOGISTIC);
    if (!isnan(t1) && target) {
        printf("Usefulness (train on synthetic, test on holdout; target %s)\n", target);
        snprintf(buf, sizeof buf, "trained on real: %.3f",
                 genesis_eval_result_score(r, GENESIS_EVAL_TRTR_LOGISTIC));
        ev_line("logistic regression", t1, buf);
        snprintf(buf, sizeof buf, "trained on real: %.3f", genesis_eval_result_score(r, GENESIS_EVAL_TRTR_MLP));
        ev_line("MLP (50 hidden)", genesis_eval_result_score(r, GENESIS_EVAL_TSTR_MLP), buf);
    }
    /* the weakest columns and pairs, where a person should look first */
    double *score = malloc(sizeof(double) * (size_t)(ncol > np ? (ncol > 0 ? ncol : 1) : np));
    if (!score) return;
    int worst[3];
    for (int i = 0; i < ncol; i++) {
        genesis_eval_column c;
        genesis_eval_result_column(r, i, &c);
        score[i] = c.shape;
    }
    lowest3(score, ncol, worst);
    if (worst[0] >= 0) {
        printf("\nWeakest columns:");
        for (int k = 0; k < 3 && worst[k] >= 0; k++) {
            genesis_eval_column c;
            genesis_eval_result_column(r, worst[k], &c);
            printf("%s %s %s %.3f", k ? "," : "", c.name, c.continuous ? "KS" : "TV", ev_show(c.shape));
        }
        printf("\n");
    }
    for (int i = 0; i < np; i++) {
        genesis_eval_pair p;
        genesis_eval_result_pair(r, i, &p);
        score[i] = p.meets_threshold ? p.score : NAN;
    }
    lowest3(score, np, worst);
    if (worst[0] >= 0) {
        printf("Weakest strong pairs:");
        for (int k = 0; k < 3 && worst[k] >= 0; k++) {
            genesis_eval_pair p;
            genesis_eval_result_pair(r, worst[k], &p);
            printf("%s %s~%s %.3f", k ? "," : "", p.column1, p.column2, ev_show(p.score));
        }
        printf("\n");
    }
    free(score);
}

static int ev_rows_flag(const char *flag, const char *arg, int64_t *out, int allow_all) {
    long long v;
    if (parse_ll(arg, &v) || v < 0 || (v == 0 && !allow_all))
        return usage_error("evaluate", "%s must be a whole number %s, got '%s'", flag,
                           allow_all ? ">= 0" : "> 0", arg);
    *out = allow_all && v == 0 ? -1 : v;
    return 0;
}

/* genesis evaluate --sequences: TimeGAN's discriminative and predictive scores. */
static int evaluate_sequences(const char *real, const char *syn, const genesis_seq_eval_options *so,
                              const char *delim, const char *na, unsigned long long seed,
                              int threads, int json) {
    genesis_ctx *ctx = NULL;
    genesis_table *tr = NULL, *ts = NULL;
    genesis_status st = genesis_ctx_create(&ctx);
    if (st != GENESIS_OK) {
        fprintf(stderr, "genesis: error: %s\n", genesis_status_str(st));
        return 1;
    }
    genesis_ctx_set_log(ctx, log_to_stderr, NULL);
    genesis_ctx_set_seed(ctx, seed);
    st = genesis_ctx_set_threads(ctx, threads);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.delimiter = delim ? delim[0] : 0;
    co.na_tokens = na;
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, real, &co, &tr);
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, syn, &co, &ts);
    genesis_seq_eval_result r;
    if (st == GENESIS_OK) st = genesis_evaluate_sequences(ctx, tr, ts, so, &r);
    if (st == GENESIS_OK && json) {
        printf("{\"real_sequences\": %lld, \"synthetic_sequences\": %lld, \"seq_len\": %d, "
               "\"repeats\": %d, \"discriminative\": %.6g, \"discriminative_std\": %.6g",
               (long long)r.real_sequences, (long long)r.synthetic_sequences, so->seq_len,
               so->repeats, r.discriminative, r.discriminative_std);
        if (!isnan(r.predictive))
            printf(", \"predictive\": %.6g, \"predictive_std\": %.6g", r.predictive, r.predictive_std);
        if (!isnan(r.predictive_real))
            printf(", \"predictive_real\": %.6g, \"predictive_real_std\": %.6g", r.predictive_real,
                   r.predictive_real_std);
        printf("}\n");
    } else if (st == GENESIS_OK) {
        printf("genesis evaluate --sequences: %s vs %s\n", syn, real);
        printf("  %lld real and %lld synthetic sequences of %d steps; %d repeats (mean +- std)\n\n",
               (long long)r.real_sequences, (long long)r.synthetic_sequences, so->seq_len, so->repeats);
        printf("  discriminative score  %.4f +- %.4f  (|0.5 - accuracy| of a GRU classifier; 0 best)\n",
               r.discriminative, r.discriminative_std);
        if (isnan(r.predictive)) printf("  predictive score         n/a    (needs at least 2 features)\n");
        else printf("  predictive score      %.4f +- %.4f  (MAE, train on synthetic, test on real; lower is better)\n",
                    r.predictive, r.predictive_std);
        if (!isnan(r.predictive_real))
            printf("  predictive, real data %.4f +- %.4f  (the same model trained on the real sequences)\n",
                   r.predictive_real, r.predictive_real_std);
    }
    fflush(stdout);
    int rc = st == GENESIS_OK ? 0 : lib_error(ctx, st);
    genesis_table_free(tr);
    genesis_table_free(ts);
    genesis_ctx_free(ctx);
    return rc;
}

static int cmd_evaluate(int argc, char **argv) {
    static struct option lo[] = {
        {"real", required_argument, 0, EV_REAL}, {"synthetic", required_argument, 0, EV_SYN},
        {"holdout", required_argument, 0, EV_HOLD}, {"target", required_argument, 0, EV_TARGET},
        {"metadata", required_argument, 0, EV_META}, {"json", no_argument, 0, EV_JSON},
        {"report", required_argument, 0, EV_REPORT}, {"skip", required_argument, 0, EV_SKIP},
        {"dcr-rows", required_argument, 0, EV_DCR}, {"detection-rows", required_argument, 0, EV_DET},
        {"tstr-rows", required_argument, 0, EV_TSTR},
        {"subsample-rows", required_argument, 0, EV_SUB},
        {"delimiter", required_argument, 0, EV_DELIM}, {"na", required_argument, 0, EV_NA},
        {"seed", required_argument, 0, EV_SEED}, {"threads", required_argument, 0, EV_THREADS},
        {"sequences", no_argument, 0, EV_SEQ}, {"seq-len", required_argument, 0, EV_SEQLEN},
        {"entity", required_argument, 0, EV_ENTITY}, {"time", required_argument, 0, EV_TIME},
        {"repeats", required_argument, 0, EV_REPEATS},
        {"disc-iterations", required_argument, 0, EV_DISCIT},
        {"pred-iterations", required_argument, 0, EV_PREDIT},
        {"real-baseline", no_argument, 0, EV_BASELINE},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    genesis_seq_eval_options so;
    genesis_seq_eval_options_init(&so);
    int sequences = 0, seq_only = 0;
    const char *real = NULL, *syn = NULL, *hold = NULL, *report = NULL, *delim = NULL, *na = NULL;
    int json = 0, threads = 0;
    unsigned long long seed = 0;
    genesis_eval_options eo;
    genesis_eval_options_init(&eo);
    unsigned skip = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hq", lo, NULL)) != -1) {
        long long v;
        switch (c) {
        case 'h': help_evaluate(); return 0;
        case 'q': g_quiet = 1; break;
        case EV_REAL: real = optarg; break;
        case EV_SYN: syn = optarg; break;
        case EV_HOLD: hold = optarg; break;
        case EV_TARGET: eo.target = optarg; break;
        case EV_META: eo.metadata_path = optarg; break;
        case EV_JSON: json = 1; break;
        case EV_REPORT: report = optarg; break;
        case EV_SKIP: {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", optarg);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                if (!strcmp(tok, "quality")) skip |= GENESIS_EVAL_PART_QUALITY;
                else if (!strcmp(tok, "validity")) skip |= GENESIS_EVAL_PART_VALIDITY;
                else if (!strcmp(tok, "privacy")) skip |= GENESIS_EVAL_PART_PRIVACY;
                else if (!strcmp(tok, "detection")) skip |= GENESIS_EVAL_PART_DETECTION;
                else if (!strcmp(tok, "usefulness")) skip |= GENESIS_EVAL_PART_USEFULNESS;
                else return usage_error("evaluate", "--skip takes quality, validity, privacy, "
                                        "detection, usefulness; got '%s'", tok);
            }
            break;
        }
        case EV_DCR: if (ev_rows_flag("--dcr-rows", optarg, &eo.dcr_rows, 1)) return EXIT_USAGE; break;
        case EV_DET: if (ev_rows_flag("--detection-rows", optarg, &eo.detection_rows, 0)) return EXIT_USAGE; break;
        case EV_TSTR: if (ev_rows_flag("--tstr-rows", optarg, &eo.tstr_rows, 0)) return EXIT_USAGE; break;
        case EV_SUB: if (ev_rows_flag("--subsample-rows", optarg, &eo.subsample_rows, 0)) return EXIT_USAGE; break;
        case EV_DELIM:
            if (!strcmp(optarg, "tab") || !strcmp(optarg, "\\t")) delim = "\t";
            else if (strlen(optarg) != 1 || optarg[0] == '"' || optarg[0] == '\n' || optarg[0] == '\r')
                return usage_error("evaluate", "--delimiter must be one character (or 'tab'), got '%s'", optarg);
            else delim = optarg;
            break;
        case EV_NA: na = optarg; break;
        case EV_SEED: {
            char *end;
            errno = 0;
            if (optarg[0] == '-') return usage_error("evaluate", "--seed must be a whole number >= 0, got '%s'", optarg);
            seed = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end)
                return usage_error("evaluate", "--seed must be a whole number >= 0, got '%s'", optarg);
            break;
        }
        case EV_THREADS:
            if (parse_ll(optarg, &v) || v < 0 || v > 1024)
                return usage_error("evaluate", "--threads must be between 0 and 1024, got '%s'", optarg);
            threads = (int)v;
            break;
        case EV_SEQ: sequences = 1; break;
        case EV_SEQLEN: case EV_REPEATS: case EV_DISCIT: case EV_PREDIT: {
            static const char *names[] = {"--seq-len", "--repeats", "--disc-iterations", "--pred-iterations"};
            int k = c == EV_SEQLEN ? 0 : c == EV_REPEATS ? 1 : c == EV_DISCIT ? 2 : 3;
            if (parse_ll(optarg, &v) || v < (k == 0 ? 2 : 1) || v > 100000000)
                return usage_error("evaluate", "%s must be a whole number >= %d, got '%s'", names[k],
                                   k == 0 ? 2 : 1, optarg);
            int *dst[] = {&so.seq_len, &so.repeats, &so.disc_iterations, &so.pred_iterations};
            *dst[k] = (int)v;
            seq_only = 1;
            break;
        }
        case EV_ENTITY: so.entity = optarg; seq_only = 1; break;
        case EV_TIME: so.time = optarg; seq_only = 1; break;
        case EV_BASELINE: so.real_baseline = 1; seq_only = 1; break;
        case ':': return usage_error("evaluate", "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt) return usage_error("evaluate", "unknown option '-%c'", optopt);
            return usage_error("evaluate", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return usage_error("evaluate", "unexpected argument '%s'", argv[optind]);
    if (!real) return usage_error("evaluate", "missing --real FILE (the real table)");
    if (!syn) return usage_error("evaluate", "missing --synthetic FILE (the synthetic table)");
    if (seq_only && !sequences)
        return usage_error("evaluate", "--seq-len, --entity, --time, --repeats, --disc-iterations, "
                                       "--pred-iterations and --real-baseline need --sequences");
    if (sequences) {
        if (hold || eo.target || report || skip)
            return usage_error("evaluate", "--sequences computes the two sequence scores only; "
                                           "--holdout, --target, --report and --skip do not apply");
        return evaluate_sequences(real, syn, &so, delim, na, seed, threads, json);
    }
    if (eo.target && !hold)
        return usage_error("evaluate", "--target needs --holdout: usefulness is tested on real "
                                       "rows the generator never saw");
    unsigned all = GENESIS_EVAL_PART_QUALITY | GENESIS_EVAL_PART_VALIDITY | GENESIS_EVAL_PART_PRIVACY |
                   GENESIS_EVAL_PART_DETECTION | GENESIS_EVAL_PART_USEFULNESS;
    if ((all & ~skip) == 0) return usage_error("evaluate", "--skip leaves nothing to evaluate");
    eo.parts = all & ~skip;

    genesis_ctx *ctx = NULL;
    genesis_table *tr = NULL, *ts = NULL, *th = NULL;
    genesis_eval_result *res = NULL;
    genesis_status st = genesis_ctx_create(&ctx);
    if (st != GENESIS_OK) {
        fprintf(stderr, "genesis: error: %s\n", genesis_status_str(st));
        return 1;
    }
    genesis_ctx_set_log(ctx, log_to_stderr, NULL);
    genesis_ctx_set_seed(ctx, seed);
    st = genesis_ctx_set_threads(ctx, threads);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.delimiter = delim ? delim[0] : 0;
    co.na_tokens = na;
    /* the real table typed by the reader; the others read with every column categorical so
     * each value keeps its exact text, then typed like the real table */
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, real, &co, &tr);
    co.max_categories = INT32_MAX;
    if (st == GENESIS_OK) st = genesis_table_read_csv(ctx, syn, &co, &ts);
    if (st == GENESIS_OK && hold) st = genesis_table_read_csv(ctx, hold, &co, &th);
    eo.holdout = th;
    if (st == GENESIS_OK) st = genesis_evaluate(ctx, tr, ts, &eo, &res);
    if (st == GENESIS_OK) {
        if (json) {
            const char *js = genesis_eval_result_json(res);
            if (!js) st = GENESIS_ERR_NOMEM;
            else printf("%s\n", js);
        } else {
            ev_summary(res, real, syn, eo.target);
        }
        fflush(stdout);
    }
    if (st == GENESIS_OK && report) {
        st = genesis_eval_result_write_html(res, report);
        if (st == GENESIS_OK && !g_quiet) fprintf(stderr, "genesis: wrote the report to %s\n", report);
    }
    int rc = st == GENESIS_OK ? 0 : lib_error(ctx, st);
    genesis_eval_result_free(res);
    genesis_table_free(tr);
    genesis_table_free(ts);
    genesis_table_free(th);
    genesis_ctx_free(ctx);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        help(NULL);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        help(argc > 2 ? argv[2] : NULL);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("genesis %s\n", genesis_version_string());
        return 0;
    }
    if (genesis_version_number() != GENESIS_VERSION_NUMBER)
        fprintf(stderr, "genesis: warning: built with header %s but running library %s\n",
                GENESIS_VERSION_STRING, genesis_version_string());
    if (!strcmp(cmd, "generate")) return cmd_generate(argc - 1, argv + 1);
    if (!strcmp(cmd, "fit")) return cmd_fit(argc - 1, argv + 1);
    if (!strcmp(cmd, "sample")) return cmd_sample(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "evaluate")) return cmd_evaluate(argc - 1, argv + 1);
    if (!strcmp(cmd, "evaluate") || !strcmp(cmd, "estimate"))
        return usage_error(NULL, "'%s' is not available in this version yet", cmd);
    return usage_error(NULL, "unknown command '%s' (commands: generate, fit, sample, info)", cmd);
}
