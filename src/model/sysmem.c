/*
 * sysmem.c — host memory facts for the memory model (sysmem.h): /proc/meminfo,
 * /proc/self/status and the cgroup files (v2: /sys/fs/cgroup/memory.max and memory.current;
 * v1: memory/memory.limit_in_bytes and memory.usage_in_bytes), as documented in the Linux
 * kernel's Documentation/filesystems/proc.rst and admin-guide/cgroup-v2.rst.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysmem.h"

/* The value in kB of `key` in a "Key:   1234 kB" file, in bytes; 0 if absent. */
static uint64_t proc_kb(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            v = strtoull(line + kl + 1, NULL, 10) * 1024u;
            break;
        }
    }
    fclose(f);
    return v;
}

/* A number in a one-line file; 0 for "max", a missing file or garbage. */
static uint64_t file_u64(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[64] = "";
    uint64_t v = 0;
    if (fgets(buf, sizeof buf, f) && isdigit((unsigned char)buf[0])) v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

/* The cgroup's limit and usage (0, 0 when there is no limit). Very large v1 "limits"
 * (no limit set) are ignored. */
static void cgroup_limit(uint64_t *limit, uint64_t *usage) {
    *limit = file_u64("/sys/fs/cgroup/memory.max");
    *usage = file_u64("/sys/fs/cgroup/memory.current");
    if (*limit == 0) {
        *limit = file_u64("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        *usage = file_u64("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        if (*limit >= (UINT64_C(1) << 60)) *limit = 0;
    }
}

uint64_t gen_host_available_bytes(void) {
    uint64_t avail = proc_kb("/proc/meminfo", "MemAvailable");
    uint64_t lim, use;
    cgroup_limit(&lim, &use);
    if (lim > 0) {
        uint64_t room = lim > use ? lim - use : 0;
        if (avail == 0 || room < avail) avail = room;
    }
    return avail;
}

uint64_t gen_host_total_bytes(void) {
    uint64_t tot = proc_kb("/proc/meminfo", "MemTotal");
    uint64_t lim, use;
    cgroup_limit(&lim, &use);
    if (lim > 0 && (tot == 0 || lim < tot)) tot = lim;
    return tot;
}

uint64_t gen_rss_bytes(void) { return proc_kb("/proc/self/status", "VmRSS"); }
uint64_t gen_rss_peak_bytes(void) { return proc_kb("/proc/self/status", "VmHWM"); }

int gen_rss_peak_reset(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    ok &= fclose(f) == 0;
    return ok ? 0 : -1;
}

int gen_parse_bytes(const char *s, uint64_t *out) {
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s) && *s != '.') return -1;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0) return -1;
    while (isspace((unsigned char)*end)) end++;
    double mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1024.0; end++; break;
    case 'M': mul = 1024.0 * 1024; end++; break;
    case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (mul > 1 && toupper((unsigned char)*end) == 'I') end++;
    if (toupper((unsigned char)*end) == 'B') end++;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    double b = v * mul;
    if (b >= 18446744073709549568.0) return -1;
    *out = (uint64_t)b;
    return 0;
}
