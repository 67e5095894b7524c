/*
 * fuzz_model.c — libFuzzer harness of the .gen model-file loader (src/model/model_io.c, the model
 * sections of models/<kind>_model.c, the TimeGAN sequence schema of src/model/sequence.c, the checkpoint
 * section of src/model/checkpoint.c). A mutated file would almost never pass the checksum, so the
 * harness first rewrites the header's payload length (size - 28) and the CRC-32 of the bytes
 * before it (docs/file-format.md, "Container"), then loads the bytes with
 * gen_model_read_mem, the loader behind genesis_model_load. A version-4 file (a checkpoint)
 * is loaded a second time keeping its training state, as genesis_model_load_checkpoint does.
 * A model that loads has its columns queried and is sampled (when its generation group is at
 * most FZ_MAX_GROUP_ROWS rows): a few decoded rows through the iterator, a few encoded ones, a
 * few rows written as CSV; then it is freed — the clean-up of a loaded model is part of what
 * is tested. docs/fuzzing.md.
 */
#include <zlib.h>

#include "fuzz_common.h"
#include "model_io.h"

/* Sampling generates whole generation groups: a CTGAN's or TVAE's batch (batch norm and
 * the reference's sampling use batch statistics), a TimeGAN's batch x seq-len rows, however
 * few rows are asked for. A file may legitimately hold a batch of 2^20 rows; generating
 * it under ASan and coverage instrumentation takes longer than the per-input timeout, so
 * models whose group exceeds this are loaded, queried and freed but not sampled. */
#define FZ_MAX_GROUP_ROWS 2048.0

static void fz_use_model(genesis_ctx *ctx, genesis_model *m) {
    char path[600];
    genesis_model_set_sample_batch(m, 1); /* the model's smallest generation group */
    int nc = genesis_model_ncols(m);
    for (int c = 0; c < nc; c++) {
        genesis_model_column ci;
        if (genesis_model_column_info(m, c, &ci) != GENESIS_OK) abort();
        for (int k = 0; k < ci.nlevels; k++)
            if (!genesis_model_column_level(m, c, k)) abort();
    }
    double batch = 0, steps = 1;
    if (genesis_model_get_param(m, GENESIS_P_BATCH_SIZE, &batch) != GENESIS_OK) abort();
    if (genesis_model_get_kind(m) == GENESIS_MODEL_TIMEGAN &&
        genesis_model_get_param(m, GENESIS_P_SEQ_LEN, &steps) != GENESIS_OK)
        abort();
    if (batch * steps > FZ_MAX_GROUP_ROWS) {
        fz_say(ctx, "sampling skipped (generation group too large)", GENESIS_OK);
        return;
    }
    genesis_sampler *s = NULL;
    genesis_status st = genesis_sampler_create(m, 3, 0, &s);
    fz_say(ctx, "sampler", st);
    if (st == GENESIS_OK) {
        const genesis_batch *b = NULL;
        while (genesis_sampler_next(s, &b) == GENESIS_OK && b) {
        }
        genesis_sampler_free(s);
    }
    s = NULL;
    if (genesis_sampler_create(m, 2, 1, &s) == GENESIS_OK) {
        const float *x = NULL;
        int64_t rows = 0;
        int dim = 0;
        while (genesis_sampler_next_encoded(s, &x, &rows, &dim) == GENESIS_OK && x) {
        }
        genesis_sampler_free(s);
    }
    st = genesis_model_sample_csv(m, 2, fz_path("out.csv", path, sizeof path));
    fz_say(ctx, "sample_csv", st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < GEN_FILE_HEADER + 4 || size > (1u << 24)) return 0;
    unsigned char *buf = malloc(size);
    if (!buf) abort();
    memcpy(buf, data, size);
    uint64_t plen = size - GEN_FILE_HEADER - 4;
    for (int i = 0; i < 8; i++) buf[16 + i] = (unsigned char)(plen >> (8 * i));
    uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)(size - 4));
    for (int i = 0; i < 4; i++) buf[size - 4 + i] = (unsigned char)(crc >> (8 * i));
    genesis_ctx *ctx = fz_ctx();
    uint32_t version = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
                       (uint32_t)buf[11] << 24;
    for (int keep = 0; keep <= (version >= GEN_FILE_VERSION_CHECKPOINT); keep++) {
        genesis_model *m = NULL;
        genesis_status st = gen_model_read_mem(ctx, "fuzz.gen", buf, size, keep, &m);
        fz_say(ctx, keep ? "load keeping the training state" : "load", st);
        if (st == GENESIS_OK) {
            if (!m) abort();
            fz_use_model(ctx, m);
            genesis_model_free(m);
        } else if (m || !genesis_errmsg(ctx)[0] || st == GENESIS_ERR_NOMEM) {
            abort(); /* a refusal leaves nothing behind and says why; a file of a few KiB
                      * never exhausts memory (fuzz/replay.c caps it at 2 GiB) */
        }
    }
    free(buf);
    return 0;
}
