/*
 * dev_table.c — the encoded training table in backend memory, built once per fit (see
 * dev_table.h). On a backend whose memory is host memory (the CPU) the encoded columns are
 * used where they are and only the small per-column arrays are made; on a GPU each column's
 * slots (4 bytes a row) and alphas (4 bytes a row, continuous columns only) are uploaded
 * once, so a training step moves no rows across the bus.
 */
#include <stdint.h>
#include <string.h>

#include "dev_table.h"

uint64_t gen_resident_table_bytes(int host_memory, int64_t nrows, int ncols, int ncont) {
    uint64_t small = (uint64_t)ncols * (2 * sizeof(void *) + 2 * sizeof(int32_t));
    if (host_memory) return small;
    return small + (uint64_t)nrows * ((uint64_t)ncols * sizeof(int32_t) +
                                      (uint64_t)ncont * sizeof(float));
}

void gen_resident_table_free(gen_resident_table *r) {
    if (!r || !r->be) return;
    const gen_backend_ops *o = r->be->ops;
    o->free(r->be, r->slots);
    o->free(r->be, r->alphas);
    o->free(r->be, r->slot_ptrs);
    o->free(r->be, r->alpha_ptrs);
    o->free(r->be, r->offset);
    o->free(r->be, r->cont);
    memset(r, 0, sizeof *r);
}

genesis_status gen_resident_table_create(gen_backend *be, const gen_transformer *tf,
                                         const gen_encoded *enc, gen_resident_table *out) {
    memset(out, 0, sizeof *out);
    GEN_RETURN_IF(enc->nrows > INT32_MAX, be->ctx, GENESIS_ERR_UNSUPPORTED,
                  "%lld training rows: at most %d rows per fit are supported (row ids are 32-bit)",
                  (long long)enc->nrows, INT32_MAX);
    out->be = be;
    const gen_backend_ops *o = be->ops;
    int nc = enc->ncols, ncont = 0;
    size_t n = (size_t)enc->nrows;
    for (int c = 0; c < nc; c++) ncont += tf->cols[c].type == GENESIS_COLUMN_CONTINUOUS;
    const int32_t **sp = calloc((size_t)(nc ? nc : 1), sizeof *sp);
    const float **ap = calloc((size_t)(nc ? nc : 1), sizeof *ap);
    int32_t *off = calloc((size_t)(nc ? nc : 1), sizeof *off);
    int32_t *cont = calloc((size_t)(nc ? nc : 1), sizeof *cont);
    genesis_status st = GENESIS_OK;
    if (!sp || !ap || !off || !cont) {
        st = gen_set_error(be->ctx, GENESIS_ERR_NOMEM, "out of memory for the training table");
        goto done;
    }
    out->slot_ptrs = o->alloc(be, (size_t)(nc ? nc : 1) * sizeof *sp);
    out->alpha_ptrs = o->alloc(be, (size_t)(nc ? nc : 1) * sizeof *ap);
    out->offset = o->alloc(be, (size_t)(nc ? nc : 1) * sizeof *off);
    out->cont = o->alloc(be, (size_t)(nc ? nc : 1) * sizeof *cont);
    if (!o->host_memory) {
        out->slots = o->alloc(be, (n ? n : 1) * (size_t)(nc ? nc : 1) * sizeof(int32_t));
        out->alphas = o->alloc(be, (n ? n : 1) * (size_t)(ncont ? ncont : 1) * sizeof(float));
    }
    if (!out->slot_ptrs || !out->alpha_ptrs || !out->offset || !out->cont ||
        (!o->host_memory && (!out->slots || !out->alphas))) {
        st = gen_set_error(be->ctx, GENESIS_ERR_NOMEM,
                           "out of backend memory for the training table (%lld rows x %d columns)",
                           (long long)n, nc);
        goto done;
    }
    for (int c = 0, k = 0; c < nc; c++) {
        const gen_col_transform *ct = &tf->cols[c];
        off[c] = ct->offset;
        cont[c] = ct->type == GENESIS_COLUMN_CONTINUOUS;
        if (o->host_memory) {
            sp[c] = enc->slot[c];
            ap[c] = cont[c] ? enc->alpha[c] : NULL;
            continue;
        }
        int32_t *ds = (int32_t *)out->slots + (size_t)c * n;
        o->upload(be, ds, enc->slot[c], n * sizeof(int32_t));
        sp[c] = ds;
        if (cont[c]) {
            float *da = (float *)out->alphas + (size_t)k++ * n;
            o->upload(be, da, enc->alpha[c], n * sizeof(float));
            ap[c] = da;
        }
    }
    o->upload(be, out->slot_ptrs, sp, (size_t)nc * sizeof *sp);
    o->upload(be, out->alpha_ptrs, ap, (size_t)nc * sizeof *ap);
    o->upload(be, out->offset, off, (size_t)nc * sizeof *off);
    o->upload(be, out->cont, cont, (size_t)nc * sizeof *cont);
    out->t.slot = (const int32_t *const *)out->slot_ptrs;
    out->t.alpha = (const float *const *)out->alpha_ptrs;
    out->t.offset = (const int32_t *)out->offset;
    out->t.cont = (const int32_t *)out->cont;
    out->t.ncols = nc;
    out->t.width = tf->data_dim;
    out->t.nrows = enc->nrows;
done:
    free(sp);
    free(ap);
    free(off);
    free(cont);
    if (st != GENESIS_OK) gen_resident_table_free(out);
    return st;
}
