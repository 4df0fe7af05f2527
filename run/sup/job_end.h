/* job_end.h — ending a running job (job_end.c). */
#ifndef SLOTPROVE_JOB_END_H
#define SLOTPROVE_JOB_END_H

#include "core_state.h"

/* Ends a running job as failed (reason) or cancelled. */
void core_fail_job(struct core *c, struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void core_cancel_job(struct core *c, struct job *j);

/* Ends a job whose every partition is proved (the dispatcher said so). */
void core_finish_job(struct core *c, struct job *j);

#endif
