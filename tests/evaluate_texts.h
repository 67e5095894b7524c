/*
 * evaluate_texts.h — the harness of the evaluation tests (test_evaluate.c,
 * test_evaluate_report.c; evaluate_fixture.h builds on it): a private temporary folder, texts
 * written to files, reading with the evaluation's typing (the real table: default typing; the
 * others: every value's text kept) and one genesis_evaluate run with its result's scores.
 */
#ifndef GEN_TEST_EVALUATE_TEXTS_H
#define GEN_TEST_EVALUATE_TEXTS_H

#include <unistd.h>

#include "evaluate.h"
#include "test_util.h"

static char g_dir[256];

static void setup(void) {
    snprintf(g_dir, sizeof g_dir, "%s/genesis-eval-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void teardown(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Writes `text` to g_dir/name and returns the path (static rotating buffers). */
static inline const char *put(const char *name, const char *text) {
    static char bufs[8][512];
    static int k = 0;
    char *p = bufs[k++ & 7];
    snprintf(p, 512, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* Reads a CSV: the real table with the default typing, others all categorical (verbatim). */
static inline genesis_table *rd(genesis_ctx *ctx, const char *path, int real) {
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    if (!real) o.max_categories = INT32_MAX;
    genesis_table *t = NULL;
    genesis_status st = genesis_table_read_csv(ctx, path, &o, &t);
    ck_assert_msg(st == GENESIS_OK, "read %s: %s", path, genesis_errmsg(ctx));
    return t;
}

typedef struct {
    genesis_ctx *ctx;
    genesis_table *real, *syn, *hold;
    genesis_eval_result *r;
    genesis_status st;
} run_t;

/* Evaluates CSV texts; meta (JSON text) and hold may be NULL. */
static inline run_t ev(const char *real, const char *syn, const char *hold, const char *meta,
                const char *target, unsigned parts, int64_t dcr_rows) {
    run_t x = {0};
    ck_assert_int_eq(genesis_ctx_create(&x.ctx), GENESIS_OK);
    genesis_ctx_set_threads(x.ctx, 1);
    x.real = rd(x.ctx, put("real.csv", real), 1);
    x.syn = rd(x.ctx, put("syn.csv", syn), 0);
    if (hold) x.hold = rd(x.ctx, put("hold.csv", hold), 0);
    genesis_eval_options o;
    genesis_eval_options_init(&o);
    o.holdout = x.hold;
    o.target = target;
    o.parts = parts;
    o.dcr_rows = dcr_rows;
    if (meta) o.metadata_path = put("meta.json", meta);
    x.st = genesis_evaluate(x.ctx, x.real, x.syn, &o, &x.r);
    return x;
}

static inline void done(run_t *x) {
    genesis_eval_result_free(x->r);
    genesis_table_free(x->real);
    genesis_table_free(x->syn);
    genesis_table_free(x->hold);
    genesis_ctx_free(x->ctx);
}

static inline double score(const run_t *x, genesis_eval_score s) {
    return genesis_eval_result_score(x->r, s);
}


#endif /* GEN_TEST_EVALUATE_TEXTS_H */
