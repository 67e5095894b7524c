/*
 * evaluate_fixture.h — shared helpers of the evaluation tests that read cuts of
 * data/adult_sample.csv (test_evaluate_fidelity.c, test_evaluate_xgboost.c): rows [a, b)
 * written to a file, and one genesis_evaluate run over files with a seed and thread count.
 * The temporary folder, the reading and the result's scores are evaluate_texts.h's.
 */
#ifndef GEN_TEST_EVALUATE_FIXTURE_H
#define GEN_TEST_EVALUATE_FIXTURE_H

#include <unistd.h>

#include "evaluate.h"
#include "evaluate_texts.h"
#include "rng.h"
#include "test_util.h"

/* Rows [a, b) of data/adult_sample.csv (header first) to g_dir/name; `shuffle` != 0 shuffles
 * every column independently (seeded by `shuffle`): right marginals, no relations. */
static const char *adult_rows(const char *name, int a, int b, uint64_t shuffle) {
    FILE *in = fopen(tu_path("data/adult_sample.csv"), "r");
    ck_assert_ptr_nonnull(in);
    static char paths[8][512];
    static int k = 0;
    char *p = paths[k++ & 7];
    snprintf(p, 512, "%s/%s", g_dir, name);
    FILE *out = fopen(p, "w");
    ck_assert_ptr_nonnull(out);
    enum { MAXC = 32 };
    int n = b - a, nc = 0;
    char line[4096];
    char ***cell = calloc((size_t)n, sizeof *cell);
    ck_assert_ptr_nonnull(cell);
    int r = 0;
    for (int i = -1; fgets(line, sizeof line, in); i++) {
        if (i < 0) {
            fputs(line, out);
            continue;
        }
        if (i < a || i >= b) continue;
        line[strcspn(line, "\r\n")] = 0;
        cell[r] = calloc(MAXC, sizeof **cell);
        ck_assert_ptr_nonnull(cell[r]);
        int c = 0;
        for (char *s = line, *e;; s = e + 1) {
            e = strchr(s, ',');
            if (e) *e = 0;
            ck_assert_int_lt(c, MAXC);
            cell[r][c++] = strdup(s);
            if (!e) break;
        }
        nc = c;
        r++;
    }
    fclose(in);
    ck_assert_int_eq(r, n);
    if (shuffle) {
        gen_rng g;
        gen_rng_init(&g, shuffle, 7);
        for (int c = 0; c < nc; c++)
            for (int i = n - 1; i > 0; i--) {
                int j = (int)gen_rng_below(&g, (uint64_t)(i + 1));
                char *t = cell[i][c];
                cell[i][c] = cell[j][c];
                cell[j][c] = t;
            }
    }
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < nc; c++) {
            fprintf(out, "%s%s", c ? "," : "", cell[i][c]);
            free(cell[i][c]);
        }
        fputc('\n', out);
        free(cell[i]);
    }
    free(cell);
    fclose(out);
    return p;
}

/* Metadata file for the next ev_files calls (NULL: the reader's types). */
static const char *g_meta;

/* Evaluates files (hold may be NULL) with the given parts, seed and thread count. */
static run_t ev_files(const char *real, const char *syn, const char *hold, unsigned parts,
                      uint64_t seed, int threads) {
    run_t x = {0};
    ck_assert_int_eq(genesis_ctx_create(&x.ctx), GENESIS_OK);
    genesis_ctx_set_threads(x.ctx, threads);
    genesis_ctx_set_seed(x.ctx, seed);
    x.real = rd(x.ctx, real, 1);
    x.syn = rd(x.ctx, syn, 0);
    if (hold) x.hold = rd(x.ctx, hold, 0);
    genesis_eval_options o;
    genesis_eval_options_init(&o);
    o.holdout = x.hold;
    o.parts = parts;
    o.metadata_path = g_meta;
    genesis_status st = genesis_evaluate(x.ctx, x.real, x.syn, &o, &x.r);
    ck_assert_msg(st == GENESIS_OK, "evaluate: %s", genesis_errmsg(x.ctx));
    return x;
}

/* The same with a TSTR target (needs hold). */
static inline run_t ev_files_target(const char *real, const char *syn, const char *hold,
                                    const char *target, uint64_t seed, int threads) {
    run_t x = {0};
    ck_assert_int_eq(genesis_ctx_create(&x.ctx), GENESIS_OK);
    genesis_ctx_set_threads(x.ctx, threads);
    genesis_ctx_set_seed(x.ctx, seed);
    x.real = rd(x.ctx, real, 1);
    x.syn = rd(x.ctx, syn, 0);
    x.hold = rd(x.ctx, hold, 0);
    genesis_eval_options o;
    genesis_eval_options_init(&o);
    o.holdout = x.hold;
    o.target = target;
    o.parts = GENESIS_EVAL_PART_USEFULNESS;
    genesis_status st = genesis_evaluate(x.ctx, x.real, x.syn, &o, &x.r);
    ck_assert_msg(st == GENESIS_OK, "evaluate: %s", genesis_errmsg(x.ctx));
    return x;
}

#endif /* GEN_TEST_EVALUATE_FIXTURE_H */
