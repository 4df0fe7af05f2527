/* Control framing (ctl.h) over a real SOCK_SEQPACKET socketpair: header and
 * text round trips, descriptors passed (the same open file arrives), text at
 * and past CTL_TEXT_MAX, EOF and EPIPE of a gone peer, EAGAIN, and malformed
 * datagrams (short, a text length that disagrees with the bytes, too many
 * descriptors) refused with -EPROTO and their descriptors closed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

TestSuite(ctl, .timeout = 30);

static int sv[2];
static struct ctl_msg in, out;

static void pair(void)
{
    cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static int fd_open_count(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            n++;
    return n;
}

Test(ctl, header_and_text_round_trip)
{
    pair();
    ctl_init(&out, CTL_SYNTH_DONE);
    out.key_id = 7;
    out.job_id = 0x0123456789abcdefull;
    out.partition = 3;
    out.slot = 5;
    out.gen = 0xfffffffeu;
    out.gpud = 2;
    out.status = -EIO;
    out.slot_wait_ns = 12345;
    out.cpu_ns = 67890;
    ctl_text(&out, "witness %s part %d", "w.wtns", 3);
    cr_assert_eq(out.text_len, strlen("witness w.wtns part 3"));
    cr_assert_eq(ctl_send(sv[0], &out, NULL, 0), 0);
    int fds[CTL_MAX_FDS], nfds = -1;
    memset(&in, 0xa5, sizeof(in));
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 1);
    cr_assert_eq(nfds, 0);
    cr_assert_eq(in.type, CTL_SYNTH_DONE);
    cr_assert_eq(in.key_id, 7);
    cr_assert_eq(in.job_id, 0x0123456789abcdefull);
    cr_assert_eq(in.partition, 3);
    cr_assert_eq(in.slot, 5);
    cr_assert_eq(in.gen, 0xfffffffeu);
    cr_assert_eq(in.gpud, 2);
    cr_assert_eq(in.status, -EIO);
    cr_assert_eq(in.slot_wait_ns, 12345);
    cr_assert_eq(in.cpu_ns, 67890);
    cr_assert_str_eq(in.text, "witness w.wtns part 3"); /* NUL-terminated on receipt */
    close(sv[0]);
    close(sv[1]);
}

Test(ctl, binary_text_and_limits)
{
    pair();
    static unsigned char big[CTL_TEXT_MAX + 100];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (unsigned char)(i * 31 + 7); /* zeros inside too */
    ctl_init(&out, CTL_PROVED);
    ctl_bytes(&out, big, CTL_TEXT_MAX);
    cr_assert_eq(out.text_len, CTL_TEXT_MAX);
    int fds[CTL_MAX_FDS], nfds;
    cr_assert_eq(ctl_send(sv[0], &out, NULL, 0), 0);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 1);
    cr_assert_eq(in.text_len, CTL_TEXT_MAX);
    cr_assert_eq(memcmp(in.text, big, CTL_TEXT_MAX), 0);
    cr_assert_eq(in.text[CTL_TEXT_MAX], 0);

    /* past the limit: truncated to CTL_TEXT_MAX, both ways of setting text */
    ctl_bytes(&out, big, sizeof(big));
    cr_assert_eq(out.text_len, CTL_TEXT_MAX);
    char *s = malloc(CTL_TEXT_MAX + 50);
    cr_assert_not_null(s);
    memset(s, 'x', CTL_TEXT_MAX + 49);
    s[CTL_TEXT_MAX + 49] = 0;
    ctl_text(&out, "%s", s);
    free(s);
    cr_assert_eq(out.text_len, CTL_TEXT_MAX);
    cr_assert_eq(ctl_send(sv[0], &out, NULL, 0), 0);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 1);
    cr_assert_eq(in.text_len, CTL_TEXT_MAX);
    cr_assert_eq(strlen(in.text), CTL_TEXT_MAX);

    /* an empty message: header only */
    ctl_init(&out, CTL_HELLO);
    cr_assert_eq(ctl_send(sv[0], &out, NULL, 0), 0);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 1);
    cr_assert_eq(in.type, CTL_HELLO);
    cr_assert_eq(in.text_len, 0);
    cr_assert_str_eq(in.text, "");

    cr_assert_eq(ctl_send(sv[0], &out, fds, CTL_MAX_FDS + 1), -EINVAL);
    cr_assert_eq(ctl_send(sv[0], &out, fds, -1), -EINVAL);
    close(sv[0]);
    close(sv[1]);
}

