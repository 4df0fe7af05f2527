/*
 * test_gpus.c — which GPUs `serve` puts a gpud on (run/serve/gpus.c): --gpus
 * lists at the limit and one past it, duplicates and bad items, and
 * CUDA_VISIBLE_DEVICES read as CUDA reads it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpus.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(gpus, .timeout = 120);

Test(gpus, parses_indices_and_uuids)
{
    struct gpu_list g;
    struct sp_err e;
    cr_assert_eq(gpus_parse(&g, "0,1", &e), 0);
    cr_assert_eq(g.n, 2);
    cr_assert_str_eq(g.ptr[0], "0");
    cr_assert_str_eq(g.ptr[1], "1");
    cr_assert_eq(gpus_parse(&g, "GPU-8f6e2a1c-0b7d-4c2e-9a51-3d2f1e0c9b8a,3", &e), 0);
    cr_assert_eq(g.n, 2);
    cr_assert_str_eq(g.ptr[0], "GPU-8f6e2a1c-0b7d-4c2e-9a51-3d2f1e0c9b8a");
    cr_assert_str_eq(g.ptr[1], "3");
}

Test(gpus, refuses_bad_items_by_name)
{
    struct gpu_list g;
    struct sp_err e;
    const char *bad[] = { "", "0,", ",1", "0,,1", "0 1", "1;2", "0,0" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.msg[0] = 0;
        cr_assert_lt(gpus_parse(&g, bad[i], &e), 0, "accepted \"%s\"", bad[i]);
        cr_assert_neq(e.msg[0], 0, "no message for \"%s\"", bad[i]);
    }
    gpus_parse(&g, "0,0", &e);
    cr_assert(strstr(e.msg, "named twice"), "%s", e.msg);
}

Test(gpus, at_most_gpus_max)
{
    struct gpu_list g;
    struct sp_err e;
    char list[256] = "";
    for (int i = 0; i < GPUS_MAX; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), i ? ",%d" : "%d", i);
    cr_assert_eq(gpus_parse(&g, list, &e), 0, "%s", e.msg);
    cr_assert_eq(g.n, GPUS_MAX);
    snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%d", GPUS_MAX);
    cr_assert_lt(gpus_parse(&g, list, &e), 0);
    cr_assert(strstr(e.msg, "more than"), "%s", e.msg);
}

Test(gpus, id_length_limit)
{
    struct gpu_list g;
    struct sp_err e;
    char id[GPUS_ID_MAX + 1];
    memset(id, '7', GPUS_ID_MAX - 1);
    id[GPUS_ID_MAX - 1] = 0;
    cr_assert_eq(gpus_parse(&g, id, &e), 0, "%s", e.msg); /* the longest that fits */
    memset(id, '7', GPUS_ID_MAX);
    id[GPUS_ID_MAX] = 0;
    cr_assert_lt(gpus_parse(&g, id, &e), 0);
}

Test(gpus, cuda_visible_devices)
{
    struct gpu_list g;
    setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
    gpus_visible(&g);
    cr_assert_eq(g.n, 2);
    cr_assert_str_eq(g.ptr[0], "2");
    cr_assert_str_eq(g.ptr[1], "3");
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* CUDA sees none */
    gpus_visible(&g);
    cr_assert_eq(g.n, 0);
    setenv("CUDA_VISIBLE_DEVICES", "1,x y,2", 1); /* CUDA stops at the first invalid item */
    gpus_visible(&g);
    cr_assert_eq(g.n, 1);
    cr_assert_str_eq(g.ptr[0], "1");
    setenv("CUDA_VISIBLE_DEVICES", "0,0", 1);
    gpus_visible(&g);
    cr_assert_eq(g.n, 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
}
