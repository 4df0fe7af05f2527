/* proc.c — see proc.h. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

static int pidfd_open_(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_exec(const struct spawn_opts *o, int ctl, pid_t sup, const char *role)
{
    char a_inc[16], a_sup[16], a_thr[16], a_nd[16], a_gi[16], a_ctl[8], a_pool[16], a_bell[8];
    /* src[i] becomes fd CHILD_FD_CTL + i (shm/child.h): the control socket,
     * the pool's two memfds, then the doorbells from CHILD_FD_DOORBELL on */
    enum { FIXED = CHILD_FD_DOORBELL - CHILD_FD_CTL };
    _Static_assert(CHILD_FD_POOL_CTL == CHILD_FD_CTL + 1 && CHILD_FD_POOL_PAYLOAD == CHILD_FD_CTL + 2 &&
                   FIXED == 3, "the child's fds follow one another");
    int src[FIXED + CHILD_MAX_DOORBELLS] = { ctl, o->pool_ctl_fd, o->pool_payload_fd };
    unsigned n = FIXED + o->ndoorbells;

    for (unsigned i = 0; i < o->ndoorbells; i++)
        src[FIXED + i] = o->doorbell_fds[i];
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != sup)
        _exit(2);
    /* move the sources out of the way of CHILD_FD_CTL.., then into place */
    for (unsigned i = 0; i < n; i++)
        if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD, 64)) < 0)
            _exit(2);
    for (unsigned i = 0; i < n; i++)
        if (src[i] >= 0 && dup2(src[i], CHILD_FD_CTL + (int)i) < 0)
            _exit(2);
    syscall(SYS_close_range, CHILD_FD_CTL + n, ~0u, 0);
    snprintf(a_inc, sizeof(a_inc), "%u", o->incarnation);
    snprintf(a_sup, sizeof(a_sup), "%d", (int)sup);
    snprintf(a_thr, sizeof(a_thr), "%u", o->threads);
    snprintf(a_nd, sizeof(a_nd), "%u", o->ndoorbells);
    snprintf(a_gi, sizeof(a_gi), "%d", o->gpud_index);
    snprintf(a_ctl, sizeof(a_ctl), "%d", CHILD_FD_CTL);
    snprintf(a_pool, sizeof(a_pool), "%d,%d", CHILD_FD_POOL_CTL, CHILD_FD_POOL_PAYLOAD);
    snprintf(a_bell, sizeof(a_bell), "%d", CHILD_FD_DOORBELL);
    char *argv[48] = {
        (char *)role, "--ctl-fd", a_ctl, "--pool-fds", a_pool, "--doorbell-fd", a_bell,
        "--incarnation", a_inc, "--supervisor", a_sup, "--threads", a_thr,
    };
    int k = 13;
    if (o->gpud_index >= 0) {
        argv[k++] = "--gpud-index";
        argv[k++] = a_gi;
    } else {
        argv[k++] = "--doorbells";
        argv[k++] = a_nd;
    }
    if (o->backend) {
        argv[k++] = "--backend";
        argv[k++] = (char *)o->backend;
    }
    if (o->gpu) {
        argv[k++] = "--gpu";
        argv[k++] = (char *)o->gpu;
    }
    if (o->no_verify) {
        argv[k++] = "--no-verify";
        argv[k++] = "1";
    }
    if (o->trace_buffers) {
        argv[k++] = "--trace-buffers";
        argv[k++] = "1";
    }
    if (o->log_stamp) {
        argv[k++] = "--log-stamp";
        argv[k++] = "1";
    }
    char a_gm[24];
    if (o->gpu_mem) {
        snprintf(a_gm, sizeof(a_gm), "%llu", (unsigned long long)o->gpu_mem);
        argv[k++] = "--gpu-mem";
        argv[k++] = a_gm;
    }
    char a_gs[16];
    if (o->gpu_share > 1) {
        snprintf(a_gs, sizeof(a_gs), "%u", o->gpu_share);
        argv[k++] = "--gpu-share";
        argv[k++] = a_gs;
    }
    char a_wk[16];
    if (o->workers) {
        snprintf(a_wk, sizeof(a_wk), "%u", o->workers);
        argv[k++] = "--workers";
        argv[k++] = a_wk;
    }
    char a_wm[24], a_wc[16], a_wt[16];
    if (o->witness_mem) {
        snprintf(a_wm, sizeof(a_wm), "%llu", (unsigned long long)o->witness_mem);
        argv[k++] = "--witness-mem";
        argv[k++] = a_wm;
    }
    if (o->witness_cpu) {
        snprintf(a_wc, sizeof(a_wc), "%u", o->witness_cpu);
        argv[k++] = "--witness-cpu";
        argv[k++] = a_wc;
    }
    if (o->witness_time) {
        snprintf(a_wt, sizeof(a_wt), "%u", o->witness_time);
        argv[k++] = "--witness-time";
        argv[k++] = a_wt;
    }
    argv[k] = NULL;
    execv(o->exe, argv);
    _exit(127);
}

