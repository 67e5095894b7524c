/*
 * args.c — the one argument parser of every command, and the help generated from the same
 * tables. FLAGS lists each flag once: its letter, value, the commands that take it, the model
 * feature it needs (genesis_model_kind_features: conditions, sequences), its help. The model
 * settings (--epochs, --seq-len, ...) come from the library's parameter table
 * (genesis_param_get_info): which kinds use each, whether `sample` may change it on a fitted
 * model, each kind's default and range. So a flag given to a command or method it does not
 * apply to is refused with a message generated from the tables, and `genesis COMMAND --method
 * NAME --help` prints that method's settings and defaults. Parsing uses getopt_long (unique
 * prefixes, --flag=value). apply_settings then sets the parsed model settings on a model.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

enum { G = CMD_GENERATE, F = CMD_FIT, S = CMD_SAMPLE, E = CMD_ESTIMATE, V = CMD_EVALUATE,
       I = CMD_INSPECT, COND = GENESIS_FEATURE_CONDITIONS, SEQ = GENESIS_FEATURE_SEQUENCES };

enum flag_id {
    F_INPUT, F_OUTPUT, F_MODEL, F_ROWS, F_SAVE, F_COND, F_DELIM, F_NA, F_DISCRETE, F_CONTINUOUS,
    F_DATETIME, F_NOTDATETIME, F_ID, F_NOTID,
    F_NOHEADER, F_METHOD, F_ENTITY, F_TIME, F_CALENDAR, F_REAL, F_SYN, F_HOLD, F_TARGET, F_META, F_JSON,
    F_REPORT, F_SKIP, F_DCR, F_DET, F_TSTR, F_SUB, F_DCRREF, F_SEQ, F_REPEATS, F_DISCIT, F_PREDIT,
    F_BASELINE, F_DEVICE, F_THREADS, F_DIST, F_DEVICES, F_MULTIGPU, F_MEMFRAC, F_MEMLIMIT,
    F_SAMPLEBATCH, F_SEED, F_CKPT, F_CKPTEVERY, F_RESUME, F_QUIET, F_PROGRESS, F_HELP, NFLAGS
};
#define PARAM_BASE 1000 /* getopt value of model setting p: PARAM_BASE + p */

typedef struct flag {
    const char *name;
    char letter;       /* short form, 0 = none */
    const char *value; /* the value's name in the help; NULL = takes none */
    unsigned cmds;     /* the commands that take it */
    unsigned needs;    /* the genesis_model_feature it needs of the method; 0 = none */
    const char *help;
    size_t at;         /* OPT(field): the text (or, without a value, 1) is stored there as it
                          is; 0: apply_flag checks and converts it */
} flag;
#define OPT(field) offsetof(options, field)

