/*
 * genesis.h — the one public header of libgenesis, a synthetic tabular data engine.
 *
 * Genesis learns a real table (CTGAN, TVAE) or a set of sequences (TimeGAN) and generates new
 * rows that keep the columns' distributions and the relations between them. This header is the whole
 * public surface: opaque handles, status codes, version, parameters, and the entry points.
 *
 * Conventions (zstd / sqlite style):
 *   - every fallible call returns a genesis_status (GENESIS_OK == 0, errors negative);
 *     constructors hand back their object through an out-parameter;
 *   - genesis_errmsg(ctx) gives the last error message of a context (file, line, column and
 *     what to do where that applies); genesis_status_str(st) a fixed string for a code;
 *   - every create has a free; every free accepts NULL;
 *   - one context per thread: objects made from a context are used from one thread at a time;
 *   - the library never exits the process and never prints unless a log callback is set.
 *
 * Typical use:
 *
 *     genesis_ctx *ctx; genesis_table *t; genesis_model *m;
 *     genesis_ctx_create(&ctx);
 *     genesis_table_read_csv(ctx, "data.csv", NULL, &t);
 *     genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m);
 *     genesis_model_set_param(m, GENESIS_P_EPOCHS, 300);
 *     genesis_model_fit(m, t, NULL, NULL);
 *     genesis_model_sample_csv(m, 1000000, "synthetic.csv");
 *     genesis_model_free(m); genesis_table_free(t); genesis_ctx_free(ctx);
 *
 * docs/api.md documents every function with examples.
 */
#ifndef GENESIS_H
#define GENESIS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(GENESIS_BUILDING_LIBRARY)
#define GENESIS_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define GENESIS_API __attribute__((visibility("default")))
#else
#define GENESIS_API
#endif

/* ---- version ------------------------------------------------------------------------ */
#define GENESIS_VERSION_MAJOR 0
#define GENESIS_VERSION_MINOR 1
#define GENESIS_VERSION_PATCH 0
#define GENESIS_VERSION_NUMBER \
    (GENESIS_VERSION_MAJOR * 10000 + GENESIS_VERSION_MINOR * 100 + GENESIS_VERSION_PATCH)
#define GENESIS_VERSION_STRING "0.1.0"

/*! genesis_version_number() : the library's version as MAJOR*10000 + MINOR*100 + PATCH,
 *  for comparing the header a program was built with against the library it runs with. */
GENESIS_API unsigned genesis_version_number(void);
/*! genesis_version_string() : e.g. "0.1.0"; static storage. */
GENESIS_API const char *genesis_version_string(void);

/* ---- status codes (values are fixed; new ones are only added at the end) -------------- */
typedef enum genesis_status {
    GENESIS_OK = 0,
    GENESIS_ERR_INVALID_ARG = -1,  /* a bad argument or parameter value */
    GENESIS_ERR_NOMEM = -2,        /* an allocation failed or a size would overflow */
    GENESIS_ERR_IO = -3,           /* a file could not be opened, read or written */
    GENESIS_ERR_PARSE = -4,        /* malformed input text (CSV, flags, values) */
    GENESIS_ERR_DATA = -5,         /* the data cannot be used as it is (empty, no columns ...) */
    GENESIS_ERR_MODEL_FORMAT = -6, /* a model file is truncated, corrupted or not a model */
    GENESIS_ERR_VERSION = -7,      /* a model file from a newer, unknown format version */
    GENESIS_ERR_DIVERGED = -8,     /* training produced non-finite values */
    GENESIS_ERR_UNSUPPORTED = -9,  /* asked for something this build or device cannot do */
    GENESIS_ERR_CUDA = -10,
    GENESIS_ERR_CUBLAS = -11,
    GENESIS_ERR_CUDNN = -12,
    GENESIS_ERR_STATE = -13,       /* called in the wrong order (e.g. sample before fit) */
    GENESIS_ERR_CANCELLED = -14,   /* a callback asked to stop */
    GENESIS_ERR_INTERNAL = -15,    /* a bug: please report it */
    GENESIS_ERR_STOPPED = -16      /* a callback asked to stop and the training state was
                                      written to the checkpoint file (genesis_model_set_checkpoint):
                                      genesis_model_load_checkpoint continues it */
} genesis_status;

/*! genesis_status_str() : a fixed English description of a status code; never NULL. */
GENESIS_API const char *genesis_status_str(genesis_status st);

/* ---- context -------------------------------------------------------------------------- */
typedef struct genesis_ctx genesis_ctx;

/*! genesis_ctx_create() : a context holds the device choice, seed, threads, log callback and
 *  the last error message. @return GENESIS_OK or GENESIS_ERR_NOMEM. */
GENESIS_API genesis_status genesis_ctx_create(genesis_ctx **out);
GENESIS_API void genesis_ctx_free(genesis_ctx *ctx);

/*! genesis_errmsg() : the message of the last failed call made with this context (or an
 *  object created from it); "" when there was none. Valid until the next call. */
GENESIS_API const char *genesis_errmsg(const genesis_ctx *ctx);

/*! genesis_ctx_set_seed() : one seed fixes everything on the CPU (default 0). */
GENESIS_API genesis_status genesis_ctx_set_seed(genesis_ctx *ctx, uint64_t seed);
/*! genesis_ctx_set_threads() : CPU threads for the matrix products, the element-wise loops
 *  and the transformer; 0 = automatic (OMP_NUM_THREADS when set, else the cores not busy with
 *  other work when a model is created). The thread count does not change any output: matrix
 *  products run over fixed tiles. */
GENESIS_API genesis_status genesis_ctx_set_threads(genesis_ctx *ctx, int threads);

typedef enum genesis_device_kind {
    GENESIS_DEVICE_AUTO = 0,
    GENESIS_DEVICE_CPU = 1,
    GENESIS_DEVICE_CUDA = 2
} genesis_device_kind;
/*! genesis_ctx_set_device() : where models created afterwards run. CPU: the CPU backend.
 *  AUTO and CUDA: the CUDA backend on GPU `index` when this build has it and a GPU is found,
 *  else the CPU with a logged notice; CUDA is refused by a build without the CUDA backend.
 *  (The CUDA backend has not yet been validated on a GPU: docs/cuda.md.) */
GENESIS_API genesis_status genesis_ctx_set_device(genesis_ctx *ctx, genesis_device_kind kind,
                                                  int index);
/*! genesis_ctx_device_name() : which backend the last model created with this context
 *  got ("cpu" or "cuda:N"); static storage. */
GENESIS_API const char *genesis_ctx_device_name(const genesis_ctx *ctx);

typedef enum genesis_log_level {
    GENESIS_LOG_ERROR = 0,
    GENESIS_LOG_WARN = 1,
    GENESIS_LOG_INFO = 2,
    GENESIS_LOG_DEBUG = 3
} genesis_log_level;
typedef void (*genesis_log_fn)(genesis_log_level level, const char *msg, void *user);
/*! genesis_ctx_set_log() : route the library's notices (fallbacks, warnings about the data)
 *  to a callback; by default nothing is printed. */
GENESIS_API void genesis_ctx_set_log(genesis_ctx *ctx, genesis_log_fn fn, void *user);
/*! genesis_ctx_set_interrupt() : a flag genesis_model_fit reads after every optimiser step
 *  (DDPM and TimeGAN: every iteration); when it is non-zero the fit stops there, as a progress
 *  callback's non-zero return would, without waiting for the end of the epoch. A program sets
 *  it from its SIGINT handler. With a checkpoint file (genesis_model_set_checkpoint) the state
 *  of a safe point is written: DDPM and TimeGAN stop at an iteration, which is one; CTGAN and
 *  TVAE stop after the current step and write the state at the end of the last finished
 *  epoch, kept in memory when that epoch took a second or more (a resumed fit redoes the
 *  interrupted epoch's steps and gives the uninterrupted fit's bytes); after shorter epochs
 *  they stop at the end of the current one; in the first epoch of a fit they stop without a
 *  checkpoint (GENESIS_ERR_CANCELLED). Ignored with several data-parallel ranks. NULL removes
 *  it. */
GENESIS_API void genesis_ctx_set_interrupt(genesis_ctx *ctx, const volatile sig_atomic_t *flag);

/* ---- data-parallel training (docs/distributed.md) --------------------------------------- */
typedef enum genesis_dist_kind {
    GENESIS_DIST_NONE = 0,  /* one worker (the default) */
    GENESIS_DIST_MPI = 1,   /* one process per rank (mpirun); MPI_Allreduce of the gradients */
    GENESIS_DIST_NCCL = 2,  /* one rank per GPU; NCCL all-reduce (MPI or team bootstrap) */
    GENESIS_DIST_THREADS = 3 /* ranks are threads of this process (genesis_team); host sums */
} genesis_dist_kind;
/*! genesis_dist_supported() : 1 when this build can train with `kind` (MPI and NCCL are
 *  found at configure time), else 0. */
GENESIS_API int genesis_dist_supported(genesis_dist_kind kind);
/*! genesis_dist_launched() : 1 when the process was started by a launcher with more than one
 *  rank (mpirun / srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE, SLURM_NTASKS > 1). */
