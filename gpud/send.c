/* send.c — gpud's messages to the supervisor (see send.h). */
#include "send.h"

#include <pthread.h>

#include "state.h"

/* Workers and the main thread send: one message at a time on the socket,
 * each built in its thread's own buffer. */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

void send_ctl(const struct ctl_msg *m)
{
    pthread_mutex_lock(&send_lock);
    child_send(&gpud_args, m);
    pthread_mutex_unlock(&send_lock);
}

void send_msg(uint32_t type, uint64_t job, uint32_t part, uint32_t key_id, int status,
              const struct stage_times *t, const char *text)
{
    static __thread struct ctl_msg m;
    ctl_init(&m, type);
    m.job_id = job;
    m.partition = part;
    m.key_id = key_id;
    m.status = status;
    if (t)
        m.times = *t;
    ctl_text(&m, "%s", text ? text : "");
    send_ctl(&m);
}

/* the partition this worker thread proves, for send_progress */
static __thread struct progress_ctx *worker_pc;

void progress_set(struct progress_ctx *pc)
{
    worker_pc = pc;
}

/* Each finished stage goes to the supervisor: progress for long proofs.
 * The backend is shared by the workers; the partition is the calling
 * thread's. */
void send_progress(void *arg, enum stage s, uint64_t ns)
{
    struct progress_ctx *p = worker_pc ? worker_pc : arg;
    static __thread struct ctl_msg m;
    if (!p)
        return;
    ctl_init(&m, CTL_PROGRESS);
    m.job_id = p->job;
    m.partition = p->partition;
    m.stage = (uint32_t)s;
    m.times.ns[s] = ns;
    send_ctl(&m);
}
