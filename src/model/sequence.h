/*
 * sequence.h — tables <-> fixed-length sequences for TimeGAN (sequence.c; choices in
 * docs/timegan.md §5): one long series cut into stride-1 windows (the reference's row
 * reversal, N_rows - seq_len windows and two-stage min-max scaling), or panel data with an
 * entity column (windows within each entity, ordered by a numeric time column); categorical
 * columns one-hot, missing values as a mask feature (continuous) or a missing level
 * (categorical); generated sequences decoded back to rows in raw units.
 */
#ifndef GEN_SEQUENCE_H
#define GEN_SEQUENCE_H

#include "model_io.h"
#include "table.h"

typedef struct gen_seq_col {
    char *name;
    int categorical;
    int offset, width;       /* slice of the feature vector: continuous 1, + 1 for a missing
                                mask; categorical nlevels, + 1 for a missing level */
    double min, max;         /* continuous: the loader's min-max (raw units) */
    int is_integer, decimals;
    gen_dt_format dt;        /* a date column (dt.pattern[0]): UTC seconds, written in format */
    int nlevels;
    char **levels;           /* categorical */
    char *na_text;           /* the missing-value token as read (e.g. "NA"), written back for
                                missing values; NULL or "" writes an empty field */
} gen_seq_col;

typedef struct gen_seq_schema {
    int T, F;                /* window length, feature width */
    int ncols;
    gen_seq_col *cols;       /* feature columns in table order */
    float *inner_min, *inner_max; /* [F] the reference's second scaler */
    char *entity, *time;     /* names of the entity / time columns, or NULL */
    int entity_pos, time_pos; /* where the id and time columns stand among the written ones
                                (the input's order; without an entity the id column
                                "sequence" comes first); time_pos -1 without a time column */
    int reversed;            /* rows were reversed (single series without --time) */
    int time_integer, time_decimals;
    gen_dt_format time_dt;   /* a date/timestamp time column */
    int64_t ngrid;
    double *grid;            /* [ngrid][T] time values of real windows (time column only) */
    /* calendar columns (year, month, day, hour, ... beside the time): not modelled; written
     * from the same real window as the time values, so that they advance as real time does */
    int ncal;
    char **cal_name;         /* [ncal] */
    int *cal_pos;            /* [ncal] written position (the input's order) */
    int *cal_integer, *cal_decimals; /* [ncal] how the values print */
    double *cal_grid;        /* [ngrid][T][ncal] their values in the grid's real windows */
    char delimiter;
} gen_seq_schema;

typedef struct gen_seq_data {
    int64_t n;               /* windows */
    float *x;                /* (n, T, F), both scalers applied: [0, 1] */
} gen_seq_data;

/* Builds the schema and the scaled windows from a table. entity/time may be NULL.
 * `calendar`: NULL finds the calendar columns by name (year, month, day, hour, minute,
 * second, weekday, week, quarter, ... holding whole numbers in every row), "none" keeps every
 * column a feature, else a comma-separated list of the columns to treat so. Errors
 * name the file (t->source) and say what to do. `shuffle_seed`: the reference shuffles the
 * windows once (order matters for nothing but the batches; kept for parity). */
genesis_status gen_seq_build(genesis_ctx *ctx, const genesis_table *t, int T, const char *entity,
                             const char *time, const char *calendar, uint64_t shuffle_seed,
                             gen_seq_schema *s, gen_seq_data *d);
void gen_seq_schema_free(gen_seq_schema *s);
void gen_seq_data_free(gen_seq_data *d);

/* Windows of a table in the loader's [0, 1] scale of `s` (the same columns; used by the
 * metrics to scale real and synthetic files alike). With `chunk`, consecutive
 * non-overlapping blocks of T rows per entity (how generated files are laid out); otherwise
 * stride-1 windows as gen_seq_build cuts them. */
genesis_status gen_seq_windows_like(genesis_ctx *ctx, const genesis_table *t,
                                    const gen_seq_schema *s, int chunk, gen_seq_data *d);

/* Generated rows in raw units go through the shared sampling pipeline: gen_seq_layout builds
 * `tf` as the layout of the written columns (the input's order: the id column named after
 * the entity column, or "sequence" first; time; features), a decode-only transformer without
 * spans that genesis_batch and the CSV writer read; free it with gen_transformer_free.
 * GENESIS_ERR_NOMEM (no message) when out of memory. gen_seq_decode writes n sequences x
 * (n, T, F), in the inner [0, 1] scale, as n * T rows of rb with ids first_id, first_id + 1,
 * ...; `grid_pick` draws the real window whose time values a sequence gets, `miss` the
 * missing values (one draw per cell of a column that has them). */
genesis_status gen_seq_layout(const gen_seq_schema *s, gen_transformer *tf);
void gen_seq_decode(const gen_seq_schema *s, const float *x, int64_t n, int64_t first_id,
                    gen_rng *grid_pick, gen_rng *miss, gen_rowbatch *rb);

/* Model file section. */
void gen_seq_schema_save(const gen_seq_schema *s, gen_bytes *b);
genesis_status gen_seq_schema_load(gen_seq_schema *s, gen_reader *r);

#endif /* GEN_SEQUENCE_H */
