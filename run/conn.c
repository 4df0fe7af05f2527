/*
 * conn.c — client connections to the daemon's socket.
 *
 * Non-blocking, with bounded buffers: a request line is capped at
 * REQUEST_LINE_MAX and the descriptors that came with it at a small number;
 * a client that does not read its answers is dropped when its output passes
 * CONN_OUT_MAX. Peers are checked with SO_PEERCRED against the allowed uids
 * and gid. A client that disconnects does not cancel its job: the result is
 * kept for --result-ttl seconds for `slotprove wait JOB` by the same uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "server.h"

#define CONN_OUT_MAX (256u << 20)
#define CONN_MAX_FDS ((int)(sizeof(((struct conn *)0)->fds) / sizeof(int)))

static void close_fds(struct conn *c)
{
    for (int i = 0; i < c->nfds; i++)
        if (c->fds[i] >= 0)
            close(c->fds[i]);
    c->nfds = 0;
}

void conn_close(struct server *d, struct conn *c)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (d->conns[i] == c)
            d->conns[i] = NULL;
    close_fds(c);
    close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

static int peer_allowed(const struct server *d, uid_t uid, gid_t gid)
{
    if (d->o.n_allow_uid == 0 && uid == geteuid())
        return 1;
    for (unsigned i = 0; i < d->o.n_allow_uid; i++)
        if (d->o.allow_uid[i] == uid)
            return 1;
    return d->o.has_allow_gid && gid == d->o.allow_gid;
}

void conn_accept(struct server *d)
{
    int fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
            /* out of descriptors: use the spare to take the connection and shut it */
            close(d->spare_fd);
            fd = accept(d->listen_fd, NULL, NULL);
            if (fd >= 0)
                close(fd);
            d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            sup_log(LOG_NOTE, "out of file descriptors: refused a connection");
        }
        return;
    }
    struct ucred cr;
    socklen_t len = sizeof(cr);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
        close(fd);
        return;
    }
    int slot = -1;
    for (int i = 0; i < MAX_CONNS && slot < 0; i++)
        if (!d->conns[i])
            slot = i;
    struct conn *c = slot >= 0 ? calloc(1, sizeof(*c)) : NULL;
    if (!c) {
        static const char busy[] = "{\"ok\":false,\"error\":\"too many connections\"}\n";
        (void)!write(fd, busy, sizeof(busy) - 1);
        close(fd);
        return;
    }
    c->fd = fd;
    c->uid = cr.uid;
    c->gid = cr.gid;
    d->conns[slot] = c;
    if (!peer_allowed(d, cr.uid, cr.gid)) {
        char line[160];
        snprintf(line, sizeof(line),
                 "{\"ok\":false,\"error\":\"uid %u is not allowed to use this daemon\"}",
                 (unsigned)cr.uid);
        conn_send(d, c, line);
        c->closing = 1;
        sup_log(LOG_NOTE, "refused a client with uid %u gid %u", (unsigned)cr.uid, (unsigned)cr.gid);
    }
}

void conn_send(struct server *d, struct conn *c, const char *line)
{
    size_t n = strlen(line);
    if (c->outlen + n + 1 > CONN_OUT_MAX) {
        c->closing = 2; /* not reading: drop it */
        return;
    }
    if (c->outlen + n + 1 > c->outcap) {
        size_t cap = (c->outlen + n + 1) * 2;
        char *p = realloc(c->out, cap);
        if (!p) {
            c->closing = 2;
            return;
        }
        c->out = p;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, line, n);
    c->out[c->outlen + n] = '\n';
    c->outlen += n + 1;
    conn_writable(d, c);
}

static void send_error(struct server *d, struct conn *c, const char *msg)
{
    json_t *o = json_pack("{sbss}", "ok", 0, "error", msg);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    conn_send(d, c, s ? s : "{\"ok\":false,\"error\":\"internal\"}");
    free(s);
    json_decref(o);
}

static void answer_job_end(struct server *d, struct conn *c, struct job *j)
{
    char *s = jobs_result_json(j);
    conn_send(d, c, s ? s : "{\"ok\":false,\"error\":\"out of memory\"}");
    free(s);
}

void conns_job_ended(void *server, struct job *j)
{
    struct server *d = server;
    for (int i = 0; i < MAX_CONNS; i++) {
        struct conn *c = d->conns[i];
        if (c && c->waiting == j) {
            c->waiting = NULL;
            answer_job_end(d, c, j);
        }
    }
}

