/* submit.h — jobs into the core (submit.c): a submission, the intake of its
 * files on helper threads (intake.h), their deadline. */
#ifndef SLOTPROVE_SUBMIT_H
#define SLOTPROVE_SUBMIT_H

#include <stdint.h>
#include <sys/types.h>

#include "core_state.h"
#include "err.h"
#include "submission.h"

/* A job from a submission s: fds are its descriptors (nfds of them,
 * submission_fd_count(s); those the job keeps are set to -1, the caller
 * closes the rest). A preloaded key is looked up now; reading the files
 * (copying and hashing an attached key, checking each witness against the
 * key, reading its public signals) happens on an intake thread (intake.h):
 * the job is dispatched when that is done, or fails with the reason, or
 * fails after o.file_timeout_s. 0 with *out; -EINVAL (descriptor count),
 * -EAGAIN (queue full), -EBUSY or -EMFILE (the file readers' limits, intake.h: answered as busy), -ENOENT (no such preloaded key),
 * -SP_EFORMAT (that key failed its check), -ENOMEM, with the reason in e. */
int core_submit(struct core *c, uid_t uid, const struct submission *s, int *fds, int nfds,
                struct job **out, struct sp_err *e);

/* A finished intake task (consumed): its job goes to the dispatcher with
 * its key and public signals, or fails with the reason. */
void core_intake_done(struct core *c, struct intake_task *t);

/* Jobs whose files were not read by their deadline fail; the threads stuck
 * on them are left to finish (or not) on their own. */
void core_intake_deadlines(struct core *c, uint64_t now);

#endif
