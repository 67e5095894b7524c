/*
 * genesis.c — the `genesis` command: generate | fit | sample | estimate | evaluate | info. It
 * includes only the public header, so everything it does a C program embedding libgenesis
 * can do too. Model settings flags (--epochs, --generator-lr, ...) are generated from the
 * library's parameter table (genesis_param_bounds), so the CLI and the API cannot drift
 * apart; the API names in library messages are printed as the flags (put_message).
 * Exit codes: 0 success, 1 error, 2 usage error. Errors read "genesis: error: <what>".
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
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

/* The library's messages name what a caller can change by its API name, in backquotes: a
 * model setting by its parameter-table name (`batch-size`: genesis_param_bounds), a function,
 * an argument or an enum value (`genesis_model_set_condition`, `entity`, `GENESIS_DEVICE_CPU`).
 * The CLI prints its own flag instead: settings through the parameter table, the rest through
 * this list. A name it does not know is printed as the library wrote it. */
static const struct {
    const char *api, *cli;
} API_FLAGS[] = {
    {"genesis_model_set_condition", "--condition"},
    {"entity", "--entity"},
    {"time", "--time"},
    {"GENESIS_DEVICE_CUDA", "--device cuda"},
    {"GENESIS_DEVICE_CPU", "--device cpu"},
    {"GENESIS_DEVICE_AUTO", "--device auto"},
    {"GENESIS_DIST_MPI", "--distributed mpi"},
    {"genesis_model_set_sample_batch", "--sample-batch"},
    {"genesis_ctx_set_memory_budget(limit_bytes)", "--memory-limit"},
    {"genesis_ctx_set_memory_budget(fraction)", "--memory-fraction"},
    {"genesis_model_save", "'genesis fit' (or --save)"},
};

/* the flag for the API name api[0 .. n), or NULL */
static const char *api_flag(const char *api, size_t n, char *buf, size_t cap) {
    const char *name;
    for (int p = 0; genesis_param_bounds((genesis_param)p, NULL, NULL, NULL, &name) == GENESIS_OK;
         p++) {
        if (strlen(name) == n && memcmp(name, api, n) == 0) {
            snprintf(buf, cap, "--%s", name);
            return buf;
        }
    }
    for (size_t i = 0; i < sizeof API_FLAGS / sizeof API_FLAGS[0]; i++)
        if (strlen(API_FLAGS[i].api) == n && memcmp(API_FLAGS[i].api, api, n) == 0)
            return API_FLAGS[i].cli;
    return NULL;
}

