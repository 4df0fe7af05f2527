/*
 * dispatch.h — the partition dispatcher: the supervisor's one state machine
 * over partitions × processes.
 *
 * Every partition of every running job is in exactly one state, and every
 * change of state goes through dispatch_apply (one event, one partition):
 *
 *            SYNTH_START(s)           SYNTH_DONE(s)            TAKEN(g)
 *   QUEUED ─────────────────► SYNTH(s) ─────────────► PUBLISHED ────────► TAKEN(g)
 *     ▲ ▲                     │   │  └───────────TAKEN(g)────────────────►  │  │
 *     │ │  SYNTHD_DIED(s),    │   │ SYNTHD_DIED(s), slot live                │  │
 *     │ └──no live slot───────┘   └──────────────► PUBLISHED ◄──────────────┘  │
 *     │                                              GPUD_DIED(g), slot live   │
 *     │                                             (READY again: no re-synth) │
 *     └──────── GPUD_DIED(g), no live slot (released early: re-synthesize) ────┘
 *
 *   SYNTH | PUBLISHED | TAKEN | QUEUED ──PROVED(g)──► DONE   (first result wins)
 *   any state but DONE ──FAILED──► FAILED                    (bad input: job fails)
 *
 * "slot live" means the partition is in a READY or PROVING slot (the caller
 * reads slot headers; the dispatcher never touches shared memory). A
 * partition that goes back to QUEUED after a death does so either
 *   - counted: the death was the partition's own doing (a crash signal, the
 *     supervisor's RSS-limit kill, a kernel OOM kill, an error exit); after
 *     max_attempts counted deaths the outcome is DSP_POISONED and the
 *     partition is FAILED, or
 *   - not counted: an external SIGKILL (or other signal from elsewhere) is
 *     nobody's fault; the partition waits a backoff (DSP_BACKOFF_MIN_NS
 *     doubling per retry, up to DSP_BACKOFF_MAX_NS) and is retried without
 *     limit.
 * Events about work already written off (a late SYNTH_DONE from an earlier
 * holder, a TAKEN for a done partition) return DSP_STALE and change nothing.
 *
 * The dispatcher also keeps a table of gpuds (which are up, which keys each
 * has loaded, how many partitions each holds): a queued partition is handed
 * out only when some gpud that is up has its key, and any such gpud may
 * take it. Jobs are kept in submission order; dispatch_next picks the oldest
 * queued partition whose backoff has passed.
 *
 * Pure: no processes, no I/O, no clock (callers pass now_ns), so
 * tests/test_dispatch.c drives it with events alone.
 */
#ifndef SLOTPROVE_DISPATCH_H
#define SLOTPROVE_DISPATCH_H

#include <stdint.h>

#define DSP_MAX_GPUDS 16
#define DSP_MAX_KEYS 64                      /* width of the key bitmasks */
#define DSP_BACKOFF_MIN_NS 50000000ull       /* 50 ms after the first external kill */
#define DSP_BACKOFF_MAX_NS 2000000000ull     /* at most 2 s between retries */

enum dsp_state { DSP_QUEUED, DSP_SYNTH, DSP_PUBLISHED, DSP_TAKEN, DSP_DONE, DSP_FAILED };

enum dsp_event_type {
    DSP_EV_SYNTH_START, /* synthd `who` (incarnation) was handed the partition */
    DSP_EV_SYNTH_DONE,  /* synthd `who` published it into a slot */
    DSP_EV_TAKEN,       /* gpud `who` (index) took its slot */
    DSP_EV_PROVED,      /* gpud `who` proved it */
    DSP_EV_FAILED,      /* a child reported bad input for it */
    DSP_EV_SYNTHD_DIED, /* synthd `who` (incarnation) was reaped */
    DSP_EV_GPUD_DIED,   /* gpud `who` (index) was reaped */
};

/* Why a process died, as far as the supervisor can tell. */
enum dsp_cause {
    DSP_CAUSE_EXTERNAL, /* a signal from elsewhere (SIGKILL, SIGTERM): not the partition's fault */
    DSP_CAUSE_CRASH,    /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, or an error exit */
    DSP_CAUSE_RSS,      /* the supervisor's own RSS-limit kill */
    DSP_CAUSE_OOM,      /* a kernel OOM kill */
};

struct dsp_event {
    enum dsp_event_type type;
    uint32_t who;       /* synthd incarnation, or gpud index (< DSP_MAX_GPUDS) */
    enum dsp_cause cause;  /* *_DIED only */
    int slot_live;      /* *_DIED only: the partition sits in a READY or PROVING slot */
    uint64_t now_ns;    /* CLOCK_MONOTONIC, for backoff */
};

enum dsp_outcome {
    DSP_STALE,      /* not for this partition's current holder: nothing changed */
    DSP_MOVED,      /* the state changed; nothing else for the caller to do */
    DSP_PART_DONE,  /* PROVED: store the result (the job is not complete yet) */
    DSP_JOB_DONE,   /* PROVED: store the result; every partition of the job is done */
    DSP_DUPLICATE,  /* PROVED for a partition already done: drop the result */
    DSP_REQUEUED,   /* a death sent it back to QUEUED (it will be synthesized again) */
    DSP_REPROVE,    /* a gpud death left its slot READY: proved again, no re-synthesis */
    DSP_POISONED,   /* its max_attempts-th counted death: FAILED; fail the job */
    DSP_FAILED_OUT, /* FAILED by a FAILED event: fail the job */
};

