/*
 * estimate.c — the memory model: genesis_estimate_memory (bytes per term for fit and for
 * sampling), the memory budget of a context, and genesis_optimize_batch_size, which turns
 * the two into a batch size. Each term counts what the code allocates:
 *   network      the model's own size tables (ctgan_memory / tvae_memory via the vtable);
 *   table        the column store of table.h (doubles, int32 codes, level strings);
 *   encoded      gen_encoded (an int32 slot per cell, a float alpha per continuous cell) and
 *                the conditional sampler's row lists (CTGAN) or the row permutation (TVAE);
 *                on a GPU a second copy of the encoded cells in device memory (dev_table.c);
 *   transform    per continuous column being fitted: the values and remainders (2 doubles
 *                per row) and the mixture fit on at most vgm-max-rows values (k-means
 *                buffers, 32 bytes per value, vgm.c); as many columns at once as threads;
 *   sampling     two batches in flight (generator output floats and decoded rows), one when
 *                the rows asked for fit in one batch (the pipeline then never allocates the
 *                second; genesis_estimate_sampling), and the CSV formatting blocks (sample_size.c; the pipeline, sample_stream.c, calls
 *                this file to size its batches, never the other way); with several sampling
 *                devices (genesis_model_set_sample_devices) each device's batches in flight
 *                (at most two each) and each copy of the generator: on the CPU its network
 *                and BLAS buffers, on GPUs device_total is what each GPU holds.
 * The derivation and the measured check (peak RSS / cudaMemGetInfo): docs/memory.md.
 */
#include <math.h>
#include <string.h>

#include "backend.h"
#include "dev_table.h"
#include "estimate.h"
#include "sample_size.h"
#include "sampler.h"
#include "sysmem.h"
#include "table.h"

#define DEFAULT_FRACTION 0.8
/* The process before any data: code, libc, OpenMP and OpenBLAS runtimes (measured on the
 * CPU machine with bench/bench_memory: docs/memory.md). */
#define RUNTIME_BYTES (UINT64_C(5) << 20)
/* OpenBLAS's per-thread GEMM buffer, touched by the first product of each thread. */
#define BLAS_THREAD_BYTES (UINT64_C(1) << 20)
/* cuBLAS workspace and the CUDA context with the libraries' kernels loaded: measured once, on
 * an H200 (CUDA 13.0, 2026-11-26): 1276 MiB in use at the generation peak, less about 614 MiB
 * the driver reserves before any process (NVML), less this backend's own 40 MiB, leaves about
 * 620 MiB (docs/memory.md). */
#define CUBLAS_WORKSPACE_BYTES (UINT64_C(32) << 20)
#define CUDA_CONTEXT_BYTES (UINT64_C(640) << 20)
/* Host memory of the CUDA runtime, cuBLAS and cuRAND once loaded (222 MB resident measured
 * when they were linked into the CLI without a GPU; with a context it is more: unverified). */
#define CUDA_HOST_RUNTIME_BYTES (UINT64_C(256) << 20)

static int on_gpu(const genesis_model *m) {
    return m->be && m->be->ops && strcmp(m->be->ops->name, "cpu") != 0;
}

/* The column store of table.h: malloc rounds small blocks to 16 bytes plus a header. */
static uint64_t table_bytes(const genesis_table *t) {
    uint64_t b = 0, n = (uint64_t)t->nrows;
    for (int c = 0; c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            b += 8 * n;
        } else {
            b += 4 * n + 8 * (uint64_t)col->nlevels;
            for (int32_t l = 0; l < col->nlevels; l++)
                b += ((col->levels[l] ? strlen(col->levels[l]) : 0) + 1 + 8 + 15) / 16 * 16;
        }
    }
    return b;
}

/* Encoded widths: exact from a fitted transformer; from a table, categorical widths are exact
 * (levels kept, pooled rare slot, missing slot) and continuous ones an upper bound (1 + modes
 * + point masses + null slot). *mode_extra: the continuous columns' slots beyond the first
 * (gen_net_shape). */
