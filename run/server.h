/*
 * server.h — `slotprove serve`: the supervisor core (core.h) behind a unix
 * socket.
 *
 * serve.c parses the options, creates the socket directory and socket,
 * and runs the poll loop over signals, the listener, the clients (conn.c)
 * and the core's children. conn.c speaks the socket protocol (request.h)
 * and nothing else: it turns requests into core calls and job ends into
 * answers.
 */
#ifndef SLOTPROVE_SERVER_H
#define SLOTPROVE_SERVER_H

#include <sys/types.h>

#include "core.h"
#include "ctl.h"
#include "gpus.h"
#include "request.h"

#define MAX_CONNS 1024
/* Table slots only the daemon's own uid may take, so its `status` answers
 * while other users fill the rest; and the most connections of any kind one
 * uid may hold, so no one user fills the table (--max-client-conns caps a
 * uid's idle ones: see conn_accept). */
#define CONN_RESERVED_OWN 16
#define CONN_MAX_PER_UID (MAX_CONNS / 4)

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
    int closing;               /* 1: close once out is flushed; 2: close now */
};

struct server_opts {
    const char *socket_path;
    uint64_t max_job_key;      /* bytes: largest key a client may attach */
    unsigned client_idle_s;    /* a connection with nothing to wait for is closed */
    unsigned max_user_conns;   /* idle connections one uid may hold at once */
    uid_t allow_uid[16];
    unsigned n_allow_uid;
    gid_t allow_gid;
    int has_allow_gid;
};

struct server {
    struct core core;
    struct gpu_list gpus;      /* --gpus, or the visible GPUs */
    struct server_opts o;
    int listen_fd;
    int spare_fd;              /* released to accept-and-close on EMFILE */
    struct conn *conns[MAX_CONNS];
    uint64_t last_tick_ns;     /* conns_tick's last run: a stall is not client idleness */
};

/* conn.c */
/* Accepts one client (SO_PEERCRED checked against the allowed uids/gid; on
 * EMFILE the spare descriptor takes the connection and closes it). */
void conn_accept(struct server *s);
/* Reads what c sent (lines and SCM_RIGHTS descriptors, capped) and answers
 * each complete request line. */
void conn_readable(struct server *s, struct conn *c);
/* Flushes c's pending output without blocking. */
void conn_writable(struct server *s, struct conn *c);
/* Closes c and frees it (its jobs carry on). */
void conn_close(struct server *s, struct conn *c);
/* Queues one line (without '\n') for c; a client that lets CONN_OUT_MAX
 * bytes pile up is dropped. */
void conn_send(struct server *s, struct conn *c, const char *line);
/* The core's job_ended hook: answers every connection waiting for j. */
void conns_job_ended(void *server, struct job *j);
/* Whether the event loop should poll c for input: not while it is closing,
 * streaming a result, waiting for a job, or has CONN_OUT_SOFT bytes unread —
 * a client that sends requests and does not read answers is not read from. */
int conn_wants_input(const struct conn *c);
/* The peer hung up while its input was not polled: nothing more to send. */
void conn_hangup(struct server *s, struct conn *c);
/* Closes connections idle past --client-idle (nothing in or out, and no job
 * being waited for), logging each. now in ns (CLOCK_MONOTONIC). */
void conns_tick(struct server *s, uint64_t now);

/* status.c: the status answer for a client of uid viewer, one JSON line
 * (malloc'd): every process and slot, but only the viewer's own jobs (all
 * jobs for the daemon's own uid). */
char *status_json(struct core *c, uid_t viewer);

#endif
