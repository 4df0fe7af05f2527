/*
 * metrics_http.h — the HTTP side of `serve --metrics ADDR:PORT`:
 * libmicrohttpd driven by a thread of our own, so that no client can lock
 * the scraper out (issue 36 item 5).
 *
 * libmicrohttpd's own limits are not enough: its timeout counts from the
 * last byte, so a client sending a byte a second holds a connection for
 * ever, and at its connection limit it stops accepting, so a few such
 * clients keep every later one (the scraper) waiting. Here the thread polls
 * libmicrohttpd's epoll descriptor, runs it (MHD_run), and then, outside
 * it, enforces two rules on the connections it was told of
 * (MHD_OPTION_NOTIFY_CONNECTION):
 *
 *   - a deadline counted from the accept, METRICS_HTTP_DEADLINE_MS: by
 *     then the request must be in and the answer written; bytes do not
 *     move it. Each answer carries `Connection: close`, so a connection
 *     serves one request and the deadline covers all of it;
 *   - at most METRICS_HTTP_MAX_CONNS connections are kept: past that, the
 *     oldest one still receiving its request is closed first (one whose
 *     request is answered and is being written goes only when no other is
 *     left), so the newest connection is served. libmicrohttpd's own limit
 *     is set METRICS_HTTP_SPARE_CONNS higher, so it keeps accepting while
 *     the closed ones are cleaned up (it accepts at most 10 a turn).
 *
 * A connection is closed by shutdown(2) of its socket, from this thread
 * between two MHD_run calls: libmicrohttpd then reads the end and closes
 * it itself (the descriptor stays libmicrohttpd's; it is closed only
 * after the NOTIFY_CLOSED call that forgets it here, in the same MHD_run).
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
