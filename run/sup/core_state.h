/*
 * core_state.h — the supervisor core's state (struct core) and options,
 * shared by the core's files (core.c, submit.c, job_end.c, kid_keys.c,
 * pipeline.c) and read by its users (serve/, cli/prove_cmd.c). Header only.
 */
#ifndef SLOTPROVE_CORE_STATE_H
#define SLOTPROVE_CORE_STATE_H

#include <stdint.h>

#include "dispatch.h"
#include "intake.h"
#include "jobs.h"
#include "keys.h"
#include "kids.h"
#include "pool.h"
#include "pool_guard.h"
#include "stages.h"

/* Where a draining daemon is (serve.c: SIGTERM, then the jobs' end, then
 * the answers flushed until its deadline, server.h flush_deadline_ns). */
enum core_drain {
    DRAIN_NONE = 0,
    DRAIN_NO_JOBS = 1,     /* SIGTERM: no new jobs; the running ones go on */
    DRAIN_NO_DISPATCH = 2, /* every job done: no new dispatch either, answers flushing */
};

struct core_opts {
    unsigned synthds;          /* 1..MAX_SYNTHDS */
    unsigned gpuds;            /* 1..MAX_GPUDS */
    unsigned slots;
    uint64_t slot_bytes;
    int log_stamp;             /* children's lines start with time and level (serve; log_stamp.h) */
    int lazy_pool;             /* pages on first touch, not prefaulted (pool_create_lazy) */
    uint64_t synth_rss_max;    /* bytes of RssAnon; 0 = no limit */
    const char *backend;
    const char *const *gpus;   /* NULL, or gpud i's CUDA device (index or UUID) for each gpud */
    uint64_t gpu_mem;          /* --gpu-mem: device bytes each gpud may use; 0 = its default */
    unsigned gpud_workers;     /* partitions each gpud proves at once; 0 = the backend's default */
    unsigned threads;          /* per child; 0 = all CPUs */
    unsigned synth_threads;    /* per synthd (synth_plan.h); 0 = as threads */
    int synthds_given, threads_given; /* --synth / --threads on the command line */
    char synth_plan[200];      /* what synth_plan_pick chose and why, for status */
    unsigned max_attempts;     /* K: counted deaths before a partition is poison */
    unsigned result_ttl_s;
    unsigned file_timeout_s;   /* a submit's files must be read within this */
    unsigned max_queued;       /* partitions submitted and not yet proved, all jobs */
    uint64_t key_cache_max;    /* bytes: all client-attached keys held together */
    int trace_buffers;         /* children print slot-table lines (serve --trace-buffers) */
    int no_verify;             /* gpuds skip the self-check of each proof (--no-verify) */
    int trace_times;           /* a TIMES line per proved partition (serve --trace-times) */
    uint64_t witness_mem;      /* witness programs' memory limit, bytes (--witness-mem; 0: default) */
    unsigned witness_cpu_s;    /* their CPU-time limit, s (--witness-cpu; 0: default) */
    unsigned witness_wall_s;   /* their wall-clock limit, s (--witness-time; witness_job.h) */
    int one_job;               /* prove/fullprove: the command prints its job's end itself
                                * (no job_failed log line: one message, no internal id) */
};

/* Why a job failed, for the counters (job_end.h). */
enum fail_cause {
    FAIL_INPUT,        /* the client's files: a witness or input that is wrong, a failed
                        * witness program, a witness that does not satisfy the circuit */
    FAIL_KEY,          /* the key: invalid, not loadable, the key cache full */
    FAIL_SLOT_SIZE,    /* the key needs larger slots than the pool has */
    FAIL_CRASHES,      /* a partition's process died --max-attempts times */
    FAIL_FILE_TIMEOUT, /* its files were not read within --file-timeout */
    FAIL_STUCK,        /* its synthd was stuck in the kernel and left behind (stuck.h) */
    FAIL_NO_PROCESS,   /* a role stopped (exit code 2): nothing can prove */
    FAIL_INTERNAL,     /* out of memory, a malformed message from a child */
    FAIL_NCAUSES
};

struct counters {
    uint64_t proofs, jobs_done, jobs_failed;
    uint64_t reproved_from_shm;  /* slots proved again after a gpud death, no re-synthesis */
    uint64_t resynthesized;      /* partitions synthesized again after a gpud death */
    uint64_t synthd_deaths, gpud_deaths;
    uint64_t duplicate_results;  /* a second proof of a partition already proved: dropped */
    uint64_t late_results;       /* a proof for a job already failed, cancelled or
                                  * forgotten (its work abandoned): dropped */
    uint64_t jobs_failed_by[FAIL_NCAUSES]; /* enum fail_cause; sums to jobs_failed */
    uint64_t pool_fields_repaired; /* control-page layout fields written back (pool_guard.h) */
    uint64_t pool_slots_repaired;  /* slot words holding no state, set FREE */
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
    /* a partition's proof was accepted; busy_ns: its gpud's take to checked
     * proof (prove + verify stages, the figure prover_busy_ns sums) */
    void (*proved)(void *ctx, uint64_t busy_ns);
};

struct core {
    struct core_opts o;
    struct pool pool;
    struct pool_guard pool_guard; /* the pool's layout as created: repairs a torn page */
    uint64_t last_guard_ns;
    int doorbells[MAX_GPUDS];  /* gpud i's eventfd, rung by synthd after a publish */
    struct kid_table kids;
    struct key_cache keys;
    struct job_table jobs;
    struct dispatcher dsp;
    struct intake intake;      /* client files, read on helper threads */
    struct counters c;
    struct pipeline_counters pc;
    struct core_hooks hooks;
    char no_sandbox[400];      /* why witness programs cannot be boxed here ("": they can) */
    uint64_t started_ns;       /* core_start's now_ns(): status's uptime */
    uint64_t done_ns[4096];    /* ring of proof completion times, for proofs/s */
    unsigned done_head;
    uint64_t last_purge_ns;
    int draining;              /* enum core_drain (0: not draining) */
};

#endif
