/*
 * params.c — the self-describing parameter table: for every genesis_param its name (the CLI
 * flag without "--"), range, whether it takes whole numbers, whether it may change on a
 * fitted model (the sampling-time settings), a generic default and a one-line help. Which
 * kinds use a setting, and their defaults, each model declares itself (its vtable's params
 * table in models/, found through the registry): this file names no model. A kind keeps a
 * value for every setting, used or not, because model files store them all
 * (docs/file-format.md); a setting the kind does not list keeps the generic default. The CLI
 * builds its flags, its help and its per-method checks from this table
 * (genesis_param_get_info), and genesis_model_set_param checks values against it.
 */
#include <math.h>
#include <string.h>

#include "model_types.h"
#include "params.h"
#include "registry.h"

typedef struct param_row {
    const char *name;
    double lo, hi;
    int integer;
    int after_fit;    /* may change on a fitted model (sampling only) */
    double def;       /* the generic default: of a kind that does not list the setting */
    const char *help;
} param_row;

static const param_row PARAMS[GEN_NPARAMS] = {
    [GENESIS_P_EPOCHS] = {"epochs", 1, 1e6, 1, 0, 300, "training epochs"},
    [GENESIS_P_BATCH_SIZE] = {"batch-size", 2, 1 << 20, 1, 0, 500,
                              "rows (TimeGAN: sequences) per step; CTGAN: a multiple of pac"},
    [GENESIS_P_EMBEDDING_DIM] = {"embedding-dim", 1, 4096, 1, 0, 128,
                                 "latent (noise) width; DDPM: timestep embedding width"},
    [GENESIS_P_GEN_DIM] = {"generator-dim", 1, 8192, 1, 0, 256,
                           "generator (TVAE: encoder and decoder; DDPM: denoiser MLP) hidden width"},
    [GENESIS_P_DIS_DIM] = {"discriminator-dim", 1, 8192, 1, 0, 256,
                           "discriminator hidden width, two layers"},
    [GENESIS_P_GEN_LR] = {"generator-lr", 0, 1, 0, 0, 2e-4,
                          "generator learning rate (TVAE, TimeGAN: of every Adam; DDPM: AdamW)"},
    [GENESIS_P_DIS_LR] = {"discriminator-lr", 0, 1, 0, 0, 2e-4,
                          "discriminator learning rate"},
    [GENESIS_P_GEN_DECAY] = {"generator-decay", 0, 1, 0, 0, 1e-6,
                             "generator weight decay (L2; DDPM: AdamW's decoupled decay)"},
    [GENESIS_P_DIS_DECAY] = {"discriminator-decay", 0, 1, 0, 0, 1e-6,
                             "discriminator weight decay (L2)"},
    [GENESIS_P_PAC] = {"pac", 1, 1000, 1, 0, 10, "rows per discriminator input"},
    [GENESIS_P_DIS_STEPS] = {"discriminator-steps", 1, 100, 1, 0, 1,
                             "discriminator updates per generator update"},
    [GENESIS_P_LOG_FREQUENCY] = {"log-frequency", 0, 1, 1, 0, 1,
                                 "1: conditions drawn by log frequency; 0: by frequency"},
    [GENESIS_P_MAX_MODES] = {"max-modes", 1, GEN_MAX_MODES, 1, 0, 10,
                             "mixture modes per continuous column"},
    [GENESIS_P_MAX_CATEGORIES] = {"max-categories", 2, 1 << 20, 1, 0, 500,
                                  "levels kept per categorical column; rarer ones are pooled"},
    [GENESIS_P_POINT_MASSES] = {"point-masses", 0, 1, 1, 0, 1,
                                "1: heavily repeated values get exact slots"},
    [GENESIS_P_CLAMP_RANGE] = {"clamp-range", 0, 1, 1, 1, 1,
                               "1: outputs stay inside the real column's range"},
    [GENESIS_P_BN_EVAL_SAMPLE] = {"bn-eval-sample", 0, 1, 1, 1, 0,
                                  "1: batch norm uses running statistics when sampling"},
    [GENESIS_P_VGM_MAX_ROWS] = {"vgm-max-rows", 0, 2147483647.0, 1, 0, 200000,
                                "rows used to fit each column's mixture; 0 = all"},
    [GENESIS_P_LOSS_FACTOR] = {"loss-factor", 0, 1000, 0, 0, 2,
                               "weight of the reconstruction loss"},
    [GENESIS_P_SAMPLE_ARGMAX] = {"sample-argmax", 0, 1, 1, 1, 0,
                                 "1: categories by argmax (the reference); 0: drawn"},
    [GENESIS_P_SEQ_LEN] = {"seq-len", 2, 100000, 1, 0, 24,
                           "steps per sequence (window length)"},
    [GENESIS_P_HIDDEN_DIM] = {"hidden-dim", 1, 4096, 1, 0, 24,
                              "GRU width of all five networks"},
    [GENESIS_P_NUM_LAYERS] = {"num-layers", 2, 8, 1, 0, 3,
                              "GRU layers per network (supervisor: one fewer); DDPM: MLP hidden layers"},
    [GENESIS_P_ITERATIONS] = {"iterations", 1, 1e9, 1, 0, 50000,
                              "iterations of each of the three training phases; DDPM: optimiser steps"},
    [GENESIS_P_DIFFUSION_STEPS] = {"diffusion-steps", 2, 100000, 1, 0, 1000,
                                   "diffusion steps T of the forward process"},
    [GENESIS_P_SAMPLE_STEPS] = {"sample-steps", 0, 100000, 1, 1, 100,
                                "reverse steps when sampling; fewer than T: strided (DDIM); 0 = all T"},
    [GENESIS_P_NOISE_SCHEDULE] = {"noise-schedule", 0, 1, 1, 0, 1,
                                  "0: linear betas; 1: cosine (Nichol and Dhariwal)"},
    [GENESIS_P_ALPHA_PER_MODE] = {"alpha-per-mode", 0, 1, 1, 0, 0,
                                  "1: one alpha per mixture mode in the decoder; 0: one per column"},
    [GENESIS_P_EMA_DECAY] = {"ema-decay", 0, 0.99999, 0, 0, 0,
                             "decay of the weights' moving average that samples; 0 = none"},
    [GENESIS_P_LABEL_DROPOUT] = {"label-dropout", 0, 0.9, 0, 0, 0,
                                 "with --target: share of training rows whose class is hidden "
                                 "(learns what --guidance needs); 0 = none"},
    [GENESIS_P_GUIDANCE] = {"guidance", 0, 20, 0, 1, 0,
                            "with --target: classifier-free guidance weight w when sampling; "
                            "needs a model fitted with label-dropout > 0; 0 = off"},
    [GENESIS_P_QUANTILE] = {"quantile", 0, 1, 1, 0, 0,
                            "1: continuous columns mapped onto a normal through their quantiles "
                            "(TabDDPM's QuantileTransformer); 0: mixture modes"},
    [GENESIS_P_PRECISION] = {"precision", 0, 3, 1, 0, 0,
                             "matrix-product operands: fp32, tf32, bf16 or fp16 (FP32 "
                             "accumulation; fp16 scales the loss)"},
    [GENESIS_P_DDIM_ETA] = {"ddim-eta", 0, 1, 0, 1, 0,
                            "noise of the strided (DDIM) reverse steps: 0 deterministic, 1 the "
                            "DDPM posterior's variance; no effect with all T steps"},
    [GENESIS_P_EPSILON] = {"epsilon", 0, 1000, 0, 0, 0,
                           "> 0: train under (epsilon, delta)-differential privacy "
                           "(docs/privacy.md); 0 = off"},
    [GENESIS_P_DELTA] = {"delta", 0, 0.1, 0, 0, 0,
                         "with --epsilon: delta; 0 = 1 / rows"},
    [GENESIS_P_MAX_GRAD_NORM] = {"max-grad-norm", 1e-6, 1e6, 0, 0, 1,
                                 "with --epsilon: per-example gradient norm bound of DP-SGD"},
    [GENESIS_P_GRADIENT_CHECKPOINTING] = {"gradient-checkpointing", 0, 1, 1, 0, 0,
                                          "1 (or the bare flag): recompute each block's "
                                          "forward in backward: less activation memory, the "
                                          "same model"},
    [GENESIS_P_SAMPLE_ORDER] = {"sample-order", 1, 2, 1, 1, 1,
                                "the strided Gaussian step: 1 DDIM, 2 the multistep "
                                "DPM-Solver++(2M); no effect with all T steps"},
};