GENESIS_API int genesis_dist_launched(void);
/*! genesis_ctx_set_distributed() : joins the job's ranks (calls MPI_Init unless the
 *  application already did; MPI_Finalize then happens in genesis_ctx_free). Models fitted
 *  with this context train data-parallel: the global batch (GENESIS_P_BATCH_SIZE) is split
 *  into equal slices, one per rank; gradients and batch-norm statistics are summed across
 *  ranks, so K ranks give the same parameters as one rank with the same settings (up to
 *  float rounding) and every rank ends with identical parameters. Every rank must call fit
 *  with the same table and settings (checked). Call once, before creating models. NCCL:
 *  rank r on a machine uses GPU devices[r % n] of genesis_ctx_set_devices (default: its
 *  local rank); MPI with a device list: the same GPU choice, sums staged through the host. @return GENESIS_OK, GENESIS_ERR_UNSUPPORTED (not built in), GENESIS_ERR_IO
 *  (MPI/NCCL start-up failed), GENESIS_ERR_STATE (already set) */
GENESIS_API genesis_status genesis_ctx_set_distributed(genesis_ctx *ctx, genesis_dist_kind kind);
/*! genesis_team_create() : a team of `size` ranks that are threads of this process (one
 *  context and model per thread): CPU ranks without MPI, or one process driving several GPUs
 *  with NCCL. Free it after every member's context is freed. @return GENESIS_OK,
 *  GENESIS_ERR_INVALID_ARG (size outside 1..4096), GENESIS_ERR_NOMEM */
typedef struct genesis_team genesis_team;
GENESIS_API genesis_status genesis_team_create(int size, genesis_team **out);
GENESIS_API void genesis_team_free(genesis_team *team);
/*! genesis_ctx_join_team() : makes `ctx` rank `rank` of `team`; every member calls it from
 *  its own thread (with NCCL it returns once all have joined). kind: GENESIS_DIST_THREADS
 *  (gradients summed in host memory, deterministic rank order) or GENESIS_DIST_NCCL (rank r
 *  uses GPU devices[r % n] of genesis_ctx_set_devices, default GPU r; two ranks on one GPU
 *  need NCCL >= 2.30 and NCCL_MULTI_RANK_GPU_ENABLE=1). Training then behaves as with
 *  genesis_ctx_set_distributed. @return GENESIS_OK, GENESIS_ERR_INVALID_ARG,
 *  GENESIS_ERR_UNSUPPORTED (no NCCL in this build), GENESIS_ERR_CUDA, GENESIS_ERR_STATE */
GENESIS_API genesis_status genesis_ctx_join_team(genesis_ctx *ctx, genesis_team *team, int rank,
                                                 genesis_dist_kind kind);
/*! genesis_team_run() : the launcher for a team: creates a team of `size` ranks, runs
 *  fn(team, r, user) for r = 0 .. size-1, each on its own thread of this process, and
 *  returns when all have returned, after freeing the team. Each fn makes its own context
 *  and calls genesis_ctx_join_team(ctx, team, r, kind) before fit, and frees the context
 *  before it returns. No rank starts before every thread exists, so a thread that cannot be
 *  created fails the call without leaving a rank waiting. `rcs` (may be NULL, `size`
 *  entries) receives each fn's return value. @return GENESIS_OK (whatever the fns returned),
 *  GENESIS_ERR_INVALID_ARG (fn NULL, size outside 1..4096), GENESIS_ERR_NOMEM (memory or
 *  threads; then no fn ran) */
typedef int (*genesis_rank_fn)(genesis_team *team, int rank, void *user);
GENESIS_API genesis_status genesis_team_run(int size, genesis_rank_fn fn, void *user, int *rcs);
/*! genesis_ctx_set_devices() : the GPUs data-parallel ranks use (at most 64, no repeats);
 *  set before genesis_ctx_set_distributed. */
GENESIS_API genesis_status genesis_ctx_set_devices(genesis_ctx *ctx, const int *devices, int n);
/*! genesis_ctx_rank() / genesis_ctx_world_size() : this process's rank and the number of
 *  ranks (0 and 1 without distribution). Only rank 0 should write files and print. */
GENESIS_API int genesis_ctx_rank(const genesis_ctx *ctx);
GENESIS_API int genesis_ctx_world_size(const genesis_ctx *ctx);
/*! genesis_ctx_abort() : stops every rank of the job with exit code `code` (MPI_Abort; for a
 *  team of threads, the process ends with `code`). For an application whose rank failed
 *  outside fit (e.g. it could not read its input), so that the other ranks do not wait for
 *  it forever. Does nothing without distribution. */
GENESIS_API void genesis_ctx_abort(genesis_ctx *ctx, int code);

/* ---- devices -------------------------------------------------------------------------- */
typedef struct genesis_device_info {
    int index;
    char name[128];
    uint64_t total_memory, free_memory; /* bytes */
    int cc_major, cc_minor;             /* compute capability */
    int multiprocessors;
    char pci_bus_id[32];                /* e.g. "0000:3B:00.0" */
    /* versions as the libraries report them (MAJOR*1000 + MINOR*10 for CUDA, cuBLAS
     * MAJOR*10000 + MINOR*100 + PATCH, cuDNN/NCCL their own codes); 0 = not in this build */
    int driver_version, runtime_version, cublas_version, cudnn_version, nccl_version;
} genesis_device_info;

/*! genesis_detect_devices() : lists up to `cap` GPUs into `out` and sets *count to the number
 *  found (0 on a CPU-only build or machine). `why` (may be NULL, `why_cap` bytes) receives a
 *  sentence saying why there is none or what is installed. @return GENESIS_OK. */
GENESIS_API genesis_status genesis_detect_devices(genesis_device_info *out, int cap, int *count,
                                                  char *why, size_t why_cap);

/* ---- tables --------------------------------------------------------------------------- */
typedef struct genesis_table genesis_table;

typedef enum genesis_column_type {
    GENESIS_COLUMN_CONTINUOUS = 0,
    GENESIS_COLUMN_CATEGORICAL = 1
} genesis_column_type;

/* Options for reading a CSV file. Initialise with genesis_csv_options_init(); leave a field
 * at its default to keep the automatic behaviour. */
typedef struct genesis_csv_options {
    size_t struct_size;      /* set by _init: lets later versions grow the struct */
    char delimiter;          /* ',' ';' '\t' ... ; 0 = sniff from the header line */
    int has_header;          /* 1 (default): the first record names the columns */
    const char *na_tokens;   /* extra missing-value tokens, comma-separated; NULL = none.
                                Always missing: "", "?", "NA", "N/A", "NaN", "nan", "null",
                                "NULL", "None" (after trimming spaces) */
    const char *discrete;    /* column names forced categorical, comma-separated */
    const char *continuous;  /* column names forced continuous, comma-separated */
    int max_categories;      /* typing threshold (not the model's GENESIS_P_MAX_CATEGORIES
                                pooling cap): a numeric column with <= this many distinct
                                numbers is categorical; 0 = default (10) */
    const char *datetime;    /* columns read as dates, comma-separated, each "name" (ISO
                                8601 recognised) or "name:FORMAT" (%Y %m %d %H %M %S %f %z;
                                docs/api.md); a value that does not fit is an error */
    const char *not_datetime; /* columns never read as dates, comma-separated ("*": none
                                but those listed in `datetime`). Otherwise a
                                column whose every value is an ISO 8601 date (YYYY-MM-DD),
                                month (YYYY-MM) or timestamp (YYYY-MM-DD[T ]HH:MM[:SS[.f]]
                                [Z|+HH:MM]) in one shape is a date column: continuous, in
                                seconds since 1970-01-01 UTC, written back as read */
    const char *id;          /* identifier columns, comma-separated: written as fresh unique
                                values in the column's shape (integers, or text with one run
                                of digits such as C0001), never a real value */
    const char *not_id;      /* columns never treated as identifiers ("*": only those listed
                                in `id`). Otherwise a column with no missing value and a
                                distinct value in each of >= 10 rows is an identifier when
                                its name looks like one (id, *_id, customerId, ...) and its
                                values are integers or numbered text, or, whatever its name,
                                when its values are numbered text of one shape (docs/api.md) */
} genesis_csv_options;

GENESIS_API void genesis_csv_options_init(genesis_csv_options *o);

/*! genesis_table_read_csv() : reads a CSV file ("-" = stdin) into a column store, types
 *  each column (continuous vs categorical; integer-valued columns are remembered so output
 *  stays integer). `opts` may be NULL. Errors name the file, line and column.
 *  @return GENESIS_OK, GENESIS_ERR_IO, GENESIS_ERR_PARSE, GENESIS_ERR_DATA, GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_table_read_csv(genesis_ctx *ctx, const char *path,
                                                  const genesis_csv_options *opts,
                                                  genesis_table **out);
GENESIS_API void genesis_table_free(genesis_table *t);
GENESIS_API int64_t genesis_table_nrows(const genesis_table *t);
GENESIS_API int genesis_table_ncols(const genesis_table *t);
/*! genesis_table_column_name() : the name of column `col`, or NULL if out of range. */
GENESIS_API const char *genesis_table_column_name(const genesis_table *t, int col);
GENESIS_API genesis_column_type genesis_table_column_type(const genesis_table *t, int col);
/*! genesis_table_column_datetime() : the date format of a date column (a continuous column
 *  of UTC seconds since 1970-01-01, written back in this format: see
 *  genesis_csv_options.datetime), e.g. "%Y-%m-%d"; NULL for any other column. Lives as long
 *  as the table. */