/* writes a library message with its API names replaced by the CLI's flags */
static void put_message(FILE *f, const char *msg) {
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

static int lib_error(genesis_ctx *ctx, genesis_status st) {
    const char *msg = ctx ? genesis_errmsg(ctx) : "";
    flockfile(stderr);
    fputs("genesis: error: ", stderr);
    put_message(stderr, msg && *msg ? msg : genesis_status_str(st));
    fputc('\n', stderr);
    funlockfile(stderr);
    return st == GENESIS_ERR_INVALID_ARG ? EXIT_USAGE : 1;
}

/* user: the command's options' quiet flag (per rank when ranks are threads), or NULL */
static void log_to_stderr(genesis_log_level lvl, const char *msg, void *user) {
    int quiet = user ? *(const int *)user : g_quiet;
    if (lvl == GENESIS_LOG_DEBUG || (quiet && lvl > GENESIS_LOG_ERROR)) return;
    flockfile(stderr); /* one line, even when ranks are threads */
    fprintf(stderr, "genesis: %s: ",
            lvl == GENESIS_LOG_ERROR ? "error" : lvl == GENESIS_LOG_WARN ? "warning" : "note");
    put_message(stderr, msg);
    fputc('\n', stderr);
    funlockfile(stderr);
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
    const char *distributed;       /* --distributed auto|none|mpi|nccl (NULL = auto) */
    int devices[64], ndevices;     /* --devices 0,1,... */
    int multi_gpu;                 /* --multi-gpu: every GPU found */
    genesis_team *team;            /* ranks that are threads of this process (run_ranks) */
    int team_rank;
    const char *conds[MAX_CONDS];
    int nconds;
    int pset[NPARAM_MAX];
    double pval[NPARAM_MAX];
    double mem_fraction;         /* 0 = library default */
    unsigned long long mem_limit; /* bytes, 0 = none */
    long long sample_batch;      /* 0 = sized from memory */
    int json;
} options;

enum {
    OPT_DELIM = 1000, OPT_NA, OPT_DISCRETE, OPT_CONTINUOUS, OPT_NOHEADER, OPT_METHOD, OPT_SEED,
    OPT_THREADS, OPT_DEVICE, OPT_QUIET, OPT_SAVE, OPT_COND, OPT_PROGRESS, OPT_VERSION,
    OPT_MEMFRAC, OPT_MEMLIMIT, OPT_SAMPLEBATCH, OPT_JSON,
    OPT_DISTRIBUTED, OPT_DEVICES, OPT_MULTI_GPU,
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

/* "0,1,3": distinct GPU indices 0..255 */
static int parse_devices(const char *s, int *dev, int cap, int *n) {
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || v < 0 || v > 255 || *n >= cap) return -1;
        for (int i = 0; i < *n; i++)
            if (dev[i] == (int)v) return -1;
        dev[(*n)++] = (int)v;
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    return *n > 0 ? 0 : -1;
}

static int n_params(void) {
    int n = 0;
    while (n < NPARAM_MAX && genesis_param_bounds((genesis_param)n, NULL, NULL, NULL, NULL) == GENESIS_OK) n++;
    return n;
}

/* Which flags each command takes. */
enum { F_INPUT = 1, F_OUTPUT = 2, F_MODEL_IN = 4, F_MODEL_OUT = 8, F_ROWS = 16, F_TRAIN = 32,
       F_COND = 64, F_SAVE = 128, F_RUN = 256, F_ESTIMATE = 512 };

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
               "  genesis estimate -i data.csv | -m model.gen [-n ROWS] [--memory-limit 8GB]\n"
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
        printf("Usage: genesis info\n\nPrints the version, the build's features, the host's memory\n"
               "and every GPU found (memory, compute capability, driver, runtime, cuBLAS, cuDNN,\n"
               "NCCL), or why none is usable.\n");
        return;
    }
    if (!strcmp(cmd, "estimate")) {
        printf("Usage: genesis estimate -i data.csv [training options] [-n ROWS]\n"
               "       genesis estimate -m model.gen [-n ROWS]\n\n"
               "Prints the memory training and generation need, term by term (parameters,\n"
               "optimizer state, activations, workspace, the table and its encoding, output\n"
               "buffers), the memory budget on the device, the largest training batch and the\n"
               "sampling batch that fit it. Before training the encoded width is an upper bound\n"
               "(the number of modes per column is found by fit); with -m it is exact.\n\n"
               "Options: -i, -m, --method, --device, --threads, --memory-fraction, --memory-limit,\n"
               "--sample-batch, --json, the reading options and the model settings of 'fit'.\n");
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
    if (!strcmp(cmd, "fit") || !strcmp(cmd, "generate"))
        printf("      --distributed K     auto | none | mpi | nccl: data-parallel training over the ranks\n"
               "                          of `mpirun -np N genesis ...` (default auto: mpi when started by\n"
               "                          a launcher with N > 1, nccl when --devices/--multi-gpu is given\n"
               "                          too); --batch-size is the global batch (docs/distributed.md)\n"
               "      --devices 0,1,...   GPUs for data-parallel ranks (rank r on a machine uses entry r)\n"
               "      --multi-gpu         every GPU found (one rank per GPU under mpirun)\n");
    if (!strcmp(cmd, "generate") || !strcmp(cmd, "sample"))
        printf("  -o, --output FILE       the synthetic table (written to a temporary name, then renamed)\n"
               "  -n, --rows N            rows to generate (default: as many as the input had for generate)\n"
               "      --condition c=v     only rows with categorical column c = v (repeatable: conditions\n"
               "                          on different columns all hold; values of one column alternate)\n");
    if (!strcmp(cmd, "fit")) printf("  -m, --model FILE        where to save the model (.gen)\n");
    if (!strcmp(cmd, "sample")) printf("  -m, --model FILE        a model saved by fit or --save\n");
    if (!strcmp(cmd, "generate")) printf("      --save FILE         also save the fitted model\n");
    printf("      --memory-fraction F share of the free memory (GPU, or host for the CPU) runs may\n"
           "                          plan for (default 0.8)\n"
           "      --memory-limit SIZE at most this much in all, e.g. 8GB or 512MiB (default: none);\n"
           "                          sampling sizes its batches to fit, fit refuses what does not\n");
    if (strcmp(cmd, "fit") != 0)
        printf("      --sample-batch N    rows per sampling batch (default 0: sized from the memory\n"
               "                          budget); never changes the output\n");
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
        {"memory-fraction", required_argument, 0, OPT_MEMFRAC},
        {"memory-limit", required_argument, 0, OPT_MEMLIMIT},
        {"sample-batch", required_argument, 0, OPT_SAMPLEBATCH}, {"json", no_argument, 0, OPT_JSON},
        {"distributed", required_argument, 0, OPT_DISTRIBUTED},
        {"devices", required_argument, 0, OPT_DEVICES}, {"multi-gpu", no_argument, 0, OPT_MULTI_GPU},
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
        case OPT_MEMFRAC: {
            double f;
            if (parse_double(optarg, &f) || !(f > 0 && f <= 1))
                return usage_error(cmd, "--memory-fraction must be a number in (0, 1], e.g. 0.8, got '%s'", optarg);
            o->mem_fraction = f;
            break;
        }
        case OPT_MEMLIMIT: {
            uint64_t b;
            if (genesis_parse_bytes(optarg, &b) != GENESIS_OK || b == 0)
                return usage_error(cmd, "--memory-limit must be a size such as 8GB, 512MiB or 100000000, got '%s'", optarg);
            o->mem_limit = b;
            break;
        }
        case OPT_SAMPLEBATCH:
            if (parse_ll(optarg, &v) || v < 0 || v > (1LL << 30))
                return usage_error(cmd, "--sample-batch must be between 0 (automatic) and 1073741824 rows, got '%s'", optarg);
            o->sample_batch = v;
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_DISTRIBUTED:
            if (strcmp(optarg, "auto") && strcmp(optarg, "none") && strcmp(optarg, "mpi") &&
                strcmp(optarg, "nccl"))
                return usage_error(cmd, "--distributed must be auto, none, mpi or nccl, got '%s'", optarg);
            o->distributed = optarg;
            break;
        case OPT_DEVICES:
            if (parse_devices(optarg, o->devices, 64, &o->ndevices))
                return usage_error(cmd, "--devices needs distinct GPU indices 0..255 separated by commas "
                                        "(at most 64), got '%s'", optarg);
            break;
        case OPT_MULTI_GPU: o->multi_gpu = 1; break;
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
        if (o->input && !(flags & F_ESTIMATE)) return usage_error(cmd, "-i/--input does not apply to '%s'", cmd);
    }
    if (!(flags & F_COND) && o->nconds) return usage_error(cmd, "--condition applies to generate and sample");
    if (!(flags & F_ESTIMATE) && o->json) return usage_error(cmd, "--json applies to estimate and evaluate");
    if (!(flags & (F_OUTPUT | F_ESTIMATE)) && o->sample_batch)
        return usage_error(cmd, "--sample-batch applies to generate, sample and estimate");
    if (!(flags & F_TRAIN) && (o->distributed || o->ndevices || o->multi_gpu))
        return usage_error(cmd, "--distributed, --devices and --multi-gpu apply to fit and generate");
    if (o->ndevices && o->multi_gpu) return usage_error(cmd, "give --devices or --multi-gpu, not both");
    if (!(flags & F_INPUT) && (o->entity || o->time))
        return usage_error(cmd, "--entity and --time apply to fit and generate (a saved TimeGAN model keeps them)");
    if (!(flags & (F_INPUT | F_ESTIMATE)) && (o->delimiter || o->na || o->discrete || o->continuous || o->no_header || o->method))
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

