/*
 * idcol.c — identifier columns: the name rule, splitting numbered text, writing fresh ids
 * (contracts and the recognition rule in idcol.h; the reader applies it in ingest.c). The
 * numbers written start above the largest real one, so uniqueness within a sample and
 * distinctness from every real value hold by construction; the model file keeps only the
 * shape and that start, never a real id.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "idcol.h"

int gen_id_name_like(const char *name) {
    size_t n = strlen(name);
    char low[64];
    if (n == 0 || n >= sizeof low) return 0;
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    if (!strcmp(low, "id") || !strcmp(low, "uuid") || !strcmp(low, "guid")) return 1;
    if (n > 3 && !strncmp(low, "id_", 3)) return 1;
    /* a separator, then "id" or a word that names a number: "order_id", "patient_nbr" */
    static const char *const tails[] = {"id", "nbr", "number", "no", "key"};
    for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
        size_t tl = strlen(tails[k]);
        if (n > tl + 1 && strchr("_-. ", low[n - tl - 1]) && !strcmp(low + n - tl, tails[k]))
            return 1;
    }
    /* camel case: "customerId", "customerID" (a lower-case letter before the "I") */
    if (n > 2 && name[n - 2] == 'I' && (name[n - 1] == 'd' || name[n - 1] == 'D') &&
        islower((unsigned char)name[n - 3]))
        return 1;
    return 0;
}

int gen_id_split(const char *s, size_t len, size_t *p0, size_t *p1, int64_t *number) {
    size_t i = 0;
    while (i < len && !isdigit((unsigned char)s[i])) i++;
    if (i == len) return 0;
    size_t j = i;
    int64_t v = 0;
    while (j < len && isdigit((unsigned char)s[j])) {
        if (j - i >= 15) return 0;
        v = v * 10 + (s[j++] - '0');
    }
    for (size_t k = j; k < len; k++)
        if (isdigit((unsigned char)s[k])) return 0;
    if (i >= GEN_ID_AFFIX || len - j >= GEN_ID_AFFIX) return 0;
    *p0 = i;
    *p1 = j;
    *number = v;
    return 1;
}

int gen_id_format_value(const gen_id_format *f, int64_t k, char *buf, size_t cap) {
    int n;
    if (f->kind == GEN_ID_INTEGER)
        n = snprintf(buf, cap, "%lld", (long long)(f->start + k));
    else
        n = snprintf(buf, cap, "%s%0*lld%s", f->prefix, f->width, (long long)(f->start + k),
                     f->suffix);
    return n > 0 && (size_t)n < cap ? n : 0;
}
