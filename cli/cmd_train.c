/*
 * cmd_train.c — `genesis generate` (fit, then write rows) and `genesis fit` (fit, then save):
 * reading the table, the model with the command's settings, the summary line and the
 * training progress (epochs; TimeGAN's three phases). With --devices/--multi-gpu each rank
 * runs the command's body (setup.c, run_ranks). Checkpoints (docs/checkpoints.md):
 * --checkpoint/--checkpoint-every, --resume (the model comes from the checkpoint), and Ctrl-C:
 * the SIGINT handler only sets a flag, which the library reads after every training step
 * (genesis_ctx_set_interrupt) and the progress callback returns; the library writes the
 * checkpoint and stops, and the command prints how to continue and exits 130.
 */
#include <ctype.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Ctrl-C: the first sets the flag the library reads after every step (it then stops, writing
 * the checkpoint of the last finished epoch or iteration); a second one exits at once. */
static volatile sig_atomic_t g_interrupted;

static void on_sigint(int sig) {
    (void)sig;
    if (g_interrupted) _exit(130);
    g_interrupted = 1;
}

/* Before training: every --condition names a categorical column of the table, so a typo
 * does not cost a whole training run. */
static int check_conditions_early(const options *o, const genesis_table *t) {
    for (int i = 0; i < o->nconds; i++) {
        char buf[4096];
        const char *value, *name = split_condition(o->conds[i], buf, sizeof buf, &value);
        int found = -1;
        for (int c = 0; c < genesis_table_ncols(t); c++)
            if (!strcmp(genesis_table_column_name(t, c), name)) found = c;
        if (found < 0) return usage_error(o->cmd_name, "--condition: no column named '%s' in %s", name, o->input);
        if (genesis_table_column_type(t, found) != GENESIS_COLUMN_CATEGORICAL)
            return usage_error(o->cmd_name, "--condition: column '%s' is continuous; conditions apply to "
                                            "categorical columns", name);
    }
    return 0;
}

genesis_status table_and_model(genesis_ctx *ctx, const options *o, genesis_table **tp,
                               genesis_model **m) {
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    co.delimiter = o->delimiter ? o->delimiter[0] : 0;
    co.has_header = !o->no_header;
    co.na_tokens = o->na;
    co.discrete = o->discrete;
    co.continuous = o->continuous;
    co.datetime = o->datetime;
    co.not_datetime = o->not_datetime;
    co.id = o->id;
    co.not_id = o->not_id;
    if (genesis_model_kind_features(o->kind) & GENESIS_FEATURE_SEQUENCES) {
        /* TimeGAN models dates as numbers; it generates no identifiers but the entity's */
        if (o->id) {
            usage_error(o->cmd_name, "--id: TimeGAN does not generate identifier columns; name "
                                     "the column with --entity, or leave the flag out (it is "
                                     "then read as an ordinary column)");
            return GENESIS_ERR_CANCELLED;
        }
        co.not_id = "*";
    }
    genesis_status st = genesis_table_read_csv(ctx, o->input, &co, tp);
    if (st != GENESIS_OK) return st;
    if (check_conditions_early(o, *tp)) return GENESIS_ERR_CANCELLED; /* usage error printed */
    if (o->resume) { /* the checkpoint's model: its settings, seed and progress */
        st = genesis_model_load_checkpoint(ctx, o->resume, m);
        if (st == GENESIS_OK && genesis_model_get_kind(*m) != o->kind) {
            const char *k = genesis_model_kind_name(genesis_model_get_kind(*m));
            usage_error(o->cmd_name, "--resume: %s holds a %s fit; give --method %s and the other "
                                     "flags of the interrupted run", o->resume, k, k);
            return GENESIS_ERR_CANCELLED;
        }
    } else {
        st = genesis_model_create(ctx, o->kind, m);
    }
    if (st == GENESIS_OK) st = apply_settings(*m, o);
    if (st == GENESIS_OK && o->epochs > 0) { /* --epochs N: N passes over the rows (cli_parse) */
        genesis_model_kind_info ki;
        double n = 0;
        st = genesis_model_kind_get_info(o->kind, &ki);
        if (st == GENESIS_OK) st = genesis_model_epochs_length(*m, genesis_table_nrows(*tp), o->epochs, &n);
        if (st == GENESIS_OK) st = genesis_model_set_param(*m, ki.train_param, n);
    }
    if (st == GENESIS_OK && (o->entity || o->time))
        st = genesis_model_set_sequence_columns(*m, o->entity, o->time);
    if (st == GENESIS_OK && o->calendar) st = genesis_model_set_calendar_columns(*m, o->calendar);
    if (st == GENESIS_OK && o->eval.target) st = genesis_model_set_target(*m, o->eval.target);
    return st;
}