struct dsp_part {
    enum dsp_state state;
    uint32_t synthd;        /* SYNTH: holder's incarnation */
    uint32_t gpud;          /* TAKEN: holder's index */
    uint32_t attempts;      /* counted deaths (poison) */
    uint32_t retries;       /* uncounted deaths (external kills), for backoff */
    uint64_t not_before_ns; /* QUEUED: not handed out before this */
};

/* One job as the dispatcher sees it; the job table embeds it. */
struct dsp_job {
    uint64_t num;           /* the slot header's job_id */
    uint32_t uid;           /* who submitted it: the fair share below */
    uint32_t key_id;        /* < DSP_MAX_KEYS */
    uint32_t nparts, ndone;
    int ended;              /* done, failed or cancelled: nothing more is dispatched */
    struct dsp_part *parts; /* nparts entries, owned by the caller */
    struct dsp_job *prev, *next; /* submission order */
};

struct dsp_gpud {
    int up;                 /* started and said HELLO; not yet reaped */
    uint64_t keys;          /* bit per key id: loaded (KEY_OK) */
    uint32_t holding;       /* partitions in TAKEN(this gpud) */
};

struct dispatcher {
    unsigned max_attempts;  /* counted deaths before a partition is poison (K) */
    /* Fairness under hung files (issue 36.4): with share_capped, a
     * partition of a uid other than own_uid is handed out only while that
     * uid has fewer than foreign_share partitions synthesizing. A synthd
     * stuck in a read of a client's hung file holds its synthd and its slot
     * until the stall deadline (minutes), then the slot is quarantined
     * until the read returns (stuck.h); with foreign_share = min(synthds,
     * usable slots) - 1 (core.c: foreign_share) other uids never take the
     * last of either, and get none while only one is usable. */
    uint32_t own_uid;
    unsigned foreign_share;
    int share_capped;       /* 0: no cap at all (the tests' bare dispatcher) */
    unsigned ngpuds;
    unsigned next_gpud;     /* rotating tie-break for dispatch_pick_gpud */
    struct dsp_gpud gpuds[DSP_MAX_GPUDS];
    struct dsp_job *head, *tail; /* oldest first */
};

/* An empty dispatcher for ngpuds (1..DSP_MAX_GPUDS) gpuds, all down. */
void dispatch_init(struct dispatcher *d, unsigned ngpuds, unsigned max_attempts);

/* Adds a job whose parts[] the caller allocated (zeroed: all QUEUED) at the
 * tail of the submission order. */
void dispatch_add(struct dispatcher *d, struct dsp_job *j);

/* Takes a job out of the order (it ended and is being freed). Idempotent. */
void dispatch_remove(struct dispatcher *d, struct dsp_job *j);

/* Marks a job ended: its partitions are no longer handed out, and later
 * events for it return DSP_STALE (PROVED returns DSP_DUPLICATE). */
void dispatch_end(struct dispatcher *d, struct dsp_job *j);

/* The one transition function: applies ev to partition part of job j.
 * Returns what the caller must do (enum dsp_outcome). */
enum dsp_outcome dispatch_apply(struct dispatcher *d, struct dsp_job *j, uint32_t part,
                                const struct dsp_event *ev);

/* The oldest QUEUED partition whose backoff is over, whose key some gpud
 * that is up has loaded, and whose uid is within its share (above): 1
 * with *j and *part set, or 0 if none. */
int dispatch_next(const struct dispatcher *d, uint64_t now_ns, struct dsp_job **j,
                  uint32_t *part);

/* The gpud to send a partition of key key_id to: one that is up and has
 * the key, holding the fewest partitions (ties rotate). -1 if none. Any
 * gpud may still take it (the slot table decides); this only spreads work. */
int dispatch_pick_gpud(struct dispatcher *d, uint32_t key_id);

/* Turns one death (ev->type SYNTHD_DIED or GPUD_DIED, ev->who, ev->cause,
 * ev->now_ns) into dispatch_apply on every partition of a running job that
 * the dead process held: SYNTH(who) for a synthd; for a gpud TAKEN(who) and
 * also every PUBLISHED partition whose slot is not live (only a gpud can
 * have taken and released it, and the caller has read every gpud's TAKEN
 * reports first, so it was the dead one). slot_live(ctx, j, part) says
 * whether the partition is in a READY or PROVING slot; outcome(ctx, j, part,
 * o) hears each result and may end the job. Also marks a dead gpud down. */
void dispatch_death(struct dispatcher *d, const struct dsp_event *ev,
                    int (*slot_live)(void *ctx, const struct dsp_job *j, uint32_t part),
                    void (*outcome)(void *ctx, struct dsp_job *j, uint32_t part,
                                    enum dsp_outcome o),
                    void *ctx);

/* gpud table: gpud g came up (HELLO; no keys yet) or went down (reaped). */
void dispatch_gpud_up(struct dispatcher *d, uint32_t g);
void dispatch_gpud_down(struct dispatcher *d, uint32_t g);
/* gpud g loaded (KEY_OK) or dropped key key_id. */
void dispatch_gpud_key(struct dispatcher *d, uint32_t g, uint32_t key_id, int loaded);

/* Partitions in each state over running jobs (counts[DSP_FAILED + 1]). */
void dispatch_counts(const struct dispatcher *d, unsigned counts[DSP_FAILED + 1]);

/* "queued", "synthesizing", "published", "taken", "done", "failed". */
const char *dispatch_state_name(enum dsp_state s);

#endif