GENESIS_API const char *genesis_table_column_datetime(const genesis_table *t, int col);
/*! genesis_table_column_is_id() : 1 for an identifier column (see genesis_csv_options.id),
 *  else 0. */
GENESIS_API int genesis_table_column_is_id(const genesis_table *t, int col);

/* ---- tables built from columns in memory (a program's own data, no CSV) ---------------- */
/*! genesis_table_create() : an empty table of `nrows` rows (0 .. 2^31-1) that columns are
 *  then added to, in order, with genesis_table_add_continuous / _add_categorical: for a
 *  program whose data is already in memory (the Python package builds its tables from
 *  DataFrame columns this way). `name` (may be NULL: "table") stands for the file name in
 *  messages and reports. Columns get no date or identifier role; the table is fitted,
 *  evaluated and freed like one read from a CSV file. Errors are reported in `ctx`, which
 *  must outlive the table. @return GENESIS_OK, GENESIS_ERR_INVALID_ARG, GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_table_create(genesis_ctx *ctx, int64_t nrows, const char *name,
                                                genesis_table **out);
/*! genesis_table_add_continuous() : appends a continuous column: `values[nrows]` (copied),
 *  NaN = missing; infinities are refused. `integer` = 1 says every value is a whole number
 *  below 2^53 in magnitude (checked; generated values are then rounded to integers);
 *  `decimals` is the precision generated values are rounded to (0 .. 17 digits after the
 *  point) or -1 for none (shortest round-trip text). @return GENESIS_OK,
 *  GENESIS_ERR_INVALID_ARG (empty or duplicate name, bad value, integer or decimals, more
 *  than 100000 columns), GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_table_add_continuous(genesis_table *t, const char *name,
                                                        const double *values, int integer,
                                                        int decimals);
/*! genesis_table_add_categorical() : appends a categorical column: `codes[nrows]` index
 *  `levels[nlevels]` (distinct strings, each at most 1 MiB; copied), -1 = missing. Levels no
 *  row uses are allowed and ignored by fit. @return GENESIS_OK, GENESIS_ERR_INVALID_ARG
 *  (empty or duplicate name, a code out of range, a NULL, repeated or too long level),
 *  GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_table_add_categorical(genesis_table *t, const char *name,
                                                         const int32_t *codes,
                                                         const char *const *levels,
                                                         int32_t nlevels);
/*! genesis_table_add_shape() : appends a column that holds no values, for planning: it
 *  describes a column of the table's `nrows` rows to genesis_estimate_memory and
 *  genesis_optimize_batch_size without the data (so a million-row plan costs nothing).
 *  `nlevels` > 0: a categorical column of that many levels; 0: continuous. `missing` = 1:
 *  the column has missing values (one more slot). genesis_model_fit and genesis_evaluate
 *  refuse a table with such a column (GENESIS_ERR_DATA). @return GENESIS_OK,
 *  GENESIS_ERR_INVALID_ARG, GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_table_add_shape(genesis_table *t, const char *name,
                                                   int32_t nlevels, int missing);

/* ---- models --------------------------------------------------------------------------- */
typedef struct genesis_model genesis_model;

typedef enum genesis_model_kind {
    GENESIS_MODEL_CTGAN = 1,
    GENESIS_MODEL_TVAE = 2,
    GENESIS_MODEL_TIMEGAN = 3,
    GENESIS_MODEL_DDPM = 4         /* TabDDPM: Gaussian + multinomial diffusion (docs/ddpm.md) */
} genesis_model_kind;

/* Model settings; genesis_param_bounds() gives each one's range and default. */
typedef enum genesis_param {
    GENESIS_P_EPOCHS = 0,          /* 300 */
    GENESIS_P_BATCH_SIZE = 1,      /* 500; CTGAN: a multiple of pac */
    GENESIS_P_EMBEDDING_DIM = 2,   /* 128 */
    GENESIS_P_GEN_DIM = 3,         /* generator hidden width, 256 (two layers) */
    GENESIS_P_DIS_DIM = 4,         /* discriminator hidden width, 256 (two layers) */
    GENESIS_P_GEN_LR = 5,          /* 2e-4 */
    GENESIS_P_DIS_LR = 6,          /* 2e-4 */
    GENESIS_P_GEN_DECAY = 7,       /* 1e-6 */
    GENESIS_P_DIS_DECAY = 8,       /* 1e-6 */
    GENESIS_P_PAC = 9,             /* 10 */
    GENESIS_P_DIS_STEPS = 10,      /* 1 */
    GENESIS_P_LOG_FREQUENCY = 11,  /* 1: training-by-sampling with log frequencies */
    GENESIS_P_MAX_MODES = 12,      /* 10 GMM modes per continuous column */
    GENESIS_P_MAX_CATEGORIES = 13, /* 500 levels kept per categorical column; rarer ones
                                      share a slot and are drawn back by frequency */
    GENESIS_P_POINT_MASSES = 14,   /* 1: values carrying a large share of a column are
                                      modelled as exact point masses (0: only the GMM, as
                                      the reference, except that a column whose values
                                      are all one number still gets one point) */
    GENESIS_P_CLAMP_RANGE = 15,    /* 1: outputs stay inside the real column's range */
    GENESIS_P_BN_EVAL_SAMPLE = 16, /* 0: batch norm uses batch statistics when sampling,
                                      as the reference does; 1: running statistics */
    GENESIS_P_VGM_MAX_ROWS = 17,   /* rows used to fit each column's GMM; 0 = all rows */
    GENESIS_P_LOSS_FACTOR = 18,    /* TVAE: weight of the reconstruction loss, 2 */
    GENESIS_P_SAMPLE_ARGMAX = 19,  /* TVAE: 0 draws categories and modes from the decoder's
                                      softmax; 1 takes the argmax, as the reference does */
    GENESIS_P_SEQ_LEN = 20,        /* TimeGAN: steps per sequence (window length), 24 */
    GENESIS_P_HIDDEN_DIM = 21,     /* TimeGAN: GRU width of all five networks, 24 */
    GENESIS_P_NUM_LAYERS = 22,     /* TimeGAN: GRU layers per network (supervisor: one
                                      fewer), 3 */
    GENESIS_P_ITERATIONS = 23,     /* TimeGAN: iterations of each of the three training
                                      phases, 50000; DDPM: optimiser steps */
    GENESIS_P_PRECISION = 24,      /* CTGAN, TVAE: the GEMMs' operand precision, a
                                      genesis_precision (0 = fp32); FP32 accumulation and
                                      master weights always (docs/precision.md) */
    GENESIS_P_DIFFUSION_STEPS = 25, /* DDPM: diffusion steps T, 1000 */
    GENESIS_P_SAMPLE_STEPS = 26,   /* DDPM: reverse steps when sampling, 100; fewer than T:
                                      strided (DDIM for the Gaussian part); 0 or >= T: all
                                      T (ancestral DDPM) */
    GENESIS_P_NOISE_SCHEDULE = 27, /* DDPM: 0 linear, 1 cosine (default) */
    GENESIS_P_ALPHA_PER_MODE = 28, /* TVAE: 1 the decoder outputs one alpha per mode (slot)
                                      of each continuous column, so a drawn mode comes with
                                      its own alpha; 0 one alpha per column, as the reference.
                                      Model files written before this setting load as 0 */
    GENESIS_P_EMA_DECAY = 29,      /* DDPM: the decay of the exponential moving average of the
                                      weights that sampling uses; 0 = none (the trained
                                      weights sample) */
    GENESIS_P_LABEL_DROPOUT = 30,  /* DDPM with a target: the share of training rows whose
                                      class is hidden, so that the denoiser also learns the
                                      unconditional prediction guidance needs; 0 = none */
    GENESIS_P_GUIDANCE = 31,       /* DDPM with a target, sampling: classifier-free guidance
                                      weight w, the prediction (1 + w) eps(x, y) - w eps(x)
                                      (Ho and Salimans 2022); needs label-dropout > 0; 0 =
                                      off */
    GENESIS_P_QUANTILE = 32,       /* DDPM: 1 (default) continuous columns are mapped onto a
                                      standard normal through their quantiles (TabDDPM's
                                      QuantileTransformer) instead of mixture modes; 0 the
                                      modes. Model files written before this setting load
                                      as 0 */
    GENESIS_P_DDIM_ETA = 33,       /* DDPM, sampling: the noise eta of the strided (DDIM)
                                      steps, 0 (default) deterministic .. 1 the DDPM
                                      posterior's variance (Song et al. 2021); no effect
                                      when all T steps are sampled */
    GENESIS_P_EPSILON = 34,        /* TVAE, DDPM: > 0 trains under (epsilon, delta)-differential
                                      privacy (DP-SGD with Poisson batches, and the
                                      transformer's statistics from noisy histograms;
                                      docs/privacy.md); 0 (default) off */
    GENESIS_P_DELTA = 35,          /* with GENESIS_P_EPSILON: delta; 0 (default) = 1 / rows */
    GENESIS_P_MAX_GRAD_NORM = 36,  /* with GENESIS_P_EPSILON: the per-example gradient norm
                                      bound C of DP-SGD, 1 */
    GENESIS_P_GRADIENT_CHECKPOINTING = 37, /* CTGAN, TVAE, DDPM: 1 keeps only each block's
                                      input for the backward pass and recomputes the block
                                      in it: less activation memory, one more forward of
                                      the recomputed blocks per step, the same model bytes
                                      (docs/memory.md); 0 (default) keeps every activation.
                                      Not stored in model files */
    GENESIS_P_SAMPLE_ORDER = 38    /* DDPM, sampling: the strided Gaussian step's order, 1
                                      DDIM (Song et al. 2021), 2 the multistep DPM-Solver++(2M)
                                      (Lu et al. 2022); model files written before this
                                      setting load as 1 */
} genesis_param;