/* --multi-gpu: every GPU found; --devices: each listed GPU must exist. A clear error (and
 * GENESIS_ERR_CANCELLED: already printed) otherwise. */
static genesis_status resolve_devices(options *o) {
    if (!o->multi_gpu && o->ndevices == 0) return GENESIS_OK;
    genesis_device_info dev[64];
    int n = 0;
    char why[256] = "";
    genesis_detect_devices(dev, 64, &n, why, sizeof why);
    const char *flag = o->multi_gpu ? "--multi-gpu" : "--devices";
    if (n == 0) {
        fprintf(stderr, "genesis: error: %s: no GPU found (%s); drop %s to train on the CPU, or run "
                        "CPU ranks with mpirun -np N genesis ... (docs/distributed.md)\n",
                flag, why, flag);
        return GENESIS_ERR_CANCELLED;
    }
    if (o->multi_gpu) {
        for (int i = 0; i < n; i++) o->devices[i] = dev[i].index;
        o->ndevices = n;
    }
    for (int i = 0; i < o->ndevices; i++)
        if (o->devices[i] >= n) {
            fprintf(stderr, "genesis: error: --devices: GPU %d not found (%d GPU(s): cuda:0 .. cuda:%d)\n",
                    o->devices[i], n, n - 1);
            return GENESIS_ERR_CANCELLED;
        }
    return GENESIS_OK;
}

