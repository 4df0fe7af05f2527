/* http_api.c — `serve --http`'s HTTP thread (see http_api.h). */
#include "http_api.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "http_token.h"
#include "http_server.h"
#include "http_jobs.h"

/* Why a body that came without Content-Length is dropped (413, 503). */
enum body_refusal { BODY_KEPT, BODY_TOO_BIG, BODY_NO_BUDGET };

/* One request: its body, as it comes. */
struct request {
    char *body;
    size_t len, reserved;          /* bytes held; bytes of the budget taken */
    enum body_refusal refusal;     /* not BODY_KEPT: the rest is counted, not kept */
};

struct http_api {
    struct http_server *srv;
    struct http_jobs *jobs;
    char token[HTTP_API_TOKEN_MAX];   /* "": none (loopback only) */
    const char *const *circuits;
    unsigned ncircuits;
    /* the HTTP thread only */
    size_t body_bytes;                /* reserved by requests, ≤ HTTP_API_BODY_BUDGET */
    char current[HTTP_JOB_ID_HEX + 1]; /* proverServer's one proof: "" before any */
};

/* Queues code with body (JSON text, or NULL: empty), freeing a malloc'd
 * body (owned) or not. */
static enum MHD_Result reply(struct http_api *h, struct MHD_Connection *conn, unsigned code,
                             char *body, int owned, const char *location)
{
    owned = owned && body;
    struct MHD_Response *r = MHD_create_response_from_buffer(
        body ? strlen(body) : 0, body ? body : "",
        owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
    if (!r) {
        if (owned)
            free(body);
        return MHD_NO;
    }
    if (body)
        MHD_add_response_header(r, "Content-Type", "application/json");
    if (code == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
    if (location)
        MHD_add_response_header(r, "Location", location);
    enum MHD_Result rc = http_server_queue(h->srv, conn, code, r);
    MHD_destroy_response(r);
    return rc;
}

__attribute__((format(printf, 4, 5)))
static enum MHD_Result fail(struct http_api *h, struct MHD_Connection *conn, unsigned code,
                            const char *fmt, ...)
{
    char msg[512], *text;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *o = json_pack("{s:s}", "error", msg);
    text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return reply(h, conn, code, text, 1, NULL);
}

/* The body as a memfd for the daemon (its intake copies it into a sealed
 * memfd of its own, witness_files.h), or -1. */
static int body_fd(const struct request *r)
{
    int fd = memfd_create("slotprove http input", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    for (size_t off = 0; off < r->len;) {
        ssize_t n = write(fd, r->body + off, r->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    return fd;
}

static int circuit_known(const struct http_api *h, const char *name)
{
    for (unsigned i = 0; i < h->ncircuits; i++)
        if (strcmp(h->circuits[i], name) == 0)
            return 1;
    return 0;
}

/* POST /input/CIRCUIT and POST /jobs?circuit=CIRCUIT: a new job, id in id. */
static enum MHD_Result start_job(struct http_api *h, struct MHD_Connection *conn,
                                 const struct request *r, const char *circuit,
                                 char id[HTTP_JOB_ID_HEX + 1], int *started)
{
    *started = 0;
    if (!circuit || !*circuit)
        return fail(h, conn, MHD_HTTP_BAD_REQUEST, "no circuit: POST /input/CIRCUIT or "
                    "/jobs?circuit=CIRCUIT");
    if (!circuit_known(h, circuit))
        return fail(h, conn, MHD_HTTP_NOT_FOUND, "no circuit \"%.200s\": serve has no --key of "
                    "that name with a --witness-program", circuit);
    if (r->len == 0)
        return fail(h, conn, MHD_HTTP_BAD_REQUEST, "the body is empty: expected the input "
                    "JSON");
    int fd = body_fd(r);
    if (fd < 0)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "cannot hold the input: %s",
                    strerror(errno));
    int rc = http_jobs_add(h->jobs, circuit, fd, r->len, id);
    if (rc == -ENOBUFS)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "the inputs waiting for the daemon "
                    "hold %u MiB, the most they may: retry later", HTTP_JOBS_INPUT_BUDGET >> 20);
    if (rc == -EAGAIN)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "the job table is full (%d jobs "
                    "queued, running or ended in the last %d s): retry later", HTTP_JOBS_MAX,
                    HTTP_JOBS_TTL_S);
    if (rc < 0)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "cannot take the job: %s",
                    strerror(-rc));
    *started = 1;
    return MHD_YES;
}

static enum MHD_Result route(struct http_api *h, struct MHD_Connection *conn, const char *url,
                             const char *method, const struct request *r)
{
    int post = strcmp(method, "POST") == 0, get = strcmp(method, "GET") == 0;
    char id[HTTP_JOB_ID_HEX + 1];
    int started, found;
    if (strncmp(url, "/input/", 7) == 0) {
        if (!post)
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s /input/CIRCUIT: use POST",
                        method);
        enum MHD_Result rc = start_job(h, conn, r, url + 7, id, &started);
        if (!started)
            return rc;
        if (h->current[0]) /* proverServer keeps one proof: a new input aborts the last */
            http_jobs_cancel(h->jobs, h->current);
        memcpy(h->current, id, sizeof(id));
        return reply(h, conn, MHD_HTTP_OK, NULL, 0, NULL);
    }
    if (strcmp(url, "/status") == 0) {
        if (!get)
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s /status: use GET", method);
        char *text = h->current[0] ? http_jobs_render(h->jobs, h->current, HTTP_FORM_PROVER,
                                                      &found) : NULL;
        if (!text && h->current[0] && found)
            return MHD_NO;
        return text ? reply(h, conn, MHD_HTTP_OK, text, 1, NULL)
                    : reply(h, conn, MHD_HTTP_OK, "{\"status\":\"ready\"}", 0, NULL);
    }
    if (strcmp(url, "/cancel") == 0) {
        if (!post)
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s /cancel: use POST", method);
        if (h->current[0])
            http_jobs_cancel(h->jobs, h->current);
        return reply(h, conn, MHD_HTTP_OK, NULL, 0, NULL);
    }
    if (strcmp(url, "/start") == 0 || strcmp(url, "/stop") == 0 || strcmp(url, "/config") == 0) {
        /* proverServer answers these 200 and does nothing; so do we */
        if (!post && !(get && strcmp(url, "/config") == 0))
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s %s: use POST", method, url);
        return reply(h, conn, MHD_HTTP_OK, NULL, 0, NULL);
    }
    if (strcmp(url, "/jobs") == 0) {
        if (!post)
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s /jobs: use POST", method);
        const char *circuit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "circuit");
        enum MHD_Result rc = start_job(h, conn, r, circuit, id, &started);
        if (!started)
            return rc;
        char body[96], where[64];
        snprintf(body, sizeof(body), "{\"id\":\"%s\",\"status\":\"busy\"}", id);
        snprintf(where, sizeof(where), "/jobs/%s", id);
        return reply(h, conn, MHD_HTTP_ACCEPTED, body, 0, where);
    }
    if (strncmp(url, "/jobs/", 6) == 0) {
        const char *rest = url + 6;
        size_t idl = strcspn(rest, "/");
        int cancel = strcmp(rest + idl, "/cancel") == 0;
        if (idl != HTTP_JOB_ID_HEX || (rest[idl] && !cancel))
            return fail(h, conn, MHD_HTTP_NOT_FOUND, "not found: %.200s", url);
        memcpy(id, rest, HTTP_JOB_ID_HEX);
        id[HTTP_JOB_ID_HEX] = 0;
        if (cancel ? !post : !get)
            return fail(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: use POST /jobs/ID/cancel or "
                        "GET /jobs/ID", method);
        if (cancel)
            http_jobs_cancel(h->jobs, id);
        char *text = http_jobs_render(h->jobs, id, HTTP_FORM_JOB, &found);
        if (!text && found)
            return MHD_NO;
        return text ? reply(h, conn, MHD_HTTP_OK, text, 1, NULL)
                    : fail(h, conn, MHD_HTTP_NOT_FOUND, "no job %s (ended jobs are kept %d s)",
                           id, HTTP_JOBS_TTL_S);
    }
    return fail(h, conn, MHD_HTTP_NOT_FOUND, "not found: %.200s (routes: POST /input/CIRCUIT, "
                "GET /status, POST /cancel, POST /jobs?circuit=CIRCUIT, GET /jobs/ID)", url);
}

