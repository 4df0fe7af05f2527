/*
 * proc.h — starting and reaping the supervisor's children (synthd, gpud).
 *
 * Each child gets a SOCK_SEQPACKET control socket, the pool's two memfds and
 * the doorbell at fixed descriptor numbers (child.h), an incarnation number,
 * and PR_SET_PDEATHSIG so it dies with the supervisor. Every other
 * descriptor is closed before exec (close_range). The supervisor watches each
 * child through a pidfd (readable when it exits) and signals it only through
 * that pidfd, never by a pid that may have been reused.
 */
#ifndef SLOTPROVE_PROC_H
#define SLOTPROVE_PROC_H

#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define PROC_KILL_WAIT_MS 5000

struct child_proc {
    const char *role;     /* "synthd" / "gpud" */
    pid_t pid;
    int pidfd;            /* readable once the child has exited */
    int ctl;              /* supervisor's end of the control socket */
    uint32_t incarnation;
    int exited;           /* reaped; status below */
    int status;           /* waitpid status */
};

struct spawn_opts {
    const char *exe;      /* full path of the child binary */
    int pool_ctl_fd, pool_payload_fd;
    const int *doorbell_fds; /* placed at 6, 7, …: a gpud's own, or every gpud's for a synthd */
    unsigned ndoorbells;  /* 1..CHILD_MAX_DOORBELLS */
    int gpud_index;       /* gpud: its ring; -1 for a synthd */
    uint32_t incarnation;
    unsigned threads;     /* 0 = all CPUs */
    const char *backend;  /* gpud only, else NULL */
    const char *gpu;      /* gpud only: its CUDA device (an index or UUID), or NULL */
    int no_verify;        /* gpud only: --no-verify 1 (no self-check of its proofs) */
    int trace_buffers;    /* --trace-buffers 1: slot-table lines on stderr */
    int log_stamp;        /* --log-stamp 1: stderr lines start with time and level */
    uint64_t gpu_mem;     /* gpud only: --gpu-mem BYTES, 0: not passed */
    unsigned gpu_share;   /* gpud only: gpuds sharing its device; > 1: --gpu-share N */
    unsigned workers;     /* gpud only: --workers N, partitions proved at once; 0: not passed */
    uint64_t witness_mem; /* synthd only: --witness-mem BYTES, 0: not passed */
    unsigned witness_cpu, witness_time; /* synthd only: --witness-cpu/--witness-time S, 0: not passed */
};

/* Forks and execs one child. -errno with a message on failure. */
int proc_spawn(struct child_proc *c, const char *role, const struct spawn_opts *o,
               struct sp_err *e);

/* Non-blocking reap: 1 if the child has exited (c->status set), 0 if still
 * running, -errno. */
int proc_reap(struct child_proc *c);

/* Blocking reap with a deadline; SIGKILLs the child (via its pidfd) when the
 * deadline passes, then waits PROC_KILL_WAIT_MS more at most: a child asleep
 * in an uninterruptible read takes the signal only when the read returns.
 * Still there then: not reaped (c->exited stays 0). */
void proc_wait(struct child_proc *c, int timeout_ms);

/* SIGKILL through the pidfd; 0 or -errno. */
int proc_kill(struct child_proc *c, int sig);

/* "exited with code 2", "killed by signal 9 (Killed)" */
void proc_describe(const struct child_proc *c, char *buf, size_t len);

void proc_close(struct child_proc *c);

#endif
