/*
 * evaluate_data.c — the aligned view every evaluation part works on (gen_ev_data).
 *
 * The real table keeps the reader's types (or those of a metadata file); the synthetic and
 * holdout tables must have exactly its columns, and each of their columns is converted to
 * the real column's type: a categorical column of numbers becomes continuous (the reader
 * types a column with <= 10 distinct numbers as categorical, so a small synthetic table can
 * differ from the real one), and text in a column that is continuous in the real table is a
 * type mismatch naming the column, the value and its row.
 *
 * Values are compared the way SDMetrics compares them after pandas.read_csv (defaults):
 *   - a value is missing (NaN) when its raw text is one of pandas' NA tokens ("", "NA",
 *     "N/A", "NaN", "nan", "null", "NULL", "None", "n/a", "<NA>", "#N/A", ...). Genesis'
 *     reader also treats "?" and space-padded tokens as missing; pandas keeps " ?" (Adult)
 *     as a category, and so does the evaluation. The reader keeps one missing token per
 *     column (the most frequent): a column mixing e.g. "" and "?" is judged by that one;
 *   - a categorical column whose values are all numbers is numeric in pandas: 1, 1.0 and
 *     007 are the same category; all True/False tokens make a boolean column (True == 1);
 *     anything else is an object column and values compare as exact strings (leading
 *     spaces kept);
 *   - the dtype pandas would give each column (int64 / float64 / bool / object) is kept for
 *     TableStructure and for the DCR random baseline (SDMetrics draws by dtype).
 * Categories of a column get one dictionary of ids over all tables (real first), so every
 * metric compares int32 ids.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "evaluate.h"

const char *gen_ev_dtype_name(gen_ev_dtype d) {
    switch (d) {
    case GEN_EV_INT64: return "int64";
    case GEN_EV_FLOAT64: return "float64";
    case GEN_EV_BOOL: return "bool";
    default: return "object";
    }
}

/* ---- pandas' view of one raw value ------------------------------------------------------ */

static const char *const gen_ev_pandas_na[] = {
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"};

static int gen_ev_is_pandas_na(const char *s) {
    for (size_t k = 0; k < sizeof gen_ev_pandas_na / sizeof gen_ev_pandas_na[0]; k++)
        if (strcmp(s, gen_ev_pandas_na[k]) == 0) return 1;
    return 0;
}

enum { GEN_EV_V_NAN = 0, GEN_EV_V_INT, GEN_EV_V_FLOAT, GEN_EV_V_BOOL, GEN_EV_V_TEXT };

/* Classifies a raw value as pandas.read_csv would: NA token, integer, float (decimal or
 * exponent syntax, inf/infinity; blanks around numbers allowed), boolean token, or text.
 * `finite_only`: infinities count as text (the reader's rule for continuous columns). */
static int gen_ev_classify(const char *raw, double *v, int finite_only) {
    if (gen_ev_is_pandas_na(raw)) return GEN_EV_V_NAN;
    if (!strcmp(raw, "True") || !strcmp(raw, "TRUE") || !strcmp(raw, "true")) {
        *v = 1;
        return GEN_EV_V_BOOL;
    }
    if (!strcmp(raw, "False") || !strcmp(raw, "FALSE") || !strcmp(raw, "false")) {
        *v = 0;
        return GEN_EV_V_BOOL;
    }
    const char *s = raw;
    size_t n = strlen(s);
    while (n > 0 && (*s == ' ' || *s == '\t')) s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n == 0 || n > 400) return GEN_EV_V_TEXT;
    char buf[401];
    memcpy(buf, s, n);
    buf[n] = 0;
    size_t i = 0, digits = 0;
    int frac = 0, expo = 0;
    if (buf[i] == '+' || buf[i] == '-') i++;
    const char *word = buf + i;
    if (!strcasecmp(word, "inf") || !strcasecmp(word, "infinity")) {
        if (finite_only) return GEN_EV_V_TEXT;
        *v = buf[0] == '-' ? -INFINITY : INFINITY;
        return GEN_EV_V_FLOAT;
    }
    while (buf[i] >= '0' && buf[i] <= '9') i++, digits++;
    if (buf[i] == '.') {
        frac = 1;
        i++;
        while (buf[i] >= '0' && buf[i] <= '9') i++, digits++;
    }
    if (digits == 0) return GEN_EV_V_TEXT;
    if (buf[i] == 'e' || buf[i] == 'E') {
        size_t j = i + 1, ed = 0;
        if (buf[j] == '+' || buf[j] == '-') j++;
        while (buf[j] >= '0' && buf[j] <= '9') j++, ed++;
        if (ed == 0) return GEN_EV_V_TEXT;
        i = j;
        expo = 1;
    }
    if (buf[i] != 0) return GEN_EV_V_TEXT;
    errno = 0;
    double x = strtod(buf, NULL);
    if (!isfinite(x)) return finite_only ? GEN_EV_V_TEXT : GEN_EV_V_FLOAT;
    *v = x;
    if (!frac && !expo) {
        /* pandas keeps integers that fit int64; larger ones become text (object). */
        if (fabs(x) >= 9.2233720368547758e18) return GEN_EV_V_TEXT;
        return GEN_EV_V_INT;
    }
    return GEN_EV_V_FLOAT;
}

