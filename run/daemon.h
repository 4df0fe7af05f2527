/*
 * daemon.h — the supervisor's own state in `slotprove serve`.
 *
 * Like PostgreSQL's postmaster, the supervisor keeps its own copy of
 * everything it must not lose — jobs, partitions, which child does what —
 * and never trusts or dereferences slot payloads. Completion is decided here
 * (each partition's done bit), not by the slot table: slots govern memory
 * only. Split by idea:
 *   serve.c   options, socket, signals, the poll loop, draining
 *   kids.c    the child table: spawn, reap, reclaim, respawn, crash loops, RSS
 *   jobs.c    jobs, partitions, the queue, dispatch, results
 *   keys.c    the key cache (by content hash)
 *   conn.c    client connections (JSON lines + SCM_RIGHTS)
 *   status.c  the status object
 */
#ifndef SLOTPROVE_DAEMON_H
#define SLOTPROVE_DAEMON_H

#include <stdint.h>
#include <sys/types.h>

#include "ctl.h"
#include "pool.h"
#include "proc.h"
#include "request.h"
#include "stages.h"
#include "zkey.h"

#define MAX_SYNTHDS 64
#define MAX_KEYS 64            /* must not exceed the children's tables */
#define MAX_CONNS 256
#define CRASH_WINDOW_NS (10ull * 1000000000ull)
#define CRASH_LIMIT 5          /* this many non-job crashes in CRASH_WINDOW_NS: stop respawning */

enum kid_role { ROLE_SYNTHD, ROLE_GPUD };
enum kid_state { KID_STARTING, KID_IDLE, KID_BUSY, KID_BACKOFF, KID_STOPPED };

struct kid {
    struct child_proc p;       /* pid, pidfd, ctl socket, incarnation */
    enum kid_role role;
    enum kid_state state;
    int alive;                 /* spawned and not yet reaped */
    unsigned restarts;
    unsigned consecutive;      /* crashes since the last success, for backoff */
    uint64_t crash_ns[CRASH_LIMIT]; /* recent non-job crash times (ring) */
    unsigned ncrash;
    uint64_t respawn_at_ns;
    char last_exit[160];
    char stop_reason[256];     /* why it is no longer respawned */
    char kill_reason[160];     /* set when the supervisor killed it (RSS) */
    uint64_t keys_loaded;      /* bit per key id: KEY_OK seen */
    uint64_t keys_sent;        /* bit per key id: KEY_LOAD sent */
    struct job *job;           /* synthd: the partition it works on */
    uint32_t part;
    long rss_anon_kib, rss_shmem_kib, pss_kib;
};

enum part_state { PART_QUEUED, PART_SYNTH, PART_PUBLISHED, PART_DONE };
enum job_state { JOB_RUNNING, JOB_DONE, JOB_FAILED, JOB_CANCELLED };

struct part {
    enum part_state state;
    unsigned attempts;         /* deaths of a process while it held this partition */
    uint32_t synth_inc;        /* synthd incarnation synthesizing it (0: none) */
    uint32_t taken_by;         /* gpud incarnation that took its slot (0: none) */
    int wfd;                   /* the client's witness, kept for retries */
    char wname[REQUEST_NAME_MAX + 1];
    char *proof_json;          /* from gpud, once done */
    char *public_json;         /* read from the witness at submit */
    uint64_t synth_ns;
    struct stage_times times;
};

struct job {
    char id[JOB_ID_HEX + 1];
    uint64_t num;              /* the slot header's job_id */
    uid_t uid;
    uint32_t key_id;
    enum job_state state;
    char error[600];
    uint32_t nparts, ndone;
    struct part *parts;
    uint64_t t_submit_ns, t_end_ns;
    unsigned readers;          /* connections streaming its results: not purged */
    struct job *next;          /* all jobs, newest first */
};

struct key_entry {
    int used;
    char name[REQUEST_NAME_MAX + 1];
    uint8_t hash[32];          /* SHA-256 of the file: the cache key */
    int fd;                    /* kept to load it into restarted children */
    struct zkey zk;            /* header view, for validation and sizes */
    int preloaded;
    int failed;                /* a child could not load it */
    uint64_t last_used_ns;     /* for eviction when the table is full */
    char error[600];
};

struct conn {
    int fd;
    uid_t uid;
    gid_t gid;
    char *in;
    size_t inlen;
    int fds[REQUEST_MAX_FDS];
    int nfds;
    char *out;
    size_t outlen, outcap;
    struct job *waiting;       /* answer when this job ends */
    struct job *streaming;     /* results being sent, one partition a line */
    uint32_t stream_next;      /* the next partition to send */
    uint64_t last_active_ns;   /* last byte in or out: for the idle timeout */
    int closing;               /* close once out is flushed */
};

struct daemon_opts {
    const char *socket_path;
    unsigned synthds;
    unsigned slots;
    uint64_t slot_bytes;       /* 0 = auto */
    uint64_t synth_rss_max;    /* bytes of RssAnon; 0 = no limit */
    const char *backend;
    unsigned threads;
    unsigned max_attempts;
    unsigned result_ttl_s;
    uint64_t max_job_key;      /* bytes: largest key a client may attach */
    uint64_t key_cache_max;    /* bytes: all client-attached keys held together */
    unsigned max_queued;       /* partitions submitted and not yet proved, all jobs */
    unsigned client_idle_s;    /* a connection with nothing to wait for is closed */
    unsigned max_user_conns;   /* connections one uid may hold at once */
    int trace_buffers;
    uid_t allow_uid[16];
    unsigned n_allow_uid;
    gid_t allow_gid;
    int has_allow_gid;
};

