/*
 * kids.h — the supervisor's child table: synthd × N and gpud × G.
 *
 * It only spawns, reaps, backs off and reports deaths; what a death means
 * for the work a child held is the dispatcher's business (dispatch.h), and
 * the caller (core.c) connects the two. nginx's master cycle is the model:
 * an exit is noticed through the child's pidfd, the caller drains its
 * control socket, then kids_reap reaps it and says why it died:
 *   - a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) or an error
 *     exit: DSP_CAUSE_CRASH;
 *   - the supervisor's own RSS-limit kill (kids_tick): DSP_CAUSE_RSS;
 *   - SIGKILL while the kernel's OOM-kill counter (/proc/vmstat oom_kill)
 *     moved since the last sample: DSP_CAUSE_OOM;
 *   - any other signal (SIGKILL from elsewhere, SIGTERM): DSP_CAUSE_EXTERNAL.
 * kids_after_death then decides when to respawn. Exit code 2 means "fatal,
 * do not respawn" and stops the role (KID_STOPPED). The crash-loop breaker
 * counts only crashes (not external kills, not deaths while holding work):
 * CRASH_LIMIT of them within CRASH_WINDOW_NS back the child off for
 * CRASH_BACKOFF_MIN_NS, doubling with each further crash before it says
 * HELLO, up to CRASH_BACKOFF_MAX_NS (shown in status as the backoff
 * reason); it never stops the role for good.
 * Ordinary respawns back off 0.1 s doubling to 6.4 s while a child keeps
 * dying before it says HELLO.
 *
 * Nothing hangs unseen: a child seen stopped (state T, e.g. SIGSTOP) for
 * STALL_STOPPED_NS, or one that holds work past the deadline the core set
 * (deadline_ns, scaled to the partition's size and renewed by progress
 * reports), is stalled: shown so in status, SIGKILLed, and its death is
 * then handled like any other (work requeued; not counted against the
 * partition, since a stall need not be its fault). A stopped child gets
 * no new work. A child the supervisor SIGKILLed that is still not reaped
 * STUCK_GRACE_NS later is asleep in the kernel (a hung mount): the caller
 * leaves it behind (kids_leave_behind, stuck.h) and a new one takes its place.
 */
#ifndef SLOTPROVE_KIDS_H
#define SLOTPROVE_KIDS_H

#include <stdint.h>

#include "dispatch.h"
#include "proc.h"
#include "stuck.h"

#define MAX_SYNTHDS 64
#define MAX_GPUDS DSP_MAX_GPUDS
#define CRASH_WINDOW_NS (10ull * 1000000000ull)
#define CRASH_LIMIT 5          /* this many idle crashes in CRASH_WINDOW_NS: back off long */
#define CRASH_BACKOFF_MIN_NS (4ull * 1000000000ull)
#define CRASH_BACKOFF_MAX_NS (64ull * 1000000000ull)
#define STALL_STOPPED_NS (2ull * 1000000000ull) /* SIGSTOPped this long: stalled */

enum kid_role { ROLE_SYNTHD, ROLE_GPUD };
enum kid_state { KID_STARTING, KID_IDLE, KID_BUSY, KID_BACKOFF, KID_STOPPED };

struct kid {
    struct child_proc p;       /* pid, pidfd, ctl socket, incarnation */
    enum kid_role role;
    unsigned index;            /* synthd i or gpud i, within its role */
    enum kid_state state;
    int alive;                 /* spawned and not yet reaped */
    unsigned restarts;
    unsigned consecutive;      /* deaths since the last HELLO, for the respawn backoff */
    uint64_t crash_ns[CRASH_LIMIT]; /* recent idle crash times (ring) */
    unsigned ncrash;
    unsigned loop_trips;       /* crash-loop backoffs since its last HELLO */
    uint64_t respawn_at_ns;
    char last_exit[160];
    char stop_reason[256];     /* KID_STOPPED: why; or, in backoff, the crash loop */
    char kill_reason[160];     /* set when the supervisor killed it (RSS, stall) */
    enum dsp_cause kill_cause; /* DSP_CAUSE_RSS, or EXTERNAL for a stall */
    int stalled;               /* killed for a stall, not yet reaped */
    unsigned stalls;           /* stall kills so far */
    uint64_t stopped_since_ns; /* seen in state T (stopped) since; 0 if running */
    uint64_t killed_ns;        /* when the supervisor SIGKILLed it (RSS, stall); 0: not */
    uint64_t deadline_ns;      /* the core's progress deadline while it holds work; 0: none */
    char backend[512];         /* gpud: its last CTL_BACKEND line */
    uint64_t dev_budget, dev_held; /* gpud: device memory bytes from that message
                                * (0, 0: none reported, e.g. the CPU backend) */
    uint64_t busy_ns;          /* gpud: Σ take-to-checked-proof of its proofs, all incarnations */
    uint64_t proofs;           /* gpud: proofs it returned, all incarnations */
    uint64_t keys_loaded;      /* bit per key id: KEY_OK seen */
    uint64_t keys_sent;        /* bit per key id: KEY_LOAD sent */
    int holding;               /* synthd: a partition (job_num, part) is handed to it */
    uint64_t job_num;
    uint32_t part;
    long rss_anon_kib, rss_shmem_kib;
};

