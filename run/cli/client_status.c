/* client_status.c — `slotprove status` without --json: a short summary of
 * the daemon's status object (client_status.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_conn.h"
#include "client_status.h"

/* o's member key as an integer (0 when absent or not a number). */
static long long num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v)
           : json_is_real(v)  ? (long long)json_real_value(v) : 0;
}

/* o's member key as sanitized text in buf ("-" when absent). */
static const char *text(json_t *o, const char *key, char *buf, size_t cap)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(buf, cap, "%s", s ? s : "-");
    client_sanitize(buf);
    return buf;
}

/* bytes as "512 KiB", "8.0 MiB", "2.73 GiB" into buf. */
static const char *bytes(long long b, char *buf, size_t cap)
{
    if (b >= 1ll << 30)
        snprintf(buf, cap, "%.2f GiB", b / 1073741824.0);
    else if (b >= 1ll << 20)
        snprintf(buf, cap, "%.1f MiB", b / 1048576.0);
    else
        snprintf(buf, cap, "%lld KiB", b >> 10);
    return buf;
}

/* seconds as "3d 4h", "2h 05m", "7m 12s", "42s" into buf. */
static const char *duration(long long s, char *buf, size_t cap)
{
    if (s >= 86400)
        snprintf(buf, cap, "%lldd %lldh", s / 86400, s % 86400 / 3600);
    else if (s >= 3600)
        snprintf(buf, cap, "%lldh %02lldm", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        snprintf(buf, cap, "%lldm %02llds", s / 60, s % 60);
    else
        snprintf(buf, cap, "%llds", s);
    return buf;
}

static void processes(json_t *st)
{
    json_t *procs = json_object_get(st, "processes"), *p;
    size_t i;
    char role[32], state[32], b[32], backend[120], job[40];
    printf("processes:\n  %-12s %-8s %-9s %8s %10s\n", "role", "pid", "state", "restarts", "Pss");
    json_array_foreach(procs, i, p) {
        text(p, "role", role, sizeof(role));
        if (json_object_get(p, "index"))
            snprintf(role + strlen(role), sizeof(role) - strlen(role), " %lld", num(p, "index"));
        printf("  %-12s %-8lld %-9s ", role, num(p, "pid"), text(p, "state", state, sizeof(state)));
        if (json_object_get(p, "restarts"))
            printf("%8lld", num(p, "restarts"));
        else
            printf("%8s", "");
        printf(" %10s", bytes(num(p, "pss_kib") << 10, b, sizeof(b)));
        if (json_object_get(p, "proofs"))
            printf("  %lld proof%s", num(p, "proofs"), num(p, "proofs") == 1 ? "" : "s");
        if (json_object_get(p, "job"))
            printf("  job %s partition %lld", text(p, "job", job, sizeof(job)), num(p, "partition"));
        if (json_object_get(p, "backend"))
            printf("  %s", text(p, "backend", backend, sizeof(backend)));
        if (json_object_get(p, "stop_reason") || json_object_get(p, "backoff_reason")) {
            char why[200];
            printf("  (%s)", text(p, json_object_get(p, "backoff_reason") ? "backoff_reason" : "stop_reason",
                                  why, sizeof(why)));
        }
        putchar('\n');
    }
    printf("  all: %s Pss (the slot pool counted once)\n",
           bytes(num(st, "group_pss_kib") << 10, b, sizeof(b)));
}

static void gpus(json_t *st)
{
    json_t *procs = json_object_get(st, "processes"), *p;
    size_t i;
    int any = 0;
    char held[32], budget[32], backend[120];
    printf("GPUs:");
    json_array_foreach(procs, i, p) {
        json_t *dm = json_object_get(p, "device_memory");
        const char *role = json_string_value(json_object_get(p, "role"));
        if (!role || strcmp(role, "gpud") != 0 || !json_is_object(dm))
            continue;
        printf("%s  gpud %lld: device memory %s held of a %s budget (%s)\n", any ? "" : "\n",
               num(p, "index"), bytes(num(dm, "held_bytes"), held, sizeof(held)),
               bytes(num(dm, "budget_bytes"), budget, sizeof(budget)),
               text(p, "backend", backend, sizeof(backend)));
        any = 1;
    }
    if (!any)
        printf(" none used (the gpuds prove on the CPU)\n");
}

void client_print_status(json_t *st)
{
    char a[64], b[64], c[64], d[64], e[64];
    json_t *jobs = json_object_get(st, "jobs"), *slots = json_object_get(st, "slots");
    json_t *cnt = json_object_get(st, "counters"), *sz = json_object_get(st, "sizing");
    printf("slotprove %s (commit %s), up %s%s\n", text(st, "version", a, sizeof(a)),
           text(st, "commit", b, sizeof(b)), duration(num(st, "uptime_s"), c, sizeof(c)),
           json_is_true(json_object_get(st, "draining")) ? ", draining (no new jobs)" : "");
    printf("jobs: %lld running (%lld partitions queued), %lld done, %lld failed, %lld cancelled\n",
           num(jobs, "running"), num(jobs, "partitions_queued"), num(jobs, "done"),
           num(jobs, "failed"), num(jobs, "cancelled"));
    json_t *pps = json_object_get(st, "proofs_per_second_1m");
    printf("proofs: %lld (%.2f/s over the last minute)", num(cnt, "proofs"),
           json_is_number(pps) ? json_number_value(pps) : 0.0);
    json_t *by = json_object_get(cnt, "jobs_failed_by_cause"), *v;
    const char *k;
    int first = 1;
    json_object_foreach(by, k, v)
        if (json_integer_value(v) > 0) {
            char name[32];
            snprintf(name, sizeof(name), "%s", k);
            client_sanitize(name);
            printf("%s%s %lld", first ? "; failed jobs by cause: " : ", ", name,
                   (long long)json_integer_value(v));
            first = 0;
        }
    putchar('\n');
    long long total = num(slots, "total"), sb = num(slots, "slot_bytes");
    printf("slots: %lld of %s each (%s in all): %lld free, %lld filling, %lld ready, %lld proving", total,
           bytes(sb, a, sizeof(a)), bytes(total * sb, b, sizeof(b)),
           num(json_object_get(slots, "FREE"), "count"), num(json_object_get(slots, "FILLING"), "count"),
           num(json_object_get(slots, "READY"), "count"), num(json_object_get(slots, "PROVING"), "count"));
    long long q = num(json_object_get(st, "quarantined_slots"), "count");
    if (q)
        printf(", %lld quarantined", q);
    putchar('\n');
    if (json_is_object(sz))
        printf("  sized from: slots %s, slot size %s%s; memory usable %s (%s), pool budget %s\n",
               text(sz, "slots_from", a, sizeof(a)), text(sz, "slot_bytes_from", b, sizeof(b)),
               json_is_false(json_object_get(sz, "prefaulted")) ? " (not prefaulted: pages come as jobs fill them)" : "",
               bytes(num(sz, "memory_usable_bytes"), c, sizeof(c)),
               text(sz, "memory_usable_from", d, sizeof(d)),
               bytes(num(sz, "pool_budget_bytes"), e, sizeof(e)));
    processes(st);
    gpus(st);
    json_t *keys = json_object_get(st, "keys"), *key;
    size_t i;
    if (json_array_size(keys)) {
        printf("keys:");
        json_array_foreach(keys, i, key)
            printf("%s %s", i ? "," : "", text(key, "name", a, sizeof(a)));
        putchar('\n');
    }
    printf("(every figure: slotprove status --json)\n");
}
