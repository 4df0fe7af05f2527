/*
 * http_api.h — `serve --http ADDR:PORT`: rapidsnark proverServer's routes,
 * and jobs side by side, over HTTP (issue 39 item 7).
 *
 * Routes (JSON bodies; status names are proverServer's: "ready", "busy",
 * "success", "failed", "aborted"):
 *   POST /input/CIRCUIT   body: the input JSON. Starts a proof of CIRCUIT
 *                         (a --key NAME with a --witness-program) as the
 *                         "current" one, cancelling the current one if it
 *                         still runs (proverServer keeps one); 200, empty.
 *   GET  /status          the current proof: {"status":"busy"} while it
 *                         runs; {"status":"success","proof":"…","pubData":"…"}
 *                         (both JSON text in a string, as proverServer sends
 *                         them); {"status":"failed","error":"…"};
 *                         {"status":"aborted"}; {"status":"ready"} before any.
 *   POST /cancel          cancels the current proof; 200, empty.
 *   POST /start, POST /stop, GET and POST /config: 200, empty, nothing
 *                         done (proverServer's answer to them).
 *   POST /jobs?circuit=CIRCUIT  body: the input JSON. A job of its own, any
 *                         number at once: 202 {"id":"<32 hex>","status":"busy"}
 *                         and Location: /jobs/ID.
 *   GET  /jobs/ID         {"id","status","circuit","job" (the daemon's id),
 *                         "proof":{…},"public":[…] (snarkjs's proof.json and
 *                         public.json) | "error"}; 404 when unknown.
 *   POST /jobs/ID/cancel  cancels it; 200 with the job as GET shows it.
 * Errors: {"error":"…"} with 400 (empty body, bad circuit argument), 401
 * (token), 404, 405, 413 (body over HTTP_API_BODY_MAX), 503 (the job table,
 * the bodies' HTTP_API_BODY_BUDGET or the waiting inputs'
 * HTTP_JOBS_INPUT_BUDGET is full: retry).
 *
 * Access: with a token file, every request needs `Authorization: Bearer
 * TOKEN` (401 otherwise, compared in constant time); without one, serve
 * refuses to start unless ADDR is a loopback address.
 *
 * The HTTP thread is libmicrohttpd driven by a thread of our own, with
 * metrics_http.h's two rules against slow clients: a deadline from the
 * accept (HTTP_API_DEADLINE_MS, plus the time a declared body needs at
 * HTTP_API_MIN_RATE), which bytes that trickle in do not move; and past
 * HTTP_API_MAX_CONNS connections, the oldest one still sending its request
 * is closed. Each answer carries `Connection: close`. The thread never
 * touches the core: jobs go to serve's own socket as a client's would
 * (http_jobs.h).
 */
#ifndef SLOTPROVE_HTTP_API_H
#define SLOTPROVE_HTTP_API_H

#include "err.h"
#include "witness_files.h"

#define HTTP_API_BODY_MAX WITNESS_INPUT_MAX   /* bytes of one body: the daemon's input limit */
#define HTTP_API_BODY_BUDGET (256u << 20)     /* bytes of all bodies held at once */
#define HTTP_API_MAX_CONNS 256                /* connections kept at once */
#define HTTP_API_SPARE_CONNS 32               /* libmicrohttpd's limit is MAX + SPARE */
#define HTTP_API_DEADLINE_MS 10000            /* from accept to the answer written, */
#define HTTP_API_MIN_RATE (1u << 20)          /* plus a declared body at this many bytes/s */
#define HTTP_API_TOKEN_MAX 4096               /* bytes of the token file */

struct http_api;

struct http_api_opts {
    const char *addr;             /* --http ADDR:PORT */
    const char *token_file;       /* --http-token-file, or NULL */
    const char *socket_path;      /* serve's own socket */
    const char *const *circuits;  /* the key names that have a witness program */
    unsigned ncircuits;
};

/* Reads the token (a regular file of at most HTTP_API_TOKEN_MAX bytes, not
 * readable by others, one line of printable non-space characters), checks
 * that a server without one listens on loopback only, listens on ADDR:PORT
 * and starts the HTTP thread and the jobs' threads (http_jobs.h). Signals
 * the threads should not take must be blocked by the caller first. 0 and
 * *out, or -EINVAL (bad ADDR:PORT, token file, or no token off loopback),
 * -EADDRNOTAVAIL, -ENOMEM, -errno, with e naming the option and reason. */
int http_api_start(const struct http_api_opts *o, struct http_api **out, struct sp_err *e);

/* Stops the threads, closes every connection and the socket, frees h
 * (NULL: nothing). */
void http_api_stop(struct http_api *h);

#endif
