/*
 * model_io.h — the .gen model file (docs/file-format.md): little-endian, magic "GENMODEL",
 * u32 format version, u32 model kind, u64 payload length, the payload, and a CRC-32 of
 * everything before it. The payload is read through a bounds-checked cursor: every length
 * and count is checked against the bytes that remain (and sane limits) before anything is
 * allocated. Nothing in a model file is executed.
 */
#ifndef GEN_MODEL_IO_H
#define GEN_MODEL_IO_H

#include "model_types.h"

#define GEN_FILE_MAGIC "GENMODEL"
/* Format versions, each a superset of the one before (docs/file-format.md "Versioning"):
 * 1 = first release; 2 = TimeGAN's GRU is the reset-after cell of cuDNN/PyTorch (b_ih and
 * b_hh, W_ih | W_hh; backend.h) instead of TF1's GRUCell (CTGAN and TVAE payloads unchanged,
 * so their version-1 files still load; a version-1 TimeGAN file is refused with a message
 * asking for a refit); 3 = a column-role record per column after the transformer's column
 * records (date and identifier columns); 4 = a training-state section may follow the model
 * section (checkpoints, src/model/checkpoint.c); 5 = a quantile record per continuous column after
 * the column roles (quantile normalisation, quantile.h). Model files are written as version 3
 * (nothing in them needs 4), checkpoints as version 4, and either as version 5 when a column
 * is normalised by its quantiles, so that only those files need a version-5 reader. */
#define GEN_FILE_VERSION 7u
#define GEN_FILE_VERSION_MODEL 3u
#define GEN_FILE_VERSION_GRU_RESET_AFTER 2u
#define GEN_FILE_VERSION_ROLES 3u
#define GEN_FILE_VERSION_CHECKPOINT 4u
#define GEN_FILE_VERSION_QUANTILE 5u
#define GEN_FILE_VERSION_DECIMAL_COMMA 6u
/* Version 7: a model trained under differential privacy (docs/privacy.md) stores the three
 * privacy settings and, after the seed, its privacy record (model_io.c); only such files
 * are written as version 7. */
#define GEN_FILE_VERSION_DP 7u
#define GEN_TRAIN_MAGIC "GENTRAIN"
#define GEN_TRAIN_FORMAT 1u
#define GEN_FILE_HEADER 24   /* magic 8 + version 4 + kind 4 + payload length 8 */
#define GEN_MAX_STRING (1u << 20)

struct gen_bytes {
    unsigned char *p;
    size_t len, cap;
    int oom;
};

struct gen_reader {
    const unsigned char *p;
    size_t len, pos;
    const char *path;        /* for messages */
    genesis_ctx *ctx;
    int failed;
    uint32_t version;        /* the file's format version (0 when not read from a file) */
};

void gen_wr_raw(gen_bytes *b, const void *p, size_t n);
void gen_wr_u32(gen_bytes *b, uint32_t v);
void gen_wr_u64(gen_bytes *b, uint64_t v);
void gen_wr_f64(gen_bytes *b, double v);
void gen_wr_f32s(gen_bytes *b, const float *v, size_t n);
void gen_wr_f64s(gen_bytes *b, const double *v, size_t n);
void gen_wr_str(gen_bytes *b, const char *s);   /* NULL is written as length 0xFFFFFFFF */

/* Each returns GENESIS_OK or GENESIS_ERR_MODEL_FORMAT (message set in r->ctx). */
genesis_status gen_rd_u32(gen_reader *r, uint32_t *v);
genesis_status gen_rd_u64(gen_reader *r, uint64_t *v);
genesis_status gen_rd_f64(gen_reader *r, double *v);
/* A count that must lie in [lo, hi]; `what` names it in the error. */
genesis_status gen_rd_count(gen_reader *r, uint32_t lo, uint32_t hi, const char *what, int *v);
genesis_status gen_rd_f32s(gen_reader *r, float *v, size_t n);
genesis_status gen_rd_f64s(gen_reader *r, double *v, size_t n);
/* Allocates; rejects lengths beyond the remaining bytes or GEN_MAX_STRING. */
genesis_status gen_rd_str(gen_reader *r, char **s);
/* A format error at the current offset. */
genesis_status gen_rd_fail(gen_reader *r, const char *what);

/* A date column's format record: str pattern, u32 frac, u32 zone style, u32 zone offset
 * minutes + 1440 (the load checks the pattern and ranges). */
void gen_dt_save(const gen_dt_format *f, gen_bytes *b);
genesis_status gen_dt_load(gen_dt_format *f, gen_reader *r);

genesis_status gen_transformer_save(const gen_transformer *tf, gen_bytes *b);
genesis_status gen_transformer_load(gen_transformer *tf, gen_reader *r);
/* 1 when a continuous column is normalised by its quantiles (the file then needs version 5). */
int gen_transformer_has_quantiles(const gen_transformer *tf);
/* 1 when a column is written with a decimal comma (the model needs file version 6). */
int gen_transformer_has_decimal_comma(const gen_transformer *tf);

genesis_status gen_model_write_file(const genesis_model *m, const char *path);
genesis_status gen_model_read_file(genesis_ctx *ctx, const char *path, genesis_model **out);
/* The same on a whole file already in memory (`size` bytes; `name` for messages): every
 * check of the container and the checksum, then the payload (the fuzzing harness of
 * fuzz/fuzz_model.c enters here). */
genesis_status gen_model_read_mem(genesis_ctx *ctx, const char *name, const unsigned char *buf,
                                  size_t size, int keep_state, genesis_model **out);
/* with_state: a checkpoint (version 4, the training-state section after the model section,
 * src/model/checkpoint.c) */
genesis_status gen_model_write_file_ex(const genesis_model *m, const char *path, int with_state);
/* The two halves of gen_model_write_file_ex: the whole file's bytes (*out owns out->p; the
 * caller frees it), and bytes written to `path` under a temporary name, then renamed. */
genesis_status gen_model_file_bytes(const genesis_model *m, int with_state, gen_bytes *out);
genesis_status gen_model_write_bytes(genesis_ctx *ctx, const char *path, const unsigned char *p,
                                     size_t len);
/* keep_state: a checkpoint's training state is kept in m->resume (else checked and dropped) */
genesis_status gen_model_read_file_ex(genesis_ctx *ctx, const char *path, int keep_state,
                                      genesis_model **out);

#endif /* GEN_MODEL_IO_H */