/* Data parallel: which communicator the options and the launcher ask for: ranks started by
 * mpirun (MPI, or NCCL with --devices/--multi-gpu), or ranks that are threads of this
 * process (o->team: NCCL, one thread per listed GPU). */
static genesis_status set_distribution(genesis_ctx *ctx, options *o) {
    int launched = genesis_dist_launched();
    const char *d = o->distributed ? o->distributed : "auto";
    int gpus = o->ndevices > 0;
    genesis_dist_kind kind = GENESIS_DIST_NONE;
    if (!strcmp(d, "mpi")) kind = GENESIS_DIST_MPI;
    else if (!strcmp(d, "nccl")) kind = GENESIS_DIST_NCCL;
    else if (!strcmp(d, "auto") && (launched || o->team)) kind = gpus ? GENESIS_DIST_NCCL : GENESIS_DIST_MPI;
    if (kind == GENESIS_DIST_NONE) {
        if (o->ndevices == 1 && o->device == GENESIS_DEVICE_AUTO)
            return genesis_ctx_set_device(ctx, GENESIS_DEVICE_CUDA, o->devices[0]);
        return GENESIS_OK;
    }
    if (!genesis_dist_supported(kind) && !o->distributed && launched) {
        fprintf(stderr, "genesis: error: started by a launcher with several ranks, but this build has "
                        "no %s support (%s); pass --distributed none to train each process alone\n",
                kind == GENESIS_DIST_MPI ? "MPI" : "NCCL",
                kind == GENESIS_DIST_MPI ? "install libopenmpi-dev and rebuild: scripts/setup.sh"
                                         : "it needs CUDA and NCCL at configure time");
        return GENESIS_ERR_CANCELLED;
    }
    if (!genesis_dist_supported(kind)) {
        fprintf(stderr, "genesis: error: --distributed %s: this build has no %s support (%s)\n",
                kind == GENESIS_DIST_MPI ? "mpi" : "nccl", kind == GENESIS_DIST_MPI ? "MPI" : "NCCL",
                kind == GENESIS_DIST_MPI ? "install libopenmpi-dev and rebuild: scripts/setup.sh"
                                         : "it needs CUDA and NCCL at configure time; use "
                                           "--distributed mpi on CPU ranks");
        return GENESIS_ERR_CANCELLED;
    }
    genesis_status st = GENESIS_OK;
    if (o->ndevices) st = genesis_ctx_set_devices(ctx, o->devices, o->ndevices);
    if (st == GENESIS_OK)
        st = o->team ? genesis_ctx_join_team(ctx, o->team, o->team_rank, GENESIS_DIST_NCCL)
                     : genesis_ctx_set_distributed(ctx, kind);
    if (st != GENESIS_OK) return st;
    if (genesis_ctx_rank(ctx) > 0) o->quiet = 1; /* rank 0 alone prints progress and notes */
    return GENESIS_OK;
}