static void handle_line(struct server *d, struct conn *c, const char *line, size_t len)
{
    struct request r;
    char err[300];
    if (request_parse(line, len, &r, err, sizeof(err)) < 0) {
        close_fds(c);
        send_error(d, c, err);
        return;
    }
    if ((int)request_fd_count(&r) != c->nfds) {
        snprintf(err, sizeof(err), "request needs %u descriptors, %d arrived",
                 request_fd_count(&r), c->nfds);
        close_fds(c);
        send_error(d, c, err);
        return;
    }
    if (r.op == REQ_STATUS) {
        char *s = status_json(&d->core);
        conn_send(d, c, s ? s : "{\"ok\":false,\"error\":\"out of memory\"}");
        free(s);
        return;
    }
    if (r.op == REQ_SUBMIT) {
        struct job *j;
        if (d->core.draining) {
            close_fds(c);
            send_error(d, c, "the daemon is shutting down");
            return;
        }
        struct sp_err e = { "" };
        if (core_usable(&d->core, &e) < 0) {
            close_fds(c);
            send_error(d, c, e.msg);
            return;
        }
        int rc = core_submit(&d->core, c->uid, &r, c->fds, c->nfds, &j, &e);
        close_fds(c); /* those the job took are -1 now */
        if (rc < 0) {
            send_error(d, c, e.msg);
            return;
        }
        char line_out[128];
        snprintf(line_out, sizeof(line_out), "{\"ok\":true,\"job\":\"%s\",\"partitions\":%u}",
                 j->id, j->d.nparts);
        conn_send(d, c, line_out);
        return;
    }
    struct job *j = jobs_find(&d->core.jobs, r.job, c->uid);
    if (!j) {
        snprintf(err, sizeof(err), "no such job %s (finished jobs are kept for --result-ttl "
                 "seconds, and only for the uid that submitted them)", r.job);
        send_error(d, c, err);
        return;
    }
    if (r.op == REQ_CANCEL) {
        core_cancel_job(&d->core, j);
        char line_out[160];
        snprintf(line_out, sizeof(line_out), "{\"ok\":true,\"job\":\"%s\",\"state\":\"%s\"}",
                 j->id, jobs_state_name(j->state));
        conn_send(d, c, line_out);
        return;
    }
    if (j->state == JOB_RUNNING)
        c->waiting = j; /* answered by conns_job_ended */
    else
        answer_job_end(d, c, j);
}

void conn_readable(struct server *d, struct conn *c)
{
    if (c->closing)
        return;
    if (!c->in && !(c->in = malloc(REQUEST_LINE_MAX + 1))) {
        c->closing = 2;
        return;
    }
    for (;;) {
        union {
            char buf[CMSG_SPACE(sizeof(int) * 64)];
            struct cmsghdr align;
        } u;
        struct iovec iov = { c->in + c->inlen, REQUEST_LINE_MAX + 1 - c->inlen };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                             .msg_controllen = sizeof(u.buf) };
        ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                c->closing = 2;
            return;
        }
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                continue;
            int *in = (int *)CMSG_DATA(cm);
            size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; i++) {
                if (c->nfds < CONN_MAX_FDS)
                    c->fds[c->nfds++] = in[i];
                else
                    close(in[i]);
            }
        }
        if (mh.msg_flags & MSG_CTRUNC) {
            close_fds(c);
            send_error(d, c, "too many descriptors in one message");
            c->closing = 1;
            return;
        }
        if (n == 0) {
            /* client went away: its jobs carry on */
            c->closing = c->outlen ? 1 : 2;
            c->waiting = NULL;
            return;
        }
        c->inlen += (size_t)n;
        char *nl;
        while ((nl = memchr(c->in, '\n', c->inlen))) {
            size_t len = (size_t)(nl - c->in);
            handle_line(d, c, c->in, len);
            memmove(c->in, nl + 1, c->inlen - len - 1);
            c->inlen -= len + 1;
        }
        if (c->inlen > REQUEST_LINE_MAX) {
            close_fds(c);
            send_error(d, c, "request line too long");
            c->closing = 1;
            return;
        }
    }
}

void conn_writable(struct server *d, struct conn *c)
{
    (void)d;
    while (c->outlen) {
        ssize_t n = send(c->fd, c->out, c->outlen, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                c->closing = 2;
            return;
        }
        memmove(c->out, c->out + n, c->outlen - (size_t)n);
        c->outlen -= (size_t)n;
    }
}
