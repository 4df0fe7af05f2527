/* job_end.h — ending a running job (job_end.c). */
#ifndef SLOTPROVE_JOB_END_H
#define SLOTPROVE_JOB_END_H

#include "core_state.h"

/* Ends a running job as failed (cause, reason) or cancelled. The cause is
 * counted (counters.jobs_failed_by, status "jobs_failed_by_cause", metric
 * slotprove_jobs_failed_total{cause=...}: fail_cause_name). */
void core_fail_job(struct core *c, struct job *j, enum fail_cause cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "input", "key", "slot_size", "crashes", "file_timeout", "stuck",
 * "no_process", "internal". */
const char *fail_cause_name(enum fail_cause cause);
void core_cancel_job(struct core *c, struct job *j);

/* Ends a job whose every partition is proved (the dispatcher said so). */
void core_finish_job(struct core *c, struct job *j);

#endif