static const flag FLAGS[NFLAGS] = {
    [F_INPUT] = {"input", 'i', "FILE", G | F | E, 0, "the real table (CSV with a header row; '-' = stdin)", OPT(input)},
    [F_OUTPUT] = {"output", 'o', "FILE", G | S, 0, "the synthetic table ('-' = stdout; else written to a temporary name, then renamed)", OPT(output)},
    [F_MODEL] = {"model", 'm', "FILE", G | F | S | E | I, 0, "the model file (.gen): fit and generate save to it, sample, estimate and inspect read it", OPT(model)},
    [F_ROWS] = {"rows", 'n', "N", G | S | E, 0, "rows to write (TimeGAN: sequences); generate's default: as many as the input had (TimeGAN: rows - seq-len)"},
    [F_SAVE] = {"save", 0, "FILE", G, 0, "also save the fitted model", OPT(save)},
    [F_COND] = {"condition", 0, "c=v", G | S, COND, "only rows with categorical column c = v (repeatable: conditions on different columns all hold; values of one column alternate)"},
    [F_DELIM] = {"delimiter", 0, "C", G | F | E | V, 0, "',' ';' 'tab' '|' (default: sniffed)"},
    [F_NA] = {"na", 0, "TOKEN[,TOKEN]", G | F | E | V, 0, "extra missing-value tokens (always: empty ? NA N/A NaN nan null NULL None)", OPT(na)},
    [F_DISCRETE] = {"discrete", 0, "a,b", G | F | E, 0, "force these columns categorical", OPT(discrete)},
    [F_CONTINUOUS] = {"continuous", 0, "c,d", G | F | E, 0, "force these columns continuous", OPT(continuous)},
    [F_DATETIME] = {"datetime", 0, "c[:FMT],...", G | F | E | V, 0, "read these columns as dates (ISO 8601, or FMT with %Y %m %d %H %M %S %f %z); dates are modelled as seconds and written back in their format", OPT(datetime)},
    [F_ID] = {"id", 0, "a,b", G | F | E | V, 0, "identifier columns: written as fresh unique values in their shape (integers, or text with one run of digits like C0001), never a real value", OPT(id)},
    [F_NOTID] = {"not-id", 0, "a,b", G | F | E | V, 0, "never treat these columns as identifiers ('*' = only those given with --id)", OPT(not_id)},
    [F_NOTDATETIME] = {"not-datetime", 0, "c,d", G | F | E | V, 0, "never read these columns as dates ('*' = only those given with --datetime)", OPT(not_datetime)},
    [F_NOHEADER] = {"no-header", 0, NULL, G | F | E, 0, "the file has no header row", OPT(no_header)},
    [F_METHOD] = {"method", 0, "NAME", G | F | E, 0, NULL /* the kinds, from the library */},
    [F_ENTITY] = {"entity", 0, "COL", G | F | V, SEQ, "column identifying each series (panel data)"},
    [F_TIME] = {"time", 0, "COL", G | F | V, SEQ, "numeric column ordering the rows"},
    [F_CALENDAR] = {"calendar", 0, "a,b|none", G | F, SEQ, "calendar columns (year, month, day, hour, ...), written from the real windows the time values come from, not modelled (default: found by name; none: model every column)", OPT(calendar)},
    [F_REAL] = {"real", 0, "FILE", V, 0, "the real (training) table", OPT(real)},
    [F_SYN] = {"synthetic", 0, "FILE", V, 0, "the synthetic table", OPT(synthetic)},
    [F_HOLD] = {"holdout", 0, "FILE", V, 0, "real rows the generator never saw: DCR overfitting protection, and the test set of --target", OPT(holdout)},
    [F_TARGET] = {"target", 0, "COLUMN", G | F | V, 0, "categorical column: evaluate: the label of usefulness (needs --holdout); fit, generate (ddpm): the class the denoiser is conditioned on", OPT(eval.target)},
    [F_META] = {"metadata", 0, "FILE", V, 0, "JSON column types overriding the real table's: {\"columns\":[{\"name\":\"age\",\"type\":\"continuous\"},...]}", OPT(eval.metadata_path)},
    [F_JSON] = {"json", 0, NULL, E | V | I, 0, "print the result as JSON on stdout", OPT(json)},
    [F_REPORT] = {"report", 0, "FILE", V, 0, "write a self-contained HTML report", OPT(report)},
    [F_SKIP] = {"skip", 0, "PART[,PART]", V, 0, "leave out quality, validity, privacy, detection, usefulness"},
    [F_DCR] = {"dcr-rows", 0, "N", V, 0, "synthetic rows used for distances (default 20000; 0 = all)"},
    [F_DET] = {"detection-rows", 0, "N", V, 0, "rows per table for detection (default 20000)"},
    [F_TSTR] = {"tstr-rows", 0, "N", V, 0, "training rows for usefulness (default 50000)"},
    [F_SUB] = {"subsample-rows", 0, "N", V, 0, "contingency pairs above this many rows are subsampled (default 50000, as SDMetrics)"},
    [F_DCRREF] = {"dcr-reference-rows", 0, "N|all", V, 0, "with --holdout: training and holdout rows compared for DCR overfitting (default: both sampled to the smaller table's size; all = both whole)"},
    [F_SEQ] = {"sequences", 0, NULL, V, 0, "TimeGAN's discriminative and predictive scores on sequences (docs/timegan.md)", OPT(sequences)},
    [F_REPEATS] = {"repeats", 0, "N", V, SEQ, "--sequences: fresh post-hoc models per score, mean reported (default 10)"},
    [F_DISCIT] = {"disc-iterations", 0, "N", V, SEQ, "--sequences: iterations of the classifier (default 2000)"},
    [F_PREDIT] = {"pred-iterations", 0, "N", V, SEQ, "--sequences: iterations of the predictor (default 5000)"},
    [F_BASELINE] = {"real-baseline", 0, NULL, V, SEQ, "--sequences: also the predictive score of a model trained on the real sequences", OPT(seq.real_baseline)},
    [F_DEVICE] = {"device", 0, "D", G | F | S | E, 0, "cpu | auto | cuda | cuda:N (default auto)"},
    [F_THREADS] = {"threads", 0, "N", G | F | S | E | V, 0, "CPU threads (default 0: the cores other work is not using; OMP_NUM_THREADS when set); never changes the output"},
    [F_DIST] = {"distributed", 0, "K", G | F, 0, "auto | none | mpi | nccl: data-parallel training over the ranks of `mpirun -np N genesis ...` (default auto); --batch-size is the global batch (docs/distributed.md)"},
    [F_DEVICES] = {"devices", 0, "0,1,...", G | F | S, 0, "GPUs: fit: data-parallel ranks (without a launcher, one thread per GPU); generate, sample: the rows are spread over them, batch by batch, same bytes as one GPU"},
    [F_MULTIGPU] = {"multi-gpu", 0, NULL, G | F | S, 0, "every GPU found (as --devices would list them)", OPT(multi_gpu)},
    [F_MEMFRAC] = {"memory-fraction", 0, "F", G | F | S | E, 0, "share of the free memory (GPU, or host for the CPU) runs may plan for (default 0.8)"},
    [F_MEMLIMIT] = {"memory-limit", 0, "SIZE", G | F | S | E, 0, "at most this much in all, e.g. 8GB or 512MiB (default: none); sampling sizes its batches to fit, fit refuses what does not"},
    [F_SAMPLEBATCH] = {"sample-batch", 0, "N", G | S | E, 0, "rows per sampling batch (default 0: sized from the memory budget); never changes the output"},
    [F_SEED] = {"seed", 0, "S", G | F | S | E | V, 0, "random seed (default 0); the same seed and input give the same output, whatever the thread count"},
    [F_CKPT] = {"checkpoint", 0, "FILE", G | F, 0, "write the whole training state to FILE (a model file plus the optimiser, random streams and progress; written to a temporary name, then renamed) every --checkpoint-every and on Ctrl-C, so that --resume FILE continues the fit (docs/checkpoints.md)", OPT(checkpoint)},
    [F_CKPTEVERY] = {"checkpoint-every", 0, "N", G | F, 0, "with --checkpoint: every N epochs, or N iterations for a method trained by --iterations (TimeGAN: counted over its three phases); Nm: every N minutes (e.g. 30m); default: only on Ctrl-C"},
    [F_RESUME] = {"resume", 0, "FILE", G | F, 0, "continue the fit saved in the checkpoint FILE; give the same input and flags as the interrupted run (the table is checked against the checkpoint's); the result is the bytes the uninterrupted run gives", OPT(resume)},
    [F_QUIET] = {"quiet", 'q', NULL, G | F | S | E | V, 0, "no progress or notes", OPT(quiet)},
    [F_PROGRESS] = {"progress", 0, NULL, G | F | S | E, 0, "progress lines even when stderr is not a terminal", OPT(progress)},
    [F_HELP] = {"help", 'h', NULL, G | F | S | E | V | I, 0, "this help; with --method NAME, that method's settings and defaults"},
};

