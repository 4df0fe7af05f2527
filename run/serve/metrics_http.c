/* metrics_http.c — the metrics endpoint's HTTP thread (see metrics_http.h). */
#include "metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stages.h" /* now_ns: CLOCK_MONOTONIC */

/* Where a connection is. A connection moves RECEIVING → ANSWERED when its
 * answer is queued, and to CLOSING (either before) when it is shut down
 * here; libmicrohttpd's NOTIFY_CLOSED then forgets it. */
enum conn_stage { CONN_RECEIVING, CONN_ANSWERED, CONN_CLOSING };

struct http_conn {
    struct http_conn *prev, *next; /* accept order: the list's head is the oldest */
    int fd;                        /* libmicrohttpd's socket; only shut down here */
    uint64_t deadline_ns;          /* CLOCK_MONOTONIC: accept + METRICS_HTTP_DEADLINE_MS */
    enum conn_stage stage;
};

struct metrics_http {
    struct MHD_Daemon *mhd;
    int epoll_fd;                  /* libmicrohttpd's */
    int stop_fd;                   /* eventfd: metrics_http_stop wakes the thread */
    pthread_t thread;
    metrics_page_fn page;
    void *page_ctx;
    /* the HTTP thread only (and metrics_http_stop once it is joined) */
    struct http_conn *head, *tail;
    unsigned receiving, answered;  /* connections in those stages (CLOSING: neither) */
};

static void conn_shut(struct metrics_http *h, struct http_conn *k)
{
    if (k->stage == CONN_RECEIVING)
        h->receiving--;
    else if (k->stage == CONN_ANSWERED)
        h->answered--;
    else
        return;
    k->stage = CONN_CLOSING;
    shutdown(k->fd, SHUT_RDWR);
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection accepted (appended to the
 * list) or closed (removed). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode what)
{
    struct metrics_http *h = cls;
    struct http_conn *k = *socket_context;
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        k = calloc(1, sizeof(*k));
        if (!k || !ci) { /* untracked means without a deadline: refuse it */
            free(k);
            *socket_context = NULL;
            if (ci)
                shutdown(ci->connect_fd, SHUT_RDWR);
            return;
        }
        k->fd = ci->connect_fd;
        k->deadline_ns = now_ns() + METRICS_HTTP_DEADLINE_MS * 1000000ull;
        k->stage = CONN_RECEIVING;
        k->prev = h->tail;
        if (h->tail)
            h->tail->next = k;
        else
            h->head = k;
        h->tail = k;
        h->receiving++;
        *socket_context = k;
        return;
    }
    if (what != MHD_CONNECTION_NOTIFY_CLOSED || !k)
        return;
    if (k->stage == CONN_RECEIVING)
        h->receiving--;
    else if (k->stage == CONN_ANSWERED)
        h->answered--;
    if (k->prev)
        k->prev->next = k->next;
    else
        h->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        h->tail = k->prev;
    free(k);
    *socket_context = NULL;
}

/* After each MHD_run: connections past their deadline are shut, then the
 * oldest receiving ones (else the oldest answered) until at most
 * METRICS_HTTP_MAX_CONNS remain. The list is in accept order, so the
 * deadlines ascend along it. */
static void enforce(struct metrics_http *h, uint64_t now)
{
    for (struct http_conn *k = h->head; k && k->deadline_ns <= now; k = k->next)
        conn_shut(h, k);
    for (struct http_conn *k = h->head; k && h->receiving + h->answered > METRICS_HTTP_MAX_CONNS;
         k = k->next)
        if (k->stage == CONN_RECEIVING)
            conn_shut(h, k);
    for (struct http_conn *k = h->head; k && h->answered > METRICS_HTTP_MAX_CONNS; k = k->next)
        conn_shut(h, k);
}

/* How long the thread may sleep: until libmicrohttpd's next timeout or the
 * earliest deadline of a connection not yet shut, ms; -1: no limit. */
static int wait_ms(struct metrics_http *h, uint64_t now)
{
    MHD_UNSIGNED_LONG_LONG mhd_ms;
    uint64_t ms = UINT64_MAX;
    if (MHD_get_timeout(h->mhd, &mhd_ms) == MHD_YES)
        ms = mhd_ms;
    for (struct http_conn *k = h->head; k; k = k->next)
        if (k->stage != CONN_CLOSING) {
            uint64_t left = k->deadline_ns > now ? (k->deadline_ns - now + 999999) / 1000000 : 0;
            if (left < ms)
                ms = left;
            break;
        }
    return ms > INT_MAX ? (ms == UINT64_MAX ? -1 : INT_MAX) : (int)ms;
}