/* Values of GENESIS_P_PRECISION: the precision of the matrix products' operands (weights and
 * activations are rounded to it, round to nearest even, before an FP32-accumulated product);
 * genesis_param_choice() names them as the CLI spells them ("fp32", "tf32", "bf16", "fp16").
 * FP16 trains with dynamic loss scaling (docs/precision.md). */
typedef enum genesis_precision {
    GENESIS_PRECISION_FP32 = 0,
    GENESIS_PRECISION_TF32 = 1,
    GENESIS_PRECISION_BF16 = 2,
    GENESIS_PRECISION_FP16 = 3
} genesis_precision;

/*! genesis_param_default() : the default of `p` for a model kind (TVAE's differ from
 *  CTGAN's: hidden width 128, learning rate 1e-3, decay 1e-5; TimeGAN's: batch 128,
 *  learning rate 1e-3, docs/algorithms.md §S1). */
GENESIS_API genesis_status genesis_param_default(genesis_model_kind kind, genesis_param p,
                                                 double *def);

/*! genesis_model_create() : an untrained model of `kind` on the context's device.
 *  @return GENESIS_OK, GENESIS_ERR_UNSUPPORTED (a kind this version does not have), GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_model_create(genesis_ctx *ctx, genesis_model_kind kind,
                                                genesis_model **out);
GENESIS_API void genesis_model_free(genesis_model *m);
GENESIS_API genesis_model_kind genesis_model_get_kind(const genesis_model *m);

/*! genesis_model_set_param() / _get_param() : set before fit; out-of-range values are
 *  rejected with GENESIS_ERR_INVALID_ARG and a message giving the range. */
GENESIS_API genesis_status genesis_model_set_param(genesis_model *m, genesis_param p, double v);
GENESIS_API genesis_status genesis_model_get_param(const genesis_model *m, genesis_param p,
                                                   double *v);
/*! genesis_param_bounds() : range and default of a parameter, and its name as the CLI
 *  spells it (static storage). @return GENESIS_ERR_INVALID_ARG for an unknown parameter. */
GENESIS_API genesis_status genesis_param_bounds(genesis_param p, double *lo, double *hi,
                                                double *def, const char **name);

/* ---- the parameter table: what each setting is, which models use it ------------------ */
/* A bit per model kind, for genesis_param_info.models. */
#define GENESIS_MODEL_BIT(kind) (1u << (unsigned)(kind))

typedef struct genesis_param_info {
    const char *name;   /* as the CLI spells its flag without "--" ("batch-size"); static */
    const char *help;   /* one line saying what it does; static */
    double lo, hi;      /* range, both included */
    double def;         /* the default for the kind asked for */
    int integer;        /* 1: whole numbers only */
    unsigned models;    /* GENESIS_MODEL_BIT of every kind that uses it */
    int after_fit;      /* 1: a sampling-time setting, which may change on a fitted model;
                           0: a training setting, fixed by fit */
} genesis_param_info;

/*! genesis_param_choice() : for a parameter whose values are named (GENESIS_P_PRECISION),
 *  the name of value `i` ("bf16"), static; NULL past the last value or for a numeric
 *  parameter. A program parses and prints such settings by these names, as the CLI does. */
GENESIS_API const char *genesis_param_choice(genesis_param p, int i);
/*! genesis_param_count() : the number of parameters; they are numbered 0 .. count - 1. */
GENESIS_API int genesis_param_count(void);
/*! genesis_param_get_info() : everything the library knows about parameter `p`, with the
 *  default of a model of `kind` (0: the value genesis_param_bounds gives). A program builds
 *  its settings, help and checks from it, as the CLI does. Thread-safe; no context.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (unknown parameter or kind, NULL out) */
GENESIS_API genesis_status genesis_param_get_info(genesis_param p, genesis_model_kind kind,
                                                  genesis_param_info *out);
/*! genesis_model_kind_name() : "ctgan", "tvae", "timegan" or "ddpm"; NULL for a kind this version
 *  does not have (kinds are numbered from 1: a loop over kinds stops at the first NULL).
 *  Static storage. */
GENESIS_API const char *genesis_model_kind_name(genesis_model_kind kind);
/*! genesis_model_kind_from_name() : the kind genesis_model_kind_name spells `name`.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (no such kind) */
GENESIS_API genesis_status genesis_model_kind_from_name(const char *name,
                                                        genesis_model_kind *kind);
/*! genesis_model_kind_default() : the kind to use when the caller has no reason to pick one,
 *  as the CLI without --method and Python's SyntheticGenerator() do: GENESIS_MODEL_DDPM, the
 *  method that kept missing values, rare categories and the target's class rates at its
 *  defaults on every table measured (docs/benchmarks.md, "Which method by default"). It
 *  trains by iterations (GENESIS_P_ITERATIONS) and does not train data-parallel. */
GENESIS_API genesis_model_kind genesis_model_kind_default(void);
/* What a model kind can do beyond fit and sample (bits of genesis_model_kind_features). */
typedef enum genesis_model_feature {
    GENESIS_FEATURE_CONDITIONS = 1, /* genesis_model_set_condition: a conditional vector */
    GENESIS_FEATURE_SEQUENCES = 2,  /* genesis_model_set_sequence_columns; sampling counts
                                       sequences of seq_len rows */
    GENESIS_FEATURE_TARGET = 4      /* genesis_model_set_target: a class the fit conditions on */
} genesis_model_feature;
/*! genesis_model_kind_features() : the genesis_model_feature bits of `kind` (CTGAN:
 *  conditions; TimeGAN: sequences; DDPM: target; TVAE: none); 0 for an unknown kind. */
GENESIS_API unsigned genesis_model_kind_features(genesis_model_kind kind);
/* What a model kind is, as its model declares it (models/registry.c); static storage. */
typedef struct genesis_model_kind_info {
    const char *name;          /* genesis_model_kind_name: "ctgan" */
    unsigned features;         /* genesis_model_kind_features */
    genesis_param train_param; /* the setting that says how long fit trains: GENESIS_P_EPOCHS
                                  or GENESIS_P_ITERATIONS */
    const char *train_unit;    /* what fit, its checkpoints and its progress count, the name
                                  of train_param: "epochs" or "iterations" */
    int losses;                /* 2: fit's progress reports a discriminator loss (loss_d)
                                  besides loss_g; 1: loss_g only */
} genesis_model_kind_info;
/*! genesis_model_kind_get_info() : the traits of `kind` (name, features, training unit,
 *  losses), so that a program asks instead of testing kinds. Thread-safe; no context.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (a kind this version does not have, NULL out) */
GENESIS_API genesis_status genesis_model_kind_get_info(genesis_model_kind kind,
                                                       genesis_model_kind_info *out);
/*! genesis_model_epochs_length() : `epochs` passes over a training table of `rows` rows in
 *  model `m`'s training unit (genesis_model_kind_info.train_param): `epochs` itself for a model
 *  trained by epochs (CTGAN, TVAE); for a tabular model trained by iterations (DDPM) the
 *  batches they take, ceil(epochs x rows / batch) with batch = min(batch-size, rows), so
 *  that a program can offer epochs for every tabular method, as the CLI's --epochs does.
 *  Reads m's batch size: call it after setting that. @return GENESIS_OK,
 *  GENESIS_ERR_INVALID_ARG (NULL, rows < 1, epochs < 1, a result past the setting's range),
 *  GENESIS_ERR_UNSUPPORTED (a sequence model: TimeGAN's phases are not passes over rows) */
GENESIS_API genesis_status genesis_model_epochs_length(const genesis_model *m, int64_t rows,
                                                       double epochs, double *length);
/*! genesis_model_default_rows() : how much model `m` generates when the caller does not
 *  say, for a training table of `table_rows` rows: that many rows for CTGAN and TVAE; for
 *  TimeGAN the sequences a single series of that length has windows (table_rows - seq_len,
 *  at least 1). The unit is the sampling calls' n. 0 for NULL or a negative count. */
GENESIS_API int64_t genesis_model_default_rows(const genesis_model *m, int64_t table_rows);

/* A fitted or loaded model's columns as it generates them: the training table's columns in
 * order (CTGAN and TVAE). Lets a program that only loaded a .gen file name and type the
 * columns of the batches it receives. Strings live as long as the model. */
