/* client_conn.c — see client_conn.h: the connection to the daemon's socket. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client_conn.h"
#include "file_kind.h"
#include "request.h"
#include "stages.h"

int client_open(struct client_conn *c, const char *path, struct sp_err *e)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->path = path;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return sp_fail(e, -ENAMETOOLONG, "cannot connect to %s: %s", path, strerror(ENAMETOOLONG));
    memcpy(sa.sun_path, path, strlen(path) + 1);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        int err = errno;
        return sp_fail(e, -err, "socket: %s", strerror(err));
    }
    int rc;
    do
        rc = connect(c->fd, (struct sockaddr *)&sa, sizeof(sa));
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        int err = errno;
        struct stat st;
        close(c->fd);
        c->fd = -1;
        if ((err == ECONNREFUSED || err == ENOTSOCK) && stat(path, &st) == 0 &&
            !S_ISSOCK(st.st_mode))
            return sp_fail(e, -ENOTSOCK, "cannot connect to %s: it is %s, not a socket "
                           "(is --socket right?)", path, file_kind(st.st_mode));
        return sp_fail(e, -err, "cannot connect to %s: %s%s", path, strerror(err),
                       err == ENOENT || err == ECONNREFUSED ? " (is `slotprove serve` running?)"
                                                            : "");
    }
    return 0;
}

void client_close(struct client_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
}

/* Sends one request line, with fds attached to its first byte. */
int client_send(struct client_conn *c, const char *line, size_t len, const int *fds, unsigned nfds,
                     struct sp_err *e)
{
    union {
        char b[CMSG_SPACE(sizeof(int) * REQUEST_MAX_FDS)];
        struct cmsghdr align;
    } u;
    size_t off = 0;

    if (nfds > REQUEST_MAX_FDS)
        return sp_fail(e, SP_EINTERNAL, "%u descriptors in one request", nfds);
    while (off < len) {
        struct iovec iov = { .iov_base = (char *)line + off, .iov_len = len - off };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (off == 0 && nfds > 0) {
            memset(&u, 0, sizeof(u));
            mh.msg_control = u.b;
            mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
        }
        ssize_t n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            return sp_fail(e, -err, "%s: cannot send the request: %s", c->path, strerror(err));
        }
        off += (size_t)n;
    }
    return 0;
}

/* Reads the next response line; *line is NUL-terminated (the '\n' replaced)
 * and stays valid until the next call. */
int client_read_line(struct client_conn *c, char **line, size_t *len, struct sp_err *e)
{
    if (c->consumed) {
        memmove(c->buf, c->buf + c->consumed, c->len - c->consumed);
        c->len -= c->consumed;
        c->consumed = 0;
        c->scanned = 0;
    }
    for (;;) {
        char *nl = c->len > c->scanned ? memchr(c->buf + c->scanned, '\n', c->len - c->scanned)
                                       : NULL;
        if (nl) {
            *nl = 0;
            *line = c->buf;
            *len = (size_t)(nl - c->buf);
            c->consumed = *len + 1;
            return 0;
        }
        c->scanned = c->len;
        if (c->len > CLIENT_RESPONSE_MAX)
            return sp_fail(e, SP_EFORMAT, "%s: a response from the daemon exceeds %zu MiB",
                           c->path, CLIENT_RESPONSE_MAX >> 20);
        if (c->cap - c->len < 4096) {
            size_t ncap = c->cap ? c->cap * 2 : 65536;
            if (ncap > CLIENT_RESPONSE_MAX + 2)
                ncap = CLIENT_RESPONSE_MAX + 2;
            char *nb = realloc(c->buf, ncap);
            if (!nb)
                return sp_fail(e, -ENOMEM, "out of memory");
            c->buf = nb;
            c->cap = ncap;
        }
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            return sp_fail(e, -err, "%s: %s", c->path, strerror(err));
        }
        if (n == 0)
            return sp_fail(e, -EPIPE, "%s: the daemon closed the connection%s", c->path,
                           c->len ? " in the middle of a response" : " without answering");
        c->len += (size_t)n;
    }
}