/* The headers are in: the token, then the declared body against the limit
 * and the budget. MHD_YES to read on, or the refusal queued. */
static enum MHD_Result headers_in(struct http_api *h, struct MHD_Connection *conn,
                                  struct request *r)
{
    if (h->token[0] &&
        !http_token_ok(h->token, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                              MHD_HTTP_HEADER_AUTHORIZATION)))
        return fail(h, conn, MHD_HTTP_UNAUTHORIZED, "a bearer token is needed: Authorization: "
                    "Bearer TOKEN (the one in serve's --http-token-file)");
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!cl)
        return MHD_YES;
    char *end;
    errno = 0;
    unsigned long long len = strtoull(cl, &end, 10);
    if (errno || *end || end == cl || len > HTTP_API_BODY_MAX) {
        return fail(h, conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than %u bytes, "
                    "the limit of an input", (unsigned)HTTP_API_BODY_MAX);
    }
    if (h->body_bytes + len > HTTP_API_BODY_BUDGET)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "too many bodies held at once: "
                    "retry later");
    r->body = len ? malloc(len) : NULL;
    if (len && !r->body)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
    r->reserved = len;
    h->body_bytes += len;
    /* a declared body gets the time it needs at HTTP_API_MIN_RATE */
    http_server_extend(conn, len * 1000000000ull / HTTP_API_MIN_RATE);
    return MHD_YES;
}

