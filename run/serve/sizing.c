/* sizing.c — serve's defaults from the machine (see sizing.h). */
#include "sizing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

/* a cgroup file holding one number or "max": the number, or 0 with *is_max
 * (v1 writes "no limit" as a number near 2^63) */
static uint64_t cg_number(const char *path, int *is_max)
{
    char buf[64];
    FILE *f = fopen(path, "re");
    *is_max = 1;
    if (!f)
        return 0;
    uint64_t v = 0;
    if (fgets(buf, sizeof(buf), f) && strncmp(buf, "max", 3) != 0) {
        v = strtoull(buf, NULL, 10);
        *is_max = v >= (1ull << 60);
    }
    fclose(f);
    return v;
}

/* lowers *avail to limit - usage of the cgroup directory dir, if it has one */
static void consider(struct sizing *s, uint64_t *avail, const char *dir, const char *limit,
                     const char *usage)
{
    char path[512];
    int is_max, cur_max;
    snprintf(path, sizeof(path), "%s/%s", dir, limit);
    uint64_t max = cg_number(path, &is_max);
    snprintf(path, sizeof(path), "%s/%s", dir, usage);
    uint64_t cur = cg_number(path, &cur_max);
    if (is_max)
        return;
    uint64_t left = max > cur ? max - cur : 0;
    if (left < *avail) {
        *avail = left;
        snprintf(s->cgroup, sizeof(s->cgroup), "cgroup %.190s", dir);
        s->usable_from = s->cgroup;
    }
}

uint64_t sizing_usable(struct sizing *s)
{
    char line[512], dir[400];
    uint64_t avail = 0;
    FILE *f = fopen("/proc/meminfo", "re");
    if (f) {
        while (fgets(line, sizeof(line), f))
            if (strncmp(line, "MemAvailable:", 13) == 0)
                avail = strtoull(line + 13, NULL, 10) * 1024; /* kB */
        fclose(f);
    }
    s->usable_from = "MemAvailable";
    if (!(f = fopen("/proc/self/cgroup", "re")))
        return s->usable_bytes = avail;
    /* v2: "0::/a/b", under /sys/fs/cgroup; v1: "N:memory:/a/b" (or with
     * other controllers), under /sys/fs/cgroup/memory. The directory and
     * each ancestor up to the mount (a cgroup namespace shows only those) */
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        const char *base, *lim, *use;
        char *path;
        if (strncmp(line, "0::", 3) == 0) {
            base = "/sys/fs/cgroup";
            lim = "memory.max";
            use = "memory.current";
            path = line + 3;
        } else {
            char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2)
                continue;
            *c2 = 0;
            if (!strstr(c1 + 1, "memory"))
                continue;
            base = "/sys/fs/cgroup/memory";
            lim = "memory.limit_in_bytes";
            use = "memory.usage_in_bytes";
            path = c2 + 1;
        }
        for (;;) {
            snprintf(dir, sizeof(dir), "%s%.300s", base, strcmp(path, "/") ? path : "");
            consider(s, &avail, dir, lim, use);
            char *slash = strrchr(path, '/');
            if (!slash || slash == path)
                break;
            *slash = 0;
        }
        snprintf(dir, sizeof(dir), "%s", base);
        consider(s, &avail, dir, lim, use);
    }
    fclose(f);
    return s->usable_bytes = avail;
}

void sizing_pick(struct sizing *s, unsigned synthds, unsigned gpuds, int slots_given,
                 int slot_bytes_given, uint64_t key_slot_bytes, unsigned *slots,
                 uint64_t *slot_bytes)
{
    sizing_usable(s);
    s->pool_budget_bytes = s->usable_bytes / 8;
    if (s->pool_budget_bytes > SIZING_POOL_MAX)
        s->pool_budget_bytes = SIZING_POOL_MAX;
    s->slot_bytes_from = slot_bytes_given ? "--slot-bytes" : key_slot_bytes ? "largest --key"
                                                                             : "memory";
    s->slots_from = slots_given ? "--slots" : "default";
    if (!slots_given) {
        unsigned want = synthds + 2 * gpuds;
        if (want > POOL_MAX_SLOTS)
            want = POOL_MAX_SLOTS;
        if (*slot_bytes && (uint64_t)want * *slot_bytes > s->pool_budget_bytes) {
            uint64_t fit = s->pool_budget_bytes / *slot_bytes;
            want = fit < 2 ? 2 : (unsigned)fit;
            s->slots_from = "default, memory-limited";
        }
        *slots = want;
    }
    if (!*slot_bytes) {
        uint64_t b = s->pool_budget_bytes / *slots;
        b &= ~((1ull << 20) - 1);
        if (b < SIZING_SLOT_MIN)
            b = SIZING_SLOT_MIN;
        if (b > SIZING_SLOT_MAX)
            b = SIZING_SLOT_MAX;
        *slot_bytes = b;
    }
}
