/*
 * fuzz_evaluate.c — libFuzzer harness of `genesis evaluate`'s inputs: the metadata JSON file
 * (src/evaluate/evaluate_data.c, cJSON) and the pair of CSV files, the real table read with the
 * reader's typing and the synthetic one with every value categorical, then typed like the
 * real one (cli/cmd_evaluate.c does the same). An input is
 *     control byte, selector byte, metadata JSON, "\n@@\n", real CSV, "\n@@\n", synthetic CSV
 * (a missing part is an empty file). Control bits: 0 = give the metadata file (sequences: an
 * entity column); 1 = score as sequences (genesis_evaluate_sequences with tiny iteration
 * counts); 2..5 = the parts computed (quality, validity, privacy, detection; none set =
 * quality and validity); 6 = the real table is also the holdout and its first categorical
 * column the target (TSTR); 7 = a date column and an identifier column (sequences: a time
 * column). The selector's low and high nibbles pick those columns among the real file's
 * header names (fz_header_name). A table pair that evaluates is also written as JSON.
 * docs/fuzzing.md.
 */
#include "fuzz_common.h"

static const uint8_t *fz_part(const uint8_t **p, const uint8_t *end, size_t *n) {
    static const char sep[] = "\n@@\n";
    const uint8_t *s = *p;
    const uint8_t *q = s;
    while (q + 4 <= end && memcmp(q, sep, 4) != 0) q++;
    if (q + 4 > end) q = end;
    *n = (size_t)(q - s);
    *p = q == end ? end : q + 4;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2 || size > 8192) return 0;
    unsigned o = data[0], sel = data[1];
    const uint8_t *p = data + 2, *end = data + size;
    size_t nm, nr, ns;
    const uint8_t *meta = fz_part(&p, end, &nm);
    const uint8_t *real = fz_part(&p, end, &nr);
    const uint8_t *syn = fz_part(&p, end, &ns);
    char pm[600], pr[600], ps[600];
    fz_write("meta.json", meta, nm, pm, sizeof pm);
    fz_write("real.csv", real, nr, pr, sizeof pr);
    fz_write("syn.csv", syn, ns, ps, sizeof ps);

    genesis_ctx *ctx = fz_ctx();
    int seq = (o & 2) != 0;
    char c1[256], c2[256];
    fz_header_name(real, nr, sel & 15, c1, sizeof c1);
    fz_header_name(real, nr, sel >> 4, c2, sizeof c2);
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    if ((o & 128) && !seq) {
        co.datetime = c1;
        co.id = c2;
    }
    co.not_id = seq ? "*" : NULL;
    genesis_table *tr = NULL, *ts = NULL;
    genesis_status st = genesis_table_read_csv(ctx, pr, &co, &tr);
    fz_say(ctx, "read real", st);
    if (!seq) co.max_categories = INT32_MAX;
    co.id = NULL;
    co.not_id = "*";
    if (st == GENESIS_OK) {
        st = genesis_table_read_csv(ctx, ps, &co, &ts);
        fz_say(ctx, "read synthetic", st);
    }
    if (st == GENESIS_OK && seq) {
        genesis_seq_eval_options so;
        genesis_seq_eval_options_init(&so);
        so.seq_len = 2;
        so.repeats = 1;
        so.disc_iterations = 2;
        so.pred_iterations = 2;
        if (o & 1) so.entity = c1;
        if (o & 128) so.time = c2;
        genesis_seq_eval_result sr;
        st = genesis_evaluate_sequences(ctx, tr, ts, &so, &sr);
        fz_say(ctx, "evaluate_sequences", st);
    } else if (st == GENESIS_OK) {
        genesis_eval_options eo;
        genesis_eval_options_init(&eo);
        eo.metadata_path = (o & 1) ? pm : NULL;
        eo.parts = (o >> 2) & 15;
        if (!eo.parts) eo.parts = GENESIS_EVAL_PART_QUALITY | GENESIS_EVAL_PART_VALIDITY;
        eo.subsample_rows = 200;
        eo.dcr_rows = 200;
        eo.detection_rows = 200;
        eo.tstr_rows = 200;
        if (o & 64) {
            eo.holdout = tr;
            for (int c = 0; c < genesis_table_ncols(tr) && !eo.target; c++)
                if (genesis_table_column_type(tr, c) == GENESIS_COLUMN_CATEGORICAL)
                    eo.target = genesis_table_column_name(tr, c);
            if (eo.target) eo.parts |= GENESIS_EVAL_PART_USEFULNESS;
        }
        genesis_eval_result *res = NULL;
        st = genesis_evaluate(ctx, tr, ts, &eo, &res);
        fz_say(ctx, "evaluate", st);
        if (st == GENESIS_OK && !genesis_eval_result_json(res)) abort();
        genesis_eval_result_free(res);
    }
    if (st != GENESIS_OK && (!genesis_errmsg(ctx)[0] || st == GENESIS_ERR_NOMEM))
        abort(); /* every refusal says why; a few KiB of input never exhaust memory */
    genesis_table_free(tr);
    genesis_table_free(ts);
    return 0;
}