static const struct {
    unsigned cmd;
    const char *name, *usage;
} COMMANDS[] = {
    {G, "generate", "Usage: genesis generate -i data.csv -o synthetic.csv [-n ROWS] [options]\n\n"
                    "Learns the table and writes synthetic rows ('-' = stdin/stdout).\n"},
    {F, "fit", "Usage: genesis fit -i data.csv -m model.gen [options]\n\nLearns the table and saves the model.\n"},
    {S, "sample", "Usage: genesis sample -m model.gen -o synthetic.csv -n ROWS [options]\n\n"
                  "Writes ROWS synthetic rows from a saved model.\n"},
    {E, "estimate",
     "Usage: genesis estimate -i data.csv [training options] [-n ROWS]\n"
     "       genesis estimate -m model.gen [-n ROWS]\n\n"
     "Prints the memory training and generation need, term by term (parameters,\n"
     "optimizer state, activations, workspace, the table and its encoding, output\n"
     "buffers), the memory budget on the device, the largest training batch and the\n"
     "sampling batch that fit it. Before training the encoded width is an upper bound\n"
     "(the number of modes per column is found by fit); with -m it is exact.\n"},
    {V, "evaluate",
     "Usage: genesis evaluate --real real.csv --synthetic synthetic.csv [options]\n"
     "       genesis evaluate --sequences --real real.csv --synthetic synthetic.csv\n"
     "                        [--seq-len 24] [--entity COL] [--time COL] [--repeats 10]\n"
     "                        [--disc-iterations 2000] [--pred-iterations 5000] [--real-baseline]\n\n"
     "Scores a synthetic table against the real table it imitates, as SDMetrics does:\n"
     "quality (column shapes, column pair trends: all pairs and the 2026 strong-pair\n"
     "mode), detection, validity, privacy (exact copies, new rows, distance to the\n"
     "closest record) and, with --holdout and --target, usefulness (train on synthetic,\n"
     "test on real). Both tables need the same columns; the synthetic table's column\n"
     "types follow the real table's. Definitions: docs/evaluate.md. --sequences gives\n"
     "TimeGAN's scores instead (docs/timegan.md).\n"},
    {I, "inspect",
     "Usage: genesis inspect -m model.gen [--json]\n\n"
     "Prints what a saved model holds: its method, every setting it was fitted with (and\n"
     "whether it is the default), the sampling settings `sample` may change, and the\n"
     "columns it generates (type, whole numbers or decimals, missing values, date\n"
     "format, identifier, categories). Reads the file only; nothing runs on a GPU.\n"},
};

static const char *cmd_name(unsigned cmd) {
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (COMMANDS[i].cmd == cmd) return COMMANDS[i].name;
    return "genesis";
}

/* "generate and fit", "ctgan, tvae or timegan": the names of the bits of a mask (commands,
 * or model kinds), the last one after `last` (" and ", " or ") */
static void names_text(unsigned mask, int kinds, const char *last, char *buf, size_t cap) {
    const char *name[8];
    int n = 0;
    for (int b = 0; b < 8; b++) {
        const char *s = kinds ? genesis_model_kind_name((genesis_model_kind)b)
                              : (mask & (1u << b)) ? cmd_name(1u << b) : NULL;
        if (s && (mask & (1u << b))) name[n++] = s;
    }
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", i == 0 ? "" : i < n - 1 ? ", " : last, name[i]);
    }
}

