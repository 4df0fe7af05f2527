/* conn.h — the daemon's client connections (conn.c): the socket protocol
 * (request.h) turned into core calls, job ends into answers. */
#ifndef SLOTPROVE_CONN_H
#define SLOTPROVE_CONN_H

#include <stdint.h>

#include "server.h"

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

#endif
