/*
 * csv_write.c — the CSV writer from table.h: RFC 4180 quoting (only where needed; nothing
 * else is altered), numbers printed in a column's own precision or as the shortest form
 * that reads back to the same double, and a buffered writer that builds the output under a
 * temporary name ".<basename>.tmp.XXXXXX" in the target's folder and renames it onto the
 * final name only on commit (fsync first), so a reader never sees a half-written file. A
 * target that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written in
 * place: renaming onto it would replace the device node or the pipe with a plain file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table.h"

#define GEN_CW_BUF ((size_t)1024 * 1024)

struct gen_csv_writer {
    genesis_ctx *ctx;
    char *path;   /* final name ("-" for stdout) */
    char *tmp;    /* temporary name; NULL for stdout */
    char *dir;    /* folder of path, for the directory fsync */
    int fd;       /* -1 for stdout */
    char delim;
    char *buf;
    size_t len;
    genesis_status st; /* first write error, sticky */
};

/* ---- field quoting --------------------------------------------------------------------- */

static int gen_cw_needs_quotes(const char *s, size_t len, char delim) {
    if (len == 0) return 0;
    if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t') return 1;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == delim || c == '"' || c == '\r' || c == '\n') return 1;
    }
    return 0;
}

size_t gen_csv_field_size(const char *s, size_t len, char delimiter) {
    if (!gen_cw_needs_quotes(s, len, delimiter)) return len;
    size_t n = len + 2;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '"') n++;
    return n;
}

size_t gen_csv_format_field(char *buf, size_t cap, const char *s, size_t len, char delimiter) {
    if (!gen_cw_needs_quotes(s, len, delimiter)) {
        if (len > cap) return 0;
        if (len) memcpy(buf, s, len);
        return len;
    }
    size_t need = gen_csv_field_size(s, len, delimiter);
    if (need > cap) return 0;
    size_t k = 0;
    buf[k++] = '"';
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"') buf[k++] = '"';
        buf[k++] = s[i];
    }
    buf[k++] = '"';
    return k;
}

/* ---- numbers --------------------------------------------------------------------------- */

static int gen_cw_roundtrips(char *tmp, size_t cap, double v, int p) {
    snprintf(tmp, cap, "%.*g", p, v);
    return strtod(tmp, NULL) == v;
}

/* Shortest %.{p}g (p = 1..17) that reads back as v. Rounding to p <= 15 significant digits
 * is monotone (two 15-digit decimals are never within one ulp of the same double), so a
 * binary search over 1..15 finds the shortest exactly; 16 and 17 are tried in turn. */
static void gen_cw_shortest(char *tmp, size_t cap, double v) {
    if (gen_cw_roundtrips(tmp, cap, v, 15)) {
        int lo = 1, hi = 15; /* hi round-trips */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (gen_cw_roundtrips(tmp, cap, v, mid)) hi = mid;
            else lo = mid + 1;
        }
        snprintf(tmp, cap, "%.*g", hi, v);
    } else if (!gen_cw_roundtrips(tmp, cap, v, 16)) {
        snprintf(tmp, cap, "%.17g", v);
    }
}

int gen_format_number(char *buf, size_t cap, double v, int decimals) {
    char tmp[400]; /* %.17f of DBL_MAX is 327 characters */
    if (!buf || cap == 0) return 0;
    if (isnan(v)) {
        buf[0] = 0;
        return 0;
    }
    size_t n;
    if (decimals >= 0 && isfinite(v)) {
        int d = decimals > 17 ? 17 : decimals;
        snprintf(tmp, sizeof tmp, "%.*f", d, v);
        n = strlen(tmp);
        if (memchr(tmp, '.', n)) {
            while (n > 0 && tmp[n - 1] == '0') n--;
            if (n > 0 && tmp[n - 1] == '.') n--;
            tmp[n] = 0;
        }
        if (strcmp(tmp, "-0") == 0) {
            tmp[0] = '0';
            tmp[1] = 0;
            n = 1;
        }
        if (n >= cap) { /* a huge value in a small buffer: the %g form is short */
            gen_cw_shortest(tmp, sizeof tmp, v);
            n = strlen(tmp);
        }
    } else {
        gen_cw_shortest(tmp, sizeof tmp, v);
        n = strlen(tmp);
    }
    if (n >= cap) {
        buf[0] = 0;
        return 0;
    }
    memcpy(buf, tmp, n + 1);
    return (int)n;
}