/* the GENESIS_MODEL_BIT of the kinds that have the features `needs` (0: every kind) */
static unsigned kinds_with(unsigned needs) {
    unsigned m = 0;
    for (int k = 1; genesis_model_kind_name((genesis_model_kind)k); k++)
        if ((genesis_model_kind_features((genesis_model_kind)k) & needs) == needs) m |= GENESIS_MODEL_BIT(k);
    return m;
}

/* ---- help -------------------------------------------------------------------------------- */

static int epochs_as_passes(genesis_model_kind kind);

static void help_settings(unsigned cmd, genesis_model_kind only) {
    if (cmd == S) printf("\nSampling settings (override the model's; the others are fixed by fit):\n");
    else printf("\nModel settings (architecture and optimiser defaults are the reference implementations';\n"
                "point-masses, clamp-range, max-categories, vgm-max-rows, sample-argmax 0 and\n"
                "alpha-per-mode are Genesis additions):\n");
    for (int k = 1; genesis_model_kind_name((genesis_model_kind)k); k++) {
        genesis_param_info pi;
        for (int p = 0, shown = 0; genesis_param_get_info((genesis_param)p, (genesis_model_kind)k, &pi) == GENESIS_OK; p++) {
            if ((only && (int)only != k) || !(pi.models & GENESIS_MODEL_BIT(k)) || (cmd == S && !pi.after_fit))
                continue;
            if (!shown++) printf("  --method %s:\n", genesis_model_kind_name((genesis_model_kind)k));
            char range[48], def[24];
            const char *named = genesis_param_choice((genesis_param)p, (int)pi.def);
            snprintf(range, sizeof range, "(%.10g .. %.10g)", pi.lo, pi.hi);
            if (named) { /* a named setting: its names instead of a range */
                range[0] = 0;
                for (int i = 0; genesis_param_choice((genesis_param)p, i); i++)
                    snprintf(range + strlen(range), sizeof range - strlen(range), "%s%s",
                             i ? "|" : "", genesis_param_choice((genesis_param)p, i));
                snprintf(def, sizeof def, "%s", named);
            } else {
                snprintf(def, sizeof def, "%g", pi.def);
            }
            printf("    --%-20s %-8s %-20s %s\n", pi.name, def, range, pi.help);
        }
        if (cmd != S && (!only || (int)only == k) && epochs_as_passes((genesis_model_kind)k))
            printf("    --%-20s %-8s %-20s %s\n", "epochs", "-", "(1 .. 1000000)",
                   "N passes over the rows: ceil(N x rows / batch-size) iterations");
    }
    if (!only && cmd != S)
        printf("'genesis %s --method NAME --help' lists one method's settings.\n", cmd_name(cmd));
}

/* "  LEFT  help", the help wrapped at 100 columns under itself */
static void print_wrapped(const char *left, const char *help) {
    int col = printf("  %-26s", left);
    while (*help) {
        const char *sp = strchr(help, ' ');
        int w = sp ? (int)(sp - help) : (int)strlen(help);
        if (col + 1 + w > 100 && col > 29) col = printf("\n%28s", "") - 1;
        col += printf(" %.*s", w, help);
        help += w + (sp != NULL);
    }
    printf("\n");
}

void cli_help(const char *cmd, genesis_model_kind kind) {
    unsigned c = 0;
    for (size_t i = 0; cmd && i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(COMMANDS[i].name, cmd)) {
            c = COMMANDS[i].cmd;
            fputs(COMMANDS[i].usage, stdout);
        }
    if (!c) { /* the overview: every command's usage lines */
        printf("genesis %s — synthetic tabular data (CTGAN, TVAE) and sequences (TimeGAN)\n\nUsage:\n",
               genesis_version_string());
        for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
            for (const char *u = COMMANDS[i].usage + 7, *nl = u; nl[1] != '\n'; u = nl + 8)
                printf("  %.*s", (int)((nl = strchr(u, '\n')) - u + 1), u);
        printf("  genesis generate --method timegan -i series.csv --seq-len 24 -n SEQUENCES -o out.csv\n"
               "  genesis info\n\nRun 'genesis COMMAND --help' for a command's options, 'genesis COMMAND\n"
               "--method NAME --help' for one method's settings. 'genesis --version'.\n"
               "Exit codes: 0 success, 1 error, 2 usage error.\n");
        return;
    }
    printf("\nOptions:\n");
    for (int i = 0; i < NFLAGS; i++) {
        const flag *f = &FLAGS[i];
        if (!(f->cmds & c) || (kind && !(kinds_with(f->needs) & GENESIS_MODEL_BIT(kind))))
            continue;
        char left[64], kinds[64], help[128];
        snprintf(left, sizeof left, "%c%c%s--%s%s%s", f->letter ? '-' : ' ', f->letter ? f->letter : ' ',
                 f->letter ? ", " : "  ", f->name, f->value ? " " : "", f->value ? f->value : "");
        names_text(kinds_with(0), 1, " or ", kinds, sizeof kinds);
        snprintf(help, sizeof help, "the model: %s (default %s)", kinds, genesis_model_kind_name(genesis_model_kind_default()));
        print_wrapped(left, i == F_HELP && !(FLAGS[F_METHOD].cmds & c) ? "this help" : f->help ? f->help : help);
        if (c == V && i == F_TIME) print_wrapped("    --seq-len N", "--sequences: steps per sequence (default 24)");
    }
    if (!(c & (V | I))) help_settings(c, kind);
    printf("Exit codes: 0 success, 1 error, 2 usage error%s.\n",
           (c & (G | F)) ? ", 130 stopped by Ctrl-C (the training state is in the checkpoint)" : "");
}