static void widths(const genesis_model *m, const genesis_table *t, int *data_dim, int *cond_dim,
                   int *max_cat, int *n_disc, int *mode_extra) {
    *data_dim = *cond_dim = *max_cat = *n_disc = *mode_extra = 0;
    if (m->fitted) {
        for (int c = 0; c < m->tf.ncols; c++) {
            const gen_col_transform *ct = &m->tf.cols[c];
            if (ct->type == GENESIS_COLUMN_CONTINUOUS && ct->width > 2) *mode_extra += ct->width - 2;
            if (ct->type != GENESIS_COLUMN_CATEGORICAL) continue;
            *cond_dim += ct->width;
            (*n_disc)++;
            if (ct->width > *max_cat) *max_cat = ct->width;
        }
        *data_dim = gen_model_row_dim(m);
        return;
    }
    int cap = gen_param_i(m, GENESIS_P_MAX_CATEGORIES);
    /* a quantile-normalised column has one mode */
    int modes = gen_param_i(m, GENESIS_P_QUANTILE) ? 1 : gen_param_i(m, GENESIS_P_MAX_MODES);
    int points = gen_param_i(m, GENESIS_P_POINT_MASSES) ? GEN_MAX_POINTS : 0;
    for (int c = 0; c < t->ncols; c++) {
        const gen_column *col = &t->cols[c];
        if (col->type == GENESIS_COLUMN_CONTINUOUS) {
            *data_dim += 1 + modes + points + (col->nmissing > 0);
            *mode_extra += modes + points + (col->nmissing > 0) - 1;
        } else {
            int w = (col->nlevels > cap ? cap : col->nlevels) + (col->nmissing > 0);
            if (w < 1) w = 1;
            *data_dim += w;
            *cond_dim += w;
            (*n_disc)++;
            if (w > *max_cat) *max_cat = w;
        }
    }
}

/* Host bytes of the data while training: encoded cells, and the sampler or permutation. */
static uint64_t encoded_bytes(const genesis_model *m, const genesis_table *t, int max_cat,
                              int n_disc) {
    uint64_t n = (uint64_t)t->nrows, b = 0;
    for (int c = 0; c < t->ncols; c++)
        b += 4 * n + (t->cols[c].type == GENESIS_COLUMN_CONTINUOUS ? 4 * n : 0);
    if (m->vt->draw_bytes) b += m->vt->draw_bytes(m, n, n_disc, max_cat);
    return b;
}

static uint64_t transform_fit_bytes(const genesis_model *m, const genesis_table *t) {
    int ncont = 0;
    for (int c = 0; c < t->ncols; c++) ncont += t->cols[c].type == GENESIS_COLUMN_CONTINUOUS;
    int threads = gen_ctx_threads(m->ctx);
    int conc = ncont < threads ? ncont : threads;
    uint64_t n = (uint64_t)t->nrows;
    int64_t vmax = (int64_t)m->param[GENESIS_P_VGM_MAX_ROWS];
    uint64_t nv = (vmax > 0 && (uint64_t)vmax < n) ? (uint64_t)vmax : n;
    return (uint64_t)conc * (16 * n + 32 * nv);
}

static int table_fits_model(const genesis_model *m, const genesis_table *t) {
    if (!m->fitted) return 1;
    if (t->ncols != m->tf.ncols) return 0;
    for (int c = 0; c < t->ncols; c++)
        if (t->cols[c].type != m->tf.cols[c].type) return 0;
    return 1;
}