/* ---- progress ---------------------------------------------------------------------------- */

typedef struct progress_state {
    int tty;
    int gan;  /* two losses (a discriminator's too: CTGAN) or one */
    int seq;  /* a sequence model (TimeGAN): "epochs" are the three phases */
    int iters; /* a tabular model that counts iterations (DDPM): "epochs" are blocks of them */
    const char *unit; /* what the fit counts: "epochs" or "iterations" */
    int show; /* print progress (the callback also answers Ctrl-C when it prints nothing) */
    genesis_progress last;
    int asked_stop; /* the callback returned the Ctrl-C flag (a stop at an epoch's end) */
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
    progress_state *ps = user;
    ps->last = *p;
    if (g_interrupted) { /* stop: the library checkpoints first */
        ps->asked_stop = 1;
        return 1;
    }
    if (!ps->show) return 0;
    if (ps->seq) return show_seq_progress(p, ps);
    char losses[64], eta[32], el[32];
    if (ps->gan) snprintf(losses, sizeof losses, "loss G %+.3f  D %+.3f", p->loss_g, p->loss_d);
    else snprintf(losses, sizeof losses, "loss %+.3f", p->loss_g);
    fmt_duration(eta, sizeof eta, p->eta_s);
    fmt_duration(el, sizeof el, p->elapsed_s);
    char unit[64];
    if (ps->iters) snprintf(unit, sizeof unit, "iteration %lld/%lld", (long long)p->step, (long long)p->steps);
    else snprintf(unit, sizeof unit, "epoch %d/%d", p->epoch, p->epochs);
    if (ps->tty) {
        fprintf(stderr, "\r\033[K%s  %s  %.0f rows/s  %s elapsed  ETA %s", unit, losses,
                p->rows_per_s, el, eta);
        if (p->epoch == p->epochs) fputc('\n', stderr);
    } else if (p->epoch == p->epochs || p->epoch % 10 == 0 || p->epoch == 1) {
        fprintf(stderr, "%s  %s  %.0f rows/s  %s elapsed  ETA %s\n", unit, losses, p->rows_per_s,
                el, eta);
    }
    fflush(stderr);
    return 0;
}

/* ---- fit --------------------------------------------------------------------------------- */

/* n with a comma between thousands: 1,230 */
static void thousands(char *out, size_t cap, long long n) {
    char d[32];
    int len = snprintf(d, sizeof d, "%lld", n < 0 ? -n : n), k = 0;
    if (n < 0 && (size_t)k + 1 < cap) out[k++] = '-';
    for (int i = 0; i < len && (size_t)k + 1 < cap; i++) {
        if (i && (len - i) % 3 == 0 && (size_t)k + 2 < cap) out[k++] = ',';
        out[k++] = d[i];
    }
    out[k] = 0;
}

