/*
 * jobs.h — the job table: job lifecycles and results.
 *
 * A job is one key and one or more witnesses (partitions); it ends done
 * (every partition proved), failed (one failed, with the reason) or
 * cancelled, and its result is kept for the result TTL, bound to the
 * submitter's uid. Where each partition stands is the dispatcher's
 * (dispatch.h; the job embeds its dsp_job); this table holds what the job
 * owns: the witnesses' descriptors (kept for retries), their public
 * signals (read at submit) and the proofs as they arrive.
 */
#ifndef SLOTPROVE_JOBS_H
#define SLOTPROVE_JOBS_H

#include <stdint.h>
#include <sys/types.h>

#include "dispatch.h"
#include "proof.h"
#include "job_limits.h"
#include "stages.h"
#include "wtns_pin.h"

#define JOB_ERROR_MAX 600

enum job_state { JOB_RUNNING, JOB_DONE, JOB_FAILED, JOB_CANCELLED };

struct job_part {
    int wfd;                   /* the client's witness, kept for retries */
    char wname[JOB_NAME_MAX + 1];
    struct groth16_proof proof; /* gpud's, in binary, once proved (proved = 1): formatted
                                   at each edge (the answers' JSON, the files written) */
    int proved;
    char *public_json;         /* read from the witness at submit (an input job: from gpud) */
    uint8_t *public_raw;       /* an input job: the public signals as gpud sends them */
    uint32_t public_next;      /* … received [0, public_next) */
    struct wtns_pin pin;       /* checked by synthd against what it reads */
    uint64_t synth_ns;
    struct stage_times times;
    /* pipeline timings (CLOCK_MONOTONIC ns; 0 = not yet): status counters
     * and serve --trace-times */
    uint64_t t_queued_ns;      /* its files were read: dispatchable */
    uint64_t t_first_synth_ns; /* first SYNTH sent to a synthd */
    uint64_t t_synth_ns;       /* latest SYNTH sent (a retry restarts it) */
    uint64_t t_published_ns;   /* SYNTH_DONE received */
    uint64_t slot_wait_ns;     /* synthd's wait for a FREE slot (latest attempt) */
    uint64_t synth_cpu_ns;     /* synthd's CPU time (latest attempt) */
};

struct job {
    struct dsp_job d;          /* the dispatcher's view: num, key, partition states */
    char id[JOB_ID_HEX + 1];
    uid_t uid;
    enum job_state state;
    int intake_pending;        /* its files are still being read: not dispatched yet */
    char error[JOB_ERROR_MAX];
    struct job_part *parts;    /* d.nparts */
    uint64_t t_submit_ns, t_end_ns;
    /* an input job (each partition's wfd is an input.json pinned in a
     * sealed memfd): the key's witness program, run by synthd */
    int prog_fd;               /* -1: a witness job */
    int prog_aux[2];           /* its pinned companions (witness_companions_pin), -1 */
    char *prog_path;           /* its path (malloc'd, input jobs only: a witness
                                * job holds none, so a kept job stays small) */
    unsigned readers;          /* connections streaming its results: not purged */
    struct job *next;          /* all jobs, newest first */
};

struct job_table {
    struct job *head;
    uint64_t next_num;
};

/* A new RUNNING job of n partitions (all QUEUED), with a random id, at the
 * head of the table; every wfd -1 and public_json NULL for the caller to
 * fill. NULL when out of memory or randomness. */
struct job *jobs_new(struct job_table *t, uid_t uid, uint32_t key_id, uint32_t n);

/* Frees a job that is not in the table (a submit that failed half-way). */
void jobs_free(struct job *j);

/* By id, visible only to the uid that submitted it; NULL otherwise. */
struct job *jobs_find(struct job_table *t, const char *id, uid_t uid);
/* By the number in slot headers. */
struct job *jobs_by_num(struct job_table *t, uint64_t num);
/* Jobs still running. */
int jobs_active(const struct job_table *t);

/* Ends a running job (state DONE, FAILED or CANCELLED, reason for the two
 * last) and closes its witnesses. 1 if it was running, 0 if it had ended. */
int jobs_end(struct job *j, enum job_state st, const char *reason);

/* Stores partition part's proof, in binary as gpud sent it (formatted at
 * each edge: jobs_partition_json, the files `prove` writes), and its stage
 * times. 0. */
int jobs_store_proof(struct job *j, uint32_t part, const struct groth16_proof *proof,
                     const struct stage_times *t);

/* The wait answer's first line (malloc'd; NULL when out of memory): for a
 * done job {"ok":true,"job":ID,"state":"done","partitions":N}, followed by
 * jobs_partition_json(j, 0..N-1); for a failed or cancelled job the whole
 * answer, with "error". */
char *jobs_result_json(const struct job *j);
/* One line of a done job's results: {"partition":i,"proof":{…},"public":[…]}. */
char *jobs_partition_json(const struct job *j, uint32_t i);

/* "running", "done", "failed", "cancelled". */
const char *jobs_state_name(enum job_state s);

/* Unlinks the ended jobs older than ttl_ns at now (a job that ended after
 * now is young), not being streamed (readers), for which keep(ctx, j) is 0,
 * calling gone(ctx, j) before freeing each. */
void jobs_purge(struct job_table *t, uint64_t now, uint64_t ttl_ns,
                int (*keep)(void *ctx, const struct job *j),
                void (*gone)(void *ctx, struct job *j), void *ctx);

#endif
