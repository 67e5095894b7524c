/*
 * cli.h — what the files of the `genesis` command share: the commands, the parsed options,
 * the one argument parser (args.c), messages (messages.c), the context and rank set-up
 * (setup.c) and each command's entry point (cmd_*.c). The command includes only the public
 * header, so everything it does a C program embedding libgenesis can do too.
 */
#ifndef GENESIS_CLI_H
#define GENESIS_CLI_H

#include <stdio.h>

#include <genesis/genesis.h>

#define EXIT_USAGE 2
#define MAX_CONDS 64
#define NPARAM_MAX 64

/* The commands, as bits: the flag table says which commands take each flag. */
enum { CMD_GENERATE = 1, CMD_FIT = 2, CMD_SAMPLE = 4, CMD_ESTIMATE = 8, CMD_EVALUATE = 16,
       CMD_INSPECT = 32 };

typedef struct options {
    unsigned cmd;                  /* CMD_* */
    const char *cmd_name;
    const char *input, *output, *model, *save;
    genesis_model_kind kind;       /* from --method (default: genesis_model_kind_default) */
    int method_given;              /* --method was on the command line */
    double epochs;                 /* --epochs for a tabular method trained by iterations
                                      (DDPM): passes over the rows, made iterations once the
                                      table is read (table_and_model); 0 = not given */
    const char *entity, *time;     /* TimeGAN panel data (and evaluate --sequences) */
    const char *calendar;          /* TimeGAN: --calendar (NULL: found by name) */
    const char *delimiter, *na, *discrete, *continuous, *datetime, *not_datetime;
    const char *id, *not_id;
    int no_header, rows_set, threads, device_index, quiet, progress, json;
    long long rows;
    unsigned long long seed;
    genesis_device_kind device;
    const char *distributed;       /* --distributed auto|none|mpi|nccl (NULL = auto) */
    int devices[64], ndevices;     /* --devices 0,1,... */
    int multi_gpu;                 /* --multi-gpu: every GPU found */
    genesis_team *team;            /* ranks that are threads of this process (run_ranks) */
    int team_rank;
    const char *conds[MAX_CONDS];
    int nconds, pset[NPARAM_MAX];
    double pval[NPARAM_MAX];
    double mem_fraction;           /* 0 = library default */
    unsigned long long mem_limit;  /* bytes, 0 = none */
    long long sample_batch;        /* 0 = sized from memory */
    /* checkpoints (fit, generate; docs/checkpoints.md) */
    const char *checkpoint, *resume;
    long long ckpt_every;          /* --checkpoint-every N: epochs (TimeGAN: iterations) */
    double ckpt_minutes;           /* --checkpoint-every Nm */
    int ckpt_every_set;
    int argc;                      /* the command's arguments, for the resume hint */
    char **argv;
    /* evaluate */
    const char *real, *synthetic, *holdout, *report;
    genesis_eval_options eval;
    unsigned skip;                 /* genesis_eval_part bits left out */
    int sequences;                 /* --sequences */
    genesis_seq_eval_options seq;
} options;

/* args.c: parses argv for the command `cmd` (a CMD_* bit) into o. Returns 0, EXIT_USAGE
 * (the error printed), or -1 when --help was asked for and printed. */
int cli_parse(unsigned cmd, int argc, char **argv, options *o);
/* the help of a command ("generate" ...; NULL: the overview), with the model settings of
 * `kind` (0: of every kind) */
void cli_help(const char *cmd, genesis_model_kind kind);

/* messages.c: a usage error (exit 2) with the command's help hint; a library message with its
 * API names printed as flags; a library error (exit 1, or 2 for an invalid argument) */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void put_message(FILE *f, const char *msg);
int lib_error(genesis_ctx *ctx, genesis_status st);
void log_to_stderr(genesis_log_level lvl, const char *msg, void *user);
void fmt_mib(char *buf, size_t cap, uint64_t bytes);
void fmt_duration(char *buf, size_t cap, double seconds);

/* setup.c */
genesis_status make_ctx(options *o, genesis_ctx **ctx);
/* --multi-gpu: every GPU found into o->devices; --devices: each listed GPU must exist. A
 * clear error (and GENESIS_ERR_CANCELLED: already printed) otherwise. */
genesis_status resolve_devices(options *o);
int run_ranks(options *o, int (*body)(options *));
int finish(genesis_ctx *ctx, genesis_model *m, genesis_status st);

/* args.c: the command line's model settings onto a model */
genesis_status apply_settings(genesis_model *m, const options *o);

/* cmd_train.c: the model with the command's settings; cmd_sample.c: conditions and rows */
genesis_status table_and_model(genesis_ctx *ctx, const options *o, genesis_table **t,
                               genesis_model **m);
genesis_status write_sample_rows(genesis_ctx *ctx, genesis_model *m, const options *o, int64_t n);
/* "column=value" into buf: the column name, surrounding blanks trimmed; *value after '=' */
const char *split_condition(const char *cond, char *buf, size_t cap, const char **value);
genesis_status apply_conditions(genesis_model *m, const options *o);

int cmd_generate(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_evaluate(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_inspect(int argc, char **argv);

#endif /* GENESIS_CLI_H */
