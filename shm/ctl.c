/* ctl.c — see ctl.h. */
#include "ctl.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CTL_HDR_BYTES offsetof(struct ctl_msg, text)

void ctl_init(struct ctl_msg *m, enum ctl_type type)
{
    memset(m, 0, CTL_HDR_BYTES);
    m->type = type;
    m->text[0] = 0;
}

void ctl_bytes(struct ctl_msg *m, const void *p, uint32_t len)
{
    if (len > CTL_TEXT_MAX)
        len = CTL_TEXT_MAX;
    memcpy(m->text, p, len);
    m->text[len] = 0;
    m->text_len = len;
}

void ctl_text(struct ctl_msg *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->text, sizeof(m->text), fmt, ap);
    va_end(ap);
    m->text_len = n < 0 ? 0 : (uint32_t)n > CTL_TEXT_MAX ? CTL_TEXT_MAX : (uint32_t)n;
}

int ctl_send(int sock, const struct ctl_msg *m, const int *fds, int nfds)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
        struct cmsghdr align;
    } u;
    uint32_t tl = m->text_len > CTL_TEXT_MAX ? CTL_TEXT_MAX : m->text_len;
    struct iovec iov = { .iov_base = (void *)m, .iov_len = CTL_HDR_BYTES + tl };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (nfds < 0 || nfds > CTL_MAX_FDS)
        return -EINVAL;
    if (nfds > 0) {
        memset(&u, 0, sizeof(u));
        mh.msg_control = u.buf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (n >= 0)
            return 0;
        if (errno != EINTR)
            return -errno;
    }
}

int ctl_recv(int sock, struct ctl_msg *m, int *fds, int *nfds)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
        struct cmsghdr align;
    } u;
    struct iovec iov = { .iov_base = m, .iov_len = CTL_HDR_BYTES + CTL_TEXT_MAX };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf),
    };
    ssize_t n;
    int got = 0, bad = 0;

    *nfds = 0;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if (n == 0)
        return 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *in = (int *)CMSG_DATA(c);
        for (size_t i = 0; i < k; i++) {
            if (got < CTL_MAX_FDS)
                fds[got++] = in[i];
            else {
                close(in[i]);
                bad = 1;
            }
        }
    }
    if ((mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) || (size_t)n < CTL_HDR_BYTES ||
        m->text_len > CTL_TEXT_MAX || (size_t)n != CTL_HDR_BYTES + m->text_len)
        bad = 1;
    if (bad) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        return -EPROTO;
    }
    m->text[m->text_len] = 0;
    *nfds = got;
    return 1;
}

const char *ctl_type_name(uint32_t type)
{
    static const char *const names[] = {
        "?", "HELLO", "KEY_LOAD", "KEY_OK", "KEY_ERR", "SYNTH", "SYNTH_DONE",
        "SYNTH_ERR", "PROVED", "PROVE_ERR", "SHUTDOWN", "TAKEN", "PROGRESS", "KEY_DROP", "BACKEND",
    };
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}
