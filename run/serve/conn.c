/*
 * conn.c — client connections to the daemon's socket.
 *
 * Non-blocking, with bounded buffers: a request line is capped at
 * REQUEST_LINE_MAX and the descriptors that came with it at REQUEST_MAX_FDS.
 * Requests on one connection are answered in order, one at a time: while an
 * answer is pending (a wait, a result being streamed, or CONN_OUT_SOFT bytes
 * the client has not read) the connection is not read from, so a client that
 * sends and never reads costs at most one request line plus CONN_OUT_MAX
 * (or one partition's result line) of memory, and is dropped by the idle
 * timeout. A done job's results go out one partition per line, each added
 * only once the client has read what came before, so no job is too large to
 * fetch. Peers are checked with SO_PEERCRED against the allowed uids and gid;
 * each uid may hold --max-client-conns idle connections (no job to wait for
 * or stream; a new one counts as idle) and CONN_MAX_PER_UID in all, and the
 * last CONN_RESERVED_OWN free slots are the daemon's own uid's. A refusal
 * for these limits carries "busy":true, and clients retry it. Only complete
 * request lines (and answers going out) reset the idle timer, and time the
 * supervisor itself stood still does not count as a client's. A client that
 * disconnects does not cancel its job: the result is kept for --result-ttl
 * seconds for `slotprove wait JOB` by the same uid.
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
#include "job_end.h"
#include "conn.h"
#include "core.h"
#include "server.h"
#include "status.h"
#include "submit.h"

#define CONN_OUT_MAX (16u << 20)  /* answers queued but unread: past it, drop the client */
#define CONN_OUT_SOFT (1u << 20)  /* stop reading requests, stop adding result lines */
#define CONN_STALL_NS 1000000000ull /* a gap between ticks longer than this is a stall */
#define CONN_MAX_FDS ((int)(sizeof(((struct conn *)0)->fds) / sizeof(int)))

static void close_fds(struct conn *c)
{
    for (int i = 0; i < c->nfds; i++)
        if (c->fds[i] >= 0)
            close(c->fds[i]);
    c->nfds = 0;
}

static void process_lines(struct server *d, struct conn *c);

static void stream_stop(struct conn *c)
{
    if (c->streaming)
        c->streaming->readers--;
    c->streaming = NULL;
}