/* ---- the category dictionary ----------------------------------------------------------- */

static uint64_t gen_ev_hash_bytes(const void *p, size_t n, uint64_t h) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t gen_ev_key_hash(int is_num, double v, const char *s) {
    if (is_num) {
        if (v == 0) v = 0; /* -0.0 == 0.0 */
        return gen_ev_hash_bytes(&v, sizeof v, 1469598103934665603ull ^ 0x9e37);
    }
    return gen_ev_hash_bytes(s, strlen(s), 1469598103934665603ull);
}

static int gen_ev_key_eq(const gen_ev_dict *d, int32_t id, int is_num, double v, const char *s) {
    if (d->is_num[id] != is_num) return 0;
    return is_num ? d->value[id] == v : strcmp(d->label[id], s) == 0;
}

static int gen_ev_dict_rehash(gen_ev_dict *d, size_t nslots) {
    int32_t *sl = malloc(nslots * sizeof *sl);
    if (!sl) return -1;
    for (size_t j = 0; j < nslots; j++) sl[j] = -1;
    for (int32_t id = 0; id < d->n; id++) {
        size_t j = gen_ev_key_hash(d->is_num[id], d->value[id], d->label[id]) & (nslots - 1);
        while (sl[j] >= 0) j = (j + 1) & (nslots - 1);
        sl[j] = id;
    }
    free(d->slots);
    d->slots = sl;
    d->nslots = nslots;
    return 0;
}

static int32_t gen_ev_dict_find(const gen_ev_dict *d, int is_num, double v, const char *s) {
    if (d->nslots == 0) return -1;
    size_t j = gen_ev_key_hash(is_num, v, s) & (d->nslots - 1);
    while (d->slots[j] >= 0) {
        if (gen_ev_key_eq(d, d->slots[j], is_num, v, s)) return d->slots[j];
        j = (j + 1) & (d->nslots - 1);
    }
    return -1;
}

static int32_t gen_ev_dict_add(gen_ev_dict *d, int is_num, double v, const char *label) {
    if (is_num && v == 0) v = 0;
    int32_t id = gen_ev_dict_find(d, is_num, v, label);
    if (id >= 0) return id;
    if (d->n == INT32_MAX - 1) return -1;
    if (d->n == d->cap) {
        int32_t nc = d->cap ? d->cap * 2 : 16;
        char **l = realloc(d->label, (size_t)nc * sizeof *l);
        if (l) d->label = l;
        uint8_t *isn = realloc(d->is_num, (size_t)nc);
        if (isn) d->is_num = isn;
        double *val = realloc(d->value, (size_t)nc * sizeof *val);
        if (val) d->value = val;
        if (!l || !isn || !val) return -1;
        d->cap = nc;
    }
    char *copy = gen_strdup(label);
    if (!copy) return -1;
    id = d->n++;
    d->label[id] = copy;
    d->is_num[id] = (uint8_t)(is_num != 0);
    d->value[id] = is_num ? v : 0;
    if ((size_t)d->n * 2 > d->nslots) {
        if (gen_ev_dict_rehash(d, d->nslots ? d->nslots * 2 : 64) != 0) return -1;
    } else {
        size_t j = gen_ev_key_hash(is_num, d->value[id], copy) & (d->nslots - 1);
        while (d->slots[j] >= 0) j = (j + 1) & (d->nslots - 1);
        d->slots[j] = id;
    }
    return id;
}