/* ---- values ------------------------------------------------------------------------------ */

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

/* the value of flag `id` into o */
static int apply_flag(options *o, int id, const char *arg) {
    const char *cmd = o->cmd_name;
    const flag *f = &FLAGS[id];
    long long v = 0;
    if (f->at && f->value) *(const char **)((char *)o + f->at) = arg;
    else if (f->at) *(int *)((char *)o + f->at) = 1;
    switch (id) {
    case F_ROWS:
        if (parse_ll(arg, &v) || v < 0)
            return usage_error(cmd, "-n/--rows must be a whole number >= 0, got '%s'", arg);
        o->rows = v;
        o->rows_set = 1;
        break;
    case F_COND:
        if (!strchr(arg, '=')) return usage_error(cmd, "--condition needs column=value, got '%s'", arg);
        if (o->nconds >= MAX_CONDS) return usage_error(cmd, "at most %d --condition flags", MAX_CONDS);
        o->conds[o->nconds++] = arg;
        break;
    case F_DELIM:
        if (!strcmp(arg, "tab") || !strcmp(arg, "\\t")) o->delimiter = "\t";
        else if (strlen(arg) != 1 || arg[0] == '"' || arg[0] == '\n' || arg[0] == '\r')
            return usage_error(cmd, "--delimiter must be one character (or 'tab'), got '%s'", arg);
        else o->delimiter = arg;
        break;
    case F_METHOD:
        if (genesis_model_kind_from_name(arg, &o->kind) != GENESIS_OK) {
            char kinds[64];
            names_text(kinds_with(0), 1, " or ", kinds, sizeof kinds);
            return usage_error(cmd, "--method must be %s, got '%s'", kinds, arg);
        }
        o->method_given = 1;
        break;
    case F_ENTITY: o->entity = o->seq.entity = arg; break;
    case F_TIME: o->time = o->seq.time = arg; break;
    case F_SKIP: {
        static const char *parts[] = {"quality", "validity", "privacy", "detection", "usefulness"};
        char buf[256];
        snprintf(buf, sizeof buf, "%s", arg);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            int k = 0;
            while (k < 5 && strcmp(tok, parts[k])) k++;
            if (k == 5)
                return usage_error(cmd, "--skip takes quality, validity, privacy, detection, "
                                        "usefulness; got '%s'", tok);
            o->skip |= 1u << k; /* GENESIS_EVAL_PART_* in the same order */
        }
        break;
    }
    case F_DCR: case F_DET: case F_TSTR: case F_SUB: {
        int64_t *dst[] = {&o->eval.dcr_rows, &o->eval.detection_rows, &o->eval.tstr_rows,
                          &o->eval.subsample_rows};
        int all = id == F_DCR; /* 0 = every row */
        if (parse_ll(arg, &v) || v < 0 || (v == 0 && !all))
            return usage_error(cmd, "--%s must be a whole number %s, got '%s'", f->name,
                               all ? ">= 0" : "> 0", arg);
        *dst[id - F_DCR] = all && v == 0 ? -1 : v;
        break;
    }
    case F_DCRREF:
        if (!strcmp(arg, "all")) {
            o->eval.dcr_reference_rows = -1;
        } else {
            if (parse_ll(arg, &v) || v < 1)
                return usage_error(cmd, "--dcr-reference-rows must be a whole number > 0 or "
                                        "'all', got '%s'", arg);
            o->eval.dcr_reference_rows = v;
        }
        break;
    case F_REPEATS: case F_DISCIT: case F_PREDIT: {
        int *dst[] = {&o->seq.repeats, &o->seq.disc_iterations, &o->seq.pred_iterations};
        if (parse_ll(arg, &v) || v < 1 || v > 100000000)
            return usage_error(cmd, "--%s must be a whole number >= 1, got '%s'", f->name, arg);
        *dst[id - F_REPEATS] = (int)v;
        break;
    }
    case F_DEVICE:
        o->device_index = 0;
        if (!strcmp(arg, "cpu")) o->device = GENESIS_DEVICE_CPU;
        else if (!strcmp(arg, "auto")) o->device = GENESIS_DEVICE_AUTO;
        else if (!strcmp(arg, "cuda")) o->device = GENESIS_DEVICE_CUDA;
        else if (!strncmp(arg, "cuda:", 5) && !parse_ll(arg + 5, &v) && v >= 0 && v <= 255) {
            o->device = GENESIS_DEVICE_CUDA;
            o->device_index = (int)v;
        } else return usage_error(cmd, "--device must be cpu, auto, cuda or cuda:N, got '%s'", arg);
        break;
    case F_THREADS:
        if (parse_ll(arg, &v) || v < 0 || v > 1024)
            return usage_error(cmd, "--threads must be between 0 and 1024, got '%s'", arg);
        o->threads = (int)v;
        break;
    case F_DIST:
        if (strcmp(arg, "auto") && strcmp(arg, "none") && strcmp(arg, "mpi") && strcmp(arg, "nccl"))
            return usage_error(cmd, "--distributed must be auto, none, mpi or nccl, got '%s'", arg);
        o->distributed = arg;
        break;
    case F_DEVICES:
        if (parse_devices(arg, o->devices, 64, &o->ndevices))
            return usage_error(cmd, "--devices needs distinct GPU indices 0..255 separated by commas "
                                    "(at most 64), got '%s'", arg);
        break;
    case F_MEMFRAC:
        if (parse_double(arg, &o->mem_fraction) || !(o->mem_fraction > 0 && o->mem_fraction <= 1))
            return usage_error(cmd, "--memory-fraction must be a number in (0, 1], e.g. 0.8, got '%s'", arg);
        break;
    case F_MEMLIMIT: {
        uint64_t b;
        if (genesis_parse_bytes(arg, &b) != GENESIS_OK || b == 0)
            return usage_error(cmd, "--memory-limit must be a size such as 8GB, 512MiB or 100000000, got '%s'", arg);
        o->mem_limit = b;
        break;
    }
    case F_SAMPLEBATCH:
        if (parse_ll(arg, &v) || v < 0 || v > (1LL << 30))
            return usage_error(cmd, "--sample-batch must be between 0 (automatic) and 1073741824 rows, got '%s'", arg);
        o->sample_batch = v;
        break;
    case F_CKPTEVERY: {
        size_t n = strlen(arg);
        double x;
        char num[64];
        int minutes = n > 1 && arg[n - 1] == 'm';
        snprintf(num, sizeof num, "%.*s", (int)(minutes ? n - 1 : n), arg);
        if (minutes ? parse_double(num, &x) || !(x > 0) || x > 1e8
                    : parse_ll(num, &v) || v < 1 || v > 1000000000)
            return usage_error(cmd, "--checkpoint-every must be a whole number of epochs "
                                    "(or iterations) >= 1, or minutes as Nm (e.g. 30m), got '%s'", arg);
        o->ckpt_every = minutes ? 0 : v;
        o->ckpt_minutes = minutes ? x : 0;
        o->ckpt_every_set = 1;
        break;
    }
    case F_SEED: {
        char *end;
        errno = 0;
        o->seed = strtoull(arg, &end, 10);
        if (arg[0] == '-' || errno || end == arg || *end)
            return usage_error(cmd, "--seed must be a whole number >= 0, got '%s'", arg);
        break;
    }
    }
    return 0;
}