/* The named values of enumerated parameters (genesis_param_choice), value i = name i. */
static const char *const PRECISION_NAMES[] = {"fp32", "tf32", "bf16", "fp16", NULL};

const char *genesis_param_choice(genesis_param p, int i) {
    if (p != GENESIS_P_PRECISION || i < 0 || i > GENESIS_PRECISION_FP16) return NULL;
    return PRECISION_NAMES[i];
}

static int known(int p) { return p >= 0 && p < GEN_NPARAMS; }

/* the kind's own entry for p (its params table), or NULL: p does not apply to the kind */
static const gen_param_use *kind_use(const gen_model_vtable *vt, int p) {
    for (int i = 0; vt && i < vt->nparams; i++)
        if ((int)vt->params[i].p == p) return &vt->params[i];
    return NULL;
}

/* GENESIS_MODEL_BIT of every registered kind that uses p */
static unsigned kinds_using(int p) {
    int n = 0;
    const gen_model_vtable *const *all = gen_model_registry(&n);
    unsigned bits = 0;
    for (int i = 0; i < n; i++)
        if (kind_use(all[i], p)) bits |= GENESIS_MODEL_BIT(all[i]->kind);
    return bits;
}

double gen_param_kind_default(genesis_model_kind kind, int p) {
    const gen_param_use *u = kind_use(gen_model_vtable_of(kind), p);
    return u ? u->def : PARAMS[p].def;
}

