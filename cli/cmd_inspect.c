/*
 * cmd_inspect.c — `genesis inspect -m model.gen [--json]`: what a saved model holds, read
 * through the public API only (genesis_model_load on the CPU, the parameter table,
 * genesis_model_column_info): the method, every setting of that method with its value and
 * whether it is the default, which of them `sample` may still change, the encoded row width
 * and the columns the model generates (type, whole numbers or decimals, missing values, date
 * format, identifier, categories; a continuous column's mixture modes and point masses), and
 * for a checkpoint how far its fit got, and its privacy guarantee (docs/privacy.md). As text or, with --json, one JSON object.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAXK 32 /* modes and point masses read per column (the transformer keeps at most 12) */

/* a JSON string literal of s (RFC 8259: quote, backslash and control characters escaped) */
static void json_str(const char *s) {
    if (!s) {
        printf("null");
        return;
    }
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p == '\n') printf("\\n");
        else if (*p == '\t') printf("\\t");
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static const char *type_name(genesis_column_type t) {
    return t == GENESIS_COLUMN_CATEGORICAL ? "categorical" : "continuous";
}

/* a setting's value as the CLI spells it: the name of a named value ("bf16"), else %g */
static void setting_text(genesis_param p, double v, char *buf, size_t cap) {
    const char *named = genesis_param_choice(p, (int)v);
    if (named) snprintf(buf, cap, "%s", named);
    else snprintf(buf, cap, "%.10g", v);
}

static void print_settings(const genesis_model *m, genesis_model_kind kind, int json, int sampling) {
    int first = 1;
    for (int p = 0; p < genesis_param_count(); p++) {
        genesis_param_info pi;
        double v;
        if (genesis_param_get_info((genesis_param)p, kind, &pi) != GENESIS_OK ||
            !(pi.models & GENESIS_MODEL_BIT(kind)) || pi.after_fit != sampling ||
            genesis_model_get_param(m, (genesis_param)p, &v) != GENESIS_OK)
            continue;
        char val[64], def[64];
        setting_text((genesis_param)p, v, val, sizeof val);
        setting_text((genesis_param)p, pi.def, def, sizeof def);
        int is_def = v == pi.def;
        if (json) {
            printf("%s", first ? "" : ",");
            json_str(pi.name);
            printf(":{\"value\":");
            if (genesis_param_choice((genesis_param)p, 0)) json_str(val);
            else printf("%s", val);
            printf(",\"default\":%s}", is_def ? "true" : "false");
        } else {
            if (is_def) printf("  %-22s %s\n", pi.name, val);
            else printf("  %-22s %-12s (default %s)\n", pi.name, val, def);
        }
        first = 0;
    }
}

