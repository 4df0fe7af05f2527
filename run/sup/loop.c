/* loop.c — the core's part of an event loop (loop.h). */
#include <errno.h>
#include <string.h>

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

int core_loop_until(struct core *c, const int *stop)
{
    struct pollfd pf[1 + 2 * (MAX_SYNTHDS + MAX_GPUDS)];
    while (!*stop) {
        int rc = turn(c, pf, 0, (int)(sizeof(pf) / sizeof(pf[0])), 100, stop);
        if (rc < 0)
            return rc;
        core_tick(c, now_ns());
    }
    return 0;
}
