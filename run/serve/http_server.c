/* http_server.c — serve's HTTP threads and their rules (see http_server.h). */
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
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
    uint64_t deadline_ns;          /* CLOCK_MONOTONIC: accept + deadline_ms, or later */
    enum conn_stage stage;
};

struct http_server {
    struct MHD_Daemon *mhd;
    struct http_rules rules;
    int epoll_fd;                  /* libmicrohttpd's */
    int stop_fd;                   /* eventfd: http_server_stop wakes the thread */
    pthread_t thread;
    /* the HTTP thread only (and http_server_stop once it is joined) */
    struct http_conn *head, *tail;
    unsigned receiving, answered;  /* connections in those stages (CLOSING: neither) */
};

static void conn_shut(struct http_server *s, struct http_conn *k)
{
    if (k->stage == CONN_RECEIVING)
        s->receiving--;
    else if (k->stage == CONN_ANSWERED)
        s->answered--;
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
    struct http_server *s = cls;
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
        k->deadline_ns = now_ns() + s->rules.deadline_ms * 1000000ull;
        k->stage = CONN_RECEIVING;
        k->prev = s->tail;
        if (s->tail)
            s->tail->next = k;
        else
            s->head = k;
        s->tail = k;
        s->receiving++;
        *socket_context = k;
        return;
    }
    if (what != MHD_CONNECTION_NOTIFY_CLOSED || !k)
        return;
    if (k->stage == CONN_RECEIVING)
        s->receiving--;
    else if (k->stage == CONN_ANSWERED)
        s->answered--;
    if (k->prev)
        k->prev->next = k->next;
    else
        s->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        s->tail = k->prev;
    free(k);
    *socket_context = NULL;
}

/* After each MHD_run: connections past their deadline are shut, then the
 * oldest receiving ones (else the oldest answered) until at most
 * max_conns remain. (A deadline may have been extended, so the whole list
 * is looked at, not only its head.) */
static void enforce(struct http_server *s, uint64_t now)
{
    for (struct http_conn *k = s->head; k; k = k->next)
        if (k->deadline_ns <= now)
            conn_shut(s, k);
    for (struct http_conn *k = s->head; k && s->receiving + s->answered > s->rules.max_conns;
         k = k->next)
        if (k->stage == CONN_RECEIVING)
            conn_shut(s, k);
    for (struct http_conn *k = s->head; k && s->answered > s->rules.max_conns; k = k->next)
        conn_shut(s, k);
}

/* How long the thread may sleep: until libmicrohttpd's next timeout or the
 * earliest deadline of a connection not yet shut, ms; -1: no limit. */
static int wait_ms(struct http_server *s, uint64_t now)
{
    MHD_UNSIGNED_LONG_LONG mhd_ms;
    uint64_t ms = UINT64_MAX;
    if (MHD_get_timeout(s->mhd, &mhd_ms) == MHD_YES)
        ms = mhd_ms;
    for (struct http_conn *k = s->head; k; k = k->next)
        if (k->stage != CONN_CLOSING) {
            uint64_t left = k->deadline_ns > now ? (k->deadline_ns - now + 999999) / 1000000 : 0;
            if (left < ms)
                ms = left;
        }
    return ms > INT_MAX ? (ms == UINT64_MAX ? -1 : INT_MAX) : (int)ms;
}

static void *http_thread(void *arg)
{
    struct http_server *s = arg;
    struct pollfd p[2] = { { .fd = s->epoll_fd, .events = POLLIN },
                           { .fd = s->stop_fd, .events = POLLIN } };
    for (;;) {
        /* an error of poll (EINTR; ENOMEM) is as a wake-up: run and look again */
        (void)poll(p, 2, wait_ms(s, now_ns()));
        if (p[1].revents)
            return NULL;
        MHD_run(s->mhd);
        enforce(s, now_ns());
    }
}

static struct http_conn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

enum MHD_Result http_server_queue(struct http_server *s, struct MHD_Connection *conn,
                                  unsigned code, struct MHD_Response *r)
{
    MHD_add_response_header(r, "Connection", "close"); /* one request a connection */
    enum MHD_Result rc = MHD_queue_response(conn, code, r);
    struct http_conn *k = conn_of(conn);
    if (rc == MHD_YES && k && k->stage == CONN_RECEIVING) {
        k->stage = CONN_ANSWERED;
        s->receiving--;
        s->answered++;
    }
    return rc;
}