/* A chunk of the body: into the buffer; past the declared length, or past
 * the limit without one, it is counted and dropped (413 at the end). */
static void body_in(struct http_api *h, struct request *r, const char *data, size_t n)
{
    if (r->refusal != BODY_KEPT)
        return;
    size_t want = r->len + n;
    if (want > HTTP_API_BODY_MAX) {
        r->refusal = BODY_TOO_BIG;
        return;
    }
    if (want > r->reserved) { /* chunked: grow within the budget */
        size_t more = want - r->reserved;
        char *nb = h->body_bytes + more <= HTTP_API_BODY_BUDGET ? realloc(r->body, want) : NULL;
        if (!nb) {
            r->refusal = BODY_NO_BUDGET;
            return;
        }
        r->body = nb;
        r->reserved = want;
        h->body_bytes += more;
    }
    memcpy(r->body + r->len, data, n);
    r->len = want;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct http_api *h = cls;
    (void)version;
    struct request *r = *state;
    if (!r) {
        if (!(r = calloc(1, sizeof(*r))))
            return MHD_NO;
        *state = r;
        return headers_in(h, conn, r);
    }
    if (*upload_len) {
        body_in(h, r, upload, *upload_len);
        *upload_len = 0;
        return MHD_YES;
    }
    if (r->refusal == BODY_TOO_BIG)
        return fail(h, conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than %u bytes, "
                    "the limit of an input", (unsigned)HTTP_API_BODY_MAX);
    if (r->refusal == BODY_NO_BUDGET)
        return fail(h, conn, MHD_HTTP_SERVICE_UNAVAILABLE, "too many bodies held at once: "
                    "retry later");
    return route(h, conn, url, method, r);
}

/* MHD_OPTION_NOTIFY_COMPLETED: the request's body and budget go back. */
static void completed(void *cls, struct MHD_Connection *conn, void **state,
                      enum MHD_RequestTerminationCode why)
{
    struct http_api *h = cls;
    struct request *r = *state;
    (void)conn;
    (void)why;
    if (!r)
        return;
    h->body_bytes -= r->reserved;
    free(r->body);
    free(r);
    *state = NULL;
}

int http_api_start(const struct http_api_opts *o, struct http_api **out, struct sp_err *e)
{
    static const struct http_rules rules = {
        .opt = "--http", .max_conns = HTTP_API_MAX_CONNS, .spare_conns = HTTP_API_SPARE_CONNS,
        .deadline_ms = HTTP_API_DEADLINE_MS,
        .backstop_s = HTTP_API_DEADLINE_MS / 1000 + HTTP_API_BODY_MAX / HTTP_API_MIN_RATE + 1,
    };
    struct addrinfo *ai;
    int rc = http_resolve("--http", o->addr, &ai, e);
    if (rc < 0)
        return rc;
    int loopback = http_is_loopback(ai);
    freeaddrinfo(ai);
    struct http_api *h = calloc(1, sizeof(*h));
    if (!h)
        return sp_fail(e, -ENOMEM, "--http %s: out of memory", o->addr);
    h->circuits = o->circuits;
    h->ncircuits = o->ncircuits;
    if (o->token_file && (rc = http_token_read(o->token_file, h->token, sizeof(h->token), e)) < 0)
        goto fail;
    if (!o->token_file && !loopback) {
        rc = sp_fail(e, -EINVAL, "--http %s: not a loopback address, so every request must "
                     "carry a token: give --http-token-file FILE", o->addr);
        goto fail;
    }
    if ((rc = http_jobs_start(o->socket_path, &h->jobs, e)) < 0 ||
        (rc = http_server_start(o->addr, &rules, answer, completed, h, &h->srv, e)) < 0)
        goto fail;
    *out = h;
    return 0;
fail:
    http_jobs_stop(h->jobs);
    free(h);
    return rc;
}

void http_api_stop(struct http_api *h)
{
    if (!h)
        return;
    http_server_stop(h->srv); /* first: no handler runs after this */
    http_jobs_stop(h->jobs);
    free(h);
}