static void print_columns(const genesis_model *m, int json) {
    int n = genesis_model_ncols(m);
    for (int c = 0; c < n; c++) {
        genesis_model_column ci;
        if (genesis_model_column_info(m, c, &ci) != GENESIS_OK) continue;
        if (json) {
            printf("%s{\"name\":", c ? "," : "");
            json_str(ci.name);
            printf(",\"type\":\"%s\"", type_name(ci.type));
            if (ci.type == GENESIS_COLUMN_CONTINUOUS)
                printf(",\"integer\":%s,\"decimals\":%d", ci.integer ? "true" : "false", ci.decimals);
            printf(",\"missing\":%s,\"datetime\":", ci.has_missing ? "true" : "false");
            json_str(ci.datetime);
            printf(",\"id\":%s", ci.is_id ? "true" : "false");
            if (ci.type == GENESIS_COLUMN_CONTINUOUS) {
                double mean[MAXK], sd[MAXK], w[MAXK], pt[MAXK];
                int nm = 0, np = 0;
                genesis_model_column_mixture(m, c, MAXK, &nm, mean, sd, w, &np, pt);
                printf(",\"modes\":[");
                for (int k = 0; k < nm && k < MAXK; k++)
                    printf("%s{\"mean\":%.10g,\"std\":%.10g,\"weight\":%.10g}", k ? "," : "", mean[k], sd[k], w[k]);
                int nq = 0;
                genesis_model_column_quantiles(m, c, 0, &nq, NULL);
                if (nq) {
                    double *q = malloc((size_t)nq * sizeof *q);
                    if (q && genesis_model_column_quantiles(m, c, nq, &nq, q) == GENESIS_OK) {
                        printf("],\"quantiles\":[");
                        for (int k = 0; k < nq; k++) printf("%s%.17g", k ? "," : "", q[k]);
                    }
                    free(q);
                }
                printf("],\"point_masses\":[");
                for (int k = 0; k < np && k < MAXK; k++) printf("%s%.17g", k ? "," : "", pt[k]);
                printf("]");
            }
            if (ci.type == GENESIS_COLUMN_CATEGORICAL) {
                printf(",\"levels\":[");
                for (int k = 0; k < ci.nlevels; k++) {
                    printf("%s", k ? "," : "");
                    json_str(genesis_model_column_level(m, c, k));
                }
                printf("]");
            }
            printf("}");
            continue;
        }
        char what[160];
        if (ci.is_id) snprintf(what, sizeof what, "identifier (fresh unique values)");
        else if (ci.datetime) snprintf(what, sizeof what, "date, format %s", ci.datetime);
        else if (ci.type == GENESIS_COLUMN_CATEGORICAL)
            snprintf(what, sizeof what, "categorical, %d level%s", ci.nlevels, ci.nlevels == 1 ? "" : "s");
        else if (ci.integer) snprintf(what, sizeof what, "continuous, whole numbers");
        else if (ci.decimals >= 0) snprintf(what, sizeof what, "continuous, %d decimal%s", ci.decimals, ci.decimals == 1 ? "" : "s");
        else snprintf(what, sizeof what, "continuous");
        printf("  %3d  %-24s %s%s", c + 1, ci.name, what, ci.has_missing ? ", with missing values" : "");
        if (ci.type == GENESIS_COLUMN_CONTINUOUS && !ci.is_id) {
            double pt[MAXK];
            int nm = 0, np = 0;
            genesis_model_column_mixture(m, c, MAXK, &nm, NULL, NULL, NULL, &np, pt);
            int nq = 0;
            genesis_model_column_quantiles(m, c, 0, &nq, NULL);
            double *q = nq ? malloc((size_t)nq * sizeof *q) : NULL;
            if (q && genesis_model_column_quantiles(m, c, nq, &nq, q) == GENESIS_OK)
                printf("; %d quantiles from %.10g to %.10g", nq, q[0], q[nq - 1]);
            else
                printf("; %d mode%s", nm, nm == 1 ? "" : "s");
            free(q);
            if (np) {
                printf(", point mass%s at", np == 1 ? "" : "es");
                for (int k = 0; k < np && k < MAXK; k++) printf("%s %.10g", k ? "," : "", pt[k]);
            }
        }
        if (ci.type == GENESIS_COLUMN_CATEGORICAL && !ci.is_id && !ci.datetime) {
            printf(":");
            int shown = ci.nlevels < 6 ? ci.nlevels : 6;
            for (int k = 0; k < shown; k++) {
                const char *lv = genesis_model_column_level(m, c, k);
                size_t len = lv ? strlen(lv) : 0; /* levels with edge spaces are quoted */
                int q = len && (lv[0] == ' ' || lv[len - 1] == ' ' || strchr(lv, ','));
                printf("%s %s%s%s", k ? "," : "", q ? "\"" : "", lv ? lv : "", q ? "\"" : "");
            }
            if (shown < ci.nlevels) printf(", ... (%d more)", ci.nlevels - shown);
        }
        printf("\n");
    }
}

