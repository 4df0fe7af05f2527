/*
 * fleet.h — a fleet of prover hosts sharing one PostgreSQL database
 * (run/fleet/README.md; schema in run/fleet/sql/).
 *
 * Each host runs `slotprove serve` and beside it `slotprove fleetd`, which
 * claims queued partitions from the database for the keys its serve holds,
 * hands them to serve over its socket (request.h) and writes each result
 * back under a fenced lease. Clients (`submit|wait|cancel|status --db`)
 * only touch the database. Every function that talks to the database
 * returns 0 or a negative code with the reason in e; a lost connection is
 * -ECONNRESET (fleet_db_exec drops it, the caller reconnects later).
 */
#ifndef SLOTPROVE_FLEET_H
#define SLOTPROVE_FLEET_H

#include <libpq-fe.h>
#include <stdint.h>
#include <sys/stat.h>

#include "client_conn.h"
#include "client_results.h"
#include "job_limits.h"
#include "sockpath.h"
#include "err.h"
#include "request.h"

#define FLEET_SCHEMA_VERSION 3   /* the newest run/fleet/sql/NNN_*.sql this build knows */
#define FLEET_HOST_ID_MAX 255
#define FLEET_MAX_HELD 256       /* leases one fleetd holds at most (serve's --slots max) */
#define FLEET_NOTIFY_WORK "slotprove_fleet_work"  /* NOTIFY: partitions became claimable */
#define FLEET_NOTIFY_JOB "slotprove_fleet_job"    /* NOTIFY payload JOB: the job ended */

/* ---- db.c: one libpq connection, reconnected with backoff ------------------ */

struct fleet_db {
    PGconn *pg;                /* NULL while disconnected */
    const char *conninfo;
    uint64_t next_try_ns;      /* monotonic; next reconnect attempt */
    unsigned backoff_ms;       /* doubles from 100 ms up to backoff_max_ms */
    unsigned backoff_max_ms;
    unsigned failures;         /* connect attempts failed in a row */
    uint64_t busy_ns;          /* time spent waiting on the database (figures) */
    uint64_t calls;            /* statements run */
};

/* Connects now (connect_timeout 5 s unless conninfo says otherwise).
 * 0, or -ECONNREFUSED with libpq's reason in e; on failure next_try_ns is
 * set by the backoff. */
int fleet_db_connect(struct fleet_db *db, struct sp_err *e);
void fleet_db_close(struct fleet_db *db);

/* Runs sql with nparams text parameters (NULL entries are SQL NULL).
 * Returns the result (PQclear it) when its status is PGRES_COMMAND_OK or
 * PGRES_TUPLES_OK, else NULL with the server's message in e; a broken
 * connection is closed then (db->pg == NULL) and the backoff started. */
PGresult *fleet_db_exec(struct fleet_db *db, const char *sql, int nparams,
                        const char *const *params, struct sp_err *e);

/* fleet_db_exec for statements whose rows are not needed: 0 or -EIO. */
int fleet_db_run(struct fleet_db *db, const char *sql, int nparams, const char *const *params,
                 struct sp_err *e);

/* libpq's multi-line messages ("…\n\tThis probably means…\n") as one
 * line, in place: newlines and tabs become single spaces. */
void fleet_one_line(char *s);

/* Connects once for a client command: 0 or -ECONNREFUSED ("--db: reason"). */
int fleet_db_open_client(struct fleet_db *db, const char *conninfo, struct sp_err *e);

/* ---- schema.c: `slotprove fleet init` --------------------------------------- */

/* Applies every embedded run/fleet/sql file newer than the database's
 * fleet_meta.schema_version, in one transaction under an advisory lock.
 * *from and *to report the versions. -EPROTO when the database has a newer
 * schema than FLEET_SCHEMA_VERSION (this build must not touch it). */
int fleet_schema_apply(struct fleet_db *db, int *from, int *to, struct sp_err *e);

/* The schema version in the database: 0 when none, or -EIO. */
int fleet_schema_version(struct fleet_db *db, struct sp_err *e);

/* ---- witness.c: witnesses by reference -------------------------------------- */

struct witness_ref {
    char path[4096];           /* absolute path, the same on every host */
    uint64_t size;             /* bytes */
    char sha256[65];           /* hex */
};

/* Reads the file at path (resolved to an absolute path): size and SHA-256.
 * -errno with "path: reason". */
int witness_ref_take(const char *path, struct witness_ref *r, struct sp_err *e);

/* SHA-256 (hex) and fstat of an open file, read from offset 0 with pread. */
int witness_hash_fd(int fd, const char *name, char hex[65], struct stat *st, struct sp_err *e);

/* ---- local.c: the local serve, through its socket -------------------------- */

struct local_key {
    char name[REQUEST_NAME_MAX + 1];
    char sha256[65];
};

struct local_info {
    unsigned slots;            /* serve's slots: partitions it proves at once */
    unsigned jobs_running;     /* jobs serve runs now, fleetd's and others' */
    unsigned nkeys;
    struct local_key keys[64];
};

/* Asks serve at sock for its status: 0, or a negative code with e. */
int local_status(const char *sock, struct local_info *li, struct sp_err *e);

struct witness_open;

