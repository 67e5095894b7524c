/*
 * sample_size.h — sizes of the sampling pipeline (sample_size.c), shared by the pipeline
 * (sample_stream.c) and the memory model (estimate.c).
 */
#ifndef GEN_SAMPLE_SIZE_H
#define GEN_SAMPLE_SIZE_H

#include "model_types.h"

/* Rows the CSV writer formats per block (one block per thread at a time). */
#define GEN_FMT_BLOCK_ROWS 4096

/* The generating lanes of a sampling call (genesis_model_set_sample_devices; 1 = the model
 * alone): each holds a copy of the generator and its own batches in flight. */
int gen_sample_lanes(const genesis_model *m);
/* Rows the model generates per call (its generation group: CTGAN's and TVAE's batch). */
int64_t gen_sample_group(const genesis_model *m);
/* `rows` rounded up to a whole number of groups (at least one group). */
int64_t gen_sample_round_batch(const genesis_model *m, int64_t rows);
/* Host bytes per row of one sampling batch: the generator's output (data_dim floats) and
 * the decoded row (the pipeline holds one or two such batches: estimate.c). `t` gives the column types of an unfitted
 * model (NULL for a fitted one). */
uint64_t gen_sample_bytes_per_row(const genesis_model *m, int data_dim, const genesis_table *t);
/* Bytes that do not grow with the batch: CSV formatting blocks for `threads` threads and the
 * per-call conditional vector. */
uint64_t gen_sample_fixed_bytes(const genesis_model *m, int threads);

#endif /* GEN_SAMPLE_SIZE_H */