int32_t gen_ev_dict_add_num(gen_ev_dict *d, double v, const char *label) {
    return gen_ev_dict_add(d, 1, v, label);
}
int32_t gen_ev_dict_add_str(gen_ev_dict *d, const char *s) { return gen_ev_dict_add(d, 0, 0, s); }
int32_t gen_ev_dict_find_num(const gen_ev_dict *d, double v) {
    if (v == 0) v = 0;
    return gen_ev_dict_find(d, 1, v, "");
}

void gen_ev_dict_free(gen_ev_dict *d) {
    if (!d) return;
    for (int32_t i = 0; i < d->n; i++) free(d->label[i]);
    free(d->label);
    free(d->is_num);
    free(d->value);
    free(d->slots);
    memset(d, 0, sizeof *d);
}

/* ---- metadata file ----------------------------------------------------------------------- */

static int gen_ev_type_is_continuous(const char *t) {
    return t && (!strcmp(t, "continuous") || !strcmp(t, "numerical"));
}

/* Reads {"columns":[{"name":..,"type":..}]} (data/adult.json) or SDV's
 * {"columns":{"name":{"sdtype":..}}} and sets cont[c] for the columns it names; type "id"
 * sets skip[c] (SDMetrics scores no id column), any other type clears it. */
static genesis_status gen_ev_read_metadata(genesis_ctx *ctx, const char *path,
                                           const genesis_table *real, int *cont, int *skip) {
    FILE *fp = fopen(path, "rb");
    GEN_RETURN_IF(!fp, ctx, GENESIS_ERR_IO, "%s: cannot open the metadata file: %s — check the "
                  "path", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (len < cap) break;
        if (cap >= ((size_t)64 << 20)) {
            free(buf);
            fclose(fp);
            return gen_set_error(ctx, GENESIS_ERR_DATA, "%s: metadata file larger than 64 MiB "
                                 "— give a JSON file listing the columns", path);
        }
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) free(buf);
        buf = nb;
    }
    fclose(fp);
    GEN_RETURN_IF(!buf, ctx, GENESIS_ERR_NOMEM, "out of memory reading %s", path);
    buf[len] = 0;
    cJSON *root = cJSON_ParseWithLength(buf, len);
    free(buf);
    if (!root)
        return gen_set_error(ctx, GENESIS_ERR_PARSE, "%s: not valid JSON — expected "
                             "{\"columns\": [{\"name\": ..., \"type\": \"continuous\" | "
                             "\"categorical\"}, ...]}", path);
    genesis_status st = GENESIS_OK;
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(root, "columns");
    if (!cJSON_IsArray(cols) && !cJSON_IsObject(cols)) {
        st = gen_set_error(ctx, GENESIS_ERR_PARSE, "%s: no \"columns\" list — expected "
                           "{\"columns\": [{\"name\": ..., \"type\": ...}, ...]}", path);
        goto done;
    }
    const cJSON *it;
    int idx = 0;
    cJSON_ArrayForEach(it, cols) {
        const char *name = NULL, *type = NULL;
        if (cJSON_IsArray(cols)) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "type");
            if (!t) t = cJSON_GetObjectItemCaseSensitive(it, "sdtype");
            name = cJSON_IsString(n) ? n->valuestring : NULL;
            type = cJSON_IsString(t) ? t->valuestring : NULL;
        } else {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "sdtype");
            if (!t) t = cJSON_GetObjectItemCaseSensitive(it, "type");
            name = it->string;
            type = cJSON_IsString(t) ? t->valuestring : NULL;
        }
        if (!name || !type) {
            st = gen_set_error(ctx, GENESIS_ERR_PARSE, "%s: column entry %d needs a \"name\" "
                               "and a \"type\" string", path, idx + 1);
            goto done;
        }
        int c = gen_table_find_column(real, name);
        if (c < 0) {
            st = gen_set_error(ctx, GENESIS_ERR_DATA, "%s: names column \"%s\", which the real "
                               "table (%s) does not have — fix the name or drop the entry",
                               path, name, real->source ? real->source : "real");
            goto done;
        }
        cont[c] = gen_ev_type_is_continuous(type);
        skip[c] = !strcmp(type, "id");
        idx++;
    }
