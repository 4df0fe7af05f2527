/* child.c — see child.h. */
#include "child.h"
#include "ctl.h"
#include "fault_point.h"
#include "pool.h"
#include "log_stamp.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *s == 0 || *end != 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

int child_args_parse(struct child_args *a, int argc, char **argv, struct sp_err *e)
{
    unsigned long v, v2;
    memset(a, 0, sizeof(*a));
    a->ctl_fd = a->pool_ctl_fd = a->pool_payload_fd = a->doorbell_fd = -1;
    a->backend = "auto";
    a->ndoorbells = 1;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val)
            return sp_fail(e, -EINVAL, "%s: missing value", k);
        i++;
        if (strcmp(k, "--ctl-fd") == 0 && parse_uint(val, 1 << 20, &v) == 0)
            a->ctl_fd = (int)v;
        else if (strcmp(k, "--doorbell-fd") == 0 && parse_uint(val, 1 << 20, &v) == 0)
            a->doorbell_fd = (int)v;
        else if (strcmp(k, "--pool-fds") == 0 && strchr(val, ',')) {
            char buf[64];
            strncpy(buf, val, sizeof(buf) - 1);
            buf[sizeof(buf) - 1] = 0;
            char *comma = strchr(buf, ',');
            *comma = 0;
            if (parse_uint(buf, 1 << 20, &v) || parse_uint(comma + 1, 1 << 20, &v2))
                return sp_fail(e, -EINVAL, "--pool-fds %s: expected CTL,PAYLOAD", val);
            a->pool_ctl_fd = (int)v;
            a->pool_payload_fd = (int)v2;
        } else if (strcmp(k, "--incarnation") == 0 && parse_uint(val, 0xffffff, &v) == 0 && v)
            a->incarnation = (uint32_t)v;
        else if (strcmp(k, "--supervisor") == 0 && parse_uint(val, 1u << 30, &v) == 0)
            a->supervisor = (pid_t)v;
        else if (strcmp(k, "--threads") == 0 && parse_uint(val, 1024, &v) == 0)
            a->threads = (unsigned)v;
        else if (strcmp(k, "--backend") == 0)
            a->backend = val;
        else if (strcmp(k, "--gpu") == 0)
            a->gpu = val;
        else if (strcmp(k, "--gpu-mem") == 0 && parse_uint(val, (uint64_t)1 << 50, &v) == 0)
            a->gpu_mem = v;
        else if (strcmp(k, "--gpu-share") == 0 && parse_uint(val, CHILD_MAX_DOORBELLS, &v) == 0 && v)
            a->gpu_share = (unsigned)v;
        else if (strcmp(k, "--workers") == 0 && parse_uint(val, CHILD_MAX_WORKERS, &v) == 0 && v)
            a->workers = (unsigned)v;
        else if (strcmp(k, "--doorbells") == 0 && parse_uint(val, CHILD_MAX_DOORBELLS, &v) == 0 && v)
            a->ndoorbells = (unsigned)v;
        else if (strcmp(k, "--no-verify") == 0 && parse_uint(val, 1, &v) == 0)
            a->no_verify = (int)v;
        else if (strcmp(k, "--trace-buffers") == 0 && parse_uint(val, 1, &v) == 0)
            a->trace_buffers = (int)v;
        else if (strcmp(k, "--log-stamp") == 0 && parse_uint(val, 1, &v) == 0)
            a->log_stamp = (int)v;
        else if (strcmp(k, "--witness-mem") == 0 && parse_uint(val, ULONG_MAX, &v) == 0)
            a->witness_mem = v;
        else if (strcmp(k, "--witness-cpu") == 0 && parse_uint(val, UINT_MAX, &v) == 0)
            a->witness_cpu = (unsigned)v;
        else if (strcmp(k, "--witness-time") == 0 && parse_uint(val, UINT_MAX, &v) == 0)
            a->witness_time = (unsigned)v;
        else if (strcmp(k, "--gpud-index") == 0 && parse_uint(val, CHILD_MAX_DOORBELLS - 1, &v) == 0)
            a->gpud_index = (unsigned)v;
        else
            return sp_fail(e, -EINVAL, "unexpected argument %s %s", k, val);
    }
    if (a->ctl_fd < 0 || a->pool_ctl_fd < 0 || a->incarnation == 0 || a->supervisor <= 0)
        return sp_fail(e, -EINVAL,
                       "missing --ctl-fd, --pool-fds, --incarnation or --supervisor "
                       "(this program is started by `slotprove`, not by hand)");
    return 0;
}

int child_bind_to_supervisor(const struct child_args *a)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        return -errno;
    return getppid() == a->supervisor ? 0 : -ESRCH;
}

int child_supervisor_alive(const struct child_args *a)
{
    return getppid() == a->supervisor;
}

int child_send(const struct child_args *a, const struct ctl_msg *m)
{
    for (;;) {
        int rc = ctl_send(a->ctl_fd, m, NULL, 0);
        if (rc != -EAGAIN && rc != -ENOBUFS)
            return rc;
        if (!child_supervisor_alive(a))
            return -ESRCH;
        struct pollfd p = { .fd = a->ctl_fd, .events = POLLOUT };
        poll(&p, 1, 1000);
    }
}

int child_start(struct child_args *a, int argc, char **argv, const char *role,
                struct pool *pool, int payload_prot)
{
    struct sp_err e = { "" };
    char point[32];
    int rc;

    if (child_args_parse(a, argc, argv, &e) < 0) {
        fprintf(stderr, "%s: %s\n", role, e.msg);
        return 2;
    }
    diag_setup(a->log_stamp); /* this process's stderr lines from here on (log_stamp.h) */
    if (child_bind_to_supervisor(a) < 0)
        return 2;
    snprintf(point, sizeof(point), "%s-start", role);
    fault_point_kill(point, NULL);
    if ((rc = pool_attach(pool, a->pool_ctl_fd, a->pool_payload_fd, payload_prot)) < 0) {
        /* not fatal: the supervisor repairs a torn control page within a
         * second (pool_guard.h) and starts this role again, with backoff */
        diag(LOG_ERR, "%s: cannot attach the slot pool: %s (a bug, or a process wrote the "
             "pool: please report it)", role, strerror(-rc));
        return 1;
    }
    return 0;
}
