/*
 * model_types.h — the types every model and the core share, below every model file: the
 * genesis_model object, its settings (GEN_NPARAMS), conditions, each model's settings table
 * (gen_param_use) and the per-model vtable, with the inline accessors over them. Functions
 * live in the headers of the files that define them (model.h: src/model/model.c; registry.h:
 * models/registry.c; checkpoint.h: src/model/checkpoint.c; model_io.h: src/model/model_io.c), so that
 * a file needing only the types depends on none of those (docs/architecture.md, "Layers").
 */
#ifndef GEN_MODEL_TYPES_H
#define GEN_MODEL_TYPES_H

#include "memory_model.h"
#include "backend.h"
#include "rng.h"
#include "transform.h"
#include "dp_accountant.h"

#define GEN_NPARAMS 39
#define GEN_NPARAMS_V6 34 /* the settings of files before differential privacy (version 6) */
/* the settings a model file stores (differential privacy's files): the later ones change
 * nothing in a model (GENESIS_P_GRADIENT_CHECKPOINTING) and are not written, or are kept in
 * their model's section (DDPM's sample-order, models/ddpm_model.c) */
#define GEN_NPARAMS_FILE 37
#define GEN_MAX_CONDITIONS 64

typedef struct gen_bytes gen_bytes;       /* growable output buffer (model_io.c) */
typedef struct gen_reader gen_reader;     /* bounds-checked input cursor (model_io.c) */

/* One condition: the discrete column's index among the categorical columns (the
 * conditional vector's order), its table column, and the category slot. */
typedef struct gen_condition {
    int column;
    int table_column;
    int slot;
} gen_condition;

/* A setting a model uses and its default for that model (each model's params table). */
typedef struct gen_param_use {
    genesis_param p;
    double def;
} gen_param_use;

typedef struct gen_model_vtable {
    genesis_model_kind kind;
    const char *name;
    /* learns from the encoded table; the transformer is already fitted */
    genesis_status (*fit)(genesis_model *m, const gen_encoded *enc, genesis_progress_fn progress,
                          void *user);
    /* generates B activated rows into out (host, B x data_dim); conds may be NULL. row0:
     * the sampling call's number of the first row (a multiple of B); every random draw of
     * a row is a function of the context's seed, the call (m->sample_calls) and its row
     * number, so a group generates the same rows on any device and after any other group
     * (src/model/sample_stream.c spreads groups over devices) */
    genesis_status (*generate)(genesis_model *m, int B, const gen_condition *conds, int nconds,
                               int64_t row0, float *out);
    /* the batch size generate() wants */
    int (*generate_batch)(const genesis_model *m);
    genesis_status (*save)(const genesis_model *m, gen_bytes *out);
    /* the state's float arrays in backend memory (parameters, batch-norm statistics, Adam
     * moments): up to cap (pointer, count) pairs; returns how many. Tests compare states
     * across data-parallel ranks and against one rank (gen_model_state). */
    int (*state)(const genesis_model *m, const float **ptr, size_t *count, int cap);
    genesis_status (*load)(genesis_model *m, gen_reader *in);
    void (*free)(genesis_model *m);
    /* bytes the network allocates for a shape (memory_model.h); NULL = not modelled */
    void (*memory)(const genesis_model *m, const gen_net_shape *shape, gen_net_bytes *out);
    /* Optional (sequence models): learns from the table itself, without the tabular
     * transformer (genesis_model_fit calls it instead of fit), and builds m->tf as the
     * layout of the rows it writes (columns, types, formats; no spans). Such models have no
     * transformer section in their model file; sampling counts units of seq-len rows. */
    genesis_status (*fit_table)(genesis_model *m, const genesis_table *t,
                                genesis_progress_fn progress, void *user);
    /* decodes `rows` rows of generate()'s output (the group just generated) into rb;
     * NULL = gen_transformer_inverse */
    void (*decode)(genesis_model *m, const float *x, int rows, gen_rng *rng, gen_rowbatch *rb);
    /* GENESIS_FEATURE_* the network offers besides fit and sample (CONDITIONS: a conditional
     * vector; TARGET: genesis_model_set_target); GENESIS_FEATURE_SEQUENCES follows from
     * fit_table */
    unsigned features;
    /* training batches are multiples of this (CTGAN: pac); NULL = 1 */
    int (*batch_step)(const genesis_model *m);
    /* host bytes of the network's row-drawing structure over an encoded table of nrows rows
     * (CTGAN: the conditional sampler's row lists; TVAE: the permutation); NULL = none */
    uint64_t (*draw_bytes)(const genesis_model *m, uint64_t nrows, int n_disc, int max_cat);
    /* width of a generated row in generate()'s output when the network has no tabular
     * transformer (TimeGAN: one time step, F floats); NULL = the transformer's data_dim */
    int (*encoded_dim)(const genesis_model *m);
    /* model files of an older format version than this are refused (model_io.c), with
     * old_file_reason saying why (TimeGAN: version 2, its GRU cell changed); 0 = any */
    uint32_t min_file_version;
    const char *old_file_reason;
    /* Optional (resumable training, src/model/checkpoint.c): writes the network's training state at
     * the safe point its fit is at (gen_ckpt_point): what the model section lacks to continue
     * the fit (every network's weights, Adam moments and counters, random streams, data
     * order). The fit reads it back itself (from gen_ckpt_resume_reader). NULL: the kind
     * cannot checkpoint. */
    genesis_status (*train_save)(const genesis_model *m, gen_bytes *out);
    /* The traits the core, the CLI and bindings ask for (genesis_model_kind_get_info): the
     * setting that says how long fit trains, whose units fit counts (progress, checkpoints,
     * messages): GENESIS_P_EPOCHS (0, the default) or GENESIS_P_ITERATIONS ... */
    genesis_param train_param;
    /* ... and 2 when fit's progress reports a discriminator loss besides loss_g (0 = 1). */
    int losses;
    /* The settings the network uses, each with its default for this kind (nparams of
     * them); a setting not listed does not apply to the kind and keeps the parameter
     * table's generic default (src/model/params.c). */
    const gen_param_use *params;
    int nparams;
    /* Defaults that replace those of params when the model is created on a GPU backend and
     * trains without differential privacy (a setting the caller gives always wins); NULL:
     * the same defaults everywhere. */
    const gen_param_use *gpu_params;
    int ngpu_params;
    /* 1: fit trains under differential privacy when m->dp.on (DP-SGD; docs/privacy.md) */
    int dp_sgd;
    /* with dp_sgd: what genesis_model_privacy reports as the mechanism (NULL: dp.c's DP-SGD
     * text); the kind's own words when its DP path differs (CTGAN: the discriminator only) */
    const char *dp_mechanism;
} gen_model_vtable;