/* a model setting: the value inside the table's range, on a command that takes it */
static int apply_param(options *o, int p, const char *arg) {
    genesis_param_info pi;
    genesis_param_get_info((genesis_param)p, 0, &pi);
    double val;
    /* training commands take every setting, sample the sampling-time ones, and evaluate
     * --sequences reads sequences as --seq-len cuts them */
    unsigned takes = G | F | E | (pi.after_fit ? S : 0) | (p == GENESIS_P_SEQ_LEN ? V : 0);
    if (!(takes & o->cmd) && o->cmd == S)
        return usage_error(o->cmd_name, "--%s is a training setting; it applies to fit and generate", pi.name);
    if (!(takes & o->cmd)) {
        char cmds[96];
        names_text(takes, 0, " and ", cmds, sizeof cmds);
        return usage_error(o->cmd_name, "--%s does not apply to '%s' (it applies to %s)", pi.name,
                           o->cmd_name, cmds);
    }
    if (genesis_param_choice((genesis_param)p, 0)) { /* a named setting: one of its names */
        int k = 0;
        while (genesis_param_choice((genesis_param)p, k) && strcmp(genesis_param_choice((genesis_param)p, k), arg))
            k++;
        if (!genesis_param_choice((genesis_param)p, k)) {
            char names[96] = "";
            for (int i = 0; genesis_param_choice((genesis_param)p, i); i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                         genesis_param_choice((genesis_param)p, i));
            return usage_error(o->cmd_name, "--%s must be one of %s, got '%s'", pi.name, names, arg);
        }
        val = k;
    } else if (parse_double(arg, &val) || val < pi.lo || val > pi.hi || (pi.integer && val != (double)(long long)val))
        return usage_error(o->cmd_name, "--%s must be a %s between %g and %g, got '%s'", pi.name,
                           pi.integer ? "whole number" : "number", pi.lo, pi.hi, arg);
    o->pset[p] = 1;
    o->pval[p] = val;
    if (p == GENESIS_P_SEQ_LEN) o->seq.seq_len = (int)val;
    return 0;
}

/* ---- the parser -------------------------------------------------------------------------- */

typedef struct scan {
    struct option longopts[NFLAGS + NPARAM_MAX + 1];
    char shortopts[2 * NFLAGS + 2];
} scan;

