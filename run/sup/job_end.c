/*
 * job_end.c — a job ends (job_end.h): the dispatcher forgets it, its READY
 * slots are freed, the counters and the user's job_ended hook see it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "job_end.h"
#include "log.h"
#include "slot.h"

/* Frees READY slots that still hold this (ended) job's partitions. */
static void free_ready_slots(struct core *c, const struct job *j)
{
    for (uint32_t s = 0; s < c->pool.nslots; s++) {
        uint64_t w = slot_word(&c->pool, s);
        struct slot_header h;
        if (slot_state_of(w) == SLOT_READY && slot_read_header(&c->pool, s, &h) == 0 &&
            h.job_id == j->d.num)
            slot_force_free(&c->pool, s, slot_gen_of(w));
    }
}

static void end_job(struct core *c, struct job *j, enum job_state st, const char *reason)
{
    if (!jobs_end(j, st, reason))
        return;
    dispatch_end(&c->dsp, &j->d);
    if (st != JOB_DONE)
        free_ready_slots(c, j);
    if (st == JOB_DONE)
        c->c.jobs_done++;
    else if (st == JOB_FAILED) {
        c->c.jobs_failed++;
        sup_log(LOG_WARN, "job %s failed: %s", j->id, j->error);
    }
    if (c->hooks.job_ended)
        c->hooks.job_ended(c->hooks.ctx, j);
}

void core_fail_job(struct core *c, struct job *j, const char *fmt, ...)
{
    char why[JOB_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    end_job(c, j, JOB_FAILED, why);
}

void core_finish_job(struct core *c, struct job *j)
{
    end_job(c, j, JOB_DONE, NULL);
}

void core_cancel_job(struct core *c, struct job *j)
{
    end_job(c, j, JOB_CANCELLED, "cancelled");
}
