/*
 * core.h — the supervisor core shared by `slotprove serve` (many jobs, a
 * socket) and `slotprove prove` (one job, no socket).
 *
 * Like PostgreSQL's postmaster, the core keeps its own copy of everything it
 * must not lose — jobs, partitions, which child does what — and never
 * trusts or dereferences slot payloads (it reads slot headers only).
 * Completion is decided by the dispatcher (dispatch.h), not by the slot
 * table: slots govern memory only. The core owns the pool, the children
 * (kids.h), the key cache (keys.h), the job table (jobs.h) and the
 * dispatcher, and routes every child message and death into them:
 *
 *   child messages ─┐                 ┌─► dispatcher (partition states)
 *   child deaths ───┼─► core.c ───────┼─► job table (ends, results)
 *   submit/cancel ──┘  (this file)    └─► hooks (socket answers, prove's
 *                                          progress lines)
 *
 * The caller runs the loop: core_pollfds adds the children's descriptors to
 * its poll set, core_on_fd handles one that is ready, core_tick runs
 * respawns, RSS checks, dispatch and purging.
 */
#ifndef SLOTPROVE_CORE_H
#define SLOTPROVE_CORE_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "dispatch.h"
#include "ctl.h"
#include "err.h"
#include "intake.h"
#include "jobs.h"
#include "keys.h"
#include "kids.h"
#include "pool.h"
#include "request.h"
#include "stages.h"

struct core_opts {
    unsigned synthds;          /* 1..MAX_SYNTHDS */
    unsigned gpuds;            /* 1..MAX_GPUDS */
    unsigned slots;
    uint64_t slot_bytes;
    uint64_t synth_rss_max;    /* bytes of RssAnon; 0 = no limit */
    const char *backend;
    const char *const *gpus;   /* NULL, or gpud i's CUDA device (index or UUID) for each gpud */
    uint64_t gpu_mem;          /* --gpu-mem: device bytes each gpud may use; 0 = its default */
    unsigned threads;          /* per child; 0 = all CPUs */
    unsigned max_attempts;     /* K: counted deaths before a partition is poison */
    unsigned result_ttl_s;
    unsigned file_timeout_s;   /* a submit's files must be read within this */
    unsigned max_queued;       /* partitions submitted and not yet proved, all jobs */
    uint64_t key_cache_max;    /* bytes: all client-attached keys held together */
    int trace_buffers;
    int trace_times;           /* a TIMES line per proved partition (serve --trace-times) */
};

struct counters {
    uint64_t proofs, jobs_done, jobs_failed;
    uint64_t reproved_from_shm;  /* slots proved again after a gpud death, no re-synthesis */
    uint64_t resynthesized;      /* partitions synthesized again after a gpud death */
    uint64_t synthd_deaths, gpud_deaths, duplicate_results;
};

/* Where the time goes, summed since start (status "pipeline"); a rate is
 * the difference of two status samples over the time between them. */
struct pipeline_counters {
    uint64_t prover_busy_ns;    /* Σ gpud take-to-checked-proof (prove + verify) */
    uint64_t synth_partitions;  /* SYNTH_DONE reports */
    uint64_t synth_rows;        /* Σ domain_size of those: constraint rows */
    uint64_t synth_ns;          /* Σ synthd wall time, claimed slot to publish */
    uint64_t synth_cpu_ns;      /* Σ synthd CPU time (all its threads) */
    uint64_t slot_wait_ns, slot_wait_max_ns; /* synthds waiting for a FREE slot */
    uint64_t slot_waits;        /* partitions whose synthd waited over 1 ms */
    uint64_t queue_wait_ns, queue_wait_max_ns; /* dispatchable to first SYNTH */
};

/* What the core tells its user; any may be NULL. */
struct core_hooks {
    void *ctx;
    void (*hello)(void *ctx, const struct kid *k, const char *text);
    void (*synthesized)(void *ctx, const struct job *j, uint32_t part, uint32_t slot,
                        uint64_t synth_ns);
    void (*progress)(void *ctx, const struct job *j, uint32_t part, enum stage s,
                     uint64_t ns);
    void (*job_ended)(void *ctx, struct job *j);
};

