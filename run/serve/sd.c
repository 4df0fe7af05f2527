/* sd.c — readiness, status, watchdog and socket activation (see sd.h). */
#include "sd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include "dispatch.h"
#include "jobs.h"
#include "kids.h"

int sd_activated_socket(struct sp_err *e)
{
    int n = sd_listen_fds(1);
    if (n < 0)
        return sp_fail(e, n, "LISTEN_FDS: %s", strerror(-n)), -2;
    if (n == 0)
        return -1;
    if (n > 1)
        return sp_fail(e, -EINVAL, "systemd passed %d sockets; serve takes one (ListenStream= "
                       "of a unix socket)", n), -2;
    int fd = SD_LISTEN_FDS_START;
    if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0)
        return sp_fail(e, -EINVAL, "the socket systemd passed (fd %d) is not a listening unix "
                       "stream socket", fd), -2;
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

void sd_setup(struct sd_state *s)
{
    uint64_t usec = 0;
    memset(s, 0, sizeof(*s));
    if (sd_watchdog_enabled(0, &usec) > 0)
        s->watchdog_ns = usec * 1000;
}

/* each role has a child that is not stopped for good, and all said hello */
static void health(struct core *c, int *all_up, int *alive)
{
    int up = 1, syn = 0, gpu = 0;
    for (unsigned i = 0; i < c->kids.nkids; i++) {
        struct kid *k = &c->kids.kids[i];
        up &= k->alive && (k->state == KID_IDLE || k->state == KID_BUSY);
        if (k->state != KID_STOPPED)
            *(k->role == ROLE_GPUD ? &gpu : &syn) = 1;
    }
    *all_up = up && c->kids.nkids > 0;
    *alive = syn && gpu;
}

void sd_tick(struct sd_state *s, struct core *c, uint64_t now_ns)
{
    int all_up, alive;
    health(c, &all_up, &alive);
    if (!s->ready && all_up) {
        sd_notifyf(0, "READY=1\nSTATUS=ready: %u synthd, %u gpud, %u slots", c->o.synthds,
                   c->o.gpuds, c->o.slots);
        s->ready = 1;
        s->last_status_ns = now_ns;
    }
    if (c->draining && !s->stopping) {
        sd_notifyf(0, "STOPPING=1\nSTATUS=draining: %d jobs running", jobs_active(&c->jobs));
        s->stopping = 1;
    }
    if (s->watchdog_ns && alive && now_ns - s->last_ping_ns >= s->watchdog_ns / 2) {
        sd_notify(0, "WATCHDOG=1");
        s->last_ping_ns = now_ns;
    }
    if (s->ready && now_ns - s->last_status_ns >= 1000000000ull) {
        unsigned parts[DSP_FAILED + 1];
        char line[256];
        dispatch_counts(&c->dsp, parts);
        snprintf(line, sizeof(line), "STATUS=%s%d jobs running, %u partitions queued, %llu "
                 "proofs, %llu child deaths", c->draining ? "draining: " : "",
                 jobs_active(&c->jobs), parts[DSP_QUEUED], (unsigned long long)c->c.proofs,
                 (unsigned long long)(c->c.synthd_deaths + c->c.gpud_deaths));
        if (strcmp(line, s->last_status) != 0) {
            sd_notify(0, line);
            snprintf(s->last_status, sizeof(s->last_status), "%s", line);
        }
        s->last_status_ns = now_ns;
    }
}
