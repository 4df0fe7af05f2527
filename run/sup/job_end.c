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

static void end_job(struct core *c, struct job *j, enum job_state st, const char *reason,
                    enum fail_cause cause)
{
    if (!jobs_end(j, st, reason))
        return;
    dispatch_end(&c->dsp, &j->d);
    if (st != JOB_DONE)
        free_ready_slots(c, j);
    uint64_t ms = j->t_end_ns > j->t_submit_ns ? (j->t_end_ns - j->t_submit_ns) / 1000000 : 0;
    if (st == JOB_DONE) {
        c->c.jobs_done++;
        sup_log(LOG_NOTE, "event=job_done job=%s partitions=%u ms=%llu|job %s done: %u partition%s proved",
                j->id, j->d.nparts, (unsigned long long)ms, j->id, j->d.nparts,
                j->d.nparts == 1 ? "" : "s");
    } else if (st == JOB_FAILED) {
        c->c.jobs_failed++;
        if (!c->o.one_job)
            sup_log(LOG_WARN, "event=job_failed job=%s cause=%s ms=%llu|job %s failed: %s", j->id,
                    fail_cause_name(cause), (unsigned long long)ms, j->id, j->error);
    } else {
        sup_log(LOG_NOTE, "event=job_cancelled job=%s ms=%llu|job %s cancelled", j->id,
                (unsigned long long)ms, j->id);
    }
    if (c->hooks.job_ended)
        c->hooks.job_ended(c->hooks.ctx, j);
}

const char *fail_cause_name(enum fail_cause cause)
{
    static const char *const names[FAIL_NCAUSES] = {
        "input", "key", "slot_size", "crashes", "file_timeout", "stuck", "no_process",
        "internal",
    };
    return cause < FAIL_NCAUSES ? names[cause] : "internal";
}

void core_fail_job(struct core *c, struct job *j, enum fail_cause cause, const char *fmt, ...)
{
    char why[JOB_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (j->state == JOB_RUNNING && cause < FAIL_NCAUSES)
        c->c.jobs_failed_by[cause]++;
    end_job(c, j, JOB_FAILED, why, cause);
}

void core_finish_job(struct core *c, struct job *j)
{
    end_job(c, j, JOB_DONE, NULL, FAIL_NCAUSES);
}

void core_cancel_job(struct core *c, struct job *j)
{
    end_job(c, j, JOB_CANCELLED, "cancelled", FAIL_NCAUSES);
}