/* what is about to be trained, on stderr */
static void summary(genesis_ctx *ctx, const options *o, const genesis_table *t, genesis_model *m) {
    double v[4];
    if (genesis_model_kind_features(o->kind) & GENESIS_FEATURE_SEQUENCES) {
        genesis_param which[4] = {GENESIS_P_SEQ_LEN, GENESIS_P_HIDDEN_DIM, GENESIS_P_NUM_LAYERS,
                                  GENESIS_P_ITERATIONS};
        for (int i = 0; i < 4; i++) genesis_model_get_param(m, which[i], &v[i]);
        fprintf(stderr, "genesis: %s: %lld rows x %d columns; training TimeGAN (seq-len %g, hidden %g, "
                        "%g layers) for 3 x %g iterations on %s\n",
                o->input, (long long)genesis_table_nrows(t), genesis_table_ncols(t), v[0], v[1], v[2],
                v[3], genesis_ctx_device_name(ctx));
        return;
    }
    int ncont = 0;
    for (int c = 0; c < genesis_table_ncols(t); c++)
        ncont += genesis_table_column_type(t, c) == GENESIS_COLUMN_CONTINUOUS;
    char kind[16];
    snprintf(kind, sizeof kind, "%s", genesis_model_kind_name(o->kind));
    for (char *q = kind; *q; q++) *q = (char)toupper((unsigned char)*q);
    /* the kind's training unit: epochs, or iterations (DDPM) */
    genesis_model_kind_info ki;
    if (genesis_model_kind_get_info(o->kind, &ki) != GENESIS_OK) return;
    genesis_model_get_param(m, ki.train_param, &v[0]);
    genesis_model_get_param(m, GENESIS_P_PRECISION, &v[1]);
    char prec[32] = "";
    if (v[1] != GENESIS_PRECISION_FP32) /* mixed precision (docs/precision.md) */
        snprintf(prec, sizeof prec, " in %s", genesis_param_choice(GENESIS_P_PRECISION, (int)v[1]));
    fprintf(stderr, "genesis: %s: %lld rows x %d columns (%d continuous, %d categorical); "
                    "training %s for %g %s%s on %s\n",
            o->input, (long long)genesis_table_nrows(t), genesis_table_ncols(t), ncont,
            genesis_table_ncols(t) - ncont, kind, v[0], ki.train_unit, prec,
            genesis_ctx_device_name(ctx));
    char passes[160] = ""; /* --epochs N of a method trained by iterations, as it was converted */
    if (o->epochs > 0) {
        double b = 0;
        genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &b);
        if (b > (double)genesis_table_nrows(t)) b = (double)genesis_table_nrows(t);
        char nb[32];
        thousands(nb, sizeof nb, (long long)v[0]);
        snprintf(passes, sizeof passes, "--epochs %g = %s %s at batch %g", o->epochs, nb,
                 ki.train_unit, b);
    }
    if (!o->method_given) /* which method, and why this one */
        fprintf(stderr, "genesis: method %s (the default): the one method that kept missing values, "
                        "rare categories and the target's class rates on every table measured "
                        "(docs/benchmarks.md)%s%s\n", ki.name, passes[0] ? "; " : "", passes);
    else if (passes[0])
        fprintf(stderr, "genesis: %s (%s trains by %s)\n", passes, ki.name, ki.train_unit);
    char dates[512];
    size_t k = 0;
    dates[0] = 0;
    for (int c = 0; c < genesis_table_ncols(t) && k + 80 < sizeof dates; c++) {
        const char *f = genesis_table_column_datetime(t, c);
        if (!f) continue;
        int n = snprintf(dates + k, sizeof dates - k, "%s%s (%s)", k ? ", " : "",
                         genesis_table_column_name(t, c), f);
        if (n > 0) k += (size_t)n < sizeof dates - k ? (size_t)n : sizeof dates - k - 1;
    }
    if (k)
        fprintf(stderr, "genesis: date columns, modelled as seconds and written back in their "
                        "format: %s (--not-datetime COL to keep one as text)\n", dates);
    k = 0;
    dates[0] = 0;
    for (int c = 0; c < genesis_table_ncols(t) && k + 80 < sizeof dates; c++) {
        if (!genesis_table_column_is_id(t, c)) continue;
        int n = snprintf(dates + k, sizeof dates - k, "%s%s", k ? ", " : "",
                         genesis_table_column_name(t, c));
        if (n > 0) k += (size_t)n < sizeof dates - k ? (size_t)n : sizeof dates - k - 1;
    }
    if (k)
        fprintf(stderr, "genesis: identifier columns, not modelled; written as fresh unique "
                        "values in their shape, never a real one: %s (--not-id COL to model "
                        "one)\n", dates);
    int K = genesis_ctx_world_size(ctx);
    if (K > 1) {
        genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &v[1]);
        fprintf(stderr, "genesis: data parallel over %d ranks: global batch %g, about %g rows "
                        "per rank\n", K, v[1], v[1] / K);
    }
}

/* ---- checkpoints ------------------------------------------------------------------------ */

static char g_ckpt_default[4096];

/* The checkpoint file and interval: --checkpoint, or on --resume the checkpoint's own; without
 * either, a file Ctrl-C alone writes: MODEL.ckpt (generate: the --save or output file's name
 * plus .ckpt; none for output to stdout). Data-parallel fits take none. */