static void scan_init(scan *s) {
    int n = 0, k = 0;
    s->shortopts[k++] = ':';
    for (int i = 0; i < NFLAGS; i++) {
        s->longopts[n++] = (struct option){FLAGS[i].name, FLAGS[i].value ? required_argument : no_argument, 0, i};
        if (FLAGS[i].letter) {
            s->shortopts[k++] = FLAGS[i].letter;
            if (FLAGS[i].value) s->shortopts[k++] = ':';
        }
    }
    s->shortopts[k] = 0;
    genesis_param_info pi;
    for (int p = 0; p < NPARAM_MAX && genesis_param_get_info((genesis_param)p, 0, &pi) == GENESIS_OK; p++)
        /* a switch that is off by default may be given bare (--gradient-checkpointing) */
        s->longopts[n++] = (struct option){pi.name, p == GENESIS_P_GRADIENT_CHECKPOINTING ? optional_argument : required_argument, 0, PARAM_BASE + p};
    memset(&s->longopts[n], 0, sizeof s->longopts[0]);
}

/* the flag id of a getopt result (short options come back as their letter) */
static int flag_id(int c) {
    for (int i = 0; i < NFLAGS; i++)
        if (FLAGS[i].letter && FLAGS[i].letter == c) return i;
    return c;
}

/* "--X applies to --method ...": a flag given that the chosen method does not use */
static int check_kind(const options *o, const char *name, unsigned models) {
    if (!models || (models & GENESIS_MODEL_BIT(o->kind))) return 0;
    char kinds[64];
    names_text(models, 1, " or ", kinds, sizeof kinds);
    return usage_error(o->cmd_name, "--%s applies to --method %s, not %s", name, kinds,
                       genesis_model_kind_name(o->kind));
}

/* Whether --epochs N means N passes over the rows for `kind`, converted to its training unit
 * when the table is read: a tabular method trained by iterations (DDPM), as its traits say
 * (genesis_model_kind_get_info); not a sequence model, whose phases are no passes. */
static int epochs_as_passes(genesis_model_kind kind) {
    genesis_model_kind_info ki;
    return genesis_model_kind_get_info(kind, &ki) == GENESIS_OK && ki.train_param != GENESIS_P_EPOCHS &&
           !(ki.features & GENESIS_FEATURE_SEQUENCES);
}

/* --help anywhere on the line wins: then only --method is read, for its settings */
static int help_asked(scan *s, int argc, char **argv, genesis_model_kind *kind) {
    int help = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, s->shortopts, s->longopts, NULL)) != -1) {
        c = flag_id(c);
        if (c == F_HELP) help = 1;
        if (c == F_METHOD && genesis_model_kind_from_name(optarg, kind) != GENESIS_OK) *kind = 0;
    }
    return help;
}

/* A table path naming a Parquet file: this build has no C Parquet library (Debian 12 ships
 * none), so the command says how to convert instead of reading or writing the bytes as CSV.
 * out: the path is written (-o), else read. */
static int refuse_parquet(const char *cmd, const char *opt, const char *path, int out) {
    if (!path) return 0;
    size_t n = strlen(path);
    if (!(n >= 8 && !strcasecmp(path + n - 8, ".parquet")) && !(n >= 3 && !strcasecmp(path + n - 3, ".pq")))
        return 0;
    char how[512];
    if (out)
        snprintf(how, sizeof how, "write CSV and convert it: python3 -c \"import pandas as pd; "
                                  "pd.read_csv('synthetic.csv').to_parquet('%s')\"", path);
    else
        snprintf(how, sizeof how, "convert it: python3 -c \"import pandas as pd; "
                                  "pd.read_parquet('%s').to_csv('table.csv', index=False)\"", path);
    return usage_error(cmd, "%s %s: the genesis command reads and writes CSV only (Debian 12 has no "
                            "C Parquet library); %s (pandas needs pyarrow for Parquet: pip install "
                            "pyarrow), or use the Python pipeline, genesis.pipeline.PipelineBuilder, "
                            "which reads and writes Parquet (docs/python.md, \"Pipelines\")",
                       opt, path, how);
}

