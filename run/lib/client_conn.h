/*
 * client_conn.h — the client side of the daemon's socket (request.h): one
 * connection, requests as JSON lines with descriptors attached, answers read
 * line by line (at most CLIENT_RESPONSE_MAX bytes each).
 */
#ifndef SLOTPROVE_CLIENT_CONN_H
#define SLOTPROVE_CLIENT_CONN_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

#define CLIENT_RESPONSE_MAX ((size_t)256 << 20) /* one answer line: one partition's result */

struct client_conn {
    int fd;
    const char *path;
    char *buf;      /* received bytes; buf[0..len) */
    size_t len, cap;
    size_t scanned; /* bytes of buf already searched for '\n' */
    size_t consumed; /* bytes of the line last returned, to drop on the next read */
};

/* Connects to the daemon's socket; -errno with "cannot connect to PATH: …
 * (is `slotprove serve` running?)". */
int client_open(struct client_conn *c, const char *path, struct sp_err *e);
void client_close(struct client_conn *c);

/* Sends len bytes (one request line) with nfds descriptors attached. */
int client_send(struct client_conn *c, const char *line, size_t len, const int *fds,
                unsigned nfds, struct sp_err *e);

/* Next answer line (without '\n'), valid until the next call. */
int client_read_line(struct client_conn *c, char **line, size_t *len, struct sp_err *e);

/* Sends req with fds and reads the answer into *resp. An {"ok":false} answer
 * is an error carrying the daemon's reason; *resp is still set then (the
 * caller may look at "state") and must be freed. A refusal at accept marked
 * "busy":true (too many connections, conn.c) is retried on a new connection
 * (c is reopened) with a backoff of 5 ms doubling to 1 s, for up to 120 s. */
int client_call(struct client_conn *c, json_t *req, const int *fds, unsigned nfds,
                json_t **resp, struct sp_err *e);

/* Replaces control characters from the daemon with '?', in place. */
void client_sanitize(char *s);

#endif