typedef struct genesis_model_column {
    const char *name;
    genesis_column_type type;
    int integer;           /* continuous: generated values are whole numbers */
    int decimals;          /* continuous: digits after the point values are rounded to; -1:
                              none (shortest round-trip text) */
    int has_missing;       /* the training column had missing values (so may the output) */
    const char *datetime;  /* a date column's format (values are UTC seconds), else NULL */
    int is_id;             /* an identifier column (fresh unique values) */
    int nlevels;           /* categorical: levels it can generate (genesis_model_column_level) */
} genesis_model_column;
/* The privacy guarantee of a fitted model (genesis_model_privacy; docs/privacy.md). */
typedef struct genesis_privacy {
    int dp;                   /* 1: trained under (epsilon, delta)-differential privacy;
                                 0: no formal guarantee (every other field 0) */
    double epsilon, delta;    /* the accountant's epsilon of the whole fit at delta */
    double target_epsilon;    /* the epsilon asked for (GENESIS_P_EPSILON) */
    double noise_multiplier;  /* DP-SGD: noise sd / max_grad_norm */
    double max_grad_norm;     /* DP-SGD: per-example gradient norm bound C */
    double sampling_rate;     /* DP-SGD: Poisson sampling rate q of each step's batch */
    int64_t steps;            /* DP-SGD: optimiser steps */
    double stats_noise;       /* the transformer's histograms: noise sd per cell, in rows */
    double stats_threshold;   /* noisy count a cell needs to be released, in rows */
    double stats_epsilon;     /* epsilon the histograms alone spend at delta (their share) */
    const char *mechanism;    /* the mechanism and accountant in words (static text) */
} genesis_privacy;

/*! genesis_model_privacy() : what a fitted or loaded model guarantees (`out->dp` = 0: none).
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG, GENESIS_ERR_STATE (not fitted) */
GENESIS_API genesis_status genesis_model_privacy(const genesis_model *m, genesis_privacy *out);

/*! genesis_model_ncols() : the number of columns a fitted CTGAN or TVAE model generates;
 *  0 for NULL, an unfitted model or TimeGAN (whose rows come as CSV). */
GENESIS_API int genesis_model_ncols(const genesis_model *m);
/*! genesis_model_column_info() : column `col` of a fitted model.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (NULL, col out of range), GENESIS_ERR_STATE
 *  (unfitted) */
GENESIS_API genesis_status genesis_model_column_info(const genesis_model *m, int col,
                                                     genesis_model_column *out);
/*! genesis_model_column_level() : level `k` (0 .. nlevels-1) of categorical column `col`,
 *  as the training data spelled it: the kept levels in order of first appearance, then the
 *  pooled rare ones; NULL when out of range. Lives as long as the model. */
GENESIS_API const char *genesis_model_column_level(const genesis_model *m, int col, int k);
/*! genesis_model_column_mixture() : the learned shape of continuous column `col` of a fitted
 *  model: *nmodes modes of its Gaussian mixture and *npoints point masses (values written back
 *  exactly: a large share of the column, or its minimum or maximum; docs/algorithms.md). For
 *  k < cap, mode k goes to mean[k], std[k], weight[k] and point mass k to point[k]; any array
 *  may be NULL. A categorical column has none (0 and 0). Models that normalise by quantiles
 *  report 0 modes.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (NULL, col out of range), GENESIS_ERR_STATE
 *  (unfitted) */
GENESIS_API genesis_status genesis_model_column_mixture(const genesis_model *m, int col, int cap,
                                                        int *nmodes, double *mean, double *std,
                                                        double *weight, int *npoints,
                                                        double *point);

/*! genesis_model_column_quantiles() : the quantile map of continuous column `col` of a model
 *  fitted with GENESIS_P_QUANTILE = 1: *nquantiles quantiles (0 when the column has none:
 *  categorical, mixture modes, or only point masses), the values at the evenly spaced
 *  probabilities k / (nquantiles - 1); for k < cap, quantile k goes to q[k] (q may be NULL).
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (NULL, col out of range), GENESIS_ERR_STATE
 *  (unfitted) */
GENESIS_API genesis_status genesis_model_column_quantiles(const genesis_model *m, int col, int cap,
                                                          int *nquantiles, double *q);

/* Progress: called once per epoch; return non-zero to cancel. */
typedef struct genesis_progress {
    int epoch, epochs;
    int64_t step, steps;          /* optimiser steps done / total */
    double loss_g, loss_d;        /* last step's losses (CTGAN) or loss (TVAE in loss_g) */
    double elapsed_s, eta_s;
    double rows_per_s;            /* training rows processed per second */
} genesis_progress;
typedef int (*genesis_progress_fn)(const genesis_progress *p, void *user);

/*! genesis_model_fit() : learns `t`. The table is not kept; the model holds what it needs.
 *  On a model from genesis_model_load_checkpoint it continues the checkpointed fit (`t` must
 *  be the table the checkpoint was made on). A progress callback that returns non-zero stops
 *  the fit at that epoch (TimeGAN: iteration): with a checkpoint file set, the training state
 *  is written there first and the result is GENESIS_ERR_STOPPED, else GENESIS_ERR_CANCELLED.
 *  @return GENESIS_OK, GENESIS_ERR_DATA, GENESIS_ERR_DIVERGED, GENESIS_ERR_CANCELLED,
 *  GENESIS_ERR_STOPPED, GENESIS_ERR_IO (a checkpoint could not be written) ... */
GENESIS_API genesis_status genesis_model_fit(genesis_model *m, const genesis_table *t,
                                             genesis_progress_fn progress, void *user);

/*! genesis_model_skipped_steps() : optimiser steps the last genesis_model_fit skipped
 *  because a gradient overflowed under FP16 loss scaling (`precision` fp16; each skip halved
 *  the scale, docs/precision.md); 0 in every other precision. Also logged at the end of fit.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (NULL) */
GENESIS_API genesis_status genesis_model_skipped_steps(const genesis_model *m, int64_t *out);

/* ---- checkpoints: resumable training (docs/checkpoints.md) ------------------------------ *
 * A checkpoint is a model file (genesis_model_load and sampling read it) with the whole
 * training state appended: every weight, batch-norm statistics, Adam moments and step
 * counters, every random stream's position, the data order, the epoch (TimeGAN: phase and
 * iteration) reached, the settings and a fingerprint of the training table. It is written
 * only at epoch boundaries (TimeGAN: between iterations), under a temporary name renamed when
 * complete. A fit resumed from a checkpoint produces the same bytes as the uninterrupted fit
 * with the same seed, on the same device kind and binary. Not with data-parallel training. */

/*! genesis_model_set_checkpoint() : genesis_model_fit writes its training state to `path`
 *  every `every` epochs (TimeGAN: iterations, counted over the three phases; 0 = not by
 *  count) and, at the first epoch boundary after `minutes` minutes since the last checkpoint
 *  (0 = not by time), and whenever the progress callback asks to stop. path NULL removes
 *  the checkpoint. The library installs no signal handler: a program that wants Ctrl-C to
 *  checkpoint sets a flag in its handler and returns non-zero from the progress callback.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (every < 0, minutes < 0 or not finite),
 *  GENESIS_ERR_STATE (the model is fitted), GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_model_set_checkpoint(genesis_model *m, const char *path,
                                                        int64_t every, double minutes);
/*! genesis_model_load_checkpoint() : a model ready to continue the fit saved in the checkpoint
 *  `path`: its settings, seed, sequence columns, checkpoint file (`path`) and interval are the
 *  checkpoint's. genesis_model_fit on it, with the same table, continues where the checkpoint
 *  was taken; a different table is refused (GENESIS_ERR_DATA). Settings may be set again
 *  only to the values they have. @return GENESIS_OK, GENESIS_ERR_IO, GENESIS_ERR_MODEL_FORMAT,
 *  GENESIS_ERR_VERSION, GENESIS_ERR_DATA (a model file without training state),
 *  GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_model_load_checkpoint(genesis_ctx *ctx, const char *path,
                                                         genesis_model **out);
/*! genesis_model_checkpoint_progress() : how far the fit of a model from
 *  genesis_model_load_checkpoint had got: *done and *total in the checkpoint's unit (epochs;
 *  TimeGAN: iterations over the three phases, 3 x `iterations`). @return GENESIS_OK,
 *  GENESIS_ERR_STATE (the model holds no checkpoint to continue) */
GENESIS_API genesis_status genesis_model_checkpoint_progress(const genesis_model *m,
                                                             int64_t *done, int64_t *total);

/*! genesis_model_set_condition() : the next samples are drawn with `column` == `value`
 *  (a categorical column). Conditions on different columns all hold on every row; several
 *  values of one column take turns row by row. The conditional vector carries one condition
 *  per row (the columns take turns) and every conditioned column is set in the decoded row:
 *  no reject loop. An unknown column or a value never seen is GENESIS_ERR_INVALID_ARG.
 *  genesis_model_clear_conditions() removes them. */
GENESIS_API genesis_status genesis_model_set_condition(genesis_model *m, const char *column,
                                                       const char *value);
GENESIS_API void genesis_model_clear_conditions(genesis_model *m);