int proc_spawn(struct child_proc *c, const char *role, const struct spawn_opts *o,
               struct sp_err *e)
{
    int sv[2];
    memset(c, 0, sizeof(*c));
    c->role = role;
    c->pidfd = c->ctl = -1;
    c->incarnation = o->incarnation;
    if (access(o->exe, X_OK) < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: cannot run %s: %s", role, o->exe, strerror(err));
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        int err = errno;
        return sp_fail(e, -err, "%s: socketpair: %s", role, strerror(err));
    }
    pid_t sup = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return sp_fail(e, -err, "%s: fork: %s", role, strerror(err));
    }
    if (pid == 0)
        child_exec(o, sv[1], sup, role);
    close(sv[1]);
    c->pid = pid;
    c->ctl = sv[0];
    c->pidfd = pidfd_open_(pid);
    if (c->pidfd < 0) {
        int err = errno;
        kill(pid, SIGKILL); /* not yet reaped, so the pid is still ours */
        waitpid(pid, NULL, 0);
        close(c->ctl);
        c->ctl = -1;
        return sp_fail(e, -err, "%s: pidfd_open: %s (Linux >= 5.3 needed)", role, strerror(err));
    }
    fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
    return 0;
}

int proc_reap(struct child_proc *c)
{
    if (c->exited)
        return 1;
    if (c->pid <= 0)
        return -ECHILD;
    pid_t r = waitpid(c->pid, &c->status, WNOHANG);
    if (r < 0)
        return -errno;
    if (r == 0)
        return 0;
    c->exited = 1;
    return 1;
}

int proc_kill(struct child_proc *c, int sig)
{
    if (c->exited || c->pidfd < 0)
        return -ESRCH;
    if (syscall(SYS_pidfd_send_signal, c->pidfd, sig, NULL, 0) < 0)
        return -errno;
    return 0;
}

void proc_wait(struct child_proc *c, int timeout_ms)
{
    if (c->pid <= 0 || c->exited)
        return;
    struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
    if (poll(&p, 1, timeout_ms) <= 0) {
        proc_kill(c, SIGKILL);
        if (poll(&p, 1, PROC_KILL_WAIT_MS) <= 0)
            return; /* stuck in the kernel (stuck.h): not reaped */
    }
    while (!c->exited && waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
        ;
    c->exited = 1;
}

void proc_describe(const struct child_proc *c, char *buf, size_t len)
{
    if (!c->exited)
        snprintf(buf, len, "is running");
    else if (WIFEXITED(c->status))
        snprintf(buf, len, "exited with code %d", WEXITSTATUS(c->status));
    else if (WIFSIGNALED(c->status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    else
        snprintf(buf, len, "ended with status 0x%x", c->status);
}

void proc_close(struct child_proc *c)
{
    if (c->ctl >= 0)
        close(c->ctl);
    if (c->pidfd >= 0)
        close(c->pidfd);
    c->ctl = c->pidfd = -1;
}