const char *gen_param_name(int p) { return known(p) ? PARAMS[p].name : NULL; }

int genesis_param_is_integer(int p) { return known(p) && PARAMS[p].integer; }

int genesis_param_count(void) { return GEN_NPARAMS; }

genesis_status genesis_param_get_info(genesis_param p, genesis_model_kind kind,
                                      genesis_param_info *out) {
    if (!known((int)p) || !out || (kind && !gen_model_vtable_of(kind))) return GENESIS_ERR_INVALID_ARG;
    const param_row *r = &PARAMS[p];
    out->name = r->name;
    out->help = r->help;
    out->lo = r->lo;
    out->hi = r->hi;
    out->def = gen_param_kind_default(kind, (int)p);
    out->integer = r->integer;
    out->models = kinds_using((int)p);
    out->after_fit = r->after_fit;
    return GENESIS_OK;
}

genesis_status genesis_param_default(genesis_model_kind kind, genesis_param p, double *def) {
    if (!known((int)p) || !def) return GENESIS_ERR_INVALID_ARG;
    *def = gen_param_kind_default(kind, (int)p);
    return GENESIS_OK;
}

genesis_status genesis_param_bounds(genesis_param p, double *lo, double *hi, double *def,
                                    const char **name) {
    if (!known((int)p)) return GENESIS_ERR_INVALID_ARG;
    if (lo) *lo = PARAMS[p].lo;
    if (hi) *hi = PARAMS[p].hi;
    if (def) *def = PARAMS[p].def;
    if (name) *name = PARAMS[p].name;
    return GENESIS_OK;
}

/* "ctgan and tvae": the kinds of a mask, in the registry's order, for messages */
static void kinds_text(unsigned models, char *buf, size_t cap) {
    int n = 0;
    const gen_model_vtable *const *all = gen_model_registry(&n);
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        if (!(models & GENESIS_MODEL_BIT(all[i]->kind))) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", len ? " and " : "", all[i]->name);
    }
}

genesis_status gen_param_check(genesis_ctx *ctx, genesis_model_kind kind, int fitted, int p,
                               double v) {
    GEN_RETURN_IF(!known(p), ctx, GENESIS_ERR_INVALID_ARG, "unknown parameter %d", p);
    const param_row *r = &PARAMS[p];
    unsigned models = kinds_using(p);
    char kinds[64];
    kinds_text(models, kinds, sizeof kinds);
    const gen_model_vtable *vt = gen_model_vtable_of(kind); /* the registry, not model_kind.c */
    GEN_RETURN_IF(!(models & GENESIS_MODEL_BIT(kind)), ctx, GENESIS_ERR_INVALID_ARG,
                  "`%s` does not apply to %s models (it applies to %s)", r->name,
                  vt ? vt->name : "unknown", kinds);
    GEN_RETURN_IF(!(v >= r->lo && v <= r->hi), ctx, GENESIS_ERR_INVALID_ARG,
                  "`%s` must be between %g and %g, got %g", r->name, r->lo, r->hi, v);
    GEN_RETURN_IF(r->integer && v != floor(v), ctx, GENESIS_ERR_INVALID_ARG,
                  "`%s` must be a whole number, got %g", r->name, v);
    GEN_RETURN_IF(fitted && !r->after_fit, ctx, GENESIS_ERR_STATE,
                  "`%s` cannot change after the model is fitted; set it before fit", r->name);
    return GENESIS_OK;
}
