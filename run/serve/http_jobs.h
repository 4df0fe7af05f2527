/*
 * http_jobs.h — the jobs of `serve --http` (http_api.h): a table of the
 * inputs the HTTP side took, and the threads that carry each one to the
 * daemon as any socket client would (client_conn.h: connect to serve's own
 * socket, submit with the input attached as a descriptor, wait, cancel).
 *
 * Nothing here touches the core's state: the supervisor sees these threads
 * as clients of its own uid, with the same limits and the same answers as
 * `slotprove submit --input`. HTTP_JOBS_WORKERS threads each carry one job
 * at a time (submit, then wait on the same connection), so at most that many
 * are in the daemon at once and the rest wait here, in order; one more
 * thread sends cancels, so a cancel never waits behind a running job.
 *
 * A job's input is held here (a memfd) until the daemon has taken it (its
 * answer to the submit; it then holds a descriptor of its own, which its
 * intake copies), the inputs of all jobs together at most
 * HTTP_JOBS_INPUT_BUDGET bytes. The
 * table holds at most HTTP_JOBS_MAX jobs; an ended job is kept for
 * HTTP_JOBS_TTL_S seconds (for GET /jobs/ID), then dropped when room is
 * needed. Every call below takes the table's mutex, which no thread holds
 * across I/O, so the HTTP thread never waits on the daemon.
 */
#ifndef SLOTPROVE_HTTP_JOBS_H
#define SLOTPROVE_HTTP_JOBS_H

#include <stddef.h>

#include "err.h"
#include "job_limits.h"

#define HTTP_JOBS_MAX 4096    /* jobs in the table, queued, running and ended */
#define HTTP_JOBS_WORKERS 16  /* jobs carried to the daemon at once */
#define HTTP_JOBS_TTL_S 600   /* seconds an ended job's result is kept */
#define HTTP_JOBS_INPUT_BUDGET (256u << 20) /* bytes of inputs held until the daemon took them */
#define HTTP_JOB_ID_HEX JOB_ID_HEX

struct http_jobs;

/* How http_jobs_render writes a job. */
enum http_jobs_form {
    HTTP_FORM_JOB,    /* {"id","status","job","proof":{…},"public":[…]|"error"} */
    HTTP_FORM_PROVER, /* rapidsnark proverServer's GET /status: {"status",
                       * "proof":"<proof.json as a string>","pubData":"<…>"|"error"} */
};

/* Starts the threads; they connect to socket_path (serve's own socket) per
 * job. 0 and *out, or -ENOMEM / -errno of pthread_create with e. */
int http_jobs_start(const char *socket_path, struct http_jobs **out, struct sp_err *e);

/* Stops the threads (a job in the daemon is abandoned: its connection is
 * shut), frees everything. NULL: nothing. */
void http_jobs_stop(struct http_jobs *t);

/* Queues a job of key circuit (a `--key` name with a `--witness-program`)
 * on input_fd (a regular file or memfd holding the input JSON, input_bytes
 * long; taken over: closed here on every path). 0 and the job's id
 * (HTTP_JOB_ID_HEX hex digits and a NUL) in id, or -EAGAIN when the table
 * is full of jobs not yet expired, -ENOBUFS when the inputs held would
 * pass HTTP_JOBS_INPUT_BUDGET, -EIO (no random bytes). */
int http_jobs_add(struct http_jobs *t, const char *circuit, int input_fd, size_t input_bytes,
                  char id[HTTP_JOB_ID_HEX + 1]);

/* Cancels job id: a queued one ends at once, a running one through the
 * daemon's cancel. 0 (also for a job already ended: nothing happens), or
 * -ENOENT. */
int http_jobs_cancel(struct http_jobs *t, const char *id);

/* Job id as JSON text in form (malloc'd, NUL-terminated; the caller frees),
 * or NULL with *found 0 (no such job) or 1 (out of memory). Status names
 * are proverServer's: "busy" (queued or running), "success", "failed",
 * "aborted" (cancelled). */
char *http_jobs_render(struct http_jobs *t, const char *id, enum http_jobs_form form, int *found);

#endif