struct counters {
    uint64_t proofs, jobs_done, jobs_failed;
    uint64_t reproved_from_shm;  /* slots proved again after a gpud death, no re-synthesis */
    uint64_t resynthesized;      /* partitions synthesized again after a death */
    uint64_t synthd_deaths, gpud_deaths, rss_kills, duplicate_results;
};

struct daemon {
    struct daemon_opts o;
    struct pool pool;
    int doorbell;
    int listen_fd;
    int spare_fd;              /* released to accept-and-close on EMFILE */
    struct kid kids[MAX_SYNTHDS + 1]; /* [0..synthds) synthd, [synthds] gpud */
    unsigned nkids;
    uint32_t next_incarnation;
    struct key_entry keys[MAX_KEYS];
    char key_alias[MAX_KEYS][REQUEST_NAME_MAX + 1]; /* --key NAME of preloaded keys */
    struct job *jobs;
    uint64_t next_job_num;
    struct conn *conns[MAX_CONNS];
    struct counters c;
    uint64_t done_ns[4096];    /* ring of proof completion times, for proofs/s */
    unsigned done_head;
    int draining;
    char exe_synthd[4096], exe_gpud[4096];
};

/* kids.c */
int kids_start(struct daemon *d);
void kids_on_exit(struct daemon *d, struct kid *k);
void kids_tick(struct daemon *d, uint64_t now);     /* respawns, RSS checks */
void kids_shutdown(struct daemon *d);
struct kid *kids_gpud(struct daemon *d);
int kids_send_key(struct daemon *d, struct kid *k, uint32_t key_id);
void kid_handle_msg(struct daemon *d, struct kid *k, struct ctl_msg *m, int *fds, int nfds);
int kids_any_synthd_usable(const struct daemon *d, const char **why);

/* jobs.c */
struct job *jobs_find(struct daemon *d, const char *id, uid_t uid);
int jobs_submit(struct daemon *d, uid_t uid, const struct request *r, int *fds, int nfds,
                struct job **out, char *err, size_t errlen);
void jobs_dispatch(struct daemon *d);
void jobs_fail(struct daemon *d, struct job *j, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void jobs_cancel(struct daemon *d, struct job *j);
void jobs_on_proved(struct daemon *d, const struct ctl_msg *m);
void jobs_on_synth_done(struct daemon *d, struct kid *k, const struct ctl_msg *m);
void jobs_on_taken(struct daemon *d, struct kid *k, const struct ctl_msg *m);
void jobs_partition_died(struct daemon *d, struct job *j, uint32_t part, const char *why);
struct job *jobs_by_num(struct daemon *d, uint64_t num);
void jobs_fail_all(struct daemon *d, const char *why);
void jobs_purge(struct daemon *d, uint64_t now);
int jobs_active(const struct daemon *d);
void jobs_key_failed(struct daemon *d, uint32_t key_id, const char *why);
/* The wait answer's first line: for a done job {"ok":true,"job":ID,"state":
 * "done","partitions":N}, followed by jobs_partition_json(j, 0..N-1); for a
 * failed or cancelled job the whole answer, with "error". */
char *jobs_result_json(const struct job *j);
/* One line of a done job's results: {"partition":i,"proof":{…},"public":[…]}. */
char *jobs_partition_json(const struct job *j, uint32_t i);

/* keys.c */
int keys_preload(struct daemon *d, const char *name_eq_path, char *err, size_t errlen);
int keys_from_fd(struct daemon *d, int fd, const char *name, uint32_t *key_id, char *err, size_t errlen);
int keys_lookup(struct daemon *d, const char *name, uint32_t *key_id);
uint64_t keys_max_slot_bytes(const struct daemon *d);

/* conn.c */
void conn_accept(struct daemon *d);
void conn_readable(struct daemon *d, struct conn *c);
void conn_writable(struct daemon *d, struct conn *c);
void conn_close(struct daemon *d, struct conn *c);
/* Whether the event loop should poll c for input: not while it is closing,
 * streaming a result, waiting for a job, or has CONN_OUT_SOFT bytes unread —
 * a client that sends requests and does not read answers is not read from. */
int conn_wants_input(const struct conn *c);
/* The peer hung up while its input was not polled: nothing more to send. */
void conn_hangup(struct daemon *d, struct conn *c);
/* Closes connections idle past --client-idle (nothing in or out, and no job
 * being waited for), logging each. now in ns (CLOCK_MONOTONIC). */
void conns_tick(struct daemon *d, uint64_t now);
void conn_send(struct daemon *d, struct conn *c, const char *line);
void conns_job_ended(struct daemon *d, struct job *j);

/* status.c: the status answer for a client of uid viewer: every process and
 * slot, but only the viewer's own jobs (all jobs for the daemon's own uid). */
char *status_json(struct daemon *d, uid_t viewer);

/* serve.c */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
