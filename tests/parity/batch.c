/*
 * tests/parity/batch.c — the parity cases of the backend family `batch` (backend.h; CPU:
 * src/backend/cpu/batch.c, CUDA: cuda/batch.cu): gather_rows, gather_onehot_rows, onehot_rows,
 * accumulate.
 * Each operation: setup declares its buffers from the case's d[], run calls it on one
 * backend; the harness (main.c, parity.h) uploads, runs and compares.
 */
#include "parity.h"

/* gather_rows: B, ncols, nrows, ld pad. Column c is continuous when c % 3 == 0, with
 * 1 + (7c mod 5) modes (or categories); the rows picked repeat and hit the last row. */
static int gr_width(int ncols, int32_t *offset, int32_t *cont) {
    int w = 0;
    for (int c = 0; c < ncols; c++) {
        int k = 1 + (7 * c) % 5, ct = c % 3 == 0;
        if (offset) offset[c] = w;
        if (cont) cont[c] = ct;
        w += ct ? 1 + k : k;
    }
    return w;
}

/* gather_rows' buffers, out with `extra` more columns a row */
static void su_gather_x(pt_env *e, int extra) {
    int B = D(0), nc = D(1), nr = D(2), W = gr_width(nc, NULL, NULL);
    pt_add(e, "out", (size_t)B * (W + D(3) + extra), PT_OUT, -1, 1);
    int32_t *slot = pt_add_int(e, "slot", (size_t)nc * nr);
    pt_add(e, "alpha", (size_t)nc * nr, PT_IN, -1, 1);
    int32_t *off = pt_add_int(e, "offset", (size_t)nc);
    int32_t *cont = pt_add_int(e, "cont", (size_t)nc);
    int32_t *rows = pt_add_int(e, "rows", (size_t)B);
    gr_width(nc, off, cont);
    gen_rng r;
    gen_rng_init(&r, 91 + (uint64_t)e->idx, 1);
    for (int c = 0; c < nc; c++)
        for (int i = 0; i < nr; i++)
            slot[(size_t)c * nr + i] = (int32_t)gen_rng_below(&r, (uint64_t)(1 + (7 * c) % 5));
    for (int b = 0; b < B; b++)
        rows[b] = b % 5 == 4 ? nr - 1 : (int32_t)gen_rng_below(&r, (uint64_t)nr);
}

static void su_gather(pt_env *e) { su_gather_x(e, 0); }

/* gather_rows (w = -1) or gather_onehot_rows (w >= 0, positions in buffer 6) */
static void ru_gather_w(pt_env *e, gen_backend *be, int k, int w) {
    /* the column pointer arrays, in this backend's memory (categorical columns get a valid
     * alpha pointer too, which the operation must not need) */
    int nc = D(1), nr = D(2);
    const int32_t **sp = malloc((size_t)nc * sizeof *sp);
    const float **ap = malloc((size_t)nc * sizeof *ap);
    ck_assert(sp && ap);
    for (int c = 0; c < nc; c++) {
        sp[c] = PI(e, k, 1) + (size_t)c * nr;
        ap[c] = c % 3 == 0 ? P(e, k, 2) + (size_t)c * nr : NULL;
    }
    void *dsp = OPS(be)->alloc(be, (size_t)nc * sizeof *sp);
    void *dap = OPS(be)->alloc(be, (size_t)nc * sizeof *ap);
    ck_assert(dsp && dap);
    OPS(be)->upload(be, dsp, sp, (size_t)nc * sizeof *sp);
    OPS(be)->upload(be, dap, ap, (size_t)nc * sizeof *ap);
    gen_dev_table t = {(const int32_t *const *)dsp, (const float *const *)dap, PI(e, k, 3),
                       PI(e, k, 4), nc, gr_width(nc, NULL, NULL), nr};
    if (w < 0) OPS(be)->gather_rows(be, P(e, k, 0), t.width + D(3), &t, PI(e, k, 5), D(0));
    else
        OPS(be)->gather_onehot_rows(be, P(e, k, 0), t.width + w + D(3), &t, PI(e, k, 5), D(0), w,
                                    PI(e, k, 6));
    OPS(be)->free(be, dsp);
    OPS(be)->free(be, dap);
    free(sp);
    free(ap);
}

