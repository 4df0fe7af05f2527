/* parallel.c — see parallel.h. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
    size_t n, grain;
    parallel_fn fn;
    void *ctx;
    atomic_size_t next;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    for (;;) {
        size_t b = atomic_fetch_add(&j->next, j->grain);
        if (b >= j->n)
            break;
        size_t e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->ctx, b, e);
    }
    return NULL;
}

unsigned parallel_threads(void)
{
    const char *s = getenv("SLOTPROVE_THREADS");
    if (s) {
        long v = strtol(s, NULL, 10);
        if (v >= 1 && v <= 1024)
            return (unsigned)v;
    }
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 ? (unsigned)c : 1;
}

void parallel_for(size_t n, size_t grain, unsigned nthreads, parallel_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    if (nthreads == 0)
        nthreads = parallel_threads();
    size_t chunks = (n + grain - 1) / grain;
    if (chunks < nthreads)
        nthreads = (unsigned)chunks;
    if (nthreads <= 1) {
        fn(ctx, 0, n);
        return;
    }
    struct job j = { .n = n, .grain = grain, .fn = fn, .ctx = ctx };
    atomic_init(&j.next, 0);
    pthread_t tid[nthreads];
    unsigned started = 0;
    for (unsigned t = 1; t < nthreads; t++) {
        if (pthread_create(&tid[started], NULL, worker, &j) != 0)
            break;
        started++;
    }
    worker(&j);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
