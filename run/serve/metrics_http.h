/*
 * metrics_http.h — the HTTP side of `serve --metrics ADDR:PORT`:
 * libmicrohttpd driven by a thread of our own, so that no client can lock
 * the scraper out (issue 36 item 5).
 *
 * The rules against slow and flooding clients are http_server.h's, with
 * these figures:
 *
 *   - a deadline of METRICS_HTTP_DEADLINE_MS from the accept: by then the
 *     request must be in and the answer written; bytes do not move it;
 *     each answer carries `Connection: close`;
 *   - at most METRICS_HTTP_MAX_CONNS connections are kept: past that, the
 *     oldest one still receiving its request is closed first, so the
 *     newest connection (the scraper's) is served.
 */
#ifndef SLOTPROVE_METRICS_HTTP_H
#define SLOTPROVE_METRICS_HTTP_H

#include <stddef.h>

#include "err.h"

#define METRICS_HTTP_MAX_CONNS 16       /* connections kept at once */
#define METRICS_HTTP_SPARE_CONNS 32     /* libmicrohttpd's limit is MAX + SPARE */
#define METRICS_HTTP_DEADLINE_MS 5000   /* from accept to the answer written */

struct metrics_http;

/* The page for GET /metrics: a malloc'd copy of LEN bytes, freed by the
 * caller; NULL when out of memory (the connection is then closed). Called
 * on the HTTP thread. */
typedef char *(*metrics_page_fn)(void *ctx, size_t *len);

/* Listens on ADDR:PORT (an IPv4 address or a host name, or [IPv6]; PORT
 * 1..65535) and starts the thread, which answers GET /metrics with
 * page(ctx), any other path 404, any other method 405. Signals the thread
 * should not take must be blocked by the caller first (it inherits the
 * mask). 0 and *out set, or -EINVAL (a bad ADDR:PORT), -EADDRNOTAVAIL
 * (cannot listen there), -ENOMEM, or -errno of eventfd/pthread_create,
 * with e naming the address and the reason. */
int metrics_http_start(const char *addr_port, metrics_page_fn page, void *ctx,
                       struct metrics_http **out, struct sp_err *e);

/* Stops the thread, closes every connection and the socket, frees h
 * (NULL: nothing). */
void metrics_http_stop(struct metrics_http *h);

#endif