/* One partition a fleetd holds (a lease) and its serve job. */
struct fleet_part {
    int used;
    char job[JOB_ID_HEX + 1];
    int idx;
    long long token;           /* the lease token: the fence */
    char key[REQUEST_NAME_MAX + 1];
    char wpath[4096];
    uint64_t wsize;
    char wsha[65];
    int wfd;
    struct witness_open *wo;   /* the witness being opened on a helper thread, or NULL */
    uint64_t wo_deadline_ms;   /* ... until then (CLOCK_MONOTONIC ms) */
    struct stat st0;           /* the witness as hashed: size, mtime, ctime */
    struct client_conn conn;   /* to serve: submit answered, wait sent */
    char serve_job[JOB_ID_HEX + 1]; /* serve's id of the job, "" before submit */
    int lost;                  /* the heartbeat found the lease gone */
    /* the outcome, kept until the database has it */
    enum { PART_PROVING, PART_DONE, PART_FAILED, PART_RELEASE } outcome;
    char *proof, *public_;     /* PART_DONE: compact JSON, key order kept */
    char error[600];           /* PART_FAILED, PART_RELEASE: why */
};

/* Starts opening and hashing p's witness on a helper thread (witness_open.h)
 * with a deadline timeout_s from now_ms. 0, or a negative code with e and
 * p->outcome PART_RELEASE (no thread could be started). */
int local_open(struct fleet_part *p, unsigned timeout_s, uint64_t now_ms, struct sp_err *e);

/* Once p->wo is done: takes the witness it opened, checks its size and
 * SHA-256 against the lease, and
 * submits it to serve as a descriptor with a wait behind it. 0 (conn.fd
 * now answers the wait), or a negative code with e and p->outcome set:
 * PART_FAILED (the witness is missing or changed: the partition fails with
 * the reason) or PART_RELEASE (serve refused or is down: another host may
 * take it). */
int local_start(struct fleet_part *p, const char *sock, struct sp_err *e);

/* Reads the wait answer once p->conn.fd is readable and sets p->outcome:
 * PART_DONE with proof and public, PART_FAILED with serve's reason (or a
 * witness changed while proving), PART_RELEASE when serve went away. */
void local_finish(struct fleet_part *p);

/* Cancels p's job in serve (a lease lost while proving: the proof would be
 * refused, so serve's slot is better spent on other work). The wait on
 * p->conn then answers "cancelled". Best effort: no error. */
void local_cancel(struct fleet_part *p, const char *sock);

/* Closes the witness and the connection and frees the result. */
void fleet_part_clear(struct fleet_part *p);

/* ---- claim.c, lease.c, reaper.c: the lease protocol ------------------------ */

struct fleetd_opts {
    const char *conninfo;
    const char *socket;
    char host_id[FLEET_HOST_ID_MAX + 1];
    unsigned lease_ms;         /* a lease lasts this long past its last heartbeat */
    unsigned heartbeat_ms;
    unsigned poll_ms;          /* claim attempts without a NOTIFY */
    unsigned reap_ms;
    unsigned status_ms;        /* how often serve's keys and slots are read */
    unsigned file_timeout_s;   /* a witness not opened and hashed by then fails its partition */
};

/* Registers the host (upsert) with its slots, note and keys. */
int fleet_register(struct fleet_db *db, const struct fleetd_opts *o, unsigned slots,
                   const struct local_info *li, const char *note, struct sp_err *e);

/* Leases up to want queued partitions whose key this host holds (FOR UPDATE
 * SKIP LOCKED), oldest job first; fills parts (those with used == 0) and
 * returns how many, or a negative code. */
int fleet_claim(struct fleet_db *db, const struct fleetd_opts *o, unsigned slots, unsigned want,
                struct fleet_part *parts, unsigned nparts, struct sp_err *e);

/* Extends the leases held (parts with used set). Leases the database no
 * longer gives this host (reaped, cancelled) are returned in lost[] (their
 * indexes in parts); *nlost their count. */
int fleet_heartbeat(struct fleet_db *db, const struct fleetd_opts *o, struct fleet_part *parts,
                    unsigned nparts, unsigned *lost, unsigned *nlost, struct sp_err *e);

/* Writes p's outcome under its lease token (the fence): done, failed, or
 * released to the queue. *refused = 1 when the lease is no longer this
 * host's (the result is dropped, the row untouched). */
int fleet_deliver(struct fleet_db *db, const struct fleetd_opts *o, const struct fleet_part *p,
                  int *refused, struct sp_err *e);

/* Puts back every lease of this host whose token is not in parts (a
 * restarted fleetd's leases of its previous life). Returns how many. */
int fleet_release_stale(struct fleet_db *db, const struct fleetd_opts *o,
                        const struct fleet_part *parts, unsigned nparts, struct sp_err *e);

/* Under the advisory lock (skipped when another host holds it): expired
 * leases go back to the queue, or fail the partition and its job after
 * max_attempts. Returns the number of leases reaped. */
int fleet_reap(struct fleet_db *db, struct sp_err *e);

/* ---- commands ---------------------------------------------------------------- */

/* slotprove-fleet's commands (main.c; fleet_exec.h) */
int cmd_fleet(int argc, char **argv);    /* fleet_init.c: `slotprove fleet init` */
int cmd_fleetd(int argc, char **argv);   /* fleetd.c */

int fleet_cmd_submit(int argc, char **argv);  /* fleet_submit.c */
int fleet_cmd_wait(int argc, char **argv);    /* fleet_wait.c */
int fleet_cmd_cancel(int argc, char **argv);  /* fleet_wait.c */
int fleet_cmd_status(int argc, char **argv);  /* fleet_status.c */

/* fleet_wait.c: waits for job (LISTEN, polling every poll_ms as the
 * fallback) and writes its results when proof_path is set; 0 done. */
int fleet_wait_job(struct fleet_db *db, const char *job, const char *proof_path,
                   const char *public_path, struct sp_err *e);

#endif