struct core {
    struct core_opts o;
    struct pool pool;
    int doorbells[MAX_GPUDS];  /* gpud i's eventfd, rung by synthd after a publish */
    struct kid_table kids;
    struct key_cache keys;
    struct job_table jobs;
    struct dispatcher dsp;
    struct intake intake;      /* client files, read on helper threads */
    struct counters c;
    struct pipeline_counters pc;
    struct core_hooks hooks;
    uint64_t done_ns[4096];    /* ring of proof completion times, for proofs/s */
    unsigned done_head;
    uint64_t last_purge_ns;
    int draining;              /* 1: no new jobs; > 1: no new dispatch either */
};

/* An empty core: no pool, no children. */
void core_init(struct core *c);

/* Creates the pool (o.slots × o.slot_bytes, prefaulted, one ticket ring
 * per gpud), a doorbell per gpud and the children. 0 or -errno with the reason in e. */
int core_start(struct core *c, struct sp_err *e);

/* Adds the children's control sockets and pidfds to pf (room for max);
 * returns how many. */
int core_pollfds(struct core *c, struct pollfd *pf, int max);

/* Handles fd (one core_pollfds added) that poll reported ready. */
void core_on_fd(struct core *c, int fd);

/* Respawns, RSS checks, dispatch of queued partitions to idle synthds,
 * purging of old results. Call after every poll. */
void core_tick(struct core *c, uint64_t now);

/* A job from a parsed submit request: fds are the request's descriptors
 * (those the job keeps are set to -1; the caller closes the rest). A
 * preloaded key is looked up now; reading the files (copying and hashing an
 * attached key, checking each witness against the key, reading its public
 * signals) happens on an intake thread (intake.h): the job is dispatched
 * when that is done, or fails with the reason, or fails after
 * o.file_timeout_s. 0 with *out, or a negative code with the reason in e. */
int core_submit(struct core *c, uid_t uid, const struct request *r, int *fds, int nfds,
                struct job **out, struct sp_err *e);

/* 0 if jobs can be proved now, else -EAGAIN with the reason in e (a role
 * is stopped: exit code 2). */
int core_usable(const struct core *c, struct sp_err *e);

/* Ends a running job as failed (reason) or cancelled. */
void core_fail_job(struct core *c, struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void core_cancel_job(struct core *c, struct job *j);

/* Between the core's own files (core.c, submit.c): */
/* KEY_LOAD of key_id to child k unless sent already; 0 or -errno. */
int core_send_key(struct core *c, struct kid *k, uint32_t key_id);
/* Every child forgets key_id (evicted from the cache). */
void core_drop_key(struct core *c, uint32_t key_id);
/* Bit per key id used by a running job whose files have been read. */
uint64_t core_busy_keys(const struct core *c);
/* A finished intake task (consumed): its job goes to the dispatcher with
 * its key and public signals, or fails with the reason. */
void core_intake_done(struct core *c, struct intake_task *t);
/* Jobs whose files were not read by their deadline fail; the threads stuck
 * on them are left to finish (or not) on their own. */
void core_intake_deadlines(struct core *c, uint64_t now);

/* Pipeline figures (pipeline.c): a partition's first and latest SYNTH, its
 * SYNTH_DONE report (slot wait, synthesis wall and CPU time), its PROVED
 * (gpud's busy time; with o.trace_times a TIMES line on stderr). */
void core_note_synth_start(struct core *c, struct job_part *jp, uint64_t now);
void core_note_synthesized(struct core *c, const struct job *j, struct job_part *jp,
                           const struct ctl_msg *m);
void core_note_proved(struct core *c, const struct job *j, uint32_t part, uint32_t gpud,
                      const struct stage_times *t);
/* The counters as a jansson object (json_t *, new reference), with now_ns,
 * the time of the sample: status's "pipeline". */
void *core_pipeline_json(const struct core *c);

/* Stops the children (SHUTDOWN, reap) and releases the pool. */
void core_shutdown(struct core *c);

#endif
