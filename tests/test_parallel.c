/*
 * test_parallel.c - parallel_for (common/parallel.c) with its thread pool:
 * every index of the range is visited exactly once (counted per index)
 *   loops        sizes 0 .. 10^5, grains 1 .. > n, 1 .. 64 threads, many
 *                loops in a row on the same pool
 *   nested       a loop inside a worker's chunk (the pool is in use: the
 *                inner loop starts its own threads)
 *   concurrent   two threads running loops at the same time
 *   fork         a child forked after the pool exists runs loops too
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parallel.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(parallel, .timeout = 300);

struct pcount {
    atomic_uint *hits;
    size_t n;
    unsigned inner_threads; /* > 0: run a nested loop per chunk */
};

static atomic_uint nested_bad;

static void inner_fn(void *arg, size_t b, size_t e)
{
    atomic_uint *hits = arg;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add(&hits[i], 1);
}

static void pcount_fn(void *arg, size_t b, size_t e)
{
    struct pcount *c = arg;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add(&c->hits[i], 1);
    if (c->inner_threads) {
        /* each outer chunk also counts 8 private slots after n, 1 each */
        atomic_uint *mine = calloc(8, sizeof(atomic_uint));
        parallel_for(8, 1, c->inner_threads, inner_fn, mine);
        for (int k = 0; k < 8; k++)
            if (!mine || atomic_load(&mine[k]) != 1)
                atomic_fetch_add(&nested_bad, 1); /* no cr_assert off the test thread */
        free(mine);
    }
}

/* Runs one loop and checks each of the n indices was visited once. */
static void check_loop(size_t n, size_t grain, unsigned threads, unsigned inner)
{
    struct pcount c = { calloc(n + 1, sizeof(atomic_uint)), n, inner };
    cr_assert(c.hits);
    parallel_for(n, grain, threads, pcount_fn, &c);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(atomic_load(&c.hits[i]), 1,
                     "n %zu grain %zu threads %u: index %zu visited %u times", n,
                     grain, threads, i, atomic_load(&c.hits[i]));
    free(c.hits);
}

Test(parallel, loops, .timeout = 60)
{
    static const size_t sizes[] = { 0, 1, 2, 7, 100, 4096, 100000 };
    static const size_t grains[] = { 1, 3, 64, 1000, 200000 };
    static const unsigned threads[] = { 0, 1, 2, 3, 16, 64 };
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof grains / sizeof grains[0]; b++)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
                check_loop(sizes[a], grains[b], threads[t], 0);
    for (int r = 0; r < 2000; r++) /* many short loops on the same pool */
        check_loop(64, 1, 4, 0);
}

Test(parallel, nested, .timeout = 60)
{
    for (int r = 0; r < 20; r++)
        check_loop(32, 1, 4, 3);
    cr_assert_eq(atomic_load(&nested_bad), 0, "nested loops missed or repeated slots");
}

/* 300 loops; returns the number of wrong counts (no cr_assert here: it
 * also runs on a second thread). */
static void *loop_thread(void *arg)
{
    size_t bad = 0;
    for (int r = 0; r < 300; r++) {
        atomic_uint *hits = calloc(1000, sizeof(atomic_uint));
        parallel_for(1000, 7, 3, inner_fn, hits);
        for (int i = 0; i < 1000; i++)
            bad += !hits || atomic_load(&hits[i]) != 1;
        free(hits);
    }
    *(size_t *)arg = bad;
    return NULL;
}

Test(parallel, concurrent, .timeout = 60)
{
    pthread_t t;
    size_t bad1 = 1, bad2 = 1;
    cr_assert_eq(pthread_create(&t, NULL, loop_thread, &bad1), 0);
    loop_thread(&bad2);
    pthread_join(t, NULL);
    cr_assert_eq(bad1 + bad2, 0, "concurrent loops: %zu wrong counts", bad1 + bad2);
}

Test(parallel, fork, .timeout = 60)
{
    check_loop(1000, 1, 4, 0); /* the pool exists now */
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        /* no cr_assert in the child: report through the exit status */
        atomic_uint *hits = calloc(1000, sizeof(atomic_uint));
        parallel_for(1000, 1, 4, inner_fn, hits);
        for (int i = 0; i < 1000; i++)
            if (atomic_load(&hits[i]) != 1)
                _exit(1);
        _exit(0);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "loop in a forked child");
    check_loop(1000, 1, 4, 0);
}