done:
    cJSON_Delete(root);
    return st;
}

/* ---- one table --------------------------------------------------------------------------- */

static const char *gen_ev_src(const genesis_table *t, const char *role) {
    return t->source && t->source[0] ? t->source : role;
}

/* First row holding code k (for messages). */
static int64_t gen_ev_first_row(const gen_column *col, int64_t n, int32_t k) {
    for (int64_t i = 0; i < n; i++)
        if (col->cat[i] == k) return i;
    return -1;
}

/* A continuous target column from any source column. */
static genesis_status gen_ev_make_continuous(genesis_ctx *ctx, const genesis_table *t,
                                             const gen_column *col, const char *role,
                                             int by_metadata, gen_ev_table *et, int c) {
    int64_t n = t->nrows;
    double *x = malloc((size_t)(n ? n : 1) * sizeof *x);
    GEN_RETURN_IF(!x, ctx, GENESIS_ERR_NOMEM, "out of memory converting column \"%s\"",
                  col->name);
    et->num[c] = x;
    if (col->type == GENESIS_COLUMN_CONTINUOUS) {
        memcpy(x, col->num, (size_t)n * sizeof *x);
        et->dtype[c] = (col->nmissing == 0 && col->is_integer && col->decimals == 0)
                           ? GEN_EV_INT64 : GEN_EV_FLOAT64;
        return GENESIS_OK;
    }
    int32_t nl = col->nlevels;
    double *lv = malloc((size_t)(nl ? nl : 1) * sizeof *lv);
    GEN_RETURN_IF(!lv, ctx, GENESIS_ERR_NOMEM, "out of memory converting column \"%s\"",
                  col->name);
    int all_int = 1;
    for (int32_t k = 0; k < nl; k++) {
        double v = NAN;
        int kind = gen_ev_classify(col->levels[k], &v, 1);
        if (kind == GEN_EV_V_NAN) {
            lv[k] = NAN;
            all_int = 0;
        } else if (kind == GEN_EV_V_INT || kind == GEN_EV_V_FLOAT) {
            lv[k] = v;
            if (kind == GEN_EV_V_FLOAT) all_int = 0;
        } else {
            int64_t row = gen_ev_first_row(col, n, k);
            free(lv);
            if (by_metadata)
                return gen_set_error(ctx, GENESIS_ERR_DATA,
                                     "%s: column \"%s\" is continuous in the metadata, but "
                                     "\"%.60s\" (data row %lld) is not a number — mark the "
                                     "column categorical or fix the value",
                                     gen_ev_src(t, role), col->name, col->levels[k],
                                     (long long)row + 1);
            return gen_set_error(ctx, GENESIS_ERR_DATA,
                                 "%s: column \"%s\" is continuous in the real table, but the "
                                 "%s table holds \"%.60s\" (data row %lld), which is not a "
                                 "number — the column types of the two tables differ",
                                 gen_ev_src(t, role), col->name, role, col->levels[k],
                                 (long long)row + 1);
        }
    }
    for (int64_t i = 0; i < n; i++) x[i] = col->cat[i] < 0 ? NAN : lv[col->cat[i]];
    free(lv);
    et->dtype[c] = (all_int && col->nmissing == 0) ? GEN_EV_INT64 : GEN_EV_FLOAT64;
    return GENESIS_OK;
}