/* What a reaped child died of. */
struct kid_death {
    enum dsp_cause cause;
    int fatal;                 /* exit code 2 */
    char why[400];             /* "synthd pid 123 was killed by signal 9 (Killed)[: reason]" */
};

struct kid_table {
    struct kid kids[MAX_SYNTHDS + MAX_GPUDS]; /* [0, nsynthds) synthds, then gpuds */
    unsigned nsynthds, ngpuds, nkids;
    uint32_t next_incarnation;
    char exe_synthd[4096], exe_gpud[4096];
    int pool_ctl_fd, pool_payload_fd;
    int doorbell_fds[MAX_GPUDS]; /* gpud i's eventfd */
    unsigned threads;
    unsigned synth_threads;    /* synthds' --threads (gpuds get threads) */
    const char *backend;
    const char *const *gpus;   /* gpud i's CUDA device gpus[i], or NULL: no choice */
    uint64_t gpu_mem;          /* gpud's --gpu-mem in bytes, 0: not passed */
    unsigned gpud_workers;     /* gpud's --workers, 0: not passed */
    uint64_t synth_rss_max;    /* bytes of RssAnon; 0 = no limit */
    int no_verify;             /* gpuds: no self-check of proofs (--no-verify) */
    int trace_buffers;         /* every child: slot-table lines on stderr (--trace-buffers) */
    int log_stamp;             /* every child: --log-stamp 1 (log_stamp.h) */
    uint64_t witness_mem;      /* synthds: --witness-mem BYTES, 0: not passed (witness_program.h) */
    unsigned witness_cpu, witness_time; /* synthds: --witness-cpu/--witness-time S, 0: not passed */
    uint64_t oom_kills;        /* /proc/vmstat oom_kill at the last sample */
    uint64_t last_rss_ns;
    unsigned rss_kills;
    unsigned stall_kills;
    struct stuck_table stuck;  /* SIGKILLed children that would not die (stuck.h) */
};

const char *kid_role_name(enum kid_role r);

/* Fills the table (the spawn fields must be set) and starts every child.
 * 0 or -errno with the reason in e. */
int kids_start(struct kid_table *t, struct sp_err *e);

/* gpud i. */
struct kid *kids_gpud(struct kid_table *t, unsigned i);

/* The kid whose control socket or pidfd is fd, or NULL. */
struct kid *kids_by_fd(struct kid_table *t, int fd);

/* Reaps a child whose pidfd is readable (its socket already drained) and
 * says why it died. */
void kids_reap(struct kid_table *t, struct kid *k, struct kid_death *out);

/* After the caller has dealt with the dead child's work: schedules the
 * respawn (backoff, crash-loop breaker) or stops the role (exit code 2, or
 * draining). `held` says whether it held work when it died. Returns 1 when
 * the child is now KID_STOPPED. */
int kids_after_death(struct kid_table *t, struct kid *k, const struct kid_death *dd, int held,
                     int draining, uint64_t now);

/* A child said HELLO: idle, and its respawn backoff resets. */
void kids_hello(struct kid *k);

/* Respawns children whose backoff is over (unless draining) and samples
 * RSS every 200 ms, SIGKILLing a synthd over the limit (logged with the
 * figure; its death is then DSP_CAUSE_RSS). */
void kids_tick(struct kid_table *t, uint64_t now, int draining);

/* 1 if k was SIGKILLed by the supervisor STUCK_GRACE_NS or more before now
 * and is still not reaped: the caller writes off its work and calls
 * kids_leave_behind. */
int kids_is_stuck(const struct kid *k, uint64_t now);

/* Moves k's process to t->stuck (its control socket closed, its pidfd
 * kept), describes what it held (work: "" or e.g. "job 1a2b partition 3
 * (w.wtns)") and schedules a new process in k's place at once. Returns the
 * entry, or NULL when STUCK_MAX are already left behind (k stays as it is). */
struct stuck_child *kids_leave_behind(struct kid_table *t, struct kid *k, const char *work,
                                      uint64_t now);

/* 1 if some synthd is not stopped; else 0 with *why the last stop reason. */
int kids_any_synthd_usable(const struct kid_table *t, const char **why);
/* 1 if some gpud is not stopped; else 0 with *why. */
int kids_any_gpud_usable(const struct kid_table *t, const char **why);

/* SHUTDOWN to every live child, then reap each (5 s, then SIGKILL, then
 * 5 s more: one stuck in the kernel is not waited for, only logged), and
 * forgets the children left behind (stuck_forget_all). */
void kids_shutdown(struct kid_table *t);

#endif
