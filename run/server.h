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

#define MAX_CONNS 256

struct conn {
    int fd;
    uid_t uid;
    gid_t gid;
    char *in;
    size_t inlen;
    int fds[CTL_MAX_FDS * 16 + 4];
    int nfds;
    char *out;
    size_t outlen, outcap;
    struct job *waiting;       /* answer when this job ends */
    int closing;               /* 1: close once out is flushed; 2: close now */
};

struct server_opts {
    const char *socket_path;
    uint64_t max_job_key;      /* bytes: largest key a client may attach */
    uid_t allow_uid[16];
    unsigned n_allow_uid;
    gid_t allow_gid;
    int has_allow_gid;
};

struct server {
    struct core core;
    struct server_opts o;
    int listen_fd;
    int spare_fd;              /* released to accept-and-close on EMFILE */
    struct conn *conns[MAX_CONNS];
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

/* status.c: the status object, one JSON line (malloc'd). */
char *status_json(struct core *c);

#endif