/* ---- the writer ------------------------------------------------------------------------ */

/* The process umask, read without changing it (umask() would race with other threads). */
static mode_t gen_cw_umask(void) {
    mode_t m = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return m;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Umask:", 6) == 0) {
            m = (mode_t)strtol(line + 6, NULL, 8);
            break;
        }
    }
    fclose(f);
    return m;
}

static genesis_status gen_cw_io_error(gen_csv_writer *w, const char *what, int e) {
    if (w->st == GENESIS_OK)
        w->st = gen_set_error(w->ctx, GENESIS_ERR_IO,
                              "%s: cannot %s: %s — check free disk space, permissions and "
                              "that the folder exists",
                              w->path, what, strerror(e));
    return w->st;
}

static genesis_status gen_cw_write_out(gen_csv_writer *w, const char *s, size_t len) {
    if (w->fd < 0) {
        if (len && fwrite(s, 1, len, stdout) != len) return gen_cw_io_error(w, "write", errno);
        return GENESIS_OK;
    }
    while (len > 0) {
        ssize_t k = write(w->fd, s, len);
        if (k < 0) {
            if (errno == EINTR) continue;
            return gen_cw_io_error(w, "write", errno);
        }
        s += k;
        len -= (size_t)k;
    }
    return GENESIS_OK;
}

static genesis_status gen_cw_flush(gen_csv_writer *w) {
    if (w->st != GENESIS_OK) return w->st;
    genesis_status st = gen_cw_write_out(w, w->buf, w->len);
    w->len = 0;
    return st;
}

static void gen_cw_free(gen_csv_writer *w) {
    free(w->path);
    free(w->tmp);
    free(w->dir);
    free(w->buf);
    free(w);
}

genesis_status gen_csv_writer_open(genesis_ctx *ctx, const char *path, char delimiter,
                                   gen_csv_writer **out) {
    if (!out) return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG, "csv writer: out is NULL");
    *out = NULL;
    GEN_RETURN_IF(!path || !path[0], ctx, GENESIS_ERR_INVALID_ARG,
                  "no output file given — pass a file name, or \"-\" for stdout");
    GEN_RETURN_IF(delimiter == 0 || delimiter == '"' || delimiter == '\r' || delimiter == '\n',
                  ctx, GENESIS_ERR_INVALID_ARG,
                  "%s: the delimiter cannot be NUL, a quote or a line break — use e.g. ',' ';' "
                  "or '\\t'",
                  path);
    gen_csv_writer *w = calloc(1, sizeof *w);
    if (!w) return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory", path);
    w->ctx = ctx;
    w->fd = -1;
    w->delim = delimiter;
    w->path = gen_strdup(path);
    w->buf = malloc(GEN_CW_BUF);
    if (!w->path || !w->buf) {
        gen_cw_free(w);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory", path);
    }
    if (strcmp(path, "-") == 0) {
        *out = w;
        return GENESIS_OK;
    }
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) {
        gen_cw_free(w);
        return gen_set_error(ctx, GENESIS_ERR_IO,
                             "%s: cannot write: %s — give a file name, not a folder", path,
                             strerror(EISDIR));
    }
    if (exists && !S_ISREG(sb.st_mode)) { /* a device or a pipe: written in place */
        w->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (w->fd < 0) {
            int e = errno;
            genesis_status st = gen_set_error(ctx, GENESIS_ERR_IO, "%s: cannot write: %s", path,
                                              strerror(e));
            gen_cw_free(w);
            return st;
        }
        *out = w;
        return GENESIS_OK;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    w->dir = malloc(dlen + 2);
    size_t tlen = strlen(path) + 16;
    w->tmp = malloc(tlen);
    if (!w->dir || !w->tmp) {
        gen_cw_free(w);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!slash) strcpy(w->dir, ".");
    else if (dlen == 0) strcpy(w->dir, "/");
    else {
        memcpy(w->dir, path, dlen);
        w->dir[dlen] = 0;
    }
    if (!base[0]) {
        gen_cw_free(w);
        return gen_set_error(ctx, GENESIS_ERR_INVALID_ARG,
                             "%s: not a file name (it ends with '/') — name the output file",
                             path);
    }
    snprintf(w->tmp, tlen, "%.*s.%s.tmp.XXXXXX", (int)(base - path), path, base);
    w->fd = mkstemp(w->tmp);
    if (w->fd < 0) {
        int e = errno;
        genesis_status st = gen_set_error(ctx, GENESIS_ERR_IO,
                                          "%s: cannot create a file in %s: %s — check that the "
                                          "folder exists and is writable",
                                          path, w->dir, strerror(e));
        gen_cw_free(w);
        return st;
    }
    /* mkstemp makes the file 0600; give it the mode a plain fopen would have (or keep the
     * mode of the file being replaced). */
    mode_t mode = exists ? (sb.st_mode & 07777) : (0666 & ~gen_cw_umask());
    if (fchmod(w->fd, mode) != 0) { /* not fatal: the data is what matters */
        gen_log(ctx, GENESIS_LOG_DEBUG, "%s: fchmod failed: %s", w->tmp, strerror(errno));
    }
    *out = w;
    return GENESIS_OK;
}