/* n: rows a sampling run writes (0: unknown, as many batches as it takes). */
static genesis_status estimate(const genesis_model *m, const genesis_table *t, genesis_workload w,
                               int64_t batch_rows, int64_t n, genesis_memory_estimate *out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    genesis_ctx *ctx = m->ctx;
    memset(out, 0, sizeof *out);
    GEN_RETURN_IF(w != GENESIS_WORKLOAD_FIT && w != GENESIS_WORKLOAD_SAMPLE, ctx,
                  GENESIS_ERR_INVALID_ARG, "unknown workload %d (FIT = 0, SAMPLE = 1)", (int)w);
    GEN_RETURN_IF(batch_rows < 0, ctx, GENESIS_ERR_INVALID_ARG,
                  "batch rows must be >= 0 (0 = automatic), got %lld", (long long)batch_rows);
    GEN_RETURN_IF(!t && (w == GENESIS_WORKLOAD_FIT || !m->fitted), ctx, GENESIS_ERR_INVALID_ARG,
                  "estimating %s needs the table (the model is %s)",
                  w == GENESIS_WORKLOAD_FIT ? "training" : "generation",
                  m->fitted ? "fitted" : "not fitted yet");
    GEN_RETURN_IF(t && !table_fits_model(m, t), ctx, GENESIS_ERR_INVALID_ARG,
                  "the table's columns differ from the ones the model was fitted on");
    GEN_RETURN_IF(!m->vt->memory, ctx, GENESIS_ERR_UNSUPPORTED,
                  "the memory model does not cover %s yet", m->vt->name);
    out->workload = w;
    out->on_device = on_gpu(m);
    out->exact = m->fitted;
    int max_cat, n_disc, mode_extra;
    widths(m, t, &out->data_dim, &out->cond_dim, &max_cat, &n_disc, &mode_extra);
    int threads = gen_ctx_threads(m->ctx);
    out->runtime = RUNTIME_BYTES;
    out->workspace = out->on_device ? CUBLAS_WORKSPACE_BYTES
                                    : BLAS_THREAD_BYTES * (uint64_t)(threads + 1);

    gen_net_shape sh = {gen_param_i(m, GENESIS_P_BATCH_SIZE), out->data_dim, out->cond_dim,
                        m->fitted ? !m->loaded : 1, 0, mode_extra, 0};
    int lanes = w == GENESIS_WORKLOAD_SAMPLE ? gen_sample_lanes(m) : 1; /* sampling devices */
    if (w == GENESIS_WORKLOAD_FIT) {
        if (batch_rows > 0) sh.batch = (int)(batch_rows < (1 << 30) ? batch_rows : (1 << 30));
        sh.train = 1;
        sh.nrows = t->nrows;
        out->batch_rows = sh.batch;
        out->table = table_bytes(t);
        out->encoded_data = encoded_bytes(m, t, max_cat, n_disc);
        out->transform_fit = transform_fit_bytes(m, t);
    } else {
        int64_t C = batch_rows;
        if (C == 0) {
            genesis_status st = genesis_optimize_batch_size(m, t, GENESIS_WORKLOAD_SAMPLE, &C);
            if (st != GENESIS_OK) return st;
        }
        C = gen_sample_round_batch(m, C);
        sh.sample_rows = (int)gen_sample_group(m);
        /* as genesis_sampler_create: no bigger than n needs, and a second batch in flight
         * only when one follows */
        if (n > 0 && C > n) C = gen_sample_round_batch(m, n);
        /* batch j is lane j mod lanes'; a lane holds two of its batches in flight, one when
         * only one is its (as genesis_sampler_create allocates) */
        int64_t nb = n > 0 ? (n + C - 1) / C : 2 * (int64_t)lanes, inflight = 0;
        if (n > 0 && lanes > nb) lanes = (int)nb; /* as the pipeline: no idle device */
        for (int k = 0; k < lanes; k++) {
            int64_t mine = nb > k ? (nb - k + lanes - 1) / lanes : 0;
            inflight += mine > 1 ? 2 : mine;
        }
        out->batch_rows = C;
        out->output_per_row = (uint64_t)inflight * gen_sample_bytes_per_row(m, out->data_dim, t);
        out->output_buffers = out->output_per_row * (uint64_t)out->batch_rows +
                              gen_sample_fixed_bytes(m, threads);
    }
    gen_net_bytes nb;
    memset(&nb, 0, sizeof nb); /* a model without products leaves the operand counts 0 */
    m->vt->memory(m, &sh, &nb);
    /* mixed precision (docs/precision.md): the operand copies of the largest product, in the
     * workspace. The CPU rounds (or expands) every operand into FP32 copies (every reduced
     * precision); the CUDA backend converts to 16 bits (BF16/FP16) only the operands stored
     * FP32, and reads the activations stored in 16 bits as they are; TF32 rounds every
     * operand into FP32 copies (cuda/backend_cuda.cu, k_to_tf32). The activations stored in
     * 16 bits are already in nb.acts at 2 bytes. */
    int prec = gen_param_i(m, GENESIS_P_PRECISION);
    if (out->on_device)
        out->workspace += prec == GEN_PREC_BF16 || prec == GEN_PREC_FP16 ? 2 * nb.gemm_convert
                          : prec == GEN_PREC_TF32                        ? 4 * nb.gemm_operands
                                                                         : 0;
    else
        out->workspace += prec != GEN_PREC_FP32 ? 4 * nb.gemm_operands : 0;
    out->parameters = nb.params;
    out->optimizer = nb.optimizer;
    out->activations = nb.acts;
    gen_net_shape one = sh;
    one.batch = 1;
    gen_net_bytes n1;
    m->vt->memory(m, &one, &n1);
    gen_net_shape two = sh;
    two.batch = 2;
    gen_net_bytes n2;
    m->vt->memory(m, &two, &n2);
    out->activations_per_row = n2.acts - n1.acts;
    uint64_t net = nb.params + nb.optimizer + nb.acts;
    /* the phases of fit do not overlap: the transformer's buffers are freed before encoding */
    uint64_t fit_phase = out->transform_fit > out->encoded_data + nb.host
                             ? out->transform_fit
                             : out->encoded_data + nb.host;
    if (out->on_device) {
        /* training on a GPU keeps the encoded table there too (dev_table.c) */
        if (w == GENESIS_WORKLOAD_FIT) {
            int ncont = 0;
            for (int c = 0; c < t->ncols; c++)
                ncont += t->cols[c].type == GENESIS_COLUMN_CONTINUOUS;
            net += gen_resident_table_bytes(0, t->nrows, t->ncols, ncont);
        }
        out->device_total = CUDA_CONTEXT_BYTES + out->workspace + net; /* on each GPU */
        out->runtime += CUDA_HOST_RUNTIME_BYTES;
        out->host_total = out->runtime + out->table + fit_phase * lanes + out->output_buffers;
    } else { /* every sampling lane holds its own network, scratch and BLAS buffers */
        out->host_total = out->runtime + (out->workspace + net + fit_phase) * lanes +
                          out->table + out->output_buffers;
    }
    return GENESIS_OK;
}