/* A batch of synthetic rows handed to a sink callback; valid only during the call. */
typedef struct genesis_batch genesis_batch;
GENESIS_API int64_t genesis_batch_nrows(const genesis_batch *b);
GENESIS_API int genesis_batch_ncols(const genesis_batch *b);
/*! genesis_batch_is_missing() : 1 when the value at (row, col) is missing. */
GENESIS_API int genesis_batch_is_missing(const genesis_batch *b, int64_t row, int col);
/*! genesis_batch_number() : a continuous column's value (NaN when missing). */
GENESIS_API double genesis_batch_number(const genesis_batch *b, int64_t row, int col);
/*! genesis_batch_text() : the value as the CSV writer prints it (a category exactly as it
 *  was read, a number in the column's own precision); points into `buf` or static storage. */
GENESIS_API const char *genesis_batch_text(const genesis_batch *b, int64_t row, int col,
                                           char *buf, size_t cap);

/*! genesis_batch_column() : a whole column of the batch at once, for programs that fill
 *  arrays (the Python package): a continuous column's values into `num` (nrows doubles, NaN
 *  = missing, as genesis_batch_number gives them), or a categorical column's levels into
 *  `codes` (nrows int32: the index k of genesis_model_column_level, -1 = missing). The
 *  pointer of the other type is not used and may be NULL. Date and identifier columns hold
 *  numbers only their text shows (use genesis_batch_text). @return GENESIS_OK,
 *  GENESIS_ERR_INVALID_ARG (NULL batch or pointer, col out of range) */
GENESIS_API genesis_status genesis_batch_column(const genesis_batch *b, int col, double *num,
                                                int32_t *codes);

/* Sink: receives consecutive batches; return non-zero to stop early. */
typedef int (*genesis_sink_fn)(const genesis_batch *b, void *user);

/*! genesis_model_sample() : generates n rows in batches (constant memory for any n) and
 *  hands each batch to `sink`. For a sequence model (TimeGAN) n counts sequences, each
 *  seq_len rows, here and in every sampling call below. @return GENESIS_OK, GENESIS_ERR_STATE (not fitted) ... */
GENESIS_API genesis_status genesis_model_sample(genesis_model *m, int64_t n,
                                                genesis_sink_fn sink, void *user);

/*! genesis_model_sample_csv() : generates n rows into a CSV file ("-" = stdout). The file is
 *  written under a temporary name and renamed only when complete. */
GENESIS_API genesis_status genesis_model_sample_csv(genesis_model *m, int64_t n,
                                                    const char *path);

/* Encoded sink: `x` is a row-major (rows x dim) float matrix in the model's encoded space
 * (the layout of genesis_model_encoded_dim); valid only during the call. */
typedef int (*genesis_encoded_sink_fn)(const float *x, int64_t rows, int dim, void *user);
GENESIS_API int genesis_model_encoded_dim(const genesis_model *m);
/*! genesis_model_sample_encoded() : like _sample, but hands the generator's activated
 *  output matrices to a training tool instead of decoded rows. */
GENESIS_API genesis_status genesis_model_sample_encoded(genesis_model *m, int64_t n,
                                                        genesis_encoded_sink_fn sink,
                                                        void *user);

/* ---- sampling in batches: an iterator, batch size and progress ------------------------- *
 * Every sampling call above runs the same pipeline: a worker thread generates batch k+1
 * (generator forward and inverse transform) while the caller consumes batch k; the output
 * is identical for any batch size and thread count (each batch is made of the model's own
 * generation groups, drawn in the same order). Memory stays constant for any n. */
typedef struct genesis_sampler genesis_sampler;

/*! genesis_sampler_create() : an iterator over n generated rows. `encoded` = 1 yields the
 *  generator's activated float matrices (genesis_sampler_next_encoded) and skips the inverse
 *  transform; 0 yields decoded rows (genesis_sampler_next). The model must outlive it and
 *  must not be used by another call meanwhile (a second sampler on it is GENESIS_ERR_STATE). */
GENESIS_API genesis_status genesis_sampler_create(genesis_model *m, int64_t n, int encoded,
                                                  genesis_sampler **out);
/*! genesis_sampler_next() : the next batch of decoded rows, valid until the next call or
 *  _free; *batch = NULL after the last one. */
GENESIS_API genesis_status genesis_sampler_next(genesis_sampler *s, const genesis_batch **batch);
/*! genesis_sampler_next_encoded() : the next (rows x dim) float matrix; *x = NULL, *rows = 0
 *  after the last one. */
GENESIS_API genesis_status genesis_sampler_next_encoded(genesis_sampler *s, const float **x,
                                                        int64_t *rows, int *dim);
/*! genesis_sampler_batch_rows() : rows per batch this iterator uses. */
GENESIS_API int64_t genesis_sampler_batch_rows(const genesis_sampler *s);
GENESIS_API void genesis_sampler_free(genesis_sampler *s);

/*! genesis_model_set_sample_batch() : rows per sampling batch (rounded up to the model's
 *  generation group); 0 (default) sizes it from the memory budget (genesis_optimize_batch_size).
 *  Output does not depend on it. */
GENESIS_API genesis_status genesis_model_set_sample_batch(genesis_model *m, int64_t rows);
/* Called after every sampling batch with rows done, rows asked and seconds since the start;
 * a non-zero return stops sampling with GENESIS_ERR_CANCELLED. */
typedef int (*genesis_sample_progress_fn)(int64_t done, int64_t total, double seconds,
                                          void *user);
GENESIS_API void genesis_model_set_sample_progress(genesis_model *m,
                                                   genesis_sample_progress_fn fn, void *user);
/*! genesis_model_set_sample_devices() : spreads the next sampling calls over n devices. The
 *  rows are cut into sampling batches; batch j is generated by device j mod n on its own copy
 *  of the generator (made from the model's file bytes), each device keeping at most two
 *  batches in flight, and the batches are consumed in row order, so memory stays flat in the
 *  number of rows. Every random draw of a row is a function of the seed and the row's
 *  number, so the rows are the same bytes for any n. A model on a GPU: devices[] are GPU
 *  indices (distinct; the model's own GPU is used in place, the others get copies); a model
 *  on the CPU: n generating threads (devices may be NULL). n = 0 or 1: the model alone (the
 *  default). A sequence model (TimeGAN) samples on one device: n > 1 makes its sampling
 *  calls fail with GENESIS_ERR_UNSUPPORTED. The memory model counts every device
 *  (genesis_estimate_memory: host terms for all of them, device_total per GPU).
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG (n out of 0..64, a repeated or negative GPU) */
GENESIS_API genesis_status genesis_model_set_sample_devices(genesis_model *m, const int *devices,
                                                            int n);

/* ---- memory model ---------------------------------------------------------------------- *
 * What a workload needs, term by term (docs/memory.md), and the largest batch that fits the
 * context's memory budget. Device terms are GPU memory with the CUDA backend and host memory
 * with the CPU backend (then host_total includes them). */
typedef enum genesis_workload {
    GENESIS_WORKLOAD_FIT = 0,     /* training: the table, its encoding, the network */
    GENESIS_WORKLOAD_SAMPLE = 1   /* generation: the network and the batch buffers */
} genesis_workload;

typedef struct genesis_memory_estimate {
    genesis_workload workload;
    int64_t batch_rows;            /* training batch, or rows per sampling batch */
    int on_device;                 /* 1: the network is in GPU memory (CUDA backend) */
    int exact;                     /* 1: from a fitted model's layout; 0: before fit, an upper
                                      bound on the encoded width (modes are found by fit) */
    int data_dim, cond_dim;        /* encoded row and conditional vector widths used */
    /* the network (device) */
    uint64_t parameters;           /* weights and batch-norm statistics */
    uint64_t optimizer;            /* gradients, Adam moments, training index buffers */
    uint64_t activations;          /* the activation arena at batch_rows */
    uint64_t activations_per_row;
    uint64_t workspace;            /* cuBLAS workspace (GPU) or BLAS buffers (CPU) */
    /* host */
    uint64_t table;                /* the table as read (column store), fit only */
    uint64_t encoded_data;         /* encoded rows + sampler index (fit), kept while training */
    uint64_t transform_fit;        /* transient while fitting the column transformers */
    uint64_t output_buffers;       /* sampling: the double-buffered batches (generator output,
                                      decoded rows) and the CSV formatting blocks */
    uint64_t output_per_row;
    uint64_t runtime;              /* the process itself: code, C and BLAS runtimes */
    uint64_t device_total;         /* GPU memory needed (0 with the CPU backend) */
    uint64_t host_total;           /* peak host memory of the process */
} genesis_memory_estimate;

/*! genesis_estimate_memory() : bytes for `w` with model `m` (its kind and settings; fitted or
 *  not) on table `t` (needed for FIT and for an unfitted model; may be NULL for SAMPLE with a
 *  fitted model). batch_rows 0 = the model's batch size (FIT) or the size
 *  genesis_optimize_batch_size picks (SAMPLE). */
GENESIS_API genesis_status genesis_estimate_memory(const genesis_model *m, const genesis_table *t,
                                                   genesis_workload w, int64_t batch_rows,
                                                   genesis_memory_estimate *out);
/*! genesis_estimate_sampling() : genesis_estimate_memory(m, t, GENESIS_WORKLOAD_SAMPLE,
 *  batch_rows, out) for a run that writes `n` rows (TimeGAN: sequences; 0 = any number, the
 *  same as genesis_estimate_memory): as the sampling pipeline, the batch is no larger than n
 *  needs, and when n rows fit in one batch only that batch is counted (the pipeline allocates
 *  the second buffer of its double buffering only when a second batch follows). */