/* A categorical target column from any source column: ids into `dict`. */
static genesis_status gen_ev_make_categorical(genesis_ctx *ctx, const genesis_table *t,
                                              const gen_column *col, gen_ev_dict *dict,
                                              gen_ev_table *et, int c) {
    int64_t n = t->nrows;
    int32_t *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    GEN_RETURN_IF(!ids, ctx, GENESIS_ERR_NOMEM, "out of memory converting column \"%s\"",
                  col->name);
    et->cat[c] = ids;
    if (col->type == GENESIS_COLUMN_CONTINUOUS) { /* numbers: a numeric pandas column */
        char buf[64];
        for (int64_t i = 0; i < n; i++) {
            double v = col->num[i];
            if (isnan(v)) {
                ids[i] = -1;
                continue;
            }
            gen_format_number(buf, sizeof buf, v, col->decimals);
            ids[i] = gen_ev_dict_add_num(dict, v, buf);
            GEN_RETURN_IF(ids[i] < 0, ctx, GENESIS_ERR_NOMEM, "out of memory");
        }
        et->dtype[c] = (col->nmissing == 0 && col->is_integer && col->decimals == 0)
                           ? GEN_EV_INT64 : GEN_EV_FLOAT64;
        return GENESIS_OK;
    }
    /* Classify every level, then the missing token, as pandas would. */
    int32_t nl = col->nlevels;
    int8_t *kind = malloc((size_t)nl + 1);
    double *val = malloc(((size_t)nl + 1) * sizeof *val);
    int32_t *map = malloc(((size_t)nl + 1) * sizeof *map);
    if (!kind || !val || !map) {
        free(kind), free(val), free(map);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory converting \"%s\"",
                             col->name);
    }
    int has_text = 0, has_num = 0, has_bool = 0, has_nan = 0, all_int = 1;
    for (int32_t k = 0; k <= nl; k++) {
        const char *s;
        if (k < nl) {
            s = col->levels[k];
        } else {
            if (col->nmissing == 0) {
                kind[k] = GEN_EV_V_NAN;
                continue;
            }
            s = col->na_text ? col->na_text : "";
        }
        double v = 0;
        kind[k] = (int8_t)gen_ev_classify(s, &v, 0);
        val[k] = v;
        switch (kind[k]) {
        case GEN_EV_V_NAN: has_nan = 1; break;
        case GEN_EV_V_INT: has_num = 1; break;
        case GEN_EV_V_FLOAT: has_num = 1, all_int = 0; break;
        case GEN_EV_V_BOOL: has_bool = 1; break;
        default: has_text = 1; break;
        }
    }
    int as_text = has_text || (has_num && has_bool);
    gen_ev_dtype dt;
    if (as_text) dt = GEN_EV_OBJECT;
    else if (has_bool) dt = has_nan ? GEN_EV_OBJECT : GEN_EV_BOOL;
    else if (has_num) dt = (all_int && !has_nan) ? GEN_EV_INT64 : GEN_EV_FLOAT64;
    else dt = GEN_EV_FLOAT64; /* every value missing */
    et->dtype[c] = dt;
    for (int32_t k = 0; k <= nl; k++) {
        const char *s = k < nl ? col->levels[k] : (col->na_text ? col->na_text : "");
        if (kind[k] == GEN_EV_V_NAN) map[k] = -1;
        else if (as_text) map[k] = gen_ev_dict_add_str(dict, s);
        else map[k] = gen_ev_dict_add_num(dict, val[k], s);
        if (kind[k] != GEN_EV_V_NAN && map[k] < 0) {
            free(kind), free(val), free(map);
            return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        }
    }
    for (int64_t i = 0; i < n; i++) ids[i] = map[col->cat[i] < 0 ? nl : col->cat[i]];
    free(kind), free(val), free(map);
    return GENESIS_OK;
}

