/*
 * test_sizing.c — serve's defaults from the machine (run/serve/sizing.c):
 * the memory figure against /proc/meminfo read here, and the slot rules
 * (sizing.h) recomputed from the budget it reports.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

TestSuite(sizing, .timeout = 60);

static uint64_t meminfo_available(void)
{
    char line[256];
    uint64_t v = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    cr_assert(f);
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lu kB", &v) == 1)
            break;
    fclose(f);
    return v * 1024;
}

Test(sizing, usable_is_at_most_memavailable)
{
    struct sizing s;
    memset(&s, 0, sizeof(s));
    uint64_t before = meminfo_available();
    uint64_t u = sizing_usable(&s);
    uint64_t after = meminfo_available();
    uint64_t hi = before > after ? before : after;
    cr_assert_gt(u, 0);
    cr_assert_leq(u, hi + (hi >> 4), "usable %lu, MemAvailable %lu", u, hi);
    if (strcmp(s.usable_from, "MemAvailable") == 0) {
        uint64_t lo = before < after ? before : after;
        cr_assert_geq(u, lo - (lo >> 4), "usable %lu, MemAvailable %lu", u, lo);
    } else {
        cr_assert(strncmp(s.usable_from, "cgroup /", 8) == 0, "%s", s.usable_from);
    }
}

Test(sizing, no_key_splits_the_budget)
{
    struct sizing s;
    memset(&s, 0, sizeof(s));
    unsigned slots = 0;
    uint64_t b = 0;
    sizing_pick(&s, 2, 1, 0, 0, 0, &slots, &b);
    cr_assert_eq(slots, 4);
    uint64_t want = s.usable_bytes / 8;
    if (want > SIZING_POOL_MAX)
        want = SIZING_POOL_MAX;
    cr_assert_eq(s.pool_budget_bytes, want);
    want = want / 4 / 1048576 * 1048576;
    want = want < SIZING_SLOT_MIN ? SIZING_SLOT_MIN : want > SIZING_SLOT_MAX ? SIZING_SLOT_MAX : want;
    cr_assert_eq(b, want);
    cr_assert_str_eq(s.slot_bytes_from, "memory");
    cr_assert_str_eq(s.slots_from, "default");
}

Test(sizing, given_slots_and_bytes_are_kept)
{
    struct sizing s;
    memset(&s, 0, sizeof(s));
    unsigned slots = 7;
    uint64_t b = 3 << 20;
    sizing_pick(&s, 2, 1, 1, 1, 0, &slots, &b);
    cr_assert_eq(slots, 7);
    cr_assert_eq(b, 3 << 20);
    cr_assert_str_eq(s.slots_from, "--slots");
    cr_assert_str_eq(s.slot_bytes_from, "--slot-bytes");
}

Test(sizing, big_slots_are_fewer_but_at_least_two)
{
    struct sizing s;
    memset(&s, 0, sizeof(s));
    unsigned slots = 0;
    uint64_t budget = 0;
    sizing_pick(&s, 2, 1, 0, 0, 0, &slots, &budget);
    budget = s.pool_budget_bytes;
    /* a key needing over a third of the budget: 2 slots of the 4 wanted */
    uint64_t b = budget / 3 + 4096;
    slots = 0;
    sizing_pick(&s, 2, 1, 0, 0, b, &slots, &b);
    cr_assert_eq(slots, (unsigned)(s.pool_budget_bytes / (budget / 3 + 4096)));
    cr_assert_str_eq(s.slots_from, "default, memory-limited");
    cr_assert_str_eq(s.slot_bytes_from, "largest --key");
    /* larger than the whole budget: still 2, so one can fill while one proves */
    b = budget * 2;
    sizing_pick(&s, 2, 1, 0, 1, 0, &slots, &b);
    cr_assert_eq(slots, 2);
    cr_assert_eq(b, budget * 2);
}

Test(sizing, slots_follow_the_processes)
{
    struct sizing s;
    memset(&s, 0, sizeof(s));
    unsigned slots = 0;
    uint64_t b = 1 << 20;
    sizing_pick(&s, 8, 4, 0, 1, 0, &slots, &b);
    cr_assert_eq(slots, 16);
    sizing_pick(&s, 64, 16, 0, 1, 0, &slots, &b);
    cr_assert_eq(slots, 96);
}