static void ru_gather(pt_env *e, gen_backend *be, int k) { ru_gather_w(e, be, k, -1); }
static void ru_gather_oh(pt_env *e, gen_backend *be, int k) { ru_gather_w(e, be, k, D(4)); }

/* gather_onehot_rows: B, ncols, nrows, ld pad, w; the one-hot positions as su_onehot's */
static void su_gather_oh(pt_env *e) {
    int B = D(0), w = D(4);
    su_gather_x(e, w); /* out: gather_rows' plus the w one-hot columns */
    int32_t *pos = pt_add_int(e, "pos", (size_t)B);
    gen_rng r;
    gen_rng_init(&r, 95 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++)
        pos[b] = b % 7 == 5 ? -1 : b % 11 == 6 ? w : (int32_t)gen_rng_below(&r, (uint64_t)w);
}

/* onehot_rows: B, w, ld pad; positions include -1 and w (both leave the row zero) */
static void su_onehot(pt_env *e) {
    int B = D(0), w = D(1);
    pt_add(e, "out", (size_t)B * (w + D(2)), PT_OUT, -1, 1);
    int32_t *pos = pt_add_int(e, "pos", (size_t)B);
    gen_rng r;
    gen_rng_init(&r, 93 + (uint64_t)e->idx, 1);
    for (int b = 0; b < B; b++)
        pos[b] = b % 7 == 5 ? -1 : b % 11 == 6 ? w : (int32_t)gen_rng_below(&r, (uint64_t)w);
}

static void ru_onehot(pt_env *e, gen_backend *be, int k) {
    OPS(be)->onehot_rows(be, P(e, k, 0), D(1) + D(2), D(1), PI(e, k, 1), D(0));
}

/* accumulate: n, specials */
static void su_accum(pt_env *e) {
    pt_add(e, "acc", (size_t)D(0), PT_ACC, -1, 1);
    int x = pt_add(e, "x", (size_t)D(0), PT_IN, -1, 1);
    if (D(1)) pt_specials(e, x);
}

static void ru_accum(pt_env *e, gen_backend *be, int k) {
    OPS(be)->accumulate(be, P(e, k, 0), P(e, k, 1), D(0));
}

/* ---- the operations: name, dims (the meaning of d[]), atol, rtol, setup, run ---- */

static const pt_op O_GATHER = {"gather_rows", "B ncols nrows ld+", 0, 0, su_gather, ru_gather};
static const pt_op O_GATHER_OH = {"gather_onehot_rows", "B ncols nrows ld+ w", 0, 0,
                                  su_gather_oh, ru_gather_oh};
static const pt_op O_ONEHOT = {"onehot_rows", "B w ld+", 0, 0, su_onehot, ru_onehot};
static const pt_op O_ACCUM = {"accumulate", "n specials", 0, 0, su_accum, ru_accum};

static const pt_case cases[] = {
    /* training batches from backend memory */
    {&O_GATHER, {1, 1, 1, 0}}, {&O_GATHER, {3, 4, 17, 2}}, {&O_GATHER, {500, 15, 1025, 0}},
    {&O_GATHER, {257, 40, 3, 5}},
    {&O_GATHER_OH, {1, 1, 1, 0, 1}}, {&O_GATHER_OH, {3, 4, 17, 2, 5}},
    {&O_GATHER_OH, {500, 15, 1025, 0, 102}}, {&O_GATHER_OH, {257, 40, 3, 5, 0}},
    {&O_ONEHOT, {1, 1, 0}}, {&O_ONEHOT, {17, 5, 3}}, {&O_ONEHOT, {500, 102, 0}},
    {&O_ONEHOT, {1025, 1, 1}},
    {&O_ACCUM, {1, 0}}, {&O_ACCUM, {4, 1}}, {&O_ACCUM, {1025, 1}},
};

const pt_family pt_family_batch = {"batch", cases, (int)(sizeof cases / sizeof cases[0])};