static genesis_status set_checkpoint(genesis_ctx *ctx, const options *o, genesis_model *m) {
    const char *path = o->checkpoint;
    if (!path && o->resume && o->ckpt_every_set) path = o->resume;
    if (path)
        return genesis_model_set_checkpoint(m, path, o->ckpt_every_set ? o->ckpt_every : 0,
                                            o->ckpt_every_set ? o->ckpt_minutes : 0);
    if (o->resume || genesis_ctx_world_size(ctx) > 1) return GENESIS_OK;
    const char *base = o->cmd == CMD_FIT ? o->model : o->save ? o->save
                                                    : strcmp(o->output, "-") ? o->output : NULL;
    if (!base || !strcmp(base, "-")) return GENESIS_OK;
    snprintf(g_ckpt_default, sizeof g_ckpt_default, "%s.ckpt", base);
    return genesis_model_set_checkpoint(m, g_ckpt_default, 0, 0);
}

static void put_quoted(const char *a) {
    if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == strlen(a)) {
        fprintf(stderr, " %s", a);
        return;
    }
    fputs(" '", stderr);
    for (; *a; a++) {
        if (*a == '\'') fputs("'\\''", stderr);
        else fputc(*a, stderr);
    }
    fputc('\'', stderr);
}

/* After Ctrl-C: where the training state is and the command that continues it (this run's
 * arguments with --resume FILE, any earlier --resume left out). Exit code 130. */
static int interrupted(const options *o, const genesis_model *m, const progress_state *ps,
                       genesis_status st, const char *ckpt) {
    char where[96] = "before the first epoch";
    int64_t done = 0, total = 0;
    if (ps->tty && ps->show) fputc('\n', stderr); /* end the progress line drawn in place */
    if (st == GENESIS_ERR_STOPPED && !ps->seq &&
        genesis_model_checkpoint_progress(m, &done, &total) == GENESIS_OK && total > 0)
        snprintf(where, sizeof where, "%s %s %lld of %lld",
                 !ps->iters && !ps->asked_stop ? "in" : "at", ps->iters ? "iteration" : "epoch",
                 (long long)(!ps->iters && !ps->asked_stop ? done + 1 : done),
                 (long long)total); /* an epoch stopped within: the state is the one before */
    else if (ps->last.epochs > 0 && ps->seq)
        snprintf(where, sizeof where, "at iteration %lld of %lld (phase %d of 3)",
                 (long long)ps->last.step, (long long)ps->last.steps, ps->last.epoch);
    else if (ps->last.epochs > 0 && ps->iters)
        snprintf(where, sizeof where, "at iteration %lld of %lld", (long long)ps->last.step,
                 (long long)ps->last.steps);
    else if (ps->last.epochs > 0)
        snprintf(where, sizeof where, "at epoch %d of %d", ps->last.epoch, ps->last.epochs);
    if (st != GENESIS_ERR_STOPPED && ps->last.epochs == 0 && ckpt && ckpt[0]) {
        /* stopped in the first epoch of this run: nothing finished to keep */
        fprintf(stderr, "genesis: interrupted %s; no checkpoint was written (none of this run's "
                        "training had finished)%s%s\n", where,
                o->resume ? "; the state it continued is still in " : "",
                o->resume ? o->resume : "");
        return 130;
    }
    if (st != GENESIS_ERR_STOPPED) {
        fprintf(stderr, "genesis: interrupted %s; no checkpoint was written (give --checkpoint "
                        "FILE to keep the training state)\n", where);
        return 130;
    }
    if (!ps->seq && !ps->iters && !ps->asked_stop)
        fprintf(stderr, "genesis: interrupted %s; the training state at the end of epoch %lld "
                        "is in %s\n", where, (long long)done, ckpt);
    else fprintf(stderr, "genesis: interrupted %s; the training state is in %s\n", where, ckpt);
    fprintf(stderr, "genesis: to continue: genesis %s --resume", o->cmd_name);
    put_quoted(ckpt);
    for (int i = 1; i < o->argc; i++) {
        const char *a = o->argv[i];
        if (!strcmp(a, "--resume") && i + 1 < o->argc) { i++; continue; }
        if (!strncmp(a, "--resume=", 9)) continue;
        put_quoted(a);
    }
    fputc('\n', stderr);
    return 130;
}