Test(ctl, descriptors_arrive_as_the_same_files)
{
    pair();
    char path[] = "/tmp/ctl-test-XXXXXX";
    int f[CTL_MAX_FDS];
    f[0] = mkstemp(path);
    cr_assert_geq(f[0], 0);
    unlink(path);
    cr_assert_eq(write(f[0], "zkey", 4), 4);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    f[1] = p[0];
    f[2] = p[1];
    f[3] = f[0]; /* the same descriptor twice is two descriptors */
    ctl_init(&out, CTL_KEY_LOAD);
    ctl_text(&out, "k.zkey");
    cr_assert_eq(ctl_send(sv[0], &out, f, CTL_MAX_FDS), 0);
    int got[CTL_MAX_FDS], nfds;
    cr_assert_eq(ctl_recv(sv[1], &in, got, &nfds), 1);
    cr_assert_eq(nfds, CTL_MAX_FDS);
    for (int i = 0; i < CTL_MAX_FDS; i++) {
        struct stat a, b;
        cr_assert_eq(fstat(f[i], &a), 0);
        cr_assert_eq(fstat(got[i], &b), 0);
        cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "fd %d is another file", i);
        cr_assert_neq(got[i], f[i]);
        cr_assert(fcntl(got[i], F_GETFD) & FD_CLOEXEC, "fd %d without CLOEXEC", i);
    }
    /* the pipe works across: written on the received end, read on ours */
    cr_assert_eq(write(got[2], "x", 1), 1);
    char c = 0;
    cr_assert_eq(read(p[0], &c, 1), 1);
    cr_assert_eq(c, 'x');
    for (int i = 0; i < CTL_MAX_FDS; i++)
        close(got[i]);
    close(f[0]);
    close(p[0]);
    close(p[1]);
    close(sv[0]);
    close(sv[1]);
}

Test(ctl, eof_epipe_and_eagain)
{
    pair();
    int fds[CTL_MAX_FDS], nfds;
    cr_assert_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), -EAGAIN);
    close(sv[0]);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 0); /* EOF: the peer closed */
    ctl_init(&out, CTL_HELLO);
    cr_assert_eq(ctl_send(sv[1], &out, NULL, 0), -EPIPE); /* and no SIGPIPE */
    close(sv[1]);
}

/* Raw datagrams that are not messages: each is -EPROTO, with nothing left
 * open, and the next good message still arrives. */
Test(ctl, malformed_refused)
{
    pair();
    int fds[CTL_MAX_FDS], nfds;
    const size_t hdr = offsetof(struct ctl_msg, text);
    int before = fd_open_count();

    /* shorter than a header */
    cr_assert_eq(send(sv[0], "abc", 3, 0), 3);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), -EPROTO);

    /* text_len says 10, 4 bytes came */
    ctl_init(&out, CTL_KEY_ERR);
    out.text_len = 10;
    memcpy(out.text, "abcd", 4);
    cr_assert_eq(send(sv[0], &out, hdr + 4, 0), (ssize_t)(hdr + 4));
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), -EPROTO);

    /* text_len past CTL_TEXT_MAX */
    ctl_init(&out, CTL_KEY_ERR);
    out.text_len = CTL_TEXT_MAX + 1;
    cr_assert_eq(send(sv[0], &out, hdr, 0), (ssize_t)hdr);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), -EPROTO);

    /* too many descriptors (CTL_MAX_FDS + 2) with a bad header: all closed */
    int extra[CTL_MAX_FDS + 2];
    for (int i = 0; i < CTL_MAX_FDS + 2; i++)
        extra[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    union {
        char buf[CMSG_SPACE(sizeof(extra))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof(u));
    struct iovec iov = { .iov_base = "ab", .iov_len = 2 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(extra));
    memcpy(CMSG_DATA(c), extra, sizeof(extra));
    cr_assert_eq(sendmsg(sv[0], &mh, 0), 2);
    for (int i = 0; i < CTL_MAX_FDS + 2; i++)
        close(extra[i]);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), -EPROTO);
    cr_assert_eq(nfds, 0);
    cr_assert_eq(fd_open_count(), before, "a refused message left descriptors open");

    ctl_init(&out, CTL_SHUTDOWN);
    cr_assert_eq(ctl_send(sv[0], &out, NULL, 0), 0);
    cr_assert_eq(ctl_recv(sv[1], &in, fds, &nfds), 1);
    cr_assert_eq(in.type, CTL_SHUTDOWN);
    close(sv[0]);
    close(sv[1]);
}

Test(ctl, every_type_has_a_name)
{
    for (uint32_t t = CTL_HELLO; t <= CTL_BACKEND; t++)
        cr_assert_str_neq(ctl_type_name(t), "?", "type %u has no name", t);
    cr_assert_str_eq(ctl_type_name(CTL_SYNTH), "SYNTH");
    cr_assert_str_eq(ctl_type_name(CTL_BACKEND), "BACKEND");
    cr_assert_str_eq(ctl_type_name(0), "?");
    cr_assert_str_eq(ctl_type_name(CTL_BACKEND + 1), "?");
    cr_assert_str_eq(ctl_type_name(0xffffffffu), "?");
}