static genesis_status make_ctx(options *o, genesis_ctx **ctx) {
    genesis_status st = genesis_ctx_create(ctx);
    if (st != GENESIS_OK) return st;
    genesis_ctx_set_log(*ctx, log_to_stderr, &o->quiet);
    genesis_ctx_set_seed(*ctx, o->seed);
    if ((st = genesis_ctx_set_threads(*ctx, o->threads)) != GENESIS_OK) return st;
    if ((o->mem_fraction > 0 || o->mem_limit > 0) &&
        (st = genesis_ctx_set_memory_budget(*ctx, o->mem_fraction > 0 ? o->mem_fraction : 0.8,
                                            o->mem_limit)) != GENESIS_OK)
        return st;
    if ((st = genesis_ctx_set_device(*ctx, o->device, o->device_index)) != GENESIS_OK) return st;
    return set_distribution(*ctx, o);
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

/* Reads the input table and creates the model with the command's settings (not fitted). */
static genesis_status table_and_model(genesis_ctx *ctx, const options *o, genesis_table **tp,
                                      genesis_model **m) {
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
    *tp = t;
    if (check_conditions_early(o, t)) return GENESIS_ERR_CANCELLED; /* usage error printed */
    genesis_model_kind kind = o->method && !strcmp(o->method, "tvae") ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    if (o->method && !strcmp(o->method, "timegan")) kind = GENESIS_MODEL_TIMEGAN;
    st = genesis_model_create(ctx, kind, m);
    for (int p = 0; st == GENESIS_OK && p < NPARAM_MAX; p++)
        if (o->pset[p]) st = genesis_model_set_param(*m, (genesis_param)p, o->pval[p]);
    if (st == GENESIS_OK && kind == GENESIS_MODEL_TIMEGAN)
        st = genesis_model_set_sequence_columns(*m, o->entity, o->time);
    return st;
}

static genesis_status fit_from_options(genesis_ctx *ctx, const options *o, genesis_model **m,
                                       int64_t *nrows) {
    genesis_table *t = NULL;
    genesis_status st = table_and_model(ctx, o, &t, m);
    if (!t) return st;
    *nrows = genesis_table_nrows(t);
    genesis_model_kind kind = *m ? genesis_model_get_kind(*m) : GENESIS_MODEL_CTGAN;
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
        int K = genesis_ctx_world_size(ctx);
        if (K > 1) {
            double bs;
            genesis_model_get_param(*m, GENESIS_P_BATCH_SIZE, &bs);
            fprintf(stderr, "genesis: data parallel over %d ranks: global batch %g, about %g rows "
                            "per rank\n", K, bs, bs / K);
        }
    }
    progress_state ps = {isatty(2), kind == GENESIS_MODEL_CTGAN, kind == GENESIS_MODEL_TIMEGAN};
    int want = !o->quiet && (ps.tty || o->progress);
    if (st == GENESIS_OK) st = genesis_model_fit(*m, t, want ? show_progress : NULL, &ps);
    genesis_table_free(t);
    return st;
}

static void fmt_mib(char *buf, size_t cap, uint64_t b) {
    if (b >= (1ULL << 30)) snprintf(buf, cap, "%.2f GiB", (double)b / 1073741824.0);
    else if (b >= (10ULL << 20)) snprintf(buf, cap, "%.0f MiB", (double)b / 1048576.0);
    else if (b >= (1ULL << 20)) snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
    else if (b >= 1024) snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
    else snprintf(buf, cap, "%llu B", (unsigned long long)b);
}

typedef struct sample_progress {
    int tty;
    const genesis_model *m;
    double last;
} sample_progress;

