/*
 * http_server.h — serve's HTTP servers (`--metrics`: metrics_http.h;
 * `--http`: http_api.h): libmicrohttpd driven by a thread of our own, so
 * that no client can lock the others out (issue 36 item 5).
 *
 * libmicrohttpd's own limits are not enough: its timeout counts from the
 * last byte, so a client sending a byte a second holds a connection for
 * ever, and at its connection limit it stops accepting, so a few such
 * clients keep every later one waiting. Here the thread polls
 * libmicrohttpd's epoll descriptor, runs it (MHD_run), and then, outside
 * it, enforces two rules on the connections it was told of
 * (MHD_OPTION_NOTIFY_CONNECTION):
 *
 *   - a deadline counted from the accept, rules->deadline_ms (a handler
 *     may add to it, e.g. for a declared body: http_server_extend): by
 *     then the request must be in and the answer written; bytes do not
 *     move it. Each answer should carry `Connection: close`, so that a
 *     connection serves one request and the deadline covers all of it;
 *   - at most rules->max_conns connections are kept: past that, the
 *     oldest one still receiving its request is closed first (one whose
 *     request is answered and is being written goes only when no other is
 *     left), so the newest connection is served. libmicrohttpd's own limit
 *     is rules->spare_conns higher, so it keeps accepting while the closed
 *     ones are cleaned up (it accepts at most 10 a turn).
 *
 * A connection is closed by shutdown(2) of its socket, from this thread
 * between two MHD_run calls: libmicrohttpd then reads the end and closes
 * it itself (the descriptor stays libmicrohttpd's; it is closed only
 * after the NOTIFY_CLOSED call that forgets it here, in the same MHD_run).
 */
#ifndef SLOTPROVE_HTTP_SERVER_H
#define SLOTPROVE_HTTP_SERVER_H

#include <microhttpd.h>
#include <netdb.h>
#include <stdint.h>

#include "err.h"

struct http_rules {
    const char *opt;          /* the option, for messages: "--metrics" */
    unsigned max_conns;       /* connections kept at once */
    unsigned spare_conns;     /* libmicrohttpd's limit is max + spare */
    unsigned deadline_ms;     /* from accept to the answer written */
    unsigned backstop_s;      /* libmicrohttpd's own idle timeout, s: above any deadline */
};

struct http_server;

/* ADDR:PORT (an IPv4 address or host name, or [IPv6]; PORT 1..65535) →
 * *ai (freeaddrinfo). 0, or -EINVAL with e naming opt and the reason. */
int http_resolve(const char *opt, const char *addr_port, struct addrinfo **ai, struct sp_err *e);

/* 1 when ai's address is loopback (127.0.0.0/8, ::1), else 0. */
int http_is_loopback(const struct addrinfo *ai);

/* Listens on ADDR:PORT and starts the thread, which calls answer(cls, …)
 * for each request (libmicrohttpd's access handler) and completed(cls, …)
 * when one ends (NULL: none). *out is set before the thread starts, so
 * the handlers may use it. Signals the thread should not take must be
 * blocked by the caller first (it inherits the mask). 0, or -EINVAL (a
 * bad ADDR:PORT), -EADDRNOTAVAIL (cannot listen there), -ENOMEM, -errno of
 * eventfd/pthread_create, with e naming rules->opt, the address and the
 * reason; *out is NULL then. */
int http_server_start(const char *addr_port, const struct http_rules *rules,
                      MHD_AccessHandlerCallback answer, MHD_RequestCompletedCallback completed,
                      void *cls, struct http_server **out, struct sp_err *e);

/* Stops the thread, closes every connection and the socket, frees s
 * (NULL: nothing). */
void http_server_stop(struct http_server *s);

/* Queues code and r on conn with `Connection: close`, and marks the
 * connection answered (it then goes last when connections are closed for
 * the limit). libmicrohttpd's MHD_queue_response result. */
enum MHD_Result http_server_queue(struct http_server *s, struct MHD_Connection *conn,
                                  unsigned code, struct MHD_Response *r);

/* Moves conn's deadline ns later (a declared body's time). */
void http_server_extend(struct MHD_Connection *conn, uint64_t ns);

#endif