static genesis_status fit_from_options(genesis_ctx *ctx, const options *o, genesis_model **m,
                                       int64_t *nrows, progress_state *ps, const char **ckpt) {
    genesis_table *t = NULL;
    genesis_status st = table_and_model(ctx, o, &t, m);
    if (!t) return st;
    *nrows = genesis_table_nrows(t);
    if (st == GENESIS_OK) st = set_checkpoint(ctx, o, *m);
    if (st == GENESIS_OK && !o->quiet) summary(ctx, o, t, *m);
    *ckpt = o->checkpoint ? o->checkpoint : o->resume ? o->resume : g_ckpt_default;
    if (st == GENESIS_OK && !o->quiet && o->resume) {
        int64_t done = 0, total = 0;
        genesis_model_checkpoint_progress(*m, &done, &total);
        fprintf(stderr, "genesis: continuing from %s: %lld of %lld %s done\n", o->resume,
                (long long)done, (long long)total, ps->unit);
    }
    if (st == GENESIS_OK && !o->quiet && (o->checkpoint || (o->resume && o->ckpt_every_set))) {
        if (o->ckpt_minutes > 0)
            fprintf(stderr, "genesis: checkpoints to %s every %g minutes and on Ctrl-C\n", *ckpt,
                    o->ckpt_minutes);
        else if (o->ckpt_every > 0)
            fprintf(stderr, "genesis: checkpoints to %s every %lld %s and on Ctrl-C\n", *ckpt,
                    o->ckpt_every, ps->unit);
        else fprintf(stderr, "genesis: checkpoint to %s on Ctrl-C\n", *ckpt);
    }
    /* no handler in the library: Ctrl-C sets a flag the progress callback returns */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    genesis_ctx_set_interrupt(ctx, &g_interrupted); /* read after every training step */
    if (st == GENESIS_OK) st = genesis_model_fit(*m, t, show_progress, ps);
    genesis_ctx_set_interrupt(ctx, NULL);
    sigaction(SIGINT, &old, NULL);
    genesis_table_free(t);
    return st;
}

static progress_state progress_of(const options *o) {
    progress_state ps;
    memset(&ps, 0, sizeof ps);
    ps.tty = isatty(2);
    genesis_model_kind_info ki = {0};
    genesis_model_kind_get_info(o->kind, &ki);
    ps.gan = ki.losses == 2;
    ps.seq = (ki.features & GENESIS_FEATURE_SEQUENCES) != 0;
    ps.show = !o->quiet && (ps.tty || o->progress);
    ps.iters = ki.train_param == GENESIS_P_ITERATIONS && !ps.seq;
    ps.unit = ki.train_unit ? ki.train_unit : "epochs";
    return ps;
}

/* a fit stopped by Ctrl-C: exit 130 after saying where the state is */
static int stopped(genesis_ctx *ctx, genesis_model *m, genesis_status st, const options *o,
                   const progress_state *ps, const char *ckpt) {
    int rc = interrupted(o, m, ps, st, ckpt);
    finish(ctx, m, GENESIS_OK);
    return rc;
}

static int generate_body(options *o) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    progress_state ps = progress_of(o);
    const char *ckpt = NULL;
    genesis_status st = make_ctx(o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, o, &m, &nrows, &ps, &ckpt);
    if (st == GENESIS_ERR_STOPPED || (st == GENESIS_ERR_CANCELLED && g_interrupted))
        return stopped(ctx, m, st, o, &ps, ckpt);
    int writer = genesis_ctx_rank(ctx) == 0; /* rank 0 alone writes the model and the rows */
    if (st == GENESIS_OK && writer && o->save) st = genesis_model_save(m, o->save);
    if (st == GENESIS_OK) st = apply_conditions(m, o);
    int64_t n = o->rows_set ? o->rows : genesis_model_default_rows(m, nrows);
    if (st == GENESIS_OK && writer) st = write_sample_rows(ctx, m, o, n);
    return finish(ctx, m, st);
}

static int fit_body(options *o) {
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    int64_t nrows = 0;
    progress_state ps = progress_of(o);
    const char *ckpt = NULL;
    genesis_status st = make_ctx(o, &ctx);
    if (st == GENESIS_OK) st = fit_from_options(ctx, o, &m, &nrows, &ps, &ckpt);
    if (st == GENESIS_ERR_STOPPED || (st == GENESIS_ERR_CANCELLED && g_interrupted))
        return stopped(ctx, m, st, o, &ps, ckpt);
    if (st == GENESIS_OK && genesis_ctx_rank(ctx) == 0) st = genesis_model_save(m, o->model);
    if (st == GENESIS_OK && !o->quiet) fprintf(stderr, "genesis: saved model to %s\n", o->model);
    return finish(ctx, m, st);
}

int cmd_generate(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_GENERATE, argc, argv, &o);
    return rc < 0 ? 0 : rc ? rc : run_ranks(&o, generate_body);
}

int cmd_fit(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_FIT, argc, argv, &o);
    return rc < 0 ? 0 : rc ? rc : run_ranks(&o, fit_body);
}
