/* workers.c — gpud's worker threads (see workers.h). */
#include "workers.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "key_table.h"
#include "send.h"
#include "state.h"

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
static struct work queue[WORKERS_MAX];
static unsigned queued, busy, nworkers, workers_quit;
static pthread_t threads[WORKERS_MAX];
static volatile int context_lost; /* the backend's device is gone: exit, be restarted */

static void *worker_main(void *arg)
{
    (void)arg;
    gpud_backend.progress = send_progress;
    for (;;) {
        pthread_mutex_lock(&work_lock);
        while (!queued && !workers_quit)
            pthread_cond_wait(&work_cond, &work_lock);
        if (!queued) {
            pthread_mutex_unlock(&work_lock);
            return NULL;
        }
        struct work w = queue[0];
        memmove(queue, queue + 1, (--queued) * sizeof(queue[0]));
        pthread_mutex_unlock(&work_lock);

        key_table_rdlock();
        prove_work(&w); /* every key format: prove_work.h */
        key_table_unlock();
        /* the proof's freed working memory (copied-off vectors, MSM buckets
         * of every pool thread) goes back to the kernel: glibc keeps it in
         * per-thread arenas otherwise, and gpud's resident memory would creep
         * up proof after proof past one proof's working set, which the
         * memory bound counts once (tests/bench_pipeline.sh shows it) */
        malloc_trim(0);
        if (gpud_backend.ops->lost && gpud_backend.ops->lost(&gpud_backend))
            context_lost = 1;
        pthread_mutex_lock(&work_lock);
        busy--;
        pthread_cond_broadcast(&work_cond);
        pthread_mutex_unlock(&work_lock);
    }
}

int workers_start(unsigned n)
{
    nworkers = n;
    for (unsigned i = 0; i < n; i++)
        if (pthread_create(&threads[i], NULL, worker_main, NULL) != 0)
            return -1;
    return 0;
}

int workers_wait_free(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    unsigned lim = nworkers;
    if (gpud_backend.ops && gpud_backend.ops->workers_now) {
        unsigned now = gpud_backend.ops->workers_now(&gpud_backend);
        lim = now >= 1 && now < lim ? now : lim;
    }
    pthread_mutex_lock(&work_lock);
    while (busy >= lim)
        if (pthread_cond_timedwait(&work_cond, &work_lock, &ts) == ETIMEDOUT)
            break;
    int ok = busy < lim;
    pthread_mutex_unlock(&work_lock);
    return ok;
}

void workers_push(const struct work *w)
{
    pthread_mutex_lock(&work_lock);
    queue[queued++] = *w;
    busy++;
    pthread_cond_broadcast(&work_cond);
    pthread_mutex_unlock(&work_lock);
}

int workers_lost(void)
{
    return context_lost;
}

void workers_stop(void)
{
    pthread_mutex_lock(&work_lock);
    workers_quit = 1;
    pthread_cond_broadcast(&work_cond);
    pthread_mutex_unlock(&work_lock);
    for (unsigned i = 0; i < nworkers; i++)
        pthread_join(threads[i], NULL);
}
