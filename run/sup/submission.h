/* submission.h — what core_submit (submit.h) takes: one job's key and
 * witnesses, however they arrived (a socket request in serve/conn.c, the
 * command line in cli/prove_cmd.c). Header only: plain data. */
#ifndef SLOTPROVE_SUBMISSION_H
#define SLOTPROVE_SUBMISSION_H

#include "job_limits.h"

struct submission {
    const char *key;        /* a preloaded key's name, or "": the key travels as the first fd */
    const char *zkey;       /* the attached key's name (for messages), when key is "" */
    unsigned n_witnesses;   /* 1..JOB_MAX_PARTS: one partition each, in order */
    int inputs;             /* 1: the witnesses are input.json files, whose witness the
                             * key's witness program computes in synthd (witness_job.h) */
    const char *program;    /* with zkey and inputs: the witness program's absolute path
                             * (its fd follows the key's), or NULL / "" */
    const char *witnesses[JOB_MAX_PARTS]; /* their names, for messages; longer than
                                           * JOB_NAME_MAX bytes they are cut */
};

/* Descriptors a submission comes with: the key's (when key is ""), the
 * program's (when program is set) and one per witness, in that order. */
static inline unsigned submission_fd_count(const struct submission *s)
{
    return (s->key[0] ? 0u : 1u) + (s->program && s->program[0] ? 1u : 0u) + s->n_witnesses;
}

#endif
