/*
 * sysmem.h — what the host has and what this process uses: available memory (the kernel's
 * MemAvailable, lowered by a cgroup limit when one is set), the resident set now and at its
 * peak, and the size strings users type ("8GB", "512MiB", "1.5G").
 */
#ifndef GEN_SYSMEM_H
#define GEN_SYSMEM_H

#include <stdint.h>

/* Bytes the process could still allocate without swapping: MemAvailable from /proc/meminfo,
 * capped by the cgroup (v2 memory.max - memory.current, or v1 limit - usage). 0 if unknown. */
uint64_t gen_host_available_bytes(void);
/* Total RAM (MemTotal), capped by the cgroup limit. 0 if unknown. */
uint64_t gen_host_total_bytes(void);
/* Resident set of this process now (VmRSS) and at its peak (VmHWM); 0 if unknown. */
uint64_t gen_rss_bytes(void);
uint64_t gen_rss_peak_bytes(void);
/* Resets the peak so that VmHWM measures from now (Linux clear_refs 5). Returns 0 on
 * success, -1 where the kernel does not allow it. */
int gen_rss_peak_reset(void);
/* Parses "8GB", "8G", "8GiB", "512MB", "100000" (bytes), "1.5g" — K/M/G/T are powers of
 * 1024 with or without "i"/"B". Returns 0 and sets *out, or -1 for anything else. */
int gen_parse_bytes(const char *s, uint64_t *out);

#endif /* GEN_SYSMEM_H */
