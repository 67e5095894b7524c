/*
 * replay.c — runs a fuzzing harness (fuzz/fuzz_*.c) over stored inputs without libFuzzer:
 * each argument is a file or a folder of files, each file is one input. Built with the
 * regular compiler and linked with the library, it lets CTest replay the regression corpus
 * (fuzz/regress/<target>/: inputs that once crashed, hung or allocated too much) and the seed
 * corpus (fuzz/corpus/<target>/) in every build; a crash fails the test. Outside ASan (whose
 * shadow memory needs a large address space) the address space is capped at 2 GiB, so an
 * input that makes the library ask for gigabytes gets GENESIS_ERR_NOMEM, on which the
 * harnesses abort, as libFuzzer's -malloc_limit_mb would stop them. docs/fuzzing.md.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
#define GEN_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GEN_REPLAY_ASAN 1
#endif
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    /* an exact-size copy, so that a read past the input is caught as under libFuzzer */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    int bad = 0, files = 0;
#ifndef GEN_REPLAY_ASAN
    struct rlimit rl = {(rlim_t)2 << 30, (rlim_t)2 << 30};
    if (setrlimit(RLIMIT_AS, &rl) != 0) perror("replay: setrlimit");
#endif
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return 1;
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
            char **nv = realloc(names, (nn + 1) * sizeof *names);
            if (!nv) return 1;
            names = nv;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(len);
            if (!names[nn]) return 1;
            snprintf(names[nn++], len, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp_str);
        for (size_t k = 0; k < nn; k++) {
            bad |= run_file(names[k]);
            files++;
            free(names[k]);
        }
        free(names);
    }
    fprintf(stderr, "replay: %d inputs, none crashed\n", files);
    return bad;
}