static void *http_thread(void *arg)
{
    struct metrics_http *h = arg;
    struct pollfd p[2] = { { .fd = h->epoll_fd, .events = POLLIN },
                           { .fd = h->stop_fd, .events = POLLIN } };
    for (;;) {
        /* an error of poll (EINTR; ENOMEM) is as a wake-up: run and look again */
        (void)poll(p, 2, wait_ms(h, now_ns()));
        if (p[1].revents)
            return NULL;
        MHD_run(h->mhd);
        enforce(h, now_ns());
    }
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct metrics_http *h = cls;
    (void)version;
    (void)upload;
    if (!*state) { /* the headers: answer when the request is complete */
        *state = h;
        return MHD_YES;
    }
    if (*upload_len) { /* a GET has no body: ignore one */
        *upload_len = 0;
        return MHD_YES;
    }
    struct MHD_Response *r;
    unsigned code = MHD_HTTP_OK;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static char msg[] = "only GET /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        static char msg[] = "not found: the metrics are at /metrics\n";
        r = MHD_create_response_from_buffer(sizeof(msg) - 1, msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_FOUND;
    } else {
        size_t len = 0;
        char *page = h->page(h->page_ctx, &len);
        if (!page)
            return MHD_NO;
        r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
        if (!r)
            free(page);
        else
            MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    }
    if (!r)
        return MHD_NO;
    /* one request a connection: the deadline from accept covers all of it */
    MHD_add_response_header(r, "Connection", "close");
    enum MHD_Result rc = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
                                                                 MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct http_conn *k = ci ? ci->socket_context : NULL;
    if (rc == MHD_YES && k && k->stage == CONN_RECEIVING) {
        k->stage = CONN_ANSWERED;
        h->receiving--;
        h->answered++;
    }
    return rc;
}

/* ADDR:PORT → a socket address in *ai (freeaddrinfo), or -EINVAL with e. */
static int resolve(const char *addr_port, struct addrinfo **ai, struct sp_err *e)
{
    char host[256];
    const char *colon = strrchr(addr_port, ':');
    const char *h = addr_port;
    size_t hl = colon ? (size_t)(colon - addr_port) : 0;
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || hl == 0 || hl >= sizeof(host) || *end || port < 1 || port > 65535)
        return sp_fail(e, -EINVAL, "--metrics %s: expected ADDR:PORT (e.g. 127.0.0.1:9464, "
                       "[::1]:9464)", addr_port);
    memcpy(host, h, hl);
    host[hl] = 0;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
    int grc = getaddrinfo(host, colon + 1, &hints, ai);
    if (grc != 0)
        return sp_fail(e, -EINVAL, "--metrics %s: %s", addr_port, gai_strerror(grc));
    return 0;
}

int metrics_http_start(const char *addr_port, metrics_page_fn page, void *ctx,
                       struct metrics_http **out, struct sp_err *e)
{
    struct addrinfo *ai;
    int rc = resolve(addr_port, &ai, e);
    if (rc < 0)
        return rc;
    struct metrics_http *h = calloc(1, sizeof(*h));
    if (!h) {
        freeaddrinfo(ai);
        return sp_fail(e, -ENOMEM, "--metrics %s: out of memory", addr_port);
    }
    h->page = page;
    h->page_ctx = ctx;
    /* no internal thread: ours runs it, so that it can enforce the rules
     * between two MHD_run calls */
    unsigned flags = MHD_USE_EPOLL;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    uint16_t port = ai->ai_family == AF_INET6
                    ? ntohs(((struct sockaddr_in6 *)ai->ai_addr)->sin6_port)
                    : ntohs(((struct sockaddr_in *)ai->ai_addr)->sin_port);
    h->mhd = MHD_start_daemon(flags, port, NULL, NULL, answer, h,
                              MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                              MHD_OPTION_CONNECTION_LIMIT,
                              (unsigned)(METRICS_HTTP_MAX_CONNS + METRICS_HTTP_SPARE_CONNS),
                              /* a backstop only: the deadline closes a connection first */
                              MHD_OPTION_CONNECTION_TIMEOUT,
                              (unsigned)(METRICS_HTTP_DEADLINE_MS / 1000 + 1),
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                              MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->mhd) {
        free(h);
        return sp_fail(e, -EADDRNOTAVAIL, "--metrics %s: cannot listen there (in use, or not "
                       "an address of this host)", addr_port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    h->epoll_fd = di ? di->epoll_fd : -1;
    h->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (h->epoll_fd < 0 || h->stop_fd < 0) {
        rc = h->stop_fd < 0 ? -errno : -EINVAL;
        sp_fail(e, rc, "--metrics %s: %s", addr_port,
                h->stop_fd < 0 ? strerror(errno) : "libmicrohttpd gave no epoll descriptor");
        goto fail;
    }
    if ((rc = -pthread_create(&h->thread, NULL, http_thread, h)) < 0) {
        sp_fail(e, rc, "--metrics %s: cannot start its thread: %s", addr_port, strerror(-rc));
        goto fail;
    }
    *out = h;
    return 0;
fail:
    if (h->stop_fd >= 0)
        close(h->stop_fd);
    MHD_stop_daemon(h->mhd);
    free(h);
    return rc;
}

void metrics_http_stop(struct metrics_http *h)
{
    if (!h)
        return;
    uint64_t one = 1;
    while (write(h->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
        ;
    pthread_join(h->thread, NULL);
    MHD_stop_daemon(h->mhd); /* NOTIFY_CLOSED for each connection left: the list empties */
    close(h->stop_fd);
    free(h);
}