GENESIS_API genesis_status genesis_estimate_sampling(const genesis_model *m, const genesis_table *t,
                                                     int64_t n, int64_t batch_rows,
                                                     genesis_memory_estimate *out);
/*! genesis_ctx_set_memory_budget() : the memory workloads of this context may plan for:
 *  `fraction` (0 < f <= 1, default 0.8) of the memory available now, and at most
 *  `limit_bytes` (0 = no limit) in all. Sampling sizes its batches to fit; fit refuses, with
 *  the batch size that would fit, a configuration that does not. */
GENESIS_API genesis_status genesis_ctx_set_memory_budget(genesis_ctx *ctx, double fraction,
                                                         uint64_t limit_bytes);
/*! genesis_memory_budget() : the budget in bytes now for the model's device (GPU memory for
 *  the CUDA backend, host memory for the CPU backend), and what is available there. */
GENESIS_API genesis_status genesis_memory_budget(const genesis_model *m, uint64_t *budget,
                                                 uint64_t *available);
/*! genesis_optimize_batch_size() : the largest batch that fits the budget: rows per sampling
 *  batch (SAMPLE: a multiple of the generation group, at most 32768 on the CPU and 1048576
 *  on a GPU) or the largest training batch (FIT: a multiple of pac, at most the table's
 *  rows). GENESIS_ERR_NOMEM with the bytes needed when not even the smallest fits. */
GENESIS_API genesis_status genesis_optimize_batch_size(const genesis_model *m,
                                                       const genesis_table *t,
                                                       genesis_workload w, int64_t *batch_rows);
/*! genesis_memory_usage() : what the process holds now and at its peak (resident set, from
 *  /proc), and the GPU memory in use on the model's device (total - free; 0 on the CPU).
 *  Any pointer may be NULL; `m` may be NULL for the host figures only. */
GENESIS_API genesis_status genesis_memory_usage(const genesis_model *m, uint64_t *host_rss,
                                                uint64_t *host_peak, uint64_t *device_used);
/*! genesis_host_memory() : the host's memory and what is available now (MemAvailable),
 *  both capped by a cgroup limit when one applies; 0 when unknown. */
GENESIS_API genesis_status genesis_host_memory(uint64_t *total, uint64_t *available);
/*! genesis_parse_bytes() : "8GB", "512MiB", "1.5g", "100000" -> bytes (K/M/G/T = 1024^n).
 *  @return GENESIS_OK or GENESIS_ERR_INVALID_ARG. */
GENESIS_API genesis_status genesis_parse_bytes(const char *text, uint64_t *bytes);
/*! genesis_model_set_target() : DDPM only, before fit: the denoiser is conditioned on the
 *  class label in categorical column `column` (TabDDPM's p(x | y), docs/ddpm.md): the label
 *  is embedded and added to the timestep embedding, and sampling draws it from its share in
 *  the training rows. The column must exist and be categorical (else, at fit,
 *  GENESIS_ERR_INVALID_ARG naming it). NULL = unconditional (the default). Other methods:
 *  GENESIS_ERR_UNSUPPORTED. A model file keeps the target. */
GENESIS_API genesis_status genesis_model_set_target(genesis_model *m, const char *column);

/*! genesis_model_set_sequence_columns() : TimeGAN only, before fit: `entity` names the
 *  column that identifies each series of panel data (NULL: the file is one long series),
 *  `time` the numeric column that orders rows (NULL: file order; a single series without
 *  it is reversed as the reference's loader does). Names are copied. Sequences are
 *  GENESIS_P_SEQ_LEN steps long; docs/timegan.md §5 has the preprocessing. TimeGAN models
 *  sample through every sampling call, where n counts sequences (each seq_len rows; the
 *  entity or a "sequence" id column and the time column are among the decoded columns).
 *  @return GENESIS_OK, GENESIS_ERR_UNSUPPORTED (not TimeGAN), GENESIS_ERR_STATE (fitted),
 *  GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_model_set_sequence_columns(genesis_model *m,
                                                              const char *entity,
                                                              const char *time);

/*! genesis_model_set_calendar_columns() : TimeGAN only, before fit: the calendar columns
 *  (parts of a date or time of day: year, month, day, hour, ...), which are not modelled but
 *  written from the real window the generated sequence's time values are drawn from, so that
 *  they advance as the real ones do. `columns`: a comma-separated list, or "none" (every
 *  column a feature). Without this call (or with NULL) they are found by name: year, month,
 *  day, hour, minute, second, weekday, dayofweek, dow, week, weekofyear, quarter, dayofyear,
 *  doy, dayofmonth (case, '_' and spaces ignored) holding a whole number in every row; each
 *  found is reported at GENESIS_LOG_INFO. docs/timegan.md §5.
 *  @return GENESIS_OK, GENESIS_ERR_UNSUPPORTED (not TimeGAN), GENESIS_ERR_STATE (fitted),
 *  GENESIS_ERR_INVALID_ARG (""), GENESIS_ERR_NOMEM; a listed column that the table lacks or
 *  that is not a number in every row fails the fit with GENESIS_ERR_INVALID_ARG /
 *  GENESIS_ERR_DATA naming it */
GENESIS_API genesis_status genesis_model_set_calendar_columns(genesis_model *m, const char *columns);

/*! genesis_model_save() : writes a .gen model file (versioned, checksummed; temporary name
 *  then rename). genesis_model_load() reads one, checking every length before allocating;
 *  nothing in a model file is executed. */
GENESIS_API genesis_status genesis_model_save(const genesis_model *m, const char *path);
GENESIS_API genesis_status genesis_model_load(genesis_ctx *ctx, const char *path,
                                              genesis_model **out);

/* ---- sequence metrics (genesis evaluate --sequences) ------------------------------------ *
 * TimeGAN's discriminative and predictive scores (docs/algorithms.md §S8) between a real and a
 * synthetic table of sequences, both cut into seq_len windows the way TimeGAN's fit does
 * (docs/timegan.md §5) and scaled to [0, 1] with the real table's column ranges, as the
 * reference compares them. The synthetic table is grouped by the entity column (or by a
 * generated file's "sequence" column) into consecutive blocks of seq_len rows. */
typedef struct genesis_seq_eval_options {
    size_t struct_size;        /* set by _init */
    int seq_len;               /* 24 */
    const char *entity, *time; /* as genesis_model_set_sequence_columns; NULL = none */
    int repeats;               /* fresh post-hoc models per score, mean reported (10) */
    int disc_iterations;       /* 2000 */
    int pred_iterations;       /* 5000 */
    int real_baseline;         /* 1: also the predictive score of a model trained on the real
                                  sequences ("Original data" in the paper's Table 2); 0 */
} genesis_seq_eval_options;

GENESIS_API void genesis_seq_eval_options_init(genesis_seq_eval_options *o);

typedef struct genesis_seq_eval_result {
    double discriminative, discriminative_std; /* |0.5 - accuracy|, lower is better */
    double predictive, predictive_std;         /* MAE, lower is better; NaN if < 2 features */
    double predictive_real, predictive_real_std; /* the real-data baseline (NaN unless asked) */
    int64_t real_sequences, synthetic_sequences;
} genesis_seq_eval_result;

/*! genesis_evaluate_sequences() : both scores, on the context's device and seed.
 *  @return GENESIS_OK, GENESIS_ERR_DATA (too few sequences, missing columns),
 *  GENESIS_ERR_INVALID_ARG, GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_evaluate_sequences(genesis_ctx *ctx, const genesis_table *real,
                                                      const genesis_table *synthetic,
                                                      const genesis_seq_eval_options *o,
                                                      genesis_seq_eval_result *out);

/* ---- evaluation (genesis evaluate) ----------------------------------------------------- *
 * Quality, validity, privacy, detection and usefulness of a synthetic table against the
 * real table it imitates, computed as SDMetrics defines them (docs/evaluate.md):
 *
 *     genesis_eval_options o; genesis_eval_result *r;
 *     genesis_eval_options_init(&o);
 *     o.holdout = test; o.target = "income";            (both optional)
 *     genesis_evaluate(ctx, real, synthetic, &o, &r);
 *     printf("%f\n", genesis_eval_result_score(r, GENESIS_EVAL_QUALITY));
 *     genesis_eval_result_write_html(r, "report.html");
 *     genesis_eval_result_free(r);
 *
 * The synthetic (and holdout) table must have the real table's columns; its column types
 * follow the real table's (a categorical column of numbers is converted where the real one
 * is continuous). Read them with genesis_csv_options.max_categories = INT32_MAX to keep
 * every value's text exactly as written; the real table with the default typing. The
 * seed of the context fixes every random draw (subsamples, folds, the random baseline). */

/* Which parts to compute (bit set); 0 = all that the inputs allow. */
typedef enum genesis_eval_part {
    GENESIS_EVAL_PART_QUALITY = 1,     /* QualityReport: column shapes, pair trends;
                                          alpha-precision, beta-recall */
    GENESIS_EVAL_PART_VALIDITY = 2,    /* DiagnosticReport: data validity, data structure */
    GENESIS_EVAL_PART_PRIVACY = 4,     /* exact copies, NewRowSynthesis, DCR, DCR share */
    GENESIS_EVAL_PART_DETECTION = 8,   /* LogisticDetection, XGBoost detection */
    GENESIS_EVAL_PART_USEFULNESS = 16  /* TSTR (needs holdout and target); with XGBoost
                                          also its AUC (binary targets) */
} genesis_eval_part;

