/*
 * intake.h — reading what a client hands over, off the event loop.
 *
 * A client's key (copied into a sealed memfd, validated, hashed) and its
 * witnesses (opened, checked against the key, public signals read) are read
 * by a helper thread per submit, never by the supervisor's loop: a file on
 * a stalled filesystem (a hung NFS or FUSE mount) would put the reader in
 * uninterruptible sleep. The loop hands a task over (intake_start), polls
 * intake.done_fd, and collects finished tasks (intake_collect); a task past
 * its deadline is abandoned by the caller (its job fails with the reason)
 * and freed whenever its thread comes back, if ever. Tasks own duplicates
 * of the descriptors they read, so a job that ends meanwhile closing its
 * own cannot make a thread read a reused descriptor number.
 */
#ifndef SLOTPROVE_INTAKE_H
#define SLOTPROVE_INTAKE_H

#include <stdint.h>

#include "err.h"
#include "keys.h"
#include "job_limits.h"
#include "wtns_pin.h"
#include "zkey.h"

#define INTAKE_MAX_RUNNING 32  /* threads reading client files at once */
/* Threads abandoned past --file-timeout and still stuck in a read: they
 * give up their place among the running, but no more than this many may
 * pile up (a mount that never comes back), then submits are refused. */
#define INTAKE_MAX_ABANDONED 1024
/* Per uid (issue 36.4: one client resubmitting hung-file jobs refused every
 * other submit): a uid's readers running at once, and its readers abandoned
 * and still stuck. A uid at either limit is refused as busy, with a time to
 * retry; others are not. The daemon's own uid has the totals above as its
 * own budget, and the other uids together have them again: no other uid
 * can refuse its submits. */
#define INTAKE_MAX_RUNNING_PER_UID 8
#define INTAKE_MAX_ABANDONED_PER_UID 64
#define INTAKE_UIDS 64             /* uids tracked at once (more share the last row) */
#define INTAKE_READING_KEY (-1) /* intake_task.reading: the client's key */

struct intake_task {
    /* set by the loop before intake_start */
    uint64_t job_num;
    uint32_t uid;              /* the submitter: the per-uid limits above */
    int key_fd;                /* a client's key to prepare (consumed), or -1 */
    char key_name[JOB_NAME_MAX + 1];
    uint64_t max_key_bytes;
    int hash_key;
    struct key_shape shape;    /* with key_fd -1: the cached key's shape */
    uint32_t preloaded_id;     /* with key_fd -1: its id in the key cache */
    uint32_t n;                /* witnesses */
    int wfds[JOB_MAX_PARTS];   /* duplicates, owned by the task */
    int inputs;                /* they are input.json files: pinned, not read as .wtns */
    int pinned[JOB_MAX_PARTS]; /* with inputs: sealed memfd copies (witness_job.h), -1 */
    int prog_fd;               /* a witness program sent with the job (consumed), or -1 */
    int prog_pinned;           /* its sealed read-only copy (witness_program_pin), or -1 */
    int prog_aux[2];           /* its companions, pinned (witness_companions_pin), or -1 */
    char prog_path[4096];      /* its absolute path (argv[0]; "program" in the request) */
    char wnames[JOB_MAX_PARTS][JOB_NAME_MAX + 1];
    /* set by the thread */
    int rc;                    /* 0, or a negative code with err */
    struct sp_err err;
    int have_key;              /* key holds a prepared key (from key_fd) */
    struct key_prep key;
    char *public_json[JOB_MAX_PARTS];
    struct wtns_pin pin[JOB_MAX_PARTS]; /* each witness as read (wtns_pin.h) */
    _Atomic int reading;       /* the file being read: INTAKE_READING_KEY or a
                                * witness index (the thread sets it, the loop
                                * names it when the deadline passes) */
    /* the loop's bookkeeping */
    int post_fd;               /* intake.post_fd, for the thread */
    uint64_t deadline_ns;
    int abandoned;
    struct intake_task *next;
};

struct intake_uid {
    uint32_t uid;
    unsigned running, abandoned;
};

struct intake {
    int done_fd;               /* readable when a task has finished */
    int post_fd;
    uint32_t own_uid;          /* the daemon's: exempt from the totals */
    unsigned running;          /* started, not finished, not abandoned */
    unsigned abandoned;        /* abandoned and still stuck (intake_abandon) */
    struct intake_uid uids[INTAKE_UIDS]; /* the same per uid (rows with counts) */
    uint64_t abandoned_total;  /* ever abandoned */
    struct intake_task *tasks; /* started, not yet collected */
};

/* 0, or -errno with the reason in e. */
int intake_init(struct intake *in, struct sp_err *e);

/* Runs t on a new detached thread. 0, or -EAGAIN when INTAKE_MAX_RUNNING
 * are running or t->uid has INTAKE_MAX_RUNNING_PER_UID (the submit is
 * refused as busy), -EMFILE when INTAKE_MAX_ABANDONED (or the uid's
 * INTAKE_MAX_ABANDONED_PER_UID) abandoned threads are still stuck, or
 * -errno. */
int intake_start(struct intake *in, struct intake_task *t);

/* Gives up on a task past its deadline: it no longer counts as running (a
 * new submit may take its place); its thread, stuck in a read, is counted
 * in in->abandoned until it comes back, if ever, and the task is freed
 * then (intake_collect returns it with t->abandoned set). */
void intake_abandon(struct intake *in, struct intake_task *t);

/* A finished task (unlinked; the caller frees it with intake_free), or NULL
 * when none is waiting. */
struct intake_task *intake_collect(struct intake *in);

/* Closes what the task still holds and frees it (and its outputs unless the
 * caller took them: set pointers to NULL / have_key to 0 first). */
void intake_free(struct intake_task *t);

#endif