int cli_parse(unsigned cmd, int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->argc = argc;
    o->argv = argv;
    o->cmd = cmd;
    o->cmd_name = cmd_name(cmd);
    o->kind = genesis_model_kind_default();
    o->device = GENESIS_DEVICE_AUTO;
    genesis_eval_options_init(&o->eval);
    genesis_seq_eval_options_init(&o->seq);
    static scan s;
    scan_init(&s);
    genesis_model_kind hk = 0;
    if (help_asked(&s, argc, argv, &hk)) {
        cli_help(o->cmd_name, hk);
        return -1;
    }
    const char *name = o->cmd_name;
    int given[NFLAGS] = {0}, c;
    optind = 0;
    while ((c = getopt_long(argc, argv, s.shortopts, s.longopts, NULL)) != -1) {
        if (c == ':') return usage_error(name, "option '%s' needs a value", argv[optind - 1]);
        if (c == '?') {
            if (optopt && strncmp(argv[optind - 1], "--", 2) != 0)
                return usage_error(name, "unknown option '-%c'", optopt);
            return usage_error(name, "unknown option '%s'", argv[optind - 1]);
        }
        c = flag_id(c);
        int rc;
        if (c >= PARAM_BASE) {
            rc = apply_param(o, c - PARAM_BASE, optarg ? optarg : "1");
        } else {
            if (!(FLAGS[c].cmds & cmd)) {
                char cmds[96], label[40] = "";
                names_text(FLAGS[c].cmds, 0, " and ", cmds, sizeof cmds);
                if (FLAGS[c].letter) snprintf(label, sizeof label, "-%c/", FLAGS[c].letter);
                return usage_error(name, "%s--%s does not apply to '%s' (it applies to %s)", label,
                                   FLAGS[c].name, name, cmds);
            }
            given[c] = 1;
            rc = apply_flag(o, c, optarg);
        }
        if (rc) return rc;
    }
    if (optind < argc) return usage_error(name, "unexpected argument '%s'", argv[optind]);
    /* a flag or setting the chosen method does not use (the method is known when training);
     * --epochs for a tabular method trained by iterations is passes over the rows */
    int rc = 0, by_iters = (cmd & (G | F | E)) && epochs_as_passes(o->kind);
    genesis_param_info pi;
    for (int i = 0; (cmd & (G | F) || (cmd == E && o->input)) && !rc && i < NFLAGS + NPARAM_MAX; i++) {
        if (i < NFLAGS && given[i]) rc = check_kind(o, FLAGS[i].name, kinds_with(FLAGS[i].needs));
        else if (i >= NFLAGS && o->pset[i - NFLAGS] && !(by_iters && i - NFLAGS == GENESIS_P_EPOCHS) &&
                 genesis_param_get_info((genesis_param)(i - NFLAGS), 0, &pi) == GENESIS_OK)
            rc = check_kind(o, pi.name, pi.models);
    }
    if (rc) return rc;
    if (by_iters && o->pset[GENESIS_P_EPOCHS]) {
        if (o->pset[GENESIS_P_ITERATIONS])
            return usage_error(name, "give --epochs or --iterations, not both: %s trains by "
                                     "iterations, and --epochs N means N passes over the rows",
                               genesis_model_kind_name(o->kind));
        o->epochs = o->pval[GENESIS_P_EPOCHS]; /* made iterations when the rows are known */
        o->pset[GENESIS_P_EPOCHS] = 0;
    }
    if (o->ndevices && o->multi_gpu) return usage_error(name, "give --devices or --multi-gpu, not both");
    if ((rc = refuse_parquet(name, "-i/--input", o->input, 0)) ||
        (rc = refuse_parquet(name, "-o/--output", o->output, 1)) ||
        (rc = refuse_parquet(name, "--real", o->real, 0)) ||
        (rc = refuse_parquet(name, "--synthetic", o->synthetic, 0)) ||
        (rc = refuse_parquet(name, "--holdout", o->holdout, 0)))
        return rc;
    if (cmd == G && o->save && o->model) return usage_error(name, "give the model file once: --save FILE");
    if (cmd == G && !o->save) o->save = o->model;
    if (o->ckpt_every_set && !o->checkpoint && !o->resume)
        return usage_error(name, "--checkpoint-every needs --checkpoint FILE (or --resume FILE)");
    if ((cmd & (G | F)) && !o->input) return usage_error(name, "missing -i/--input FILE");
    if ((cmd & (G | S)) && !o->output) return usage_error(name, "missing -o/--output FILE");
    if ((cmd & (F | S)) && !o->model) return usage_error(name, "missing -m/--model FILE");
    if (cmd == S && !o->rows_set) return usage_error(name, "missing -n/--rows N");
    if (cmd == I && !o->model) return usage_error(name, "missing -m/--model FILE");
    if (cmd == E && !o->input == !o->model)
        return usage_error(name, "give the table (-i data.csv) or a saved model (-m model.gen)");
    if (cmd == V) { /* for evaluate, the flags that need sequences need --sequences */
        char list[160] = "--seq-len";
        int seq_only = o->pset[GENESIS_P_SEQ_LEN];
        for (int i = 0; i < NFLAGS; i++)
            if ((FLAGS[i].cmds & V) && (FLAGS[i].needs & SEQ)) {
                seq_only |= given[i];
                snprintf(list + strlen(list), sizeof list - strlen(list), ", --%s", FLAGS[i].name);
            }
        if (!o->real) return usage_error(name, "missing --real FILE (the real table)");
        if (!o->synthetic) return usage_error(name, "missing --synthetic FILE (the synthetic table)");
        if (seq_only && !o->sequences) return usage_error(name, "%s need --sequences", list);
    }
    return 0;
}

/* The model settings the command line gave (--epochs, --sample-argmax, ...), set on m in
 * parameter order; the first the library refuses stops it. */
genesis_status apply_settings(genesis_model *m, const options *o) {
    genesis_status st = GENESIS_OK;
    for (int p = 0; st == GENESIS_OK && p < NPARAM_MAX; p++)
        if (o->pset[p]) st = genesis_model_set_param(m, (genesis_param)p, o->pval[p]);
    return st;
}
