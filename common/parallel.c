/* parallel.c — see parallel.h.
 *
 * Worker threads are started once and kept (a persistent pool): a loop that
 * needs k threads wakes k−1 parked workers instead of creating and joining
 * threads each time, which matters for the many short passes of an NTT and
 * on hosts with many cores. One loop uses the pool at a time; a loop that
 * finds it in use (another thread's loop, or a nested call from inside a
 * worker) starts its own threads as before. A forked child forgets the pool
 * (pthread_atfork) and starts a new one when it needs it. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
    size_t n, grain;
    parallel_fn fn;
    void *ctx;
    atomic_size_t next;
};

static void run_job(struct job *j)
{
    for (;;) {
        size_t b = atomic_fetch_add(&j->next, j->grain);
        if (b >= j->n)
            break;
        size_t e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->ctx, b, e);
    }
}

static void *spawned(void *arg)
{
    run_job(arg);
    return NULL;
}

/* The pool. lock guards every field; a job is published by bumping gen,
 * and workers with id < want take part and count themselves in finished. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned nworkers;
    unsigned long gen;
    struct job *job;
    unsigned want, finished;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
           PTHREAD_COND_INITIALIZER, 0, 0, NULL, 0, 0 };
/* Held by the one loop that uses the pool. */
static pthread_mutex_t pool_use = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

struct worker_arg {
    unsigned id;
    unsigned long gen; /* generation at start: only later jobs are its */
};

static void *pool_worker(void *arg)
{
    struct worker_arg wa = *(struct worker_arg *)arg;
    free(arg);
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = wa.gen;
    for (;;) {
        while (pool.gen == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.gen;
        if (wa.id >= pool.want)
            continue;
        struct job *j = pool.job;
        pthread_mutex_unlock(&pool.lock);
        run_job(j);
        pthread_mutex_lock(&pool.lock);
        if (++pool.finished == pool.want)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* In a forked child only the forking thread exists: start over. */
static void pool_atfork_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pthread_mutex_init(&pool_use, NULL);
    pool.nworkers = 0;
    pool.job = NULL;
    pool.want = pool.finished = 0;
}

static void pool_register_atfork(void)
{
    pthread_atfork(NULL, NULL, pool_atfork_child);
}

/* Starts workers until there are `need` (pool.lock held). Returns how many
 * there are (fewer if a thread could not be created). */
static unsigned pool_grow(unsigned need)
{
    while (pool.nworkers < need) {
        struct worker_arg *wa = malloc(sizeof(*wa));
        if (!wa)
            break;
        wa->id = pool.nworkers;
        wa->gen = pool.gen;
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &at, pool_worker, wa);
        pthread_attr_destroy(&at);
        if (rc != 0) {
            free(wa);
            break;
        }
        pool.nworkers++;
    }
    return pool.nworkers < need ? pool.nworkers : need;
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

/* The loop on freshly created threads (the pool is in use). */
static void run_spawned(struct job *j, unsigned nthreads)
{
    pthread_t tid[nthreads];
    unsigned started = 0;
    for (unsigned t = 1; t < nthreads; t++) {
        if (pthread_create(&tid[started], NULL, spawned, j) != 0)
            break;
        started++;
    }
    run_job(j);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
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
    if (pthread_mutex_trylock(&pool_use) != 0) {
        run_spawned(&j, nthreads);
        return;
    }
    pthread_once(&atfork_once, pool_register_atfork);
    pthread_mutex_lock(&pool.lock);
    unsigned want = pool_grow(nthreads - 1);
    pool.job = &j;
    pool.want = want;
    pool.finished = 0;
    pool.gen++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_job(&j);
    pthread_mutex_lock(&pool.lock);
    while (pool.finished < pool.want)
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.job = NULL;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool_use);
}