/* Rows done, rows/s and memory in use, at most every half second (and at the end). */
static int show_sample_progress(int64_t done, int64_t total, double sec, void *user) {
    sample_progress *sp = user;
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

static genesis_status write_rows(genesis_ctx *ctx, genesis_model *m, const options *o, int64_t n) {
    genesis_status st = genesis_model_set_sample_batch(m, o->sample_batch);
    if (st != GENESIS_OK) return st;
    sample_progress sp = {isatty(2), m, 0};
    if (!o->quiet && (sp.tty || o->progress)) genesis_model_set_sample_progress(m, show_sample_progress, &sp);
    if (!o->quiet && !o->sample_batch && n > 0) {
        int64_t b = 0;
        uint64_t budget = 0;
        genesis_memory_budget(m, &budget, NULL);
        if (genesis_optimize_batch_size(m, NULL, GENESIS_WORKLOAD_SAMPLE, &b) == GENESIS_OK) {
            char bb[32];
            fmt_mib(bb, sizeof bb, budget);
            fprintf(stderr, "genesis: sampling in batches of %lld rows (memory budget %s on %s)\n",
                    (long long)(b < n ? b : n), bb, genesis_ctx_device_name(ctx));
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = genesis_model_sample_csv(m, n, o->output);
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
    if (rc != 0 && genesis_ctx_world_size(ctx) > 1) {
        /* the other ranks may be waiting for this one in a collective: stop them all */
        fprintf(stderr, "genesis: rank %d failed; stopping all %d ranks\n", genesis_ctx_rank(ctx),
                genesis_ctx_world_size(ctx));
        fflush(stderr);
        genesis_ctx_abort(ctx, rc);
    }
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    return rc;
}

static int generate_body(options *o) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    genesis_status st = make_ctx(o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, o, &m, &nrows);
    int writer = genesis_ctx_rank(ctx) == 0; /* rank 0 alone writes the model and the rows */
    if (st == GENESIS_OK && writer && o->model_out) st = genesis_model_save(m, o->model_out);
    if (st == GENESIS_OK) st = apply_conditions(m, o);
    int64_t n = o->rows_set ? o->rows : nrows;
    if (st == GENESIS_OK && !o->rows_set && genesis_model_get_kind(m) == GENESIS_MODEL_TIMEGAN) {
        double sl; /* as many sequences as a single series has windows, as the reference */
        genesis_model_get_param(m, GENESIS_P_SEQ_LEN, &sl);
        n = nrows - (int64_t)sl > 1 ? nrows - (int64_t)sl : 1;
    }
    if (st == GENESIS_OK && writer) st = write_rows(ctx, m, o, n);
    return finish(ctx, m, st);
}

static int fit_body(options *o) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    genesis_status st = make_ctx(o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, o, &m, &nrows);
    if (st == GENESIS_OK && genesis_ctx_rank(ctx) == 0) st = genesis_model_save(m, o->model_out);
    if (st == GENESIS_OK && !o->quiet) fprintf(stderr, "genesis: saved model to %s\n", o->model_out);
    return finish(ctx, m, st);
}

typedef struct rank_job {
    options o;
    int (*body)(options *);
    int rc;
} rank_job;

static void *rank_thread(void *arg) {
    rank_job *j = arg;
    j->rc = j->body(&j->o);
    return NULL;
}

/* Runs a training command: as it is (one worker, or one rank of an mpirun job), or, for
 * --devices/--multi-gpu with several GPUs and no launcher, as one thread per GPU in this
 * process (a team, NCCL between the GPUs). */
static int run_ranks(options *o, int (*body)(options *)) {
    if (resolve_devices(o) != GENESIS_OK) return EXIT_USAGE;
    const char *d = o->distributed ? o->distributed : "auto";
    int K = o->ndevices;
    if (genesis_dist_launched() || K < 2 || (strcmp(d, "auto") && strcmp(d, "nccl"))) return body(o);
    if (!genesis_dist_supported(GENESIS_DIST_NCCL)) {
        fprintf(stderr, "genesis: error: %d GPUs in one process need NCCL, which this build lacks (it "
                        "needs CUDA and NCCL at configure time)\n", K);
        return EXIT_USAGE;
    }
    genesis_team *team = NULL;
    rank_job *jobs = calloc((size_t)K, sizeof *jobs);
    pthread_t *th = calloc((size_t)K, sizeof *th);
    if (!jobs || !th || genesis_team_create(K, &team) != GENESIS_OK) {
        free(jobs);
        free(th);
        fprintf(stderr, "genesis: error: out of memory starting %d ranks\n", K);
        return 1;
    }
    int started = 0, rc = 0;
    for (int r = 0; r < K; r++) {
        jobs[r].o = *o;
        jobs[r].o.team = team;
        jobs[r].o.team_rank = r;
        jobs[r].o.quiet = o->quiet || r > 0;
        jobs[r].body = body;
        if (pthread_create(&th[r], NULL, rank_thread, &jobs[r]) != 0) {
            /* the started ranks would wait for this one forever */
            fprintf(stderr, "genesis: error: cannot start the thread of rank %d\n", r);
            fflush(stderr);
            _Exit(1);
        }
        started++;
    }
    for (int r = 0; r < started; r++) {
        pthread_join(th[r], NULL);
        if (jobs[r].rc > rc) rc = jobs[r].rc;
    }
    genesis_team_free(team);
    free(jobs);
    free(th);
    return rc;
}

static int cmd_generate(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("generate", F_INPUT | F_OUTPUT | F_ROWS | F_TRAIN | F_COND | F_SAVE, argc, argv, &o);
    if (rc) return rc;
    g_quiet = o.quiet;
    return run_ranks(&o, generate_body);
}

static int cmd_fit(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("fit", F_INPUT | F_MODEL_IN | F_TRAIN, argc, argv, &o);
    if (rc) return rc;
    g_quiet = o.quiet;
    return run_ranks(&o, fit_body);
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
    char why[512] = "";
    genesis_detect_devices(dev, 16, &n, why, sizeof why);
    printf("GPUs: %s\n", why);
    for (int i = 0; i < n; i++) {
        const genesis_device_info *d = &dev[i];
        printf("  cuda:%d  %s  (PCI %s)\n", d->index, d->name, d->pci_bus_id);
        printf("          compute capability %d.%d, %d multiprocessors\n", d->cc_major, d->cc_minor,
               d->multiprocessors);
        printf("          memory %.1f GiB total, %.1f GiB free\n", d->total_memory / 1073741824.0,
               d->free_memory / 1073741824.0);
        printf("          driver %d.%d, runtime %d.%d, cuBLAS %d.%d.%d", d->driver_version / 1000,
               (d->driver_version % 1000) / 10, d->runtime_version / 1000,
               (d->runtime_version % 1000) / 10, d->cublas_version / 10000,
               (d->cublas_version / 100) % 100, d->cublas_version % 100);
        if (d->cudnn_version)
            printf(", cuDNN %d.%d.%d", d->cudnn_version / 10000, (d->cudnn_version / 100) % 100,
                   d->cudnn_version % 100);
        else
            printf(", cuDNN not found");
        if (d->nccl_version)
            printf(", NCCL %d.%d.%d", d->nccl_version / 10000, (d->nccl_version / 100) % 100,
                   d->nccl_version % 100);
        else
            printf(", NCCL not found");
        printf("\n");
    }
    printf("training device: %s\n", n > 0 ? "cuda:0 with --device auto|cuda (the CUDA backend is not yet "
                                              "validated on a GPU; --device cpu forces the CPU)"
                                            : "cpu");
    printf("data parallel: MPI %s, NCCL %s (docs/distributed.md)\n",
           genesis_dist_supported(GENESIS_DIST_MPI) ? "built in" : "not built in",
           genesis_dist_supported(GENESIS_DIST_NCCL) ? "built in" : "not built in");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t tot = 0, avail = 0;
    genesis_host_memory(&tot, &avail);
    printf("CPU cores: %ld; host memory %.1f GiB, %.1f GiB available\n", cores,
           tot / 1073741824.0, avail / 1073741824.0);
    return 0;
}

/* ---- estimate ------------------------------------------------------------------------- */

static void est_row(const char *what, const uint64_t *v, int nv, int json, int *first) {
    if (json) {
        printf("%s\"%s\":[", *first ? "" : ",", what);
        for (int i = 0; i < nv; i++) printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
        printf("]");
        *first = 0;
        return;
    }
    printf("  %-30s", what);
    for (int i = 0; i < nv; i++) {
        char b[32];
        fmt_mib(b, sizeof b, v[i]);
        printf(" %14s", b);
    }
    printf("\n");
}

static int cmd_estimate(int argc, char **argv) {
    options o = {0};
    o.device = GENESIS_DEVICE_AUTO;
    int rc = parse_args("estimate", F_ESTIMATE | F_TRAIN | F_ROWS, argc, argv, &o);
    if (rc) return rc;
    if (!o.input == !o.model_in)
        return usage_error("estimate", "give the table (-i data.csv) or a saved model (-m model.gen)");
    g_quiet = 1;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    genesis_table *t = NULL;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = o.input ? table_and_model(ctx, &o, &t, &m) : genesis_model_load(ctx, o.model_in, &m);
    if (st == GENESIS_OK) st = genesis_model_set_sample_batch(m, o.sample_batch);
    genesis_memory_estimate e[2];
    int ne = 0;
    if (st == GENESIS_OK && t) st = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e[ne++]);
    if (st == GENESIS_OK)
        st = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_SAMPLE, o.sample_batch, &e[ne++]);
    int64_t maxfit = 0;
    genesis_status fitst = GENESIS_OK;
    if (st == GENESIS_OK && t) fitst = genesis_optimize_batch_size(m, t, GENESIS_WORKLOAD_FIT, &maxfit);
    uint64_t budget = 0, avail = 0;
    if (st == GENESIS_OK) st = genesis_memory_budget(m, &budget, &avail);
    if (st != GENESIS_OK) {
        genesis_table_free(t);
        return finish(ctx, m, st);
    }
    const char *kind = genesis_model_get_kind(m) == GENESIS_MODEL_TVAE ? "tvae" : "ctgan";
    int first = 1;
    if (o.json) {
        printf("{\"method\":\"%s\",\"device\":\"%s\",\"exact\":%d,\"data_dim\":%d,\"cond_dim\":%d,"
               "\"workloads\":[%s\"sample\"],\"budget\":%llu,\"available\":%llu,"
               "\"max_training_batch\":%lld,",
               kind, genesis_ctx_device_name(ctx), e[0].exact, e[0].data_dim, e[0].cond_dim,
               t ? "\"fit\"," : "", (unsigned long long)budget, (unsigned long long)avail,
               (long long)maxfit);
        uint64_t br[2];
        for (int i = 0; i < ne; i++) br[i] = (uint64_t)e[i].batch_rows;
        est_row("batch_rows", br, ne, 1, &first);
    } else {
        printf("genesis estimate: %s (%s on %s)\n", o.input ? o.input : o.model_in, kind,
               genesis_ctx_device_name(ctx));
        if (t)
            printf("  %lld rows x %d columns; encoded row width %s%d%s, conditional vector %d\n",
                   (long long)genesis_table_nrows(t), genesis_table_ncols(t),
                   e[0].exact ? "" : "<= ", e[0].data_dim,
                   e[0].exact ? "" : " (an upper bound until fit finds the modes)", e[0].cond_dim);
        printf("\n  %-30s", "");
        if (t) printf(" %14s", "training");
        printf(" %14s\n  %-30s", "generation", "batch (rows)");
        for (int i = 0; i < ne; i++) printf(" %14lld", (long long)e[i].batch_rows);
        printf("\n");
    }
    uint64_t v[2];
