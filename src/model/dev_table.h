/*
 * dev_table.h — the encoded training table in backend memory (dev_table.c), so that a
 * training step gathers its rows with the backend's gather_rows instead of copying a batch
 * from the host every step.
 */
#ifndef GEN_DEV_TABLE_H
#define GEN_DEV_TABLE_H

#include "backend.h"
#include "transform.h"

typedef struct gen_resident_table {
    gen_dev_table t;          /* what gather_rows takes (pointers into the buffers below) */
    gen_backend *be;
    void *slots, *alphas;     /* backend copies of the columns (NULL: host arrays in place) */
    void *slot_ptrs, *alpha_ptrs, *offset, *cont; /* backend arrays of ncols entries */
} gen_resident_table;

/* Makes `enc` (encoded with `tf`) gatherable by `be`: used in place when backend memory is
 * host memory, else uploaded once. */
genesis_status gen_resident_table_create(gen_backend *be, const gen_transformer *tf,
                                         const gen_encoded *enc, gen_resident_table *out);
void gen_resident_table_free(gen_resident_table *r);
/* Backend bytes it takes for a table of nrows x ncols with ncont continuous columns, on a
 * backend with (host_memory = 1) or without its own memory. */
uint64_t gen_resident_table_bytes(int host_memory, int64_t nrows, int ncols, int ncont);

#endif /* GEN_DEV_TABLE_H */