/* Replaces control characters, so a message from the daemon cannot drive
 * the terminal. */
void client_sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/*
 * Sends req (and fds) and reads the response object into *resp. An
 * {"ok":false} answer is returned as an error carrying the daemon's reason;
 * then *resp is still set (the caller may look at "state") and must be freed.
 */
static int call_once(struct client_conn *c, json_t *req, const int *fds, unsigned nfds,
                     json_t **resp, struct sp_err *e)
{
    *resp = NULL;
    char *s = json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s)
        return sp_fail(e, -ENOMEM, "cannot encode the request");
    size_t n = strlen(s);
    if (n + 1 > REQUEST_LINE_MAX) {
        free(s);
        return sp_fail(e, -E2BIG, "the request is %zu bytes; the protocol allows %d", n + 1,
                       REQUEST_LINE_MAX);
    }
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return sp_fail(e, -ENOMEM, "out of memory");
    }
    line[n] = '\n';
    line[n + 1] = 0;
    struct sp_err send_err = { "" };
    int src = client_send(c, line, n + 1, fds, nfds, &send_err);
    free(line);

    /* Even when sending failed (the daemon may have rejected the request and
     * hung up), its answer may be waiting: prefer it to EPIPE. */
    char *rl = NULL;
    size_t rlen = 0;
    int rc = client_read_line(c, &rl, &rlen, e);
    if (rc < 0) {
        if (src < 0)
            *e = send_err;
        return src < 0 ? src : rc;
    }
    json_error_t je;
    json_t *o = json_loadb(rl, rlen, 0, &je);
    if (!o || !json_is_object(o) || !json_is_boolean(json_object_get(o, "ok"))) {
        json_decref(o);
        return sp_fail(e, -EPROTO, "%s: malformed response from the daemon%s%s", c->path,
                       o ? "" : ": ", o ? "" : je.text);
    }
    *resp = o;
    if (!json_is_true(json_object_get(o, "ok"))) {
        const char *why = json_string_value(json_object_get(o, "error"));
        const char *state = json_string_value(json_object_get(o, "state"));
        int rc2 = sp_fail(e, SP_EINTERNAL, "%s", why ? why : state ? state : "request failed");
        client_sanitize(e->msg);
        return rc2;
    }
    return 0;
}

/* How long a client retries a daemon that refuses connections as too many
 * ("busy":true, conn.c: a uid's idle connections, or a full table). */
#define CLIENT_BUSY_RETRY_S 120

int client_call(struct client_conn *c, json_t *req, const int *fds, unsigned nfds, json_t **resp,
                struct sp_err *e)
{
    uint64_t give_up = now_ns() + CLIENT_BUSY_RETRY_S * 1000000000ull;
    long delay_ms = 5;
    int said_busy = 0;
    for (;;) {
        int rc = call_once(c, req, fds, nfds, resp, e);
        if (rc == 0 || !*resp || !json_is_true(json_object_get(*resp, "busy")) ||
            now_ns() > give_up)
            return rc;
        /* refused at accept, before any request was read, or a submit refused
         * as busy (its files' readers: intake.h): nothing happened on the
         * daemon's side, so asking again on a new connection is safe */
        if (!said_busy++) {
            const char *why = json_string_value(json_object_get(*resp, "error"));
            fprintf(stderr, "slotprove: %s; retrying for up to %d s\n", why ? why : "busy",
                    CLIENT_BUSY_RETRY_S);
        }
        json_decref(*resp);
        *resp = NULL;
        const char *path = c->path;
        client_close(c);
        struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        delay_ms = delay_ms * 2 > 1000 ? 1000 : delay_ms * 2;
        if ((rc = client_open(c, path, e)) < 0)
            return rc;
    }
}