genesis_status genesis_estimate_memory(const genesis_model *m, const genesis_table *t,
                                       genesis_workload w, int64_t batch_rows,
                                       genesis_memory_estimate *out) {
    return estimate(m, t, w, batch_rows, 0, out);
}

genesis_status genesis_estimate_sampling(const genesis_model *m, const genesis_table *t,
                                         int64_t n, int64_t batch_rows,
                                         genesis_memory_estimate *out) {
    if (!m || !out) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(n < 0, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "rows to sample must be >= 0 (0 = any number), got %lld", (long long)n);
    /* a sequence model counts sequences of seq-len rows, as the pipeline does */
    int64_t unit = gen_model_unit_rows(m);
    GEN_RETURN_IF(n > INT64_MAX / unit, m->ctx, GENESIS_ERR_INVALID_ARG,
                  "%lld sequences of %lld rows are too many rows", (long long)n, (long long)unit);
    return estimate(m, t, GENESIS_WORKLOAD_SAMPLE, batch_rows, n * unit, out);
}

/* ---- budget --------------------------------------------------------------------------- */

genesis_status genesis_ctx_set_memory_budget(genesis_ctx *ctx, double fraction,
                                             uint64_t limit_bytes) {
    if (!ctx) return GENESIS_ERR_INVALID_ARG;
    GEN_RETURN_IF(!(fraction > 0 && fraction <= 1), ctx, GENESIS_ERR_INVALID_ARG,
                  "the memory fraction must be in (0, 1], got %g (e.g. 0.8 = 80%% of free "
                  "memory)",
                  fraction);
    ctx->mem_fraction = fraction;
    ctx->mem_limit = limit_bytes;
    ctx->mem_budget_set = 1;
    return GENESIS_OK;
}

