/*
 * cmd_estimate.c — `genesis estimate`: the memory training and generation need, term by
 * term (docs/memory.md), the budget on the device, the largest training batch and the
 * sampling batch that fit, from the table (-i, before any training) or a saved model (-m);
 * as a table or, with --json, one JSON object.
 */
#include "cli.h"

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

int cmd_estimate(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_ESTIMATE, argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    o.quiet = 1;
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    genesis_table *t = NULL;
    genesis_status st = make_ctx(&o, &ctx);
    if (st == GENESIS_OK) st = o.input ? table_and_model(ctx, &o, &t, &m) : genesis_model_load(ctx, o.model, &m);
    if (st == GENESIS_OK) st = genesis_model_set_sample_batch(m, o.sample_batch);
    genesis_memory_estimate e[2];
    int ne = 0;
    if (st == GENESIS_OK && t) st = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e[ne++]);
    if (st == GENESIS_OK)
        st = genesis_estimate_sampling(m, t, o.rows_set && o.rows > 0 ? o.rows : 0, o.sample_batch,
                                       &e[ne++]);
    /* mixed precision: the same estimate in fp32 beside it (an unfitted model: a fitted one
     * cannot change a training setting), for the difference the precision makes */
    double prec = 0;
    genesis_memory_estimate e32[2];
    int have32 = 0;
    if (st == GENESIS_OK) genesis_model_get_param(m, GENESIS_P_PRECISION, &prec);
    if (st == GENESIS_OK && prec != GENESIS_PRECISION_FP32 &&
        genesis_model_set_param(m, GENESIS_P_PRECISION, GENESIS_PRECISION_FP32) == GENESIS_OK) {
        int n32 = 0;
        genesis_status s32 = GENESIS_OK;
        if (t) s32 = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e32[n32++]);
        if (s32 == GENESIS_OK)
            s32 = genesis_estimate_sampling(m, t, o.rows_set && o.rows > 0 ? o.rows : 0,
                                            e[ne - 1].batch_rows, &e32[n32++]);
        have32 = s32 == GENESIS_OK;
        genesis_model_set_param(m, GENESIS_P_PRECISION, prec);
    }
    /* gradient checkpointing: the fit's activations without it, for the saving
     * (docs/memory.md, "Gradient checkpointing") */
    double ckpt = 0;
    genesis_memory_estimate enock;
    int haveck = 0;
    if (st == GENESIS_OK && t) genesis_model_get_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, &ckpt);
    if (st == GENESIS_OK && t && ckpt &&
        genesis_model_set_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, 0) == GENESIS_OK) {
        haveck = genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &enock) == GENESIS_OK;
        genesis_model_set_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, ckpt);
    }
    const char *pname = genesis_param_choice(GENESIS_P_PRECISION, (int)prec);
    int64_t maxfit = 0;
    genesis_status fitst = GENESIS_OK;
    if (st == GENESIS_OK && t) fitst = genesis_optimize_batch_size(m, t, GENESIS_WORKLOAD_FIT, &maxfit);
    uint64_t budget = 0, avail = 0;
    if (st == GENESIS_OK) st = genesis_memory_budget(m, &budget, &avail);
    if (st != GENESIS_OK) {
        genesis_table_free(t);
        return finish(ctx, m, st);
    }
    const char *kind = genesis_model_kind_name(genesis_model_get_kind(m));
    int first = 1;
    if (o.json) {
        printf("{\"method\":\"%s\",\"device\":\"%s\",\"precision\":\"%s\",\"exact\":%d,"
               "\"data_dim\":%d,\"cond_dim\":%d,"
               "\"workloads\":[%s\"sample\"],\"budget\":%llu,\"available\":%llu,"
               "\"max_training_batch\":%lld,",
               kind, genesis_ctx_device_name(ctx), pname ? pname : "fp32", e[0].exact,
               e[0].data_dim, e[0].cond_dim, t ? "\"fit\"," : "", (unsigned long long)budget,
               (unsigned long long)avail, (long long)maxfit);
        if (have32) { /* operand copies added, activation bytes saved (docs/precision.md) */
            uint64_t d[2];
            for (int i = 0; i < ne; i++) d[i] = e[i].workspace - e32[i].workspace;
            est_row("precision_extra", d, ne, 1, &first);
            for (int i = 0; i < ne; i++) d[i] = e32[i].activations - e[i].activations;
            est_row("precision_saved", d, ne, 1, &first);
            for (int i = 0; i < ne; i++) d[i] = e32[i].on_device ? e32[i].device_total : e32[i].host_total;
            est_row("fp32_total", d, ne, 1, &first);
        }
        if (haveck) { /* the training activations gradient checkpointing saves */
            uint64_t d = enock.activations - e[0].activations;
            est_row("checkpointing_saved", &d, 1, 1, &first);
        }
        uint64_t br[2];
        for (int i = 0; i < ne; i++) br[i] = (uint64_t)e[i].batch_rows;
        est_row("batch_rows", br, ne, 1, &first);
    } else {
        printf("genesis estimate: %s (%s on %s)\n", o.input ? o.input : o.model, kind,
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
    if (have32 && !o.json) { /* what the precision changes (docs/precision.md) */
        uint64_t d[2];
        char lbl[48];
        const char *pn = pname ? pname : "?";
        snprintf(lbl, sizeof lbl, "%s vs fp32: operand copies", pn);
        for (int i = 0; i < ne; i++) d[i] = e[i].workspace - e32[i].workspace;
        est_row(lbl, d, ne, 0, &first);
        for (int i = 0; i < ne; i++) d[i] = e32[i].activations - e[i].activations;
        est_row("  16-bit activations save", d, ne, 0, &first);
        for (int i = 0; i < ne; i++) d[i] = e32[i].on_device ? e32[i].device_total : e32[i].host_total;
        est_row("  total in fp32", d, ne, 0, &first);
        /* the net change of the first workload's total (training when there is a table) */
        uint64_t t1 = e[0].on_device ? e[0].device_total : e[0].host_total;
        uint64_t t0 = e32[0].on_device ? e32[0].device_total : e32[0].host_total;
        char nb[32];
        fmt_mib(nb, sizeof nb, t1 > t0 ? t1 - t0 : t0 - t1);
        printf("  (%s rounds the matrix products' operands: %s of the largest product, counted in "
               "the workspace; activations read only as a product's input or for a ReLU's sign "
               "are stored in %s, the rest, weights, gradients and Adam stay FP32: %s %s %s "
               "than fp32)\n",
               pn, e[0].on_device ? "16-bit copies of the FP32-stored ones" : "FP32 copies",
               e32[0].activations > e[0].activations ? "16 bits" : "FP32 (not in this format)",
               t ? "training needs" : "generation needs", nb,
               t1 > t0 ? "more" : "less");
    }
    if (haveck && !o.json) {
        char a0[32], a1[32];
        fmt_mib(a0, sizeof a0, enock.activations - e[0].activations);
        fmt_mib(a1, sizeof a1, enock.activations);
        printf("  gradient checkpointing saves %s of training activations (%s without it; one "
               "more forward of the recomputed blocks per step)\n", a0, a1);
    }
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
