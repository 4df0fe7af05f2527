/* loop.c — the core's part of an event loop (loop.h). */
#include <errno.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "core.h"
#include "loop.h"

static int turn(struct core *c, struct pollfd *pf, int n, int max, int timeout_ms,
                const int *stop)
{
    int all = n + core_pollfds(c, pf + n, max - n);
    if (poll(pf, (nfds_t)all, timeout_ms) < 0) {
        if (errno != EINTR)
            return -errno;
        for (int i = 0; i < all; i++)
            pf[i].revents = 0;
    }
    for (int i = n; i < all && !(stop && *stop); i++)
        if (pf[i].revents)
            core_on_fd(c, pf[i].fd);
    return 0;
}

int core_loop_turn(struct core *c, struct pollfd *pf, int n, int max, int timeout_ms)
{
    return turn(c, pf, n, max, timeout_ms, NULL);
}

int core_loop_until(struct core *c, const int *stop, int sig_fd)
{
    struct pollfd pf[2 + 2 * (MAX_SYNTHDS + MAX_GPUDS)];
    int n = 0;
    if (sig_fd >= 0)
        pf[n++] = (struct pollfd){ sig_fd, POLLIN, 0 };
    while (!*stop) {
        int rc = turn(c, pf, n, (int)(sizeof(pf) / sizeof(pf[0])), 100, stop);
        if (rc < 0)
            return rc;
        if (n && pf[0].revents) {
            struct signalfd_siginfo si;
            if (read(sig_fd, &si, sizeof(si)) == sizeof(si))
                return (int)si.ssi_signo;
        }
        core_tick(c, now_ns());
    }
    return 0;
}