void conn_close(struct server *d, struct conn *c)
{
    stream_stop(c);
    for (int i = 0; i < MAX_CONNS; i++)
        if (d->conns[i] == c)
            d->conns[i] = NULL;
    close_fds(c);
    close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

/*
 * Whether a peer may use the daemon: the daemon's own uid always may (an
 * --allow-uid list adds users, it never locks out the daemon's owner); so
 * may each --allow-uid, and, with --allow-gid, every member of that group,
 * whether it is the peer's primary group or a supplementary one
 * (SO_PEERGROUPS, Linux 4.13: the groups the peer had when it connected).
 */
static int peer_allowed(const struct server *d, int fd, uid_t uid, gid_t gid)
{
    if (uid == geteuid())
        return 1;
    for (unsigned i = 0; i < d->o.n_allow_uid; i++)
        if (d->o.allow_uid[i] == uid)
            return 1;
    if (!d->o.has_allow_gid)
        return 0;
    if (gid == d->o.allow_gid)
        return 1;
    gid_t groups[256];
    socklen_t len = sizeof(groups);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
        return 0; /* more than 256 groups, or an old kernel: primary group only */
    for (size_t i = 0; i < len / sizeof(gid_t); i++)
        if (groups[i] == d->o.allow_gid)
            return 1;
    return 0;
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
            sup_log(LOG_NOTE, "event=conn_refused reason=no_fds|out of file descriptors: refused a connection");
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
    unsigned mine = 0, idle = 0, free_slots = 0;
    for (int i = 0; i < MAX_CONNS; i++) {
        struct conn *o = d->conns[i];
        if (!o) {
            free_slots++;
            if (slot < 0)
                slot = i;
            continue;
        }
        if (o->uid != cr.uid || o->closing)
            continue;
        mine++;
        idle += !o->waiting && !o->streaming;
    }
    int own = cr.uid == geteuid();
    int full = slot < 0 || (!own && free_slots <= CONN_RESERVED_OWN);
    struct conn *c = !full && idle < d->o.max_user_conns && mine < CONN_MAX_PER_UID
                         ? calloc(1, sizeof(*c)) : NULL;
    if (!c) {
        char busy[240];
        if (!full && idle >= d->o.max_user_conns)
            snprintf(busy, sizeof(busy), "{\"ok\":false,\"busy\":true,\"error\":\"too many idle "
                     "connections for uid %u (at most %u; connections waiting for a job do not "
                     "count; idle ones close after %u s)\"}\n", (unsigned)cr.uid,
                     d->o.max_user_conns, d->o.client_idle_s);
        else if (!full)
            snprintf(busy, sizeof(busy), "{\"ok\":false,\"busy\":true,\"error\":\"too many "
                     "connections for uid %u (at most %d)\"}\n", (unsigned)cr.uid,
                     CONN_MAX_PER_UID);
        else
            snprintf(busy, sizeof(busy), "{\"ok\":false,\"busy\":true,\"error\":\"too many "
                     "connections (%d, the last %d kept for the daemon's own uid)\"}\n",
                     MAX_CONNS, CONN_RESERVED_OWN);
        (void)!write(fd, busy, strlen(busy));
        close(fd);
        return;
    }
    c->fd = fd;
    c->last_active_ns = now_ns();
    c->uid = cr.uid;
    c->gid = cr.gid;
    d->conns[slot] = c;
    if (!peer_allowed(d, fd, cr.uid, cr.gid)) {
        char line[160];
        snprintf(line, sizeof(line),
                 "{\"ok\":false,\"error\":\"uid %u is not allowed to use this daemon\"}",
                 (unsigned)cr.uid);
        conn_send(d, c, line);
        c->closing = CONN_CLOSE_FLUSHED;
        sup_log(LOG_NOTE, "event=conn_refused reason=not_allowed uid=%u gid=%u|refused a client with uid %u gid %u",
                (unsigned)cr.uid, (unsigned)cr.gid, (unsigned)cr.uid, (unsigned)cr.gid);
    }
}

/* Appends line + '\n' to c's output; a line that would take the unread
 * output past CONN_OUT_MAX drops the client, unless the output is empty (one
 * partition's result may be larger than the cap on its own). */
static void out_append(struct conn *c, const char *line)
{
    size_t n = strlen(line);
    if (c->outlen && c->outlen + n + 1 > CONN_OUT_MAX) {
        c->closing = CONN_CLOSE_NOW; /* not reading: drop it */
        return;
    }
    if (c->outlen + n + 1 > c->outcap) {
        size_t cap = (c->outlen + n + 1) * 2;
        char *p = realloc(c->out, cap);
        if (!p) {
            c->closing = CONN_CLOSE_NOW;
            return;
        }
        c->out = p;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, line, n);
    c->out[c->outlen + n] = '\n';
    c->outlen += n + 1;
}

/* Sends what the socket takes now, without blocking. */
static void out_flush(struct conn *c)
{
    while (c->outlen) {
        ssize_t n = send(c->fd, c->out, c->outlen, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                c->closing = CONN_CLOSE_NOW;
            return;
        }
        memmove(c->out, c->out + n, c->outlen - (size_t)n);
        c->outlen -= (size_t)n;
        c->last_active_ns = now_ns();
    }
    if (c->outcap > CONN_OUT_SOFT && c->outlen == 0) { /* a big line went out: give it back */
        free(c->out);
        c->out = NULL;
        c->outcap = 0;
    }
}

void conn_send(struct server *d, struct conn *c, const char *line)
{
    (void)d;
    out_append(c, line);
    out_flush(c);
}

static void send_error(struct server *d, struct conn *c, const char *msg)
{
    json_t *o = json_pack("{sbss}", "ok", 0, "error", msg);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    conn_send(d, c, s ? s : "{\"ok\":false,\"error\":\"internal\"}");
    free(s);
    json_decref(o);
}

/* Adds result lines of the job being streamed while the client keeps up. */
static void stream_pump(struct conn *c)
{
    while (c->streaming && !c->closing && c->outlen < CONN_OUT_SOFT) {
        struct job *j = c->streaming;
        if (c->stream_next >= j->d.nparts) {
            stream_stop(c);
            break;
        }
        char *s = jobs_partition_json(j, c->stream_next++);
        if (!s) {
            c->closing = CONN_CLOSE_NOW;
            break;
        }
        out_append(c, s);
        free(s);
        out_flush(c);
    }
}

static void answer_job_end(struct server *d, struct conn *c, struct job *j)
{
    char *s = jobs_result_json(j);
    conn_send(d, c, s ? s : "{\"ok\":false,\"error\":\"out of memory\"}");
    free(s);
    if (j->state == JOB_DONE && s) {
        c->streaming = j;
        c->stream_next = 0;
        j->readers++;
        stream_pump(c);
    }
}

void conns_job_ended(void *server, struct job *j)
{
    struct server *d = server;
    for (int i = 0; i < MAX_CONNS; i++) {
        struct conn *c = d->conns[i];
        if (c && c->waiting == j) {
            c->waiting = NULL;
            answer_job_end(d, c, j);
            process_lines(d, c);
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
        char *s = status_json(&d->core, c->uid, &d->sizing);
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
        struct submission s = { .key = r.key, .zkey = r.zkey, .n_witnesses = r.n_witnesses,
                                .inputs = r.inputs, .program = r.program };
        for (unsigned i = 0; i < r.n_witnesses; i++)
            s.witnesses[i] = r.witnesses[i];
        int rc = core_submit(&d->core, c->uid, &s, c->fds, c->nfds, &j, &e);
        close_fds(c); /* those the job took are -1 now */
        if (rc == -EBUSY || rc == -EMFILE) { /* the file readers' limits (intake.h) */
            /* nothing was taken: the client may ask again (client_call does) */
            json_t *o = json_pack("{sbsbsssi}", "ok", 0, "busy", 1, "error", e.msg,
                                  "retry_after_s", (int)d->core.o.file_timeout_s);
            char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
            conn_send(d, c, txt ? txt : "{\"ok\":false,\"busy\":true,\"error\":\"busy\"}");
            free(txt);
            json_decref(o);
            return;
        }
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

/* Handles the complete request lines in c's input, in order, while no
 * answer is pending. */
static void process_lines(struct server *d, struct conn *c)
{
    char *nl;
    while (conn_wants_input(c) && (nl = memchr(c->in, '\n', c->inlen))) {
        size_t len = (size_t)(nl - c->in);
        c->last_active_ns = now_ns(); /* only a whole request resets the idle timer */
        handle_line(d, c, c->in, len);
        memmove(c->in, nl + 1, c->inlen - len - 1);
        c->inlen -= len + 1;
    }
}

void conn_readable(struct server *d, struct conn *c)
{
    if (c->closing)
        return;
    if (!c->in && !(c->in = malloc(REQUEST_LINE_MAX + 1))) {
        c->closing = CONN_CLOSE_NOW;
        return;
    }
    for (;;) {
        union {
            /* room for one past the limit (and alignment may fit more):
             * the count, not only MSG_CTRUNC, decides "too many" */
            char buf[CMSG_SPACE(sizeof(int) * (REQUEST_MAX_FDS + 1))];
            struct cmsghdr align;
        } u;
        struct iovec iov = { c->in + c->inlen, REQUEST_LINE_MAX + 1 - c->inlen };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                             .msg_controllen = sizeof(u.buf) };
        ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        int too_many = 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                c->closing = CONN_CLOSE_NOW;
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
                else {
                    close(in[i]);
                    too_many = 1;
                }
            }
        }
        if ((mh.msg_flags & MSG_CTRUNC) || too_many) {
            close_fds(c);
            char why[160];
            snprintf(why, sizeof(why), "more than %d descriptors in one message (a job is one "
                     "key, a program and at most %d witnesses)", REQUEST_MAX_FDS, REQUEST_MAX_WITNESSES);
            send_error(d, c, why);
            c->closing = CONN_CLOSE_FLUSHED;
            return;
        }
        if (n == 0) {
            /* client went away: its jobs carry on */
            c->closing = c->outlen ? CONN_CLOSE_FLUSHED : CONN_CLOSE_NOW;
            c->waiting = NULL;
            return;
        }
        c->inlen += (size_t)n;
        process_lines(d, c);
        if (!conn_wants_input(c))
            return; /* the rest waits until the answer has gone out */
        if (c->inlen > REQUEST_LINE_MAX) {
            close_fds(c);
            send_error(d, c, "request line too long");
            c->closing = CONN_CLOSE_FLUSHED;
            return;
        }
    }
}

void conn_writable(struct server *d, struct conn *c)
{
    out_flush(c);
    stream_pump(c);
    process_lines(d, c); /* requests that came while an answer was pending */
}

int conn_wants_input(const struct conn *c)
{
    return !c->closing && !c->waiting && !c->streaming && c->outlen < CONN_OUT_SOFT;
}

void conn_hangup(struct server *d, struct conn *c)
{
    (void)d;
    stream_stop(c);
    c->waiting = NULL; /* its job carries on */
    c->closing = CONN_CLOSE_NOW;
}

void conns_tick(struct server *d, uint64_t now)
{
    uint64_t idle = (uint64_t)d->o.client_idle_s * 1000000000ull;
    /* The loop ticks at least every 100 ms; a longer gap is the supervisor
     * itself standing still (stopped, swapped out, a slow disk): that time
     * is not the clients' idleness, so their timers move past it. */
    uint64_t gap = d->last_tick_ns && now > d->last_tick_ns ? now - d->last_tick_ns : 0;
    d->last_tick_ns = now;
    if (gap > CONN_STALL_NS)
        for (int i = 0; i < MAX_CONNS; i++) {
            struct conn *c = d->conns[i];
            if (c) /* never past now: the subtraction below is unsigned */
                c->last_active_ns = c->last_active_ns + gap < now ? c->last_active_ns + gap : now;
        }
    for (int i = 0; i < MAX_CONNS; i++) {
        struct conn *c = d->conns[i];
        if (c && c->inlen)
            process_lines(d, c); /* lines held back while an answer was pending */
        /* waiting for a running job with nothing unread is not idle */
        if (!c || c->closing || (c->waiting && !c->outlen) || now < c->last_active_ns ||
            now - c->last_active_ns < idle)
            continue;
        sup_log(LOG_NOTE, "event=conn_closed reason=%s uid=%u s=%u|closing a connection of uid %u: %s for %u s",
                c->outlen ? "unread" : "idle", (unsigned)c->uid, d->o.client_idle_s, (unsigned)c->uid,
                c->outlen ? "answers unread" : "idle", d->o.client_idle_s);
        conn_hangup(d, c);
    }
}