struct genesis_model {
    genesis_ctx *ctx;
    const gen_model_vtable *vt;
    double param[GEN_NPARAMS];
    unsigned char param_given[GEN_NPARAMS]; /* 1: set by genesis_model_set_param */
    gen_backend *be;
    gen_transformer tf;
    int fitted;
    uint64_t seed;             /* the context's seed when fit started */
    uint64_t sample_calls;     /* sampling calls so far: each gets fresh noise */
    gen_condition cond[GEN_MAX_CONDITIONS];
    int nconds;
    void *impl;                /* the network's own state */
    int loaded;                /* read from a model file: generation-only network */
    int64_t fp16_skipped;      /* FP16 training: steps the loss scaling skipped in the last fit */
    gen_dp_info dp;            /* differential privacy: what the fit planned and spent (dp.h) */
    /* a DP fit, while the kind's fit runs: the pseudo-table drawn from the released (noisy)
     * histograms (dp_stats.c), for kinds that need the columns' marginals (CTGAN's
     * conditional vectors); NULL otherwise */
    genesis_table *dp_pseudo;
    int64_t sample_batch;      /* rows per sampling batch; 0 = sized from the memory budget */
    int gpu;                   /* where be runs: 0 = the CPU, N + 1 = GPU N */
    int sample_ndev;           /* genesis_model_set_sample_devices: lanes (0 or 1: the model alone) */
    int sample_dev[GEN_MAX_DEVICES]; /* each lane's GPU (a model on the CPU: CPU streams) */
    int sampling;              /* a genesis_sampler is alive on this model */
    genesis_sample_progress_fn sample_progress;
    void *sample_progress_user;
    char *seq_entity, *seq_time; /* TimeGAN: genesis_model_set_sequence_columns */
    char *seq_calendar;          /* TimeGAN: genesis_model_set_calendar_columns (NULL: by name) */
    char *target;              /* DDPM: genesis_model_set_target; NULL = none */
    /* checkpoints (src/model/checkpoint.c, docs/checkpoints.md) */
    char *ckpt_path;           /* genesis_model_set_checkpoint; NULL = none */
    int64_t ckpt_every;        /* training units (vt->train_param) between checkpoints; 0 = none */
    double ckpt_minutes;       /* minutes between checkpoints; 0 = none */
    double ckpt_last_s;        /* when the fit started or last wrote one (monotonic seconds) */
    int64_t ckpt_done, ckpt_total; /* the safe point being written (gen_ckpt_point) */
    int ckpt_written;          /* this fit wrote a checkpoint (of ckpt_done units) */
    /* a stop between safe points (gen_ckpt_stop_within): the checkpoint file of the last
     * safe point, kept in memory when its unit took long enough to be worth stopping in */
    unsigned char *ckpt_snap;
    size_t ckpt_snap_len;
    int64_t ckpt_snap_done;
    int64_t ckpt_points;       /* safe points this fit has passed */
    double ckpt_point_s;       /* when the fit started or passed its last safe point */
    uint64_t fit_fp;           /* fingerprint of the table being fitted (gen_table_fingerprint) */
    int64_t fit_rows;
    int fit_cols;
    unsigned char *resume;     /* a checkpoint's network state to continue (load_checkpoint) */
    size_t resume_len;
    int64_t resume_done, resume_total;
    uint64_t resume_fp;        /* the fingerprint of the checkpoint's table */
    int64_t resume_rows;
    int resume_cols;
};

/* The width of one row of generate()'s output (a fitted model). */
static inline int gen_model_row_dim(const genesis_model *m) {
    return m->vt->encoded_dim ? m->vt->encoded_dim(m) : m->tf.data_dim;
}

/* Rows per sampling unit: a sequence model's n counts sequences of seq-len rows. */
static inline int64_t gen_model_unit_rows(const genesis_model *m) {
    return m->vt->fit_table ? (int64_t)m->param[GENESIS_P_SEQ_LEN] : 1;
}

/* Parameter value as int (for the integer-valued ones). */
static inline int gen_param_i(const genesis_model *m, genesis_param p) {
    return (int)m->param[p];
}

#endif /* GEN_MODEL_TYPES_H */
