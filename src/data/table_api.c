/*
 * table_api.c — the exported entry points of tables that are thin checks over internal
 * functions: CSV options, reading a CSV file, a table's shape and columns. (Building a table
 * from columns: table_build.c; models: src/model/model.c; the version: src/core/version.c.)
 * Every entry point checks its arguments and never exits.
 */
#include <stddef.h>
#include <string.h>

#include "table.h"

void genesis_csv_options_init(genesis_csv_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->has_header = 1;
}

genesis_status genesis_table_read_csv(genesis_ctx *ctx, const char *path,
                                      const genesis_csv_options *opts, genesis_table **out) {
    if (!ctx || !path || !out) return GENESIS_ERR_INVALID_ARG;
    *out = NULL;
    gen_clear_error(ctx);
    if (!opts) {
        genesis_status st = gen_table_read_csv(ctx, path, NULL, out);
        if (st == GENESIS_OK) (*out)->ctx = ctx;
        return st;
    }
    /* struct_size lets programs built against an older, smaller struct keep working: the
     * fields they know are copied over the defaults */
    GEN_RETURN_IF(opts->struct_size < offsetof(genesis_csv_options, delimiter) + 1 ||
                      opts->struct_size > 65536,
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "genesis_csv_options was not initialised with genesis_csv_options_init()");
    genesis_csv_options o;
    genesis_csv_options_init(&o);
    memcpy(&o, opts, opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
    o.struct_size = sizeof o;
    genesis_status st = gen_table_read_csv(ctx, path, &o, out);
    if (st == GENESIS_OK) (*out)->ctx = ctx;
    return st;
}

void genesis_table_free(genesis_table *t) { gen_table_destroy(t); }

int64_t genesis_table_nrows(const genesis_table *t) { return t ? t->nrows : 0; }
int genesis_table_ncols(const genesis_table *t) { return t ? t->ncols : 0; }

const char *genesis_table_column_name(const genesis_table *t, int col) {
    if (!t || col < 0 || col >= t->ncols) return NULL;
    return t->cols[col].name;
}

genesis_column_type genesis_table_column_type(const genesis_table *t, int col) {
    if (!t || col < 0 || col >= t->ncols) return GENESIS_COLUMN_CATEGORICAL;
    return t->cols[col].type;
}

int genesis_table_column_is_id(const genesis_table *t, int col) {
    return t && col >= 0 && col < t->ncols && t->cols[col].id.kind != GEN_ID_NONE;
}

const char *genesis_table_column_datetime(const genesis_table *t, int col) {
    if (!t || col < 0 || col >= t->ncols || !t->cols[col].dt.pattern[0]) return NULL;
    return t->cols[col].dt.pattern;
}