/* the privacy guarantee (genesis_model_privacy): none, or epsilon, delta and the mechanism */
static void print_privacy(const genesis_model *m, int json) {
    genesis_privacy pv;
    if (genesis_model_privacy(m, &pv) != GENESIS_OK) pv.dp = 0;
    if (json) {
        if (!pv.dp) {
            printf("null");
            return;
        }
        printf("{\"epsilon\":%.10g,\"delta\":%.10g,\"target_epsilon\":%.10g,"
               "\"noise_multiplier\":%.10g,\"max_grad_norm\":%.10g,\"sampling_rate\":%.10g,"
               "\"steps\":%lld,\"stats_noise\":%.10g,\"stats_threshold\":%.10g,"
               "\"stats_epsilon\":%.10g,\"mechanism\":",
               pv.epsilon, pv.delta, pv.target_epsilon, pv.noise_multiplier, pv.max_grad_norm,
               pv.sampling_rate, (long long)pv.steps, pv.stats_noise, pv.stats_threshold,
               pv.stats_epsilon);
        json_str(pv.mechanism);
        printf("}");
        return;
    }
    if (!pv.dp) {
        printf("\nprivacy: no formal guarantee (trained without --epsilon)\n");
        return;
    }
    printf("\nprivacy: (%.4g, %.3g)-differentially private (asked for epsilon %.4g)\n",
           pv.epsilon, pv.delta, pv.target_epsilon);
    printf("  DP-SGD                 noise multiplier %.4g, max grad norm %.4g, sampling rate "
           "%.4g, %lld steps\n",
           pv.noise_multiplier, pv.max_grad_norm, pv.sampling_rate, (long long)pv.steps);
    printf("  column statistics      noisy histograms, noise sd %.4g rows, release threshold "
           "%.1f rows (epsilon %.4g of the budget alone)\n",
           pv.stats_noise, pv.stats_threshold, pv.stats_epsilon);
    printf("  mechanism              %s\n", pv.mechanism);
}

int cmd_inspect(int argc, char **argv) {
    options o;
    int rc = cli_parse(CMD_INSPECT, argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    o.device = GENESIS_DEVICE_CPU; /* reading a file: no GPU context */
    genesis_ctx *ctx = NULL;
    genesis_model *m = NULL;
    genesis_status st = make_ctx(&o, &ctx);
    /* a checkpoint (a model file with the training state) says how far its fit got */
    int64_t done = -1, total = -1;
    if (st == GENESIS_OK && genesis_model_load_checkpoint(ctx, o.model, &m) == GENESIS_OK) {
        if (genesis_model_checkpoint_progress(m, &done, &total) != GENESIS_OK) done = total = -1;
        genesis_model_free(m); /* the model as sampling reads it: its columns */
        m = NULL;
    }
    if (st == GENESIS_OK) st = genesis_model_load(ctx, o.model, &m);
    if (st != GENESIS_OK) {
        int r = lib_error(ctx, st);
        genesis_ctx_free(ctx);
        return r;
    }
    genesis_model_kind kind = genesis_model_get_kind(m);
    struct stat sb;
    long long bytes = stat(o.model, &sb) == 0 ? (long long)sb.st_size : -1;
    int ncols = genesis_model_ncols(m), width = genesis_model_encoded_dim(m);
    if (o.json) {
        printf("{\"file\":");
        json_str(o.model);
        printf(",\"bytes\":%lld,\"method\":", bytes);
        json_str(genesis_model_kind_name(kind));
        printf(",\"encoded_width\":%d,\"checkpoint\":", width);
        if (done >= 0) printf("{\"done\":%lld,\"total\":%lld}", (long long)done, (long long)total);
        else printf("null");
        printf(",\"privacy\":");
        print_privacy(m, 1);
        printf(",\"settings\":{");
        print_settings(m, kind, 1, 0);
        printf("},\"sampling_settings\":{");
        print_settings(m, kind, 1, 1);
        printf("},\"columns\":[");
        print_columns(m, 1);
        printf("]}\n");
    } else {
        char size[32];
        fmt_mib(size, sizeof size, bytes > 0 ? (uint64_t)bytes : 0);
        printf("%s: a %s model, %s\n", o.model, genesis_model_kind_name(kind), size);
        if (ncols > 0) printf("  %d columns; encoded row width %d\n", ncols, width);
        genesis_model_kind_info ki;
        if (done >= 0 && genesis_model_kind_get_info(kind, &ki) == GENESIS_OK)
            printf("  a checkpoint: %lld of %lld %s done (genesis fit --resume %s continues it)\n",
                   (long long)done, (long long)total, ki.train_unit, o.model);
        print_privacy(m, 0);
        printf("\nsettings it was fitted with:\n");
        print_settings(m, kind, 0, 0);
        printf("\nsampling settings (genesis sample may change them):\n");
        print_settings(m, kind, 0, 1);
        if (ncols > 0) {
            printf("\ncolumns:\n");
            print_columns(m, 0);
        }
    }
    genesis_model_free(m);
    genesis_ctx_free(ctx);
    return 0;
}