static genesis_status gen_ev_table_alloc(genesis_ctx *ctx, gen_ev_table *et, int ncols) {
    et->num = gen_calloc((size_t)ncols, sizeof *et->num);
    et->cat = gen_calloc((size_t)ncols, sizeof *et->cat);
    et->dtype = gen_calloc((size_t)ncols, sizeof *et->dtype);
    GEN_RETURN_IF(!et->num || !et->cat || !et->dtype, ctx, GENESIS_ERR_NOMEM,
                  "out of memory");
    return GENESIS_OK;
}

static void gen_ev_table_free(gen_ev_table *et, int ncols) {
    for (int c = 0; c < ncols; c++) {
        if (et->num) free(et->num[c]);
        if (et->cat) free(et->cat[c]);
    }
    free(et->num);
    free(et->cat);
    free(et->dtype);
    memset(et, 0, sizeof *et);
}

/* Checks that `t` has exactly the real table's columns and fills `et`. */
static genesis_status gen_ev_convert(genesis_ctx *ctx, gen_ev_data *d, const genesis_table *real,
                                     const genesis_table *t, const char *role, int by_metadata,
                                     gen_ev_table *et) {
    const char *src = gen_ev_src(t, role);
    GEN_RETURN_IF(t->nrows <= 0 || t->ncols <= 0, ctx, GENESIS_ERR_DATA,
                  "%s: the %s table has no rows — give a CSV file with a header and data rows",
                  src, role);
    if (t != real) {
        for (int c = 0; c < d->ncols; c++)
            GEN_RETURN_IF(gen_table_find_column(t, d->names[c]) < 0, ctx, GENESIS_ERR_DATA,
                          "%s: column \"%s\" of the real table (%s) is missing from the %s "
                          "table — both tables need the same columns",
                          src, d->names[c], gen_ev_src(real, "real"), role);
        for (int c = 0; c < t->ncols; c++)
            GEN_RETURN_IF(gen_table_find_column(real, t->cols[c].name) < 0, ctx,
                          GENESIS_ERR_DATA,
                          "%s: the %s table has a column \"%s\" that the real table (%s) does "
                          "not have — both tables need the same columns",
                          src, role, t->cols[c].name, gen_ev_src(real, "real"));
    }
    et->role = role;
    et->source = t->source;
    et->n = t->nrows;
    GEN_TRY(gen_ev_table_alloc(ctx, et, d->ncols));
    for (int c = 0; c < d->ncols; c++) {
        const gen_column *col = &t->cols[gen_table_find_column(t, d->names[c])];
        if (d->continuous[c])
            GEN_TRY(gen_ev_make_continuous(ctx, t, col, role, by_metadata, et, c));
        else
            GEN_TRY(gen_ev_make_categorical(ctx, t, col, &d->dict[c], et, c));
    }
    return GENESIS_OK;
}