#define EST(field, label)                                        \
    do {                                                         \
        for (int i = 0; i < ne; i++) v[i] = e[i].field;          \
        est_row(o.json ? #field : label, v, ne, o.json, &first); \
    } while (0)
    EST(parameters, "parameters");
    EST(optimizer, "optimizer state");
    EST(activations, "activations");
    EST(activations_per_row, "  per batch row");
    EST(workspace, "workspace (BLAS)");
    EST(table, "table (as read)");
    EST(encoded_data, "encoded data + sampler");
    EST(transform_fit, "transformer fit (transient)");
    EST(output_buffers, "output buffers");
    EST(output_per_row, "  per batch row");
    EST(runtime, "runtime");
    EST(host_total, "= host memory (peak)");
    EST(device_total, "= GPU memory");
#undef EST
    char b1[32], b2[32];
    fmt_mib(b1, sizeof b1, budget);
    fmt_mib(b2, sizeof b2, avail);
    if (o.json) {
        printf("}\n");
    } else {
        printf("\n  memory budget %s (%s available on %s", b1, b2,
               e[0].on_device ? "the GPU" : "the host");
        if (o.mem_limit) printf("; --memory-limit applied");
        printf(")\n");
        if (t && fitst == GENESIS_OK) printf("  largest training batch that fits: %lld rows\n", (long long)maxfit);
        if (t && fitst != GENESIS_OK) {
            fputs("  training does not fit: ", stdout);
            put_message(stdout, genesis_errmsg(ctx));
            fputc('\n', stdout);
        }
        printf("  sampling batch: %lld rows%s\n", (long long)e[ne - 1].batch_rows,
               o.sample_batch ? " (--sample-batch)" : " (sized from the budget)");
    }
    genesis_table_free(t);
    return finish(ctx, m, GENESIS_OK);
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
/* The context and reading options both evaluate paths start from; *ctx stays NULL (with the
 * error printed) when no context could be made. */
static genesis_status eval_setup(unsigned long long seed, int threads, const char *delim,
                                 const char *na, genesis_ctx **ctx, genesis_csv_options *co) {
    genesis_status st = genesis_ctx_create(ctx);
    if (st != GENESIS_OK) {
        *ctx = NULL;
        fprintf(stderr, "genesis: error: %s\n", genesis_status_str(st));
        return st;
    }
    genesis_ctx_set_log(*ctx, log_to_stderr, NULL);
    genesis_ctx_set_seed(*ctx, seed);
    genesis_csv_options_init(co);
    co->delimiter = delim ? delim[0] : 0;
    co->na_tokens = na;
    return genesis_ctx_set_threads(*ctx, threads);
}

static int evaluate_sequences(const char *real, const char *syn, const genesis_seq_eval_options *so,
                              const char *delim, const char *na, unsigned long long seed,
                              int threads, int json) {
    genesis_ctx *ctx = NULL;
    genesis_table *tr = NULL, *ts = NULL;
    genesis_csv_options co;
    genesis_status st = eval_setup(seed, threads, delim, na, &ctx, &co);
    if (!ctx) return 1;
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
    genesis_csv_options co;
    genesis_status st = eval_setup(seed, threads, delim, na, &ctx, &co);
    if (!ctx) return 1;
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
    if (!strcmp(cmd, "estimate")) return cmd_estimate(argc - 1, argv + 1);
    return usage_error(NULL, "unknown command '%s' (commands: generate, fit, sample, estimate, "
                             "evaluate, info)", cmd);
}