typedef struct genesis_eval_options {
    size_t struct_size;                /* set by _init */
    const genesis_table *holdout;      /* real rows not used for training; NULL = none
                                          (then no DCROverfittingProtection and no TSTR) */
    const char *target;                /* TSTR target column (categorical); NULL = none */
    const char *metadata_path;         /* JSON column types overriding the real table's:
                                          {"columns":[{"name":..,"type":"continuous"|...}]}
                                          (anything but "continuous"/"numerical" is
                                          categorical); NULL = the reader's types */
    unsigned parts;                    /* genesis_eval_part bits; 0 = all */
    int64_t subsample_rows;            /* contingency pairs: rows per table above which both
                                          are subsampled (SDMetrics: 50000); 0 = default */
    int64_t dcr_rows;                  /* synthetic rows used for DCR (seeded subsample when
                                          there are more); 0 = default 20000, -1 = all */
    int64_t detection_rows;            /* rows per table for detection; 0 = default 20000 */
    int64_t tstr_rows;                 /* training rows for TSTR; 0 = default 50000 */
    double correlation_threshold;      /* threshold mode: |Pearson_real| > this (0.5) */
    double association_threshold;      /* threshold mode: Cramer's V_real > this (0.3) */
    int64_t dcr_reference_rows;        /* DCROverfittingProtection's two reference sets:
                                          0 = default: the training and the holdout table
                                          are each sampled (seeded) to the smaller one's
                                          size, as SDMetrics' subsample mode compares equal
                                          sizes; N > 0: both sampled to min(N, sizes);
                                          -1 = both whole, whatever their sizes */
} genesis_eval_options;

GENESIS_API void genesis_eval_options_init(genesis_eval_options *o);

typedef struct genesis_eval_result genesis_eval_result;

/*! genesis_evaluate() : scores `synthetic` against `real`. `opts` may be NULL (defaults).
 *  Missing, extra or differently typed columns, an empty table and an unknown target are
 *  GENESIS_ERR_DATA / GENESIS_ERR_INVALID_ARG with a message naming the column.
 *  @return GENESIS_OK, GENESIS_ERR_INVALID_ARG, GENESIS_ERR_DATA, GENESIS_ERR_IO (metadata
 *  file), GENESIS_ERR_PARSE (metadata JSON), GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_evaluate(genesis_ctx *ctx, const genesis_table *real,
                                            const genesis_table *synthetic,
                                            const genesis_eval_options *opts,
                                            genesis_eval_result **out);
GENESIS_API void genesis_eval_result_free(genesis_eval_result *r);

/* Headline scores; all in [0, 1], higher is better, NaN when not computed. */
typedef enum genesis_eval_score {
    GENESIS_EVAL_QUALITY = 0,            /* overall quality, all pairs (pre-2026 SDMetrics) */
    GENESIS_EVAL_QUALITY_THRESHOLD = 1,  /* overall quality, 2026 threshold mode */
    GENESIS_EVAL_COLUMN_SHAPES = 2,
    GENESIS_EVAL_PAIR_TRENDS = 3,        /* all pairs */
    GENESIS_EVAL_PAIR_TRENDS_THRESHOLD = 4, /* strongly related real pairs only */
    GENESIS_EVAL_VALIDITY = 5,           /* DiagnosticReport overall */
    GENESIS_EVAL_DATA_VALIDITY = 6,
    GENESIS_EVAL_DATA_STRUCTURE = 7,
    GENESIS_EVAL_EXACT_COPY_RATE = 8,    /* fraction of synthetic rows equal to a real row
                                            (lower is better: the one exception) */
    GENESIS_EVAL_NEW_ROW_SYNTHESIS = 9,
    GENESIS_EVAL_DCR_BASELINE = 10,      /* DCRBaselineProtection */
    GENESIS_EVAL_DCR_OVERFITTING = 11,   /* DCROverfittingProtection (holdout) */
    GENESIS_EVAL_DETECTION = 12,         /* LogisticDetection: 1 - (2 max(AUC, .5) - 1) */
    GENESIS_EVAL_TSTR_LOGISTIC = 13,     /* F1 / macro F1 on the holdout, trained on synth. */
    GENESIS_EVAL_TSTR_MLP = 14,
    GENESIS_EVAL_TRTR_LOGISTIC = 15,     /* the same models trained on the real table */
    GENESIS_EVAL_TRTR_MLP = 16,
    GENESIS_EVAL_DETECTION_XGBOOST = 17, /* XGBoost detection (3 folds): 1 - mean over
                                            folds of (2 max(AUC, .5) - 1); NaN when built
                                            without XGBoost (docs/evaluate.md) */
    GENESIS_EVAL_ALPHA_PRECISION = 18,   /* alpha-precision, synthcity's "naive" form */
    GENESIS_EVAL_BETA_RECALL = 19,       /* beta-recall, synthcity's "naive" form */
    GENESIS_EVAL_DCR_SHARE = 20,         /* share of synthetic rows closer (L1) to the
                                            training rows than to the holdout rows (needs a
                                            holdout): 0.5 is ideal, not 1 */
    GENESIS_EVAL_TSTR_XGBOOST_AUC = 21,  /* ROC AUC on the holdout of XGBoost trained on the
                                            synthetic rows (binary targets; TabSyn's grid) */
    GENESIS_EVAL_TRTR_XGBOOST_AUC = 22,  /* the same trained on the real rows */
    GENESIS_EVAL_DCR_SHARE_EQUAL = 23    /* the DCR share brought to reference tables of one
                                            size (its odds times holdout / training rows): 0.5
                                            for rows exchangeable with the real ones whatever
                                            the split, 1 for copies of training rows */
} genesis_eval_score;

/*! genesis_eval_result_score() : a headline score, NaN when it was not computed. */
GENESIS_API double genesis_eval_result_score(const genesis_eval_result *r,
                                             genesis_eval_score which);

/* Per-column details (Column Shapes and Data Validity). Strings live as long as r. */
typedef struct genesis_eval_column {
    const char *name;
    int continuous;
    const char *shape_metric;     /* "KSComplement" or "TVComplement" */
    double shape;                 /* NaN when incomputable */
    const char *validity_metric;  /* "BoundaryAdherence" or "CategoryAdherence" */
    double validity;
} genesis_eval_column;
GENESIS_API int genesis_eval_result_ncolumns(const genesis_eval_result *r);
GENESIS_API genesis_status genesis_eval_result_column(const genesis_eval_result *r, int i,
                                                      genesis_eval_column *out);

/* Per-pair details (Column Pair Trends). */
typedef struct genesis_eval_pair {
    const char *column1, *column2;
    const char *metric;           /* "CorrelationSimilarity" or "ContingencySimilarity" */
    double score;                 /* NaN when incomputable */
    double real_correlation, synthetic_correlation; /* correlation pairs, else NaN */
    double real_association;      /* Cramer's V of the real table, contingency pairs */
    int meets_threshold;          /* counts in the threshold mode */
} genesis_eval_pair;
GENESIS_API int genesis_eval_result_npairs(const genesis_eval_result *r);
GENESIS_API genesis_status genesis_eval_result_pair(const genesis_eval_result *r, int i,
                                                    genesis_eval_pair *out);

/* How DCROverfittingProtection's reference sets were sized (docs/evaluate.md). */
typedef struct genesis_eval_dcr_info {
    int64_t synthetic_rows;        /* synthetic rows compared */
    int64_t training_rows, holdout_rows;   /* reference rows used on each side */
    int64_t training_total, holdout_total; /* rows of the training and holdout tables */
    int equal_size;                /* 1: both sides were sampled to one size */
    const char *warning;           /* NULL, or why the score is unreliable (lives as long
                                      as the result) */
} genesis_eval_dcr_info;

/*! genesis_eval_result_dcr_overfitting() : the reference-set sizes behind
 *  GENESIS_EVAL_DCR_OVERFITTING. @return GENESIS_OK, or GENESIS_ERR_INVALID_ARG when no
 *  holdout was scored */
GENESIS_API genesis_status genesis_eval_result_dcr_overfitting(const genesis_eval_result *r,
                                                               genesis_eval_dcr_info *out);

/*! genesis_eval_result_json() : every score and detail as one JSON document (owned by r,
 *  valid until genesis_eval_result_free); NULL on out of memory. */
GENESIS_API const char *genesis_eval_result_json(genesis_eval_result *r);

/*! genesis_eval_result_write_html() : a self-contained HTML report (inline CSS and SVG; no
 *  script, no network): headline scores, real vs synthetic distribution of every column,
 *  pair-trend heat map. Written under a temporary name, then renamed.
 *  @return GENESIS_OK, GENESIS_ERR_IO, GENESIS_ERR_NOMEM */
GENESIS_API genesis_status genesis_eval_result_write_html(const genesis_eval_result *r,
                                                          const char *path);

#ifdef __cplusplus
}
#endif
#endif /* GENESIS_H */