genesis_status gen_ev_data_build(genesis_ctx *ctx, const genesis_table *real,
                                 const genesis_table *syn, const genesis_table *hold,
                                 const char *metadata_path, gen_ev_data **out) {
    *out = NULL;
    gen_ev_data *d = calloc(1, sizeof *d);
    GEN_RETURN_IF(!d, ctx, GENESIS_ERR_NOMEM, "out of memory");
    genesis_status st = GENESIS_OK;
    /* per real column: continuous?, and skipped as an identifier (the reader's id columns
     * and metadata type "id": SDMetrics scores no id column; a fresh id per row is the
     * point, so its shape would read as a failure) */
    int *cont = gen_calloc((size_t)real->ncols, sizeof *cont);
    int *skip = gen_calloc((size_t)real->ncols, sizeof *skip);
    d->names = gen_calloc((size_t)real->ncols, sizeof *d->names);
    d->continuous = gen_calloc((size_t)real->ncols, sizeof *d->continuous);
    d->dict = gen_calloc((size_t)real->ncols, sizeof *d->dict);
    if (!cont || !skip || !d->names || !d->continuous || !d->dict) {
        st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int c = 0; c < real->ncols; c++) {
        cont[c] = real->cols[c].type == GENESIS_COLUMN_CONTINUOUS;
        skip[c] = real->cols[c].id.kind != GEN_ID_NONE;
    }
    if (metadata_path && (st = gen_ev_read_metadata(ctx, metadata_path, real, cont, skip)))
        goto fail;
    char skipped[256] = "";
    for (int c = 0; c < real->ncols; c++) {
        if (skip[c]) {
            size_t k = strlen(skipped);
            if (k + 8 < sizeof skipped)
                snprintf(skipped + k, sizeof skipped - k, "%s%s", k ? ", " : "",
                         real->cols[c].name);
            continue;
        }
        d->continuous[d->ncols] = cont[c];
        if (!(d->names[d->ncols++] = gen_strdup(real->cols[c].name))) {
            st = gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
            goto fail;
        }
    }
    if (skipped[0])
        gen_log(ctx, GENESIS_LOG_INFO, "%s: identifier columns, not scored (as SDMetrics "
                "scores no id column): %s", gen_ev_src(real, "real"), skipped);
    if (d->ncols == 0) {
        st = gen_set_error(ctx, GENESIS_ERR_DATA, "%s: every column is an identifier; nothing "
                           "to score — give the columns' types in a metadata file",
                           gen_ev_src(real, "real"));
        goto fail;
    }
    if ((st = gen_ev_convert(ctx, d, real, real, "real", metadata_path != NULL, &d->real)))
        goto fail;
    if ((st = gen_ev_convert(ctx, d, real, syn, "synthetic", 0, &d->syn))) goto fail;
    if (hold) {
        if ((st = gen_ev_convert(ctx, d, real, hold, "holdout", 0, &d->hold))) goto fail;
        d->has_holdout = 1;
    }
    free(cont);
    free(skip);
    *out = d;
    return GENESIS_OK;
fail:
    free(cont);
    free(skip);
    gen_ev_data_free(d);
    return st;
}

genesis_status gen_ev_align_holdout_target(genesis_ctx *ctx, gen_ev_data *d, int target) {
    if (!d->has_holdout || d->continuous[target]) return GENESIS_OK;
    const gen_ev_dict *dc = &d->dict[target];
    int32_t *to = malloc(((size_t)dc->n + 1) * sizeof *to);
    uint8_t *in_real = calloc((size_t)dc->n + 1, 1);
    if (!to || !in_real) {
        free(to);
        free(in_real);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < d->real.n; i++)
        if (d->real.cat[target][i] >= 0) in_real[d->real.cat[target][i]] = 1;
    char a[512], b[512];
    for (int32_t id = 0; id < dc->n; id++) {
        to[id] = id;
        if (in_real[id]) continue;
        gen_ev_norm_label(dc->label[id], a, sizeof a);
        for (int32_t k = 0; k < dc->n; k++)
            if (in_real[k] && !strcmp(gen_ev_norm_label(dc->label[k], b, sizeof b), a)) {
                to[id] = k;
                break;
            }
    }
    for (int64_t i = 0; i < d->hold.n; i++) {
        int32_t id = d->hold.cat[target][i];
        if (id >= 0) d->hold.cat[target][i] = to[id];
    }
    free(to);
    free(in_real);
    return GENESIS_OK;
}

void gen_ev_data_free(gen_ev_data *d) {
    if (!d) return;
    gen_ev_table_free(&d->real, d->ncols);
    gen_ev_table_free(&d->syn, d->ncols);
    gen_ev_table_free(&d->hold, d->ncols);
    for (int c = 0; c < d->ncols; c++) {
        if (d->names) free(d->names[c]);
        if (d->dict) gen_ev_dict_free(&d->dict[c]);
    }
    free(d->names);
    free(d->continuous);
    free(d->dict);
    free(d);
}