void http_server_extend(struct MHD_Connection *conn, uint64_t ns)
{
    struct http_conn *k = conn_of(conn);
    if (k)
        k->deadline_ns += ns;
}

int http_resolve(const char *opt, const char *addr_port, struct addrinfo **ai, struct sp_err *e)
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
        return sp_fail(e, -EINVAL, "%s %s: expected ADDR:PORT (e.g. 127.0.0.1:9464, "
                       "[::1]:9464)", opt, addr_port);
    memcpy(host, h, hl);
    host[hl] = 0;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
    int grc = getaddrinfo(host, colon + 1, &hints, ai);
    if (grc != 0)
        return sp_fail(e, -EINVAL, "%s %s: %s", opt, addr_port, gai_strerror(grc));
    return 0;
}

int http_is_loopback(const struct addrinfo *ai)
{
    if (ai->ai_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)ai->ai_addr;
        return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
    }
    if (ai->ai_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ai->ai_addr;
        return IN6_IS_ADDR_LOOPBACK(&s->sin6_addr);
    }
    return 0;
}

int http_server_start(const char *addr_port, const struct http_rules *rules,
                      MHD_AccessHandlerCallback answer, MHD_RequestCompletedCallback completed,
                      void *cls, struct http_server **out, struct sp_err *e)
{
    *out = NULL;
    struct addrinfo *ai;
    int rc = http_resolve(rules->opt, addr_port, &ai, e);
    if (rc < 0)
        return rc;
    struct http_server *s = calloc(1, sizeof(*s));
    if (!s) {
        freeaddrinfo(ai);
        return sp_fail(e, -ENOMEM, "%s %s: out of memory", rules->opt, addr_port);
    }
    s->rules = *rules;
    s->stop_fd = -1;
    /* no internal thread: ours runs it, so that it can enforce the rules
     * between two MHD_run calls */
    unsigned flags = MHD_USE_EPOLL;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    uint16_t port = ai->ai_family == AF_INET6
                    ? ntohs(((struct sockaddr_in6 *)ai->ai_addr)->sin6_port)
                    : ntohs(((struct sockaddr_in *)ai->ai_addr)->sin_port);
    s->mhd = MHD_start_daemon(flags, port, NULL, NULL, answer, cls,
                              MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                              MHD_OPTION_CONNECTION_LIMIT, rules->max_conns + rules->spare_conns,
                              /* a backstop only: the deadline closes a connection first */
                              MHD_OPTION_CONNECTION_TIMEOUT, rules->backstop_s,
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                              completed ? MHD_OPTION_NOTIFY_COMPLETED : MHD_OPTION_END,
                              completed, cls,
                              MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!s->mhd) {
        free(s);
        return sp_fail(e, -EADDRNOTAVAIL, "%s %s: cannot listen there (in use, or not "
                       "an address of this host)", rules->opt, addr_port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    s->epoll_fd = di ? di->epoll_fd : -1;
    s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->epoll_fd < 0 || s->stop_fd < 0) {
        rc = s->stop_fd < 0 ? -errno : -EINVAL;
        sp_fail(e, rc, "%s %s: %s", rules->opt, addr_port,
                s->stop_fd < 0 ? strerror(errno) : "libmicrohttpd gave no epoll descriptor");
        goto fail;
    }
    *out = s; /* before the thread: the handlers may need it at once */
    if ((rc = -pthread_create(&s->thread, NULL, http_thread, s)) < 0) {
        *out = NULL;
        sp_fail(e, rc, "%s %s: cannot start its thread: %s", rules->opt, addr_port,
                strerror(-rc));
        goto fail;
    }
    return 0;
fail:
    if (s->stop_fd >= 0)
        close(s->stop_fd);
    MHD_stop_daemon(s->mhd);
    free(s);
    return rc;
}

void http_server_stop(struct http_server *s)
{
    if (!s)
        return;
    uint64_t one = 1;
    while (write(s->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
        ;
    pthread_join(s->thread, NULL);
    MHD_stop_daemon(s->mhd); /* NOTIFY_CLOSED for each connection left: the list empties */
    close(s->stop_fd);
    free(s);
}
