/*
 * test_util.h — helpers shared by the Check suites: seeded fills, allclose with the worst
 * index reported, the finite-difference gradient check, paths to the source tree's data/,
 * and the runner main().
 */
#ifndef GEN_TEST_UTIL_H
#define GEN_TEST_UTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static inline void tu_fill_uniform(float *x, size_t n, float lo, float hi, uint64_t seed) {
    gen_rng r;
    gen_rng_init(&r, seed, 99);
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * (float)gen_rng_uniform(&r);
}

/* |a-b| <= atol + rtol*|b| everywhere; reports the worst index. */
#define tu_assert_allclose(a, b, n, atol, rtol)                                          \
    do {                                                                                  \
        size_t tu_worst = 0;                                                              \
        double tu_wd = -1;                                                                \
        int tu_bad = 0;                                                                   \
        for (size_t tu_i = 0; tu_i < (size_t)(n); tu_i++) {                               \
            double tu_d = fabs((double)(a)[tu_i] - (double)(b)[tu_i]);                    \
            double tu_lim = (atol) + (rtol) * fabs((double)(b)[tu_i]);                    \
            if (!(tu_d <= tu_lim)) tu_bad++;                                              \
            if (!(tu_d <= tu_wd) ) { tu_wd = tu_d; tu_worst = tu_i; }                     \
        }                                                                                 \
        ck_assert_msg(tu_bad == 0, "%d of %zu values differ; worst at %zu: %.9g vs %.9g", \
                      tu_bad, (size_t)(n), tu_worst, (double)(a)[tu_worst],               \
                      (double)(b)[tu_worst]);                                             \
    } while (0)

/* Path of a file under the source tree (static buffer). */
static inline const char *tu_path(const char *rel) {
    static char buf[4096];
    const char *root = getenv("GEN_SOURCE_DIR");
#ifdef GEN_SOURCE_DIR
    if (!root) root = GEN_SOURCE_DIR;
#endif
    if (!root) root = ".";
    snprintf(buf, sizeof buf, "%s/%s", root, rel);
    return buf;
}

/* Finite-difference gradient check: for `probes` indices spread over [0, n), compares the
 * analytic gradient g[i] with central differences of f w.r.t. x[i] at two step sizes. A
 * difference is trusted only where both step sizes agree (a kink of ReLU / LeakyReLU between
 * them shows as disagreement); every trusted probe must match within atol + rtol*|numeric|,
 * and at least 70% of the probes must be trusted. */
typedef double (*tu_loss_fn)(void *user);

static inline void tu_check_grad(const char *what, tu_loss_fn f, void *user, float *x,
                                 const float *g, size_t n, int probes, double atol, double rtol) {
    int trusted = 0, bad = 0;
    char msg[256] = "";
    for (int p = 0; p < probes; p++) {
        size_t i = (size_t)(((double)p + 0.5) / probes * (double)n);
        if (i >= n) i = n - 1;
        float x0 = x[i];
        double fd[2];
        float eps[2] = {1e-2f * fmaxf(1.0f, fabsf(x0)), 5e-3f * fmaxf(1.0f, fabsf(x0))};
        for (int k = 0; k < 2; k++) {
            x[i] = x0 + eps[k];
            double lp = f(user);
            x[i] = x0 - eps[k];
            double lm = f(user);
            x[i] = x0;
            fd[k] = (lp - lm) / (2.0 * ((double)(x0 + eps[k]) - (double)x0));
        }
        if (fabs(fd[0] - fd[1]) > 3e-4 + 1e-2 * fabs(fd[1])) continue;
        trusted++;
        if (fabs(fd[1] - g[i]) > atol + rtol * fabs(fd[1])) {
            if (!bad) snprintf(msg, sizeof msg, "%s[%zu]: analytic %.6g vs numeric %.6g", what, i, g[i], fd[1]);
            bad++;
        }
    }
    ck_assert_msg(bad == 0, "%s: %d of %d probes differ; first: %s", what, bad, trusted, msg);
    ck_assert_msg(trusted >= probes * 7 / 10, "%s: only %d of %d probes were smooth enough", what,
                  trusted, probes);
}

/* The whole file at `path`, NUL-terminated (malloc'ed; *n its length unless n is NULL), or a
 * failed check. */
static inline void *tu_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_assert(len >= 0);
    unsigned char *b = malloc((size_t)len + 1);
    ck_assert(b && fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    b[len] = 0;
    if (n) *n = (size_t)len;
    return b;
}

/* Writes n bytes of b to `path`, or a failed check. */
static inline void tu_write_file(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    if (n) ck_assert(fwrite(b, 1, n, f) == n);
    fclose(f);
}

/* The two files hold the same bytes. */
static inline void tu_assert_same_files(const char *a, const char *b) {
    size_t na, nb;
    unsigned char *pa = tu_read_file(a, &na), *pb = tu_read_file(b, &nb);
    ck_assert_msg(na == nb && memcmp(pa, pb, na) == 0, "%s and %s differ", a, b);
    free(pa);
    free(pb);
}

/* Rewrites the model file at `path` as a genesis that stored only its first `keep` settings
 * wrote it (docs/file-format.md: settings S .. end dropped, payload length and CRC-32 fixed).
 * Returns the number of settings the file held. */
static inline uint32_t tu_file_keep_settings(const char *path, uint32_t keep) {
    size_t n;
    unsigned char *b = tu_read_file(path, &n);
    uint32_t S, S0;
    uint64_t P;
    memcpy(&S, b + 24, 4);
    memcpy(&P, b + 16, 8);
    S0 = S;
    ck_assert_uint_ge(S, keep);
    size_t cut = 24 + 4 + (size_t)keep * 8, drop = (size_t)(S - keep) * 8;
    memmove(b + cut, b + cut + drop, (size_t)n - cut - drop);
    n -= drop;
    S = keep;
    P -= drop;
    memcpy(b + 24, &S, 4);
    memcpy(b + 16, &P, 8);
    uint32_t c = 0xFFFFFFFFu; /* zlib's crc32 of everything before the checksum */
    for (size_t i = 0; i + 4 < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    c = ~c;
    memcpy(b + n - 4, &c, 4);
    tu_write_file(path, b, n);
    free(b);
    return S0;
}

/* Runs one suite; exit code 1 on any failure. */
static inline int tu_run(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif /* GEN_TEST_UTIL_H */
