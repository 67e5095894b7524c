/*
 * fuzz_common.h — what the three libFuzzer harnesses (fuzz_csv.c, fuzz_model.c,
 * fuzz_evaluate.c) share: one quiet single-threaded context, a private scratch folder for the
 * files the path-taking calls read, and the entry point libFuzzer calls
 * (LLVMFuzzerTestOneInput). docs/fuzzing.md describes the harnesses; fuzz/replay.c runs them
 * without libFuzzer over stored inputs (the regression corpus under CTest).
 */
#ifndef GEN_FUZZ_COMMON_H
#define GEN_FUZZ_COMMON_H

#include <genesis/genesis.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline genesis_ctx *fz_ctx(void) {
    static genesis_ctx *ctx;
    if (!ctx) {
        if (genesis_ctx_create(&ctx) != GENESIS_OK) abort();
        genesis_ctx_set_threads(ctx, 1);
        genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    }
    genesis_ctx_set_seed(ctx, 1); /* every input starts from the same seed */
    return ctx;
}

/* A path `name` inside this process's scratch folder ($TMPDIR or /tmp, removed at exit). */
static char fz_dir[512];
static inline void fz_cleanup(void) {
    char p[600];
    if (!fz_dir[0]) return;
    /* the folder holds only the few files fz_write makes */
    static const char *names[] = {"in.csv", "real.csv", "syn.csv", "meta.json", "out.csv", "model.gen"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", fz_dir, names[i]);
        unlink(p);
    }
    rmdir(fz_dir);
}
static inline const char *fz_path(const char *name, char *buf, size_t cap) {
    if (!fz_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fz_dir, sizeof fz_dir, "%s/genesis-fuzz-XXXXXX", t && t[0] ? t : "/tmp");
        if (!mkdtemp(fz_dir)) abort();
        atexit(fz_cleanup);
    }
    snprintf(buf, cap, "%s/%s", fz_dir, name);
    return buf;
}

/* Writes n bytes to the scratch file `name`; returns its path in buf. */
static inline const char *fz_write(const char *name, const void *p, size_t n, char *buf, size_t cap) {
    fz_path(name, buf, cap);
    FILE *f = fopen(buf, "wb");
    if (!f) abort();
    if (n && fwrite(p, 1, n, f) != n) abort();
    if (fclose(f) != 0) abort();
    return buf;
}

/* The k-th name (k modulo their number) of a CSV's first line, split at the first of , ; tab |
 * found there, into out; "" when there is none. Reader options that name columns (dates,
 * identifiers, forced types) take names from the input itself, so that they apply. */
static inline const char *fz_header_name(const uint8_t *csv, size_t n, unsigned k, char *out,
                                         size_t cap) {
    size_t end = 0;
    while (end < n && csv[end] != '\n' && csv[end] != '\r') end++;
    char delim = ',';
    for (size_t i = 0; i < end; i++)
        if (strchr(",;\t|", csv[i]) && csv[i]) {
            delim = (char)csv[i];
            break;
        }
    unsigned nf = 1;
    for (size_t i = 0; i < end; i++) nf += csv[i] == (uint8_t)delim;
    k %= nf;
    size_t a = 0;
    for (unsigned f = 0; f < k; f++) {
        while (a < end && csv[a] != (uint8_t)delim) a++;
        a++;
    }
    size_t b = a;
    while (b < end && csv[b] != (uint8_t)delim) b++;
    size_t len = b > a ? b - a : 0;
    if (len >= cap) len = cap - 1;
    memcpy(out, csv + a, len);
    out[len] = 0;
    if (memchr(out, 0, len)) out[0] = 0;
    return out;
}

/* With GENESIS_FUZZ_VERBOSE set (fuzz/replay.c), each input's outcome on stderr. */
static inline void fz_say(genesis_ctx *ctx, const char *what, genesis_status st) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("GENESIS_FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "  %s: %s%s%s\n", what, genesis_status_str(st),
                st == GENESIS_OK ? "" : ": ", st == GENESIS_OK ? "" : genesis_errmsg(ctx));
}

#endif /* GEN_FUZZ_COMMON_H */