genesis_status genesis_memory_budget(const genesis_model *m, uint64_t *budget,
                                     uint64_t *available) {
    if (!m) return GENESIS_ERR_INVALID_ARG;
    const genesis_ctx *ctx = m->ctx;
    double f = ctx->mem_fraction > 0 ? ctx->mem_fraction : DEFAULT_FRACTION;
    uint64_t avail = 0, ours = 0;
    if (on_gpu(m)) {
        genesis_device_info dev[16];
        int n = 0;
        genesis_detect_devices(dev, 16, &n, NULL, 0);
        int idx = ctx->backend_gpu > 0 ? ctx->backend_gpu - 1 : 0;
        for (int i = 0; i < n; i++)
            if (dev[i].index == idx) avail = dev[i].free_memory;
    } else {
        avail = gen_host_available_bytes();
        ours = gen_rss_bytes(); /* what this process holds is ours to plan with */
    }
    uint64_t b = (uint64_t)(f * (double)(avail + ours));
    if (ctx->mem_limit > 0 && (b == 0 || ctx->mem_limit < b)) b = ctx->mem_limit;
    if (budget) *budget = b;
    if (available) *available = avail;
    return GENESIS_OK;
}

static void fmt_bytes(char *buf, size_t cap, uint64_t b) {
    if (b >= (UINT64_C(1) << 30)) snprintf(buf, cap, "%.2f GiB", (double)b / 1073741824.0);
    else snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
}

/* Total bytes the budget is compared with: device memory on a GPU, host memory on the CPU. */
static uint64_t budget_total(const genesis_memory_estimate *e) {
    return e->on_device ? e->device_total : e->host_total;
}

/* The largest multiple of `step` (at most `cap`) whose total fits `budget`: totals are linear
 * in the batch, so two estimates give the base and the cost per step. */
static genesis_status largest_fitting(const genesis_model *m, const genesis_table *t,
                                      genesis_workload w, int64_t step, int64_t cap,
                                      uint64_t budget, const char *what, int64_t *out) {
    genesis_memory_estimate lo, hi;
    GEN_TRY(genesis_estimate_memory(m, t, w, step, &lo));
    GEN_TRY(genesis_estimate_memory(m, t, w, 2 * step, &hi));
    uint64_t base = budget_total(&lo), per = budget_total(&hi) - base;
    if (base > budget) {
        char need[32], have[32];
        fmt_bytes(need, sizeof need, base);
        fmt_bytes(have, sizeof have, budget);
        return gen_set_error(m->ctx, GENESIS_ERR_NOMEM,
                             "%s needs at least %s but the memory budget is %s; raise "
                             "`genesis_ctx_set_memory_budget(limit_bytes)` or "
                             "`genesis_ctx_set_memory_budget(fraction)`, or free memory",
                             what, need, have);
    }
    int64_t k = per ? (int64_t)((budget - base) / per) + 1 : cap / step;
    *out = k * step > cap ? cap : k * step;
    return GENESIS_OK;
}

