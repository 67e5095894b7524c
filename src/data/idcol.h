/*
 * idcol.h — identifier columns (idcol.c): a column that names each row (a customer number,
 * an order code) carries no pattern a generator should learn, and copying real values
 * would leak them. Genesis recognises such columns when reading, models them as a constant,
 * and writes fresh unique values in the column's own shape: numbers above the largest real
 * one, so no real id is ever written. Shapes handled:
 *
 *   integers            1, 2, 17, 90210        -> max+1, max+2, ... (increasing)
 *   text with one run   C0001, INV-2023-0042   -> the same prefix and suffix around the
 *   of digits                                     run, numbers from the run's max + 1,
 *                                                 zero-padded to the run's width when the
 *                                                 real values were
 *
 * The recognition rule (sober on purpose; docs/api.md): at least 10 rows, no missing value,
 * every value distinct, and either an id-like name ("id", "uuid", "guid", ending in "_id",
 * "-id", " id", ".id" or the same separators before "nbr", "number", "no" or "key", starting
 * with "id_", or camel case "customerId"/"customerID") with
 * integer or numbered-text values, or numbered text of one shape (same prefix, same suffix,
 * digits between) under any name, or integers that number the rows (v0, v0 + 1, ... in row
 * order: an index, written as v0, v0 + 1, ... again) under any name. Other integers need the
 * id-like name: a column of distinct numbers is more often a measurement (Adult's fnlwgt). A column with an id-like name
 * whose values repeat (an id per patient, many rows each) is not an id; the reader says so
 * when there are at least 20 distinct values and at most 20 rows per value on average (a
 * "type_id" code with 8 levels is a category and gets no note).
 */
#ifndef GEN_IDCOL_H
#define GEN_IDCOL_H

#include <stddef.h>
#include <stdint.h>

#define GEN_ID_AFFIX 48

typedef enum { GEN_ID_NONE = 0, GEN_ID_INTEGER = 1, GEN_ID_TEXT = 2 } gen_id_kind;

typedef struct gen_id_format {
    int kind;                   /* gen_id_kind */
    char prefix[GEN_ID_AFFIX];  /* text ids: the bytes before the digit run */
    char suffix[GEN_ID_AFFIX];  /* text ids: the bytes after it */
    int width;                  /* zero-padded width of the run (0: no padding) */
    int64_t start;              /* the first number written: the real maximum + 1 */
} gen_id_format;

/* 1 when the column name looks like an identifier's. */
int gen_id_name_like(const char *name);

/* Splits s into prefix, one digit run and suffix; 0 when s has no digit or two runs, or the
 * run exceeds 15 digits or an affix GEN_ID_AFFIX-1 bytes. */
int gen_id_split(const char *s, size_t len, size_t *p0, size_t *p1, int64_t *number);

/* Writes the id numbered k (0, 1, ...) into buf; returns its length (0: does not fit). */
int gen_id_format_value(const gen_id_format *f, int64_t k, char *buf, size_t cap);

#endif /* GEN_IDCOL_H */