genesis_status gen_csv_writer_raw(gen_csv_writer *w, const char *s, size_t len) {
    if (!w) return GENESIS_ERR_INVALID_ARG;
    if (w->st != GENESIS_OK) return w->st;
    if (len > GEN_CW_BUF - w->len) {
        GEN_TRY(gen_cw_flush(w));
        if (len >= GEN_CW_BUF) return gen_cw_write_out(w, s, len);
    }
    if (len) memcpy(w->buf + w->len, s, len);
    w->len += len;
    return GENESIS_OK;
}

genesis_status gen_csv_writer_field(gen_csv_writer *w, const char *s, size_t len, int last) {
    if (!w) return GENESIS_ERR_INVALID_ARG;
    if (w->st != GENESIS_OK) return w->st;
    if (!s) len = 0;
    size_t need = gen_csv_field_size(s, len, w->delim) + 1;
    if (need > GEN_CW_BUF - w->len) GEN_TRY(gen_cw_flush(w));
    if (need <= GEN_CW_BUF) {
        size_t k = gen_csv_format_field(w->buf + w->len, GEN_CW_BUF - w->len, s, len, w->delim);
        w->len += k;
    } else { /* a field larger than the whole buffer */
        char *tmp = malloc(need);
        if (!tmp) {
            w->st = gen_set_error(w->ctx, GENESIS_ERR_NOMEM, "%s: out of memory", w->path);
            return w->st;
        }
        size_t k = gen_csv_format_field(tmp, need, s, len, w->delim);
        genesis_status st = gen_cw_write_out(w, tmp, k);
        free(tmp);
        GEN_TRY(st);
    }
    w->buf[w->len++] = last ? '\n' : w->delim;
    return GENESIS_OK;
}

genesis_status gen_csv_writer_close(gen_csv_writer *w, int commit) {
    if (!w) return GENESIS_OK;
    genesis_status st = GENESIS_OK;
    if (commit) {
        st = gen_cw_flush(w);
        if (st == GENESIS_OK && w->fd < 0 && fflush(stdout) != 0)
            st = gen_cw_io_error(w, "write", errno);
        if (st == GENESIS_OK && w->fd >= 0) {
            if (fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
                st = gen_cw_io_error(w, "write (fsync)", errno);
            int fd = w->fd;
            w->fd = -1;
            if (close(fd) != 0 && st == GENESIS_OK) st = gen_cw_io_error(w, "write (close)", errno);
            if (st == GENESIS_OK && w->tmp && rename(w->tmp, w->path) != 0)
                st = gen_cw_io_error(w, "rename the finished temporary file onto it", errno);
            if (st == GENESIS_OK && w->tmp) {
                free(w->tmp); /* renamed: nothing left to remove */
                w->tmp = NULL;
                int dfd = open(w->dir, O_RDONLY);
                if (dfd >= 0) {
                    (void)fsync(dfd); /* best effort: makes the rename itself durable */
                    close(dfd);
                }
            }
        }
    }
    if (w->fd >= 0) close(w->fd);
    if (w->tmp) unlink(w->tmp);
    gen_cw_free(w);
    return st;
}