genesis_status genesis_optimize_batch_size(const genesis_model *m, const genesis_table *t,
                                           genesis_workload w, int64_t *batch_rows) {
    if (!m || !batch_rows) return GENESIS_ERR_INVALID_ARG;
    uint64_t budget = 0, avail = 0;
    GEN_TRY(genesis_memory_budget(m, &budget, &avail));
    if (budget == 0) budget = UINT64_C(1) << 30; /* unknown: plan for 1 GiB */
    char what[160];
    if (w == GENESIS_WORKLOAD_SAMPLE) {
        int64_t g = gen_sample_group(m);
        int64_t cap = on_gpu(m) ? (INT64_C(1) << 20) : 32768;
        cap = cap / g * g > g ? cap / g * g : g;
        snprintf(what, sizeof what, "generation (the model and one batch of %lld rows)", (long long)g);
        return largest_fitting(m, t, w, g, cap, budget, what, batch_rows);
    }
    GEN_RETURN_IF(!t, m->ctx, GENESIS_ERR_INVALID_ARG, "sizing a training batch needs the table");
    int64_t step = m->vt->batch_step ? m->vt->batch_step(m) : 1;
    if (step < 1) step = 1;
    int64_t maxb = t->nrows < (1 << 20) ? t->nrows : (1 << 20);
    maxb = maxb / step * step;
    if (maxb < 2 * step) maxb = 2 * step;
    snprintf(what, sizeof what, "training (the table, its encoding and the network)");
    return largest_fitting(m, t, w, step, maxb, budget, what, batch_rows);
}

genesis_status genesis_parse_bytes(const char *text, uint64_t *bytes) {
    if (!text || !bytes) return GENESIS_ERR_INVALID_ARG;
    return gen_parse_bytes(text, bytes) == 0 ? GENESIS_OK : GENESIS_ERR_INVALID_ARG;
}

genesis_status gen_check_fit_budget(genesis_model *m, const genesis_table *t) {
    genesis_ctx *ctx = m->ctx;
    if (!m->vt->memory) return GENESIS_OK;
    genesis_memory_estimate e;
    GEN_TRY(genesis_estimate_memory(m, t, GENESIS_WORKLOAD_FIT, 0, &e));
    uint64_t budget = 0, avail = 0;
    GEN_TRY(genesis_memory_budget(m, &budget, &avail));
    uint64_t need = budget_total(&e);
    if (budget == 0 || need <= budget) return GENESIS_OK;
    char nb[32], bb[32];
    fmt_bytes(nb, sizeof nb, need);
    fmt_bytes(bb, sizeof bb, budget);
    if (!ctx->mem_budget_set) { /* no budget asked for: a warning, the run may still fit */
        gen_log(ctx, GENESIS_LOG_WARN,
                "training is estimated to need %s, more than 80%% of the memory available "
                "(%s); it may run out of memory",
                nb, bb);
        return GENESIS_OK;
    }
    int64_t fit = 0;
    genesis_status st = genesis_optimize_batch_size(m, t, GENESIS_WORKLOAD_FIT, &fit);
    if (st != GENESIS_OK) return st;
    return gen_set_error(ctx, GENESIS_ERR_NOMEM,
                         "training with batch size %d is estimated to need %s but the memory "
                         "budget is %s; use `batch-size` %lld or less, or raise "
                         "`genesis_ctx_set_memory_budget(limit_bytes)`",
                         gen_param_i(m, GENESIS_P_BATCH_SIZE), nb, bb, (long long)fit);
}

genesis_status genesis_memory_usage(const genesis_model *m, uint64_t *host_rss,
                                    uint64_t *host_peak, uint64_t *device_used) {
    if (host_rss) *host_rss = gen_rss_bytes();
    if (host_peak) *host_peak = gen_rss_peak_bytes();
    if (device_used) {
        *device_used = 0;
        if (m && on_gpu(m)) {
            genesis_device_info dev[16];
            int n = 0;
            genesis_detect_devices(dev, 16, &n, NULL, 0);
            int idx = m->ctx->backend_gpu > 0 ? m->ctx->backend_gpu - 1 : 0;
            for (int i = 0; i < n; i++)
                if (dev[i].index == idx) *device_used = dev[i].total_memory - dev[i].free_memory;
        }
    }
    return GENESIS_OK;
}

genesis_status genesis_host_memory(uint64_t *total, uint64_t *available) {
    if (total) *total = gen_host_total_bytes();
    if (available) *available = gen_host_available_bytes();
    return GENESIS_OK;
}
